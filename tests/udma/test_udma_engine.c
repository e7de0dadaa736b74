/* SPDX-License-Identifier: MIT */
/*
 * backends/udma on the register-level models, without a device tree:
 * capabilities and channel classes, the descriptor format, memcpy
 * correctness over sizes and alignments on coherent and emulated
 * non-coherent memory, dropped cache operations, fault injection, and
 * several threads with their own queues.
 */
#include <pthread.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "k3_fixture.h"

/* ------------------------------------------------------------- pure pieces */

START_TEST(split_rules)
{
	uint16_t c0, c1, rem;

	/* below 64 KiB: one TR */
	ck_assert_int_eq(udma_split(65535, 0, 0, &c0, &c1, &rem), 1);
	ck_assert_uint_eq(c0, 65535);
	ck_assert_uint_eq(c1, 1);
	/* 8-aligned: rows of 65536 - 8 = 65528 bytes (hw/k3_udma.h §4.6) */
	ck_assert_int_eq(udma_split(1048576, 0x1000, 0x2000, &c0, &c1, &rem), 2);
	ck_assert_uint_eq(c0, 65528);
	ck_assert_uint_eq(c1, 16);
	ck_assert_uint_eq(rem, 1048576 - 16 * 65528);
	/* an odd address: rows of 65535 */
	ck_assert_int_eq(udma_split(200000, 0x1001, 0x2000, &c0, &c1, &rem), 2);
	ck_assert_uint_eq(c0, 65535);
	ck_assert_uint_eq(c1, 3);
	ck_assert_uint_eq(rem, 200000 - 3 * 65535);
	/* 4-aligned: 65532 */
	ck_assert_int_eq(udma_split(70000, 0x1004, 0x2000, &c0, &c1, &rem), 2);
	ck_assert_uint_eq(c0, 65532);
	/* an exact multiple gets one TR (never an icnt0 = 0 TR) */
	ck_assert_int_eq(udma_split(65528u * 3u, 0, 0, &c0, &c1, &rem), 1);
	ck_assert_uint_eq(c1, 3);
	/* the largest length any alignment accepts: 65535 * 65536 - 1 */
	ck_assert_int_gt(udma_split(4294901759ull, 0, 0, &c0, &c1, &rem), 0);
	ck_assert_uint_eq(c0, 65535);
	ck_assert_int_eq(udma_split(4294901760ull, 0, 0, &c0, &c1, &rem), -EINVAL);
	ck_assert_int_eq(udma_split(0, 0, 0, &c0, &c1, &rem), -EINVAL);
}
END_TEST

START_TEST(descriptor_words)
{
	uint32_t d[UDMA_SLOT_SIZE / 4];
	const struct cppi5_tr_type15 *tr = (const void *)(d + 16);

	/* one TR, UDMA, packet id 5, return ring 440 (hw/k3_udma.h §4.2 worked example) */
	ck_assert_int_eq(udma_desc_memcpy(d, false, 5, 440, 0x880000000ull, 0x880100000ull, 1000), 1);
	ck_assert_uint_eq(d[0], 0xC0000000u);
	ck_assert_uint_eq(d[1], 0x02000000u | (5u << 14) | 0x3FFFu);
	ck_assert_uint_eq(d[2], 440);
	ck_assert_uint_eq(d[3], 0);
	ck_assert_uint_eq(tr[0].flags, 0x9400002Fu);
	ck_assert_uint_eq(tr[0].icnt0, 1000);
	ck_assert_uint_eq(tr[0].icnt1, 1);
	ck_assert_uint_eq(tr[0].addr, 0x880000000ull);
	ck_assert_uint_eq(tr[0].daddr, 0x880100000ull);
	ck_assert_uint_eq(tr[0].dicnt0, 1000);
	/* the response word follows at R * (N + 1) = 128 */
	ck_assert_uint_eq(d[32], 0xFFFFFFFFu);
	/* two TRs, BCDMA flags: 0x0400002F then 0x8400002F (hw/k3_udma.h §4.3) */
	ck_assert_int_eq(udma_desc_memcpy(d, true, 0, 7, 0x1000, 0x2000, 200000), 2);
	ck_assert_uint_eq(d[0], 0xC0000001u);
	ck_assert_uint_eq(tr[0].flags, 0x0400002Fu);
	ck_assert_uint_eq(tr[1].flags, 0x8400002Fu);
	ck_assert_uint_eq(tr[0].icnt0, 65528);
	ck_assert_uint_eq(tr[0].icnt1, 3);
	ck_assert_int_eq(tr[0].dim1, 65528);
	ck_assert_uint_eq(tr[1].icnt0, 200000 - 3 * 65528);
	ck_assert_uint_eq(tr[1].addr, 0x1000 + 3 * 65528);
	ck_assert_uint_eq(tr[1].daddr, 0x2000 + 3 * 65528);
	/* responses at R * (N + 1) = 192 */
	ck_assert_uint_eq(d[48], 0xFFFFFFFFu);
	ck_assert_uint_eq(d[49], 0xFFFFFFFFu);
	ck_assert_uint_eq(CPPI5_TRDESC_SIZE(2), 200);
}
END_TEST

/* ------------------------------------------------------------- engine */

START_TEST(caps_and_classes_udma)
{
	struct k3fx f;

	k3fx_setup(&f, false, false);
	ck_assert_uint_eq(f.e.tchan_cnt, 140);
	ck_assert_uint_eq(f.e.rchan_cnt, 140);
	ck_assert_uint_eq(f.e.nchan, 140);
	/* tchan n -> ring n; GP rings after 140 tchan + 160 echan + 140 rchan rings */
	ck_assert_uint_eq(f.e.gp_first, 440);
	/* TI-SCI j721e: UH 0-3, H 4-15, normal 16-139 */
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 0), 2);
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 3), 2);
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 4), 1);
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 15), 1);
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 16), 0);
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 139), 0);
	k3fx_teardown(&f);
}
END_TEST

START_TEST(caps_and_classes_bcdma)
{
	struct k3fx f;

	k3fx_setup(&f, true, false);
	ck_assert_uint_eq(f.e.nchan, 32);
	ck_assert_uint_eq(f.e.tpl_levels, 1);
	ck_assert_uint_eq(udma_chan_tpl(&f.e, 0), 0);
	k3fx_teardown(&f);
}
END_TEST

START_TEST(burst_reaches_channel_config)
{
	struct k3fx f;
	char src[1024], dst[1024];

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, false);
	memset(src, 0x42, sizeof(src));
	ck_assert_int_eq(udma_copy(&f.e, dst, src, sizeof(src), NULL), 0);
	/* the first sync channel is channel 0, an ultra-high-capacity one: 256 B = code 3 in TCFG 11:10 */
	ck_assert_uint_eq((ofl_mmio_read32(&f.e.tchancfg, 0) >> 10) & 3, 3);
	ck_assert_uint_eq((ofl_mmio_read32(&f.e.rchancfg, 0) >> 10) & 3, 3);
	/* CHAN_TYPE 12 (block copy), FETCH_SIZE 4 words */
	ck_assert_uint_eq((ofl_mmio_read32(&f.e.tchancfg, 0) >> 16) & 0xF, 12);
	ck_assert_uint_eq(ofl_mmio_read32(&f.e.tchancfg, 0) & 0x7F, 4);
	/* PSI-L pair: tchan -> 0x1000 | 0x8000, rchan <- 0x1000 */
	ck_assert_uint_eq(ofl_mmio_read32(&f.e.tchancfg, 0x68), 0x9000);
	ck_assert_uint_eq(ofl_mmio_read32(&f.e.rchancfg, 0x68), 0x1000);
	struct ofl_sim_udma_chan_stats st;
	ck_assert_int_eq(ofl_sim_udma_chan_stats(f.model, 't', 0, &st), 0);
	ck_assert_uint_eq(st.burst_bytes, 256);
	ck_assert_int_eq(memcmp(src, dst, sizeof(src)), 0);
	k3fx_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------- correctness */

#define GUARD 512

/* Copy len bytes between offsets so and do of two areas; check the copy and the guards. */
static void check_copy(struct k3fx *f, uint8_t *sbase, uint8_t *dbase, size_t so, size_t dof, size_t len,
		       uint32_t seed)
{
	uint8_t *s = sbase + GUARD + so, *d = dbase + GUARD + dof;
	for (size_t i = 0; i < len; i++)
		s[i] = (uint8_t)((i * 2654435761u + seed) >> 13);
	memset(dbase, 0xA5, dof + len + 2 * GUARD);
	struct offload_result res;
	int r = udma_copy(&f->e, d, s, len, &res);
	char bus[160] = "";
	uint64_t nbus = ofl_sim_bus_errors(f->sim, bus, sizeof(bus));
	ck_assert_msg(r == 0, "copy len %zu src+%zu dst+%zu: %d %s (%llu bus errors: %s)", len, so, dof,
		      r, offload_last_error(f->ctx), (unsigned long long)nbus, bus);
	/* anything at least two bursts long has an aligned body that the engine moved */
	if (len >= 2u * f->e.align)
		ck_assert_uint_eq(res.flags & (OFFLOAD_RES_DIRECT | OFFLOAD_RES_SIM),
				  OFFLOAD_RES_DIRECT | OFFLOAD_RES_SIM);
	for (size_t i = 0; i < len; i++)
		if (d[i] != s[i])
			ck_abort_msg("len %zu src+%zu dst+%zu: byte %zu is 0x%02x, want 0x%02x", len, so, dof, i,
				     d[i], s[i]);
	for (size_t i = 0; i < GUARD + dof; i++)
		ck_assert_msg(dbase[i] == 0xA5, "len %zu: guard byte %zu before dst overwritten", len, i);
	for (size_t i = 0; i < GUARD; i++)
		ck_assert_msg(d[len + i] == 0xA5, "len %zu: guard byte %zu after dst overwritten", len, i);
}

enum mem_kind { ZERO_COPY, BOUNCE, MIXED };

static void *area(struct k3fx *f, size_t len, bool dma)
{
	if (dma)
		return k3fx_buf(f, len, NULL);
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	ck_assert_ptr_nonnull(p);
	return p;
}

static void free_area(struct k3fx *f, void *p, bool dma)
{
	if (dma)
		ofl_dma_free(ofl_dma_lookup(f->e.pool, p, 1));
	else
		free(p);
}

/* Every alignment 0 .. A-1 of source, destination and length around `base` bytes. */
static void alignment_sweep(bool bcdma, bool noncoherent, enum mem_kind kind, size_t base)
{
	struct k3fx f;

	if (!bcdma)
		K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, bcdma, noncoherent);
	size_t A = bcdma ? 64 : 256; /* the channel burst (am64 bcdma 64 B, j721e UH 256 B) */
	size_t span = base + 2 * A + 2 * GUARD;
	uint8_t *s = area(&f, span, kind != BOUNCE), *d = area(&f, span, kind == ZERO_COPY);
	for (size_t a = 0; a < A; a++) {
		check_copy(&f, s, d, a, 0, base + a, (uint32_t)a);
		check_copy(&f, s, d, 0, a, base + a, (uint32_t)a + 1);
		check_copy(&f, s, d, a, a, base + (A - 1 - a), (uint32_t)a + 2);
		check_copy(&f, s, d, a, (a * 7) % A, base + (a * 13) % A, (uint32_t)a + 3);
	}
	free_area(&f, s, kind != BOUNCE);
	free_area(&f, d, kind == ZERO_COPY);
	ck_assert_uint_eq(ofl_sim_bus_errors(f.sim, NULL, 0), 0);
	k3fx_teardown(&f);
}

START_TEST(align_udma_coherent_zero_copy) { alignment_sweep(false, false, ZERO_COPY, 4096); }
END_TEST
START_TEST(align_udma_coherent_bounce) { alignment_sweep(false, false, BOUNCE, 4096); }
END_TEST
START_TEST(align_udma_noncoherent_zero_copy) { alignment_sweep(false, true, ZERO_COPY, 4096); }
END_TEST
START_TEST(align_udma_noncoherent_mixed) { alignment_sweep(false, true, MIXED, 70000); }
END_TEST
START_TEST(align_bcdma_noncoherent_zero_copy) { alignment_sweep(true, true, ZERO_COPY, 4096); }
END_TEST
START_TEST(align_bcdma_noncoherent_bounce) { alignment_sweep(true, true, BOUNCE, 1000); }
END_TEST

static const size_t sizes[] = { 1, 2, 3, 7, 63, 64, 65, 255, 256, 257, 1000, 4095, 4096, 4097, 65535,
				65536, 65537, 200000, 262144, 262145, 1048576 + 13, 4u << 20,
				16u << 20 };

static void size_sweep(bool bcdma, bool noncoherent, enum mem_kind kind)
{
	struct k3fx f;

	if (!bcdma)
		K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, bcdma, noncoherent);
	size_t span = (16u << 20) + 512 + 2 * GUARD;
	uint8_t *s = area(&f, span, kind != BOUNCE), *d = area(&f, span, kind == ZERO_COPY);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(sizes); i++) {
		check_copy(&f, s, d, 0, 0, sizes[i], (uint32_t)i);
		check_copy(&f, s, d, 3, 129, sizes[i], (uint32_t)i + 100);
	}
	free_area(&f, s, kind != BOUNCE);
	free_area(&f, d, kind == ZERO_COPY);
	k3fx_teardown(&f);
}

START_TEST(sizes_udma_coherent_zero_copy) { size_sweep(false, false, ZERO_COPY); }
END_TEST
START_TEST(sizes_udma_noncoherent_zero_copy) { size_sweep(false, true, ZERO_COPY); }
END_TEST
START_TEST(sizes_udma_noncoherent_bounce) { size_sweep(false, true, BOUNCE); }
END_TEST
START_TEST(sizes_bcdma_noncoherent_mixed) { size_sweep(true, true, MIXED); }
END_TEST

/* ------------------------------------------------------------- cache operations */

static void dropped_op(enum ofl_sim_fault_kind kind, bool noncoherent)
{
	struct k3fx f;
	struct ofl_dma *sd, *dd;

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, noncoherent);
	uint8_t *s = k3fx_buf(&f, 65536, &sd), *d = k3fx_buf(&f, 65536, &dd);
	memset(s, 0x5A, 65536);
	memset(d, 0xC3, 65536);
	/* drop the one operation on the buffer that needs it: clean of src, invalidate of dst */
	struct ofl_sim_fault fl = { .kind = kind, .count = 1,
				    .cpu = kind == OFL_SIM_FAULT_DROP_CLEAN ? (void *)s : (void *)d,
				    .len = 65536 };
	ck_assert_int_eq(ofl_sim_fault_set(f.sim, &fl), 0);
	ck_assert_int_eq(udma_copy(&f.e, d, s, 65536, NULL), 0);
	if (noncoherent) {
		ck_assert_uint_eq(ofl_sim_fault_fired(f.sim, kind), 1);
		/* clean dropped: the engine copied the zeroed RAM; inval dropped: the CPU sees its old 0xC3 */
		ck_assert_uint_eq(d[1000], kind == OFL_SIM_FAULT_DROP_CLEAN ? 0x00 : 0xC3);
		ck_assert_int_ne(memcmp(s, d, 65536), 0);
		/* the same copy with the operation in place is right */
		ck_assert_int_eq(udma_copy(&f.e, d, s, 65536, NULL), 0);
	} else {
		/* a coherent device gets no cache operation at all: nothing to drop */
		ck_assert_uint_eq(ofl_sim_fault_fired(f.sim, kind), 0);
	}
	ck_assert_int_eq(memcmp(s, d, 65536), 0);
	ck_assert_uint_eq(atomic_load(&f.dev->stats.cache_clean_calls) > 0, noncoherent);
	k3fx_teardown(&f);
}

START_TEST(drop_clean_corrupts) { dropped_op(OFL_SIM_FAULT_DROP_CLEAN, true); }
END_TEST
START_TEST(drop_inval_corrupts) { dropped_op(OFL_SIM_FAULT_DROP_INVAL, true); }
END_TEST
START_TEST(coherent_needs_no_ops) { dropped_op(OFL_SIM_FAULT_DROP_CLEAN, false); }
END_TEST

/* ------------------------------------------------------------- faults */

START_TEST(error_response_is_eio)
{
	struct k3fx f;
	char s[4096], d[4096];

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, false);
	memset(s, 1, sizeof(s));
	struct ofl_sim_fault fl = { .kind = OFL_SIM_FAULT_ERROR, .count = 1 };
	ofl_sim_fault_set(f.sim, &fl);
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), -EIO);
	ck_assert_ptr_nonnull(strstr(offload_last_error(f.ctx), "TR response status 0x01"));
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), 0);
	ck_assert_int_eq(memcmp(s, d, sizeof(s)), 0);
	k3fx_teardown(&f);
}
END_TEST

static void stuck_or_lost(enum ofl_sim_fault_kind kind, bool bcdma)
{
	struct k3fx f;
	char s[4096], d[4096];

	if (!bcdma)
		K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, bcdma, false);
	/* never completes, so the short watchdog fires whatever the load (the teardown stays patient) */
	f.e.timeout_ns = TEST_IMPATIENT_NS;
	memset(s, 7, sizeof(s));
	struct ofl_sim_fault fl = { .kind = kind, .count = 1 };
	ofl_sim_fault_set(f.sim, &fl);
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(f.ctx), "torn down"));
	ck_assert_ptr_null(strstr(offload_last_error(f.ctx), "teardown itself timed out"));
	/* the same channel serves the next copy, however late the model thread runs */
	f.e.timeout_ns = TEST_PATIENT_NS;
	memset(d, 0, sizeof(d));
	struct offload_result res;
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), &res), 0);
	ck_assert_int_eq(memcmp(s, d, sizeof(s)), 0);
	ck_assert_str_eq(res.driver, bcdma ? "bcdma-bchan0" : "udma-tchan0");
	ck_assert_uint_eq(res.flags & OFFLOAD_RES_SIM, OFFLOAD_RES_SIM);
	k3fx_teardown(&f);
}

START_TEST(stuck_channel_times_out_and_recovers) { stuck_or_lost(OFL_SIM_FAULT_STUCK, false); }
END_TEST
START_TEST(lost_completion_times_out_and_recovers) { stuck_or_lost(OFL_SIM_FAULT_LOST, false); }
END_TEST
START_TEST(bcdma_stuck_times_out_and_recovers) { stuck_or_lost(OFL_SIM_FAULT_STUCK, true); }
END_TEST

/*
 * A huge timeout means "wait", not "already expired": INT64_MAX us times 1000
 * wraps to -1000 ns in 64 bits, which made the first check of the deadline
 * fail while a delayed completion was still on its way.
 */
START_TEST(progress_with_huge_timeout_waits)
{
	struct k3fx f;
	enum { LEN = 1 << 16 };
	uint8_t *src = malloc(LEN), *dst = calloc(1, LEN);
	struct ofl_job jobs[2];
	struct offload_queue q = { .ctx = NULL, .depth = 2, .mask = 1, .jobs = jobs };

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, false);
	q.ctx = f.ctx;
	q.dev = f.dev;
	memset(src, 0x5A, LEN);
	ck_assert_int_eq(udma_memcpy_ops.queue_open(f.dev, &q), 0);
	struct ofl_sim_fault fl = { .kind = OFL_SIM_FAULT_DELAY, .count = 1, .arg = 30000 };
	ofl_sim_fault_set(f.sim, &fl);
	jobs[0] = (struct ofl_job){ .dst = dst, .src = src, .len = LEN };
	q.tail = 1;
	ck_assert_int_eq(udma_memcpy_ops.queue_submit(&q), 0);
	q.submitted = 1;
	ck_assert_int_eq(udma_memcpy_ops.queue_progress(&q, INT64_MAX), 0);
	ck_assert_uint_eq(q.done, 1);
	ck_assert_int_eq(jobs[0].status, 0);
	ck_assert_int_eq(memcmp(src, dst, LEN), 0);
	ck_assert_uint_eq(ofl_sim_fault_fired(f.sim, OFL_SIM_FAULT_DELAY), 1);
	udma_memcpy_ops.queue_close(&q);
	k3fx_teardown(&f);
	free(src);
	free(dst);
}
END_TEST

/*
 * The breaker's H1: completion-ring FIFO windows past the mapped block. Every
 * pop reads all ones (a bus error). That value is neither the descriptor nor
 * a teardown marker anyone asked for: the copy must fail with -EIO, promptly
 * (the old code took it as a stale marker, did not advance, re-read the same
 * occupancy and spun forever, resetting the stall watchdog on each pass).
 */
START_TEST(bus_error_on_completion_ring_is_eio)
{
	struct k3fx f;
	char s[4096], d[4096];

	/* 4 KiB of FIFO windows: ring 0 (TX of channel 0) works, the completion rings do not */
	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup_ex(&f, false, false, false, 0x1000);
	/* the fixture's watchdog is patient: the -EIO comes from the pops, not from a late model thread */
	memset(s, 5, sizeof(s));
	for (int i = 0; i < 2; i++) { /* and again on the reset channel */
		ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), -EIO);
		const char *m = offload_last_error(f.ctx);
		ck_assert_msg(strstr(m, "0xffffffffffffffff") && strstr(m, "torn down"), "%s", m);
	}
	char last[160];
	ck_assert_uint_gt(ofl_sim_bus_errors(f.sim, last, sizeof(last)), 0);
	ck_assert_ptr_nonnull(strstr(last, "fifos"));
	k3fx_teardown(&f);
}
END_TEST

/* An occupancy register that reads more than the ring holds is -EIO, not that many pops. */
START_TEST(impossible_occupancy_is_eio)
{
	struct k3fx f;
	char s[4096], d[4096];

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, false);
	memset(s, 6, sizeof(s));
	/* the completion ring's rt registers as a region one page short of them: reads are all ones */
	uint32_t cq = f.e.gp_first; /* the first channel's completion ring */
	f.e.ra_rt.size = (uint64_t)cq * K3_RA_RT_STRIDE;
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), -EIO);
	ck_assert_ptr_nonnull(strstr(offload_last_error(f.ctx), "occupancy register reads 0xffffffff"));
	f.e.ra_rt.size = 0x400000;
	memset(d, 0, sizeof(d));
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), 0);
	ck_assert_int_eq(memcmp(s, d, sizeof(s)), 0);
	k3fx_teardown(&f);
}
END_TEST

/* A region smaller than the rings or channels the engine reports: refused at init, with the numbers. */
START_TEST(regions_too_small_are_refused)
{
	static const struct {
		bool bcdma;
		size_t field;   /* offsetof the region in struct udma_engine */
		uint64_t size;
		const char *want;
	} cases[] = {
		/* 1024 rings x 4 KiB: ring 1023's FIFO window ends at 1023 * 0x1000 + 0x400 */
		{ false, offsetof(struct udma_engine, ra_fifos), 0x3ff3ff, "ring 1023 needs it to reach 0x3ff400" },
		{ false, offsetof(struct udma_engine, ra_rt), 0x1000, "ring accelerator \"rt\" region is 0x1000" },
		{ false, offsetof(struct udma_engine, ra_cfg), 0x100, "ring accelerator \"cfg\"" },
		/* 140 memcpy channels x 4 KiB: channel 139's SBCNT ends at 139 * 0x1000 + 0x414 */
		{ false, offsetof(struct udma_engine, tchanrt), 0x8b413, "channel 139 needs it to reach 0x8b414" },
		{ false, offsetof(struct udma_engine, rchancfg), 0x100, "\"rchan\" region" },
		{ false, offsetof(struct udma_engine, gcfg), 0x20, "\"gcfg\" region is 0x20 bytes" },
		/* 32 bchans x 8 KiB DMA rings: ring 31's ROCC ends at 31 * 0x2000 + 0x101c */
		{ true, offsetof(struct udma_engine, ringrt), 0x3f01b, "ring 31 needs it to reach 0x3f01c" },
		{ true, offsetof(struct udma_engine, bchanrt), 0x1000, "\"bchanrt\" region" },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(cases); i++) {
		struct k3fx f;
		char why[512] = "";
		k3fx_setup(&f, cases[i].bcdma, false);
		udma_engine_fini(&f.e);
		struct ofl_mmio *m = (struct ofl_mmio *)(void *)((char *)&f.e + cases[i].field);
		uint64_t keep = m->size;
		m->size = cases[i].size;
		ck_assert_int_eq(udma_engine_init(&f.e, why, sizeof(why)), -ENODEV);
		ck_assert_msg(strstr(why, cases[i].want), "case %zu: %s", i, why);
		m->size = keep;
		ck_assert_int_eq(udma_engine_init(&f.e, why, sizeof(why)), 0);
		k3fx_teardown(&f);
	}
}
END_TEST

/* Configuring through registers (no DM firmware) needs the configuration regions in the tree. */
START_TEST(config_regions_needed_without_firmware)
{
	static const struct {
		bool bcdma;
		size_t field;
		const char *want;
	} cases[] = {
		{ false, offsetof(struct udma_engine, tchancfg), "no \"tchan\" region" },
		{ false, offsetof(struct udma_engine, rchancfg), "no \"rchan\" region" },
		{ false, offsetof(struct udma_engine, ra_cfg), "no ring accelerator \"cfg\" region" },
		{ true, offsetof(struct udma_engine, bchancfg), "no \"bchan\" region" },
		{ true, offsetof(struct udma_engine, ringcfg), "no \"ring\" region" },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(cases); i++) {
		struct k3fx f;
		char why[512] = "";
		k3fx_setup(&f, cases[i].bcdma, false);
		udma_engine_fini(&f.e);
		struct ofl_mmio *m = (struct ofl_mmio *)(void *)((char *)&f.e + cases[i].field);
		enum ofl_mmio_kind keep = m->kind;
		m->kind = OFL_MMIO_NONE;
		ck_assert_int_eq(udma_engine_init(&f.e, why, sizeof(why)), -ENODEV);
		ck_assert_msg(strstr(why, cases[i].want), "case %zu: %s", i, why);
		/* DM firmware (here the sim's TI-SCI) configures them instead: fine without */
		k3fx_firmware(&f);
		ck_assert_int_eq(udma_engine_init(&f.e, why, sizeof(why)), 0);
		m->kind = keep;
		k3fx_teardown(&f);
	}
}
END_TEST

START_TEST(delayed_completion_is_waited_for)
{
	struct k3fx f;
	char s[256], d[256];

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, false);
	/* 30 ms late: 1000 times inside the fixture's watchdog, so always waited for */
	memset(s, 9, sizeof(s));
	struct ofl_sim_fault fl = { .kind = OFL_SIM_FAULT_DELAY, .count = 1, .arg = 30000 };
	ofl_sim_fault_set(f.sim, &fl);
	ck_assert_int_eq(udma_copy(&f.e, d, s, sizeof(s), NULL), 0);
	ck_assert_uint_eq(ofl_sim_fault_fired(f.sim, OFL_SIM_FAULT_DELAY), 1);
	ck_assert_int_eq(memcmp(s, d, sizeof(s)), 0);
	k3fx_teardown(&f);
}
END_TEST

START_TEST(firewalled_config_is_refused)
{
	struct k3fx f;
	char why[256];

	k3fx_world(&f, false);
	k3fx_models(&f, false, true, 0);
	struct udma_engine *e = &f.e;
	e->dev = f.dev;
	e->sim = true;
	k3fx_map(&f, &e->gcfg, 0x31150000, 0x100);
	k3fx_map(&f, &e->rchanrt, 0x34000000, 0x100000);
	k3fx_map(&f, &e->tchanrt, 0x35000000, 0x100000);
	k3fx_map(&f, &e->tchancfg, 0x30b00000, 0x20000);
	k3fx_map(&f, &e->rchancfg, 0x30c00000, 0x10000);
	k3fx_map(&f, &e->ra_rt, 0x3c000000, 0x400000);
	k3fx_map(&f, &e->ra_fifos, 0x38000000, 0x400000);
	k3fx_map(&f, &e->ra_cfg, 0x31080000, 0x40000);
	e->ra_rings = J7_RINGS;
	e->align = 256;
	struct ofl_dma_pool_opts po = { .cache = OFFLOAD_CACHE_COHERENT };
	ck_assert_int_eq(ofl_dma_pool_create(f.dev, &po, &e->pool), 0);
	ck_assert_int_eq(udma_engine_init(e, why, sizeof(why)), 0);
	struct udma_chan *ch;
	ck_assert_int_eq(udma_chan_open(e, 16, false, &ch, why, sizeof(why)), -EACCES);
	/* the ring configuration is the first thing refused: it never reached the RA */
	ck_assert_ptr_nonnull(strstr(why, "system firmware"));
	ck_assert_uint_eq(ofl_mmio_read32(&e->ra_cfg, 0x48), 0);
	k3fx_teardown(&f);
}
END_TEST

static void through_firmware(bool bcdma)
{
	struct k3fx f;
	char src[70000], dst[70000];

	if (!bcdma)
		K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup_fw(&f, bcdma, true, true);
	memset(src, 0x6B, sizeof(src));
	ck_assert_int_eq(udma_copy(&f.e, dst, src, sizeof(src), NULL), 0);
	ck_assert_int_eq(memcmp(src, dst, sizeof(src)), 0);
	/* the library wrote no configuration register; the burst arrived through the firmware */
	ck_assert_uint_eq(ofl_sim_udma_firewall_drops(f.model), 0);
	const struct ofl_mmio *cfg = bcdma ? &f.e.bchancfg : &f.e.tchancfg;
	ck_assert_uint_eq((ofl_mmio_read32(cfg, 0) >> 10) & 3, bcdma ? 1 : 3);
	k3fx_teardown(&f);
}

START_TEST(udma_config_through_tisci) { through_firmware(false); }
END_TEST
START_TEST(bcdma_config_through_tisci) { through_firmware(true); }
END_TEST

/* ------------------------------------------------------------- queues */

struct qthread {
	struct k3fx *f;
	int id;
	int failures;
};

/* What src/core/queue.c does around the backend ops, for a queue of `depth` jobs. */
static void *queue_worker(void *arg)
{
	struct qthread *t = arg;
	struct k3fx *f = t->f;
	enum { DEPTH = 32, JOBS = 200, LEN = 20000 };
	struct ofl_job jobs[DEPTH];
	struct offload_queue q = { .ctx = f->ctx, .dev = f->dev, .depth = DEPTH, .mask = DEPTH - 1,
				   .jobs = jobs };
	uint8_t *src = malloc((size_t)JOBS * LEN), *dst = calloc(JOBS, LEN);

	for (size_t i = 0; i < (size_t)JOBS * LEN; i++)
		src[i] = (uint8_t)(i * 31 + (size_t)t->id);
	if (udma_memcpy_ops.queue_open(f->dev, &q) < 0) {
		t->failures++;
		goto out;
	}
	uint32_t next = 0;
	while (q.done != JOBS) {
		while (next < JOBS && q.tail - q.head < DEPTH) {
			struct ofl_job *j = &jobs[q.tail & q.mask];
			*j = (struct ofl_job){ .dst = dst + (size_t)next * LEN + (next % 5),
					       .src = src + (size_t)next * LEN, .len = LEN - (next % 5),
					       .user_data = next };
			q.tail++;
			next++;
		}
		udma_memcpy_ops.queue_submit(&q);
		q.submitted = q.tail;
		if (udma_memcpy_ops.queue_progress(&q, -1) < 0)
			t->failures++;
		while (q.head != q.done) {
			struct ofl_job *j = &jobs[q.head & q.mask];
			if (j->status || memcmp(j->dst, j->src, j->len) ||
			    (uint32_t)j->user_data != q.head)
				t->failures++;
			q.head++;
		}
	}
	udma_memcpy_ops.queue_close(&q);
out:
	free(src);
	free(dst);
	return NULL;
}

/*
 * The NAVSS has one PSI-L configuration proxy, a single set of command
 * registers (CMDA, CMDB, WDATA, RDATA; hw/k3_udma.h §3.7) for every thread:
 * commands from two threads must not mix, or a pair is routed to the wrong
 * peer (or not at all) and its channel never runs. Threads open their queues
 * at once (a barrier), then each unpairs and pairs its own channel's threads
 * again and again, checking in the model after every pairing that its own
 * tchan/rchan pair is routed.
 */
enum { PAIR_ROUNDS = 2000 };

struct pthread_at_once {
	struct k3fx *f;
	pthread_barrier_t *go;
	int checks, failures;
};

static void *pair_worker(void *arg)
{
	struct pthread_at_once *t = arg;
	struct udma_engine *e = &t->f->e;
	enum { DEPTH = 16 };
	struct ofl_job jobs[DEPTH];
	struct offload_queue q = { .ctx = t->f->ctx, .dev = t->f->dev, .depth = DEPTH, .mask = DEPTH - 1,
				   .jobs = jobs };
	char why[OFL_REASON_LEN];

	pthread_barrier_wait(t->go);
	if (udma_memcpy_ops.queue_open(t->f->dev, &q) < 0) {
		t->failures++;
		return NULL;
	}
	uint32_t id = ((struct udma_q *)q.bq)->ch->id, src = e->psil_base + id;
	t->checks++;
	if (ofl_sim_udma_paired(t->f->model, id, id) != 1)
		t->failures++;
	for (int k = 0; k < PAIR_ROUNDS; k++) {
		if (udma_psil_route(e, src, src | K3_PSIL_DST_THREAD, false, why, sizeof(why)) < 0 ||
		    udma_psil_route(e, src, src | K3_PSIL_DST_THREAD, true, why, sizeof(why)) < 0)
			t->failures++;
		t->checks++;
		if (ofl_sim_udma_paired(t->f->model, id, id) != 1)
			t->failures++;
	}
	udma_memcpy_ops.queue_close(&q);
	return NULL;
}

START_TEST(threads_pair_channels_at_once)
{
	struct k3fx f;
	enum { N = 4 };
	pthread_t th[N];
	struct pthread_at_once t[N];
	pthread_barrier_t go;

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, true);
	ck_assert_int_eq(pthread_barrier_init(&go, NULL, N), 0);
	for (int i = 0; i < N; i++) {
		t[i] = (struct pthread_at_once){ .f = &f, .go = &go };
		ck_assert_int_eq(pthread_create(&th[i], NULL, pair_worker, &t[i]), 0);
	}
	int checks = 0, failures = 0;
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		checks += t[i].checks;
		failures += t[i].failures;
	}
	pthread_barrier_destroy(&go);
	ck_assert_msg(failures == 0 && checks == N * (PAIR_ROUNDS + 1),
		      "%d failures in %d checks: PSI-L pairs routed wrong when threads configure at once",
		      failures, checks);
	k3fx_teardown(&f);
}
END_TEST

START_TEST(threads_with_own_queues)
{
	struct k3fx f;
	enum { N = 4 };
	pthread_t th[N];
	struct qthread t[N];

	K3FX_DIRECT_UDMA_OR_STOP();
	k3fx_setup(&f, false, true);
	for (int i = 0; i < N; i++) {
		t[i] = (struct qthread){ .f = &f, .id = i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, queue_worker, &t[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(t[i].failures, 0);
	}
	k3fx_teardown(&f);
}
END_TEST

static void *sync_worker(void *arg)
{
	struct qthread *t = arg;
	enum { LEN = 100000 };
	uint8_t *s = malloc(LEN), *d = malloc(LEN);

	for (int it = 0; it < 20; it++) {
		memset(s, (uint8_t)(t->id * 16 + it), LEN);
		if (udma_copy(&t->f->e, d, s, LEN, NULL) || memcmp(s, d, LEN))
			t->failures++;
	}
	free(s);
	free(d);
	return NULL;
}

START_TEST(threads_share_sync_channels)
{
	struct k3fx f;
	enum { N = 6 }; /* more threads than UDMA_SYNC_CHANS: some wait for a channel */
	pthread_t th[N];
	struct qthread t[N];

	k3fx_setup(&f, true, true);
	for (int i = 0; i < N; i++) {
		t[i] = (struct qthread){ .f = &f, .id = i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, sync_worker, &t[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(t[i].failures, 0);
	}
	k3fx_teardown(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udma-engine");
	TCase *p = tcase_create("pure");
	TCase *e = tcase_create("engine");
	TCase *c = tcase_create("correctness");
	TCase *x = tcase_create("faults");
	TCase *q = tcase_create("threads");

	tcase_add_test(p, split_rules);
	tcase_add_test(p, descriptor_words);
	tcase_add_test(e, caps_and_classes_udma);
	tcase_add_test(e, caps_and_classes_bcdma);
	tcase_add_test(e, burst_reaches_channel_config);
	tcase_add_test(e, firewalled_config_is_refused);
	tcase_add_test(e, udma_config_through_tisci);
	tcase_add_test(e, bcdma_config_through_tisci);
	tcase_set_timeout(c, 600);
	tcase_add_test(c, align_udma_coherent_zero_copy);
	tcase_add_test(c, align_udma_coherent_bounce);
	tcase_add_test(c, align_udma_noncoherent_zero_copy);
	tcase_add_test(c, align_udma_noncoherent_mixed);
	tcase_add_test(c, align_bcdma_noncoherent_zero_copy);
	tcase_add_test(c, align_bcdma_noncoherent_bounce);
	tcase_add_test(c, sizes_udma_coherent_zero_copy);
	tcase_add_test(c, sizes_udma_noncoherent_zero_copy);
	tcase_add_test(c, sizes_udma_noncoherent_bounce);
	tcase_add_test(c, sizes_bcdma_noncoherent_mixed);
	tcase_add_test(x, drop_clean_corrupts);
	tcase_add_test(x, drop_inval_corrupts);
	tcase_add_test(x, coherent_needs_no_ops);
	tcase_add_test(x, error_response_is_eio);
	tcase_add_test(x, stuck_channel_times_out_and_recovers);
	tcase_add_test(x, lost_completion_times_out_and_recovers);
	tcase_add_test(x, bcdma_stuck_times_out_and_recovers);
	tcase_add_test(x, delayed_completion_is_waited_for);
	tcase_add_test(x, bus_error_on_completion_ring_is_eio);
	tcase_add_test(x, progress_with_huge_timeout_waits);
	tcase_add_test(x, impossible_occupancy_is_eio);
	tcase_add_test(e, regions_too_small_are_refused);
	tcase_add_test(e, config_regions_needed_without_firmware);
	tcase_set_timeout(q, 300);
	/*
	 * Each takes about a second, natively and under qemu-user. A channel
	 * whose pair never runs makes every batch wait out the engine's stall
	 * watchdog (10 s on the models) instead of hanging: bound the case, so
	 * that this fails in minutes and not after the whole suite's timeout.
	 */
	tcase_set_timeout(q, 60);
	tcase_add_test(q, threads_pair_channels_at_once);
	tcase_add_test(q, threads_with_own_queues);
	tcase_add_test(q, threads_share_sync_channels);
	suite_add_tcase(s, p);
	suite_add_tcase(s, e);
	suite_add_tcase(s, c);
	suite_add_tcase(s, x);
	suite_add_tcase(s, q);
	return test_run(s);
}
