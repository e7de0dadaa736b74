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

/** @addtogroup buffers
 * @{
 */

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
 * Allocation flag: the buffer is a Linux dma-buf, a file descriptor other
 * drivers and processes accept (V4L2, DRM PRIME, a Unix socket), from
 * /dev/udmabuf over a sealed memfd, else /dev/dma_heap/system.
 *
 * The contract: offload_buf_ptr() maps it (size rounded up to the page);
 * only the CPU and spidev take it (a direct engine answers -ENOTSUP, AF_ALG
 * reaches it through a bounce buffer); it starts in the CPU's hands, and
 * offload_buf_sync_for_device() / offload_buf_sync_for_cpu() end and begin
 * the CPU's access with DMA_BUF_IOCTL_SYNC over the whole dma-buf; the
 * library's own operations issue no SYNC. offload_buf_cache_mode() reports
 * ::OFFLOAD_CACHE_STREAMING, offload_buf_bus_addr() 0. Not combinable with
 * ::OFFLOAD_BUF_UNCACHED. Why each rule holds, with the kernel sources
 * behind it: docs/dmabuf.md.
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

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_BUF_H */
