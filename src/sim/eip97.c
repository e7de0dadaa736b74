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
 * the RAM view of simulated memory, runs the packet, scatters the output
 * over the RD buffers in ring order, writes the RDs back with the result
 * token in the last one and counts the packet in the RDR PROC_COUNT.
 *
 * Model choices where the Linux driver is silent ("model:" below):
 *  - version fields of the VERSION registers (signatures are the real ones);
 *  - DFE/DSE THR_STAT bits 15:12 read set while the threads are held in
 *    reset and no packet is in flight;
 *  - a ring runs while its DFE and DSE thread bits are enabled and its CDR
 *    and RDR CFG are non-zero; a CDR whose fetch block does not fit the CD
 *    FIFO (the pre-v5.6 Linux bug, §3.1) never fetches and flags STAT.ERR;
 *  - writing CLR_COUNT to a CDR PREP_COUNT resets that ring: a hung ring
 *    runs again and a packet in flight across the reset is dropped;
 *  - RD word 0 is written back with the bytes actually stored in that
 *    particle and the overflow bits cleared (set on the last RD when the
 *    output did not fit); the result token goes to the last RD only;
 *  - the CDR PROC_COUNT (never acknowledged by Linux) wraps at 24 bits;
 *  - the ring AIC latches RDR_IRQ when the RDR STAT gains THRESH, TIMEOUT,
 *    ERR or DMA_ERR; an ACK clears the latch.
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
	bool hung;
	uint32_t gen;
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
	uint32_t options, algo_flags;
	uint32_t hia_mst, gen_mst, g_enable, g_raw;
	uint32_t dfe_cfg, dfe_thr, dse_cfg, dse_thr;
	uint32_t in_dbuf, in_tbuf, out_dbuf, token_ctrl, func_en, func2_en, ctx_ctrl;
	struct mring ring[EIP97_MAX_RINGS];
};
_Static_assert(offsetof(struct ofl_sim_eip97, base) == 0, "ofl_sim_block_of() needs the model first");

/* One packet as fetched from the rings. */
struct pkt {
	uint32_t cd[EIP97_CD_WORDS];
	uint32_t ncd, nrd;
	uint64_t in_addr[MAX_SEGS];
	uint32_t in_len[MAX_SEGS];
	uint64_t rd_addr[MAX_SEGS];   /* where each RD lives */
	uint32_t rd_w0[MAX_SEGS];
	uint64_t out_addr[MAX_SEGS];
	uint32_t out_written[MAX_SEGS];
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
	aic_update(r, idx);
}

/* The ring is configured and enabled (see the file comment). Lock held. */
static bool ring_ready(struct ofl_sim_eip97 *m, uint32_t idx)
{
	const struct mring *r = &m->ring[idx];
	uint32_t bit = EIP97_BIT(idx), cdw = EIP97_DESC_SIZE_WORDS(r->cdr.desc_size);
	uint32_t rdw = EIP97_DESC_SIZE_WORDS(r->rdr.desc_size);

	if (r->hung || (m->dfe_thr & EIP97_THR_RESET_PE) || (m->dse_thr & EIP97_THR_RESET_PE) ||
	    !(m->dfe_thr & EIP97_THR_EN) || !(m->dse_thr & EIP97_THR_EN) ||
	    !(EIP97_THR_RING_MASK(m->dfe_thr) & bit) || !(EIP97_THR_RING_MASK(m->dse_thr) & bit))
		return false;
	if (!r->cdr.cfg || !r->rdr.cfg || !r->cdr.ring_size || !r->rdr.ring_size)
		return false;
	if (cdw < EIP97_CD_WORDS || xdr_stride(&r->cdr) < cdw * 4u ||
	    rdw < eip97_res_offset(m->p.hwdataw) + 1u || xdr_stride(&r->rdr) < rdw * 4u ||
	    r->cdr.ring_size % xdr_stride(&r->cdr) || r->rdr.ring_size % xdr_stride(&r->rdr))
		return false;
	return true;
}

static bool fits(const struct ofl_sim_eip97 *m, uint32_t idx)
{
	return EIP97_CFG_FETCH_SIZE(m->ring[idx].cdr.cfg) <= (1u << m->p.cfsize) << m->p.hwdataw;
}

/* model: a CD fetch block larger than the CD FIFO never fetches (flags ERR once). */
static bool fetch_fits(struct ofl_sim_eip97 *m, uint32_t idx)
{
	struct mring *r = &m->ring[idx];

	if (fits(m, idx))
		return true;
	if (!(r->cdr.stat & EIP97_STAT_ERR)) {
		r->cdr.stat |= EIP97_STAT_ERR;
		aic_update(r, idx);
	}
	return false;
}

/* ------------------------------------------------------------- packet fetch */

enum fetch { F_NONE, F_WAIT, F_GOT, F_HUNG };

/* Gather the next packet's CDs and RDs. Lock held. */
static enum fetch fetch(struct ofl_sim_eip97 *m, uint32_t idx, struct pkt *k)
{
	struct mring *r = &m->ring[idx];
	uint32_t cs = xdr_stride(&r->cdr), rs = xdr_stride(&r->rdr);
	uint64_t cbase = xdr_base(&r->cdr), rbase = xdr_base(&r->rdr);

	if (!ring_ready(m, idx) || r->cdr.prep < cs || !fetch_fits(m, idx))
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
		r->hung = true; /* zero-length packets hang the engine (hw/eip97.h §6.5) */
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

/* Run a fetched packet (no lock held): returns the error code, fills the output sizes. */
static uint32_t run(struct ofl_sim_eip97 *m, struct pkt *k, bool adcp, uint32_t *out_len, bool *ovf)
{
	const uint32_t *cd = k->cd;
	uint32_t opts = EIP97_CD_OPTIONS(cd[EIP97_CD_W_PKT]), tok[4 + 255];
	uint32_t pkt_len = EIP97_CD_PKT_LEN(cd[EIP97_CD_W_PKT]), err = 0, acd = EIP97_CD_ACDATA(cd[0]);
	bool bad = false;
	uint32_t ivw = iv_words(opts, &bad);
	uint8_t iv[16], *in = NULL, *out = NULL;
	size_t total = 0, cap = 0;
	unsigned ntok = 0;

	*out_len = 0;
	*ovf = false;
	if (bad || (acd && !adcp))
		return EIP97_E_TOKEN;
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
		if (rd_words(m, atok + 4u * i, tok + ntok, n) < 0)
			return EIP97_E_DMA;
		ntok += n;
	}
	/* the context record: SIZE data words after the two control words */
	uint64_t ctx = ((uint64_t)cd[EIP97_CD_W_CTX_HI] << 32 | cd[EIP97_CD_W_CTX_LO]) & ~3ull;
	uint32_t size = EIP97_C0_SIZE_GET(cd[EIP97_CD_W_CONTROL0]);
	if ((cd[EIP97_CD_W_CTX_LO] & 3u) != EIP97_CTX_SMALL || !(opts & EIP97_OPT_CTX_CTRL_IN_CMD))
		return EIP97_E_CONTEXT; /* model: only the small record with control words in the CD */
	uint8_t ctxb[256 * 4];
	if (size && ofl_sim_dma_read(m->sim, bus_to_phys(m, ctx + EIP97_CTX_DATA_OFF), ctxb, size * 4u) < 0)
		return EIP97_E_DMA;
	for (uint32_t i = 0; i < k->ncd; i++)
		total += k->in_len[i];
	if (total != pkt_len)
		return EIP97_E_PKT_LEN;
	for (uint32_t i = 0; i < k->nrd; i++)
		cap += EIP97_RD_PARTICLE(k->rd_w0[i]);
	in = malloc(total ? total : 1);
	size_t ocap = OFL_MAX(cap, total) + 256u;
	out = malloc(ocap);
	if (!in || !out) {
		err = EIP97_E_DMA;
		goto done;
	}
	for (uint32_t i = 0, off = 0; i < k->ncd; off += k->in_len[i], i++)
		if (k->in_len[i] &&
		    ofl_sim_dma_read(m->sim, bus_to_phys(m, k->in_addr[i]), in + off, k->in_len[i]) < 0) {
			err = EIP97_E_DMA;
			goto done;
		}
	struct eip97_job j = {
		.control0 = cd[EIP97_CD_W_CONTROL0], .control1 = cd[EIP97_CD_W_CONTROL1], .ctx = ctxb,
		.ctx_len = size * 4u, .iv = iv, .iv_words = ivw, .tok = tok, .ntok = ntok, .in = in,
		.in_len = total, .out = out, .out_cap = ocap,
	};
	err = eip97_pe_run(m->pe, &j);
	/* scatter the output over the RD buffers in ring order */
	size_t done = 0;
	for (uint32_t i = 0; i < k->nrd; i++) {
		size_t n = OFL_MIN((size_t)EIP97_RD_PARTICLE(k->rd_w0[i]), j.out_len - done);
		k->out_written[i] = (uint32_t)n;
		if (n && ofl_sim_dma_write(m->sim, bus_to_phys(m, k->out_addr[i]), out + done, n) < 0)
			err |= EIP97_E_DMA;
		done += n;
	}
	*ovf = j.out_len > done;
	*out_len = (uint32_t)j.out_len;
done:
	ofl_wipe(ctxb, sizeof(ctxb));
	free(in);
	free(out);
	return err;
}

/* Write the RDs back and count the packet. Lock held. */
static void complete(struct ofl_sim_eip97 *m, uint32_t idx, struct pkt *k, uint32_t err,
		     uint32_t out_len, bool ovf, bool lost)
{
	struct mring *r = &m->ring[idx];
	uint32_t cs = xdr_stride(&r->cdr), rs = xdr_stride(&r->rdr), res = eip97_res_offset(m->p.hwdataw);

	for (uint32_t i = 0; i < k->nrd; i++) {
		uint32_t w0 = (k->rd_w0[i] & ~(0x1ffffu | EIP97_RD_DESC_OVF | EIP97_RD_BUF_OVF)) |
			      k->out_written[i];
		bool last = i + 1 == k->nrd;
		if (last && ovf)
			w0 |= EIP97_RD_BUF_OVF;
		if (wr_words(m, k->rd_addr[i], &w0, 1) < 0)
			err |= EIP97_E_DMA;
		if (last) {
			uint32_t t[EIP97_RD_RESULT_WORDS] = { 0 };
			t[0] = (out_len & 0x1ffffu) | EIP97_RES_ERR_PREP(err);
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
	r->rdr.proc_pkts++;
	uint32_t th = EIP97_THRESH_PROC_PKT(r->rdr.thresh);
	if ((r->rdr.thresh & EIP97_THRESH_PKT_MODE) && th && r->rdr.proc_pkts >= th) {
		r->rdr.stat |= EIP97_STAT_THRESH;
		aic_update(r, idx);
	}
}

/* Serve one packet of ring idx: true if something happened. */
static bool serve(struct ofl_sim_eip97 *m, uint32_t idx)
{
	struct mring *r = &m->ring[idx];
	struct pkt *k = malloc(sizeof(*k));
	uint32_t arg = 0, err, out_len;
	bool ovf, lost;

	if (!k)
		return false;
	pthread_mutex_lock(&m->mu);
	enum fetch f = fetch(m, idx, k);
	if (f == F_GOT && ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_STUCK, NULL, 0, NULL)) {
		r->hung = true; /* stops before finishing; only a ring reset releases it */
		f = F_HUNG;
	}
	if (f != F_GOT) {
		pthread_mutex_unlock(&m->mu);
		free(k);
		return f == F_HUNG;
	}
	uint32_t gen = r->gen;
	bool adcp = r->cdr.desc_size & EIP97_DESC_ADCP;
	m->busy = true;
	pthread_mutex_unlock(&m->mu);

	err = run(m, k, adcp, &out_len, &ovf);
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg))
		err |= arg ? (arg & EIP97_RES_ERR_ALL) : EIP97_E_DMA;
	lost = ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_LOST, NULL, 0, NULL);
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_DELAY, NULL, 0, &arg)) {
		struct timespec ts = { (time_t)(arg / 1000000u), (long)(arg % 1000000u) * 1000L };
		nanosleep(&ts, NULL); /* model: a late completion delays the whole (single) pipe */
	}
	pthread_mutex_lock(&m->mu);
	if (gen == r->gen)
		complete(m, idx, k, err, out_len, ovf, lost);
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
		if (m->ring[i].cdr.prep && ring_ready(m, i) && fits(m, i))
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

static void xdr_write(struct ofl_sim_eip97 *m, uint32_t idx, bool cdr, uint32_t off, uint32_t v)
{
	struct mring *r = &m->ring[idx];
	struct xdr *x = cdr ? &r->cdr : &r->rdr;
	uint32_t *reg = xdr_reg(x, off);

	if (reg) {
		*reg = v;
		if (off == EIP97_XDR_CFG && v)
			ofl_sim_thread_kick(&m->th); /* descriptors prepared before fetching was enabled */
		return;
	}
	switch (off) {
	case EIP97_XDR_PREP_COUNT:
		if (v & EIP97_COUNT_CLR) {
			x->prep = 0;
			if (cdr) { /* model: the ring reset point */
				r->hung = false;
				r->gen++;
				r->st.resets++;
			}
			break;
		}
		x->prep += v & 0xfffffcu;
		if (x->ring_size)
			x->prep_pntr = (x->prep_pntr + (v & 0xfffffcu)) % x->ring_size;
		if (cdr)
			fetch_fits(m, idx); /* flags a fetch block the CD FIFO cannot hold */
		ofl_sim_thread_kick(&m->th);
		break;
	case EIP97_XDR_PROC_COUNT:
		if (v & EIP97_COUNT_CLR) {
			x->proc_pkts = x->proc_bytes = 0;
			break;
		}
		x->proc_pkts -= OFL_MIN(x->proc_pkts, EIP97_PROC_PKTS(v));
		x->proc_bytes -= OFL_MIN(x->proc_bytes, EIP97_PROC_BYTES(v));
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
	/* model: threads idle (15:12 set) while held in reset with no packet in flight */
	return (ctrl & EIP97_THR_RESET_PE) && !m->busy ? EIP97_DSE_THR_IDLE : 0;
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
	if (reg) {
		*reg = v;
		if (off == EIP97_DFE_THR_CTRL || off == EIP97_DSE_THR_CTRL)
			ofl_sim_thread_kick(&m->th);
	}
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
	out->hung = m->ring[ring].hung;
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
