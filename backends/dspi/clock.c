/* SPDX-License-Identifier: MIT */
/*
 * Where the DSPI protocol clock rate comes from. The DT `clocks` entry names
 * the clock but, on Layerscape, not its rate (clockgen <4 1> is the platform
 * PLL / 2 (drivers/clk/clk-qoriq.c), set by the reset configuration word).
 * In order:
 *  1. OFFLOAD_DSPI_CLOCK_HZ: the user knows (not read when the context
 *     ignores the environment);
 *  2. the device tree (src/dt/clock.c): clock-frequency, a fixed clock, a
 *     fixed-factor chain (the virtual board carries a fixed clock); for a
 *     simulated board also the labelled LS1028A assumption of src/hw/dspi.h
 *     (dspi_clock_from_dt());
 *  3. on a live board, the kernel's clock tree: debugfs clk/clk_summary
 *     lists each clock's rate and, since Linux 6.9, its consumers by device
 *     name (drivers/clk/clk.c clk_summary_show_one: clock, enable, prepare,
 *     protect, rate, accuracy, phase, duty, hardware enable, then consumer
 *     and connection id; further consumers on their own lines). Needs
 *     debugfs mounted and root.
 * Nothing else is guessed: a wrong rate makes SCK faster than asked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dspi.h"
#include "platform/sysfs.h"
#include "util/env.h"

static bool number(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return false;
	*v = strtoull(s, &end, 10);
	return *end == '\0';
}

int dspi_clk_summary_rate(const char *path, const char *devname, uint64_t *hz)
{
	char line[512];
	uint64_t rate = 0;
	bool have = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char *tok[16], *save = NULL;
		int n = 0;
		for (char *t = strtok_r(line, " \t\n", &save); t && n < 16; t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		uint64_t r;
		const char *consumer = NULL;
		if (n >= 9 && number(tok[4], &r) && number(tok[1], &(uint64_t){ 0 })) {
			rate = r; /* a clock line */
			have = true;
			consumer = n >= 11 ? tok[9] : NULL;
		} else if (n == 2 && have) {
			consumer = tok[0]; /* another consumer of the same clock */
		}
		if (consumer && strcmp(consumer, devname) == 0) {
			fclose(f);
			*hz = rate;
			return rate ? 0 : -ENOENT;
		}
	}
	fclose(f);
	return -ENOENT;
}

int dspi_clock_from_dt(const void *fdt, int node, bool twin, uint64_t *hz, char *how, size_t hl)
{
	static const struct ofl_dt_clock_rule ls1028a_twin[] = { DSPI_LS1028A_TWIN_CLOCK_RULE };
	struct ofl_dt_clock c;
	int r = ofl_dt_clock_rate(fdt, node, "dspi", ls1028a_twin, twin ? 1 : 0, &c, how, hl);

	if (r < 0)
		return r;
	*hz = c.hz;
	if (c.rule)
		snprintf(how, hl,
			 "ASSUMED for the simulated LS1028A: clockgen <4 1> = platform PLL / 2 "
			 "(clk-qoriq.c), platform PLL = %u x SYSCLK %llu Hz (RCW ratio not in the "
			 "tree, unconfirmed) = %llu Hz",
			 DSPI_LS1028A_TWIN_PLL_MULT, (unsigned long long)c.parent_hz,
			 (unsigned long long)c.hz);
	return 0;
}

int dspi_clock_rate(struct offload_ctx *ctx, int node, bool sim, uint64_t *hz, char *how, size_t hl)
{
	const void *fdt = ofl_drv(ctx)->dt.fdt;
	char dt[OFL_REASON_LEN], path[OFL_DT_PATH_LEN], pdev[128], file[PATH_MAX_OFL];
	uint64_t v;
	/* the one parser and range of every OFFLOAD_* variable (src/util/env.c) */
	int e = (ofl_drv(ctx)->flags & OFFLOAD_CTX_NO_ENV) ? 0
		: ofl_env_uint("OFFLOAD_DSPI_CLOCK_HZ", &v, how, hl);

	if (e < 0)
		return e;
	if (e == 1) {
		*hz = v;
		snprintf(how, hl, "%llu Hz from OFFLOAD_DSPI_CLOCK_HZ", (unsigned long long)v);
		return 0;
	}
	if (dspi_clock_from_dt(fdt, node, sim, hz, dt, sizeof(dt)) == 0) {
		snprintf(how, hl, "%llu Hz: %s", (unsigned long long)*hz, dt);
		return 0;
	}
	if (!sim) {
		ofl_dt_path(fdt, node, path, sizeof(path));
		if (ofl_platform_dev_by_of_node(path, pdev, sizeof(pdev)) == 0 &&
		    ofl_path(file, sizeof(file), "%s/kernel/debug/clk/clk_summary",
			     ofl_platform_roots()->sysfs) == 0 &&
		    dspi_clk_summary_rate(file, pdev, hz) == 0) {
			snprintf(how, hl, "%llu Hz: the kernel's clock tree (%s, consumer %s)",
				 (unsigned long long)*hz, file, pdev);
			return 0;
		}
	}
	snprintf(how, hl, "protocol clock rate unknown: %s%s; set OFFLOAD_DSPI_CLOCK_HZ", dt,
		 sim ? "" : ", and debugfs clk/clk_summary names no consumer for it (mount debugfs, "
			    "run as root, Linux >= 6.9)");
	return -ENOENT;
}
