/* SPDX-License-Identifier: MIT */
/*
 * The asynchronous copy queue: a ring of jobs owned by the core; backends
 * start them (submit) and finish them (progress). Enqueue and reap are plain
 * ring operations: no lock, no system call, no allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

struct ofl_queue_handle {
	struct offload_queue q; /* first: offload_queue * is the handle */
	struct ofl_handle hdl;
};

OFFLOAD_API void offload_queue_opts_init(struct offload_queue_opts *opts)
{
	if (!opts)
		return;
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->depth = 256;
	opts->dev = OFFLOAD_DEV_AUTO;
}

static void queue_destroy(struct ofl_handle *h)
{
	struct ofl_queue_handle *qh = ofl_container_of(h, struct ofl_queue_handle, hdl);

	offload_queue_close(&qh->q);
}

OFFLOAD_API int offload_queue_open(offload_ctx *ctx, const struct offload_queue_opts *opts, offload_queue **out)
{
	struct offload_queue_opts o;

	if (out)
		*out = NULL;
	int r = ofl_ctx_check(ctx, "offload_queue_open");
	if (r < 0)
		return r;
	if (!out)
		return ofl_err(ctx, -EINVAL, "offload_queue_open: out is NULL");
	offload_queue_opts_init(&o);
	if (opts) {
		if (opts->size < sizeof(o))
			return ofl_err(ctx, -EINVAL, "offload_queue_open: opts->size %u < %zu; use "
				       "offload_queue_opts_init()", opts->size, sizeof(o));
		o = *opts;
	}
	if (o.depth < 2 || o.depth > 65536 || (o.depth & (o.depth - 1)))
		return ofl_err(ctx, -EINVAL,
			       "offload_queue_open: depth %u is not a power of two in 2..65536", o.depth);

	struct ofl_device *d;
	if (o.dev == OFFLOAD_DEV_AUTO) {
		d = ctx->memcpy_big;
		if (!d)
			return ofl_err(ctx, -ENOTSUP,
				       "offload_queue_open: no device of this context can copy memory "
				       "(backend allow-list \"%s\")", ctx->allow);
	} else {
		d = ofl_ctx_device(ctx, o.dev);
		if (!d)
			return ofl_err(ctx, -ENODEV, "offload_queue_open: no device %d", o.dev);
		if (!d->backend)
			return ofl_err(ctx, -ENODEV, "offload_queue_open: device %s is not usable: %s",
				       d->name, d->usable_reason);
	}
	if (!d->backend->memcpy || !d->backend->memcpy->queue_open ||
	    !(d->policy.caps & OFFLOAD_CAP_MEMCPY))
		return ofl_err(ctx, -ENOTSUP, "offload_queue_open: device %s has no copy queue", d->name);

	struct ofl_queue_handle *qh = calloc(1, sizeof(*qh));
	if (!qh)
		return ofl_err(ctx, -ENOMEM, "offload_queue_open: out of memory");
	struct offload_queue *q = &qh->q;
	q->ctx = ctx;
	q->dev = d;
	q->depth = o.depth;
	q->mask = o.depth - 1;
	q->jobs = calloc(o.depth, sizeof(*q->jobs));
	if (!q->jobs) {
		free(qh);
		return ofl_err(ctx, -ENOMEM, "offload_queue_open: out of memory for %u jobs", o.depth);
	}
	r = d->backend->memcpy->queue_open(d, q);
	if (r < 0) {
		free(q->jobs);
		free(qh);
		if (!offload_last_error(ctx)[0])
			ofl_err(ctx, r, "offload_queue_open: %s could not open a queue on %s",
				d->backend->name, d->name);
		return r;
	}
	ofl_ctx_handle_add(ctx, &qh->hdl, "queue", queue_destroy);
	*out = q;
	return 0;
}

OFFLOAD_API int offload_queue_close(offload_queue *q)
{
	int r = 0;

	if (!q)
		return ofl_err(NULL, -EINVAL, "offload_queue_close: queue is NULL");
	if (ofl_ctx_inherited(q->ctx))
		return ofl_inherited_err(q->ctx, "offload_queue_close");
	struct ofl_queue_handle *qh = (struct ofl_queue_handle *)q;
	const struct ofl_memcpy_ops *ops = q->dev->backend->memcpy;
	uint32_t done0 = q->done;
	/*
	 * Let started jobs finish. The backend's own timeout bounds this: a
	 * progress call without a limit still fails what its engine does not
	 * finish within the engine timeout (backends/udma: 1 s without a
	 * completion tears the channel down).
	 */
	if (ops->queue_cancel && q->done != q->submitted)
		ops->queue_cancel(q); /* the backend can stop them: do not wait for its timeout */
	while (q->done != q->submitted) {
		int p = ops->queue_progress(q, -1);
		if (p < 0) {
			r = p;
			break;
		}
	}
	uint32_t aborted = 0;
	for (uint32_t i = done0; i != q->done; i++) {
		int32_t st = q->jobs[i & q->mask].status;
		aborted += st == -ETIMEDOUT || st == -ECANCELED;
	}
	if (aborted && r == 0)
		r = ofl_err(q->ctx, -ETIMEDOUT, "offload_queue_close: %u started job(s) did not finish "
			    "on %s and were aborted", aborted, q->dev->name);
	ops->queue_close(q);
	ofl_ctx_handle_del(q->ctx, &qh->hdl);
	free(q->jobs);
	free(qh);
	return r;
}

OFFLOAD_API int offload_queue_copy(offload_queue *q, void *dst, const void *src, size_t len, uint64_t user_data)
{
	if (OFL_UNLIKELY(!q))
		return ofl_err(NULL, -EINVAL, "offload_queue_copy: queue is NULL");
	if (OFL_UNLIKELY(ofl_ctx_inherited(q->ctx)))
		return ofl_inherited_err(q->ctx, "offload_queue_copy");
	if (OFL_UNLIKELY(!dst || !src || len == 0))
		return ofl_err(q->ctx, -EINVAL, "offload_queue_copy: %s",
			       !dst ? "dst is NULL" : !src ? "src is NULL" : "len is 0");
	if (OFL_UNLIKELY(ofl_range_wraps(dst, len) || ofl_range_wraps(src, len) ||
			 ofl_ranges_overlap(dst, len, src, len)))
		return ofl_err(q->ctx, -EINVAL,
			       "offload_queue_copy: [%p,+%zu) -> [%p,+%zu) overlaps or wraps", src, len,
			       dst, len);
	if (OFL_UNLIKELY(q->tail - q->head >= q->depth))
		return ofl_err(q->ctx, -ENOSPC,
			       "offload_queue_copy: queue full (%u jobs not yet reaped)", q->depth);
	struct ofl_job *j = &q->jobs[q->tail & q->mask];
	j->dst = dst;
	j->src = src;
	j->len = len;
	j->user_data = user_data;
	j->status = 0;
	j->flags = 0;
	return (int)(q->tail++ & 0x7fffffffu);
}

OFFLOAD_API int offload_queue_submit(offload_queue *q)
{
	if (OFL_UNLIKELY(!q))
		return ofl_err(NULL, -EINVAL, "offload_queue_submit: queue is NULL");
	if (ofl_ctx_inherited(q->ctx))
		return ofl_inherited_err(q->ctx, "offload_queue_submit");
	uint32_t n = q->tail - q->submitted;
	if (n == 0)
		return 0;
	int r = q->dev->backend->memcpy->queue_submit(q);
	if (r < 0)
		return ofl_err(q->ctx, r, "offload_queue_submit: %s could not start %u job(s) on %s: %s",
			       q->dev->backend->name, n, q->dev->name, offload_strerror(r));
	q->submitted = q->tail;
	return (int)n;
}

static unsigned reap(offload_queue *q, struct offload_completion *cpl, unsigned max)
{
	unsigned n = 0;

	while (n < max && q->head != q->done) {
		const struct ofl_job *j = &q->jobs[q->head & q->mask];
		cpl[n].user_data = j->user_data;
		cpl[n].job = q->head & 0x7fffffffu;
		cpl[n].status = j->status;
		cpl[n].dev = q->dev->index;
		cpl[n].flags = j->flags;
		q->head++;
		n++;
	}
	return n;
}

OFFLOAD_API int offload_queue_poll(offload_queue *q, struct offload_completion *cpl, unsigned max)
{
	if (OFL_UNLIKELY(!q || (!cpl && max)))
		return ofl_err(q ? q->ctx : NULL, -EINVAL, "offload_queue_poll: %s is NULL",
			       q ? "cpl" : "queue");
	if (ofl_ctx_inherited(q->ctx))
		return ofl_inherited_err(q->ctx, "offload_queue_poll");
	if (q->done != q->submitted) {
		int r = q->dev->backend->memcpy->queue_progress(q, 0);
		if (r < 0 && r != -ETIMEDOUT)
			return ofl_err(q->ctx, r, "offload_queue_poll: %s on %s: %s",
				       q->dev->backend->name, q->dev->name, offload_strerror(r));
	}
	return (int)reap(q, cpl, max);
}

OFFLOAD_API int offload_queue_wait(offload_queue *q, struct offload_completion *cpl, unsigned max, int64_t timeout_us)
{
	if (OFL_UNLIKELY(!q || !cpl || max == 0))
		return ofl_err(q ? q->ctx : NULL, -EINVAL, "offload_queue_wait: %s",
			       !q ? "queue is NULL" : !cpl ? "cpl is NULL" : "max is 0");
	if (ofl_ctx_inherited(q->ctx))
		return ofl_inherited_err(q->ctx, "offload_queue_wait");
	if (q->head == q->done && q->done == q->submitted)
		return ofl_err(q->ctx, -EINVAL,
			       "offload_queue_wait: no submitted job is outstanding (%u enqueued but "
			       "not submitted): waiting could never succeed", q->tail - q->submitted);
	/* Collect what finished meanwhile, then wait only if nothing is ready. */
	int r = q->dev->backend->memcpy->queue_progress(q, 0);
	if (q->head == q->done) {
		/* saturating: a huge timeout (INT64_MAX) waits practically forever, never "expired" */
		uint64_t deadline = timeout_us > 0 ? ofl_deadline_ns(ofl_now_ns(), timeout_us) : 0;
		int64_t left = timeout_us;
		while (q->head == q->done && (r == 0 || r == -ETIMEDOUT) && left != 0) {
			r = q->dev->backend->memcpy->queue_progress(q, left);
			if (timeout_us > 0)
				left = ofl_us_until(ofl_now_ns(), deadline);
		}
	}
	if (q->head == q->done) {
		if (r < 0 && r != -ETIMEDOUT)
			return ofl_err(q->ctx, r, "offload_queue_wait: %s on %s: %s",
				       q->dev->backend->name, q->dev->name, offload_strerror(r));
		return ofl_err(q->ctx, -ETIMEDOUT, "offload_queue_wait: no job finished within %lld us",
			       (long long)timeout_us);
	}
	return (int)reap(q, cpl, max);
}

OFFLOAD_API int offload_queue_capacity(const offload_queue *q)
{
	if (!q)
		return ofl_err(NULL, -EINVAL, "offload_queue_capacity: queue is NULL");
	if (ofl_ctx_inherited(q->ctx))
		return ofl_inherited_err(q->ctx, "offload_queue_capacity");
	return (int)(q->depth - (q->tail - q->head));
}

OFFLOAD_API int offload_queue_dev(const offload_queue *q)
{
	if (!q)
		return ofl_err(NULL, -EINVAL, "offload_queue_dev: queue is NULL");
	if (ofl_ctx_inherited(q->ctx))
		return ofl_inherited_err(q->ctx, "offload_queue_dev");
	return q->dev->index;
}
