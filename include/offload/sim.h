/* SPDX-License-Identifier: MIT */
/**
 * @file sim.h
 * @brief liboffload-sim: register-level models of the engines liboffload
 *        drives directly, and the built-in virtual board.
 *
 * This is the header of liboffload-sim (`-loffload-sim`, `liboffload-sim.so.0`),
 * not of liboffload: offload.h does not include it. A program that wants
 * liboffload to run its direct backends on models (K3 UDMA/BCDMA, NXP DSPI,
 * SafeXcel EIP97) passes the provider to the context:
 *
 * @code
 * #include <offload/offload.h>
 * #include <offload/sim.h>
 *
 * struct offload_ctx_opts o;
 * offload_ctx_opts_init(&o);
 * o.sim_provider = offload_sim_provider();
 * o.dt_source = OFFLOAD_DT_BUILTIN;          // the virtual board, or any tree with OFFLOAD_CTX_SIM
 * offload_ctx_open(ctx, &o);
 * @endcode
 *
 * Without it, liboffload runs on hardware only; the environment
 * (`OFFLOAD_SIM=1`, `OFFLOAD_DTB=builtin`) still reaches the models of a
 * program not linked with liboffload-sim by loading `liboffload-sim.so.0`
 * (see struct offload_ctx_opts).
 */
#ifndef OFFLOAD_SIM_H
#define OFFLOAD_SIM_H

#ifdef __cplusplus
extern "C" {
#endif

struct offload_sim_provider;

/**
 * @brief The models, for struct offload_ctx_opts.sim_provider.
 *
 * @return This library's provider: a static table, valid as long as the
 *         library is loaded. Never NULL.
 *
 * Thread-safety: any thread, concurrently.
 */
const struct offload_sim_provider *offload_sim_provider(void);

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_SIM_H */
