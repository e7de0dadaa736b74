/* SPDX-License-Identifier: MIT */
/*
 * Hardware fidelity of backends/udma and its models (issue #14, audit
 * ../shared/audits/udma.md D1-D10, M1-M10, A1): what the library writes,
 * read back from the register trace, and what the models refuse.
 *
 * Expected addresses and values come from the device trees (read here), TI's
 * sources and Linux, never from the code under test:
 *  - the PSI-L configuration proxy of the J721E / AM65x main NAVSS at
 *    0x31F78000 (TI PDK cslr_soc_baseaddress.h
 *    CSL_NAVSS0_UDMASS_PSILCFG0_CFG_PROXY_BASE; TI SYSFW psil_inst data),
 *    its registers CMDA 0x100 (BUSY 31, DIR 30 = read, TO 29, THREAD_ID
 *    15:0), CMDB 0x104 (BYTEN 31:28, ADDRESS 15:0), WDATA 0x108, RDATA 0x140,
 *    PSIL_TO 0x10 (TOUT 31) (TI cslr_psilcfg.h), and the thread registers
 *    PEER_THREAD_ID 0x000 (THREAD_WIDTH 28:24, THREAD_ID 15:0), PEER_CREDIT
 *    0x001 (7:0), ENABLE 0x002 (31), CAPABILITIES 0x040 (THREAD_WIDTH 28:24,
 *    CREDIT_CNT 7:0), RT_ENABLE 0x408 (ENABLE 31) (TI csl_psilcfg.h);
 *  - the pairing sequence of TI CSL csl_psilcfg.c CSL_psilcfgCreateRoute()
 *    and the THREAD writes of TI sciclient_rm_csl.c Sciclient_rmPsilPair(),
 *    the unpairing of Sciclient_rmPsilUnpair();
 *  - TI's default board configuration for host 12 (U-Boot
 *    board/ti/am65x/rm-cfg.yaml);
 *  - register fields: TI cslr_udmap.h, cslr_bcdma.h, cslr_lcdma_ringacc.h,
 *    the SVD-derived AM6x register description (BCDMA_BCHAN_CFG reset
 *    0x00120400, burst 0 = 32 B).
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/tisci.h"
#include "k3_fixture.h"
#include "simtrace.h"

#define J721E_UDMA "ti,j721e-navss-main-udmap"
#define AM654_UDMA "ti,am654-navss-main-udmap"
#define AM64_BCDMA "ti,am64-dmss-bcdma"

/* PSI-L configuration proxy (TI cslr_psilcfg.h, csl_psilcfg.h) */
#define PX_BASE 0x31F78000ull
#define PX_SIZE 0x200u
#define PX_PSIL_TO 0x010u
#define PX_CMDA 0x100u
#define PX_CMDB 0x104u
#define PX_WDATA 0x108u
#define PX_RDATA 0x140u
#define PX_BUSY (1u << 31)
#define PX_DIR_READ (1u << 30)
#define PX_TO (1u << 29)
#define PX_BYTEN_ALL (0xFu << 28)
#define TR_PEER_THREAD_ID 0x000u
#define TR_PEER_CREDIT 0x001u
#define TR_ENABLE 0x002u
#define TR_CAPABILITIES 0x040u
#define TR_RT_ENABLE 0x408u
#define TR_EN (1u << 31)

static char *fixture(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s.dtb", UDMA_FIXTURE_DIR, name);
	return path;
}

static struct udma_engine *engine_of(offload_ctx *ctx, int d)
{
	struct ofl_device *dev = ofl_ctx_device(ctx, d);
	ck_assert_ptr_nonnull(dev);
	ck_assert_msg(dev->priv != NULL, "device %d has no engine: %s", d, dev->usable_reason);
	return dev->priv;
}

static int dev_of(offload_ctx *ctx, const char *compat)
{
	int d = offload_dev_find(ctx, compat);
	ck_assert_msg(d >= 0, "no %s: %s", compat, offload_last_error(ctx));
	return d;
}

/* One copy of n bytes on device d; the channel it ran on (from "udma-tchanN" / "bcdma-bchanN"). */
static unsigned copy_on(offload_ctx *ctx, int d, size_t n)
{
	uint8_t *s = malloc(n), *x = malloc(n);
	struct offload_result res;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(x);
	for (size_t i = 0; i < n; i++)
		s[i] = (uint8_t)(i * 13 + 7);
	int r = offload_memcpy_dev(ctx, d, x, s, n, &res);
	ck_assert_msg(r == 0, "memcpy: %d %s", r, offload_last_error(ctx));
	ck_assert_int_eq(memcmp(s, x, n), 0);
	ck_assert_str_eq(res.backend, "udma");
	const char *num = res.driver + strcspn(res.driver, "0123456789");
	ck_assert_msg(*num, "driver %s names no channel", res.driver);
	free(s);
	free(x);
	return (unsigned)strtoul(num, NULL, 10);
}

/* A copy traced from context open to context close. */
static unsigned traced_copy(enum offload_dt_source src, const char *path, const char *compat, size_t n,
			    struct trace *t)
{
	trace_start(t);
	offload_ctx *ctx = k3fx_open_ctx(src, path, OFFLOAD_CTX_SIM);
	unsigned ch = copy_on(ctx, dev_of(ctx, compat), n);
	offload_ctx_free(ctx);
	trace_read(t);
	return ch;
}

static bool is(const struct tline *l, const char *op, const char *reg)
{
	return strcmp(l->op, op) == 0 && strcmp(l->reg, reg) == 0;
}

/* ------------------------------------------------------------- PSI-L proxy commands in a trace */

struct pxcmd {
	bool read, fw;
	uint32_t cmda, cmdb, thread, reg, data;
	size_t line;
};

/* The PSI-L proxy commands of a trace (CMDA, CMDB, then WDATA for a write or RDATA for a read). */
static size_t px_commands(const struct trace *t, uint64_t base, struct pxcmd *out, size_t max)
{
	uint32_t cmda = 0, cmdb = 0;
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct tline *l = &t->l[i];
		if (l->addr < base || l->addr >= base + PX_SIZE)
			continue;
		uint64_t off = l->addr - base;
		bool w = l->op[0] == 'W';
		if (w && off == PX_CMDA)
			cmda = (uint32_t)l->val;
		else if (w && off == PX_CMDB)
			cmdb = (uint32_t)l->val;
		if ((w && off == PX_WDATA) || (!w && off == PX_RDATA)) {
			ck_assert_uint_lt(n, max);
			out[n++] = (struct pxcmd){ .read = !w, .fw = l->fw, .cmda = cmda, .cmdb = cmdb,
						   .thread = cmda & 0xFFFFu, .reg = cmdb & 0xFFFFu,
						   .data = (uint32_t)l->val, .line = i };
		}
	}
	return n;
}

static void px_expect(const struct pxcmd *c, bool read, uint32_t thread, uint32_t reg, bool fw)
{
	ck_assert_msg(c->read == read && c->thread == thread && c->reg == reg,
		      "trace line %zu: proxy %s of thread 0x%x register 0x%x, want %s of 0x%x register 0x%x",
		      c->line + 1, c->read ? "read" : "write", c->thread, c->reg, read ? "read" : "write",
		      thread, reg);
	/* CSL_psilcfgRead/Write: CMDA DIR 1 = read, CMDB byte enables all four */
	ck_assert_uint_eq(c->cmda & PX_DIR_READ, read ? PX_DIR_READ : 0);
	ck_assert_uint_eq(c->cmdb & 0xF0000000u, PX_BYTEN_ALL);
	ck_assert_msg(c->fw == fw, "trace line %zu written by %s", c->line + 1, c->fw ? "the firmware" : "the library");
}

/*
 * The route src -> dst as TI CSL CSL_psilcfgCreateRoute() makes it: read the
 * destination's CAPABILITIES; source PEER_THREAD_ID = width | destination;
 * source PEER_CREDIT = the credit count; ENABLE of the destination then the
 * source, RT_ENABLE of the destination then the source (each read, then
 * written with ENABLE set). Returns the index of the command after it.
 */
static size_t px_route_at(const struct pxcmd *c, size_t n, size_t i, uint32_t src, uint32_t dst, bool fw)
{
	ck_assert_msg(i + 11 <= n, "%zu proxy commands, the route needs 11 from %zu", n, i);
	px_expect(&c[i], true, dst, TR_CAPABILITIES, fw);
	uint32_t caps = c[i].data;
	px_expect(&c[i + 1], false, src, TR_PEER_THREAD_ID, fw);
	ck_assert_uint_eq(c[i + 1].data, (caps & 0x1F000000u) | dst);
	px_expect(&c[i + 2], false, src, TR_PEER_CREDIT, fw);
	ck_assert_uint_eq(c[i + 2].data, caps & 0xFFu);
	const struct { uint32_t thread, reg; } rmw[] = {
		{ dst, TR_ENABLE }, { src, TR_ENABLE }, { dst, TR_RT_ENABLE }, { src, TR_RT_ENABLE },
	};
	for (size_t k = 0; k < 4; k++) {
		const struct pxcmd *r = &c[i + 3 + 2 * k], *w = r + 1;
		px_expect(r, true, rmw[k].thread, rmw[k].reg, fw);
		px_expect(w, false, rmw[k].thread, rmw[k].reg, fw);
		ck_assert_uint_eq(w->data, r->data | TR_EN);
	}
	return i + 11;
}

/* ------------------------------------------------------------- backend: D1 PSI-L pairing */

/*
 * Direct mode (the virtual board has no TI-SCI controller): the library pairs
 * its tchan/rchan through the PSI-L configuration proxy, as TI CSL does
 * without firmware, and names the pair in TCHAN/RCHAN THREAD.
 */
START_TEST(d1_direct_pairs_through_the_psil_proxy)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;
	struct pxcmd c[64];
	unsigned ch = traced_copy(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA, 8192, &t);
	uint32_t src = 0x1000u + ch, dst = src | 0x8000u; /* j721e_main_data psil_base 0x1000 */
	size_t n = px_commands(&t, PX_BASE, c, 64);

	ck_assert_msg(n > 0, "no PSI-L proxy command at 0x%llx in the trace", (unsigned long long)PX_BASE);
	px_route_at(c, n, 0, src, dst, false);
	const void *fdt = offload_sim_provider()->board_dtb;
	uint64_t tchan = dt_reg(fdt, J721E_UDMA, "tchan"), rchan = dt_reg(fdt, J721E_UDMA, "rchan");
	bool tthread = false, rthread = false;
	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		if (is(l, "W32", "THREAD") && l->addr == tchan + ch * 0x100u + 0x68)
			tthread = (l->val & 0xFFFF) == dst;
		if (is(l, "W32", "THREAD") && l->addr == rchan + ch * 0x100u + 0x68)
			rthread = (l->val & 0xFFFF) == src;
	}
	ck_assert_msg(tthread && rthread, "TCHAN THREAD = 0x%x and RCHAN THREAD = 0x%x not both written", dst, src);
	trace_free(&t);
}
END_TEST

/* With DM firmware the simulated firmware's PSIL_PAIR is the same proxy sequence, every access its own. */
START_TEST(d1_tisci_pair_is_the_proxy_sequence)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;
	struct pxcmd c[64];
	unsigned ch = traced_copy(OFFLOAD_DT_FILE, fixture("udma-sci"), J721E_UDMA, 8192, &t);
	uint32_t src = 0x1000u + ch, dst = src | 0x8000u;
	size_t n = px_commands(&t, PX_BASE, c, 64);

	ck_assert_msg(n > 0, "no PSI-L proxy command at 0x%llx in the trace", (unsigned long long)PX_BASE);
	px_route_at(c, n, 0, src, dst, true);
	trace_free(&t);
}
END_TEST

/* A SoC whose PSI-L proxy address the library does not know: direct mode cannot pair, so it refuses. */
START_TEST(d1_direct_refused_without_the_proxy_address)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_FILE, fixture("udma-j784s4"), J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, fixture("udma-j784s4"), OFFLOAD_CTX_SIM);
	struct offload_dev_info info;
	int d = dev_of(ctx, J721E_UDMA);

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_msg(!(info.flags & OFFLOAD_DEVF_USABLE), "usable: %s", info.usable_reason);
	ck_assert_msg(strstr(info.usable_reason, "PSI-L configuration proxy") != NULL, "%s", info.usable_reason);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------- backend: D2-D5, D10 register images */

/* The last access before line i to the same address; NULL when none. */
static const struct tline *before(const struct trace *t, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (t->l[k].addr == t->l[i].addr)
			return &t->l[k];
	return NULL;
}

/*
 * Every write of register `reg` (of unit `unit`) is a read-modify-write: the
 * access before it is a read of the same register, and only the bits of
 * `fields` change. Returns how many writes there were.
 */
static int rmw_only(const struct trace *t, const char *reg, const char *unit, uint32_t fields, bool fw)
{
	int writes = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct tline *l = &t->l[i];
		if (!is(l, "W32", reg) || strcmp(l->unit, unit) != 0 || l->fw != fw)
			continue;
		const struct tline *r = before(t, i);
		ck_assert_msg(r && r->op[0] == 'R', "trace line %zu: %s %s %lu = 0x%08llx written without reading it "
			      "first (a whole-register write)", i + 1, reg, unit, l->idx, (unsigned long long)l->val);
		ck_assert_msg(((r->val ^ l->val) & ~(uint64_t)fields) == 0,
			      "trace line %zu: %s %s %lu read 0x%08llx, written 0x%08llx: bits 0x%08llx outside the "
			      "fields configured (0x%08x) changed", i + 1, reg, unit, l->idx, (unsigned long long)r->val,
			      (unsigned long long)l->val, (unsigned long long)((r->val ^ l->val) & ~(uint64_t)fields),
			      fields);
		writes++;
	}
	return writes;
}

/*
 * The fields Linux's TI-SCI channel configuration for memcpy sets (k3-udma.c
 * udma_tisci_m2m_channel_config(): TX valid 0x0E1F = PAUSE_ON_ERR,
 * ATYPE, CHAN_TYPE, FETCH_SIZE, CQ, FILT_EINFO, FILT_PSWORDS, SUPR_TDPKT;
 * RX valid 0x1E1F adds IGNORE_SHORT/LONG; BURST_SIZE where programmed), at
 * their TCFG/RCFG positions (cslr_udmap.h).
 */
#define TCFG_MEMCPY_FIELDS 0xE30F017Fu /* 31, 30, 29, 25:24, 19:16, 8, 6:0 */
#define RCFG_MEMCPY_FIELDS 0x830FC07Fu /* 31, 25:24, 19:16, 15, 14, 6:0 */
#define CFG_BURST 0x00000C00u

START_TEST(d4_channel_config_is_read_modify_write)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;

	traced_copy(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA, 8192, &t);
	/* j721e_main_data programs the burst (UDMA_FLAG_BURST_SIZE) */
	ck_assert_int_ge(rmw_only(&t, "TCFG", "tchan", TCFG_MEMCPY_FIELDS | CFG_BURST, false), 1);
	ck_assert_int_ge(rmw_only(&t, "RCFG", "rchan", RCFG_MEMCPY_FIELDS | CFG_BURST, false), 1);
	trace_free(&t);
}
END_TEST

/* A block-copy channel: TI CSL csl_bcdma.c CSL_bcdmaChanOp() sets PAUSE_ON_ERR and BURST_SIZE only. */
START_TEST(d4_bchan_config_is_read_modify_write)
{
	struct trace t;

	traced_copy(OFFLOAD_DT_FILE, fixture("bcdma-direct"), AM64_BCDMA, 8192, &t);
	ck_assert_int_ge(rmw_only(&t, "CFG", "bchan", 0x80000000u | CFG_BURST, false), 1);
	trace_free(&t);
}
END_TEST

/* D3: AM654 (am654_main_data, no UDMA_FLAG_BURST_SIZE): the burst field is left alone. */
START_TEST(d3_am654_burst_left_alone)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;

	traced_copy(OFFLOAD_DT_FILE, fixture("udma-am654"), AM654_UDMA, 8192, &t);
	ck_assert_int_ge(rmw_only(&t, "TCFG", "tchan", TCFG_MEMCPY_FIELDS, false), 1);
	ck_assert_int_ge(rmw_only(&t, "RCFG", "rchan", RCFG_MEMCPY_FIELDS, false), 1);
	trace_free(&t);
}
END_TEST

/* D2: a DMSS ring's SIZE: only ELCNT (15:0) is set, as CSL_lcdma_ringaccInitRing() FINSes it. */
START_TEST(d2_bcdma_ring_size_keeps_qmode)
{
	struct trace t;

	traced_copy(OFFLOAD_DT_FILE, fixture("bcdma-direct"), AM64_BCDMA, 8192, &t);
	ck_assert_int_ge(rmw_only(&t, "SIZE", "ring", 0x0000FFFFu, false), 1);
	trace_free(&t);
}
END_TEST

/*
 * D5: a BCDMA whose CAP3 reports high-capacity bchans: am64_bcdma_data gives
 * H and UH no burst (0), so the field keeps its reset value (64 B per the
 * SVD description) instead of being written 0 (32 B on BCDMA).
 */
START_TEST(d5_bcdma_h_bchan_burst_untouched)
{
	struct k3fx f;
	struct trace t;
	char why[256];

	trace_start(&t);
	k3fx_world(&f, false);
	f.bcdma = true;
	struct ofl_sim_udma_params up = k3fx_bcdma_params(false);
	/* an AM64x BCDMA (28 bchans, 20 tchans, 20 rchans) whose CAP3 reports 4 high-capacity bchans */
	up.bchan_cnt = 28;
	up.hbchan_cnt = 4;
	up.tchan_cnt = up.rchan_cnt = 20;
	f.model = ofl_sim_udma_create(f.sim, &up);
	ck_assert_ptr_nonnull(f.model);
	struct udma_engine *e = &f.e;
	e->dev = f.dev;
	e->bcdma = true;
	e->sim = true;
	ofl_strlcpy(e->name, "test-bcdma", sizeof(e->name));
	k3fx_map(&f, &e->gcfg, 0x485c0100, 0x100);
	k3fx_map(&f, &e->bchanrt, 0x4c000000, 0x20000);
	k3fx_map(&f, &e->ringrt, 0x4bc00000, 0x100000);
	k3fx_map(&f, &e->ringcfg, 0x48600000, 0x8000);
	k3fx_map(&f, &e->bchancfg, 0x48420000, 0x2000);
	e->psil_base = 0x2000;
	e->burst_by_tpl[0] = 64; /* am64_bcdma_data: [64, 0, 0] */
	e->align = 64;
	e->cache = OFFLOAD_CACHE_COHERENT;
	struct ofl_dma_pool_opts po = { .cache = e->cache };
	ck_assert_int_eq(ofl_dma_pool_create(f.dev, &po, &e->pool), 0);
	f.dev->dma = e->pool;
	f.dev->priv = e;
	e->timeout_ns = e->teardown_ns = TEST_PATIENT_NS;
	ck_assert_msg(udma_engine_init(e, why, sizeof(why)) == 0, "%s", why);
	ck_assert_uint_eq(udma_chan_tpl(e, 0), UDMA_CLASS_H);
	char s[4096], d[4096];
	memset(s, 0x3C, sizeof(s));
	ck_assert_int_eq(udma_copy(e, d, s, sizeof(s), NULL), 0);
	ck_assert_int_eq(memcmp(s, d, sizeof(s)), 0);
	k3fx_teardown(&f);
	trace_read(&t);
	/* PAUSE_ON_ERR may be set; BURST_SIZE of an H bchan is not Linux's to set */
	ck_assert_int_ge(rmw_only(&t, "CFG", "bchan", 0x80000000u, false), 1);
	trace_free(&t);
}
END_TEST

/* D10: RX_CH_CFG sets FLOWID_START = FLOWID_CNT = 0; direct mode clears RFLOW_RNG's fields too. */
static void rflow_cleared(enum offload_dt_source src, const char *path, bool fw)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;
	unsigned ch = traced_copy(src, path, J721E_UDMA, 8192, &t);
	int writes = 0;

	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		if (!is(l, "W32", "RFLOW_RNG") || strcmp(l->unit, "rchan") != 0 || l->idx != ch)
			continue;
		/* FLOWID_CNT 30:16, FLOWID_START 13:0 (cslr_udmap.h RFLOW_RNG) */
		ck_assert_uint_eq(l->val & 0x7FFF3FFFu, 0);
		ck_assert(l->fw == fw);
		writes++;
	}
	ck_assert_msg(writes >= 1, "RFLOW_RNG of rchan %u never written", ch);
	trace_free(&t);
}

START_TEST(d10_rflow_range_cleared_direct) { rflow_cleared(OFFLOAD_DT_BUILTIN, NULL, false); }
END_TEST
START_TEST(d10_rflow_range_cleared_by_firmware) { rflow_cleared(OFFLOAD_DT_FILE, fixture("udma-sci"), true); }
END_TEST

/* ------------------------------------------------------------- backend: D7 ownership, D8 close */

/*
 * TI's AM65x board configuration gives host 12 (U-Boot board/ti/am65x/rm-cfg.yaml,
 * main UDMAP dev 188): TX_HCHAN 1-3, TX_CHAN 8-19 and 26-63, RX_HCHAN 2-3,
 * RX_CHAN 8-19 and 26-77; GP rings of the main RA (dev 187, subtype 1)
 * 304-403. The lowest pair owned on both sides is 2 (Linux
 * udma_get_chan_pair()), its completion ring the first GP ring, 304.
 */
START_TEST(d7_tisci_ranges_pick_an_owned_channel)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;
	unsigned ch = traced_copy(OFFLOAD_DT_FILE, fixture("udma-am654-sci"), AM654_UDMA, 8192, &t);
	bool cq = false;

	ck_assert_uint_eq(ch, 2);
	for (size_t i = 0; i < t.n; i++)
		if (is(&t.l[i], "W32", "BA_LO") && strcmp(t.l[i].unit, "ring") == 0 && t.l[i].idx == 304)
			cq = true;
	ck_assert_msg(cq, "completion ring 304 was never configured");
	trace_free(&t);
}
END_TEST

/*
 * Direct mode on hardware with a tree that names a TI-SCI controller: the
 * channels and rings this host may use come from TI's default board
 * configuration, which the library has for host 12 only; another host is
 * refused before any register is touched.
 */
START_TEST(d7_direct_needs_a_board_configuration)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	setenv("OFFLOAD_UDMA_CFG", "direct", 1);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, fixture("udma-am654-host13"), 0, "cpu,udma");
	struct offload_dev_info info;
	int d = dev_of(ctx, AM654_UDMA);

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert(!(info.flags & OFFLOAD_DEVF_USABLE));
	ck_assert_msg(strstr(info.usable_reason, "board configuration") && strstr(info.usable_reason, "host 13"),
		      "%s", info.usable_reason);
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_UDMA_CFG");
}
END_TEST

/*
 * D8: closing a channel unpairs it (Sciclient_rmPsilUnpair(): RT_ENABLE of
 * the source then the destination thread cleared) and frees its rings (Linux
 * k3_ringacc_ring_free(): RING_CFG with every value 0).
 */
static void close_unpairs(enum offload_dt_source src, const char *path, bool fw)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;
	struct pxcmd c[64];
	unsigned ch = traced_copy(src, path, J721E_UDMA, 8192, &t);
	uint32_t s = 0x1000u + ch, d = s | 0x8000u;
	size_t n = px_commands(&t, PX_BASE, c, 64);

	ck_assert_msg(n >= 15, "%zu PSI-L proxy commands: no unpairing after the route", n);
	size_t i = px_route_at(c, n, 0, s, d, fw);
	const uint32_t order[2] = { s, d };
	for (int k = 0; k < 2; k++, i += 2) {
		px_expect(&c[i], true, order[k], TR_RT_ENABLE, fw);
		px_expect(&c[i + 1], false, order[k], TR_RT_ENABLE, fw);
		ck_assert_uint_eq(c[i + 1].data, c[i].data & ~TR_EN);
	}
	/* the TX ring (ring ch) ends with no elements */
	uint64_t last = ~0ull;
	for (size_t k = 0; k < t.n; k++)
		if (is(&t.l[k], "W32", "SIZE") && strcmp(t.l[k].unit, "ring") == 0 && t.l[k].idx == ch)
			last = t.l[k].val;
	ck_assert_msg((last & 0xFFFFF) == 0, "ring %u's last SIZE is 0x%llx, not freed", ch, (unsigned long long)last);
	trace_free(&t);
}

START_TEST(d8_close_unpairs_and_frees_direct) { close_unpairs(OFFLOAD_DT_BUILTIN, NULL, false); }
END_TEST
START_TEST(d8_close_unpairs_and_frees_tisci) { close_unpairs(OFFLOAD_DT_FILE, fixture("udma-sci"), true); }
END_TEST

/* ------------------------------------------------------------- backend: D9, A1 */

/* D9: a UDMA node with ti,asel: the TR addresses still carry no ASEL in bits 51:48 (it is BCDMA-only). */
START_TEST(d9_udma_addresses_carry_no_asel)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, fixture("udma-asel"), OFFLOAD_CTX_SIM);
	int d = dev_of(ctx, J721E_UDMA);
	unsigned ch = copy_on(ctx, d, 4096);
	struct udma_engine *e = engine_of(ctx, d);
	struct udma_chan *c = NULL;

	for (int i = 0; i < UDMA_SYNC_CHANS; i++)
		if (e->sync[i] && e->sync[i]->id == ch)
			c = e->sync[i];
	ck_assert_ptr_nonnull(c);
	const union cppi5_rec64 *rec = c->desc->cpu;
	ck_assert_uint_eq(rec[1].tr.addr >> 48, 0);
	ck_assert_uint_eq(rec[1].tr.daddr >> 48, 0);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * A1: TR0's response must be written and complete (TI's SDK prefills every
 * response with 0xFFFFFFFF, UdmaUtils_makeTrpdTr15(), and checks TR0); a later
 * TR's written error fails the descriptor, an unwritten one does not (Linux
 * udma_desc_pre_callback() reads TR0 only).
 */
START_TEST(a1_tr_responses)
{
	uint32_t d[UDMA_SLOT_SIZE / 4];
	const struct ofl_dma m = { .cpu = d, .len = sizeof(d), .access = OFL_DMA_ACCESS_NORMAL };

	ck_assert_int_eq(udma_desc_memcpy(d, false, 0, 440, 0x1000, 0x100000, 200000), 2);
	d[48] = 0;           /* TR0 complete */
	ck_assert_uint_eq(udma_desc_status(&m, 0, 2), 0); /* TR1 left unwritten */
	d[49] = 0x00000001u; /* TR1: TRANSFER_ERR */
	ck_assert_uint_eq(udma_desc_status(&m, 0, 2), 1);
	d[49] = 0xFFFFFFFFu;
	d[48] = 0xFFFFFFFFu; /* TR0 never answered */
	ck_assert_uint_ne(udma_desc_status(&m, 0, 2), 0);
}
END_TEST

/* ------------------------------------------------------------- models */

struct mw {
	struct k3fx f;
	struct k3fx_regs r;
	uint64_t mem_phys;
	uint8_t *mem;
};

/* A J721E UDMA (or AM64x BCDMA) model world without a tree, its regions mapped, 64 KiB of DMA memory. */
static void mw_setup(struct mw *w, bool bcdma)
{
	void *cpu;

	memset(w, 0, sizeof(*w));
	k3fx_world(&w->f, false);
	k3fx_models(&w->f, bcdma, false, 0);
	k3fx_map_regs(&w->f, &w->r, bcdma);
	ck_assert_ptr_nonnull(ofl_sim_mem_alloc(w->f.sim, 65536, OFL_SIM_MEM_COHERENT, &cpu, &w->mem_phys));
	w->mem = cpu;
}

/* Memory layout of a world: rings at 0, descriptors at 4 KiB (256 B each), source 16 KiB, destination 32 KiB. */
#define MW_RING 0u
#define MW_DESC 4096u
#define MW_SRC 16384u
#define MW_DST 32768u

/* A one-TR memcpy descriptor k (hw/k3_udma.h §4.2-§4.4 words, by hand) returning to `retq`. */
static uint64_t mw_desc(struct mw *w, unsigned k, uint32_t retq, uint32_t flags, uint16_t len)
{
	uint32_t *d = (uint32_t *)(void *)(w->mem + MW_DESC + 256u * k);
	memset(d, 0, 256);
	d[0] = 0xC0000000u;
	d[1] = 0x02000000u | 0x3FFFu;
	d[2] = retq;
	struct cppi5_tr_type15 *tr = &((union cppi5_rec64 *)(void *)d)[1].tr;
	tr->flags = flags;
	tr->icnt0 = tr->dicnt0 = len;
	tr->icnt1 = tr->icnt2 = tr->icnt3 = tr->dicnt1 = tr->dicnt2 = tr->dicnt3 = 1;
	tr->dim1 = tr->ddim1 = len;
	tr->addr = w->mem_phys + MW_SRC + 1024u * k;
	tr->daddr = w->mem_phys + MW_DST + 1024u * k;
	d[32] = 0xFFFFFFFFu;
	return w->mem_phys + MW_DESC + 256u * k;
}

#define UDMA_CFG_MEMCPY ((12u << 16) | 4u) /* CHAN_TYPE 12 (3P block copy PBRR), FETCH_SIZE 4 words */

/*
 * UDMA channel 0 configured by registers as U-Boot does without firmware:
 * TX ring 0 and completion ring 440 in MESSAGE mode (16 x 8 B), TCFG/RCFG =
 * cfg, TCQ = RCQ = 440, THREAD = the PSI-L peers. `route`: and the PSI-L
 * route through the proxy (false when the model has none).
 */
static bool mw_udma_chan0(struct mw *w, uint32_t tcfg, uint32_t rcfg, bool route)
{
	for (unsigned r = 0; r < 2; r++) {
		uint32_t n = r ? 440 : 0;
		uint64_t base = w->mem_phys + MW_RING + 256u * r;
		ofl_mmio_write32(&w->r.cfg, n * 0x100 + 0x40, (uint32_t)base);
		ofl_mmio_write32(&w->r.cfg, n * 0x100 + 0x44, (uint32_t)(base >> 32));
		ofl_mmio_write32(&w->r.cfg, n * 0x100 + 0x48, (1u << 30) | (1u << 24) | 16u);
	}
	ofl_mmio_write32(&w->r.tchan, 0x00, tcfg);
	ofl_mmio_write32(&w->r.tchan, 0x14, 440);
	ofl_mmio_write32(&w->r.tchan, 0x68, 0x9000);
	ofl_mmio_write32(&w->r.rchan, 0x00, rcfg);
	ofl_mmio_write32(&w->r.rchan, 0x14, 440);
	ofl_mmio_write32(&w->r.rchan, 0x68, 0x1000);
	return route ? k3fx_psil_route(w->f.sim, PX_BASE, 0x1000, 0x9000) : true;
}

static void mw_enable0(struct mw *w)
{
	ofl_mmio_write32(&w->r.rchanrt, 0, 0x80000000u);
	ofl_mmio_write32(&w->r.tchanrt, 0, 0x80000000u);
}

/* Let the model thread run for 50 ms; then nothing it would have done is still to come. */
static void settle(struct mw *w)
{
	ck_assert_int_eq(ofl_sim_wait_idle(w->f.sim, (int64_t)(TEST_PATIENT_NS / 1000u)), 0);
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
}

#define OCC(n) ((uint64_t)(n) * 0x1000 + 0x18)
#define PUSH(n) ((uint64_t)(n) * 0x1000 + 0x3F8)
#define POP(n) ((uint64_t)(n) * 0x1000 + 0x1F8)

/* M1 / D1: THREAD registers alone do not pair a channel; the PSI-L route does. */
START_TEST(m1_thread_registers_alone_do_not_pair)
{
	struct mw w;

	mw_setup(&w, false);
	mw_udma_chan0(&w, UDMA_CFG_MEMCPY, UDMA_CFG_MEMCPY, false);
	k3fx_write64(&w.r.fifos, PUSH(0), mw_desc(&w, 0, 440, 0x9400002Fu, 512));
	mw_enable0(&w);
	settle(&w);
	ck_assert_msg(ofl_mmio_read32(&w.r.rt, OCC(440)) == 0, "the descriptor completed without a PSI-L route");
	ck_assert_msg(k3fx_psil_route(w.f.sim, PX_BASE, 0x1000, 0x9000), "no PSI-L proxy at 0x%llx, or it timed out",
		      (unsigned long long)PX_BASE);
	mw_enable0(&w);
	ck_assert_uint_eq(k3fx_occ_wait(&w.r.rt, OCC(440), 1) & 0x1FFFFF, 1);
	ck_assert_uint_eq(k3fx_read64(&w.r.fifos, POP(440)), w.mem_phys + MW_DESC);
	k3fx_teardown(&w.f);
}
END_TEST

/* M3: the receive side of the pair is checked: channel type, fetch size, address type. */
START_TEST(m3_rx_configuration_checked)
{
	static const struct { uint32_t tcfg, rcfg; const char *what; } bad[] = {
		{ UDMA_CFG_MEMCPY, 4u, "RCFG CHAN_TYPE 0" },
		{ (12u << 16), UDMA_CFG_MEMCPY, "TCFG FETCH_SIZE 0 (the 4-word TR header is not fetched)" },
		{ UDMA_CFG_MEMCPY, UDMA_CFG_MEMCPY | (1u << 24), "RCFG ATYPE 1, TCFG ATYPE 0" },
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(bad); i++) {
		struct mw w;
		mw_setup(&w, false);
		mw_udma_chan0(&w, bad[i].tcfg, bad[i].rcfg, true);
		k3fx_write64(&w.r.fifos, PUSH(0), mw_desc(&w, 0, 440, 0x9400002Fu, 512));
		mw_enable0(&w);
		settle(&w);
		ck_assert_msg(ofl_mmio_read32(&w.r.rt, OCC(440)) == 0, "%s: the descriptor completed", bad[i].what);
		ck_assert_msg(ofl_mmio_read32(&w.r.tchanrt, 0) & 1, "%s: no ERROR in TCHANRT CTL", bad[i].what);
		k3fx_teardown(&w.f);
	}
}
END_TEST

/* M4: 256-byte bursts are for H/UH/E channels only (TI RM udmap_validate_burst_size()). */
START_TEST(m4_burst_beyond_the_class_halts)
{
	struct mw w;

	mw_setup(&w, false);
	/* channel 0 is UH on J721E: 256 B is fine there; channel 16, a normal one, is the one to test */
	for (unsigned r = 0; r < 2; r++) {
		uint32_t n = r ? 440 : 16;
		uint64_t base = w.mem_phys + MW_RING + 256u * r;
		ofl_mmio_write32(&w.r.cfg, n * 0x100 + 0x40, (uint32_t)base);
		ofl_mmio_write32(&w.r.cfg, n * 0x100 + 0x44, (uint32_t)(base >> 32));
		ofl_mmio_write32(&w.r.cfg, n * 0x100 + 0x48, (1u << 30) | (1u << 24) | 16u);
	}
	ofl_mmio_write32(&w.r.tchan, 16 * 0x100, UDMA_CFG_MEMCPY | (3u << 10));
	ofl_mmio_write32(&w.r.tchan, 16 * 0x100 + 0x14, 440);
	ofl_mmio_write32(&w.r.tchan, 16 * 0x100 + 0x68, 0x9010);
	ofl_mmio_write32(&w.r.rchan, 16 * 0x100, UDMA_CFG_MEMCPY | (3u << 10));
	ofl_mmio_write32(&w.r.rchan, 16 * 0x100 + 0x14, 440);
	ofl_mmio_write32(&w.r.rchan, 16 * 0x100 + 0x68, 0x1010);
	k3fx_psil_route(w.f.sim, PX_BASE, 0x1010, 0x9010);
	k3fx_write64(&w.r.fifos, PUSH(16), mw_desc(&w, 0, 440, 0x9400002Fu, 512));
	ofl_mmio_write32(&w.r.rchanrt, 16 * 0x1000, 0x80000000u);
	ofl_mmio_write32(&w.r.tchanrt, 16 * 0x1000, 0x80000000u);
	settle(&w);
	ck_assert_msg(ofl_mmio_read32(&w.r.rt, OCC(440)) == 0, "a normal channel moved data with 256-byte bursts");
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 16 * 0x1000) & 1, 1);
	k3fx_teardown(&w.f);
}
END_TEST

/* D4 / M4: configuration registers keep only their fields (cslr_udmap.h, cslr_bcdma.h; the SVD's resets). */
START_TEST(m4_config_registers_have_fields)
{
	struct mw w;

	mw_setup(&w, false);
	/* J721E UDMAP TCFG: PAUSE_ON_ERR 31, FILT_EINFO 30, FILT_PSWORDS 29, ATYPE 25:24, CHAN_TYPE 19:16,
	 * BURST_SIZE 11:10, TDTYPE 9, NOTDPKT 8, FETCH_SIZE 6:0 */
	ofl_mmio_write32(&w.r.tchan, 5 * 0x100, 0xFFFFFFFFu);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchan, 5 * 0x100), 0xE30F0F7Fu);
	/* RCFG: PAUSE_ON_ERR 31, ATYPE 25:24, CHAN_TYPE 19:16, IGNORE_SHORT 15, IGNORE_LONG 14, BURST 11:10, FETCH 6:0 */
	ofl_mmio_write32(&w.r.rchan, 5 * 0x100, 0xFFFFFFFFu);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rchan, 5 * 0x100), 0x830FCC7Fu);
	/* RFLOW_RNG: FLOWID_CNT 30:16, FLOWID_START 13:0 */
	ofl_mmio_write32(&w.r.rchan, 5 * 0x100 + 0xF0, 0xFFFFFFFFu);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.rchan, 5 * 0x100 + 0xF0), 0x7FFF3FFFu);
	k3fx_teardown(&w.f);

	/* BCDMA bchan CFG: reset 0x00120400 (SVD BCDMA_BCHAN_CFG); PAUSE_ON_ERR and BURST_SIZE are writable */
	mw_setup(&w, true);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.bchan, 3 * 0x100), 0x00120400u);
	ofl_mmio_write32(&w.r.bchan, 3 * 0x100, 0);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.bchan, 3 * 0x100), 0x00120000u);
	ofl_mmio_write32(&w.r.bchan, 3 * 0x100, 0xFFFFFFFFu);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.bchan, 3 * 0x100), 0x80120C00u);
	k3fx_teardown(&w.f);
}
END_TEST

/* BCDMA bchan k of a world: DMA ring k (8 x 8 B) at the world's ring memory, one descriptor pushed. */
static void mw_bchan_push(struct mw *w, unsigned k, uint32_t size_reg)
{
	uint64_t base = w->mem_phys + MW_RING;
	ofl_mmio_write32(&w->r.ring, k * 0x100 + 0x40, (uint32_t)base);
	ofl_mmio_write32(&w->r.ring, k * 0x100 + 0x44, (uint32_t)(base >> 32));
	ofl_mmio_write32(&w->r.ring, k * 0x100 + 0x48, size_reg);
	((uint64_t *)(void *)(w->mem + MW_RING))[0] = mw_desc(w, 0, k, 0x8400002Fu, 1024);
	ofl_mmio_write32(&w->r.ringrt, k * 0x2000 + 0x10, 1);
	ofl_mmio_write32(&w->r.bchanrt, k * 0x1000, 0x80000000u);
}

/*
 * M2 / D2: a DMSS ring's SIZE resets to QMODE 1 (cslr_lcdma_ringacc.h: 1 =
 * DRING mode, the only value defined; TI's CSL and firmware never write it),
 * and a ring in another mode does not complete.
 */
START_TEST(m2_dring_qmode)
{
	struct mw w;

	mw_setup(&w, true);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.ring, 3 * 0x100 + 0x48), 1u << 29);
	mw_bchan_push(&w, 3, 8); /* QMODE 0 */
	settle(&w);
	ck_assert_msg((ofl_mmio_read32(&w.r.ringrt, 3 * 0x2000 + 0x1018) & 0x1FFFFF) == 0,
		      "a ring with QMODE 0 completed");
	k3fx_teardown(&w.f);
	mw_setup(&w, true);
	mw_bchan_push(&w, 3, (1u << 29) | 8);
	ck_assert_uint_eq(k3fx_occ_wait(&w.r.ringrt, 3 * 0x2000 + 0x1018, 1) & 0x1FFFFF, 1);
	k3fx_teardown(&w.f);
}
END_TEST

/* M4 / D5: BCDMA burst code 0 is 32 bytes (SVD BCDMA_BCHAN_CFG BURST_SIZE: 0 = 32 B, 1 = 64 B). */
START_TEST(m4_bcdma_burst_zero_is_32_bytes)
{
	struct mw w;
	struct ofl_sim_udma_chan_stats st;

	mw_setup(&w, true);
	ofl_mmio_write32(&w.r.bchan, 3 * 0x100, 12u << 16); /* block copy, BURST_SIZE 0 */
	mw_bchan_push(&w, 3, (1u << 29) | 8);
	ck_assert_uint_eq(k3fx_occ_wait(&w.r.ringrt, 3 * 0x2000 + 0x1018, 1) & 0x1FFFFF, 1);
	ck_assert_int_eq(ofl_sim_udma_chan_stats(w.f.model, 'b', 3, &st), 0);
	ck_assert_uint_eq(st.burst_bytes, 32);
	ck_assert_uint_eq(st.bursts, 1024 / 32);
	k3fx_teardown(&w.f);
}
END_TEST

/* M5: TCFG NOTDPKT (8) suppresses the teardown completion message (cslr_udmap.h, SVD TX_NOTDPKT). */
START_TEST(m5_notdpkt_suppresses_the_tdcm)
{
	struct mw w;

	mw_setup(&w, false);
	mw_udma_chan0(&w, UDMA_CFG_MEMCPY | (1u << 8), UDMA_CFG_MEMCPY, true);
	mw_enable0(&w);
	ofl_mmio_write32(&w.r.tchanrt, 0, 0xC0000000u);
	for (uint64_t t0 = ofl_now_ns(); (ofl_mmio_read32(&w.r.tchanrt, 0) & 0x80000000u) &&
					  ofl_now_ns() - t0 < TEST_PATIENT_NS;)
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	ck_assert_uint_eq(ofl_mmio_read32(&w.r.tchanrt, 0) & 0x80000000u, 0);
	settle(&w);
	ck_assert_msg(ofl_mmio_read32(&w.r.rt, OCC(440)) == 0, "a teardown completion was posted with NOTDPKT set");
	k3fx_teardown(&w.f);
}
END_TEST

/*
 * M6: which of the descriptor's RETQ and the channel's TCQ the silicon
 * returns a TR-mode block copy to is unconfirmed; the model flags a
 * descriptor whose RETQ differs from TCQ (a bus error of the world).
 */
START_TEST(m6_retq_differs_from_tcq_is_flagged)
{
	struct mw w;
	char last[160] = "";

	mw_setup(&w, false);
	mw_udma_chan0(&w, UDMA_CFG_MEMCPY, UDMA_CFG_MEMCPY, true);
	uint64_t base = w.mem_phys + MW_RING + 512;
	ofl_mmio_write32(&w.r.cfg, 441 * 0x100 + 0x40, (uint32_t)base);
	ofl_mmio_write32(&w.r.cfg, 441 * 0x100 + 0x44, (uint32_t)(base >> 32));
	ofl_mmio_write32(&w.r.cfg, 441 * 0x100 + 0x48, (1u << 30) | (1u << 24) | 16u);
	k3fx_write64(&w.r.fifos, PUSH(0), mw_desc(&w, 0, 441, 0x9400002Fu, 512));
	mw_enable0(&w);
	settle(&w);
	ck_assert_uint_ge(ofl_sim_bus_errors(w.f.sim, last, sizeof(last)), 1);
	ck_assert_msg(strstr(last, "RETQ") != NULL, "%s", last);
	k3fx_teardown(&w.f);
}
END_TEST

/*
 * M7: how an element moves through the FIFO windows of a MESSAGE-mode ring.
 * Linux places the access so that it ends at the end of the 512-byte window
 * (k3-ringacc.c k3_ringacc_ring_get_fifo_pos(): 512 - element size), TI's
 * CSL a 64-bit access at the window's last two words (CSL_ringaccPush64()).
 * TI's csl_ringacc.h says those 64-bit functions can only be used by a
 * processor that issues a 64-bit burst, a 32-bit one must use the proxy: an
 * 8-byte element in two 32-bit halves is refused (a bus error, nothing
 * moves), as is an access not ending at the window end. The forms are stated
 * here as accesses to the model block itself, the same on every host. The
 * doorbell of a MESSAGE-mode ring moves nothing (Linux rings only RING-mode
 * rings, k3_ringacc_ring_reset_dma() switches first) and is refused.
 */
#define M7_FIFOS 0x38000000ull /* the model's fifos region (k3fx_models()) */
#define M7_TAIL_LO 0x3F8u      /* ring 0 tail window: the element's low word ... */
#define M7_TAIL_HI 0x3FCu      /* ... and its high word, the window's last */
#define M7_HEAD_LO 0x1F8u
#define M7_HEAD_HI 0x1FCu
#define M7_PEEK_HEAD_LO 0x5F8u
#define M7_PEEK_HEAD_HI 0x5FCu
#define M7_ELEM 0x0000000589ABCDE8ull /* element values (never fetched: no channel runs); both halves nonzero */
#define M7_ELEM2 0x0000000712345670ull

struct m7 {
	struct mw w;
	struct ofl_sim_block *b;
	uint64_t errs;
	char last[160];
};

/* A model world with ring 0 in MESSAGE mode (16 x 8 B, empty) and the fifos block. */
static void m7_setup(struct m7 *t)
{
	memset(t, 0, sizeof(*t));
	mw_setup(&t->w, false);
	uint64_t base = t->w.mem_phys + MW_RING;
	ofl_mmio_write32(&t->w.r.cfg, 0x40, (uint32_t)base);
	ofl_mmio_write32(&t->w.r.cfg, 0x44, (uint32_t)(base >> 32));
	ofl_mmio_write32(&t->w.r.cfg, 0x48, (1u << 30) | (1u << 24) | 16u);
	t->b = ofl_sim_find_block(t->w.f.sim, M7_FIFOS, 0x1000);
	ck_assert_ptr_nonnull(t->b);
	t->errs = ofl_sim_bus_errors(t->w.f.sim, NULL, 0);
}

/* Bus errors since the last call; the last one's message in t->last. */
static uint64_t m7_new_errors(struct m7 *t)
{
	uint64_t n = ofl_sim_bus_errors(t->w.f.sim, t->last, sizeof(t->last));
	uint64_t d = n - t->errs;

	t->errs = n;
	return d;
}

static uint32_t m7_occ(struct m7 *t)
{
	return ofl_mmio_read32(&t->w.r.rt, OCC(0)) & 0x1FFFFFu;
}

/* Ring 0 holding M7_ELEM, pushed the way a 64-bit host does. */
static void m7_one_element(struct m7 *t)
{
	ofl_sim_mmio_write64(t->b, M7_TAIL_LO, M7_ELEM);
	ck_assert_uint_eq(m7_occ(t), 1);
	ck_assert_uint_eq(m7_new_errors(t), 0);
}

/* The 64-bit form at the window end pushes one whole element; no half does (TI CSL: one 64-bit access). */
START_TEST(m7_push_one_64bit_access_only)
{
	struct m7 t;

	m7_setup(&t);
	ofl_sim_mmio_write64(t.b, M7_TAIL_LO, M7_ELEM);
	ck_assert_uint_eq(m7_occ(&t), 1);
	ck_assert_uint_eq(m7_new_errors(&t), 0);
	/* TI CSL csl_ringacc.h: a 32-bit CPU must not reach an 8-byte element in two halves */
	ofl_sim_mmio_write32(t.b, M7_TAIL_LO, (uint32_t)M7_ELEM2);
	ck_assert_msg(m7_new_errors(&t) == 1, "the low half of an 8-byte element was taken");
	ck_assert_msg(strstr(t.last, "csl_ringacc.h") != NULL, "%s", t.last);
	ofl_sim_mmio_write32(t.b, M7_TAIL_HI, (uint32_t)(M7_ELEM2 >> 32));
	ck_assert_msg(m7_new_errors(&t) == 1, "the high half of an 8-byte element was taken");
	ck_assert_msg(m7_occ(&t) == 1, "a pair of 32-bit halves pushed an element");
	/* nothing was staged: the next 64-bit push is the second element, whole */
	ofl_sim_mmio_write64(t.b, M7_TAIL_LO, M7_ELEM2);
	ck_assert_uint_eq(m7_occ(&t), 2);
	ck_assert_uint_eq(m7_new_errors(&t), 0);
	const uint64_t *ring = (const uint64_t *)(const void *)(t.w.mem + MW_RING);
	ck_assert_uint_eq(ring[0], M7_ELEM);
	ck_assert_uint_eq(ring[1], M7_ELEM2);
	k3fx_teardown(&t.w.f);
}
END_TEST

/* The high half first is refused as well, and so is a 64-bit access not ending at the window end. */
START_TEST(m7_push_half_or_misplaced_refused)
{
	struct m7 t;

	m7_setup(&t);
	ofl_sim_mmio_write32(t.b, M7_TAIL_HI, (uint32_t)(M7_ELEM >> 32));
	ck_assert_uint_eq(m7_new_errors(&t), 1);
	ofl_sim_mmio_write32(t.b, M7_TAIL_LO, (uint32_t)M7_ELEM);
	ck_assert_uint_eq(m7_new_errors(&t), 1);
	ck_assert_uint_eq(m7_occ(&t), 0);
	ofl_sim_mmio_write64(t.b, M7_TAIL_LO - 8, M7_ELEM);
	ck_assert_uint_eq(m7_new_errors(&t), 1);
	ck_assert_uint_eq(m7_occ(&t), 0);
	const uint64_t *ring = (const uint64_t *)(const void *)(t.w.mem + MW_RING);
	ck_assert_msg(ring[0] == 0, "a refused push wrote ring memory: 0x%" PRIx64, ring[0]);
	k3fx_teardown(&t.w.f);
}
END_TEST

/* A pop is one 64-bit read at the window end; either 32-bit half is refused and pops nothing. */
START_TEST(m7_pop_one_64bit_access_only)
{
	struct m7 t;

	m7_setup(&t);
	m7_one_element(&t);
	ck_assert_uint_eq(ofl_sim_mmio_read32(t.b, M7_HEAD_LO), 0xFFFFFFFFu);
	ck_assert_msg(m7_new_errors(&t) == 1, "a pop of the low half was taken");
	ck_assert_uint_eq(m7_occ(&t), 1);
	ck_assert_uint_eq(ofl_sim_mmio_read32(t.b, M7_HEAD_HI), 0xFFFFFFFFu);
	ck_assert_msg(m7_new_errors(&t) == 1, "a pop of the high half was taken");
	ck_assert_msg(m7_occ(&t) == 1, "a 32-bit half popped the element");
	ck_assert_uint_eq(ofl_sim_mmio_read64(t.b, M7_HEAD_LO), M7_ELEM);
	ck_assert_uint_eq(m7_occ(&t), 0);
	ck_assert_uint_eq(m7_new_errors(&t), 0);
	k3fx_teardown(&t.w.f);
}
END_TEST

/* A peek is one 64-bit read too (CSL_ringaccPeek64()); it moves nothing. */
START_TEST(m7_peek_one_64bit_access_only)
{
	struct m7 t;

	m7_setup(&t);
	m7_one_element(&t);
	ck_assert_uint_eq(ofl_sim_mmio_read64(t.b, M7_PEEK_HEAD_LO), M7_ELEM);
	ck_assert_uint_eq(m7_new_errors(&t), 0);
	ofl_sim_mmio_read32(t.b, M7_PEEK_HEAD_HI);
	ofl_sim_mmio_read32(t.b, M7_PEEK_HEAD_LO);
	ck_assert_msg(m7_new_errors(&t) == 2, "a 32-bit peek of an 8-byte element was taken");
	ck_assert_uint_eq(m7_occ(&t), 1);
	k3fx_teardown(&t.w.f);
}
END_TEST

/* The doorbell of a MESSAGE-mode ring is refused and moves nothing. */
START_TEST(m7_message_doorbell_refused)
{
	struct m7 t;

	m7_setup(&t);
	ofl_mmio_write32(&t.w.r.rt, 0x10, 1);
	ck_assert_msg(m7_new_errors(&t) == 1, "a doorbell write to a MESSAGE-mode ring was taken silently");
	ck_assert_uint_eq(m7_occ(&t), 0);
	m7_one_element(&t);
	ofl_mmio_write32(&t.w.r.rt, 0x10, 0xFFFFFFFFu);
	ck_assert_uint_eq(m7_new_errors(&t), 1);
	ck_assert_uint_eq(m7_occ(&t), 1);
	k3fx_teardown(&t.w.f);
}
END_TEST

/* A refused access is marked in the register trace (OFFLOAD_SIM_TRACE), the accepted ones are not. */
START_TEST(m7_refusals_marked_in_the_trace)
{
	struct trace tr;
	struct m7 t;

	trace_start(&tr);
	m7_setup(&t);
	ofl_sim_mmio_write32(t.b, M7_TAIL_LO, (uint32_t)M7_ELEM); /* refused: half an element */
	ofl_sim_mmio_write64(t.b, M7_TAIL_LO, M7_ELEM);           /* taken */
	ofl_sim_mmio_read32(t.b, M7_HEAD_HI);                      /* refused: half an element */
	ofl_mmio_write32(&t.w.r.rt, 0x10, 1);                              /* refused: MESSAGE mode */
	k3fx_teardown(&t.w.f);
	trace_read(&tr);
	static const struct {
		const char *op, *reg;
		uint64_t addr;
		bool refused;
	} want[] = {
		{ "W32", "TAIL_DATA", M7_FIFOS + M7_TAIL_LO, true },
		{ "W64", "TAIL_DATA", M7_FIFOS + M7_TAIL_LO, false },
		{ "R32", "HEAD_DATA", M7_FIFOS + M7_HEAD_HI, true },
		{ "W32", "DB", 0, true },
	};
	size_t k = 0;
	for (size_t i = 0; i < tr.n && k < OFL_ARRAY_SIZE(want); i++) {
		const struct tline *l = &tr.l[i];
		if (!is(l, want[k].op, want[k].reg) || (want[k].addr && l->addr != want[k].addr))
			continue;
		ck_assert_msg(l->bus_error == want[k].refused, "line %zu: %s 0x%" PRIx64 " %s%s", i, l->op, l->addr,
			      l->reg, l->bus_error ? " bus-error" : " (not marked bus-error)");
		k++;
	}
	ck_assert_msg(k == OFL_ARRAY_SIZE(want), "only %zu of the %zu accesses traced", k, OFL_ARRAY_SIZE(want));
	trace_free(&tr);
}
END_TEST

/*
 * The library's pushes and pops as the model receives them: on a 64-bit host
 * one 64-bit access at the window end each, no bus error. On a 32-bit host
 * (armhf) the direct UDMA is refused at probe (TI CSL csl_ringacc.h: the
 * proxy, not two halves), so a traced open and copy attempt never touches a
 * FIFO window.
 */
START_TEST(m7_backend_access_forms)
{
	struct trace t;
	size_t pushes = 0, pops = 0;

	if (!K3FX_DIRECT_UDMA) {
		trace_start(&t);
		ck_assert(k3fx_udma_refused_here(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA));
		trace_read(&t);
	} else {
		traced_copy(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA, 8192, &t);
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct tline *l = &t.l[i];
		bool tail = strcmp(l->reg, "TAIL_DATA") == 0, head = strcmp(l->reg, "HEAD_DATA") == 0;
		if (!tail && !head)
			continue;
		ck_assert_msg(K3FX_DIRECT_UDMA, "line %zu: %s 0x%" PRIx64 " %s on a 32-bit host", i, l->op,
			      l->addr, l->reg);
		ck_assert_msg(!l->bus_error, "line %zu: %s 0x%" PRIx64 " %s bus-error", i, l->op, l->addr, l->reg);
		const char *op = tail ? "W64" : "R64";
		ck_assert_msg(strcmp(l->op, op) == 0, "line %zu: %s at 0x%" PRIx64 " (%s), want %s", i, l->op,
			      l->addr, l->reg, op);
		ck_assert_uint_eq(l->addr & 0x1FFu, 0x1F8);
		if (tail)
			pushes++;
		else
			pops++;
	}
	if (K3FX_DIRECT_UDMA)
		ck_assert_msg(pushes > 0 && pops > 0, "%zu pushes, %zu pops traced", pushes, pops);
	trace_free(&t);
}
END_TEST

/*
 * The backend's host rule (udma_host_check()), with the host fact forced both
 * ways: without one 64-bit access a ring-accelerator UDMA is refused with
 * TI CSL's reason and the way out; with it, served.
 */
START_TEST(m7_host_rule)
{
	char why[OFL_REASON_LEN] = "";

	ck_assert_int_eq(udma_host_check(true, why, sizeof(why)), 0);
	ck_assert_int_eq(udma_host_check(false, why, sizeof(why)), -ENOTSUP);
	ck_assert_msg(strstr(why, K3FX_NO_PROXY) && strstr(why, K3FX_NO_PROXY_WAY), "%s", why);
}
END_TEST

/* A world of a fixture tree's models (no backend probes it). */
static offload_ctx *dt_world(const char *name, const char *compat, struct ofl_sim **sim, const void **fdt)
{
	char err[256];
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, fixture(name), OFFLOAD_CTX_SIM, "cpu");

	*sim = ofl_sim_of(ctx);
	*fdt = ctx->drv.dt.fdt;
	int node = fdt_node_offset_by_compatible(*fdt, -1, compat);
	ck_assert_int_ge(node, 0);
	ck_assert_msg(ofl_sim_attach(*sim, *fdt, node, err, sizeof(err)) == 0, "%s", err);
	return ctx;
}

static uint32_t dt_read32(struct ofl_sim *sim, uint64_t phys)
{
	struct ofl_mmio m;

	ck_assert_int_eq(ofl_mmio_map_sim(sim, phys & ~0xFFull, 0x100, &m), 0);
	return ofl_mmio_read32(&m, phys & 0xFF);
}

/* M9: per-SoC channel counts from TI's sources where the model guessed. */
START_TEST(m9_channel_counts)
{
	struct ofl_sim *sim;
	const void *fdt;

	/* AM64x BCDMA: TI RM am64x udmap_cfg.h BC 28, TX 20, RX 20; CAP2 BCHAN 8:0, TCHAN 17:9, RCHAN 26:18 */
	offload_ctx *ctx = dt_world("bcdma-am642", AM64_BCDMA, &sim, &fdt);
	ck_assert_uint_eq(dt_read32(sim, dt_reg(fdt, AM64_BCDMA, "gcfg") + 0x28), 28u | 20u << 9 | 20u << 18);
	offload_ctx_free(ctx);
	/*
	 * J784S4 main UDMAP: TI RM j784s4 udmap_cfg.c TX 0-84 (UH 0-1, H 2-3), echan 85-340, RX 0-81,
	 * 224 RX flows. CAP2 TCHAN 8:0, ECHAN 17:9, RCHAN 26:18; CAP3 RFLOW 13:0, HCHAN 22:14, UCHAN 31:23.
	 */
	ctx = dt_world("udma-j784s4", J721E_UDMA, &sim, &fdt);
	uint64_t gcfg = dt_reg(fdt, J721E_UDMA, "gcfg");
	ck_assert_uint_eq(dt_read32(sim, gcfg + 0x28), 85u | 256u << 9 | 82u << 18);
	ck_assert_uint_eq(dt_read32(sim, gcfg + 0x2C), 224u | 4u << 14 | 2u << 23);
	offload_ctx_free(ctx);
}
END_TEST

/* D3 / M4: the AM65x UDMAP has no BURST_SIZE field: writes are ignored, it reads 0. */
START_TEST(m4_am654_has_no_burst_field)
{
	struct ofl_sim *sim;
	const void *fdt;
	struct ofl_mmio m;
	offload_ctx *ctx = dt_world("udma-am654", AM654_UDMA, &sim, &fdt);

	ck_assert_int_eq(ofl_mmio_map_sim(sim, dt_reg(fdt, AM654_UDMA, "tchan"), 0x10000, &m), 0);
	ofl_mmio_write32(&m, 0, UDMA_CFG_MEMCPY | (3u << 10));
	ck_assert_uint_eq(ofl_mmio_read32(&m, 0), UDMA_CFG_MEMCPY);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * M10 / D7: with DM firmware the channels of other hosts are firewalled: on
 * AM65x host 12 owns no tchan 0 (U-Boot board/ti/am65x/rm-cfg.yaml), so its
 * real-time registers are a bus error and the firmware NACKs its
 * configuration; tchan 2 is host 12's.
 */
START_TEST(m10_channels_of_other_hosts_refused)
{
	struct ofl_sim *sim;
	const void *fdt;
	struct ofl_mmio rt;
	struct ofl_fw *fw;
	uint8_t m[TISCI_MSG_MAX];
	char why[256];
	offload_ctx *ctx = dt_world("udma-am654-sci", AM654_UDMA, &sim, &fdt);

	ck_assert_int_eq(ofl_mmio_map_sim(sim, dt_reg(fdt, AM654_UDMA, "tchanrt"), 0x100000, &rt), 0);
	uint64_t e0 = ofl_sim_bus_errors(sim, NULL, 0);
	ofl_mmio_write32(&rt, 0 * 0x1000, 0x80000000u);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, NULL, 0), e0 + 1);
	ofl_mmio_write32(&rt, 2 * 0x1000, 0);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, NULL, 0), e0 + 1);
	int sci = fdt_node_offset_by_compatible(fdt, -1, "ti,am654-sci");
	ck_assert_int_eq(ofl_fw_open(&ctx->drv.plat, sci, &fw, why, sizeof(why)), 0);
	for (unsigned ch = 0; ch <= 2; ch += 2) {
		memset(m, 0, sizeof(m));
		tisci_put16(m, TISCI_HDR_TYPE, TISCI_MSG_RM_UDMAP_TX_CH_CFG);
		tisci_put32(m, TISCI_HDR_FLAGS, TISCI_FLAG_REQ_ACK_ON_PROCESSED);
		tisci_put32(m, TISCI_TX_VALID, 0x0E1F);
		tisci_put16(m, TISCI_TX_NAV_ID, 188);
		tisci_put16(m, TISCI_TX_INDEX, (uint16_t)ch);
		tisci_put8(m, TISCI_TX_CHAN_TYPE, 12);
		tisci_put16(m, TISCI_TX_FETCH_SIZE, 4);
		tisci_put16(m, TISCI_TX_CQ_QNUM, 304);
		ck_assert_int_eq(ofl_fw_xfer(fw, m, TISCI_TX_LEN, sizeof(m), why, sizeof(why)), ch ? 0 : -ENODEV);
	}
	ofl_fw_close(fw);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------- D6 / M5: AM65x SR1.0 TX-ring reset */

/*
 * CTRLMMR_WKUP_JTAGID (Linux drivers/soc/ti/k3-socinfo.c): VARIANT 31:28
 * (AM65x: 0 = SR1.0, 1 = SR2.0), PARTNO 27:12 (AM65x 0xBB5A), MFG 11:1
 * (TI 0x17), bit 0 always 1. The ring doorbell count per write is at most
 * 127 and the UDMA's internal occupancy is 21 bits wide, wrapped by 2^22 -
 * occ doorbell counts (k3-ringacc.c K3_RINGACC_MAX_DB_RING_CNT,
 * k3_ringacc_ring_reset_dma()).
 */
#define D6_DB_MAX 127u
#define D6_WRAP (1u << 22)
#define D6_STALE 2u

/*
 * On the AM65x test board at SoC revision `rev`: a memcpy channel gets
 * D6_STALE descriptors on its TX ring while it is stopped (what a teardown
 * leaves behind), then the backend's teardown reset; the ring's own OCC
 * before and after. `plain`: instead of the backend's reset, rewrite the
 * ring's SIZE as a reset that skips the quirk does.
 */
static void d6_leave_stale(offload_ctx *ctx, int d, bool plain, uint32_t *tx_ring)
{
	struct udma_engine *e = engine_of(ctx, d);
	struct udma_chan *ch;
	char why[256];

	ck_assert_msg(udma_chan_open(e, 16, false, &ch, why, sizeof(why)) == 0, "%s", why);
	*tx_ring = ch->tx_ring;
	uint64_t occ = (uint64_t)ch->tx_ring * 0x1000 + 0x18, size = (uint64_t)ch->tx_ring * 0x100 + 0x48;
	for (unsigned k = 0; k < D6_STALE; k++)
		udma_ring_push(ch, ch->desc->bus + 256u * k);
	ck_assert_uint_eq(ofl_mmio_read32(&e->ra_rt, occ) & 0x1FFFFF, D6_STALE);
	if (plain)
		ofl_mmio_write32(&e->ra_cfg, size, ofl_mmio_read32(&e->ra_cfg, size));
	else
		udma_chan_teardown(ch);
	ck_assert_uint_eq(ofl_mmio_read32(&e->ra_rt, occ) & 0x1FFFFF, 0);
	udma_chan_close(ch);
}

static offload_ctx *d6_open(const char *rev, struct trace *t)
{
	ck_assert_int_eq(setenv("OFFLOAD_SIM_SOC_REVISION", rev, 1), 0);
	if (t)
		trace_start(t);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, fixture("udma-am654"), OFFLOAD_CTX_SIM);
	ck_assert_msg(ctx != NULL, "open at %s", rev);
	return ctx;
}

/* The doorbell writes to ring `ring` of a trace: their count and sum, the largest; first and last line. */
static unsigned d6_doorbells(const struct trace *t, uint32_t ring, uint64_t *sum, uint32_t *max, size_t *first,
			     size_t *last)
{
	unsigned n = 0;

	*sum = 0;
	*max = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct tline *l = &t->l[i];
		if (!is(l, "W32", "DB") || strcmp(l->unit, "ring") != 0 || l->idx != ring)
			continue;
		if (!n++)
			*first = i;
		*last = i;
		*sum += l->val;
		*max = OFL_MAX(*max, (uint32_t)l->val);
	}
	return n;
}

/* The QMODE (31:30) of the last SIZE write to ring `ring` in lines [from, to), or -1. */
static int d6_qmode_between(const struct trace *t, uint32_t ring, size_t from, size_t to)
{
	int q = -1;

	for (size_t i = from; i < to && i < t->n; i++)
		if (is(&t->l[i], "W32", "SIZE") && strcmp(t->l[i].unit, "ring") == 0 && t->l[i].idx == ring)
			q = (int)((t->l[i].val >> 30) & 3u);
	return q;
}

/*
 * A teardown reset with D6_STALE descriptors on the TX ring at revision
 * `rev`, then a copy on the same channel; the reset's doorbell writes. On
 * SR1.0 (`quirk`) they are k3_ringacc_ring_reset_dma()'s: reset, RING mode,
 * doorbell 2^22 - occ (at most 127 per write), MESSAGE mode again, reset.
 * SR2.0 needs none: Linux matches SR1.0 only (k3_ringacc_socinfo).
 */
static void d6_reset(const char *rev, bool quirk)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	struct trace t;
	uint32_t ring;
	uint64_t sum;
	uint32_t max;
	size_t first = 0, last = 0;
	offload_ctx *ctx = d6_open(rev, &t);
	int d = dev_of(ctx, AM654_UDMA);

	d6_leave_stale(ctx, d, false, &ring);
	copy_on(ctx, d, 4096);
	uint64_t errs = ofl_sim_bus_errors(ofl_sim_of(ctx), NULL, 0);
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_SIM_SOC_REVISION");
	trace_read(&t);
	ck_assert_uint_eq(errs, 0);
	unsigned n = d6_doorbells(&t, ring, &sum, &max, &first, &last);
	if (!quirk) {
		ck_assert_uint_eq(n, 0);
	} else {
		ck_assert_msg(n > 0, "no doorbell write to TX ring %u: the SR1.0 reset quirk was skipped", ring);
		ck_assert_uint_eq(sum, D6_WRAP - D6_STALE);
		ck_assert_uint_le(max, D6_DB_MAX);
		ck_assert_uint_eq(n, (D6_WRAP - D6_STALE + D6_DB_MAX - 1) / D6_DB_MAX);
		ck_assert_int_eq(d6_qmode_between(&t, ring, 0, first), K3_RING_MODE_RING);
		ck_assert_int_eq(d6_qmode_between(&t, ring, last, t.n), K3_RING_MODE_MESSAGE);
	}
	trace_free(&t);
}

/* D6: on AM65x SR1.0 the TX-ring reset wraps the UDMA's own occupancy; the next copy runs. */
START_TEST(d6_sr1_tx_ring_reset_quirk) { d6_reset("SR1.0", true); }
END_TEST

/* D6: SR2.0 (JTAGID VARIANT 1): a plain reset, and the next copy runs. */
START_TEST(d6_sr2_no_quirk) { d6_reset("SR2.0", false); }
END_TEST

/*
 * M5 / D6: the SR1.0 model keeps the UDMA's own occupancy of a TX ring
 * across a plain reset (a SIZE rewrite), so the next copy on that ring
 * fetches stale descriptors: it fails, and the world reports why. SR2.0
 * takes the same plain reset and copies.
 */
START_TEST(m5_sr1_reset_keeps_the_udma_occupancy)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	char last[256] = "";
	uint32_t ring;
	uint8_t s[4096], x[4096];
	struct offload_result res;

	for (int sr1 = 1; sr1 >= 0; sr1--) {
		offload_ctx *ctx = d6_open(sr1 ? "SR1.0" : "SR2.0", NULL);
		int d = dev_of(ctx, AM654_UDMA);
		struct udma_engine *e = engine_of(ctx, d);
		d6_leave_stale(ctx, d, true, &ring);
		if (sr1) /* it never completes: no need to wait long */
			e->timeout_ns = TEST_IMPATIENT_NS;
		memset(s, 0x3C, sizeof(s));
		memset(x, 0, sizeof(x));
		int r = offload_memcpy_dev(ctx, d, x, s, sizeof(s), &res);
		uint64_t errs = ofl_sim_bus_errors(ofl_sim_of(ctx), last, sizeof(last));
		if (sr1) {
			ck_assert_msg(r < 0, "SR1.0: a copy after a plain reset of a ring with %u stale entries "
				      "succeeded", D6_STALE);
			ck_assert_uint_ge(errs, 1);
			ck_assert_msg(strstr(last, "SR1.0") != NULL, "%s", last);
		} else {
			ck_assert_msg(r == 0, "SR2.0: %d %s", r, offload_last_error(ctx));
			ck_assert_int_eq(memcmp(s, x, sizeof(s)), 0);
			ck_assert_uint_eq(errs, 0);
		}
		offload_ctx_free(ctx);
	}
	unsetenv("OFFLOAD_SIM_SOC_REVISION");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udma-fidelity");
	TCase *b = tcase_create("backend");
	TCase *m = tcase_create("model");

	tcase_set_timeout(b, 600);
	tcase_set_timeout(m, 300);
	tcase_add_test(b, d1_direct_pairs_through_the_psil_proxy);
	tcase_add_test(b, d1_tisci_pair_is_the_proxy_sequence);
	tcase_add_test(b, d1_direct_refused_without_the_proxy_address);
	tcase_add_test(b, d2_bcdma_ring_size_keeps_qmode);
	tcase_add_test(b, d3_am654_burst_left_alone);
	tcase_add_test(b, d4_channel_config_is_read_modify_write);
	tcase_add_test(b, d4_bchan_config_is_read_modify_write);
	tcase_add_test(b, d5_bcdma_h_bchan_burst_untouched);
	tcase_add_test(b, d6_sr1_tx_ring_reset_quirk);
	tcase_add_test(b, d6_sr2_no_quirk);
	tcase_add_test(b, d7_tisci_ranges_pick_an_owned_channel);
	tcase_add_test(b, d7_direct_needs_a_board_configuration);
	tcase_add_test(b, d8_close_unpairs_and_frees_direct);
	tcase_add_test(b, d8_close_unpairs_and_frees_tisci);
	tcase_add_test(b, d9_udma_addresses_carry_no_asel);
	tcase_add_test(b, d10_rflow_range_cleared_direct);
	tcase_add_test(b, d10_rflow_range_cleared_by_firmware);
	tcase_add_test(b, a1_tr_responses);
	tcase_add_test(m, m1_thread_registers_alone_do_not_pair);
	tcase_add_test(m, m2_dring_qmode);
	tcase_add_test(m, m3_rx_configuration_checked);
	tcase_add_test(m, m4_burst_beyond_the_class_halts);
	tcase_add_test(m, m4_config_registers_have_fields);
	tcase_add_test(m, m4_bcdma_burst_zero_is_32_bytes);
	tcase_add_test(m, m4_am654_has_no_burst_field);
	tcase_add_test(m, m5_notdpkt_suppresses_the_tdcm);
	tcase_add_test(m, m5_sr1_reset_keeps_the_udma_occupancy);
	tcase_add_test(m, m6_retq_differs_from_tcq_is_flagged);
	tcase_add_test(m, m9_channel_counts);
	tcase_add_test(m, m10_channels_of_other_hosts_refused);
	TCase *m7 = tcase_create("m7");
	tcase_set_timeout(m7, 300);
	tcase_add_test(m7, m7_push_one_64bit_access_only);
	tcase_add_test(m7, m7_push_half_or_misplaced_refused);
	tcase_add_test(m7, m7_pop_one_64bit_access_only);
	tcase_add_test(m7, m7_peek_one_64bit_access_only);
	tcase_add_test(m7, m7_message_doorbell_refused);
	tcase_add_test(m7, m7_refusals_marked_in_the_trace);
	tcase_add_test(m7, m7_backend_access_forms);
	tcase_add_test(m7, m7_host_rule);
	suite_add_tcase(s, b);
	suite_add_tcase(s, m);
	suite_add_tcase(s, m7);
	return test_run(s);
}
