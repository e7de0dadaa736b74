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
 *  6. dma-buf buffers (OFFLOAD_BUF_DMABUF, offload_buf_import_dmabuf()):
 *     made by /dev/udmabuf and by /dev/dma_heap/system, imported from a
 *     dma-buf this file makes with raw calls; udmabuf's size_limit_mb and the
 *     fallback to the heap; no node, permission denied, a read-only dma-buf.
 *     Evidence of its own: the memfd under a udmabuf (captured by wrapping
 *     memfd_create at link time and read with pread()), a second mmap() of
 *     the dma-buf fd, every DMA_BUF_IOCTL_SYNC the library issues (ioctl
 *     wrapped at link time: -Wl,--wrap=ioctl, the library's objects are
 *     linked in statically), /proc/self/fdinfo's exp_name, descriptor and
 *     mapping counts.
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
#include <linux/magic.h>
#include <linux/udmabuf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "platform/platform.h"

#include "guest.h"

#define SKIP 77
#define HEAP "/dev/dma_heap/system"
#define NOBODY 65534


/* ------------------------------------------------------------ link-time wraps */

/* Every DMA_BUF_IOCTL_SYNC of this process (the library's and this file's), in order. */
struct sync_rec {
	int fd;
	uint64_t flags;
	int ret;
};
static struct sync_rec syncs[64];
static int nsync;

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;

	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int r = __real_ioctl(fd, req, arg);
	if (req == DMA_BUF_IOCTL_SYNC && nsync < (int)(sizeof(syncs) / sizeof(syncs[0]))) {
		int e = errno;
		syncs[nsync++] = (struct sync_rec){ fd, ((struct dma_buf_sync *)arg)->flags, r };
		errno = e;
	}
	return r;
}

/*
 * While capture_memfd is set, a duplicate of the last memfd made (the library
 * closes its own once the udmabuf exists).
 */
static bool capture_memfd;
static int last_memfd = -1;

int __real_memfd_create(const char *name, unsigned int flags);
int __wrap_memfd_create(const char *name, unsigned int flags);
int __wrap_memfd_create(const char *name, unsigned int flags)
{
	int fd = __real_memfd_create(name, flags);

	if (fd >= 0 && capture_memfd) {
		int e = errno;
		if (last_memfd >= 0)
			close(last_memfd);
		last_memfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		errno = e;
	}
	return fd;
}

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

/* ------------------------------------------------------------ 6. dma-buf buffers */

#define RW_FLAGS (DMA_BUF_SYNC_READ | DMA_BUF_SYNC_WRITE)

/* The syncs recorded since `from` are exactly `n` on fd, with these START/END kinds and RW flags. */
static bool syncs_are(int from, int fd, const char *kinds)
{
	size_t n = strlen(kinds);
	bool ok = nsync - from == (int)n;

	for (size_t i = 0; ok && i < n; i++) {
		const struct sync_rec *r = &syncs[from + (int)i];
		uint64_t want = (kinds[i] == 'S' ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | RW_FLAGS;
		ok = r->fd == fd && r->flags == want && r->ret == 0;
	}
	if (!ok) {
		printf("     syncs since #%d (want \"%s\" on fd %d with READ|WRITE):", from, kinds, fd);
		for (int i = from; i < nsync; i++)
			printf(" [fd %d flags 0x%llx ret %d]", syncs[i].fd, (unsigned long long)syncs[i].flags,
			       syncs[i].ret);
		printf("\n");
	}
	return ok;
}

/* exp_name of fd from this process's fdinfo. */
static bool exp_name_is(int fd, const char *want)
{
	char path[64], line[160];
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "exp_name:", 9) == 0) {
			line[strcspn(line, "\n")] = '\0';
			ok = strcmp(line + 9 + strspn(line + 9, " \t"), want) == 0;
		}
	fclose(f);
	return ok;
}

static bool is_dmabuf(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && (unsigned long)sfs.f_type == DMA_BUF_MAGIC;
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 2654435761u + seed) >> 13);
}

/* A second, independent mapping of dma-buf fd holds `want`. */
static bool second_map_holds(int fd, const uint8_t *want, size_t n)
{
	void *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return false;
	bool ok = memcmp(m, want, n) == 0;
	munmap(m, n);
	return ok;
}

/*
 * A buffer from one exporter: the window (START at allocation, END at
 * sync_for_device, START again at sync_for_cpu, END at free), the bytes
 * through every path, and nothing left behind.
 */
static void dmabuf_exporter(uint32_t flag, const char *exp_name, bool memfd)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 3 * (size_t)page + 1, n = 4 * (size_t)page;
	uint8_t *want = malloc(n), *got = malloc(n);
	offload_buf *b = NULL;
	int mark = failures;

	if (last_memfd >= 0)
		close(last_memfd);
	last_memfd = -1;
	int fds = count_fds(), maps = count_maps("/dmabuf:"), s0 = nsync;
	capture_memfd = true;
	int r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, len, flag, &b);
	capture_memfd = false;
	if (!CHECK(r == 0, "%s: offload_buf_alloc: %d %s", exp_name, r, offload_last_error(ctx))) {
		free(want);
		free(got);
		return;
	}
	int fd = offload_buf_dmabuf_fd(b);
	uint8_t *p = offload_buf_ptr(b);
	CHECK(fd >= 0 && is_dmabuf(fd), "%s: fd %d is not a dma-buf", exp_name, fd);
	CHECK(exp_name_is(fd, exp_name), "%s: fdinfo's exp_name differs", exp_name);
	CHECK(strcmp(offload_buf_dmabuf_exporter(b), exp_name) == 0, "%s: exporter \"%s\"", exp_name,
	      offload_buf_dmabuf_exporter(b));
	CHECK(offload_buf_size(b) == n, "%s: size %zu, want %zu (4 pages)", exp_name, offload_buf_size(b), n);
	CHECK(lseek(fd, 0, SEEK_END) == (off_t)n, "%s: the dma-buf is not %zu bytes", exp_name, n);
	CHECK(offload_buf_bus_addr(b) == 0, "%s: a bus address", exp_name);
	CHECK(count_maps("/dmabuf:") == maps + 1, "%s: %d dma-buf mappings, want %d", exp_name,
	      count_maps("/dmabuf:"), maps + 1);
	CHECK(syncs_are(s0, fd, "S"), "%s: allocation did not open the CPU window with START|RW", exp_name);
	if (memfd) {
		int seals = last_memfd >= 0 ? fcntl(last_memfd, F_GET_SEALS) : -1;
		CHECK(seals >= 0 && (seals & F_SEAL_SHRINK) && !(seals & F_SEAL_WRITE),
		      "%s: memfd seals 0x%x, want F_SEAL_SHRINK without F_SEAL_WRITE", exp_name, seals);
	}
	/* the CPU writes inside the window, through the library's pointer and a library copy */
	pattern(want, n, 1);
	memcpy(p, want, n / 2);
	CHECK(offload_memcpy(ctx, p + n / 2, want + n / 2, n / 2) == 0, "offload_memcpy into it: %s",
	      offload_last_error(ctx));
	int s1 = nsync;
	CHECK(offload_buf_sync_for_device(b, 0, n, OFFLOAD_DMA_TO_DEVICE) == 0, "sync_for_device: %s",
	      offload_last_error(ctx));
	CHECK(syncs_are(s1, fd, "E"), "%s: sync_for_device did not END with RW", exp_name);
	s1 = nsync;
	CHECK(offload_buf_sync_for_device(b, 0, n, OFFLOAD_DMA_TO_DEVICE) == 0 && nsync == s1,
	      "%s: a second sync_for_device issued an END without a START", exp_name);
	CHECK(second_map_holds(fd, want, n), "%s: a second mmap of the fd differs", exp_name);
	if (memfd) {
		CHECK(last_memfd >= 0 && pread(last_memfd, got, n, 0) == (ssize_t)n && memcmp(got, want, n) == 0,
		      "%s: pread of the memfd differs from what was written through the mapping", exp_name);
		/* "the device" writes (the memfd's pages are the dma-buf's); the CPU reads after START */
		pattern(want, n, 2);
		CHECK(pwrite(last_memfd, want, n, 0) == (ssize_t)n, "pwrite memfd");
	} else {
		pattern(want, n, 2);
		void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		CHECK(m != MAP_FAILED, "second rw mapping");
		if (m != MAP_FAILED) {
			memcpy(m, want, n);
			munmap(m, n);
		}
	}
	s1 = nsync;
	CHECK(offload_buf_sync_for_cpu(b, 0, n, OFFLOAD_DMA_FROM_DEVICE) == 0, "sync_for_cpu: %s",
	      offload_last_error(ctx));
	CHECK(syncs_are(s1, fd, "S"), "%s: sync_for_cpu did not START with RW", exp_name);
	CHECK(memcmp(p, want, n) == 0, "%s: the CPU does not see what the other side wrote", exp_name);
	CHECK(offload_memcpy(ctx, got, p, n) == 0 && memcmp(got, want, n) == 0,
	      "%s: offload_memcpy out of it differs", exp_name);
	/* a START while open: END first, so the pairs stay balanced */
	s1 = nsync;
	CHECK(offload_buf_sync_for_cpu(b, 0, 1, OFFLOAD_DMA_BIDIRECTIONAL) == 0 && syncs_are(s1, fd, "ES"),
	      "%s: sync_for_cpu with the window open did not END then START", exp_name);
	s1 = nsync;
	CHECK(offload_buf_free(b) == 0, "free: %s", offload_last_error(ctx));
	CHECK(syncs_are(s1, fd, "E"), "%s: free of an open window did not END with RW", exp_name);
	CHECK(syncs_are(s0, fd, "SESESE"), "%s: the whole history is not balanced", exp_name);
	if (last_memfd >= 0)
		close(last_memfd);
	last_memfd = -1;
	CHECK(count_fds() == fds, "%s: %d descriptors after free, %d before", exp_name, count_fds(), fds);
	CHECK(count_maps("/dmabuf:") == maps, "%s: a dma-buf mapping is left", exp_name);
	OK_SINCE(mark, "ok   dma-buf from %s: fd is a dma-buf (%s), 4 pages; START|RW at allocation, END|RW "
		 "at sync_for_device, START at sync_for_cpu, END at free; bytes agree through %s and a "
		 "second mmap; no fd or mapping left\n", exp_name, exp_name,
		 memfd ? "pread/pwrite of the memfd" : "a second mapping");
	free(want);
	free(got);
}

#define LIMIT "/sys/module/udmabuf/parameters/size_limit_mb"

/* udmabuf refuses more than size_limit_mb; the library says so and takes the system heap. */
static void dmabuf_size_limit(void)
{
	char old[32] = "";
	offload_buf *b = NULL;
	int mark = failures;
	FILE *f = fopen(LIMIT, "r");

	if (!CHECK(f && fgets(old, sizeof(old), f), LIMIT " is not readable (built-in udmabuf has it)")) {
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	old[strcspn(old, "\n")] = '\0';
	f = fopen(LIMIT, "w");
	CHECK(f && fputs("1\n", f) >= 0 && fclose(f) == 0, "cannot lower " LIMIT);
	/* the kernel's own answer above the limit, raw: EINVAL, nothing said about why */
	int node = open("/dev/udmabuf", O_RDWR), mfd = memfd_create("raw", MFD_ALLOW_SEALING);
	CHECK(node >= 0 && mfd >= 0 && ftruncate(mfd, 2 << 20) == 0 &&
	      fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0, "raw memfd");
	struct udmabuf_create c = { .memfd = (uint32_t)mfd, .size = 2 << 20 };
	errno = 0;
	CHECK(ioctl(node, UDMABUF_CREATE, &c) < 0 && errno == EINVAL,
	      "raw UDMABUF_CREATE of 2 MiB above a 1 MiB limit: errno %d, want EINVAL", errno);
	close(mfd);
	close(node);
	int r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 2 << 20, OFFLOAD_BUF_DMABUF_UDMABUF, &b);
	const char *msg = offload_last_error(ctx);
	CHECK(r == -ENOMEM && strstr(msg, "/dev/udmabuf: 2097152 bytes exceed udmabuf's size limit of 1 MiB"),
	      "udmabuf only, above the limit: %d (%s)", r, msg);
	OK_SINCE(mark, "ok   udmabuf only, 2 MiB over size_limit_mb=1: %s\n", msg);
	mark = failures;
	r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 2 << 20, OFFLOAD_BUF_DMABUF, &b);
	CHECK(r == 0 && exp_name_is(offload_buf_dmabuf_fd(b), "system"),
	      "2 MiB over the limit did not fall back to the system heap: %d (%s)", r,
	      offload_last_error(ctx));
	OK_SINCE(mark, "ok   2 MiB over size_limit_mb=1: the system heap made it (fdinfo exp_name system)\n");
	if (r == 0)
		offload_buf_free(b);
	f = fopen(LIMIT, "w");
	CHECK(f && fprintf(f, "%s\n", old) > 0 && fclose(f) == 0, "cannot restore " LIMIT);
}

/* A dma-buf made with raw calls, imported: a duplicate, mapped, bracketed, the original untouched. */
static void dmabuf_import(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 2 * (size_t)page;
	uint8_t *want = malloc(n), *got = malloc(n);
	offload_buf *b = NULL;
	int mark = failures;

	int node = open("/dev/udmabuf", O_RDWR), mfd = memfd_create("raw", MFD_ALLOW_SEALING);
	CHECK(node >= 0 && mfd >= 0 && ftruncate(mfd, (off_t)n) == 0 &&
	      fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0, "raw memfd");
	struct udmabuf_create c = { .memfd = (uint32_t)mfd, .size = n };
	int raw = ioctl(node, UDMABUF_CREATE, &c);
	close(node);
	if (!CHECK(raw >= 0, "raw UDMABUF_CREATE: %s", strerror(errno)))
		goto out;
	/* the kernel fact behind "every END follows a START" (udmabuf.c: no sg table before) */
	struct dma_buf_sync end = { .flags = DMA_BUF_SYNC_END | RW_FLAGS };
	errno = 0;
	CHECK(ioctl(raw, DMA_BUF_IOCTL_SYNC, &end) < 0 && errno == EINVAL,
	      "raw SYNC_END before any START on a fresh udmabuf: errno %d, want EINVAL", errno);
	pattern(want, n, 3);
	CHECK(pwrite(mfd, want, n, 0) == (ssize_t)n, "pwrite");
	int fds = count_fds(), s0 = nsync;
	int r = offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, raw, &b);
	if (!CHECK(r == 0, "import: %d %s", r, offload_last_error(ctx)))
		goto out;
	int fd = offload_buf_dmabuf_fd(b);
	CHECK(fd != raw && is_dmabuf(fd), "the import did not duplicate the fd (%d, %d)", fd, raw);
	CHECK(count_fds() == fds + 1, "import: %d fds, want %d", count_fds(), fds + 1);
	CHECK(offload_buf_size(b) == n, "import size %zu, want %zu", offload_buf_size(b), n);
	CHECK(strcmp(offload_buf_dmabuf_exporter(b), "udmabuf") == 0, "exporter %s",
	      offload_buf_dmabuf_exporter(b));
	CHECK(syncs_are(s0, fd, "S"), "import did not START");
	CHECK(memcmp(offload_buf_ptr(b), want, n) == 0, "the import does not show the memfd's bytes");
	pattern(want, n, 4);
	memcpy(offload_buf_ptr(b), want, n);
	int s1 = nsync;
	CHECK(offload_buf_free(b) == 0 && syncs_are(s1, fd, "E"), "free of the import did not END");
	CHECK(pread(mfd, got, n, 0) == (ssize_t)n && memcmp(got, want, n) == 0,
	      "bytes written through the import are not in the memfd");
	CHECK(count_fds() == fds && fcntl(raw, F_GETFD) >= 0 && second_map_holds(raw, want, n),
	      "free closed the caller's fd or left one");
	OK_SINCE(mark, "ok   import of a raw udmabuf: a duplicate fd, 2 pages, the memfd's bytes both "
		 "ways, START at import and END at free; the caller's fd stays usable\n");
	/* a read-only dma-buf: cannot be mapped for writing, said so */
	mark = failures;
	int h = open(HEAP, O_RDWR);
	struct dma_heap_allocation_data a = { .len = n, .fd_flags = O_RDONLY | O_CLOEXEC };
	CHECK(h >= 0 && ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a) == 0, "raw read-only heap buffer");
	if (h >= 0)
		close(h);
	r = offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, (int)a.fd, &b);
	const char *msg = offload_last_error(ctx);
	CHECK(r == -EACCES && strstr(msg, "read-only fd"), "read-only import: %d (%s)", r, msg);
	OK_SINCE(mark, "ok   import of a read-only dma-buf: %s\n", msg);
	close((int)a.fd);
	/* not a dma-buf: a pipe and the memfd itself */
	mark = failures;
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	r = offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, p[0], &b);
	CHECK(r == -EINVAL && strstr(offload_last_error(ctx), "is a pipe, not a dma-buf"), "pipe: %d (%s)",
	      r, offload_last_error(ctx));
	r = offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, mfd, &b);
	CHECK(r == -EINVAL && strstr(offload_last_error(ctx), "is a regular file, not a dma-buf"),
	      "memfd: %d (%s)", r, offload_last_error(ctx));
	OK_SINCE(mark, "ok   import of a pipe and of a memfd: -EINVAL, %s\n", offload_last_error(ctx));
	close(p[0]);
	close(p[1]);
	close(raw);
out:
	if (mfd >= 0)
		close(mfd);
	free(want);
	free(got);
}

static void dmabuf_no_node(void)
{
	char empty[] = "/tmp/nodmabuf.XXXXXX", want[160];
	offload_buf *b = NULL;
	int mark = failures;

	CHECK(mkdtemp(empty) != NULL, "mkdtemp");
	ofl_platform_set_roots(NULL, empty, NULL, NULL);
	int r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 4096, OFFLOAD_BUF_DMABUF, &b);
	const char *msg = offload_last_error(ctx);
	snprintf(want, sizeof(want), "%s/udmabuf: absent", empty);
	CHECK(r == -ENODEV && strstr(msg, want), "no node: %d (%s)", r, msg);
	snprintf(want, sizeof(want), "%s/dma_heap/system: absent", empty);
	CHECK(strstr(msg, want), "no node: %s lacks %s", msg, want);
	OK_SINCE(mark, "ok   no exporter node: %s\n", msg);
	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	rmdir(empty);
}

/* In the child: a context of its own (a forked child may not use its parent's). */
static int nobody_dmabuf(void)
{
	offload_buf *b = NULL;
	int mark = failures;
	struct offload_ctx_opts o;
	offload_ctx *c = offload_ctx_new();

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (!CHECK(c && offload_ctx_open(c, &o) == 0, "child context"))
		return 1;
	int r = offload_buf_alloc(c, OFFLOAD_DEV_AUTO, 4096, OFFLOAD_BUF_DMABUF, &b);
	const char *msg = offload_last_error(c);

	CHECK(r == -EACCES && strstr(msg, "/dev/udmabuf: permission denied") &&
	      strstr(msg, HEAP ": permission denied") && !strstr(msg, "absent"),
	      "uid %d: %d (%s), want -EACCES naming both nodes", NOBODY, r, msg);
	OK_SINCE(mark, "ok   unprivileged dma-buf: %s\n", msg);
	offload_ctx_free(c);
	return failures ? 1 : 0;
}

/*
 * AF_ALG and dma-bufs: the kernel pins the pages of the buffers it is given,
 * and a dma-buf mapping has none (EFAULT, for either exporter). The library
 * refuses a dma-buf for the af_alg device (it could never be zero-copy
 * there), and data that sits in one anyway goes to the kernel through the
 * kcapi backend's bounce buffer. Evidence: SHA-256 of one million 'a' in a
 * dma-buf gives the FIPS 180-2 value on AF_ALG, and AES-128-CBC of a dma-buf
 * on AF_ALG equals OpenSSL's (the CPU device) on a plain copy of the data.
 */
static void dmabuf_af_alg(void)
{
	static const uint8_t million_a[32] = {
		0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
		0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0
	};
	static const uint32_t flags[] = { OFFLOAD_BUF_DMABUF_UDMABUF, OFFLOAD_BUF_DMABUF_HEAP };
	static const uint8_t key[16] = "0123456789abcdef", iv[16] = "fedcba9876543210";
	const size_t n = 1000000, cn = 200000; /* cn: a multiple of 16 beyond libkcapi's 64 KiB chunks */
	int d = offload_dev_find(ctx, "af_alg"), cpu = offload_dev_find(ctx, "cpu");
	struct offload_dev_info ci;
	/* without OpenSSL (OFFLOAD_WITH_OPENSSL=OFF) the CPU has no crypto: AF_ALG on plain memory is the reference */
	bool cpu_crypto = offload_dev_get_info(ctx, cpu, &ci, sizeof(ci)) == 0 && (ci.caps & OFFLOAD_CAP_HASH);
	if (d < 0) {
		printf("note: no af_alg device in this build (%s): dma-buf with AF_ALG not checked\n",
		       offload_last_error(ctx));
		return;
	}
	offload_buf *b = NULL;
	uint8_t md[32], *plain = malloc(n), *want = malloc(cn), *got = malloc(cn);
	int mark = failures;
	int r = offload_buf_alloc(ctx, d, 4096, OFFLOAD_BUF_DMABUF, &b);
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", offload_last_error(ctx));
	CHECK(r == -ENOTSUP && strstr(msg, "AF_ALG") && strstr(msg, "pins the pages"),
	      "dma-buf for af_alg: %d (%s), want -ENOTSUP", r, msg);
	for (int i = 0; i < 2; i++) {
		r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, n, flags[i], &b);
		if (!CHECK(r == 0, "dma-buf %d: %s", i, offload_last_error(ctx)))
			continue;
		uint8_t *p = offload_buf_ptr(b);
		memset(p, 'a', n);
		for (int on_cpu = 0; on_cpu < 1 + cpu_crypto; on_cpu++) { /* AF_ALG, then the CPU, on the same pointer */
			offload_hash_session *h = NULL;
			r = offload_hash_open_dev(ctx, on_cpu ? cpu : d, OFFLOAD_HASH_SHA256, NULL, 0, &h);
			if (r == 0)
				r = offload_hash_update(h, p, 3); /* below libkcapi's 32 KiB send() path */
			if (r == 0)
				r = offload_hash_update(h, p + 3, n - 3); /* its vmsplice path */
			if (r == 0)
				r = offload_hash_final(h, md, sizeof(md), NULL);
			CHECK(r == 32 && memcmp(md, million_a, 32) == 0, "%s SHA-256 of 10^6 'a' in a %s dma-buf: %d %s",
			      on_cpu ? "CPU" : "AF_ALG", offload_buf_dmabuf_exporter(b), r, offload_last_error(ctx));
			if (h)
				offload_hash_close(h);
		}
		for (size_t k = 0; k < cn; k++)
			p[k] = (uint8_t)(k * 7 + 1);
		memcpy(plain, p, cn);
		struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_CBC, .dir = OFFLOAD_ENCRYPT, .key = key,
						.key_len = 16, .iv = iv, .iv_len = 16, .in = plain, .out = want,
						.len = cn };
		offload_cipher_session *s = NULL;
		r = offload_cipher_session_open_dev(ctx, cpu_crypto ? cpu : d, OFFLOAD_CIPHER_AES_CBC, key, 16, &s);
		op.alg = 0;
		op.key = NULL;
		op.key_len = 0;
		if (r == 0)
			r = offload_cipher_session_run(s, &op, sizeof(op));
		offload_cipher_session_close(s);
		CHECK(r == 0, "%s AES-CBC of plain memory: %d %s", cpu_crypto ? "CPU" : "AF_ALG", r, offload_last_error(ctx));
		s = NULL;
		r = offload_cipher_session_open_dev(ctx, d, OFFLOAD_CIPHER_AES_CBC, key, 16, &s);
		op.in = p;    /* dma-buf in, plain out */
		op.out = got;
		if (r == 0)
			r = offload_cipher_session_run(s, &op, sizeof(op));
		CHECK(r == 0 && memcmp(got, want, cn) == 0, "AF_ALG AES-CBC from a %s dma-buf: %d %s",
		      offload_buf_dmabuf_exporter(b), r, offload_last_error(ctx));
		op.out = p;   /* in place, in the dma-buf */
		if (r == 0)
			r = offload_cipher_session_run(s, &op, sizeof(op));
		CHECK(r == 0 && memcmp(p, want, cn) == 0, "AF_ALG AES-CBC in place in a %s dma-buf: %d %s",
		      offload_buf_dmabuf_exporter(b), r, offload_last_error(ctx));
		offload_cipher_session_close(s);
		offload_buf_free(b);
	}
	free(plain);
	free(want);
	free(got);
	OK_SINCE(mark, "ok   AF_ALG: a dma-buf for it refused (%s); data in a udmabuf or system-heap "
		 "dma-buf hashes and encrypts right there (bounced) and on the CPU\n", msg);
}

/* `offloadctl doctor --dtb none` into out. */
static void run_doctor(char *out, size_t len)
{
	FILE *f = popen("offloadctl doctor --dtb none 2>&1", "r");
	size_t n = f ? fread(out, 1, len - 1, f) : 0;

	out[n] = '\0';
	if (f)
		pclose(f);
}

static int nobody_doctor(void)
{
	char out[8192];
	int mark = failures;

	run_doctor(out, sizeof(out));
	CHECK(strstr(out, "no dma-buf exporter is usable") &&
	      strstr(out, "udmabuf: /dev/udmabuf: permission denied") &&
	      strstr(out, "system dma-heap: /dev/dma_heap/system: permission denied"),
	      "doctor as uid %d:\n%s", NOBODY, out);
	OK_SINCE(mark, "ok   offloadctl doctor (uid %d): permission denied on both nodes\n", NOBODY);
	return failures ? 1 : 0;
}

/* `offloadctl doctor` names both exporters as root, and says why not as uid NOBODY. */
static void dmabuf_doctor(void)
{
	char out[8192];
	int mark = failures;

	run_doctor(out, sizeof(out));
	CHECK(strstr(out, "info: dma-buf buffers (OFFLOAD_BUF_DMABUF) come from: udmabuf, system "
		      "dma-heap [dma-buf-exporters]") &&
	      strstr(out, "udmabuf: a 4096-byte dma-buf made, mapped and synced (exporter \"udmabuf\")") &&
	      strstr(out, "system dma-heap: a 4096-byte dma-buf made, mapped and synced (exporter \"system\")"),
	      "doctor as root:\n%s", out);
	OK_SINCE(mark, "ok   offloadctl doctor (root): both exporters reported\n");
	CHECK(as_nobody(nobody_doctor) == 0, "doctor as uid %d failed", NOBODY);
}

static void dmabuf_buffers(void)
{
	struct stat sb = { 0 };

	if (!CHECK(stat("/dev/udmabuf", &sb) == 0, "this kernel (CONFIG_UDMABUF=y) has no /dev/udmabuf"))
		return;
	dmabuf_exporter(OFFLOAD_BUF_DMABUF, "udmabuf", true); /* udmabuf first */
	dmabuf_exporter(OFFLOAD_BUF_DMABUF_HEAP, "system", false);
	dmabuf_size_limit();
	dmabuf_import();
	dmabuf_no_node();
	CHECK((sb.st_mode & 0077) == 0 && sb.st_uid == 0, "/dev/udmabuf is not root's alone (mode %o)",
	      (unsigned)(sb.st_mode & 0777));
	CHECK(as_nobody(nobody_dmabuf) == 0, "the unprivileged dma-buf check failed");
	dmabuf_doctor();
	dmabuf_af_alg();
	CHECK(nsync < (int)(sizeof(syncs) / sizeof(syncs[0])), "the sync log overflowed");
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
	printf("--- 6. dma-buf buffers: udmabuf, system heap, import, failures\n");
	dmabuf_buffers();

	free(dev);
	offload_ctx_free(ctx);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
