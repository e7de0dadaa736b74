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
 *
 * `OFFLOAD_SIM_TRACE=FILE`, read when a context's models are created (a
 * debugging knob that ::OFFLOAD_CTX_NO_ENV does not hide), appends one line
 * per register access the models receive to FILE:
 * `R32|W32|R64|W64|R16|W16 0x<physical address> 0x<value> <REGISTER>`, then
 * the unit and its index ("tchan 3") where the register belongs to one, "fw"
 * for what the simulated firmware wrote on the engine's behalf (TI-SCI
 * requests) and "bus-error" for an access the block refused. Registers are
 * named as Linux or the TRM names them (TCFG, RCQ, THREAD, CTL, BCNT, BA_LO,
 * SIZE, DB, OCC, PUSHR, CTAR0, MCR, SR, POPR, HIA_CDR_PREP_COUNT, ...); one
 * without a name shows as its block and offset ("udma.gcfg+0x104"). Lines
 * are written whole (line-buffered appends), so several contexts may share
 * a file. A file that cannot be opened fails offload_ctx_open() with its
 * -errno and a sentence naming it. Once open, the trace is best effort: a
 * write that fails (a full disk, say) is not reported and the models go on,
 * so a trace that ends early says only that writing it stopped; writing to
 * a FIFO whose reader has gone raises SIGPIPE, as for any program.
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
