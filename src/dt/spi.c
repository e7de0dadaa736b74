/* SPDX-License-Identifier: MIT */
/*
 * SPI peripheral (child) nodes of a controller, read the way Linux reads
 * them in drivers/spi/spi.c of_spi_parse_dt() and spi-fsl-dspi.c
 * dspi_setup() (facts in shared/hw/dspi.md section 1.3).
 */
#include <libfdt.h>
#include <string.h>

#include <offload/spi.h>

#include "core/internal.h"

/* A u32 property, or `def` when absent or shorter than one cell. */
static uint32_t prop_u32(const void *fdt, int node, const char *name, uint32_t def)
{
	int len = 0;
	const fdt32_t *p = fdt_getprop(fdt, node, name, &len);

	if (!p || len < (int)sizeof(*p))
		return def;
	return fdt32_ld(p);
}

static bool prop_bool(const void *fdt, int node, const char *name)
{
	return fdt_getprop(fdt, node, name, NULL) != NULL;
}

/* First string of a string-list property, NULL if absent or not terminated. */
static const char *prop_first_string(const void *fdt, int node, const char *name)
{
	int len = 0;
	const char *p = fdt_getprop(fdt, node, name, &len);

	if (!p || len <= 0 || !memchr(p, '\0', (size_t)len))
		return NULL;
	return p;
}

/*
 * spi-tx-bus-width / spi-rx-bus-width: 2 and 4 select dual and quad lanes.
 * Linux also knows 8 (octal), which this API cannot express; it is left
 * single-lane here, as is anything else Linux would warn about.
 */
static uint32_t lanes(const void *fdt, int node, const char *name, uint32_t dual, uint32_t quad)
{
	switch (prop_u32(fdt, node, name, 1)) {
	case 2: return dual;
	case 4: return quad;
	default: return 0;
	}
}

static void read_child(const void *fdt, int node, uint32_t cs, struct ofl_dt_spi_child *c)
{
	memset(c, 0, sizeof(*c));
	c->node = node;
	c->chip_select = cs;
	c->max_frequency_hz = prop_u32(fdt, node, "spi-max-frequency", 0);
	if (prop_bool(fdt, node, "spi-cpha"))
		c->mode |= OFFLOAD_SPI_CPHA;
	if (prop_bool(fdt, node, "spi-cpol"))
		c->mode |= OFFLOAD_SPI_CPOL;
	if (prop_bool(fdt, node, "spi-cs-high"))
		c->mode |= OFFLOAD_SPI_CS_HIGH;
	if (prop_bool(fdt, node, "spi-lsb-first"))
		c->mode |= OFFLOAD_SPI_LSB_FIRST;
	if (prop_bool(fdt, node, "spi-3wire"))
		c->mode |= OFFLOAD_SPI_3WIRE;
	c->mode |= lanes(fdt, node, "spi-tx-bus-width", OFFLOAD_SPI_TX_DUAL, OFFLOAD_SPI_TX_QUAD);
	c->mode |= lanes(fdt, node, "spi-rx-bus-width", OFFLOAD_SPI_RX_DUAL, OFFLOAD_SPI_RX_QUAD);
	/*
	 * The generic properties win; the deprecated Freescale ones are used
	 * only when the generic delay is 0 or absent (spi-fsl-dspi.c
	 * dspi_setup(), hw/dspi.md section 1.3).
	 */
	c->cs_setup_ns = prop_u32(fdt, node, "spi-cs-setup-delay-ns", 0);
	if (c->cs_setup_ns == 0)
		c->cs_setup_ns = prop_u32(fdt, node, "fsl,spi-cs-sck-delay", 0);
	c->cs_hold_ns = prop_u32(fdt, node, "spi-cs-hold-delay-ns", 0);
	if (c->cs_hold_ns == 0)
		c->cs_hold_ns = prop_u32(fdt, node, "fsl,spi-sck-cs-delay", 0);
	c->compatible = prop_first_string(fdt, node, "compatible");
	c->enabled = ofl_dt_enabled(fdt, node, NULL);
}

int ofl_dt_spi_children(const void *fdt, int controller, struct ofl_dt_spi_child *out, int max)
{
	int node, count = 0;

	if (!fdt || controller < 0 || max < 0 || (max > 0 && !out))
		return -EINVAL;
	fdt_for_each_subnode(node, fdt, controller) {
		int len = 0;
		const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);

		/* Nodes without a chip select (e.g. a "slave" node) are not peripherals. */
		if (!reg || len < (int)sizeof(*reg))
			continue;
		if (count < max)
			read_child(fdt, node, fdt32_ld(reg), &out[count]);
		count++;
	}
	if (node < 0 && node != -FDT_ERR_NOTFOUND)
		return -EINVAL;
	return count;
}
