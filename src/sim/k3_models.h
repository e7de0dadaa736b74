/* SPDX-License-Identifier: MIT */
/*
 * Register-level models of the TI K3 NAVSS ring accelerator and of the
 * UDMA-P / BCDMA engines (§3-§5, behaviour per §5.6; sources by topic:
 * src/hw/k3_udma.h).
 *
 * What the models implement, so that backends/udma drives them with the
 * register and descriptor sequence the Linux driver uses:
 *  - GCFG with REVISION and CAP0..CAP4 in the UDMA or BCDMA layout;
 *  - channel real-time registers: CTL (EN, TDOWN, PAUSE, FTDOWN, ERROR),
 *    write-to-subtract PCNT/BCNT/SBCNT and, on UDMA channels, the PEER
 *    registers including PEER_BCNT;
 *  - channel configuration (TCFG/RCFG/bchan CFG with CHAN_TYPE, FETCH_SIZE,
 *    BURST_SIZE; TCQ/RCQ; THREAD) as U-Boot writes it when no DM firmware
 *    runs, or firewalled (writes dropped and counted) with a firmware entry
 *    point that stands in for TI-SCI, as on K3 under Linux;
 *  - the NAVSS ring accelerator in RING mode (memory + doorbell +
 *    occupancy) and MESSAGE mode (FIFO head/tail/peek windows), and the
 *    DMSS dual rings (FDB/FOCC/RDB/ROCC with the teardown COMP/ACK bits);
 *  - CPPI 5.0 TR descriptors with type-15 TRs, the full 4-D move with
 *    separate source and destination counts and pitches, TR responses,
 *    the teardown completion marker; bad descriptors, ring overflow and
 *    addresses outside memory produce TR response codes, not crashes.
 *
 * Model choices where the hardware behaviour is unconfirmed are marked
 * "model:" in k3_ringacc.c and k3_udma.c.
 */
#ifndef OFL_SIM_K3_MODELS_H
#define OFL_SIM_K3_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

/* ------------------------------------------------------------- ring accelerator */

struct ofl_sim_ringacc;

struct ofl_sim_ringacc_params {
	uint32_t num_rings;                    /* ti,num-rings */
	uint64_t rt, rt_size;                  /* reg "rt" */
	uint64_t fifos, fifos_size;            /* reg "fifos" */
	uint64_t proxy_gcfg, proxy_gcfg_size;  /* reg "proxy_gcfg" (0 = absent) */
	uint64_t proxy_target, proxy_target_size;
	uint64_t cfg, cfg_size;                /* reg "cfg" (0 = absent: rings configured by firmware only) */
	uint64_t dma_offset;                   /* bus address - physical address (dma-ranges) */
	bool cfg_firewalled;                   /* DM firmware owns "cfg": CPU writes are dropped */
	uint32_t sci_dev_id;                   /* its TI-SCI device ID (ti,sci-dev-id), 0 = none */
	/*
	 * AM65x SR1.0: the UDMA keeps its own 21-bit occupancy of each ring it
	 * fetches from, which a ring reset does not clear (Linux k3-ringacc.c
	 * k3_ringacc_ring_reset_dma(), applied on SR1.0 by k3_ringacc_socinfo).
	 */
	bool sr1_udma_ring_state;
	int node;                              /* DT node, -1 when built by a test */
};

struct ofl_sim_ringacc *ofl_sim_ringacc_create(struct ofl_sim *sim,
					       const struct ofl_sim_ringacc_params *p);

/* The hardware side, used by the DMA model (and tests). */
/* Pop one element for the DMA. 0, -ENOENT when empty, -EFAULT on a memory error. */
int ofl_sim_ringacc_hw_pop(struct ofl_sim_ringacc *ra, uint32_t ring, uint64_t *elem);
/* Push one element from the DMA. 0, -ENOSPC when full, -EINVAL bad ring, -EFAULT memory error. */
int ofl_sim_ringacc_hw_push(struct ofl_sim_ringacc *ra, uint32_t ring, uint64_t elem);
uint32_t ofl_sim_ringacc_occ(struct ofl_sim_ringacc *ra, uint32_t ring);
/* Elements dropped because a CPU push found the ring full. */
uint32_t ofl_sim_ringacc_overflows(struct ofl_sim_ringacc *ra, uint32_t ring);

/*
 * The chip ID register of a K3 SoC (CTRLMMR_WKUP_JTAGID, compatible
 * "ti,am654-chipid", Linux drivers/soc/ti/k3-socinfo.c): one read-only
 * 32-bit register at `phys` answering `jtagid`; writes are ignored.
 * NULL when the block cannot be added.
 */
struct ofl_sim_model *ofl_sim_k3_chipid_create(struct ofl_sim *sim, uint64_t phys, uint64_t size,
					       uint32_t jtagid, int node);

/* Does DM firmware own the ring configuration registers (the tree names ti,sci)? */
bool ofl_sim_ringacc_firewalled(const struct ofl_sim_ringacc *ra);
const struct ofl_sim_ringacc_params *ofl_sim_ringacc_params(const struct ofl_sim_ringacc *ra);

/*
 * Firmware side (stands in for TI-SCI RING_CFG, 0x1110): configure ring
 * `ring` even when "cfg" is firewalled. valid: bit0 ADDR_LO, bit1 ADDR_HI,
 * bit2 COUNT, bit3 MODE, bit4 SIZE (hw/k3_udma.h §7). Setting COUNT resets the ring.
 */
int ofl_sim_ringacc_fw_ring_cfg(struct ofl_sim_ringacc *ra, uint32_t ring, uint32_t valid,
				uint64_t addr, uint32_t count, uint8_t mode, uint8_t size_code);

/*
 * The DMA model registers to hear about CPU pushes (doorbells, tail-window
 * writes) and overflowing CPU pushes. Called without the ring lock held.
 */
void ofl_sim_ringacc_listen(struct ofl_sim_ringacc *ra,
			    void (*pushed)(void *arg, uint32_t ring),
			    void (*overflow)(void *arg, uint32_t ring, uint64_t elem), void *arg);

/* ------------------------------------------------------------- UDMA / BCDMA */

struct ofl_sim_udma;

struct ofl_sim_udma_params {
	bool bcdma;                 /* BCDMA (DMSS, block-copy channels, DMA rings) instead of UDMA */
	/* register regions (physical address, size); size 0 = not in the device tree */
	uint64_t gcfg, gcfg_size;
	uint64_t tchanrt, tchanrt_size;
	uint64_t rchanrt, rchanrt_size;
	uint64_t bchanrt, bchanrt_size;  /* BCDMA */
	uint64_t ringrt, ringrt_size;    /* BCDMA */
	uint64_t ring, ring_size;        /* BCDMA ring cfg */
	uint64_t tchan, tchan_size;      /* channel configuration */
	uint64_t rchan, rchan_size;
	uint64_t bchan, bchan_size;      /* BCDMA */
	uint64_t rflow, rflow_size;      /* UDMA */
	/* what GCFG reports (hw/k3_udma.h §2.1 / §3.1) */
	uint32_t tchan_cnt, echan_cnt, rchan_cnt, rflow_cnt;
	uint32_t hchan_cnt, uchan_cnt;   /* UDMA CAP3: HCHAN includes the UH channels */
	uint32_t bchan_cnt, hbchan_cnt, ubchan_cnt; /* BCDMA */
	uint32_t psil_base;              /* PSI-L thread base of the instance */
	struct ofl_sim_ringacc *ra;      /* UDMA: the NAVSS ring accelerator */
	uint64_t dma_offset;             /* bus address - physical address (dma-ranges) */
	bool cfg_firewalled;             /* DM firmware owns tchan/rchan/bchan/ring cfg */
	uint32_t sci_dev_id;             /* its TI-SCI device ID (ti,sci-dev-id), 0 = none */
	uint32_t navss_dev_id;           /* UDMA: its NAVSS's (PSI-L pairing), 0 = none */
	uint64_t psil_proxy;             /* UDMA: PSI-L configuration proxy (hw/k3_udma.h §3.7), 0 = not mapped */
	bool no_burst_field;             /* TCFG/RCFG have no BURST_SIZE (AM65x): writes ignored, reads 0 */
	/*
	 * DM firmware's board configuration (hw/k3_udma.h §6.1) for the host the
	 * tree names: bit i set = tchan / rchan i is this host's. Unknown
	 * (owned_known false): every channel is.
	 */
	bool owned_known;
	uint8_t tchan_owned[64], rchan_owned[64];
	int node;                        /* DT node, -1 when built by a test */
};

struct ofl_sim_udma *ofl_sim_udma_create(struct ofl_sim *sim, const struct ofl_sim_udma_params *p);

/*
 * Firmware side (the DM firmware model, k3_dmfw.c): write channel
 * configuration register `reg` (K3_TCFG, K3_TCQ, K3_THREAD, ... of
 * hw/k3_udma.h §3.3) of channel `index` even when the cfg regions are
 * firewalled. `which` is 't', 'r' or 'b'. -EINVAL for a channel or register
 * the engine does not have.
 */
int ofl_sim_udma_fw_write(struct ofl_sim_udma *u, char which, uint32_t index, uint32_t reg,
			  uint32_t val);
const struct ofl_sim_udma_params *ofl_sim_udma_params(const struct ofl_sim_udma *u);
/*
 * Firmware side: pair (TI CSL CSL_psilcfgCreateRoute()) or unpair (TI
 * Sciclient_rmPsilUnpair()) PSI-L source thread `src` with destination thread
 * `dst` of this UDMA's NAVSS by the PSI-L proxy's commands, each traced as the
 * firmware's. -EINVAL for a thread the engine does not have.
 */
int ofl_sim_udma_fw_psil(struct ofl_sim_udma *u, uint32_t src, uint32_t dst, bool pair);
/* Is channel `index` ('t' or 'r') the host's (always true without a known board configuration)? */
bool ofl_sim_udma_owned(const struct ofl_sim_udma *u, char which, uint32_t index);
/* BCDMA: TI-SCI RING_CFG for DMA ring `ring` (valid bits as for the RA). */
int ofl_sim_udma_fw_dring_cfg(struct ofl_sim_udma *u, uint32_t ring, uint32_t valid, uint64_t addr,
			      uint32_t count, uint8_t asel);

/* Introspection for tests and benchmarks. */
struct ofl_sim_udma_chan_stats {
	uint64_t descs;   /* descriptors processed */
	uint64_t bytes;   /* bytes moved */
	uint64_t bursts;  /* bus bursts issued at the channel's BURST_SIZE */
	uint32_t burst_bytes; /* burst in effect for the last descriptor */
	uint32_t errors;  /* non-zero TR responses written */
};
int ofl_sim_udma_chan_stats(struct ofl_sim_udma *u, char which, uint32_t index,
			    struct ofl_sim_udma_chan_stats *out);
/*
 * UDMA: are tchan `tchan` and rchan `rchan` a PSI-L pair the block copy can
 * run through (each THREAD register names the other, the source's peer and
 * credit are set, both threads enabled and RT-enabled)? 1 or 0; -EINVAL on a
 * BCDMA or for a channel the engine does not have.
 */
int ofl_sim_udma_paired(struct ofl_sim_udma *u, uint32_t tchan, uint32_t rchan);
/* CPU writes dropped because the cfg regions are firewalled. */
uint32_t ofl_sim_udma_firewall_drops(struct ofl_sim_udma *u);
/* Whether DM firmware owns the configuration (writes firewalled), and the engine's RA (UDMA). */
/*
 * Does DM firmware own this engine's configuration: the UDMA's own channel
 * configuration, or (UDMA with a separate ring accelerator) the rings'? Either
 * means configuration must go through the firmware entry points; a tree may
 * name ti,sci on the ring accelerator only (fuzz_sim found one).
 */
bool ofl_sim_udma_firewalled(const struct ofl_sim_udma *u);
struct ofl_sim_ringacc *ofl_sim_udma_ringacc(const struct ofl_sim_udma *u);

/* Models by DT node: create the model(s) of a UDMA/BCDMA node (and its RA). */
int ofl_sim_k3_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t errlen);

/*
 * The DM firmware of the world (k3_dmfw.c): decode the TI-SCI request
 * msg[0, req_len) (src/hw/tisci.h), apply it to the models it names by
 * TI-SCI device ID as register writes, and write the response header into
 * msg (ACK, or NACK with the reason in `why`). Returns 0 when a response
 * was written, -EINVAL when the request is too short or resp_cap cannot
 * hold a header.
 */
int ofl_sim_fw_xfer(struct ofl_sim *sim, uint8_t *msg, size_t req_len, size_t resp_cap, char *why,
		    size_t why_len);

#endif /* OFL_SIM_K3_MODELS_H */
