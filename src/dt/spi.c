/* SPDX-License-Identifier: MIT */
/*
 * SPI peripheral (child) nodes of a controller, read the way Linux reads
 * them in drivers/spi/spi.c of_spi_parse_dt() and spi-fsl-dspi.c
 * dspi_setup().
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include <offload/spi.h>

#include "dt/dt.h"
#include "util/util.h"

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

/*
 * Linux reads a peripheral's `reg` in drivers/spi/spi.c of_spi_parse_dt()
 * with of_property_read_variable_u32_array(.., 1, SPI_CS_CNT_MAX): one to
 * four whole cells, else "has no valid 'reg' property". Each value becomes
 * a u8 of struct spi_device's chip_select[], and __spi_add_device() refuses
 * one not below the controller's num_chipselect ("cs%d >= max %d").
 */
#define OFL_SPI_CS_CNT_MAX 4
#define OFL_SPI_CS_LIMIT 256

uint32_t ofl_dt_spi_num_cs(const void *fdt, int controller)
{
	static const char *const names[] = { "spi-num-chipselects", "num-cs" };

	for (size_t i = 0; i < OFL_ARRAY_SIZE(names); i++) {
		int len = 0;
		const fdt32_t *p = fdt_getprop(fdt, controller, names[i], &len);
		if (p && len >= (int)sizeof(*p))
			return fdt32_ld(p);
	}
	return 0;
}

static void check_reg(const fdt32_t *reg, int len, uint32_t ncs, struct ofl_dt_spi_child *c)
{
	char *e = c->reg_error;
	size_t el = sizeof(c->reg_error);

	if (len < (int)sizeof(*reg)) {
		snprintf(e, el, "its reg is %d byte(s), less than one 32-bit cell, so it names no chip "
			 "select (Linux of_spi_parse_dt(): no valid 'reg')", len);
		return;
	}
	if ((size_t)len > OFL_SPI_CS_CNT_MAX * sizeof(*reg)) {
		snprintf(e, el, "its reg has %d cells; Linux of_spi_parse_dt() reads at most %d chip "
			 "selects", len / (int)sizeof(*reg), OFL_SPI_CS_CNT_MAX);
		return;
	}
	c->chip_select = fdt32_ld(reg);
	if (c->chip_select >= OFL_SPI_CS_LIMIT)
		snprintf(e, el, "its reg <0x%x> is not a chip select: Linux keeps a chip select in 8 "
			 "bits (struct spi_device)", c->chip_select);
	else if (ncs && c->chip_select >= ncs)
		snprintf(e, el, "its reg <%u> is not below the controller's %u chip selects (Linux "
			 "__spi_add_device(): cs >= max)", c->chip_select, ncs);
}

static void read_child(const void *fdt, int node, const fdt32_t *reg, int reg_len, uint32_t ncs,
		       struct ofl_dt_spi_child *c)
{
	memset(c, 0, sizeof(*c));
	c->node = node;
	check_reg(reg, reg_len, ncs, c);
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
	 * only when the generic delay is 0 or absent (Linux
	 * drivers/spi/spi-fsl-dspi.c dspi_setup()).
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
	uint32_t ncs = ofl_dt_spi_num_cs(fdt, controller);
	fdt_for_each_subnode(node, fdt, controller) {
		int len = 0;
		const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);

		/* Nodes without reg (e.g. a "slave" node) are not peripherals. */
		if (!reg)
			continue;
		if (count < max)
			read_child(fdt, node, reg, len, ncs, &out[count]);
		count++;
	}
	if (node < 0 && node != -FDT_ERR_NOTFOUND)
		return -EINVAL;
	return count;
}
