/* SPDX-License-Identifier: MIT */
/* Walking the tree: paths, status, the chain of ancestors, small property readers. */
#include <errno.h>
#include <libfdt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"

int ofl_dt_path(const void *fdt, int node, char *buf, size_t len)
{
	int r = fdt_get_path(fdt, node, buf, (int)len);

	if (r < 0) {
		if (len)
			snprintf(buf, len, "<node at offset %d>", node);
		return -EINVAL;
	}
	return 0;
}

/*
 * The node's full path from the chain of its ancestors (one pass of
 * ofl_dt_next_tag() up to the node, as ofl_dt_chain() does) rather than
 * fdt_get_path(), which walks every node before it again with a bounds
 * check per byte of each name: about 0.5 M instructions per device of the
 * 122 KB J721E tree (bench/README.md).
 */
char *ofl_dt_path_dup(const void *fdt, int node)
{
	struct ofl_dt_chain c;
	const char *names[OFL_DT_MAX_DEPTH];
	int lens[OFL_DT_MAX_DEPTH];
	size_t len = 2; /* "/" and the NUL */

	if (ofl_dt_chain(fdt, node, &c) < 0)
		return NULL;
	for (int i = 1; i < c.n; i++) {
		names[i] = fdt_get_name(fdt, c.off[i], &lens[i]);
		if (!names[i] || lens[i] < 0)
			return NULL;
		len += 1 + (size_t)lens[i];
	}
	char *buf = malloc(len), *p = buf;
	if (!buf)
		return NULL;
	for (int i = 1; i < c.n; i++) {
		*p++ = '/';
		memcpy(p, names[i], (size_t)lens[i]);
		p += lens[i];
	}
	if (p == buf)
		*p++ = '/';
	*p = '\0';
	return buf;
}

bool ofl_dt_enabled(const void *fdt, int node, const char **status)
{
	int len;
	const char *s = fdt_getprop(fdt, node, "status", &len);

	if (!s) {
		if (status)
			*status = "okay";
		return true;
	}
	/* Linux __of_device_is_status(): an empty value matches nothing. */
	if (len <= 0 || !memchr(s, '\0', (size_t)len)) {
		if (status)
			*status = "";
		return false;
	}
	if (status)
		*status = s;
	return strcmp(s, "okay") == 0 || strcmp(s, "ok") == 0;
}

int ofl_dt_struct_block(const void *fdt, uint32_t *base, uint32_t *size)
{
	uint32_t total = fdt_totalsize(fdt), off = fdt_off_dt_struct(fdt);
	uint32_t len = fdt_version(fdt) >= 17 ? fdt_size_dt_struct(fdt) : total - OFL_MIN(off, total);

	if (off > total || len > total - off)
		return -EINVAL;
	*base = off;
	*size = len;
	return 0;
}

/*
 * One tag of the structure block at struct offset *off: returns the tag and
 * moves *off past it, or returns -1 when the block is malformed. The blob
 * was validated; the bounds checks keep a misused call from reading outside.
 */
int ofl_dt_next_tag(const uint8_t *s, uint32_t size, uint32_t *off)
{
	uint32_t o = *off;

	if (o > size || size - o < 4)
		return -1;
	uint32_t tag = ofl_dt_be32(s + o);
	switch (tag) {
	case FDT_BEGIN_NODE: {
		const char *nm = (const char *)s + o + 4;
		const char *nul = memchr(nm, '\0', size - o - 4);
		if (!nul)
			return -1;
		o += 4 + (uint32_t)(nul - nm) + 1;
		break;
	}
	case FDT_PROP: {
		if (size - o < 12)
			return -1;
		uint32_t len = ofl_dt_be32(s + o + 4);
		if (len > size - o - 12)
			return -1;
		o += 12 + len;
		break;
	}
	case FDT_END_NODE:
	case FDT_NOP:
	case FDT_END:
		o += 4;
		break;
	default:
		return -1;
	}
	*off = (o + 3) & ~3u;
	return (int)tag;
}

int ofl_dt_chain(const void *fdt, int node, struct ofl_dt_chain *c)
{
	uint32_t base, size, off = 0;
	int depth = 0;

	c->n = 0;
	if (node < 0 || ofl_dt_struct_block(fdt, &base, &size) < 0)
		return -EINVAL;
	const uint8_t *s = (const uint8_t *)fdt + base;
	for (;;) {
		uint32_t at = off;
		int tag = ofl_dt_next_tag(s, size, &off);
		if (tag == FDT_BEGIN_NODE) {
			if (at > (uint32_t)node || depth >= OFL_DT_MAX_DEPTH)
				return -EINVAL;
			c->off[depth++] = (int)at;
			if (at == (uint32_t)node) {
				c->n = depth;
				return 0;
			}
		} else if (tag == FDT_END_NODE) {
			if (--depth < 0)
				return -EINVAL;
		} else if (tag != FDT_PROP && tag != FDT_NOP) {
			return -EINVAL;
		}
	}
}

void ofl_dt_chain_path(const void *fdt, const struct ofl_dt_chain *c, int level, char *buf,
		       size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (level <= 0 || level >= c->n) {
		snprintf(buf, len, "/");
		return;
	}
	for (int i = 1; i <= level && o < len; i++) {
		const char *nm = fdt_get_name(fdt, c->off[i], NULL);
		o += (size_t)snprintf(buf + o, len - o, "/%s", nm ? nm : "?");
	}
}

bool ofl_dt_prop_u32(const void *fdt, int node, const char *name, uint32_t *val)
{
	int len;
	const void *p = fdt_getprop(fdt, node, name, &len);

	if (!p || len < 4)
		return false;
	*val = ofl_dt_be32(p);
	return true;
}

bool ofl_dt_has_prop(const void *fdt, int node, const char *name)
{
	return fdt_getprop(fdt, node, name, NULL) != NULL;
}

bool ofl_dt_prop_lists_u32(const void *fdt, int node, const char *name, uint32_t v, bool *present)
{
	int len;
	const uint8_t *a = fdt_getprop(fdt, node, name, &len);

	*present = a != NULL;
	for (int o = 0; a && o + 4 <= len; o += 4)
		if (ofl_dt_be32(a + o) == v)
			return true;
	return false;
}

/* Is the NUL-terminated string at name (room bytes to the end of its block) exactly want? */
static bool name_is(const char *name, size_t room, const char *want)
{
	size_t n = strlen(want) + 1;

	return room >= n && memcmp(name, want, n) == 0;
}

/* The phandle a node's properties give it, as libfdt's fdt_get_phandle() takes it. */
struct ph_props {
	bool seen, linux_seen;  /* the first "phandle" / "linux,phandle" of the node was read */
	uint32_t ph, linux_ph;  /* its value when it is 4 bytes long, else 0 */
};

static uint32_t ph_value(const struct ph_props *pp)
{
	/* "phandle" if it is a cell, else "linux,phandle" if that is one, else none */
	return pp->ph ? pp->ph : pp->linux_ph;
}

int ofl_dt_node_by_phandle(const void *fdt, uint32_t ph)
{
	uint32_t base, size, off = 0, str_off, str_size;
	struct ph_props pp = { false, false, 0, 0 };
	int cur = -1;

	if (ph == 0 || ph == UINT32_MAX || ofl_dt_struct_block(fdt, &base, &size) < 0)
		return -EINVAL;
	str_off = fdt_off_dt_strings(fdt);
	str_size = fdt_size_dt_strings(fdt);
	if (str_off > fdt_totalsize(fdt) || str_size > fdt_totalsize(fdt) - str_off)
		return -EINVAL;
	const uint8_t *s = (const uint8_t *)fdt + base;
	const char *strings = (const char *)fdt + str_off;
	for (;;) {
		uint32_t at = off;
		int tag = ofl_dt_next_tag(s, size, &off);
		if (tag == FDT_BEGIN_NODE || tag == FDT_END_NODE || tag == FDT_END || tag < 0) {
			/* properties come before child nodes: the node's set is complete here */
			if (cur >= 0 && ph_value(&pp) == ph)
				return cur;
			cur = tag == FDT_BEGIN_NODE ? (int)at : -1;
			pp = (struct ph_props){ false, false, 0, 0 };
			if (tag == FDT_END || tag < 0)
				return -ENOENT;
			continue;
		}
		if (tag != FDT_PROP || cur < 0)
			continue;
		uint32_t len = ofl_dt_be32(s + at + 4), nameoff = ofl_dt_be32(s + at + 8);
		if (nameoff >= str_size)
			continue;
		const char *name = strings + nameoff;
		size_t room = str_size - nameoff;
		bool is_ph = name_is(name, room, "phandle");
		if (!is_ph && !name_is(name, room, "linux,phandle"))
			continue;
		/* fdt_getprop() finds a name's first property: later duplicates do not count */
		bool *seen = is_ph ? &pp.seen : &pp.linux_seen;
		if (*seen)
			continue;
		*seen = true;
		if (len == 4)
			*(is_ph ? &pp.ph : &pp.linux_ph) = ofl_dt_be32(s + at + 12);
	}
}

int ofl_dt_phandle(const void *fdt, int node, const char *name)
{
	int len = 0;
	const uint8_t *p = fdt_getprop(fdt, node, name, &len);

	if (!p)
		return -ENOENT;
	if (len != 4)
		return -EINVAL;
	int target = ofl_dt_node_by_phandle(fdt, ofl_dt_be32(p));
	return target < 0 ? -EINVAL : target;
}

int ofl_dt_dma_mem_target(const void *fdt, int node)
{
	int idx = fdt_stringlist_search(fdt, node, "interconnect-names", "dma-mem");
	int len;

	if (idx < 0)
		return -1;
	const uint8_t *ic = fdt_getprop(fdt, node, "interconnects", &len);
	if (!ic || len < 4)
		return -1;
	/* Entries are <phandle arg...> with #interconnect-cells args each (Linux of_parse_phandle_with_args). */
	int ncells = len / 4;
	for (int pos = 0, entry = 0; pos < ncells; entry++) {
		uint32_t ph = ofl_dt_be32(ic + 4 * pos);
		uint32_t nargs = 0;
		int target = -1;
		if (ph) {
			target = ofl_dt_node_by_phandle(fdt, ph);
			if (target < 0 || !ofl_dt_prop_u32(fdt, target, "#interconnect-cells", &nargs) ||
			    nargs > (uint32_t)(ncells - pos - 1))
				return -1;
		}
		if (entry == idx)
			return target;
		pos += 1 + (int)nargs;
	}
	return -1;
}
