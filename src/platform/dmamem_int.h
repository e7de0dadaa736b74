/* SPDX-License-Identifier: MIT */
/*
 * DMA memory inside src/platform: the pool and its regions (dmamem.c), and
 * the providers that make regions, one file each:
 *   dmamem_udmabuf.c  u-dma-buf (physically contiguous, physical address and
 *                     kernel-side sync in sysfs), regions shared by allocations
 *   dmamem_rmem.c     the device's DT reserved-memory through /dev/mem
 *                     (uncached), one region shared by allocations
 *   dmamem_heap.c     a CMA dma-heap (physical address from
 *                     /proc/self/pagemap), one region per allocation
 *   dmamem_sim.c      simulated memory of the simulation provider's world,
 *                     one region per allocation
 * dmamem.c picks the provider, asks it for regions, carves shared regions
 * into allocations (a first-fit arena over bus addresses) and dispatches
 * cache maintenance. Not for use outside src/platform.
 */
#ifndef OFL_PLATFORM_DMAMEM_INT_H
#define OFL_PLATFORM_DMAMEM_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "platform/platform.h"
#include "platform/sysfs.h" /* PATH_MAX_OFL */

struct arena_blk {
	size_t off, len;
	struct arena_blk *next;
};

struct ofl_dma_region {
	enum ofl_dma_provider kind;
	enum offload_cache_mode map_cache; /* how the CPU mapping behaves */
	enum ofl_dma_access access;        /* how the CPU may access it (uncached: words) */
	uint8_t *cpu;
	uint64_t phys, bus;
	size_t size;
	int fd;
	void *map;
	size_t map_len;
	struct ofl_sim_mem *sim;                 /* OFL_DMA_SIM */
	const struct offload_sim_provider *prov; /* OFL_DMA_SIM */
	char name[64];
	char sysdir[PATH_MAX_OFL]; /* u-dma-buf sysfs directory (kernel-side sync) */
	bool whole;                /* one allocation is the whole region */
	struct arena_blk *free;    /* free ranges, sorted by offset */
	size_t used;
	struct ofl_dma_region *next;
};

struct ofl_dma_pool {
	struct ofl_dma_pool_opts o;
	char name[80]; /* o.name's copy */
	enum ofl_dma_provider provider;
	const struct ofl_dma_provider_ops *ops;  /* the provider's */
	const struct offload_sim_provider *prov; /* OFL_DMA_SIM: the models' provider and world */
	struct ofl_sim *sim;
	size_t line;
	pthread_mutex_t mu; /* regions */
	pthread_rwlock_t users_lk;
	struct ofl_dma *users;
	atomic_uint_fast64_t gen; /* bumped whenever a user allocation comes or goes */
	struct ofl_dma_region *regions;
	char heap[PATH_MAX_OFL]; /* OFL_DMA_HEAP: the heap's device file */
	char desc[200];
};

/* What a provider does; NULL members: the generic behaviour dmamem.c gives. */
struct ofl_dma_provider_ops {
	enum ofl_dma_provider kind;
	/*
	 * Does the provider serve this pool on this machine? 0 (and whatever the
	 * pool needs later is recorded in it), or -ENODEV with a note of what
	 * is missing ("u-dma-buf: no buffers under ..."). NULL: never picked
	 * by the search on hardware (the simulated memory is chosen by the
	 * platform).
	 */
	int (*select)(struct ofl_dma_pool *pool, char *note, size_t note_len);
	/* Can the device reach the provider's memory at all? 0, or -ENODEV with why. NULL: yes. */
	int (*reach)(struct ofl_dma_pool *pool, char *why, size_t wl);
	/*
	 * A new region for `len` bytes whose CPU mapping behaves as `mode`
	 * (pool->mu held): whole = true for one allocation per region. 0, or
	 * -errno with why.
	 */
	int (*region)(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
		      struct ofl_dma_region **out, char *why, size_t wl);
	/* Release what region() made besides the mapping and fd (NULL: nothing). */
	void (*close)(struct ofl_dma_region *r);
	/* Cache maintenance of [off, off + len) of a region. NULL: this CPU's cache instructions. */
	void (*sync)(struct ofl_dma_region *r, size_t off, size_t len, bool for_cpu);
	/* Streaming memory is kept right without this CPU's cache instructions (kernel sync, uncached). */
	bool maintains;
	/* A region serves allocations of every cache mode (it is uncached whatever was asked). */
	bool any_mode;
};

extern const struct ofl_dma_provider_ops ofl_dma_udmabuf_ops;
extern const struct ofl_dma_provider_ops ofl_dma_rmem_ops;
extern const struct ofl_dma_provider_ops ofl_dma_heap_ops;
extern const struct ofl_dma_provider_ops ofl_dma_sim_ops;

/*
 * A region of `size` bytes at CPU address `cpu` and physical address `phys`,
 * over a mapping and fd of the caller's (NULL / -1: none; memory the
 * provider frees in its close()); whole: one allocation is all of it. NULL
 * when out of memory, the mapping and fd then released.
 */
struct ofl_dma_region *ofl_dma_region_of_map(enum ofl_dma_provider kind, enum offload_cache_mode mode,
					     void *map, size_t map_len, void *cpu, size_t size, int fd,
					     uint64_t phys, const char *name, bool whole);
/*
 * Bus address of [phys, phys + len) when the device reaches all of it as one
 * window: both ends translate, the same distance apart. 0, or -ERANGE with
 * `why` saying what the device tree or the numbers say.
 */
int ofl_dma_xlate_range(const struct ofl_dma_pool *pool, uint64_t phys, uint64_t len, uint64_t *bus,
			char *why, size_t wl);
/* This CPU's cache instructions over [off, off + len) of a region (clean, or clean + invalidate). */
void ofl_dma_cpu_sync(struct ofl_dma_region *r, size_t off, size_t len, bool for_cpu);

#endif /* OFL_PLATFORM_DMAMEM_INT_H */
