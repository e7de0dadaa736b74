/* SPDX-License-Identifier: MIT */
/*
 * Ciphers on the EIP97 (hw/eip97.h §4, §5): one context record per session
 * holding the key (and, for GCM, H = AES_K(0^128) stored byte-reversed per
 * 32-bit word); control words, IV and instructions in each packet's first
 * CD, more instructions in its shadow block.
 *
 *  - ECB, CBC, CTR: DIRECTION(len) through the crypto engine to the
 *    output. AES-CBC and CTR carry a 4-word IV, so the instruction goes to
 *    the shadow block; DES/3DES-CBC carry 2 IV words and ECB the 2-IV
 *    option with no IV, the instruction then sits in CD words 14 (+NOOP).
 *    Operations are split into packets of at most 64 KiB; CBC chains the
 *    IV across them (decrypt: from the input, saved before submission;
 *    encrypt: from the previous packet's output, so one packet at a time).
 *  - CTR: the engine's CTR_LOAD increments a 32-bit big-endian counter
 *    (IV word 3) that wraps without carrying; the public API promises one
 *    128-bit counter (SP 800-38A), so packets also end where the low 32
 *    bits wrap, and the next packet's counter block is computed here.
 *  - GCM: the driver's sequence (§5.3 b) with the tag length the caller
 *    asks for (4, 8 or 12..16: the engine inserts or verifies that many
 *    bytes, as Linux does with crypto_aead_authsize); a mismatch is the
 *    engine's error bit 9 -> -EBADMSG. No input: a 1-byte dummy particle
 *    pointing at the context record, as Linux sends (§3.3).
 *
 * Buffers: a pointer inside a DMA buffer of this device (offload_buf) goes
 * to the engine as is (zero-copy); anything else is copied through the
 * session's bounce buffer. Streaming (non-coherent) memory: every range
 * the engine reads is cleaned before submission, every range it writes is
 * cleaned before and invalidated after (cache-line rounded, counted in the
 * device's statistics); coherent memory: nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eip97.h"

#define BOUNCE_TAG_OFF (EIP97_PKT_MAX + 1u)   /* the GCM tag, after the largest packet */

enum { H_IN, H_OUT, H_AAD, H_TAG };

struct eip97_cipher {
	struct eip97_engine *e;
	struct eip97_ring *r;
	enum offload_cipher_alg alg;
	uint32_t c0[2], c1, opts, block;
	bool gcm, ctr, cbc, iv4;
	struct eip97_smem *m;
	struct ofl_dma *ctx, *bounce;  /* m->ctx, m->work */
	struct ofl_dma_hint h[4];
};

/* An output range and where it must end up. */
struct omap {
	struct ofl_dma *d;
	size_t off, n;
	uint8_t *user; /* bounce: copy here after the engine wrote */
};

/* ------------------------------------------------------------- shared with hash.c */

void eip97_ctx_write(struct ofl_dma *ctx, size_t data_off, const void *p, size_t len)
{
	ofl_dma_write(ctx, EIP97_CTX_DATA_OFF + data_off, p, len); /* may be Device memory (D3) */
	ofl_dma_sync_for_device(ctx, EIP97_CTX_DATA_OFF + data_off, len);
}

/* ------------------------------------------------------------- buffers */

/* The DMA buffer of this device holding all of [p, p + n), or NULL (bounce). */
static struct ofl_dma *lookup(struct eip97_cipher *s, const void *p, size_t n, int hint)
{
	return ofl_dma_lookup_hint(s->e->pool, p, n, &s->h[hint]);
}

/* Bus address of [p, p + n) for the engine to read: zero-copy from d, or copied to bounce + boff. */
static uint64_t map_in(struct eip97_cipher *s, struct ofl_dma *d, const void *p, size_t n, size_t boff,
		       bool *bounced)
{
	if (d) {
		size_t o = (size_t)((const uint8_t *)p - (const uint8_t *)d->cpu);
		ofl_dma_sync_for_device(d, o, n);
		return d->bus + o;
	}
	memcpy((uint8_t *)s->bounce->cpu + boff, p, n);
	ofl_dma_sync_for_device(s->bounce, boff, n);
	s->m->dirty = OFL_MAX(s->m->dirty, boff + n);
	*bounced = true;
	return s->bounce->bus + boff;
}

/*
 * Bus address of [p, p + n) for the engine to write: zero-copy into d, or
 * bounce + boff. A range that is also the input (`in_bus`, in place) was
 * cleaned as such.
 */
static uint64_t map_out(struct eip97_cipher *s, struct ofl_dma *d, void *p, size_t n, size_t boff,
			uint64_t in_bus, struct omap *m, bool *bounced)
{
	m->n = n;
	if (d) {
		m->d = d;
		m->off = (size_t)((uint8_t *)p - (uint8_t *)d->cpu);
		m->user = NULL;
	} else {
		m->d = s->bounce;
		m->off = boff;
		m->user = p;
		s->m->dirty = OFL_MAX(s->m->dirty, boff + n);
		*bounced = true;
	}
	uint64_t bus = m->d->bus + m->off;
	if (bus != in_bus) /* no dirty line may be written back over the engine's data */
		ofl_dma_sync_for_device(m->d, m->off, n);
	return bus;
}

static void unmap_out(const struct omap *m)
{
	ofl_dma_sync_for_cpu(m->d, m->off, m->n);
	if (m->user)
		memcpy(m->user, (uint8_t *)m->d->cpu + m->off, m->n);
}

/* ------------------------------------------------------------- tokens */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ECB/CBC/CTR packet of n bytes with IV `iv` (block bytes, or NULL for ECB). */
static void sk_pkt(const struct eip97_cipher *s, enum offload_cipher_dir dir, const uint8_t *iv,
		   uint64_t in, uint64_t out, uint32_t n, struct eip97_pkt *p)
{
	uint32_t dirw = EIP97_TOKEN(EIP97_OP_DIRECTION,
				    EIP97_INS_LAST | EIP97_INS_TYPE_CRYPTO | EIP97_INS_TYPE_OUTPUT,
				    EIP97_STAT_LAST_HASH | EIP97_STAT_LAST_PACKET, n);

	eip97_pkt_init(p, s->c0[dir], s->c1, s->opts, s->ctx->bus);
	if (s->iv4) {
		for (int i = 0; i < 4; i++)
			p->tok[i] = le32(iv + 4 * i);
		p->atok[0] = dirw;
		p->natok = 1;
	} else {
		p->tok[0] = iv ? le32(iv) : 0;
		p->tok[1] = iv ? le32(iv + 4) : 0;
		p->tok[2] = dirw;
		p->tok[3] = EIP97_TOKEN_NOOP;
	}
	eip97_pkt_in(p, in, n);
	eip97_pkt_out(p, out, n);
}

/* Add `blocks` to a 128-bit big-endian counter block. */
static void ctr_add(uint8_t ctr[16], uint64_t blocks)
{
	for (int i = 15; i >= 0 && blocks; i--) {
		uint64_t v = ctr[i] + (blocks & 0xffu);
		ctr[i] = (uint8_t)v;
		blocks = (blocks >> 8) + (v >> 8);
	}
}

/* Bytes the next packet may take from `left`, starting at counter block ctr. */
static size_t pkt_bytes(const struct eip97_cipher *s, const uint8_t *ctr, size_t left)
{
	size_t n = OFL_MIN(left, (size_t)EIP97_CHUNK);

	if (s->ctr) {
		/* the engine's counter is the low 32 bits: stop where they wrap */
		uint64_t to_wrap = (1ull << 32) - be32(ctr + 12);
		if (to_wrap * 16u < n)
			n = (size_t)to_wrap * 16u;
	}
	return n;
}

/* ------------------------------------------------------------- ECB / CBC / CTR */

static int run_blocks(struct eip97_cipher *s, const struct offload_cipher_op *op, bool *bounced)
{
	const uint8_t *in = op->in;
	uint8_t *out = op->out, iv[16] = { 0 }, tiv[16];
	struct eip97_pkt pk[EIP97_BATCH];
	size_t sizes[EIP97_BATCH], off = 0;

	if (op->iv)
		memcpy(iv, op->iv, s->block);
	struct ofl_dma *din = lookup(s, in, op->len, H_IN), *dout = lookup(s, out, op->len, H_OUT);
	bool zc = din && dout;
	/* CBC encrypt needs the previous output as IV: one packet per submission; bounced: one
	 * packet per pass through the bounce buffer */
	uint32_t max_pk = (s->cbc && op->dir == OFFLOAD_ENCRYPT) || !zc ? 1u : EIP97_BATCH;
	while (off < op->len) {
		/* the packets of one submission and the window of data they cover */
		uint32_t np = 0;
		size_t win = 0;
		memcpy(tiv, iv, sizeof(tiv));
		while (np < max_pk && off + win < op->len) {
			size_t n = pkt_bytes(s, tiv, op->len - off - win);
			if (s->ctr)
				ctr_add(tiv, (n + 15u) / 16u);
			sizes[np++] = n;
			win += n;
		}
		bool b = false;
		struct omap om;
		uint64_t ib = map_in(s, din, in + off, win, 0, &b);
		uint64_t ob = map_out(s, dout, out + off, win, 0, ib, &om, &b);
		size_t done = 0;
		for (uint32_t i = 0; i < np; i++) {
			size_t n = sizes[i];
			sk_pkt(s, op->dir, op->iv ? iv : NULL, ib + done, ob + done, (uint32_t)n, &pk[i]);
			if (s->ctr)
				ctr_add(iv, (n + 15u) / 16u);
			else if (s->cbc && op->dir == OFFLOAD_DECRYPT)
				memcpy(iv, in + off + done + n - s->block, s->block); /* before in-place overwrite */
			done += n;
		}
		int r = eip97_run(s->r, pk, np, "offload_cipher");
		if (r < 0)
			return r;
		unmap_out(&om);
		if (s->cbc && op->dir == OFFLOAD_ENCRYPT)
			memcpy(iv, out + off + win - s->block, s->block);
		*bounced |= b;
		off += win;
	}
	ofl_wipe(iv, sizeof(iv));
	ofl_wipe(tiv, sizeof(tiv));
	return 0;
}

/* ------------------------------------------------------------- GCM */

static void gcm_tokens(struct eip97_pkt *p, enum offload_cipher_dir dir, uint32_t a, uint32_t c,
		       uint32_t t)
{
	uint32_t *k = p->atok, n = 0;

	k[n++] = EIP97_TOKEN(EIP97_OP_DIRECTION, EIP97_INS_LAST | EIP97_INS_TYPE_HASH,
			     c ? 0 : EIP97_STAT_LAST_HASH, a);
	k[n++] = EIP97_TOKEN(EIP97_OP_INSERT_REMRES, 16, 0, 0);
	k[n++] = EIP97_TOKEN(EIP97_OP_INSERT, EIP97_INS_TYPE_OUTPUT | EIP97_INS_TYPE_CRYPTO, 0, 16);
	if (c)
		k[n++] = EIP97_TOKEN(EIP97_OP_DIRECTION,
				     EIP97_INS_LAST | EIP97_INS_TYPE_CRYPTO | EIP97_INS_TYPE_HASH |
					     EIP97_INS_TYPE_OUTPUT,
				     EIP97_STAT_LAST_HASH, c);
	if (dir == OFFLOAD_ENCRYPT) {
		k[n++] = EIP97_TOKEN(EIP97_OP_INSERT, EIP97_INS_TYPE_OUTPUT | EIP97_INS_INSERT_HASH_DIGEST,
				     EIP97_STAT_LAST_HASH | EIP97_STAT_LAST_PACKET, t);
	} else {
		k[n++] = EIP97_TOKEN(EIP97_OP_RETRIEVE, EIP97_INS_INSERT_HASH_DIGEST,
				     EIP97_STAT_LAST_HASH | EIP97_STAT_LAST_PACKET, t);
		k[n++] = EIP97_TOKEN(EIP97_OP_VERIFY, EIP97_INS_TYPE_OUTPUT,
				     EIP97_STAT_LAST_HASH | EIP97_STAT_LAST_PACKET, t) |
			 EIP97_VERIFY_HASH_RESULT;
	}
	p->natok = n;
}

static int run_gcm(struct eip97_cipher *s, const struct offload_cipher_op *op, bool *bounced)
{
	uint32_t a = (uint32_t)op->aad_len, c = (uint32_t)op->len, t = (uint32_t)op->tag_len;
	enum offload_cipher_dir dir = op->dir;
	struct eip97_pkt p;
	struct omap om[2];
	uint32_t nom = 0;
	bool bin = false;

	eip97_pkt_init(&p, s->c0[dir], s->c1, s->opts, s->ctx->bus);
	const uint8_t *iv = op->iv;
	for (int i = 0; i < 3; i++)
		p.tok[i] = le32(iv + 4 * i);
	p.tok[3] = 0x01000000u; /* counter 1, big-endian (J0 = IV || 1) */
	gcm_tokens(&p, dir, a, c, t);
	if (a)
		eip97_pkt_in(&p, map_in(s, lookup(s, op->aad, a, H_AAD), op->aad, a, 0, bounced), a);
	if (c) {
		uint64_t ib = map_in(s, lookup(s, op->in, c, H_IN), op->in, c, a, &bin);
		eip97_pkt_in(&p, ib, c);
		eip97_pkt_out(&p, map_out(s, lookup(s, op->out, c, H_OUT), op->out, c, a, ib, &om[nom++],
					  bounced), c);
	}
	if (dir == OFFLOAD_DECRYPT) {
		eip97_pkt_in(&p, map_in(s, lookup(s, op->tag, t, H_TAG), op->tag, t, (size_t)a + c, bounced),
			     t);
		if (!c)
			eip97_pkt_out(&p, s->bounce->bus + BOUNCE_TAG_OFF, 0); /* dummy RD for the result */
	} else {
		uint64_t tb = map_out(s, lookup(s, op->tag, t, H_TAG), op->tag, t, BOUNCE_TAG_OFF, 0, &om[nom++],
				      bounced);
		eip97_pkt_out(&p, tb, t);
	}
	if (!p.pkt_len)
		eip97_pkt_in(&p, s->ctx->bus, 1); /* the engine cannot take 0 bytes (§3.3) */
	*bounced |= bin;
	int r = eip97_run(s->r, &p, 1, "offload_cipher");
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < nom; i++)
		unmap_out(&om[i]);
	return 0;
}

/* ------------------------------------------------------------- ops */

static uint32_t needed_algos(enum offload_cipher_alg alg)
{
	switch (alg) {
	case OFFLOAD_CIPHER_AES_GCM: return EIP97_ALG_AES | EIP97_ALG_GHASH;
	case OFFLOAD_CIPHER_DES_ECB:
	case OFFLOAD_CIPHER_DES3_CBC: return EIP97_ALG_DES;
	default: return EIP97_ALG_AES;
	}
}

static int c_query(struct ofl_device *dev, enum offload_cipher_alg alg, bool *hw, char *why, size_t wl)
{
	const struct eip97_engine *e = dev->priv;
	uint32_t need = needed_algos(alg);

	*hw = false;
	if (!ofl_cipher_info(alg))
		return snprintf(why, wl, "unknown algorithm"), -ENOTSUP;
	if (eip97_failed(e, why, wl) < 0)
		return -EIO;
	if ((e->algo_flags & need) != need)
		return snprintf(why, wl, "EIP96_OPTIONS 0x%08x lacks bit(s) 0x%08x (%s)", e->algo_flags,
				need & ~e->algo_flags, alg == OFFLOAD_CIPHER_AES_GCM ? "AES, GHASH" :
				need == EIP97_ALG_DES ? "DES" : "AES"),
		       -ENOTSUP;
	*hw = true;
	return 0;
}

static size_t c_max_len(struct ofl_device *dev, enum offload_cipher_alg alg)
{
	OFL_UNUSED(dev);
	/* one GCM operation is one packet: AAD + data + tag within the 17-bit length */
	return alg == OFFLOAD_CIPHER_AES_GCM ? EIP97_PKT_MAX : SIZE_MAX;
}

static void c_close(void *bs)
{
	struct eip97_cipher *s = bs;

	if (!s)
		return;
	eip97_smem_put(s->e, s->m);
	ofl_wipe(s, sizeof(*s));
	free(s);
}

/* GCM: H = AES_K(0^128) by the engine itself (one ECB packet), stored byte-reversed per word. */
static int gcm_hash_key(struct eip97_cipher *s, uint32_t calg, uint32_t kw)
{
	struct eip97_pkt p;
	uint8_t *b = s->bounce->cpu, h[16];

	memset(b, 0, 32);
	ofl_dma_sync_for_device(s->bounce, 0, 32);
	s->m->dirty = OFL_MAX(s->m->dirty, (size_t)32);
	eip97_pkt_init(&p, EIP97_C0_TYPE_CRYPTO_OUT | EIP97_C0_KEY_EN | EIP97_C0_CALG(calg) |
				   EIP97_C0_SIZE(kw),
		       EIP97_MODE_ECB, EIP97_OPT_BASE | EIP97_OPT_IV2, s->ctx->bus);
	p.tok[0] = p.tok[1] = 0;
	p.tok[2] = EIP97_TOKEN(EIP97_OP_DIRECTION,
			       EIP97_INS_LAST | EIP97_INS_TYPE_CRYPTO | EIP97_INS_TYPE_OUTPUT,
			       EIP97_STAT_LAST_HASH | EIP97_STAT_LAST_PACKET, 16);
	p.tok[3] = EIP97_TOKEN_NOOP;
	eip97_pkt_in(&p, s->bounce->bus, 16);
	eip97_pkt_out(&p, s->bounce->bus, 16);
	int r = eip97_run(s->r, &p, 1, "offload_cipher_session_open (GCM hash key)");
	if (r < 0)
		return r;
	ofl_dma_sync_for_cpu(s->bounce, 0, 16);
	for (int i = 0; i < 16; i++)
		h[i] = b[(i & ~3) + 3 - (i & 3)];
	eip97_ctx_write(s->ctx, kw * 4u, h, 16);
	ofl_wipe(h, sizeof(h));
	ofl_wipe(b, 32);
	return 0;
}

static int c_open(struct ofl_device *dev, enum offload_cipher_alg alg, const uint8_t *key,
		  size_t key_len, void **bs)
{
	struct eip97_engine *e = dev->priv;
	struct eip97_cipher *s = calloc(1, sizeof(*s));
	uint32_t calg, kw = (uint32_t)key_len / 4u;

	if (!s)
		return ofl_err(dev->ctx, -ENOMEM, "eip97: out of memory");
	s->e = e;
	s->r = eip97_ring_pick(e);
	s->alg = alg;
	s->gcm = alg == OFFLOAD_CIPHER_AES_GCM;
	s->ctr = alg == OFFLOAD_CIPHER_AES_CTR;
	s->cbc = alg == OFFLOAD_CIPHER_AES_CBC || alg == OFFLOAD_CIPHER_DES3_CBC;
	if (alg == OFFLOAD_CIPHER_DES_ECB || alg == OFFLOAD_CIPHER_DES3_CBC) {
		calg = alg == OFFLOAD_CIPHER_DES_ECB ? EIP97_CALG_DES : EIP97_CALG_3DES;
		s->block = 8;
	} else {
		calg = key_len == 16 ? EIP97_CALG_AES128 : key_len == 24 ? EIP97_CALG_AES192 : EIP97_CALG_AES256;
		s->block = 16;
	}
	s->iv4 = s->gcm || s->ctr || alg == OFFLOAD_CIPHER_AES_CBC;
	s->opts = EIP97_OPT_BASE | (s->iv4 ? EIP97_OPT_IV4 : EIP97_OPT_IV2);
	s->c1 = s->gcm ? EIP97_MODE_CTR_LOAD | EIP97_C1_XCM
		: s->ctr ? EIP97_MODE_CTR_LOAD
		: s->cbc ? EIP97_MODE_CBC : EIP97_MODE_ECB;
	uint32_t base = EIP97_C0_KEY_EN | EIP97_C0_CALG(calg) | EIP97_C0_SIZE(kw + (s->gcm ? 4u : 0u));
	if (s->gcm) {
		base |= EIP97_C0_DIGEST(EIP97_DIGEST_XCM) | EIP97_C0_HALG(EIP97_HALG_GHASH);
		s->c0[OFFLOAD_ENCRYPT] = base | EIP97_C0_TYPE_ENCRYPT_HASH_OUT;
		s->c0[OFFLOAD_DECRYPT] = base | EIP97_C0_TYPE_HASH_DECRYPT_IN;
	} else {
		s->c0[OFFLOAD_ENCRYPT] = base | EIP97_C0_TYPE_CRYPTO_OUT;
		s->c0[OFFLOAD_DECRYPT] = base | EIP97_C0_TYPE_CRYPTO_IN;
	}
	int r = eip97_smem_get(e, &s->m);
	if (r == 0) {
		s->ctx = s->m->ctx;
		s->bounce = s->m->work;
		eip97_ctx_write(s->ctx, 0, key, key_len); /* raw byte order (§4.3) */
		if (s->gcm)
			r = gcm_hash_key(s, calg, kw);
	}
	if (r < 0) {
		c_close(s);
		return r;
	}
	*bs = s;
	return 0;
}

static int c_run(void *bs, const struct offload_cipher_op *op, const char **driver, uint32_t *flags)
{
	struct eip97_cipher *s = bs;
	struct ofl_dev_counters *st = &s->e->dev->stats;
	bool bounced = false;
	int r = s->gcm ? run_gcm(s, op, &bounced) : run_blocks(s, op, &bounced);

	if (r < 0)
		return r;
	atomic_fetch_add_explicit(&st->jobs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->bytes, op->len + op->aad_len, memory_order_relaxed);
	if (bounced)
		atomic_fetch_add_explicit(&st->bounced_bytes, op->len + op->aad_len, memory_order_relaxed);
	*driver = s->r->driver;
	*flags = eip97_res_flags(s->e) | (bounced ? OFFLOAD_RES_BOUNCED : 0);
	return 0;
}

/*
 * No .iv_ok: AES-GCM takes the 12-byte IV only. Linux drives the engine with
 * J0 = IV || counter 1 in the token's four IV words (safexcel_cipher.c:
 * safexcel_aead_gcm's ivsize is GCM_AES_IV_SIZE, the IV words are set in
 * safexcel_aead_iv; hw/eip97.md §5.2) and never has the engine GHASH an IV,
 * so a non-96-bit IV is -ENOTSUP here (the core words it) and AUTO uses the CPU.
 */
const struct ofl_cipher_ops eip97_cipher_ops = {
	.query = c_query,
	.max_len = c_max_len,
	.open = c_open,
	.run = c_run,
	.close = c_close,
};
