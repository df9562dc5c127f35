# The console examples of markdown files, for tests/e2e/docs.sh.
#   awk -v out=DIR -f tests/docs_extract.awk FILE.md...
# Every line starting with "$ " inside a ```console block is an example; the
# lines after it, up to the next "$ " line or the end of the block, are the
# output it shows.  Writes DIR/index (one example a line, tab-separated:
# id, file, line, block, first-of-its-block, command with its trailing
# "# comment" cut) and DIR/ID.exp (the output shown, as written).
function flush_example() {
	if (id != "")
		close(out "/" id ".exp")
}
# the command without a trailing comment: a # outside quotes, after a blank
function strip_comment(s,   i, c, q, n) {
	q = ""
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (q != "") {
			if (c == q)
				q = ""
			else if (c == "\\" && q == "\"")
				i++
			continue
		}
		if (c == "'" || c == "\"")
			q = c
		else if (c == "\\")
			i++
		else if (c == "#" && i > 1 && substr(s, i - 1, 1) ~ /[ \t]/)
			return substr(s, 1, i - 1)
	}
	return s
}
BEGIN {
	n = 0
	blocks = 0
}
FNR == 1 {
	flush_example()
	id = ""
	inblock = 0
}
/^```console[ \t]*$/ && !inblock {
	inblock = 1
	blocks++
	first = 1
	next
}
/^```/ && inblock {
	flush_example()
	id = ""
	inblock = 0
	next
}
inblock && /^\$ / {
	flush_example()
	n++
	id = sprintf("%03d", n)
	cmd = strip_comment(substr($0, 3))
	sub(/[ \t]+$/, "", cmd)
	printf "%s\t%s\t%d\t%d\t%d\t%s\n", id, FILENAME, FNR, blocks, first, cmd > (out "/index")
	printf "" > (out "/" id ".exp")
	first = 0
	next
}
inblock && id != "" {
	print > (out "/" id ".exp")
}
END {
	flush_example()
	close(out "/index")
}
