/* SPDX-License-Identifier: MIT */
/*
 * Model of the TI K3 UDMA-P (NAVSS) and BCDMA (DMSS) engines for
 * memory-to-memory block copy (hw/k3_udma.h §3, §4, behaviour per §5.6).
 *
 * The processing thread serves every enabled channel round-robin, one
 * descriptor per channel per pass:
 *   pop the descriptor address from the channel's ring (UDMA: RA ring n for
 *   tchan n; BCDMA: DMA ring n for bchan n), check the CPPI5 header, run
 *   each type-15 TR (4-D source and destination patterns), write the TR
 *   responses, add the bytes to BCNT/SBCNT and 1 to PCNT, and push the
 *   address to the return ring (header RETQ, else the channel's TCQ; BCDMA:
 *   the reverse side of its own ring).
 * Register state is under `mu`; data moves with `mu` released (the channel
 * is marked busy), so register reads by the CPU never wait for a copy.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "hw/k3_udma.h"
#include "sim/k3_models.h"

enum {
	R_GCFG, R_TCHANRT, R_RCHANRT, R_BCHANRT, R_RINGRT, R_RING, R_TCHAN, R_RCHAN, R_BCHAN, R_RFLOW,
	R_PSILCFG, R_COUNT
};

/* Model: REVISION reads this value; the silicon's MODID/revision is in none of the sources (k3_udma.h). */
#define SIM_UDMA_REVISION 0x00000000u
/* Model: CAP0 advertises TR types 0-3, 8-10 and 15 plus EOL; the silicon's set is unconfirmed. */
#define SIM_UDMA_CAP0 (0x870Fu | K3_BIT(17))
/*
 * Model: what a destination thread's PSI-L CAPABILITIES reads (THREAD_WIDTH
 * 28:24, CREDIT_CNT 7:0); the silicon's values are in none of the public
 * sources, so a width code of 2 and 8 credits stand in.
 */
#define SIM_PSIL_CAPS (K3_FIELD_PREP(2, 28, 24) | 8u)

/* One PSI-L thread's configuration as the proxy reaches it (hw/k3_udma.h §3.7). */
struct psil_thread {
	uint32_t peer, credit, enable, rt_enable;
};

struct chan {
	uint32_t ctl;
	uint32_t pcnt, bcnt, sbcnt, peer_bcnt;
	uint32_t peer[9];      /* 0x200 .. 0x220 */
	uint32_t cfg, credit, cq, oes, eoes, pri, thread, fifo_depth, sched, rflow_rng;
	bool busy;             /* a descriptor is being moved with mu released */
	bool held;             /* STUCK fault: popped, never finished */
	uint64_t held_elem;
	bool pending;          /* finished, completion not yet posted (DELAY or a full return ring) */
	uint64_t pending_elem;
	uint32_t pending_ring;
	uint64_t due_ns;
	bool marker_pending;   /* teardown done, marker not yet posted (full return ring) */
	struct ofl_sim_udma_chan_stats st;
	struct psil_thread psil; /* UDMA: tchan i = source thread psil_base + i, rchan j = destination */
};

struct dring {
	uint32_t ba_lo, ba_hi, size_reg, count;
	uint32_t focc, frd;    /* forward: software fills, DMA pops at frd */
	uint32_t rocc, rwr;    /* reverse: DMA fills at rwr, software drains */
	bool comp;
	uint32_t overflows;
};

struct ofl_sim_udma {
	struct ofl_sim_model base;
	struct ofl_sim *sim;
	struct ofl_sim_udma_params p;
	pthread_mutex_t mu;
	struct chan *tchan, *rchan, *bchan;
	struct dring *drings;
	uint32_t ndrings;
	uint32_t perf_ctrl, emu_ctrl, psil_to;
	uint32_t px_cmda, px_cmdb, px_rdata, px_to; /* PSI-L proxy */
	uint32_t firewall_drops;
	struct ofl_sim_thread thr;
};
_Static_assert(offsetof(struct ofl_sim_udma, base) == 0, "ofl_sim_block_of() needs the model first");

/* ------------------------------------------------------------- helpers */

static uint32_t burst_bytes(const struct ofl_sim_udma *u, uint32_t cfg)
{
	switch (K3_CFG_BURST_GET(cfg)) {
	case K3_BURST_128: return 128;
	case K3_BURST_256: return 256;
	case K3_BURST_64: return 64;
	/*
	 * 0: on UDMA TI's RM udmap calls the code reserved and the channel runs
	 * 64-byte bursts (UDMAP_TCHAN_TCFG_BURST_SIZE_RESERVED); on BCDMA it is
	 * 32 bytes (the AM64x register description, BCDMA_BCHAN_CFG BURST_SIZE).
	 */
	default: return u->p.bcdma ? 32 : 64;
	}
}

static uint64_t bus_to_phys(const struct ofl_sim_udma *u, uint64_t bus)
{
	return (bus & K3_ADDR_MASK) - u->p.dma_offset;
}

/* The engine's active channels: tchans on UDMA, bchans on BCDMA. */
static uint32_t nact(const struct ofl_sim_udma *u)
{
	return u->p.bcdma ? u->p.bchan_cnt : u->p.tchan_cnt;
}

static struct chan *act(struct ofl_sim_udma *u, uint32_t i)
{
	return u->p.bcdma ? &u->bchan[i] : &u->tchan[i];
}

static uint32_t cnt_of(const struct ofl_sim_udma *u, unsigned region)
{
	switch (region) {
	case R_TCHANRT: case R_TCHAN: return u->p.tchan_cnt;
	case R_RCHANRT: case R_RCHAN: return u->p.rchan_cnt;
	case R_BCHANRT: case R_BCHAN: return u->p.bchan_cnt;
	default: return 0;
	}
}

static struct chan *chan_of(struct ofl_sim_udma *u, unsigned region, uint32_t i)
{
	switch (region) {
	case R_TCHANRT: case R_TCHAN: return &u->tchan[i];
	case R_RCHANRT: case R_RCHAN: return &u->rchan[i];
	default: return &u->bchan[i];
	}
}

/* ------------------------------------------------------------- DMA rings (BCDMA) */

static uint64_t dring_elem_phys(const struct ofl_sim_udma *u, const struct dring *d, uint32_t i)
{
	uint64_t base = ((uint64_t)K3_DRING_BA_HI_ADDR(d->ba_hi) << 32) | d->ba_lo;

	return base + 8ull * i - u->p.dma_offset;
}

static void dring_apply_size(struct dring *d)
{
	/* a ring in a mode other than DRING (QMODE 1, §3.5) moves nothing (model: hw/k3_udma.h) */
	d->count = K3_DRING_SIZE_QMODE_GET(d->size_reg) == K3_DRING_QMODE_DRING ? K3_DRING_SIZE_ELCNT_GET(d->size_reg) : 0;
	d->focc = d->frd = d->rocc = d->rwr = 0;
	d->comp = false;
}

static int dring_pop(struct ofl_sim_udma *u, uint32_t n, uint64_t *elem)
{
	struct dring *d = &u->drings[n];

	if (d->count == 0 || d->focc == 0)
		return -ENOENT;
	if (ofl_sim_dma_read(u->sim, dring_elem_phys(u, d, d->frd), elem, 8) < 0)
		return -EFAULT;
	d->frd = (d->frd + 1) % d->count;
	d->focc--;
	return 0;
}

static int dring_push(struct ofl_sim_udma *u, uint32_t n, uint64_t elem)
{
	struct dring *d = &u->drings[n];

	if (d->count == 0)
		return -EINVAL;
	if (d->rocc >= d->count)
		return -ENOSPC;
	if (ofl_sim_dma_write(u->sim, dring_elem_phys(u, d, d->rwr), &elem, 8) < 0)
		return -EFAULT;
	d->rwr = (d->rwr + 1) % d->count;
	d->rocc++;
	return 0;
}

/* ------------------------------------------------------------- rings, either kind */

static int ring_pop(struct ofl_sim_udma *u, uint32_t ch, uint64_t *elem)
{
	return u->p.bcdma ? dring_pop(u, ch, elem) : ofl_sim_ringacc_hw_pop(u->p.ra, ch, elem);
}

static int ring_push(struct ofl_sim_udma *u, uint32_t ring, uint64_t elem)
{
	return u->p.bcdma ? dring_push(u, ring, elem) : ofl_sim_ringacc_hw_push(u->p.ra, ring, elem);
}

static uint32_t ring_occ(struct ofl_sim_udma *u, uint32_t ch)
{
	return u->p.bcdma ? u->drings[ch].focc : ofl_sim_ringacc_occ(u->p.ra, ch);
}

/* ------------------------------------------------------------- descriptors */

struct cursor {
	uint64_t base;
	uint32_t cnt[4];
	int64_t dim[4]; /* dim[0] unused */
	uint32_t i[4];  /* i[0] = byte offset in the current row */
};

static uint64_t cur_addr(const struct cursor *c)
{
	return c->base + (uint64_t)((int64_t)c->i[1] * c->dim[1] + (int64_t)c->i[2] * c->dim[2] +
				    (int64_t)c->i[3] * c->dim[3]) + c->i[0];
}

static void cur_advance(struct cursor *c, uint32_t n)
{
	c->i[0] += n;
	if (c->i[0] < c->cnt[0])
		return;
	c->i[0] = 0;
	for (int k = 1; k < 4; k++) {
		if (++c->i[k] < c->cnt[k])
			return;
		c->i[k] = 0;
	}
}

/* Move one type-15 TR. Returns the response status byte. */
static uint8_t run_tr15(struct ofl_sim_udma *u, const struct cppi5_tr_type15 *tr, uint32_t burst,
			struct ofl_sim_udma_chan_stats *st, uint64_t *moved)
{
	struct cursor s = { .base = bus_to_phys(u, tr->addr),
			    .cnt = { tr->icnt0, tr->icnt1, tr->icnt2, tr->icnt3 },
			    .dim = { 0, tr->dim1, tr->dim2, tr->dim3 } };
	struct cursor d = { .base = bus_to_phys(u, tr->daddr),
			    .cnt = { tr->dicnt0, tr->dicnt1, tr->dicnt2, tr->dicnt3 },
			    .dim = { 0, tr->ddim1, tr->ddim2, tr->ddim3 } };
	uint64_t stotal = (uint64_t)tr->icnt0 * tr->icnt1 * tr->icnt2 * tr->icnt3;
	uint64_t dtotal = (uint64_t)tr->dicnt0 * tr->dicnt1 * tr->dicnt2 * tr->dicnt3;

	if (tr->icnt0 == 0 || tr->dicnt0 == 0)
		return CPPI5_RESP_STATUS(CPPI5_RESP_SUBMISSION_ERR, CPPI5_SUBMIT_ICNT0);
	/* model: repacking that moves a different number of bytes than it reads is refused */
	if (stotal != dtotal)
		return CPPI5_RESP_STATUS(CPPI5_RESP_UNSUPPORTED_ERR, CPPI5_UNSUPP_AMODE_SPECIFIC);
	for (uint64_t left = stotal; left;) {
		uint32_t n = OFL_MIN(s.cnt[0] - s.i[0], d.cnt[0] - d.i[0]);
		uint64_t sa = cur_addr(&s), da = cur_addr(&d);
		if (ofl_sim_dma_copy(u->sim, da, sa, n) < 0)
			return CPPI5_RESP_STATUS(CPPI5_RESP_TRANSFER_ERR, 0);
		st->bursts += (da + n - 1) / burst - da / burst + 1;
		*moved += n;
		left -= n;
		cur_advance(&s, n);
		cur_advance(&d, n);
	}
	return CPPI5_RESP_STATUS(CPPI5_RESP_NONE, 0);
}

/* Validate one TR's flags; 0 if the block-copy engine runs it. */
static uint8_t check_tr(uint32_t flags, uint32_t recsize_bytes)
{
	if (CPPI5_TR_TYPE(flags) != CPPI5_TR_TYPE15)
		return CPPI5_RESP_STATUS(CPPI5_RESP_UNSUPPORTED_ERR, CPPI5_UNSUPP_TR_TYPE);
	if (recsize_bytes < CPPI5_TR_SIZE)
		return CPPI5_RESP_STATUS(CPPI5_RESP_UNSUPPORTED_ERR, CPPI5_UNSUPP_TR_TYPE);
	if (flags & CPPI5_TR_STATIC)
		return CPPI5_RESP_STATUS(CPPI5_RESP_UNSUPPORTED_ERR, CPPI5_UNSUPP_STATIC);
	if (flags & (CPPI5_CSF_SA_INDIRECT | CPPI5_CSF_DA_INDIRECT))
		return CPPI5_RESP_STATUS(CPPI5_RESP_UNSUPPORTED_ERR, CPPI5_UNSUPP_CSF);
	/* model: a memcpy channel has no trigger source */
	if (CPPI5_TR_TRIGGER0(flags) || CPPI5_TR_TRIGGER1(flags))
		return CPPI5_RESP_STATUS(CPPI5_RESP_UNSUPPORTED_ERR, CPPI5_UNSUPP_AMODE_SPECIFIC);
	return 0;
}

/*
 * Run the descriptor at bus address `elem`. Called with mu released.
 * Returns false if the descriptor itself could not be read.
 */
static bool run_desc(struct ofl_sim_udma *u, uint64_t elem, uint32_t cfg, uint32_t inject,
		     struct ofl_sim_udma_chan_stats *st, uint64_t *moved, uint16_t *retq)
{
	uint64_t dp = bus_to_phys(u, elem);
	uint32_t hdr[4];

	*retq = CPPI5_RETQ_NONE;
	if (ofl_sim_dma_read(u->sim, dp, hdr, sizeof(hdr)) < 0)
		return false;
	*retq = (uint16_t)CPPI5_HDR2_RETQ(hdr[2]);
	if (CPPI5_HDR0_TYPE(hdr[0]) != CPPI5_DESC_TYPE_TR) {
		/* not a TR descriptor: no TR to answer; flag the packet error field */
		hdr[1] = (hdr[1] & ~CPPI5_HDR1_PKT_ERR_SET(0xF)) |
			 CPPI5_HDR1_PKT_ERR_SET(CPPI5_RESP_UNSUPPORTED_ERR);
		ofl_sim_dma_write(u->sim, dp + 4, &hdr[1], 4);
		st->errors++;
		return true;
	}
	uint32_t rec = 16u << CPPI5_HDR1_RECSIZE(hdr[1]);
	uint32_t ntr = CPPI5_HDR0_LASTIDX(hdr[0]) + 1;
	uint32_t burst = burst_bytes(u, cfg);
	bool failed = false;
	st->burst_bytes = burst;
	for (uint32_t i = 0; i < ntr; i++) {
		struct cppi5_tr_type15 tr;
		uint8_t status;
		memset(&tr, 0, sizeof(tr));
		if (ofl_sim_dma_read(u->sim, dp + (uint64_t)rec * (i + 1), &tr,
				     OFL_MIN(rec, (uint32_t)sizeof(tr))) < 0)
			status = CPPI5_RESP_STATUS(CPPI5_RESP_TRANSFER_ERR, 0);
		else if (failed)
			status = CPPI5_RESP_STATUS(CPPI5_RESP_ABORTED_ERR, 0);
		else if ((status = check_tr(tr.flags, rec)) == 0)
			status = (i == 0 && inject) ? (uint8_t)inject : run_tr15(u, &tr, burst, st, moved);
		uint32_t resp = status | CPPI5_TR_CMD_ID(CPPI5_TR_CMD_ID_GET(tr.flags));
		ofl_sim_dma_write(u->sim, dp + (uint64_t)rec * (ntr + 1) + 4ull * i, &resp, 4);
		if (status) {
			failed = true;
			st->errors++;
		}
	}
	return true;
}

/* Write a response into TR 0 of the descriptor at `elem` (teardown flush, FIFO full). */
static void answer_tr0(struct ofl_sim_udma *u, uint64_t elem, uint8_t status)
{
	uint64_t dp = bus_to_phys(u, elem);
	uint32_t hdr[2];

	if (ofl_sim_dma_read(u->sim, dp, hdr, sizeof(hdr)) < 0 ||
	    CPPI5_HDR0_TYPE(hdr[0]) != CPPI5_DESC_TYPE_TR)
		return;
	uint32_t rec = 16u << CPPI5_HDR1_RECSIZE(hdr[1]);
	uint32_t ntr = CPPI5_HDR0_LASTIDX(hdr[0]) + 1;
	uint32_t resp = status;
	ofl_sim_dma_write(u->sim, dp + (uint64_t)rec * (ntr + 1), &resp, 4);
}

/* ------------------------------------------------------------- processing */

/* The return ring of channel i for a descriptor that named `retq`. */
static uint32_t return_ring(const struct ofl_sim_udma *u, uint32_t i, uint16_t retq)
{
	if (u->p.bcdma)
		return i; /* the reverse side of the bchan's own ring */
	uint32_t tcq = u->tchan[i].cq & 0xFFFFu;
	/*
	 * model: whether a TR-mode block copy returns to the descriptor's RETQ or
	 * the channel's TCQ is in no public source (Linux and TI's SDK set them
	 * equal); a descriptor that names another ring is flagged and goes to RETQ.
	 */
	if (retq != CPPI5_RETQ_NONE && retq != tcq)
		ofl_sim_bus_error(u->sim, "udma: tchan %u: descriptor RETQ %u differs from TCQ %u (which one the "
				  "silicon uses is unconfirmed)", i, retq, tcq);
	return retq != CPPI5_RETQ_NONE ? retq : tcq;
}

/* Post a finished descriptor, or keep it pending if the ring is full. mu held. */
static void post(struct ofl_sim_udma *u, struct chan *c, uint32_t ring, uint64_t elem)
{
	int r = ring_push(u, ring, elem);

	if (r == -ENOSPC) {
		c->pending = true;
		c->pending_elem = elem;
		c->pending_ring = ring;
		c->due_ns = 0;
	} else if (r < 0) {
		ofl_sim_bus_error(u->sim, "udma: cannot return descriptor 0x%llx to ring %u",
				  (unsigned long long)elem, ring);
		c->ctl |= K3_RT_CTL_ERROR;
	}
}

static void count_bytes(struct ofl_sim_udma *u, uint32_t i, uint64_t moved)
{
	struct chan *c = act(u, i);

	c->bcnt += (uint32_t)moved;
	c->sbcnt += (uint32_t)moved;
	c->pcnt++;
	if (!u->p.bcdma) {
		struct chan *rx = &u->rchan[i];
		rx->bcnt += (uint32_t)moved;
		rx->sbcnt += (uint32_t)moved;
		rx->pcnt++;
	}
	c->st.descs++;
	c->st.bytes += moved;
}

/* Finish a teardown: flush what is held, post the marker, drop EN. mu held. */
static void teardown(struct ofl_sim_udma *u, uint32_t i)
{
	struct chan *c = act(u, i);

	if (c->pending) {
		if (ring_push(u, c->pending_ring, c->pending_elem) == -ENOSPC)
			return; /* retried on the next pass */
		c->pending = false;
	}
	if (c->held) {
		answer_tr0(u, c->held_elem, CPPI5_RESP_STATUS(CPPI5_RESP_TEARDOWN_FLUSH, 0));
		if (ring_push(u, return_ring(u, i, CPPI5_RETQ_NONE), c->held_elem) == -ENOSPC)
			return;
		c->held = false;
	}
	if (u->p.bcdma) {
		u->drings[i].comp = true;
	} else if (c->cfg & K3_TCFG_NOTDPKT) {
		/* TCFG NOTDPKT: no teardown completion message (cslr_udmap.h TCHAN_TCFG_NOTDPKT) */
	} else if (ring_push(u, c->cq & 0xFFFFu, K3_TDCM_MARKER) == -ENOSPC) {
		c->marker_pending = true;
		return;
	}
	c->marker_pending = false;
	c->ctl &= ~(K3_RT_CTL_EN | K3_RT_CTL_TDOWN | K3_RT_CTL_FTDOWN);
}

/* The class of UDMA tchan i: 2 UH, 1 H, 0 normal (CAP3 UCHAN / HCHAN count the first channels). */
static unsigned chan_class(const struct ofl_sim_udma *u, uint32_t i)
{
	return i < u->p.uchan_cnt ? 2 : i < u->p.hchan_cnt ? 1 : 0;
}

/*
 * The tchan/rchan pair i is configured for a block copy (hw/k3_udma.h §3.3):
 * a TR channel type on both sides, equal; a fetch size that covers the
 * 16-byte descriptor header (4 words; Linux and TI-SCI send 4); the same
 * ATYPE on both; a burst the channel's class allows (TI RM
 * udmap_validate_burst_size(): 128 and 256 B only on H/UH/E channels). mu held.
 */
static bool cfg_valid(const struct ofl_sim_udma *u, uint32_t i)
{
	uint32_t t = u->tchan[i].cfg, r = u->rchan[i < u->p.rchan_cnt ? i : 0].cfg;
	uint32_t type = K3_CFG_CHAN_TYPE_GET(t);

	if (type != K3_CHAN_TYPE_3P_BCOPY_PBRR && type != K3_CHAN_TYPE_3P_TR_PBRR)
		return false;
	if (i >= u->p.rchan_cnt || K3_CFG_CHAN_TYPE_GET(r) != type)
		return false;
	if (K3_FIELD_GET(t, 6, 0) < 4 || K3_FIELD_GET(r, 6, 0) < 4)
		return false;
	if ((t & K3_CFG_ATYPE_MASK) != (r & K3_CFG_ATYPE_MASK))
		return false;
	uint32_t b = K3_CFG_BURST_GET(t);
	return chan_class(u, i) > 0 || b <= K3_BURST_64;
}

/* PSI-L source thread of tchan i routed to the destination thread of rchan j, both enabled (§3.7). mu held. */
static bool psil_routed(const struct ofl_sim_udma *u, uint32_t i, uint32_t j)
{
	const struct psil_thread *s = &u->tchan[i].psil, *d = &u->rchan[j].psil;
	uint32_t dst = (u->p.psil_base + j) | K3_PSIL_DST_THREAD;

	return (s->peer & 0xFFFFu) == dst && s->credit && (s->enable & K3_PSIL_EN) &&
	       (s->rt_enable & K3_PSIL_EN) && (d->enable & K3_PSIL_EN) && (d->rt_enable & K3_PSIL_EN);
}

/* Do tchan i and rchan j name each other (THREAD) and is their PSI-L route complete? mu held. */
static bool paired(const struct ofl_sim_udma *u, uint32_t i, uint32_t j)
{
	uint32_t t = u->tchan[i].thread;

	return (t & K3_PSIL_DST_THREAD) && j < u->p.rchan_cnt && (t & 0x7FFFu) == u->p.psil_base + j &&
	       u->rchan[j].thread == u->p.psil_base + i && psil_routed(u, i, j);
}

/* Can channel i take a new descriptor? mu held. */
static bool chan_ready(struct ofl_sim_udma *u, uint32_t i)
{
	struct chan *c = act(u, i);

	if (!(c->ctl & K3_RT_CTL_EN) || (c->ctl & (K3_RT_CTL_PAUSE | K3_RT_CTL_ERROR)) || c->busy ||
	    c->held || c->pending)
		return false;
	if (u->p.bcdma) {
		/* a block-copy channel's type is fixed; its burst is at most 128 B (TI RM udmap_validate_burst_size()) */
		if (K3_CFG_BURST_GET(c->cfg) == K3_BURST_256) {
			c->ctl |= K3_RT_CTL_ERROR;
			return false;
		}
		return true;
	}
	if (!cfg_valid(u, i)) {
		/* model: a channel enabled with a configuration the block copy cannot run halts with ERROR */
		c->ctl |= K3_RT_CTL_ERROR;
		return false;
	}
	/* UDMA mem-to-mem needs the PSI-L pair: tchan -> rchan j -> back (§5.2 step 8, §3.7) */
	uint32_t j = (c->thread & 0x7FFFu) - u->p.psil_base;
	return paired(u, i, j) && (u->rchan[j].ctl & K3_RT_CTL_EN);
}

/* One pass over channel i. mu held on entry and exit. Returns true if it did work. */
static bool serve(struct ofl_sim_udma *u, uint32_t i, uint64_t now, uint64_t *next_due)
{
	struct chan *c = act(u, i);
	uint64_t elem;
	uint32_t arg = 0;

	if (c->busy)
		return false;
	if ((c->ctl & K3_RT_CTL_EN) && (c->ctl & (K3_RT_CTL_TDOWN | K3_RT_CTL_FTDOWN))) {
		teardown(u, i);
		return true;
	}
	if (c->pending) {
		if (c->due_ns > now) {
			*next_due = OFL_MIN(*next_due, c->due_ns);
			return false;
		}
		int r = ring_push(u, c->pending_ring, c->pending_elem);
		if (r == -ENOSPC) {
			*next_due = OFL_MIN(*next_due, now + 100000);
			return false;
		}
		c->pending = false;
		return true;
	}
	if (!chan_ready(u, i) || ring_pop(u, i, &elem) < 0)
		return false;
	if (ofl_sim_fault_take(u->sim, OFL_SIM_FAULT_STUCK, NULL, 0, NULL)) {
		c->held = true;
		c->held_elem = elem;
		return true;
	}
	uint32_t inject = 0;
	if (ofl_sim_fault_take(u->sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg))
		inject = arg ? (arg & 0xFFu) : CPPI5_RESP_STATUS(CPPI5_RESP_TRANSFER_ERR, 0);
	uint32_t cfg = c->cfg;
	struct ofl_sim_udma_chan_stats st = c->st;
	uint64_t moved = 0;
	uint16_t retq;
	c->busy = true;
	pthread_mutex_unlock(&u->mu);
	bool ok = run_desc(u, elem, cfg, inject, &st, &moved, &retq);
	pthread_mutex_lock(&u->mu);
	c->busy = false;
	c->st = st;
	count_bytes(u, i, moved);
	if (!ok) {
		ofl_sim_bus_error(u->sim, "udma: channel %u: descriptor 0x%llx is not in memory", i,
				  (unsigned long long)elem);
		c->ctl |= K3_RT_CTL_ERROR;
	}
	if (ofl_sim_fault_take(u->sim, OFL_SIM_FAULT_LOST, NULL, 0, NULL))
		return true;
	uint32_t ring = return_ring(u, i, retq);
	if (ofl_sim_fault_take(u->sim, OFL_SIM_FAULT_DELAY, NULL, 0, &arg)) {
		c->pending = true;
		c->pending_elem = elem;
		c->pending_ring = ring;
		c->due_ns = ofl_now_ns() + (uint64_t)arg * 1000u;
		*next_due = OFL_MIN(*next_due, c->due_ns);
		return true;
	}
	post(u, c, ring, elem);
	return true;
}

static void model_run(void *arg)
{
	struct ofl_sim_udma *u = arg;

	for (;;) {
		uint64_t next_due = UINT64_MAX;
		bool worked = false;
		pthread_mutex_lock(&u->mu);
		uint64_t now = ofl_now_ns();
		for (uint32_t i = 0; i < nact(u); i++) {
			struct chan *c = act(u, i);
			if (c->ctl & K3_RT_CTL_EN || c->pending)
				worked |= serve(u, i, now, &next_due);
		}
		pthread_mutex_unlock(&u->mu);
		if (worked)
			continue;
		int64_t wait = -1;
		if (next_due != UINT64_MAX) {
			now = ofl_now_ns();
			wait = next_due > now ? (int64_t)((next_due - now + 999) / 1000) : 0;
		}
		if (ofl_sim_thread_sleep(&u->thr, wait))
			return;
	}
}

static bool model_idle(struct ofl_sim_model *m)
{
	struct ofl_sim_udma *u = ofl_container_of(m, struct ofl_sim_udma, base);
	bool idle = true;

	pthread_mutex_lock(&u->mu);
	for (uint32_t i = 0; i < nact(u) && idle; i++) {
		struct chan *c = act(u, i);
		/* a channel that cannot run (unpaired, misconfigured, halted) has nothing to come */
		if (c->busy || c->pending || (chan_ready(u, i) && ring_occ(u, i)))
			idle = false;
	}
	pthread_mutex_unlock(&u->mu);
	return idle;
}

/* The RA tells us a CPU push overflowed ring n: answer the descriptor with FIFO full. */
static void ra_overflow(void *arg, uint32_t ring, uint64_t elem)
{
	struct ofl_sim_udma *u = arg;

	if (ring >= u->p.tchan_cnt)
		return;
	answer_tr0(u, elem, CPPI5_RESP_STATUS(CPPI5_RESP_SUBMISSION_ERR, CPPI5_SUBMIT_FIFO_FULL));
	pthread_mutex_lock(&u->mu);
	post(u, &u->tchan[ring], return_ring(u, ring, CPPI5_RETQ_NONE), elem);
	pthread_mutex_unlock(&u->mu);
}

static void ra_pushed(void *arg, uint32_t ring)
{
	struct ofl_sim_udma *u = arg;

	if (ring < u->p.tchan_cnt)
		ofl_sim_thread_kick(&u->thr);
}

/* ------------------------------------------------------------- registers */

static uint32_t gcfg_read(struct ofl_sim_udma *u, uint64_t off)
{
	const struct ofl_sim_udma_params *p = &u->p;

	switch (off) {
	case K3_GCFG_REVISION: return SIM_UDMA_REVISION;
	case K3_GCFG_PERF_CTRL: return u->perf_ctrl;
	case K3_GCFG_EMU_CTRL: return u->emu_ctrl;
	case K3_GCFG_PSIL_TO: return u->psil_to;
	case K3_GCFG_CAP0: return SIM_UDMA_CAP0;
	case K3_GCFG_CAP2:
		if (p->bcdma)
			return K3_FIELD_PREP(p->bchan_cnt, 8, 0) | K3_FIELD_PREP(p->tchan_cnt, 17, 9) |
			       K3_FIELD_PREP(p->rchan_cnt, 26, 18);
		return K3_FIELD_PREP(p->tchan_cnt, 8, 0) | K3_FIELD_PREP(p->echan_cnt, 17, 9) |
		       K3_FIELD_PREP(p->rchan_cnt, 26, 18);
	case K3_GCFG_CAP3:
		if (p->bcdma)
			return K3_FIELD_PREP(p->hbchan_cnt, 22, 14) | K3_FIELD_PREP(p->ubchan_cnt, 31, 23);
		return K3_FIELD_PREP(p->rflow_cnt, 13, 0) | K3_FIELD_PREP(p->hchan_cnt, 22, 14) |
		       K3_FIELD_PREP(p->uchan_cnt, 31, 23);
	default: return 0;
	}
}

static void gcfg_write(struct ofl_sim_udma *u, uint64_t off, uint32_t v)
{
	switch (off) {
	case K3_GCFG_PERF_CTRL: u->perf_ctrl = v & 0xFFFFu; break;
	case K3_GCFG_EMU_CTRL: u->emu_ctrl = v & 3u; break;
	case K3_GCFG_PSIL_TO: u->psil_to = v & (K3_BIT(31) | 0xFFFFu); break;
	default: break; /* REVISION and CAPn are read-only */
	}
}

static uint32_t *rt_reg(struct ofl_sim_udma *u, unsigned region, struct chan *c, uint32_t reg)
{
	switch (reg) {
	case K3_RT_CTL: return &c->ctl;
	case K3_RT_PCNT: return &c->pcnt;
	case K3_RT_BCNT: return &c->bcnt;
	case K3_RT_SBCNT: return &c->sbcnt;
	default: break;
	}
	if (region != R_BCHANRT && reg >= K3_RT_PEER0 && reg <= K3_RT_PEER_RT_EN && !(reg & 3))
		return reg == K3_RT_PEER_BCNT ? &c->peer_bcnt : &c->peer[(reg - K3_RT_PEER0) / 4];
	return NULL;
}

static uint32_t rt_read(struct ofl_sim_udma *u, unsigned region, uint32_t i, uint32_t reg)
{
	struct chan *c = chan_of(u, region, i);
	uint32_t *p = rt_reg(u, region, c, reg);

	if (p)
		return *p;
	if (reg >= K3_RT_STDATA && reg < K3_RT_PEER0)
		return 0; /* STATUS/STDATA: model: no internal state to show */
	if (reg == K3_RT_SWTRIG)
		return 0;
	ofl_sim_bus_error(u->sim, "udma: read of reserved %s register 0x%x of channel %u",
			  region == R_BCHANRT ? "bchanrt" : region == R_TCHANRT ? "tchanrt" : "rchanrt",
			  reg, i);
	return 0;
}

static void rt_write(struct ofl_sim_udma *u, unsigned region, uint32_t i, uint32_t reg, uint32_t v)
{
	struct chan *c = chan_of(u, region, i);
	uint32_t *p = rt_reg(u, region, c, reg);

	if (!p) {
		if (reg == K3_RT_SWTRIG)
			return;
		ofl_sim_bus_error(u->sim, "udma: write to reserved or read-only register 0x%x of channel %u",
				  reg, i);
		return;
	}
	if (reg == K3_RT_CTL) {
		uint32_t keep = (v & K3_RT_CTL_EN) ? (c->ctl & K3_RT_CTL_ERROR) : 0;
		c->ctl = (v & (K3_RT_CTL_EN | K3_RT_CTL_TDOWN | K3_RT_CTL_PAUSE | K3_RT_CTL_FTDOWN)) | keep;
		if (!(v & K3_RT_CTL_EN)) {
			/* disabled outright: whatever was held or pending is dropped */
			c->held = c->pending = c->marker_pending = false;
		}
		ofl_sim_thread_kick(&u->thr);
	} else if (reg == K3_RT_PCNT || reg == K3_RT_BCNT || reg == K3_RT_SBCNT ||
		   reg == K3_RT_PEER_BCNT) {
		*p -= v; /* write-to-subtract (§3.2) */
	} else {
		*p = v;
	}
}

/*
 * Is channel i of `region` the host's? With DM firmware the channels of
 * other hosts are firewalled (TI RM: a host reaches only what its board
 * configuration gives it, hw/k3_udma.h §6.1).
 */
static bool owned(const struct ofl_sim_udma *u, unsigned region, uint32_t i)
{
	const uint8_t *bits = region == R_TCHANRT || region == R_TCHAN ? u->p.tchan_owned
			      : region == R_RCHANRT || region == R_RCHAN ? u->p.rchan_owned : NULL;

	return !u->p.owned_known || !bits || i >= 512 || (bits[i / 8] >> (i % 8)) & 1u;
}

static uint32_t *cfg_reg(unsigned region, struct chan *c, uint32_t reg)
{
	if (region == R_BCHAN) {
		switch (reg) {
		case K3_TCFG: return &c->cfg;
		case K3_TPRI_CTRL: return &c->pri;
		case K3_TST_SCHED: return &c->sched;
		default: return NULL;
		}
	}
	switch (reg) {
	case K3_TCFG: return &c->cfg;
	case K3_TCREDIT: return region == R_TCHAN ? &c->credit : NULL;
	case K3_TCQ: return &c->cq;
	case 0x20: return &c->oes;
	case 0x60: return &c->eoes;
	case K3_TPRI_CTRL: return &c->pri;
	case K3_THREAD: return &c->thread;
	case K3_TFIFO_DEPTH: return region == R_TCHAN ? &c->fifo_depth : NULL;
	case K3_TST_SCHED: return &c->sched;
	case K3_RFLOW_RNG: return region == R_RCHAN ? &c->rflow_rng : NULL;
	default: return NULL;
	}
}

/*
 * Store a configuration register write: only the bits the register has
 * (hw/k3_udma.h §3.3 field masks); a block-copy channel's CFG keeps its
 * fixed bits; the AM65x TCFG/RCFG have no BURST_SIZE (TI RM rm_udmap.c
 * programs it only with CONFIG_UDMAP_CHANNEL_BURST_SIZE, not set for AM65x).
 * The register, or NULL when the channel has none at `reg`. mu held.
 */
static uint32_t *cfg_store(struct ofl_sim_udma *u, unsigned region, uint32_t i, uint32_t reg, uint32_t v)
{
	uint32_t *p = cfg_reg(region, chan_of(u, region, i), reg);
	uint32_t burst = u->p.no_burst_field ? K3_CFG_BURST_MASK : 0;

	if (!p)
		return NULL;
	if (region == R_BCHAN && reg == K3_TCFG)
		v = (v & K3_BCFG_WRITABLE) | (K3_BCFG_RESET & ~K3_BCFG_WRITABLE);
	else if (region == R_TCHAN && reg == K3_TCFG)
		v &= K3_TCFG_FIELDS & ~burst;
	else if (region == R_RCHAN && reg == K3_RCFG)
		v &= K3_RCFG_FIELDS & ~burst;
	else if (region == R_RCHAN && reg == K3_RFLOW_RNG)
		v &= K3_RFLOW_RNG_FIELDS;
	*p = v;
	return p;
}

/* ------------------------------------------------------------- PSI-L configuration proxy (§3.7) */

/* Thread `id`'s configuration: a source thread of a tchan, a destination thread of an rchan. mu held. */
static struct psil_thread *psil_thread(struct ofl_sim_udma *u, uint32_t id)
{
	uint32_t n = (id & ~K3_PSIL_DST_THREAD) - u->p.psil_base;

	if ((id & ~K3_PSIL_DST_THREAD) < u->p.psil_base || u->p.bcdma)
		return NULL;
	if (id & K3_PSIL_DST_THREAD)
		return n < u->p.rchan_cnt ? &u->rchan[n].psil : NULL;
	return n < u->p.tchan_cnt ? &u->tchan[n].psil : NULL;
}

static uint32_t *psil_reg(struct psil_thread *t, uint32_t reg)
{
	switch (reg) {
	case K3_PSIL_PEER_THREAD_ID: return &t->peer;
	case K3_PSIL_PEER_CREDIT: return &t->credit;
	case K3_PSIL_ENABLE: return &t->enable;
	case K3_PSIL_RT_ENABLE: return &t->rt_enable;
	default: return NULL;
	}
}

/*
 * Run the command in CMDA/CMDB (a read, or a write of `wdata`): a thread or
 * register the NAVSS does not have times out (CMDA.TO, PSIL_TO.TOUT). mu held.
 */
static void px_run(struct ofl_sim_udma *u, uint32_t wdata)
{
	bool read = u->px_cmda & K3_PSILCFG_CMDA_DIR_READ;
	uint32_t reg = K3_PSILCFG_CMDB_ADDR(u->px_cmdb);
	struct psil_thread *t = psil_thread(u, K3_PSILCFG_CMDA_THREAD(u->px_cmda));
	bool dst = K3_PSILCFG_CMDA_THREAD(u->px_cmda) & K3_PSIL_DST_THREAD;
	uint32_t *p = t ? psil_reg(t, reg) : NULL;

	u->px_cmda &= ~(K3_PSILCFG_CMDA_BUSY | K3_PSILCFG_CMDA_TO);
	if (t && reg == K3_PSIL_CAPABILITIES && read && dst) {
		u->px_rdata = SIM_PSIL_CAPS;
		return;
	}
	if (!p) {
		u->px_cmda |= K3_PSILCFG_CMDA_TO;
		u->px_to |= K3_PSILCFG_PSIL_TO_TOUT;
		return;
	}
	if (read)
		u->px_rdata = *p;
	else
		*p = wdata;
	ofl_sim_thread_kick(&u->thr);
}

static uint32_t px_read(struct ofl_sim_udma *u, uint64_t off)
{
	switch (off) {
	case K3_PSILCFG_PSIL_TO: return u->px_to;
	case K3_PSILCFG_CMDA: return u->px_cmda;
	case K3_PSILCFG_CMDB: return u->px_cmdb;
	case K3_PSILCFG_RDATA: return u->px_rdata;
	default: return 0;
	}
}

static void px_write(struct ofl_sim_udma *u, uint64_t off, uint32_t v)
{
	switch (off) {
	case K3_PSILCFG_PSIL_TO: u->px_to = v & K3_PSILCFG_PSIL_TO_TOUT; break;
	case K3_PSILCFG_CMDA: u->px_cmda = v & ~K3_PSILCFG_CMDA_TO; break;
	case K3_PSILCFG_CMDB:
		u->px_cmdb = v;
		if (u->px_cmda & K3_PSILCFG_CMDA_DIR_READ)
			px_run(u, 0); /* a read runs once its address is given */
		break;
	case K3_PSILCFG_WDATA:
		if (!(u->px_cmda & K3_PSILCFG_CMDA_DIR_READ))
			px_run(u, v);
		break;
	default: break;
	}
}

static uint32_t *dring_reg(struct dring *d, uint32_t reg)
{
	switch (reg) {
	case K3_DRING_CFG_BA_LO: return &d->ba_lo;
	case K3_DRING_CFG_BA_HI: return &d->ba_hi;
	case K3_DRING_CFG_SIZE: return &d->size_reg;
	default: return NULL;
	}
}

static uint32_t ringrt_read(struct ofl_sim_udma *u, uint32_t n, uint32_t reg)
{
	const struct dring *d = &u->drings[n];

	switch (reg) {
	case K3_DRING_FOCC: return d->focc;
	case K3_DRING_ROCC: return d->rocc | (d->comp ? K3_DRING_ROCC_COMP : 0);
	default: return 0;
	}
}

static void ringrt_write(struct ofl_sim_udma *u, uint32_t n, uint32_t reg, uint32_t v)
{
	struct dring *d = &u->drings[n];
	int32_t delta = (int8_t)(v & 0xFFu); /* CNT 7:0, signed */

	if (reg == K3_DRING_FDB) {
		int64_t occ = (int64_t)d->focc + delta;
		if (d->count == 0 || occ > (int64_t)d->count || occ < 0) {
			d->overflows++;
			ofl_sim_bus_error(u->sim, "bcdma: forward doorbell %d on ring %u (occupancy %u of %u)",
					  delta, n, d->focc, d->count);
			return;
		}
		d->focc = (uint32_t)occ;
		ofl_sim_thread_kick(&u->thr);
	} else if (reg == K3_DRING_RDB) {
		if (v & K3_DRING_RDB_ACK)
			d->comp = false;
		int64_t occ = (int64_t)d->rocc + delta;
		d->rocc = occ < 0 ? 0 : occ > (int64_t)d->count ? d->count : (uint32_t)occ;
		if (delta)
			ofl_sim_thread_kick(&u->thr); /* room for a back-pressured completion */
	}
}

static uint32_t u_read32(void *model, unsigned region, uint64_t off)
{
	struct ofl_sim_udma *u = model;
	uint32_t v = 0;

	pthread_mutex_lock(&u->mu);
	if (region == R_GCFG) {
		v = gcfg_read(u, off);
	} else if (region == R_RINGRT || region == R_RING) {
		uint32_t stride = region == R_RINGRT ? K3_DRING_RT_STRIDE : K3_DRING_CFG_STRIDE;
		uint32_t n = (uint32_t)(off / stride), reg = (uint32_t)(off % stride);
		if (n < u->ndrings) {
			uint32_t *p = region == R_RING ? dring_reg(&u->drings[n], reg) : NULL;
			v = p ? *p : region == R_RINGRT ? ringrt_read(u, n, reg) : 0;
		}
	} else if (region == R_RFLOW) {
		v = 0;
	} else if (region == R_PSILCFG) {
		v = px_read(u, off);
	} else {
		bool rt = region == R_TCHANRT || region == R_RCHANRT || region == R_BCHANRT;
		uint32_t stride = rt ? K3_CHANRT_STRIDE : K3_CHANCFG_STRIDE;
		uint32_t i = (uint32_t)(off / stride), reg = (uint32_t)(off % stride);
		if (i >= cnt_of(u, region)) {
			ofl_sim_bus_error(u->sim, "udma: read of channel %u beyond the %u the engine has", i,
					  cnt_of(u, region));
		} else if (rt && !owned(u, region, i)) {
			ofl_sim_bus_error(u->sim, "udma: read of channel %u, which the board configuration gives "
					  "another host (firewalled)", i);
		} else if (rt) {
			v = rt_read(u, region, i, reg);
		} else {
			uint32_t *p = cfg_reg(region, chan_of(u, region, i), reg);
			v = p ? *p : 0;
		}
	}
	pthread_mutex_unlock(&u->mu);
	return v;
}

static void u_write32(void *model, unsigned region, uint64_t off, uint32_t v)
{
	struct ofl_sim_udma *u = model;

	pthread_mutex_lock(&u->mu);
	if (region == R_GCFG) {
		gcfg_write(u, off, v);
	} else if (region == R_RINGRT || region == R_RING) {
		uint32_t stride = region == R_RINGRT ? K3_DRING_RT_STRIDE : K3_DRING_CFG_STRIDE;
		uint32_t n = (uint32_t)(off / stride), reg = (uint32_t)(off % stride);
		if (n >= u->ndrings) {
			ofl_sim_bus_error(u->sim, "bcdma: access to DMA ring %u of %u", n, u->ndrings);
		} else if (region == R_RINGRT) {
			ringrt_write(u, n, reg, v);
		} else if (u->p.cfg_firewalled) {
			u->firewall_drops++;
		} else {
			uint32_t *p = dring_reg(&u->drings[n], reg);
			if (p) {
				*p = v;
				if (reg == K3_DRING_CFG_SIZE)
					dring_apply_size(&u->drings[n]);
			}
		}
	} else if (region == R_RFLOW) {
		if (u->p.cfg_firewalled)
			u->firewall_drops++;
	} else if (region == R_PSILCFG) {
		if (u->p.cfg_firewalled)
			u->firewall_drops++;
		else
			px_write(u, off, v);
	} else {
		bool rt = region == R_TCHANRT || region == R_RCHANRT || region == R_BCHANRT;
		uint32_t stride = rt ? K3_CHANRT_STRIDE : K3_CHANCFG_STRIDE;
		uint32_t i = (uint32_t)(off / stride), reg = (uint32_t)(off % stride);
		if (i >= cnt_of(u, region)) {
			ofl_sim_bus_error(u->sim, "udma: write to channel %u beyond the %u the engine has", i,
					  cnt_of(u, region));
		} else if (rt && !owned(u, region, i)) {
			ofl_sim_bus_error(u->sim, "udma: write to channel %u, which the board configuration gives "
					  "another host (firewalled)", i);
		} else if (rt) {
			rt_write(u, region, i, reg, v);
		} else if (u->p.cfg_firewalled) {
			u->firewall_drops++;
		} else {
			cfg_store(u, region, i, reg, v);
		}
	}
	pthread_mutex_unlock(&u->mu);
}

static const struct ofl_sim_block_ops udma_ops = {
	.read32 = u_read32,
	.write32 = u_write32,
};

/* ------------------------------------------------------------- firmware entry points */

int ofl_sim_udma_fw_write(struct ofl_sim_udma *u, char which, uint32_t index, uint32_t reg,
			  uint32_t val)
{
	unsigned region = which == 't' ? R_TCHAN : which == 'r' ? R_RCHAN : which == 'b' ? R_BCHAN : R_COUNT;

	if (region == R_COUNT || index >= cnt_of(u, region))
		return -EINVAL;
	pthread_mutex_lock(&u->mu);
	uint32_t *p = cfg_store(u, region, index, reg, val);
	uint32_t now = p ? *p : 0;
	pthread_mutex_unlock(&u->mu);
	if (!p)
		return -EINVAL;
	ofl_sim_trace_fw(u->sim, u, region, (uint64_t)index * K3_CHANCFG_STRIDE + reg, now);
	return 0;
}

/* One proxy command by the firmware, each access traced as its own. false on a timeout. mu held. */
static bool fw_px(struct ofl_sim_udma *u, bool read, uint32_t thread, uint32_t reg, uint32_t *data)
{
	uint32_t a = (read ? K3_PSILCFG_CMDA_DIR_READ : 0) | thread, b = K3_PSILCFG_CMDB_BYTEN_ALL | reg;

	u->px_cmda = a;
	ofl_sim_trace_fw(u->sim, u, R_PSILCFG, K3_PSILCFG_CMDA, a);
	px_write(u, K3_PSILCFG_CMDB, b);
	ofl_sim_trace_fw(u->sim, u, R_PSILCFG, K3_PSILCFG_CMDB, b);
	if (!read) {
		px_write(u, K3_PSILCFG_WDATA, *data);
		ofl_sim_trace_fw(u->sim, u, R_PSILCFG, K3_PSILCFG_WDATA, *data);
	}
	ofl_sim_trace_fw_read(u->sim, u, R_PSILCFG, K3_PSILCFG_CMDA, u->px_cmda);
	if (u->px_cmda & K3_PSILCFG_CMDA_TO) {
		u->px_to = 0;
		return false;
	}
	if (read) {
		*data = u->px_rdata;
		ofl_sim_trace_fw_read(u->sim, u, R_PSILCFG, K3_PSILCFG_RDATA, *data);
	}
	return true;
}

int ofl_sim_udma_fw_psil(struct ofl_sim_udma *u, uint32_t src, uint32_t dst, bool pair)
{
	uint32_t v, caps;
	bool ok = true;

	pthread_mutex_lock(&u->mu);
	if (!psil_thread(u, src) || !psil_thread(u, dst) || (src & K3_PSIL_DST_THREAD) ||
	    !(dst & K3_PSIL_DST_THREAD)) {
		pthread_mutex_unlock(&u->mu);
		return -EINVAL;
	}
	if (pair) {
		/* TI CSL CSL_psilcfgCreateRoute() */
		ok = fw_px(u, true, dst, K3_PSIL_CAPABILITIES, &caps);
		v = (caps & K3_PSIL_WIDTH_MASK) | dst;
		ok = ok && fw_px(u, false, src, K3_PSIL_PEER_THREAD_ID, &v);
		v = caps & K3_PSIL_CREDIT_MASK;
		ok = ok && fw_px(u, false, src, K3_PSIL_PEER_CREDIT, &v);
		const uint32_t th[4] = { dst, src, dst, src };
		const uint32_t rg[4] = { K3_PSIL_ENABLE, K3_PSIL_ENABLE, K3_PSIL_RT_ENABLE, K3_PSIL_RT_ENABLE };
		for (int k = 0; k < 4 && ok; k++) {
			ok = fw_px(u, true, th[k], rg[k], &v);
			v |= K3_PSIL_EN;
			ok = ok && fw_px(u, false, th[k], rg[k], &v);
		}
	} else {
		/* TI Sciclient_rmPsilUnpair(): RT_ENABLE of the source, then of the destination, cleared */
		const uint32_t th[2] = { src, dst };
		for (int k = 0; k < 2 && ok; k++) {
			ok = fw_px(u, true, th[k], K3_PSIL_RT_ENABLE, &v);
			v &= ~K3_PSIL_EN;
			ok = ok && fw_px(u, false, th[k], K3_PSIL_RT_ENABLE, &v);
		}
	}
	pthread_mutex_unlock(&u->mu);
	return ok ? 0 : -EIO;
}

const struct ofl_sim_udma_params *ofl_sim_udma_params(const struct ofl_sim_udma *u)
{
	return &u->p;
}

int ofl_sim_udma_fw_dring_cfg(struct ofl_sim_udma *u, uint32_t ring, uint32_t valid, uint64_t addr,
			      uint32_t count, uint8_t asel)
{
	if (!u->p.bcdma || ring >= u->ndrings || count > 0xFFFFu || asel > 15)
		return -EINVAL;
	pthread_mutex_lock(&u->mu);
	struct dring *d = &u->drings[ring];
	if (valid & K3_BIT(0))
		d->ba_lo = (uint32_t)addr;
	if (valid & K3_BIT(1))
		d->ba_hi = (d->ba_hi & ~0xFu) | ((uint32_t)(addr >> 32) & 0xFu);
	if (valid & K3_BIT(7))
		d->ba_hi = (d->ba_hi & ~K3_DRING_BA_HI_ASEL(0xF)) | K3_DRING_BA_HI_ASEL(asel);
	if (valid & K3_BIT(2)) {
		d->size_reg = (d->size_reg & ~K3_DRING_SIZE_ELCNT(0xFFFF)) | K3_DRING_SIZE_ELCNT(count);
		dring_apply_size(d);
	}
	const uint32_t written[] = { d->ba_lo, d->ba_hi, d->size_reg };
	pthread_mutex_unlock(&u->mu);
	/* the registers as the firmware left them: BA_LO (bit 0), BA_HI (1, 7), SIZE (2) */
	const struct { uint32_t valid, reg; } order[] = {
		{ K3_BIT(0), K3_DRING_CFG_BA_LO }, { K3_BIT(1) | K3_BIT(7), K3_DRING_CFG_BA_HI },
		{ K3_BIT(2), K3_DRING_CFG_SIZE },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(order); i++)
		if (valid & order[i].valid)
			ofl_sim_trace_fw(u->sim, u, R_RING, (uint64_t)ring * K3_DRING_CFG_STRIDE + order[i].reg,
					 written[i]);
	return 0;
}

int ofl_sim_udma_chan_stats(struct ofl_sim_udma *u, char which, uint32_t index,
			    struct ofl_sim_udma_chan_stats *out)
{
	unsigned region = which == 't' ? R_TCHAN : which == 'r' ? R_RCHAN : which == 'b' ? R_BCHAN : R_COUNT;

	if (region == R_COUNT || index >= cnt_of(u, region) || !out)
		return -EINVAL;
	pthread_mutex_lock(&u->mu);
	*out = chan_of(u, region, index)->st;
	pthread_mutex_unlock(&u->mu);
	return 0;
}

int ofl_sim_udma_paired(struct ofl_sim_udma *u, uint32_t tchan, uint32_t rchan)
{
	if (u->p.bcdma || tchan >= u->p.tchan_cnt || rchan >= u->p.rchan_cnt)
		return -EINVAL;
	pthread_mutex_lock(&u->mu);
	bool p = paired(u, tchan, rchan);
	pthread_mutex_unlock(&u->mu);
	return p;
}

uint32_t ofl_sim_udma_firewall_drops(struct ofl_sim_udma *u)
{
	pthread_mutex_lock(&u->mu);
	uint32_t n = u->firewall_drops;
	pthread_mutex_unlock(&u->mu);
	return n;
}

bool ofl_sim_udma_firewalled(const struct ofl_sim_udma *u)
{
	return u->p.cfg_firewalled || (u->p.ra && ofl_sim_ringacc_firewalled(u->p.ra));
}

bool ofl_sim_udma_owned(const struct ofl_sim_udma *u, char which, uint32_t index)
{
	return owned(u, which == 't' ? R_TCHAN : which == 'r' ? R_RCHAN : R_BCHAN, index);
}

struct ofl_sim_ringacc *ofl_sim_udma_ringacc(const struct ofl_sim_udma *u)
{
	return u->p.ra;
}

/* ------------------------------------------------------------- lifecycle */

static void udma_destroy(struct ofl_sim_model *m)
{
	struct ofl_sim_udma *u = ofl_container_of(m, struct ofl_sim_udma, base);

	ofl_sim_thread_stop(&u->thr);
	if (u->p.ra)
		ofl_sim_ringacc_listen(u->p.ra, NULL, NULL, NULL);
	pthread_mutex_destroy(&u->mu);
	free(u->tchan);
	free(u->rchan);
	free(u->bchan);
	free(u->drings);
	free(u);
}

/*
 * Register names for the trace (sim.h). GCFG and channel real-time
 * registers: Linux drivers/dma/ti/k3-udma.h (UDMA_REV_REG ... UDMA_CAP_REG(i),
 * UDMA_CHAN_RT_*_REG); channel configuration: TI SYSFW resource manager
 * udmap (UDMAP_TCHAN_* / UDMAP_RCHAN_*; THRD_ID named THREAD as in
 * hw/k3_udma.h); DMA rings: hw/k3_udma.h §3.5.
 */
static const struct ofl_sim_reg gcfg_names[] = {
	OFL_SIM_REG(K3_GCFG_REVISION, "REV"),
	OFL_SIM_REG(K3_GCFG_PERF_CTRL, "PERF_CTL"),
	OFL_SIM_REG(K3_GCFG_EMU_CTRL, "EMU_CTL"),
	OFL_SIM_REG(K3_GCFG_PSIL_TO, "PSIL_TO"),
	OFL_SIM_REG(K3_GCFG_UTC_CTL, "UTC_CTL"),
	{ K3_GCFG_CAP0, 5 * 4, 4, "CAP", NULL, 0 },
	OFL_SIM_REG(0x80, "RX_FLOW_ID_FW_OES"),
	OFL_SIM_REG(0x88, "RX_FLOW_ID_FW_STATUS"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg chanrt_names[] = {
	OFL_SIM_REG(K3_RT_CTL, "CTL"),
	OFL_SIM_REG(K3_RT_SWTRIG, "SWTRIG"),
	OFL_SIM_REG(K3_RT_STDATA, "STDATA"),
	OFL_SIM_REG(K3_RT_PEER_BCNT, "PEER_BCNT"),
	OFL_SIM_REG(K3_RT_PEER_RT_EN, "PEER_RT_EN"),
	{ K3_RT_PEER0, 9 * 4, 4, "PEER", NULL, 0 },
	OFL_SIM_REG(K3_RT_PCNT, "PCNT"),
	OFL_SIM_REG(K3_RT_BCNT, "BCNT"),
	OFL_SIM_REG(K3_RT_SBCNT, "SBCNT"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg tchan_names[] = {
	OFL_SIM_REG(K3_TCFG, "TCFG"),
	OFL_SIM_REG(K3_TCREDIT, "TCREDIT"),
	OFL_SIM_REG(K3_TCQ, "TCQ"),
	OFL_SIM_REG(0x20, "TOES"),
	OFL_SIM_REG(0x60, "TEOES"),
	OFL_SIM_REG(K3_TPRI_CTRL, "TPRI_CTRL"),
	OFL_SIM_REG(K3_THREAD, "THREAD"),
	OFL_SIM_REG(K3_TFIFO_DEPTH, "TFIFO_DEPTH"),
	OFL_SIM_REG(K3_TST_SCHED, "TST_SCHED"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg rchan_names[] = {
	OFL_SIM_REG(K3_RCFG, "RCFG"),
	OFL_SIM_REG(K3_RCQ, "RCQ"),
	OFL_SIM_REG(0x20, "ROES"),
	OFL_SIM_REG(0x60, "REOES"),
	OFL_SIM_REG(K3_TPRI_CTRL, "RPRI_CTRL"),
	OFL_SIM_REG(K3_THREAD, "THREAD"),
	OFL_SIM_REG(K3_TST_SCHED, "RST_SCHED"),
	OFL_SIM_REG(K3_RFLOW_RNG, "RFLOW_RNG"),
	OFL_SIM_REG_END,
};
/* A block-copy channel's registers as TI's CSL names them (cslr_bcdma.h CSL_bcdma_bccfgRegs_chan). */
static const struct ofl_sim_reg bchan_names[] = {
	OFL_SIM_REG(K3_TCFG, "CFG"),
	OFL_SIM_REG(K3_TPRI_CTRL, "PRI_CTRL"),
	OFL_SIM_REG(K3_TST_SCHED, "TST_SCHED"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg ringrt_names[] = {
	OFL_SIM_REG(K3_DRING_FDB, "FDB"),
	OFL_SIM_REG(K3_DRING_FOCC, "FOCC"),
	OFL_SIM_REG(K3_DRING_RDB, "RDB"),
	OFL_SIM_REG(K3_DRING_ROCC, "ROCC"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg ring_names[] = {
	OFL_SIM_REG(K3_DRING_CFG_BA_LO, "BA_LO"),
	OFL_SIM_REG(K3_DRING_CFG_BA_HI, "BA_HI"),
	OFL_SIM_REG(K3_DRING_CFG_SIZE, "SIZE"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg psilcfg_names[] = {
	OFL_SIM_REG(K3_PSILCFG_PSIL_TO, "PSIL_TO"),
	OFL_SIM_REG(K3_PSILCFG_CMDA, "CMDA"),
	OFL_SIM_REG(K3_PSILCFG_CMDB, "CMDB"),
	OFL_SIM_REG(K3_PSILCFG_WDATA, "WDATA"),
	OFL_SIM_REG(K3_PSILCFG_RDATA, "RDATA"),
	OFL_SIM_REG_END,
};
#define AREA(unit, stride, names) { { unit, 0, stride, 0, names }, { NULL, 0, 0, 0, NULL } }
static const struct ofl_sim_regarea gcfg_area[] = AREA(NULL, 0, gcfg_names);
static const struct ofl_sim_regarea tchanrt_area[] = AREA("tchan", K3_CHANRT_STRIDE, chanrt_names);
static const struct ofl_sim_regarea rchanrt_area[] = AREA("rchan", K3_CHANRT_STRIDE, chanrt_names);
static const struct ofl_sim_regarea bchanrt_area[] = AREA("bchan", K3_CHANRT_STRIDE, chanrt_names);
static const struct ofl_sim_regarea ringrt_area[] = AREA("ring", K3_DRING_RT_STRIDE, ringrt_names);
static const struct ofl_sim_regarea ring_area[] = AREA("ring", K3_DRING_CFG_STRIDE, ring_names);
static const struct ofl_sim_regarea tchan_area[] = AREA("tchan", K3_CHANCFG_STRIDE, tchan_names);
static const struct ofl_sim_regarea rchan_area[] = AREA("rchan", K3_CHANCFG_STRIDE, rchan_names);
static const struct ofl_sim_regarea bchan_area[] = AREA("bchan", K3_CHANCFG_STRIDE, bchan_names);
static const struct ofl_sim_regarea psilcfg_area[] = AREA(NULL, 0, psilcfg_names);
#undef AREA

static int add_blocks(struct ofl_sim *sim, struct ofl_sim_udma *u)
{
	const struct ofl_sim_udma_params *p = &u->p;
	const struct {
		unsigned region;
		uint64_t a, s;
		const char *name;
		const struct ofl_sim_regarea *names;
	} regs[] = {
		{ R_GCFG, p->gcfg, p->gcfg_size, "udma.gcfg", gcfg_area },
		{ R_TCHANRT, p->tchanrt, p->tchanrt_size, "udma.tchanrt", tchanrt_area },
		{ R_RCHANRT, p->rchanrt, p->rchanrt_size, "udma.rchanrt", rchanrt_area },
		{ R_BCHANRT, p->bchanrt, p->bchanrt_size, "udma.bchanrt", bchanrt_area },
		{ R_RINGRT, p->ringrt, p->ringrt_size, "udma.ringrt", ringrt_area },
		{ R_RING, p->ring, p->ring_size, "udma.ring", ring_area },
		{ R_TCHAN, p->tchan, p->tchan_size, "udma.tchan", tchan_area },
		{ R_RCHAN, p->rchan, p->rchan_size, "udma.rchan", rchan_area },
		{ R_BCHAN, p->bchan, p->bchan_size, "udma.bchan", bchan_area },
		{ R_RFLOW, p->rflow, p->rflow_size, "udma.rflow", NULL },
		{ R_PSILCFG, p->psil_proxy, p->psil_proxy && !p->bcdma ? K3_PSILCFG_SIZE : 0, "udma.psilcfg",
		  psilcfg_area },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(regs); i++) {
		if (!regs[i].s)
			continue;
		int r = ofl_sim_add_block(sim, regs[i].a, regs[i].s, &udma_ops, u, regs[i].region,
					  regs[i].name, regs[i].names);
		if (r < 0) {
			ofl_sim_remove_blocks(sim, u);
			return r;
		}
	}
	return 0;
}

struct ofl_sim_udma *ofl_sim_udma_create(struct ofl_sim *sim, const struct ofl_sim_udma_params *p)
{
	if (!p || !p->gcfg_size || (p->bcdma ? (!p->bchan_cnt || !p->ringrt_size) : (!p->ra || !p->tchan_cnt)) ||
	    p->tchan_cnt > 511 || p->rchan_cnt > 511 || p->bchan_cnt > 511)
		return NULL;
	struct ofl_sim_udma *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->sim = sim;
	u->p = *p;
	u->ndrings = p->bcdma ? p->bchan_cnt + p->tchan_cnt + p->rchan_cnt : 0;
	u->tchan = calloc(p->tchan_cnt + 1, sizeof(*u->tchan));
	u->rchan = calloc(p->rchan_cnt + 1, sizeof(*u->rchan));
	u->bchan = calloc(p->bchan_cnt + 1, sizeof(*u->bchan));
	u->drings = calloc(u->ndrings + 1, sizeof(*u->drings));
	for (uint32_t i = 0; u->bchan && i < p->bchan_cnt; i++)
		u->bchan[i].cfg = K3_BCFG_RESET;
	for (uint32_t i = 0; u->drings && i < u->ndrings; i++)
		u->drings[i].size_reg = K3_DRING_SIZE_QMODE(K3_DRING_QMODE_DRING);
	pthread_mutex_init(&u->mu, NULL);
	if (!u->tchan || !u->rchan || !u->bchan || !u->drings || add_blocks(sim, u) < 0) {
		udma_destroy(&u->base);
		return NULL;
	}
	if (ofl_sim_thread_start(&u->thr, model_run, u) < 0) {
		ofl_sim_remove_blocks(sim, u);
		udma_destroy(&u->base);
		return NULL;
	}
	if (p->ra)
		ofl_sim_ringacc_listen(p->ra, ra_pushed, ra_overflow, u);
	u->base.kind = p->bcdma ? "k3-bcdma" : "k3-udma";
	u->base.node = p->node;
	u->base.destroy = udma_destroy;
	u->base.idle = model_idle;
	ofl_sim_model_add(sim, &u->base);
	return u;
}
