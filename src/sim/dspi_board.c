/* SPDX-License-Identifier: MIT */
/*
 * Digital twin of a DSPI node: the controller model with the devtype's FIFO
 * depth, CTAR count and register set (the devtypes of hw/dspi.h topic 2),
 * the protocol clock the tree gives (src/dt/clock.c with the LS1028A twin
 * assumption of src/hw/dspi.h, as the backend reads it), and a device on
 * each enabled child's chip select:
 *  - "liboffload,spi-loopback": a MOSI-to-MISO wire (the virtual board);
 *  - "liboffload,spi-echo": an 8-bit shift register in the node's own mode
 *    and bit order (spi-cpol, spi-cpha, spi-lsb-first), answering each byte
 *    with the one before and logging what it received (dspi_model.h);
 *  - "jedec,spi-nor": a flash answering READ ID with the part's JEDEC ID,
 *    from a more specific compatible of the child when it names a known
 *    part, else from what the board is known to carry at that chip select,
 *    else the N25Q128A (3 V) [model default].
 * Other children get no device (MISO pulled up).
 *
 * JEDEC IDs (manufacturer, memory type, capacity):
 *  - Micron N25Q128A13 (3 V): 20h BAh 18h, 16 MiB: manufacturer 20h assigned
 *    by JEDEC (N25Q family datasheets, "Read Identification"), "JEDEC-standard
 *    2-byte signature (BA18h)" (Micron n25q_128mb_3v_65nm.pdf, Features);
 *  - Micron N25Q128A11 (1.8 V): 20h BBh 18h, 16 MiB: "JEDEC standard two-byte
 *    signature (BB18h)" (Numonyx N25Q128 1.8 V datasheet, Features);
 *  - Eon EN25S64 (1.8 V): 1Ch 38h 17h, 8 MiB (Linux spi-nor eon.c; no
 *    datasheet was available here);
 *  - SST25WF040B (1.8 V): 62h 16h 13h, 512 KiB (Linux spi-nor sst.c; the same
 *    three bytes as the ON Semiconductor LE25S40MB datasheet's JEDEC ID
 *    table, manufacturer code 62h).
 * The same IDs are in Linux drivers/mtd/spi-nor/{micron-st,eon,sst}.c. Bytes
 * after the three read 00h here (Micron sends a UID length 10h and extended
 * ID bytes next: not modelled).
 * Board knowledge: U-Boot's arch/arm/dts/fsl-ls1028a-qds.dtsi names the
 * LS1028A-QDS DSPI flashes per chip select: DSPI0 and DSPI1 CS0 SST25WF040B,
 * CS1 EN25S64, CS2 N25Q128A; DSPI2 CS0 EN25S64 (the Linux tree says only
 * jedec,spi-nor). Its N25Q128A voltage variant is not named; the 1.8 V part
 * is assumed because the two other flashes on those buses are 1.8 V parts.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include <offload/spi.h>

#include "dt/dt.h"
#include "util/util.h"
#include "hw/dspi.h"
#include "sim/dspi_model.h"

struct nor_part {
	const char *name;
	uint8_t id[3];
	uint32_t size;
};

static const struct nor_part parts[] = {
	{ "n25q128a13", { 0x20, 0xBA, 0x18 }, 16u << 20 },
	{ "n25q128a11", { 0x20, 0xBB, 0x18 }, 16u << 20 },
	{ "en25s64", { 0x1C, 0x38, 0x17 }, 8u << 20 },
	{ "sst25wf040b", { 0x62, 0x16, 0x13 }, 512u << 10 },
};

struct board_flash {
	const char *root;  /* board compatible */
	uint64_t ctrl;     /* controller address */
	unsigned cs;
	const char *part;
};

static const struct board_flash board[] = {
	{ "fsl,ls1028a-qds", 0x2100000, 0, "sst25wf040b" },
	{ "fsl,ls1028a-qds", 0x2100000, 1, "en25s64" },
	{ "fsl,ls1028a-qds", 0x2100000, 2, "n25q128a11" },
	{ "fsl,ls1028a-qds", 0x2110000, 0, "sst25wf040b" },
	{ "fsl,ls1028a-qds", 0x2110000, 1, "en25s64" },
	{ "fsl,ls1028a-qds", 0x2110000, 2, "n25q128a11" },
	{ "fsl,ls1028a-qds", 0x2120000, 0, "en25s64" },
};

static const struct nor_part *part_by_name(const char *s)
{
	const char *comma = strchr(s, ',');

	if (comma)
		s = comma + 1;
	for (size_t i = 0; i < OFL_ARRAY_SIZE(parts); i++)
		if (strcmp(parts[i].name, s) == 0)
			return &parts[i];
	return NULL;
}

static const struct nor_part *flash_part(const void *fdt, int child, uint64_t ctrl, unsigned cs)
{
	int n = fdt_stringlist_count(fdt, child, "compatible");

	for (int i = 0; i < n; i++) {
		const char *c = fdt_stringlist_get(fdt, child, "compatible", i, NULL);
		const struct nor_part *p = c ? part_by_name(c) : NULL;
		if (p)
			return p;
	}
	for (size_t i = 0; i < OFL_ARRAY_SIZE(board); i++)
		if (board[i].ctrl == ctrl && board[i].cs == cs &&
		    fdt_node_check_compatible(fdt, 0, board[i].root) == 0)
			return part_by_name(board[i].part);
	return &parts[0];
}

/* The devtype (hw/dspi.h topic 2) of the node's most specific known compatible. */
static const struct dspi_devtype *devtype(const void *fdt, int node)
{
	static const struct dspi_devtype types[] = {
#define DEVTYPE(...) DSPI_DEVTYPE_INIT(__VA_ARGS__),
		DSPI_DEVTYPES(DEVTYPE)
#undef DEVTYPE
	};
	int n = fdt_stringlist_count(fdt, node, "compatible");

	for (int i = 0; i < n; i++) {
		const char *c = fdt_stringlist_get(fdt, node, "compatible", i, NULL);
		for (size_t k = 0; c && k < OFL_ARRAY_SIZE(types); k++)
			if (strcmp(types[k].compatible, c) == 0)
				return &types[k];
	}
	return NULL;
}

static int attach_children(struct ofl_sim_dspi *m, const void *fdt, int node, uint64_t ctrl)
{
	struct ofl_dt_spi_child kids[DSPI_MAX_NATIVE_CS * 2];
	int n = ofl_dt_spi_children(fdt, node, kids, (int)OFL_ARRAY_SIZE(kids));

	if (n < 0)
		return n;
	n = OFL_MIN(n, (int)OFL_ARRAY_SIZE(kids));
	for (int i = 0; i < n; i++) {
		const struct ofl_dt_spi_child *k = &kids[i];
		bool high = (k->mode & OFFLOAD_SPI_CS_HIGH) != 0;
		int r = 0;
		if (!k->enabled || k->chip_select >= DSPI_MAX_NATIVE_CS)
			continue;
		if (fdt_node_check_compatible(fdt, k->node, "liboffload,spi-loopback") == 0) {
			r = ofl_sim_dspi_attach_loopback(m, k->chip_select, high);
		} else if (fdt_node_check_compatible(fdt, k->node, "liboffload,spi-echo") == 0) {
			unsigned mode = ((k->mode & OFFLOAD_SPI_CPOL) ? 2u : 0u) |
					((k->mode & OFFLOAD_SPI_CPHA) ? 1u : 0u);
			r = ofl_sim_dspi_attach_echo(m, k->chip_select, mode,
						     (k->mode & OFFLOAD_SPI_LSB_FIRST) != 0, high);
		} else if (fdt_node_check_compatible(fdt, k->node, "jedec,spi-nor") == 0) {
			const struct nor_part *p = flash_part(fdt, k->node, ctrl, k->chip_select);
			r = ofl_sim_dspi_attach_nor(m, k->chip_select, p->name, p->id, p->size, high);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int ofl_sim_dspi_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t el)
{
	const struct dspi_devtype *e = devtype(fdt, node);
	struct ofl_sim_dspi_params p = { .node = node };
	char how[OFL_REASON_LEN];
	uint32_t ncs = 0;

	if (ofl_sim_model_by_node(sim, node))
		return 0;
	if (!e) {
		snprintf(err, el, "no DSPI devtype for this compatible");
		return -ENOTSUP;
	}
	if (ofl_dt_reg(fdt, node, 0, &p.phys, &p.size, err, el) < 0)
		return -EINVAL;
	static const struct ofl_dt_clock_rule ls1028a_twin[] = { DSPI_LS1028A_TWIN_CLOCK_RULE };
	struct ofl_dt_clock clk;
	if (ofl_dt_clock_rate(fdt, node, "dspi", ls1028a_twin, 1, &clk, how, sizeof(how)) == 0)
		p.clock_hz = clk.hz;
	else {
		snprintf(err, el, "the protocol clock rate is unknown: %s", how);
		return -EINVAL;
	}
	ofl_dt_prop_u32(fdt, node, "spi-num-chipselects", &ncs);
	p.fifo_size = e->fifo_size;
	p.num_ctar = e->num_ctar;
	p.xspi = e->xspi_regs;
	p.big_endian = fdt_getprop(fdt, node, "big-endian", NULL) != NULL;
	p.num_cs = (uint8_t)OFL_MIN(ncs, 255u);
	p.name = fdt_get_name(fdt, node, NULL);
	errno = 0;
	struct ofl_sim_dspi *m = ofl_sim_dspi_create(sim, &p);
	if (!m) {
		char o[96];
		snprintf(o, sizeof(o), "0x%llx+0x%llx is too small for its registers, or overlaps another model",
			 (unsigned long long)p.phys, (unsigned long long)p.size);
		return ofl_sim_create_failed(err, el, "DSPI", o);
	}
	int r = attach_children(m, fdt, node, p.phys);
	if (r < 0) {
		snprintf(err, el, "cannot attach the devices on its chip selects: %s", ofl_strerror(r));
		return r;
	}
	return 0;
}
