/* SPDX-License-Identifier: MIT */
/*
 * TI K3 UDMA-P / BCDMA register map, ring accelerator and CPPI 5.0 TR
 * descriptor formats: the facts the direct backend (backends/udma) and the
 * register-level model (src/sim/k3_udma.c) are both written against.
 *
 * Sources, by the topic marks (§n) used here and in backends/udma and
 * src/sim/k3_*.c:
 *   §1 device tree   Linux Documentation/devicetree/bindings/dma/ti/k3-udma.yaml,
 *                    k3-bcdma.yaml, soc/ti/k3-ringacc.yaml; drivers/dma/ti/k3-udma.c
 *                    udma_probe(), udma_get_mmrs(); §1.5 coherency:
 *                    k3_configure_chan_coherency(), of_dma_is_coherent()
 *   §2 match data    k3-udma.c udma_match_data tables (am654_main_data ...
 *                    am64_bcdma_data), udma_get_chan_tpl_index(), udma_get_copy_align()
 *   §3 registers     drivers/dma/ti/k3-udma.h, drivers/soc/ti/k3-ringacc.c and
 *                    include/linux/soc/ti/k3-ringacc.h, TI MCU+ SDK cslr_udmap.h /
 *                    cslr_bcdma.h / cslr_lcdma_ringacc.h, U-Boot
 *                    drivers/dma/ti/k3-udma-hwdef.h
 *   §4 descriptors   include/linux/dma/ti-cppi5.h; k3-udma.c udma_get_tr_counters()
 *   §5 sequences     k3-udma.c udma_alloc_chan_resources(),
 *                    bcdma_alloc_chan_resources(), udma_prep_dma_memcpy(),
 *                    udma_start(), udma_terminate_all(), udma_synchronize();
 *                    §5.6 is the minimal engine behaviour derived from them
 *   §6/§7 firmware   drivers/firmware/ti_sci.h and ti_sci.c (TI-SCI resource
 *                    manager messages)
 * All registers are 32-bit, little-endian.
 */
#ifndef OFL_HW_K3_UDMA_H
#define OFL_HW_K3_UDMA_H

#include <stdint.h>

#define K3_BIT(n) (1u << (n))
#define K3_FIELD_GET(v, hi, lo) (((v) >> (lo)) & ((1u << ((hi) - (lo) + 1)) - 1u))
#define K3_FIELD_PREP(x, hi, lo) (((uint32_t)(x) & ((1u << ((hi) - (lo) + 1)) - 1u)) << (lo))

/* ---- §3.1 GCFG ---- */
#define K3_GCFG_REVISION 0x00
#define K3_GCFG_PERF_CTRL 0x04
#define K3_GCFG_EMU_CTRL 0x08
#define K3_GCFG_PSIL_TO 0x10
#define K3_GCFG_UTC_CTL 0x1C
#define K3_GCFG_CAP0 0x20 /* bit n = TR type n supported */
#define K3_GCFG_CAP1 0x24
#define K3_GCFG_CAP2 0x28
#define K3_GCFG_CAP3 0x2C
#define K3_GCFG_CAP4 0x30
#define K3_GCFG_SIZE 0x100
/* UDMA CAP2: TCHAN 8:0, ECHAN 17:9, RCHAN 26:18. CAP3: RFLOW 13:0, HCHAN 22:14, UCHAN 31:23. */
#define K3_UDMA_CAP2_TCHAN(v) K3_FIELD_GET(v, 8, 0)
#define K3_UDMA_CAP2_ECHAN(v) K3_FIELD_GET(v, 17, 9)
#define K3_UDMA_CAP2_RCHAN(v) K3_FIELD_GET(v, 26, 18)
#define K3_UDMA_CAP3_RFLOW(v) K3_FIELD_GET(v, 13, 0)
#define K3_UDMA_CAP3_HCHAN(v) K3_FIELD_GET(v, 22, 14)
#define K3_UDMA_CAP3_UCHAN(v) K3_FIELD_GET(v, 31, 23)
/* BCDMA CAP2: BCHAN 8:0, TCHAN 17:9, RCHAN 26:18. CAP3: HBCHAN 22:14, UBCHAN 31:23. */
#define K3_BCDMA_CAP2_BCHAN(v) K3_FIELD_GET(v, 8, 0)
#define K3_BCDMA_CAP2_TCHAN(v) K3_FIELD_GET(v, 17, 9)
#define K3_BCDMA_CAP2_RCHAN(v) K3_FIELD_GET(v, 26, 18)
#define K3_BCDMA_CAP3_HBCHAN(v) K3_FIELD_GET(v, 22, 14)
#define K3_BCDMA_CAP3_UBCHAN(v) K3_FIELD_GET(v, 31, 23)

/* ---- §3.2 channel real-time registers, channel n at base + n * 0x1000 ---- */
#define K3_CHANRT_STRIDE 0x1000
#define K3_RT_CTL 0x000
#define K3_RT_SWTRIG 0x008
#define K3_RT_STATUS0 0x040
#define K3_RT_STDATA 0x080
#define K3_RT_PEER0 0x200
#define K3_RT_PEER1 0x204
#define K3_RT_PEER_BCNT 0x210
#define K3_RT_PEER_RT_EN 0x220
#define K3_RT_PCNT 0x400
#define K3_RT_BCNT 0x408
#define K3_RT_SBCNT 0x410
#define K3_RT_CTL_EN K3_BIT(31)
#define K3_RT_CTL_TDOWN K3_BIT(30)
#define K3_RT_CTL_PAUSE K3_BIT(29)
#define K3_RT_CTL_FTDOWN K3_BIT(28)
#define K3_RT_CTL_ERROR K3_BIT(0)

/* ---- §3.3 channel configuration (firmware-owned on Linux), stride 0x100 ---- */
#define K3_CHANCFG_STRIDE 0x100
#define K3_TCFG 0x00
#define K3_TCREDIT 0x04
#define K3_TCQ 0x14
#define K3_TPRI_CTRL 0x64
#define K3_THREAD 0x68
#define K3_TFIFO_DEPTH 0x70
#define K3_TST_SCHED 0x80
#define K3_RCFG 0x00
#define K3_RCQ 0x14
#define K3_RFLOW_RNG 0xF0
#define K3_CFG_PAUSE_ON_ERR K3_BIT(31)
#define K3_CFG_ATYPE(x) K3_FIELD_PREP(x, 25, 24)
#define K3_CFG_CHAN_TYPE(x) K3_FIELD_PREP(x, 19, 16)
#define K3_CFG_CHAN_TYPE_GET(v) K3_FIELD_GET(v, 19, 16)
#define K3_CFG_BURST(x) K3_FIELD_PREP(x, 11, 10)
#define K3_CFG_BURST_GET(v) K3_FIELD_GET(v, 11, 10)
#define K3_CFG_FETCH_SIZE(x) K3_FIELD_PREP(x, 6, 0)
/* CHAN_TYPE (TI-SCI and U-Boot raw writes): 12 = third-party block copy, pass by reference ring. */
#define K3_CHAN_TYPE_3P_TR_PBRR 10
#define K3_CHAN_TYPE_3P_BCOPY_PBRR 12
/* BURST_SIZE codes (TI-SCI = hardware): 1 = 64 B, 2 = 128 B, 3 = 256 B (§2.2). */
#define K3_BURST_64 1
#define K3_BURST_128 2
#define K3_BURST_256 3
/* PSI-L destination threads have bit 15 set (§5.2 step 4). */
#define K3_PSIL_DST_THREAD 0x8000u

/* ---- §3.4 NAVSS ring accelerator ---- */
#define K3_RA_RT_STRIDE 0x1000
#define K3_RA_RT_DB 0x10
#define K3_RA_RT_OCC 0x18
#define K3_RA_RT_INDX 0x1C
#define K3_RA_RT_HWOCC 0x20
#define K3_RA_RT_HWINDX 0x24
#define K3_RA_OCC_MASK 0x1FFFFFu
#define K3_RA_FIFO_STRIDE 0x1000
#define K3_RA_FIFO_HEAD 0x000
#define K3_RA_FIFO_TAIL 0x200
#define K3_RA_FIFO_PEEK_HEAD 0x400
#define K3_RA_FIFO_PEEK_TAIL 0x600
#define K3_RA_FIFO_WINDOW 0x200 /* an element ends at the end of its 512-byte window */
#define K3_RA_CFG_STRIDE 0x100
#define K3_RA_CFG_BA_LO 0x40
#define K3_RA_CFG_BA_HI 0x44
#define K3_RA_CFG_SIZE 0x48
#define K3_RA_CFG_EVENT 0x4C
#define K3_RA_CFG_ORDERID 0x50
#define K3_RA_SIZE_QMODE(x) K3_FIELD_PREP(x, 31, 30)
#define K3_RA_SIZE_QMODE_GET(v) K3_FIELD_GET(v, 31, 30)
#define K3_RA_SIZE_ELSIZE(x) K3_FIELD_PREP(x, 26, 24)
#define K3_RA_SIZE_ELSIZE_GET(v) K3_FIELD_GET(v, 26, 24)
#define K3_RA_SIZE_ELCNT(x) K3_FIELD_PREP(x, 19, 0)
#define K3_RA_SIZE_ELCNT_GET(v) K3_FIELD_GET(v, 19, 0)
/* §3.6 ring modes and element size codes (log2(bytes) - 2). */
#define K3_RING_MODE_RING 0
#define K3_RING_MODE_MESSAGE 1
#define K3_RING_MODE_CREDENTIALS 2
#define K3_RING_ELSIZE_8 1

/* ---- §3.5 DMSS DMA rings (BCDMA/PKTDMA dual rings), ring n at ringrt + n * 0x2000 ---- */
#define K3_DRING_RT_STRIDE 0x2000
#define K3_DRING_FDB 0x10
#define K3_DRING_FOCC 0x18
#define K3_DRING_RDB 0x1010
#define K3_DRING_ROCC 0x1018
#define K3_DRING_RDB_ACK K3_BIT(31)
#define K3_DRING_ROCC_COMP K3_BIT(31)
#define K3_DRING_OCC_MASK 0x1FFFFFu
#define K3_DRING_CFG_STRIDE 0x100
#define K3_DRING_CFG_BA_LO 0x40
#define K3_DRING_CFG_BA_HI 0x44
#define K3_DRING_CFG_SIZE 0x48
#define K3_DRING_BA_HI_ADDR(v) K3_FIELD_GET(v, 3, 0)
#define K3_DRING_BA_HI_ASEL(x) K3_FIELD_PREP(x, 19, 16)
/*
 * BA_HI of a BCDMA/PKTDMA DMA ring holds address bits 35:32 only (Linux
 * drivers/soc/ti/k3-ringacc.c: K3_DMARING_CFG_ADDR_HI_MASK is GENMASK(3, 0)):
 * ring memory must lie below 64 GiB in bus addresses.
 */
#define K3_DRING_ADDR_LIMIT 0x0000000FFFFFFFFFull
#define K3_DRING_SIZE_QMODE(x) K3_FIELD_PREP(x, 31, 29)
#define K3_DRING_SIZE_ELCNT(x) K3_FIELD_PREP(x, 15, 0)
#define K3_DRING_SIZE_ELCNT_GET(v) K3_FIELD_GET(v, 15, 0)
/* ASEL rides in address bits 51:48 on DMSS engines (§1.5). */
#define K3_ASEL_SHIFT 48
#define K3_ADDR_MASK 0x0000FFFFFFFFFFFFull

/* A ring element with bit 0 set is a teardown completion message (§3.6). */
#define K3_TDCM_MARKER 0x1ull

/* ---- §4 CPPI 5.0 TR descriptor ---- */
#define CPPI5_DESC_TYPE_TR 3u
#define CPPI5_TR_RECSIZE_64 2u /* 0 = 16 B, 1 = 32, 2 = 64, 3 = 128 */
#define CPPI5_FLOW_ID_DEFAULT 0x3FFFu
#define CPPI5_HDR0(type, reload, reload_idx, lastidx)                                    \
	(K3_FIELD_PREP(type, 31, 30) | K3_FIELD_PREP(reload, 28, 20) |                      \
	 K3_FIELD_PREP(reload_idx, 19, 14) | K3_FIELD_PREP(lastidx, 13, 0))
#define CPPI5_HDR0_TYPE(v) K3_FIELD_GET(v, 31, 30)
#define CPPI5_HDR0_LASTIDX(v) K3_FIELD_GET(v, 13, 0)
#define CPPI5_HDR1(recsize, pktid, flowid)                                                 \
	(K3_FIELD_PREP(recsize, 26, 24) | K3_FIELD_PREP(pktid, 23, 14) | K3_FIELD_PREP(flowid, 13, 0))
#define CPPI5_HDR1_PKT_ERR(v) K3_FIELD_GET(v, 31, 28)
#define CPPI5_HDR1_PKT_ERR_SET(e) K3_FIELD_PREP(e, 31, 28)
#define CPPI5_HDR1_RECSIZE(v) K3_FIELD_GET(v, 26, 24)
#define CPPI5_HDR2_RETQ(v) K3_FIELD_GET(v, 15, 0)
#define CPPI5_RETQ_NONE 0xFFFFu
#define CPPI5_HDR_SIZE 16u

/* §4.3 TR flags word. */
#define CPPI5_TR_TYPE(v) K3_FIELD_GET(v, 3, 0)
#define CPPI5_TR_TYPE15 15u
#define CPPI5_TR_STATIC K3_BIT(4)
#define CPPI5_TR_WAIT K3_BIT(5)
#define CPPI5_TR_EVENT_SIZE(v) K3_FIELD_GET(v, 7, 6)
#define CPPI5_TR_TRIGGER0(v) K3_FIELD_GET(v, 9, 8)
#define CPPI5_TR_TRIGGER1(v) K3_FIELD_GET(v, 13, 12)
#define CPPI5_TR_CMD_ID(x) K3_FIELD_PREP(x, 23, 16)
#define CPPI5_TR_CMD_ID_GET(v) K3_FIELD_GET(v, 23, 16)
#define CPPI5_CSF_SA_INDIRECT K3_BIT(24)
#define CPPI5_CSF_DA_INDIRECT K3_BIT(25)
#define CPPI5_CSF_SUPR_EVT K3_BIT(26)
#define CPPI5_CSF_EOL_ICNT0 K3_FIELD_PREP(1, 30, 28)
#define CPPI5_CSF_EOP K3_BIT(31)

/* §4.4 type-15 TR: 64 bytes, little-endian. */
struct cppi5_tr_type15 {
	uint32_t flags;
	uint16_t icnt0;
	uint16_t icnt1;
	uint64_t addr;
	int32_t dim1;
	uint16_t icnt2;
	uint16_t icnt3;
	int32_t dim2;
	int32_t dim3;
	uint32_t reserved;
	int32_t ddim1;
	uint64_t daddr;
	int32_t ddim2;
	int32_t ddim3;
	uint16_t dicnt0;
	uint16_t dicnt1;
	uint16_t dicnt2;
	uint16_t dicnt3;
} __attribute__((packed, aligned(8)));
_Static_assert(sizeof(struct cppi5_tr_type15) == 64, "type-15 TR is 64 bytes (ti-cppi5.h cppi5_tr_type15_t)");
#define CPPI5_TR_SIZE 64u

/*
 * One 64-byte record of a TR descriptor with R = 64: record 0 holds the
 * header (words 0-3), record i + 1 holds TR i, record N + 1 the N responses.
 */
union cppi5_rec64 {
	uint32_t w[16];
	struct cppi5_tr_type15 tr;
};

/* §4.1 descriptor size: R * (N + 1) + 4 * N. */
#define CPPI5_TRDESC_SIZE(ntr) (CPPI5_TR_SIZE * ((ntr) + 1u) + 4u * (ntr))

/* §4.5 TR response byte 0: type 3:0, info 7:4; byte 2 = CMD_ID. */
#define CPPI5_RESP_STATUS(type, info) (K3_FIELD_PREP(type, 3, 0) | K3_FIELD_PREP(info, 7, 4))
#define CPPI5_RESP_TYPE(w) K3_FIELD_GET(w, 3, 0)
#define CPPI5_RESP_INFO(w) K3_FIELD_GET(w, 7, 4)
#define CPPI5_RESP_CMD_ID(w) K3_FIELD_GET(w, 23, 16)
enum cppi5_resp_type {
	CPPI5_RESP_NONE = 0,
	CPPI5_RESP_TRANSFER_ERR = 1,
	CPPI5_RESP_ABORTED_ERR = 2,
	CPPI5_RESP_SUBMISSION_ERR = 3,
	CPPI5_RESP_UNSUPPORTED_ERR = 4,
	CPPI5_RESP_TRANSFER_EXCEPTION = 5,
	CPPI5_RESP_TEARDOWN_FLUSH = 6,
};
/* SUBMISSION_ERR info values. */
#define CPPI5_SUBMIT_ICNT0 0u
#define CPPI5_SUBMIT_FIFO_FULL 1u
#define CPPI5_SUBMIT_OWN 2u
/* UNSUPPORTED_ERR info values. */
#define CPPI5_UNSUPP_TR_TYPE 0u
#define CPPI5_UNSUPP_STATIC 1u
#define CPPI5_UNSUPP_EOL 2u
#define CPPI5_UNSUPP_CSF 3u
#define CPPI5_UNSUPP_AMODE 4u
#define CPPI5_UNSUPP_AMODE_SPECIFIC 8u

/* §4.6: one TR moves at most 65535 x 65536 - 1 bytes. */
#define CPPI5_MAX_TR_PAIR_LEN 4294901759ull

#endif /* OFL_HW_K3_UDMA_H */
