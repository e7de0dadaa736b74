/* SPDX-License-Identifier: MIT */
/* Core: versions, errors, context lifecycle and bad input. */
#include <errno.h>
#include <string.h>

#include "testutil.h"

START_TEST(version_matches_headers)
{
	ck_assert_uint_eq(offload_version(), OFFLOAD_VERSION_NUMBER);
	ck_assert_str_eq(offload_version_string(), OFFLOAD_VERSION_STRING);
}
END_TEST

START_TEST(strerror_names_codes)
{
	ck_assert_str_eq(offload_strerror(-EBADMSG), "authentication tag mismatch");
	ck_assert_str_eq(offload_strerror(EBADMSG), "authentication tag mismatch");
	ck_assert_str_eq(offload_strerror(0), "success");
	ck_assert_ptr_nonnull(offload_strerror(-9999));
}
END_TEST

START_TEST(ctx_lifecycle)
{
	offload_ctx *ctx = offload_ctx_new();
	ck_assert_ptr_nonnull(ctx);
	/* Use before open is a defined error. */
	ck_assert_int_eq(offload_dev_count(ctx), -EBADF);
	ck_assert_int_eq(offload_ctx_close(ctx), -EBADF);

	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_open(ctx, &o), -EBUSY);
	ck_assert_str_eq(offload_ctx_dt_source(ctx), "none");
	ck_assert_int_ge(offload_dev_count(ctx), 1);

	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	/* Double close and use after close: -EBADF with a message. */
	ck_assert_int_eq(offload_ctx_close(ctx), -EBADF);
	ck_assert_int_eq(offload_dev_count(ctx), -EBADF);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "not open"));
	/* A closed context can be opened again. */
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	offload_ctx_free(ctx);
	offload_ctx_free(NULL);
}
END_TEST

START_TEST(ctx_null_and_bad_opts)
{
	ck_assert_int_eq(offload_ctx_open(NULL, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "NULL"));
	ck_assert_int_eq(offload_ctx_close(NULL), -EINVAL);
	ck_assert_int_eq(offload_dev_count(NULL), -EINVAL);

	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.size = 4;
	ck_assert_int_eq(offload_ctx_open(ctx, &o), -EINVAL);

	offload_ctx_opts_init(&o);
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.dt_source = OFFLOAD_DT_NONE;
	o.backends = "cpu,warpdrive";
	ck_assert_int_eq(offload_ctx_open(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "warpdrive"));

	offload_ctx_opts_init(&o);
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.dt_source = OFFLOAD_DT_FILE;
	o.dtb_path = "/nonexistent/board.dtb";
	ck_assert_int_eq(offload_ctx_open(ctx, &o), -ENOENT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "/nonexistent/board.dtb"));

	o.dt_source = OFFLOAD_DT_FILE;
	o.dtb_path = NULL;
	ck_assert_int_eq(offload_ctx_open(ctx, &o), -EINVAL);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(cpu_device_is_always_there)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_dev_info d;

	int i = offload_dev_find(ctx, "cpu");
	ck_assert_int_ge(i, 0);
	ck_assert_int_eq(offload_dev_info(ctx, i, &d), 0);
	ck_assert_str_eq(d.backend, "cpu");
	ck_assert(d.caps & OFFLOAD_CAP_MEMCPY);
	ck_assert(d.flags & OFFLOAD_DEVF_USABLE);
	ck_assert(d.flags & OFFLOAD_DEVF_CPU);
	ck_assert_int_eq(offload_dev_info(ctx, 999, &d), -ENODEV);
	ck_assert_int_eq(offload_dev_info(ctx, -1, &d), -ENODEV);
	ck_assert_int_eq(offload_dev_info(ctx, 0, NULL), -EINVAL);
	ck_assert_int_eq(offload_dev_find(ctx, "no-such-device"), -ENODEV);
	ck_assert_int_eq(offload_dev_find(ctx, NULL), -EINVAL);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(errors_are_per_thread_and_per_context)
{
	offload_ctx *a = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_ctx *b = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_dev_info d;

	ck_assert_int_eq(offload_dev_info(a, 77, &d), -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(a), "77"));
	/* b did not fail: no message of a's leaks into it. */
	ck_assert_str_eq(offload_last_error(b), "");
	offload_ctx_free(a);
	offload_ctx_free(b);
}
END_TEST

START_TEST(close_refuses_with_open_handles)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q;

	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), -EBUSY);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "queue"));
	ck_assert_int_eq(offload_queue_close(q), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	/* free() reclaims forgotten handles. */
	ck_assert_int_eq(offload_ctx_open(ctx, NULL), 0);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), 0);
	offload_ctx_free(ctx);
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, version_matches_headers);
	tcase_add_test(tc, strerror_names_codes);
	tcase_add_test(tc, ctx_lifecycle);
	tcase_add_test(tc, ctx_null_and_bad_opts);
	tcase_add_test(tc, cpu_device_is_always_there);
	tcase_add_test(tc, errors_are_per_thread_and_per_context);
	tcase_add_test(tc, close_refuses_with_open_handles);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(core_suite());
}
