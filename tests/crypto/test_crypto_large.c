/* SPDX-License-Identifier: MIT */
/*
 * Lengths above INT_MAX on the CPU backend (OpenSSL's EVP takes int
 * lengths), and the same chunking at a lowered piece size.
 *
 * The big cases use AAD made of zeros from a MAP_NORESERVE mapping (no
 * memory is committed). GHASH over zero blocks stays zero (X_i = (X_{i-1}
 * ^ 0) * H from X_0 = 0), so the expected tag needs only H = E_K(0^128),
 * E_K(J0) and a few GF(2^128) products (NIST SP 800-38D 6.4, 7.1), which
 * this file computes itself with AES-ECB from OpenSSL called directly.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <openssl/evp.h>

#include "cpu/cpu.h"
#include "kat_vectors.h"
#include "testutil.h"

/*
 * On a 32-bit target (armhf) size_t is 32 bits: lengths of 4 GiB and more
 * cannot be expressed, so the 4 GiB AAD and GCM's 2^36-byte limit are
 * 64-bit-only cases; 2 GiB + 16 (negative as an int) is tested everywhere.
 */
#define MID_AAD (((size_t)1 << 31) + 16u) /* 2 GiB + 16: (int) of it is negative */
#if SIZE_MAX > UINT32_MAX
#define BIG_AAD (((size_t)1 << 32) + 16u) /* 4 GiB + 16: (int) of it is 16 */
#define ZEROS_LEN BIG_AAD
#else
#define ZEROS_LEN MID_AAD
#endif

static const uint8_t key[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
				 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
static const uint8_t iv[12] = { 0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88 };
static const uint8_t plain[32] = "two blocks of plaintext, 32 B..";
static const uint8_t *zeros; /* ZEROS_LEN bytes of zeros, read-only */

/* ------------------------------------------------------------ reference GCM pieces */

static void aes_block(const uint8_t in[16], uint8_t out[16])
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int n;

	ck_assert_ptr_nonnull(x);
	ck_assert(EVP_EncryptInit_ex(x, EVP_aes_128_ecb(), NULL, key, NULL));
	EVP_CIPHER_CTX_set_padding(x, 0);
	ck_assert(EVP_EncryptUpdate(x, out, &n, in, 16));
	ck_assert_int_eq(n, 16);
	EVP_CIPHER_CTX_free(x);
}

/* X * Y in GF(2^128), SP 800-38D Algorithm 1 (bit 0 is the MSB of byte 0). */
static void gf_mul(uint8_t x[16], const uint8_t y[16])
{
	uint8_t z[16] = { 0 }, v[16];

	memcpy(v, y, 16);
	for (int i = 0; i < 128; i++) {
		if (x[i / 8] & (0x80 >> (i % 8)))
			for (int k = 0; k < 16; k++)
				z[k] ^= v[k];
		int lsb = v[15] & 1;
		for (int k = 15; k > 0; k--)
			v[k] = (uint8_t)(v[k] >> 1 | v[k - 1] << 7);
		v[0] >>= 1;
		if (lsb)
			v[0] ^= 0xe1;
	}
	memcpy(x, z, 16);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/*
 * GCM-AE_K(IV, P, A) for A = aad_len zero bytes (a multiple of 16) and a
 * 32-byte P: ct and tag (16 bytes).
 */
static void gcm_zero_aad(size_t aad_len, uint8_t ct[32], uint8_t tag[16])
{
	uint8_t h[16], j0[16], cb[16], ks[16], x[16] = { 0 }, l[16];
	static const uint8_t zero[16];

	ck_assert_uint_eq(aad_len % 16, 0);
	aes_block(zero, h);
	memcpy(j0, iv, 12);
	memset(j0 + 12, 0, 4);
	j0[15] = 1;
	/* the AAD's zero blocks leave X = 0; then the ciphertext blocks */
	for (int b = 0; b < 2; b++) {
		memcpy(cb, j0, 16);
		cb[15] = (uint8_t)(2 + b); /* inc32(J0) + b */
		aes_block(cb, ks);
		for (int k = 0; k < 16; k++) {
			ct[16 * b + k] = plain[16 * b + k] ^ ks[k];
			x[k] ^= ct[16 * b + k];
		}
		gf_mul(x, h);
	}
	put_be64(l, (uint64_t)aad_len * 8u);
	put_be64(l + 8, 32u * 8u);
	for (int k = 0; k < 16; k++)
		x[k] ^= l[k];
	gf_mul(x, h);
	aes_block(j0, ks);
	for (int k = 0; k < 16; k++)
		tag[k] = x[k] ^ ks[k];
}

/* ------------------------------------------------------------ tests */

static offload_ctx *ctx;

static void setup(void)
{
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "cpu");
}

static void teardown(void)
{
	offload_ctx_free(ctx);
}

static struct offload_cipher_op gcm_op(enum offload_cipher_dir dir, size_t aad_len, const void *in,
				       void *out, uint8_t *tag)
{
	return (struct offload_cipher_op){ .alg = OFFLOAD_CIPHER_AES_GCM, .dir = dir, .key = key,
					   .key_len = 16, .iv = iv, .iv_len = 12, .aad = zeros,
					   .aad_len = aad_len, .in = in, .out = out, .len = 32,
					   .tag = tag, .tag_len = 16 };
}

#ifdef BIG_AAD
/* AAD of 4 GiB + 16: the whole AAD is authenticated, not its low 32 bits. */
START_TEST(aad_above_4gib_is_authenticated)
{
	uint8_t ct[32], tag[16], want_ct[32], want_tag[16], buf[32];

	gcm_zero_aad(BIG_AAD, want_ct, want_tag);
	struct offload_cipher_op op = gcm_op(OFFLOAD_ENCRYPT, BIG_AAD, plain, ct, tag);
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	ck_assert_mem_eq(ct, want_ct, 32);
	ck_assert_mem_eq(tag, want_tag, 16);

	/* the same ciphertext and tag with only the AAD's low 32 bits' worth must be refused */
	op = gcm_op(OFFLOAD_DECRYPT, 16, ct, buf, tag);
	ck_assert_err(ctx, offload_cipher(ctx, &op, sizeof(op)), -EBADMSG, "tag mismatch");

	op = gcm_op(OFFLOAD_DECRYPT, BIG_AAD, ct, buf, tag);
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	ck_assert_mem_eq(buf, plain, 32);
}
END_TEST
#endif

/* AAD between 2 and 4 GiB (negative as an int), in place: decrypts, plaintext kept. */
START_TEST(aad_above_2gib_in_place)
{
	uint8_t buf[32], tag[16];

	gcm_zero_aad(MID_AAD, buf, tag);
	struct offload_cipher_op op = gcm_op(OFFLOAD_DECRYPT, MID_AAD, buf, buf, tag);
	int r = offload_cipher(ctx, &op, sizeof(op));
	ck_assert_msg(r == 0, "decrypt: %d %s", r, offload_last_error(ctx));
	ck_assert_mem_eq(buf, plain, 32);
}
END_TEST

#if SIZE_MAX > UINT32_MAX
/* GCM's own limits are argument errors named after the API function, not engine errors. */
START_TEST(gcm_limits_are_einval)
{
	uint8_t buf[32], tag[16];
	struct offload_cipher_op op = gcm_op(OFFLOAD_ENCRYPT, 16, plain, buf, tag);

	op.len = ((size_t)1 << 36) - 16u; /* above 2^36 - 32 bytes; never read */
	op.in = zeros; /* never accessed: the check comes first */
	op.out = (void *)(uintptr_t)zeros;
	ck_assert_err(ctx, offload_cipher(ctx, &op, sizeof(op)), -EINVAL, "offload_cipher: AES-GCM data of");
}
END_TEST
#endif

static void kat_report(void *arg, const struct kat_outcome *o)
{
	(void)arg;
	if (o->status != KAT_PASS)
		printf("%s %s: %s %s\n", o->status == KAT_FAIL ? "FAIL" : "N/A", o->alg, o->source,
		       o->detail);
}

/* The KATs with EVP fed in small pieces (AAD and data split mid-block). */
START_TEST(kat_in_small_pieces)
{
	static const size_t chunks[] = { 1, 7, 16, 17 };
	int dev = offload_dev_find(ctx, "cpu");

	ck_assert_int_ge(dev, 0);
	ofl_cpu_evp_chunk = chunks[_i];
	ck_assert_int_eq(kat_run_device(ctx, dev, kat_report, NULL), 0);
}
END_TEST

int main(void)
{
	void *m = mmap(NULL, ZEROS_LEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		printf("SKIP: cannot map %zu bytes of zeros (MAP_NORESERVE): %s\n", (size_t)ZEROS_LEN,
		       strerror(errno));
		return TEST_SKIP;
	}
#ifndef BIG_AAD
	printf("note: 32-bit size_t: the 4 GiB AAD and GCM's 2^36-byte limit cannot be expressed "
	       "here; the 2 GiB + 16 case runs\n");
#endif
	zeros = m;
	Suite *s = suite_create("crypto_large");
	TCase *tc = tcase_create("large");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
#ifdef BIG_AAD
	tcase_add_test(tc, aad_above_4gib_is_authenticated);
	tcase_add_test(tc, gcm_limits_are_einval);
#endif
	tcase_add_test(tc, aad_above_2gib_in_place);
	tcase_add_loop_test(tc, kat_in_small_pieces, 0, 4);
	suite_add_tcase(s, tc);
	int r = test_run(s);
	munmap(m, ZEROS_LEN);
	return r;
}
