/* SPDX-License-Identifier: MIT */
/*
 * Clock rates as a device tree states them. Clock bindings:
 * Documentation/devicetree/bindings/clock/clock-bindings.txt (`clocks` =
 * phandle + #clock-cells specifier per entry, `clock-names`),
 * fixed-clock.yaml (`clock-frequency`), fixed-factor-clock.yaml
 * (`clock-mult`, `clock-div`, one parent). Nothing here knows an engine: a
 * caller that knows more about a provider than its node says passes a rule.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"

static int u32_prop(const void *fdt, int node, const char *name, uint32_t *v)
{
	return ofl_dt_prop_u32(fdt, node, name, v) ? 0 : -ENOENT;
}

int ofl_dt_clock_entry(const void *fdt, int node, int index, int *provider, uint32_t *cells,
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
		if (u32_prop(fdt, prov, "#clock-cells", &cc) < 0 || cc > OFL_DT_CLOCK_CELLS ||
		    at + 1 + (int)cc > n)
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
	uint32_t v, mult, div, cells[OFL_DT_CLOCK_CELLS], nc;
	int parent;

	if (depth > 8)
		return -ENOENT;
	if (fdt_node_check_compatible(fdt, prov, "fixed-clock") == 0)
		return u32_prop(fdt, prov, "clock-frequency", &v) == 0 && v ? (*hz = v, 0) : -ENOENT;
	if (fdt_node_check_compatible(fdt, prov, "fixed-factor-clock") != 0)
		return -ENOENT;
	if (u32_prop(fdt, prov, "clock-mult", &mult) < 0 || u32_prop(fdt, prov, "clock-div", &div) < 0 ||
	    div == 0 || ofl_dt_clock_entry(fdt, prov, 0, &parent, cells, &nc) < 0 ||
	    fixed_rate(fdt, parent, depth + 1, hz) < 0)
		return -ENOENT;
	*hz = *hz * mult / div;
	return 0;
}

int ofl_dt_clock_fixed_rate(const void *fdt, int provider, uint64_t *hz)
{
	return fixed_rate(fdt, provider, 0, hz);
}

/* A caller's rule for this provider and specifier, or NULL. */
static const struct ofl_dt_clock_rule *rule_for(const void *fdt, int prov, const uint32_t *cells,
						uint32_t nc, const struct ofl_dt_clock_rule *rules,
						size_t nrules)
{
	for (size_t i = 0; i < nrules; i++) {
		const struct ofl_dt_clock_rule *r = &rules[i];
		if (r->ncells == nc && memcmp(r->cells, cells, nc * sizeof(*cells)) == 0 &&
		    fdt_node_check_compatible(fdt, prov, r->compatible) == 0)
			return r;
	}
	return NULL;
}

int ofl_dt_clock_rate(const void *fdt, int node, const char *name,
		      const struct ofl_dt_clock_rule *rules, size_t nrules, struct ofl_dt_clock *out,
		      char *how, size_t hl)
{
	char path[OFL_DT_PATH_LEN];
	uint32_t v, cells[OFL_DT_CLOCK_CELLS], nc = 0;
	int prov, idx;

	memset(out, 0, sizeof(*out));
	if (u32_prop(fdt, node, "clock-frequency", &v) == 0 && v) {
		out->hz = v;
		snprintf(how, hl, "clock-frequency = <%u> on the node", v);
		return 0;
	}
	idx = name ? fdt_stringlist_search(fdt, node, "clock-names", name) : -1;
	if (ofl_dt_clock_entry(fdt, node, idx < 0 ? 0 : idx, &prov, cells, &nc) < 0) {
		snprintf(how, hl, "the node has no usable clocks entry");
		return -ENOENT;
	}
	ofl_dt_path(fdt, prov, path, sizeof(path));
	if (fixed_rate(fdt, prov, 0, &out->hz) == 0) {
		snprintf(how, hl, "its clock %s is fixed at %llu Hz", path, (unsigned long long)out->hz);
		return 0;
	}
	const struct ofl_dt_clock_rule *r = rule_for(fdt, prov, cells, nc, rules, nrules);
	int in;
	uint32_t ic[OFL_DT_CLOCK_CELLS], inc;
	if (r && r->div && ofl_dt_clock_entry(fdt, prov, 0, &in, ic, &inc) == 0 &&
	    fixed_rate(fdt, in, 0, &out->parent_hz) == 0) {
		out->hz = out->parent_hz * r->mult / r->div;
		out->rule = r;
		snprintf(how, hl, "its clock %s follows the caller's rule: its input %llu Hz x %u / %u",
			 path, (unsigned long long)out->parent_hz, r->mult, r->div);
		return 0;
	}
	char spec[48] = "";
	for (uint32_t k = 0, off = 0; k < nc && off < sizeof(spec); k++)
		off += (uint32_t)snprintf(spec + off, sizeof(spec) - off, "%s%u", k ? " " : "", cells[k]);
	snprintf(how, hl, "its clock is %s <%s>, whose rate only the running kernel knows", path, spec);
	return -ENOENT;
}
