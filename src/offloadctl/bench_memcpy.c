/* SPDX-License-Identifier: MIT */
/*
 * offloadctl bench memcpy: dmatest's knobs and summary line, plus a sweep
 * that compares the library with plain memcpy in the same run.
 *
 * Every copy is verified: before a pass each destination holds the bitwise
 * complement of its source, so a byte the copy did not write cannot match;
 * after the pass every destination is compared with its source. Filling and
 * verifying are not timed (as in dmatest). The sweep alternates library and
 * memcpy passes in ABBA order so that drift (frequency, other load) hits
 * both sides alike, and reports the median pass of each side.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_peer.h"
#include "bench_ab.h"
#include "cli.h"

#define BM_PAGE 4096u
#define BM_LINE 64u
/* A pass copies enough small buffers to last ~10 us but stays within L2. */
#define BM_PASS_BYTES (64u << 10)
#define BM_PASS_MAX_BUFS 1024u
#define BM_WAIT_US 10000000 /* 10 s: an async pass that takes longer has failed */

struct bm_opts {
	size_t size;          /* --size; 0 = not given */
	uint64_t iterations;  /* --iterations; 0 = run for --time */
	unsigned threads;     /* --threads */
	size_t align;         /* --align */
	const char *dev;      /* --dev */
	const char *backend;  /* --backend */
	bool sweep;           /* --sweep (or no --size) */
	bool async;           /* --async */
	size_t min, max;      /* sweep range */
	bool max_given;       /* --max; else max_sweep_default() */
	char max_why[96];     /* how the default top size was chosen */
	unsigned factor;      /* sweep step */
	double time_s;        /* seconds per size (sweep) or per thread (run) */
	bool time_given;      /* --time; else 0.4 (sweep) or 1 (run) */
	unsigned peers;       /* --peers beyond memcpy: PEER_2THR, PEER_2THR_NT */
	bool idle;            /* --mode idle: every pass after --idle of nothing */
	double idle_s;        /* --idle */
	bool busy;            /* --busy: another process spins on the last CPU */
	unsigned rounds, max_rounds; /* --rounds, --max-rounds */
	bool max_rounds_given;
	double quiet;         /* --quiet as a share of the CPUs; 1: every round counts */
	struct ab_opts ab;    /* --ab A,B (ab.a set) and --write-threshold */
	bool min_given, factor_given;
};

#define PEER_2THR 1u
#define PEER_2THR_NT 2u

/* ------------------------------------------------------------------ buffers */

/* n source/destination pairs of `size` bytes at `align` past a page (see usage). */
struct bufset {
	char *smem, *dmem;
	char **src, **dst;
	size_t n, size;
};

static void bufset_free(struct bufset *b)
{
	free(b->smem);
	free(b->dmem);
	free(b->src);
	free(b->dst);
	memset(b, 0, sizeof(*b));
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fill_random(char *p, size_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = xorshift(&s);
		memcpy(p + i, &v, 8);
	}
	for (; i < n; i++)
		p[i] = (char)xorshift(&s);
}

/* dst = ~src: every byte differs from what a correct copy writes. */
static void poison(char *dst, const char *src, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;
		memcpy(&v, src + i, 8);
		v = ~v;
		memcpy(dst + i, &v, 8);
	}
	for (; i < n; i++)
		dst[i] = (char)~src[i];
}

static int bufset_alloc(struct bufset *b, size_t size, size_t align, size_t n, uint64_t seed)
{
	/*
	 * Page-sized and larger buffers each start `align` bytes past a page;
	 * smaller ones are packed at cache-line strides, keeping `align`
	 * modulo the line (what a small copy's speed depends on).
	 */
	size_t stride = size >= BM_PAGE ? (align + size + BM_PAGE - 1) / BM_PAGE * BM_PAGE
					: (size + BM_LINE - 1) / BM_LINE * BM_LINE;
	size_t total = stride * n + align + BM_PAGE;

	memset(b, 0, sizeof(*b));
	if (stride < size || total / n < stride)
		return -ENOMEM;
	b->n = n;
	b->size = size;
	b->src = calloc(n, sizeof(*b->src));
	b->dst = calloc(n, sizeof(*b->dst));
	if (!b->src || !b->dst || posix_memalign((void **)&b->smem, BM_PAGE, total) ||
	    posix_memalign((void **)&b->dmem, BM_PAGE, total)) {
		bufset_free(b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		b->src[i] = b->smem + align + i * stride;
		b->dst[i] = b->dmem + align + i * stride;
		fill_random(b->src[i], size, seed + i);
		poison(b->dst[i], b->src[i], size);
	}
	return 0;
}

/* Compare every destination with its source and poison it again; returns mismatches. */
static uint64_t bufset_verify(struct bufset *b)
{
	uint64_t bad = 0;

	for (size_t i = 0; i < b->n; i++) {
		if (memcmp(b->dst[i], b->src[i], b->size) != 0)
			bad++;
		poison(b->dst[i], b->src[i], b->size);
	}
	return bad;
}

static size_t bufs_for(size_t size)
{
	size_t n = BM_PASS_BYTES / size;

	return n < 1 ? 1 : n > BM_PASS_MAX_BUFS ? BM_PASS_MAX_BUFS : n;
}

/* ------------------------------------------------------------------ copying */

/* Where the library side copies. */
struct target {
	offload_ctx *ctx;
	int dev;              /* device index, or OFFLOAD_DEV_AUTO */
	bool async;
	offload_queue *q;     /* async: this thread's queue */
	struct offload_completion *cpl;
	unsigned ncpl;
	char err[512];        /* first failure, in words (the library message size) */
};

/* The first failure: the library's message (it names the function), else what failed and why. */
static void target_fail(struct target *t, const char *what, int r)
{
	const char *msg = offload_last_error(t->ctx);

	if (t->err[0])
		return;
	if (msg[0])
		snprintf(t->err, sizeof(t->err), "%s", msg);
	else
		snprintf(t->err, sizeof(t->err), "%s: %s", what, offload_strerror(r));
}

/*
 * The timed copy loops of the library (synchronous, device auto), plain
 * memcpy and the A/A control (memcpy again, in a function of its own): one
 * body, so that the three take the same arguments, make the same reads of
 * the buffer set before the timer and differ inside the timed region only
 * in the call. Each is its own function, never inlined into the harness nor
 * merged with another (gcc's identical-code folding would make the control
 * the memcpy side's own code): --mode idle compares memcpy with the control
 * to show what code placement alone does to a pass (bench/README.md).
 * Returns 0 or the first -errno; *ns receives the elapsed time.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define BM_PASS_FN __attribute__((noinline, noclone, no_icf))
#else
#define BM_PASS_FN __attribute__((noinline))
#endif
#define BM_COPY_PASS(name, copy)                                                            \
	static BM_PASS_FN int name(offload_ctx *ctx, const struct bufset *b, unsigned reps,     \
				   uint64_t *ns)                                                \
	{                                                                                       \
		char *const *dst = b->dst, *const *src = b->src;                                 \
		size_t n = b->n, size = b->size;                                                 \
		int r = 0;                                                                      \
		uint64_t t0 = cli_now_ns();                                                     \
		for (unsigned k = 0; k < reps && r == 0; k++)                                   \
			for (size_t i = 0; i < n && r == 0; i++) {                              \
				r = copy;                                                       \
				/* Keep the compiler from merging or dropping copies across the loop. */ \
				__asm__ __volatile__("" ::: "memory");                          \
			}                                                                       \
		*ns = cli_now_ns() - t0;                                                        \
		(void)ctx;                                                                      \
		return r;                                                                       \
	}

BM_COPY_PASS(lib_auto_pass, offload_memcpy(ctx, dst[i], src[i], size))
BM_COPY_PASS(memcpy_pass, (memcpy(dst[i], src[i], size), 0))
BM_COPY_PASS(memcpy_aa_pass, (memcpy(dst[i], src[i], size), 0))

/*
 * One timed library pass over every pair of b, `reps` times back to back
 * (the synchronous calls; the queue copies each pair once). Returns 0 or the
 * first -errno; *ns receives the elapsed time.
 */
static int lib_pass(struct target *t, struct bufset *b, unsigned reps, uint64_t *ns)
{
	int r = 0;

	if (!t->async && t->dev == OFFLOAD_DEV_AUTO) {
		r = lib_auto_pass(t->ctx, b, reps, ns);
		if (r < 0)
			target_fail(t, "offload_memcpy", r);
		return r;
	}
	if (!t->async) {
		uint64_t t0 = cli_now_ns();
		for (unsigned k = 0; k < reps && r == 0; k++)
			for (size_t i = 0; i < b->n && r == 0; i++)
				r = offload_memcpy_dev(t->ctx, t->dev, b->dst[i], b->src[i], b->size,
						       NULL);
		*ns = cli_now_ns() - t0;
		if (r < 0)
			target_fail(t, "offload_memcpy_dev", r);
		return r;
	}

	uint64_t t0 = cli_now_ns();
	for (size_t i = 0; i < b->n; i++) {
		r = offload_queue_copy(t->q, b->dst[i], b->src[i], b->size, i);
		if (r < 0) {
			target_fail(t, "offload_queue_copy", r);
			return r;
		}
	}
	r = offload_queue_submit(t->q);
	if (r < 0) {
		target_fail(t, "offload_queue_submit", r);
		return r;
	}
	size_t got = 0;
	int qdev = offload_queue_dev(t->q);
	while (got < b->n) {
		int n = offload_queue_wait(t->q, t->cpl, t->ncpl, BM_WAIT_US);
		if (n < 0) {
			target_fail(t, "offload_queue_wait", n);
			return n;
		}
		for (int k = 0; k < n; k++, got++) {
			const struct offload_completion *c = &t->cpl[k];
			if (c->status != 0 || c->user_data != got || c->dev != qdev) {
				snprintf(t->err, sizeof(t->err),
					 "completion %zu: status %d, user_data %" PRIu64 ", device %d "
					 "(expected 0, %zu, %d)", got, (int)c->status, c->user_data,
					 (int)c->dev, got, qdev);
				return c->status ? c->status : -EIO;
			}
		}
	}
	*ns = cli_now_ns() - t0;
	return 0;
}

/* The two-thread reference (bench_peer.c) over every pair of b, reps times. */
static void peer_pass(struct bench_peer *p, struct bufset *b, unsigned reps, bool nt, uint64_t *ns)
{
	bench_peer_hot(p, true); /* its helper spins during this pass only */
	uint64_t t0 = cli_now_ns();

	for (unsigned k = 0; k < reps; k++)
		for (size_t i = 0; i < b->n; i++)
			bench_peer_copy(p, b->dst[i], b->src[i], b->size, nt);
	*ns = cli_now_ns() - t0;
	bench_peer_hot(p, false);
}

static int target_open(struct target *t, offload_ctx *ctx, int dev, bool async, size_t nbufs)
{
	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	t->dev = dev;
	t->async = async;
	if (!async)
		return 0;
	struct offload_queue_opts qo;
	offload_queue_opts_init(&qo);
	qo.dev = dev;
	qo.depth = 2;
	while (qo.depth < nbufs)
		qo.depth <<= 1;
	t->ncpl = 64;
	t->cpl = calloc(t->ncpl, sizeof(*t->cpl));
	if (!t->cpl)
		return -ENOMEM;
	int r = offload_queue_open(ctx, &qo, &t->q);
	if (r < 0) {
		target_fail(t, "offload_queue_open", r);
		free(t->cpl);
		t->cpl = NULL;
	}
	return r;
}

static void target_close(struct target *t)
{
	if (t->q)
		offload_queue_close(t->q);
	free(t->cpl);
	t->q = NULL;
	t->cpl = NULL;
}

/* ------------------------------------------------------------------ labels */

struct label {
	int dev;
	char name[96];        /* device name, "+sim" appended when simulated */
	char backend[32];
	char driver[48];
	bool sim;
};

/* Which device serves copies of `size` bytes on target t (one labelled probe copy). */
static int label_for(struct target *t, size_t size, struct label *l)
{
	struct offload_result res = { 0 };
	struct offload_dev_info info;
	struct bufset b;
	int r;

	if (t->async) {
		/* the queue's device (a synchronous probe could find its channels all taken) */
		res.dev = offload_queue_dev(t->q);
	} else {
		r = bufset_alloc(&b, size, 0, 1, 7);
		if (r < 0)
			return r;
		r = offload_memcpy_dev(t->ctx, t->dev, b.dst[0], b.src[0], size, &res);
		bufset_free(&b);
		if (r < 0) {
			target_fail(t, "offload_memcpy_dev", r);
			return r;
		}
	}
	r = offload_dev_get_info(t->ctx, res.dev, &info, sizeof(info));
	if (r < 0)
		return r;
	l->dev = res.dev;
	l->sim = (info.flags & OFFLOAD_DEVF_SIM) != 0 || (res.flags & OFFLOAD_RES_SIM) != 0;
	snprintf(l->name, sizeof(l->name), "%.80s%s", info.name, l->sim ? "+sim" : "");
	snprintf(l->backend, sizeof(l->backend), "%s", info.backend);
	snprintf(l->driver, sizeof(l->driver), "%s", t->async ? "queue" : res.driver);
	return 0;
}

/* Copies per second and KiB per second of `tests` copies of `bytes` in all over `ns` timed (JSON). */
struct rate {
	double iops, kbs;
};

static struct rate rate_of(uint64_t tests, uint64_t bytes, uint64_t ns)
{
	struct rate r = { 0, 0 };

	if (ns) {
		r.iops = (double)tests * 1e9 / (double)ns;
		r.kbs = (double)bytes / 1024.0 * 1e9 / (double)ns;
	}
	return r;
}

/* t += r, for the total of threads that ran side by side (hundredths carried). */
static void dmatest_rate_add(struct cli_dmatest_rate *t, struct cli_dmatest_rate r)
{
	unsigned h = t->iops_hundredths + r.iops_hundredths;

	t->iops_int += r.iops_int + h / 100;
	t->iops_hundredths = h % 100;
	t->kbs += r.kbs;
}

static const char *const csv_header =
	"case,thread,device,backend,sim,mode,ring_size,kick_batch,buffer_size_B,number_of_buffers,"
	"memory_MB,ns_per_op,bandwidth_Gbps,MOps,tests,failures\n";

static void csv_row(const char *kase, unsigned thread, const struct label *l, bool async,
		    size_t nbufs, size_t size, uint64_t tests, uint64_t failures, double ns_per_op)
{
	size_t ring = 0;

	if (async)
		for (ring = 2; ring < nbufs; ring <<= 1)
			;
	/* device and backend names may come from the device tree: RFC 4180 fields */
	printf("%s,%u,", kase, thread);
	cli_csv_field(stdout, l->name, false);
	cli_csv_field(stdout, l->backend, false);
	printf("%d,%s,%zu,%zu,%zu,%zu,%.3f,%.2f,%.3f,%.4f,%" PRIu64 ",%" PRIu64 "\n",
	       l->sim, async ? "async" : "sync", ring,
	       async ? nbufs : (size_t)1, size, nbufs, 2.0 * (double)(size * nbufs) / 1048576.0,
	       ns_per_op, ns_per_op > 0 ? (double)size * 8.0 / ns_per_op : 0.0,
	       ns_per_op > 0 ? 1e3 / ns_per_op : 0.0, tests, failures);
}

static void human_size(char *buf, size_t len, size_t n)
{
	if (n >= (1u << 30) && n % (1u << 30) == 0)
		snprintf(buf, len, "%zu GiB", n >> 30);
	else if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= (1u << 10) && n % (1u << 10) == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu B", n);
}

/* ------------------------------------------------------------------ sweep */

/*
 * The sides of the sweep: the library, plain memcpy, the A/A control
 * (--mode idle: plain memcpy again, timed by its own pass function), and
 * the two-thread copy (bench_peer.c) with memcpy halves and with streaming
 * halves.
 */
enum { S_LIB, S_MEM, S_AA, S_2T, S_2TNT, S_COUNT };
static const char *const side_case[S_COUNT] = { "library", "memcpy", "memcpy-aa", "two-thread",
						"two-thread-nt" };

/* Peers are for copies worth two threads; below this a half is noise. */
#define PEER_MIN ((size_t)64 << 10)
/* Back to back: a pass of one buffer repeats it up to this many bytes (at least twice). */
#define B2B_PASS_BYTES ((size_t)64 << 20)
#define B2B_MAX_REPS 1024u

struct row {
	size_t size, nbufs;
	unsigned reps;              /* copies of each buffer per pass */
	struct label label;
	uint64_t passes;            /* per side, in the rounds kept */
	bool ran[S_COUNT];
	double ns[S_COUNT];         /* median pass time / (buffers x reps): ns per copy */
	double speed[S_COUNT];      /* library, A/A: speed over memcpy's, paired (paired_speeds()) */
	double vs_best2;            /* the library's speed over the faster two-thread copy's, paired */
	uint64_t tests, failures;   /* library side, every round */
	uint64_t lib_total_ns, lib_bytes;
	unsigned kept, tried;       /* rounds */
	bool unjudged, all_busy;
	double least_other;         /* smallest share of the CPUs others took in a round */
	int ret;
};

#define SWEEP_MAX_PASSES 200000u
#define SWEEP_MIN_PASSES 3u

/* What one sweep holds across sizes: the target, the peer and the pass times. */
struct sweep {
	struct target *t;
	const struct bm_opts *o;
	struct bench_peer *peer;    /* NULL unless --peers asked for a two-thread copy */
	int busy_pid;               /* --busy: the spinning process, else 0 */
	double *all[S_COUNT];       /* pass times of the kept rounds */
	double *cur[S_COUNT];       /* pass times of the round running */
};

/* Per-call time of one side: its median pass over the pass's copies; false if out of memory. */
static bool per_call_ns(const double *pass_ns, size_t passes, size_t copies, double *out)
{
	struct cli_stats st;

	if (cli_stats(pass_ns, passes, &st) < 0)
		return false;
	*out = st.median / (double)copies;
	return true;
}

/*
 * The paired ratios of one side (sweep_round() times pass p of every side
 * within one ABBA group, so pass p of two sides ran next to each other): for
 * the library and the A/A control, the speed over memcpy's; for a two-thread
 * copy, the library's speed over that copy's, keeping the faster peer's (the
 * smaller ratio). A ratio of medians would let a drift of the machine between
 * groups (a host's other guests, the clock's frequency) fall on one side more
 * than the other. False if out of memory. Pass times are never 0 (a copy
 * takes time); should one be, the ratio stays 0 (printed as such; /best2 is
 * then left out).
 */
static bool paired_speeds(const struct sweep *sw, int side, size_t passes, struct row *row)
{
	double x;
	int r;

	if (side == S_LIB || side == S_AA)
		return cli_paired_ratio(sw->all[S_MEM], sw->all[side], passes, &row->speed[side]) != -ENOMEM;
	if (side != S_2T && side != S_2TNT)
		return true; /* memcpy itself */
	r = cli_paired_ratio(sw->all[side], sw->all[S_LIB], passes, &x);
	if (r == 0 && (row->vs_best2 == 0 || x < row->vs_best2))
		row->vs_best2 = x;
	return r != -ENOMEM;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One timed pass of one side's copies (not verified). 0 or -errno. */
static int side_copy(struct sweep *sw, int side, struct bufset *b, unsigned reps, uint64_t *ns)
{
	struct target *t = sw->t;

	switch (side) {
	case S_LIB:
		return lib_pass(t, b, reps, ns);
	case S_MEM:
		return memcpy_pass(t->ctx, b, reps, ns);
	case S_AA:
		return memcpy_aa_pass(t->ctx, b, reps, ns);
	default:
		peer_pass(sw->peer, b, reps, side == S_2TNT, ns);
		return 0;
	}
}

/*
 * One pass of one side, verified. 0, or -errno with t->err set.
 *
 * --mode idle: after --idle of nothing, so that the library's workers (and
 * the peer's helper) have fallen asleep. Back to back: after one untimed
 * copy of the buffers by the same side, so that every side is timed in its
 * steady state: the peer's helper is spinning when its pass starts
 * (bench_peer_hot()), and the library's workers are watching for work after
 * that copy, instead of waking from the sleep that the other sides' passes
 * (milliseconds) sent them into. What a copy after a pause costs is what
 * --mode idle measures.
 */
static int side_pass(struct sweep *sw, int side, struct bufset *b, unsigned reps, struct row *row,
		     uint64_t *ns)
{
	struct target *t = sw->t;
	int r = 0;

	if (sw->o->idle) {
		sleep_s(sw->o->idle_s);
	} else {
		uint64_t warm;
		r = side_copy(sw, side, b, 1, &warm);
		if (r < 0)
			return r;
	}
	r = side_copy(sw, side, b, reps, ns);
	uint64_t bad = bufset_verify(b);
	if (side == S_LIB) {
		row->tests += b->n * reps;
		row->failures += bad;
		row->lib_total_ns += *ns;
		row->lib_bytes += (uint64_t)b->n * reps * b->size;
		return r;
	}
	if (bad) {
		snprintf(t->err, sizeof(t->err), "%s did not verify: %s", side_case[side],
			 side == S_MEM || side == S_AA ? "this machine's memory is suspect" : "the benchmark's own "
			 "two-thread copy is wrong");
		return -EIO;
	}
	return 0;
}

/*
 * One round: passes of every side in ABBA order (the library first on even
 * passes) for about `budget` ns and at least SWEEP_MIN_PASSES each, times
 * into sw->cur. Returns the passes per side, or -errno.
 */
static long sweep_round(struct sweep *sw, const int *sides, int nsides, struct bufset *b,
			unsigned reps, uint64_t budget, struct row *row)
{
	uint64_t start = cli_now_ns();
	size_t p = 0;

	while (p < SWEEP_MAX_PASSES && (p < SWEEP_MIN_PASSES || cli_now_ns() - start < budget)) {
		for (int i = 0; i < nsides; i++) {
			int side = p % 2 == 0 ? sides[i] : sides[nsides - 1 - i];
			uint64_t ns;
			int r = side_pass(sw, side, b, reps, row, &ns);
			if (r < 0)
				return r;
			sw->cur[side][p] = (double)ns;
		}
		p++;
	}
	return (long)p;
}

static unsigned reps_for(const struct bm_opts *o, size_t size, size_t nbufs)
{
	if (o->idle || o->async || nbufs > 1)
		return 1; /* packed small buffers are back to back already */
	size_t r = B2B_PASS_BYTES / size;
	return r < 2 ? 2 : r > B2B_MAX_REPS ? B2B_MAX_REPS : (unsigned)r;
}

/*
 * One size: rounds of passes until --rounds of them were quiet (other
 * processes took under --quiet of the CPUs, cli_cpu_other_share()) or
 * --max-rounds ran; when none was, the last busy round stands and the row
 * says so.
 */
static int sweep_one(struct sweep *sw, size_t size, struct row *row)
{
	const struct bm_opts *o = sw->o;
	struct target *t = sw->t;
	struct bufset b;
	size_t n = bufs_for(size);
	int sides[S_COUNT], nsides = 0;
	size_t kept_passes = 0;
	long last = 0;

	memset(row, 0, sizeof(*row));
	row->size = size;
	row->nbufs = n;
	row->reps = reps_for(o, size, n);
	row->least_other = 1.0;
	sides[nsides++] = S_LIB;
	sides[nsides++] = S_MEM;
	if (o->idle)
		sides[nsides++] = S_AA; /* the A/A control: what code placement alone does */
	if (sw->peer && size >= PEER_MIN && !o->async) {
		if (o->peers & PEER_2THR)
			sides[nsides++] = S_2T;
		if (o->peers & PEER_2THR_NT)
			sides[nsides++] = S_2TNT;
	}
	for (int i = 0; i < nsides; i++)
		row->ran[sides[i]] = true;
	/* The probe copy first: its buffers are gone before the pass buffers exist (peak 2 x size). */
	int r = label_for(t, size, &row->label);
	if (r < 0)
		return r;
	r = bufset_alloc(&b, size, o->align, n, size);
	if (r < 0) {
		snprintf(t->err, sizeof(t->err), "cannot allocate 2 x %zu buffers of %zu bytes", n, size);
		return r;
	}
	/* Warm-up: fault in, start the library's workers and the peer; verified, not timed. */
	for (int i = 0; i < nsides && r == 0; i++) {
		uint64_t ns;
		r = side_pass(sw, sides[i], &b, 1, row, &ns);
	}
	row->tests = row->failures = row->lib_total_ns = row->lib_bytes = 0;
	uint64_t budget = (uint64_t)(o->time_s / o->rounds * 1e9);
	while (r == 0 && row->kept < o->rounds && row->tried < o->max_rounds) {
		struct cli_cpu_mark m0, m1;
		cli_cpu_mark(&m0, &sw->busy_pid, sw->busy_pid ? 1 : 0);
		long p = sweep_round(sw, sides, nsides, &b, row->reps, budget, row);
		cli_cpu_mark(&m1, &sw->busy_pid, sw->busy_pid ? 1 : 0);
		row->tried++;
		if (p < 0) {
			r = (int)p;
			break;
		}
		last = p;
		double other = cli_cpu_other_share(&m0, &m1);
		bool judged = other >= 0 && cli_quiet_resolution(&m0, &m1) <= o->quiet;
		if (!judged)
			row->unjudged = true;
		else if (other < row->least_other)
			row->least_other = other;
		if (judged && o->quiet < 1.0 && other >= o->quiet)
			continue;
		if (kept_passes + (size_t)p > SWEEP_MAX_PASSES)
			p = (long)(SWEEP_MAX_PASSES - kept_passes);
		for (int i = 0; i < nsides; i++)
			memcpy(sw->all[sides[i]] + kept_passes, sw->cur[sides[i]], (size_t)p * sizeof(double));
		kept_passes += (size_t)p;
		row->kept++;
	}
	if (r == 0 && row->kept == 0) {
		/* never quiet: the last round stands, marked */
		for (int i = 0; i < nsides; i++)
			memcpy(sw->all[sides[i]], sw->cur[sides[i]], (size_t)last * sizeof(double));
		kept_passes = (size_t)last;
		row->all_busy = true;
	}
	bufset_free(&b);
	row->passes = kept_passes;
	row->ret = r;
	for (int i = 0; i < nsides && kept_passes && r == 0; i++)
		if (!per_call_ns(sw->all[sides[i]], kept_passes, n * row->reps, &row->ns[sides[i]]) ||
		    !paired_speeds(sw, sides[i], kept_passes, row)) {
			snprintf(t->err, sizeof(t->err), "out of memory for the statistics of %zu passes",
				 kept_passes);
			r = row->ret = -ENOMEM;
		}
	return r;
}

/* A duration in ns as "3.2 ns", "42.6 us", "15.4 ms". */
static void human_time(char *buf, size_t len, double ns)
{
	if (ns < 1e4)
		snprintf(buf, len, "%.1f ns", ns);
	else if (ns < 1e7)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%.1f ms", ns / 1e6);
}

/* Per-call overhead is a small-copy figure; beyond this it is noise of the copy itself. */
#define BM_OVERHEAD_MAX (64u << 10)

static double mbps(const struct row *w, int side)
{
	return w->ran[side] && w->ns[side] > 0 ? (double)w->size / w->ns[side] * 1e3 : 0;
}

/*
 * A side's speed over plain memcpy's at this size (the library's: "ratio";
 * the control's: "A/A"), from the paired passes (paired_speeds()).
 */
static double vs_memcpy(const struct row *w, int side)
{
	return w->ran[side] ? w->speed[side] : 0;
}

/* The same from the two sides' medians, as the MB/s columns are (JSON: ratio_of_medians). */
static double vs_memcpy_medians(const struct row *w, int side)
{
	double m = mbps(w, S_MEM);

	return m > 0 ? mbps(w, side) / m : 0;
}

/* The faster of the two-thread copies run at this size, in MB/s (0: none ran). */
static double best_two(const struct row *w)
{
	double a = mbps(w, S_2T), b = mbps(w, S_2TNT);

	return a > b ? a : b;
}

/* "5/7", "BUSY 0/9" or "-" (not judged): the rounds kept of those run. */
static void kept_text(const struct row *w, const struct bm_opts *o, char *buf, size_t len)
{
	if (w->all_busy)
		snprintf(buf, len, "BUSY 0/%u", w->tried);
	else if (o->quiet >= 1.0 || w->unjudged)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u/%u", w->kept, w->tried);
}

static void print_row_text(const struct row *w, const struct bm_opts *o)
{
	char sz[24], lt[24], mt[24], ov[24] = "-", kept[24];
	double lmb = mbps(w, S_LIB), mmb = mbps(w, S_MEM);

	human_size(sz, sizeof(sz), w->size);
	human_time(lt, sizeof(lt), w->ns[S_LIB]);
	human_time(mt, sizeof(mt), w->ns[S_MEM]);
	kept_text(w, o, kept, sizeof(kept));
	if (w->size <= BM_OVERHEAD_MAX)
		snprintf(ov, sizeof(ov), "%+.1f ns", w->ns[S_LIB] - w->ns[S_MEM]);
	printf("%8s %11.0f %11.0f %6.2f", sz, lmb, mmb, vs_memcpy(w, S_LIB));
	if (o->idle)
		printf(" %6.2f", vs_memcpy(w, S_AA));
	if (o->peers) {
		char a[16] = "-", b[16] = "-", c[16] = "-";
		if (w->ran[S_2T])
			snprintf(a, sizeof(a), "%.0f", mbps(w, S_2T));
		if (w->ran[S_2TNT])
			snprintf(b, sizeof(b), "%.0f", mbps(w, S_2TNT));
		if (w->vs_best2 > 0)
			snprintf(c, sizeof(c), "%.2f", w->vs_best2);
		printf(" %11s %11s %6s", a, b, c);
	}
	printf(" %11s %11s %10s  %-12s %6" PRIu64 " %8s%s\n", lt, mt, ov, cli_text(w->label.name),
	       w->passes, kept, w->failures ? "  MISMATCH" : "");
	cli_flush();
}

static void print_row_json(const struct row *w, const struct bm_opts *o, bool last)
{
	double lmb = mbps(w, S_LIB), mmb = mbps(w, S_MEM), best = best_two(w);

	printf("    {\"size\": %zu, \"buffers\": %zu, \"copies_per_buffer\": %u, \"passes\": %" PRIu64
	       ", \"device\": ", w->size, w->nbufs, w->reps, w->passes);
	cli_json_str(stdout, w->label.name);
	printf(", \"backend\": ");
	cli_json_str(stdout, w->label.backend);
	printf(", \"sim\": %s, \"lib_MBps\": %.1f, \"memcpy_MBps\": %.1f, \"ratio\": %.4f, "
	       "\"ratio_of_medians\": %.4f, \"lib_ns_per_call\": %.2f, \"memcpy_ns_per_call\": %.2f, "
	       "\"overhead_ns\": %.2f, ",
	       w->label.sim ? "true" : "false", lmb, mmb, vs_memcpy(w, S_LIB),
	       vs_memcpy_medians(w, S_LIB), w->ns[S_LIB], w->ns[S_MEM], w->ns[S_LIB] - w->ns[S_MEM]);
	if (w->ran[S_AA])
		printf("\"memcpy_aa_MBps\": %.1f, \"memcpy_aa_ns_per_call\": %.2f, \"ratio_aa\": %.4f, "
		       "\"ratio_aa_of_medians\": %.4f, ", mbps(w, S_AA), w->ns[S_AA], vs_memcpy(w, S_AA),
		       vs_memcpy_medians(w, S_AA));
	if (w->ran[S_2T])
		printf("\"two_thread_MBps\": %.1f, ", mbps(w, S_2T));
	if (w->ran[S_2TNT])
		printf("\"two_thread_nt_MBps\": %.1f, ", mbps(w, S_2TNT));
	if (w->vs_best2 > 0)
		printf("\"ratio_best_two_thread\": %.4f, \"ratio_best_two_thread_of_medians\": %.4f, ",
		       w->vs_best2, best > 0 ? lmb / best : 0);
	printf("\"rounds\": %u, \"rounds_tried\": %u, \"quiet\": %s, \"tests\": %" PRIu64
	       ", \"failures\": %" PRIu64 "}%s\n", w->kept, w->tried,
	       w->all_busy ? "false" : (o->quiet >= 1.0 || w->unjudged) ? "null" : "true", w->tests,
	       w->failures, last ? "" : ",");
}

/* The sweep's first lines: the CSV header, or the text title and column heads (JSON: none). */
static void sweep_header(const struct cli *cli, int dev, const struct bm_opts *o, int busy_cpu)
{
	char lo[24], hi[24];

	if (cli->csv) {
		fputs(csv_header, stdout);
		return;
	}
	if (cli->json)
		return;
	human_size(lo, sizeof(lo), o->min);
	human_size(hi, sizeof(hi), o->max);
	printf("offloadctl bench memcpy: library (%s, %s) vs plain memcpy%s%s, %s .. %s%s%s%s x%u, "
	       "align %zu, ABBA-interleaved, median of passes (ratios: of paired passes)\n",
	       dev == OFFLOAD_DEV_AUTO ? "device auto" : "chosen device",
	       o->async ? "async queue: enqueue + submit + wait" : "offload_memcpy",
	       o->peers & PEER_2THR ? ", two threads (memcpy halves)" : "",
	       o->peers & PEER_2THR_NT ? ", two threads (streaming halves)" : "", lo, hi,
	       o->max_why[0] ? " (" : "", o->max_why, o->max_why[0] ? "; --max to change)" : "",
	       o->factor, o->align);
	printf("mode: %s", o->idle ? "isolated: every pass after " : "back to back: large buffers "
	       "copied repeatedly within a pass");
	if (o->idle)
		printf("%.0f ms idle", o->idle_s * 1e3);
	if (o->busy)
		printf("; another process spins on CPU %d", busy_cpu);
	if (o->quiet < 1.0)
		printf("; %u round(s) per size kept when other processes took < %.0f%% of the CPUs "
		       "(at most %u tried)", o->rounds, o->quiet * 100, o->max_rounds);
	printf("\n%8s %11s %11s %6s", "size", "lib MB/s", "memcpy MB/s", "ratio");
	if (o->idle)
		printf(" %6s", "A/A");
	if (o->peers)
		printf(" %11s %11s %6s", "2thr MB/s", "2thr-nt MB/s", "/best2");
	printf(" %11s %11s %10s  %-12s %6s %8s\n", "lib/call", "memcpy/call", "overhead", "device",
	       "passes", "rounds");
}

/* One measured size, as it comes (JSON rows are printed at the end, as one object). */
static void sweep_row_out(const struct cli *cli, const struct bm_opts *o, const struct row *w)
{
	if (cli->csv) {
		csv_row("library", 0, &w->label, o->async, w->nbufs, w->size, w->tests, w->failures,
			w->ns[S_LIB]);
		for (int side = S_MEM; side < S_COUNT; side++) {
			struct label m = { .name = "cpu", .backend = "libc" };
			if (!w->ran[side])
				continue;
			bool libc = side == S_MEM || side == S_AA;
			snprintf(m.name, sizeof(m.name), "%s", libc ? "memcpy" : "cpu");
			if (!libc)
				snprintf(m.backend, sizeof(m.backend), "bench");
			csv_row(side_case[side], 0, &m, false, w->nbufs, w->size,
				w->passes * w->nbufs * w->reps, 0, w->ns[side]);
		}
	} else if (!cli->json) {
		print_row_text(w, o);
	}
}

/*
 * After the rows: the summary line is dmatest's for the largest size (what
 * dmatest prints for one --size run); a sum of rates over sizes would mean
 * nothing. The line before it counts every library copy of the sweep, all
 * verified.
 */
static void sweep_summary(const struct cli *cli, const struct bm_opts *o, const struct row *rows,
			  size_t nrows, int ret)
{
	uint64_t tests = 0, failures = 0;

	if (!cli->json && !cli->csv && nrows && rows[nrows - 1].size > BM_OVERHEAD_MAX)
		printf("overhead '-': above %u KiB the per-call difference is within the copy's own "
		       "run-to-run variation, not the library's cost\n",
		       BM_OVERHEAD_MAX >> 10);
	if (!cli->json && !cli->csv && nrows && o->idle)
		printf("A/A: plain memcpy timed by a second pass function of the same body over "
		       "memcpy's: the harness's own bias at that size; a ratio is not resolved "
		       "closer to 1.00 than that\n");
	for (size_t i = 0; i < nrows; i++) {
		tests += rows[i].tests;
		failures += rows[i].failures;
	}
	if (cli->json) {
		printf("{\n  \"bench\": \"memcpy\",\n  \"mode\": \"sweep\",\n  \"async\": %s,\n"
		       "  \"align\": %zu,\n  \"copy_mode\": \"%s\",\n  \"busy\": %s,\n  \"rows\": [\n",
		       o->async ? "true" : "false", o->align, o->idle ? "idle" : "b2b",
		       o->busy ? "true" : "false");
		for (size_t i = 0; i < nrows; i++)
			print_row_json(&rows[i], o, i + 1 == nrows);
		printf("  ],\n  \"summary\": {\"tests\": %" PRIu64 ", \"failures\": %" PRIu64
		       ", \"status\": %d}\n}\n", tests, failures, ret);
		return;
	}
	if (cli->csv || !nrows) /* nothing ran: the error says why */
		return;
	if (o->quiet < 1.0)
		printf("rounds: kept/run, each kept round had other processes under %.0f%% of the CPUs "
		       "(/proc/stat); BUSY: none did, the last busy round is shown; '-': rounds too "
		       "short to judge\n", o->quiet * 100);
	const struct row *top = &rows[nrows - 1];
	char thread[128], topsz[24];
	snprintf(thread, sizeof(thread), "%.100s-copy0", top->label.name);
	human_size(topsz, sizeof(topsz), top->size);
	printf("%s: sweep: %" PRIu64 " library copies at %zu sizes verified, %" PRIu64
	       " failures; summary of the largest size, %s:\n", cli->prog, tests, nrows, failures, topsz);
	cli_dmatest_summary(cli, thread, top->tests, top->failures,
		     cli_dmatest_rate(top->tests, top->lib_bytes, top->lib_total_ns), ret);
}

static void sweep_free(struct sweep *sw)
{
	for (int i = 0; i < S_COUNT; i++) {
		free(sw->all[i]);
		free(sw->cur[i]);
	}
	bench_peer_stop(sw->peer);
	bench_busy_stop(sw->busy_pid);
}

static int run_sweep(struct cli *cli, offload_ctx *ctx, int dev, const struct bm_opts *o)
{
	struct target t;
	struct sweep sw = { .t = &t, .o = o };
	struct row rows[64];
	size_t nrows = 0;
	uint64_t failures = 0;
	int ret = 0, busy_cpu = -1;

	for (int i = 0; i < S_COUNT; i++) {
		sw.all[i] = calloc(SWEEP_MAX_PASSES, sizeof(double));
		sw.cur[i] = calloc(SWEEP_MAX_PASSES, sizeof(double));
		if (!sw.all[i] || !sw.cur[i]) {
			sweep_free(&sw);
			return cli_error(cli, "out of memory");
		}
	}
	if (o->peers && (ret = bench_peer_start(&sw.peer, o->idle)) < 0) {
		sweep_free(&sw);
		return cli_error(cli, "cannot start the two-thread copy's helper: %s", offload_strerror(ret));
	}
	if (o->busy && (sw.busy_pid = bench_busy_start(&busy_cpu)) < 0) {
		ret = sw.busy_pid;
		sw.busy_pid = 0;
		sweep_free(&sw);
		return cli_error(cli, "cannot start the busy process: %s", offload_strerror(ret));
	}
	if (target_open(&t, ctx, dev, o->async, bufs_for(o->min)) < 0) {
		cli_error(cli, "%s", t.err);
		sweep_free(&sw);
		return CLI_EXIT_FAIL;
	}
	sweep_header(cli, dev, o, busy_cpu);
	for (size_t size = o->min; size <= o->max && nrows < 64; size *= o->factor) {
		struct row *w = &rows[nrows];
		int r = sweep_one(&sw, size, w);
		if (w->passes || r == 0) {
			nrows++;
			failures += w->failures;
			sweep_row_out(cli, o, w);
		}
		if (w->failures && !ret)
			ret = -EIO;
		if (r < 0 || t.err[0]) {
			cli_error(cli, "%zu bytes: %s", size, t.err[0] ? t.err : offload_strerror(r));
			ret = r < 0 ? r : -EIO;
			break;
		}
		if (cli_stdout_failed() || size > SIZE_MAX / o->factor)
			break; /* the output went nowhere: cli_finish() says so */
	}
	sweep_summary(cli, o, rows, nrows, ret);
	if (failures)
		cli_error(cli, "%" PRIu64 " library copies did not verify (MISMATCH above)", failures);
	target_close(&t);
	sweep_free(&sw);
	return ret || failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ run */

/* Start line: workers set up, then wait until every thread is ready. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ready;
	bool go;
};

static void gate_wait(struct gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->ready++;
	pthread_cond_broadcast(&g->cv);
	while (!g->go)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

static void gate_open(struct gate *g, unsigned n)
{
	pthread_mutex_lock(&g->mu);
	while (g->ready < n)
		pthread_cond_wait(&g->cv, &g->mu);
	g->go = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

struct worker {
	pthread_t tid;
	unsigned index;
	offload_ctx *ctx;
	int dev;
	const struct bm_opts *o;
	struct gate *start;
	struct target t;
	struct label label;
	uint64_t tests, failures, bytes, ns;
	int ret;
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	const struct bm_opts *o = w->o;
	size_t n = bufs_for(o->size);
	struct bufset b;

	if (o->iterations && o->iterations < n)
		n = (size_t)o->iterations;
	w->ret = bufset_alloc(&b, o->size, o->align, n, 1000003u * (w->index + 1));
	if (w->ret < 0)
		snprintf(w->t.err, sizeof(w->t.err), "cannot allocate 2 x %zu buffers of %zu bytes", n,
			 o->size);
	if (w->ret == 0) {
		w->ret = target_open(&w->t, w->ctx, w->dev, o->async, n);
		if (w->ret == 0)
			w->ret = label_for(&w->t, o->size, &w->label);
	}
	gate_wait(w->start);
	uint64_t start = cli_now_ns(), budget = (uint64_t)(o->time_s * 1e9);
	while (w->ret == 0) {
		if (o->iterations ? w->tests >= o->iterations : cli_now_ns() - start >= budget)
			break;
		/* The last pass of --iterations may copy fewer buffers. */
		size_t keep = b.n;
		if (o->iterations && o->iterations - w->tests < b.n)
			b.n = (size_t)(o->iterations - w->tests);
		uint64_t ns;
		w->ret = lib_pass(&w->t, &b, 1, &ns);
		if (w->ret == 0) {
			w->ns += ns;
			w->tests += b.n;
			w->bytes += (uint64_t)b.n * b.size;
		}
		w->failures += bufset_verify(&b);
		b.n = keep;
	}
	target_close(&w->t);
	bufset_free(&b);
	return NULL;
}

/* The threads that ran (started of them), once joined. */
struct run {
	struct worker *w;
	unsigned started;
	uint64_t wall_ns;
	uint64_t tests, failures;
	int ret;
	const struct label *lab;  /* the device the first thread that copied ran on */
};

/* Start o->threads workers at one gate and wait for them all; false if none could start. */
static bool run_workers(const struct cli *cli, offload_ctx *ctx, int dev, const struct bm_opts *o,
			struct run *run)
{
	struct gate start = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false };

	for (unsigned i = 0; i < o->threads; i++) {
		struct worker *w = &run->w[i];
		w->index = i;
		w->ctx = ctx;
		w->dev = dev;
		w->o = o;
		w->start = &start;
		if (pthread_create(&w->tid, NULL, run_worker, w) != 0) {
			cli_error(cli, "could only start %u of %u threads", run->started, o->threads);
			run->ret = -EAGAIN;
			break;
		}
		run->started++;
	}
	gate_open(&start, run->started);
	uint64_t t0 = cli_now_ns();
	for (unsigned i = 0; i < run->started; i++)
		pthread_join(run->w[i].tid, NULL);
	run->wall_ns = cli_now_ns() - t0;
	return run->started > 0;
}

/*
 * The threads' counts and errors. The first thread that got as far as copying
 * names the device; one that failed before (queue or buffers) is reported
 * under it. False if no thread got that far (the errors say why).
 */
static bool run_collect(const struct cli *cli, struct run *run)
{
	for (unsigned i = 0; i < run->started; i++) {
		struct worker *w = &run->w[i];
		run->tests += w->tests;
		run->failures += w->failures;
		if (w->ret < 0 && !run->ret)
			run->ret = w->ret;
		if (w->t.err[0])
			cli_error(cli, "thread %u: %s", i, w->t.err);
		if (!run->lab && w->label.name[0])
			run->lab = &w->label;
	}
	if (!run->lab)
		return false;
	for (unsigned i = 0; i < run->started; i++)
		if (!run->w[i].label.name[0])
			run->w[i].label = *run->lab;
	return true;
}

static void run_report_csv(const struct bm_opts *o, const struct run *run)
{
	fputs(csv_header, stdout);
	for (unsigned i = 0; i < run->started; i++) {
		const struct worker *w = &run->w[i];
		csv_row("library", i, &w->label, o->async, bufs_for(o->size), o->size, w->tests,
			w->failures, w->tests ? (double)w->ns / (double)w->tests : 0);
	}
}

static void run_report_json(const struct bm_opts *o, const struct run *run)
{
	struct rate total = { 0, 0 };

	printf("{\n  \"bench\": \"memcpy\",\n  \"mode\": \"run\",\n  \"size\": %zu,\n"
	       "  \"align\": %zu,\n  \"async\": %s,\n  \"threads\": [\n", o->size, o->align,
	       o->async ? "true" : "false");
	for (unsigned i = 0; i < run->started; i++) {
		const struct worker *w = &run->w[i];
		/* the threads ran side by side: the total rate is the sum of theirs */
		struct rate r = rate_of(w->tests, w->bytes, w->ns);
		total.iops += r.iops;
		total.kbs += r.kbs;
		printf("    {\"thread\": %u, \"device\": ", i);
		cli_json_str(stdout, w->label.name);
		printf(", \"backend\": ");
		cli_json_str(stdout, w->label.backend);
		printf(", \"driver\": ");
		cli_json_str(stdout, w->label.driver);
		printf(", \"sim\": %s, \"tests\": %" PRIu64 ", \"failures\": %" PRIu64
		       ", \"iops\": %.2f, \"KBps\": %.0f, \"status\": %d}%s\n",
		       w->label.sim ? "true" : "false", w->tests, w->failures, r.iops, r.kbs, w->ret,
		       i + 1 == run->started ? "" : ",");
	}
	printf("  ],\n  \"total\": {\"tests\": %" PRIu64 ", \"failures\": %" PRIu64
	       ", \"wall_s\": %.6f, \"iops\": %.2f, \"KBps\": %.0f, \"status\": %d}\n}\n",
	       run->tests, run->failures, (double)run->wall_ns / 1e9, total.iops, total.kbs, run->ret);
}

static void run_report_text(const struct cli *cli, const struct bm_opts *o, const struct run *run)
{
	struct cli_dmatest_rate total = { 0, 0, 0 };
	char sz[24], name[128];

	human_size(sz, sizeof(sz), o->size);
	printf("offloadctl bench memcpy: %s x %u thread(s), align %zu, %s, device %s (backend %s, %s)\n",
	       sz, o->threads, o->align, o->async ? "async queue: enqueue + submit + wait" : "offload_memcpy",
	       cli_text(run->lab->name), cli_text(run->lab->backend), cli_text(run->lab->driver));
	for (unsigned i = 0; i < run->started; i++) {
		const struct worker *w = &run->w[i];
		struct cli_dmatest_rate r = cli_dmatest_rate(w->tests, w->bytes, w->ns);
		dmatest_rate_add(&total, r);
		snprintf(name, sizeof(name), "%.100s-copy%u", w->label.name, i);
		cli_dmatest_summary(cli, name, w->tests, w->failures, r, w->ret);
	}
	if (run->started > 1) {
		snprintf(name, sizeof(name), "%.100s-total", run->w[0].label.name);
		cli_dmatest_summary(cli, name, run->tests, run->failures, total, run->ret);
	}
}

static int run_threads(struct cli *cli, offload_ctx *ctx, int dev, const struct bm_opts *o)
{
	struct run run = { .w = calloc(o->threads, sizeof(*run.w)) };
	int rc = CLI_EXIT_FAIL;

	if (!run.w)
		return cli_error(cli, "out of memory");
	if (run_workers(cli, ctx, dev, o, &run) && run_collect(cli, &run)) {
		if (cli->csv)
			run_report_csv(o, &run);
		else if (cli->json)
			run_report_json(o, &run);
		else
			run_report_text(cli, o, &run);
		if (run.failures)
			cli_error(cli, "%" PRIu64 " of %" PRIu64 " copies did not verify", run.failures,
				  run.tests);
		rc = run.ret || run.failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	free(run.w);
	return rc;
}

/* ------------------------------------------------------------------ default sweep range */

#define SWEEP_TOP_MIN ((size_t)16 << 20)
#define SWEEP_TOP_MAX ((size_t)256 << 20)

/* A "Name:  N kB" field of a /proc file, in bytes; 0 if absent. */
static uint64_t proc_kb(const char *path, const char *name)
{
	char line[128];
	uint64_t v = 0;
	size_t n = strlen(name);
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, n) == 0 && line[n] == ':') {
			v = strtoull(line + n + 1, NULL, 10) * 1024u;
			break;
		}
	fclose(f);
	return v;
}

/*
 * The sweep holds a source and a destination of its top size, so the default
 * top is an eighth of the memory it may use (a quarter in buffers), rounded
 * down to a power of 4 (a size the x4 sweep from 64 B reaches), within
 * 16 MiB .. 256 MiB. "May use": MemAvailable, and under a finite
 * RLIMIT_AS (ulimit -v) what is left of it.
 */
static size_t max_sweep_default(char *why, size_t wl)
{
	uint64_t avail = proc_kb("/proc/meminfo", "MemAvailable");
	const char *what = "MemAvailable";
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		uint64_t used = proc_kb("/proc/self/status", "VmSize");
		uint64_t left = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
		if (!avail || left < avail) {
			avail = left;
			what = "the address-space limit (ulimit -v) left";
		}
	}
	if (!avail) {
		snprintf(why, wl, "64 MiB: available memory unknown");
		return (size_t)64 << 20;
	}
	size_t top = 64;
	while (top <= SWEEP_TOP_MAX / 4 && (uint64_t)top * 4 <= avail / 8)
		top *= 4;
	if (top < SWEEP_TOP_MIN)
		top = SWEEP_TOP_MIN;
	snprintf(why, wl, "%s %" PRIu64 " MiB / 8, power of 4, 16..256 MiB", what, avail >> 20);
	return top;
}

/* ------------------------------------------------------------------ options */

static void usage(const struct cli *cli, FILE *f)
{
	fprintf(f,
		"usage: %s bench memcpy [OPTIONS]\n\n"
		"Benchmark offload_memcpy, verifying every copy (exit 1 on any mismatch).\n"
		"Without --size: a sweep comparing the library with plain memcpy in the same run.\n"
		"With --size: dmatest-style runs, one summary line per thread.\n\n"
		"options:\n"
		"  --size BYTES        bytes per copy (suffix K, M, G: KiB, MiB, GiB)\n"
		"  --iterations N      copies per thread (default: run for --time)\n"
		"  --threads N         caller threads (1..256), each with its own buffers (and queue)\n"
		"  --align OFF         src and dst start OFF bytes past a 4096-byte boundary (0..4095);\n"
		"                      buffers under a page are packed at 64-byte strides, keeping\n"
		"                      OFF modulo 64\n"
		"  --dev DEV           device by name, DT path, compatible or index (default: auto)\n"
		"  --backend NAME      the first device served by backend NAME\n"
		"  --async             use the queue: enqueue a batch, submit, wait for completions\n"
		"  --sweep             the sweep, also with --size given\n"
		"  --min BYTES, --max BYTES, --factor N\n"
		"                      sweep range (default 64 .. MemAvailable/8 as a power of 4,\n"
		"                      16M..256M; x4, 2..1024); the sweep holds 2 buffers of --max bytes\n"
		"  --time SECONDS      time per sweep size, or per run (default 0.4 and 1, at most\n"
		"                      3600); fractions allowed, or milliseconds with 'ms' (400ms)\n"
		"sweep only:\n"
		"  --peers LIST        also time two-thread copies (the caller and one persistent\n"
		"                      helper, each a half) from 64 KiB: 2thr (memcpy halves),\n"
		"                      2thr-nt (streaming halves), or both: 2thr,2thr-nt\n"
		"  --mode b2b|idle     b2b (default): copies back to back, a large buffer copied\n"
		"                      repeatedly within a pass (up to 64 MiB, at least twice) and\n"
		"                      verified after it, each side timed after one untimed copy\n"
		"                      (steady state); idle: every pass after --idle of nothing\n"
		"                      (worker threads asleep), each copy verified; the A/A column\n"
		"                      is plain memcpy timed by a second pass function of the same\n"
		"                      body, over memcpy: the harness's own bias at that size\n"
		"  --idle SECONDS      the idle time before each pass of --mode idle (default 10ms)\n"
		"  --busy              another process spins on the last CPU meanwhile\n"
		"  --rounds N          rounds per size, --time split among them (1..64, default 1)\n"
		"  --quiet PCT         a round counts only if other processes took under PCT %% of\n"
		"                      the CPUs (/proc/stat; 1..100, default 5, 100: every round);\n"
		"                      busy rounds run again up to --max-rounds; rounds under\n"
		"                      ~0.2 s are too short to judge\n"
		"  --max-rounds N      rounds to try per size (default 3 x --rounds, at most 1000)\n"
		"A against B:\n"
		"  --ab A,B            time backend A's and backend B's first memcpy device size by\n"
		"                      size (--min, --max, --factor: default 64 .. 16M, x2; --time\n"
		"                      per size and side, default 0.15) and print the crossover: the\n"
		"                      smallest size from which B is faster at every larger size\n"
		"  --write-threshold[=FILE]\n"
		"                      write the crossover as B's driver's line of FILE (default\n"
		"                      " OFFLOAD_DMAENGINE_CONF ", which the dmaengine\n"
		"                      backend reads: offloadctl bench memcpy --ab cpu,dmaengine)\n"
		"common options:\n" CLI_COMMON_HELP, cli->prog);
}

/* Resolve --dev / --backend to a device index (or OFFLOAD_DEV_AUTO); -ENODEV after the message. */
static int pick_device(const struct cli *cli, offload_ctx *ctx, const struct bm_opts *o)
{
	if (o->dev) {
		int d = cli_dev_find(ctx, o->dev);
		struct offload_dev_info info;
		if (d < 0 || offload_dev_get_info(ctx, d, &info, sizeof(info)) < 0) {
			cli_error(cli, "no device '%s' (see '%s list')", cli_text(o->dev), cli->prog);
			return -ENODEV;
		}
		if (!(info.flags & OFFLOAD_DEVF_USABLE)) {
			cli_error(cli, "device '%s' (%s) is not usable: %s", cli_text(o->dev),
				  cli_text(info.name), cli_text(info.usable_reason));
			return -ENODEV;
		}
		if (!(info.caps & OFFLOAD_CAP_MEMCPY)) {
			cli_error(cli, "device '%s' (%s, %s) cannot copy memory: it is not a memcpy engine",
				  cli_text(o->dev), cli_text(info.name), cli_text(info.kind));
			return -ENODEV;
		}
		return d;
	}
	if (o->backend) {
		int n = offload_dev_count(ctx);
		for (int i = 0; i < n; i++) {
			struct offload_dev_info info;
			if (offload_dev_get_info(ctx, i, &info, sizeof(info)) == 0 && strcmp(info.backend, o->backend) == 0 &&
			    (info.caps & OFFLOAD_CAP_MEMCPY) && (info.flags & OFFLOAD_DEVF_USABLE))
				return i;
		}
		cli_error(cli, "no usable memcpy device with backend '%s' (see '%s list')", o->backend,
			  cli->prog);
		return -ENODEV;
	}
	return OFFLOAD_DEV_AUTO;
}

enum {
	OPT_SIZE = CLI_OPT_COMMAND_FIRST, OPT_ITER, OPT_THREADS, OPT_ALIGN, OPT_DEV, OPT_BACKEND, OPT_ASYNC,
	OPT_SWEEP, OPT_MIN, OPT_MAX, OPT_FACTOR, OPT_TIME, OPT_PEERS, OPT_MODE, OPT_IDLE, OPT_BUSY,
	OPT_ROUNDS, OPT_QUIET, OPT_MAX_ROUNDS, OPT_AB, OPT_WRITE_THRESHOLD,
};

static const struct option bm_longopts[] = {
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "iterations", required_argument, NULL, OPT_ITER },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "align", required_argument, NULL, OPT_ALIGN },
	{ "dev", required_argument, NULL, OPT_DEV },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "async", no_argument, NULL, OPT_ASYNC },
	{ "sweep", no_argument, NULL, OPT_SWEEP },
	{ "min", required_argument, NULL, OPT_MIN },
	{ "max", required_argument, NULL, OPT_MAX },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "peers", required_argument, NULL, OPT_PEERS },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "busy", no_argument, NULL, OPT_BUSY },
	{ "ab", required_argument, NULL, OPT_AB },
	{ "write-threshold", optional_argument, NULL, OPT_WRITE_THRESHOLD },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "quiet", required_argument, NULL, OPT_QUIET },
	{ "max-rounds", required_argument, NULL, OPT_MAX_ROUNDS },
	CLI_COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* A size option into a size_t; false after the usage message. */
static bool size_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t min,
		     uint64_t max, size_t *out)
{
	uint64_t v;

	if (!cli_opt_uint(cli, opt, arg, CLI_NUM_SIZE, min, max, &v))
		return false;
	*out = (size_t)v;
	return true;
}

/* --peers "2thr,2thr-nt": the two-thread copies to time beside memcpy. */
static int peers_opt(const struct cli *cli, struct bm_opts *o, const char *arg)
{
	char item[16];

	o->peers = 0;
	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");
		snprintf(item, sizeof(item), "%.*s", (int)(len < 15 ? len : 15), p);
		if (strcmp(item, "2thr") == 0 && len == 4)
			o->peers |= PEER_2THR;
		else if (strcmp(item, "2thr-nt") == 0 && len == 7 && bench_peer_has_nt())
			o->peers |= PEER_2THR_NT;
		else
			return cli_usage_error(cli, "--peers \"%s\": \"%.*s\" is not a peer (2thr, 2thr-nt%s)",
					       cli_text(arg), (int)len, p,
					       bench_peer_has_nt() ? "" : ": no streaming stores on this "
									  "architecture");
		if (!p[len])
			return 0;
		p += len;
	}
}

static int bm_opt(struct cli *cli, void *state, int c, const char *arg)
{
	struct bm_opts *o = state;
	uint64_t v;
	bool ok = true;

	switch (c) {
	case OPT_SIZE: ok = size_opt(cli, "--size", arg, 1, SIZE_MAX, &o->size); break;
	case OPT_ITER: ok = cli_opt_uint(cli, "--iterations", arg, 0, 1, UINT64_MAX / 2, &o->iterations); break;
	case OPT_THREADS:
		ok = cli_opt_uint(cli, "--threads", arg, 0, 1, 256, &v);
		o->threads = (unsigned)v;
		break;
	case OPT_ALIGN: ok = size_opt(cli, "--align", arg, 0, BM_PAGE - 1, &o->align); break;
	case OPT_DEV: o->dev = arg; break;
	case OPT_BACKEND:
		o->backend = arg;
		if (!arg[0] || strpbrk(arg, ", "))
			return cli_usage_error(cli, "--backend \"%s\": expected one backend name", cli_text(arg));
		ok = cli_backends_ok(cli, "--backend", arg);
		break;
	case OPT_ASYNC: o->async = true; break;
	case OPT_SWEEP: o->sweep = true; break;
	case OPT_MIN:
		ok = size_opt(cli, "--min", arg, 1, SIZE_MAX, &o->min);
		o->min_given = true;
		break;
	case OPT_MAX:
		ok = size_opt(cli, "--max", arg, 1, SIZE_MAX, &o->max);
		o->max_given = true;
		break;
	case OPT_FACTOR:
		ok = cli_opt_uint(cli, "--factor", arg, 0, 2, 1024, &v);
		o->factor = (unsigned)v;
		o->factor_given = true;
		break;
	case OPT_AB: {
		static char names[2][32];
		const char *comma = strchr(arg, ',');
		size_t la = comma ? (size_t)(comma - arg) : 0;
		if (!comma || !la || la >= sizeof(names[0]) || !comma[1] || strchr(comma + 1, ',') ||
		    strlen(comma + 1) >= sizeof(names[1]))
			return cli_usage_error(cli, "--ab \"%s\": expected two backend names, A,B",
					       cli_text(arg));
		memcpy(names[0], arg, la);
		names[0][la] = '\0';
		snprintf(names[1], sizeof(names[1]), "%s", comma + 1);
		ok = cli_backends_ok(cli, "--ab", arg);
		o->ab.a = names[0];
		o->ab.b = names[1];
		break;
	}
	case OPT_WRITE_THRESHOLD: o->ab.write_path = arg ? arg : OFFLOAD_DMAENGINE_CONF; break;
	case OPT_TIME:
		ok = cli_opt_seconds(cli, "--time", arg, false, 3600, &o->time_s);
		o->time_given = true;
		break;
	case OPT_PEERS: return peers_opt(cli, o, arg);
	case OPT_MODE:
		if (strcmp(arg, "b2b") != 0 && strcmp(arg, "idle") != 0)
			return cli_usage_error(cli, "--mode \"%s\": expected b2b or idle", cli_text(arg));
		o->idle = arg[0] == 'i';
		break;
	case OPT_IDLE: ok = cli_opt_seconds(cli, "--idle", arg, true, 10, &o->idle_s); break;
	case OPT_BUSY: o->busy = true; break;
	case OPT_ROUNDS:
		ok = cli_opt_uint(cli, "--rounds", arg, 0, 1, 64, &v);
		o->rounds = (unsigned)v;
		break;
	case OPT_QUIET:
		ok = cli_opt_uint(cli, "--quiet", arg, 0, 1, 100, &v);
		o->quiet = (double)v / 100.0;
		break;
	case OPT_MAX_ROUNDS:
		ok = cli_opt_uint(cli, "--max-rounds", arg, 0, 1, 1000, &v);
		o->max_rounds = (unsigned)v;
		o->max_rounds_given = true;
		break;
	default: return CLI_EXIT_USAGE;
	}
	return ok ? 0 : CLI_EXIT_USAGE;
}

/* What the options decide together: sweep or run, its range and time; an exit status or CLI_CONTINUE. */
static int bm_settle(const struct cli *cli, struct bm_opts *o)
{
	if (o->dev && o->backend)
		return cli_usage_error(cli, "give --dev or --backend, not both");
	if (o->ab.write_path && !o->ab.a)
		return cli_usage_error(cli, "--write-threshold writes what --ab A,B measured: give --ab");
	if (o->ab.a) {
		if (o->dev || o->backend || o->size || o->async || o->peers || o->threads != 1)
			return cli_usage_error(cli, "--ab A,B picks its two devices and sizes itself: not "
						    "with --dev, --backend, --size, --async, --peers or "
						    "--threads");
		o->ab.min = o->min_given ? o->min : 64;
		o->ab.max = o->max_given ? o->max : (size_t)16 << 20;
		o->ab.factor = o->factor_given ? o->factor : 2;
		o->ab.time_s = o->time_given ? o->time_s : 0.15;
		if (o->ab.min > o->ab.max)
			return cli_usage_error(cli, "--min is above --max");
		return CLI_CONTINUE;
	}
	if (!o->size)
		o->sweep = true;
	if (o->sweep) {
		if (!o->max_given && !o->size) {
			o->max = max_sweep_default(o->max_why, sizeof(o->max_why));
			if (o->min > o->max)
				o->max = o->min; /* --min alone above the default: sweep that size */
		}
		if (o->size)
			o->min = o->max = o->size;
		if (o->min > o->max || o->threads != 1 || o->iterations)
			return cli_usage_error(cli, "the sweep runs one caller thread for --time per size, "
						    "over --min <= --max (--threads and --iterations "
						    "need --size)");
		if (!o->max_rounds_given)
			o->max_rounds = 3 * o->rounds;
		if (o->max_rounds < o->rounds)
			return cli_usage_error(cli, "--max-rounds %u is less than --rounds %u",
					       o->max_rounds, o->rounds);
		if (o->peers && o->async)
			return cli_usage_error(cli, "--peers compares synchronous copies: not with --async");
	} else if (o->peers || o->idle || o->busy || o->rounds != 1 || o->max_rounds_given ||
		   o->quiet != 0.05) {
		return cli_usage_error(cli, "--peers, --mode, --busy, --rounds, --quiet and --max-rounds "
					    "are for the sweep (no --size, or --sweep)");
	}
	if (!o->time_given)
		o->time_s = o->sweep ? 0.4 : 1.0;
	return CLI_CONTINUE;
}

int bench_memcpy(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.longopts = bm_longopts, .opt = bm_opt, .help = usage, .max_operands = 0,
		.formats = CLI_FMT_JSON | CLI_FMT_CSV,
	};
	struct bm_opts o = { .threads = 1, .min = 64, .max = (size_t)256 << 20, .factor = 4,
			     .idle_s = 0.01, .rounds = 1, .quiet = 0.05 };
	offload_ctx *ctx;

	int r = cli_parse(cli, &cmd, &o, argc, argv);
	if (r == CLI_CONTINUE)
		r = bm_settle(cli, &o);
	if (r != CLI_CONTINUE)
		return r;
	if (!(ctx = cli_open_ctx(cli)))
		return CLI_EXIT_FAIL;
	int ret = CLI_EXIT_FAIL;
	if (o.ab.a) {
		ret = bench_ab(cli, ctx, &o.ab);
		offload_ctx_free(ctx);
		return ret;
	}
	int dev = pick_device(cli, ctx, &o);
	if (dev >= 0 || dev == OFFLOAD_DEV_AUTO)
		ret = o.sweep ? run_sweep(cli, ctx, dev, &o) : run_threads(cli, ctx, dev, &o);
	offload_ctx_free(ctx);
	return ret;
}
