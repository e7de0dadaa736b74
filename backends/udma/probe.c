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

static int dt_u32(const void *fdt, int node, const char *prop, uint32_t *v)
{
	int len = 0;
	const fdt32_t *p = fdt_getprop(fdt, node, prop, &len);

	if (!p || len < 4)
		return -ENOENT;
	*v = fdt32_to_cpu(*p);
	return 0;
}

/* The ring accelerator a UDMA node names (ti,ringacc), or -1. */
static int ringacc_node(const void *fdt, int node)
{
	uint32_t ph;

	return dt_u32(fdt, node, "ti,ringacc", &ph) == 0 ? ofl_dt_node_by_phandle(fdt, ph) : -1;
}

/* The node's memory-region (a /reserved-memory child), if any. */
static void memory_region(const void *fdt, int node, struct ofl_dma_pool_opts *o)
{
	uint32_t ph;

	if (dt_u32(fdt, node, "memory-region", &ph) < 0)
		return;
	int rm = ofl_dt_node_by_phandle(fdt, ph);
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
				    &e->ra_fifos, &e->ra_cfg, &e->psilcfg };

	udma_engine_fini(e);
	ofl_fw_close(e->sci);
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

/*
 * Direct mode pairs the tchan/rchan PSI-L threads through the NAVSS's PSI-L
 * configuration proxy, whose address no device-tree binding gives: it comes
 * from the per-SoC table of hw/k3_udma.h §3.7 (TI's SoC headers). A SoC not
 * in it cannot be paired, so direct mode is refused there.
 */
static int map_psil_proxy(struct udma_engine *e, char *why, size_t wl)
{
	const void *fdt = ofl_drv(e->dev->ctx)->dt.fdt;
	char w[OFL_REASON_LEN];

	for (const struct k3_psil_proxy *x = k3_psil_proxies(); x->compatible; x++) {
		if (fdt_node_check_compatible(fdt, e->dev->node, x->compatible) != 0 ||
		    (x->root && fdt_node_check_compatible(fdt, 0, x->root) != 0))
			continue;
		int r = ofl_mmio_map(&ofl_drv(e->dev->ctx)->plat, e->dev->node, -1, x->base, K3_PSILCFG_SIZE,
				     &e->psilcfg, w, sizeof(w));
		if (r < 0)
			snprintf(why, wl, "the PSI-L configuration proxy at 0x%llx (to pair channels without DM "
				 "firmware): %s", (unsigned long long)x->base, w);
		return r;
	}
	const char *root = fdt_getprop(fdt, 0, "compatible", NULL);
	snprintf(why, wl, "without DM firmware the library pairs a tchan with its rchan through the NAVSS's PSI-L "
		 "configuration proxy (TI CSL CSL_psilcfgCreateRoute()), whose address the device tree does not "
		 "give and the library knows for the J721E and AM65x main NAVSS only (hw/k3_udma.h §3.7), not for "
		 "this one (board %s): direct mode is refused", root ? root : "?");
	return -ENOTSUP;
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
	if (e->fw == &udma_fw_registers && (r = map_psil_proxy(e, why, wl)) < 0)
		return r;
	int ra = ringacc_node(fdt, d->node);
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

/*
 * CTRLMMR_WKUP_JTAGID (Linux drivers/soc/ti/k3-socinfo.c k3_chipinfo_probe()):
 * VARIANT 31:28, PARTNO 27:12, MFG 11:1 (TI: 0x17). The AM65x is part
 * 0xBB5A; its variant 0 is SR1.0, 1 SR2.0 (k3-socinfo.c k3_soc_ids and the
 * AM65x revision table).
 */
#define JTAGID_VARIANT(v) ((v) >> 28)
#define JTAGID_PARTNO(v) (((v) >> 12) & 0xFFFFu)
#define JTAGID_MFG(v) (((v) >> 1) & 0x7FFu)
#define JTAGID_MFG_TI 0x17u
#define JTAGID_PARTNO_AM65X 0xBB5Au

/*
 * The AM65x UDMAP on SR1.0 silicon needs the TX-ring reset quirk (Linux
 * k3-ringacc.c k3_ringacc_socinfo: family AM65X, revision SR1.0). The
 * revision comes from the chip ID register ("ti,am654-chipid"), read once
 * (a shared read-only register, so it is not claimed for the device).
 * Without that node, or when it cannot be read or names another part, the
 * quirk is applied: on SR2.0 it costs doorbell writes that the closing
 * reset undoes, while skipping it on SR1.0 leaves stale ring state.
 */
static void soc_revision(struct udma_engine *e, const struct udma_row *row)
{
	const void *fdt = ofl_drv(e->dev->ctx)->dt.fdt;
	char w[OFL_REASON_LEN];
	struct ofl_mmio m;
	uint64_t phys, size;

	if (e->bcdma || !row->am654_tpl_quirk)
		return;
	e->ring_reset_quirk = true;
	int node = fdt_node_offset_by_compatible(fdt, -1, "ti,am654-chipid");
	if (node < 0 || ofl_dt_reg(fdt, node, 0, &phys, &size, w, sizeof(w)) < 0 || size < 4 ||
	    ofl_mmio_map(&ofl_drv(e->dev->ctx)->plat, node, 0, phys, size, &m, w, sizeof(w)) < 0)
		return;
	uint32_t id = ofl_mmio_read32(&m, 0);
	ofl_mmio_unmap(&m);
	if (JTAGID_MFG(id) == JTAGID_MFG_TI && JTAGID_PARTNO(id) == JTAGID_PARTNO_AM65X)
		e->ring_reset_quirk = JTAGID_VARIANT(id) == 0;
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
	int sci = len == 4 ? ofl_dt_node_by_phandle(fdt, fdt32_to_cpu(ph[0])) : -FDT_ERR_BADVALUE;
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

/*
 * The system controller whose DM firmware owns this engine's configuration:
 * the node's ti,sci, else (UDMA) its ring accelerator's (a tree may name it
 * on the ring accelerator only: fuzz_sim found one). -1 when none does.
 */
static int sci_node(const void *fdt, int node, bool bcdma)
{
	int sci = ofl_dt_phandle(fdt, node, "ti,sci");
	int ra = bcdma ? -1 : ringacc_node(fdt, node);

	if (sci < 0 && ra >= 0)
		sci = ofl_dt_phandle(fdt, ra, "ti,sci");
	return sci < 0 ? -1 : sci;
}

/* Linux udma_probe() reads these and fails without them (dev_err "ti,sci-dev-id read failure"). */
static int sci_dev_ids(struct udma_engine *e, char *why, size_t wl)
{
	const void *fdt = ofl_dev_fdt(e->dev);
	int node = e->dev->node, ra = e->bcdma ? -1 : ringacc_node(fdt, node);
	int navss = fdt_parent_offset(fdt, node);
	uint32_t id, ra_id = 0, navss_id = 0;

	if (dt_u32(fdt, node, "ti,sci-dev-id", &id) < 0 ||
	    (!e->bcdma && (dt_u32(fdt, ra, "ti,sci-dev-id", &ra_id) < 0 ||
			   navss < 0 || dt_u32(fdt, navss, "ti,sci-dev-id", &navss_id) < 0))) {
		snprintf(why, wl, "TI-SCI device IDs missing: ti,sci-dev-id on the DMA node%s (Linux k3-udma.c "
			 "udma_probe() fails: \"ti,sci-dev-id read failure\")",
			 e->bcdma ? "" : ", its ring accelerator and its NAVSS");
		return -ENODEV;
	}
	/*
	 * The RM messages name the DMA and the ring accelerator in a 16-bit
	 * nav_id (ti_sci.h struct ti_sci_msg_rm_ring_cfg_req,
	 * ti_sci_msg_rm_udmap_tx_ch_cfg_req); Linux truncates a wider value
	 * into it (k3-udma.c, k3-ringacc.c), which names another device.
	 */
	const struct { uint32_t v; const char *what; } ids[] = { { id, "" }, { ra_id, " of the ring accelerator" } };
	for (size_t i = 0; i < OFL_ARRAY_SIZE(ids); i++) {
		if (ids[i].v > 0xFFFFu) {
			snprintf(why, wl, "ti,sci-dev-id 0x%x%s does not fit the 16-bit nav_id of the TI-SCI "
				 "resource-manager messages (drivers/firmware/ti_sci.h)", ids[i].v, ids[i].what);
			return -ENODEV;
		}
	}
	e->sci_dev_id = (uint16_t)id;
	e->ra_dev_id = (uint16_t)ra_id;
	e->navss_dev_id = navss_id;
	return 0;
}

/*
 * Who configures channels and rings (struct udma_fw_ops): with models, the
 * simulated DM firmware when the tree names a system controller, else the
 * library's register writes (as U-Boot does without DM firmware); on
 * hardware, a firmware channel the platform has (a real K3 under Linux has
 * none in user space), else register writes only when OFFLOAD_UDMA_CFG=direct
 * says no DM firmware runs. *owner says which, for the device's reason.
 */
static int config_path(struct udma_engine *e, const char **owner, char *why, size_t wl)
{
	struct ofl_drv_ctx *cx = ofl_drv(e->dev->ctx);
	const char *env = getenv("OFFLOAD_UDMA_CFG");
	bool direct = env && strcmp(env, "direct") == 0;
	int sci = sci_node(cx->dt.fdt, e->dev->node, e->bcdma);
	char w[OFL_REASON_LEN];

	e->fw = &udma_fw_registers;
	if (cx->sim && sci < 0) {
		*owner = "register writes (the model has no DM firmware, as for U-Boot)";
		return 0;
	}
	if (sci >= 0 && (cx->sim || !direct) && ofl_fw_open(&cx->plat, sci, &e->sci, w, sizeof(w)) == 0) {
		e->fw = &udma_fw_tisci;
		*owner = cx->sim ? "TI-SCI messages to simulated DM firmware (the tree names ti,sci; on a real "
				   "K3 user space has no TI-SCI path)"
				 : "TI-SCI messages to the DM firmware through the platform's channel";
		return 0;
	}
	if (direct && !cx->sim) {
		*owner = "register writes (OFFLOAD_UDMA_CFG=direct: no DM firmware assumed, as U-Boot)";
		return 0;
	}
	snprintf(why, wl, "on K3 under Linux the TI-SCI resource manager (DM firmware) owns channel "
		 "and ring configuration, including the burst, and user space has no TI-SCI path "
		 "(Linux k3-udma.c: TI-SCI tx_ch_cfg; docs/policy.md §6); use the kernel's path "
		 "(offloadctl dmatest), or set OFFLOAD_UDMA_CFG=direct on a system without DM "
		 "firmware");
	return -ENOTSUP;
}

/* ------------------------------------------------------------- resource ownership (hw/k3_udma.h §6.1) */

struct rm_owner {
	bool known;               /* the board configuration of this host is in the table */
	uint16_t host, udma_dev, ra_dev;
	uint32_t tsub[8], rsub[8], gsub[8];
	int nt, nr, ng;
};

static int root_is(const void *fdt, const char *root)
{
	return fdt_node_check_compatible(fdt, 0, root) == 0;
}

/* The values of a ti,sci-rm-range-* property (resource subtypes), at most `max`. */
static int rm_subtypes(const void *fdt, int node, const char *prop, uint32_t *out, int max)
{
	int len = 0, n = 0;
	const fdt32_t *p = node >= 0 ? fdt_getprop(fdt, node, prop, &len) : NULL;

	for (; p && n < max && (n + 1) * 4 <= len; n++)
		out[n] = fdt32_to_cpu(p[n]);
	return n;
}

/*
 * With DM firmware (the tree names ti,sci), this host may use only the
 * channels and GP rings of its board configuration (Linux k3-udma.c
 * udma_setup_resources(): ti,sci-rm-range-tchan / -rchan, k3-ringacc.c:
 * -gp-rings). The library knows TI's default configuration (hw/k3_udma.h
 * §6.1); register writes on a host it does not know would take what another
 * core owns, so direct mode is refused there. Through TI-SCI the firmware
 * refuses what is not ours, so an unknown configuration only means the
 * lowest channels are tried.
 */
static int ownership(struct udma_engine *e, struct rm_owner *o, char *why, size_t wl)
{
	const void *fdt = ofl_dev_fdt(e->dev);
	int node = e->dev->node, sci = sci_node(fdt, node, e->bcdma);
	int ra = e->bcdma ? -1 : ringacc_node(fdt, node);
	uint32_t host = 0, dev = 0, ra_dev = 0, any = 0;

	memset(o, 0, sizeof(*o));
	if (sci < 0)
		return 0;
	dt_u32(fdt, sci, "ti,host-id", &host);
	dt_u32(fdt, node, "ti,sci-dev-id", &dev);
	if (ra >= 0)
		dt_u32(fdt, ra, "ti,sci-dev-id", &ra_dev);
	o->host = (uint16_t)host;
	o->udma_dev = (uint16_t)dev;
	o->ra_dev = (uint16_t)ra_dev;
	o->nt = rm_subtypes(fdt, node, e->bcdma ? "ti,sci-rm-range-bchan" : "ti,sci-rm-range-tchan", o->tsub, 8);
	o->nr = rm_subtypes(fdt, node, "ti,sci-rm-range-rchan", o->rsub, 8);
	o->ng = rm_subtypes(fdt, ra, "ti,sci-rm-range-gp-rings", o->gsub, 8);
	o->known = !e->bcdma && k3_rm_owned(root_is, fdt, o->host, o->udma_dev, &any, 0, 0) >= 0;
	if (o->known || e->fw != &udma_fw_registers)
		return 0;
	snprintf(why, wl, "the tree names a TI-SCI system controller, so DM firmware gives this host (TI-SCI "
		 "host %u) only the channels and rings of its board configuration (Linux: ti,sci-rm-range-*); "
		 "the library has TI's default board configuration for the AM65x host 12 only (U-Boot "
		 "board/ti/am65x/rm-cfg.yaml), not for host %u here, and without it register writes could take "
		 "what another core owns: direct mode is refused", o->host, o->host);
	return -ENOTSUP;
}

/* Mark what this host does not own as taken for good (2: never given back). */
static void claim_owned(struct udma_engine *e, const struct rm_owner *o)
{
	const void *fdt = ofl_dev_fdt(e->dev);

	if (!o->known)
		return;
	for (uint32_t i = 0; i < e->nchan; i++)
		if (k3_rm_owned(root_is, fdt, o->host, o->udma_dev, o->tsub, o->nt, i) != 1 ||
		    k3_rm_owned(root_is, fdt, o->host, o->udma_dev, o->rsub, o->nr, i) != 1)
			e->chan_busy[i] = 2;
	for (uint32_t g = 0; g + e->gp_first < e->ra_rings; g++)
		if (k3_rm_owned(root_is, fdt, o->host, o->ra_dev, o->gsub, o->ng, e->gp_first + g) == 0)
			e->ring_busy[g] = 2;
}

/* The node's own bindings that Linux udma_probe() refuses (-EINVAL) when out of range. */
static int read_bindings(struct udma_engine *e, char *why, size_t wl)
{
	const void *fdt = ofl_dev_fdt(e->dev);
	int node = e->dev->node;
	uint32_t v;

	/* Linux k3-udma.c udma_probe() refuses the device for a value out of range */
	const struct {
		const char *prop, *range;
		uint32_t max;
		uint8_t *out;
	} binds[] = {
		{ "ti,udma-atype", "0..2", 2, &e->atype },
		{ "ti,asel", "a 4-bit field, 0..15", 15, &e->asel },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(binds); i++) {
		/* Linux reads ti,asel on BCDMA/PKTDMA only (k3-udma.c udma_probe(), UDMA has no ASEL) */
		if (binds[i].out == &e->asel && !e->bcdma)
			continue;
		if (dt_u32(fdt, node, binds[i].prop, &v) < 0)
			continue;
		if (v > binds[i].max) {
			snprintf(why, wl, "%s = %u is out of range (%s; Linux k3-udma.c udma_probe() refuses "
				 "the device)", binds[i].prop, v, binds[i].range);
			return -EINVAL;
		}
		*binds[i].out = (uint8_t)v;
	}
	return 0;
}

/*
 * The engine's cache mode, burst per class and body alignment, from the
 * policy and the platform. The burst is programmed only where Linux programs
 * it (k3-udma.c udma_tisci_m2m_channel_config(): only with
 * UDMA_FLAG_BURST_SIZE in the match data; am654 has none, and its UDMAP has
 * no BURST_SIZE field, TI RM rm_udmap.c CONFIG_UDMAP_CHANNEL_BURST_SIZE).
 */
static void take_policy(struct udma_engine *e, const struct udma_row *row)
{
	const struct ofl_policy *p = &e->dev->policy;
	size_t line = ofl_platform_cache_line(&ofl_drv(e->dev->ctx)->plat);

	e->cache = p->cache_mode;
	for (int i = 0; i < 3; i++)
		e->burst_by_tpl[i] = row->burst_programmable ? p->burst_by_tpl[i] : 0;
	/* a power of two: the body's start is found by masking */
	for (e->align = 1; e->align < p->align_bytes && e->align < 4096; e->align <<= 1)
		;
	if (e->cache == OFFLOAD_CACHE_STREAMING && e->align < line)
		e->align = (uint32_t)line;
}

static int make_pool(struct udma_engine *e, char *why, size_t wl)
{
	struct ofl_device *d = e->dev;
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
	memory_region(ofl_dev_fdt(d), d->node, &po);
	int r = ofl_dma_pool_create(d, &po, &e->pool);
	if (r < 0)
		snprintf(why, wl, "%s", ofl_err_msg(d->ctx));
	return r;
}

#define UDMA_NO_PROXY_WHY "a 32-bit CPU reaches 8-byte ring elements only through the ring accelerator " \
	"proxy (TI CSL csl_ringacc.h), which this backend does not drive; the kernel's k3-udma through the " \
	"dmaengine backend (offload_dma module) serves this engine"

/*
 * The UDMA's TX and completion rings are ring-accelerator rings with 8-byte
 * elements, pushed and popped through the FIFO windows (ring.c). TI's CSL
 * allows the 64-bit window accesses only to a processor that issues a 64-bit
 * burst; a 32-bit one is to use the proxy (csl_ringacc.h, CSL_ringaccPush64()).
 * BCDMA rings live in memory with doorbells and are not affected.
 */
int udma_host_check(bool single64, char *why, size_t wl)
{
	if (single64)
		return 0;
	snprintf(why, wl, "%s", UDMA_NO_PROXY_WHY);
	return -ENOTSUP;
}

static int udma_probe(struct offload_ctx *ctx, void *state, struct ofl_device *d, char *why, size_t wl)
{
	const struct udma_row *row = d->match ? udma_row_of(d->match) : NULL;
	const char *owner = "";
	struct rm_owner own;

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
	if (!row->bcdma && udma_host_check(OFL_MMIO_SINGLE_64, why, wl) < 0)
		return -ENOTSUP;
	struct udma_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->dev = d;
	e->bcdma = row->bcdma;
	e->psil_base = row->psil_base;
	e->tpl_quirk = row->am654_tpl_quirk;
	e->sim = ofl_drv(ctx)->sim;
	snprintf(e->name, sizeof(e->name), "%s", d->name);
	int r = config_path(e, &owner, why, wl);
	if (r == 0)
		r = check_tisci(ofl_drv(ctx)->dt.fdt, d->node, why, wl);
	if (r == 0)
		r = ownership(e, &own, why, wl);
	if (r == 0)
		r = read_bindings(e, why, wl);
	if (r == 0 && e->fw == &udma_fw_tisci)
		r = sci_dev_ids(e, why, wl);
	if (r == 0) {
		take_policy(e, row);
		r = map_regions(e, why, wl);
	}
	if (r == 0) {
		soc_revision(e, row);
		r = make_pool(e, why, wl);
	}
	if (r == 0)
		r = udma_engine_init(e, why, wl);
	if (r < 0) {
		engine_free(e);
		return r;
	}
	claim_owned(e, &own);
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
		ofl_dev_refine(d, OFL_DECIDE_BURST, NULL, "here handed to TI-SCI messages to the %sDM firmware%s",
			       e->sim ? "simulated " : "", e->sim ? " (sim)" : "");
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
	.flags = OFL_BE_DMA_MEMORY | OFL_BE_KERNEL_DMAENGINE, /* k3-udma offers DMA_MEMCPY */
	.match = udma_match,
	.policy = udma_policy,
	.linux_driver = "ti-udma", /* k3-udma.c udma_driver */
	.probe = udma_probe,
	.remove = udma_remove,
	.memcpy = &udma_memcpy_ops,
};
