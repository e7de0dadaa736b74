/* SPDX-License-Identifier: MIT */
/*
 * The dmaengine backend's copies: synchronous ones on the device's own file,
 * and queues with a file each. One OFFLOAD_DMA_IOC_SUBMIT per batch; every
 * copy the module consumed gives one completion (read(), after poll()), with
 * its own status (kmod/include/uapi/linux/offload_dma.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dmaengine_int.h"

/* Copies one synchronous offload_memcpy() puts in one batch at most. */
#define DMAE_BATCH 16

const char *ofl_dmae_why(uint32_t detail)
{
	static const char *const w[OFFLOAD_DMA_WHY_MAX] = {
		[OFFLOAD_DMA_WHY_NONE] = "no reason given",
		[OFFLOAD_DMA_WHY_RESERVED] = "a reserved field is not zero",
		[OFFLOAD_DMA_WHY_FLAGS] = "an unknown flag",
		[OFFLOAD_DMA_WHY_CHAN] = "no such channel",
		[OFFLOAD_DMA_WHY_LEN] = "length 0",
		[OFFLOAD_DMA_WHY_RANGE] = "an address range wraps",
		[OFFLOAD_DMA_WHY_OVERLAP] = "source and destination overlap",
		[OFFLOAD_DMA_WHY_ALIGN] = "the engine's alignment leaves bytes the CPU may not take",
		[OFFLOAD_DMA_WHY_TOO_BIG] = "longer than the module's max_copy_bytes",
		[OFFLOAD_DMA_WHY_FAULT] = "user memory not mapped, or the destination is read-only",
		[OFFLOAD_DMA_WHY_DMABUF] = "not a dma-buf",
		[OFFLOAD_DMA_WHY_DMABUF_RANGE] = "beyond the dma-buf's size",
		[OFFLOAD_DMA_WHY_DMABUF_MAP] = "the dma-buf's exporter refused to map it",
		[OFFLOAD_DMA_WHY_MAP] = "dma_map_sgtable() failed",
		[OFFLOAD_DMA_WHY_PREP] = "the kernel driver gave no descriptor",
		[OFFLOAD_DMA_WHY_ENGINE] = "the kernel driver reported an engine error",
		[OFFLOAD_DMA_WHY_TIMEOUT] = ("the engine did not finish within the timeout; the "
					     "module stopped the channel"),
		[OFFLOAD_DMA_WHY_CANCELED] = "cancelled",
		[OFFLOAD_DMA_WHY_TIMEOUT_ARG] = "timeout longer than the module's max_timeout_ms",
		[OFFLOAD_DMA_WHY_NOMEM] = "the module is out of memory",
		[OFFLOAD_DMA_WHY_COUNT] = "a batch of 0 copies",
		[OFFLOAD_DMA_WHY_EVENTFD] = "not an eventfd",
	};
	return detail < OFFLOAD_DMA_WHY_MAX && w[detail] ? w[detail] : "an unknown reason";
}

static void fill_copy(struct offload_dma_copy *c, uint64_t user_data, uint32_t chan, void *dst,
		      const void *src, uint64_t len)
{
	memset(c, 0, sizeof(*c));
	c->user_data = user_data;
	c->src = (uint64_t)(uintptr_t)src;
	c->dst = (uint64_t)(uintptr_t)dst;
	c->len = len;
	c->chan = chan;
}

static uint32_t pick_chan(struct dmae_dev *dd)
{
	unsigned k = atomic_fetch_add_explicit(&dd->next, 1, memory_order_relaxed);

	return dd->chans[k % dd->nchan];
}

/* read() whole completions, retrying an interrupted wait; count or -errno. */
static ssize_t read_comps(int fd, struct offload_dma_completion *c, size_t n)
{
	for (;;) {
		ssize_t r = read(fd, c, n * sizeof(*c));
		if (r >= 0)
			return r / (ssize_t)sizeof(*c);
		if (errno != EINTR)
			return -errno;
	}
}

/* What a failed completion becomes: its errno, the contract's -ENOMEM only when nothing was written. */
static int comp_err(const struct offload_dma_completion *c)
{
	int r = c->status < 0 ? c->status : -EIO;

	if ((r == -ENOMEM || r == -EBUSY) && (c->dma_bytes || c->cpu_bytes))
		return -EIO; /* dst is partly written: not a "nothing happened" for the core's fallback */
	return r;
}

static int dmae_copy(struct ofl_device *dev, void *dst, const void *src, size_t len,
		     struct offload_result *res)
{
	struct dmae_dev *dd = dev->priv;
	const struct dmae_state *st = dd->st;
	uint64_t maxc = st->info.max_copy_bytes ? st->info.max_copy_bytes : len;
	struct offload_dma_copy cp[DMAE_BATCH];
	struct offload_dma_completion cm[DMAE_BATCH];
	uint64_t dma = 0, cpu = 0, fail_off = 0;
	const struct offload_dma_completion *bad = NULL;
	struct offload_dma_completion badc;
	size_t off = 0;
	int err = 0;

	pthread_mutex_lock(&dd->lock);
	uint64_t base = dd->seq;
	while (off < len && !err) {
		unsigned n = 0;
		size_t o = off;
		for (; n < DMAE_BATCH && o < len; n++) {
			uint64_t l = OFL_MIN((uint64_t)(len - o), maxc);
			fill_copy(&cp[n], base + o, pick_chan(dd), (char *)dst + o, (const char *)src + o, l);
			o += (size_t)l;
		}
		struct offload_dma_submit sub = { .copies = (uint64_t)(uintptr_t)cp, .count = n };
		if (ioctl(dd->fd, OFFLOAD_DMA_IOC_SUBMIT, &sub) < 0) {
			err = -errno;
			if (err == -EAGAIN && off == 0) {
				err = ofl_err(dev->ctx, -EBUSY, "dmaengine %s: the module's per-file limits "
					      "(%u copies in flight, %" PRIu64 " B pinned) are taken",
					      dev->name, st->info.max_inflight,
					      (uint64_t)st->info.max_pinned_bytes);
			} else {
				err = ofl_err(dev->ctx, err == -EAGAIN ? -EIO : err,
					      "dmaengine %s: OFFLOAD_DMA_IOC_SUBMIT of %u copies: %s (%s)",
					      dev->name, n, strerror(-err), ofl_dmae_why(sub.detail));
			}
			break;
		}
		/* every consumed copy gives one completion: reap them all, whatever their status */
		for (unsigned got = 0; got < sub.submitted;) {
			ssize_t k = read_comps(dd->fd, cm, sub.submitted - got);
			if (k <= 0) {
				err = ofl_err(dev->ctx, k < 0 ? (int)k : -EIO,
					      "dmaengine %s: reading completions: %s", dev->name,
					      strerror(k < 0 ? (int)-k : EIO));
				/* the file cannot be trusted for further copies of this call */
				dd->seq = base + len + 1;
				pthread_mutex_unlock(&dd->lock);
				return err;
			}
			for (ssize_t j = 0; j < k; j++) {
				dma += cm[j].dma_bytes;
				cpu += cm[j].cpu_bytes;
				if (cm[j].status && !bad) {
					badc = cm[j];
					bad = &badc;
					fail_off = cm[j].user_data - base;
				}
			}
			got += (unsigned)k;
		}
		for (unsigned j = 0; j < sub.submitted; j++)
			off += (size_t)cp[j].len;
		if (bad)
			break;
	}
	dd->seq = base + len + 1;
	pthread_mutex_unlock(&dd->lock);

	atomic_fetch_add_explicit(&dev->stats.jobs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&dev->stats.bytes, dma, memory_order_relaxed);
	atomic_fetch_add_explicit(&dev->stats.cpu_bytes, cpu, memory_order_relaxed);
	if (err)
		return err;
	if (bad) {
		int r = comp_err(bad);
		return ofl_err(dev->ctx, r,
			       "dmaengine %s (%s): the copy of %zu B failed in the kernel at offset %" PRIu64
			       ": %s (%s, status %d); %" PRIu64 " B were written by the engine and %" PRIu64
			       " B by the module's CPU part before it: dst is not complete",
			       dev->name, dd->driver, len, fail_off, strerror(-r),
			       ofl_dmae_why(bad->detail), (int)bad->status, dma, cpu);
	}
	ofl_result_set(res, dev, dd->driver, OFFLOAD_RES_KERNEL | OFFLOAD_RES_HARDWARE);
	return 0;
}

/* ------------------------------------------------------------------ queues */

struct dmae_queue {
	struct dmae_dev *dd;
	int fd;                          /* the queue's own file, O_NONBLOCK */
	uint32_t sent;                   /* jobs [done, sent) are with the module */
	uint8_t *fin;                    /* per slot: its completion came */
	struct offload_dma_copy *cp;     /* depth */
	struct offload_dma_completion *cm; /* depth */
};

static int dmae_queue_open(struct ofl_device *dev, struct offload_queue *q)
{
	struct dmae_dev *dd = dev->priv;
	struct dmae_queue *b = calloc(1, sizeof(*b));

	if (!b)
		return ofl_err(dev->ctx, -ENOMEM, "dmaengine %s: out of memory for a queue", dev->name);
	b->dd = dd;
	b->fin = calloc(q->depth, 1);
	b->cp = calloc(q->depth, sizeof(*b->cp));
	b->cm = calloc(q->depth, sizeof(*b->cm));
	b->fd = -1;
	if (!b->fin || !b->cp || !b->cm) {
		free(b->fin);
		free(b->cp);
		free(b->cm);
		free(b);
		return ofl_err(dev->ctx, -ENOMEM, "dmaengine %s: out of memory for a queue", dev->name);
	}
	b->fd = ofl_dmae_open_file(dd->st, true);
	if (b->fd < 0) {
		int r = b->fd;
		free(b->fin);
		free(b->cp);
		free(b->cm);
		free(b);
		return ofl_err(dev->ctx, r, "dmaengine %s: cannot open %s for a queue: %s", dev->name,
			       dd->st->path, strerror(-r));
	}
	q->bq = b;
	b->sent = q->done;
	return 0;
}

static void dmae_queue_close(struct offload_queue *q)
{
	struct dmae_queue *b = q->bq;

	if (!b)
		return;
	/* close() cancels what is left: when it returns no engine touches the jobs' memory */
	close(b->fd);
	free(b->fin);
	free(b->cp);
	free(b->cm);
	free(b);
	q->bq = NULL;
}

static void finish(struct offload_queue *q, uint32_t idx, int32_t status)
{
	struct dmae_queue *b = q->bq;
	struct ofl_job *j = &q->jobs[idx & q->mask];

	j->status = status;
	j->flags = OFFLOAD_RES_KERNEL | OFFLOAD_RES_HARDWARE;
	b->fin[idx & q->mask] = 1;
}

/* Hand the module what it has not got yet, one ioctl per contiguous run; stops at its limits. */
static int ship(struct offload_queue *q, uint32_t end)
{
	struct dmae_queue *b = q->bq;

	while (b->sent != end) {
		uint32_t n = 0;
		for (uint32_t i = b->sent; i != end && n < q->depth; i++, n++) {
			const struct ofl_job *j = &q->jobs[i & q->mask];
			fill_copy(&b->cp[n], i, pick_chan(b->dd), j->dst, j->src, j->len);
		}
		struct offload_dma_submit sub = { .copies = (uint64_t)(uintptr_t)b->cp, .count = n };
		if (ioctl(b->fd, OFFLOAD_DMA_IOC_SUBMIT, &sub) < 0) {
			int r = -errno;
			if (r == -EAGAIN && b->sent != q->done)
				return 0; /* in flight at the limit: progress() ships the rest */
			if (r == -EAGAIN)
				/* none of ours in flight: other files hold the module's total pins */
				return ofl_err(q->ctx, -EBUSY, "dmaengine queue: the module takes no copy "
					       "now (max_pinned_total_mb is held by other files); retry");
			/*
			 * The batch itself was refused: every job of it fails with that
			 * errno, each in its completion (the jobs count as started).
			 */
			for (uint32_t k = 0; k < n; k++)
				finish(q, b->sent++, r);
			(void)ofl_err(q->ctx, r, "dmaengine queue: OFFLOAD_DMA_IOC_SUBMIT: %s (%s)",
				      strerror(-r), ofl_dmae_why(sub.detail));
			return 0;
		}
		b->sent += sub.submitted;
		if (sub.submitted < n)
			return 0;
	}
	return 0;
}

static int dmae_queue_submit(struct offload_queue *q)
{
	return ship(q, q->tail);
}

/* Read what completed, then advance done over the finished prefix (the queue's order). */
static int reap(struct offload_queue *q, bool *any)
{
	struct dmae_queue *b = q->bq;

	for (;;) {
		ssize_t k = read(b->fd, b->cm, q->depth * sizeof(*b->cm));
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return ofl_err(q->ctx, -errno, "dmaengine queue: reading completions: %s",
				       strerror(errno));
		}
		size_t n = (size_t)k / sizeof(*b->cm);
		for (size_t i = 0; i < n; i++) {
			finish(q, (uint32_t)b->cm[i].user_data, b->cm[i].status);
			atomic_fetch_add_explicit(&q->dev->stats.jobs, 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&q->dev->stats.bytes, b->cm[i].dma_bytes,
						  memory_order_relaxed);
			atomic_fetch_add_explicit(&q->dev->stats.cpu_bytes, b->cm[i].cpu_bytes,
						  memory_order_relaxed);
		}
		if (n < q->depth)
			break;
	}
	uint32_t d0 = q->done;
	while (q->done != b->sent && b->fin[q->done & q->mask]) {
		b->fin[q->done & q->mask] = 0;
		q->done++;
	}
	*any = q->done != d0;
	return 0;
}

static int dmae_queue_progress(struct offload_queue *q, int64_t timeout_us)
{
	struct dmae_queue *b = q->bq;
	bool any = false;
	int r = ship(q, q->submitted);

	if (r < 0)
		return r;
	if ((r = reap(q, &any)) < 0 || any)
		return r;
	if (timeout_us == 0 || q->done == q->submitted)
		return q->done == q->submitted ? 0 : -ETIMEDOUT;
	int ms = timeout_us < 0 ? -1 : (int)OFL_MIN((timeout_us + 999) / 1000, (int64_t)INT32_MAX);
	for (;;) {
		struct pollfd p = { .fd = b->fd, .events = POLLIN };
		int n = poll(&p, 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ofl_err(q->ctx, -errno, "dmaengine queue: poll: %s", strerror(errno));
		break;
	}
	if ((r = ship(q, q->submitted)) < 0 || (r = reap(q, &any)) < 0)
		return r;
	return any ? 0 : -ETIMEDOUT;
}

const struct ofl_memcpy_ops ofl_dmae_memcpy_ops = {
	.copy = dmae_copy,
	.queue_open = dmae_queue_open,
	.queue_close = dmae_queue_close,
	.queue_submit = dmae_queue_submit,
	.queue_progress = dmae_queue_progress,
};
