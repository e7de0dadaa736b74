/* SPDX-License-Identifier: MIT */
/*
 * AES-128-GCM known answers with IVs other than 96 bits (NIST SP 800-38D
 * 7.1: J0 = GHASH(IV || 0-pad || [len(IV)]64) instead of IV || 0^31 || 1).
 *
 * Source: NIST CAVP "GCM Test Vectors", file gcmEncryptExtIV128.rsp (the
 * 2013 gcmtestvectors.zip), typed in here entry by entry; the group header
 * of each is named in its comment. The two 1024-bit-IV entries were also
 * recomputed independently with Python's pyca/cryptography before being
 * typed in (it refuses IVs under 8 bytes, so the 8-bit ones rest on CAVP
 * alone).
 */
#ifndef TESTS_CRYPTO_GCM_IV_VECTORS_H
#define TESTS_CRYPTO_GCM_IV_VECTORS_H

#include <stddef.h>
#include <stdint.h>

struct gcm_iv_vec {
	const char *what, *key, *iv, *pt, *aad, *ct, *tag;
};

static const struct gcm_iv_vec gcm_iv_vecs[] = {
	{ "[Keylen = 128] [IVlen = 8] [PTlen = 128] [AADlen = 0] [Taglen = 128] Count = 0",
	  "15b2d414826453f9e1c7dd0b69d8d1eb", "b6", "8cfa255530c6fbc19d51bd4aeb39c91b", "",
	  "4822cb98bd5f5d921ee19285c9032375", "8a40670ebac98cf4e9cc1bf8f803167d" },
	{ "[Keylen = 128] [IVlen = 8] [PTlen = 128] [AADlen = 160] [Taglen = 64] Count = 0",
	  "90e625f18f04122c3e0657a2dfe0e1b8", "d9", "e2d381298318a2135ca6d01a24d0dfab",
	  "a7f88b0e07672401f86f515404fe5af3e53edcca", "87cbfc064d5584ac1c2b385adc02fde5",
	  "f0260a089fdaaa12" },
	{ "[Keylen = 128] [IVlen = 1024] [PTlen = 128] [AADlen = 0] [Taglen = 128] Count = 0",
	  "71eebc49c8fb773b2224eaff3ad68714",
	  "07e961e67784011f72faafd95b0eb64089c8de15ad685ec57e63d56e679d3e20"
	  "2b18b75fcbbec3185ffc41653bc2ac4ae6ae8be8c85636f353a9d19a86100d0b"
	  "d035cc6bdefcab4318ac7b1a08b819427ad8f6abc782466c6ebd4d6a0dd76e78"
	  "389b0a2a66506bb85f038ffc1da220c24f3817c7b2d02c5e8fc5e7e3be5074bc",
	  "705da82292143d2c949dc4ba014f6396", "", "032363cf0828a03553478bec0f51f372",
	  "c681b2c568feaa21900bc44b86aeb946" },
	{ "[Keylen = 128] [IVlen = 1024] [PTlen = 128] [AADlen = 128] [Taglen = 120] Count = 0",
	  "ec20b2dd5a4d6f8d2aa49086a7ef9080",
	  "d15fd1d8ba90275826c6b085d9d2a3856e2359e41f2ab3033b6c4a61e4121772"
	  "33afbdd0897d113652e72e37d711627eb43636fd7d7513f213f458d89597e330"
	  "e487adde840c245ce21f3e45d14075c86ee6f70a7dde573dd320786d1ff28ea0"
	  "26c07bfe904dfb904a990123f79a0a32febcc57d2fe529ccd2a393856757065c",
	  "7ca608d6dac77682def3e129499d1575", "3abfac97f5e569ed960638002ae32738",
	  "f7c5704950a6b03a77db660769e1204b", "a0d98b0c38599c1bb16354f61b0f00" },
};

/* Hex string into out (room for strlen(hex) / 2 bytes); the byte count. */
static inline size_t gcm_iv_unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v = 0;
		for (int i = 0; i < 2; i++) {
			char c = hex[i];
			v = v * 16u + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
		}
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* A vector in bytes. */
struct gcm_iv_bin {
	uint8_t key[16], iv[128], pt[16], aad[20], ct[16], tag[16];
	size_t key_len, iv_len, pt_len, aad_len, ct_len, tag_len;
};

static inline void gcm_iv_load(const struct gcm_iv_vec *v, struct gcm_iv_bin *b)
{
	b->key_len = gcm_iv_unhex(v->key, b->key);
	b->iv_len = gcm_iv_unhex(v->iv, b->iv);
	b->pt_len = gcm_iv_unhex(v->pt, b->pt);
	b->aad_len = gcm_iv_unhex(v->aad, b->aad);
	b->ct_len = gcm_iv_unhex(v->ct, b->ct);
	b->tag_len = gcm_iv_unhex(v->tag, b->tag);
}

#endif /* TESTS_CRYPTO_GCM_IV_VECTORS_H */
