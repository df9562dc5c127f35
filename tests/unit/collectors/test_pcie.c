/*
 * PCI configuration space, both sides: the emulator's builder and dump
 * writer (sim/pcicfg.c) against the codec (collectors/pcie_cap.c), directly
 * and through real libpci reading dump files with its "dump" method, as the
 * tools do with an emulated card.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "apenet/pcie.h"
#include "apenet/regs.h"
#include "../../../sim/pcicfg.h"

/* Where the tested layout puts things (sim/pcicfg.c). */
#define T_CAP_MSI 0x50
#define T_CAP_PM 0x78
#define T_CAP_EXP 0x80
#define T_EXT_AER 0x100

static uint8_t cfg[SIM_PCICFG_SIZE];
static char err[256];

static struct sim_pcicfg_params params(uint16_t dev, unsigned cg, unsigned cw, unsigned sg,
				       unsigned sw)
{
	struct sim_pcicfg_params p = {
		.vendor = APENET_PCI_VENDOR, .device = dev,
		.subsys_vendor = APENET_PCI_VENDOR, .subsys_device = dev,
		.class_code = 0x120000, .revision = 1,
		.bar0_addr = 0xf7800000ull, .bar0_size = 1u << 20,
		.cap_gen = (uint8_t)cg, .cap_width = (uint8_t)cw,
		.sta_gen = (uint8_t)sg, .sta_width = (uint8_t)sw,
	};
	return p;
}

static uint16_t le16(const uint8_t *b, unsigned off)
{
	return (uint16_t)(b[off] | b[off + 1] << 8);
}

static uint32_t le32(const uint8_t *b, unsigned off)
{
	return (uint32_t)le16(b, off) | (uint32_t)le16(b, off + 2) << 16;
}

static void expect_fail(size_t len, const char *needle)
{
	struct apenet_pcie_info info;

	err[0] = '\0';
	assert_int_equal(apenet_pcie_parse(cfg, len, &info, err, sizeof(err)), -1);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err, needle);
}

/* ---- builder + codec ---- */

static void test_roundtrip_gen2x8(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);
	struct apenet_pcie_info info;

	(void)state;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(le16(cfg, PCI_VENDOR_ID), APENET_PCI_VENDOR);
	assert_int_equal(le16(cfg, PCI_DEVICE_ID), 0x0a01);
	assert_int_equal(le32(cfg, PCI_CLASS_REVISION) >> 8, 0x120000);
	assert_int_equal(le16(cfg, PCI_SUBSYSTEM_ID), 0x0a01);
	assert_true(le16(cfg, PCI_STATUS) & PCI_STATUS_CAP_LIST);
	assert_int_equal(cfg[PCI_INTERRUPT_PIN], 1);
	/* 64-bit non-prefetchable memory BAR */
	assert_int_equal(le32(cfg, PCI_BASE_ADDRESS_0) & 0xf, PCI_BASE_ADDRESS_MEM_TYPE_64);
	assert_int_equal(le32(cfg, PCI_BASE_ADDRESS_0) & ~0xfu, 0xf7800000u);

	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_true(info.has_pcie);
	assert_int_equal(info.cap_gen, 2);
	assert_int_equal(info.cap_width, 8);
	assert_int_equal(info.sta_gen, 2);
	assert_int_equal(info.sta_width, 8);
	assert_false(info.degraded);
	assert_int_equal(info.devsta, 0);
	assert_true(info.has_aer);
	assert_int_equal(info.aer_uncor_status, 0);
	assert_int_equal(info.aer_cor_status, 0);
	assert_int_equal(info.aer_uncor_mask, 0);
	assert_int_equal(info.aer_cor_mask, PCI_ERR_COR_REP_ANFE);
	/* default severity: Data Link Protocol and Malformed TLP are fatal */
	assert_true(info.aer_uncor_sev & PCI_ERR_UNC_DLP);
	assert_true(info.aer_uncor_sev & PCI_ERR_UNC_MALF_TLP);
	assert_false(info.aer_uncor_sev & PCI_ERR_UNC_COMP_TIME);
	/* Link Capabilities 2 advertises 2.5 and 5 GT/s only */
	assert_int_equal(PCI_EXP_LNKCAP2_SPEED(le32(cfg, T_CAP_EXP + PCI_EXP_LNKCAP2)), 0x3);
}

static void test_roundtrip_gen3_degraded(void **state)
{
	struct sim_pcicfg_params p = params(0x0a02, 3, 8, 1, 4);
	struct apenet_pcie_info info;

	(void)state;
	p.aer_cor_status = PCI_ERR_COR_BAD_DLLP;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_true(info.has_pcie);
	assert_int_equal(info.cap_gen, 3);
	assert_int_equal(info.cap_width, 8);
	assert_int_equal(info.sta_gen, 1);
	assert_int_equal(info.sta_width, 4);
	assert_true(info.degraded);
	assert_int_equal(info.aer_cor_status, PCI_ERR_COR_BAD_DLLP);
	assert_int_equal(info.devsta, PCI_EXP_DEVSTA_CED);
	assert_int_equal(PCI_EXP_LNKCAP2_SPEED(le32(cfg, T_CAP_EXP + PCI_EXP_LNKCAP2)), 0x7);
}

static void test_degraded_speed_or_width_alone(void **state)
{
	struct sim_pcicfg_params p;
	struct apenet_pcie_info info;

	(void)state;
	p = params(0x0a02, 3, 8, 2, 8); /* speed only */
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_true(info.degraded);
	p = params(0x0a02, 3, 8, 3, 4); /* width only */
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_true(info.degraded);
	p = params(0x0a02, 3, 8, 3, 8);
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_false(info.degraded);
}

static void test_uncorrectable_sets_devsta(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);
	struct apenet_pcie_info info;

	(void)state;
	p.aer_uncor_status = PCI_ERR_UNC_COMP_TIME; /* non-fatal by default */
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_int_equal(info.aer_uncor_status, PCI_ERR_UNC_COMP_TIME);
	assert_int_equal(info.devsta, PCI_EXP_DEVSTA_NFED);

	p.aer_uncor_status = PCI_ERR_UNC_MALF_TLP | PCI_ERR_UNC_UNSUP;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_int_equal(info.devsta,
			 PCI_EXP_DEVSTA_FED | PCI_EXP_DEVSTA_NFED | PCI_EXP_DEVSTA_URD);
	/* First Error Pointer names the lowest status bit (Malformed TLP, 18) */
	assert_int_equal(PCI_ERR_CAP_FEP(le32(cfg, T_EXT_AER + PCI_ERR_CAP)), 18);
}

static void test_no_extended_space(void **state)
{
	struct sim_pcicfg_params p = params(0x0a02, 3, 8, 1, 4);
	struct apenet_pcie_info info;

	(void)state;
	p.aer_cor_status = PCI_ERR_COR_RCVR;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(apenet_pcie_parse(cfg, 256, &info, err, sizeof(err)), 0);
	assert_true(info.has_pcie);
	assert_true(info.degraded);
	assert_false(info.has_aer);
	assert_int_equal(info.aer_cor_status, 0);
}

static void test_no_capability_list(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);
	struct apenet_pcie_info info;

	(void)state;
	sim_pcicfg_build(&p, cfg);
	cfg[PCI_STATUS] &= (uint8_t)~PCI_STATUS_CAP_LIST;
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_false(info.has_pcie);
	assert_false(info.has_aer);
}

static void test_no_pcie_capability(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);
	struct apenet_pcie_info info;

	(void)state;
	sim_pcicfg_build(&p, cfg);
	cfg[T_CAP_PM + PCI_CAP_LIST_NEXT] = 0; /* unlink the PCIe capability */
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, err, sizeof(err)), 0);
	assert_false(info.has_pcie);
	assert_false(info.has_aer);
}

/* ---- broken config space ---- */

static void test_capability_loop(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);

	(void)state;
	sim_pcicfg_build(&p, cfg);
	cfg[T_CAP_EXP + PCI_CAP_LIST_NEXT] = T_CAP_MSI;
	expect_fail(sizeof(cfg), "capability list loops at 0x80");

	sim_pcicfg_build(&p, cfg);
	cfg[T_CAP_MSI + PCI_CAP_LIST_NEXT] = T_CAP_MSI; /* points at itself */
	expect_fail(sizeof(cfg), "loops at 0x50");
}

static void test_pointer_out_of_range(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);

	(void)state;
	sim_pcicfg_build(&p, cfg);
	cfg[PCI_CAPABILITY_LIST] = 0x20;
	expect_fail(sizeof(cfg), "capability pointer 0x20 at 0x34 points into the header");

	sim_pcicfg_build(&p, cfg);
	cfg[T_CAP_MSI + PCI_CAP_LIST_NEXT] = 0x08;
	expect_fail(sizeof(cfg), "0x08 at 0x50");

	/* A PCIe capability too close to the end of the 256-byte space. */
	sim_pcicfg_build(&p, cfg);
	cfg[T_CAP_PM + PCI_CAP_LIST_NEXT] = 0xe0;
	memcpy(cfg + 0xe0, cfg + T_CAP_EXP, 4);
	expect_fail(sizeof(cfg), "PCIe capability at 0xe0");
	assert_non_null(strstr(err, "runs past 0x100"));

	/* An extended pointer back into the standard space. */
	sim_pcicfg_build(&p, cfg);
	cfg[T_EXT_AER + 3] = 0x04; /* next = 0x040 */
	expect_fail(sizeof(cfg), "extended capability pointer 0x040 at 0x100 is below 0x100");
}

static void test_extended_loop(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);

	(void)state;
	sim_pcicfg_build(&p, cfg);
	cfg[T_EXT_AER + 3] = 0x10; /* next = 0x100: itself */
	expect_fail(sizeof(cfg), "extended capability list loops at 0x100");
}

static void test_truncated(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);

	(void)state;
	sim_pcicfg_build(&p, cfg);
	expect_fail(0x90, "config space truncated at 0x90: PCIe capability at 0x80 needs 0x3c bytes");
	expect_fail(0x60, "config space truncated at 0x60: capability at 0x78");
	expect_fail(0x20, "config space truncated at 0x20");
	expect_fail(0x110, "config space truncated at 0x110: AER capability at 0x100 needs 0x2c bytes");
}

static void test_all_ones(void **state)
{
	struct sim_pcicfg_params p = params(0x0a01, 2, 8, 2, 8);
	struct apenet_pcie_info info;

	(void)state;
	p.gone = 1;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(cfg[0], 0xff);
	assert_int_equal(cfg[SIM_PCICFG_SIZE - 1], 0xff);
	expect_fail(sizeof(cfg), "all ones: device not responding");
	expect_fail(256, "all ones");

	/* Vendor reads 0xffff but the rest does not: still not responding. */
	p.gone = 0;
	sim_pcicfg_build(&p, cfg);
	cfg[0] = cfg[1] = 0xff;
	expect_fail(sizeof(cfg), "device not responding");

	assert_int_equal(apenet_pcie_parse(NULL, 256, &info, err, sizeof(err)), -1);
	/* err may be absent */
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &info, NULL, 0), -1);
}

static void test_speed_str(void **state)
{
	(void)state;
	assert_string_equal(apenet_pcie_speed_str(1), "2.5GT/s");
	assert_string_equal(apenet_pcie_speed_str(2), "5GT/s");
	assert_string_equal(apenet_pcie_speed_str(3), "8GT/s");
	assert_string_equal(apenet_pcie_speed_str(4), "16GT/s");
	assert_string_equal(apenet_pcie_speed_str(5), "32GT/s");
	assert_string_equal(apenet_pcie_speed_str(0), "unknown");
	assert_string_equal(apenet_pcie_speed_str(6), "unknown");
	assert_string_equal(apenet_pcie_speed_str(~0u), "unknown");
}

/* ---- through real libpci ---- */

static void data_path(char *buf, size_t len, const char *name)
{
	const char *src = getenv("APENET_SRCDIR");

	if (src && *src)
		snprintf(buf, len, "%s/tests/data/%s", src, name);
	else
		snprintf(buf, len, "tests/data/%s", name);
}

/* Reads the one function in a dump file as the tools do: libpci's dump
 * method, 4096 bytes, else the 256 a plain `lspci -xxx` dump holds. */
static size_t libpci_read(const char *path, uint8_t *buf, size_t cap, uint16_t *vendor,
			  uint16_t *device)
{
	char name[4096];
	struct pci_access *a;
	struct pci_dev *d;
	size_t n = 0;

	if (access(path, R_OK) != 0)
		fail_msg("cannot read %s (run from the repo root or set APENET_SRCDIR)", path);
	snprintf(name, sizeof(name), "%s", path);
	a = pci_alloc();
	assert_non_null(a);
	a->method = PCI_ACCESS_DUMP;
	assert_int_equal(pci_set_param(a, "dump.name", name), 0);
	pci_init(a);
	pci_scan_bus(a);
	d = a->devices;
	assert_non_null(d);
	assert_null(d->next);
	memset(buf, 0, cap);
	if (cap >= 4096 && pci_read_block(d, 0, buf, 4096))
		n = 4096;
	else if (cap >= 256 && pci_read_block(d, 0, buf, 256))
		n = 256;
	*vendor = pci_read_word(d, PCI_VENDOR_ID);
	*device = pci_read_word(d, PCI_DEVICE_ID);
	pci_cleanup(a);
	return n;
}

static void test_libpci_gen2x8(void **state)
{
	uint8_t buf[4096];
	char path[4096];
	struct apenet_pcie_info info;
	uint16_t ven, dev;

	(void)state;
	data_path(path, sizeof(path), "apenet-gen2x8.lspci");
	assert_int_equal(libpci_read(path, buf, sizeof(buf), &ven, &dev), 4096);
	assert_int_equal(ven, 0x1172);
	assert_int_equal(dev, 0x0a01);
	assert_int_equal(apenet_pcie_parse(buf, 4096, &info, err, sizeof(err)), 0);
	assert_true(info.has_pcie);
	assert_int_equal(info.cap_gen, 2);
	assert_int_equal(info.cap_width, 8);
	assert_int_equal(info.sta_gen, 2);
	assert_int_equal(info.sta_width, 8);
	assert_false(info.degraded);
	assert_int_equal(info.devsta, 0);
	assert_true(info.has_aer);
	assert_int_equal(info.aer_cor_status, 0);
	assert_int_equal(info.aer_uncor_status, 0);
}

static void test_libpci_v5_degraded(void **state)
{
	uint8_t buf[4096];
	char path[4096];
	struct apenet_pcie_info info;
	uint16_t ven, dev;

	(void)state;
	data_path(path, sizeof(path), "apenet-v5-degraded.lspci");
	assert_int_equal(libpci_read(path, buf, sizeof(buf), &ven, &dev), 4096);
	assert_int_equal(ven, 0x1172);
	assert_int_equal(dev, 0x0a02);
	assert_int_equal(apenet_pcie_parse(buf, 4096, &info, err, sizeof(err)), 0);
	assert_int_equal(info.cap_gen, 3);
	assert_int_equal(info.cap_width, 8);
	assert_int_equal(info.sta_gen, 1);
	assert_int_equal(info.sta_width, 4);
	assert_true(info.degraded);
	assert_true(info.has_aer);
	assert_int_equal(info.aer_cor_status, PCI_ERR_COR_RCVR);
	assert_int_equal(info.aer_uncor_status, 0);
	assert_int_equal(info.devsta, PCI_EXP_DEVSTA_CED);
}

static void test_libpci_256(void **state)
{
	uint8_t buf[4096];
	char path[4096];
	struct apenet_pcie_info info;
	uint16_t ven, dev;

	(void)state;
	data_path(path, sizeof(path), "apenet-gen2x8-256.lspci");
	assert_int_equal(libpci_read(path, buf, sizeof(buf), &ven, &dev), 256);
	assert_int_equal(dev, 0x0a01);
	assert_int_equal(apenet_pcie_parse(buf, 256, &info, err, sizeof(err)), 0);
	assert_true(info.has_pcie);
	assert_int_equal(info.sta_gen, 2);
	assert_int_equal(info.sta_width, 8);
	assert_false(info.has_aer);
}

static void test_libpci_caploop(void **state)
{
	uint8_t buf[4096];
	char path[4096];
	struct apenet_pcie_info info;
	uint16_t ven, dev;
	size_t n;

	(void)state;
	data_path(path, sizeof(path), "caploop.lspci");
	n = libpci_read(path, buf, sizeof(buf), &ven, &dev);
	assert_int_equal(n, 4096);
	assert_int_equal(apenet_pcie_parse(buf, n, &info, err, sizeof(err)), -1);
	if (!strstr(err, "capability list loops at 0x80"))
		fail_msg("unexpected error: %s", err);
}

/* ---- dump writer ---- */

static void test_write_dump_roundtrip(void **state)
{
	char dir[] = "/tmp/apenet-pcie-XXXXXX";
	char path[256], tmp[300];
	uint8_t back[4096];
	struct sim_pcicfg_params p = params(0x0a02, 3, 8, 2, 8);
	struct apenet_pcie_info want, got;
	uint16_t ven, dev;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pci.lspci", dir);
	p.bar0_addr = 0x3ffe000000ull; /* above 4 GB: both BAR dwords matter */
	p.aer_uncor_status = PCI_ERR_UNC_COMP_TIME;
	p.aer_cor_status = PCI_ERR_COR_REP_TIMER | PCI_ERR_COR_BAD_TLP;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(sim_pcicfg_write_dump(path, "0000:03:00.0",
					       "Processing accelerators: Altera Corporation Device 0a02",
					       cfg, err, sizeof(err)), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_not_equal(access(tmp, F_OK), 0); /* renamed away */

	assert_int_equal(libpci_read(path, back, sizeof(back), &ven, &dev), 4096);
	assert_int_equal(dev, 0x0a02);
	assert_memory_equal(back, cfg, sizeof(back));
	assert_int_equal(le32(back, PCI_BASE_ADDRESS_1), 0x3f);
	assert_int_equal(apenet_pcie_parse(cfg, sizeof(cfg), &want, err, sizeof(err)), 0);
	assert_int_equal(apenet_pcie_parse(back, sizeof(back), &got, err, sizeof(err)), 0);
	assert_memory_equal(&want, &got, sizeof(want));
	assert_int_equal(got.aer_cor_status, PCI_ERR_COR_REP_TIMER | PCI_ERR_COR_BAD_TLP);
	assert_int_equal(got.aer_uncor_status, PCI_ERR_UNC_COMP_TIME);

	/* Rewriting replaces the file whole: the card has now fallen off. */
	p.gone = 1;
	sim_pcicfg_build(&p, cfg);
	assert_int_equal(sim_pcicfg_write_dump(path, "03:00.0", "gone", cfg, err, sizeof(err)), 0);
	assert_int_equal(libpci_read(path, back, sizeof(back), &ven, &dev), 4096);
	assert_int_equal(ven, 0xffff);
	assert_int_equal(apenet_pcie_parse(back, sizeof(back), &got, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "all ones"));

	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_write_dump_errors(void **state)
{
	(void)state;
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(sim_pcicfg_write_dump("/nonexistent-dir/x.lspci", "03:00.0", "t", cfg,
					       err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/x.lspci.tmp"));
	assert_int_equal(sim_pcicfg_write_dump("/tmp/x.lspci", "3:0.0", "t", cfg, err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "bad BDF"));
	assert_int_equal(sim_pcicfg_write_dump("/tmp/x.lspci", "03:00.0", "two\nlines", cfg, err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "line break"));
	assert_int_not_equal(access("/tmp/x.lspci", F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_gen2x8),
		cmocka_unit_test(test_roundtrip_gen3_degraded),
		cmocka_unit_test(test_degraded_speed_or_width_alone),
		cmocka_unit_test(test_uncorrectable_sets_devsta),
		cmocka_unit_test(test_no_extended_space),
		cmocka_unit_test(test_no_capability_list),
		cmocka_unit_test(test_no_pcie_capability),
		cmocka_unit_test(test_capability_loop),
		cmocka_unit_test(test_pointer_out_of_range),
		cmocka_unit_test(test_extended_loop),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_all_ones),
		cmocka_unit_test(test_speed_str),
		cmocka_unit_test(test_libpci_gen2x8),
		cmocka_unit_test(test_libpci_v5_degraded),
		cmocka_unit_test(test_libpci_256),
		cmocka_unit_test(test_libpci_caploop),
		cmocka_unit_test(test_write_dump_roundtrip),
		cmocka_unit_test(test_write_dump_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
