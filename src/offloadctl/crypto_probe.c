/* SPDX-License-Identifier: MIT */
/*
 * Which implementation serves each crypto algorithm on one device, found the
 * way an application would: open a session bound to the device, run one
 * small operation and read offload_result.driver (for AF_ALG the kernel's
 * cra_driver_name). Used by `list` (and `doctor`) for devices served by a
 * kernel interface, where the answer depends on the modules loaded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
	enum offload_cipher_alg alg;
	size_t key_len;
} probe_ciphers[] = {
	{ OFFLOAD_CIPHER_AES_ECB, 16 }, { OFFLOAD_CIPHER_AES_CBC, 16 },
	{ OFFLOAD_CIPHER_AES_CTR, 16 }, { OFFLOAD_CIPHER_AES_GCM, 16 },
	{ OFFLOAD_CIPHER_DES_ECB, 8 },  { OFFLOAD_CIPHER_DES3_CBC, 24 },
};

static const enum offload_hash_alg probe_hashes[] = {
	OFFLOAD_HASH_MD5,	 OFFLOAD_HASH_SHA1,	   OFFLOAD_HASH_SHA224,
	OFFLOAD_HASH_SHA256,	 OFFLOAD_HASH_SHA384,	   OFFLOAD_HASH_SHA512,
	OFFLOAD_HASH_HMAC_MD5,	 OFFLOAD_HASH_HMAC_SHA1,   OFFLOAD_HASH_HMAC_SHA224,
	OFFLOAD_HASH_HMAC_SHA256, OFFLOAD_HASH_HMAC_SHA384, OFFLOAD_HASH_HMAC_SHA512,
};

static void probe_done(offload_ctx *ctx, struct cli_alg_probe *p, int r,
		       const struct offload_result *res)
{
	p->err = r < 0 ? r : 0;
	if (r < 0) {
		snprintf(p->error, sizeof(p->error), "%s", offload_last_error(ctx));
		return;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", res->driver ? res->driver : "?");
	p->flags = res->flags;
}

static void probe_cipher(offload_ctx *ctx, int dev, enum offload_cipher_alg alg, size_t kl,
			 struct cli_alg_probe *p)
{
	/* Distinct key bytes: no DES weak key, no 3DES key with equal parts. */
	static const uint8_t key[32] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
					 0x13, 0x57, 0x9b, 0xdf, 0x02, 0x46, 0x8a, 0xce };
	uint8_t iv[16] = { 0 }, in[16] = { 0 }, out[16], tag[16];
	struct offload_result res = { 0 };
	offload_cipher_session *s = NULL;

	p->alg = offload_cipher_name(alg, kl);
	int r = offload_cipher_session_open_dev(ctx, dev, alg, key, kl, &s);
	if (r == 0) {
		bool gcm = alg == OFFLOAD_CIPHER_AES_GCM;
		size_t ivl = alg == OFFLOAD_CIPHER_AES_ECB || alg == OFFLOAD_CIPHER_DES_ECB ? 0
			     : gcm ? 12 : alg == OFFLOAD_CIPHER_DES3_CBC ? 8 : 16;
		struct offload_cipher_op op = {
			.dir = OFFLOAD_ENCRYPT, .iv = ivl ? iv : NULL, .iv_len = ivl, .in = in,
			.out = out, .len = sizeof(in), .tag = gcm ? tag : NULL,
			.tag_len = gcm ? sizeof(tag) : 0, .result = &res,
		};
		r = offload_cipher_session_run(s, &op, sizeof(op));
		offload_cipher_session_close(s);
	}
	probe_done(ctx, p, r, &res);
}

static void probe_hash(offload_ctx *ctx, int dev, enum offload_hash_alg alg,
		       struct cli_alg_probe *p)
{
	static const uint8_t key[16] = { 0x0b };
	uint8_t digest[OFFLOAD_HASH_MAX_DIGEST];
	struct offload_result res = { 0 };
	offload_hash_session *s = NULL;
	bool hmac = (alg & 0x100) != 0;

	p->alg = offload_hash_name(alg);
	int r = offload_hash_open_dev(ctx, dev, alg, hmac ? key : NULL, hmac ? sizeof(key) : 0, &s);
	if (r == 0) {
		r = offload_hash_update(s, "abc", 3);
		if (r == 0)
			r = offload_hash_final(s, digest, sizeof(digest), &res);
		offload_hash_close(s);
	}
	probe_done(ctx, p, r, &res);
}

int cli_crypto_probe(offload_ctx *ctx, int dev, struct cli_alg_probe *out, int max)
{
	struct offload_dev_info d;
	int n = 0;

	if (offload_dev_get_info(ctx, dev, &d, sizeof(d)) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(probe_ciphers) / sizeof(probe_ciphers[0]) && n < max; i++) {
		if (!(d.caps & OFFLOAD_CAP_CIPHER))
			break;
		memset(&out[n], 0, sizeof(out[n]));
		probe_cipher(ctx, dev, probe_ciphers[i].alg, probe_ciphers[i].key_len, &out[n++]);
	}
	for (size_t i = 0; i < sizeof(probe_hashes) / sizeof(probe_hashes[0]) && n < max; i++) {
		if (!(d.caps & OFFLOAD_CAP_HASH))
			break;
		memset(&out[n], 0, sizeof(out[n]));
		probe_hash(ctx, dev, probe_hashes[i], &out[n++]);
	}
	return n;
}

bool cli_af_alg_deprecated(const char *release)
{
	char *end;
	long major = strtol(release ? release : "", &end, 10);

	if (end == release || *end != '.')
		return false;
	const char *m = end + 1;
	long minor = strtol(m, &end, 10);
	if (end == m)
		return false;
	return major > 7 || (major == 7 && minor >= 2);
}

int cli_probe_evidence(const struct cli_alg_probe *p, int n, char *buf, size_t len, int *hw,
		       int *unavailable)
{
	size_t used = 0;

	*hw = 0;
	*unavailable = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (p[i].err)
			(*unavailable)++;
		else if (p[i].flags & OFFLOAD_RES_HARDWARE)
			(*hw)++;
		if (used >= len)
			continue;
		int k = snprintf(buf + used, len - used, "%s%s: %s", i ? "; " : "", p[i].alg,
				 p[i].err ? "unavailable" : p[i].driver);
		used += k > 0 ? (size_t)k : 0;
		if (!p[i].err && used < len)
			used += (size_t)snprintf(buf + used, len - used, " (%s)",
						 (p[i].flags & OFFLOAD_RES_HARDWARE) ? "hardware"
										     : "software");
	}
	return n - *unavailable;
}
