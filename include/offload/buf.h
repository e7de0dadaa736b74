/* SPDX-License-Identifier: MIT */
/**
 * @file offload/buf.h
 * @brief DMA buffers: memory a given device can reach, with its cache mode.
 *
 * Plain user pointers are accepted by every liboffload call; a direct
 * backend then bounces them through a DMA buffer or maintains the caches as
 * the device's policy says. A buffer from offload_buf_alloc() avoids the
 * bounce: pointers inside it are used zero-copy.
 *
 * With the streaming cache mode the buffer is an ownership hand-off, as in
 * the kernel's DMA API: call offload_buf_sync_for_device() after the CPU
 * wrote data the device will read, and offload_buf_sync_for_cpu() before
 * the CPU reads data the device wrote. The liboffload operations do this
 * themselves for the ranges they touch; the calls are for data the caller
 * moves itself. On a coherent device both calls do nothing.
 *
 * When an operation returns, the range it wrote is the CPU's and memory
 * holds the same bytes (the unaligned edges it wrote with the CPU are cleaned
 * too), so a further offload_buf_sync_for_cpu() over it is unnecessary but
 * harmless. What the caller itself wrote with the CPU is another matter: an
 * offload_buf_sync_for_cpu() over it (whole cache lines) may discard it, as
 * the kernel's dma_sync_*_for_cpu() does, unless offload_buf_sync_for_device()
 * handed it over first.
 */
#ifndef OFFLOAD_BUF_H
#define OFFLOAD_BUF_H

#include <offload/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of a DMA hand-off, as in the kernel's enum dma_data_direction. */
enum offload_dma_dir {
	/** The device reads the buffer (clean caches before). */
	OFFLOAD_DMA_TO_DEVICE = 1,
	/** The device writes the buffer (invalidate caches after). */
	OFFLOAD_DMA_FROM_DEVICE = 2,
	/** Both. */
	OFFLOAD_DMA_BIDIRECTIONAL = 3,
};

/**
 * Allocation flag: ask for uncached memory instead of the policy's cache mode
 * (the CPU then pays for every access, but no maintenance is needed). Ignored
 * for a coherent device, whose cached memory needs no maintenance either.
 */
#define OFFLOAD_BUF_UNCACHED (1u << 0)

/**
 * Allocation flag: the buffer is a Linux dma-buf (a file descriptor other
 * drivers and processes accept: V4L2 (V4L2_MEMORY_DMABUF), DRM PRIME, another
 * process over a Unix socket), made by the first of the kernel's exporters
 * that works:
 *  1. /dev/udmabuf (CONFIG_UDMABUF): a memfd is created with
 *     MFD_ALLOW_SEALING, sized with ftruncate() and sealed with F_SEAL_SHRINK,
 *     as drivers/dma-buf/udmabuf.c requires, then turned into a dma-buf with
 *     UDMABUF_CREATE (include/uapi/linux/udmabuf.h). Sizes above the module
 *     parameter /sys/module/udmabuf/parameters/size_limit_mb (default 64 MiB)
 *     are refused there, and the system heap is tried instead.
 *  2. /dev/dma_heap/system (CONFIG_DMABUF_HEAPS_SYSTEM): DMA_HEAP_IOCTL_ALLOC
 *     (include/uapi/linux/dma-heap.h).
 *
 * The dma-buf is mapped with mmap() of its fd (offload_buf_ptr()); the size is
 * rounded up to the page. Its pages are scattered and the library sets up no
 * IOMMU mapping for them, so only devices the library does not drive itself
 * accept it (the CPU and spidev, which copies user data in and out: it is CPU
 * memory to them); a direct engine (udma, eip97, dspi, real or simulated) is
 * refused with -ENOTSUP — allocate its memory without this flag (u-dma-buf,
 * a CMA dma-heap or reserved-memory) instead. AF_ALG is refused too: the
 * kernel pins the pages of the buffers it gets (crypto/af_alg.c), which a
 * dma-buf mapping does not have, and answers EFAULT (seen on Linux 6.12 for
 * both exporters). A pointer into a dma-buf buffer of the same context that
 * reaches an AF_ALG device (cipher or hash) is bounced through plain memory
 * by the kcapi backend, at the cost of a CPU copy; memory of that kind the
 * library does not know (another context's, a device mapping) fails there
 * with -EFAULT and a message that says so.
 *
 * CPU access is bracketed with DMA_BUF_IOCTL_SYNC (include/uapi/linux/dma-buf.h):
 * the buffer starts in the CPU's hands (SYNC_START issued at allocation);
 * offload_buf_sync_for_device() ends the window (SYNC_END) before another
 * device uses the dma-buf, offload_buf_sync_for_cpu() opens it again
 * (SYNC_START) when that device is done; offload_buf_free() ends an open
 * window. Both ends use DMA_BUF_SYNC_READ | DMA_BUF_SYNC_WRITE: the window
 * covers whatever the CPU reads and writes until it is closed, and the uapi
 * header requires END to carry START's flags; the kernel does not remember
 * them (drivers/dma-buf/dma-buf.c hands END's direction alone to the
 * exporter, which writes back the CPU's stores only for a WRITE end).
 * The ioctl always covers the whole dma-buf: the off/len of the sync calls
 * are checked but not narrowed. The library's operations (offload_memcpy()
 * and the others) issue no SYNC of their own: a copy into or out of the
 * dma-buf is CPU access like any other and belongs inside a window the
 * caller opened, so the small-copy path stays free of lookups.
 *
 * Implies nothing about caching: offload_buf_cache_mode() reports
 * ::OFFLOAD_CACHE_STREAMING (the hand-off above is required) and
 * offload_buf_bus_addr() 0 (no bus address). Not combinable with
 * ::OFFLOAD_BUF_UNCACHED.
 */
#define OFFLOAD_BUF_DMABUF (1u << 1)
/** With ::OFFLOAD_BUF_DMABUF (implied): only /dev/udmabuf, no other exporter. */
#define OFFLOAD_BUF_DMABUF_UDMABUF (1u << 2)
/** With ::OFFLOAD_BUF_DMABUF (implied): only /dev/dma_heap/system, no other exporter. */
#define OFFLOAD_BUF_DMABUF_HEAP (1u << 3)

/** A DMA-able buffer. */
typedef struct offload_buf offload_buf;

/**
 * @brief Allocate a buffer device @p dev can DMA to and from.
 *
 * Providers, in order of preference for real hardware: u-dma-buf
 * (/dev/udmabufN), a dma-heap (/dev/dma_heap/...), a device-tree
 * reserved-memory region; simulated devices use an aligned heap block.
 *
 * Devices the library does not drive directly (the CPU, AF_ALG, spidev)
 * get plain cache-line-aligned memory: the kernel or the CPU does their DMA.
 *
 * With ::OFFLOAD_BUF_DMABUF the buffer is a dma-buf instead (see there).
 *
 * @param ctx   An open context.
 * @param dev   Device index, or ::OFFLOAD_DEV_AUTO for the CPU (plain memory).
 * @param len   Size in bytes (> 0); rounded up to the cache line (a dma-buf:
 *   to the page).
 * @param flags OFFLOAD_BUF_* flags.
 * @param out   Receives the buffer.
 * @return 0, or -EINVAL (NULL argument, len 0 or above SIZE_MAX / 2, unknown
 *   flags, ::OFFLOAD_BUF_UNCACHED with a dma-buf flag, both exporter flags),
 *   -EBADF (context closed), -ENODEV (no such device, or it is not usable;
 *   dma-buf: no exporter node on this machine, or the node is not an
 *   exporter: a directory, a regular file, a device that answers the
 *   allocation ioctl with ENOTTY), -ENOMEM (no provider has that much DMA
 *   memory, or none gives uncached memory; dma-buf: an exporter refused the
 *   size), -EACCES (dma-buf: the exporter node exists but this process may
 *   not open it, or the dma-buf it gave cannot be mapped for writing),
 *   -ENOTSUP (dma-buf for a direct engine or AF_ALG), and for a dma-buf only:
 *   -EMFILE (the process or the system is out of file descriptors), -EIO (an
 *   exporter failed in another way; the message gives the errno it returned).
 *   Nothing else. When several exporters were tried, the errno is that of the
 *   one that got furthest (-ENODEV least, then -EACCES, then the others). The
 *   message says what was tried: each path with its reason.
 *
 * Thread-safety: safe to call concurrently on one context.
 */
int offload_buf_alloc(offload_ctx *ctx, int dev, size_t len, uint32_t flags, offload_buf **out);

/**
 * @brief Import a dma-buf someone else made (a V4L2 VIDIOC_EXPBUF fd, a DRM
 * PRIME fd, one received from another process) as a buffer.
 *
 * The fd is duplicated (F_DUPFD_CLOEXEC; the caller keeps and closes its
 * own), its size taken from fstat() (the dma-buf inode's size,
 * drivers/dma-buf/dma-buf.c) or lseek(SEEK_END), and all of it mapped
 * read-write with mmap(). The buffer then behaves as one allocated with
 * ::OFFLOAD_BUF_DMABUF: it starts in the CPU's hands (SYNC_START at import),
 * the same devices accept it, and offload_buf_free() ends the window, unmaps
 * and closes the duplicate. Useful to copy a camera frame into memory an
 * engine can reach, or to process it in place with the CPU.
 *
 * @param ctx An open context.
 * @param dev Device index, or ::OFFLOAD_DEV_AUTO for the CPU.
 * @param fd  A dma-buf file descriptor, opened read-write.
 * @param out Receives the buffer; offload_buf_size() is the dma-buf's size in bytes.
 * @return 0, or -EINVAL (NULL argument; fd is not a dma-buf: a plain file, a
 *   pipe, ...; the message names what it is), -EBADF (fd is not open, or the
 *   context is closed), -ENODEV (no such device), -ENOTSUP (dev is a direct
 *   engine or AF_ALG), -EACCES (the fd is read-only and cannot be mapped for writing),
 *   or the -errno of dup/mmap/DMA_BUF_IOCTL_SYNC.
 *
 * Thread-safety: safe to call concurrently on one context.
 */
int offload_buf_import_dmabuf(offload_ctx *ctx, int dev, int fd, offload_buf **out);

/**
 * @brief The dma-buf file descriptor of a buffer.
 *
 * Ownership stays with the buffer: the fd is closed by offload_buf_free().
 * Pass it to an ioctl (VIDIOC_QBUF with V4L2_MEMORY_DMABUF,
 * DRM_IOCTL_PRIME_FD_TO_HANDLE) or send it over a Unix socket (SCM_RIGHTS
 * duplicates it) directly; dup() it to keep the dma-buf beyond the buffer.
 * It is close-on-exec.
 *
 * @param buf The buffer.
 * @return The fd (>= 0), or -EINVAL (NULL or not a buffer), -ENOTSUP (the
 *   buffer is not a dma-buf: allocated without ::OFFLOAD_BUF_DMABUF and not
 *   imported).
 *
 * Thread-safety: safe from any thread.
 */
int offload_buf_dmabuf_fd(const offload_buf *buf);

/**
 * @brief Which exporter made a dma-buf buffer.
 *
 * @param buf The buffer.
 * @return The kernel's exporter name as /proc/self/fdinfo shows it
 *   ("udmabuf", "system" for the system heap, a driver's name for an imported
 *   fd), or NULL if buf is NULL or not a dma-buf buffer. Valid as long as
 *   the buffer.
 *
 * Thread-safety: safe from any thread.
 */
const char *offload_buf_dmabuf_exporter(const offload_buf *buf);

/**
 * @brief Free a buffer. No operation may still be using it.
 *
 * A dma-buf buffer whose CPU-access window is open gets its SYNC_END first;
 * then it is unmapped and its fd closed (a dup the caller made keeps the
 * dma-buf alive).
 * @param buf The buffer; invalid afterwards.
 * @return 0, or -EINVAL if buf is NULL, or the -errno of a failed SYNC_END
 *   (the buffer is freed all the same).
 *
 * Thread-safety: not concurrently with other calls on the same buffer.
 */
int offload_buf_free(offload_buf *buf);

/**
 * @brief CPU address of a buffer.
 * @param buf The buffer.
 * @return The address, or NULL if buf is NULL.
 *
 * Thread-safety: safe from any thread.
 */
void *offload_buf_ptr(const offload_buf *buf);

/**
 * @brief Size of a buffer in bytes (after rounding).
 * @param buf The buffer.
 * @return The size, or 0 if buf is NULL.
 *
 * Thread-safety: safe from any thread.
 */
size_t offload_buf_size(const offload_buf *buf);

/**
 * @brief Address of the buffer as the device sees it (after dma-ranges).
 * @param buf The buffer.
 * @return The bus address; 0 if buf is NULL or the buffer is plain memory
 *   (a device the library does not drive directly) or a dma-buf.
 *
 * Thread-safety: safe from any thread.
 */
uint64_t offload_buf_bus_addr(const offload_buf *buf);

/**
 * @brief Cache handling of a buffer.
 * @param buf The buffer.
 * @return The mode; ::OFFLOAD_CACHE_STREAMING for a dma-buf (its CPU access
 *   must be bracketed). If @p buf is NULL or not a buffer,
 *   ::OFFLOAD_CACHE_STREAMING, the answer that is safe to act on (cache
 *   maintenance is never wrong, only slower), and offload_last_error(NULL)
 *   says "offload_buf_cache_mode: buffer is NULL" (or "not a buffer").
 *   Before 0.2 the answer was ::OFFLOAD_CACHE_COHERENT, which told a
 *   caller with a bug to skip the maintenance a non-coherent device needs.
 *
 * Thread-safety: safe from any thread.
 */
enum offload_cache_mode offload_buf_cache_mode(const offload_buf *buf);

/**
 * @brief Give a range of the buffer to the device (clean the CPU caches for it).
 *
 * @param buf The buffer.
 * @param off Offset in bytes.
 * @param len Length in bytes; the range is widened to whole cache lines.
 * @param dir Direction of the coming DMA.
 * @return 0, or -EINVAL (NULL buffer, range outside the buffer, bad direction),
 *   or the -errno of DMA_BUF_IOCTL_SYNC.
 *
 * A dma-buf buffer: ends the CPU-access window with DMA_BUF_IOCTL_SYNC
 * (SYNC_END | READ | WRITE, whole buffer) if one is open, else does nothing.
 *
 * Thread-safety: not concurrently with other calls on the same range (a
 * dma-buf buffer: on the same buffer).
 */
int offload_buf_sync_for_device(offload_buf *buf, size_t off, size_t len, enum offload_dma_dir dir);

/**
 * @brief Give a range of the buffer back to the CPU (invalidate the CPU caches for it).
 *
 * @param buf The buffer.
 * @param off Offset in bytes.
 * @param len Length in bytes; the range is widened to whole cache lines.
 * @param dir Direction of the DMA that finished.
 * @return 0, or -EINVAL (NULL buffer, range outside the buffer, bad direction),
 *   or the -errno of DMA_BUF_IOCTL_SYNC (the window is then closed).
 *
 * A dma-buf buffer: opens the CPU-access window with DMA_BUF_IOCTL_SYNC
 * (SYNC_START | READ | WRITE, whole buffer), whatever the direction; if a
 * window is already open it is ended first, so every START has its END.
 *
 * Thread-safety: not concurrently with other calls on the same range (a
 * dma-buf buffer: on the same buffer).
 */
int offload_buf_sync_for_cpu(offload_buf *buf, size_t off, size_t len, enum offload_dma_dir dir);

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_BUF_H */
