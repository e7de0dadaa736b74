/* SPDX-License-Identifier: MIT */
/* The benchmarks' OpenSSL reference: see evp_ref.h for what it calls and why. */
#ifdef OFFLOAD_HAVE_OPENSSL
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/provider.h>

#include "evp_ref.h"

static pthread_once_t providers_once = PTHREAD_ONCE_INIT;
/* Held for the process's life: dropped pointers are what LeakSanitizer reports as leaks. */
static OSSL_PROVIDER *providers[2];

/* DES is in OpenSSL 3's legacy provider; loading one makes the default explicit too. */
static void providers_load(void)
{
	providers[0] = OSSL_PROVIDER_load(NULL, "default");
	providers[1] = OSSL_PROVIDER_load(NULL, "legacy");
}

/* The block modes pad unless told not to; the stream-like ones have no padding. */
static bool mode_pads(const EVP_CIPHER *c)
{
	int m = EVP_CIPHER_get_mode(c);

	return m == EVP_CIPH_ECB_MODE || m == EVP_CIPH_CBC_MODE;
}

/* EVP_CipherInit_ex2() with the padding parameter off where the mode pads. */
static int init2(struct cli_evp *e, EVP_CIPHER_CTX *x, const EVP_CIPHER *c, const uint8_t *key,
		 const uint8_t *iv, int enc)
{
	unsigned int pad = 0;
	OSSL_PARAM p[2] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &pad), OSSL_PARAM_END };

	return EVP_CipherInit_ex2(x, c, key, iv, enc, e->pads ? p : NULL);
}

int cli_evp_open(struct cli_evp *e, const char *name, bool hash, bool hmac, const uint8_t *key,
		 size_t key_len, bool oneshot)
{
	memset(e, 0, sizeof(*e));
	e->hash = hash;
	e->hmac = hmac;
	e->oneshot = oneshot;
	if (key_len > sizeof(e->key))
		return -EINVAL;
	memcpy(e->key, key, key_len);
	e->key_len = key_len;
	snprintf(e->md_name, sizeof(e->md_name), "%s", name);
	if (hmac) {
		OSSL_PARAM p[2] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, e->md_name, 0),
				    OSSL_PARAM_END };
		e->mac_alg = EVP_MAC_fetch(NULL, "HMAC", NULL);
		if (!e->mac_alg)
			return -ENOTSUP;
		if (oneshot)
			return 0;
		e->mac = EVP_MAC_CTX_new(e->mac_alg);
		return e->mac && EVP_MAC_init(e->mac, e->key, e->key_len, p) ? 0 : -ENOTSUP;
	}
	if (hash) {
		e->md = EVP_MD_fetch(NULL, name, NULL);
		if (!e->md)
			return -ENOTSUP;
		if (oneshot)
			return 0;
		e->mx = EVP_MD_CTX_new();
		return e->mx ? 0 : -ENOMEM;
	}
	pthread_once(&providers_once, providers_load);
	e->ec = EVP_CIPHER_fetch(NULL, name, NULL);
	if (!e->ec)
		return -ENOTSUP;
	e->gcm = EVP_CIPHER_get_mode(e->ec) == EVP_CIPH_GCM_MODE;
	e->pads = mode_pads(e->ec);
	if (oneshot)
		return 0;
	for (int d = 0; d < 2; d++) {
		e->ex[d] = EVP_CIPHER_CTX_new();
		if (!e->ex[d] || !init2(e, e->ex[d], e->ec, e->key, NULL, d))
			return -ENOTSUP;
	}
	return 0;
}

/* IV, tag, data, final, tag: the operation on a context that holds the key. */
static int cipher_op(struct cli_evp *e, EVP_CIPHER_CTX *x, bool enc, const uint8_t *iv,
		     const uint8_t *in, uint8_t *out, size_t n, uint8_t *tag, bool set_iv)
{
	int l;

	if (set_iv && !EVP_CipherInit_ex(x, NULL, NULL, NULL, iv, enc))
		return -EIO;
	if (e->gcm && !enc && !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag))
		return -EIO;
	/* n <= INT_MAX (evp_ref.h): the int length is exact */
	if (!EVP_CipherUpdate(x, out, &l, in, (int)n) || !EVP_CipherFinal_ex(x, out + l, &l))
		return e->gcm && !enc ? -EBADMSG : -EIO;
	if (e->gcm && enc && !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag))
		return -EIO;
	return 0;
}

static int hmac_oneshot(struct cli_evp *e, const uint8_t *in, uint8_t *out, size_t n)
{
	OSSL_PARAM p[2] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, e->md_name, 0),
			    OSSL_PARAM_END };
	EVP_MAC_CTX *m = EVP_MAC_CTX_new(e->mac_alg);
	size_t dl;
	int ok = m && EVP_MAC_init(m, e->key, e->key_len, p) && EVP_MAC_update(m, in, n) &&
		 EVP_MAC_final(m, out, &dl, 64);

	EVP_MAC_CTX_free(m);
	return ok ? 0 : -EIO;
}

int cli_evp_op(struct cli_evp *e, bool enc, const uint8_t *iv, const uint8_t *in, uint8_t *out,
	       size_t n, uint8_t *tag)
{
	size_t dl;

	if (e->hmac)
		return e->oneshot ? hmac_oneshot(e, in, out, n)
		       : EVP_MAC_init(e->mac, NULL, 0, NULL) && EVP_MAC_update(e->mac, in, n) &&
				       EVP_MAC_final(e->mac, out, &dl, 64)
			       ? 0
			       : -EIO;
	if (e->hash) {
		if (e->oneshot)
			return EVP_Digest(in, n, out, NULL, e->md, NULL) ? 0 : -EIO;
		return EVP_DigestInit_ex(e->mx, e->md, NULL) && EVP_DigestUpdate(e->mx, in, n) &&
				       EVP_DigestFinal_ex(e->mx, out, NULL)
			       ? 0
			       : -EIO;
	}
	if (!e->oneshot)
		return cipher_op(e, e->ex[enc], enc, iv, in, out, n, tag, true);
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int r = x && init2(e, x, e->ec, e->key, iv, enc) ? cipher_op(e, x, enc, iv, in, out, n, tag, false)
							  : -EIO;
	EVP_CIPHER_CTX_free(x);
	return r;
}

void cli_evp_close(struct cli_evp *e)
{
	EVP_CIPHER_CTX_free(e->ex[0]);
	EVP_CIPHER_CTX_free(e->ex[1]);
	EVP_CIPHER_free(e->ec);
	EVP_MD_CTX_free(e->mx);
	EVP_MD_free(e->md);
	EVP_MAC_CTX_free(e->mac);
	EVP_MAC_free(e->mac_alg);
	OPENSSL_cleanse(e->key, sizeof(e->key));
	memset(e, 0, sizeof(*e));
}
#endif
