/* SPDX-License-Identifier: MIT */
/*
 * Guest-only checks of the platform layer on a real arm64 kernel (qemu virt,
 * tests/qemu/kernel-test.sh --machine virt-arm64, suite mem; a plain
 * program: exit 0 pass, 1 failure, 77 the kernel lacks what it needs).
 *
 *  1. Cache maintenance from EL0 (src/platform/cache.c): DC CVAC and DC
 *     CIVAC by address over whole and partial lines, executed under Linux
 *     (SCTLR_EL1.UCI set by the kernel, arch/arm64/kernel/cpufeature.c), with
 *     the data intact afterwards; the line size the library steps by is a
 *     power of two no larger than the kernel's own L1 data line
 *     (/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size,
 *     drivers/base/cacheinfo.c) where the kernel reports one. QEMU models no
 *     caches: this proves the instructions run at EL0, not coherency.
 *  2. udmabuf buffers (OFFLOAD_BUF_DMABUF_UDMABUF): Debian's arm64 kernel
 *     has /dev/udmabuf (CONFIG_UDMABUF=y) and no dma-heap; the data written
 *     through the library's mapping is seen through a second mmap() of the
 *     dma-buf fd, syncs succeed, freeing closes every descriptor.
 *  3. Reserved memory of the device tree through /dev/mem: the node
 *     kernel-test.sh adds (reserved-memory/offload@70000000, no-map) is read
 *     from /proc/device-tree by this file's own parser (two-cell address and
 *     size, big-endian: Devicetree Specification 2.3.6, 3.5.2); the provider
 *     allocates from it with OFFLOAD_DEVMEM=1 and every buffer is read back
 *     through pread() of /dev/mem at its bus address.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/internal.h"
#include "platform/platform.h"

#include "guest.h"

#define SKIP 77
#define RMEM_DIR "/proc/device-tree/reserved-memory"

static offload_ctx *ctx;

static uint8_t pat(size_t i, unsigned seed)
{
	return (uint8_t)(i * 13u + seed * 101u + (i >> 9));
}

/* ------------------------------------------------------------ 1. cache maintenance */

static void cache_ops(void)
{
	size_t line = ofl_cache_line(), n = (size_t)1 << 20;
	uint8_t *b = malloc(n);
	FILE *f;
	unsigned kline = 0;

	CHECK(ofl_cache_ops_available(), "arm64 user space has cache maintenance, the library says not");
	CHECK(line >= 16 && line <= 2048 && (line & (line - 1)) == 0, "line size %zu", line);
	f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", "r");
	if (f && fscanf(f, "%u", &kline) == 1)
		CHECK(line <= kline, "the library steps by %zu bytes, the kernel's L1D line is %u", line,
		      kline);
	else
		printf("note: the kernel reports no cacheinfo for cpu0 (QEMU virt has no cache "
		       "description); the line size is checked for shape only\n");
	if (f)
		fclose(f);
	if (!b) {
		CHECK(0, "no memory");
		return;
	}
	for (size_t i = 0; i < n; i++)
		b[i] = pat(i, 1);
	int mark = failures;
	ofl_cache_clean(b, n);
	ofl_cache_clean_inval(b, n);
	/* partial lines at both ends, a single byte, a range across a page */
	ofl_cache_clean(b + 1, line);
	ofl_cache_clean_inval(b + line - 1, 2);
	ofl_cache_clean_inval(b + 4095, 3);
	ofl_cache_clean(b + n - 1, 1);
	size_t diff = 0;
	for (size_t i = 0; i < n; i++)
		diff += b[i] != pat(i, 1);
	CHECK(diff == 0, "%zu bytes changed by cache maintenance", diff);
	OK_SINCE(mark, "ok   DC CVAC / DC CIVAC from EL0 over 1 MiB and partial lines (line %zu bytes), "
		 "data intact\n", line);
	free(b);
}

/* ------------------------------------------------------------ 2. udmabuf */

static void udmabuf_buffers(void)
{
	size_t n = 64 * 1024;
	offload_buf *b = NULL;
	int fds = count_fds();

	if (access("/dev/udmabuf", F_OK) != 0) {
		CHECK(0, "no /dev/udmabuf (Debian's arm64 kernel has CONFIG_UDMABUF=y)");
		return;
	}
	int mark = failures;
	int r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, n, OFFLOAD_BUF_DMABUF_UDMABUF, &b);
	CHECK(r == 0, "udmabuf alloc: %d %s", r, offload_last_error(ctx));
	if (r)
		return;
	int fd = offload_buf_dmabuf_fd(b);
	const char *exp = offload_buf_dmabuf_exporter(b);
	CHECK(fd >= 0 && exp && strcmp(exp, "udmabuf") == 0, "fd %d, exporter %s", fd,
	      exp ? exp : "(none)");
	uint8_t *p = offload_buf_ptr(b);
	CHECK(p && offload_buf_size(b) >= n, "mapping %p of %zu bytes", (void *)p, offload_buf_size(b));
	if (p && fd >= 0) {
		CHECK(offload_buf_sync_for_cpu(b, 0, n, OFFLOAD_DMA_BIDIRECTIONAL) == 0, "sync for cpu: %s",
		      offload_last_error(ctx));
		for (size_t i = 0; i < n; i++)
			p[i] = pat(i, 2);
		CHECK(offload_buf_sync_for_device(b, 0, n, OFFLOAD_DMA_BIDIRECTIONAL) == 0,
		      "sync for device: %s", offload_last_error(ctx));
		uint8_t *q = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
		CHECK(q != MAP_FAILED, "a second mmap of the dma-buf: %s", strerror(errno));
		if (q != MAP_FAILED) {
			size_t diff = 0;
			for (size_t i = 0; i < n; i++)
				diff += q[i] != pat(i, 2);
			CHECK(diff == 0, "%zu bytes differ through the second mapping", diff);
			munmap(q, n);
		}
	}
	CHECK(offload_buf_free(b) == 0, "free: %s", offload_last_error(ctx));
	CHECK(count_fds() == fds, "descriptors: %d before, %d after", fds, count_fds());
	OK_SINCE(mark, "ok   udmabuf: 64 KiB written through the library's mapping, read through "
		 "a second mmap of its fd; syncs, free\n");
}

/* ------------------------------------------------------------ 3. reserved memory */

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The first reserved-memory child named offload@...: its reg (2 + 2 cells) and no-map. */
static bool find_rmem(uint64_t *addr, uint64_t *size, char *name, size_t nl)
{
	DIR *d = opendir(RMEM_DIR);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		char p[512];
		uint8_t reg[16];
		if (strncmp(e->d_name, "offload@", 8) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s/reg", RMEM_DIR, e->d_name);
		FILE *f = fopen(p, "rb");
		if (!f)
			continue;
		size_t got = fread(reg, 1, sizeof(reg), f);
		fclose(f);
		snprintf(p, sizeof(p), "%s/%s/no-map", RMEM_DIR, e->d_name);
		if (got == sizeof(reg) && access(p, F_OK) == 0) {
			*addr = be64_at(reg);
			*size = be64_at(reg + 8);
			ofl_strlcpy(name, e->d_name, nl);
			found = true;
		}
	}
	closedir(d);
	return found;
}

static void reserved_memory(void)
{
	static const size_t sizes[] = { 4096, 64 * 1024, 1024 * 1024 };
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_STREAMING };
	struct ofl_dma *d[3] = { NULL, NULL, NULL };
	struct ofl_dma_pool *pool = NULL;
	struct ofl_device *dev = calloc(1, sizeof(*dev));
	char why[256];

	if (!find_rmem(&o.rmem_addr, &o.rmem_size, o.rmem_name, sizeof(o.rmem_name))) {
		CHECK(0, "no " RMEM_DIR "/offload@... node with reg and no-map (kernel-test.sh adds it)");
		free(dev);
		return;
	}
	printf("     region %s: 0x%" PRIx64 "+0x%" PRIx64 " from the live device tree\n", o.rmem_name,
	       o.rmem_addr, o.rmem_size);
	if (!dev) {
		CHECK(0, "no memory");
		return;
	}
	dev->ctx = ctx; /* a stand-in for the direct backend's device that would own the pool */
	ofl_strlcpy(dev->name, "guest-dma", sizeof(dev->name));
	int r = ofl_dma_pool_create(dev, &o, &pool);
	CHECK(r == 0 && ofl_dma_pool_provider(pool) == OFL_DMA_RMEM, "pool: %d %s", r,
	      offload_last_error(ctx));
	for (int i = 0; r == 0 && i < 3; i++) {
		int mark = failures;
		int a = ofl_dma_alloc(pool, sizes[i], 4096, OFFLOAD_CACHE_STREAMING, true, &d[i], why,
				      sizeof(why));
		CHECK(a == 0, "alloc %zu: %d %s", sizes[i], a, why);
		if (a)
			continue;
		CHECK(d[i]->bus >= o.rmem_addr && d[i]->bus + d[i]->len <= o.rmem_addr + o.rmem_size,
		      "buffer %d at 0x%" PRIx64 "+%zu is outside the region", i, d[i]->bus, d[i]->len);
		for (size_t k = 0; k < sizes[i]; k++)
			((uint8_t *)d[i]->cpu)[k] = pat(k, 3u + (unsigned)i);
		uint8_t *back = malloc(sizes[i]);
		size_t diff = 0;
		CHECK(back && devmem_read(d[i]->bus, back, sizes[i]), "pread of /dev/mem at 0x%" PRIx64,
		      d[i]->bus);
		for (size_t k = 0; back && k < sizes[i]; k++)
			diff += back[k] != pat(k, 3u + (unsigned)i);
		CHECK(diff == 0, "buffer %d: %zu bytes differ between its mapping and /dev/mem", i, diff);
		free(back);
		OK_SINCE(mark, "ok   reserved memory: %zu bytes at bus 0x%" PRIx64
			 " read back through /dev/mem\n", sizes[i], d[i]->bus);
	}
	for (int i = 0; i < 3; i++)
		if (d[i])
			ofl_dma_free(d[i]);
	if (pool)
		ofl_dma_pool_destroy(pool);
	free(dev);
}

int main(void)
{
	if (getuid() != 0) {
		printf("FAIL: run as root (the guest's /init does)\n");
		return 1;
	}
	setenv("OFFLOAD_DEVMEM", "1", 1); /* reserved memory through /dev/mem is opt-in */
	ctx = guest_ctx_open();
	if (!ctx)
		return 1;
	printf("--- 1. cache maintenance from EL0\n");
	cache_ops();
	printf("--- 2. udmabuf buffers\n");
	udmabuf_buffers();
	printf("--- 3. reserved memory of the device tree through /dev/mem\n");
	reserved_memory();
	offload_ctx_free(ctx);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
