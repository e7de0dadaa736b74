/* SPDX-License-Identifier: MIT */
/*
 * The dmaengine backend's offload threshold: measured by `offloadctl bench
 * memcpy --ab cpu,dmaengine --write-threshold` into OFFLOAD_DMAENGINE_CONF
 * (include/offload/memcpy.h), or given in OFFLOAD_DMAENGINE_THRESHOLD, or the
 * documented default.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/env.h"
#include "dmaengine_int.h"

/* The value for `driver` in a measurement file, or -ENOENT (a "*" line serves any driver). */
static int conf_lookup(const char *path, const char *driver, uint64_t *out, int *line_no)
{
	FILE *f = fopen(path, "re");
	char line[256];
	int n = 0, found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long v;
		char *p = line;
		n++;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '#' || !*p)
			continue;
		if (sscanf(p, "%63s %llu", name, &v) != 2)
			continue;
		if (strcmp(name, driver) == 0) {
			*out = v;
			*line_no = n;
			found = 0;
			break; /* the driver's own line wins over "*" */
		}
		if (strcmp(name, "*") == 0 && found < 0) {
			*out = v;
			*line_no = n;
			found = 1;
		}
	}
	fclose(f);
	return found < 0 ? found : 0;
}

uint64_t ofl_dmae_threshold(const char *driver, bool no_env, char *why, size_t why_len)
{
	uint64_t v = 0;
	char err[160];
	int line = 0;

	if (!no_env && ofl_env_uint("OFFLOAD_DMAENGINE_THRESHOLD", &v, err, sizeof(err)) == 1) {
		snprintf(why, why_len, "OFFLOAD_DMAENGINE_THRESHOLD=%" PRIu64 " (from the environment)", v);
		return v;
	}
	const char *path = no_env ? NULL : getenv("OFFLOAD_DMAENGINE_CONF");
	if (!path || !*path)
		path = OFFLOAD_DMAENGINE_CONF;
	if (conf_lookup(path, driver, &v, &line) == 0) {
		snprintf(why, why_len, "measured crossover of the CPU and %.32s through the kernel: %.150s "
			 "line %d (offloadctl bench memcpy --ab cpu,dmaengine --write-threshold)",
			 driver, path, line);
		return v;
	}
	snprintf(why, why_len, "default %u B (OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT: two system calls, "
		 "pinning and mapping per copy); not measured: no line for %.32s in %.150s (offloadctl "
		 "bench memcpy --ab cpu,dmaengine --write-threshold)",
		 OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT, driver, path);
	return OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT;
}
