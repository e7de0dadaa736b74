/* SPDX-License-Identifier: MIT */
/* White-box tests of simulated contexts: the models' world of a context. */
#ifndef OFFLOAD_TEST_SIMUTIL_H
#define OFFLOAD_TEST_SIMUTIL_H

#include <offload/sim.h>

#include "core/internal.h"
#include "sim/sim.h"

/*
 * A region served by the block of whichever model sits at [phys, phys +
 * size) of world `sim` (models a test built without a device tree), through
 * the platform's seam as a backend's would be. 0, -ENODEV, -EINVAL.
 */
static inline int ofl_mmio_map_sim(struct ofl_sim *sim, uint64_t phys, uint64_t size, struct ofl_mmio *out)
{
	const struct ofl_platform p = { .sim = offload_sim_provider(), .world = sim };
	char why[256];

	return ofl_mmio_map(&p, -1, 0, phys, size, out, why, sizeof(why));
}

/* The world the context's models live in (NULL when it does not simulate). */
static inline struct ofl_sim *ofl_sim_of(const offload_ctx *ctx)
{
	return ctx->drv.plat.world;
}

#endif
