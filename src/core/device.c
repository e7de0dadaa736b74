/* SPDX-License-Identifier: MIT */
/* Device enumeration. */
#include <string.h>

#include "core/internal.h"

OFFLOAD_API int offload_dev_count(const offload_ctx *ctx)
{
	int r = ofl_ctx_check(ctx, "offload_dev_count");

	return r < 0 ? r : ctx->drv.ndev;
}

OFFLOAD_API int offload_dev_get_info(const offload_ctx *ctx, int index, struct offload_dev_info *info,
				     size_t size)
{
	static const char func[] = "offload_dev_get_info";
	int r = ofl_ctx_check(ctx, func);

	if (r < 0)
		return r;
	if (!info || size == 0)
		return ofl_err(ctx, -EINVAL, "%s: %s", func, !info ? "info is NULL" : "size is 0");
	if (size > OFL_STRUCT_SIZE_MAX)
		return ofl_err_struct_size(ctx, func, "size", "offload_dev_info", "info", size);
	const struct ofl_device *d = ofl_ctx_device(ctx, index);
	if (!d)
		return ofl_err(ctx, -ENODEV, "%s: no device %d (the context has %d)", func, index,
			       ctx->drv.ndev);
	ofl_struct_out(info, size, &d->info, sizeof(d->info));
	return 0;
}

OFFLOAD_API int offload_dev_find(const offload_ctx *ctx, const char *key)
{
	int r = ofl_ctx_check(ctx, "offload_dev_find");

	if (r < 0)
		return r;
	if (!key)
		return ofl_err(ctx, -EINVAL, "offload_dev_find: key is NULL");
	for (int i = 0; i < ctx->drv.ndev; i++) {
		const struct ofl_device *d = ctx->drv.devs[i];
		if (strcmp(d->name, key) == 0 || (d->dt_path[0] && strcmp(d->dt_path, key) == 0) ||
		    (d->compatible[0] && strcmp(d->compatible, key) == 0))
			return i;
	}
	return ofl_err(ctx, -ENODEV, "offload_dev_find: no device named, at or compatible with \"%s\"",
		       key);
}

/* The registry's length: ofl_backends[] is NULL-terminated. */
static unsigned backend_count(void)
{
	unsigned n = 0;

	while (ofl_backends[n])
		n++;
	return n;
}

OFFLOAD_API const char *offload_backend_name(unsigned index)
{
	return index < backend_count() ? ofl_backends[index]->name : NULL;
}

OFFLOAD_API uint32_t offload_backend_caps(unsigned index)
{
	if (index >= backend_count())
		return 0;
	/* What this build implements: the CPU backend built without OpenSSL
	 * has no cipher or hash ops, whatever its descriptor claims. */
	const struct ofl_backend *be = ofl_backends[index];
	uint32_t caps = be->caps;
	if (!be->memcpy)
		caps &= ~(uint32_t)OFFLOAD_CAP_MEMCPY;
	if (!be->cipher)
		caps &= ~(uint32_t)OFFLOAD_CAP_CIPHER;
	if (!be->hash)
		caps &= ~(uint32_t)OFFLOAD_CAP_HASH;
	if (!be->spi)
		caps &= ~(uint32_t)OFFLOAD_CAP_SPI;
	return caps;
}

OFFLOAD_API int offload_backend_status(const offload_ctx *ctx, const char *name, const char **why)
{
	int r = ofl_ctx_check(ctx, "offload_backend_status");

	if (why)
		*why = ""; /* never a previous call's text */
	if (r < 0)
		return r;
	if (!name)
		return ofl_err(ctx, -EINVAL, "offload_backend_status: name is NULL");
	for (int i = 0; i < ctx->nbackends; i++) {
		const struct ofl_backend_slot *s = &ctx->backends[i];
		if (strcmp(s->be->name, name) != 0)
			continue;
		if (why)
			*why = s->present ? "" : s->why;
		return s->present ? 1 : 0;
	}
	if (why)
		*why = "not built into this library";
	return ofl_err(ctx, -ENOENT, "offload_backend_status: backend \"%s\" is not built into this "
				     "library", name);
}

OFFLOAD_API const char *offload_ctx_note(const offload_ctx *ctx)
{
	if (!ctx || ctx->magic != OFL_CTX_MAGIC || !ctx->open)
		return NULL;
	return ctx->note;
}

