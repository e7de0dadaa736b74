/* SPDX-License-Identifier: MIT */
/*
 * SPI messages of SIZE bytes through the direct DSPI backend on the virtual
 * board's loopback (sim), for bench/dspi_callgrind.sh: runs ROUNDS verified
 * transfers and prints the frames they took and the wire time the model's
 * timing gives them (SCK and CS delays from the programmed CTAR; sim).
 * With XFERS, each message is XFERS transfers of SIZE / XFERS bytes, their
 * tx and rx pieces interleaved in one buffer (tx, rx, tx, rx, ...), as a
 * caller carving one buffer would lay them out.
 *
 *   dspi_percall SIZE ROUNDS [XFERS]
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>
#include <offload/sim.h>

#include "core/internal.h"
#include "sim/dspi_model.h"
#include "simutil.h"

int main(int argc, char **argv)
{
	unsigned size = argc > 1 ? (unsigned)atoi(argv[1]) : 4096;
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 100;
	unsigned nx = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();
	offload_spi *spi = NULL;

	if (!ctx || size == 0 || size > (1u << 24) || rounds == 0 || nx == 0 ||
	    nx > OFFLOAD_SPI_MAX_XFERS || size % nx)
		return 2;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BUILTIN;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.sim_provider = offload_sim_provider(); /* the models (liboffload-sim) */
	if (offload_ctx_open(ctx, &o) < 0 ||
	    offload_spi_open(ctx, "/bus@100000/spi@2100000/loopback@0", NULL, &spi) < 0) {
		fprintf(stderr, "dspi_percall: %s\n", offload_last_error(ctx));
		return 1;
	}
	struct ofl_sim_dspi *m =
		ofl_sim_dspi_by_node(ofl_sim_of(ctx), fdt_path_offset(ctx->drv.dt.fdt, "/bus@100000/spi@2100000"));
	uint8_t *buf = malloc(2 * (size_t)size);
	struct offload_spi_xfer *x = calloc(nx, sizeof(*x));
	if (!m || !buf || !x)
		return 1;
	unsigned piece = size / nx;
	for (unsigned i = 0; i < nx; i++) {
		uint8_t *tx = buf + 2 * (size_t)i * piece;
		for (unsigned k = 0; k < piece; k++)
			tx[k] = (uint8_t)((i * piece + k) * 7u + 1u);
		x[i] = (struct offload_spi_xfer){ .tx = tx, .rx = tx + piece, .len = piece };
	}
	struct ofl_sim_dspi_stats s0, s1;
	ofl_sim_dspi_stats(m, &s0);
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < nx; i++)
			memset(x[i].rx, 0, piece);
		bool same = offload_spi_transfer(spi, x, nx) == (int)size;
		for (unsigned i = 0; same && i < nx; i++)
			same = memcmp(x[i].tx, x[i].rx, piece) == 0;
		if (!same) {
			fprintf(stderr, "dspi_percall: message %u failed or did not verify: %s\n", r,
				offload_last_error(ctx));
			return 1;
		}
	}
	ofl_sim_dspi_stats(m, &s1);
	printf("dspi_percall: %u messages of %u bytes in %u transfer(s) measured, %llu frames each, "
	       "model wire time %.3f us each at 25 MHz SCK (sim)\n",
	       rounds, size, nx, (unsigned long long)((s1.frames - s0.frames) / rounds),
	       (double)(s1.time_ps - s0.time_ps) / 1e6 / rounds);
	free(buf);
	free(x);
	offload_spi_close(spi);
	offload_ctx_free(ctx);
	return 0;
}
