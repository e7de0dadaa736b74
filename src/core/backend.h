/* SPDX-License-Identifier: MIT */
/*
 * The backend interface: what src/core expects of backends/<name>/.
 *
 * A backend is one `const struct ofl_backend` registered in
 * src/core/registry.c. It never reads the device tree for policy: it gets the
 * struct ofl_policy that src/policy computed for the device it serves.
 *
 * Life of a context, as the core drives it:
 *   1. init()        once per context, per backend allowed by the allow-list;
 *                    a negative return means "absent here" (reason recorded),
 *                    never a context-open failure.
 *   2. add_devices() non-DT devices the backend offers (the CPU, AF_ALG).
 *   3. probe()       for each DT-discovered device whose kind the backend
 *                    serves; the first backend in registry order that binds
 *                    (returns 0) serves the device.
 *   4. ops           called from any thread (sync ops) or the queue owner.
 *   5. remove(), fini() at context close.
 */
#ifndef OFL_CORE_BACKEND_H
#define OFL_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <offload/offload.h>

struct offload_ctx;
struct ofl_device;
struct offload_queue;

/* One job in a copy queue's ring (owned by src/core/queue.c). */
struct ofl_job {
	void *dst;
	const void *src;
	size_t len;
	uint64_t user_data;
	int32_t status;   /* set by the backend when the job finishes */
	uint32_t flags;   /* OFFLOAD_RES_* set by the backend */
};

/*
 * Ring indices are free-running uint32_t counters (index & mask = slot):
 *   head <= done <= submitted <= tail
 *   [head, done)       finished, not yet reaped (status valid)
 *   [done, submitted)  handed to the backend by submit
 *   [submitted, tail)  enqueued, waiting for the doorbell
 * The backend advances `done` (and only `done`), in submit() or progress(),
 * always on the owner's thread: a backend that finishes jobs elsewhere keeps
 * its own atomic count and copies it into `done` in progress().
 */
struct offload_queue {
	struct offload_ctx *ctx;
	struct ofl_device *dev;
	uint32_t depth, mask;
	uint32_t head, done, submitted, tail;
	struct ofl_job *jobs;
	void *bq; /* backend queue state */
};

struct ofl_memcpy_ops {
	/*
	 * Synchronous copy; arguments are validated, len > 0, no overlap. Any
	 * thread, concurrently. On failure record the reason with ofl_err().
	 * -EBUSY (no free channel) and -ENOMEM (no DMA memory for one) only
	 * before any byte of dst was written: the core then runs a copy it chose
	 * the device for on the CPU instead.
	 */
	int (*copy)(struct ofl_device *dev, void *dst, const void *src, size_t len,
		    struct offload_result *res);
	/*
	 * Optional: copy() of fewer bytes than this is nothing but memcpy() on
	 * the calling thread (no counter, no result but the device), so the core
	 * may run such copies itself. NULL or 0: never.
	 */
	size_t (*inline_below)(const struct ofl_device *dev);
	/* Async queue. open() may allocate q->bq; nothing after it may allocate. */
	int (*queue_open)(struct ofl_device *dev, struct offload_queue *q);
	void (*queue_close)(struct offload_queue *q);
	/* Start jobs [q->submitted, q->tail). The core then sets submitted = tail. */
	int (*queue_submit)(struct offload_queue *q);
	/*
	 * Advance q->done over finished jobs (setting their status and flags),
	 * waiting up to timeout_us (0 = do not wait, < 0 = no limit) for at least
	 * one to finish if none has. Returns 0, or -ETIMEDOUT when nothing
	 * finished in time, or another -errno on failure.
	 */
	int (*queue_progress)(struct offload_queue *q, int64_t timeout_us);
};

/* Crypto and SPI op tables are declared by their modules (src/core/crypto_int.h,
 * src/core/spi_int.h); the core only carries the pointers. */
struct ofl_cipher_ops;
struct ofl_hash_ops;
struct ofl_spi_ops;

struct ofl_backend {
	const char *name;  /* "cpu", "kcapi", "spidev", "udma", "dspi", "eip97" */
	uint32_t caps;     /* OFFLOAD_CAP_* this backend can serve */
	/* Engine kinds (enum ofl_engine bits, see src/dt/dt.h) it can probe. */
	uint32_t engines;

	int (*init)(struct offload_ctx *ctx, void **state, char *why, size_t why_len);
	void (*fini)(struct offload_ctx *ctx, void *state);
	int (*add_devices)(struct offload_ctx *ctx, void *state);
	int (*probe)(struct offload_ctx *ctx, void *state, struct ofl_device *dev, char *why,
		     size_t why_len);
	void (*remove)(struct ofl_device *dev);

	const struct ofl_memcpy_ops *memcpy;
	const struct ofl_cipher_ops *cipher;
	const struct ofl_hash_ops *hash;
	const struct ofl_spi_ops *spi;
};

/* NULL-terminated, in probe-preference order. */
extern const struct ofl_backend *const ofl_backends[];

#endif /* OFL_CORE_BACKEND_H */
