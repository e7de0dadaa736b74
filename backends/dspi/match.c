/* SPDX-License-Identifier: MIT */
/*
 * The NXP DSPI engine's device-tree match table (Linux spi-fsl-dspi.c
 * fsl_dspi_dt_ids with devtype_data[], from the devtype list of hw/dspi.h
 * that the model shares) and its policy rules: the transfer mode Linux uses
 * for the devtype, and what follows from it (a PIO mode does no DMA, so
 * there is no cache maintenance and any alignment goes).
 */
#include <stdio.h>
#include <string.h>

#include "dspi.h"

#define DSPI_ROW(c, n, m, fifo, factor, nctar, xspi, target)                                      \
	{ c, &(const struct dspi_row){                                                           \
		.hdr = { .kind = "dspi", .source = "Linux spi-fsl-dspi.c devtype_data[" n "]" },  \
		.t = DSPI_DEVTYPE_INIT(c, n, m, fifo, factor, nctar, xspi, target) } },

const struct ofl_dt_id dspi_match[] = {
	DSPI_DEVTYPES(DSPI_ROW)
	{ NULL, NULL },
};

static const char *mode_name(enum dspi_trans_mode m)
{
	switch (m) {
	case DSPI_TRANS_XSPI: return "xspi-pio";
	case DSPI_TRANS_DMA: return "dma";
	case DSPI_TRANS_EOQ: return "eoq-pio";
	case DSPI_TRANS_TCFQ: return "tcfq-pio";
	}
	return "?";
}

void dspi_policy(const struct ofl_policy_in *in, struct ofl_policy *p, struct ofl_policy_req *req)
{
	const struct dspi_row *row = dspi_row_of(in->match);
	const struct dspi_devtype *t = &row->t;
	enum dspi_trans_mode mode = t->mode;
	const char *src = row->hdr.source;
	uint32_t ncs = 0;

	OFL_UNUSED(req);
	if (t->target_source && ofl_dt_has_prop(in->fdt, in->node, "spi-slave")) {
		mode = DSPI_TRANS_DMA;
		src = t->target_source;
	}
	p->caps = OFFLOAD_CAP_SPI;
	ofl_strlcpy(p->transfer_mode, mode_name(mode), sizeof(p->transfer_mode));
	ofl_dt_prop_u32(in->fdt, in->node, "spi-num-chipselects", &ncs);
	ofl_reason_set(p->transfer_reason, sizeof(p->transfer_reason),
		       "%s: %s, FIFO %u entries, max SCK = clock/%u, %u CTARs; %u native chip selects "
		       "(spi-num-chipselects)", src,
		       mode == DSPI_TRANS_XSPI ? "XSPI mode, the CPU polls the FIFOs (PUSHR/POPR)"
		       : mode == DSPI_TRANS_DMA ? "DMA mode through the eDMA channels in dmas"
						: "PIO mode",
		       t->fifo_size, t->max_clock_factor, t->num_ctar, ncs);
	p->threshold_bytes = 0;
	ofl_reason_set(p->threshold_reason, sizeof(p->threshold_reason),
		       "SPI has no CPU fallback: every transfer goes to the controller");
	p->burst_bytes = 0;
	p->best_tpl = -1;
	p->align_bytes = 1;
	if (mode != DSPI_TRANS_DMA) {
		ofl_reason_set(p->burst_reason, sizeof(p->burst_reason),
			       "%s: no DMA bursts, the CPU moves up to %u FIFO entries per batch",
			       mode_name(mode), t->fifo_size);
		ofl_reason_set(p->align_reason, sizeof(p->align_reason),
			       "PIO: words are pushed one at a time, any alignment");
		p->cache_mode = OFFLOAD_CACHE_COHERENT;
		ofl_reason_set(p->cache_reason, sizeof(p->cache_reason),
			       "no DMA in %s: nothing to maintain, so DMA-buffer coherency cannot change SPI "
			       "throughput (1845.2 vs 1846.5 kbps measured in XSPI mode for \"spi: "
			       "spi-fsl-dspi: Use non-coherent memory for DMA\", 2025; docs/policy.md §2)",
			       mode_name(mode));
		return;
	}
	/* DMA mode: the cache mode the generic rules derived from coherency stands */
	ofl_reason_set(p->burst_reason, sizeof(p->burst_reason),
		       "DMA mode: bursts are the eDMA controller's (dmas), not the DSPI's");
	ofl_reason_set(p->align_reason, sizeof(p->align_reason),
		       "Linux copies through its own DMA buffer: any alignment");
}
