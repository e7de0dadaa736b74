/* SPDX-License-Identifier: MIT */
/*
 * Digital twin: attach register-level models to the engines a device tree
 * declares, at the addresses it declares, so the direct backends run on any
 * board's tree (the built-in virtual board or a real board's .dtb).
 *
 * What a device tree does not say, the silicon's capability registers do;
 * the models report the channel counts TI's system firmware documentation
 * gives for each SoC ("<SoC> DMA Device Descriptions", TI-SCI), chosen by the
 * engine's compatible and the board's root compatible, and never more
 * channels than the tree's real-time regions have room for.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "dt/dt.h"
#include "util/env.h"
#include "util/util.h"
#include "hw/k3_udma.h"
#include "sim/dspi_model.h"
#include "sim/k3_models.h"
#ifdef OFFLOAD_HAVE_EIP97_MODEL
#include "sim/eip97_model.h"
#endif
#include "sim/sim.h"

struct k3_counts {
	const char *compatible;
	const char *root;  /* root compatible refining the row, NULL = any */
	bool bcdma;
	uint32_t tchan, echan, rchan, rflow, hchan, uchan, bchan, psil_base;
	const char *source;
};

static const struct k3_counts k3_table[] = {
	{ "ti,j721e-navss-main-udmap", "ti,j7200", false, 60, 0, 60, 150, 4, 2, 0, 0x1000,
	  "TI-SCI J7200 DMA Device Descriptions (UH 0-1, H 2-3, normal 4-59)" },
	{ "ti,j721e-navss-main-udmap", "ti,j784s4", false, 85, 256, 82, 224, 4, 2, 0, 0x1000,
	  "TI RM j784s4 udmap_cfg.c (TX 0-84: UH 0-1, H 2-3; echan 85-340; RX 0-81; 224 RX flows)" },
	{ "ti,j721e-navss-main-udmap", "ti,j721s2", false, 85, 256, 82, 82, 4, 2, 0, 0x1000,
	  "TI-SCI J721S2 DMA Device Descriptions (UH 0-1, H 2-3, normal 4-84, echan 85-340)" },
	{ "ti,j721e-navss-main-udmap", NULL, false, 140, 160, 140, 300, 16, 4, 0, 0x1000,
	  "TI-SCI J721E DMA Device Descriptions (UH 0-3, H 4-15, normal 16-139, echan 140-299)" },
	{ "ti,am654-navss-main-udmap", NULL, false, 120, 32, 150, 300, 8, 0, 0, 0x1000,
	  "TI-SCI AM65x DMA Device Descriptions (H 0-7, normal 8-119, echan 120-151; RX 0-149)" },
	{ "ti,j721e-navss-mcu-udmap", NULL, false, 48, 0, 48, 96, 2, 0, 0, 0x6000,
	  "TI-SCI J721E DMA Device Descriptions, MCU_NAVSS0_UDMAP_0 (H 0-1, normal 2-47)" },
	{ "ti,am654-navss-mcu-udmap", NULL, false, 48, 0, 48, 96, 2, 0, 0, 0x6000,
	  "TI-SCI AM65x DMA Device Descriptions, mcu_navss0_udmap0 (H 0-1, normal 2-47)" },
	{ "ti,am64-dmss-bcdma", "ti,am642", true, 20, 0, 20, 0, 0, 0, 28, 0x2000,
	  "TI RM am64x udmap_cfg.h (block copy 0-27, TX 0-19, RX 0-19)" },
	{ "ti,am64-dmss-bcdma", NULL, true, 22, 0, 28, 0, 0, 0, 32, 0x2000,
	  "TI-SCI AM62X DMA Device Descriptions (block copy 0-31, TX 0-21, RX 0-27)" },
	{ NULL, NULL, false, 0, 0, 0, 0, 0, 0, 0, 0, NULL },
};

static bool root_is(const void *fdt, const char *compat)
{
	return compat == NULL || fdt_node_check_compatible(fdt, 0, compat) == 0;
}

static const struct k3_counts *k3_lookup(const void *fdt, int node)
{
	for (const struct k3_counts *c = k3_table; c->compatible; c++)
		if (fdt_node_check_compatible(fdt, node, c->compatible) == 0 && root_is(fdt, c->root))
			return c;
	return NULL;
}

/* reg-names entry `name` of `node`; size 0 when absent. */
static int reg(const void *fdt, int node, const char *name, uint64_t *a, uint64_t *s, bool required,
	       char *err, size_t el)
{
	*a = *s = 0;
	int r = ofl_dt_reg_by_name(fdt, node, name, a, s, err, el);
	if (r == -ENOENT && !required) {
		*a = *s = 0;
		return 0;
	}
	if (r < 0 && err && !err[0])
		snprintf(err, el, "no \"%s\" register region", name);
	return r;
}

static uint32_t clamp_to(uint32_t want, uint64_t region, uint64_t stride)
{
	uint64_t room = region / stride;
	return room && room < want ? (uint32_t)room : want;
}

/* bus - phys through the node's dma-ranges, at the sim world's DRAM. */
uint64_t ofl_sim_dt_dma_offset(const void *fdt, int node)
{
	const uint64_t probe = 0x880000000ull;
	uint64_t bus = probe;

	if (ofl_dt_dma_translate(fdt, node, probe, &bus, NULL, 0) < 0)
		return 0;
	return bus - probe;
}

/*
 * A node that names a TI-SCI system controller (ti,sci) belongs to a system
 * with DM firmware: its model firewalls the configuration registers, which
 * then only the firmware entry points (TI-SCI messages) can program, as on a
 * K3 under Linux. Without ti,sci (the virtual board) the registers are open,
 * as for a bootloader without DM firmware.
 */
static bool dm_firmware(const void *fdt, int node)
{
	return fdt_getprop(fdt, node, "ti,sci", NULL) != NULL;
}

/*
 * The silicon revision of a simulated AM65x: OFFLOAD_SIM_SOC_REVISION (SR1.0 or
 * SR2.0; unset: SR2.0). It decides what the chip ID register answers and
 * whether the UDMA keeps its own ring occupancy across a ring reset (SR1.0,
 * Linux k3-ringacc.c k3_ringacc_ring_reset_dma() / k3_ringacc_socinfo).
 * -EINVAL with `err` for a value the variable does not take.
 */
static int am65x_sr1(const void *fdt, bool *sr1, char *err, size_t el)
{
	const char *rev = "SR2.0";

	*sr1 = false;
	if (ofl_env_word("OFFLOAD_SIM_SOC_REVISION", &rev, err, el) < 0)
		return -EINVAL;
	*sr1 = root_is(fdt, "ti,am654") && strcmp(rev, "SR1.0") == 0;
	return 0;
}

/*
 * CTRLMMR_WKUP_JTAGID of an AM65x (Linux drivers/soc/ti/k3-socinfo.c):
 * VARIANT 31:28 (0 = SR1.0, 1 = SR2.0), PARTNO 27:12 = 0xBB5A (AM65X),
 * MFG 11:1 = 0x17 (TI), bit 0 always 1.
 */
#define AM65X_JTAGID(variant) (((uint32_t)(variant) << 28) | (0xBB5Au << 12) | (0x17u << 1) | 1u)

static int chipid_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t el)
{
	uint64_t a, sz;
	bool sr1;

	if (!root_is(fdt, "ti,am654")) {
		snprintf(err, el, "the chip ID model knows the AM65x part number only (root compatible ti,am654)");
		return -ENOTSUP;
	}
	if (am65x_sr1(fdt, &sr1, err, el) < 0 || ofl_dt_reg(fdt, node, 0, &a, &sz, err, el) < 0)
		return -EINVAL;
	if (!ofl_sim_k3_chipid_create(sim, a, sz, AM65X_JTAGID(sr1 ? 0 : 1), node))
		return ofl_sim_create_failed(err, el, "chip ID register", "its region overlaps another block");
	return 0;
}

static struct ofl_sim_ringacc *ringacc_for(struct ofl_sim *sim, const void *fdt, int node, char *err,
					   size_t el)
{
	int len = 0;
	const fdt32_t *ph = fdt_getprop(fdt, node, "ti,ringacc", &len);

	if (!ph || len < 4) {
		snprintf(err, el, "no ti,ringacc phandle");
		return NULL;
	}
	int ra_node = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(ph[0]));
	if (ra_node < 0) {
		snprintf(err, el, "ti,ringacc points at no node");
		return NULL;
	}
	struct ofl_sim_model *m = ofl_sim_model_by_node(sim, ra_node);
	if (m)
		return (struct ofl_sim_ringacc *)m;
	struct ofl_sim_ringacc_params p = { .node = ra_node,
					    .dma_offset = ofl_sim_dt_dma_offset(fdt, ra_node),
					    .cfg_firewalled = dm_firmware(fdt, ra_node) };
	ofl_dt_prop_u32(fdt, ra_node, "ti,sci-dev-id", &p.sci_dev_id);
	if (am65x_sr1(fdt, &p.sr1_udma_ring_state, err, el) < 0)
		return NULL;
	const fdt32_t *n = fdt_getprop(fdt, ra_node, "ti,num-rings", &len);
	p.num_rings = n && len >= 4 ? fdt32_to_cpu(*n) : 0;
	if (reg(fdt, ra_node, "rt", &p.rt, &p.rt_size, true, err, el) < 0 ||
	    reg(fdt, ra_node, "fifos", &p.fifos, &p.fifos_size, true, err, el) < 0 ||
	    reg(fdt, ra_node, "proxy_gcfg", &p.proxy_gcfg, &p.proxy_gcfg_size, false, err, el) < 0 ||
	    reg(fdt, ra_node, "proxy_target", &p.proxy_target, &p.proxy_target_size, false, err, el) < 0 ||
	    reg(fdt, ra_node, "cfg", &p.cfg, &p.cfg_size, false, err, el) < 0)
		return NULL;
	p.num_rings = clamp_to(p.num_rings, p.rt_size, 0x1000);
	errno = 0;
	struct ofl_sim_ringacc *ra = ofl_sim_ringacc_create(sim, &p);
	if (!ra) {
		char nr[48];
		snprintf(nr, sizeof(nr), "%u rings", p.num_rings);
		ofl_sim_create_failed(err, el, "ring accelerator", nr);
	}
	return ra;
}

static int root_matches(const void *fdt, const char *root)
{
	return root_is(fdt, root);
}

/*
 * The channels the DM firmware's board configuration gives the host the tree
 * names (ti,host-id of the ti,sci controller), for the resource subtypes of
 * ti,sci-rm-range-tchan / -rchan (hw/k3_udma.h §6.1). Left unknown when the
 * table has no row for this board and host.
 */
static void board_config(const void *fdt, int node, struct ofl_sim_udma_params *p)
{
	uint32_t host = 0, dev = 0, ts[8], rs[8], any = 0;
	int sci = ofl_dt_phandle(fdt, node, "ti,sci"), nt = 0, nr = 0, len = 0;
	const fdt32_t *v;

	if (sci < 0 || !ofl_dt_prop_u32(fdt, node, "ti,sci-dev-id", &dev))
		return;
	ofl_dt_prop_u32(fdt, sci, "ti,host-id", &host);
	if (k3_rm_owned(root_matches, fdt, (uint16_t)host, (uint16_t)dev, &any, 0, 0) < 0)
		return;
	if ((v = fdt_getprop(fdt, node, "ti,sci-rm-range-tchan", &len)))
		for (; nt < 8 && (nt + 1) * 4 <= len; nt++)
			ts[nt] = fdt32_to_cpu(v[nt]);
	if ((v = fdt_getprop(fdt, node, "ti,sci-rm-range-rchan", &len)))
		for (; nr < 8 && (nr + 1) * 4 <= len; nr++)
			rs[nr] = fdt32_to_cpu(v[nr]);
	p->owned_known = true;
	for (uint32_t i = 0; i < 512; i++) {
		if (k3_rm_owned(root_matches, fdt, (uint16_t)host, (uint16_t)dev, ts, nt, i) == 1)
			p->tchan_owned[i / 8] |= (uint8_t)(1u << (i % 8));
		if (k3_rm_owned(root_matches, fdt, (uint16_t)host, (uint16_t)dev, rs, nr, i) == 1)
			p->rchan_owned[i / 8] |= (uint8_t)(1u << (i % 8));
	}
}

int ofl_sim_k3_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t el)
{
	if (ofl_sim_model_by_node(sim, node))
		return 0;
	const struct k3_counts *c = k3_lookup(fdt, node);
	if (!c) {
		snprintf(err, el, "no model for this K3 DMA instance");
		return -ENOTSUP;
	}
	struct ofl_sim_udma_params p = {
		.bcdma = c->bcdma, .tchan_cnt = c->tchan, .echan_cnt = c->echan, .rchan_cnt = c->rchan,
		.rflow_cnt = c->rflow, .hchan_cnt = c->hchan, .uchan_cnt = c->uchan,
		.bchan_cnt = c->bchan, .psil_base = c->psil_base, .node = node,
		.dma_offset = ofl_sim_dt_dma_offset(fdt, node), .cfg_firewalled = dm_firmware(fdt, node),
	};
	ofl_dt_prop_u32(fdt, node, "ti,sci-dev-id", &p.sci_dev_id);
	/* the PSI-L proxy the tree does not give (hw/k3_udma.h §3.7's per-SoC table) */
	for (const struct k3_psil_proxy *x = k3_psil_proxies(); x->compatible; x++)
		if (fdt_node_check_compatible(fdt, node, x->compatible) == 0 && root_is(fdt, x->root))
			p.psil_proxy = x->base;
	/* TI RM rm_udmap.c: TCFG/RCFG BURST_SIZE only with CONFIG_UDMAP_CHANNEL_BURST_SIZE (J7 class, not AM65x) */
	p.no_burst_field = fdt_node_check_compatible(fdt, node, "ti,am654-navss-main-udmap") == 0 ||
			   fdt_node_check_compatible(fdt, node, "ti,am654-navss-mcu-udmap") == 0;
	if (p.cfg_firewalled)
		board_config(fdt, node, &p);
	int navss = fdt_parent_offset(fdt, node);
	if (navss >= 0)
		ofl_dt_prop_u32(fdt, navss, "ti,sci-dev-id", &p.navss_dev_id);
	err[0] = '\0';
	if (reg(fdt, node, "gcfg", &p.gcfg, &p.gcfg_size, true, err, el) < 0 ||
	    reg(fdt, node, "tchanrt", &p.tchanrt, &p.tchanrt_size, !c->bcdma, err, el) < 0 ||
	    reg(fdt, node, "rchanrt", &p.rchanrt, &p.rchanrt_size, true, err, el) < 0 ||
	    reg(fdt, node, "tchan", &p.tchan, &p.tchan_size, false, err, el) < 0 ||
	    reg(fdt, node, "rchan", &p.rchan, &p.rchan_size, false, err, el) < 0)
		return -EINVAL;
	if (c->bcdma) {
		if (reg(fdt, node, "bchanrt", &p.bchanrt, &p.bchanrt_size, true, err, el) < 0 ||
		    reg(fdt, node, "ringrt", &p.ringrt, &p.ringrt_size, true, err, el) < 0 ||
		    reg(fdt, node, "ring", &p.ring, &p.ring_size, false, err, el) < 0 ||
		    reg(fdt, node, "bchan", &p.bchan, &p.bchan_size, false, err, el) < 0)
			return -EINVAL;
		p.bchan_cnt = clamp_to(p.bchan_cnt, p.bchanrt_size, 0x1000);
		p.tchan_cnt = clamp_to(p.tchan_cnt, p.tchanrt_size, 0x1000);
		p.rchan_cnt = clamp_to(p.rchan_cnt, p.rchanrt_size, 0x1000);
	} else {
		if (reg(fdt, node, "rflow", &p.rflow, &p.rflow_size, false, err, el) < 0)
			return -EINVAL;
		p.tchan_cnt = clamp_to(p.tchan_cnt, p.tchanrt_size, 0x1000);
		p.rchan_cnt = clamp_to(p.rchan_cnt, p.rchanrt_size, 0x1000);
		p.hchan_cnt = OFL_MIN(p.hchan_cnt, p.tchan_cnt);
		p.uchan_cnt = OFL_MIN(p.uchan_cnt, p.hchan_cnt);
		errno = 0;
		p.ra = ringacc_for(sim, fdt, node, err, el);
		if (!p.ra)
			return errno == ENOMEM || errno == EAGAIN ? -errno : -EINVAL;
	}
	errno = 0;
	if (!ofl_sim_udma_create(sim, &p))
		return ofl_sim_create_failed(err, el, "DMA", "its channel counts or regions are out of the model's range");
	return 0;
}

/* ------------------------------------------------------------- dispatch by compatible */

struct attacher {
	const char *compatible;
	int (*attach)(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t el);
};

static const struct attacher attachers[] = {
	{ "ti,j721e-navss-main-udmap", ofl_sim_k3_attach },
	{ "ti,j721e-navss-mcu-udmap", ofl_sim_k3_attach },
	{ "ti,am654-navss-main-udmap", ofl_sim_k3_attach },
	{ "ti,am654-navss-mcu-udmap", ofl_sim_k3_attach },
	{ "ti,am64-dmss-bcdma", ofl_sim_k3_attach },
	{ "ti,am654-chipid", chipid_attach },
#ifdef OFFLOAD_HAVE_EIP97_MODEL
	{ "inside-secure,safexcel-eip97ies", ofl_sim_eip97_attach },
	{ "inside-secure,safexcel-eip97", ofl_sim_eip97_attach },
	{ "inside-secure,safexcel-eip197b", ofl_sim_eip97_attach },
	{ "inside-secure,safexcel-eip197d", ofl_sim_eip97_attach },
	{ "inside-secure,safexcel-eip197c-mxl", ofl_sim_eip97_attach },
	{ "inside-secure,safexcel-eip197", ofl_sim_eip97_attach },
#endif
	/* NXP DSPI devtypes (hw/dspi.h topic 1.1) */
	{ "fsl,vf610-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls1021a-v1.0-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls1012a-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls1028a-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls1043a-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls1046a-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls2080a-dspi", ofl_sim_dspi_attach },
	{ "fsl,ls2085a-dspi", ofl_sim_dspi_attach },
	{ "fsl,lx2160a-dspi", ofl_sim_dspi_attach },
	{ "nxp,s32g2-dspi", ofl_sim_dspi_attach },
};

int ofl_sim_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t el)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(attachers); i++)
		if (fdt_node_check_compatible(fdt, node, attachers[i].compatible) == 0)
			return attachers[i].attach(sim, fdt, node, err, el);
	snprintf(err, el, "no register-level model for this node's compatible");
	return -ENOTSUP;
}
