/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's hash sessions when OpenSSL runs out of memory between two
 * messages: the message that was finished keeps its digest, the session
 * reports -EIO instead of crashing while memory stays short, and hashes
 * right once it is back. OpenSSL's allocations fail on request
 * (CRYPTO_set_mem_functions(), set before OpenSSL allocates anything).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "testutil.h"

static volatile int failing;

static void *oom_malloc(size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return failing ? NULL : malloc(n);
}

static void *oom_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return failing ? NULL : realloc(p, n);
}

static void oom_free(void *p, const char *file, int line)
{
	(void)file, (void)line;
	free(p);
}

/* SHA-256("abc"), FIPS 180-2 appendix B.1 */
static const uint8_t sha256_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

static void hash_abc(offload_hash_session *h)
{
	uint8_t d[32];

	ck_assert_int_eq(offload_hash_update(h, "abc", 3), 0);
	ck_assert_int_eq(offload_hash_final(h, d, sizeof(d), NULL), 32);
	ck_assert_mem_eq(d, sha256_abc, 32);
}

START_TEST(hash_session_survives_a_failed_restart)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "cpu");
	offload_hash_session *h;
	uint8_t d[32];

	ck_assert_int_eq(offload_hash_open(ctx, OFFLOAD_HASH_SHA256, NULL, 0, &h), 0);
	hash_abc(h);
	/* the final succeeds; the restart behind it cannot allocate */
	ck_assert_int_eq(offload_hash_update(h, "abc", 3), 0);
	failing = 1;
	int r = offload_hash_final(h, d, sizeof(d), NULL);
	failing = 0;
	ck_assert_int_eq(r, 32);
	ck_assert_mem_eq(d, sha256_abc, 32);
	/* the next message starts from a fresh state */
	hash_abc(h);
	/* memory short at the next message: an error, no crash, for as long as it lasts */
	ck_assert_int_eq(offload_hash_update(h, "abc", 3), 0);
	failing = 1;
	int r0 = offload_hash_final(h, d, sizeof(d), NULL);
	r = offload_hash_update(h, "abc", 3);
	int r2 = offload_hash_final(h, d, sizeof(d), NULL);
	failing = 0;
	ck_assert_int_eq(r0, 32);
	ck_assert_int_eq(r, -EIO);
	ck_assert_int_eq(r2, -EIO);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "re-init"));
	hash_abc(h);
	hash_abc(h);
	ck_assert_int_eq(offload_hash_close(h), 0);
	offload_ctx_free(ctx);
}
END_TEST

int main(void)
{
	if (!CRYPTO_set_mem_functions(oom_malloc, oom_realloc, oom_free))
		return 99; /* OpenSSL allocated before main(): the test cannot run */
	Suite *s = suite_create("crypto_oom");
	TCase *tc = tcase_create("oom");
	tcase_add_test(tc, hash_session_survives_a_failed_restart);
	suite_add_tcase(s, tc);
	return test_run(s);
}
