/* SPDX-License-Identifier: MIT */
/*
 * The Inside Secure SafeXcel engine's device-tree match table (Linux
 * drivers/crypto/inside-secure/safexcel.c `safexcel_of_match_table`; the
 * compatible picks the firmware, not the layout; the RNG
 * "inside-secure,safexcel-eip76" is a different IP and is not listed) and
 * its policy rules (docs/policy.md §3-§5).
 */
#include <stdio.h>
#include <string.h>

#include "eip97.h"

#define EIP(c, src, e197)                                                                         \
	{ c, &(const struct eip97_row){                                                          \
		.hdr = { .kind = (e197) ? "eip197" : "eip97", .source = "Linux safexcel.c " src }, \
		.eip197 = e197 } }

const struct ofl_dt_id eip97_match[] = {
	EIP("inside-secure,safexcel-eip97ies", "EIP97IES_MRVL", false),
	EIP("inside-secure,safexcel-eip197b", "EIP197B_MRVL", true),
	EIP("inside-secure,safexcel-eip197d", "EIP197D_MRVL", true),
	EIP("inside-secure,safexcel-eip197c-mxl", "EIP197C_MXL", true),
	EIP("inside-secure,safexcel-eip97", "EIP97IES_MRVL (deprecated alias)", false),
	EIP("inside-secure,safexcel-eip197", "EIP197B_MRVL (deprecated alias)", true),
	{ NULL, NULL },
};

void eip97_policy(const struct ofl_policy_in *in, struct ofl_policy *p, struct ofl_policy_req *req)
{
	const struct eip97_row *e = in->match->data;

	p->caps = OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH;
	p->best_tpl = -1;
	req->streaming_note = "rings and context records uncached, as Linux dma_alloc_coherent does";
	p->burst_bytes = 0;
	ofl_reason_set(p->burst_reason, sizeof(p->burst_reason),
		       "set once in DFE_CFG/DSE_CFG, not per buffer (Linux safexcel.c safexcel_hw_init(): "
		       "fetch 64..512 B, store 128..256 B; docs/policy.md §3)");
	p->align_bytes = 1;
	ofl_reason_set(p->align_reason, sizeof(p->align_reason),
		       "command descriptors address data by byte (Linux safexcel_ring.c "
		       "safexcel_add_cdesc()): any alignment (docs/policy.md §4)");
	req->flags |= OFL_POLICY_ALIGN_LINE;
	p->threshold_bytes = in->crypto_threshold->bytes;
	ofl_reason_set(p->threshold_reason, sizeof(p->threshold_reason), "%s",
		       in->crypto_threshold->source);
	ofl_strlcpy(p->transfer_mode, "ring", sizeof(p->transfer_mode));
	if (e->eip197)
		ofl_reason_set(p->transfer_reason, sizeof(p->transfer_reason),
			       "%s: EIP197 layout expected (HIA 0x90000, PE 0xa0000) with classifier "
			       "firmware; Linux confirms the layout from the signature at 0x9fffc",
			       e->hdr.source);
	else
		ofl_reason_set(p->transfer_reason, sizeof(p->transfer_reason),
			       "%s: EIP97 layout (HIA 0x0, DFE 0xf000, DSE 0xf400, PE 0x10000), "
			       "command/result descriptor rings, one PE; Linux confirms it from the "
			       "EIP-202 signature at 0xfffc", e->hdr.source);
}
