/* SPDX-License-Identifier: MIT */
/*
 * Ciphers and hashes: argument checks, device selection, sessions.
 *
 * Selection rule (documented in offload/crypto.h): a session looks once, at
 * open, for an "engine": the first usable non-CPU device (DT devices before
 * pseudo-devices) whose backend implements the algorithm and either runs it
 * on an off-CPU engine or is named explicitly by the context's allow-list.
 * Models follow the memcpy rule (ofl_ctx_auto_ok): they are chosen only
 * when the context asked for simulation.
 * Each operation then goes to the engine when its size (len + aad_len for
 * ciphers, the whole message for hashes) is at least the engine's
 * threshold_bytes and within what the engine can take in one piece, else to
 * the CPU. A session opened on an explicit device always uses that device.
 *
 * Backend state is created lazily per device; after the first operation on
 * a device nothing on the per-operation path allocates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crypto_int.h"
#include "core/internal.h"

#define CIPHER_MAGIC 0x6f666c73u /* "ofls" */
#define HASH_MAGIC 0x6f666c68u   /* "oflh" */
#define HASH_BUF_MAX (64u * 1024u)
/* AES-GCM input limits in bytes (NIST SP 800-38D 5.2.1.1): P <= 2^39 - 256 bits, A < 2^64 bits. */
#define GCM_MAX_DATA ((UINT64_C(1) << 36) - 32u)
#define GCM_MAX_AAD ((UINT64_C(1) << 61) - 1u)

/* ------------------------------------------------------------ algorithm facts */

static const struct ofl_cipher_info cipher_table[] = {
	{ OFFLOAD_CIPHER_AES_ECB, "AES-ECB", { 16, 24, 32 }, 0, 16, false },
	{ OFFLOAD_CIPHER_AES_CBC, "AES-CBC", { 16, 24, 32 }, 16, 16, false },
	{ OFFLOAD_CIPHER_AES_CTR, "AES-CTR", { 16, 24, 32 }, 16, 1, false },
	{ OFFLOAD_CIPHER_AES_GCM, "AES-GCM", { 16, 24, 32 }, 12, 1, true },
	{ OFFLOAD_CIPHER_DES_ECB, "DES-ECB", { 8, 0, 0 }, 0, 8, false },
	{ OFFLOAD_CIPHER_DES3_CBC, "DES-EDE3-CBC", { 24, 0, 0 }, 8, 8, false },
};

const struct ofl_cipher_info *ofl_cipher_info(enum offload_cipher_alg alg)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(cipher_table); i++)
		if (cipher_table[i].alg == alg)
			return &cipher_table[i];
	return NULL;
}

const char *offload_cipher_name(enum offload_cipher_alg alg, size_t key_len)
{
	static const char *const aes[4][3] = {
		{ "AES-128-ECB", "AES-192-ECB", "AES-256-ECB" },
		{ "AES-128-CBC", "AES-192-CBC", "AES-256-CBC" },
		{ "AES-128-CTR", "AES-192-CTR", "AES-256-CTR" },
		{ "AES-128-GCM", "AES-192-GCM", "AES-256-GCM" },
	};
	switch (alg) {
	case OFFLOAD_CIPHER_AES_ECB:
	case OFFLOAD_CIPHER_AES_CBC:
	case OFFLOAD_CIPHER_AES_CTR:
	case OFFLOAD_CIPHER_AES_GCM:
		if (key_len != 16 && key_len != 24 && key_len != 32)
			return NULL;
		return aes[alg - OFFLOAD_CIPHER_AES_ECB][(key_len - 16) / 8];
	case OFFLOAD_CIPHER_DES_ECB:
		return key_len == 8 ? "DES-ECB" : NULL;
	case OFFLOAD_CIPHER_DES3_CBC:
		return key_len == 24 ? "DES-EDE3-CBC" : NULL;
	}
	return NULL;
}

static const struct {
	enum offload_hash_alg alg;
	const char *name;
	int digest;
} hash_table[] = {
	{ OFFLOAD_HASH_MD5, "MD5", 16 },
	{ OFFLOAD_HASH_SHA1, "SHA1", 20 },
	{ OFFLOAD_HASH_SHA224, "SHA224", 28 },
	{ OFFLOAD_HASH_SHA256, "SHA256", 32 },
	{ OFFLOAD_HASH_SHA384, "SHA384", 48 },
	{ OFFLOAD_HASH_SHA512, "SHA512", 64 },
	{ OFFLOAD_HASH_HMAC_MD5, "HMAC-MD5", 16 },
	{ OFFLOAD_HASH_HMAC_SHA1, "HMAC-SHA1", 20 },
	{ OFFLOAD_HASH_HMAC_SHA224, "HMAC-SHA224", 28 },
	{ OFFLOAD_HASH_HMAC_SHA256, "HMAC-SHA256", 32 },
	{ OFFLOAD_HASH_HMAC_SHA384, "HMAC-SHA384", 48 },
	{ OFFLOAD_HASH_HMAC_SHA512, "HMAC-SHA512", 64 },
};

const char *offload_hash_name(enum offload_hash_alg alg)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(hash_table); i++)
		if (hash_table[i].alg == alg)
			return hash_table[i].name;
	return NULL;
}

enum offload_hash_alg ofl_hash_base(enum offload_hash_alg alg)
{
	return (enum offload_hash_alg)((unsigned)alg & 0xffu);
}

int offload_hash_digest_size(enum offload_hash_alg alg)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(hash_table); i++)
		if (hash_table[i].alg == alg)
			return hash_table[i].digest;
	return ofl_err(NULL, -EINVAL, "offload_hash_digest_size: unknown hash algorithm %d", (int)alg);
}

/* ------------------------------------------------------------ device choice */

/* One device a session may use, with its lazily created backend state. */
struct slot {
	struct ofl_device *dev;
	void *bs;
};

static bool backend_named(const struct offload_ctx *ctx, const struct ofl_device *d)
{
	return ctx->allow[0] != '\0' && ofl_ctx_backend_allowed(ctx, d->backend->name);
}

/*
 * Find the devices of a new session. kind is OFFLOAD_CAP_CIPHER or _HASH;
 * query asks the backend about the algorithm. Fills eng (may stay NULL) and
 * cpu (NULL when the CPU cannot do it). dev >= 0 pins the session to it.
 */
static int query_dev(struct ofl_device *d, uint32_t kind, int alg, bool *hw, char *why,
		     size_t len)
{
	*hw = false;
	if (!d->backend)
		return snprintf(why, len, "not usable: %.150s", d->usable_reason), -ENODEV;
	if (!(d->policy.caps & kind))
		return snprintf(why, len, "offers no %s", kind == OFFLOAD_CAP_CIPHER ? "cipher" : "hash"),
		       -ENOTSUP;
	if (kind == OFFLOAD_CAP_CIPHER) {
		if (!d->backend->cipher)
			return snprintf(why, len, "backend %s has no ciphers", d->backend->name), -ENOTSUP;
		return d->backend->cipher->query(d, (enum offload_cipher_alg)alg, hw, why, len);
	}
	if (!d->backend->hash)
		return snprintf(why, len, "backend %s has no hashes", d->backend->name), -ENOTSUP;
	return d->backend->hash->query(d, (enum offload_hash_alg)alg, hw, why, len);
}

/*
 * The automatic choice of an algorithm depends on nothing but the context's
 * devices, which do not change while it is open: pick_devices() finds it
 * once per algorithm and keeps it in ctx->crypto_pick, so that a session or
 * a one-shot call does not query every backend again. Entry: bit 16 set
 * when known, bits 8..15 the engine's device index + 1, bits 0..7 the CPU
 * device's (+ 1; 0: none). Index: a hash's base algorithm 1..6, + 6 for
 * HMAC; a cipher's algorithm 1..6 + 12. Concurrent first calls store the
 * same value.
 */
static unsigned pick_index(uint32_t kind, int alg)
{
	unsigned a = (unsigned)alg;

	if (kind == OFFLOAD_CAP_CIPHER)
		return a >= 1 && a <= 6 ? 12 + a : 0;
	unsigned b = a & 0xffu;
	return b >= 1 && b <= 6 ? b + (ofl_hash_is_hmac((enum offload_hash_alg)alg) ? 6 : 0) : 0;
}

static bool pick_cached(struct offload_ctx *ctx, uint32_t kind, int alg, struct slot *eng,
			struct slot *cpu)
{
	unsigned i = pick_index(kind, alg);
	uint32_t pk = i ? atomic_load_explicit(&ctx->crypto_pick[i], memory_order_relaxed) : 0;

	if (!pk)
		return false;
	unsigned e = (pk >> 8) & 0xffu, c = pk & 0xffu;
	eng->dev = e ? ctx->devs[e - 1] : NULL;
	cpu->dev = c ? ctx->devs[c - 1] : NULL;
	return true;
}

static void pick_store(struct offload_ctx *ctx, uint32_t kind, int alg, const struct slot *eng,
		       const struct slot *cpu)
{
	unsigned i = pick_index(kind, alg);
	uint32_t pk = 1u << 16 | (uint32_t)(eng->dev ? eng->dev->index + 1 : 0) << 8 |
		      (uint32_t)(cpu->dev ? cpu->dev->index + 1 : 0);

	if (i)
		atomic_store_explicit(&ctx->crypto_pick[i], pk, memory_order_relaxed);
}

static int pick_devices(struct offload_ctx *ctx, const char *func, int dev, uint32_t kind, int alg,
			const char *alg_name, struct slot *eng, struct slot *cpu)
{
	char why[OFL_REASON_LEN], all[OFL_ERRMSG_LEN - 128];
	size_t off = 0;
	bool hw;
	int r;

	memset(eng, 0, sizeof(*eng));
	memset(cpu, 0, sizeof(*cpu));
	if (dev == OFFLOAD_DEV_AUTO && pick_cached(ctx, kind, alg, eng, cpu))
		return 0;
	if (dev != OFFLOAD_DEV_AUTO) {
		struct ofl_device *d = ofl_ctx_device(ctx, dev);
		if (!d)
			return ofl_err(ctx, -ENODEV, "%s: no device %d (the context has %d)", func, dev,
				       ctx->ndev);
		why[0] = '\0';
		r = query_dev(d, kind, alg, &hw, why, sizeof(why));
		if (r < 0)
			return ofl_err(ctx, r, "%s: device %s cannot run %s: %s", func, d->name, alg_name,
				       why);
		eng->dev = d;
		return 0;
	}
	all[0] = '\0';
	/* DT devices first (node >= 0), then pseudo-devices; the CPU last. */
	for (int pass = 0; pass < 2 && !eng->dev; pass++) {
		for (int i = 0; i < ctx->ndev && !eng->dev; i++) {
			struct ofl_device *d = ctx->devs[i];
			if (i == ctx->cpu_dev || (pass == 0) != (d->node >= 0) || !d->backend)
				continue;
			if (!(d->policy.caps & kind))
				continue;
			if (!ofl_ctx_auto_ok(ctx, d)) {
				if (off < sizeof(all))
					off += (size_t)snprintf(all + off, sizeof(all) - off,
								"%s%s: a model attached only because no "
								"device tree was given (not chosen "
								"automatically; use --sim or OFFLOAD_SIM=1)",
								off ? "; " : "", d->name);
				continue;
			}
			why[0] = '\0';
			r = query_dev(d, kind, alg, &hw, why, sizeof(why));
			if (r == 0 && (hw || backend_named(ctx, d)))
				eng->dev = d;
			else if (off < sizeof(all))
				off += (size_t)snprintf(all + off, sizeof(all) - off, "%s%s: %s",
							off ? "; " : "", d->name,
							r < 0 ? why : "software implementation, not preferred");
		}
	}
	if (ctx->cpu_dev >= 0) {
		struct ofl_device *d = ctx->devs[ctx->cpu_dev];
		why[0] = '\0';
		r = query_dev(d, kind, alg, &hw, why, sizeof(why));
		if (r == 0)
			cpu->dev = d;
		else if (off < sizeof(all))
			off += (size_t)snprintf(all + off, sizeof(all) - off, "%scpu: %s", off ? "; " : "",
						why);
	} else if (off < sizeof(all)) {
		off += (size_t)snprintf(all + off, sizeof(all) - off, "%scpu: excluded by the allow-list",
					off ? "; " : "");
	}
	if (!eng->dev && !cpu->dev)
		return ofl_err(ctx, -ENOTSUP, "%s: no usable device implements %s (%s)", func, alg_name,
			       all[0] ? all : "no crypto backend is built or allowed");
	pick_store(ctx, kind, alg, eng, cpu);
	return 0;
}

/* ------------------------------------------------------------ backend errors */

/* ------------------------------------------------------------ cipher sessions */

struct offload_cipher_session {
	struct ofl_handle h;
	struct offload_ctx *ctx;
	uint32_t magic;
	enum offload_cipher_alg alg;
	const struct ofl_cipher_info *info;
	bool pinned;         /* explicit device: eng always */
	bool cpu_only;       /* no engine: every operation on cpu, whatever its size */
	bool registered;     /* in the context's handle list (not a one-shot) */
	uint64_t threshold;  /* eng when size >= threshold */
	size_t eng_max;      /* largest op eng takes */
	struct slot eng, cpu;
	size_t key_len;
	uint8_t key[32];
};

static bool key_len_ok(const struct ofl_cipher_info *ci, size_t key_len)
{
	for (size_t i = 0; i < sizeof(ci->key_lens) && ci->key_lens[i]; i++)
		if (ci->key_lens[i] == key_len)
			return true;
	return false;
}

static int key_len_err(struct offload_ctx *ctx, const char *func, const struct ofl_cipher_info *ci,
		       size_t key_len)
{
	if (ci->key_lens[1])
		return ofl_err(ctx, -EINVAL, "%s: %s needs a 16-, 24- or 32-byte key, got %zu bytes",
			       func, ci->name, key_len);
	return ofl_err(ctx, -EINVAL, "%s: %s needs a %u-byte key, got %zu bytes", func, ci->name,
		       ci->key_lens[0], key_len);
}

static int cipher_session_init(struct offload_cipher_session *s, struct offload_ctx *ctx,
			       const char *func, int dev, enum offload_cipher_alg alg,
			       const void *key, size_t key_len)
{
	const struct ofl_cipher_info *ci = ofl_cipher_info(alg);

	if (!ci)
		return ofl_err(ctx, -EINVAL, "%s: unknown cipher algorithm %d", func, (int)alg);
	if (!key)
		return ofl_err(ctx, -EINVAL, "%s: key is NULL", func);
	if (!key_len_ok(ci, key_len))
		return key_len_err(ctx, func, ci, key_len);
	memset(s, 0, sizeof(*s));
	int r = pick_devices(ctx, func, dev, OFFLOAD_CAP_CIPHER, (int)alg,
			     offload_cipher_name(alg, key_len), &s->eng, &s->cpu);
	if (r < 0)
		return r;
	s->ctx = ctx;
	s->magic = CIPHER_MAGIC;
	s->alg = alg;
	s->info = ci;
	s->pinned = dev != OFFLOAD_DEV_AUTO;
	s->cpu_only = !s->eng.dev;
	if (s->eng.dev) {
		s->threshold = s->pinned ? 0 : s->eng.dev->policy.threshold_bytes;
		s->eng_max = s->eng.dev->backend->cipher->max_len
				     ? s->eng.dev->backend->cipher->max_len(s->eng.dev, alg)
				     : SIZE_MAX;
	}
	memcpy(s->key, key, key_len);
	s->key_len = key_len;
	return 0;
}

static void slot_close_cipher(struct slot *sl)
{
	if (sl->bs)
		sl->dev->backend->cipher->close(sl->bs);
	sl->bs = NULL;
}

static void cipher_session_fini(struct offload_cipher_session *s)
{
	slot_close_cipher(&s->eng);
	slot_close_cipher(&s->cpu);
	ofl_wipe(s->key, sizeof(s->key));
	s->magic = 0;
}

static bool gcm_tag_len_ok(size_t t)
{
	return t == 4 || t == 8 || (t >= 12 && t <= 16);
}

/* Check everything about op except alg/key (which the caller handled). */
static int check_op(struct offload_ctx *ctx, const char *func, const struct ofl_cipher_info *ci,
		    const struct offload_cipher_op *op)
{
	if (OFL_UNLIKELY(op->dir != OFFLOAD_ENCRYPT && op->dir != OFFLOAD_DECRYPT))
		return ofl_err(ctx, -EINVAL, "%s: unknown direction %d", func, (int)op->dir);
	if (OFL_UNLIKELY(op->iv_len != ci->iv_len))
		return ci->iv_len ? ofl_err(ctx, -EINVAL, "%s: %s needs a %u-byte IV, got %zu bytes",
					    func, ci->name, ci->iv_len, op->iv_len)
				  : ofl_err(ctx, -EINVAL, "%s: %s takes no IV, got iv_len %zu", func,
					    ci->name, op->iv_len);
	if (OFL_UNLIKELY(ci->iv_len && !op->iv))
		return ofl_err(ctx, -EINVAL, "%s: iv is NULL", func);
	/* As for AAD and tag below: a mode without one takes neither pointer nor length. */
	if (OFL_UNLIKELY(!ci->iv_len && op->iv))
		return ofl_err(ctx, -EINVAL, "%s: %s takes no IV: pass iv NULL and iv_len 0", func,
			       ci->name);
	if (OFL_UNLIKELY(op->len && (!op->in || !op->out)))
		return ofl_err(ctx, -EINVAL, "%s: %s is NULL with len %zu", func,
			       !op->in ? "in" : "out", op->len);
	if (OFL_UNLIKELY(op->len & (ci->block - 1u))) /* block: 1, 8 or 16 */
		return ofl_err(ctx, -EINVAL,
			       "%s: %s length %zu is not a multiple of the %u-byte block (no padding "
			       "is applied)",
			       func, ci->name, op->len, ci->block);
	if (OFL_UNLIKELY(ofl_range_wraps(op->in, op->len) || ofl_range_wraps(op->out, op->len)))
		return ofl_err(ctx, -EINVAL, "%s: length %zu wraps the address space", func, op->len);
	if (OFL_UNLIKELY(op->in != op->out && ofl_ranges_overlap(op->in, op->len, op->out, op->len)))
		return ofl_err(ctx, -EINVAL,
			       "%s: in [%p,+%zu) and out [%p,+%zu) overlap partially; use the same "
			       "buffer for in-place operation or separate buffers",
			       func, op->in, op->len, op->out, op->len);
	if (!ci->aead) {
		if (OFL_UNLIKELY(op->aad || op->aad_len))
			return ofl_err(ctx, -EINVAL, "%s: %s takes no AAD (only AES-GCM does)", func,
				       ci->name);
		if (OFL_UNLIKELY(op->tag || op->tag_len))
			return ofl_err(ctx, -EINVAL, "%s: %s has no tag (only AES-GCM does)", func,
				       ci->name);
		return 0;
	}
	if (OFL_UNLIKELY(op->aad_len && !op->aad))
		return ofl_err(ctx, -EINVAL, "%s: aad is NULL with aad_len %zu", func, op->aad_len);
	if (OFL_UNLIKELY((uint64_t)op->len > GCM_MAX_DATA))
		return ofl_err(ctx, -EINVAL,
			       "%s: AES-GCM data of %zu bytes is above the %llu-byte limit of one "
			       "operation (2^39 - 256 bits, NIST SP 800-38D 5.2.1.1)",
			       func, op->len, (unsigned long long)GCM_MAX_DATA);
	if (OFL_UNLIKELY((uint64_t)op->aad_len > GCM_MAX_AAD))
		return ofl_err(ctx, -EINVAL,
			       "%s: AES-GCM AAD of %zu bytes is above the limit of 2^64 - 1 bits "
			       "(NIST SP 800-38D 5.2.1.1)",
			       func, op->aad_len);
	if (OFL_UNLIKELY(ofl_range_wraps(op->aad, op->aad_len)))
		return ofl_err(ctx, -EINVAL, "%s: aad_len %zu wraps the address space", func,
			       op->aad_len);
	if (OFL_UNLIKELY(!gcm_tag_len_ok(op->tag_len)))
		return ofl_err(ctx, -EINVAL,
			       "%s: AES-GCM tag length %zu is not allowed (4, 8 or 12..16 bytes, "
			       "NIST SP 800-38D 5.2.1.2)",
			       func, op->tag_len);
	if (OFL_UNLIKELY(!op->tag))
		return ofl_err(ctx, -EINVAL, "%s: tag is NULL", func);
	if (OFL_UNLIKELY(ofl_ranges_overlap(op->tag, op->tag_len, op->out, op->len) ||
			 (op->dir == OFFLOAD_ENCRYPT &&
			  (ofl_ranges_overlap(op->tag, op->tag_len, op->in, op->len) ||
			   ofl_ranges_overlap(op->tag, op->tag_len, op->aad, op->aad_len)))))
		return ofl_err(ctx, -EINVAL, "%s: the tag buffer overlaps the data", func);
	if (OFL_UNLIKELY(ofl_ranges_overlap(op->aad, op->aad_len, op->out, op->len)))
		return ofl_err(ctx, -EINVAL, "%s: the AAD buffer overlaps out", func);
	return 0;
}

static int slot_open_cipher(struct offload_cipher_session *s, const char *func, struct slot *sl)
{
	ofl_err_clear(s->ctx);
	int r = sl->dev->backend->cipher->open(sl->dev, s->alg, s->key, s->key_len, &sl->bs);

	return r < 0 ? ofl_backend_err(s->ctx, func, sl->dev, r) : r;
}

static int cipher_run(struct offload_cipher_session *s, const char *func,
		      const struct offload_cipher_op *op)
{
	struct offload_ctx *ctx = s->ctx;
	int r = check_op(ctx, func, s->info, op);

	if (OFL_UNLIKELY(r < 0))
		return r;
	struct slot *sl = &s->cpu;
	if (OFL_UNLIKELY(!s->cpu_only)) {
		/* saturating: the two lengths may overlap the same memory */
		size_t size = op->len + op->aad_len < op->len ? SIZE_MAX : op->len + op->aad_len;
		if (s->pinned || !s->cpu.dev ||
		    (size >= s->threshold && size <= s->eng_max - op->tag_len))
			sl = &s->eng;
		if (OFL_UNLIKELY(sl == &s->eng && size > s->eng_max - op->tag_len))
			return ofl_err(ctx, -E2BIG,
				       "%s: %s of %zu bytes (+%zu AAD) is larger than device %s takes in "
				       "one operation (%zu bytes including AAD and tag)",
				       func, s->info->name, op->len, op->aad_len, sl->dev->name,
				       s->eng_max);
	}
	if (OFL_UNLIKELY(!s->info->aead && op->len == 0)) {
		ofl_result_set(op->result, sl->dev, "none", 0);
		return 0;
	}
	if (OFL_UNLIKELY(!sl->bs)) {
		r = slot_open_cipher(s, func, sl);
		if (r < 0)
			return r;
	}
	const char *driver = "";
	uint32_t flags = 0;
	ofl_err_clear(ctx);
	r = sl->dev->backend->cipher->run(sl->bs, op, &driver, &flags);
	if (OFL_UNLIKELY(r < 0)) {
		if (op->len)
			ofl_wipe(op->out, op->len);
		if (r == -EBADMSG)
			return ofl_err(ctx, r, "%s: AES-GCM tag mismatch on %s: the data or tag was "
					       "altered or the key/IV/AAD differ; no plaintext released",
				       func, sl->dev->name);
		return ofl_backend_err(ctx, func, sl->dev, r);
	}
	ofl_result_set(op->result, sl->dev, driver, flags);
	return 0;
}

static void cipher_destroy(struct ofl_handle *h)
{
	struct offload_cipher_session *s = ofl_container_of(h, struct offload_cipher_session, h);

	ofl_ctx_handle_del(s->ctx, &s->h);
	cipher_session_fini(s);
	free(s);
}

int offload_cipher_session_open_dev(offload_ctx *ctx, int dev, enum offload_cipher_alg alg,
				    const void *key, size_t key_len, offload_cipher_session **out)
{
	static const char func[] = "offload_cipher_session_open";
	int r = ofl_ctx_check(ctx, func);

	if (r < 0)
		return r;
	if (!out)
		return ofl_err(ctx, -EINVAL, "%s: out is NULL", func);
	*out = NULL;
	struct offload_cipher_session *s = malloc(sizeof(*s));
	if (!s)
		return ofl_err(ctx, -ENOMEM, "%s: out of memory", func);
	r = cipher_session_init(s, ctx, func, dev, alg, key, key_len);
	if (r < 0) {
		ofl_wipe(s, sizeof(*s));
		free(s);
		return r;
	}
	/* Bound to one device: set the backend up now, so that an algorithm the
	 * device lacks (e.g. one missing from the kernel behind AF_ALG) or a key
	 * it refuses is an error here, as documented, not at the first run. */
	if (s->pinned && s->eng.dev) {
		r = slot_open_cipher(s, func, &s->eng);
		if (r < 0) {
			cipher_session_fini(s);
			free(s);
			return r;
		}
	}
	s->registered = true;
	ofl_ctx_handle_add(ctx, &s->h, "cipher session", cipher_destroy);
	*out = s;
	return 0;
}

int offload_cipher_session_open(offload_ctx *ctx, enum offload_cipher_alg alg, const void *key,
				size_t key_len, offload_cipher_session **out)
{
	return offload_cipher_session_open_dev(ctx, OFFLOAD_DEV_AUTO, alg, key, key_len, out);
}

/* What is wrong with a session call's handle, context or op (slow path). */
static int __attribute__((noinline, cold)) session_run_err(const offload_cipher_session *s,
							    const struct offload_cipher_op *op,
							    const char *func)
{
	if (!s || s->magic != CIPHER_MAGIC)
		return ofl_err(NULL, -EINVAL, "%s: %s", func,
			       !s ? "session is NULL" : "not an open cipher session");
	if (!s->ctx->open)
		return ofl_err(s->ctx, -EBADF, "%s: the context is closed", func);
	if (ofl_ctx_inherited(s->ctx))
		return ofl_inherited_err(s->ctx, func);
	if (!op)
		return ofl_err(s->ctx, -EINVAL, "%s: op is NULL", func);
	return ofl_err(s->ctx, -EINVAL,
		       "%s: op->alg, op->key and op->key_len must be 0/NULL in a session (the "
		       "session's key and algorithm are used)",
		       func);
}

int offload_cipher_session_run(offload_cipher_session *s, const struct offload_cipher_op *op)
{
	static const char func[] = "offload_cipher_session_run";

	if (OFL_UNLIKELY(!s || s->magic != CIPHER_MAGIC || !s->ctx->open ||
			 ofl_ctx_inherited(s->ctx) || !op || op->alg || op->key || op->key_len))
		return session_run_err(s, op, func);
	return cipher_run(s, func, op);
}

int offload_cipher_session_close(offload_cipher_session *s)
{
	if (!s || s->magic != CIPHER_MAGIC)
		return ofl_err(NULL, -EINVAL, "offload_cipher_session_close: %s",
			       !s ? "session is NULL" : "not an open cipher session");
	if (ofl_ctx_inherited(s->ctx))
		return ofl_inherited_err(s->ctx, "offload_cipher_session_close");
	cipher_destroy(&s->h);
	return 0;
}

int offload_cipher(offload_ctx *ctx, const struct offload_cipher_op *op)
{
	static const char func[] = "offload_cipher";
	struct offload_cipher_session s;
	int r = ofl_ctx_check(ctx, func);

	if (r < 0)
		return r;
	if (!op)
		return ofl_err(ctx, -EINVAL, "%s: op is NULL", func);
	r = cipher_session_init(&s, ctx, func, OFFLOAD_DEV_AUTO, op->alg, op->key, op->key_len);
	if (r < 0)
		return r;
	r = cipher_run(&s, func, op);
	cipher_session_fini(&s);
	return r;
}

/* ------------------------------------------------------------ hash sessions */

struct offload_hash_session {
	struct ofl_handle h;
	struct offload_ctx *ctx;
	uint32_t magic;
	enum offload_hash_alg alg;
	int digest_len;
	bool pinned;
	struct slot eng, cpu;
	struct slot *only;    /* the one device every message goes to (no choice), or NULL */
	struct slot *cur;     /* device of the current message, NULL = not chosen yet */
	uint64_t threshold;
	uint8_t *buf;         /* the first bytes of a message while undecided */
	size_t buf_cap, buffered;
	uint8_t *key;
	size_t key_len;
};

static int hash_session_init(struct offload_hash_session *s, struct offload_ctx *ctx,
			     const char *func, int dev, enum offload_hash_alg alg, const void *key,
			     size_t key_len)
{
	const char *name = offload_hash_name(alg);

	if (!name)
		return ofl_err(ctx, -EINVAL, "%s: unknown hash algorithm %d", func, (int)alg);
	if (ofl_hash_is_hmac(alg)) {
		if (!key && key_len)
			return ofl_err(ctx, -EINVAL, "%s: key is NULL with key_len %zu", func, key_len);
	} else if (key || key_len) {
		return ofl_err(ctx, -EINVAL, "%s: %s takes no key (use OFFLOAD_HASH_HMAC_%s for HMAC)",
			       func, name, name);
	}
	memset(s, 0, sizeof(*s));
	int r = pick_devices(ctx, func, dev, OFFLOAD_CAP_HASH, (int)alg, name, &s->eng, &s->cpu);
	if (r < 0)
		return r;
	s->ctx = ctx;
	s->alg = alg;
	s->digest_len = offload_hash_digest_size(alg);
	s->pinned = dev != OFFLOAD_DEV_AUTO;
	if (s->eng.dev && !s->pinned && s->cpu.dev)
		s->threshold = s->eng.dev->policy.threshold_bytes;
	else
		s->only = s->eng.dev ? &s->eng : &s->cpu;
	s->key_len = key_len;
	s->magic = HASH_MAGIC;
	return 0;
}

/* Allocations a heap session owns: key copy and the deciding buffer. */
static int hash_session_alloc(struct offload_hash_session *s, const char *func, const void *key)
{
	if (s->key_len) {
		s->key = malloc(s->key_len);
		if (!s->key)
			return ofl_err(s->ctx, -ENOMEM, "%s: out of memory", func);
		memcpy(s->key, key, s->key_len);
	}
	if (s->threshold > 0) {
		s->buf_cap = (size_t)OFL_MIN(s->threshold, (uint64_t)HASH_BUF_MAX);
		s->threshold = s->buf_cap;
		s->buf = malloc(s->buf_cap);
		if (!s->buf)
			return ofl_err(s->ctx, -ENOMEM, "%s: out of memory", func);
	}
	return 0;
}

static void slot_close_hash(struct slot *sl)
{
	if (sl->bs)
		sl->dev->backend->hash->close(sl->bs);
	sl->bs = NULL;
}

static void hash_session_fini(struct offload_hash_session *s)
{
	slot_close_hash(&s->eng);
	slot_close_hash(&s->cpu);
	if (s->key) {
		ofl_wipe(s->key, s->key_len);
		free(s->key);
	}
	if (s->buf) {
		ofl_wipe(s->buf, s->buf_cap);
		free(s->buf);
	}
	s->magic = 0;
}

static int slot_open_hash(struct offload_hash_session *s, const char *func, struct slot *sl)
{
	ofl_err_clear(s->ctx);
	int r = sl->dev->backend->hash->open(sl->dev, s->alg, s->key, s->key_len, &sl->bs);

	return r < 0 ? ofl_backend_err(s->ctx, func, sl->dev, r) : r;
}

static int hash_use(struct offload_hash_session *s, const char *func, struct slot *sl)
{
	if (OFL_UNLIKELY(!sl->bs)) {
		int r = slot_open_hash(s, func, sl);
		if (r < 0)
			return r;
	}
	s->cur = sl;
	return 0;
}

/* After a message: the next one starts undecided, unless there is no choice to make. */
static void hash_next(struct offload_hash_session *s)
{
	s->cur = s->only && s->only->bs ? s->only : NULL;
	s->buffered = 0;
}

static void hash_abort(struct offload_hash_session *s)
{
	if (s->cur && s->cur->bs)
		s->cur->dev->backend->hash->reset(s->cur->bs);
	hash_next(s);
}

static int hash_feed(struct offload_hash_session *s, const char *func, const void *data,
		     size_t len)
{
	if (len == 0)
		return 0;
	ofl_err_clear(s->ctx);
	int r = s->cur->dev->backend->hash->update(s->cur->bs, data, len);
	if (OFL_UNLIKELY(r < 0)) {
		r = ofl_backend_err(s->ctx, func, s->cur->dev, r);
		hash_abort(s);
	}
	return r;
}

/* Decide the device of the current message; flush what was buffered. */
static int hash_decide(struct offload_hash_session *s, const char *func, bool reached)
{
	struct slot *sl = (s->pinned || !s->cpu.dev || (reached && s->eng.dev)) ? &s->eng : &s->cpu;
	int r = hash_use(s, func, sl);

	if (r < 0) {
		s->buffered = 0;
		return r;
	}
	size_t n = s->buffered;
	s->buffered = 0;
	return hash_feed(s, func, s->buf, n);
}

static int hash_update(struct offload_hash_session *s, const char *func, const void *data,
		       size_t len)
{
	if (OFL_LIKELY(s->cur))
		return hash_feed(s, func, data, len);
	if (s->buf_cap) {
		if (len < s->buf_cap - s->buffered) {
			if (len)
				memcpy(s->buf + s->buffered, data, len);
			s->buffered += len;
			return 0;
		}
		int r = hash_decide(s, func, true);
		if (r < 0)
			return r;
		return hash_feed(s, func, data, len);
	}
	int r = hash_decide(s, func, false);
	if (r < 0)
		return r;
	return hash_feed(s, func, data, len);
}

static int hash_final(struct offload_hash_session *s, const char *func, void *digest,
		      struct offload_result *res)
{
	int r;

	if (!s->cur) {
		r = hash_decide(s, func, false);
		if (r < 0)
			return r;
	}
	const char *driver = "";
	uint32_t flags = 0;
	struct slot *sl = s->cur;
	ofl_err_clear(s->ctx);
	r = sl->dev->backend->hash->final(sl->bs, digest, &driver, &flags);
	hash_next(s);
	if (OFL_UNLIKELY(r < 0)) {
		r = ofl_backend_err(s->ctx, func, sl->dev, r);
		sl->dev->backend->hash->reset(sl->bs);
		ofl_wipe(digest, (size_t)s->digest_len);
		return r;
	}
	ofl_result_set(res, sl->dev, driver, flags);
	return s->digest_len;
}

static void hash_destroy(struct ofl_handle *h)
{
	struct offload_hash_session *s = ofl_container_of(h, struct offload_hash_session, h);

	ofl_ctx_handle_del(s->ctx, &s->h);
	hash_session_fini(s);
	free(s);
}

int offload_hash_open_dev(offload_ctx *ctx, int dev, enum offload_hash_alg alg, const void *key,
			  size_t key_len, offload_hash_session **out)
{
	static const char func[] = "offload_hash_open";
	int r = ofl_ctx_check(ctx, func);

	if (r < 0)
		return r;
	if (!out)
		return ofl_err(ctx, -EINVAL, "%s: out is NULL", func);
	*out = NULL;
	struct offload_hash_session *s = malloc(sizeof(*s));
	if (!s)
		return ofl_err(ctx, -ENOMEM, "%s: out of memory", func);
	r = hash_session_init(s, ctx, func, dev, alg, key, key_len);
	if (r == 0)
		r = hash_session_alloc(s, func, key);
	/* Bound to one device: set the backend up now (see the cipher open). */
	if (r == 0 && s->pinned && s->eng.dev)
		r = slot_open_hash(s, func, &s->eng);
	if (r < 0) {
		if (s->magic == HASH_MAGIC)
			hash_session_fini(s);
		free(s);
		return r;
	}
	ofl_ctx_handle_add(ctx, &s->h, "hash session", hash_destroy);
	*out = s;
	return 0;
}

int offload_hash_open(offload_ctx *ctx, enum offload_hash_alg alg, const void *key, size_t key_len,
		      offload_hash_session **out)
{
	return offload_hash_open_dev(ctx, OFFLOAD_DEV_AUTO, alg, key, key_len, out);
}

static int __attribute__((noinline, cold)) hash_check_err(const offload_hash_session *s,
							    const char *func)
{
	if (!s || s->magic != HASH_MAGIC)
		return ofl_err(NULL, -EINVAL, "%s: %s", func,
			       !s ? "session is NULL" : "not an open hash session");
	if (!s->ctx->open)
		return ofl_err(s->ctx, -EBADF, "%s: the context is closed", func);
	return ofl_inherited_err(s->ctx, func);
}

static inline int hash_check(offload_hash_session *s, const char *func)
{
	if (OFL_UNLIKELY(!s || s->magic != HASH_MAGIC || !s->ctx->open || ofl_ctx_inherited(s->ctx)))
		return hash_check_err(s, func);
	return 0;
}

int offload_hash_update(offload_hash_session *s, const void *data, size_t len)
{
	static const char func[] = "offload_hash_update";
	int r = hash_check(s, func);

	if (OFL_UNLIKELY(r < 0))
		return r;
	if (OFL_UNLIKELY(!data && len))
		return ofl_err(s->ctx, -EINVAL, "%s: data is NULL with len %zu", func, len);
	if (OFL_UNLIKELY(ofl_range_wraps(data, len)))
		return ofl_err(s->ctx, -EINVAL, "%s: length %zu wraps the address space", func, len);
	return hash_update(s, func, data, len);
}

/* need: the digest size of alg (from offload_hash_digest_size()). */
static int digest_check(struct offload_ctx *ctx, const char *func, enum offload_hash_alg alg,
			const void *digest, size_t digest_len, int need)
{
	if (OFL_UNLIKELY(!digest))
		return ofl_err(ctx, -EINVAL, "%s: digest is NULL", func);
	if (OFL_UNLIKELY(digest_len < (size_t)need))
		return ofl_err(ctx, -EINVAL, "%s: digest buffer of %zu bytes is too small for %s (%d bytes)",
			       func, digest_len, offload_hash_name(alg), need);
	return 0;
}

int offload_hash_final(offload_hash_session *s, void *digest, size_t digest_len,
		       struct offload_result *res)
{
	static const char func[] = "offload_hash_final";
	int r = hash_check(s, func);

	if (OFL_UNLIKELY(r < 0))
		return r;
	r = digest_check(s->ctx, func, s->alg, digest, digest_len, s->digest_len);
	if (OFL_UNLIKELY(r < 0))
		return r;
	return hash_final(s, func, digest, res);
}

int offload_hash_close(offload_hash_session *s)
{
	if (!s || s->magic != HASH_MAGIC)
		return ofl_err(NULL, -EINVAL, "offload_hash_close: %s",
			       !s ? "session is NULL" : "not an open hash session");
	if (ofl_ctx_inherited(s->ctx))
		return ofl_inherited_err(s->ctx, "offload_hash_close");
	hash_destroy(&s->h);
	return 0;
}

/*
 * The one-shot offload_hash() of a plain hash whose device (the cached
 * automatic choice) hashes without session state (ofl_hash_ops.oneshot):
 * no session is built and torn down. Returns the digest size or -errno, or
 * 1 when this path does not apply (the caller takes the general one, which
 * also words every error of the arguments).
 */
static int hash_oneshot(struct offload_ctx *ctx, enum offload_hash_alg alg, const void *data,
			size_t len, void *digest, size_t digest_len, struct offload_result *res)
{
	/* digest sizes of the plain hashes 1..6 (the hash table above) */
	static const uint8_t size[7] = { 0, 16, 20, 28, 32, 48, 64 };
	struct slot eng, cpu;
	unsigned a = (unsigned)alg;

	if (a < 1 || a > 6 || !digest || digest_len < size[a] || (!data && len) ||
	    ofl_range_wraps(data, len) || !pick_cached(ctx, OFFLOAD_CAP_HASH, (int)alg, &eng, &cpu))
		return 1;
	struct ofl_device *d = eng.dev && (!cpu.dev || len >= eng.dev->policy.threshold_bytes)
				       ? eng.dev
				       : cpu.dev;
	if (!d->backend->hash->oneshot)
		return 1;
	const char *driver = "";
	uint32_t flags = 0;
	ofl_err_clear(ctx);
	int r = d->backend->hash->oneshot(d, alg, data, len, digest, &driver, &flags);
	if (OFL_UNLIKELY(r < 0)) {
		ofl_wipe(digest, size[a]);
		return ofl_backend_err(ctx, "offload_hash", d, r);
	}
	ofl_result_set(res, d, driver, flags);
	return size[a];
}

int offload_hash(offload_ctx *ctx, enum offload_hash_alg alg, const void *key, size_t key_len,
		 const void *data, size_t len, void *digest, size_t digest_len,
		 struct offload_result *res)
{
	static const char func[] = "offload_hash";
	struct offload_hash_session s;
	int r = ofl_ctx_check(ctx, func);

	if (OFL_UNLIKELY(r < 0))
		return r;
	if (OFL_LIKELY(!key && !key_len)) {
		r = hash_oneshot(ctx, alg, data, len, digest, digest_len, res);
		if (r != 1)
			return r;
	}
	r = hash_session_init(&s, ctx, func, OFFLOAD_DEV_AUTO, alg, key, key_len);
	if (r < 0)
		return r;
	/* The one-shot knows the whole length: no buffering; the key is the caller's. */
	s.key = (uint8_t *)(uintptr_t)key;
	r = digest_check(ctx, func, alg, digest, digest_len, s.digest_len);
	if (r == 0 && !data && len)
		r = ofl_err(ctx, -EINVAL, "%s: data is NULL with len %zu", func, len);
	if (r == 0 && ofl_range_wraps(data, len))
		r = ofl_err(ctx, -EINVAL, "%s: length %zu wraps the address space", func, len);
	if (r == 0) {
		bool eng = s.eng.dev && (!s.cpu.dev || len >= s.threshold);
		r = hash_use(&s, func, eng ? &s.eng : &s.cpu);
	}
	if (r == 0 && s.cur->dev->backend->hash->digest) {
		/* the backend takes the whole message at once (Linux's digest/finup) */
		const struct ofl_hash_ops *ops = s.cur->dev->backend->hash;
		const char *driver = "";
		uint32_t flags = 0;
		ofl_err_clear(ctx);
		r = ops->digest(s.cur->bs, data, len, digest, &driver, &flags);
		if (r < 0) {
			r = ofl_backend_err(ctx, func, s.cur->dev, r);
			ops->reset(s.cur->bs);
			ofl_wipe(digest, (size_t)s.digest_len);
		} else {
			ofl_result_set(res, s.cur->dev, driver, flags);
			r = s.digest_len;
		}
	} else {
		if (r == 0)
			r = hash_feed(&s, func, data, len);
		if (r == 0)
			r = hash_final(&s, func, digest, res);
	}
	s.key = NULL;
	hash_session_fini(&s);
	return r;
}
