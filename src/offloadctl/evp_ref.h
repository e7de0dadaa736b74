/* SPDX-License-Identifier: MIT */
/*
 * The OpenSSL reference of the crypto benchmarks (bench cipher's "evp"
 * configuration, bench/crypto_percall.c): what a program that calls OpenSSL
 * 3's EVP itself gets, in its default library context, with the calls the
 * EVP manual pages show.
 *
 * Sessions (keyed once, one operation per message):
 *  - cipher: one EVP_CIPHER_CTX per direction, keyed by EVP_CipherInit_ex2();
 *    per operation EVP_CipherInit_ex() for the IV, EVP_CipherUpdate(),
 *    EVP_CipherFinal_ex(), and for GCM EVP_CTRL_AEAD_SET_TAG before (decrypt)
 *    or EVP_CTRL_AEAD_GET_TAG after (encrypt). Padding, which the block modes
 *    (ECB, CBC) must not apply to whole blocks, is switched off once by the
 *    "padding" parameter of that EVP_CipherInit_ex2() (OSSL_CIPHER_PARAM_PADDING,
 *    EVP_EncryptInit(3)); EVP_CIPHER_CTX_set_padding() would set a flag that
 *    OpenSSL 3.0 applies again in every EVP_CipherInit_ex() (300-400
 *    instructions per operation), and GCM and CTR, where padding means
 *    nothing, get neither.
 *  - hash: EVP_DigestInit_ex(), EVP_DigestUpdate(), EVP_DigestFinal_ex() with
 *    an EVP_MD fetched once; HMAC: EVP_MAC_init() with the key kept,
 *    EVP_MAC_update(), EVP_MAC_final().
 * One-shot (nothing kept between operations):
 *  - hash: EVP_Digest() with the fetched EVP_MD; HMAC: a new EVP_MAC_CTX per
 *    operation;
 *  - cipher: a new EVP_CIPHER_CTX per operation, keyed and given its IV by
 *    one EVP_CipherInit_ex2() (padding off in its parameters), then as above.
 */
#ifndef OFFLOADCTL_EVP_REF_H
#define OFFLOADCTL_EVP_REF_H

#ifdef OFFLOAD_HAVE_OPENSSL
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

struct cli_evp {
	bool hash, hmac, gcm, pads, oneshot;
	size_t key_len;
	uint8_t key[64];
	EVP_CIPHER *ec;
	EVP_CIPHER_CTX *ex[2]; /* [0] decrypt, [1] encrypt: AES keys differ per direction */
	EVP_MD *md;
	EVP_MD_CTX *mx;
	EVP_MAC *mac_alg;
	EVP_MAC_CTX *mac;
	char md_name[16];
};

/*
 * Set up algorithm `name` (OpenSSL's: "AES-128-GCM", "SHA256"; with hmac the
 * digest of an HMAC) with key (key_len bytes; none for a plain hash), for
 * sessions or one-shot operations. 0, or -ENOTSUP when OpenSSL lacks it.
 * cli_evp_close() releases it either way.
 */
int cli_evp_open(struct cli_evp *e, const char *name, bool hash, bool hmac, const uint8_t *key,
		 size_t key_len, bool oneshot);
/*
 * One operation on n bytes (n <= INT_MAX): cipher in -> out with iv (the
 * mode's length, or NULL) and for GCM a 16-byte tag (written on encrypt,
 * checked on decrypt); a hash's digest goes to out. 0, -EBADMSG (GCM tag
 * mismatch) or -EIO.
 */
int cli_evp_op(struct cli_evp *e, bool enc, const uint8_t *iv, const uint8_t *in, uint8_t *out,
	       size_t n, uint8_t *tag);
void cli_evp_close(struct cli_evp *e);
#endif

#endif /* OFFLOADCTL_EVP_REF_H */
