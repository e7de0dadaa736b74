/* SPDX-License-Identifier: MIT */
/*
 * The udma backend: binding a K3 UDMA or BCDMA device-tree node
 * (hw/k3_udma.h §1, §5.1). The register regions are mapped by name (UIO, VFIO-platform,
 * /dev/mem on a DT-declared region, or the sim world's models), GCFG gives
 * the channel counts, the policy gives the burst per channel class, the
 * cache mode and the alignment, the DT gives ATYPE/ASEL and the ring
 * accelerator.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "udma.h"
#ifdef OFFLOAD_HAVE_SIM
#include "sim/k3_models.h"
#include "sim/sim.h"
#endif

static int dt_u32(const void *fdt, int node, const char *prop, uint32_t *v)
{
	int len = 0;
	const fdt32_t *p = fdt_getprop(fdt, node, prop, &len);

	if (!p || len < 4)
		return -ENOENT;
	*v = fdt32_to_cpu(*p);
	return 0;
}

/* The node's memory-region (a /reserved-memory child), if any. */
static void memory_region(const void *fdt, int node, struct ofl_dma_pool_opts *o)
{
	uint32_t ph;

	if (dt_u32(fdt, node, "memory-region", &ph) < 0)
		return;
	int rm = fdt_node_offset_by_phandle(fdt, ph);
	if (rm < 0 || ofl_dt_reg(fdt, rm, 0, &o->rmem_addr, &o->rmem_size, NULL, 0) < 0) {
		o->rmem_addr = o->rmem_size = 0;
		return;
	}
	ofl_dt_path(fdt, rm, o->rmem_name, sizeof(o->rmem_name));
}

static void engine_free(struct udma_engine *e)
{
	struct ofl_mmio *maps[] = { &e->gcfg, &e->tchanrt, &e->rchanrt, &e->bchanrt, &e->ringrt,
				    &e->ringcfg, &e->tchancfg, &e->rchancfg, &e->bchancfg, &e->ra_rt,
				    &e->ra_fifos, &e->ra_cfg };

	udma_engine_fini(e);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(maps); i++)
		ofl_mmio_unmap(maps[i]);
	if (e->pool)
		ofl_dma_pool_destroy(e->pool);
	free(e);
}

/* Map region `name` of `node`; optional regions may be absent. */
static int map(struct ofl_device *d, int node, const char *name, bool required, struct ofl_mmio *m,
	       char *why, size_t wl)
{
	char w[OFL_REASON_LEN];
	int r = ofl_mmio_map_reg(d, node, name, -1, m, w, sizeof(w));

	if (r == 0 || (r == -ENOENT && !required)) {
		if (r)
			m->kind = OFL_MMIO_NONE;
		return 0;
	}
	snprintf(why, wl, "\"%s\": %s", name, w);
	return r;
}

static int map_regions(struct udma_engine *e, char *why, size_t wl)
{
	struct ofl_device *d = e->dev;
	const void *fdt = ofl_drv(d->ctx)->dt.fdt;
	int r;

	if ((r = map(d, d->node, "gcfg", true, &e->gcfg, why, wl)) < 0)
		return r;
	if (e->bcdma)
		return (r = map(d, d->node, "bchanrt", true, &e->bchanrt, why, wl)) < 0 ? r
		       : (r = map(d, d->node, "ringrt", true, &e->ringrt, why, wl)) < 0 ? r
		       : (r = map(d, d->node, "ring", false, &e->ringcfg, why, wl)) < 0 ? r
		       : map(d, d->node, "bchan", false, &e->bchancfg, why, wl);
	if ((r = map(d, d->node, "tchanrt", true, &e->tchanrt, why, wl)) < 0 ||
	    (r = map(d, d->node, "rchanrt", true, &e->rchanrt, why, wl)) < 0 ||
	    (r = map(d, d->node, "tchan", false, &e->tchancfg, why, wl)) < 0 ||
	    (r = map(d, d->node, "rchan", false, &e->rchancfg, why, wl)) < 0)
		return r;
	uint32_t ph;
	int ra = dt_u32(fdt, d->node, "ti,ringacc", &ph) == 0 ? fdt_node_offset_by_phandle(fdt, ph) : -1;
	if (ra < 0) {
		snprintf(why, wl, "no ring accelerator: ti,ringacc is missing or dangling");
		return -ENODEV;
	}
	if (dt_u32(fdt, ra, "ti,num-rings", &e->ra_rings) < 0 || e->ra_rings == 0) {
		snprintf(why, wl, "the ring accelerator has no ti,num-rings");
		return -ENODEV;
	}
	if ((r = map(d, ra, "rt", true, &e->ra_rt, why, wl)) < 0 ||
	    (r = map(d, ra, "fifos", true, &e->ra_fifos, why, wl)) < 0 ||
	    (r = map(d, ra, "cfg", false, &e->ra_cfg, why, wl)) < 0)
		return r;
	return 0;
}

static const char *cfg_owner(const struct ofl_device *d, bool *direct)
{
	const char *env = getenv("OFFLOAD_UDMA_CFG");

	*direct = ofl_drv(d->ctx)->sim || (env && strcmp(env, "direct") == 0);
	return ofl_drv(d->ctx)->sim ? "register writes (the model has no DM firmware, as for U-Boot)"
	       : *direct ? "register writes (OFFLOAD_UDMA_CFG=direct: no DM firmware assumed, as U-Boot)"
			 : NULL;
}

/*
 * A ti,sci property must name an enabled TI-SCI system controller: Linux
 * k3-udma probes through ti_sci_get_by_phandle(), which fails (and the probe
 * with it) for a dangling phandle or a node the ti_sci driver does not bind
 * (compatibles "ti,k2g-sci" and "ti,am654-sci", drivers/firmware/ti_sci.c).
 */
static int check_tisci(const void *fdt, int node, char *why, size_t wl)
{
	int len = 0;
	const fdt32_t *ph = fdt_getprop(fdt, node, "ti,sci", &len);

	if (!ph)
		return 0;
	int sci = len == 4 ? fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(ph[0])) : -FDT_ERR_BADVALUE;
	const char *st = NULL;
	if (sci < 0) {
		snprintf(why, wl, "ti,sci %s (Linux ti_sci_get_by_phandle() fails, and k3-udma's probe with it)",
			 len == 4 ? "names no node" : "is not one phandle");
		return -ENODEV;
	}
	if (fdt_node_check_compatible(fdt, sci, "ti,k2g-sci") != 0 &&
	    fdt_node_check_compatible(fdt, sci, "ti,am654-sci") != 0) {
		snprintf(why, wl, "ti,sci names %s, which is not a TI-SCI system controller (ti,k2g-sci or "
			 "ti,am654-sci; Linux ti_sci_get_by_phandle() fails)", fdt_get_name(fdt, sci, NULL));
		return -ENODEV;
	}
	if (!ofl_dt_enabled(fdt, sci, &st)) {
		snprintf(why, wl, "ti,sci names %s, whose status is \"%s\" (Linux ti_sci_get_by_phandle() finds no "
			 "probed controller)", fdt_get_name(fdt, sci, NULL), st ? st : "?");
		return -ENODEV;
	}
	return 0;
}

static int udma_probe(struct offload_ctx *ctx, void *state, struct ofl_device *d, char *why, size_t wl)
{
	const struct udma_row *row = d->match ? udma_row_of(d->match) : NULL;
	const struct ofl_policy *p = &d->policy;
	bool direct;

	OFL_UNUSED(state);
	if (!row || row->pktdma) {
		snprintf(why, wl, "not a UDMA or BCDMA engine");
		return -ENOTSUP;
	}
	if (!row->memcpy) {
		snprintf(why, wl, "Linux does not enable memcpy on %s (%s); neither does the library",
			 d->match->compatible, row->hdr.source);
		return -ENOTSUP;
	}
	const char *owner = cfg_owner(d, &direct);
	if (!direct) {
		snprintf(why, wl, "on K3 under Linux the TI-SCI resource manager (DM firmware) owns channel "
			 "and ring configuration, including the burst, and user space has no TI-SCI path "
			 "(Linux k3-udma.c: TI-SCI tx_ch_cfg; docs/policy.md §6); use the kernel's path "
			 "(offloadctl dmatest), or set OFFLOAD_UDMA_CFG=direct on a system without DM "
			 "firmware");
		return -ENOTSUP;
	}
	int rs = check_tisci(ofl_drv(ctx)->dt.fdt, d->node, why, wl);
	if (rs < 0)
		return rs;
	/* Linux udma_probe() refuses these out-of-range values (-EINVAL) */
	uint32_t v;
	if (dt_u32(ofl_drv(ctx)->dt.fdt, d->node, "ti,udma-atype", &v) == 0 && v > 2) {
		snprintf(why, wl, "ti,udma-atype = %u is out of range (0..2; Linux k3-udma.c udma_probe() "
			 "refuses the device)", v);
		return -EINVAL;
	}
	if (dt_u32(ofl_drv(ctx)->dt.fdt, d->node, "ti,asel", &v) == 0 && v > 15) {
		snprintf(why, wl, "ti,asel = %u is out of range (a 4-bit field, 0..15; Linux k3-udma.c "
			 "udma_probe() refuses the device)", v);
		return -EINVAL;
	}
	struct udma_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->dev = d;
	e->bcdma = row->bcdma;
	e->psil_base = row->psil_base;
	e->tpl_quirk = row->am654_tpl_quirk;
	snprintf(e->name, sizeof(e->name), "%s", d->name);
	if (dt_u32(ofl_drv(ctx)->dt.fdt, d->node, "ti,udma-atype", &v) == 0)
		e->atype = (uint8_t)v;
	if (dt_u32(ofl_drv(ctx)->dt.fdt, d->node, "ti,asel", &v) == 0)
		e->asel = (uint8_t)v;
	e->sim = ofl_drv(ctx)->sim;
#ifndef OFFLOAD_HAVE_SIM
	if (ofl_drv(ctx)->sim) {
		free(e);
		snprintf(why, wl, "this build has no models (OFFLOAD_WITH_SIM=OFF)");
		return -ENOTSUP;
	}
#endif
	e->cache = p->cache_mode;
	for (int i = 0; i < 3; i++)
		e->burst_by_tpl[i] = p->burst_by_tpl[i];
	size_t line = ofl_platform_cache_line(&ofl_drv(ctx)->plat);
	/* a power of two: the body's start is found by masking */
	for (e->align = 1; e->align < p->align_bytes && e->align < 4096; e->align <<= 1)
		;
	if (e->cache == OFFLOAD_CACHE_STREAMING && e->align < line)
		e->align = (uint32_t)line;

	/* one channel's descriptors, rings and bounce buffers, with the sim's gaps between allocations */
	struct ofl_dma_pool_opts po = { .cache = e->cache, .xlate = ofl_dma_xlate_dt, .xlate_arg = d,
					.min_reach = 2u * UDMA_BOUNCE_PAIRS * UDMA_BOUNCE_SIZE + (1u << 20),
					/* 48-bit addresses, ASEL above them: the DMA mask is 48 bits (hw/k3_udma.h §1.5) */
					.bus_limit = K3_ADDR_MASK };
	if (e->bcdma) {
		/* the pool also holds the DMA rings, whose base the ring registers carry in 36 bits */
		po.bus_limit = K3_DRING_ADDR_LIMIT;
		po.bus_limit_why = "the 36 address bits a BCDMA ring base register holds (Linux k3-ringacc.c "
				   "K3_DMARING_CFG_ADDR_HI_MASK)";
	}
	memory_region(ofl_drv(ctx)->dt.fdt, d->node, &po);
	int r = map_regions(e, why, wl);
	e->fw = &udma_fw_registers;
#ifdef OFFLOAD_HAVE_SIM
	struct ofl_sim_model *m = e->sim ? ofl_sim_model_by_node(ofl_drv(ctx)->plat.world, d->node) : NULL;
	if (r == 0 && m && ofl_sim_udma_firewalled((struct ofl_sim_udma *)m)) {
		e->fw = &udma_fw_sim_tisci;
		e->fw_arg = m;
		owner = "TI-SCI messages to simulated DM firmware (the tree names ti,sci; on a real K3 "
			"user space has no TI-SCI path)";
	}
#endif
	if (r == 0 && (r = ofl_dma_pool_create(d, &po, &e->pool)) < 0)
		snprintf(why, wl, "%s", ofl_err_msg(ctx));
	if (r == 0)
		r = udma_engine_init(e, why, wl);
	if (r < 0) {
		engine_free(e);
		return r;
	}
	d->priv = e;
	d->dma = e->pool;
	d->sim = e->sim;
	d->info.flags |= OFFLOAD_DEVF_DIRECT;
	/* among the channels memcpy uses (0..nchan-1): UH ones first, then H (k3-udma.c tpl start_idx) */
	uint32_t u = e->bcdma ? 0 : OFL_MIN(e->uchan_cnt, e->nchan);
	uint32_t h = e->bcdma ? 0 : OFL_MIN(e->hchan_cnt, e->nchan) - u;
	if (e->fw == &udma_fw_registers)
		ofl_dev_refine(d, OFL_DECIDE_BURST, NULL,
			       "here written by the library into each channel's TCFG/RCFG BURST_SIZE (%s)",
			       e->sim ? "sim: no DM firmware" : "OFFLOAD_UDMA_CFG=direct");
	else
		ofl_dev_refine(d, OFL_DECIDE_BURST, NULL, "here handed to %s (sim)", e->fw->name);
	snprintf(why, wl, "udma: %u memcpy channel%s (%u UH, %u H); registers: %s; DMA memory: %s; "
		 "configuration: %s", e->nchan, e->nchan == 1 ? "" : "s", u, h,
		 ofl_mmio_map_kind_name(e->gcfg.kind),
		 ofl_dma_pool_describe(e->pool), owner);
	return 0;
}

static void udma_remove(struct ofl_device *d)
{
	struct udma_engine *e = d->priv;

	if (!e)
		return;
	d->priv = NULL;
	d->dma = NULL;
	engine_free(e);
}

const struct ofl_backend ofl_backend_udma = {
	.name = "udma",
	.caps = OFFLOAD_CAP_MEMCPY,
	.flags = OFL_BE_DMA_MEMORY,
	.match = udma_match,
	.policy = udma_policy,
	.linux_driver = "ti-udma", /* k3-udma.c udma_driver */
	.probe = udma_probe,
	.remove = udma_remove,
	.memcpy = &udma_memcpy_ops,
};
