/* SPDX-License-Identifier: MIT */
/*
 * The references bench memcpy holds the library against, besides plain
 * memcpy: a two-thread copy as a program would write one, and a process
 * that keeps another CPU busy.
 *
 * The two-thread copy is the calling thread and one persistent helper
 * thread, pinned to another CPU of the process's set, each copying a half
 * (split at a page of the destination). Back to back, the helper spins on
 * a sequence number between the copies of the peer's own passes (the hot
 * loop, its best case) and blocks between those passes
 * (bench_peer_hot()), so that it never holds its CPU while the library or
 * memcpy is timed; after idle it sleeps on a condition variable and is
 * woken for each copy, as any thread pool must be. The halves are copied with memcpy or with
 * non-temporal (streaming) stores, 32 bytes wide where the CPU has AVX2,
 * else 16 (SSE2), with a fence before the half counts as done. This code
 * is the benchmark's own, written apart from the library's copy pool
 * (backends/cpu/pool.c) so that the reference does not share what it
 * measures.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define PEER_NT 1
#endif

#include "bench_peer.h"

struct bench_peer {
	pthread_t tid;
	atomic_uint seq, done;
	atomic_bool stop;
	bool sleep;              /* between copies: sleep on cv (true) or spin */
	atomic_bool hot;         /* spinning mode: a pass of the peer runs (else it blocks on cv) */
	atomic_bool spinning;    /* the helper is in its spin loop (not blocked) */
	int cpu;                 /* the helper's CPU, -1 if not pinned */
	cpu_set_t caller_set;    /* the caller's affinity outside the peer's passes */
	bool caller_pinned;      /* bench_peer_hot(on) pinned the caller */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* the helper's half of the current copy (written before seq, read after) */
	char *dst;
	const char *src;
	size_t len;
	bool nt;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

#ifdef PEER_NT
/* Streaming stores, 32 bytes at a time (AVX2). */
__attribute__((target("avx2"))) static void stream_avx2(char *d, const char *s, size_t n)
{
	for (; n >= 128; d += 128, s += 128, n -= 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(s + 96));
		_mm256_stream_si256((__m256i *)(void *)d, a);
		_mm256_stream_si256((__m256i *)(void *)(d + 32), b);
		_mm256_stream_si256((__m256i *)(void *)(d + 64), c);
		_mm256_stream_si256((__m256i *)(void *)(d + 96), e);
	}
	memcpy(d, s, n);
}

/* Streaming stores, 16 bytes at a time (SSE2, every x86-64). */
static void stream_sse2(char *d, const char *s, size_t n)
{
	for (; n >= 64; d += 64, s += 64, n -= 64)
		for (int i = 0; i < 64; i += 16)
			_mm_stream_si128((__m128i *)(void *)(d + i),
					 _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
	memcpy(d, s, n);
}
#endif

bool bench_peer_has_nt(void)
{
#ifdef PEER_NT
	return true;
#else
	return false;
#endif
}

/* Copy n bytes, streaming when nt: aligned to the vector in the destination first. */
static void copy_half(char *d, const char *s, size_t n, bool nt)
{
#ifdef PEER_NT
	if (nt) {
		bool avx2 = __builtin_cpu_supports("avx2");
		size_t head = (size_t)(-(uintptr_t)d) & (avx2 ? 31u : 15u);
		if (head > n)
			head = n;
		memcpy(d, s, head);
		if (avx2)
			stream_avx2(d + head, s + head, n - head);
		else
			stream_sse2(d + head, s + head, n - head);
		_mm_sfence(); /* the streaming stores are visible before done says so */
		return;
	}
#endif
	(void)nt;
	memcpy(d, s, n);
}

static void *helper_main(void *arg)
{
	struct bench_peer *p = arg;
	unsigned seen = 0;

	for (;;) {
		unsigned s;
		if (p->sleep) {
			pthread_mutex_lock(&p->mu);
			while ((s = atomic_load(&p->seq)) == seen && !atomic_load(&p->stop))
				pthread_cond_wait(&p->cv, &p->mu);
			pthread_mutex_unlock(&p->mu);
		} else {
			if (!atomic_load(&p->hot)) {
				/* between the peer's passes: give the CPU back, block */
				atomic_store(&p->spinning, false);
				pthread_mutex_lock(&p->mu);
				while (!atomic_load(&p->hot) && !atomic_load(&p->stop))
					pthread_cond_wait(&p->cv, &p->mu);
				pthread_mutex_unlock(&p->mu);
			}
			if (!atomic_load_explicit(&p->spinning, memory_order_relaxed))
				atomic_store(&p->spinning, true);
			while ((s = atomic_load_explicit(&p->seq, memory_order_acquire)) == seen &&
			       !atomic_load_explicit(&p->stop, memory_order_relaxed) &&
			       atomic_load_explicit(&p->hot, memory_order_relaxed))
				relax();
			if (s == seen && !atomic_load(&p->stop))
				continue; /* the pass ended (every copy of it was done): block */
		}
		if (atomic_load(&p->stop))
			return NULL;
		seen = s;
		copy_half(p->dst, p->src, p->len, p->nt);
		atomic_store_explicit(&p->done, s, memory_order_release);
	}
}

int bench_peer_start(struct bench_peer **out, bool sleep_between)
{
	struct bench_peer *p = calloc(1, sizeof(*p));
	pthread_attr_t attr;
	cpu_set_t set, one;
	int self = sched_getcpu(), cpu = -1;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	atomic_init(&p->seq, 0);
	atomic_init(&p->done, 0);
	atomic_init(&p->stop, false);
	atomic_init(&p->hot, false);
	atomic_init(&p->spinning, false);
	p->sleep = sleep_between;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_attr_init(&attr);
	/* another CPU of the process's set than the caller's: a helper there only takes turns */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
			if (CPU_ISSET((unsigned)c, &set) && c != self)
				cpu = c;
	p->cpu = cpu;
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET((unsigned)cpu, &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	}
	int r = pthread_create(&p->tid, &attr, helper_main, p);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		free(p);
		return -r;
	}
	*out = p;
	return 0;
}

void bench_peer_copy(struct bench_peer *p, void *dst, const void *src, size_t len, bool nt)
{
	char *d = dst;
	const char *s = src;
	/* the helper's half starts at a page of the destination; small copies stay whole */
	size_t mine = ((uintptr_t)(d + len / 2) & ~(uintptr_t)4095) - (uintptr_t)d;

	if (len < 8192 || mine == 0 || mine >= len) {
		copy_half(d, s, len, nt);
		return;
	}
	p->dst = d + mine;
	p->src = s + mine;
	p->len = len - mine;
	p->nt = nt;
	unsigned seq = atomic_load_explicit(&p->seq, memory_order_relaxed) + 1;
	if (p->sleep) {
		pthread_mutex_lock(&p->mu);
		atomic_store(&p->seq, seq);
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
	} else {
		atomic_store_explicit(&p->seq, seq, memory_order_release);
	}
	copy_half(d, s, mine, nt);
	while (atomic_load_explicit(&p->done, memory_order_acquire) != seq)
		relax();
}

void bench_peer_hot(struct bench_peer *p, bool on)
{
	if (p->sleep)
		return; /* woken for every copy anyway */
	if (!on && p->caller_pinned) {
		sched_setaffinity(0, sizeof(p->caller_set), &p->caller_set);
		p->caller_pinned = false;
	}
	if (on && p->cpu >= 0 && sched_getaffinity(0, sizeof(p->caller_set), &p->caller_set) == 0) {
		/*
		 * Both threads pinned apart for the pass, as a two-thread copy
		 * would be: the caller, free to move while the helper blocked,
		 * may have gone to the helper's CPU (then each would wait a
		 * scheduler slice for the other).
		 */
		int self = sched_getcpu();
		cpu_set_t one;
		if (self == p->cpu) {
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET((unsigned)c, &p->caller_set) && c != self) {
					CPU_ZERO(&one);
					CPU_SET((unsigned)c, &one);
					if (pthread_setaffinity_np(p->tid, sizeof(one), &one) == 0)
						p->cpu = c;
					break;
				}
		}
		if (self >= 0 && self != p->cpu) {
			CPU_ZERO(&one);
			CPU_SET((unsigned)self, &one);
			p->caller_pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
		}
	}
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->hot, on);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	/* the pass is timed from a helper that already spins: its wake-up is not its cost */
	while (on && !atomic_load(&p->spinning))
		relax();
}

void bench_peer_stop(struct bench_peer *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->stop, true);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int bench_busy_start(int *cpu_out)
{
	cpu_set_t set, one;
	int cpu = -1;

	/* the last CPU of the process's set: the one the caller is least likely on */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET((unsigned)c, &set))
				cpu = c;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* a plain spinning process: it dies with its parent, it calls nothing else */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (cpu >= 0) {
			CPU_ZERO(&one);
			CPU_SET((unsigned)cpu, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
		for (volatile unsigned long n = 0;; n++)
			;
	}
	*cpu_out = cpu;
	return (int)pid;
}

void bench_busy_stop(int pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}
