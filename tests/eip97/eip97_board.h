/* SPDX-License-Identifier: MIT */
/*
 * The EIP97 tests' board: a sim context with the CPU and eip97 backends on
 * the built-in virtual board, the engine found by its compatible.
 */
#ifndef TESTS_EIP97_BOARD_H
#define TESTS_EIP97_BOARD_H

#include "core/internal.h"
#include "eip97/eip97.h"
#include "testutil.h"

#define EIP97_COMPAT "inside-secure,safexcel-eip97ies"

struct bx {
	offload_ctx *ctx;
	int dev, cpu;
	struct eip97_engine *e;
};

/* Open it (flags: more OFFLOAD_CTX_* bits, e.g. OFFLOAD_CTX_SIM_NONCOHERENT). */
static inline void board(struct bx *b, uint32_t flags)
{
	b->ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM | flags, "cpu,eip97");
	b->dev = offload_dev_find(b->ctx, EIP97_COMPAT);
	ck_assert_msg(b->dev >= 0, "%s", offload_last_error(b->ctx));
	b->cpu = offload_dev_find(b->ctx, "cpu");
	ck_assert_int_ge(b->cpu, 0);
	b->e = ofl_ctx_device(b->ctx, b->dev)->priv;
	ck_assert_ptr_nonnull(b->e);
	/* the model runs in its own thread: a bound a loaded machine cannot reach (testutil.h) */
	b->e->timeout_ns = TEST_PATIENT_NS;
}

#endif /* TESTS_EIP97_BOARD_H */
