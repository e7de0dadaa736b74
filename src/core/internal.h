/* SPDX-License-Identifier: MIT */
/*
 * src/core's internal declarations: the context, the handles every module
 * shares, the engines as the core asks them. Never installed, never
 * included below src/core (backends build on src/driver/driver.h).
 * Internal symbols that cross files are prefixed ofl_; they are hidden
 * (-fvisibility=hidden): only OFFLOAD_API definitions leave the library.
 */
#ifndef OFL_CORE_INTERNAL_H
#define OFL_CORE_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <offload/offload.h>

#include "driver/backend.h"
#include "driver/driver.h"
#include "dt/dt.h"
#include "policy/policy.h"
#include "util/util.h"

/* struct offload_ctx::magic of a live context ("oflc"). */
#define OFL_CTX_MAGIC 0x6f666c63u

/*
 * Every handle that belongs to a context (queue, SPI handle, cipher/hash
 * session, DMA buffer) embeds one of these, so that offload_ctx_close() can
 * refuse with -EBUSY while any is open and offload_ctx_free() can destroy
 * the ones a program forgot.
 */
struct ofl_handle {
	struct ofl_handle *prev, *next;
	void (*destroy)(struct ofl_handle *h); /* close + free, called with no lock held */
	const char *what;                      /* "queue", "spi", ... for messages */
};

struct ofl_backend_slot {
	const struct ofl_backend *be;
	void *state;
	bool present;
	char why[OFL_REASON_LEN];       /* why absent, or a note when present */
};

struct offload_ctx {
	/*
	 * What the driver layer sees: first (ofl_drv()). Its own first member is
	 * offload_memcpy()'s fast path (struct offload_ctx_fastpath), which the
	 * public header's inline code reads at offset 0 of every context (ABI).
	 */
	struct ofl_drv_ctx drv;
	uint32_t magic;
	bool open;
	bool sim_auto;                  /* models attached only because AUTO fell back to the built-in board */
	bool dt_fallback;               /* AUTO fell back to the built-in board */
	char allow[256];                /* backend allow-list in effect, "" = all */

	struct ofl_backend_slot backends[OFL_MAX_BACKENDS];
	int nbackends;

	char note[256];                 /* what open left out of a valid tree (offload_ctx_note()) */
	int cpu_dev;                    /* index of the CPU device, -1 if not allowed */
	int memcpy_dev;                 /* policy's memcpy choice (may be cpu_dev), -1 if none */
	/*
	 * offload_memcpy() dispatch, set at open: copies shorter than
	 * memcpy_threshold go to memcpy_small (the CPU, or memcpy_big when the
	 * CPU backend is not allowed), the rest to memcpy_big. Both NULL when no
	 * allowed device can copy; threshold UINT64_MAX when both are one.
	 */
	struct ofl_device *memcpy_small;
	struct ofl_device *memcpy_big;
	uint64_t memcpy_threshold;

	/*
	 * The automatic crypto device choice per algorithm (src/core/crypto.c):
	 * found at first use, fixed while the context is open, 0 = not yet.
	 * [OFL_CRYPTO_PICK_CIPHER + alg] for ciphers, [alg's base (+6 for HMAC)]
	 * for hashes; see crypto.c's pick_encode().
	 */
	atomic_uint crypto_pick[24];
	unsigned fork_gen;              /* ofl_fork_gen when opened: differs in a forked child */
	int pid;                        /* process that opened it (for messages) */

	struct offload_ctx *all_prev, *all_next; /* every context, for the fork handler */
	struct ofl_handle handles;      /* list head of open handles */
	int nhandles;
	pthread_mutex_t lock;           /* protects the handle list and backend lazy state */
};

/* ---- errors (src/core/error.c; recording: src/driver/error.c) ---- */

/*
 * A backend call on device d failed with r; `mark` is ofl_err_mark() from
 * before the call. The user sees which API function failed: "<func>: <the
 * backend's message>", or a generic sentence when the backend recorded none
 * for ctx since the mark (an older message is not passed off as its reason).
 * Returns r.
 */
int ofl_backend_err(const struct offload_ctx *ctx, const char *func, const struct ofl_device *d, int r,
		    uint64_t mark);

/* ---- context helpers (src/core/context.c) ---- */

/*
 * Bumped in the child of every fork() by a pthread_atfork() handler that
 * offload_ctx_new() registers. A context whose fork_gen differs was opened
 * by an ancestor process: its backends' threads are not in this process and
 * its engines are the parent's (see offload.h).
 */
extern atomic_uint ofl_fork_gen;

/* Was ctx opened by another process (this is a forked child)? */
static inline bool ofl_ctx_inherited(const struct offload_ctx *ctx)
{
	return OFL_UNLIKELY(ctx->fork_gen != atomic_load_explicit(&ofl_fork_gen, memory_order_relaxed));
}

/*
 * -EINVAL / -EBADF with a message if ctx is NULL, not open, or inherited
 * through fork() (ofl_ctx_inherited); else 0.
 */
int ofl_ctx_check(const struct offload_ctx *ctx, const char *func);
/* The -EBADF (with its sentence) of a call on a context inherited through fork(). */
int ofl_inherited_err(const struct offload_ctx *ctx, const char *func);
/*
 * May `d` be an automatic choice (memcpy default, crypto engine)? Models are
 * not when they were attached only because AUTO fell back to the built-in
 * board (no --sim / OFFLOAD_SIM / OFFLOAD_DT_BUILTIN asked for them).
 */
bool ofl_ctx_auto_ok(const struct offload_ctx *ctx, const struct ofl_device *d);
/* Is backend `name` allowed by the allow-list? */
bool ofl_ctx_backend_allowed(const struct offload_ctx *ctx, const char *name);
/* Add a device (pseudo or DT; src/policy then gives it its decisions). NULL when the table is full. */
struct ofl_device *ofl_ctx_add_device(struct offload_ctx *ctx, const char *name, const char *kind);
/* ---- the engines built in (src/core/engines.c) ---- */

/*
 * Every engine node of a device tree, by the match tables of the engines
 * built into the library (src/dt's ofl_dt_discover() over those lists, in
 * registry order).
 */
int ofl_engines_discover(const void *fdt, struct ofl_dt_match *out, int max);
/* The entry of the engines' match tables that names `compatible` (and its engine), or NULL. */
const struct ofl_dt_id *ofl_engines_lookup(const char *compatible, const struct ofl_backend **engine);
/* The engine (backend descriptor) whose match table a discovered node's entry is in. */
const struct ofl_backend *ofl_engine_of(const struct ofl_dt_match *m);
/* The decisions for a discovered node (ofl_policy_compute() with its engine). */
int ofl_engine_policy(const void *fdt, const struct ofl_dt_match *m, const struct ofl_policy_opts *o,
		      struct ofl_policy *out);
/*
 * May backend `be` probe device `d`: the devices of its own engine (unless
 * the row is OFL_ROW_LIST_ONLY), and those whose engine has a flag it serves?
 */
bool ofl_backend_may_probe(const struct ofl_backend *be, const struct ofl_device *d);
/* Context state of a backend, NULL if absent. */
void *ofl_ctx_backend_state(const struct offload_ctx *ctx, const char *name);
/* Link / unlink a handle (thread-safe). */
void ofl_ctx_handle_add(struct offload_ctx *ctx, struct ofl_handle *h, const char *what,
			void (*destroy)(struct ofl_handle *h));
void ofl_ctx_handle_del(struct offload_ctx *ctx, struct ofl_handle *h);
/* ---- argument checks shared by every module (src/util/util.h has the range checks) ---- */

/*
 * The checks every copy makes, in one expression for the fast path: ctx is a
 * live open context, dst and src are non-NULL, and neither range wraps nor
 * do they overlap. False means "look closer" (ofl_ctx_check and friends say
 * what is wrong), never that the copy is valid.
 */
static inline bool ofl_copy_args_ok(const struct offload_ctx *ctx, const void *dst,
				    const void *src, size_t len)
{
	return ctx && ctx->magic == OFL_CTX_MAGIC && ctx->open && !ofl_ctx_inherited(ctx) && dst &&
	       src && !ofl_range_wraps(dst, len) && !ofl_range_wraps(src, len) &&
	       !ofl_ranges_overlap(dst, len, src, len);
}
#endif /* OFL_CORE_INTERNAL_H */
