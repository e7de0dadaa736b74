/* SPDX-License-Identifier: MIT */
/*
 * The eip97 backend: binding an "inside-secure,safexcel-eip97*" device-tree
 * node. The register window (reg[0]) is mapped through UIO, VFIO-platform,
 * /dev/mem on the DT-declared region, or the sim world's model; the layout
 * is confirmed from the silicon as Linux safexcel_probe_generic() does
 * (hw/eip97.h §1.3): the EIP-202 signature at 0xfffc (EIP97 layout, native
 * or byte-swapped), else at 0x9fffc (EIP197 layout, which this backend
 * declines), then the EIP97, EIP-206 and EIP-96 versions, the HIA options
 * and the ring AIC count (§1.4, §2.2, §2.3).
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eip97.h"

static uint32_t rd(const struct eip97_engine *e, uint32_t off)
{
	return ofl_mmio_read32(&e->regs, off);
}

static bool sig(uint32_t v, uint32_t s)
{
	return EIP97_VER_SIG(v) == s;
}

/* §1.3: find the EIP-202 signature and the layout. 0, -ENOTSUP (EIP197) or -ENODEV. */
static int identify(struct eip97_engine *e, char *why, size_t wl)
{
	uint32_t v = rd(e, EIP97_HIA_VERSION);

	if ((v >> 16) == EIP97_SIG_HIA_SWAPPED && !sig(v, EIP97_SIG_HIA)) {
		/* byte-swapped registers: toggle the swap bits (seen as 1:0 through the swap) */
		ofl_mmio_write32(&e->regs, EIP97_HIA_MST_CTRL,
				 rd(e, EIP97_HIA_MST_CTRL) ^ EIP97_MST_CTRL_SWAP_TOGGLE);
		e->swapped = true;
		v = rd(e, EIP97_HIA_VERSION);
	}
	if (!sig(v, EIP97_SIG_HIA)) {
		uint32_t v197 = e->regs.size > EIP197_HIA_VERSION ? rd(e, EIP197_HIA_VERSION) : 0;
		if (sig(v197, EIP97_SIG_HIA) || (v197 >> 16) == EIP97_SIG_HIA_SWAPPED) {
			snprintf(why, wl, "EIP197 register layout (EIP-202 signature at 0x9fffc): this backend "
				 "drives the EIP97 layout only; the EIP197 needs its classifier firmware and "
				 "record-cache invalidation (Linux safexcel.c eip197_trc_cache_init(); docs/policy.md "
				 "§6), not implemented");
			return -ENOTSUP;
		}
		snprintf(why, wl, "no SafeXcel EIP-202 signature: 0xfffc reads 0x%08x%s (want 0x....%04x)",
			 v, e->regs.size > EIP197_HIA_VERSION ? ", 0x9fffc too" : "", EIP97_SIG_HIA);
		return -ENODEV;
	}
	e->hia_ver = v;
	e->top_ver = rd(e, EIP97_GLOBAL_VERSION);
	e->pe_ver = rd(e, EIP97_PE_VERSION);
	e->eip96_ver = rd(e, EIP97_EIP96_VERSION);
	if (!sig(e->top_ver, EIP97_SIG_EIP97)) {
		snprintf(why, wl, "EIP-202 found but the global version at 0x1fffc reads 0x%08x, not an "
			 "EIP97 (0x....%04x)", e->top_ver, EIP97_SIG_EIP97);
		return -ENODEV;
	}
	if (!sig(e->pe_ver, EIP97_SIG_EIP206) || !sig(e->eip96_ver, EIP97_SIG_EIP96)) {
		snprintf(why, wl, "EIP97 without the expected pipe: EIP-206 version 0x%08x, EIP-96 version "
			 "0x%08x", e->pe_ver, e->eip96_ver);
		return -ENODEV;
	}
	return 0;
}

/* §2.3, §2.2, §6.1 step 1: options, ring AICs, algorithms, ring geometry. */
static int configure(struct eip97_engine *e, char *why, size_t wl)
{
	e->hia_options = rd(e, EIP97_HIA_OPTIONS);
	e->hwrings = EIP97_OPT_RINGS(e->hia_options);
	e->cfsize = EIP97_OPT_CFSIZE(e->hia_options);
	e->rfsize = EIP97_OPT_RFSIZE(e->hia_options);
	e->hwdataw = EIP97_OPT_DATAW(e->hia_options);
	for (e->ring_aics = 0; e->ring_aics < EIP97_AIC_SCAN_MAX; e->ring_aics++)
		if (!sig(rd(e, EIP97_AIC_R(e->ring_aics) + EIP97_AIC_VERSION), EIP97_SIG_EIP201))
			break;
	e->algo_flags = rd(e, EIP97_EIP96_OPTIONS);
	e->nrings = OFL_MIN(OFL_MIN(e->hwrings, EIP97_MAX_RINGS), e->ring_aics);
	if (!e->nrings) {
		snprintf(why, wl, "no usable ring: HIA_OPTIONS 0x%08x says %u rings, %u ring AICs answer",
			 e->hia_options, e->hwrings, e->ring_aics);
		return -ENODEV;
	}
	uint32_t cd_bus = eip97_round_words(EIP97_CD_WORDS, e->hwdataw) >> e->hwdataw;
	uint32_t rd_bus = eip97_round_words(EIP97_RD_FETCH_WORDS, e->hwdataw) >> e->hwdataw;
	int cdf = (int)((1u << e->cfsize) / cd_bus) - 1, rdf = (int)((1u << e->rfsize) / rd_bus) - 1;
	if (cdf <= 0 || rdf <= 0) {
		snprintf(why, wl, "descriptor FIFOs too small for one descriptor (CD FIFO 2^%u, RD FIFO 2^%u "
			 "bus words of %u bits)", e->cfsize, e->rfsize, 32u << e->hwdataw);
		return -EINVAL;
	}
	e->cd_fetch = (uint32_t)cdf;
	e->rd_fetch = (uint32_t)rdf;
	e->cd_stride = eip97_round_words(EIP97_CD_WORDS, e->hwdataw) * 4u;
	e->res_off = eip97_res_offset(e->hwdataw) * 4u;
	e->rd_size_w = eip97_res_offset(e->hwdataw) + EIP97_RD_RESULT_WORDS;
	e->rd_stride = eip97_rd_stride(e->hwdataw) * 4u; /* rd_geometry() widens it for cached rings */
	return 0;
}

static void engine_free(struct eip97_engine *e)
{
	eip97_smem_drain(e);
	pthread_mutex_destroy(&e->smem_lock);
	pthread_mutex_destroy(&e->reset_lock);
	/* the threads out of the rings before the rings are cleared (as safexcel_hw_init() orders it) */
	bool regs = e->regs.kind != OFL_MMIO_NONE && e->nrings;
	if (regs)
		eip97_threads_stop(e, e->reset_timeout_ns);
	for (uint32_t i = 0; i < EIP97_MAX_RINGS; i++) {
		struct eip97_ring *r = &e->ring[i];
		if (r->cdr && regs)
			eip97_ring_hw_reset(r);
		eip97_ring_free(r);
		pthread_mutex_destroy(&r->lock);
	}
	if (e->regs.kind != OFL_MMIO_NONE) {
		ofl_mmio_write32(&e->regs, EIP97_DFE_THR_CTRL, 0);
		ofl_mmio_write32(&e->regs, EIP97_DSE_THR_CTRL, 0);
		ofl_mmio_unmap(&e->regs);
	}
	if (e->pool)
		ofl_dma_pool_destroy(e->pool);
	free(e);
}

/* The policy's cache mode for data, and the rings' (uncached where the device is streaming). */
static void memory_mode(struct eip97_engine *e)
{
	struct ofl_device *d = e->dev;
	const struct ofl_policy *p = &d->policy;

	e->sim = ofl_drv(d->ctx)->sim;
	e->cache = p->cache_mode;
	e->ring_cache = e->cache == OFFLOAD_CACHE_STREAMING ? OFFLOAD_CACHE_UNCACHED : e->cache;
	/* test hook: as on a platform without uncached DMA memory (maintained rings) */
	const char *env = getenv("OFFLOAD_EIP97_RING_MEM");
	if (env && strcmp(env, "cached") == 0)
		e->ring_cache = e->cache;
}

/*
 * The result descriptor stride for the ring memory in use (audits/eip97.md
 * D1). Linux's rd_offset (safexcel_configure(): the RD size, 4 + 8 words,
 * rounded up to the bus width: 48 bytes at hwdataw <= 2) is right for its
 * coherent rings, which have no cache lines (dmam_alloc_coherent). Rings in
 * cached memory maintained by hand need every RD in cache lines of its own:
 * the clean of a new RD writes its whole line back, and a line shared with
 * an RD of a packet still in flight would overwrite what the engine wrote
 * there with the CPU's stale "assume error" copy. So a cached ring's stride
 * is the RD size rounded up to whole cache lines (a multiple of the bus
 * width too: lines are powers of two of at least 16 bytes); the engine
 * takes any stride of at least the descriptor size in whole bus words
 * (Linux itself programs 16 words at hwdataw 3). 0, or -ENOTSUP when the
 * stride does not fit DESC_SIZE's stride field.
 */
static int rd_geometry(struct eip97_engine *e, char *why, size_t wl)
{
	uint32_t words = eip97_rd_stride(e->hwdataw);

	if (e->ring_cache == OFFLOAD_CACHE_STREAMING) {
		uint32_t line_w = (uint32_t)(ofl_platform_cache_line(&ofl_drv(e->dev->ctx)->plat) / 4u);
		words = eip97_round_words(OFL_MAX(words, line_w), e->hwdataw);
		words = (words + line_w - 1u) / line_w * line_w;
	}
	if (words > EIP97_DESC_STRIDE_MAX) {
		snprintf(why, wl, "a result descriptor stride of %u words (whole cache lines, for cached rings) "
			 "does not fit DESC_SIZE's %u-word field", words, EIP97_DESC_STRIDE_MAX);
		return -ENOTSUP;
	}
	e->rd_stride = words * 4u;
	return 0;
}

static int rings_alloc(struct eip97_engine *e, char *why, size_t wl)
{
	int rc = rd_geometry(e, why, wl);

	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < e->nrings && rc == 0; i++)
		rc = eip97_ring_alloc(e, &e->ring[i], why, wl);
	return rc;
}

static int rings_init(struct eip97_engine *e, char *why, size_t wl)
{
	int rc = rings_alloc(e, why, wl);

	if (rc == -ENOTSUP && e->ring_cache == OFFLOAD_CACHE_UNCACHED) {
		/* no uncached memory here: cached rings with maintenance work too */
		for (uint32_t i = 0; i < e->nrings; i++)
			eip97_ring_free(&e->ring[i]);
		e->ring_cache = e->cache;
		rc = rings_alloc(e, why, wl);
	}
	return rc;
}

static const char *ring_mem_name(const struct eip97_engine *e)
{
	switch (e->ring_cache) {
	case OFFLOAD_CACHE_UNCACHED: return "uncached";
	case OFFLOAD_CACHE_STREAMING: return "cached, cleaned/invalidated per submission (no uncached memory)";
	default: return "coherent";
	}
}

static int eip97_probe(struct offload_ctx *ctx, void *state, struct ofl_device *d, char *why, size_t wl)
{
	OFL_UNUSED(state);
	if (d->owner != &ofl_backend_eip97) {
		snprintf(why, wl, "not a SafeXcel engine");
		return -ENOTSUP;
	}
	struct eip97_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->dev = d;
	e->regs.kind = OFL_MMIO_NONE;
	e->timeout_ns = EIP97_DEFAULT_TIMEOUT_NS;
	e->reset_timeout_ns = EIP97_DEFAULT_TIMEOUT_NS;
	pthread_mutex_init(&e->smem_lock, NULL);
	pthread_mutex_init(&e->reset_lock, NULL);
	snprintf(e->name, sizeof(e->name), "%s", d->name);
	for (uint32_t i = 0; i < EIP97_MAX_RINGS; i++) {
		e->ring[i].e = e;
		e->ring[i].id = i;
		pthread_mutex_init(&e->ring[i].lock, NULL);
	}
	memory_mode(e);
	char w[OFL_REASON_LEN];
	int r = ofl_mmio_map_reg(d, d->node, NULL, 0, &e->regs, w, sizeof(w));
	if (r < 0) {
		e->regs.kind = OFL_MMIO_NONE;
		snprintf(why, wl, "registers: %s", w);
	}
	if (r == 0 && e->regs.size < EIP97_WINDOW_SIZE) {
		snprintf(why, wl, "the register window is 0x%llx bytes; the EIP97 layout needs 0x%x",
			 (unsigned long long)e->regs.size, EIP97_WINDOW_SIZE);
		r = -EINVAL;
		/* engine_free() must not write the thread registers (0xf200...) past this mapping */
		ofl_mmio_unmap(&e->regs);
		e->regs.kind = OFL_MMIO_NONE;
	}
	if (r == 0)
		r = identify(e, why, wl);
	if (r == 0)
		r = configure(e, why, wl);
	struct ofl_dma_pool_opts po = { .cache = e->cache, .xlate = ofl_dma_xlate_dt, .xlate_arg = d };
	if (r == 0 && (r = ofl_dma_pool_create(d, &po, &e->pool)) < 0)
		snprintf(why, wl, "%s", ofl_err_msg(ctx));
	if (r == 0)
		r = rings_init(e, why, wl);
	if (r == 0)
		r = eip97_hw_init(e, why, wl);
	if (r < 0) {
		engine_free(e);
		return r;
	}
	for (uint32_t i = 0; i < e->nrings; i++)
		snprintf(e->ring[i].driver, sizeof(e->ring[i].driver), "eip97-ring%u%s", i,
			 e->sim ? "-sim" : "");
	snprintf(e->sw_driver, sizeof(e->sw_driver), "eip97-software-empty-message");
	d->priv = e;
	d->dma = e->pool;
	d->sim = e->sim;
	if (e->sim) {
		e->timeout_ns *= OFL_SIM_TIMEOUT_FACTOR;
		e->reset_timeout_ns *= OFL_SIM_TIMEOUT_FACTOR;
	}
	d->info.flags |= OFFLOAD_DEVF_DIRECT;
	snprintf(why, wl,
		 "eip97: EIP97 %u.%u.%u%s, EIP-96 %u.%u.%u, %u of %u rings (%u ring AICs), %u-bit bus, "
		 "algorithms 0x%08x; registers: %s; rings and context records: %s, result descriptors "
		 "every %u bytes; DMA memory: %s",
		 EIP97_VER_MAJOR(e->top_ver), EIP97_VER_MINOR(e->top_ver), EIP97_VER_PATCH(e->top_ver),
		 e->swapped ? " (byte-swapped registers, swap toggled)" : "", EIP97_VER_MAJOR(e->eip96_ver),
		 EIP97_VER_MINOR(e->eip96_ver), EIP97_VER_PATCH(e->eip96_ver), e->nrings, e->hwrings,
		 e->ring_aics, 32u << e->hwdataw, e->algo_flags, ofl_mmio_map_kind_name(e->regs.kind),
		 ring_mem_name(e), e->rd_stride, ofl_dma_pool_describe(e->pool));
	return 0;
}

static void eip97_remove(struct ofl_device *d)
{
	struct eip97_engine *e = d->priv;

	if (!e)
		return;
	d->priv = NULL;
	d->dma = NULL;
	engine_free(e);
}

const struct ofl_backend ofl_backend_eip97 = {
	.name = "eip97",
	.caps = OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH,
	.flags = OFL_BE_DMA_MEMORY | OFL_BE_KERNEL_CRYPTO,
	.match = eip97_match,
	.policy = eip97_policy,
	.linux_driver = "crypto-safexcel", /* safexcel.c crypto_safexcel */
	.linux_crypto_prefix = "safexcel-",
	.probe = eip97_probe,
	.remove = eip97_remove,
	.cipher = &eip97_cipher_ops,
	.hash = &eip97_hash_ops,
};
