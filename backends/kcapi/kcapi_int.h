/* SPDX-License-Identifier: MIT */
/* kcapi backend internals shared by its files. */
#ifndef OFL_BACKEND_KCAPI_H
#define OFL_BACKEND_KCAPI_H

#include <pthread.h>

#include "driver/crypto.h"
#include "driver/driver.h"
#include "proc_crypto.h"

/* What one kernel algorithm name resolved to when the context opened: the
 * basis of the device's policy (which algorithms run on hardware). What a
 * session reports comes from ofl_kc_resolve() at its bind instead. */
struct kc_alg {
	const char *cra_name;    /* "cbc(aes)", "hmac(sha256)" */
	const char *socket_type; /* "skcipher", "aead", "hash" */
	char driver[128];        /* cra_driver_name that served, "" until known */
	int priority;
	bool hw;                 /* driver is an off-CPU engine */
	bool forced;             /* driver named by OFFLOAD_KCAPI_DRIVER: bound by that name */
	bool in_proc;            /* present in /proc/crypto at context open */
	/* The last ofl_kc_resolve() answer (under kc_state.lock), valid while
	 * the kernel's module count is still seen_modules (0: none kept). */
	const char *seen;
	bool seen_hw;
	unsigned long seen_modules;
};

enum { KC_NCIPHER = 6, KC_NHASH = 12 };

/* A driver name handed out in results: kept until the context closes. */
struct kc_name {
	struct kc_name *next;
	char s[];
};

struct kc_state {
	pthread_mutex_t lock;
	struct kc_name *names;            /* interned driver names, under lock */
	char proc_path[256];
	struct kc_alg cipher[KC_NCIPHER]; /* by offload_cipher_alg - 1 */
	struct kc_alg hash[KC_NHASH];     /* MD5..SHA512, HMAC-MD5..HMAC-SHA512 */
};

extern const struct ofl_backend ofl_backend_kcapi;
extern const struct ofl_cipher_ops ofl_kcapi_cipher_ops;
extern const struct ofl_hash_ops ofl_kcapi_hash_ops;

/* The entry of a hash algorithm, NULL if unknown. */
struct kc_alg *ofl_kc_hash_alg(struct kc_state *st, enum offload_hash_alg alg);
/*
 * After a handle was bound: the driver the kernel bound for it, from
 * /proc/crypto (the choice changes when a module registers a better
 * implementation after the context opened), and whether it is hardware;
 * read again only when the kernel's module count changed since the last
 * answer for a. The string stays valid until the context closes.
 */
const char *ofl_kc_resolve(struct kc_state *st, struct kc_alg *a, bool *hw);
/* The name a session binds: the driver's cra_driver_name when a is served
 * by an engine (kc_lookup) or the driver was forced (OFFLOAD_KCAPI_DRIVER),
 * else the algorithm's cra_name (also under a stand-in /proc/crypto, whose
 * drivers this kernel may lack). */
const char *ofl_kc_bind_name(const struct kc_state *st, const struct kc_alg *a);
/* Answer a query for an entry (hw preference and why). */
int ofl_kc_query(struct kc_alg *a, bool *hw, char *why, size_t why_len);
/* A libkcapi error as a library error with a message. */
int ofl_kc_err(struct ofl_device *dev, int r, const char *what, const struct kc_alg *a);

#endif
