/* SPDX-License-Identifier: MIT */
/*
 * src/policy: per-device DMA decisions from the device tree plus the SoC
 * capability table, each with a one-line reason naming the DT node/property
 * or the table entry (and the Linux match data it was taken from).
 */
#ifndef OFL_POLICY_H
#define OFL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include <offload/core.h>

#include "dt/dt.h"
#include "util/util.h"

/* Engine kinds found in device trees (bit positions for ofl_backend.engines). */
enum ofl_engine {
	OFL_ENGINE_NONE = 0,
	OFL_ENGINE_UDMA = 1,    /* K3 NAVSS UDMA-P */
	OFL_ENGINE_BCDMA = 2,   /* K3 DMSS BCDMA */
	OFL_ENGINE_PKTDMA = 3,  /* K3 DMSS PKTDMA */
	OFL_ENGINE_DSPI = 4,    /* NXP DSPI */
	OFL_ENGINE_EIP97 = 5,   /* SafeXcel EIP97 */
	OFL_ENGINE_EIP197 = 6,  /* SafeXcel EIP197 */
	OFL_ENGINE_COUNT
};
#define OFL_ENGINE_BIT(e) (1u << (e))

/* DSPI transfer modes (Linux spi-fsl-dspi devtype trans_mode). */
enum ofl_dspi_mode { OFL_DSPI_XSPI, OFL_DSPI_DMA, OFL_DSPI_EOQ, OFL_DSPI_TCFQ };

/* K3 UDMA channel classes (TPL, "throughput level"), index of burst[]. */
enum ofl_udma_class { OFL_UDMA_NORMAL = 0, OFL_UDMA_H = 1, OFL_UDMA_UH = 2 };

/* One row of the SoC capability table, keyed by compatible. */
struct ofl_soc_entry {
	const char *compatible;
	enum ofl_engine engine;
	const char *source;        /* the Linux match data, e.g. "k3-udma.c j721e_main_data" */
	union {
		struct {
			bool memcpy;              /* Linux enables memcpy on this instance */
			bool burst_programmable;  /* match flags contain UDMA_FLAG_BURST_SIZE */
			uint16_t burst[3];        /* bytes per class [normal, H, UH]; 0 = Linux sends none */
			uint32_t psil_base;
			bool bcdma;               /* BCDMA (bchan block copy) */
			bool pktdma;
			uint8_t am654_tpl_quirk;  /* hard-coded TPL split: 0 none, else first normal channel */
		} udma;
		struct {
			enum ofl_dspi_mode mode;  /* what Linux uses for this devtype (host mode) */
			uint8_t fifo_size;        /* FIFO entries */
			uint8_t max_clock_factor; /* max SCK = fP / factor */
			uint8_t num_ctar;
			bool xspi_regs;           /* CTARE/SREX present */
			const char *target_source; /* devtype used with `spi-slave`, NULL = same */
		} dspi;
		struct {
			bool eip197;              /* EIP197 register layout expected */
		} eip;
	} u;
};

/* The capability table as a match list (data: struct ofl_soc_entry), and lookup. */
extern const struct ofl_dt_id ofl_soc_ids[];
const struct ofl_soc_entry *ofl_soc_lookup(const char *compatible);
/* The row a discovered node matched. */
static inline const struct ofl_soc_entry *ofl_soc_of(const struct ofl_dt_match *m)
{
	return (const struct ofl_soc_entry *)m->id->data;
}

/*
 * SoCs known to have an I/O-coherent interconnect, keyed by a compatible of
 * the root node or of the engine node. For `offloadctl doctor`: the policy
 * itself keeps the device tree's (safe) coherency decision.
 */
struct ofl_soc_coherent {
	const char *compatible;
	const char *soc;
	const char *source;
};
extern const struct ofl_soc_coherent ofl_soc_coherent_table[];
/* The row matching the root or node compatible lists, or NULL. */
const struct ofl_soc_coherent *ofl_soc_coherent_lookup(const void *fdt, int node);

/* Default offload thresholds (bytes) and where they come from. */
struct ofl_threshold_default {
	uint64_t bytes;
	const char *source;
};
extern const struct ofl_threshold_default ofl_threshold_memcpy, ofl_threshold_crypto;

/* Per-device decisions. */
struct ofl_policy {
	bool enabled;                      /* DT status okay here and on every ancestor */
	char enabled_reason[OFL_REASON_LEN];

	bool coherent;
	int coherent_node;                 /* deciding node offset, -1 if default */
	char coherent_path[OFL_DT_PATH_LEN]; /* its path, "" if default */
	char coherent_reason[OFL_REASON_LEN];

	bool soc_io_coherent;              /* capability table: SoC interconnect is I/O-coherent */
	char soc_io_coherent_reason[OFL_REASON_LEN];

	enum offload_cache_mode cache_mode;
	char cache_reason[OFL_REASON_LEN];

	uint32_t burst_bytes;              /* for memcpy on the best channel class */
	uint16_t burst_by_tpl[3];          /* UDMA: Linux's per class [normal, H, UH], 0 = none sent */
	int best_tpl;                      /* class memcpy uses, -1 = n/a */
	bool burst_programmed;             /* the library/firmware programs it (vs HW default) */
	char burst_reason[OFL_REASON_LEN];

	uint32_t align_bytes;
	char align_reason[OFL_REASON_LEN];

	uint64_t threshold_bytes;
	char threshold_reason[OFL_REASON_LEN];

	char transfer_mode[24];
	char transfer_reason[OFL_REASON_LEN];

	bool reg_ok;                       /* reg[0] translated to a CPU address */
	uint64_t reg_addr, reg_size;
	char reg_reason[OFL_REASON_LEN];   /* how, or why not */

	uint32_t caps;                     /* OFFLOAD_CAP_* this device offers by policy */
	const struct ofl_soc_entry *soc;
};

/* Compute the policy of a discovered engine node. Returns 0 or -errno. */
int ofl_policy_compute(const void *fdt, const struct ofl_dt_match *m, struct ofl_policy *out);

#endif /* OFL_POLICY_H */
