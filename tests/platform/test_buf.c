/* SPDX-License-Identifier: MIT */
/* The public DMA-buffer and device-statistics API: plain buffers, bad input, lifetime. */
#include <string.h>

#include "core/internal.h"
#include "platform/platform.h"
#include "testutil.h"

START_TEST(plain_buffer_for_the_cpu)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_buf *b = NULL;
	size_t line = ofl_cache_line();

	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, line + 1, 0, &b), 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(offload_buf_size(b), 2 * line);
	ck_assert_uint_eq((uintptr_t)offload_buf_ptr(b) % line, 0);
	ck_assert_uint_eq(offload_buf_bus_addr(b), 0);
	ck_assert_int_eq(offload_buf_cache_mode(b), OFFLOAD_CACHE_COHERENT);
	memset(offload_buf_ptr(b), 1, offload_buf_size(b));
	ck_assert_int_eq(offload_buf_sync_for_device(b, 0, 2 * line, OFFLOAD_DMA_TO_DEVICE), 0);
	ck_assert_int_eq(offload_buf_sync_for_cpu(b, line, line, OFFLOAD_DMA_FROM_DEVICE), 0);
	/* an open buffer keeps the context from closing */
	ck_assert_int_eq(offload_ctx_close(ctx), -EBUSY);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dma buffer"));
	ck_assert_int_eq(offload_buf_free(b), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(bad_input)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_buf *b = NULL;

	ck_assert_int_eq(offload_buf_alloc(NULL, OFFLOAD_DEV_AUTO, 64, 0, &b), -EINVAL);
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 64, 0, NULL), -EINVAL);
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 0, 0, &b), -EINVAL);
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, SIZE_MAX, 0, &b), -EINVAL);
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 64, 0x80, &b), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "unknown flags 0x80"));
	ck_assert_int_eq(offload_buf_alloc(ctx, 99, 64, 0, &b), -ENODEV);
	ck_assert_int_eq(offload_buf_alloc(ctx, -7, 64, 0, &b), -ENODEV);
	ck_assert_ptr_null(b);

	ck_assert_int_eq(offload_buf_free(NULL), -EINVAL);
	ck_assert_ptr_null(offload_buf_ptr(NULL));
	ck_assert_uint_eq(offload_buf_size(NULL), 0);
	ck_assert_uint_eq(offload_buf_bus_addr(NULL), 0);
	/* No buffer: the answer that is safe to act on is "maintain the caches"
	 * (STREAMING); COHERENT would tell the caller to skip the maintenance a
	 * non-coherent device needs. The caller's bug is named. */
	ck_assert_int_eq(offload_buf_cache_mode(NULL), OFFLOAD_CACHE_STREAMING);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "offload_buf_cache_mode: buffer is NULL"));
	{
		uint64_t not_a_buffer[16] = { 0 };
		ck_assert_int_eq(offload_buf_cache_mode((const offload_buf *)not_a_buffer),
				 OFFLOAD_CACHE_STREAMING);
		ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "not a buffer"));
	}
	ck_assert_int_eq(offload_buf_sync_for_device(NULL, 0, 1, OFFLOAD_DMA_TO_DEVICE), -EINVAL);

	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 100, 0, &b), 0);
	size_t n = offload_buf_size(b);
	ck_assert_int_eq(offload_buf_sync_for_device(b, n, 1, OFFLOAD_DMA_TO_DEVICE), -EINVAL);
	ck_assert_int_eq(offload_buf_sync_for_device(b, 1, n, OFFLOAD_DMA_TO_DEVICE), -EINVAL);
	ck_assert_int_eq(offload_buf_sync_for_cpu(b, 8, SIZE_MAX, OFFLOAD_DMA_FROM_DEVICE), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "outside the"));
	ck_assert_int_eq(offload_buf_sync_for_device(b, 0, n, 0), -EINVAL);
	ck_assert_int_eq(offload_buf_sync_for_cpu(b, 0, n, (enum offload_dma_dir)4), -EINVAL);
	ck_assert_int_eq(offload_buf_sync_for_cpu(b, n, 0, OFFLOAD_DMA_BIDIRECTIONAL), 0);
	/* a buffer the program forgot is freed with the context (ASan checks the leak) */
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(stats_api)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_dev_stats s;
	int cpu = offload_dev_find(ctx, "cpu");

	ck_assert_int_ge(cpu, 0);
	memset(&s, 0xFF, sizeof(s));
	ck_assert_int_eq(offload_dev_get_stats(ctx, cpu, &s, sizeof(s)), 0);
	ck_assert_uint_eq(s.cache_clean_calls, 0);
	ck_assert_uint_eq(s.bytes, 0);
	/* an older, shorter struct: only its bytes are written */
	uint64_t two[3] = { 1, 1, 0xABCD };
	ck_assert_int_eq(offload_dev_get_stats(ctx, cpu, (struct offload_dev_stats *)(void *)two,
					   2 * sizeof(uint64_t)), 0);
	ck_assert_uint_eq(two[0], 0);
	ck_assert_uint_eq(two[2], 0xABCD);
	ck_assert_int_eq(offload_dev_get_stats(ctx, cpu, NULL, sizeof(s)), -EINVAL);
	ck_assert_int_eq(offload_dev_get_stats(ctx, cpu, &s, 0), -EINVAL);
	ck_assert_int_eq(offload_dev_get_stats(ctx, 42, &s, sizeof(s)), -ENODEV);
	ck_assert_int_eq(offload_dev_get_stats(NULL, 0, &s, sizeof(s)), -EINVAL);
	ck_assert_int_eq(offload_dev_stats_reset(ctx, cpu), 0);
	ck_assert_int_eq(offload_dev_stats_reset(ctx, 42), -ENODEV);
	offload_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("buf");
	TCase *t = tcase_create("api");

	tcase_add_test(t, plain_buffer_for_the_cpu);
	tcase_add_test(t, bad_input);
	tcase_add_test(t, stats_api);
	suite_add_tcase(s, t);
	return test_run(s);
}
