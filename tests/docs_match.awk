# Does a command's output match the output an example shows?
#   [M_ANY=ERE] [M_IGNORE=ERE] awk [-v loose=1] -f tests/docs_match.awk EXPECTED ACTUAL
# Both sides are normalised first: directories of absolute paths become @P
# (the file name stays), hex and decimal numbers (with fraction, exponent,
# sign) become #, runs of blanks one blank.  An expected line "..." stands for
# any lines (none included); "..." inside a line for any text.  Otherwise the
# expected lines must be the output's lines, in order, from the first to the
# last (with loose=1: in order, other lines allowed anywhere).  An expected
# line matching the ERE M_ANY (as written in the doc) is a "..." too: output
# that differs from run to run (a histogram, an order of arrival).  Output
# lines matching the ERE M_IGNORE are left out (a tool's noise that is not the
# example's: lspci's warning about its kernel modules).  Exit 0 on a match;
# else 1, with the first expected line that does not fit.  An example that
# shows no output at all is not compared (a one-line overview of a command).
function paths(s,   out, tok, i, lead) {
	out = ""
	while (match(s, /(^|[ "'(=[,])\/[^ "',;)}\]]+/)) {
		tok = substr(s, RSTART, RLENGTH)
		lead = ""
		if (substr(tok, 1, 1) != "/") {
			lead = substr(tok, 1, 1)
			tok = substr(tok, 2)
		}
		out = out substr(s, 1, RSTART - 1) lead
		s = substr(s, RSTART + RLENGTH)
		# keep the file name: the directory part is the reader's or the test's
		for (i = length(tok); i > 1 && substr(tok, i, 1) != "/"; i--)
			;
		if (i > 1)
			tok = "@P" substr(tok, i)
		out = out tok
	}
	return out s
}
function norm(s) {
	gsub(/\t/, " ", s)
	gsub(/\r/, "", s)
	s = paths(s)
	gsub(/0x[0-9a-fA-F]+/, "#", s)
	gsub(/[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/, "#", s)
	gsub(/^[-+]#/, "#", s)
	gsub(/ [-+]#/, " #", s)
	gsub(/\([-+]#/, "(#", s)
	gsub(/\[[-+]#/, "[#", s)
	gsub(/,[-+]#/, ",#", s)
	gsub(/:[-+]#/, ":#", s)
	gsub(/=[-+]#/, "=#", s)
	gsub(/ +/, " ", s)
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	return s
}
function pattern(s) {
	gsub(/[\\^$.[\]|()*+?{}]/, "\\\\&", s)
	gsub(/\\\.\\\.\\\./, ".*", s)
	return "^" s "$"
}
BEGIN {
	any = ENVIRON["M_ANY"]
	ignore = ENVIRON["M_IGNORE"]
}
FILENAME == ARGV[1] {
	n++
	raw[n] = $0
	e = norm($0)
	gap[n] = (e == "..." || (any != "" && $0 ~ any))
	pat[n] = pattern(e)
	next
}
{
	if (ignore != "" && $0 ~ ignore)
		next
	m++
	act[m] = norm($0)
}
# d[i, j]: expected lines i.. match actual lines j.. (from the ends back)
function solve(   i, j) {
	for (i = n + 1; i >= 1; i--)
		for (j = m + 1; j >= 1; j--) {
			if (i > n)
				d[i, j] = (loose || j > m)
			else if (gap[i])
				d[i, j] = d[i + 1, j] || (j <= m && d[i, j + 1])
			else
				d[i, j] = (j <= m && d[i + 1, j + 1] && act[j] ~ pat[i]) || (loose && j <= m && d[i, j + 1])
		}
	return d[1, 1]
}
END {
	if (n == 0 || solve()) # an example that shows no output: its exit code only
		exit 0
	# where it went wrong: follow the expected lines greedily
	j = 1
	for (i = 1; i <= n; i++) {
		if (gap[i])
			continue
		if (loose || (i > 1 && gap[i - 1])) {
			while (j <= m && act[j] !~ pat[i])
				j++
			if (j > m) {
				printf "  the line shown:  %s\n  is not in the output (after its line %d)\n", raw[i], jj > "/dev/stderr"
				exit 1
			}
		} else if (j > m || act[j] !~ pat[i]) {
			printf "  the line shown:  %s\n  output line %d: %s\n", raw[i], j, (j > m ? "(the end)" : act[j]) > "/dev/stderr"
			exit 1
		}
		jj = j
		j++
	}
	printf "  the output goes on after the last line shown: line %d: %s\n", j, act[j] > "/dev/stderr"
	exit 1
}
