/* SPDX-License-Identifier: MIT */
/*
 * What src/core's crypto files share (crypto.c: the choice of a session's
 * devices; cipher.c, hash.c: sessions and one-shot calls). The backend side
 * of crypto is src/driver/crypto.h.
 */
#ifndef OFL_CORE_CRYPTO_H
#define OFL_CORE_CRYPTO_H

#include <stdbool.h>
#include <stdint.h>

#include <offload/crypto.h>

#include "driver/crypto.h"

struct ofl_device;
struct offload_ctx;

/*
 * sizeof(struct offload_cipher_op) in liboffload 0.1, the oldest layout
 * offload_cipher() and offload_cipher_session_run() accept (fields are only
 * ever added at the end).
 */
#define OFL_CIPHER_OP_SIZE_0_1 OFL_SIZE_UPTO(struct offload_cipher_op, result)

/* One device a session may use, with its lazily created backend state. */
struct ofl_crypto_slot {
	struct ofl_device *dev;
	void *bs;
	/* hash sessions: dev->backend->hash once bs is open (one load on the per-message path, not three) */
	const struct ofl_hash_ops *hops;
};

/*
 * Choose the devices of a new cipher or hash session (core/crypto.c): kind
 * is OFFLOAD_CAP_CIPHER or OFFLOAD_CAP_HASH, alg the algorithm, alg_name its
 * name for messages. Fills eng (may stay NULL: no engine) and cpu (NULL when
 * the CPU cannot do it); dev >= 0 pins the session to that device (eng).
 * 0, or -ENODEV / -ENOTSUP with the reasons of every device tried.
 */
int ofl_crypto_pick(struct offload_ctx *ctx, const char *func, int dev, uint32_t kind, int alg,
		    const char *alg_name, struct ofl_crypto_slot *eng, struct ofl_crypto_slot *cpu);
/*
 * The automatic choice ofl_crypto_pick() found for kind and alg on this
 * context before (it keeps one per algorithm while the context is open):
 * true with eng and cpu's devices set, false when it has not found one yet.
 */
bool ofl_crypto_pick_cached(struct offload_ctx *ctx, uint32_t kind, int alg,
			    struct ofl_crypto_slot *eng, struct ofl_crypto_slot *cpu);
/*
 * The error of a call on a cipher or hash session s (kind "cipher" or
 * "hash") that cannot run: -EINVAL when s is NULL or not an open session
 * (is_session false), else -EBADF for its closed or inherited context ctx.
 * The sessions' fast paths test all that in one branch and call this,
 * out of line, only when one of them holds.
 */
int ofl_crypto_session_err(const void *s, bool is_session, const struct offload_ctx *ctx,
			   const char *func, const char *kind);

#endif /* OFL_CORE_CRYPTO_H */
