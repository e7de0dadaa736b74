/* SPDX-License-Identifier: MIT */
/*
 * DMA memory of a simulated device (dmamem_int.h): simulated memory of the
 * simulation provider's world (sim_provider.h), coherent, non-coherent
 * (a CPU view and a RAM view joined by clean / invalidate) or uncached as
 * the mode asks. One region per allocation; the platform chooses this
 * provider whenever it simulates.
 */
#include <errno.h>
#include <stdio.h>

#include "platform/dmamem_int.h"
#include "util/util.h"

/* The device must reach the simulated DRAM window, where every allocation comes from. */
static int sim_reach(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	char w[OFL_REASON_LEN / 2];
	uint64_t base, size, bus;

	pool->prov->dram(pool->sim, &base, &size);
	size = OFL_MIN(size, OFL_MAX(pool->o.min_reach, (uint64_t)1 << 20));
	if (ofl_dma_xlate_range(pool, base, size, &bus, w, sizeof(w)) < 0) {
		snprintf(why, wl, "the simulated DRAM window (where sim DMA memory comes from): %s", w);
		return -ENODEV;
	}
	return 0;
}

static int sim_region(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
		      struct ofl_dma_region **out, char *why, size_t wl)
{
	enum ofl_sim_mem_mode sm = mode == OFFLOAD_CACHE_STREAMING  ? OFL_SIM_MEM_NONCOHERENT
				   : mode == OFFLOAD_CACHE_UNCACHED ? OFL_SIM_MEM_UNCACHED
								    : OFL_SIM_MEM_COHERENT;
	void *cpu;
	uint64_t phys;
	struct ofl_sim_mem *m = pool->prov->mem_alloc(pool->sim, len, sm, &cpu, &phys);

	if (!m) {
		snprintf(why, wl, "sim: no simulated memory for %zu bytes", len);
		return -ENOMEM;
	}
	struct ofl_dma_region *r = ofl_dma_region_of_map(OFL_DMA_SIM, mode, NULL, 0, cpu,
							 (len + pool->line - 1) & ~(pool->line - 1), -1, phys,
							 "sim", true);
	if (!r) {
		pool->prov->mem_free(m);
		return -ENOMEM;
	}
	r->sim = m;
	r->prov = pool->prov;
	if (pool->prov->mem_device(m))
		r->access = OFL_DMA_ACCESS_SIM; /* device-type: its CPU view is a guard */
	*out = r;
	return 0;
}

static void sim_close(struct ofl_dma_region *r)
{
	r->prov->mem_free(r->sim);
}

static void sim_sync(struct ofl_dma_region *r, size_t off, size_t len, bool for_cpu)
{
	/*
	 * This CPU's own maintenance of the same lines first, so that cache_ns
	 * on a model includes what the instructions cost here (sim); then the
	 * model's emulation of them.
	 */
	if (ofl_cache_ops_available())
		ofl_dma_cpu_sync(r, off, len, for_cpu);
	if (for_cpu)
		r->prov->mem_inval(r->sim, off, len);
	else
		r->prov->mem_clean(r->sim, off, len);
}

const struct ofl_dma_provider_ops ofl_dma_sim_ops = {
	.kind = OFL_DMA_SIM,
	.reach = sim_reach,
	.region = sim_region,
	.close = sim_close,
	.sync = sim_sync,
	.maintains = true,
};
