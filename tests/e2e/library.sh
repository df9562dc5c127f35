#!/bin/sh
# libapenet.a is a library a daemon can live in (docs/design.md):
#   1. no object in it calls exit/abort (or prints through err(3) and friends):
#      only libpci itself may, and its fatal errors are caught (collectors/pci.c);
#   2. nothing in it writes to stderr/stdout but the log hook (common/log.o);
#   3. every name it exports carries the apenet_ prefix;
#   4. `make install` into a DESTDIR gives headers (each one builds on its own
#      in plain C11), the library and apenet.pc, that a program outside the
#      tree compiles and links against; that program gets libpci's fatal
#      error back as an error code and carries on.
. "${APENET_SRCDIR:-.}/tests/e2e_lib.sh"
SRC=${APENET_SRCDIR:-$(pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apenet-lib-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The libraries of the tree under test and of the plain build, when there.
libs=""
for b in "$BIN/.." "${APENET_BIN_PLAIN:-$SRC/build/bin}/.."; do
	[ -f "$b/libapenet.a" ] && libs="$libs $b/libapenet.a"
done
[ -n "$libs" ] || fail "no libapenet.a next to $BIN"

for lib in $libs; do
	# "object: symbol" for every undefined reference.
	nm -A -u "$lib" | sed 's/^[^:]*:\([^:]*\):.* U \(.*\)$/\1: \2/' >"$tmp/undef"
	grep -q ': ' "$tmp/undef" || fail "$lib: nm gave nothing"
	bad=$(grep -E ': (exit|_exit|_Exit|quick_exit|abort|__assert_fail|err|errx|verr|verrx|warn|warnx|vwarn|vwarnx|error|error_at_line)$' "$tmp/undef")
	[ -z "$bad" ] || fail "$lib calls what ends the process (only libpci may): $bad"
	bad=$(grep -E ': (stdout|printf|vprintf|puts|putchar|perror|psignal)$' "$tmp/undef")
	[ -z "$bad" ] || fail "$lib prints to stdout behind its callers: $bad"
	bad=$(grep -E ': stderr$' "$tmp/undef" | grep -v '^log\.o: ')
	[ -z "$bad" ] || fail "$lib writes to stderr outside the log hook (common/log.c): $bad"

	# (an AddressSanitizer build adds __odr_asan.NAME beside each exported
	# variable NAME: its own, checked through NAME)
	nm -A -g --defined-only "$lib" | awk 'NF >= 3 { print $NF }' | grep -v '^apenet_' |
		grep -v '^__odr_asan\.apenet_' >"$tmp/names" || true
	[ ! -s "$tmp/names" ] || fail "$lib exports names without the apenet_ prefix: $(tr '\n' ' ' <"$tmp/names")"
done

# make install into a DESTDIR, then a program of our own against it.
make -s --no-print-directory -C "$SRC" install DESTDIR="$tmp/root" PREFIX=/usr/local >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "make install failed"; }
root=$tmp/root/usr/local
for f in lib/libapenet.a lib/pkgconfig/apenet.pc include/apenet/dev.h include/apenet/log.h include/apenet/out.h \
	include/apenet/regs.h bin/apenet; do
	[ -e "$root/$f" ] || fail "make install did not install $f"
done

# Each installed header on its own, in plain C11 (no _GNU_SOURCE as the tree has).
for h in "$root"/include/apenet/*.h; do
	name=apenet/$(basename "$h")
	printf '#include <%s>\nint apenet_header_check;\n' "$name" >"$tmp/h.c"
	cc -std=c11 -pedantic -Wall -Wextra -Werror -I"$root/include" -c -o "$tmp/h.o" "$tmp/h.c" 2>"$tmp/cc.log" ||
		{ cat "$tmp/cc.log" >&2; fail "installed header $name does not build on its own in C11"; }
done

mkdir -p "$tmp/node"
printf '0000:03:00.0 Processing accelerators\n00: zz\n' >"$tmp/node/pci.lspci"
cat >"$tmp/prog.c" <<'EOF'
/* A program outside the tree, against the installed headers and library. */
#include <stdio.h>
#include <string.h>

#include <apenet/dev.h>
#include <apenet/log.h>
#include <apenet/out.h>

static int logged;

static void sink(void *ctx, int level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
	logged++;
}

int main(int argc, char **argv)
{
	struct apenet_site site;
	struct apenet_card cards[APENET_MAX_CARDS];
	struct apenet_err e = { 0 };
	int n = 0;
	apenet_log_to_callback(sink, NULL);
	if (argc != 2 || apenet_site_init(&site, argv[1], &e))
		return 3;
	/* libpci fails fatally on this dump: an error code, and we carry on. */
	if (apenet_pci_scan(&site, cards, APENET_MAX_CARDS, &n, &e) != -1 || e.code != APENET_EIO)
		return 4;
	printf("scan: %s\n", e.msg);
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, stdout, "installed");
	apenet_out_str(o, "still", "running");
	return apenet_out_finish(o) ? 5 : 0;
}
EOF
export PKG_CONFIG_PATH="$root/lib/pkgconfig"
flags=$(pkg-config --define-variable=prefix="$root" --cflags --libs apenet) || fail "pkg-config does not find apenet.pc"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/prog" "$tmp/prog.c" $flags 2>"$tmp/cc.log" ||
	{ cat "$tmp/cc.log" >&2; fail "a program does not build against the installed library ($flags)"; }
rc=0
"$tmp/prog" "$tmp/node" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/out" "$tmp/err" >&2; fail "the program failed: exit $rc"; }
grep -q '^scan: libpci: dump: Malformed line' "$tmp/out" || { cat "$tmp/out" >&2; fail "no libpci error came back"; }
grep -q '"still": "running"' "$tmp/out" || { cat "$tmp/out" >&2; fail "the program did not carry on"; }
[ ! -s "$tmp/err" ] || { cat "$tmp/err" >&2; fail "the library printed to stderr"; }
echo "ok: libapenet.a is exit-free, prefixed, installs and links ($flags)"
