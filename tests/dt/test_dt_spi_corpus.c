/* SPDX-License-Identifier: MIT */
/*
 * SPI child nodes of the LS1028A-QDS DSPI controllers, read through
 * ofl_dt_spi_children() (src/dt/spi.c, the SPI module's). Expected values
 * from `dtc -I dtb -O dts fsl-ls1028a-qds.dtb` and spi-fsl-dspi.c dspi_setup(): every
 * child is a "jedec,spi-nor" with spi-cpol, spi-cpha and
 * spi-max-frequency = <0x989680> (10 MHz); chip selects are reg 0, 1, 2 on
 * spi@2100000 and spi@2110000 and 0 on spi@2120000. Built only when
 * src/dt/spi.c exists; skipped (77) without the shared DTB corpus.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <offload/spi.h>

#include "core/internal.h"
#include "dt/dt.h"
#include "testutil.h"

static char path[512];

START_TEST(qds_children)
{
	static const struct { const char *node; int n; } ctl[] = {
		{ "/soc/spi@2100000", 3 }, { "/soc/spi@2110000", 3 }, { "/soc/spi@2120000", 1 },
	};
	struct ofl_dt dt;
	char err[512];

	ck_assert_msg(ofl_dt_load_file(&dt, path, err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < OFL_ARRAY_SIZE(ctl); i++) {
		struct ofl_dt_spi_child c[8];
		int node = fdt_path_offset(dt.fdt, ctl[i].node);
		ck_assert_int_ge(node, 0);
		int n = ofl_dt_spi_children(dt.fdt, node, c, 8);
		ck_assert_int_eq(n, ctl[i].n);
		for (int k = 0; k < n; k++) {
			ck_assert_uint_eq(c[k].chip_select, (uint32_t)k);
			ck_assert_uint_eq(c[k].max_frequency_hz, 10000000);
			ck_assert_uint_eq(c[k].mode & (OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CPHA),
					  OFFLOAD_SPI_MODE_3);
			ck_assert_uint_eq(c[k].mode & (OFFLOAD_SPI_CS_HIGH | OFFLOAD_SPI_LSB_FIRST), 0);
			ck_assert_str_eq(c[k].compatible, "jedec,spi-nor");
			ck_assert(c[k].enabled);
		}
	}
	ofl_dt_free(&dt);
}
END_TEST

int main(void)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");

	if (!dir || !*dir) {
		printf("skip: OFFLOAD_TEST_SHARED_DTB is not set (run through ctest)\n");
		return TEST_SKIP;
	}
	snprintf(path, sizeof(path), "%s/fsl-ls1028a-qds.dtb", dir);
	if (access(path, R_OK) != 0) {
		printf("skip: %s is not readable (the shared DTB corpus is absent)\n", path);
		return TEST_SKIP;
	}
	Suite *s = suite_create("dt-spi-corpus");
	TCase *t = tcase_create("ls1028a-qds");
	tcase_add_test(t, qds_children);
	suite_add_tcase(s, t);
	return test_run(s);
}
