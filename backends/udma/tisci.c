/* SPDX-License-Identifier: MIT */
/*
 * Channel and ring configuration through the DM firmware, as Linux
 * k3-udma.c does on a K3 whose tree names a TI-SCI system controller
 * (`ti,sci`): TI-SCI messages in their wire format (src/hw/tisci.h) over the
 * platform's firmware channel (ofl_fw_xfer(), src/platform). On a real K3
 * under Linux that channel does not exist in user space (the kernel's
 * ti_sci driver owns the mailbox) and the platform says so; the models'
 * world answers with a model of the DM firmware.
 *
 * What is sent is what the registers path writes (engine.c reg_chan_cfg(),
 * reg_ring_cfg()), in the messages and valid masks Linux uses for memcpy
 * (../shared/hw/udma.md §5.2, §5.3, §7; k3-udma.c
 * udma_tisci_m2m_channel_config(), bcdma_tisci_m2m_channel_config(),
 * navss_psil_pair(); k3-ringacc.c k3_ringacc_ring_cfg_sci(),
 * k3_ringacc_ring_reset_sci()).
 */
#include <stdio.h>
#include <string.h>

#include "hw/tisci.h"
#include "udma.h"

/* A request of `type` in msg: the header's type and flags (the channel fills host and seq). */
static void hdr(uint8_t *msg, uint16_t type)
{
	memset(msg, 0, TISCI_MSG_MAX);
	tisci_put16(msg, TISCI_HDR_TYPE, type);
	tisci_put32(msg, TISCI_HDR_FLAGS, TISCI_FLAG_REQ_ACK_ON_PROCESSED);
}

static int send(struct udma_engine *e, uint8_t *msg, size_t len, const char *what, uint32_t index,
		char *why, size_t wl)
{
	char w[OFL_REASON_LEN];
	int r = ofl_fw_xfer(e->sci, msg, len, TISCI_MSG_MAX, w, sizeof(w));

	if (r < 0 && why)
		snprintf(why, wl, "TI-SCI %s for %u: %s", what, index, w);
	return r;
}

static int sci_chan_cfg(struct udma_engine *e, uint32_t ch, uint32_t burst, uint32_t cq, char *why,
			size_t wl)
{
	uint8_t m[TISCI_MSG_MAX];
	uint32_t bvalid = burst ? TISCI_CH_V_BURST_SIZE : 0;
	int r;

	hdr(m, TISCI_MSG_RM_UDMAP_TX_CH_CFG);
	tisci_put16(m, TISCI_TX_NAV_ID, e->sci_dev_id);
	tisci_put16(m, TISCI_TX_INDEX, (uint16_t)ch);
	tisci_put8(m, TISCI_TX_BURST_SIZE, (uint8_t)burst);
	if (e->bcdma) { /* a block-copy channel: no ring, fetch size, channel type or pairing */
		tisci_put32(m, TISCI_TX_VALID, TISCI_BCHAN_MEMCPY_VALID | bvalid);
		tisci_put8(m, TISCI_TX_EXTENDED_CH_TYPE, 1);
		return send(e, m, TISCI_TX_LEN, "TX_CH_CFG of bchan", ch, why, wl);
	}
	tisci_put32(m, TISCI_TX_VALID, TISCI_TCHAN_MEMCPY_VALID | bvalid);
	tisci_put8(m, TISCI_TX_ATYPE, e->atype);
	tisci_put8(m, TISCI_TX_CHAN_TYPE, K3_CHAN_TYPE_3P_BCOPY_PBRR);
	tisci_put16(m, TISCI_TX_FETCH_SIZE, 4); /* words: the 16-byte TR descriptor header */
	tisci_put16(m, TISCI_TX_CQ_QNUM, (uint16_t)cq);
	if ((r = send(e, m, TISCI_TX_LEN, "TX_CH_CFG of tchan", ch, why, wl)) < 0)
		return r;
	hdr(m, TISCI_MSG_RM_UDMAP_RX_CH_CFG);
	tisci_put32(m, TISCI_RX_VALID, TISCI_RCHAN_MEMCPY_VALID | bvalid);
	tisci_put16(m, TISCI_RX_NAV_ID, e->sci_dev_id);
	tisci_put16(m, TISCI_RX_INDEX, (uint16_t)ch);
	tisci_put16(m, TISCI_RX_FETCH_SIZE, 4);
	tisci_put16(m, TISCI_RX_CQ_QNUM, (uint16_t)cq);
	tisci_put8(m, TISCI_RX_ATYPE, e->atype);
	tisci_put8(m, TISCI_RX_CHAN_TYPE, K3_CHAN_TYPE_3P_BCOPY_PBRR);
	tisci_put8(m, TISCI_RX_BURST_SIZE, (uint8_t)burst);
	if ((r = send(e, m, TISCI_RX_LEN, "RX_CH_CFG of rchan", ch, why, wl)) < 0)
		return r;
	/* PSI-L pairing against the parent NAVSS (udma.md §5.2 step 8) */
	hdr(m, TISCI_MSG_RM_PSIL_PAIR);
	tisci_put32(m, TISCI_PSIL_NAV_ID, e->navss_dev_id);
	tisci_put32(m, TISCI_PSIL_SRC, e->psil_base + ch);
	tisci_put32(m, TISCI_PSIL_DST, (e->psil_base + ch) | K3_PSIL_DST_THREAD);
	return send(e, m, TISCI_PSIL_LEN, "PSIL_PAIR of channel", ch, why, wl);
}

/* RING_CFG of `ring` on the ring's owner: the BCDMA itself, or the UDMA's ring accelerator. */
static void ring_msg(const struct udma_engine *e, uint8_t *m, uint32_t ring, uint32_t valid)
{
	hdr(m, TISCI_MSG_RM_RING_CFG);
	tisci_put32(m, TISCI_RING_VALID, valid);
	tisci_put16(m, TISCI_RING_NAV_ID, e->bcdma ? e->sci_dev_id : e->ra_dev_id);
	tisci_put16(m, TISCI_RING_INDEX, (uint16_t)ring);
}

static int sci_ring_cfg(struct udma_engine *e, uint32_t ring, uint64_t base, uint32_t count,
			uint32_t mode, char *why, size_t wl)
{
	const uint32_t all = TISCI_RING_V_ADDR_LO | TISCI_RING_V_ADDR_HI | TISCI_RING_V_COUNT |
			     TISCI_RING_V_MODE | TISCI_RING_V_SIZE | TISCI_RING_V_ASEL;
	uint8_t m[TISCI_MSG_MAX];
	/* BCDMA ring bases carry ASEL above the 48 address bits (hw/k3_udma.h §1.5) */
	uint64_t addr = e->bcdma ? base & K3_ADDR_MASK : base;

	ring_msg(e, m, ring, all);
	tisci_put32(m, TISCI_RING_ADDR_LO, (uint32_t)addr);
	tisci_put32(m, TISCI_RING_ADDR_HI, (uint32_t)(addr >> 32));
	tisci_put32(m, TISCI_RING_COUNT, count);
	tisci_put8(m, TISCI_RING_MODE, (uint8_t)mode);
	tisci_put8(m, TISCI_RING_SIZE, K3_RING_ELSIZE_8);
	tisci_put8(m, TISCI_RING_ASEL, e->bcdma ? (uint8_t)((base >> K3_ASEL_SHIFT) & 0xF) : 0);
	return send(e, m, TISCI_RING_LEN, "RING_CFG of ring", ring, why, wl);
}

static int sci_ring_reset(struct udma_engine *e, uint32_t ring, uint32_t count)
{
	uint8_t m[TISCI_MSG_MAX];

	ring_msg(e, m, ring, TISCI_RING_V_COUNT);
	tisci_put32(m, TISCI_RING_COUNT, count);
	return send(e, m, TISCI_RING_LEN, "RING_CFG (reset) of ring", ring, NULL, 0);
}

/* k3_ringacc_ring_reconfig_qmode_sci(): RING_CFG with MODE only. */
static int sci_ring_mode(struct udma_engine *e, uint32_t ring, uint32_t mode)
{
	uint8_t m[TISCI_MSG_MAX];

	ring_msg(e, m, ring, TISCI_RING_V_MODE);
	tisci_put8(m, TISCI_RING_MODE, (uint8_t)mode);
	return send(e, m, TISCI_RING_LEN, "RING_CFG (mode) of ring", ring, NULL, 0);
}

/* Linux udma_free_chan_resources(): PSIL_UNPAIR (UDMA), then k3_ringacc_ring_free(): RING_CFG all zero. */
static void sci_chan_free(struct udma_engine *e, uint32_t ch, uint32_t tx_ring, uint32_t cq_ring)
{
	uint8_t m[TISCI_MSG_MAX];
	char w[OFL_REASON_LEN];

	if (!e->bcdma) {
		hdr(m, TISCI_MSG_RM_PSIL_UNPAIR);
		tisci_put32(m, TISCI_PSIL_NAV_ID, e->navss_dev_id);
		tisci_put32(m, TISCI_PSIL_SRC, e->psil_base + ch);
		tisci_put32(m, TISCI_PSIL_DST, (e->psil_base + ch) | K3_PSIL_DST_THREAD);
		send(e, m, TISCI_PSIL_LEN, "PSIL_UNPAIR of channel", ch, NULL, 0);
	}
	sci_ring_cfg(e, tx_ring, 0, 0, 0, w, sizeof(w));
	if (!e->bcdma)
		sci_ring_cfg(e, cq_ring, 0, 0, 0, w, sizeof(w));
}

const struct udma_fw_ops udma_fw_tisci = {
	.name = "TI-SCI messages to the DM firmware",
	.chan_cfg = sci_chan_cfg,
	.ring_cfg = sci_ring_cfg,
	.ring_reset = sci_ring_reset,
	.ring_mode = sci_ring_mode,
	.chan_free = sci_chan_free,
};
