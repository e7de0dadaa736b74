/* SPDX-License-Identifier: MIT */
/*
 * Per-thread, per-context error messages, as every layer above records them
 * (src/core reads them back: offload_last_error()).
 *
 * Each thread keeps one message slot tagged with the id of the context the
 * failing call was made on; offload_last_error(ctx) returns it only for that
 * context, so threads sharing a context never see each other's errors and a
 * stale message of another context is never shown.
 */
#include <stdarg.h>
#include <stdio.h>

#include "driver/driver.h"

_Thread_local struct ofl_tl_err ofl_tl_err;

int ofl_err(const struct offload_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	ofl_tl_err.ctx_id = ctx ? ofl_drv_c(ctx)->id : 0;
	va_start(ap, fmt);
	vsnprintf(ofl_tl_err.msg, sizeof(ofl_tl_err.msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *ofl_err_msg(const struct offload_ctx *ctx)
{
	if (ctx && ofl_tl_err.ctx_id != ofl_drv_c(ctx)->id)
		return "";
	return ofl_tl_err.msg;
}
