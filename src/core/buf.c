/* SPDX-License-Identifier: MIT */
/*
 * DMA buffers (include/offload/buf.h). A buffer of a device that a direct
 * backend serves comes from that device's DMA pool (src/platform), so the
 * backend can use pointers inside it zero-copy; any other device (the CPU,
 * kernel-interface backends) gets plain cache-line-aligned memory, which is
 * all those need.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "platform/platform.h"

#define OFL_BUF_MAGIC 0x6f666c62u /* "oflb" */

struct offload_buf {
	uint32_t magic;
	struct ofl_handle hdl;
	struct offload_ctx *ctx;
	struct ofl_device *dev;
	struct ofl_dma *dma; /* NULL: plain memory */
	void *cpu;
	size_t size;
	enum offload_cache_mode mode;
};

static void buf_destroy(struct ofl_handle *h)
{
	offload_buf_free(ofl_container_of(h, struct offload_buf, hdl));
}

int offload_buf_alloc(offload_ctx *ctx, int dev, size_t len, uint32_t flags, offload_buf **out)
{
	char why[OFL_ERRMSG_LEN - 120];
	int r = ofl_ctx_check(ctx, "offload_buf_alloc");

	if (r < 0)
		return r;
	if (!out)
		return ofl_err(ctx, -EINVAL, "offload_buf_alloc: out is NULL");
	*out = NULL;
	if (len == 0 || len > (SIZE_MAX >> 1))
		return ofl_err(ctx, -EINVAL, "offload_buf_alloc: length %zu is not in 1 .. %zu", len,
			       SIZE_MAX >> 1);
	if (flags & ~OFFLOAD_BUF_UNCACHED)
		return ofl_err(ctx, -EINVAL, "offload_buf_alloc: unknown flags 0x%x", flags & ~OFFLOAD_BUF_UNCACHED);
	struct ofl_device *d = ofl_ctx_device(ctx, dev == OFFLOAD_DEV_AUTO ? ctx->cpu_dev : dev);
	if (!d)
		return ofl_err(ctx, -ENODEV, "offload_buf_alloc: no device %d (the context has %d)", dev,
			       ctx->ndev);
	if (!d->backend)
		return ofl_err(ctx, -ENODEV, "offload_buf_alloc: device %s is not usable: %s", d->name,
			       d->usable_reason);
	struct offload_buf *b = calloc(1, sizeof(*b));
	if (!b)
		return ofl_err(ctx, -ENOMEM, "offload_buf_alloc: out of memory");
	b->magic = OFL_BUF_MAGIC;
	b->ctx = ctx;
	b->dev = d;
	if (d->dma) {
		enum offload_cache_mode want = (flags & OFFLOAD_BUF_UNCACHED) ? OFFLOAD_CACHE_UNCACHED
									      : ofl_dma_pool_cache(d->dma);
		r = ofl_dma_alloc(d->dma, len, ofl_cache_line(), want, true, &b->dma, why, sizeof(why));
		if (r < 0) {
			free(b);
			return ofl_err(ctx, r == -ENOTSUP ? -ENOMEM : r,
				       "offload_buf_alloc: %zu bytes of %s DMA memory for %s: %s", len,
				       want == OFFLOAD_CACHE_UNCACHED ? "uncached" : "cached", d->name, why);
		}
		b->cpu = b->dma->cpu;
		b->size = b->dma->len;
		b->mode = b->dma->cache;
	} else {
		size_t line = ofl_cache_line();
		b->size = (len + line - 1) & ~(line - 1);
		b->cpu = aligned_alloc(line, b->size);
		if (!b->cpu) {
			free(b);
			return ofl_err(ctx, -ENOMEM, "offload_buf_alloc: out of memory for %zu bytes", len);
		}
		memset(b->cpu, 0, b->size);
		b->mode = OFFLOAD_CACHE_COHERENT;
	}
	ofl_ctx_handle_add(ctx, &b->hdl, "dma buffer", buf_destroy);
	*out = b;
	return 0;
}

static bool buf_ok(const offload_buf *b)
{
	return b && b->magic == OFL_BUF_MAGIC;
}

int offload_buf_free(offload_buf *b)
{
	if (!buf_ok(b))
		return ofl_err(NULL, -EINVAL, "offload_buf_free: %s", b ? "not a buffer" : "buffer is NULL");
	ofl_ctx_handle_del(b->ctx, &b->hdl);
	if (b->dma)
		ofl_dma_free(b->dma);
	else
		free(b->cpu);
	b->magic = 0;
	free(b);
	return 0;
}

void *offload_buf_ptr(const offload_buf *b)
{
	return buf_ok(b) ? b->cpu : NULL;
}

size_t offload_buf_size(const offload_buf *b)
{
	return buf_ok(b) ? b->size : 0;
}

uint64_t offload_buf_bus_addr(const offload_buf *b)
{
	return buf_ok(b) && b->dma ? b->dma->bus : 0;
}

enum offload_cache_mode offload_buf_cache_mode(const offload_buf *b)
{
	return buf_ok(b) ? b->mode : OFFLOAD_CACHE_COHERENT;
}

static int check_range(const offload_buf *b, size_t off, size_t len, enum offload_dma_dir dir,
		       const char *func)
{
	if (!buf_ok(b))
		return ofl_err(NULL, -EINVAL, "%s: %s", func, b ? "not a buffer" : "buffer is NULL");
	if (off > b->size || len > b->size - off)
		return ofl_err(b->ctx, -EINVAL, "%s: range [%zu,+%zu) is outside the %zu-byte buffer", func,
			       off, len, b->size);
	if (dir != OFFLOAD_DMA_TO_DEVICE && dir != OFFLOAD_DMA_FROM_DEVICE &&
	    dir != OFFLOAD_DMA_BIDIRECTIONAL)
		return ofl_err(b->ctx, -EINVAL, "%s: direction %d is not TO_DEVICE, FROM_DEVICE or "
			       "BIDIRECTIONAL", func, (int)dir);
	return 0;
}

int offload_buf_sync_for_device(offload_buf *b, size_t off, size_t len, enum offload_dma_dir dir)
{
	int r = check_range(b, off, len, dir, "offload_buf_sync_for_device");

	if (r < 0)
		return r;
	/* every direction cleans: a dirty line evicted during the DMA would overwrite the device's data */
	if (b->dma)
		ofl_dma_sync_for_device(b->dma, off, len);
	return 0;
}

int offload_buf_sync_for_cpu(offload_buf *b, size_t off, size_t len, enum offload_dma_dir dir)
{
	int r = check_range(b, off, len, dir, "offload_buf_sync_for_cpu");

	if (r < 0)
		return r;
	if (b->dma && dir != OFFLOAD_DMA_TO_DEVICE) /* the device only read: the CPU's view is current */
		ofl_dma_sync_for_cpu(b->dma, off, len);
	return 0;
}

/* ------------------------------------------------------------- device statistics */

int offload_dev_stats(const offload_ctx *ctx, int dev, struct offload_dev_stats *out, size_t size)
{
	struct offload_dev_stats s;
	int r = ofl_ctx_check(ctx, "offload_dev_stats");

	if (r < 0)
		return r;
	if (!out || size == 0)
		return ofl_err(ctx, -EINVAL, "offload_dev_stats: %s", !out ? "out is NULL" : "size is 0");
	const struct ofl_device *d = ofl_ctx_device(ctx, dev);
	if (!d)
		return ofl_err(ctx, -ENODEV, "offload_dev_stats: no device %d (the context has %d)", dev,
			       ctx->ndev);
	const struct ofl_dev_counters *c = &d->stats;
	memset(&s, 0, sizeof(s));
	s.cache_clean_calls = atomic_load_explicit(&c->cache_clean_calls, memory_order_relaxed);
	s.cache_inval_calls = atomic_load_explicit(&c->cache_inval_calls, memory_order_relaxed);
	s.cache_bytes = atomic_load_explicit(&c->cache_bytes, memory_order_relaxed);
	s.cache_ns = atomic_load_explicit(&c->cache_ns, memory_order_relaxed);
	s.jobs = atomic_load_explicit(&c->jobs, memory_order_relaxed);
	s.bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
	s.bounced_bytes = atomic_load_explicit(&c->bounced_bytes, memory_order_relaxed);
	s.cpu_bytes = atomic_load_explicit(&c->cpu_bytes, memory_order_relaxed);
	memcpy(out, &s, OFL_MIN(size, sizeof(s)));
	return 0;
}

int offload_dev_stats_reset(offload_ctx *ctx, int dev)
{
	int r = ofl_ctx_check(ctx, "offload_dev_stats_reset");

	if (r < 0)
		return r;
	struct ofl_device *d = ofl_ctx_device(ctx, dev);
	if (!d)
		return ofl_err(ctx, -ENODEV, "offload_dev_stats_reset: no device %d (the context has %d)",
			       dev, ctx->ndev);
	struct ofl_dev_counters *c = &d->stats;
	atomic_uint_fast64_t *all[] = { &c->cache_clean_calls, &c->cache_inval_calls, &c->cache_bytes,
					&c->cache_ns, &c->jobs, &c->bytes, &c->bounced_bytes, &c->cpu_bytes };
	for (size_t i = 0; i < OFL_ARRAY_SIZE(all); i++)
		atomic_store_explicit(all[i], 0, memory_order_relaxed);
	return 0;
}
