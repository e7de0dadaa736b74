/* SPDX-License-Identifier: MIT */
/*
 * bench memcpy's two-thread reference (src/offloadctl/bench_peer.c): its
 * copies are exact, and back to back its helper thread spins only during
 * the peer's own passes, blocking between them, so that it does not hold
 * a CPU while the library (whose pool stays out of a split when a worker's
 * CPU is taken) or memcpy is measured. The thread's state comes from the
 * kernel (/proc/self/task/TID/stat, field 3: R running, S sleeping).
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "bench_peer.h"
#include "testutil.h"

/* The state letter of the process's one thread other than the caller, '?' if none. */
static char helper_state(void)
{
	DIR *d = opendir("/proc/self/task");
	long self = syscall(SYS_gettid);
	char st = '?';
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || atol(e->d_name) == self)
			continue;
		char path[300], buf[256];
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			const char *rp = strrchr(buf, ')'); /* the name may hold spaces */
			if (rp && rp[1] == ' ')
				st = rp[2];
		}
		fclose(f);
	}
	closedir(d);
	return st;
}

/* Poll (not timed: up to TEST_PATIENT_NS of scheduling) until the helper is in state `want`. */
static char wait_state(char want)
{
	struct timespec ts = { 0, 1000000 };
	char st = '?';

	for (unsigned long long waited = 0; waited < TEST_PATIENT_NS; waited += 1000000) {
		if ((st = helper_state()) == want)
			break;
		nanosleep(&ts, NULL);
	}
	return st;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 9));
}

static void copy_and_check(struct bench_peer *p, size_t len, size_t off, bool nt)
{
	unsigned char *src = malloc(len + 64), *dst = malloc(len + 64);

	ck_assert(src && dst);
	fill(src, len + 64, (unsigned)len);
	memset(dst, 0xa5, len + 64);
	bench_peer_copy(p, dst + off, src + off, len, nt);
	ck_assert_mem_eq(dst + off, src + off, len);
	for (size_t i = 0; i < off; i++)
		ck_assert_uint_eq(dst[i], 0xa5);
	for (size_t i = off + len; i < len + 64; i++)
		ck_assert_uint_eq(dst[i], 0xa5);
	free(src);
	free(dst);
}

START_TEST(helper_blocks_between_passes)
{
	struct bench_peer *p;
	cpu_set_t before, after;

	if (test_emulated("the helper's thread state is the emulator's"))
		return;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	ck_assert_int_eq(bench_peer_start(&p, false), 0);
	/* never hot yet: blocked */
	ck_assert_int_eq(wait_state('S'), 'S');
	for (int pass = 0; pass < 3; pass++) {
		bench_peer_hot(p, true);
		copy_and_check(p, (size_t)1 << 20, 0, false);
		copy_and_check(p, ((size_t)256 << 10) + 13, 5, bench_peer_has_nt());
		bench_peer_hot(p, false);
		/* between passes the helper gives its CPU back */
		ck_assert_int_eq(wait_state('S'), 'S');
		/* and the caller's affinity is its own again */
		ck_assert_int_eq(sched_getaffinity(0, sizeof(after), &after), 0);
		ck_assert(CPU_EQUAL(&before, &after));
	}
	bench_peer_stop(p);
}
END_TEST

START_TEST(copies_are_exact)
{
	static const size_t lens[] = { 1, 4095, 8191, 8192, 12289, 65536 + 3, (size_t)3 << 20 };
	struct bench_peer *p;

	for (int sleep_between = 0; sleep_between < 2; sleep_between++) {
		ck_assert_int_eq(bench_peer_start(&p, sleep_between), 0);
		bench_peer_hot(p, true);
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			for (int nt = 0; nt < (bench_peer_has_nt() ? 2 : 1); nt++)
				for (size_t off = 0; off < 40; off += 13)
					copy_and_check(p, lens[i], off, nt);
		bench_peer_hot(p, false);
		bench_peer_stop(p);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench_peer");
	TCase *t = tcase_create("bench_peer");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, helper_blocks_between_passes);
	tcase_add_test(t, copies_are_exact);
	suite_add_tcase(s, t);
	return test_run(s);
}
