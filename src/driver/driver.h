/* SPDX-License-Identifier: MIT */
/*
 * src/driver: the driver interface. What a backend implements (the
 * descriptor and op tables: driver/backend.h, driver/crypto.h,
 * driver/spi.h), the device it serves, and the services it calls: error
 * messages, register claims, probe-time findings, device lookups, and the
 * device-level entry points to the platform (register regions and DMA memory
 * of a device). Backends include this layer and the ones below it (platform,
 * dt, util, hw), never src/core; the core builds on it.
 *
 * A context, as this layer sees it, is struct ofl_drv_ctx: the first member
 * of struct offload_ctx (src/core/internal.h), reached with ofl_drv(ctx).
 */
#ifndef OFL_DRIVER_H
#define OFL_DRIVER_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <offload/offload.h>

#include "driver/backend.h"
#include "driver/decision.h"
#include "dt/dt.h"
#include "platform/platform.h"
#include "util/util.h"

#define OFL_MAX_BACKENDS 16
#define OFL_MAX_DEVICES 64
#define OFL_ERRMSG_LEN 512

struct offload_ctx;

/* A device of a context: a DT-discovered engine or a pseudo-device (CPU, AF_ALG). */
struct ofl_device {
	struct offload_dev_info info;   /* public view; strings point into the fields below */
	struct offload_ctx *ctx;
	int index;
	int node;                       /* DT offset, -1 for pseudo-devices */
	const struct ofl_backend *owner; /* the engine whose match table named the node (NULL: pseudo) */
	const struct ofl_dt_id *match;  /* that table's entry: compatible and row (NULL: pseudo) */
	struct ofl_policy policy;
	const struct ofl_backend *backend; /* serving backend, NULL if none */
	void *bstate;                   /* that backend's context state (from init) */
	void *priv;                     /* that backend's per-device state (from probe) */
	bool sim;                       /* served by a model */
	struct ofl_dma_pool *dma;       /* DMA memory (src/platform), set by a direct backend's probe */
	struct ofl_dev_counters stats;
	char name[80];
	char kind[16];
	const char *dt_path;            /* full DT path: dt_path_mem, or "" for pseudo-devices */
	char *dt_path_mem;              /* malloc()ed, however long the path */
	char compatible[64];
	char status[16];
	char backend_name[16];
	char candidates[64];
	char usable_reason[OFL_REASON_LEN];
	char transfer_mode[24];
};

/* The match row (engine-specific, headed by struct ofl_match_row) of a DT device, or NULL. */
static inline const void *ofl_dev_row(const struct ofl_device *d)
{
	return d->match ? d->match->data : NULL;
}

/*
 * A register range a device mapped (ofl_mmio_map_reg), like a Linux
 * platform driver's request_mem_region() through devm_ioremap_resource().
 */
struct ofl_reg_claim {
	uint64_t phys, size;
	int dev;                        /* index of the device that claimed it */
	int node;                       /* DT node whose reg entry it is */
	char name[24];                  /* reg-names entry, or "reg[N]" */
};

/* CPU memory of a context that is a dma-buf (src/core/buf.c registers its buffers). */
struct ofl_dmabuf_range {
	const void *cpu;    /* the CPU mapping of the dma-buf from its offset 0 */
	size_t len;
	int fd;             /* the dma-buf */
	struct ofl_dmabuf_range *prev, *next;
};

/* What the driver layer knows of a context: the first member of struct offload_ctx. */
struct ofl_drv_ctx {
	/*
	 * First of all: offload_memcpy()'s inline fast path in the public header
	 * reads it at offset 0 of every context (ABI). Set by src/core when the
	 * context opens, zeroed when it closes and in a forked child.
	 */
	struct offload_ctx_fastpath fast;
	uint64_t id;                    /* unique per context, for per-thread error slots */
	uint32_t flags;                 /* OFFLOAD_CTX_* in effect (after env) */
	bool sim;                       /* models serve the device tree's engines */
	struct ofl_dt dt;               /* the device tree */
	struct ofl_platform plat;       /* the platform services (src/platform) of this context */
	struct ofl_device *devs[OFL_MAX_DEVICES];
	int ndev;
	struct ofl_reg_claim *claims;   /* register ranges mapped by bound devices (malloc()ed) */
	int nclaims, claims_cap;
	_Atomic int ndmabufs;           /* dma-buf ranges registered (ofl_ctx_in_dmabuf) */
	struct ofl_dmabuf_range *dmabufs;
	pthread_mutex_t dmabuf_lock;
};

static inline struct ofl_drv_ctx *ofl_drv(struct offload_ctx *ctx)
{
	return (struct ofl_drv_ctx *)(void *)ctx;
}
static inline const struct ofl_drv_ctx *ofl_drv_c(const struct offload_ctx *ctx)
{
	return (const struct ofl_drv_ctx *)(const void *)ctx;
}
/* The device tree of the context of `d`, NULL if none. */
static inline const void *ofl_dev_fdt(const struct ofl_device *d)
{
	return ofl_drv_c(d->ctx)->dt.fdt;
}

/* Set up / tear down the driver layer's part of a context (src/core: new and free). */
void ofl_drv_ctx_init(struct ofl_drv_ctx *c, uint64_t id);
void ofl_drv_ctx_fini(struct ofl_drv_ctx *c);

/* ---- errors (src/driver/error.c) ---- */

/* Record a message for ctx on this thread and return err (negative errno). */
int ofl_err(const struct offload_ctx *ctx, int err, const char *fmt, ...) OFL_PRINTF(3, 4);
/*
 * -EINVAL for a struct size argument above OFL_STRUCT_SIZE_MAX: func's
 * argument `arg` (size bytes) for struct `type` passed as `ptr`.
 */
int ofl_err_struct_size(const struct offload_ctx *ctx, const char *func, const char *arg,
			const char *type, const char *ptr, size_t size);
/*
 * This thread's messages, one per context (src/driver/error.c): a table of
 * entries keyed by context id (0 = recorded without a context), grown on
 * demand and bounded (OFL_ERR_KEEP, least recently written evicted). `cur_id`
 * / `cur` cache the context the thread last touched (its entry, or none).
 * `seq` counts the messages the thread recorded: the calls that run a
 * backend read it before (ofl_err_mark(), inline: it is on the path of
 * every copy, cipher and hash) to tell afterwards whether the backend
 * recorded a message of its own. Visible here only for that.
 */
struct ofl_err_ent {
	uint64_t ctx_id; /* OFL_ERR_FREE: unused entry */
	uint64_t seq;    /* when last written (for eviction) */
	char msg[OFL_ERRMSG_LEN];
};
struct ofl_tl_err {
	uint64_t cur_id;          /* the context `cur` is for */
	int cur;                  /* 1 + its entry in tab, 0 if none (TLS starts zeroed) */
	int last;                 /* 1 + the entry written last (offload_last_error(NULL)), 0 if none */
	int n, cap;               /* entries used / allocated */
	uint64_t seq;             /* messages recorded by this thread (the last one's entry seq) */
	struct ofl_err_ent *tab;
};
extern _Thread_local struct ofl_tl_err ofl_tl_err __attribute__((visibility("hidden")));

/* This thread's last message for ctx ("" if none), as offload_last_error(). */
const char *ofl_err_msg(const struct offload_ctx *ctx);
/* ofl_err_clear() when ctx is not the thread's cached context. */
void ofl_err_clear_slow(uint64_t id);
/* Forget this thread's message of a context being freed (offload_ctx_free()). */
void ofl_err_forget(const struct offload_ctx *ctx);

/*
 * This thread's mark before a backend call. A call that succeeds leaves the
 * message of the last failed call as it was (offload_last_error()); one that
 * fails asks ofl_err_since() whether the backend said why.
 */
static inline uint64_t ofl_err_mark(void)
{
	return ofl_tl_err.seq;
}

/* Did this thread record a message for ctx after `mark` (ofl_err_mark())? */
bool ofl_err_since(const struct offload_ctx *ctx, uint64_t mark);

/*
 * Clear this thread's message for ctx: a call that succeeded although a
 * step inside it failed with a message (a context open after a backend's
 * probe refused, a copy that fell back to the CPU).
 */
static inline void ofl_err_clear(const struct offload_ctx *ctx)
{
	uint64_t id = ctx ? ofl_drv_c(ctx)->id : 0;

	if (OFL_LIKELY(ofl_tl_err.cur_id == id)) {
		if (ofl_tl_err.cur)
			ofl_tl_err.tab[ofl_tl_err.cur - 1].msg[0] = '\0';
	} else {
		ofl_err_clear_slow(id);
	}
}

/* ---- devices (src/driver/device.c) ---- */

/* Device by index, or NULL. */
struct ofl_device *ofl_ctx_device(const struct offload_ctx *ctx, int index);
/* The device whose DT node is `node`, or NULL. */
struct ofl_device *ofl_ctx_device_by_node(const struct offload_ctx *ctx, int node);
/*
 * What a backend found at probe time about a decision src/policy made (the
 * policy stays the decisions' one owner; this labels the change as a
 * probe-time finding in policy.refined): `fmt` is appended as a clause to
 * the reason of `what`, or, for OFL_DECIDE_TRANSFER with a `mode`, the
 * transfer mode becomes `mode` with `fmt` as its whole reason.
 */
void ofl_dev_refine(struct ofl_device *d, enum ofl_decision what, const char *mode, const char *fmt,
		    ...) OFL_PRINTF(4, 5);
/*
 * The same for the offload threshold: the backend that serves a device
 * through another path than its engine's own (the kernel's dmaengine) knows
 * the crossover of that path; `bytes` replaces it and `fmt` its whole reason.
 */
void ofl_dev_refine_threshold(struct ofl_device *d, uint64_t bytes, const char *fmt, ...) OFL_PRINTF(3, 4);

/*
 * Claim [phys, phys + size), reg entry `name` of DT node `node`, for `dev`
 * before mapping it, as a Linux driver's devm_ioremap_resource() does with
 * __request_region() (kernel/resource.c): a range that overlaps one another
 * device already claimed is refused with -EBUSY and `why` names that device,
 * its node and the overlapping addresses. Ranges of the same device may
 * overlap each other. -ENOMEM when the table cannot grow. Open-time only
 * (the context is not shared yet): no lock.
 */
int ofl_ctx_claim_regs(struct offload_ctx *ctx, const struct ofl_device *dev, int node,
		       const char *name, uint64_t phys, uint64_t size, char *why, size_t why_len);
/* Drop every claim of `dev` (its probe failed: Linux releases devm resources then). */
void ofl_ctx_release_regs(struct offload_ctx *ctx, const struct ofl_device *dev);

/*
 * Register / unregister CPU memory that is a dma-buf of this context
 * (src/core/buf.c, for every dma-buf buffer). Thread-safe.
 */
void ofl_ctx_dmabuf_add(struct offload_ctx *ctx, struct ofl_dmabuf_range *r);
void ofl_ctx_dmabuf_del(struct offload_ctx *ctx, struct ofl_dmabuf_range *r);
/*
 * Does [p, p + len) overlap a dma-buf buffer of this context? Such memory has
 * no struct pages, so the kernel cannot pin it (AF_ALG's af_alg_make_sg /
 * vmsplice fail with EFAULT): the kcapi backend bounces it. One relaxed load
 * when the context has no dma-buf buffer.
 */
bool ofl_ctx_in_dmabuf(struct offload_ctx *ctx, const void *p, size_t len);
/*
 * Where [p, p + len) lies in the context's dma-buf buffers: 1 wholly inside
 * one (*fd its dma-buf, *off the offset of p in it), -1 partly in one, 0 in
 * none. The buffer must stay allocated while its fd is used. Thread-safe.
 */
int ofl_ctx_dmabuf_find(struct offload_ctx *ctx, const void *p, size_t len, int *fd, uint64_t *off);

/* Fill a result. */
static inline void ofl_result_set(struct offload_result *res, const struct ofl_device *dev,
				  const char *driver, uint32_t flags)
{
	if (res) {
		res->dev = dev->index;
		res->backend = dev->backend ? dev->backend->name : "";
		res->driver = driver;
		res->flags = flags;
	}
}

/* ---- a device's registers and DMA memory (src/driver/device.c over src/platform) ---- */

/*
 * Map register region `name` (or reg entry `index` when name is NULL) of DT
 * node `node` for device `dev`: the address from the device tree (reg +
 * reg-names, translated through every parent's ranges), claimed for the
 * device (ofl_ctx_claim_regs), then mapped by the platform
 * (ofl_mmio_map()). On failure `why` says what was tried.
 */
int ofl_mmio_map_reg(struct ofl_device *dev, int node, const char *name, int index,
		     struct ofl_mmio *out, char *why, size_t why_len);
/*
 * A device's DMA memory: ofl_dma_pool_new() on the context's platform with
 * the device's name and counters (o->xlate as given: ofl_dma_xlate_dt for
 * the device's dma-ranges, NULL for identity). The reason of a failure is
 * recorded with ofl_err() on dev->ctx. Returns 0 or the platform's -errno.
 */
int ofl_dma_pool_create(struct ofl_device *dev, const struct ofl_dma_pool_opts *o,
			struct ofl_dma_pool **out);
/* The usual ofl_dma_xlate_fn: the `dma-ranges` of the device's DT node; arg is its struct ofl_device. */
int ofl_dma_xlate_dt(void *arg, uint64_t phys, uint64_t *bus, char *why, size_t why_len);

#endif /* OFL_DRIVER_H */
