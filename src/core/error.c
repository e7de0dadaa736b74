/* SPDX-License-Identifier: MIT */
/*
 * Error codes and per-thread, per-context error messages.
 *
 * Each thread keeps one message slot tagged with the id of the context the
 * failing call was made on; offload_last_error(ctx) returns it only for that
 * context, so threads sharing a context never see each other's errors and a
 * stale message of another context is never shown.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

_Thread_local struct ofl_tl_err ofl_tl_err;
#define tl_err ofl_tl_err

int ofl_err(const struct offload_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	tl_err.ctx_id = ctx ? ctx->id : 0;
	va_start(ap, fmt);
	vsnprintf(tl_err.msg, sizeof(tl_err.msg), fmt, ap);
	va_end(ap);
	return err;
}

OFFLOAD_API const char *offload_last_error(const offload_ctx *ctx)
{
	if (ctx && tl_err.ctx_id != ctx->id)
		return "";
	return tl_err.msg;
}

/*
 * The C library's description of a positive errno as a static string, or
 * NULL. Not strerror(): glibc formats unknown codes into a per-thread buffer
 * that the next call frees, so its result cannot be returned as static.
 */
static const char *libc_errno_text(int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	return strerrordesc_np(err);
#else
	OFL_UNUSED(err);
	return NULL;
#endif
}

OFFLOAD_API const char *offload_strerror(int err)
{
	if (err == INT_MIN)
		return "unknown error"; /* -INT_MIN does not exist */
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case EINVAL:
		return "invalid argument";
	case ENODEV:
		return "no such device, or device disabled";
	case ENOTSUP:
		return "no backend can perform this operation";
	case ETIMEDOUT:
		return "engine did not complete in time";
	case EIO:
		return "engine reported an error";
	case EBADMSG:
		return "authentication tag mismatch";
	case EBADF:
		return "handle is closed";
	case EBUSY:
		return "resource busy or handles still open";
	case ENOSPC:
		return "queue full";
	case ENOMEM:
		return "out of memory";
	case EMSGSIZE:
		return "message too long for the backend";
	default: {
		const char *t = libc_errno_text(err);
		return t ? t : "unknown error";
	}
	}
}

int ofl_backend_err(const struct offload_ctx *ctx, const char *func, const struct ofl_device *d,
		       int r)
{
	char msg[OFL_ERRMSG_LEN];
	const char *m = offload_last_error(ctx);
	size_t fl = strlen(func);

	if (!m[0])
		return ofl_err(ctx, r, "%s: backend %s failed on %s: %s", func, d->backend->name,
			       d->name, offload_strerror(r));
	if (strncmp(m, func, fl) == 0 && m[fl] == ':')
		return r;
	ofl_strlcpy(msg, m, sizeof(msg));
	return ofl_err(ctx, r, "%s: %s", func, msg);
}
