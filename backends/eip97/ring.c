/* SPDX-License-Identifier: MIT */
/*
 * Command and result descriptors, doorbells and completion (hw/eip97.h §3,
 * §6.2-§6.4), as Linux safexcel_add_cdesc/_rdesc, safexcel_dequeue and
 * safexcel_handle_result_descriptor do them, with polling instead of the
 * ring interrupt:
 *
 *  - submit: RDs first (pre-set "assume error": both overflow bits, error
 *    code 0x7fff), then the CDs (the first carries packet length, options,
 *    context pointer, control words and the 4 IV/instruction words; its
 *    shadow block gets the additional token words), a write barrier, RDR
 *    THRESH when the ring was idle, RDR PREP_COUNT, then CDR PREP_COUNT;
 *  - completion: the RDR PROC_COUNT gives finished packets (7 bits, read
 *    again at 127); the RD where the engine set last_seg carries the
 *    packet's result; the count is
 *    acknowledged with packets << 24 | RD bytes;
 *  - a ring that completes nothing for the engine timeout while packets are
 *    in flight stalled: the engine is reset and initialised again as Linux
 *    initialises it, or marked failed when it does not stop (engine_recover();
 *    Linux only logs a fatal ring error).
 *
 * Rings and context records live in uncached memory on a non-coherent
 * system (Linux dma_alloc_coherent); when the platform has none they are
 * cached and cleaned/invalidated here like data (ofl_dma_sync_* do nothing
 * for coherent and uncached memory).
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "eip97.h"

/*
 * Byte offsets of slot i's CD, RD and shadow token block in their ring
 * memory. Ring memory may be Device memory (enum ofl_dma_access): it is
 * written and read only with aligned 32-bit accesses (ofl_dma_w32/r32).
 */
static inline size_t cd_at(const struct eip97_ring *r, uint32_t i)
{
	return (size_t)(i % EIP97_RING_SLOTS) * r->e->cd_stride;
}

static inline size_t rd_at(const struct eip97_ring *r, uint32_t i)
{
	return (size_t)(i % EIP97_RING_SLOTS) * r->e->rd_stride;
}

static inline size_t atok_at(uint32_t i)
{
	return (size_t)(i % EIP97_RING_SLOTS) * EIP97_ATOK_WORDS * 4u;
}

/* Hand descriptors [first, first + n) of a ring memory to the engine / back (cached rings only). */
static void ring_sync(struct ofl_dma *d, uint32_t stride, uint32_t first, uint32_t n, bool for_cpu)
{
	if (d->cache != OFFLOAD_CACHE_STREAMING || !n)
		return;
	uint32_t s = first % EIP97_RING_SLOTS, k = OFL_MIN(n, EIP97_RING_SLOTS - s);
	ofl_dma_sync_range(d, (size_t)s * stride, (size_t)k * stride, for_cpu);
	if (k < n)
		ofl_dma_sync_range(d, 0, (size_t)(n - k) * stride, for_cpu);
}

struct eip97_ring *eip97_ring_pick(struct eip97_engine *e)
{
	return &e->ring[atomic_fetch_add_explicit(&e->next_ring, 1, memory_order_relaxed) % e->nrings];
}

int eip97_rd_errno(uint32_t rd_w0, uint32_t code)
{
	if (!(rd_w0 & (EIP97_RD_DESC_OVF | EIP97_RD_BUF_OVF)) && !code)
		return 0;
	if (code & EIP97_ERR_FATAL)
		return -EIO;
	if (code & EIP97_ERR_LEN)
		return -EINVAL; /* input errors take priority over an authentication failure */
	if (code & EIP97_ERR_ICV)
		return -EBADMSG;
	return -EINVAL;
}

/* ------------------------------------------------------------- completion */

/* Complete every finished packet of the ring. Lock held. Returns packets completed. */
static uint32_t reap(struct eip97_ring *r)
{
	const struct eip97_engine *e = r->e;
	uint32_t total = 0, pk;

	do {
		uint32_t v = ofl_mmio_read32(&e->regs, EIP97_RDR(r->id) + EIP97_XDR_PROC_COUNT);
		pk = EIP97_PROC_PKTS(v);
		if (!pk)
			break;
		ofl_dma_rmb(); /* the count before the descriptors it covers */
		uint32_t rds = 0;
		for (uint32_t k = 0; k < pk && r->f_head != r->f_tail; k++) {
			struct eip97_slot *sl = &r->fifo[r->f_head % EIP97_RING_SLOTS];
			/*
			 * The result is in the RD where the engine set last_seg: the
			 * one holding the packet's last byte (Linux
			 * safexcel_rdesc_check_errors(); safexcel_handle_req_result()
			 * walks the RDs up to it). The driver's last RD has it preset.
			 */
			ring_sync(r->rdr, e->rd_stride, r->rd_r, sl->nrd, true);
			size_t rd = rd_at(r, r->rd_r);
			uint32_t w0 = ofl_dma_r32(r->rdr, rd + 4u * EIP97_RD_W_CTRL);
			for (uint32_t j = 1; j < sl->nrd && !(w0 & EIP97_RD_LAST_SEG); j++) {
				rd = rd_at(r, r->rd_r + j);
				w0 = ofl_dma_r32(r->rdr, rd + 4u * EIP97_RD_W_CTRL);
			}
			uint32_t code = EIP97_RES_ERR(ofl_dma_r32(r->rdr, rd + e->res_off));
			int st = eip97_rd_errno(w0, code);
			struct eip97_req *q = sl->req;
			if (st && !q->status) {
				q->status = st;
				q->err_code = code;
				q->rd_w0 = w0;
			}
			atomic_fetch_sub_explicit(&q->pending, 1, memory_order_release);
			r->rd_r += sl->nrd;
			r->cd_r += sl->ncd; /* CDs are released in software (§2.1) */
			rds += sl->nrd;
			r->f_head++;
		}
		ofl_mmio_write32(&e->regs, EIP97_RDR(r->id) + EIP97_XDR_PROC_COUNT,
				 pk << 24 | rds * e->rd_stride);
		total += pk;
	} while (pk == EIP97_PROC_PKTS_MAX);
	if (total)
		r->stall_since = 0;
	return total;
}

/* Nothing finished: has the ring had packets in flight and none done for the timeout? Lock held. */
static bool stalled(struct eip97_ring *r)
{
	if (r->f_head == r->f_tail)
		return false;
	uint64_t now = ofl_now_ns();
	if (!r->stall_since)
		r->stall_since = now;
	return now - r->stall_since > r->e->timeout_ns;
}

/* Fail every packet in flight on the ring with st (its requests' other flags as given). Lock held. */
static void fail_in_flight(struct eip97_ring *r, int st, bool reset, bool may_write)
{
	for (; r->f_head != r->f_tail; r->f_head++) {
		struct eip97_req *q = r->fifo[r->f_head % EIP97_RING_SLOTS].req;
		if (!q->status) {
			q->status = st;
			q->reset = reset;
			q->may_write = may_write;
		}
		atomic_fetch_sub_explicit(&q->pending, 1, memory_order_release);
	}
}

/*
 * A ring stalled (audits/eip97.md D2). Linux has no recovery: it only logs
 * a fatal ring error (safexcel_irq_ring()), and it programs rings only in
 * safexcel_hw_init(), with the DFE and DSE threads reset first and the DSE
 * threads waited for ("Wait for all DSE threads to complete"). That is the
 * one sequence a source backs, so the whole engine goes through it:
 *  1. every ring lock is taken (a reset stops every ring), after the
 *     engine's reset lock; a stall another thread already handled (the
 *     reset count moved on since `seen`) is left alone;
 *  2. the DFE and DSE threads are reset and the DSE threads waited for:
 *     once they report idle the engine stores nothing more, so what it
 *     finished meanwhile is completed (its results are in memory) and the
 *     rest of every ring's packets fail with -ETIMEDOUT, their buffers now
 *     the caller's again;
 *  3. the engine is initialised again as at probe (eip97_hw_init()).
 * If the DSE threads never report idle, the engine may still write into
 * the buffers of the packets it holds: nothing is handed back as done. The
 * device is marked failed with the reason, its packets fail with -EIO
 * saying so, their sessions' memory is held until the device is removed,
 * and no more requests are taken.
 */
static void engine_recover(struct eip97_engine *e, unsigned seen)
{
	char why[160] = "";

	pthread_mutex_lock(&e->reset_lock);
	if (atomic_load(&e->resets) != seen || atomic_load(&e->failed)) {
		pthread_mutex_unlock(&e->reset_lock);
		return;
	}
	for (uint32_t i = 0; i < e->nrings; i++)
		pthread_mutex_lock(&e->ring[i].lock);
	bool any = false;
	for (uint32_t i = 0; i < e->nrings; i++) {
		struct eip97_ring *r = &e->ring[i];
		if (!reap(r) && stalled(r))
			any = true;
	}
	int rc = any ? eip97_threads_stop(e, e->reset_timeout_ns) : 0;
	if (any && rc == 0) {
		for (uint32_t i = 0; i < e->nrings; i++) {
			reap(&e->ring[i]); /* finished while the threads stopped */
			fail_in_flight(&e->ring[i], -ETIMEDOUT, true, false);
		}
		rc = eip97_hw_init(e, why, sizeof(why));
		if (rc == 0)
			atomic_fetch_add(&e->resets, 1);
	} else if (any) {
		snprintf(why, sizeof(why), "the DSE threads did not report idle (DSE_THR_STAT 0x%08x) within "
			 "%llu ms of their reset", ofl_mmio_read32(&e->regs, EIP97_DSE_THR_STAT),
			 (unsigned long long)(e->reset_timeout_ns / 1000000u));
	}
	if (any && rc < 0) {
		snprintf(e->failed_why, sizeof(e->failed_why), "a ring stalled and the engine did not stop: %s",
			 why);
		atomic_store(&e->failed, true);
		for (uint32_t i = 0; i < e->nrings; i++)
			fail_in_flight(&e->ring[i], -EIO, false, true);
	}
	for (uint32_t i = e->nrings; i-- > 0;)
		pthread_mutex_unlock(&e->ring[i].lock);
	pthread_mutex_unlock(&e->reset_lock);
}

int eip97_failed(const struct eip97_engine *e, char *why, size_t wl)
{
	if (OFL_LIKELY(!atomic_load_explicit(&e->failed, memory_order_acquire)))
		return 0;
	snprintf(why, wl, "the device failed: %s", e->failed_why);
	return -EIO;
}

/*
 * Spin (without the ring lock) until the engine reports a finished packet
 * or `until` passes. Kept out of line: the callgrind figure
 * (bench/eip97_callgrind.sh) leaves this waiting out.
 */
static __attribute__((noinline)) void eip97_wait_progress(const struct eip97_ring *r,
							  const struct eip97_req *req, uint64_t until)
{
	unsigned spins = 0;

	while (!EIP97_PROC_PKTS(ofl_mmio_read32(&r->e->regs, EIP97_RDR(r->id) + EIP97_XDR_PROC_COUNT)) &&
	       (!req || atomic_load_explicit(&req->pending, memory_order_acquire)) &&
	       ofl_now_ns() < until)
		ofl_poll_backoff(&spins);
}

int eip97_wait(struct eip97_ring *r, struct eip97_req *req)
{
	struct eip97_engine *e = r->e;

	for (;;) {
		/* first let the engine work: a packet just submitted is not done yet */
		eip97_wait_progress(r, req, ofl_now_ns() + e->timeout_ns / 8u);
		unsigned seen = atomic_load(&e->resets);
		pthread_mutex_lock(&r->lock);
		bool stall = atomic_load_explicit(&req->pending, memory_order_relaxed) && !reap(r) && stalled(r);
		bool done = atomic_load_explicit(&req->pending, memory_order_relaxed) == 0;
		pthread_mutex_unlock(&r->lock);
		if (done)
			return req->status;
		if (stall)
			engine_recover(e, seen);
	}
}

/* ------------------------------------------------------------- submission */

static void write_rds(struct eip97_ring *r, const struct eip97_pkt *p)
{
	const struct eip97_engine *e = r->e;

	for (uint32_t i = 0; i < p->nout; i++) {
		struct ofl_dma *d = r->rdr;
		size_t rd = rd_at(r, r->rd_w++);
		ofl_dma_w32(d, rd + 4u * EIP97_RD_W_CTRL,
			    p->out[i].len | EIP97_RD_DESC_OVF | EIP97_RD_BUF_OVF |
				    (i == 0 ? EIP97_RD_FIRST_SEG : 0) | (i + 1 == p->nout ? EIP97_RD_LAST_SEG : 0) |
				    EIP97_RD_RESULT_SIZE(EIP97_RD_RESULT_WORDS));
		ofl_dma_w32(d, rd + 4u, 0);
		ofl_dma_w32(d, rd + 4u * EIP97_RD_W_DATA_LO, (uint32_t)p->out[i].bus);
		ofl_dma_w32(d, rd + 4u * EIP97_RD_W_DATA_HI, (uint32_t)(p->out[i].bus >> 32));
		ofl_dma_w32(d, rd + e->res_off, EIP97_RES_ERR_PREP(EIP97_RES_ERR_ALL));
	}
}

static void write_cds(struct eip97_ring *r, const struct eip97_pkt *p)
{
	uint32_t first = r->cd_w;

	for (uint32_t i = 0; i < p->nin; i++) {
		struct ofl_dma *d = r->cdr;
		size_t cd = cd_at(r, r->cd_w++);
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_CTRL,
			    p->in[i].len | (i + 1 == p->nin ? EIP97_CD_LAST_SEG : 0) |
				    (i == 0 ? EIP97_CD_FIRST_SEG | EIP97_CD_ACDATA_PREP(p->natok) : 0));
		ofl_dma_w32(d, cd + 4u, 0);
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_DATA_LO, (uint32_t)p->in[i].bus);
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_DATA_HI, (uint32_t)(p->in[i].bus >> 32));
		if (i)
			continue; /* words 4, 5 (ATOK) stay as written at ring init */
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_PKT, p->pkt_len | EIP97_CD_OPTIONS_PREP(p->opts));
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_APPID, 0);
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_CTX_LO, (uint32_t)p->ctx_bus | EIP97_CTX_SMALL);
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_CTX_HI, (uint32_t)(p->ctx_bus >> 32));
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_CONTROL0, p->c0);
		ofl_dma_w32(d, cd + 4u * EIP97_CD_W_CONTROL1, p->c1);
		for (size_t w = 0; w < OFL_ARRAY_SIZE(p->tok); w++)
			ofl_dma_w32(d, cd + 4u * (EIP97_CD_W_TOKEN + w), p->tok[w]);
	}
	for (uint32_t w = 0; w < p->natok; w++)
		ofl_dma_w32(r->atok, atok_at(first) + 4u * w, p->atok[w]);
}

/* Room for ncd CDs, nrd RDs and n packets (at most 399 outstanding, §3.3). Lock held. */
static bool room(const struct eip97_ring *r, uint32_t ncd, uint32_t nrd, uint32_t n)
{
	return r->cd_w - r->cd_r + ncd < EIP97_RING_SLOTS && r->rd_w - r->rd_r + nrd < EIP97_RING_SLOTS &&
	       r->f_tail - r->f_head + n < EIP97_RING_SLOTS;
}

int eip97_submit(struct eip97_ring *r, const struct eip97_pkt *pkts, uint32_t n, struct eip97_req *req)
{
	const struct eip97_engine *e = r->e;
	uint32_t ncd = 0, nrd = 0;
	uint64_t deadline = 0;

	for (uint32_t i = 0; i < n; i++) {
		ncd += pkts[i].nin;
		nrd += pkts[i].nout;
	}
	unsigned seen = atomic_load(&r->e->resets);
	pthread_mutex_lock(&r->lock);
	while (!room(r, ncd, nrd, n) || atomic_load(&r->e->failed)) {
		if (atomic_load(&r->e->failed)) {
			pthread_mutex_unlock(&r->lock);
			return -EIO;
		}
		bool stall = !reap(r) && stalled(r);
		if (room(r, ncd, nrd, n))
			break;
		pthread_mutex_unlock(&r->lock);
		if (stall)
			engine_recover(r->e, seen);
		uint64_t now = ofl_now_ns();
		if (!deadline)
			deadline = now + 2u * e->timeout_ns;
		else if (now > deadline)
			return -ETIMEDOUT;
		eip97_wait_progress(r, NULL, now + e->timeout_ns / 8u);
		seen = atomic_load(&r->e->resets);
		pthread_mutex_lock(&r->lock);
	}
	bool idle = r->f_head == r->f_tail;
	uint32_t cd0 = r->cd_w, rd0 = r->rd_w;
	for (uint32_t i = 0; i < n; i++) {
		const struct eip97_pkt *p = &pkts[i];
		struct eip97_slot *sl = &r->fifo[r->f_tail++ % EIP97_RING_SLOTS];
		sl->req = req;
		sl->ncd = (uint16_t)p->nin;
		sl->nrd = (uint16_t)p->nout;
		write_rds(r, p);
		write_cds(r, p);
		if (p->natok)
			ring_sync(r->atok, EIP97_ATOK_WORDS * 4u, r->cd_w - p->nin, 1, false);
	}
	atomic_fetch_add_explicit(&req->pending, n, memory_order_relaxed);
	ring_sync(r->rdr, e->rd_stride, rd0, nrd, false);
	ring_sync(r->cdr, e->cd_stride, cd0, ncd, false);
	ofl_dma_wmb(); /* descriptors before the doorbells (§6.6) */
	if (idle)
		ofl_mmio_write32(&e->regs, EIP97_RDR(r->id) + EIP97_XDR_THRESH,
				 EIP97_THRESH_PKT_MODE | OFL_MIN(n, 64u));
	ofl_mmio_write32(&e->regs, EIP97_RDR(r->id) + EIP97_XDR_PREP_COUNT, nrd * e->rd_stride);
	ofl_mmio_write32(&e->regs, EIP97_CDR(r->id) + EIP97_XDR_PREP_COUNT, ncd * e->cd_stride);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

int eip97_run(struct eip97_ring *r, const struct eip97_pkt *pkts, uint32_t n, const char *what)
{
	struct eip97_engine *e = r->e;
	struct eip97_req req = { .status = 0 };
	char why[sizeof(e->failed_why) + 32];
	int st = eip97_submit(r, pkts, n, &req);

	if (st == -EIO && eip97_failed(e, why, sizeof(why)) < 0)
		return ofl_err(e->dev->ctx, st, "%s: %s: %s", what, e->name, why);
	if (st < 0)
		return ofl_err(e->dev->ctx, st,
			       "%s: %s %s: no room on the ring for %" PRIu32 " packet(s) within %llu ms", what,
			       e->name, r->driver, n, (unsigned long long)(2u * e->timeout_ns / 1000000u));
	st = eip97_wait(r, &req);
	if (OFL_LIKELY(st == 0))
		return 0;
	if (req.reset)
		return ofl_err(e->dev->ctx, st,
			       "%s: %s %s: a ring completed nothing for %llu ms: the engine was stopped (DFE and "
			       "DSE threads reset, the DSE idle) and initialised again as Linux "
			       "safexcel_hw_init() does (%u time(s) so far); this operation's packets were "
			       "abandoned", what, e->name, r->driver,
			       (unsigned long long)(e->timeout_ns / 1000000u), atomic_load(&e->resets));
	if (req.may_write)
		return ofl_err(e->dev->ctx, st,
			       "%s: %s %s: %s; the device is marked failed, and the engine may still write into "
			       "this operation's buffers", what, e->name, r->driver, e->failed_why);
	if (st == -EBADMSG)
		return ofl_err(e->dev->ctx, st, "%s: %s %s: authentication tag mismatch (result error "
			       "code 0x%04x, bit 9)", what, e->name, r->driver, req.err_code);
	return ofl_err(e->dev->ctx, st,
		       "%s: %s %s: the engine reported result error code 0x%04x%s%s (%s, as Linux "
		       "safexcel_rdesc_check_errors maps it)",
		       what, e->name, r->driver, req.err_code,
		       (req.rd_w0 & EIP97_RD_DESC_OVF) ? ", descriptor overflow" : "",
		       (req.rd_w0 & EIP97_RD_BUF_OVF) ? ", buffer overflow" : "",
		       st == -EIO ? "fatal: bits 0x4066" : "input error");
}
