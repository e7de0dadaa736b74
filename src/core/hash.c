/* SPDX-License-Identifier: MIT */
/*
 * Hashes and HMAC: algorithm facts, streaming sessions and the one-shot call.
 * The devices of a session are chosen by ofl_crypto_pick() (core/crypto.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crypto.h"
#include "core/internal.h"

#define HASH_MAGIC 0x6f666c68u   /* "oflh" */
#define HASH_BUF_MAX (64u * 1024u)

/* ------------------------------------------------------------ algorithm facts */

OFFLOAD_API const char *offload_hash_name(enum offload_hash_alg alg)
{
	const struct ofl_hash_info *h = ofl_hash_info(alg);

	return h ? h->name : NULL;
}

OFFLOAD_API int offload_hash_digest_size(enum offload_hash_alg alg)
{
	const struct ofl_hash_info *h = ofl_hash_info(alg);

	if (h)
		return h->digest;
	return ofl_err(NULL, -EINVAL, "offload_hash_digest_size: unknown hash algorithm %d", (int)alg);
}

/* ------------------------------------------------------------ sessions */

struct offload_hash_session {
	struct ofl_handle h;
	struct offload_ctx *ctx;
	uint32_t magic;
	enum offload_hash_alg alg;
	int digest_len;
	bool pinned;
	struct ofl_crypto_slot eng, cpu;
	struct ofl_crypto_slot *only;    /* the one device every message goes to (no choice), or NULL */
	struct ofl_crypto_slot *cur;     /* device of the current message, NULL = not chosen yet */
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
		if (ofl_range_wraps(key, key_len))
			return ofl_err(ctx, -EINVAL, "%s: key of %zu bytes wraps the address space", func,
				       key_len);
	} else if (key || key_len) {
		return ofl_err(ctx, -EINVAL, "%s: %s takes no key (use OFFLOAD_HASH_HMAC_%s for HMAC)",
			       func, name, name);
	}
	memset(s, 0, sizeof(*s));
	int r = ofl_crypto_pick(ctx, func, dev, OFFLOAD_CAP_HASH, (int)alg, name, &s->eng, &s->cpu);
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

static void slot_close_hash(struct ofl_crypto_slot *sl)
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

static int slot_open_hash(struct offload_hash_session *s, const char *func, struct ofl_crypto_slot *sl)
{
	uint64_t mark = ofl_err_mark();
	int r = sl->dev->backend->hash->open(sl->dev, s->alg, s->key, s->key_len, &sl->bs);

	sl->hops = sl->dev->backend->hash;
	return r < 0 ? ofl_backend_err(s->ctx, func, sl->dev, r, mark) : r;
}

static int hash_use(struct offload_hash_session *s, const char *func, struct ofl_crypto_slot *sl)
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
		s->cur->hops->reset(s->cur->bs);
	hash_next(s);
}

static OFL_HOT_INLINE int hash_feed(struct offload_hash_session *s, const char *func, const void *data,
		     size_t len)
{
	if (len == 0)
		return 0;
	uint64_t mark = ofl_err_mark();
	struct ofl_crypto_slot *c = s->cur;
	int r = c->hops->update(c->bs, data, len);
	if (OFL_UNLIKELY(r < 0)) {
		r = ofl_backend_err(s->ctx, func, s->cur->dev, r, mark);
		hash_abort(s);
	}
	return r;
}

/* Decide the device of the current message; flush what was buffered. */
static int hash_decide(struct offload_hash_session *s, const char *func, bool reached)
{
	struct ofl_crypto_slot *sl = (s->pinned || !s->cpu.dev || (reached && s->eng.dev)) ? &s->eng : &s->cpu;
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

static OFL_HOT_INLINE int hash_final(struct offload_hash_session *s, const char *func, void *digest,
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
	struct ofl_crypto_slot *sl = s->cur;
	uint64_t mark = ofl_err_mark();
	r = sl->hops->final(sl->bs, digest, &driver, &flags);
	hash_next(s);
	if (OFL_UNLIKELY(r < 0)) {
		r = ofl_backend_err(s->ctx, func, sl->dev, r, mark);
		sl->hops->reset(sl->bs);
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

OFFLOAD_API int offload_hash_open_dev(offload_ctx *ctx, int dev, enum offload_hash_alg alg, const void *key,
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

OFFLOAD_API int offload_hash_open(offload_ctx *ctx, enum offload_hash_alg alg, const void *key, size_t key_len,
		      offload_hash_session **out)
{
	return offload_hash_open_dev(ctx, OFFLOAD_DEV_AUTO, alg, key, key_len, out);
}

static inline int hash_check(offload_hash_session *s, const char *func)
{
	bool valid = s && s->magic == HASH_MAGIC;

	if (OFL_UNLIKELY(!valid || !s->ctx->open || ofl_ctx_inherited(s->ctx)))
		return ofl_crypto_session_err(s, valid, valid ? s->ctx : NULL, func, "hash");
	return 0;
}

OFFLOAD_API int offload_hash_update(offload_hash_session *s, const void *data, size_t len)
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

OFFLOAD_API int offload_hash_final(offload_hash_session *s, void *digest, size_t digest_len,
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

OFFLOAD_API int offload_hash_close(offload_hash_session *s)
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
	/* digest sizes of the plain hashes 1..6 (hash_table above) */
	static const uint8_t size[7] = { 0, 16, 20, 28, 32, 48, 64 };
	struct ofl_crypto_slot eng, cpu;
	unsigned a = (unsigned)alg;

	if (a < 1 || a > 6 || !digest || digest_len < size[a] || (!data && len) ||
	    ofl_range_wraps(data, len) ||
	    !ofl_crypto_pick_cached(ctx, OFFLOAD_CAP_HASH, (int)alg, &eng, &cpu))
		return 1;
	struct ofl_device *d = eng.dev && (!cpu.dev || len >= eng.dev->policy.threshold_bytes)
				       ? eng.dev
				       : cpu.dev;
	if (!d->backend->hash->oneshot)
		return 1;
	const char *driver = "";
	uint32_t flags = 0;
	uint64_t mark = ofl_err_mark();
	int r = d->backend->hash->oneshot(d, alg, data, len, digest, &driver, &flags);
	if (OFL_UNLIKELY(r < 0)) {
		ofl_wipe(digest, size[a]);
		return ofl_backend_err(ctx, "offload_hash", d, r, mark);
	}
	ofl_result_set(res, d, driver, flags);
	return size[a];
}

OFFLOAD_API int offload_hash(offload_ctx *ctx, enum offload_hash_alg alg, const void *key, size_t key_len,
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
		uint64_t mark = ofl_err_mark();
		r = ops->digest(s.cur->bs, data, len, digest, &driver, &flags);
		if (r < 0) {
			r = ofl_backend_err(ctx, func, s.cur->dev, r, mark);
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
