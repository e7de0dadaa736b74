/* SPDX-License-Identifier: MIT */
/*
 * TI-SCI (Texas Instruments System Control Interface) messages the udma
 * backend sends to the DM firmware that owns K3 channel and ring
 * configuration, in their wire format: little-endian, packed, a generic
 * 8-byte header then the message body. Shared by backends/udma (which
 * builds them) and the firmware model of liboffload-sim (which decodes
 * them).
 *
 * Sources: Linux drivers/firmware/ti_sci.h (message types, struct
 * ti_sci_msg_hdr, ti_sci_msg_rm_ring_cfg_req, ti_sci_msg_psil_pair /
 * _unpair, ti_sci_msg_rm_udmap_tx_ch_cfg_req / rx_ch_cfg_req, the
 * TI_SCI_FLAG_* header flags) and include/linux/soc/ti/ti_sci_protocol.h
 * (the TI_SCI_MSG_VALUE_RM_* valid bits); what k3-udma.c sends for memcpy
 * is ../shared/hw/udma.md §5.2, §5.3 and §7. The offsets below are those of
 * the packed structs, field by field.
 */
#ifndef OFL_HW_TISCI_H
#define OFL_HW_TISCI_H

#include <stddef.h>
#include <stdint.h>

/* ---- message types (ti_sci.h) ---- */
#define TISCI_MSG_RM_RING_CFG 0x1110
#define TISCI_MSG_RM_UDMAP_TX_CH_CFG 0x1205
#define TISCI_MSG_RM_UDMAP_RX_CH_CFG 0x1215
#define TISCI_MSG_RM_PSIL_PAIR 0x1280
#define TISCI_MSG_RM_PSIL_UNPAIR 0x1281

/* ---- struct ti_sci_msg_hdr: type u16, host u8, seq u8, flags u32 ---- */
#define TISCI_HDR_TYPE 0
#define TISCI_HDR_HOST 2
#define TISCI_HDR_SEQ 3
#define TISCI_HDR_FLAGS 4
#define TISCI_HDR_SIZE 8
#define TISCI_FLAG_REQ_ACK_ON_PROCESSED (1u << 1) /* requests: answer when done */
#define TISCI_FLAG_RESP_GENERIC_ACK (1u << 1)     /* responses: ACK; clear = NACK */

/* ---- RM_RING_CFG (ti_sci_msg_rm_ring_cfg_req), 34 bytes ---- */
#define TISCI_RING_VALID 8   /* u32 */
#define TISCI_RING_NAV_ID 12 /* u16 */
#define TISCI_RING_INDEX 14  /* u16 */
#define TISCI_RING_ADDR_LO 16 /* u32 */
#define TISCI_RING_ADDR_HI 20 /* u32 */
#define TISCI_RING_COUNT 24  /* u32 */
#define TISCI_RING_MODE 28   /* u8 */
#define TISCI_RING_SIZE 29   /* u8: log2(element bytes) - 2 */
#define TISCI_RING_ORDER_ID 30 /* u8 */
#define TISCI_RING_VIRTID 31 /* u16 */
#define TISCI_RING_ASEL 33   /* u8 */
#define TISCI_RING_LEN 34
/* valid bits */
#define TISCI_RING_V_ADDR_LO (1u << 0)
#define TISCI_RING_V_ADDR_HI (1u << 1)
#define TISCI_RING_V_COUNT (1u << 2)
#define TISCI_RING_V_MODE (1u << 3)
#define TISCI_RING_V_SIZE (1u << 4)
#define TISCI_RING_V_ORDER_ID (1u << 5)
#define TISCI_RING_V_VIRTID (1u << 6)
#define TISCI_RING_V_ASEL (1u << 7)

/* ---- RM_PSIL_PAIR / UNPAIR (ti_sci_msg_psil_pair), 20 bytes ---- */
#define TISCI_PSIL_NAV_ID 8   /* u32 */
#define TISCI_PSIL_SRC 12     /* u32 */
#define TISCI_PSIL_DST 16     /* u32: destination threads are >= 0x8000 */
#define TISCI_PSIL_LEN 20

/* ---- RM_UDMAP_TX_CH_CFG (ti_sci_msg_rm_udmap_tx_ch_cfg_req), 36 bytes ---- */
#define TISCI_TX_VALID 8          /* u32 */
#define TISCI_TX_NAV_ID 12        /* u16 */
#define TISCI_TX_INDEX 14         /* u16 */
#define TISCI_TX_PAUSE_ON_ERR 16  /* u8 */
#define TISCI_TX_FILT_EINFO 17    /* u8 */
#define TISCI_TX_FILT_PSWORDS 18  /* u8 */
#define TISCI_TX_ATYPE 19         /* u8 */
#define TISCI_TX_CHAN_TYPE 20     /* u8 */
#define TISCI_TX_SUPR_TDPKT 21    /* u8 */
#define TISCI_TX_FETCH_SIZE 22    /* u16: 32-bit words */
#define TISCI_TX_CREDIT_COUNT 24  /* u8 */
#define TISCI_TX_CQ_QNUM 25       /* u16 */
#define TISCI_TX_PRIORITY 27      /* u8 */
#define TISCI_TX_QOS 28           /* u8 */
#define TISCI_TX_ORDERID 29       /* u8 */
#define TISCI_TX_FDEPTH 30        /* u16 */
#define TISCI_TX_SCHED_PRIORITY 32 /* u8 */
#define TISCI_TX_BURST_SIZE 33    /* u8 */
#define TISCI_TX_TDTYPE 34        /* u8 */
#define TISCI_TX_EXTENDED_CH_TYPE 35 /* u8: BCDMA, 1 = block copy channel (bchan) */
#define TISCI_TX_LEN 36

/* ---- RM_UDMAP_RX_CH_CFG (ti_sci_msg_rm_udmap_rx_ch_cfg_req), 34 bytes ---- */
#define TISCI_RX_VALID 8          /* u32 */
#define TISCI_RX_NAV_ID 12        /* u16 */
#define TISCI_RX_INDEX 14         /* u16 */
#define TISCI_RX_FETCH_SIZE 16    /* u16 */
#define TISCI_RX_CQ_QNUM 18       /* u16 */
#define TISCI_RX_PRIORITY 20      /* u8 */
#define TISCI_RX_QOS 21           /* u8 */
#define TISCI_RX_ORDERID 22       /* u8 */
#define TISCI_RX_SCHED_PRIORITY 23 /* u8 */
#define TISCI_RX_FLOWID_START 24  /* u16 */
#define TISCI_RX_FLOWID_CNT 26    /* u16 */
#define TISCI_RX_PAUSE_ON_ERR 28  /* u8 */
#define TISCI_RX_ATYPE 29         /* u8 */
#define TISCI_RX_CHAN_TYPE 30     /* u8 */
#define TISCI_RX_IGNORE_SHORT 31  /* u8 */
#define TISCI_RX_IGNORE_LONG 32   /* u8 */
#define TISCI_RX_BURST_SIZE 33    /* u8 */
#define TISCI_RX_LEN 34

/* ---- channel configuration valid bits (TI_SCI_MSG_VALUE_RM_UDMAP_CH_*) ---- */
#define TISCI_CH_V_PAUSE_ON_ERR (1u << 0)
#define TISCI_CH_V_ATYPE (1u << 1)
#define TISCI_CH_V_CHAN_TYPE (1u << 2)
#define TISCI_CH_V_FETCH_SIZE (1u << 3)
#define TISCI_CH_V_CQ_QNUM (1u << 4)
#define TISCI_CH_V_PRIORITY (1u << 5)
#define TISCI_CH_V_QOS (1u << 6)
#define TISCI_CH_V_ORDER_ID (1u << 7)
#define TISCI_CH_V_SCHED_PRIORITY (1u << 8)
#define TISCI_CH_V_TX_FILT_EINFO (1u << 9)
#define TISCI_CH_V_TX_FILT_PSWORDS (1u << 10)
#define TISCI_CH_V_TX_SUPR_TDPKT (1u << 11)
#define TISCI_CH_V_TX_CREDIT_COUNT (1u << 12)
#define TISCI_CH_V_TX_FDEPTH (1u << 13)
#define TISCI_CH_V_BURST_SIZE (1u << 14)
#define TISCI_CH_V_TX_TDTYPE (1u << 15)
#define TISCI_CH_V_EXTENDED_CH_TYPE (1u << 16)
#define TISCI_CH_V_RX_FLOWID_START (1u << 9)
#define TISCI_CH_V_RX_FLOWID_CNT (1u << 10)
#define TISCI_CH_V_RX_IGNORE_SHORT (1u << 11)
#define TISCI_CH_V_RX_IGNORE_LONG (1u << 12)

/*
 * The masks k3-udma.c sends for memcpy (udma.md §5.2, §5.3; Linux
 * TISCI_TCHAN_VALID_PARAMS, TISCI_RCHAN_VALID_PARAMS,
 * TISCI_BCDMA_BCHAN_VALID_PARAMS), before BURST_SIZE is added.
 */
#define TISCI_TCHAN_MEMCPY_VALID 0x0E1Fu
#define TISCI_RCHAN_MEMCPY_VALID 0x1E1Fu
#define TISCI_BCHAN_MEMCPY_VALID 0x10001u

/* Little-endian field access (the messages are packed; any alignment). */
static inline void tisci_put8(uint8_t *m, size_t off, uint8_t v)
{
	m[off] = v;
}
static inline void tisci_put16(uint8_t *m, size_t off, uint16_t v)
{
	m[off] = (uint8_t)v;
	m[off + 1] = (uint8_t)(v >> 8);
}
static inline void tisci_put32(uint8_t *m, size_t off, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		m[off + i] = (uint8_t)(v >> (8 * i));
}
static inline uint8_t tisci_get8(const uint8_t *m, size_t off)
{
	return m[off];
}
static inline uint16_t tisci_get16(const uint8_t *m, size_t off)
{
	return (uint16_t)(m[off] | m[off + 1] << 8);
}
static inline uint32_t tisci_get32(const uint8_t *m, size_t off)
{
	return (uint32_t)m[off] | (uint32_t)m[off + 1] << 8 | (uint32_t)m[off + 2] << 16 |
	       (uint32_t)m[off + 3] << 24;
}

/* The largest message above, for buffers. */
#define TISCI_MSG_MAX 36

#endif /* OFL_HW_TISCI_H */
