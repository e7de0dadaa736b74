/* SPDX-License-Identifier: MIT */
/*
 * src/dt: the device tree, on libfdt. Loads and validates a blob, finds the
 * engines' nodes and reads what the policy and the backends need. Works on
 * the blob in place like libfdt; nothing here allocates except the loaders.
 *
 * Every function that can fail returns a negative errno and, where an `err`
 * buffer is given, a sentence naming the node path or blob offset that failed.
 */
#ifndef OFL_DT_H
#define OFL_DT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Engine kinds found in device trees (bit positions for ofl_backend.engines). */
enum ofl_engine {
	OFL_ENGINE_NONE = 0,
	OFL_ENGINE_UDMA = 1,    /* K3 NAVSS UDMA-P */
	OFL_ENGINE_BCDMA = 2,   /* K3 DMSS BCDMA */
	OFL_ENGINE_PKTDMA = 3,  /* K3 DMSS PKTDMA */
	OFL_ENGINE_DSPI = 4,    /* NXP DSPI */
	OFL_ENGINE_EIP97 = 5,   /* SafeXcel EIP97 */
	OFL_ENGINE_EIP197 = 6,  /* SafeXcel EIP197 */
	OFL_ENGINE_COUNT
};
#define OFL_ENGINE_BIT(e) (1u << (e))

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
int ofl_dt_load_builtin(struct ofl_dt *dt, char *err, size_t errlen);
void ofl_dt_free(struct ofl_dt *dt);

/* Full structural validation (fdt_check_full or equivalent). */
int ofl_dt_validate(const void *fdt, size_t size, char *err, size_t errlen);

/* Path of a node into buf ("/" for the root). */
int ofl_dt_path(const void *fdt, int node, char *buf, size_t len);

/* status absent, "okay" or "ok" => enabled. *status gets the raw string or "okay". */
bool ofl_dt_enabled(const void *fdt, int node, const char **status);

/* A discovered engine node. */
struct ofl_dt_match {
	int node;                   /* offset in the blob */
	enum ofl_engine engine;
	const char *compatible;     /* the compatible string that matched (points into the table) */
	const struct ofl_soc_entry *soc; /* capability-table row (src/policy) */
};

/*
 * Find every engine node by every compatible in the capability table, in
 * blob order, each node once. Returns the number found (may exceed max;
 * only max are written), or -errno.
 */
int ofl_dt_discover(const void *fdt, struct ofl_dt_match *out, int max);

/*
 * reg entry `index` of `node`, translated to a CPU physical address through
 * every parent's `ranges`. -ENOENT if there is no such entry; -EINVAL with a
 * message if a parent lacks `ranges` (not translatable) or cells are absurd.
 */
int ofl_dt_reg(const void *fdt, int node, int index, uint64_t *addr, uint64_t *size, char *err,
	       size_t errlen);
/* As ofl_dt_reg, by `reg-names` entry. */
int ofl_dt_reg_by_name(const void *fdt, int node, const char *name, uint64_t *addr,
		       uint64_t *size, char *err, size_t errlen);

/*
 * Linux of_dma_is_coherent(): the nearest of node and its ancestors that has
 * `dma-coherent` or `dma-noncoherent` decides. Returns 1 coherent / 0 not;
 * *decider gets that node's offset, or -1 if none decided (default: not).
 */
int ofl_dt_dma_coherent(const void *fdt, int node, int *decider);

/* CPU physical address -> bus address as `node` sees it, through dma-ranges. */
int ofl_dt_dma_translate(const void *fdt, int node, uint64_t cpu_addr, uint64_t *bus_addr,
			 char *err, size_t errlen);

/* A /reserved-memory child. */
struct ofl_dt_rmem {
	int node;
	uint64_t addr, size;
	bool no_map, reusable;
	const char *compatible; /* may be NULL */
};
int ofl_dt_reserved_memory(const void *fdt, struct ofl_dt_rmem *out, int max);

/* An SPI peripheral child node of a controller. */
struct ofl_dt_spi_child {
	int node;
	uint32_t chip_select;        /* first cell of reg */
	uint32_t max_frequency_hz;   /* spi-max-frequency, 0 if absent */
	uint32_t mode;               /* OFFLOAD_SPI_* bits from spi-cpol/cpha/lsb-first/cs-high/3wire */
	uint32_t cs_setup_ns;        /* spi-cs-setup-delay-ns, else fsl,spi-cs-sck-delay */
	uint32_t cs_hold_ns;         /* spi-cs-hold-delay-ns, else fsl,spi-sck-cs-delay */
	const char *compatible;      /* first compatible, may be NULL */
	bool enabled;
};
int ofl_dt_spi_children(const void *fdt, int controller, struct ofl_dt_spi_child *out, int max);

#endif /* OFL_DT_H */
