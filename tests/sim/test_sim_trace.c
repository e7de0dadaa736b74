/* SPDX-License-Identifier: MIT */
/*
 * The register trace of the models (OFFLOAD_SIM_TRACE, <offload/sim.h>):
 * its line format and naming on a test block, then register-level facts of
 * the engines read back from a trace. Expected addresses come from the
 * device tree (reg / reg-names, translated through the buses' ranges here,
 * not by the library), expected values from hw/ facts and the standards
 * the engines implement.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <offload/offload.h>
#include <offload/sim.h>

#include "hw/eip97.h"
#include "hw/k3_udma.h"
#include "hw/dspi.h"
#include "platform/sim_provider.h"
#include "sim/sim.h"
#include "simtrace.h"
#include "testutil.h"
#include "util/util.h"

static const void *builtin_fdt(void)
{
	return offload_sim_provider()->board_dtb;
}

/* ------------------------------------------------------------- format and naming */

static uint32_t blk_regs[0x4000];
static uint32_t blk_read32(void *m, unsigned region, uint64_t off)
{
	(void)m, (void)region;
	return blk_regs[off / 4];
}
static void blk_write32(void *m, unsigned region, uint64_t off, uint32_t v)
{
	(void)m, (void)region;
	blk_regs[off / 4] = v;
}
static uint16_t blk_read16(void *m, unsigned region, uint64_t off)
{
	(void)m, (void)region;
	return (uint16_t)(blk_regs[off / 4] >> (off & 2 ? 16 : 0));
}
static void blk_write16(void *m, unsigned region, uint64_t off, uint16_t v)
{
	(void)m, (void)region, (void)off, (void)v;
}
static const struct ofl_sim_block_ops blk_ops = { .read32 = blk_read32, .write32 = blk_write32,
						  .read16 = blk_read16, .write16 = blk_write16 };

/*
 * A block at 0x10000 of 0x10000 bytes: channels of 0x100 bytes from 0x1000
 * (4 of them), interrupt units going down from 0x8000 in 0x1000 steps
 * (3 of them), and registers of the block itself.
 */
static const struct ofl_sim_reg chan_regs[] = {
	OFL_SIM_REG(0x00, "CFG"),
	{ 0x10, 4 * 4, 4, "PEER", NULL, 0 },
	{ 0x40, 0x40, 0, "WINDOW", NULL, 0 },
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg irq_regs[] = {
	{ 0x10, 0, 0, "STAT", "ACK", 0 },
	OFL_SIM_REG_END,
};
static const struct ofl_sim_reg top_regs[] = {
	{ 0xF002, 2, 0, "HALF_HI", NULL, 2 },
	OFL_SIM_REG(0xF000, "WHOLE"),
	OFL_SIM_REG_END,
};
static const struct ofl_sim_regarea test_names[] = {
	{ "chan", 0x1000, 0x100, 4, chan_regs },
	{ "irq", 0x8000, -0x1000, 3, irq_regs },
	{ NULL, 0, 0, 0, top_regs },
	{ NULL, 0, 0, 0, NULL },
};

START_TEST(format_and_names)
{
	struct trace t;
	int model;

	trace_start(&t);
	const struct ofl_sim_opts o = { .trace = t.path };
	struct ofl_sim *sim = ofl_sim_create(&o);
	ck_assert_ptr_nonnull(sim);
	ck_assert(ofl_sim_tracing(sim));
	ck_assert_int_eq(ofl_sim_add_block(sim, 0x10000, 0x10000, &blk_ops, &model, 3, "blk", test_names), 0);
	struct ofl_sim_block *b = ofl_sim_find_block(sim, 0x10000, 0x10000);
	ck_assert_ptr_nonnull(b);
	ofl_sim_mmio_write32(b, 0x1200, 0xC0FFEEu);          /* CFG of chan 2 */
	ck_assert_uint_eq(ofl_sim_mmio_read32(b, 0x1200), 0xC0FFEEu);
	ofl_sim_mmio_write32(b, 0x131C, 7);                  /* PEER3 of chan 3 */
	ofl_sim_mmio_write64(b, 0x1078, 0x1122334455667788ull); /* in chan 0's window */
	ofl_sim_mmio_write32(b, 0x1400, 1);                  /* a fifth channel: not one */
	ofl_sim_mmio_write32(b, 0x6010, 0x5);                /* irq 2 written: ACK */
	ck_assert_uint_eq(ofl_sim_mmio_read32(b, 0x6010), 0x5); /* read: STAT */
	ofl_sim_mmio_write32(b, 0x5010, 0x9);                /* irq 3: beyond the count */
	ofl_sim_mmio_write32(b, 0xF000, 0xABCD1234u);
	ck_assert_uint_eq(ofl_sim_mmio_read16(b, 0xF002), 0xABCDu); /* 16-bit: the half's name */
	ofl_sim_mmio_read32(b, 0xF002);                      /* misaligned: a bus error, traced, named */
	ofl_sim_trace_fw(sim, &model, 3, 0x1114, 0x42);      /* the firmware's write to PEER1 of chan 1 */
	ofl_sim_trace_fw(sim, &model, 9, 0x1114, 0x42);      /* no block of that region: nothing */
	ofl_sim_destroy(sim);
	trace_read(&t);

	static const char *const want[] = {
		"W32 0x11200 0x00c0ffee CFG chan 2",
		"R32 0x11200 0x00c0ffee CFG chan 2",
		"W32 0x1131c 0x00000007 PEER3 chan 3",
		"W64 0x11078 0x1122334455667788 WINDOW chan 0",
		"W32 0x11400 0x00000001 blk+0x1400",
		"W32 0x16010 0x00000005 ACK irq 2",
		"R32 0x16010 0x00000005 STAT irq 2",
		"W32 0x15010 0x00000009 blk+0x5010",
		"W32 0x1f000 0xabcd1234 WHOLE",
		"R16 0x1f002 0xabcd HALF_HI",
		"R32 0x1f002 0xffffffff WHOLE bus-error",
		"W32 0x11114 0x00000042 PEER1 chan 1 fw",
	};
	/* the lines, word for word (parsed back here, so compare the raw file too) */
	ck_assert_uint_eq(t.n, OFL_ARRAY_SIZE(want));
	for (size_t i = 0; i < t.n; i++) {
		struct tline w;
		memset(&w, 0, sizeof(w));
		parse_line(want[i], &w);
		ck_assert_msg(strcmp(w.op, t.l[i].op) == 0 && w.addr == t.l[i].addr && w.val == t.l[i].val &&
				      strcmp(w.reg, t.l[i].reg) == 0 && strcmp(w.unit, t.l[i].unit) == 0 &&
				      w.idx == t.l[i].idx && w.fw == t.l[i].fw && w.bus_error == t.l[i].bus_error,
			      "line %zu: want \"%s\", got %s 0x%" PRIx64 " 0x%" PRIx64 " %s %s %lu%s%s", i, want[i],
			      t.l[i].op, t.l[i].addr, t.l[i].val, t.l[i].reg, t.l[i].unit, t.l[i].idx,
			      t.l[i].fw ? " fw" : "", t.l[i].bus_error ? " bus-error" : "");
	}
	trace_free(&t);
}
END_TEST

/* The same file, raw: the exact text of a line (widths of the value by access size). */
START_TEST(line_text)
{
	struct trace t;
	int model;
	char s[128];

	trace_start(&t);
	const struct ofl_sim_opts o = { .trace = t.path };
	struct ofl_sim *sim = ofl_sim_create(&o);
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(ofl_sim_add_block(sim, 0x10000, 0x10000, &blk_ops, &model, 3, "blk", test_names), 0);
	struct ofl_sim_block *b = ofl_sim_find_block(sim, 0x10000, 0x10000);
	ofl_sim_mmio_write32(b, 0x1000, 0x12);
	ofl_sim_mmio_write16(b, 0xF002, 0x34);
	ofl_sim_mmio_write64(b, 0x1040, 0x56);
	ofl_sim_destroy(sim);
	FILE *f = fopen(t.path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(s, sizeof(s), f));
	ck_assert_str_eq(s, "W32 0x11000 0x00000012 CFG chan 0\n");
	ck_assert_ptr_nonnull(fgets(s, sizeof(s), f));
	ck_assert_str_eq(s, "W16 0x1f002 0x0034 HALF_HI\n");
	ck_assert_ptr_nonnull(fgets(s, sizeof(s), f));
	ck_assert_str_eq(s, "W64 0x11040 0x0000000000000056 WINDOW chan 0\n");
	ck_assert_ptr_null(fgets(s, sizeof(s), f));
	fclose(f);
	trace_read(&t);
	trace_free(&t);
}
END_TEST

/* A trace file that cannot be opened fails the open, naming the variable and the file. */
START_TEST(unwritable_trace_refused)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	ck_assert_int_eq(setenv("OFFLOAD_SIM_TRACE", "/nonexistent-dir/trace", 1), 0);
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BUILTIN;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.sim_provider = offload_sim_provider();
	ck_assert_err(ctx, offload_ctx_open(ctx, &o), -ENOENT, "OFFLOAD_SIM_TRACE=/nonexistent-dir/trace");
	offload_ctx_free(ctx);
	/* without models the variable is never read */
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_SIM_TRACE");
}
END_TEST

/*
 * A FIFO that no process reads: the open fails at once, saying so, where
 * before it blocked for ever in fopen() (an adversarial tester's mkfifo;
 * the tcase's timeout would catch that). Then, with a reader holding the
 * FIFO open, the context opens and traces into it.
 */
START_TEST(trace_fifo_without_reader_refused)
{
	char dir[] = "/tmp/offload-fifo-XXXXXX", path[64];
	struct offload_ctx_opts o;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/trace", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(setenv("OFFLOAD_SIM_TRACE", path, 1), 0);
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BUILTIN;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.sim_provider = offload_sim_provider();
	offload_ctx *ctx = offload_ctx_new();
	ck_assert_err(ctx, offload_ctx_open(ctx, &o), -ENXIO, "a FIFO that no process has open for reading");
	offload_ctx_free(ctx);
	int rd = open(path, O_RDONLY | O_NONBLOCK); /* a reader: now the open may proceed */
	ck_assert_int_ge(rd, 0);
	ctx = offload_ctx_new();
	ck_assert_msg(offload_ctx_open(ctx, &o) == 0, "%s", offload_last_error(ctx));
	offload_ctx_free(ctx);
	close(rd);
	unsetenv("OFFLOAD_SIM_TRACE");
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------- UDMA */

#define J721E_UDMA "ti,j721e-navss-main-udmap"
#define J721E_RINGACC "ti,am654-navss-ringacc"

/*
 * Copy through the UDMA of `fdt` (a file, or the built-in board with NULL)
 * with a trace. On a 32-bit host the direct UDMA is refused (TI CSL
 * csl_ringacc.h: 8-byte ring elements through the proxy only, docs/fidelity.md
 * M7): that is asserted, and false returned.
 */
static bool udma_copy_traced(const char *dtb, struct trace *t)
{
	static uint8_t src[8192], dst[8192];
	struct offload_result res;
	struct offload_dev_info info;

	trace_start(t);
	offload_ctx *ctx = test_ctx_open(dtb ? OFFLOAD_DT_FILE : OFFLOAD_DT_BUILTIN, dtb, OFFLOAD_CTX_SIM,
					 "cpu,udma");
	int d = offload_dev_find(ctx, J721E_UDMA);
	ck_assert_int_ge(d, 0);
	if (UINTPTR_MAX == 0xFFFFFFFFu) {
		ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
		ck_assert_msg(!(info.flags & OFFLOAD_DEVF_USABLE) &&
			      strstr(info.usable_reason, "a 32-bit CPU reaches 8-byte ring elements only through the "
					     "ring accelerator proxy (TI CSL csl_ringacc.h)"),
			      "%s", info.usable_reason);
		ck_assert_int_eq(offload_memcpy_dev(ctx, d, dst, src, sizeof(src), &res), -ENODEV);
		offload_ctx_free(ctx);
		trace_read(t);
		trace_free(t);
		return false;
	}
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, dst, src, sizeof(src), &res), 0);
	ck_assert_str_eq(res.backend, "udma");
	ck_assert_int_eq(memcmp(dst, src, sizeof(src)), 0);
	offload_ctx_free(ctx);
	trace_read(t);
	return true;
}

/*
 * The block-copy channel's TCFG holds CHAN_TYPE 12 (third-party block copy,
 * pass by reference ring; hw/k3_udma.h from TI-SCI / U-Boot) and sits at
 * the "tchan" region the tree gives + 0x100 per channel; the channel is
 * enabled through CTL (EN, bit 31) at "tchanrt" + 0x1000 per channel.
 */
static void check_tcfg(const void *fdt, const struct trace *t, bool by_fw)
{
	uint64_t tchan = dt_reg(fdt, J721E_UDMA, "tchan"), tchanrt = dt_reg(fdt, J721E_UDMA, "tchanrt");
	int tcfg = 0, enabled = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct tline *l = &t->l[i];
		if (strcmp(l->op, "W32") == 0 && strcmp(l->reg, "TCFG") == 0) {
			ck_assert_str_eq(l->unit, "tchan");
			ck_assert_uint_eq(l->addr, tchan + l->idx * K3_CHANCFG_STRIDE + K3_TCFG);
			ck_assert_uint_eq(K3_CFG_CHAN_TYPE_GET(l->val), K3_CHAN_TYPE_3P_BCOPY_PBRR);
			ck_assert_msg(l->fw == by_fw, "TCFG written by %s", l->fw ? "the firmware" : "the library");
			tcfg++;
		}
		if (strcmp(l->op, "W32") == 0 && strcmp(l->reg, "CTL") == 0 && strcmp(l->unit, "tchan") == 0 &&
		    (l->val & K3_RT_CTL_EN)) {
			ck_assert_uint_eq(l->addr, tchanrt + l->idx * K3_CHANRT_STRIDE + K3_RT_CTL);
			enabled++;
		}
	}
	ck_assert_int_ge(tcfg, 1);
	ck_assert_int_ge(enabled, 1);
}

START_TEST(udma_memcpy_tcfg)
{
	struct trace t;

	if (!udma_copy_traced(NULL, &t))
		return;
	check_tcfg(builtin_fdt(), &t, false);
	trace_free(&t);
}
END_TEST

/*
 * With ti,sci on the UDMA and its ring accelerator the simulated DM firmware
 * writes TCFG (and the rings' BA_LO/BA_HI/SIZE) on the engine's behalf:
 * each such line is marked fw, and the library writes none of them.
 */
START_TEST(udma_tisci_writes_are_fw)
{
	struct trace t;
	const void *fdt = read_dtb(TRACE_FW_DTB);
	uint64_t cfg = dt_reg(fdt, J721E_RINGACC, "cfg");
	int rings = 0;

	if (!udma_copy_traced(TRACE_FW_DTB, &t))
		return;
	check_tcfg(fdt, &t, true);
	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		bool ringcfg = strcmp(l->reg, "BA_LO") == 0 || strcmp(l->reg, "BA_HI") == 0 ||
			       strcmp(l->reg, "SIZE") == 0;
		if (l->op[0] != 'W' || !ringcfg)
			continue;
		ck_assert_msg(l->fw, "the library wrote ring %lu's %s", l->idx, l->reg);
		uint32_t off = strcmp(l->reg, "BA_LO") == 0 ? K3_RA_CFG_BA_LO
			       : strcmp(l->reg, "BA_HI") == 0 ? K3_RA_CFG_BA_HI : K3_RA_CFG_SIZE;
		ck_assert_uint_eq(l->addr, cfg + l->idx * K3_RA_CFG_STRIDE + off);
		rings++;
	}
	ck_assert_int_ge(rings, 3);
	trace_free(&t);
}
END_TEST

/* ------------------------------------------------------------- EIP97 */
#ifdef OFFLOAD_HAVE_EIP97_MODEL

#define EIP97_COMPAT "inside-secure,safexcel-eip97ies"

/*
 * One AES-128-CBC request of one buffer is one command descriptor: the
 * library tells the engine so by adding the CD stride to HIA_CDR_PREP_COUNT
 * (Linux safexcel.c: writel((cdesc * priv->config.cd_offset) << 2, ...
 * PREP_COUNT)). The stride is the 16-word CD rounded up to the bus width
 * (2^DATAW words, DATAW = HIA_OPTIONS bits 27:25; safexcel_configure()).
 */
START_TEST(eip97_prep_count_by_cd_stride)
{
	static const uint8_t key[16] = { 1, 2, 3 }, iv[16] = { 4, 5, 6 };
	static uint8_t in[4096], out[4096];
	struct trace t;
	offload_cipher_session *s;
	struct offload_result res;

	trace_start(&t);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, "cpu,eip97");
	int d = offload_dev_find(ctx, EIP97_COMPAT);
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(ctx, d, OFFLOAD_CIPHER_AES_CBC, key, 16, &s), 0);
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 16, .in = in,
					.out = out, .len = sizeof(in), .result = &res };
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	ck_assert_str_eq(res.backend, "eip97");
	offload_cipher_session_close(s);
	offload_ctx_free(ctx);
	trace_read(&t);

	uint64_t base = dt_reg(builtin_fdt(), EIP97_COMPAT, NULL);
	uint32_t options = 0;
	int seen_options = 0, preps = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		if (strcmp(l->reg, "HIA_OPTIONS") == 0 && l->op[0] == 'R') {
			ck_assert_uint_eq(l->addr, base + 0xfff8);
			options = (uint32_t)l->val;
			seen_options++;
		}
		/* bit 31 is the count reset (safexcel.h EIP197_xDR_PREP_CLR_COUNT) */
		if (strcmp(l->reg, "HIA_CDR_PREP_COUNT") == 0 && l->op[0] == 'W' && !(l->val & 0x80000000u)) {
			ck_assert_uint_eq(l->addr, base + l->idx * 0x1000 + 0x2c);
			ck_assert_int_eq(seen_options, 1);
			uint32_t bus_words = 1u << ((options >> 25) & 7u);
			uint32_t stride = (16u + bus_words - 1) / bus_words * bus_words * 4u;
			ck_assert_uint_eq(l->val, stride);
			preps++;
		}
	}
	ck_assert_int_eq(preps, 1);
	trace_free(&t);
}
END_TEST
#endif /* OFFLOAD_HAVE_EIP97_MODEL */

/* ------------------------------------------------------------- DSPI */

#define DSPI_COMPAT "fsl,ls1028a-dspi"

/*
 * JEDEC READ ID (9Fh) to the N25Q128A13 on CS1 of the virtual board: the
 * trace shows the frames pushed to PUSHR's TX half and popped from POPR at
 * the addresses of the tree's reg + the LS1028A offsets (spi-fsl-dspi.c),
 * 16-bit frames MSB first (SPI wire order), and the flash's answer
 * 20h BAh 18h (Micron datasheet, manufacturer and device ID) in POPR.
 */
START_TEST(dspi_read_id_frames)
{
	static const uint8_t cmd[4] = { 0x9F, 0, 0, 0 };
	uint8_t rx[4] = { 0 };
	struct trace t;
	offload_spi *spi;

	trace_start(&t);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, "dspi");
	ck_assert_int_eq(offload_spi_open(ctx, "/bus@100000/spi@2100000/flash@1", NULL, &spi), 0);
	struct offload_spi_xfer x = { .tx = cmd, .rx = rx, .len = sizeof(cmd) };
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), (int)sizeof(cmd)); /* bytes moved */
	offload_spi_close(spi);
	offload_ctx_free(ctx);
	trace_read(&t);
	ck_assert_uint_eq(rx[1], 0x20);
	ck_assert_uint_eq(rx[2], 0xBA);
	ck_assert_uint_eq(rx[3], 0x18);

	uint64_t base = dt_reg(builtin_fdt(), DSPI_COMPAT, NULL);
	uint8_t sent[8], got[8];
	size_t ns = 0, ng = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		if (strcmp(l->reg, "PUSHR_TX") == 0) {
			ck_assert_str_eq(l->op, "W16");
			ck_assert_uint_eq(l->addr, base + DSPI_PUSHR_TX_LE);
			ck_assert_uint_lt(ns, sizeof(sent) - 1);
			sent[ns++] = (uint8_t)(l->val >> 8);
			sent[ns++] = (uint8_t)l->val;
		}
		if (strcmp(l->reg, "POPR") == 0) {
			ck_assert_str_eq(l->op, "R32");
			ck_assert_uint_eq(l->addr, base + DSPI_POPR);
			ck_assert_uint_lt(ng, sizeof(got) - 1);
			got[ng++] = (uint8_t)(l->val >> 8);
			got[ng++] = (uint8_t)l->val;
		}
	}
	ck_assert_uint_eq(ns, sizeof(cmd));
	ck_assert_int_eq(memcmp(sent, cmd, sizeof(cmd)), 0);
	ck_assert_uint_eq(ng, sizeof(rx));
	ck_assert_int_eq(memcmp(got, rx, sizeof(rx)), 0);
	trace_free(&t);
}
END_TEST

/* One byte (9Fh) to the virtual board's flash through the DSPI, traced from open to context free. */
static void dspi_one_byte_traced(struct trace *t, bool cs_change)
{
	static const uint8_t op = 0x9F;
	offload_spi *spi;

	trace_start(t);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, "dspi");
	ck_assert_int_eq(offload_spi_open(ctx, "/bus@100000/spi@2100000/flash@1", NULL, &spi), 0);
	struct offload_spi_xfer x = { .tx = &op, .len = 1, .cs_change = cs_change };
	ck_assert_int_eq(offload_spi_transfer(spi, &x, 1), 1);
	offload_spi_close(spi);
	offload_ctx_free(ctx);
	trace_read(t);
}

/*
 * SR writes of the DSPI backend (audit dspi.md F7): the flags are
 * write-1-to-clear, bits 29, 26, 22 and 20 reserved (Kinetis SPI_SR). Linux
 * clears with SPI_SR_CLEAR (0x8AAF0000) and otherwise writes back the SR it
 * just read (dspi_poll, dspi_interrupt); the backend may add EOQF. Every W32
 * to SR (the tree's reg + 0x2C) at init, per transfer, in the poll loop and
 * when a held chip select is released is one of those: no reserved bit,
 * no TXRXS except as read back.
 */
START_TEST(dspi_sr_writes_clear_only_flags)
{
	struct trace t;

	dspi_one_byte_traced(&t, true); /* CS held: close releases it */

	uint64_t sr = dt_reg(builtin_fdt(), DSPI_COMPAT, NULL) + DSPI_SR;
	uint64_t last_read = 0;
	bool read_back = false;
	size_t writes = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		if (l->addr != sr)
			continue;
		if (strcmp(l->op, "R32") == 0) {
			last_read = l->val;
			read_back = true;
			continue;
		}
		ck_assert_str_eq(l->op, "W32");
		writes++;
		if (read_back && l->val == last_read)
			continue; /* the poll loop's write-back */
		ck_assert_msg((l->val & ~(uint64_t)(DSPI_SR_CLEAR | DSPI_SR_EOQF)) == 0,
			      "SR written with 0x%08" PRIx64 " (line %zu): bits outside SPI_SR_CLEAR | EOQF", l->val,
			      i + 1);
		read_back = false;
	}
	ck_assert_uint_gt(writes, 3);
	trace_free(&t);
}
END_TEST

/*
 * Remove (audit dspi.md F9): Linux's dspi_remove disables both FIFOs
 * (MCR.DIS_TXF, DIS_RXF) and halts the module. The backend's last MCR
 * write (the tree's reg + 0) when the context goes keeps HALT and sets
 * both; the write that halts comes before it, since MCR fields other than
 * HALT and MDIS may change only while the module is stopped (Kinetis
 * SPI_MCR).
 */
START_TEST(dspi_remove_disables_fifos)
{
	struct trace t;

	dspi_one_byte_traced(&t, false);

	uint64_t mcr = dt_reg(builtin_fdt(), DSPI_COMPAT, NULL) + DSPI_MCR;
	size_t last = t.n, before = t.n;
	for (size_t i = 0; i < t.n; i++)
		if (t.l[i].addr == mcr && strcmp(t.l[i].op, "W32") == 0) {
			before = last;
			last = i;
		}
	ck_assert_uint_lt(last, t.n);
	ck_assert_uint_lt(before, t.n);
	uint64_t want = DSPI_MCR_HALT | DSPI_MCR_DIS_TXF | DSPI_MCR_DIS_RXF;
	ck_assert_uint_eq(t.l[last].val & want, want);
	ck_assert_uint_ne(t.l[before].val & DSPI_MCR_HALT, 0);
	trace_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim_trace");
	TCase *f = tcase_create("format");
	TCase *e = tcase_create("engines");

	tcase_add_test(f, format_and_names);
	tcase_add_test(f, line_text);
	tcase_add_test(f, unwritable_trace_refused);
	tcase_add_test(f, trace_fifo_without_reader_refused);
	tcase_add_test(e, udma_memcpy_tcfg);
	tcase_add_test(e, udma_tisci_writes_are_fw);
#ifdef OFFLOAD_HAVE_EIP97_MODEL
	tcase_add_test(e, eip97_prep_count_by_cd_stride);
#else
	fprintf(stderr, "note: eip97_prep_count_by_cd_stride not run: this build has no EIP97 model "
			"(it computes with OpenSSL, OFFLOAD_WITH_OPENSSL=OFF)\n");
#endif
	tcase_add_test(e, dspi_read_id_frames);
	tcase_add_test(e, dspi_sr_writes_clear_only_flags);
	tcase_add_test(e, dspi_remove_disables_fifos);
	suite_add_tcase(s, f);
	suite_add_tcase(s, e);
	return test_run(s);
}
