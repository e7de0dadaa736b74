/* SPDX-License-Identifier: MIT */
/*
 * NXP (Freescale) DSPI: the register map and the clock arithmetic shared by
 * the register-level model (src/sim/dspi*.c) and the direct backend
 * (backends/dspi/). Sources, by the topic numbers used here and in
 * backends/dspi and src/sim/dspi*.c:
 *   1 device tree    Linux Documentation/devicetree/bindings/spi/fsl,dspi.yaml and
 *                    fsl,dspi-peripheral-props.yaml; drivers/spi/spi-fsl-dspi.c
 *                    fsl_dspi_dt_ids, dspi_setup() (1.3: the child's
 *                    spi-max-frequency is the only clock the driver programs)
 *   2 per-SoC data   spi-fsl-dspi.c devtype_data[]
 *   3 registers      spi-fsl-dspi.c register definitions; the NXP Kinetis
 *                    MK22FA12 SDK header (SPI registers, reset values) and the
 *                    NXP S32Z2_SPI.h header (XSPI CTARE/SREX/command fields)
 *   4 baud, delays   spi-fsl-dspi.c hz_to_spi_baud(), ns_delay_scale()
 *   5 flows          spi-fsl-dspi.c dspi_probe()/dspi_init() (5.1),
 *                    dspi_transfer_one_message() (5.2, 5.6 chip select and
 *                    cs_change), dspi_xspi_fifo_write()/dspi_fifo_read()/dspi_poll()
 *                    (5.3 XSPI PIO), dspi_dma_xfer() (5.4)
 *
 * Everything here is pure: offsets, bit fields, the prescaler/scaler tables
 * and the selection rules of Linux's hz_to_spi_baud() and ns_delay_scale()
 * (topic 4), reimplemented from their arithmetic.
 */
#ifndef OFL_HW_DSPI_H
#define OFL_HW_DSPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------- register offsets (topic 3.1) */

#define DSPI_MCR 0x00u
#define DSPI_TCR 0x08u
#define DSPI_CTAR(n) (0x0Cu + 4u * (n))
#define DSPI_SR 0x2Cu
#define DSPI_RSER 0x30u
#define DSPI_PUSHR 0x34u
#define DSPI_POPR 0x38u
#define DSPI_TXFR(n) (0x3Cu + 4u * (n))
#define DSPI_RXFR(n) (0x7Cu + 4u * (n))
#define DSPI_CTARE(n) (0x11Cu + 4u * (n))
#define DSPI_SREX 0x13Cu
/* Bytes of register space: DSPI_REGMAP (max_register 0x88) and XSPI (0x13C). */
#define DSPI_REGS_SIZE 0x8Cu
#define DSPI_REGS_SIZE_XSPI 0x140u
/* CTAR and TXFR/RXFR index limits of the register space. */
#define DSPI_MAX_CTAR 8u
#define DSPI_MAX_FIFO 16u

/* ------------------------------------------------------------- MCR (topic 3.2) */

#define DSPI_MCR_MSTR (1u << 31)
#define DSPI_MCR_CONT_SCKE (1u << 30)
#define DSPI_MCR_DCONF_MASK (3u << 28)
#define DSPI_MCR_FRZ (1u << 27)
#define DSPI_MCR_MTFE (1u << 26)
#define DSPI_MCR_PCSSE (1u << 25)
#define DSPI_MCR_ROOE (1u << 24)
#define DSPI_MCR_PCSIS_SHIFT 16
#define DSPI_MCR_PCSIS_MASK (0x3Fu << DSPI_MCR_PCSIS_SHIFT)
#define DSPI_MCR_PCSIS(cs_mask) (((uint32_t)(cs_mask)&0x3Fu) << DSPI_MCR_PCSIS_SHIFT)
#define DSPI_MCR_DOZE (1u << 15)
#define DSPI_MCR_MDIS (1u << 14)
#define DSPI_MCR_DIS_TXF (1u << 13)
#define DSPI_MCR_DIS_RXF (1u << 12)
#define DSPI_MCR_CLR_TXF (1u << 11)
#define DSPI_MCR_CLR_RXF (1u << 10)
#define DSPI_MCR_SMPL_PT_MASK (3u << 8)
#define DSPI_MCR_XSPI (1u << 3)
#define DSPI_MCR_FCPCS (1u << 2)
#define DSPI_MCR_PES (1u << 1)
#define DSPI_MCR_HALT (1u << 0)
/* Kinetis reset value (MDIS | HALT); the Layerscape reset value is unconfirmed. */
#define DSPI_MCR_RESET 0x00004001u

/* ------------------------------------------------------------- TCR (topic 3.3) */

#define DSPI_TCR_TCNT_SHIFT 16
#define DSPI_TCR_TCNT(v) ((uint32_t)(v) << DSPI_TCR_TCNT_SHIFT)

/* ------------------------------------------------------------- CTARn, master view (topic 3.4) */

#define DSPI_CTAR_DBR (1u << 31)
#define DSPI_CTAR_FMSZ_SHIFT 27
#define DSPI_CTAR_FMSZ_MASK (0xFu << DSPI_CTAR_FMSZ_SHIFT)
#define DSPI_CTAR_FMSZ(v) (((uint32_t)(v)&0xFu) << DSPI_CTAR_FMSZ_SHIFT)
#define DSPI_CTAR_CPOL (1u << 26)
#define DSPI_CTAR_CPHA (1u << 25)
#define DSPI_CTAR_LSBFE (1u << 24)
#define DSPI_CTAR_PCSSCK(v) (((uint32_t)(v)&3u) << 22)
#define DSPI_CTAR_PASC(v) (((uint32_t)(v)&3u) << 20)
#define DSPI_CTAR_PDT(v) (((uint32_t)(v)&3u) << 18)
#define DSPI_CTAR_PBR(v) (((uint32_t)(v)&3u) << 16)
#define DSPI_CTAR_CSSCK(v) (((uint32_t)(v)&0xFu) << 12)
#define DSPI_CTAR_ASC(v) (((uint32_t)(v)&0xFu) << 8)
#define DSPI_CTAR_DT(v) (((uint32_t)(v)&0xFu) << 4)
#define DSPI_CTAR_BR(v) ((uint32_t)(v)&0xFu)
/* Field extraction. */
#define DSPI_CTAR_GET_PCSSCK(c) (((c) >> 22) & 3u)
#define DSPI_CTAR_GET_PASC(c) (((c) >> 20) & 3u)
#define DSPI_CTAR_GET_PDT(c) (((c) >> 18) & 3u)
#define DSPI_CTAR_GET_PBR(c) (((c) >> 16) & 3u)
#define DSPI_CTAR_GET_CSSCK(c) (((c) >> 12) & 0xFu)
#define DSPI_CTAR_GET_ASC(c) (((c) >> 8) & 0xFu)
#define DSPI_CTAR_GET_DT(c) (((c) >> 4) & 0xFu)
#define DSPI_CTAR_GET_BR(c) ((c)&0xFu)
#define DSPI_CTAR_GET_FMSZ(c) (((c) >> DSPI_CTAR_FMSZ_SHIFT) & 0xFu)
/* Kinetis reset value: 16-bit frames. */
#define DSPI_CTAR_RESET 0x78000000u

/* ------------------------------------------------------------- SR (topic 3.5) */

#define DSPI_SR_TCF (1u << 31)
#define DSPI_SR_TXRXS (1u << 30)
#define DSPI_SR_EOQF (1u << 28)
#define DSPI_SR_TFUF (1u << 27)
#define DSPI_SR_TFFF (1u << 25)
#define DSPI_SR_BSYF (1u << 24)
#define DSPI_SR_CMDTCF (1u << 23)
#define DSPI_SR_SPEF (1u << 21)
#define DSPI_SR_RFOF (1u << 19)
#define DSPI_SR_TFIWF (1u << 18)
#define DSPI_SR_RFDF (1u << 17)
#define DSPI_SR_CMDFFF (1u << 16)
#define DSPI_SR_TXCTR(sr) (((sr) >> 12) & 0xFu)
#define DSPI_SR_TXNXTPTR(sr) (((sr) >> 8) & 0xFu)
#define DSPI_SR_RXCTR(sr) (((sr) >> 4) & 0xFu)
#define DSPI_SR_POPNXTPTR(sr) ((sr)&0xFu)
/* What the current Linux driver writes to clear the flags (no EOQF, no TXRXS). */
#define DSPI_SR_CLEAR 0x8AAF0000u
/*
 * SPI_SR_CLEAR with EOQF: the mask of the 2020 driver (spi-fsl-dspi.c at
 * 3d87b613), every flag and no reserved bit, no TXRXS. A library taking
 * over a controller clears EOQF too: left set, it keeps the module stopped.
 */
#define DSPI_SR_CLEAR_EOQF (DSPI_SR_CLEAR | DSPI_SR_EOQF)
/* Kinetis reset value: TFFF. */
#define DSPI_SR_RESET 0x02000000u

/* ------------------------------------------------------------- RSER (topic 3.6) */

#define DSPI_RSER_TCF_RE (1u << 31)
#define DSPI_RSER_CMDFFF_RE (1u << 30)
#define DSPI_RSER_EOQF_RE (1u << 28)
#define DSPI_RSER_TFUF_RE (1u << 27)
#define DSPI_RSER_TFFF_RE (1u << 25)
#define DSPI_RSER_TFFF_DIRS (1u << 24)
#define DSPI_RSER_CMDTCF_RE (1u << 23)
#define DSPI_RSER_SPEF_RE (1u << 21)
#define DSPI_RSER_RFOF_RE (1u << 19)
#define DSPI_RSER_TFIWF_RE (1u << 18)
#define DSPI_RSER_RFDF_RE (1u << 17)
#define DSPI_RSER_RFDF_DIRS (1u << 16)
#define DSPI_RSER_CMDFFF_DIRS (1u << 15)

/* ------------------------------------------------------------- PUSHR command half (topic 3.7) */

/* Bit positions inside the 16-bit command half; shift by 16 for a 32-bit entry. */
#define DSPI_CMD_CONT (1u << 15)
#define DSPI_CMD_CTAS(n) (((uint32_t)(n)&7u) << 12)
#define DSPI_CMD_GET_CTAS(c) (((c) >> 12) & 7u)
#define DSPI_CMD_EOQ (1u << 11)
#define DSPI_CMD_CTCNT (1u << 10)
#define DSPI_CMD_PE_MASC (1u << 9)
#define DSPI_CMD_PP_MCSC (1u << 8)
#define DSPI_CMD_PCS_MASK 0x3Fu
#define DSPI_CMD_PCS(cs) ((cs) < 6 ? (1u << (cs)) : 0u)
/* Native chip selects a command can name (PCS is 6 bits). */
#define DSPI_MAX_NATIVE_CS 6u
/*
 * XSPI 16-bit halves of PUSHR: little-endian registers put the command at
 * +2 and the TX data at +0; big-endian ones the command at +0 and the data
 * at +2 (topic 3.7, Linux dspi_probe).
 */
#define DSPI_PUSHR_CMD_LE (DSPI_PUSHR + 2u)
#define DSPI_PUSHR_TX_LE (DSPI_PUSHR + 0u)
#define DSPI_PUSHR_CMD_BE (DSPI_PUSHR + 0u)
#define DSPI_PUSHR_TX_BE (DSPI_PUSHR + 2u)

/* ------------------------------------------------------------- CTAREn, SREX (topic 3.8) */

#define DSPI_CTARE_FMSZE (1u << 16)
#define DSPI_CTARE_DTCP_MASK 0x7FFu
#define DSPI_CTARE_DTCP(n) ((uint32_t)(n)&DSPI_CTARE_DTCP_MASK)
#define DSPI_SREX_TXCTR4 (1u << 14)
#define DSPI_SREX_RXCTR4 (1u << 11)
#define DSPI_SREX_CMDCTR(v) (((v) >> 4) & 0x1Fu)
#define DSPI_SREX_CMDNXTPTR(v) ((v)&0xFu)

/* Frame size fields for `bits` (4..32): FMSZ gets the low 4 bits of bits - 1, CTARE.FMSZE bit 4. */
static inline uint32_t dspi_ctar_fmsz_bits(unsigned bits)
{
	return DSPI_CTAR_FMSZ((bits - 1u) & 0xFu);
}
static inline uint32_t dspi_ctare_fmsze_bits(unsigned bits)
{
	return (bits - 1u) & 0x10u ? DSPI_CTARE_FMSZE : 0u;
}

/* ------------------------------------------------------------- clock arithmetic (topic 4) */

/* Baud rate prescaler (PBR) and scaler (BR) values by field code. */
static const uint8_t dspi_pbr_tab[4] = { 2, 3, 5, 7 };
static const uint16_t dspi_br_tab[16] = { 2,   4,   6,    8,    16,   32,   64,    128,
					  256, 512, 1024, 2048, 4096, 8192, 16384, 32768 };
/* Delay prescalers (PCSSCK, PASC, PDT) by code; the delay scalers are 2^(code + 1). */
static const uint8_t dspi_dly_psc_tab[4] = { 1, 3, 5, 7 };

static inline uint32_t dspi_dly_scaler(unsigned code)
{
	return 2u << (code & 0xFu);
}

/* Largest baud divisor: PBR 7 x BR 32768. */
#define DSPI_MAX_BAUD_DIV (7u * 32768u)
/* Smallest baud divisor: PBR 2 x BR 2 (DBR, which halves it, only serves S32G above 25 MHz). */
#define DSPI_MIN_BAUD_DIV (2u * 2u)

/*
 * The slowest SCK at protocol clock fp, fp / DSPI_MAX_BAUD_DIV, in
 * millihertz rounded up: printed as Hz with three decimals it is never
 * below the true minimum (200 MHz: 871.930.. Hz gives 871931).
 */
static inline uint64_t dspi_min_sck_mhz(uint64_t fp)
{
	uint64_t rem = fp % DSPI_MAX_BAUD_DIV; /* rem * 1000 fits: rem < 229376 */

	return fp / DSPI_MAX_BAUD_DIV * 1000u + (rem * 1000u + DSPI_MAX_BAUD_DIV - 1u) / DSPI_MAX_BAUD_DIV;
}

/*
 * Linux hz_to_spi_baud(): the (PBR, BR) pair with the smallest divisor
 * PBR x BR that is at least ceil(fp / hz) (so SCK never exceeds hz); for
 * each BR in table order the first PBR that reaches it is considered, and a
 * later pair must be strictly smaller to win. With MTF (S32G above 25 MHz)
 * the divisor is halved (integer) because DBR doubles the rate. Returns the
 * divisor (before halving) or 0 when no pair is slow enough (Linux then
 * falls back to PBR 7, BR 32768, a faster clock than asked).
 */
static inline uint32_t dspi_baud_select(uint64_t fp, uint32_t hz, bool mtf, uint8_t *pbr,
					 uint8_t *br)
{
	uint64_t need, best = UINT64_MAX;

	if (hz == 0)
		return 0;
	need = fp / hz + (fp % hz ? 1u : 0u);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 4; j++) {
			uint64_t scale = (uint64_t)dspi_br_tab[i] * dspi_pbr_tab[j];
			if (mtf)
				scale /= 2u;
			if (scale >= need) {
				if (scale < best) {
					best = scale;
					*br = (uint8_t)i;
					*pbr = (uint8_t)j;
				}
				break;
			}
		}
	if (best == UINT64_MAX)
		return 0;
	return (uint32_t)dspi_br_tab[*br] * dspi_pbr_tab[*pbr];
}

/*
 * Linux ns_delay_scale(): the prescaler (1, 3, 5, 7) and scaler (2..65536)
 * codes whose product is the smallest at least ceil(ns x fp / 1e9). Returns
 * true when such a pair exists; false when the delay exceeds 7 x 65536
 * clocks (the codes are then the largest: prescaler 7, scaler 65536).
 */
static inline bool dspi_delay_select(uint64_t fp, uint32_t ns, uint8_t *psc, uint8_t *sc)
{
	uint64_t prod = (uint64_t)ns * fp;
	uint64_t need = prod / 1000000000u + (prod % 1000000000u ? 1u : 0u);
	uint64_t best = UINT64_MAX;

	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 16; j++) {
			uint64_t scale = (uint64_t)dspi_dly_psc_tab[i] * dspi_dly_scaler(j);
			if (scale >= need) {
				if (scale < best) {
					best = scale;
					*psc = (uint8_t)i;
					*sc = (uint8_t)j;
				}
				break;
			}
		}
	if (best != UINT64_MAX)
		return true;
	*psc = 3;
	*sc = 15;
	return false;
}

/*
 * Linux dspi_setup(): the CS-to-SCK and SCK-to-CS delays are raised to at
 * least a quarter SCK period, ceil(ceil(1e9 / hz) / 4) ns.
 */
static inline uint32_t dspi_quarter_period_ns(uint32_t hz)
{
	uint32_t period = hz ? (uint32_t)((1000000000ull + hz - 1u) / hz) : 0u;

	return (period + 3u) / 4u;
}

/* SCK that CTAR value `ctar` gives at protocol clock fp, in millihertz (rounded down). */
static inline uint64_t dspi_ctar_sck_mhz(uint64_t fp, uint32_t ctar)
{
	uint64_t div = (uint64_t)dspi_pbr_tab[DSPI_CTAR_GET_PBR(ctar)] * dspi_br_tab[DSPI_CTAR_GET_BR(ctar)];
	uint64_t mul = (ctar & DSPI_CTAR_DBR) ? 2u : 1u;

	return fp * 1000u * mul / div;
}

/* CS-to-SCK delay (tCSC), SCK-to-CS delay (tASC), delay after transfer (tDT) in protocol clocks. */
static inline uint32_t dspi_ctar_tcsc_clocks(uint32_t ctar)
{
	return dspi_dly_psc_tab[DSPI_CTAR_GET_PCSSCK(ctar)] * dspi_dly_scaler(DSPI_CTAR_GET_CSSCK(ctar));
}
static inline uint32_t dspi_ctar_tasc_clocks(uint32_t ctar)
{
	return dspi_dly_psc_tab[DSPI_CTAR_GET_PASC(ctar)] * dspi_dly_scaler(DSPI_CTAR_GET_ASC(ctar));
}
static inline uint32_t dspi_ctar_tdt_clocks(uint32_t ctar)
{
	return dspi_dly_psc_tab[DSPI_CTAR_GET_PDT(ctar)] * dspi_dly_scaler(DSPI_CTAR_GET_DT(ctar));
}

/* ------------------------------------------------------------- the protocol clock */

/*
 * Topic 2: the devtypes, one per compatible of Linux spi-fsl-dspi.c
 * fsl_dspi_dt_ids with its devtype_data[] row: the transfer mode Linux uses
 * in host mode, FIFO entries, the max clock factor (max SCK = fP / factor),
 * CTAR count, whether the XSPI registers (CTARE, SREX) exist, and the
 * devtype Linux uses with `spi-slave` when it differs. "fsl,ls1088a-dspi"
 * has no driver entry and so is deliberately absent: such nodes match their
 * "fsl,ls1021a-v1.0-dspi" fallback, as in Linux. The backend's match table
 * and the model's devtype lookup are both built from this one list.
 */
enum dspi_trans_mode { DSPI_TRANS_XSPI, DSPI_TRANS_DMA, DSPI_TRANS_EOQ, DSPI_TRANS_TCFQ };

struct dspi_devtype {
	const char *compatible;
	const char *name;           /* devtype_data[] index name */
	enum dspi_trans_mode mode;  /* host mode */
	uint8_t fifo_size;
	uint8_t max_clock_factor;
	uint8_t num_ctar;
	bool xspi_regs;
	const char *target_source;  /* devtype used with spi-slave, NULL = the same */
};

/* X(compatible, name, mode, fifo, factor, ctars, xspi, target) */
#define DSPI_DEVTYPES(X)                                                                           \
	X("fsl,vf610-dspi", "VF610", DSPI_TRANS_DMA, 4, 2, 4, false, NULL)                        \
	X("fsl,ls1021a-v1.0-dspi", "LS1021A", DSPI_TRANS_XSPI, 4, 8, 4, true, NULL)               \
	X("fsl,ls1012a-dspi", "LS1012A", DSPI_TRANS_XSPI, 16, 8, 4, true, NULL)                   \
	X("fsl,ls1028a-dspi", "LS1028A", DSPI_TRANS_XSPI, 4, 8, 4, true, NULL)                    \
	X("fsl,ls1043a-dspi", "LS1043A", DSPI_TRANS_XSPI, 16, 8, 4, true, NULL)                   \
	X("fsl,ls1046a-dspi", "LS1046A", DSPI_TRANS_XSPI, 16, 8, 4, true, NULL)                   \
	X("fsl,ls2080a-dspi", "LS2080A", DSPI_TRANS_XSPI, 4, 8, 4, true, NULL)                    \
	X("fsl,ls2085a-dspi", "LS2085A", DSPI_TRANS_XSPI, 4, 8, 4, true, NULL)                    \
	X("fsl,lx2160a-dspi", "LX2160A", DSPI_TRANS_XSPI, 4, 8, 4, true, NULL)                    \
	X("nxp,s32g2-dspi", "S32G", DSPI_TRANS_XSPI, 5, 1, 6, true,                               \
	  "Linux spi-fsl-dspi.c devtype_data[S32G_TARGET]")

/* A struct dspi_devtype initializer from one DSPI_DEVTYPES() entry. */
#define DSPI_DEVTYPE_INIT(c, n, m, fifo, factor, nctar, xspi, target)                             \
	{ c, n, m, fifo, factor, nctar, xspi, target }

/*
 * The DSPI's protocol clock on a simulated copy of an LS1028A board (a
 * "twin"): the tree gives clockgen cell <4 1>, the platform PLL / 2
 * (drivers/clk/clk-qoriq.c), whose rate lives in an RCW field no device
 * tree carries. The labelled assumption: a platform PLL of 4 x SYSCLK (the
 * clockgen's fixed input), 400 MHz at 100 MHz SYSCLK, the ratio of NXP's
 * usual LS1028A reset configurations; no Layerscape reference manual
 * confirms it. As an src/dt clock rule (struct ofl_dt_clock_rule): the
 * backend and the model both read the clock with it, so they agree.
 */
#define DSPI_LS1028A_TWIN_PLL_MULT 4u
#define DSPI_LS1028A_TWIN_CLOCK_RULE                                                              \
	{ "fsl,ls1028a-clockgen", 2, { 4, 1, 0, 0 }, DSPI_LS1028A_TWIN_PLL_MULT, 2 }

#endif /* OFL_HW_DSPI_H */
