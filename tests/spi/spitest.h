/* SPDX-License-Identifier: MIT */
/* Helpers shared by the SPI suites. */
#ifndef TESTS_SPI_SPITEST_H
#define TESTS_SPI_SPITEST_H

#include <errno.h>
#include <string.h>

#include <offload/offload.h>

#include "fakespi.h"
#include "fakesys.h"
#include "testutil.h"

/* Open an SPI handle or fail the test with the library's message. */
static inline offload_spi *spi_open_ok(offload_ctx *ctx, const char *path,
				       const struct offload_spi_opts *o)
{
	offload_spi *spi = NULL;
	int r = offload_spi_open(ctx, path, o, &spi);

	ck_assert_msg(r == 0, "offload_spi_open(%s): %d %s", path, r, offload_last_error(ctx));
	ck_assert_ptr_nonnull(spi);
	return spi;
}

/*
 * Per-test environment: a fake sysfs (bufsiz 4096) and an open context on
 * the given device tree; spi_env_down() undoes both and forgets the fakes.
 */
static inline void spi_env_up(offload_ctx **ctx, char **sys, enum offload_dt_source src,
			      const char *dtb)
{
	*sys = fakesys_new();
	fakesys_bufsiz(*sys, "4096\n");
	*ctx = test_ctx_open(src, dtb, 0, NULL);
}

static inline void spi_env_down(offload_ctx **ctx, char **sys)
{
	offload_ctx_free(*ctx);
	*ctx = NULL;
	fake_spi_reset();
	fakesys_free(*sys);
	*sys = NULL;
}

/* The fixture's .dtb, or skip the whole program (exit 77) when dtc was missing. */
static inline const char *spi_fixture_dtb(void)
{
	if (!SPI_FIXTURE_DTB[0]) {
		printf("SKIP: dtc was not found at configure time, so the SPI DT fixture was not built\n");
		exit(TEST_SKIP);
	}
	return SPI_FIXTURE_DTB;
}

#endif
