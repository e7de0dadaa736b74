/* SPDX-License-Identifier: MIT */
/*
 * The eip97 backend through the public API on the EIP97 model: the virtual
 * board (coherent, and non-coherent with OFFLOAD_CTX_SIM_NONCOHERENT), the
 * digital twin of the Espressobin's tree, fixtures for the probe paths.
 * Every result is compared with the CPU backend (OpenSSL) or a standard
 * vector; faults come from the sim world's injection API.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "eip97/eip97.h"
#include "eip97_board.h"
#ifdef OFFLOAD_HAVE_KCAPI
#include "kcapi/kcapi_int.h"
#endif
#include "crypto/gcm_iv_vectors.h"
#include "kat_vectors.h"
#include "sim/eip97_model.h"
#include "sim/sim.h"
#include "simutil.h"
#include "testutil.h"

#define BIG 65536u

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void fill(void *p, size_t n)
{
	uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rnd();
}

static void board_free(struct bx *b)
{
	offload_ctx_free(b->ctx);
}

/* ------------------------------------------------------------- known answers */

struct tally {
	int pass, fail, na, engine;
};

static void kat_report(void *arg, const struct kat_outcome *o)
{
	struct tally *t = arg;

	t->pass += o->status == KAT_PASS;
	t->na += o->status == KAT_UNSUPPORTED;
	if (o->status == KAT_FAIL) {
		t->fail++;
		fprintf(stderr, "KAT FAIL %s [%s]: %s\n", o->alg, o->source, o->detail);
	}
	t->engine += strncmp(o->driver, "eip97-ring", 10) == 0;
}

static void kats(uint32_t flags)
{
	struct bx b;
	struct tally t = { 0 };

	board(&b, flags);
	kat_run_device(b.ctx, b.dev, kat_report, &t);
	ck_assert_int_eq(t.fail, 0);
	ck_assert_int_eq(t.na, 0);
	ck_assert_int_eq(t.pass, (int)(kat_ncipher + kat_nhash));
	/* every vector ran on the engine (the empty-message hashes answer in software) */
	ck_assert_int_ge(t.engine, (int)kat_ncipher);
	board_free(&b);
}

START_TEST(kat_coherent)
{
	kats(0);
}
END_TEST

START_TEST(kat_noncoherent)
{
	kats(OFFLOAD_CTX_SIM_NONCOHERENT);
}
END_TEST

START_TEST(kat_noncoherent_cached_rings)
{
	/* as on a platform without uncached DMA memory: descriptors maintained too */
	setenv("OFFLOAD_EIP97_RING_MEM", "cached", 1);
	kats(OFFLOAD_CTX_SIM_NONCOHERENT);
	unsetenv("OFFLOAD_EIP97_RING_MEM");
}
END_TEST

/* ------------------------------------------------------------- cross-checks */

struct calg {
	enum offload_cipher_alg alg;
	size_t key, iv, block;
};

static const struct calg calgs[] = {
	{ OFFLOAD_CIPHER_AES_ECB, 16, 0, 16 }, { OFFLOAD_CIPHER_AES_ECB, 24, 0, 16 },
	{ OFFLOAD_CIPHER_AES_ECB, 32, 0, 16 }, { OFFLOAD_CIPHER_AES_CBC, 16, 16, 16 },
	{ OFFLOAD_CIPHER_AES_CBC, 24, 16, 16 }, { OFFLOAD_CIPHER_AES_CBC, 32, 16, 16 },
	{ OFFLOAD_CIPHER_AES_CTR, 16, 16, 1 }, { OFFLOAD_CIPHER_AES_CTR, 32, 16, 1 },
	{ OFFLOAD_CIPHER_AES_GCM, 16, 12, 1 }, { OFFLOAD_CIPHER_AES_GCM, 24, 12, 1 },
	{ OFFLOAD_CIPHER_AES_GCM, 32, 12, 1 }, { OFFLOAD_CIPHER_DES_ECB, 8, 0, 8 },
	{ OFFLOAD_CIPHER_DES3_CBC, 24, 8, 8 },
};

static const size_t sizes[] = { 0,    1,    8,    15,   16,    17,    31,    64,    100,  127,
				128,  129,  255,  1000, 1024,  4095,  4096,  4097,  8192, 16391,
				32768, 60000, 65520, 65535, 65536 };

/* Buffers for one configuration: plain heap, or DMA buffers of the engine (zero-copy). */
struct bufs {
	offload_buf *ob[5];
	uint8_t *in, *out, *ref, *aad, *pt;
};

static void bufs_get(struct bx *b, struct bufs *s, bool dma)
{
	memset(s, 0, sizeof(*s));
	uint8_t **p[5] = { &s->in, &s->out, &s->aad, &s->ref, &s->pt };
	for (int i = 0; i < 5; i++) {
		if (dma && i < 3) {
			ck_assert_int_eq(offload_buf_alloc(b->ctx, b->dev, BIG + 64, 0, &s->ob[i]), 0);
			*p[i] = offload_buf_ptr(s->ob[i]);
		} else {
			*p[i] = malloc(BIG + 64);
			ck_assert_ptr_nonnull(*p[i]);
		}
	}
}

static void bufs_put(struct bufs *s)
{
	uint8_t *p[5] = { s->in, s->out, s->aad, s->ref, s->pt };
	for (int i = 0; i < 5; i++) {
		if (s->ob[i])
			offload_buf_free(s->ob[i]);
		else
			free(p[i]);
	}
}

/* Encrypt on the engine and on the CPU, compare; decrypt on the engine, compare with the plaintext. */
static void cipher_case(struct bx *b, const struct calg *a, size_t n, struct bufs *s, bool inplace,
			size_t in_off)
{
	uint8_t key[32], iv[16], tag[16], rtag[16];
	offload_cipher_session *se, *sc;
	struct offload_result res;
	size_t t = 0, alen = 0;
	static const size_t tags[] = { 4, 8, 12, 13, 14, 15, 16 };
	const char *name = offload_cipher_name(a->alg, a->key);

	if (n % a->block)
		return;
	fill(key, sizeof(key));
	fill(iv, sizeof(iv));
	if (a->alg == OFFLOAD_CIPHER_AES_GCM) {
		t = tags[rnd() % 7];
		alen = rnd() % 3 == 0 ? 0 : rnd() % 80;
		if (n + alen + t > EIP97_PKT_MAX)
			alen = 0;
		fill(s->aad, alen);
	}
	uint8_t *in = s->in + in_off, *out = inplace ? in : s->out + (in_off ^ 3);
	fill(in, n);
	memcpy(s->pt, in, n);
	memcpy(s->ref, in, n);
	ck_assert_int_eq(offload_cipher_session_open_dev(b->ctx, b->dev, a->alg, key, a->key, &se), 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(b->ctx, b->cpu, a->alg, key, a->key, &sc), 0);
	struct offload_cipher_op op = {
		.dir = OFFLOAD_ENCRYPT, .iv = a->iv ? iv : NULL, .iv_len = a->iv, .aad = alen ? s->aad : NULL,
		.aad_len = alen, .in = in, .out = out, .len = n, .tag = t ? tag : NULL, .tag_len = t,
		.result = &res,
	};
	struct offload_cipher_op cop = op;
	cop.in = cop.out = s->ref;
	cop.tag = t ? rtag : NULL;
	cop.result = NULL;
	ck_assert_int_eq(offload_cipher_session_run(sc, &cop, sizeof(cop)), 0);
	int r = offload_cipher_session_run(se, &op, sizeof(op));
	ck_assert_msg(r == 0, "%s %zu B: %s", name, n, offload_last_error(b->ctx));
	ck_assert_msg(memcmp(out, s->ref, n) == 0, "%s %zu B (aad %zu, in place %d, offset %zu): "
		      "ciphertext differs", name, n, alen, inplace, in_off);
	if (t)
		ck_assert_msg(memcmp(tag, rtag, t) == 0, "%s %zu B (aad %zu, tag %zu): tag differs", name, n,
			      alen, t);
	if (n || t) {
		ck_assert_str_eq(res.backend, "eip97");
		ck_assert_ptr_nonnull(strstr(res.driver, "eip97-ring"));
		ck_assert(res.flags & OFFLOAD_RES_SIM);
	}
	op.dir = OFFLOAD_DECRYPT;
	op.in = out;
	op.out = inplace ? out : in;
	if (!inplace)
		memset(in, 0, n);
	r = offload_cipher_session_run(se, &op, sizeof(op));
	ck_assert_msg(r == 0, "%s %zu B decrypt: %s", name, n, offload_last_error(b->ctx));
	ck_assert_msg(memcmp(op.out, s->pt, n) == 0, "%s %zu B: decryption differs", name, n);
	offload_cipher_session_close(se);
	offload_cipher_session_close(sc);
}

static void cipher_crosscheck(uint32_t flags, bool dma)
{
	struct bx b;
	struct bufs s;

	board(&b, flags);
	bufs_get(&b, &s, dma);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(calgs); i++)
		for (size_t k = 0; k < OFL_ARRAY_SIZE(sizes) + 4; k++) {
			size_t n = k < OFL_ARRAY_SIZE(sizes) ? sizes[k] : rnd() % (BIG + 1);
			n = OFL_MIN(n, (size_t)BIG - 8u);
			cipher_case(&b, &calgs[i], n, &s, k & 1, k % 3 == 0 ? 0 : 5);
		}
	bufs_put(&s);
	board_free(&b);
}

START_TEST(cipher_coherent_bounce)
{
	cipher_crosscheck(0, false);
}
END_TEST

START_TEST(cipher_coherent_zero_copy)
{
	cipher_crosscheck(0, true);
}
END_TEST

START_TEST(cipher_noncoherent_bounce)
{
	cipher_crosscheck(OFFLOAD_CTX_SIM_NONCOHERENT, false);
}
END_TEST

START_TEST(cipher_noncoherent_zero_copy)
{
	cipher_crosscheck(OFFLOAD_CTX_SIM_NONCOHERENT, true);
}
END_TEST

static const enum offload_hash_alg halgs[] = {
	OFFLOAD_HASH_MD5,	   OFFLOAD_HASH_SHA1,	     OFFLOAD_HASH_SHA224,
	OFFLOAD_HASH_SHA256,	   OFFLOAD_HASH_SHA384,	     OFFLOAD_HASH_SHA512,
	OFFLOAD_HASH_HMAC_MD5,	   OFFLOAD_HASH_HMAC_SHA1,   OFFLOAD_HASH_HMAC_SHA224,
	OFFLOAD_HASH_HMAC_SHA256, OFFLOAD_HASH_HMAC_SHA384, OFFLOAD_HASH_HMAC_SHA512,
};

/* Feed `n` bytes in random pieces; returns the digest length. */
static int hash_stream(offload_hash_session *h, const uint8_t *p, size_t n, uint8_t *d,
		       struct offload_result *res)
{
	for (size_t off = 0; off < n;) {
		size_t k = (size_t)(rnd() % 5 == 0 ? rnd() % 20000 : rnd() % 300) + 1u;
		k = OFL_MIN(n - off, k); /* (the macro evaluates its arguments twice) */
		ck_assert_int_eq(offload_hash_update(h, p + off, k), 0);
		off += k;
	}
	return offload_hash_final(h, d, 64, res);
}

static void hash_crosscheck(uint32_t flags, bool dma)
{
	struct bx b;
	struct bufs s;
	uint8_t key[300], d1[64], d2[64];
	struct offload_result res;

	board(&b, flags);
	bufs_get(&b, &s, dma);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(halgs); i++) {
		bool hmac = ofl_hash_is_hmac(halgs[i]);
		size_t klen = hmac ? rnd() % sizeof(key) : 0;
		fill(key, klen);
		offload_hash_session *he, *hc;
		ck_assert_int_eq(offload_hash_open_dev(b.ctx, b.dev, halgs[i], hmac ? key : NULL, klen, &he), 0);
		ck_assert_int_eq(offload_hash_open_dev(b.ctx, b.cpu, halgs[i], hmac ? key : NULL, klen, &hc), 0);
		for (size_t k = 0; k < OFL_ARRAY_SIZE(sizes) + 3; k++) {
			size_t n = k < OFL_ARRAY_SIZE(sizes) ? sizes[k] : rnd() % (BIG + 1);
			fill(s.in, n);
			int dl = hash_stream(he, s.in, n, d1, &res);
			ck_assert_msg(dl > 0, "%s %zu B: %s", offload_hash_name(halgs[i]), n,
				      offload_last_error(b.ctx));
			ck_assert_int_eq(offload_hash_update(hc, s.in, n), 0);
			ck_assert_int_eq(offload_hash_final(hc, d2, sizeof(d2), NULL), dl);
			ck_assert_msg(memcmp(d1, d2, (size_t)dl) == 0, "%s %zu B (key %zu B): digest differs",
				      offload_hash_name(halgs[i]), n, klen);
			if (n || hmac)
				ck_assert_ptr_nonnull(strstr(res.driver, "eip97-ring"));
		}
		offload_hash_close(he);
		offload_hash_close(hc);
	}
	bufs_put(&s);
	board_free(&b);
}

START_TEST(hash_coherent_bounce)
{
	hash_crosscheck(0, false);
}
END_TEST

START_TEST(hash_noncoherent_zero_copy)
{
	hash_crosscheck(OFFLOAD_CTX_SIM_NONCOHERENT, true);
}
END_TEST

START_TEST(hash_noncoherent_bounce)
{
	hash_crosscheck(OFFLOAD_CTX_SIM_NONCOHERENT, false);
}
END_TEST

/* ------------------------------------------------------------- CTR counter */

START_TEST(ctr_is_one_128_bit_counter)
{
	/* SP 800-38A: the whole block increments; the engine's counter is 32 bits (§4.2) */
	static const char *const ivs[] = { "000102030405060708090a0bfffffffe", "0001020304050607ffffffffffffffff",
					   "ffffffffffffffffffffffffffffff00", "ffffffffffffffffffffffffffffffff" };
	struct bx b;
	uint8_t key[16], iv[16], *in = malloc(4100), *o1 = malloc(4100), *o2 = malloc(4100);

	board(&b, 0);
	fill(key, 16);
	fill(in, 4100);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(ivs); i++) {
		ck_assert_int_eq(kat_unhex(ivs[i], iv, 16), 16);
		struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_CTR, .dir = OFFLOAD_ENCRYPT,
						.key = key, .key_len = 16, .iv = iv, .iv_len = 16, .in = in,
						.len = 4100 };
		offload_cipher_session *se, *sc;
		ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.dev, op.alg, key, 16, &se), 0);
		ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.cpu, op.alg, key, 16, &sc), 0);
		op.alg = 0;
		op.key = NULL;
		op.key_len = 0;
		op.out = o1;
		ck_assert_int_eq(offload_cipher_session_run(se, &op, sizeof(op)), 0);
		op.out = o2;
		ck_assert_int_eq(offload_cipher_session_run(sc, &op, sizeof(op)), 0);
		ck_assert_msg(memcmp(o1, o2, 4100) == 0, "CTR from %s differs", ivs[i]);
		offload_cipher_session_close(se);
		offload_cipher_session_close(sc);
	}
	free(in);
	free(o1);
	free(o2);
	board_free(&b);
}
END_TEST

/* ------------------------------------------------------------- cache maintenance */

static int cbc(struct bx *b, const uint8_t *in, uint8_t *out, size_t n)
{
	static const uint8_t key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const uint8_t iv[16] = { 0 };
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 16, .in = in,
					.out = out, .len = n };
	offload_cipher_session *s;

	ck_assert_int_eq(offload_cipher_session_open_dev(b->ctx, b->dev, OFFLOAD_CIPHER_AES_CBC, key, 16, &s), 0);
	int r = offload_cipher_session_run(s, &op, sizeof(op));
	offload_cipher_session_close(s);
	return r;
}

static void cbc_cpu(struct bx *b, const uint8_t *in, uint8_t *out, size_t n)
{
	int d = b->dev;
	b->dev = b->cpu;
	ck_assert_int_eq(cbc(b, in, out, n), 0);
	b->dev = d;
}

START_TEST(dropped_cache_ops_corrupt)
{
	struct bx b;
	offload_buf *bi, *bo;
	uint8_t x[4096], y[4096], ex[4096], ey[4096];
	struct offload_dev_stats st0, st1;

	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	struct ofl_sim *sim = ofl_sim_of(b.ctx);
	ck_assert_int_eq(offload_buf_alloc(b.ctx, b.dev, 4096, 0, &bi), 0);
	ck_assert_int_eq(offload_buf_alloc(b.ctx, b.dev, 4096, 0, &bo), 0);
	uint8_t *in = offload_buf_ptr(bi), *out = offload_buf_ptr(bo);
	fill(x, sizeof(x));
	fill(y, sizeof(y));
	cbc_cpu(&b, x, ex, 4096);
	cbc_cpu(&b, y, ey, 4096);
	/* all maintenance done: right answer, and it was counted */
	ck_assert_int_eq(offload_dev_get_stats(b.ctx, b.dev, &st0, sizeof(st0)), 0);
	memcpy(in, x, 4096);
	ck_assert_int_eq(cbc(&b, in, out, 4096), 0);
	ck_assert_mem_eq(out, ex, 4096);
	ck_assert_int_eq(offload_dev_get_stats(b.ctx, b.dev, &st1, sizeof(st1)), 0);
	ck_assert_uint_ge(st1.cache_clean_calls - st0.cache_clean_calls, 2); /* input and output */
	ck_assert_uint_ge(st1.cache_inval_calls - st0.cache_inval_calls, 1); /* output */
	ck_assert_uint_ge(st1.cache_bytes - st0.cache_bytes, 3u * 4096u);
	/* the output's invalidate dropped: the CPU still sees what it had */
	memset(out, 0xa5, 4096);
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_DROP_INVAL, .count = 1, .cpu = out, .len = 4096 };
	ck_assert_int_eq(ofl_sim_fault_set(sim, &f), 0);
	ck_assert_int_eq(cbc(&b, in, out, 4096), 0);
	ck_assert_uint_eq(ofl_sim_fault_fired(sim, OFL_SIM_FAULT_DROP_INVAL), 1);
	ck_assert(memcmp(out, ex, 4096) != 0);
	/* the input's clean dropped: the engine reads the stale x, not the new y */
	memcpy(in, y, 4096);
	f = (struct ofl_sim_fault){ .kind = OFL_SIM_FAULT_DROP_CLEAN, .count = 1, .cpu = in, .len = 4096 };
	ck_assert_int_eq(ofl_sim_fault_set(sim, &f), 0);
	ck_assert_int_eq(cbc(&b, in, out, 4096), 0);
	ck_assert_mem_eq(out, ex, 4096);
	/* nothing dropped: y */
	ck_assert_int_eq(cbc(&b, in, out, 4096), 0);
	ck_assert_mem_eq(out, ey, 4096);
	ofl_sim_fault_clear(sim);
	offload_buf_free(bi);
	offload_buf_free(bo);
	board_free(&b);
}
END_TEST

START_TEST(coherent_needs_no_maintenance)
{
	struct bx b;
	uint8_t x[4096], o[4096];
	struct offload_dev_stats st;

	board(&b, 0);
	fill(x, sizeof(x));
	ck_assert_int_eq(cbc(&b, x, o, 4096), 0);
	ck_assert_int_eq(offload_dev_get_stats(b.ctx, b.dev, &st, sizeof(st)), 0);
	ck_assert_uint_eq(st.cache_clean_calls + st.cache_inval_calls, 0);
	ck_assert_uint_ge(st.jobs, 1);
	board_free(&b);
}
END_TEST

START_TEST(dropped_descriptor_clean_fails)
{
	struct bx b;
	uint8_t x[256], o[256], e[256];

	setenv("OFFLOAD_EIP97_RING_MEM", "cached", 1);
	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	unsetenv("OFFLOAD_EIP97_RING_MEM");
	fill(x, sizeof(x));
	cbc_cpu(&b, x, e, sizeof(x));
	ck_assert_int_eq(cbc(&b, x, o, sizeof(x)), 0);
	ck_assert_mem_eq(o, e, sizeof(x));
	/* stale descriptors may never complete: then the short watchdog ends the wait */
	b.e->timeout_ns = TEST_IMPATIENT_NS;
	/* drop the clean of every CD ring: the engine reads stale descriptors */
	struct ofl_sim *sim = ofl_sim_of(b.ctx);
	for (uint32_t i = 0; i < b.e->nrings; i++)
		ck_assert_uint_eq(b.e->ring[i].cdr->cache, OFFLOAD_CACHE_STREAMING);
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_DROP_CLEAN, .count = 0,
				   .cpu = b.e->ring[b.e->next_ring % b.e->nrings].cdr->cpu,
				   .len = b.e->ring[0].cdr->len };
	ck_assert_int_eq(ofl_sim_fault_set(sim, &f), 0);
	memset(o, 0, sizeof(o));
	int r = cbc(&b, x, o, sizeof(x));
	ck_assert_msg(r != 0 || memcmp(o, e, sizeof(x)) != 0, "a dropped descriptor clean went unnoticed");
	ofl_sim_fault_clear(sim);
	board_free(&b);
}
END_TEST

/* ------------------------------------------------------------- errors */

START_TEST(gcm_tag_mismatch_is_ebadmsg)
{
	struct bx b;
	uint8_t key[16], iv[12], p[100], c[100], tag[16];
	offload_cipher_session *s;

	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	fill(key, 16);
	fill(iv, 12);
	fill(p, sizeof(p));
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.dev, OFFLOAD_CIPHER_AES_GCM, key, 16, &s), 0);
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12, .in = p, .out = c,
					.len = sizeof(p), .tag = tag, .tag_len = 12 };
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	tag[11] ^= 1;
	uint8_t out[100];
	memset(out, 0x5a, sizeof(out));
	op.dir = OFFLOAD_DECRYPT;
	op.in = c;
	op.out = out;
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), -EBADMSG);
	for (size_t i = 0; i < sizeof(out); i++)
		ck_assert_uint_eq(out[i], 0);
	ck_assert_ptr_nonnull(strstr(offload_last_error(b.ctx), "tag"));
	tag[11] ^= 1;
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	ck_assert_mem_eq(out, p, sizeof(p));
	offload_cipher_session_close(s);
	board_free(&b);
}
END_TEST

START_TEST(result_error_bits_map_as_linux)
{
	/* hw/eip97.h §6.4 (safexcel_rdesc_check_errors) */
	ck_assert_int_eq(eip97_rd_errno(0, 0), 0);
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 1), -EIO);
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 14), -EIO);
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 0), -EINVAL);
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 7), -EINVAL);
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 9), -EBADMSG);
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 9 | 1u << 3), -EINVAL);  /* input errors first */
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 9 | 1u << 5), -EIO);     /* fatal before all */
	ck_assert_int_eq(eip97_rd_errno(0, 1u << 8), -EINVAL);            /* any other bit */
	ck_assert_int_eq(eip97_rd_errno(1u << 21, 0), -EINVAL);           /* overflow, code 0 */
}
END_TEST

START_TEST(injected_result_errors)
{
	static const struct {
		uint32_t code;
		int err;
	} cases[] = { { 0x0002, -EIO }, { 0x4000, -EIO }, { 0x0001, -EINVAL }, { 0x0008, -EINVAL },
		      { 0x0200, -EBADMSG }, { 0x0209, -EINVAL }, { 0, -EIO } };
	struct bx b;
	uint8_t x[4096], o[4096], e[4096];

	board(&b, 0);
	struct ofl_sim *sim = ofl_sim_of(b.ctx);
	fill(x, sizeof(x));
	cbc_cpu(&b, x, e, sizeof(x));
	for (size_t i = 0; i < OFL_ARRAY_SIZE(cases); i++) {
		struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_ERROR, .count = 1, .arg = cases[i].code };
		ck_assert_int_eq(ofl_sim_fault_set(sim, &f), 0);
		memset(o, 0x77, sizeof(o));
		int r = cbc(&b, x, o, sizeof(x));
		ck_assert_msg(r == cases[i].err, "code 0x%04x: %d, want %d", cases[i].code, r, cases[i].err);
		/* no half-written output presented: the core zeroes it */
		for (size_t k = 0; k < sizeof(o); k++)
			ck_assert_uint_eq(o[k], 0);
		ck_assert(strstr(offload_last_error(b.ctx), "crypto@4000000") != NULL);
		/* and the next operation is fine */
		ck_assert_int_eq(cbc(&b, x, o, sizeof(x)), 0);
		ck_assert_mem_eq(o, e, sizeof(x));
	}
	board_free(&b);
}
END_TEST

/*
 * A ring that stalls (a stuck engine, a lost completion, a packet later than
 * the timeout) is test_eip97_fidelity's (audits/eip97.md D2).
 */
START_TEST(late_completion_is_waited_for)
{
	struct bx b;
	uint8_t x[1024], o[1024], e[1024];

	board(&b, 0);
	fill(x, sizeof(x));
	cbc_cpu(&b, x, e, sizeof(x));
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_DELAY, .count = 1, .arg = 20000 };
	ck_assert_int_eq(ofl_sim_fault_set(ofl_sim_of(b.ctx), &f), 0);
	ck_assert_int_eq(cbc(&b, x, o, sizeof(x)), 0);
	ck_assert_mem_eq(o, e, sizeof(x));
	board_free(&b);
}
END_TEST

/* ------------------------------------------------------------- threads */

struct worker {
	struct bx *b;
	uint64_t seed;
	int failures;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct bx *b = w->b;
	uint8_t key[32], iv[16], in[9000], o1[9000], o2[9000], t1[16], t2[16], d1[64], d2[64];
	uint64_t s = w->seed;
	offload_cipher_session *ce, *cc;
	offload_hash_session *he, *hc;

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(s >> (i % 8));
	if (offload_cipher_session_open_dev(b->ctx, b->dev, OFFLOAD_CIPHER_AES_GCM, key, 32, &ce) ||
	    offload_cipher_session_open_dev(b->ctx, b->cpu, OFFLOAD_CIPHER_AES_GCM, key, 32, &cc) ||
	    offload_hash_open_dev(b->ctx, b->dev, OFFLOAD_HASH_HMAC_SHA256, key, 20, &he) ||
	    offload_hash_open_dev(b->ctx, b->cpu, OFFLOAD_HASH_HMAC_SHA256, key, 20, &hc)) {
		w->failures++;
		return NULL;
	}
	for (int it = 0; it < 60; it++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		size_t n = (size_t)(s >> 40) % sizeof(in);
		for (size_t i = 0; i < n; i++)
			in[i] = (uint8_t)(s >> (i % 56));
		memcpy(iv, &s, 8);
		memcpy(iv + 8, &it, 4);
		struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12, .in = in,
						.out = o1, .len = n, .tag = t1, .tag_len = 16 };
		int r1 = offload_cipher_session_run(ce, &op, sizeof(op));
		op.out = o2;
		op.tag = t2;
		int r2 = offload_cipher_session_run(cc, &op, sizeof(op));
		w->failures += r1 || r2 || memcmp(o1, o2, n) || memcmp(t1, t2, 16);
		r1 = offload_hash_update(he, in, n);
		r2 = offload_hash_update(hc, in, n);
		int l1 = offload_hash_final(he, d1, sizeof(d1), NULL);
		int l2 = offload_hash_final(hc, d2, sizeof(d2), NULL);
		w->failures += r1 || r2 || l1 != 32 || l2 != 32 || memcmp(d1, d2, 32);
	}
	offload_cipher_session_close(ce);
	offload_cipher_session_close(cc);
	offload_hash_close(he);
	offload_hash_close(hc);
	return NULL;
}

START_TEST(threads_with_own_sessions_share_rings)
{
	enum { N = 6 }; /* more threads than the 4 rings */
	struct bx b;
	pthread_t th[N];
	struct worker w[N];

	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	for (int i = 0; i < N; i++) {
		w[i] = (struct worker){ .b = &b, .seed = 0x1234567ull * (uint64_t)(i + 1) };
		ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].failures, 0);
	}
	board_free(&b);
}
END_TEST

/* ------------------------------------------------------------- selection, zero length */

START_TEST(policy_selects_the_engine_with_sim)
{
	struct bx b;
	uint8_t key[16] = { 0 }, iv[16] = { 0 }, x[4096], o[4096], d[32];
	struct offload_result res;

	board(&b, 0);
	fill(x, sizeof(x));
	struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_CBC, .key = key, .key_len = 16,
					.iv = iv, .iv_len = 16, .in = x, .out = o, .len = 4096,
					.result = &res };
	ck_assert_int_eq(offload_cipher(b.ctx, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "eip97");
	op.len = 64; /* below the policy's threshold (2048 B) */
	ck_assert_int_eq(offload_cipher(b.ctx, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_int_eq(offload_hash(b.ctx, OFFLOAD_HASH_SHA256, NULL, 0, x, 4096, d, 32, &res), 32);
	ck_assert_str_eq(res.backend, "eip97");
	board_free(&b);
}
END_TEST

/*
 * AES-GCM with an IV other than 96 bits. The engine as Linux drives it takes
 * 12 bytes only (safexcel_cipher.c: the gcm(aes) template's ivsize is
 * GCM_AES_IV_SIZE and safexcel_aead_gcm's token carries IV || counter 1):
 * bound to it, such an IV is -ENOTSUP; chosen automatically, the CPU runs it
 * even where the size would send a 12-byte IV to the engine.
 */
START_TEST(gcm_non_96_bit_iv_goes_to_cpu)
{
	struct bx b;
	struct gcm_iv_bin v;
	static uint8_t x[4096], o[4096], oc[4096];
	uint8_t t[16], tc[16], iv12[12] = { 0 };
	struct offload_result res;
	offload_cipher_session *s, *sc;

	board(&b, 0);
	fill(x, sizeof(x));
	gcm_iv_load(&gcm_iv_vecs[3], &v); /* CAVP: 1024-bit IV, AAD, 120-bit tag */
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.dev, OFFLOAD_CIPHER_AES_GCM, v.key,
							 v.key_len, &s), 0);
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = v.iv, .iv_len = v.iv_len,
					.aad = v.aad, .aad_len = v.aad_len, .in = v.pt, .out = o,
					.len = v.pt_len, .tag = t, .tag_len = v.tag_len, .result = &res };
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), -ENOTSUP);
	ck_assert_msg(strstr(offload_last_error(b.ctx), "takes only the 12-byte AES-GCM IV") != NULL,
		      "%s", offload_last_error(b.ctx));
	op.iv_len = 1;
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), -ENOTSUP);
	op.iv = iv12;
	op.iv_len = 12;
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "eip97");
	offload_cipher_session_close(s);

	/* automatic: the known answer, from the CPU */
	op = (struct offload_cipher_op){ .alg = OFFLOAD_CIPHER_AES_GCM, .dir = OFFLOAD_ENCRYPT,
					 .key = v.key, .key_len = v.key_len, .iv = v.iv,
					 .iv_len = v.iv_len, .aad = v.aad, .aad_len = v.aad_len,
					 .in = v.pt, .out = o, .len = v.pt_len, .tag = t,
					 .tag_len = v.tag_len, .result = &res };
	ck_assert_msg(offload_cipher(b.ctx, &op, sizeof(op)) == 0, "%s", offload_last_error(b.ctx));
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_mem_eq(o, v.ct, v.ct_len);
	ck_assert_mem_eq(t, v.tag, v.tag_len);

	/* above the engine's threshold: 12 bytes go to the engine, 1 byte to the CPU */
	op.in = x;
	op.len = sizeof(x);
	op.iv = iv12;
	op.iv_len = 12;
	ck_assert_int_eq(offload_cipher(b.ctx, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "eip97");
	ck_assert_int_eq(offload_cipher_session_open(b.ctx, OFFLOAD_CIPHER_AES_GCM, v.key, v.key_len, &s), 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.cpu, OFFLOAD_CIPHER_AES_GCM, v.key,
							 v.key_len, &sc), 0);
	for (size_t ivl = 1; ivl <= v.iv_len; ivl = ivl == 1 ? 16 : ivl * 2) {
		struct offload_cipher_op so = op;
		so.alg = 0;
		so.key = NULL;
		so.key_len = 0;
		so.iv = v.iv;
		so.iv_len = ivl;
		ck_assert_int_eq(offload_cipher_session_run(s, &so, sizeof(so)), 0);
		ck_assert_str_eq(res.backend, "cpu");
		so.out = oc;
		so.tag = tc;
		ck_assert_int_eq(offload_cipher_session_run(sc, &so, sizeof(so)), 0);
		ck_assert_mem_eq(o, oc, sizeof(o));
		ck_assert_mem_eq(t, tc, v.tag_len);
	}
	offload_cipher_session_close(s);
	offload_cipher_session_close(sc);
	board_free(&b);

	/* no CPU allowed: nothing can take the IV */
	offload_ctx *c = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, "eip97");
	op.iv = v.iv;
	op.iv_len = 1;
	ck_assert_int_eq(offload_cipher(c, &op, sizeof(op)), -ENOTSUP);
	ck_assert_msg(strstr(offload_last_error(c), "12-byte") != NULL, "%s", offload_last_error(c));
	offload_ctx_free(c);
}
END_TEST

START_TEST(auto_fallback_model_is_not_chosen)
{
	if (access("/sys/firmware/fdt", R_OK) == 0)
		return; /* a live tree: AUTO does not fall back to the virtual board here */
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_AUTO, NULL, 0, "cpu,eip97");
	uint8_t key[16] = { 0 }, iv[16] = { 0 }, x[4096] = { 0 }, o[4096];
	struct offload_result res;
	struct offload_dev_info info;
	int dev = offload_dev_find(ctx, EIP97_COMPAT);

	ck_assert_int_ge(dev, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, dev, &info, sizeof(info)), 0);
	ck_assert(info.flags & OFFLOAD_DEVF_USABLE);
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "not chosen automatically"));
	struct offload_cipher_op op = { .alg = OFFLOAD_CIPHER_AES_CBC, .key = key, .key_len = 16,
					.iv = iv, .iv_len = 16, .in = x, .out = o, .len = 4096,
					.result = &res };
	ck_assert_int_eq(offload_cipher(ctx, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "cpu");
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(zero_length_inputs)
{
	struct bx b;
	uint8_t d[64], want[32], key[16] = { 7 }, iv[12] = { 9 }, tag[16], rtag[16];
	struct offload_result res;

	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	/* an empty plain hash never reaches the engine (Linux returns the known digest) */
	ck_assert_int_eq(kat_unhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", want,
				   32), 32);
	offload_hash_session *h;
	ck_assert_int_eq(offload_hash_open_dev(b.ctx, b.dev, OFFLOAD_HASH_SHA256, NULL, 0, &h), 0);
	ck_assert_int_eq(offload_hash_final(h, d, sizeof(d), &res), 32);
	ck_assert_mem_eq(d, want, 32);
	ck_assert_str_eq(res.driver, "eip97-software-empty-message");
	ck_assert(res.flags & OFFLOAD_RES_CPU);
	offload_hash_close(h);
	/* an empty HMAC message does (Linux's padding block) */
	for (int k = 0; k < 2; k++) {
		enum offload_hash_alg a = k ? OFFLOAD_HASH_HMAC_SHA384 : OFFLOAD_HASH_HMAC_MD5;
		uint8_t ref[64];
		ck_assert_int_eq(offload_hash_open_dev(b.ctx, b.dev, a, key, 16, &h), 0);
		int l = offload_hash_final(h, d, sizeof(d), &res);
		ck_assert_int_gt(l, 0);
		ck_assert_ptr_nonnull(strstr(res.driver, "eip97-ring"));
		offload_hash_close(h);
		ck_assert_int_eq(offload_hash_open_dev(b.ctx, b.cpu, a, key, 16, &h), 0);
		ck_assert_int_eq(offload_hash_final(h, ref, sizeof(ref), NULL), l);
		offload_hash_close(h);
		ck_assert_mem_eq(d, ref, (size_t)l);
	}
	/* GCM of nothing: a 1-byte dummy particle (§3.3); the tag is GHASH of nothing */
	offload_cipher_session *se, *sc;
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.dev, OFFLOAD_CIPHER_AES_GCM, key, 16, &se), 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.cpu, OFFLOAD_CIPHER_AES_GCM, key, 16, &sc), 0);
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12, .tag = tag,
					.tag_len = 16, .result = &res };
	ck_assert_int_eq(offload_cipher_session_run(se, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "eip97");
	op.tag = rtag;
	ck_assert_int_eq(offload_cipher_session_run(sc, &op, sizeof(op)), 0);
	ck_assert_mem_eq(tag, rtag, 16);
	op.dir = OFFLOAD_DECRYPT;
	op.tag = tag;
	ck_assert_int_eq(offload_cipher_session_run(se, &op, sizeof(op)), 0);
	tag[0] ^= 1;
	ck_assert_int_eq(offload_cipher_session_run(se, &op, sizeof(op)), -EBADMSG);
	offload_cipher_session_close(se);
	offload_cipher_session_close(sc);
	board_free(&b);
}
END_TEST

static uint64_t model_packets(struct bx *b)
{
	struct ofl_sim *sim = ofl_sim_of(b->ctx);
	struct ofl_sim_model *m = ofl_sim_model_by_node(sim, ofl_ctx_device(b->ctx, b->dev)->node);
	struct ofl_sim_eip97_stats st;
	uint64_t n = 0;

	ck_assert_ptr_nonnull(m);
	for (uint32_t i = 0; i < b->e->nrings; i++) {
		ofl_sim_eip97_stats((struct ofl_sim_eip97 *)m, i, &st);
		n += st.packets;
	}
	return n;
}

/* offload_hash() of a message the engine takes at once is one packet (Linux's digest/finup). */
START_TEST(one_shot_hash_is_one_packet)
{
	static const size_t lens[] = { 2048, 4096, 65536, 65537, 100000 };
	struct bx b;
	uint8_t *x = malloc(100000), key[40], d1[64], d2[64];
	struct offload_result res;

	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	fill(x, 100000);
	fill(key, sizeof(key));
	for (size_t i = 0; i < OFL_ARRAY_SIZE(halgs); i++)
		for (size_t k = 0; k < OFL_ARRAY_SIZE(lens); k++) {
			bool hmac = ofl_hash_is_hmac(halgs[i]);
			uint64_t p0 = model_packets(&b);
			int l = offload_hash(b.ctx, halgs[i], hmac ? key : NULL, hmac ? sizeof(key) : 0, x,
					     lens[k], d1, sizeof(d1), &res);
			ck_assert_msg(l > 0, "%s: %s", offload_hash_name(halgs[i]), offload_last_error(b.ctx));
			ck_assert_str_eq(res.backend, "eip97");
			uint64_t pk = model_packets(&b) - p0 - (hmac ? 2u : 0u); /* the ipad/opad states */
			if (lens[k] <= 65536)
				ck_assert_uint_eq(pk, 1);
			else
				ck_assert_uint_ge(pk, 2);
			offload_hash_session *hc;
			ck_assert_int_eq(offload_hash_open_dev(b.ctx, b.cpu, halgs[i], hmac ? key : NULL,
							       hmac ? sizeof(key) : 0, &hc), 0);
			ck_assert_int_eq(offload_hash_update(hc, x, lens[k]), 0);
			ck_assert_int_eq(offload_hash_final(hc, d2, sizeof(d2), NULL), l);
			offload_hash_close(hc);
			ck_assert_msg(memcmp(d1, d2, (size_t)l) == 0, "%s %zu B", offload_hash_name(halgs[i]),
				      lens[k]);
		}
	free(x);
	board_free(&b);
}
END_TEST

/* Closed sessions give their memory back wiped (key, H, data copies), and the next one reuses it. */
START_TEST(session_memory_recycled_wiped)
{
	struct bx b;
	uint8_t key[32], iv[12] = { 1 }, p[3000], c[3000], tag[16];
	offload_cipher_session *s;

	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	fill(key, sizeof(key));
	fill(p, sizeof(p));
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.dev, OFFLOAD_CIPHER_AES_GCM, key, 32, &s), 0);
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12, .in = p, .out = c,
					.len = sizeof(p), .tag = tag, .tag_len = 16 };
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	ck_assert_int_eq(offload_cipher_session_close(s), 0);
	struct eip97_smem *m = b.e->smem_free;
	ck_assert_ptr_nonnull(m);
	const uint8_t *rec = m->ctx->cpu, *work = m->work->cpu;
	for (size_t i = 0; i < EIP97_CTX_BYTES; i++)
		ck_assert_uint_eq(rec[i], 0);
	for (size_t i = 0; i < sizeof(p) + 64; i++)
		ck_assert_uint_eq(work[i], 0);
	ck_assert_uint_eq(m->dirty, 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(b.ctx, b.dev, OFFLOAD_CIPHER_AES_CBC, key, 16, &s), 0);
	static const uint8_t iv16[16] = { 3 };
	struct offload_cipher_op cbc_op = { .dir = OFFLOAD_ENCRYPT, .iv = iv16, .iv_len = 16, .in = p,
					    .out = c, .len = 2048 };
	ck_assert_int_eq(offload_cipher_session_run(s, &cbc_op, sizeof(cbc_op)), 0); /* the backend state opens here */
	ck_assert_ptr_null(b.e->smem_free);                           /* it took the memory back */
	offload_cipher_session_close(s);
	board_free(&b);
}
END_TEST

/* ------------------------------------------------------------- other trees */

START_TEST(espressobin_digital_twin)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");
	char path[512];
	struct offload_dev_info info;
	struct offload_dev_stats st;

	snprintf(path, sizeof(path), "%s/armada-3720-espressobin.dtb", dir ? dir : "");
	if (!dir || access(path, R_OK) != 0) {
		printf("skip: %s not readable\n", path);
		return;
	}
	struct bx b;
	b.ctx = test_ctx_open(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM, "cpu,eip97");
	b.dev = offload_dev_find(b.ctx, "/soc/internal-regs@d0000000/crypto@90000");
	b.cpu = offload_dev_find(b.ctx, "cpu");
	ck_assert_int_ge(b.dev, 0);
	ck_assert_int_eq(offload_dev_get_info(b.ctx, b.dev, &info, sizeof(info)), 0);
	ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s", info.usable_reason);
	ck_assert_str_eq(info.backend, "eip97");
	/* the Debian 6.12 tree has no dma-coherent: streaming, as Linux on it */
	ck_assert_int_eq(info.cache_mode, OFFLOAD_CACHE_STREAMING);
	ck_assert_uint_eq(info.phys_addr, 0xd0090000u);
	uint8_t x[3008], o[3008], e[3008];
	fill(x, sizeof(x));
	cbc_cpu(&b, x, e, sizeof(x));
	ck_assert_int_eq(cbc(&b, x, o, sizeof(x)), 0);
	ck_assert_mem_eq(o, e, sizeof(x));
	ck_assert_int_eq(offload_dev_get_stats(b.ctx, b.dev, &st, sizeof(st)), 0);
	ck_assert_uint_gt(st.cache_clean_calls, 0);
	ck_assert_uint_gt(st.cache_inval_calls, 0);
	struct tally t = { 0 };
	kat_run_device(b.ctx, b.dev, kat_report, &t);
	ck_assert_int_eq(t.fail, 0);
	ck_assert_int_eq(t.pass, (int)(kat_ncipher + kat_nhash));
	offload_ctx_free(b.ctx);
}
END_TEST

START_TEST(probe_layouts_from_fixture)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, EIP97_FIXTURE_DTB, OFFLOAD_CTX_SIM, "cpu,eip97");
	struct offload_dev_info info;

	/* registers byte-swapped until MST_CTRL is toggled: still an EIP97 */
	int d = offload_dev_find(ctx, "/soc/crypto@90000");
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s", info.usable_reason);
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "byte-swapped"));
	struct bx b = { .ctx = ctx, .dev = d, .cpu = offload_dev_find(ctx, "cpu") };
	uint8_t x[2048], o[2048], e[2048];
	fill(x, sizeof(x));
	cbc_cpu(&b, x, e, sizeof(x));
	ck_assert_int_eq(cbc(&b, x, o, sizeof(x)), 0);
	ck_assert_mem_eq(o, e, sizeof(x));
	/* the EIP197 layout is recognised and declined with the reason */
	d = offload_dev_find(ctx, "/soc/crypto@800000");
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert(!(info.flags & OFFLOAD_DEVF_USABLE));
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "EIP197 register layout"));
	offload_ctx_free(ctx);
}
END_TEST

#ifdef OFFLOAD_HAVE_KCAPI
/* The kcapi backend's claim on a SafeXcel node, from what /proc/crypto said (no AF_ALG needed). */
START_TEST(kcapi_claims_safexcel_nodes)
{
	struct kc_state st;
	struct ofl_device d;
	char why[OFL_REASON_LEN];

	memset(&st, 0, sizeof(st));
	memset(&d, 0, sizeof(d));
	ofl_strlcpy(st.proc_path, "/proc/crypto", sizeof(st.proc_path));
	d.owner = &ofl_backend_eip97;
	d.match = &eip97_match[0];
	/* the SafeXcel engine says the kernel's crypto API reaches it; kcapi serves such engines */
	ck_assert(ofl_backend_kcapi.serves & ofl_backend_eip97.flags & OFL_BE_KERNEL_CRYPTO);
	ck_assert(ofl_backend_may_probe(&ofl_backend_kcapi, &d));
	ck_assert_int_eq(ofl_backend_kcapi.probe(NULL, &st, &d, why, sizeof(why)), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(why, "safexcel"));
	st.cipher[1].in_proc = true;
	ofl_strlcpy(st.cipher[1].driver, "cbc-aes-ce", sizeof(st.cipher[1].driver));
	ck_assert_int_eq(ofl_backend_kcapi.probe(NULL, &st, &d, why, sizeof(why)), -ENOTSUP);
	st.hash[3].in_proc = true;
	ofl_strlcpy(st.hash[3].driver, "safexcel-sha256", sizeof(st.hash[3].driver));
	ck_assert_int_eq(ofl_backend_kcapi.probe(NULL, &st, &d, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "through the kernel's safexcel driver via AF_ALG"));
	ck_assert_ptr_nonnull(strstr(why, "safexcel-sha256"));
	ck_assert(d.info.flags & OFFLOAD_DEVF_KERNEL);
	/* the transfer mode is the probe's finding, labelled as such */
	ck_assert_str_eq(d.policy.transfer_mode, "af_alg");
	ck_assert(d.policy.refined & OFL_DECIDE_TRANSFER);
}
END_TEST

/* On an Armada tree without register access, AF_ALG to safexcel serves the node; both paths show. */
START_TEST(armada_node_through_af_alg)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");
	char path[512];
	struct offload_dev_info info;
	const char *why = "";

	snprintf(path, sizeof(path), "%s/armada-3720-espressobin.dtb", dir ? dir : "");
	if (!dir || access(path, R_OK) != 0) {
		printf("skip: %s not readable\n", path);
		return;
	}
	setenv("OFFLOAD_PROC_CRYPTO", KCAPI_DATA_DIR "/proc_crypto_a3720.txt", 1);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, path, 0, "cpu,eip97,kcapi");
	unsetenv("OFFLOAD_PROC_CRYPTO");
	if (offload_backend_status(ctx, "kcapi", &why) != 1) {
		printf("skip: the kcapi backend is absent here: %s\n", why);
		offload_ctx_free(ctx);
		return;
	}
	int d = offload_dev_find(ctx, "/soc/internal-regs@d0000000/crypto@90000");
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.backend, "kcapi");
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "safexcel driver via AF_ALG"));
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "eip97:"));
	offload_ctx_free(ctx);
}
END_TEST
#endif

static Suite *suite(void)
{
	Suite *s = suite_create("eip97_api");
	TCase *k = tcase_create("kat"), *x = tcase_create("crosscheck"), *e = tcase_create("errors");
	TCase *m = tcase_create("misc");

	tcase_set_timeout(k, 300);
	tcase_set_timeout(x, 900);
	tcase_set_timeout(e, 300);
	tcase_set_timeout(m, 300);
	tcase_add_test(k, kat_coherent);
	tcase_add_test(k, kat_noncoherent);
	tcase_add_test(k, kat_noncoherent_cached_rings);
	tcase_add_test(x, cipher_coherent_bounce);
	tcase_add_test(x, cipher_coherent_zero_copy);
	tcase_add_test(x, cipher_noncoherent_bounce);
	tcase_add_test(x, cipher_noncoherent_zero_copy);
	tcase_add_test(x, hash_coherent_bounce);
	tcase_add_test(x, hash_noncoherent_bounce);
	tcase_add_test(x, hash_noncoherent_zero_copy);
	tcase_add_test(x, ctr_is_one_128_bit_counter);
	tcase_add_test(e, dropped_cache_ops_corrupt);
	tcase_add_test(e, coherent_needs_no_maintenance);
	tcase_add_test(e, dropped_descriptor_clean_fails);
	tcase_add_test(e, gcm_tag_mismatch_is_ebadmsg);
	tcase_add_test(e, result_error_bits_map_as_linux);
	tcase_add_test(e, injected_result_errors);
	tcase_add_test(e, late_completion_is_waited_for);
	tcase_add_test(m, threads_with_own_sessions_share_rings);
	tcase_add_test(m, policy_selects_the_engine_with_sim);
	tcase_add_test(m, auto_fallback_model_is_not_chosen);
	tcase_add_test(m, gcm_non_96_bit_iv_goes_to_cpu);
	tcase_add_test(m, zero_length_inputs);
	tcase_add_test(m, session_memory_recycled_wiped);
	tcase_add_test(m, one_shot_hash_is_one_packet);
	tcase_add_test(m, espressobin_digital_twin);
	tcase_add_test(m, probe_layouts_from_fixture);
#ifdef OFFLOAD_HAVE_KCAPI
	tcase_add_test(m, kcapi_claims_safexcel_nodes);
	tcase_add_test(m, armada_node_through_af_alg);
#endif
	suite_add_tcase(s, k);
	suite_add_tcase(s, x);
	suite_add_tcase(s, e);
	suite_add_tcase(s, m);
	return s;
}

int main(void)
{
	return test_run(suite());
}
