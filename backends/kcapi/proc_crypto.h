/* SPDX-License-Identifier: MIT */
/*
 * /proc/crypto: which kernel driver serves an algorithm name.
 *
 * The kernel resolves a cra_name (e.g. "cbc(aes)") to the registered
 * implementation with the highest cra_priority among those whose self-test
 * passed and that are not internal; on a priority tie the first one in its
 * algorithm list wins (crypto/api.c __crypto_alg_lookup: a later entry must
 * have a strictly higher priority), and /proc/crypto prints that list in the
 * same order. ofl_proc_crypto_pick() applies the same rule to the file.
 */
#ifndef OFL_KCAPI_PROC_CRYPTO_H
#define OFL_KCAPI_PROC_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>

#define OFL_PROC_CRYPTO "/proc/crypto"

struct ofl_proc_crypto_entry {
	char name[128];    /* cra_name */
	char driver[128];  /* cra_driver_name */
	char module[64];
	char type[24];     /* skcipher, lskcipher, aead, shash, ahash, ... */
	int priority;
	bool selftest_passed;
	bool internal;
	bool async;
};

/*
 * Pick the entry of cra_name the kernel would bind for an AF_ALG socket of
 * socket_type ("skcipher", "aead" or "hash"). Returns 0 and fills *out,
 * -ENOENT when no usable entry exists, or -errno when path cannot be read.
 * Reads the file until two passes agree (at most 4): the kernel produces it
 * a page per read and can skip an entry while algorithms come and go.
 */
int ofl_proc_crypto_pick(const char *path, const char *cra_name, const char *socket_type,
			 struct ofl_proc_crypto_entry *out);

/*
 * The same, among the hardware drivers alone (ofl_kcapi_driver_is_hw): the
 * engine's own entry even where a CPU implementation of equal or higher
 * priority is what the kernel would bind for cra_name (Armada 3720:
 * cbc-aes-ce and safexcel-cbc-aes both 300, the first registered wins).
 * Returns as ofl_proc_crypto_pick(); -ENOENT when no hardware driver serves it.
 */
int ofl_proc_crypto_pick_hw(const char *path, const char *cra_name, const char *socket_type,
			    struct ofl_proc_crypto_entry *out);

/*
 * The same, for the entry whose cra_driver_name is driver (exact, case
 * included): whether the kernel has that driver for cra_name, usable from
 * AF_ALG (self-test passed, not internal, of the socket's type). Returns as
 * ofl_proc_crypto_pick(); -ENOENT when there is no such entry.
 */
int ofl_proc_crypto_pick_driver(const char *path, const char *cra_name, const char *socket_type,
				const char *driver, struct ofl_proc_crypto_entry *out);

/*
 * Is this kernel driver an off-CPU engine? True for driver names on a list
 * of Linux hardware crypto drivers (safexcel-* for the Inside Secure
 * EIP97/EIP197, and others); CPU instruction-set drivers (aesni, ce, neon,
 * avx, ssse3, generic) are software.
 */
bool ofl_kcapi_driver_is_hw(const char *driver);

#endif
