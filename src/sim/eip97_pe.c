/* SPDX-License-Identifier: MIT */
/*
 * EIP97 model, processing side: context record decode, token
 * interpretation, the crypto and hash engines (hw/eip97.h §4, §5).
 *
 * Ciphers are OpenSSL EVP (AES and DES ECB/CBC; CTR_LOAD keystream from
 * AES-ECB over counter blocks with the engine's 32-bit big-endian counter,
 * which wraps without carrying into word 2). Hashes are OpenSSL's
 * low-level compression functions, whose context structures let the model
 * load a precomputed state and byte count as the engine does. GHASH is a
 * bitwise GF(2^128) multiply (SP 800-38D algorithm 1) on H as the engine
 * reads it from the context record: OpenSSL has no interface that takes an
 * arbitrary H, and reading H from memory is the point (hw/eip97.h §4.3 stores
 * it byte-reversed per 32-bit word; a record written in the wrong order
 * must give a wrong tag here too).
 *
 * Formats the model chooses where no source settles them:
 *  - model: an intermediate (NO_FINISH) hash state is written out as the
 *    state words in the digest's byte order (big-endian words for SHA,
 *    little-endian for MD5), and read back from a context record the same
 *    way, so the engine round-trips its own format (§4.3);
 *  - model: the error bits named in src/hw/eip97.h (EIP97_E_*).
 */
#define OPENSSL_API_COMPAT 0x10101000L /* the low-level digest API: state import */
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/provider.h>
#include <openssl/sha.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "hw/eip97.h"
#include "sim/eip97_pe.h"

#define KS_BLOCKS 256 /* keystream blocks per EVP call */

struct eip97_pe {
	OSSL_LIB_CTX *lib;
	OSSL_PROVIDER *prov[2];
	EVP_CIPHER *aes_ecb[3], *aes_cbc[3];
	EVP_CIPHER *des_ecb, *des_cbc, *des3_ecb, *des3_cbc;
	EVP_CIPHER_CTX *cx;
	uint8_t ks[KS_BLOCKS * 16], ctrs[KS_BLOCKS * 16];
};

static void pe_release(struct eip97_pe *pe)
{
	for (int i = 0; i < 3; i++) {
		EVP_CIPHER_free(pe->aes_ecb[i]);
		EVP_CIPHER_free(pe->aes_cbc[i]);
	}
	EVP_CIPHER_free(pe->des_ecb);
	EVP_CIPHER_free(pe->des_cbc);
	EVP_CIPHER_free(pe->des3_ecb);
	EVP_CIPHER_free(pe->des3_cbc);
	EVP_CIPHER_CTX_free(pe->cx);
	for (int i = 0; i < 2; i++)
		if (pe->prov[i])
			OSSL_PROVIDER_unload(pe->prov[i]);
	OSSL_LIB_CTX_free(pe->lib);
}

struct eip97_pe *eip97_pe_new(char *why, size_t wl)
{
	static const char *const ecb[3] = { "AES-128-ECB", "AES-192-ECB", "AES-256-ECB" };
	static const char *const cbc[3] = { "AES-128-CBC", "AES-192-CBC", "AES-256-CBC" };
	struct eip97_pe *pe = calloc(1, sizeof(*pe));

	if (!pe) {
		snprintf(why, wl, "out of memory");
		return NULL;
	}
	pe->lib = OSSL_LIB_CTX_new();
	if (pe->lib)
		pe->prov[0] = OSSL_PROVIDER_load(pe->lib, "default");
	if (!pe->prov[0]) {
		snprintf(why, wl, "OpenSSL's default provider cannot be loaded");
		goto fail;
	}
	/* single DES lives in the legacy provider (OpenSSL 3); without it the model has no DES */
	pe->prov[1] = OSSL_PROVIDER_load(pe->lib, "legacy");
	for (int i = 0; i < 3; i++) {
		pe->aes_ecb[i] = EVP_CIPHER_fetch(pe->lib, ecb[i], NULL);
		pe->aes_cbc[i] = EVP_CIPHER_fetch(pe->lib, cbc[i], NULL);
		if (!pe->aes_ecb[i] || !pe->aes_cbc[i]) {
			snprintf(why, wl, "OpenSSL provides no %s", cbc[i]);
			goto fail;
		}
	}
	pe->des_ecb = EVP_CIPHER_fetch(pe->lib, "DES-ECB", NULL);
	pe->des_cbc = EVP_CIPHER_fetch(pe->lib, "DES-CBC", NULL);
	pe->des3_ecb = EVP_CIPHER_fetch(pe->lib, "DES-EDE3-ECB", NULL);
	pe->des3_cbc = EVP_CIPHER_fetch(pe->lib, "DES-EDE3-CBC", NULL);
	pe->cx = EVP_CIPHER_CTX_new();
	if (!pe->cx) {
		snprintf(why, wl, "out of memory");
		goto fail;
	}
	return pe;
fail:
	pe_release(pe);
	free(pe);
	return NULL;
}

void eip97_pe_free(struct eip97_pe *pe)
{
	if (!pe)
		return;
	pe_release(pe);
	free(pe);
}

uint32_t eip97_pe_algos(const struct eip97_pe *pe)
{
	uint32_t a = EIP97_ALG_AES | EIP97_ALG_MD5 | EIP97_ALG_SHA1 | EIP97_ALG_SHA2_256 |
		     EIP97_ALG_SHA2_512 | EIP97_ALG_GHASH;

	if (pe->des_ecb && pe->des_cbc && pe->des3_ecb && pe->des3_cbc)
		a |= EIP97_ALG_DES;
	return a;
}

/* ------------------------------------------------------------- byte order */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/* ------------------------------------------------------------- hash engine */

struct hash {
	uint32_t alg;          /* EIP97_HALG_* */
	unsigned state_bytes;  /* 16, 20, 32 or 64: what INSERT_HASH_DIGEST can output */
	unsigned digest_bytes; /* the algorithm's digest (SHA-224: 28, SHA-384: 48) */
	unsigned block;
	union {
		MD5_CTX md5;
		SHA_CTX sha1;
		SHA256_CTX s256;
		SHA512_CTX s512;
	} c;
};

static bool hash_setup(struct hash *h, uint32_t alg)
{
	memset(h, 0, sizeof(*h));
	h->alg = alg;
	h->block = 64;
	switch (alg) {
	case EIP97_HALG_MD5: h->state_bytes = h->digest_bytes = 16; MD5_Init(&h->c.md5); break;
	case EIP97_HALG_SHA1: h->state_bytes = h->digest_bytes = 20; SHA1_Init(&h->c.sha1); break;
	case EIP97_HALG_SHA224:
		h->state_bytes = 32;
		h->digest_bytes = 28;
		SHA224_Init(&h->c.s256);
		h->c.s256.md_len = SHA256_DIGEST_LENGTH; /* the engine outputs the whole state */
		break;
	case EIP97_HALG_SHA256: h->state_bytes = h->digest_bytes = 32; SHA256_Init(&h->c.s256); break;
	case EIP97_HALG_SHA384:
		h->state_bytes = 64;
		h->digest_bytes = 48;
		h->block = 128;
		SHA384_Init(&h->c.s512);
		h->c.s512.md_len = SHA512_DIGEST_LENGTH;
		break;
	case EIP97_HALG_SHA512:
		h->state_bytes = h->digest_bytes = 64;
		h->block = 128;
		SHA512_Init(&h->c.s512);
		break;
	default:
		return false;
	}
	return true;
}

/* Load a state (engine format, see the file comment) and the bytes hashed before it. */
static void hash_load(struct hash *h, const uint8_t *st, uint64_t bytes)
{
	uint32_t nl = (uint32_t)(bytes << 3), nh = (uint32_t)(bytes >> 29);

	switch (h->alg) {
	case EIP97_HALG_MD5:
		h->c.md5.A = le32(st);
		h->c.md5.B = le32(st + 4);
		h->c.md5.C = le32(st + 8);
		h->c.md5.D = le32(st + 12);
		h->c.md5.Nl = nl;
		h->c.md5.Nh = nh;
		break;
	case EIP97_HALG_SHA1:
		h->c.sha1.h0 = be32(st);
		h->c.sha1.h1 = be32(st + 4);
		h->c.sha1.h2 = be32(st + 8);
		h->c.sha1.h3 = be32(st + 12);
		h->c.sha1.h4 = be32(st + 16);
		h->c.sha1.Nl = nl;
		h->c.sha1.Nh = nh;
		break;
	case EIP97_HALG_SHA224:
	case EIP97_HALG_SHA256:
		for (int i = 0; i < 8; i++)
			h->c.s256.h[i] = be32(st + 4 * i);
		h->c.s256.Nl = nl;
		h->c.s256.Nh = nh;
		break;
	default:
		for (int i = 0; i < 8; i++)
			h->c.s512.h[i] = be64(st + 8 * i);
		h->c.s512.Nl = bytes << 3;
		h->c.s512.Nh = bytes >> 61;
		break;
	}
}

static void hash_update(struct hash *h, const uint8_t *p, size_t n)
{
	switch (h->alg) {
	case EIP97_HALG_MD5: MD5_Update(&h->c.md5, p, n); break;
	case EIP97_HALG_SHA1: SHA1_Update(&h->c.sha1, p, n); break;
	case EIP97_HALG_SHA224:
	case EIP97_HALG_SHA256: SHA256_Update(&h->c.s256, p, n); break;
	default: SHA512_Update(&h->c.s512, p, n); break;
	}
}

/* Bytes in the partial block (a state can be exported only at a block boundary). */
static unsigned hash_partial(const struct hash *h)
{
	switch (h->alg) {
	case EIP97_HALG_MD5: return h->c.md5.num;
	case EIP97_HALG_SHA1: return h->c.sha1.num;
	case EIP97_HALG_SHA224:
	case EIP97_HALG_SHA256: return h->c.s256.num;
	default: return h->c.s512.num;
	}
}

/* The state without padding (NO_FINISH), in the engine's format. */
static void hash_export(const struct hash *h, uint8_t *out)
{
	switch (h->alg) {
	case EIP97_HALG_MD5:
		put_le32(out, h->c.md5.A);
		put_le32(out + 4, h->c.md5.B);
		put_le32(out + 8, h->c.md5.C);
		put_le32(out + 12, h->c.md5.D);
		break;
	case EIP97_HALG_SHA1:
		put_be32(out, h->c.sha1.h0);
		put_be32(out + 4, h->c.sha1.h1);
		put_be32(out + 8, h->c.sha1.h2);
		put_be32(out + 12, h->c.sha1.h3);
		put_be32(out + 16, h->c.sha1.h4);
		break;
	case EIP97_HALG_SHA224:
	case EIP97_HALG_SHA256:
		for (int i = 0; i < 8; i++)
			put_be32(out + 4 * i, h->c.s256.h[i]);
		break;
	default:
		for (int i = 0; i < 8; i++)
			put_be64(out + 8 * i, h->c.s512.h[i]);
		break;
	}
}

/* Pad and finish: state_bytes of output (SHA-224/384: the whole state, digest first). */
static void hash_final(struct hash *h, uint8_t *out)
{
	switch (h->alg) {
	case EIP97_HALG_MD5: MD5_Final(out, &h->c.md5); break;
	case EIP97_HALG_SHA1: SHA1_Final(out, &h->c.sha1); break;
	case EIP97_HALG_SHA224:
	case EIP97_HALG_SHA256: SHA256_Final(out, &h->c.s256); break;
	default: SHA512_Final(out, &h->c.s512); break;
	}
}

/* ------------------------------------------------------------- GHASH */

/* X = X * H in GF(2^128), SP 800-38D algorithm 1 (bit 0 = the MSB of byte 0). */
static void gf_mul(uint8_t x[16], const uint8_t h[16])
{
	uint64_t zh = 0, zl = 0, vh = be64(h), vl = be64(h + 8);

	for (int i = 0; i < 128; i++) {
		uint64_t bit = (uint64_t)((x[i >> 3] >> (7 - (i & 7))) & 1u);
		uint64_t m = 0 - bit;
		zh ^= vh & m;
		zl ^= vl & m;
		uint64_t lsb = vl & 1u;
		vl = (vl >> 1) | (vh << 63);
		vh = (vh >> 1) ^ ((0 - lsb) & 0xe100000000000000ull);
	}
	put_be64(x, zh);
	put_be64(x + 8, zl);
}

struct ghash {
	uint8_t h[16], y[16], part[16];
	unsigned partlen;
	uint64_t alen, clen;  /* bytes of AAD and of ciphertext hashed */
	bool in_c;
};

static void ghash_block(struct ghash *g, const uint8_t b[16])
{
	for (int i = 0; i < 16; i++)
		g->y[i] ^= b[i];
	gf_mul(g->y, g->h);
}

static void ghash_pad(struct ghash *g)
{
	if (g->partlen) {
		memset(g->part + g->partlen, 0, 16 - g->partlen);
		ghash_block(g, g->part);
		g->partlen = 0;
	}
}

static void ghash_update(struct ghash *g, const uint8_t *p, size_t n, bool ciphertext)
{
	if (ciphertext && !g->in_c) {
		ghash_pad(g); /* the AAD is zero-padded to a whole block */
		g->in_c = true;
	}
	if (ciphertext)
		g->clen += n;
	else
		g->alen += n;
	while (n) {
		size_t k = OFL_MIN((size_t)(16 - g->partlen), n);
		memcpy(g->part + g->partlen, p, k);
		g->partlen += (unsigned)k;
		p += k;
		n -= k;
		if (g->partlen == 16) {
			ghash_block(g, g->part);
			g->partlen = 0;
		}
	}
}

static void ghash_final(struct ghash *g, uint8_t out[16])
{
	uint8_t lens[16];

	ghash_pad(g);
	put_be64(lens, g->alen * 8);
	put_be64(lens + 8, g->clen * 8);
	ghash_block(g, lens);
	memcpy(out, g->y, 16);
}

/* ------------------------------------------------------------- one packet */

enum { T_NONE, T_CRYPTO, T_HASH, T_GCM };

struct run {
	struct eip97_pe *pe;
	struct eip97_job *j;
	uint32_t err;
	int kind;
	bool enc;
	/* crypto */
	uint32_t mode;
	const EVP_CIPHER *cipher;  /* ECB/CBC: the EVP cipher; CTR: AES-ECB for the keystream */
	unsigned block;
	bool cx_ready;
	uint8_t key[32], ctr[16], ekj0[16];
	bool have_ekj0;
	/* hash */
	struct hash h;
	bool restart, no_finish, hmac, digest_done;
	uint8_t ostate[64], digest[64];
	struct ghash g;
	/* token state */
	size_t in_pos;
	uint32_t drop;            /* result bytes still to remove (INSERT_REMRES) */
	uint8_t icv[64];
	unsigned icv_len;
};

static void emit(struct run *r, const uint8_t *p, size_t n)
{
	struct eip97_job *j = r->j;

	if (r->drop) {
		size_t k = OFL_MIN((size_t)r->drop, n);
		r->drop -= (uint32_t)k;
		p += k;
		n -= k;
	}
	if (!n)
		return;
	if (j->out_len + n > j->out_cap) {
		r->err |= EIP97_E_TOKEN; /* model: more output than the engine buffers */
		return;
	}
	memcpy(j->out + j->out_len, p, n);
	j->out_len += n;
}

static bool cx_init(struct run *r, const uint8_t *iv)
{
	EVP_CIPHER_CTX *cx = r->pe->cx;
	bool enc = r->mode == EIP97_MODE_CTR_LOAD ? true : r->enc;

	if (!EVP_CipherInit_ex2(cx, r->cipher, r->key, iv, enc, NULL))
		return false;
	EVP_CIPHER_CTX_set_padding(cx, 0);
	r->cx_ready = true;
	return true;
}

/* CTR_LOAD: keystream from the counter block, 32-bit big-endian counter in bytes 12..15. */
static void ctr_crypt(struct run *r, const uint8_t *in, uint8_t *out, size_t n)
{
	struct eip97_pe *pe = r->pe;

	while (n) {
		size_t nb = OFL_MIN((n + 15) / 16, (size_t)KS_BLOCKS);
		for (size_t b = 0; b < nb; b++) {
			memcpy(pe->ctrs + b * 16, r->ctr, 16);
			put_be32(r->ctr + 12, be32(r->ctr + 12) + 1u); /* wraps within 32 bits */
		}
		int l = 0;
		EVP_CipherUpdate(pe->cx, pe->ks, &l, pe->ctrs, (int)(nb * 16));
		size_t k = OFL_MIN(n, nb * 16);
		for (size_t i = 0; i < k; i++)
			out[i] = in[i] ^ pe->ks[i];
		in += k;
		out += k;
		n -= k;
	}
}

/* Run `n` bytes through the cipher (in may equal out). */
static void cipher_run(struct run *r, const uint8_t *in, uint8_t *out, size_t n)
{
	if (!n)
		return;
	if (r->mode == EIP97_MODE_CTR_LOAD) {
		ctr_crypt(r, in, out, n);
		return;
	}
	int l = 0;
	EVP_CipherUpdate(r->pe->cx, out, &l, in, (int)n);
}

/* The digest the INSERT/VERIFY instructions see, computed once. */
static const uint8_t *digest(struct run *r, unsigned *len)
{
	if (!r->digest_done) {
		r->digest_done = true;
		if (r->kind == T_GCM) {
			ghash_final(&r->g, r->digest);
			for (int i = 0; i < 16; i++)
				r->digest[i] ^= r->ekj0[i];
		} else if (r->no_finish) {
			if (hash_partial(&r->h))
				r->err |= EIP97_E_HASH_BLOCK; /* model: a state exists only at block ends */
			hash_export(&r->h, r->digest);
		} else if (r->hmac) {
			uint8_t inner[64];
			hash_final(&r->h, inner);
			uint32_t alg = r->h.alg;
			unsigned dlen = r->h.digest_bytes;
			hash_setup(&r->h, alg);
			hash_load(&r->h, r->ostate, r->h.block);
			hash_update(&r->h, inner, dlen);
			hash_final(&r->h, r->digest);
		} else {
			hash_final(&r->h, r->digest);
		}
	}
	*len = r->kind == T_GCM ? 16u : r->h.state_bytes;
	return r->digest;
}

static void op_direction(struct run *r, uint32_t w)
{
	struct eip97_job *j = r->j;
	uint32_t ins = EIP97_TOK_INS(w), len = EIP97_TOK_LEN(w);
	bool c = ins & EIP97_INS_TYPE_CRYPTO, h = ins & EIP97_INS_TYPE_HASH;

	if (len > j->in_len - r->in_pos) {
		r->err |= EIP97_E_UNDERRUN;
		return;
	}
	if ((c && r->kind != T_CRYPTO && r->kind != T_GCM) ||
	    (h && r->kind != T_HASH && r->kind != T_GCM)) {
		r->err |= EIP97_E_TOKEN; /* an engine the context record does not set up */
		return;
	}
	const uint8_t *in = j->in + r->in_pos;
	r->in_pos += len;
	if (!c) {
		if (h && r->kind == T_GCM)
			ghash_update(&r->g, in, len, false);
		else if (h)
			hash_update(&r->h, in, len);
		if (ins & EIP97_INS_TYPE_OUTPUT)
			emit(r, in, len);
		return;
	}
	if (r->mode != EIP97_MODE_CTR_LOAD && len % r->block) {
		r->err |= EIP97_E_BLOCK;
		return;
	}
	uint8_t *tmp = malloc(len ? len : 1);
	if (!tmp) {
		r->err |= EIP97_E_DMA;
		return;
	}
	if (h && !r->enc)
		ghash_update(&r->g, in, len, true); /* HASH_DECRYPT_IN: hash the ciphertext */
	cipher_run(r, in, tmp, len);
	if (h && r->enc)
		ghash_update(&r->g, tmp, len, true); /* ENCRYPT_HASH_OUT: hash the result */
	if (ins & EIP97_INS_TYPE_OUTPUT)
		emit(r, tmp, len);
	free(tmp);
}

static void op_insert(struct run *r, uint32_t w)
{
	uint32_t ins = EIP97_TOK_INS(w), len = EIP97_TOK_LEN(w);

	if (EIP97_INS_SUB(ins) == EIP97_INS_INSERT_HASH_DIGEST) {
		unsigned dl;
		const uint8_t *d = digest(r, &dl);
		if (len > dl || r->kind == T_CRYPTO || r->kind == T_NONE) {
			r->err |= EIP97_E_TOKEN;
			return;
		}
		if (ins & EIP97_INS_TYPE_OUTPUT)
			emit(r, d, len);
		return;
	}
	if (EIP97_INS_SUB(ins) != 0) {
		r->err |= EIP97_E_TOKEN; /* model: token/IV origins are not modelled */
		return;
	}
	if (!(ins & (EIP97_INS_TYPE_CRYPTO | EIP97_INS_TYPE_OUTPUT | EIP97_INS_TYPE_HASH)))
		return; /* NOOP: inserted into no engine */
	if (len > 64) {
		r->err |= EIP97_E_TOKEN; /* model: only short inserts (GCM's E(J0) block) */
		return;
	}
	uint8_t z[64] = { 0 };
	if (ins & EIP97_INS_TYPE_CRYPTO) {
		if (r->kind != T_GCM && r->kind != T_CRYPTO) {
			r->err |= EIP97_E_TOKEN;
			return;
		}
		cipher_run(r, z, z, len);
		if (r->kind == T_GCM && !r->have_ekj0 && len == 16) {
			/* model: the first crypto block of an XCM packet is kept as E(J0) for the tag */
			memcpy(r->ekj0, z, 16);
			r->have_ekj0 = true;
		}
	}
	if (ins & EIP97_INS_TYPE_OUTPUT)
		emit(r, z, len);
}

static void op_retrieve(struct run *r, uint32_t w)
{
	struct eip97_job *j = r->j;
	uint32_t len = EIP97_TOK_LEN(w);

	if (len > sizeof(r->icv)) {
		r->err |= EIP97_E_TOKEN;
		return;
	}
	if (len > j->in_len - r->in_pos) {
		r->err |= EIP97_E_UNDERRUN;
		return;
	}
	memcpy(r->icv, j->in + r->in_pos, len);
	r->icv_len = len;
	r->in_pos += len;
}

static void op_verify(struct run *r, uint32_t w)
{
	uint32_t len = w & 0xffffu;
	unsigned dl;
	const uint8_t *d;

	if (r->kind == T_CRYPTO || r->kind == T_NONE || !(w & EIP97_VERIFY_HASH_RESULT) ||
	    len != r->icv_len) {
		r->err |= EIP97_E_TOKEN;
		return;
	}
	d = digest(r, &dl);
	if (len > dl) {
		r->err |= EIP97_E_TOKEN;
		return;
	}
	if (memcmp(d, r->icv, len) != 0)
		r->err |= EIP97_ERR_ICV;
	/* model: VERIFY writes nothing to the output even with TYPE_OUTPUT (Linux gives it no room) */
}

/* ------------------------------------------------------------- context decode */

static unsigned aes_index(uint32_t calg)
{
	return calg - EIP97_CALG_AES128;
}

static bool setup_cipher(struct run *r, uint32_t c0, uint32_t c1, unsigned *key_words)
{
	struct eip97_pe *pe = r->pe;
	struct eip97_job *j = r->j;
	uint32_t calg = EIP97_C0_CALG_GET(c0);
	bool des = calg == EIP97_CALG_DES || calg == EIP97_CALG_3DES;

	r->mode = EIP97_C1_MODE(c1);
	switch (calg) {
	case EIP97_CALG_DES: *key_words = 2; break;
	case EIP97_CALG_3DES: *key_words = 6; break;
	case EIP97_CALG_AES128: *key_words = 4; break;
	case EIP97_CALG_AES192: *key_words = 6; break;
	case EIP97_CALG_AES256: *key_words = 8; break;
	default: return false;
	}
	if (!(c0 & EIP97_C0_KEY_EN) || j->ctx_len < *key_words * 4u)
		return false;
	memcpy(r->key, j->ctx, *key_words * 4u); /* keys are stored in raw byte order (§4.3) */
	r->block = des ? 8 : 16;
	if (r->mode == EIP97_MODE_ECB)
		r->cipher = des ? (calg == EIP97_CALG_DES ? pe->des_ecb : pe->des3_ecb)
				: pe->aes_ecb[aes_index(calg)];
	else if (r->mode == EIP97_MODE_CBC)
		r->cipher = des ? (calg == EIP97_CALG_DES ? pe->des_cbc : pe->des3_cbc)
				: pe->aes_cbc[aes_index(calg)];
	else if (r->mode == EIP97_MODE_CTR_LOAD && !des)
		r->cipher = pe->aes_ecb[aes_index(calg)];
	else
		return false; /* model: OFB/CFB/XTS/ChaCha/DES-CTR are not modelled */
	if (!r->cipher)
		return false;
	if (r->mode == EIP97_MODE_ECB)
		return cx_init(r, NULL);
	/* CBC: the IV (block size) from the token; CTR_LOAD: the 16-byte counter block */
	unsigned need = r->mode == EIP97_MODE_CBC ? r->block / 4u : 4u;
	if (j->iv_words < need) {
		r->err |= EIP97_E_TOKEN;
		return true;
	}
	if (r->mode == EIP97_MODE_CTR_LOAD) {
		memcpy(r->ctr, j->iv, 16);
		return cx_init(r, NULL);
	}
	return cx_init(r, j->iv);
}

static bool setup_hash(struct run *r, uint32_t c0, uint32_t c1)
{
	struct eip97_job *j = r->j;
	uint32_t dt = EIP97_C0_DIGEST_GET(c0);

	if (!hash_setup(&r->h, EIP97_C0_HALG_GET(c0)))
		return false;
	unsigned s = r->h.state_bytes;
	r->restart = c0 & EIP97_C0_RESTART_HASH;
	r->no_finish = c0 & EIP97_C0_NO_FINISH_HASH;
	if (dt == EIP97_DIGEST_HMAC) {
		/* inner and outer state, each after one block of key ^ pad */
		if (r->restart || r->no_finish || j->ctx_len < 2u * s)
			return false; /* model: HMAC continuation is not supported (PE < 4.4, §6.5) */
		r->hmac = true;
		hash_load(&r->h, j->ctx, r->h.block);
		memcpy(r->ostate, j->ctx + s, s);
		return true;
	}
	if (dt != EIP97_DIGEST_PRECOMPUTED && dt != EIP97_DIGEST_INITIAL)
		return false;
	if (r->restart || dt == EIP97_DIGEST_INITIAL)
		return true; /* from the algorithm's IV */
	uint64_t before = 0;
	if (c1 & EIP97_C1_DIGEST_CNT) {
		if (j->ctx_len < s + 4u)
			return false;
		before = (uint64_t)le32(j->ctx + s) * EIP97_COUNTER_BLOCK;
	}
	if (j->ctx_len < s)
		return false;
	/* model: without DIGEST_CNT a continued hash is padded as if nothing came before */
	hash_load(&r->h, j->ctx, before);
	return true;
}

static bool setup_gcm(struct run *r, uint32_t c0, uint32_t c1)
{
	struct eip97_job *j = r->j;
	unsigned kw;

	if (EIP97_C0_DIGEST_GET(c0) != EIP97_DIGEST_XCM || EIP97_C0_HALG_GET(c0) != EIP97_HALG_GHASH ||
	    EIP97_C1_MODE(c1) != EIP97_MODE_CTR_LOAD || !(c1 & EIP97_C1_XCM))
		return false; /* model: CCM, authenc and ChaCha-Poly are not modelled */
	uint32_t calg = EIP97_C0_CALG_GET(c0);
	if (calg < EIP97_CALG_AES128 || calg > EIP97_CALG_AES256 || !setup_cipher(r, c0, c1, &kw))
		return false;
	if (j->ctx_len < kw * 4u + 16u)
		return false;
	/* H follows the key; the engine reads each 32-bit word as a big-endian value (§4.3) */
	const uint8_t *hs = j->ctx + kw * 4u;
	for (int i = 0; i < 4; i++)
		put_be32(r->g.h + 4 * i, le32(hs + 4 * i));
	return true;
}

/* Does an instruction of the token end the packet (status LAST_PACKET, §5.1)? */
static bool token_ends(const struct eip97_job *j)
{
	for (unsigned i = 0; i < j->ntok; i++)
		if (EIP97_TOK_STAT(j->tok[i]) & EIP97_STAT_LAST_PACKET)
			return true;
	return false;
}

uint32_t eip97_pe_run(struct eip97_pe *pe, struct eip97_job *j)
{
	struct run *r = calloc(1, sizeof(*r));
	uint32_t c0 = j->control0, c1 = j->control1, err;
	unsigned kw;
	bool ok;

	if (!r)
		return EIP97_E_DMA;
	r->pe = pe;
	r->j = j;
	j->out_len = 0;
	switch (EIP97_C0_TYPE(c0)) {
	case EIP97_C0_TYPE_CRYPTO_OUT:
	case EIP97_C0_TYPE_CRYPTO_IN:
		r->kind = T_CRYPTO;
		r->enc = EIP97_C0_TYPE(c0) == EIP97_C0_TYPE_CRYPTO_OUT;
		ok = !(c1 & EIP97_C1_XCM) && setup_cipher(r, c0, c1, &kw);
		break;
	case EIP97_C0_TYPE_HASH_OUT:
		r->kind = T_HASH;
		ok = setup_hash(r, c0, c1);
		break;
	case EIP97_C0_TYPE_ENCRYPT_HASH_OUT:
	case EIP97_C0_TYPE_HASH_DECRYPT_IN:
		r->kind = T_GCM;
		r->enc = EIP97_C0_TYPE(c0) == EIP97_C0_TYPE_ENCRYPT_HASH_OUT;
		ok = setup_gcm(r, c0, c1);
		break;
	default:
		ok = false; /* model: NULL, HASH_IN and the CCM orders are not modelled */
		break;
	}
	if (!ok)
		r->err |= EIP97_E_CONTEXT;
	/*
	 * model: a token no instruction of which ends the packet leaves the
	 * EIP-96 waiting for the rest; its processing timeout (TOKEN_CTRL
	 * ENABLE_TIMEOUT, set by Linux safexcel_hw_init()) ends the packet.
	 * Every token Linux builds ends with LAST_PACKET (§5.3).
	 */
	if (!r->err && !token_ends(j))
		r->err |= EIP97_E_TIMEOUT;
	for (unsigned i = 0; i < j->ntok && !r->err; i++) {
		uint32_t w = j->tok[i];
		switch (EIP97_TOK_OP(w)) {
		case EIP97_OP_DIRECTION: op_direction(r, w); break;
		case EIP97_OP_INSERT: op_insert(r, w); break;
		case EIP97_OP_INSERT_REMRES: r->drop += EIP97_TOK_INS(w); break;
		case EIP97_OP_RETRIEVE: op_retrieve(r, w); break;
		case EIP97_OP_VERIFY: op_verify(r, w); break;
		default: r->err |= EIP97_E_TOKEN; break; /* model: CTX_ACCESS/BYPASS are not modelled */
		}
	}
	/* model: input the token did not consume is dropped (Linux's 1-byte dummy packets) */
	err = r->err;
	ofl_wipe(r, sizeof(*r));
	free(r);
	return err;
}
