/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: device-tree discovery + policy of one board, as offload_ctx_open()
 * does it, repeated N times on a loaded blob; plus validation and a whole
 * offload_ctx_open() for context. Every iteration's decisions are compared
 * with the first one's: a benchmark that computes something else fails.
 *
 *   bench_dt_discover FILE.dtb [ITERATIONS]     default 2000
 *
 * Prints min / median / mean microseconds per iteration (host CPU, not sim).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dt/dt.h"
#include "policy/policy.h"

#define MAXDEV 64

struct result {
	int n;
	struct ofl_dt_match m[MAXDEV];
	struct ofl_policy p[MAXDEV];
};

static int run_once(const void *fdt, struct result *r)
{
	r->n = ofl_engines_discover(fdt, r->m, MAXDEV);
	if (r->n < 0 || r->n > MAXDEV)
		return -1;
	for (int i = 0; i < r->n; i++)
		if (ofl_engine_policy(fdt, &r->m[i], NULL, &r->p[i]) < 0)
			return -1;
	return 0;
}

static bool same(const struct result *a, const struct result *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->m[i].node != b->m[i].node || memcmp(&a->p[i], &b->p[i], sizeof(a->p[i])) != 0)
			return false;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *ns, int n)
{
	uint64_t sum = 0;

	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	for (int i = 0; i < n; i++)
		sum += ns[i];
	printf("%-28s min %8.1f us  median %8.1f us  mean %8.1f us  (%d runs)\n", what,
	       (double)ns[0] / 1e3, (double)ns[n / 2] / 1e3, (double)sum / n / 1e3, n);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s FILE.dtb [ITERATIONS]\n", argv[0]);
		return 2;
	}
	int iters = argc == 3 ? atoi(argv[2]) : 2000;
	if (iters < 1) {
		fprintf(stderr, "%s: ITERATIONS must be >= 1\n", argv[0]);
		return 2;
	}
	struct ofl_dt dt;
	char err[512];
	if (ofl_dt_load_file(&dt, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	uint64_t *ns = malloc((size_t)iters * sizeof(*ns));
	struct result *ref = calloc(1, sizeof(*ref)), *cur = calloc(1, sizeof(*cur));
	if (!ns || !ref || !cur || run_once(dt.fdt, ref) < 0) {
		fprintf(stderr, "%s: out of memory or discovery failed\n", argv[0]);
		return 1;
	}
	printf("%s: %zu bytes, %d engine node(s)\n", argv[1], dt.size, ref->n);

	for (int i = 0; i < iters; i++) {
		uint64_t t0 = ofl_now_ns();
		int r = run_once(dt.fdt, cur);
		ns[i] = ofl_now_ns() - t0;
		if (r < 0 || !same(ref, cur)) {
			fprintf(stderr, "%s: iteration %d computed different decisions\n", argv[0], i);
			return 1;
		}
	}
	report("discovery + policy", ns, iters);

	for (int i = 0; i < iters; i++) {
		uint64_t t0 = ofl_now_ns();
		int r = ofl_dt_validate(dt.fdt, dt.size, err, sizeof(err));
		ns[i] = ofl_now_ns() - t0;
		if (r < 0) {
			fprintf(stderr, "%s: validation failed: %s\n", argv[0], err);
			return 1;
		}
	}
	report("validation", ns, iters);

	int ctx_iters = iters < 200 ? iters : 200;
	for (int i = 0; i < ctx_iters; i++) {
		struct offload_ctx_opts o;
		offload_ctx *ctx = offload_ctx_new();
		offload_ctx_opts_init(&o);
		o.dt_source = OFFLOAD_DT_BLOB;
		o.dtb_blob = dt.fdt;
		o.dtb_size = dt.size;
		o.flags = OFFLOAD_CTX_NO_ENV;
		uint64_t t0 = ofl_now_ns();
		int r = ctx ? offload_ctx_open(ctx, &o) : -ENOMEM;
		ns[i] = ofl_now_ns() - t0;
		if (r < 0 || offload_dev_count(ctx) < ref->n + 1) {
			fprintf(stderr, "%s: offload_ctx_open: %s\n", argv[0], offload_last_error(ctx));
			return 1;
		}
		offload_ctx_free(ctx);
	}
	report("offload_ctx_open (all)", ns, ctx_iters);
	printf("verified: %d device(s), identical decisions in all %d iterations\n", ref->n, iters);
	free(ns);
	free(ref);
	free(cur);
	ofl_dt_free(&dt);
	return 0;
}
