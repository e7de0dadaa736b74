/* SPDX-License-Identifier: MIT */
/*
 * The NXP LS1028A-QDS device tree (shared/dtb/fsl-ls1028a-qds.dtb, the
 * board's real blob): its DSPI peripherals are jedec,spi-nor children with
 * spi-cpol, spi-cpha and spi-max-frequency = 10 MHz (fsl-ls1028a-qds.dtb). Skips
 * (77) when the blob is not available.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "spitest.h"

static char dtb[512];
static offload_ctx *ctx;
static char *sys;

static void setup(void)
{
	spi_env_up(&ctx, &sys, OFFLOAD_DT_FILE, dtb);
}

static void teardown(void)
{
	spi_env_down(&ctx, &sys);
}

START_TEST(dspi_children)
{
	struct { const char *ctrl; int n; } want[] = {
		{ "/soc/spi@2100000", 3 }, { "/soc/spi@2110000", 3 }, { "/soc/spi@2120000", 1 },
	};
	const void *fdt = NULL;
	struct ofl_dt_spi_child k[4];
	FILE *f = fopen(dtb, "rb");
	/* libfdt wants the blob 8-byte aligned; a char array is not on 32-bit ARM */
	static _Alignas(8) char blob[1 << 17];

	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt((int)fread(blob, 1, sizeof(blob), f), 0);
	fclose(f);
	fdt = blob;
	for (size_t c = 0; c < sizeof(want) / sizeof(want[0]); c++) {
		int ctrl = fdt_path_offset(fdt, want[c].ctrl);
		ck_assert_int_ge(ctrl, 0);
		ck_assert_int_eq(ofl_dt_spi_children(fdt, ctrl, k, 4), want[c].n);
		for (int i = 0; i < want[c].n; i++) {
			ck_assert_uint_eq(k[i].chip_select, (unsigned)i);
			ck_assert_uint_eq(k[i].max_frequency_hz, 10000000);
			ck_assert_uint_eq(k[i].mode, OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CPHA);
			ck_assert_str_eq(k[i].compatible, "jedec,spi-nor");
			ck_assert_uint_eq(k[i].cs_setup_ns, 0);
			ck_assert(k[i].enabled);
		}
	}
}
END_TEST

START_TEST(open_flash_through_spidev)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	struct fake_spi_cfg c;

	fake_spi_cfg_dspi(&c);
	c.dev_mode = 0;
	struct fake_spi *d0 = fake_spi_add("/dev/spidev0.0", &c);
	struct fake_spi *d1 = fake_spi_add("/dev/spidev0.1", &c);
	fakesys_add_spidev(sys, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/flash@0", "fsl-dspi");
	fakesys_add_spidev(sys, 0, 1, "/soc/spi@2100000", "/soc/spi@2100000/flash@1", "fsl-dspi");

	offload_spi *spi = spi_open_ok(ctx, "/soc/spi@2100000/flash@0", NULL);
	ck_assert_uint_eq(d0->mode, 0x3);
	ck_assert_uint_eq(d0->sck_hz, 10000000);
	ck_assert_str_eq(d0->last_setup, "speed");
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3);
	ck_assert_uint_eq(info.max_speed_hz, 10000000);
	ck_assert_int_eq(info.chip_select, 0);
	offload_spi_close(spi);

	offload_spi_opts_init(&o);
	o.chip_select = 1;
	spi = spi_open_ok(ctx, "/soc/spi@2100000", &o);
	ck_assert_uint_eq(d1->mode, 0x3);
	ck_assert_uint_eq(d1->speed_hz, 10000000);
	offload_spi_close(spi);
	ck_assert_uint_eq(d0->users + d1->users, 0);
}
END_TEST

int main(void)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");

	snprintf(dtb, sizeof(dtb), "%s/fsl-ls1028a-qds.dtb", dir && dir[0] ? dir : "../shared/dtb");
	if (access(dtb, R_OK) != 0) {
		printf("SKIP: %s is not readable (the real LS1028A-QDS blob is test input by path)\n",
		       dtb);
		return TEST_SKIP;
	}
	Suite *s = suite_create("spi_ls1028a");
	TCase *tc = tcase_create("ls1028a");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, dspi_children);
	tcase_add_test(tc, open_flash_through_spidev);
	suite_add_tcase(s, tc);
	return test_run(s);
}
