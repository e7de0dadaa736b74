/* SPDX-License-Identifier: MIT */
/*
 * The SPI op table a backend provides (backend.h forward-declares it), and
 * what src/core/spi.c hands to it.
 *
 * The core resolves a path into a struct ofl_spi_cfg (DT child properties,
 * options), validates every message against the rules all SPI backends share
 * (drivers/spi/spi.c __spi_validate) and splits it into parts that fit the
 * backend's struct ofl_spi_limits. A backend therefore only ever sees
 * validated parts that fit: the kernel path (backends/spidev) and a direct
 * register-level driver (backends/dspi) both fit this table; they differ in
 * their limits (spidev: bufsiz per direction with ARCH_DMA_MINALIGN
 * rounding, 511 transfers, per-transfer clock ignored by spi-fsl-dspi; a
 * direct driver: no byte budget, its own word sizes and mode bits).
 */
#ifndef OFL_DRIVER_SPI_H
#define OFL_DRIVER_SPI_H

#include <stdbool.h>
#include <stdint.h>

#include <offload/spi.h>

#include "dt/dt.h"

struct offload_ctx;
struct ofl_backend;
struct ofl_device;

/* What the handle was asked to be: filled by the core, refined by the backend. */
struct ofl_spi_cfg {
	const char *path;          /* as the user gave it */
	char spidev[64];           /* "/dev/spidevB.C" when the user named one, else "" */
	char dt_path[256];         /* child node path ("" if none or unknown) */
	char ctrl_path[256];       /* controller node path ("" if unknown) */
	struct ofl_device *dev;    /* the controller's device in the context, or NULL */
	const struct ofl_backend *owner; /* the controller's engine, NULL if unknown */
	int chip_select;           /* -1 while unknown */
	bool mode_set;             /* mode must be programmed (from the DT or opts) */
	uint32_t mode;             /* OFFLOAD_SPI_* bits */
	uint32_t mode_dt_lanes;    /* TX/RX_DUAL/QUAD bits that came from DT bus widths */
	uint32_t max_speed_hz;     /* default clock, 0 = keep the device's current one */
	uint8_t bits_per_word;     /* default word size, 1..32 */
	uint32_t cs_setup_ns;      /* from the DT child, informational for kernel paths */
	uint32_t cs_hold_ns;
	uint32_t flags;            /* OFFLOAD_SPI_OPEN_* */
};

/* What one call of ops->xfer can take; the core splits messages to fit. */
struct ofl_spi_limits {
	uint32_t max_xfers;        /* transfers per call, >= 1 */
	uint32_t budget;           /* bytes per direction per call, 0 = no limit */
	uint32_t align;            /* each transfer's length is rounded up to this against budget */
	uint32_t bpw_mask;         /* bit b-1 set: b bits per word accepted (all ones: the kernel decides) */
	bool per_xfer_speed;       /* a transfer's speed_hz is honoured */
	bool cs_hold;              /* cs_change on a call's last transfer keeps CS asserted into the next */
	const char *bpw_why;       /* why bpw_mask leaves sizes out (a static sentence), or NULL */
	const char *no_hold_why;   /* why cs_hold is false (a static sentence), or NULL */
};

struct ofl_spi_ops {
	/*
	 * Bind the handle described by cfg. The backend may fill in what it
	 * learns (chip_select, mode, max_speed_hz and bits_per_word read back,
	 * paths found through sysfs) and must fill *lim. Returns 0, -ENODEV when
	 * it cannot reach this device at all (the core then tries the next
	 * backend), or another -errno that ends the open. `why` gets a sentence
	 * either way when there is something to say.
	 */
	int (*open)(struct offload_ctx *ctx, void *bstate, struct ofl_spi_cfg *cfg, void **priv,
		    struct ofl_spi_limits *lim, char *why, size_t why_len);
	/*
	 * Run n (1..lim->max_xfers) validated transfers as one message; their
	 * buffers fit lim->budget. `total` is the sum of len. Returns total, or a
	 * -errno after recording a message with ofl_err().
	 */
	int (*xfer)(void *priv, const struct offload_spi_xfer *x, unsigned n, uint32_t total);
	/*
	 * A call failed after an earlier call left CS asserted (cs_change on its
	 * last transfer): make sure CS is released without clocking anything.
	 * Returns 1 if something was sent, 0 if CS was already released (the
	 * failure itself released it), -errno if releasing failed.
	 */
	int (*release_cs)(void *priv);
	/*
	 * Optional: refuse transfer t (word size bpw, already resolved) for a
	 * reason only this backend knows, before anything of the message is
	 * sent. Returns 0, or -errno with a sentence in why.
	 */
	int (*check)(const void *priv, const struct offload_spi_xfer *t, unsigned bpw, char *why,
		     size_t why_len);
	/*
	 * Optional: change an open handle's settings. cfg is the handle's
	 * configuration with the new max_speed_hz and, when `mode` is true, the
	 * new mode (mode_set true, no DT lanes); the backend refines it as at
	 * open (mode and clock in effect). On failure the device keeps the
	 * settings it had (the backend restores what it changed) and cfg is not
	 * used. Returns 0, or -errno with a sentence in why.
	 */
	int (*set)(void *priv, struct ofl_spi_cfg *cfg, bool mode, char *why, size_t why_len);
	void (*close)(void *priv);
	/* Fill backend, flags, actual_speed_hz and max_message_bytes. */
	void (*info)(const void *priv, struct offload_spi_info *info);
};

/*
 * Whether the controller at node `ctrl` gives chip select `cs` a GPIO (its
 * cs-gpios entry has a non-zero phandle). false when fdt is NULL.
 */
bool ofl_spi_cs_is_gpio(const void *fdt, int ctrl, unsigned cs);

/* Parse "spidevB.C" at the end of a path; 0 on success. */
int ofl_spi_parse_spidev_name(const char *path, int *bus, int *cs);

/*
 * The child of controller `ctrl` at `node` (node >= 0) or with reg == cs
 * (node < 0): 0, -ENOENT, -ENOMEM, or the -errno of ofl_dt_spi_children().
 */
int ofl_spi_find_child(const void *fdt, int ctrl, int node, uint32_t cs, struct ofl_dt_spi_child *out);

/*
 * Once a backend has found cfg->ctrl_path (and cfg->dt_path) for a spidev
 * path: the controller's device and engine in the context and the child's
 * CS delays, when the context's device tree has those nodes.
 */
void ofl_spi_cfg_from_dt(struct offload_ctx *ctx, struct ofl_spi_cfg *cfg);

#endif /* OFL_DRIVER_SPI_H */
