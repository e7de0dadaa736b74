/* SPDX-License-Identifier: MIT */
/*
 * Software ciphers and hashes on OpenSSL libcrypto (EVP). No primitive is
 * written here: everything is an EVP call.
 *
 * The algorithms are fetched once per process into the library's own
 * OSSL_LIB_CTX (so an application's OpenSSL configuration is neither used
 * nor changed), with the "default" provider and, for DES, the "legacy"
 * provider (OpenSSL 3 moved single DES there). If the legacy provider cannot
 * be loaded, DES-ECB is reported as unavailable with that reason; 3DES is in
 * the default provider.
 *
 * Sessions keep one EVP context per direction, keyed once; each operation
 * only resets the IV (EVP_CipherInit_ex with a NULL cipher and key), so the
 * per-operation path neither fetches nor allocates.
 *
 * Padding: the library never pads, so the block modes (ECB, CBC) need
 * OpenSSL's padding off. EVP_CIPHER_CTX_set_padding() would do it through
 * the EVP context's EVP_CIPH_NO_PADDING flag, which OpenSSL 3.0's
 * EVP_CipherInit_ex() applies again on every call (about 300-400
 * instructions per operation, measured with callgrind: bench/README.md).
 * The provider's "padding" context parameter (OSSL_CIPHER_PARAM_PADDING,
 * EVP_CIPHER_CTX_set_params) is set once instead, and GCM and CTR, where
 * padding means nothing, get neither.
 *
 * EVP_CipherUpdate takes an int length: AAD and data are fed in pieces of
 * at most ofl_cpu_evp_chunk bytes (1 GiB), never cast from size_t. GCM's own
 * limits (SP 800-38D 5.2.1.1) are checked by the core before we are called.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "driver/crypto.h"
#include "cpu.h"

/* Ciphers by [alg - 1][key size index: 16, 24, 32 bytes]. */
#define NALG 6
static struct {
	pthread_once_t once;
	OSSL_LIB_CTX *lib;
	EVP_CIPHER *cipher[NALG][3];
	EVP_MD *md[6];
	EVP_MAC *hmac;
	char des_why[200];
	char err[200];
} ossl = { .once = PTHREAD_ONCE_INIT };

static const char *const md_names[6] = { "MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512" };

/* "openssl-evp:<name>" strings, static so results outlive every session. */
static const char *const cipher_drivers[NALG][3] = {
	{ "openssl-evp:AES-128-ECB", "openssl-evp:AES-192-ECB", "openssl-evp:AES-256-ECB" },
	{ "openssl-evp:AES-128-CBC", "openssl-evp:AES-192-CBC", "openssl-evp:AES-256-CBC" },
	{ "openssl-evp:AES-128-CTR", "openssl-evp:AES-192-CTR", "openssl-evp:AES-256-CTR" },
	{ "openssl-evp:AES-128-GCM", "openssl-evp:AES-192-GCM", "openssl-evp:AES-256-GCM" },
	{ "openssl-evp:DES-ECB", NULL, NULL },
	{ "openssl-evp:DES-EDE3-CBC", NULL, NULL },
};
static const char *const hash_drivers[6] = { "openssl-evp:MD5",    "openssl-evp:SHA1",
					     "openssl-evp:SHA224", "openssl-evp:SHA256",
					     "openssl-evp:SHA384", "openssl-evp:SHA512" };
static const char *const hmac_drivers[6] = {
	"openssl-evp:HMAC-MD5",	   "openssl-evp:HMAC-SHA1",   "openssl-evp:HMAC-SHA224",
	"openssl-evp:HMAC-SHA256", "openssl-evp:HMAC-SHA384", "openssl-evp:HMAC-SHA512"
};

static int key_index(size_t key_len)
{
	return key_len == 32 ? 2 : key_len == 24 ? 1 : 0;
}

static void ossl_error_text(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();

	if (e)
		ERR_error_string_n(e, buf, len);
	else
		ofl_strlcpy(buf, "no OpenSSL error queued", len);
	ERR_clear_error();
}

static void ossl_load(void)
{
	ossl.lib = OSSL_LIB_CTX_new();
	if (!ossl.lib || !OSSL_PROVIDER_load(ossl.lib, "default")) {
		ossl_error_text(ossl.err, sizeof(ossl.err));
		return;
	}
	if (!OSSL_PROVIDER_load(ossl.lib, "legacy")) {
		char e[120];
		ossl_error_text(e, sizeof(e));
		snprintf(ossl.des_why, sizeof(ossl.des_why),
			 "OpenSSL's legacy provider (needed for single DES) cannot be loaded: %.100s", e);
	}
	for (int a = 0; a < NALG; a++)
		for (int k = 0; k < 3; k++) {
			const char *n = cipher_drivers[a][k];
			if (n)
				ossl.cipher[a][k] = EVP_CIPHER_fetch(ossl.lib, n + strlen("openssl-evp:"),
								     NULL);
		}
	for (int i = 0; i < 6; i++)
		ossl.md[i] = EVP_MD_fetch(ossl.lib, md_names[i], NULL);
	ossl.hmac = EVP_MAC_fetch(ossl.lib, "HMAC", NULL);
	ERR_clear_error();
}

static bool ossl_ready(char *why, size_t len)
{
	pthread_once(&ossl.once, ossl_load);
	if (ossl.err[0]) {
		snprintf(why, len, "OpenSSL default provider unavailable: %s", ossl.err);
		return false;
	}
	return true;
}

uint32_t ofl_cpu_crypto_caps_openssl(void)
{
	return OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH;
}

/* ------------------------------------------------------------ ciphers */

static int cpu_cipher_query(struct ofl_device *dev, enum offload_cipher_alg alg, bool *hw,
			    char *why, size_t why_len)
{
	*hw = false;
	OFL_UNUSED(dev);
	if (!ossl_ready(why, why_len))
		return -ENOTSUP;
	if (alg < 1 || alg > NALG)
		return snprintf(why, why_len, "unknown algorithm"), -ENOTSUP;
	if (!ossl.cipher[alg - 1][0]) {
		if (alg == OFFLOAD_CIPHER_DES_ECB && ossl.des_why[0])
			snprintf(why, why_len, "%s", ossl.des_why);
		else
			snprintf(why, why_len, "OpenSSL does not provide %s",
				 cipher_drivers[alg - 1][0] + strlen("openssl-evp:"));
		return -ENOTSUP;
	}
	return 0;
}

struct cpu_cipher {
	struct ofl_device *dev;
	const EVP_CIPHER *cipher;
	const char *driver;
	bool gcm;
	bool pads;              /* a block mode: OpenSSL's padding must be off */
	EVP_CIPHER_CTX *ctx[2]; /* [OFFLOAD_ENCRYPT], [OFFLOAD_DECRYPT] */
	size_t iv_len[2];       /* the IV length each context is set to (0: unknown) */
	size_t key_len;
	uint8_t key[32];
};

/* An EVP call failed: -ENOMEM when OpenSSL ran out of memory, else err. */
static int ossl_fail(struct ofl_device *dev, int err, const char *what)
{
	char e[160];

	if (ERR_GET_REASON(ERR_peek_error()) == ERR_R_MALLOC_FAILURE)
		err = -ENOMEM;
	ossl_error_text(e, sizeof(e));
	return ofl_err(dev->ctx, err, "cpu backend: %s failed: %s", what, e);
}

static int cpu_cipher_open(struct ofl_device *dev, enum offload_cipher_alg alg, const uint8_t *key,
			   size_t key_len, void **bs)
{
	char why[OFL_REASON_LEN];
	bool hw;

	if (cpu_cipher_query(dev, alg, &hw, why, sizeof(why)) < 0)
		return ofl_err(dev->ctx, -ENOTSUP, "cpu backend: %s", why);
	struct cpu_cipher *c = calloc(1, sizeof(*c));
	if (!c)
		return ofl_err(dev->ctx, -ENOMEM, "cpu backend: out of memory");
	int k = alg >= OFFLOAD_CIPHER_DES_ECB ? 0 : key_index(key_len);
	c->dev = dev;
	c->cipher = ossl.cipher[alg - 1][k];
	c->driver = cipher_drivers[alg - 1][k];
	c->gcm = alg == OFFLOAD_CIPHER_AES_GCM;
	c->pads = alg != OFFLOAD_CIPHER_AES_GCM && alg != OFFLOAD_CIPHER_AES_CTR;
	memcpy(c->key, key, key_len);
	c->key_len = key_len;
	*bs = c;
	return 0;
}

/* Key a direction's context on first use (after that only the IV changes). */
static int cpu_cipher_ctx(struct cpu_cipher *c, enum offload_cipher_dir dir)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int enc = dir == OFFLOAD_ENCRYPT;
	unsigned int no_pad = 0;
	OSSL_PARAM p[2] = { OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &no_pad),
			    OSSL_PARAM_construct_end() };

	if (!x)
		return ofl_err(c->dev->ctx, -ENOMEM, "cpu backend: out of memory");
	/* padding off once, in the provider (see the top of this file) */
	if (!EVP_CipherInit_ex2(x, c->cipher, c->key, NULL, enc, c->pads ? p : NULL)) {
		EVP_CIPHER_CTX_free(x);
		return ossl_fail(c->dev, -EIO, "EVP_CipherInit_ex2");
	}
	c->ctx[dir] = x;
	int l = EVP_CIPHER_CTX_get_iv_length(x);
	c->iv_len[dir] = l > 0 ? (size_t)l : 0;
	return 0;
}

/* Largest piece handed to one EVP_CipherUpdate: a whole number of blocks, <= INT_MAX. */
size_t ofl_cpu_evp_chunk = (size_t)1 << 30;

/*
 * EVP_CipherUpdate over len bytes in pieces of at most ofl_cpu_evp_chunk
 * (out NULL: GCM AAD). *written receives the bytes produced.
 */
static int evp_update(struct cpu_cipher *c, EVP_CIPHER_CTX *x, uint8_t *out, const uint8_t *in,
		      size_t len, const char *what, size_t *written)
{
	size_t chunk = OFL_MIN(ofl_cpu_evp_chunk, (size_t)INT_MAX);
	int n;

	*written = 0;
	while (len) {
		size_t piece = OFL_MIN(len, chunk);
		if (OFL_UNLIKELY(!EVP_CipherUpdate(x, out, &n, in, (int)piece)))
			return ossl_fail(c->dev, -EIO, what);
		in += piece;
		len -= piece;
		if (out) {
			out += n;
			*written += (size_t)n;
		}
	}
	return 0;
}

/*
 * EVP_CipherUpdate of len bytes (out NULL: GCM AAD) at *out, which moves past
 * what was written: one call for anything up to ofl_cpu_evp_chunk, which
 * covers every message in practice, evp_update()'s pieces beyond.
 */
static inline int cipher_update(struct cpu_cipher *c, EVP_CIPHER_CTX *x, uint8_t **out,
				const uint8_t *in, size_t len, const char *what)
{
	size_t done = 0;
	int n;

	if (OFL_LIKELY(len <= ofl_cpu_evp_chunk && len <= INT_MAX)) {
		if (OFL_UNLIKELY(!EVP_CipherUpdate(x, *out, &n, in, (int)len)))
			return ossl_fail(c->dev, -EIO, what);
		done = (size_t)n;
	} else {
		int r = evp_update(c, x, *out, in, len, what, &done);
		if (OFL_UNLIKELY(r < 0))
			return r;
	}
	if (*out)
		*out += done;
	return 0;
}

static int cpu_cipher_run(void *bs, const struct offload_cipher_op *op, const char **driver,
			  uint32_t *flags)
{
	struct cpu_cipher *c = bs;
	EVP_CIPHER_CTX *x = c->ctx[op->dir];
	int enc = op->dir == OFFLOAD_ENCRYPT;
	uint8_t *out = op->out, *none = NULL;
	int n, r;

	if (OFL_UNLIKELY(!x)) {
		r = cpu_cipher_ctx(c, op->dir);
		if (r < 0)
			return r;
		x = c->ctx[op->dir];
	}
	*driver = c->driver;
	*flags = OFFLOAD_RES_CPU;
	/*
	 * A GCM IV other than 96 bits: OpenSSL hashes it into the counter block
	 * (SP 800-38D 7.1) once told its length, before the IV itself is set.
	 * iv_len is 1..CPU_GCM_IV_MAX here (the core asked cpu_cipher_iv_ok).
	 */
	if (c->gcm && OFL_UNLIKELY(op->iv_len != c->iv_len[op->dir])) {
		c->iv_len[op->dir] = 0;
		if (OFL_UNLIKELY(!EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)op->iv_len, NULL)))
			return ossl_fail(c->dev, -EIO, "EVP_CTRL_GCM_SET_IVLEN");
		c->iv_len[op->dir] = op->iv_len;
	}
	/* A NULL cipher and key keep the key schedule; only the IV is reset. */
	if (OFL_UNLIKELY(!EVP_CipherInit_ex(x, NULL, NULL, NULL, op->iv, enc)))
		return ossl_fail(c->dev, -EIO, "EVP_CipherInit_ex (IV)");
	/*
	 * The GCM tag goes through the provider's "tag" parameter
	 * (OSSL_CIPHER_PARAM_AEAD_TAG, EVP_CIPHER_CTX_set/get_params), what
	 * EVP_CTRL_AEAD_SET/GET_TAG turn into, without the ctrl's translation
	 * (about 110 instructions a call, bench/README.md). tag_len is 4..16.
	 */
	OSSL_PARAM tp[2] = { OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, op->tag, op->tag_len),
			     OSSL_PARAM_END };
	if (c->gcm) {
		if (!enc && OFL_UNLIKELY(!EVP_CIPHER_CTX_set_params(x, tp)))
			return ossl_fail(c->dev, -EIO, "EVP_CIPHER_CTX_set_params (GCM tag)");
		if (op->aad_len &&
		    OFL_UNLIKELY((r = cipher_update(c, x, &none, op->aad, op->aad_len,
						    "EVP_CipherUpdate (AAD)")) < 0))
			return r;
	}
	if (op->len && OFL_UNLIKELY((r = cipher_update(c, x, &out, op->in, op->len,
						       "EVP_CipherUpdate")) < 0))
		return r;
	/*
	 * Without padding, ECB and CBC on whole blocks (the core checked) and
	 * CTR leave nothing for EVP_CipherFinal_ex to write: the next
	 * EVP_CipherInit_ex starts afresh. Only GCM has work there, the tag.
	 */
	if (!c->gcm)
		return 0;
	if (OFL_UNLIKELY(!EVP_CipherFinal_ex(x, out, &n))) {
		if (!enc) {
			ERR_clear_error();
			return -EBADMSG; /* the core words the message */
		}
		return ossl_fail(c->dev, -EIO, "EVP_CipherFinal_ex");
	}
	if (enc && OFL_UNLIKELY(!EVP_CIPHER_CTX_get_params(x, tp)))
		return ossl_fail(c->dev, -EIO, "EVP_CIPHER_CTX_get_params (GCM tag)");
	return 0;
}

static void cpu_cipher_close(void *bs)
{
	struct cpu_cipher *c = bs;

	/* EVP_CIPHER_CTX_free cleanses the key schedule. */
	EVP_CIPHER_CTX_free(c->ctx[0]);
	EVP_CIPHER_CTX_free(c->ctx[1]);
	ofl_wipe(c, sizeof(*c));
	free(c);
}

/*
 * OpenSSL's GCM takes IVs of 1 to 128 bytes: GCM_IV_MAX_SIZE (1024 bits) in
 * its providers' ciphercommon_gcm.h, enforced by gcm_set_ctx_params for
 * EVP_CTRL_GCM_SET_IVLEN (OpenSSL 3.0 to 3.x). SP 800-38D allows more.
 */
#define CPU_GCM_IV_MAX 128u

static int cpu_cipher_iv_ok(struct ofl_device *dev, enum offload_cipher_alg alg, size_t iv_len,
			    char *why, size_t why_len)
{
	OFL_UNUSED(dev);
	if (alg == OFFLOAD_CIPHER_AES_GCM && iv_len >= 1 && iv_len <= CPU_GCM_IV_MAX)
		return 0;
	if (alg == OFFLOAD_CIPHER_AES_GCM)
		snprintf(why, why_len,
			 "takes AES-GCM IVs of at most %u bytes (1024 bits, OpenSSL's limit; SP "
			 "800-38D allows longer), got %zu bytes",
			 CPU_GCM_IV_MAX, iv_len);
	else
		snprintf(why, why_len, "takes only the usual IV length for this cipher");
	return -ENOTSUP;
}

static size_t cpu_cipher_max_len(struct ofl_device *dev, enum offload_cipher_alg alg)
{
	OFL_UNUSED(dev);
	OFL_UNUSED(alg);
	return SIZE_MAX;
}

const struct ofl_cipher_ops ofl_cpu_cipher_ops = {
	.query = cpu_cipher_query,
	.max_len = cpu_cipher_max_len,
	.iv_ok = cpu_cipher_iv_ok,
	.open = cpu_cipher_open,
	.run = cpu_cipher_run,
	.close = cpu_cipher_close,
};

/* ------------------------------------------------------------ hashes */

static int cpu_hash_query(struct ofl_device *dev, enum offload_hash_alg alg, bool *hw, char *why,
			  size_t why_len)
{
	*hw = false;
	OFL_UNUSED(dev);
	if (!ossl_ready(why, why_len))
		return -ENOTSUP;
	unsigned b = ofl_hash_base(alg);
	const struct ofl_hash_info *hi = ofl_hash_info(alg);
	if (b < 1 || b > 6 || !ossl.md[b - 1])
		return snprintf(why, why_len, "OpenSSL does not provide %s", hi ? hi->name : "this hash"),
		       -ENOTSUP;
	if (ofl_hash_is_hmac(alg) && !ossl.hmac)
		return snprintf(why, why_len, "OpenSSL does not provide HMAC"), -ENOTSUP;
	return 0;
}

struct cpu_hash {
	struct ofl_device *dev;
	EVP_MD_CTX *mdx;   /* plain hashes: the message being hashed */
	EVP_MD_CTX *init;  /* plain hashes: a context just after EVP_DigestInit_ex() */
	EVP_MAC_CTX *macx; /* HMAC */
	const char *driver;
	bool ready;        /* mdx / macx starts a message; false after a failed restart */
};

static void cpu_hash_close(void *bs)
{
	struct cpu_hash *h = bs;

	EVP_MD_CTX_free(h->mdx);
	EVP_MD_CTX_free(h->init);
	EVP_MAC_CTX_free(h->macx); /* cleanses the key */
	free(h);
}

static int cpu_hash_open(struct ofl_device *dev, enum offload_hash_alg alg, const uint8_t *key,
			 size_t key_len, void **bs)
{
	char why[OFL_REASON_LEN];
	bool hw;

	if (cpu_hash_query(dev, alg, &hw, why, sizeof(why)) < 0)
		return ofl_err(dev->ctx, -ENOTSUP, "cpu backend: %s", why);
	struct cpu_hash *h = calloc(1, sizeof(*h));
	if (!h)
		return ofl_err(dev->ctx, -ENOMEM, "cpu backend: out of memory");
	unsigned b = ofl_hash_base(alg) - 1;
	h->dev = dev;
	int r = 0;
	if (ofl_hash_is_hmac(alg)) {
		static const uint8_t empty[1];
		OSSL_PARAM p[2] = {
			OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md_names[b], 0),
			OSSL_PARAM_construct_end(),
		};
		h->driver = hmac_drivers[b];
		h->macx = EVP_MAC_CTX_new(ossl.hmac);
		if (!h->macx)
			r = ofl_err(dev->ctx, -ENOMEM, "cpu backend: out of memory");
		else if (!EVP_MAC_init(h->macx, key_len ? key : empty, key_len, p))
			r = ossl_fail(dev, -EIO, "EVP_MAC_init");
	} else {
		h->driver = hash_drivers[b];
		h->mdx = EVP_MD_CTX_new();
		h->init = EVP_MD_CTX_new();
		if (!h->mdx || !h->init)
			r = ofl_err(dev->ctx, -ENOMEM, "cpu backend: out of memory");
		else if (!EVP_DigestInit_ex(h->init, ossl.md[b], NULL))
			r = ossl_fail(dev, -EIO, "EVP_DigestInit_ex");
		else if (!EVP_MD_CTX_copy_ex(h->mdx, h->init))
			r = ossl_fail(dev, -EIO, "EVP_MD_CTX_copy_ex");
	}
	if (r < 0) {
		cpu_hash_close(h);
		return r;
	}
	h->ready = true;
	*bs = h;
	return 0;
}

/*
 * The next message of a plain hash starts from a copy of the initialised
 * context. In OpenSSL 3.0 EVP_DigestInit_ex() also frees and allocates the
 * provider's context and looks for an ENGINE on every call; the copy does only
 * the first: 80 against 86 ns per 16-byte SHA-256 message here (issue #19).
 */
static int cpu_hash_restart(struct cpu_hash *h)
{
	int ok = h->mdx ? EVP_MD_CTX_copy_ex(h->mdx, h->init)
			: EVP_MAC_init(h->macx, NULL, 0, NULL); /* NULL key: keep the key */
	h->ready = ok;
	return OFL_LIKELY(ok) ? 0 : ossl_fail(h->dev, -EIO, "hash re-init");
}

/*
 * A restart that failed (out of memory) leaves OpenSSL's context without its
 * provider state, and the next EVP call on it would crash: restart first.
 */
static inline int cpu_hash_ready(struct cpu_hash *h)
{
	return OFL_LIKELY(h->ready) ? 0 : cpu_hash_restart(h);
}

static int cpu_hash_update(void *bs, const void *data, size_t len)
{
	struct cpu_hash *h = bs;
	int r = cpu_hash_ready(h);

	if (OFL_UNLIKELY(r < 0))
		return r;
	int ok = h->mdx ? EVP_DigestUpdate(h->mdx, data, len) : EVP_MAC_update(h->macx, data, len);

	return OFL_LIKELY(ok) ? 0 : ossl_fail(h->dev, -EIO, "hash update");
}

static int cpu_hash_final(void *bs, uint8_t *digest, const char **driver, uint32_t *flags)
{
	struct cpu_hash *h = bs;
	int ok, r = cpu_hash_ready(h);

	if (OFL_UNLIKELY(r < 0))
		return r;
	if (h->mdx) {
		ok = EVP_DigestFinal_ex(h->mdx, digest, NULL);
	} else {
		size_t n;
		ok = EVP_MAC_final(h->macx, digest, &n, OFFLOAD_HASH_MAX_DIGEST);
	}
	if (OFL_UNLIKELY(!ok))
		return ossl_fail(h->dev, -EIO, "hash final");
	*driver = h->driver;
	*flags = OFFLOAD_RES_CPU;
	/* The digest stands; should the restart fail, the next call tries again (cpu_hash_ready). */
	cpu_hash_restart(h);
	return 0;
}

static void cpu_hash_reset(void *bs)
{
	cpu_hash_restart(bs);
}

/* A plain hash of one message: EVP_Digest() with the digest fetched at load. */
static int cpu_hash_oneshot(struct ofl_device *dev, enum offload_hash_alg alg, const void *data,
			    size_t len, uint8_t *digest, const char **driver, uint32_t *flags)
{
	unsigned b = ofl_hash_base(alg) - 1;
	static const uint8_t empty[1];

	/* a device's crypto was queried before it was chosen: ossl is loaded, md[b] is there */
	if (OFL_UNLIKELY(!EVP_Digest(len ? data : empty, len, digest, NULL, ossl.md[b], NULL)))
		return ossl_fail(dev, -EIO, "EVP_Digest");
	*driver = hash_drivers[b];
	*flags = OFFLOAD_RES_CPU;
	return 0;
}

const struct ofl_hash_ops ofl_cpu_hash_ops = {
	.query = cpu_hash_query,
	.open = cpu_hash_open,
	.update = cpu_hash_update,
	.final = cpu_hash_final,
	.oneshot = cpu_hash_oneshot,
	.reset = cpu_hash_reset,
	.close = cpu_hash_close,
};
