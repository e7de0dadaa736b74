/* SPDX-License-Identifier: MIT */
/*
 * One crypto operation, N times, through the library or through the OpenSSL
 * reference of bench cipher (src/offloadctl/evp_ref.h), for callgrind:
 * bench/crypto_callgrind.sh runs it at two counts and divides the difference
 * of the instruction counts by the difference of the counts, which leaves
 * the instructions of one operation, whatever the set-up cost.
 *
 *   crypto_percall lib|evp session|oneshot ALG SIZE N
 *   ALG: aes-128-gcm, aes-128-cbc, sha256 (encryption / digest)
 *
 * Before the N operations the library's output is compared with the
 * reference's for the same input (exit 1 if they differ). CPU-only context
 * (OFFLOAD_DT_NONE, backend cpu): what runs is the CPU backend on OpenSSL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>

#include "cli.h"
#include "evp_ref.h"

struct alg {
	const char *name, *evp;
	bool hash;
	int alg;
	size_t iv_len;
};

static const struct alg algs[] = {
	{ "aes-128-gcm", "AES-128-GCM", false, OFFLOAD_CIPHER_AES_GCM, 12 },
	{ "aes-128-cbc", "AES-128-CBC", false, OFFLOAD_CIPHER_AES_CBC, 16 },
	{ "sha256", "SHA256", true, OFFLOAD_HASH_SHA256, 0 },
};

static uint8_t key[16], iv[16], tag[16];

struct run {
	const struct alg *a;
	bool lib, oneshot;
	offload_ctx *ctx;
	offload_cipher_session *cs;
	offload_hash_session *hs;
	struct cli_evp ref;
};

static int op(struct run *r, const uint8_t *in, uint8_t *out, size_t n)
{
	const struct alg *a = r->a;

	if (!r->lib)
		return cli_evp_op(&r->ref, true, a->iv_len ? iv : NULL, in, out, n, tag);
	if (a->hash && r->oneshot)
		return offload_hash(r->ctx, OFFLOAD_HASH_SHA256, NULL, 0, in, n, out, 64, NULL) < 0 ? -EIO : 0;
	if (a->hash)
		return offload_hash_update(r->hs, in, n) < 0 || offload_hash_final(r->hs, out, 64, NULL) < 0
			       ? -EIO
			       : 0;
	struct offload_cipher_op o = {
		.alg = r->oneshot ? (enum offload_cipher_alg)a->alg : 0, .dir = OFFLOAD_ENCRYPT,
		.key = r->oneshot ? key : NULL, .key_len = r->oneshot ? sizeof(key) : 0,
		.iv = iv, .iv_len = a->iv_len, .in = in, .out = out, .len = n,
		.tag = a->alg == OFFLOAD_CIPHER_AES_GCM ? tag : NULL,
		.tag_len = a->alg == OFFLOAD_CIPHER_AES_GCM ? 16 : 0,
	};
	return r->oneshot ? offload_cipher(r->ctx, &o, sizeof(o)) : offload_cipher_session_run(r->cs, &o, sizeof(o));
}

static int setup(struct run *r)
{
	struct offload_ctx_opts o;

	if (!r->lib)
		return cli_evp_open(&r->ref, r->a->evp, r->a->hash, false, key, r->a->hash ? 0 : sizeof(key),
				    r->oneshot);
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.backends = "cpu";
	r->ctx = offload_ctx_new();
	if (!r->ctx || offload_ctx_open(r->ctx, &o) < 0)
		return -EIO;
	if (r->oneshot)
		return 0;
	if (r->a->hash)
		return offload_hash_open(r->ctx, OFFLOAD_HASH_SHA256, NULL, 0, &r->hs);
	return offload_cipher_session_open(r->ctx, (enum offload_cipher_alg)r->a->alg, key, sizeof(key),
					   &r->cs);
}

int main(int argc, char **argv)
{
	uint64_t count = 0, size = 0;
	struct run r = { 0 };

	if (argc != 6 || (strcmp(argv[1], "lib") && strcmp(argv[1], "evp")) ||
	    (strcmp(argv[2], "session") && strcmp(argv[2], "oneshot")) ||
	    cli_parse_uint(argv[4], CLI_NUM_SIZE, 1, 1u << 20, &size) < 0 ||
	    cli_parse_uint(argv[5], 0, 1, 100000000, &count) < 0) {
		fprintf(stderr, "usage: %s lib|evp session|oneshot aes-128-gcm|aes-128-cbc|sha256 SIZE N\n",
			argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcmp(argv[3], algs[i].name) == 0)
			r.a = &algs[i];
	if (!r.a || (!r.a->hash && size % 16)) {
		fprintf(stderr, "%s: unknown algorithm %s, or a cipher size not a multiple of 16\n", argv[0],
			argv[3]);
		return 2;
	}
	r.lib = argv[1][0] == 'l';
	r.oneshot = argv[2][0] == 'o';
	uint8_t *in = malloc(size), *out = malloc(size + 64), *want = malloc(size + 64);
	if (!in || !out || !want)
		return 1;
	for (size_t i = 0; i < size; i++)
		in[i] = (uint8_t)(i * 7 + 1);
	struct cli_evp check;
	if (setup(&r) < 0 || cli_evp_open(&check, r.a->evp, r.a->hash, false, key,
					 r.a->hash ? 0 : sizeof(key), false) < 0) {
		fprintf(stderr, "%s: set-up failed\n", argv[0]);
		return 1;
	}
	/* the output once against the reference, tag included */
	uint8_t want_tag[16];
	if (cli_evp_op(&check, true, r.a->iv_len ? iv : NULL, in, want, size, want_tag) < 0 ||
	    op(&r, in, out, size) < 0 || memcmp(out, want, r.a->hash ? 32 : size) != 0 ||
	    (r.a->alg == OFFLOAD_CIPHER_AES_GCM && !r.a->hash && memcmp(tag, want_tag, 16) != 0)) {
		fprintf(stderr, "%s: %s output differs from OpenSSL's\n", argv[0], argv[1]);
		return 1;
	}
	cli_evp_close(&check);
	int bad = 0;
	for (uint64_t i = 0; i < count; i++)
		bad |= op(&r, in, out, size);
	printf("%s %s %s %zu B: %llu operations, %s\n", argv[1], argv[2], r.a->name, (size_t)size,
	       (unsigned long long)count, bad ? "FAILED" : "ok");
	if (r.cs)
		offload_cipher_session_close(r.cs);
	if (r.hs)
		offload_hash_close(r.hs);
	offload_ctx_free(r.ctx);
	cli_evp_close(&r.ref);
	free(in);
	free(out);
	free(want);
	return bad ? 1 : 0;
}
