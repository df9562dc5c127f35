/* A card read through its BAR file with pread(2) (see apenet/dev.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apenet/dev.h"

static int open_as(struct apenet_bar_file *b, const struct apenet_site *s, const struct apenet_card *c, int map,
		   struct apenet_err *e)
{
	_Static_assert(APENET_REG_ID_MAGIC == 0 && APENET_REG_ID_VARIANT / 4 < APENET_BAR_FILE_ID_REGS &&
			       APENET_REG_TS_FREQ_HZ / 4 < APENET_BAR_FILE_ID_REGS,
		       "the identity block holds what an open checks");
	memset(b, 0, sizeof(*b));
	snprintf(b->bdf, sizeof(b->bdf), "%s", c->bdf);
	b->prof = c->prof;
	if ((b->fd = apenet_dev_bar_open(s, c, e)) < 0)
		return -1;
	if (map || (pread(b->fd, b->id, sizeof(b->id), 0) < 0 && errno != EIO)) {
		/* not a file that reads (a real card's resource0): map it */
		void *p = mmap(NULL, APENET_BAR_SIZE, PROT_READ, MAP_SHARED, b->fd, 0);
		if (p == MAP_FAILED) {
			apenet_err_set(e, APENET_EIO, "%s/%s/resource0: mmap: %s", s->devroot, c->bdf, strerror(errno));
			apenet_bar_file_close(b);
			return -1;
		}
		b->map = p;
	}
	apenet_bar_file_read(b, 0, b->id, APENET_BAR_FILE_ID_REGS);
	uint32_t magic = b->id[APENET_REG_ID_MAGIC / 4];
	b->ts_hz = b->id[APENET_REG_TS_FREQ_HZ / 4];
	if (apenet_dev_ident(b->bdf, magic, b->id[APENET_REG_ID_VARIANT / 4], b->ts_hz, &b->prof, e)) {
		apenet_bar_file_close(b);
		return -1;
	}
	return 0;
}

int apenet_bar_file_open(struct apenet_bar_file *b, const struct apenet_site *s, const struct apenet_card *c,
			 struct apenet_err *e)
{
	return open_as(b, s, c, 0, e);
}

int apenet_bar_file_open_mapped(struct apenet_bar_file *b, const struct apenet_site *s, const struct apenet_card *c,
				struct apenet_err *e)
{
	return open_as(b, s, c, 1, e);
}

int apenet_bar_file_read(struct apenet_bar_file *b, uint32_t off, uint32_t *regs, unsigned n)
{
	size_t len = (size_t)n * sizeof(*regs);
	if (b->map) {
		if (off + len > APENET_BAR_SIZE) {
			memset(regs, 0xff, len);
			return -1;
		}
		for (unsigned i = 0; i < n; i++)
			regs[i] = b->map[off / 4 + i];
		return 0;
	}
	if (pread(b->fd, regs, len, off) == (ssize_t)len)
		return 0;
	memset(regs, 0xff, len);
	return -1;
}

uint32_t apenet_bar_file_rd32(struct apenet_bar_file *b, uint32_t off)
{
	uint32_t v;
	apenet_bar_file_read(b, off, &v, 1);
	return v;
}

int apenet_bar_file_check(struct apenet_bar_file *b, struct apenet_err *e)
{
	return apenet_dev_magic(b->bdf, apenet_bar_file_rd32(b, APENET_REG_ID_MAGIC), e);
}

void apenet_bar_file_close(struct apenet_bar_file *b)
{
	if (b->map)
		munmap((void *)(uintptr_t)b->map, APENET_BAR_SIZE);
	b->map = NULL;
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}
