/* SPDX-License-Identifier: MIT */
/*
 * SPI devices configured from the device tree: ofl_dt_spi_children on the
 * fixture (tests/spi/fixtures/spi-board.dts), and offload_spi_open on DT
 * paths, reaching the stand-in spidev through a fake sysfs.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "spitest.h"

static offload_ctx *ctx;
static char *sys;
static void *blob;

static void setup(void)
{
	const char *dtb = spi_fixture_dtb();
	FILE *f = fopen(dtb, "rb");

	ck_assert_ptr_nonnull(f);
	blob = malloc(1 << 16);
	ck_assert_int_gt((int)fread(blob, 1, 1 << 16, f), 0);
	fclose(f);
	spi_env_up(&ctx, &sys, OFFLOAD_DT_FILE, dtb);
}

static void teardown(void)
{
	spi_env_down(&ctx, &sys);
	free(blob);
}

static struct fake_spi *dspi_device(const char *path)
{
	struct fake_spi_cfg c;

	fake_spi_cfg_dspi(&c);
	return fake_spi_add(path, &c);
}

/* Chip select 1 of the fixture's DSPI is a GPIO (cs-gpios), as its spi-cs-high needs. */
static struct fake_spi *dspi_gpio_device(const char *path)
{
	struct fake_spi_cfg c;

	fake_spi_cfg_dspi(&c);
	c.gpio_cs = true;
	return fake_spi_add(path, &c);
}

/* ------------------------------------------------------------------ ofl_dt_spi_children */

START_TEST(children_properties)
{
	struct ofl_dt_spi_child k[8];
	int ctrl = fdt_path_offset(blob, "/soc/spi@2100000");

	ck_assert_int_ge(ctrl, 0);
	/* Four peripherals; the "slave" node has no reg and is not one. */
	ck_assert_int_eq(ofl_dt_spi_children(blob, ctrl, k, 8), 4);

	ck_assert_int_eq(k[0].node, fdt_path_offset(blob, "/soc/spi@2100000/dev@0"));
	ck_assert_uint_eq(k[0].chip_select, 0);
	ck_assert_uint_eq(k[0].max_frequency_hz, 10000000);
	ck_assert_uint_eq(k[0].mode, OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CPHA);
	ck_assert_uint_eq(k[0].cs_setup_ns, 100);
	ck_assert_uint_eq(k[0].cs_hold_ns, 50);
	ck_assert_str_eq(k[0].compatible, "vendor,mode3");
	ck_assert(k[0].enabled);

	/* Generic setup delay 0 and hold delay absent: the deprecated fsl,* values (hw/dspi.h topic 1.3). */
	ck_assert_uint_eq(k[1].chip_select, 1);
	ck_assert_uint_eq(k[1].max_frequency_hz, 2000000);
	ck_assert_uint_eq(k[1].mode, OFFLOAD_SPI_LSB_FIRST | OFFLOAD_SPI_CS_HIGH);
	ck_assert_uint_eq(k[1].cs_setup_ns, 300);
	ck_assert_uint_eq(k[1].cs_hold_ns, 200);

	ck_assert_uint_eq(k[2].chip_select, 2);
	ck_assert_uint_eq(k[2].mode, OFFLOAD_SPI_3WIRE);
	ck_assert(!k[2].enabled);
	ck_assert_uint_eq(k[2].max_frequency_hz, 0);
	ck_assert_ptr_null(k[2].compatible);

	/* Bus widths 4 / 2; the generic setup delay wins over fsl,spi-cs-sck-delay. */
	ck_assert_uint_eq(k[3].mode, OFFLOAD_SPI_TX_QUAD | OFFLOAD_SPI_RX_DUAL);
	ck_assert_uint_eq(k[3].cs_setup_ns, 40);
	ck_assert_uint_eq(k[3].cs_hold_ns, 0);
}
END_TEST

START_TEST(children_counts_and_bad_args)
{
	struct ofl_dt_spi_child k[2];
	int ctrl = fdt_path_offset(blob, "/soc/spi@2100000");

	memset(k, 0, sizeof(k));
	ck_assert_int_eq(ofl_dt_spi_children(blob, ctrl, k, 2), 4); /* all counted, two written */
	ck_assert_uint_eq(k[1].chip_select, 1);
	ck_assert_int_eq(ofl_dt_spi_children(blob, ctrl, NULL, 0), 4);
	ck_assert_int_eq(ofl_dt_spi_children(blob, fdt_path_offset(blob, "/soc/spi@2120000"), k, 2), 1);
	ck_assert_int_eq(ofl_dt_spi_children(blob, fdt_path_offset(blob, "/soc/spi@2100000/dev@0"), k, 2),
			 0);
	ck_assert_int_eq(ofl_dt_spi_children(NULL, ctrl, k, 2), -EINVAL);
	ck_assert_int_eq(ofl_dt_spi_children(blob, -1, k, 2), -EINVAL);
	ck_assert_int_eq(ofl_dt_spi_children(blob, ctrl, NULL, 2), -EINVAL);
	ck_assert_int_eq(ofl_dt_spi_children(blob, ctrl, k, -1), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ opening DT paths */

/* The controller's device index as the context reports it, or -1 before discovery. */
static int controller_index(const char *path)
{
	int i = offload_dev_find(ctx, path);

	return i >= 0 ? i : -1;
}

START_TEST(open_child_node)
{
	struct offload_spi_info info;
	struct fake_spi *d = dspi_device("/dev/spidev0.0");

	fakesys_add_spidev(sys, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/dev@0", "fsl-dspi");
	d->mode = 0; /* someone left mode 0 and a slow clock behind */
	d->speed_hz = 100000;
	offload_spi *spi = spi_open_ok(ctx, "/soc/spi@2100000/dev@0", NULL);

	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CPHA);
	ck_assert_uint_eq(d->speed_hz, 10000000);
	ck_assert_str_eq(d->last_setup, "speed");
	ck_assert_uint_eq(d->sck_hz, 10000000);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.backend, "spidev");
	ck_assert_str_eq(info.path, "/soc/spi@2100000/dev@0");
	ck_assert_int_eq(offload_spi_get_info(spi, &info, SIZE_MAX), -EINVAL); /* past any layout */
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "more than any struct offload_spi_info will have"));
	ck_assert_int_eq(info.dev, controller_index("/soc/spi@2100000"));
	ck_assert_int_eq(info.chip_select, 0);
	ck_assert_uint_eq(info.mode, 0x3);
	ck_assert_uint_eq(info.max_speed_hz, 10000000);
	ck_assert_uint_eq(info.cs_setup_ns, 100);
	ck_assert_uint_eq(info.cs_hold_ns, 50);
	ck_assert_uint_eq(info.flags, OFFLOAD_RES_KERNEL);

	/* The clock on the wire is the one spi_setup computed last. */
	uint8_t b[2] = { 0xa5, 0x5a }, r[2];
	struct offload_spi_xfer x = { .tx = b, .rx = r, .len = 2 };
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 2);
	ck_assert_mem_eq(r, b, 2);
	ck_assert_str_eq(fake_spi_trace(d), " CS+ [8b 10000000Hz tx1 rx1 wd0] a55a CS-");
	/* spi-fsl-dspi ignores per-transfer clocks: refused rather than silently wrong. */
	x.speed_hz = 1000000;
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "ignores per-transfer speeds");
	offload_spi_close(spi);
}
END_TEST

START_TEST(open_controller_and_chip_select)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	struct fake_spi *d = dspi_gpio_device("/dev/spidev0.1");

	fakesys_add_spidev(sys, 0, 1, "/soc/spi@2100000", "/soc/spi@2100000/dev@1", "fsl-dspi");
	offload_spi_opts_init(&o);
	o.chip_select = 1;
	offload_spi *spi = spi_open_ok(ctx, "/soc/spi@2100000", &o);
	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_LSB_FIRST | OFFLOAD_SPI_CS_HIGH);
	ck_assert_uint_eq(d->speed_hz, 2000000);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_int_eq(info.chip_select, 1);
	ck_assert_uint_eq(info.cs_setup_ns, 300);
	ck_assert_uint_eq(info.cs_hold_ns, 200);
	offload_spi_close(spi);

	/* Options override the child's mode and clock. */
	o.mode = OFFLOAD_SPI_MODE_1;
	o.max_speed_hz = 1000000;
	spi = spi_open_ok(ctx, "/soc/spi@2100000", &o);
	/* spidev forces SPI_CS_HIGH into a GPIO chip select's mode (spidev_ioctl SPI_IOC_WR_MODE32) */
	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_CPHA | OFFLOAD_SPI_CS_HIGH);
	ck_assert_uint_eq(d->speed_hz, 1000000);
	ck_assert_uint_eq(d->sck_hz, 1000000);
	offload_spi_close(spi);
}
END_TEST

/*
 * Issue #18: the SPI_CS_HIGH the core sets on a GPIO chip select
 * (__spi_add_device) is the kernel's. On an older spidev that shows it in
 * RD_MODE32 and stores WR_MODE32 as written, a mode written without it
 * would invert the line; the mode is read-modify-written so it stays, and
 * the handle reports it. Chip select 1 is a GPIO in the fixture
 * (cs-gpios = <0>, <&gpio 7 0>).
 */
START_TEST(open_gpio_cs_keeps_kernel_cs_high)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	struct fake_spi_cfg c;

	fake_spi_cfg_dspi(&c);
	c.gpio_cs = true;
	c.cs_high_visible = true;
	struct fake_spi *d = fake_spi_add("/dev/spidev0.1", &c);
	fakesys_add_spidev(sys, 0, 1, "/soc/spi@2100000", "/soc/spi@2100000/dev@1", "fsl-dspi");
	offload_spi_opts_init(&o);
	o.chip_select = 1;
	o.mode = OFFLOAD_SPI_MODE_1;
	offload_spi *spi = spi_open_ok(ctx, "/soc/spi@2100000", &o);
	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_CPHA | OFFLOAD_SPI_CS_HIGH);
	ck_assert(d->wire_cs_active_high);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_CPHA | OFFLOAD_SPI_CS_HIGH);
	/* and after open */
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_3), 0);
	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_CS_HIGH);
	ck_assert(d->wire_cs_active_high);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_CS_HIGH);
	offload_spi_close(spi);
}
END_TEST

START_TEST(open_controller_without_child)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	struct fake_spi_cfg c;

	fake_spi_cfg_default(&c);
	c.dev_mode = OFFLOAD_SPI_CPOL;
	struct fake_spi *d = fake_spi_add("/dev/spidev2.0", &c);
	/* A spi device without its own DT node: matched by the controller's of_node and C. */
	fakesys_add_spidev(sys, 2, 0, "/soc/spi@2120000", NULL, NULL);
	offload_spi_opts_init(&o);
	o.chip_select = 0;
	offload_spi *spi = spi_open_ok(ctx, "/soc/spi@2120000", &o);
	ck_assert_uint_eq(d->mode, 0); /* no child: mode 0 */
	ck_assert_uint_eq(d->speed_hz, 10000000);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_int_eq(info.chip_select, 0);
	ck_assert_uint_eq(info.cs_setup_ns, 0);
	offload_spi_close(spi);
}
END_TEST

START_TEST(open_dt_lanes)
{
	struct offload_spi_info info;

	/* spi-fsl-dspi lacks dual/quad: Linux drops the DT's lanes, so does the open. */
	struct fake_spi *d = dspi_device("/dev/spidev0.3");
	fakesys_add_spidev(sys, 0, 3, "/soc/spi@2100000", "/soc/spi@2100000/dev@3", "fsl-dspi");
	offload_spi *spi = spi_open_ok(ctx, "/soc/spi@2100000/dev@3", NULL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, 0);
	ck_assert_uint_eq(d->mode, 0);
	offload_spi_close(spi);

	/* A controller with lanes keeps them. */
	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_default(&c);
	d = fake_spi_add("/dev/spidev0.3", &c);
	spi = spi_open_ok(ctx, "/soc/spi@2100000/dev@3", NULL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_TX_QUAD | OFFLOAD_SPI_RX_DUAL);
	ck_assert_uint_eq(d->mode, 0x600);
	offload_spi_close(spi);
}
END_TEST

START_TEST(open_spidev_path_finds_dt_node)
{
	struct offload_spi_info info;

	dspi_device("/dev/spidev0.0");
	fakesys_add_spidev(sys, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/dev@0", "fsl-dspi");
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev0.0", NULL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_int_eq(info.chip_select, 0);
	ck_assert_uint_eq(info.cs_setup_ns, 100);
	ck_assert_uint_eq(info.cs_hold_ns, 50);
	ck_assert_int_eq(info.dev, controller_index("/soc/spi@2100000"));
	/* The kernel's mode from the DT is kept. */
	ck_assert_uint_eq(info.mode, 0x3);
	offload_spi_close(spi);
}
END_TEST

START_TEST(open_dt_errors)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;

	offload_spi_opts_init(&o);
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/nope", NULL, &spi), -ENOENT,
		      "no node /soc/nope in the device tree (file:");
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000", NULL, &spi), -EINVAL,
		      "is an SPI controller; set opts.chip_select");
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/i2c@2000000/sensor@48", NULL, &spi), -EINVAL,
		      "neither an SPI controller nor a peripheral node under one");
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000/slave", NULL, &spi), -EINVAL,
		      "has no reg property");
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000/dev@2", NULL, &spi), -ENODEV,
		      "/soc/spi@2100000/dev@2 is disabled (status = \"disabled\")");
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2120000/bad@3", NULL, &spi), -EINVAL,
		      "combines 3WIRE with dual/quad lanes");

	o.chip_select = 0;
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000/dev@0", &o, &spi), -EINVAL,
		      "is not an SPI controller node");
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2110000", &o, &spi), -ENODEV,
		      "SPI controller /soc/spi@2110000 is disabled (status = \"disabled\")");
	o.chip_select = 2;
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000", &o, &spi), -ENODEV, "is disabled");
	o.chip_select = 4;
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000", &o, &spi), -EINVAL,
		      "chip_select 4 is out of range: /soc/spi@2100000 declares 4 chip selects");
	/* No spidev bound: the message says what was tried. */
	o.chip_select = 1;
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2120000", &o, &spi), -ENODEV,
		      "no backend can reach /soc/spi@2120000: "
#ifdef OFFLOAD_HAVE_DSPI
		      "dspi: not a DSPI controller; "
#endif
		      "spidev: none of the 0 spidev node(s)");
	ck_assert_ptr_null(spi);
}
END_TEST

START_TEST(open_dt_path_without_device_tree)
{
	offload_ctx *c2 = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_spi *spi = NULL;

	ck_assert_err(c2, offload_spi_open(c2, "/soc/spi@2100000/dev@0", NULL, &spi), -ENOENT,
		      "the context has no device tree");
	offload_ctx_free(c2);
}
END_TEST

int main(void)
{
	spi_fixture_dtb();
	Suite *s = suite_create("spi_dt");
	TCase *tc = tcase_create("dt");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, children_properties);
	tcase_add_test(tc, children_counts_and_bad_args);
	tcase_add_test(tc, open_child_node);
	tcase_add_test(tc, open_gpio_cs_keeps_kernel_cs_high);
	tcase_add_test(tc, open_controller_and_chip_select);
	tcase_add_test(tc, open_controller_without_child);
	tcase_add_test(tc, open_dt_lanes);
	tcase_add_test(tc, open_spidev_path_finds_dt_node);
	tcase_add_test(tc, open_dt_errors);
	tcase_add_test(tc, open_dt_path_without_device_tree);
	suite_add_tcase(s, tc);
	return test_run(s);
}
