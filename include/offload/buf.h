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
 * @param ctx   An open context.
 * @param dev   Device index, or ::OFFLOAD_DEV_AUTO for the CPU (plain memory).
 * @param len   Size in bytes (> 0); rounded up to the cache line.
 * @param flags OFFLOAD_BUF_* flags.
 * @param out   Receives the buffer.
 * @return 0, or -EINVAL (NULL argument, len 0 or above SIZE_MAX / 2, unknown
 *   flags), -EBADF (context closed), -ENODEV (no such device, or it is not
 *   usable), -ENOMEM (no provider has that much DMA memory, or none gives
 *   uncached memory; the message says what was tried).
 *
 * Thread-safety: safe to call concurrently on one context.
 */
int offload_buf_alloc(offload_ctx *ctx, int dev, size_t len, uint32_t flags, offload_buf **out);

/**
 * @brief Free a buffer. No operation may still be using it.
 * @param buf The buffer; invalid afterwards.
 * @return 0, or -EINVAL if buf is NULL.
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
 *   (a device the library does not drive directly).
 *
 * Thread-safety: safe from any thread.
 */
uint64_t offload_buf_bus_addr(const offload_buf *buf);

/**
 * @brief Cache handling of a buffer.
 * @param buf The buffer.
 * @return The mode, or ::OFFLOAD_CACHE_COHERENT if buf is NULL.
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
 * @return 0, or -EINVAL (NULL buffer, range outside the buffer, bad direction).
 *
 * Thread-safety: not concurrently with other calls on the same range.
 */
int offload_buf_sync_for_device(offload_buf *buf, size_t off, size_t len, enum offload_dma_dir dir);

/**
 * @brief Give a range of the buffer back to the CPU (invalidate the CPU caches for it).
 *
 * @param buf The buffer.
 * @param off Offset in bytes.
 * @param len Length in bytes; the range is widened to whole cache lines.
 * @param dir Direction of the DMA that finished.
 * @return 0, or -EINVAL (NULL buffer, range outside the buffer, bad direction).
 *
 * Thread-safety: not concurrently with other calls on the same range.
 */
int offload_buf_sync_for_cpu(offload_buf *buf, size_t off, size_t len, enum offload_dma_dir dir);

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_BUF_H */
