/* SPDX-License-Identifier: MIT */
/* CPU backend internals shared by its files. */
#ifndef OFL_BACKEND_CPU_H
#define OFL_BACKEND_CPU_H

#include "driver/driver.h"

extern const struct ofl_backend ofl_backend_cpu;
extern const struct ofl_memcpy_ops ofl_cpu_memcpy_ops;

/* Context-wide state: the memcpy worker pool (memcpy.c). */
int ofl_cpu_init(struct offload_ctx *ctx, void **state, char *why, size_t why_len);
void ofl_cpu_fini(struct offload_ctx *ctx, void *state);
/* One line describing how copies run (threads, split size). */
const char *ofl_cpu_memcpy_describe(const void *state);

/* Crypto capabilities of the CPU backend: OFL_CPU_CRYPTO_CAPS(), 0 without OpenSSL. */
#ifdef OFFLOAD_HAVE_OPENSSL
struct ofl_cipher_ops;
struct ofl_hash_ops;
extern const struct ofl_cipher_ops ofl_cpu_cipher_ops; /* crypto.c */
extern const struct ofl_hash_ops ofl_cpu_hash_ops;
uint32_t ofl_cpu_crypto_caps_openssl(void);
/* Largest piece of one EVP_CipherUpdate in bytes (1 GiB); tests lower it. */
extern size_t ofl_cpu_evp_chunk;
#define OFL_CPU_CRYPTO_CAPS() ofl_cpu_crypto_caps_openssl()
#define OFL_CPU_CIPHER_OPS (&ofl_cpu_cipher_ops)
#define OFL_CPU_HASH_OPS (&ofl_cpu_hash_ops)
#else
#define OFL_CPU_CRYPTO_CAPS() 0u
#define OFL_CPU_CIPHER_OPS NULL
#define OFL_CPU_HASH_OPS NULL
#endif

#endif /* OFL_BACKEND_CPU_H */
