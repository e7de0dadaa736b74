/* SPDX-License-Identifier: MIT */
/*
 * Jobs to descriptors and back.
 *
 * A job (dst, src, len) is planned once: if dst lies in a DMA buffer of this
 * device (zero-copy), the part before the first `align`-aligned destination
 * address (head) and after the last (tail) is copied by the CPU and the
 * aligned body goes to the engine; `align` is the channel burst, at least a
 * cache line when the device is streaming, so the body never shares a cache
 * line with bytes the CPU writes. A side that is a plain user pointer is
 * bounced through the channel's bounce buffers (the engine cannot reach
 * pageable memory), in segments of UDMA_BOUNCE_SIZE.
 *
 * Per segment: clean the source (and the destination, so that no dirty line
 * is written back over the engine's data), build the TR descriptor, barrier,
 * push. Per completion: pop, compare with the expected descriptor, check
 * every TR response, invalidate the destination (or copy the bounce buffer
 * out), release the ring slot. Descriptors complete in order on a channel.
 *
 * A descriptor outstanding longer than the engine timeout (1 s, Linux's
 * teardown wait) is failed with -ETIMEDOUT, the others in flight with
 * -ECANCELED; the channel is torn down and reset and serves the next jobs.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "udma.h"

#define JOB_NEW 0
#define JOB_ISSUING 1
#define JOB_ISSUED 2

static inline uint32_t slot_idx(const struct udma_chan *ch, uint32_t i)
{
	return i & (ch->nslots - 1);
}

static inline uint64_t desc_bus(const struct udma_chan *ch, uint32_t s)
{
	return ch->desc->bus + (uint64_t)s * UDMA_SLOT_SIZE;
}

static inline size_t bounce_off(uint32_t k, bool dst)
{
	return ((size_t)k * 2u + dst) * UDMA_BOUNCE_SIZE;
}

void udma_q_init(struct udma_q *bq, struct udma_chan *ch, uint32_t *remaining, uint8_t *state)
{
	memset(bq, 0, sizeof(*bq));
	bq->ch = ch;
	bq->remaining = remaining;
	bq->state = state;
}

/* ------------------------------------------------------------- issue */

/* Plan job j: zero-copy sides, CPU head and tail, the engine's body. */
static void plan(struct udma_q *bq, struct ofl_job *j, uint32_t js)
{
	struct udma_chan *ch = bq->ch;
	struct udma_engine *e = ch->e;
	size_t len = j->len, head = 0, body = len;

	bq->src_dma = ofl_dma_lookup_hint(e->pool, j->src, len, &bq->src_hint);
	bq->dst_dma = ofl_dma_lookup_hint(e->pool, j->dst, len, &bq->dst_hint);
	if (bq->dst_dma) {
		uint64_t a = e->align;
		uint64_t dbus = bq->dst_dma->bus + (uint64_t)((char *)j->dst - (char *)bq->dst_dma->cpu);
		head = (size_t)((a - (dbus & (a - 1))) & (a - 1));
		if (head > len)
			head = len;
		body = (len - head) / a * a;
	}
	size_t tail = len - head - body;
	if (head)
		memcpy(j->dst, j->src, head);
	if (tail)
		memcpy((char *)j->dst + head + body, (const char *)j->src + head + body, tail);
	if (bq->dst_dma && head + tail) {
		/*
		 * Streaming: the edges the CPU wrote go to memory now. The body is
		 * handed back invalidated, so the whole destination then holds the
		 * same bytes in the caches and in memory, and a later
		 * offload_buf_sync_for_cpu() over it (an invalidate, which discards
		 * dirty lines when the kernel does it for u-dma-buf, and always in
		 * the sim) cannot lose the edges. At most two short cleans per job;
		 * nothing on a coherent device.
		 */
		size_t doff = (size_t)((char *)j->dst - (char *)bq->dst_dma->cpu);
		ofl_dma_sync_for_device(bq->dst_dma, doff, head);
		ofl_dma_sync_for_device(bq->dst_dma, doff + head + body, tail);
	}
	if (head + tail)
		atomic_fetch_add_explicit(&e->dev->stats.cpu_bytes, head + tail, memory_order_relaxed);
	bq->next_off = head;
	bq->body_end = head + body;
	bq->remaining[js] = 0;
	bq->state[js] = JOB_ISSUING;
	j->flags = body ? (OFFLOAD_RES_DIRECT | (e->sim ? OFFLOAD_RES_SIM : 0)) : OFFLOAD_RES_CPU;
	if (body && (!bq->src_dma || !bq->dst_dma))
		j->flags |= OFFLOAD_RES_BOUNCED;
	if (body)
		atomic_fetch_add_explicit(&e->dev->stats.jobs, 1, memory_order_relaxed);
}

/* Build and push one descriptor for [next_off, next_off + n) of job j. */
static void issue_seg(struct udma_q *bq, struct ofl_job *j, uint32_t js, size_t n)
{
	struct udma_chan *ch = bq->ch;
	struct udma_engine *e = ch->e;
	uint32_t s = slot_idx(ch, ch->tail);
	struct udma_slot *sl = &ch->slots[s];
	size_t off = bq->next_off;
	uint64_t asel = (uint64_t)e->asel << K3_ASEL_SHIFT, sbus, dbus;
	uint32_t k = ch->bounce_tail & (UDMA_BOUNCE_PAIRS - 1);

	sl->bounce = 0;
	if (bq->src_dma) {
		size_t so = (size_t)((const char *)j->src + off - (const char *)bq->src_dma->cpu);
		sbus = bq->src_dma->bus + so;
		ofl_dma_sync_for_device(bq->src_dma, so, n);
	} else {
		memcpy((char *)ch->bounce->cpu + bounce_off(k, false), (const char *)j->src + off, n);
		ofl_dma_sync_for_device(ch->bounce, bounce_off(k, false), n);
		sbus = ch->bounce->bus + bounce_off(k, false);
		sl->bounce = (int32_t)k + 1;
	}
	if (bq->dst_dma) {
		sl->dst_off = (size_t)((char *)j->dst + off - (char *)bq->dst_dma->cpu);
		dbus = bq->dst_dma->bus + sl->dst_off;
		ofl_dma_sync_for_device(bq->dst_dma, sl->dst_off, n);
	} else {
		dbus = ch->bounce->bus + bounce_off(k, true);
		sl->bounce = (int32_t)k + 1;
	}
	if (sl->bounce) {
		ch->bounce_tail++;
		atomic_fetch_add_explicit(&e->dev->stats.bounced_bytes, n, memory_order_relaxed);
	}
	sl->dst_dma = bq->dst_dma;
	sl->job = bq->next_job;
	sl->off = off;
	sl->len = (uint32_t)n;
	/*
	 * Uncached slots (perhaps Device memory) take aligned words only: the
	 * descriptor is built in CPU memory and stored with them. Cached or
	 * coherent slots take it in place.
	 */
	union cppi5_rec64 tmp[UDMA_SLOT_SIZE / sizeof(union cppi5_rec64)];
	bool in_place = ch->desc->access == OFL_DMA_ACCESS_NORMAL;
	void *d = in_place ? (char *)ch->desc->cpu + (size_t)s * UDMA_SLOT_SIZE : (void *)tmp;
	sl->ntr = (uint32_t)udma_desc_memcpy(d, e->bcdma, ch->id & 0x3FFu, (uint16_t)ch->cq_ring,
					     sbus | asel, dbus | asel, n);
	if (!in_place)
		ofl_dma_write(ch->desc, (size_t)s * UDMA_SLOT_SIZE, tmp, UDMA_DESC_BYTES(sl->ntr));
	ofl_dma_sync_for_device(ch->desc, (size_t)s * UDMA_SLOT_SIZE, UDMA_SLOT_SIZE);
	bq->remaining[js]++;
	bq->next_off += n;
	ch->tail++;
	ofl_dma_wmb(); /* the descriptor before the push (hw/k3_udma.h §4.7) */
	udma_ring_push(ch, desc_bus(ch, s));
	atomic_fetch_add_explicit(&e->dev->stats.bytes, n, memory_order_relaxed);
}

int udma_q_issue(struct offload_queue *q, uint32_t limit)
{
	struct udma_q *bq = q->bq;
	struct udma_chan *ch = bq->ch;
	uint32_t pushed = 0;

	while (bq->next_job != limit) {
		uint32_t js = bq->next_job & q->mask;
		struct ofl_job *j = &q->jobs[js];
		if (bq->state[js] == JOB_NEW)
			plan(bq, j, js);
		bool bounce = !bq->src_dma || !bq->dst_dma;
		while (bq->next_off < bq->body_end) {
			if (ch->tail - ch->head == ch->nslots ||
			    (bounce && ch->bounce_tail - ch->bounce_head == UDMA_BOUNCE_PAIRS))
				goto out;
			size_t n = bq->body_end - bq->next_off;
			n = OFL_MIN(n, bounce ? (size_t)UDMA_BOUNCE_SIZE : (size_t)UDMA_SEG_MAX);
			issue_seg(bq, j, js, n);
			pushed++;
		}
		bq->state[js] = JOB_ISSUED;
		bq->next_job++;
	}
out:
	if (pushed) {
		udma_ring_commit(ch, pushed);
		if (!ch->running)
			udma_chan_enable(ch); /* descriptors first, then enable (hw/k3_udma.h §5.4) */
	}
	return 0;
}

/* ------------------------------------------------------------- completion */

static void finish(struct offload_queue *q, struct udma_chan *ch, struct udma_slot *sl, int32_t st)
{
	uint32_t js = sl->job & q->mask;
	struct ofl_job *j = &q->jobs[js];

	if (sl->bounce) {
		uint32_t k = (uint32_t)sl->bounce - 1;
		if (st == 0 && !sl->dst_dma) {
			ofl_dma_sync_for_cpu(ch->bounce, bounce_off(k, true), sl->len);
			memcpy((char *)j->dst + sl->off, (char *)ch->bounce->cpu + bounce_off(k, true), sl->len);
		}
		ch->bounce_head++;
	}
	if (st == 0 && sl->dst_dma)
		ofl_dma_sync_for_cpu(sl->dst_dma, sl->dst_off, sl->len);
	if (st && !j->status)
		j->status = st;
	struct udma_q *bq = q->bq;
	bq->remaining[js]--;
}

/*
 * Pop what the engine finished. Returns the number of descriptors completed,
 * or -EIO when the completion ring gave something that is neither the next
 * descriptor nor a teardown marker an earlier timed-out teardown still owes
 * (why says what): the channel's state is unknown then and the caller
 * recovers it. Never loops on a value it cannot use: at most one pass over
 * the ring per call.
 */
static int reap(struct offload_queue *q, char *why, size_t wl)
{
	struct udma_q *bq = q->bq;
	struct udma_chan *ch = bq->ch;
	struct udma_engine *e = ch->e;
	uint32_t n = 0, popped = 0, budget = ch->nslots + 1u;
	uint64_t elem, bytes = 0;
	int err = 0;

	while (ch->head != ch->tail && budget--) {
		int p = udma_ring_pop(ch, &elem);
		if (p == 0)
			break;
		if (p < 0) {
			snprintf(why, wl, "the completion ring's occupancy register reads 0x%08" PRIx64 ", more "
				 "than the ring's %u slots (a bus error reads all ones)", elem,
				 e->bcdma ? ch->nslots : ch->nslots + 1u);
			err = -EIO;
			break;
		}
		popped++;
		uint32_t s = slot_idx(ch, ch->head);
		struct udma_slot *sl = &ch->slots[s];
		int32_t st = 0;
		if ((elem & K3_TDCM_MARKER) && !e->bcdma) {
			if (ch->tdcm_due) { /* the late marker of a teardown that timed out */
				ch->tdcm_due = false;
				continue;
			}
			snprintf(why, wl, "the completion ring returned 0x%016" PRIx64 ": a teardown marker no "
				 "teardown asked for (all ones is a bus error)", elem);
			err = -EIO;
			break;
		}
		if ((elem & K3_ADDR_MASK) != desc_bus(ch, s)) {
			snprintf(why, wl, "the completion ring returned 0x%016" PRIx64 ", expected descriptor "
				 "0x%" PRIx64, elem, desc_bus(ch, s));
			err = -EIO;
			break;
		}
		ofl_dma_sync_for_cpu(ch->desc, (size_t)s * UDMA_SLOT_SIZE, UDMA_SLOT_SIZE);
		uint32_t status = udma_desc_status(ch->desc, (size_t)s * UDMA_SLOT_SIZE, sl->ntr);
		if (status) {
			st = -EIO;
			ofl_err(q->ctx, -EIO, "%s %s: TR response status 0x%02x (type %u, info %u)",
				e->name, ch->driver, status, CPPI5_RESP_TYPE(status), CPPI5_RESP_INFO(status));
		}
		bytes += sl->len;
		finish(q, ch, sl, st);
		ch->head++;
		n++;
	}
	if (popped)
		udma_ring_release(ch);
	if (n) {
		ch->stall_since = 0; /* only finished descriptors are progress */
		/* udma_decrement_byte_counters(): keep BCNT/SBCNT from creeping (write-to-subtract) */
		const struct ofl_mmio *rt = e->bcdma ? &e->bchanrt : &e->tchanrt;
		uint64_t o = (uint64_t)ch->id * K3_CHANRT_STRIDE;
		ofl_mmio_write32(rt, o + K3_RT_BCNT, (uint32_t)bytes);
		ofl_mmio_write32(rt, o + K3_RT_SBCNT, (uint32_t)bytes);
	}
	return err ? err : (int)n;
}

static void advance(struct offload_queue *q)
{
	struct udma_q *bq = q->bq;

	while (q->done != bq->next_job) {
		uint32_t js = q->done & q->mask;
		if (bq->state[js] != JOB_ISSUED || bq->remaining[js])
			break;
		bq->state[js] = JOB_NEW;
		q->done++;
	}
}

/*
 * The engine stopped answering (st -ETIMEDOUT) or answered nonsense (st -EIO,
 * `why` says what): fail the oldest descriptor in flight with st and the
 * others with -ECANCELED, tear the channel down and reset it. The next jobs
 * run on the reset channel.
 */
static void recover(struct offload_queue *q, int32_t st, const char *why)
{
	struct udma_q *bq = q->bq;
	struct udma_chan *ch = bq->ch;
	struct udma_engine *e = ch->e;

	for (uint32_t i = ch->head; i != ch->tail; i++) {
		struct udma_slot *sl = &ch->slots[slot_idx(ch, i)];
		finish(q, ch, sl, i == ch->head ? st : -ECANCELED);
	}
	bool clean = udma_chan_teardown(ch);
	if (st == -ETIMEDOUT)
		ofl_err(q->ctx, -ETIMEDOUT,
			"%s %s: a descriptor did not complete within %" PRIu64 " ms; the channel was torn "
			"down%s and reset", e->name, ch->driver, e->timeout_ns / 1000000u,
			clean ? "" : " (the teardown itself timed out)");
	else
		ofl_err(q->ctx, st, "%s %s: %s; the jobs in flight failed and the channel was torn down%s "
			"and reset", e->name, ch->driver, why, clean ? "" : " (the teardown itself timed out)");
}

int udma_q_progress(struct offload_queue *q, int64_t timeout_us)
{
	struct udma_q *bq = q->bq;
	struct udma_chan *ch = bq->ch;
	uint32_t done0 = q->done;
	uint64_t deadline = 0;
	unsigned spins = 0;
	char why[OFL_REASON_LEN];

	for (;;) {
		if (reap(q, why, sizeof(why)) < 0)
			recover(q, -EIO, why);
		udma_q_issue(q, q->submitted);
		advance(q);
		if (q->done != done0 || q->done == q->submitted)
			return 0;
		uint64_t now = ofl_now_ns();
		if (ch->head != ch->tail) {
			if (!ch->stall_since)
				ch->stall_since = now;
			else if (now - ch->stall_since > ch->e->timeout_ns) {
				recover(q, -ETIMEDOUT, NULL);
				continue;
			}
		}
		if (timeout_us == 0)
			return -ETIMEDOUT;
		if (timeout_us > 0) {
			if (!deadline) /* saturating: INT64_MAX is "forever", not an overflow */
				deadline = ofl_deadline_ns(now, timeout_us);
			else if (now >= deadline)
				return -ETIMEDOUT;
		}
		ofl_poll_backoff(&spins);
	}
}

/* ------------------------------------------------------------- synchronous copy */

static int sync_get(struct udma_engine *e, int *slot, char *why, size_t wl)
{
	pthread_mutex_lock(&e->lock);
	for (;;) {
		int empty = -1;
		for (int i = 0; i < UDMA_SYNC_CHANS; i++) {
			if (e->sync[i] && !e->sync_busy[i]) {
				e->sync_busy[i] = true;
				*slot = i;
				pthread_mutex_unlock(&e->lock);
				return 0;
			}
			if (!e->sync[i] && !e->sync_busy[i] && empty < 0)
				empty = i;
		}
		if (empty >= 0) {
			e->sync_busy[empty] = true; /* reserved while the channel opens */
			pthread_mutex_unlock(&e->lock);
			struct udma_chan *ch = NULL;
			int r = udma_chan_open(e, UDMA_SYNC_SLOTS, true, &ch, why, wl);
			pthread_mutex_lock(&e->lock);
			if (r == 0) {
				e->sync[empty] = ch;
				*slot = empty;
				pthread_mutex_unlock(&e->lock);
				return 0;
			}
			e->sync_busy[empty] = false;
			bool any = false;
			for (int i = 0; i < UDMA_SYNC_CHANS; i++)
				any |= e->sync[i] != NULL || e->sync_busy[i];
			if (!any) { /* nothing to wait for */
				pthread_mutex_unlock(&e->lock);
				return r;
			}
			if (r != -EBUSY)
				pthread_cond_broadcast(&e->cv);
		}
		pthread_cond_wait(&e->cv, &e->lock);
	}
}

static void sync_put(struct udma_engine *e, int slot)
{
	pthread_mutex_lock(&e->lock);
	e->sync_busy[slot] = false;
	pthread_cond_signal(&e->cv);
	pthread_mutex_unlock(&e->lock);
}

int udma_copy(struct udma_engine *e, void *dst, const void *src, size_t len,
	      struct offload_result *res)
{
	char why[OFL_REASON_LEN];
	int slot = 0;
	int r = sync_get(e, &slot, why, sizeof(why));

	if (r < 0)
		return ofl_err(e->dev->ctx, r, "%s: %s", e->name, why);
	struct udma_chan *ch = e->sync[slot];
	struct ofl_job job = { .dst = dst, .src = src, .len = len };
	uint32_t remaining = 0;
	uint8_t state = JOB_NEW;
	struct udma_q bq;
	udma_q_init(&bq, ch, &remaining, &state);
	struct offload_queue q = { .ctx = e->dev->ctx, .dev = e->dev, .depth = 1, .mask = 0,
				   .jobs = &job, .bq = &bq };
	q.tail = 1;
	udma_q_issue(&q, 1);
	q.submitted = 1;
	while (q.done != 1) {
		r = udma_q_progress(&q, -1);
		if (r < 0 && r != -ETIMEDOUT)
			break;
	}
	sync_put(e, slot);
	if (q.done != 1)
		return ofl_err(e->dev->ctx, r, "%s: progress failed", e->name);
	if (job.status < 0)
		return job.status; /* the message was recorded where it happened */
	ofl_result_set(res, e->dev, ch->driver, job.flags);
	return 0;
}

/* ------------------------------------------------------------- the ops table */

static int op_copy(struct ofl_device *dev, void *dst, const void *src, size_t len,
		   struct offload_result *res)
{
	return udma_copy(dev->priv, dst, src, len, res);
}

struct udma_q_alloc {
	struct udma_q bq;
	/* remaining[depth] and state[depth] follow */
};

static int op_queue_open(struct ofl_device *dev, struct offload_queue *q)
{
	struct udma_engine *e = dev->priv;
	char why[OFL_REASON_LEN];
	uint32_t nslots = OFL_MAX(16u, OFL_MIN(q->depth, 128u));
	struct udma_q_alloc *a = calloc(1, sizeof(*a) + (size_t)q->depth * (sizeof(uint32_t) + 1u));

	if (!a)
		return ofl_err(dev->ctx, -ENOMEM, "offload_queue_open: out of memory");
	uint32_t *remaining = (uint32_t *)(a + 1);
	uint8_t *state = (uint8_t *)(remaining + q->depth);
	struct udma_chan *ch;
	int r = udma_chan_open(e, nslots, true, &ch, why, sizeof(why));
	if (r < 0) {
		free(a);
		return ofl_err(dev->ctx, r, "offload_queue_open: %s: %s", e->name, why);
	}
	udma_q_init(&a->bq, ch, remaining, state);
	q->bq = &a->bq;
	return 0;
}

static void op_queue_close(struct offload_queue *q)
{
	struct udma_q *bq = q->bq;

	udma_chan_close(bq->ch);
	free(bq);
	q->bq = NULL;
}

static int op_queue_submit(struct offload_queue *q)
{
	return udma_q_issue(q, q->tail);
}

const struct ofl_memcpy_ops udma_memcpy_ops = {
	.copy = op_copy,
	.queue_open = op_queue_open,
	.queue_close = op_queue_close,
	.queue_submit = op_queue_submit,
	.queue_progress = udma_q_progress,
};
