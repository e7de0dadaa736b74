/* SPDX-License-Identifier: MIT */
/*
 * Finding the engines: every node whose `compatible` list names a row of the
 * capability table (src/policy/table.c). Like Linux's of_match_node(), the
 * earliest string of the node's list that the table knows wins, so
 * "fsl,ls1028a-dspi", "fsl,ls1021a-v1.0-dspi" is an LS1028A and a node with
 * only an unknown SoC string plus a known fallback gets the fallback. A node
 * is reported once however many of its strings are known.
 */
#include <errno.h>
#include <libfdt.h>
#include <string.h>

#include "dt/dt.h"
#include "policy/policy.h"

/* The table row for the most specific known string of a compatible list. */
static const struct ofl_soc_entry *match_list(const char *list, int len)
{
	for (int o = 0; o < len;) {
		const char *s = list + o;
		const char *nul = memchr(s, '\0', (size_t)(len - o));
		if (!nul)
			break; /* unterminated tail: not a string */
		const struct ofl_soc_entry *e = ofl_soc_lookup(s);
		if (e)
			return e;
		o += (int)(nul - s) + 1;
	}
	return NULL;
}

int ofl_dt_discover(const void *fdt, struct ofl_dt_match *out, int max)
{
	int n = 0, depth = 0, node;

	if (!fdt)
		return -EINVAL;
	for (node = 0; node >= 0; node = fdt_next_node(fdt, node, &depth)) {
		if (depth < 0)
			break;
		int len;
		const char *c = fdt_getprop(fdt, node, "compatible", &len);
		if (!c || len <= 0)
			continue;
		const struct ofl_soc_entry *e = match_list(c, len);
		if (!e)
			continue;
		if (n < max && out) {
			out[n].node = node;
			out[n].engine = e->engine;
			out[n].compatible = e->compatible;
			out[n].soc = e;
		}
		if (n == INT32_MAX)
			break;
		n++;
	}
	if (node < 0 && node != -FDT_ERR_NOTFOUND)
		return -EINVAL;
	return n;
}
