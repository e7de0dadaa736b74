/* SPDX-License-Identifier: MIT */
/* bench memcpy --ab A,B: the size from which backend B beats backend A (bench_ab.c). */
#ifndef OFFLOADCTL_BENCH_AB_H
#define OFFLOADCTL_BENCH_AB_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

struct ab_opts {
	const char *a, *b;        /* backend names */
	size_t min, max;          /* sizes min, min*factor, ... <= max */
	unsigned factor;
	double time_s;            /* per size and side */
	const char *write_path;   /* --write-threshold: the file, NULL: do not write */
};

/*
 * Index of the smallest size from which B's time per copy is below A's at
 * that size and at every larger one measured; n when B never wins so.
 */
size_t ab_crossover(const double *a_ns, const double *b_ns, size_t n);

/*
 * Set `driver`'s line of the threshold file `path` (OFFLOAD_DMAENGINE_CONF's
 * format: "DRIVER BYTES"), keeping every other line; made if absent. 0, or
 * -errno with `err` filled.
 */
int ab_write_threshold(const char *path, const char *driver, uint64_t bytes, char *err, size_t len);

int bench_ab(struct cli *cli, offload_ctx *ctx, const struct ab_opts *o);

#endif
