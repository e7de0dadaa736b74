/* SPDX-License-Identifier: MIT */
/*
 * The udma backend through the public API: the built-in virtual board, a
 * BCDMA test board behind dma-ranges, real boards' trees as digital twins,
 * DMA buffers, emulated non-coherence, fault injection, queues from several
 * threads, and the rule that models from the AUTO fallback never take large
 * copies from the CPU.
 */
#include <libfdt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "k3_fixture.h"
#include "sim/sim.h"
#include "simutil.h"
#include "testutil.h"
#include "udma/udma.h"

#define J721E_UDMA "ti,j721e-navss-main-udmap"
#define AM64_BCDMA "ti,am64-dmss-bcdma"

static int dev_of(offload_ctx *ctx, const char *compat)
{
	int d = offload_dev_find(ctx, compat);
	ck_assert_msg(d >= 0, "no %s: %s", compat, offload_last_error(ctx));
	return d;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 2654435761u + seed) >> 11);
}

/* Copy n bytes on device dev and check data and who ran it. */
static void copy_on(offload_ctx *ctx, int dev, void *dst, const void *src, size_t n, uint32_t want)
{
	struct offload_result res;

	memset(dst, 0xEE, n);
	int r = offload_memcpy_dev(ctx, dev, dst, src, n, &res);
	ck_assert_msg(r == 0, "memcpy %zu: %d %s", n, r, offload_last_error(ctx));
	ck_assert_int_eq(memcmp(dst, src, n), 0);
	ck_assert_int_eq(res.dev, dev);
	ck_assert_str_eq(res.backend, "udma");
	ck_assert_uint_eq(res.flags & (OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED), want);
}

START_TEST(virtual_board)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	struct offload_dev_info info;
	int d = dev_of(ctx, J721E_UDMA);

	ck_assert_str_eq(offload_ctx_dt_source(ctx), "builtin:virtual-board");
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.kind, "k3-udma");
	ck_assert_str_eq(info.backend, "udma");
	ck_assert_uint_eq(info.flags & (OFFLOAD_DEVF_USABLE | OFFLOAD_DEVF_SIM | OFFLOAD_DEVF_DIRECT),
			  OFFLOAD_DEVF_USABLE | OFFLOAD_DEVF_SIM | OFFLOAD_DEVF_DIRECT);
	ck_assert_int_eq(info.coherent, 1); /* dma-coherent on the main NAVSS bus */
	ck_assert_uint_eq(info.burst_bytes, 256);
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "sim"));
	ck_assert_ptr_nonnull(strstr(info.burst_reason, "TCFG/RCFG BURST_SIZE")); /* no ti,sci here */
	/* the builtin board was asked for: its engine is the automatic memcpy device */
	size_t n = 1 << 20;
	uint8_t *s = malloc(n), *x = malloc(n);
	fill(s, n, 1);
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, x, s, n, &res), 0);
	ck_assert_int_eq(res.dev, d);
	ck_assert_str_eq(res.driver, "udma-tchan0");
	/* plain pointers are bounced */
	copy_on(ctx, d, x, s, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED);
	free(s);
	free(x);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(dma_buffers_are_zero_copy)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	int d = dev_of(ctx, J721E_UDMA);
	offload_buf *a, *b;
	size_t n = 3 << 20;
	struct offload_dev_stats st;

	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &a), 0);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &b), 0);
	/* in the sim world's DRAM window (J721E DDR high, 0x8_8000_0000 up); identity dma-ranges */
	ck_assert_uint_ge(offload_buf_bus_addr(a), 0x880000000ull);
	ck_assert_int_eq(offload_buf_cache_mode(a), OFFLOAD_CACHE_COHERENT);
	uint8_t *s = offload_buf_ptr(a), *x = offload_buf_ptr(b);
	fill(s, n, 2);
	offload_dev_stats_reset(ctx, d);
	copy_on(ctx, d, x + 1, s + 5, n - 100, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT);
	ck_assert_int_eq(offload_dev_get_stats(ctx, d, &st, sizeof(st)), 0);
	/* coherent: no cache operation; unaligned head and tail on the CPU (< 2 bursts) */
	ck_assert_uint_eq(st.cache_clean_calls + st.cache_inval_calls, 0);
	ck_assert_uint_eq(st.jobs, 1);
	ck_assert_uint_eq(st.bounced_bytes, 0);
	ck_assert_uint_lt(st.cpu_bytes, 512);
	ck_assert_uint_eq(st.bytes + st.cpu_bytes, n - 100);
	ck_assert_int_eq(offload_ctx_close(ctx), -EBUSY);
	offload_buf_free(a);
	offload_buf_free(b);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(noncoherent_emulation)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM_NONCOHERENT);
	int d = dev_of(ctx, J721E_UDMA);
	struct offload_dev_info info;
	offload_buf *a, *b;
	size_t n = 1 << 20;
	struct offload_dev_stats st;

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_int_eq(info.cache_mode, OFFLOAD_CACHE_STREAMING);
	ck_assert_ptr_nonnull(strstr(info.cache_reason, "OFFLOAD_CTX_SIM_NONCOHERENT"));
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &a), 0);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &b), 0);
	ck_assert_int_eq(offload_buf_cache_mode(a), OFFLOAD_CACHE_STREAMING);
	uint8_t *s = offload_buf_ptr(a), *x = offload_buf_ptr(b);
	fill(s, n, 3);
	copy_on(ctx, d, x, s, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT);
	ck_assert_int_eq(offload_dev_get_stats(ctx, d, &st, sizeof(st)), 0);
	ck_assert_uint_ge(st.cache_clean_calls, 2); /* source, and destination before the DMA */
	ck_assert_uint_ge(st.cache_inval_calls, 1); /* destination after */
	ck_assert_uint_ge(st.cache_bytes, 3 * n);
	/* a buffer the caller fills itself must be handed over: without it the engine reads stale RAM */
	memset(s, 0x11, 4096);
	ck_assert_int_eq(offload_buf_sync_for_device(a, 0, 4096, OFFLOAD_DMA_TO_DEVICE), 0);
	uint64_t v = 0;
	ck_assert_int_eq(ofl_sim_dma_read(ofl_sim_of(ctx), offload_buf_bus_addr(a), &v, 8), 0);
	ck_assert_uint_eq(v, 0x1111111111111111ull);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * Non-coherent: a copy into a DMA buffer at unaligned offsets writes its
 * edges with the CPU. A later offload_buf_sync_for_cpu() over the buffer (an
 * invalidate: the sim's, or the kernel's for a u-dma-buf) must not bring back
 * what memory held before: the library cleans the edges it wrote. Before, 367
 * bytes at both edges came back as the old 0xAA (the breaker's t_nc).
 */
START_TEST(sync_for_cpu_after_copy_keeps_edges)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM_NONCOHERENT);
	int d = dev_of(ctx, J721E_UDMA);
	size_t n = 1 << 17, dof = 113, len = 62833;
	uint8_t *src = malloc(n);
	offload_buf *b;
	struct offload_result res;

	fill(src, n, 11);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &b), 0);
	uint8_t *x = offload_buf_ptr(b);
	memset(x, 0xAA, n);
	ck_assert_int_eq(offload_buf_sync_for_device(b, 0, n, OFFLOAD_DMA_BIDIRECTIONAL), 0);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x + dof, src, len, &res), 0);
	ck_assert_uint_eq(res.flags & (OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT),
			  OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT); /* the engine wrote the aligned body */
	ck_assert_int_eq(memcmp(x + dof, src, len), 0);
	ck_assert_int_eq(offload_buf_sync_for_cpu(b, 0, n, OFFLOAD_DMA_FROM_DEVICE), 0);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += x[i] != (i >= dof && i < dof + len ? src[i - dof] : 0xAA);
	ck_assert_uint_eq(bad, 0);
	offload_buf_free(b);
	free(src);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(auto_fallback_keeps_the_cpu)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	if (access("/sys/firmware/fdt", R_OK) == 0) {
		fprintf(stderr, "SKIP: this machine has a live device tree, AUTO would use it\n");
		return;
	}
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_AUTO, NULL, 0, NULL);
	int d = dev_of(ctx, J721E_UDMA), cpu = offload_dev_find(ctx, "cpu");
	struct offload_dev_info info;
	struct offload_result res;
	size_t n = 4 << 20;
	uint8_t *s = malloc(n), *x = malloc(n);

	fill(s, n, 4);
	ck_assert_str_eq(offload_ctx_dt_source(ctx), "builtin:virtual-board");
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, x, s, n, &res), 0);
	ck_assert_int_eq(res.dev, cpu);
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_uint_ne(info.flags & OFFLOAD_DEVF_USABLE, 0);
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "not chosen automatically"));
	/* still usable by index */
	copy_on(ctx, d, x, s, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED);
	offload_ctx_free(ctx);
	/* with simulation asked for, the model is the automatic choice */
	ctx = test_ctx_open(OFFLOAD_DT_AUTO, NULL, OFFLOAD_CTX_SIM, NULL);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, x, s, n, &res), 0);
	ck_assert_int_eq(res.dev, dev_of(ctx, J721E_UDMA));
	offload_ctx_free(ctx);
	free(s);
	free(x);
}
END_TEST

START_TEST(bcdma_behind_dma_ranges)
{
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, BCDMA_FIXTURE_DTB, OFFLOAD_CTX_SIM);
	int d = dev_of(ctx, AM64_BCDMA);
	struct offload_dev_info info;
	offload_buf *a, *b;
	size_t n = 300000;

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.kind, "k3-bcdma");
	ck_assert_int_eq(info.cache_mode, OFFLOAD_CACHE_STREAMING); /* no dma-coherent */
	ck_assert_uint_ne(info.flags & OFFLOAD_DEVF_USABLE, 0);
	/* ti,sci: the configuration, burst included, goes to the simulated DM firmware */
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "TI-SCI messages"));
	ck_assert_ptr_nonnull(strstr(info.burst_reason, "simulated DM firmware"));
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &a), 0);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &b), 0);
	/* dma-ranges: CPU 0x8_8000_0000 is the device's 0 */
	ck_assert_uint_lt(offload_buf_bus_addr(a), 0x100000000ull);
	uint8_t *s = offload_buf_ptr(a), *x = offload_buf_ptr(b);
	fill(s, n, 5);
	copy_on(ctx, d, x + 3, s + 7, n - 64, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT);
	uint8_t *ps = malloc(n), *px = malloc(n);
	fill(ps, n, 6);
	copy_on(ctx, d, px, ps, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED);
	ck_assert_uint_eq(ofl_sim_bus_errors(ofl_sim_of(ctx), NULL, 0), 0);
	free(ps);
	free(px);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(hardware_without_models_says_why)
{
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, BCDMA_FIXTURE_DTB, 0);
	int d = dev_of(ctx, AM64_BCDMA);
	struct offload_dev_info info;
	offload_buf *b;
	char x[64], s[64] = { 1 };

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.flags & (OFFLOAD_DEVF_USABLE | OFFLOAD_DEVF_SIM), 0);
	ck_assert_ptr_nonnull(strstr(info.usable_reason, "TI-SCI"));
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), -ENODEV);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, 64, 0, &b), -ENODEV);
	offload_ctx_free(ctx);
}
END_TEST

/* A real board's tree as a digital twin (../shared/dtb, by path). */
static offload_ctx *twin(const char *board, bool sim)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");
	char path[512];

	if (!dir || !*dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, board);
	if (access(path, R_OK) != 0)
		return NULL;
	return k3fx_open_ctx(OFFLOAD_DT_FILE, path, sim ? OFFLOAD_CTX_SIM : 0);
}

START_TEST(digital_twins)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	static const struct {
		const char *dtb, *compat;
		bool coherent;
	} boards[] = {
		{ "k3-j721e-evm.dtb", J721E_UDMA, true },
		{ "k3-am654-base-board.dtb", "ti,am654-navss-main-udmap", true },
		{ "k3-am642-evm.dtb", AM64_BCDMA, false },
	};
	int ran = 0;

	for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		offload_ctx *ctx = twin(boards[i].dtb, true);
		if (!ctx)
			continue;
		ran++;
		int d = dev_of(ctx, boards[i].compat);
		struct offload_dev_info info;
		ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
		ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s: %s", boards[i].dtb, info.usable_reason);
		ck_assert_int_eq(info.coherent, boards[i].coherent);
		size_t n = 1 << 20;
		uint8_t *s = malloc(n), *x = malloc(n);
		fill(s, n, (uint32_t)i);
		copy_on(ctx, d, x, s, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED);
		free(s);
		free(x);
		offload_ctx_free(ctx);
	}
	if (!ran) {
		fprintf(stderr, "SKIP digital_twins: no board trees under $OFFLOAD_TEST_SHARED_DTB\n");
		return;
	}
	/* the same tree without --sim: the engine is listed, with the honest reason */
	offload_ctx *ctx = twin("k3-j721e-evm.dtb", false);
	if (ctx) {
		struct offload_dev_info info;
		ck_assert_int_eq(offload_dev_get_info(ctx, dev_of(ctx, J721E_UDMA), &info, sizeof(info)), 0);
		ck_assert_uint_eq(info.flags & OFFLOAD_DEVF_USABLE, 0);
		ck_assert_ptr_nonnull(strstr(info.usable_reason, "DM firmware"));
		offload_ctx_free(ctx);
	}
}
END_TEST

START_TEST(faults_through_the_api)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	int d = dev_of(ctx, J721E_UDMA);
	struct ofl_sim *sim = ofl_sim_of(ctx);
	char s[8192], x[8192];

	memset(s, 0x3C, sizeof(s));
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_ERROR, .count = 1 };
	ofl_sim_fault_set(sim, &f);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), -EIO);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "TR response"));
	/* a stuck channel: the engine timeout (1 s as Linux; 50 ms here) tears it down */
	struct udma_engine *e = ofl_ctx_device(ctx, d)->priv;
	e->timeout_ns = TEST_IMPATIENT_NS; /* never completes: reached whatever the load */
	f.kind = OFL_SIM_FAULT_STUCK;
	ofl_sim_fault_set(sim, &f);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "torn down"));
	e->timeout_ns = TEST_PATIENT_NS; /* this copy must succeed however late the model runs */
	memset(x, 0, sizeof(x));
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), 0);
	ck_assert_int_eq(memcmp(s, x, sizeof(s)), 0);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * Trees whose UDMA could never move a byte (the breaker's H1 and M2): the
 * device is refused at probe with the reason, the CPU is the automatic
 * device, and the device's own calls say it is not usable. Before, the first
 * copy hung (FIFO windows past the mapped region) or failed with -ERANGE /
 * -EINVAL while the device was listed usable and chosen automatically.
 */
static void refused_dev(const char *fixture, const char *compat, const char *want)
{
	char path[512];
	struct offload_dev_info info;
	struct offload_result res;
	struct offload_queue_opts qo;
	offload_queue *q;
	size_t n = 1 << 20;
	uint8_t *s = malloc(n), *x = malloc(n);

	/* on a 32-bit host the host rule refuses a ring-accelerator UDMA first (docs/fidelity.md M7) */
	if (!K3FX_DIRECT_UDMA && !strstr(compat, "bcdma"))
		want = K3FX_NO_PROXY;
	snprintf(path, sizeof(path), "%s/%s.dtb", UDMA_FIXTURE_DIR, fixture);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM);
	int d = dev_of(ctx, compat), cpu = offload_dev_find(ctx, "cpu");
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.flags & OFFLOAD_DEVF_USABLE, 0);
	ck_assert_msg(strstr(info.usable_reason, want), "%s: %s", fixture, info.usable_reason);
	fill(s, n, 8);
	ck_assert_int_eq(offload_memcpy(ctx, x, s, n), 0);
	ck_assert_int_eq(memcmp(x, s, n), 0);
	memset(x, 0, n);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, x, s, n, &res), 0);
	ck_assert_int_eq(res.dev, cpu);
	ck_assert_int_eq(memcmp(x, s, n), 0);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, n, NULL), -ENODEV);
	offload_queue_opts_init(&qo);
	qo.dev = d;
	ck_assert_int_eq(offload_queue_open(ctx, &qo, &q), -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "not usable"));
	offload_ctx_free(ctx);
	free(s);
	free(x);
}

static void refused(const char *fixture, const char *want)
{
	refused_dev(fixture, J721E_UDMA, want);
}

/* ti,num-rings 1024, "fifos" 4 KiB: completion-ring windows would be read past the region */
/*
 * rchanrt with room for one channel: one memcpy channel, and the class counts
 * are those of that channel (channel 0 is UH), not the engine's 4 UH + 12 H.
 */
START_TEST(channel_classes_counted_among_memcpy_channels)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	char path[512];
	struct offload_dev_info info;

	snprintf(path, sizeof(path), "%s/rchanrt-small.dtb", UDMA_FIXTURE_DIR);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM);
	ck_assert_int_eq(offload_dev_get_info(ctx, dev_of(ctx, J721E_UDMA), &info, sizeof(info)), 0);
	ck_assert_msg(strstr(info.usable_reason, "udma: 1 memcpy channel (1 UH, 0 H);"), "%s",
		      info.usable_reason);
	offload_ctx_free(ctx);
	/* the whole region: 140 channels, 4 UH and 12 H among them */
	ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM);
	ck_assert_int_eq(offload_dev_get_info(ctx, dev_of(ctx, J721E_UDMA), &info, sizeof(info)), 0);
	ck_assert_msg(strstr(info.usable_reason, "udma: 140 memcpy channels (4 UH, 12 H);"), "%s",
		      info.usable_reason);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(ring_windows_outside_fifos_refused)
{
	refused("fifos-small", "ring accelerator \"fifos\" region is 0x1000 bytes but ring 1023");
}
END_TEST

/* no ring configuration region, and no DM firmware to do it instead (fuzz_sim's first find) */
START_TEST(missing_ring_cfg_region_refused)
{
	refused("no-ring-cfg", "declares no ring accelerator \"cfg\" region, and without DM firmware");
}
END_TEST

/* a 4 KiB dma-ranges window: no room for the simulated DMA memory */
START_TEST(unreachable_dma_memory_refused)
{
	refused("dma-window", "outside every dma-ranges window");
}
END_TEST

/* memory at bus addresses above the 48 bits K3 DMA can carry (fuzz_sim's second find) */
START_TEST(bus_addresses_above_48_bits_refused)
{
	refused("dma-high", "up to 0x30000002fffff, beyond the device's DMA addressing (up to "
		"0xffffffffffff)");
}
END_TEST

/*
 * A BCDMA whose memory sits at bus 0xCA_0000_0000: within the 48 bits of a
 * TR's addresses, but a DMA ring's base register keeps only address bits
 * 35:32 (Linux k3-ringacc.c, K3_DMARING_CFG_ADDR_HI_MASK = GENMASK(3, 0)), so
 * the rings would be truncated to 0xA_xxxx_xxxx (fuzz_sim: a copy timed out
 * on a device listed usable).
 */
START_TEST(bcdma_rings_above_36_bits_refused)
{
	refused_dev("bcdma-high", AM64_BCDMA,
		    "up to 0xca002fffff, beyond the 36 address bits a BCDMA ring base register holds "
		    "(Linux k3-ringacc.c K3_DMARING_CFG_ADDR_HI_MASK) (up to 0xfffffffff)");
}
END_TEST

/*
 * DM firmware owns the ring accelerator's configuration but not the UDMA's
 * (ti,sci on the ringacc node only): the device is usable and copies, its
 * rings configured through the (simulated) firmware, with no configuration
 * write dropped by the firewall going unnoticed.
 */
START_TEST(ringacc_only_firewalled_copies)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	char path[512];
	struct offload_dev_info info;
	size_t n = 256 * 1024;
	uint8_t *s = malloc(n), *x = malloc(n);

	snprintf(path, sizeof(path), "%s/ringacc-fw.dtb", UDMA_FIXTURE_DIR);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM);
	int d = dev_of(ctx, J721E_UDMA);
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s", info.usable_reason);
	ck_assert_msg(strstr(info.usable_reason, "TI-SCI messages to simulated DM firmware"), "%s",
		      info.usable_reason);
	fill(s, n, 21);
	copy_on(ctx, d, x, s, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED);
	free(s);
	free(x);
	offload_ctx_free(ctx);
}
END_TEST

/* ASEL is 4 bits: Linux k3-udma.c refuses ti,asel > 15 at probe */
START_TEST(bcdma_asel_out_of_range_refused)
{
	refused_dev("bcdma-asel", AM64_BCDMA, "ti,asel = 16 is out of range (a 4-bit field, 0..15");
}
END_TEST

/* ti,sci must name an enabled TI-SCI controller, as Linux ti_sci_get_by_phandle() requires */
START_TEST(bcdma_bad_tisci_refused)
{
	refused_dev("bcdma-sci-self", AM64_BCDMA, "ti,sci names dma-controller@485c0100, which is not a TI-SCI "
		    "system controller");
	refused_dev("bcdma-sci-off", AM64_BCDMA, "ti,sci names system-controller, whose status is \"disabled\"");
	/* fuzz_sim: an ID the 16-bit nav_id of the RM messages cannot carry */
	refused_dev("bcdma-sci-id-wide", AM64_BCDMA, "ti,sci-dev-id 0x2400001a does not fit the 16-bit nav_id");
}
END_TEST

/* dma-ranges that shift addresses by 3: no buffer would be aligned for the device (fuzz_sim) */
START_TEST(misaligning_dma_ranges_refused)
{
	refused("dma-odd-offset", "map CPU 0x880000000 to bus 0x3, an offset that is not a multiple of 4 KiB");
}
END_TEST

/* the UDMA is its own "dma-mem" interconnect */
START_TEST(dma_parent_loop_refused)
{
	refused("dma-loop", "DMA parents form a loop (not translatable)");
}
END_TEST

/* INT64_MAX microseconds is "wait", not "already expired" (M4: timeout_us * 1000 wrapped). */
START_TEST(wait_with_huge_timeout_waits)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	struct offload_queue_opts o;
	struct offload_completion c;
	offload_queue *q;
	size_t n = 4 << 20;
	uint8_t *s = malloc(n), *x = malloc(n);

	fill(s, n, 9);
	offload_queue_opts_init(&o);
	o.dev = dev_of(ctx, J721E_UDMA);
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	/* a late completion (20 ms, far inside the watchdog): the wait has to wait */
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_DELAY, .count = 1, .arg = 20000 };
	ofl_sim_fault_set(ofl_sim_of(ctx), &f);
	const int64_t huge[] = { INT64_MAX, INT64_MAX / 1000 + 1, INT64_MAX - 1 };
	for (size_t i = 0; i < OFL_ARRAY_SIZE(huge); i++) {
		memset(x, 0, n);
		ck_assert_int_ge(offload_queue_copy(q, x, s, n, i), 0);
		ck_assert_int_eq(offload_queue_submit(q), 1);
		int r = offload_queue_wait(q, &c, 1, huge[i]);
		ck_assert_msg(r == 1, "wait(%lld): %d %s", (long long)huge[i], r, offload_last_error(ctx));
		ck_assert_int_eq(c.status, 0);
		ck_assert_uint_eq(c.user_data, i);
		ck_assert_int_eq(memcmp(x, s, n), 0);
	}
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
	free(s);
	free(x);
}
END_TEST

/* A queue on an engine that stopped answering closes, and says its jobs were aborted. */
START_TEST(close_on_stuck_engine_is_bounded)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	int d = dev_of(ctx, J721E_UDMA);
	struct offload_queue_opts o;
	offload_queue *q;
	char s[8192], x[8192];

	memset(s, 1, sizeof(s));
	((struct udma_engine *)ofl_ctx_device(ctx, d)->priv)->timeout_ns = TEST_IMPATIENT_NS;
	offload_queue_opts_init(&o);
	o.dev = d;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_STUCK, .count = 1 };
	ofl_sim_fault_set(ofl_sim_of(ctx), &f);
	ck_assert_int_ge(offload_queue_copy(q, x, s, sizeof(s), 1), 0);
	ck_assert_int_ge(offload_queue_copy(q, x + 4096, s, 4096, 2), 0);
	ck_assert_int_eq(offload_queue_submit(q), 2);
	ck_assert_int_eq(offload_queue_close(q), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "aborted"));
	offload_ctx_free(ctx);
}
END_TEST

/*
 * M1: every channel taken (here marked busy directly, as 140 open queues
 * would): the automatic copy runs on the CPU and says so; the explicit device
 * says -EBUSY, naming the device once.
 */
START_TEST(busy_engine_falls_back_to_cpu)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM);
	int d = dev_of(ctx, J721E_UDMA), cpu = offload_dev_find(ctx, "cpu");
	struct udma_engine *e = ofl_ctx_device(ctx, d)->priv;
	struct offload_result res;
	struct offload_queue_opts o;
	offload_queue *q;
	size_t n = 1 << 20;
	uint8_t *s = malloc(n), *x = malloc(n);

	fill(s, n, 10);
	/* no copy yet, so no synchronous channel is open either */
	pthread_mutex_lock(&e->lock);
	uint8_t *keep = malloc(e->nchan);
	memcpy(keep, e->chan_busy, e->nchan);
	memset(e->chan_busy, 1, e->nchan);
	pthread_mutex_unlock(&e->lock);

	memset(x, 0, n);
	ck_assert_int_eq(offload_memcpy(ctx, x, s, n), 0);
	ck_assert_int_eq(memcmp(x, s, n), 0);
	memset(x, 0, n);
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, x, s, n, &res), 0);
	ck_assert_int_eq(memcmp(x, s, n), 0);
	ck_assert_int_eq(res.dev, cpu);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_uint_eq(res.flags & (OFFLOAD_RES_CPU | OFFLOAD_RES_FALLBACK),
			  OFFLOAD_RES_CPU | OFFLOAD_RES_FALLBACK);
	ck_assert_str_eq(offload_last_error(ctx), "");
	/* an explicit device, and a queue, may say busy (documented) */
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, n, NULL), -EBUSY);
	const char *m = offload_last_error(ctx), *name = "dma-controller@31150000";
	/* the function, the device once, then the reason */
	const char *want = "offload_memcpy_dev: dma-controller@31150000: no free memcpy channel";
	ck_assert_msg(!strncmp(m, want, strlen(want)), "%s", m);
	ck_assert_msg(!strstr(strstr(m, name) + 1, name), "name twice: %s", m);
	offload_queue_opts_init(&o);
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), -EBUSY);
	m = offload_last_error(ctx);
	want = "offload_queue_open: dma-controller@31150000: no free memcpy channel";
	ck_assert_msg(!strncmp(m, want, strlen(want)), "%s", m);
	ck_assert_msg(!strstr(strstr(m, name) + 1, name), "name twice: %s", m);

	pthread_mutex_lock(&e->lock);
	memcpy(e->chan_busy, keep, e->nchan);
	pthread_mutex_unlock(&e->lock);
	free(keep);
	/* with a free channel the engine is the automatic device for 1 MiB again */
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, x, s, n, &res), 0);
	ck_assert_int_eq(res.dev, d);
	ck_assert_uint_eq(res.flags & OFFLOAD_RES_FALLBACK, 0);
	offload_ctx_free(ctx);
	free(s);
	free(x);
}
END_TEST

/*
 * A valid tree with more engine nodes than a context lists (the breaker's 300
 * UDMAs) opens: the first ones are listed, the rest reported in a note.
 * Before, the whole open failed with -ENOMEM "too many devices (max 64)".
 */
START_TEST(many_engines_open_with_a_note)
{
	enum { N = 100 };
	size_t cap = 64 << 10;
	void *fdt = malloc(cap);
	char name[64];

	ck_assert_int_eq(fdt_create(fdt, (int)cap), 0);
	ck_assert_int_eq(fdt_finish_reservemap(fdt), 0);
	ck_assert_int_eq(fdt_begin_node(fdt, ""), 0);
	ck_assert_int_eq(fdt_property_u32(fdt, "#address-cells", 1), 0);
	ck_assert_int_eq(fdt_property_u32(fdt, "#size-cells", 1), 0);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "dma-controller@%x", 0x2000000 + i * 0x1000);
		ck_assert_int_eq(fdt_begin_node(fdt, name), 0);
		ck_assert_int_eq(fdt_property_string(fdt, "compatible", J721E_UDMA), 0);
		fdt32_t reg[2] = { cpu_to_fdt32(0x2000000 + i * 0x1000), cpu_to_fdt32(0x100) };
		ck_assert_int_eq(fdt_property(fdt, "reg", reg, sizeof(reg)), 0);
		ck_assert_int_eq(fdt_end_node(fdt), 0);
	}
	ck_assert_int_eq(fdt_end_node(fdt), 0);
	ck_assert_int_eq(fdt_finish(fdt), 0);

	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BLOB;
	o.dtb_blob = fdt;
	o.dtb_size = fdt_totalsize(fdt);
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.backends = "cpu,udma";
	int r = offload_ctx_open(ctx, &o);
	ck_assert_msg(r == 0, "%d %s", r, offload_last_error(ctx));
	/* the CPU device first, then 63 of the 100 nodes, in tree order */
	ck_assert_int_eq(offload_dev_count(ctx), 64);
	struct offload_dev_info info;
	ck_assert_int_eq(offload_dev_get_info(ctx, 63, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.name, "dma-controller@203e000");
	ck_assert_str_eq(offload_ctx_note(ctx), "the device tree has 100 engine nodes; the first 63 (in "
			 "tree order) are listed and the other 37 skipped: the context holds 64 devices");
	char x[64], y[64] = "many";
	ck_assert_int_eq(offload_memcpy(ctx, x, y, sizeof(y)), 0);
	offload_ctx_free(ctx);
	/* a tree that fits has no note */
	ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	ck_assert_str_eq(offload_ctx_note(ctx), "");
	offload_ctx_free(ctx);
	ck_assert_ptr_null(offload_ctx_note(NULL));
	free(fdt);
}
END_TEST

struct worker {
	offload_ctx *ctx;
	int dev, id, bad;
};

static void *queue_worker(void *arg)
{
	struct worker *w = arg;
	struct offload_queue_opts o;
	offload_queue *q;
	enum { JOBS = 300, LEN = 30000 };
	uint8_t *s = malloc((size_t)JOBS * LEN), *x = malloc((size_t)JOBS * LEN);
	struct offload_completion c[16];

	fill(s, (size_t)JOBS * LEN, (uint32_t)w->id);
	offload_queue_opts_init(&o);
	o.dev = w->dev;
	o.depth = 32;
	if (offload_queue_open(w->ctx, &o, &q) < 0) {
		w->bad++;
		goto out;
	}
	int sent = 0, got = 0;
	while (got < JOBS) {
		while (sent < JOBS && offload_queue_capacity(q) > 0)
			if (offload_queue_copy(q, x + (size_t)sent * LEN, s + (size_t)sent * LEN, LEN,
					       (uint64_t)sent) >= 0)
				sent++;
		offload_queue_submit(q);
		int n = offload_queue_wait(q, c, 16, 5000000);
		for (int i = 0; i < n; i++) {
			if (c[i].status || c[i].user_data != (uint64_t)got || c[i].dev != w->dev ||
			    !(c[i].flags & OFFLOAD_RES_SIM))
				w->bad++;
			got++;
		}
		if (n < 0)
			w->bad++, got = JOBS;
	}
	w->bad += memcmp(s, x, (size_t)JOBS * LEN) != 0;
	offload_queue_close(q);
out:
	free(s);
	free(x);
	return NULL;
}

START_TEST(threads_with_their_own_queues)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = k3fx_open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM_NONCOHERENT);
	enum { N = 4 };
	pthread_t th[N];
	struct worker w[N];

	for (int i = 0; i < N; i++) {
		w[i] = (struct worker){ .ctx = ctx, .dev = dev_of(ctx, J721E_UDMA), .id = i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, queue_worker, &w[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].bad, 0);
	}
	offload_ctx_free(ctx);
}
END_TEST

/*
 * On a non-coherent engine the descriptors and a BCDMA's ring live in
 * uncached memory, which on arm64 may be Device memory (/dev/mem of a no-map
 * region, u-dma-buf's NONCACHED mode), where DC ZVA and unaligned stores take
 * an alignment fault (audits/eip97.md D3). With OFFLOAD_SIM_UNCACHED=device
 * the world hands its uncached memory out as device-type: a plain CPU access
 * faults, an unaligned one through the accessors is a bus error. Copies of
 * one and two TRs, synchronous and queued, direct and bounced, on the BCDMA
 * board and on the UDMA made non-coherent must all get through. Before, the
 * first descriptor's TR field stores faulted (a new user's
 * `OFFLOAD_SIM_UNCACHED=device offloadctl ... bench memcpy` on k3-am642-evm).
 */
static void device_memory_copies(const char *path, uint32_t flags, const char *compat)
{
	setenv("OFFLOAD_SIM_UNCACHED", "device", 1);
	offload_ctx *ctx = k3fx_open_ctx(path ? OFFLOAD_DT_FILE : OFFLOAD_DT_BUILTIN, path, flags);
	unsetenv("OFFLOAD_SIM_UNCACHED");
	int d = dev_of(ctx, compat);
	const size_t sizes[] = { 4096, 300000 }; /* one TR, two (hw/k3_udma.h §4.6) */
	size_t n = 300000;
	uint8_t *s = malloc(n), *x = malloc(n);
	offload_buf *a, *b;
	struct offload_queue_opts o;
	struct offload_completion c;
	offload_queue *q;
	char last[200] = "";

	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &a), 0);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &b), 0);
	offload_queue_opts_init(&o);
	o.dev = d;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(sizes); i++) {
		uint8_t *bs = offload_buf_ptr(a), *bx = offload_buf_ptr(b);
		fill(bs, sizes[i], (uint32_t)i);
		copy_on(ctx, d, bx, bs, sizes[i], OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT);
		fill(s, sizes[i], (uint32_t)i + 7);
		copy_on(ctx, d, x, s, sizes[i], OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT | OFFLOAD_RES_BOUNCED);
		memset(x, 0, sizes[i]);
		ck_assert_int_ge(offload_queue_copy(q, x, s, sizes[i], i), 0);
		ck_assert_int_eq(offload_queue_submit(q), 1);
		ck_assert_int_eq(offload_queue_wait(q, &c, 1, 10000000), 1);
		ck_assert_int_eq(c.status, 0);
		ck_assert_int_eq(memcmp(x, s, sizes[i]), 0);
	}
	ck_assert_int_eq(offload_queue_close(q), 0);
	ck_assert_msg(ofl_sim_bus_errors(ofl_sim_of(ctx), last, sizeof(last)) == 0, "bus error: %s", last);
	offload_buf_free(a);
	offload_buf_free(b);
	offload_ctx_free(ctx);
	free(s);
	free(x);
}

START_TEST(device_memory_gets_aligned_words_only)
{
	device_memory_copies(BCDMA_FIXTURE_DTB, OFFLOAD_CTX_SIM, AM64_BCDMA);
	if (!k3fx_no_proxy_here())
		device_memory_copies(NULL, OFFLOAD_CTX_SIM_NONCOHERENT, J721E_UDMA);
}
END_TEST

/*
 * A device's reason keeps the serving backend's words whole, and the others'
 * after them as far as they fit. Before, the serving backend's was cut at
 * 170 bytes whenever one before it had refused: "(the model has no DM
 * firmware, as (not dmaengine: ...", in offloadctl list on the builtin tree.
 */
START_TEST(usable_reason_keeps_the_serving_backend_whole)
{
	K3FX_UDMA_OR_STOP(OFFLOAD_DT_BUILTIN, NULL, J721E_UDMA);
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM, NULL);
	struct offload_dev_info info;

	ck_assert_int_eq(offload_dev_get_info(ctx, dev_of(ctx, J721E_UDMA), &info, sizeof(info)), 0);
	ck_assert_msg(strncmp(info.usable_reason, "udma: ", 6) == 0, "%s", info.usable_reason);
	ck_assert_msg(strstr(info.usable_reason, "(the model has no DM firmware, as for U-Boot)") != NULL, "%s",
		      info.usable_reason);
	offload_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udma-api");
	TCase *t = tcase_create("api");

	tcase_set_timeout(t, 300);
	tcase_add_test(t, virtual_board);
	tcase_add_test(t, dma_buffers_are_zero_copy);
	tcase_add_test(t, noncoherent_emulation);
	tcase_add_test(t, auto_fallback_keeps_the_cpu);
	tcase_add_test(t, bcdma_behind_dma_ranges);
	tcase_add_test(t, hardware_without_models_says_why);
	tcase_add_test(t, digital_twins);
	tcase_add_test(t, faults_through_the_api);
	tcase_add_test(t, threads_with_their_own_queues);
	tcase_add_test(t, ring_windows_outside_fifos_refused);
	tcase_add_test(t, channel_classes_counted_among_memcpy_channels);
	tcase_add_test(t, unreachable_dma_memory_refused);
	tcase_add_test(t, dma_parent_loop_refused);
	tcase_add_test(t, missing_ring_cfg_region_refused);
	tcase_add_test(t, bus_addresses_above_48_bits_refused);
	tcase_add_test(t, bcdma_rings_above_36_bits_refused);
	tcase_add_test(t, bcdma_asel_out_of_range_refused);
	tcase_add_test(t, ringacc_only_firewalled_copies);
	tcase_add_test(t, bcdma_bad_tisci_refused);
	tcase_add_test(t, misaligning_dma_ranges_refused);
	tcase_add_test(t, wait_with_huge_timeout_waits);
	tcase_add_test(t, close_on_stuck_engine_is_bounded);
	tcase_add_test(t, busy_engine_falls_back_to_cpu);
	tcase_add_test(t, sync_for_cpu_after_copy_keeps_edges);
	tcase_add_test(t, device_memory_gets_aligned_words_only);
	tcase_add_test(t, usable_reason_keeps_the_serving_backend_whole);
	tcase_add_test(t, many_engines_open_with_a_note);
	suite_add_tcase(s, t);
	return test_run(s);
}
