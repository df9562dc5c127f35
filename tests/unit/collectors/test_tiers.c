/* Tiered register reads (collectors/tiers.c) on a BAR in memory: every
 * register in one tier, the period tier's registers every period, the
 * slower ones spread over their interval and read at once when their link
 * changes, the stamps, and the goal of 120 reads a period on APEnet+. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apenet/tiers.h"

static uint32_t bar[APENET_BAR_SIZE / 4] __attribute__((aligned(8)));

static void put32(uint32_t off, uint32_t v)
{
	bar[off / 4] = v;
}

static void put64(uint32_t off, uint64_t v)
{
	memcpy(&bar[off / 4], &v, 8);
}

static void dev_of(struct apenet_dev *d, const struct apenet_profile *p)
{
	memset(d, 0, sizeof(*d));
	memset(bar, 0, sizeof(bar));
	d->prof = p;
	d->bar = bar;
	d->bar_len = sizeof(bar);
	strcpy(d->bdf, "0000:01:00.0");
	put32(APENET_REG_ID_MAGIC, APENET_MAGIC);
	put32(APENET_REG_ID_VARIANT, (uint32_t)p->id);
	put32(APENET_REG_TS_FREQ_HZ, 1000000);
}

static void test_every_register_once(void **state)
{
	(void)state;
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	static struct apenet_tiers t;
	apenet_tiers_init(&t, p);
	unsigned total = 0, per_link = APENET_NLINKREG + p->links[0].lanes * APENET_NLANEREG;
	for (unsigned k = 0; k < APENET_NTIERS; k++)
		total += apenet_tiers_count(&t, (enum apenet_tier)k);
	assert_int_equal(total, APENET_NGLOBAL + p->nlinks * per_link);
	/* no register twice: every BAR offset once */
	for (unsigned i = 0; i < total; i++)
		for (unsigned k = i + 1; k < total; k++)
			assert_true(t.regs[i].off != t.regs[k].off);
	/* the period tier: 8 global registers and 8 a link (docs/design.md) */
	assert_int_equal(apenet_tiers_count(&t, APENET_TIER_PERIOD), 8 + 8 * p->nlinks);
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(APENET_BLK_LINK, &n);
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(r[i].name, "LINK_HDR_CRC_ERR") || !strcmp(r[i].name, "LINK_STATE") ||
		    !strcmp(r[i].name, "LINK_LDM_RX"))
			assert_int_equal(apenet_tier_of(APENET_BLK_LINK, i), APENET_TIER_PERIOD);
		else if (!strcmp(r[i].name, "LINK_PARTNER") || !strcmp(r[i].name, "LINK_T_RED"))
			assert_int_equal(apenet_tier_of(APENET_BLK_LINK, i), APENET_TIER_MINUTE);
		else if (!strcmp(r[i].name, "LINK_RX_BYTES"))
			assert_int_equal(apenet_tier_of(APENET_BLK_LINK, i), APENET_TIER_SECOND);
	assert_string_equal(apenet_tier_name(APENET_TIER_SECOND), "second");
}

/* Period k of a board at P = 100 ms: TIMESTAMP moves 100 ms, the CRC counter
 * of X+ by one, GEN by two. */
static void tick(unsigned k)
{
	put64(APENET_REG_TIMESTAMP, 1000000 + 100000ull * k);
	put32(APENET_REG_GEN, 2 * k);
	put64(apenet_link_off(0, APENET_LINK_HDR_CRC_ERR), k);
	put64(apenet_lane_off(0, 1, APENET_LANE_CODE_VIOL), 10ull * k);
	put32(apenet_link_off(0, APENET_LINK_T_RED), 700 + k);
}

static void test_schedule(void **state)
{
	(void)state;
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	static struct apenet_dev d;
	static struct apenet_tiers t;
	static struct apenet_snapshot s, full;
	struct apenet_err e = { 0 };
	dev_of(&d, p);
	apenet_tiers_init(&t, p);
	memset(&s, 0, sizeof(s));
	/* the first read is whole: every register, every stamp */
	tick(0);
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 0, &e), 0);
	assert_int_equal(apenet_snapshot_read(&d, &full, &e), 0);
	assert_int_equal(s.reads, full.reads);
	assert_memory_equal(s.g.v, full.g.v, sizeof(s.g.v));
	assert_int_equal(s.link[3].ts_second, 1000000);
	assert_int_equal(s.ts_minute, 1000000);
	/* then ten minutes at P = 100 ms */
	uint64_t sum = 0, max = 0, lane_reads = 0, tred_reads = 0;
	uint64_t last_lane = s.link[0].lane[1].LANE_CODE_VIOL;
	for (unsigned k = 1; k <= 6000; k++) {
		tick(k);
		assert_int_equal(apenet_tiers_read(&t, &d, &s, 100 * (int64_t)k, &e), 0);
		sum += s.reads;
		if (s.reads > max)
			max = s.reads;
		/* the period tier is always fresh */
		assert_int_equal(s.link[0].LINK_HDR_CRC_ERR, k);
		if (s.link[0].lane[1].LANE_CODE_VIOL != last_lane) {
			/* a lane read stamps its link's second tier */
			assert_int_equal(s.link[0].lane[1].LANE_CODE_VIOL, 10ull * k);
			assert_int_equal(s.link[0].ts_second, 1000000 + 100000ull * k);
			last_lane = s.link[0].lane[1].LANE_CODE_VIOL;
			lane_reads++;
		}
		if (s.link[0].LINK_T_RED == 700 + k)
			tred_reads++;
	}
	print_message("tiers: %.1f reads a period (max %llu); lanes of X+ read %llu times, its settings %llu in 600 s\n",
		      (double)sum / 6000, (unsigned long long)max, (unsigned long long)lane_reads,
		      (unsigned long long)tred_reads);
	assert_true((double)sum / 6000 <= 80);
	assert_true(max <= 120);
	assert_int_equal(lane_reads, 600);  /* once a second */
	assert_int_equal(tred_reads, 10);   /* once a minute */
}

static void test_change_reads_the_link(void **state)
{
	(void)state;
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	static struct apenet_dev d;
	static struct apenet_tiers t;
	static struct apenet_snapshot s;
	struct apenet_err e = { 0 };
	dev_of(&d, p);
	apenet_tiers_init(&t, p);
	memset(&s, 0, sizeof(s));
	tick(0);
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 0, &e), 0);
	tick(1);
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 100, &e), 0);
	/* Y+ goes down: its partner, settings and lanes come with the state */
	tick(2);
	put32(apenet_link_off(2, APENET_LINK_STATE), 1);
	put32(apenet_link_off(2, APENET_LINK_PARTNER), 0x1234);
	put32(apenet_lane_off(2, 3, APENET_LANE_PMA_VOD), 7);
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 200, &e), 0);
	assert_int_equal(s.link[2].LINK_PARTNER, 0x1234);
	assert_int_equal(s.link[2].lane[3].LANE_PMA_VOD, 7);
	assert_int_equal(s.link[2].ts_second, 1200000);
	assert_int_equal(s.link[2].ts_minute, 1200000);
	/* a link that did not change is not read with it */
	put32(apenet_link_off(4, APENET_LINK_PARTNER), 0x99);
	tick(3);
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 300, &e), 0);
	assert_int_equal(s.link[4].LINK_PARTNER, 0);
	/* a clear of the counters: everything read again */
	put64(APENET_REG_CNT_CLEAR_TS, 1300000);
	tick(4);
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 400, &e), 0);
	assert_int_equal(s.link[4].LINK_PARTNER, 0x99);
	assert_int_equal(s.ts_minute, 1400000);
	/* the card falls off the bus: all ones, said so */
	memset(bar, 0xff, sizeof(bar));
	assert_int_equal(apenet_tiers_read(&t, &d, &s, 500, &e), -1);
	assert_int_equal(e.code, APENET_EGONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_register_once),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_change_reads_the_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
