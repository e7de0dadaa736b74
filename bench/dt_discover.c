/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: device-tree discovery + policy of one board, as offload_ctx_open()
 * does it, repeated N times on a loaded blob; plus validation and a whole
 * offload_ctx_open() (issue #19's target: <= 250 us for the 122 KB
 * k3-j721e-evm tree). Every iteration's decisions are compared with the
 * first one's: a benchmark that computes something else fails.
 *
 *   bench_dt_discover FILE.dtb [ITERATIONS [ROUNDS]]   default 2000, 5
 *   bench_dt_discover --opens N FILE.dtb               N opens only (for callgrind:
 *                                                      bench/ctx_open_callgrind.sh)
 *
 * Each measure runs ROUNDS rounds of ITERATIONS; a round counts only if
 * other processes took under 5 % of the CPUs meanwhile (/proc/stat,
 * src/offloadctl/stats.c), busy ones run again up to 4 x ROUNDS. Prints min /
 * median / mean microseconds per iteration over the kept rounds (host CPU,
 * not sim) and how many rounds were kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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

/* One round's worth of one measure: ns per iteration into ns[0..n-1]; 0 or -1 (message printed). */
typedef int (*measure_fn)(const struct ofl_dt *dt, const struct result *ref, struct result *cur,
			  uint64_t *ns, int n);

static int measure_discovery(const struct ofl_dt *dt, const struct result *ref, struct result *cur,
			     uint64_t *ns, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t t0 = ofl_now_ns();
		int r = run_once(dt->fdt, cur);
		ns[i] = ofl_now_ns() - t0;
		if (r < 0 || !same(ref, cur)) {
			fprintf(stderr, "bench_dt_discover: iteration %d computed different decisions\n", i);
			return -1;
		}
	}
	return 0;
}

static int measure_validation(const struct ofl_dt *dt, const struct result *ref, struct result *cur,
			      uint64_t *ns, int n)
{
	char err[512];

	OFL_UNUSED(ref);
	OFL_UNUSED(cur);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = ofl_now_ns();
		int r = ofl_dt_validate(dt->fdt, dt->size, err, sizeof(err));
		ns[i] = ofl_now_ns() - t0;
		if (r < 0) {
			fprintf(stderr, "bench_dt_discover: validation failed: %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* One whole offload_ctx_open() of the blob (a copy, validated, discovered, bound). */
static int open_once(const struct ofl_dt *dt, int want_devs)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BLOB;
	o.dtb_blob = dt->fdt;
	o.dtb_size = dt->size;
	o.flags = OFFLOAD_CTX_NO_ENV;
	int r = ctx ? offload_ctx_open(ctx, &o) : -ENOMEM;
	if (r < 0 || offload_dev_count(ctx) < want_devs) {
		fprintf(stderr, "bench_dt_discover: offload_ctx_open: %s\n",
			ctx ? offload_last_error(ctx) : "out of memory");
		offload_ctx_free(ctx);
		return -1;
	}
	offload_ctx_free(ctx);
	return 0;
}

static int measure_open(const struct ofl_dt *dt, const struct result *ref, struct result *cur,
			uint64_t *ns, int n)
{
	OFL_UNUSED(cur);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = ofl_now_ns();
		int r = open_once(dt, ref->n + 1);
		ns[i] = ofl_now_ns() - t0;
		if (r < 0)
			return -1;
	}
	return 0;
}

/*
 * Rounds of `iters` iterations until `rounds` were quiet (or 4 x rounds ran):
 * the kept rounds' times pooled, their min / median / mean printed.
 */
static int run_measure(const char *what, measure_fn fn, const struct ofl_dt *dt,
		       const struct result *ref, struct result *cur, int iters, int rounds)
{
	double *kept = malloc((size_t)iters * (size_t)rounds * sizeof(*kept));
	uint64_t *ns = malloc((size_t)iters * sizeof(*ns));
	int nkept = 0, tried = 0, unjudged = 0, rc = 0;
	double least = 1.0;

	if (!kept || !ns) {
		free(kept);
		free(ns);
		return -1;
	}
	for (; nkept < rounds && tried < 4 * rounds; tried++) {
		struct cli_cpu_mark m0, m1;
		cli_cpu_mark(&m0, NULL, 0);
		if (fn(dt, ref, cur, ns, iters) < 0) {
			rc = -1;
			break;
		}
		cli_cpu_mark(&m1, NULL, 0);
		double other = cli_cpu_other_share(&m0, &m1);
		if (other >= 0 && other < least)
			least = other;
		/* too short for /proc/stat's ticks to judge: kept, and said so below */
		if (other < 0 || cli_quiet_resolution(&m0, &m1) > 0.05) {
			unjudged++;
		} else if (other >= 0.05) {
			/* busy: kept aside (the last ones) in case no round is quiet */
			int slot = rounds - 1 - (tried % rounds);
			for (int i = 0; i < iters && nkept <= slot; i++)
				kept[slot * iters + i] = (double)ns[i];
			continue;
		}
		for (int i = 0; i < iters; i++)
			kept[nkept * iters + i] = (double)ns[i];
		nkept++;
	}
	struct cli_stats st;
	if (rc == 0 && !nkept && cli_stats(kept, (size_t)rounds * (size_t)iters, &st) == 0)
		printf("%-28s min %8.1f us  median %8.1f us  mean %8.1f us  BUSY: none of %d rounds was "
		       "quiet (others took %.0f%% of the CPUs or more); these are busy rounds\n",
		       what, st.min / 1e3, st.median / 1e3, st.mean / 1e3, tried, least * 100);
	else if (rc == 0 && nkept && cli_stats(kept, (size_t)nkept * (size_t)iters, &st) == 0)
		printf("%-28s min %8.1f us  median %8.1f us  mean %8.1f us  (%d runs; %d of %d rounds "
		       "kept, others < 5%% of the CPUs%s)\n",
		       what, st.min / 1e3, st.median / 1e3, st.mean / 1e3, nkept * iters, nkept, tried,
		       unjudged ? "; rounds too short to judge were kept: more ITERATIONS" : "");
	free(kept);
	free(ns);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t iters = 2000, rounds = 5, opens = 0;
	int a = 1;

	if (argc == 4 && strcmp(argv[1], "--opens") == 0) {
		if (cli_parse_uint(argv[2], 0, 1, 1000000, &opens) < 0) {
			fprintf(stderr, "%s: --opens N: 1..1000000\n", argv[0]);
			return 2;
		}
		a = 3;
	} else if (argc < 2 || argc > 4 || (argc > 2 && cli_parse_uint(argv[2], 0, 1, 10000000, &iters) < 0) ||
		   (argc > 3 && cli_parse_uint(argv[3], 0, 1, 64, &rounds) < 0)) {
		fprintf(stderr, "usage: %s FILE.dtb [ITERATIONS [ROUNDS]]\n       %s --opens N FILE.dtb\n",
			argv[0], argv[0]);
		return 2;
	}
	struct ofl_dt dt;
	char err[512];
	if (ofl_dt_load_file(&dt, argv[a], err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	struct result *ref = calloc(1, sizeof(*ref)), *cur = calloc(1, sizeof(*cur));
	if (!ref || !cur || run_once(dt.fdt, ref) < 0) {
		fprintf(stderr, "%s: out of memory or discovery failed\n", argv[0]);
		return 1;
	}
	if (opens) {
		for (uint64_t i = 0; i < opens; i++)
			if (open_once(&dt, ref->n + 1) < 0)
				return 1;
		printf("%s: %llu context opens, %d engine node(s) each\n", argv[a],
		       (unsigned long long)opens, ref->n);
		return 0;
	}
	printf("%s: %zu bytes, %d engine node(s)\n", argv[a], dt.size, ref->n);
	int n = (int)iters;
	if (run_measure("discovery + policy", measure_discovery, &dt, ref, cur, n, (int)rounds) < 0 ||
	    run_measure("validation", measure_validation, &dt, ref, cur, n, (int)rounds) < 0 ||
	    run_measure("offload_ctx_open (all)", measure_open, &dt, ref, cur, n, (int)rounds) < 0)
		return 1;
	printf("verified: %d device(s), identical decisions in every iteration\n", ref->n);
	free(ref);
	free(cur);
	ofl_dt_free(&dt);
	return 0;
}
