/* SPDX-License-Identifier: MIT */
/*
 * The SPI API on /dev/spidevB.C paths against the spidev stand-in: options,
 * setup order, loop-back transfers, and bad input to every call.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spitest.h"

static offload_ctx *ctx;
static struct fake_spi *fk;
static char *sys;

static void setup(void)
{
	struct fake_spi_cfg c;

	fake_spi_cfg_default(&c);
	fk = fake_spi_add("/dev/spidev1.0", &c);
	spi_env_up(&ctx, &sys, OFFLOAD_DT_NONE, NULL);
}

static void teardown(void)
{
	spi_env_down(&ctx, &sys);
}

/* ------------------------------------------------------------------ options and open */

START_TEST(opts_defaults)
{
	struct offload_spi_opts o;

	memset(&o, 0x5a, sizeof(o));
	offload_spi_opts_init(&o);
	ck_assert_uint_eq(o.size, sizeof(o));
	ck_assert_int_eq(o.chip_select, -1);
	ck_assert_int_eq(o.mode, -1);
	ck_assert_uint_eq(o.max_speed_hz, 0);
	ck_assert_uint_eq(o.bits_per_word, 0);
	ck_assert_uint_eq(o.flags, 0);
	offload_spi_opts_init(NULL);
}
END_TEST

START_TEST(open_programs_mode_word_then_clock)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;

	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_MODE_3;
	o.max_speed_hz = 1000000;
	o.bits_per_word = 16;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", &o);

	/* What the kernel side holds: mode 3, 16-bit words, default clock 1 MHz. */
	ck_assert_uint_eq(fk->mode, 0x3);
	ck_assert_uint_eq(fk->bpw, 16);
	ck_assert_uint_eq(fk->speed_hz, 1000000);
	/* The clock was the last setup (spidev.c SPI_IOC_WR_MAX_SPEED_HZ), so it is the one programmed. */
	ck_assert_str_eq(fk->last_setup, "speed");
	ck_assert_uint_eq(fk->sck_hz, 1000000);
	/* spi_device.max_speed_hz was restored to the DT's 10 MHz by WR_MAX_SPEED_HZ. */
	ck_assert_uint_eq(fk->max_speed_hz, 10000000);

	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.backend, "spidev");
	ck_assert_str_eq(info.path, "/dev/spidev1.0");
	ck_assert_int_eq(info.dev, -1);
	ck_assert_int_eq(info.chip_select, 0);
	ck_assert_uint_eq(info.mode, 0x3);
	ck_assert_uint_eq(info.max_speed_hz, 1000000);
	ck_assert_uint_eq(info.bits_per_word, 16);
	ck_assert_uint_eq(info.max_message_bytes, 4096);
	ck_assert_uint_eq(info.flags, OFFLOAD_RES_KERNEL);
	ck_assert_int_eq(offload_spi_close(spi), 0);
	/* spidev's release resets the default clock to the device max. */
	ck_assert_int_eq(fk->users, 0);
	ck_assert_uint_eq(fk->speed_hz, 10000000);
}
END_TEST

START_TEST(open_spidev_keeps_kernel_mode_and_clock)
{
	struct offload_spi_info info;

	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_default(&c);
	c.dev_mode = OFFLOAD_SPI_CPOL;
	c.dev_max_hz = 4000000;
	fk = fake_spi_add("/dev/spidev1.0", &c);

	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_CPOL);
	ck_assert_uint_eq(info.max_speed_hz, 4000000);
	ck_assert_uint_eq(info.bits_per_word, 8);
	ck_assert_uint_eq(fk->mode, OFFLOAD_SPI_CPOL);
	/* Even a kept clock is written last, after the word size. */
	ck_assert_str_eq(fk->last_setup, "speed");
	offload_spi_close(spi);
}
END_TEST

START_TEST(open_bad_input)
{
	struct offload_spi_opts o;
	offload_spi *spi = (offload_spi *)(uintptr_t)1;

	ck_assert_err(NULL, offload_spi_open(NULL, "/dev/spidev1.0", NULL, &spi), -EINVAL, "NULL");
	ck_assert_ptr_eq(spi, (offload_spi *)(uintptr_t)1);
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", NULL, NULL), -EINVAL, "out is NULL");
	ck_assert_err(ctx, offload_spi_open(ctx, NULL, NULL, &spi), -EINVAL, "path is NULL");
	ck_assert_ptr_null(spi);
	ck_assert_err(ctx, offload_spi_open(ctx, "", NULL, &spi), -EINVAL, "path is empty");
	ck_assert_err(ctx, offload_spi_open(ctx, "spidev1.0", NULL, &spi), -EINVAL,
		      "neither a /dev/spidevB.C path nor");
	char longp[400];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	ck_assert_err(ctx, offload_spi_open(ctx, longp, NULL, &spi), -EINVAL, "longer than");

	offload_spi_opts_init(&o);
	o.size = 4;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL, "opts->size");

	offload_spi_opts_init(&o);
	o.mode = 0x1000; /* SPI_CS_WORD: not part of this API */
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "unsupported mode bits 0x1000");
	o.mode = -2;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL, "mode -2");
	o.mode = OFFLOAD_SPI_TX_DUAL | OFFLOAD_SPI_TX_QUAD;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "dual and quad at once");
	o.mode = OFFLOAD_SPI_3WIRE | OFFLOAD_SPI_RX_DUAL;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "3WIRE with dual/quad");

	offload_spi_opts_init(&o);
	o.bits_per_word = 33;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "bits_per_word 33");
	offload_spi_opts_init(&o);
	o.chip_select = -2;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "chip_select -2");
	o.chip_select = 1;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "spidev node fixes the chip select");
	offload_spi_opts_init(&o);
	o.flags = 0x80;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "unknown flags 0x80");

	/* Nothing reached the device. */
	ck_assert_uint_eq(fk->setups, 0);
	ck_assert_int_eq(fk->users, 0);
}
END_TEST

START_TEST(open_closed_context)
{
	offload_spi *spi = NULL;

	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", NULL, &spi), -EBADF, "not open");
}
END_TEST

START_TEST(open_missing_device_file)
{
	offload_spi *spi = NULL;

	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev9.9", NULL, &spi), -ENOENT,
		      "cannot open /dev/spidev9.9");
	ck_assert_ptr_null(spi);
}
END_TEST

START_TEST(open_without_spi_backend)
{
	offload_ctx *c2 = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "cpu");
	offload_spi *spi = NULL;

	ck_assert_err(c2, offload_spi_open(c2, "/dev/spidev1.0", NULL, &spi), -ENODEV,
		      "spidev: excluded by the backend allow-list");
	offload_ctx_free(c2);
}
END_TEST

START_TEST(open_refused_mode)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;

	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_default(&c);
	c.ctlr_mode_bits &= ~FK_LOOP;
	fk = fake_spi_add("/dev/spidev1.0", &c);
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_LOOP;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "refused mode 0x20");
	ck_assert_ptr_null(spi);
	ck_assert_int_eq(fk->users, 0); /* closed again */
}
END_TEST

START_TEST(open_dropped_lanes)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;

	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_default(&c);
	c.ctlr_mode_bits &= ~(FK_TX_QUAD | FK_TX_DUAL);
	fk = fake_spi_add("/dev/spidev1.0", &c);
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_TX_QUAD;
	/* spi_setup() drops the bits and succeeds; asked for explicitly, that is an error. */
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "does not support mode bits 0x200");
}
END_TEST

START_TEST(open_legacy_mode_ioctl)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	offload_spi *spi = NULL;

	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_default(&c);
	c.no_mode32 = true;
	fk = fake_spi_add("/dev/spidev1.0", &c);
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_MODE_2 | OFFLOAD_SPI_LSB_FIRST;
	spi = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	ck_assert_uint_eq(fk->mode, 0xa);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, 0xa);
	offload_spi_close(spi);
	spi = NULL;
	o.mode = OFFLOAD_SPI_RX_DUAL; /* 0x400 does not fit SPI_IOC_WR_MODE's byte */
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "has no SPI_IOC_WR_MODE32");
}
END_TEST

START_TEST(open_refused_word_size)
{
	struct offload_spi_opts o;
	offload_spi *spi = NULL;

	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_dspi(&c);
	c.bpw_mask = 0xFFF8; /* 4..16, spi-fsl-dspi in DMA mode */
	fk = fake_spi_add("/dev/spidev1.0", &c);
	offload_spi_opts_init(&o);
	o.bits_per_word = 20;
	ck_assert_err(ctx, offload_spi_open(ctx, "/dev/spidev1.0", &o, &spi), -EINVAL,
		      "refused 20 bits per word");
}
END_TEST

/* ------------------------------------------------------------------ transfers */

START_TEST(xfer_loopback_fields)
{
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	uint8_t tx[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, rx[8], io[4] = { 9, 10, 11, 12 }, zeros[4];
	struct offload_spi_xfer x[3];

	memset(rx, 0, sizeof(rx));
	memset(zeros, 0xee, sizeof(zeros));
	memset(x, 0, sizeof(x));
	x[0] = (struct offload_spi_xfer){ .tx = tx, .rx = rx, .len = 8, .speed_hz = 2000000,
					  .delay_usecs = 7, .bits_per_word = 16, .cs_change = 5,
					  .word_delay_usecs = 3 };
	x[1] = (struct offload_spi_xfer){ .tx = io, .rx = io, .len = 4 };
	x[2] = (struct offload_spi_xfer){ .tx = NULL, .rx = zeros, .len = 4 };
	ck_assert_int_eq(offload_spi_transfer(spi, x, 3), 16);
	ck_assert_mem_eq(rx, tx, 8);
	const uint8_t io_want[4] = { 9, 10, 11, 12 };
	ck_assert_mem_eq(io, io_want, 4);
	const uint8_t z[4] = { 0, 0, 0, 0 }; /* no tx: zeros are shifted out and looped back */
	ck_assert_mem_eq(zeros, z, 4);

	/* Every field reached the kernel as struct spi_ioc_transfer. */
	ck_assert_uint_eq(fk->last_n, 3);
	ck_assert_uint_eq(fk->last[0].tx_buf, (uintptr_t)tx);
	ck_assert_uint_eq(fk->last[0].rx_buf, (uintptr_t)rx);
	ck_assert_uint_eq(fk->last[0].len, 8);
	ck_assert_uint_eq(fk->last[0].speed_hz, 2000000);
	ck_assert_uint_eq(fk->last[0].delay_usecs, 7);
	ck_assert_uint_eq(fk->last[0].bits_per_word, 16);
	ck_assert_uint_eq(fk->last[0].cs_change, 1);
	ck_assert_uint_eq(fk->last[0].word_delay_usecs, 3);
	ck_assert_uint_eq(fk->last[2].tx_buf, 0);
	/* The wire: CS toggled after transfer 0 (cs_change), released at the end. */
	ck_assert_str_eq(fake_spi_trace(fk),
			 " CS+ [16b 2000000Hz tx1 rx1 wd3] 0102030405060708 +7us CS- CS+"
			 " [8b 10000000Hz tx1 rx1 wd0] 090a0b0c [8b 10000000Hz tx0 rx1 wd0] 00000000 CS-");
	offload_spi_close(spi);
}
END_TEST

START_TEST(xfer_keeps_handle_defaults)
{
	struct offload_spi_opts o;
	uint8_t b[4] = { 1, 2, 3, 4 };
	struct offload_spi_xfer x = { .tx = b, .len = 4 };

	offload_spi_opts_init(&o);
	o.max_speed_hz = 1000000;
	o.bits_per_word = 16;
	offload_spi *a = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	/* A second open file changes spidev's shared default clock and word size. */
	o.max_speed_hz = 3000000;
	o.bits_per_word = 8;
	offload_spi *other = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	ck_assert_uint_eq(fk->speed_hz, 3000000);
	ck_assert_int_eq(offload_spi_transfer(a, &x, 1), 4);
	ck_assert_uint_eq(fk->last[0].speed_hz, 1000000);
	ck_assert_uint_eq(fk->last[0].bits_per_word, 16);
	offload_spi_close(other);
	offload_spi_close(a);
}
END_TEST

START_TEST(xfer_lanes_need_mode_bits)
{
	struct offload_spi_opts o;
	uint8_t b[4] = { 0 };
	struct offload_spi_xfer x = { .tx = b, .rx = NULL, .len = 4, .tx_nbits = 2 };

	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_TX_QUAD | OFFLOAD_SPI_RX_DUAL;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4); /* QUAD allows 2 */
	x.tx_nbits = 4;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	x = (struct offload_spi_xfer){ .tx = NULL, .rx = b, .len = 4, .rx_nbits = 4 };
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "rx_nbits 4 needs the QUAD");
	x.rx_nbits = 2;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	ck_assert_uint_eq(fk->last[0].rx_nbits, 2);
	offload_spi_close(spi);

	/* The kernel keeps the last mode set on a spidev; mode -1 would keep the lanes. */
	o.mode = 0;
	spi = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	x = (struct offload_spi_xfer){ .tx = b, .len = 4, .tx_nbits = 2 };
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "tx_nbits 2 needs the DUAL or QUAD");
	x.tx_nbits = 3;
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "tx_nbits 3");
	/* nbits of an unused direction are not checked against the mode (as Linux). */
	x = (struct offload_spi_xfer){ .tx = b, .len = 4, .rx_nbits = 4 };
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	offload_spi_close(spi);
}
END_TEST

START_TEST(xfer_bad_input)
{
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	uint8_t b[64];
	struct offload_spi_xfer x[2];

	memset(b, 0, sizeof(b));
	memset(x, 0, sizeof(x));
	x[0] = (struct offload_spi_xfer){ .tx = b, .rx = b, .len = 4 };
	x[1] = x[0];

	ck_assert_err(NULL, offload_spi_transfer(NULL, x, 1), -EINVAL, "spi is NULL");
	ck_assert_err(ctx, offload_spi_transfer(spi, NULL, 1), -EINVAL, "xfers is NULL");
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 0), -EINVAL, "n is 0");
	ck_assert_err(ctx, offload_spi_transfer(spi, x, OFFLOAD_SPI_MAX_XFERS + 1), -EINVAL,
		      "4097 transfers; at most 4096");

	x[1].len = 0;
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL, "transfer 1 has len 0");
	x[1] = (struct offload_spi_xfer){ .len = 4 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL, "transfer 1 has neither tx nor rx");
	x[1] = (struct offload_spi_xfer){ .tx = b, .rx = b + 2, .len = 4 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL, "partly overlaps");
	/* an rx that a later transfer sends (spi.h); an earlier transfer's tx may be received into */
	x[1] = (struct offload_spi_xfer){ .tx = b + 2, .len = 4 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL,
		      "transfer 0's rx [");
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "of transfer 1, which comes after it"));
	x[1] = (struct offload_spi_xfer){ .tx = b + 4, .rx = b, .len = 4 };
	ck_assert_int_eq(offload_spi_transfer(spi, x, 2), 8);
	x[1] = (struct offload_spi_xfer){ .tx = (void *)(UINTPTR_MAX - 2), .len = 4 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL, "wraps the address space");

	x[1] = (struct offload_spi_xfer){ .tx = b, .len = 4, .bits_per_word = 33 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL, "33 bits per word not supported");
	x[1] = (struct offload_spi_xfer){ .tx = b, .len = 3, .bits_per_word = 9 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL,
		      "len 3 is not a multiple of 2 bytes, the memory size of a 9-bit word");
	x[1] = (struct offload_spi_xfer){ .tx = b, .len = 6, .bits_per_word = 17 };
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL, "not a multiple of 4 bytes");
	x[1] = (struct offload_spi_xfer){ .tx = b + 8, .len = 6, .bits_per_word = 16 };
	ck_assert_int_eq(offload_spi_transfer(spi, x, 2), 10);

	/* The returned byte count is an int: more than INT_MAX bytes is refused up front. */
	struct offload_spi_xfer huge[3];
	for (int i = 0; i < 3; i++)
		huge[i] = (struct offload_spi_xfer){ .tx = b, .len = 0x40000000u };
	unsigned calls = fk->message_calls;
	ck_assert_err(ctx, offload_spi_transfer(spi, huge, 3), -EMSGSIZE, "3221225472 bytes");
	ck_assert_uint_eq(fk->message_calls, calls);
	offload_spi_close(spi);
}
END_TEST

/*
 * Messages of more than 16 transfers are swept by address before their
 * pairs are compared (spi.c, rx_feeds_later_tx()): random messages of 40
 * transfers of 1-4 bytes in one 4 KiB buffer, each checked against the rule
 * applied here pair by pair, the first pair in transfer order named.
 */
START_TEST(xfer_rx_into_later_tx_long_messages)
{
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	static uint8_t b[4096];
	enum { N = 40 };
	struct offload_spi_xfer x[N];
	size_t off[N][2];
	uint64_t s = 0x243F6A8885A308D3ull;
	unsigned refused = 0, passed = 0;

	for (int round = 0; round < 400; round++) {
		int total = 0;
		for (unsigned i = 0; i < N; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			unsigned kind = (unsigned)(s >> 62), len = 1 + (unsigned)(s >> 58) % 4;
			size_t t = (size_t)(s >> 20) % (sizeof(b) - len), r = (size_t)(s >> 8) % (sizeof(b) - len);
			if (kind == 3 || (r < t + len && t < r + len))
				r = t; /* a transfer's own tx and rx: the same buffer or disjoint */
			off[i][0] = kind == 1 ? SIZE_MAX : t;
			off[i][1] = kind == 0 ? SIZE_MAX : r;
			x[i] = (struct offload_spi_xfer){ .tx = kind == 1 ? NULL : b + t,
							  .rx = kind == 0 ? NULL : b + r, .len = len };
			total += (int)len;
		}
		unsigned fi = N, fj = N;
		for (unsigned i = 0; i < N && fi == N; i++)
			for (unsigned j = i + 1; j < N && off[i][1] != SIZE_MAX; j++)
				if (off[j][0] != SIZE_MAX && off[i][1] < off[j][0] + x[j].len &&
				    off[j][0] < off[i][1] + x[i].len) {
					fi = i;
					fj = j;
					break;
				}
		unsigned calls = fk->message_calls;
		int got = offload_spi_transfer(spi, x, N);
		if (fi == N) {
			ck_assert_int_eq(got, total);
			passed++;
			continue;
		}
		char head[48], tail[64];
		snprintf(head, sizeof(head), "transfer %u's rx [", fi);
		snprintf(tail, sizeof(tail), "of transfer %u, which comes after it", fj);
		ck_assert_err(ctx, got, -EINVAL, head);
		ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), tail));
		ck_assert_uint_eq(fk->message_calls, calls);
		refused++;
	}
	/* both outcomes were tried, each many times */
	ck_assert_uint_ge(refused, 50);
	ck_assert_uint_ge(passed, 50);
	offload_spi_close(spi);
}
END_TEST

START_TEST(xfer_3wire_is_half_duplex)
{
	struct offload_spi_opts o;
	uint8_t b[4] = { 0 };
	struct offload_spi_xfer x = { .tx = b, .rx = b, .len = 4 };

	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_3WIRE;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "3WIRE");
	x.rx = NULL;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	offload_spi_close(spi);
}
END_TEST

START_TEST(xfer_kernel_errors_pass_through)
{
	uint8_t b[4] = { 0 };
	struct offload_spi_xfer x = { .tx = b, .len = 4, .bits_per_word = 12 };

	fake_spi_reset();
	struct fake_spi_cfg c;
	fake_spi_cfg_default(&c);
	c.bpw_mask = 0x80; /* 8 bits only */
	c.fail_message = 2;
	c.fail_errno = ETIMEDOUT;
	fk = fake_spi_add("/dev/spidev1.0", &c);
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	/* Call 1: the kernel's __spi_validate refuses 12-bit words. */
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL,
		      "SPI_IOC_MESSAGE(1) on /dev/spidev1.0 failed: Invalid argument");
	x.bits_per_word = 0;
	/* Call 2: the controller times out. */
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -ETIMEDOUT, "controller reported a failure");
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	offload_spi_close(spi);
}
END_TEST

START_TEST(xfer_dspi_ignores_transfer_speed)
{
	struct offload_spi_opts o;
	uint8_t b[4] = { 0 };
	struct offload_spi_xfer x = { .tx = b, .len = 4, .speed_hz = 5000000 };

	fakesys_add_spidev(sys, 1, 0, "/soc/spi@2110000", "/soc/spi@2110000/dev@0", "fsl-dspi");
	offload_spi_opts_init(&o);
	o.max_speed_hz = 2000000;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", &o);
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL,
		      "open a handle with opts.max_speed_hz = 5000000 instead");
	x.speed_hz = 2000000;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	x.speed_hz = 0;
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	offload_spi_close(spi);
}
END_TEST

/* ------------------------------------------------------------------ info, close, lifetime */

START_TEST(info_close_bad_input)
{
	struct offload_spi_info info;
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);

	ck_assert_err(NULL, offload_spi_get_info(NULL, &info, sizeof(info)), -EINVAL, "spi is NULL");
	ck_assert_err(ctx, offload_spi_get_info(spi, NULL, sizeof(struct offload_spi_info)), -EINVAL, "info is NULL");
	ck_assert_err(NULL, offload_spi_close(NULL), -EINVAL, "spi is NULL");
	ck_assert_int_eq(offload_spi_close(spi), 0);
}
END_TEST

START_TEST(handles_keep_context_busy)
{
	offload_spi *spi = spi_open_ok(ctx, "/dev/spidev1.0", NULL);

	ck_assert_err(ctx, offload_ctx_close(ctx), -EBUSY, "first: spi");
	ck_assert_int_eq(offload_spi_close(spi), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
}
END_TEST

START_TEST(ctx_free_closes_handles)
{
	spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	spi_open_ok(ctx, "/dev/spidev1.0", NULL);
	ck_assert_int_eq(fk->users, 2);
	offload_ctx_free(ctx);
	ctx = NULL;
	ck_assert_int_eq(fk->users, 0); /* both device files closed, nothing leaked (ASan) */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spi_api");
	TCase *tc = tcase_create("api");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, opts_defaults);
	tcase_add_test(tc, open_programs_mode_word_then_clock);
	tcase_add_test(tc, open_spidev_keeps_kernel_mode_and_clock);
	tcase_add_test(tc, open_bad_input);
	tcase_add_test(tc, open_closed_context);
	tcase_add_test(tc, open_missing_device_file);
	tcase_add_test(tc, open_without_spi_backend);
	tcase_add_test(tc, open_refused_mode);
	tcase_add_test(tc, open_dropped_lanes);
	tcase_add_test(tc, open_legacy_mode_ioctl);
	tcase_add_test(tc, open_refused_word_size);
	tcase_add_test(tc, xfer_loopback_fields);
	tcase_add_test(tc, xfer_keeps_handle_defaults);
	tcase_add_test(tc, xfer_lanes_need_mode_bits);
	tcase_add_test(tc, xfer_bad_input);
	tcase_add_test(tc, xfer_rx_into_later_tx_long_messages);
	tcase_add_test(tc, xfer_3wire_is_half_duplex);
	tcase_add_test(tc, xfer_kernel_errors_pass_through);
	tcase_add_test(tc, xfer_dspi_ignores_transfer_speed);
	tcase_add_test(tc, info_close_bad_input);
	tcase_add_test(tc, handles_keep_context_busy);
	tcase_add_test(tc, ctx_free_closes_handles);
	suite_add_tcase(s, tc);
	return test_run(s);
}
