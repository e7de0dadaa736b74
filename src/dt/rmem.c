/* SPDX-License-Identifier: MIT */
/*
 * /reserved-memory, as Linux drivers/of/of_reserved_mem.c reads it
 * (fdt_scan_reserved_mem, __reserved_mem_check_root, __reserved_mem_reserve_reg):
 * the node must use the root's #address-cells/#size-cells and have `ranges`;
 * each enabled child reserves its `reg` entries (size 0 reserves nothing), or,
 * with only `size`, is placed by the OS at boot.
 */
#include <errno.h>
#include <libfdt.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"

static uint64_t read_cells(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v = v << 32 | ofl_dt_be32(p + 4 * i);
	return v;
}

static void put(struct ofl_dt_rmem *out, int max, int n, const struct ofl_dt_rmem *r)
{
	if (n < max)
		out[n] = *r;
}

int ofl_dt_reserved_memory(const void *fdt, struct ofl_dt_rmem *out, int max)
{
	uint32_t root_na = 1, root_ns = 1, na, ns;
	int rm = fdt_path_offset(fdt, "/reserved-memory"), n = 0, child;

	if (rm < 0)
		return 0;
	ofl_dt_prop_u32(fdt, 0, "#address-cells", &root_na);
	ofl_dt_prop_u32(fdt, 0, "#size-cells", &root_ns);
	if (!ofl_dt_prop_u32(fdt, rm, "#address-cells", &na) || na != root_na ||
	    !ofl_dt_prop_u32(fdt, rm, "#size-cells", &ns) || ns != root_ns ||
	    !ofl_dt_has_prop(fdt, rm, "ranges"))
		return -EINVAL;
	/* Values are read as 64-bit numbers: wider cells cannot be represented. */
	if (na < 1 || na > 2 || ns < 1 || ns > 2)
		return -EINVAL;
	fdt_for_each_subnode(child, fdt, rm) {
		if (!ofl_dt_enabled(fdt, child, NULL))
			continue;
		struct ofl_dt_rmem r = {
			.node = child,
			.no_map = ofl_dt_has_prop(fdt, child, "no-map"),
			.reusable = ofl_dt_has_prop(fdt, child, "reusable"),
		};
		int len;
		const char *compat = fdt_getprop(fdt, child, "compatible", &len);
		if (compat && len > 0 && memchr(compat, '\0', (size_t)len))
			r.compatible = compat;
		const uint8_t *reg = fdt_getprop(fdt, child, "reg", &len);
		if (reg) {
			uint32_t one = 4 * (na + ns);
			if (len % (int)one)
				continue; /* Linux skips the whole node */
			for (uint32_t o = 0; o + one <= (uint32_t)len; o += one) {
				r.addr = read_cells(reg + o, na);
				r.size = read_cells(reg + o + 4 * na, ns);
				if (r.size)
					put(out, max, n++, &r);
			}
			continue;
		}
		const uint8_t *sz = fdt_getprop(fdt, child, "size", &len);
		if (sz && len == (int)(4 * ns)) {
			r.dynamic = true;
			r.addr = 0;
			r.size = read_cells(sz, ns);
			put(out, max, n++, &r);
		}
	}
	return n;
}
