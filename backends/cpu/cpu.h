/* SPDX-License-Identifier: MIT */
/* CPU backend internals shared by its files. */
#ifndef OFL_BACKEND_CPU_H
#define OFL_BACKEND_CPU_H

#include "core/internal.h"

extern const struct ofl_backend ofl_backend_cpu;
extern const struct ofl_memcpy_ops ofl_cpu_memcpy_ops;

/* Context-wide state: the memcpy worker pool (memcpy.c). */
int ofl_cpu_init(struct offload_ctx *ctx, void **state, char *why, size_t why_len);
void ofl_cpu_fini(struct offload_ctx *ctx, void *state);
/* One line describing how copies run (threads, split size). */
const char *ofl_cpu_memcpy_describe(const void *state);

/* Crypto capabilities of the CPU backend (0 without OpenSSL). */
uint32_t ofl_cpu_crypto_caps(void);
#define OFL_CPU_CIPHER_OPS NULL
#define OFL_CPU_HASH_OPS NULL

#endif /* OFL_BACKEND_CPU_H */
