/* SPDX-License-Identifier: MIT */
/*
 * Finding the nodes a caller's match lists name (the engines' match
 * tables). Like Linux's of_match_node(), the earliest string of the node's
 * list that a table knows wins, so "fsl,ls1028a-dspi",
 * "fsl,ls1021a-v1.0-dspi" is an LS1028A and a node with only an unknown SoC
 * string plus a known fallback gets the fallback. A node is reported once
 * however many of its strings are known.
 */
#include <errno.h>
#include <libfdt.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"

const struct ofl_dt_id *ofl_dt_id_lookup(const struct ofl_dt_id *const *lists, unsigned nlists,
					 const char *compatible, unsigned *list)
{
	if (!compatible)
		return NULL;
	for (unsigned l = 0; l < nlists; l++)
		for (const struct ofl_dt_id *e = lists[l]; e && e->compatible; e++)
			if (e->compatible[0] == compatible[0] && strcmp(e->compatible, compatible) == 0) {
				if (list)
					*list = l;
				return e;
			}
	return NULL;
}

/* The entry for the most specific known string of a compatible list. */
static const struct ofl_dt_id *match_list(const struct ofl_dt_id *const *lists, unsigned nlists,
					  const char *list, int len, unsigned *which)
{
	for (int o = 0; o < len;) {
		const char *s = list + o;
		const char *nul = memchr(s, '\0', (size_t)(len - o));
		if (!nul)
			break; /* unterminated tail: not a string */
		const struct ofl_dt_id *e = ofl_dt_id_lookup(lists, nlists, s, which);
		if (e)
			return e;
		o += (int)(nul - s) + 1;
	}
	return NULL;
}

int ofl_dt_discover(const void *fdt, const struct ofl_dt_id *const *lists, unsigned nlists,
		    struct ofl_dt_match *out, int max)
{
	unsigned which = 0;
	uint32_t base, size, off = 0, str_off, str_size, compat_name = UINT32_MAX;
	int n = 0, node = -1;

	if (!fdt || ofl_dt_struct_block(fdt, &base, &size) < 0)
		return -EINVAL;
	const uint8_t *s = (const uint8_t *)fdt + base;
	const char *strings = (const char *)fdt + fdt_off_dt_strings(fdt);
	str_off = fdt_off_dt_strings(fdt);
	str_size = fdt_size_dt_strings(fdt);
	if (str_off > fdt_totalsize(fdt) || str_size > fdt_totalsize(fdt) - str_off)
		return -EINVAL;
	/* One pass over the tags: `compatible` properties name their node's offset. */
	for (;;) {
		uint32_t at = off;
		int tag = ofl_dt_next_tag(s, size, &off);
		if (tag == FDT_END)
			return n;
		if (tag < 0)
			return -EINVAL;
		if (tag == FDT_BEGIN_NODE) {
			node = (int)at;
			continue;
		}
		if (tag != FDT_PROP || node < 0)
			continue;
		uint32_t nameoff = ofl_dt_be32(s + at + 8);
		if (nameoff != compat_name) {
			if (nameoff >= str_size ||
			    strncmp(strings + nameoff, "compatible", str_size - nameoff) != 0)
				continue;
			compat_name = nameoff; /* dtc stores each name once: later ones compare by offset */
		}
		const struct ofl_dt_id *e = match_list(lists, nlists, (const char *)s + at + 12,
						       (int)ofl_dt_be32(s + at + 4), &which);
		if (!e)
			continue;
		if (n < max && out) {
			out[n].node = node;
			out[n].id = e;
			out[n].list = which;
		}
		if (n == INT32_MAX)
			return n;
		n++;
	}
}
