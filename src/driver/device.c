/* SPDX-License-Identifier: MIT */
/*
 * The services the driver layer gives backends (src/driver/driver.h):
 * device lookups, register claims, probe-time findings, the dma-buf ranges
 * of a context, and a device's registers and DMA memory over src/platform.
 */
#include <libfdt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"

void ofl_drv_ctx_init(struct ofl_drv_ctx *c, uint64_t id)
{
	c->id = id;
	pthread_mutex_init(&c->dmabuf_lock, NULL);
}

void ofl_drv_ctx_fini(struct ofl_drv_ctx *c)
{
	pthread_mutex_destroy(&c->dmabuf_lock);
}

/* ------------------------------------------------------------- devices */

struct ofl_device *ofl_ctx_device(const struct offload_ctx *ctx, int index)
{
	const struct ofl_drv_ctx *c = ofl_drv_c(ctx);

	if (index < 0 || index >= c->ndev)
		return NULL;
	return c->devs[index];
}

struct ofl_device *ofl_ctx_device_by_node(const struct offload_ctx *ctx, int node)
{
	const struct ofl_drv_ctx *c = ofl_drv_c(ctx);

	for (int i = 0; i < c->ndev; i++)
		if (c->devs[i]->node == node)
			return c->devs[i];
	return NULL;
}

void ofl_dev_refine(struct ofl_device *d, enum ofl_decision what, const char *mode, const char *fmt, ...)
{
	struct ofl_policy *p = &d->policy;
	char text[OFL_REASON_LEN];
	char *reason = what == OFL_DECIDE_CACHE ? p->cache_reason
		       : what == OFL_DECIDE_BURST ? p->burst_reason : p->transfer_reason;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	p->refined |= (uint32_t)what;
	if (mode && what == OFL_DECIDE_TRANSFER) {
		ofl_strlcpy(p->transfer_mode, mode, sizeof(p->transfer_mode));
		ofl_strlcpy(reason, text, OFL_REASON_LEN);
		return;
	}
	ofl_reason_append(reason, OFL_REASON_LEN, "%s", text);
}

void ofl_dev_refine_threshold(struct ofl_device *d, uint64_t bytes, const char *fmt, ...)
{
	struct ofl_policy *p = &d->policy;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->threshold_reason, sizeof(p->threshold_reason), fmt, ap);
	va_end(ap);
	p->threshold_bytes = bytes;
	p->refined |= (uint32_t)OFL_DECIDE_THRESHOLD;
}

/* ------------------------------------------------------------- register claims */

int ofl_ctx_claim_regs(struct offload_ctx *ctx, const struct ofl_device *dev, int node,
		       const char *name, uint64_t phys, uint64_t size, char *why, size_t why_len)
{
	struct ofl_drv_ctx *cx = ofl_drv(ctx);
	uint64_t last = phys + size - 1; /* ofl_dt_reg() refuses ranges that wrap */

	for (int i = 0; size && i < cx->nclaims; i++) {
		const struct ofl_reg_claim *c = &cx->claims[i];
		if (c->dev == dev->index || phys > c->phys + c->size - 1 || c->phys > last)
			continue;
		const struct ofl_device *o = cx->devs[c->dev];
		char other[160];
		if (c->node == o->node)
			ofl_strlcpy(other, o->dt_path, sizeof(other));
		else
			ofl_dt_path(cx->dt.fdt, c->node, other, sizeof(other));
		snprintf(why, why_len,
			 "0x%llx-0x%llx is already claimed by %.150s (\"%s\" [0x%llx, +0x%llx), "
			 "for device %d %s): Linux refuses a second claim of the same registers "
			 "(devm_ioremap_resource -> __request_region, kernel/resource.c: -EBUSY)",
			 (unsigned long long)OFL_MAX(phys, c->phys),
			 (unsigned long long)OFL_MIN(last, c->phys + c->size - 1), other, c->name,
			 (unsigned long long)c->phys, (unsigned long long)c->size, o->index, o->name);
		return -EBUSY;
	}
	if (cx->nclaims == cx->claims_cap) {
		int cap = cx->claims_cap ? 2 * cx->claims_cap : 16;
		struct ofl_reg_claim *n = realloc(cx->claims, (size_t)cap * sizeof(*n));
		if (!n) {
			snprintf(why, why_len, "out of memory for the table of claimed registers");
			return -ENOMEM;
		}
		cx->claims = n;
		cx->claims_cap = cap;
	}
	struct ofl_reg_claim *c = &cx->claims[cx->nclaims++];
	c->phys = phys;
	c->size = size;
	c->dev = dev->index;
	c->node = node;
	ofl_strlcpy(c->name, name, sizeof(c->name));
	return 0;
}

void ofl_ctx_release_regs(struct offload_ctx *ctx, const struct ofl_device *dev)
{
	struct ofl_drv_ctx *cx = ofl_drv(ctx);
	int k = 0;

	for (int i = 0; i < cx->nclaims; i++)
		if (cx->claims[i].dev != dev->index)
			cx->claims[k++] = cx->claims[i];
	cx->nclaims = k;
}

/* ------------------------------------------------------------- dma-buf ranges */

void ofl_ctx_dmabuf_add(struct offload_ctx *ctx, struct ofl_dmabuf_range *r)
{
	struct ofl_drv_ctx *c = ofl_drv(ctx);

	pthread_mutex_lock(&c->dmabuf_lock);
	r->prev = NULL;
	r->next = c->dmabufs;
	if (c->dmabufs)
		c->dmabufs->prev = r;
	c->dmabufs = r;
	atomic_fetch_add_explicit(&c->ndmabufs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&c->dmabuf_lock);
}

void ofl_ctx_dmabuf_del(struct offload_ctx *ctx, struct ofl_dmabuf_range *r)
{
	struct ofl_drv_ctx *c = ofl_drv(ctx);

	pthread_mutex_lock(&c->dmabuf_lock);
	if (r->prev)
		r->prev->next = r->next;
	else if (c->dmabufs == r)
		c->dmabufs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->prev = r->next = NULL;
	atomic_fetch_sub_explicit(&c->ndmabufs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&c->dmabuf_lock);
}

bool ofl_ctx_in_dmabuf(struct offload_ctx *ctx, const void *p, size_t len)
{
	struct ofl_drv_ctx *c = ofl_drv(ctx);

	if (!p || !len || !atomic_load_explicit(&c->ndmabufs, memory_order_relaxed))
		return false;
	uintptr_t a = (uintptr_t)p, e = len > UINTPTR_MAX - a ? UINTPTR_MAX : a + len;
	bool hit = false;
	pthread_mutex_lock(&c->dmabuf_lock);
	for (const struct ofl_dmabuf_range *r = c->dmabufs; r && !hit; r = r->next) {
		uintptr_t s = (uintptr_t)r->cpu;
		hit = a < s + r->len && s < e;
	}
	pthread_mutex_unlock(&c->dmabuf_lock);
	return hit;
}

int ofl_ctx_dmabuf_find(struct offload_ctx *ctx, const void *p, size_t len, int *fd, uint64_t *off)
{
	struct ofl_drv_ctx *c = ofl_drv(ctx);

	if (!p || !len || !atomic_load_explicit(&c->ndmabufs, memory_order_relaxed))
		return 0;
	uintptr_t a = (uintptr_t)p, e = len > UINTPTR_MAX - a ? UINTPTR_MAX : a + len;
	int hit = 0;
	pthread_mutex_lock(&c->dmabuf_lock);
	for (const struct ofl_dmabuf_range *r = c->dmabufs; r && !hit; r = r->next) {
		uintptr_t s = (uintptr_t)r->cpu;
		if (!(a < s + r->len && s < e))
			continue;
		hit = a >= s && e <= s + r->len ? 1 : -1;
		*fd = r->fd;
		*off = (uint64_t)(a - s);
	}
	pthread_mutex_unlock(&c->dmabuf_lock);
	return hit;
}

/* ------------------------------------------------------------- registers and DMA memory */

int ofl_mmio_map_reg(struct ofl_device *dev, int node, const char *name, int index,
		     struct ofl_mmio *out, char *why, size_t wl)
{
	struct ofl_drv_ctx *cx = ofl_drv(dev->ctx);
	const void *fdt = cx->dt.fdt;
	char err[OFL_REASON_LEN];
	uint64_t phys, size;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (name) {
		index = fdt_stringlist_search(fdt, node, "reg-names", name);
		if (index < 0) {
			snprintf(why, wl, "the device tree names no \"%s\" register region", name);
			return -ENOENT;
		}
	}
	err[0] = '\0';
	int r = ofl_dt_reg(fdt, node, index, &phys, &size, err, sizeof(err));
	if (r < 0) {
		snprintf(why, wl, "reg %d (%s): %s", index, name ? name : "by index",
			 err[0] ? err : ofl_strerror(r));
		return r;
	}
	/* Every direct backend maps through here: one device per register range, as in Linux. */
	char rname[24];
	if (name)
		ofl_strlcpy(rname, name, sizeof(rname));
	else
		snprintf(rname, sizeof(rname), "reg[%d]", index);
	r = ofl_ctx_claim_regs(dev->ctx, dev, node, rname, phys, size, why, wl);
	if (r < 0)
		return r;
	return ofl_mmio_map(&cx->plat, node, index, phys, size, out, why, wl);
}

int ofl_dma_pool_create(struct ofl_device *dev, const struct ofl_dma_pool_opts *o,
			struct ofl_dma_pool **out)
{
	char why[OFL_ERRMSG_LEN];
	struct ofl_dma_pool_opts po = *o;

	po.name = dev->name;
	po.stats = &dev->stats;
	int r = ofl_dma_pool_new(&ofl_drv(dev->ctx)->plat, &po, out, why, sizeof(why));
	if (r < 0)
		ofl_err(dev->ctx, r, "%s", why);
	return r;
}

int ofl_dma_xlate_dt(void *arg, uint64_t phys, uint64_t *bus, char *why, size_t wl)
{
	const struct ofl_device *d = arg;

	return ofl_dt_dma_translate(ofl_dev_fdt(d), d->node, phys, bus, why, wl);
}
