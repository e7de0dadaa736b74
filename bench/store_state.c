/* SPDX-License-Identifier: MIT */
/*
 * Which kind of store a large copy wants depends on where its destination
 * already is (issue #19, bench/README.md "The destination's state"). For each
 * size, the destination is first put in one state by three copies of one
 * kind (through the caches; through the caches and then read back, as a
 * verifying program does; streamed), and then one copy is timed with memcpy
 * and with streaming stores; best and mean of 21. It also prints how many of
 * 16 destination lines a timed load finds in some cache in each state, with
 * the pool's own probe (backends/cpu/pool.c). One thread, x86-64 only.
 *
 *   build/bench/bench_store_state [MiB ...]      (default: 4 16 64 256; at least 1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/pool.h"

#if defined(__x86_64__)
#include <x86intrin.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void stream_copy(char *d, const char *s, size_t n)
{
	for (size_t o = 0; o < n; o += 64)
		for (size_t k = 0; k < 64; k += 16)
			_mm_stream_si128((__m128i *)(void *)(d + o + k),
					 _mm_load_si128((const __m128i *)(const void *)(s + o + k)));
	_mm_sfence();
}

enum state { THROUGH, THROUGH_READ, STREAMED };
static const char *const state_name[] = { "through the caches", "through + read back", "streamed" };

static void put_in_state(enum state st, char *d, const char *s, size_t n)
{
	for (int k = 0; k < 3; k++) {
		if (st == STREAMED) {
			stream_copy(d, s, n);
		} else {
			memcpy(d, s, n);
			if (st == THROUGH_READ && memcmp(d, s, n) != 0)
				abort();
		}
	}
}

int main(int argc, char **argv)
{
	static const unsigned def[] = { 4, 16, 64, 256 };
	unsigned nsizes = argc > 1 ? (unsigned)argc - 1 : 4;

	if (!ofl_pool_probe_usable()) {
		fprintf(stderr, "bench_store_state: a load's time tells no cached line here\n");
		return 77;
	}
	printf("%8s  %-20s  %14s  %14s  %s\n", "size", "destination was", "memcpy GB/s",
	       "streamed GB/s", "cached lines");
	for (unsigned z = 0; z < nsizes; z++) {
		size_t n = (size_t)(argc > 1 ? strtoul(argv[z + 1], NULL, 10) : def[z]) << 20;
		char *s = aligned_alloc(4096, n), *d = aligned_alloc(4096, n);
		if (n < (1u << 20) || !s || !d) {
			fprintf(stderr, "bench_store_state: %zu bytes: under 1 MiB or cannot allocate it twice\n", n);
			return 1;
		}
		memset(s, 1, n);
		memset(d, 2, n);
		for (int st = THROUGH; st <= STREAMED; st++) {
			double best[2] = { 1e18, 1e18 }, sum[2] = { 0, 0 };
			unsigned hits = 0;
			for (int r = 0; r < 21; r++)
				for (int kind = 0; kind < 2; kind++) {
					put_in_state((enum state)st, d, s, n);
					if (r == 0 && kind == 0)
						hits = ofl_pool_cached_lines(d, n, 16, 0);
					double t0 = now_us();
					if (kind)
						stream_copy(d, s, n);
					else
						memcpy(d, s, n);
					double t = now_us() - t0;
					best[kind] = t < best[kind] ? t : best[kind];
					sum[kind] += t;
				}
			printf("%5zu MiB  %-20s  %5.1f (%5.1f)  %5.1f (%5.1f)  %u/16\n", n >> 20,
			       state_name[st], (double)n / best[0] / 1e3, (double)n / (sum[0] / 21) / 1e3,
			       (double)n / best[1] / 1e3, (double)n / (sum[1] / 21) / 1e3, hits);
		}
		free(s);
		free(d);
	}
	printf("GB/s: best (mean) of 21 timed copies, each after three that set the state\n");
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "bench_store_state: x86-64 only (streaming stores, RDTSC)\n");
	return 77;
}
#endif
