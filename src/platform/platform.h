/* SPDX-License-Identifier: MIT */
/*
 * src/platform: what a direct backend needs from the machine.
 *
 *  - Register regions (struct ofl_mmio): mapped from UIO, VFIO-platform or
 *    /dev/mem (only a region the device tree declares, never an arbitrary
 *    address), or served by a model of the sim world. The accessors are a
 *    plain volatile access on hardware and one predictable branch to the
 *    model when simulated.
 *  - Barriers between normal-memory writes (descriptors) and MMIO (doorbells).
 *  - DMA memory (struct ofl_dma_pool / struct ofl_dma): u-dma-buf, a
 *    dma-heap, a device-tree reserved-memory region through /dev/mem, or
 *    simulated memory; bus addresses through the device's dma-ranges.
 *  - Cache maintenance per architecture, applied as the device's policy says
 *    (coherent: nothing; streaming: clean / clean+invalidate on cache-line
 *    rounded ranges; uncached: nothing), counted per device.
 *
 * The sysfs, /dev and /proc roots can be redirected (ofl_platform_set_roots())
 * so that tests run the UIO / u-dma-buf / dmatest paths against stand-in trees.
 */
#ifndef OFL_PLATFORM_H
#define OFL_PLATFORM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <offload/offload.h>

#include "platform/sim_provider.h"

/*
 * The platform of a context: what this layer needs to reach the machine's
 * (or the models') registers and memory. Set up by src/core at open
 * (ofl_platform_open()).
 */
struct ofl_platform {
	const void *fdt;                        /* the device tree the addresses come from */
	const struct offload_sim_provider *sim; /* the simulation provider, NULL on hardware */
	struct ofl_sim *world;                  /* its world of models, NULL on hardware */
};

/*
 * Set up the platform of a context: on hardware (sim NULL), or with the
 * models of provider `sim` (a world is made: noncoherent asks it to emulate
 * a non-coherent memory system). -ENOMEM with `why`.
 */
int ofl_platform_open(struct ofl_platform *p, const void *fdt, const struct offload_sim_provider *sim,
		      bool noncoherent, char *why, size_t why_len);
/* Free the world (after every device is gone) unless `keep` (a forked child: it is the parent's). */
void ofl_platform_close(struct ofl_platform *p, bool keep);
/*
 * May liboffload use provider `sim`? -ENOTSUP with `why` when it is of
 * another ABI (OFL_SIM_PROVIDER_ABI) or an older, shorter table.
 */
int ofl_platform_sim_check(const struct offload_sim_provider *sim, char *why, size_t why_len);
/*
 * The simulation provider of a program that did not pass one: the
 * offload_sim_provider() the program already has (linked with
 * liboffload-sim), else dlopen("liboffload-sim.so.0"). -ENOTSUP with a
 * sentence naming what to link when there is none.
 */
int ofl_platform_sim_find(const struct offload_sim_provider **out, char *why, size_t why_len);

/*
 * Per-device work counters behind offload_dev_stats(): the cache
 * maintenance this layer does for the device (ofl_dma_sync_range()) and what
 * its backend moved. Relaxed atomics: any thread.
 */
struct ofl_dev_counters {
	atomic_uint_fast64_t cache_clean_calls, cache_inval_calls, cache_bytes, cache_ns;
	atomic_uint_fast64_t jobs, bytes, bounced_bytes, cpu_bytes;
};

/* ------------------------------------------------------------------ roots */

struct ofl_platform_roots {
	char sysfs[256];   /* "/sys" */
	char dev[256];     /* "/dev" */
	char devmem[256];  /* "/dev/mem" */
	char pagemap[256]; /* "/proc/self/pagemap" */
	size_t dev_len;    /* strlen() of the dev root asked for: >= sizeof(dev) means it was cut */
};
/* The roots in effect (process-wide): /sys, /dev, /dev/mem, /proc/self/pagemap, or
 * $OFFLOAD_SYSFS_ROOT and $OFFLOAD_DEV_ROOT (then <dev>/mem) when set. */
const struct ofl_platform_roots *ofl_platform_roots(void);
/* Redirect them (tests); NULL fields keep their value; NULL restores all defaults. */
void ofl_platform_set_roots(const char *sysfs, const char *dev, const char *devmem,
			    const char *pagemap);

/* ------------------------------------------------------------------ MMIO */

enum ofl_mmio_kind { OFL_MMIO_NONE, OFL_MMIO_SIM, OFL_MMIO_UIO, OFL_MMIO_VFIO, OFL_MMIO_DEVMEM };

struct ofl_mmio {
	volatile uint8_t *base;     /* hardware mapping; NULL when simulated */
	struct ofl_sim_block *sim;  /* the model's block; NULL on hardware */
	const struct offload_sim_provider *prov; /* who serves that block */
	uint64_t phys, size;        /* the region as the device tree declares it */
	enum ofl_mmio_kind kind;
	void *map;                  /* mmap() result and length, for unmapping */
	size_t map_len;
	int fd;                     /* UIO / /dev/mem file, closed at unmap (-1 if none) */
	void *vfio;                 /* VFIO session shared by a device's regions */
};

/* Served by a model (through the simulation provider), not hardware? */
#define OFL_MMIO_SIMULATED(m) ((m)->sim != NULL)

/*
 * Bounds: every access must lie inside the region the device tree declares
 * ([0, m->size)). The backends check at probe that every register and ring
 * they will touch does (backends/udma: udma_engine_init()), so an access
 * outside is a library bug or a tree the probe did not understand:
 *  - simulated regions are always checked (the model call costs far more
 *    than one compare): the access becomes a bus error of the models' world
 *    (the provider's bus_error, counted there), a read returns all ones, a
 *    write is dropped, as an unmapped address on a K3 interconnect does;
 *  - hardware regions are checked in builds without NDEBUG (Debug, the
 *    sanitizer builds), or with -DOFFLOAD_MMIO_CHECK: an access outside is
 *    reported on stderr and aborts, as an assert() would, instead of
 *    touching whatever lies past the mapping. Release builds keep the plain
 *    volatile access: the probe-time validation is what guards them.
 */
#if !defined(NDEBUG) || defined(OFFLOAD_MMIO_CHECK)
#define OFL_MMIO_CHECK_HW 1
#else
#define OFL_MMIO_CHECK_HW 0
#endif

/* Out of line: an access of `width` bytes at `off` outside region m (see above). */
void ofl_mmio_oob(const struct ofl_mmio *m, uint64_t off, unsigned width, bool write);

static inline bool ofl_mmio_in(const struct ofl_mmio *m, uint64_t off, unsigned width)
{
	return off < m->size && m->size - off >= width;
}

/* 32-bit register read at byte offset `off`. */
static inline uint32_t ofl_mmio_read32(const struct ofl_mmio *m, uint64_t off)
{
	if (OFL_MMIO_SIMULATED(m)) {
		if (!ofl_mmio_in(m, off, 4)) {
			ofl_mmio_oob(m, off, 4, false);
			return 0xFFFFFFFFu;
		}
		return m->prov->read32(m->sim, off);
	}
	if (OFL_MMIO_CHECK_HW && !ofl_mmio_in(m, off, 4))
		ofl_mmio_oob(m, off, 4, false);
	return *(const volatile uint32_t *)(const volatile void *)(m->base + off);
}

/* 32-bit register write (relaxed: order it after descriptor writes with ofl_dma_wmb()). */
static inline void ofl_mmio_write32(const struct ofl_mmio *m, uint64_t off, uint32_t v)
{
	if (OFL_MMIO_SIMULATED(m)) {
		if (!ofl_mmio_in(m, off, 4))
			ofl_mmio_oob(m, off, 4, true);
		else
			m->prov->write32(m->sim, off, v);
		return;
	}
	if (OFL_MMIO_CHECK_HW && !ofl_mmio_in(m, off, 4))
		ofl_mmio_oob(m, off, 4, true);
	*(volatile uint32_t *)(volatile void *)(m->base + off) = v;
}

/*
 * 16-bit access, for registers with 16-bit halves that act on their own
 * (NXP DSPI's XSPI PUSHR: a command half and a TX-data half).
 */
static inline uint16_t ofl_mmio_read16(const struct ofl_mmio *m, uint64_t off)
{
	if (OFL_MMIO_SIMULATED(m)) {
		if (!ofl_mmio_in(m, off, 2)) {
			ofl_mmio_oob(m, off, 2, false);
			return 0xFFFFu;
		}
		return (uint16_t)m->prov->read16(m->sim, off);
	}
	if (OFL_MMIO_CHECK_HW && !ofl_mmio_in(m, off, 2))
		ofl_mmio_oob(m, off, 2, false);
	return *(const volatile uint16_t *)(const volatile void *)(m->base + off);
}

static inline void ofl_mmio_write16(const struct ofl_mmio *m, uint64_t off, uint16_t v)
{
	if (OFL_MMIO_SIMULATED(m)) {
		if (!ofl_mmio_in(m, off, 2))
			ofl_mmio_oob(m, off, 2, true);
		else
			m->prov->write16(m->sim, off, v);
		return;
	}
	if (OFL_MMIO_CHECK_HW && !ofl_mmio_in(m, off, 2))
		ofl_mmio_oob(m, off, 2, true);
	*(volatile uint16_t *)(volatile void *)(m->base + off) = v;
}

/*
 * Does this CPU move 8 bytes of MMIO in one access? A 64-bit host does; a
 * 32-bit one (armhf) splits ofl_mmio_write64/read64 in two. The one host
 * fact backends ask about it (backends/udma: the ring accelerator's FIFO
 * windows need one 64-bit access for an 8-byte element, TI CSL csl_ringacc.h).
 */
#define OFL_MMIO_SINGLE_64 (UINTPTR_MAX > 0xFFFFFFFFu)

/*
 * 64-bit access, for windows that move a whole 8-byte ring element at once
 * (Linux's memcpy_toio/fromio use 64-bit accesses on arm64). On 32-bit hosts
 * it is two 32-bit accesses in ascending order, low word first, so that the
 * access that ends at off + 8 comes last (as Linux's generic memcpy_toio/
 * fromio, lib/iomem_copy.c, split it without CONFIG_64BIT); a simulated
 * region receives the same two accesses, so the models see what the
 * hardware would.
 */
static inline uint64_t ofl_mmio_read64(const struct ofl_mmio *m, uint64_t off)
{
	if (OFL_MMIO_SIMULATED(m)) {
		if (!ofl_mmio_in(m, off, 8)) {
			ofl_mmio_oob(m, off, 8, false);
			return ~0ull;
		}
#if OFL_MMIO_SINGLE_64
		return m->prov->read64(m->sim, off);
#else
		/* the model receives what the CPU would issue: two 32-bit reads, low word first */
		uint64_t lo = m->prov->read32(m->sim, off);
		return lo | (uint64_t)m->prov->read32(m->sim, off + 4) << 32;
#endif
	}
	if (OFL_MMIO_CHECK_HW && !ofl_mmio_in(m, off, 8))
		ofl_mmio_oob(m, off, 8, false);
#if OFL_MMIO_SINGLE_64
	return *(const volatile uint64_t *)(const volatile void *)(m->base + off);
#else
	uint64_t lo = *(const volatile uint32_t *)(const volatile void *)(m->base + off);
	return lo | (uint64_t)*(const volatile uint32_t *)(const volatile void *)(m->base + off + 4) << 32;
#endif
}

static inline void ofl_mmio_write64(const struct ofl_mmio *m, uint64_t off, uint64_t v)
{
	if (OFL_MMIO_SIMULATED(m)) {
		if (!ofl_mmio_in(m, off, 8)) {
			ofl_mmio_oob(m, off, 8, true);
			return;
		}
#if OFL_MMIO_SINGLE_64
		m->prov->write64(m->sim, off, v);
#else
		/* as the CPU would issue it: two 32-bit writes, low word first */
		m->prov->write32(m->sim, off, (uint32_t)v);
		m->prov->write32(m->sim, off + 4, (uint32_t)(v >> 32));
#endif
		return;
	}
	if (OFL_MMIO_CHECK_HW && !ofl_mmio_in(m, off, 8))
		ofl_mmio_oob(m, off, 8, true);
#if OFL_MMIO_SINGLE_64
	*(volatile uint64_t *)(volatile void *)(m->base + off) = v;
#else
	*(volatile uint32_t *)(volatile void *)(m->base + off) = (uint32_t)v;
	*(volatile uint32_t *)(volatile void *)(m->base + off + 4) = (uint32_t)(v >> 32);
#endif
}

/* Normal-memory writes become visible to a device before a later MMIO write (Linux dma_wmb()). */
static inline void ofl_dma_wmb(void)
{
#if defined(__aarch64__)
	__asm__ volatile("dmb oshst" ::: "memory");
#elif defined(__arm__)
	__asm__ volatile("dmb st" ::: "memory");
#elif defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("" ::: "memory"); /* x86 keeps stores in order */
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Reads of DMA memory happen after an earlier MMIO read (Linux dma_rmb()). */
static inline void ofl_dma_rmb(void)
{
#if defined(__aarch64__)
	__asm__ volatile("dmb oshld" ::: "memory");
#elif defined(__arm__)
	__asm__ volatile("dmb" ::: "memory");
#elif defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/*
 * Map the register region [phys, phys + size), entry `index` of DT node
 * `node`'s reg (the caller took the address from the device tree and claimed
 * it): from the models' world if the platform simulates (the node's model is
 * attached on first use; a block of another node's model is refused with
 * -EBUSY), else UIO (a /sys/class/uio device whose of_node is this node),
 * else VFIO-platform (the node's platform device bound to vfio-platform),
 * else /dev/mem if OFFLOAD_DEVMEM=1 allows it. On failure `why` says what
 * was tried.
 */
int ofl_mmio_map(const struct ofl_platform *p, int node, int index, uint64_t phys, uint64_t size,
		 struct ofl_mmio *out, char *why, size_t why_len);
void ofl_mmio_unmap(struct ofl_mmio *m);
/* How a region is reached, in a word or two ("UIO", "register-level model (sim)", ...). */
const char *ofl_mmio_map_kind_name(enum ofl_mmio_kind k);

/* Lower-level pieces, exposed for tests with stand-in trees. */
/* Index N of /sys/class/uio/uioN whose device/of_node resolves to DT path `dt_path`; -ENOENT. */
int ofl_uio_find(const char *dt_path, char *why, size_t why_len);
/* Map the UIO map of uioN that covers [phys, phys + size). */
int ofl_uio_map(int uio, uint64_t phys, uint64_t size, struct ofl_mmio *out, char *why,
		size_t why_len);
/* Does OFFLOAD_DEVMEM=1 allow /dev/mem (registers and reserved-memory)? */
bool ofl_devmem_allowed(void);
/* Map [phys, phys + size) through /dev/mem (the caller guarantees the DT declares it). */
int ofl_devmem_map(uint64_t phys, uint64_t size, bool uncached, void **cpu, void **map,
		   size_t *map_len, int *fd, char *why, size_t why_len);
/* VFIO-platform: region `index` of the platform device `devname` bound to vfio-platform. */
int ofl_vfio_map(const char *devname, int index, uint64_t phys, uint64_t size,
		 struct ofl_mmio *out, char *why, size_t why_len);
/* Platform device name (e.g. "31150000.dma-controller") whose of_node is `dt_path`; -ENOENT. */
int ofl_platform_dev_by_of_node(const char *dt_path, char *name, size_t len);

/* ------------------------------------------------------------------ firmware messages */

struct ofl_fw;

/*
 * A channel to the system controller at DT node `sci_node` (TI-SCI), for the
 * messages a backend builds in the firmware's wire format (src/hw/tisci.h).
 * With models, the world's DM firmware model; on hardware -ENOTSUP with the
 * reason in `why` (user space has no TI-SCI transport). -ENOMEM.
 */
int ofl_fw_open(const struct ofl_platform *p, int sci_node, struct ofl_fw **out, char *why, size_t why_len);
/*
 * Send the request msg[0, req_len) (its type and flags set by the caller; the
 * channel fills host and sequence) and receive the response into
 * msg[0, resp_cap). 0 when the firmware acknowledged it; -ENODEV for a NACK
 * (as Linux ti_sci's callers see it), -EINVAL for a message too short for
 * its header, -EBUSY when all 256 sequence numbers are in flight, -ENOTSUP
 * without firmware; `why` says what the firmware said. Safe from several
 * threads at once on one channel: each message in flight gets a seq of its own.
 */
int ofl_fw_xfer(struct ofl_fw *fw, uint8_t *msg, size_t req_len, size_t resp_cap, char *why,
		size_t why_len);
/* Close a channel (NULL: nothing). */
void ofl_fw_close(struct ofl_fw *fw);

/* ------------------------------------------------------------------ cache maintenance */

/* Data cache line size in bytes (arm64: CTR_EL0.DminLine; else sysconf/CPUID; 64 fallback). */
size_t ofl_cache_line(void);
/*
 * The cache line a device's buffers must be aligned to on this platform: the
 * models' world's when simulated, else the host's (ofl_cache_line()).
 */
size_t ofl_platform_cache_line(const struct ofl_platform *p);
/* Whether this build can clean/invalidate from user space on this CPU. */
bool ofl_cache_ops_available(void);
/* Clean [p, p + len) to the point of coherency (arm64 DC CVAC; x86 CLFLUSHOPT/CLFLUSH). One barrier. */
void ofl_cache_clean(const void *p, size_t len);
/* Clean and invalidate (arm64 DC CIVAC; x86 CLFLUSHOPT/CLFLUSH). One barrier. */
void ofl_cache_clean_inval(const void *p, size_t len);

/* ------------------------------------------------------------------ DMA memory */

enum ofl_dma_provider {
	OFL_DMA_PLAIN,   /* plain process memory (CPU device, kernel-served devices) */
	OFL_DMA_SIM,     /* simulated memory of the sim world */
	OFL_DMA_UDMABUF, /* u-dma-buf: /dev/<name>, /sys/class/u-dma-buf/<name>/phys_addr */
	OFL_DMA_HEAP,    /* /dev/dma_heap/<heap>, physical address from /proc/self/pagemap */
	OFL_DMA_RMEM,    /* a /reserved-memory region through /dev/mem */
};
const char *ofl_dma_provider_name(enum ofl_dma_provider p);

struct ofl_dma_region;
struct ofl_dma_pool;

/*
 * How the CPU may access an allocation (audits/eip97.md D3). Linux's
 * coherent DMA memory is Normal non-cacheable on non-coherent arm64
 * (pgprot_dmacoherent), where any access is fine. The "uncached" mappings
 * user space gets may instead be Device-nGnRnE: /dev/mem of memory outside
 * the kernel's linear map, a no-map reserved-memory region
 * (arch/arm64/mm/mmu.c phys_mem_access_prot() -> pgprot_noncached), and
 * u-dma-buf's default NONCACHED sync mode (u-dma-buf.c udmabuf_object_mmap(),
 * pgprot_noncached on CONFIG_ARM64). There an unaligned access, or the DC
 * ZVA and unaligned stores glibc's memset/memcpy use, take an alignment
 * fault (SIGBUS). So the library reaches uncached memory only with aligned
 * volatile stores and loads of 32 bits (single bytes at unaligned ends).
 */
enum ofl_dma_access {
	OFL_DMA_ACCESS_NORMAL, /* cached or coherent memory: any access */
	OFL_DMA_ACCESS_WORDS,  /* uncached, possibly Device memory: aligned words and bytes only */
	OFL_DMA_ACCESS_SIM,    /* the models' device-type memory: through the provider's mem_access */
};

/* One allocation: a range of a region. */
struct ofl_dma {
	struct ofl_dma_region *region;
	struct ofl_dma_pool *pool;
	void *cpu;                    /* CPU address */
	uint64_t bus;                 /* address the device uses (after dma-ranges) */
	size_t len;                   /* bytes, a multiple of the cache line */
	size_t off;                   /* offset inside the region */
	enum offload_cache_mode cache;
	enum ofl_dma_access access;   /* how the CPU may touch it (ofl_dma_write() ...) */
	struct ofl_dma *next, *prev;  /* the pool's list (for lookups by address) */
};

/*
 * A simulated engine's timeouts are this many times the hardware's: its model
 * runs on a host thread that shares the CPU with everything else, and on a
 * loaded 2-core host a model starved for a second is scheduling, not a stuck
 * engine (fuzz_sim saw exactly that under load). Fault-injection tests set
 * their own short timeouts.
 */
#define OFL_SIM_TIMEOUT_FACTOR 10u

/*
 * Translate a CPU physical address to the device's bus address (dma-ranges).
 * Returns 0, or -ERANGE (outside every window) / -EINVAL (the windows cannot
 * be translated, e.g. an interconnect loop) with the reason in `why`.
 */
typedef int (*ofl_dma_xlate_fn)(void *arg, uint64_t phys, uint64_t *bus, char *why, size_t why_len);

struct ofl_dma_pool_opts {
	enum offload_cache_mode cache;  /* the device's policy */
	const char *name;               /* the device, for messages */
	struct ofl_dev_counters *stats; /* the device's counters (cache maintenance is counted), or NULL */
	ofl_dma_xlate_fn xlate;         /* NULL = identity */
	void *xlate_arg;
	uint64_t rmem_addr, rmem_size;  /* the device's DT memory-region, 0 if none */
	char rmem_name[64];
	/* sim: how much of the simulated DRAM window, from its start, the device must reach */
	uint64_t min_reach;
	/* highest bus address the device can put on the bus (its DMA mask), 0 = any */
	uint64_t bus_limit;
	/* where that limit comes from, for the message (NULL: "the device's DMA addressing") */
	const char *bus_limit_why;
};

/*
 * A device's DMA memory, from the platform's provider (simulated memory when
 * it simulates, else u-dma-buf, reserved-memory or a CMA dma-heap). Checks
 * that the device can reach the provider's memory through its dma-ranges
 * (sim: the first o->min_reach bytes, at least 1 MiB, of the simulated DRAM
 * window, where allocations start; u-dma-buf: at least one buffer;
 * reserved-memory: the region; dma-heap: a probe allocation), so that a
 * device that could never move a byte is refused at probe: -ENODEV with the
 * reason in `why`. -ENOTSUP when the device needs cache maintenance no one
 * can do here, -ENOMEM. Allocations that still land outside (another
 * dma-heap buffer) fail with -ENOMEM, as the kernel's DMA API does for
 * memory beyond a device's reach.
 */
int ofl_dma_pool_new(const struct ofl_platform *p, const struct ofl_dma_pool_opts *o,
		     struct ofl_dma_pool **out, char *why, size_t why_len);
void ofl_dma_pool_destroy(struct ofl_dma_pool *pool);

/*
 * Allocate `len` bytes aligned to `align` (a power of two; at least the
 * cache line) with cache mode `cache` (the pool's mode, or
 * OFFLOAD_CACHE_UNCACHED for descriptors and rings on non-coherent devices).
 * `user` links the allocation into the pool's lookup list (DMA buffers the
 * caller may hand back as plain pointers); ofl_dma_pool_destroy() frees
 * those, other allocations must be freed by their owner first.
 * -ENOMEM with the reasons in `why` (no memory, or none the device reaches),
 * -EBUSY (a u-dma-buf is locked by another user), -EINVAL for len 0 or above
 * SIZE_MAX / 2, or an alignment that is not a power of two up to 4096.
 */
int ofl_dma_alloc(struct ofl_dma_pool *pool, size_t len, size_t align, enum offload_cache_mode cache,
		  bool user, struct ofl_dma **out, char *why, size_t why_len);
void ofl_dma_free(struct ofl_dma *d);

/* The user allocation of `pool` that holds all of [p, p + len), or NULL. */
struct ofl_dma *ofl_dma_lookup(struct ofl_dma_pool *pool, const void *p, size_t len);

/*
 * A caller's memory of its last lookup: ofl_dma_lookup_hint() answers from
 * it without the pool's lock while no user allocation has come or gone
 * since (the pool's generation). It keeps the allocation's range itself, so
 * that the answer never reads *d: another thread may free d between the
 * generation's load and the range test (only d's own user may not). One
 * per thread of use (a queue has two).
 */
struct ofl_dma_hint {
	struct ofl_dma *d;
	uintptr_t cpu;              /* d->cpu and d->len when d was found */
	size_t len;
	uint64_t gen;
};
struct ofl_dma *ofl_dma_lookup_hint(struct ofl_dma_pool *pool, const void *p, size_t len,
				    struct ofl_dma_hint *h);

/*
 * Hand [off, off + len) of d to the device / back to the CPU, as the cache
 * mode says (streaming: clean / clean+invalidate on cache-line-rounded
 * ranges; otherwise nothing). Counted in the device's stats.
 */
void ofl_dma_sync_range(struct ofl_dma *d, size_t off, size_t len, bool for_cpu);
static inline void ofl_dma_sync_for_device(struct ofl_dma *d, size_t off, size_t len)
{
	if (d->cache == OFFLOAD_CACHE_STREAMING && len)
		ofl_dma_sync_range(d, off, len, false);
}
static inline void ofl_dma_sync_for_cpu(struct ofl_dma *d, size_t off, size_t len)
{
	if (d->cache == OFFLOAD_CACHE_STREAMING && len)
		ofl_dma_sync_range(d, off, len, true);
}

/*
 * The CPU's access to DMA memory, right for every memory type (see enum
 * ofl_dma_access): bytes [off, off + len) of d written from src, read into
 * dst, or zeroed (also a wipe: never optimised away). Normal memory:
 * memcpy / explicit_bzero; uncached memory: aligned 32-bit volatile
 * accesses, single bytes at unaligned ends. The range must lie inside d. No
 * cache maintenance (ofl_dma_sync_*). Thread-safety: as the memory's owner.
 */
void ofl_dma_write(struct ofl_dma *d, size_t off, const void *src, size_t len);
void ofl_dma_read(const struct ofl_dma *d, size_t off, void *dst, size_t len);
void ofl_dma_zero(struct ofl_dma *d, size_t off, size_t len);
/* Out of line: one access of the models' device-type memory (ofl_dma_w32/r32 when simulated). */
uint64_t ofl_dma_sim_access(const struct ofl_dma *d, size_t off, unsigned width, bool write, uint64_t v);

/* One aligned 32-bit store / load of DMA memory at byte `off` (a multiple of 4): descriptors. */
static inline void ofl_dma_w32(struct ofl_dma *d, size_t off, uint32_t v)
{
	if (__builtin_expect(d->access == OFL_DMA_ACCESS_SIM, 0))
		ofl_dma_sim_access(d, off, 4, true, v);
	else
		*(volatile uint32_t *)(volatile void *)((uint8_t *)d->cpu + off) = v;
}
static inline uint32_t ofl_dma_r32(const struct ofl_dma *d, size_t off)
{
	if (__builtin_expect(d->access == OFL_DMA_ACCESS_SIM, 0))
		return (uint32_t)ofl_dma_sim_access(d, off, 4, false, 0);
	return *(const volatile uint32_t *)(const volatile void *)((const uint8_t *)d->cpu + off);
}

/*
 * One aligned 64-bit store / load at byte `off` (a multiple of 8): ring
 * elements. One access on a 64-bit host; the backends that use it refuse
 * 32-bit hosts.
 */
static inline void ofl_dma_w64(struct ofl_dma *d, size_t off, uint64_t v)
{
	if (__builtin_expect(d->access == OFL_DMA_ACCESS_SIM, 0))
		ofl_dma_sim_access(d, off, 8, true, v);
	else
		*(volatile uint64_t *)(volatile void *)((uint8_t *)d->cpu + off) = v;
}
static inline uint64_t ofl_dma_r64(const struct ofl_dma *d, size_t off)
{
	if (__builtin_expect(d->access == OFL_DMA_ACCESS_SIM, 0))
		return ofl_dma_sim_access(d, off, 8, false, 0);
	return *(const volatile uint64_t *)(const volatile void *)((const uint8_t *)d->cpu + off);
}

enum ofl_dma_provider ofl_dma_pool_provider(const struct ofl_dma_pool *pool);
enum offload_cache_mode ofl_dma_pool_cache(const struct ofl_dma_pool *pool);
/* One line: provider, where, how much is in use. */
const char *ofl_dma_pool_describe(const struct ofl_dma_pool *pool);

/* Provider internals, exposed for tests with stand-in trees. */
struct ofl_udmabuf_info {
	char name[64];
	uint64_t phys, size;
	bool dma_coherent;
};
/* List /sys/class/u-dma-buf/<name> buffers. Returns the count (may exceed max) or -errno. */
int ofl_udmabuf_scan(struct ofl_udmabuf_info *out, int max);
/* Read the physical address of a page-aligned mapping from the pagemap; -EPERM without CAP_SYS_ADMIN. */
int ofl_pagemap_phys(const void *p, uint64_t *phys, char *why, size_t why_len);

/* ------------------------------------------------------------------ dma-buf (CPU memory) */

/*
 * A Linux dma-buf mapped for the CPU (src/platform/dmabuf.c): made by the
 * kernel's /dev/udmabuf over a sealed memfd, by /dev/dma_heap/system, or
 * imported from a dma-buf fd someone else made. Its pages are scattered and
 * have no bus address the library could give an engine: it is memory for the
 * CPU and for spidev only (AF_ALG cannot pin its pages). The roots (ofl_platform_roots())
 * apply: <dev>/udmabuf, <dev>/dma_heap/system,
 * <sysfs>/module/udmabuf/parameters/size_limit_mb.
 */
enum ofl_dmabuf_src {
	OFL_DMABUF_UDMABUF = 1u << 0,     /* /dev/udmabuf over a memfd */
	OFL_DMABUF_SYSTEM_HEAP = 1u << 1, /* /dev/dma_heap/system */
	OFL_DMABUF_IMPORTED = 1u << 2,    /* someone else's fd, duplicated */
};
const char *ofl_dmabuf_src_name(enum ofl_dmabuf_src s);

/*
 * The access flags of every DMA_BUF_IOCTL_SYNC: READ and WRITE, at START and
 * at END alike. A CPU-access window is opened by offload_buf_sync_for_cpu()
 * and closed by offload_buf_sync_for_device(), and the caller may both read
 * and write inside it; the kernel does not remember START's flags
 * (dma_buf_end_cpu_access() gets END's direction alone and exporters sync for
 * the device in that direction), so an END narrower than what the CPU did
 * would skip writing back its stores, and one wider than START would break
 * the uapi rule that END uses START's flags (include/uapi/linux/dma-buf.h).
 */
#define OFL_DMABUF_SYNC_ACCESS DMA_BUF_SYNC_RW

struct ofl_dmabuf {
	int fd;                 /* the dma-buf, owned (-1 when none) */
	void *cpu;              /* MAP_SHARED mapping of all of it */
	size_t len;             /* bytes: the dma-buf's size, a multiple of the page */
	enum ofl_dmabuf_src src;
	char exporter[32];      /* the kernel's exp_name ("udmabuf", "system", ...) */
};

/*
 * Make and map a dma-buf of `len` bytes (rounded up to the page) from the
 * exporters in `which` (OFL_DMABUF_UDMABUF / _SYSTEM_HEAP), tried in that
 * order. On failure `why` lists every exporter tried with its path and
 * reason, and the errno is that of the attempt that got furthest:
 * -ENOMEM (an exporter refused the size: udmabuf's size_limit_mb, out of
 * memory), -EACCES (a node this process may not open, or a read-only
 * mapping), -ENODEV (no node, or a node that is no exporter: a directory, a
 * file or device answering ENOTTY), -EMFILE (out of file descriptors), -EIO
 * (an exporter failed otherwise; `why` has its errno), -EINVAL (len 0 or
 * above SIZE_MAX / 2, `which` empty). Nothing else.
 */
int ofl_dmabuf_alloc(size_t len, unsigned which, struct ofl_dmabuf *out, char *why, size_t why_len);
/*
 * Duplicate (F_DUPFD_CLOEXEC) and map a dma-buf fd: size from fstat (the
 * dma-buf inode's size) or lseek(SEEK_END). -EBADF (not an open fd), -EINVAL
 * (not a dma-buf: fstatfs is not DMA_BUF_MAGIC; or no size), -EACCES (a
 * read-only fd), or the -errno of dup / mmap; `why` says which.
 */
int ofl_dmabuf_import(int fd, struct ofl_dmabuf *out, char *why, size_t why_len);
/* DMA_BUF_IOCTL_SYNC START or END with OFL_DMABUF_SYNC_ACCESS (retried on EINTR/EAGAIN). */
int ofl_dmabuf_sync(const struct ofl_dmabuf *b, bool start, char *why, size_t why_len);
/* Unmap and close; b->fd is -1 afterwards. */
void ofl_dmabuf_release(struct ofl_dmabuf *b);

#endif /* OFL_PLATFORM_H */
