/* SPDX-License-Identifier: MIT */
/*
 * Algorithm facts the core checks arguments against and backends build
 * requests from: key, IV and block sizes of the ciphers (FIPS 197 AES,
 * SP 800-38A/D modes, FIPS 46-3 DES/3DES), names and digest sizes of the
 * hashes (RFC 1321 MD5, FIPS 180-4 SHA, RFC 2104 HMAC).
 */
#include "driver/crypto.h"
#include "util/util.h"

static const struct ofl_cipher_info cipher_table[] = {
	{ OFFLOAD_CIPHER_AES_ECB, "AES-ECB", { 16, 24, 32 }, 0, false, 16, false },
	{ OFFLOAD_CIPHER_AES_CBC, "AES-CBC", { 16, 24, 32 }, 16, false, 16, false },
	{ OFFLOAD_CIPHER_AES_CTR, "AES-CTR", { 16, 24, 32 }, 16, false, 1, false },
	/* SP 800-38D 5.2.1.1: 1 <= len(IV) <= 2^64 - 1 bits; 96 bits is the usual (7.1) */
	{ OFFLOAD_CIPHER_AES_GCM, "AES-GCM", { 16, 24, 32 }, 12, true, 1, true },
	{ OFFLOAD_CIPHER_DES_ECB, "DES-ECB", { 8, 0, 0 }, 0, false, 8, false },
	{ OFFLOAD_CIPHER_DES3_CBC, "DES-EDE3-CBC", { 24, 0, 0 }, 8, false, 8, false },
};

const struct ofl_cipher_info *ofl_cipher_info(enum offload_cipher_alg alg)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(cipher_table); i++)
		if (cipher_table[i].alg == alg)
			return &cipher_table[i];
	return NULL;
}

static const struct ofl_hash_info hash_table[] = {
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

const struct ofl_hash_info *ofl_hash_info(enum offload_hash_alg alg)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(hash_table); i++)
		if (hash_table[i].alg == alg)
			return &hash_table[i];
	return NULL;
}

enum offload_hash_alg ofl_hash_base(enum offload_hash_alg alg)
{
	return (enum offload_hash_alg)((unsigned)alg & 0xffu);
}
