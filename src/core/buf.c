/* SPDX-License-Identifier: MIT */
/*
 * DMA buffers (include/offload/buf.h). A buffer of a device that a direct
 * backend serves comes from that device's DMA pool (src/platform), so the
 * backend can use pointers inside it zero-copy; any other device (the CPU,
 * kernel-interface backends) gets plain cache-line-aligned memory, which is
 * all those need. A dma-buf buffer (OFFLOAD_BUF_DMABUF, or an imported fd)
 * is CPU memory backed by a Linux dma-buf (src/platform/dmabuf.c), with the
 * CPU-access window of include/offload/buf.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "platform/platform.h"

#define OFL_BUF_MAGIC 0x6f666c62u /* "oflb" */

struct offload_buf {
	uint32_t magic;
	struct ofl_handle hdl;
	struct offload_ctx *ctx;
	struct ofl_device *dev;
	struct ofl_dma *dma; /* NULL: plain memory */
	struct ofl_dmabuf *dmabuf; /* a dma-buf buffer; NULL otherwise */
	struct ofl_dmabuf_range range; /* its CPU memory, registered with the context (ofl_ctx_in_dmabuf) */
	bool cpu_open;       /* dma-buf: SYNC_START issued, SYNC_END not yet */
	void *cpu;
	size_t size;
	enum offload_cache_mode mode;
};

#define OFL_BUF_FLAGS (OFFLOAD_BUF_UNCACHED | OFFLOAD_BUF_DMABUF | OFFLOAD_BUF_DMABUF_UDMABUF | \
		       OFFLOAD_BUF_DMABUF_HEAP)

static void buf_destroy(struct ofl_handle *h)
{
	offload_buf_free(ofl_container_of(h, struct offload_buf, hdl));
}

/*
 * Device `dev` of ctx for a buffer (OFFLOAD_DEV_AUTO: the CPU), usable; with
 * a dma-buf not one a direct backend drives (it has a DMA pool): its engine
 * would need the dma-buf's scattered pages mapped by an IOMMU.
 */
static int buf_device(offload_ctx *ctx, int dev, bool dmabuf, const char *func,
		      struct ofl_device **out)
{
	struct ofl_device *d = ofl_ctx_device(ctx, dev == OFFLOAD_DEV_AUTO ? ctx->cpu_dev : dev);
	if (!d)
		return ofl_err(ctx, -ENODEV, "%s: no device %d (the context has %d)", func, dev,
			       ctx->drv.ndev);
	if (!d->backend)
		return ofl_err(ctx, -ENODEV, "%s: device %s is not usable: %s", func, d->name,
			       d->usable_reason);
	if (dmabuf && d->dma)
		return ofl_err(ctx, -ENOTSUP, "%s: device %s (%s backend%s) is an engine the library "
			       "drives itself: it needs memory at one bus address, and a dma-buf's "
			       "pages are scattered and reachable only through an IOMMU mapping, "
			       "which this library does not set up; give it a buffer without the "
			       "dma-buf flag (u-dma-buf, a CMA dma-heap or reserved-memory), or use "
			       "the dma-buf with the CPU or spidev",
			       func, d->name, d->backend->name, d->sim ? ", simulated" : "");
	/*
	 * AF_ALG takes the pages of user buffers by reference (crypto/af_alg.c
	 * extracts and pins them, for hash input and for every output), and a
	 * dma-buf's CPU mapping on Linux 6.12 is a page-frame mapping without
	 * pages to pin: the kernel answers EFAULT, seen in the qemu guest
	 * (tests/qemu/guest_dmabuf.c) for udmabuf and the system heap alike.
	 */
	if (dmabuf && (d->backend->flags & OFL_BE_NO_DMABUF))
		return ofl_err(ctx, -ENOTSUP, "%s: device %s (AF_ALG) cannot use a dma-buf: the kernel "
			       "pins the pages of the buffers it is given, and a dma-buf mapping has "
			       "none to pin (EFAULT), so it would never be zero-copy there (data in a "
			       "dma-buf of this context is bounced through plain memory for AF_ALG); use "
			       "the dma-buf with the CPU", func, d->name);
	*out = d;
	return 0;
}

/* Register a new buffer with its context and hand it out. */
static void buf_publish(offload_ctx *ctx, struct offload_buf *b, offload_buf **out)
{
	ofl_ctx_handle_add(ctx, &b->hdl, "dma buffer", buf_destroy);
	if (b->dmabuf) {
		b->range.cpu = b->cpu;
		b->range.len = b->size;
		b->range.fd = b->dmabuf->fd;
		ofl_ctx_dmabuf_add(ctx, &b->range);
	}
	*out = b;
}

/* Open the CPU-access window of a new dma-buf buffer, or undo it (b freed). */
static int dmabuf_start(offload_ctx *ctx, struct offload_buf *b, const char *func)
{
	char why[OFL_ERRMSG_LEN - 120];
	int r = ofl_dmabuf_sync(b->dmabuf, true, why, sizeof(why));

	if (r < 0) {
		ofl_dmabuf_release(b->dmabuf);
		free(b->dmabuf);
		free(b);
		/* offload_buf_alloc() reports exactly the errnos buf.h lists: the exporter failed */
		if (strcmp(func, "offload_buf_alloc") == 0 && r != -ENOMEM)
			r = -EIO;
		return ofl_err(ctx, r, "%s: %s", func, why);
	}
	b->cpu_open = true;
	b->cpu = b->dmabuf->cpu;
	b->size = b->dmabuf->len;
	b->mode = OFFLOAD_CACHE_STREAMING;
	return 0;
}

static int dmabuf_alloc(offload_ctx *ctx, struct offload_buf *b, size_t len, uint32_t flags)
{
	char why[OFL_ERRMSG_LEN - 120];
	unsigned which = (flags & OFFLOAD_BUF_DMABUF_UDMABUF) ? OFL_DMABUF_UDMABUF
			 : (flags & OFFLOAD_BUF_DMABUF_HEAP)  ? OFL_DMABUF_SYSTEM_HEAP
							      : OFL_DMABUF_UDMABUF | OFL_DMABUF_SYSTEM_HEAP;

	b->dmabuf = calloc(1, sizeof(*b->dmabuf));
	if (!b->dmabuf) {
		free(b);
		return ofl_err(ctx, -ENOMEM, "offload_buf_alloc: out of memory");
	}
	int r = ofl_dmabuf_alloc(len, which, b->dmabuf, why, sizeof(why));
	if (r < 0) {
		free(b->dmabuf);
		free(b);
		return ofl_err(ctx, r, "offload_buf_alloc: no dma-buf of %zu bytes: %s", len, why);
	}
	return dmabuf_start(ctx, b, "offload_buf_alloc");
}

OFFLOAD_API int offload_buf_alloc(offload_ctx *ctx, int dev, size_t len, uint32_t flags, offload_buf **out)
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
	if (flags & ~OFL_BUF_FLAGS)
		return ofl_err(ctx, -EINVAL, "offload_buf_alloc: unknown flags 0x%x", flags & ~OFL_BUF_FLAGS);
	bool dmabuf = flags & (OFFLOAD_BUF_DMABUF | OFFLOAD_BUF_DMABUF_UDMABUF | OFFLOAD_BUF_DMABUF_HEAP);
	if (dmabuf && (flags & OFFLOAD_BUF_UNCACHED))
		return ofl_err(ctx, -EINVAL, "offload_buf_alloc: OFFLOAD_BUF_UNCACHED does not apply to a "
			       "dma-buf (its exporter decides the mapping)");
	if ((flags & OFFLOAD_BUF_DMABUF_UDMABUF) && (flags & OFFLOAD_BUF_DMABUF_HEAP))
		return ofl_err(ctx, -EINVAL, "offload_buf_alloc: OFFLOAD_BUF_DMABUF_UDMABUF and "
			       "OFFLOAD_BUF_DMABUF_HEAP each allow one exporter only; give "
			       "OFFLOAD_BUF_DMABUF for either");
	struct ofl_device *d;
	r = buf_device(ctx, dev, dmabuf, "offload_buf_alloc", &d);
	if (r < 0)
		return r;
	struct offload_buf *b = calloc(1, sizeof(*b));
	if (!b)
		return ofl_err(ctx, -ENOMEM, "offload_buf_alloc: out of memory");
	b->magic = OFL_BUF_MAGIC;
	b->ctx = ctx;
	b->dev = d;
	if (dmabuf) {
		r = dmabuf_alloc(ctx, b, len, flags);
		if (r < 0)
			return r;
	} else if (d->dma) {
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
	buf_publish(ctx, b, out);
	return 0;
}

OFFLOAD_API int offload_buf_import_dmabuf(offload_ctx *ctx, int dev, int fd, offload_buf **out)
{
	char why[OFL_ERRMSG_LEN - 120];
	int r = ofl_ctx_check(ctx, "offload_buf_import_dmabuf");

	if (r < 0)
		return r;
	if (!out)
		return ofl_err(ctx, -EINVAL, "offload_buf_import_dmabuf: out is NULL");
	*out = NULL;
	struct ofl_device *d;
	r = buf_device(ctx, dev, true, "offload_buf_import_dmabuf", &d);
	if (r < 0)
		return r;
	struct offload_buf *b = calloc(1, sizeof(*b));
	if (b)
		b->dmabuf = calloc(1, sizeof(*b->dmabuf));
	if (!b || !b->dmabuf) {
		free(b);
		return ofl_err(ctx, -ENOMEM, "offload_buf_import_dmabuf: out of memory");
	}
	b->magic = OFL_BUF_MAGIC;
	b->ctx = ctx;
	b->dev = d;
	r = ofl_dmabuf_import(fd, b->dmabuf, why, sizeof(why));
	if (r < 0) {
		free(b->dmabuf);
		free(b);
		return ofl_err(ctx, r, "offload_buf_import_dmabuf: %s", why);
	}
	r = dmabuf_start(ctx, b, "offload_buf_import_dmabuf");
	if (r < 0)
		return r;
	buf_publish(ctx, b, out);
	return 0;
}

static bool buf_ok(const offload_buf *b)
{
	return b && b->magic == OFL_BUF_MAGIC;
}

OFFLOAD_API int offload_buf_free(offload_buf *b)
{
	if (!buf_ok(b))
		return ofl_err(NULL, -EINVAL, "offload_buf_free: %s", b ? "not a buffer" : "buffer is NULL");
	if (ofl_ctx_inherited(b->ctx))
		return ofl_inherited_err(b->ctx, "offload_buf_free");
	int r = 0;
	ofl_ctx_handle_del(b->ctx, &b->hdl);
	if (b->dmabuf) {
		ofl_ctx_dmabuf_del(b->ctx, &b->range);
		char why[OFL_ERRMSG_LEN - 40];
		if (b->cpu_open && (r = ofl_dmabuf_sync(b->dmabuf, false, why, sizeof(why))) < 0)
			ofl_err(b->ctx, r, "offload_buf_free: %s (the buffer is freed all the same)", why);
		ofl_dmabuf_release(b->dmabuf);
		free(b->dmabuf);
	} else if (b->dma) {
		ofl_dma_free(b->dma);
	} else {
		free(b->cpu);
	}
	b->magic = 0;
	free(b);
	return r;
}

OFFLOAD_API int offload_buf_dmabuf_fd(const offload_buf *b)
{
	if (!buf_ok(b))
		return ofl_err(NULL, -EINVAL, "offload_buf_dmabuf_fd: %s", b ? "not a buffer" : "buffer is NULL");
	if (ofl_ctx_inherited(b->ctx))
		return ofl_inherited_err(b->ctx, "offload_buf_dmabuf_fd");
	if (!b->dmabuf)
		return ofl_err(b->ctx, -ENOTSUP, "offload_buf_dmabuf_fd: the buffer is not a dma-buf "
			       "(allocate it with OFFLOAD_BUF_DMABUF or import one)");
	return b->dmabuf->fd;
}

OFFLOAD_API const char *offload_buf_dmabuf_exporter(const offload_buf *b)
{
	return buf_ok(b) && b->dmabuf ? b->dmabuf->exporter : NULL;
}

OFFLOAD_API void *offload_buf_ptr(const offload_buf *b)
{
	return buf_ok(b) ? b->cpu : NULL;
}

OFFLOAD_API size_t offload_buf_size(const offload_buf *b)
{
	return buf_ok(b) ? b->size : 0;
}

OFFLOAD_API uint64_t offload_buf_bus_addr(const offload_buf *b)
{
	return buf_ok(b) && b->dma ? b->dma->bus : 0;
}

OFFLOAD_API enum offload_cache_mode offload_buf_cache_mode(const offload_buf *b)
{
	if (buf_ok(b))
		return b->mode;
	/* The safe answer for a caller's bug: with STREAMING the caller keeps
	 * maintaining the caches, which is never wrong, only slower. */
	ofl_err(NULL, -EINVAL, "offload_buf_cache_mode: %s; answering streaming (maintain the caches)",
		b ? "not a buffer" : "buffer is NULL");
	return OFFLOAD_CACHE_STREAMING;
}

static int check_range(const offload_buf *b, size_t off, size_t len, enum offload_dma_dir dir,
		       const char *func)
{
	if (!buf_ok(b))
		return ofl_err(NULL, -EINVAL, "%s: %s", func, b ? "not a buffer" : "buffer is NULL");
	if (ofl_ctx_inherited(b->ctx))
		return ofl_inherited_err(b->ctx, func);
	if (off > b->size || len > b->size - off)
		return ofl_err(b->ctx, -EINVAL, "%s: range [%zu,+%zu) is outside the %zu-byte buffer", func,
			       off, len, b->size);
	if (dir != OFFLOAD_DMA_TO_DEVICE && dir != OFFLOAD_DMA_FROM_DEVICE &&
	    dir != OFFLOAD_DMA_BIDIRECTIONAL)
		return ofl_err(b->ctx, -EINVAL, "%s: direction %d is not TO_DEVICE, FROM_DEVICE or "
			       "BIDIRECTIONAL", func, (int)dir);
	return 0;
}

OFFLOAD_API int offload_buf_sync_for_device(offload_buf *b, size_t off, size_t len, enum offload_dma_dir dir)
{
	int r = check_range(b, off, len, dir, "offload_buf_sync_for_device");

	if (r < 0)
		return r;
	if (b->dmabuf) {
		if (!b->cpu_open)
			return 0;
		char why[OFL_ERRMSG_LEN - 40];
		b->cpu_open = false;
		r = ofl_dmabuf_sync(b->dmabuf, false, why, sizeof(why));
		return r < 0 ? ofl_err(b->ctx, r, "offload_buf_sync_for_device: %s", why) : 0;
	}
	/* every direction cleans: a dirty line evicted during the DMA would overwrite the device's data */
	if (b->dma)
		ofl_dma_sync_for_device(b->dma, off, len);
	return 0;
}

OFFLOAD_API int offload_buf_sync_for_cpu(offload_buf *b, size_t off, size_t len, enum offload_dma_dir dir)
{
	int r = check_range(b, off, len, dir, "offload_buf_sync_for_cpu");

	if (r < 0)
		return r;
	if (b->dmabuf) {
		char why[OFL_ERRMSG_LEN - 40];
		if (b->cpu_open) { /* each START gets its END */
			b->cpu_open = false;
			r = ofl_dmabuf_sync(b->dmabuf, false, why, sizeof(why));
			if (r < 0)
				return ofl_err(b->ctx, r, "offload_buf_sync_for_cpu: %s", why);
		}
		r = ofl_dmabuf_sync(b->dmabuf, true, why, sizeof(why));
		if (r < 0)
			return ofl_err(b->ctx, r, "offload_buf_sync_for_cpu: %s", why);
		b->cpu_open = true;
		return 0;
	}
	if (b->dma && dir != OFFLOAD_DMA_TO_DEVICE) /* the device only read: the CPU's view is current */
		ofl_dma_sync_for_cpu(b->dma, off, len);
	return 0;
}

/* ------------------------------------------------------------- device statistics */

OFFLOAD_API int offload_dev_get_stats(const offload_ctx *ctx, int dev, struct offload_dev_stats *out,
				      size_t size)
{
	struct offload_dev_stats s;
	int r = ofl_ctx_check(ctx, "offload_dev_get_stats");

	if (r < 0)
		return r;
	if (!out || size == 0)
		return ofl_err(ctx, -EINVAL, "offload_dev_get_stats: %s", !out ? "out is NULL" : "size is 0");
	if (size > OFL_STRUCT_SIZE_MAX)
		return ofl_err_struct_size(ctx, "offload_dev_get_stats", "size", "offload_dev_stats", "out", size);
	const struct ofl_device *d = ofl_ctx_device(ctx, dev);
	if (!d)
		return ofl_err(ctx, -ENODEV, "offload_dev_get_stats: no device %d (the context has %d)", dev,
			       ctx->drv.ndev);
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
	ofl_struct_out(out, size, &s, sizeof(s));
	return 0;
}

OFFLOAD_API int offload_dev_stats_reset(offload_ctx *ctx, int dev)
{
	int r = ofl_ctx_check(ctx, "offload_dev_stats_reset");

	if (r < 0)
		return r;
	struct ofl_device *d = ofl_ctx_device(ctx, dev);
	if (!d)
		return ofl_err(ctx, -ENODEV, "offload_dev_stats_reset: no device %d (the context has %d)",
			       dev, ctx->drv.ndev);
	struct ofl_dev_counters *c = &d->stats;
	atomic_uint_fast64_t *all[] = { &c->cache_clean_calls, &c->cache_inval_calls, &c->cache_bytes,
					&c->cache_ns, &c->jobs, &c->bytes, &c->bounced_bytes, &c->cpu_bytes };
	for (size_t i = 0; i < OFL_ARRAY_SIZE(all); i++)
		atomic_store_explicit(all[i], 0, memory_order_relaxed);
	return 0;
}
