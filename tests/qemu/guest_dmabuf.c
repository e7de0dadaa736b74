/* SPDX-License-Identifier: MIT */
/*
 * Guest-only checks of the platform layer's DMA memory (src/platform/
 * dmamem.c) against what a real kernel offers, run as root in the qemu guest
 * (tests/qemu/kernel-test.sh, suite dmabuf; a plain program: exit 0 pass,
 * 1 failure, 77 the kernel lacks the dma-heap interface).
 *
 *  1. dma-heap: this kernel (Debian 6.12) has only the system heap. The
 *     kernel facts that make it unusable for a direct backend are checked
 *     first with raw calls (DMA_HEAP_IOCTL_ALLOC, mmap, DMA_BUF_IOCTL_SYNC
 *     around the CPU access, then /proc/self/pagemap: no frame for the
 *     mapping); the provider must then refuse it and say why.
 *  2. reserved memory through /dev/mem: the kernel command line carries
 *     memmap=SIZE!ADDR (RAM turned into a region no driver claims, as a
 *     device-tree reserved-memory node would be). With OFFLOAD_DEVMEM=1 the
 *     provider allocates from it; every buffer is checked through a second,
 *     independent path (pread of /dev/mem at its bus address), and freeing
 *     and reuse, exhaustion and leaks are checked.
 *  3. size limits; 4. no device node, u-dma-buf absent; 5. an unprivileged
 *     process (uid 65534) facing root-only nodes (the real /dev/mem, a
 *     stand-in CMA heap node): each refused, with the reason in the message.
 *
 * Independent evidence is this file's own: pagemap reads (Documentation/
 * admin-guide/mm/pagemap.rst: bit 63 present, bits 0-54 the frame), /dev/mem
 * reads, counts of open descriptors (/proc/self/fd) and mappings
 * (/proc/self/maps).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "platform/platform.h"

#include "guest.h"

#define SKIP 77
#define HEAP "/dev/dma_heap/system"
#define NOBODY 65534


static offload_ctx *ctx;
static struct ofl_device *dev;
static uint64_t rmem_addr, rmem_size; /* from memmap= on the command line */

/* ------------------------------------------------------------ evidence */

/* Physical address of p from this process's own pagemap read; 0 if hidden or absent. */
static uint64_t phys_of(const void *p)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / (uintptr_t)page * 8u));
	close(fd);
	if (n != (ssize_t)sizeof(e) || !(e >> 63))
		return 0;
	uint64_t pfn = e & ((1ull << 55) - 1);
	return pfn ? pfn * (uint64_t)page + (uintptr_t)p % (uintptr_t)page : 0;
}

static int count_fds(void)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* Mappings of this process whose line in /proc/self/maps contains what. */
static int count_maps(const char *what)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* memmap=SIZE[KMG]!ADDR from /proc/cmdline (the region kernel-test.sh reserves). */
static bool find_memmap(void)
{
	FILE *f = fopen("/proc/cmdline", "r");
	char line[1024], unit = 0;
	unsigned long long size, addr;

	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return false;
	}
	fclose(f);
	const char *m = strstr(line, "memmap=");
	if (!m || sscanf(m, "memmap=%llu%c!%llx", &size, &unit, &addr) != 3)
		return false;
	size <<= unit == 'G' ? 30 : unit == 'M' ? 20 : unit == 'K' ? 10 : 0;
	rmem_addr = addr;
	rmem_size = size;
	return true;
}

/* Bytes at physical address pa through /dev/mem, independently of any mapping. */
static bool devmem_read(uint64_t pa, void *buf, size_t n)
{
	int fd = open("/dev/mem", O_RDONLY | O_SYNC);
	bool ok = fd >= 0 && pread(fd, buf, n, (off_t)pa) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok;
}

static int pool_new(enum offload_cache_mode cache, bool rmem, struct ofl_dma_pool **pool)
{
	struct ofl_dma_pool_opts o = { .cache = cache };

	if (rmem) {
		o.rmem_addr = rmem_addr;
		o.rmem_size = rmem_size;
		snprintf(o.rmem_name, sizeof(o.rmem_name), "memmap");
	}
	*pool = NULL;
	return ofl_dma_pool_create(dev, &o, pool);
}

/* ------------------------------------------------------------ 1. dma-heap */

/* What the kernel does with a system-heap buffer, with raw calls. */
static void system_heap_facts(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 2 * (size_t)page;
	int h = open(HEAP, O_RDWR | O_CLOEXEC);
	struct dma_heap_allocation_data a = { .len = len, .fd_flags = O_RDWR | O_CLOEXEC };
	int mark = failures;

	CHECK(h >= 0 && ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a) == 0, "raw DMA_HEAP_IOCTL_ALLOC: %s",
	      strerror(errno));
	if (h >= 0)
		close(h);
	if (a.fd == 0)
		return;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)a.fd, 0);
	CHECK(m != MAP_FAILED, "mmap of the dma-buf: %s", strerror(errno));
	if (m != MAP_FAILED) {
		struct dma_buf_sync sy = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
		CHECK(ioctl((int)a.fd, DMA_BUF_IOCTL_SYNC, &sy) == 0, "DMA_BUF_SYNC_START: %s",
		      strerror(errno));
		memset(m, 0xa5, len);
		sy.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
		CHECK(ioctl((int)a.fd, DMA_BUF_IOCTL_SYNC, &sy) == 0, "DMA_BUF_SYNC_END: %s",
		      strerror(errno));
		sy.flags = 0x100; /* no such flag: the kernel refuses it */
		CHECK(ioctl((int)a.fd, DMA_BUF_IOCTL_SYNC, &sy) < 0 && errno == EINVAL,
		      "DMA_BUF_IOCTL_SYNC with a bad flag was accepted");
		CHECK(m[len - 1] == 0xa5, "the CPU's data did not stay");
		/* written, so mapped; yet the pagemap walk skips the PFN mapping */
		CHECK(phys_of(m) == 0 && phys_of(m + page) == 0,
		      "pagemap resolves a system-heap mapping (0x%" PRIx64 "): the provider's reason "
		      "to refuse the system heap no longer holds", phys_of(m));
		OK_SINCE(mark, "ok   kernel: system-heap buffer allocated, mapped, synced (START/END); pagemap "
		       "gives no frame for it\n");
		munmap(m, len);
	}
	close((int)a.fd);
}

static void dma_heap(void)
{
	struct ofl_dma_pool *pool;

	system_heap_facts();
	int mark = failures;
	setenv("OFFLOAD_DMA_PROVIDER", "dma-heap", 1);
	int r = pool_new(OFFLOAD_CACHE_COHERENT, false, &pool);
	const char *msg = offload_last_error(ctx);
	CHECK(r == -ENODEV && strstr(msg, "only " HEAP) && strstr(msg, "CMA"),
	      "dma-heap with only the system heap: %d (%s), want -ENODEV naming " HEAP " and CMA", r,
	      msg);
	OK_SINCE(mark, "ok   dma-heap provider: %s\n", msg);
	if (r == 0)
		ofl_dma_pool_destroy(pool);
	unsetenv("OFFLOAD_DMA_PROVIDER");
}

/* ------------------------------------------------------------ 2. reserved memory */

static void reserved_memory(void)
{
	static const size_t sizes[] = { 4096, 64 * 1024, 1024 * 1024 };
	struct ofl_dma *d[3] = { NULL, NULL, NULL }, *e = NULL;
	struct ofl_dma_pool *pool;
	char why[256];
	int fds = count_fds(), maps = count_maps("/dev/mem");

	int r = pool_new(OFFLOAD_CACHE_STREAMING, true, &pool);
	CHECK(r == 0 && ofl_dma_pool_provider(pool) == OFL_DMA_RMEM, "pool: %d %s", r,
	      offload_last_error(ctx));
	if (r)
		return;
	printf("     pool: %s; region 0x%" PRIx64 "+0x%" PRIx64 "\n", ofl_dma_pool_describe(pool),
	       rmem_addr, rmem_size);
	for (int i = 0; i < 3; i++) {
		r = ofl_dma_alloc(pool, sizes[i], 4096, OFFLOAD_CACHE_STREAMING, true, &d[i], why,
				  sizeof(why));
		CHECK(r == 0, "alloc %zu: %d %s", sizes[i], r, why);
		if (r)
			continue;
		CHECK(d[i]->bus >= rmem_addr && d[i]->bus + d[i]->len <= rmem_addr + rmem_size &&
		      d[i]->bus % 4096 == 0 && d[i]->len >= sizes[i],
		      "buffer %d at 0x%" PRIx64 "+%zu is not a 4 KiB-aligned part of the region", i,
		      d[i]->bus, d[i]->len);
		CHECK(d[i]->cache == OFFLOAD_CACHE_UNCACHED, "a /dev/mem O_SYNC mapping is uncached");
		for (size_t k = 0; k < sizes[i]; k++)
			((uint8_t *)d[i]->cpu)[k] = (uint8_t)(k * 7 + (size_t)i * 31 + 1);
	}
	for (int i = 0; i < 3; i++) {
		if (!d[i])
			continue;
		int mark = failures;
		for (int j = 0; j < i; j++)
			CHECK(!d[j] || d[j]->bus + d[j]->len <= d[i]->bus ||
				      d[i]->bus + d[i]->len <= d[j]->bus,
			      "buffers %d and %d overlap", i, j);
		uint8_t *back = malloc(sizes[i]);
		size_t diff = 0;
		CHECK(back && devmem_read(d[i]->bus, back, sizes[i]), "pread of /dev/mem at 0x%" PRIx64,
		      d[i]->bus);
		for (size_t k = 0; back && k < sizes[i]; k++)
			diff += back[k] != (uint8_t)(k * 7 + (size_t)i * 31 + 1);
		CHECK(diff == 0, "buffer %d: %zu bytes differ between its mapping and /dev/mem at its "
		      "bus address", i, diff);
		free(back);
		OK_SINCE(mark, "ok   reserved memory: %zu bytes at bus 0x%" PRIx64 " read back through /dev/mem\n",
		       sizes[i], d[i]->bus);
	}
	/* exhaustion: more than is left */
	int mark = failures;
	r = ofl_dma_alloc(pool, (size_t)rmem_size, 4096, OFFLOAD_CACHE_STREAMING, true, &e, why,
			  sizeof(why));
	CHECK(r == -ENOMEM && why[0], "the whole region again: %d (%s), want -ENOMEM with a reason", r,
	      why);
	OK_SINCE(mark, "ok   reserved memory exhausted: %s\n", why);
	/* freed space is reused */
	uint64_t was = d[1] ? d[1]->bus : 0;
	ofl_dma_free(d[1]);
	d[1] = NULL;
	r = ofl_dma_alloc(pool, sizes[1], 4096, OFFLOAD_CACHE_STREAMING, true, &d[1], why, sizeof(why));
	CHECK(r == 0 && d[1]->bus == was, "realloc of a freed 64 KiB: %d at 0x%" PRIx64 ", was 0x%" PRIx64,
	      r, r == 0 ? d[1]->bus : 0, was);
	CHECK(count_maps("/dev/mem") == maps + 1, "one /dev/mem mapping for the region, not %d",
	      count_maps("/dev/mem") - maps);
	ofl_dma_free(d[0]);
	ofl_dma_pool_destroy(pool); /* frees d[1], d[2] */
	CHECK(count_fds() == fds && count_maps("/dev/mem") == maps,
	      "after pool destroy: fds %d (was %d), /dev/mem maps %d (was %d)", count_fds(), fds,
	      count_maps("/dev/mem"), maps);
	/* a region the kernel will not map: RAM in use (STRICT_DEVMEM) */
	uint64_t keep = rmem_addr;
	rmem_addr = 0x1000000;
	r = pool_new(OFFLOAD_CACHE_STREAMING, true, &pool);
	if (r == 0) {
		mark = failures;
		r = ofl_dma_alloc(pool, 4096, 4096, OFFLOAD_CACHE_STREAMING, false, &e, why, sizeof(why));
		CHECK(r < 0 && strstr(why, "/dev/mem: cannot map 0x1000000"),
		      "System RAM through /dev/mem: %d (%s), want a refusal naming the range", r, why);
		OK_SINCE(mark, "ok   System RAM as reserved memory refused: %s\n", why);
		if (r == 0)
			ofl_dma_free(e);
		ofl_dma_pool_destroy(pool);
	}
	rmem_addr = keep;
	CHECK(count_fds() == fds && count_maps("/dev/mem") == maps, "the refusal leaked fds or maps");
}

/* ------------------------------------------------------------ 3. size limits */

static void size_limits(void)
{
	struct ofl_dma_pool *pool;
	struct ofl_dma *d = NULL;
	char why[256];

	if (pool_new(OFFLOAD_CACHE_STREAMING, true, &pool) != 0) {
		CHECK(0, "pool: %s", offload_last_error(ctx));
		return;
	}
	int mark = failures;
	int r = ofl_dma_alloc(pool, 0, 64, OFFLOAD_CACHE_STREAMING, false, &d, why, sizeof(why));
	CHECK(r == -EINVAL, "length 0: %d, want -EINVAL", r);
	r = ofl_dma_alloc(pool, SIZE_MAX - 8, 64, OFFLOAD_CACHE_STREAMING, false, &d, why, sizeof(why));
	CHECK(r == -EINVAL, "length SIZE_MAX - 8: %d (%s), want -EINVAL (not a wrapped length)", r,
	      why);
	r = ofl_dma_alloc(pool, 4096, 8192, OFFLOAD_CACHE_STREAMING, false, &d, why, sizeof(why));
	CHECK(r == -EINVAL, "alignment 8192: %d, want -EINVAL", r);
	r = ofl_dma_alloc(pool, 4096, 96, OFFLOAD_CACHE_STREAMING, false, &d, why, sizeof(why));
	CHECK(r == -EINVAL, "alignment 96: %d, want -EINVAL", r);
	r = ofl_dma_alloc(pool, (size_t)rmem_size + 4096, 64, OFFLOAD_CACHE_STREAMING, false, &d, why,
			  sizeof(why));
	CHECK(r == -ENOMEM && why[0], "more than the region: %d (%s), want -ENOMEM", r, why);
	OK_SINCE(mark, "ok   size limits: 0, SIZE_MAX - 8, bad alignments refused; region + 4 KiB: %s\n", why);
	ofl_dma_pool_destroy(pool);
}

/* ------------------------------------------------------------ 4. no node, u-dma-buf */

static void no_device_node(void)
{
	struct ofl_dma_pool *pool;
	struct ofl_dma *d = NULL;
	char empty[] = "/tmp/nodev.XXXXXX", mem[64], want[160], why[256];

	CHECK(mkdtemp(empty) != NULL, "mkdtemp");
	snprintf(mem, sizeof(mem), "%s/mem", empty);
	ofl_platform_set_roots(NULL, empty, mem, NULL);
	setenv("OFFLOAD_DMA_PROVIDER", "dma-heap", 1);
	int mark = failures;
	int r = pool_new(OFFLOAD_CACHE_COHERENT, false, &pool);
	const char *msg = offload_last_error(ctx);
	snprintf(want, sizeof(want), "dma-heap: no usable heap under %s/dma_heap", empty);
	CHECK(r == -ENODEV && strstr(msg, want), "no %s/dma_heap: %d (%s)", empty, r, msg);
	OK_SINCE(mark, "ok   no heap node: %s\n", msg);
	if (r == 0)
		ofl_dma_pool_destroy(pool);
	unsetenv("OFFLOAD_DMA_PROVIDER");
	/* no /dev/mem node: the reserved-memory allocation says which file */
	r = pool_new(OFFLOAD_CACHE_STREAMING, true, &pool);
	if (r == 0) {
		mark = failures;
		r = ofl_dma_alloc(pool, 4096, 64, OFFLOAD_CACHE_STREAMING, false, &d, why, sizeof(why));
		snprintf(want, sizeof(want), "cannot open %s: No such file", mem);
		CHECK(r == -ENOENT && strstr(why, want), "no %s: %d (%s)", mem, r, why);
		OK_SINCE(mark, "ok   no /dev/mem node: %s\n", why);
		ofl_dma_pool_destroy(pool);
	}
	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	rmdir(empty);
	/* This kernel has no u-dma-buf module (out of tree): asked for, it says so. */
	setenv("OFFLOAD_DMA_PROVIDER", "u-dma-buf", 1);
	mark = failures;
	r = pool_new(OFFLOAD_CACHE_COHERENT, false, &pool);
	msg = offload_last_error(ctx);
	CHECK(r == -ENODEV && strstr(msg, "modprobe u-dma-buf") && !strstr(msg, "dma-heap"),
	      "u-dma-buf only: %d (%s)", r, msg);
	OK_SINCE(mark, "ok   u-dma-buf only: %s\n", msg);
	if (r == 0)
		ofl_dma_pool_destroy(pool);
	unsetenv("OFFLOAD_DMA_PROVIDER");
}

/* ------------------------------------------------------------ 5. unprivileged */

/* Run fn as uid/gid NOBODY in a child; its exit status (0 ok). */
static int as_nobody(int (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		failures = 0; /* the child's own count */
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0) {
			printf("FAIL cannot drop to uid %d: %s\n", NOBODY, strerror(errno));
			_exit(1);
		}
		int r = fn();
		fflush(stdout);
		_exit(r);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

#define HEAPDEV "/tmp/heapdev"

/*
 * Nodes that are root's: a CMA heap node (this kernel has none, so a root-only
 * stand-in under HEAPDEV, as devtmpfs creates heap nodes 0600) and the real
 * /dev/mem. Both refused, each message saying why.
 */
static int nobody_denied(void)
{
	struct ofl_dma_pool *pool;
	struct ofl_dma *d = NULL;
	char why[256];

	int mark = failures;
	ofl_platform_set_roots(NULL, HEAPDEV, NULL, NULL);
	setenv("OFFLOAD_DMA_PROVIDER", "dma-heap", 1);
	int r = pool_new(OFFLOAD_CACHE_COHERENT, false, &pool);
	const char *msg = offload_last_error(ctx);
	CHECK(r == -ENODEV && strstr(msg, HEAPDEV "/dma_heap/linux,cma: Permission denied"),
	      "uid %d, a root-only CMA heap: %d (%s), want -ENODEV and its name with \"Permission "
	      "denied\"", NOBODY, r, msg);
	OK_SINCE(mark, "ok   unprivileged dma-heap: %s\n", msg);
	unsetenv("OFFLOAD_DMA_PROVIDER");
	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	int fds = count_fds();
	mark = failures;
	r = pool_new(OFFLOAD_CACHE_STREAMING, true, &pool);
	CHECK(r == 0, "uid %d: reserved-memory pool %d %s", NOBODY, r, offload_last_error(ctx));
	if (r == 0) {
		r = ofl_dma_alloc(pool, 4096, 64, OFFLOAD_CACHE_STREAMING, false, &d, why, sizeof(why));
		CHECK(r == -EACCES && strstr(why, "/dev/mem: Permission denied (needs root"),
		      "uid %d: reserved memory %d (%s), want -EACCES saying it needs root", NOBODY, r,
		      why);
		OK_SINCE(mark, "ok   unprivileged reserved memory: %s\n", why);
		ofl_dma_pool_destroy(pool);
	}
	CHECK(count_fds() == fds, "the refusals leaked descriptors");
	return failures ? 1 : 0;
}

static void unprivileged(void)
{
	struct stat sb = { 0 };
	int fd;

	CHECK(stat("/dev/mem", &sb) == 0 && (sb.st_mode & 0077) == 0 && sb.st_uid == 0,
	      "/dev/mem is not root's alone (mode %o uid %u)", (unsigned)(sb.st_mode & 0777),
	      (unsigned)sb.st_uid);
	mkdir(HEAPDEV, 0755);
	mkdir(HEAPDEV "/dma_heap", 0755);
	fd = open(HEAPDEV "/dma_heap/linux,cma", O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0, "stand-in heap node: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	CHECK(as_nobody(nobody_denied) == 0, "the unprivileged checks failed");
	unlink(HEAPDEV "/dma_heap/linux,cma");
	rmdir(HEAPDEV "/dma_heap");
	rmdir(HEAPDEV);
}

int main(void)
{
	if (access("/dev/dma_heap", F_OK) != 0) {
		printf("SKIP: this kernel has no /dev/dma_heap (CONFIG_DMABUF_HEAPS)\n");
		return SKIP;
	}
	if (getuid() != 0) {
		printf("FAIL: run as root (the guest's /init does)\n");
		return 1;
	}
	if (!find_memmap()) {
		printf("FAIL: no memmap=SIZE!ADDR on the kernel command line (kernel-test.sh sets it)\n");
		return 1;
	}
	setenv("OFFLOAD_DEVMEM", "1", 1); /* reserved memory through /dev/mem is opt-in */
	ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	dev = calloc(1, sizeof(*dev));
	if (!ctx || !dev || offload_ctx_open(ctx, &o) < 0) {
		printf("FAIL: context: %s\n", ctx ? offload_last_error(ctx) : "out of memory");
		return 1;
	}
	/* A stand-in for the direct backend's device that would own the pool. */
	dev->ctx = ctx;
	ofl_strlcpy(dev->name, "guest-dma", sizeof(dev->name));

	printf("--- 1. dma-heap: what the kernel offers, and the provider's answer\n");
	dma_heap();
	printf("--- 2. reserved memory (memmap=) through /dev/mem\n");
	reserved_memory();
	printf("--- 3. size limits\n");
	size_limits();
	printf("--- 4. no device node; u-dma-buf absent from this kernel\n");
	no_device_node();
	printf("--- 5. an unprivileged process (uid %d)\n", NOBODY);
	unprivileged();

	free(dev);
	offload_ctx_free(ctx);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
