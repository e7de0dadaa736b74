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

/* A region a model serves: the provider attaches the node's model and finds its block. */
static int map_sim(const struct ofl_platform *p, int node, uint64_t phys, uint64_t size,
		   struct ofl_mmio *out, char *why, size_t wl)
{
	struct ofl_sim_block *b;
	char w[OFL_REASON_LEN] = "";
	int r = p->sim->map(p->world, p->fdt, node, phys, size, &b, w, sizeof(w));

	if (r < 0) {
		snprintf(why, wl, "sim: %s", w);
		return r;
	}
	out->sim = b;
	out->prov = p->sim;
	out->kind = OFL_MMIO_SIM;
	out->phys = phys;
	out->size = size;
	return 0;
}

int ofl_mmio_map(const struct ofl_platform *p, int node, int index, uint64_t phys, uint64_t size,
		 struct ofl_mmio *out, char *why, size_t wl)
{
	char path[256], e1[OFL_REASON_LEN] = "", e2[OFL_REASON_LEN] = "";
	int r;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (p->world)
		return map_sim(p, node, phys, size, out, why, wl);
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
	if (ofl_devmem_allowed()) {
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
