/* SPDX-License-Identifier: MIT */
/*
 * Known-answer vectors from the standards, in one place for the test suites
 * (tests/crypto/) and `offloadctl selftest`. Hex strings; ctest recomputes
 * every value with independent implementations (Python hashlib/hmac and the
 * cryptography package: tests/crypto/check_vectors.py).
 */
#ifndef OFFLOADCTL_KAT_VECTORS_H
#define OFFLOADCTL_KAT_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include <offload/crypto.h>

struct kat_cipher {
	const char *source;          /* the standard and the test case */
	enum offload_cipher_alg alg;
	const char *key, *iv, *aad;  /* hex; iv/aad "" when none */
	const char *pt, *ct, *tag;   /* hex; tag "" for non-AEAD */
};

struct kat_hash {
	const char *source;
	enum offload_hash_alg alg;
	const char *key;             /* hex HMAC key, NULL for plain hashes */
	const char *msg;             /* the message as text (not hex) */
	unsigned long repeat;        /* msg is repeated this many times (1 normally) */
	const char *digest;          /* hex */
};

extern const struct kat_cipher kat_ciphers[];
extern const size_t kat_ncipher;
extern const struct kat_hash kat_hashes[];
extern const size_t kat_nhash;

/* Decode hex into out (capacity cap). Returns the byte count, or -1 on bad hex / too long. */
long kat_unhex(const char *hex, uint8_t *out, size_t cap);


/* ---- running the vectors (kat_run.c) ---- */

#define KAT_PASS 0
#define KAT_FAIL 1
#define KAT_UNSUPPORTED 2  /* the device does not implement the algorithm */

struct kat_outcome {
	const char *alg;       /* "AES-128-CBC", "HMAC-SHA256" */
	const char *source;    /* the vector's standard and case */
	int status;            /* KAT_PASS, KAT_FAIL, KAT_UNSUPPORTED */
	const char *driver;    /* implementation that ran ("" if none) */
	uint32_t flags;        /* OFFLOAD_RES_* */
	char detail[384];      /* what failed, or why unsupported */
};

typedef void (*kat_report_fn)(void *arg, const struct kat_outcome *o);

/*
 * Run every vector on device dev (sessions bound to it): ciphers encrypt and
 * decrypt, out of place and in place, and for GCM a corrupted tag must give
 * -EBADMSG with zeroed output; hashes one-shot and streamed in pieces.
 * Calls fn once per vector. Returns the number of KAT_FAIL outcomes.
 */
int kat_run_device(offload_ctx *ctx, int dev, kat_report_fn fn, void *arg);

#endif
