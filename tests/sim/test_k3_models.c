/* SPDX-License-Identifier: MIT */
/*
 * The K3 ring accelerator and UDMA/BCDMA models driven by raw register
 * accesses and hand-built descriptors. Every expected value is a number
 * from the sources listed in src/hw/k3_udma.h (register offsets, CAP layouts, descriptor and
 * response words) or a hand computation, not the backend's code.
 */
#include <string.h>
#include <time.h>

#include "hw/tisci.h"
#include "k3_fixture.h"

struct world {
	struct k3fx f;
	struct k3fx_regs r;
};

static void setup(struct world *w, bool bcdma, bool firewalled)
{
	memset(w, 0, sizeof(*w));
	k3fx_world(&w->f, false);
	k3fx_models(&w->f, bcdma, firewalled, 0);
	k3fx_map_regs(&w->f, &w->r, bcdma);
}

static void teardown(struct world *w)
{
	ck_assert_uint_eq(ofl_sim_bus_errors(w->f.sim, NULL, 0), 0);
	k3fx_teardown(&w->f);
}

static void *mem(struct world *w, size_t len, uint64_t *phys)
{
	void *cpu;
	ck_assert_ptr_nonnull(ofl_sim_mem_alloc(w->f.sim, len, OFL_SIM_MEM_COHERENT, &cpu, phys));
	return cpu;
}

/* RA ring n in MESSAGE (1) or RING (0) mode, `count` 8-byte elements. */
static void ra_ring(struct world *w, uint32_t n, uint64_t base, uint32_t count, uint32_t mode)
{
	uint64_t o = (uint64_t)n * 0x100;
	ofl_mmio_write32(&w->r.cfg, o + 0x40, (uint32_t)base);
	ofl_mmio_write32(&w->r.cfg, o + 0x44, (uint32_t)(base >> 32));
	ofl_mmio_write32(&w->r.cfg, o + 0x48, (mode << 30) | (1u << 24) | count);
}

#define PUSH(n) ((uint64_t)(n) * 0x1000 + 0x3F8)
#define POP(n) ((uint64_t)(n) * 0x1000 + 0x1F8)
#define OCC(n) ((uint64_t)(n) * 0x1000 + 0x18)
#define DB(n) ((uint64_t)(n) * 0x1000 + 0x10)

START_TEST(gcfg_caps_udma)
{
	struct world w;

	setup(&w, false, false);
	uint32_t cap2 = ofl_mmio_read32(&w.r.gcfg, 0x28), cap3 = ofl_mmio_read32(&w.r.gcfg, 0x2C);
	/* CAP2: TCHAN 8:0, ECHAN 17:9, RCHAN 26:18; CAP3: RFLOW 13:0, HCHAN 22:14, UCHAN 31:23 */
	ck_assert_uint_eq(cap2, 140u | 160u << 9 | 140u << 18);
	ck_assert_uint_eq(cap3, 300u | 16u << 14 | 4u << 23);
	ofl_mmio_write32(&w.r.gcfg, 0x28, 0); /* read-only */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.gcfg, 0x28), cap2);
	teardown(&w);
}
END_TEST

START_TEST(gcfg_caps_bcdma)
{
	struct world w;

	setup(&w, true, false);
	/* BCDMA CAP2: BCHAN 8:0, TCHAN 17:9, RCHAN 26:18 */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.gcfg, 0x28), 32u | 22u << 9 | 28u << 18);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.gcfg, 0x2C), 0);
	teardown(&w);
}
END_TEST

START_TEST(ra_ring_mode)
{
	struct world w;
	uint64_t phys;

	setup(&w, false, false);
	uint64_t *m = mem(&w, 4 * 8, &phys);
	ra_ring(&w, 500, phys, 4, 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.cfg, 500 * 0x100 + 0x48), (1u << 24) | 4u);
	/* software fills three elements and rings the doorbell */
	m[0] = 0x1111;
	m[1] = 0x2222;
	m[2] = 0x3333;
	ofl_mmio_write32(&w.r.rt, DB(500), 3);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(500)), 3);
	uint64_t e;
	ck_assert_int_eq(ofl_sim_ringacc_hw_pop(w.f.ra, 500, &e), 0);
	ck_assert_uint_eq(e, 0x1111);
	ck_assert_int_eq(ofl_sim_ringacc_hw_pop(w.f.ra, 500, &e), 0);
	ck_assert_uint_eq(e, 0x2222);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(500)), 1);
	/* the doorbell takes -1 as 0xFFFFFFFF */
	ofl_mmio_write32(&w.r.rt, DB(500), 0xFFFFFFFFu);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(500)), 0);
	ck_assert_int_eq(ofl_sim_ringacc_hw_pop(w.f.ra, 500, &e), -ENOENT);
	/* the hardware side fills at its own index and wraps */
	for (uint64_t v = 1; v <= 4; v++)
		ck_assert_int_eq(ofl_sim_ringacc_hw_push(w.f.ra, 500, v), 0);
	ck_assert_int_eq(ofl_sim_ringacc_hw_push(w.f.ra, 500, 5), -ENOSPC);
	ck_assert_uint_eq(m[0], 1);
	ck_assert_uint_eq(m[3], 4);
	/* reprogramming the size resets the ring */
	ra_ring(&w, 500, phys, 4, 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(500)), 0);
	teardown(&w);
}
END_TEST

START_TEST(ra_message_mode)
{
	struct world w;
	uint64_t phys;

	setup(&w, false, false);
	mem(&w, 16 * 8, &phys);
	ra_ring(&w, 600, phys, 16, 1);
	for (uint64_t v = 0; v < 16; v++)
		k3fx_write64(&w.r.fifos, PUSH(600), 0xABC00000000ull + v);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(600)), 16);
	/* a 17th push does not fit */
	k3fx_write64(&w.r.fifos, PUSH(600), 0xDEAD);
	ck_assert_uint_eq(ofl_sim_ringacc_overflows(w.f.ra, 600), 1);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(600)), 16);
	/* peek head (window 0x400) does not pop */
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, 600 * 0x1000 + 0x400 + 0x1F8), 0xABC00000000ull);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(600)), 16);
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, POP(600)), 0xABC00000000ull);
	/* an 8-byte element in 32-bit halves is refused and moves nothing (TI CSL csl_ringacc.h:
	 * the 64-bit window accesses need a CPU that issues a 64-bit burst; 32-bit ones use the proxy) */
	ofl_mmio_read32(&w.r.fifos, POP(600));
	ofl_mmio_read32(&w.r.fifos, POP(600) + 4);
	ck_assert_uint_eq(ofl_sim_bus_errors(w.f.sim, NULL, 0), 2);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(600)), 15);
	ofl_mmio_write32(&w.r.fifos, PUSH(600), 0x89ABCDEF);
	ofl_mmio_write32(&w.r.fifos, PUSH(600) + 4, 0x01234567);
	ck_assert_uint_eq(ofl_sim_bus_errors(w.f.sim, NULL, 0), 4);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(600)), 15);
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, POP(600)), 0xABC00000001ull);
	/* anything but the element at the end of the window is a bus error */
	k3fx_write64(&w.r.fifos, 600 * 0x1000 + 0x200, 1);
	ck_assert_uint_eq(ofl_sim_bus_errors(w.f.sim, NULL, 0), 5);
	k3fx_teardown(&w.f);
}
END_TEST

START_TEST(ra_cfg_firewalled)
{
	struct world w;
	uint64_t phys;

	setup(&w, false, true);
	mem(&w, 64, &phys);
	ra_ring(&w, 700, phys, 8, 1);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.cfg, 700 * 0x100 + 0x48), 0);
	/* TI-SCI RING_CFG valid 0x1F: ADDR_LO, ADDR_HI, COUNT, MODE, SIZE */
	ck_assert_int_eq(ofl_sim_ringacc_fw_ring_cfg(w.f.ra, 700, 0x1F, phys, 8, 1, 1), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.cfg, 700 * 0x100 + 0x48), (1u << 30) | (1u << 24) | 8u);
	teardown(&w);
}
END_TEST

/* Program UDMA channel 0 as backends/udma would, by registers, returning to ring `cq`. */
static void udma_chan0(struct world *w, uint32_t cq, uint64_t *ring_phys)
{
	mem(w, 32 * 8, ring_phys);
	ra_ring(w, 0, *ring_phys, 16, 1);
	ra_ring(w, cq, *ring_phys + 128, 16, 1);
	uint32_t cfg = (12u << 16) | (3u << 10) | 4u; /* CHAN_TYPE 12, BURST 256 B, FETCH 4 words */
	ofl_mmio_write32(&w->r.tchan, 0x00, cfg);
	ofl_mmio_write32(&w->r.tchan, 0x14, cq);
	ofl_mmio_write32(&w->r.tchan, 0x68, 0x1000 | 0x8000);
	ofl_mmio_write32(&w->r.rchan, 0x00, cfg);
	ofl_mmio_write32(&w->r.rchan, 0x14, cq);
	ofl_mmio_write32(&w->r.rchan, 0x68, 0x1000);
	/* and the PSI-L route the THREAD registers name (TI CSL CSL_psilcfgCreateRoute()) */
	ck_assert(k3fx_psil_route(w->f.sim, K3FX_PSIL_PROXY, 0x1000, 0x9000));
}

static void enable0(struct world *w)
{
	ofl_mmio_write32(&w->r.rchanrt, 0, 0x80000000u);
	ofl_mmio_write32(&w->r.tchanrt, 0, 0x80000000u);
}

/* A one-TR memcpy descriptor, words per hw/k3_udma.h §4.2-§4.4. */
static void desc1(uint32_t *d, uint32_t retq, uint32_t flags, uint64_t src, uint64_t dst, uint16_t len)
{
	memset(d, 0, 132);
	d[0] = 0xC0000000u;
	d[1] = 0x02000000u | 0x3FFFu;
	d[2] = retq;
	struct cppi5_tr_type15 *tr = &((union cppi5_rec64 *)(void *)d)[1].tr;
	tr->flags = flags;
	tr->icnt0 = tr->dicnt0 = len;
	tr->icnt1 = tr->icnt2 = tr->icnt3 = 1;
	tr->dicnt1 = tr->dicnt2 = tr->dicnt3 = 1;
	tr->dim1 = tr->ddim1 = len;
	tr->addr = src;
	tr->daddr = dst;
	d[32] = 0xFFFFFFFFu; /* response 0 at 64 * 2 */
}

/* A UDMA world with channel 0 ready, a descriptor area of dlen bytes and source/destination of len bytes. */
static uint32_t *prep(struct world *w, size_t dlen, uint64_t *dp, size_t len, uint64_t *sp, uint8_t **s,
		      uint64_t *xp, uint8_t **x)
{
	uint64_t rp;

	setup(w, false, false);
	udma_chan0(w, 440, &rp);
	uint32_t *d = mem(w, dlen, dp);
	uint8_t *a = mem(w, len, sp), *b = mem(w, len, xp);
	if (s)
		*s = a;
	if (x)
		*x = b;
	return d;
}

static uint32_t run1(struct world *w, uint32_t *d, uint64_t dphys, uint32_t cq)
{
	k3fx_write64(&w->r.fifos, PUSH(0), dphys);
	enable0(w);
	ck_assert_uint_ge(k3fx_occ_wait(&w->r.rt, OCC(cq), 1) & 0x1FFFFF, 1);
	ck_assert_uint_eq(k3fx_read64(&w->r.fifos, POP(cq)), dphys);
	return d[32];
}

START_TEST(udma_memcpy_by_registers)
{
	struct world w;
	uint64_t dp, sp, xp;

	uint8_t *s, *x;
	uint32_t *d = prep(&w, 256, &dp, 4096, &sp, &s, &xp, &x);
	for (int i = 0; i < 4096; i++)
		s[i] = (uint8_t)(i * 7 + 1);
	desc1(d, 440, 0x9400002Fu | (0x5Au << 16), sp, xp, 4096);
	ck_assert_uint_eq(run1(&w, d, dp, 440), 0x005A0000u); /* status NONE, CMD_ID echoed */
	ck_assert_int_eq(memcmp(s, x, 4096), 0);
	/* counters: 4096 bytes, one packet; write-to-subtract */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0x408), 4096);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0x410), 4096);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0x400), 1);
	ofl_mmio_write32(&w.r.tchanrt, 0x408, 4000);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0x408), 96);
	/* PEER_BCNT reads and takes writes on UDMA channels */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rchanrt, 0x210), 0);
	ofl_mmio_write32(&w.r.rchanrt, 0x210, 0);
	/* the burst field is what the channel moves with: 4096 / 256 */
	struct ofl_sim_udma_chan_stats st;
	ck_assert_int_eq(ofl_sim_udma_chan_stats(w.f.model, 't', 0, &st), 0);
	ck_assert_uint_eq(st.burst_bytes, 256);
	ck_assert_uint_eq(st.bursts, 16);
	teardown(&w);
}
END_TEST

START_TEST(udma_error_responses)
{
	struct world w;
	uint64_t dp, sp, xp;

	uint32_t *d = prep(&w, 256, &dp, 64, &sp, NULL, &xp, NULL);
	/* a type-1 TR on a block-copy channel: UNSUPPORTED (4), info 0 = TR type */
	desc1(d, 440, 0x94000021u, sp, xp, 64);
	ck_assert_uint_eq(run1(&w, d, dp, 440) & 0xFF, 0x04);
	/* icnt0 = 0: SUBMISSION_ERR (3), info 0 */
	desc1(d, 440, 0x9400002Fu, sp, xp, 64);
	((union cppi5_rec64 *)(void *)d)[1].tr.icnt0 = 0;
	ck_assert_uint_eq(run1(&w, d, dp, 440) & 0xFF, 0x03);
	/* a destination past the end of memory: TRANSFER_ERR (1) */
	desc1(d, 440, 0x9400002Fu, sp, xp + 32, 64);
	ck_assert_uint_eq(run1(&w, d, dp, 440) & 0xFF, 0x01);
	ck_assert_uint_eq(ofl_sim_bus_errors(w.f.sim, NULL, 0), 1);
	/* indirect addressing (CSF SA_INDIRECT): UNSUPPORTED, info 3 = CSF */
	desc1(d, 440, 0x9500002Fu, sp, xp, 64);
	ck_assert_uint_eq(run1(&w, d, dp, 440) & 0xFF, 0x34);
	/* not a TR descriptor (type 2, monolithic): the packet error field is set */
	desc1(d, 440, 0x9400002Fu, sp, xp, 64);
	d[0] = 0x80000000u;
	run1(&w, d, dp, 440);
	ck_assert_uint_eq(d[1] >> 28, 4);
	k3fx_teardown(&w.f);
}
END_TEST

START_TEST(udma_repacking_4d)
{
	struct world w;
	uint64_t dp, sp, xp;

	uint8_t *s, *x;
	uint32_t *d = prep(&w, 256, &dp, 64, &sp, &s, &xp, &x);
	for (int i = 0; i < 64; i++)
		s[i] = (uint8_t)i;
	memset(x, 0xEE, 64);
	desc1(d, 440, 0x9400002Fu, sp, xp, 4);
	struct cppi5_tr_type15 *tr = &((union cppi5_rec64 *)(void *)d)[1].tr;
	/* source: 3 rows of 4 bytes, pitch 8; destination: 2 rows of 6 bytes, pitch 10 */
	tr->icnt0 = 4, tr->icnt1 = 3, tr->dim1 = 8;
	tr->dicnt0 = 6, tr->dicnt1 = 2, tr->ddim1 = 10;
	ck_assert_uint_eq(run1(&w, d, dp, 440) & 0xFF, 0);
	/* the stream 0 1 2 3 8 9 10 11 16 17 18 19 lands at 0..5 and 10..15 */
	static const uint8_t want[16] = { 0, 1, 2, 3, 8, 9, 0xEE, 0xEE, 0xEE, 0xEE, 10, 11, 16, 17, 18, 19 };
	ck_assert_int_eq(memcmp(x, want, 16), 0);
	ck_assert_uint_eq(x[16], 0xEE);
	teardown(&w);
}
END_TEST

START_TEST(udma_teardown_flushes_and_marks)
{
	struct world w;
	uint64_t dp, sp, xp;

	uint32_t *d = prep(&w, 256, &dp, 64, &sp, NULL, &xp, NULL);
	desc1(d, 440, 0x9400002Fu, sp, xp, 64);
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_STUCK, .count = 1 };
	ofl_sim_fault_set(w.f.sim, &f);
	k3fx_write64(&w.r.fifos, PUSH(0), dp);
	enable0(&w);
	ck_assert_int_eq(ofl_sim_wait_idle(w.f.sim, (int64_t)(TEST_PATIENT_NS / 1000u)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(440)), 0);
	/* teardown: CTL = EN | TDOWN */
	ofl_mmio_write32(&w.r.tchanrt, 0, 0xC0000000u);
	ck_assert_uint_eq(k3fx_occ_wait(&w.r.rt, OCC(440), 2) & 0x1FFFFF, 2);
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, POP(440)), dp);
	ck_assert_uint_eq(d[32] & 0xFF, 0x06); /* TEARDOWN_FLUSH */
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, POP(440)), 1); /* the teardown completion marker */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0) & 0x80000000u, 0);
	teardown(&w);
}
END_TEST

START_TEST(udma_needs_pairing_and_type)
{
	struct world w;
	uint64_t dp, sp, xp;

	uint32_t *d = prep(&w, 256, &dp, 64, &sp, NULL, &xp, NULL);
	ofl_mmio_write32(&w.r.rchan, 0x68, 0); /* unpair */
	desc1(d, 440, 0x9400002Fu, sp, xp, 64);
	k3fx_write64(&w.r.fifos, PUSH(0), dp);
	enable0(&w);
	struct timespec ts = { 0, 20000000 };
	nanosleep(&ts, NULL);
	/* nothing moves without the PSI-L pair */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(0)), 1);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(440)), 0);
	/* a channel type that is not a TR type halts the channel with ERROR */
	ofl_mmio_write32(&w.r.rchan, 0x68, 0x1000);
	ofl_mmio_write32(&w.r.tchan, 0x00, 2u << 16);
	enable0(&w);
	for (uint64_t t0 = ofl_now_ns();
	     !(ofl_mmio_read32(&w.r.tchanrt, 0) & 1) && ofl_now_ns() - t0 < TEST_PATIENT_NS;)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0) & 1, 1);
	teardown(&w);
}
END_TEST

START_TEST(udma_tx_ring_overflow_answers_fifo_full)
{
	struct world w;
	uint64_t dp, sp, xp;

	uint32_t *d = prep(&w, 17 * 256, &dp, 64, &sp, NULL, &xp, NULL);
	for (int i = 0; i < 17; i++) {
		desc1(d + 64 * i, 440, 0x9400002Fu, sp, xp, 64);
		k3fx_write64(&w.r.fifos, PUSH(0), dp + 256u * (unsigned)i);
	}
	/* the channel is not enabled: the 17th push overflowed and came straight back */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rt, OCC(440)), 1);
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, POP(440)), dp + 16 * 256);
	ck_assert_uint_eq(d[64 * 16 + 32] & 0xFF, 0x13); /* SUBMISSION_ERR, info 1 = FIFO full */
	teardown(&w);
}
END_TEST

START_TEST(bcdma_dual_ring)
{
	struct world w;
	uint64_t rp, dp, sp, xp;

	setup(&w, true, false);
	uint64_t *ring = mem(&w, 8 * 8, &rp);
	uint32_t *d = mem(&w, 256, &dp);
	uint8_t *s = mem(&w, 512, &sp), *x = mem(&w, 512, &xp);
	for (int i = 0; i < 512; i++)
		s[i] = (uint8_t)(255 - i);
	/* DMA ring 3 (bchan 3): base, ASEL 0, 8 elements; bchan CFG: block copy, 64 B burst */
	ofl_mmio_write32(&w.r.ring, 3 * 0x100 + 0x40, (uint32_t)rp);
	ofl_mmio_write32(&w.r.ring, 3 * 0x100 + 0x44, (uint32_t)(rp >> 32));
	ofl_mmio_write32(&w.r.ring, 3 * 0x100 + 0x48, (1u << 29) | 8); /* QMODE 1 (DRING), cslr_lcdma_ringacc.h */
	ofl_mmio_write32(&w.r.bchan, 3 * 0x100, (12u << 16) | (1u << 10));
	desc1(d, 3, 0x8400002Fu, sp | (5ull << 48), xp | (5ull << 48), 512); /* ASEL 5 in 51:48 */
	ring[0] = dp | (5ull << 48);
	ofl_mmio_write32(&w.r.ringrt, 3 * 0x2000 + 0x10, 1); /* FDB += 1 */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.ringrt, 3 * 0x2000 + 0x18), 1);
	ofl_mmio_write32(&w.r.bchanrt, 3 * 0x1000, 0x80000000u);
	ck_assert_uint_eq(k3fx_occ_wait(&w.r.ringrt, 3 * 0x2000 + 0x1018, 1) & 0x1FFFFF, 1);
	ck_assert_uint_eq(ring[0] & 0x0000FFFFFFFFFFFFull, dp);
	ck_assert_uint_eq(d[32], 0);
	ck_assert_int_eq(memcmp(s, x, 512), 0);
	ofl_mmio_write32(&w.r.ringrt, 3 * 0x2000 + 0x1010, 0xFF); /* RDB -1 */
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.ringrt, 3 * 0x2000 + 0x1018), 0);
	/* teardown: ROCC.COMP, acknowledged through RDB bit 31 */
	ofl_mmio_write32(&w.r.bchanrt, 3 * 0x1000, 0xC0000000u);
	uint32_t v = k3fx_occ_wait(&w.r.ringrt, 3 * 0x2000 + 0x1018, 0);
	for (uint64_t t0 = ofl_now_ns(); !(v & 0x80000000u) && ofl_now_ns() - t0 < TEST_PATIENT_NS;) {
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		v = ofl_mmio_read32(&w.r.ringrt, 3 * 0x2000 + 0x1018);
	}
	ck_assert_uint_eq(v, 0x80000000u);
	ofl_mmio_write32(&w.r.ringrt, 3 * 0x2000 + 0x1010, 0x80000000u);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.ringrt, 3 * 0x2000 + 0x1018), 0);
	/* bchans have no PEER registers */
	ofl_mmio_read32(&w.r.bchanrt, 3 * 0x1000 + 0x210);
	ck_assert_uint_eq(ofl_sim_bus_errors(w.f.sim, NULL, 0), 1);
	k3fx_teardown(&w.f);
}
END_TEST

/* A TI-SCI request of `type` for the firmware channel (ti_sci.h struct ti_sci_msg_hdr). */
static void sci_hdr(uint8_t *m, uint16_t type)
{
	memset(m, 0, TISCI_MSG_MAX);
	tisci_put16(m, TISCI_HDR_TYPE, type);
	tisci_put32(m, TISCI_HDR_FLAGS, TISCI_FLAG_REQ_ACK_ON_PROCESSED);
}

/* A PSIL_PAIR or PSIL_UNPAIR of threads src and dst on the NAVSS: ofl_fw_xfer()'s result. */
static int psil(struct ofl_fw *fw, uint8_t *m, uint16_t type, uint32_t src, uint32_t dst, char *why,
		size_t wl)
{
	sci_hdr(m, type);
	tisci_put32(m, TISCI_PSIL_NAV_ID, K3FX_NAVSS_ID);
	tisci_put32(m, TISCI_PSIL_SRC, src);
	tisci_put32(m, TISCI_PSIL_DST, dst);
	return ofl_fw_xfer(fw, m, TISCI_PSIL_LEN, TISCI_MSG_MAX, why, wl);
}

/* A TX_CH_CFG of UDMA tchan ch: CHAN_TYPE 12, FETCH 4 words, BURST code 3, ATYPE 1, completion queue cq. */
static void tx_ch_cfg(uint8_t *m, uint16_t ch, uint16_t cq)
{
	sci_hdr(m, TISCI_MSG_RM_UDMAP_TX_CH_CFG);
	tisci_put32(m, TISCI_TX_VALID, 0x0E1F | 0x4000);
	tisci_put16(m, TISCI_TX_NAV_ID, K3FX_UDMA_ID);
	tisci_put16(m, TISCI_TX_INDEX, ch);
	tisci_put8(m, TISCI_TX_ATYPE, 1);
	tisci_put8(m, TISCI_TX_CHAN_TYPE, 12);
	tisci_put16(m, TISCI_TX_FETCH_SIZE, 4);
	tisci_put16(m, TISCI_TX_CQ_QNUM, cq);
	tisci_put8(m, TISCI_TX_BURST_SIZE, 3);
}

/*
 * The DM firmware model writes, past the firewall, what each message says it
 * programs (drivers/firmware/ti_sci.h): TX_CH_CFG -> TCHAN TCFG and TCQ,
 * RX_CH_CFG -> RCHAN RCFG and RCQ, PSIL_PAIR -> TCHAN THREAD = destination
 * thread and RCHAN THREAD = source thread, RING_CFG -> the ring's SIZE. The
 * expected register images are the hw/k3_udma.h §3.3 fields, by hand.
 */
START_TEST(dm_firmware_messages)
{
	struct world w;
	struct ofl_fw *fw;
	uint8_t m[TISCI_MSG_MAX];
	char why[256];
	uint64_t phys;

	setup(&w, false, true);
	ck_assert_int_eq(ofl_fw_open(&w.f.ctx->drv.plat, -1, &fw, why, sizeof(why)), 0);
	tx_ch_cfg(m, 5, 300);
	ck_assert_msg(ofl_fw_xfer(fw, m, TISCI_TX_LEN, sizeof(m), why, sizeof(why)) == 0, "%s", why);
	const uint32_t tcfg = (1u << 24) | (12u << 16) | (3u << 10) | 4u;
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100 + 0x00), tcfg);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100 + 0x14), 300);
	/* the response is the request's header with the ACK flag */
	ck_assert_uint_eq(tisci_get16(m, TISCI_HDR_TYPE), TISCI_MSG_RM_UDMAP_TX_CH_CFG);
	ck_assert_uint_eq(tisci_get32(m, TISCI_HDR_FLAGS) & TISCI_FLAG_RESP_GENERIC_ACK, TISCI_FLAG_RESP_GENERIC_ACK);
	/* a burst without its valid bit (14) is not programmed */
	tisci_put32(m, TISCI_HDR_FLAGS, TISCI_FLAG_REQ_ACK_ON_PROCESSED);
	tisci_put32(m, TISCI_TX_VALID, 0x0E1F);
	ck_assert_int_eq(ofl_fw_xfer(fw, m, TISCI_TX_LEN, sizeof(m), why, sizeof(why)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100 + 0x00), tcfg & ~(3u << 10));

	sci_hdr(m, TISCI_MSG_RM_UDMAP_RX_CH_CFG);
	tisci_put32(m, TISCI_RX_VALID, 0x1E1F | 0x4000);
	tisci_put16(m, TISCI_RX_NAV_ID, K3FX_UDMA_ID);
	tisci_put16(m, TISCI_RX_INDEX, 5);
	tisci_put16(m, TISCI_RX_FETCH_SIZE, 4);
	tisci_put16(m, TISCI_RX_CQ_QNUM, 300);
	tisci_put8(m, TISCI_RX_CHAN_TYPE, 12);
	tisci_put8(m, TISCI_RX_BURST_SIZE, 2);
	ck_assert_int_eq(ofl_fw_xfer(fw, m, TISCI_RX_LEN, sizeof(m), why, sizeof(why)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rchan, 5 * 0x100 + 0x00), (12u << 16) | (2u << 10) | 4u);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rchan, 5 * 0x100 + 0x14), 300);

	/* PSI-L: tchan 5 owns source thread 0x1005, rchan 5 destination thread 0x9005 */
	ck_assert_int_eq(psil(fw, m, TISCI_MSG_RM_PSIL_PAIR, J7_PSIL + 5, (J7_PSIL + 5) | 0x8000, why,
			      sizeof(why)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100 + 0x68), 0x9005);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rchan, 5 * 0x100 + 0x68), 0x1005);
	/* ti_sci.h: a destination thread below 0x8000 is NACK'd (Linux then sees -ENODEV) */
	ck_assert_int_eq(psil(fw, m, TISCI_MSG_RM_PSIL_PAIR, J7_PSIL + 6, J7_PSIL + 6, why, sizeof(why)),
			 -ENODEV);
	ck_assert_ptr_nonnull(strstr(why, "below 0x8000"));
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 6 * 0x100 + 0x68), 0);
	ck_assert_int_eq(psil(fw, m, TISCI_MSG_RM_PSIL_UNPAIR, J7_PSIL + 5, (J7_PSIL + 5) | 0x8000, why,
			      sizeof(why)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100 + 0x68), 0);

	/* RING_CFG on the ring accelerator: SIZE = MODE 1 (bits 31:30), ELSIZE 1 (26:24), count 16 */
	mem(&w, 16 * 8, &phys);
	sci_hdr(m, TISCI_MSG_RM_RING_CFG);
	tisci_put32(m, TISCI_RING_VALID, 0x9F);
	tisci_put16(m, TISCI_RING_NAV_ID, K3FX_RA_ID);
	tisci_put16(m, TISCI_RING_INDEX, 700);
	tisci_put32(m, TISCI_RING_ADDR_LO, (uint32_t)phys);
	tisci_put32(m, TISCI_RING_ADDR_HI, (uint32_t)(phys >> 32));
	tisci_put32(m, TISCI_RING_COUNT, 16);
	tisci_put8(m, TISCI_RING_MODE, 1);
	tisci_put8(m, TISCI_RING_SIZE, 1);
	ck_assert_int_eq(ofl_fw_xfer(fw, m, TISCI_RING_LEN, sizeof(m), why, sizeof(why)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.cfg, 700 * 0x100 + 0x48), (1u << 30) | (1u << 24) | 16u);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.cfg, 700 * 0x100 + 0x40), (uint32_t)phys);
	/* a device ID no model has, an unknown type, a short message */
	tisci_put16(m, TISCI_RING_NAV_ID, 77);
	ck_assert_int_eq(ofl_fw_xfer(fw, m, TISCI_RING_LEN, sizeof(m), why, sizeof(why)), -ENODEV);
	ck_assert_ptr_nonnull(strstr(why, "TI-SCI device ID 77"));
	sci_hdr(m, 0x0002); /* TI_SCI_MSG_VERSION: not a message the model knows */
	ck_assert_int_eq(ofl_fw_xfer(fw, m, TISCI_HDR_SIZE, sizeof(m), why, sizeof(why)), -ENODEV);
	sci_hdr(m, TISCI_MSG_RM_RING_CFG);
	ck_assert_int_eq(ofl_fw_xfer(fw, m, 20, sizeof(m), why, sizeof(why)), -ENODEV);
	ck_assert_int_eq(ofl_fw_xfer(fw, m, 4, sizeof(m), why, sizeof(why)), -EINVAL);
	/* the host writes to the firewalled registers are still dropped */
	ofl_mmio_write32(&w.r.tchan, 5 * 0x100 + 0x00, 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100 + 0x00), tcfg & ~(3u << 10));
	ofl_fw_close(fw);
	teardown(&w);
}
END_TEST

/*
 * Threads that configure their own transmit channels at once, through one
 * firmware channel. Each message in flight must carry a seq no other message
 * in flight has: Linux ti_sci hands a response to the request whose seq it
 * carries (ti_sci_rx_callback()), and the model NACKs a seq already in
 * flight. Every message must be ACKed, and each channel's TCQ must hold the
 * completion queue its thread sent last.
 */
enum { SCI_THREADS = 4, SCI_ROUNDS = 100000 };

struct sci_thread {
	struct ofl_fw *fw;
	pthread_barrier_t *go;
	uint16_t ch;
	int failures;
	char why[256];
};

static void *sci_worker(void *arg)
{
	struct sci_thread *t = arg;
	uint8_t m[TISCI_MSG_MAX];
	char why[256];

	pthread_barrier_wait(t->go);
	for (int i = 0; i < SCI_ROUNDS; i++) {
		tx_ch_cfg(m, t->ch, (uint16_t)(300 + i % 64));
		if (ofl_fw_xfer(t->fw, m, TISCI_TX_LEN, sizeof(m), why, sizeof(why)) != 0 && !t->failures++)
			memcpy(t->why, why, sizeof(why));
	}
	return NULL;
}

START_TEST(dm_firmware_threads_at_once)
{
	struct world w;
	struct ofl_fw *fw;
	struct sci_thread t[SCI_THREADS];
	pthread_barrier_t go;
	char why[256];

	setup(&w, false, true);
	ck_assert_int_eq(ofl_fw_open(&w.f.ctx->drv.plat, -1, &fw, why, sizeof(why)), 0);
	ck_assert_int_eq(pthread_barrier_init(&go, NULL, SCI_THREADS), 0);
	for (int i = 0; i < SCI_THREADS; i++)
		t[i] = (struct sci_thread){ .fw = fw, .go = &go, .ch = (uint16_t)(10 + i) };
	test_run_threads(sci_worker, t, sizeof(t[0]), SCI_THREADS);
	pthread_barrier_destroy(&go);
	for (int i = 0; i < SCI_THREADS; i++) {
		ck_assert_msg(t[i].failures == 0, "%d of %d messages NACKed; the first: %s", t[i].failures,
			      SCI_ROUNDS, t[i].why);
		ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, (10u + (unsigned)i) * 0x100 + 0x14),
				  300 + (SCI_ROUNDS - 1) % 64);
	}
	ofl_fw_close(fw);
	teardown(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("k3-models");
	TCase *t = tcase_create("registers");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, gcfg_caps_udma);
	tcase_add_test(t, gcfg_caps_bcdma);
	tcase_add_test(t, ra_ring_mode);
	tcase_add_test(t, ra_message_mode);
	tcase_add_test(t, ra_cfg_firewalled);
	tcase_add_test(t, udma_memcpy_by_registers);
	tcase_add_test(t, udma_error_responses);
	tcase_add_test(t, udma_repacking_4d);
	tcase_add_test(t, udma_teardown_flushes_and_marks);
	tcase_add_test(t, udma_needs_pairing_and_type);
	tcase_add_test(t, udma_tx_ring_overflow_answers_fifo_full);
	tcase_add_test(t, bcdma_dual_ring);
	tcase_add_test(t, dm_firmware_messages);
	tcase_add_test(t, dm_firmware_threads_at_once);
	suite_add_tcase(s, t);
	return test_run(s);
}
