/* SPDX-License-Identifier: MIT */
/*
 * Placeholders until device-tree discovery and address translation land
 * (issue #3): no engine is discovered, so every context serves from the CPU.
 */
#include "core/internal.h"

int ofl_dt_load_builtin(struct ofl_dt *dt, char *err, size_t errlen)
{
	OFL_UNUSED(dt);
	ofl_strlcpy(err, "this build has no built-in virtual board", errlen);
	return -ENOTSUP;
}

int ofl_dt_discover(const void *fdt, struct ofl_dt_match *out, int max)
{
	OFL_UNUSED(fdt);
	OFL_UNUSED(out);
	OFL_UNUSED(max);
	return 0;
}

int ofl_dt_reg(const void *fdt, int node, int index, uint64_t *addr, uint64_t *size, char *err,
	       size_t errlen)
{
	OFL_UNUSED(fdt);
	OFL_UNUSED(node);
	OFL_UNUSED(index);
	OFL_UNUSED(addr);
	OFL_UNUSED(size);
	OFL_UNUSED(err);
	OFL_UNUSED(errlen);
	return -ENOENT;
}

int ofl_policy_compute(const void *fdt, const struct ofl_dt_match *m, struct ofl_policy *out)
{
	OFL_UNUSED(fdt);
	OFL_UNUSED(m);
	OFL_UNUSED(out);
	return -ENOTSUP;
}
