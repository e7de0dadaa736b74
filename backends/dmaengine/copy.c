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
#include <time.h>
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

/*
 * The module broke the protocol on this device's file (it consumed more copies than it was
 * given, none without an error, or sent a completion for no copy of ours): a stray completion
 * could be taken for a later call's, so the file is replaced. Closing it cancels whatever the
 * module still runs on it (uapi: close() cancels what is left). Under dd->lock.
 */
static void poison_dev(struct dmae_dev *dd)
{
	close(dd->fd);
	dd->fd = ofl_dmae_open_file(dd->st, false);
}

/* What a failed piece becomes: its errno, the contract's -ENOMEM/-EBUSY only when nothing was written. */
static int comp_err(int32_t status, uint64_t written)
{
	int r = status < 0 ? status : -EIO;

	if ((r == -ENOMEM || r == -EBUSY) && written)
		return -EIO; /* dst is partly written: not a "nothing happened" for the core's fallback */
	return r;
}

/* One side of a copy: user memory (fd -1), or an offset in one of the context's dma-bufs. */
struct dmae_side {
	int fd;
	uint64_t off;
};

/*
 * Memory of the context's own dma-bufs (udmabuf maps PFNs, which the module's
 * pin_user_pages cannot take) goes by fd and offset through the module's dma-buf
 * path. That path has no CPU part (kmod/job.c ofd_prepare): every byte goes to
 * the engine, so src, dst and len must be multiples of copy_align, and a user
 * destination on a non-coherent channel must start and end on a cache line.
 * *piece: the longest copy (max_copy_bytes, kept aligned, unless both are dma-bufs).
 * 0, or -EBUSY before any byte (the core's AUTO then copies on the CPU, which
 * can always touch a dma-buf's mapping).
 */
static const char *dmabuf_plan(struct ofl_device *dev, const void *dst, const void *src, size_t len,
			       struct dmae_side *d, struct dmae_side *s, uint64_t *piece)
{
	struct dmae_dev *dd = dev->priv;
	const struct dmae_state *st = dd->st;
	int hd = ofl_ctx_dmabuf_find(dev->ctx, dst, len, &d->fd, &d->off);
	int hs = ofl_ctx_dmabuf_find(dev->ctx, src, len, &s->fd, &s->off);

	if (hd <= 0)
		d->fd = -1;
	if (hs <= 0)
		s->fd = -1;
	if (!hd && !hs)
		return NULL;
	const char *why = NULL;
	uint64_t a = dd->copy_align, c = st->info.cache_align;
	uint64_t sa = s->fd >= 0 ? s->off : (uint64_t)(uintptr_t)src;
	uint64_t da = d->fd >= 0 ? d->off : (uint64_t)(uintptr_t)dst;
	bool user_dst_lines = d->fd < 0 && !dd->coherent && c > 1;
	uint64_t step = user_dst_lines && c > a ? c : a;
	if (hd < 0 || hs < 0)
		why = "it runs over the edge of one of the context's dma-bufs";
	else if ((sa | da | (uint64_t)len) & (a - 1))
		why = "a dma-buf copy has no CPU part, and src, dst or len is not a multiple of the "
		      "engine's copy_align";
	else if (user_dst_lines && (((uint64_t)(uintptr_t)dst | ((uint64_t)(uintptr_t)dst + len)) &
				    (c - 1)))
		why = "a dma-buf copy has no CPU part, and the destination does not start and end on "
		      "a cache line of this non-coherent DMA device";
	*piece = (uint64_t)len;
	if (!why && (d->fd < 0 || s->fd < 0) && st->info.max_copy_bytes) {
		*piece = st->info.max_copy_bytes / step * step;
		if (!*piece)
			why = "the module's max_copy_bytes is below the alignment a dma-buf copy needs";
	}
	return why;
}

static int dmabuf_sides(struct ofl_device *dev, void *dst, const void *src, size_t len,
			struct dmae_side *d, struct dmae_side *s, uint64_t *piece)
{
	const char *why = dmabuf_plan(dev, dst, src, len, d, s, piece);

	if (!why)
		return 0;
	return ofl_err(dev->ctx, -EBUSY, "dmaengine %s: the copy of %zu B touches the context's "
		       "dma-buf memory, which the module takes only by fd, and %s: the CPU does it under "
		       "OFFLOAD_DEV_AUTO", dev->name, len, why);
}

static int dmae_copy(struct ofl_device *dev, void *dst, const void *src, size_t len,
		     struct offload_result *res)
{
	struct dmae_dev *dd = dev->priv;
	const struct dmae_state *st = dd->st;
	uint64_t maxc = st->info.max_copy_bytes ? st->info.max_copy_bytes : len;
	struct dmae_side sd, ss;
	int dr = dmabuf_sides(dev, dst, src, len, &sd, &ss, &maxc);
	if (dr < 0)
		return dr;
	struct offload_dma_copy cp[DMAE_BATCH];
	struct offload_dma_completion cm[DMAE_BATCH];
	bool seen[DMAE_BATCH];
	uint64_t dma = 0, cpu = 0, fail_off = 0;
	struct offload_dma_completion bad = { 0 };
	bool failed = false;
	size_t off = 0;
	int err = 0;

	pthread_mutex_lock(&dd->lock);
	if (dd->fd < 0) {
		pthread_mutex_unlock(&dd->lock);
		return ofl_err(dev->ctx, -EIO, "dmaengine %s: no file on %s (reopening it after a "
			       "protocol error failed)", dev->name, st->path);
	}
	while (off < len && !err && !failed) {
		unsigned n = 0;
		size_t o = off;
		uint64_t base = dd->seq; /* piece k of this batch is user_data base + k */
		for (; n < DMAE_BATCH && o < len; n++) {
			uint64_t l = OFL_MIN((uint64_t)(len - o), maxc);
			fill_copy(&cp[n], base + n, pick_chan(dd), (char *)dst + o, (const char *)src + o, l);
			if (sd.fd >= 0) {
				cp[n].flags |= OFFLOAD_DMA_COPY_DST_DMABUF;
				cp[n].dst_fd = sd.fd;
				cp[n].dst = sd.off + o;
			}
			if (ss.fd >= 0) {
				cp[n].flags |= OFFLOAD_DMA_COPY_SRC_DMABUF;
				cp[n].src_fd = ss.fd;
				cp[n].src = ss.off + o;
			}
			seen[n] = false;
			o += (size_t)l;
		}
		dd->seq += n;
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
		if (sub.submitted == 0 || sub.submitted > n) {
			/* uapi: it consumes 1 .. count copies, or fails (EAGAIN when it takes none) */
			poison_dev(dd);
			err = ofl_err(dev->ctx, -EIO, "dmaengine %s: the module says it consumed %u of %u "
				      "copies: protocol error, the file is dropped (%s)", dev->name,
				      sub.submitted, n, "dst is not complete");
			break;
		}
		/* every consumed copy gives one completion: reap them all, whatever their status */
		for (unsigned got = 0; got < sub.submitted;) {
			ssize_t k = read_comps(dd->fd, cm, sub.submitted - got);
			if (k <= 0) {
				err = ofl_err(dev->ctx, k < 0 ? (int)k : -EIO,
					      "dmaengine %s: reading completions: %s", dev->name,
					      strerror(k < 0 ? (int)-k : EIO));
				poison_dev(dd); /* the file cannot be trusted for further copies */
				pthread_mutex_unlock(&dd->lock);
				return err;
			}
			for (ssize_t j = 0; j < k; j++) {
				uint64_t idx = cm[j].user_data - base;
				if (idx >= sub.submitted || seen[idx]) {
					poison_dev(dd);
					err = ofl_err(dev->ctx, -EIO, "dmaengine %s: a completion for no copy "
						      "in flight (user_data %" PRIu64 "): protocol error, the "
						      "file is dropped; dst is not complete", dev->name,
						      (uint64_t)cm[j].user_data);
					pthread_mutex_unlock(&dd->lock);
					return err;
				}
				seen[idx] = true;
				dma += cm[j].dma_bytes;
				cpu += cm[j].cpu_bytes;
				uint64_t at = cp[idx].dst - (sd.fd >= 0 ? sd.off : (uint64_t)(uintptr_t)dst);
				if (cm[j].status && (!failed || at < fail_off)) {
					bad = cm[j];
					failed = true;
					fail_off = at; /* the lowest failed offset, whatever the completion order */
				}
			}
			got += (unsigned)k;
		}
		for (unsigned j = 0; j < sub.submitted; j++)
			off += (size_t)cp[j].len;
	}
	pthread_mutex_unlock(&dd->lock);

	atomic_fetch_add_explicit(&dev->stats.jobs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&dev->stats.bytes, dma, memory_order_relaxed);
	atomic_fetch_add_explicit(&dev->stats.cpu_bytes, cpu, memory_order_relaxed);
	if (err)
		return err;
	if (failed) {
		int r = comp_err(bad.status, dma + cpu);
		return ofl_err(dev->ctx, r,
			       "dmaengine %s (%s): the copy of %zu B failed in the kernel at offset %" PRIu64
			       ": %s (%s, status %d); %" PRIu64 " B were written in total (%" PRIu64
			       " B by the engine, %" PRIu64 " B by the module's CPU part): dst is not complete",
			       dev->name, dd->driver, len, fail_off, strerror(-r),
			       ofl_dmae_why(bad.detail), (int)bad.status, dma + cpu, dma, cpu);
	}
	ofl_result_set(res, dev, dd->driver, OFFLOAD_RES_KERNEL | OFFLOAD_RES_HARDWARE);
	return 0;
}

/* ------------------------------------------------------------------ queues */

/*
 * A job longer than the module's max_copy_bytes goes as several pieces (copies of the
 * module), all with the job's ring index as user_data; the job completes with its last
 * piece, with the first failure among them.
 */
struct dmae_queue {
	struct dmae_dev *dd;
	int fd;                          /* the queue's own file, O_NONBLOCK */
	uint32_t sent;                   /* jobs [done, sent) are wholly with the module */
	uint64_t sent_off;               /* bytes of job `sent` already with the module */
	int broken;                      /* the module broke the protocol: -EIO from now on */
	uint32_t *left;                  /* per slot: pieces with the module, not yet completed */
	int32_t *st;                     /* per slot: the first failed piece's status */
	uint8_t *fin;                    /* per slot: every piece completed */
	uint8_t *oncpu;                  /* per slot: the backend copied it on the CPU (dma-buf) */
	struct offload_dma_copy *cp;     /* depth */
	struct offload_dma_completion *cm; /* depth */
};

static void queue_free(struct dmae_queue *b)
{
	free(b->left);
	free(b->st);
	free(b->fin);
	free(b->oncpu);
	free(b->cp);
	free(b->cm);
	free(b);
}

static int dmae_queue_open(struct ofl_device *dev, struct offload_queue *q)
{
	struct dmae_dev *dd = dev->priv;
	struct dmae_queue *b = calloc(1, sizeof(*b));

	if (!b)
		return ofl_err(dev->ctx, -ENOMEM, "dmaengine %s: out of memory for a queue", dev->name);
	b->dd = dd;
	b->left = calloc(q->depth, sizeof(*b->left));
	b->st = calloc(q->depth, sizeof(*b->st));
	b->fin = calloc(q->depth, 1);
	b->oncpu = calloc(q->depth, 1);
	b->cp = calloc(q->depth, sizeof(*b->cp));
	b->cm = calloc(q->depth, sizeof(*b->cm));
	b->fd = -1;
	if (!b->left || !b->st || !b->fin || !b->oncpu || !b->cp || !b->cm) {
		queue_free(b);
		return ofl_err(dev->ctx, -ENOMEM, "dmaengine %s: out of memory for a queue", dev->name);
	}
	b->fd = ofl_dmae_open_file(dd->st, true);
	if (b->fd < 0) {
		int r = b->fd;
		queue_free(b);
		return ofl_err(dev->ctx, r, "dmaengine %s: cannot open %s for a queue: %s", dev->name,
			       dd->st->path, strerror(-r));
	}
	q->bq = b;
	b->sent = q->done;
	return 0;
}

/* Stop every copy still with the module (close: their completions say -ECANCELED). */
static void dmae_queue_cancel(struct offload_queue *q)
{
	struct dmae_queue *b = q->bq;
	struct offload_dma_cancel c = { .flags = OFFLOAD_DMA_CANCEL_ALL };

	if (b && !b->broken && q->done != q->submitted)
		(void)ioctl(b->fd, OFFLOAD_DMA_IOC_CANCEL, &c);
}

static void dmae_queue_close(struct offload_queue *q)
{
	struct dmae_queue *b = q->bq;

	if (!b)
		return;
	/* close() cancels what is left: when it returns no engine touches the jobs' memory */
	close(b->fd);
	queue_free(b);
	q->bq = NULL;
}

/* Job idx is done when all of it was shipped and every shipped piece completed. */
static void settle(struct offload_queue *q, uint32_t idx)
{
	struct dmae_queue *b = q->bq;
	uint32_t s = idx & q->mask;

	if (b->left[s] || (uint32_t)(idx - q->done) >= (uint32_t)(b->sent - q->done))
		return;
	struct ofl_job *j = &q->jobs[s];
	j->status = b->st[s];
	j->flags = b->oncpu[s] ? OFFLOAD_RES_CPU | OFFLOAD_RES_FALLBACK
			       : OFFLOAD_RES_KERNEL | OFFLOAD_RES_HARDWARE;
	b->fin[s] = 1;
}

static int broke(struct offload_queue *q, const char *m)
{
	struct dmae_queue *b = q->bq;

	b->broken = -EIO;
	return ofl_err(q->ctx, -EIO, "dmaengine queue: %s: protocol error; the queue is unusable, "
		       "close it (its copies are cancelled)", m);
}

/* Hand the module what it has not got yet, one ioctl per batch of pieces; stops at its limits. */
static int ship(struct offload_queue *q, uint32_t end)
{
	struct dmae_queue *b = q->bq;
	const struct dmae_state *st = b->dd->st;

	if (b->broken)
		return ofl_err(q->ctx, b->broken, "dmaengine queue: unusable after a protocol error of "
			       "the module; close it");
	while (b->sent != end) {
		uint32_t n = 0, i = b->sent;
		uint64_t off = b->sent_off;
		while (i != end && n < q->depth) {
			const struct ofl_job *j = &q->jobs[i & q->mask];
			uint64_t maxc = st->info.max_copy_bytes ? st->info.max_copy_bytes : j->len;
			struct dmae_side sd, ss;
			if (dmabuf_plan(q->dev, j->dst, j->src, j->len, &sd, &ss, &maxc) && !off) {
				/*
				 * dma-buf memory the module's fd path cannot take: the CPU can
				 * always touch its mapping, so the job is done here, reported so.
				 */
				if (n)
					break; /* first ship what is built, in order */
				uint32_t s = i & q->mask;
				memcpy(j->dst, j->src, j->len);
				b->oncpu[s] = 1;
				b->sent++;
				settle(q, i);
				i = b->sent;
				continue;
			}
			uint64_t l = OFL_MIN((uint64_t)j->len - off, maxc);
			struct offload_dma_copy *c = &b->cp[n++];
			fill_copy(c, i, pick_chan(b->dd), (char *)j->dst + off, (const char *)j->src + off, l);
			if (sd.fd >= 0) {
				c->flags |= OFFLOAD_DMA_COPY_DST_DMABUF;
				c->dst_fd = sd.fd;
				c->dst = sd.off + off;
			}
			if (ss.fd >= 0) {
				c->flags |= OFFLOAD_DMA_COPY_SRC_DMABUF;
				c->src_fd = ss.fd;
				c->src = ss.off + off;
			}
			off += l;
			if (off == j->len) {
				i++;
				off = 0;
			}
		}
		if (!n)
			continue; /* every job of the round went to the CPU */
		struct offload_dma_submit sub = { .copies = (uint64_t)(uintptr_t)b->cp, .count = n };
		uint32_t took = 0;
		int r = 0;
		if (ioctl(b->fd, OFFLOAD_DMA_IOC_SUBMIT, &sub) < 0) {
			r = -errno;
			if (r == -EAGAIN && (b->sent != q->done || b->sent_off))
				return 0; /* in flight at the limit: progress() ships the rest */
			if (r == -EAGAIN)
				/* none of ours in flight: other files hold the module's total pins */
				return ofl_err(q->ctx, -EBUSY, "dmaengine queue: the module takes no copy "
					       "now (max_pinned_total_mb is held by other files); retry");
		} else if (sub.submitted == 0 || sub.submitted > n) {
			char m[80];
			snprintf(m, sizeof(m), "the module says it consumed %u of %u copies",
				 sub.submitted, n);
			return broke(q, m);
		} else {
			took = sub.submitted;
		}
		/* the pieces it took are in flight: count them on their jobs */
		for (uint32_t k = 0; k < took; k++) {
			const struct offload_dma_copy *c = &b->cp[k];
			const struct ofl_job *j = &q->jobs[b->sent & q->mask];
			b->left[b->sent & q->mask]++;
			b->sent_off += c->len;
			if (b->sent_off == j->len) {
				b->sent++;
				b->sent_off = 0;
			}
		}
		if (r < 0) {
			/*
			 * The batch itself was refused: every job of it fails with that errno,
			 * each in its completion (the jobs count as started).
			 */
			uint32_t last = (uint32_t)b->cp[n - 1].user_data;
			while ((uint32_t)(last - b->sent) < (uint32_t)(end - b->sent)) {
				uint32_t s = b->sent & q->mask;
				if (!b->st[s])
					b->st[s] = r;
				b->sent_off = 0;
				settle(q, b->sent++);
			}
			(void)ofl_err(q->ctx, r, "dmaengine queue: OFFLOAD_DMA_IOC_SUBMIT: %s (%s)",
				      strerror(-r), ofl_dmae_why(sub.detail));
			return 0;
		}
		if (took < n)
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

	*any = false;
	if (b->broken)
		return ofl_err(q->ctx, b->broken, "dmaengine queue: unusable after a protocol error of "
			       "the module; close it");
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
			const struct offload_dma_completion *c = &b->cm[i];
			uint32_t idx = (uint32_t)c->user_data, s = idx & q->mask;
			/* ours: a job started and not finished, with a piece in flight */
			uint32_t span = (uint32_t)(b->sent - q->done) + (b->sent_off ? 1u : 0u);
			if (c->user_data > UINT32_MAX || (uint32_t)(idx - q->done) >= span || !b->left[s]) {
				char m[96];
				snprintf(m, sizeof(m), "a completion for no copy in flight (user_data %"
					 PRIu64 ")", (uint64_t)c->user_data);
				return broke(q, m);
			}
			b->left[s]--;
			if (c->status && !b->st[s])
				b->st[s] = c->status < 0 ? c->status : -EIO;
			settle(q, idx);
			atomic_fetch_add_explicit(&q->dev->stats.bytes, c->dma_bytes, memory_order_relaxed);
			atomic_fetch_add_explicit(&q->dev->stats.cpu_bytes, c->cpu_bytes,
						  memory_order_relaxed);
		}
		if (n < q->depth)
			break;
	}
	uint32_t d0 = q->done;
	while (q->done != b->sent && b->fin[q->done & q->mask]) {
		uint32_t s = q->done & q->mask;
		b->fin[s] = 0;
		b->oncpu[s] = 0;
		b->st[s] = 0;
		q->done++;
		atomic_fetch_add_explicit(&q->dev->stats.jobs, 1, memory_order_relaxed);
	}
	*any = q->done != d0;
	return 0;
}

static int64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
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
	/* a deadline, so that signals (EINTR) do not restart the wait; no overflow for huge values */
	int64_t start = now_us();
	int64_t end = timeout_us < 0 || timeout_us > INT64_MAX - start ? -1 : start + timeout_us;
	for (;;) {
		int ms = -1;
		if (end >= 0) {
			int64_t left = end - now_us();
			if (left < 0)
				left = 0;
			ms = (int)OFL_MIN(left / 1000 + (left % 1000 != 0), (int64_t)INT32_MAX);
		}
		struct pollfd p = { .fd = b->fd, .events = POLLIN };
		int n = poll(&p, 1, ms);
		if (n < 0 && errno == EINTR) {
			if (end >= 0 && now_us() >= end)
				break;
			continue;
		}
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
	.queue_cancel = dmae_queue_cancel,
	.queue_submit = dmae_queue_submit,
	.queue_progress = dmae_queue_progress,
};
