/* SPDX-License-Identifier: MIT */
/*
 * DMA memory from the device's DT reserved-memory region (memory-region),
 * mapped through /dev/mem with O_SYNC, hence uncached (dmamem_int.h). Only
 * when OFFLOAD_DEVMEM=1 allows /dev/mem. The region is shared by the
 * device's allocations.
 */
#include <errno.h>
#include <stdio.h>

#include "platform/dmamem_int.h"
#include "util/util.h"

static int rmem_select(struct ofl_dma_pool *pool, char *note, size_t nl)
{
	if (pool->o.rmem_size && ofl_devmem_allowed())
		return 0;
	snprintf(note, nl, "reserved-memory: %s", !pool->o.rmem_size ? "the device has no memory-region"
								  : "/dev/mem not enabled (OFFLOAD_DEVMEM=1)");
	return -ENODEV;
}

static int rmem_reach(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	char w[OFL_REASON_LEN / 2];
	uint64_t bus;

	if (ofl_dma_xlate_range(pool, pool->o.rmem_addr, pool->o.rmem_size, &bus, w, sizeof(w)) < 0) {
		snprintf(why, wl, "reserved-memory %s: %s", pool->o.rmem_name, w);
		return -ENODEV;
	}
	return 0;
}

/* The one region; a second is never made (the first holds all of the memory). */
static int rmem_region(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
		       struct ofl_dma_region **out, char *why, size_t wl)
{
	void *cpu, *map;
	size_t map_len;
	int fd;

	OFL_UNUSED(len);
	OFL_UNUSED(mode);
	for (struct ofl_dma_region *g = pool->regions; g; g = g->next)
		if (g->kind == OFL_DMA_RMEM) {
			snprintf(why, wl, "reserved-memory %s: %zu of %zu bytes in use", g->name, g->used,
				 g->size);
			return -ENOMEM;
		}
	int r = ofl_devmem_map(pool->o.rmem_addr, pool->o.rmem_size, true, &cpu, &map, &map_len, &fd,
			       why, wl);
	if (r < 0)
		return r;
	/* /dev/mem O_SYNC: never cached */
	*out = ofl_dma_region_of_map(OFL_DMA_RMEM, OFFLOAD_CACHE_UNCACHED, map, map_len, cpu,
				     (size_t)pool->o.rmem_size, fd, pool->o.rmem_addr, pool->o.rmem_name, false);
	return *out ? 0 : -ENOMEM;
}

const struct ofl_dma_provider_ops ofl_dma_rmem_ops = {
	.kind = OFL_DMA_RMEM,
	.select = rmem_select,
	.reach = rmem_reach,
	.region = rmem_region,
	.maintains = true,
	.any_mode = true,
};
