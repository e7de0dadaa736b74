/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's copy pool: worker threads that share out large copies
 * and run the asynchronous queues' big batches.
 *
 * Two kinds of work, both without allocation:
 *  - a split: one large copy cut into page-aligned chunks that the thread
 *    which asked for it (the leader) and idle workers claim one at a time
 *    from an atomic offset, each a share of what is left (guided: large
 *    first, 64 KiB at the end, so that nobody waits long for the last
 *    one). The leader starts copying at once, so a worker that wakes late
 *    costs nothing but its share; at most one split runs at a time, and a
 *    leader that finds the pool busy copies alone. A worker whose CPU
 *    another task wants (it was preempted and did not run for over 0.5 ms
 *    during a split or a sched_yield(), as behind a task that shares its
 *    CPU a scheduler slice at a time; not a short preemption, not the
 *    hypervisor's steal time) stays out of splits for a while: the leader
 *    would wait for its chunk while it does not run, so the leader copies
 *    alone instead.
 *  - a queue batch: the jobs of one offload_queue that one worker (the
 *    runner) copies in enqueue order, leading a split for each large job, and
 *    publishes as finished one by one.
 */
#ifndef OFL_BACKEND_CPU_POOL_H
#define OFL_BACKEND_CPU_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define OFL_POOL_MAX_THREADS 64

struct offload_queue;
struct ofl_cpu_queue;

/* What a split copies and how it is cut: fixed while the split is open. */
struct ofl_chunks {
	char *dst;
	const char *src;
	size_t len;
	unsigned share;        /* a claim takes 1/share of what is left (the CPUs) */
	bool nt;               /* copy with non-temporal stores */
};

/* The split in flight; open, leader_waits and c change under ofl_pool::mu. */
struct ofl_split {
	struct ofl_chunks c;
	int leader_cpu;        /* where the leader runs: a helper there would only take turns */
	bool open;             /* helpers may join */
	bool leader_waits;     /* the leader sleeps on done_cv */
	atomic_size_t next;    /* offset of the first byte nobody claimed */
	atomic_uint helpers;   /* workers inside the split */
};

/*
 * What the scheduler has done to a worker's thread so far (counters that only
 * grow), read around a split and a sched_yield() probe.
 */
struct ofl_sched_mark {
	uint64_t wall_ns;         /* ofl_now_ns() when read */
	uint64_t cpu_ns;          /* the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) */
	long preempted;           /* its involuntary context switches (getrusage) */
};

/* One worker thread, pinned to one CPU. */
struct ofl_pool_worker {
	struct ofl_pool *pool;
	pthread_t tid;
	pthread_cond_t cv;        /* sleeps here while `sleeping` (under mu) */
	int cpu;                  /* the CPU it is pinned to, -1 if it could not be */
	bool sleeping;            /* set by the worker, cleared by whoever wakes it */
	/*
	 * Until this ofl_now_ns() time the worker's CPU is taken by another
	 * task: it joins no split and leaders do not wake it for one. Written
	 * by the worker, read by leaders.
	 */
	atomic_uint_fast64_t contended_until;
	uint64_t backoff_ns;      /* the last contended period (doubles, 10 ms .. 1 s) */
	uint64_t last_contended;  /* when the worker was last found contended */
};

struct ofl_pool {
	pthread_mutex_t mu;
	pthread_cond_t done_cv;   /* a leader waits here for its helpers to leave */
	unsigned ncpu;            /* CPUs this process may run on */
	unsigned nthreads;        /* workers to start (0: never split, never hand off) */
	unsigned started;         /* workers running */
	atomic_int state;         /* 0 not started, 1 running, 2 could not start */
	pid_t pid;                /* process that started the workers */
	bool stop;
	size_t split_min;         /* copies of at least this many bytes are split */
	size_t probe_min;         /* ... stream from this size if the destination is not cached */
	size_t nt_min;            /* ... and always use non-temporal stores from this size, */
	size_t split_probe_max;   /* ... but split copies below this size still probe (0: none) */
	atomic_bool split_busy;   /* a leader owns sp */
	struct ofl_split sp;
	atomic_uint work_seq;     /* bumped whenever work is posted; spinning workers watch it */
	atomic_ulong alone_nt;    /* copies made alone with streaming stores (for the tests) */
	atomic_ulong probe_uncached; /* copies streamed because the probe found the destination uncached */
	atomic_ulong splits;      /* copies split (for the tests) */
	struct ofl_cpu_queue *runq_head, *runq_tail;
	/* Reads a worker's ofl_sched_mark; set by ofl_pool_init(), a test may replace it. */
	void (*sched_read)(struct ofl_pool_worker *w, struct ofl_sched_mark *m);
	/* Counts cached destination lines (ofl_pool_cached_lines()); a test may replace it. */
	unsigned (*cached_lines)(const char *d, size_t len, unsigned n, unsigned enough);
	int cpus[OFL_POOL_MAX_THREADS];  /* the process's CPUs, for pinning */
	unsigned ncpus_set;
	struct ofl_pool_worker w[OFL_POOL_MAX_THREADS];
};

/* Backend state of one offload_queue on the CPU device (offload_queue::bq). */
struct ofl_cpu_queue {
	struct ofl_pool *pool;
	struct offload_queue *q;
	atomic_uint done;         /* jobs finished, inline or by the runner */
	atomic_uint target;       /* jobs handed to the runner */
	atomic_bool waiting;      /* the owner sleeps on cv */
	bool queued;              /* on the pool's run queue (under mu) */
	bool running;             /* a worker is running it (under mu) */
	/*
	 * queued || running, for the owner to read without mu: while set, only
	 * the runner advances `done`, so a batch is never copied inline at submit.
	 */
	atomic_bool attached;
	struct ofl_cpu_queue *next;
	pthread_cond_t cv;        /* owner waits for jobs; close waits for the runner */
};

/*
 * Lines of the destination whose load is timed, one in each of as many
 * pages spread over it, before a copy between probe_min and nt_min; it goes
 * through the caches when at least OFL_POOL_PROBE_HITS of them were cached.
 * That is a minority on purpose: both kinds of store keep the destination in
 * the state they need, and each switch costs a slow copy, so only a
 * destination clearly out of the caches changes the kind. On the 2-vCPU
 * guest (bench/store_state.c), of 16 lines probed after a streamed copy of
 * 1-256 MiB none was cached; after a copy through the caches 16 were at
 * 4-16 MiB, 3-15 at 64 MiB (from run to run), 0-2 at 256 MiB.
 */
#define OFL_POOL_PROBES 8u
#define OFL_POOL_PROBE_HITS 3u
#define OFL_POOL_PROBE_MAX 64u

/*
 * Set the pool up for `nthreads` workers (0 or 1: no pool) without starting
 * them; they start at the first copy that needs them. Copies from split_min
 * bytes are split; from probe_min they stream when the destination is found
 * out of the caches, from nt_min always (SIZE_MAX: never). Returns 0 or
 * -errno.
 */
int ofl_pool_init(struct ofl_pool *p, unsigned nthreads, size_t split_min, size_t probe_min,
		  size_t nt_min);
/*
 * Can this machine tell a cached line from one in memory by a load's time
 * (x86-64, measured once per process)? Without it probe_min has no effect.
 */
bool ofl_pool_probe_usable(void);
/*
 * How many of n (1 .. 64) lines spread over [d, d + len), one in each of n
 * pages inside it, a timed load finds in some cache, as the pool counts them
 * before a copy from probe_min: it stops as soon as the count reaches
 * `enough` or no longer can (0: counts all n). UINT_MAX when the machine
 * cannot tell (ofl_pool_probe_usable()) or len < (n + 1) * 4 KiB. Loads
 * from d; any thread.
 */
unsigned ofl_pool_cached_lines(const char *d, size_t len, unsigned n, unsigned enough);
/* Stop and join the workers. No split or queue may be in flight. */
void ofl_pool_fini(struct ofl_pool *p);

/*
 * Copy len >= 1 bytes, split across the pool when len >= split_min and a
 * worker on another CPU can run. From nt_min up the stores are streaming
 * whether the copy is split or made by the caller alone, and from probe_min
 * up when most of a few probed destination lines are not in the caches.
 * Any thread.
 */
void ofl_pool_copy(struct ofl_pool *p, void *dst, const void *src, size_t len);

int ofl_pool_queue_open(struct ofl_pool *p, struct offload_queue *q, struct ofl_cpu_queue *cq);
/* The queue must be drained (done == submitted). Waits for its runner to let go. */
void ofl_pool_queue_close(struct ofl_cpu_queue *cq);
/* Run jobs [q->submitted, q->tail): inline when small, else on a runner. */
void ofl_pool_queue_submit(struct ofl_cpu_queue *cq, size_t inline_max);
/* Advance q->done; wait up to timeout_us (< 0: no limit) if nothing finished. 0 or -ETIMEDOUT. */
int ofl_pool_queue_progress(struct ofl_cpu_queue *cq, int64_t timeout_us);

#endif /* OFL_BACKEND_CPU_POOL_H */
