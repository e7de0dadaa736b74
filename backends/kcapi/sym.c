/* SPDX-License-Identifier: MIT */
/*
 * AF_ALG skcipher and AEAD through libkcapi.
 *
 * libkcapi's one-shot skcipher call splits inputs above 16 pages (64 KiB on
 * 4 KiB pages) into chunks that each restart from the caller's IV, so CBC
 * and CTR output past 64 KiB would be wrong (libkcapi lib/kcapi-kernel-if.c
 * _kcapi_cipher_crypt_chunk(); libkcapi issue
 * #127). We therefore hand libkcapi at most 64 KiB at a time and chain the
 * IV ourselves: CBC continues from the last ciphertext block, CTR from the
 * counter advanced by the blocks done. Every chunk is a whole number of
 * blocks except the last.
 *
 * AEAD (gcm(aes)) cannot be chunked: the kernel needs AAD, data and tag in
 * one message, so one operation is limited to KC_AEAD_MAX bytes; above it
 * automatic selection uses the CPU and an explicit af_alg session gets
 * -E2BIG. The AF_ALG layout is AAD || data (|| tag), staged in a session
 * buffer that only grows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcapi.h>

#include "kcapi_int.h"

#define KC_CHUNK (64u * 1024u)
#define KC_AEAD_MAX (64u * 1024u)

struct kc_cipher {
	struct ofl_device *dev;
	struct kc_state *st;
	struct kc_alg *a;
	struct kcapi_handle *h;
	enum offload_cipher_alg alg;
	const struct ofl_cipher_info *ci;
	const char *driver;  /* what the kernel bound (ofl_kc_resolve) */
	bool hw;
	size_t taglen;       /* tag length set on the tfm, 0 = none yet */
	uint8_t *stage;      /* AEAD staging buffer */
	size_t stage_cap;
};

static int kc_cipher_query(struct ofl_device *dev, enum offload_cipher_alg alg, bool *hw,
			   char *why, size_t why_len)
{
	struct kc_state *st = dev->bstate;

	if ((int)alg < 1 || (int)alg > KC_NCIPHER)
		return snprintf(why, why_len, "unknown algorithm"), -ENOTSUP;
	return ofl_kc_query(&st->cipher[alg - 1], hw, why, why_len);
}

static size_t kc_cipher_max_len(struct ofl_device *dev, enum offload_cipher_alg alg)
{
	OFL_UNUSED(dev);
	return alg == OFFLOAD_CIPHER_AES_GCM ? KC_AEAD_MAX : SIZE_MAX;
}

static void kc_cipher_close(void *bs)
{
	struct kc_cipher *c = bs;

	/* The key lives in the kernel tfm: closing the socket frees (and the
	 * kernel zeroes) it. */
	if (c->h) {
		if (c->ci->aead)
			kcapi_aead_destroy(c->h);
		else
			kcapi_cipher_destroy(c->h);
	}
	if (c->stage) {
		ofl_wipe(c->stage, c->stage_cap);
		free(c->stage);
	}
	free(c);
}

static int kc_cipher_open(struct ofl_device *dev, enum offload_cipher_alg alg, const uint8_t *key,
			  size_t key_len, void **bs)
{
	struct kc_state *st = dev->bstate;
	struct kc_cipher *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return ofl_err(dev->ctx, -ENOMEM, "kcapi backend: out of memory");
	c->dev = dev;
	c->st = st;
	c->alg = alg;
	c->ci = ofl_cipher_info(alg);
	c->a = &st->cipher[alg - 1];
	if (c->ci->aead) {
		r = kcapi_aead_init(&c->h, ofl_kc_bind_name(st, c->a), 0);
		if (r == 0)
			r = kcapi_aead_setkey(c->h, key, (uint32_t)key_len);
	} else {
		r = kcapi_cipher_init(&c->h, ofl_kc_bind_name(st, c->a), 0);
		if (r == 0)
			r = kcapi_cipher_setkey(c->h, key, (uint32_t)key_len);
	}
	if (r < 0) {
		r = ofl_kc_err(dev, r, c->h ? "setkey" : "init", c->a);
		kc_cipher_close(c);
		return r;
	}
	c->driver = ofl_kc_resolve(st, c->a, &c->hw);
	*bs = c;
	return 0;
}

/* Add n blocks to a 128-bit big-endian counter. */
static void ctr_add(uint8_t ctr[16], uint64_t n)
{
	for (int i = 15; i >= 0 && n; i--) {
		uint64_t s = (uint64_t)ctr[i] + (n & 0xff);
		ctr[i] = (uint8_t)s;
		n = (n >> 8) + (s >> 8);
	}
}

static int kc_stage(struct kc_cipher *c, size_t need);

static int kc_skcipher_run(struct kc_cipher *c, const struct offload_cipher_op *op)
{
	const uint8_t *in = op->in;
	uint8_t *out = op->out;
	uint8_t iv[16], next[16];
	size_t ivl = c->ci->iv_len, bl = c->ci->block;
	bool cbc = c->alg == OFFLOAD_CIPHER_AES_CBC || c->alg == OFFLOAD_CIPHER_DES3_CBC;
	bool enc = op->dir == OFFLOAD_ENCRYPT;
	/*
	 * The kernel pins the pages it is given; a dma-buf mapping has none
	 * (EFAULT, and the operation socket is left unusable): such data goes
	 * through the staging buffer, filled and emptied by the CPU.
	 */
	bool bounce = ofl_ctx_in_dmabuf(c->dev->ctx, in, op->len) || ofl_ctx_in_dmabuf(c->dev->ctx, out, op->len);
	int r0;

	if (bounce && (r0 = kc_stage(c, OFL_MIN(op->len, (size_t)KC_CHUNK))) < 0)
		return r0;
	if (ivl)
		memcpy(iv, op->iv, ivl);
	for (size_t off = 0; off < op->len;) {
		size_t n = OFL_MIN(op->len - off, (size_t)KC_CHUNK);
		const uint8_t *ci = in + off;
		uint8_t *co = out + off;
		if (cbc && !enc) /* in-place would overwrite the chaining block */
			memcpy(next, in + off + n - bl, bl);
		if (bounce) {
			memcpy(c->stage, ci, n);
			ci = co = c->stage;
		}
		ssize_t r = enc ? kcapi_cipher_encrypt(c->h, ci, n, ivl ? iv : NULL, co, n, KCAPI_ACCESS_HEURISTIC)
				: kcapi_cipher_decrypt(c->h, ci, n, ivl ? iv : NULL, co, n, KCAPI_ACCESS_HEURISTIC);
		if (r < 0)
			return ofl_kc_err(c->dev, (int)r, enc ? "encrypt" : "decrypt", c->a);
		if ((size_t)r != n)
			return ofl_err(c->dev->ctx, -EIO,
				       "kcapi backend: %s returned %zd of %zu bytes", c->a->cra_name, r, n);
		if (bounce)
			memcpy(out + off, c->stage, n);
		if (cbc)
			memcpy(iv, enc ? out + off + n - bl : next, bl);
		else if (c->alg == OFFLOAD_CIPHER_AES_CTR)
			ctr_add(iv, n / 16);
		off += n;
	}
	ofl_wipe(next, sizeof(next));
	return 0;
}

static int kc_stage(struct kc_cipher *c, size_t need)
{
	if (need <= c->stage_cap)
		return 0;
	size_t cap = 4096;
	while (cap < need)
		cap *= 2;
	uint8_t *p = malloc(cap);
	if (!p)
		return ofl_err(c->dev->ctx, -ENOMEM, "kcapi backend: out of memory");
	if (c->stage) {
		ofl_wipe(c->stage, c->stage_cap);
		free(c->stage);
	}
	c->stage = p;
	c->stage_cap = cap;
	return 0;
}

static int kc_aead_run(struct kc_cipher *c, const struct offload_cipher_op *op)
{
	bool enc = op->dir == OFFLOAD_ENCRYPT;
	size_t as = op->aad_len, n = op->len, t = op->tag_len;
	size_t total = as + n + t;
	int r = kc_stage(c, total);

	if (r < 0)
		return r;
	if (c->taglen != t) {
		r = kcapi_aead_settaglen(c->h, (uint32_t)t);
		if (r < 0)
			return ofl_kc_err(c->dev, r, "settaglen", c->a);
		c->taglen = t;
	}
	uint8_t *s = c->stage;
	if (as)
		memcpy(s, op->aad, as);
	if (n)
		memcpy(s + as, op->in, n);
	kcapi_aead_setassoclen(c->h, as);
	ssize_t got;
	if (enc) {
		got = kcapi_aead_encrypt(c->h, s, as + n, op->iv, s, total, KCAPI_ACCESS_SENDMSG);
		if (got >= 0 && (size_t)got != total)
			got = -EIO;
		if (got >= 0) {
			if (n)
				memcpy(op->out, s + as, n);
			memcpy(op->tag, s + as + n, t);
		}
	} else {
		memcpy(s + as + n, op->tag, t);
		/* A zero-length receive is never processed by the kernel (the request
		 * would stay queued and spoil the next one): offer one spare byte. */
		got = kcapi_aead_decrypt(c->h, s, total, op->iv, s, as + n ? as + n : 1,
					 KCAPI_ACCESS_SENDMSG);
		if (got >= 0 && (size_t)got != as + n)
			got = -EIO;
		if (got >= 0 && n)
			memcpy(op->out, s + as, n);
	}
	ofl_wipe(s, total);
	if (got == -EBADMSG)
		return -EBADMSG;
	if (got < 0)
		return ofl_kc_err(c->dev, (int)got, enc ? "AEAD encrypt" : "AEAD decrypt", c->a);
	return 0;
}

static int kc_cipher_run(void *bs, const struct offload_cipher_op *op, const char **driver,
			 uint32_t *flags)
{
	struct kc_cipher *c = bs;

	*driver = c->driver;
	*flags = OFFLOAD_RES_KERNEL | (c->hw ? OFFLOAD_RES_HARDWARE : 0);
	return c->ci->aead ? kc_aead_run(c, op) : kc_skcipher_run(c, op);
}

/*
 * No .iv_ok: the kernel's gcm(aes) takes the 12-byte IV only (crypto/gcm.c,
 * crypto_gcm_create_common sets the instance's ivsize to GCM_AES_IV_SIZE; every
 * driver of gcm(aes) must match it) and af_alg_sendmsg (crypto/af_alg.c)
 * refuses an ALG_SET_IV whose ivlen differs from the tfm's ivsize, so a
 * non-96-bit IV is -ENOTSUP here (the core words it) and AUTO uses the CPU.
 */
const struct ofl_cipher_ops ofl_kcapi_cipher_ops = {
	.query = kc_cipher_query,
	.max_len = kc_cipher_max_len,
	.open = kc_cipher_open,
	.run = kc_cipher_run,
	.close = kc_cipher_close,
};
