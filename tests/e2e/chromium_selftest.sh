#!/bin/sh
# html_check (tests/chromium_lib.sh), the check of `apenet report
# --format html` in real headless Chromium, can fail, and fails for the
# right reason:
#  - a self-contained page (inline CSS and SVG, a CSP that allows nothing
#    else) passes, its 1280x1800 screenshot is written, and so does a page
#    whose script only logs at levels below warning (console.log/info/debug:
#    the level filter is right, and Chromium's own stderr noise - dbus, GPU
#    - is not mistaken for the page's);
#  - it fails on console.error, on an uncaught exception, on an inline
#    script the page's CSP blocks, on an image that cannot load (a remote
#    URL: there is no network), on an id the DOM lacks, on a blank page;
#  - a page that never finishes loading is killed at the deadline;
#  - after every run no process of the browser is left.
. "${APENET_SRCDIR:-.}/tests/e2e_lib.sh"
. "${APENET_SRCDIR:-.}/tests/chromium_lib.sh"
for c in chromium jq setsid ps pgrep base64 od; do
	command -v "$c" >/dev/null 2>&1 || fail "$c missing (make test installs chromium and jq: mk/deps.sh)"
done
T=$(mktemp -d "${TMPDIR:-/tmp}/apenet-chromium-XXXXXX")
trap 'rm -rf "$T"' EXIT

# Nothing of the last run's browser is left running: no process in its
# session (setsid: every helper it forked is in it) but zombies, which are
# already dead (the helpers, orphaned when the main process ends, wait
# ~1 s for init to reap them).
none_left() {
	for nl_p in $(pgrep -s "$HC_SID"); do
		[ "$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$nl_p/stat" 2>/dev/null)" = Z ] || return 1
	done
}
check_left() {
	wait_for 15 none_left || fail "$1: chromium processes left behind: $(ps -o pid=,stat=,args= -s "$HC_SID" | cut -c1-100)"
}
# must_fail NAME WHAT ID...: html_check of $T/NAME.html fails, saying WHAT.
must_fail() {
	mf_name=$1 mf_what=$2; shift 2
	if html_check "$T/$mf_name.html" "$T/$mf_name.png" "$@" 2>"$T/$mf_name.err"; then
		fail "html_check passed $mf_name.html"
	fi
	grep -qF "$mf_what" "$T/$mf_name.err" || { cat "$T/$mf_name.err" >&2; fail "$mf_name.html: no '$mf_what' in what html_check said"; }
	check_left "$mf_name"
	echo "ok: $mf_name.html fails: $(grep -F "$mf_what" "$T/$mf_name.err" | head -n 1 | cut -c1-150)"
}

# page FILE HEAD: a page with the report's shape (a heading, text, the two
# SVGs the caller asks for), HEAD in its <head>, the rest of stdin in its
# body after them.
page() {
	{
		cat <<EOF
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
$2
<title>apenet report</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { color: #035; border-bottom: 2px solid #035; }
.ok { fill: #3a7; } .bad { fill: #c33; }
</style></head>
<body>
<h1>APEnet+ cluster report</h1>
<p>4 nodes, 24 links: 23 up, 1 degraded (node 2, X+).</p>
<svg id="map" width="400" height="200" viewBox="0 0 400 200">
 <rect x="0" y="0" width="400" height="200" fill="#eef"/>
 <circle class="ok" cx="80" cy="60" r="24"/><circle class="ok" cx="320" cy="60" r="24"/>
 <circle class="bad" cx="80" cy="150" r="24"/><circle class="ok" cx="320" cy="150" r="24"/>
 <line x1="104" y1="60" x2="296" y2="60" stroke="#333" stroke-width="3"/>
 <text x="150" y="110" font-size="14">torus 2x2</text>
</svg>
<svg id="timeline" width="800" height="80" viewBox="0 0 800 80">
 <line x1="0" y1="40" x2="800" y2="40" stroke="#999" stroke-width="2"/>
 <rect class="bad" x="420" y="25" width="60" height="30"/>
 <text x="420" y="75" font-size="12">X+ errors 12:04-12:09</text>
</svg>
EOF
		cat
		echo "</body></html>"
	} >"$1"
}
CSP='<meta http-equiv="Content-Security-Policy" content="default-src '"'none'"'; style-src '"'unsafe-inline'"'; img-src data:">'

# The good page: inline CSS and SVG only, under the CSP the report uses.
page "$T/good.html" "$CSP" </dev/null
start=$(date +%s)
html_check "$T/good.html" "$T/good.png" map timeline || fail "html_check failed the good page"
took=$(($(date +%s) - start))
[ -s "$T/good.png" ] || fail "no screenshot written"
[ "$(od -An -c -j1 -N3 "$T/good.png" | tr -d ' \n')" = PNG ] || fail "good.png is not a PNG"
check_left good
echo "ok: good.html passes in ${took}s, $(wc -c <"$T/good.png") byte screenshot"

# Script output below warning level is not a failure (nor is the browser's
# own stderr, which has ERROR lines in every run).
printf '%s\n' '<script>console.log("l"); console.info("i"); console.debug("d")</script>' | page "$T/log.html" ""
html_check "$T/log.html" "$T/log.png" map timeline || fail "html_check failed a page that only logs at levels below warning"
check_left log
echo "ok: log.html (console.log/info/debug) passes"

printf '%s\n' '<script>console.error("x")</script>' | page "$T/error.html" ""
must_fail error 'console.error: x' map timeline
printf '%s\n' '<script>console.warn("w")</script>' | page "$T/warn.html" ""
must_fail warn 'console.warning: w' map timeline
printf '%s\n' '<script>null.x</script>' | page "$T/exception.html" ""
must_fail exception 'uncaught exception: TypeError' map timeline
# The report's own CSP blocks an inline script: a violation, an error.
printf '%s\n' '<script>document.title = "ran"</script>' | page "$T/csp.html" "$CSP"
must_fail csp 'violates the following Content Security Policy directive' map timeline
printf '%s\n' '<img src="http://example.invalid/x.png" alt="">' | page "$T/img.html" ""
must_fail img 'Failed to load resource: net::ERR_' map timeline
page "$T/noid.html" "$CSP" </dev/null
must_fail noid 'no element with id: legend' map legend timeline
# Blank: the ids exist (empty SVGs), nothing is drawn.
printf '%s\n' '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head>' \
	'<body><svg id="map" width="0" height="0"></svg><svg id="timeline" width="0" height="0"></svg></body></html>' >"$T/blank.html"
must_fail blank 'rendered blank' map timeline

# A page that never loads: killed at the deadline, nothing left.
printf '%s\n' '<script>for (;;) {}</script>' | page "$T/hang.html" ""
start=$(date +%s)
CHROMIUM_TIMEOUT=5
must_fail hang "within 5 s" map timeline
unset CHROMIUM_TIMEOUT
took=$(($(date +%s) - start))
[ "$took" -le 30 ] || fail "the hung page took ${took}s to be killed (deadline 5 s)"
echo "ok: hang.html killed after ${took}s"
