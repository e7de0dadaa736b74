/* SPDX-License-Identifier: MIT */
/*
 * The dmaengine backend's offload threshold: measured by `offloadctl bench
 * memcpy --ab cpu,dmaengine --write-threshold` into OFFLOAD_DMAENGINE_CONF
 * (include/offload/memcpy.h), or given in OFFLOAD_DMAENGINE_THRESHOLD, or the
 * documented default.
 *
 * The file is read with care: opened O_NONBLOCK (a FIFO never blocks),
 * regular files only, at most DMAE_CONF_MAX bytes; a value must pass the
 * rules of OFFLOAD_DMAENGINE_THRESHOLD (src/util/env.c), and a line longer
 * than the line buffer is skipped whole.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "dmaengine_int.h"

/* The most of the file read (the tool writes a few short lines). */
#define DMAE_CONF_MAX 65536
#define DMAE_CONF_LINE 256

struct conf_hit {
	uint64_t v;
	int line;
	int bad_line;              /* first malformed line for this driver (or "*"), 0: none */
	char bad[160];
};

/* Look at one line (NUL-terminated, no newline); 1 when it is the driver's own line (done). */
static int conf_line(char *p, int n, const char *driver, struct conf_hit *h, int *found)
{
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '#' || !*p)
		return 0;
	char *name = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	char *e = p;
	while (isspace((unsigned char)*p))
		p++;
	char *val = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	char *ve = p;
	while (isspace((unsigned char)*p))
		p++;
	*e = '\0';
	bool mine = strcmp(name, driver) == 0, any = strcmp(name, "*") == 0;
	if (!mine && !(any && *found < 0))
		return 0;
	char why[160];
	uint64_t v;
	*ve = '\0';
	if (*p)
		snprintf(why, sizeof(why), "more than one value after %.40s", name);
	else if (!*val)
		snprintf(why, sizeof(why), "no value after %.40s", name);
	if (*p || !*val ||
	    ofl_env_parse_uint("OFFLOAD_DMAENGINE_THRESHOLD", val, &v, why, sizeof(why)) < 0) {
		if (!h->bad_line) {
			h->bad_line = n;
			snprintf(h->bad, sizeof(h->bad), "%s", why);
		}
		return 0;
	}
	h->v = v;
	h->line = n;
	*found = mine ? 0 : 1;
	return mine;
}

/* The value for `driver` in a measurement file, or -errno (a "*" line serves any driver). */
static int conf_lookup(const char *path, const char *driver, struct conf_hit *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat sb;
	char buf[DMAE_CONF_LINE];
	int n = 0, found = -ENOENT;
	size_t len = 0, total = 0;
	bool skipping = false;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		int r = fstat(fd, &sb) < 0 ? -errno : -EINVAL;
		close(fd);
		return r;
	}
	for (;;) {
		char c;
		ssize_t k = total < DMAE_CONF_MAX ? read(fd, &c, 1) : 0;
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			c = '\n'; /* end of file (or of what is read): the last line ends here */
		else
			total++;
		if (c == '\n') {
			n++;
			buf[len] = '\0';
			if (!skipping && conf_line(buf, n, driver, h, &found))
				break;
			len = 0;
			skipping = false;
			if (k <= 0)
				break;
			continue;
		}
		if (skipping)
			continue;
		if (len + 1 >= sizeof(buf)) {
			skipping = true; /* too long to be one of ours: skip all of it */
			continue;
		}
		buf[len++] = c;
	}
	close(fd);
	return found < 0 ? found : 0;
}

uint64_t ofl_dmae_threshold(const char *driver, bool no_env, char *why, size_t why_len)
{
	uint64_t v = 0;
	char err[160];
	struct conf_hit h = { 0 };

	if (!no_env && ofl_env_uint("OFFLOAD_DMAENGINE_THRESHOLD", &v, err, sizeof(err)) == 1) {
		snprintf(why, why_len, "OFFLOAD_DMAENGINE_THRESHOLD=%" PRIu64 " (from the environment)", v);
		return v;
	}
	const char *path = no_env ? NULL : getenv("OFFLOAD_DMAENGINE_CONF");
	if (!path || !*path)
		path = OFFLOAD_DMAENGINE_CONF;
	char bad[240] = "";
	int r = conf_lookup(path, driver, &h);
	if (h.bad_line)
		snprintf(bad, sizeof(bad), "; line %d ignored, malformed: %.160s", h.bad_line, h.bad);
	if (r == 0) {
		snprintf(why, why_len, "measured crossover of the CPU and %.32s through the kernel: %.120s "
			 "line %d (offloadctl bench memcpy --ab cpu,dmaengine --write-threshold)%s",
			 driver, path, h.line, bad);
		return h.line ? h.v : OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT;
	}
	snprintf(why, why_len, "default %u B (OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT: two system calls, "
		 "pinning and mapping per copy); not measured: %s %.32s in %.120s%s (offloadctl "
		 "bench memcpy --ab cpu,dmaengine --write-threshold)",
		 OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT, r == -EINVAL ? "not a regular file, no line for" :
		 "no line for", driver, path, bad);
	return OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT;
}
