/* SPDX-License-Identifier: MIT */
/*
 * Error codes, and reading back the per-thread, per-context messages that
 * every layer records with ofl_err() (src/driver/error.c).
 */
#include <string.h>

#include "core/internal.h"

OFFLOAD_API const char *offload_last_error(const offload_ctx *ctx)
{
	return ofl_err_msg(ctx);
}

OFFLOAD_API const char *offload_strerror(int err)
{
	return ofl_strerror(err);
}

int ofl_backend_err(const struct offload_ctx *ctx, const char *func, const struct ofl_device *d,
		    int r, uint64_t mark)
{
	char msg[OFL_ERRMSG_LEN];
	const char *m = offload_last_error(ctx);
	size_t fl = strlen(func);

	if (!ofl_err_since(ctx, mark) || !m[0])
		return ofl_err(ctx, r, "%s: backend %s failed on %s: %s", func, d->backend->name,
			       d->name, offload_strerror(r));
	if (strncmp(m, func, fl) == 0 && m[fl] == ':')
		return r;
	ofl_strlcpy(msg, m, sizeof(msg));
	return ofl_err(ctx, r, "%s: %s", func, msg);
}
