/* SPDX-License-Identifier: MIT */
/*
 * Running out of threads while a context opens (breaker round 3, M1): the
 * models' threads cannot start. The open must still succeed, every engine
 * whose model could not start must be listed unusable with that reason (not a
 * guessed one such as "overlaps another model"), and the CPU must serve the
 * calls. The DSPI model is synchronous (register accesses run it; no thread)
 * and stays usable. pthread_create is wrapped at link time (-Wl,--wrap=pthread_create) to
 * fail with EAGAIN, as it does at RLIMIT_NPROC or the kernel's thread limit.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <offload/offload.h>

#include "testutil.h"

static bool fail_threads;

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	if (fail_threads)
		return EAGAIN;
	return __real_pthread_create(t, a, fn, arg);
}

/* On a 32-bit host the virtual board's K3 UDMA is refused before its model runs (docs/fidelity.md M7). */
#define NO_PROXY "a 32-bit CPU reaches 8-byte ring elements only through the ring accelerator proxy"
static bool no_proxy(const struct offload_dev_info *info)
{
	/* the virtual board's K3 UDMA node */
	return UINTPTR_MAX == 0xFFFFFFFFu && strstr(info->name, "dma-controller@31150000") != NULL;
}

START_TEST(no_threads_for_models)
{
	uint8_t s[4096], d[4096];
	struct offload_dev_info info;
	struct offload_result res;

	fail_threads = true;
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, NULL);
	int n = offload_dev_count(ctx), engines = 0;
	ck_assert_int_ge(n, 4);
	for (int i = 1; i < n; i++) {
		ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
		if (strcmp(info.kind, "dspi") == 0) {
			ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s: %s", info.name, info.usable_reason);
			continue;
		}
		ck_assert_msg(!(info.flags & OFFLOAD_DEVF_USABLE), "%s usable without its model's thread",
			      info.name);
		/* on a 32-bit host the direct UDMA is refused before its model runs (docs/fidelity.md M7) */
		ck_assert_msg(strstr(info.usable_reason, no_proxy(&info) ? NO_PROXY : "cannot start its thread"),
			      "%s: %s", info.name, info.usable_reason);
		engines++;
	}
	ck_assert_int_eq(engines, 2); /* the virtual board's UDMA and EIP97 */
	for (size_t i = 0; i < sizeof(s); i++)
		s[i] = (uint8_t)(i * 7 + 3);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, d, s, sizeof(s), &res), 0);
	ck_assert_int_eq(memcmp(d, s, sizeof(s)), 0);
	ck_assert_str_eq(res.backend, "cpu");
	offload_ctx_free(ctx);

	/* with threads back, the same board has its engines */
	fail_threads = false;
	ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, NULL);
	for (int i = 1; i < offload_dev_count(ctx); i++) {
		ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
		if (no_proxy(&info))
			ck_assert_msg(!(info.flags & OFFLOAD_DEVF_USABLE) && strstr(info.usable_reason, NO_PROXY),
				      "%s: %s", info.name, info.usable_reason);
		else
			ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s: %s", info.name, info.usable_reason);
	}
	offload_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim_resources");
	TCase *tc = tcase_create("threads");

	tcase_add_test(tc, no_threads_for_models);
	suite_add_tcase(s, tc);
	return test_run(s);
}
