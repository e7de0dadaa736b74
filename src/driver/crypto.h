/* SPDX-License-Identifier: MIT */
/*
 * The crypto part of the backend interface (backend.h forward-declares these
 * tables), and the algorithm facts both sides use (src/driver/crypto.c).
 * src/core/crypto.c validates every argument, picks the device, owns
 * the key copy and the sessions; a backend only runs operations that are
 * already known to be well-formed.
 *
 * Per-backend session state ("bs") is created lazily by the core the first
 * time an operation goes to that device, so a session that never leaves the
 * CPU never opens a kernel socket. A backend's run/update/final must not
 * allocate. Every backend call that fails records its reason with ofl_err()
 * on dev->ctx before returning the negative errno.
 *
 * Driver strings returned by run/final must stay valid until the context is
 * closed (they end up in struct offload_result).
 */
#ifndef OFL_DRIVER_CRYPTO_H
#define OFL_DRIVER_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <offload/crypto.h>

struct ofl_device;

/* Static facts about a cipher: sizes the core checks before any backend runs. */
struct ofl_cipher_info {
	enum offload_cipher_alg alg;
	const char *name;        /* "AES-CBC" */
	uint8_t key_lens[3];     /* accepted key lengths, 0-terminated */
	uint8_t iv_len;          /* 0 = no IV; AES-GCM: the usual (96-bit) length */
	bool iv_any;             /* also any other IV length from 1 byte (AES-GCM) */
	uint8_t block;           /* input must be a multiple of this (1 = any) */
	bool aead;
};

/* NULL for an unknown algorithm. */
const struct ofl_cipher_info *ofl_cipher_info(enum offload_cipher_alg alg);

/* Static facts about a hash: its name (offload_hash_name()) and digest size in bytes. */
struct ofl_hash_info {
	enum offload_hash_alg alg;
	const char *name;        /* "SHA256", "HMAC-SHA256" */
	int digest;
};
/* NULL for an unknown algorithm. */
const struct ofl_hash_info *ofl_hash_info(enum offload_hash_alg alg);
/* The underlying digest of an HMAC algorithm (or alg itself). */
enum offload_hash_alg ofl_hash_base(enum offload_hash_alg alg);
static inline bool ofl_hash_is_hmac(enum offload_hash_alg alg)
{
	return ((unsigned)alg & 0x100u) != 0;
}

struct ofl_cipher_ops {
	/*
	 * Can dev run alg? 0 if yes, -ENOTSUP (why filled) if not. *hw is set
	 * when the implementation is an off-CPU engine; automatic selection only
	 * prefers such implementations (or backends the allow-list names).
	 */
	int (*query)(struct ofl_device *dev, enum offload_cipher_alg alg, bool *hw, char *why,
		     size_t why_len);
	/* Largest aad_len + len + tag_len of one operation (SIZE_MAX: no limit). */
	size_t (*max_len)(struct ofl_device *dev, enum offload_cipher_alg alg);
	/*
	 * Optional: can dev take an IV of iv_len bytes for alg, a length other
	 * than ofl_cipher_info.iv_len that the core already accepts (iv_any:
	 * AES-GCM, 1 byte up)? 0 if yes, -ENOTSUP (why filled) if not. NULL:
	 * the usual length only (an engine or kernel driver that builds the
	 * GCM counter block as IV || 1 and cannot GHASH the IV into it).
	 */
	int (*iv_ok)(struct ofl_device *dev, enum offload_cipher_alg alg, size_t iv_len, char *why,
		     size_t why_len);
	/* Session state for alg and a key of a valid length. May allocate. */
	int (*open)(struct ofl_device *dev, enum offload_cipher_alg alg, const uint8_t *key,
		    size_t key_len, void **bs);
	/*
	 * One validated operation (op->alg/key are the session's, not op's).
	 * Non-AEAD ops have len > 0. Sets *driver and *flags (OFFLOAD_RES_*).
	 * On failure the core zeroes the output; -EBADMSG for a tag mismatch.
	 */
	int (*run)(void *bs, const struct offload_cipher_op *op, const char **driver,
		   uint32_t *flags);
	/* Wipe key material and free. */
	void (*close)(void *bs);
};

struct ofl_hash_ops {
	/* As ofl_cipher_ops.query. */
	int (*query)(struct ofl_device *dev, enum offload_hash_alg alg, bool *hw, char *why,
		     size_t why_len);
	/* State for alg (key/key_len: HMAC key, any length; NULL/0 for plain hashes). */
	int (*open)(struct ofl_device *dev, enum offload_hash_alg alg, const uint8_t *key,
		    size_t key_len, void **bs);
	/* Add len > 0 bytes to the current message. */
	int (*update)(void *bs, const void *data, size_t len);
	/*
	 * Finish the message into digest (room for the digest size), start a
	 * new one with the same key; sets *driver and *flags.
	 */
	int (*final)(void *bs, uint8_t *digest, const char **driver, uint32_t *flags);
	/*
	 * Optional (NULL: update + final): hash `len` bytes (0 allowed) as one
	 * whole message into digest, on a state with no message in progress,
	 * and start a new one; sets *driver and *flags. Lets an engine take a
	 * one-shot offload_hash() in one request, as Linux's digest/finup does.
	 */
	int (*digest)(void *bs, const void *data, size_t len, uint8_t *digest, const char **driver,
		      uint32_t *flags);
	/*
	 * Optional: hash `len` bytes (0 allowed) as one whole message with a
	 * plain hash alg (no key) into digest, without session state: the
	 * one-shot offload_hash() on this device then builds no session. Sets
	 * *driver and *flags. NULL: the one-shot opens state (open/digest/close).
	 */
	int (*oneshot)(struct ofl_device *dev, enum offload_hash_alg alg, const void *data,
		       size_t len, uint8_t *digest, const char **driver, uint32_t *flags);
	/* Discard the current message (after an error). */
	void (*reset)(void *bs);
	/* Wipe key material and free. */
	void (*close)(void *bs);
};

#endif /* OFL_DRIVER_CRYPTO_H */
