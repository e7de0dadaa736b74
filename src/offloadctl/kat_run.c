/* SPDX-License-Identifier: MIT */
/* Run the known-answer vectors on one device (see kat_vectors.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kat_vectors.h"

#define KAT_MAX 512

static int fail(struct kat_outcome *o, offload_ctx *ctx, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct kat_outcome *o, offload_ctx *ctx, int r, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = (size_t)vsnprintf(o->detail, sizeof(o->detail), fmt, ap);
	va_end(ap);
	if (r < 0 && n < sizeof(o->detail)) { /* the library's message names the cause */
		const char *msg = offload_last_error(ctx);
		snprintf(o->detail + n, sizeof(o->detail) - n, ": %s", msg[0] ? msg : offload_strerror(r));
	}
	o->status = (r == -ENOTSUP) ? KAT_UNSUPPORTED : KAT_FAIL;
	return -1;
}

struct cbuf {
	uint8_t key[32], iv[16], aad[64], pt[KAT_MAX], ct[KAT_MAX], tag[16];
	long klen, ivlen, aadlen, ptlen, ctlen, taglen;
};

/* An AEAD vector with its tag corrupted must be refused and release nothing; 0 or fail(). */
static int corrupted_tag(offload_ctx *ctx, offload_cipher_session *s, struct offload_cipher_op *op,
			 const struct cbuf *b, struct kat_outcome *o)
{
	uint8_t *out = op->out;
	uint8_t *tag = op->tag;
	size_t nz = 0;

	tag[0] ^= 0x01;
	memset(out, 0xa5, KAT_MAX);
	op->dir = OFFLOAD_DECRYPT;
	op->in = b->ct;
	int r = offload_cipher_session_run(s, op, sizeof(*op));
	for (long i = 0; i < b->ptlen; i++)
		nz += out[i] != 0;
	if (r != -EBADMSG || nz)
		return fail(o, ctx, 0, "corrupted tag: got %d (%s) and %zu non-zero output bytes, want "
			    "-EBADMSG and zeroed output", r, offload_strerror(r), nz);
	return 0;
}

static int run_cipher(offload_ctx *ctx, int dev, const struct kat_cipher *v, struct kat_outcome *o)
{
	static struct cbuf b; /* large; one runner at a time */
	uint8_t out[KAT_MAX], tag[16];
	offload_cipher_session *s = NULL;
	struct offload_result res = { 0 };
	int r;

	b.klen = kat_unhex(v->key, b.key, sizeof(b.key));
	b.ivlen = kat_unhex(v->iv, b.iv, sizeof(b.iv));
	b.aadlen = kat_unhex(v->aad, b.aad, sizeof(b.aad));
	b.ptlen = kat_unhex(v->pt, b.pt, sizeof(b.pt));
	b.ctlen = kat_unhex(v->ct, b.ct, sizeof(b.ct));
	b.taglen = kat_unhex(v->tag, b.tag, sizeof(b.tag));
	o->alg = offload_cipher_name(v->alg, b.klen < 0 ? 0 : (size_t)b.klen);
	if (!o->alg)
		o->alg = "?";
	if (b.klen < 0 || b.ivlen < 0 || b.aadlen < 0 || b.ptlen < 0 || b.ptlen != b.ctlen ||
	    b.taglen < 0)
		return fail(o, ctx, 0, "malformed vector");
	r = offload_cipher_session_open_dev(ctx, dev, v->alg, b.key, (size_t)b.klen, &s);
	if (r < 0)
		return fail(o, ctx, r, "session open");
	struct offload_cipher_op op = {
		.dir = OFFLOAD_ENCRYPT, .iv = b.ivlen ? b.iv : NULL, .iv_len = (size_t)b.ivlen,
		.aad = b.aadlen ? b.aad : NULL, .aad_len = (size_t)b.aadlen, .in = b.pt, .out = out,
		.len = (size_t)b.ptlen, .tag = b.taglen ? tag : NULL, .tag_len = (size_t)b.taglen,
		.result = &res,
	};
	int ret = 0;
	/* encrypt, out of place */
	r = offload_cipher_session_run(s, &op, sizeof(op));
	if (r < 0) {
		ret = fail(o, ctx, r, "encrypt");
		goto out;
	}
	o->driver = res.driver;
	o->flags = res.flags;
	if (memcmp(out, b.ct, (size_t)b.ctlen) != 0 || memcmp(tag, b.tag, (size_t)b.taglen) != 0) {
		ret = fail(o, ctx, 0, "encrypt: wrong %s", memcmp(out, b.ct, (size_t)b.ctlen) ? "ciphertext" : "tag");
		goto out;
	}
	/* decrypt, in place */
	memcpy(out, b.ct, (size_t)b.ctlen);
	memcpy(tag, b.tag, (size_t)b.taglen);
	op.dir = OFFLOAD_DECRYPT;
	op.in = out;
	r = offload_cipher_session_run(s, &op, sizeof(op));
	if (r < 0) {
		ret = fail(o, ctx, r, "decrypt (in place)");
		goto out;
	}
	if (memcmp(out, b.pt, (size_t)b.ptlen) != 0) {
		ret = fail(o, ctx, 0, "decrypt: wrong plaintext");
		goto out;
	}
	/* encrypt in place */
	op.dir = OFFLOAD_ENCRYPT;
	r = offload_cipher_session_run(s, &op, sizeof(op));
	if (r < 0 || memcmp(out, b.ct, (size_t)b.ctlen) != 0) {
		ret = fail(o, ctx, r, "encrypt (in place)%s", r < 0 ? "" : ": wrong ciphertext");
		goto out;
	}
	if (b.taglen)
		ret = corrupted_tag(ctx, s, &op, &b, o);
out:
	offload_cipher_session_close(s);
	return ret;
}

/* Feed msg (repeated) into a session in pieces of `piece` bytes (0 = whole). */
static int feed(offload_hash_session *s, const struct kat_hash *v, size_t piece)
{
	size_t ml = strlen(v->msg);
	for (unsigned long k = 0; k < v->repeat; k++) {
		if (ml == 1 && v->repeat >= 1000 && k + 1000 <= v->repeat) {
			static char block[1000];
			memset(block, v->msg[0], sizeof(block));
			int r = offload_hash_update(s, block, sizeof(block));
			if (r < 0)
				return r;
			k += 999;
			continue;
		}
		for (size_t off = 0; off < ml || (ml == 0 && off == 0);) {
			size_t n = piece ? (piece < ml - off ? piece : ml - off) : ml - off;
			int r = offload_hash_update(s, v->msg + off, n);
			if (r < 0)
				return r;
			off += n;
			if (ml == 0)
				break;
		}
	}
	return 0;
}

static int run_hash(offload_ctx *ctx, int dev, const struct kat_hash *v, struct kat_outcome *o)
{
	uint8_t key[256], want[64], got[64];
	long klen = v->key ? kat_unhex(v->key, key, sizeof(key)) : 0;
	long dlen = kat_unhex(v->digest, want, sizeof(want));
	offload_hash_session *s = NULL;
	struct offload_result res = { 0 };
	int r, ret = 0;

	o->alg = offload_hash_name(v->alg);
	if (klen < 0 || dlen <= 0)
		return fail(o, ctx, 0, "malformed vector");
	r = offload_hash_open_dev(ctx, dev, v->alg, v->key ? key : NULL, (size_t)klen, &s);
	if (r < 0)
		return fail(o, ctx, r, "open");
	/* whole message, then the same in 1-byte and 7-byte pieces (reusing the session) */
	static const size_t pieces[] = { 0, 1, 7 };
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		memset(got, 0, sizeof(got));
		r = feed(s, v, pieces[i]);
		if (r == 0)
			r = offload_hash_final(s, got, sizeof(got), &res);
		if (r < 0) {
			ret = fail(o, ctx, r, "hash (pieces of %zu)", pieces[i]);
			break;
		}
		o->driver = res.driver;
		o->flags = res.flags;
		if (r != dlen || memcmp(got, want, (size_t)dlen) != 0) {
			ret = fail(o, ctx, 0, "wrong digest (pieces of %zu)", pieces[i]);
			break;
		}
		if (v->repeat > 1)
			break; /* a million 1-byte updates is too slow to be useful */
	}
	offload_hash_close(s);
	return ret;
}

int kat_run_device(offload_ctx *ctx, int dev, kat_report_fn fn, void *arg)
{
	int failures = 0;

	for (size_t i = 0; i < kat_ncipher; i++) {
		struct kat_outcome o = { .source = kat_ciphers[i].source, .driver = "" };
		run_cipher(ctx, dev, &kat_ciphers[i], &o);
		failures += o.status == KAT_FAIL;
		fn(arg, &o);
	}
	for (size_t i = 0; i < kat_nhash; i++) {
		struct kat_outcome o = { .source = kat_hashes[i].source, .driver = "" };
		run_hash(ctx, dev, &kat_hashes[i], &o);
		failures += o.status == KAT_FAIL;
		fn(arg, &o);
	}
	return failures;
}
