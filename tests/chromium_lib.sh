# Checks an HTML file in real headless Chromium (sourced by the tests, after
# tests/e2e_lib.sh):
#   html_check HTML PNG [ID...]
# loads HTML, fails (returns 1, saying why on stderr) when the page reports
# any console message of level error or warning, writes a 1280x1800 PNG
# screenshot of it to PNG and checks it, and checks that each ID is the id of
# an element of the rendered DOM.  CHROMIUM_TIMEOUT (default 60) bounds the
# whole run in seconds; past it the browser is killed.  Afterwards HC_SID
# is the session (and process group) id the browser ran in, for a caller to
# check that none of its processes is left (pgrep -s "$HC_SID").
#
# Why the DevTools protocol and not `--enable-logging=stderr --v=0
# --screenshot --dump-dom`: Chromium 156 logs every console message of an
# ordinary page at one level, whatever its level in the page: for
# console.error("x"), console.warn("x") and console.log("x") alike
#   [pid:tid:MMDD/hhmmss.us:INFO:CONSOLE:1] "x", source: file:///t/p.html (1)
# (":1" is the line), an uncaught exception as
#   ...:INFO:CONSOLE:1] "Uncaught Error: boom", source: file:///t/p.html (1)
# and a CSP violation as ...:INFO:CONSOLE:1] "Executing inline script
# violates the following Content Security Policy directive ...", so the
# levels cannot be told apart; and a resource that fails to load ("Failed
# to load resource: net::ERR_...", an error in DevTools) is not logged on
# stderr at all, even with --v=1.  (Beside them, stderr has dozens of
# ERROR/WARNING lines of the browser's own: dbus, vaapi, the sandbox.)  So
# this talks to the browser over --remote-debugging-pipe (fd 3 in, fd 4 out,
# JSON messages ended by a NUL byte), where every message has its level:
#   console.error/console.warn/console.assert: Runtime.consoleAPICalled,
#     type "error"/"warning"/"assert";
#   an uncaught exception: Runtime.exceptionThrown;
#   a CSP violation: Log.entryAdded, source "security", level "error";
#   a failed or blocked load: Log.entryAdded, source "network", level
#     "error", "Failed to load resource: net::ERR_FILE_NOT_FOUND" (or
#     ERR_PROXY_CONNECTION_FAILED for a http(s) URL: see the flags).
# The screenshot and the DOM come over the same pipe: one browser run.
# Needs jq (already a test tool), base64, setsid (util-linux) and ps
# (procps).  Uses fd 8.

command -v wait_for >/dev/null 2>&1 || . "${APENET_SRCDIR:-.}/tests/e2e_lib.sh"

# Not blank: deflate cannot shrink anything more than ~1000:1, so even a
# one-colour 1280x1800 screenshot is ~10 KB, not tiny (measured with
# Chromium 156: white 10491 bytes, dark blue 10495), and content adds little
# to it: a lone "x" 10931, one line of text 13328, a heading and two small
# SVGs 14049, chromium_selftest.sh's report-like page 27642.  So the bound
# is 12000: a page with less than about a line of text drawn counts as
# blank.
HC_PNG_MIN=${HC_PNG_MIN:-12000}

# printf, not echo: dash's echo expands the backslashes of JSON escapes.
hc_err() { printf 'html_check: %s: %s\n' "$hc_html" "$*" >&2; }
hc_r_jq() { printf '%s\n' "$hc_r" | jq "$@"; }
hc_send() { printf '%s\000' "$1" >&8; }
# The complete messages received so far, one a line: a message still being
# written has no NUL yet, so it has no newline here and head leaves it out.
hc_msgs() {
	tr '\000' '\n' <"$hc_t/raw" >"$hc_t/snap"
	head -n "$(wc -l <"$hc_t/snap")" "$hc_t/snap"
}
# The reply to command ID, if it came.
hc_reply() {
	grep -aq "\"id\":$1[,}]" "$hc_t/raw" || return 1
	hc_msgs | jq -c --argjson i "$1" 'select(.id == $i and .method == null)'
}
# The browser's main process still runs (a zombie does not: it is our child
# until waited for).
hc_alive() {
	hc_st=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$hc_pid/stat" 2>/dev/null)
	[ -n "$hc_st" ] && [ "$hc_st" != Z ]
}
# The processes of the browser's session that still run: setsid made it the
# leader of a session of its own, and its helpers (zygotes, renderers, the
# GPU and network processes) stay in it.
hc_procs() { ps -o pid=,stat= -s "$hc_pid" 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }'; }
hc_none_left() { [ -z "$(hc_procs)" ]; }
hc_gone() { ! hc_alive; }
hc_left() { echo $((hc_deadline - $(date +%s))); }
hc_got() { [ -n "$(hc_reply "$1")" ] || ! hc_alive; }
# hc_call ID JSON: send a command and wait for its reply (in $hc_r) within
# the deadline; 1 if none came (timeout, the browser gone) or it is an error.
hc_call() { hc_send "$2" && hc_await "$1" "$2"; }
# hc_await ID WHAT: wait for the reply to a command sent already.
hc_await() {
	wait_for "$(hc_left)" hc_got "$1"
	hc_r=$(hc_reply "$1")
	if [ -z "$hc_r" ]; then
		if hc_alive; then hc_err "no reply from chromium within ${CHROMIUM_TIMEOUT:-60} s to: $2"
		else hc_err "chromium exited before replying to: $2"; fi
		tail -n 5 "$hc_t/stderr" | sed 's/^/    /' >&2
		return 1
	fi
	if [ "$(hc_r_jq 'has("error")')" = true ]; then
		hc_err "chromium refused $2: $hc_r"
		return 1
	fi
}
hc_loaded() {
	# (jq -ne over inputs: jq 1.6's -e alone judges by the last input only)
	hc_msgs | sed -n "$((hc_navline + 1)),\$p" | jq -ne --arg s "$hc_sess" \
		'any(inputs; .sessionId == $s and .method == "Page.loadEventFired")' >/dev/null || ! hc_alive
}
# Stop the browser: politely (Browser.close) when it answers, else, or when
# that does not end it in time, SIGKILL to its whole process group; then
# check that none of its processes is left.  1 if some are.
hc_stop() {
	if hc_alive && [ "${1:-}" != kill ]; then
		hc_send '{"id":99,"method":"Browser.close"}'
		wait_for 10 hc_gone
	fi
	hc_alive && kill -s KILL -- "-$hc_pid" 2>/dev/null
	wait "$hc_bg" 2>/dev/null
	if ! wait_for 10 hc_none_left; then
		kill -s KILL -- "-$hc_pid" 2>/dev/null
		wait_for 5 hc_none_left || { hc_err "chromium processes left behind: $(hc_procs | tr '\n' ' ')"; return 1; }
	fi
	return 0
}

html_check() {
	hc_html=$1; hc_png=$2; shift 2
	command -v chromium >/dev/null 2>&1 || { hc_err "chromium missing (make test installs it: mk/deps.sh)"; return 1; }
	[ -r "$hc_html" ] || { hc_err "no such file"; return 1; }
	case $hc_html in /*) hc_abs=$hc_html ;; *) hc_abs=$(pwd)/$hc_html ;; esac
	hc_url=$(jq -rn --arg p "$hc_abs" '"file://" + ($p | split("/") | map(@uri) | join("/"))')
	hc_deadline=$(( $(date +%s) + ${CHROMIUM_TIMEOUT:-60} ))
	hc_t=$(mktemp -d "${TMPDIR:-/tmp}/apenet-html-check-XXXXXX") || return 1
	mkfifo "$hc_t/in" || { rm -rf "$hc_t"; return 1; }
	# Opened read-write so that neither side blocks in open(); kept from
	# the browser (8>&-) so that it sees EOF on fd 3 once we close it.
	exec 8<>"$hc_t/in"
	# Flags: --no-sandbox (we run as root), --disable-gpu (no GPU in CI);
	# the profile in our temporary directory; no network at all: every
	# host name fails to resolve and any URL goes to a proxy on the
	# discard port, where nothing listens (so a remote image fails at
	# once, never waits on a timeout); no first-run, extension,
	# component-update or background requests of the browser's own.
	# setsid: the browser and every helper it forks are in a session and
	# process group of their own, which can be killed and listed as one;
	# sh writes its pid (which exec keeps) because setsid forks first
	# when it is itself a process-group leader (a shell with job control).
	setsid sh -c 'echo $$ >"$0/pid"; exec "$@"' "$hc_t" chromium \
		--headless=new --no-sandbox --disable-gpu \
		--user-data-dir="$hc_t/profile" \
		--host-resolver-rules="MAP * ~NOTFOUND" --proxy-server=127.0.0.1:9 \
		--no-first-run --disable-extensions --disable-component-update \
		--disable-background-networking --disable-sync \
		--window-size=1280,1800 --hide-scrollbars --force-device-scale-factor=1 \
		--remote-debugging-pipe about:blank \
		3<"$hc_t/in" 4>"$hc_t/raw" 8>&- 2>"$hc_t/stderr" </dev/null &
	hc_bg=$!
	if ! wait_for 10 test -s "$hc_t/pid"; then
		kill "$hc_bg" 2>/dev/null; exec 8>&-; rm -rf "$hc_t"
		hc_err "chromium did not start"
		return 1
	fi
	hc_pid=$(cat "$hc_t/pid")
	HC_SID=$hc_pid
	hc_run "$@"
	hc_rc=$?
	if [ $hc_rc = 2 ]; then hc_stop kill; else hc_stop; fi || hc_rc=1
	exec 8>&-
	rm -rf "$hc_t"
	[ $hc_rc = 0 ]
}

# The run itself: 0 when the page passes, 1 when it fails, 2 when the
# browser is to be killed rather than closed (no reply, a hung page).
hc_run() {
	hc_call 1 '{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}' || return 2
	hc_target=$(hc_r_jq -r .result.targetId)
	hc_call 2 "{\"id\":2,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"$hc_target\",\"flatten\":true}}" || return 2
	hc_sess=$(hc_r_jq -r .result.sessionId)
	# Each domain enabled (its reply awaited) before the page loads, so
	# that no message of the page is sent before we listen.  The viewport
	# forced to the window size: the screenshot is exactly 1280x1800 (with
	# --window-size=1280,1800 alone the page's viewport is 1280x1713).
	# (Sent at once: a session runs its commands in order.)
	hc_n=3
	for hc_m in '"Page.enable"' '"Runtime.enable"' '"Log.enable"' \
		'"Emulation.setDeviceMetricsOverride","params":{"width":1280,"height":1800,"deviceScaleFactor":1,"mobile":false}'; do
		hc_send "{\"id\":$hc_n,\"sessionId\":\"$hc_sess\",\"method\":$hc_m}"
		hc_n=$((hc_n + 1))
	done
	for hc_n in 3 4 5 6; do hc_await $hc_n "command $hc_n (Page/Runtime/Log.enable, the viewport)" || return 2; done
	hc_call 10 "$(jq -cn --arg s "$hc_sess" --arg u "$hc_url" \
		'{id: 10, sessionId: $s, method: "Page.navigate", params: {url: $u}}')" || return 2
	hc_e=$(hc_r_jq -r '.result.errorText // empty')
	[ -z "$hc_e" ] || { hc_err "chromium could not open $hc_url: $hc_e"; return 1; }
	# The load event of this navigation: one after Page.navigate's reply
	# (not a late one of the about:blank it replaced).
	hc_navline=$(hc_msgs | jq 'select(.id == 10) | input_line_number')
	wait_for "$(hc_left)" hc_loaded
	if ! hc_alive; then
		hc_err "chromium exited while loading the page"
		tail -n 5 "$hc_t/stderr" | sed 's/^/    /' >&2
		return 1
	fi
	hc_msgs | sed -n "$((hc_navline + 1)),\$p" | grep -q '"method":"Page.loadEventFired"' ||
		{ hc_err "the page did not finish loading within ${CHROMIUM_TIMEOUT:-60} s"; return 2; }

	hc_call 11 "{\"id\":11,\"sessionId\":\"$hc_sess\",\"method\":\"Page.captureScreenshot\",\"params\":{\"format\":\"png\"}}" || return 2
	hc_r_jq -r .result.data | base64 -d >"$hc_png" || { hc_err "cannot write $hc_png"; return 1; }
	# The ids asked for, looked up in the live document (DevTools'
	# evaluation is not subject to the page's CSP).
	hc_call 12 "$(jq -cn --arg s "$hc_sess" --argjson ids "$(jq -cn '$ARGS.positional' --args "$@")" \
		'{id: 12, sessionId: $s, method: "Runtime.evaluate", params: {returnByValue: true,
		  expression: (($ids | tojson) + ".filter(function (i) { return !document.getElementById(i) })")}}')" || return 2
	hc_missing=$(hc_r_jq -r '.result.result.value | join(" ")')

	hc_fail=0
	# Every message the page sent until now (the screenshot made it
	# render, after its load), those of level error or warning quoted.
	hc_bad=$(hc_msgs | jq -r --arg s "$hc_sess" 'select(.sessionId == $s) | .params as $p |
		def where(f): if f == null then "" else " (\(f.url // ""):\((f.lineNumber // -1) + 1))" end;
		if .method == "Runtime.consoleAPICalled" and
		   ($p.type == "error" or $p.type == "warning" or $p.type == "assert") then
			"console.\($p.type): \([$p.args[]? | .value // .description // .type | tostring] | join(" "))\(where($p.stackTrace.callFrames[0]?))"
		elif .method == "Runtime.exceptionThrown" then
			"uncaught exception: \(($p.exceptionDetails.exception.description // $p.exceptionDetails.text) | split("\n")[0])\(where($p.exceptionDetails))"
		elif .method == "Log.entryAdded" and ($p.entry.level == "error" or $p.entry.level == "warning") then
			"\($p.entry.source) \($p.entry.level): \($p.entry.text)\(if $p.entry.url then " (\($p.entry.url))" else "" end)"
		elif .method == "Inspector.targetCrashed" then "the page crashed"
		else empty end')
	if [ -n "$hc_bad" ]; then
		hc_err "console errors/warnings:"
		printf '%s\n' "$hc_bad" | sed 's/^/    /' >&2
		hc_fail=1
	fi
	[ -z "$hc_missing" ] || { hc_err "no element with id: $hc_missing"; hc_fail=1; }
	hc_png_ok || hc_fail=1
	return $hc_fail
}

# The screenshot is a PNG (its 8-byte signature), 1280x1800 (IHDR, the first
# chunk: width and height big-endian at bytes 16 and 20) and not blank.
hc_png_ok() {
	[ "$(od -An -tx1 -N8 "$hc_png" | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		{ hc_err "$hc_png is not a PNG"; return 1; }
	hc_wh=$(od -An -tu1 -j16 -N8 "$hc_png" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4 "x" $5*16777216 + $6*65536 + $7*256 + $8 }')
	[ "$hc_wh" = 1280x1800 ] || { hc_err "$hc_png is $hc_wh, not 1280x1800"; return 1; }
	hc_size=$(wc -c <"$hc_png")
	[ "$hc_size" -ge "$HC_PNG_MIN" ] ||
		{ hc_err "$hc_png is $hc_size bytes (< $HC_PNG_MIN): the page rendered blank"; return 1; }
}
