# apenet-diag: plain Makefile.
#   make             build every program into build/bin/
#   make test        build with ASan+UBSan into build/asan/ and run every test
#   make demo        bring up an emulated 4x4x1 QUonG torus and show it
#   make cluster     the emulated torus with an agent on every node and the two supervisors (until ^C)
#   make bench       run the benchmarks under bench/ (and the fuzzers' speed)
#   make soak        make test 20 times with both cores busy (RUNS=, HOGS=), then
#                    16 agents on a clean torus for 10 min (make soak-clean, CLEAN_S=), then a
#                    million mutated INFORMs at a supervisor beside 16 agents (make soak-storm, STORM_N=)
#   make fuzz        build the libFuzzer targets (clang) into build/fuzz/
#   make fuzz-run    run each for FUZZ_SECONDS (default 30); prints runs and exec/s
#   make install     PREFIX=/usr/local DESTDIR= (programs, libapenet.a, headers, apenet.pc, docs,
#                    bash completion in PREFIX/share/bash-completion/completions,
#                    the config in sysconfdir: PREFIX/etc, or /etc for PREFIX=/usr, and
#                    the agent's systemd unit in systemdunitdir: PREFIX/lib/systemd/system,
#                    the apenet user (sysusersdir) and its directories (tmpfilesdir))
#   make install-system  the units, sysusers.d and tmpfiles.d files alone (no build)
#   make deb         the Debian packages into build/deb/ (dpkg-buildpackage in a copy of the tree)
#   make V=1         show the commands
.DEFAULT_GOAL := all
PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
VERSION := 0.1
# The config file's directory (etc/apenet/apenet.yaml goes below it).
sysconfdir ?= $(if $(filter /usr /usr/,$(PREFIX)),/etc,$(PREFIX)/etc)
# systemd reads units from /usr/lib/systemd/system and /usr/local/lib/systemd/system.
systemdunitdir ?= $(PREFIX)/lib/systemd/system
# ... and sysusers.d and tmpfiles.d files from PREFIX/lib too (/usr/local/lib or /usr/lib).
sysusersdir ?= $(PREFIX)/lib/sysusers.d
tmpfilesdir ?= $(PREFIX)/lib/tmpfiles.d
B ?= build
SAN ?= 0
FUZZ ?= 0
FUZZ_SECONDS ?= 30

Q := $(if $(filter 1,$(V)),,@)
CC ?= cc

-include build/config.mk
build/config.mk: mk/deps.sh
	$(Q)mkdir -p build
	$(Q)sh mk/deps.sh $@

WARN := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
CFLAGS ?= -O2 -g
ifeq ($(SAN),1)
CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
else ifeq ($(FUZZ),1)
# libFuzzer needs clang: every object carries the coverage hooks
# (fuzzer-no-link); only the target binaries link libFuzzer's main.
override CC := clang
CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=fuzzer,address,undefined
else
CPPFLAGS += -D_FORTIFY_SOURCE=2
endif
CPPFLAGS += -std=c11 -D_GNU_SOURCE -Iinclude -I$(B)/gen $(LIBPCI_CFLAGS) $(YAML_CFLAGS) $(NETSNMP_CFLAGS) $(SQLITE3_CFLAGS) -MMD -MP
ALL_CFLAGS = $(CPPFLAGS) $(WARN) $(CFLAGS)

# Libraries inside the project.
LIB_SRCS := $(wildcard common/*.c collectors/*.c lofamo/*.c snmp/*.c db/*.c bertest/*.c report/*.c) top/rows.c
SIM_SRCS := $(filter-out sim/sim_main.c,$(wildcard sim/*.c))
# check_apenet (the monitoring plugin) is its own program: not in apenet.
CLI_SRCS := $(filter-out cli/check_apenet%.c,$(wildcard cli/*.c))
AGENT_SRCS := $(wildcard agent/*.c)
SUP_SRCS := $(wildcard supervisor/*.c)
# apenet-top: its terminal parts (the model, top/rows.c, is in the library)
TOP_SRCS := $(filter-out top/rows.c,$(wildcard top/*.c))
LIB_A := $(B)/libapenet.a
SIM_A := $(B)/libapenetsim.a
LIBS := $(LIBPCI_LIBS) $(YAML_LIBS) -lm
# The notifier (snmp/) needs these too: linked into what uses it (the tests,
# the agent), not into every command.
SNMP_LIBS := -lnetsnmpagent $(NETSNMP_LIBS) $(LIBCRYPTO_LIBS) $(SQLITE3_LIBS)

PROGS := $(B)/bin/apenet $(B)/bin/apenet-sim $(B)/bin/apenet-agent $(B)/bin/apenet-supervisor $(B)/bin/apenet-regmap-doc \
	$(B)/bin/check_apenet $(B)/bin/apenet-top
COMPLETIONS := $(patsubst %,$(B)/share/bash-completion/completions/%,apenet apenet-sim apenet-top check_apenet)
# tests/unit mirrors the source tree: tests/unit/lofamo/test_judge.c tests
# lofamo/judge.c; every binary lands in $(B)/tests/ all the same.
UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(patsubst %.c,$(B)/tests/%,$(notdir $(UNIT_SRCS)))
E2E_SRCS := $(wildcard tests/e2e/test_*.c)
E2E_BINS := $(patsubst tests/e2e/%.c,$(B)/tests/%,$(E2E_SRCS))
BENCH_SRCS := $(wildcard bench/bench_*.c)
BENCH_BINS := $(patsubst bench/%.c,$(B)/bench/%,$(BENCH_SRCS))

# Fuzz targets: tests/fuzz/fuzz_NAME.c, seeds and regression inputs in
# tests/fuzz/NAME/ (docs/design.md, "Decoders under attack").  A new decoder
# is one more name on this list.
FUZZ_TARGETS := ldm prbs sff8636 sff8472 pcie lspci conf config snapshot ber_table simconf report_pdu deduce usm
FUZZ_BINS := $(patsubst %,$(B)/fuzz_%,$(FUZZ_TARGETS))
# The same targets with a plain main() (tests/fuzz/replay_main.c), built in
# the sanitizer test tree: make test replays every seed and regression.
FUZZ_REPLAY_BINS := $(patsubst %,$(B)/fuzz-replay/fuzz_%,$(FUZZ_TARGETS))
FUZZ_UTIL_OBJ := $(B)/obj/tests/fuzz/fuzz_util.o $(B)/obj/tests/fuzz/fuzz_module.o

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

.SECONDARY:
.PHONY: all test unit e2e check-docs demo cluster bench soak soak-clean soak-storm install install-system deb clean distclean FORCE fuzz fuzz-build fuzz-run
all: $(PROGS) $(COMPLETIONS)

# bash completion: each program's from its own tables (PROGRAM
# --completion-table, the words its --help prints) through one shared script
# (tools/gen-completion.sh, tools/completion.bash); make install puts them
# where bash-completion looks, under each program's name.
$(B)/share/bash-completion/completions/%: $(B)/bin/% tools/gen-completion.sh tools/completion.bash
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)sh tools/gen-completion.sh $* $< $@

# The tools look for $(sysconfdir)/apenet/apenet.yaml when no config is
# named.  The path is compiled in from a header that is rewritten only when
# it changes, so `make install PREFIX=/usr` rebuilds what uses it, and a
# plain `make` after it does not rebuild again and again.
$(B)/gen/apenet_paths.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define APENET_SYSCONFDIR "%s"\n' '$(sysconfdir)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(call obj,common/config.c): $(B)/gen/apenet_paths.h
# --version of every program: VERSION and the JSON schema (apenet/out.h), the
# same way.
$(B)/gen/apenet_version.h: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '/* Written by the Makefile. */' '#include "apenet/out.h"' '#define APENET_VERSION "$(VERSION)"' \
		'#define APENET_VERSION_TEXT APENET_VERSION " (JSON schema " APENET_JSON_SCHEMA ")"' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(call obj,cli/apenet.c cli/check_apenet.c sim/sim_main.c agent/agent_main.c supervisor/main.c top/main.c): \
	$(B)/gen/apenet_version.h

$(B)/obj/%.o: %.c build/config.mk
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB_A): $(call obj,$(LIB_SRCS))
	$(Q)rm -f $@ && ar rcs $@ $^
$(SIM_A): $(call obj,$(SIM_SRCS))
	$(Q)rm -f $@ && ar rcs $@ $^

# apenet health and apenet db read the supervisors' databases (db/: sqlite)
# and name what the reports say (snmp/report_pdu.c: net-snmp).
$(B)/bin/apenet: $(call obj,$(CLI_SRCS)) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) -o $@
$(B)/bin/apenet-sim: $(call obj,sim/sim_main.c) $(SIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) -o $@
# The node agent: the daemon's own parts (agent/) over the library.
$(B)/bin/apenet-agent: $(call obj,$(AGENT_SRCS)) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) -o $@
# The supervisor: its daemon (supervisor/) over the library (db/, the
# deduction in lofamo/, the report codec in snmp/).
$(B)/bin/apenet-supervisor: $(call obj,$(SUP_SRCS)) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) -o $@
# apenet-top: ncurses over the library (the card; the health database).
$(call obj,$(TOP_SRCS)): ALL_CFLAGS += $(NCURSESW_CFLAGS)
$(B)/bin/apenet-top: $(call obj,$(TOP_SRCS)) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) $(NCURSESW_LIBS) -o $@
# The Nagios/Icinga plugin: the agent's socket, or APENET-MIB through snmpd.
$(B)/bin/check_apenet: $(call obj,cli/check_apenet.c cli/check_apenet_snmp.c) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) -o $@
$(B)/bin/apenet-regmap-doc: $(call obj,tools/regmap_doc.c) $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) -o $@

# Every test links the project libraries, the emulator's (its state machines
# are unit-tested too) and cmocka.
define unit_test
$(B)/tests/$(basename $(notdir $(1))): $(call obj,$(1)) $$(SIM_A) $$(LIB_A)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  LD      $$@")
	$$(Q)$$(CC) $$(LDFLAGS) $$(TEST_LDFLAGS) $$(CFLAGS) $$^ $$(LIBS) $$(SNMP_LIBS) $$(CMOCKA_LIBS) -o $$@
endef
$(foreach t,$(UNIT_SRCS),$(eval $(call unit_test,$(t))))
# The writer's out-of-memory test fails allocations on demand through these.
$(B)/tests/test_out_oom: TEST_LDFLAGS := \
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=strdup,--wrap=vasprintf,--wrap=__vasprintf_chk
$(B)/tests/%: $(B)/obj/tests/e2e/%.o $(B)/obj/tests/e2e/e2e_util.o $(SIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) $(CMOCKA_LIBS) -o $@
# Benchmarks drive the real apenet-sim process, with the e2e helpers.  The
# objects a bench adds below (rawdb.o, report_gen.o, spawn.o) come after the
# library in $^ and may call it: objects first, then the archive.
$(B)/bench/%: $(B)/obj/bench/%.o $(B)/obj/tests/e2e/e2e_util.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $(filter-out %.a,$^) $(filter %.a,$^) $(LIBS) -o $@
# bench_top builds a health database (db/: sqlite).
$(B)/bench/bench_top: $(B)/obj/bench/bench_top.o $(B)/obj/tests/e2e/e2e_util.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) -o $@
# bench_agentx walks snmpd with net-snmp's client library.
$(B)/bench/bench_agentx: $(B)/obj/bench/bench_agentx.o $(B)/obj/tests/e2e/e2e_util.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(SNMP_LIBS) -o $@
# bench_ber_stats draws its error streams with the emulator's RNG (sim/rng.c);
# bench_sweep its errors from the emulator's channel model too.
$(B)/bench/bench_ber_stats: $(B)/obj/bench/bench_ber_stats.o $(SIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) -o $@
$(B)/bench/bench_sweep: $(B)/obj/bench/bench_sweep.o $(SIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) -o $@
# The health database's benchmark measures sqlite itself too, with the
# supervisor's the same baseline (bench/rawdb.c over db/hdb_baseline.c:
# plain INSERTs); the supervisor's sends real INFORMs and runs a bare
# net-snmp receiver.  db/ parses boot ids in snmp/ (apenet_report_boot_parse),
# which brings net-snmp along.
$(B)/bench/bench_hdb $(B)/bench/bench_supervisor: $(B)/obj/bench/rawdb.o
$(B)/bench/bench_hdb: LIBS += $(SNMP_LIBS)
$(B)/bench/bench_supervisor: LIBS += $(SNMP_LIBS)
# bench_incident reads the supervisor's database through the library;
# bench_report writes a big one through it (bench/report_gen.c, kept in
# build/bench-data/) and times `apenet report` on it.
$(B)/bench/bench_incident $(B)/bench/bench_report: LIBS += $(SQLITE3_LIBS)
# bench_incident makes the SNMPv3 keys (snmp/keys.c: libcrypto; its engine
# file's ScopedPDU writer links net-snmp).
$(B)/bench/bench_incident: LIBS += $(LIBCRYPTO_LIBS) $(SNMP_LIBS)
$(B)/bench/bench_report: $(B)/obj/bench/report_gen.o
# The benchmarks that time the real commands start and measure their
# children the same way (bench/spawn.c: wait4, ru_maxrss).
$(B)/bench/bench_report $(B)/bench/bench_incident $(B)/bench/bench_cabling $(B)/bench/bench_latency $(B)/bench/bench_slurm: \
	$(B)/obj/bench/spawn.o

# FUZZ_LIBS: what a target needs beyond the library's own (the SNMP
# decoder's target parses messages with net-snmp).
$(B)/fuzz_%: $(B)/obj/tests/fuzz/fuzz_%.o $(FUZZ_UTIL_OBJ) $(SIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(FUZZ_LIBS) -o $@
$(B)/fuzz-replay/fuzz_%: $(B)/obj/tests/fuzz/fuzz_%.o $(FUZZ_UTIL_OBJ) $(B)/obj/tests/fuzz/replay_main.o $(SIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LIBS) $(FUZZ_LIBS) -o $@
$(B)/fuzz_report_pdu $(B)/fuzz-replay/fuzz_report_pdu $(B)/fuzz_usm $(B)/fuzz-replay/fuzz_usm: FUZZ_LIBS := $(SNMP_LIBS)

# The end-to-end tests' loopback UDP relay (cuts a node off a supervisor).
$(B)/tests/udp-relay: $(B)/obj/tests/e2e/udp_relay.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ -o $@
# make soak-storm's load: mutated INFORMs at a supervisor (tools/wire-storm.sh).
$(B)/tests/wire-storm: $(B)/obj/tests/e2e/wire_storm.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) $^ -o $@

tests-build: $(PROGS) $(COMPLETIONS) $(UNIT_BINS) $(E2E_BINS) $(FUZZ_REPLAY_BINS) $(B)/tests/udp-relay $(B)/tests/wire-storm

# The test target: the sanitizer build in build/asan, then every test.
test:
	$(Q)sh mk/deps.sh build/config.mk test
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory B=build/asan SAN=1 tests-build
	$(Q)sh tests/run.sh build/asan

# The fuzzers' executions per second are benchmarks of the decoders too.
FUZZ_BENCH_SECONDS ?= 10
bench:
	$(Q)sh mk/deps.sh build/config.mk bench
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS)
	$(Q)APENET_BIN=$(CURDIR)/$(B)/bin sh bench/run.sh $(B)
	$(Q)$(MAKE) --no-print-directory fuzz-run FUZZ_SECONDS=$(FUZZ_BENCH_SECONDS)

# Fuzzing: clang + libFuzzer, installed by mk/deps.sh like the test tools.
fuzz:
	$(Q)sh mk/deps.sh build/config.mk fuzz
	$(Q)$(MAKE) --no-print-directory B=build/fuzz FUZZ=1 fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz-run: fuzz
	$(Q)sh tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

soak: all
	$(Q)sh tools/soak.sh
	$(Q)APENET_BIN=$(CURDIR)/$(B)/bin sh tools/clean-run.sh
	$(Q)$(MAKE) --no-print-directory soak-storm
soak-storm: all $(B)/tests/udp-relay $(B)/tests/wire-storm
	$(Q)APENET_BIN=$(CURDIR)/$(B)/bin sh tools/wire-storm.sh
soak-clean: all
	$(Q)APENET_BIN=$(CURDIR)/$(B)/bin sh tools/clean-run.sh

demo: all
	$(Q)sh tools/demo.sh $(B)/bin
cluster: all
	$(Q)sh tools/cluster.sh $(B)/bin

docs/regmap.md: $(B)/bin/apenet-regmap-doc
	$(Q)$< > $@

# pkg-config: only a static library is installed, so libpci, libyaml and
# libm are always needed beside it: Requires and Libs, not *.private.  Paths
# hang off ${prefix}, so --define-variable=prefix=... relocates them.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
install: all install-system
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/apenet $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(PREFIX)/share/doc/apenet-diag $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man8
	install -m 755 $(B)/bin/apenet $(B)/bin/apenet-sim $(B)/bin/apenet-agent $(B)/bin/apenet-supervisor \
		$(B)/bin/apenet-top $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/nagios/plugins
	install -m 755 $(B)/bin/check_apenet $(DESTDIR)$(PREFIX)/lib/nagios/plugins/
	install -m 644 include/apenet/*.h $(DESTDIR)$(PREFIX)/include/apenet/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(PC_LIBDIR)' 'includedir=$${prefix}/include' '' \
		'Name: apenet' \
		'Description: APEnet+ diagnostics library: device layer, output writer, fault rules' \
		'Version: $(VERSION)' 'Requires: libpci yaml-0.1 netsnmp sqlite3' \
		'Libs: -L$${libdir} -lapenet -lm' 'Cflags: -I$${includedir}' \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/apenet.pc
	install -d $(DESTDIR)$(PREFIX)/share/doc/apenet-diag/commands
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/apenet-diag/
	install -m 644 docs/commands/*.md $(DESTDIR)$(PREFIX)/share/doc/apenet-diag/commands/
	install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/man/*.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	@# Where net-snmp's tools (and a site's NMS) look for MIB modules.
	install -d $(DESTDIR)$(PREFIX)/share/snmp/mibs
	install -m 644 mibs/APENET-MIB.txt $(DESTDIR)$(PREFIX)/share/snmp/mibs/
	@# Where bash-completion looks for a command's completion (by its name).
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(COMPLETIONS) $(DESTDIR)$(PREFIX)/share/bash-completion/completions/
	@# The node health check hooks (docs/commands/check_apenet.md): NHC's
	@# check, linked into /etc/nhc/scripts by a site that runs NHC, and
	@# Slurm's HealthCheckProgram for a site without it.
	install -d $(DESTDIR)$(PREFIX)/share/apenet-diag/nhc $(DESTDIR)$(PREFIX)/libexec/apenet-diag
	install -m 644 etc/nhc/apenet.nhc $(DESTDIR)$(PREFIX)/share/apenet-diag/nhc/
	install -m 755 etc/nhc/apenet-healthcheck $(DESTDIR)$(PREFIX)/libexec/apenet-diag/
	@# The site's config is never overwritten: the shipped one lands next to it.
	install -d $(DESTDIR)$(sysconfdir)/apenet
	@f=$(DESTDIR)$(sysconfdir)/apenet/apenet.yaml; \
	if [ ! -e "$$f" ]; then \
		echo "install -m 644 etc/apenet/apenet.yaml $$f"; install -m 644 etc/apenet/apenet.yaml "$$f"; \
	elif cmp -s etc/apenet/apenet.yaml "$$f"; then \
		echo "$$f: unchanged"; \
	else \
		install -m 644 etc/apenet/apenet.yaml "$$f.new"; \
		echo "$$f exists and was kept; the shipped one is $$f.new"; \
	fi

# The units (hardened: docs/security.md), the apenet user and group
# (sysusers.d) and the daemons' directories (tmpfiles.d).  Into the running
# system (no DESTDIR, as root) they are applied at once; a DESTDIR (a
# package) leaves that to systemd at boot, or to the package's scripts.
install-system:
	install -d $(DESTDIR)$(systemdunitdir) $(DESTDIR)$(sysusersdir) $(DESTDIR)$(tmpfilesdir)
	sed -e 's|@bindir@|$(PREFIX)/bin|g' -e 's|@sysconfdir@|$(sysconfdir)|g' etc/systemd/apenet-agent.service \
		>$(DESTDIR)$(systemdunitdir)/apenet-agent.service
	chmod 644 $(DESTDIR)$(systemdunitdir)/apenet-agent.service
	sed -e 's|@bindir@|$(PREFIX)/bin|g' -e 's|@sysconfdir@|$(sysconfdir)|g' etc/systemd/apenet-supervisor@.service \
		>$(DESTDIR)$(systemdunitdir)/apenet-supervisor@.service
	chmod 644 $(DESTDIR)$(systemdunitdir)/apenet-supervisor@.service
	install -m 644 etc/sysusers.d/apenet.conf $(DESTDIR)$(sysusersdir)/apenet.conf
	install -m 644 etc/tmpfiles.d/apenet.conf $(DESTDIR)$(tmpfilesdir)/apenet.conf
	@if [ -n "$(DESTDIR)" ]; then :; \
	elif ! command -v systemd-sysusers >/dev/null 2>&1 || ! command -v systemd-tmpfiles >/dev/null 2>&1; then \
		echo "no systemd-sysusers/systemd-tmpfiles: create the apenet user and /var/lib/apenet, /run/apenet yourself"; \
	elif [ "$$(id -u)" != 0 ]; then \
		echo "not root: run systemd-sysusers $(sysusersdir)/apenet.conf and systemd-tmpfiles --create $(tmpfilesdir)/apenet.conf as root"; \
	else \
		echo "systemd-sysusers $(sysusersdir)/apenet.conf"; systemd-sysusers $(sysusersdir)/apenet.conf && \
		echo "systemd-tmpfiles --create $(tmpfilesdir)/apenet.conf"; systemd-tmpfiles --create $(tmpfilesdir)/apenet.conf; \
	fi

# The Debian packages (debian/; docs/design.md, "Packages"): built in a copy
# of the tree, so that dpkg-buildpackage's clean and its ../*.deb stay
# inside build/deb/ and the tree's own build/ is left alone.
DEB_SRC := build/deb/apenet-diag-$(VERSION)
deb:
	rm -rf build/deb
	mkdir -p $(DEB_SRC)
	tar -cf - --exclude=./build --exclude=./.git . | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="parallel=2 $${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b
	@ls build/deb/*.deb

clean:
	rm -rf build/obj build/bin build/gen build/share build/tests build/bench build/asan build/fuzz build/*.a
distclean:
	rm -rf build

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
