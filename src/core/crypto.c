/* SPDX-License-Identifier: MIT */
/*
 * What ciphers and hashes share: the choice of a session's devices.
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
 * Sessions themselves live in core/cipher.c and core/hash.c.
 *
 * Backend state is created lazily per device; after the first operation on
 * a device nothing on the per-operation path allocates.
 */
#include <stdio.h>
#include <string.h>

#include "core/crypto.h"
#include "core/internal.h"

static bool backend_named(const struct offload_ctx *ctx, const struct ofl_device *d)
{
	return ctx->allow[0] != '\0' && ofl_ctx_backend_allowed(ctx, d->backend->name);
}

/* Ask d's backend whether it can run alg of kind (OFFLOAD_CAP_CIPHER or _HASH). */
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
 * devices, which do not change while it is open: ofl_crypto_pick() finds it
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

bool ofl_crypto_pick_cached(struct offload_ctx *ctx, uint32_t kind, int alg,
			    struct ofl_crypto_slot *eng, struct ofl_crypto_slot *cpu)
{
	unsigned i = pick_index(kind, alg);
	uint32_t pk = i ? atomic_load_explicit(&ctx->crypto_pick[i], memory_order_relaxed) : 0;

	if (!pk)
		return false;
	unsigned e = (pk >> 8) & 0xffu, c = pk & 0xffu;
	eng->dev = e ? ctx->drv.devs[e - 1] : NULL;
	cpu->dev = c ? ctx->drv.devs[c - 1] : NULL;
	return true;
}

static void pick_store(struct offload_ctx *ctx, uint32_t kind, int alg,
		       const struct ofl_crypto_slot *eng, const struct ofl_crypto_slot *cpu)
{
	unsigned i = pick_index(kind, alg);
	uint32_t pk = 1u << 16 | (uint32_t)(eng->dev ? eng->dev->index + 1 : 0) << 8 |
		      (uint32_t)(cpu->dev ? cpu->dev->index + 1 : 0);

	if (i)
		atomic_store_explicit(&ctx->crypto_pick[i], pk, memory_order_relaxed);
}

int ofl_crypto_pick(struct offload_ctx *ctx, const char *func, int dev, uint32_t kind, int alg,
			const char *alg_name, struct ofl_crypto_slot *eng, struct ofl_crypto_slot *cpu)
{
	char why[OFL_REASON_LEN], all[OFL_ERRMSG_LEN - 128];
	size_t off = 0;
	bool hw;
	int r;

	memset(eng, 0, sizeof(*eng));
	memset(cpu, 0, sizeof(*cpu));
	if (dev == OFFLOAD_DEV_AUTO && ofl_crypto_pick_cached(ctx, kind, alg, eng, cpu))
		return 0;
	if (dev != OFFLOAD_DEV_AUTO) {
		struct ofl_device *d = ofl_ctx_device(ctx, dev);
		if (!d)
			return ofl_err(ctx, -ENODEV, "%s: no device %d (the context has %d)", func, dev,
				       ctx->drv.ndev);
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
		for (int i = 0; i < ctx->drv.ndev && !eng->dev; i++) {
			struct ofl_device *d = ctx->drv.devs[i];
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
		struct ofl_device *d = ctx->drv.devs[ctx->cpu_dev];
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

int __attribute__((noinline, cold)) ofl_crypto_session_err(const void *s, bool is_session,
							   const struct offload_ctx *ctx,
							   const char *func, const char *kind)
{
	if (!s || !is_session)
		return !s ? ofl_err(NULL, -EINVAL, "%s: session is NULL", func)
			  : ofl_err(NULL, -EINVAL, "%s: not an open %s session", func, kind);
	if (!ctx->open)
		return ofl_err(ctx, -EBADF, "%s: the context is closed", func);
	return ofl_inherited_err(ctx, func);
}
