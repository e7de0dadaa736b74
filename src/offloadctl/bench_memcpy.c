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
};

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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
 * One timed library pass over every pair of b. Returns 0 or the first
 * -errno; *ns receives the elapsed time.
 */
static int lib_pass(struct target *t, struct bufset *b, uint64_t *ns)
{
	int r = 0;

	if (!t->async) {
		uint64_t t0 = now_ns();
		if (t->dev == OFFLOAD_DEV_AUTO) {
			for (size_t i = 0; i < b->n && r == 0; i++)
				r = offload_memcpy(t->ctx, b->dst[i], b->src[i], b->size);
		} else {
			for (size_t i = 0; i < b->n && r == 0; i++)
				r = offload_memcpy_dev(t->ctx, t->dev, b->dst[i], b->src[i], b->size, NULL);
		}
		*ns = now_ns() - t0;
		if (r < 0)
			target_fail(t, "offload_memcpy", r);
		return r;
	}

	uint64_t t0 = now_ns();
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
	*ns = now_ns() - t0;
	return 0;
}

static void memcpy_pass(struct bufset *b, uint64_t *ns)
{
	uint64_t t0 = now_ns();

	for (size_t i = 0; i < b->n; i++) {
		memcpy(b->dst[i], b->src[i], b->size);
		/* Keep the compiler from merging or dropping copies across the loop. */
		__asm__ __volatile__("" ::: "memory");
	}
	*ns = now_ns() - t0;
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

/* Copies per second and KiB per second of `tests` copies of `bytes` in all over `ns` timed. */
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

/* dmatest's summary line, same shape: scripts parse it. */
static void summary_line(const struct cli *cli, const char *name, uint64_t tests, uint64_t failures,
			 struct rate r, int ret)
{
	printf("%s: %s: summary %" PRIu64 " tests, %" PRIu64 " failures %.2f iops %" PRIu64
	       " KB/s (%d)\n", cli->prog, name, tests, failures, r.iops, (uint64_t)r.kbs, ret);
}

static const char *csv_header =
	"case,thread,device,backend,sim,mode,ring_size,kick_batch,buffer_size_B,number_of_buffers,"
	"memory_MB,ns_per_op,bandwidth_Gbps,MOps,tests,failures\n";

static void csv_row(const char *kase, unsigned thread, const struct label *l, bool async,
		    size_t nbufs, size_t size, uint64_t tests, uint64_t failures, double ns_per_op)
{
	size_t ring = 0;

	if (async)
		for (ring = 2; ring < nbufs; ring <<= 1)
			;
	printf("%s,%u,%s,%s,%d,%s,%zu,%zu,%zu,%zu,%.3f,%.2f,%.3f,%.4f,%" PRIu64 ",%" PRIu64 "\n",
	       kase, thread, l->name, l->backend, l->sim, async ? "async" : "sync", ring,
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct row {
	size_t size, nbufs;
	struct label label;
	uint64_t passes;            /* per side */
	double lib_ns, mem_ns;      /* median pass time / buffers: ns per copy */
	uint64_t tests, failures;   /* library side */
	uint64_t lib_total_ns, lib_bytes;
	int ret;
};

#define SWEEP_MAX_PASSES 200000u
#define SWEEP_MIN_PASSES 5u

static int sweep_one(struct target *t, const struct bm_opts *o, size_t size, struct row *row,
		     uint64_t *lib, uint64_t *mem)
{
	struct bufset b;
	size_t n = bufs_for(size);

	memset(row, 0, sizeof(*row));
	row->size = size;
	row->nbufs = n;
	/* The probe copy first: its buffers are gone before the pass buffers exist (peak 2 x size). */
	int r = label_for(t, size, &row->label);
	if (r < 0)
		return r;
	r = bufset_alloc(&b, size, o->align, n, size);
	if (r < 0) {
		snprintf(t->err, sizeof(t->err), "cannot allocate 2 x %zu buffers of %zu bytes", n, size);
		return r;
	}
	/* Warm-up: fault in, start the library's workers; verified, not timed. */
	uint64_t ns;
	if (r == 0)
		r = lib_pass(t, &b, &ns);
	if (r == 0) {
		row->failures += bufset_verify(&b);
		memcpy_pass(&b, &ns);
		bufset_verify(&b);
	}
	uint64_t start = now_ns(), budget = (uint64_t)(o->time_s * 1e9);
	size_t p = 0;
	while (r == 0 && p < SWEEP_MAX_PASSES &&
	       (p < SWEEP_MIN_PASSES || now_ns() - start < budget)) {
		for (int side = 0; side < 2 && r == 0; side++) {
			/* ABBA: the library goes first on even passes, memcpy on odd ones. */
			if ((side == 0) == (p % 2 == 0)) {
				r = lib_pass(t, &b, &lib[p]);
				uint64_t bad = bufset_verify(&b);
				row->tests += n;
				row->failures += bad;
				row->lib_total_ns += lib[p];
				row->lib_bytes += (uint64_t)n * size;
			} else {
				memcpy_pass(&b, &mem[p]);
				if (bufset_verify(&b))
					snprintf(t->err, sizeof(t->err), "plain memcpy did not verify: "
						 "this machine's memory is suspect");
			}
		}
		p++;
	}
	bufset_free(&b);
	row->passes = p;
	row->ret = r;
	if (p) {
		row->lib_ns = (double)median(lib, p) / (double)n;
		row->mem_ns = (double)median(mem, p) / (double)n;
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

static void print_row_text(const struct row *w)
{
	char sz[24], lt[24], mt[24], ov[24] = "-";
	double lmb = w->lib_ns > 0 ? (double)w->size / w->lib_ns * 1e3 : 0;
	double mmb = w->mem_ns > 0 ? (double)w->size / w->mem_ns * 1e3 : 0;

	human_size(sz, sizeof(sz), w->size);
	human_time(lt, sizeof(lt), w->lib_ns);
	human_time(mt, sizeof(mt), w->mem_ns);
	if (w->size <= BM_OVERHEAD_MAX)
		snprintf(ov, sizeof(ov), "%+.1f ns", w->lib_ns - w->mem_ns);
	printf("%8s %11.0f %11.0f %6.2f %11s %11s %10s  %-12s %6" PRIu64 "%s\n", sz, lmb, mmb,
	       mmb > 0 ? lmb / mmb : 0, lt, mt, ov, w->label.name, w->passes,
	       w->failures ? "  MISMATCH" : "");
	fflush(stdout);
}

static void print_row_json(const struct row *w, bool last)
{
	double lmb = w->lib_ns > 0 ? (double)w->size / w->lib_ns * 1e3 : 0;
	double mmb = w->mem_ns > 0 ? (double)w->size / w->mem_ns * 1e3 : 0;

	printf("    {\"size\": %zu, \"buffers\": %zu, \"passes\": %" PRIu64 ", \"device\": ", w->size,
	       w->nbufs, w->passes);
	cli_json_str(stdout, w->label.name);
	printf(", \"backend\": ");
	cli_json_str(stdout, w->label.backend);
	printf(", \"sim\": %s, \"lib_MBps\": %.1f, \"memcpy_MBps\": %.1f, \"ratio\": %.4f, "
	       "\"lib_ns_per_call\": %.2f, \"memcpy_ns_per_call\": %.2f, \"overhead_ns\": %.2f, "
	       "\"tests\": %" PRIu64 ", \"failures\": %" PRIu64 "}%s\n",
	       w->label.sim ? "true" : "false", lmb, mmb, mmb > 0 ? lmb / mmb : 0, w->lib_ns, w->mem_ns,
	       w->lib_ns - w->mem_ns, w->tests, w->failures, last ? "" : ",");
}

static int run_sweep(struct cli *cli, offload_ctx *ctx, int dev, const struct bm_opts *o)
{
	struct target t;
	uint64_t *lib = calloc(SWEEP_MAX_PASSES, sizeof(*lib));
	uint64_t *mem = calloc(SWEEP_MAX_PASSES, sizeof(*mem));
	struct row rows[64];
	size_t nrows = 0;
	int ret = 0;

	if (!lib || !mem) {
		free(lib);
		free(mem);
		fprintf(stderr, "%s bench memcpy: out of memory\n", cli->prog);
		return CLI_EXIT_FAIL;
	}
	if (target_open(&t, ctx, dev, o->async, bufs_for(o->min)) < 0) {
		fprintf(stderr, "%s bench memcpy: %s\n", cli->prog, t.err);
		free(lib);
		free(mem);
		return CLI_EXIT_FAIL;
	}
	char lo[24], hi[24];
	human_size(lo, sizeof(lo), o->min);
	human_size(hi, sizeof(hi), o->max);
	if (cli->csv) {
		fputs(csv_header, stdout);
	} else if (!cli->json) {
		printf("offloadctl bench memcpy: library (%s, %s) vs plain memcpy, %s .. %s%s%s%s x%u, "
		       "align %zu, ABBA-interleaved, median of passes\n",
		       dev == OFFLOAD_DEV_AUTO ? "device auto" : "chosen device",
		       o->async ? "async queue: enqueue + submit + wait" : "offload_memcpy", lo, hi,
		       o->max_why[0] ? " (" : "", o->max_why, o->max_why[0] ? "; --max to change)" : "",
		       o->factor, o->align);
		printf("%8s %11s %11s %6s %11s %11s %10s  %-12s %6s\n", "size", "lib MB/s",
		       "memcpy MB/s", "ratio", "lib/call", "memcpy/call", "overhead", "device",
		       "passes");
	}
	for (size_t size = o->min; size <= o->max && nrows < 64; size *= o->factor) {
		struct row *w = &rows[nrows];
		int r = sweep_one(&t, o, size, w, lib, mem);
		if (w->passes || r == 0)
			nrows++;
		if (w->failures && !ret)
			ret = -EIO;
		if (cli->csv && (w->passes || r == 0)) {
			csv_row("library", 0, &w->label, o->async, w->nbufs, size, w->tests, w->failures,
				w->lib_ns);
			struct label m = { .name = "memcpy", .backend = "libc" };
			csv_row("memcpy", 0, &m, false, w->nbufs, size, w->passes * w->nbufs, 0, w->mem_ns);
		} else if (!cli->json && (w->passes || r == 0)) {
			print_row_text(w);
		}
		if (r < 0 || t.err[0]) {
			fprintf(stderr, "%s bench memcpy: %zu bytes: %s\n", cli->prog, size,
				t.err[0] ? t.err : offload_strerror(r));
			ret = r < 0 ? r : -EIO;
			break;
		}
		if (size > SIZE_MAX / o->factor)
			break;
	}

	if (!cli->json && !cli->csv && nrows && rows[nrows - 1].size > BM_OVERHEAD_MAX)
		printf("overhead '-': above %u KiB the per-call difference is within the copy's own "
		       "run-to-run variation, not the library's cost\n",
		       BM_OVERHEAD_MAX >> 10);
	/*
	 * The summary line is dmatest's for the largest size (what dmatest prints
	 * for one --size run); a sum of rates over sizes would mean nothing. The
	 * line before it counts every library copy of the sweep, all verified.
	 */
	uint64_t tests = 0, failures = 0;
	for (size_t i = 0; i < nrows; i++) {
		tests += rows[i].tests;
		failures += rows[i].failures;
	}
	const struct row *top = nrows ? &rows[nrows - 1] : NULL;
	char thread[128], topsz[24] = "-";
	snprintf(thread, sizeof(thread), "%.100s-copy0", top ? top->label.name : "none");
	if (top)
		human_size(topsz, sizeof(topsz), top->size);
	if (cli->json) {
		printf("{\n  \"bench\": \"memcpy\",\n  \"mode\": \"sweep\",\n  \"async\": %s,\n"
		       "  \"align\": %zu,\n  \"rows\": [\n", o->async ? "true" : "false", o->align);
		for (size_t i = 0; i < nrows; i++)
			print_row_json(&rows[i], i + 1 == nrows);
		printf("  ],\n  \"summary\": {\"tests\": %" PRIu64 ", \"failures\": %" PRIu64
		       ", \"status\": %d}\n}\n", tests, failures, ret);
	} else if (!cli->csv && nrows) { /* nothing ran: the error above says why */
		printf("%s: sweep: %" PRIu64 " library copies at %zu sizes verified, %" PRIu64
		       " failures; summary of the largest size, %s:\n", cli->prog, tests, nrows, failures,
		       topsz);
		summary_line(cli, thread, top ? top->tests : 0, top ? top->failures : 0,
			     top ? rate_of(top->tests, top->lib_bytes, top->lib_total_ns)
				 : rate_of(0, 0, 0),
			     ret);
	}
	target_close(&t);
	free(lib);
	free(mem);
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
	uint64_t start = now_ns(), budget = (uint64_t)(o->time_s * 1e9);
	while (w->ret == 0) {
		if (o->iterations ? w->tests >= o->iterations : now_ns() - start >= budget)
			break;
		/* The last pass of --iterations may copy fewer buffers. */
		size_t keep = b.n;
		if (o->iterations && o->iterations - w->tests < b.n)
			b.n = (size_t)(o->iterations - w->tests);
		uint64_t ns;
		w->ret = lib_pass(&w->t, &b, &ns);
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

static int run_threads(struct cli *cli, offload_ctx *ctx, int dev, const struct bm_opts *o)
{
	struct worker *w = calloc(o->threads, sizeof(*w));
	struct gate start = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false };
	unsigned started = 0;
	int ret = 0;

	if (!w) {
		fprintf(stderr, "%s bench memcpy: out of memory\n", cli->prog);
		return CLI_EXIT_FAIL;
	}
	for (unsigned i = 0; i < o->threads; i++) {
		w[i].index = i;
		w[i].ctx = ctx;
		w[i].dev = dev;
		w[i].o = o;
		w[i].start = &start;
		if (pthread_create(&w[i].tid, NULL, run_worker, &w[i]) != 0) {
			fprintf(stderr, "%s bench memcpy: could only start %u of %u threads\n",
				cli->prog, started, o->threads);
			ret = -EAGAIN;
			break;
		}
		started++;
	}
	gate_open(&start, started);
	uint64_t t0 = now_ns();
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	uint64_t wall = now_ns() - t0;

	/* The threads ran side by side: the total rate is the sum of theirs. */
	uint64_t tests = 0, failures = 0;
	struct rate total = { 0, 0 };
	for (unsigned i = 0; i < started; i++) {
		struct rate r = rate_of(w[i].tests, w[i].bytes, w[i].ns);
		tests += w[i].tests;
		failures += w[i].failures;
		total.iops += r.iops;
		total.kbs += r.kbs;
		if (w[i].ret < 0 && !ret)
			ret = w[i].ret;
		if (w[i].t.err[0])
			fprintf(stderr, "%s bench memcpy: thread %u: %s\n", cli->prog, i, w[i].t.err);
	}
	/* The first thread that got as far as copying names the device; one that failed
	 * before (queue or buffers) is reported under the device asked for. */
	const struct label *lab = NULL;
	for (unsigned i = 0; i < started && !lab; i++)
		if (w[i].label.name[0])
			lab = &w[i].label;
	if (!lab) {
		free(w);
		return CLI_EXIT_FAIL; /* nothing ran: the errors above say why */
	}
	for (unsigned i = 0; i < started; i++)
		if (!w[i].label.name[0])
			w[i].label = *lab;
	char sz[24];
	human_size(sz, sizeof(sz), o->size);
	if (cli->csv) {
		fputs(csv_header, stdout);
		for (unsigned i = 0; i < started; i++)
			csv_row("library", i, &w[i].label, o->async, bufs_for(o->size), o->size, w[i].tests,
				w[i].failures, w[i].tests ? (double)w[i].ns / (double)w[i].tests : 0);
	} else if (cli->json) {
		printf("{\n  \"bench\": \"memcpy\",\n  \"mode\": \"run\",\n  \"size\": %zu,\n"
		       "  \"align\": %zu,\n  \"async\": %s,\n  \"threads\": [\n", o->size, o->align,
		       o->async ? "true" : "false");
		for (unsigned i = 0; i < started; i++) {
			struct rate r = rate_of(w[i].tests, w[i].bytes, w[i].ns);
			printf("    {\"thread\": %u, \"device\": ", i);
			cli_json_str(stdout, w[i].label.name);
			printf(", \"backend\": ");
			cli_json_str(stdout, w[i].label.backend);
			printf(", \"driver\": ");
			cli_json_str(stdout, w[i].label.driver);
			printf(", \"sim\": %s, \"tests\": %" PRIu64 ", \"failures\": %" PRIu64
			       ", \"iops\": %.2f, \"KBps\": %.0f, \"status\": %d}%s\n",
			       w[i].label.sim ? "true" : "false", w[i].tests, w[i].failures, r.iops,
			       r.kbs, w[i].ret, i + 1 == started ? "" : ",");
		}
		printf("  ],\n  \"total\": {\"tests\": %" PRIu64 ", \"failures\": %" PRIu64
		       ", \"wall_s\": %.6f, \"iops\": %.2f, \"KBps\": %.0f, \"status\": %d}\n}\n",
		       tests, failures, (double)wall / 1e9, total.iops, total.kbs, ret);
	} else {
		printf("offloadctl bench memcpy: %s x %u thread(s), align %zu, %s, device %s (backend %s, "
		       "%s)\n", sz, o->threads, o->align,
		       o->async ? "async queue: enqueue + submit + wait" : "offload_memcpy",
		       lab->name, lab->backend, lab->driver);
		for (unsigned i = 0; i < started; i++) {
			char name[128];
			snprintf(name, sizeof(name), "%.100s-copy%u", w[i].label.name, i);
			summary_line(cli, name, w[i].tests, w[i].failures,
				     rate_of(w[i].tests, w[i].bytes, w[i].ns), w[i].ret);
		}
		if (started > 1) {
			char name[128];
			snprintf(name, sizeof(name), "%.100s-total", w[0].label.name);
			summary_line(cli, name, tests, failures, total, ret);
		}
	}
	free(w);
	return ret || failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
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

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s bench memcpy [OPTIONS]\n\n"
		"Benchmark offload_memcpy, verifying every copy (exit 1 on any mismatch).\n"
		"Without --size: a sweep comparing the library with plain memcpy in the same run.\n"
		"With --size: dmatest-style runs, one summary line per thread.\n\n"
		"options:\n"
		"  --size BYTES        bytes per copy (suffix K, M, G: KiB, MiB, GiB)\n"
		"  --iterations N      copies per thread (default: run for --time)\n"
		"  --threads N         caller threads, each with its own buffers (and queue)\n"
		"  --align OFF         src and dst start OFF bytes past a 4096-byte boundary (0..4095);\n"
		"                      buffers under a page are packed at 64-byte strides, keeping\n"
		"                      OFF modulo 64\n"
		"  --dev DEV           device by name, DT path, compatible or index (default: auto)\n"
		"  --backend NAME      the first device served by backend NAME\n"
		"  --async             use the queue: enqueue a batch, submit, wait for completions\n"
		"  --sweep             the sweep, also with --size given\n"
		"  --min BYTES, --max BYTES, --factor N\n"
		"                      sweep range (default 64 .. MemAvailable/8 as a power of 4,\n"
		"                      16M..256M; x4); the sweep holds 2 buffers of --max bytes\n"
		"  --time SECONDS      time per sweep size, or per run (default 0.4 and 1);\n"
		"                      fractions allowed, or milliseconds with 'ms' (400ms)\n"
		"common options:\n" CLI_COMMON_HELP, prog);
}

static bool parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (errno || end == s || *s < '0' || *s > '9') /* strtoull would take " 5", "+5", "-5" */
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (shift && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
		end += strlen(end);
	if (*end || (shift && v > (SIZE_MAX >> shift)) || v > SIZE_MAX)
		return false;
	*out = (size_t)v << shift;
	return true;
}

static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || end == s || *end || *s < '0' || *s > '9' || v > max)
		return false;
	*out = v;
	return true;
}

/* Resolve --dev / --backend to a device index (or OFFLOAD_DEV_AUTO). */
static int pick_device(const struct cli *cli, offload_ctx *ctx, const struct bm_opts *o)
{
	if (o->dev) {
		int d = cli_dev_find(ctx, o->dev);
		struct offload_dev_info info;
		if (d < 0 || offload_dev_get_info(ctx, d, &info, sizeof(info)) < 0) {
			fprintf(stderr, "%s bench memcpy: no device '%s' (see '%s list')\n", cli->prog,
				o->dev, cli->prog);
			return -ENODEV;
		}
		if (!(info.flags & OFFLOAD_DEVF_USABLE)) {
			fprintf(stderr, "%s bench memcpy: device '%s' (%s) is not usable: %s\n", cli->prog,
				o->dev, info.name, info.usable_reason);
			return -ENODEV;
		}
		if (!(info.caps & OFFLOAD_CAP_MEMCPY)) {
			fprintf(stderr, "%s bench memcpy: device '%s' (%s, %s) cannot copy memory: it is not "
				"a memcpy engine\n", cli->prog, o->dev, info.name, info.kind);
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
		fprintf(stderr, "%s bench memcpy: no usable memcpy device with backend '%s' (see '%s list')\n",
			cli->prog, o->backend, cli->prog);
		return -ENODEV;
	}
	return OFFLOAD_DEV_AUTO;
}

enum {
	OPT_SIZE = 0x2000, OPT_ITER, OPT_THREADS, OPT_ALIGN, OPT_DEV, OPT_BACKEND, OPT_ASYNC,
	OPT_SWEEP, OPT_MIN, OPT_MAX, OPT_FACTOR, OPT_TIME,
};

int bench_memcpy(struct cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
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
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bm_opts o = { .threads = 1, .min = 64, .max = (size_t)256 << 20, .factor = 4 };
	bool time_given = false;
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		bool ok = true;
		switch (c) {
		case 'h':
			usage(stdout, cli->prog);
			return CLI_EXIT_OK;
		case OPT_SIZE: ok = parse_size(optarg, &o.size) && o.size > 0; break;
		case OPT_ITER: ok = parse_uint(optarg, UINT64_MAX / 2, &o.iterations) && o.iterations; break;
		case OPT_THREADS:
			ok = parse_uint(optarg, 256, &v) && v > 0;
			o.threads = (unsigned)v;
			break;
		case OPT_ALIGN: ok = parse_size(optarg, &o.align) && o.align < BM_PAGE; break;
		case OPT_DEV: o.dev = optarg; break;
		case OPT_BACKEND:
			o.backend = optarg;
			if (!optarg[0] || strpbrk(optarg, ", "))
				return cli_usage_error(cli, "--backend \"%s\": expected one backend name",
						       optarg);
			if (!cli_backends_ok(cli, "--backend", optarg))
				return CLI_EXIT_USAGE;
			break;
		case OPT_ASYNC: o.async = true; break;
		case OPT_SWEEP: o.sweep = true; break;
		case OPT_MIN: ok = parse_size(optarg, &o.min) && o.min > 0; break;
		case OPT_MAX:
			ok = parse_size(optarg, &o.max) && o.max > 0;
			o.max_given = true;
			break;
		case OPT_FACTOR:
			ok = parse_uint(optarg, 1024, &v) && v >= 2;
			o.factor = (unsigned)v;
			break;
		case OPT_TIME:
			ok = cli_parse_seconds(optarg, 3600, &o.time_s);
			time_given = true;
			break;
		default:
			ok = cli_common_opt(cli, c, optarg);
			if (!ok) {
				usage(stderr, cli->prog);
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		if (!ok) {
			fprintf(stderr, "%s bench memcpy: bad value '%s' for --%s (see --help)\n", cli->prog,
				optarg ? optarg : "", longopts[c - OPT_SIZE].name);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s bench memcpy: unexpected argument '%s'\n", cli->prog, argv[optind]);
		return CLI_EXIT_USAGE;
	}
	if (o.dev && o.backend) {
		fprintf(stderr, "%s bench memcpy: give --dev or --backend, not both\n", cli->prog);
		return CLI_EXIT_USAGE;
	}
	if (cli->json && cli->csv) {
		fprintf(stderr, "%s bench memcpy: give --json or --csv, not both\n", cli->prog);
		return CLI_EXIT_USAGE;
	}
	if (!o.size)
		o.sweep = true;
	if (o.sweep) {
		if (!o.max_given && !o.size) {
			o.max = max_sweep_default(o.max_why, sizeof(o.max_why));
			if (o.min > o.max)
				o.max = o.min; /* --min alone above the default: sweep that size */
		}
		if (o.size)
			o.min = o.max = o.size;
		if (o.min > o.max || o.threads != 1 || o.iterations) {
			fprintf(stderr, "%s bench memcpy: the sweep runs one caller thread for --time per "
				"size, over --min <= --max\n", cli->prog);
			return CLI_EXIT_USAGE;
		}
	}
	if (!time_given)
		o.time_s = o.sweep ? 0.4 : 1.0;

	offload_ctx *ctx = cli_open_ctx(cli);
	if (!ctx)
		return CLI_EXIT_FAIL;
	int ret = CLI_EXIT_FAIL;
	int dev = pick_device(cli, ctx, &o);
	if (dev >= 0 || dev == OFFLOAD_DEV_AUTO)
		ret = o.sweep ? run_sweep(cli, ctx, dev, &o) : run_threads(cli, ctx, dev, &o);
	offload_ctx_free(ctx);
	return ret;
}
