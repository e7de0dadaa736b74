/* SPDX-License-Identifier: MIT */
/*
 * src/policy: per-device DMA decisions, each with a one-line reason naming
 * the DT node/property or the match data it was taken from. The generic
 * rules live here; what is particular to an engine is its hook, reached
 * through the engine's descriptor (backends/<engine>/match.c).
 */
#ifndef OFL_POLICY_H
#define OFL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include <offload/core.h>

#include "driver/backend.h"
#include "driver/decision.h"
#include "dt/dt.h"
#include "util/util.h"

/*
 * SoCs known to have an I/O-coherent interconnect, keyed by a compatible of
 * the root node or of the engine node. For `offloadctl doctor`: the policy
 * itself keeps the device tree's (safe) coherency decision.
 */
struct ofl_soc_coherent {
	const char *compatible;
	const char *soc;
	const char *source;
};
extern const struct ofl_soc_coherent ofl_soc_coherent_table[];
/* The row matching the root or node compatible lists, or NULL. */
const struct ofl_soc_coherent *ofl_soc_coherent_lookup(const void *fdt, int node);

/* Default offload thresholds (bytes) and where they come from; given to the engines' hooks. */
extern const struct ofl_threshold_default ofl_threshold_memcpy, ofl_threshold_crypto;

/* How the context's memory system differs from what the device tree says. */
struct ofl_policy_opts {
	/*
	 * The models emulate a non-coherent memory system
	 * (OFFLOAD_CTX_SIM_NONCOHERENT): a device that moves data through DMA
	 * memory the library allocates (OFL_BE_DMA_MEMORY) is streaming even
	 * where the tree says dma-coherent.
	 */
	bool sim_noncoherent;
};

/*
 * The decisions for node `node`, which entry `match` of `engine`'s match
 * table names: the generic rules, the engine's hook, the generic rules the
 * hook asks for. `opts` may be NULL. Returns 0, or -EINVAL for a NULL
 * argument, an engine without a policy hook, or a node that is not one.
 */
int ofl_policy_compute(const void *fdt, int node, const struct ofl_backend *engine,
		       const struct ofl_dt_id *match, const struct ofl_policy_opts *opts,
		       struct ofl_policy *out);

/* The decisions of a device no device tree describes, from what its backend declares. */
void ofl_policy_pseudo(const struct ofl_pseudo_dev *ps, struct ofl_policy *out);

#endif /* OFL_POLICY_H */
