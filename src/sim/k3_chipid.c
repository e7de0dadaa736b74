/* SPDX-License-Identifier: MIT */
/*
 * Model of a K3 SoC's chip ID register, CTRLMMR_WKUP_JTAGID (compatible
 * "ti,am654-chipid"): one read-only 32-bit word, as Linux
 * drivers/soc/ti/k3-socinfo.c reads it (VARIANT 31:28, PARTNO 27:12, MFG
 * 11:1, bit 0 always 1). The value is chosen by whoever attaches the model
 * (attach.c: from the board and OFFLOAD_SIM_SOC_REVISION).
 */
#include <stdlib.h>

#include "util/util.h"
#include "sim/k3_models.h"

struct chipid {
	struct ofl_sim_model base;
	uint32_t jtagid;
};
_Static_assert(offsetof(struct chipid, base) == 0, "ofl_sim_block_of() needs the model first");

static uint32_t chipid_read32(void *m, unsigned region, uint64_t off)
{
	OFL_UNUSED(region);
	return off == 0 ? ((struct chipid *)m)->jtagid : 0;
}

static void chipid_write32(void *m, unsigned region, uint64_t off, uint32_t v)
{
	/* model: the register is read-only; a write changes nothing */
	OFL_UNUSED(m);
	OFL_UNUSED(region);
	OFL_UNUSED(off);
	OFL_UNUSED(v);
}

static const struct ofl_sim_block_ops chipid_ops = {
	.read32 = chipid_read32,
	.write32 = chipid_write32,
};

static const struct ofl_sim_reg chipid_names[] = {
	OFL_SIM_REG(0x0, "JTAGID"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_regarea chipid_area[] = {
	{ NULL, 0, 0, 0, chipid_names }, { NULL, 0, 0, 0, NULL },
};

static void chipid_destroy(struct ofl_sim_model *m)
{
	free(m);
}

struct ofl_sim_model *ofl_sim_k3_chipid_create(struct ofl_sim *sim, uint64_t phys, uint64_t size,
					       uint32_t jtagid, int node)
{
	struct chipid *c = calloc(1, sizeof(*c));

	if (!c || !size)
		goto fail;
	c->jtagid = jtagid;
	if (ofl_sim_add_block(sim, phys, size, &chipid_ops, c, 0, "chipid", chipid_area) < 0)
		goto fail;
	c->base.kind = "k3-chipid";
	c->base.node = node;
	c->base.destroy = chipid_destroy;
	ofl_sim_model_add(sim, &c->base);
	return &c->base;
fail:
	free(c);
	return NULL;
}
