/* SPDX-License-Identifier: MIT */
/**
 * @file offload/crypto.h
 * @brief Symmetric ciphers, AEAD, hashes and HMAC.
 *
 * One API on every backend: the CPU (OpenSSL libcrypto), the kernel (AF_ALG
 * through libkcapi) and the direct EIP97 driver. Each operation goes to the
 * device the policy picks (hardware when it is usable and the length is at
 * or above its threshold, else the CPU); the result says which backend and
 * which implementation (for AF_ALG the kernel's cra_driver_name) ran.
 *
 * Algorithms: AES-128/192/256 (by key length) in ECB, CBC, CTR and GCM;
 * DES-ECB; 3DES (EDE, 24-byte key) in CBC. Hashes MD5, SHA-1, SHA-224,
 * SHA-256, SHA-384, SHA-512 and HMAC of each.
 *
 * Zero-length input: ECB/CBC/DES/3DES/CTR return 0 and write nothing; GCM
 * authenticates the AAD alone and produces/verifies a tag; a hash of no data
 * is the digest of the empty message.
 */
#ifndef OFFLOAD_CRYPTO_H
#define OFFLOAD_CRYPTO_H

#include <offload/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @addtogroup crypto
 * @{
 */

/** Cipher algorithm and mode. The AES key size follows from the key length. */
enum offload_cipher_alg {
	/** AES in ECB mode; key 16/24/32 bytes; no IV; length a multiple of 16. */
	OFFLOAD_CIPHER_AES_ECB = 1,
	/** AES in CBC mode (NIST SP 800-38A); IV 16 bytes; length a multiple of 16. */
	OFFLOAD_CIPHER_AES_CBC = 2,
	/**
	 * AES in CTR mode (SP 800-38A): the IV is the 16-byte initial counter
	 * block, incremented as one 128-bit big-endian integer; any length.
	 */
	OFFLOAD_CIPHER_AES_CTR = 3,
	/**
	 * AES-GCM (SP 800-38D): any length; AAD optional; tag of 4, 8 or
	 * 12..16 bytes (the lengths SP 800-38D §5.2.1.2 permits). IV of any
	 * length from 1 byte (§5.2.1.1): 12 bytes (96 bits) is the usual one
	 * and the only one engines and kernel drivers take (their counter
	 * block is IV || 1); any other is hashed into the counter block with
	 * GHASH (§7.1), which only the CPU backend does (OpenSSL, 1..128
	 * bytes), so such an operation runs on the CPU.
	 */
	OFFLOAD_CIPHER_AES_GCM = 4,
	/** DES in ECB mode (FIPS 46-3); key 8 bytes (parity bits ignored); length a multiple of 8. */
	OFFLOAD_CIPHER_DES_ECB = 5,
	/** Triple DES EDE in CBC mode; key 24 bytes; IV 8 bytes; length a multiple of 8. */
	OFFLOAD_CIPHER_DES3_CBC = 6,
};

/** Direction of a cipher operation. */
enum offload_cipher_dir {
	/** Encrypt (GCM: produce the tag). */
	OFFLOAD_ENCRYPT = 0,
	/** Decrypt (GCM: verify the tag; -EBADMSG and no plaintext on mismatch). */
	OFFLOAD_DECRYPT = 1,
};

/**
 * @brief Name of a cipher with a key length, as OpenSSL spells it.
 * @param alg     Algorithm and mode.
 * @param key_len Key length in bytes (selects AES-128/192/256).
 * @return e.g. "AES-128-CBC", "DES-ECB", "DES-EDE3-CBC" (a static string), or
 *   NULL for an unknown algorithm or a key length the algorithm does not take.
 *
 * Thread-safety: safe from any thread.
 */
const char *offload_cipher_name(enum offload_cipher_alg alg, size_t key_len);

/** Largest GCM tag in bytes. */
#define OFFLOAD_GCM_TAG_MAX 16

/**
 * One cipher operation.
 *
 * For offload_cipher() every field is read. For offload_cipher_session_run()
 * @c alg, @c key and @c key_len must be 0/NULL (the session's are used).
 * @c in and @c out may be the same buffer (in-place); partially overlapping
 * buffers are rejected.
 *
 * The struct can grow at its end: both calls take `sizeof op` as the caller
 * compiled it. Fields an older caller's struct lacks read as 0 (their
 * default); bytes of a newer caller's struct this library does not know
 * must be 0 (a field it cannot honour is refused, never ignored).
 * Zero-initialise it (`struct offload_cipher_op op = { .alg = ... }`).
 */
struct offload_cipher_op {
	/** Algorithm and mode. */
	enum offload_cipher_alg alg;
	/** Direction. */
	enum offload_cipher_dir dir;
	/** Key bytes (one-shot only). */
	const void *key;
	/** Key length in bytes: AES 16/24/32, DES 8, 3DES 24. */
	size_t key_len;
	/**
	 * IV / initial counter block. Must be NULL for ECB (with iv_len 0), as
	 * aad and tag must be NULL for modes without them: a mode that takes
	 * no IV refuses one rather than ignore it.
	 */
	const void *iv;
	/**
	 * IV length in bytes: CBC/CTR 16, 3DES-CBC 8, ECB 0; GCM 12 (usual)
	 * or any other from 1 byte (CPU backend only, at most 128 bytes; see
	 * ::OFFLOAD_CIPHER_AES_GCM).
	 */
	size_t iv_len;
	/** GCM additional authenticated data, or NULL. */
	const void *aad;
	/** Length of @c aad in bytes (GCM only; must be 0 for other modes). */
	size_t aad_len;
	/** Input: plaintext (encrypt) or ciphertext (decrypt), @c len bytes. */
	const void *in;
	/** Output, @c len bytes; may equal @c in. */
	void *out;
	/** Data length in bytes (the tag is not included). */
	size_t len;
	/** GCM tag: written on encrypt, read and verified on decrypt. NULL otherwise. */
	void *tag;
	/** GCM tag length in bytes: 4, 8, 12, 13, 14, 15 or 16. 0 for other modes. */
	size_t tag_len;
	/** Receives who ran the operation; may be NULL. */
	struct offload_result *result;
};

/**
 * @brief Run one cipher operation with a key given in the operation.
 *
 * @param ctx     An open context.
 * @param op      The operation; see struct offload_cipher_op.
 * @param op_size sizeof(*op) as compiled by the caller, in bytes.
 * @return 0 on success, or
 *   - -EINVAL: NULL argument, @p op_size smaller than the 0.1 layout,
 *     above 4096, or larger with non-zero bytes this library does not know, unknown
 *     algorithm, wrong key/IV/tag length (AES-GCM: an IV of 0 bytes, or
 *     above 2^64 - 1 bits, SP 800-38D 5.2.1.1, or one whose range wraps
 *     the address space),
 *     length not a multiple of the block size for ECB/CBC/DES/3DES, an IV
 *     given for ECB, AAD or tag given for a non-AEAD mode, partially
 *     overlapping buffers;
 *   - -EBADMSG: GCM decrypt and the tag does not match (@c out is zeroed);
 *   - -EBADF: the context is closed;
 *   - -ENOTSUP: no usable backend implements the algorithm (for AF_ALG: the
 *     kernel lacks it; the message names the algorithm); or an AES-GCM IV
 *     other than 12 bytes where no allowed device can take it: a session
 *     bound to a device that takes 12 bytes only (EIP97 as Linux drives
 *     it, AF_ALG gcm(aes)), a context whose allow-list excludes the CPU, or
 *     an IV above 128 bytes (OpenSSL's limit on the CPU; nothing is
 *     written, the message names the device and the limit);
 *   - -EINVAL also for AES-GCM data above 2^36 - 32 bytes or AAD of 2^61
 *     bytes or more (NIST SP 800-38D 5.2.1.1), whatever the device;
 *   - -E2BIG: the operation is larger than the selected device can take in
 *     one piece (AES-GCM: AF_ALG 64 KiB, EIP97 128 KiB less one byte,
 *     including AAD and tag) and no CPU fallback is allowed;
 *   - -ENOMEM: out of memory (@c out is zeroed);
 *   - -EIO / -ETIMEDOUT: the engine failed (@c out is zeroed).
 *
 * Any length up to these limits works on the CPU: OpenSSL's int-sized
 * calls are fed in pieces. Messages start with the function's name.
 *
 * Device selection (per operation, by @c len + @c aad_len): the first usable
 * non-CPU device that implements the algorithm in hardware (or whose backend
 * the context's allow-list names explicitly, e.g. "kcapi"), when the size is
 * at least that device's threshold_bytes; otherwise the CPU. DT devices are
 * tried before pseudo-devices such as "af_alg". An AES-GCM IV other than 12
 * bytes goes to the CPU whatever the size, as no engine takes one.
 *
 * Thread-safety: safe to call concurrently on one context.
 * @since 0.2 with @p op_size; 0.1 binaries reach the 0.1 form, without it.
 */
int offload_cipher(offload_ctx *ctx, const struct offload_cipher_op *op, size_t op_size);

/** A cipher session: a key set once for many operations. */
typedef struct offload_cipher_session offload_cipher_session;

/**
 * @brief Open a cipher session (key expansion and backend setup done once).
 *
 * @param ctx     An open context.
 * @param alg     Algorithm and mode.
 * @param key     Key bytes; copied, so the caller may wipe its copy.
 * @param key_len Key length in bytes (as in struct offload_cipher_op).
 * @param out     Receives the session.
 * @return 0, or -EINVAL (NULL argument, unknown algorithm, bad key length),
 *   -EBADF, -ENOTSUP, -ENOMEM.
 *
 * Thread-safety: safe to call concurrently on one context. A session belongs
 * to one thread at a time; open one session per thread for parallel use.
 */
int offload_cipher_session_open(offload_ctx *ctx, enum offload_cipher_alg alg, const void *key,
				size_t key_len, offload_cipher_session **out);

/**
 * @brief Open a cipher session bound to one device.
 *
 * Like offload_cipher_session_open(), but every operation runs on device
 * @p dev whatever its size (no threshold, no CPU fallback), which is how a
 * benchmark or a self-test reaches a particular backend, e.g. the "af_alg"
 * device whose kernel driver is software.
 *
 * @param ctx     An open context.
 * @param dev     Device index (offload_dev_find()), or ::OFFLOAD_DEV_AUTO
 *                for the policy's per-operation choice.
 * @param alg     Algorithm and mode.
 * @param key     Key bytes; copied.
 * @param key_len Key length in bytes.
 * @param out     Receives the session.
 * @return 0, or -EINVAL (NULL argument, unknown algorithm, bad key length),
 *   -EBADF, -ENODEV (no such device, or it is not usable), -ENOTSUP (the
 *   device does not implement @p alg; the message says why), -ENOMEM.
 *   The IV is known only per operation: an AES-GCM IV the device cannot
 *   take is refused by offload_cipher_session_run() (-ENOTSUP).
 *
 * Thread-safety: as offload_cipher_session_open().
 */
int offload_cipher_session_open_dev(offload_ctx *ctx, int dev, enum offload_cipher_alg alg,
				    const void *key, size_t key_len, offload_cipher_session **out);

/**
 * @brief Run one operation with the session's key.
 *
 * @param s       The session.
 * @param op      The operation; @c alg, @c key and @c key_len must be 0/NULL.
 * @param op_size sizeof(*op) as compiled by the caller, in bytes.
 * @return As offload_cipher(), and -EINVAL if @p s is NULL or not an open
 *   session or @c alg/@c key/@c key_len are set; -EBADF also after fork()
 *   in the child. A session bound to a device (offload_cipher_session_open_dev())
 *   never falls back to the CPU: an AES-GCM IV other than 12 bytes on a
 *   device that takes 12 only (EIP97, AF_ALG) is -ENOTSUP; the session stays
 *   usable.
 *
 * Thread-safety: the session's owning thread only.
 * @since 0.2 with @p op_size; 0.1 binaries reach the 0.1 form, without it.
 */
int offload_cipher_session_run(offload_cipher_session *s, const struct offload_cipher_op *op,
			       size_t op_size);

/**
 * @brief Close a session: wipe the key material (explicit_bzero) in the
 *        library and in every backend's copy, and free the session.
 *
 * @param s The session; invalid afterwards.
 * @return 0, or -EINVAL (with a message) if s is NULL or not an open cipher
 *   session; nothing is freed then.
 *
 * Thread-safety: the session's owning thread only.
 */
int offload_cipher_session_close(offload_cipher_session *s);

/** Hash and HMAC algorithms. */
enum offload_hash_alg {
	OFFLOAD_HASH_MD5 = 1,            /**< MD5 (RFC 1321), 16-byte digest. */
	OFFLOAD_HASH_SHA1 = 2,           /**< SHA-1 (FIPS 180-4), 20 bytes. */
	OFFLOAD_HASH_SHA224 = 3,         /**< SHA-224, 28 bytes. */
	OFFLOAD_HASH_SHA256 = 4,         /**< SHA-256, 32 bytes. */
	OFFLOAD_HASH_SHA384 = 5,         /**< SHA-384, 48 bytes. */
	OFFLOAD_HASH_SHA512 = 6,         /**< SHA-512, 64 bytes. */
	OFFLOAD_HASH_HMAC_MD5 = 0x101,   /**< HMAC-MD5 (RFC 2104). */
	OFFLOAD_HASH_HMAC_SHA1 = 0x102,  /**< HMAC-SHA-1 (RFC 2104/2202). */
	OFFLOAD_HASH_HMAC_SHA224 = 0x103,/**< HMAC-SHA-224 (RFC 4231). */
	OFFLOAD_HASH_HMAC_SHA256 = 0x104,/**< HMAC-SHA-256 (RFC 4231). */
	OFFLOAD_HASH_HMAC_SHA384 = 0x105,/**< HMAC-SHA-384 (RFC 4231). */
	OFFLOAD_HASH_HMAC_SHA512 = 0x106,/**< HMAC-SHA-512 (RFC 4231). */
};

/**
 * @brief Name of a hash algorithm.
 * @param alg The algorithm.
 * @return e.g. "SHA256", "HMAC-SHA256" (a static string), or NULL if unknown.
 *
 * Thread-safety: safe from any thread.
 */
const char *offload_hash_name(enum offload_hash_alg alg);

/** Largest digest in bytes (SHA-512). */
#define OFFLOAD_HASH_MAX_DIGEST 64

/**
 * @brief Digest size of an algorithm.
 * @param alg The algorithm.
 * @return The digest length in bytes, or -EINVAL for an unknown algorithm
 *   (with a message for offload_last_error(NULL)).
 *
 * Thread-safety: safe from any thread.
 */
int offload_hash_digest_size(enum offload_hash_alg alg);

/**
 * @brief One-shot hash or HMAC.
 *
 * @param ctx        An open context.
 * @param alg        Algorithm; an OFFLOAD_HASH_HMAC_* value needs a key.
 * @param key        HMAC key (any length, including 0); must be NULL for plain hashes.
 * @param key_len    Key length in bytes.
 * @param data       Input, @p len bytes (may be NULL only if @p len is 0).
 * @param len        Input length in bytes.
 * @param digest     Output buffer.
 * @param digest_len Capacity of @p digest; at least the digest size.
 * @param res        Receives who ran the operation; may be NULL.
 * @return The digest length in bytes (> 0), or -EINVAL (NULL argument, unknown
 *   algorithm, key given for a plain hash, @p digest_len too small), -EBADF,
 *   -ENOTSUP, -ENOMEM, -E2BIG (longer than the selected engine can count,
 *   e.g. EIP97: 2^32 blocks of 64 bytes), -EIO, -ETIMEDOUT. Messages start
 *   with the function's name.
 *
 * Thread-safety: safe to call concurrently on one context.
 */
int offload_hash(offload_ctx *ctx, enum offload_hash_alg alg, const void *key, size_t key_len,
		 const void *data, size_t len, void *digest, size_t digest_len,
		 struct offload_result *res);

/** A streaming hash/HMAC session. */
typedef struct offload_hash_session offload_hash_session;

/**
 * @brief Open a streaming hash/HMAC session (init).
 *
 * @param ctx     An open context.
 * @param alg     Algorithm.
 * @param key     HMAC key (copied), NULL for plain hashes.
 * @param key_len Key length in bytes.
 * @param out     Receives the session.
 * @return 0, or -EINVAL, -EBADF, -ENOTSUP, -ENOMEM.
 *
 * Device selection is per message, by its total length, with the rule of
 * offload_cipher(): the session buffers the first threshold_bytes of a
 * message (at most 64 KiB) until it knows whether the message reaches the
 * engine's threshold; shorter messages are hashed on the CPU.
 *
 * Thread-safety: safe to call concurrently on one context; a session belongs
 * to one thread at a time.
 */
int offload_hash_open(offload_ctx *ctx, enum offload_hash_alg alg, const void *key, size_t key_len,
		      offload_hash_session **out);

/**
 * @brief Open a streaming hash/HMAC session bound to one device.
 *
 * Like offload_hash_open(), but every message is hashed on device @p dev
 * whatever its length.
 *
 * @param ctx     An open context.
 * @param dev     Device index, or ::OFFLOAD_DEV_AUTO.
 * @param alg     Algorithm.
 * @param key     HMAC key (copied), NULL for plain hashes.
 * @param key_len Key length in bytes.
 * @param out     Receives the session.
 * @return 0, or -EINVAL, -EBADF, -ENODEV, -ENOTSUP, -ENOMEM.
 *
 * Thread-safety: as offload_hash_open().
 */
int offload_hash_open_dev(offload_ctx *ctx, int dev, enum offload_hash_alg alg, const void *key,
			  size_t key_len, offload_hash_session **out);

/**
 * @brief Add data to a streaming hash.
 *
 * @param s    The session.
 * @param data Input bytes (may be NULL only if @p len is 0).
 * @param len  Length in bytes.
 * @return 0, or -EINVAL, -ENOMEM (the device's state is created on first
 *   use), -E2BIG (as offload_hash()), -EIO, -ETIMEDOUT. After an engine error
 *   the message so far is discarded (the next update starts a new message).
 *
 * Thread-safety: the session's owning thread only.
 */
int offload_hash_update(offload_hash_session *s, const void *data, size_t len);

/**
 * @brief Finish a streaming hash and reset the session for a new message
 *        (same algorithm and HMAC key).
 *
 * @param s          The session.
 * @param digest     Output buffer.
 * @param digest_len Capacity of @p digest; at least the digest size.
 * @param res        Receives who ran the operation; may be NULL.
 * @return The digest length (> 0), or -EINVAL (NULL argument, buffer too small;
 *   the session is left unchanged), -ENOMEM, -E2BIG, -EIO, -ETIMEDOUT.
 *
 * Thread-safety: the session's owning thread only.
 */
int offload_hash_final(offload_hash_session *s, void *digest, size_t digest_len,
		       struct offload_result *res);

/**
 * @brief Close a streaming session, wiping the key and state.
 *
 * @param s The session; invalid afterwards.
 * @return 0, or -EINVAL if s is NULL.
 *
 * Thread-safety: the session's owning thread only.
 */
int offload_hash_close(offload_hash_session *s);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_CRYPTO_H */
