#!/bin/sh
# Dependency step run by make: checks every library with pkg-config (and, for
# the tests, the tools they run).  Missing ones are installed with apt-get
# when we are root on a Debian machine; otherwise the one apt-get line to run
# is printed and the build stops.  On success writes the flags to $1.
#   usage: mk/deps.sh OUT.mk [test|fuzz|bench]
# "test" checks the tools the tests run; "fuzz" checks clang and its
# libFuzzer/sanitizer runtime (make fuzz).  Neither writes OUT.mk.
set -u
# snmptrapd lives in /usr/sbin, not always on a user's PATH.
PATH=$PATH:/usr/sbin:/sbin
out=$1
want_test=${2:-}

# pkg-config module : Debian package
libs="libpci:libpci-dev netsnmp:libsnmp-dev libcrypto:libssl-dev sqlite3:libsqlite3-dev yaml-0.1:libyaml-dev cmocka:libcmocka-dev ncursesw:libncurses-dev"
# command : Debian package (needed by the tests only): the notifier's tests
# run the real SNMP receiver (snmptrapd), the AgentX tests the real snmpd,
# check the MIB with smilint and snmptranslate, and fetch the IETF base MIBs
# with npm (mk/mibs.sh); the dashboards' test runs the real snmp_exporter
# generator and exporter, promtool (Debian's prometheus), yq and curl; the
# HTML report's test opens it in real headless Chromium (console errors, a
# screenshot, the DOM: tests/chromium_lib.sh); the help test renders the man
# pages with man and groff; the hostile-strings test rewrites a database
# with sqlite3's shell; the units' test rates the systemd units with
# systemd-analyze and applies the sysusers.d and tmpfiles.d files to a
# temporary root (systemd-sysusers, systemd-tmpfiles: the same package); the
# packages' test builds them (dpkg-buildpackage, debhelper, fakeroot) and
# checks them with lintian; the batch scheduler's test runs a real
# slurmctld and drives it with scontrol; the completion test loads
# bash-completion's own library (a file, checked below).
tools="lspci:pciutils jq:jq man:man-db groff:groff-base tmux:tmux valgrind:valgrind snmptrapd:snmptrapd snmpd:snmpd snmptranslate:snmp smilint:smitools npm:npm promtool:prometheus prometheus-snmp-generator:prometheus-snmp-exporter yq:yq curl:curl chromium:chromium pgrep:procps sqlite3:sqlite3 systemd-analyze:systemd dpkg-buildpackage:dpkg-dev dh:debhelper fakeroot:fakeroot lintian:lintian slurmctld:slurmctld scontrol:slurm-client"

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for pair in $libs; do
	mod=${pair%%:*}; pkg=${pair#*:}
	if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
		missing="$missing $pkg"
	fi
done
if [ "$want_test" = test ]; then
	for pair in $tools; do
		cmd=${pair%%:*}; pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
	done
fi
if [ "$want_test" = test ] && [ ! -f /usr/share/bash-completion/bash_completion ]; then
	missing="$missing bash-completion"
fi
if [ "$want_test" = bench ]; then
	# the benchmarks' references: htop beside apenet-top (bench_top), and
	# the tools the tests need too (snmpd for bench_agentx, tmux)
	for pair in $tools htop:htop; do
		cmd=${pair%%:*}; pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
	done
fi
if [ "$want_test" = fuzz ]; then
	# Debian's clang package does not carry the fuzzer and sanitizer
	# runtimes: they are in libclang-rt-N-dev, N the clang major version.
	if ! command -v clang >/dev/null 2>&1; then
		missing="$missing clang libclang-rt-14-dev"
	else
		major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
		rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
		if [ ! -f "$rt" ] && [ ! -f "$(clang -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
			missing="$missing libclang-rt-${major:-14}-dev"
		fi
	fi
fi
missing=$(echo $missing)

if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "deps: installing $missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $missing >/dev/null ||
			{ echo "deps: apt-get install $missing failed" >&2; exit 1; }
	else
		echo "deps: missing packages. Run:" >&2
		echo "  sudo apt-get install $missing" >&2
		exit 1
	fi
fi

if [ "$want_test" = test ]; then
	# The IETF base modules smilint and snmptranslate need beside
	# mibs/APENET-MIB.txt (Debian ships none), into build/mibs.
	sh "$(dirname "$0")/mibs.sh" build/mibs || exit 1
	exit 0
fi
if [ "$want_test" = fuzz ] || [ "$want_test" = bench ]; then
	exit 0
fi

mods=""
for pair in $libs; do mods="$mods ${pair%%:*}"; done
{
	echo "# written by mk/deps.sh; delete to re-probe"
	for m in $mods; do
		v=$(echo "$m" | tr 'a-z.-' 'A-Z__' | sed 's/_0_1$//')
		echo "${v}_CFLAGS := $(pkg-config --cflags "$m")"
		echo "${v}_LIBS := $(pkg-config --libs "$m")"
	done
} >"$out.tmp" && mv "$out.tmp" "$out"
