/* SPDX-License-Identifier: MIT */
/*
 * The crypto API on the CPU backend: every bad input of every call, the
 * zero-length rules of offload/crypto.h, streaming hashes split at every
 * boundary (against OpenSSL called directly), results and session life.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "crypto/gcm_iv_vectors.h"
#include "testutil.h"

static offload_ctx *ctx;
static uint8_t key[32], iv[16], buf[256], out[256], tag[16];

static void setup(void)
{
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "cpu");
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 16; i++)
		iv[i] = (uint8_t)(0xa0 + i);
	for (int i = 0; i < 256; i++)
		buf[i] = (uint8_t)i;
}

static void teardown(void)
{
	offload_ctx_free(ctx);
}

static struct offload_cipher_op cbc_op(void)
{
	struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_CBC, .dir = OFFLOAD_ENCRYPT,
					.key = key, .key_len = 16, .iv = iv, .iv_len = 16,
					.in = buf, .out = out, .len = 64 };
	return op;
}

static struct offload_cipher_op gcm_op(void)
{
	struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_GCM, .dir = OFFLOAD_ENCRYPT,
					.key = key, .key_len = 16, .iv = iv, .iv_len = 12,
					.in = buf, .out = out, .len = 64, .tag = tag, .tag_len = 16 };
	return op;
}

/* Expect err and a message containing words. */
#define EXPECT(call, err, words)                                                                   \
	do {                                                                                       \
		int r_ = (call);                                                                   \
		ck_assert_msg(r_ == (err), "%s: got %d want %d (%s)", #call, r_, (err),            \
			      offload_last_error(ctx));                                            \
		ck_assert_msg(strstr(offload_last_error(NULL), (words)) != NULL,                   \
			      "%s: message \"%s\" lacks \"%s\"", #call, offload_last_error(NULL), \
			      (words));                                                            \
	} while (0)

START_TEST(cipher_bad_input)
{
	struct offload_cipher_op op = cbc_op();

	EXPECT(offload_cipher(NULL, &op, sizeof(op)), -EINVAL, "context is NULL");
	EXPECT(offload_cipher(ctx, NULL, sizeof(struct offload_cipher_op)), -EINVAL, "op is NULL");
	op = cbc_op(); op.alg = (enum offload_cipher_alg)99;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "unknown cipher algorithm 99");
	op = cbc_op(); op.key = NULL;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "key is NULL");
	op = cbc_op(); op.key_len = 17;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "16-, 24- or 32-byte key, got 17");
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_DES_ECB; op.key_len = 16; op.iv = NULL; op.iv_len = 0;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "DES-ECB needs a 8-byte key, got 16");
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_DES3_CBC; op.key_len = 16; op.iv_len = 8;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "DES-EDE3-CBC needs a 24-byte key");
	op = cbc_op(); op.iv_len = 12;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AES-CBC needs a 16-byte IV, got 12");
	op = cbc_op(); op.iv = NULL;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "iv is NULL");
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_AES_ECB;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AES-ECB takes no IV");
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_AES_ECB; op.iv_len = 0; /* iv still set: as for AAD/tag */
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AES-ECB takes no IV");
	op = cbc_op(); op.len = 63;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "not a multiple of the 16-byte block");
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_DES3_CBC; op.key_len = 24; op.iv_len = 8; op.len = 12;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "not a multiple of the 8-byte block");
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_DES_ECB; op.key_len = 8; op.iv = NULL; op.iv_len = 0; op.len = 9;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "not a multiple of the 8-byte block");
	op = cbc_op(); op.in = NULL;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "in is NULL");
	op = cbc_op(); op.out = NULL;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "out is NULL");
	op = cbc_op(); op.dir = (enum offload_cipher_dir)5;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "unknown direction");
	op = cbc_op(); op.aad = buf; op.aad_len = 4;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "takes no AAD");
	op = cbc_op(); op.tag = tag; op.tag_len = 16;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "has no tag");
	/* partial overlap refused, exact in-place accepted */
	op = cbc_op(); op.in = buf; op.out = buf + 16;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "overlap partially");
	op = cbc_op(); op.in = buf + 16; op.out = buf;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "overlap partially");
	memcpy(out, buf, 64);
	op = cbc_op(); op.in = out; op.out = out;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	op = cbc_op(); op.in = (void *)(uintptr_t)-16;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "wraps the address space");
	op = cbc_op(); op.key = (void *)(UINTPTR_MAX - 8);
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "key of 16 bytes wraps the address space");
}
END_TEST

START_TEST(gcm_bad_input)
{
	struct offload_cipher_op op;

	for (size_t t = 0; t <= 17; t++) {
		op = gcm_op();
		op.tag_len = t;
		bool ok = t == 4 || t == 8 || (t >= 12 && t <= 16);
		int r = offload_cipher(ctx, &op, sizeof(op));
		ck_assert_msg(r == (ok ? 0 : -EINVAL), "tag length %zu: %d", t, r);
		if (!ok)
			ck_assert(strstr(offload_last_error(ctx), "SP 800-38D") != NULL);
	}
	op = gcm_op(); op.iv_len = 0;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AES-GCM needs an IV of at least 1 byte");
	op = gcm_op(); op.iv = NULL; op.iv_len = 0;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AES-GCM needs an IV of at least 1 byte");
	op = gcm_op(); op.iv = NULL; op.iv_len = 1;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "iv is NULL");
	/* SP 800-38D allows it, OpenSSL does not (1024 bits at most): refused, never truncated */
	static uint8_t long_iv[129];
	op = gcm_op(); op.iv = long_iv; op.iv_len = sizeof(long_iv);
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -ENOTSUP, "at most 128 bytes");
	op = gcm_op(); op.iv = long_iv; op.iv_len = SIZE_MAX;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AES-GCM IV of");
	op = gcm_op(); op.tag = NULL;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "tag is NULL");
	op = gcm_op(); op.aad_len = 8;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "aad is NULL with aad_len 8");
	op = gcm_op(); op.tag = out + 8;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "tag buffer overlaps");
	op = gcm_op(); op.aad = out; op.aad_len = 8;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "AAD buffer overlaps out");
	/* any length is fine for GCM and CTR */
	op = gcm_op(); op.len = 13;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	op = cbc_op(); op.alg = OFFLOAD_CIPHER_AES_CTR; op.len = 13;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
}
END_TEST

START_TEST(gcm_mismatch_zeroes_output)
{
	struct offload_cipher_op op = gcm_op();
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	uint8_t ct[64];
	memcpy(ct, out, 64);
	tag[15] ^= 0x80;
	memset(out, 0x5a, sizeof(out));
	op.dir = OFFLOAD_DECRYPT;
	op.in = ct;
	EXPECT(offload_cipher(ctx, &op, sizeof(op)), -EBADMSG, "tag mismatch");
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(out[i], 0);
	ck_assert_int_eq(out[64], 0x5a); /* nothing beyond len touched */
}
END_TEST

START_TEST(zero_length_rules)
{
	struct offload_cipher_op op = cbc_op();
	struct offload_result res;
	memset(out, 0x77, sizeof(out));
	op.len = 0;
	op.result = &res;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	ck_assert_int_eq(out[0], 0x77);
	op.in = op.out = NULL; /* NULL buffers are fine with len 0 */
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	/* GCM with AAD only: the tag is GMAC of the AAD; compare with OpenSSL */
	op = gcm_op();
	op.len = 0;
	op.in = op.out = NULL;
	op.aad = buf;
	op.aad_len = 20;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	uint8_t ref[16];
	int l;
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	ck_assert(EVP_EncryptInit_ex2(x, EVP_aes_128_gcm(), key, iv, NULL));
	ck_assert(EVP_EncryptUpdate(x, NULL, &l, buf, 20));
	ck_assert(EVP_EncryptFinal_ex(x, ref, &l));
	ck_assert(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, ref));
	EVP_CIPHER_CTX_free(x);
	ck_assert_mem_eq(tag, ref, 16);
	op.dir = OFFLOAD_DECRYPT;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	tag[0] ^= 1;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), -EBADMSG);
	/* empty message hash */
	uint8_t d[64];
	ck_assert_int_eq(offload_hash(ctx, OFFLOAD_HASH_SHA1, NULL, 0, NULL, 0, d, sizeof(d), NULL), 20);
	uint8_t want[20] = { 0xda, 0x39, 0xa3, 0xee, 0x5e, 0x6b, 0x4b, 0x0d, 0x32, 0x55,
			     0xbf, 0xef, 0x95, 0x60, 0x18, 0x90, 0xaf, 0xd8, 0x07, 0x09 };
	ck_assert_mem_eq(d, want, 20);
}
END_TEST

START_TEST(results_name_backend_and_driver)
{
	struct offload_result res;
	struct offload_cipher_op op = gcm_op();
	op.result = &res;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_str_eq(res.driver, "openssl-evp:AES-128-GCM");
	ck_assert_uint_eq(res.flags, OFFLOAD_RES_CPU);
	uint8_t d[64];
	ck_assert_int_eq(offload_hash(ctx, OFFLOAD_HASH_HMAC_SHA384, "k", 1, buf, 10, d, 64, &res), 48);
	ck_assert_str_eq(res.driver, "openssl-evp:HMAC-SHA384");
	ck_assert_str_eq(offload_cipher_name(OFFLOAD_CIPHER_AES_GCM, 24), "AES-192-GCM");
	ck_assert_str_eq(offload_cipher_name(OFFLOAD_CIPHER_DES3_CBC, 24), "DES-EDE3-CBC");
	ck_assert_ptr_null(offload_cipher_name(OFFLOAD_CIPHER_AES_CBC, 17));
	ck_assert_ptr_null(offload_cipher_name(OFFLOAD_CIPHER_DES_ECB, 16));
	ck_assert_str_eq(offload_hash_name(OFFLOAD_HASH_HMAC_SHA224), "HMAC-SHA224");
	ck_assert_ptr_null(offload_hash_name((enum offload_hash_alg)0x107));
}
END_TEST

START_TEST(sessions)
{
	offload_cipher_session *s;
	struct offload_cipher_op op = cbc_op();

	EXPECT(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_CBC, key, 15, &s), -EINVAL, "got 15");
	EXPECT(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_CBC, key, 16, NULL), -EINVAL, "out is NULL");
	EXPECT(offload_cipher_session_open_dev(ctx, 42, OFFLOAD_CIPHER_AES_CBC, key, 16, &s), -ENODEV, "no device 42");
	ck_assert_int_eq(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_CBC, key, 16, &s), 0);
	/* the session's key is a copy */
	uint8_t ref[64];
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	memcpy(ref, out, 64);
	key[0] ^= 1;
	op.alg = 0; op.key = NULL; op.key_len = 0;
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	ck_assert_mem_eq(out, ref, 64);
	key[0] ^= 1;
	op.alg = OFFLOAD_CIPHER_AES_CBC;
	EXPECT(offload_cipher_session_run(s, &op, sizeof(op)), -EINVAL, "must be 0/NULL in a session");
	EXPECT(offload_cipher_session_run(NULL, &op, sizeof(op)), -EINVAL, "session is NULL");
	op.alg = 0;
	EXPECT(offload_cipher_session_run(s, NULL, sizeof(struct offload_cipher_op)), -EINVAL, "op is NULL");
	op.len = 10;
	EXPECT(offload_cipher_session_run(s, &op, sizeof(op)), -EINVAL, "not a multiple");
	/* a context with a session open cannot close; free cleans up */
	EXPECT(offload_ctx_close(ctx), -EBUSY, "cipher session");
	ck_assert_int_eq(offload_cipher_session_close(s), 0);
	EXPECT(offload_cipher_session_close(NULL), -EINVAL, "session is NULL");
	ck_assert_int_eq(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_GCM, key, 32, &s), 0);
	offload_hash_session *h;
	ck_assert_int_eq(offload_hash_open(ctx, OFFLOAD_HASH_SHA256, NULL, 0, &h), 0);
	/* a session of the other kind is refused for NULL's message (offload.h, Errors), and keeps working */
	EXPECT(offload_hash_update((offload_hash_session *)(void *)s, buf, 1), -EINVAL,
	       "offload_hash_update: not an open hash session");
	EXPECT(offload_cipher_session_run((offload_cipher_session *)(void *)h, &op, sizeof(op)), -EINVAL,
	       "offload_cipher_session_run: not an open cipher session");
	ck_assert_int_eq(offload_hash_update(h, "abc", 3), 0);
	ck_assert_int_eq(offload_hash_final(h, out, 32, NULL), 32);
	ck_assert_uint_eq(out[0], 0xba); /* SHA-256("abc") = ba7816bf... (FIPS 180-4) */
	/* left open on purpose: offload_ctx_free() in teardown must destroy both (ASan checks) */
}
END_TEST

START_TEST(hash_bad_input)
{
	uint8_t d[64];
	offload_hash_session *h;

	ck_assert_int_eq(offload_hash_digest_size(OFFLOAD_HASH_SHA224), 28);
	ck_assert_int_eq(offload_hash_digest_size(OFFLOAD_HASH_HMAC_MD5), 16);
	ck_assert_int_eq(offload_hash_digest_size((enum offload_hash_alg)7), -EINVAL);
	ck_assert_int_eq(offload_hash_digest_size((enum offload_hash_alg)0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(offload_last_error(NULL), "offload_hash_digest_size"));
	EXPECT(offload_hash(NULL, OFFLOAD_HASH_MD5, NULL, 0, buf, 1, d, 64, NULL), -EINVAL, "context is NULL");
	EXPECT(offload_hash(ctx, (enum offload_hash_alg)0x107, NULL, 0, buf, 1, d, 64, NULL), -EINVAL, "unknown hash algorithm");
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_SHA256, key, 16, buf, 1, d, 64, NULL), -EINVAL, "takes no key");
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_HMAC_SHA256, NULL, 16, buf, 1, d, 64, NULL), -EINVAL, "key is NULL");
	/* keys are ranges as data is: one that wraps is refused before anything reads it */
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_HMAC_SHA256, key, SIZE_MAX, buf, 1, d, 64, NULL), -EINVAL,
	       "bytes wraps the address space");
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_HMAC_SHA256, (void *)(UINTPTR_MAX - 8), 100, buf, 1, d, 64, NULL),
	       -EINVAL, "key of 100 bytes wraps the address space");
	EXPECT(offload_hash_open(ctx, OFFLOAD_HASH_HMAC_SHA1, (void *)(UINTPTR_MAX - 8), 100, &h), -EINVAL,
	       "key of 100 bytes wraps the address space");
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_SHA256, NULL, 0, NULL, 1, d, 64, NULL), -EINVAL, "data is NULL");
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_SHA256, NULL, 0, buf, 1, NULL, 64, NULL), -EINVAL, "digest is NULL");
	EXPECT(offload_hash(ctx, OFFLOAD_HASH_SHA512, NULL, 0, buf, 1, d, 63, NULL), -EINVAL, "too small for SHA512 (64 bytes)");
	EXPECT(offload_hash_open(ctx, OFFLOAD_HASH_SHA256, NULL, 0, NULL), -EINVAL, "out is NULL");
	EXPECT(offload_hash_update(NULL, buf, 1), -EINVAL, "session is NULL");
	EXPECT(offload_hash_final(NULL, d, 64, NULL), -EINVAL, "session is NULL");
	EXPECT(offload_hash_close(NULL), -EINVAL, "session is NULL");
	ck_assert_int_eq(offload_hash_open(ctx, OFFLOAD_HASH_SHA256, NULL, 0, &h), 0);
	EXPECT(offload_hash_update(h, NULL, 3), -EINVAL, "data is NULL with len 3");
	ck_assert_int_eq(offload_hash_update(h, "ab", 2), 0);
	/* a too-small buffer leaves the message intact */
	EXPECT(offload_hash_final(h, d, 31, NULL), -EINVAL, "too small");
	ck_assert_int_eq(offload_hash_update(h, "c", 1), 0);
	ck_assert_int_eq(offload_hash_final(h, d, 32, NULL), 32);
	ck_assert_uint_eq(d[0], 0xba); /* SHA-256("abc") = ba7816bf... (FIPS 180-4) */
	ck_assert_uint_eq(d[31], 0xad);
	ck_assert_int_eq(offload_hash_close(h), 0);
}
END_TEST

/* Streaming: every 2-way split of a 300-byte message and many 3-way splits
 * give OpenSSL's one-shot digest, for every algorithm. */
START_TEST(streaming_every_boundary)
{
	static const char *const md[] = { "MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512" };
	int i = _i;
	enum offload_hash_alg alg = (enum offload_hash_alg)((i >= 6 ? 0x100 : 0) + i % 6 + 1);
	const size_t n = 300;
	uint8_t msg[300], d[64], ref[64];
	unsigned rl;
	for (size_t k = 0; k < n; k++)
		msg[k] = (uint8_t)(k * 31 + 5);
	const EVP_MD *m = EVP_get_digestbyname(md[i % 6]);
	if (i >= 6)
		HMAC(m, key, 32, msg, n, ref, &rl);
	else
		EVP_Digest(msg, n, ref, &rl, m, NULL);
	offload_hash_session *h;
	ck_assert_int_eq(offload_hash_open(ctx, alg, i >= 6 ? key : NULL, i >= 6 ? 32 : 0, &h), 0);
	for (size_t a = 0; a <= n; a++) {
		ck_assert_int_eq(offload_hash_update(h, msg, a), 0);
		ck_assert_int_eq(offload_hash_update(h, msg + a, n - a), 0);
		ck_assert_int_eq(offload_hash_final(h, d, sizeof(d), NULL), (int)rl);
		ck_assert_msg(memcmp(d, ref, rl) == 0, "%s split at %zu", md[i % 6], a);
	}
	for (size_t a = 0; a <= n; a += 7)
		for (size_t b = a; b <= n; b += 13) {
			offload_hash_update(h, msg, a);
			offload_hash_update(h, msg + a, b - a);
			offload_hash_update(h, msg + b, n - b);
			ck_assert_int_eq(offload_hash_final(h, d, sizeof(d), NULL), (int)rl);
			ck_assert_msg(memcmp(d, ref, rl) == 0, "%s split at %zu,%zu", md[i % 6], a, b);
		}
	offload_hash_close(h);
}
END_TEST

START_TEST(no_backend_is_enotsup)
{
#ifdef OFFLOAD_HAVE_KCAPI
	/* Only kcapi allowed: on this machine (no AF_ALG) nothing can do crypto. */
	offload_ctx *c = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "kcapi");
	if (offload_backend_status(c, "kcapi", NULL) == 1) {
		offload_ctx_free(c);
		return; /* a kernel with AF_ALG: nothing to check here */
	}
#else
	/* A build without kcapi: an allow-list of a memcpy-only backend leaves no crypto. */
	offload_ctx *c = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "udma");
#endif
	struct offload_cipher_op op = cbc_op();
	ck_assert_int_eq(offload_cipher(c, &op, sizeof(op)), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(offload_last_error(c), "no usable device implements AES-128-CBC"));
	ck_assert_ptr_nonnull(strstr(offload_last_error(c), "cpu: excluded by the allow-list"));
	const char *why = NULL;
#ifdef OFFLOAD_HAVE_KCAPI
	ck_assert_int_eq(offload_backend_status(c, "kcapi", &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "AF_ALG"));
#else
	ck_assert_int_eq(offload_backend_status(c, "kcapi", &why), -ENOENT);
#endif
	ck_assert_int_eq(offload_backend_status(c, "nonesuch", &why), -ENOENT);
	offload_ctx_free(c);
}
END_TEST

/* Non-96-bit GCM IVs: NIST CAVP known answers (crypto/gcm_iv_vectors.h), one-shot and in a session. */
START_TEST(gcm_any_iv_length_known_answers)
{
	const struct gcm_iv_vec *v = &gcm_iv_vecs[_i];
	struct gcm_iv_bin b;
	uint8_t o[16], t[16], p[16];
	struct offload_result res;

	gcm_iv_load(v, &b);
	struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_GCM, .dir = OFFLOAD_ENCRYPT,
					.key = b.key, .key_len = b.key_len, .iv = b.iv,
					.iv_len = b.iv_len, .aad = b.aad_len ? b.aad : NULL,
					.aad_len = b.aad_len, .in = b.pt, .out = o, .len = b.pt_len,
					.tag = t, .tag_len = b.tag_len, .result = &res };
	ck_assert_msg(offload_cipher(ctx, &op, sizeof(op)) == 0, "%s: %s", v->what,
		      offload_last_error(ctx));
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_msg(memcmp(o, b.ct, b.ct_len) == 0, "%s: ciphertext", v->what);
	ck_assert_msg(memcmp(t, b.tag, b.tag_len) == 0, "%s: tag", v->what);
	op.dir = OFFLOAD_DECRYPT;
	op.in = b.ct;
	op.out = p;
	op.tag = b.tag;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	ck_assert_mem_eq(p, b.pt, b.pt_len);
	b.tag[0] ^= 1;
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), -EBADMSG);
	b.tag[0] ^= 1;

	/* A session switching between IV lengths: each operation is the one-shot answer. */
	offload_cipher_session *s;
	uint8_t iv12[12], o12[16], t12[16], so[16], st[16];
	memset(iv12, 0x3c, sizeof(iv12));
	struct offload_cipher_op one = op;
	one.dir = OFFLOAD_ENCRYPT;
	one.iv = iv12;
	one.iv_len = 12;
	one.in = b.pt;
	one.out = o12;
	one.tag = t12;
	ck_assert_int_eq(offload_cipher(ctx, &one, sizeof(one)), 0);
	ck_assert_int_eq(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_GCM, b.key, b.key_len, &s), 0);
	for (int round = 0; round < 2; round++) {
		for (int dir = 0; dir < 2; dir++) {
			struct offload_cipher_op sop = op;
			sop.alg = 0;
			sop.key = NULL;
			sop.key_len = 0;
			sop.dir = dir ? OFFLOAD_DECRYPT : OFFLOAD_ENCRYPT;
			sop.in = dir ? b.ct : b.pt;
			sop.out = so;
			sop.tag = dir ? b.tag : st;
			ck_assert_int_eq(offload_cipher_session_run(s, &sop, sizeof(sop)), 0);
			ck_assert_mem_eq(so, dir ? b.pt : b.ct, b.pt_len);
			if (!dir)
				ck_assert_mem_eq(st, b.tag, b.tag_len);
			sop.iv = iv12;
			sop.iv_len = 12;
			sop.in = dir ? o12 : b.pt;
			sop.tag = dir ? t12 : st;
			ck_assert_int_eq(offload_cipher_session_run(s, &sop, sizeof(sop)), 0);
			ck_assert_mem_eq(so, dir ? b.pt : o12, b.pt_len);
			if (!dir)
				ck_assert_mem_eq(st, t12, b.tag_len);
		}
	}
	offload_cipher_session_close(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("crypto_api");
	TCase *tc = tcase_create("cpu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cipher_bad_input);
	tcase_add_test(tc, gcm_bad_input);
	tcase_add_test(tc, gcm_mismatch_zeroes_output);
	tcase_add_loop_test(tc, gcm_any_iv_length_known_answers, 0,
			    (int)(sizeof(gcm_iv_vecs) / sizeof(gcm_iv_vecs[0])));
	tcase_add_test(tc, zero_length_rules);
	tcase_add_test(tc, results_name_backend_and_driver);
	tcase_add_test(tc, sessions);
	tcase_add_test(tc, hash_bad_input);
	tcase_add_loop_test(tc, streaming_every_boundary, 0, 12);
	tcase_add_test(tc, no_backend_is_enotsup);
	suite_add_tcase(s, tc);
	return test_run(s);
}
