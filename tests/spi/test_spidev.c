/* SPDX-License-Identifier: MIT */
/*
 * spidev backend: messages larger than spidev takes in one SPI_IOC_MESSAGE
 * are split where the wire stays the same, and refused where it would not.
 *
 * Expected numbers are computed from the kernel rules (spidev.c bufsiz and
 * spidev_message(), spi.c __spi_validate(), ARCH_DMA_MINALIGN):
 * each transfer with a tx (rx) buffer uses ALIGN(len, ARCH_DMA_MINALIGN) of
 * a bufsiz-byte tx (rx) budget, and one ioctl carries at most 511
 * transfers. Wire equivalence is checked by sending the same message whole
 * to a device with a large bufsiz and comparing the stand-in's traces, or,
 * beyond 511 transfers, against a trace built here from the cs_change rule.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "spitest.h"

extern const struct ofl_backend ofl_backend_spidev, ofl_backend_dspi, ofl_backend_udma;

static offload_ctx *ctx;
static char *sys;

static void setup(void)
{
	unsetenv("OFFLOAD_SPIDEV_DMA_MINALIGN");
	spi_env_up(&ctx, &sys, OFFLOAD_DT_NONE, NULL);
}

static void teardown(void)
{
	spi_env_down(&ctx, &sys);
}

/* A device whose kernel side has this bufsiz and alignment; sysfs says the same. */
static struct fake_spi *device(const char *path, uint32_t bufsiz, uint32_t align)
{
	struct fake_spi_cfg c;
	char s[32];

	fake_spi_cfg_default(&c);
	c.bufsiz = bufsiz;
	c.dma_minalign = align;
	snprintf(s, sizeof(s), "%u\n", bufsiz);
	fakesys_bufsiz(sys, s);
	if (align != fake_spi_host_minalign()) {
		snprintf(s, sizeof(s), "%u", align);
		setenv("OFFLOAD_SPIDEV_DMA_MINALIGN", s, 1);
	} else {
		unsetenv("OFFLOAD_SPIDEV_DMA_MINALIGN");
	}
	return fake_spi_add(path, &c);
}

static offload_spi *open_flags(const char *path, uint32_t flags)
{
	struct offload_spi_opts o;

	offload_spi_opts_init(&o);
	o.flags = flags;
	return spi_open_ok(ctx, path, &o);
}

/* Send x whole to a roomy device and split to a tight one; the wires must match. */
static void check_same_wire(struct offload_spi_xfer *x, unsigned n, uint32_t bufsiz, uint32_t align,
			    unsigned want_messages, uint32_t total)
{
	struct fake_spi *ref = device("/dev/spidev0.0", 1u << 24, align);
	offload_spi *whole = open_flags("/dev/spidev0.0", 0);
	struct fake_spi *tight = device("/dev/spidev0.1", bufsiz, align);
	offload_spi *split = open_flags("/dev/spidev0.1", 0);

	ck_assert_int_eq(offload_spi_transfer(whole, x, n), (int)total);
	ck_assert_uint_eq(ref->messages, 1);
	int r = offload_spi_transfer(split, x, n);
	ck_assert_msg(r == (int)total, "split: %d %s", r, offload_last_error(ctx));
	ck_assert_uint_eq(tight->messages, want_messages);
	ck_assert_str_eq(fake_spi_trace(tight), fake_spi_trace(ref));
	ck_assert(!tight->cs_active);
	offload_spi_close(whole);
	offload_spi_close(split);
}

static uint8_t *pattern(size_t len, unsigned seed)
{
	uint8_t *p = malloc(len);

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed);
	return p;
}

/* ------------------------------------------------------------------ budgets */

START_TEST(arm64_example_32_fit_33_do_not)
{
	/* arm64 (ARCH_DMA_MINALIGN 128) with spidev bufsiz 4096: 32 transfers of <= 128 bytes fit, 33 do not. */
	struct offload_spi_xfer x[33];
	uint8_t *tx = pattern(33 * 100, 1), *rx = calloc(33, 100);

	for (int i = 0; i < 33; i++)
		x[i] = (struct offload_spi_xfer){ .tx = tx + i * 100, .rx = rx + i * 100, .len = 100 };
	check_same_wire(x, 32, 4096, 128, 1, 3200);
	fake_spi_reset();
	check_same_wire(x, 33, 4096, 128, 2, 3300);
	ck_assert_mem_eq(rx, tx, 3300);

	/* The cut after transfer 31 keeps CS asserted: cs_change on the first message's last. */
	struct fake_spi *d = device("/dev/spidev0.2", 4096, 128);
	offload_spi *spi = open_flags("/dev/spidev0.2", 0);
	ck_assert_int_eq(offload_spi_transfer(spi, x, 33), 3300);
	ck_assert_uint_eq(d->messages, 2);
	ck_assert_uint_eq(d->msg_xfers[0], 32);
	ck_assert_uint_eq(d->msg_xfers[1], 1);
	ck_assert_uint_eq(d->msg_tx_budget[0], 4096);
	ck_assert_uint_eq(d->msg_rx_budget[0], 4096);
	ck_assert_uint_eq(d->msg_last_cs_change[0], 1);
	ck_assert_uint_eq(d->msg_last_cs_change[1], 0);
	offload_spi_close(spi);
	free(tx);
	free(rx);
}
END_TEST

START_TEST(host_alignment_packs_by_its_rounding)
{
	/* 100-byte transfers take 104 bytes each at 8-byte rounding: 39 * 104 = 4056 <= 4096 < 40 * 104. */
	struct offload_spi_xfer x[40];
	uint8_t *tx = pattern(4000, 3);

	for (int i = 0; i < 40; i++)
		x[i] = (struct offload_spi_xfer){ .tx = tx + i * 100, .len = 100 };
	struct fake_spi *d = device("/dev/spidev0.0", 4096, 8);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);
	ck_assert_int_eq(offload_spi_transfer(spi, x, 40), 4000);
	ck_assert_uint_eq(d->messages, 2);
	ck_assert_uint_eq(d->msg_xfers[0], 39);
	ck_assert_uint_eq(d->msg_xfers[1], 1);
	ck_assert_uint_eq(d->msg_tx_budget[0], 4056);
	ck_assert_uint_eq(d->msg_rx_budget[0], 0); /* tx only: no rx budget used */
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(one_long_transfer_is_cut_with_cs_held)
{
	/* 10000 bytes, bufsiz 4096: pieces 4096, 4096, 1808 under one chip select. */
	uint8_t *tx = pattern(10000, 5), *rx = calloc(1, 10000);
	struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = 10000, .delay_usecs = 9 };

	check_same_wire(&x, 1, 4096, 128, 3, 10000);
	ck_assert_mem_eq(rx, tx, 10000);
	fake_spi_reset();
	struct fake_spi *d = device("/dev/spidev0.3", 4096, 128);
	offload_spi *spi = open_flags("/dev/spidev0.3", 0);
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 10000);
	ck_assert_uint_eq(d->messages, 3);
	ck_assert_uint_eq(d->msg_tx_budget[0], 4096);
	ck_assert_uint_eq(d->msg_tx_budget[1], 4096);
	ck_assert_uint_eq(d->msg_tx_budget[2], 1920); /* ALIGN(1808, 128) */
	ck_assert_uint_eq(d->msg_last_cs_change[0], 1);
	ck_assert_uint_eq(d->msg_last_cs_change[1], 1);
	ck_assert_uint_eq(d->msg_last_cs_change[2], 0);
	/* The delay belongs after the last bit only. */
	ck_assert_uint_eq(d->last[0].delay_usecs, 9);
	ck_assert_uint_eq(d->last[0].len, 1808);
	offload_spi_close(spi);
	free(tx);
	free(rx);
}
END_TEST

START_TEST(long_transfer_fills_the_part_it_starts_in)
{
	/* 100 + 10000 bytes, bufsiz 4096, 8-byte rounding: [100, 3992], [4096], [1912]. */
	uint8_t *tx = pattern(10100, 21);
	struct offload_spi_xfer x[2] = { { .tx = tx, .len = 100 }, { .tx = tx + 100, .len = 10000 } };

	check_same_wire(x, 2, 4096, 8, 3, 10100);
	fake_spi_reset();
	struct fake_spi *d = device("/dev/spidev0.5", 4096, 8);
	offload_spi *spi = open_flags("/dev/spidev0.5", 0);
	ck_assert_int_eq(offload_spi_transfer(spi, x, 2), 10100);
	ck_assert_uint_eq(d->msg_xfers[0], 2);
	ck_assert_uint_eq(d->msg_tx_budget[0], 104 + 3992);
	ck_assert_uint_eq(d->msg_tx_budget[1], 4096);
	ck_assert_uint_eq(d->msg_tx_budget[2], 1912);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(cuts_at_cs_change_release_cs)
{
	/* Three 3000-byte transfers; CS toggles after the first two (cs_change). */
	uint8_t *tx = pattern(9000, 7);
	struct offload_spi_xfer x[3];

	for (int i = 0; i < 3; i++)
		x[i] = (struct offload_spi_xfer){ .tx = tx + i * 3000, .len = 3000, .cs_change = i < 2 };
	check_same_wire(x, 3, 4096, 8, 3, 9000);
	/* No cut needs CS held, so it works with OFFLOAD_SPI_OPEN_NO_CS_HOLD too. */
	fake_spi_reset();
	struct fake_spi *d = device("/dev/spidev0.4", 4096, 8);
	offload_spi *spi = open_flags("/dev/spidev0.4", OFFLOAD_SPI_OPEN_NO_CS_HOLD);
	ck_assert_int_eq(offload_spi_transfer(spi, x, 3), 9000);
	ck_assert_uint_eq(d->messages, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(d->msg_last_cs_change[i], 0);
	ck_assert(strstr(fake_spi_trace(d), "CS- CS+") != NULL);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(last_cs_change_survives_split)
{
	/* The caller's own cs_change on the message's last transfer keeps CS asserted afterwards. */
	uint8_t *tx = pattern(6000, 9);
	struct offload_spi_xfer x[2] = { { .tx = tx, .len = 3000 },
					 { .tx = tx + 3000, .len = 3000, .cs_change = 1 } };
	struct fake_spi *d = device("/dev/spidev0.0", 4096, 8);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);

	ck_assert_int_eq(offload_spi_transfer(spi, x, 2), 6000);
	ck_assert_uint_eq(d->messages, 2);
	ck_assert(d->cs_active);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(no_cs_hold_refuses_before_sending)
{
	uint8_t *tx = pattern(6000, 11);
	struct offload_spi_xfer x[2] = { { .tx = tx, .len = 3000 }, { .tx = tx + 3000, .len = 3000 } };
	struct fake_spi *d = device("/dev/spidev0.0", 4096, 8);
	offload_spi *spi = open_flags("/dev/spidev0.0", OFFLOAD_SPI_OPEN_NO_CS_HOLD);

	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EMSGSIZE,
		      "the cut after part 1 (after transfer 0) falls where chip select stays "
		      "asserted; the handle was opened with OFFLOAD_SPI_OPEN_NO_CS_HOLD");
	ck_assert_uint_eq(d->message_calls, 0);
	struct offload_spi_xfer one = { .tx = tx, .len = 5000 };
	ck_assert_err(ctx, offload_spi_transfer(spi, &one, 1), -EMSGSIZE, "(inside transfer 0)");
	ck_assert_uint_eq(d->message_calls, 0);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(tiny_bufsiz)
{
	uint8_t *tx = pattern(250, 13);
	struct offload_spi_xfer x = { .tx = tx, .len = 250 };

	/* bufsiz 100 with 128-byte rounding: no transfer with a buffer fits at all. */
	struct fake_spi *d = device("/dev/spidev0.0", 100, 128);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EMSGSIZE,
		      "100 bytes per direction per message with each transfer rounded up to 128");
	ck_assert_uint_eq(d->message_calls, 0);
	offload_spi_close(spi);

	/* bufsiz 100 with 8-byte rounding: pieces of 96, 96, 58. */
	fake_spi_reset();
	d = device("/dev/spidev0.0", 100, 8);
	spi = open_flags("/dev/spidev0.0", 0);
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 250);
	ck_assert_uint_eq(d->messages, 3);
	ck_assert_uint_eq(d->msg_tx_budget[0], 96);
	ck_assert_uint_eq(d->msg_tx_budget[2], 64);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(pieces_keep_whole_words)
{
	/* Rounding 1 and bufsiz 1001: a 32-bit-word transfer is cut in 1000-byte pieces. */
	uint8_t *tx = pattern(4000, 15);
	struct offload_spi_xfer x = { .tx = tx, .len = 4000, .bits_per_word = 32 };

	check_same_wire(&x, 1, 1001, 1, 4, 4000);
	fake_spi_reset();
	struct fake_spi *d = device("/dev/spidev0.0", 1001, 1);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4000);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(d->msg_tx_budget[i], 1000);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

START_TEST(bad_alignment_override)
{
	offload_spi *spi = NULL;

	device("/dev/spidev0.0", 4096, 8);
	setenv("OFFLOAD_SPIDEV_DMA_MINALIGN", "96", 1);
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev0.0", NULL, &spi), -EINVAL,
		      "OFFLOAD_SPIDEV_DMA_MINALIGN=\"96\" is not a power of two");
}
END_TEST

/* ------------------------------------------------------------------ 511 transfers */

/* The wire of a message of 2-byte tx transfers at the default format, built from the cs_change rule. */
static char *expected_trace(const struct offload_spi_xfer *x, unsigned n)
{
	size_t cap = 64 + (size_t)n * 64;
	char *t = malloc(cap), *p = t;
	bool run = false;

	p += sprintf(p, " CS+");
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *b = x[i].tx;
		if (!run)
			p += sprintf(p, " [8b 10000000Hz tx1 rx0 wd0] ");
		p += sprintf(p, "%02x%02x", b[0], b[1]);
		run = true;
		if (x[i].cs_change && i + 1 < n) {
			p += sprintf(p, " CS- CS+");
			run = false;
		}
	}
	sprintf(p, " CS-");
	return t;
}

START_TEST(more_than_511_transfers)
{
	enum { N = 1200 };
	struct offload_spi_xfer *x = calloc(N, sizeof(*x));
	uint8_t *tx = pattern(2 * N, 17);

	for (unsigned i = 0; i < N; i++)
		x[i] = (struct offload_spi_xfer){ .tx = tx + 2 * i, .len = 2, .cs_change = i % 7 == 3 };
	struct fake_spi *d = device("/dev/spidev0.0", 65536, 8);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);

	ck_assert_int_eq(offload_spi_transfer(spi, x, 511), 1022);
	ck_assert_uint_eq(d->messages, 1);
	fake_spi_trace_clear(d);
	ck_assert_int_eq(offload_spi_transfer(spi, x, 512), 1024);
	ck_assert_uint_eq(d->messages, 3);
	ck_assert_uint_eq(d->msg_xfers[1], 511);
	ck_assert_uint_eq(d->msg_xfers[2], 1);
	char *want = expected_trace(x, 512);
	ck_assert_str_eq(fake_spi_trace(d), want);
	free(want);

	fake_spi_trace_clear(d);
	ck_assert_int_eq(offload_spi_transfer(spi, x, N), 2 * N);
	ck_assert_uint_eq(d->messages, 6);
	ck_assert_uint_eq(d->msg_xfers[3], 511);
	ck_assert_uint_eq(d->msg_xfers[4], 511);
	ck_assert_uint_eq(d->msg_xfers[5], 178);
	want = expected_trace(x, N);
	ck_assert_str_eq(fake_spi_trace(d), want);
	free(want);
	offload_spi_close(spi);
	free(x);
	free(tx);
}
END_TEST

/* ------------------------------------------------------------------ failures mid-way */

START_TEST(failure_after_held_part_releases_cs)
{
	uint8_t *tx = pattern(10000, 19);
	struct offload_spi_xfer x = { .tx = tx, .len = 10000 };
	struct fake_spi_cfg c;

	/* Part 2 refused before the wire (EINVAL): CS is still held, the library releases it. */
	fake_spi_cfg_default(&c);
	c.bufsiz = 4096;
	c.dma_minalign = fake_spi_host_minalign();
	c.fail_message = 2;
	c.fail_errno = EINVAL;
	fakesys_bufsiz(sys, "4096\n");
	struct fake_spi *d = fake_spi_add("/dev/spidev0.0", &c);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL,
		      "(part 2 of 3 of a split message; 4096 of 10000 bytes were already clocked; the "
		      "chip select held across parts was released with an empty message)");
	ck_assert(!d->cs_active);
	ck_assert_uint_eq(d->message_calls, 3);
	ck_assert(strstr(fake_spi_trace(d), " CS-") == fake_spi_trace(d) + strlen(fake_spi_trace(d)) - 4);
	offload_spi_close(spi);

	/* Part 2 fails on the wire (EIO): the kernel already dropped CS; nothing more is sent. */
	fake_spi_reset();
	c.fail_errno = EIO;
	d = fake_spi_add("/dev/spidev0.0", &c);
	spi = open_flags("/dev/spidev0.0", 0);
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EIO,
		      "(part 2 of 3 of a split message; 4096 of 10000 bytes were already clocked)");
	ck_assert(!d->cs_active);
	ck_assert_uint_eq(d->message_calls, 2);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

/* ------------------------------------------------------------------ spi-fsl-dspi (audit dspi.md F2-F4) */

/*
 * A device behind spi-fsl-dspi as the fake's DSPI profile models its
 * dspi_transfer_one_message: what that driver cannot do never reaches it.
 */
static struct fake_spi *dspi_dev(const char *path, bool gpio_cs, uint32_t dev_mode)
{
	struct fake_spi_cfg c;

	fake_spi_cfg_dspi(&c);
	c.gpio_cs = gpio_cs;
	c.dev_mode = dev_mode;
	c.dma_minalign = fake_spi_host_minalign();
	fakesys_add_spidev(sys, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/dev@0", "fsl-dspi");
	return fake_spi_add(path, &c);
}

/*
 * F2: spi-fsl-dspi's bits_per_word_mask says 4..32, but 17..24 bits make a
 * 3-byte operating word (DIV_ROUND_UP(bpw, 8)) that dspi_native_host_to_dev
 * has no case for and whose tail is a command with no data that never
 * completes. Neither the handle's word size nor a transfer's may be 17..24;
 * 16 and 25 still go through.
 */
START_TEST(dspi_refuses_3byte_words)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;
	uint8_t b[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, r[8];
	struct fake_spi *d = dspi_dev("/dev/spidev0.0", false, 0);

	offload_spi_opts_init(&o);
	for (uint8_t bpw = 17; bpw <= 24; bpw++) {
		o.bits_per_word = bpw;
		ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev0.0", &o, &spi), -EINVAL,
			      "spi-fsl-dspi has no code path for 17..24-bit words");
		ck_assert_ptr_null(spi);
	}
	o.bits_per_word = 8;
	spi = spi_open_ok(ctx, "/dev/spidev0.0", &o);
	struct offload_spi_xfer x = { .tx = b, .rx = r, .len = 8, .bits_per_word = 20 };
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL,
		      "transfer 0: 20 bits per word not supported by spidev: spi-fsl-dspi has no code "
		      "path for 17..24-bit words");
	ck_assert_uint_eq(d->message_calls, 0);
	for (uint8_t bpw = 16; bpw <= 25; bpw += 9) {
		x.bits_per_word = bpw;
		memset(r, 0, sizeof(r));
		ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 8);
		ck_assert_mem_eq(r, b, 8);
	}
	ck_assert_uint_eq(d->stalls, 0);
	offload_spi_close(spi);
}
END_TEST

/*
 * F3: releasing a chip select held across the parts of a split message
 * takes an empty message after a failure, which spi-fsl-dspi turns into a
 * command with no data that never completes. A message that would need a
 * held cut is refused before anything is sent; one cut where the message
 * itself releases CS (cs_change) still goes through.
 */
START_TEST(dspi_never_holds_cs_across_parts)
{
	uint8_t *tx = pattern(10000, 23);
	struct offload_spi_xfer one = { .tx = tx, .len = 10000 };
	struct fake_spi *d = dspi_dev("/dev/spidev0.0", false, 0);
	offload_spi *spi = open_flags("/dev/spidev0.0", 0);

	ck_assert_err(ctx, offload_spi_transfer(spi, &one, 1), -EMSGSIZE,
		      "(inside transfer 0) falls where chip select stays asserted; spi-fsl-dspi turns "
		      "the empty message that would release a held chip select after a failure into a "
		      "command with no data, which never completes");
	ck_assert_uint_eq(d->message_calls, 0);
	struct offload_spi_xfer two[2] = { { .tx = tx, .len = 3000, .cs_change = 1 },
					   { .tx = tx + 3000, .len = 3000 } };
	ck_assert_int_eq(offload_spi_transfer(spi, two, 2), 6000);
	ck_assert_uint_eq(d->messages, 2);
	ck_assert(!d->cs_active);
	ck_assert_uint_eq(d->stalls, 0);
	offload_spi_close(spi);
	free(tx);
}
END_TEST

/*
 * F4: the core adds SPI_CS_HIGH to spi-fsl-dspi's mode_bits
 * (use_gpio_descriptors) and RD_MODE32 reports it on a native chip select,
 * but dspi_init makes every native PCS active-low: refused, whether the DT
 * (spi-cs-high) or the caller asked for it. On a GPIO chip select the
 * level is real: accepted, and the wire is active high.
 */
START_TEST(dspi_native_cs_high_refused)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;

	dspi_dev("/dev/spidev0.0", false, OFFLOAD_SPI_CS_HIGH | OFFLOAD_SPI_MODE_3);
	offload_spi_opts_init(&o);
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev0.0", &o, &spi), -EINVAL,
		      "has SPI_CS_HIGH on a native chip select, which spi-fsl-dspi accepts and reports "
		      "but drives active-low");
	ck_assert_ptr_null(spi);
	fake_spi_reset();
	dspi_dev("/dev/spidev0.0", false, OFFLOAD_SPI_MODE_3);
	o.mode = OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_CS_HIGH;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev0.0", &o, &spi), -EINVAL,
		      "has SPI_CS_HIGH on a native chip select");
	ck_assert_ptr_null(spi);
	fake_spi_reset();
	struct fake_spi *g = dspi_dev("/dev/spidev0.0", true, OFFLOAD_SPI_MODE_3);
	spi = spi_open_ok(ctx, "/dev/spidev0.0", &o);
	ck_assert(g->wire_cs_active_high);
	offload_spi_close(spi);
}
END_TEST

/* ------------------------------------------------------------------ kernel-owned mode bits (issue #18) */

/*
 * Mode bits without an OFFLOAD_SPI_* name that the kernel has (here the
 * octal lanes spi-tx/rx-bus-width = <8> give, of_spi_parse_dt) are the
 * kernel's: a mode is read-modify-written (RD_MODE32 first) and keeps them.
 * The handle reports the named bits the kernel has.
 */
START_TEST(mode_keeps_unnamed_kernel_bits)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	struct fake_spi_cfg c;

	fake_spi_cfg_default(&c);
	c.ctlr_mode_bits |= FK_TX_OCTAL | FK_RX_OCTAL;
	c.dev_mode = FK_TX_OCTAL | FK_RX_OCTAL;
	struct fake_spi *d = fake_spi_add("/dev/spidev0.0", &c);
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_MODE_3;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev0.0", &o);
	ck_assert_uint_eq(d->mode, FK_CPOL | FK_CPHA | FK_TX_OCTAL | FK_RX_OCTAL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3);
	offload_spi_close(spi);
}
END_TEST

/*
 * A mode the kernel accepts but changes (lanes spi_setup drops, CS_HIGH on
 * a native chip select of spi-fsl-dspi) is refused; the kernel's mode from
 * before is written back, so the refusal leaves the device as it was.
 */
START_TEST(refused_mode_restores_kernel_mode)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;
	struct fake_spi_cfg c;

	fake_spi_cfg_default(&c);
	c.ctlr_mode_bits &= ~(FK_TX_DUAL | FK_TX_QUAD | FK_RX_DUAL | FK_RX_QUAD);
	c.dev_mode = FK_CPOL;
	struct fake_spi *d = fake_spi_add("/dev/spidev0.0", &c);
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_MODE_0 | OFFLOAD_SPI_TX_DUAL;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev0.0", &o, &spi), -EINVAL,
		      "does not support mode bits 0x100");
	ck_assert_ptr_null(spi);
	ck_assert_uint_eq(d->mode, FK_CPOL);

	fake_spi_reset();
	d = dspi_dev("/dev/spidev0.0", false, OFFLOAD_SPI_MODE_3);
	o.mode = OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_CS_HIGH;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev0.0", &o, &spi), -EINVAL,
		      "has SPI_CS_HIGH on a native chip select");
	ck_assert_ptr_null(spi);
	ck_assert_uint_eq(d->mode, FK_CPOL | FK_CPHA);
}
END_TEST

/*
 * Mode and clock after open, through spidev: the mode read-modify-written
 * as at open, each transfer then carrying the new clock; a mode refused
 * after the write undone, and on spi-fsl-dspi (its clock set only by
 * spi_setup, which every WR_MODE32 reruns from the DT max) the handle's
 * clock written last, after a refusal too.
 */
START_TEST(set_mode_and_speed_after_open)
{
	struct offload_spi_info info;
	struct fake_spi_cfg c;
	uint8_t b[2] = { 1, 2 }, r[2];
	struct offload_spi_xfer x = { .tx = b, .rx = r, .len = 2 };

	fake_spi_cfg_default(&c);
	c.ctlr_mode_bits |= FK_TX_OCTAL;
	c.dev_mode = FK_TX_OCTAL;
	struct fake_spi *d = fake_spi_add("/dev/spidev0.0", &c);
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev0.0", NULL);
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_LSB_FIRST), 0);
	ck_assert_uint_eq(d->mode, FK_CPOL | FK_CPHA | FK_LSB_FIRST | FK_TX_OCTAL);
	ck_assert_int_eq(offload_spi_set_speed(spi, 2000000), 0);
	ck_assert_uint_eq(d->speed_hz, 2000000);
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 2);
	ck_assert_uint_eq(d->last[0].speed_hz, 2000000);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_LSB_FIRST);
	ck_assert_uint_eq(info.max_speed_hz, 2000000);
	/* the core's own refusals reach no ioctl */
	unsigned setups = d->setups;
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_TX_DUAL | OFFLOAD_SPI_TX_QUAD), -EINVAL,
		      "selects dual and quad at once");
	ck_assert_err(ctx, offload_spi_set_mode(spi, 0x1000), -EINVAL, "unsupported mode bits 0x1000");
	ck_assert_err(ctx, offload_spi_set_speed(spi, 0), -EINVAL, "hz is 0");
	ck_assert_uint_eq(d->setups, setups);
	/* under the chip select the last message left asserted: refused, nothing written */
	x.cs_change = 1;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 2);
	ck_assert(d->cs_active);
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_0), -EBUSY,
		      "the chip select of /dev/spidev0.0 is held asserted");
	ck_assert_err(ctx, offload_spi_set_speed(spi, 1000000), -EBUSY, "is held asserted");
	ck_assert_uint_eq(d->setups, setups);
	ck_assert(d->cs_active);
	x.cs_change = 0;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 2);
	ck_assert(!d->cs_active);
	ck_assert_int_eq(offload_spi_set_speed(spi, 1000000), 0);
	ck_assert_uint_eq(d->speed_hz, 1000000);
	offload_spi_close(spi);

	/* dropped lanes: refused, the mode before written back, the clock kept */
	fake_spi_reset();
	fake_spi_cfg_default(&c);
	c.ctlr_mode_bits &= ~(FK_TX_DUAL | FK_TX_QUAD | FK_RX_DUAL | FK_RX_QUAD);
	d = fake_spi_add("/dev/spidev0.0", &c);
	spi = spi_open_ok(ctx, "/dev/spidev0.0", NULL);
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_2), 0);
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_0 | OFFLOAD_SPI_RX_QUAD), -EINVAL,
		      "does not support mode bits 0x800 (the kernel dropped them: mode 0x800 requested, "
		      "0x0 in effect); mode 0x2 restored");
	ck_assert_uint_eq(d->mode, FK_CPOL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_2);
	offload_spi_close(spi);

	/* spi-fsl-dspi: the clock programmed last, also after a refused mode */
	fake_spi_reset();
	d = dspi_dev("/dev/spidev0.0", false, OFFLOAD_SPI_MODE_3);
	struct offload_spi_opts o;
	offload_spi_opts_init(&o);
	o.max_speed_hz = 5000000;
	spi = spi_open_ok(ctx, "/dev/spidev0.0", &o);
	ck_assert_uint_eq(d->sck_hz, 5000000);
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_0), 0);
	ck_assert_uint_eq(d->mode, 0);
	ck_assert_uint_eq(d->sck_hz, 5000000);
	ck_assert_str_eq(d->last_setup, "speed");
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_CS_HIGH), -EINVAL,
		      "has SPI_CS_HIGH on a native chip select");
	ck_assert_uint_eq(d->mode, 0);
	ck_assert_uint_eq(d->sck_hz, 5000000);
	ck_assert_int_eq(offload_spi_set_speed(spi, 1000000), 0);
	ck_assert_uint_eq(d->sck_hz, 1000000);
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_1), 0);
	ck_assert_uint_eq(d->sck_hz, 1000000);
	offload_spi_close(spi);
	ck_assert_err(NULL, offload_spi_set_mode(NULL, 0), -EINVAL, "spi is NULL");
}
END_TEST

/*
 * F1 through the kernel: spi-fsl-dspi packs LSB-first 8-bit words of a
 * longer transfer into 16/32-bit frames first byte high while LSBFE shifts
 * each frame from its LSB (dspi_setup_accel, dspi_8on16_host_to_dev), so
 * the device gets each frame's bytes reversed. What it would pack is
 * refused before anything is sent; what it sends unpacked on any devtype
 * (FIFO of 4 or more) passes and reaches the wire in order: 8-bit
 * transfers of 1 or 3 bytes, 16-bit ones of up to 8 bytes.
 */
START_TEST(dspi_lsb_first_never_packed)
{
	static const uint8_t b[10] = { 0x01, 0x80, 0x03, 0xC0, 5, 6, 7, 8, 9, 10 };
	struct offload_spi_opts o;
	struct fake_spi *d = dspi_dev("/dev/spidev0.0", false, 0);

	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_MODE_0 | OFFLOAD_SPI_LSB_FIRST;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev0.0", &o);
	struct offload_spi_xfer x = { .tx = b, .len = 4 };
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL,
		      "transfer 0: 4 bytes of 8-bit LSB-first words on /dev/spidev0.0: spi-fsl-dspi packs "
		      "them into 16/32-bit frames first word high");
	x.len = 2;
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "each frame's words would be reversed");
	x.len = 5;
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "send at most 1 or 3 bytes per transfer");
	x.bits_per_word = 16;
	x.len = 10;
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "send at most 8 bytes per transfer");
	ck_assert_uint_eq(d->message_calls, 0);
	struct offload_spi_xfer ok[3] = { { .tx = b, .len = 3, .bits_per_word = 8 },
					  { .tx = b + 3, .len = 1, .bits_per_word = 8 },
					  { .tx = b, .len = 8, .bits_per_word = 16 } };
	ck_assert_int_eq(offload_spi_transfer(spi, ok, 3), 12);
	ck_assert_ptr_nonnull(strstr(fake_spi_trace(d), "] 018003c0 [16b"));
	ck_assert_ptr_nonnull(strstr(fake_spi_trace(d), "] 018003c005060708"));
	offload_spi_close(spi);
}
END_TEST

/* ------------------------------------------------------------------ sysfs */

START_TEST(bufsiz_from_sysfs)
{
	struct offload_spi_info info;
	struct fake_spi_cfg c;

	fake_spi_cfg_default(&c);
	fake_spi_add("/dev/spidev0.0", &c);
	fakesys_bufsiz(sys, "8192\n");
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev0.0", NULL);
	offload_spi_get_info(spi, &info, sizeof(info));
	ck_assert_uint_eq(info.max_message_bytes, 8192);
	offload_spi_close(spi);

	fakesys_bufsiz(sys, "lots\n");
	spi = spi_open_ok(ctx, "/dev/spidev0.0", NULL);
	offload_spi_get_info(spi, &info, sizeof(info));
	ck_assert_uint_eq(info.max_message_bytes, 4096); /* spidev's default */
	offload_spi_close(spi);

	setenv("OFFLOAD_SYSFS_ROOT", "/nonexistent-sysfs", 1);
	spi = spi_open_ok(ctx, "/dev/spidev0.0", NULL);
	offload_spi_get_info(spi, &info, sizeof(info));
	ck_assert_uint_eq(info.max_message_bytes, 4096);
	offload_spi_close(spi);
}
END_TEST

START_TEST(probe_binds_controllers_with_spidev)
{
	struct ofl_device dev;
	char why[OFL_REASON_LEN];

	memset(&dev, 0, sizeof(dev));
	dev.dt_path = "/soc/spi@2100000";
	ck_assert_int_eq(ofl_backend_spidev.probe(ctx, NULL, &dev, why, sizeof(why)), -ENODEV);
	ck_assert_msg(strstr(why, "no /dev/spidevB.C is bound") != NULL, "%s", why);
	ck_assert_uint_eq(dev.info.flags & OFFLOAD_DEVF_KERNEL, 0);

	fakesys_add_spidev(sys, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/flash@0", "fsl-dspi");
	fakesys_add_spidev(sys, 1, 0, "/soc/spi@2110000", NULL, "fsl-dspi");
	fakesys_add_spidev(sys, 0, 2, "/soc/spi@2100000", "/soc/spi@2100000/flash@2", "fsl-dspi");
	ck_assert_int_eq(ofl_backend_spidev.probe(ctx, NULL, &dev, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "/dev/spidev0.0") && strstr(why, "/dev/spidev0.2") &&
			      !strstr(why, "spidev1.0"),
		      "%s", why);
	ck_assert_uint_eq(dev.info.flags & OFFLOAD_DEVF_KERNEL, OFFLOAD_DEVF_KERNEL);
	/* spidev serves the SPI controllers of every engine that is one (the DSPI's, here) */
	ck_assert_uint_eq(ofl_backend_spidev.serves, OFL_BE_SPI_CONTROLLER);
	ck_assert(ofl_backend_dspi.flags & OFL_BE_SPI_CONTROLLER);
	ck_assert(!(ofl_backend_udma.flags & OFL_BE_SPI_CONTROLLER));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spidev");
	TCase *tc = tcase_create("split");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, arm64_example_32_fit_33_do_not);
	tcase_add_test(tc, host_alignment_packs_by_its_rounding);
	tcase_add_test(tc, one_long_transfer_is_cut_with_cs_held);
	tcase_add_test(tc, long_transfer_fills_the_part_it_starts_in);
	tcase_add_test(tc, cuts_at_cs_change_release_cs);
	tcase_add_test(tc, last_cs_change_survives_split);
	tcase_add_test(tc, no_cs_hold_refuses_before_sending);
	tcase_add_test(tc, tiny_bufsiz);
	tcase_add_test(tc, pieces_keep_whole_words);
	tcase_add_test(tc, bad_alignment_override);
	tcase_add_test(tc, more_than_511_transfers);
	tcase_add_test(tc, failure_after_held_part_releases_cs);
	tcase_add_test(tc, dspi_refuses_3byte_words);
	tcase_add_test(tc, dspi_never_holds_cs_across_parts);
	tcase_add_test(tc, dspi_native_cs_high_refused);
	tcase_add_test(tc, mode_keeps_unnamed_kernel_bits);
	tcase_add_test(tc, refused_mode_restores_kernel_mode);
	tcase_add_test(tc, set_mode_and_speed_after_open);
	tcase_add_test(tc, dspi_lsb_first_never_packed);
	tcase_add_test(tc, bufsiz_from_sysfs);
	tcase_add_test(tc, probe_binds_controllers_with_spidev);
	suite_add_tcase(s, tc);
	return test_run(s);
}
