/* SPDX-License-Identifier: MIT */
/*
 * DMA memory for direct backends: where it comes from, its bus address, and
 * its cache maintenance.
 *
 * Providers (see platform.h): simulated memory for simulated devices; on
 * hardware u-dma-buf (physically contiguous, physical address in sysfs,
 * kernel-side sync in sysfs), a CMA dma-heap (physical address from
 * /proc/self/pagemap, which needs CAP_SYS_ADMIN), or the device's DT
 * reserved-memory region mapped through /dev/mem (uncached). u-dma-buf and
 * reserved-memory regions are shared by many allocations (first-fit arena);
 * simulated and dma-heap memory is one region per allocation.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/platform.h"
#include "platform/sysfs.h"
#include "dt/dt.h"
#include "util/util.h"

struct arena_blk {
	size_t off, len;
	struct arena_blk *next;
};

struct ofl_dma_region {
	enum ofl_dma_provider kind;
	enum offload_cache_mode map_cache; /* how the CPU mapping behaves */
	uint8_t *cpu;
	uint64_t phys, bus;
	size_t size;
	int fd;
	void *map;
	size_t map_len;
	struct ofl_sim_mem *sim;
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
	char name[80];      /* o.name's copy */
	enum ofl_dma_provider provider;
	const struct offload_sim_provider *prov; /* OFL_DMA_SIM: the models' provider and world */
	struct ofl_sim *sim;
	size_t line;
	pthread_mutex_t mu; /* regions */
	pthread_rwlock_t users_lk;
	struct ofl_dma *users;
	atomic_uint_fast64_t gen; /* bumped whenever a user allocation comes or goes */
	struct ofl_dma_region *regions;
	char heap[PATH_MAX_OFL];
	char desc[200];
};

const char *ofl_dma_provider_name(enum ofl_dma_provider p)
{
	switch (p) {
	case OFL_DMA_PLAIN: return "plain";
	case OFL_DMA_SIM: return "sim";
	case OFL_DMA_UDMABUF: return "u-dma-buf";
	case OFL_DMA_HEAP: return "dma-heap";
	case OFL_DMA_RMEM: return "reserved-memory";
	}
	return "?";
}

static bool devmem_allowed(void)
{
	const char *e = getenv("OFFLOAD_DEVMEM");

	return e && strcmp(e, "1") == 0;
}

/* ------------------------------------------------------------- arena */

static int arena_init(struct ofl_dma_region *r)
{
	r->free = calloc(1, sizeof(*r->free));
	if (!r->free)
		return -ENOMEM;
	r->free->len = r->size;
	return 0;
}

static int arena_alloc(struct ofl_dma_region *r, size_t len, size_t align, size_t *off)
{
	for (struct arena_blk **pp = &r->free; *pp; pp = &(*pp)->next) {
		struct arena_blk *b = *pp;
		/* align the bus address, which the device sees */
		uint64_t a = (r->bus + b->off + align - 1) & ~(uint64_t)(align - 1);
		size_t pad = (size_t)(a - (r->bus + b->off));
		if (pad > b->len || b->len - pad < len)
			continue;
		*off = b->off + pad;
		size_t tail_off = *off + len, tail_len = b->off + b->len - tail_off;
		if (pad && tail_len) {
			struct arena_blk *t = calloc(1, sizeof(*t));
			if (!t)
				return -ENOMEM;
			t->off = tail_off;
			t->len = tail_len;
			t->next = b->next;
			b->next = t;
			b->len = pad;
		} else if (pad) {
			b->len = pad;
		} else if (tail_len) {
			b->off = tail_off;
			b->len = tail_len;
		} else {
			*pp = b->next;
			free(b);
		}
		r->used += len;
		return 0;
	}
	return -ENOMEM;
}

static void arena_free(struct ofl_dma_region *r, size_t off, size_t len)
{
	struct arena_blk **pp = &r->free, *prev = NULL;

	while (*pp && (*pp)->off < off) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	struct arena_blk *next = *pp;
	r->used -= len;
	if (prev && prev->off + prev->len == off) {
		prev->len += len;
		if (next && prev->off + prev->len == next->off) {
			prev->len += next->len;
			prev->next = next->next;
			free(next);
		}
		return;
	}
	if (next && off + len == next->off) {
		next->off = off;
		next->len += len;
		return;
	}
	struct arena_blk *b = calloc(1, sizeof(*b));
	if (!b)
		return; /* the range leaks until the region is closed; nothing else goes wrong */
	b->off = off;
	b->len = len;
	b->next = next;
	*pp = b;
}

/* A region over a mapping; on failure the mapping and fd are released. */
static struct ofl_dma_region *region_of_map(enum ofl_dma_provider kind, enum offload_cache_mode mode,
					    void *map, size_t map_len, void *cpu, size_t size, int fd,
					    uint64_t phys, const char *name, bool whole)
{
	struct ofl_dma_region *r = calloc(1, sizeof(*r));

	if (!r) {
		munmap(map, map_len);
		close(fd);
		return NULL;
	}
	r->kind = kind;
	r->map_cache = mode;
	r->map = map;
	r->map_len = map_len;
	r->cpu = cpu;
	r->size = size;
	r->fd = fd;
	r->phys = phys;
	r->whole = whole;
	ofl_strlcpy(r->name, name, sizeof(r->name));
	return r;
}

/* ------------------------------------------------------------- u-dma-buf */

static const char *const udmabuf_classes[] = { "u-dma-buf", "udmabuf" };

int ofl_udmabuf_scan(struct ofl_udmabuf_info *out, int max)
{
	const struct ofl_platform_roots *rt = ofl_platform_roots();
	int n = 0;

	for (size_t c = 0; c < OFL_ARRAY_SIZE(udmabuf_classes); c++) {
		char dir[PATH_MAX_OFL];
		if (ofl_path(dir, sizeof(dir), "%s/class/%s", rt->sysfs, udmabuf_classes[c]) < 0)
			continue;
		DIR *d = opendir(dir);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			char p[PATH_MAX_OFL];
			uint64_t phys, size, coh = 0;
			if (e->d_name[0] == '.' ||
			    ofl_path(p, sizeof(p), "%s/%s/phys_addr", dir, e->d_name) < 0 ||
			    ofl_read_u64(p, &phys) < 0 ||
			    ofl_path(p, sizeof(p), "%s/%s/size", dir, e->d_name) < 0 ||
			    ofl_read_u64(p, &size) < 0 || size == 0)
				continue;
			if (ofl_path(p, sizeof(p), "%s/%s/dma_coherent", dir, e->d_name) == 0)
				ofl_read_u64(p, &coh);
			if (n < max) {
				ofl_strlcpy(out[n].name, e->d_name, sizeof(out[n].name));
				out[n].phys = phys;
				out[n].size = size;
				out[n].dma_coherent = coh != 0;
			}
			n++;
		}
		closedir(d);
		if (n)
			break; /* one class directory is enough */
	}
	return n;
}

static int udmabuf_sysdir(const char *name, char *out, size_t len)
{
	const struct ofl_platform_roots *rt = ofl_platform_roots();

	for (size_t c = 0; c < OFL_ARRAY_SIZE(udmabuf_classes); c++) {
		if (ofl_path(out, len, "%s/class/%s/%s", rt->sysfs, udmabuf_classes[c], name) == 0 &&
		    access(out, F_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Open and map u-dma-buf `info` (O_SYNC for an uncached mapping), locked against other users. */
static int udmabuf_open(struct ofl_dma_pool *pool, const struct ofl_udmabuf_info *info,
			enum offload_cache_mode mode, struct ofl_dma_region **out, char *why, size_t wl)
{
	char path[PATH_MAX_OFL];
	int flags = O_RDWR | O_CLOEXEC | (mode == OFFLOAD_CACHE_UNCACHED ? O_SYNC : 0);

	if (ofl_path(path, sizeof(path), "%s/%s", ofl_platform_roots()->dev, info->name) < 0)
		return -ENAMETOOLONG;
	int fd = open(path, flags);
	if (fd < 0) {
		snprintf(why, wl, "u-dma-buf: cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(why, wl, "u-dma-buf: %s is in use by another user", path);
		close(fd);
		return -EBUSY;
	}
	void *m = mmap(NULL, info->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		snprintf(why, wl, "u-dma-buf: cannot map %s (%" PRIu64 " bytes): %s", path, info->size,
			 strerror(errno));
		close(fd);
		return -ENOMEM;
	}
	struct ofl_dma_region *r = region_of_map(OFL_DMA_UDMABUF, mode, m, info->size, m, info->size, fd,
						 info->phys, info->name, false);
	if (!r)
		return -ENOMEM;
	udmabuf_sysdir(info->name, r->sysdir, sizeof(r->sysdir));
	*out = r;
	return 0;
}

/* Kernel-side sync through the u-dma-buf sysfs attributes (no user-space cache ops here). */
static void udmabuf_kernel_sync(struct ofl_dma_region *r, size_t off, size_t len, bool for_cpu)
{
	char p[PATH_MAX_OFL], v[32];

	snprintf(v, sizeof(v), "%zu", off);
	if (ofl_path(p, sizeof(p), "%s/sync_offset", r->sysdir) == 0)
		ofl_write_text(p, v);
	snprintf(v, sizeof(v), "%zu", len);
	if (ofl_path(p, sizeof(p), "%s/sync_size", r->sysdir) == 0)
		ofl_write_text(p, v);
	/* kernel enum dma_data_direction: 0 bidirectional */
	if (ofl_path(p, sizeof(p), "%s/sync_direction", r->sysdir) == 0)
		ofl_write_text(p, "0");
	if (ofl_path(p, sizeof(p), "%s/%s", r->sysdir, for_cpu ? "sync_for_cpu" : "sync_for_device") == 0)
		ofl_write_text(p, "1");
}

/* ------------------------------------------------------------- dma-heap */

int ofl_pagemap_phys(const void *p, uint64_t *phys, char *why, size_t wl)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;
	int fd = open(ofl_platform_roots()->pagemap, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, wl, "cannot open %s: %s", ofl_platform_roots()->pagemap, strerror(errno));
		return -errno;
	}
	off_t at = (off_t)((uintptr_t)p / (uintptr_t)page * 8u);
	ssize_t n = pread(fd, &entry, sizeof(entry), at);
	close(fd);
	if (n != (ssize_t)sizeof(entry)) {
		snprintf(why, wl, "short read of %s", ofl_platform_roots()->pagemap);
		return -EIO;
	}
	if (!(entry >> 63)) {
		snprintf(why, wl, "page at %p is not present", p);
		return -EFAULT;
	}
	uint64_t pfn = entry & ((1ull << 55) - 1);
	if (pfn == 0) {
		snprintf(why, wl, "%s hides physical addresses (needs CAP_SYS_ADMIN)",
			 ofl_platform_roots()->pagemap);
		return -EPERM;
	}
	*phys = pfn * (uint64_t)page + ((uintptr_t)p % (uintptr_t)page);
	return 0;
}

/*
 * Heaps that hand out physically contiguous memory. Not "system": its
 * buffers are pages of orders 8, 4 and 0 wherever the page allocator found
 * them, mapped with remap_pfn_range (drivers/dma-buf/heaps/system_heap.c),
 * and the pagemap walk skips such VM_PFNMAP mappings (mm/pagewalk.c), so
 * there is not even a physical address to find; checked in the qemu guest
 * (tests/qemu/guest_dmabuf.c).
 */
static const char *const heap_names[] = { "linux,cma", "reserved", "default_cma_region" };

/*
 * The first heap of heap_names under <dev>/dma_heap this process may use, in
 * out. -ENOENT when there is none; when one exists but cannot be opened for
 * reading and writing (devtmpfs makes them root-only), -errno and `why` names
 * it, so that "permission denied" is not reported as "no heap".
 */
static int heap_find(char *out, size_t len, char *why, size_t wl)
{
	int r = -ENOENT;

	why[0] = '\0';
	for (size_t i = 0; i < OFL_ARRAY_SIZE(heap_names); i++) {
		if (ofl_path(out, len, "%s/dma_heap/%s", ofl_platform_roots()->dev, heap_names[i]) < 0)
			continue;
		if (access(out, R_OK | W_OK) == 0)
			return 0;
		if (errno != ENOENT && r == -ENOENT) {
			r = -errno;
			snprintf(why, wl, "%.200s: %.60s", out, strerror(errno));
		}
	}
	return r;
}

static int heap_alloc(struct ofl_dma_pool *pool, size_t len, struct ofl_dma_region **out, char *why,
		      size_t wl)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = (len + (size_t)page - 1) & ~((size_t)page - 1);
	int hfd = open(pool->heap, O_RDWR | O_CLOEXEC);

	if (hfd < 0) {
		snprintf(why, wl, "dma-heap: cannot open %s: %s", pool->heap, strerror(errno));
		return -errno;
	}
	struct dma_heap_allocation_data a = { .len = sz, .fd_flags = O_RDWR | O_CLOEXEC };
	int r = ioctl(hfd, DMA_HEAP_IOCTL_ALLOC, &a);
	int e = errno;
	close(hfd);
	if (r < 0) {
		snprintf(why, wl, "dma-heap: %s could not allocate %zu bytes: %s", pool->heap, sz, strerror(e));
		return -ENOMEM;
	}
	void *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, (int)a.fd, 0);
	if (m == MAP_FAILED) {
		snprintf(why, wl, "dma-heap: cannot map %zu bytes: %s", sz, strerror(errno));
		close((int)a.fd);
		return -ENOMEM;
	}
	memset(m, 0, sz); /* fault every page in before asking for its frame */
	uint64_t phys = 0, expect = 0;
	for (size_t o = 0; o < sz; o += (size_t)page) {
		uint64_t pa;
		r = ofl_pagemap_phys((char *)m + o, &pa, why, wl);
		if (r == -EFAULT) {
			/* just written, so mapped: a PFN mapping the pagemap walk skips */
			snprintf(why, wl, "dma-heap: %s maps its buffers as raw page-frame ranges, which "
				 "/proc/self/pagemap does not resolve: no physical address; use a CMA heap",
				 pool->heap);
			r = -ENOTSUP;
		}
		if (r == 0 && o && pa != expect) {
			snprintf(why, wl, "dma-heap: %s gave physically scattered pages (page %zu at 0x%" PRIx64
				 ", expected 0x%" PRIx64 "); use a CMA heap", pool->heap, o / (size_t)page, pa, expect);
			r = -ENOMEM;
		}
		if (r < 0) {
			munmap(m, sz);
			close((int)a.fd);
			return r;
		}
		if (!o)
			phys = pa;
		expect = pa + (uint64_t)page;
	}
	struct ofl_dma_region *g = region_of_map(OFL_DMA_HEAP, pool->o.cache, m, sz, m, sz, (int)a.fd, phys,
						 pool->heap, true);
	if (!g)
		return -ENOMEM;
	*out = g;
	return 0;
}

/* ------------------------------------------------------------- reserved-memory via /dev/mem */

static int rmem_open(struct ofl_dma_pool *pool, struct ofl_dma_region **out, char *why, size_t wl)
{
	void *cpu, *map;
	size_t map_len;
	int fd;

	int r = ofl_devmem_map(pool->o.rmem_addr, pool->o.rmem_size, true, &cpu, &map, &map_len, &fd,
			       why, wl);
	if (r < 0)
		return r;
	/* /dev/mem O_SYNC: never cached */
	struct ofl_dma_region *g = region_of_map(OFL_DMA_RMEM, OFFLOAD_CACHE_UNCACHED, map, map_len, cpu,
						 (size_t)pool->o.rmem_size, fd, pool->o.rmem_addr,
						 pool->o.rmem_name, false);
	if (!g)
		return -ENOMEM;
	*out = g;
	return 0;
}

/* ------------------------------------------------------------- pool */

static void region_close(struct ofl_dma_region *r)
{
	if (r->sim) {
		r->prov->mem_free(r->sim);
	} else if (r->map) {
		munmap(r->map, r->map_len);
	}
	if (r->map && r->fd >= 0)
		close(r->fd);
	for (struct arena_blk *b = r->free, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(r);
}

/*
 * Bus address of [phys, phys + len) when the device reaches all of it as one
 * window: both ends translate, the same distance apart. 0, or -ERANGE with
 * `why` saying what the device tree or the numbers say.
 */
static int xlate_range(const struct ofl_dma_pool *pool, uint64_t phys, uint64_t len, uint64_t *bus,
		       char *why, size_t wl)
{
	uint64_t b0 = phys, b1 = phys;
	char w[OFL_REASON_LEN] = "";
	int e = 0;

	if (len == 0 || phys + (len - 1) < phys) {
		snprintf(why, wl, "[0x%" PRIx64 ", +0x%" PRIx64 ") wraps the address space", phys, len);
		return -ERANGE;
	}
	if (pool->o.xlate) {
		e = pool->o.xlate(pool->o.xlate_arg, phys, &b0, w, sizeof(w));
		if (e == 0)
			e = pool->o.xlate(pool->o.xlate_arg, phys + (len - 1), &b1, w, sizeof(w));
		if (e == 0 && b1 - b0 != len - 1) {
			snprintf(w, sizeof(w), "its dma-ranges do not map it as one window");
			e = -ERANGE;
		}
	}
	if (e == 0 && ((b0 - phys) & 4095u)) {
		/* allocations are aligned (up to 4 KiB) in CPU addresses; the device must see the same */
		snprintf(w, sizeof(w), "dma-ranges map CPU 0x%" PRIx64 " to bus 0x%" PRIx64 ", an offset "
			 "that is not a multiple of 4 KiB (buffers would be misaligned for the device)", phys, b0);
		e = -ERANGE;
	}
	if (e == 0 && pool->o.bus_limit && b1 > pool->o.bus_limit) {
		snprintf(w, sizeof(w), "it sits at bus addresses up to 0x%" PRIx64 ", beyond %s (up to 0x%" PRIx64 ")",
			 b1, pool->o.bus_limit_why ? pool->o.bus_limit_why : "the device's DMA addressing",
			 pool->o.bus_limit);
		e = -ERANGE;
	}
	if (e < 0) {
		snprintf(why, wl, "memory at [0x%" PRIx64 ", +0x%" PRIx64 ") is out of the device's "
			 "reach: %s", phys, len, w[0] ? w : "not translatable");
		return -ERANGE;
	}
	*bus = b0;
	return 0;
}

/* The device reaches all of region r: r->bus; else -ENOMEM (memory it cannot use). */
static int region_bus(struct ofl_dma_pool *pool, struct ofl_dma_region *r, char *why, size_t wl)
{
	char w[OFL_REASON_LEN];

	if (xlate_range(pool, r->phys, r->size, &r->bus, w, sizeof(w)) == 0)
		return 0;
	snprintf(why, wl, "%s %s", ofl_dma_provider_name(r->kind), w);
	return -ENOMEM;
}

/*
 * Can the device reach the provider's memory at all? A device that cannot is
 * refused at probe (listed unusable with this reason) instead of failing
 * every copy later.
 */
static int check_reach(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	char w[OFL_REASON_LEN / 2]; /* leaves room for the words around it */
	uint64_t bus;

	switch (pool->provider) {
	case OFL_DMA_SIM: {
		uint64_t base, size;
		pool->prov->dram(pool->sim, &base, &size);
		size = OFL_MIN(size, OFL_MAX(pool->o.min_reach, (uint64_t)1 << 20));
		if (xlate_range(pool, base, size, &bus, w, sizeof(w)) < 0) {
			snprintf(why, wl, "the simulated DRAM window (where sim DMA memory comes from): %s", w);
			return -ENODEV;
		}
		return 0;
	}
	case OFL_DMA_UDMABUF: {
		struct ofl_udmabuf_info info[16];
		int n = OFL_MIN(ofl_udmabuf_scan(info, (int)OFL_ARRAY_SIZE(info)), (int)OFL_ARRAY_SIZE(info));
		for (int i = 0; i < n; i++)
			if (xlate_range(pool, info[i].phys, info[i].size, &bus, w, sizeof(w)) == 0)
				return 0;
		snprintf(why, wl, "no u-dma-buf buffer is reachable (%s)", n > 0 ? w : "none is listed");
		return -ENODEV;
	}
	case OFL_DMA_RMEM:
		if (xlate_range(pool, pool->o.rmem_addr, pool->o.rmem_size, &bus, w, sizeof(w)) < 0) {
			snprintf(why, wl, "reserved-memory %s: %s", pool->o.rmem_name, w);
			return -ENODEV;
		}
		return 0;
	case OFL_DMA_HEAP: {
		struct ofl_dma *d;
		int r = ofl_dma_alloc(pool, pool->line, 0, pool->o.cache, false, &d, w, sizeof(w));
		if (r < 0) {
			snprintf(why, wl, "a probe allocation failed: %s", w);
			return -ENODEV;
		}
		ofl_dma_free(d);
		return 0;
	}
	case OFL_DMA_PLAIN:
		break;
	}
	return 0;
}

static int pick_provider(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	const char *want = getenv("OFFLOAD_DMA_PROVIDER");
	struct ofl_udmabuf_info info[1];
	size_t off = 0;

	why[0] = '\0';
#define NOTE(...) (off += (size_t)snprintf(why + off, off < wl ? wl - off : 0, __VA_ARGS__))
	if (!want || strcmp(want, "u-dma-buf") == 0) {
		if (ofl_udmabuf_scan(info, 1) > 0) {
			pool->provider = OFL_DMA_UDMABUF;
			return 0;
		}
		NOTE("u-dma-buf: no buffers under %s/class/u-dma-buf (load the module: modprobe u-dma-buf "
		     "udmabuf0=SIZE); ", ofl_platform_roots()->sysfs);
	}
	if (!want || strcmp(want, "reserved-memory") == 0) {
		if (pool->o.rmem_size && devmem_allowed()) {
			pool->provider = OFL_DMA_RMEM;
			return 0;
		}
		NOTE("reserved-memory: %s; ", !pool->o.rmem_size ? "the device has no memory-region"
								 : "/dev/mem not enabled (OFFLOAD_DEVMEM=1)");
	}
	if (!want || strcmp(want, "dma-heap") == 0) {
		char denied[300], sys[300];
		if (heap_find(pool->heap, sizeof(pool->heap), denied, sizeof(denied)) == 0) {
			pool->provider = OFL_DMA_HEAP;
			return 0;
		}
		if (denied[0])
			NOTE("dma-heap: no usable heap (%s); ", denied);
		else if (ofl_path(sys, sizeof(sys), "%s/dma_heap/system", ofl_platform_roots()->dev) == 0 &&
			 access(sys, F_OK) == 0)
			NOTE("dma-heap: only %s, whose buffers are scattered pages without a physical "
			     "address: a CMA heap is needed (CONFIG_DMABUF_HEAPS_CMA); ", sys);
		else
			NOTE("dma-heap: no usable heap under %s/dma_heap; ", ofl_platform_roots()->dev);
	}
#undef NOTE
	if (off >= 2 && off < wl)
		why[off - 2] = '\0';
	return -ENODEV;
}

int ofl_dma_pool_new(const struct ofl_platform *p, const struct ofl_dma_pool_opts *o,
		     struct ofl_dma_pool **out, char *why, size_t wl)
{
	char w[OFL_REASON_LEN];
	struct ofl_dma_pool *pool = calloc(1, sizeof(*pool));

	if (!pool) {
		snprintf(why, wl, "out of memory for a DMA memory pool");
		return -ENOMEM;
	}
	pool->o = *o;
	ofl_strlcpy(pool->name, o->name ? o->name : "the device", sizeof(pool->name));
	pool->o.name = pool->name;
	pool->line = ofl_cache_line();
	pthread_mutex_init(&pool->mu, NULL);
	pthread_rwlock_init(&pool->users_lk, NULL);
	if (p->world) {
		pool->provider = OFL_DMA_SIM;
		pool->prov = p->sim;
		pool->sim = p->world;
		pool->line = p->sim->cache_line(p->world);
	} else {
		int r = pick_provider(pool, w, sizeof(w));
		if (r < 0) {
			snprintf(why, wl, "no DMA memory for %s: %s", pool->name, w);
			ofl_dma_pool_destroy(pool);
			return r;
		}
		if (o->cache == OFFLOAD_CACHE_STREAMING && !ofl_cache_ops_available() &&
		    pool->provider != OFL_DMA_UDMABUF && pool->provider != OFL_DMA_RMEM) {
			snprintf(why, wl, "%s needs cache maintenance, which user space cannot do on this CPU "
				 "and %s cannot do for it", pool->name, ofl_dma_provider_name(pool->provider));
			ofl_dma_pool_destroy(pool);
			return -ENOTSUP;
		}
	}
	snprintf(pool->desc, sizeof(pool->desc), "%s, %s", ofl_dma_provider_name(pool->provider),
		 o->cache == OFFLOAD_CACHE_COHERENT ? "coherent"
		 : o->cache == OFFLOAD_CACHE_STREAMING ? "streaming" : "uncached");
	int r = check_reach(pool, w, sizeof(w));
	if (r < 0) {
		snprintf(why, wl, "%s cannot reach its DMA memory: %s", pool->name, w);
		ofl_dma_pool_destroy(pool);
		return r;
	}
	*out = pool;
	return 0;
}

void ofl_dma_pool_destroy(struct ofl_dma_pool *pool)
{
	if (!pool)
		return;
	while (pool->users)
		ofl_dma_free(pool->users);
	for (struct ofl_dma_region *r = pool->regions, *n; r; r = n) {
		n = r->next;
		region_close(r);
	}
	pthread_mutex_destroy(&pool->mu);
	pthread_rwlock_destroy(&pool->users_lk);
	free(pool);
}

enum ofl_dma_provider ofl_dma_pool_provider(const struct ofl_dma_pool *pool)
{
	return pool->provider;
}

enum offload_cache_mode ofl_dma_pool_cache(const struct ofl_dma_pool *pool)
{
	return pool->o.cache;
}

const char *ofl_dma_pool_describe(const struct ofl_dma_pool *pool)
{
	return pool->desc;
}

/* A new region for `len` bytes of mode `mode`. pool->mu held. */
static int region_new(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
		      struct ofl_dma_region **out, char *why, size_t wl)
{
	struct ofl_dma_region *r = NULL;
	int e = -ENOMEM;

	switch (pool->provider) {
	case OFL_DMA_SIM: {
		enum ofl_sim_mem_mode sm = mode == OFFLOAD_CACHE_STREAMING ? OFL_SIM_MEM_NONCOHERENT
					   : mode == OFFLOAD_CACHE_UNCACHED ? OFL_SIM_MEM_UNCACHED
									    : OFL_SIM_MEM_COHERENT;
		void *cpu;
		uint64_t phys;
		struct ofl_sim_mem *m = pool->prov->mem_alloc(pool->sim, len, sm, &cpu, &phys);
		if (!m) {
			snprintf(why, wl, "sim: no simulated memory for %zu bytes", len);
			return -ENOMEM;
		}
		r = calloc(1, sizeof(*r));
		if (!r) {
			pool->prov->mem_free(m);
			return -ENOMEM;
		}
		r->kind = OFL_DMA_SIM;
		r->sim = m;
		r->prov = pool->prov;
		r->cpu = cpu;
		r->phys = phys;
		r->size = (len + pool->line - 1) & ~(pool->line - 1);
		r->map_cache = mode;
		r->fd = -1;
		r->whole = true;
		break;
	}
	case OFL_DMA_UDMABUF: {
		struct ofl_udmabuf_info info[16];
		int n = ofl_udmabuf_scan(info, (int)OFL_ARRAY_SIZE(info));
		char w[OFL_REASON_LEN];
		int unreachable = 0;
		snprintf(why, wl, "u-dma-buf: no free buffer of %zu bytes", len);
		for (int i = 0; i < OFL_MIN(n, (int)OFL_ARRAY_SIZE(info)); i++) {
			bool taken = false;
			for (struct ofl_dma_region *g = pool->regions; g; g = g->next)
				taken |= strcmp(g->name, info[i].name) == 0;
			uint64_t bus;
			if (taken || info[i].size < len)
				continue;
			if (xlate_range(pool, info[i].phys, info[i].size, &bus, w, sizeof(w)) < 0) {
				if (!unreachable++)
					snprintf(why, wl, "u-dma-buf: no free buffer of %zu bytes the device "
						 "reaches (%s: %s)", len, info[i].name, w);
				continue;
			}
			e = udmabuf_open(pool, &info[i], mode, &r, why, wl);
			if (e == 0)
				break;
		}
		if (!r)
			return e;
		break;
	}
	case OFL_DMA_HEAP:
		if (mode == OFFLOAD_CACHE_UNCACHED) {
			snprintf(why, wl, "dma-heap: no uncached mappings");
			return -ENOTSUP;
		}
		e = heap_alloc(pool, len, &r, why, wl);
		if (e < 0)
			return e;
		break;
	case OFL_DMA_RMEM:
		for (struct ofl_dma_region *g = pool->regions; g; g = g->next)
			if (g->kind == OFL_DMA_RMEM) {
				snprintf(why, wl, "reserved-memory %s: %zu of %zu bytes in use", g->name, g->used,
					 g->size);
				return -ENOMEM;
			}
		e = rmem_open(pool, &r, why, wl);
		if (e < 0)
			return e;
		break;
	case OFL_DMA_PLAIN:
		snprintf(why, wl, "plain memory has no bus address");
		return -ENOTSUP;
	}
	if (!r)
		return -ENOMEM;
	e = region_bus(pool, r, why, wl);
	if (e == 0 && !r->whole)
		e = arena_init(r);
	if (e < 0) {
		region_close(r);
		return e;
	}
	r->next = pool->regions;
	pool->regions = r;
	*out = r;
	return 0;
}

int ofl_dma_alloc(struct ofl_dma_pool *pool, size_t len, size_t align, enum offload_cache_mode cache,
		  bool user, struct ofl_dma **out, char *why, size_t wl)
{
	struct ofl_dma_region *r = NULL;
	size_t off = 0;
	int e = 0;

	why[0] = '\0';
	/* Above SIZE_MAX / 2 the rounding below would wrap to a tiny length. */
	if (len == 0 || len > SIZE_MAX / 2 || (align & (align - 1)) || align > 4096) {
		snprintf(why, wl, "bad length %zu or alignment %zu", len, align);
		return -EINVAL;
	}
	align = OFL_MAX(align, pool->line);
	len = (len + pool->line - 1) & ~(pool->line - 1);
	/* A coherent device needs no uncached memory: its caches are snooped. */
	if (pool->o.cache == OFFLOAD_CACHE_COHERENT)
		cache = OFFLOAD_CACHE_COHERENT;
	struct ofl_dma *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&pool->mu);
	for (r = pool->regions; r; r = r->next)
		if (!r->whole && (r->map_cache == cache || r->kind == OFL_DMA_RMEM) &&
		    arena_alloc(r, len, align, &off) == 0)
			break;
	if (!r) {
		e = region_new(pool, len, cache, &r, why, wl);
		if (e == 0 && !r->whole)
			e = arena_alloc(r, len, align, &off);
		if (e < 0 && !why[0])
			snprintf(why, wl, "%s: %zu bytes do not fit", ofl_dma_provider_name(pool->provider), len);
	}
	pthread_mutex_unlock(&pool->mu);
	if (e < 0) {
		free(d);
		return e;
	}
	d->region = r;
	d->pool = pool;
	d->off = off;
	d->len = len;
	d->cpu = r->cpu + off;
	d->bus = r->bus + off;
	d->cache = r->map_cache;
	if (pool->o.cache == OFFLOAD_CACHE_COHERENT)
		d->cache = OFFLOAD_CACHE_COHERENT;
	if (!r->whole)
		memset(d->cpu, 0, len);
	if (user) {
		pthread_rwlock_wrlock(&pool->users_lk);
		d->next = pool->users;
		if (d->next)
			d->next->prev = d;
		pool->users = d;
		atomic_fetch_add_explicit(&pool->gen, 1, memory_order_release);
		pthread_rwlock_unlock(&pool->users_lk);
	}
	*out = d;
	return 0;
}

void ofl_dma_free(struct ofl_dma *d)
{
	if (!d)
		return;
	struct ofl_dma_pool *pool = d->pool;
	pthread_rwlock_wrlock(&pool->users_lk);
	if (d->prev || pool->users == d) {
		if (d->prev)
			d->prev->next = d->next;
		else
			pool->users = d->next;
		if (d->next)
			d->next->prev = d->prev;
		atomic_fetch_add_explicit(&pool->gen, 1, memory_order_release);
	}
	pthread_rwlock_unlock(&pool->users_lk);
	pthread_mutex_lock(&pool->mu);
	struct ofl_dma_region *r = d->region;
	if (r->whole) {
		for (struct ofl_dma_region **pp = &pool->regions; *pp; pp = &(*pp)->next)
			if (*pp == r) {
				*pp = r->next;
				break;
			}
		region_close(r);
	} else {
		arena_free(r, d->off, d->len);
	}
	pthread_mutex_unlock(&pool->mu);
	free(d);
}

static bool holds(const struct ofl_dma *d, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, s = (uintptr_t)d->cpu;

	return a >= s && len <= d->len && a - s <= d->len - len;
}

struct ofl_dma *ofl_dma_lookup(struct ofl_dma_pool *pool, const void *p, size_t len)
{
	struct ofl_dma *found = NULL;

	pthread_rwlock_rdlock(&pool->users_lk);
	for (struct ofl_dma *d = pool->users; d; d = d->next) {
		if (holds(d, p, len)) {
			found = d;
			break;
		}
	}
	pthread_rwlock_unlock(&pool->users_lk);
	return found;
}

struct ofl_dma *ofl_dma_lookup_hint(struct ofl_dma_pool *pool, const void *p, size_t len,
				    struct ofl_dma_hint *h)
{
	uint64_t gen = atomic_load_explicit(&pool->gen, memory_order_acquire);

	if (h->d && h->gen == gen && holds(h->d, p, len))
		return h->d;
	struct ofl_dma *d = ofl_dma_lookup(pool, p, len);
	if (d) {
		h->d = d;
		h->gen = gen;
	}
	return d;
}

/* ------------------------------------------------------------- sync */

static void count(struct ofl_dma *d, bool inval, size_t off, size_t len, uint64_t t0)
{
	struct ofl_dev_counters *c = d->pool->o.stats;
	size_t line = d->pool->line;
	size_t s = off & ~(line - 1), e = (off + len + line - 1) & ~(line - 1);

	if (!c)
		return;
	atomic_fetch_add_explicit(inval ? &c->cache_inval_calls : &c->cache_clean_calls, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&c->cache_bytes, e - s, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->cache_ns, ofl_now_ns() - t0, memory_order_relaxed);
}

void ofl_dma_sync_range(struct ofl_dma *d, size_t off, size_t len, bool for_cpu)
{
	struct ofl_dma_region *r = d->region;
	uint64_t t0 = ofl_now_ns();
	size_t roff = d->off + off;

	switch (r->kind) {
	case OFL_DMA_SIM:
		/*
		 * This CPU's own maintenance of the same lines first, so that cache_ns
		 * on a model includes what the instructions cost here (sim); then the
		 * model's emulation of them.
		 */
		if (ofl_cache_ops_available()) {
			if (for_cpu)
				ofl_cache_clean_inval(r->cpu + roff, len);
			else
				ofl_cache_clean(r->cpu + roff, len);
		}
		if (for_cpu)
			r->prov->mem_inval(r->sim, roff, len);
		else
			r->prov->mem_clean(r->sim, roff, len);
		break;
	case OFL_DMA_UDMABUF:
		if (!ofl_cache_ops_available()) {
			udmabuf_kernel_sync(r, roff, len, for_cpu);
			break;
		}
		/* fall through */
	case OFL_DMA_HEAP:
	case OFL_DMA_RMEM:
	case OFL_DMA_PLAIN:
		if (for_cpu)
			ofl_cache_clean_inval(r->cpu + roff, len);
		else
			ofl_cache_clean(r->cpu + roff, len);
		break;
	}
	count(d, for_cpu, roff, len, t0);
}
