/* SPDX-License-Identifier: MIT */
/*
 * The udma backend through the public API: the built-in virtual board, a
 * BCDMA test board behind dma-ranges, real boards' trees as digital twins,
 * DMA buffers, emulated non-coherence, fault injection, queues from several
 * threads, and the rule that models from the AUTO fallback never take large
 * copies from the CPU.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "sim/sim.h"
#include "testutil.h"
#include "udma/udma.h"

#define J721E_UDMA "ti,j721e-navss-main-udmap"
#define AM64_BCDMA "ti,am64-dmss-bcdma"

static offload_ctx *open_ctx(enum offload_dt_source src, const char *path, uint32_t flags)
{
	return test_ctx_open(src, path, flags, "cpu,udma");
}

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
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	struct offload_dev_info info;
	int d = dev_of(ctx, J721E_UDMA);

	ck_assert_str_eq(offload_ctx_dt_source(ctx), "builtin:virtual-board");
	ck_assert_int_eq(offload_dev_info(ctx, d, &info), 0);
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
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
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
	ck_assert_int_eq(offload_dev_stats(ctx, d, &st, sizeof(st)), 0);
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
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM_NONCOHERENT);
	int d = dev_of(ctx, J721E_UDMA);
	struct offload_dev_info info;
	offload_buf *a, *b;
	size_t n = 1 << 20;
	struct offload_dev_stats st;

	ck_assert_int_eq(offload_dev_info(ctx, d, &info), 0);
	ck_assert_int_eq(info.cache_mode, OFFLOAD_CACHE_STREAMING);
	ck_assert_ptr_nonnull(strstr(info.cache_reason, "OFFLOAD_CTX_SIM_NONCOHERENT"));
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &a), 0);
	ck_assert_int_eq(offload_buf_alloc(ctx, d, n, 0, &b), 0);
	ck_assert_int_eq(offload_buf_cache_mode(a), OFFLOAD_CACHE_STREAMING);
	uint8_t *s = offload_buf_ptr(a), *x = offload_buf_ptr(b);
	fill(s, n, 3);
	copy_on(ctx, d, x, s, n, OFFLOAD_RES_SIM | OFFLOAD_RES_DIRECT);
	ck_assert_int_eq(offload_dev_stats(ctx, d, &st, sizeof(st)), 0);
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

START_TEST(auto_fallback_keeps_the_cpu)
{
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
	ck_assert_int_eq(offload_dev_info(ctx, d, &info), 0);
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
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_FILE, BCDMA_FIXTURE_DTB, OFFLOAD_CTX_SIM);
	int d = dev_of(ctx, AM64_BCDMA);
	struct offload_dev_info info;
	offload_buf *a, *b;
	size_t n = 300000;

	ck_assert_int_eq(offload_dev_info(ctx, d, &info), 0);
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
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_FILE, BCDMA_FIXTURE_DTB, 0);
	int d = dev_of(ctx, AM64_BCDMA);
	struct offload_dev_info info;
	offload_buf *b;
	char x[64], s[64] = { 1 };

	ck_assert_int_eq(offload_dev_info(ctx, d, &info), 0);
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
	return open_ctx(OFFLOAD_DT_FILE, path, sim ? OFFLOAD_CTX_SIM : 0);
}

START_TEST(digital_twins)
{
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
		ck_assert_int_eq(offload_dev_info(ctx, d, &info), 0);
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
		ck_assert_int_eq(offload_dev_info(ctx, dev_of(ctx, J721E_UDMA), &info), 0);
		ck_assert_uint_eq(info.flags & OFFLOAD_DEVF_USABLE, 0);
		ck_assert_ptr_nonnull(strstr(info.usable_reason, "DM firmware"));
		offload_ctx_free(ctx);
	}
}
END_TEST

START_TEST(faults_through_the_api)
{
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_BUILTIN, NULL, 0);
	int d = dev_of(ctx, J721E_UDMA);
	struct ofl_sim *sim = ofl_sim_of(ctx);
	char s[8192], x[8192];

	memset(s, 0x3C, sizeof(s));
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_ERROR, .count = 1 };
	ofl_sim_fault_set(sim, &f);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), -EIO);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "TR response"));
	/* a stuck channel: the engine timeout (1 s as Linux; 50 ms here) tears it down */
	((struct udma_engine *)ofl_ctx_device(ctx, d)->priv)->timeout_ns = 50000000;
	f.kind = OFL_SIM_FAULT_STUCK;
	ofl_sim_fault_set(sim, &f);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "torn down"));
	memset(x, 0, sizeof(x));
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, x, s, sizeof(s), NULL), 0);
	ck_assert_int_eq(memcmp(s, x, sizeof(s)), 0);
	offload_ctx_free(ctx);
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
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM_NONCOHERENT);
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
	suite_add_tcase(s, t);
	return test_run(s);
}
