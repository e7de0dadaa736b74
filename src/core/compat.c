/* SPDX-License-Identifier: MIT */
/*
 * The 0.1 entry points that 0.2 replaced, for programs linked against
 * liboffload 0.1: each is bound to the version node 0.1 exported
 * (OFFLOAD_0, src/offload.map) with .symver, not to a default version, so
 * that new programs cannot link against them, only old ones find them (the
 * glibc / liburing compat-symbol way). Each forwards to its replacement with
 * the struct sizes 0.1 had, so a 0.1 caller's struct is never written or
 * read past its end. Built into liboffload.so only: a static library has
 * no symbol versions and its users compile against the current header.
 */
#include "core/crypto.h"
#include "core/internal.h"

/* The 0.1 struct sizes, from the last field each had in 0.1. */
#define DEV_INFO_SIZE_0_1 OFL_SIZE_UPTO(struct offload_dev_info, memcpy_class)
#define SPI_INFO_SIZE_0_1 OFL_SIZE_UPTO(struct offload_spi_info, flags)
#define CTX_OPTS_SIZE_0_1 OFL_SIZE_UPTO(struct offload_ctx_opts, backends)

#define OFL_COMPAT_0_1(impl, name) __asm__(".symver " #impl ", " #name "@OFFLOAD_0")

/* Defined global (hidden by the version script's local: *) so that the
 * versioned alias .symver makes is exported; declared here only. */
OFFLOAD_API void ofl_compat_ctx_opts_init_0_1(struct offload_ctx_opts *opts);
OFFLOAD_API int ofl_compat_dev_info_0_1(const offload_ctx *ctx, int index,
					struct offload_dev_info *info);
OFFLOAD_API int ofl_compat_dev_stats_0_1(const offload_ctx *ctx, int dev,
					 struct offload_dev_stats *out, size_t size);
OFFLOAD_API int ofl_compat_spi_info_0_1(const offload_spi *spi, struct offload_spi_info *info);
OFFLOAD_API int ofl_compat_spi_xfer_0_1(offload_spi *spi, const struct offload_spi_xfer *xfers,
					unsigned n);
OFFLOAD_API int ofl_compat_cipher_0_1(offload_ctx *ctx, const struct offload_cipher_op *op);
OFFLOAD_API int ofl_compat_cipher_session_run_0_1(offload_cipher_session *s,
						  const struct offload_cipher_op *op);

/* 0.2 added sim_provider at the end of the options: a 0.1 caller's struct has no room for it. */
OFL_COMPAT_0_1(ofl_compat_ctx_opts_init_0_1, offload_ctx_opts_init);
void ofl_compat_ctx_opts_init_0_1(struct offload_ctx_opts *opts)
{
	struct offload_ctx_opts o;

	if (!opts)
		return;
	offload_ctx_opts_init(&o);
	o.size = CTX_OPTS_SIZE_0_1;
	__builtin_memcpy(opts, &o, CTX_OPTS_SIZE_0_1);
}

OFL_COMPAT_0_1(ofl_compat_dev_info_0_1, offload_dev_info);
int ofl_compat_dev_info_0_1(const offload_ctx *ctx, int index, struct offload_dev_info *info)
{
	return offload_dev_get_info(ctx, index, info, DEV_INFO_SIZE_0_1);
}

OFL_COMPAT_0_1(ofl_compat_dev_stats_0_1, offload_dev_stats);
int ofl_compat_dev_stats_0_1(const offload_ctx *ctx, int dev, struct offload_dev_stats *out,
			     size_t size)
{
	return offload_dev_get_stats(ctx, dev, out, size);
}

OFL_COMPAT_0_1(ofl_compat_spi_info_0_1, offload_spi_info);
int ofl_compat_spi_info_0_1(const offload_spi *spi, struct offload_spi_info *info)
{
	return offload_spi_get_info(spi, info, SPI_INFO_SIZE_0_1);
}

OFL_COMPAT_0_1(ofl_compat_spi_xfer_0_1, offload_spi_xfer);
int ofl_compat_spi_xfer_0_1(offload_spi *spi, const struct offload_spi_xfer *xfers, unsigned n)
{
	return offload_spi_transfer(spi, xfers, n);
}

OFL_COMPAT_0_1(ofl_compat_cipher_0_1, offload_cipher);
int ofl_compat_cipher_0_1(offload_ctx *ctx, const struct offload_cipher_op *op)
{
	return offload_cipher(ctx, op, OFL_CIPHER_OP_SIZE_0_1);
}

OFL_COMPAT_0_1(ofl_compat_cipher_session_run_0_1, offload_cipher_session_run);
int ofl_compat_cipher_session_run_0_1(offload_cipher_session *s, const struct offload_cipher_op *op)
{
	return offload_cipher_session_run(s, op, OFL_CIPHER_OP_SIZE_0_1);
}
