/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check suites. */
#ifndef OFFLOAD_TESTUTIL_H
#define OFFLOAD_TESTUTIL_H

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>
#ifdef OFFLOAD_HAVE_SIM
#include <offload/sim.h>
/* The models of the tests: liboffload-sim's provider, NULL in a build without them. */
#define TEST_SIM_PROVIDER offload_sim_provider()
#else
#define TEST_SIM_PROVIDER NULL
#endif

/* Exit status ctest treats as "skipped". */
#define TEST_SKIP 77

/*
 * Time bounds for tests on the sim models, which run in their own threads, so
 * a busy machine can hold a model back for many milliseconds. A phase that
 * must succeed (a copy after recovery, a completion delayed by tens of ms, a
 * teardown) gets TEST_PATIENT_NS: scheduling alone cannot reach it, only a
 * hung model would (and Check's tcase timeout then reports it). A fault that
 * never completes (stuck, lost) reaches any bound, so it may use the short
 * TEST_IMPATIENT_NS to keep the test quick; its outcome does not depend on it.
 */
#define TEST_PATIENT_NS 30000000000ull
#define TEST_IMPATIENT_NS 50000000ull

/*
 * Under user-mode emulation (a cross build's ctest runs every program under
 * qemu-user and sets OFFLOAD_TEST_EMULATOR, tests/CMakeLists.txt), a test
 * leaves out the part the emulator cannot run: test_emulated(why) says so on
 * stderr, with the reason, and returns 1; natively it returns 0.
 */
static inline int test_emulated(const char *why)
{
	const char *e = getenv("OFFLOAD_TEST_EMULATOR");

	if (!e || !*e)
		return 0;
	fprintf(stderr, "SKIP (part, under %s): %s\n", e, why);
	return 1;
}

/*
 * On a 32-bit host the direct UDMA backend refuses a ring-accelerator UDMA
 * (TI CSL csl_ringacc.h: a 32-bit CPU reaches 8-byte ring elements only
 * through the proxy, docs/fidelity.md M7). There, assert that device `dev`
 * is listed unusable with that reason and return true, so that a test of
 * copies through it stops having checked the refusal; on a 64-bit host
 * return false.
 */
static inline bool test_udma_refused_on_32bit(offload_ctx *ctx, int dev)
{
	struct offload_dev_info info;

	if (UINTPTR_MAX > 0xFFFFFFFFu)
		return false;
	ck_assert_int_ge(dev, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, dev, &info, sizeof(info)), 0);
	ck_assert_msg(!(info.flags & OFFLOAD_DEVF_USABLE), "%s is usable on a 32-bit host", info.name);
	ck_assert_msg(strstr(info.usable_reason, "a 32-bit CPU reaches 8-byte ring elements only "
						 "through the ring accelerator proxy") != NULL,
		      "%s: %s", info.name, info.usable_reason);
	return true;
}

/* Open a context with explicit options and no environment influence. */
static inline offload_ctx *test_ctx_open(enum offload_dt_source src, const char *path,
					 uint32_t flags, const char *backends)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	ck_assert_ptr_nonnull(ctx);
	offload_ctx_opts_init(&o);
	o.dt_source = src;
	o.dtb_path = path;
	o.flags = flags | OFFLOAD_CTX_NO_ENV;
	o.backends = backends;
	o.sim_provider = TEST_SIM_PROVIDER;
	int r = offload_ctx_open(ctx, &o);
	ck_assert_msg(r == 0, "offload_ctx_open: %d %s", r, offload_last_error(ctx));
	return ctx;
}

/* Assert that r == err and the context's last error contains `needle` (needs <string.h>). */
#define ck_assert_err(ctx, r, err, needle)                                                        \
	do {                                                                                      \
		int r_ = (r);                                                                     \
		ck_assert_msg(r_ == (err), "expected %d, got %d (%s)", (err), r_,                \
			      offload_last_error(ctx));                                           \
		ck_assert_msg(strstr(offload_last_error(ctx), (needle)) != NULL,                  \
			      "message \"%s\" lacks \"%s\"", offload_last_error(ctx), (needle));  \
	} while (0)

/*
 * Run fn on n threads at once, thread i getting (char *)args + i * stride,
 * and wait for all of them (n <= 16).
 */
static inline void test_run_threads(void *(*fn)(void *), void *args, size_t stride, unsigned n)
{
	pthread_t tid[16];

	ck_assert_uint_le(n, 16);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&tid[i], NULL, fn, (char *)args + i * stride), 0);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
}

/* Run a suite; exit 0 on success, 1 on failure. */
static inline int test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);

	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
