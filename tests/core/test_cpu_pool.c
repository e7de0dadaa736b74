/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's copy pool, driven directly with small thresholds so that
 * chunking and the non-temporal path run on small buffers (through the public
 * API they start at 4 MiB and at a fraction of the last-level cache).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/pool.h"
#include "testutil.h"

static unsigned char pat(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2246822519u + seed * 3266489917u + 374761393u;

	x ^= x >> 13;
	return (unsigned char)(x ^ (x >> 7));
}

/* Copy len bytes to dst offset doff through the pool; check every byte and the bytes around. */
static void pool_copy_check(struct ofl_pool *p, size_t len, size_t soff, size_t doff, uint32_t seed)
{
	unsigned char *s = malloc(soff + len), *d = malloc(doff + len + 64);

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(d);
	for (size_t i = 0; i < len; i++)
		s[soff + i] = pat(seed, i);
	memset(d, 0x5c, doff + len + 64);
	ofl_pool_copy(p, d + doff, s + soff, len);
	for (size_t i = 0; i < doff; i++)
		if (d[i] != 0x5c)
			ck_abort_msg("len %zu: byte %zu before the destination written", len, doff - i);
	for (size_t i = 0; i < len; i++)
		if (d[doff + i] != pat(seed, i))
			ck_abort_msg("len %zu soff %zu doff %zu: byte %zu wrong", len, soff, doff, i);
	for (size_t i = 0; i < 64; i++)
		if (d[doff + len + i] != 0x5c)
			ck_abort_msg("len %zu: byte %zu after the destination written", len, i);
	free(s);
	free(d);
}

static const size_t sizes[] = {
	1, 100, 64 * 1024 - 1, 64 * 1024, 300 * 1024 + 7, 1024 * 1024 - 1, 1024 * 1024,
	1024 * 1024 + 4097, 3 * 1024 * 1024 + 5,
};
static const size_t offs[] = { 0, 1, 15, 16, 63, 4095, 4096 + 17 };

static void sweep(unsigned threads, size_t split_min, size_t nt_min)
{
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, threads, split_min, nt_min), 0);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (size_t a = 0; a < sizeof(offs) / sizeof(offs[0]); a++)
			pool_copy_check(&p, sizes[k], offs[(a + 2) % 7], offs[a],
					(uint32_t)(k * 7 + a + threads));
	ofl_pool_fini(&p);
}

START_TEST(split_with_cached_stores)
{
	sweep(2, 64 * 1024, SIZE_MAX);
}
END_TEST

START_TEST(split_with_streaming_stores)
{
	/* From 512 KiB the chunks use non-temporal stores (memcpy off x86-64). */
	sweep(2, 64 * 1024, 512 * 1024);
}
END_TEST

START_TEST(many_threads)
{
	sweep(8, 64 * 1024, 512 * 1024);
}
END_TEST

START_TEST(no_pool_copies_inline)
{
	/* One thread: no workers are ever started, every size still copies. */
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, 1, 64 * 1024, 512 * 1024), 0);
	ck_assert_uint_eq(p.nthreads, 0);
	pool_copy_check(&p, 2 * 1024 * 1024 + 3, 1, 5, 99);
	ck_assert_uint_eq(p.started, 0);
	ofl_pool_fini(&p);
}
END_TEST

START_TEST(workers_start_lazily)
{
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX), 0);
	pool_copy_check(&p, 1000, 0, 0, 1);
	ck_assert_uint_eq(p.started, 0);
	pool_copy_check(&p, 1024 * 1024, 0, 0, 2);
	ck_assert_uint_eq(p.started, 2);
	ofl_pool_fini(&p);
}
END_TEST

struct leader {
	struct ofl_pool *p;
	unsigned index;
};

static void *leader_main(void *arg)
{
	struct leader *l = arg;

	for (unsigned r = 0; r < 6; r++)
		pool_copy_check(l->p, 700 * 1024 + l->index * 4099 + r, l->index, r * 7,
				l->index * 10 + r);
	return NULL;
}

START_TEST(concurrent_leaders)
{
	/* Several callers at once: one leads a split, the others find it busy. */
	struct ofl_pool p;
	struct leader l[4];

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, 512 * 1024), 0);
	for (unsigned i = 0; i < 4; i++)
		l[i] = (struct leader){ .p = &p, .index = i };
	test_run_threads(leader_main, l, sizeof(l[0]), 4);
	ofl_pool_fini(&p);
}
END_TEST

static Suite *pool_suite(void)
{
	Suite *s = suite_create("cpu_pool");
	TCase *tc = tcase_create("pool");

	tcase_add_test(tc, split_with_cached_stores);
	tcase_add_test(tc, split_with_streaming_stores);
	tcase_add_test(tc, many_threads);
	tcase_add_test(tc, no_pool_copies_inline);
	tcase_add_test(tc, workers_start_lazily);
	tcase_add_test(tc, concurrent_leaders);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(pool_suite());
}
