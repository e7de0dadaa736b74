/* SPDX-License-Identifier: MIT */
/*
 * Ciphers: algorithm facts, argument checks, sessions and the one-shot call.
 * The devices of a session are chosen by ofl_crypto_pick() (core/crypto.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crypto.h"
#include "core/internal.h"

#define CIPHER_MAGIC 0x6f666c73u /* "ofls" */
/* AES-GCM input limits in bytes (NIST SP 800-38D 5.2.1.1): P <= 2^39 - 256 bits, A < 2^64 bits. */
#define GCM_MAX_DATA ((UINT64_C(1) << 36) - 32u)
#define GCM_MAX_AAD ((UINT64_C(1) << 61) - 1u)
/* ... and 1 <= len(IV) <= 2^64 - 1 bits: at most 2^61 - 1 whole bytes. */
#define GCM_MAX_IV ((UINT64_C(1) << 61) - 1u)

/* ------------------------------------------------------------ algorithm facts */

OFFLOAD_API const char *offload_cipher_name(enum offload_cipher_alg alg, size_t key_len)
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

/* ------------------------------------------------------------ sessions */

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
	struct ofl_crypto_slot eng, cpu;
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
	if (ofl_range_wraps(key, key_len))
		return ofl_err(ctx, -EINVAL, "%s: key of %zu bytes wraps the address space", func, key_len);
	memset(s, 0, sizeof(*s));
	int r = ofl_crypto_pick(ctx, func, dev, OFFLOAD_CAP_CIPHER, (int)alg,
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

static void slot_close_cipher(struct ofl_crypto_slot *sl)
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
	if (ci->iv_any) {
		if (OFL_UNLIKELY(op->iv_len == 0))
			return ofl_err(ctx, -EINVAL,
				       "%s: %s needs an IV of at least 1 byte (%u is usual; NIST SP "
				       "800-38D 5.2.1.1), got iv_len 0",
				       func, ci->name, ci->iv_len);
		if (OFL_UNLIKELY((uint64_t)op->iv_len > GCM_MAX_IV))
			return ofl_err(ctx, -EINVAL,
				       "%s: %s IV of %zu bytes is above the limit of 2^64 - 1 bits "
				       "(NIST SP 800-38D 5.2.1.1)",
				       func, ci->name, op->iv_len);
	} else if (OFL_UNLIKELY(op->iv_len != ci->iv_len)) {
		return ci->iv_len ? ofl_err(ctx, -EINVAL, "%s: %s needs a %u-byte IV, got %zu bytes",
					    func, ci->name, ci->iv_len, op->iv_len)
				  : ofl_err(ctx, -EINVAL, "%s: %s takes no IV, got iv_len %zu", func,
					    ci->name, op->iv_len);
	}
	if (OFL_UNLIKELY(ci->iv_len && !op->iv))
		return ofl_err(ctx, -EINVAL, "%s: iv is NULL", func);
	if (OFL_UNLIKELY(ofl_range_wraps(op->iv, op->iv_len)))
		return ofl_err(ctx, -EINVAL, "%s: %s IV of %zu bytes wraps the address space", func,
			       ci->name, op->iv_len);
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

static int slot_open_cipher(struct offload_cipher_session *s, const char *func, struct ofl_crypto_slot *sl)
{
	uint64_t mark = ofl_err_mark();
	int r = sl->dev->backend->cipher->open(sl->dev, s->alg, s->key, s->key_len, &sl->bs);

	return r < 0 ? ofl_backend_err(s->ctx, func, sl->dev, r, mark) : r;
}

/*
 * Can device d take an IV of iv_len bytes? The algorithm's usual length
 * always; another one (AES-GCM: SP 800-38D 7.1 then derives the counter
 * block J0 with GHASH) only where the backend says so (ofl_cipher_ops.iv_ok).
 */
static int dev_iv_ok(const struct ofl_cipher_info *ci, struct ofl_device *d, size_t iv_len,
		     char *why, size_t why_len)
{
	const struct ofl_cipher_ops *ops = d->backend->cipher;

	if (OFL_LIKELY(iv_len == ci->iv_len))
		return 0;
	if (ops->iv_ok)
		return ops->iv_ok(d, ci->alg, iv_len, why, why_len);
	snprintf(why, why_len,
		 "takes only the %u-byte %s IV (its counter block is IV || 1; a %zu-byte IV must "
		 "be hashed into it with GHASH, NIST SP 800-38D 7.1, which the cpu backend does)",
		 ci->iv_len, ci->name, iv_len);
	return -ENOTSUP;
}

static int cipher_run(struct offload_cipher_session *s, const char *func,
		      const struct offload_cipher_op *op)
{
	struct offload_ctx *ctx = s->ctx;
	int r = check_op(ctx, func, s->info, op);

	if (OFL_UNLIKELY(r < 0))
		return r;
	struct ofl_crypto_slot *sl = &s->cpu;
	char why[OFL_REASON_LEN]; /* written only on the odd-IV paths: not zeroed per call */
	bool odd_iv = op->iv_len != s->info->iv_len;
	if (OFL_UNLIKELY(!s->cpu_only)) {
		/* saturating: the two lengths may overlap the same memory */
		size_t size = op->len + op->aad_len < op->len ? SIZE_MAX : op->len + op->aad_len;
		if (s->pinned || !s->cpu.dev ||
		    (size >= s->threshold && size <= s->eng_max - op->tag_len))
			sl = &s->eng;
		/* an IV the engine cannot take goes to the CPU, unless bound to the device */
		if (OFL_UNLIKELY(odd_iv) && sl == &s->eng && !s->pinned && s->cpu.dev &&
		    dev_iv_ok(s->info, sl->dev, op->iv_len, why, sizeof(why)) < 0)
			sl = &s->cpu;
		if (OFL_UNLIKELY(sl == &s->eng && size > s->eng_max - op->tag_len))
			return ofl_err(ctx, -E2BIG,
				       "%s: %s of %zu bytes (+%zu AAD) is larger than device %s takes in "
				       "one operation (%zu bytes including AAD and tag)",
				       func, s->info->name, op->len, op->aad_len, sl->dev->name,
				       s->eng_max);
	}
	if (OFL_UNLIKELY(odd_iv)) {
		why[0] = '\0';
		r = dev_iv_ok(s->info, sl->dev, op->iv_len, why, sizeof(why));
		if (r < 0)
			return ofl_err(ctx, -ENOTSUP, "%s: device %s %s", func, sl->dev->name, why);
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
	uint64_t mark = ofl_err_mark();
	r = sl->dev->backend->cipher->run(sl->bs, op, &driver, &flags);
	if (OFL_UNLIKELY(r < 0)) {
		if (op->len)
			ofl_wipe(op->out, op->len);
		if (r == -EBADMSG)
			return ofl_err(ctx, r, "%s: AES-GCM tag mismatch on %s: the data or tag was "
					       "altered or the key/IV/AAD differ; no plaintext released",
				       func, sl->dev->name);
		return ofl_backend_err(ctx, func, sl->dev, r, mark);
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

OFFLOAD_API int offload_cipher_session_open_dev(offload_ctx *ctx, int dev, enum offload_cipher_alg alg,
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

OFFLOAD_API int offload_cipher_session_open(offload_ctx *ctx, enum offload_cipher_alg alg, const void *key,
				size_t key_len, offload_cipher_session **out)
{
	return offload_cipher_session_open_dev(ctx, OFFLOAD_DEV_AUTO, alg, key, key_len, out);
}

/*
 * The caller's op in this library's layout. op_size is sizeof(*op) as the
 * caller compiled it: equal (the usual case) uses op as it is; an older,
 * shorter layout (at least 0.1's) is copied into *tmp with the newer fields
 * zeroed; a newer, longer one is accepted when every byte this library does
 * not know is 0 (a field it cannot honour is refused, never ignored: the
 * copy_struct_from_user() rule of Linux). NULL with *err set on failure.
 */
static const struct offload_cipher_op *op_in(struct offload_ctx *ctx, const char *func,
					     const struct offload_cipher_op *op, size_t op_size,
					     struct offload_cipher_op *tmp, int *err)
{
	if (OFL_LIKELY(op_size == sizeof(*op)))
		return op;
	if (op_size < OFL_CIPHER_OP_SIZE_0_1) {
		*err = ofl_err(ctx, -EINVAL, "%s: op_size %zu is smaller than the oldest layout of "
					     "struct offload_cipher_op (%zu bytes, liboffload 0.1)",
			       func, op_size, (size_t)OFL_CIPHER_OP_SIZE_0_1);
		return NULL;
	}
	if (op_size > OFL_STRUCT_SIZE_MAX) {
		*err = ofl_err_struct_size(ctx, func, "op_size", "offload_cipher_op", "op", op_size);
		return NULL;
	}
	if (op_size < sizeof(*op)) {
		memset(tmp, 0, sizeof(*tmp));
		memcpy(tmp, op, op_size);
		return tmp;
	}
	const unsigned char *tail = (const unsigned char *)op;
	for (size_t i = sizeof(*op); i < op_size; i++)
		if (tail[i]) {
			*err = ofl_err(ctx, -EINVAL,
				       "%s: op sets byte %zu of %zu, beyond the %zu bytes of struct "
				       "offload_cipher_op this liboffload (%s) knows",
				       func, i, op_size, sizeof(*op), OFFLOAD_VERSION_STRING);
			return NULL;
		}
	return op;
}

OFFLOAD_API int offload_cipher_session_run(offload_cipher_session *s, const struct offload_cipher_op *op,
					   size_t op_size)
{
	static const char func[] = "offload_cipher_session_run";
	struct offload_cipher_op tmp;
	int err = 0;

	bool valid = s && s->magic == CIPHER_MAGIC;
	if (OFL_UNLIKELY(!valid || !s->ctx->open || ofl_ctx_inherited(s->ctx)))
		return ofl_crypto_session_err(s, valid, valid ? s->ctx : NULL, func, "cipher");
	if (OFL_UNLIKELY(!op))
		return ofl_err(s->ctx, -EINVAL, "%s: op is NULL", func);
	op = op_in(s->ctx, func, op, op_size, &tmp, &err);
	if (OFL_UNLIKELY(!op))
		return err;
	if (OFL_UNLIKELY(op->alg || op->key || op->key_len))
		return ofl_err(s->ctx, -EINVAL,
			       "%s: op->alg, op->key and op->key_len must be 0/NULL in a session (the "
			       "session's key and algorithm are used)",
			       func);
	return cipher_run(s, func, op);
}

OFFLOAD_API int offload_cipher_session_close(offload_cipher_session *s)
{
	if (!s || s->magic != CIPHER_MAGIC)
		return ofl_err(NULL, -EINVAL, "offload_cipher_session_close: %s",
			       !s ? "session is NULL" : "not an open cipher session");
	if (ofl_ctx_inherited(s->ctx))
		return ofl_inherited_err(s->ctx, "offload_cipher_session_close");
	cipher_destroy(&s->h);
	return 0;
}

OFFLOAD_API int offload_cipher(offload_ctx *ctx, const struct offload_cipher_op *op, size_t op_size)
{
	static const char func[] = "offload_cipher";
	struct offload_cipher_session s;
	struct offload_cipher_op tmp;
	int r = ofl_ctx_check(ctx, func);

	if (r < 0)
		return r;
	if (!op)
		return ofl_err(ctx, -EINVAL, "%s: op is NULL", func);
	op = op_in(ctx, func, op, op_size, &tmp, &r);
	if (!op)
		return r;
	r = cipher_session_init(&s, ctx, func, OFFLOAD_DEV_AUTO, op->alg, op->key, op->key_len);
	if (r < 0)
		return r;
	r = cipher_run(&s, func, op);
	cipher_session_fini(&s);
	return r;
}
