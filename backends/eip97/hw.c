/* SPDX-License-Identifier: MIT */
/*
 * EIP97 engine and ring initialisation, the sequence of Linux
 * safexcel_hw_init() on the EIP97 path (hw/eip97.h §6.1): at probe, and
 * again after a stall once the threads have stopped (ring.c).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "eip97.h"

static void wr(const struct eip97_engine *e, uint32_t off, uint32_t v)
{
	ofl_mmio_write32(&e->regs, off, v);
}

static uint32_t rd(const struct eip97_engine *e, uint32_t off)
{
	return ofl_mmio_read32(&e->regs, off);
}

int eip97_ring_alloc(struct eip97_engine *e, struct eip97_ring *r, char *why, size_t wl)
{
	struct {
		struct ofl_dma **d;
		size_t len;
	} parts[] = {
		{ &r->cdr, (size_t)EIP97_RING_SLOTS * e->cd_stride },
		{ &r->atok, (size_t)EIP97_RING_SLOTS * EIP97_ATOK_WORDS * 4u },
		{ &r->rdr, (size_t)EIP97_RING_SLOTS * e->rd_stride },
	};

	for (size_t i = 0; i < OFL_ARRAY_SIZE(parts); i++) {
		int rc = ofl_dma_alloc(e->pool, parts[i].len, 64, e->ring_cache, false, parts[i].d, why, wl);
		if (rc < 0)
			return rc;
	}
	/* each CD's ATOK pointer names its shadow block, written once (§3.1) */
	for (uint32_t s = 0; s < EIP97_RING_SLOTS; s++) {
		size_t cd = (size_t)s * e->cd_stride; /* aligned words: ring memory may be Device memory */
		uint64_t a = r->atok->bus + (uint64_t)s * EIP97_ATOK_WORDS * 4u;
		ofl_dma_zero(r->cdr, cd, e->cd_stride);
		ofl_dma_w32(r->cdr, cd + 4u * EIP97_CD_W_ATOK_LO, (uint32_t)a);
		ofl_dma_w32(r->cdr, cd + 4u * EIP97_CD_W_ATOK_HI, (uint32_t)(a >> 32));
	}
	ofl_dma_sync_for_device(r->cdr, 0, r->cdr->len);
	return 0;
}

void eip97_ring_free(struct eip97_ring *r)
{
	ofl_dma_free(r->cdr);
	ofl_dma_free(r->atok);
	ofl_dma_free(r->rdr);
	r->cdr = r->atok = r->rdr = NULL;
}

/* §6.1 step 5: disable fetching, clear counts and pointers, set the ring size. */
void eip97_ring_hw_reset(struct eip97_ring *r)
{
	const struct eip97_engine *e = r->e;
	uint32_t x[2] = { EIP97_CDR(r->id), EIP97_RDR(r->id) };

	wr(e, EIP97_RDR(r->id) + EIP97_XDR_THRESH, 0);
	for (int k = 0; k < 2; k++) {
		wr(e, x[k] + EIP97_XDR_CFG, 0);
		wr(e, x[k] + EIP97_XDR_PREP_COUNT, EIP97_COUNT_CLR);
		wr(e, x[k] + EIP97_XDR_PROC_COUNT, EIP97_COUNT_CLR);
		wr(e, x[k] + EIP97_XDR_PREP_PNTR, 0);
		wr(e, x[k] + EIP97_XDR_PROC_PNTR, 0);
		wr(e, x[k] + EIP97_XDR_RING_SIZE,
		   EIP97_RING_SLOTS * (k ? e->rd_stride : e->cd_stride));
	}
}

/* §6.1 steps 7 and 8 for one ring. */
void eip97_ring_hw_setup(struct eip97_ring *r)
{
	const struct eip97_engine *e = r->e;
	uint32_t c = EIP97_CDR(r->id), d = EIP97_RDR(r->id);
	uint32_t cd_w = e->cd_stride / 4u, rd_w = e->rd_stride / 4u;
	uint32_t cd_rnd = eip97_round_words(EIP97_CD_WORDS, e->hwdataw);
	uint32_t rd_rnd = eip97_round_words(EIP97_RD_FETCH_WORDS, e->hwdataw);

	wr(e, c + EIP97_XDR_BASE_LO, (uint32_t)r->cdr->bus);
	wr(e, c + EIP97_XDR_BASE_HI, (uint32_t)(r->cdr->bus >> 32));
	wr(e, c + EIP97_XDR_DESC_SIZE, EIP97_DESC_64BIT | EIP97_DESC_ADCP | cd_w << 16 | EIP97_CD_WORDS);
	wr(e, c + EIP97_XDR_CFG, (e->cd_fetch * cd_rnd) << 16 | (e->cd_fetch * cd_w));
	wr(e, c + EIP97_XDR_DMA_CFG, EIP97_CDR_DMA_CFG);
	wr(e, c + EIP97_XDR_STAT, EIP97_CDR_STAT_CLEAR);

	wr(e, d + EIP97_XDR_BASE_LO, (uint32_t)r->rdr->bus);
	wr(e, d + EIP97_XDR_BASE_HI, (uint32_t)(r->rdr->bus >> 32));
	wr(e, d + EIP97_XDR_DESC_SIZE, EIP97_DESC_64BIT | rd_w << 16 | e->rd_size_w);
	wr(e, d + EIP97_XDR_CFG, (e->rd_fetch * rd_rnd) << 16 | (e->rd_fetch * rd_w));
	wr(e, d + EIP97_XDR_DMA_CFG, EIP97_RDR_DMA_CFG);
	wr(e, d + EIP97_XDR_STAT, EIP97_RDR_STAT_CLEAR);
	uint32_t aic = EIP97_AIC_R(r->id) + EIP97_AIC_ENABLE_CTRL;
	wr(e, aic, rd(e, aic) | EIP97_AIC_RDR_IRQ(r->id));
	r->cd_w = r->cd_r = r->rd_w = r->rd_r = 0;
	r->f_head = r->f_tail = 0;
	r->stall_since = 0;
}

/* Poll DSE_THR_STAT until bits 15:12 are all set (threads idle after their reset), up to ns. */
static int dse_idle(const struct eip97_engine *e, uint64_t ns)
{
	/* Linux polls without a limit; the library bounds the wait */
	uint64_t deadline = ofl_now_ns() + ns;

	while ((rd(e, EIP97_DSE_THR_STAT) & EIP97_DSE_THR_IDLE) != EIP97_DSE_THR_IDLE) {
		if (ofl_now_ns() > deadline)
			return -ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

int eip97_threads_stop(struct eip97_engine *e, uint64_t ns)
{
	wr(e, EIP97_DFE_THR_CTRL, EIP97_THR_RESET_PE);
	wr(e, EIP97_DSE_THR_CTRL, EIP97_THR_RESET_PE);
	return dse_idle(e, ns);
}

int eip97_hw_init(struct eip97_engine *e, char *why, size_t wl)
{
	uint32_t mask = (1u << e->nrings) - 1u;

	/* step 3: master control, global interrupts off and acknowledged */
	wr(e, EIP97_GEN_MST_CTRL, EIP97_GEN_MST_CTRL_VALUE);
	wr(e, EIP97_AIC_G_ENABLE_CTRL, 0);
	wr(e, EIP97_AIC_G_ACK, 0xffffffffu);
	/* step 4: data fetch engine, processing engine input, data store engine */
	wr(e, EIP97_DFE_THR_CTRL, EIP97_THR_RESET_PE);
	wr(e, EIP97_DFE_CFG, EIP97_DFE_CFG_VALUE);
	wr(e, EIP97_DFE_THR_CTRL, 0);
	wr(e, EIP97_PE_IN_DBUF_THRES, EIP97_IN_DBUF_VALUE);
	wr(e, EIP97_PE_IN_TBUF_THRES, EIP97_IN_TBUF_VALUE);
	wr(e, EIP97_DSE_THR_CTRL, EIP97_THR_RESET_PE);
	if (dse_idle(e, e->reset_timeout_ns) < 0) {
		snprintf(why, wl, "the DSE threads did not report idle (DSE_THR_STAT 0x%08x) within %llu ms "
			 "of their reset", rd(e, EIP97_DSE_THR_STAT),
			 (unsigned long long)(e->reset_timeout_ns / 1000000u));
		return -ETIMEDOUT;
	}
	wr(e, EIP97_DSE_CFG, EIP97_DSE_CFG_VALUE);
	wr(e, EIP97_DSE_THR_CTRL, 0);
	wr(e, EIP97_PE_OUT_DBUF_THRES, EIP97_OUT_DBUF_VALUE);
	wr(e, EIP97_EIP96_TOKEN_CTRL, EIP97_TOKEN_CTRL_VALUE);
	wr(e, EIP97_EIP96_FUNCTION_EN, EIP97_FUNCTION_ALL);
	wr(e, EIP97_EIP96_FUNCTION2_EN, EIP97_FUNCTION_ALL);
	/* step 5: every ring cleared */
	for (uint32_t i = 0; i < e->nrings; i++) {
		wr(e, EIP97_AIC_R(i) + EIP97_AIC_ENABLE_CLR, 0xffffffffu);
		eip97_ring_hw_reset(&e->ring[i]);
	}
	/* step 6: enable the threads for the rings in use */
	wr(e, EIP97_DFE_THR_CTRL, EIP97_THR_EN | mask);
	wr(e, EIP97_DSE_THR_CTRL, EIP97_THR_EN | mask);
	wr(e, EIP97_AIC_G_ACK, EIP97_AIC_G_ACK_RINGS);
	/* steps 7, 8 */
	for (uint32_t i = 0; i < e->nrings; i++)
		eip97_ring_hw_setup(&e->ring[i]);
	return 0;
}
