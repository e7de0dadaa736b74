/* SPDX-License-Identifier: MIT */
/*
 * EIP97 model, host-interface side: registers (hw/eip97.h §1.4, §2), the
 * command/result descriptor rings and the packet flow (§3, §6), faults.
 * The processing of one packet is eip97_pe.c.
 *
 * One model thread serves the rings in turn, one packet at a time (the
 * EIP97 has one processing pipe). A packet is taken when its CDs up to the
 * last segment and its RDs up to the driver's last-segment RD are
 * prepared; the model then reads the context record, the IV and token
 * words (inline and at the CD's ATOK pointer) and the input particles from
 * the RAM view of simulated memory and runs the packet; then (a late
 * completion waits here, in the pipe) it stores the output over the RD
 * buffers in ring order, writes back the RDs it used with the result token
 * in the one holding the last byte and counts the packet in the RDR
 * PROC_COUNT.
 *
 * What the model refuses, as silicon would or as no source lets us assume
 * it would not (issue #14, audits/eip97.md §4); each "model:" below:
 *  - packets run only with the configuration Linux's safexcel_hw_init()
 *    writes on the EIP97 path (MST_CTRL, DFE_CFG, DSE_CFG, the PE buffer
 *    thresholds, TOKEN_CTRL, FUNCTION_EN, FUNCTION2_EN, each ring's
 *    DMA_CFG): another value is named in a bus error of the world and the
 *    rings do not fetch until the register holds Linux's value (the model
 *    cannot know what the silicon makes of it, e.g. FUNCTION_EN bits off
 *    disable algorithms);
 *  - a ring runs while its DFE and DSE thread bits are enabled and its CDR
 *    and RDR CFG are non-zero; a fetch block (CFG) that does not fit the
 *    CD FIFO or the RD FIFO (the pre-v5.6 Linux bug, §3.1), or whose two
 *    halves count different descriptors, never fetches and flags STAT.ERR;
 *  - a ring's counters are cleared (CLR_COUNT) only with its DFE and DSE
 *    threads out of the ring (in reset, or not enabled for it), as Linux
 *    prepares rings: under running threads the write is refused (a bus
 *    error) and ignored. A ring in fatal error (STAT.ERR: a descriptor it
 *    could not fetch or use, an over-acknowledged count) runs again only
 *    after a DSE thread reset followed by that ring prepare; nothing else
 *    un-hangs it;
 *  - a zero-length packet (Linux safexcel_send_req(): the EIP97 cannot
 *    deal with one) and the STUCK fault hang the one pipe: no ring runs and
 *    the DSE threads never report idle again; only teardown releases it;
 *  - DSE THR_STAT bits 15:12 read set while the DSE threads are held in
 *    reset and the pipe holds no packet: a packet in the pipe when they
 *    are reset is finished (data, RDs, count) before they report idle
 *    (Linux safexcel_hw_init(): "Wait for all DSE threads to complete");
 *  - PREP_COUNT and PROC_COUNT writes move whole descriptors (a multiple of
 *    the ring's stride); PROC_COUNT acknowledges at most what was
 *    processed. Otherwise the driver's accounting no longer describes the
 *    ring: a bus error, and the ring stops in fatal error;
 *  - the RDR PROC_COUNT counts packets (bits 30:24) only in packet mode
 *    (RDR THRESH bit 23, which Linux sets before its first packet),
 *    descriptors always [U];
 *  - the engine ends a packet's output in the RD holding its last byte (or
 *    the first RD when there is no output): RDs from the first to that one
 *    are written back with the bytes stored, first_seg / last_seg as the
 *    engine saw the packet and the overflow bits cleared (buffer_overflow
 *    set when the output did not fit); the result token goes to that RD;
 *    RDs of the packet that received nothing are not written [U];
 *  - the CDR PROC_COUNT (never acknowledged by Linux) wraps at 24 bits;
 *  - the ring AIC latches RDR_IRQ when the RDR STAT gains THRESH, TIMEOUT,
 *    ERR or DMA_ERR; an ACK clears the latch;
 *  - version fields of the VERSION registers (signatures are the real ones).
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt/dt.h"
#include "util/util.h"
#include "hw/eip97.h"
#include "sim/eip97_model.h"
#include "sim/eip97_pe.h"
#include "sim/sim.h"

/* model: version fields (major.minor.patch) next to the real signatures */
#define VER_HIA (0x02300000u | EIP97_SIG_HIA)
#define VER_EIP97 (0x02300000u | EIP97_SIG_EIP97)
#define VER_EIP197 (0x02300000u | EIP97_SIG_EIP197)
#define VER_EIP201 (0x01200000u | EIP97_SIG_EIP201)
#define VER_EIP206 (0x01200000u | EIP97_SIG_EIP206)
#define VER_EIP96 (0x04300000u | EIP97_SIG_EIP96)

#define MAX_SEGS 256u /* descriptors of one packet the model follows */

struct xdr {
	uint32_t base_lo, base_hi, ring_size, desc_size, cfg, dma_cfg, thresh, stat;
	uint32_t prep_pntr, proc_pntr; /* byte offsets in the ring */
	uint32_t prep;                 /* CDR: CD bytes prepared, not fetched; RDR: RD bytes free */
	uint32_t proc_bytes, proc_pkts;
};

struct mring {
	struct xdr cdr, rdr;
	uint32_t aic_enable, aic_raw;
	bool hung;        /* fatal ring error (STAT.ERR) */
	bool dse_reset;   /* the DSE threads were reset since the ring went fatal */
	struct ofl_sim_eip97_stats st;
};

struct ofl_sim_eip97 {
	struct ofl_sim_model base;
	struct ofl_sim *sim;
	struct ofl_sim_eip97_params p;
	pthread_mutex_t mu;
	struct ofl_sim_thread th;
	struct eip97_pe *pe;
	bool swapped, busy;
	bool stuck;                   /* the pipe holds a packet forever */
	uint32_t stuck_ring;
	uint64_t dse_resets;
	uint32_t options, algo_flags;
	uint32_t hia_mst, gen_mst, g_enable, g_raw;
	uint32_t dfe_cfg, dfe_thr, dse_cfg, dse_thr;
	uint32_t in_dbuf, in_tbuf, out_dbuf, token_ctrl, func_en, func2_en, ctx_ctrl;
	char cfg_said[160];           /* the last configuration refusal reported */
	struct mring ring[EIP97_MAX_RINGS];
};
_Static_assert(offsetof(struct ofl_sim_eip97, base) == 0, "ofl_sim_block_of() needs the model first");

/* One packet as fetched from the rings, and what running it produced. */
struct pkt {
	uint32_t cd[EIP97_CD_WORDS];
	uint32_t ncd, nrd;
	uint64_t in_addr[MAX_SEGS];
	uint32_t in_len[MAX_SEGS];
	uint64_t rd_addr[MAX_SEGS];   /* where each RD lives */
	uint32_t rd_w0[MAX_SEGS];
	uint64_t out_addr[MAX_SEGS];
	uint32_t out_written[MAX_SEGS];
	uint32_t err;
	uint8_t *out;                 /* the output stream, stored after the pipe */
	size_t out_len;
};

static uint64_t bus_to_phys(const struct ofl_sim_eip97 *m, uint64_t bus)
{
	return bus - m->p.dma_offset;
}

static uint64_t xdr_base(const struct xdr *x)
{
	return (uint64_t)x->base_hi << 32 | x->base_lo;
}

static uint32_t xdr_stride(const struct xdr *x)
{
	return EIP97_DESC_STRIDE_WORDS(x->desc_size) * 4u;
}

static int rd_words(struct ofl_sim_eip97 *m, uint64_t bus, uint32_t *w, unsigned n)
{
	uint8_t b[64];

	if (ofl_sim_dma_read(m->sim, bus_to_phys(m, bus), b, n * 4u) < 0)
		return -EFAULT;
	for (unsigned i = 0; i < n; i++)
		w[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
		       (uint32_t)b[4 * i + 3] << 24;
	return 0;
}

static int wr_words(struct ofl_sim_eip97 *m, uint64_t bus, const uint32_t *w, unsigned n)
{
	uint8_t b[64];

	for (unsigned i = 0; i < n; i++) {
		b[4 * i] = (uint8_t)w[i];
		b[4 * i + 1] = (uint8_t)(w[i] >> 8);
		b[4 * i + 2] = (uint8_t)(w[i] >> 16);
		b[4 * i + 3] = (uint8_t)(w[i] >> 24);
	}
	return ofl_sim_dma_write(m->sim, bus_to_phys(m, bus), b, n * 4u);
}

/* ------------------------------------------------------------- ring state */

static void aic_update(struct mring *r, uint32_t idx)
{
	if (r->rdr.stat & (EIP97_STAT_THRESH | EIP97_STAT_TIMEOUT | EIP97_STAT_ERR | EIP97_STAT_DMA_ERR))
		r->aic_raw |= EIP97_AIC_RDR_IRQ(idx);
	if (r->cdr.stat & (EIP97_STAT_ERR | EIP97_STAT_DMA_ERR))
		r->aic_raw |= EIP97_AIC_CDR_IRQ(idx);
}

static void ring_fatal(struct ofl_sim_eip97 *m, uint32_t idx, bool dma)
{
	struct mring *r = &m->ring[idx];

	r->cdr.stat |= EIP97_STAT_ERR | (dma ? EIP97_STAT_DMA_ERR : 0);
	r->rdr.stat |= EIP97_STAT_ERR | (dma ? EIP97_STAT_DMA_ERR : 0);
	r->hung = true;
	r->dse_reset = false;
	aic_update(r, idx);
}

/* The ring's threads of one engine (DFE or DSE THR_CTRL) run: enabled for it, not in reset. */
static bool thr_runs(uint32_t thr, uint32_t idx)
{
	return !(thr & EIP97_THR_RESET_PE) && (thr & EIP97_THR_EN) && (EIP97_THR_RING_MASK(thr) & EIP97_BIT(idx));
}

/* Are the ring's DFE or DSE threads running (so that its registers may not be re-prepared)? */
static bool ring_threads_run(const struct ofl_sim_eip97 *m, uint32_t idx)
{
	return thr_runs(m->dfe_thr, idx) || thr_runs(m->dse_thr, idx);
}

/* The ring is configured and enabled (see the file comment). Lock held. */
static bool ring_ready(struct ofl_sim_eip97 *m, uint32_t idx)
{
	const struct mring *r = &m->ring[idx];
	uint32_t cdw = EIP97_DESC_SIZE_WORDS(r->cdr.desc_size);
	uint32_t rdw = EIP97_DESC_SIZE_WORDS(r->rdr.desc_size);

	if (r->hung || m->stuck || !thr_runs(m->dfe_thr, idx) || !thr_runs(m->dse_thr, idx))
		return false;
	if (!r->cdr.cfg || !r->rdr.cfg || !r->cdr.ring_size || !r->rdr.ring_size)
		return false;
	if (cdw < EIP97_CD_WORDS || xdr_stride(&r->cdr) < cdw * 4u ||
	    rdw < eip97_res_offset(m->p.hwdataw) + 1u || xdr_stride(&r->rdr) < rdw * 4u ||
	    r->cdr.ring_size % xdr_stride(&r->cdr) || r->rdr.ring_size % xdr_stride(&r->rdr))
		return false;
	return true;
}

/*
 * The values Linux safexcel_hw_init() writes on the EIP97 path (§6.1), the
 * only configuration the model runs (see the file comment).
 */
static const struct {
	uint32_t off, val;
	const char *name;
} linux_cfg[] = {
	{ EIP97_GEN_MST_CTRL, EIP97_GEN_MST_CTRL_VALUE, "MST_CTRL" },
	{ EIP97_DFE_CFG, EIP97_DFE_CFG_VALUE, "HIA_DFE_CFG" },
	{ EIP97_DSE_CFG, EIP97_DSE_CFG_VALUE, "HIA_DSE_CFG" },
	{ EIP97_PE_IN_DBUF_THRES, EIP97_IN_DBUF_VALUE, "PE_IN_DBUF_THRES" },
	{ EIP97_PE_IN_TBUF_THRES, EIP97_IN_TBUF_VALUE, "PE_IN_TBUF_THRES" },
	{ EIP97_PE_OUT_DBUF_THRES, EIP97_OUT_DBUF_VALUE, "PE_OUT_DBUF_THRES" },
	{ EIP97_EIP96_TOKEN_CTRL, EIP97_TOKEN_CTRL_VALUE, "PE_EIP96_TOKEN_CTRL" },
	{ EIP97_EIP96_FUNCTION_EN, EIP97_FUNCTION_ALL, "PE_EIP96_FUNCTION_EN" },
	{ EIP97_EIP96_FUNCTION2_EN, EIP97_FUNCTION_ALL, "PE_EIP96_FUNCTION2_EN" },
};

static uint32_t *misc_reg(struct ofl_sim_eip97 *m, uint32_t off);

/*
 * A register of ring idx or of the engine that does not hold Linux's value:
 * its sentence in `why` and true. Lock held.
 */
static bool config_refused(struct ofl_sim_eip97 *m, uint32_t idx, char *why, size_t wl)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(linux_cfg); i++) {
		uint32_t v = *misc_reg(m, linux_cfg[i].off);
		if (v != linux_cfg[i].val) {
			snprintf(why, wl, "eip97 model: %s is 0x%08x; the model runs packets only with the value "
				 "Linux safexcel_hw_init() writes, 0x%08x", linux_cfg[i].name, v, linux_cfg[i].val);
			return true;
		}
	}
	const struct mring *r = &m->ring[idx];
	if (r->cdr.dma_cfg != EIP97_CDR_DMA_CFG || r->rdr.dma_cfg != EIP97_RDR_DMA_CFG) {
		bool c = r->cdr.dma_cfg != EIP97_CDR_DMA_CFG;
		snprintf(why, wl, "eip97 model: ring %u %s DMA_CFG is 0x%08x; the model runs packets only with "
			 "the value Linux safexcel_hw_setup_%cdesc_rings() writes, 0x%08x", idx, c ? "CDR" : "RDR",
			 c ? r->cdr.dma_cfg : r->rdr.dma_cfg, c ? 'c' : 'r',
			 c ? EIP97_CDR_DMA_CFG : EIP97_RDR_DMA_CFG);
		return true;
	}
	return false;
}

/*
 * An xDR's fetch block (CFG) against its FIFO: the high half is fetch
 * count x descriptor fetch size (CD: the CD size, RD: 4 words, rounded up to
 * bus words), the low half fetch count x stride, both in words (Linux
 * safexcel_hw_setup_{c,r}desc_rings()); the block must fit the FIFO of
 * 2^cfsize / 2^rfsize bus words.
 */
static bool xdr_cfg_fits(const struct ofl_sim_eip97 *m, const struct xdr *x, bool cdr)
{
	uint32_t unit = eip97_round_words(cdr ? EIP97_DESC_SIZE_WORDS(x->desc_size) : EIP97_RD_FETCH_WORDS,
					  m->p.hwdataw);
	uint32_t stride = EIP97_DESC_STRIDE_WORDS(x->desc_size);
	uint32_t hi = EIP97_CFG_FETCH_SIZE(x->cfg), lo = EIP97_CFG_FETCH_STRIDE(x->cfg);
	uint32_t fifo = (1u << (cdr ? m->p.cfsize : m->p.rfsize)) << m->p.hwdataw;

	if (!unit || !stride || hi % unit || lo % stride || hi / unit != lo / stride || !hi)
		return false;
	return hi <= fifo;
}

static bool fits(const struct ofl_sim_eip97 *m, uint32_t idx)
{
	return xdr_cfg_fits(m, &m->ring[idx].cdr, true) && xdr_cfg_fits(m, &m->ring[idx].rdr, false);
}

/* model: a fetch block the FIFO cannot hold never fetches (flags ERR once). */
static bool fetch_fits(struct ofl_sim_eip97 *m, uint32_t idx)
{
	struct mring *r = &m->ring[idx];
	bool ok = true;

	for (int k = 0; k < 2; k++) {
		struct xdr *x = k ? &r->rdr : &r->cdr;
		if (xdr_cfg_fits(m, x, k == 0))
			continue;
		ok = false;
		if (!(x->stat & EIP97_STAT_ERR)) {
			x->stat |= EIP97_STAT_ERR;
			aic_update(r, idx);
		}
	}
	return ok;
}

/* The ring could fetch now, configuration allowing (no side effects). Lock held. */
static bool ring_can_fetch(struct ofl_sim_eip97 *m, uint32_t idx)
{
	char why[160];

	return ring_ready(m, idx) && fits(m, idx) && !config_refused(m, idx, why, sizeof(why));
}

/*
 * A doorbell on a ring whose configuration the model refuses: said at once
 * (once per refusal), so that the driver's write is where it shows. Lock held.
 */
static bool config_refusal_said(struct ofl_sim_eip97 *m, uint32_t idx)
{
	char why[160];

	if (!config_refused(m, idx, why, sizeof(why))) {
		m->cfg_said[0] = '\0';
		return false;
	}
	if (strcmp(why, m->cfg_said) != 0) {
		ofl_strlcpy(m->cfg_said, why, sizeof(m->cfg_said));
		ofl_sim_bus_error(m->sim, "%s", why);
	}
	return true;
}

/* ------------------------------------------------------------- packet fetch */

enum fetch { F_NONE, F_WAIT, F_GOT, F_HUNG };

/* Gather the next packet's CDs and RDs. Lock held. */
static enum fetch fetch(struct ofl_sim_eip97 *m, uint32_t idx, struct pkt *k)
{
	struct mring *r = &m->ring[idx];
	uint32_t cs = xdr_stride(&r->cdr), rs = xdr_stride(&r->rdr);
	uint64_t cbase = xdr_base(&r->cdr), rbase = xdr_base(&r->rdr);

	if (!ring_ready(m, idx) || r->cdr.prep < cs || !fetch_fits(m, idx) || config_refusal_said(m, idx))
		return F_NONE;
	uint32_t off = r->cdr.proc_pntr % r->cdr.ring_size;
	if (rd_words(m, cbase + off, k->cd, EIP97_CD_WORDS) < 0) {
		ring_fatal(m, idx, true);
		return F_HUNG;
	}
	if (!(k->cd[0] & EIP97_CD_FIRST_SEG)) {
		ring_fatal(m, idx, false); /* model: a packet must start with a first-segment CD */
		return F_HUNG;
	}
	if (EIP97_CD_PKT_LEN(k->cd[EIP97_CD_W_PKT]) == 0) {
		m->stuck = true; /* zero-length packets hang the engine (hw/eip97.h §6.5) */
		m->stuck_ring = idx;
		return F_HUNG;
	}
	uint32_t w[EIP97_CD_WORDS];
	memcpy(w, k->cd, sizeof(w));
	for (k->ncd = 0;; k->ncd++) {
		if (k->ncd >= MAX_SEGS) {
			ring_fatal(m, idx, false);
			return F_HUNG;
		}
		if (k->ncd && rd_words(m, cbase + off, w, 6) < 0) {
			ring_fatal(m, idx, true);
			return F_HUNG;
		}
		k->in_addr[k->ncd] = (uint64_t)w[EIP97_CD_W_DATA_HI] << 32 | w[EIP97_CD_W_DATA_LO];
		k->in_len[k->ncd] = EIP97_CD_PARTICLE(w[0]);
		off = (off + cs) % r->cdr.ring_size;
		if (w[0] & EIP97_CD_LAST_SEG)
			break;
		if (r->cdr.prep < (k->ncd + 2) * cs)
			return F_WAIT; /* the rest of the packet is not prepared yet */
	}
	k->ncd++;
	/* the driver's RDs for this packet, up to its last-segment RD */
	off = r->rdr.proc_pntr % r->rdr.ring_size;
	for (k->nrd = 0;; k->nrd++) {
		if (k->nrd >= MAX_SEGS) {
			ring_fatal(m, idx, false);
			return F_HUNG;
		}
		if (r->rdr.prep < (k->nrd + 1) * rs)
			return F_WAIT;
		uint32_t rw[EIP97_RD_FETCH_WORDS];
		k->rd_addr[k->nrd] = rbase + off;
		if (rd_words(m, rbase + off, rw, EIP97_RD_FETCH_WORDS) < 0) {
			ring_fatal(m, idx, true);
			return F_HUNG;
		}
		k->rd_w0[k->nrd] = rw[0];
		k->out_addr[k->nrd] = (uint64_t)rw[EIP97_RD_W_DATA_HI] << 32 | rw[EIP97_RD_W_DATA_LO];
		off = (off + rs) % r->rdr.ring_size;
		if (rw[0] & EIP97_RD_LAST_SEG)
			break;
	}
	k->nrd++;
	return F_GOT;
}

/* ------------------------------------------------------------- packet run */

static uint32_t iv_words(uint32_t opts, bool *bad)
{
	switch (EIP97_OPT_IV_FIELD(opts)) {
	case 0: return 0;
	case 6: return 2;
	case 7: return 4;
	default: *bad = true; return 0; /* model: other IV codes are treated as bad tokens */
	}
}

/*
 * The CD's type and options as Linux sends them (safexcel_add_cdesc(),
 * EIP197_OPTION_*): type BCLA (EXTENDED is the EIP197's record-cache
 * command; the EIP97 has no record cache), MAGIC, record-cache control
 * RC_AUTO, no undefined bit. 0 or the error bit (model: a token error /
 * a context error for the record-cache control).
 */
static uint32_t cd_options_error(uint32_t w6)
{
	uint32_t opts = EIP97_CD_OPTIONS(w6);

	if (EIP97_CD_TYPE(w6) != EIP97_CD_TYPE_BCLA || !(opts & EIP97_OPT_MAGIC) ||
	    (opts & ~EIP97_OPT_KNOWN))
		return EIP97_E_TOKEN;
	if ((opts & EIP97_OPT_RC_MASK) != EIP97_OPT_RC_AUTO)
		return EIP97_E_CONTEXT;
	return 0;
}

/* Run a fetched packet (no lock held): k->err, and its output in k->out / k->out_len. */
static void run(struct ofl_sim_eip97 *m, struct pkt *k, bool adcp)
{
	const uint32_t *cd = k->cd;
	uint32_t opts = EIP97_CD_OPTIONS(cd[EIP97_CD_W_PKT]), tok[4 + 255];
	uint32_t pkt_len = EIP97_CD_PKT_LEN(cd[EIP97_CD_W_PKT]), acd = EIP97_CD_ACDATA(cd[0]);
	bool bad = false;
	uint32_t ivw = iv_words(opts, &bad);
	uint8_t iv[16], *in = NULL;
	size_t total = 0, cap = 0;
	unsigned ntok = 0;

	k->out = NULL;
	k->out_len = 0;
	k->err = cd_options_error(cd[EIP97_CD_W_PKT]);
	if (!k->err && (bad || (acd && !adcp)))
		k->err = EIP97_E_TOKEN;
	if (k->err)
		return;
	for (uint32_t i = 0; i < ivw; i++) {
		uint32_t v = cd[EIP97_CD_W_TOKEN + i];
		iv[4 * i] = (uint8_t)v;
		iv[4 * i + 1] = (uint8_t)(v >> 8);
		iv[4 * i + 2] = (uint8_t)(v >> 16);
		iv[4 * i + 3] = (uint8_t)(v >> 24);
	}
	for (uint32_t i = ivw; i < EIP97_CD_IV_WORDS; i++)
		tok[ntok++] = cd[EIP97_CD_W_TOKEN + i];
	uint64_t atok = (uint64_t)cd[EIP97_CD_W_ATOK_HI] << 32 | cd[EIP97_CD_W_ATOK_LO];
	for (uint32_t i = 0; i < acd; i += 16) {
		uint32_t n = OFL_MIN(16u, acd - i);
		if (rd_words(m, atok + 4u * i, tok + ntok, n) < 0) {
			k->err = EIP97_E_DMA;
			return;
		}
		ntok += n;
	}
	/*
	 * The context record: SIZE data words after the two control words.
	 * model: without 64BIT_CTX the context pointer is word 8 alone.
	 */
	uint64_t ctx = ((opts & EIP97_OPT_64BIT_CTX) ? (uint64_t)cd[EIP97_CD_W_CTX_HI] << 32 : 0) |
		       (cd[EIP97_CD_W_CTX_LO] & ~3u);
	uint32_t size = EIP97_C0_SIZE_GET(cd[EIP97_CD_W_CONTROL0]);
	if ((cd[EIP97_CD_W_CTX_LO] & 3u) != EIP97_CTX_SMALL || !(opts & EIP97_OPT_CTX_CTRL_IN_CMD)) {
		k->err = EIP97_E_CONTEXT; /* model: only the small record with control words in the CD */
		return;
	}
	uint8_t ctxb[256 * 4];
	if (size && ofl_sim_dma_read(m->sim, bus_to_phys(m, ctx + EIP97_CTX_DATA_OFF), ctxb, size * 4u) < 0) {
		k->err = EIP97_E_DMA;
		return;
	}
	for (uint32_t i = 0; i < k->ncd; i++)
		total += k->in_len[i];
	if (total != pkt_len) {
		k->err = EIP97_E_PKT_LEN;
		goto done;
	}
	for (uint32_t i = 0; i < k->nrd; i++)
		cap += EIP97_RD_PARTICLE(k->rd_w0[i]);
	in = malloc(total ? total : 1);
	size_t ocap = OFL_MAX(cap, total) + 256u;
	k->out = malloc(ocap);
	if (!in || !k->out) {
		k->err = EIP97_E_DMA;
		goto done;
	}
	for (uint32_t i = 0, off = 0; i < k->ncd; off += k->in_len[i], i++)
		if (k->in_len[i] &&
		    ofl_sim_dma_read(m->sim, bus_to_phys(m, k->in_addr[i]), in + off, k->in_len[i]) < 0) {
			k->err = EIP97_E_DMA;
			goto done;
		}
	struct eip97_job j = {
		.control0 = cd[EIP97_CD_W_CONTROL0], .control1 = cd[EIP97_CD_W_CONTROL1], .ctx = ctxb,
		.ctx_len = size * 4u, .iv = iv, .iv_words = ivw, .tok = tok, .ntok = ntok, .in = in,
		.in_len = total, .out = k->out, .out_cap = ocap,
	};
	k->err = eip97_pe_run(m->pe, &j);
	k->out_len = j.out_len;
done:
	ofl_wipe(ctxb, sizeof(ctxb));
	free(in);
}

/*
 * Store the output over the RD buffers in ring order (no lock held). The
 * index of the RD that ends the packet: the one holding the last byte, the
 * first when there is none, the last when the output did not fit (*ovf).
 */
static uint32_t store(struct ofl_sim_eip97 *m, struct pkt *k, bool *ovf)
{
	size_t done = 0;
	uint32_t last = 0;

	for (uint32_t i = 0; i < k->nrd; i++) {
		size_t n = OFL_MIN((size_t)EIP97_RD_PARTICLE(k->rd_w0[i]), k->out_len - done);
		k->out_written[i] = (uint32_t)n;
		if (n && ofl_sim_dma_write(m->sim, bus_to_phys(m, k->out_addr[i]), k->out + done, n) < 0)
			k->err |= EIP97_E_DMA;
		if (n)
			last = i;
		done += n;
	}
	*ovf = k->out_len > done;
	if (*ovf)
		last = k->nrd - 1u;
	free(k->out);
	k->out = NULL;
	return last;
}

/* Write the RDs back and count the packet. Lock held. */
static void complete(struct ofl_sim_eip97 *m, uint32_t idx, struct pkt *k, uint32_t last, bool ovf,
		     bool lost)
{
	struct mring *r = &m->ring[idx];
	uint32_t cs = xdr_stride(&r->cdr), rs = xdr_stride(&r->rdr), res = eip97_res_offset(m->p.hwdataw);
	uint32_t err = k->err;

	for (uint32_t i = 0; i <= last; i++) {
		uint32_t w0 = (k->rd_w0[i] & ~(0x1ffffu | EIP97_RD_DESC_OVF | EIP97_RD_BUF_OVF |
					       EIP97_RD_FIRST_SEG | EIP97_RD_LAST_SEG)) |
			      k->out_written[i] | (i == 0 ? EIP97_RD_FIRST_SEG : 0) |
			      (i == last ? EIP97_RD_LAST_SEG : 0) | (i == last && ovf ? EIP97_RD_BUF_OVF : 0);
		if (wr_words(m, k->rd_addr[i], &w0, 1) < 0)
			err |= EIP97_E_DMA;
		if (i == last) {
			uint32_t t[EIP97_RD_RESULT_WORDS] = { 0 };
			t[0] = ((uint32_t)k->out_len & 0x1ffffu) | EIP97_RES_ERR_PREP(err);
			t[2] = k->cd[EIP97_CD_W_APPID] & 0xffffu;
			wr_words(m, k->rd_addr[i] + res * 4u, t, EIP97_RD_RESULT_WORDS);
		}
	}
	r->cdr.proc_pntr = (r->cdr.proc_pntr + k->ncd * cs) % r->cdr.ring_size;
	r->cdr.prep -= OFL_MIN(r->cdr.prep, k->ncd * cs);
	r->cdr.proc_bytes = (r->cdr.proc_bytes + k->ncd * cs) & 0xfffffcu;
	r->rdr.proc_pntr = (r->rdr.proc_pntr + k->nrd * rs) % r->rdr.ring_size;
	r->rdr.prep -= OFL_MIN(r->rdr.prep, k->nrd * rs);
	r->st.packets++;
	for (uint32_t i = 0; i < k->ncd; i++)
		r->st.bytes_in += k->in_len[i];
	if (err) {
		r->st.errors++;
		r->st.last_error = err;
	}
	if (lost)
		return; /* the work is done, the completion is never counted */
	r->rdr.proc_bytes += k->nrd * rs;
	if (!(r->rdr.thresh & EIP97_THRESH_PKT_MODE))
		return; /* model: descriptor mode counts no packets [U] */
	r->rdr.proc_pkts++;
	uint32_t th = EIP97_THRESH_PROC_PKT(r->rdr.thresh);
	if (th && r->rdr.proc_pkts >= th) {
		r->rdr.stat |= EIP97_STAT_THRESH;
		aic_update(r, idx);
	}
}

/* Serve one packet of ring idx: true if something happened. */
static bool serve(struct ofl_sim_eip97 *m, uint32_t idx)
{
	struct pkt *k = malloc(sizeof(*k));
	uint32_t arg = 0;
	bool ovf, lost;

	if (!k)
		return false;
	pthread_mutex_lock(&m->mu);
	enum fetch f = m->stuck ? F_NONE : fetch(m, idx, k);
	if (f == F_GOT && ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_STUCK, NULL, 0, NULL)) {
		m->stuck = true; /* the pipe holds the packet; only teardown releases it */
		m->stuck_ring = idx;
		f = F_HUNG;
	}
	if (f != F_GOT) {
		pthread_mutex_unlock(&m->mu);
		free(k);
		return f == F_HUNG;
	}
	bool adcp = m->ring[idx].cdr.desc_size & EIP97_DESC_ADCP;
	m->busy = true;
	pthread_mutex_unlock(&m->mu);

	run(m, k, adcp);
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg))
		k->err |= arg ? (arg & EIP97_RES_ERR_ALL) : EIP97_E_DMA;
	lost = ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_LOST, NULL, 0, NULL);
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_DELAY, NULL, 0, &arg)) {
		struct timespec ts = { (time_t)(arg / 1000000u), (long)(arg % 1000000u) * 1000L };
		nanosleep(&ts, NULL); /* model: a late packet holds the whole (single) pipe */
	}
	uint32_t last = store(m, k, &ovf);
	pthread_mutex_lock(&m->mu);
	complete(m, idx, k, last, ovf, lost);
	m->busy = false;
	pthread_mutex_unlock(&m->mu);
	free(k);
	return true;
}

static void model_run(void *arg)
{
	struct ofl_sim_eip97 *m = arg;
	uint32_t next = 0;

	for (;;) {
		bool did = false;
		for (uint32_t n = 0; n < EIP97_MAX_RINGS; n++) {
			/* rings in turn, one packet each (round robin across rings) */
			uint32_t i = (next + n) % EIP97_MAX_RINGS;
			if (serve(m, i)) {
				did = true;
				next = i + 1;
				break;
			}
		}
		if (!did && ofl_sim_thread_sleep(&m->th, -1))
			return;
		pthread_mutex_lock(&m->th.mu);
		bool stop = m->th.stop;
		pthread_mutex_unlock(&m->th.mu);
		if (stop)
			return;
	}
}

static bool model_idle(struct ofl_sim_model *base)
{
	struct ofl_sim_eip97 *m = ofl_container_of(base, struct ofl_sim_eip97, base);
	bool idle = true;

	pthread_mutex_lock(&m->mu);
	for (uint32_t i = 0; i < EIP97_MAX_RINGS && idle; i++)
		if (m->ring[i].cdr.prep && ring_can_fetch(m, i))
			idle = false;
	idle = idle && !m->busy;
	pthread_mutex_unlock(&m->mu);
	return idle;
}

/* ------------------------------------------------------------- registers */

static uint32_t *xdr_reg(struct xdr *x, uint32_t off)
{
	switch (off) {
	case EIP97_XDR_BASE_LO: return &x->base_lo;
	case EIP97_XDR_BASE_HI: return &x->base_hi;
	case EIP97_XDR_RING_SIZE: return &x->ring_size;
	case EIP97_XDR_DESC_SIZE: return &x->desc_size;
	case EIP97_XDR_CFG: return &x->cfg;
	case EIP97_XDR_DMA_CFG: return &x->dma_cfg;
	case EIP97_XDR_THRESH: return &x->thresh;
	case EIP97_XDR_PREP_PNTR: return &x->prep_pntr;
	case EIP97_XDR_PROC_PNTR: return &x->proc_pntr;
	default: return NULL;
	}
}

static uint32_t xdr_read(struct xdr *x, uint32_t off)
{
	uint32_t *reg = xdr_reg(x, off);

	if (reg)
		return *reg;
	switch (off) {
	case EIP97_XDR_PREP_COUNT: return x->prep & 0xfffffcu;
	case EIP97_XDR_PROC_COUNT:
		return OFL_MIN(x->proc_pkts, EIP97_PROC_PKTS_MAX) << 24 | (x->proc_bytes & 0xfffffcu);
	case EIP97_XDR_STAT: return x->stat;
	default: return 0;
	}
}

/* A count write that breaks the ring's accounting: a bus error, and the ring stops in fatal error. */
static void count_refused(struct ofl_sim_eip97 *m, uint32_t idx, bool cdr, const char *reg, const char *why)
{
	ofl_sim_bus_error(m->sim, "eip97 model: ring %u %s %s: %s; the ring stops (STAT.ERR)", idx,
			  cdr ? "CDR" : "RDR", reg, why);
	ring_fatal(m, idx, false);
}

/* CLR_COUNT of a ring counter (Linux: only while preparing rings, threads out of the ring). */
static void count_clear(struct ofl_sim_eip97 *m, uint32_t idx, bool cdr, uint32_t off)
{
	struct mring *r = &m->ring[idx];
	struct xdr *x = cdr ? &r->cdr : &r->rdr;
	const char *reg = off == EIP97_XDR_PREP_COUNT ? "PREP_COUNT" : "PROC_COUNT";

	if (ring_threads_run(m, idx)) {
		ofl_sim_bus_error(m->sim, "eip97 model: ring %u %s %s CLR_COUNT while the ring's DFE/DSE "
				  "threads run (Linux clears ring counters only with them reset or disabled, "
				  "safexcel_hw_init()): ignored", idx, cdr ? "CDR" : "RDR", reg);
		return;
	}
	if (off == EIP97_XDR_PREP_COUNT) {
		x->prep = 0;
		if (cdr && r->hung && r->dse_reset) { /* model: re-prepared after a DSE reset */
			r->hung = false;
			r->cdr.stat &= ~(EIP97_STAT_ERR | EIP97_STAT_DMA_ERR);
			r->rdr.stat &= ~(EIP97_STAT_ERR | EIP97_STAT_DMA_ERR);
		}
	} else {
		x->proc_pkts = x->proc_bytes = 0;
	}
}

static void xdr_write(struct ofl_sim_eip97 *m, uint32_t idx, bool cdr, uint32_t off, uint32_t v)
{
	struct mring *r = &m->ring[idx];
	struct xdr *x = cdr ? &r->cdr : &r->rdr;
	uint32_t *reg = xdr_reg(x, off), stride = xdr_stride(x), n = v & 0xffffffu;
	char why[120];

	if (reg) {
		*reg = v;
		if ((off == EIP97_XDR_CFG && v) || off == EIP97_XDR_DMA_CFG)
			ofl_sim_thread_kick(&m->th); /* descriptors prepared before fetching was enabled */
		return;
	}
	switch (off) {
	case EIP97_XDR_PREP_COUNT:
		if (v & EIP97_COUNT_CLR) {
			count_clear(m, idx, cdr, off);
			break;
		}
		if (!stride || n % stride) {
			snprintf(why, sizeof(why), "%u bytes prepared, not a whole number of %u-byte descriptors",
				 n, stride);
			count_refused(m, idx, cdr, "PREP_COUNT", why);
			break;
		}
		x->prep += n;
		if (x->ring_size)
			x->prep_pntr = (x->prep_pntr + n) % x->ring_size;
		if (cdr && fetch_fits(m, idx)) /* flags a fetch block the FIFOs cannot hold */
			config_refusal_said(m, idx);
		ofl_sim_thread_kick(&m->th);
		break;
	case EIP97_XDR_PROC_COUNT:
		if (v & EIP97_COUNT_CLR) {
			count_clear(m, idx, cdr, off);
			break;
		}
		if (EIP97_PROC_PKTS(v) > x->proc_pkts || EIP97_PROC_BYTES(v) > x->proc_bytes ||
		    (stride && EIP97_PROC_BYTES(v) % stride) || (v & 3u)) {
			snprintf(why, sizeof(why), "acknowledged %u packets and %u bytes, %u and %u were processed",
				 EIP97_PROC_PKTS(v), EIP97_PROC_BYTES(v), x->proc_pkts, x->proc_bytes);
			count_refused(m, idx, cdr, "PROC_COUNT", why);
			break;
		}
		x->proc_pkts -= EIP97_PROC_PKTS(v);
		x->proc_bytes -= EIP97_PROC_BYTES(v);
		break;
	case EIP97_XDR_STAT:
		x->stat &= ~v;
		break;
	default:
		break;
	}
}

/* Ring AIC index of an offset in 0xb000..0xefff (only the first ring_aics answer). */
static int aic_index(const struct ofl_sim_eip97 *m, uint32_t off)
{
	if (off < 0x1000u || off >= 0xf000u)
		return -1;
	uint32_t a = (0xe000u - (off & ~0xfffu)) / 0x1000u;
	return a < m->p.ring_aics ? (int)a : -1;
}

static uint32_t thr_stat(const struct ofl_sim_eip97 *m, uint32_t ctrl)
{
	/* model: threads idle (15:12 set) while held in reset with no packet in the pipe */
	return (ctrl & EIP97_THR_RESET_PE) && !m->busy && !m->stuck ? EIP97_DSE_THR_IDLE : 0;
}

static uint32_t *misc_reg(struct ofl_sim_eip97 *m, uint32_t off)
{
	switch (off) {
	case EIP97_HIA_MST_CTRL: return &m->hia_mst;
	case EIP97_GEN_MST_CTRL: return &m->gen_mst;
	case EIP97_AIC_G_ENABLE_CTRL: return &m->g_enable;
	case EIP97_DFE_CFG: return &m->dfe_cfg;
	case EIP97_DFE_THR_CTRL: return &m->dfe_thr;
	case EIP97_DSE_CFG: return &m->dse_cfg;
	case EIP97_DSE_THR_CTRL: return &m->dse_thr;
	case EIP97_PE_IN_DBUF_THRES: return &m->in_dbuf;
	case EIP97_PE_IN_TBUF_THRES: return &m->in_tbuf;
	case EIP97_PE_OUT_DBUF_THRES: return &m->out_dbuf;
	case EIP97_EIP96_TOKEN_CTRL: return &m->token_ctrl;
	case EIP97_EIP96_FUNCTION_EN: return &m->func_en;
	case EIP97_EIP96_FUNCTION2_EN: return &m->func2_en;
	case EIP97_EIP96_CONTEXT_CTRL: return &m->ctx_ctrl;
	default: return NULL;
	}
}

/* Native (unswapped) register read. Lock held. */
static uint32_t reg_read(struct ofl_sim_eip97 *m, uint32_t off)
{
	if (m->p.eip197_layout)
		return off == EIP197_HIA_VERSION ? VER_HIA : off == EIP197_GLOBAL_VERSION ? VER_EIP197 : 0;
	if (off < EIP97_MAX_RINGS * 0x1000u) {
		uint32_t idx = off >> 12, sub = off & 0xfffu;
		if (idx >= m->p.rings || (sub & 0x7ffu) >= EIP97_XDR_REGS)
			return 0;
		struct mring *r = &m->ring[idx];
		return xdr_read(sub < 0x800u ? &r->cdr : &r->rdr, sub & 0x7ffu);
	}
	int a = aic_index(m, off);
	if (a >= 0) {
		struct mring *r = &m->ring[a];
		switch (off & 0xfffu) {
		case EIP97_AIC_ENABLE_CTRL: return r->aic_enable;
		case EIP97_AIC_ENABLED_STAT: return r->aic_raw & r->aic_enable;
		case EIP97_AIC_VERSION: return VER_EIP201;
		default: return 0;
		}
	}
	uint32_t *reg = misc_reg(m, off);
	if (reg)
		return *reg;
	switch (off) {
	case EIP97_HIA_VERSION: return VER_HIA;
	case EIP97_HIA_OPTIONS: return m->options;
	case EIP97_GLOBAL_VERSION: return VER_EIP97;
	case EIP97_PE_VERSION: return VER_EIP206;
	case EIP97_EIP96_VERSION: return VER_EIP96;
	case EIP97_EIP96_OPTIONS: return m->algo_flags;
	case EIP97_DFE_THR_STAT: return thr_stat(m, m->dfe_thr);
	case EIP97_DSE_THR_STAT: return thr_stat(m, m->dse_thr);
	case EIP97_AIC_G_ENABLED_STAT: return m->g_raw & m->g_enable;
	default: return 0; /* model: unimplemented registers read as zero (§2.6) */
	}
}

static void reg_write(struct ofl_sim_eip97 *m, uint32_t off, uint32_t v)
{
	if (m->p.eip197_layout)
		return;
	if (off < EIP97_MAX_RINGS * 0x1000u) {
		uint32_t idx = off >> 12, sub = off & 0xfffu;
		if (idx < m->p.rings && (sub & 0x7ffu) < EIP97_XDR_REGS)
			xdr_write(m, idx, sub < 0x800u, sub & 0x7ffu, v);
		return;
	}
	int a = aic_index(m, off);
	if (a >= 0) {
		struct mring *r = &m->ring[a];
		switch (off & 0xfffu) {
		case EIP97_AIC_ENABLE_CTRL: r->aic_enable = v; break;
		case EIP97_AIC_ACK: r->aic_raw &= ~v; break;
		case EIP97_AIC_ENABLE_CLR: r->aic_enable &= ~v; break;
		default: break;
		}
		return;
	}
	if (off == EIP97_AIC_G_ACK) {
		m->g_raw &= ~v;
		return;
	}
	uint32_t *reg = misc_reg(m, off);
	if (!reg)
		return;
	*reg = v;
	if (off == EIP97_DSE_THR_CTRL && (v & EIP97_THR_RESET_PE)) {
		m->dse_resets++;
		for (uint32_t i = 0; i < EIP97_MAX_RINGS; i++)
			m->ring[i].dse_reset = true; /* a fatal ring may now be re-prepared */
	}
	ofl_sim_thread_kick(&m->th); /* threads or configuration changed: rings may run */
}

static uint32_t bswap(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint32_t e_read32(void *model, unsigned region, uint64_t off)
{
	struct ofl_sim_eip97 *m = model;

	OFL_UNUSED(region);
	pthread_mutex_lock(&m->mu);
	uint32_t v = reg_read(m, (uint32_t)off);
	if (m->swapped)
		v = bswap(v);
	pthread_mutex_unlock(&m->mu);
	return v;
}

static void e_write32(void *model, unsigned region, uint64_t off, uint32_t v)
{
	struct ofl_sim_eip97 *m = model;

	OFL_UNUSED(region);
	pthread_mutex_lock(&m->mu);
	if (m->swapped) {
		v = bswap(v);
		/* toggling the swap bits (§1.3 step 3) makes the registers native */
		if (off == EIP97_HIA_MST_CTRL && ((v ^ m->hia_mst) & 0x03000000u))
			m->swapped = false;
	}
	reg_write(m, (uint32_t)off, v);
	pthread_mutex_unlock(&m->mu);
}

static const struct ofl_sim_block_ops eip97_ops = {
	.read32 = e_read32,
	.write32 = e_write32,
};

/* ------------------------------------------------------------- lifecycle */

void ofl_sim_eip97_stats(struct ofl_sim_eip97 *m, uint32_t ring, struct ofl_sim_eip97_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (ring >= EIP97_MAX_RINGS)
		return;
	pthread_mutex_lock(&m->mu);
	*out = m->ring[ring].st;
	out->hung = m->ring[ring].hung || (m->stuck && m->stuck_ring == ring);
	out->in_pipe = m->busy || m->stuck;
	out->resets = m->dse_resets;
	pthread_mutex_unlock(&m->mu);
}

static void eip97_destroy(struct ofl_sim_model *base)
{
	struct ofl_sim_eip97 *m = ofl_container_of(base, struct ofl_sim_eip97, base);

	ofl_sim_thread_stop(&m->th);
	eip97_pe_free(m->pe);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

/*
 * Register names for the trace (sim.h), as Linux
 * drivers/crypto/inside-secure/safexcel.h names them (EIP197_HIA_xDR_*,
 * EIP197_HIA_AIC_*, EIP197_HIA_DxE_*, EIP197_PE_*, EIP197_MST_CTRL ...,
 * without the EIP197_ prefix; xDR as CDR or RDR). Ring r's CDR/RDR sit at
 * r * 0x1000 (+ 0x800), its AIC at 0xe000 - r * 0x1000 (hw/eip97.h §2).
 */
#define XDR_NAMES(base, x)                                                              \
	{ (base) + EIP97_XDR_BASE_LO, 0, 0, "HIA_" x "_RING_BASE_ADDR_LO", NULL, 0 },   \
	{ (base) + EIP97_XDR_BASE_HI, 0, 0, "HIA_" x "_RING_BASE_ADDR_HI", NULL, 0 },   \
	{ (base) + EIP97_XDR_RING_SIZE, 0, 0, "HIA_" x "_RING_SIZE", NULL, 0 },         \
	{ (base) + EIP97_XDR_DESC_SIZE, 0, 0, "HIA_" x "_DESC_SIZE", NULL, 0 },         \
	{ (base) + EIP97_XDR_CFG, 0, 0, "HIA_" x "_CFG", NULL, 0 },                     \
	{ (base) + EIP97_XDR_DMA_CFG, 0, 0, "HIA_" x "_DMA_CFG", NULL, 0 },             \
	{ (base) + EIP97_XDR_THRESH, 0, 0, "HIA_" x "_THRESH", NULL, 0 },               \
	{ (base) + EIP97_XDR_PREP_COUNT, 0, 0, "HIA_" x "_PREP_COUNT", NULL, 0 },       \
	{ (base) + EIP97_XDR_PROC_COUNT, 0, 0, "HIA_" x "_PROC_COUNT", NULL, 0 },       \
	{ (base) + EIP97_XDR_PREP_PNTR, 0, 0, "HIA_" x "_PREP_PNTR", NULL, 0 },         \
	{ (base) + EIP97_XDR_PROC_PNTR, 0, 0, "HIA_" x "_PROC_PNTR", NULL, 0 },         \
	{ (base) + EIP97_XDR_STAT, 0, 0, "HIA_" x "_STAT", NULL, 0 }
static const struct ofl_sim_reg ring_names[] = {
	XDR_NAMES(EIP97_CDR(0), "CDR"),
	XDR_NAMES(EIP97_RDR(0), "RDR"),
	OFL_SIM_REG_END,
};
#undef XDR_NAMES
static const struct ofl_sim_reg aic_names[] = {
	OFL_SIM_REG(EIP97_AIC_ENABLE_CTRL, "HIA_AIC_R_ENABLE_CTRL"),
	{ EIP97_AIC_ENABLED_STAT, 0, 0, "HIA_AIC_R_ENABLED_STAT", "HIA_AIC_R_ACK", 0 },
	OFL_SIM_REG(EIP97_AIC_ENABLE_CLR, "HIA_AIC_R_ENABLE_CLR"),
	OFL_SIM_REG(EIP97_AIC_VERSION, "HIA_AIC_R_VERSION"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg top_names[] = {
	OFL_SIM_REG(EIP97_DFE_CFG, "HIA_DFE_CFG"),
	OFL_SIM_REG(EIP97_DFE_THR_CTRL, "HIA_DFE_THR_CTRL"),
	OFL_SIM_REG(EIP97_DFE_THR_STAT, "HIA_DFE_THR_STAT"),
	OFL_SIM_REG(EIP97_DSE_CFG, "HIA_DSE_CFG"),
	OFL_SIM_REG(EIP97_DSE_THR_CTRL, "HIA_DSE_THR_CTRL"),
	OFL_SIM_REG(EIP97_DSE_THR_STAT, "HIA_DSE_THR_STAT"),
	OFL_SIM_REG(EIP97_AIC_G_ENABLE_CTRL, "HIA_AIC_G_ENABLE_CTRL"),
	{ EIP97_AIC_G_ENABLED_STAT, 0, 0, "HIA_AIC_G_ENABLED_STAT", "HIA_AIC_G_ACK", 0 },
	OFL_SIM_REG(EIP97_HIA_MST_CTRL, "HIA_MST_CTRL"),
	OFL_SIM_REG(EIP97_HIA_OPTIONS, "HIA_OPTIONS"),
	OFL_SIM_REG(EIP97_HIA_VERSION, "HIA_VERSION"),
	OFL_SIM_REG(EIP97_PE_IN_DBUF_THRES, "PE_IN_DBUF_THRES"),
	OFL_SIM_REG(EIP97_PE_IN_TBUF_THRES, "PE_IN_TBUF_THRES"),
	OFL_SIM_REG(EIP97_EIP96_TOKEN_CTRL, "PE_EIP96_TOKEN_CTRL"),
	OFL_SIM_REG(EIP97_EIP96_FUNCTION_EN, "PE_EIP96_FUNCTION_EN"),
	OFL_SIM_REG(EIP97_EIP96_CONTEXT_CTRL, "PE_EIP96_CONTEXT_CTRL"),
	OFL_SIM_REG(EIP97_EIP96_FUNCTION2_EN, "PE_EIP96_FUNCTION2_EN"),
	OFL_SIM_REG(EIP97_EIP96_OPTIONS, "PE_EIP96_OPTIONS"),
	OFL_SIM_REG(EIP97_EIP96_VERSION, "PE_EIP96_VERSION"),
	OFL_SIM_REG(EIP97_PE_OUT_DBUF_THRES, "PE_OUT_DBUF_THRES"),
	OFL_SIM_REG(EIP97_PE_OPTIONS, "PE_OPTIONS"),
	OFL_SIM_REG(EIP97_PE_VERSION, "PE_VERSION"),
	OFL_SIM_REG(EIP97_GEN_MST_CTRL, "MST_CTRL"),
	OFL_SIM_REG(EIP97_GLOBAL_OPTIONS, "OPTIONS"),
	OFL_SIM_REG(EIP97_GLOBAL_VERSION, "VERSION"),
	OFL_SIM_REG_END,
};
/* The rings first: the model, like the silicon, gives ring registers the offsets an AIC scan aliases. */
static const struct ofl_sim_regarea eip97_names[] = {
	{ "ring", EIP97_CDR(0), 0x1000, EIP97_MAX_RINGS, ring_names },
	{ "ring", EIP97_AIC_R(0), -0x1000, EIP97_AIC_SCAN_MAX, aic_names },
	{ NULL, 0, 0, 0, top_names },
	{ NULL, 0, 0, 0, NULL },
};
/* The EIP197 layout: only the signatures behind it are modelled. */
static const struct ofl_sim_reg eip197_top_names[] = {
	OFL_SIM_REG(EIP197_HIA_VERSION, "HIA_VERSION"),
	OFL_SIM_REG(EIP197_GLOBAL_VERSION, "VERSION"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_regarea eip197_names[] = {
	{ NULL, 0, 0, 0, eip197_top_names },
	{ NULL, 0, 0, 0, NULL },
};

struct ofl_sim_eip97 *ofl_sim_eip97_create(struct ofl_sim *sim, const struct ofl_sim_eip97_params *p)
{
	char why[160];
	struct ofl_sim_eip97 *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->sim = sim;
	m->p = *p;
	if (!m->p.rings || m->p.rings > EIP97_MAX_RINGS)
		m->p.rings = EIP97_MAX_RINGS;
	if (!m->p.ring_aics)
		m->p.ring_aics = m->p.rings;
	if (m->p.ring_aics > EIP97_MAX_RINGS)
		m->p.ring_aics = EIP97_MAX_RINGS;
	if (!m->p.hwdataw)
		m->p.hwdataw = 2;
	if (!m->p.cfsize)
		m->p.cfsize = 5;
	if (!m->p.rfsize)
		m->p.rfsize = 5;
	m->pe = eip97_pe_new(why, sizeof(why));
	if (!m->pe) {
		free(m);
		return NULL;
	}
	m->algo_flags = p->algo_flags ? p->algo_flags : eip97_pe_algos(m->pe);
	m->options = m->p.rings | m->p.cfsize << 8 | m->p.rfsize << 12 | m->p.hwdataw << 25;
	m->swapped = p->byte_swapped;
	pthread_mutex_init(&m->mu, NULL);
	if (ofl_sim_add_block(sim, p->base, p->size, &eip97_ops, m, 0, "eip97",
			      m->p.eip197_layout ? eip197_names : eip97_names) < 0) {
		eip97_pe_free(m->pe);
		pthread_mutex_destroy(&m->mu);
		free(m);
		return NULL;
	}
	if (ofl_sim_thread_start(&m->th, model_run, m) < 0) {
		ofl_sim_remove_blocks(sim, m);
		eip97_pe_free(m->pe);
		pthread_mutex_destroy(&m->mu);
		free(m);
		return NULL;
	}
	m->base.kind = "eip97";
	m->base.node = p->node;
	m->base.destroy = eip97_destroy;
	m->base.idle = model_idle;
	ofl_sim_model_add(sim, &m->base);
	return m;
}

/*
 * The model of a SafeXcel node. An EIP197 compatible gets the EIP197
 * layout's signatures only (model: nothing behind them), enough for a probe
 * to recognise the layout. "liboffload,sim-byte-swapped" (a test fixture
 * property, in no real tree) makes the registers read byte-swapped.
 */
int ofl_sim_eip97_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t el)
{
	struct ofl_sim_eip97_params p = { .node = node };
	static const char *const eip197[] = { "inside-secure,safexcel-eip197b",
					      "inside-secure,safexcel-eip197d",
					      "inside-secure,safexcel-eip197c-mxl",
					      "inside-secure,safexcel-eip197" };

	if (ofl_sim_model_by_node(sim, node))
		return 0;
	for (size_t i = 0; i < OFL_ARRAY_SIZE(eip197); i++)
		p.eip197_layout |= fdt_node_check_compatible(fdt, node, eip197[i]) == 0;
	p.byte_swapped = fdt_getprop(fdt, node, "liboffload,sim-byte-swapped", NULL) != NULL;
	err[0] = '\0';
	int r = ofl_dt_reg(fdt, node, 0, &p.base, &p.size, err, el);
	if (r < 0) {
		if (!err[0])
			snprintf(err, el, "no register window (reg)");
		return r;
	}
	if (p.eip197_layout && p.size <= EIP197_GLOBAL_VERSION) {
		snprintf(err, el, "the EIP197 layout needs a register window above 0x%x, reg gives 0x%llx",
			 EIP197_GLOBAL_VERSION, (unsigned long long)p.size);
		return -EINVAL;
	}
	if (p.size < EIP97_WINDOW_SIZE) {
		snprintf(err, el, "the EIP97 layout needs a 0x%x-byte register window, reg gives 0x%llx",
			 EIP97_WINDOW_SIZE, (unsigned long long)p.size);
		return -EINVAL;
	}
	p.dma_offset = ofl_sim_dt_dma_offset(fdt, node);
	errno = 0;
	if (!ofl_sim_eip97_create(sim, &p))
		return ofl_sim_create_failed(err, el, "EIP97", "OpenSSL without AES, or the window overlaps "
					     "another model");
	return 0;
}
