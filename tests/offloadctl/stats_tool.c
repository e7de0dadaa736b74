/* SPDX-License-Identifier: MIT */
/*
 * For stats_check.py: one sample per line of stdin (numbers separated by
 * blanks), and for each the statistics of offloadctl's stats.c on stdout:
 * "n mean median stddev rsd min max" with 17 significant digits (nan where
 * undefined). Exit 1 on a line it cannot read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int main(void)
{
	static char line[1 << 16];
	static double v[4096];

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = 0;
		char *save = NULL;
		for (char *t = strtok_r(line, " \n", &save); t && n < 4096; t = strtok_r(NULL, " \n", &save)) {
			char *end;
			v[n++] = strtod(t, &end);
			if (*end)
				return 1;
		}
		struct cli_stats s;
		if (cli_stats(v, n, &s) < 0)
			return 1;
		printf("%zu %.17g %.17g %.17g %.17g %.17g %.17g\n", s.n, s.mean, s.median, s.stddev, s.rsd,
		       s.min, s.max);
	}
	return 0;
}
