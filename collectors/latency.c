/* Latency determinism: realign a link and read the latency it measured
 * (include/apenet/latency.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/latency.h"
#include "apenet/regs.h"


int apenet_latency_realign(struct apenet_dev *d, unsigned link, int timeout_ms, uint32_t *ps, struct apenet_err *e)
{
	if (link >= d->prof->nlinks)
		return apenet_err_set(e, APENET_EINVAL, "%s: no link %u", d->bdf, link);
	uint32_t caps = apenet_rd32(d, APENET_REG_ID_CAPS);
	if (caps == APENET_ALL_ONES && apenet_dev_check(d, e))
		return -1;
	if (!APENET_GET(ID_CAPS, LATENCY, caps))
		return apenet_err_set(e, APENET_ENOTSUP, "%s: the card does not measure link latency (ID_CAPS.LATENCY 0)",
				      d->bdf);
	const char *name = d->prof->links[link].name;
	uint64_t up0 = apenet_rd64(d, apenet_link_off(link, APENET_LINK_UP_TS));
	int64_t t0 = apenet_clock_mono_ms();
	if (apenet_dev_command(d, APENET_CMD_REALIGN, link, timeout_ms, e))
		return -1;
	/* the bring-up takes milliseconds: naps that grow to 2 ms, never past
	 * the deadline */
	long nap_us = 50;
	for (;;) {
		uint32_t st = apenet_rd32(d, apenet_link_off(link, APENET_LINK_STATE));
		if (st == APENET_ALL_ONES && apenet_dev_check(d, e))
			return -1;
		uint64_t up = apenet_rd64(d, apenet_link_off(link, APENET_LINK_UP_TS));
		uint32_t v = apenet_rd32(d, apenet_link_off(link, APENET_LINK_LATENCY_PS));
		unsigned state = APENET_GET(LINK_STATE, STATE, st);
		if ((state == APENET_LINK_UP || state == APENET_LINK_DEGRADED) && up != up0 && v != 0) {
			*ps = v;
			return 0;
		}
		int64_t left = timeout_ms - (apenet_clock_mono_ms() - t0);
		if (left <= 0)
			return apenet_err_set(e, APENET_ETIMEDOUT,
					      "%s: link %s not up again %d ms after REALIGN (LINK_STATE 0x%08x: %s)", d->bdf,
					      name, timeout_ms, st, apenet_link_state_name(state));
		struct timespec ts = { 0, (nap_us < left * 1000 ? nap_us : left * 1000) * 1000 };
		nanosleep(&ts, NULL);
		if (nap_us < 2000)
			nap_us *= 2;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

size_t apenet_latency_hist(const uint32_t *ps, size_t n, uint32_t *val, unsigned *cnt)
{
	if (!n)
		return 0;
	memcpy(val, ps, n * sizeof(*ps));
	qsort(val, n, sizeof(*val), cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && val[k - 1] == val[i]) {
			cnt[k - 1]++;
			continue;
		}
		val[k] = val[i];
		cnt[k++] = 1;
	}
	return k;
}
