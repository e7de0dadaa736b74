/* SPDX-License-Identifier: MIT */
/*
 * Linux dma-bufs as CPU memory: the kernel's exporters /dev/udmabuf (over a
 * sealed memfd) and /dev/dma_heap/system, imports of a dma-buf made
 * elsewhere (a camera, a display, another process), and DMA_BUF_IOCTL_SYNC
 * around CPU access. See platform.h (struct ofl_dmabuf) for the contract.
 *
 * Kernel facts this file relies on (Linux 6.12):
 *  - drivers/dma-buf/udmabuf.c: UDMABUF_CREATE takes a shmem memfd that
 *    carries F_SEAL_SHRINK and not F_SEAL_WRITE, with offset and size page
 *    aligned; more pages than the size_limit_mb module parameter (default 64)
 *    fail with EINVAL, indistinguishable from other bad input, so the limit is
 *    read from sysfs first. The dma-buf holds its own page references, so the
 *    memfd is closed once the dma-buf exists. end_cpu_access fails with
 *    EINVAL before the first begin_cpu_access (no sg table yet): a SYNC_END
 *    must follow a SYNC_START.
 *  - drivers/dma-buf/heaps/system_heap.c: DMA_HEAP_IOCTL_ALLOC returns a
 *    dma-buf of scattered pages.
 *  - drivers/dma-buf/dma-buf.c: a dma-buf's file lives on the dmabuf pseudo
 *    filesystem (DMA_BUF_MAGIC from fstatfs), its inode size is the buffer
 *    size, llseek answers SEEK_END with the size, and /proc/<pid>/fdinfo
 *    shows "exp_name:"; DMA_BUF_IOCTL_SYNC wants START or END plus READ,
 *    WRITE or both, and may be interrupted while it waits for fences.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/magic.h>
#include <linux/udmabuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/util.h"
#include "platform/platform.h"
#include "platform/sysfs.h"

const char *ofl_dmabuf_src_name(enum ofl_dmabuf_src s)
{
	switch (s) {
	case OFL_DMABUF_UDMABUF: return "udmabuf";
	case OFL_DMABUF_SYSTEM_HEAP: return "system dma-heap";
	case OFL_DMABUF_IMPORTED: return "imported";
	}
	return "?";
}

/* Rank of a failure, for the errno the whole attempt returns: the furthest one got. */
static int rank(int e)
{
	return e == -ENODEV ? 0 : e == -EACCES ? 1 : 2;
}

/*
 * The errno offload_buf_alloc() reports for errno `e` of an exporter's call
 * (buf.h lists exactly these): running out of file descriptors or memory is
 * that; an ioctl the node does not know (ENOTTY) means it is no exporter;
 * anything else is the exporter failing.
 */
static int alloc_errno(int e)
{
	switch (e) {
	case EMFILE:
	case ENFILE:
		return -EMFILE;
	case ENOMEM:
		return -ENOMEM;
	case ENOTTY:
		return -ENODEV;
	default:
		return -EIO;
	}
}

/*
 * Open an exporter's node; on failure a note naming it and -ENODEV (absent,
 * or not a device node: a directory, a symlink loop, ...), -EACCES, -EMFILE
 * or -ENOMEM.
 */
static int open_node(const char *path, char *why, size_t wl)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	int e = errno;
	if (e == ENOENT || e == ENXIO || e == ENODEV) {
		ofl_reason_append(why, wl, "%s: absent (%s)", path, strerror(e));
		return -ENODEV;
	}
	if (e == EACCES || e == EPERM) {
		ofl_reason_append(why, wl, "%s: permission denied (the node is root's; add this user to its group "
				  "or change its mode with a udev rule)", path);
		return -EACCES;
	}
	if (e == EMFILE || e == ENFILE || e == ENOMEM) {
		ofl_reason_append(why, wl, "%s: %s", path, strerror(e));
		return alloc_errno(e);
	}
	ofl_reason_append(why, wl, "%s: is not a dma-buf exporter (open: %s)", path, strerror(e));
	return -ENODEV;
}

/* The note and errno of an exporter's allocation ioctl that failed with errno `e`. */
static int ioctl_failed(const char *node, const char *ioc, size_t sz, int e, char *why, size_t wl)
{
	if (e == ENOTTY) {
		ofl_reason_append(why, wl, "%s: is not a dma-buf exporter (%s: %s)", node, ioc, strerror(e));
		return -ENODEV;
	}
	ofl_reason_append(why, wl, "%s: %s of %zu bytes: %s", node, ioc, sz, strerror(e));
	/* udmabuf above size_limit_mb and the heaps on a bad size answer EINVAL */
	return e == EINVAL ? -ENOMEM : alloc_errno(e);
}

/* Map the whole dma-buf fd read-write; 0 or -errno with a note. */
static int map_fd(struct ofl_dmabuf *b, char *why, size_t wl)
{
	void *m = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);

	if (m == MAP_FAILED) {
		int e = errno;
		ofl_reason_append(why, wl, "cannot map the %zu-byte dma-buf read-write: %s%s", b->len, strerror(e),
				  e == EACCES ? " (its exporter gave a read-only fd: export it with O_RDWR, e.g. "
				  "VIDIOC_EXPBUF flags O_RDWR)" : "");
		return -e;
	}
	b->cpu = m;
	return 0;
}

/* udmabuf's size limit in bytes from sysfs; 0 when it cannot be read. */
static uint64_t udmabuf_limit(char *path, size_t plen)
{
	uint64_t mb = 0;

	if (ofl_path(path, plen, "%s/module/udmabuf/parameters/size_limit_mb",
		     ofl_platform_roots()->sysfs) < 0 ||
	    ofl_read_u64(path, &mb) < 0)
		return 0;
	return mb > UINT64_MAX >> 20 ? UINT64_MAX : mb << 20; /* saturate: no wrap to a tiny limit */
}

static int udmabuf_create(size_t sz, struct ofl_dmabuf *b, char *why, size_t wl)
{
	char node[PATH_MAX_OFL], lim[PATH_MAX_OFL];

	if (ofl_path(node, sizeof(node), "%s/udmabuf", ofl_platform_roots()->dev) < 0) {
		ofl_reason_append(why, wl, "udmabuf: path too long");
		return -ENAMETOOLONG;
	}
	int dfd = open_node(node, why, wl);
	if (dfd < 0)
		return dfd;
	uint64_t limit = udmabuf_limit(lim, sizeof(lim));
	if (limit && sz > limit) {
		close(dfd);
		ofl_reason_append(why, wl, "%s: %zu bytes exceed udmabuf's size limit of %" PRIu64 " MiB (%s)", node,
				  sz, limit >> 20, lim);
		return -ENOMEM;
	}
	int r, mfd = memfd_create("offload-dmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0) {
		int e = errno;
		ofl_reason_append(why, wl, "%s: memfd_create: %s", node, strerror(e));
		close(dfd);
		return e == EMFILE || e == ENFILE ? -EMFILE : -ENOMEM;
	}
	if (ftruncate(mfd, (off_t)sz) < 0 || fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		int e = errno;
		ofl_reason_append(why, wl, "%s: cannot size and seal a %zu-byte memfd: %s", node, sz, strerror(e));
		r = -ENOMEM; /* tmpfs out of room, or a kernel without sealing: no memory to export */
		goto out;
	}
	struct udmabuf_create c = { .memfd = (uint32_t)mfd, .flags = UDMABUF_FLAGS_CLOEXEC,
				    .offset = 0, .size = sz };
	r = ioctl(dfd, UDMABUF_CREATE, &c);
	if (r < 0) {
		int e = errno;
		r = ioctl_failed(node, "UDMABUF_CREATE", sz, e, why, wl);
		if (e == EINVAL && !limit)
			ofl_reason_append(why, wl, "size_limit_mb unreadable; above it the kernel says EINVAL too");
		goto out;
	}
	b->fd = r;
	b->len = sz;
	b->src = OFL_DMABUF_UDMABUF;
	r = 0;
out:
	close(mfd); /* the dma-buf holds the pages */
	close(dfd);
	return r;
}

static int heap_create(size_t sz, struct ofl_dmabuf *b, char *why, size_t wl)
{
	char node[PATH_MAX_OFL];

	if (ofl_path(node, sizeof(node), "%s/dma_heap/system", ofl_platform_roots()->dev) < 0) {
		ofl_reason_append(why, wl, "dma-heap: path too long");
		return -ENAMETOOLONG;
	}
	int hfd = open_node(node, why, wl);
	if (hfd < 0)
		return hfd;
	struct dma_heap_allocation_data a = { .len = sz, .fd_flags = O_RDWR | O_CLOEXEC };
	int r = ioctl(hfd, DMA_HEAP_IOCTL_ALLOC, &a);
	int e = errno;
	close(hfd);
	if (r < 0)
		return ioctl_failed(node, "DMA_HEAP_IOCTL_ALLOC", sz, e, why, wl);
	b->fd = (int)a.fd;
	b->len = sz;
	b->src = OFL_DMABUF_SYSTEM_HEAP;
	return 0;
}

/* The exporter's name from /proc/self/fdinfo (dma-buf.c prints "exp_name:"). */
static void exporter_name(int fd, char *out, size_t len)
{
	char path[64], line[160];

	snprintf(out, len, "unknown exporter");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "exp_name:", 9) == 0) {
			char *s = line + 9;
			s += strspn(s, " \t");
			s[strcspn(s, "\n")] = '\0';
			snprintf(out, len, "%s", s);
			break;
		}
	}
	fclose(f);
}

int ofl_dmabuf_alloc(size_t len, unsigned which, struct ofl_dmabuf *out, char *why, size_t wl)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err = -ENODEV;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	why[0] = '\0';
	if (len == 0 || len > SIZE_MAX / 2 || !(which & (OFL_DMABUF_UDMABUF | OFL_DMABUF_SYSTEM_HEAP))) {
		snprintf(why, wl, "bad length %zu or no exporter asked for", len);
		return -EINVAL;
	}
	size_t sz = (len + page - 1) & ~(page - 1);
	static const enum ofl_dmabuf_src order[] = { OFL_DMABUF_UDMABUF, OFL_DMABUF_SYSTEM_HEAP };
	for (size_t i = 0; i < OFL_ARRAY_SIZE(order); i++) {
		if (!(which & order[i]))
			continue;
		int r = order[i] == OFL_DMABUF_UDMABUF ? udmabuf_create(sz, out, why, wl)
						       : heap_create(sz, out, why, wl);
		if (r == 0) {
			r = map_fd(out, why, wl);
			if (r < 0 && r != -EACCES)
				r = alloc_errno(-r);
			if (r == 0) {
				exporter_name(out->fd, out->exporter, sizeof(out->exporter));
				return 0;
			}
			close(out->fd);
			out->fd = -1;
		}
		if (rank(r) >= rank(err))
			err = r;
	}
	return err;
}

static const char *file_kind(mode_t m)
{
	return S_ISREG(m) ? "a regular file" : S_ISFIFO(m) ? "a pipe" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" : S_ISDIR(m) ? "a directory" : "not a dma-buf";
}

int ofl_dmabuf_import(int fd, struct ofl_dmabuf *out, char *why, size_t wl)
{
	struct statfs sfs;
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	why[0] = '\0';
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, wl, "fd %d is not an open file descriptor", fd);
		return -EBADF;
	}
	if (fstatfs(fd, &sfs) < 0 || (unsigned long)sfs.f_type != DMA_BUF_MAGIC) {
		snprintf(why, wl, "fd %d is %s, not a dma-buf (its filesystem is not dmabuf's, "
			 "DMA_BUF_MAGIC)", fd, file_kind(st.st_mode));
		return -EINVAL;
	}
	out->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (out->fd < 0) {
		int e = errno;
		snprintf(why, wl, "cannot duplicate fd %d: %s", fd, strerror(e));
		return -e;
	}
	off_t size = st.st_size;
	if (size <= 0) /* older kernels left the inode size 0: ask llseek */
		size = lseek(out->fd, 0, SEEK_END);
	if (size <= 0 || (uint64_t)size > SIZE_MAX / 2) {
		snprintf(why, wl, "dma-buf fd %d has no usable size (%lld)", fd, (long long)size);
		close(out->fd);
		out->fd = -1;
		return -EINVAL;
	}
	out->len = (size_t)size;
	out->src = OFL_DMABUF_IMPORTED;
	exporter_name(out->fd, out->exporter, sizeof(out->exporter));
	int r = map_fd(out, why, wl);
	if (r < 0) {
		close(out->fd);
		out->fd = -1;
	}
	return r;
}

int ofl_dmabuf_sync(const struct ofl_dmabuf *b, bool start, char *why, size_t wl)
{
	struct dma_buf_sync s = { .flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
					   OFL_DMABUF_SYNC_ACCESS };
	int r;

	do
		r = ioctl(b->fd, DMA_BUF_IOCTL_SYNC, &s);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	if (r < 0) {
		int e = errno;
		snprintf(why, wl, "DMA_BUF_IOCTL_SYNC %s|READ|WRITE on the %s dma-buf: %s",
			 start ? "START" : "END", ofl_dmabuf_src_name(b->src), strerror(e));
		return -e;
	}
	return 0;
}

void ofl_dmabuf_release(struct ofl_dmabuf *b)
{
	if (b->cpu)
		munmap(b->cpu, b->len);
	if (b->fd >= 0)
		close(b->fd);
	b->cpu = NULL;
	b->fd = -1;
}
