/* A card read through its BAR file with pread(2) (see apenet/dev.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apenet/dev.h"

int apenet_bar_file_open(struct apenet_bar_file *b, const struct apenet_site *s, const struct apenet_card *c,
			 struct apenet_err *e)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->bdf, sizeof(b->bdf), "%s", c->bdf);
	b->prof = c->prof;
	if ((b->fd = apenet_dev_bar_open(s, c, e)) < 0)
		return -1;
	/* as apenet_dev_open_card: TS_FREQ_HZ once ID_MAGIC is right */
	_Static_assert(APENET_REG_ID_VARIANT == APENET_REG_ID_MAGIC + 4 && APENET_REG_ID_MAGIC % 8 == 0,
		       "ID_MAGIC and ID_VARIANT are one 64-bit access");
	uint64_t id = apenet_bar_file_rd64(b, APENET_REG_ID_MAGIC);
	uint32_t magic = (uint32_t)id, variant = magic == APENET_MAGIC ? (uint32_t)(id >> 32) : 0;
	b->ts_hz = magic == APENET_MAGIC ? apenet_bar_file_rd32(b, APENET_REG_TS_FREQ_HZ) : 0;
	if (apenet_dev_ident(b->bdf, magic, variant, b->ts_hz, &b->prof, e)) {
		apenet_bar_file_close(b);
		return -1;
	}
	return 0;
}

uint32_t apenet_bar_file_rd32(struct apenet_bar_file *b, uint32_t off)
{
	uint32_t v;
	b->nreads++;
	return pread(b->fd, &v, sizeof(v), off) == (ssize_t)sizeof(v) ? v : APENET_ALL_ONES;
}

uint64_t apenet_bar_file_rd64(struct apenet_bar_file *b, uint32_t off)
{
	uint64_t v;
	b->nreads++;
	return pread(b->fd, &v, sizeof(v), off) == (ssize_t)sizeof(v) ? v : UINT64_MAX;
}

int apenet_bar_file_check(struct apenet_bar_file *b, struct apenet_err *e)
{
	return apenet_dev_magic(b->bdf, apenet_bar_file_rd32(b, APENET_REG_ID_MAGIC), e);
}

void apenet_bar_file_close(struct apenet_bar_file *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}
