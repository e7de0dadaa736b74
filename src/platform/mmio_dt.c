/* SPDX-License-Identifier: MIT */
/*
 * Register regions by device-tree name: the address always comes from the
 * tree (reg + reg-names, translated through every parent's ranges), so
 * nothing here maps an arbitrary address.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "platform/platform.h"

int ofl_mmio_map_reg(struct ofl_device *dev, int node, const char *name, int index,
		     struct ofl_mmio *out, char *why, size_t wl)
{
	struct offload_ctx *ctx = dev->ctx;
	const void *fdt = ctx->dt.fdt;
	char path[256], err[OFL_REASON_LEN], e1[OFL_REASON_LEN] = "", e2[OFL_REASON_LEN] = "";
	uint64_t phys, size;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (name) {
		index = fdt_stringlist_search(fdt, node, "reg-names", name);
		if (index < 0) {
			snprintf(why, wl, "the device tree names no \"%s\" register region", name);
			return -ENOENT;
		}
	}
	err[0] = '\0';
	int r = ofl_dt_reg(fdt, node, index, &phys, &size, err, sizeof(err));
	if (r < 0) {
		snprintf(why, wl, "reg %d (%s): %s", index, name ? name : "by index",
			 err[0] ? err : offload_strerror(r));
		return r;
	}
	/* Every direct backend maps through here: one device per register range, as in Linux. */
	char rname[24];
	if (name)
		ofl_strlcpy(rname, name, sizeof(rname));
	else
		snprintf(rname, sizeof(rname), "reg[%d]", index);
	r = ofl_ctx_claim_regs(ctx, dev, node, rname, phys, size, why, wl);
	if (r < 0)
		return r;
#ifdef OFFLOAD_HAVE_SIM
	if (ctx->sim) {
		struct ofl_sim *sim = ofl_sim_of(ctx);
		if (!sim)
			return -ENODEV;
		/* The model of this node, never another node's that happens to sit at this address. */
		struct ofl_sim_model *own = ofl_sim_model_by_node(sim, node);
		if (!own) {
			if ((r = ofl_sim_attach(sim, fdt, node, err, sizeof(err))) < 0) {
				snprintf(why, wl, "sim: %s", err);
				return r;
			}
			own = ofl_sim_model_by_node(sim, node);
		}
		struct ofl_sim_block *b = ofl_sim_find_block(sim, phys, size);
		if (b && !ofl_sim_block_of(b, own)) {
			snprintf(why, wl, "sim: 0x%llx+0x%llx is served by the model block \"%s\", "
				 "which is not this node's", (unsigned long long)phys,
				 (unsigned long long)size, b->name);
			return -EBUSY;
		}
		r = ofl_mmio_map_sim(sim, phys, size, out);
		if (r < 0)
			snprintf(why, wl, "sim: no model serves 0x%llx+0x%llx", (unsigned long long)phys,
				 (unsigned long long)size);
		return r;
	}
#endif
	ofl_dt_path(fdt, node, path, sizeof(path));
	int uio = ofl_uio_find(path, e1, sizeof(e1));
	if (uio >= 0)
		return ofl_uio_map(uio, phys, size, out, why, wl);
	char pdev[128];
	if (ofl_platform_dev_by_of_node(path, pdev, sizeof(pdev)) == 0) {
		r = ofl_vfio_map(pdev, index, phys, size, out, e2, sizeof(e2));
		if (r == 0)
			return 0;
	} else {
		snprintf(e2, sizeof(e2), "VFIO: no platform device for %s", path);
	}
	const char *dm = getenv("OFFLOAD_DEVMEM");
	if (dm && strcmp(dm, "1") == 0) {
		void *cpu;
		r = ofl_devmem_map(phys, size, true, &cpu, &out->map, &out->map_len, &out->fd, why, wl);
		if (r == 0) {
			out->base = cpu;
			out->phys = phys;
			out->size = size;
			out->kind = OFL_MMIO_DEVMEM;
		}
		return r;
	}
	snprintf(why, wl, "registers not reachable: %s; %s; /dev/mem not enabled (OFFLOAD_DEVMEM=1)", e1, e2);
	return -ENODEV;
}
