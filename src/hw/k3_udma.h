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

/*
 * Field masks of the channel configuration registers (TI MCU+ SDK / PDK
 * cslr_udmap.h CSL_UDMAP_TCHAN_TCFG_* and CSL_UDMAP_RCHAN_RCFG_*, cslr_bcdma.h
 * CSL_BCDMA_BCHAN_BCFG_*): the bits that exist; the rest read 0.
 * TCFG: PAUSE_ON_ERR 31, FILT_EINFO 30, FILT_PSWORDS 29, ATYPE 25:24,
 * CHAN_TYPE 19:16, BURST_SIZE 11:10, TDTYPE 9, NOTDPKT 8, FETCH_SIZE 6:0.
 * RCFG: PAUSE_ON_ERR 31, ATYPE 25:24, CHAN_TYPE 19:16, IGNORE_SHORT 15,
 * IGNORE_LONG 14, BURST_SIZE 11:10, FETCH_SIZE 6:0.
 * RFLOW_RNG: FLOWID_CNT 30:16, FLOWID_START 13:0.
 */
#define K3_TCFG_FIELDS 0xE30F0F7Fu
#define K3_RCFG_FIELDS 0x830FCC7Fu
#define K3_RFLOW_RNG_FIELDS 0x7FFF3FFFu
#define K3_CFG_BURST_MASK K3_CFG_BURST(3)
#define K3_CFG_CHAN_TYPE_MASK K3_CFG_CHAN_TYPE(0xF)
#define K3_CFG_ATYPE_MASK K3_CFG_ATYPE(3)
#define K3_CFG_FETCH_MASK K3_CFG_FETCH_SIZE(0x7F)
#define K3_TCFG_NOTDPKT K3_BIT(8)
/*
 * BCDMA block-copy channel CFG: PAUSE_ON_ERR 31 and BURST_SIZE 11:10 are
 * writable (TI CSL csl_bcdma.c CSL_bcdmaChanOp() sets these only); the channel
 * type bits read a fixed value. Reset 0x00120400 (the SVD-derived AM64x
 * register description, BCDMA_BCHAN_CFG), i.e. BURST_SIZE 1 = 64 B; on BCDMA
 * BURST_SIZE 0 means 32 B (the same description: 0 = 32 B, 1 = 64 B).
 */
#define K3_BCFG_WRITABLE 0x80000C00u
#define K3_BCFG_RESET 0x00120400u

/*
 * ---- §3.7 PSI-L configuration proxy (TI CSL cslr_psilcfg.h, csl_psilcfg.h) ----
 * A NAVSS's PSI-L thread configuration is reached through a proxy: write
 * CMDA (DIR, THREAD_ID) and CMDB (BYTEN, ADDRESS), then WDATA for a write,
 * wait for CMDA.BUSY to clear, then read RDATA for a read; CMDA.TO reports a
 * timeout (a thread that does not answer), cleared through PSIL_TO.TOUT.
 * The pairing of a source thread with a destination thread is TI CSL
 * csl_psilcfg.c CSL_psilcfgCreateRoute(): read the destination's
 * CAPABILITIES, write the source's PEER_THREAD_ID = THREAD_WIDTH | the
 * destination and PEER_CREDIT = CREDIT_CNT, then set ENABLE of the
 * destination and of the source, then RT_ENABLE of the destination and of the
 * source (each a read, then a write with the bit set). Unpairing (TI
 * sciclient_rm_csl.c Sciclient_rmPsilUnpair()) clears RT_ENABLE of the source
 * then of the destination.
 */
#define K3_PSILCFG_SIZE 0x200u
#define K3_PSILCFG_PSIL_TO 0x010u
#define K3_PSILCFG_PSIL_TO_TOUT K3_BIT(31)
#define K3_PSILCFG_CMDA 0x100u
#define K3_PSILCFG_CMDB 0x104u
#define K3_PSILCFG_WDATA 0x108u
#define K3_PSILCFG_RDATA 0x140u
#define K3_PSILCFG_CMDA_BUSY K3_BIT(31)
#define K3_PSILCFG_CMDA_DIR_READ K3_BIT(30)
#define K3_PSILCFG_CMDA_TO K3_BIT(29)
#define K3_PSILCFG_CMDA_THREAD(v) K3_FIELD_GET(v, 15, 0)
#define K3_PSILCFG_CMDB_BYTEN_ALL K3_FIELD_PREP(0xF, 31, 28)
#define K3_PSILCFG_CMDB_ADDR(v) K3_FIELD_GET(v, 15, 0)
#define K3_PSIL_PEER_THREAD_ID 0x000u /* THREAD_WIDTH 28:24, THREAD_ID 15:0 */
#define K3_PSIL_PEER_CREDIT 0x001u    /* CREDIT_CNT 7:0 */
#define K3_PSIL_ENABLE 0x002u         /* ENABLE 31 */
#define K3_PSIL_CAPABILITIES 0x040u   /* THREAD_WIDTH 28:24, CREDIT_CNT 7:0 */
#define K3_PSIL_RT_ENABLE 0x408u      /* ENABLE 31 */
#define K3_PSIL_EN K3_BIT(31)
#define K3_PSIL_WIDTH_MASK K3_FIELD_PREP(0x1F, 28, 24)
#define K3_PSIL_CREDIT_MASK 0xFFu

/*
 * Where a NAVSS's PSI-L configuration proxy is: the device tree does not say
 * (no binding has it), so this per-SoC table does. Main NAVSS of the J721E
 * and of the AM65x: 0x31F78000 (TI PDK cslr_soc_baseaddress.h
 * CSL_NAVSS0_UDMASS_PSILCFG0_CFG_PROXY_BASE, used by TI's udma driver
 * udma_soc.c as the main NAVSS's psilCfgRegs). Rows: the UDMA's compatible,
 * the root compatible that must match too (NULL = any), the proxy's base.
 * SoCs not listed (J784S4, J721S2, J7200, the MCU NAVSSes) are not known here.
 */
struct k3_psil_proxy {
	const char *compatible, *root;
	uint64_t base;
};
static inline const struct k3_psil_proxy *k3_psil_proxies(void)
{
	static const struct k3_psil_proxy t[] = {
		{ "ti,j721e-navss-main-udmap", "ti,j721e", 0x31F78000ull },
		{ "ti,am654-navss-main-udmap", "ti,am654", 0x31F78000ull },
		{ NULL, NULL, 0 },
	};
	return t;
}

/*
 * ---- §6.1 resource ownership: TI's default board configuration ----
 * With DM firmware each host owns the channels and rings its board
 * configuration gives it; Linux asks the firmware for the ranges of the
 * resource subtypes its tree names (ti,sci-rm-range-tchan / -rchan on the
 * UDMA, -gp-rings on the ring accelerator: k3-udma.c udma_setup_resources(),
 * ti_sci.c ti_sci_get_of_resource()). The library has TI's default board
 * configuration for the AM65x A53 host 12 (U-Boot board/ti/am65x/rm-cfg.yaml:
 * main UDMAP, TI-SCI device 188: TX_HCHAN (subtype 0x0f) 1-3, TX_CHAN (0x0d)
 * 8-19 and 26-63, RX_HCHAN (0x0b) 2-3, RX_CHAN (0x0a) 8-19 and 26-77; main
 * ring accelerator, device 187: GP rings (0x01) 304-403). Rows: root
 * compatible, host, TI-SCI device, subtype, first, count.
 */
struct k3_rm_range {
	const char *root;
	uint16_t host, dev;
	uint8_t subtype;
	uint16_t start, num;
};
static inline const struct k3_rm_range *k3_rm_ranges(void)
{
	static const struct k3_rm_range t[] = {
		{ "ti,am654", 12, 188, 0x0f, 1, 3 },
		{ "ti,am654", 12, 188, 0x0d, 8, 12 },
		{ "ti,am654", 12, 188, 0x0d, 26, 38 },
		{ "ti,am654", 12, 188, 0x0b, 2, 2 },
		{ "ti,am654", 12, 188, 0x0a, 8, 12 },
		{ "ti,am654", 12, 188, 0x0a, 26, 52 },
		{ "ti,am654", 12, 187, 0x01, 304, 100 },
		{ NULL, 0, 0, 0, 0, 0 },
	};
	return t;
}

/*
 * Does TI-SCI host `host` own index `idx` of device `dev` under one of the
 * `n` resource subtypes (a ti,sci-rm-range-* property's values) on a board
 * for which root_is(arg, root compatible) holds? 1 yes, 0 no, -1 when the
 * table has no row for this board, host and device (ownership unknown).
 */
static inline int k3_rm_owned(int (*root_is)(const void *arg, const char *root), const void *arg, uint16_t host,
			      uint16_t dev, const uint32_t *subtypes, int n, uint32_t idx)
{
	int known = -1;

	for (const struct k3_rm_range *r = k3_rm_ranges(); r->root; r++) {
		if (r->host != host || r->dev != dev || !root_is(arg, r->root))
			continue;
		known = 0;
		for (int k = 0; k < n; k++)
			if (subtypes[k] == r->subtype && idx >= r->start && idx - r->start < r->num)
				return 1;
	}
	return known;
}

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
#define K3_DRING_SIZE_QMODE_GET(v) K3_FIELD_GET(v, 31, 29)
/*
 * QMODE 1 (DRING / TX ring) is the only mode a DMSS ring has and its reset
 * value (TI CSL cslr_lcdma_ringacc.h); TI's firmware and CSL never write it
 * (csl_lcdma_ringacc.c CSL_lcdma_ringaccInitRing() sets ELCNT only), so the
 * library changes ELCNT only.
 */
#define K3_DRING_QMODE_DRING 1u
#define K3_DRING_SIZE_ELCNT(x) K3_FIELD_PREP(x, 15, 0)
#define K3_DRING_SIZE_ELCNT_MASK K3_DRING_SIZE_ELCNT(0xFFFF)
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
