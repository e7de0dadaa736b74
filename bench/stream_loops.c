/* SPDX-License-Identifier: MIT */
/*
 * Which loop a streamed copy should run (issue #19, bench/README.md "The
 * streaming loop"): streaming stores a line at a time, a line at a time with
 * the source prefetched ahead, or a line of each of 2 or 4 pages in turn,
 * against memcpy; by one thread and by two (halves, each thread pinned to a
 * CPU of its own). GB/s, best and median of the passes, every kind once per
 * round in turn so that all of them see the same moments of a shared host.
 * x86-64 only.
 *
 *   build/bench/bench_stream_loops [MiB ...]     (default: 4 16 64 256; at least 1)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>

enum { ROUNDS = 15, KINDS = 6 };
static const char *const kind_name[KINDS] = { "memcpy", "line", "line+ahead", "2 pages", "4 pages",
					      "line+ahead AVX2" };

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline void line(char *d, const char *s)
{
	for (size_t k = 0; k < 64; k += 16)
		_mm_stream_si128((__m128i *)(void *)(d + k), _mm_loadu_si128((const __m128i *)(const void *)(s + k)));
}

/* A line at a time, source 512 B ahead, in two 32-byte AVX stores (where the CPU has AVX2). */
__attribute__((target("avx2"))) static void line_avx2(char *d, const char *s, size_t n)
{
	for (size_t o = 0; o < n; o += 64) {
		_mm_prefetch(s + o + 512, _MM_HINT_T0);
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + o));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + o + 32));
		_mm256_stream_si256((__m256i *)(void *)(d + o), a);
		_mm256_stream_si256((__m256i *)(void *)(d + o + 32), b);
	}
}

/* n a multiple of 4 pages, d and s page-aligned (the program's own buffers) */
static void copy_kind(int kind, char *d, const char *s, size_t n)
{
	if (kind == 5) {
		if (__builtin_cpu_supports("avx2"))
			line_avx2(d, s, n);
		else
			memcpy(d, s, n);
		_mm_sfence();
		return;
	}
	if (kind == 0) {
		memcpy(d, s, n);
		return;
	}
	if (kind <= 2) {
		for (size_t o = 0; o < n; o += 64) {
			if (kind == 2)
				_mm_prefetch(s + o + 512, _MM_HINT_T0);
			line(d + o, s + o);
		}
	} else {
		size_t ways = kind == 3 ? 2 : 4;
		for (size_t b = 0; b < n; b += 4096 * ways)
			for (size_t o = 0; o < 4096; o += 64)
				for (size_t w = 0; w < ways; w++) {
					size_t at = b + w * 4096 + o;
					_mm_prefetch(s + at + 256, _MM_HINT_T0);
					line(d + at, s + at);
				}
	}
	_mm_sfence();
}

struct half {
	char *d;
	const char *s;
	size_t n;
	int cpu, kind;
	pthread_barrier_t *go, *done;
};

/* The second thread's half: copy it whenever the first thread releases a pass; kind < 0 ends. */
static void *helper(void *arg)
{
	struct half *h = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(h->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (;;) {
		pthread_barrier_wait(h->go);
		if (h->kind < 0)
			return NULL;
		copy_kind(h->kind, h->d, h->s, h->n);
		pthread_barrier_wait(h->done);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const unsigned def[] = { 4, 16, 64, 256 };
	unsigned nsizes = argc > 1 ? (unsigned)argc - 1 : 4;
	cpu_set_t mine;
	int cpus[2], ncpu = 0;

	sched_getaffinity(0, sizeof(mine), &mine);
	for (int c = 0; c < CPU_SETSIZE && ncpu < 2; c++)
		if (CPU_ISSET(c, &mine))
			cpus[ncpu++] = c;
	printf("%8s  %-7s", "size", "threads");
	for (int k = 0; k < KINDS; k++)
		printf("  %16s", kind_name[k]);
	printf("\n");
	for (unsigned z = 0; z < nsizes; z++) {
		size_t n = (size_t)(argc > 1 ? strtoul(argv[z + 1], NULL, 10) : def[z]) << 20;
		char *s = aligned_alloc(4096, n), *d = aligned_alloc(4096, n);
		if (n < (1u << 20) || !s || !d) {
			fprintf(stderr, "bench_stream_loops: %zu bytes: under 1 MiB or cannot allocate it twice\n", n);
			return 1;
		}
		memset(s, 1, n);
		memset(d, 2, n);
		for (int threads = 1; threads <= ncpu; threads++) {
			pthread_barrier_t go, done;
			pthread_t th;
			struct half h = { .d = d + n / 2, .s = s + n / 2, .n = n / 2, .cpu = cpus[ncpu - 1] };
			double t[KINDS][ROUNDS];
			if (threads == 2) {
				cpu_set_t set;
				CPU_ZERO(&set);
				CPU_SET(cpus[0], &set);
				pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
				pthread_barrier_init(&go, NULL, 2);
				pthread_barrier_init(&done, NULL, 2);
				h.go = &go;
				h.done = &done;
				pthread_create(&th, NULL, helper, &h);
			}
			for (int r = 0; r < ROUNDS; r++)
				for (int k = 0; k < KINDS; k++) {
					copy_kind(k, d, s, n); /* the destination as this kind leaves it */
					double t0 = now_us();
					if (threads == 2) {
						h.kind = k;
						pthread_barrier_wait(&go);
						copy_kind(k, d, s, n / 2);
						pthread_barrier_wait(&done);
					} else {
						copy_kind(k, d, s, n);
					}
					t[k][r] = now_us() - t0;
				}
			if (threads == 2) {
				h.kind = -1;
				pthread_barrier_wait(&go);
				pthread_join(th, NULL);
				pthread_barrier_destroy(&go);
				pthread_barrier_destroy(&done);
				sched_setaffinity(0, sizeof(mine), &mine);
			}
			printf("%5zu MiB  %-7d", n >> 20, threads);
			for (int k = 0; k < KINDS; k++) {
				qsort(t[k], ROUNDS, sizeof(double), cmp_double);
				printf("  %6.1f (%6.1f)", (double)n / t[k][0] / 1e3, (double)n / t[k][ROUNDS / 2] / 1e3);
			}
			printf("\n");
		}
		if (memcmp(d, s, n) != 0) {
			fprintf(stderr, "bench_stream_loops: a copy of %zu bytes went wrong\n", n);
			return 1;
		}
		free(s);
		free(d);
	}
	printf("GB/s: best (median) of %d passes; each pass after an untimed copy of its own kind\n", ROUNDS);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "bench_stream_loops: x86-64 only (streaming stores)\n");
	return 77;
}
#endif
