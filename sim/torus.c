/* Build an emulated torus: boards, their directories and BAR files, and the
 * cables between them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/conf.h"
#include "pcicfg.h"
#include "sim.h"

static int mkdirs(const char *path, struct apenet_err *e)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return apenet_err_set(e, APENET_EIO, "%s: mkdir: %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return apenet_err_set(e, APENET_EIO, "%s: mkdir: %s", tmp, strerror(errno));
	return 0;
}

int sim_board_write_pci(struct sim_torus *t, struct sim_board *b, struct apenet_err *e)
{
	(void)t;
	struct sim_pcicfg_params p = {
		.vendor = APENET_PCI_VENDOR,
		.device = b->prof->pci_device,
		.subsys_vendor = APENET_PCI_VENDOR,
		.subsys_device = b->prof->pci_device,
		.class_code = (uint32_t)APENET_PCI_CLASS << 8,
		.revision = 1,
		.bar0_addr = 0xf0000000ull + (uint64_t)b->idx * 0x100000ull,
		.bar0_size = APENET_BAR_SIZE,
		.cap_gen = b->prof->pcie_gen,
		.cap_width = b->prof->pcie_width,
		.sta_gen = b->pcie_gen,
		.sta_width = b->pcie_width,
		.gone = b->gone,
	};
	uint8_t cfg[SIM_PCICFG_SIZE];
	char path[PATH_MAX + 32], title[128], err[256];
	sim_pcicfg_build(&p, cfg);
	snprintf(path, sizeof(path), "%s/%s", b->dir, "pci.lspci");
	snprintf(title, sizeof(title), "Processing accelerators: Altera Corporation %s", b->prof->title);
	if (sim_pcicfg_write_dump(path, SIM_BDF, title, cfg, err, sizeof(err)))
		return apenet_err_set(e, APENET_EIO, "%s", err);
	return 0;
}

static int board_files(struct sim_torus *t, struct sim_board *b, struct apenet_err *e)
{
	char path[PATH_MAX + 64];
	int n = snprintf(b->dir, sizeof(b->dir), "%s/node-%u-%u-%u", t->dir, b->x, b->y, b->z);
	if (n < 0 || (size_t)n >= sizeof(b->dir))
		return apenet_err_set(e, APENET_EINVAL, "%s: directory name too long", t->dir);
	snprintf(path, sizeof(path), "%s/devices/%s", b->dir, SIM_BDF);
	if (mkdirs(path, e))
		return -1;
	snprintf(path, sizeof(path), "%s/devices/%s/resource0", b->dir, SIM_BDF);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
	if (ftruncate(fd, APENET_BAR_SIZE)) {
		close(fd);
		return apenet_err_set(e, APENET_EIO, "%s: ftruncate: %s", path, strerror(errno));
	}
	void *p = mmap(NULL, APENET_BAR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return apenet_err_set(e, APENET_EIO, "%s: mmap: %s", path, strerror(errno));
	b->bar = p;
	memset(p, 0, APENET_BAR_SIZE);
	return sim_board_write_pci(t, b, e);
}

/* Neighbour of b in direction dir, and the link there that faces back. */
static int neighbour(struct sim_torus *t, struct sim_board *b, enum apenet_dir dir, int *pb, int *pl)
{
	unsigned me[3] = { b->x, b->y, b->z }, far[3];
	enum apenet_dir back;
	int dim, wrap;
	if (apenet_torus_neighbour(t->dims, me, dir, far, &back, &dim, &wrap))
		return -1;
	struct sim_board *nb = &t->b[sim_index(t, far[0], far[1], far[2])];
	int l = apenet_profile_link_dir(nb->prof, back);
	if (l < 0)
		return -1; /* mixed variants: nothing faces back */
	*pb = (int)nb->idx;
	*pl = l;
	return 0;
}

static const struct sim_cable_conf *cable_conf(const struct sim_conf *c, const struct sim_board *b, unsigned l)
{
	for (unsigned i = 0; i < c->ncables; i++)
		if (c->cables[i].x == b->x && c->cables[i].y == b->y && c->cables[i].z == b->z &&
		    c->cables[i].link == l)
			return &c->cables[i];
	return NULL;
}

static int cable_setup(struct sim_torus *t, const struct sim_conf *c, struct sim_board *b, unsigned l,
		       struct apenet_err *e)
{
	struct sim_link *lk = &b->link[l];
	int pb = -1, pl = -1;
	if (lk->lp->dir == APENET_DIR_EXT) {
		lk->peer_board = -2;
		lk->peer_link = 0;
	} else if (neighbour(t, b, lk->lp->dir, &pb, &pl) == 0) {
		lk->peer_board = pb;
		lk->peer_link = pl;
	} else {
		lk->peer_board = -1;
		lk->peer_link = -1;
	}
	/* The cable: copper by default, longer on the wraparound; optical on v5's QSFP. */
	struct sim_link *peer = lk->peer_board >= 0 ? &t->b[lk->peer_board].link[lk->peer_link] : NULL;
	if (peer && peer->cable_id) { /* the other end made it already */
		lk->cable_id = peer->cable_id;
		lk->ch = peer->ch;
	} else {
		lk->cable_id = ++t->ncables;
		int wrap = peer && (abs((int)t->b[lk->peer_board].x - (int)b->x) > 1 ||
				    abs((int)t->b[lk->peer_board].y - (int)b->y) > 1 ||
				    abs((int)t->b[lk->peer_board].z - (int)b->z) > 1);
		/* KM3NeT's detector links are fibre to the shore station. */
		lk->ch.kind = c->cable_kind >= 0 ? (enum sim_cable_kind)c->cable_kind
			      : (b->prof->id == APENET_V_V5 && lk->lp->has_module) ? SIM_CABLE_OPTICAL
			      : b->prof->id == APENET_V_NANET_KM3			   ? SIM_CABLE_OPTICAL
										   : SIM_CABLE_COPPER;
		lk->ch.length_m = c->cable_m > 0 ? c->cable_m : lk->ch.kind == SIM_CABLE_OPTICAL ? 10 : wrap ? 5 : 2;
		const struct sim_cable_conf *cc = cable_conf(c, b, l);
		if (!cc && peer)
			cc = cable_conf(c, &t->b[lk->peer_board], (unsigned)lk->peer_link);
		if (cc) {
			if (cc->kind >= 0)
				lk->ch.kind = (enum sim_cable_kind)cc->kind;
			if (cc->length_m > 0)
				lk->ch.length_m = cc->length_m;
			if (cc->csv[0]) {
				char err[300];
				struct sim_ber_table *tab;
				if (sim_ber_table_load(cc->csv, &tab, err, sizeof(err)))
					return apenet_err_set(e, APENET_EINVAL, "%s", err);
				/* points measured on another variant do not fit this one's PMA ranges */
				if (sim_ber_table_check(tab, &b->prof->pma, err, sizeof(err))) {
					sim_ber_table_free(tab);
					return apenet_err_set(e, APENET_EINVAL, "%s", err);
				}
				lk->ch.measured = tab;
			}
		}
	}
	lk->ch.lane_mbps = lk->lp->lane_mbps;
	lk->ch.range = &b->prof->pma;
	lk->ch.extra_ber = 0;
	/* Modules: a copper assembly shows one serial at both ends, optical modules their own. */
	if (lk->lp->has_module) {
		enum sim_module_kind mk = lk->ch.kind == SIM_CABLE_OPTICAL ? SIM_MOD_OPTICAL : SIM_MOD_COPPER;
		uint32_t serial = mk == SIM_MOD_COPPER ? (uint32_t)lk->cable_id * 10u
						       : (uint32_t)lk->cable_id * 10u + (peer && peer->cable_id ? 1u : 0u);
		unsigned len = (unsigned)(lk->ch.length_m + 0.5);
		uint32_t sn = (uint32_t)(t->seed * 100000u) + serial;
		if (lk->lp->has_module == APENET_CAGE_SFP)
			sim_module_default_sfp(&lk->module, mk, len, sn, lk->lp->lane_mbps / 1000.0);
		else
			sim_module_default(&lk->module, mk, len, sn);
		const struct sim_cable_conf *cc = cable_conf(c, b, l);
		if (!cc && peer)
			cc = cable_conf(c, &t->b[lk->peer_board], (unsigned)lk->peer_link);
		if (cc && cc->has_vendor)
			snprintf(lk->module.vendor, sizeof(lk->module.vendor), "%s", cc->vendor);
		sim_eeprom_build(&lk->module, lk->ee);
	}
	return 0;
}

/* Whether the board's firmware has the remote window: the node's own
 * setting, else the torus's. */
static int node_no_rmt(const struct sim_conf *c, unsigned x, unsigned y, unsigned z)
{
	for (unsigned i = 0; i < c->nnodes; i++)
		if (c->nodes[i].x == x && c->nodes[i].y == y && c->nodes[i].z == z && c->nodes[i].remote_window >= 0)
			return !c->nodes[i].remote_window;
	return c->no_remote_window;
}

static const struct apenet_profile *node_profile(const struct sim_conf *c, unsigned x, unsigned y, unsigned z)
{
	for (unsigned i = 0; i < c->nnodes; i++)
		if (c->nodes[i].x == x && c->nodes[i].y == y && c->nodes[i].z == z)
			return c->nodes[i].prof;
	return c->prof;
}

int sim_torus_create(struct sim_torus *t, const struct sim_conf *c, const char *dir, struct apenet_err *e)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->dims, c->dims, sizeof(t->dims));
	t->seed = c->seed;
	t->ber_accel = c->ber_accel ? c->ber_accel : 1;
	t->nboards = c->dims[0] * c->dims[1] * c->dims[2];
	t->tick_ms = c->tick_ms ? c->tick_ms : t->nboards <= 256 ? 10 : 100;
	if (t->nboards == 0)
		return apenet_err_set(e, APENET_EINVAL, "torus dimensions must be at least 1x1x1");
	if (!realpath(dir, t->dir)) {
		if (mkdirs(dir, e) || !realpath(dir, t->dir))
			return apenet_err_set(e, APENET_EIO, "%s: %s", dir, strerror(errno));
	}
	t->b = calloc(t->nboards, sizeof(*t->b));
	if (!t->b)
		return apenet_err_set(e, APENET_EIO, "out of memory for %u boards", t->nboards);
	for (unsigned z = 0; z < c->dims[2]; z++)
		for (unsigned y = 0; y < c->dims[1]; y++)
			for (unsigned x = 0; x < c->dims[0]; x++) {
				unsigned i = sim_index(t, x, y, z);
				struct sim_board *b = &t->b[i];
				b->idx = i;
				b->x = x;
				b->y = y;
				b->z = z;
				b->prof = node_profile(c, x, y, z);
				b->no_rmt = node_no_rmt(c, x, y, z);
				b->pcie_gen = b->prof->pcie_gen;
				b->pcie_width = b->prof->pcie_width;
				sim_rng_seed(&b->rng, c->seed * 1000003u + i);
				for (unsigned l = 0; l < b->prof->nlinks; l++)
					b->link[l].lp = &b->prof->links[l];
			}
	for (unsigned i = 0; i < t->nboards; i++) {
		struct sim_board *b = &t->b[i];
		if (board_files(t, b, e))
			return -1;
		for (unsigned l = 0; l < b->prof->nlinks; l++)
			if (cable_setup(t, c, b, l, e))
				return -1;
		sim_board_reset_bar(b);
	}
	return 0;
}

void sim_torus_destroy(struct sim_torus *t)
{
	if (!t->b)
		return;
	for (unsigned i = 0; i < t->nboards; i++) {
		struct sim_board *b = &t->b[i];
		for (unsigned l = 0; l < b->prof->nlinks; l++) {
			struct sim_link *lk = &b->link[l];
			/* both ends point at one table: free it once, from the end that owns it */
			if (lk->ch.measured) {
				int other = lk->peer_board >= 0 &&
					    t->b[lk->peer_board].link[lk->peer_link].ch.measured == lk->ch.measured;
				if (!other || (unsigned)lk->peer_board > i ||
				    ((unsigned)lk->peer_board == i && (unsigned)lk->peer_link > l)) {
					sim_ber_table_free((struct sim_ber_table *)lk->ch.measured);
					if (other)
						t->b[lk->peer_board].link[lk->peer_link].ch.measured = NULL;
				}
				lk->ch.measured = NULL;
			}
		}
		if (b->bar)
			munmap((void *)b->bar, APENET_BAR_SIZE);
	}
	free(t->b);
	t->b = NULL;
}

struct sim_board *sim_torus_board(struct sim_torus *t, const char *xyz)
{
	unsigned v[3];
	if (apenet_parse_triple(xyz, ',', v))
		return NULL;
	if (v[0] >= t->dims[0] || v[1] >= t->dims[1] || v[2] >= t->dims[2])
		return NULL;
	return &t->b[sim_index(t, v[0], v[1], v[2])];
}

int sim_link_by_name(const struct sim_board *b, const char *name)
{
	for (unsigned l = 0; l < b->prof->nlinks; l++)
		if (!strcasecmp(b->prof->links[l].name, name))
			return (int)l;
	char *end;
	long v = strtol(name, &end, 10);
	if (*name && !*end && v >= 0 && v < b->prof->nlinks)
		return (int)v;
	return -1;
}
