/* SPDX-License-Identifier: MIT */
/*
 * Exact decisions on real boards (../shared/dtb, Debian 6.12 arm64 DTBs).
 * Expected values come from the Linux drivers (k3-udma.c, spi-fsl-dspi.c,
 * inside-secure/safexcel.c; sources by topic in the src/hw headers) and from
 * reading each blob with `dtc -I dtb -O dts`; paths and addresses below are
 * copied from that dtc output. Skipped (77) when the directory is absent.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "dspi/dspi.h"
#include "udma/udma.h"
#include "policy/policy.h"
#include "testutil.h"

static const char *dir;

static const char *board(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s.dtb", dir, name);
	return path;
}

struct brd {
	struct ofl_dt dt;
	struct ofl_dt_match m[16];
	int n;
};

static void brd_load(struct brd *b, const char *name)
{
	char err[512] = "";

	ck_assert_msg(ofl_dt_load_file(&b->dt, board(name), err, sizeof(err)) == 0, "%s", err);
	b->n = ofl_engines_discover(b->dt.fdt, b->m, 16);
	ck_assert_int_ge(b->n, 0);
}

static int find(const struct brd *b, const char *path)
{
	int node = fdt_path_offset(b->dt.fdt, path);

	ck_assert_msg(node >= 0, "no node %s", path);
	for (int i = 0; i < b->n; i++)
		if (b->m[i].node == node)
			return i;
	ck_abort_msg("%s not discovered", path);
	return -1;
}

static struct ofl_policy pol(const struct brd *b, const char *path)
{
	struct ofl_policy p;

	ck_assert_int_eq(ofl_engine_policy(b->dt.fdt, &b->m[find(b, path)], NULL, &p), 0);
	return p;
}

static void reg_named(const struct brd *b, const char *path, const char *name, uint64_t addr,
		      uint64_t size)
{
	uint64_t a, s;
	char err[512];
	int r = ofl_dt_reg_by_name(b->dt.fdt, fdt_path_offset(b->dt.fdt, path), name, &a, &s, err,
				   sizeof(err));

	ck_assert_msg(r == 0, "%s %s: %s", path, name, err);
	ck_assert_uint_eq(a, addr);
	ck_assert_uint_eq(s, size);
}

#define J721E_MAIN "/bus@100000/bus@30000000/dma-controller@31150000"
#define J721E_MCU "/bus@100000/bus@28380000/bus@28380000/dma-controller@285c0000"

START_TEST(j721e_evm)
{
	struct brd b;
	brd_load(&b, "k3-j721e-evm");
	ck_assert_int_eq(b.n, 2); /* the EIP76 RNG at crypto@4e00000/rng@4e10000 is not an engine */

	struct ofl_policy p = pol(&b, J721E_MAIN);
	ck_assert_str_eq(b.m[find(&b, J721E_MAIN)].id->compatible, "ti,j721e-navss-main-udmap");
	ck_assert(p.enabled && p.reg_ok);
	ck_assert_uint_eq(p.reg_addr, 0x31150000);
	ck_assert_uint_eq(p.reg_size, 0x100);
	reg_named(&b, J721E_MAIN, "tchanrt", 0x35000000, 0x100000);
	reg_named(&b, J721E_MAIN, "rflow", 0x30d00000, 0x8000);
	ck_assert(p.coherent);
	ck_assert_str_eq(p.coherent_path, "/bus@100000/bus@30000000");
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_MEMCPY);
	ck_assert_uint_eq(p.burst_by_tpl[UDMA_CLASS_NORMAL], 64);
	ck_assert_uint_eq(p.burst_by_tpl[UDMA_CLASS_H], 256);
	ck_assert_uint_eq(p.burst_by_tpl[UDMA_CLASS_UH], 256);
	ck_assert_int_eq(p.best_tpl, UDMA_CLASS_UH); /* ti,sci-rm-range-tchan = <0x0d 0x0f 0x10> */
	ck_assert_uint_eq(p.burst_bytes, 256);
	ck_assert(p.burst_programmed);
	ck_assert_uint_eq(p.align_bytes, 256);
	ck_assert_str_eq(p.transfer_mode, "tr15-pair");

	p = pol(&b, J721E_MCU);
	ck_assert(p.coherent);
	ck_assert_str_eq(p.coherent_path, "/bus@100000/bus@28380000/bus@28380000");
	ck_assert_uint_eq(p.reg_addr, 0x285c0000);
	ck_assert_uint_eq(p.caps, 0); /* j721e_mcu_data: no memcpy */
	ck_assert_uint_eq(p.align_bytes, 8);
	ofl_dt_free(&b.dt);
}
END_TEST

START_TEST(am654_base_board)
{
	struct brd b;
	brd_load(&b, "k3-am654-base-board");
	ck_assert_int_eq(b.n, 2);
	struct ofl_policy p = pol(&b, "/bus@100000/bus@30800000/dma-controller@31150000");
	ck_assert(p.coherent);
	ck_assert_str_eq(p.coherent_path, "/bus@100000/bus@30800000");
	ck_assert_uint_eq(p.reg_addr, 0x31150000);
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_MEMCPY);
	ck_assert(!p.burst_programmed); /* am654_main_data has no UDMA_FLAG_BURST_SIZE */
	ck_assert_uint_eq(p.burst_bytes, 64);
	ck_assert_uint_eq(p.align_bytes, 64);
	p = pol(&b, "/bus@100000/bus@28380000/bus@28380000/dma-controller@285c0000");
	ck_assert_uint_eq(p.caps, 0);
	ofl_dt_free(&b.dt);
}
END_TEST

START_TEST(am642_evm)
{
	struct brd b;
	brd_load(&b, "k3-am642-evm");
	ck_assert_int_eq(b.n, 2);
	struct ofl_policy p = pol(&b, "/bus@f4000/bus@48000000/dma-controller@485c0100");
	ck_assert_str_eq(ofl_match_row_of(b.m[find(&b, "/bus@f4000/bus@48000000/dma-controller@485c0100")].id)->kind, "k3-bcdma");
	ck_assert_uint_eq(p.reg_addr, 0x485c0100);
	reg_named(&b, "/bus@f4000/bus@48000000/dma-controller@485c0100", "bchanrt", 0x4c000000, 0x20000);
	ck_assert(!p.coherent); /* no dma-coherent anywhere, no ti,asel */
	ck_assert_int_eq(p.coherent_node, -1);
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_STREAMING);
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_MEMCPY);
	ck_assert_uint_eq(p.burst_bytes, 64);
	ck_assert_uint_eq(p.align_bytes, 64);
	ck_assert_str_eq(p.transfer_mode, "tr15-bchan");
	p = pol(&b, "/bus@f4000/bus@48000000/dma-controller@485c0000");
	ck_assert_str_eq(ofl_match_row_of(b.m[find(&b, "/bus@f4000/bus@48000000/dma-controller@485c0000")].id)->kind, "k3-pktdma");
	ck_assert_uint_eq(p.caps, 0); /* PKTDMA cannot do mem-to-mem */
	ofl_dt_free(&b.dt);
}
END_TEST

START_TEST(espressobin)
{
	struct brd b;
	brd_load(&b, "armada-3720-espressobin");
	ck_assert_int_eq(b.n, 1);
	struct ofl_policy p = pol(&b, "/soc/internal-regs@d0000000/crypto@90000");
	ck_assert_str_eq(ofl_match_row_of(b.m[0].id)->kind, "eip97");
	ck_assert_uint_eq(p.reg_addr, 0xd0090000);
	ck_assert_uint_eq(p.reg_size, 0x20000);
	ck_assert(!p.coherent);
	ck_assert_int_eq(p.coherent_node, -1);
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_STREAMING);
	ck_assert(p.soc_io_coherent); /* root: "marvell,armada3720", "marvell,armada3700" */
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH);
	ofl_dt_free(&b.dt);
}
END_TEST

static void ls1028a(const char *name, bool enabled)
{
	static const struct { const char *path; uint64_t addr; uint32_t cs; } dspi[] = {
		{ "/soc/spi@2100000", 0x2100000, 4 },
		{ "/soc/spi@2110000", 0x2110000, 4 },
		{ "/soc/spi@2120000", 0x2120000, 3 },
	};
	struct brd b;
	brd_load(&b, name);
	ck_assert_int_eq(b.n, 3);
	for (int i = 0; i < 3; i++) {
		struct ofl_policy p = pol(&b, dspi[i].path);
		ck_assert_str_eq(b.m[find(&b, dspi[i].path)].id->compatible, "fsl,ls1028a-dspi");
		ck_assert_int_eq(p.enabled, enabled);
		ck_assert_uint_eq(p.reg_addr, dspi[i].addr);
		ck_assert_uint_eq(p.reg_size, 0x10000);
		ck_assert_str_eq(p.transfer_mode, "xspi-pio");
		const struct dspi_row *dr = b.m[find(&b, dspi[i].path)].id->data;
		ck_assert_uint_eq(dr->t.fifo_size, 4);
		ck_assert_uint_eq(dr->t.max_clock_factor, 8);
		ck_assert_uint_eq(p.caps, OFFLOAD_CAP_SPI);
		/* Chip selects: spi-num-chipselects as dtc shows it, carried into the reason. */
		char want[64];
		snprintf(want, sizeof(want), "%u native chip selects", dspi[i].cs);
		ck_assert_ptr_nonnull(strstr(p.transfer_reason, want));
	}
	ofl_dt_free(&b.dt);
}

START_TEST(ls1028a_qds)
{
	ls1028a("fsl-ls1028a-qds", true);
}
END_TEST

START_TEST(ls1028a_rdb)
{
	ls1028a("fsl-ls1028a-rdb", false);
}
END_TEST

START_TEST(rpi4_nothing)
{
	struct brd b;
	brd_load(&b, "bcm2711-rpi-4-b");
	ck_assert_int_eq(b.n, 0);
	ofl_dt_free(&b.dt);
}
END_TEST

/* ------------------------------------------------------------------ public API */

static offload_ctx *open_board(const char *name)
{
	return test_ctx_open(OFFLOAD_DT_FILE, board(name), 0, NULL);
}

static int dev_by_path(offload_ctx *ctx, const char *path, struct offload_dev_info *d)
{
	int i = offload_dev_find(ctx, path);

	ck_assert_msg(i >= 0, "%s: %s", path, offload_last_error(ctx));
	ck_assert_int_eq(offload_dev_get_info(ctx, i, d, sizeof(*d)), 0);
	return i;
}

START_TEST(api_j721e)
{
	offload_ctx *ctx = open_board("k3-j721e-evm");
	struct offload_dev_info d;

	ck_assert_int_eq(offload_dev_count(ctx), 3); /* cpu + 2 UDMAP */
	dev_by_path(ctx, J721E_MAIN, &d);
	ck_assert_str_eq(d.kind, "k3-udma");
	ck_assert_str_eq(d.compatible, "ti,j721e-navss-main-udmap");
	ck_assert_uint_eq(d.phys_addr, 0x31150000);
	ck_assert_int_eq(d.coherent, 1);
	ck_assert_str_eq(d.coherent_node, "/bus@100000/bus@30000000");
	ck_assert_uint_eq(d.burst_by_class[0], 64);
	ck_assert_uint_eq(d.burst_by_class[1], 256);
	ck_assert_uint_eq(d.burst_by_class[2], 256);
	ck_assert_int_eq(d.memcpy_class, 2);
	ck_assert_uint_eq(d.burst_bytes, 256);
	ck_assert_uint_eq(d.align_bytes, 256);
	ck_assert(d.flags & OFFLOAD_DEVF_ENABLED);
	ck_assert_ptr_nonnull(strstr(d.phys_reason, "0x31150000"));
	dev_by_path(ctx, J721E_MCU, &d);
	ck_assert_uint_eq(d.caps & OFFLOAD_CAP_MEMCPY, 0);
	ck_assert_int_eq(d.memcpy_class, -1);
	struct offload_dev_info cpu;
	ck_assert_int_eq(offload_dev_get_info(ctx, offload_dev_find(ctx, "cpu"), &cpu, sizeof(cpu)), 0);
	ck_assert_int_eq(cpu.memcpy_class, -1);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(api_espressobin)
{
	offload_ctx *ctx = open_board("armada-3720-espressobin");
	struct offload_dev_info d;

	dev_by_path(ctx, "/soc/internal-regs@d0000000/crypto@90000", &d);
	ck_assert_uint_eq(d.phys_addr, 0xd0090000);
	ck_assert_int_eq(d.coherent, 0);
	ck_assert_str_eq(d.coherent_node, "");
	ck_assert_int_eq(d.soc_io_coherent, 1);
	ck_assert_ptr_nonnull(strstr(d.soc_io_coherent_reason, "dma-coherent"));
	ck_assert_int_eq(d.cache_mode, OFFLOAD_CACHE_STREAMING);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(api_rdb_disabled)
{
	offload_ctx *ctx = open_board("fsl-ls1028a-rdb");
	struct offload_dev_info d;

	dev_by_path(ctx, "/soc/spi@2100000", &d);
	ck_assert_str_eq(d.status, "disabled");
	ck_assert_uint_eq(d.flags & (OFFLOAD_DEVF_ENABLED | OFFLOAD_DEVF_USABLE), 0);
	ck_assert_ptr_nonnull(strstr(d.usable_reason, "disabled"));
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(api_rpi4_cpu_serves_all)
{
	offload_ctx *ctx = open_board("bcm2711-rpi-4-b");
	struct offload_dev_info d;
	struct offload_result res;
	char src[4096], dst[4096];

	ck_assert_int_eq(offload_dev_count(ctx), 1);
	ck_assert_int_eq(offload_dev_get_info(ctx, 0, &d, sizeof(d)), 0);
	ck_assert_str_eq(d.kind, "cpu");
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (char)(i * 7);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, dst, src, sizeof(src), &res), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert(memcmp(dst, src, sizeof(src)) == 0);
	offload_ctx_free(ctx);
}
END_TEST

int main(void)
{
	static const char *const boards[] = {
		"k3-j721e-evm", "k3-am654-base-board", "k3-am642-evm", "armada-3720-espressobin",
		"fsl-ls1028a-qds", "fsl-ls1028a-rdb", "bcm2711-rpi-4-b",
	};

	dir = getenv("OFFLOAD_TEST_SHARED_DTB");
	if (!dir || !*dir) {
		printf("skip: OFFLOAD_TEST_SHARED_DTB is not set (run through ctest)\n");
		return TEST_SKIP;
	}
	for (size_t i = 0; i < OFL_ARRAY_SIZE(boards); i++)
		if (access(board(boards[i]), R_OK) != 0) {
			printf("skip: %s is not readable (the shared DTB corpus is absent)\n", board(boards[i]));
			return TEST_SKIP;
		}

	Suite *s = suite_create("policy-corpus");
	TCase *t = tcase_create("boards");
	tcase_add_test(t, j721e_evm);
	tcase_add_test(t, am654_base_board);
	tcase_add_test(t, am642_evm);
	tcase_add_test(t, espressobin);
	tcase_add_test(t, ls1028a_qds);
	tcase_add_test(t, ls1028a_rdb);
	tcase_add_test(t, rpi4_nothing);
	suite_add_tcase(s, t);
	t = tcase_create("api");
	tcase_add_test(t, api_j721e);
	tcase_add_test(t, api_espressobin);
	tcase_add_test(t, api_rdb_disabled);
	tcase_add_test(t, api_rpi4_cpu_serves_all);
	suite_add_tcase(s, t);
	return test_run(s);
}
