/* SPDX-License-Identifier: MIT */
/*
 * The firmware hook for a simulated K3 whose device tree names a TI-SCI
 * system controller (`ti,sci`): as on a real K3 under Linux, the models
 * firewall the channel and ring configuration registers, and the library
 * hands the configuration to the (simulated) DM firmware with the fields of
 * the TI-SCI messages Linux sends for memcpy (hw/k3_udma.h §5.2-§5.3, §7):
 * RM_RING_CFG (0x1110), RM_UDMAP_TX_CH_CFG (0x1205) / RX_CH_CFG (0x1215) with
 * the burst under valid bit 14, PSIL_PAIR (0x1280). On real hardware no
 * user-space TI-SCI client exists; a platform that has one plugs it in the
 * same way.
 */
#include <stdlib.h>

#include "sim/k3_models.h"
#include "udma.h"

/* TI-SCI RM_RING_CFG valid bits (§7): ADDR_LO 0, ADDR_HI 1, COUNT 2, MODE 3, SIZE 4, ASEL 7. */
#define TISCI_RING_ALL 0x1Fu
#define TISCI_RING_COUNT K3_BIT(2)
#define TISCI_RING_ASEL K3_BIT(7)

static struct ofl_sim_udma *model(const struct udma_engine *e)
{
	return e->fw_arg;
}

static int sci_chan_cfg(struct udma_engine *e, uint32_t ch, uint32_t burst, uint32_t cq, char *why,
			size_t wl)
{
	/* the register image of what TX_CH_CFG/RX_CH_CFG carry: chan type 12, fetch 4 words, burst */
	uint32_t cfg = K3_CFG_CHAN_TYPE(K3_CHAN_TYPE_3P_BCOPY_PBRR) | K3_CFG_BURST(burst);
	int r;

	OFL_UNUSED(why);
	OFL_UNUSED(wl);
	if (e->bcdma) /* BCDMA bchan: valid 0x10001 (+ burst): no ring, fetch size or pairing */
		return ofl_sim_udma_fw_chan_cfg(model(e), 'b', ch, cfg, 0, 0);
	cfg |= K3_CFG_FETCH_SIZE(4) | K3_CFG_ATYPE(e->atype);
	r = ofl_sim_udma_fw_chan_cfg(model(e), 't', ch, cfg, cq, (e->psil_base + ch) | K3_PSIL_DST_THREAD);
	if (r == 0)
		r = ofl_sim_udma_fw_chan_cfg(model(e), 'r', ch, cfg, cq, e->psil_base + ch);
	return r;
}

static int sci_ring_cfg(struct udma_engine *e, uint32_t ring, uint64_t base, uint32_t count,
			uint32_t mode, char *why, size_t wl)
{
	OFL_UNUSED(why);
	OFL_UNUSED(wl);
	if (e->bcdma)
		return ofl_sim_udma_fw_dring_cfg(model(e), ring, TISCI_RING_ALL | TISCI_RING_ASEL,
						 base & K3_ADDR_MASK, count,
						 (uint8_t)((base >> K3_ASEL_SHIFT) & 0xF));
	return ofl_sim_ringacc_fw_ring_cfg(ofl_sim_udma_ringacc(model(e)), ring, TISCI_RING_ALL, base,
					   count, (uint8_t)mode, K3_RING_ELSIZE_8);
}

static int sci_ring_reset(struct udma_engine *e, uint32_t ring, uint32_t count)
{
	if (e->bcdma)
		return ofl_sim_udma_fw_dring_cfg(model(e), ring, TISCI_RING_COUNT, 0, count, 0);
	return ofl_sim_ringacc_fw_ring_cfg(ofl_sim_udma_ringacc(model(e)), ring, TISCI_RING_COUNT, 0,
					   count, 0, 0);
}

const struct udma_fw_ops udma_fw_sim_tisci = {
	.name = "TI-SCI messages to the simulated DM firmware",
	.chan_cfg = sci_chan_cfg,
	.ring_cfg = sci_ring_cfg,
	.ring_reset = sci_ring_reset,
};
