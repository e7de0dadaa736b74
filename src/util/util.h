/* SPDX-License-Identifier: MIT */
/*
 * src/util: the leaf every module of the library (and liboffload-sim) may
 * use: array and arithmetic macros, compiler hints, time, bounded strings,
 * the one-line reasons the library gives for its decisions, and the range
 * checks of the copy paths. Includes nothing of the project.
 */
#ifndef OFL_UTIL_H
#define OFL_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OFL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define OFL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define OFL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define OFL_UNUSED(x) ((void)(x))

#if defined(__GNUC__)
#define OFL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define OFL_LIKELY(x) __builtin_expect(!!(x), 1)
#define OFL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* a step of a per-message path that gcc would split into an out-of-line part (hash.c) */
#define OFL_HOT_INLINE inline __attribute__((always_inline))
#else
#define OFL_HOT_INLINE inline
#define OFL_PRINTF(f, a)
#define OFL_LIKELY(x) (x)
#define OFL_UNLIKELY(x) (x)
#endif

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
 * The largest caller struct size an extensible struct's size argument may
 * give, in bytes: no layout will ever reach a page, and a size beyond it is
 * a caller's mistake that would make the library read or write past its
 * struct. Linux caps its own at a page the same way (kernel/events/core.c
 * perf_copy_attr(), kernel/sched/syscalls.c sched_copy_attr()).
 */
#define OFL_STRUCT_SIZE_MAX 4096u

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

/*
 * Bit i of an atomic bitmap (an array of atomic_uint): claim sets it and
 * says whether this caller was the one to set it; release clears it.
 */
static inline bool ofl_bitmap_claim(atomic_uint *map, unsigned i)
{
	unsigned bit = 1u << (i % 32u);

	return !(atomic_fetch_or(&map[i / 32u], bit) & bit);
}

static inline void ofl_bitmap_release(atomic_uint *map, unsigned i)
{
	atomic_fetch_and(&map[i / 32u], ~(1u << (i % 32u)));
}

/* The containing struct of an embedded member. */
#define ofl_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* Room for one reason: a sentence naming the node, property or source that decided. */
#define OFL_REASON_LEN 512

/* Format a reason into buf (len bytes, always NUL-terminated). */
void ofl_reason_set(char *buf, size_t len, const char *fmt, ...) OFL_PRINTF(3, 4);
/* Append "; " and a formatted clause to the reason in buf (nothing if it is full). */
void ofl_reason_append(char *buf, size_t len, const char *fmt, ...) OFL_PRINTF(3, 4);

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
/*
 * A negative (or positive) errno in words, as offload_strerror() answers:
 * the library's own wording for the codes its API returns, the C library's
 * for the rest; a static string.
 */
const char *ofl_strerror(int err);
/* Wipe memory so the compiler cannot drop it. */
void ofl_wipe(void *p, size_t len);

#endif /* OFL_UTIL_H */
