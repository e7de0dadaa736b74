/* SPDX-License-Identifier: MIT */
/*
 * src/policy with the engines' match tables (backends/<engine>/match.c)
 * against the facts in ../shared/hw/ (hw/k3_udma.h 1.1/2, hw/dspi.h topic
 * 1.1/2, hw/eip97.h 1.1), and the per-device decisions on the DT fixtures
 * (the expected values are in each fixture's comment).
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dspi/dspi.h"
#include "eip97/eip97.h"
#include "policy/policy.h"
#include "testutil.h"
#include "udma/udma.h"

/* The row an engine's table has for `compatible` (NULL if none), and the row's kind. */
static const void *row(const char *compatible, const char **kind, const struct ofl_backend **engine)
{
	const struct ofl_dt_id *id = ofl_engines_lookup(compatible, engine);

	if (kind)
		*kind = id ? ofl_match_row_of(id)->kind : NULL;
	return id ? id->data : NULL;
}

/* ------------------------------------------------------------------ table */

/* k3_udma.h section 2: compatible, engine, memcpy, BURST_SIZE flag, burst [normal, H, UH] in bytes. */
static const struct {
	const char *compat;
	const char *kind;
	bool memcpy, prog;
	unsigned b0, b1, b2;
	uint32_t psil;
} udma_facts[] = {
	{ "ti,am654-navss-main-udmap", "k3-udma", true, false, 64, 64, 0, 0x1000 },
	{ "ti,am654-navss-mcu-udmap", "k3-udma", false, false, 64, 64, 0, 0x6000 },
	{ "ti,j721e-navss-main-udmap", "k3-udma", true, true, 64, 256, 256, 0x1000 },
	{ "ti,j721e-navss-mcu-udmap", "k3-udma", false, true, 64, 128, 0, 0x6000 },
	{ "ti,am64-dmss-bcdma", "k3-bcdma", true, true, 64, 0, 0, 0x2000 },
	{ "ti,am64-dmss-pktdma", "k3-pktdma", false, true, 64, 0, 0, 0x1000 },
	{ "ti,am62a-dmss-bcdma-csirx", "k3-bcdma", false, false, 64, 0, 0, 0x3100 },
	{ "ti,j721s2-dmss-bcdma-csi", "k3-bcdma", false, false, 64, 0, 0, 0x2000 },
	{ "ti,j722s-dmss-bcdma-csi", "k3-bcdma", false, false, 64, 0, 0, 0x3100 },
};

START_TEST(table_udma)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(udma_facts); i++) {
		const char *kind;
		const struct ofl_backend *be;
		const struct udma_row *e = row(udma_facts[i].compat, &kind, &be);
		ck_assert_msg(e, "%s missing", udma_facts[i].compat);
		ck_assert_str_eq(be->name, "udma");
		ck_assert_str_eq(kind, udma_facts[i].kind);
		ck_assert_int_eq(e->memcpy, udma_facts[i].memcpy);
		ck_assert_int_eq(e->burst_programmable, udma_facts[i].prog);
		ck_assert_uint_eq(e->burst[0], udma_facts[i].b0);
		ck_assert_uint_eq(e->burst[1], udma_facts[i].b1);
		ck_assert_uint_eq(e->burst[2], udma_facts[i].b2);
		ck_assert_uint_eq(e->psil_base, udma_facts[i].psil);
		ck_assert_ptr_nonnull(strstr(e->hdr.source, "k3-udma.c"));
		/* PKTDMA has no memcpy: listed with its policy, never probed */
		ck_assert_int_eq((e->hdr.flags & OFL_ROW_LIST_ONLY) != 0, strcmp(kind, "k3-pktdma") == 0);
	}
	/* The ring accelerator is not a DMA engine. */
	ck_assert_ptr_null(row("ti,am654-navss-ringacc", NULL, NULL));
}
END_TEST

/* hw/dspi.h topic 1.1 and 2: compatible, trans_mode, FIFO entries, max clock factor. */
static const struct {
	const char *compat;
	enum dspi_trans_mode mode;
	unsigned fifo, factor;
	const char *devtype;
} dspi_facts[] = {
	{ "fsl,vf610-dspi", DSPI_TRANS_DMA, 4, 2, "VF610" },
	{ "fsl,ls1021a-v1.0-dspi", DSPI_TRANS_XSPI, 4, 8, "LS1021A" },
	{ "fsl,ls1012a-dspi", DSPI_TRANS_XSPI, 16, 8, "LS1012A" },
	{ "fsl,ls1028a-dspi", DSPI_TRANS_XSPI, 4, 8, "LS1028A" },
	{ "fsl,ls1043a-dspi", DSPI_TRANS_XSPI, 16, 8, "LS1043A" },
	{ "fsl,ls1046a-dspi", DSPI_TRANS_XSPI, 16, 8, "LS1046A" },
	{ "fsl,ls2080a-dspi", DSPI_TRANS_XSPI, 4, 8, "LS2080A" },
	{ "fsl,ls2085a-dspi", DSPI_TRANS_XSPI, 4, 8, "LS2085A" },
	{ "fsl,lx2160a-dspi", DSPI_TRANS_XSPI, 4, 8, "LX2160A" },
	{ "nxp,s32g2-dspi", DSPI_TRANS_XSPI, 5, 1, "S32G" },
};

START_TEST(table_dspi)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(dspi_facts); i++) {
		const char *kind;
		const struct ofl_backend *be;
		const struct dspi_row *e = row(dspi_facts[i].compat, &kind, &be);
		char want[64];
		ck_assert_msg(e, "%s missing", dspi_facts[i].compat);
		ck_assert_str_eq(be->name, "dspi");
		ck_assert_str_eq(kind, "dspi");
		ck_assert(be->flags & OFL_BE_SPI_CONTROLLER);
		ck_assert_int_eq(e->t.mode, dspi_facts[i].mode);
		ck_assert_uint_eq(e->t.fifo_size, dspi_facts[i].fifo);
		ck_assert_uint_eq(e->t.max_clock_factor, dspi_facts[i].factor);
		snprintf(want, sizeof(want), "devtype_data[%s]", dspi_facts[i].devtype);
		ck_assert_ptr_nonnull(strstr(e->hdr.source, want));
	}
	/* In the binding but not in the driver table: only its fallback matches. */
	ck_assert_ptr_null(row("fsl,ls1088a-dspi", NULL, NULL));
}
END_TEST

START_TEST(table_safexcel)
{
	static const struct { const char *compat; bool eip197; } facts[] = {
		{ "inside-secure,safexcel-eip97ies", false }, { "inside-secure,safexcel-eip197b", true },
		{ "inside-secure,safexcel-eip197d", true }, { "inside-secure,safexcel-eip197c-mxl", true },
		{ "inside-secure,safexcel-eip97", false }, { "inside-secure,safexcel-eip197", true },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(facts); i++) {
		const char *kind;
		const struct ofl_backend *be;
		const struct eip97_row *e = row(facts[i].compat, &kind, &be);
		ck_assert_msg(e, "%s missing", facts[i].compat);
		ck_assert_str_eq(be->name, "eip97");
		ck_assert_str_eq(kind, facts[i].eip197 ? "eip197" : "eip97");
		ck_assert_int_eq(e->eip197, facts[i].eip197);
		ck_assert_str_eq(be->linux_crypto_prefix, "safexcel-");
	}
	ck_assert_ptr_null(row("inside-secure,safexcel-eip76", NULL, NULL));
	ck_assert_ptr_null(row("", NULL, NULL));
	ck_assert_ptr_null(row(NULL, NULL, NULL));
}
END_TEST

START_TEST(table_rows_name_their_source)
{
	int n = 0;
	for (int b = 0; ofl_backends[b]; b++) {
		const struct ofl_backend *be = ofl_backends[b];
		ck_assert_msg(!be->match == !be->policy, "%s: a match table without a policy hook or "
			      "the reverse", be->name);
		for (const struct ofl_dt_id *id = be->match; id && id->compatible; id++, n++) {
			const struct ofl_match_row *e = ofl_match_row_of(id);
			const struct ofl_backend *owner;
			ck_assert_msg(strncmp(e->source, "Linux ", 6) == 0, "%s: source \"%s\"",
				      id->compatible, e->source);
			ck_assert_ptr_nonnull(e->kind);
			/* no duplicate keys, in one table or across engines */
			ck_assert_ptr_eq(ofl_engines_lookup(id->compatible, &owner), id);
			ck_assert_ptr_eq(owner, be);
		}
	}
	ck_assert_int_eq(n, 9 + 10 + 6);
}
END_TEST

/* ------------------------------------------------------------------ fixtures */

struct fx {
	struct ofl_dt dt;
	struct ofl_dt_match m[32];
	int n;
};

static void fx_load(struct fx *f, const char *name)
{
	char path[512], err[512] = "";
	const char *dir = getenv("OFFLOAD_TEST_FIXTURES");

	ck_assert_msg(dir && *dir, "OFFLOAD_TEST_FIXTURES is not set (run through ctest)");
	snprintf(path, sizeof(path), "%s/%s.dtb", dir, name);
	ck_assert_msg(ofl_dt_load_file(&f->dt, path, err, sizeof(err)) == 0, "%s", err);
	f->n = ofl_engines_discover(f->dt.fdt, f->m, 32);
	ck_assert_int_ge(f->n, 1);
}

/* Policy of the device at `path`. */
static struct ofl_policy fx_policy(const struct fx *f, const char *path)
{
	struct ofl_policy p;
	int node = fdt_path_offset(f->dt.fdt, path);

	ck_assert_msg(node >= 0, "no node %s", path);
	for (int i = 0; i < f->n; i++)
		if (f->m[i].node == node) {
			ck_assert_int_eq(ofl_engine_policy(f->dt.fdt, &f->m[i], NULL, &p), 0);
			ck_assert_msg(p.coherent_reason[0] && p.cache_reason[0] && p.burst_reason[0] &&
				      p.align_reason[0] && p.threshold_reason[0] && p.transfer_reason[0] &&
				      p.enabled_reason[0] && p.reg_reason[0],
				      "%s: a decision has no reason", path);
			return p;
		}
	ck_abort_msg("%s was not discovered", path);
	return p;
}

/* The match row (engine-specific) of the device at `path`. */
static const void *fx_row(const struct fx *f, const char *path)
{
	int node = fdt_path_offset(f->dt.fdt, path);

	for (int i = 0; i < f->n; i++)
		if (f->m[i].node == node)
			return f->m[i].id->data;
	ck_abort_msg("%s was not discovered", path);
	return NULL;
}

static void has(const char *s, const char *want)
{
	ck_assert_msg(strstr(s, want), "\"%s\" lacks \"%s\"", s, want);
}

START_TEST(policy_udma_inherited_coherent)
{
	struct fx f;
	fx_load(&f, "inherit");
	struct ofl_policy p = fx_policy(&f, "/bus@30000000/inner-bus/dma-controller@31150000");

	ck_assert(p.enabled && p.coherent && p.reg_ok);
	ck_assert_str_eq(p.coherent_path, "/bus@30000000");
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
	ck_assert_uint_eq(p.reg_addr, 0x31150000);
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_MEMCPY);
	/* No ti,sci-rm-range-tchan: every class may be free; the top one (UH) is assumed. */
	ck_assert_int_eq(p.best_tpl, UDMA_CLASS_UH);
	ck_assert_uint_eq(p.burst_bytes, 256);
	ck_assert(p.burst_programmed);
	ck_assert_uint_eq(p.align_bytes, 256);
	ck_assert_uint_eq(p.threshold_bytes, 16384);
	ck_assert_str_eq(p.transfer_mode, "tr15-pair");
	has(p.burst_reason, "j721e_main_data");
	has(p.threshold_reason, "offloadctl bench memcpy");
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_eip_coherency_and_cache)
{
	struct fx f;
	fx_load(&f, "inherit");
	struct ofl_policy p = fx_policy(&f, "/plain-bus/crypto@90000");

	ck_assert(!p.coherent);
	ck_assert_int_eq(p.coherent_node, -1);
	ck_assert_str_eq(p.coherent_path, "");
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_STREAMING);
	/* Not coherent, no d-cache-line-size: the 64-byte line. */
	ck_assert_uint_eq(p.align_bytes, 64);
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH);
	ck_assert_uint_eq(p.threshold_bytes, 2048);
	ck_assert_str_eq(p.transfer_mode, "ring");
	ck_assert(!((const struct eip97_row *)fx_row(&f, "/plain-bus/crypto@90000"))->eip197);
	ck_assert(!p.soc_io_coherent);
	ck_assert_uint_eq(p.reg_addr, 0xd0090000);

	p = fx_policy(&f, "/plain-bus/crypto@c0000");
	ck_assert(p.coherent);
	ck_assert_str_eq(p.coherent_path, "/plain-bus/crypto@c0000");
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
	ck_assert_uint_eq(p.align_bytes, 1);
	ck_assert(((const struct eip97_row *)fx_row(&f, "/plain-bus/crypto@c0000"))->eip197);
	has(p.transfer_reason, "EIP197 layout");
	ofl_dt_free(&f.dt);
}
END_TEST

/*
 * One generic rule for the models' non-coherent memory system: a device that
 * moves data through DMA memory the library allocates is streaming whatever
 * the tree says; an SPI controller's PIO is not. The alignment stays what
 * the tree's coherency gave (the engine aligns its own buffers).
 */
START_TEST(policy_sim_noncoherent)
{
	const struct ofl_policy_opts nc = { .sim_noncoherent = true };
	struct ofl_policy p;
	struct fx f;

	fx_load(&f, "inherit");
	for (int i = 0; i < f.n; i++) {
		char path[256];
		struct ofl_policy plain;
		ofl_dt_path(f.dt.fdt, f.m[i].node, path, sizeof(path));
		ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, &f.m[i], NULL, &plain), 0);
		ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, &f.m[i], &nc, &p), 0);
		ck_assert_msg(p.cache_mode == OFFLOAD_CACHE_STREAMING, "%s", path);
		ck_assert_uint_eq(p.align_bytes, plain.align_bytes);
		if (plain.cache_mode == OFFLOAD_CACHE_COHERENT)
			has(p.cache_reason, "OFFLOAD_CTX_SIM_NONCOHERENT emulates a non-coherent memory system");
		else
			ck_assert_str_eq(p.cache_reason, plain.cache_reason);
		if (ofl_engine_of(&f.m[i]) == &ofl_backend_eip97)
			has(p.cache_reason, "; rings and context records uncached");
	}
	ofl_dt_free(&f.dt);
	fx_load(&f, "noncoherent");
	int node = fdt_path_offset(f.dt.fdt, "/soc/spi@2110000");
	for (int i = 0; i < f.n; i++)
		if (f.m[i].node == node) {
			ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, &f.m[i], &nc, &p), 0);
			ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
		}
	ofl_dt_free(&f.dt);
}
END_TEST

/*
 * A node with both dma-coherent and dma-noncoherent: coherent, as Linux
 * decides (drivers/of/address.c of_dma_is_coherent() tests dma-coherent
 * first), and the reason says the tree contradicts itself (issue #18).
 */
START_TEST(policy_coherent_contradiction)
{
	struct fx f;
	fx_load(&f, "noncoherent");
	struct ofl_policy p = fx_policy(&f, "/soc/slow-bus/crypto@5000000");
	ck_assert(p.coherent);
	has(p.coherent_reason, "both dma-coherent and dma-noncoherent on /soc/slow-bus/crypto@5000000");
	p = fx_policy(&f, "/soc/slow-bus/crypto@4000000");
	ck_assert(p.coherent);
	ck_assert_ptr_null(strstr(p.coherent_reason, "both"));
	ofl_dt_free(&f.dt);
}
END_TEST

/*
 * #address-cells without #size-cells: the reg is read as Linux reads it (the
 * size cells inherited, of_bus_n_size_cells()) and the reason gives the
 * spec's reading (#size-cells = 1) beside it (issue #18). Values worked out
 * by hand from the fixture's cells.
 */
START_TEST(policy_size_cells_missing)
{
	struct fx f;
	fx_load(&f, "size-cells-missing");
	struct ofl_policy p = fx_policy(&f, "/soc/sub-bus/spi@1000");
	ck_assert_uint_eq(p.reg_addr, 0x1000);
	ck_assert_uint_eq(p.reg_size, 0x100);
	has(p.reg_reason, "/soc/sub-bus has #address-cells but no #size-cells");
	has(p.reg_reason, "#size-cells = 2 inherited from /soc");
	has(p.reg_reason, "with #size-cells = 1 (the devicetree specification, libfdt) reg[0] is 0x1000+0x0");
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_dspi_modes)
{
	struct fx f;
	fx_load(&f, "noncoherent");
	/* VF610 runs DMA mode: the cache mode follows coherency. */
	struct ofl_policy p = fx_policy(&f, "/soc/slow-bus/spi@2100000");
	ck_assert_str_eq(p.transfer_mode, "dma");
	ck_assert(!p.coherent);
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_STREAMING);
	ck_assert_uint_eq(p.caps, OFFLOAD_CAP_SPI);
	p = fx_policy(&f, "/soc/spi@2110000");
	ck_assert(p.coherent);
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
	ofl_dt_free(&f.dt);

	fx_load(&f, "dspi-target");
	p = fx_policy(&f, "/soc/spi@1000");
	ck_assert_str_eq(p.transfer_mode, "xspi-pio");
	const struct dspi_row *dr = fx_row(&f, "/soc/spi@1000");
	ck_assert_uint_eq(dr->t.fifo_size, 5);
	ck_assert_uint_eq(dr->t.max_clock_factor, 1);
	/* No DMA in XSPI mode: nothing to maintain whatever the coherency. */
	ck_assert(!p.coherent);
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
	ck_assert_uint_eq(p.threshold_bytes, 0);
	has(p.transfer_reason, "5 native chip selects");
	p = fx_policy(&f, "/soc/spi@2000");
	ck_assert_str_eq(p.transfer_mode, "dma");
	has(p.transfer_reason, "devtype_data[S32G_TARGET]");
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_disabled)
{
	struct fx f;
	fx_load(&f, "disabled");
	static const struct { const char *path; bool on; } want[] = {
		{ "/soc/spi@1000", true }, { "/soc/spi@2000", true }, { "/soc/spi@3000", true },
		{ "/soc/spi@4000", false }, { "/soc/spi@5000", false }, { "/soc/spi@6000", false },
		{ "/soc/off-bus/spi@7000", false },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(want); i++) {
		struct ofl_policy p = fx_policy(&f, want[i].path);
		ck_assert_msg(p.enabled == want[i].on, "%s", want[i].path);
	}
	struct ofl_policy p = fx_policy(&f, "/soc/off-bus/spi@7000");
	has(p.enabled_reason, "its bus /soc/off-bus has status = \"disabled\"");
	p = fx_policy(&f, "/soc/spi@4000");
	has(p.enabled_reason, "status = \"disabled\" on /soc/spi@4000");
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_no_address)
{
	struct fx f;
	fx_load(&f, "noreg");
	struct ofl_policy p = fx_policy(&f, "/soc/crypto");
	ck_assert(!p.reg_ok);
	ck_assert_uint_eq(p.reg_addr, 0);
	has(p.reg_reason, "has no reg");
	ofl_dt_free(&f.dt);
	fx_load(&f, "ranges-missing");
	p = fx_policy(&f, "/soc/local-bus/spi@100");
	ck_assert(!p.reg_ok);
	has(p.reg_reason, "/soc/local-bus has no 'ranges'");
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_udma_classes)
{
	struct fx f;
	fx_load(&f, "udma-classes");
	struct ofl_policy p = fx_policy(&f, "/navss/dma-controller@1000000");
	ck_assert_int_eq(p.best_tpl, UDMA_CLASS_H);
	ck_assert_uint_eq(p.burst_bytes, 256);
	ck_assert_uint_eq(p.align_bytes, 256);
	p = fx_policy(&f, "/navss/dma-controller@2000000");
	ck_assert_int_eq(p.best_tpl, UDMA_CLASS_NORMAL);
	ck_assert_uint_eq(p.burst_bytes, 64);
	ck_assert_uint_eq(p.align_bytes, 64);
	p = fx_policy(&f, "/navss/dma-controller@3000000");
	ck_assert_int_eq(p.best_tpl, UDMA_CLASS_H);
	ck_assert_uint_eq(p.burst_bytes, 64);
	ck_assert(!p.burst_programmed);
	ck_assert_uint_eq(p.align_bytes, 64);
	p = fx_policy(&f, "/navss/dma-controller@4000000");
	ck_assert_uint_eq(p.caps, 0);
	ck_assert_int_eq(p.best_tpl, -1);
	ck_assert_uint_eq(p.burst_bytes, 0);
	ck_assert_uint_eq(p.align_bytes, 8);
	ck_assert_str_eq(p.transfer_mode, "none");
	ck_assert_uint_eq(p.burst_by_tpl[1], 128);
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_bcdma_asel_and_line)
{
	struct fx f;
	fx_load(&f, "asel");
	struct ofl_policy p = fx_policy(&f, "/dmss/dma-controller@1000");
	ck_assert(p.coherent);
	ck_assert_str_eq(p.coherent_path, "/dmss/dma-controller@1000");
	has(p.coherent_reason, "ti,asel = 14");
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_COHERENT);
	ck_assert_uint_eq(p.align_bytes, 64);
	ck_assert_str_eq(p.transfer_mode, "tr15-bchan");
	p = fx_policy(&f, "/dmss/dma-controller@2000");
	ck_assert(!p.coherent);
	has(p.coherent_reason, "ti,asel = 5 is not a coherent ASEL");
	ck_assert_int_eq(p.cache_mode, OFFLOAD_CACHE_STREAMING);
	/* copy_align 64 raised to the 128-byte line of /cpus/cpu@0. */
	ck_assert_uint_eq(p.align_bytes, 128);
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_soc_io_coherent_by_node)
{
	struct fx f;
	fx_load(&f, "duplicates");
	struct ofl_policy p = fx_policy(&f, "/soc/crypto@90000");
	ck_assert(p.soc_io_coherent);
	has(p.soc_io_coherent_reason, "Armada 37xx");
	has(p.soc_io_coherent_reason, "marvell,armada-3700-crypto");
	ofl_dt_free(&f.dt);
}
END_TEST

START_TEST(policy_bad_arguments)
{
	struct fx f;
	struct ofl_policy p;
	fx_load(&f, "inherit");
	struct ofl_dt_match bad = f.m[0];

	bad.node = 3; /* not a node offset */
	ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, &bad, NULL, &p), -EINVAL);
	bad = f.m[0];
	bad.id = NULL;
	ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, &bad, NULL, &p), -EINVAL);
	ck_assert_int_eq(ofl_engine_policy(NULL, &f.m[0], NULL, &p), -EINVAL);
	ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, &f.m[0], NULL, NULL), -EINVAL);
	ck_assert_int_eq(ofl_engine_policy(f.dt.fdt, NULL, NULL, &p), -EINVAL);
	/* an engine that is not the node's, or a backend with no policy hook */
	ck_assert_int_eq(ofl_policy_compute(f.dt.fdt, f.m[0].node, NULL, f.m[0].id, NULL, &p), -EINVAL);
	ck_assert_int_eq(ofl_policy_compute(f.dt.fdt, f.m[0].node, ofl_backends[0], f.m[0].id, NULL, &p),
			 -EINVAL);
	ofl_dt_free(&f.dt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");
	TCase *t = tcase_create("table");
	tcase_add_test(t, table_udma);
	tcase_add_test(t, table_dspi);
	tcase_add_test(t, table_safexcel);
	tcase_add_test(t, table_rows_name_their_source);
	suite_add_tcase(s, t);
	t = tcase_create("fixtures");
	tcase_add_test(t, policy_udma_inherited_coherent);
	tcase_add_test(t, policy_eip_coherency_and_cache);
	tcase_add_test(t, policy_dspi_modes);
	tcase_add_test(t, policy_coherent_contradiction);
	tcase_add_test(t, policy_size_cells_missing);
	tcase_add_test(t, policy_sim_noncoherent);
	tcase_add_test(t, policy_disabled);
	tcase_add_test(t, policy_no_address);
	tcase_add_test(t, policy_udma_classes);
	tcase_add_test(t, policy_bcdma_asel_and_line);
	tcase_add_test(t, policy_soc_io_coherent_by_node);
	tcase_add_test(t, policy_bad_arguments);
	suite_add_tcase(s, t);
	return test_run(s);
}
