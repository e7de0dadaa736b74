/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's copy pool, driven directly with small thresholds so that
 * chunking and the non-temporal path run on small buffers (through the public
 * API they start at 4 MiB and at a fraction of the last-level cache).
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h" /* ofl_now_ns */
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

static void sweep(unsigned threads, size_t split_min, size_t probe_min, size_t nt_min)
{
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, threads, split_min, probe_min, nt_min), 0);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (size_t a = 0; a < sizeof(offs) / sizeof(offs[0]); a++)
			pool_copy_check(&p, sizes[k], offs[(a + 2) % 7], offs[a],
					(uint32_t)(k * 7 + a + threads));
	ofl_pool_fini(&p);
}

START_TEST(split_with_cached_stores)
{
	sweep(2, 64 * 1024, SIZE_MAX, SIZE_MAX);
}
END_TEST

START_TEST(split_with_streaming_stores)
{
	/* From 512 KiB the chunks use non-temporal stores (memcpy off x86-64). */
	sweep(2, 64 * 1024, SIZE_MAX, 512 * 1024);
}
END_TEST

START_TEST(many_threads)
{
	sweep(8, 64 * 1024, SIZE_MAX, 512 * 1024);
}
END_TEST

START_TEST(no_pool_copies_inline)
{
	/* One thread: no workers are ever started, every size still copies. */
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, 1, 64 * 1024, SIZE_MAX, 512 * 1024), 0);
	ck_assert_uint_eq(p.nthreads, 0);
	pool_copy_check(&p, 2 * 1024 * 1024 + 3, 1, 5, 99);
	ck_assert_uint_eq(p.started, 0);
	ofl_pool_fini(&p);
}
END_TEST

START_TEST(workers_start_lazily)
{
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX, SIZE_MAX), 0);
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

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX, 512 * 1024), 0);
	for (unsigned i = 0; i < 4; i++)
		l[i] = (struct leader){ .p = &p, .index = i };
	test_run_threads(leader_main, l, sizeof(l[0]), 4);
	ofl_pool_fini(&p);
}
END_TEST

/* Wait until every started worker sleeps (they spin 50 us after work, then sleep). */
static void wait_all_asleep(struct ofl_pool *p)
{
	for (int tries = 0; tries < 5000; tries++) {
		unsigned asleep = 0;
		pthread_mutex_lock(&p->mu);
		for (unsigned i = 0; i < p->started; i++)
			asleep += p->w[i].sleeping;
		pthread_mutex_unlock(&p->mu);
		if (asleep == p->started)
			return;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("the pool's workers did not go to sleep within 5 s");
}

/*
 * A split only when a helper can run: with every worker marked contended (its
 * CPU taken by another task), a copy above the split size is the leader's
 * alone, and nobody is posted to or woken: a helper that does not run would
 * make the leader wait for its chunk.
 */
START_TEST(contended_workers_are_left_alone)
{
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX, SIZE_MAX), 0);
	pool_copy_check(&p, 1024 * 1024, 0, 0, 3); /* starts the workers */
	ck_assert_uint_eq(p.started, 2);
	wait_all_asleep(&p);
	for (unsigned i = 0; i < p.started; i++)
		atomic_store(&p.w[i].contended_until, UINT64_MAX);
	unsigned seq = atomic_load(&p.work_seq);
	pool_copy_check(&p, 2 * 1024 * 1024 + 4097, 5, 9, 4);
	unsigned after = atomic_load(&p.work_seq);
	ck_assert_msg(after == seq, "work was posted (work_seq %u -> %u)", seq, after);
	for (unsigned i = 0; i < p.started; i++)
		ck_assert_msg(p.w[i].sleeping, "worker %u was woken for a split it may not join", i);
	/* free again: the next split posts */
	for (unsigned i = 0; i < p.started; i++)
		atomic_store(&p.w[i].contended_until, 0);
	pool_copy_check(&p, 2 * 1024 * 1024 + 4097, 5, 9, 5);
	after = atomic_load(&p.work_seq);
	ck_assert_msg(after != seq, "no work was posted for a split with free workers");
	ofl_pool_fini(&p);
}
END_TEST

/*
 * Every size and alignment again with the destination probed before each
 * copy of 64 KiB and more, whatever the probe decides.
 */
START_TEST(split_with_probed_stores)
{
	sweep(2, 64 * 1024, 64 * 1024, SIZE_MAX);
}
END_TEST

/* A scripted probe (ofl_pool::cached_lines): what it was asked, what it answers. */
static struct {
	unsigned answer, calls, n, enough;
	const char *d;
	size_t len;
} fake_probe;

static unsigned fake_cached_lines(const char *d, size_t len, unsigned n, unsigned enough)
{
	fake_probe.calls++;
	fake_probe.d = d;
	fake_probe.len = len;
	fake_probe.n = n;
	fake_probe.enough = enough;
	return fake_probe.answer;
}

/* One copy of len bytes into a fresh buffer; how many of them the pool streamed on the probe's word. */
static unsigned long probed_copy(struct ofl_pool *p, size_t len, uint32_t seed)
{
	unsigned long before = atomic_load(&p->probe_uncached);
	fake_probe.calls = 0;
	pool_copy_check(p, len, 0, 0, seed);
	return atomic_load(&p->probe_uncached) - before;
}

/*
 * The rule on top of the probe, for a copy split (or alone, wherever the
 * machine's load leaves no helper) and for one the caller must make alone
 * (every helper marked contended): between probe_min and nt_min
 * a copy streams when fewer than OFL_POOL_PROBE_HITS of OFL_POOL_PROBES
 * probed lines were cached, and an answer of UINT_MAX (cannot tell) leaves it
 * in the caches; below probe_min and from nt_min nothing is probed.
 */
static void probe_rule(bool alone)
{
	struct ofl_pool p;
	const size_t len = 256 * 1024;

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, 128 * 1024, 1024 * 1024), 0);
	p.cached_lines = fake_cached_lines;
	pool_copy_check(&p, 64 * 1024, 0, 0, 1); /* starts the workers, below probe_min */
	ck_assert_uint_eq(p.started, 2);
	if (alone)
		for (unsigned i = 0; i < p.started; i++)
			atomic_store(&p.w[i].contended_until, UINT64_MAX);
	for (unsigned hits = 0; hits <= OFL_POOL_PROBES; hits++) {
		fake_probe.answer = hits;
		unsigned long n = probed_copy(&p, len, 10 + hits);
		ck_assert_uint_eq(fake_probe.calls, 1);
		ck_assert_uint_eq(fake_probe.len, len);
		ck_assert_uint_eq(fake_probe.n, OFL_POOL_PROBES);
		ck_assert_uint_eq(fake_probe.enough, OFL_POOL_PROBE_HITS);
		ck_assert_msg(n == (hits < OFL_POOL_PROBE_HITS),
			      "%u of %u lines cached: streamed %lu copies", hits, OFL_POOL_PROBES, n);
	}
	fake_probe.answer = UINT_MAX;
	ck_assert_uint_eq(probed_copy(&p, len, 30), 0);
	ck_assert_uint_eq(fake_probe.calls, 1);
	fake_probe.answer = 0;
	ck_assert_uint_eq(probed_copy(&p, 128 * 1024 - 1, 31), 0);
	ck_assert_uint_eq(fake_probe.calls, 0);
	ck_assert_uint_eq(probed_copy(&p, 1024 * 1024, 32), 0);
	ck_assert_uint_eq(fake_probe.calls, 0);
	/* alone: the copies streamed on the probe's word (hits 0, 1, 2) and the one at nt_min */
	if (alone)
		ck_assert_uint_eq(atomic_load(&p.alone_nt), OFL_POOL_PROBE_HITS + 1);
	ofl_pool_fini(&p);
}

START_TEST(probe_rule_either_way)
{
	probe_rule(false);
}
END_TEST

START_TEST(probe_rule_when_alone)
{
	probe_rule(true);
}
END_TEST

/* Scheduler counters (ofl_pool::sched_read) of a worker that never waits for its CPU. */
static void never_contended(struct ofl_pool_worker *w, struct ofl_sched_mark *m)
{
	(void)w;
	*m = (struct ofl_sched_mark){ 0 };
}

/*
 * From nt_min the stores stream whatever the destination, except in a split
 * copy below split_probe_max: that one streams only on the probe's word, as
 * below nt_min. Each copy's path is set by marking the workers contended or
 * not before it (their scheduler counters never say contended), and read back
 * from the pool's split count; made alone, every copy streams unprobed.
 */
static void split_probe_band(bool alone)
{
	struct ofl_pool p;
	const size_t nt_min = 512 * 1024, probe_max = 2048 * 1024;
	const size_t lens[] = { nt_min, 1024 * 1024, probe_max - 4096, probe_max };

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, 128 * 1024, nt_min), 0);
	p.split_probe_max = probe_max;
	p.cached_lines = fake_cached_lines;
	p.sched_read = never_contended; /* the machine's load must not keep a copy alone */
	pool_copy_check(&p, 64 * 1024, 0, 0, 1); /* starts the workers, below probe_min */
	ck_assert_uint_eq(p.started, 2);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (unsigned hits = 0; hits <= OFL_POOL_PROBES; hits += OFL_POOL_PROBES) {
			fake_probe.answer = hits;
			for (unsigned i = 0; i < p.started; i++)
				atomic_store(&p.w[i].contended_until, alone ? UINT64_MAX : 0);
			unsigned long splits = atomic_load(&p.splits), nt = atomic_load(&p.alone_nt);
			unsigned long n = probed_copy(&p, lens[k], 40 + (uint32_t)k * 16 + hits);
			bool split = atomic_load(&p.splits) != splits;
			ck_assert_msg(split == !alone, "%zu B: split %d", lens[k], split);
			if (split && lens[k] < probe_max) {
				ck_assert_uint_eq(fake_probe.calls, 1);
				ck_assert_uint_eq(fake_probe.len, lens[k]);
				ck_assert_msg(n == (hits < OFL_POOL_PROBE_HITS), "%zu B split, %u lines cached: "
					      "streamed %lu on the probe's word", lens[k], hits, n);
			} else {
				ck_assert_msg(fake_probe.calls == 0, "%zu B %s: probed", lens[k],
					      split ? "split" : "alone");
				ck_assert_uint_eq(n, 0);
				if (!split)
					ck_assert_uint_eq(atomic_load(&p.alone_nt), nt + 1);
			}
		}
	}
	ofl_pool_fini(&p);
}

START_TEST(split_probe_band_when_split)
{
	split_probe_band(false);
}
END_TEST

START_TEST(split_probe_band_when_alone)
{
	split_probe_band(true);
}
END_TEST

#if defined(__x86_64__)
#include <emmintrin.h>

static void pin_thread(int cpu);
#endif

/*
 * The probe itself, on this machine's caches: a 1 MiB destination just
 * written by memset fits in L2 and most of its probed lines are cached; one
 * flushed with CLFLUSH (Intel SDM vol. 2A) is in memory only and few are.
 * A load's time also counts an interrupt or the host's scheduler taking the
 * vCPU away, so each state gets five tries and one right answer passes; a
 * probe that cannot tell the states apart, or has them the wrong way round,
 * fails all five.
 */
START_TEST(probe_tells_a_cached_destination_from_a_flushed_one)
{
#if defined(__x86_64__)
	const size_t len = 1u << 20;
	const unsigned n = 16, tries = 5;
	char *dst = aligned_alloc(4096, len);
	unsigned written[5], flushed[5];
	bool cached_seen = false, flushed_seen = false;

	ck_assert_ptr_nonnull(dst);
	ck_assert_msg(ofl_pool_probe_usable(), "an x86-64 load's time cannot tell a cached line");
	/* lines written on one core take about as long to load from another as memory's */
	pin_thread(sched_getcpu());
	for (unsigned t = 0; t < tries; t++) {
		memset(dst, (int)t, len);
		written[t] = ofl_pool_cached_lines(dst, len, n, 0);
		cached_seen |= written[t] >= n / 2;
		for (size_t o = 0; o < len; o += 64)
			_mm_clflush(dst + o);
		_mm_mfence();
		flushed[t] = ofl_pool_cached_lines(dst, len, n, 0);
		flushed_seen |= flushed[t] < OFL_POOL_PROBE_HITS;
	}
	ck_assert_msg(cached_seen && flushed_seen,
		      "of %u lines cached: just written %u %u %u %u %u, flushed %u %u %u %u %u", n,
		      written[0], written[1], written[2], written[3], written[4], flushed[0],
		      flushed[1], flushed[2], flushed[3], flushed[4]);
	free(dst);
#else
	ck_assert_msg(!ofl_pool_probe_usable(), "the probe is x86-64's only");
	ck_assert_uint_eq(ofl_pool_cached_lines((const char *)&fake_probe, 1u << 20, 8, 0), UINT_MAX);
#endif
}
END_TEST

/*
 * A copy of at least nt_min that the caller makes alone (every helper
 * contended) streams like a split would: it is not left to memcpy, whose own
 * threshold comes from a cache size some guests overstate (issue #19: 320 MiB
 * for 32 MiB). Below nt_min it stays with memcpy.
 */
START_TEST(copy_alone_streams_from_nt_min)
{
	struct ofl_pool p;

	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX, 512 * 1024), 0);
	pool_copy_check(&p, 128 * 1024, 0, 0, 7); /* starts the workers */
	ck_assert_uint_eq(p.started, 2);
	for (unsigned i = 0; i < p.started; i++)
		atomic_store(&p.w[i].contended_until, UINT64_MAX);
	pool_copy_check(&p, 256 * 1024 + 3, 1, 2, 8); /* alone, below nt_min */
	unsigned long nt = atomic_load(&p.alone_nt);
	ck_assert_msg(nt == 0, "a copy below nt_min streamed (%lu)", nt);
	pool_copy_check(&p, 512 * 1024, 0, 0, 9); /* alone, from nt_min */
	pool_copy_check(&p, 1024 * 1024 + 4097, 5, 9, 10);
	nt = atomic_load(&p.alone_nt);
	ck_assert_msg(nt == 2, "copies alone from nt_min with streaming stores: %lu, want 2", nt);
	ofl_pool_fini(&p);
}
END_TEST

/* Threads that only burn a CPU (cpu, or any when it is -1) until stop. */
struct spinner {
	atomic_bool stop;
	int cpu;
};

/* The process's CPUs into *set; false, saying so, when fewer than 2 (nothing to check). */
static bool two_cpus(cpu_set_t *set, const char *test)
{
	if (sched_getaffinity(0, sizeof(*set), set) == 0 && CPU_COUNT(set) >= 2)
		return true;
	fprintf(stderr, "%s: fewer than 2 CPUs, nothing to check\n", test);
	return false;
}

/* Pin the calling thread to one CPU. */
static void pin_thread(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET((unsigned)cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

static void *spin_main(void *arg)
{
	struct spinner *sp = arg;

	if (sp->cpu >= 0)
		pin_thread(sp->cpu);
	while (!atomic_load_explicit(&sp->stop, memory_order_relaxed))
		;
	return NULL;
}

/*
 * A worker whose CPU another thread keeps busy finds out (a preemption
 * during a split, a gap in its watch, or a sched_yield() that gave the CPU
 * away) and is marked contended: within seconds of splits it must have been
 * preempted at least once, the scheduler shares that CPU.
 */
START_TEST(worker_sharing_its_cpu_is_marked_contended)
{
	struct ofl_pool p;
	struct spinner sp;
	pthread_t tid;
	cpu_set_t set;

	if (!two_cpus(&set, "worker_sharing_its_cpu"))
		return;
	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX, SIZE_MAX), 0);
	pool_copy_check(&p, 1024 * 1024, 0, 0, 6);
	ck_assert_int_ge(p.w[1].cpu, 0);
	atomic_init(&sp.stop, false);
	sp.cpu = p.w[1].cpu;
	ck_assert_int_eq(pthread_create(&tid, NULL, spin_main, &sp), 0);
	bool marked = false;
	size_t n = 4u << 20;
	unsigned char *a = malloc(n), *b = malloc(n);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	memset(b, 0x3c, n);
	uint64_t until = ofl_now_ns() + 20ull * 1000000000ull;
	while (!marked && ofl_now_ns() < until) {
		ofl_pool_copy(&p, a, b, n);
		for (unsigned i = 0; i < p.started; i++)
			marked |= p.w[i].cpu == sp.cpu &&
				  atomic_load(&p.w[i].contended_until) > ofl_now_ns();
	}
	atomic_store(&sp.stop, true);
	pthread_join(tid, NULL);
	ck_assert_int_eq(memcmp(a, b, n), 0);
	ck_assert_msg(marked, "the worker on CPU %d was never found contended", sp.cpu);
	free(a);
	free(b);
	ofl_pool_fini(&p);
}
END_TEST

/*
 * Scripted scheduler counters (ofl_pool::sched_read) for the tests below:
 * between two reads of a worker's counters, 1 ms passes, of which the worker
 * spent fake_wait_step ns off its CPU after one involuntary switch.
 */
static struct ofl_pool *fake_pool;
static uint64_t fake_wait_step;
static uint64_t fake_wall[OFL_POOL_MAX_THREADS], fake_cpu[OFL_POOL_MAX_THREADS];
static long fake_preempted[OFL_POOL_MAX_THREADS];

static void fake_sched_read(struct ofl_pool_worker *w, struct ofl_sched_mark *m)
{
	size_t i = (size_t)(w - fake_pool->w);

	fake_wall[i] += 1000000u;
	fake_cpu[i] += 1000000u - fake_wait_step;
	fake_preempted[i]++;
	m->wall_ns = fake_wall[i];
	m->cpu_ns = fake_cpu[i];
	m->preempted = fake_preempted[i];
}

static void fake_pool_init(struct ofl_pool *p, uint64_t wait_step)
{
	ck_assert_int_eq(ofl_pool_init(p, 2, 64 * 1024, SIZE_MAX, SIZE_MAX), 0);
	fake_pool = p;
	fake_wait_step = wait_step;
	memset(fake_wall, 0, sizeof(fake_wall));
	memset(fake_cpu, 0, sizeof(fake_cpu));
	memset(fake_preempted, 0, sizeof(fake_preempted));
	p->sched_read = fake_sched_read;
}

static bool any_contended(struct ofl_pool *p)
{
	for (unsigned i = 0; i < p->started; i++)
		if (atomic_load(&p->w[i].contended_until) != 0)
			return true;
	return false;
}

/*
 * A worker preempted for 100 us in every split (kernel work, a short task)
 * made its leader wait no longer than that: it stays in the splits, since
 * staying out costs at least 10 ms of copies at memcpy's speed. Counting
 * preemptions, as the pool once did, or waits over 50 us, as it did next,
 * took it out of them each time; on a quiet 2-CPU guest that made 4-16 MiB
 * copies run alone (issue #19).
 */
START_TEST(short_preemptions_leave_a_worker_in_splits)
{
	struct ofl_pool p;

	fake_pool_init(&p, 100000); /* 100 us off the CPU after a preemption, per read */
	for (unsigned k = 0; k < 50; k++)
		pool_copy_check(&p, 1024 * 1024 + k * 4099, k % 7, k % 5, k);
	unsigned long reads = 0;
	for (unsigned i = 0; i < p.started; i++)
		reads += (unsigned long)fake_preempted[i];
	ck_assert_msg(reads > 0, "no worker read its counters in 50 splits");
	ck_assert_msg(!any_contended(&p), "a worker with 100 us waits was marked contended");
	ofl_pool_fini(&p);
}
END_TEST

/*
 * A worker that waited 1 ms for its CPU (a scheduler slice of a task that
 * shares it) is taken out of the splits.
 */
START_TEST(long_run_queue_waits_mark_a_worker_contended)
{
	struct ofl_pool p;
	size_t n = 8u << 20;
	unsigned char *a = malloc(n), *b = malloc(n);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	memset(b, 0x6d, n);
	fake_pool_init(&p, 1000000);
	uint64_t until = ofl_now_ns() + 20ull * 1000000000ull;
	while (!any_contended(&p) && ofl_now_ns() < until)
		ofl_pool_copy(&p, a, b, n);
	ck_assert_int_eq(memcmp(a, b, n), 0);
	ck_assert_msg(any_contended(&p), "1 ms waits never marked a worker contended in 20 s");
	free(a);
	free(b);
	ofl_pool_fini(&p);
}
END_TEST

/* A thread that sleeps on one CPU and, woken, takes that CPU for 1 ms. */
struct waker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int cpu;
	unsigned asked, done;
	bool stop;
};

static void *waker_main(void *arg)
{
	struct waker *k = arg;

	pin_thread(k->cpu);
	pthread_mutex_lock(&k->mu);
	for (;;) {
		while (k->done == k->asked && !k->stop)
			pthread_cond_wait(&k->cv, &k->mu);
		if (k->stop)
			break;
		pthread_mutex_unlock(&k->mu);
		uint64_t end = ofl_now_ns() + 1000000u;
		while (ofl_now_ns() < end)
			;
		pthread_mutex_lock(&k->mu);
		k->done++;
		pthread_cond_broadcast(&k->cv);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

/*
 * A thread of this process woken onto a worker's CPU right after a split,
 * while that worker watches for the next one (as a leader that slept is
 * woken onto its helper's CPU), is not another task that keeps the CPU: it
 * must not mark the worker contended. The counters say no time off the CPU
 * here, so only the gap in the watch could; a gap alone once did, and then
 * every copy of the next 10 ms and more ran without that worker.
 */
START_TEST(woken_thread_on_a_workers_cpu_leaves_it_in_splits)
{
	struct ofl_pool p;
	struct waker k;
	pthread_t tid;
	cpu_set_t set;

	if (!two_cpus(&set, "woken_thread_on_a_workers_cpu"))
		return;
	fake_pool_init(&p, 0);
	pool_copy_check(&p, 1024 * 1024, 0, 0, 11); /* starts the workers */
	ck_assert_int_ge(p.w[0].cpu, 0);
	ck_assert_int_ge(p.w[1].cpu, 0);
	/* the leader on worker 0's CPU, the waker on worker 1's: worker 1 helps, then watches */
	pin_thread(p.w[0].cpu);
	memset(&k, 0, sizeof(k));
	pthread_mutex_init(&k.mu, NULL);
	pthread_cond_init(&k.cv, NULL);
	k.cpu = p.w[1].cpu;
	ck_assert_int_eq(pthread_create(&tid, NULL, waker_main, &k), 0);
	size_t n = 2u << 20;
	unsigned char *a = malloc(n), *b = malloc(n);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	memset(b, 0x2b, n);
	for (unsigned r = 0; r < 200; r++) { /* a gap comes in a few of them */
		ofl_pool_copy(&p, a, b, n);
		pthread_mutex_lock(&k.mu);
		k.asked++;
		pthread_cond_broadcast(&k.cv);
		while (k.done != k.asked)
			pthread_cond_wait(&k.cv, &k.mu);
		pthread_mutex_unlock(&k.mu);
	}
	pthread_mutex_lock(&k.mu);
	k.stop = true;
	pthread_cond_broadcast(&k.cv);
	pthread_mutex_unlock(&k.mu);
	pthread_join(tid, NULL);
	sched_setaffinity(0, sizeof(set), &set);
	ck_assert_int_eq(memcmp(a, b, n), 0);
	ck_assert_msg(!any_contended(&p), "a worker whose CPU a woken thread took was marked contended");
	free(a);
	free(b);
	pthread_cond_destroy(&k.cv);
	pthread_mutex_destroy(&k.mu);
	ofl_pool_fini(&p);
}
END_TEST

/*
 * A queue whose batches alternate between one handed to the runner and one
 * copied inline at submit, the owner spinning for completions. The inline
 * batch may run as soon as the runner published its last job, while the
 * runner is still on its way out: completions must stay within what was
 * submitted, never go back, and each job's bytes must be its own source's.
 */
START_TEST(queue_inline_batch_right_after_a_runner_batch)
{
	enum { DEPTH = 64, BIG = 2048, SMALL = 16, ROUNDS = 100000 };
	struct ofl_pool p;
	struct ofl_job jobs[DEPTH];
	struct offload_queue q = { .depth = DEPTH, .mask = DEPTH - 1, .jobs = jobs };
	struct ofl_cpu_queue cq;
	static unsigned char src[DEPTH][BIG], dst[DEPTH][BIG];
	unsigned bad = 0, first = 0;

	memset(jobs, 0, sizeof(jobs));
	for (unsigned i = 0; i < DEPTH; i++) /* a stale slot still names valid memory */
		jobs[i] = (struct ofl_job){ .dst = dst[i], .src = src[i], .len = SMALL };
	ck_assert_int_eq(ofl_pool_init(&p, 2, 64 * 1024, SIZE_MAX, SIZE_MAX), 0);
	ck_assert_int_eq(ofl_pool_queue_open(&p, &q, &cq), 0);
	/* two unpinned spinners, so that the scheduler preempts the others at any point */
	struct spinner hog = { .cpu = -1 };
	pthread_t hogs[2];
	atomic_init(&hog.stop, false);
	for (unsigned i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&hogs[i], NULL, spin_main, &hog), 0);
	for (uint32_t it = 0; it < ROUNDS && !bad; it++) {
		size_t len = it & 1 ? SMALL : BIG; /* BIG: at least inline_max, handed to the runner */
		uint32_t slot = q.tail & q.mask;
		for (size_t i = 0; i < len; i++)
			src[slot][i] = pat(it, i);
		memset(dst[slot], 0, len);
		jobs[slot] = (struct ofl_job){ .dst = dst[slot], .src = src[slot], .len = len,
					       .user_data = it, .status = 1 };
		q.tail++;
		ofl_pool_queue_submit(&cq, BIG);
		q.submitted = q.tail;
		uint32_t before = q.done;
		while (q.done != q.submitted && !bad) {
			(void)ofl_pool_queue_progress(&cq, 0);
			if (q.done - q.head > q.tail - q.head || q.done - before > q.tail - before)
				bad = 1; /* past what was submitted, or back */
		}
		if (!bad && (jobs[slot].status != 0 || memcmp(dst[slot], src[slot], len) != 0))
			bad = 2;
		if (bad)
			first = it;
		q.head = q.done;
	}
	atomic_store(&hog.stop, true);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(hogs[i], NULL);
	ck_assert_msg(!bad, "round %u: %s (head %u done %u tail %u)", first,
		      bad == 1 ? "completions went past the submitted jobs or back"
			       : "a completed job's destination is not its source",
		      q.head, q.done, q.tail);
	ofl_pool_queue_close(&cq);
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
	tcase_add_test(tc, contended_workers_are_left_alone);
	tcase_add_test(tc, copy_alone_streams_from_nt_min);
	tcase_add_test(tc, split_with_probed_stores);
	tcase_add_test(tc, probe_rule_either_way);
	tcase_add_test(tc, probe_rule_when_alone);
	tcase_add_test(tc, split_probe_band_when_split);
	tcase_add_test(tc, split_probe_band_when_alone);
	tcase_add_test(tc, probe_tells_a_cached_destination_from_a_flushed_one);
	tcase_add_test(tc, worker_sharing_its_cpu_is_marked_contended);
	tcase_add_test(tc, short_preemptions_leave_a_worker_in_splits);
	tcase_add_test(tc, long_run_queue_waits_mark_a_worker_contended);
	tcase_add_test(tc, woken_thread_on_a_workers_cpu_leaves_it_in_splits);
	tcase_add_test(tc, queue_inline_batch_right_after_a_runner_batch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(pool_suite());
}
