/* SPDX-License-Identifier: MIT */
/*
 * The K3 UDMA-P / BCDMA / PKTDMA engine's device-tree match table and policy
 * rules (docs/policy.md §3-§6 gives the evidence). Every row restates the
 * match data of Linux drivers/dma/ti/k3-udma.c `udma_of_match`,
 * `bcdma_of_match` and `pktdma_of_match`; burst sizes are the TI-SCI codes
 * 1/2/3 = 64/128/256 B of `burst_size[]`.
 *
 * The rules, after the generic ones of src/policy:
 *  - coherency: for BCDMA memcpy the ASEL rule of Linux
 *    k3_configure_chan_coherency();
 *  - burst and alignment: the row, refined by what the node says about its
 *    channel classes (udma_best_class());
 *  - threshold: the memcpy default; transfer mode: udma_prep_dma_memcpy().
 */
#include <stdio.h>
#include <string.h>

#include "udma.h"

#define UDMA(c, src, mc, prog, b0, b1, b2, psil, bc, pk, quirk)                                  \
	{ c, &(const struct udma_row){                                                           \
		.hdr = { .kind = (bc) ? "k3-bcdma" : (pk) ? "k3-pktdma" : "k3-udma",            \
			 .source = "Linux k3-udma.c " src,                                       \
			 .flags = (pk) ? OFL_ROW_LIST_ONLY : 0 },                                \
		.memcpy = mc, .burst_programmable = prog, .burst = { b0, b1, b2 },               \
		.psil_base = psil, .bcdma = bc, .pktdma = pk, .am654_tpl_quirk = quirk } }

/*
 * PKTDMA is listed with its policy but no backend probes it: Linux gives it
 * no memcpy (packet DMA to peripherals only), so there is nothing to offload.
 */
const struct ofl_dt_id udma_match[] = {
	/* K3 NAVSS UDMA-P: flags 0 (am654) / J7 class with BURST_SIZE (j721e). */
	UDMA("ti,am654-navss-main-udmap", "am654_main_data", true, false, 64, 64, 0, 0x1000, false,
	     false, 8),
	UDMA("ti,am654-navss-mcu-udmap", "am654_mcu_data", false, false, 64, 64, 0, 0x6000, false,
	     false, 2),
	UDMA("ti,j721e-navss-main-udmap", "j721e_main_data", true, true, 64, 256, 256, 0x1000, false,
	     false, 0),
	UDMA("ti,j721e-navss-mcu-udmap", "j721e_mcu_data", false, true, 64, 128, 0, 0x6000, false,
	     false, 0),
	/* K3 DMSS BCDMA / PKTDMA and the camera BCDMAs (flags 0: no burst programming). */
	UDMA("ti,am64-dmss-bcdma", "am64_bcdma_data", true, true, 64, 0, 0, 0x2000, true, false, 0),
	UDMA("ti,am64-dmss-pktdma", "am64_pktdma_data", false, true, 64, 0, 0, 0x1000, false, true, 0),
	UDMA("ti,am62a-dmss-bcdma-csirx", "am62a_bcdma_csirx_data", false, false, 64, 0, 0, 0x3100,
	     true, false, 0),
	UDMA("ti,j721s2-dmss-bcdma-csi", "j721s2_bcdma_csi_data", false, false, 64, 0, 0, 0x2000, true,
	     false, 0),
	UDMA("ti,j722s-dmss-bcdma-csi", "j722s_bcdma_csi_data", false, false, 64, 0, 0, 0x3100, true,
	     false, 0),
	{ NULL, NULL },
};

/* TI-SCI resource subtypes of UDMAP TX channels (as the K3 device trees list them). */
#define TISCI_TX_HCHAN 0x0f
#define TISCI_TX_UHCHAN 0x10

static const char *class_name(int tpl)
{
	static const char *const names[] = { "normal", "H", "UH" };

	return tpl >= 0 && tpl < 3 ? names[tpl] : "-";
}

/*
 * The highest channel class a memcpy can get on this instance and how we
 * know: the table's classes (burst 0 = "No H/UH channels" in Linux), the
 * AM654 hard-coded split, and for UDMA the TI-SCI subtypes the node asks the
 * firmware for (a class whose subtype is not listed is not given to this host).
 */
static int udma_best_class(const struct ofl_policy_in *in, const struct udma_row *e, char *how,
			   size_t len)
{
	int best = e->burst[UDMA_CLASS_UH] ? UDMA_CLASS_UH : e->burst[UDMA_CLASS_H] ? UDMA_CLASS_H
										  : UDMA_CLASS_NORMAL;
	bool present;

	if (e->am654_tpl_quirk) {
		snprintf(how, len, "channels 0-%d are H (Linux hard-codes the AM654 split)",
			 e->am654_tpl_quirk - 1);
		return UDMA_CLASS_H;
	}
	if (e->bcdma || e->pktdma || best == UDMA_CLASS_NORMAL) {
		snprintf(how, len, "the match data has no %s channels",
			 best == UDMA_CLASS_NORMAL ? "H or UH" : "UH");
		return best;
	}
	bool uh = ofl_dt_prop_lists_u32(in->fdt, in->node, "ti,sci-rm-range-tchan", TISCI_TX_UHCHAN, &present);
	bool h = ofl_dt_prop_lists_u32(in->fdt, in->node, "ti,sci-rm-range-tchan", TISCI_TX_HCHAN, &present);
	if (!present) {
		snprintf(how, len, "assumed: no ti,sci-rm-range-tchan, GCFG CAP3 decides at run time");
		return best;
	}
	if (uh && best == UDMA_CLASS_UH) {
		snprintf(how, len, "ti,sci-rm-range-tchan lists TX_UHCHAN (0x10)");
		return UDMA_CLASS_UH;
	}
	if (h) {
		snprintf(how, len, "ti,sci-rm-range-tchan lists TX_HCHAN (0x0f)%s",
			 best == UDMA_CLASS_UH ? " but not TX_UHCHAN" : "");
		return UDMA_CLASS_H;
	}
	snprintf(how, len, "ti,sci-rm-range-tchan lists neither TX_HCHAN nor TX_UHCHAN");
	return UDMA_CLASS_NORMAL;
}

/* k3_configure_chan_coherency(): memcpy bchans use the device-wide ti,asel. True if it changed coherency. */
static bool udma_coherent_asel(const struct ofl_policy_in *in, const struct udma_row *e,
			       struct ofl_policy *p)
{
	uint32_t asel;

	if (!e->bcdma || !e->memcpy)
		return false;
	if (!ofl_dt_prop_u32(in->fdt, in->node, "ti,asel", &asel)) {
		ofl_reason_append(p->coherent_reason, sizeof(p->coherent_reason),
				  "no ti,asel (ASEL 0): memcpy channels are not made coherent");
		return false;
	}
	if (asel == 14 || asel == 15) {
		p->coherent = true;
		p->coherent_node = in->node;
		ofl_strlcpy(p->coherent_path, in->path, sizeof(p->coherent_path));
		ofl_reason_set(p->coherent_reason, sizeof(p->coherent_reason),
			       "ti,asel = %u on %s: Linux k3_configure_chan_coherency() makes memcpy "
			       "channels with ASEL 14/15 coherent (48-bit DMA mask)", asel, in->path);
		return true;
	}
	ofl_reason_append(p->coherent_reason, sizeof(p->coherent_reason),
			  "ti,asel = %u is not a coherent ASEL (14/15)", asel);
	return false;
}

static void no_memcpy(const struct udma_row *e, struct ofl_policy *p)
{
	const char *src = e->hdr.source;

	p->caps = 0;
	p->best_tpl = -1;
	p->burst_bytes = 0;
	ofl_reason_set(p->burst_reason, sizeof(p->burst_reason),
		       "no memcpy on this instance (%s: enable_memcpy_support = false)%s", src,
		       e->pktdma ? ": PKTDMA cannot do mem-to-mem" : "");
	p->align_bytes = 8;
	ofl_reason_set(p->align_reason, sizeof(p->align_reason),
		       "%s without memcpy: Linux copy_align is 8 B", src);
	p->threshold_bytes = 0;
	ofl_reason_set(p->threshold_reason, sizeof(p->threshold_reason),
		       "no memcpy on this instance: nothing to offload");
	ofl_strlcpy(p->transfer_mode, "none", sizeof(p->transfer_mode));
	ofl_reason_set(p->transfer_reason, sizeof(p->transfer_reason),
		       "%s: slave (peripheral) channels only; liboffload offloads memcpy", src);
}

void udma_policy(const struct ofl_policy_in *in, struct ofl_policy *p, struct ofl_policy_req *req)
{
	const struct udma_row *e = udma_row_of(in->match);
	const char *src = e->hdr.source;
	char how[160];

	for (int i = 0; i < 3; i++)
		p->burst_by_tpl[i] = e->burst[i];
	if (udma_coherent_asel(in, e, p))
		req->flags |= OFL_POLICY_RECACHE;
	if (!e->memcpy) {
		no_memcpy(e, p);
		return;
	}
	p->caps = OFFLOAD_CAP_MEMCPY;
	p->best_tpl = udma_best_class(in, e, how, sizeof(how));
	p->burst_bytes = e->burst[p->best_tpl];
	p->burst_programmed = e->burst_programmable;
	if (e->burst_programmable)
		ofl_reason_set(p->burst_reason, sizeof(p->burst_reason),
			       "%s burst_size [normal %u, H %u, UH %u] B with BURST_SIZE: memcpy takes the "
			       "top free class, %s (%s): %u B sent via TI-SCI (docs/policy.md §3)", src,
			       e->burst[0], e->burst[1], e->burst[2], class_name(p->best_tpl), how,
			       p->burst_bytes);
	else
		ofl_reason_set(p->burst_reason, sizeof(p->burst_reason),
			       "%s has no BURST_SIZE flag: Linux sends no burst size, the hardware default "
			       "64 B applies (memcpy class %s: %s; docs/policy.md §3)", src,
			       class_name(p->best_tpl), how);
	/* udma_get_copy_align(): the burst of channel 0's class, the top one. */
	unsigned b = e->burst[p->best_tpl];
	p->align_bytes = b >= 256 ? 256 : b >= 128 ? 128 : 64;
	ofl_reason_set(p->align_reason, sizeof(p->align_reason),
		       "Linux udma_get_copy_align(): channel 0 is class %s (%s), burst %u B -> copy_align "
		       "%u B (docs/policy.md §4)", class_name(p->best_tpl), how, b, p->align_bytes);
	req->flags |= OFL_POLICY_ALIGN_LINE;
	p->threshold_bytes = in->memcpy_threshold->bytes;
	ofl_reason_set(p->threshold_reason, sizeof(p->threshold_reason), "%s",
		       in->memcpy_threshold->source);
	ofl_strlcpy(p->transfer_mode, e->bcdma ? "tr15-bchan" : "tr15-pair", sizeof(p->transfer_mode));
	ofl_reason_set(p->transfer_reason, sizeof(p->transfer_reason),
		       "Linux udma_prep_dma_memcpy() on %s: one TR descriptor of type-15 TRs, rows of at "
		       "most 64 KiB (udma_get_tr_counters(); docs/policy.md §6)",
		       e->bcdma ? "a block-copy channel (bchan)" : "a tchan/rchan pair");
}
