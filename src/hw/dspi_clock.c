/* SPDX-License-Identifier: MIT */
/*
 * The DSPI protocol clock as the device tree tells it (see src/hw/dspi.h).
 * Clock bindings: Documentation/devicetree/bindings/clock/clock-bindings.txt
 * (`clocks` = phandle + #clock-cells specifier per entry, `clock-names`),
 * fixed-clock.yaml (`clock-frequency`), fixed-factor-clock.yaml
 * (`clock-mult`, `clock-div`, one parent).
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"
#include "hw/dspi.h"

static int u32_prop(const void *fdt, int node, const char *name, uint32_t *v)
{
	return ofl_dt_prop_u32(fdt, node, name, v) ? 0 : -ENOENT;
}

/*
 * Entry `index` of node's `clocks`: the provider node and up to 4 specifier
 * cells. -ENOENT when absent or malformed.
 */
static int clock_entry(const void *fdt, int node, int index, int *provider, uint32_t *cells,
		       uint32_t *ncells)
{
	int len = 0;
	const fdt32_t *p = fdt_getprop(fdt, node, "clocks", &len);
	int n = len / 4, at = 0;

	if (!p || len < 4)
		return -ENOENT;
	for (int i = 0; at < n; i++) {
		int prov = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(p[at]));
		uint32_t cc = 0;
		if (prov < 0)
			return -ENOENT;
		if (u32_prop(fdt, prov, "#clock-cells", &cc) < 0 || cc > 4 || at + 1 + (int)cc > n)
			return -ENOENT;
		if (i == index) {
			*provider = prov;
			*ncells = cc;
			for (uint32_t k = 0; k < cc; k++)
				cells[k] = fdt32_to_cpu(p[at + 1 + (int)k]);
			return 0;
		}
		at += 1 + (int)cc;
	}
	return -ENOENT;
}

/* Rate of a fixed-clock, or of a chain of fixed-factor-clocks ending in one. */
static int fixed_rate(const void *fdt, int prov, int depth, uint64_t *hz)
{
	uint32_t v, mult, div, cells[4], nc;
	int parent;

	if (depth > 8)
		return -ENOENT;
	if (fdt_node_check_compatible(fdt, prov, "fixed-clock") == 0)
		return u32_prop(fdt, prov, "clock-frequency", &v) == 0 && v ? (*hz = v, 0) : -ENOENT;
	if (fdt_node_check_compatible(fdt, prov, "fixed-factor-clock") != 0)
		return -ENOENT;
	if (u32_prop(fdt, prov, "clock-mult", &mult) < 0 || u32_prop(fdt, prov, "clock-div", &div) < 0 ||
	    div == 0 || clock_entry(fdt, prov, 0, &parent, cells, &nc) < 0 ||
	    fixed_rate(fdt, parent, depth + 1, hz) < 0)
		return -ENOENT;
	*hz = *hz * mult / div;
	return 0;
}

int ofl_dspi_clock_from_dt(const void *fdt, int node, bool twin, uint64_t *hz, char *how,
			   size_t hl)
{
	char path[OFL_DT_PATH_LEN];
	uint32_t v, cells[4], nc = 0;
	int prov, idx;

	if (u32_prop(fdt, node, "clock-frequency", &v) == 0 && v) {
		*hz = v;
		snprintf(how, hl, "clock-frequency = <%u> on the node", v);
		return 0;
	}
	idx = fdt_stringlist_search(fdt, node, "clock-names", "dspi");
	if (clock_entry(fdt, node, idx < 0 ? 0 : idx, &prov, cells, &nc) < 0) {
		snprintf(how, hl, "the node has no usable clocks entry");
		return -ENOENT;
	}
	ofl_dt_path(fdt, prov, path, sizeof(path));
	if (fixed_rate(fdt, prov, 0, hz) == 0) {
		snprintf(how, hl, "its clock %s is fixed at %llu Hz", path, (unsigned long long)*hz);
		return 0;
	}
	if (twin && nc == 2 && cells[0] == 4 && cells[1] == 1 &&
	    fdt_node_check_compatible(fdt, prov, "fsl,ls1028a-clockgen") == 0) {
		int in;
		uint32_t ic[4], inc;
		uint64_t sysclk;
		if (clock_entry(fdt, prov, 0, &in, ic, &inc) == 0 && fixed_rate(fdt, in, 0, &sysclk) == 0) {
			*hz = sysclk * DSPI_LS1028A_TWIN_PLL_MULT / 2u;
			snprintf(how, hl,
				 "ASSUMED for the simulated LS1028A: clockgen <4 1> = platform PLL / 2 "
				 "(clk-qoriq.c), platform PLL = %u x SYSCLK %llu Hz (RCW ratio not in the "
				 "tree, unconfirmed) = %llu Hz",
				 DSPI_LS1028A_TWIN_PLL_MULT, (unsigned long long)sysclk,
				 (unsigned long long)*hz);
			return 0;
		}
	}
	char spec[48] = "";
	for (uint32_t k = 0, off = 0; k < nc && off < sizeof(spec); k++)
		off += (uint32_t)snprintf(spec + off, sizeof(spec) - off, "%s%u", k ? " " : "", cells[k]);
	snprintf(how, hl, "its clock is %s <%s>, whose rate only the running kernel knows", path, spec);
	return -ENOENT;
}
