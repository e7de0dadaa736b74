/* SPDX-License-Identifier: MIT */
/*
 * src/dt: the device tree, on libfdt. Loads and validates a blob, finds the
 * nodes a caller's match lists name and reads what the policy and the
 * backends need. A leaf: it includes nothing of the library but src/util. Works on
 * the blob in place like libfdt; nothing here allocates except the loaders.
 *
 * Every function that can fail returns a negative errno and, where an `err`
 * buffer is given, a sentence naming the node path or blob offset that failed.
 * Functions other than the loaders and ofl_dt_validate() expect a blob that
 * ofl_dt_validate() accepted (the loaders guarantee it).
 *
 * Semantics follow Linux (drivers/of/base.c, address.c, of_reserved_mem.c):
 * #address-cells/#size-cells are inherited from the nearest ancestor that has
 * them (default 1/1), `ranges` absent = not translatable, `dma-ranges` absent
 * = identity, a node whose `interconnect-names` holds "dma-mem" has the
 * `interconnects` target as its DMA parent.
 */
#ifndef OFL_DT_H
#define OFL_DT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest node nesting accepted (real trees stay below 10). */
#define OFL_DT_MAX_DEPTH 64
/* Longest node path kept in messages and device info. */
#define OFL_DT_PATH_LEN 256

/* A loaded, validated blob. */
struct ofl_dt {
	const void *fdt;   /* NULL when there is no device tree */
	size_t size;
	void *owned;       /* allocation to free, or NULL */
	char source[300];  /* "file:PATH", "live:/sys/firmware/fdt", "builtin:virtual-board", "blob", "none" */
};

/* Loaders: fill *dt; on error *dt is empty and err says why (path/offset). */
int ofl_dt_load_file(struct ofl_dt *dt, const char *path, char *err, size_t errlen);
int ofl_dt_load_blob(struct ofl_dt *dt, const void *blob, size_t size, char *err, size_t errlen);
int ofl_dt_load_live(struct ofl_dt *dt, char *err, size_t errlen);
/*
 * The built-in virtual board from `blob` (liboffload-sim's, see
 * src/platform/sim_provider.h), source "builtin:virtual-board"; -ENOTSUP
 * when blob is NULL (no models), else as ofl_dt_load_blob().
 */
int ofl_dt_load_builtin(struct ofl_dt *dt, const void *blob, size_t size, char *err, size_t errlen);
void ofl_dt_free(struct ofl_dt *dt);

/*
 * Full structural validation: header fields and block bounds, the memory
 * reservation map, every structure-block tag (node names, property lengths,
 * string offsets, nesting), and the rules libfdt's fdt_check_full() adds
 * (it refuses nothing this does not). The message names the blob offset
 * and, inside the structure block, the node path. A blob that is not 8-byte
 * aligned is refused. Returns 0 or -EINVAL.
 */
int ofl_dt_validate(const void *fdt, size_t size, char *err, size_t errlen);

/*
 * Path of a node into buf ("/" for the root). A path longer than buf gives
 * "<node at offset N>" and -EINVAL: for messages only.
 */
int ofl_dt_path(const void *fdt, int node, char *buf, size_t len);
/* The full path of a node, however long, in a malloc()ed string; NULL if out of memory. */
char *ofl_dt_path_dup(const void *fdt, int node);

/*
 * Linux of_device_is_available(): `status` absent, "okay" or "ok" => enabled;
 * an empty or other value => disabled. *status gets the raw string, "okay"
 * when absent, "" when empty or not NUL-terminated.
 */
bool ofl_dt_enabled(const void *fdt, int node, const char **status);

/* A u32 property (first cell); false if absent or shorter than 4 bytes. */
bool ofl_dt_prop_u32(const void *fdt, int node, const char *name, uint32_t *val);
/* Does the node have the property (any length; Linux of_property_read_bool)? */
bool ofl_dt_has_prop(const void *fdt, int node, const char *name);
/*
 * Does the u32 array property `name` list `v`? *present says whether the
 * property exists at all (a trailing partial cell is ignored).
 */
bool ofl_dt_prop_lists_u32(const void *fdt, int node, const char *name, uint32_t v, bool *present);
/*
 * The node a one-cell phandle property points at: its offset, -ENOENT when
 * the property is absent, -EINVAL when it is not one cell or names no node.
 */
int ofl_dt_phandle(const void *fdt, int node, const char *name);
/*
 * The node whose phandle is ph, as libfdt's fdt_node_offset_by_phandle()
 * finds it (the first in tree order; a node's phandle is its first
 * "phandle" property if that is one cell, else its first "linux,phandle"),
 * in one pass over the structure block: fdt_node_offset_by_phandle() reads
 * every node's properties again by name, 0.5 M instructions per lookup in the
 * 122 KB J721E tree. -EINVAL for phandle 0 or 0xffffffff or a bad blob,
 * -ENOENT when no node has it.
 */
int ofl_dt_node_by_phandle(const void *fdt, uint32_t ph);

/*
 * The nodes from the root down to `node`: off[0] is the root, off[n-1] the
 * node. Found in one pass over the blob (libfdt has no parent links).
 */
struct ofl_dt_chain {
	int n;
	int off[OFL_DT_MAX_DEPTH];
};
/* Returns 0, or -EINVAL if node is not a node offset of this blob. */
int ofl_dt_chain(const void *fdt, int node, struct ofl_dt_chain *c);
/* Path of c->off[level] built from the chain (no blob scan). */
void ofl_dt_chain_path(const void *fdt, const struct ofl_dt_chain *c, int level, char *buf,
		       size_t len);

/*
 * One entry of a match list: a compatible string and what it means to the
 * caller (Linux's struct of_device_id). src/dt knows no engine: the caller
 * passes the lists (the engines' match tables).
 */
struct ofl_dt_id {
	const char *compatible;
	const void *data;
};

/* A discovered node. */
struct ofl_dt_match {
	int node;                   /* offset in the blob */
	const struct ofl_dt_id *id; /* the entry that matched (points into the caller's list) */
	unsigned list;              /* index of the list that entry is in */
};

/*
 * Find every node whose `compatible` names an entry of one of the `nlists`
 * lists (each terminated by an entry with a NULL compatible), in blob order,
 * each node once: the earliest string of a node's `compatible` list that any
 * list knows decides (Linux's most-specific match, of_match_node()); for the
 * same string the earlier list wins. Disabled nodes are found too (the
 * caller decides what status means). Returns the number found (may exceed
 * max; only max are written), or -EINVAL on a malformed blob.
 */
int ofl_dt_discover(const void *fdt, const struct ofl_dt_id *const *lists, unsigned nlists,
		    struct ofl_dt_match *out, int max);
/* The entry of the lists that `compatible` names, or NULL (*list gets its list's index). */
const struct ofl_dt_id *ofl_dt_id_lookup(const struct ofl_dt_id *const *lists, unsigned nlists,
					 const char *compatible, unsigned *list);

/*
 * reg entry `index` of `node`, translated to a CPU physical address through
 * every parent's `ranges` (Linux of_address_to_resource()). -ENOENT if there
 * is no such entry (or no `reg`); -EINVAL with a message if a parent lacks
 * `ranges` (not translatable), the address lies outside every `ranges` entry,
 * or a cell count is absurd (#address-cells outside 1..4, #size-cells outside
 * 1..4); -EOVERFLOW if a value does not fit 64 bits or its address space;
 * -ENOTSUP for I/O-space or PCI-config addresses.
 */
int ofl_dt_reg(const void *fdt, int node, int index, uint64_t *addr, uint64_t *size, char *err,
	       size_t errlen);
/* As ofl_dt_reg() for a node whose chain is already known (no blob scan). */
int ofl_dt_reg_chain(const void *fdt, const struct ofl_dt_chain *c, int index, uint64_t *addr,
		     uint64_t *size, char *err, size_t errlen);
/*
 * As ofl_dt_reg_chain(); on success `why` says how the address was found
 * ("reg[0] 0x90000 -> 0xd0090000 by the ranges of /soc/..."), on failure why not.
 */
int ofl_dt_reg_explain(const void *fdt, const struct ofl_dt_chain *c, int index, uint64_t *addr,
		       uint64_t *size, char *why, size_t whylen);
/* As ofl_dt_reg, by `reg-names` entry (-ENOENT if the name is not listed). */
int ofl_dt_reg_by_name(const void *fdt, int node, const char *name, uint64_t *addr,
		       uint64_t *size, char *err, size_t errlen);

/*
 * Linux of_dma_is_coherent(): walking from node up through its DMA parents,
 * the nearest node that has `dma-coherent` (=> 1) or `dma-noncoherent`
 * (=> 0) decides. *decider gets that node's offset, or -1 if none decided
 * (then 0: dma_default_coherent is false on arm and arm64). Returns 1, 0, or
 * -EINVAL (malformed tree, interconnect loop).
 */
int ofl_dt_dma_coherent(const void *fdt, int node, int *decider);
/* As ofl_dt_dma_coherent() for a known chain. */
int ofl_dt_dma_coherent_chain(const void *fdt, const struct ofl_dt_chain *c, int *decider);

/*
 * CPU physical address -> bus address as `node` sees it, through the
 * `dma-ranges` of its DMA parents (Linux of_dma_get_range() +
 * translate_phys_to_dma()). No `dma-ranges` in effect => identity. -ERANGE if
 * cpu_addr is outside every dma-ranges window; -EINVAL if the windows cannot
 * be translated.
 */
int ofl_dt_dma_translate(const void *fdt, int node, uint64_t cpu_addr, uint64_t *bus_addr,
			 char *err, size_t errlen);

/* A /reserved-memory region (one per `reg` entry; `size`-only nodes once). */
struct ofl_dt_rmem {
	int node;
	uint64_t addr, size;
	bool no_map, reusable;
	bool dynamic;           /* only `size` given: the OS placed it at boot, addr = 0 */
	const char *compatible; /* first compatible string, may be NULL */
};
/*
 * The enabled /reserved-memory children (Linux fdt_scan_reserved_mem()).
 * Returns the count (may exceed max), 0 without /reserved-memory, or -EINVAL
 * if /reserved-memory's cells differ from the root's or it has no `ranges`
 * (Linux ignores the whole node then).
 */
int ofl_dt_reserved_memory(const void *fdt, struct ofl_dt_rmem *out, int max);

/* ------------------------------------------------------------------ clocks (src/dt/clock.c) */

/* Most specifier cells of a `clocks` entry read. */
#define OFL_DT_CLOCK_CELLS 4

/*
 * Entry `index` of node's `clocks`: the provider node and its specifier
 * cells (at most OFL_DT_CLOCK_CELLS). 0, or -ENOENT when absent or malformed.
 */
int ofl_dt_clock_entry(const void *fdt, int node, int index, int *provider, uint32_t *cells,
		       uint32_t *ncells);
/* Rate of a fixed-clock provider, or of a chain of fixed-factor-clocks ending in one. 0 or -ENOENT. */
int ofl_dt_clock_fixed_rate(const void *fdt, int provider, uint64_t *hz);

/*
 * What a caller knows of a provider whose rate the tree does not state (its
 * rate is set by the hardware configuration): for `compatible` with the
 * specifier `cells`, the rate is the provider's first input (a fixed clock)
 * x mult / div.
 */
struct ofl_dt_clock_rule {
	const char *compatible;
	uint32_t ncells, cells[OFL_DT_CLOCK_CELLS];
	uint32_t mult, div;
};
struct ofl_dt_clock {
	uint64_t hz;
	uint64_t parent_hz;                   /* with a rule: the input rate it was derived from */
	const struct ofl_dt_clock_rule *rule; /* the rule that gave the rate, NULL if the tree did */
};
/*
 * The rate of `node`'s clock as the device tree states it: its own
 * `clock-frequency`, else the `clocks` entry `name` names in `clock-names`
 * (the first entry when name is NULL or not listed) if that is a fixed clock
 * (fixed-factor chains followed up to 8 levels), else one of the caller's
 * `rules`. 0 with *out and a sentence in `how`, or -ENOENT with the reason.
 */
int ofl_dt_clock_rate(const void *fdt, int node, const char *name,
		      const struct ofl_dt_clock_rule *rules, size_t nrules, struct ofl_dt_clock *out,
		      char *how, size_t how_len);

/* An SPI peripheral child node of a controller (a child with a `reg`). */
struct ofl_dt_spi_child {
	int node;
	uint32_t chip_select;        /* first cell of reg; meaningful only if !reg_error[0] */
	/*
	 * Why `reg` names no chip select, "" when it does: shorter than one
	 * cell, more cells than Linux reads, a value that does not fit Linux's
	 * 8-bit chip select, or not below the controller's num-cs.
	 */
	char reg_error[128];
	uint32_t max_frequency_hz;   /* spi-max-frequency, 0 if absent */
	uint32_t mode;               /* OFFLOAD_SPI_* bits from spi-cpol/cpha/lsb-first/cs-high/3wire */
	uint32_t cs_setup_ns;        /* spi-cs-setup-delay-ns, else fsl,spi-cs-sck-delay */
	uint32_t cs_hold_ns;         /* spi-cs-hold-delay-ns, else fsl,spi-sck-cs-delay */
	const char *compatible;      /* first compatible, may be NULL */
	bool enabled;
};
/*
 * Implemented in src/dt/spi.c (the SPI module). Every child with a `reg`
 * property is counted and written, valid chip select or not (reg_error).
 */
int ofl_dt_spi_children(const void *fdt, int controller, struct ofl_dt_spi_child *out, int max);
/* The controller's spi-num-chipselects or num-cs, 0 when it declares neither. */
uint32_t ofl_dt_spi_num_cs(const void *fdt, int controller);

#endif /* OFL_DT_H */
