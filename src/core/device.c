/* SPDX-License-Identifier: MIT */
/* Device enumeration. */
#include <string.h>

#include "core/internal.h"

int offload_dev_count(const offload_ctx *ctx)
{
	int r = ofl_ctx_check(ctx, "offload_dev_count");

	return r < 0 ? r : ctx->ndev;
}

int offload_dev_info(const offload_ctx *ctx, int index, struct offload_dev_info *info)
{
	int r = ofl_ctx_check(ctx, "offload_dev_info");

	if (r < 0)
		return r;
	if (!info)
		return ofl_err(ctx, -EINVAL, "offload_dev_info: info is NULL");
	const struct ofl_device *d = ofl_ctx_device(ctx, index);
	if (!d)
		return ofl_err(ctx, -ENODEV, "offload_dev_info: no device %d (the context has %d)",
			       index, ctx->ndev);
	*info = d->info;
	return 0;
}

int offload_dev_find(const offload_ctx *ctx, const char *key)
{
	int r = ofl_ctx_check(ctx, "offload_dev_find");

	if (r < 0)
		return r;
	if (!key)
		return ofl_err(ctx, -EINVAL, "offload_dev_find: key is NULL");
	for (int i = 0; i < ctx->ndev; i++) {
		const struct ofl_device *d = ctx->devs[i];
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

const char *offload_backend_name(unsigned index)
{
	return index < backend_count() ? ofl_backends[index]->name : NULL;
}

uint32_t offload_backend_caps(unsigned index)
{
	return index < backend_count() ? ofl_backends[index]->caps : 0;
}

int offload_backend_status(const offload_ctx *ctx, const char *name, const char **why)
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

const char *offload_ctx_note(const offload_ctx *ctx)
{
	if (!ctx || ctx->magic != OFL_CTX_MAGIC || !ctx->open)
		return NULL;
	return ctx->note;
}
