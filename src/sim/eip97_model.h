/* SPDX-License-Identifier: MIT */
/*
 * Register-level model of the Inside Secure SafeXcel EIP97 (EIP-202 HIA +
 * EIP-201 ring AICs + EIP-206 pipe + EIP-96 core), per Linux
 * drivers/crypto/inside-secure/ (sources by topic §n: src/hw/eip97.h).
 *
 * What the model implements, so that backends/eip97 drives it with the
 * register, descriptor and token sequence the Linux driver uses:
 *  - the ID, options and version registers the probe reads (§1.4, §2.6),
 *    optionally in the EIP197 layout (signatures only) or byte-swapped
 *    until the HIA MST_CTRL swap bits are toggled (§1.3);
 *  - per-ring CDR/RDR registers: base, ring size, descriptor size and
 *    stride, fetch configuration, thresholds, prepared/processed counts
 *    (bytes and packets, write-to-subtract, CLR_COUNT), pointers, status
 *    (write 1 to clear); ring AIC enable/status/ack and the global AIC;
 *    DFE/DSE thread control/status with the init handshake (§2.4);
 *  - command descriptors with first/last segment particles, the shadow
 *    additional-token blocks (ATOK pointer), result descriptors filled in
 *    ring order with the result token in the last one (§3);
 *  - context records: control0/control1 from the CD, key, IV, hash state
 *    and digest count with the byte-order rules of §4 (GCM H stored
 *    byte-reversed per 32-bit word);
 *  - the token instructions of §5 for AES ECB/CBC/CTR_LOAD/GCM, DES and
 *    3DES ECB/CBC, MD5/SHA-1/SHA-2 plain, continued and HMAC hashes;
 *    computed with OpenSSL (AES, DES, the hash compression functions),
 *    GHASH by a GF(2^128) multiply on H as read from the context record;
 *  - the result-descriptor error bits of §6.4 for bad tokens, lengths,
 *    contexts and DMA faults; zero-length packets hang the ring, as
 *    hw/eip97.h §6.5 documents for the real engine.
 *
 * Model choices where the hardware behaviour is unconfirmed are marked
 * "model:" in eip97.c and eip97_pe.c.
 */
#ifndef OFL_SIM_EIP97_MODEL_H
#define OFL_SIM_EIP97_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

struct ofl_sim_eip97;

struct ofl_sim_eip97_params {
	uint64_t base, size;        /* register window (0x20000 for the EIP97 layout) */
	uint32_t rings;             /* HIA_OPTIONS rings (1..4); 0 = 4 */
	uint32_t ring_aics;         /* ring AICs answering the version scan; 0 = rings */
	uint32_t hwdataw;           /* bus width code (2 = 128 bit); 0 = 2 */
	uint32_t cfsize, rfsize;    /* FIFO sizes (log2 bus words); 0 = 5 */
	uint32_t algo_flags;        /* EIP96_OPTIONS; 0 = what the model computes */
	bool eip197_layout;         /* answer the EIP197 signatures (0x9fffc), nothing else */
	bool byte_swapped;          /* registers read byte-swapped until MST_CTRL is toggled */
	uint64_t dma_offset;        /* bus address - physical address (dma-ranges) */
	int node;                   /* DT node, -1 when built by a test */
};

/* Create the model and register its block. NULL on failure (overlap, out of memory, no OpenSSL). */
struct ofl_sim_eip97 *ofl_sim_eip97_create(struct ofl_sim *sim, const struct ofl_sim_eip97_params *p);

/* Digital twin: the model of an "inside-secure,safexcel-eip97*" DT node. */
int ofl_sim_eip97_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t errlen);

/* Introspection for tests and benchmarks. */
struct ofl_sim_eip97_stats {
	uint64_t packets;           /* packets completed (result written) */
	uint64_t bytes_in;          /* input bytes fetched */
	uint64_t errors;            /* packets completed with a non-zero error code */
	uint32_t last_error;        /* error code of the last failed packet */
	uint32_t hung;              /* the ring is hung: fatal error, or its packet holds the pipe */
	uint64_t resets;            /* DSE thread resets of the engine (DSE_THR_CTRL RESET_PE) */
	uint32_t in_pipe;           /* a packet is in the (one) pipe: fetched, not yet completed */
};
void ofl_sim_eip97_stats(struct ofl_sim_eip97 *m, uint32_t ring, struct ofl_sim_eip97_stats *out);

#endif /* OFL_SIM_EIP97_MODEL_H */
