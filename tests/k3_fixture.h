/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: a sim world with a TI K3 UDMA (J721E main NAVSS) or BCDMA
 * (AM64x DMSS) model at the addresses of the real device trees, and a
 * backends/udma engine mapped onto it, built without any device tree.
 *
 * Counts: J721E main UDMAP per TI-SCI "J721E DMA Device Descriptions"
 * (TX_UHCHAN 0-3, TX_HCHAN 4-15, TX_CHAN 16-139, TX_ECHAN 140-299; RX the
 * same up to 139; 300 rx flows); BCDMA per TI-SCI "AM62X DMA Device
 * Descriptions" (32 block-copy, 22 TX, 28 RX channels).
 */
#ifndef OFFLOAD_TEST_K3_FIXTURE_H
#define OFFLOAD_TEST_K3_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "platform/platform.h"
#include "sim/k3_models.h"
#include "sim/sim.h"
#include "simutil.h"
#include "testutil.h"
#include "udma/udma.h"

#define J7_TCHAN 140u
#define J7_ECHAN 160u
#define J7_RCHAN 140u
#define J7_HCHAN 16u /* includes the 4 UH channels */
#define J7_UCHAN 4u
#define J7_RINGS 1024u
#define J7_PSIL 0x1000u
/* TI-SCI device IDs, as the virtual board and the J721E / AM64x trees give them */
#define K3FX_NAVSS_ID 199u
#define K3FX_RA_ID 211u
#define K3FX_UDMA_ID 212u
#define K3FX_BCDMA_ID 26u
/* The PSI-L configuration proxy of the J721E main NAVSS (TI PDK CSL_NAVSS0_UDMASS_PSILCFG0_CFG_PROXY_BASE). */
#define K3FX_PSIL_PROXY 0x31F78000ull

struct k3fx {
	offload_ctx *ctx;
	struct ofl_device *dev;
	struct ofl_sim *sim;
	struct ofl_sim_ringacc *ra;
	struct ofl_sim_udma *model;
	struct udma_engine e;
	bool bcdma;
};

static inline void k3fx_map(struct k3fx *f, struct ofl_mmio *m, uint64_t phys, uint64_t size)
{
	ck_assert_int_eq(ofl_mmio_map_sim(f->sim, phys, size, m), 0);
}

/* fifos_size: the ring accelerator's FIFO window block (0: the real 4 MiB). */
/* The AM64x-like BCDMA model of k3fx_models() (regions as the test boards; 32/22/28 channels). */
static inline struct ofl_sim_udma_params k3fx_bcdma_params(bool firewalled)
{
	struct ofl_sim_udma_params up = {
		.bcdma = true,
		.gcfg = 0x485c0100, .gcfg_size = 0x100,
		.bchanrt = 0x4c000000, .bchanrt_size = 0x20000,
		.rchanrt = 0x4a820000, .rchanrt_size = 0x20000,
		.tchanrt = 0x4aa40000, .tchanrt_size = 0x20000,
		.ringrt = 0x4bc00000, .ringrt_size = 0x100000,
		.ring = 0x48600000, .ring_size = 0x8000,
		.tchan = 0x484a4000, .tchan_size = 0x2000,
		.rchan = 0x484c2000, .rchan_size = 0x2000,
		.bchan = 0x48420000, .bchan_size = 0x2000,
		.bchan_cnt = 32, .tchan_cnt = 22, .rchan_cnt = 28, .psil_base = 0x2000,
		.cfg_firewalled = firewalled, .sci_dev_id = K3FX_BCDMA_ID, .node = -1,
	};
	return up;
}

static inline void k3fx_models(struct k3fx *f, bool bcdma, bool firewalled, uint64_t fifos_size)
{
	if (!bcdma) {
		struct ofl_sim_ringacc_params rp = {
			.num_rings = J7_RINGS,
			.rt = 0x3c000000, .rt_size = 0x400000,
			.fifos = 0x38000000, .fifos_size = fifos_size ? fifos_size : 0x400000,
			.proxy_gcfg = 0x31120000, .proxy_gcfg_size = 0x100,
			.proxy_target = 0x33000000, .proxy_target_size = 0x40000,
			.cfg = 0x31080000, .cfg_size = 0x40000,
			.cfg_firewalled = firewalled, .sci_dev_id = K3FX_RA_ID, .node = -1,
		};
		f->ra = ofl_sim_ringacc_create(f->sim, &rp);
		ck_assert_ptr_nonnull(f->ra);
		struct ofl_sim_udma_params up = {
			.gcfg = 0x31150000, .gcfg_size = 0x100,
			.rchanrt = 0x34000000, .rchanrt_size = 0x100000,
			.tchanrt = 0x35000000, .tchanrt_size = 0x100000,
			.tchan = 0x30b00000, .tchan_size = 0x20000,
			.rchan = 0x30c00000, .rchan_size = 0x10000,
			.rflow = 0x30d00000, .rflow_size = 0x8000,
			.tchan_cnt = J7_TCHAN, .echan_cnt = J7_ECHAN, .rchan_cnt = J7_RCHAN, .rflow_cnt = 300,
			.hchan_cnt = J7_HCHAN, .uchan_cnt = J7_UCHAN, .psil_base = J7_PSIL, .ra = f->ra,
			.cfg_firewalled = firewalled, .sci_dev_id = K3FX_UDMA_ID,
			.navss_dev_id = K3FX_NAVSS_ID, .psil_proxy = K3FX_PSIL_PROXY, .node = -1,
		};
		f->model = ofl_sim_udma_create(f->sim, &up);
	} else {
		struct ofl_sim_udma_params up = k3fx_bcdma_params(firewalled);
		f->model = ofl_sim_udma_create(f->sim, &up);
	}
	ck_assert_ptr_nonnull(f->model);
}

/*
 * The PSI-L configuration proxy of the J721E / AM65x main NAVSS and its
 * commands, written here from TI's CSL (cslr_psilcfg.h: PSIL_TO 0x10 with
 * TOUT 31, CMDA 0x100 with BUSY 31, DIR 30 = read, TO 29, THREAD_ID 15:0,
 * CMDB 0x104 with BYTEN 31:28 and ADDRESS 15:0, WDATA 0x108, RDATA 0x140;
 * csl_psilcfg.h: PEER_THREAD_ID 0x000, PEER_CREDIT 0x001, ENABLE 0x002,
 * CAPABILITIES 0x040, RT_ENABLE 0x408, enable bit 31), not from the code
 * under test.
 */

/* One proxy command as TI CSL csl_psilcfg.c CSL_psilcfgRead()/Write() issue it. false on a timeout. */
static inline bool k3fx_psil_cmd(const struct ofl_mmio *px, bool read, uint32_t thread, uint32_t reg,
				 uint32_t *data)
{
	if (ofl_mmio_read32(px, 0x100) & (1u << 31))
		return false;
	ofl_mmio_write32(px, 0x100, (read ? 1u << 30 : 0) | thread);
	ofl_mmio_write32(px, 0x104, (0xFu << 28) | reg);
	if (!read)
		ofl_mmio_write32(px, 0x108, *data);
	for (int i = 0; i < 1000 && (ofl_mmio_read32(px, 0x100) & (1u << 31)); i++)
		;
	uint32_t a = ofl_mmio_read32(px, 0x100);
	if (a & ((1u << 31) | (1u << 29))) {
		ofl_mmio_write32(px, 0x10, ofl_mmio_read32(px, 0x10) & ~(1u << 31));
		return false;
	}
	if (read)
		*data = ofl_mmio_read32(px, 0x140);
	return true;
}

/* TI CSL CSL_psilcfgCreateRoute(src, dst) through the proxy at `base`. false when absent or timed out. */
static inline bool k3fx_psil_route(struct ofl_sim *sim, uint64_t base, uint32_t src, uint32_t dst)
{
	struct ofl_mmio px;
	uint32_t caps, v;

	if (ofl_mmio_map_sim(sim, base, 0x200, &px) < 0)
		return false;
	if (!k3fx_psil_cmd(&px, true, dst, 0x040, &caps))
		return false;
	v = (caps & 0x1F000000u) | dst;
	if (!k3fx_psil_cmd(&px, false, src, 0x000, &v))
		return false;
	v = caps & 0xFFu;
	if (!k3fx_psil_cmd(&px, false, src, 0x001, &v))
		return false;
	const uint32_t th[4] = { dst, src, dst, src }, rg[4] = { 0x002, 0x002, 0x408, 0x408 };
	for (int k = 0; k < 4; k++) {
		if (!k3fx_psil_cmd(&px, true, th[k], rg[k], &v))
			return false;
		v |= 1u << 31;
		if (!k3fx_psil_cmd(&px, false, th[k], rg[k], &v))
			return false;
	}
	return true;
}

/* The register regions of the models k3fx_models() makes, mapped by k3fx_map_regs(). */
struct k3fx_regs {
	struct ofl_mmio gcfg, tchanrt, rchanrt, tchan, rchan, rt, fifos, cfg;
	struct ofl_mmio bchanrt, ringrt, ring, bchan;
};

static inline void k3fx_map_regs(struct k3fx *f, struct k3fx_regs *r, bool bcdma)
{
	memset(r, 0, sizeof(*r));
	if (!bcdma) {
		k3fx_map(f, &r->gcfg, 0x31150000, 0x100);
		k3fx_map(f, &r->rchanrt, 0x34000000, 0x100000);
		k3fx_map(f, &r->tchanrt, 0x35000000, 0x100000);
		k3fx_map(f, &r->tchan, 0x30b00000, 0x20000);
		k3fx_map(f, &r->rchan, 0x30c00000, 0x10000);
		k3fx_map(f, &r->rt, 0x3c000000, 0x400000);
		k3fx_map(f, &r->fifos, 0x38000000, 0x400000);
		k3fx_map(f, &r->cfg, 0x31080000, 0x40000);
	} else {
		k3fx_map(f, &r->gcfg, 0x485c0100, 0x100);
		k3fx_map(f, &r->bchanrt, 0x4c000000, 0x20000);
		k3fx_map(f, &r->ringrt, 0x4bc00000, 0x100000);
		k3fx_map(f, &r->ring, 0x48600000, 0x8000);
		k3fx_map(f, &r->bchan, 0x48420000, 0x2000);
	}
}

/*
 * A context on the cpu and udma backends. The engines' models run in their
 * own threads, so every engine gets bounds a loaded machine cannot reach
 * (testutil.h); tests of the watchdog itself shorten it for a stuck channel.
 */
static inline offload_ctx *k3fx_open_ctx(enum offload_dt_source src, const char *path, uint32_t flags)
{
	offload_ctx *ctx = test_ctx_open(src, path, flags, "cpu,udma");

	for (int i = 0; ctx && i < offload_dev_count(ctx); i++) {
		struct ofl_device *d = ofl_ctx_device(ctx, i);
		if (d->backend && !strcmp(d->backend->name, "udma") && d->priv) {
			struct udma_engine *e = d->priv;
			e->timeout_ns = e->teardown_ns = TEST_PATIENT_NS;
		}
	}
	return ctx;
}

/*
 * Does this host drive a ring-accelerator UDMA directly? Only a 64-bit CPU:
 * a 32-bit one has no single 64-bit access, and TI's CSL (csl_ringacc.h,
 * CSL_ringaccPush64()) sends it through the ring accelerator proxy, which
 * the backend does not drive (docs/fidelity.md M7). BCDMA is not affected.
 */
#define K3FX_DIRECT_UDMA OFL_MMIO_SINGLE_64
/* The refusal's reason, as the decision on M7 words it (issue #14). */
#define K3FX_NO_PROXY "a 32-bit CPU reaches 8-byte ring elements only through the ring accelerator proxy " \
	"(TI CSL csl_ringacc.h), which this backend does not drive"
#define K3FX_NO_PROXY_WAY "the kernel's k3-udma through the dmaengine backend (offload_dma module) serves this engine"

/*
 * Assert that device dev (a ring-accelerator UDMA) is listed but unusable,
 * with the 32-bit reason and the way out, and that a copy on it is refused
 * with -ENODEV or -ENOTSUP and leaves the destination alone.
 */
static inline void k3fx_assert_no_proxy(offload_ctx *ctx, int dev)
{
	struct offload_dev_info info;
	uint8_t s[64], x[64];

	ck_assert_int_eq(offload_dev_get_info(ctx, dev, &info, sizeof(info)), 0);
	ck_assert_msg(!(info.flags & OFFLOAD_DEVF_USABLE), "the UDMA is usable on a 32-bit host: %s",
		      info.usable_reason);
	ck_assert_msg(strstr(info.usable_reason, K3FX_NO_PROXY) && strstr(info.usable_reason, K3FX_NO_PROXY_WAY),
		      "reason: %s", info.usable_reason);
	memset(s, 0xA5, sizeof(s));
	memset(x, 0, sizeof(x));
	int r = offload_memcpy_dev(ctx, dev, x, s, sizeof(s), NULL);
	ck_assert_msg(r == -ENODEV || r == -ENOTSUP, "a copy on the refused UDMA returned %d", r);
	for (size_t i = 0; i < sizeof(x); i++)
		ck_assert_uint_eq(x[i], 0);
}

/*
 * A test of copies through an engine the fixture drives without a probe
 * (k3fx_setup()): on a 32-bit host assert that the backend's host rule
 * refuses the ring-accelerator UDMA with the reason and return true (the test
 * stops); on a 64-bit host assert that it serves and return false.
 */
static inline bool k3fx_no_proxy_here(void)
{
	char why[OFL_REASON_LEN] = "";
	int r = udma_host_check(OFL_MMIO_SINGLE_64, why, sizeof(why));

	if (K3FX_DIRECT_UDMA) {
		ck_assert_msg(r == 0, "%s", why);
		return false;
	}
	ck_assert_int_eq(r, -ENOTSUP);
	ck_assert_msg(strstr(why, K3FX_NO_PROXY) && strstr(why, K3FX_NO_PROXY_WAY), "%s", why);
	return true;
}

/* Stop a test of direct UDMA copies on a 32-bit host, after asserting the refusal there. */
#define K3FX_DIRECT_UDMA_OR_STOP() do { if (k3fx_no_proxy_here()) return; } while (0)
#define K3FX_UDMA_OR_STOP(src, path, compat) do { if (k3fx_udma_refused_here(src, path, compat)) return; } while (0)

/*
 * One 64-bit access to a model's block on every host: what a 64-bit CPU
 * issues (a 32-bit one has none; ofl_mmio_write64 splits it there, which the
 * ring accelerator refuses, M7). For model-level tests that run everywhere.
 */
static inline void k3fx_write64(const struct ofl_mmio *m, uint64_t off, uint64_t v)
{
	ck_assert(OFL_MMIO_SIMULATED(m) && ofl_mmio_in(m, off, 8));
	m->prov->write64(m->sim, off, v);
}

static inline uint64_t k3fx_read64(const struct ofl_mmio *m, uint64_t off)
{
	ck_assert(OFL_MMIO_SIMULATED(m) && ofl_mmio_in(m, off, 8));
	return m->prov->read64(m->sim, off);
}

/*
 * On a 32-bit host: open the tree (src, path), assert k3fx_assert_no_proxy()
 * on its `compat` device and return true, so that a test of copies through
 * the direct UDMA stops there; on a 64-bit host return false.
 */
static inline bool k3fx_udma_refused_here(enum offload_dt_source src, const char *path, const char *compat)
{
	if (K3FX_DIRECT_UDMA)
		return false;
	offload_ctx *ctx = test_ctx_open(src, path, OFFLOAD_CTX_SIM, "cpu,udma");
	int d = offload_dev_find(ctx, compat);
	ck_assert_msg(d >= 0, "no %s: %s", compat, offload_last_error(ctx));
	k3fx_assert_no_proxy(ctx, d);
	offload_ctx_free(ctx);
	return true;
}

/* Wait (bounded by TEST_PATIENT_NS: the models run in their own threads) for the occupancy at rt+off to reach `want`; its last value. */
static inline uint32_t k3fx_occ_wait(const struct ofl_mmio *rt, uint64_t off, uint32_t want)
{
	uint32_t v = 0;

	for (uint64_t t0 = ofl_now_ns(); ofl_now_ns() - t0 < TEST_PATIENT_NS;) {
		v = ofl_mmio_read32(rt, off);
		if ((v & 0x1FFFFF) >= want)
			return v;
		nanosleep(&(struct timespec){ 0, 10000 }, NULL);
	}
	return v;
}

/* A context (no device tree) whose sim world the models live in. */
static inline void k3fx_world(struct k3fx *f, bool noncoherent)
{
	memset(f, 0, sizeof(*f));
	f->ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL,
			       OFFLOAD_CTX_SIM | (noncoherent ? OFFLOAD_CTX_SIM_NONCOHERENT : 0), NULL);
	f->dev = calloc(1, sizeof(*f->dev));
	ck_assert_ptr_nonnull(f->dev);
	f->dev->ctx = f->ctx;
	f->dev->index = 0;
	ofl_strlcpy(f->dev->name, "test-k3", sizeof(f->dev->name));
	f->sim = ofl_sim_of(f->ctx);
	ck_assert_ptr_nonnull(f->sim);
}

/* Configure through the world's DM firmware model: TI-SCI messages over the platform's channel. */
static inline void k3fx_firmware(struct k3fx *f)
{
	char why[256];
	struct udma_engine *e = &f->e;

	if (!e->sci)
		ck_assert_msg(ofl_fw_open(&f->ctx->drv.plat, -1, &e->sci, why, sizeof(why)) == 0, "%s", why);
	e->fw = &udma_fw_tisci;
	e->sci_dev_id = (uint16_t)(f->bcdma ? K3FX_BCDMA_ID : K3FX_UDMA_ID);
	e->ra_dev_id = (uint16_t)K3FX_RA_ID;
	e->navss_dev_id = K3FX_NAVSS_ID;
}

/*
 * Everything: world, models, engine over them. With `firmware` the models
 * firewall their configuration registers (DM firmware owns them) and the
 * engine configures through the TI-SCI hook. A non-zero `fifos_size` gives
 * the UDMA ring accelerator a FIFO window block of that size while the
 * engine is told the real 4 MiB: accesses past the block are bus errors, as
 * on a tree or an interconnect that does not match the hardware.
 */
static inline void k3fx_setup_ex(struct k3fx *f, bool bcdma, bool noncoherent, bool firmware,
				 uint64_t fifos_size)
{
	char why[256];

	k3fx_world(f, noncoherent);
	f->bcdma = bcdma;
	k3fx_models(f, bcdma, firmware, fifos_size);
	struct udma_engine *e = &f->e;
	e->dev = f->dev;
	e->bcdma = bcdma;
	e->sim = true;
	ofl_strlcpy(e->name, bcdma ? "test-bcdma" : "test-udma", sizeof(e->name));
	if (!bcdma) {
		k3fx_map(f, &e->gcfg, 0x31150000, 0x100);
		k3fx_map(f, &e->rchanrt, 0x34000000, 0x100000);
		k3fx_map(f, &e->tchanrt, 0x35000000, 0x100000);
		k3fx_map(f, &e->tchancfg, 0x30b00000, 0x20000);
		k3fx_map(f, &e->rchancfg, 0x30c00000, 0x10000);
		k3fx_map(f, &e->ra_rt, 0x3c000000, 0x400000);
		k3fx_map(f, &e->ra_fifos, 0x38000000, fifos_size ? fifos_size : 0x400000);
		e->ra_fifos.size = 0x400000;
		k3fx_map(f, &e->ra_cfg, 0x31080000, 0x40000);
		k3fx_map(f, &e->psilcfg, K3FX_PSIL_PROXY, 0x200); /* J721E main NAVSS (hw/k3_udma.h §3.7) */
		e->psil_base = J7_PSIL;
		e->ra_rings = J7_RINGS;
		/* j721e_main_data: burst 64 / 256 / 256 B for normal / H / UH (hw/k3_udma.h §2) */
		e->burst_by_tpl[0] = 64;
		e->burst_by_tpl[1] = 256;
		e->burst_by_tpl[2] = 256;
		e->align = 256;
	} else {
		k3fx_map(f, &e->gcfg, 0x485c0100, 0x100);
		k3fx_map(f, &e->bchanrt, 0x4c000000, 0x20000);
		k3fx_map(f, &e->ringrt, 0x4bc00000, 0x100000);
		k3fx_map(f, &e->ringcfg, 0x48600000, 0x8000);
		k3fx_map(f, &e->bchancfg, 0x48420000, 0x2000);
		e->psil_base = 0x2000;
		e->burst_by_tpl[0] = 64; /* am64_bcdma_data: 64 B normal only */
		e->align = 64;
	}
	e->cache = noncoherent ? OFFLOAD_CACHE_STREAMING : OFFLOAD_CACHE_COHERENT;
	if (noncoherent && e->align < ofl_sim_cache_line(f->sim))
		e->align = (uint32_t)ofl_sim_cache_line(f->sim);
	struct ofl_dma_pool_opts po = { .cache = e->cache };
	ck_assert_int_eq(ofl_dma_pool_create(f->dev, &po, &e->pool), 0);
	f->dev->dma = e->pool;
	f->dev->priv = e;
	if (firmware)
		k3fx_firmware(f);
	/* the model runs in its own thread: bounds a loaded machine cannot reach (testutil.h) */
	e->timeout_ns = TEST_PATIENT_NS;
	e->teardown_ns = TEST_PATIENT_NS;
	int r = udma_engine_init(e, why, sizeof(why));
	ck_assert_msg(r == 0, "udma_engine_init: %d %s", r, why);
}

static inline void k3fx_setup_fw(struct k3fx *f, bool bcdma, bool noncoherent, bool firmware)
{
	k3fx_setup_ex(f, bcdma, noncoherent, firmware, 0);
}

static inline void k3fx_setup(struct k3fx *f, bool bcdma, bool noncoherent)
{
	k3fx_setup_fw(f, bcdma, noncoherent, false);
}

static inline void k3fx_teardown(struct k3fx *f)
{
	if (f->e.chan_busy)
		udma_engine_fini(&f->e);
	if (f->e.pool)
		ofl_dma_pool_destroy(f->e.pool);
	ofl_fw_close(f->e.sci);
	free(f->dev);
	offload_ctx_free(f->ctx);
}

/* A user DMA buffer of the fixture's device (zero-copy for the engine). */
static inline void *k3fx_buf(struct k3fx *f, size_t len, struct ofl_dma **out)
{
	char why[256];
	struct ofl_dma *d;
	int r = ofl_dma_alloc(f->e.pool, len, 4096, f->e.cache, true, &d, why, sizeof(why));

	ck_assert_msg(r == 0, "ofl_dma_alloc: %d %s", r, why);
	if (out)
		*out = d;
	return d->cpu;
}

#endif
