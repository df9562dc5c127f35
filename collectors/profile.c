/* Board variant profiles (SPEC §1).  The numbers are the published ones; PMA
 * ranges follow the Stratix IV / Stratix V transceiver settings. */
#include <string.h>

#include "apenet/regs.h"

#define SIV_PMA { .vod = 7, .pre = 7, .post1 = 15, .post2 = 7, .rxeq = 15, .dcgain = 4 }
#define SIV_DEF { .vod = 4, .pre = 0, .post1 = 3, .post2 = 0, .rxeq = 4, .dcgain = 1 }
#define SV_PMA  { .vod = 63, .pre = 31, .post1 = 31, .post2 = 15, .rxeq = 15, .dcgain = 3 }
#define SV_DEF  { .vod = 40, .pre = 0, .post1 = 8, .post2 = 0, .rxeq = 6, .dcgain = 1 }

#define TORUS(n, d) { .name = n, .dir = d, .lanes = 4, .lane_mbps = 7000, .lane_mbps_max = 8500, \
		      .enc = APENET_ENC_8B10B, .has_module = APENET_CAGE_QSFP }

static const struct apenet_profile apenet_profiles[] = {
	{ .id = APENET_V_APENETP, .name = "apenet+", .title = "APEnet+ (v4)",
	  .fpga = "Altera Stratix IV EP4SGX290", .pci_device = 0x0a01, .pcie_gen = 2, .pcie_width = 8,
	  .fw_version = 0x040302, .nlinks = 6,
	  .links = { TORUS("X+", APENET_DIR_XP), TORUS("X-", APENET_DIR_XM), TORUS("Y+", APENET_DIR_YP),
		     TORUS("Y-", APENET_DIR_YM), TORUS("Z+", APENET_DIR_ZP), TORUS("Z-", APENET_DIR_ZM) },
	  .pma = SIV_PMA, .pma_default = SIV_DEF },
	{ .id = APENET_V_V5, .name = "apenet-v5", .title = "APEnet v5",
	  .fpga = "Altera Stratix V 5SGXEA7K2F40C2N", .pci_device = 0x0a02, .pcie_gen = 3, .pcie_width = 8,
	  .fw_version = 0x050104, .nlinks = 3,
	  .links = {
		  { .name = "X", .dir = APENET_DIR_X, .lanes = 4, .lane_mbps = 10000, .lane_mbps_max = 14100,
		    .enc = APENET_ENC_8B10B, .has_module = APENET_CAGE_QSFP },
		  { .name = "Y", .dir = APENET_DIR_Y, .lanes = 4, .lane_mbps = 10000, .lane_mbps_max = 10000,
		    .enc = APENET_ENC_8B10B, .has_module = 0 },
		  { .name = "Z", .dir = APENET_DIR_Z, .lanes = 4, .lane_mbps = 10000, .lane_mbps_max = 10000,
		    .enc = APENET_ENC_8B10B, .has_module = 0 } },
	  .pma = SV_PMA, .pma_default = SV_DEF },
	{ .id = APENET_V_NANET1, .name = "nanet-1", .title = "NaNet-1",
	  .fpga = "Altera Stratix IV EP4SGX230", .pci_device = 0x0a03, .pcie_gen = 2, .pcie_width = 8,
	  .fw_version = 0x010200, .nlinks = 4,
	  .links = {
		  { .name = "GbE", .dir = APENET_DIR_EXT, .lanes = 1, .lane_mbps = 1250, .lane_mbps_max = 1250,
		    .enc = APENET_ENC_8B10B, .has_module = 0 },
		  { .name = "APElink0", .dir = APENET_DIR_XP, .lanes = 4, .lane_mbps = 8500, .lane_mbps_max = 8500,
		    .enc = APENET_ENC_8B10B, .has_module = APENET_CAGE_QSFP },
		  { .name = "APElink1", .dir = APENET_DIR_XM, .lanes = 4, .lane_mbps = 8500, .lane_mbps_max = 8500,
		    .enc = APENET_ENC_8B10B, .has_module = APENET_CAGE_QSFP },
		  { .name = "APElink2", .dir = APENET_DIR_EXT, .lanes = 4, .lane_mbps = 8500, .lane_mbps_max = 8500,
		    .enc = APENET_ENC_8B10B, .has_module = APENET_CAGE_QSFP } },
	  .pma = SIV_PMA, .pma_default = SIV_DEF },
	{ .id = APENET_V_NANET_KM3, .name = "nanet-km3", .title = "NaNet (KM3NeT-IT)",
	  .fpga = "Altera Stratix V (Terasic DE5-net)", .pci_device = 0x0a04, .pcie_gen = 3, .pcie_width = 8,
	  .fw_version = 0x020001, .nlinks = 4,
/* The Terasic DE5-net's four SFP+ cages carry the detector links. */
#define KM3(n) { .name = n, .dir = APENET_DIR_EXT, .lanes = 1, .lane_mbps = 800, .lane_mbps_max = 800, \
		 .enc = APENET_ENC_8B10B, .has_module = APENET_CAGE_SFP }
	  .links = { KM3("KM3link0"), KM3("KM3link1"), KM3("KM3link2"), KM3("KM3link3") },
	  .pma = SV_PMA, .pma_default = SV_DEF },
	{ .id = APENET_V_NANET10, .name = "nanet-10", .title = "NaNet-10",
	  .fpga = "Altera Stratix V", .pci_device = 0x0a05, .pcie_gen = 3, .pcie_width = 8,
	  .fw_version = 0x010001, .nlinks = 4,
/* 10GbE through the board's SFP+ cages. */
#define TENG(n) { .name = n, .dir = APENET_DIR_EXT, .lanes = 1, .lane_mbps = 10312, .lane_mbps_max = 10312, \
		  .enc = APENET_ENC_64B66B, .has_module = APENET_CAGE_SFP }
	  .links = { TENG("10GbE0"), TENG("10GbE1"), TENG("10GbE2"), TENG("10GbE3") },
	  .pma = SV_PMA, .pma_default = SV_DEF },
};

#define NPROFILES (sizeof(apenet_profiles) / sizeof(apenet_profiles[0]))

const struct apenet_profile *apenet_profile(enum apenet_variant v)
{
	for (unsigned i = 0; i < NPROFILES; i++)
		if (apenet_profiles[i].id == v)
			return &apenet_profiles[i];
	return NULL;
}

const struct apenet_profile *apenet_profile_by_name(const char *name)
{
	for (unsigned i = 0; i < NPROFILES; i++)
		if (strcmp(apenet_profiles[i].name, name) == 0)
			return &apenet_profiles[i];
	return NULL;
}

const struct apenet_profile *apenet_profile_by_device(uint16_t dev)
{
	for (unsigned i = 0; i < NPROFILES; i++)
		if (apenet_profiles[i].pci_device == dev)
			return &apenet_profiles[i];
	return NULL;
}

/* Where a direction runs: its dimension, its step (0: paired channels) and
 * the direction the far end faces. */
static int dir_geometry(enum apenet_dir d, int *dim, int *step, enum apenet_dir *back)
{
	switch (d) {
	case APENET_DIR_XP: *dim = 0; *step = 1; *back = APENET_DIR_XM; return 0;
	case APENET_DIR_XM: *dim = 0; *step = -1; *back = APENET_DIR_XP; return 0;
	case APENET_DIR_YP: *dim = 1; *step = 1; *back = APENET_DIR_YM; return 0;
	case APENET_DIR_YM: *dim = 1; *step = -1; *back = APENET_DIR_YP; return 0;
	case APENET_DIR_ZP: *dim = 2; *step = 1; *back = APENET_DIR_ZM; return 0;
	case APENET_DIR_ZM: *dim = 2; *step = -1; *back = APENET_DIR_ZP; return 0;
	case APENET_DIR_X: *dim = 0; *step = 0; *back = d; return 0;
	case APENET_DIR_Y: *dim = 1; *step = 0; *back = d; return 0;
	case APENET_DIR_Z: *dim = 2; *step = 0; *back = d; return 0;
	default: return -1;
	}
}

int apenet_torus_neighbour(const unsigned dims[3], const unsigned me[3], enum apenet_dir d, unsigned far[3],
			   enum apenet_dir *back, int *dim, int *wrap)
{
	int step;
	if (dir_geometry(d, dim, &step, back) || dims[*dim] == 0)
		return -1;
	far[0] = me[0];
	far[1] = me[1];
	far[2] = me[2];
	*wrap = 0;
	if (step == 0) { /* one channel per dimension: nodes pair up, 2k with 2k+1 */
		far[*dim] = me[*dim] ^ 1u;
		return far[*dim] < dims[*dim] ? 0 : -1;
	}
	*wrap = step > 0 ? me[*dim] == dims[*dim] - 1 : me[*dim] == 0;
	far[*dim] = (unsigned)(((int)me[*dim] + step + (int)dims[*dim]) % (int)dims[*dim]);
	return 0;
}

int apenet_profile_link_dir(const struct apenet_profile *p, enum apenet_dir d)
{
	for (unsigned l = 0; l < p->nlinks; l++)
		if (p->links[l].dir == d)
			return (int)l;
	return -1;
}
