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

#define OFL_REASON_LEN 200

/* DSPI transfer modes (Linux spi-fsl-dspi devtype trans_mode). */
enum ofl_dspi_mode { OFL_DSPI_XSPI, OFL_DSPI_DMA, OFL_DSPI_EOQ, OFL_DSPI_TCFQ };

/* One row of the SoC capability table, keyed by compatible. */
struct ofl_soc_entry {
	const char *compatible;
	enum ofl_engine engine;
	const char *source;        /* e.g. "k3-udma.c j721e_main_data" */
	bool io_coherent_soc;      /* SoC known to have an I/O-coherent interconnect (doctor) */
	const char *io_coherent_source;
	union {
		struct {
			bool memcpy;              /* Linux enables memcpy on this instance */
			bool burst_programmable;  /* match flags contain BURST_SIZE */
			uint16_t burst[3];        /* bytes for TPL [normal, H, UH]; 0 = not configured */
			uint32_t psil_base;
			bool bcdma;               /* BCDMA (bchan block copy) */
			bool pktdma;
			uint8_t am654_tpl_quirk;  /* hard-coded TPL split: 0 none, else first normal channel */
		} udma;
		struct {
			enum ofl_dspi_mode mode;  /* what Linux uses for this devtype */
			uint8_t fifo_size;        /* FIFO entries */
			uint8_t max_clock_factor; /* max SCK = fP / factor */
			uint8_t num_ctar;
			bool xspi_regs;           /* CTARE/SREX present */
		} dspi;
		struct {
			bool eip197;              /* EIP197 register layout expected */
		} eip;
	} u;
};

/* The capability table (NULL-compatible terminated) and lookup. */
extern const struct ofl_soc_entry ofl_soc_table[];
const struct ofl_soc_entry *ofl_soc_lookup(const char *compatible);

/* Per-device decisions. */
struct ofl_policy {
	bool coherent;
	int coherent_node;                 /* deciding node offset, -1 if default */
	char coherent_reason[OFL_REASON_LEN];

	enum offload_cache_mode cache_mode;
	char cache_reason[OFL_REASON_LEN];

	uint32_t burst_bytes;              /* for memcpy on the best channel class */
	uint16_t burst_by_tpl[3];          /* UDMA: per class [normal, H, UH], 0 = n/a */
	bool burst_programmed;             /* the library/firmware programs it (vs HW default) */
	char burst_reason[OFL_REASON_LEN];

	uint32_t align_bytes;
	char align_reason[OFL_REASON_LEN];

	uint64_t threshold_bytes;
	char threshold_reason[OFL_REASON_LEN];

	char transfer_mode[24];
	char transfer_reason[OFL_REASON_LEN];

	uint32_t caps;                     /* OFFLOAD_CAP_* this device offers by policy */
	bool enabled;                      /* DT status okay */
	const struct ofl_soc_entry *soc;
};

/* Compute the policy of a discovered engine node. Returns 0 or -errno. */
int ofl_policy_compute(const void *fdt, const struct ofl_dt_match *m, struct ofl_policy *out);

#endif /* OFL_POLICY_H */
