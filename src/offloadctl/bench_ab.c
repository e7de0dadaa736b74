/* SPDX-License-Identifier: MIT */
/*
 * bench memcpy --ab A,B: time offload_memcpy_dev() on backend A's device and
 * on backend B's, size by size, every copy verified, and report the
 * crossover: the smallest size from which B is faster at it and at every
 * larger size measured. With --write-threshold the crossover is written as
 * B's driver's line of the threshold file the library reads
 * (OFFLOAD_DMAENGINE_CONF, include/offload/memcpy.h). Figures on emulated
 * controllers or under TCG prove the path, never the speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_ab.h"

size_t ab_crossover(const double *a_ns, const double *b_ns, size_t n)
{
	size_t k = n;

	for (size_t i = n; i-- > 0;) {
		if (!(b_ns[i] < a_ns[i]))
			break;
		k = i;
	}
	return k;
}

int ab_write_threshold(const char *path, const char *driver, uint64_t bytes, char *err, size_t len)
{
	char tmp[4096 + 8], line[512];
	size_t dl = strlen(driver);

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp)) {
		snprintf(err, len, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	FILE *in = fopen(path, "re"), *out = fopen(tmp, "we");
	if (!out) {
		int e = errno;
		if (in)
			fclose(in);
		snprintf(err, len, "cannot write %s: %s", tmp, strerror(e));
		return -e;
	}
	bool header = !in;
	if (header)
		fprintf(out, "# liboffload dmaengine offload thresholds: DRIVER BYTES (include/offload/memcpy.h "
			"OFFLOAD_DMAENGINE_CONF)\n");
	while (in && fgets(line, sizeof(line), in)) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, driver, dl) == 0 && (p[dl] == ' ' || p[dl] == '\t'))
			continue; /* the old measurement of this driver */
		fputs(line, out);
	}
	if (in)
		fclose(in);
	fprintf(out, "%s %" PRIu64 "\n", driver, bytes);
	if (fclose(out) != 0 || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		snprintf(err, len, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/* The first usable memcpy device of backend `be`, or -1. */
static int dev_of(offload_ctx *ctx, const char *be)
{
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) == 0 && strcmp(d.backend, be) == 0 &&
		    (d.caps & OFFLOAD_CAP_MEMCPY) && (d.flags & OFFLOAD_DEVF_USABLE))
			return i;
	}
	return -1;
}

/* Is device dev a model (its figures labelled sim)? */
static bool dev_sim(offload_ctx *ctx, int dev)
{
	struct offload_dev_info d;

	return offload_dev_get_info(ctx, dev, &d, sizeof(d)) == 0 && (d.flags & OFFLOAD_DEVF_SIM);
}

/* ns per copy of `len` bytes on dev, the best of 3 passes of about time_s/3; < 0 on failure. */
static double time_dev(offload_ctx *ctx, int dev, char *dst, const char *src, size_t len,
		       double time_s, char *driver, size_t dl, int *err)
{
	struct offload_result res;
	double best = -1;

	memset(dst, 0, len);
	*err = offload_memcpy_dev(ctx, dev, dst, src, len, &res);
	if (*err < 0)
		return -1;
	if (memcmp(dst, src, len) != 0) {
		*err = -EIO;
		return -1;
	}
	if (driver)
		snprintf(driver, dl, "%s", res.driver ? res.driver : "");
	for (int pass = 0; pass < 3; pass++) {
		uint64_t t0 = cli_now_ns(), n = 0, budget = (uint64_t)(time_s / 3 * 1e9);
		do {
			*err = offload_memcpy_dev(ctx, dev, dst, src, len, NULL);
			if (*err < 0)
				return -1;
			n++;
		} while (cli_now_ns() - t0 < budget);
		double per = (double)(cli_now_ns() - t0) / (double)n;
		if (best < 0 || per < best)
			best = per;
	}
	if (memcmp(dst, src, len) != 0) {
		*err = -EIO;
		return -1;
	}
	return best;
}

int bench_ab(struct cli *cli, offload_ctx *ctx, const struct ab_opts *o)
{
	int da = dev_of(ctx, o->a), db = dev_of(ctx, o->b);
	if (da < 0 || db < 0)
		return cli_error(cli, "--ab %s,%s: no usable memcpy device of backend '%s' (see '%s list' "
				 "and '%s doctor')", o->a, o->b, da < 0 ? o->a : o->b, cli->prog, cli->prog);
	enum { MAXN = 64 };
	size_t sizes[MAXN], n = 0;
	double a[MAXN], b[MAXN];
	for (size_t s = o->min; s <= o->max && n < MAXN; s *= o->factor) {
		sizes[n++] = s;
		if (s > SIZE_MAX / o->factor)
			break;
	}
	char *src = malloc(o->max), *dst = malloc(o->max);
	if (!src || !dst) {
		free(src);
		free(dst);
		return cli_error(cli, "out of memory for two %zu-byte buffers", o->max);
	}
	for (size_t i = 0; i < o->max; i++)
		src[i] = (char)(i * 131 + (i >> 11));
	char driver[64] = "";
	bool sa = dev_sim(ctx, da), sb = dev_sim(ctx, db);
	if (!cli->json)
		printf("bench memcpy --ab %s,%s: %s (device %d%s) against %s (device %d%s), best of 3 passes "
		       "per size, every copy verified%s\n%10s %12s %12s\n", o->a, o->b, o->a, da,
		       sa ? ", sim" : "", o->b, db, sb ? ", sim" : "",
		       sa || sb ? " [sim: a model, not hardware]" : "", "bytes", o->a, o->b);
	for (size_t i = 0; i < n; i++) {
		int e;
		a[i] = time_dev(ctx, da, dst, src, sizes[i], o->time_s, NULL, 0, &e);
		if (a[i] >= 0)
			b[i] = time_dev(ctx, db, dst, src, sizes[i], o->time_s, driver, sizeof(driver), &e);
		if (a[i] < 0 || b[i] < 0) {
			free(src);
			free(dst);
			return cli_error(cli, "%zu bytes on %s: %s (%s)", sizes[i], a[i] < 0 ? o->a : o->b,
					 offload_strerror(e), offload_last_error(ctx));
		}
		if (!cli->json)
			printf("%10zu %10.0fns %10.0fns%s\n", sizes[i], a[i], b[i], b[i] < a[i] ? "  <" : "");
	}
	free(src);
	free(dst);
	size_t k = ab_crossover(a, b, n);
	if (cli->json) {
		printf("{\"bench\": \"memcpy-ab\", \"a\": \"%s\", \"b\": \"%s\", \"a_sim\": %s, \"b_sim\": %s, "
		       "\"driver\": ", o->a, o->b, sa ? "true" : "false", sb ? "true" : "false");
		cli_json_str(stdout, driver);
		printf(", \"rows\": [");
		for (size_t i = 0; i < n; i++)
			printf("%s{\"bytes\": %zu, \"a_ns\": %.0f, \"b_ns\": %.0f}", i ? ", " : "", sizes[i],
			       a[i], b[i]);
		printf("], \"crossover\": ");
		if (k < n)
			printf("%zu}\n", sizes[k]);
		else
			printf("null}\n");
	} else if (k < n) {
		printf("crossover: %s is faster than %s from %zu bytes (at every size measured from there "
		       "to %zu)\n", o->b, o->a, sizes[k], sizes[n - 1]);
	} else {
		printf("crossover: none: %s is not faster than %s at every size up to %zu bytes\n", o->b,
		       o->a, sizes[n - 1]);
	}
	if (!o->write_path)
		return CLI_EXIT_OK;
	if (sa || sb)
		return cli_error(cli, "%s not written: a crossover measured on a model (sim) says nothing of "
				 "the hardware that contexts would apply it to", o->write_path);
	if (k == n) {
		fprintf(stderr, "%s: no crossover measured: %s not written\n", cli->prog, o->write_path);
		return CLI_EXIT_OK;
	}
	char err[512];
	if (ab_write_threshold(o->write_path, driver[0] ? driver : o->b, sizes[k], err, sizeof(err)) < 0)
		return cli_error(cli, "%s", err);
	if (!cli->json)
		printf("wrote \"%s %zu\" to %s: contexts opened from now on read it\n",
		       driver[0] ? driver : o->b, sizes[k], o->write_path);
	return CLI_EXIT_OK;
}
