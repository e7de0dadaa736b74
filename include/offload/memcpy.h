/* SPDX-License-Identifier: MIT */
/**
 * @file offload/memcpy.h
 * @brief Memory-to-memory copies: synchronous, and an asynchronous queue.
 *
 * The queue follows DPDK dmadev and io_uring: offload_queue_copy() only
 * writes a job into the queue's ring and returns its index (no system call,
 * no lock, no allocation); offload_queue_submit() rings the doorbell;
 * offload_queue_poll() / offload_queue_wait() reap completions in batches,
 * each with its own status and the device that ran it. Completions are
 * returned in enqueue order.
 *
 * Overlapping source and destination are rejected with -EINVAL: a DMA
 * engine copies in bursts in an order the caller cannot see, so memmove
 * semantics cannot be promised on hardware, and the CPU backend keeps the
 * same contract so that a program behaves the same on every device.
 */
#ifndef OFFLOAD_MEMCPY_H
#define OFFLOAD_MEMCPY_H

#include <stdint.h>
#include <string.h>

#include <offload/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @addtogroup memcpy
 * @{
 */

/**
 * @brief How the header's fast paths are compiled: `static inline` for
 *        programs.
 *
 * The library defines it before including this header in the one file that
 * provides the same functions as exported, non-inline symbols (for FFI, as
 * liburing's liburing-ffi does). Programs leave it alone.
 */
#ifndef OFFLOAD_INLINE
#define OFFLOAD_INLINE static inline
#endif

/**
 * @brief The inline fast paths' branch hint (internal to the headers).
 *
 * Lays the fast path out as the fall-through, so that the compiler puts the
 * library call, not the inline memcpy(), behind the taken branch. A branch
 * the predictor has no history for (the first call after the program has
 * been idle) is predicted not taken, and a fast path behind a taken branch
 * cost an isolated 4-64 KiB copy 1-5 % (bench/README.md, "After idle just
 * under the split size").
 */
#if defined(__GNUC__) || defined(__clang__)
#define OFFLOAD_LIKELY_(x) __builtin_expect(!!(x), 1)
#else
#define OFFLOAD_LIKELY_(x) (x)
#endif

/**
 * @brief What offload_memcpy()'s inline fast path reads of a context.
 *
 * Every ::offload_ctx begins with this structure (ABI since 0.2); it is
 * written by the library only (open, close, and in the child of a fork(),
 * where inherited contexts refuse every call). Programs never touch it.
 * Fields are only ever added at its end.
 */
struct offload_ctx_fastpath {
	/**
	 * Copies of 1 .. memcpy_inline_max bytes between valid, disjoint
	 * ranges are a plain memcpy() on the calling thread; 0 while the
	 * context is closed or inherited, or when such copies go elsewhere.
	 */
	size_t memcpy_inline_max;
};

/**
 * @brief offload_memcpy() without its inline fast path: every check (with its
 *        message), the device choice and the engines.
 *
 * Called by offload_memcpy() for what its fast path does not take; the same
 * contract, returns and errors as offload_memcpy().
 *
 * @param ctx An open context.
 * @param dst Destination, @p len bytes, must not overlap @p src.
 * @param src Source, @p len bytes.
 * @param len Length in bytes; 0 is a no-op that returns 0.
 * @return As offload_memcpy().
 *
 * Thread-safety: safe to call concurrently on one context.
 */
int offload_memcpy_slowpath(offload_ctx *ctx, void *dst, const void *src, size_t len);

/**
 * @brief Copy @p len bytes from @p src to @p dst on the device the policy picks.
 *
 * Copies shorter than the chosen device's threshold run inline on the CPU.
 * Large copies go to a DMA engine when one is usable, else to the CPU
 * backend, which splits very large copies across worker threads. When the
 * engine cannot take the copy at that moment (every channel is held by open
 * queues or other threads' copies, or there is no DMA memory for a channel)
 * the CPU runs it instead; offload_memcpy_dev() with ::OFFLOAD_DEV_AUTO says
 * so with ::OFFLOAD_RES_CPU | ::OFFLOAD_RES_FALLBACK. Never -EBUSY while the
 * CPU backend is allowed.
 *
 * @param ctx An open context.
 * @param dst Destination, @p len bytes, must not overlap @p src.
 * @param src Source, @p len bytes.
 * @param len Length in bytes; 0 is a no-op that returns 0.
 * @return 0 on success, or
 *   - -EINVAL: NULL ctx/dst/src, overlapping ranges, or a range that wraps
 *     the address space;
 *   - -EBADF: the context is closed;
 *   - -ETIMEDOUT / -EIO: the engine failed (dst contents are then undefined);
 *   - -ENOTSUP: the backend allow-list excludes every device that can copy;
 *   - -EBUSY / -ENOMEM: only when the allow-list excludes the CPU backend, so
 *     nothing can stand in for an engine without a free channel or DMA
 *     memory (dst untouched).
 *
 * Inline: a copy the CPU would run as a plain memcpy() on the calling
 * thread (shorter than the CPU device's split size and than any engine's
 * threshold) from valid, disjoint ranges is that memcpy() in the caller,
 * with no library call; everything else goes to
 * offload_memcpy_slowpath(). The library also exports offload_memcpy() as
 * a function (the same code) for FFI: cffi, ctypes, dlsym().
 *
 * Thread-safety: safe to call concurrently on one context.
 */
#if defined(__GNUC__) && !defined(__clang__)
/*
 * gcc's -Wrestrict looks at the memcpy() below before it folds the overlap
 * test that guards it, so a call with overlapping constant ranges (which
 * returns -EINVAL) would warn in the caller's code.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
OFFLOAD_INLINE int offload_memcpy(offload_ctx *ctx, void *dst, const void *src, size_t len)
{
	const struct offload_ctx_fastpath *f = (const struct offload_ctx_fastpath *)(const void *)ctx;
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src, n = (uintptr_t)len;

	/*
	 * n - 1 < max: 1 <= len <= max (max < 2^62). d - 1 <= ~n: dst is not
	 * NULL and [dst, dst + len) does not wrap; the same for src. The
	 * ranges are disjoint exactly when d - s (mod 2^N) lies in
	 * [len, 2^N - len], which adding len - 1 maps onto [2 len - 1, 2^N - 1].
	 */
	if (OFFLOAD_LIKELY_(f && n - 1 < f->memcpy_inline_max && d - 1 <= ~n && s - 1 <= ~n &&
			    d - s + (n - 1) >= 2 * n - 1)) {
		memcpy(dst, src, len);
		return 0;
	}
	return offload_memcpy_slowpath(ctx, dst, src, len);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/**
 * @brief Where the dmaengine backend reads its measured offload thresholds.
 *
 * A text file of lines `DRIVER BYTES` (DRIVER: the kernel DMA driver of a
 * channel as /dev/offload_dma reports it, such as `k3-udma` or
 * `bcm2835-dma`, or `*` for any; BYTES: copies of at least this many bytes go
 * to the engine when the library chooses the device, smaller ones to the
 * CPU); `#` starts a comment. `offloadctl bench memcpy --ab cpu,dmaengine
 * --write-threshold` measures the crossover and writes it here. The
 * environment variable OFFLOAD_DMAENGINE_CONF names another file;
 * OFFLOAD_DMAENGINE_THRESHOLD=BYTES overrides both. Read when a context
 * opens.
 */
#define OFFLOAD_DMAENGINE_CONF "/etc/liboffload/dmaengine.conf"
/**
 * @brief The dmaengine offload threshold (bytes) without a measurement.
 *
 * One copy through /dev/offload_dma costs two system calls, pinning and
 * mapping its pages and a completion: tens of microseconds, in which a CPU
 * copies tens of KiB. 64 KiB is the guess until `offloadctl bench memcpy
 * --ab cpu,dmaengine` measures the board.
 */
#define OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT 65536u

/**
 * @brief offload_memcpy() on a chosen device, reporting who ran it.
 *
 * @param ctx Context.
 * @param dev Device index, or ::OFFLOAD_DEV_AUTO for the policy's choice.
 *            With an explicit device the size threshold is not applied.
 * @param dst Destination (@p len bytes).
 * @param src Source (@p len bytes).
 * @param len Length in bytes.
 * @param res Filled with the device/backend that ran the copy; may be NULL.
 *            ::OFFLOAD_RES_FALLBACK when the automatic device was busy and
 *            the CPU ran the copy (see offload_memcpy()).
 * @return As offload_memcpy(), plus -ENODEV if @p dev does not exist or is
 *   not usable, -ENOTSUP if it cannot copy memory, and for an explicit
 *   device (never for ::OFFLOAD_DEV_AUTO while the CPU backend is allowed):
 *   -EBUSY when every channel of the engine is held by open queues or
 *   concurrent copies (retry later, or close a queue), -ENOMEM when no DMA
 *   memory for a channel's descriptors, rings and bounce buffers is left
 *   (dst is untouched in both cases).
 *
 * Thread-safety: safe to call concurrently on one context.
 */
int offload_memcpy_dev(offload_ctx *ctx, int dev, void *dst, const void *src, size_t len,
		       struct offload_result *res);

/** @} */

/** @addtogroup queue
 * @{
 */

/** An asynchronous copy queue bound to one device. See offload_queue_open(). */
typedef struct offload_queue offload_queue;

/** Options for offload_queue_open(). Initialise with offload_queue_opts_init(). */
struct offload_queue_opts {
	/** sizeof(struct offload_queue_opts) as compiled by the caller. */
	uint32_t size;
	/** Ring depth in jobs: a power of two, 2 .. 65536. Default 256. */
	uint32_t depth;
	/** Device index, or ::OFFLOAD_DEV_AUTO (the best usable memcpy device). */
	int dev;
};

/**
 * One finished job, as returned by offload_queue_poll() and offload_queue_wait().
 * An array element (its size is the stride of the caller's array), so it
 * never grows; a later release that reports more adds a struct of its own.
 */
struct offload_completion {
	/** The value passed to offload_queue_copy(). */
	uint64_t user_data;
	/** The job index offload_queue_copy() returned. */
	uint32_t job;
	/** 0 on success, or -ETIMEDOUT, -EIO, -ECANCELED (queue reset) for this job. */
	int32_t status;
	/** Device that ran the job (see offload_dev_get_info()). */
	int32_t dev;
	/** OFFLOAD_RES_* bits for this job. */
	uint32_t flags;
};

/**
 * @brief Fill @p opts with the defaults (depth 256, automatic device).
 * @param opts Options to initialise; ignored if NULL.
 *
 * Thread-safety: safe from any thread.
 */
void offload_queue_opts_init(struct offload_queue_opts *opts);

/**
 * @brief Open an asynchronous copy queue.
 *
 * All memory the queue needs is allocated here; enqueue, submit and reap
 * never allocate.
 *
 * @param ctx  An open context.
 * @param opts Options, or NULL for defaults.
 * @param out  Receives the queue; set to NULL on failure.
 * @return 0, or -EINVAL (NULL argument, depth not a power of two in range),
 *   -EBADF (context closed), -ENODEV (device missing or unusable), -ENOTSUP
 *   (device cannot copy), -ENOMEM (out of memory, or no DMA memory for the
 *   channel's descriptors, rings and bounce buffers), -EBUSY (every channel
 *   of the engine is held by other queues or synchronous copies; also with
 *   ::OFFLOAD_DEV_AUTO: a queue is bound to one device and does not fall back
 *   to the CPU, so retry later, close a queue, or open one on the CPU device).
 *
 * Thread-safety: safe to call concurrently on one context. The queue itself
 * belongs to one thread at a time (the DPDK rule): calls on one queue must
 * not run concurrently; hand a queue to another thread with your own
 * synchronisation.
 */
int offload_queue_open(offload_ctx *ctx, const struct offload_queue_opts *opts, offload_queue **out);

/**
 * @brief Close a queue. Jobs not yet completed are waited for (up to the
 *        engine timeout) and then discarded.
 *
 * The wait is bounded even if the engine stops answering: a direct engine
 * fails its oldest job when no job finishes for the engine timeout (1 s on
 * K3 UDMA, Linux's teardown wait), so a stuck queue closes after about that
 * long per stall. A backend that can stop its jobs at once cancels them
 * instead of waiting: the dmaengine backend (kernel module offload_dma)
 * issues OFFLOAD_DMA_IOC_CANCEL, so close returns -ETIMEDOUT at once with the
 * started jobs cancelled and their memory no longer touched.
 *
 * @param q The queue; the handle is invalid afterwards.
 * @return 0, or -EINVAL if q is NULL, or -ETIMEDOUT if outstanding jobs had
 *   to be aborted (the queue is closed anyway), or another error the
 *   backend reported while waiting (-EIO; the queue is closed anyway).
 *
 * Thread-safety: the owning thread only.
 */
int offload_queue_close(offload_queue *q);

/**
 * @brief Enqueue a copy. Nothing starts until offload_queue_submit().
 *
 * @param q         The queue.
 * @param dst       Destination (@p len bytes); must stay valid until the job completes.
 * @param src       Source (@p len bytes); must stay valid and unchanged until then.
 * @param len       Length in bytes, > 0.
 * @param user_data Opaque value returned in the job's completion.
 * @return The job index (0 .. 2^31-1, increasing by one per job and wrapping
 *   to 0), or -EINVAL (NULL pointer, len 0, overlap), -ENOSPC (the ring holds
 *   depth jobs not yet reaped), -EBADF (the queue was inherited through fork()).
 *
 * Thread-safety: the owning thread only. Does not block or allocate.
 */
int offload_queue_copy(offload_queue *q, void *dst, const void *src, size_t len, uint64_t user_data);

/**
 * @brief Start every job enqueued since the last submit (ring the doorbell).
 *
 * On the CPU device a batch smaller than the device's split size (see its
 * transfer_reason) is copied during this call, so its completions are ready
 * when it returns; a larger batch is copied by a worker thread while the
 * caller goes on. Either way completions come back in enqueue order.
 *
 * @param q The queue.
 * @return The number of jobs submitted (>= 0), or -EINVAL.
 *
 * Thread-safety: the owning thread only.
 */
int offload_queue_submit(offload_queue *q);

/**
 * @brief Reap finished jobs without waiting.
 *
 * @param q   The queue.
 * @param cpl Array receiving up to @p max completions, in enqueue order.
 * @param max Capacity of @p cpl.
 * @return The number of completions written (0 if none is ready), or -EINVAL.
 *
 * Thread-safety: the owning thread only.
 */
int offload_queue_poll(offload_queue *q, struct offload_completion *cpl, unsigned max);

/**
 * @brief Reap finished jobs, waiting until at least one is ready.
 *
 * @param q          The queue.
 * @param cpl        Array receiving up to @p max completions, in enqueue order.
 * @param max        Capacity of @p cpl (> 0).
 * @param timeout_us Longest wait in microseconds; 0 polls once, a negative
 *                   value waits without limit, and so does in practice any
 *                   value too large for the clock (INT64_MAX is about
 *                   292 000 years; it never counts as already expired).
 * @return The number of completions written (> 0), or -ETIMEDOUT if none
 *   became ready in time (jobs stay queued), -EINVAL (bad argument, or
 *   nothing submitted and not reaped: waiting could never succeed).
 *
 * Thread-safety: the owning thread only.
 */
int offload_queue_wait(offload_queue *q, struct offload_completion *cpl, unsigned max, int64_t timeout_us);

/**
 * @brief Free ring slots: how many more jobs offload_queue_copy() accepts now.
 *
 * @param q The queue.
 * @return The count (>= 0), or -EINVAL (NULL queue), -EBADF (the queue was
 *   inherited through fork()).
 *
 * Thread-safety: the owning thread only.
 */
int offload_queue_capacity(const offload_queue *q);

/**
 * @brief The device a queue is bound to.
 *
 * @param q The queue.
 * @return The device index (>= 0), or -EINVAL (NULL queue), -EBADF (the queue
 *   was inherited through fork()).
 *
 * Thread-safety: the owning thread only.
 */
int offload_queue_dev(const offload_queue *q);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_MEMCPY_H */
