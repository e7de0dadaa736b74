/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's copy pool (see pool.h for the model).
 *
 * Locking: ofl_pool::mu guards the split's join/leave bookkeeping, the run
 * queue, the workers' sleeping flags and each queue's queued/running flags.
 * Chunk claims, a queue's done/target counters and the "someone waits" flags
 * are atomics so that the copying itself never takes the lock.
 *
 * Placement: each worker is pinned to one CPU and is woken on its own, so
 * that a split wakes helpers on the *other* CPUs. (Woken through one shared
 * condition variable, a helper was mostly put on the leader's CPU by the
 * scheduler and took turns with it there while the other CPU idled.)
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "driver/driver.h"
#include "pool.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#include <x86intrin.h>
#include <xmmintrin.h>
#define OFL_POOL_NT 1
#endif

/* An idle worker watches for new work this long before it sleeps. */
#define OFL_POOL_SPIN_NS 50000u
/*
 * Smallest chunk, the last ones of a split: what the leader waits for at the
 * end at most, about 5 us of copying; below it the claim and memcpy's
 * start-up would show.
 */
#define OFL_POOL_CHUNK_MIN (64u << 10)
/*
 * Largest chunk: what the leader may end up waiting for when a helper is
 * descheduled in the middle of one (on a busy machine it happens; measured
 * at 256 MiB with 32 MiB chunks, such splits ran at half memcpy's speed).
 */
#define OFL_POOL_CHUNK_MAX (2u << 20)
/*
 * A worker that was preempted and then did not run for this long during a
 * split or a sched_yield() is contended. A task that shares the CPU gets it
 * for a scheduler slice at a time, at least 0.75 ms (Linux
 * kernel/sched/fair.c: sysctl_sched_base_slice under EEVDF,
 * sysctl_sched_min_granularity before it, both 0.75 ms times 1 + log2 of the
 * CPUs). Kernel work and the odd short task take far less, and a leader
 * loses no more than that once, while staying out of the splits costs at
 * least 10 ms of copies at memcpy's speed: at 4 MiB on a quiet 2-vCPU guest,
 * waits of 53-72 us, twice or three times a run, once took 10-20 % of the
 * copies out of the splits.
 */
#define OFL_POOL_WAIT_NS 500000u
/*
 * A gap this long in a worker's watch for work means it did not run
 * meanwhile (the watch reads the clock every 64 pauses, about a
 * microsecond).
 */
#define OFL_POOL_GAP_NS 50000u
/* How long a contended worker stays out of splits: doubling from 10 ms to 1 s. */
#define OFL_POOL_BACKOFF_MIN_NS 10000000u
#define OFL_POOL_BACKOFF_MAX_NS 1000000000u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

#ifdef OFL_POOL_NT
/* One cache line from s to d with streaming stores. */
static inline void stream_line(char *d, const char *s)
{
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
	__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
	__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
	_mm_stream_si128((__m128i *)(void *)d, a);
	_mm_stream_si128((__m128i *)(void *)(d + 16), b);
	_mm_stream_si128((__m128i *)(void *)(d + 32), c);
	_mm_stream_si128((__m128i *)(void *)(d + 48), e);
}
#endif

/*
 * Streamed copies go a line at a time, each line's source prefetched
 * OFL_POOL_NT_AHEAD bytes ahead: one stream of stores, in 32-byte AVX
 * stores where the CPU has AVX2 (as glibc's memcpy picks its vector width
 * at run time), else 16-byte SSE2 ones: on the AMD guest, one thread, 4 MiB
 * 25.0 against 17.5 GB/s, 16 MiB 21.7 against 22.4 (bench_stream_loops,
 * bench/README.md). Interleaving four pages (a line of each in turn) was
 * 9 % faster on an Intel guest (256 MiB, one thread: 11.7 against 10.7
 * GB/s) but on an AMD EPYC guest it ran at 3.2 GB/s where a line at a time
 * made 19.6 and memcpy 14.4 (16 MiB, one thread), and a split then ran at a
 * fifth of memcpy's speed (issue #19; bench/README.md "The streaming
 * loop"). A prefetch past the end of the source never faults (Intel SDM
 * vol. 2B, PREFETCHh).
 */
#define OFL_POOL_NT_AHEAD 512u

#ifdef OFL_POOL_NT
/* Whole lines of n (64-byte aligned d) with 32-byte streaming stores; returns the bytes left. */
__attribute__((target("avx2"))) static size_t stream_lines_avx2(char *d, const char *s, size_t n)
{
	for (; n >= 64; d += 64, s += 64, n -= 64) {
		_mm_prefetch(s + OFL_POOL_NT_AHEAD, _MM_HINT_T0);
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
		_mm256_stream_si256((__m256i *)(void *)d, a);
		_mm256_stream_si256((__m256i *)(void *)(d + 32), b);
	}
	return n;
}
#endif

/*
 * Copy with non-temporal stores, as glibc's memcpy does by itself for copies
 * beyond its cache-size threshold; a chunk of such a copy is below that
 * threshold and would otherwise go through the caches.
 */
static void copy_nt(char *d, const char *s, size_t n)
{
#ifdef OFL_POOL_NT
	size_t head = (size_t)(-(uintptr_t)d) & 63u;

	if (head > n)
		head = n;
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	if (__builtin_cpu_supports("avx2")) {
		size_t left = stream_lines_avx2(d, s, n);
		d += n - left;
		s += n - left;
		n = left;
	}
	for (; n >= 64; d += 64, s += 64, n -= 64) {
		_mm_prefetch(s + OFL_POOL_NT_AHEAD, _MM_HINT_T0);
		stream_line(d, s);
	}
	memcpy(d, s, n);
	/* Streaming stores are weakly ordered: make them visible before we say done. */
	_mm_sfence();
#else
	memcpy(d, s, n);
#endif
}

/* ------------------------------------------------- is the destination cached? */


#ifdef OFL_POOL_NT
/*
 * TSC ticks one load of *p takes. LFENCE before RDTSC waits for every earlier
 * load, and the one after the load waits for it (Intel SDM vol. 2A, LFENCE
 * and RDTSC; Linux makes LFENCE dispatch-serialising on AMD too,
 * arch/x86/kernel/cpu/amd.c). Address sanitisers would add their own loads.
 */
__attribute__((no_sanitize_address)) static uint64_t load_ticks(const volatile char *p)
{
	_mm_lfence();
	uint64_t t0 = __rdtsc();
	_mm_lfence();
	(void)*p;
	_mm_lfence();
	return __rdtsc() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * What a load costs on this machine, measured once per process: from a line
 * just loaded (L1), the median of OFL_POOL_CAL_N, and from one flushed out
 * of every cache with CLFLUSH (memory), the least of OFL_POOL_CAL_N: another
 * process streaming through memory while this one calibrates makes memory
 * slower for a while, never faster, and a threshold taken from that would
 * later count memory as a cache. A load that takes less than three quarters
 * of the way from the one to the other found its line in some cache,
 * another core's included. On this project's 2-vCPU KVM guest:
 * 38-40 ticks from L1, about 50 from L2, 120-140 from L3, 250 (median; a
 * tenth over 370) from the other vCPU's L2, 400-410 from memory (least 346)
 * (bench/README.md). Where the two hardly differ (a trapped RDTSC, an
 * emulator) nothing can be told and the probe stays off.
 */
#define OFL_POOL_CAL_N 15
static struct {
	pthread_once_t once;
	uint64_t cached_below;     /* ticks; 0: the probe cannot tell */
} probe_cal = { .once = PTHREAD_ONCE_INIT };

static void probe_calibrate(void)
{
	static char lines[OFL_POOL_CAL_N * 128] __attribute__((aligned(64)));
	uint64_t hit[OFL_POOL_CAL_N], miss[OFL_POOL_CAL_N];

	for (int i = 0; i < OFL_POOL_CAL_N; i++) {
		volatile char *l = lines + 128 * i;
		*l = (char)i;
		(void)*l;
		hit[i] = load_ticks(l);
		_mm_clflush((const void *)l);
		_mm_mfence();
		miss[i] = load_ticks(l);
	}
	qsort(hit, OFL_POOL_CAL_N, sizeof(hit[0]), cmp_u64);
	qsort(miss, OFL_POOL_CAL_N, sizeof(miss[0]), cmp_u64);
	uint64_t h = hit[OFL_POOL_CAL_N / 2], m = miss[0];
	probe_cal.cached_below = m > 2 * h && m - h >= 64 ? (h + 3 * m) / 4 : 0;
}

/*
 * Each probe first loads a line in the upper half of its page untimed (all
 * of them together, so that the page walks overlap), then times the line
 * 2 KiB below it: out of reach of the adjacent-line prefetcher, and behind
 * the streamer, which prefetches upwards from a first miss (Intel 64 and
 * IA-32 Optimization Reference Manual, "Data prefetching"). The timed loads
 * go in a scrambled order: one load instruction stepping through the
 * destination at a constant distance trains a stride prefetcher that
 * follows single instructions (AMD's L1 stride prefetcher, Software
 * Optimization Guide for AMD Family 19h; Intel's IP prefetcher), which then
 * fetches the next line ahead of its load. On the AMD EPYC guest, in order,
 * 18-51 of 200 probes of a flushed 1 MiB counted 3 or more of 16 lines
 * cached (the 5th-8th and 11th-16th loads took L1's 49-74 ticks);
 * scrambled, none of 400 did.
 */
static void probe_order(unsigned *ord, unsigned n)
{
	uint32_t x = 0x9E3779B9u;

	for (unsigned i = 0; i < n; i++)
		ord[i] = i;
	for (unsigned i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed LCG: the same order each time */
		x = x * 1664525u + 1013904223u;
		unsigned j = (x >> 8) % (i + 1), t = ord[i];
		ord[i] = ord[j];
		ord[j] = t;
	}
}

static unsigned cached_lines(const char *d, size_t len, unsigned n, unsigned enough)
{
	pthread_once(&probe_cal.once, probe_calibrate);
	uint64_t below = probe_cal.cached_below;
	if (!below)
		return UINT_MAX;
	const volatile char *at[OFL_POOL_PROBE_MAX];
	for (unsigned i = 0; i < n; i++) {
		/* d + len / (n + 1) * k for k = 1 .. n: its whole page lies inside */
		uintptr_t q = (uintptr_t)d + len / (n + 1) * (i + 1);
		uintptr_t line = (q & ~(uintptr_t)4095u) | (q & 2047u);
		at[i] = (const volatile char *)line;
		(void)*(const volatile char *)(line + 2048u);
	}
	unsigned ord[OFL_POOL_PROBE_MAX], hits = 0;
	probe_order(ord, n);
	for (unsigned i = 0; i < n; i++) {
		hits += load_ticks(at[ord[i]]) < below;
		if (enough && (hits >= enough || hits + n - 1 - i < enough))
			break;
	}
	return hits;
}
#endif /* OFL_POOL_NT */

unsigned ofl_pool_cached_lines(const char *d, size_t len, unsigned n, unsigned enough)
{
	if (n == 0 || n > OFL_POOL_PROBE_MAX || len / (n + 1) < 4096u)
		return UINT_MAX;
#ifdef OFL_POOL_NT
	return cached_lines(d, len, n, enough);
#else
	OFL_UNUSED(d);
	OFL_UNUSED(enough);
	return UINT_MAX;
#endif
}

bool ofl_pool_probe_usable(void)
{
#ifdef OFL_POOL_NT
	pthread_once(&probe_cal.once, probe_calibrate);
	return probe_cal.cached_below != 0;
#else
	return false;
#endif
}

/*
 * Streaming stores for a copy of len bytes to d? Always from nt_min, where
 * source and destination outgrow a thread's share of the cache, except for a
 * split copy below split_probe_max (the whole last-level cache): two threads
 * copying through the caches into a destination that is there beat
 * streaming, 31.6 against 24.9 GB/s at 16 MiB on the AMD guest, while one
 * thread alone streams faster even then (bench/README.md, "Split copies up
 * to the L3 size"). From probe_min (and in that band) the stores stream
 * when the destination's lines are not in the caches. A streaming store into
 * a line that is cached must first take it out, a cached store into one that
 * is not must first read it in, and both states last from one copy to the
 * next: on the 2-vCPU guest a thread copied 4 MiB at 15.2 GB/s with memcpy
 * and 5.9 streaming into a destination it had just written through the
 * caches, and at 9.8 and 14.4 into one it had just streamed into
 * (bench/store_state.c, bench/README.md).
 */
static bool choose_nt(struct ofl_pool *p, const char *d, size_t len, bool split)
{
	if (len >= p->nt_min && (!split || len >= p->split_probe_max))
		return true;
	/* UINT_MAX (the probe cannot tell) counts as cached */
	if (len >= p->probe_min &&
	    p->cached_lines(d, len, OFL_POOL_PROBES, OFL_POOL_PROBE_HITS) < OFL_POOL_PROBE_HITS) {
		atomic_fetch_add_explicit(&p->probe_uncached, 1, memory_order_relaxed);
		return true;
	}
	return false;
}

static void copy_range(char *d, const char *s, size_t n, bool nt)
{
	if (nt)
		copy_nt(d, s, n);
	else
		memcpy(d, s, n);
}

/* ------------------------------------------------------------------ splits */

/*
 * Claim the next chunk of `c`: a 1/share part of what is left, between
 * OFL_POOL_CHUNK_MIN and OFL_POOL_CHUNK_MAX, ending on a page boundary of
 * the destination (so no two threads ever write the same cache line), the
 * whole rest when less than the minimum would remain. False when nothing is
 * left.
 */
static bool claim(struct ofl_pool *p, const struct ofl_chunks *c, size_t *from, size_t *to)
{
	size_t off = atomic_load_explicit(&p->sp.next, memory_order_relaxed);

	for (;;) {
		if (off >= c->len)
			return false;
		size_t want = OFL_MIN(OFL_MAX((c->len - off) / c->share, (size_t)OFL_POOL_CHUNK_MIN),
				      (size_t)OFL_POOL_CHUNK_MAX);
		size_t end = off + want;
		uintptr_t e = ((uintptr_t)c->dst + end + 4095u) & ~(uintptr_t)4095u;
		end = (size_t)(e - (uintptr_t)c->dst);
		if (end >= c->len || c->len - end < OFL_POOL_CHUNK_MIN)
			end = c->len;
		if (atomic_compare_exchange_weak_explicit(&p->sp.next, &off, end, memory_order_relaxed,
							  memory_order_relaxed)) {
			*from = off;
			*to = end;
			return true;
		}
	}
}

/* Claim and copy chunks of `c` until none is left. */
static void split_work(struct ofl_pool *p, const struct ofl_chunks *c)
{
	size_t a, b;

	while (claim(p, c, &a, &b))
		copy_range(c->dst + a, c->src + a, b - a, c->nt);
}

/*
 * Wait briefly for *v to become 0 without sleeping: a helper finishing its
 * last chunk takes about a chunk's copy time. Gives up after OFL_POOL_SPIN_NS.
 */
static void spin_until_zero(atomic_uint *v)
{
	uint64_t until = 0;

	for (unsigned n = 1; atomic_load_explicit(v, memory_order_acquire) != 0; n++) {
		cpu_relax();
		if ((n & 63u) == 0) {
			uint64_t now = ofl_now_ns();
			if (!until)
				until = now + OFL_POOL_SPIN_NS;
			else if (now >= until)
				return;
		}
	}
}

/* ---------------------------------------------------------- contended CPUs */

/* May worker w help a split now, or does another task hold its CPU? */
static bool worker_free(const struct ofl_pool_worker *w, uint64_t now)
{
	return atomic_load_explicit(&w->contended_until, memory_order_relaxed) <= now;
}

/*
 * Another task wants w's CPU: stay out of splits for a while, twice as long
 * as last time while it keeps happening (from OFL_POOL_BACKOFF_MIN_NS, up to
 * OFL_POOL_BACKOFF_MAX_NS), from the minimum again after a quiet second. A
 * split in which the worker is preempted makes its leader wait for the
 * worker's chunk until the worker runs again (a scheduler slice, some ms);
 * the backoff makes that rare while the CPU stays taken.
 */
static void worker_contended(struct ofl_pool_worker *w)
{
	uint64_t now = ofl_now_ns();

	if (!w->backoff_ns || now - w->last_contended > OFL_POOL_BACKOFF_MAX_NS)
		w->backoff_ns = OFL_POOL_BACKOFF_MIN_NS;
	else
		w->backoff_ns = OFL_MIN(2 * w->backoff_ns, (uint64_t)OFL_POOL_BACKOFF_MAX_NS);
	w->last_contended = now;
	atomic_store_explicit(&w->contended_until, now + w->backoff_ns, memory_order_relaxed);
}

/*
 * The worker's scheduler counters, read by the worker itself: the clock, its
 * CPU time and its involuntary context switches (no file, so a pool costs
 * the application no descriptor). A preemption followed by a long time off
 * the CPU is another task's turn. Time off the CPU without a preemption is
 * not: it is the hypervisor running the virtual CPU elsewhere (steal time,
 * which the guest's scheduler does not count as the thread's CPU time), and
 * a preemption with little time off is kernel work.
 */
static void sched_read_os(struct ofl_pool_worker *w, struct ofl_sched_mark *m)
{
	struct timespec ts;
	struct rusage ru;

	OFL_UNUSED(w);
	m->wall_ns = ofl_now_ns();
	m->cpu_ns = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0
			    ? (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec
			    : 0;
	m->preempted = getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

/*
 * Was another task on w's CPU for long between marks a and b? It was
 * preempted, and it was off the CPU for over OFL_POOL_WAIT_NS.
 */
static bool sched_contended(const struct ofl_sched_mark *a, const struct ofl_sched_mark *b)
{
	uint64_t wall = b->wall_ns - a->wall_ns, cpu = b->cpu_ns - a->cpu_ns;

	return b->preempted != a->preempted && wall > cpu && wall - cpu > OFL_POOL_WAIT_NS;
}

/*
 * Does another task wait for this worker's CPU? sched_yield() hands the CPU
 * to it if the scheduler deems it due, and returns only when the worker's
 * turn comes again; with nobody waiting it returns at once. Costs the worker
 * a few microseconds (no lock held), the leader nothing. A quick return is
 * no proof (a scheduler may keep a freshly woken thread running): the
 * counters around each split catch the rest (split_help()).
 */
static bool probe_contended(struct ofl_pool *p, struct ofl_pool_worker *w,
			    struct ofl_sched_mark *last)
{
	struct ofl_sched_mark a;

	p->sched_read(w, &a);
	sched_yield();
	p->sched_read(w, last);
	if (!sched_contended(&a, last))
		return false;
	worker_contended(w);
	return true;
}

/*
 * Post work (under mu): tell spinning workers through work_seq, and pick up
 * to `want` sleeping workers pinned elsewhere than `avoid_cpu` to wake (a
 * worker woken on the poster's own CPU would only take turns with it). With
 * `any`, a worker on that CPU is still picked when no other sleeps: a queue
 * batch must run somewhere, while a split's leader can copy alone, and then
 * contended workers are not woken either. Returns how many were picked into
 * wake[]; wake_workers() signals them once mu is released, so that they do
 * not wake only to block on it.
 */
static unsigned post_work(struct ofl_pool *p, unsigned want, int avoid_cpu, bool any,
			  struct ofl_pool_worker **wake)
{
	unsigned n = 0;
	uint64_t now = any ? 0 : ofl_now_ns();

	atomic_fetch_add_explicit(&p->work_seq, 1, memory_order_release);
	for (int pass = 0; pass < (any ? 2 : 1); pass++)
		for (unsigned i = 0; i < p->started && n < want; i++) {
			struct ofl_pool_worker *w = &p->w[i];
			if (w->sleeping && (pass == 1 || w->cpu < 0 || w->cpu != avoid_cpu) &&
			    (any || worker_free(w, now))) {
				w->sleeping = false;
				wake[n++] = w;
			}
		}
	return n;
}

static void wake_workers(struct ofl_pool_worker **wake, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pthread_cond_signal(&wake[i]->cv);
}

static bool split_joinable(const struct ofl_pool *p, const struct ofl_pool_worker *w)
{
	return p->sp.open && (w->cpu < 0 || w->cpu != p->sp.leader_cpu) &&
	       atomic_load_explicit(&p->sp.helpers, memory_order_relaxed) + 1 < p->ncpu &&
	       atomic_load_explicit(&p->sp.next, memory_order_relaxed) < p->sp.c.len;
}

/*
 * A worker helps the open split. Called and returns with mu held. A worker
 * that waited long for its CPU meanwhile made the leader wait for its chunk:
 * it stays out of the next splits (worker_contended()).
 *
 * `last` is the worker's latest reading of its counters, taken after its
 * previous split or by the probe, with a watch for work since that kept its
 * CPU (worker_main()); it serves as the reading before this split, so that
 * nothing is read between the join and the first chunk. It is read again
 * when the worker leaves: before it leaves if the leader sleeps for it, as
 * the woken leader often runs on this CPU and that time is no other task's;
 * after it leaves if the leader spins on its own CPU, which then does not
 * wait for the reading (two system calls, about 1 us on the 2-vCPU guest,
 * 2 % of a 4 MiB split). leader_waits is set under mu only, so a leader seen
 * spinning under mu cannot start sleeping before the count drops.
 */
static void split_help(struct ofl_pool *p, struct ofl_pool_worker *w, struct ofl_sched_mark *last)
{
	struct ofl_chunks c = p->sp.c; /* stays put until we leave */
	struct ofl_sched_mark before = *last;

	atomic_fetch_add_explicit(&p->sp.helpers, 1, memory_order_relaxed);
	pthread_mutex_unlock(&p->mu);
	split_work(p, &c);
	pthread_mutex_lock(&p->mu);
	bool read_first = p->sp.leader_waits;
	if (read_first) {
		pthread_mutex_unlock(&p->mu);
		p->sched_read(w, last);
		pthread_mutex_lock(&p->mu);
	}
	if (atomic_fetch_sub_explicit(&p->sp.helpers, 1, memory_order_relaxed) == 1 &&
	    p->sp.leader_waits)
		pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->mu);
	if (!read_first)
		p->sched_read(w, last);
	if (sched_contended(&before, last))
		worker_contended(w);
	pthread_mutex_lock(&p->mu);
}

static bool pool_start(struct ofl_pool *p);

static inline bool pool_ready(struct ofl_pool *p)
{
	int s = atomic_load_explicit(&p->state, memory_order_acquire);

	if (OFL_LIKELY(s == 1))
		return true;
	return s == 0 && pool_start(p);
}

/* Is some worker on another CPU than `cpu` free to help a split (not contended)? */
static bool helper_available(const struct ofl_pool *p, int cpu)
{
	uint64_t now = ofl_now_ns();

	for (unsigned i = 0; i < p->started; i++) {
		const struct ofl_pool_worker *w = &p->w[i];
		if ((w->cpu < 0 || w->cpu != cpu) && worker_free(w, now))
			return true;
	}
	return false;
}

/*
 * A large copy that the caller makes alone (no free helper, or another split
 * runs): with the split's own choice of stores, from nt_min streaming, as the
 * split would have. glibc's memcpy sizes its own threshold from sysconf's
 * cache size, which some guests overstate tenfold (see memcpy.c), and then
 * copies such a length through the caches at a fraction of the speed.
 */
static void copy_alone(struct ofl_pool *p, void *dst, const void *src, size_t len)
{
	bool nt = choose_nt(p, dst, len, false);

	if (nt)
		atomic_fetch_add_explicit(&p->alone_nt, 1, memory_order_relaxed);
	copy_range(dst, src, len, nt);
}

void ofl_pool_copy(struct ofl_pool *p, void *dst, const void *src, size_t len)
{
	/* Not split: plain memcpy, which picks its own stores for the whole length. */
	if (len < p->split_min) {
		memcpy(dst, src, len);
		return;
	}
	if (!pool_ready(p) || atomic_exchange_explicit(&p->split_busy, true, memory_order_acquire)) {
		copy_alone(p, dst, src, len);
		return;
	}
	int cpu = sched_getcpu();
	if (!helper_available(p, cpu)) {
		/* every helper's CPU is taken: waiting for one would cost more than it gives */
		atomic_store_explicit(&p->split_busy, false, memory_order_release);
		copy_alone(p, dst, src, len);
		return;
	}
	struct ofl_split *sp = &p->sp;
	struct ofl_chunks c = { .dst = dst, .src = src, .len = len, .share = p->ncpu,
				.nt = choose_nt(p, dst, len, true) };

	pthread_mutex_lock(&p->mu);
	sp->c = c;
	sp->leader_cpu = cpu;
	atomic_store_explicit(&sp->next, 0, memory_order_relaxed);
	sp->open = true;
	atomic_fetch_add_explicit(&p->splits, 1, memory_order_relaxed);
	struct ofl_pool_worker *wake[OFL_POOL_MAX_THREADS];
	unsigned nwake = post_work(p, p->ncpu - 1, sp->leader_cpu, false, wake);
	pthread_mutex_unlock(&p->mu);
	wake_workers(wake, nwake);

	split_work(p, &c);

	/* Every chunk is claimed; wait for helpers still copying theirs. */
	spin_until_zero(&sp->helpers);
	pthread_mutex_lock(&p->mu);
	sp->open = false;
	while (atomic_load_explicit(&sp->helpers, memory_order_relaxed) != 0) {
		sp->leader_waits = true;
		pthread_cond_wait(&p->done_cv, &p->mu);
	}
	sp->leader_waits = false;
	pthread_mutex_unlock(&p->mu);
	atomic_store_explicit(&p->split_busy, false, memory_order_release);
}

/* ------------------------------------------------------------------ queues */

static void queue_wake_owner(struct ofl_pool *p, struct ofl_cpu_queue *cq)
{
	if (atomic_load(&cq->waiting)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&cq->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

/* The runner: copy the queue's handed-over jobs in order (no lock held). */
static void queue_run(struct ofl_pool *p, struct ofl_cpu_queue *cq)
{
	struct offload_queue *q = cq->q;
	uint32_t d = atomic_load_explicit(&cq->done, memory_order_relaxed);

	for (;;) {
		uint32_t t = atomic_load_explicit(&cq->target, memory_order_acquire);
		if (d == t)
			return;
		struct ofl_job *j = &q->jobs[d & q->mask];
		ofl_pool_copy(p, j->dst, j->src, j->len);
		j->status = 0;
		j->flags = OFFLOAD_RES_CPU;
		/* seq_cst store then load: pairs with the owner's in progress(). */
		atomic_store(&cq->done, ++d);
		queue_wake_owner(p, cq);
	}
}

int ofl_pool_queue_open(struct ofl_pool *p, struct offload_queue *q, struct ofl_cpu_queue *cq)
{
	pthread_condattr_t ca;

	memset(cq, 0, sizeof(*cq));
	cq->pool = p;
	cq->q = q;
	atomic_init(&cq->done, q->done);
	atomic_init(&cq->target, q->done);
	atomic_init(&cq->waiting, false);
	atomic_init(&cq->attached, false);
	if (pthread_condattr_init(&ca) != 0)
		return -ENOMEM;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int r = pthread_cond_init(&cq->cv, &ca);
	pthread_condattr_destroy(&ca);
	return r ? -r : 0;
}

void ofl_pool_queue_close(struct ofl_cpu_queue *cq)
{
	struct ofl_pool *p = cq->pool;

	pthread_mutex_lock(&p->mu);
	while (cq->queued || cq->running)
		pthread_cond_wait(&cq->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	pthread_cond_destroy(&cq->cv);
}

void ofl_pool_queue_submit(struct ofl_cpu_queue *cq, size_t inline_max)
{
	struct ofl_pool *p = cq->pool;
	struct offload_queue *q = cq->q;
	uint32_t from = q->submitted, to = q->tail;
	size_t bytes = 0;

	for (uint32_t i = from; i != to && bytes < inline_max; i++)
		bytes += q->jobs[i & q->mask].len;
	/*
	 * Inline unless the batch is big; and never while a runner is attached
	 * to this queue: its jobs would finish out of order, and one that has
	 * published its last job but not yet compared target and done under mu
	 * would take the inline batch's `done` for more jobs to copy. After a
	 * fork the child has no workers: run inline there too.
	 */
	bool busy = atomic_load_explicit(&cq->attached, memory_order_acquire) ||
		    atomic_load_explicit(&cq->done, memory_order_acquire) != from;
	if (!busy && (bytes < inline_max || !pool_ready(p) || p->pid != getpid())) {
		for (uint32_t i = from; i != to; i++) {
			struct ofl_job *j = &q->jobs[i & q->mask];
			ofl_pool_copy(p, j->dst, j->src, j->len);
			j->status = 0;
			j->flags = OFFLOAD_RES_CPU;
		}
		atomic_store_explicit(&cq->done, to, memory_order_relaxed);
		q->done = to;
		return;
	}
	struct ofl_pool_worker *wake[1];
	unsigned nwake = 0;
	pthread_mutex_lock(&p->mu);
	atomic_store_explicit(&cq->target, to, memory_order_release);
	if (!cq->queued && !cq->running) {
		cq->queued = true;
		atomic_store_explicit(&cq->attached, true, memory_order_relaxed);
		cq->next = NULL;
		if (p->runq_tail)
			p->runq_tail->next = cq;
		else
			p->runq_head = cq;
		p->runq_tail = cq;
		nwake = post_work(p, 1, sched_getcpu(), true, wake);
	}
	pthread_mutex_unlock(&p->mu);
	wake_workers(wake, nwake);
}

int ofl_pool_queue_progress(struct ofl_cpu_queue *cq, int64_t timeout_us)
{
	struct ofl_pool *p = cq->pool;
	struct offload_queue *q = cq->q;
	uint32_t d = atomic_load_explicit(&cq->done, memory_order_acquire);

	if (d == q->done && timeout_us != 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (timeout_us > 0) {
			ts.tv_sec += (time_t)(timeout_us / 1000000);
			ts.tv_nsec += (long)(timeout_us % 1000000) * 1000;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
		}
		pthread_mutex_lock(&p->mu);
		atomic_store(&cq->waiting, true);
		while ((d = atomic_load(&cq->done)) == q->done) {
			if (timeout_us < 0)
				pthread_cond_wait(&cq->cv, &p->mu);
			else if (pthread_cond_timedwait(&cq->cv, &p->mu, &ts) == ETIMEDOUT)
				break;
		}
		atomic_store(&cq->waiting, false);
		pthread_mutex_unlock(&p->mu);
		d = atomic_load_explicit(&cq->done, memory_order_acquire);
	}
	if (d == q->done)
		return -ETIMEDOUT;
	q->done = d;
	return 0;
}

/* ------------------------------------------------------------------ workers */

/*
 * Watch for new work for a short while (no lock held). Returns true if the
 * watch kept its CPU throughout. A gap of OFL_POOL_GAP_NS in it means
 * the worker did not run meanwhile; it then stops watching and the next split
 * it joins probes its CPU first (probe_contended()). The gap alone does not
 * mark it contended: no split waited for it, and the task that took the CPU
 * is often this process's own leader, which the scheduler put on this
 * worker's CPU (the worker cannot help that leader, but will help the next
 * one elsewhere), or the hypervisor, which ran the virtual CPU elsewhere.
 */
static bool spin_for_work(struct ofl_pool *p, unsigned seq)
{
	uint64_t last = ofl_now_ns(), until = last + OFL_POOL_SPIN_NS;

	for (unsigned n = 1;; n++) {
		if (atomic_load_explicit(&p->work_seq, memory_order_acquire) != seq)
			return true;
		cpu_relax();
		if ((n & 63u) == 0) {
			uint64_t now = ofl_now_ns();
			if (now - last > OFL_POOL_GAP_NS)
				return false;
			if (now >= until)
				return true;
			last = now;
		}
	}
}

static void *worker_main(void *arg)
{
	struct ofl_pool_worker *w = arg;
	struct ofl_pool *p = w->pool;
	bool hot = false;    /* just did work: more may follow at once */
	bool smooth = false; /* came from a watch that kept the CPU: no need to probe it */

	struct ofl_sched_mark last; /* the latest reading of this worker's counters */

	p->sched_read(w, &last);
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		if (split_joinable(p, w) && worker_free(w, ofl_now_ns())) {
			if (!smooth) {
				/* woken from sleep: is the CPU ours? (no lock held for the probe) */
				pthread_mutex_unlock(&p->mu);
				bool taken = probe_contended(p, w, &last);
				pthread_mutex_lock(&p->mu);
				smooth = true; /* probed now: do not probe again for this split */
				if (taken)
					continue;
			}
			split_help(p, w, &last);
			hot = true;
			smooth = false;
			continue;
		}
		struct ofl_cpu_queue *cq = p->runq_head;
		if (cq) {
			p->runq_head = cq->next;
			if (!p->runq_head)
				p->runq_tail = NULL;
			cq->queued = false;
			cq->running = true;
			do {
				pthread_mutex_unlock(&p->mu);
				queue_run(p, cq);
				pthread_mutex_lock(&p->mu);
			} while (atomic_load(&cq->target) != atomic_load(&cq->done));
			cq->running = false;
			atomic_store_explicit(&cq->attached, false, memory_order_release);
			pthread_cond_broadcast(&cq->cv);
			hot = true;
			continue;
		}
		if (hot) {
			/* Back-to-back large copies: watch a little before sleeping. */
			unsigned seq = atomic_load_explicit(&p->work_seq, memory_order_acquire);
			hot = false;
			pthread_mutex_unlock(&p->mu);
			smooth = spin_for_work(p, seq);
			pthread_mutex_lock(&p->mu);
			continue;
		}
		w->sleeping = true;
		while (w->sleeping && !p->stop)
			pthread_cond_wait(&w->cv, &p->mu);
		w->sleeping = false;
		smooth = false;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Start the workers (first use), each pinned to one of the process's CPUs. */
static bool pool_start(struct ofl_pool *p)
{
	sigset_t all, old;

	pthread_mutex_lock(&p->mu);
	if (atomic_load_explicit(&p->state, memory_order_relaxed) == 0) {
		/* Workers take no signals: those belong to the application's threads. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (unsigned i = 0; i < p->nthreads; i++) {
			struct ofl_pool_worker *w = &p->w[i];
			pthread_attr_t attr;
			cpu_set_t set;
			w->pool = p;
			w->cpu = p->ncpus_set ? p->cpus[i % p->ncpus_set] : -1;
			atomic_init(&w->contended_until, 0);
			w->backoff_ns = w->last_contended = 0;
			if (pthread_cond_init(&w->cv, NULL) != 0)
				break;
			pthread_attr_init(&attr);
			if (w->cpu >= 0) {
				CPU_ZERO(&set);
				CPU_SET((unsigned)w->cpu, &set);
				if (pthread_attr_setaffinity_np(&attr, sizeof(set), &set) != 0)
					w->cpu = -1;
			}
			int r = pthread_create(&w->tid, &attr, worker_main, w);
			pthread_attr_destroy(&attr);
			if (r != 0) {
				pthread_cond_destroy(&w->cv);
				break;
			}
			char name[16];
			snprintf(name, sizeof(name), "offload-cpu%u", i % 1000u);
			pthread_setname_np(w->tid, name);
			p->started++;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		p->pid = getpid();
		atomic_store_explicit(&p->state, p->started ? 1 : 2, memory_order_release);
	}
	bool ok = atomic_load_explicit(&p->state, memory_order_relaxed) == 1;
	pthread_mutex_unlock(&p->mu);
	return ok;
}

int ofl_pool_init(struct ofl_pool *p, unsigned nthreads, size_t split_min, size_t probe_min,
		  size_t nt_min)
{
	cpu_set_t set;

	memset(p, 0, sizeof(*p));
	p->ncpu = nthreads;
	p->nthreads = nthreads >= 2 ? OFL_MIN(nthreads, OFL_POOL_MAX_THREADS) : 0;
	p->split_min = p->nthreads ? split_min : SIZE_MAX;
	p->probe_min = probe_min;
	p->nt_min = nt_min;
	p->sched_read = sched_read_os;
	p->cached_lines = ofl_pool_cached_lines;
	atomic_init(&p->state, p->nthreads ? 0 : 2);
	atomic_init(&p->split_busy, false);
	atomic_init(&p->work_seq, 0);
	atomic_init(&p->alone_nt, 0);
	atomic_init(&p->probe_uncached, 0);
	atomic_init(&p->splits, 0);
	atomic_init(&p->sp.next, 0);
	atomic_init(&p->sp.helpers, 0);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && p->ncpus_set < OFL_POOL_MAX_THREADS; c++)
			if (CPU_ISSET((unsigned)c, &set))
				p->cpus[p->ncpus_set++] = c;
	int r = pthread_mutex_init(&p->mu, NULL);
	if (r)
		return -r;
	r = pthread_cond_init(&p->done_cv, NULL);
	if (r) {
		pthread_mutex_destroy(&p->mu);
		return -r;
	}
	return 0;
}

void ofl_pool_fini(struct ofl_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	atomic_fetch_add_explicit(&p->work_seq, 1, memory_order_release);
	for (unsigned i = 0; i < p->started; i++) {
		p->w[i].sleeping = false;
		pthread_cond_signal(&p->w[i].cv);
	}
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->started; i++) {
		pthread_join(p->w[i].tid, NULL);
		pthread_cond_destroy(&p->w[i].cv);
	}
	pthread_cond_destroy(&p->done_cv);
	pthread_mutex_destroy(&p->mu);
}
