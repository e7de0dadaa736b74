/* SPDX-License-Identifier: MIT */
/*
 * offloadctl's statistics module (stats.c) against values computed by hand,
 * and the dmatest-shaped rates against the kernel's fixed-point arithmetic
 * worked through by hand (Linux drivers/dma/dmatest.c: dmatest_persec(),
 * dmatest_KBs(), FIXPT_TO_INT, FIXPT_GET_FRAC with FIXPT_SHIFT 8). Python's
 * statistics module checks random samples in stats_check.py.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "testutil.h"

#define EPS 1e-12

START_TEST(eight_values)
{
	/* 2 4 4 4 5 5 7 9: sum 40, mean 5; deviations -3 -1 -1 -1 0 0 2 4, squares sum to 32 */
	const double v[] = { 9, 2, 5, 4, 4, 7, 4, 5 };
	const double copy[] = { 9, 2, 5, 4, 4, 7, 4, 5 };
	struct cli_stats s;

	ck_assert_int_eq(cli_stats(v, 8, &s), 0);
	ck_assert_uint_eq(s.n, 8);
	ck_assert_double_eq_tol(s.mean, 5.0, EPS);
	ck_assert_double_eq_tol(s.median, 4.5, EPS);          /* (4 + 5) / 2 */
	ck_assert_double_eq_tol(s.stddev, sqrt(32.0 / 7.0), EPS); /* 2.1380899352993950 */
	ck_assert_double_eq_tol(s.stddev, 2.1380899352993950, 1e-15);
	ck_assert_double_eq_tol(s.rsd, 100.0 * 2.1380899352993950 / 5.0, 1e-12);
	ck_assert_double_eq(s.min, 2.0);
	ck_assert_double_eq(s.max, 9.0);
	ck_assert_mem_eq(v, copy, sizeof(v)); /* the caller's order is kept (paired rounds) */
}
END_TEST

START_TEST(paired_ratio_is_the_median_of_the_pairs)
{
	/*
	 * Pairs 10/5 = 2, 9/3 = 3, 4/4 = 1, 30/10 = 3, 1/2 = 0.5: sorted 0.5 1 2 3 3,
	 * median 2. The ratio of the medians would be 9/4 = 2.25 (medians of a and
	 * b: 9 and 4), which is what pairing is there to avoid.
	 */
	const double a[] = { 10, 9, 4, 30, 1 }, b[] = { 5, 3, 4, 10, 2 };
	const double zero[] = { 1, 0 }, neg[] = { -1, 1 };
	double r = -1;

	ck_assert_int_eq(cli_paired_ratio(a, b, 5, &r), 0);
	ck_assert_double_eq_tol(r, 2.0, EPS);
	ck_assert_int_eq(cli_paired_ratio(a, b, 4, &r), 0); /* 1 2 3 3: (2 + 3) / 2 */
	ck_assert_double_eq_tol(r, 2.5, EPS);
	ck_assert_int_eq(cli_paired_ratio(a, b, 0, &r), -EINVAL);
	ck_assert_double_eq(r, 0.0);
	r = -1;
	ck_assert_int_eq(cli_paired_ratio(a, zero, 2, &r), -EINVAL);
	ck_assert_double_eq(r, 0.0);
	ck_assert_int_eq(cli_paired_ratio(a, neg, 2, &r), -EINVAL);
	ck_assert_int_eq(cli_paired_ratio(NULL, b, 2, &r), -EINVAL);
}
END_TEST

START_TEST(odd_count_and_one_value)
{
	const double v[] = { 3, 1, 2 };
	struct cli_stats s;

	ck_assert_int_eq(cli_stats(v, 3, &s), 0);
	ck_assert_double_eq_tol(s.median, 2.0, EPS);
	ck_assert_double_eq_tol(s.mean, 2.0, EPS);
	ck_assert_double_eq_tol(s.stddev, 1.0, EPS); /* (1 + 1 + 0) / 2 */
	ck_assert_double_eq_tol(s.rsd, 50.0, EPS);
	/* one value: a median and a mean, no spread */
	ck_assert_int_eq(cli_stats(v, 1, &s), 0);
	ck_assert_double_eq(s.median, 3.0);
	ck_assert_double_eq(s.mean, 3.0);
	ck_assert(isnan(s.stddev));
	ck_assert(isnan(s.rsd));
	ck_assert_int_eq(cli_stats(v, 0, &s), -EINVAL);
	ck_assert_int_eq(cli_stats(NULL, 3, &s), -EINVAL);
}
END_TEST

START_TEST(negative_mean_has_no_rsd)
{
	const double v[] = { -1, -3 };
	struct cli_stats s;

	ck_assert_int_eq(cli_stats(v, 2, &s), 0);
	ck_assert_double_eq_tol(s.mean, -2.0, EPS);
	ck_assert_double_eq_tol(s.stddev, sqrt(2.0), EPS);
	ck_assert(isnan(s.rsd));
}
END_TEST

/* /proc/PID/stat: utime and stime are fields 14 and 15, counted after the last ')'. */
START_TEST(pid_stat_ticks_after_the_name)
{
	ck_assert_uint_eq(cli_pid_stat_ticks("4242 (spin) R 1 4242 4242 0 -1 4194304 90 0 0 0 "
					     "250 31 0 0 20 0 1 0 777"), 281);
	/* a name with blanks and parentheses does not shift the fields */
	ck_assert_uint_eq(cli_pid_stat_ticks("7 (a) b (c)) S 1 7 7 0 -1 0 0 0 0 0 12 3 0"), 15);
	ck_assert_uint_eq(cli_pid_stat_ticks("7 no name"), 0);
	ck_assert_uint_eq(cli_pid_stat_ticks("7 (x) S 1"), 0);
}
END_TEST

/*
 * Others' share of a round: busy ticks minus this process's CPU time (in
 * ns, scaled to ticks) minus the helpers', over every CPU's ticks.
 */
START_TEST(other_share_subtracts_self_and_helpers)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct cli_cpu_mark a = { .busy = 1000, .all = 4000, .self_ns = 0, .helpers = 7, .ok = true };
	struct cli_cpu_mark b = a;

	ck_assert_int_gt(hz, 0);
	b.all = 4200;                                          /* 200 ticks passed on all CPUs */
	b.busy = 1100;                                         /* 100 of them busy */
	b.self_ns = (uint64_t)(50 * 1000000000ull / (uint64_t)hz); /* 50 ticks our own */
	b.helpers = 27;                                        /* 20 our helper's */
	ck_assert_double_eq_tol(cli_cpu_other_share(&a, &b), 30.0 / 200.0, 1e-9);
	ck_assert_double_eq_tol(cli_quiet_resolution(&a, &b), 2.0 / 200.0, 1e-12);
	b.busy = 1060;                                         /* less than ours: nobody else */
	ck_assert_double_eq(cli_cpu_other_share(&a, &b), 0.0);
	b.ok = false;
	ck_assert(cli_cpu_other_share(&a, &b) < 0);
	/* a real mark reads /proc/stat and counts this process */
	struct cli_cpu_mark m;
	cli_cpu_mark(&m, NULL, 0);
	ck_assert(m.ok);
	ck_assert_uint_ge(m.all, m.busy);
	ck_assert_uint_gt(m.self_ns, 0);
}
END_TEST

START_TEST(dmatest_truncates_as_the_kernel)
{
	/*
	 * 809999 copies of 8,000,000 bytes in exactly 100 s: 8099.99 copies/s.
	 * The kernel: runtime 10^8 us; 809999 * 10^6 << 8 / 10^8 = 2073597 (.44
	 * dropped); 2073597 >> 8 = 8099, (2073597 & 0xff) = 253, 253 * 100 >> 8
	 * = 98: it prints 8099.98 (rounding would give 8099.99). KB/s: len >> 10
	 * = 6479992000000 >> 10 = 6328117187; * 10^6 << 8 / 10^8 = 16199979998;
	 * >> 8 = 63281171.
	 */
	struct cli_dmatest_rate r = cli_dmatest_rate(809999, UINT64_C(809999) * 8000000,
						     UINT64_C(100000000000));
	ck_assert_uint_eq(r.iops_int, 8099);
	ck_assert_uint_eq(r.iops_hundredths, 98);
	ck_assert_uint_eq(r.kbs, 63281171);
	/* whole numbers stay whole: 1000 copies of 1 MiB in 1 s */
	r = cli_dmatest_rate(1000, UINT64_C(1000) << 20, UINT64_C(1000000000));
	ck_assert_uint_eq(r.iops_int, 1000);
	ck_assert_uint_eq(r.iops_hundredths, 0);
	ck_assert_uint_eq(r.kbs, 1024000);
	/* 50 copies in 221690 us: 50 * 10^6 << 8 / 221690 = 57738 (.3 dropped); 57738 >> 8 = 225,
	 * (57738 & 0xff) = 138, 138 * 100 >> 8 = 53: 225.53 (225.5397... rounds to 225.54) */
	r = cli_dmatest_rate(50, UINT64_C(50) * 8000000, UINT64_C(221690000));
	ck_assert_uint_eq(r.iops_int, 225);
	ck_assert_uint_eq(r.iops_hundredths, 53);
	/* the ns below a microsecond do not count (ktime_to_us() truncates) */
	struct cli_dmatest_rate a = cli_dmatest_rate(1, 1024, 1999), b = cli_dmatest_rate(1, 1024, 1000);
	ck_assert_uint_eq(a.iops_int, b.iops_int);
	ck_assert_uint_eq(a.kbs, 1000000);
	/* no time, no rate */
	r = cli_dmatest_rate(5, 5, 999);
	ck_assert_uint_eq(r.iops_int, 0);
	ck_assert_uint_eq(r.kbs, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stats");
	TCase *t = tcase_create("stats");

	tcase_add_test(t, eight_values);
	tcase_add_test(t, odd_count_and_one_value);
	tcase_add_test(t, paired_ratio_is_the_median_of_the_pairs);
	tcase_add_test(t, negative_mean_has_no_rsd);
	tcase_add_test(t, dmatest_truncates_as_the_kernel);
	tcase_add_test(t, pid_stat_ticks_after_the_name);
	tcase_add_test(t, other_share_subtracts_self_and_helpers);
	suite_add_tcase(s, t);
	return test_run(s);
}
