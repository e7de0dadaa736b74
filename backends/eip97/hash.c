/* SPDX-License-Identifier: MIT */
/*
 * Hashes and HMAC on the EIP97, the way Linux safexcel_hash.c drives it
 * (hw/eip97.h §4.3, §5.3 c):
 *
 *  - updates are cached in a 128-byte block (HASH_CACHE_SIZE); once more
 *    arrives, everything but the last 1..128 bytes goes to the engine as
 *    "continue" packets (NO_FINISH; the first restarts from the algorithm's
 *    IV, later ones load the running state from the context record) whose
 *    output is the new running state;
 *  - final sends the cached bytes: from the IV when nothing was sent
 *    before, else from the running state with the digest count (bytes so
 *    far / 64) after it so the engine pads correctly;
 *  - HMAC: the ipad and opad states are computed by the engine itself at
 *    open (one NO_FINISH block each of key ^ 0x36.. / key ^ 0x5c..; a key
 *    longer than a block is hashed by the engine first), as Linux
 *    safexcel_hmac_setkey does. A message that fits the cache runs as one
 *    HMAC packet (inner ‖ outer state in the record); a longer one as
 *    continued hash packets, then the outer hash as a second packet (the
 *    EIP97's PE cannot continue an HMAC, §6.5); an empty message hashes a
 *    software-built padding block from the inner state (Linux's hmac_zlen);
 *  - a one-shot offload_hash() of up to 64 KiB is one packet (Linux's
 *    digest/finup): from the IV, or one HMAC packet;
 *  - an empty plain-hash message is never sent (the engine cannot take 0
 *    bytes): the digest of the empty message is returned in software, as
 *    Linux does, and the result's driver says so.
 *
 * The cache, the result and a bounce area live in the session's DMA memory;
 * input inside a DMA buffer of the device goes to the engine zero-copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eip97.h"

#define M_CACHE 0u
#define M_RESULT 256u
#define M_DATA 512u
#define MEM_DIRTY(n) (M_DATA + (n))  /* work-area bytes used with n bytes of bounced data */

struct eip97_hash {
	struct eip97_engine *e;
	struct eip97_ring *r;
	enum offload_hash_alg alg;
	uint32_t halg;
	unsigned state_sz, digest_sz, block;
	bool hmac, len_le;
	struct eip97_smem *m;
	struct ofl_dma *ctx, *mem;  /* m->ctx, m->work */
	size_t cache_len;
	uint64_t processed;       /* bytes in the running state (HMAC: the ipad block included) */
	uint8_t state[64], istate[64], ostate[64];
	struct ofl_dma_hint hint;
};

/* FIPS 180-4 / RFC 1321 digests of the empty message (what Linux's *_zero_message_hash hold). */
static const uint8_t empty_md5[16] = { 0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04,
				       0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e };
static const uint8_t empty_sha1[20] = { 0xda, 0x39, 0xa3, 0xee, 0x5e, 0x6b, 0x4b, 0x0d, 0x32, 0x55,
					0xbf, 0xef, 0x95, 0x60, 0x18, 0x90, 0xaf, 0xd8, 0x07, 0x09 };
static const uint8_t empty_sha224[28] = { 0xd1, 0x4a, 0x02, 0x8c, 0x2a, 0x3a, 0x2b, 0xc9, 0x47, 0x61,
					  0x02, 0xbb, 0x28, 0x82, 0x34, 0xc4, 0x15, 0xa2, 0xb0, 0x1f,
					  0x82, 0x8e, 0xa6, 0x2a, 0xc5, 0xb3, 0xe4, 0x2f };
static const uint8_t empty_sha256[32] = { 0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
					  0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
					  0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
					  0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55 };
static const uint8_t empty_sha384[48] = {
	0x38, 0xb0, 0x60, 0xa7, 0x51, 0xac, 0x96, 0x38, 0x4c, 0xd9, 0x32, 0x7e, 0xb1, 0xb1, 0xe3, 0x6a,
	0x21, 0xfd, 0xb7, 0x11, 0x14, 0xbe, 0x07, 0x43, 0x4c, 0x0c, 0xc7, 0xbf, 0x63, 0xf6, 0xe1, 0xda,
	0x27, 0x4e, 0xde, 0xbf, 0xe7, 0x6f, 0x65, 0xfb, 0xd5, 0x1a, 0xd2, 0xf1, 0x48, 0x98, 0xb9, 0x5b
};
static const uint8_t empty_sha512[64] = {
	0xcf, 0x83, 0xe1, 0x35, 0x7e, 0xef, 0xb8, 0xbd, 0xf1, 0x54, 0x28, 0x50, 0xd6, 0x6d, 0x80, 0x07,
	0xd6, 0x20, 0xe4, 0x05, 0x0b, 0x57, 0x15, 0xdc, 0x83, 0xf4, 0xa9, 0x21, 0xd3, 0x6c, 0xe9, 0xce,
	0x47, 0xd0, 0xd1, 0x3c, 0x5d, 0x85, 0xf2, 0xb0, 0xff, 0x83, 0x18, 0xd2, 0x87, 0x7e, 0xec, 0x2f,
	0x63, 0xb9, 0x31, 0xbd, 0x47, 0x41, 0x7a, 0x81, 0xa5, 0x38, 0x32, 0x7a, 0xf9, 0x27, 0xda, 0x3e
};

static const struct {
	uint32_t halg, need;
	unsigned state, digest, block;
	const uint8_t *empty;
} algs[7] = {
	[OFFLOAD_HASH_MD5] = { EIP97_HALG_MD5, EIP97_ALG_MD5, 16, 16, 64, empty_md5 },
	[OFFLOAD_HASH_SHA1] = { EIP97_HALG_SHA1, EIP97_ALG_SHA1, 20, 20, 64, empty_sha1 },
	[OFFLOAD_HASH_SHA224] = { EIP97_HALG_SHA224, EIP97_ALG_SHA2_256, 32, 28, 64, empty_sha224 },
	[OFFLOAD_HASH_SHA256] = { EIP97_HALG_SHA256, EIP97_ALG_SHA2_256, 32, 32, 64, empty_sha256 },
	[OFFLOAD_HASH_SHA384] = { EIP97_HALG_SHA384, EIP97_ALG_SHA2_512, 64, 48, 128, empty_sha384 },
	[OFFLOAD_HASH_SHA512] = { EIP97_HALG_SHA512, EIP97_ALG_SHA2_512, 64, 64, 128, empty_sha512 },
};

static uint8_t *mem(const struct eip97_hash *h, size_t off)
{
	return (uint8_t *)h->mem->cpu + off;
}

/*
 * One packet: control words, context data (`cd`, `cd_len` bytes), input
 * particles, the state/digest (state_sz bytes) into the result area.
 */
static int hash_pkt(struct eip97_hash *h, uint32_t c0, uint32_t c1, const uint8_t *cd, size_t cd_len,
		    const struct eip97_seg *in, uint32_t nin, uint8_t *result)
{
	struct eip97_pkt p;

	if (cd_len)
		eip97_ctx_write(h->ctx, 0, cd, cd_len);
	eip97_pkt_init(&p, c0 | EIP97_C0_TYPE_HASH_OUT | EIP97_C0_HALG(h->halg), c1, EIP97_OPT_BASE,
		       h->ctx->bus);
	for (uint32_t i = 0; i < nin; i++)
		eip97_pkt_in(&p, in[i].bus, in[i].len);
	p.tok[0] = EIP97_TOKEN(EIP97_OP_DIRECTION, EIP97_INS_TYPE_HASH, EIP97_STAT_LAST_HASH, p.pkt_len);
	p.tok[1] = EIP97_TOKEN_NOOP;
	p.tok[2] = EIP97_TOKEN(EIP97_OP_INSERT, EIP97_INS_TYPE_OUTPUT | EIP97_INS_INSERT_HASH_DIGEST,
			       EIP97_STAT_LAST_HASH | EIP97_STAT_LAST_PACKET, h->state_sz);
	p.tok[3] = EIP97_TOKEN_NOOP;
	ofl_dma_sync_for_device(h->mem, M_RESULT, h->state_sz);
	eip97_pkt_out(&p, h->mem->bus + M_RESULT, h->state_sz);
	int r = eip97_run(h->r, &p, 1, "offload_hash");
	if (r < 0)
		return r;
	ofl_dma_sync_for_cpu(h->mem, M_RESULT, h->state_sz);
	memcpy(result, mem(h, M_RESULT), h->state_sz);
	return 0;
}

/* A segment for the cache's first `n` bytes, handed to the engine. */
static struct eip97_seg cache_seg(struct eip97_hash *h, size_t n)
{
	ofl_dma_sync_for_device(h->mem, M_CACHE, n);
	return (struct eip97_seg){ h->mem->bus + M_CACHE, (uint32_t)n };
}

/* Digest count: bytes before the cached data / 64, which must fit 32 bits (§4.3). */
static int count_word(struct eip97_hash *h, uint8_t out[4])
{
	uint64_t n = h->processed / EIP97_COUNTER_BLOCK;

	if (n > 0xffffffffu)
		return ofl_err(h->e->dev->ctx, -E2BIG,
			       "offload_hash: %s: the EIP97's digest count holds 2^32 blocks of 64 bytes; "
			       "this message is longer", h->e->name);
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(n >> (8 * i)); /* little-endian (cpu_to_le32) */
	return 0;
}

/* Continue the running state over `segs` (a multiple of 128 bytes), NO_FINISH. */
static int hash_continue(struct eip97_hash *h, const struct eip97_seg *segs, uint32_t nseg)
{
	uint32_t len = 0, c0 = EIP97_C0_NO_FINISH_HASH | EIP97_C0_DIGEST(EIP97_DIGEST_PRECOMPUTED);
	int r;

	for (uint32_t i = 0; i < nseg; i++)
		len += segs[i].len;
	if (h->processed == 0)
		r = hash_pkt(h, c0 | EIP97_C0_RESTART_HASH | EIP97_C0_SIZE(1), 0, NULL, 0, segs, nseg,
			     h->state);
	else
		r = hash_pkt(h, c0 | EIP97_C0_SIZE(h->state_sz / 4u), 0, h->state, h->state_sz, segs, nseg,
			     h->state);
	if (r == 0)
		h->processed += len;
	return r;
}

/* Finish from the running state (or the IV) over the cache's `n` bytes; `flags` adds NO_FINISH. */
static int hash_finish(struct eip97_hash *h, size_t n, uint32_t flags, uint8_t *out)
{
	struct eip97_seg seg = cache_seg(h, n);
	uint32_t pre = EIP97_C0_DIGEST(EIP97_DIGEST_PRECOMPUTED);
	uint8_t cd[68];

	if (h->processed == 0)
		return hash_pkt(h, pre | EIP97_C0_RESTART_HASH | EIP97_C0_SIZE(1) | flags, 0, NULL, 0, &seg,
				1, out);
	int r = count_word(h, cd + h->state_sz);
	if (r < 0)
		return r;
	memcpy(cd, h->state, h->state_sz);
	return hash_pkt(h, pre | EIP97_C0_SIZE(h->state_sz / 4u + 1u) | flags, EIP97_C1_DIGEST_CNT, cd,
			h->state_sz + 4u, &seg, 1, out);
}

/* The outer hash: opad state, one block counted, over the inner digest. */
static int hmac_outer(struct eip97_hash *h, const uint8_t *inner, uint8_t *out)
{
	memcpy(mem(h, M_CACHE), inner, h->digest_sz);
	memcpy(h->state, h->ostate, h->state_sz);
	h->processed = h->block;
	return hash_finish(h, h->digest_sz, 0, out);
}

static void h_reset(void *bs)
{
	struct eip97_hash *h = bs;

	h->cache_len = 0;
	h->processed = h->hmac ? h->block : 0;
	if (h->hmac)
		memcpy(h->state, h->istate, h->state_sz);
}

static int h_update(void *bs, const void *data, size_t len)
{
	struct eip97_hash *h = bs;
	const uint8_t *p = data;

	atomic_fetch_add_explicit(&h->e->dev->stats.bytes, len, memory_order_relaxed);
	if (h->cache_len + len <= EIP97_HASH_CACHE) {
		memcpy(mem(h, M_CACHE + h->cache_len), p, len);
		h->cache_len += len;
		return 0;
	}
	/* keep the last 1..128 bytes for final; send whole cache blocks of the rest */
	size_t total = h->cache_len + len, extra = total % EIP97_HASH_CACHE;
	if (!extra)
		extra = EIP97_HASH_CACHE;
	size_t dlen = len - extra, off = 0;
	struct ofl_dma *d = ofl_dma_lookup_hint(h->e->pool, p, dlen, &h->hint);
	while (h->cache_len || off < dlen) {
		struct eip97_seg segs[2];
		uint32_t nseg = 0;
		size_t room = EIP97_CHUNK;
		if (h->cache_len) {
			segs[nseg++] = cache_seg(h, h->cache_len);
			room -= h->cache_len;
		}
		size_t n = OFL_MIN(room, dlen - off);
		if (n && d) {
			size_t o = (size_t)(p + off - (const uint8_t *)d->cpu);
			ofl_dma_sync_for_device(d, o, n);
			segs[nseg++] = (struct eip97_seg){ d->bus + o, (uint32_t)n };
		} else if (n) {
			memcpy(mem(h, M_DATA), p + off, n);
			h->m->dirty = OFL_MAX(h->m->dirty, (size_t)MEM_DIRTY(n));
			segs[nseg++] = (struct eip97_seg){ h->mem->bus + M_DATA, (uint32_t)n };
			ofl_dma_sync_for_device(h->mem, M_DATA, n);
			atomic_fetch_add_explicit(&h->e->dev->stats.bounced_bytes, n, memory_order_relaxed);
		}
		int r = hash_continue(h, segs, nseg);
		if (r < 0)
			return r;
		h->cache_len = 0;
		off += n;
	}
	memcpy(mem(h, M_CACHE), p + dlen, extra);
	h->cache_len = extra;
	return 0;
}

/* Linux's zero-length HMAC: the inner hash's padding block for one block of key ^ ipad. */
static void pad_block(struct eip97_hash *h)
{
	uint8_t *c = mem(h, M_CACHE);
	uint32_t bits = h->block * 8u;

	memset(c, 0, h->block);
	c[0] = 0x80;
	if (h->len_le) {
		c[h->block - 8] = (uint8_t)bits;
		c[h->block - 7] = (uint8_t)(bits >> 8);
	} else {
		c[h->block - 2] = (uint8_t)(bits >> 8);
		c[h->block - 1] = (uint8_t)bits;
	}
	h->cache_len = h->block;
}

static int h_final(void *bs, uint8_t *digest, const char **driver, uint32_t *flags)
{
	struct eip97_hash *h = bs;
	uint8_t res[64];
	int r;

	if (!h->hmac && h->processed == 0 && h->cache_len == 0) {
		memcpy(digest, algs[h->alg].empty, h->digest_sz);
		*driver = h->e->sw_driver;
		*flags = OFFLOAD_RES_CPU;
		return 0;
	}
	if (h->hmac && h->processed == h->block && h->cache_len == 0) {
		pad_block(h);
		r = hash_finish(h, h->cache_len, EIP97_C0_NO_FINISH_HASH, res);
		if (r == 0)
			r = hmac_outer(h, res, res);
	} else if (h->hmac && h->processed == h->block) {
		/* the whole message in one HMAC packet: inner and outer state in the record */
		uint8_t cd[128];
		struct eip97_seg seg = cache_seg(h, h->cache_len);
		memcpy(cd, h->istate, h->state_sz);
		memcpy(cd + h->state_sz, h->ostate, h->state_sz);
		r = hash_pkt(h, EIP97_C0_DIGEST(EIP97_DIGEST_HMAC) | EIP97_C0_SIZE(h->state_sz / 2u), 0, cd,
			     2u * h->state_sz, &seg, 1, res);
		ofl_wipe(cd, sizeof(cd));
	} else {
		r = hash_finish(h, h->cache_len, 0, res);
		if (r == 0 && h->hmac)
			r = hmac_outer(h, res, res);
	}
	if (r == 0) {
		memcpy(digest, res, h->digest_sz);
		atomic_fetch_add_explicit(&h->e->dev->stats.jobs, 1, memory_order_relaxed);
		*driver = h->r->driver;
		*flags = eip97_res_flags(h->e);
	}
	ofl_wipe(res, sizeof(res));
	h_reset(h);
	return r;
}

/*
 * One whole message in one packet, as Linux's digest()/finup() sends it: a
 * plain hash from the IV, an HMAC as one HMAC packet (inner and outer state).
 * Longer messages (or a message already in progress) go update + final.
 */
static int h_digest(void *bs, const void *data, size_t len, uint8_t *digest, const char **driver,
		    uint32_t *flags)
{
	struct eip97_hash *h = bs;
	uint8_t res[64], cd[128];
	int r;

	if (len == 0 || len > EIP97_CHUNK || h->cache_len || h->processed != (h->hmac ? h->block : 0)) {
		r = len ? h_update(h, data, len) : 0;
		return r < 0 ? r : h_final(h, digest, driver, flags);
	}
	struct eip97_seg seg;
	struct ofl_dma *d = ofl_dma_lookup_hint(h->e->pool, data, len, &h->hint);
	if (d) {
		size_t o = (size_t)((const uint8_t *)data - (const uint8_t *)d->cpu);
		ofl_dma_sync_for_device(d, o, len);
		seg = (struct eip97_seg){ d->bus + o, (uint32_t)len };
	} else {
		memcpy(mem(h, M_DATA), data, len);
		ofl_dma_sync_for_device(h->mem, M_DATA, len);
		h->m->dirty = OFL_MAX(h->m->dirty, (size_t)MEM_DIRTY(len));
		seg = (struct eip97_seg){ h->mem->bus + M_DATA, (uint32_t)len };
		atomic_fetch_add_explicit(&h->e->dev->stats.bounced_bytes, len, memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&h->e->dev->stats.bytes, len, memory_order_relaxed);
	if (h->hmac) {
		memcpy(cd, h->istate, h->state_sz);
		memcpy(cd + h->state_sz, h->ostate, h->state_sz);
		r = hash_pkt(h, EIP97_C0_DIGEST(EIP97_DIGEST_HMAC) | EIP97_C0_SIZE(h->state_sz / 2u), 0, cd,
			     2u * h->state_sz, &seg, 1, res);
		ofl_wipe(cd, sizeof(cd));
	} else {
		r = hash_pkt(h, EIP97_C0_DIGEST(EIP97_DIGEST_PRECOMPUTED) | EIP97_C0_RESTART_HASH |
					EIP97_C0_SIZE(1),
			     0, NULL, 0, &seg, 1, res);
	}
	if (r == 0) {
		memcpy(digest, res, h->digest_sz);
		atomic_fetch_add_explicit(&h->e->dev->stats.jobs, 1, memory_order_relaxed);
		*driver = h->r->driver;
		*flags = eip97_res_flags(h->e);
	}
	ofl_wipe(res, sizeof(res));
	h_reset(h);
	return r;
}

/* HMAC: the ipad and opad states, by the engine (safexcel_hmac_setkey). */
static int hmac_setkey(struct eip97_hash *h, const uint8_t *key, size_t key_len)
{
	uint8_t k[128] = { 0 }, *blk = mem(h, M_DATA);
	int r = 0;

	if (key_len > h->block) {
		const char *drv;
		uint32_t fl;
		r = h_update(h, key, key_len);
		if (r == 0)
			r = h_final(h, k, &drv, &fl);
		key_len = h->digest_sz;
	} else if (key_len) {
		memcpy(k, key, key_len);
	}
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		for (unsigned i = 0; i < h->block; i++)
			blk[i] = k[i] ^ (pass ? 0x5c : 0x36);
		ofl_dma_sync_for_device(h->mem, M_DATA, h->block);
		struct eip97_seg seg = { h->mem->bus + M_DATA, h->block };
		h->processed = 0;
		r = hash_continue(h, &seg, 1);
		memcpy(pass ? h->ostate : h->istate, h->state, h->state_sz);
	}
	ofl_wipe(k, sizeof(k));
	ofl_wipe(blk, h->block);
	if (r < 0)
		return r;
	h->hmac = true;
	h_reset(h);
	return 0;
}

static int h_query(struct ofl_device *dev, enum offload_hash_alg alg, bool *hw, char *why, size_t wl)
{
	const struct eip97_engine *e = dev->priv;
	unsigned b = ofl_hash_base(alg);

	*hw = false;
	if (b < 1 || b > 6 || !ofl_hash_info(alg))
		return snprintf(why, wl, "unknown algorithm"), -ENOTSUP;
	if (eip97_failed(e, why, wl) < 0)
		return -EIO;
	if (!(e->algo_flags & algs[b].need))
		return snprintf(why, wl, "EIP96_OPTIONS 0x%08x lacks bit 0x%08x", e->algo_flags, algs[b].need),
		       -ENOTSUP;
	*hw = true;
	return 0;
}

static void h_close(void *bs)
{
	struct eip97_hash *h = bs;

	if (!h)
		return;
	if (h->m)
		h->m->dirty = OFL_MAX(h->m->dirty, (size_t)MEM_DIRTY(h->block)); /* cache, result, pads */
	eip97_smem_put(h->e, h->m);
	ofl_wipe(h, sizeof(*h));
	free(h);
}

static int h_open(struct ofl_device *dev, enum offload_hash_alg alg, const uint8_t *key, size_t key_len,
		  void **bs)
{
	struct eip97_engine *e = dev->priv;
	struct eip97_hash *h = calloc(1, sizeof(*h));
	unsigned b = ofl_hash_base(alg);

	if (!h)
		return ofl_err(dev->ctx, -ENOMEM, "eip97: out of memory");
	h->e = e;
	h->r = eip97_ring_pick(e);
	h->alg = (enum offload_hash_alg)b;
	h->halg = algs[b].halg;
	h->state_sz = algs[b].state;
	h->digest_sz = algs[b].digest;
	h->block = algs[b].block;
	h->len_le = b == OFFLOAD_HASH_MD5;
	int r = eip97_smem_get(e, &h->m);
	if (r == 0) {
		h->ctx = h->m->ctx;
		h->mem = h->m->work;
	}
	if (r == 0 && ofl_hash_is_hmac(alg))
		r = hmac_setkey(h, key, key_len);
	if (r < 0) {
		h_close(h);
		return r;
	}
	*bs = h;
	return 0;
}

const struct ofl_hash_ops eip97_hash_ops = {
	.query = h_query,
	.open = h_open,
	.update = h_update,
	.final = h_final,
	.digest = h_digest,
	.reset = h_reset,
	.close = h_close,
};
