/* SPDX-License-Identifier: MIT */
/*
 * SPI messages of SIZE bytes through the direct DSPI backend on the virtual
 * board's loopback (sim), for bench/dspi_callgrind.sh: runs ROUNDS verified
 * transfers and prints the frames they took and the wire time the model's
 * timing gives them (SCK and CS delays from the programmed CTAR; sim).
 *
 *   dspi_percall SIZE ROUNDS
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
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();
	offload_spi *spi = NULL;

	if (!ctx || size == 0 || size > (1u << 24) || rounds == 0)
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
	uint8_t *tx = malloc(size), *rx = malloc(size);
	if (!m || !tx || !rx)
		return 1;
	for (unsigned i = 0; i < size; i++)
		tx[i] = (uint8_t)(i * 7u + 1u);
	struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = size };
	struct ofl_sim_dspi_stats s0, s1;
	ofl_sim_dspi_stats(m, &s0);
	for (unsigned r = 0; r < rounds; r++) {
		memset(rx, 0, size);
		if (offload_spi_transfer(spi, &x, 1) != (int)size || memcmp(tx, rx, size) != 0) {
			fprintf(stderr, "dspi_percall: transfer %u failed or did not verify: %s\n", r,
				offload_last_error(ctx));
			return 1;
		}
	}
	ofl_sim_dspi_stats(m, &s1);
	printf("dspi_percall: %u transfers of %u bytes measured, %llu frames each, model wire time "
	       "%.3f us each at 25 MHz SCK (sim)\n",
	       rounds, size, (unsigned long long)((s1.frames - s0.frames) / rounds),
	       (double)(s1.time_ps - s0.time_ps) / 1e6 / rounds);
	free(tx);
	free(rx);
	offload_spi_close(spi);
	offload_ctx_free(ctx);
	return 0;
}
