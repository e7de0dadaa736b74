/* SPDX-License-Identifier: MIT */
/*
 * Register regions by what reaches them: the models' world when the
 * platform simulates, else UIO, VFIO-platform or /dev/mem. The address
 * always comes from the device tree (the driver layer resolves and claims
 * it, src/driver/device.c ofl_mmio_map_reg()), so nothing here maps an
 * arbitrary address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "dt/dt.h"
#include "util/util.h"

#ifdef OFFLOAD_HAVE_SIM
static int map_sim(const struct ofl_platform *p, int node, uint64_t phys, uint64_t size,
		   struct ofl_mmio *out, char *why, size_t wl)
{
	char err[OFL_REASON_LEN];
	struct ofl_sim *sim = p->world;
	int r;

	/* The model of this node, never another node's that happens to sit at this address. */
	struct ofl_sim_model *own = ofl_sim_model_by_node(sim, node);
	if (!own) {
		if ((r = ofl_sim_attach(sim, p->fdt, node, err, sizeof(err))) < 0) {
			snprintf(why, wl, "sim: %s", err);
			return r;
		}
		own = ofl_sim_model_by_node(sim, node);
	}
	struct ofl_sim_block *b = ofl_sim_find_block(sim, phys, size);
	if (b && !ofl_sim_block_of(b, own)) {
		snprintf(why, wl, "sim: 0x%llx+0x%llx is served by the model block \"%s\", which is not "
			 "this node's", (unsigned long long)phys, (unsigned long long)size, b->name);
		return -EBUSY;
	}
	r = ofl_mmio_map_sim(sim, phys, size, out);
	if (r < 0)
		snprintf(why, wl, "sim: no model serves 0x%llx+0x%llx", (unsigned long long)phys,
			 (unsigned long long)size);
	return r;
}
#endif

int ofl_mmio_map(const struct ofl_platform *p, int node, int index, uint64_t phys, uint64_t size,
		 struct ofl_mmio *out, char *why, size_t wl)
{
	char path[256], e1[OFL_REASON_LEN] = "", e2[OFL_REASON_LEN] = "";
	int r;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (p->world) {
#ifdef OFFLOAD_HAVE_SIM
		return map_sim(p, node, phys, size, out, why, wl);
#else
		snprintf(why, wl, "sim: this build has no models");
		return -ENOTSUP;
#endif
	}
	ofl_dt_path(p->fdt, node, path, sizeof(path));
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
