/* SPDX-License-Identifier: MIT */
/*
 * The copy queue beside DPDK's dmadev (issue #19): the same 64-byte copies
 * in batches of 1, 8 and 32 through
 *  - plain memcpy on the calling thread (the floor),
 *  - liboffload's queue on the CPU device (offload_queue_copy per job, one
 *    offload_queue_submit, offload_queue_wait/poll until the batch is back),
 *  - DPDK 22.11's dmadev on its software dma_skeleton device (rte_dma_copy
 *    per job, rte_dma_submit, rte_dma_completed until the batch is back; the
 *    skeleton copies on its own control thread, as a DMA engine would
 *    elsewhere),
 * and the time per copy of each, in ABBA order within each round. A round
 * counts only if other processes took under --quiet percent of the CPUs
 * meanwhile (src/offloadctl/stats.c); busy rounds run again, up to
 * 4 x --rounds. Every destination is poisoned before a round and compared
 * with its source after it (exit 1 on a mismatch).
 *
 *   dmadev_compare [--time SECONDS] [--rounds N] [--quiet PCT]
 *
 * EAL runs without hugepages, PCI or shared files (--no-huge --no-pci --no-shconf), with
 * the main lcore on the first CPU and the skeleton's thread on the other
 * ones (DPDK's control-thread set), the way its own dmadev_autotest runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_version.h>

#include <offload/offload.h>

#include "cli.h"

#define COPY 64u
#define NBUF 1024u           /* 64 KiB of sources and destinations: the caches hold them */
#define MAXB 32u
#define SIDES 3

static const unsigned batches[] = { 1, 8, 32 };

struct bench {
	unsigned char *src, *dst;
	offload_ctx *ctx;
	offload_queue *q;
	int16_t dma;
	char err[256];
};

static uint64_t mix(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void poison(struct bench *b)
{
	for (size_t i = 0; i < (size_t)NBUF * COPY; i++)
		b->dst[i] = (unsigned char)~b->src[i];
}

/* One pass over every buffer in batches of `batch`; 0 or -1 with b->err set. */
static int pass(struct bench *b, int side, unsigned batch)
{
	for (unsigned first = 0; first < NBUF; first += batch) {
		if (side == 0) {
			for (unsigned k = 0; k < batch; k++)
				memcpy(b->dst + (first + k) * COPY, b->src + (first + k) * COPY, COPY);
			__asm__ __volatile__("" ::: "memory");
			continue;
		}
		if (side == 1) {
			struct offload_completion c[MAXB];
			for (unsigned k = 0; k < batch; k++)
				if (offload_queue_copy(b->q, b->dst + (first + k) * COPY,
						       b->src + (first + k) * COPY, COPY, first + k) < 0) {
					snprintf(b->err, sizeof(b->err), "offload_queue_copy: %s",
						 offload_last_error(b->ctx));
					return -1;
				}
			if (offload_queue_submit(b->q) < 0) {
				snprintf(b->err, sizeof(b->err), "offload_queue_submit: %s",
					 offload_last_error(b->ctx));
				return -1;
			}
			for (unsigned got = 0; got < batch;) {
				int n = offload_queue_wait(b->q, c, batch - got, 1000000);
				if (n < 0) {
					snprintf(b->err, sizeof(b->err), "offload_queue_wait: %s",
						 offload_last_error(b->ctx));
					return -1;
				}
				for (int i = 0; i < n; i++, got++)
					if (c[i].status != 0 || c[i].user_data != first + got) {
						snprintf(b->err, sizeof(b->err), "queue completion %u: status %d",
							 first + got, (int)c[i].status);
						return -1;
					}
			}
			continue;
		}
		for (unsigned k = 0; k < batch; k++)
			if (rte_dma_copy(b->dma, 0, (rte_iova_t)(uintptr_t)(b->src + (first + k) * COPY),
					 (rte_iova_t)(uintptr_t)(b->dst + (first + k) * COPY), COPY, 0) < 0) {
				snprintf(b->err, sizeof(b->err), "rte_dma_copy refused job %u", first + k);
				return -1;
			}
		rte_dma_submit(b->dma, 0);
		uint16_t last;
		bool error = false;
		for (unsigned got = 0; got < batch && !error;)
			got += rte_dma_completed(b->dma, 0, (uint16_t)(batch - got), &last, &error);
		if (error) {
			snprintf(b->err, sizeof(b->err), "rte_dma_completed reported an error");
			return -1;
		}
	}
	return 0;
}

static int setup_dpdk(struct bench *b)
{
	char *eal[] = { "dmadev_compare", "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
			"--no-telemetry", "--vdev=dma_skeleton", "--log-level=lib.eal:error", "-l", "0",
			NULL };
	struct rte_dma_info info;

	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		snprintf(b->err, sizeof(b->err), "rte_eal_init failed: %s", rte_strerror(rte_errno));
		return -1;
	}
	b->dma = (int16_t)rte_dma_get_dev_id_by_name("dma_skeleton");
	if (b->dma < 0 || rte_dma_info_get(b->dma, &info) < 0) {
		snprintf(b->err, sizeof(b->err), "no dma_skeleton device (librte-dma-skeleton23 missing?)");
		return -1;
	}
	if (!(info.dev_capa & RTE_DMA_CAPA_SVA)) {
		snprintf(b->err, sizeof(b->err), "dma_skeleton does not take virtual addresses (no SVA)");
		return -1;
	}
	struct rte_dma_conf conf = { .nb_vchans = 1 };
	struct rte_dma_vchan_conf vc = { .direction = RTE_DMA_DIR_MEM_TO_MEM,
					 .nb_desc = info.max_desc < 1024 ? info.max_desc : 1024 };
	if (rte_dma_configure(b->dma, &conf) < 0 || rte_dma_vchan_setup(b->dma, 0, &vc) < 0 ||
	    rte_dma_start(b->dma) < 0) {
		snprintf(b->err, sizeof(b->err), "configuring dma_skeleton failed");
		return -1;
	}
	return 0;
}

static int setup_offload(struct bench *b)
{
	struct offload_ctx_opts o;
	struct offload_queue_opts qo;

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.backends = "cpu";
	b->ctx = offload_ctx_new();
	if (!b->ctx || offload_ctx_open(b->ctx, &o) < 0) {
		snprintf(b->err, sizeof(b->err), "offload_ctx_open: %s", b->ctx ? offload_last_error(b->ctx) : "no memory");
		return -1;
	}
	offload_queue_opts_init(&qo);
	qo.depth = 64;
	if (offload_queue_open(b->ctx, &qo, &b->q) < 0) {
		snprintf(b->err, sizeof(b->err), "offload_queue_open: %s", offload_last_error(b->ctx));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double secs = 2.0, quiet = 0.05;
	uint64_t rounds = 5, v;
	struct bench b = { 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--time") == 0 && i + 1 < argc &&
		    cli_parse_seconds(argv[i + 1], false, 3600, &secs) == 0)
			i++;
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc &&
			 cli_parse_uint(argv[i + 1], 0, 1, 64, &rounds) == 0)
			i++;
		else if (strcmp(argv[i], "--quiet") == 0 && i + 1 < argc &&
			 cli_parse_uint(argv[i + 1], 0, 1, 100, &v) == 0 && ++i)
			quiet = (double)v / 100.0;
		else {
			fprintf(stderr, "usage: %s [--time SECONDS] [--rounds N] [--quiet PCT]\n", argv[0]);
			return 2;
		}
	}
	b.src = aligned_alloc(4096, (size_t)NBUF * COPY);
	b.dst = aligned_alloc(4096, (size_t)NBUF * COPY);
	if (!b.src || !b.dst)
		return 1;
	for (size_t i = 0; i < (size_t)NBUF * COPY; i++)
		b.src[i] = (unsigned char)mix(&seed);
	if (setup_offload(&b) < 0 || setup_dpdk(&b) < 0) {
		fprintf(stderr, "dmadev_compare: %s\n", b.err);
		return 1;
	}
	printf("dmadev_compare: %u-byte copies, %u buffers, per copy (enqueue + submit + completion), "
	       "ABBA within rounds of %.2f s; %s dma_skeleton\n", COPY, NBUF,
	       secs / (double)rounds / (double)(sizeof(batches) / sizeof(batches[0])), rte_version());
	printf("%6s %12s %12s %12s %10s %12s %8s\n", "batch", "memcpy ns", "queue ns", "dmadev ns",
	       "dmadev/q", "q-memcpy ns", "rounds");
	int rc = 0;
	for (size_t bi = 0; bi < sizeof(batches) / sizeof(batches[0]) && rc == 0; bi++) {
		unsigned batch = batches[bi];
		uint64_t budget = (uint64_t)(secs / (double)rounds /
					     (double)(sizeof(batches) / sizeof(batches[0])) * 1e9);
		double per[SIDES][64];
		int kept = 0, tried = 0;
		bool busy = false;
		for (; kept < (int)rounds && tried < 4 * (int)rounds && rc == 0; tried++) {
			uint64_t ns[SIDES] = { 0 }, passes = 0, t0 = cli_now_ns();
			struct cli_cpu_mark m0, m1;
			poison(&b);
			cli_cpu_mark(&m0, NULL, 0);
			while (rc == 0 && (passes < 4 || cli_now_ns() - t0 < budget)) {
				for (int s = 0; s < SIDES && rc == 0; s++) {
					int side = passes % 2 ? SIDES - 1 - s : s;
					uint64_t a = cli_now_ns();
					rc = pass(&b, side, batch);
					ns[side] += cli_now_ns() - a;
				}
				passes++;
			}
			cli_cpu_mark(&m1, NULL, 0);
			if (rc == 0 && memcmp(b.dst, b.src, (size_t)NBUF * COPY) != 0) {
				snprintf(b.err, sizeof(b.err), "a destination does not match its source");
				rc = -1;
			}
			double other = cli_cpu_other_share(&m0, &m1);
			bool judged = other >= 0 && cli_quiet_resolution(&m0, &m1) <= quiet;
			if (rc == 0 && judged && quiet < 1.0 && other >= quiet) {
				/* busy: run it again; the last try stands only if none was quiet */
				if (kept > 0 || tried + 1 < 4 * (int)rounds)
					continue;
				busy = true;
			}
			for (int s = 0; s < SIDES; s++)
				per[s][kept] = (double)ns[s] / (double)(passes * NBUF);
			kept++;
		}
		if (rc < 0)
			break;
		struct cli_stats st[SIDES];
		for (int s = 0; s < SIDES; s++)
			if (cli_stats(per[s], (size_t)kept, &st[s]) < 0)
				return 1;
		char rs[24];
		snprintf(rs, sizeof(rs), busy ? "BUSY 0/%d" : "%d/%d", busy ? tried : kept, tried);
		printf("%6u %12.1f %12.1f %12.1f %10.1f %12.1f %8s\n", batch, st[0].median, st[1].median,
		       st[2].median, st[2].median / st[1].median, st[1].median - st[0].median, rs);
	}
	if (rc < 0)
		fprintf(stderr, "dmadev_compare: %s\n", b.err);
	else
		printf("rounds: kept/run, others under %.0f%% of the CPUs (BUSY: none was, the last round "
		       "is shown); every destination poisoned before a round and compared after it\n",
		       quiet * 100);
	offload_queue_close(b.q);
	offload_ctx_free(b.ctx);
	rte_dma_stop(b.dma);
	rte_dma_close(b.dma);
	rte_eal_cleanup();
	free(b.src);
	free(b.dst);
	return rc < 0 ? 1 : 0;
}
