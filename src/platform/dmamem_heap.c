/* SPDX-License-Identifier: MIT */
/*
 * DMA memory from a CMA dma-heap (dmamem_int.h): /dev/dma_heap/<heap>
 * (DMA_HEAP_IOCTL_ALLOC, include/uapi/linux/dma-heap.h), its physical
 * address read from /proc/self/pagemap (which needs CAP_SYS_ADMIN). One
 * region per allocation; no uncached mappings.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-heap.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/dmamem_int.h"
#include "util/util.h"

int ofl_pagemap_phys(const void *p, uint64_t *phys, char *why, size_t wl)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;
	int fd = open(ofl_platform_roots()->pagemap, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, wl, "cannot open %s: %s", ofl_platform_roots()->pagemap, strerror(errno));
		return -errno;
	}
	/* Documentation/admin-guide/mm/pagemap.rst: 8 bytes per page, bit 63 present, bits 0-54 PFN */
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

static int heap_select(struct ofl_dma_pool *pool, char *note, size_t nl)
{
	char denied[300], sys[300];

	if (heap_find(pool->heap, sizeof(pool->heap), denied, sizeof(denied)) == 0)
		return 0;
	if (denied[0])
		snprintf(note, nl, "dma-heap: no usable heap (%s)", denied);
	else if (ofl_path(sys, sizeof(sys), "%s/dma_heap/system", ofl_platform_roots()->dev) == 0 &&
		 access(sys, F_OK) == 0)
		snprintf(note, nl, "dma-heap: only %s, whose buffers are scattered pages without a physical "
			 "address: a CMA heap is needed (CONFIG_DMABUF_HEAPS_CMA)", sys);
	else
		snprintf(note, nl, "dma-heap: no usable heap under %s/dma_heap", ofl_platform_roots()->dev);
	return -ENODEV;
}

static int heap_region(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
		       struct ofl_dma_region **out, char *why, size_t wl)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = (len + (size_t)page - 1) & ~((size_t)page - 1);

	if (mode == OFFLOAD_CACHE_UNCACHED) {
		snprintf(why, wl, "dma-heap: no uncached mappings");
		return -ENOTSUP;
	}
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
	*out = ofl_dma_region_of_map(OFL_DMA_HEAP, pool->o.cache, m, sz, m, sz, (int)a.fd, phys, pool->heap,
				     true);
	return *out ? 0 : -ENOMEM;
}

/* A probe allocation: the heap works, and the device reaches what it gives. */
static int heap_reach(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	char w[OFL_REASON_LEN / 2];
	struct ofl_dma *d;

	if (ofl_dma_alloc(pool, pool->line, 0, pool->o.cache, false, &d, w, sizeof(w)) < 0) {
		snprintf(why, wl, "a probe allocation failed: %s", w);
		return -ENODEV;
	}
	ofl_dma_free(d);
	return 0;
}

const struct ofl_dma_provider_ops ofl_dma_heap_ops = {
	.kind = OFL_DMA_HEAP,
	.select = heap_select,
	.reach = heap_reach,
	.region = heap_region,
};
