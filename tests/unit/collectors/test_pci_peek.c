/*
 * The cheap way `apenet cabling` opens a node, against the way every other
 * tool does: apenet_pci_peek against libpci (apenet_pci_pick) on the
 * emulator's dumps and on thousands of damaged copies of one (whatever the
 * peek takes, libpci reads as the same card; whatever it leaves, libpci
 * says what is wrong), and apenet_bar_file against the mapped BAR (the same
 * registers, the same errors).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/dev.h"
#include "apenet/regs.h"
#include "../../../sim/pcicfg.h"

static char dir[64];
static struct apenet_site site;

static void setup_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/apenet-peek-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(apenet_site_node(&site, dir), 0);
	assert_int_equal(mkdir(site.devroot, 0755), 0);
}

static void put(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void cleanup_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The emulator's dump of a card (sim/pcicfg.c), as text. */
static char *sim_dump(uint16_t vendor, uint16_t device, int gone, size_t *len)
{
	struct sim_pcicfg_params p = {
		.vendor = vendor, .device = device, .subsys_vendor = vendor, .subsys_device = device,
		.class_code = 0x120000, .revision = 1, .bar0_addr = 0xf7800000ull, .bar0_size = 1u << 20,
		.cap_gen = 2, .cap_width = 8, .sta_gen = 2, .sta_width = 8, .gone = gone,
	};
	uint8_t cfg[SIM_PCICFG_SIZE];
	char err[256];
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(sim_pcicfg_write_dump(site.dump, "0000:03:00.0", "Processing accelerators: APEnet+", cfg, err,
					       sizeof(err)),
			 0);
	FILE *f = fopen(site.dump, "r");
	assert_non_null(f);
	char *text = calloc(1, 65536);
	assert_non_null(text);
	*len = fread(text, 1, 65535, f);
	fclose(f);
	return text;
}

/* The peek against libpci on the dump file as it is: 1 when the peek took
 * it (and libpci agrees), 0 when it left it to libpci. */
static int peek_agrees(void)
{
	struct apenet_card a, b;
	struct apenet_err e = { 0 };
	memset(&a, 0, sizeof(a));
	if (apenet_pci_peek(&site, &a))
		return 0;
	int rc = apenet_pci_pick(&site, NULL, &b, &e);
	if (a.gone) {
		/* libpci refuses the card; opening what the peek gave says the same */
		struct apenet_err e2 = { 0 };
		assert_int_equal(rc, -1);
		assert_int_equal(apenet_dev_bar_open(&site, &a, &e2), -1);
		assert_int_equal(e2.code, e.code);
		assert_string_equal(e2.msg, e.msg);
		return 1;
	}
	if (rc)
		fail_msg("the peek took a dump libpci refuses: %s", e.msg);
	assert_string_equal(a.bdf, b.bdf);
	assert_int_equal(a.vendor, b.vendor);
	assert_int_equal(a.device, b.device);
	assert_ptr_equal(a.prof, b.prof);
	assert_int_equal(a.gone, b.gone);
	return 1;
}

static void test_peek_takes_the_emulators_dumps(void **state)
{
	(void)state;
	setup_dir();
	size_t n;
	unsigned variants = 0;
	/* every variant the register map knows */
	for (unsigned v = 0; v < 16; v++) {
		const struct apenet_profile *p = apenet_profile(v);
		if (!p)
			continue;
		free(sim_dump(APENET_PCI_VENDOR, p->pci_device, 0, &n));
		assert_int_equal(peek_agrees(), 1);
		variants++;
	}
	assert_true(variants >= 2);
	/* a card that fell off the bus: every byte 0xff */
	free(sim_dump(APENET_PCI_VENDOR, 0x0a01, 1, &n));
	assert_int_equal(peek_agrees(), 1);
	cleanup_dir();
}

static void test_peek_leaves_the_rest_to_libpci(void **state)
{
	(void)state;
	setup_dir();
	size_t n;
	char *text = sim_dump(APENET_PCI_VENDOR, 0x0a01, 0, &n), *t2 = malloc(2 * n + 256);
	assert_non_null(t2);
	size_t h = (size_t)(strchr(text, '\n') + 1 - text); /* "00: 72 11 01 0a ..." */
	struct {
		const char *what;
		size_t off, del;
		const char *ins;
	} cases[] = {
		{ "another vendor", h + 7, 2, "80" },
		{ "an unknown device", h + 13, 2, "ff" },
		{ "no domain in the address", 0, 5, "" },
		{ "upper case address", 5, 2, "0A" },
		{ "a byte that is not hex", h + 4, 1, "z" },
		{ "a short line", h + 100, 3, "" },
		{ "CR LF", h + 51, 0, "\r" },
		{ "a NUL in the address line", 20, 0, "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(t2, text, cases[i].off);
		size_t m = cases[i].off, k = strlen(cases[i].ins) + (cases[i].del == 0 && !cases[i].ins[0]); /* "" inserted: a NUL */
		memcpy(t2 + m, cases[i].ins, k);
		m += k;
		memcpy(t2 + m, text + cases[i].off + cases[i].del, n - cases[i].off - cases[i].del);
		m += n - cases[i].off - cases[i].del;
		put(site.dump, t2, m);
		struct apenet_card c;
		if (apenet_pci_peek(&site, &c) != 1)
			fail_msg("the peek took a dump with %s", cases[i].what);
	}
	/* a second function after the first */
	memcpy(t2, text, n);
	memcpy(t2 + n, text, n);
	put(site.dump, t2, 2 * n);
	struct apenet_card c;
	assert_int_equal(apenet_pci_peek(&site, &c), 1);
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_pci_pick(&site, NULL, &c, &e), -1);
	assert_non_null(strstr(e.msg, "2 APEnet cards found"));
	/* no dump: the real bus, libpci's sysfs method */
	struct apenet_site real = { 0 };
	assert_int_equal(apenet_pci_peek(&real, &c), 1);
	free(t2);
	free(text);
	cleanup_dir();
}

/* Damaged copies of a dump, one byte changed, dropped or added at random
 * (a fixed seed): the peek takes some (a byte's value, its case) and
 * leaves most, and libpci agrees with every one it takes. */
static void test_peek_agrees_with_libpci_on_damaged_dumps(void **state)
{
	(void)state;
	setup_dir();
	size_t n;
	char *text = sim_dump(APENET_PCI_VENDOR, 0x0a01, 0, &n), *t2 = malloc(n + 2);
	assert_non_null(t2);
	static const char alphabet[] = "0123456789abcdefABCDEFxz :.\n\r\t\377";
	unsigned seed = 23, taken = 0, left = 0;
	for (int i = 0; i < 1500; i++) {
		size_t pos = (size_t)rand_r(&seed) % n, m = 0;
		int op = rand_r(&seed) % 3;
		char ch = alphabet[(size_t)rand_r(&seed) % (sizeof(alphabet) - 1)];
		if (i % 10 == 0)
			pos = (size_t)rand_r(&seed) % 400; /* the address line and the header bytes more often */
		memcpy(t2, text, pos);
		m = pos;
		if (op != 1) /* change or add */
			t2[m++] = ch;
		size_t from = op == 2 ? pos : pos + 1;
		memcpy(t2 + m, text + from, n - from);
		m += n - from;
		put(site.dump, t2, m);
		if (peek_agrees())
			taken++;
		else
			left++;
	}
	printf("damaged dumps: %u taken (libpci agreed), %u left to libpci\n", taken, left);
	assert_true(taken > 0 && left > 0);
	free(t2);
	free(text);
	cleanup_dir();
}

/* A BAR file of the register map with the identity registers set. */
static void put_bar(uint32_t magic, uint32_t variant, uint32_t ts_hz, size_t size)
{
	static uint32_t bar[APENET_BAR_SIZE / 4];
	memset(bar, 0, sizeof(bar));
	for (unsigned i = 0; i < APENET_BAR_SIZE / 4; i++)
		bar[i] = magic == APENET_ALL_ONES ? APENET_ALL_ONES : i * 2654435761u; /* every register different */
	bar[APENET_REG_ID_MAGIC / 4] = magic;
	bar[APENET_REG_ID_VARIANT / 4] = variant;
	bar[APENET_REG_TS_FREQ_HZ / 4] = ts_hz;
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/0000:03:00.0", site.devroot);
	mkdir(p, 0755);
	strcat(p, "/resource0");
	put(p, bar, size);
}

/* Opens the card both ways (the BAR file read, or mapped as a real card's
 * must be): the same outcome, message and profile. */
static void same_open_as(const struct apenet_card *c, int mapped)
{
	struct apenet_dev d;
	struct apenet_bar_file b;
	struct apenet_err e1 = { 0 }, e2 = { 0 };
	int r1 = apenet_dev_open_card(&d, &site, c, &e1);
	int r2 = mapped ? apenet_bar_file_open_mapped(&b, &site, c, &e2) : apenet_bar_file_open(&b, &site, c, &e2);
	if (!r2)
		assert_true(mapped ? b.map != NULL : b.map == NULL);
	assert_int_equal(r1, r2);
	assert_int_equal(e1.code, e2.code);
	assert_string_equal(e1.msg, e2.msg);
	if (r1)
		return;
	assert_ptr_equal(d.prof, b.prof);
	assert_int_equal(d.ts_hz, b.ts_hz);
	for (unsigned i = 0; i < APENET_BAR_FILE_ID_REGS; i++)
		assert_int_equal(apenet_rd32(&d, i * 4), b.id[i]);
	static uint32_t span[APENET_BAR_SIZE / 4];
	assert_int_equal(apenet_bar_file_read(&b, 0x1000, span, APENET_BAR_SIZE / 4 - 0x1000 / 4), 0);
	for (uint32_t off = 0; off < APENET_BAR_SIZE; off += 0x404) {
		assert_int_equal(apenet_rd32(&d, off), apenet_bar_file_rd32(&b, off));
		if (off >= 0x1000)
			assert_int_equal(apenet_rd32(&d, off), span[(off - 0x1000) / 4]);
	}
	/* past the end of the BAR: short, all ones */
	assert_int_equal(apenet_bar_file_read(&b, APENET_BAR_SIZE - 8, span, 4), -1);
	assert_true(span[0] == APENET_ALL_ONES && span[3] == APENET_ALL_ONES);
	/* the card falls off the bus once open: both checks say so alike */
	put_bar(APENET_ALL_ONES, APENET_ALL_ONES, APENET_ALL_ONES, APENET_BAR_SIZE);
	memset(&e1, 0, sizeof(e1));
	memset(&e2, 0, sizeof(e2));
	assert_int_equal(apenet_dev_check(&d, &e1), -1);
	assert_int_equal(apenet_bar_file_check(&b, &e2), -1);
	assert_int_equal(e2.code, APENET_EGONE);
	assert_string_equal(e1.msg, e2.msg);
	assert_true(apenet_bar_file_rd32(&b, APENET_REG_NODE_COORD) == APENET_ALL_ONES);
	apenet_dev_close(&d);
	apenet_bar_file_close(&b);
}

/* Both ways, each from the BAR as it was (the first ends with the card gone). */
static void same_open(const struct apenet_card *c)
{
	static uint32_t was[APENET_BAR_SIZE / 4];
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/0000:03:00.0/resource0", site.devroot);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	size_t n = fread(was, 1, sizeof(was), f);
	fclose(f);
	same_open_as(c, 0);
	put(p, was, n);
	same_open_as(c, 1);
}

static void test_bar_file_reads_as_the_mapped_bar(void **state)
{
	(void)state;
	setup_dir();
	const struct apenet_profile *p = NULL;
	for (unsigned v = 0; v < 16 && !p; v++)
		p = apenet_profile(v);
	assert_non_null(p);
	struct apenet_card c = { .bdf = "0000:03:00.0", .vendor = APENET_PCI_VENDOR, .device = p->pci_device,
				 .prof = p };
	put_bar(APENET_MAGIC, p->id, 250000000, APENET_BAR_SIZE);
	same_open(&c);
	put_bar(APENET_ALL_ONES, p->id, 250000000, APENET_BAR_SIZE); /* gone */
	same_open(&c);
	put_bar(0x12345678, p->id, 250000000, APENET_BAR_SIZE); /* not ours */
	same_open(&c);
	put_bar(APENET_MAGIC, 99, 250000000, APENET_BAR_SIZE); /* unknown variant */
	same_open(&c);
	put_bar(APENET_MAGIC, p->id, 0, APENET_BAR_SIZE); /* no clock */
	same_open(&c);
	put_bar(APENET_MAGIC, p->id, 250000000, APENET_BAR_SIZE / 2); /* short */
	same_open(&c);
	c.gone = 1; /* config space all ones */
	same_open(&c);
	cleanup_dir();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peek_takes_the_emulators_dumps),
		cmocka_unit_test(test_peek_leaves_the_rest_to_libpci),
		cmocka_unit_test(test_peek_agrees_with_libpci_on_damaged_dumps),
		cmocka_unit_test(test_bar_file_reads_as_the_mapped_bar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
