/* SPDX-License-Identifier: MIT */
/*
 * AF_ALG hashes and HMAC through libkcapi. The kernel hashes each sendmsg as
 * it arrives (MSG_MORE keeps the hash open) and a read returns the digest
 * and starts a new message, which matches init/update/final directly.
 * Updates are passed in pieces of at most 64 KiB (libkcapi switches to
 * vmsplice at 32 KiB and vmsplice of 256 KiB fails, libkcapi issue #90).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcapi.h>

#include "kcapi_int.h"

#define KC_MD_PIECE (64u * 1024u)

struct kc_hash {
	struct ofl_device *dev;
	struct kc_state *st;
	struct kc_alg *a;
	struct kcapi_handle *h;
	const char *driver;  /* what the kernel bound (ofl_kc_resolve) */
	bool hw;
	uint32_t digest_len;
	uint8_t *bounce;     /* KC_MD_PIECE bytes, for data in a dma-buf (kc_hash_update) */
};

static int kc_hash_query(struct ofl_device *dev, enum offload_hash_alg alg, bool *hw, char *why,
			 size_t why_len)
{
	struct kc_alg *a = ofl_kc_hash_alg(dev->bstate, alg);

	if (!a)
		return snprintf(why, why_len, "unknown algorithm"), -ENOTSUP;
	return ofl_kc_query(a, hw, why, why_len);
}

static void kc_hash_close(void *bs)
{
	struct kc_hash *h = bs;

	if (h->h)
		kcapi_md_destroy(h->h);
	if (h->bounce) {
		ofl_wipe(h->bounce, KC_MD_PIECE);
		free(h->bounce);
	}
	free(h);
}

static int kc_hash_open(struct ofl_device *dev, enum offload_hash_alg alg, const uint8_t *key,
			size_t key_len, void **bs)
{
	static const uint8_t nokey[1];
	struct kc_hash *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return ofl_err(dev->ctx, -ENOMEM, "kcapi backend: out of memory");
	h->dev = dev;
	h->st = dev->bstate;
	h->a = ofl_kc_hash_alg(h->st, alg);
	h->digest_len = (uint32_t)ofl_hash_info(alg)->digest;
	r = kcapi_md_init(&h->h, ofl_kc_bind_name(h->st, h->a), 0);
	/* An HMAC tfm needs a key even when it is empty (else ENOKEY). */
	if (r == 0 && ofl_hash_is_hmac(alg))
		r = kcapi_md_setkey(h->h, key_len ? key : nokey, (uint32_t)key_len);
	if (r < 0) {
		r = ofl_kc_err(dev, r, h->h ? "setkey" : "init", h->a);
		kc_hash_close(h);
		return r;
	}
	h->driver = ofl_kc_resolve(h->st, h->a, &h->hw);
	*bs = h;
	return 0;
}

static int kc_hash_update(void *bs, const void *data, size_t len)
{
	struct kc_hash *h = bs;
	const uint8_t *p = data;
	/* data in a dma-buf goes through a bounce buffer: the kernel cannot pin its pages */
	bool bounce = ofl_ctx_in_dmabuf(h->dev->ctx, data, len);

	if (bounce && !h->bounce && !(h->bounce = malloc(KC_MD_PIECE)))
		return ofl_err(h->dev->ctx, -ENOMEM, "kcapi backend: out of memory");
	while (len) {
		size_t n = OFL_MIN(len, (size_t)KC_MD_PIECE);
		if (bounce)
			memcpy(h->bounce, p, n);
		ssize_t r = kcapi_md_update(h->h, bounce ? h->bounce : p, n);
		if (r < 0)
			return ofl_kc_err(h->dev, (int)r, "hash update", h->a);
		p += n;
		len -= n;
	}
	return 0;
}

static int kc_hash_final(void *bs, uint8_t *digest, const char **driver, uint32_t *flags)
{
	struct kc_hash *h = bs;
	ssize_t r = kcapi_md_final(h->h, digest, h->digest_len);

	if (r < 0)
		return ofl_kc_err(h->dev, (int)r, "hash final", h->a);
	if ((uint32_t)r != h->digest_len)
		return ofl_err(h->dev->ctx, -EIO, "kcapi backend: %s returned a %zd-byte digest, not %u",
			       h->a->cra_name, r, h->digest_len);
	*driver = h->driver;
	*flags = OFFLOAD_RES_KERNEL | (h->hw ? OFFLOAD_RES_HARDWARE : 0);
	return 0;
}

static void kc_hash_reset(void *bs)
{
	struct kc_hash *h = bs;
	uint8_t sink[OFFLOAD_HASH_MAX_DIGEST];

	/* Reading the digest ends the kernel's message; discard it. */
	(void)kcapi_md_final(h->h, sink, h->digest_len);
	ofl_wipe(sink, sizeof(sink));
}

const struct ofl_hash_ops ofl_kcapi_hash_ops = {
	.query = kc_hash_query,
	.open = kc_hash_open,
	.update = kc_hash_update,
	.final = kc_hash_final,
	.reset = kc_hash_reset,
	.close = kc_hash_close,
};
