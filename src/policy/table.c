/* SPDX-License-Identifier: MIT */
/*
 * The generic tables of src/policy: the SoCs whose interconnect is known to
 * be I/O-coherent (for `offloadctl doctor`) and the default offload
 * thresholds. The engines' own tables are in backends/<engine>/match.c.
 */
#include <errno.h>
#include <libfdt.h>
#include <string.h>

#include "policy/policy.h"

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
