/* SPDX-License-Identifier: MIT */
/*
 * The direct DSPI backend through the public API (offload_spi_*), on the
 * virtual board (LS1028A-like DSPI: loopback on CS0, N25Q128A13 on CS1), on
 * tests/dspi/fixtures/dspi-board.dts (VF610 EOQ flow, big-endian LS1021A,
 * LS1043A FIFO 16, S32G) and on a digital twin of the LS1028A-QDS. The model
 * logs every frame, so the wire is asserted: frame sizes, CTAR fields, SCK,
 * chip-select edges. Expected values come from spi-fsl-dspi.c (rules applied by
 * hand in the comments), the flashes' JEDEC IDs, or the data sent.
 */
#include <libfdt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <offload/offload.h>

#include "core/internal.h"
#include "platform/platform.h"
#include "dspi/dspi.h"
#include "sim/dspi_model.h"
#include "simutil.h"
#include "testutil.h"

#define VB_LOOP "/bus@100000/spi@2100000/loopback@0"
#define VB_FLASH "/bus@100000/spi@2100000/flash@1"
#define VB_CTRL "/bus@100000/spi@2100000"

/*
 * The bound of every wait on the controllers (backends/dspi timeout_floor_ns,
 * 50 ms). The model answers register reads in the caller's thread, so a wait
 * ends after a number of reads, not of nanoseconds; only a thread preempted
 * past the bound could flip it. Tests give the controllers TEST_PATIENT_NS,
 * and a fault that never completes the short TEST_IMPATIENT_NS (testutil.h).
 */
static void set_floor(offload_ctx *ctx, uint64_t ns)
{
	for (int i = 0; ctx && i < offload_dev_count(ctx); i++) {
		struct ofl_device *d = ofl_ctx_device(ctx, i);
		if (d->backend && !strcmp(d->backend->name, "dspi") && d->priv)
			((struct dspi_ctrl *)d->priv)->timeout_floor_ns = ns;
	}
}

static offload_ctx *vb(void)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, 0, NULL);
	set_floor(ctx, TEST_PATIENT_NS);
	return ctx;
}

static offload_ctx *fixture(void)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, DSPI_FIXTURE_DTB, OFFLOAD_CTX_SIM, NULL);
	set_floor(ctx, TEST_PATIENT_NS);
	return ctx;
}

static offload_spi *open_ok(offload_ctx *ctx, const char *path, const struct offload_spi_opts *o)
{
	offload_spi *spi = NULL;
	int r = offload_spi_open(ctx, path, o, &spi);

	ck_assert_msg(r == 0, "open %s: %d %s", path, r, offload_last_error(ctx));
	return spi;
}

static struct ofl_sim_dspi *model(offload_ctx *ctx, const char *ctrl)
{
	int node = fdt_path_offset(ctx->drv.dt.fdt, ctrl);
	ck_assert_int_ge(node, 0);
	struct ofl_sim_dspi *m = ofl_sim_dspi_by_node(ofl_sim_of(ctx), node);
	ck_assert_ptr_nonnull(m);
	return m;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static int xfer1(offload_spi *spi, const void *tx, void *rx, uint32_t len, uint8_t bpw, uint32_t hz)
{
	struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = len, .bits_per_word = bpw, .speed_hz = hz };
	return offload_spi_transfer(spi, &x, 1);
}

/* The last n frames (n <= 64). */
static size_t frames(struct ofl_sim_dspi *m, struct ofl_sim_dspi_frame *f, size_t n)
{
	return ofl_sim_dspi_frames(m, f, n, NULL);
}

/* READ ID: 9Fh in one transfer, the 3 ID bytes in the next, CS held between them. */
static int read_id(offload_spi *spi, uint8_t id[3], bool cs_change)
{
	static const uint8_t op = 0x9F;
	struct offload_spi_xfer x[2] = { { .tx = &op, .len = 1, .cs_change = cs_change },
					 { .rx = id, .len = 3 } };
	return offload_spi_transfer(spi, x, 2);
}

static struct ofl_sim_dspi_stats stats(struct ofl_sim_dspi *m)
{
	struct ofl_sim_dspi_stats s;
	ofl_sim_dspi_stats(m, &s);
	return s;
}

/*
 * The end of a test: the backend never did what the silicon refuses (the
 * model reports each such access as a bus error, src/sim/dspi_model.h).
 */
static void done(offload_ctx *ctx)
{
	char last[160] = "";
	struct ofl_sim *sim = ofl_sim_of(ctx);

	if (sim)
		ck_assert_msg(ofl_sim_bus_errors(sim, last, sizeof(last)) == 0, "refused: %s", last);
	offload_ctx_free(ctx);
}

/* ------------------------------------------------------------- the virtual board */

START_TEST(virtual_board_handles)
{
	offload_ctx *ctx = vb();
	struct offload_spi_info info;
	struct offload_dev_info d;

	offload_spi *lb = open_ok(ctx, VB_LOOP, NULL);
	ck_assert_int_eq(offload_spi_get_info(lb, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.backend, "dspi-sim");
	ck_assert_uint_eq(info.flags, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT);
	ck_assert_int_eq(info.chip_select, 0);
	ck_assert_uint_eq(info.mode, 0);
	ck_assert_uint_eq(info.max_speed_hz, 25000000);
	ck_assert_uint_eq(info.actual_speed_hz, 25000000); /* PBR 2 x BR 4 = 8 of 200 MHz */
	ck_assert_uint_eq(info.max_message_bytes, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, info.dev, &d, sizeof(d)), 0);
	ck_assert_str_eq(d.backend, "dspi");
	ck_assert_str_eq(d.transfer_mode, "xspi-pio");
	ck_assert_uint_eq(d.flags & (OFFLOAD_DEVF_SIM | OFFLOAD_DEVF_DIRECT | OFFLOAD_DEVF_USABLE),
			  OFFLOAD_DEVF_SIM | OFFLOAD_DEVF_DIRECT | OFFLOAD_DEVF_USABLE);
	offload_spi *fl = open_ok(ctx, VB_FLASH, NULL);
	ck_assert_int_eq(offload_spi_get_info(fl, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3);
	ck_assert_uint_eq(info.actual_speed_hz, 10000000);
	ck_assert_uint_eq(info.cs_setup_ns, 100);
	ck_assert_uint_eq(info.cs_hold_ns, 50);
	/* speed above fP / 8 is clamped like Linux's controller maximum */
	struct offload_spi_opts o;
	offload_spi_opts_init(&o);
	o.chip_select = 3;
	o.max_speed_hz = 100000000;
	offload_spi *cs3 = open_ok(ctx, VB_CTRL, &o);
	ck_assert_int_eq(offload_spi_get_info(cs3, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.actual_speed_hz, 25000000);
	/* nothing on CS3: MISO pulled up */
	uint8_t rx[4];
	ck_assert_int_eq(xfer1(cs3, (const uint8_t[]){ 1, 2, 3, 4 }, rx, 4, 0, 0), 4);
	ck_assert_uint_eq(rx[0] & rx[1] & rx[2] & rx[3], 0xFF);
	offload_spi_close(cs3);
	offload_spi_close(fl);
	offload_spi_close(lb);
	done(ctx);
}
END_TEST

START_TEST(integrity_sizes)
{
	static const uint32_t sizes[] = { 1,    2,    3,    4,    5,    6,    7,    8,    9,    15,  16,
					  17,   31,   32,   33,   63,   64,   65,   127,  128,  129, 255,
					  256,  257,  1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536 };
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	uint8_t *tx = malloc(65536), *rx = malloc(65536);

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];
		struct ofl_sim_dspi_stats s0 = stats(m);
		fill(tx, n, n);
		memset(rx, 0, n);
		ck_assert_int_eq(xfer1(spi, tx, rx, n, 0, 0), (int)n);
		ck_assert_msg(memcmp(tx, rx, n) == 0, "size %u", n);
		struct ofl_sim_dspi_stats s1 = stats(m);
		/* one chip-select assertion per message, released at its end */
		ck_assert_uint_eq(s1.cs_asserts[0] - s0.cs_asserts[0], 1);
		ck_assert_uint_eq(s1.cs_releases[0] - s0.cs_releases[0], 1);
		ck_assert_uint_eq(s1.cs_lines, 0);
		ck_assert_uint_eq(s1.rx_overflows + s1.tx_overruns, 0);
	}
	/* in place, tx only, rx only */
	fill(tx, 4096, 7);
	memcpy(rx, tx, 4096);
	ck_assert_int_eq(xfer1(spi, rx, rx, 4096, 0, 0), 4096);
	ck_assert_mem_eq(rx, tx, 4096);
	ck_assert_int_eq(xfer1(spi, tx, NULL, 4096, 0, 0), 4096);
	memset(rx, 0xEE, 100);
	ck_assert_int_eq(xfer1(spi, NULL, rx, 100, 0, 0), 100);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(rx[i], 0); /* zeros sent, zeros back */
	free(tx);
	free(rx);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/* The operating word (Linux dspi_setup_accel) as frames on the wire, FIFO 4. */
START_TEST(packing_on_the_wire)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct ofl_sim_dspi_frame f[64];
	uint8_t rx[16];
	static const uint8_t tx[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	/* 3 bytes: odd and <= FIFO 4: three 8-bit frames */
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(xfer1(spi, tx, rx, 3, 0, 0), 3);
	ck_assert_uint_eq(frames(m, f, 64), 3);
	ck_assert_uint_eq(f[0].bits + f[1].bits + f[2].bits, 24);
	ck_assert(f[0].cs_assert && !f[0].cs_release && f[2].cs_release && f[2].eoq);
	/* 8 bytes: even and <= 2 x FIFO: four 16-bit frames, first byte in the high half */
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(xfer1(spi, tx, rx, 8, 0, 0), 8);
	ck_assert_uint_eq(frames(m, f, 64), 4);
	ck_assert_uint_eq(f[0].bits, 16);
	ck_assert_uint_eq(f[0].tx, 0x0102);
	ck_assert_uint_eq(f[3].tx, 0x0708);
	/* 5 bytes: odd, > FIFO: a 32-bit frame (bytes 1..4, first byte MSB) then an 8-bit one */
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(xfer1(spi, tx, rx, 5, 0, 0), 5);
	ck_assert_mem_eq(rx, tx, 5);
	ck_assert_uint_eq(frames(m, f, 64), 2);
	ck_assert_uint_eq(f[0].bits, 32);
	ck_assert_uint_eq(f[0].tx, 0x01020304u);
	ck_assert_uint_eq(f[1].bits, 8);
	ck_assert_uint_eq(f[1].tx, 0x05);
	/* 16 bytes: > 2 x FIFO: 32-bit frames, 2 per command (each takes two TX entries); the
	 * word is chosen again for each batch, so the 8 bytes left go as four 16-bit frames */
	struct ofl_sim_dspi_stats s0 = stats(m);
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(xfer1(spi, tx, rx, 16, 0, 0), 16);
	ck_assert_mem_eq(rx, tx, 16);
	ck_assert_uint_eq(frames(m, f, 64), 6);
	ck_assert_uint_eq(stats(m).cmds - s0.cmds, 2);
	/* CONT on every frame (EOQ releases CS after the last) */
	for (int i = 0; i < 6; i++) {
		ck_assert_uint_eq(f[i].bits, i < 2 ? 32 : 16);
		ck_assert(f[i].cont);
		ck_assert_uint_eq(f[i].eoq, i == 5);
	}
	ck_assert_uint_eq(f[2].tx, 0x090A);
	/* 16-bit data, 12 bytes: > 2 x FIFO: two 32-bit frames with the first halfword high,
	 * then the 4 bytes left (<= 2 x FIFO) as two native 16-bit frames */
	uint16_t w16[6] = { 0x1111, 0x2222, 0x3333, 0x4444, 0x5555, 0x6666 }, r16[6];
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(xfer1(spi, w16, r16, 12, 16, 0), 12);
	ck_assert_mem_eq(r16, w16, 12);
	ck_assert_uint_eq(frames(m, f, 64), 4);
	ck_assert_uint_eq(f[0].tx, 0x11112222u);
	ck_assert_uint_eq(f[1].tx, 0x33334444u);
	ck_assert_uint_eq(f[2].bits, 16);
	ck_assert_uint_eq(f[2].tx, 0x5555);
	/* virtual board loopback: 25 MHz; CTAR = FMSZ 31 & 15 | PBR 0 | BR 1; delays at the
	 * quarter period (10 ns -> x1 x 2 clocks, codes 0) */
	ck_assert_uint_eq(f[0].sck_mhz, 25000000000ull);
	ck_assert_uint_eq(f[0].ctar, 0x78000001u);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

static uint32_t word_mask(unsigned bpw)
{
	return bpw == 32 ? 0xFFFFFFFFu : (1u << bpw) - 1u;
}

START_TEST(word_sizes)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct ofl_sim_dspi_frame f[64];
	static uint8_t tx[65536], rx[65536], want[65536];
	static const uint32_t sizes[] = { 4, 12, 256, 65536 };

	for (unsigned bpw = 4; bpw <= 32; bpw++) {
		unsigned wb = bpw <= 8 ? 1 : bpw <= 16 ? 2 : 4;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint32_t len = sizes[k];
			if (len == 65536 && bpw % 4)
				continue; /* the long transfer for 4, 8, 12 ... 32 bits */
			fill(tx, len, bpw + len);
			/* bits above the word size are not on the wire: they come back as 0 */
			for (size_t i = 0; i < len; i += wb) {
				uint32_t v = 0;
				memcpy(&v, tx + i, wb);
				v &= word_mask(bpw);
				memcpy(want + i, &v, wb);
			}
			ofl_sim_dspi_clear_log(m);
			ck_assert_int_eq(xfer1(spi, tx, rx, len, (uint8_t)bpw, 0), (int)len);
			ck_assert_msg(memcmp(rx, want, len) == 0, "bpw %u, %u bytes", bpw, len);
			size_t n = frames(m, f, 64);
			if (bpw != 8 && bpw != 16)
				ck_assert_uint_eq(f[n - 1].bits, bpw); /* native frames */
		}
	}
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

START_TEST(modes)
{
	offload_ctx *ctx = vb();
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct offload_spi_opts o;
	struct ofl_sim_dspi_frame f[4];
	uint8_t tx[64], rx[64];

	for (uint32_t mode = 0; mode < 16; mode++) {
		if (mode & OFFLOAD_SPI_CS_HIGH)
			continue;
		offload_spi_opts_init(&o);
		o.mode = mode;
		offload_spi *spi = open_ok(ctx, VB_LOOP, &o);
		fill(tx, sizeof(tx), mode);
		ck_assert_int_eq(xfer1(spi, tx, rx, sizeof(tx), 0, 0), (int)sizeof(tx));
		ck_assert_mem_eq(rx, tx, sizeof(tx));
		ck_assert_uint_eq(frames(m, f, 1), 1);
		ck_assert_uint_eq(f[0].cpha, (mode & OFFLOAD_SPI_CPHA) != 0);
		ck_assert_uint_eq(f[0].cpol, (mode & OFFLOAD_SPI_CPOL) != 0);
		ck_assert_uint_eq(f[0].lsb_first, (mode & OFFLOAD_SPI_LSB_FIRST) != 0);
		offload_spi_close(spi);
	}
	done(ctx);
}
END_TEST

START_TEST(per_transfer_speed)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct ofl_sim_dspi_frame f[8];
	uint8_t tx[3] = { 1, 2, 3 }, rx[9];
	/* each clock change with the chip select released before it (cs_change) */
	struct offload_spi_xfer x[3] = {
		{ .tx = tx, .rx = rx, .len = 1, .cs_change = 1 },                      /* default 25 MHz */
		{ .tx = tx, .rx = rx + 1, .len = 1, .speed_hz = 1000000, .cs_change = 1 }, /* 1 MHz */
		{ .tx = tx, .rx = rx + 2, .len = 1, .speed_hz = 3000000 },             /* 3 MHz */
	};

	ck_assert_int_eq(offload_spi_transfer(spi, x, 3), 3);
	ck_assert_uint_eq(frames(m, f, 3), 3);
	ck_assert_uint_eq(f[0].sck_mhz, 25000000000ull);
	/* 200 MHz / 1 MHz: need 200 -> PBR 7 x BR 32 = 224 (see test_dspi_ctar) */
	ck_assert_uint_eq(f[1].sck_mhz, 892857142ull);
	/* 3 MHz: need 67 -> PBR 5 x BR 16 = 80: 2.5 MHz */
	ck_assert_uint_eq(f[2].sck_mhz, 2500000000ull);
	/* CS released before each clock change */
	for (int i = 0; i < 3; i++)
		ck_assert(f[i].cs_assert && f[i].cs_release);
	/* the quarter-period floor follows the clock: at 1 MHz ceil(1000 / 4) = 250 ns, need
	 * 250 x 200e6 / 1e9 = 50 clocks; x1: 64 (scaler code 5); x3: 96 (code 4); x5: 80
	 * (code 3); x7: 56 (code 2). Smallest 56 clocks = 280 ns */
	ck_assert_uint_eq(f[1].tcsc_ps, 280000);
	/* slower than the divider goes: refused before anything is clocked */
	uint64_t before = stats(m).frames;
	x[1].speed_hz = 871; /* 200 MHz / 229376 = 871.9308.. Hz: 871 is slower */
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 3), -EINVAL,
		      "speed_hz 871 is below the slowest SCK the DSPI divider gives, 200000000 / 229376 "
		      "= 871.931 Hz (rounded up)");
	ck_assert_uint_eq(stats(m).frames, before);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

START_TEST(flash_ctar)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_FLASH, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct ofl_sim_dspi_frame f[1];
	uint8_t b = 0x05, r;

	ck_assert_int_eq(xfer1(spi, &b, &r, 1, 0, 0), 1);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	/* Mode 3 at 10 MHz, setup 100 ns, hold 50 ns, 8-bit frame:
	 *   FMSZ 7 << 27 = 0x38000000, CPOL 0x04000000, CPHA 0x02000000,
	 *   PCSSCK code 2 (x5) << 22 = 0x00800000, CSSCK code 1 (x4) << 12 = 0x1000: 20 clocks
	 *   = 100 ns; PASC code 2 (x5) << 20 = 0x00200000, ASC code 0 (x2): 10 clocks = 50 ns;
	 *   PBR code 2 (5) << 16 = 0x00020000, BR code 1 (4) = 0x1: 20 -> 10 MHz.
	 *   Sum 0x3EA21001. */
	ck_assert_uint_eq(f[0].ctar, 0x3EA21001u);
	ck_assert_uint_eq(f[0].tcsc_ps, 100000);
	ck_assert_uint_eq(f[0].tasc_ps, 50000);
	ck_assert_uint_eq(f[0].sck_mhz, 10000000000ull);
	ck_assert(f[0].cpol && f[0].cpha && !f[0].lsb_first);
	ck_assert_uint_eq(f[0].pcs, 1u << 1);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/* READ ID: 9Fh, then three ID bytes (Micron N25Q128A13: 20h BAh 18h). */
START_TEST(jedec_id_and_cs_change)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_FLASH, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct ofl_sim_dspi_frame f[8];
	uint8_t op = 0x9F, id[3];

	/* CS held across the two transfers */
	struct ofl_sim_dspi_stats s0 = stats(m);
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(read_id(spi, id, false), 4);
	ck_assert_mem_eq(id, ((const uint8_t[]){ 0x20, 0xBA, 0x18 }), 3);
	struct ofl_sim_dspi_stats s1 = stats(m);
	ck_assert_uint_eq(s1.cs_asserts[1] - s0.cs_asserts[1], 1);
	ck_assert_uint_eq(s1.cs_releases[1] - s0.cs_releases[1], 1);
	size_t n = frames(m, f, 8);
	ck_assert_uint_eq(n, 4); /* 1 + 3 8-bit frames (odd lengths <= FIFO) */
	ck_assert(f[0].cs_assert && f[0].cont && !f[0].cs_release);
	ck_assert(!f[1].cs_assert && !f[2].cs_release && f[3].cs_release);

	/* cs_change on the first: CS released between: the flash forgets the opcode */
	ck_assert_int_eq(read_id(spi, id, true), 4);
	ck_assert_mem_eq(id, ((const uint8_t[]){ 0xFF, 0xFF, 0xFF }), 3);
	s0 = s1;
	s1 = stats(m);
	ck_assert_uint_eq(s1.cs_asserts[1] - s0.cs_asserts[1], 2);

	/* cs_change on the last transfer: CS stays asserted after the message... */
	struct offload_spi_xfer a = { .tx = &op, .len = 1, .cs_change = 1 };
	ck_assert_int_eq(offload_spi_transfer(spi, &a, 1), 1);
	ck_assert_uint_eq(stats(m).cs_lines, 1u << 1);
	/* ... so the next message continues the command */
	struct offload_spi_xfer b = { .rx = id, .len = 3 };
	ck_assert_int_eq(offload_spi_transfer(spi, &b, 1), 3);
	ck_assert_mem_eq(id, ((const uint8_t[]){ 0x20, 0xBA, 0x18 }), 3);
	ck_assert_uint_eq(stats(m).cs_lines, 0);

	/* a CS left asserted is released by close: one frame with no PCS bit */
	ck_assert_int_eq(offload_spi_transfer(spi, &a, 1), 1);
	ck_assert_uint_eq(stats(m).cs_lines, 1u << 1);
	offload_spi_close(spi);
	ck_assert_uint_eq(stats(m).cs_lines, 0);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].pcs, 0);
	done(ctx);
}
END_TEST

START_TEST(flash_read_and_program)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_FLASH, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	uint8_t content[256], buf[4 + 256], data[16];

	fill(content, sizeof(content), 99);
	ck_assert_int_eq(ofl_sim_dspi_nor_io(m, 1, true, 0x1000, content, sizeof(content)), 0);
	/* READ 03h at 0x001000, one full-duplex transfer */
	memset(buf, 0, sizeof(buf));
	buf[0] = 0x03;
	buf[2] = 0x10;
	ck_assert_int_eq(xfer1(spi, buf, buf, sizeof(buf), 0, 0), (int)sizeof(buf));
	ck_assert_mem_eq(buf + 4, content, 256);
	/* WREN; PAGE PROGRAM 16 bytes at 0x002000; READ back */
	uint8_t wren = 0x06, pp[4 + 16] = { 0x02, 0x00, 0x20, 0x00 };
	fill(data, sizeof(data), 5);
	memcpy(pp + 4, data, sizeof(data));
	ck_assert_int_eq(xfer1(spi, &wren, NULL, 1, 0, 0), 1);
	ck_assert_int_eq(xfer1(spi, pp, NULL, sizeof(pp), 0, 0), (int)sizeof(pp));
	uint8_t rd[4] = { 0x03, 0x00, 0x20, 0x00 }, got[16];
	struct offload_spi_xfer x[2] = { { .tx = rd, .len = 4 }, { .rx = got, .len = 16 } };
	ck_assert_int_eq(offload_spi_transfer(spi, x, 2), 20);
	ck_assert_mem_eq(got, data, 16);
	ck_assert_int_eq(ofl_sim_dspi_nor_io(m, 1, false, 0x2000, got, 16), 0);
	ck_assert_mem_eq(got, data, 16);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

START_TEST(cs_high_and_no_cs)
{
	offload_ctx *ctx = vb();
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct offload_spi_opts o;
	struct ofl_mmio regs;
	struct ofl_sim_dspi_frame f[1];
	uint8_t tx[4] = { 1, 2, 3, 4 }, rx[4];

	ck_assert_int_eq(ofl_mmio_map_sim(ofl_sim_of(ctx), 0x2100000, 0x10000, &regs), 0);
	/* CS_HIGH: PCSIS bit 0 cleared; the loopback (active low) is then deselected while
	 * the frames run, and reads nothing */
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_CS_HIGH;
	offload_spi *spi = open_ok(ctx, VB_LOOP, &o);
	ck_assert_uint_eq((ofl_mmio_read32(&regs, 0) >> 16) & 0xF, 0xE);
	ck_assert_int_eq(xfer1(spi, tx, rx, 4, 0, 0), 4);
	ck_assert_uint_eq(rx[0] & rx[1] & rx[2] & rx[3], 0xFF);
	/* a second CS_HIGH handle on the same chip select keeps the bit cleared when one closes */
	offload_spi *two = open_ok(ctx, VB_LOOP, &o);
	offload_spi_close(spi);
	ck_assert_uint_eq((ofl_mmio_read32(&regs, 0) >> 16) & 0xF, 0xE);
	offload_spi_close(two);
	ck_assert_uint_eq((ofl_mmio_read32(&regs, 0) >> 16) & 0xF, 0xF);
	/* NO_CS: no PCS bit in the commands */
	o.mode = OFFLOAD_SPI_NO_CS;
	spi = open_ok(ctx, VB_LOOP, &o);
	ck_assert_int_eq(xfer1(spi, tx, rx, 4, 0, 0), 4);
	ck_assert_uint_eq(rx[0] & rx[1] & rx[2] & rx[3], 0xFF);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].pcs, 0);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

START_TEST(bad_input)
{
	offload_ctx *ctx = vb();
	struct offload_spi_opts o;
	offload_spi *spi = NULL;

	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_LOOP;
	ck_assert_err(ctx, offload_spi_open(ctx, VB_LOOP, &o, &spi), -EINVAL, "no internal loopback");
	o.mode = OFFLOAD_SPI_3WIRE;
	ck_assert_err(ctx, offload_spi_open(ctx, VB_LOOP, &o, &spi), -EINVAL, "no 3-wire mode");
	o.mode = OFFLOAD_SPI_TX_DUAL;
	ck_assert_err(ctx, offload_spi_open(ctx, VB_LOOP, &o, &spi), -EINVAL, "dual/quad");
	o.mode = -1;
	o.max_speed_hz = 871;
	ck_assert_err(ctx, offload_spi_open(ctx, VB_LOOP, &o, &spi), -EINVAL,
		      "871 Hz is below the slowest SCK, 200000000 / 229376 = 871.931 Hz (rounded up)");
	o.max_speed_hz = 0;
	o.chip_select = 4;
	ck_assert_err(ctx, offload_spi_open(ctx, VB_CTRL, &o, &spi), -EINVAL, "out of range");
	ck_assert_ptr_null(spi);

	spi = open_ok(ctx, VB_LOOP, NULL);
	uint8_t b[8] = { 0 };
	ck_assert_err(ctx, xfer1(spi, b, b, 8, 3, 0), -EINVAL, "3 bits per word not supported by dspi");
	ck_assert_err(ctx, xfer1(spi, b, b, 3, 16, 0), -EINVAL, "not a multiple of 2 bytes");
	ck_assert_err(ctx, xfer1(spi, b, b, 6, 24, 0), -EINVAL, "not a multiple of 4 bytes");
	ck_assert_err(ctx, xfer1(spi, b, b, 0, 0, 0), -EINVAL, "len 0");
	ck_assert_err(ctx, xfer1(spi, NULL, NULL, 4, 0, 0), -EINVAL, "neither tx nor rx");
	struct offload_spi_xfer x = { .tx = b, .len = 8, .tx_nbits = 2 };
	ck_assert_err(ctx, offload_spi_transfer(spi, &x, 1), -EINVAL, "DUAL");
	/* still usable */
	uint8_t r[8];
	ck_assert_int_eq(xfer1(spi, (const uint8_t[]){ 9, 8, 7, 6, 5, 4, 3, 2 }, r, 8, 0, 0), 8);
	ck_assert_uint_eq(r[0], 9);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/* ------------------------------------------------------------- faults */

static void arm(offload_ctx *ctx, enum ofl_sim_fault_kind k, uint32_t skip, uint32_t arg)
{
	struct ofl_sim_fault f = { .kind = k, .skip = skip, .count = 1, .arg = arg };
	ck_assert_int_eq(ofl_sim_fault_set(ofl_sim_of(ctx), &f), 0);
}

static void still_works(offload_ctx *ctx, offload_spi *spi, struct ofl_sim_dspi *m)
{
	uint8_t tx[300], rx[300];

	fill(tx, sizeof(tx), 3);
	ck_assert_int_eq(xfer1(spi, tx, rx, sizeof(tx), 0, 0), (int)sizeof(tx));
	ck_assert_mem_eq(rx, tx, sizeof(tx));
	ck_assert_uint_eq(stats(m).cs_lines, 0);
	OFL_UNUSED(ctx);
}

START_TEST(faults)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	uint8_t tx[64], rx[64];

	fill(tx, sizeof(tx), 1);
	/* RX overflow (RFOF) -> -EIO */
	arm(ctx, OFL_SIM_FAULT_ERROR, 5, 0);
	ck_assert_err(ctx, xfer1(spi, tx, rx, sizeof(tx), 0, 0), -EIO, "RX FIFO overflow (SR.RFOF)");
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "CS released"));
	still_works(ctx, spi, m);
	/* TX underflow (TFUF) -> -EIO */
	arm(ctx, OFL_SIM_FAULT_ERROR, 0, 1);
	ck_assert_err(ctx, xfer1(spi, tx, rx, sizeof(tx), 0, 0), -EIO, "TX FIFO underflow (SR.TFUF)");
	still_works(ctx, spi, m);
	/* a transfer that never completes -> -ETIMEDOUT, CS released, usable again */
	arm(ctx, OFL_SIM_FAULT_STUCK, 0, 0);
	set_floor(ctx, TEST_IMPATIENT_NS); /* never completes: reached whatever the load */
	ck_assert_err(ctx, xfer1(spi, tx, rx, sizeof(tx), 0, 0), -ETIMEDOUT,
		      "the command never completed (no SR.CMDTCF)");
	set_floor(ctx, TEST_PATIENT_NS);
	still_works(ctx, spi, m);
	/* stuck in the middle, CS asserted (CONT) at the time */
	arm(ctx, OFL_SIM_FAULT_STUCK, 7, 0);
	set_floor(ctx, TEST_IMPATIENT_NS);
	ck_assert_err(ctx, xfer1(spi, tx, rx, sizeof(tx), 0, 0), -ETIMEDOUT, "never completed");
	set_floor(ctx, TEST_PATIENT_NS);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "bytes were clocked"));
	still_works(ctx, spi, m);
	/* the completion is lost -> -ETIMEDOUT */
	arm(ctx, OFL_SIM_FAULT_LOST, 2, 0);
	set_floor(ctx, TEST_IMPATIENT_NS);
	ck_assert_err(ctx, xfer1(spi, tx, rx, sizeof(tx), 0, 0), -ETIMEDOUT, "never completed");
	set_floor(ctx, TEST_PATIENT_NS);
	still_works(ctx, spi, m);
	/* a late completion (200 us), far inside the time bound, is no failure */
	arm(ctx, OFL_SIM_FAULT_DELAY, 1, 200);
	ck_assert_int_eq(xfer1(spi, tx, rx, sizeof(tx), 0, 0), (int)sizeof(tx));
	ck_assert_mem_eq(rx, tx, sizeof(tx));
	ck_assert_uint_eq(ofl_sim_fault_fired(ofl_sim_of(ctx), OFL_SIM_FAULT_DELAY), 1);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/* ------------------------------------------------------------- what the audit found (dspi.md section 8) */

#define BE_CTRL "/soc/spi@2110000" /* fixture: LS1021A, FIFO 4, big-endian registers */
#define LE_CTRL "/soc/spi@2120000" /* fixture: LS1043A, FIFO 16 */

/* What the echo device on cs received since the last call (then forgotten). */
static size_t echo_take(struct ofl_sim_dspi *m, unsigned cs, uint8_t *buf, size_t max, unsigned *partial)
{
	uint64_t total = 0;
	size_t n = ofl_sim_dspi_echo_log(m, cs, buf, max, &total, partial);

	ck_assert_uint_eq(total, n);
	ofl_sim_dspi_echo_clear(m, cs);
	return n;
}

/*
 * F1: LSB-first 8-bit (and 16-bit) words packed into 16- and 32-bit frames.
 * LSBFE shifts the whole frame LSB first (Kinetis SPI_CTAR LSBFE: "whether
 * the LSB or MSB of the frame is transferred first"), so the byte that goes
 * first must sit in the frame's low bits. Linux (dspi_setup_accel, the
 * 8on16/8on32/16on32 helpers) packs the first byte high whatever
 * SPI_LSB_FIRST says, and an LSB-first device receives each frame's bytes
 * reversed. Here a device that is LSB first itself must receive exactly
 * the bytes sent, in order, and answer each with the one before (FFh
 * first), at every length from 1 to 48 bytes (8-bit, 8on16 and 8on32 frames)
 * on a FIFO of 4 (big-endian LS1021A) and of 16 (LS1043A); the packed
 * frames stay (LSB first costs no speed).
 */
START_TEST(lsb_first_bytes_in_order)
{
	static const struct { const char *ctrl, *node; unsigned cs; } dev[] = {
		{ BE_CTRL, BE_CTRL "/echo@2", 2 },
		{ LE_CTRL, LE_CTRL "/echo@1", 1 },
	};
	offload_ctx *ctx = fixture();
	struct ofl_sim_dspi_frame f[64];
	uint8_t tx[48], rx[48], got[64], want[48];
	unsigned partial;

	for (size_t d = 0; d < sizeof(dev) / sizeof(dev[0]); d++) {
		offload_spi *spi = open_ok(ctx, dev[d].node, NULL);
		struct ofl_sim_dspi *m = model(ctx, dev[d].ctrl);
		unsigned widest = 0;
		for (uint32_t n = 1; n <= sizeof(tx); n++) {
			fill(tx, n, n * 7);
			ofl_sim_dspi_clear_log(m);
			echo_take(m, dev[d].cs, got, sizeof(got), &partial);
			ck_assert_int_eq(xfer1(spi, tx, rx, n, 0, 0), (int)n);
			ck_assert_uint_eq(echo_take(m, dev[d].cs, got, sizeof(got), &partial), n);
			ck_assert_msg(memcmp(got, tx, n) == 0, "%s, %u bytes: received out of order",
				      dev[d].node, n);
			ck_assert_uint_eq(partial, 0);
			want[0] = 0xFF;
			memcpy(want + 1, tx, n - 1);
			ck_assert_msg(memcmp(rx, want, n) == 0, "%s, %u bytes: answers out of order",
				      dev[d].node, n);
			size_t k = frames(m, f, 64);
			for (size_t j = 0; j < k; j++) {
				ck_assert(f[j].lsb_first);
				widest = f[j].bits > widest ? f[j].bits : widest;
			}
		}
		ck_assert_uint_eq(widest, 32);
		offload_spi_close(spi);
	}
	/* 16-bit words, LSB first: each word's low byte first; 12 bytes on FIFO 4 go as two
	 * 32-bit frames of two words, then two 16-bit frames */
	offload_spi *spi = open_ok(ctx, BE_CTRL "/echo@2", NULL);
	struct ofl_sim_dspi *m = model(ctx, BE_CTRL);
	uint16_t w[6] = { 0x0102, 0x0304, 0x0506, 0x0708, 0x090A, 0x0B0C }, r[6];
	ofl_sim_dspi_clear_log(m);
	ck_assert_int_eq(xfer1(spi, w, r, sizeof(w), 16, 0), (int)sizeof(w));
	ck_assert_uint_eq(echo_take(m, 2, got, sizeof(got), &partial), 12);
	for (int i = 0; i < 6; i++) {
		ck_assert_uint_eq(got[2 * i], w[i] & 0xFF);
		ck_assert_uint_eq(got[2 * i + 1], w[i] >> 8);
	}
	ck_assert_uint_eq(frames(m, f, 64), 4);
	ck_assert_uint_eq(f[0].bits, 32);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/*
 * F5: a chip select left asserted by cs_change on a message's last transfer
 * is released by one frame with no PCS bit. Before that frame the chip
 * select is still held (CONT), so its CTAR must keep the clock's polarity
 * (Kinetis SPI_CTAR CPOL: under the Continuous Selection Format a polarity
 * switch is taken by the device as a clock edge) and, with it, every field
 * but the frame size. Mode 3 (idle high) and mode 2 (idle high, samples on
 * falling edges) devices: after the hold and the close no stray SCK edge
 * reached them, and the mode-2 one took no bit more than the bytes sent.
 */
START_TEST(release_keeps_the_clock)
{
	offload_ctx *ctx = fixture();
	struct ofl_sim_dspi *m = model(ctx, LE_CTRL);
	static const uint8_t tx[2] = { 0xC3, 0x5A };
	uint8_t got[8];
	unsigned partial;

	for (unsigned cs = 2; cs <= 3; cs++) {
		char node[64];
		snprintf(node, sizeof(node), LE_CTRL "/echo@%u", cs);
		offload_spi *spi = open_ok(ctx, node, NULL);
		struct offload_spi_xfer x = { .tx = tx, .len = 2, .cs_change = 1 };
		echo_take(m, cs, got, sizeof(got), &partial);
		ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 2);
		ck_assert_uint_eq(stats(m).cs_lines, 1u << cs);
		uint32_t g0 = stats(m).sck_glitches;
		offload_spi_close(spi);
		ck_assert_uint_eq(stats(m).cs_lines, 0);
		ck_assert_uint_eq(stats(m).sck_glitches, g0);
		ck_assert_uint_eq(echo_take(m, cs, got, sizeof(got), &partial), 2);
		ck_assert_mem_eq(got, tx, 2);
		ck_assert_uint_eq(partial, 0);
	}
	done(ctx);
}
END_TEST

/*
 * F5, the same hazard from another device: a message to the mode-0
 * loopback while the mode-3 device's chip select is held. Its CTAR
 * (another polarity and phase) must not be written before that chip select
 * is released: no stray edge at the held device, which received only its
 * own bytes.
 */
START_TEST(other_device_after_a_held_cs)
{
	offload_ctx *ctx = fixture();
	struct ofl_sim_dspi *m = model(ctx, LE_CTRL);
	offload_spi *held = open_ok(ctx, LE_CTRL "/echo@2", NULL), *lb = open_ok(ctx, LE_CTRL "/loopback@0", NULL);
	static const uint8_t op = 0x9F, b[4] = { 1, 2, 3, 4 };
	uint8_t r[4], got[8];
	unsigned partial;
	struct offload_spi_xfer hold = { .tx = &op, .len = 1, .cs_change = 1 };

	echo_take(m, 2, got, sizeof(got), &partial);
	ck_assert_int_eq(offload_spi_transfer(held, &hold, 1), 1);
	uint32_t g0 = stats(m).sck_glitches, rel = stats(m).cs_releases[2];
	ck_assert_int_eq(xfer1(lb, b, r, 4, 0, 0), 4);
	ck_assert_mem_eq(r, b, 4);
	ck_assert_uint_eq(stats(m).cs_releases[2], rel + 1);
	ck_assert_uint_eq(stats(m).sck_glitches, g0);
	ck_assert_uint_eq(echo_take(m, 2, got, sizeof(got), &partial), 1);
	ck_assert_uint_eq(got[0], op);
	ck_assert_uint_eq(partial, 0);
	offload_spi_close(lb);
	offload_spi_close(held);
	done(ctx);
}
END_TEST

/*
 * F6: between two transfers with the chip select held (no cs_change), or
 * into a message after one that left it held, the clock may not change:
 * that rewrites CTAR0's baud and delay fields between two frames of a
 * continuous selection, which Linux never does (one CTAR per device, only
 * FMSZ per batch: dspi_setup, dspi_setup_accel) and the RM allows for the
 * frame size only. Refused before anything is clocked.
 */
START_TEST(clock_change_needs_cs_released)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	uint8_t tx[2] = { 1, 2 }, rx[2];
	struct offload_spi_xfer x[2] = { { .tx = tx, .rx = rx, .len = 1 },
					 { .tx = tx + 1, .rx = rx + 1, .len = 1, .speed_hz = 1000000 } };

	uint64_t f0 = stats(m).frames;
	ck_assert_err(ctx, offload_spi_transfer(spi, x, 2), -EINVAL,
		      "transfer 1: its clock (1000000 Hz) differs from transfer 0's while the chip select "
		      "stays asserted between them");
	ck_assert_uint_eq(stats(m).frames, f0);
	/* the same clock, asked for explicitly, is one clock */
	x[1].speed_hz = 25000000;
	ck_assert_int_eq(offload_spi_transfer(spi, x, 2), 2);
	/* held after a message: the next one keeps its clock */
	struct offload_spi_xfer a = { .tx = tx, .len = 1, .cs_change = 1 };
	struct offload_spi_xfer b = { .tx = tx, .len = 1, .speed_hz = 1000000 };
	ck_assert_int_eq(offload_spi_transfer(spi, &a, 1), 1);
	f0 = stats(m).frames;
	ck_assert_err(ctx, offload_spi_transfer(spi, &b, 1), -EINVAL,
		      "held since the previous message");
	ck_assert_uint_eq(stats(m).frames, f0);
	ck_assert_uint_eq(stats(m).cs_lines, 1); /* still held: nothing was sent */
	b.speed_hz = 0;
	ck_assert_int_eq(offload_spi_transfer(spi, &b, 1), 1);
	ck_assert_uint_eq(stats(m).cs_lines, 0);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/*
 * Issue #18: mode and clock change after open. Each new setting reaches
 * the wire (the model's frames: CPOL/CPHA/LSBFE and SCK from CTAR, PCSIS
 * from MCR); under the handle's held chip select a change is refused and
 * nothing moves; what fails leaves the handle as it was.
 */
START_TEST(set_mode_and_speed)
{
	offload_ctx *ctx = vb();
	offload_spi *spi = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	struct ofl_sim_dspi_frame f[1];
	struct offload_spi_info info;
	struct ofl_mmio regs;
	uint8_t tx[2] = { 0x5A, 0xC3 }, rx[2];

	ck_assert_int_eq(ofl_mmio_map_sim(ofl_sim_of(ctx), 0x2100000, 0x10000, &regs), 0);
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_LSB_FIRST), 0);
	ck_assert_int_eq(xfer1(spi, tx, rx, 2, 0, 0), 2);
	ck_assert_mem_eq(rx, tx, 2);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert(f[0].cpol && f[0].cpha && f[0].lsb_first);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3 | OFFLOAD_SPI_LSB_FIRST);
	/* 200 MHz / 1 MHz: need 200 -> PBR 7 x BR 32 = 224 (as per_transfer_speed) */
	ck_assert_int_eq(offload_spi_set_speed(spi, 1000000), 0);
	ck_assert_int_eq(xfer1(spi, tx, rx, 1, 0, 0), 1);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].sck_mhz, 892857142ull);
	ck_assert(f[0].cpol && f[0].cpha);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.max_speed_hz, 1000000);
	ck_assert_uint_eq(info.actual_speed_hz, 892857);
	/* CS_HIGH on and off: MCR.PCSIS bit 0 */
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_CS_HIGH), 0);
	ck_assert_uint_eq((ofl_mmio_read32(&regs, 0) >> 16) & 0xF, 0xE);
	ck_assert_int_eq(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_0), 0);
	ck_assert_uint_eq((ofl_mmio_read32(&regs, 0) >> 16) & 0xF, 0xF);

	/* held by the last message: refused, the chip select stays held, nothing changes */
	struct offload_spi_xfer hold = { .tx = tx, .len = 1, .cs_change = 1 };
	ck_assert_int_eq(offload_spi_transfer(spi, &hold, 1), 1);
	uint64_t f0 = stats(m).frames;
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_1), -EBUSY,
		      "offload_spi_set_mode: chip select 0 is held asserted");
	ck_assert_err(ctx, offload_spi_set_speed(spi, 2000000), -EBUSY,
		      "the mode and clock cannot change under it");
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_CS_HIGH), -EBUSY, "is held asserted");
	ck_assert_uint_eq(stats(m).frames, f0);
	ck_assert_uint_eq(stats(m).cs_lines, 1);
	ck_assert_uint_eq((ofl_mmio_read32(&regs, 0) >> 16) & 0xF, 0xF);
	ck_assert_int_eq(xfer1(spi, tx, rx, 1, 0, 0), 1); /* releases it, at the old clock */
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].sck_mhz, 892857142ull);
	ck_assert(!f[0].cpha);
	ck_assert_uint_eq(stats(m).cs_lines, 0);
	ck_assert_int_eq(offload_spi_set_speed(spi, 25000000), 0);

	/* refusals leave the handle as it was */
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_LOOP), -EINVAL, "no internal loopback");
	ck_assert_err(ctx, offload_spi_set_mode(spi, OFFLOAD_SPI_TX_DUAL), -EINVAL,
		      "one data line each way");
	ck_assert_err(ctx, offload_spi_set_mode(spi, 0x1000), -EINVAL, "unsupported mode bits 0x1000");
	ck_assert_err(ctx, offload_spi_set_speed(spi, 0), -EINVAL, "hz is 0");
	/* 200 MHz / 229376 = 871.93 Hz is the slowest */
	ck_assert_err(ctx, offload_spi_set_speed(spi, 871), -EINVAL, "871 Hz is below the slowest SCK");
	ck_assert_err(NULL, offload_spi_set_mode(NULL, 0), -EINVAL, "spi is NULL");
	ck_assert_err(NULL, offload_spi_set_speed(NULL, 1000000), -EINVAL, "spi is NULL");
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_0);
	ck_assert_uint_eq(info.max_speed_hz, 25000000);
	ck_assert_int_eq(xfer1(spi, tx, rx, 1, 0, 0), 1);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].sck_mhz, 25000000000ull);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/* ------------------------------------------------------------- several handles, threads */

START_TEST(handles_share_the_bus)
{
	offload_ctx *ctx = vb();
	offload_spi *fl = open_ok(ctx, VB_FLASH, NULL), *lb = open_ok(ctx, VB_LOOP, NULL);
	struct ofl_sim_dspi *m = model(ctx, VB_CTRL);
	uint8_t op = 0x9F, b[4] = { 1, 2, 3, 4 }, r[4];
	struct offload_spi_xfer hold = { .tx = &op, .len = 1, .cs_change = 1 };

	ck_assert_int_eq(offload_spi_transfer(fl, &hold, 1), 1);
	ck_assert_uint_eq(stats(m).cs_lines, 2);
	uint32_t rel = stats(m).cs_releases[1];
	/* the other chip select's first frame releases CS1 first */
	ck_assert_int_eq(xfer1(lb, b, r, 4, 0, 0), 4);
	ck_assert_mem_eq(r, b, 4);
	ck_assert_uint_eq(stats(m).cs_releases[1], rel + 1);
	offload_spi_close(lb);
	offload_spi_close(fl);
	done(ctx);
}
END_TEST

struct worker {
	offload_spi *spi;
	bool flash;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint8_t tx[200], rx[200], id[3];

	for (int i = 0; i < 200; i++) {
		if (w->flash) {
			if (read_id(w->spi, id, false) != 4 || id[0] != 0x20 || id[1] != 0xBA || id[2] != 0x18)
				w->bad++;
		} else {
			fill(tx, sizeof(tx), (uint32_t)i);
			if (xfer1(w->spi, tx, rx, sizeof(tx), 0, 0) != (int)sizeof(tx) || memcmp(tx, rx, sizeof(tx)))
				w->bad++;
		}
	}
	return NULL;
}

START_TEST(threads)
{
	offload_ctx *ctx = vb();
	struct worker w[2] = { { open_ok(ctx, VB_FLASH, NULL), true, 0 }, { open_ok(ctx, VB_LOOP, NULL), false, 0 } };

	test_run_threads(work, w, sizeof(w[0]), 2);
	ck_assert_int_eq(w[0].bad + w[1].bad, 0);
	offload_spi_close(w[0].spi);
	offload_spi_close(w[1].spi);
	done(ctx);
}
END_TEST

/* ------------------------------------------------------------- other devtypes (fixture) */

START_TEST(eoq_flow_vf610)
{
	offload_ctx *ctx = fixture();
	struct ofl_sim_dspi *m = model(ctx, "/soc/spi@2100000");
	struct ofl_sim_dspi_frame f[64];
	struct offload_dev_info d;
	struct offload_spi_info info;
	offload_spi *spi = open_ok(ctx, "/soc/spi@2100000/loopback@0", NULL);
	uint8_t tx[4096], rx[4096];

	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, info.dev, &d, sizeof(d)), 0);
	ck_assert_str_eq(d.transfer_mode, "dma"); /* what Linux does on a VF610 */
	ck_assert_ptr_nonnull(strstr(d.transfer_reason, "the direct backend runs the EOQ PIO flow"));
	/* fP 132 MHz / 2 = 66 MHz (fixed-factor), max SCK fP / 2; 33 MHz asked: 16.5 MHz */
	ck_assert_uint_eq(info.actual_speed_hz, 16500000);
	static const uint32_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 63, 64, 65, 1000, 4096 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];
		struct ofl_sim_dspi_stats s0 = stats(m);
		fill(tx, n, n + 1);
		ofl_sim_dspi_clear_log(m);
		ck_assert_int_eq(xfer1(spi, tx, rx, n, 0, 0), (int)n);
		ck_assert_msg(memcmp(tx, rx, n) == 0, "size %u", n);
		/* CS never drops inside the transfer, however many FIFO fills it takes */
		struct ofl_sim_dspi_stats s1 = stats(m);
		ck_assert_uint_eq(s1.cs_asserts[0] - s0.cs_asserts[0], 1);
		ck_assert_uint_eq(s1.eoq - s0.eoq, 1); /* one end of queue: the last frame */
		size_t k = frames(m, f, 64);
		for (size_t j = 0; j < k; j++) {
			ck_assert_uint_le(f[j].bits, 16);
			ck_assert_uint_eq(f[j].eoq, j + 1 == k);
		}
	}
	/* word sizes 4..16 */
	for (unsigned bpw = 4; bpw <= 16; bpw++) {
		fill(tx, 128, bpw);
		for (size_t i = 0; i < 128; i += bpw <= 8 ? 1 : 2) {
			uint16_t v = 0;
			memcpy(&v, tx + i, bpw <= 8 ? 1 : 2);
			v &= (uint16_t)word_mask(bpw);
			memcpy(tx + i, &v, bpw <= 8 ? 1 : 2);
		}
		ck_assert_int_eq(xfer1(spi, tx, rx, 128, (uint8_t)bpw, 0), 128);
		ck_assert_msg(memcmp(tx, rx, 128) == 0, "bpw %u", bpw);
	}
	uint8_t b[4] = { 0 };
	ck_assert_err(ctx, xfer1(spi, b, b, 4, 17, 0), -EINVAL, "17 bits per word not supported");
	offload_spi_close(spi);
	/* Eon EN25S64 named by the child's compatible: 1Ch 38h 17h */
	spi = open_ok(ctx, "/soc/spi@2100000/flash@1", NULL);
	uint8_t id[3];
	ck_assert_int_eq(read_id(spi, id, false), 4);
	ck_assert_mem_eq(id, ((const uint8_t[]){ 0x1C, 0x38, 0x17 }), 3);
	offload_spi_close(spi);
	/* CS2 is a GPIO chip select */
	offload_spi *g = NULL;
	ck_assert_err(ctx, offload_spi_open(ctx, "/soc/spi@2100000/dev@2", NULL, &g), -ENOTSUP,
		      "is a GPIO");
	done(ctx);
}
END_TEST

/*
 * A protocol clock that cannot give any SCK of 1 Hz or more: every SCK is
 * fP / (PBR x BR) with PBR x BR >= 4, and an LS1028A's at most fP / 8 (Linux
 * max_clock_factor), so fP must be at least 8 Hz. Below that the controller
 * is refused at probe, instead of listed usable with nothing that opens.
 */
START_TEST(protocol_clock_too_slow_refused)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, DSPI_SLOWCLK_DTB, OFFLOAD_CTX_SIM, NULL);
	struct offload_dev_info d;
	struct offload_spi_info info;
	offload_spi *spi = NULL;

	ck_assert_int_eq(offload_dev_get_info(ctx, offload_dev_find(ctx, "/soc/spi@2100000"), &d, sizeof(d)), 0);
	ck_assert_uint_eq(d.flags & OFFLOAD_DEVF_USABLE, 0);
	ck_assert_msg(strstr(d.usable_reason, "the protocol clock of 1 Hz cannot produce any SCK of "
				 "1 Hz or more: the fastest is fP / 8"), "%s", d.usable_reason);
	ck_assert_int_eq(offload_dev_get_info(ctx, offload_dev_find(ctx, "/soc/spi@2110000"), &d, sizeof(d)), 0);
	ck_assert_uint_eq(d.flags & OFFLOAD_DEVF_USABLE, 0);
	ck_assert_msg(strstr(d.usable_reason, "the protocol clock of 7 Hz cannot produce"), "%s",
		      d.usable_reason);
	ck_assert_int_eq(offload_spi_open(ctx, "/soc/spi@2100000/loopback@0", NULL, &spi), -ENODEV);
	ck_assert_ptr_null(spi);
	/* 8 Hz: 25 MHz asked, clamped to fP / 8 = 1 Hz: need 8 = PBR 2 x BR 4: SCK 1 Hz */
	ck_assert_int_eq(offload_dev_get_info(ctx, offload_dev_find(ctx, "/soc/spi@2120000"), &d, sizeof(d)), 0);
	ck_assert_msg(d.flags & OFFLOAD_DEVF_USABLE, "%s", d.usable_reason);
	spi = open_ok(ctx, "/soc/spi@2120000/loopback@0", NULL);
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.actual_speed_hz, 1);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

START_TEST(big_endian_ls1021a)
{
	offload_ctx *ctx = fixture();
	offload_spi *spi = open_ok(ctx, "/soc/spi@2110000/loopback@0", NULL);
	struct offload_spi_info info;
	uint8_t tx[1000], rx[1000];

	/* clock-frequency 150 MHz; 18.75 MHz asked = fP / 8: PBR 2 x BR 4 */
	ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.actual_speed_hz, 18750000);
	fill(tx, sizeof(tx), 11);
	ck_assert_int_eq(xfer1(spi, tx, rx, sizeof(tx), 0, 0), (int)sizeof(tx));
	ck_assert_mem_eq(rx, tx, sizeof(tx));
	offload_spi_close(spi);
	/* jedec,spi-nor alone on a board the model knows nothing about: N25Q128A13 */
	spi = open_ok(ctx, "/soc/spi@2110000/flash@1", NULL);
	uint8_t id[3];
	ck_assert_int_eq(read_id(spi, id, false), 4);
	ck_assert_mem_eq(id, ((const uint8_t[]){ 0x20, 0xBA, 0x18 }), 3);
	offload_spi_close(spi);
	ck_assert_uint_eq(ofl_sim_bus_errors(ofl_sim_of(ctx), NULL, 0), 0);
	done(ctx);
}
END_TEST

START_TEST(fifo16_batches)
{
	offload_ctx *ctx = fixture();
	struct ofl_sim_dspi *m = model(ctx, "/soc/spi@2120000");
	offload_spi *spi = open_ok(ctx, "/soc/spi@2120000/loopback@0", NULL);
	uint8_t tx[4096], rx[4096];

	fill(tx, sizeof(tx), 2);
	uint32_t c0 = stats(m).cmds;
	ck_assert_int_eq(xfer1(spi, tx, rx, sizeof(tx), 0, 0), 4096);
	ck_assert_mem_eq(rx, tx, sizeof(tx));
	/* FIFO 16, 32-bit frames take two entries: 8 words = 32 bytes per command: 128 */
	ck_assert_uint_eq(stats(m).cmds - c0, 128);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

START_TEST(s32g_mtf)
{
	offload_ctx *ctx = fixture();
	struct ofl_sim_dspi *m = model(ctx, "/soc/spi@2130000");
	offload_spi *spi = open_ok(ctx, "/soc/spi@2130000/loopback@0", NULL);
	struct ofl_sim_dspi_frame f[2];
	struct ofl_mmio regs;
	uint8_t tx[2] = { 0xA5, 0x5A }, rx[2];

	ck_assert_int_eq(ofl_mmio_map_sim(ofl_sim_of(ctx), 0x2130000, 0x10000, &regs), 0);
	/* 40 MHz of 80 MHz (max SCK = fP): MTF, DBR, PBR 2 x BR 2 halved */
	ck_assert_int_eq(xfer1(spi, tx, rx, 1, 0, 0), 1);
	ck_assert_uint_eq(rx[0], 0xA5);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].sck_mhz, 40000000000ull);
	ck_assert_uint_ne(f[0].ctar & (1u << 31), 0);
	ck_assert_uint_ne(ofl_mmio_read32(&regs, 0) & (1u << 26), 0); /* MCR.MTFE */
	/* 10 MHz: need 8 -> PBR 2 x BR 4, no MTF */
	ck_assert_int_eq(xfer1(spi, tx + 1, rx + 1, 1, 0, 10000000), 1);
	ck_assert_uint_eq(rx[1], 0x5A);
	ck_assert_uint_eq(frames(m, f, 1), 1);
	ck_assert_uint_eq(f[0].sck_mhz, 10000000000ull);
	ck_assert_uint_eq(f[0].ctar & (1u << 31), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&regs, 0) & (1u << 26), 0);
	offload_spi_close(spi);
	done(ctx);
}
END_TEST

/* ------------------------------------------------------------- the LS1028A-QDS */

static const char *qds(void)
{
	static char path[600];
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");

	snprintf(path, sizeof(path), "%s/fsl-ls1028a-qds.dtb", dir ? dir : "");
	return access(path, R_OK) == 0 ? path : NULL;
}

START_TEST(ls1028a_qds_twin)
{
	const char *path = qds();
	if (!path) {
		printf("SKIP: the LS1028A-QDS blob is not available\n");
		return;
	}
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM, NULL);
	static const struct { const char *node; uint8_t id[3]; } want[] = {
		{ "/soc/spi@2100000/flash@0", { 0x62, 0x16, 0x13 } }, /* SST25WF040B */
		{ "/soc/spi@2100000/flash@1", { 0x1C, 0x38, 0x17 } }, /* EN25S64 */
		{ "/soc/spi@2100000/flash@2", { 0x20, 0xBB, 0x18 } }, /* N25Q128A11 */
		{ "/soc/spi@2110000/flash@0", { 0x62, 0x16, 0x13 } },
		{ "/soc/spi@2120000/flash@0", { 0x1C, 0x38, 0x17 } },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		offload_spi *spi = open_ok(ctx, want[i].node, NULL);
		struct offload_spi_info info;
		uint8_t id[3];
		ck_assert_int_eq(read_id(spi, id, false), 4);
		ck_assert_mem_eq(id, want[i].id, 3);
		ck_assert_int_eq(offload_spi_get_info(spi, &info, sizeof(info)), 0);
		ck_assert_str_eq(info.backend, "dspi-sim");
		ck_assert_uint_eq(info.mode, OFFLOAD_SPI_MODE_3);
		/* 10 MHz of the assumed 200 MHz: PBR 5 x BR 4 */
		ck_assert_uint_eq(info.actual_speed_hz, 10000000);
		offload_spi_close(spi);
	}
	struct offload_dev_info d;
	ck_assert_int_eq(offload_dev_get_info(ctx, 1, &d, sizeof(d)), 0);
	ck_assert_ptr_nonnull(strstr(d.usable_reason, "ASSUMED"));
	done(ctx);
}
END_TEST

/* A live system: the kernel's driver owns the controller, or the clock is unknown. */
START_TEST(live_refusals)
{
	const char *path = qds();
	if (!path) {
		printf("SKIP: the LS1028A-QDS blob is not available\n");
		return;
	}
	char root[] = "/tmp/dspi-sys-XXXXXX", p[700], t[700];
	ck_assert_ptr_nonnull(mkdtemp(root));
	/* bus/platform/devices/2100000.spi: of_node -> /soc/spi@2100000, driver -> fsl-dspi */
	snprintf(p, sizeof(p), "mkdir -p %s/bus/platform/devices/2100000.spi %s/firmware/devicetree/base/soc/spi@2100000 "
		 "%s/bus/platform/drivers/fsl-dspi", root, root, root);
	ck_assert_int_eq(system(p), 0);
	snprintf(t, sizeof(t), "%s/firmware/devicetree/base/soc/spi@2100000", root);
	snprintf(p, sizeof(p), "%s/bus/platform/devices/2100000.spi/of_node", root);
	ck_assert_int_eq(symlink(t, p), 0);
	snprintf(t, sizeof(t), "%s/bus/platform/drivers/fsl-dspi", root);
	snprintf(p, sizeof(p), "%s/bus/platform/devices/2100000.spi/driver", root);
	ck_assert_int_eq(symlink(t, p), 0);
	ofl_platform_set_roots(root, NULL, NULL, NULL);

	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, path, 0, NULL);
	struct offload_dev_info d;
	ck_assert_int_eq(offload_dev_get_info(ctx, 1, &d, sizeof(d)), 0);
	ck_assert_str_eq(d.dt_path, "/soc/spi@2100000");
	ck_assert_str_ne(d.backend, "dspi");
	ck_assert_ptr_nonnull(strstr(d.usable_reason, "the kernel's fsl-dspi driver owns 2100000.spi"));
	/* the other controllers: no platform device here, and no clock rate */
	ck_assert_int_eq(offload_dev_get_info(ctx, 2, &d, sizeof(d)), 0);
	ck_assert_ptr_nonnull(strstr(d.usable_reason, "protocol clock rate unknown"));
	done(ctx);
	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	snprintf(p, sizeof(p), "rm -rf %s", root);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dspi_api");
	TCase *t = tcase_create("virtual_board");
	tcase_set_timeout(t, 600);
	tcase_add_test(t, virtual_board_handles);
	tcase_add_test(t, integrity_sizes);
	tcase_add_test(t, packing_on_the_wire);
	tcase_add_test(t, word_sizes);
	tcase_add_test(t, modes);
	tcase_add_test(t, per_transfer_speed);
	tcase_add_test(t, flash_ctar);
	tcase_add_test(t, jedec_id_and_cs_change);
	tcase_add_test(t, flash_read_and_program);
	tcase_add_test(t, cs_high_and_no_cs);
	tcase_add_test(t, bad_input);
	tcase_add_test(t, faults);
	tcase_add_test(t, handles_share_the_bus);
	tcase_add_test(t, threads);
	suite_add_tcase(s, t);
	t = tcase_create("devtypes");
	tcase_add_test(t, eoq_flow_vf610);
	tcase_add_test(t, big_endian_ls1021a);
	tcase_add_test(t, fifo16_batches);
	tcase_add_test(t, s32g_mtf);
	tcase_add_test(t, ls1028a_qds_twin);
	tcase_add_test(t, live_refusals);
	tcase_add_test(t, protocol_clock_too_slow_refused);
	suite_add_tcase(s, t);
	t = tcase_create("audit");
	tcase_set_timeout(t, 600);
	tcase_add_test(t, lsb_first_bytes_in_order);
	tcase_add_test(t, release_keeps_the_clock);
	tcase_add_test(t, other_device_after_a_held_cs);
	tcase_add_test(t, clock_change_needs_cs_released);
	tcase_add_test(t, set_mode_and_speed);
	suite_add_tcase(s, t);
	return test_run(s);
}
