/* SPDX-License-Identifier: MIT */
/*
 * Engine and channel management (hw/k3_udma.h §2.1-§2.2, §5.1-§5.5): GCFG
 * capabilities, channel classes, the highest-capacity free channel, channel
 * and ring configuration through the firmware hook, start, teardown, reset.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "udma.h"

#define RT(ch) ((uint64_t)(ch) * K3_CHANRT_STRIDE)
#define CFG(ch) ((uint64_t)(ch) * K3_CHANCFG_STRIDE)

/* ------------------------------------------------------------- capabilities */

static void tpl_table(struct udma_engine *e, uint32_t hi_cnt, uint32_t uh_cnt)
{
	memset(e->tpl_start, 0, sizeof(e->tpl_start));
	if (uh_cnt) {
		e->tpl_levels = 3;
		e->tpl_start[1] = uh_cnt;
		e->tpl_start[0] = hi_cnt;
	} else if (hi_cnt) {
		e->tpl_levels = 2;
		e->tpl_start[0] = hi_cnt;
	} else {
		e->tpl_levels = 1;
	}
}

/* Region `m` must hold `count` elements `stride` bytes apart, each using its first `end` bytes. */
struct extent {
	const struct ofl_mmio *m;
	const char *name;    /* reg-names entry */
	const char *what;    /* "channel", "ring" */
	const char *counted; /* where the count comes from */
	uint32_t count;
	uint64_t stride, end;
};

/* Absent optional regions pass (the configuration hook reports them when it needs them). */
static int fits(const struct extent *x, char *why, size_t wl)
{
	if (x->m->kind == OFL_MMIO_NONE || x->count == 0)
		return 0;
	uint64_t need = (uint64_t)(x->count - 1) * x->stride + x->end;
	if (need <= x->m->size)
		return 0;
	snprintf(why, wl, "the %s region is 0x%" PRIx64 " bytes but %s %u needs it to reach 0x%"
		 PRIx64 " (0x%" PRIx64 " bytes per %s; %u %ss by %s): the device tree's region and the "
		 "%s count disagree, so the device is not used rather than accessed outside its regions",
		 x->name, x->m->size, x->what, x->count - 1, need, x->stride, x->what, x->count, x->what,
		 x->counted, x->what);
	return -ENODEV;
}

/*
 * Every register and ring the backend will touch lies inside the mapped
 * regions (hw/k3_udma.h §3: 4 KiB per channel in the RT regions, 256 B per
 * channel in the configuration regions, 4 KiB per ring in the ring
 * accelerator's rt and fifos windows, 256 B per ring configuration, 8 KiB per
 * DMA ring). Memcpy uses channels 0..nchan-1, their TX rings 0..nchan-1 and,
 * on UDMA, completion rings gp_first..ra_rings-1.
 */
static int check_regions(const struct udma_engine *e, char *why, size_t wl)
{
	const uint32_t n = e->nchan, nr = e->ra_rings;
	const struct extent bc[] = {
		{ &e->bchanrt, "\"bchanrt\"", "channel", "GCFG", n, K3_CHANRT_STRIDE, K3_RT_SBCNT + 4 },
		{ &e->bchancfg, "\"bchan\"", "channel", "GCFG", n, K3_CHANCFG_STRIDE, K3_TCFG + 4 },
		{ &e->ringrt, "\"ringrt\"", "ring", "GCFG", n, K3_DRING_RT_STRIDE, K3_DRING_ROCC + 4 },
		{ &e->ringcfg, "\"ring\"", "ring", "GCFG", n, K3_DRING_CFG_STRIDE, K3_DRING_CFG_SIZE + 4 },
	};
	const struct extent ud[] = {
		{ &e->tchanrt, "\"tchanrt\"", "channel", "GCFG", n, K3_CHANRT_STRIDE, K3_RT_SBCNT + 4 },
		{ &e->rchanrt, "\"rchanrt\"", "channel", "GCFG", n, K3_CHANRT_STRIDE, K3_RT_SBCNT + 4 },
		{ &e->tchancfg, "\"tchan\"", "channel", "GCFG", n, K3_CHANCFG_STRIDE, K3_THREAD + 4 },
		{ &e->rchancfg, "\"rchan\"", "channel", "GCFG", n, K3_CHANCFG_STRIDE, K3_RFLOW_RNG + 4 },
		{ &e->ra_rt, "ring accelerator \"rt\"", "ring", "ti,num-rings", nr, K3_RA_RT_STRIDE,
		  K3_RA_RT_OCC + 4 },
		{ &e->ra_fifos, "ring accelerator \"fifos\"", "ring", "ti,num-rings", nr, K3_RA_FIFO_STRIDE,
		  K3_RA_FIFO_TAIL + K3_RA_FIFO_WINDOW },
		{ &e->ra_cfg, "ring accelerator \"cfg\"", "ring", "ti,num-rings", nr, K3_RA_CFG_STRIDE,
		  K3_RA_CFG_SIZE + 4 },
	};
	const struct extent *x = e->bcdma ? bc : ud;
	size_t cnt = e->bcdma ? OFL_ARRAY_SIZE(bc) : OFL_ARRAY_SIZE(ud);

	for (size_t i = 0; i < cnt; i++)
		if (fits(&x[i], why, wl) < 0)
			return -ENODEV;
	return 0;
}

/*
 * Without DM firmware the library writes channel and ring configuration
 * itself (udma_fw_registers): the regions it writes must be in the tree, or
 * the first channel open would fail on a device listed usable.
 */
static int check_config_regions(const struct udma_engine *e, char *why, size_t wl)
{
	const struct { const struct ofl_mmio *m; const char *name; } need[] = {
		{ e->bcdma ? &e->bchancfg : &e->tchancfg, e->bcdma ? "\"bchan\"" : "\"tchan\"" },
		{ e->bcdma ? &e->ringcfg : &e->rchancfg, e->bcdma ? "\"ring\"" : "\"rchan\"" },
		{ e->bcdma ? NULL : &e->ra_cfg, "ring accelerator \"cfg\"" },
	};

	for (size_t i = 0; i < OFL_ARRAY_SIZE(need); i++)
		if (need[i].m && need[i].m->kind == OFL_MMIO_NONE) {
			snprintf(why, wl, "the device tree declares no %s region, and without DM firmware "
				 "the library configures channels and rings through it", need[i].name);
			return -ENODEV;
		}
	return 0;
}

int udma_engine_init(struct udma_engine *e, char *why, size_t wl)
{
	const struct extent gcfg = { &e->gcfg, "\"gcfg\"", "register block", "the binding", 1,
				     K3_GCFG_SIZE, K3_GCFG_CAP3 + 4 };
	int r = fits(&gcfg, why, wl);

	if (r < 0)
		return r;
	uint32_t cap2 = ofl_mmio_read32(&e->gcfg, K3_GCFG_CAP2);
	uint32_t cap3 = ofl_mmio_read32(&e->gcfg, K3_GCFG_CAP3);

	if (e->bcdma) {
		/* the bchan count excludes the H/UH ones (2024 fix, hw/k3_udma.h §2.1) */
		e->bchan_cnt = K3_BCDMA_CAP2_BCHAN(cap2) + K3_BCDMA_CAP3_HBCHAN(cap3) +
			       K3_BCDMA_CAP3_UBCHAN(cap3);
		e->tchan_cnt = K3_BCDMA_CAP2_TCHAN(cap2);
		e->rchan_cnt = K3_BCDMA_CAP2_RCHAN(cap2);
		e->nchan = e->bchan_cnt;
		tpl_table(e, K3_BCDMA_CAP3_HBCHAN(cap3), K3_BCDMA_CAP3_UBCHAN(cap3));
	} else {
		e->tchan_cnt = K3_UDMA_CAP2_TCHAN(cap2);
		e->echan_cnt = K3_UDMA_CAP2_ECHAN(cap2);
		e->rchan_cnt = K3_UDMA_CAP2_RCHAN(cap2);
		e->rflow_cnt = K3_UDMA_CAP3_RFLOW(cap3);
		e->hchan_cnt = K3_UDMA_CAP3_HCHAN(cap3);
		e->uchan_cnt = K3_UDMA_CAP3_UCHAN(cap3);
		e->nchan = OFL_MIN(e->tchan_cnt, e->rchan_cnt);
		if (e->tpl_quirk) { /* am654: channels 0..quirk-1 are H, the rest normal */
			memset(e->tpl_start, 0, sizeof(e->tpl_start));
			e->tpl_levels = 2;
			e->tpl_start[0] = e->tpl_quirk;
		} else {
			tpl_table(e, e->hchan_cnt, e->uchan_cnt);
		}
		/* rings: tchan n -> ring n; rflow rings after tchans + echans; GP rings after the rchans */
		e->gp_first = e->tchan_cnt + e->echan_cnt + e->rchan_cnt;
		if (e->gp_first >= e->ra_rings) {
			snprintf(why, wl, "the ring accelerator has %u rings, none left after the %u channel rings",
				 e->ra_rings, e->gp_first);
			return -ENODEV;
		}
	}
	if (cap2 == 0xFFFFFFFFu || e->nchan == 0) {
		snprintf(why, wl, "GCFG reports no memcpy channels (CAP2 0x%08x, CAP3 0x%08x)", cap2, cap3);
		return -ENODEV;
	}
	if ((r = check_regions(e, why, wl)) < 0)
		return r;
	if (!e->fw)
		e->fw = &udma_fw_registers;
	if (e->fw == &udma_fw_registers && (r = check_config_regions(e, why, wl)) < 0)
		return r;
	e->chan_busy = calloc(e->nchan, 1);
	e->ring_busy = e->bcdma ? NULL : calloc(e->ra_rings - e->gp_first, 1);
	if (!e->chan_busy || (!e->bcdma && !e->ring_busy)) {
		free(e->chan_busy);
		free(e->ring_busy);
		e->chan_busy = e->ring_busy = NULL;
		return -ENOMEM;
	}
	if (!e->timeout_ns)
		e->timeout_ns = UDMA_DEFAULT_TIMEOUT_NS * (e->sim ? OFL_SIM_TIMEOUT_FACTOR : 1u);
	/*
	 * Separate from the stall watchdog: Linux gives the teardown completion
	 * its own 1 s (drivers/dma/ti/k3-udma.c udma_synchronize()), so a caller
	 * who shortens the watchdog does not shorten the teardown with it.
	 */
	if (!e->teardown_ns)
		e->teardown_ns = UDMA_DEFAULT_TIMEOUT_NS * (e->sim ? OFL_SIM_TIMEOUT_FACTOR : 1u);
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cv, NULL);
	pthread_mutex_init(&e->psil_lock, NULL);
	return 0;
}

void udma_engine_fini(struct udma_engine *e)
{
	for (int i = 0; i < UDMA_SYNC_CHANS; i++)
		if (e->sync[i])
			udma_chan_close(e->sync[i]);
	if (e->chan_busy) {
		pthread_mutex_destroy(&e->lock);
		pthread_cond_destroy(&e->cv);
		pthread_mutex_destroy(&e->psil_lock);
	}
	free(e->chan_busy);
	free(e->ring_busy);
	e->chan_busy = e->ring_busy = NULL;
}

uint32_t udma_chan_tpl(const struct udma_engine *e, uint32_t ch)
{
	/* udma_get_chan_tpl_index(): the first level whose start the channel reaches */
	for (uint32_t i = 0; i + 1 < e->tpl_levels; i++)
		if (ch >= e->tpl_start[i])
			return i;
	return e->tpl_levels ? e->tpl_levels - 1 : 0;
}

uint32_t udma_burst_code(uint32_t bytes)
{
	switch (bytes) {
	case 64: return K3_BURST_64;
	case 128: return K3_BURST_128;
	case 256: return K3_BURST_256;
	default: return 0;
	}
}

/* ------------------------------------------------------------- firmware hook: registers */

static int need(const struct ofl_mmio *m, const char *what, char *why, size_t wl)
{
	if (m->kind != OFL_MMIO_NONE)
		return 0;
	snprintf(why, wl, "the device tree declares no \"%s\" region to configure it through", what);
	return -ENOTSUP;
}

/*
 * Field-wise read-modify-write of a configuration register, as TI's RM
 * firmware does (rm_udmap.c udmap_tx_ch_cfg(): only the fields of the valid
 * parameters change): the bits of `mask` take `val`, the others keep what
 * the register holds; the readback compares those fields only (read-only
 * and reserved bits read what they read). false when they did not stick.
 */
static bool rmw_cfg(const struct ofl_mmio *m, uint64_t off, uint32_t mask, uint32_t val)
{
	uint32_t v = (ofl_mmio_read32(m, off) & ~mask) | (val & mask);

	ofl_mmio_write32(m, off, v);
	return ((ofl_mmio_read32(m, off) ^ v) & mask) == 0;
}

/* ------------------------------------------------------------- PSI-L proxy (hw/k3_udma.h §3.7) */

/* One proxy command (TI CSL csl_psilcfg.c CSL_psilcfgRead() / CSL_psilcfgWrite()). */
static int psil_cmd(struct udma_engine *e, bool read, uint32_t thread, uint32_t reg, uint32_t *data,
		    char *why, size_t wl)
{
	const struct ofl_mmio *px = &e->psilcfg;
	uint32_t a = 0;

	if (ofl_mmio_read32(px, K3_PSILCFG_CMDA) & K3_PSILCFG_CMDA_BUSY)
		goto timeout;
	ofl_mmio_write32(px, K3_PSILCFG_CMDA, (read ? K3_PSILCFG_CMDA_DIR_READ : 0) | thread);
	ofl_mmio_write32(px, K3_PSILCFG_CMDB, K3_PSILCFG_CMDB_BYTEN_ALL | reg);
	if (!read)
		ofl_mmio_write32(px, K3_PSILCFG_WDATA, *data);
	/* the command completes in bus cycles: a bounded poll, as the CSL's */
	for (int i = 0; i < 10000 && ((a = ofl_mmio_read32(px, K3_PSILCFG_CMDA)) & K3_PSILCFG_CMDA_BUSY); i++)
		;
	if (a & (K3_PSILCFG_CMDA_BUSY | K3_PSILCFG_CMDA_TO)) {
		ofl_mmio_write32(px, K3_PSILCFG_PSIL_TO,
				 ofl_mmio_read32(px, K3_PSILCFG_PSIL_TO) & ~K3_PSILCFG_PSIL_TO_TOUT);
		goto timeout;
	}
	if (read)
		*data = ofl_mmio_read32(px, K3_PSILCFG_RDATA);
	return 0;
timeout:
	snprintf(why, wl, "PSI-L proxy: %s of register 0x%03x of thread 0x%04x timed out", read ? "read" : "write",
		 reg, thread);
	return -ETIMEDOUT;
}

static int psil_route(struct udma_engine *e, uint32_t src, uint32_t dst, bool pair, char *why, size_t wl)
{
	uint32_t caps, v;
	int r;

	if (!pair) {
		/* TI sciclient_rm_csl.c Sciclient_rmPsilUnpair(): RT_ENABLE of the source, then the destination, cleared */
		const uint32_t th[2] = { src, dst };
		for (int k = 0; k < 2; k++) {
			if ((r = psil_cmd(e, true, th[k], K3_PSIL_RT_ENABLE, &v, why, wl)) < 0)
				return r;
			v &= ~K3_PSIL_EN;
			if ((r = psil_cmd(e, false, th[k], K3_PSIL_RT_ENABLE, &v, why, wl)) < 0)
				return r;
		}
		return 0;
	}
	/* TI CSL csl_psilcfg.c CSL_psilcfgCreateRoute() */
	if ((r = psil_cmd(e, true, dst, K3_PSIL_CAPABILITIES, &caps, why, wl)) < 0)
		return r;
	v = (caps & K3_PSIL_WIDTH_MASK) | dst;
	if ((r = psil_cmd(e, false, src, K3_PSIL_PEER_THREAD_ID, &v, why, wl)) < 0)
		return r;
	v = caps & K3_PSIL_CREDIT_MASK;
	if ((r = psil_cmd(e, false, src, K3_PSIL_PEER_CREDIT, &v, why, wl)) < 0)
		return r;
	const uint32_t th[4] = { dst, src, dst, src };
	const uint32_t rg[4] = { K3_PSIL_ENABLE, K3_PSIL_ENABLE, K3_PSIL_RT_ENABLE, K3_PSIL_RT_ENABLE };
	for (int k = 0; k < 4; k++) {
		if ((r = psil_cmd(e, true, th[k], rg[k], &v, why, wl)) < 0)
			return r;
		v |= K3_PSIL_EN;
		if ((r = psil_cmd(e, false, th[k], rg[k], &v, why, wl)) < 0)
			return r;
	}
	return 0;
}

int udma_psil_route(struct udma_engine *e, uint32_t src, uint32_t dst, bool pair, char *why, size_t wl)
{
	pthread_mutex_lock(&e->psil_lock);
	int r = psil_route(e, src, dst, pair, why, wl);
	pthread_mutex_unlock(&e->psil_lock);
	return r;
}

/*
 * The fields Linux's memcpy channel configuration sets, at their register
 * positions (k3-udma.c udma_tisci_m2m_channel_config(): TX valid PAUSE_ON_ERR,
 * FILT_EINFO, FILT_PSWORDS, ATYPE, CHAN_TYPE, FETCH_SIZE, SUPR_TDPKT, all 0
 * but ATYPE, CHAN_TYPE = 12 and FETCH_SIZE = 4; RX adds IGNORE_SHORT/LONG = 0;
 * BURST_SIZE only with UDMA_FLAG_BURST_SIZE, i.e. a non-zero code here; cslr_udmap.h).
 */
#define TCFG_MEMCPY_MASK (K3_CFG_PAUSE_ON_ERR | K3_BIT(30) | K3_BIT(29) | K3_CFG_ATYPE_MASK | \
			  K3_CFG_CHAN_TYPE_MASK | K3_TCFG_NOTDPKT | K3_CFG_FETCH_MASK)
#define RCFG_MEMCPY_MASK (K3_CFG_PAUSE_ON_ERR | K3_CFG_ATYPE_MASK | K3_CFG_CHAN_TYPE_MASK | K3_BIT(15) | \
			  K3_BIT(14) | K3_CFG_FETCH_MASK)

static int reg_chan_cfg(struct udma_engine *e, uint32_t ch, uint32_t burst, uint32_t cq, char *why,
			size_t wl)
{
	uint32_t bmask = burst ? K3_CFG_BURST_MASK : 0, bval = K3_CFG_BURST(burst);
	int r;

	if (e->bcdma) {
		if ((r = need(&e->bchancfg, "\"bchan\"", why, wl)) < 0)
			return r;
		/* TI CSL csl_bcdma.c CSL_bcdmaChanOp(): PAUSE_ON_ERR (0) and BURST_SIZE; the type is fixed */
		if (!rmw_cfg(&e->bchancfg, CFG(ch) + K3_TCFG, K3_CFG_PAUSE_ON_ERR | bmask, bval))
			goto firewalled;
		return 0;
	}
	if ((r = need(&e->tchancfg, "\"tchan\"", why, wl)) < 0 || (r = need(&e->rchancfg, "\"rchan\"", why, wl)) < 0)
		return r;
	/* the values TI-SCI TX_CH_CFG / RX_CH_CFG carry for memcpy (hw/k3_udma.h §5.2 steps 5-6) */
	uint32_t cfg = K3_CFG_CHAN_TYPE(K3_CHAN_TYPE_3P_BCOPY_PBRR) | K3_CFG_FETCH_SIZE(4) | K3_CFG_ATYPE(e->atype) | bval;
	if (!rmw_cfg(&e->tchancfg, CFG(ch) + K3_TCFG, TCFG_MEMCPY_MASK | bmask, cfg) ||
	    !rmw_cfg(&e->rchancfg, CFG(ch) + K3_RCFG, RCFG_MEMCPY_MASK | bmask, cfg))
		goto firewalled;
	ofl_mmio_write32(&e->tchancfg, CFG(ch) + K3_TCQ, cq);
	ofl_mmio_write32(&e->rchancfg, CFG(ch) + K3_RCQ, cq);
	/* RX_CH_CFG's FLOWID_START = FLOWID_CNT = 0 (TISCI_UDMA_RCHAN_VALID_PARAMS): no flows, whatever a bootloader left */
	if (!rmw_cfg(&e->rchancfg, CFG(ch) + K3_RFLOW_RNG, K3_RFLOW_RNG_FIELDS, 0))
		goto firewalled;
	/*
	 * PSI-L pairing (§5.2 step 8, §3.7): the pair named in TCHAN/RCHAN THREAD
	 * (TI sciclient_rm_csl.c Sciclient_rmPsilPair() writes them), then the
	 * route through the PSI-L proxy, which is what pairs the threads.
	 */
	uint32_t src = e->psil_base + ch, dst = src | K3_PSIL_DST_THREAD;
	ofl_mmio_write32(&e->tchancfg, CFG(ch) + K3_THREAD, dst);
	ofl_mmio_write32(&e->rchancfg, CFG(ch) + K3_THREAD, src);
	if (e->psilcfg.kind == OFL_MMIO_NONE) {
		snprintf(why, wl, "no PSI-L configuration proxy to pair channel %u through", ch);
		return -ENOTSUP;
	}
	return udma_psil_route(e, src, dst, true, why, wl);
firewalled:
	snprintf(why, wl, "channel %u configuration did not stick: the registers are owned by system "
		 "firmware (TI-SCI resource manager; docs/policy.md §6)", ch);
	return -EACCES;
}

static int reg_ring_cfg(struct udma_engine *e, uint32_t ring, uint64_t base, uint32_t count,
			uint32_t mode, char *why, size_t wl)
{
	int r;
	uint32_t size, hi;
	const struct ofl_mmio *m = e->bcdma ? &e->ringcfg : &e->ra_cfg;
	uint64_t o = (uint64_t)ring * (e->bcdma ? K3_DRING_CFG_STRIDE : K3_RA_CFG_STRIDE);

	if ((r = need(m, e->bcdma ? "ring" : "cfg (ring accelerator)", why, wl)) < 0)
		return r;
	if (e->bcdma) {
		if ((base & K3_ADDR_MASK) > K3_DRING_ADDR_LIMIT) { /* the probe's bus_limit keeps this from happening */
			snprintf(why, wl, "ring %u at bus 0x%" PRIx64 " is above the 36 bits its base register holds",
				 ring, base);
			return -ERANGE;
		}
		hi = K3_DRING_BA_HI_ADDR((uint32_t)(base >> 32)) |
		     K3_DRING_BA_HI_ASEL((uint32_t)(base >> K3_ASEL_SHIFT) & 0xFu);
		OFL_UNUSED(mode);
		ofl_mmio_write32(m, o + K3_RA_CFG_BA_LO, (uint32_t)base);
		ofl_mmio_write32(m, o + K3_RA_CFG_BA_HI, hi);
		/* ELCNT only, QMODE as it is (§3.5: CSL_lcdma_ringaccInitRing()) */
		if (!rmw_cfg(m, o + K3_DRING_CFG_SIZE, K3_DRING_SIZE_ELCNT_MASK, K3_DRING_SIZE_ELCNT(count)))
			goto firewalled;
		return 0;
	} else {
		hi = (uint32_t)(base >> 32) & 0xFFFFu;
		size = K3_RA_SIZE_QMODE(mode) | K3_RA_SIZE_ELSIZE(K3_RING_ELSIZE_8) | K3_RA_SIZE_ELCNT(count);
	}
	ofl_mmio_write32(m, o + K3_RA_CFG_BA_LO, (uint32_t)base);
	ofl_mmio_write32(m, o + K3_RA_CFG_BA_HI, hi);
	ofl_mmio_write32(m, o + K3_RA_CFG_SIZE, size);
	if (ofl_mmio_read32(m, o + K3_RA_CFG_SIZE) != size)
		goto firewalled;
	return 0;
firewalled:
	snprintf(why, wl, "ring %u configuration did not stick: system firmware owns it", ring);
	return -EACCES;
}

static int reg_ring_reset(struct udma_engine *e, uint32_t ring, uint32_t count)
{
	const struct ofl_mmio *m = e->bcdma ? &e->ringcfg : &e->ra_cfg;
	uint64_t o = (uint64_t)ring * (e->bcdma ? K3_DRING_CFG_STRIDE : K3_RA_CFG_STRIDE) + K3_RA_CFG_SIZE;

	OFL_UNUSED(count);
	if (m->kind == OFL_MMIO_NONE)
		return -ENOTSUP;
	ofl_mmio_write32(m, o, ofl_mmio_read32(m, o)); /* reprogramming the size resets the ring */
	return 0;
}

/* SIZE.QMODE (31:30) alone, read-modify-write (as TI-SCI RING_CFG with only MODE valid). */
static int reg_ring_mode(struct udma_engine *e, uint32_t ring, uint32_t mode)
{
	uint64_t o = (uint64_t)ring * K3_RA_CFG_STRIDE + K3_RA_CFG_SIZE;

	if (e->bcdma || e->ra_cfg.kind == OFL_MMIO_NONE)
		return -ENOTSUP;
	uint32_t v = ofl_mmio_read32(&e->ra_cfg, o);
	ofl_mmio_write32(&e->ra_cfg, o, (v & ~K3_RA_SIZE_QMODE(3u)) | K3_RA_SIZE_QMODE(mode));
	return 0;
}

static void reg_chan_free(struct udma_engine *e, uint32_t ch, uint32_t tx_ring, uint32_t cq_ring)
{
	char w[OFL_REASON_LEN];
	uint32_t src = e->psil_base + ch;

	if (!e->bcdma && e->psilcfg.kind != OFL_MMIO_NONE)
		udma_psil_route(e, src, src | K3_PSIL_DST_THREAD, false, w, sizeof(w));
	reg_ring_cfg(e, tx_ring, 0, 0, K3_RING_MODE_MESSAGE, w, sizeof(w));
	if (!e->bcdma)
		reg_ring_cfg(e, cq_ring, 0, 0, K3_RING_MODE_MESSAGE, w, sizeof(w));
}

const struct udma_fw_ops udma_fw_registers = {
	.name = "register writes (no DM firmware, as U-Boot does)",
	.chan_cfg = reg_chan_cfg,
	.ring_cfg = reg_ring_cfg,
	.ring_reset = reg_ring_reset,
	.ring_mode = reg_ring_mode,
	.chan_free = reg_chan_free,
};

/* ------------------------------------------------------------- channel registers */

static const struct ofl_mmio *tx_rt(const struct udma_engine *e)
{
	return e->bcdma ? &e->bchanrt : &e->tchanrt;
}

static void zero_counter(const struct ofl_mmio *m, uint64_t off)
{
	uint32_t v = ofl_mmio_read32(m, off);

	if (v)
		ofl_mmio_write32(m, off, v); /* write-to-subtract */
}

void udma_chan_reset_hw(struct udma_chan *ch)
{
	struct udma_engine *e = ch->e;
	const struct ofl_mmio *tx = tx_rt(e);
	uint64_t o = RT(ch->id);

	if (!e->bcdma)
		ofl_mmio_write32(&e->rchanrt, o + K3_RT_CTL, 0);
	ofl_mmio_write32(tx, o + K3_RT_CTL, 0);
	/* udma_reset_counters(): BCNT, SBCNT, PCNT, and PEER_BCNT on UDMA tchan and rchan */
	static const uint32_t counters[] = { K3_RT_BCNT, K3_RT_SBCNT, K3_RT_PCNT };
	for (size_t i = 0; i < OFL_ARRAY_SIZE(counters); i++) {
		zero_counter(tx, o + counters[i]);
		if (!e->bcdma)
			zero_counter(&e->rchanrt, o + counters[i]);
	}
	if (!e->bcdma) {
		zero_counter(tx, o + K3_RT_PEER_BCNT);
		zero_counter(&e->rchanrt, o + K3_RT_PEER_BCNT);
	}
	ch->done_bytes = 0;
}

void udma_chan_enable(struct udma_chan *ch)
{
	struct udma_engine *e = ch->e;

	if (!e->bcdma)
		ofl_mmio_write32(&e->rchanrt, RT(ch->id) + K3_RT_CTL, K3_RT_CTL_EN);
	ofl_mmio_write32(tx_rt(e), RT(ch->id) + K3_RT_CTL, K3_RT_CTL_EN);
	ch->running = true;
}

static void pause_us(unsigned us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* The doorbell takes at most this many elements per write (Linux k3-ringacc.c K3_RINGACC_MAX_DB_RING_CNT). */
#define UDMA_RA_DB_MAX 127u
/* The UDMA's own ring occupancy is 21 bits wide: 2^22 - occ doorbell counts bring it back to 0. */
#define UDMA_RA_DB_WRAP (1u << 22)

/*
 * Reset the TX ring after a teardown. On AM65x SR1.0 the UDMA keeps its own
 * count of the ring's entries, which a ring reset does not clear: with
 * descriptors left on the ring it would fetch stale ones later. There the
 * reset is Linux's k3_ringacc_ring_reset_dma(): reset, switch the ring to
 * RING mode, ring the doorbell 2^22 - occ times (at most 127 per write) so
 * that the 21-bit count wraps to 0, restore the mode; then the plain reset.
 */
static void tx_ring_reset(struct udma_chan *ch)
{
	struct udma_engine *e = ch->e;
	uint32_t occ = 0;

	if (e->ring_reset_quirk && !e->bcdma)
		occ = ofl_mmio_read32(&e->ra_rt, (uint64_t)ch->tx_ring * K3_RA_RT_STRIDE + K3_RA_RT_OCC) &
		      K3_RA_OCC_MASK;
	if (occ) {
		e->fw->ring_reset(e, ch->tx_ring, ch->nslots);
		e->fw->ring_mode(e, ch->tx_ring, K3_RING_MODE_RING);
		for (uint32_t left = UDMA_RA_DB_WRAP - occ; left;) {
			uint32_t n = left > UDMA_RA_DB_MAX ? UDMA_RA_DB_MAX : left;
			ofl_mmio_write32(&e->ra_rt, (uint64_t)ch->tx_ring * K3_RA_RT_STRIDE + K3_RA_RT_DB, n);
			left -= n;
		}
		e->fw->ring_mode(e, ch->tx_ring, K3_RING_MODE_MESSAGE);
	}
	e->fw->ring_reset(e, ch->tx_ring, ch->nslots);
}

bool udma_chan_teardown(struct udma_chan *ch)
{
	struct udma_engine *e = ch->e;
	const struct ofl_mmio *tx = tx_rt(e);
	uint64_t o = RT(ch->id), deadline = ofl_now_ns() + e->teardown_ns;
	bool marker = false, ok = true, was_running = ch->running;
	uint64_t elem;
	uint32_t popped = 0;

	if (was_running) {
		ofl_mmio_write32(tx, o + K3_RT_CTL, K3_RT_CTL_EN | K3_RT_CTL_TDOWN);
		/* wait for EN to drop and the teardown completion (§5.5 steps 1-3) */
		for (;;) {
			/* drain what comes back; DMA-ring pops count only once released */
			for (popped = 0; popped <= ch->nslots && udma_ring_pop(ch, &elem) > 0; popped++)
				if (!e->bcdma && (elem & K3_TDCM_MARKER))
					marker = true;
			udma_ring_release(ch);
			if (e->bcdma && !marker)
				marker = udma_ring_tdown_done(ch);
			if (marker && !(ofl_mmio_read32(tx, o + K3_RT_CTL) & K3_RT_CTL_EN))
				break;
			if (ofl_now_ns() > deadline) {
				ok = false;
				break;
			}
			pause_us(20);
		}
	}
	/* reset (§5.5 step 4): CTL = 0 RX then TX, counters, both rings */
	udma_chan_reset_hw(ch);
	tx_ring_reset(ch);
	if (!e->bcdma)
		e->fw->ring_reset(e, ch->cq_ring, ch->nslots + 1);
	ch->fwd_idx = ch->rev_idx = ch->occ = ch->unreleased = 0;
	ch->head = ch->tail;
	ch->bounce_head = ch->bounce_tail;
	ch->stall_since = 0;
	ch->running = false;
	/* a marker that did not come in time may still come once, after the reset */
	ch->tdcm_due = was_running && !marker && !e->bcdma;
	return ok;
}

/* ------------------------------------------------------------- open / close */

static int alloc_mem(struct udma_chan *ch, bool bounce, char *why, size_t wl)
{
	struct udma_engine *e = ch->e;
	/* descriptors and rings: coherent memory, uncached on a non-coherent device (Linux dma_pool) */
	enum offload_cache_mode ring_mode =
		e->cache == OFFLOAD_CACHE_STREAMING ? OFFLOAD_CACHE_UNCACHED : e->cache;
	size_t ring_bytes = (e->bcdma ? ch->nslots : 2u * ch->nslots + 1u) * 8u;
	int r = ofl_dma_alloc(e->pool, (size_t)ch->nslots * UDMA_SLOT_SIZE, UDMA_SLOT_SIZE, ring_mode,
			      false, &ch->desc, why, wl);

	if (r == -ENOTSUP) /* no uncached memory here: maintained descriptors work too */
		r = ofl_dma_alloc(e->pool, (size_t)ch->nslots * UDMA_SLOT_SIZE, UDMA_SLOT_SIZE, e->cache,
				  false, &ch->desc, why, wl);
	if (r < 0)
		return r;
	r = ofl_dma_alloc(e->pool, ring_bytes, 64, ring_mode, false, &ch->rings, why, wl);
	if (r == -ENOTSUP && !e->bcdma) /* MESSAGE-mode ring memory is touched by hardware only */
		r = ofl_dma_alloc(e->pool, ring_bytes, 64, e->cache, false, &ch->rings, why, wl);
	if (r < 0) {
		if (r == -ENOTSUP)
			snprintf(why, wl, "a non-coherent BCDMA needs uncached ring memory (forward and "
				 "reverse rings share cache lines); %s has none",
				 ofl_dma_pool_describe(e->pool));
		return r;
	}
	if (bounce)
		r = ofl_dma_alloc(e->pool, 2u * UDMA_BOUNCE_PAIRS * UDMA_BOUNCE_SIZE, 4096, e->cache, false,
				  &ch->bounce, why, wl);
	return r;
}

static void free_mem(struct udma_chan *ch)
{
	ofl_dma_free(ch->bounce);
	ofl_dma_free(ch->rings);
	ofl_dma_free(ch->desc);
	ch->bounce = ch->rings = ch->desc = NULL;
}

/* Take the highest-capacity free channel (and a completion ring on UDMA). e->lock held. */
static int take_channel(struct udma_engine *e, uint32_t *id, uint32_t *cq)
{
	uint32_t i, g = 0;

	for (i = 0; i < e->nchan && e->chan_busy[i]; i++)
		;
	if (i == e->nchan)
		return -EBUSY;
	if (!e->bcdma) {
		uint32_t ngp = e->ra_rings - e->gp_first;
		for (g = 0; g < ngp && e->ring_busy[g]; g++)
			;
		if (g == ngp)
			return -EBUSY;
		e->ring_busy[g] = 1;
		*cq = e->gp_first + g;
	} else {
		*cq = i; /* the reverse side of the bchan's ring */
	}
	e->chan_busy[i] = 1;
	*id = i;
	return 0;
}

static void give_channel(struct udma_engine *e, uint32_t id, uint32_t cq)
{
	pthread_mutex_lock(&e->lock);
	e->chan_busy[id] = 0;
	if (!e->bcdma)
		e->ring_busy[cq - e->gp_first] = 0;
	pthread_mutex_unlock(&e->lock);
}

static int stop_if_running(struct udma_chan *ch, char *why, size_t wl)
{
	struct udma_engine *e = ch->e;
	const struct ofl_mmio *rts[2] = { tx_rt(e), e->bcdma ? NULL : &e->rchanrt };

	/* §5.2 step 7: a channel found enabled is stopped, or refused */
	for (int k = 0; k < 2; k++) {
		if (!rts[k] || !(ofl_mmio_read32(rts[k], RT(ch->id) + K3_RT_CTL) & K3_RT_CTL_EN))
			continue;
		ofl_mmio_write32(rts[k], RT(ch->id) + K3_RT_CTL, 0);
		if (ofl_mmio_read32(rts[k], RT(ch->id) + K3_RT_CTL) & K3_RT_CTL_EN) {
			snprintf(why, wl, "channel %u is running and does not stop (someone else uses it)", ch->id);
			return -EBUSY;
		}
	}
	return 0;
}

int udma_chan_open(struct udma_engine *e, uint32_t nslots, bool bounce, struct udma_chan **out,
		   char *why, size_t wl)
{
	uint32_t id, cq;
	int r;

	pthread_mutex_lock(&e->lock);
	r = take_channel(e, &id, &cq);
	pthread_mutex_unlock(&e->lock);
	if (r < 0) {
		snprintf(why, wl, "no free memcpy channel%s: every one is held by an open queue or a "
			 "synchronous copy", e->bcdma ? "" : " or completion ring");
		return r;
	}
	struct udma_chan *ch = calloc(1, sizeof(*ch));
	if (ch)
		ch->slots = calloc(nslots, sizeof(*ch->slots));
	if (!ch || !ch->slots) {
		free(ch);
		give_channel(e, id, cq);
		return -ENOMEM;
	}
	ch->e = e;
	ch->id = id;
	ch->tx_ring = id; /* UDMA: tchan n -> RA ring n; BCDMA: bchan n -> DMA ring n */
	ch->cq_ring = cq;
	ch->nslots = nslots;
	ch->tpl = udma_chan_tpl(e, id);
	ch->burst = e->burst_by_tpl[ch->tpl];
	snprintf(ch->driver, sizeof(ch->driver), "%s-%s%u", e->bcdma ? "bcdma" : "udma",
		 e->bcdma ? "bchan" : "tchan", id);
	r = alloc_mem(ch, bounce, why, wl);
	if (r == 0)
		r = stop_if_running(ch, why, wl);
	if (r == 0) {
		uint32_t mode = e->bcdma ? K3_RING_MODE_RING : K3_RING_MODE_MESSAGE;
		uint64_t tx_base = ch->rings->bus | ((uint64_t)e->asel << K3_ASEL_SHIFT);
		r = e->fw->ring_cfg(e, ch->tx_ring, tx_base, nslots, mode, why, wl);
		if (r == 0 && !e->bcdma)
			r = e->fw->ring_cfg(e, ch->cq_ring, ch->rings->bus + 8u * nslots, nslots + 1,
					    mode, why, wl);
		if (r == 0)
			r = e->fw->chan_cfg(e, id, udma_burst_code(ch->burst), cq, why, wl);
	}
	if (r < 0) {
		free_mem(ch);
		free(ch->slots);
		free(ch);
		give_channel(e, id, cq);
		return r;
	}
	udma_chan_reset_hw(ch);
	*out = ch;
	return 0;
}

void udma_chan_close(struct udma_chan *ch)
{
	if (!ch)
		return;
	struct udma_engine *e = ch->e;
	if (ch->running)
		udma_chan_teardown(ch);
	udma_chan_reset_hw(ch);
	e->fw->chan_free(e, ch->id, ch->tx_ring, ch->cq_ring); /* before the ring memory goes (D8) */
	free_mem(ch);
	give_channel(e, ch->id, ch->cq_ring);
	free(ch->slots);
	free(ch);
}
