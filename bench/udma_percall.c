/* SPDX-License-Identifier: MIT */
/*
 * The library's own CPU work per UDMA memcpy descriptor, for callgrind
 * (instructions, not seconds; bench/udma_callgrind.sh runs it and does the
 * arithmetic).
 *
 * On the built-in virtual board (the J721E UDMA model, "sim"), with a queue
 * on the UDMA device and zero-copy DMA buffers, each round enqueues JOBS
 * 4 KiB copies (offload_queue_copy), submits them (offload_queue_submit:
 * plan, TR descriptor, ring push), lets the model finish them, then reaps
 * them (offload_queue_poll: ring pop, TR-response check, completion). The
 * model's own work runs on its thread and inside ofl_sim_mmio_*(), both
 * excluded by the script; waiting for the model happens outside the
 * measured calls, so no polling spin is counted. Every copy is verified.
 *
 * usage: udma_percall [ROUNDS]   (default 200 rounds of 32 jobs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>
#include <offload/sim.h>

#include "core/internal.h"
#include "sim/sim.h"
#include "simutil.h"

#define JOBS 32
#define LEN 4096

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();
	offload_buf *sb, *db;
	offload_queue *q;
	struct offload_completion cpl[JOBS];

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BUILTIN;
	o.flags = OFFLOAD_CTX_SIM | OFFLOAD_CTX_NO_ENV;
	o.sim_provider = offload_sim_provider(); /* the models (liboffload-sim) */
	o.backends = "cpu,udma";
	if (!ctx || offload_ctx_open(ctx, &o) < 0) {
		fprintf(stderr, "udma_percall: %s\n", offload_last_error(ctx));
		return 1;
	}
	int dev = offload_dev_find(ctx, "ti,j721e-navss-main-udmap");
	struct offload_queue_opts qo;
	offload_queue_opts_init(&qo);
	qo.dev = dev;
	qo.depth = 64;
	if (dev < 0 || offload_buf_alloc(ctx, dev, (size_t)JOBS * LEN, 0, &sb) < 0 ||
	    offload_buf_alloc(ctx, dev, (size_t)JOBS * LEN, 0, &db) < 0 ||
	    offload_queue_open(ctx, &qo, &q) < 0) {
		fprintf(stderr, "udma_percall: %s\n", offload_last_error(ctx));
		return 1;
	}
	uint8_t *s = offload_buf_ptr(sb), *d = offload_buf_ptr(db);
	long jobs = 0, bad = 0;
	for (int r = -1; r < rounds; r++) {
		memset(s, r & 0xFF, (size_t)JOBS * LEN);
		memset(d, ~r & 0xFF, (size_t)JOBS * LEN);
		for (int i = 0; i < JOBS; i++)
			offload_queue_copy(q, d + (size_t)i * LEN, s + (size_t)i * LEN, LEN, (uint64_t)i);
		offload_queue_submit(q);
		ofl_sim_wait_idle(ofl_sim_of(ctx), -1);
		int got = 0;
		while (got < JOBS) {
			int n = offload_queue_poll(q, cpl, JOBS);
			for (int i = 0; i < n; i++)
				bad += cpl[i].status != 0 || !(cpl[i].flags & OFFLOAD_RES_SIM);
			got += n > 0 ? n : 0;
		}
		bad += memcmp(s, d, (size_t)JOBS * LEN) != 0;
		jobs += JOBS; /* the warm-up round is measured too: its channel start is amortised */
	}
	printf("udma_percall: %ld measured descriptors (%d rounds of %d x %d B) on %s (sim), %ld bad\n",
	       jobs, rounds + 1, JOBS, LEN, "the J721E UDMA model", bad);
	offload_queue_close(q);
	offload_buf_free(sb);
	offload_buf_free(db);
	offload_ctx_free(ctx);
	return bad ? 1 : 0;
}
