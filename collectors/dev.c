/* Open a card's BAR0 and talk to it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/dev.h"

int apenet_pci_pick(const struct apenet_site *s, const char *bdf, struct apenet_card *out, struct apenet_err *e)
{
	struct apenet_card cards[APENET_MAX_CARDS];
	int n = 0;
	if (apenet_pci_scan(s, cards, APENET_MAX_CARDS, &n, e))
		return -1;
	const char *where = s->dump[0] ? s->dump : "this machine's PCI bus";
	if (n == 0)
		return apenet_err_set(e, APENET_ENODEV, "no APEnet card found on %s", where);
	for (int i = 0; i < n; i++) {
		/* accept "03:00.0" for "0000:03:00.0", as lspci -s does */
		if (bdf && strcmp(cards[i].bdf, bdf) && strcmp(cards[i].bdf + 5, bdf))
			continue;
		if (!bdf && n > 1)
			return apenet_err_set(e, APENET_EINVAL,
					      "%d APEnet cards found; choose one with --dev BDF (see apenet list)", n);
		*out = cards[i];
		if (out->gone)
			return apenet_err_set(e, APENET_EGONE,
					      "card not responding at %s: config space reads all ones", out->bdf);
		return 0;
	}
	return apenet_err_set(e, APENET_ENODEV, "no APEnet card at %s on %s", bdf, where);
}

int apenet_dev_open(struct apenet_dev *d, const struct apenet_site *s, const char *bdf,
		    struct apenet_err *e)
{
	struct apenet_card c;
	memset(d, 0, sizeof(*d));
	d->lock_fd = -1;
	if (apenet_pci_pick(s, bdf, &c, e))
		return -1;
	return apenet_dev_open_card(d, s, &c, e);
}

int apenet_dev_bar_open(const struct apenet_site *s, const struct apenet_card *c, struct apenet_err *e)
{
	if (c->gone)
		return apenet_err_set(e, APENET_EGONE, "card not responding at %s: config space reads all ones",
				      c->bdf);
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/%s/resource0", s->devroot, c->bdf);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < APENET_BAR_SIZE) {
		close(fd);
		return apenet_err_set(e, APENET_EIO, "%s: BAR0 is smaller than the %u bytes of the register map",
				      path, APENET_BAR_SIZE);
	}
	return fd;
}

int apenet_dev_magic(const char *bdf, uint32_t magic, struct apenet_err *e)
{
	if (magic == APENET_ALL_ONES)
		return apenet_err_set(e, APENET_EGONE, "card not responding at %s: BAR0 reads all ones", bdf);
	if (magic != APENET_MAGIC)
		return apenet_err_set(e, APENET_EINVAL,
				      "%s: register ID_MAGIC reads 0x%08x, expected 0x%08x: not an APEnet register file",
				      bdf, magic, APENET_MAGIC);
	return 0;
}

int apenet_dev_ident(const char *bdf, uint32_t magic, uint32_t variant, uint32_t ts_hz,
		     const struct apenet_profile **prof, struct apenet_err *e)
{
	if (apenet_dev_magic(bdf, magic, e))
		return -1;
	if (!*prof || (*prof)->id != variant) {
		const struct apenet_profile *p2 = apenet_profile(variant);
		if (!p2)
			return apenet_err_set(e, APENET_EINVAL, "%s: register ID_VARIANT holds %u, not a known variant",
					      bdf, variant);
		*prof = p2; /* the firmware knows better than the PCI device id */
	}
	if (ts_hz == 0)
		return apenet_err_set(e, APENET_EINVAL, "%s: register TS_FREQ_HZ reads 0", bdf);
	return 0;
}

int apenet_dev_open_card(struct apenet_dev *d, const struct apenet_site *s, const struct apenet_card *cp,
			 struct apenet_err *e)
{
	struct apenet_card c = *cp;
	memset(d, 0, sizeof(*d));
	d->lock_fd = -1;
	int fd = apenet_dev_bar_open(s, &c, e);
	if (fd < 0)
		return -1;
	snprintf(d->bdf, sizeof(d->bdf), "%s", c.bdf);
	d->prof = c.prof;
	snprintf(d->lock_path, sizeof(d->lock_path), "%s/apenet-%s.lock", s->lockdir[0] ? s->lockdir : APENET_LOCK_DIR,
		 c.bdf);
	void *p = mmap(NULL, APENET_BAR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return apenet_err_set(e, APENET_EIO, "%s/%s/resource0: mmap: %s", s->devroot, c.bdf, strerror(errno));
	d->bar = p;
	d->bar_len = APENET_BAR_SIZE;
	uint32_t magic = apenet_rd32(d, APENET_REG_ID_MAGIC);
	uint32_t variant = magic == APENET_MAGIC ? apenet_rd32(d, APENET_REG_ID_VARIANT) : 0;
	d->ts_hz = magic == APENET_MAGIC ? apenet_rd32(d, APENET_REG_TS_FREQ_HZ) : 0;
	if (apenet_dev_ident(d->bdf, magic, variant, d->ts_hz, &d->prof, e)) {
		apenet_dev_close(d);
		return -1;
	}
	return 0;
}

void apenet_dev_close(struct apenet_dev *d)
{
	if (!d->bar)
		return; /* never opened, or closed already: lock_fd means nothing */
	munmap((void *)d->bar, d->bar_len);
	d->bar = NULL;
	if (d->lock_fd >= 0)
		close(d->lock_fd); /* drops the lock too, should a caller still hold it */
	d->lock_fd = -1;
	d->lock_depth = 0;
}

int apenet_dev_check(struct apenet_dev *d, struct apenet_err *e)
{
	return apenet_dev_magic(d->bdf, apenet_rd32(d, APENET_REG_ID_MAGIC), e);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

void apenet_deadline_start(struct apenet_dev *d, int timeout_ms, struct apenet_deadline *dl)
{
	int64_t now = apenet_clock_mono_us(), ms = timeout_ms > 0 ? timeout_ms : 0;
	dl->host_end_us = now + ms * 1000;
	dl->backstop_us = now + ms * 1000 * APENET_DEADLINE_BACKSTOP;
	uint32_t hz = apenet_rd32(d, APENET_REG_TS_FREQ_HZ);
	uint64_t ts = apenet_rd64(d, APENET_REG_TIMESTAMP);
	dl->card = hz && hz != APENET_ALL_ONES && ts != UINT64_MAX;
	dl->ts_end = dl->card ? ts + (uint64_t)((double)hz * (double)ms / 1000.0) : 0;
}

int apenet_deadline_passed(struct apenet_dev *d, const struct apenet_deadline *dl)
{
	int64_t now = apenet_clock_mono_us();
	if (now < dl->host_end_us)
		return 0;
	if (!dl->card || now >= dl->backstop_us)
		return 1;
	uint64_t ts = apenet_rd64(d, APENET_REG_TIMESTAMP);
	return ts == UINT64_MAX || ts >= dl->ts_end;
}

int64_t apenet_deadline_left_us(const struct apenet_deadline *dl)
{
	int64_t left = dl->host_end_us - apenet_clock_mono_us();
	return left > 0 ? left : 0;
}

int apenet_dev_command_result(struct apenet_dev *d, uint32_t code, uint32_t arg, int timeout_ms, uint32_t *result,
			      struct apenet_err *e)
{
	if (apenet_dev_lock(d, timeout_ms, e))
		return -1;
	/* Everything from here to RESULT is ours alone: the sequence number, the
	 * CODE and ARG the firmware will read, and the RESULT it leaves. */
	uint32_t seq = apenet_rd32(d, APENET_REG_CMD_DONE_SEQ) + 1;
	apenet_wr32(d, APENET_REG_CMD_CODE, code);
	apenet_wr32(d, APENET_REG_CMD_ARG, arg);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* CODE and ARG land before the doorbell */
	apenet_wr32(d, APENET_REG_CMD_SEQ, seq);
	int rc = -1;
	struct apenet_deadline dl;
	apenet_deadline_start(d, timeout_ms, &dl);
	for (;;) {
		uint32_t done = apenet_rd32(d, APENET_REG_CMD_DONE_SEQ);
		if (done == APENET_ALL_ONES && apenet_dev_check(d, e))
			break;
		if (done == seq) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE); /* the firmware wrote RESULT before DONE_SEQ */
			*result = apenet_rd32(d, APENET_REG_CMD_RESULT);
			rc = 0;
			break;
		}
		if (apenet_deadline_passed(d, &dl)) {
			apenet_err_set(e, APENET_EBUSY, "%s: command %u not acknowledged within %d ms (firmware hung?)",
				       d->bdf, code, timeout_ms);
			break;
		}
		sleep_ms(2);
	}
	apenet_dev_unlock(d);
	return rc;
}

int apenet_dev_command(struct apenet_dev *d, uint32_t code, uint32_t arg, int timeout_ms,
		       struct apenet_err *e)
{
	uint32_t r;
	if (apenet_dev_command_result(d, code, arg, timeout_ms, &r, e))
		return -1;
	if (r != APENET_CMDERR_OK)
		return apenet_err_set(e, APENET_EINVAL, "%s: command %u (arg %u) failed: CMD_RESULT %u", d->bdf, code,
				      arg, r);
	return 0;
}
