/* SPDX-License-Identifier: MIT */
/* White-box tests of simulated contexts: the models' world of a context. */
#ifndef OFFLOAD_TEST_SIMUTIL_H
#define OFFLOAD_TEST_SIMUTIL_H

#include "core/internal.h"
#include "sim/sim.h"

/* The world the context's models live in (NULL when it does not simulate). */
static inline struct ofl_sim *ofl_sim_of(const offload_ctx *ctx)
{
	return ctx->drv.plat.world;
}

#endif
