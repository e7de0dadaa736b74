/* SPDX-License-Identifier: MIT */
/* Synchronous memcpy: argument checks and device selection. */
#include <string.h>

#include "core/internal.h"

static int check_copy(const struct offload_ctx *ctx, const char *func, const void *dst,
		      const void *src, size_t len)
{
	int r = ofl_ctx_check(ctx, func);

	if (OFL_UNLIKELY(r < 0))
		return r;
	if (OFL_UNLIKELY(!dst || !src))
		return ofl_err(ctx, -EINVAL, "%s: %s is NULL", func, !dst ? "dst" : "src");
	if (OFL_UNLIKELY(ofl_range_wraps(dst, len) || ofl_range_wraps(src, len)))
		return ofl_err(ctx, -EINVAL, "%s: length %zu wraps the address space", func, len);
	if (OFL_UNLIKELY(ofl_ranges_overlap(dst, len, src, len)))
		return ofl_err(ctx, -EINVAL,
			       "%s: source [%p,+%zu) overlaps destination [%p,+%zu); overlapping "
			       "copies are not supported (no engine can promise memmove order)",
			       func, src, len, dst, len);
	return 0;
}

static int run_copy(struct ofl_device *d, void *dst, const void *src, size_t len,
		    struct offload_result *res)
{
	int r = d->backend->memcpy->copy(d, dst, src, len, res);

	if (OFL_UNLIKELY(r < 0) && !offload_last_error(d->ctx)[0])
		ofl_err(d->ctx, r, "offload_memcpy: %s failed on %s: %s", d->backend->name, d->name,
			offload_strerror(r));
	return r;
}

int offload_memcpy(offload_ctx *ctx, void *dst, const void *src, size_t len)
{
	int r = check_copy(ctx, "offload_memcpy", dst, src, len);

	if (OFL_UNLIKELY(r < 0) || len == 0)
		return r;
	struct ofl_device *d = ctx->devs[ctx->memcpy_dev];
	if (len < d->policy.threshold_bytes || ctx->memcpy_dev == ctx->cpu_dev) {
		struct ofl_device *cpu = ctx->devs[ctx->cpu_dev];
		return run_copy(cpu, dst, src, len, NULL);
	}
	return run_copy(d, dst, src, len, NULL);
}

int offload_memcpy_dev(offload_ctx *ctx, int dev, void *dst, const void *src, size_t len,
		       struct offload_result *res)
{
	int r = check_copy(ctx, "offload_memcpy_dev", dst, src, len);

	if (r < 0)
		return r;
	struct ofl_device *d;
	if (dev == OFFLOAD_DEV_AUTO) {
		d = ctx->devs[ctx->memcpy_dev];
		if (len < d->policy.threshold_bytes)
			d = ctx->devs[ctx->cpu_dev];
	} else {
		d = ofl_ctx_device(ctx, dev);
		if (!d)
			return ofl_err(ctx, -ENODEV, "offload_memcpy_dev: no device %d", dev);
		if (!d->backend)
			return ofl_err(ctx, -ENODEV, "offload_memcpy_dev: device %s is not usable: %s",
				       d->name, d->usable_reason);
		if (!d->backend->memcpy || !(d->policy.caps & OFFLOAD_CAP_MEMCPY))
			return ofl_err(ctx, -ENOTSUP, "offload_memcpy_dev: device %s cannot copy memory",
				       d->name);
	}
	if (len == 0) {
		ofl_result_set(res, d, "none", 0);
		return 0;
	}
	return run_copy(d, dst, src, len, res);
}
