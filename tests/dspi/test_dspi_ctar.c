/* SPDX-License-Identifier: MIT */
/*
 * DSPI clock arithmetic (src/hw/dspi.h) against values computed by hand from
 * spi-fsl-dspi.c hz_to_spi_baud() and ns_delay_scale(), and where the protocol clock comes from
 * (src/dt/clock.c, backends/dspi/clock.c).
 *
 * The rules, as hw/dspi.h topic 4 states them:
 *   SCK = fP / PBR x (1 + DBR) / BR, PBR in {2, 3, 5, 7},
 *   BR in {2, 4, 6, 8, 16, 32, ..., 32768};
 *   need = ceil(fP / asked); for each BR in table order take the first PBR
 *   whose product reaches need; keep the strictly smallest product (ties:
 *   the earlier BR). Delays: need = ceil(ns x fP / 1e9), prescaler
 *   {1, 3, 5, 7} x scaler 2^(code + 1), smallest product wins.
 * Each case below shows that search done by hand.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/dspi/dspi.h"
#include "hw/dspi.h"
#include "testutil.h"

struct baud_case {
	uint64_t fp;
	uint32_t hz;
	uint8_t pbr_code, br_code;
	uint64_t sck_mhz; /* fP x 1000 / (PBR x BR), rounded down */
};

/* The five worked examples of hw/dspi.h topic 4, then more. */
static const struct baud_case baud_cases[] = {
	/* 100 MHz, 10 MHz: need 10. BR 2: PBR 2->4, 3->6, 5->10 (10). BR 4: 2->8, 3->12 (12).
	 * BR 6: 2->12. BR 8: 2->16. Smallest 10: PBR 5 (code 2), BR 2 (code 0); 100/10 = 10 MHz. */
	{ 100000000, 10000000, 2, 0, 10000000000ull },
	/* 100 MHz, 1 MHz: need 100. BR 2..8 reach at most 7 x 8 = 56. BR 16: 2->32, 3->48,
	 * 5->80, 7->112 (112). BR 32: 2->64, 3->96, 5->160 (160). BR 64: 2->128 (128). BR 128:
	 * 256. Smallest 112: PBR 7 (3), BR 16 (4); 100e6 / 112 = 892857.142 Hz. */
	{ 100000000, 1000000, 3, 4, 892857142ull },
	/* 250 MHz, 10 MHz: need 25. BR 2: max 14. BR 4: 2->8, 3->12, 5->20, 7->28 (28).
	 * BR 6: 2->12, 3->18, 5->30 (30). BR 8: 2->16, 3->24, 5->40 (40). BR 16: 2->32 (32).
	 * Smallest 28: PBR 7 (3), BR 4 (1); 250e6 / 28 = 8928571.428 Hz. */
	{ 250000000, 10000000, 3, 1, 8928571428ull },
	/* 200 MHz, 50 MHz: need 4. BR 2: PBR 2->4 (4), nothing smaller exists. 50 MHz. */
	{ 200000000, 50000000, 0, 0, 50000000000ull },
	/* 150 MHz, 50 MHz: need 3. BR 2, PBR 2 -> 4 is the smallest product: 37.5 MHz. */
	{ 150000000, 50000000, 0, 0, 37500000000ull },
	/* 200 MHz, 10 MHz: need 20. BR 2: max 14. BR 4: 2->8, 3->12, 5->20 (20). BR 6: 2->12,
	 * 3->18, 5->30 (30). BR 8: 2->16, 3->24 (24). BR 16: 32. Smallest 20: PBR 5 (2),
	 * BR 4 (1): 10 MHz exactly (the virtual board's flash). */
	{ 200000000, 10000000, 2, 1, 10000000000ull },
	/* 200 MHz, 25 MHz: need 8. BR 2: 2->4, 3->6, 5->10 (10). BR 4: 2->8 (8). Smallest 8:
	 * PBR 2 (0), BR 4 (1): 25 MHz (the virtual board's loopback, fP / 8). */
	{ 200000000, 25000000, 0, 1, 25000000000ull },
	/* 200 MHz, 3 MHz (U-Boot's LS1028A-QDS flashes): need ceil(66.67) = 67. BR 8: max 56.
	 * BR 16: 2->32, 3->48, 5->80 (80). BR 32: 2->64, 3->96 (96). BR 64: 2->128. Smallest 80:
	 * PBR 5 (2), BR 16 (4): 2.5 MHz, slower than asked as the rule requires. */
	{ 200000000, 3000000, 2, 4, 2500000000ull },
	/* 200 MHz, 1 MHz: need 200. BR 16: max 112. BR 32: 2->64, 3->96, 5->160, 7->224 (224).
	 * BR 64: 2->128, 3->192, 5->320 (320). BR 128: 2->256 (256). Smallest 224: PBR 7 (3),
	 * BR 32 (5); 200e6 / 224 = 892857.142 Hz. */
	{ 200000000, 1000000, 3, 5, 892857142ull },
	/* Tie: 120 MHz, 10 MHz: need 12. BR 2: 2->4, 3->6, 5->10, 7->14 (14). BR 4: 2->8,
	 * 3->12 (12). BR 6: 2->12 (12, not strictly smaller: BR 4 stays). Answer PBR 3 (1),
	 * BR 4 (1): 10 MHz. */
	{ 120000000, 10000000, 1, 1, 10000000000ull },
	/* 200 MHz, 1 kHz: need 200000. Only BR 32768 with PBR 7 reaches it (229376; PBR 5 gives
	 * 163840). 200e6 / 229376 = 871.930 Hz. */
	{ 200000000, 1000, 3, 15, 871930ull },
	/* 66 MHz (the fixture's VF610), 33 MHz asked: need 2; the smallest product is 4:
	 * 16.5 MHz. */
	{ 66000000, 33000000, 0, 0, 16500000000ull },
};

START_TEST(baud_selection)
{
	for (size_t i = 0; i < sizeof(baud_cases) / sizeof(baud_cases[0]); i++) {
		const struct baud_case *c = &baud_cases[i];
		uint8_t pbr = 0xFF, br = 0xFF;
		uint32_t div = dspi_baud_select(c->fp, c->hz, false, &pbr, &br);
		ck_assert_msg(div != 0, "case %zu: no pair", i);
		ck_assert_msg(pbr == c->pbr_code && br == c->br_code, "case %zu: PBR %u BR %u", i, pbr, br);
		uint32_t ctar = DSPI_CTAR_PBR(pbr) | DSPI_CTAR_BR(br);
		ck_assert_uint_eq(dspi_ctar_sck_mhz(c->fp, ctar), c->sck_mhz);
		/* never faster than asked */
		ck_assert(dspi_ctar_sck_mhz(c->fp, ctar) <= (uint64_t)c->hz * 1000u);
	}
}
END_TEST

START_TEST(baud_out_of_range)
{
	uint8_t pbr = 0, br = 0;

	/* 200 MHz, 800 Hz: need 250000 > 7 x 32768 = 229376: no pair (Linux would fall back
	 * to PBR 7 / BR 32768, i.e. 871.9 Hz, faster than asked). */
	ck_assert_uint_eq(dspi_baud_select(200000000, 800, false, &pbr, &br), 0);
	ck_assert_uint_eq(dspi_baud_select(200000000, 0, false, &pbr, &br), 0);
	/* asked above fP: need 1, the smallest pair (4) */
	ck_assert_uint_eq(dspi_baud_select(200000000, 400000000, false, &pbr, &br), 4);
}
END_TEST

/* The slowest SCK in millihertz, rounded up, computed by hand. */
START_TEST(min_sck_rounded_up)
{
	/* 200e6 / 229376 = 871.9308.. Hz: 871930.8.. mHz -> 871931 */
	ck_assert_uint_eq(dspi_min_sck_mhz(200000000), 871931);
	/* 229376 Hz / 229376 = exactly 1 Hz */
	ck_assert_uint_eq(dspi_min_sck_mhz(229376), 1000);
	/* 1 Hz / 229376 = 0.00436 mHz -> 1 mHz; 0 stays 0 */
	ck_assert_uint_eq(dspi_min_sck_mhz(1), 1);
	ck_assert_uint_eq(dspi_min_sck_mhz(0), 0);
	/* 4e9 = 229376 x 17438 + 141312; 141312 / 229376 = 0.6160.. -> 17438617 mHz */
	ck_assert_uint_eq(dspi_min_sck_mhz(4000000000ull), 17438617);
}
END_TEST

START_TEST(baud_mtf)
{
	uint8_t pbr = 0, br = 0;

	/* S32G MTF (DBR = 1): products are halved. 80 MHz, 40 MHz: need 2; BR 2 x PBR 2 = 4,
	 * halved 2 >= 2. SCK = 80 MHz x 2 / 4 = 40 MHz. */
	ck_assert_uint_eq(dspi_baud_select(80000000, 40000000, true, &pbr, &br), 4);
	ck_assert_uint_eq(pbr, 0);
	ck_assert_uint_eq(br, 0);
	ck_assert_uint_eq(dspi_ctar_sck_mhz(80000000, DSPI_CTAR_DBR | DSPI_CTAR_PBR(0) | DSPI_CTAR_BR(0)),
			  40000000000ull);
	/* 80 MHz, 30 MHz: need 3. BR 2: 2->2, 3->3 (3). So PBR 3, BR 2, DBR: 80 x 2 / 6 = 26.67 MHz. */
	ck_assert_uint_eq(dspi_baud_select(80000000, 30000000, true, &pbr, &br), 6);
	ck_assert_uint_eq(pbr, 1);
	ck_assert_uint_eq(br, 0);
}
END_TEST

struct delay_case {
	uint64_t fp;
	uint32_t ns;
	uint8_t psc, sc;
	uint32_t clocks; /* prescaler x scaler */
};

static const struct delay_case delay_cases[] = {
	/* hw/dspi.h topic 4: 25 ns at 100 MHz: need ceil(2.5) = 3; x1: 2, 4 (4); x3: 6; x5: 10; x7: 14.
	 * Smallest 4: prescaler 1 (0), scaler 4 (1): 40 ns. */
	{ 100000000, 25, 0, 1, 4 },
	/* 25 ns at 250 MHz: need ceil(6.25) = 7; x1: 8 (code 2); x3: 12; x5: 10; x7: 14. 8 -> 32 ns. */
	{ 250000000, 25, 0, 2, 8 },
	/* 100 ns at 200 MHz (the virtual board's flash setup delay): need 20; x1: 32 (code 4);
	 * x3: 6, 12, 24 (code 2); x5: 10, 20 (code 1); x7: 14, 28. Smallest 20: 5 (2), 4 (1). */
	{ 200000000, 100, 2, 1, 20 },
	/* 50 ns at 200 MHz (its hold delay): need 10; x1: 16; x3: 12; x5: 10 (code 0); x7: 14.
	 * Prescaler 5 (2), scaler 2 (0). */
	{ 200000000, 50, 2, 0, 10 },
	/* 10 ns at 200 MHz (the quarter period at 25 MHz): need 2: x1, scaler 2 (0, 0). */
	{ 200000000, 10, 0, 0, 2 },
	/* 0 ns: need 0: the first pair, x1 x 2. */
	{ 200000000, 0, 0, 0, 2 },
	/* 1 us at 150 MHz: need 150; x1: 256 (code 7); x3: 192 (code 5: 3 x 64); x5: 160 (code 4:
	 * 5 x 32); x7: 224 (code 4: 7 x 32). Smallest 160: prescaler 5 (2), scaler 32 (4). */
	{ 150000000, 1000, 2, 4, 160 },
};

START_TEST(delay_selection)
{
	for (size_t i = 0; i < sizeof(delay_cases) / sizeof(delay_cases[0]); i++) {
		const struct delay_case *c = &delay_cases[i];
		uint8_t psc = 0xFF, sc = 0xFF;
		ck_assert(dspi_delay_select(c->fp, c->ns, &psc, &sc));
		ck_assert_msg(psc == c->psc && sc == c->sc, "case %zu: %u %u", i, psc, sc);
		uint32_t ctar = DSPI_CTAR_PCSSCK(psc) | DSPI_CTAR_CSSCK(sc) | DSPI_CTAR_PASC(psc) |
				DSPI_CTAR_ASC(sc);
		ck_assert_uint_eq(dspi_ctar_tcsc_clocks(ctar), c->clocks);
		ck_assert_uint_eq(dspi_ctar_tasc_clocks(ctar), c->clocks);
	}
	/* 3 ms at 200 MHz: need 600000 > 7 x 65536 = 458752: clipped to the largest pair */
	uint8_t psc = 0, sc = 0;
	ck_assert(!dspi_delay_select(200000000, 3000000, &psc, &sc));
	ck_assert_uint_eq(psc, 3);
	ck_assert_uint_eq(sc, 15);
}
END_TEST

START_TEST(quarter_period)
{
	/* ceil(ceil(1e9 / hz) / 4): 10 MHz: 100 ns -> 25; 25 MHz: 40 -> 10; 3 MHz: 334 -> 84;
	 * 1 MHz: 1000 -> 250; 33 MHz: ceil(30.3) = 31 -> 8. */
	ck_assert_uint_eq(dspi_quarter_period_ns(10000000), 25);
	ck_assert_uint_eq(dspi_quarter_period_ns(25000000), 10);
	ck_assert_uint_eq(dspi_quarter_period_ns(3000000), 84);
	ck_assert_uint_eq(dspi_quarter_period_ns(1000000), 250);
	ck_assert_uint_eq(dspi_quarter_period_ns(33000000), 8);
}
END_TEST

START_TEST(frame_size_fields)
{
	/* FMSZ = bits - 1 in CTAR 30:27; XSPI's 5th bit in CTARE 16 (hw/dspi.h topic 3.4, 3.8) */
	ck_assert_uint_eq(dspi_ctar_fmsz_bits(8), 7u << 27);
	ck_assert_uint_eq(dspi_ctar_fmsz_bits(16), 15u << 27);
	ck_assert_uint_eq(dspi_ctar_fmsz_bits(4), 3u << 27);
	ck_assert_uint_eq(dspi_ctare_fmsze_bits(16), 0);
	ck_assert_uint_eq(dspi_ctar_fmsz_bits(17), 0);
	ck_assert_uint_eq(dspi_ctare_fmsze_bits(17), 1u << 16);
	ck_assert_uint_eq(dspi_ctar_fmsz_bits(32), 15u << 27);
	ck_assert_uint_eq(dspi_ctare_fmsze_bits(32), 1u << 16);
	ck_assert_uint_eq(DSPI_SR_CLEAR, 0x8AAF0000u); /* the Linux value, bit by bit in hw/dspi.h topic 3.5 */
}
END_TEST

/* ------------------------------------------------------------- the protocol clock */

static void *load(const char *path)
{
	FILE *f = fopen(path, "rb");
	/* libfdt wants the blob 8-byte aligned; a char array is not on 32-bit ARM */
	static _Alignas(8) char blob[1 << 18];

	if (!f)
		return NULL;
	size_t n = fread(blob, 1, sizeof(blob), f);
	fclose(f);
	return n ? blob : NULL;
}

START_TEST(clock_from_fixture)
{
	const void *fdt = load(DSPI_FIXTURE_DTB);
	char how[320];
	uint64_t hz = 0;

	ck_assert_ptr_nonnull(fdt);
	/* fixed-factor 1/2 of a 132 MHz fixed clock */
	ck_assert_int_eq(dspi_clock_from_dt(fdt, fdt_path_offset(fdt, "/soc/spi@2100000"), false, &hz,
						how, sizeof(how)), 0);
	ck_assert_uint_eq(hz, 66000000);
	/* clock-frequency on the node */
	ck_assert_int_eq(dspi_clock_from_dt(fdt, fdt_path_offset(fdt, "/soc/spi@2110000"), false, &hz,
						how, sizeof(how)), 0);
	ck_assert_uint_eq(hz, 150000000);
	ck_assert_ptr_nonnull(strstr(how, "clock-frequency"));
}
END_TEST

START_TEST(clock_ls1028a)
{
	char path[600], how[320];
	uint64_t hz = 0;
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");

	snprintf(path, sizeof(path), "%s/fsl-ls1028a-qds.dtb", dir ? dir : "");
	const void *fdt = load(path);
	if (!fdt) {
		printf("SKIP: %s not available\n", path);
		return;
	}
	int node = fdt_path_offset(fdt, "/soc/spi@2100000");
	/* a live LS1028A: clockgen <4 1> has no rate in the tree */
	ck_assert_int_eq(dspi_clock_from_dt(fdt, node, false, &hz, how, sizeof(how)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(how, "clock-controller@1300000 <4 1>"));
	/* its twin: SYSCLK (fixed 100 MHz in the tree) x 4 / 2, labelled as an assumption */
	ck_assert_int_eq(dspi_clock_from_dt(fdt, node, true, &hz, how, sizeof(how)), 0);
	ck_assert_uint_eq(hz, 200000000);
	ck_assert_ptr_nonnull(strstr(how, "ASSUMED"));
}
END_TEST

START_TEST(clk_summary)
{
	/* The Linux >= 6.9 clk_summary layout (drivers/clk/clk.c clk_summary_show_one):
	 * name, enable, prepare, protect, rate, accuracy, phase, duty, hw enable, consumer,
	 * connection id; a clock's further consumers on lines of their own. */
	char path[] = "/tmp/dspi-clk-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	uint64_t hz = 0;

	ck_assert_ptr_nonnull(f);
	fputs("                                 enable  prepare  protect                                "
	      "duty  hardware                            connection\n"
	      "   clock                          count    count    count        rate   accuracy phase  "
	      "cycle    enable   consumer                         id\n"
	      "-----------------------------------------------------------------------------------------\n"
	      " sysclk                           1       1        0        100000000   0          0     "
	      "50000      Y   deviceless                      no_connection_id\n"
	      "    platform-pll                  1       1        0        400000000   0          0     "
	      "50000      Y   deviceless                      no_connection_id\n"
	      "       platform-pll-div2          3       3        0        200000000   0          0     "
	      "50000      Y   2000000.i2c                     no_connection_id\n"
	      "                                                                                         "
	      "                 2100000.spi                     dspi\n"
	      "       platform-pll-div4          0       0        0        100000000   0          0     "
	      "50000      Y   2200000.spi                     dspi\n",
	      f);
	fclose(f);
	ck_assert_int_eq(dspi_clk_summary_rate(path, "2100000.spi", &hz), 0);
	ck_assert_uint_eq(hz, 200000000);
	ck_assert_int_eq(dspi_clk_summary_rate(path, "2200000.spi", &hz), 0);
	ck_assert_uint_eq(hz, 100000000);
	ck_assert_int_eq(dspi_clk_summary_rate(path, "2000000.i2c", &hz), 0);
	ck_assert_uint_eq(hz, 200000000);
	ck_assert_int_eq(dspi_clk_summary_rate(path, "2110000.spi", &hz), -ENOENT);
	unlink(path);
	ck_assert_int_eq(dspi_clk_summary_rate(path, "2100000.spi", &hz), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dspi_ctar");
	TCase *t = tcase_create("arithmetic");
	tcase_add_test(t, baud_selection);
	tcase_add_test(t, baud_out_of_range);
	tcase_add_test(t, min_sck_rounded_up);
	tcase_add_test(t, baud_mtf);
	tcase_add_test(t, delay_selection);
	tcase_add_test(t, quarter_period);
	tcase_add_test(t, frame_size_fields);
	suite_add_tcase(s, t);
	t = tcase_create("clock");
	tcase_add_test(t, clock_from_fixture);
	tcase_add_test(t, clock_ls1028a);
	tcase_add_test(t, clk_summary);
	suite_add_tcase(s, t);
	return test_run(s);
}
