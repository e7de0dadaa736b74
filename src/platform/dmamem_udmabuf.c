/* SPDX-License-Identifier: MIT */
/*
 * DMA memory from u-dma-buf (dmamem_int.h): physically contiguous buffers
 * the module reserved at load (modprobe u-dma-buf udmabuf0=SIZE), each
 * /dev/<name> with its physical address and a kernel-side sync in
 * /sys/class/u-dma-buf/<name> (u-dma-buf's README: phys_addr, size,
 * dma_coherent, sync_offset / sync_size / sync_direction / sync_for_cpu /
 * sync_for_device). A buffer is a region shared by many allocations.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/dmamem_int.h"
#include "platform/sysfs.h"
#include "util/util.h"

/* The class directory: "u-dma-buf", or "udmabuf" as older releases of the module name it. */
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

/*
 * Ask for the write-combine sync mode before an uncached (O_SYNC) mapping:
 * u-dma-buf maps O_SYNC by its sync_mode (u-dma-buf.c udmabuf_object_mmap():
 * 1 NONCACHED, the default -> _PGPROT_NONCACHED, which is pgprot_noncached,
 * Device-nGnRnE, on arm64 in some releases; 2 WRITECOMBINE ->
 * _PGPROT_WRITECOMBINE, Normal non-cacheable, as Linux's own coherent
 * memory). Best effort: releases without a writable sync_mode keep
 * theirs, and the library's accesses to uncached memory are safe on either
 * (enum ofl_dma_access).
 */
static void udmabuf_ask_normal_nc(const char *sysdir)
{
	char p[PATH_MAX_OFL];

	if (sysdir[0] && ofl_path(p, sizeof(p), "%s/sync_mode", sysdir) == 0)
		ofl_write_text(p, "2");
}

/* Open and map u-dma-buf `info` (O_SYNC for an uncached mapping), locked against other users. */
static int udmabuf_open(const struct ofl_udmabuf_info *info, enum offload_cache_mode mode,
			struct ofl_dma_region **out, char *why, size_t wl)
{
	char path[PATH_MAX_OFL], sysdir[PATH_MAX_OFL] = "";
	int flags = O_RDWR | O_CLOEXEC | (mode == OFFLOAD_CACHE_UNCACHED ? O_SYNC : 0);

	if (ofl_path(path, sizeof(path), "%s/%s", ofl_platform_roots()->dev, info->name) < 0)
		return -ENAMETOOLONG;
	if (udmabuf_sysdir(info->name, sysdir, sizeof(sysdir)) < 0)
		sysdir[0] = '\0';
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
	if (mode == OFFLOAD_CACHE_UNCACHED)
		udmabuf_ask_normal_nc(sysdir); /* read at mmap(), which comes next */
	void *m = mmap(NULL, info->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		snprintf(why, wl, "u-dma-buf: cannot map %s (%" PRIu64 " bytes): %s", path, info->size,
			 strerror(errno));
		close(fd);
		return -ENOMEM;
	}
	struct ofl_dma_region *r = ofl_dma_region_of_map(OFL_DMA_UDMABUF, mode, m, info->size, m, info->size,
							 fd, info->phys, info->name, false);
	if (!r)
		return -ENOMEM;
	ofl_strlcpy(r->sysdir, sysdir, sizeof(r->sysdir));
	*out = r;
	return 0;
}

static int udmabuf_select(struct ofl_dma_pool *pool, char *note, size_t nl)
{
	struct ofl_udmabuf_info info[1];

	OFL_UNUSED(pool);
	if (ofl_udmabuf_scan(info, 1) > 0)
		return 0;
	snprintf(note, nl, "u-dma-buf: no buffers under %s/class/u-dma-buf (load the module: modprobe "
		 "u-dma-buf udmabuf0=SIZE)", ofl_platform_roots()->sysfs);
	return -ENODEV;
}

static int udmabuf_reach(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	char w[OFL_REASON_LEN / 2]; /* leaves room for the words around it */
	struct ofl_udmabuf_info info[16];
	uint64_t bus;
	int n = OFL_MIN(ofl_udmabuf_scan(info, (int)OFL_ARRAY_SIZE(info)), (int)OFL_ARRAY_SIZE(info));

	for (int i = 0; i < n; i++)
		if (ofl_dma_xlate_range(pool, info[i].phys, info[i].size, &bus, w, sizeof(w)) == 0)
			return 0;
	snprintf(why, wl, "no u-dma-buf buffer is reachable (%s)", n > 0 ? w : "none is listed");
	return -ENODEV;
}

/* The first buffer no region of the pool holds, large enough and in the device's reach. */
static int udmabuf_region(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
			  struct ofl_dma_region **out, char *why, size_t wl)
{
	struct ofl_udmabuf_info info[16];
	int n = ofl_udmabuf_scan(info, (int)OFL_ARRAY_SIZE(info));
	char w[OFL_REASON_LEN];
	int unreachable = 0, e = -ENOMEM;

	snprintf(why, wl, "u-dma-buf: no free buffer of %zu bytes", len);
	for (int i = 0; i < OFL_MIN(n, (int)OFL_ARRAY_SIZE(info)); i++) {
		bool taken = false;
		for (struct ofl_dma_region *g = pool->regions; g; g = g->next)
			taken |= strcmp(g->name, info[i].name) == 0;
		uint64_t bus;
		if (taken || info[i].size < len)
			continue;
		if (ofl_dma_xlate_range(pool, info[i].phys, info[i].size, &bus, w, sizeof(w)) < 0) {
			if (!unreachable++)
				snprintf(why, wl, "u-dma-buf: no free buffer of %zu bytes the device reaches "
					 "(%s: %s)", len, info[i].name, w);
			continue;
		}
		e = udmabuf_open(&info[i], mode, out, why, wl);
		if (e == 0)
			return 0;
	}
	return e;
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

/* This CPU's cache instructions where it has them, else the kernel's. */
static void udmabuf_sync(struct ofl_dma_region *r, size_t off, size_t len, bool for_cpu)
{
	if (ofl_cache_ops_available())
		ofl_dma_cpu_sync(r, off, len, for_cpu);
	else
		udmabuf_kernel_sync(r, off, len, for_cpu);
}

const struct ofl_dma_provider_ops ofl_dma_udmabuf_ops = {
	.kind = OFL_DMA_UDMABUF,
	.select = udmabuf_select,
	.reach = udmabuf_reach,
	.region = udmabuf_region,
	.sync = udmabuf_sync,
	.maintains = true,
};
