/* SPDX-License-Identifier: MIT */
/*
 * The DSPI model (src/sim/dspi.c) driven by raw register accesses. Every
 * expected value is a register fact of src/hw/dspi.h topic 3 (offsets, bit
 * positions), a behaviour of its section 5/7, a JEDEC ID of the part's
 * datasheet, or a hand computation, not the backend's code.
 *
 * The model advances one frame per register read (its documented default),
 * so the reads in these tests are also its clock.
 */
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "simutil.h"
#include "hw/dspi.h"
#include "platform/platform.h"
#include "sim/dspi_model.h"
#include "testutil.h"

#define BASE 0x2100000ull
#define FP 200000000ull

struct w {
	struct ofl_sim *sim;
	struct ofl_sim_dspi *m;
	struct ofl_mmio r;
	bool be;
};

static void up(struct w *w, uint8_t fifo, bool xspi, bool be)
{
	struct ofl_sim_dspi_params p = { .phys = BASE, .size = 0x10000, .fifo_size = fifo, .num_ctar = 4,
					 .xspi = xspi, .big_endian = be, .clock_hz = FP, .num_cs = 4,
					 .node = -1, .name = "dspi-test" };
	memset(w, 0, sizeof(*w));
	w->sim = ofl_sim_create(NULL);
	ck_assert_ptr_nonnull(w->sim);
	w->m = ofl_sim_dspi_create(w->sim, &p);
	ck_assert_ptr_nonnull(w->m);
	ck_assert_int_eq(ofl_mmio_map_sim(w->sim, BASE, 0x10000, &w->r), 0);
	w->be = be;
	ck_assert_int_eq(ofl_sim_dspi_attach_loopback(w->m, 0, false), 0);
}

static void down(struct w *w, uint64_t bus_errors)
{
	ck_assert_uint_eq(ofl_sim_bus_errors(w->sim, NULL, 0), bus_errors);
	ofl_sim_destroy(w->sim);
}

static uint32_t sw32(const struct w *w, uint32_t v)
{
	return w->be ? __builtin_bswap32(v) : v;
}

static uint32_t rd(const struct w *w, uint32_t off)
{
	return sw32(w, ofl_mmio_read32(&w->r, off));
}

static void wr(const struct w *w, uint32_t off, uint32_t v)
{
	ofl_mmio_write32(&w->r, off, sw32(w, v));
}

static void cmd16(const struct w *w, uint16_t v)
{
	ofl_mmio_write16(&w->r, w->be ? 0x34 : 0x36, w->be ? __builtin_bswap16(v) : v);
}

static void tx16(const struct w *w, uint16_t v)
{
	ofl_mmio_write16(&w->r, w->be ? 0x36 : 0x34, w->be ? __builtin_bswap16(v) : v);
}

/* MSTR | PCSIS 0..3 idle high | XSPI (if asked) | running */
static void start(const struct w *w, bool xspi)
{
	wr(w, 0x00, 0x80000000u | 0x000F0000u | (xspi ? 0x8u : 0) | 0xC00u);
	ck_assert_uint_ne(rd(w, 0x2C) & (1u << 30), 0); /* TXRXS */
}

static uint64_t bus_errors(const struct w *w)
{
	return ofl_sim_bus_errors(w->sim, NULL, 0);
}

/* MSTR | PCSIS 0..3 | XSPI, halted: MCR fields may change only now (Kinetis SPI_MCR). */
static void halted(const struct w *w)
{
	wr(w, 0x00, 0x800F0009u | 0xC00u);
	ck_assert_uint_eq(rd(w, 0x2C) & (1u << 30), 0);
}

static struct ofl_sim_dspi_frame last_frames(const struct w *w, size_t back)
{
	struct ofl_sim_dspi_frame f[64];
	size_t n = ofl_sim_dspi_frames(w->m, f, 64, NULL);
	ck_assert_uint_gt(n, back);
	return f[n - 1 - back];
}

START_TEST(reset_and_mcr)
{
	struct w w;

	up(&w, 4, true, false);
	/* Kinetis resets (hw/dspi.h topic 3.2, 3.4, 3.5): MCR MDIS|HALT, CTAR 16-bit frames, SR TFFF */
	ck_assert_uint_eq(rd(&w, 0x00), 0x00004001u);
	ck_assert_uint_eq(rd(&w, 0x0C), 0x78000000u);
	ck_assert_uint_eq(rd(&w, 0x2C) & 0xFFFF0000u, 0x02000000u | 0x00010000u); /* TFFF, CMDFFF */
	/* CLR_TXF/CLR_RXF read 0; DCONF (29:28) is read-only 0 */
	wr(&w, 0x00, 0xB00F0C09u);
	ck_assert_uint_eq(rd(&w, 0x00), 0x800F0009u);
	ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 30), 0); /* halted: TXRXS 0 */
	wr(&w, 0x00, 0x800F0008u);                        /* HALT 0 */
	ck_assert_uint_ne(rd(&w, 0x2C) & (1u << 30), 0);
	wr(&w, 0x00, 0x800F0009u);                        /* HALT 1 */
	ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 30), 0);
	/* writing TXRXS back (the Linux poll loop does) leaves the module running */
	wr(&w, 0x00, 0x800F0008u);
	wr(&w, 0x2C, 0x8AAF0000u | (1u << 30));
	ck_assert_uint_ne(rd(&w, 0x2C) & (1u << 30), 0);
	/* CTAR3 exists (4 CTARs), CTAR4 does not */
	wr(&w, 0x18, 0x12345678u);
	ck_assert_uint_eq(rd(&w, 0x18), 0x12345678u);
	rd(&w, 0x1C);
	down(&w, 1);
}
END_TEST

START_TEST(no_xspi_registers)
{
	struct w w;

	up(&w, 4, false, false);
	wr(&w, 0x00, 0x800F0008u); /* the XSPI bit does not stick without the XSPI register set */
	ck_assert_uint_eq(rd(&w, 0x00), 0x800F0000u);
	rd(&w, 0x11C); /* CTARE0 */
	rd(&w, 0x13C); /* SREX */
	cmd16(&w, 0);  /* outside XSPI a 16-bit write pushes a whole entry: one frame */
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 0);
	struct ofl_sim_dspi_stats st;
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.frames, 1);
	down(&w, 2);
}
END_TEST

/* One XSPI command of 4 8-bit frames to the loopback on CS0, CS kept after it. */
START_TEST(xspi_command)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, true, false);
	start(&w, true);
	/* 8-bit frames; PBR 5 (code 2) x BR 4 (code 1) = 20: 10 MHz at 200 MHz */
	wr(&w, 0x0C, (7u << 27) | (2u << 16) | 1u);
	wr(&w, 0x11C, 4); /* DTCP 4 */
	cmd16(&w, 0x8001); /* CONT | PCS0 */
	tx16(&w, 0x11);
	tx16(&w, 0x22);
	tx16(&w, 0x33);
	tx16(&w, 0x44);
	/* each read lets one frame run */
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_TXCTR(sr), 3);
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 1);
	ck_assert_uint_eq(DSPI_SR_TXNXTPTR(sr), 1);
	ck_assert_uint_ne(sr & (1u << 31), 0); /* TCF */
	ck_assert_uint_ne(sr & (1u << 17), 0); /* RFDF */
	ck_assert_uint_eq(sr & (1u << 23), 0); /* no CMDTCF yet */
	rd(&w, 0x2C);
	rd(&w, 0x2C);
	sr = rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_TXCTR(sr), 0);
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 4);
	ck_assert_uint_ne(sr & (1u << 23), 0); /* CMDTCF */
	ck_assert_uint_eq(rd(&w, 0x13C), 1);   /* SREX: CMDCTR 0, CMDNXTPTR 1 (one command popped) */
	ck_assert_uint_eq(rd(&w, 0x38), 0x11);
	ck_assert_uint_eq(rd(&w, 0x38), 0x22);
	ck_assert_uint_eq(rd(&w, 0x38), 0x33);
	ck_assert_uint_eq(rd(&w, 0x38), 0x44);
	ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 17), 0); /* RFDF follows the level */
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.cs_lines, 1); /* CONT: CS0 still asserted */
	ck_assert_uint_eq(st.cs_asserts[0], 1);
	ck_assert_uint_eq(st.cs_releases[0], 0);
	ck_assert_uint_eq(st.cmds, 1);
	struct ofl_sim_dspi_frame f = last_frames(&w, 3);
	ck_assert(f.cs_assert);
	ck_assert_uint_eq(f.bits, 8);
	ck_assert_uint_eq(f.sck_mhz, 10000000000ull);
	/* PCSSCK 0, CSSCK 0: 1 x 2 clocks of 5 ns = 10 ns */
	ck_assert_uint_eq(f.tcsc_ps, 10000);
	f = last_frames(&w, 0);
	ck_assert(!f.cs_assert && !f.cs_release && f.cont);
	ck_assert_uint_eq(f.tx, 0x44);
	ck_assert_uint_eq(f.rx, 0x44);
	down(&w, 0);
}
END_TEST

START_TEST(sr_w1c_and_levels)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0xA5);
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_eq(sr & 0x80820000u, 0x80820000u); /* TCF, CMDTCF, RFDF */
	/* writing 0 changes nothing; writing TFFF/RFDF/TXRXS back does not clear levels */
	wr(&w, 0x2C, 0);
	wr(&w, 0x2C, 0x42020000u);
	sr = rd(&w, 0x2C);
	ck_assert_uint_eq(sr & 0xC2820000u, 0xC2820000u);
	wr(&w, 0x2C, 0x80800000u); /* clear TCF and CMDTCF */
	sr = rd(&w, 0x2C);
	ck_assert_uint_eq(sr & 0x80800000u, 0);
	ck_assert_uint_ne(sr & (1u << 17), 0); /* RFDF: one entry waits */
	ck_assert_uint_eq(rd(&w, 0x7C), 0xA5); /* RXFR0 shows it without popping */
	ck_assert_uint_eq(DSPI_SR_RXCTR(rd(&w, 0x2C)), 1);
	ck_assert_uint_eq(rd(&w, 0x38), 0xA5);
	down(&w, 0);
}
END_TEST

START_TEST(eoq_stops_module)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 2);
	cmd16(&w, 0x8801); /* CONT | EOQ | PCS0: PCS still released after the queue's last frame */
	tx16(&w, 1);
	tx16(&w, 2);
	rd(&w, 0x2C);
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_ne(sr & (1u << 28), 0);   /* EOQF */
	ck_assert_uint_eq(sr & (1u << 30), 0);   /* TXRXS cleared with it */
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.cs_lines, 0);
	ck_assert_uint_eq(st.cs_releases[0], 1);
	ck_assert(last_frames(&w, 0).eoq && last_frames(&w, 0).cs_release);
	/* stopped: a new command does not run */
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 3);
	rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 1);
	/* SR_CLEAR has no EOQF: still stopped; writing EOQF back restarts */
	wr(&w, 0x2C, 0x8AAF0000u);
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 1);
	wr(&w, 0x2C, 1u << 28);
	rd(&w, 0x2C);
	sr = rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_TXCTR(sr), 0);
	ck_assert_uint_ne(sr & (1u << 30), 0);
	down(&w, 0);
}
END_TEST

START_TEST(frames_over_16_bits)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	/* 32-bit frames: FMSZ 15 and CTARE.FMSZE; 2 TX entries each, low half first */
	wr(&w, 0x0C, 15u << 27);
	wr(&w, 0x11C, (1u << 16) | 2);
	cmd16(&w, 0x0001);
	tx16(&w, 0x1111);
	tx16(&w, 0x2222);
	tx16(&w, 0x3333);
	tx16(&w, 0x4444);
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 2);
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 2); /* one RX entry per frame */
	ck_assert_uint_ne(sr & (1u << 23), 0);
	ck_assert_uint_eq(rd(&w, 0x38), 0x22221111u);
	ck_assert_uint_eq(rd(&w, 0x38), 0x44443333u);
	/* 24-bit frames: FMSZ 7 + FMSZE */
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, (1u << 16) | 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0xBEEF);
	tx16(&w, 0xFFAD); /* bits above 24 are not sent */
	rd(&w, 0x2C);
	ck_assert_uint_eq(rd(&w, 0x38), 0xADBEEFu);
	ck_assert_uint_eq(last_frames(&w, 0).bits, 24);
	down(&w, 0);
}
END_TEST

START_TEST(fifo_overflows)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 7u << 27);
	/* a fifth TX entry does not fit: dropped, TFIWF */
	wr(&w, 0x11C, 4);
	cmd16(&w, 0x0001);
	for (int i = 0; i < 5; i++)
		tx16(&w, (uint16_t)i);
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_ne(sr & (1u << 18), 0); /* TFIWF */
	ck_assert_uint_eq(DSPI_SR_TXCTR(sr), 3); /* four accepted, one shifted by this read */
	ck_assert_uint_ne(sr & (1u << 25), 0);   /* so TFFF again */
	rd(&w, 0x2C);
	rd(&w, 0x2C);
	rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_RXCTR(rd(&w, 0x2C)), 4);
	/* RX full and one more frame: RFOF, its data lost */
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0x99);
	sr = rd(&w, 0x2C);
	ck_assert_uint_ne(sr & (1u << 19), 0); /* RFOF */
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(rd(&w, 0x38), i);
	ck_assert_uint_eq(rd(&w, 0x38), 0); /* empty: slot 0 again, stale (frame 0's data) */
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.tx_overruns, 1);
	ck_assert_uint_eq(st.rx_overflows, 1);
	ck_assert_uint_eq(st.rx_empty_pops, 1);
	/* CLR_TXF/CLR_RXF empty the FIFOs; DIS_TXF (changed while halted) makes the TX FIFO one
	 * entry deep */
	wr(&w, 0x00, 0x800F0009u);
	wr(&w, 0x00, 0x800F2C08u);
	sr = rd(&w, 0x2C);
	ck_assert_uint_eq(DSPI_SR_TXCTR(sr) + DSPI_SR_RXCTR(sr), 0);
	wr(&w, 0x11C, 2);
	cmd16(&w, 0x0001);
	tx16(&w, 1);
	tx16(&w, 2); /* dropped: depth 1 */
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.tx_overruns, 2);
	down(&w, 1); /* the POPR of the empty FIFO */
}
END_TEST

/* Outside XSPI: 32-bit entries, command per entry; TCNT; chip-select lines. */
START_TEST(classic_entries_and_cs)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, false, false);
	ck_assert_int_eq(ofl_sim_dspi_attach_loopback(w.m, 1, false), 0);
	start(&w, false);
	wr(&w, 0x0C, 15u << 27); /* 16-bit frames */
	wr(&w, 0x08, 0x00050000u); /* TCNT 5 */
	/* CONT|PCS0, then PCS1 (CS0 released first), then CTCNT|PCS1|EOQ */
	wr(&w, 0x34, 0x80011234u);
	wr(&w, 0x34, 0x00025678u);
	wr(&w, 0x34, 0x0C029ABCu);
	rd(&w, 0x2C);
	ck_assert_uint_eq(rd(&w, 0x08) >> 16, 7); /* 5 + 2 frames */
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_ne(sr & (1u << 28), 0);
	ck_assert_uint_eq(rd(&w, 0x08) >> 16, 1); /* cleared by CTCNT, then this frame */
	ck_assert_uint_eq(rd(&w, 0x38), 0x1234);
	ck_assert_uint_eq(rd(&w, 0x38), 0x5678);
	ck_assert_uint_eq(rd(&w, 0x38), 0x9ABC);
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.cs_asserts[0], 1);
	ck_assert_uint_eq(st.cs_releases[0], 1);
	ck_assert_uint_eq(st.cs_asserts[1], 2); /* no CONT on the second frame */
	ck_assert_uint_eq(st.cs_releases[1], 2);
	ck_assert(last_frames(&w, 2).cs_release); /* CS0 released when PCS changed */
	ck_assert(last_frames(&w, 1).cs_assert && last_frames(&w, 1).cs_release);
	/* 16-bit writes outside XSPI push all 32 bits of PUSHR: the command half with the data
	 * last written (9ABCh), then the data half with that command */
	wr(&w, 0x2C, 1u << 28);
	ofl_mmio_write16(&w.r, 0x36, 0x0001);
	ofl_mmio_write16(&w.r, 0x34, 0x0BAD);
	rd(&w, 0x2C);
	ck_assert_uint_eq(rd(&w, 0x38), 0x9ABC);
	ck_assert_uint_eq(rd(&w, 0x38), 0x0BAD);
	down(&w, 0);
}
END_TEST

START_TEST(timing)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, true, false);
	start(&w, true);
	ofl_sim_dspi_stats(w.m, &st);
	uint64_t t0 = st.time_ps;
	/* 8-bit frames at 10 MHz (PBR 5, BR 4 at 200 MHz); every delay field 0: prescaler 1 x
	 * scaler 2 = 2 clocks = 10 ns */
	wr(&w, 0x0C, (7u << 27) | (2u << 16) | 1u);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0);
	rd(&w, 0x2C);
	ofl_sim_dspi_stats(w.m, &st);
	/* tCSC 10 ns + 8 bits x 100 ns + tASC 10 ns + tDT 10 ns = 830 ns */
	ck_assert_uint_eq(st.time_ps - t0, 830000);
	t0 = st.time_ps;
	wr(&w, 0x11C, 2);
	cmd16(&w, 0x8001); /* CONT on both frames: CS kept */
	tx16(&w, 0);
	tx16(&w, 0);
	rd(&w, 0x2C);
	rd(&w, 0x2C);
	ofl_sim_dspi_stats(w.m, &st);
	/* 10 + 800, then tASC + tCSC 20 between frames with CS kept + 800; CS stays: no tASC/tDT */
	ck_assert_uint_eq(st.time_ps - t0, 1630000);
	/* a last frame without CONT releases CS0 before the clock changes */
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0);
	rd(&w, 0x2C);
	/* 1 MHz with CS delays: PBR 7 (3), BR 32 (5); PCSSCK 5 (2) x CSSCK 4 (1) = 20 clocks */
	wr(&w, 0x0C, (7u << 27) | (2u << 22) | (1u << 12) | (3u << 16) | 5u);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0);
	rd(&w, 0x2C);
	struct ofl_sim_dspi_frame f = last_frames(&w, 0);
	ck_assert_uint_eq(f.sck_mhz, 892857142ull); /* 200e6 / 224 */
	ck_assert_uint_eq(f.tcsc_ps, 100000);       /* 20 / 200 MHz = 100 ns */
	down(&w, 0);
}
END_TEST

START_TEST(irq_and_dma_lines)
{
	struct w w;
	bool irq, tx, rx;

	up(&w, 4, true, false);
	wr(&w, 0x30, 1u << 23); /* CMDTCF_RE, before the module runs (Kinetis SPI_RSER) */
	start(&w, true);
	ofl_sim_dspi_lines(w.m, &irq, &tx, &rx);
	ck_assert(!irq && !tx && !rx);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0);
	rd(&w, 0x2C);
	ofl_sim_dspi_lines(w.m, &irq, NULL, NULL);
	ck_assert(irq);
	wr(&w, 0x2C, 1u << 23);
	ofl_sim_dspi_lines(w.m, &irq, NULL, NULL);
	ck_assert(!irq);
	/* TFFF/RFDF with their DIRS bits: DMA requests, not interrupts (Linux DMA mode) */
	wr(&w, 0x00, 0x800F0009u); /* halted, the RX entry kept */
	wr(&w, 0x30, (1u << 25) | (1u << 24) | (1u << 17) | (1u << 16));
	ofl_sim_dspi_lines(w.m, &irq, &tx, &rx);
	ck_assert(!irq && tx && rx); /* TX FIFO not full, one RX entry */
	wr(&w, 0x30, 1u << 17);
	ofl_sim_dspi_lines(w.m, &irq, &tx, &rx);
	ck_assert(irq && !tx && !rx);
	down(&w, 0);
}
END_TEST

/* Bytes out and in through 8-bit XSPI frames to chip select cs, CS kept between them. */
static void bytes(const struct w *w, unsigned cs, const uint8_t *out, uint8_t *in, unsigned n,
		  uint16_t cpol_cpha_lsb)
{
	for (unsigned i = 0; i < n; i++) {
		wr(w, 0x0C, (7u << 27) | (uint32_t)cpol_cpha_lsb << 24);
		wr(w, 0x11C, 1);
		cmd16(w, (uint16_t)((i + 1 < n ? 0x8000u : 0) | (1u << cs)));
		tx16(w, out ? out[i] : 0);
		rd(w, 0x2C);
		in[i] = (uint8_t)rd(w, 0x38);
	}
}

START_TEST(nor_protocol)
{
	struct w w;
	struct ofl_sim_dspi_stats st;
	uint8_t in[8], page[4] = { 0xDE, 0xAD, 0xBE, 0xEF };
	static const uint8_t rdid[4] = { 0x9F };

	up(&w, 4, true, false);
	/* Micron N25Q128A13: 20h BAh 18h */
	ck_assert_int_eq(ofl_sim_dspi_attach_nor(w.m, 1, "n25q128a13", (const uint8_t[]){ 0x20, 0xBA, 0x18 },
						 16u << 20, false), 0);
	ck_assert_str_eq(ofl_sim_dspi_device(w.m, 1), "n25q128a13");
	start(&w, true);
	bytes(&w, 1, rdid, in, 4, 0);
	ck_assert_uint_eq(in[0], 0xFF); /* opcode time: MISO not driven, pulled up */
	ck_assert_uint_eq(in[1], 0x20);
	ck_assert_uint_eq(in[2], 0xBA);
	ck_assert_uint_eq(in[3], 0x18);
	/* erased array reads FFh; WREN, PAGE PROGRAM at 0x100, then READ */
	bytes(&w, 1, (const uint8_t[]){ 0x03, 0x00, 0x01, 0x00, 0, 0 }, in, 6, 0);
	ck_assert_uint_eq(in[4] & in[5], 0xFF);
	bytes(&w, 1, (const uint8_t[]){ 0x05, 0 }, in, 2, 0);
	ck_assert_uint_eq(in[1], 0x00); /* status: WEL 0 */
	bytes(&w, 1, (const uint8_t[]){ 0x06 }, in, 1, 0);
	bytes(&w, 1, (const uint8_t[]){ 0x05, 0 }, in, 2, 0);
	ck_assert_uint_eq(in[1], 0x02); /* WEL */
	bytes(&w, 1, (const uint8_t[]){ 0x02, 0x00, 0x01, 0x00, 0xDE, 0xAD, 0xBE, 0xEF }, in, 8, 0);
	bytes(&w, 1, (const uint8_t[]){ 0x0B, 0x00, 0x01, 0x00, 0, 0, 0, 0 }, in, 8, 0);
	ck_assert_mem_eq(in + 5, page, 3); /* FAST READ: one dummy byte */
	uint8_t back[4];
	ck_assert_int_eq(ofl_sim_dspi_nor_io(w.m, 1, false, 0x100, back, 4), 0);
	ck_assert_mem_eq(back, page, 4);
	/* without WREN a program does nothing */
	bytes(&w, 1, (const uint8_t[]){ 0x02, 0x00, 0x02, 0x00, 0x00 }, in, 5, 0);
	ck_assert_int_eq(ofl_sim_dspi_nor_io(w.m, 1, false, 0x200, back, 1), 0);
	ck_assert_uint_eq(back[0], 0xFF);
	/* WREN + SECTOR ERASE of the 4 KiB sector */
	bytes(&w, 1, (const uint8_t[]){ 0x06 }, in, 1, 0);
	bytes(&w, 1, (const uint8_t[]){ 0x20, 0x00, 0x01, 0x80 }, in, 4, 0);
	ck_assert_int_eq(ofl_sim_dspi_nor_io(w.m, 1, false, 0x100, back, 4), 0);
	ck_assert_uint_eq(back[0] & back[1] & back[2] & back[3], 0xFF);
	/* mode 1 (CPHA only): the flash samples on rising edges only; counted, not decoded */
	ofl_sim_dspi_stats(w.m, &st);
	uint32_t me = st.mode_errors;
	bytes(&w, 1, rdid, in, 4, 0x2); /* CPHA */
	ck_assert_uint_eq(in[1] & in[2] & in[3], 0xFF);
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.mode_errors, me + 4);
	/* mode 3 works like mode 0 */
	bytes(&w, 1, rdid, in, 4, 0x6);
	ck_assert_uint_eq(in[1], 0x20);
	down(&w, 0);
}
END_TEST

START_TEST(modes_and_bit_order)
{
	struct w w;
	uint8_t in[2];

	up(&w, 4, true, false);
	ck_assert_int_eq(ofl_sim_dspi_attach_nor(w.m, 1, "n25q128a13", (const uint8_t[]){ 0x20, 0xBA, 0x18 },
						 16u << 20, false), 0);
	start(&w, true);
	/* loopback: data comes back whatever the mode and bit order */
	for (uint16_t m = 0; m < 8; m++) {
		bytes(&w, 0, (const uint8_t[]){ 0x81, 0x3C }, in, 2, m);
		ck_assert_uint_eq(in[0], 0x81);
		ck_assert_uint_eq(in[1], 0x3C);
		struct ofl_sim_dspi_frame f = last_frames(&w, 0);
		ck_assert_uint_eq(f.cpol, (m >> 2) & 1);
		ck_assert_uint_eq(f.cpha, (m >> 1) & 1);
		ck_assert_uint_eq(f.lsb_first, m & 1);
	}
	/* LSB first to an MSB-first flash: 9Fh goes out as F9h on the wire: no such command */
	uint8_t id[4];
	bytes(&w, 1, (const uint8_t[]){ 0x9F, 0, 0, 0 }, id, 4, 1);
	ck_assert_uint_eq(id[1] & id[2] & id[3], 0xFF);
	/* ... and F9h sent LSB first is 9Fh on the wire; the ID bytes come back bit-reversed:
	 * 20h -> 04h, BAh -> 5Dh, 18h -> 18h */
	bytes(&w, 1, (const uint8_t[]){ 0xF9, 0, 0, 0 }, id, 4, 1);
	ck_assert_uint_eq(id[1], 0x04);
	ck_assert_uint_eq(id[2], 0x5D);
	ck_assert_uint_eq(id[3], 0x18);
	down(&w, 0);
}
END_TEST

START_TEST(big_endian_registers)
{
	struct w w;

	up(&w, 4, true, true);
	ck_assert_uint_eq(rd(&w, 0x00), 0x00004001u);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r, 0x00), 0x01400000u); /* as the CPU sees the bytes */
	start(&w, true);
	wr(&w, 0x0C, 15u << 27);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001); /* big-endian: command half at +0, data at +2 */
	tx16(&w, 0xC0DE);
	rd(&w, 0x2C);
	ck_assert_uint_eq(rd(&w, 0x38), 0xC0DE);
	down(&w, 0);
}
END_TEST

static void one_frame(const struct w *w)
{
	wr(w, 0x0C, 7u << 27);
	wr(w, 0x11C, 1);
	cmd16(w, 0x0001);
	tx16(w, 0x5A);
}

START_TEST(faults)
{
	struct w w;
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_STUCK, .count = 1 };

	up(&w, 4, true, false);
	start(&w, true);
	/* stuck: nothing moves until HALT */
	ck_assert_int_eq(ofl_sim_fault_set(w.sim, &f), 0);
	one_frame(&w);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 23), 0);
	wr(&w, 0x00, 0x800F0009u | 0xC00u); /* HALT + clear FIFOs */
	wr(&w, 0x00, 0x800F0008u);
	wr(&w, 0x2C, 0x9AAF0000u);
	one_frame(&w);
	ck_assert_uint_ne(rd(&w, 0x2C) & (1u << 23), 0);
	ck_assert_uint_eq(rd(&w, 0x38), 0x5A);
	/* error arg 0: RFOF with the frame's data lost; arg 1: TFUF */
	f = (struct ofl_sim_fault){ .kind = OFL_SIM_FAULT_ERROR, .count = 1 };
	ofl_sim_fault_set(w.sim, &f);
	one_frame(&w);
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_ne(sr & (1u << 19), 0);
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 0);
	f.arg = 1;
	ofl_sim_fault_set(w.sim, &f);
	wr(&w, 0x2C, 0x9AAF0000u);
	one_frame(&w);
	sr = rd(&w, 0x2C);
	ck_assert_uint_ne(sr & (1u << 27), 0);
	ck_assert_uint_eq(rd(&w, 0x38), 0x5A);
	/* lost: the frame runs, CMDTCF never comes */
	f = (struct ofl_sim_fault){ .kind = OFL_SIM_FAULT_LOST, .count = 1 };
	ofl_sim_fault_set(w.sim, &f);
	wr(&w, 0x2C, 0x9AAF0000u);
	one_frame(&w);
	sr = rd(&w, 0x2C);
	ck_assert_uint_eq(sr & (1u << 23), 0);
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 1);
	rd(&w, 0x38);
	/*
	 * Delayed by 20 ms of real time: CMDTCF first shows no earlier than 20 ms
	 * after the frame was queued. Measured from before the frame, so a busy
	 * machine only lengthens the wait (checking "not yet" right after the
	 * frame would flip whenever this thread were preempted for the delay).
	 */
	f = (struct ofl_sim_fault){ .kind = OFL_SIM_FAULT_DELAY, .count = 1, .arg = 20000 };
	ofl_sim_fault_set(w.sim, &f);
	uint64_t t0 = ofl_now_ns(), seen = 0;
	one_frame(&w);
	while (!seen && ofl_now_ns() - t0 < TEST_PATIENT_NS) {
		if (rd(&w, 0x2C) & (1u << 23))
			seen = ofl_now_ns();
		else
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	ck_assert_msg(seen, "the delayed CMDTCF never came");
	ck_assert_uint_ge(seen - t0, 20000000u);
	ck_assert_uint_eq(ofl_sim_fault_fired(w.sim, OFL_SIM_FAULT_DELAY), 1);
	down(&w, 0);
}
END_TEST

START_TEST(frames_per_poll)
{
	struct w w;

	up(&w, 16, true, false);
	start(&w, true);
	ofl_sim_dspi_set_frames_per_poll(w.m, 0);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 16);
	cmd16(&w, 0x0001);
	for (int i = 0; i < 16; i++)
		tx16(&w, (uint16_t)i);
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 0); /* everything ran at once */
	/* 16 entries: RXCTR's 4 bits read 0, SREX.RXCTR4 says 16 */
	ck_assert_uint_eq(DSPI_SR_RXCTR(rd(&w, 0x2C)), 0);
	ck_assert_uint_ne(rd(&w, 0x13C) & (1u << 11), 0);
	for (uint32_t i = 0; i < 16; i++)
		ck_assert_uint_eq(rd(&w, 0x38), i);
	down(&w, 0);
}
END_TEST


/* ------------------------------------------------------------- what the silicon refuses (audit dspi.md section 9) */

/*
 * Item 2: "Only the HALT and MDIS bits in the MCR can be changed while the
 * module is in the Running state" (Kinetis SPI_MCR). CLR_TXF/CLR_RXF are
 * write-1 actions Linux uses while running (dspi_transfer_one_message) and
 * stay allowed; a PCSIS change while running is refused and not applied.
 */
START_TEST(mcr_fields_frozen_while_running)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	uint64_t b0 = bus_errors(&w);
	wr(&w, 0x00, 0x80070008u | 0xC00u); /* PCSIS 0..2 only: PCS3 would idle low */
	ck_assert_uint_eq(rd(&w, 0x00), 0x800F0008u);
	ck_assert_uint_eq(bus_errors(&w), b0 + 1);
	wr(&w, 0x00, 0x800F0008u | 0xC00u); /* the FIFO clears alone: allowed */
	ck_assert_uint_eq(bus_errors(&w), b0 + 1);
	halted(&w);
	wr(&w, 0x00, 0x80070009u); /* halted: any field */
	ck_assert_uint_eq(rd(&w, 0x00), 0x80070009u);
	ck_assert_uint_eq(bus_errors(&w), b0 + 1);
	down(&w, b0 + 1);
}
END_TEST

/* Item 3: "Do not write to the RSER while the module is in the Running state" (Kinetis SPI_RSER). */
START_TEST(rser_frozen_while_running)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x30, 1u << 23);
	ck_assert_uint_eq(rd(&w, 0x30), 0);
	ck_assert_uint_eq(bus_errors(&w), 1);
	halted(&w);
	wr(&w, 0x30, 1u << 23);
	ck_assert_uint_eq(rd(&w, 0x30), 1u << 23);
	down(&w, 1);
}
END_TEST

/*
 * Item 4: "The HALT and MDIS bits can be changed at any time, but the effect
 * takes place only on the next frame boundary" (Kinetis SPI_MCR): HALT
 * written while frames are being clocked lets the frame in progress finish.
 * The model clocks one frame per register read, so with three frames
 * queued, after one read the second is on the wire when HALT arrives: the
 * next read sees it completed (RXCTR 2) and the module stopped (TXRXS 0),
 * the third frame still queued (TXCTR 1).
 */
START_TEST(halt_at_frame_boundary)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 3);
	cmd16(&w, 0x8001);
	tx16(&w, 0x11);
	tx16(&w, 0x22);
	tx16(&w, 0x33);
	ck_assert_uint_eq(DSPI_SR_RXCTR(rd(&w, 0x2C)), 1);
	wr(&w, 0x00, 0x800F0009u);
	uint32_t sr = rd(&w, 0x2C);
	ck_assert_uint_eq(sr & (1u << 30), 0);
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 2);
	ck_assert_uint_eq(DSPI_SR_TXCTR(sr), 1);
	sr = rd(&w, 0x2C); /* stopped: nothing more */
	ck_assert_uint_eq(DSPI_SR_RXCTR(sr), 2);
	ck_assert_uint_eq(rd(&w, 0x38), 0x11);
	ck_assert_uint_eq(rd(&w, 0x38), 0x22);
	down(&w, 0);
}
END_TEST

/*
 * Item 5: a command with DTCP 0 has no frame to run: nothing is clocked and
 * CMDTCF never comes (what Linux's zero-length transfers leave, audit F3;
 * the UNISIM MPC57xx model treats a command without data as no transfer).
 * The shifter stays wedged until the FIFOs are cleared with the module
 * halted; then the next command runs.
 */
START_TEST(zero_length_command_never_completes)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 0); /* DTCP 0 */
	cmd16(&w, 0x0001);
	tx16(&w, 0x5A);
	for (int i = 0; i < 50; i++)
		ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 23), 0);
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.frames, 0);
	ck_assert_uint_eq(st.cmds, 0);
	wr(&w, 0x00, 0x800F0009u | 0xC00u);
	wr(&w, 0x00, 0x800F0008u);
	wr(&w, 0x2C, 0x8AAF0000u);
	one_frame(&w);
	ck_assert_uint_ne(rd(&w, 0x2C) & (1u << 23), 0);
	ck_assert_uint_eq(rd(&w, 0x38), 0x5A);
	down(&w, 0);
}
END_TEST

/*
 * Item 6: "An 8- or 16-bit write access transfers all 32 bits to the TX
 * FIFO" (Kinetis SPI_PUSHR): outside XSPI each 16-bit write pushes one
 * entry, the written half merged with the other half as last written.
 */
START_TEST(pushr_16bit_writes_push_outside_xspi)
{
	struct w w;

	up(&w, 4, false, false);
	halted(&w);
	ofl_mmio_write16(&w.r, 0x36, 0x0001); /* command half: PCS0 */
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 1);
	ck_assert_uint_eq(rd(&w, 0x3C), 0x00010000u); /* TXFR0: command 0001h, data as reset (0) */
	ofl_mmio_write16(&w.r, 0x34, 0x0BAD);
	ck_assert_uint_eq(DSPI_SR_TXCTR(rd(&w, 0x2C)), 2);
	ck_assert_uint_eq(rd(&w, 0x40), 0x00010BADu);
	down(&w, 0);
}
END_TEST

/*
 * Item 7: SR flags are write-1-to-clear; bits 29, 26, 24, 22 and 20 are
 * reserved (Kinetis SPI_SR; Linux's SPI_SR_CLEAR 0x8AAF0000 never sets
 * them): a 1 written there is refused. TXRXS is W1C too, but the module is
 * back in Running at once while HALT and EOQF are clear (Linux's
 * dspi_poll writes back the SR it read, TXRXS included, and runs on).
 */
START_TEST(sr_reserved_bits_refused)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x2C, 0x8AAF0000u | (1u << 30));
	ck_assert_uint_eq(bus_errors(&w), 0);
	ck_assert_uint_ne(rd(&w, 0x2C) & (1u << 30), 0);
	wr(&w, 0x2C, 0xFFFF0000u);
	ck_assert_uint_eq(bus_errors(&w), 1);
	down(&w, 1);
}
END_TEST

/*
 * Item 8: POPR of an empty RX FIFO: the entry at POPNXTPTR is stale data
 * from an earlier round of the circular FIFO (4 entries here), not 0, and
 * the read is a software error the model reports.
 */
START_TEST(popr_empty_is_stale)
{
	struct w w;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 4);
	cmd16(&w, 0x0001);
	for (uint16_t i = 0; i < 4; i++)
		tx16(&w, (uint16_t)(0xA0 + i));
	for (int i = 0; i < 4; i++)
		rd(&w, 0x2C);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(rd(&w, 0x38), 0xA0 + i);
	ck_assert_uint_eq(DSPI_SR_POPNXTPTR(rd(&w, 0x2C)), 0); /* wrapped at the FIFO's 4 entries */
	ck_assert_uint_eq(rd(&w, 0x38), 0xA0);                  /* slot 0 again: stale */
	ck_assert_uint_eq(DSPI_SR_RXCTR(rd(&w, 0x2C)), 0);
	down(&w, 1);
}
END_TEST

/*
 * Item 9: "the minimum valid value of frame size is 4" (Kinetis CTAR FMSZ)
 * and CTAS must name a CTAR that exists (Kinetis SPI_PUSHR CTAS): such a
 * frame is refused, nothing is clocked and the command never completes.
 */
START_TEST(bad_frames_refused)
{
	struct w w;
	struct ofl_sim_dspi_stats st;

	up(&w, 4, true, false);
	start(&w, true);
	wr(&w, 0x0C, 2u << 27); /* 3-bit frames */
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x0001);
	tx16(&w, 0x5);
	for (int i = 0; i < 10; i++)
		ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 31), 0); /* no TCF */
	ofl_sim_dspi_stats(w.m, &st);
	ck_assert_uint_eq(st.frames, 0);
	ck_assert_uint_eq(bus_errors(&w), 1);
	/* CTAS 5 of 4 CTARs */
	wr(&w, 0x00, 0x800F0009u | 0xC00u);
	wr(&w, 0x00, 0x800F0008u);
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x5001);
	tx16(&w, 0x5);
	for (int i = 0; i < 10; i++)
		ck_assert_uint_eq(rd(&w, 0x2C) & (1u << 31), 0);
	ck_assert_uint_eq(bus_errors(&w), 2);
	down(&w, 2);
}
END_TEST

/*
 * Item 1, the CTAR rules around a held chip select:
 *  - CTAR written while frames are queued (Running, TX FIFO not empty) is
 *    refused: Kinetis SPI_CTAR "Do not write to the CTAR registers while the
 *    module is in the Running state"; Linux writes CTAR0 only between
 *    batches, FIFOs empty (dspi_setup_accel);
 *  - with PCS held by CONT, a change of anything but FMSZ is refused (the
 *    RM's continuous selection rule, audit F6 [unconfirmed]; Linux keeps one
 *    CTAR per device and changes only FMSZ), FMSZ alone is fine;
 *  - a CPOL change with PCS held moves SCK while the device is selected:
 *    "the peripheral device interpreting the switch of clock polarity as a
 *    valid clock edge" (Kinetis CTAR CPOL). The N25Q128A13 samples on rising
 *    edges: after 9Fh (READ ID) in mode 0, CPOL 0 -> 1 is one extra rising
 *    edge, one extra bit in, so its output runs one bit ahead: the ID 20h BAh 18h then 00h reads as
 *    (20h << 1 | BAh >> 7) = 41h, (BAh << 1 | 18h >> 7) = 74h,
 *    (18h << 1 | 00h >> 7) = 30h in mode 3.
 */
START_TEST(ctar_under_held_cs)
{
	struct w w;
	uint8_t in[4];

	up(&w, 4, true, false);
	ck_assert_int_eq(ofl_sim_dspi_attach_nor(w.m, 1, "n25q128a13", (const uint8_t[]){ 0x20, 0xBA, 0x18 },
						 16u << 20, false), 0);
	start(&w, true);
	/* frames queued: the write is refused */
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 2);
	cmd16(&w, 0x0001);
	tx16(&w, 1);
	tx16(&w, 2);
	wr(&w, 0x0C, (7u << 27) | 1u);
	ck_assert_uint_eq(rd(&w, 0x0C), 7u << 27);
	ck_assert_uint_eq(bus_errors(&w), 1);
	rd(&w, 0x2C);
	rd(&w, 0x38);
	rd(&w, 0x38);
	/* READ ID in mode 0 with CS held, then CPOL 1 (mode 3) under the same CS */
	wr(&w, 0x0C, 7u << 27);
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x8002);
	tx16(&w, 0x9F);
	rd(&w, 0x2C);
	rd(&w, 0x38);
	wr(&w, 0x0C, 15u << 27); /* FMSZ only: allowed */
	ck_assert_uint_eq(bus_errors(&w), 1);
	wr(&w, 0x0C, (7u << 27) | (1u << 26) | (1u << 25));
	ck_assert_uint_eq(bus_errors(&w), 1 + 1); /* CPHA changed too */
	for (unsigned i = 0; i < 3; i++) {
		wr(&w, 0x11C, 1);
		cmd16(&w, (uint16_t)((i < 2 ? 0x8000u : 0) | 0x2u));
		tx16(&w, 0);
		rd(&w, 0x2C);
		in[i] = (uint8_t)rd(&w, 0x38);
	}
	ck_assert_uint_eq(in[0], 0x41);
	ck_assert_uint_eq(in[1], 0x74);
	ck_assert_uint_eq(in[2], 0x30);
	/* baud changed under a held CS */
	wr(&w, 0x11C, 1);
	cmd16(&w, 0x8002);
	tx16(&w, 0);
	rd(&w, 0x2C);
	rd(&w, 0x38);
	wr(&w, 0x0C, (7u << 27) | (1u << 26) | (1u << 25) | 5u);
	ck_assert_uint_eq(bus_errors(&w), 3);
	down(&w, 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dspi_model");
	TCase *t = tcase_create("registers");
	tcase_add_test(t, reset_and_mcr);
	tcase_add_test(t, no_xspi_registers);
	tcase_add_test(t, xspi_command);
	tcase_add_test(t, sr_w1c_and_levels);
	tcase_add_test(t, eoq_stops_module);
	tcase_add_test(t, frames_over_16_bits);
	tcase_add_test(t, fifo_overflows);
	tcase_add_test(t, classic_entries_and_cs);
	tcase_add_test(t, timing);
	tcase_add_test(t, irq_and_dma_lines);
	tcase_add_test(t, big_endian_registers);
	tcase_add_test(t, faults);
	tcase_add_test(t, frames_per_poll);
	tcase_add_test(t, mcr_fields_frozen_while_running);
	tcase_add_test(t, rser_frozen_while_running);
	tcase_add_test(t, halt_at_frame_boundary);
	tcase_add_test(t, zero_length_command_never_completes);
	tcase_add_test(t, pushr_16bit_writes_push_outside_xspi);
	tcase_add_test(t, sr_reserved_bits_refused);
	tcase_add_test(t, popr_empty_is_stale);
	tcase_add_test(t, bad_frames_refused);
	tcase_add_test(t, ctar_under_held_cs);
	suite_add_tcase(s, t);
	t = tcase_create("devices");
	tcase_add_test(t, nor_protocol);
	tcase_add_test(t, modes_and_bit_order);
	suite_add_tcase(s, t);
	return test_run(s);
}
