/* SPDX-License-Identifier: MIT */
/*
 * The SoC capability table. Every row names the Linux match data it
 * restates (docs/policy.md §3-§6 gives the evidence):
 *
 *  - K3 UDMA/BCDMA/PKTDMA: drivers/dma/ti/k3-udma.c `udma_of_match` and
 *    `bcdma_of_match`/`pktdma_of_match`. Burst sizes are
 *    the TI-SCI codes 1/2/3 = 64/128/256 B of `burst_size[]`.
 *  - DSPI: drivers/spi/spi-fsl-dspi.c `fsl_dspi_dt_ids` and `devtype_data[]`
 *    and `devtype_data[]`. "fsl,ls1088a-dspi" has no driver entry
 *    and so is deliberately absent: such nodes match their
 *    "fsl,ls1021a-v1.0-dspi" fallback, as in Linux.
 *  - SafeXcel: drivers/crypto/inside-secure/safexcel.c
 *    `safexcel_of_match_table`. The RNG
 *    "inside-secure,safexcel-eip76" is a different IP and is not listed.
 */
#include <errno.h>
#include <libfdt.h>
#include <string.h>

#include "policy/policy.h"

#define UDMA(c, src, mc, prog, b0, b1, b2, psil, bc, pk, quirk)                                  \
	{ c, &(const struct ofl_soc_entry){ .compatible = c, .engine = (bc) ? OFL_ENGINE_BCDMA : (pk) ? OFL_ENGINE_PKTDMA          \
								     : OFL_ENGINE_UDMA,          \
	  .source = "Linux k3-udma.c " src,                                                      \
	  .u.udma = { .memcpy = mc, .burst_programmable = prog, .burst = { b0, b1, b2 },         \
		      .psil_base = psil, .bcdma = bc, .pktdma = pk, .am654_tpl_quirk = quirk } } }

#define DSPI(c, src, m, fifo, factor, nctar, xspi, target)                                        \
	{ c, &(const struct ofl_soc_entry){ .compatible = c, .engine = OFL_ENGINE_DSPI,                                            \
	  .source = "Linux spi-fsl-dspi.c devtype_data[" src "]",                                \
	  .u.dspi = { .mode = m, .fifo_size = fifo, .max_clock_factor = factor,                  \
		      .num_ctar = nctar, .xspi_regs = xspi, .target_source = target } } }

#define EIP(c, src, e197)                                                                         \
	{ c, &(const struct ofl_soc_entry){ .compatible = c, .engine = (e197) ? OFL_ENGINE_EIP197 : OFL_ENGINE_EIP97,              \
	  .source = "Linux safexcel.c " src, .u.eip = { .eip197 = e197 } } }

const struct ofl_dt_id ofl_soc_ids[] = {
	/* K3 NAVSS UDMA-P: flags 0 (am654) / J7 class with BURST_SIZE (j721e). */
	UDMA("ti,am654-navss-main-udmap", "am654_main_data", true, false, 64, 64, 0, 0x1000, false,
	     false, 8),
	UDMA("ti,am654-navss-mcu-udmap", "am654_mcu_data", false, false, 64, 64, 0, 0x6000, false,
	     false, 2),
	UDMA("ti,j721e-navss-main-udmap", "j721e_main_data", true, true, 64, 256, 256, 0x1000, false,
	     false, 0),
	UDMA("ti,j721e-navss-mcu-udmap", "j721e_mcu_data", false, true, 64, 128, 0, 0x6000, false,
	     false, 0),
	/* K3 DMSS BCDMA / PKTDMA and the camera BCDMAs (flags 0: no burst programming). */
	UDMA("ti,am64-dmss-bcdma", "am64_bcdma_data", true, true, 64, 0, 0, 0x2000, true, false, 0),
	UDMA("ti,am64-dmss-pktdma", "am64_pktdma_data", false, true, 64, 0, 0, 0x1000, false, true, 0),
	UDMA("ti,am62a-dmss-bcdma-csirx", "am62a_bcdma_csirx_data", false, false, 64, 0, 0, 0x3100,
	     true, false, 0),
	UDMA("ti,j721s2-dmss-bcdma-csi", "j721s2_bcdma_csi_data", false, false, 64, 0, 0, 0x2000, true,
	     false, 0),
	UDMA("ti,j722s-dmss-bcdma-csi", "j722s_bcdma_csi_data", false, false, 64, 0, 0, 0x3100, true,
	     false, 0),

	/* NXP DSPI: host-mode transfer mode, FIFO entries, max clock factor, CTARs. */
	DSPI("fsl,vf610-dspi", "VF610", OFL_DSPI_DMA, 4, 2, 4, false, NULL),
	DSPI("fsl,ls1021a-v1.0-dspi", "LS1021A", OFL_DSPI_XSPI, 4, 8, 4, true, NULL),
	DSPI("fsl,ls1012a-dspi", "LS1012A", OFL_DSPI_XSPI, 16, 8, 4, true, NULL),
	DSPI("fsl,ls1028a-dspi", "LS1028A", OFL_DSPI_XSPI, 4, 8, 4, true, NULL),
	DSPI("fsl,ls1043a-dspi", "LS1043A", OFL_DSPI_XSPI, 16, 8, 4, true, NULL),
	DSPI("fsl,ls1046a-dspi", "LS1046A", OFL_DSPI_XSPI, 16, 8, 4, true, NULL),
	DSPI("fsl,ls2080a-dspi", "LS2080A", OFL_DSPI_XSPI, 4, 8, 4, true, NULL),
	DSPI("fsl,ls2085a-dspi", "LS2085A", OFL_DSPI_XSPI, 4, 8, 4, true, NULL),
	DSPI("fsl,lx2160a-dspi", "LX2160A", OFL_DSPI_XSPI, 4, 8, 4, true, NULL),
	DSPI("nxp,s32g2-dspi", "S32G", OFL_DSPI_XSPI, 5, 1, 6, true,
	     "Linux spi-fsl-dspi.c devtype_data[S32G_TARGET]"),

	/* Inside Secure SafeXcel (the compatible picks the firmware, not the layout). */
	EIP("inside-secure,safexcel-eip97ies", "EIP97IES_MRVL", false),
	EIP("inside-secure,safexcel-eip197b", "EIP197B_MRVL", true),
	EIP("inside-secure,safexcel-eip197d", "EIP197D_MRVL", true),
	EIP("inside-secure,safexcel-eip197c-mxl", "EIP197C_MXL", true),
	EIP("inside-secure,safexcel-eip97", "EIP97IES_MRVL (deprecated alias)", false),
	EIP("inside-secure,safexcel-eip197", "EIP197B_MRVL (deprecated alias)", true),

	{ NULL, NULL },
};

const struct ofl_soc_entry *ofl_soc_lookup(const char *compatible)
{
	const struct ofl_dt_id *const lists[] = { ofl_soc_ids };
	const struct ofl_dt_id *e = ofl_dt_id_lookup(lists, 1, compatible, NULL);

	return e ? e->data : NULL;
}

/*
 * Armada 37xx: "arm64: dts: marvell: armada-37xx: mark EIP97 as
 * dma-coherent" (A. J. Bajkowski, 2026-05-24, applied to mvebu/dt64) states
 * the SoC has a coherent bus like Armada 7k/8k; with the property, EIP97
 * throughput rose 3-326 % depending on algorithm and size (docs/policy.md §7).
 * The root of Armada 37xx boards carries "marvell,armada3710" or
 * "marvell,armada3720" with "marvell,armada3700"; newer crypto nodes carry
 * "marvell,armada-3700-crypto".
 */
#define A37XX_SRC                                                                                  \
	"patch \"arm64: dts: marvell: armada-37xx: mark EIP97 as dma-coherent\" (A. J. Bajkowski, " \
	"LKML 2026-05-24; maintainer reply: applied to mvebu dt64; not in a release as of 6.12): " \
	"Armada 37xx has a coherent bus like 7k/8k; EIP97 throughput +3..326 % with it "          \
	"(docs/policy.md §7)"

const struct ofl_soc_coherent ofl_soc_coherent_table[] = {
	{ "marvell,armada3700", "Marvell Armada 37xx", A37XX_SRC },
	{ "marvell,armada3710", "Marvell Armada 37xx", A37XX_SRC },
	{ "marvell,armada3720", "Marvell Armada 37xx", A37XX_SRC },
	{ "marvell,armada-3700-crypto", "Marvell Armada 37xx", A37XX_SRC },
	{ NULL, NULL, NULL },
};

const struct ofl_soc_coherent *ofl_soc_coherent_lookup(const void *fdt, int node)
{
	for (const struct ofl_soc_coherent *s = ofl_soc_coherent_table; s->compatible; s++)
		if (fdt_node_check_compatible(fdt, 0, s->compatible) == 0 ||
		    fdt_node_check_compatible(fdt, node, s->compatible) == 0)
			return s;
	return NULL;
}

/*
 * Offload thresholds: defaults until `offloadctl bench` measures the board.
 * No ARM SoC dmaengine-vs-CPU crossover is published (docs/policy.md §5), so the
 * memcpy default is the synchronous break-even measured elsewhere.
 */
const struct ofl_threshold_default ofl_threshold_memcpy = {
	16384,
	"default: synchronous copy offload breaks even at 8-16 KiB (Intel DTO README on Sapphire "
	"Rapids; an I/OAT study from 16 KB); no ARM figure is published (docs/policy.md §5); "
	"measure with `offloadctl bench memcpy`",
};

const struct ofl_threshold_default ofl_threshold_crypto = {
	2048,
	"default: an EIP93 behind the Linux crypto API was 16x slower than software at 16 B and "
	"4.2x faster at 8 KiB (tcrypt on MT7621, mtk-eip93 issue 14; docs/policy.md §5); "
	"measure with `offloadctl bench cipher`",
};
