/* SPDX-License-Identifier: MIT */
/*
 * What the SPI backends and src/core/spi.c share: spidev device names, and
 * the device-tree facts of an SPI controller and its peripheral nodes.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "driver/spi.h"

/*
 * cs-gpios lists one entry per chip select: a phandle and #gpio-cells
 * specifier cells, or a lone 0 for a native one (Linux
 * Documentation/devicetree/bindings/spi/spi-controller.yaml; read by
 * drivers/spi/spi.c spi_get_gpio_descs()).
 */
bool ofl_spi_cs_is_gpio(const void *fdt, int node, unsigned cs)
{
	int len = 0;
	const fdt32_t *p = fdt && node >= 0 ? fdt_getprop(fdt, node, "cs-gpios", &len) : NULL;
	unsigned n = 0;

	for (int at = 0; p && at < len / 4; n++) {
		uint32_t ph = fdt32_to_cpu(p[at]);
		uint32_t cells = 0;
		if (ph) {
			int ctl = fdt_node_offset_by_phandle(fdt, ph);
			int cl = 0;
			const fdt32_t *gc = ctl >= 0 ? fdt_getprop(fdt, ctl, "#gpio-cells", &cl) : NULL;
			cells = gc && cl >= 4 ? fdt32_to_cpu(*gc) : 2u;
		}
		if (n == cs)
			return ph != 0;
		at += 1 + (int)cells;
	}
	return false;
}

int ofl_spi_parse_spidev_name(const char *path, int *bus, int *cs)
{
	const char *base = strrchr(path, '/');
	int b, c, end = 0;

	base = base ? base + 1 : path;
	if (sscanf(base, "spidev%d.%d%n", &b, &c, &end) != 2 || base[end] != '\0' || b < 0 || c < 0)
		return -EINVAL;
	if (bus)
		*bus = b;
	if (cs)
		*cs = c;
	return 0;
}

int ofl_spi_find_child(const void *fdt, int ctrl, int node, uint32_t cs, struct ofl_dt_spi_child *out)
{
	struct ofl_dt_spi_child kids[32];
	int n = ofl_dt_spi_children(fdt, ctrl, kids, (int)OFL_ARRAY_SIZE(kids));

	if (n < 0)
		return n;
	if (n > (int)OFL_ARRAY_SIZE(kids)) {
		/* More children than the buffer: walk again without one. */
		struct ofl_dt_spi_child *all = calloc((size_t)n, sizeof(*all));
		if (!all)
			return -ENOMEM;
		n = ofl_dt_spi_children(fdt, ctrl, all, n);
		int r = -ENOENT;
		for (int i = 0; i < n && r; i++)
			if (node >= 0 ? all[i].node == node
				      : !all[i].reg_error[0] && all[i].chip_select == cs) {
				*out = all[i];
				r = 0;
			}
		free(all);
		return r;
	}
	for (int i = 0; i < n; i++)
		if (node >= 0 ? kids[i].node == node : !kids[i].reg_error[0] && kids[i].chip_select == cs) {
			*out = kids[i];
			return 0;
		}
	return -ENOENT;
}

void ofl_spi_cfg_from_dt(struct offload_ctx *ctx, struct ofl_spi_cfg *cfg)
{
	const void *fdt = ofl_drv(ctx)->dt.fdt;
	struct ofl_dt_spi_child child;

	if (!fdt || cfg->dev || !cfg->ctrl_path[0])
		return;
	int ctrl = fdt_path_offset(fdt, cfg->ctrl_path);
	if (ctrl < 0)
		return;
	cfg->dev = ofl_ctx_device_by_node(ctx, ctrl);
	if (cfg->dev && !cfg->owner)
		cfg->owner = cfg->dev->owner;
	int node = cfg->dt_path[0] ? fdt_path_offset(fdt, cfg->dt_path) : -1;
	if (node >= 0 && ofl_spi_find_child(fdt, ctrl, node, 0, &child) == 0) {
		cfg->cs_setup_ns = child.cs_setup_ns;
		cfg->cs_hold_ns = child.cs_hold_ns;
	}
}
