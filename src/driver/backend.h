/* SPDX-License-Identifier: MIT */
/*
 * The backend interface: the one descriptor each backends/<name>/ gives.
 *
 * A backend is one `const struct ofl_backend ofl_backend_<name>`, listed by
 * one offload_engine(<name>) line in backends/CMakeLists.txt, which
 * generates the registry (ofl_backends[], in probe order). A backend that
 * owns an engine carries its device-tree match table and its policy hook;
 * src/core discovers the nodes every table names, src/policy decides their
 * policy (the generic rules around the engine's hook), and then backends
 * probe them. A backend never edits the decisions afterwards: what it learns
 * at probe time goes through ofl_dev_refine() (src/driver/driver.h).
 *
 * Life of a context, as the core drives it:
 *   1. init()        once per context, per backend allowed by the allow-list;
 *                    a negative return means "absent here" (reason recorded),
 *                    never a context-open failure.
 *   2. pseudo()      a device no device tree describes that the backend
 *                    offers (the CPU, AF_ALG), given as data.
 *   3. probe()       for each discovered device this backend may serve: the
 *                    devices of its own engine (unless the match row says
 *                    OFL_ROW_LIST_ONLY) and those of engines whose flags it
 *                    `serves`; the first backend in registry order that binds
 *                    (returns 0) serves the device.
 *   4. ops           called from any thread (sync ops) or the queue owner.
 *   5. remove(), fini() at context close.
 */
#ifndef OFL_DRIVER_BACKEND_H
#define OFL_DRIVER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <offload/offload.h>

#include "driver/decision.h"
#include "dt/dt.h"

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
	/*
	 * Optional: stop the started jobs at once (offload_queue_close() calls
	 * it before its last progress calls, which then collect them, typically
	 * as -ECANCELED). NULL: close waits for them to finish.
	 */
	void (*queue_cancel)(struct offload_queue *q);
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

/* Crypto and SPI op tables are declared by their modules (src/driver/crypto.h,
 * src/driver/spi.h); the descriptor only carries the pointers. */
struct ofl_cipher_ops;
struct ofl_hash_ops;
struct ofl_spi_ops;

/* struct ofl_backend.flags: what an engine's devices are, and what the backend refuses. */
#define OFL_BE_SPI_CONTROLLER (1u << 0) /* its engine is an SPI controller: its nodes take SPI children */
#define OFL_BE_KERNEL_CRYPTO (1u << 1)  /* the kernel's crypto API may reach its engine (linux_crypto_prefix) */
#define OFL_BE_DMA_MEMORY (1u << 2)     /* it moves data through DMA memory the library allocates */
#define OFL_BE_NO_DMABUF (1u << 3)      /* it cannot take dma-buf memory (AF_ALG cannot pin its pages) */
#define OFL_BE_KERNEL_DMAENGINE (1u << 4) /* its engine has a Linux dmaengine driver offering DMA_MEMCPY */

/*
 * A device that no device tree describes (the CPU, AF_ALG), as its backend
 * declares it: src/policy turns this into the device's decisions.
 */
struct ofl_pseudo_dev {
	const char *name, *kind;
	uint32_t caps;             /* OFFLOAD_CAP_* */
	uint32_t devflags;         /* OFFLOAD_DEVF_CPU or _KERNEL */
	bool fallback;             /* the device every operation can fall back to (the CPU) */
	const char *coherent_reason, *cache_reason, *burst_reason, *align_reason;
	uint64_t threshold_bytes;
	const char *threshold_reason;
	const char *transfer_mode;
	char transfer_reason[OFL_REASON_LEN];
	char usable_reason[OFL_REASON_LEN];
	/* Optional, for a backend offering several devices (the dmaengine backend, one per DMA controller): */
	const char *dt_path;       /* the device-tree node the device stands for ("" or NULL: none) */
	void *priv;                /* becomes the device's priv (freed by the backend's remove()) */
	bool unusable;             /* listed, but served by no backend (usable_reason says why) */
	bool more;                 /* set: call pseudo() again for the next device (out->index + 1) */
	unsigned index;            /* in: 0 for the backend's first device, then 1, 2, ... */
};

struct ofl_backend {
	const char *name;  /* backend name and allow-list key, as its offload_engine() line */
	uint32_t caps;     /* OFFLOAD_CAP_* this backend can serve */
	uint32_t flags;    /* OFL_BE_* */

	/* The engine it owns (NULL for a backend that owns none). */
	const struct ofl_dt_id *match;   /* NULL-compatible terminated; data: rows headed by struct ofl_match_row */
	ofl_policy_hook policy;          /* its engine's rules (src/driver/decision.h) */
	const char *linux_driver;        /* Linux driver of its nodes ("fsl-dspi"), for kernel paths and messages */
	const char *linux_crypto_prefix; /* cra_driver_name prefix of that driver's algorithms ("safexcel-") */
	/* Devices of other engines it may serve: it probes those whose owner has one of these OFL_BE_* flags. */
	uint32_t serves;

	int (*init)(struct offload_ctx *ctx, void **state, char *why, size_t why_len);
	void (*fini)(struct offload_ctx *ctx, void *state);
	/*
	 * Fill *out with the device it offers: 1, 0 when it offers none, or -errno (the open fails).
	 * A backend that sets out->more is asked again with out->index one higher.
	 */
	int (*pseudo)(struct offload_ctx *ctx, void *state, struct ofl_pseudo_dev *out);
	int (*probe)(struct offload_ctx *ctx, void *state, struct ofl_device *dev, char *why,
		     size_t why_len);
	void (*remove)(struct ofl_device *dev);

	const struct ofl_memcpy_ops *memcpy;
	const struct ofl_cipher_ops *cipher;
	const struct ofl_hash_ops *hash;
	const struct ofl_spi_ops *spi;
};

/* NULL-terminated, in probe-preference order (generated by backends/CMakeLists.txt). */
extern const struct ofl_backend *const ofl_backends[];

#endif /* OFL_DRIVER_BACKEND_H */
