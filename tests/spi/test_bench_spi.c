/* SPDX-License-Identifier: MIT */
/*
 * offloadctl bench spi against the spidev stand-in: spidev_test's options
 * and line shapes (tools/spi/spidev_test.c), the rate lines, the summary, --json and
 * the loop-back verification. The command's code is linked into this
 * program (not main.c), with stdout and stderr captured.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spitest.h"

static char *sys;

struct result {
	int code;
	char *out, *err;
};

static char *slurp(FILE *f)
{
	long n;

	fflush(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	char *s = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq((long)fread(s, 1, (size_t)n, f), n);
	fclose(f);
	return s;
}

/* Run "offloadctl bench spi ARGS..." in this process. */
static struct result bench(const char *first, ...)
{
	char *argv[40];
	int argc = 0;
	va_list ap;
	struct result r;

	argv[argc++] = (char *)"spi";
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	FILE *fo = tmpfile(), *fe = tmpfile();
	ck_assert(fo && fe);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	struct cli cli = { .prog = "offloadctl", .cmd = "bench" };
	r.code = bench_spi(&cli, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	r.out = slurp(fo);
	r.err = slurp(fe);
	return r;
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

static struct fake_spi *device(void (*cfg_fn)(struct fake_spi_cfg *), bool corrupt)
{
	struct fake_spi_cfg c;

	cfg_fn(&c);
	c.corrupt_rx = corrupt;
	return fake_spi_add("/dev/spidev0.0", &c);
}

static void setup(void)
{
	sys = fakesys_new();
	fakesys_bufsiz(sys, "4096\n");
}

static void teardown(void)
{
	fake_spi_reset();
	fakesys_free(sys);
}

#define HEADER(mode, hz, khz)                                                                     \
	"spi mode: " mode "\nbits per word: 8\nmax speed: " hz " Hz (" khz " kHz)\n"             \
	"backend: spidev, chip select 0, 4096 bytes per message (longer ones are split)\n"

#define PAD29 "__ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ __ "

START_TEST(pattern_verbose)
{
	struct fake_spi *d = device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-p", "\\x01AB", "-v", NULL);

	ck_assert_msg(r.code == 0, "%d: %s", r.code, r.err);
	ck_assert_str_eq(r.out, HEADER("0x0", "500000", "500") "TX | 01 41 42 " PAD29 " |.AB|\n"
							   "RX | 01 41 42 " PAD29 " |.AB|\n");
	/* spidev_test's setup: mode 0 written, then 8 bits, then 500 kHz last. */
	ck_assert_uint_eq(d->mode, 0);
	ck_assert_str_eq(d->last_setup, "speed");
	ck_assert_uint_eq(d->sck_hz, 500000);
	ck_assert_str_eq(fake_spi_trace(d), " CS+ [8b 500000Hz tx1 rx1 wd0] 014142 CS-");
	ck_assert_uint_eq(d->messages, 1);
	ck_assert_uint_eq(d->last[0].len, 3);
	result_free(&r);
}
END_TEST

START_TEST(default_message_looped)
{
	struct fake_spi *d = device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "--loop", "-v", NULL);
	const char *line = "| FF FF FF FF FF FF 40 00 00 00 00 95 FF FF FF FF FF FF FF FF FF FF FF FF FF "
			   "FF FF FF FF FF F0 0D  |......@.........................|\n";
	char want[1024];

	snprintf(want, sizeof(want), HEADER("0x20", "500000", "500") "TX %sRX %s", line, line);
	ck_assert_msg(r.code == 0, "%d: %s", r.code, r.err);
	ck_assert_str_eq(r.out, want);
	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_LOOP);
	result_free(&r);
}
END_TEST

START_TEST(size_run_json)
{
	struct fake_spi *d = device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-S", "64", "-I", "10", "--json",
				NULL);

	ck_assert_msg(r.code == 0, "%d: %s", r.code, r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "\"device\":\"/dev/spidev0.0\",\"backend\":\"spidev\","
					    "\"sim\":false,\"mode\":0,\"bits_per_word\":8,"
					    "\"max_speed_hz\":500000,\"size\":64,\"iterations\":10,"
					    "\"tx_bytes\":640,\"rx_bytes\":640,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"verified\":true}\n"));
	ck_assert_ptr_null(strstr(r.out, "rate:")); /* JSON only on stdout */
	ck_assert_uint_eq(d->messages, 10);
	ck_assert_uint_eq(d->last[0].len, 64);
	result_free(&r);
}
END_TEST

START_TEST(rate_lines_and_summary)
{
	device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-S", "32", "-I", "5",
				"--interval", "0", NULL);
	int lines = 0;

	ck_assert_msg(r.code == 0, "%d: %s", r.code, r.err);
	for (char *p = strstr(r.out, "rate: "); p; p = strstr(p + 1, "rate: ")) {
		double tx, rx;
		char tail[8] = "";
		ck_assert_int_eq(sscanf(p, "rate: tx %lfkbps, rx %lfkbps%1[\n]", &tx, &rx, tail), 3);
		ck_assert(tx > 0);
		ck_assert(tx == rx);
		lines++;
	}
	ck_assert_int_eq(lines, 5); /* --interval 0: one line per transfer */
	/* 160 bytes = 0.15625 KiB, printed with one decimal as spidev_test does. */
	ck_assert_ptr_nonnull(strstr(r.out, "total: tx 0.2KB, rx 0.2KB\nsummary: 160 bytes in "));
	ck_assert_ptr_nonnull(strstr(r.out, "5 transfers of 32 bytes"));
	ck_assert_ptr_nonnull(strstr(r.out, "noise +-"));
	ck_assert_ptr_nonnull(strstr(r.out, "sample stddev of 5 interval rates"));
	ck_assert_ptr_nonnull(strstr(r.out, "data verified (rx == tx for every transfer); spidev backend\n"));
	result_free(&r);
}
END_TEST

START_TEST(mismatch_fails)
{
	struct fake_spi *d = device(fake_spi_cfg_default, true);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-S", "16", "-I", "3", NULL);

	ck_assert_int_eq(r.code, 1);
	ck_assert_str_eq(r.err, "transfer error !\n");
	ck_assert_ptr_nonnull(strstr(r.out, "\nTX | "));
	ck_assert_ptr_nonnull(strstr(r.out, "\nRX | "));
	ck_assert_ptr_null(strstr(r.out, "summary:"));
	ck_assert_uint_eq(d->messages, 1);
	result_free(&r);

	fake_spi_reset();
	device(fake_spi_cfg_default, true);
	r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-S", "16", "-I", "3", "--no-verify", NULL);
	ck_assert_int_eq(r.code, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "data not verified (--no-verify)"));
	result_free(&r);

	fake_spi_reset();
	device(fake_spi_cfg_default, true);
	r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-p", "abc", "--verify", NULL);
	ck_assert_int_eq(r.code, 1);
	ck_assert_str_eq(r.err, "transfer error !\n");
	result_free(&r);
}
END_TEST

START_TEST(input_and_output_files)
{
	char in[] = "/tmp/offload-bench-in-XXXXXX", out[] = "/tmp/offload-bench-out-XXXXXX";
	uint8_t data[100];
	int fi = mkstemp(in), fo = mkstemp(out);

	ck_assert(fi >= 0 && fo >= 0);
	for (int i = 0; i < 100; i++)
		data[i] = (uint8_t)(i * 37 + 1);
	ck_assert_int_eq(write(fi, data, sizeof(data)), 100);
	close(fi);
	close(fo);
	struct fake_spi *d = device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-i", in, "-o", out, "--loop",
				NULL);
	ck_assert_msg(r.code == 0, "%d: %s", r.code, r.err);
	ck_assert_uint_eq(d->last[0].len, 100);
	FILE *f = fopen(out, "rb");
	uint8_t got[200];
	ck_assert_int_eq((int)fread(got, 1, sizeof(got), f), 100);
	fclose(f);
	ck_assert_mem_eq(got, data, 100);
	unlink(in);
	unlink(out);
	result_free(&r);
}
END_TEST

START_TEST(usage_errors)
{
	struct { const char *a, *b, *c, *d; const char *msg; } cases[] = {
		{ "-p", "x", "-i", "/etc/hostname", "only one of -p and --input may be selected" },
		{ "-p", "\\xZZ", NULL, NULL, "malformed input string" },
		{ "--bogus", NULL, NULL, NULL, "unknown option '--bogus'" },
		{ "-s", "fast", NULL, NULL, "-s/--speed \"fast\": expected a whole number 1..4294967295" },
		{ "-b", "33", NULL, NULL, "-b/--bpw \"33\": out of range: expected a whole number 1..32" },
		{ "-S", "-1", NULL, NULL, "-S/--size \"-1\"" },
		{ "--interval", "x", NULL, NULL, "--interval \"x\"" },
		{ "extra", NULL, NULL, NULL, "unexpected argument 'extra'" },
	};

	device(fake_spi_cfg_default, false);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", cases[i].a, cases[i].b,
					cases[i].c, cases[i].d, NULL);
		ck_assert_msg(r.code == 2, "case %zu: %d", i, r.code);
		ck_assert_msg(strstr(r.err, cases[i].msg) != NULL, "case %zu: %s", i, r.err);
		result_free(&r);
	}
	struct result r = bench("--help", NULL);
	ck_assert_int_eq(r.code, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: offloadctl bench spi"));
	result_free(&r);
}
END_TEST

START_TEST(size_without_iterations_sends_nothing)
{
	struct fake_spi *d = device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-S", "16", NULL);

	ck_assert_int_eq(r.code, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "total: tx 0.0KB, rx 0.0KB\n"));
	ck_assert_uint_eq(d->messages, 0);
	result_free(&r);
}
END_TEST

START_TEST(mode_flags_and_lanes)
{
	struct fake_spi *d = device(fake_spi_cfg_default, false);
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-H", "-O", "-L", "-s",
				"2000000", NULL);

	ck_assert_int_eq(r.code, 0);
	ck_assert_ptr_nonnull(strstr(r.out, HEADER("0xb", "2000000", "2000")));
	ck_assert_uint_eq(d->mode, 0xb);
	result_free(&r);

	/* --dual without --loop: TX only on two lanes, nothing to verify. */
	r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-2", "-S", "8", "-I", "2", NULL);
	ck_assert_msg(r.code == 0, "%s", r.err);
	ck_assert_uint_eq(d->mode, OFFLOAD_SPI_TX_DUAL);
	ck_assert_uint_eq(d->last[0].tx_nbits, 2);
	ck_assert_uint_eq(d->last[0].rx_buf, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "total: tx 0.0KB, rx 0.0KB"));
	ck_assert_ptr_nonnull(strstr(r.out, "data not verified (no rx"));
	result_free(&r);

	/* 12-bit words: the 4 unused top bits of each 16-bit word are not sent. */
	fake_spi_trace_clear(d);
	r = bench("--dtb", "none", "-D", "/dev/spidev0.0", "-b", "12", "-S", "64", "-I", "3", NULL);
	ck_assert_msg(r.code == 0, "%s", r.err);
	ck_assert_uint_eq(d->last[0].bits_per_word, 12);
	const char *hex = strstr(fake_spi_trace(d), "[12b 500000Hz tx1 rx1 wd0] ");
	ck_assert_ptr_nonnull(hex);
	hex += strlen("[12b 500000Hz tx1 rx1 wd0] ");
	for (int i = 0; i < 32; i++) {
		unsigned b0, b1;
		ck_assert_int_eq(sscanf(hex + 4 * i, "%2x%2x", &b0, &b1), 2);
		uint8_t pair[2] = { (uint8_t)b0, (uint8_t)b1 };
		uint16_t word;
		memcpy(&word, pair, 2);
		ck_assert_uint_le(word, 0x0fff);
	}
	result_free(&r);
}
END_TEST

START_TEST(dt_node_device)
{
	const char *dtb = spi_fixture_dtb();
	struct fake_spi_cfg c;

	fake_spi_cfg_dspi(&c);
	struct fake_spi *d = fake_spi_add("/dev/spidev0.0", &c);
	fakesys_add_spidev(sys, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/dev@0", "fsl-dspi");
	struct result r = bench("--dtb", dtb, "-D", "/soc/spi@2100000/dev@0", "-S", "32", "-I", "2", NULL);
	ck_assert_msg(r.code == 0, "%s", r.err);
	/* The DT's mode 3 and 10 MHz, not spidev_test's defaults. */
	ck_assert_ptr_nonnull(strstr(r.out, HEADER("0x3", "10000000", "10000")));
	ck_assert_uint_eq(d->sck_hz, 10000000);
	result_free(&r);
}
END_TEST

START_TEST(open_failure)
{
	struct result r = bench("--dtb", "none", "-D", "/dev/spidev7.7", NULL);

	ck_assert_int_eq(r.code, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot open /dev/spidev7.7"));
	ck_assert_str_eq(r.out, "");
	result_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench_spi");
	TCase *tc = tcase_create("bench");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pattern_verbose);
	tcase_add_test(tc, default_message_looped);
	tcase_add_test(tc, size_run_json);
	tcase_add_test(tc, rate_lines_and_summary);
	tcase_add_test(tc, mismatch_fails);
	tcase_add_test(tc, input_and_output_files);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, size_without_iterations_sends_nothing);
	tcase_add_test(tc, mode_flags_and_lanes);
	tcase_add_test(tc, dt_node_device);
	tcase_add_test(tc, open_failure);
	suite_add_tcase(s, tc);
	return test_run(s);
}
