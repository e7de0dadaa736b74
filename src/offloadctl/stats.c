/* SPDX-License-Identifier: MIT */
/*
 * offloadctl: the one statistics module of the benchmarks (bench memcpy's
 * median pass, bench cipher's median round and its spread, bench spi's
 * noise estimate), the quiet-round test that keeps rounds in which other
 * processes left the machine alone, and the kernel dmatest's fixed-point
 * rates that the dmatest-shaped summary lines repeat.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

uint64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double cli_now_s(void)
{
	return (double)cli_now_ns() / 1e9;
}

/* ------------------------------------------------------------------ quiet rounds */

uint64_t cli_pid_stat_ticks(const char *text)
{
	uint64_t ut = 0, st = 0;
	/* the command name (field 2) may hold blanks and ')': fields count from the last ')' */
	const char *p = strrchr(text, ')');

	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %" SCNu64 " %" SCNu64,
			 &ut, &st) != 2)
		return 0;
	return ut + st;
}

/* utime + stime of process pid in ticks, 0 if it is gone. */
static uint64_t pid_ticks(int pid)
{
	char path[32], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return cli_pid_stat_ticks(buf);
}

void cli_cpu_mark(struct cli_cpu_mark *m, const int *helper_pids, unsigned nhelpers)
{
	uint64_t v[8] = { 0 };
	struct timespec ts;

	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < nhelpers && i < CLI_MAX_HELPERS; i++)
		m->helpers += pid_ticks(helper_pids[i]);
	FILE *f = fopen("/proc/stat", "re");
	if (f) {
		/* cpu user nice system idle iowait irq softirq steal [guest guest_nice: inside user] */
		m->ok = fscanf(f, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			       " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1], &v[2], &v[3], &v[4],
			       &v[5], &v[6], &v[7]) == 8;
		fclose(f);
	}
	for (int i = 0; i < 8; i++)
		m->all += v[i];
	m->busy = m->all - v[3] - v[4];
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
		m->self_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double cli_cpu_other_share(const struct cli_cpu_mark *a, const struct cli_cpu_mark *b)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (!a->ok || !b->ok || b->all <= a->all || hz <= 0)
		return -1;
	double all = (double)(b->all - a->all);
	double self = (double)(b->self_ns - a->self_ns) * (double)hz / 1e9;
	double other = (double)(b->busy - a->busy) - self - (double)(b->helpers - a->helpers);
	return other <= 0 ? 0 : other / all;
}

double cli_quiet_resolution(const struct cli_cpu_mark *a, const struct cli_cpu_mark *b)
{
	return b->all > a->all ? 2.0 / (double)(b->all - a->all) : 1.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of t[0..n-1], n > 0, which it sorts: the middle value, or the mean of the two. */
static double median_sorting(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int cli_stats(const double *v, size_t n, struct cli_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->stddev = s->rsd = NAN;
	if (!v || n == 0)
		return -EINVAL;
	double *t = malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	memcpy(t, v, n * sizeof(*t));
	s->n = n;
	s->median = median_sorting(t, n);
	s->min = t[0];
	s->max = t[n - 1];
	free(t);

	double sum = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	if (n < 2)
		return 0;
	/* two passes: the squared deviations from the mean, not sum(x^2) - n mean^2 */
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = sqrt(ss / (double)(n - 1));
	if (s->mean > 0)
		s->rsd = 100.0 * s->stddev / s->mean;
	return 0;
}

int cli_paired_ratio(const double *a, const double *b, size_t n, double *out)
{
	*out = 0;
	if (!a || !b || n == 0)
		return -EINVAL;
	double *q = malloc(n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!(b[i] > 0)) {
			free(q);
			return -EINVAL;
		}
		q[i] = a[i] / b[i];
	}
	*out = median_sorting(q, n);
	free(q);
	return 0;
}

/*
 * val per second over runtime_us, in 24.8 fixed point, truncated: the
 * kernel's dmatest_persec() (Linux drivers/dma/dmatest.c, with its FIXPT_*
 * macros, FIXPT_SHIFT 8) for runtimes up to 2^32 us. Beyond that (71 min)
 * the kernel halves the runtime and doubles its scale until the runtime fits
 * 32 bits, which overstates the rate 4 times per step; this keeps the ratio.
 * The product is split so that it does not wrap 64 bits.
 */
static uint64_t persec_fixpt(uint64_t runtime_us, uint64_t val)
{
	const uint64_t scale = UINT64_C(1000000) << 8; /* per second, INT_TO_FIXPT */

	if (runtime_us == 0)
		return 0;
	uint64_t q = val / runtime_us, r = val % runtime_us;
	if (runtime_us > UINT64_MAX / scale) /* r * scale could wrap: long double is close */
		return (uint64_t)((long double)val * scale / runtime_us);
	return q * scale + r * scale / runtime_us;
}

struct cli_dmatest_rate cli_dmatest_rate(uint64_t tests, uint64_t bytes, uint64_t ns)
{
	struct cli_dmatest_rate r;
	uint64_t us = ns / 1000; /* ktime_to_us() truncates */
	uint64_t iops = persec_fixpt(us, tests);

	r.iops_int = iops >> 8;                   /* FIXPT_TO_INT */
	r.iops_hundredths = ((iops & 0xff) * 100) >> 8; /* FIXPT_GET_FRAC */
	r.kbs = persec_fixpt(us, bytes >> 10) >> 8; /* dmatest_KBs() */
	return r;
}

void cli_dmatest_summary(const struct cli *cli, const char *name, uint64_t tests, uint64_t failures,
			 struct cli_dmatest_rate r, int ret)
{
	printf("%s: %s: summary %" PRIu64 " tests, %" PRIu64 " failures %" PRIu64 ".%02u iops %" PRIu64
	       " KB/s (%d)\n", cli->prog, cli_text(name), tests, failures, r.iops_int, r.iops_hundredths,
	       r.kbs, ret);
}
