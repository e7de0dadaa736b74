/* SPDX-License-Identifier: MIT */
/*
 * Randomized cross-checks (deterministic seed): every cipher and hash on
 * every backend in OFFLOAD_BACKENDS (default cpu,kcapi), over sizes from 0
 * to 256 KiB, against OpenSSL's EVP called directly here with its default
 * library context (an independent path from the library's sessions). The
 * large sizes cross the AF_ALG backend's 64 KiB pieces, so CBC/CTR IV
 * chaining must equal one continuous pass. Also checks automatic device
 * selection when OFFLOAD_TEST_PROC_STANDIN names a stand-in /proc/crypto that
 * says a hardware driver serves cbc(aes) and sha256 (guest only).
 *
 * A plain program (also run in the qemu guest, tests/qemu/): exit 0 pass,
 * 1 failure, 77 when no requested backend is available. With
 * OFFLOAD_TEST_ALLOW_NA set (the guest), an algorithm a backend does not
 * implement is a failure unless its name is in that list.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/provider.h>

#include <offload/offload.h>

#include "wordlist.h"

#define SKIP 77
#define MAXLEN (256u * 1024u)

static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull; /* fixed seed: reproducible */
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static void fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

static const char *evp_name(enum offload_cipher_alg alg, size_t kl)
{
	static char buf[32];
	static const char *const mode[] = { "", "ECB", "CBC", "CTR", "GCM" };
	if (alg == OFFLOAD_CIPHER_DES_ECB)
		return "DES-ECB";
	if (alg == OFFLOAD_CIPHER_DES3_CBC)
		return "DES-EDE3-CBC";
	snprintf(buf, sizeof(buf), "AES-%zu-%s", kl * 8, mode[alg]);
	return buf;
}

/* Reference encryption with EVP directly. Returns 0, or -1 if unavailable. */
static int ref_encrypt(enum offload_cipher_alg alg, const uint8_t *key, size_t kl, const uint8_t *iv,
		       const uint8_t *aad, size_t aadl, const uint8_t *in, size_t n, uint8_t *out,
		       uint8_t *tag)
{
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, evp_name(alg, kl), NULL);
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int l, ok = c && x && EVP_EncryptInit_ex2(x, c, key, iv, NULL);

	if (ok)
		EVP_CIPHER_CTX_set_padding(x, 0);
	if (ok && aadl)
		ok = EVP_EncryptUpdate(x, NULL, &l, aad, (int)aadl);
	if (ok && n)
		ok = EVP_EncryptUpdate(x, out, &l, in, (int)n);
	if (ok)
		ok = EVP_EncryptFinal_ex(x, out + n, &l);
	if (ok && alg == OFFLOAD_CIPHER_AES_GCM)
		ok = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag);
	EVP_CIPHER_CTX_free(x);
	EVP_CIPHER_free(c);
	return ok ? 0 : -1;
}

static size_t pick_len(enum offload_cipher_alg alg, int i)
{
	static const size_t edges[] = { 0, 1, 15, 16, 17, 64, 1023, 1024, 4096, 65535, 65536, 65537,
					65536 + 16, 131072 + 48, MAXLEN - 1, MAXLEN };
	size_t n = i < (int)(sizeof(edges) / sizeof(edges[0])) ? edges[i]
							       : (size_t)(rnd() % (MAXLEN + 1));
	size_t bs = alg == OFFLOAD_CIPHER_AES_ECB || alg == OFFLOAD_CIPHER_AES_CBC ? 16
		    : alg == OFFLOAD_CIPHER_DES_ECB || alg == OFFLOAD_CIPHER_DES3_CBC ? 8
										  : 1;
	return n / bs * bs;
}

static void cross_ciphers(offload_ctx *ctx, int dev, const char *be, uint8_t *in, uint8_t *out,
			  uint8_t *ref)
{
	static const struct {
		enum offload_cipher_alg alg;
		size_t kl;
	} algs[] = {
		{ OFFLOAD_CIPHER_AES_ECB, 16 }, { OFFLOAD_CIPHER_AES_ECB, 32 },
		{ OFFLOAD_CIPHER_AES_CBC, 16 }, { OFFLOAD_CIPHER_AES_CBC, 24 },
		{ OFFLOAD_CIPHER_AES_CBC, 32 }, { OFFLOAD_CIPHER_AES_CTR, 16 },
		{ OFFLOAD_CIPHER_AES_CTR, 32 }, { OFFLOAD_CIPHER_AES_GCM, 16 },
		{ OFFLOAD_CIPHER_AES_GCM, 32 }, { OFFLOAD_CIPHER_DES_ECB, 8 },
		{ OFFLOAD_CIPHER_DES3_CBC, 24 },
	};
	for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		uint8_t key[32], iv[16], aad[300], tag[16], rtag[16];
		enum offload_cipher_alg alg = algs[a].alg;
		bool gcm = alg == OFFLOAD_CIPHER_AES_GCM;
		size_t ivl = alg == OFFLOAD_CIPHER_AES_ECB || alg == OFFLOAD_CIPHER_DES_ECB ? 0
			     : gcm ? 12 : alg == OFFLOAD_CIPHER_DES3_CBC ? 8 : 16;
		offload_cipher_session *s;
		fill(key, sizeof(key));
		int r = offload_cipher_session_open_dev(ctx, dev, alg, key, algs[a].kl, &s);
		if (r == -ENOTSUP) {
			printf("N/A  %s %s: %s\n", be, evp_name(alg, algs[a].kl), offload_last_error(ctx));
			CHECK(test_na_allowed(evp_name(alg, algs[a].kl)),
			      "%s %s not implemented, and OFFLOAD_TEST_ALLOW_NA does not allow that", be,
			      evp_name(alg, algs[a].kl));
			continue;
		}
		CHECK(r == 0, "%s %s open: %s", be, evp_name(alg, algs[a].kl), offload_last_error(ctx));
		if (r)
			continue;
		int tested = 0;
		for (int i = 0; i < 40; i++) {
			size_t n = pick_len(alg, i);
			size_t aadl = gcm ? (size_t)(rnd() % sizeof(aad)) : 0;
			fill(in, n);
			fill(iv, sizeof(iv));
			fill(aad, aadl);
			if (alg == OFFLOAD_CIPHER_AES_CTR && (i & 1))
				memset(iv + 8, 0xff, 8); /* carry across the low 64 bits */
			if (ref_encrypt(alg, key, algs[a].kl, ivl ? iv : NULL, aad, aadl, in, n, ref,
					rtag) < 0) {
				printf("N/A  %s %s: OpenSSL reference unavailable here\n", be,
				       evp_name(alg, algs[a].kl));
				CHECK(test_na_allowed(evp_name(alg, algs[a].kl)),
				      "no OpenSSL reference for %s, and OFFLOAD_TEST_ALLOW_NA does not "
				      "allow that", evp_name(alg, algs[a].kl));
				break;
			}
			struct offload_cipher_op op = {
				.dir = OFFLOAD_ENCRYPT, .iv = ivl ? iv : NULL, .iv_len = ivl,
				.aad = aadl ? aad : NULL, .aad_len = aadl, .in = in, .out = out, .len = n,
				.tag = gcm ? tag : NULL, .tag_len = gcm ? 16 : 0,
			};
			r = offload_cipher_session_run(s, &op, sizeof(op));
			if (r == -E2BIG && gcm && strcmp(be, "kcapi") == 0 && n + aadl + 16 > 65536)
				continue; /* AF_ALG AEAD limit, documented */
			CHECK(r == 0, "%s %s encrypt %zu: %s", be, evp_name(alg, algs[a].kl), n,
			      offload_last_error(ctx));
			CHECK(r != 0 || memcmp(out, ref, n) == 0, "%s %s encrypt %zu bytes differs from OpenSSL",
			      be, evp_name(alg, algs[a].kl), n);
			CHECK(r != 0 || !gcm || memcmp(tag, rtag, 16) == 0, "%s %s tag %zu differs", be,
			      evp_name(alg, algs[a].kl), n);
			/* decrypt in place back to the plaintext */
			op.dir = OFFLOAD_DECRYPT;
			op.in = out;
			r = offload_cipher_session_run(s, &op, sizeof(op));
			CHECK(r == 0 && memcmp(out, in, n) == 0, "%s %s decrypt %zu: %d %s", be,
			      evp_name(alg, algs[a].kl), n, r, offload_last_error(ctx));
			tested++;
		}
		printf("ok   %s %s: %d sizes\n", be, evp_name(alg, algs[a].kl), tested);
		offload_cipher_session_close(s);
	}
}

static void cross_hashes(offload_ctx *ctx, int dev, const char *be, uint8_t *in)
{
	static const char *const md[] = { "MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512" };
	for (int h = 0; h < 12; h++) {
		enum offload_hash_alg alg = (enum offload_hash_alg)((h >= 6 ? 0x100 : 0) + h % 6 + 1);
		uint8_t key[200], d[64], rd[64];
		size_t kl = h >= 6 ? (size_t)(rnd() % sizeof(key)) : 0;
		offload_hash_session *s;
		fill(key, kl);
		int r = offload_hash_open_dev(ctx, dev, alg, h >= 6 ? key : NULL, kl, &s);
		CHECK(r == 0, "%s %s%s open: %s", be, h >= 6 ? "HMAC-" : "", md[h % 6],
		      offload_last_error(ctx));
		if (r)
			continue;
		for (int i = 0; i < 12; i++) {
			size_t n = i == 0 ? 0 : i == 1 ? MAXLEN : (size_t)(rnd() % (MAXLEN + 1));
			unsigned rl = 0;
			fill(in, n);
			const EVP_MD *m = EVP_get_digestbyname(md[h % 6]);
			if (h >= 6)
				HMAC(m, key, (int)kl, in, n, rd, &rl);
			else
				EVP_Digest(in, n, rd, &rl, m, NULL);
			/* split at random points */
			size_t off = 0;
			while (off < n) {
				size_t k = (size_t)(rnd() % (n - off + 1));
				r = offload_hash_update(s, in + off, k);
				CHECK(r == 0, "%s update: %s", be, offload_last_error(ctx));
				off += k;
			}
			r = offload_hash_final(s, d, sizeof(d), NULL);
			CHECK(r == (int)rl && memcmp(d, rd, rl) == 0, "%s %s%s %zu bytes: %d differs", be,
			      h >= 6 ? "HMAC-" : "", md[h % 6], n, r);
		}
		offload_hash_close(s);
		printf("ok   %s %s%s\n", be, h >= 6 ? "HMAC-" : "", md[h % 6]);
	}
}

/* With a stand-in /proc/crypto saying safexcel-cbc-aes serves cbc(aes), AUTO
 * selection must send >= 1024-byte operations to af_alg and smaller ones to
 * the CPU, and report the stand-in's driver name. */
static void auto_selection(uint8_t *in, uint8_t *out)
{
	const char *pc = getenv("OFFLOAD_TEST_PROC_STANDIN");
	if (!pc || !*pc) {
		printf("SKIP auto-selection: OFFLOAD_TEST_PROC_STANDIN not set (guest test)\n");
		return;
	}
	setenv("OFFLOAD_PROC_CRYPTO", pc, 1); /* only this context sees the stand-in */
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV; /* every backend, whatever OFFLOAD_BACKENDS says */
	o.backends = "";
	if (offload_ctx_open(ctx, &o) < 0 || offload_backend_status(ctx, "kcapi", NULL) != 1) {
		printf("SKIP auto-selection: kcapi absent\n");
		offload_ctx_free(ctx);
		return;
	}
	uint8_t key[16] = { 1 }, iv[16] = { 2 };
	offload_cipher_session *s = NULL;
	int r = offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_CBC, key, 16, &s);
	CHECK(r == 0, "auto open: %s", offload_last_error(ctx));
	for (size_t n = 16; r == 0 && n <= 4096; n *= 4) {
		struct offload_result res;
		struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 16,
						.in = in, .out = out, .len = n, .result = &res };
		r = offload_cipher_session_run(s, &op, sizeof(op));
		CHECK(r == 0, "auto run %zu", n);
		bool eng = n >= 1024;
		CHECK(strcmp(res.backend, eng ? "kcapi" : "cpu") == 0, "%zu bytes ran on %s", n,
		      res.backend);
		CHECK(!eng || (strcmp(res.driver, "safexcel-cbc-aes") == 0 &&
			       (res.flags & OFFLOAD_RES_HARDWARE)),
		      "%zu bytes: driver %s flags %#x", n, res.driver, res.flags);
		printf("ok   auto-selection %zu bytes -> %s (%s)\n", n, res.backend, res.driver);
	}
	if (s)
		offload_cipher_session_close(s);
	/* md5 is software in the stand-in: never preferred */
	uint8_t d[64], rd[64];
	unsigned rl;
	struct offload_result res;
	r = offload_hash(ctx, OFFLOAD_HASH_MD5, NULL, 0, in, 8192, d, sizeof(d), &res);
	CHECK(r == 16 && strcmp(res.backend, "cpu") == 0, "md5 ran on %s", res.backend);
	/* sha256 is "safexcel-sha256" in the stand-in: a streamed message goes to
	 * af_alg once its total reaches 1024 bytes, whatever the pieces. */
	offload_hash_session *h = NULL;
	r = offload_hash_open(ctx, OFFLOAD_HASH_SHA256, NULL, 0, &h);
	CHECK(r == 0, "sha256 open: %s", offload_last_error(ctx));
	static const size_t totals[] = { 0, 1, 1023, 1024, 1025, 5000, 70000 };
	for (size_t t = 0; h && t < sizeof(totals) / sizeof(totals[0]); t++) {
		size_t n = totals[t], off = 0;
		fill(in, n);
		while (off < n) {
			size_t k = 1 + (size_t)(rnd() % 700);
			k = k > n - off ? n - off : k;
			CHECK(offload_hash_update(h, in + off, k) == 0, "update");
			off += k;
		}
		r = offload_hash_final(h, d, sizeof(d), &res);
		EVP_Digest(in, n, rd, &rl, EVP_sha256(), NULL);
		CHECK(r == 32 && memcmp(d, rd, 32) == 0, "sha256 streamed %zu bytes wrong", n);
		CHECK(strcmp(res.backend, n >= 1024 ? "kcapi" : "cpu") == 0, "sha256 %zu bytes ran on %s",
		      n, res.backend);
		printf("ok   auto-selection sha256 %zu bytes streamed -> %s (%s)\n", n, res.backend,
		       res.driver);
	}
	if (h)
		offload_hash_close(h);
	offload_ctx_free(ctx);
}

int main(void)
{
	const char *env = getenv("OFFLOAD_BACKENDS");
	char list[256];
	int ran = 0;
	uint8_t *in = malloc(MAXLEN + 64), *out = malloc(MAXLEN + 64), *ref = malloc(MAXLEN + 64);

	if (!in || !out || !ref)
		return 1;
	OSSL_PROVIDER *pdef = OSSL_PROVIDER_load(NULL, "default");
	OSSL_PROVIDER *pleg = OSSL_PROVIDER_load(NULL, "legacy"); /* DES; absent in a static guest binary */
	snprintf(list, sizeof(list), "%s", env && *env ? env : "cpu,kcapi");
	for (char *save = NULL, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		struct offload_ctx_opts o;
		offload_ctx *ctx = offload_ctx_new();
		const char *why = "";
		offload_ctx_opts_init(&o);
		o.dt_source = OFFLOAD_DT_NONE;
		o.flags = OFFLOAD_CTX_NO_ENV;
		o.backends = b;
		if (offload_ctx_open(ctx, &o) < 0 || offload_backend_status(ctx, b, &why) != 1) {
			printf("SKIP %s: %s\n", b, why[0] ? why : offload_last_error(ctx));
			offload_ctx_free(ctx);
			continue;
		}
		int dev = offload_dev_find(ctx, strcmp(b, "kcapi") == 0 ? "af_alg" : b);
		CHECK(dev >= 0, "%s: no device", b);
		if (dev >= 0) {
			cross_ciphers(ctx, dev, b, in, out, ref);
			cross_hashes(ctx, dev, b, in);
			ran++;
		}
		offload_ctx_free(ctx);
	}
	if (ran)
		auto_selection(in, out);
	free(in);
	free(out);
	free(ref);
	if (pleg)
		OSSL_PROVIDER_unload(pleg);
	if (pdef)
		OSSL_PROVIDER_unload(pdef);
	printf("%d failure(s)\n", failures);
	if (failures)
		return 1;
	return ran ? 0 : SKIP;
}
