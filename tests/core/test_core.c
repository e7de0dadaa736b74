/* SPDX-License-Identifier: MIT */
/*
 * Core: versions, errors, context lifecycle, devices, the environment, and
 * bad input for every call of offload/core.h.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h" /* struct offload_ctx: the flags the environment set */
#include "testutil.h"

/* Options that open a context on no device tree, untouched by the environment. */
static struct offload_ctx_opts none_opts(void)
{
	struct offload_ctx_opts o;

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.sim_provider = TEST_SIM_PROVIDER;
	return o;
}

static int open_with(offload_ctx *ctx, const struct offload_ctx_opts *o)
{
	return offload_ctx_open(ctx, o);
}

/* ------------------------------------------------------------------ versions, errors */

START_TEST(version_matches_headers)
{
	char want[32];

	ck_assert_uint_eq(offload_version(), OFFLOAD_VERSION_NUMBER);
	ck_assert_uint_eq(offload_version(), ((unsigned)OFFLOAD_VERSION_MAJOR << 16) |
						     ((unsigned)OFFLOAD_VERSION_MINOR << 8) |
						     (unsigned)OFFLOAD_VERSION_PATCH);
	snprintf(want, sizeof(want), "%d.%d.%d", OFFLOAD_VERSION_MAJOR, OFFLOAD_VERSION_MINOR,
		 OFFLOAD_VERSION_PATCH);
	ck_assert_str_eq(offload_version_string(), want);
	ck_assert_str_eq(offload_version_string(), OFFLOAD_VERSION_STRING);
}
END_TEST

START_TEST(strerror_names_codes)
{
	static const int codes[] = { EINVAL, ENODEV, ENOTSUP, ETIMEDOUT, EIO, EBADMSG,
				     EBADF, EBUSY, ENOSPC, ENOMEM };

	ck_assert_str_eq(offload_strerror(-EBADMSG), "authentication tag mismatch");
	ck_assert_str_eq(offload_strerror(EBADMSG), "authentication tag mismatch");
	ck_assert_str_eq(offload_strerror(-ENOSPC), "queue full");
	/* EBADF is also a dma-buf fd that is not open (buf.h), not only a closed handle */
	ck_assert_str_eq(offload_strerror(-EBADF), "handle is closed, or a file descriptor given is not open");
	ck_assert_str_eq(offload_strerror(0), "success");
	/* Codes the library does not describe fall back to the C library's text. */
	ck_assert_str_eq(offload_strerror(-ENOENT), strerror(ENOENT));
	/*
	 * Codes nobody knows: one static text, not a formatted buffer that the
	 * next call reuses or frees ("Unknown error 1000" from glibc's strerror).
	 */
	const char *a = offload_strerror(-1000);
	ck_assert_str_eq(offload_strerror(-1001), "unknown error");
	ck_assert_str_eq(a, "unknown error");
	ck_assert_str_eq(offload_strerror(9999), "unknown error");
	ck_assert_str_eq(offload_strerror(INT_MAX), "unknown error");
	ck_assert_str_eq(offload_strerror(INT_MIN + 1), "unknown error");
	ck_assert_str_eq(offload_strerror(INT_MIN), "unknown error"); /* no negation overflow */
	/* Every documented code has its own text. */
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		for (size_t j = i + 1; j < sizeof(codes) / sizeof(codes[0]); j++)
			ck_assert_str_ne(offload_strerror(-codes[i]), offload_strerror(-codes[j]));
}
END_TEST

START_TEST(null_context_errors_name_the_call)
{
	struct offload_dev_info d;

	ck_assert_int_eq(offload_ctx_open(NULL, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "offload_ctx_open"));
	ck_assert_int_eq(offload_ctx_close(NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "offload_ctx_close"));
	ck_assert_int_eq(offload_dev_count(NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "offload_dev_count"));
	ck_assert_int_eq(offload_dev_get_info(NULL, 0, &d, sizeof(d)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "NULL"));
	ck_assert_int_eq(offload_dev_find(NULL, "cpu"), -EINVAL);
	ck_assert_ptr_null(offload_ctx_dt_source(NULL));
	offload_ctx_free(NULL);
	offload_ctx_opts_init(NULL);
}
END_TEST

START_TEST(not_a_context_is_refused)
{
	/* Memory that never was a context (zeroed, so no magic): -EINVAL, no crash. */
	void *junk = calloc(1, 4096);
	struct offload_dev_info d;

	ck_assert_ptr_nonnull(junk);
	ck_assert_int_eq(offload_ctx_open(junk, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "not a liboffload context"));
	ck_assert_int_eq(offload_ctx_close(junk), -EINVAL);
	ck_assert_int_eq(offload_dev_count(junk), -EINVAL);
	ck_assert_int_eq(offload_dev_get_info(junk, 0, &d, sizeof(d)), -EINVAL);
	ck_assert_int_eq(offload_dev_find(junk, "cpu"), -EINVAL);
	ck_assert_ptr_null(offload_ctx_dt_source(junk));
	offload_ctx_free(junk); /* ignored: not ours */
	free(junk);
}
END_TEST

/* ------------------------------------------------------------------ lifecycle */

START_TEST(opts_init_defaults)
{
	struct offload_ctx_opts o;

	memset(&o, 0xa5, sizeof(o));
	offload_ctx_opts_init(&o);
	ck_assert_uint_eq(o.size, sizeof(o));
	ck_assert_uint_eq(o.flags, 0);
	ck_assert_int_eq(o.dt_source, OFFLOAD_DT_AUTO);
	ck_assert_ptr_null(o.dtb_path);
	ck_assert_ptr_null(o.dtb_blob);
	ck_assert_uint_eq(o.dtb_size, 0);
	ck_assert_ptr_null(o.backends);
}
END_TEST

START_TEST(ctx_lifecycle)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o = none_opts();

	ck_assert_ptr_nonnull(ctx);
	/* Use before open is a defined error. */
	ck_assert_int_eq(offload_dev_count(ctx), -EBADF);
	ck_assert_int_eq(offload_ctx_close(ctx), -EBADF);
	ck_assert_ptr_null(offload_ctx_dt_source(ctx));

	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_str_eq(offload_last_error(ctx), "");
	ck_assert_int_eq(open_with(ctx, &o), -EBUSY);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "already open"));
	ck_assert_str_eq(offload_ctx_dt_source(ctx), "none");
	ck_assert_int_ge(offload_dev_count(ctx), 1);

	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	/* Double close and use after close: -EBADF with a message. */
	ck_assert_int_eq(offload_ctx_close(ctx), -EBADF);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "not open"));
	ck_assert_int_eq(offload_dev_count(ctx), -EBADF);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "not open"));
	/* A closed context can be opened again. */
	ck_assert_int_eq(open_with(ctx, &o), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(use_after_close_every_call)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o = none_opts();
	struct offload_dev_info d;
	struct offload_result res;
	offload_queue *q = (offload_queue *)&d; /* must be overwritten with NULL */
	char a[16] = "0123456789abcde", b[16];

	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	ck_assert_int_eq(offload_dev_count(ctx), -EBADF);
	ck_assert_int_eq(offload_dev_get_info(ctx, 0, &d, sizeof(d)), -EBADF);
	ck_assert_int_eq(offload_dev_find(ctx, "cpu"), -EBADF);
	ck_assert_ptr_null(offload_ctx_dt_source(ctx));
	ck_assert_int_eq(offload_memcpy(ctx, b, a, sizeof(a)), -EBADF);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "offload_memcpy"));
	ck_assert_int_eq(offload_memcpy_dev(ctx, 0, b, a, sizeof(a), &res), -EBADF);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), -EBADF);
	ck_assert_ptr_null(q);
	ck_assert_int_eq(offload_ctx_close(ctx), -EBADF);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(open_rejects_bad_opts)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	char longlist[400];

	/* Too small for this library's options (an older or broken caller). */
	static const uint32_t sizes[] = { 0, 4, sizeof(struct offload_ctx_opts) - 1 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		o = none_opts();
		o.size = sizes[i];
		ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
		ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "opts->size"));
	}
	/* Larger than ours (a newer caller): the fields we know are used. */
	struct {
		struct offload_ctx_opts o;
		char future[64];
	} big;
	memset(&big, 0, sizeof(big));
	big.o = none_opts();
	big.o.size = sizeof(big);
	ck_assert_int_eq(open_with(ctx, &big.o), 0);
	ck_assert_str_eq(offload_ctx_dt_source(ctx), "none");
	ck_assert_int_eq(offload_ctx_close(ctx), 0);

	/* A caller built before sim_provider: its size ends before it, and what lies there is not read. */
	o = none_opts();
	o.size = offsetof(struct offload_ctx_opts, sim_provider);
	o.sim_provider = (const struct offload_sim_provider *)(uintptr_t)8; /* would crash if used */
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	/* A provider of another ABI is refused, never called. */
	static const struct offload_sim_provider other = { .abi = OFL_SIM_PROVIDER_ABI + 1,
							   .size = sizeof(other), .version = "9.9" };
	o = none_opts();
	o.flags |= OFFLOAD_CTX_SIM;
	o.sim_provider = &other;
	ck_assert_int_eq(open_with(ctx, &o), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "has ABI"));

	/* Flag bits this library does not define (a newer caller, or garbage). */
	static const uint32_t bad_flags[] = { 0xffff0000u, 1u << 3, 1u << 31 };
	for (size_t i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++) {
		o = none_opts();
		o.flags |= bad_flags[i];
		ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
		ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "unknown flags"));
	}

	o = none_opts();
	o.dt_source = (enum offload_dt_source)99;
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dt_source"));

	o = none_opts();
	o.backends = "cpu,warpdrive";
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "warpdrive"));

	memset(longlist, 'c', sizeof(longlist) - 1);
	longlist[sizeof(longlist) - 1] = '\0';
	o.backends = longlist;
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "too long"));

	o = none_opts();
	o.dt_source = OFFLOAD_DT_FILE;
	o.dtb_path = "/nonexistent/board.dtb";
	ck_assert_int_eq(open_with(ctx, &o), -ENOENT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "/nonexistent/board.dtb"));

	o.dtb_path = NULL;
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dtb_path"));

	o = none_opts();
	o.dt_source = OFFLOAD_DT_BLOB;
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dtb_blob"));
	static const char not_fdt[64] = "this is not a flattened device tree";
	o.dtb_blob = not_fdt;
	o.dtb_size = sizeof(not_fdt);
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);

	/* After all those failures the context still opens and closes normally. */
	o = none_opts();
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(allow_list_spacing)
{
	static const char *const lists[] = { "cpu", " cpu ", "cpu,", ",cpu", "cpu, cpu", "" };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, lists[i]);
		ck_assert_int_ge(offload_dev_find(ctx, "cpu"), 0);
		offload_ctx_free(ctx);
	}
}
END_TEST

START_TEST(close_refuses_with_open_handles)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_queue *q;
	struct offload_ctx_opts o = none_opts();

	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), -EBUSY);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "queue"));
	/* Refused close left the context usable. */
	ck_assert_int_ge(offload_dev_count(ctx), 1);
	ck_assert_int_eq(offload_queue_close(q), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	/* free() reclaims forgotten handles (ASan reports a leak otherwise). */
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), 0);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), 0);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ environment */

START_TEST(env_overrides_and_no_env)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;

	/* Check runs each test in its own process: setenv stays here. */
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	setenv("OFFLOAD_DTB", "/nonexistent/env.dtb", 1);
	ck_assert_int_eq(open_with(ctx, &o), -ENOENT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "/nonexistent/env.dtb"));
	o.flags = OFFLOAD_CTX_NO_ENV;
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);

	/* Keywords: OFFLOAD_DTB=none beats a FILE source in the options. */
	setenv("OFFLOAD_DTB", "none", 1);
	o.flags = 0;
	o.dt_source = OFFLOAD_DT_FILE;
	o.dtb_path = "/nonexistent/opts.dtb";
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_str_eq(offload_ctx_dt_source(ctx), "none");
	ck_assert_int_eq(offload_ctx_close(ctx), 0);

	setenv("OFFLOAD_BACKENDS", "warpdrive", 1);
	o.dt_source = OFFLOAD_DT_NONE;
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "warpdrive"));
	o.flags = OFFLOAD_CTX_NO_ENV;
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(env_sim_words)
{
	/* The value, and 1 = simulation on, 0 = off, -EINVAL = open refused. */
	static const struct {
		const char *v;
		int want;
	} words[] = {
		{ "1", 1 }, { "yes", 1 }, { "TRUE", 1 }, { "On", 1 },
		{ "", 0 }, { "0", 0 }, { "no", 0 }, { "False", 0 }, { "OFF", 0 },
		{ "2", -EINVAL }, { "enable", -EINVAL }, { "y", -EINVAL }, { "1 ", -EINVAL },
		{ "-1", -EINVAL },
	};
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		setenv("OFFLOAD_SIM", words[i].v, 1);
		int r = open_with(ctx, &o);
		if (words[i].want < 0) {
			ck_assert_msg(r == words[i].want, "OFFLOAD_SIM=\"%s\": open gave %d", words[i].v, r);
			ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "OFFLOAD_SIM"));
			continue;
		}
#ifndef OFFLOAD_HAVE_SIM
		if (words[i].want) {
			/* no liboffload-sim here: models asked for are refused, naming what to link */
			ck_assert_msg(r == -ENOTSUP, "OFFLOAD_SIM=\"%s\": open gave %d", words[i].v, r);
			ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "link -loffload-sim"));
			continue;
		}
#endif
		ck_assert_int_eq(r, 0);
		ck_assert_msg(!!(ctx->drv.flags & OFFLOAD_CTX_SIM) == words[i].want,
			      "OFFLOAD_SIM=\"%s\": simulation %s", words[i].v,
			      words[i].want ? "not enabled" : "enabled");
		ck_assert_int_eq(offload_ctx_close(ctx), 0);
	}
	/* NO_ENV ignores even a bad value; an explicit flag stays set whatever it says. */
	o.flags = OFFLOAD_CTX_NO_ENV;
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	setenv("OFFLOAD_SIM", "no", 1);
	o.flags = OFFLOAD_CTX_SIM;
#ifdef OFFLOAD_HAVE_SIM
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert(ctx->drv.flags & OFFLOAD_CTX_SIM);
#else
	ck_assert_err(ctx, open_with(ctx, &o), -ENOTSUP, "link -loffload-sim");
#endif
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(ctx_flags_in_effect)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o = none_opts();

	uint32_t f = 0xdeadbeef;
	uint64_t not_a_ctx[32] = { 0 };

	/* The 0.1 call cannot tell a bad handle from "no flags"; the 0.2 one can. */
	ck_assert_uint_eq(offload_ctx_flags(NULL), 0);
	ck_assert_uint_eq(offload_ctx_flags(ctx), 0); /* not open */
	ck_assert_int_eq(offload_ctx_get_flags(NULL, &f), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "offload_ctx_get_flags: context is NULL"));
	ck_assert_uint_eq(f, 0); /* never a stale value */
	f = 0xdeadbeef;
	ck_assert_int_eq(offload_ctx_get_flags((offload_ctx *)not_a_ctx, &f), -EINVAL);
	ck_assert_uint_eq(f, 0);
	f = 0xdeadbeef;
	ck_assert_int_eq(offload_ctx_get_flags(ctx, &f), -EBADF);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "not open"));
	ck_assert_uint_eq(f, 0);
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_uint_eq(offload_ctx_flags(ctx), OFFLOAD_CTX_NO_ENV);
	ck_assert_int_eq(offload_ctx_get_flags(ctx, &f), 0);
	ck_assert_uint_eq(f, OFFLOAD_CTX_NO_ENV);
	ck_assert_int_eq(offload_ctx_get_flags(ctx, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "flags is NULL"));
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	/* Reported, never accepted. */
	o.flags |= OFFLOAD_CTX_DT_FALLBACK;
	ck_assert_int_eq(open_with(ctx, &o), -EINVAL);
	/* The environment's OFFLOAD_SIM shows. */
	o = none_opts();
	o.flags = 0;
	setenv("OFFLOAD_SIM", "on", 1);
#ifdef OFFLOAD_HAVE_SIM
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_uint_eq(offload_ctx_flags(ctx), OFFLOAD_CTX_SIM);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
#else
	ck_assert_err(ctx, open_with(ctx, &o), -ENOTSUP, "link -loffload-sim");
#endif
	unsetenv("OFFLOAD_SIM");
#ifdef OFFLOAD_HAVE_SIM
	o = none_opts();
	o.dt_source = OFFLOAD_DT_BUILTIN; /* chosen: its models may be picked */
	ck_assert_int_eq(open_with(ctx, &o), 0);
	ck_assert_uint_eq(offload_ctx_flags(ctx), OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_SIM);
	ck_assert_int_eq(offload_ctx_close(ctx), 0);
	if (access("/sys/firmware/fdt", R_OK) != 0) {
		o.dt_source = OFFLOAD_DT_AUTO; /* nothing here: the virtual board stands in */
		ck_assert_int_eq(open_with(ctx, &o), 0);
		ck_assert_str_eq(offload_ctx_dt_source(ctx), "builtin:virtual-board");
		ck_assert_uint_eq(offload_ctx_flags(ctx), OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_DT_FALLBACK);
		ck_assert_int_eq(offload_ctx_close(ctx), 0);
		o.flags |= OFFLOAD_CTX_SIM;
		ck_assert_int_eq(open_with(ctx, &o), 0);
		ck_assert_uint_eq(offload_ctx_flags(ctx),
				  OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_SIM | OFFLOAD_CTX_DT_FALLBACK);
		ck_assert_int_eq(offload_ctx_get_flags(ctx, &f), 0);
		ck_assert_uint_eq(f, OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_SIM | OFFLOAD_CTX_DT_FALLBACK);
		ck_assert_int_eq(offload_ctx_close(ctx), 0);
	} else {
		fprintf(stderr, "ctx_flags_in_effect: live device tree here, AUTO fallback not tested\n");
	}
#endif
	offload_ctx_free(ctx);
}
END_TEST

/* The CPU device's transfer reason as the backend words it for n threads. */
static void cpu_reason(offload_ctx *ctx, char *buf, size_t len)
{
	struct offload_dev_info d;
	int i = offload_dev_find(ctx, "cpu");

	ck_assert_int_ge(i, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, i, &d, sizeof(d)), 0);
	snprintf(buf, len, "%s", d.transfer_reason);
}

START_TEST(env_cpu_threads)
{
	char why[256];

	setenv("OFFLOAD_CPU_THREADS", "1", 1);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	cpu_reason(ctx, why, sizeof(why));
	ck_assert_msg(strstr(why, "OFFLOAD_CPU_THREADS=1") != NULL, "%s", why);
	offload_ctx_free(ctx);

	setenv("OFFLOAD_CPU_THREADS", "3", 1);
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	cpu_reason(ctx, why, sizeof(why));
	ck_assert_msg(strstr(why, "over 3 threads") != NULL, "%s", why);
	offload_ctx_free(ctx);

	/* a typo is refused as OFFLOAD_SIM's is, not ignored (issue #18) */
	setenv("OFFLOAD_CPU_THREADS", "lots", 1);
	ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV; /* a process-wide knob: not hidden by NO_ENV */
	ck_assert_err(ctx, offload_ctx_open(ctx, &o), -EINVAL, "OFFLOAD_CPU_THREADS=\"lots\"");
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_CPU_THREADS");
}
END_TEST

/* OFFLOAD_CPU_NT_THRESHOLD sets the size from which the CPU backend streams (x86-64). */
START_TEST(env_cpu_nt_threshold)
{
	char why[512];

	setenv("OFFLOAD_CPU_THREADS", "2", 1); /* a pool, so the reason states the threshold */
	setenv("OFFLOAD_CPU_NT_THRESHOLD", "33554432", 1);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	cpu_reason(ctx, why, sizeof(why));
#if defined(__x86_64__)
	ck_assert_msg(strstr(why, "non-temporal from 32 MiB (OFFLOAD_CPU_NT_THRESHOLD") != NULL, "%s", why);
#else
	ck_assert_msg(strstr(why, "non-temporal from never (not on this architecture") != NULL, "%s", why);
#endif
	offload_ctx_free(ctx);
	setenv("OFFLOAD_CPU_NT_THRESHOLD", "5000000", 1);
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	cpu_reason(ctx, why, sizeof(why));
#if defined(__x86_64__)
	ck_assert_msg(strstr(why, "non-temporal from 5000000 B (") != NULL, "%s", why);
#endif
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_CPU_NT_THRESHOLD");
	unsetenv("OFFLOAD_CPU_THREADS");
}
END_TEST

/*
 * Every OFFLOAD_* variable the library reads is checked the same way when a
 * context opens: a malformed value fails the open with -EINVAL and a
 * sentence naming the variable; a well-formed one (or empty) opens.
 */
START_TEST(env_every_variable_checked)
{
	static const struct {
		const char *name, *bad, *good;
	} vars[] = {
		{ "OFFLOAD_CPU_THREADS", "0", "2" },
		{ "OFFLOAD_CPU_THREADS", "65", "64" },
		{ "OFFLOAD_CPU_THREADS", "+4", "4" },
		{ "OFFLOAD_CPU_NT_THRESHOLD", "32M", "33554432" },
		{ "OFFLOAD_CPU_NT_THRESHOLD", "0", "1" },
		{ "OFFLOAD_DEVMEM", "enable", "0" },
		{ "OFFLOAD_SPIDEV_DMA_MINALIGN", "96", "128" },
		{ "OFFLOAD_DSPI_CLOCK_HZ", "100MHz", "100000000" },
		{ "OFFLOAD_DSPI_MODE", "xpsi", "eoq" },
		{ "OFFLOAD_UDMA_CFG", "dirct", "direct" },
		{ "OFFLOAD_EIP97_RING_MEM", "cache", "cached" },
		{ "OFFLOAD_DMA_PROVIDER", "udmabuf", "u-dma-buf" },
		{ "OFFLOAD_SIM_UNCACHED", "devce", "device" },
		{ "OFFLOAD_SIM_SOC_REVISION", "SR3.0", "SR1.0" },
		{ "OFFLOAD_SIM", "2", "0" },
	};
	struct offload_ctx_opts o;

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		offload_ctx *ctx = offload_ctx_new();
		char want[64];
		setenv(vars[i].name, vars[i].bad, 1);
		int r = offload_ctx_open(ctx, &o);
		snprintf(want, sizeof(want), "%s=\"%s\"", vars[i].name, vars[i].bad);
		ck_assert_msg(r == -EINVAL && strstr(offload_last_error(ctx), want),
			      "%s: open gave %d: %s", want, r, offload_last_error(ctx));
		offload_ctx_free(ctx);
		ctx = offload_ctx_new();
		setenv(vars[i].name, vars[i].good, 1);
		r = offload_ctx_open(ctx, &o);
		ck_assert_msg(r == 0, "%s=%s: open gave %d: %s", vars[i].name, vars[i].good, r,
			      offload_last_error(ctx));
		offload_ctx_free(ctx);
		ctx = offload_ctx_new();
		setenv(vars[i].name, "", 1);
		ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
		offload_ctx_free(ctx);
		unsetenv(vars[i].name);
	}
}
END_TEST

/* ------------------------------------------------------------------ devices */

START_TEST(cpu_device_is_always_there)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_dev_info d;
	int n = offload_dev_count(ctx);

	int i = offload_dev_find(ctx, "cpu");
	ck_assert_int_ge(i, 0);
	ck_assert_int_lt(i, n);
	ck_assert_int_eq(offload_dev_get_info(ctx, i, &d, sizeof(d)), 0);
	ck_assert_int_eq(d.index, i);
	ck_assert_str_eq(d.name, "cpu");
	ck_assert_str_eq(d.kind, "cpu");
	ck_assert_str_eq(d.dt_path, "");
	ck_assert_str_eq(d.compatible, "");
	ck_assert_str_eq(d.status, "okay");
	ck_assert_str_eq(d.backend, "cpu");
	ck_assert(d.caps & OFFLOAD_CAP_MEMCPY);
	ck_assert(d.flags & OFFLOAD_DEVF_USABLE);
	ck_assert(d.flags & OFFLOAD_DEVF_ENABLED);
	ck_assert(d.flags & OFFLOAD_DEVF_CPU);
	ck_assert(!(d.flags & (OFFLOAD_DEVF_SIM | OFFLOAD_DEVF_DIRECT | OFFLOAD_DEVF_KERNEL)));
	ck_assert_int_eq(d.coherent, 1);
	ck_assert_int_eq(d.cache_mode, OFFLOAD_CACHE_COHERENT);
	ck_assert_uint_eq(d.align_bytes, 1);
	ck_assert_uint_eq(d.threshold_bytes, 0);
	ck_assert_str_eq(d.transfer_mode, "memcpy");
	ck_assert_uint_eq(d.phys_size, 0);
	/* Every decision carries a reason. */
	const char *reasons[] = { d.usable_reason, d.coherent_reason, d.cache_reason,
				  d.burst_reason, d.align_reason, d.threshold_reason,
				  d.transfer_reason };
	for (size_t k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++)
		ck_assert_msg(reasons[k] && strlen(reasons[k]) > 10, "reason %zu is empty", k);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(dev_info_bad_input)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_dev_info d;
	int n = offload_dev_count(ctx);

	ck_assert_int_eq(offload_dev_get_info(ctx, n, &d, sizeof(d)), -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "no device"));
	ck_assert_int_eq(offload_dev_get_info(ctx, -1, &d, sizeof(d)), -ENODEV);
	ck_assert_int_eq(offload_dev_get_info(ctx, INT_MAX, &d, sizeof(d)), -ENODEV);
	ck_assert_int_eq(offload_dev_get_info(ctx, INT_MIN, &d, sizeof(d)), -ENODEV);
	ck_assert_int_eq(offload_dev_get_info(ctx, 0, NULL, sizeof(struct offload_dev_info)), -EINVAL);
	ck_assert_int_eq(offload_dev_find(ctx, "no-such-device"), -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "no-such-device"));
	ck_assert_int_eq(offload_dev_find(ctx, ""), -ENODEV);
	ck_assert_int_eq(offload_dev_find(ctx, NULL), -EINVAL);
	offload_ctx_free(ctx);

	/* An unknown backend's *why is never a previous call's text. */
	const char *why = NULL;
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "cpu");
	ck_assert_int_eq(offload_backend_status(ctx, "cpu", &why), 1);
	ck_assert_str_eq(why, "");
	ck_assert_int_eq(offload_backend_status(ctx, "udma", &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "allow-list"));
	ck_assert_int_eq(offload_backend_status(ctx, "warpdrive", &why), -ENOENT);
	ck_assert_str_eq(why, "not built into this library");
	ck_assert_int_eq(offload_backend_status(ctx, "udma", &why), 0);
	ck_assert_int_eq(offload_backend_status(ctx, NULL, &why), -EINVAL);
	ck_assert_str_eq(why, "");
	offload_ctx_free(ctx);
}
END_TEST

/*
 * offload_backend_name(): the backends this build has, in the probe order
 * offload/core.h documents (cpu, udma, eip97, dspi, kcapi, spidev, each one
 * only when built), NULL past the end; each is a name offload_backend_status()
 * knows. offload_backend_caps(): what each backend implements, as
 * documented per backend (udma copies, dspi/spidev do SPI, eip97/kcapi
 * crypto, the CPU memcpy, and crypto when built with OpenSSL).
 */
START_TEST(backend_names_in_probe_order)
{
	static const struct {
		const char *name;
		uint32_t caps;
		bool built;
	} want[] = {
#ifdef OFFLOAD_HAVE_OPENSSL
		{ "cpu", OFFLOAD_CAP_MEMCPY | OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH, true },
#else
		{ "cpu", OFFLOAD_CAP_MEMCPY, true }, /* software crypto is OpenSSL's */
#endif
#ifdef OFFLOAD_HAVE_DMAENGINE
		{ "dmaengine", OFFLOAD_CAP_MEMCPY, true }, /* before udma: backends/CMakeLists.txt */
#endif
#ifdef OFFLOAD_HAVE_UDMA
		{ "udma", OFFLOAD_CAP_MEMCPY, true },
#endif
#ifdef OFFLOAD_HAVE_EIP97
		{ "eip97", OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH, true },
#endif
#ifdef OFFLOAD_HAVE_DSPI
		{ "dspi", OFFLOAD_CAP_SPI, true },
#endif
#ifdef OFFLOAD_HAVE_KCAPI
		{ "kcapi", OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH, true },
#endif
#ifdef OFFLOAD_HAVE_SPIDEV
		{ "spidev", OFFLOAD_CAP_SPI, true },
#endif
	};
	const unsigned n = sizeof(want) / sizeof(want[0]);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);

	for (unsigned i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(offload_backend_name(i));
		ck_assert_str_eq(offload_backend_name(i), want[i].name);
		ck_assert_uint_eq(offload_backend_caps(i), want[i].caps);
		ck_assert_int_ge(offload_backend_status(ctx, want[i].name, NULL), 0);
	}
	ck_assert_ptr_null(offload_backend_name(n));
	ck_assert_ptr_null(offload_backend_name(n + 1));
	ck_assert_ptr_null(offload_backend_name(UINT_MAX));
	ck_assert_uint_eq(offload_backend_caps(n), 0);
	ck_assert_uint_eq(offload_backend_caps(UINT_MAX), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(errors_are_per_context)
{
	offload_ctx *a = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_ctx *b = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct offload_dev_info d;

	ck_assert_int_eq(offload_dev_get_info(a, 77, &d, sizeof(d)), -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(a), "77"));
	/* b did not fail: no message of a's leaks into it. */
	ck_assert_str_eq(offload_last_error(b), "");
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "77"));
	offload_ctx_free(a);
	offload_ctx_free(b);
}
END_TEST

/*
 * offload_last_error() is the message of the most recent failed call
 * (core.h): calls that succeed in between, copies and crypto included, leave
 * it. (They used to clear it before running the backend.)
 */
START_TEST(success_keeps_the_last_failure_message)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_hash_session *hs;
	offload_cipher_session *cs;
	struct offload_dev_info d;
	uint8_t key[16] = { 0 }, in[16] = { 0 }, out[32];
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .in = in, .out = out, .len = 16 };

	ck_assert_int_eq(offload_hash_open(ctx, OFFLOAD_HASH_SHA256, NULL, 0, &hs), 0);
	ck_assert_int_eq(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_ECB, key, 16, &cs), 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, 77, &d, sizeof(d)), -ENODEV);
	char want[OFL_ERRMSG_LEN];
	snprintf(want, sizeof(want), "%s", offload_last_error(ctx));
	ck_assert_ptr_nonnull(strstr(want, "77"));
	ck_assert_int_eq(offload_hash_update(hs, "abc", 3), 0);
	ck_assert_int_eq(offload_hash_final(hs, out, sizeof(out), NULL), 32);
	ck_assert_int_eq(offload_hash(ctx, OFFLOAD_HASH_SHA256, NULL, 0, "abc", 3, out, sizeof(out), NULL), 32);
	ck_assert_int_eq(offload_cipher_session_run(cs, &op, sizeof(op)), 0);
	ck_assert_int_eq(offload_memcpy(ctx, out, in, 16), 0);
	ck_assert_str_eq(offload_last_error(ctx), want);
	offload_hash_close(hs);
	offload_cipher_session_close(cs);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * A backend that fails without saying why gets the generic sentence, not
 * the message of an earlier failure on the context; one that says why after
 * the mark gets its own sentence, under the API function's name.
 */
START_TEST(backend_failure_gets_its_own_reason)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	struct ofl_device *dev = ofl_ctx_device(ctx, 0);
	struct offload_dev_info d;
	char want[OFL_ERRMSG_LEN];

	ck_assert_ptr_nonnull(dev);
	ck_assert_int_eq(offload_dev_get_info(ctx, 77, &d, sizeof(d)), -ENODEV);
	uint64_t mark = ofl_err_mark();
	ck_assert_int_eq(ofl_backend_err(ctx, "offload_hash_update", dev, -EIO, mark), -EIO);
	snprintf(want, sizeof(want), "offload_hash_update: backend %s failed on %s: %s", dev->backend->name,
		 dev->name, offload_strerror(-EIO));
	ck_assert_str_eq(offload_last_error(ctx), want);

	mark = ofl_err_mark();
	ofl_err(ctx, -EIO, "cpu backend: EVP_DigestUpdate failed");
	ck_assert_int_eq(ofl_backend_err(ctx, "offload_hash_update", dev, -EIO, mark), -EIO);
	ck_assert_str_eq(offload_last_error(ctx), "offload_hash_update: cpu backend: EVP_DigestUpdate failed");
	offload_ctx_free(ctx);
}
END_TEST

/*
 * Each context keeps its own last message on a thread, however many
 * contexts fail in turn on it (issue #18: one slot per thread kept 1 of 300).
 */
START_TEST(errors_kept_for_every_context)
{
	enum { N = 300 };
	static offload_ctx *c[N];
	struct offload_dev_info d;
	char want[32];
	int lost = 0;

	for (int i = 0; i < N; i++) {
		c[i] = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
		ck_assert_int_eq(offload_dev_get_info(c[i], 1000 + i, &d, sizeof(d)), -ENODEV);
	}
	for (int i = 0; i < N; i++) {
		snprintf(want, sizeof(want), "%d", 1000 + i);
		lost += strstr(offload_last_error(c[i]), want) == NULL;
	}
	ck_assert_msg(lost == 0, "%d of %d contexts lost their message", lost, N);
	/* NULL: the most recent failure of any context on this thread */
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "1299"));
	/* a success that clears (a crypto call) clears only its own context's message */
	static const uint8_t key[16];
	uint8_t in[16] = { 0 }, out[16];
	struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_ECB, .dir = OFFLOAD_ENCRYPT, .key = key,
					.key_len = 16, .in = in, .out = out, .len = 16 };
	int r = offload_cipher(c[5], &op, sizeof(op));
	if (r != -ENOTSUP && r != -ENODEV) { /* a build without OpenSSL has no CPU crypto */
		ck_assert_int_eq(r, 0);
		ck_assert_ptr_nonnull(strstr(offload_last_error(c[4]), "1004"));
		ck_assert_ptr_nonnull(strstr(offload_last_error(c[6]), "1006"));
	}
	for (int i = 0; i < N; i++)
		offload_ctx_free(c[i]);
}
END_TEST

struct other_thread {
	offload_ctx *ctx;
	char seen[64];
};

static void *read_error_elsewhere(void *arg)
{
	struct other_thread *t = arg;

	snprintf(t->seen, sizeof(t->seen), "%s", offload_last_error(t->ctx));
	return NULL;
}

START_TEST(errors_are_per_thread)
{
	struct other_thread t = { .ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL) };
	struct offload_dev_info d;
	pthread_t tid;

	ck_assert_int_eq(offload_dev_get_info(t.ctx, 55, &d, sizeof(d)), -ENODEV);
	ck_assert_int_eq(pthread_create(&tid, NULL, read_error_elsewhere, &t), 0);
	ck_assert_int_eq(pthread_join(tid, NULL), 0);
	ck_assert_str_eq(t.seen, "");
	ck_assert_ptr_nonnull(strstr(offload_last_error(t.ctx), "55"));
	offload_ctx_free(t.ctx);
}
END_TEST

/* ------------------------------------------------------------------ fork */

/*
 * A child inherits the context but not its threads (the CPU backend's
 * workers, a model's thread): it may only close or free it, without
 * joining threads it does not have, and must not touch the parent's
 * engines. The parent's context keeps working.
 */
static void fork_child_releases(enum offload_dt_source src, uint32_t flags, const char *dev)
{
	size_t n = (size_t)16 << 20; /* above the CPU backend's split size: workers start */
	unsigned char *a = malloc(n), *b = malloc(n);
	offload_ctx *ctx = test_ctx_open(src, NULL, flags, NULL);
	offload_queue *q;
	struct offload_queue_opts qo;
	struct offload_completion c;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	memset(b, 0x5a, n);
	offload_queue_opts_init(&qo);
	if (dev)
		qo.dev = offload_dev_find(ctx, dev);
	ck_assert_int_ge(qo.dev, OFFLOAD_DEV_AUTO);
	if (dev && test_udma_refused_on_32bit(ctx, qo.dev)) {
		offload_ctx_free(ctx);
		free(a);
		free(b);
		return;
	}
	ck_assert_int_eq(offload_memcpy_dev(ctx, qo.dev, a, b, n, NULL), 0);
	ck_assert_int_eq(offload_queue_open(ctx, &qo, &q), 0);
	ck_assert_int_ge(offload_queue_copy(q, a, b, n, 1), 0);
	ck_assert_int_eq(offload_queue_submit(q), 1);

	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int bad = 0;
		alarm(20); /* a hang becomes SIGALRM, which the parent reports */
		bad |= offload_memcpy(ctx, a, b, 4096) != -EBADF;
		bad |= strstr(offload_last_error(ctx), "fork") == NULL;
		bad |= offload_memcpy(ctx, a, b, n) != -EBADF;
		bad |= offload_dev_count(ctx) != -EBADF;
		bad |= offload_queue_submit(q) != -EBADF;
		bad |= offload_queue_wait(q, &c, 1, 1000) != -EBADF;
		bad |= offload_ctx_close(ctx) != 0;                 /* the queue is still open */
		bad |= offload_ctx_close(ctx) != -EBADF;            /* ... now it is closed */
		offload_ctx_free(ctx);
		/* The child's own context works, with workers of its own. */
		size_t m = n;
		if (test_emulated("a forked child of a threaded program cannot start threads "
				  "(QEMU 7.2 user mode aborts in cpu_exec); the child's own copy "
				  "stays below the split size"))
			m = 4096;
		offload_ctx *mine = offload_ctx_new();
		struct offload_ctx_opts o = none_opts();
		bad |= mine == NULL || offload_ctx_open(mine, &o) != 0;
		memset(b, 0x33, m);
		bad |= offload_memcpy(mine, a, b, m) != 0 || memcmp(a, b, m) != 0;
		offload_ctx_free(mine);
		_exit(bad ? 3 : 0);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "child killed by signal %d (hung in close/free?)",
		      WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	ck_assert_int_eq(WEXITSTATUS(st), 0);

	/* The parent's workers and queue were left alone. */
	ck_assert_int_eq(offload_queue_wait(q, &c, 1, 10 * 1000 * 1000), 1);
	ck_assert_int_eq(c.status, 0);
	memset(b, 0xc3, n);
	ck_assert_int_eq(offload_memcpy_dev(ctx, qo.dev, a, b, n, NULL), 0);
	ck_assert_int_eq(memcmp(a, b, n), 0);
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
	free(a);
	free(b);
}

START_TEST(fork_child_may_close_inherited_ctx)
{
	setenv("OFFLOAD_CPU_THREADS", "4", 1); /* a worker pool even on one CPU */
	fork_child_releases(OFFLOAD_DT_NONE, 0, NULL);
}
END_TEST

#ifdef OFFLOAD_HAVE_SIM
START_TEST(fork_child_may_close_inherited_sim_ctx)
{
	/* The virtual board's first UDMA: its model runs on a thread of the parent. */
	fork_child_releases(OFFLOAD_DT_BUILTIN, OFFLOAD_CTX_SIM, "dma-controller@31150000");
}
END_TEST
#endif

/*
 * Every handle of an inherited context refuses in the child, close calls
 * included (offload.h: only offload_ctx_close/free may be given an inherited
 * context or handle): the child must not drive the parent's DSPI, reset its
 * EIP97 ring or issue cache/dma-buf operations on its buffers (breaker 3:
 * xfer succeeded on the DSPI, session run timed out and reset a ring).
 */
#ifdef OFFLOAD_HAVE_SIM
START_TEST(fork_child_refuses_inherited_handles)
{
	static const uint8_t key[16];
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, NULL);
	int eip = offload_dev_find(ctx, "crypto@4000000");
	offload_cipher_session *cs;
	offload_hash_session *hs;
	offload_spi *spi;
	offload_buf *buf;
	offload_queue *q;
	struct offload_completion cpl;
	uint8_t in[16] = { 0 }, out[16], md[32], tx[4] = { 1, 2, 3, 4 }, rx[4];
	struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = sizeof(tx) };
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .in = in, .out = out, .len = 16 };
	struct offload_spi_info si;

	ck_assert_int_ge(eip, 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(ctx, eip, OFFLOAD_CIPHER_AES_ECB, key, 16, &cs), 0);
	ck_assert_int_eq(offload_hash_open_dev(ctx, eip, OFFLOAD_HASH_SHA256, NULL, 0, &hs), 0);
	ck_assert_int_eq(offload_spi_open(ctx, "/bus@100000/spi@2100000/loopback@0", NULL, &spi), 0);
	ck_assert_int_eq(offload_buf_alloc(ctx, eip, 4096, 0, &buf), 0);
	ck_assert_int_eq(offload_queue_open(ctx, NULL, &q), 0);

	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int bad = 0, i = 0;
		alarm(20);
#define REFUSED(call) (i++, (call) != -EBADF || !strstr(offload_last_error(ctx), "fork") ? (bad |= 1 << i) : 0)
		REFUSED(offload_cipher_session_run(cs, &op, sizeof(op)));
		REFUSED(offload_hash_update(hs, in, sizeof(in)));
		REFUSED(offload_hash_final(hs, md, sizeof(md), NULL));
		REFUSED(offload_spi_transfer(spi, &x, 1));
		REFUSED(offload_spi_get_info(spi, &si, sizeof(si)));
		REFUSED(offload_spi_set_mode(spi, OFFLOAD_SPI_MODE_0));
		REFUSED(offload_spi_set_speed(spi, 1000000));
		REFUSED(offload_buf_sync_for_device(buf, 0, 64, OFFLOAD_DMA_TO_DEVICE));
		REFUSED(offload_buf_sync_for_cpu(buf, 0, 64, OFFLOAD_DMA_FROM_DEVICE));
		REFUSED(offload_cipher_session_close(cs));
		REFUSED(offload_hash_close(hs));
		REFUSED(offload_spi_close(spi));
		REFUSED(offload_buf_free(buf));
		/* a queue: the enqueue and the two queries too (offload.h: every other call) */
		REFUSED(offload_queue_copy(q, out, in, sizeof(in), 7));
		REFUSED(offload_queue_capacity(q));
		REFUSED(offload_queue_dev(q));
		REFUSED(offload_queue_submit(q));
		REFUSED(offload_queue_poll(q, &cpl, 1));
		REFUSED(offload_queue_wait(q, &cpl, 1, 1000));
		REFUSED(offload_queue_close(q));
#undef REFUSED
		if (bad)
			fprintf(stderr, "child: calls not refused (bit i = call i): %#x\n", bad);
		offload_ctx_free(ctx);
		_exit(bad ? 3 : 0);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "child killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	/* the parent's handles still work: AES-128(0^128, key 0^128) = 66e94bd4ef8a2c3b884cfa59ca342b2e (FIPS-197 style KAT) */
	static const uint8_t want[16] = { 0x66, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b,
					  0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34, 0x2b, 0x2e };
	ck_assert_int_eq(offload_cipher_session_run(cs, &op, sizeof(op)), 0);
	ck_assert_int_eq(memcmp(out, want, 16), 0);
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 4);
	ck_assert_int_eq(memcmp(rx, tx, 4), 0);
	ck_assert_int_eq(offload_cipher_session_close(cs), 0);
	ck_assert_int_eq(offload_hash_close(hs), 0);
	ck_assert_int_eq(offload_spi_close(spi), 0);
	ck_assert_int_eq(offload_buf_free(buf), 0);
	/* the parent's queue is untouched by the child: still empty, still copies */
	ck_assert_int_gt(offload_queue_capacity(q), 0);
	ck_assert_int_ge(offload_queue_copy(q, out, tx, sizeof(tx), 9), 0);
	ck_assert_int_eq(offload_queue_submit(q), 1);
	ck_assert_int_eq(offload_queue_wait(q, &cpl, 1, 5000000), 1);
	ck_assert_int_eq(cpl.status, 0);
	ck_assert_uint_eq(cpl.user_data, 9);
	ck_assert_int_eq(memcmp(out, tx, sizeof(tx)), 0);
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
}
END_TEST
#endif

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, version_matches_headers);
	tcase_add_test(tc, strerror_names_codes);
	tcase_add_test(tc, null_context_errors_name_the_call);
	tcase_add_test(tc, not_a_context_is_refused);
	tcase_add_test(tc, opts_init_defaults);
	tcase_add_test(tc, ctx_lifecycle);
	tcase_add_test(tc, use_after_close_every_call);
	tcase_add_test(tc, open_rejects_bad_opts);
	tcase_add_test(tc, allow_list_spacing);
	tcase_add_test(tc, close_refuses_with_open_handles);
	tcase_add_test(tc, env_overrides_and_no_env);
	tcase_add_test(tc, env_cpu_threads);
	tcase_add_test(tc, env_cpu_nt_threshold);
	tcase_add_test(tc, env_sim_words);
	tcase_add_test(tc, env_every_variable_checked);
	tcase_add_test(tc, ctx_flags_in_effect);
	tcase_add_test(tc, cpu_device_is_always_there);
	tcase_add_test(tc, dev_info_bad_input);
	tcase_add_test(tc, backend_names_in_probe_order);
	tcase_add_test(tc, errors_are_per_context);
	tcase_add_test(tc, success_keeps_the_last_failure_message);
	tcase_add_test(tc, backend_failure_gets_its_own_reason);
	tcase_add_test(tc, errors_are_per_thread);
	tcase_add_test(tc, errors_kept_for_every_context);
	tcase_add_test(tc, fork_child_may_close_inherited_ctx);
#ifdef OFFLOAD_HAVE_SIM
	tcase_add_test(tc, fork_child_may_close_inherited_sim_ctx);
	tcase_add_test(tc, fork_child_refuses_inherited_handles);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(core_suite());
}
