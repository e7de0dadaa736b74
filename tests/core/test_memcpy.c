/* SPDX-License-Identifier: MIT */
/*
 * offload_memcpy and the copy queue: correctness over many sizes and
 * alignments (checked byte by byte against a pattern computed here, not
 * against the source buffer), ordering, concurrency, and bad input for every
 * call of offload/memcpy.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h" /* the registry: which backends this build has */
#include "testutil.h"

#define GUARD 64u
#define GUARD_BYTE 0xee
#define MiB ((size_t)1 << 20)

/* The byte at position i of pattern `seed`: what a correct copy must deliver. */
static unsigned char pat(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + 0x9e37u;

	x ^= x >> 15;
	return (unsigned char)(x ^ (x >> 8));
}

static void pat_fill(unsigned char *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat(seed, i);
}

/* A destination with GUARD bytes of GUARD_BYTE on each side of [off, off+len). */
struct dbuf {
	unsigned char *mem;
	size_t off, len;
};

static unsigned char *dbuf_init(struct dbuf *d, size_t off, size_t len)
{
	d->mem = malloc(GUARD + off + len + GUARD);
	ck_assert_ptr_nonnull(d->mem);
	d->off = off;
	d->len = len;
	memset(d->mem, GUARD_BYTE, GUARD + off + len + GUARD);
	return d->mem + GUARD + off;
}

/*
 * Byte by byte: the copy is the pattern, and nothing around it changed.
 * (Plain ifs: every passing ck_assert costs Check a write to its log.)
 */
static void dbuf_check(const struct dbuf *d, uint32_t seed)
{
	const unsigned char *p = d->mem + GUARD + d->off;

	for (size_t i = 0; i < GUARD + d->off; i++)
		if (d->mem[i] != GUARD_BYTE)
			ck_abort_msg("len %zu: byte %zu before dst overwritten", d->len,
				     GUARD + d->off - i);
	for (size_t i = 0; i < d->len; i++)
		if (p[i] != pat(seed, i))
			ck_abort_msg("len %zu off %zu: byte %zu is 0x%02x, expected 0x%02x", d->len,
				     d->off, i, p[i], pat(seed, i));
	for (size_t i = 0; i < GUARD; i++)
		if (p[d->len + i] != GUARD_BYTE)
			ck_abort_msg("len %zu: byte %zu after dst overwritten", d->len, i);
	free(d->mem);
}

/* The first n bytes at p are pattern `seed`. */
static void pat_check(const unsigned char *p, size_t n, uint32_t seed, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(seed, i))
			ck_abort_msg("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i],
				     pat(seed, i));
}

/* Copy len bytes from a source at soff to a destination at doff and check it. */
static void copy_and_check(offload_ctx *ctx, size_t len, size_t soff, size_t doff, uint32_t seed)
{
	unsigned char *sbuf = malloc(soff + len + 1);
	struct dbuf d;
	unsigned char *dst = dbuf_init(&d, doff, len);

	ck_assert_ptr_nonnull(sbuf);
	pat_fill(sbuf + soff, len, seed);
	int r = offload_memcpy(ctx, dst, sbuf + soff, len);
	ck_assert_msg(r == 0, "len %zu: %d %s", len, r, offload_last_error(ctx));
	dbuf_check(&d, seed);
	pat_check(sbuf + soff, len, seed, "source after the copy");
	free(sbuf);
}

/* ------------------------------------------------------------------ correctness */

START_TEST(small_sizes_all_alignments)
{
	static const size_t offs[] = { 0, 1, 3, 7, 8, 15, 31, 63 };
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);

	for (size_t len = 0; len <= 300; len++)
		for (size_t a = 0; a < sizeof(offs) / sizeof(offs[0]); a++)
			copy_and_check(ctx, len, offs[a], offs[(a + 3) % 8], (uint32_t)(len * 8 + a));
	offload_ctx_free(ctx);
}
END_TEST

/* Sizes around the powers of two up to, and across, the CPU backend's split size. */
static const size_t big_sizes[] = {
	511, 512, 513, 4095, 4096, 4097, 65535, 65536, 65537, MiB - 1, MiB, MiB + 1,
	4 * MiB - 1, 4 * MiB, 4 * MiB + 1, 5 * MiB + 123, 9 * MiB + 4097, 16 * MiB + 7,
};

static void large_sizes(void)
{
	static const size_t offs[] = { 0, 1, 63, 4095 };
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);

	for (size_t k = 0; k < sizeof(big_sizes) / sizeof(big_sizes[0]); k++)
		for (size_t a = 0; a < 4; a++)
			copy_and_check(ctx, big_sizes[k], offs[a], offs[(a + 1) % 4],
				       (uint32_t)(k * 4 + a + 1000));
	offload_ctx_free(ctx);
}

START_TEST(large_sizes_default_threads)
{
	large_sizes();
}
END_TEST

START_TEST(large_sizes_more_threads_than_cpus)
{
	setenv("OFFLOAD_CPU_THREADS", "5", 1);
	large_sizes();
}
END_TEST

/* Every split and every copy made alone with streaming stores (x86-64; elsewhere memcpy). */
START_TEST(large_sizes_streaming)
{
	setenv("OFFLOAD_CPU_NT_THRESHOLD", "1", 1);
	large_sizes();
	unsetenv("OFFLOAD_CPU_NT_THRESHOLD");
}
END_TEST

START_TEST(large_sizes_one_thread)
{
	setenv("OFFLOAD_CPU_THREADS", "1", 1);
	large_sizes();
}
END_TEST

START_TEST(adjacent_ranges_are_not_overlap)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	unsigned char buf[256];

	pat_fill(buf, 128, 5);
	memset(buf + 128, 0, 128);
	/* [0,128) -> [128,256): they touch, they do not overlap. */
	ck_assert_int_eq(offload_memcpy(ctx, buf + 128, buf, 128), 0);
	pat_check(buf + 128, 128, 5, "adjacent copy");
	ck_assert_int_eq(offload_memcpy(ctx, buf, buf + 128, 128), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(memcpy_dev_reports_who_ran)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	int cpu = offload_dev_find(ctx, "cpu");
	struct offload_result res;
	unsigned char *src = malloc(6 * MiB);
	struct dbuf d;
	unsigned char *dst;
	static const size_t sizes[] = { 1, 4096, 6 * MiB };

	ck_assert_ptr_nonnull(src);
	for (size_t k = 0; k < 3; k++) {
		int devs[2] = { OFFLOAD_DEV_AUTO, cpu };
		for (int j = 0; j < 2; j++) {
			pat_fill(src, sizes[k], (uint32_t)(k + 77));
			dst = dbuf_init(&d, 1, sizes[k]);
			memset(&res, 0, sizeof(res));
			ck_assert_int_eq(offload_memcpy_dev(ctx, devs[j], dst, src, sizes[k], &res), 0);
			dbuf_check(&d, (uint32_t)(k + 77));
			ck_assert_int_eq(res.dev, cpu);
			ck_assert_str_eq(res.backend, "cpu");
			ck_assert_str_eq(res.driver, "cpu-memcpy");
			ck_assert_uint_eq(res.flags, OFFLOAD_RES_CPU);
		}
	}
	/* len 0: nothing copied, still says which device would have. */
	ck_assert_int_eq(offload_memcpy_dev(ctx, cpu, src, src + 64, 0, &res), 0);
	ck_assert_int_eq(res.dev, cpu);
	ck_assert_str_eq(res.driver, "none");
	ck_assert_uint_eq(res.flags, 0);
	/* res may be NULL. */
	ck_assert_int_eq(offload_memcpy_dev(ctx, cpu, src, src + 64, 64, NULL), 0);
	free(src);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ bad input */

START_TEST(memcpy_bad_input)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	unsigned char buf[256], other[64];
	void *top = (void *)(UINTPTR_MAX - 15); /* 16 bytes below the end of memory */

	memset(buf, 0x11, sizeof(buf));
	memset(other, 0x22, sizeof(other));
	/* NULL pointers, with and without a length. */
	ck_assert_int_eq(offload_memcpy(NULL, buf, other, 8), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "NULL"));
	ck_assert_int_eq(offload_memcpy(ctx, NULL, other, 8), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dst is NULL"));
	ck_assert_int_eq(offload_memcpy(ctx, buf, NULL, 8), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "src is NULL"));
	ck_assert_int_eq(offload_memcpy(ctx, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(offload_memcpy(ctx, buf, NULL, 0), -EINVAL);

	/* Zero length: a no-op that succeeds and writes nothing. */
	ck_assert_int_eq(offload_memcpy(ctx, buf, other, 0), 0);
	ck_assert_uint_eq(buf[0], 0x11);

	/* Lengths that wrap the address space: refused before any access. */
	ck_assert_int_eq(offload_memcpy(ctx, buf, other, SIZE_MAX), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "wraps"));
	ck_assert_int_eq(offload_memcpy(ctx, top, other, 32), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "destination"));
	ck_assert_int_eq(offload_memcpy(ctx, buf, top, 32), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "source"));
	ck_assert_int_eq(offload_memcpy(ctx, buf, other, (size_t)0 - (uintptr_t)buf + 1), -EINVAL);

	/* Overlap in every arrangement: same, dst inside src, src inside dst, partial. */
	ck_assert_int_eq(offload_memcpy(ctx, buf, buf, 16), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "overlaps"));
	ck_assert_int_eq(offload_memcpy(ctx, buf + 1, buf, 16), -EINVAL);
	ck_assert_int_eq(offload_memcpy(ctx, buf, buf + 1, 16), -EINVAL);
	ck_assert_int_eq(offload_memcpy(ctx, buf + 15, buf, 16), -EINVAL);
	ck_assert_int_eq(offload_memcpy(ctx, buf, buf + 15, 16), -EINVAL);
	/* A refused copy wrote nothing. */
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0x11)
			ck_abort_msg("refused copy wrote byte %zu", i);

	/* The same checks on offload_memcpy_dev, plus the device index. */
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(NULL, OFFLOAD_DEV_AUTO, buf, other, 8, &res), -EINVAL);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, NULL, other, 8, &res), -EINVAL);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, buf, buf + 4, 8, &res), -EINVAL);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, buf, other, SIZE_MAX, &res), -EINVAL);
	int n = offload_dev_count(ctx);
	ck_assert_int_eq(offload_memcpy_dev(ctx, n, buf, other, 8, &res), -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "no device"));
	ck_assert_int_eq(offload_memcpy_dev(ctx, -2, buf, other, 8, &res), -ENODEV);
	ck_assert_int_eq(offload_memcpy_dev(ctx, INT_MAX, buf, other, 8, &res), -ENODEV);
	ck_assert_int_eq(offload_memcpy_dev(ctx, INT_MIN, buf, other, 8, &res), -ENODEV);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(no_copy_device_is_enotsup)
{
	/*
	 * An allow-list without the CPU and without any backend that copies:
	 * every copy call says -ENOTSUP, none crashes. Needs such a backend in
	 * this build (kcapi or spidev have no memcpy).
	 */
	const char *name = NULL;
	for (int i = 0; ofl_backends[i]; i++)
		if (!ofl_backends[i]->memcpy && strcmp(ofl_backends[i]->name, "cpu") != 0)
			name = ofl_backends[i]->name;
	if (!name)
		return; /* only the CPU backend is built: the case cannot arise */
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, name);
	unsigned char a[16] = { 1 }, b[16];
	struct offload_result res;
	offload_queue *q;

	ck_assert_int_eq(offload_dev_find(ctx, "cpu"), -ENODEV);
	ck_assert_int_eq(offload_memcpy(ctx, b, a, sizeof(a)), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "no device"));
	ck_assert_int_eq(offload_memcpy(ctx, b, a, 0), 0);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, b, a, sizeof(a), &res), -ENOTSUP);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), -ENOTSUP);
	ck_assert_ptr_null(q);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ concurrency */

struct copier {
	offload_ctx *ctx;
	unsigned index;
	int failures;
	char why[128];
};

static void *copier_main(void *arg)
{
	struct copier *c = arg;
	static const size_t sizes[] = { 64, 4096, 100000, MiB + 3, 5 * MiB + 1, 12 * MiB };

	for (unsigned round = 0; round < 3 && !c->failures; round++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && !c->failures; k++) {
			size_t len = sizes[(k + c->index + round) % 6], off = (c->index * 17 + k) % 64;
			uint32_t seed = c->index * 1000 + round * 10 + (uint32_t)k;
			unsigned char *src = malloc(len), *dst = malloc(len + off);
			if (!src || !dst) {
				c->failures++;
				snprintf(c->why, sizeof(c->why), "out of memory");
			} else {
				pat_fill(src, len, seed);
				memset(dst, 0, len + off);
				int r = offload_memcpy(c->ctx, dst + off, src, len);
				for (size_t i = 0; r == 0 && i < len; i++)
					if (dst[off + i] != pat(seed, i)) {
						r = -EIO;
						snprintf(c->why, sizeof(c->why), "len %zu byte %zu wrong", len, i);
					}
				if (r < 0) {
					c->failures++;
					if (!c->why[0])
						snprintf(c->why, sizeof(c->why), "offload_memcpy: %d", r);
				}
			}
			free(src);
			free(dst);
		}
	return NULL;
}

START_TEST(concurrent_memcpy_one_context)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct copier c[4];

	for (unsigned i = 0; i < 4; i++)
		c[i] = (struct copier){ .ctx = ctx, .index = i };
	test_run_threads(copier_main, c, sizeof(c[0]), 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_msg(c[i].failures == 0, "thread %u: %s", i, c[i].why);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ queue */

static offload_queue *queue_open_depth(offload_ctx *ctx, uint32_t depth)
{
	struct offload_queue_opts o;
	offload_queue *q = NULL;

	offload_queue_opts_init(&o);
	o.depth = depth;
	int r = offload_queue_open(ctx, &o, &q);
	ck_assert_msg(r == 0, "offload_queue_open depth %u: %d %s", depth, r, offload_last_error(ctx));
	return q;
}

START_TEST(queue_opts_and_open_bad_input)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_queue_opts o;
	offload_queue *q;

	memset(&o, 0x5a, sizeof(o));
	offload_queue_opts_init(&o);
	ck_assert_uint_eq(o.size, sizeof(o));
	ck_assert_uint_eq(o.depth, 256);
	ck_assert_int_eq(o.dev, OFFLOAD_DEV_AUTO);
	offload_queue_opts_init(NULL);

	ck_assert_int_eq(offload_queue_open(NULL, NULL, &q), -EINVAL);
	ck_assert_ptr_null(q);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "out is NULL"));

	offload_queue_opts_init(&o);
	o.size = 4;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "opts->size"));
	o.size = 0;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), -EINVAL);

	static const uint32_t bad_depths[] = { 0, 1, 3, 100, 131072, UINT32_MAX, 0x80000000u };
	for (size_t i = 0; i < sizeof(bad_depths) / sizeof(bad_depths[0]); i++) {
		offload_queue_opts_init(&o);
		o.depth = bad_depths[i];
		ck_assert_int_eq(offload_queue_open(ctx, &o, &q), -EINVAL);
		ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "power of two"));
		ck_assert_ptr_null(q);
	}
	offload_queue_opts_init(&o);
	o.dev = offload_dev_count(ctx);
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), -ENODEV);
	o.dev = -7;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), -ENODEV);

	/* The extremes of the valid range open. */
	q = queue_open_depth(ctx, 2);
	ck_assert_int_eq(offload_queue_capacity(q), 2);
	ck_assert_int_eq(offload_queue_close(q), 0);
	q = queue_open_depth(ctx, 65536);
	ck_assert_int_eq(offload_queue_capacity(q), 65536);
	ck_assert_int_eq(offload_queue_close(q), 0);

	/* Calls on a NULL queue. */
	struct offload_completion cpl;
	ck_assert_int_eq(offload_queue_close(NULL), -EINVAL);
	ck_assert_int_eq(offload_queue_copy(NULL, &cpl, &o, 4, 0), -EINVAL);
	ck_assert_int_eq(offload_queue_submit(NULL), -EINVAL);
	ck_assert_int_eq(offload_queue_poll(NULL, &cpl, 1), -EINVAL);
	ck_assert_int_eq(offload_queue_wait(NULL, &cpl, 1, 0), -EINVAL);
	ck_assert_int_eq(offload_queue_capacity(NULL), -EINVAL);
	ck_assert_int_eq(offload_queue_dev(NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "queue is NULL"));
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(queue_copy_bad_input_and_full)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q = queue_open_depth(ctx, 4);
	unsigned char buf[64], src[4][16], dst[4][16];
	struct offload_completion cpl[8];

	ck_assert_int_eq(offload_queue_copy(q, NULL, buf, 8, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dst is NULL"));
	ck_assert_int_eq(offload_queue_copy(q, buf, NULL, 8, 0), -EINVAL);
	ck_assert_int_eq(offload_queue_copy(q, buf, buf + 32, 0, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "len is 0"));
	ck_assert_int_eq(offload_queue_copy(q, buf, buf + 4, 8, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "overlaps"));
	ck_assert_int_eq(offload_queue_copy(q, buf, buf + 32, SIZE_MAX, 0), -EINVAL);
	ck_assert_int_eq(offload_queue_copy(q, (void *)(UINTPTR_MAX - 3), buf, 8, 0), -EINVAL);
	/* Refused jobs took no slot. */
	ck_assert_int_eq(offload_queue_capacity(q), 4);

	/* Reap arguments. */
	ck_assert_int_eq(offload_queue_poll(q, NULL, 1), -EINVAL);
	ck_assert_int_eq(offload_queue_poll(q, NULL, 0), 0);
	ck_assert_int_eq(offload_queue_poll(q, cpl, 8), 0);
	ck_assert_int_eq(offload_queue_wait(q, NULL, 1, 0), -EINVAL);
	ck_assert_int_eq(offload_queue_wait(q, cpl, 0, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "max is 0"));
	/* Nothing submitted: waiting could never succeed, whatever the timeout. */
	ck_assert_int_eq(offload_queue_wait(q, cpl, 8, 0), -EINVAL);
	ck_assert_int_eq(offload_queue_wait(q, cpl, 8, -1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "no submitted job"));
	ck_assert_int_eq(offload_queue_submit(q), 0);

	/* Fill the ring: the fifth job is -ENOSPC until completions are reaped. */
	for (int i = 0; i < 4; i++) {
		pat_fill(src[i], 16, (uint32_t)i);
		memset(dst[i], 0, 16);
		ck_assert_int_eq(offload_queue_copy(q, dst[i], src[i], 16, 100u + (unsigned)i), i);
		ck_assert_int_eq(offload_queue_capacity(q), 3 - i);
	}
	ck_assert_int_eq(offload_queue_copy(q, buf, buf + 32, 8, 0), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "queue full"));
	/* Enqueued, not submitted: wait refuses, nothing is copied yet. */
	ck_assert_int_eq(offload_queue_wait(q, cpl, 8, -1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "4 enqueued but not submitted"));
	ck_assert_int_eq(offload_queue_submit(q), 4);
	ck_assert_int_eq(offload_queue_submit(q), 0);
	/* Finished but not reaped still occupies the ring. */
	ck_assert_int_eq(offload_queue_copy(q, buf, buf + 32, 8, 0), -ENOSPC);
	ck_assert_int_eq(offload_queue_wait(q, cpl, 3, -1), 3);
	ck_assert_int_eq(offload_queue_capacity(q), 3);
	ck_assert_int_eq(offload_queue_poll(q, cpl + 3, 5), 1);
	ck_assert_int_eq(offload_queue_capacity(q), 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(cpl[i].job, (unsigned)i);
		ck_assert_uint_eq(cpl[i].user_data, 100u + (unsigned)i);
		ck_assert_int_eq(cpl[i].status, 0);
		pat_check(dst[i], 16, (uint32_t)i, "queued copy");
	}
	/* All reaped: nothing left to wait for. */
	ck_assert_int_eq(offload_queue_wait(q, cpl, 8, 1000), -EINVAL);
	ck_assert_int_eq(offload_queue_poll(q, cpl, 8), 0);
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
}
END_TEST

/* A queue job with its own source and destination. */
struct qjob {
	unsigned char *src;
	struct dbuf d;
	unsigned char *dst;
	size_t len;
	uint32_t seed;
};

static void qjob_init(struct qjob *j, size_t len, size_t doff, uint32_t seed)
{
	j->len = len;
	j->seed = seed;
	j->src = malloc(len);
	ck_assert_ptr_nonnull(j->src);
	pat_fill(j->src, len, seed);
	j->dst = dbuf_init(&j->d, doff, len);
}

static void qjob_check(struct qjob *j)
{
	dbuf_check(&j->d, j->seed);
	free(j->src);
}

START_TEST(queue_order_user_data_and_device)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q = queue_open_depth(ctx, 8);
	int cpu = offload_dev_find(ctx, "cpu");
	/* Small and split-sized jobs mixed, in batches, more jobs than the ring holds. */
	static const size_t sizes[] = { 1, 64, 5 * MiB, 300, 4 * MiB + 1, 7, 65536, 6 * MiB + 3,
					2, 4096, 4 * MiB, 99, 100000, 5 * MiB + 17, 33, 8 };
	enum { NJOBS = sizeof(sizes) / sizeof(sizes[0]) };
	struct qjob jobs[NJOBS];
	struct offload_completion cpl[3];
	unsigned next_job = 0, reaped = 0;

	ck_assert_int_eq(offload_queue_dev(q), cpu);
	while (reaped < NJOBS) {
		/* Enqueue up to 3 and submit, while the ring has room. */
		for (int k = 0; k < 3 && next_job < NJOBS && offload_queue_capacity(q) > 0; k++) {
			struct qjob *j = &jobs[next_job];
			qjob_init(j, sizes[next_job], next_job % 5, 500 + next_job);
			int r = offload_queue_copy(q, j->dst, j->src, j->len, 0xabc000u + next_job);
			ck_assert_int_eq(r, (int)next_job);
			next_job++;
		}
		ck_assert_int_ge(offload_queue_submit(q), 0);
		/* Reap in small batches: strictly in enqueue order. */
		int n = offload_queue_wait(q, cpl, 3, 10000000);
		ck_assert_msg(n > 0, "wait: %d %s", n, offload_last_error(ctx));
		for (int k = 0; k < n; k++, reaped++) {
			ck_assert_uint_eq(cpl[k].job, reaped);
			ck_assert_uint_eq(cpl[k].user_data, 0xabc000u + reaped);
			ck_assert_int_eq(cpl[k].status, 0);
			ck_assert_int_eq(cpl[k].dev, cpu);
			ck_assert_uint_eq(cpl[k].flags, OFFLOAD_RES_CPU);
			qjob_check(&jobs[reaped]);
		}
	}
	ck_assert_int_eq(offload_queue_capacity(q), 8);
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(queue_executes_in_enqueue_order)
{
	/*
	 * A big job (handed to a worker) then a small one writing the start of
	 * the same destination: in order, the small job's bytes must win.
	 */
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q = queue_open_depth(ctx, 4);
	size_t big = 8 * MiB;
	unsigned char *a = malloc(big), *d = malloc(big), b[64];
	struct offload_completion cpl[2];

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(d);
	for (int round = 0; round < 4; round++) {
		pat_fill(a, big, 1);
		pat_fill(b, sizeof(b), 2);
		ck_assert_int_ge(offload_queue_copy(q, d, a, big, 1), 0);
		ck_assert_int_eq(offload_queue_submit(q), 1);
		ck_assert_int_ge(offload_queue_copy(q, d, b, sizeof(b), 2), 0);
		ck_assert_int_eq(offload_queue_submit(q), 1);
		int got = 0;
		while (got < 2) {
			int n = offload_queue_wait(q, cpl + got, (unsigned)(2 - got), -1);
			ck_assert_int_gt(n, 0);
			got += n;
		}
		ck_assert_uint_eq(cpl[0].user_data, 1);
		ck_assert_uint_eq(cpl[1].user_data, 2);
		pat_check(d, sizeof(b), 2, "the later, small job");
		for (size_t i = sizeof(b); i < big; i++)
			if (d[i] != pat(1, i))
				ck_abort_msg("big job: byte %zu wrong", i);
	}
	ck_assert_int_eq(offload_queue_close(q), 0);
	free(a);
	free(d);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(queue_wait_timeout_zero_nothing_ready)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q = queue_open_depth(ctx, 2);
	size_t big = 64 * MiB;
	unsigned char *src = calloc(1, big), *dst = calloc(1, big);
	struct offload_completion cpl;
	int timeouts = 0;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	/*
	 * A 64 MiB job takes milliseconds on a worker; asked at once, it is not
	 * done. (The check repeats because a descheduled test thread could
	 * legitimately find it done; ten times in a row cannot happen.)
	 */
	for (int round = 0; round < 10 && !timeouts; round++) {
		src[round] = (unsigned char)(round + 1);
		ck_assert_int_ge(offload_queue_copy(q, dst, src, big, (uint64_t)round), 0);
		ck_assert_int_eq(offload_queue_submit(q), 1);
		int r = offload_queue_wait(q, &cpl, 1, 0);
		if (r == -ETIMEDOUT) {
			timeouts++;
			ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "within 0 us"));
			/* The job stays queued: poll finds nothing or it, never an error. */
			r = offload_queue_poll(q, &cpl, 1);
			ck_assert_int_ge(r, 0);
			if (r == 0)
				r = offload_queue_wait(q, &cpl, 1, -1);
		}
		ck_assert_int_eq(r, 1);
		ck_assert_uint_eq(cpl.user_data, (uint64_t)round);
		ck_assert_int_eq(cpl.status, 0);
		ck_assert_uint_eq(dst[round], (unsigned)(round + 1));
	}
	ck_assert_int_eq(timeouts, 1);
	ck_assert_int_eq(offload_queue_close(q), 0);
	free(src);
	free(dst);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(queue_close_waits_for_started_jobs)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q = queue_open_depth(ctx, 4);
	struct qjob big, small, never;

	qjob_init(&big, 12 * MiB + 5, 3, 9);
	qjob_init(&small, 100, 1, 10);
	qjob_init(&never, 100, 1, 11);
	ck_assert_int_ge(offload_queue_copy(q, big.dst, big.src, big.len, 1), 0);
	ck_assert_int_ge(offload_queue_copy(q, small.dst, small.src, small.len, 2), 0);
	ck_assert_int_eq(offload_queue_submit(q), 2);
	/* Enqueued after the last submit: discarded by close, never copied. */
	ck_assert_int_ge(offload_queue_copy(q, never.dst, never.src, never.len, 3), 0);
	ck_assert_int_eq(offload_queue_close(q), 0);
	qjob_check(&big);
	qjob_check(&small);
	for (size_t i = 0; i < never.len; i++)
		if (never.dst[i] != GUARD_BYTE)
			ck_abort_msg("a job enqueued after the last submit was copied (byte %zu)", i);
	free(never.d.mem);
	free(never.src);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(ctx_free_with_busy_queue)
{
	/* A forgotten queue with a job in flight: free waits for it, leaks nothing. */
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q = queue_open_depth(ctx, 2);
	struct qjob big;

	qjob_init(&big, 16 * MiB, 0, 12);
	ck_assert_int_ge(offload_queue_copy(q, big.dst, big.src, big.len, 1), 0);
	ck_assert_int_eq(offload_queue_submit(q), 1);
	offload_ctx_free(ctx);
	qjob_check(&big);
}
END_TEST

struct qthread {
	offload_ctx *ctx;
	unsigned index;
	char why[128];
};

static void *queue_thread(void *arg)
{
	struct qthread *t = arg;
	offload_queue *q;
	struct offload_queue_opts o;
	struct offload_completion cpl[4];
	size_t lens[4] = { 100, 5 * MiB, 3000, 4 * MiB + 3 };
	unsigned char *src[4], *dst[4];

	offload_queue_opts_init(&o);
	o.depth = 4;
	if (offload_queue_open(t->ctx, &o, &q) < 0) {
		snprintf(t->why, sizeof(t->why), "open: %s", offload_last_error(t->ctx));
		return NULL;
	}
	for (int k = 0; k < 4; k++) {
		src[k] = malloc(lens[k]);
		dst[k] = calloc(1, lens[k]);
	}
	for (unsigned round = 0; round < 3 && !t->why[0]; round++) {
		for (int k = 0; k < 4; k++) {
			if (!src[k] || !dst[k]) {
				snprintf(t->why, sizeof(t->why), "out of memory");
				break;
			}
			pat_fill(src[k], lens[k], t->index * 100 + round * 4 + (uint32_t)k);
			offload_queue_copy(q, dst[k], src[k], lens[k], (uint64_t)k);
		}
		if (t->why[0] || offload_queue_submit(q) != 4) {
			snprintf(t->why, sizeof(t->why), "submit failed");
			break;
		}
		for (int got = 0; got < 4;) {
			int n = offload_queue_wait(q, cpl + got, (unsigned)(4 - got), 10000000);
			if (n <= 0) {
				snprintf(t->why, sizeof(t->why), "wait: %d", n);
				break;
			}
			got += n;
		}
		for (int k = 0; k < 4 && !t->why[0]; k++) {
			uint32_t seed = t->index * 100 + round * 4 + (uint32_t)k;
			if (cpl[k].user_data != (uint64_t)k || cpl[k].status != 0)
				snprintf(t->why, sizeof(t->why), "completion %d out of order", k);
			for (size_t i = 0; i < lens[k] && !t->why[0]; i++)
				if (dst[k][i] != pat(seed, i))
					snprintf(t->why, sizeof(t->why), "job %d byte %zu wrong", k, i);
		}
	}
	offload_queue_close(q);
	for (int k = 0; k < 4; k++) {
		free(src[k]);
		free(dst[k]);
	}
	return NULL;
}

START_TEST(queues_in_parallel_threads)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct qthread t[3];

	for (unsigned i = 0; i < 3; i++)
		t[i] = (struct qthread){ .ctx = ctx, .index = i };
	test_run_threads(queue_thread, t, sizeof(t[0]), 3);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_msg(t[i].why[0] == '\0', "thread %u: %s", i, t[i].why);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ fast path */

typedef int (*memcpy_fn)(offload_ctx *ctx, void *dst, const void *src, size_t len);

/* The interval rule, written here independently of the library's arithmetic. */
static bool disjoint(size_t d, size_t s, size_t len)
{
	return d + len <= s || s + len <= d;
}

/*
 * Every dst/src offset pair in a 128-byte window, 1..48 bytes: the copy is
 * done exactly when the ranges are disjoint, refused with -EINVAL (nothing
 * written) otherwise. fn NULL: the header's inline offload_memcpy().
 * Returns a description of the first wrong case, or "" (plain ifs: see
 * dbuf_check()).
 */
static const char *overlap_matrix(offload_ctx *ctx, memcpy_fn fn, char *why, size_t wl)
{
	unsigned char buf[192], want[192];

	why[0] = '\0';
	for (size_t len = 1; len <= 48; len++)
		for (size_t d = 0; d < 64; d++)
			for (size_t s = 0; s < 64; s++) {
				for (size_t i = 0; i < sizeof(buf); i++)
					buf[i] = want[i] = (unsigned char)(i * 7 + len);
				bool ok = disjoint(d, s, len);
				if (ok)
					for (size_t i = 0; i < len; i++)
						want[d + i] = buf[s + i];
				int r = fn ? fn(ctx, buf + d, buf + s, len)
					   : offload_memcpy(ctx, buf + d, buf + s, len);
				if (r != (ok ? 0 : -EINVAL) || memcmp(buf, want, sizeof(buf)) != 0) {
					snprintf(why, wl, "dst +%zu, src +%zu, %zu bytes: returned %d, %s", d,
						 s, len, r, ok ? "expected 0" : "expected -EINVAL");
					return why;
				}
			}
	return why;
}

/*
 * The inline fast path in the public header takes copies up to the split
 * size (the ranges checked in a few compares); its answers must be the
 * interval rule's, and so must those of the exported offload_memcpy() that
 * FFI binds (dlsym on the shared library, as ctypes does).
 */
START_TEST(memcpy_fast_path_and_ffi_symbol_agree)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	char why[160];

	ck_assert_msg(!overlap_matrix(ctx, NULL, why, sizeof(why))[0], "inline: %s", why);
	ck_assert_msg(!overlap_matrix(ctx, offload_memcpy_slowpath, why, sizeof(why))[0],
		      "offload_memcpy_slowpath: %s", why);

	const char *lib = getenv("OFFLOAD_TEST_LIBOFFLOAD");
	ck_assert_msg(lib && lib[0], "OFFLOAD_TEST_LIBOFFLOAD names the shared library");
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen %s: %s", lib, dlerror());
	offload_ctx *(*ctx_new)(void) = (offload_ctx * (*)(void)) dlsym(h, "offload_ctx_new");
	int (*ctx_open)(offload_ctx *, const struct offload_ctx_opts *) =
		(int (*)(offload_ctx *, const struct offload_ctx_opts *))dlsym(h, "offload_ctx_open");
	void (*ctx_free)(offload_ctx *) = (void (*)(offload_ctx *))dlsym(h, "offload_ctx_free");
	memcpy_fn ffi = (memcpy_fn)dlsym(h, "offload_memcpy");
	ck_assert_msg(ctx_new && ctx_open && ctx_free && ffi, "symbols missing from %s", lib);
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	offload_ctx *fctx = ctx_new();
	ck_assert_int_eq(ctx_open(fctx, &o), 0);
	ck_assert_msg(!overlap_matrix(fctx, ffi, why, sizeof(why))[0], "exported offload_memcpy: %s", why);
	/* NULL context and pointers through the exported symbol too. */
	unsigned char a[8] = { 0 }, b[8] = { 1 };
	ck_assert_int_eq(ffi(NULL, a, b, 8), -EINVAL);
	ck_assert_int_eq(ffi(fctx, NULL, b, 8), -EINVAL);
	ck_assert_int_eq(ffi(fctx, a, NULL, 8), -EINVAL);
	ck_assert_int_eq(ffi(fctx, a, b, 0), 0);
	ck_assert_int_eq(ffi(fctx, a, b, 8), 0);
	ck_assert_int_eq(memcmp(a, b, 8), 0);
	ctx_free(fctx);
	dlclose(h);
	offload_ctx_free(ctx);
}
END_TEST

/* A closed context takes nothing, not even what the fast path would (it is off). */
START_TEST(memcpy_closed_context_refuses_small_copies)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	unsigned char a[64], b[64];

	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	ck_assert_int_eq(offload_memcpy(ctx, a, b, sizeof(a)), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	memset(b, 3, sizeof(b));
	ck_assert_int_eq(offload_memcpy(ctx, a, b, sizeof(a)), -EBADF);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "not open"));
	ck_assert_uint_eq(a[0], 2);
	offload_ctx_free(ctx);
}
END_TEST

static Suite *memcpy_suite(void)
{
	Suite *s = suite_create("memcpy");
	TCase *tc = tcase_create("sync");
	TCase *tq = tcase_create("queue");

	tcase_add_test(tc, small_sizes_all_alignments);
	tcase_add_test(tc, large_sizes_default_threads);
	tcase_add_test(tc, large_sizes_more_threads_than_cpus);
	tcase_add_test(tc, large_sizes_one_thread);
	tcase_add_test(tc, large_sizes_streaming);
	tcase_add_test(tc, adjacent_ranges_are_not_overlap);
	tcase_add_test(tc, memcpy_dev_reports_who_ran);
	tcase_add_test(tc, memcpy_bad_input);
	tcase_add_test(tc, memcpy_fast_path_and_ffi_symbol_agree);
	tcase_add_test(tc, memcpy_closed_context_refuses_small_copies);
	tcase_add_test(tc, no_copy_device_is_enotsup);
	tcase_add_test(tc, concurrent_memcpy_one_context);
	suite_add_tcase(s, tc);

	tcase_add_test(tq, queue_opts_and_open_bad_input);
	tcase_add_test(tq, queue_copy_bad_input_and_full);
	tcase_add_test(tq, queue_order_user_data_and_device);
	tcase_add_test(tq, queue_executes_in_enqueue_order);
	tcase_add_test(tq, queue_wait_timeout_zero_nothing_ready);
	tcase_add_test(tq, queue_close_waits_for_started_jobs);
	tcase_add_test(tq, ctx_free_with_busy_queue);
	tcase_add_test(tq, queues_in_parallel_threads);
	suite_add_tcase(s, tq);
	return s;
}

int main(void)
{
	return test_run(memcpy_suite());
}
