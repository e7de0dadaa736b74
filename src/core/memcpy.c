/* SPDX-License-Identifier: MIT */
/*
 * Synchronous memcpy: argument checks and device selection.
 *
 * offload_memcpy() runs most small copies in the caller (the inline fast
 * path in offload/memcpy.h); what reaches offload_memcpy_slowpath() is one
 * inline test (ofl_copy_args_ok), a compare against the size threshold and
 * an indirect call; everything that explains a failure lives in the
 * out-of-line functions below.
 */
#include <string.h>

/*
 * This file provides offload_memcpy() as an exported function (the body of
 * the public header's inline fast path) for FFI and for programs built
 * against 0.1's header.
 */
#define OFFLOAD_INLINE __attribute__((visibility("default")))
#include <offload/core.h>
int offload_memcpy(offload_ctx *ctx, void *dst, const void *src, size_t len);

#include "core/internal.h"

/* Say exactly what is wrong with a copy's arguments (slow path). */
static int __attribute__((noinline, cold)) copy_args_err(const struct offload_ctx *ctx,
							  const char *func, const void *dst,
							  const void *src, size_t len)
{
	int r = ofl_ctx_check(ctx, func);

	if (r < 0)
		return r;
	if (!dst || !src)
		return ofl_err(ctx, -EINVAL, "%s: %s is NULL", func, !dst ? "dst" : "src");
	if (ofl_range_wraps(dst, len) || ofl_range_wraps(src, len))
		return ofl_err(ctx, -EINVAL, "%s: %s range [%p,+%zu) wraps the address space", func,
			       ofl_range_wraps(dst, len) ? "destination" : "source",
			       ofl_range_wraps(dst, len) ? dst : src, len);
	if (ofl_ranges_overlap(dst, len, src, len))
		return ofl_err(ctx, -EINVAL,
			       "%s: source [%p,+%zu) overlaps destination [%p,+%zu); overlapping "
			       "copies are not supported (no engine can promise memmove order)",
			       func, src, len, dst, len);
	return 0;
}

static int __attribute__((noinline, cold)) no_copy_device(const struct offload_ctx *ctx,
							   const char *func)
{
	return ofl_err(ctx, -ENOTSUP,
		       "%s: no device of this context can copy memory (backend allow-list \"%s\")",
		       func, ctx->allow);
}

/*
 * Run a copy on a device that is not the CPU fast path's: a backend failing
 * without a message of its own gets a generic one rather than an older one
 * (the mark).
 */
static int __attribute__((noinline)) run_copy(const char *func, struct ofl_device *d, void *dst,
					      const void *src, size_t len, struct offload_result *res)
{
	uint64_t mark = ofl_err_mark();
	int r = d->backend->memcpy->copy(d, dst, src, len, res);

	return r < 0 ? ofl_backend_err(d->ctx, func, d, r, mark) : r;
}

/*
 * An automatically chosen engine that cannot take the copy now (-EBUSY: no
 * free channel; -ENOMEM: no DMA memory for one; the backend touched nothing,
 * see backend.h) hands it to the CPU, as a kernel dmaengine client falls back
 * to memcpy when dma_request_chan() fails. An explicit device does not.
 */
static int __attribute__((noinline)) run_auto(const char *func, struct offload_ctx *ctx,
					      struct ofl_device *d, void *dst, const void *src, size_t len,
					      struct offload_result *res)
{
	uint64_t mark = ofl_err_mark();
	int r = d->backend->memcpy->copy(d, dst, src, len, res);

	if (r >= 0)
		return r;
	if ((r != -EBUSY && r != -ENOMEM) || ctx->cpu_dev < 0)
		return ofl_backend_err(ctx, func, d, r, mark);
	/* the call does not fail: a reason the engine gave is no failure's message */
	if (ofl_err_since(ctx, mark))
		ofl_err_clear(ctx);
	struct ofl_device *cpu = ctx->drv.devs[ctx->cpu_dev];
	r = cpu->backend->memcpy->copy(cpu, dst, src, len, res);
	if (r == 0 && res)
		res->flags |= OFFLOAD_RES_FALLBACK;
	return r;
}

OFFLOAD_API int offload_memcpy_slowpath(offload_ctx *ctx, void *dst, const void *src, size_t len)
{
	if (OFL_UNLIKELY(!ofl_copy_args_ok(ctx, dst, src, len)))
		return copy_args_err(ctx, "offload_memcpy", dst, src, len);
	if (OFL_UNLIKELY(len == 0))
		return 0;
	struct ofl_device *d = len < ctx->memcpy_threshold ? ctx->memcpy_small : ctx->memcpy_big;
	if (OFL_UNLIKELY(!d))
		return no_copy_device(ctx, "offload_memcpy");
	/* The CPU backend never fails: straight to it. An engine may fail. */
	if (OFL_LIKELY(d->index == ctx->cpu_dev))
		return d->backend->memcpy->copy(d, dst, src, len, NULL);
	return run_auto("offload_memcpy", ctx, d, dst, src, len, NULL);
}

OFFLOAD_API int offload_memcpy_dev(offload_ctx *ctx, int dev, void *dst, const void *src, size_t len,
		       struct offload_result *res)
{
	if (!ofl_copy_args_ok(ctx, dst, src, len))
		return copy_args_err(ctx, "offload_memcpy_dev", dst, src, len);

	struct ofl_device *d;
	bool automatic = dev == OFFLOAD_DEV_AUTO;
	if (automatic) {
		d = len < ctx->memcpy_threshold ? ctx->memcpy_small : ctx->memcpy_big;
		if (!d)
			return no_copy_device(ctx, "offload_memcpy_dev");
	} else {
		d = ofl_ctx_device(ctx, dev);
		if (!d)
			return ofl_err(ctx, -ENODEV, "offload_memcpy_dev: no device %d (the context has %d)",
				       dev, ctx->drv.ndev);
		if (!d->backend)
			return ofl_err(ctx, -ENODEV, "offload_memcpy_dev: device %s is not usable: %s",
				       d->name, d->usable_reason);
		if (!d->backend->memcpy || !d->backend->memcpy->copy ||
		    !(d->policy.caps & OFFLOAD_CAP_MEMCPY))
			return ofl_err(ctx, -ENOTSUP, "offload_memcpy_dev: device %s cannot copy memory",
				       d->name);
	}
	if (len == 0) {
		ofl_result_set(res, d, "none", 0);
		return 0;
	}
	if (automatic && d->index != ctx->cpu_dev)
		return run_auto("offload_memcpy_dev", ctx, d, dst, src, len, res);
	return run_copy("offload_memcpy_dev", d, dst, src, len, res);
}
