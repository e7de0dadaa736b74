/* SPDX-License-Identifier: MIT */
/*
 * Internal declarations shared by src/ and backends/. Never installed.
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

#include "core/backend.h"
#include "dt/dt.h"
#include "policy/policy.h"

#define OFL_MAX_BACKENDS 16
#define OFL_MAX_DEVICES 64
#define OFL_ERRMSG_LEN 512

/* struct offload_ctx::magic of a live context ("oflc"). */
#define OFL_CTX_MAGIC 0x6f666c63u

#define OFL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define OFL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define OFL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define OFL_UNUSED(x) ((void)(x))

/*
 * On the definition of every public offload_* function: the library is
 * compiled with -fvisibility=hidden, so only these are visible outside it
 * (liboffload.so exports them through src/offload.map; liboffload.a keeps
 * every other symbol local, see cmake/OffloadLibraries.cmake).
 */
#define OFFLOAD_API __attribute__((visibility("default")))

/*
 * The size of a public struct as it was when its last field was `last`
 * (a release's layout: fields are only added at the end), padding included.
 */
#define OFL_SIZE_UPTO(type, last)                                                               \
	((offsetof(type, last) + sizeof(((type *)0)->last) + _Alignof(type) - 1) /              \
	 _Alignof(type) * _Alignof(type))

/*
 * Copy a struct the library fills (src, src_size bytes) to a caller that
 * compiled against dst_size bytes of it: an older, shorter layout gets what
 * it has room for, a newer, longer one gets the rest zeroed (the fields this
 * library does not know read as 0, their documented "unknown").
 */
static inline void ofl_struct_out(void *dst, size_t dst_size, const void *src, size_t src_size)
{
	__builtin_memcpy(dst, src, OFL_MIN(dst_size, src_size));
	if (dst_size > src_size)
		__builtin_memset((char *)dst + src_size, 0, dst_size - src_size);
}

#if defined(__GNUC__)
#define OFL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define OFL_LIKELY(x) __builtin_expect(!!(x), 1)
#define OFL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define OFL_PRINTF(f, a)
#define OFL_LIKELY(x) (x)
#define OFL_UNLIKELY(x) (x)
#endif

/*
 * Per-device work counters behind offload_dev_stats(): cache maintenance
 * (src/platform) and what the backend moved. Relaxed atomics: any thread.
 */
struct ofl_dev_counters {
	atomic_uint_fast64_t cache_clean_calls, cache_inval_calls, cache_bytes, cache_ns;
	atomic_uint_fast64_t jobs, bytes, bounced_bytes, cpu_bytes;
};

struct ofl_dma_pool;
struct ofl_sim;

/* A device of a context: a DT-discovered engine or a pseudo-device (CPU, AF_ALG). */
struct ofl_device {
	struct offload_dev_info info;   /* public view; strings point into the fields below */
	struct offload_ctx *ctx;
	int index;
	int node;                       /* DT offset, -1 for pseudo-devices */
	enum ofl_engine engine;
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

/*
 * A register range a device mapped (ofl_ctx_claim_regs), like a Linux
 * platform driver's request_mem_region() through devm_ioremap_resource().
 */
struct ofl_reg_claim {
	uint64_t phys, size;
	int dev;                        /* index of the device that claimed it */
	int node;                       /* DT node whose reg entry it is */
	char name[24];                  /* reg-names entry, or "reg[N]" */
};

struct ofl_backend_slot {
	const struct ofl_backend *be;
	void *state;
	bool present;
	char why[OFL_REASON_LEN];       /* why absent, or a note when present */
};

struct offload_ctx {
	/*
	 * First, always: offload_memcpy()'s inline fast path in the public
	 * header reads it (ABI). Set by choose_defaults() at open, zeroed at
	 * close and in a forked child (context.c).
	 */
	struct offload_ctx_fastpath fast;
	uint32_t magic;
	bool open;
	uint64_t id;                    /* unique per context, for per-thread error slots */
	uint32_t flags;                 /* OFFLOAD_CTX_* in effect (after env) */
	bool sim;                       /* models attached */
	bool sim_auto;                  /* ... only because AUTO fell back to the built-in board */
	bool dt_fallback;               /* AUTO fell back to the built-in board */
	struct ofl_sim *sim_world;      /* src/sim world, shared by the models (refcounted there) */
	struct ofl_dt dt;
	char allow[256];                /* backend allow-list in effect, "" = all */

	struct ofl_backend_slot backends[OFL_MAX_BACKENDS];
	int nbackends;

	struct ofl_device *devs[OFL_MAX_DEVICES];
	int ndev;
	struct ofl_reg_claim *claims;   /* register ranges mapped by bound devices (malloc()ed) */
	int nclaims, claims_cap;
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
	_Atomic int ndmabufs;           /* dma-buf buffers among the handles (ofl_ctx_in_dmabuf) */
	pthread_mutex_t lock;           /* protects the handle list and backend lazy state */
};

/* ---- errors (src/core/error.c) ---- */

/* Record a message for ctx on this thread and return err (negative errno). */
int ofl_err(const struct offload_ctx *ctx, int err, const char *fmt, ...) OFL_PRINTF(3, 4);
/*
 * A backend call on device d failed with r; the caller cleared the message
 * before the call. The user sees which API function failed: "<func>: <the
 * backend's message>", or a generic sentence when the backend left none.
 * Returns r.
 */
int ofl_backend_err(const struct offload_ctx *ctx, const char *func, const struct ofl_device *d, int r);
/* Clear this thread's message for ctx (not normally needed). */
/*
 * This thread's last message (src/core/error.c). Visible here only so that
 * ofl_err_clear() is inline: the crypto paths clear it around every backend
 * call, and an out-of-line call plus TLS lookup cost a 16-byte SHA-256 about
 * 5 % of its speed (bench/crypto_overhead.sh).
 */
struct ofl_tl_err {
	uint64_t ctx_id; /* 0 = recorded without a context */
	char msg[OFL_ERRMSG_LEN];
};
extern _Thread_local struct ofl_tl_err ofl_tl_err __attribute__((visibility("hidden")));

static inline void ofl_err_clear(const struct offload_ctx *ctx)
{
	if (!ctx || ofl_tl_err.ctx_id == ctx->id)
		ofl_tl_err.msg[0] = '\0';
}

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
 * An on/off environment value, case-insensitively: 1 for "1", "yes", "true",
 * "on"; 0 for "", "0", "no", "false", "off"; -EINVAL for anything else.
 */
int ofl_env_bool(const char *v);
/*
 * May `d` be an automatic choice (memcpy default, crypto engine)? Models are
 * not when they were attached only because AUTO fell back to the built-in
 * board (no --sim / OFFLOAD_SIM / OFFLOAD_DT_BUILTIN asked for them).
 */
bool ofl_ctx_auto_ok(const struct offload_ctx *ctx, const struct ofl_device *d);
/* Is backend `name` allowed by the allow-list? */
bool ofl_ctx_backend_allowed(const struct offload_ctx *ctx, const char *name);
/* Add a device (pseudo or DT). Returns it, or NULL when the table is full. */
struct ofl_device *ofl_ctx_add_device(struct offload_ctx *ctx, const char *name, const char *kind);
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
/* Device by index, or NULL. */
struct ofl_device *ofl_ctx_device(const struct offload_ctx *ctx, int index);
/* Context state of a backend, NULL if absent. */
void *ofl_ctx_backend_state(const struct offload_ctx *ctx, const char *name);
/* Link / unlink a handle (thread-safe). */
void ofl_ctx_handle_add(struct offload_ctx *ctx, struct ofl_handle *h, const char *what,
			void (*destroy)(struct ofl_handle *h));
void ofl_ctx_handle_del(struct offload_ctx *ctx, struct ofl_handle *h);
/*
 * Does [p, p + len) overlap a dma-buf buffer of this context (src/core/buf.c)?
 * Such memory has no struct pages, so the kernel cannot pin it (AF_ALG's
 * af_alg_make_sg / vmsplice fail with EFAULT): the kcapi backend bounces it.
 * One relaxed load when the context has no dma-buf buffer.
 */
bool ofl_ctx_in_dmabuf(struct offload_ctx *ctx, const void *p, size_t len);
/* The containing struct of an embedded member. */
#define ofl_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* ---- argument checks shared by every module (src/core/util.c) ---- */

/* [p, p+len) wraps the address space? (Inline: on every copy's fast path.) */
static inline bool ofl_range_wraps(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return len != 0 && a + (len - 1) < a;
}

/* Do [a, a+alen) and [b, b+blen) overlap? Neither range may wrap. */
static inline bool ofl_ranges_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	/* Distances in modular arithmetic: no overflow even at the top of memory. */
	return alen != 0 && blen != 0 && (x - y < blen || y - x < alen);
}

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
/* Monotonic clock in nanoseconds. */
uint64_t ofl_now_ns(void);
/*
 * One wait step of a loop polling an engine's registers: a CPU pause for the
 * first 64 steps, then sched_yield() up to 2048, then 20 us sleeps. *spins
 * counts the steps (start it at 0 for each wait).
 */
void ofl_poll_backoff(unsigned *spins);
/*
 * now + timeout_us microseconds on the ofl_now_ns() clock, saturating:
 * a negative timeout, or one too large to represent (INT64_MAX us is about
 * 292 000 years), gives UINT64_MAX, which no clock reading reaches.
 */
uint64_t ofl_deadline_ns(uint64_t now, int64_t timeout_us);
/* Microseconds from now to deadline, rounded up; 0 when passed, INT64_MAX at most. */
int64_t ofl_us_until(uint64_t now, uint64_t deadline);
/* Copy a string into a fixed buffer, always NUL-terminated; returns dst. */
char *ofl_strlcpy(char *dst, const char *src, size_t len);
/* Wipe memory so the compiler cannot drop it. */
void ofl_wipe(void *p, size_t len);

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

#endif /* OFL_CORE_INTERNAL_H */
