/* SPDX-License-Identifier: MIT */
/*
 * Model of the TI K3 NAVSS ring accelerator (hw/k3_udma.h §3.4, §3.6).
 *
 * A ring is `count` elements of `elsize` bytes in DMA memory at its base
 * address. The accelerator keeps an occupancy and two indexes:
 *  - `rd`: where the next element is taken from (MESSAGE-mode head pops,
 *    and the DMA's pops of a ring software fills);
 *  - `wr`: where the next element is put (MESSAGE-mode tail pushes, and the
 *    DMA's pushes into a ring software drains).
 * In RING mode software reads and writes the memory itself and reports
 * what it did through the doorbell (+n after filling, -n after draining).
 * In MESSAGE mode every access goes through the FIFO windows, which move
 * the element between the window and ring memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "hw/k3_udma.h"
#include "sim/k3_models.h"

enum { RA_RT, RA_FIFOS, RA_PROXY_GCFG, RA_PROXY_TARGET, RA_CFG };

struct ra_ring {
	uint32_t ba_lo, ba_hi, size_reg, event, orderid;
	uint32_t count, elsize, mode;
	uint32_t occ, rd, wr;
	uint32_t udma_occ;   /* SR1.0: the UDMA's own count of what it may fetch (21 bits) */
	uint32_t overflows, underflows;
};

struct ofl_sim_ringacc {
	struct ofl_sim_model base;
	struct ofl_sim *sim;
	struct ofl_sim_ringacc_params p;
	pthread_mutex_t mu;
	struct ra_ring *rings;
	uint32_t firewall_drops;
	void (*pushed)(void *arg, uint32_t ring);
	void (*overflow)(void *arg, uint32_t ring, uint64_t elem);
	void *listen_arg;
};
_Static_assert(offsetof(struct ofl_sim_ringacc, base) == 0, "ofl_sim_block_of() needs the model first");

static uint64_t ring_base(const struct ra_ring *r)
{
	return ((uint64_t)(r->ba_hi & 0xFFFFu) << 32) | r->ba_lo;
}

/* Physical address of element i. */
static uint64_t elem_phys(const struct ofl_sim_ringacc *ra, const struct ra_ring *r, uint32_t i)
{
	return ring_base(r) + (uint64_t)i * r->elsize - ra->p.dma_offset;
}

/*
 * The UDMA's own occupancy of a ring it fetches from (AM65x SR1.0, Linux
 * k3-ringacc.c k3_ringacc_ring_reset_dma()): it counts every element
 * pushed or announced by the doorbell, less what it fetched, in 21 bits.
 * Only the doorbell moves it otherwise: 2^22 - occ counts wrap it to 0.
 */
#define RA_UDMA_OCC_MASK ((1u << 21) - 1u)

static void udma_occ_add(struct ra_ring *r, int32_t n)
{
	r->udma_occ = (uint32_t)((int64_t)r->udma_occ + n) & RA_UDMA_OCC_MASK;
}

static void ring_apply_size(const struct ofl_sim_ringacc *ra, struct ra_ring *r)
{
	r->mode = K3_RA_SIZE_QMODE_GET(r->size_reg);
	r->elsize = 4u << K3_RA_SIZE_ELSIZE_GET(r->size_reg);
	r->count = K3_RA_SIZE_ELCNT_GET(r->size_reg);
	/* model: programming the size register resets the ring, as the reset paths of
	 * k3-ringacc.c (TI-SCI RING_CFG with COUNT valid) and U-Boot's raw reset rely on */
	r->occ = r->rd = r->wr = 0;
	/* ... but on AM65x SR1.0 not the UDMA's own count (k3_ringacc_ring_reset_dma()) */
	if (!ra->p.sr1_udma_ring_state)
		r->udma_occ = 0;
}

/* Read/write element i (at most 8 bytes are significant to the FIFO windows). */
static int elem_read(struct ofl_sim_ringacc *ra, struct ra_ring *r, uint32_t i, uint64_t *v)
{
	uint64_t buf[32] = { 0 };
	int e = ofl_sim_dma_read(ra->sim, elem_phys(ra, r, i), buf, r->elsize);

	*v = buf[0];
	if (r->elsize == 4)
		*v &= 0xFFFFFFFFu;
	return e;
}

static int elem_write(struct ofl_sim_ringacc *ra, struct ra_ring *r, uint32_t i, uint64_t v)
{
	uint64_t buf[32] = { v };

	return ofl_sim_dma_write(ra->sim, elem_phys(ra, r, i), buf, r->elsize);
}

static bool ring_usable(struct ofl_sim_ringacc *ra, uint32_t n, const char *what)
{
	if (n >= ra->p.num_rings) {
		ofl_sim_bus_error(ra->sim, "ringacc: %s on ring %u (the accelerator has %u)", what, n,
				  ra->p.num_rings);
		return false;
	}
	if (ra->rings[n].count == 0) {
		ofl_sim_bus_error(ra->sim, "ringacc: %s on ring %u, which is not configured", what, n);
		return false;
	}
	return true;
}

/* A CPU push through the tail window. Called with mu held; returns true if the DMA should look. */
static bool cpu_push(struct ofl_sim_ringacc *ra, uint32_t n, uint64_t v, bool *overflowed)
{
	struct ra_ring *r = &ra->rings[n];

	if (!ring_usable(ra, n, "push"))
		return false;
	if (r->occ >= r->count) {
		/* model: a push into a full ring is not stored; the DMA model reports it
		 * against the descriptor (SUBMISSION_ERR, FIFO full) */
		r->overflows++;
		*overflowed = true;
		return false;
	}
	if (elem_write(ra, r, r->wr, v) < 0)
		return false;
	r->wr = (r->wr + 1) % r->count;
	r->occ++;
	udma_occ_add(r, 1);
	return true;
}

/* A CPU pop through the head window. Called with mu held. */
static uint64_t cpu_pop(struct ofl_sim_ringacc *ra, uint32_t n)
{
	struct ra_ring *r = &ra->rings[n];
	uint64_t v = 0;

	if (!ring_usable(ra, n, "pop"))
		return 0;
	if (r->occ == 0) {
		/* model: popping an empty ring returns 0 and changes nothing */
		r->underflows++;
		return 0;
	}
	if (elem_read(ra, r, r->rd, &v) < 0)
		return 0;
	r->rd = (r->rd + 1) % r->count;
	r->occ--;
	return v;
}

/* ------------------------------------------------------------- register access */

static uint32_t rt_read(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t reg)
{
	const struct ra_ring *r = &ra->rings[n];

	switch (reg) {
	case K3_RA_RT_OCC:
	case K3_RA_RT_HWOCC:
		return r->occ & K3_RA_OCC_MASK;
	case K3_RA_RT_INDX:
		return r->rd;
	case K3_RA_RT_HWINDX:
		return r->wr;
	default:
		return 0;
	}
}

/* Returns true when a DMA listener should be told about ring n. */
static bool rt_write(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t reg, uint32_t v)
{
	struct ra_ring *r = &ra->rings[n];

	if (reg != K3_RA_RT_DB)
		return false; /* OCC and the indexes are read-only */
	if (!ring_usable(ra, n, "doorbell"))
		return false;
	if (r->mode == K3_RING_MODE_MESSAGE) {
		/* model: the doorbell counts elements software put into ring memory (RING
		 * mode); in MESSAGE mode the FIFO windows move them. Linux never rings a
		 * MESSAGE-mode ring and switches it to RING mode first where it must
		 * (k3_ringacc_ring_reset_dma()); what silicon does with it is not public */
		ofl_sim_bus_error(ra->sim, "ringacc: doorbell write 0x%x to ring %u, which is in MESSAGE mode "
				  "(the doorbell is for RING mode; elements move through the FIFO windows)",
				  v, n);
		return false;
	}
	int64_t occ = (int64_t)r->occ + (int32_t)v;
	if (occ > (int64_t)r->count) {
		r->overflows++;
		occ = r->count;
	} else if (occ < 0) {
		r->underflows++;
		occ = 0;
	}
	r->occ = (uint32_t)occ;
	udma_occ_add(r, (int32_t)v);
	return (int32_t)v > 0;
}

static uint32_t cfg_read(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t reg)
{
	const struct ra_ring *r = &ra->rings[n];

	switch (reg) {
	case K3_RA_CFG_BA_LO: return r->ba_lo;
	case K3_RA_CFG_BA_HI: return r->ba_hi;
	case K3_RA_CFG_SIZE: return r->size_reg;
	case K3_RA_CFG_EVENT: return r->event;
	case K3_RA_CFG_ORDERID: return r->orderid;
	default: return 0;
	}
}

static void cfg_write(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t reg, uint32_t v)
{
	struct ra_ring *r = &ra->rings[n];

	switch (reg) {
	case K3_RA_CFG_BA_LO: r->ba_lo = v; break;
	case K3_RA_CFG_BA_HI: r->ba_hi = v & 0xFFFFu; break;
	case K3_RA_CFG_SIZE:
		r->size_reg = v;
		ring_apply_size(ra, r);
		break;
	case K3_RA_CFG_EVENT: r->event = v; break;
	case K3_RA_CFG_ORDERID: r->orderid = v; break;
	default: break;
	}
}

/*
 * FIFO window access for ring n at offset `o` inside its 4 KiB page.
 * An element sits at the end of its 512-byte window (hw/k3_udma.h §3.4):
 * Linux places the access at window end - element size
 * (k3_ringacc_ring_get_fifo_pos()), TI's CSL at the window's last word
 * (32-bit) or last two words (64-bit, CSL_ringaccPush64/Pop64/Peek64: one
 * CSL_REG64_WR/RD). Model: an element moves in one access of its own size
 * ending at the window end. Anything else is refused (a bus error, nothing
 * moves): an access not ending at the window end, one wider than the
 * element, and an 8-byte element in two 32-bit halves. TI's CSL
 * (csl_ringacc.h, CSL_ringaccPush64()) says the 64-bit window functions can
 * only be used by a processor able to issue a 64-bit burst, and a 32-bit
 * processor should use the ring accelerator proxy instead: no source has
 * the window take an element in halves (docs/fidelity.md M7).
 */
static bool fifo_form_ok(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t o, unsigned width, bool write)
{
	struct ra_ring *r = &ra->rings[n];
	uint32_t win = o & ~(K3_RA_FIFO_WINDOW - 1), pos = o & (K3_RA_FIFO_WINDOW - 1);
	uint32_t el = r->elsize ? r->elsize : 8;
	const char *op = write ? "write" : "read";

	if ((win == K3_RA_FIFO_TAIL) != write || el > 8 || pos + width > K3_RA_FIFO_WINDOW ||
	    pos < K3_RA_FIFO_WINDOW - el) {
		ofl_sim_bus_error(ra->sim, "ringacc: FIFO %s of %u bytes at ring %u +0x%x (element %u B)",
				  op, width, n, o, el);
		return false;
	}
	if (width != el) { /* part of the element: either half of an 8-byte one */
		ofl_sim_bus_error(ra->sim, "ringacc: ring %u: %u-byte FIFO %s of a %u-byte element: an element "
				  "moves in one access of its size (a 32-bit CPU uses the proxy, TI CSL "
				  "csl_ringacc.h CSL_ringaccPush64())", n, width, op, el);
		return false;
	}
	return true;
}

static uint64_t fifo_read(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t o, unsigned width)
{
	struct ra_ring *r = &ra->rings[n];
	uint32_t win = o & ~(K3_RA_FIFO_WINDOW - 1);
	uint64_t v = 0;

	if (!fifo_form_ok(ra, n, o, width, false))
		return ~0ull;
	if (win != K3_RA_FIFO_HEAD) { /* a peek moves nothing */
		if (!ring_usable(ra, n, "peek") || r->occ == 0)
			return 0;
		uint32_t i = win == K3_RA_FIFO_PEEK_TAIL ? (r->wr + r->count - 1) % r->count : r->rd;
		elem_read(ra, r, i, &v);
		return v;
	}
	return cpu_pop(ra, n);
}

/* Returns true when the DMA listener should look at ring n; sets *ovf and *ovf_val on overflow. */
static bool fifo_write(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t o, uint64_t v,
		       unsigned width, bool *ovf, uint64_t *ovf_val)
{
	if (!fifo_form_ok(ra, n, o, width, true))
		return false;
	bool o_flag = false;
	bool pushed = cpu_push(ra, n, v, &o_flag);
	if (o_flag) {
		*ovf = true;
		*ovf_val = v;
	}
	return pushed;
}

struct ra_addr {
	uint32_t ring, reg;
};

static bool decode(struct ofl_sim_ringacc *ra, unsigned region, uint64_t off, struct ra_addr *a)
{
	uint64_t stride = region == RA_CFG ? K3_RA_CFG_STRIDE : K3_RA_RT_STRIDE;

	a->ring = (uint32_t)(off / stride);
	a->reg = (uint32_t)(off % stride);
	if (a->ring >= ra->p.num_rings) {
		ofl_sim_bus_error(ra->sim, "ringacc: access to ring %u (the accelerator has %u)", a->ring,
				  ra->p.num_rings);
		return false;
	}
	return true;
}

static uint64_t ra_read(void *model, unsigned region, uint64_t off, unsigned width)
{
	struct ofl_sim_ringacc *ra = model;
	struct ra_addr a;
	uint64_t v = 0;

	if (region == RA_PROXY_GCFG || region == RA_PROXY_TARGET)
		return 0; /* model: no proxies (proxy_gcfg CONFIG reads 0 threads) */
	pthread_mutex_lock(&ra->mu);
	if (decode(ra, region, off, &a)) {
		if (region == RA_FIFOS)
			v = fifo_read(ra, a.ring, a.reg, width);
		else if (region == RA_RT)
			v = rt_read(ra, a.ring, a.reg);
		else
			v = cfg_read(ra, a.ring, a.reg);
	}
	pthread_mutex_unlock(&ra->mu);
	return v;
}

static void ra_write(void *model, unsigned region, uint64_t off, uint64_t v, unsigned width)
{
	struct ofl_sim_ringacc *ra = model;
	struct ra_addr a;
	bool notify = false, ovf = false;
	uint64_t ovf_val = 0;

	if (region == RA_PROXY_GCFG || region == RA_PROXY_TARGET)
		return;
	pthread_mutex_lock(&ra->mu);
	if (decode(ra, region, off, &a)) {
		if (region == RA_FIFOS)
			notify = fifo_write(ra, a.ring, a.reg, v, width, &ovf, &ovf_val);
		else if (region == RA_RT)
			notify = rt_write(ra, a.ring, a.reg, (uint32_t)v);
		else if (ra->p.cfg_firewalled)
			ra->firewall_drops++;
		else
			cfg_write(ra, a.ring, a.reg, (uint32_t)v);
	}
	void (*pushed)(void *, uint32_t) = ra->pushed;
	void (*overflow)(void *, uint32_t, uint64_t) = ra->overflow;
	void *arg = ra->listen_arg;
	pthread_mutex_unlock(&ra->mu);
	if (notify && pushed)
		pushed(arg, a.ring);
	if (ovf && overflow)
		overflow(arg, a.ring, ovf_val);
}

static uint32_t ra_read32(void *m, unsigned region, uint64_t off)
{
	return (uint32_t)ra_read(m, region, off, 4);
}

static void ra_write32(void *m, unsigned region, uint64_t off, uint32_t v)
{
	ra_write(m, region, off, v, 4);
}

static uint64_t ra_read64(void *m, unsigned region, uint64_t off)
{
	if (region == RA_FIFOS)
		return ra_read(m, region, off, 8);
	return ra_read(m, region, off, 4) | ra_read(m, region, off + 4, 4) << 32;
}

static void ra_write64(void *m, unsigned region, uint64_t off, uint64_t v)
{
	if (region == RA_FIFOS) {
		ra_write(m, region, off, v, 8);
		return;
	}
	ra_write(m, region, off, (uint32_t)v, 4);
	ra_write(m, region, off + 4, v >> 32, 4);
}

static const struct ofl_sim_block_ops ra_ops = {
	.read32 = ra_read32,
	.write32 = ra_write32,
	.read64 = ra_read64,
	.write64 = ra_write64,
};

/* ------------------------------------------------------------- DMA side */

int ofl_sim_ringacc_hw_pop(struct ofl_sim_ringacc *ra, uint32_t n, uint64_t *elem)
{
	int r = 0;

	if (n >= ra->p.num_rings)
		return -EINVAL;
	pthread_mutex_lock(&ra->mu);
	struct ra_ring *g = &ra->rings[n];
	if (g->count == 0 || g->occ == 0) {
		r = -ENOENT;
	} else if (ra->p.sr1_udma_ring_state && g->udma_occ != g->occ) {
		/* model: the UDMA fetches by its own count, from where it left off: stale entries */
		ofl_sim_bus_error(ra->sim, "ringacc: ring %u: the UDMA counts %u entries but the ring holds %u: "
				  "AM65x SR1.0 keeps its own ring occupancy across a reset, so a reset without "
				  "the doorbell wrap (k3_ringacc_ring_reset_dma) makes it fetch stale descriptors",
				  n, g->udma_occ, g->occ);
		r = -EFAULT;
	} else if (elem_read(ra, g, g->rd, elem) < 0) {
		r = -EFAULT;
	} else {
		g->rd = (g->rd + 1) % g->count;
		g->occ--;
		udma_occ_add(g, -1);
	}
	pthread_mutex_unlock(&ra->mu);
	return r;
}

int ofl_sim_ringacc_hw_push(struct ofl_sim_ringacc *ra, uint32_t n, uint64_t elem)
{
	int r = 0;

	if (n >= ra->p.num_rings)
		return -EINVAL;
	pthread_mutex_lock(&ra->mu);
	struct ra_ring *g = &ra->rings[n];
	if (g->count == 0)
		r = -EINVAL;
	else if (g->occ >= g->count)
		r = -ENOSPC;
	else if (elem_write(ra, g, g->wr, elem) < 0)
		r = -EFAULT;
	else {
		g->wr = (g->wr + 1) % g->count;
		g->occ++;
	}
	pthread_mutex_unlock(&ra->mu);
	return r;
}

uint32_t ofl_sim_ringacc_occ(struct ofl_sim_ringacc *ra, uint32_t n)
{
	uint32_t occ = 0;

	if (n >= ra->p.num_rings)
		return 0;
	pthread_mutex_lock(&ra->mu);
	occ = ra->rings[n].occ;
	pthread_mutex_unlock(&ra->mu);
	return occ;
}

uint32_t ofl_sim_ringacc_overflows(struct ofl_sim_ringacc *ra, uint32_t n)
{
	uint32_t v = 0;

	if (n >= ra->p.num_rings)
		return 0;
	pthread_mutex_lock(&ra->mu);
	v = ra->rings[n].overflows;
	pthread_mutex_unlock(&ra->mu);
	return v;
}

const struct ofl_sim_ringacc_params *ofl_sim_ringacc_params(const struct ofl_sim_ringacc *ra)
{
	return &ra->p;
}

bool ofl_sim_ringacc_firewalled(const struct ofl_sim_ringacc *ra)
{
	return ra->p.cfg_firewalled;
}

int ofl_sim_ringacc_fw_ring_cfg(struct ofl_sim_ringacc *ra, uint32_t n, uint32_t valid,
				uint64_t addr, uint32_t count, uint8_t mode, uint8_t size_code)
{
	if (n >= ra->p.num_rings || mode > K3_RING_MODE_CREDENTIALS || size_code > 6 ||
	    count > K3_RA_SIZE_ELCNT_GET(0xFFFFFFFFu))
		return -EINVAL;
	pthread_mutex_lock(&ra->mu);
	struct ra_ring *r = &ra->rings[n];
	if (valid & K3_BIT(0))
		r->ba_lo = (uint32_t)addr;
	if (valid & K3_BIT(1))
		r->ba_hi = (uint32_t)(addr >> 32) & 0xFFFFu;
	uint32_t sz = r->size_reg;
	if (valid & K3_BIT(2))
		sz = (sz & ~K3_RA_SIZE_ELCNT(0xFFFFFu)) | K3_RA_SIZE_ELCNT(count);
	if (valid & K3_BIT(3))
		sz = (sz & ~K3_RA_SIZE_QMODE(3)) | K3_RA_SIZE_QMODE(mode);
	if (valid & K3_BIT(4))
		sz = (sz & ~K3_RA_SIZE_ELSIZE(7)) | K3_RA_SIZE_ELSIZE(size_code);
	if (valid & (K3_BIT(2) | K3_BIT(3) | K3_BIT(4))) {
		r->size_reg = sz;
		ring_apply_size(ra, r);
	}
	const uint32_t written[] = { r->ba_lo, r->ba_hi, r->size_reg };
	pthread_mutex_unlock(&ra->mu);
	/* the registers as the firmware left them: BA_LO (bit 0), BA_HI (1), SIZE (2-4) */
	const struct { uint32_t valid, reg; } order[] = {
		{ K3_BIT(0), K3_RA_CFG_BA_LO }, { K3_BIT(1), K3_RA_CFG_BA_HI },
		{ K3_BIT(2) | K3_BIT(3) | K3_BIT(4), K3_RA_CFG_SIZE },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(order); i++)
		if (valid & order[i].valid)
			ofl_sim_trace_fw(ra->sim, ra, RA_CFG, (uint64_t)n * K3_RA_CFG_STRIDE + order[i].reg,
					 written[i]);
	return 0;
}

void ofl_sim_ringacc_listen(struct ofl_sim_ringacc *ra, void (*pushed)(void *arg, uint32_t ring),
			    void (*overflow)(void *arg, uint32_t ring, uint64_t elem), void *arg)
{
	pthread_mutex_lock(&ra->mu);
	ra->pushed = pushed;
	ra->overflow = overflow;
	ra->listen_arg = arg;
	pthread_mutex_unlock(&ra->mu);
}

/* ------------------------------------------------------------- lifecycle */

static void ra_destroy(struct ofl_sim_model *m)
{
	struct ofl_sim_ringacc *ra = ofl_container_of(m, struct ofl_sim_ringacc, base);

	pthread_mutex_destroy(&ra->mu);
	free(ra->rings);
	free(ra);
}

/*
 * Register names for the trace (sim.h), as Linux drivers/soc/ti/k3-ringacc.c
 * names the fields of struct k3_ring_rt_regs, k3_ring_fifo_regs and
 * k3_ring_cfg_regs (upper case). A FIFO window is one name: an element is
 * written or read at the end of its 512-byte window (hw/k3_udma.h §3.4).
 */
static const struct ofl_sim_reg rt_names[] = {
	OFL_SIM_REG(K3_RA_RT_DB, "DB"),
	OFL_SIM_REG(K3_RA_RT_OCC, "OCC"),
	OFL_SIM_REG(K3_RA_RT_INDX, "INDX"),
	OFL_SIM_REG(K3_RA_RT_HWOCC, "HWOCC"),
	OFL_SIM_REG(K3_RA_RT_HWINDX, "HWINDX"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg fifo_names[] = {
	{ K3_RA_FIFO_HEAD, K3_RA_FIFO_WINDOW, 0, "HEAD_DATA", NULL, 0 },
	{ K3_RA_FIFO_TAIL, K3_RA_FIFO_WINDOW, 0, "TAIL_DATA", NULL, 0 },
	{ K3_RA_FIFO_PEEK_HEAD, K3_RA_FIFO_WINDOW, 0, "PEEK_HEAD_DATA", NULL, 0 },
	{ K3_RA_FIFO_PEEK_TAIL, K3_RA_FIFO_WINDOW, 0, "PEEK_TAIL_DATA", NULL, 0 },
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg cfg_names[] = {
	OFL_SIM_REG(K3_RA_CFG_BA_LO, "BA_LO"),
	OFL_SIM_REG(K3_RA_CFG_BA_HI, "BA_HI"),
	OFL_SIM_REG(K3_RA_CFG_SIZE, "SIZE"),
	OFL_SIM_REG(K3_RA_CFG_EVENT, "EVENT"),
	OFL_SIM_REG(K3_RA_CFG_ORDERID, "ORDERID"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_regarea rt_area[] = {
	{ "ring", 0, K3_RA_RT_STRIDE, 0, rt_names }, { NULL, 0, 0, 0, NULL },
};
static const struct ofl_sim_regarea fifo_area[] = {
	{ "ring", 0, K3_RA_FIFO_STRIDE, 0, fifo_names }, { NULL, 0, 0, 0, NULL },
};
static const struct ofl_sim_regarea cfg_area[] = {
	{ "ring", 0, K3_RA_CFG_STRIDE, 0, cfg_names }, { NULL, 0, 0, 0, NULL },
};

struct ofl_sim_ringacc *ofl_sim_ringacc_create(struct ofl_sim *sim,
					       const struct ofl_sim_ringacc_params *p)
{
	if (!p || p->num_rings == 0 || p->num_rings > (1u << 20) || !p->rt_size || !p->fifos_size)
		return NULL;
	struct ofl_sim_ringacc *ra = calloc(1, sizeof(*ra));
	if (!ra)
		return NULL;
	ra->rings = calloc(p->num_rings, sizeof(*ra->rings));
	if (!ra->rings) {
		free(ra);
		return NULL;
	}
	ra->sim = sim;
	ra->p = *p;
	pthread_mutex_init(&ra->mu, NULL);
	const struct {
		unsigned region;
		uint64_t a, s;
		const char *name;
		const struct ofl_sim_regarea *names;
	} regs[] = {
		{ RA_RT, p->rt, p->rt_size, "ringacc.rt", rt_area },
		{ RA_FIFOS, p->fifos, p->fifos_size, "ringacc.fifos", fifo_area },
		{ RA_PROXY_GCFG, p->proxy_gcfg, p->proxy_gcfg_size, "ringacc.proxy_gcfg", NULL },
		{ RA_PROXY_TARGET, p->proxy_target, p->proxy_target_size, "ringacc.proxy_target", NULL },
		{ RA_CFG, p->cfg, p->cfg_size, "ringacc.cfg", cfg_area },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(regs); i++) {
		if (regs[i].s && ofl_sim_add_block(sim, regs[i].a, regs[i].s, &ra_ops, ra, regs[i].region,
						   regs[i].name, regs[i].names) < 0) {
			ofl_sim_remove_blocks(sim, ra);
			ra_destroy(&ra->base);
			return NULL;
		}
	}
	ra->base.kind = "k3-ringacc";
	ra->base.node = p->node;
	ra->base.destroy = ra_destroy;
	ofl_sim_model_add(sim, &ra->base);
	return ra;
}
