/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: open a context on an arbitrary blob WITH the sim world
 * (register-level models behind every engine the tree declares), then make
 * every usable device work: a copy at an odd offset, a DMA buffer with both
 * syncs, and a one-job queue. fuzz_dt stops at the open with backends=cpu;
 * this one reaches probe, the models, the rings and the DMA memory.
 *
 * Judged by ASan/UBSan/LeakSanitizer, libFuzzer's -timeout (a hang: every
 * wait in the library is bounded, the engine timeout is 1 s), and two
 * invariants checked here that abort():
 *  - a copy that returns 0 moved exactly the source's bytes;
 *  - a device listed usable and able to copy does copy: its explicit copy
 *    may fail only with -EBUSY / -ENOMEM (no channel or DMA memory now),
 *    never with -EIO, -ETIMEDOUT, -ERANGE or -EINVAL (the probe should have
 *    refused a device that cannot work; the breaker's H1 and M2).
 * Odd inputs also run with emulated non-coherent memory.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/sim.h>

#include "core/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LEN 6000

/* Every backend built in except those that reach the host's kernel (AF_ALG, /dev/spidev). */
static const char *allow_list(void)
{
	static char list[256];

	if (list[0])
		return list;
	for (int i = 0; ofl_backends[i]; i++) {
		const char *n = ofl_backends[i]->name;
		if (strcmp(n, "kcapi") == 0 || strcmp(n, "spidev") == 0)
			continue;
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, "%s%s", l ? "," : "", n);
	}
	return list;
}

static void broken(const offload_ctx *ctx, const struct offload_dev_info *info, const char *what, int r)
{
	fprintf(stderr, "fuzz_sim: device %d %s (usable: %s): %s returned %d: %s\n", info->index,
		info->name, info->usable_reason, what, r, offload_last_error(ctx));
	abort();
}

static void exercise(offload_ctx *ctx, const struct offload_dev_info *info, uint8_t *src, uint8_t *dst,
		     unsigned salt)
{
	int d = info->index;
	size_t off = salt % 61, len = LEN - 64 - salt % 999;

	if (info->caps & OFFLOAD_CAP_MEMCPY) {
		memset(dst, 0, LEN);
		int r = offload_memcpy_dev(ctx, d, dst + off, src, len, NULL);
		if (r == 0 && memcmp(dst + off, src, len) != 0)
			broken(ctx, info, "offload_memcpy_dev (data differs)", r);
		if (r < 0 && r != -EBUSY && r != -ENOMEM)
			broken(ctx, info, "offload_memcpy_dev", r);

		struct offload_queue_opts qo;
		struct offload_completion c;
		offload_queue *q;
		offload_queue_opts_init(&qo);
		qo.dev = d;
		qo.depth = 4;
		if (offload_queue_open(ctx, &qo, &q) == 0) {
			memset(dst, 0, LEN);
			if (offload_queue_copy(q, dst, src + off, len, 7) >= 0 && offload_queue_submit(q) == 1) {
				r = offload_queue_wait(q, &c, 1, 3000000);
				if (r == 1 && c.status == 0 && memcmp(dst, src + off, len) != 0)
					broken(ctx, info, "queue copy (data differs)", 0);
				if (r != 1 || c.status != 0)
					broken(ctx, info, "offload_queue_wait", r == 1 ? c.status : r);
			}
			offload_queue_close(q);
		}
	}
	offload_buf *b;
	if (offload_buf_alloc(ctx, d, 4096, salt & 1 ? OFFLOAD_BUF_UNCACHED : 0, &b) == 0) {
		uint8_t *p = offload_buf_ptr(b);
		memset(p, 0x5A, 4096);
		offload_buf_sync_for_device(b, 0, 4096, OFFLOAD_DMA_BIDIRECTIONAL);
		if ((info->caps & OFFLOAD_CAP_MEMCPY) && offload_memcpy_dev(ctx, d, p + off, src, 1000, NULL) == 0 &&
		    memcmp(p + off, src, 1000) != 0)
			broken(ctx, info, "copy into a DMA buffer (data differs)", 0);
		offload_buf_sync_for_cpu(b, 0, 4096, OFFLOAD_DMA_FROM_DEVICE);
		offload_buf_free(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t src[LEN], dst[LEN];
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	if (!ctx)
		return 0;
	if (!src[1])
		for (size_t i = 0; i < LEN; i++)
			src[i] = (uint8_t)(i * 131 + 7);
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BLOB;
	o.dtb_blob = data;
	o.dtb_size = size;
	o.flags = OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_SIM | (size & 1 ? OFFLOAD_CTX_SIM_NONCOHERENT : 0);
	o.backends = allow_list();
	o.sim_provider = offload_sim_provider(); /* the models: liboffload-sim */
	if (offload_ctx_open(ctx, &o) == 0) {
		int n = offload_dev_count(ctx);
		for (int i = 0; i < n; i++) {
			struct offload_dev_info info;
			if (offload_dev_get_info(ctx, i, &info, sizeof(info)) < 0 || !(info.flags & OFFLOAD_DEVF_USABLE))
				continue;
			if (getenv("FUZZ_SIM_VERBOSE")) /* which devices an input reaches: ./fuzz_sim FILE */
				fprintf(stderr, "fuzz_sim: exercising %d %s (%s)\n", i, info.name, info.backend);
			exercise(ctx, &info, src, dst, (unsigned)(size + (size_t)i * 17));
		}
		/* and the automatic choice */
		memset(dst, 0, LEN);
		if (offload_memcpy(ctx, dst, src, LEN) != 0 || memcmp(dst, src, LEN) != 0) {
			fprintf(stderr, "fuzz_sim: offload_memcpy failed: %s\n", offload_last_error(ctx));
			abort();
		}
	} else if (!offload_last_error(ctx)[0]) {
		fprintf(stderr, "fuzz_sim: offload_ctx_open failed without a message\n");
		abort();
	}
	offload_ctx_free(ctx);
	return 0;
}
