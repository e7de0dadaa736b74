/* SPDX-License-Identifier: MIT */
/*
 * Address translation and DMA coherency, with the semantics of Linux
 * drivers/of/address.c (of_address_to_resource, of_translate_address,
 * of_translate_dma_address, of_dma_get_range, of_dma_is_coherent) and
 * drivers/of/base.c (of_bus_n_addr_cells / of_bus_n_size_cells):
 *
 *  - #address-cells / #size-cells come from the nearest node, walking up from
 *    the bus, that has them; the default is 1 / 1;
 *  - at each level up, `ranges` absent = not translatable, empty = identity,
 *    otherwise the entry containing the address maps it;
 *  - for `dma-ranges`, absent = identity too;
 *  - buses with 3 address cells, ISA and PCI buses carry a flags cell that
 *    must match the ranges entry;
 *  - the DMA parent of a node is the `interconnects` target named "dma-mem",
 *    else its parent.
 *
 * Stricter than Linux: cell counts above 4 are rejected (Linux takes the low
 * 64 bits), and values that do not fit 64 bits or their address space are
 * reported instead of being truncated.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"

#define MAX_CELLS 4
/* Hops in one walk: the depth, plus room for DMA-parent jumps. */
#define MAX_HOPS (2 * OFL_DT_MAX_DEPTH)

/* Linux IORESOURCE_IO / IORESOURCE_MEM, as carried in a 3-cell bus's flags cell. */
#define RES_IO 0x100u
#define RES_MEM 0x200u

/* Linux's of_busses[] */
enum bus_kind { BUS_DEFAULT, BUS_FLAGS, BUS_ISA, BUS_PCI };

/* One node of an address walk, and what Linux's of_match_bus()/count_cells() say about it. */
struct hop {
	int node;
	int level;        /* index in the chain it came from; -1 after a DMA-parent jump */
	uint32_t own_na;  /* of_bus_n_addr_cells(node): its own #address-cells or the nearest ancestor's */
	uint32_t own_ns;
	uint32_t na, ns;  /* of_n_addr_cells(node): the same for its parent */
	enum bus_kind kind;
};

struct walk {
	int n;
	struct hop h[MAX_HOPS];
};

static bool name_is(const void *fdt, int node, const char *want)
{
	int len;
	const char *nm = fdt_get_name(fdt, node, &len);

	if (!nm)
		return false;
	const char *at = memchr(nm, '@', (size_t)len);
	size_t n = at ? (size_t)(at - nm) : (size_t)len;
	return n == strlen(want) && memcmp(nm, want, n) == 0;
}

/* Linux of_match_bus(): PCI, ISA, 3-cell "default-flags", default. */
static enum bus_kind bus_kind(const void *fdt, int node, uint32_t own_na)
{
	int len;
	const char *t = fdt_getprop(fdt, node, "device_type", &len);

	if (t && len > 0 && memchr(t, '\0', (size_t)len) &&
	    (strcmp(t, "pci") == 0 || strcmp(t, "pciex") == 0 || strcmp(t, "vci") == 0 ||
	     strcmp(t, "ht") == 0))
		return BUS_PCI;
	if (name_is(fdt, node, "pcie"))
		return BUS_PCI;
	if (name_is(fdt, node, "isa"))
		return BUS_ISA;
	if (own_na == 3)
		return BUS_FLAGS;
	return BUS_DEFAULT;
}

static uint32_t flag_cells(enum bus_kind k)
{
	return k == BUS_DEFAULT ? 0 : 1;
}

/*
 * Append the nodes of chain c from its last node up to the root, stopping
 * after a node whose DMA parent is elsewhere (dma): *jump gets that target.
 * on_c says whether the hops' levels index the caller's chain.
 */
static int walk_add_chain(const void *fdt, const struct ofl_dt_chain *c, bool dma, bool on_c,
			  bool cells, struct walk *w, int *jump)
{
	uint32_t na[OFL_DT_MAX_DEPTH] = { 0 }, ns[OFL_DT_MAX_DEPTH] = { 0 };

	*jump = -1;
	for (int i = 0; cells && i < c->n; i++) {
		uint32_t v;
		na[i] = ofl_dt_prop_u32(fdt, c->off[i], "#address-cells", &v) ? v : (i ? na[i - 1] : 1);
		ns[i] = ofl_dt_prop_u32(fdt, c->off[i], "#size-cells", &v) ? v : (i ? ns[i - 1] : 1);
	}
	for (int lvl = c->n - 1; lvl >= 0; lvl--) {
		if (w->n >= MAX_HOPS)
			return -ELOOP;
		struct hop *h = &w->h[w->n++];
		h->node = c->off[lvl];
		h->level = on_c ? lvl : -1;
		h->own_na = na[lvl];
		h->own_ns = ns[lvl];
		h->na = lvl ? na[lvl - 1] : na[0];
		h->ns = lvl ? ns[lvl - 1] : ns[0];
		h->kind = cells ? bus_kind(fdt, h->node, h->own_na) : BUS_DEFAULT;
		if (dma && lvl > 0) {
			int t = ofl_dt_dma_mem_target(fdt, h->node);
			if (t >= 0) {
				*jump = t;
				return 0;
			}
		}
	}
	return 0;
}

/*
 * The walk from chain c's node up through its parents (its DMA parents if
 * dma); cells: also work out cell counts and bus kinds (not needed for
 * coherency).
 */
static int walk_build(const void *fdt, const struct ofl_dt_chain *c, bool dma, bool cells,
		      struct walk *w, char *err, size_t errlen)
{
	struct ofl_dt_chain jc;
	int jump, r;

	w->n = 0;
	r = walk_add_chain(fdt, c, dma, true, cells, w, &jump);
	while (r == 0 && jump >= 0) {
		r = ofl_dt_chain(fdt, jump, &jc);
		if (r == 0)
			r = walk_add_chain(fdt, &jc, dma, false, cells, w, &jump);
	}
	if (r < 0) {
		char p[OFL_DT_PATH_LEN];
		ofl_dt_chain_path(fdt, c, c->n - 1, p, sizeof(p));
		ofl_dt_seterr(err, errlen, "%s: its interconnects \"dma-mem\" DMA parents %s", p,
			      r == -ELOOP ? "form a loop (not translatable)"
					  : "name a node that is not in the tree (not translatable)");
		return -EINVAL;
	}
	return 0;
}

/* Path of hop i of a walk built from chain c. */
static void hop_path(const void *fdt, const struct ofl_dt_chain *c, const struct hop *h, char *buf,
		     size_t len)
{
	if (h->level >= 0)
		ofl_dt_chain_path(fdt, c, h->level, buf, len);
	else
		ofl_dt_path(fdt, h->node, buf, len);
}

/* ---------------------------------------------------------------- numbers */

static void load_cells(const uint8_t *p, uint32_t n, uint32_t *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = ofl_dt_be32(p + 4 * i);
}

/* Linux of_read_number(), refusing values wider than 64 bits. */
static int read_num(const uint32_t *cell, uint32_t n, uint64_t *v)
{
	uint64_t r = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (i + 2 < n && cell[i])
			return -EOVERFLOW;
		r = r << 32 | cell[i];
	}
	*v = r;
	return 0;
}

/* Linux of_read_number() exactly: the low 64 bits. */
static uint64_t read_low(const uint32_t *cell, uint32_t n)
{
	uint64_t r = 0;

	for (uint32_t i = 0; i < n; i++)
		r = r << 32 | cell[i];
	return r;
}

/* Linux count_cells() of the bus `parent` for its child `dev`. */
static void count_cells(const struct hop *dev, enum bus_kind parent, uint32_t *na, uint32_t *ns)
{
	switch (parent) {
	case BUS_PCI:
		*na = 3;
		*ns = 2;
		break;
	case BUS_ISA:
		*na = 2;
		*ns = 1;
		break;
	default:
		*na = dev->na;
		*ns = dev->ns;
	}
}

/* Linux OF_CHECK_COUNTS, plus a #size-cells cap (a size wider than 4 cells is absurd). */
static int check_counts(const void *fdt, const struct ofl_dt_chain *c, const struct hop *bus,
			uint32_t na, uint32_t ns, char *err, size_t errlen)
{
	char p[OFL_DT_PATH_LEN];

	if (na >= 1 && na <= MAX_CELLS && ns >= 1 && ns <= MAX_CELLS)
		return 0;
	hop_path(fdt, c, bus, p, sizeof(p));
	if (na < 1 || na > MAX_CELLS)
		ofl_dt_seterr(err, errlen, "#address-cells = %u in effect for the children of %s: not 1..4 "
			      "(not translatable)", na, p);
	else
		ofl_dt_seterr(err, errlen, "#size-cells = %u in effect for the children of %s: not 1..4%s",
			      ns, p, ns == 0 ? " (0: not memory-mapped, not translatable)" : "");
	return -EINVAL;
}

static unsigned pci_space(uint32_t w)
{
	switch ((w >> 24) & 3) {
	case 1: return RES_IO;
	case 2:
	case 3: return RES_MEM;
	default: return 0;
	}
}

/*
 * Linux bus->map(): the offset of addr inside ranges entry `range` (and the
 * entry's child base and size: its window), or -ENOENT if it is not inside,
 * -EOVERFLOW if a value is wider than 64 bits.
 */
static int bus_map(enum bus_kind k, const uint32_t *addr, const uint32_t *range, uint32_t na,
		   uint32_t ns, uint32_t pna, uint64_t *offset, uint64_t *win_base, uint64_t *win_size)
{
	uint32_t fna = flag_cells(k);
	uint64_t cp, s, da;

	if (k == BUS_FLAGS && addr[0] != range[0])
		return -ENOENT;
	if (k == BUS_ISA && ((addr[0] ^ range[0]) & 1))
		return -ENOENT;
	if (k == BUS_PCI && (pci_space(addr[0]) ^ pci_space(range[0])))
		return -ENOENT;
	if (read_num(range + fna, na - fna, &cp) || read_num(range + na + pna, ns, &s) ||
	    read_num(addr + fna, na - fna, &da))
		return -EOVERFLOW;
	if (da < cp || da - cp >= s)
		return -ENOENT;
	*offset = da - cp;
	*win_base = cp;
	*win_size = s;
	return 0;
}

/* Linux bus->translate(): add offset to the address part of addr (pna cells). */
static int bus_translate(enum bus_kind k, uint32_t *addr, uint64_t offset, uint32_t pna)
{
	uint32_t fna = flag_cells(k), n = pna - fna;
	uint32_t *cells = addr + fna;
	uint64_t a;

	if (read_num(cells, n, &a) || a + offset < a || (n == 1 && a + offset > UINT32_MAX))
		return -EOVERFLOW;
	a += offset;
	memset(cells, 0, n * sizeof(*cells));
	if (n > 1)
		cells[n - 2] = (uint32_t)(a >> 32);
	cells[n - 1] = (uint32_t)a;
	return 0;
}

/* ---------------------------------------------------------------- translation */

struct trace {
	char *buf;
	size_t len, off;
	int steps; /* translations recorded so far */
};

static void trace_add(struct trace *t, const char *fmt, ...) OFL_PRINTF(2, 3);
static void trace_add(struct trace *t, const char *fmt, ...)
{
	va_list ap;

	if (!t || !t->buf || t->off >= t->len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->off, t->len - t->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->off += (size_t)n;
}

/*
 * Linux of_translate_one(): move addr (na cells in the child space of
 * w->h[i]) into the space of w->h[i]'s parent (pna cells). With a size (a
 * reg's), the region's end must lie inside the ranges entry too: Linux
 * checks only the base (bus->map()), but a region that runs past its
 * window is not all reachable through it, and mapping it whole would map
 * whatever lies beyond; it is refused, with the reason.
 */
static int translate_one(const void *fdt, const struct ofl_dt_chain *c, const struct walk *w, int i,
			 enum bus_kind bus, enum bus_kind pbus, uint32_t *addr, uint32_t na,
			 uint32_t ns, uint32_t pna, const char *prop, uint64_t size, struct trace *t,
			 char *err, size_t errlen)
{
	const struct hop *dev = &w->h[i];
	bool dma = strcmp(prop, "dma-ranges") == 0;
	char p[OFL_DT_PATH_LEN];
	uint64_t offset = 0, before = read_low(addr, na);
	int rlen, r = -ENOENT;
	const uint8_t *rp = fdt_getprop(fdt, dev->node, prop, &rlen);

	if (!rp && !dma) {
		hop_path(fdt, c, dev, p, sizeof(p));
		ofl_dt_seterr(err, errlen, "%s has no 'ranges': the addresses of its children are not "
			      "CPU addresses (not translatable)", p);
		return -EINVAL;
	}
	if (!rp || rlen == 0) {
		offset = read_low(addr, na);
		memset(addr, 0, pna * sizeof(*addr));
	} else {
		uint32_t rone = na + pna + ns, range[3 * MAX_CELLS];
		uint32_t count = (uint32_t)rlen / 4 / rone;
		uint64_t wb = 0, ws = 0;
		for (uint32_t e = 0; e < count; e++) {
			load_cells(rp + 4 * (size_t)e * rone, rone, range);
			r = bus_map(bus, addr, range, na, ns, pna, &offset, &wb, &ws);
			if (r == 0) {
				memcpy(addr, range + na, pna * sizeof(*addr));
				break;
			}
			if (r == -EOVERFLOW)
				break;
		}
		if (r < 0) {
			hop_path(fdt, c, dev, p, sizeof(p));
			if (r == -EOVERFLOW)
				ofl_dt_seterr(err, errlen, "a '%s' entry of %s holds a value wider than 64 "
					      "bits", prop, p);
			else
				ofl_dt_seterr(err, errlen, "address 0x%llx is outside every '%s' entry of "
					      "%s (not translatable)", (unsigned long long)before, prop, p);
			return r == -EOVERFLOW ? -EOVERFLOW : -EINVAL;
		}
		if (size > ws - offset) {
			hop_path(fdt, c, dev, p, sizeof(p));
			ofl_dt_seterr(err, errlen, "0x%llx+0x%llx ends 0x%llx bytes past the '%s' window "
				      "0x%llx+0x%llx of %s: refused rather than mapped past the window "
				      "(Linux checks only the base)", (unsigned long long)before,
				      (unsigned long long)size, (unsigned long long)(size - (ws - offset)),
				      prop, (unsigned long long)wb, (unsigned long long)ws, p);
			return -EINVAL;
		}
	}
	if (bus_translate(pbus, addr, offset, pna) < 0) {
		hop_path(fdt, c, dev, p, sizeof(p));
		ofl_dt_seterr(err, errlen, "address 0x%llx translated by '%s' of %s does not fit its "
			      "parent's %u-cell address space", (unsigned long long)before, prop, p, pna);
		return -EOVERFLOW;
	}
	uint64_t after = read_low(addr, pna);
	if (t && after != before) {
		hop_path(fdt, c, dev, p, sizeof(p));
		trace_add(t, "%s0x%llx -> 0x%llx by the %s of %s", t->steps++ ? ", " : "",
			  (unsigned long long)before, (unsigned long long)after, prop, p);
	}
	return 0;
}

/*
 * Linux __of_translate_address(): in (na cells, the child address space of
 * w->h[1]) up to the root's address space.
 */
static int translate(const void *fdt, const struct ofl_dt_chain *c, const struct walk *w,
		     const char *prop, const uint32_t *in, uint64_t size, uint64_t *out, struct trace *t,
		     char *err, size_t errlen)
{
	uint32_t addr[MAX_CELLS], na, ns, pna, pns;
	int r;

	if (w->n < 2) {
		ofl_dt_seterr(err, errlen, "the root node has no parent bus to translate through");
		return -EINVAL;
	}
	enum bus_kind bus = w->h[1].kind;
	count_cells(&w->h[0], bus, &na, &ns);
	r = check_counts(fdt, c, &w->h[1], na, ns, err, errlen);
	if (r < 0)
		return r;
	memcpy(addr, in, na * sizeof(*addr));
	for (int i = 1;; i++) {
		if (i == w->n - 1) {
			if (read_num(addr, na, out) < 0) {
				ofl_dt_seterr(err, errlen, "the translated address is wider than 64 bits");
				return -EOVERFLOW;
			}
			return 0;
		}
		enum bus_kind pbus = w->h[i + 1].kind;
		count_cells(&w->h[i], pbus, &pna, &pns);
		r = check_counts(fdt, c, &w->h[i + 1], pna, pns, err, errlen);
		if (r < 0)
			return r;
		r = translate_one(fdt, c, w, i, bus, pbus, addr, na, ns, pna, prop, size, t, err, errlen);
		if (r < 0)
			return r;
		na = pna;
		ns = pns;
		bus = pbus;
	}
}

/* ---------------------------------------------------------------- reg */

/* Linux __of_address_to_resource() for entry `index`; t (if given) gets how. */
static int reg_lookup(const void *fdt, const struct ofl_dt_chain *c, int index, uint64_t *addr,
		      uint64_t *size, struct trace *t, char *err, size_t errlen)
{
	struct walk w;
	char p[OFL_DT_PATH_LEN];
	uint32_t na, ns, cells[2 * MAX_CELLS];
	int len, r;

	ofl_dt_chain_path(fdt, c, c->n - 1, p, sizeof(p));
	if (c->n < 2) {
		ofl_dt_seterr(err, errlen, "the root node has no reg");
		return -ENOENT;
	}
	r = walk_build(fdt, c, false, true, &w, err, errlen);
	if (r < 0)
		return r;
	enum bus_kind bus = w.h[1].kind;
	if (bus == BUS_PCI) {
		ofl_dt_seterr(err, errlen, "%s sits on a PCI bus: its reg holds PCI configuration "
			      "addresses, not CPU addresses (not supported)", p);
		return -ENOTSUP;
	}
	count_cells(&w.h[0], bus, &na, &ns);
	r = check_counts(fdt, c, &w.h[1], na, ns, err, errlen);
	if (r < 0)
		return r;
	const uint8_t *reg = fdt_getprop(fdt, c->off[c->n - 1], "reg", &len);
	if (!reg || len <= 0) {
		ofl_dt_seterr(err, errlen, "%s has no reg", p);
		return -ENOENT;
	}
	int count = len / 4 / (int)(na + ns);
	if (index < 0 || index >= count) {
		ofl_dt_seterr(err, errlen, "%s has %d reg entr%s of %u+%u cells, no entry %d", p, count,
			      count == 1 ? "y" : "ies", na, ns, index);
		return -ENOENT;
	}
	load_cells(reg + 4 * (size_t)index * (na + ns), na + ns, cells);
	if (read_num(cells + na, ns, size) < 0) {
		ofl_dt_seterr(err, errlen, "%s: reg entry %d has a size wider than 64 bits", p, index);
		return -EOVERFLOW;
	}
	if (bus == BUS_ISA && (cells[0] & 1)) {
		ofl_dt_seterr(err, errlen, "%s: reg entry %d is in ISA I/O space (not supported)", p, index);
		return -ENOTSUP;
	}
	if (bus == BUS_FLAGS && !(cells[0] & RES_MEM)) {
		ofl_dt_seterr(err, errlen, "%s: reg entry %d has flags 0x%x: %s", p, index, cells[0],
			      (cells[0] & RES_IO) ? "I/O space (not supported)" : "neither memory nor I/O");
		return (cells[0] & RES_IO) ? -ENOTSUP : -EINVAL;
	}
	if (t)
		trace_add(t, "reg[%d] ", index);
	r = translate(fdt, c, &w, "ranges", cells, *size, addr, t, err, errlen);
	if (r < 0)
		return r;
	if (*size && *addr + (*size - 1) < *addr) {
		ofl_dt_seterr(err, errlen, "%s: reg entry %d [0x%llx, +0x%llx) wraps the address space", p,
			      index, (unsigned long long)*addr, (unsigned long long)*size);
		return -EOVERFLOW;
	}
	if (t && !t->steps)
		trace_add(t, "0x%llx: every parent's ranges is identity", (unsigned long long)*addr);
	return 0;
}

int ofl_dt_reg_chain(const void *fdt, const struct ofl_dt_chain *c, int index, uint64_t *addr,
		     uint64_t *size, char *err, size_t errlen)
{
	return reg_lookup(fdt, c, index, addr, size, NULL, err, errlen);
}

int ofl_dt_reg_explain(const void *fdt, const struct ofl_dt_chain *c, int index, uint64_t *addr,
		       uint64_t *size, char *why, size_t whylen)
{
	struct trace t = { why, whylen, 0, 0 };

	if (whylen)
		why[0] = '\0';
	int r = reg_lookup(fdt, c, index, addr, size, &t, why, whylen);
	return r;
}

int ofl_dt_reg(const void *fdt, int node, int index, uint64_t *addr, uint64_t *size, char *err,
	       size_t errlen)
{
	struct ofl_dt_chain c;

	if (ofl_dt_chain(fdt, node, &c) < 0) {
		ofl_dt_seterr(err, errlen, "offset %d is not a node of this device tree", node);
		return -EINVAL;
	}
	return reg_lookup(fdt, &c, index, addr, size, NULL, err, errlen);
}

int ofl_dt_reg_by_name(const void *fdt, int node, const char *name, uint64_t *addr,
		       uint64_t *size, char *err, size_t errlen)
{
	int idx = fdt_stringlist_search(fdt, node, "reg-names", name);

	if (idx < 0) {
		char p[OFL_DT_PATH_LEN];
		ofl_dt_path(fdt, node, p, sizeof(p));
		ofl_dt_seterr(err, errlen, "%s has no reg-names entry \"%s\"", p, name);
		return -ENOENT;
	}
	return ofl_dt_reg(fdt, node, idx, addr, size, err, errlen);
}

/* ---------------------------------------------------------------- DMA */

int ofl_dt_dma_coherent_chain(const void *fdt, const struct ofl_dt_chain *c, int *decider)
{
	struct walk w;

	*decider = -1;
	if (walk_build(fdt, c, true, false, &w, NULL, 0) < 0)
		return -EINVAL;
	for (int i = 0; i < w.n; i++) {
		if (ofl_dt_has_prop(fdt, w.h[i].node, "dma-coherent")) {
			*decider = w.h[i].node;
			return 1;
		}
		if (ofl_dt_has_prop(fdt, w.h[i].node, "dma-noncoherent")) {
			*decider = w.h[i].node;
			return 0;
		}
	}
	return 0;
}

int ofl_dt_dma_coherent(const void *fdt, int node, int *decider)
{
	struct ofl_dt_chain c;

	*decider = -1;
	if (ofl_dt_chain(fdt, node, &c) < 0)
		return -EINVAL;
	return ofl_dt_dma_coherent_chain(fdt, &c, decider);
}

/*
 * Linux of_dma_get_range(): starting at the DMA parent, the first node with
 * a non-empty `dma-ranges`; an absent one after the first step means none.
 * Returns its index in w, or -1 (identity).
 */
static int find_dma_ranges(const void *fdt, const struct walk *w)
{
	bool found = false;

	for (int j = 1; j < w->n; j++) {
		int len;
		const void *r = fdt_getprop(fdt, w->h[j].node, "dma-ranges", &len);
		if (r && len > 0)
			return j;
		if (found && !r)
			return -1;
		found = true;
	}
	return -1;
}

int ofl_dt_dma_translate(const void *fdt, int node, uint64_t cpu_addr, uint64_t *bus_addr,
			 char *err, size_t errlen)
{
	struct ofl_dt_chain c;
	struct walk w;
	char p[OFL_DT_PATH_LEN];
	int len, valid = 0, wraps = 0;

	if (ofl_dt_chain(fdt, node, &c) < 0) {
		ofl_dt_seterr(err, errlen, "offset %d is not a node of this device tree", node);
		return -EINVAL;
	}
	if (walk_build(fdt, &c, true, true, &w, err, errlen) < 0)
		return -EINVAL;
	int j = find_dma_ranges(fdt, &w);
	if (j < 0) {
		*bus_addr = cpu_addr;
		return 0;
	}
	const struct hop *h = &w.h[j];
	hop_path(fdt, &c, h, p, sizeof(p));
	uint32_t na = h->own_na, ns = h->own_ns, pna = h->na, fna = flag_cells(h->kind);
	if (na < 1 || na > MAX_CELLS || ns < 1 || ns > MAX_CELLS || pna < 1 || pna > MAX_CELLS) {
		ofl_dt_seterr(err, errlen, "dma-ranges of %s: cell counts %u/%u/%u (bus/parent/size) are "
			      "not 1..4", p, na, pna, ns);
		return -EINVAL;
	}
	const uint8_t *dr = fdt_getprop(fdt, h->node, "dma-ranges", &len);
	uint32_t rone = na + pna + ns, e[3 * MAX_CELLS];
	struct walk sub = { .n = w.n - j };
	memcpy(sub.h, &w.h[j], (size_t)sub.n * sizeof(sub.h[0]));
	for (uint32_t k = 0; dr && k < (uint32_t)len / 4 / rone; k++) {
		uint64_t busa, cpu, size;
		load_cells(dr + 4 * (size_t)k * rone, rone, e);
		if (read_num(e + fna, na - fna, &busa) || read_num(e + na + pna, ns, &size) ||
		    translate(fdt, &c, &sub, "dma-ranges", e + na, 0, &cpu, NULL, NULL, 0) < 0)
			continue;
		/* a window that wraps past 2^64 on either side is not translatable (as reg, ranges) */
		if (size && (busa + (size - 1) < busa || cpu + (size - 1) < cpu)) {
			wraps++;
			continue;
		}
		valid++;
		if (cpu_addr >= cpu && cpu_addr - cpu < size) {
			*bus_addr = cpu_addr - cpu + busa;
			return 0;
		}
	}
	if (!valid) {
		ofl_dt_seterr(err, errlen, "no dma-ranges entry of %s translates to a CPU address%s", p,
			      wraps ? " (an entry whose bus or CPU window wraps the 64-bit address "
				      "space is not translatable)" : "");
		return -EINVAL;
	}
	ofl_dt_seterr(err, errlen, "CPU address 0x%llx is outside every dma-ranges window of %s",
		      (unsigned long long)cpu_addr, p);
	return -ERANGE;
}
