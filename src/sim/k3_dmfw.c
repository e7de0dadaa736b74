/* SPDX-License-Identifier: MIT */
/*
 * A model of the K3 DM firmware's resource manager, as far as a memcpy user
 * drives it: it decodes the TI-SCI messages of src/hw/tisci.h (Linux
 * drivers/firmware/ti_sci.h), finds the model the request names by its TI-SCI
 * device ID (ti,sci-dev-id), and writes the registers the message says it
 * programs, past the firewall that keeps them from the host:
 *  - RM_RING_CFG: the ring's RING_BA_LO / BA_HI / SIZE (ring accelerator or
 *    BCDMA DMA ring), the fields its valid bits name;
 *  - RM_UDMAP_TX_CH_CFG / RX_CH_CFG: TCHAN/RCHAN TCFG/RCFG and TCQ/RCQ
 *    (ti_sci.h: "to be programmed into the ... field of the channel's
 *    TCHAN_TCFG register"), or a BCDMA block-copy channel's CFG;
 *  - RM_PSIL_PAIR / UNPAIR: the TCHAN and RCHAN THREAD registers (ti_sci.h
 *    struct ti_sci_msg_psil_pair: transmit channels mapped to source threads
 *    get TCHAN_THRD_ID = the destination thread, receive channels mapped to
 *    destination threads RCHAN_THRD_ID = the source thread), then the PSI-L
 *    thread configuration behind it through the NAVSS's PSI-L proxy, as TI
 *    CSL CSL_psilcfgCreateRoute() does it (hw/k3_udma.h §3.7; unpairing:
 *    Sciclient_rmPsilUnpair()).
 * model: a message whose (host, seq) is the one of a message still in flight
 * is NACKed, for the host could not tell their responses apart (the real
 * firmware answers both; sim.h ofl_sim_mbox_post()).
 * model: a channel configuration register is written whole, from the
 * message's fields, with the fields whose valid bit is clear written as 0;
 * a BCDMA bchan gets CHAN_TYPE 12 (block copy) although Linux sends none
 * (how the firmware fills it in is unconfirmed, udma.md §5.3 step 3).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw/k3_udma.h"
#include "hw/tisci.h"
#include "sim/k3_models.h"
#include "util/util.h"

struct by_id {
	uint32_t id;
	bool ringacc; /* a ring accelerator; else a UDMA or BCDMA */
};

static bool match_id(const struct ofl_sim_model *m, const void *arg)
{
	const struct by_id *k = arg;

	if (k->ringacc)
		return strcmp(m->kind, "k3-ringacc") == 0 &&
		       ofl_sim_ringacc_params((const struct ofl_sim_ringacc *)(const void *)m)->sci_dev_id == k->id;
	return (strcmp(m->kind, "k3-udma") == 0 || strcmp(m->kind, "k3-bcdma") == 0) &&
	       ofl_sim_udma_params((const struct ofl_sim_udma *)(const void *)m)->sci_dev_id == k->id;
}

static struct ofl_sim_udma *udma_by_id(struct ofl_sim *sim, uint32_t id)
{
	const struct by_id k = { id, false };

	return id ? (struct ofl_sim_udma *)(void *)ofl_sim_model_find(sim, match_id, &k) : NULL;
}

static struct ofl_sim_ringacc *ra_by_id(struct ofl_sim *sim, uint32_t id)
{
	const struct by_id k = { id, true };

	return id ? (struct ofl_sim_ringacc *)(void *)ofl_sim_model_find(sim, match_id, &k) : NULL;
}

/* A NACK with its reason (the response carries no reason: ti_sci answers ACK or NACK). */
static int nack(char *why, size_t wl, const char *fmt, ...) OFL_PRINTF(3, 4);
static int nack(char *why, size_t wl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, wl, fmt, ap);
	va_end(ap);
	return -1;
}

static int ring_cfg(struct ofl_sim *sim, const uint8_t *m, char *why, size_t wl)
{
	uint32_t valid = tisci_get32(m, TISCI_RING_VALID), nav = tisci_get16(m, TISCI_RING_NAV_ID);
	uint32_t ring = tisci_get16(m, TISCI_RING_INDEX), count = tisci_get32(m, TISCI_RING_COUNT);
	uint64_t addr = tisci_get32(m, TISCI_RING_ADDR_LO) |
			(uint64_t)tisci_get32(m, TISCI_RING_ADDR_HI) << 32;
	struct ofl_sim_ringacc *ra = ra_by_id(sim, nav);
	struct ofl_sim_udma *u = ra ? NULL : udma_by_id(sim, nav);
	int r;

	if (ra)
		r = ofl_sim_ringacc_fw_ring_cfg(ra, ring, valid & 0x1Fu, addr, count,
						tisci_get8(m, TISCI_RING_MODE), tisci_get8(m, TISCI_RING_SIZE));
	else if (u)
		r = ofl_sim_udma_fw_dring_cfg(u, ring, valid, addr, count, tisci_get8(m, TISCI_RING_ASEL));
	else
		return nack(why, wl, "RING_CFG: no ring accelerator or DMA with TI-SCI device ID %u", nav);
	return r < 0 ? nack(why, wl, "RING_CFG: ring %u of device %u cannot take it", ring, nav) : 0;
}

/* The TCFG / RCFG image of a channel configuration message (hw/k3_udma.h §3.3). */
static uint32_t chan_image(uint32_t valid, uint8_t pause, uint8_t atype, uint8_t type, uint8_t burst,
			   uint16_t fetch)
{
	uint32_t v = 0;

	if ((valid & TISCI_CH_V_PAUSE_ON_ERR) && pause)
		v |= K3_CFG_PAUSE_ON_ERR;
	if (valid & TISCI_CH_V_ATYPE)
		v |= K3_CFG_ATYPE(atype);
	if (valid & TISCI_CH_V_CHAN_TYPE)
		v |= K3_CFG_CHAN_TYPE(type);
	if (valid & TISCI_CH_V_BURST_SIZE)
		v |= K3_CFG_BURST(burst);
	if (valid & TISCI_CH_V_FETCH_SIZE)
		v |= K3_CFG_FETCH_SIZE(fetch);
	return v;
}

static int tx_ch_cfg(struct ofl_sim *sim, const uint8_t *m, char *why, size_t wl)
{
	uint32_t valid = tisci_get32(m, TISCI_TX_VALID), nav = tisci_get16(m, TISCI_TX_NAV_ID);
	uint32_t ch = tisci_get16(m, TISCI_TX_INDEX);
	struct ofl_sim_udma *u = udma_by_id(sim, nav);

	if (!u)
		return nack(why, wl, "TX_CH_CFG: no DMA with TI-SCI device ID %u", nav);
	bool bchan = (valid & TISCI_CH_V_EXTENDED_CH_TYPE) && tisci_get8(m, TISCI_TX_EXTENDED_CH_TYPE) == 1;
	if (bchan != ofl_sim_udma_params(u)->bcdma)
		return nack(why, wl, "TX_CH_CFG: extended_ch_type %s a %s", bchan ? "bchan on" : "tchan on",
			    ofl_sim_udma_params(u)->bcdma ? "BCDMA" : "UDMA");
	uint32_t cfg = chan_image(valid, tisci_get8(m, TISCI_TX_PAUSE_ON_ERR), tisci_get8(m, TISCI_TX_ATYPE),
				  tisci_get8(m, TISCI_TX_CHAN_TYPE), tisci_get8(m, TISCI_TX_BURST_SIZE),
				  tisci_get16(m, TISCI_TX_FETCH_SIZE));
	if (bchan)
		return ofl_sim_udma_fw_write(u, 'b', ch, K3_TCFG,
					     cfg | K3_CFG_CHAN_TYPE(K3_CHAN_TYPE_3P_BCOPY_PBRR)) < 0
			       ? nack(why, wl, "TX_CH_CFG: no bchan %u", ch) : 0;
	if (!ofl_sim_udma_owned(u, 't', ch))
		return nack(why, wl, "TX_CH_CFG: tchan %u is not this host's (board configuration)", ch);
	if (ofl_sim_udma_fw_write(u, 't', ch, K3_TCFG, cfg) < 0 ||
	    ((valid & TISCI_CH_V_CQ_QNUM) &&
	     ofl_sim_udma_fw_write(u, 't', ch, K3_TCQ, tisci_get16(m, TISCI_TX_CQ_QNUM)) < 0))
		return nack(why, wl, "TX_CH_CFG: no tchan %u", ch);
	return 0;
}

static int rx_ch_cfg(struct ofl_sim *sim, const uint8_t *m, char *why, size_t wl)
{
	uint32_t valid = tisci_get32(m, TISCI_RX_VALID), nav = tisci_get16(m, TISCI_RX_NAV_ID);
	uint32_t ch = tisci_get16(m, TISCI_RX_INDEX);
	struct ofl_sim_udma *u = udma_by_id(sim, nav);

	if (!u || ofl_sim_udma_params(u)->bcdma)
		return nack(why, wl, "RX_CH_CFG: no UDMA with TI-SCI device ID %u", nav);
	uint32_t cfg = chan_image(valid, tisci_get8(m, TISCI_RX_PAUSE_ON_ERR), tisci_get8(m, TISCI_RX_ATYPE),
				  tisci_get8(m, TISCI_RX_CHAN_TYPE), tisci_get8(m, TISCI_RX_BURST_SIZE),
				  tisci_get16(m, TISCI_RX_FETCH_SIZE));
	if (!ofl_sim_udma_owned(u, 'r', ch))
		return nack(why, wl, "RX_CH_CFG: rchan %u is not this host's (board configuration)", ch);
	if (ofl_sim_udma_fw_write(u, 'r', ch, K3_RCFG, cfg) < 0 ||
	    ((valid & TISCI_CH_V_CQ_QNUM) &&
	     ofl_sim_udma_fw_write(u, 'r', ch, K3_RCQ, tisci_get16(m, TISCI_RX_CQ_QNUM)) < 0))
		return nack(why, wl, "RX_CH_CFG: no rchan %u", ch);
	/* RFLOW_RNG: FLOWID_CNT 30:16, FLOWID_START 13:0 (cslr_udmap.h), when both are valid */
	if ((valid & (TISCI_CH_V_RX_FLOWID_START | TISCI_CH_V_RX_FLOWID_CNT)) ==
	    (TISCI_CH_V_RX_FLOWID_START | TISCI_CH_V_RX_FLOWID_CNT) &&
	    ofl_sim_udma_fw_write(u, 'r', ch, K3_RFLOW_RNG,
				  K3_FIELD_PREP(tisci_get16(m, TISCI_RX_FLOWID_CNT), 30, 16) |
				  K3_FIELD_PREP(tisci_get16(m, TISCI_RX_FLOWID_START), 13, 0)) < 0)
		return nack(why, wl, "RX_CH_CFG: rchan %u has no RFLOW_RNG", ch);
	return 0;
}

struct by_thread {
	uint32_t navss, src;
};

/* The UDMA of this NAVSS whose transmit channels own source thread `src`. */
static bool match_thread(const struct ofl_sim_model *m, const void *arg)
{
	const struct by_thread *k = arg;

	if (strcmp(m->kind, "k3-udma") != 0)
		return false;
	const struct ofl_sim_udma_params *p = ofl_sim_udma_params((const struct ofl_sim_udma *)(const void *)m);
	return p->navss_dev_id == k->navss && k->src >= p->psil_base && k->src - p->psil_base < p->tchan_cnt;
}

static int psil(struct ofl_sim *sim, const uint8_t *m, bool pair, char *why, size_t wl)
{
	const char *what = pair ? "PSIL_PAIR" : "PSIL_UNPAIR";
	struct by_thread k = { tisci_get32(m, TISCI_PSIL_NAV_ID), tisci_get32(m, TISCI_PSIL_SRC) };
	uint32_t dst = tisci_get32(m, TISCI_PSIL_DST);

	/* ti_sci.h: "The request is NACK'd if the destination thread is not greater than or equal to 0x8000" */
	if (dst < K3_PSIL_DST_THREAD)
		return nack(why, wl, "%s: destination thread 0x%x is below 0x8000", what, dst);
	struct ofl_sim_udma *u = (struct ofl_sim_udma *)(void *)ofl_sim_model_find(sim, match_thread, &k);
	if (!u)
		return nack(why, wl, "%s: no transmit channel of NAVSS %u has source thread 0x%x", what,
			    k.navss, k.src);
	uint32_t base = ofl_sim_udma_params(u)->psil_base;
	uint32_t tch = k.src - base, rch = (dst & ~K3_PSIL_DST_THREAD) - base;
	if (ofl_sim_udma_fw_write(u, 't', tch, K3_THREAD, pair ? dst : 0) < 0 ||
	    ofl_sim_udma_fw_write(u, 'r', rch, K3_THREAD, pair ? k.src : 0) < 0)
		return nack(why, wl, "%s: no receive channel for destination thread 0x%x", what, dst);
	/* the PSI-L thread configuration behind it (hw/k3_udma.h §3.7), through the NAVSS's proxy */
	if (ofl_sim_udma_fw_psil(u, k.src, dst, pair) < 0)
		return nack(why, wl, "%s: the PSI-L proxy did not answer for 0x%x -> 0x%x", what, k.src, dst);
	return 0;
}

int ofl_sim_fw_xfer(struct ofl_sim *sim, uint8_t *msg, size_t req_len, size_t resp_cap, char *why,
		    size_t wl)
{
	static const struct {
		uint16_t type;
		size_t len;
	} sizes[] = {
		{ TISCI_MSG_RM_RING_CFG, TISCI_RING_LEN }, { TISCI_MSG_RM_UDMAP_TX_CH_CFG, TISCI_TX_LEN },
		{ TISCI_MSG_RM_UDMAP_RX_CH_CFG, TISCI_RX_LEN }, { TISCI_MSG_RM_PSIL_PAIR, TISCI_PSIL_LEN },
		{ TISCI_MSG_RM_PSIL_UNPAIR, TISCI_PSIL_LEN },
	};
	int r = -1;

	why[0] = '\0';
	if (req_len < TISCI_HDR_SIZE || resp_cap < TISCI_HDR_SIZE) {
		snprintf(why, wl, "a TI-SCI message needs its %u-byte header", TISCI_HDR_SIZE);
		return -EINVAL;
	}
	uint16_t type = tisci_get16(msg, TISCI_HDR_TYPE);
	uint8_t host = tisci_get8(msg, TISCI_HDR_HOST), seq = tisci_get8(msg, TISCI_HDR_SEQ);
	bool posted = ofl_sim_mbox_post(sim, host, seq);
	size_t need = 0;
	for (size_t i = 0; i < OFL_ARRAY_SIZE(sizes); i++)
		if (sizes[i].type == type)
			need = sizes[i].len;
	/* model: the firmware would answer both; the host could not tell which answer is whose */
	if (!posted)
		nack(why, wl, "message 0x%04x from host %u carries seq %u, the seq of a message still in flight: "
		     "the host could not match the responses to their requests (Linux ti_sci_rx_callback() "
		     "finds the request by seq)", type, host, seq);
	else if (!need)
		nack(why, wl, "message type 0x%04x is not one the model of the DM firmware knows", type);
	else if (req_len < need)
		nack(why, wl, "message 0x%04x of %zu bytes, %zu expected", type, req_len, need);
	else if (type == TISCI_MSG_RM_RING_CFG)
		r = ring_cfg(sim, msg, why, wl);
	else if (type == TISCI_MSG_RM_UDMAP_TX_CH_CFG)
		r = tx_ch_cfg(sim, msg, why, wl);
	else if (type == TISCI_MSG_RM_UDMAP_RX_CH_CFG)
		r = rx_ch_cfg(sim, msg, why, wl);
	else
		r = psil(sim, msg, type == TISCI_MSG_RM_PSIL_PAIR, why, wl);
	/* the response: the request's header (type, host, seq) with ACK or NACK */
	tisci_put32(msg, TISCI_HDR_FLAGS, r == 0 ? TISCI_FLAG_RESP_GENERIC_ACK : 0);
	if (posted)
		ofl_sim_mbox_answered(sim, host, seq);
	return 0;
}
