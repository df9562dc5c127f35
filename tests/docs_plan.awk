# Joins the examples (tests/docs_extract.awk's index) with tests/e2e/docs.sh's
# tables: what to do with each example.
#   awk -f tests/docs_plan.awk INDEX OPTIONS SKIP KNOWN_BROKEN
# A table row is "FILE:PREFIX => VALUE", PREFIX the start of the example's
# command, optionally followed by " #N" for the Nth example of FILE whose
# command starts so (default the first); PREFIX$ is the whole command.  Prints the index's columns plus the
# example's options, skip reason and known-broken reason ("-" when none),
# tab-separated.  A row that names no example is an error (exit 1): the
# tables cannot drift from the docs either.
function row(kind, line,   p, key, val, file, prefix, nth, c, i, hit, whole) {
	if (line ~ /^[ \t]*(#|$)/)
		return
	p = index(line, " => ")
	if (p == 0) {
		printf "docs tables: %s: no ' => ' in: %s\n", kind, line > "/dev/stderr"
		bad = 1
		return
	}
	key = substr(line, 1, p - 1)
	val = substr(line, p + 4)
	c = index(key, ":")
	file = substr(key, 1, c - 1)
	prefix = substr(key, c + 1)
	nth = 1
	if (match(prefix, / #[0-9]+$/)) {
		nth = substr(prefix, RSTART + 2) + 0
		prefix = substr(prefix, 1, RSTART - 1)
	}
	whole = 0
	if (prefix ~ /\$$/) {
		whole = 1
		prefix = substr(prefix, 1, length(prefix) - 1)
	}
	hit = ""
	c = 0
	for (i = 1; i <= n; i++) {
		if (efile[i] != file || substr(ecmd[i], 1, length(prefix)) != prefix || (whole && ecmd[i] != prefix))
			continue
		if (++c == nth) {
			hit = i
			break
		}
	}
	if (hit == "") {
		printf "docs tables: %s: '%s' names no example (%d of that prefix in %s)\n", kind, key, c, file > "/dev/stderr"
		bad = 1
		return
	}
	if (kind == "options") {
		opt[hit] = (opt[hit] == "" ? val : opt[hit] " " val)
	} else if (kind == "skip") {
		if (skip[hit] != "") {
			printf "docs tables: skip: '%s' listed twice\n", key > "/dev/stderr"
			bad = 1
		}
		skip[hit] = val
	} else {
		if (known[hit] != "") {
			printf "docs tables: known-broken: '%s' listed twice\n", key > "/dev/stderr"
			bad = 1
		}
		known[hit] = val
	}
}
FILENAME == ARGV[1] {
	n++
	line[n] = $0
	split($0, f, "\t")
	efile[n] = f[2]
	ecmd[n] = f[6]
	next
}
FILENAME == ARGV[2] { row("options", $0); next }
FILENAME == ARGV[3] { row("skip", $0); next }
FILENAME == ARGV[4] { row("known-broken", $0); next }
END {
	if (bad)
		exit 1
	for (i = 1; i <= n; i++) {
		if (skip[i] != "" && (opt[i] != "" || known[i] != "")) {
			printf "docs tables: %s:%s is skipped and has options or a known-broken entry\n", efile[i], ecmd[i] > "/dev/stderr"
			exit 1
		}
		printf "%s\t%s\t%s\t%s\n", line[i], (opt[i] == "" ? "-" : opt[i]), (skip[i] == "" ? "-" : skip[i]),
			(known[i] == "" ? "-" : known[i])
	}
}
