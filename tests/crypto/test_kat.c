/* SPDX-License-Identifier: MIT */
/*
 * Known-answer tests on every backend named in OFFLOAD_BACKENDS (default:
 * every crypto backend built). A plain program so that it also runs as a
 * static binary inside a qemu guest: exit 0 all passed, 1 a failure, 77 no
 * requested backend is available here (each skip prints its reason).
 *
 * OFFLOAD_TEST_ALLOW_NA (set in the qemu guest, see tests/qemu/guest-init.sh):
 * when set, an algorithm a backend does not implement is a failure unless
 * its name (e.g. "DES-ECB") is in this comma/space-separated list, so that
 * a kernel module missing from the guest cannot quietly shrink the test.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>

#include "wordlist.h"

#include "kat_vectors.h"

#define SKIP 77

struct tally {
	const char *backend;
	int pass, fail, unsupported;
};

static void report(void *arg, const struct kat_outcome *o)
{
	struct tally *t = arg;
	static const char *const word[] = { "PASS", "FAIL", "N/A " };

	if (o->status == KAT_PASS) {
		t->pass++;
	} else if (o->status == KAT_FAIL) {
		t->fail++;
	} else {
		t->unsupported++;
		if (!test_na_allowed(o->alg)) {
			printf("FAIL %s: %s is not implemented, and OFFLOAD_TEST_ALLOW_NA does not "
			       "allow that\n", t->backend, o->alg);
			t->fail++;
		}
	}
	printf("%s %-6s %-12s %-40s %s%s%s\n", word[o->status], t->backend, o->alg, o->source,
	       o->driver, o->detail[0] ? "  -- " : "", o->detail);
}

/* 0 ran, 1 failed, SKIP unavailable. */
static int run_backend(const char *name)
{
	struct offload_ctx_opts opts;
	offload_ctx *ctx = offload_ctx_new();
	const char *why = "";
	int ret = 0;

	if (!ctx)
		return 1;
	offload_ctx_opts_init(&opts);
	opts.dt_source = OFFLOAD_DT_NONE;
	opts.flags = OFFLOAD_CTX_NO_ENV;
	opts.backends = name;
	int r = offload_ctx_open(ctx, &opts);
	if (r == -EINVAL && strstr(offload_last_error(ctx), "unknown backend")) {
		printf("SKIP %s: not built into this library (%s)\n", name, offload_last_error(ctx));
		offload_ctx_free(ctx);
		return SKIP;
	}
	if (r < 0) {
		printf("FAIL %s: offload_ctx_open: %s\n", name, offload_last_error(ctx));
		offload_ctx_free(ctx);
		return 1;
	}
	r = offload_backend_status(ctx, name, &why);
	if (r != 1) {
		printf("SKIP %s: %s\n", name, r == 0 ? why : offload_last_error(ctx));
		offload_ctx_free(ctx);
		return SKIP;
	}
	int dev = -1;
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) == 0 && strcmp(d.backend, name) == 0 &&
		    (d.caps & (OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH)))
			dev = i;
	}
	if (dev < 0) {
		printf("SKIP %s: the backend offers no crypto device here\n", name);
		offload_ctx_free(ctx);
		return SKIP;
	}
	struct tally t = { .backend = name };
	kat_run_device(ctx, dev, report, &t);
	printf("%s: %d passed, %d failed, %d not implemented\n", name, t.pass, t.fail,
	       t.unsupported);
	/* The CPU backend must implement everything (DES needs OpenSSL's legacy provider). */
	if (t.fail || (strcmp(name, "cpu") == 0 && t.unsupported))
		ret = 1;
	offload_ctx_free(ctx);
	return ret;
}

int main(void)
{
	const char *env = getenv("OFFLOAD_BACKENDS");
	char list[256];
	int ran = 0, failed = 0;

	snprintf(list, sizeof(list), "%s", env && *env ? env : "cpu,kcapi");
	for (char *save = NULL, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		int r = run_backend(b);
		if (r == 1)
			failed = 1;
		if (r != SKIP)
			ran++;
	}
	if (failed)
		return 1;
	return ran ? 0 : SKIP;
}
