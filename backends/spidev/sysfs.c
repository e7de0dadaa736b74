/* SPDX-License-Identifier: MIT */
/*
 * What sysfs tells about spidev nodes: which DT node a /dev/spidevB.C
 * belongs to, and spidev's bufsiz.
 *
 * Layout used (Linux driver core and spidev: Documentation/spi/spidev.rst,
 * spidev.c spidev_probe()):
 *   <root>/class/spidev/spidevB.C/device      -> the spi device (spiB.C)
 *   <spi device>/of_node                     -> its DT child node
 *   <spi device>/..                          -> the controller (spi_master/spiB),
 *                                               whose ancestors include the
 *                                               platform device with of_node
 *                                               and the `driver` link
 *   <root>/firmware/devicetree/base/...      the DT as directories
 *   <root>/module/spidev/parameters/bufsiz   spidev's bounce-buffer size
 * <root> is /sys, or $OFFLOAD_SYSFS_ROOT (tests point it at a fake tree).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/spi.h"
#include "spidev/spidev.h"

#define SPIDEV_DEFAULT_BUFSIZ 4096u /* drivers/spi/spidev.c, module parameter default */
#define WALK_UP_MAX 5               /* levels from a spi device up to its controller's parents */

const char *ofl_spidev_sysfs_root(void)
{
	const char *r = getenv("OFFLOAD_SYSFS_ROOT");

	return r && r[0] ? r : "/sys";
}

/* a + b into out; false if it does not fit. */
static bool join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s%s", a, b);

	return n >= 0 && (size_t)n < len;
}

/* realpath(link) under <root>/firmware/devicetree/base as a DT path ("/soc/spi@0"). */
static int dt_path_of(const char *root, const char *link, char *out, size_t len)
{
	char base[PATH_MAX], rbase[PATH_MAX], target[PATH_MAX];

	out[0] = '\0';
	if (!join(base, sizeof(base), root, "/firmware/devicetree/base") || !realpath(base, rbase) ||
	    !realpath(link, target))
		return -ENOENT;
	size_t n = strlen(rbase);
	if (strncmp(target, rbase, n) != 0 || (target[n] != '\0' && target[n] != '/'))
		return -ENOENT;
	snprintf(out, len, "%s", target[n] ? target + n : "/");
	return 0;
}

/* Cut the last component of a path in place; false at "/". */
static bool up(char *path)
{
	char *s = strrchr(path, '/');

	if (!s || s == path)
		return false;
	*s = '\0';
	return true;
}

int ofl_spidev_lookup(const char *root, const char *name, struct ofl_spidev_node *out)
{
	char p[PATH_MAX], dev[PATH_MAX], rroot[PATH_MAX];

	memset(out, 0, sizeof(*out));
	if (ofl_spi_parse_spidev_name(name, &out->bus, &out->cs) < 0)
		return -EINVAL;
	ofl_strlcpy(out->name, name, sizeof(out->name));
	snprintf(p, sizeof(p), "%s/class/spidev/%s/device", root, name);
	if (!realpath(p, dev) || !realpath(root, rroot))
		return -ENOENT;
	if (join(p, sizeof(p), dev, "/of_node"))
		dt_path_of(root, p, out->child, sizeof(out->child));

	/* Up from the spi device: the first of_node is the controller's, the first driver link its driver. */
	size_t rlen = strlen(rroot);
	for (int i = 0; i < WALK_UP_MAX && up(dev) && strlen(dev) > rlen; i++) {
		if (!out->ctrl[0] && join(p, sizeof(p), dev, "/of_node"))
			dt_path_of(root, p, out->ctrl, sizeof(out->ctrl));
		if (!out->driver[0] && join(p, sizeof(p), dev, "/driver")) {
			char target[PATH_MAX];
			ssize_t n = readlink(p, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				const char *b = strrchr(target, '/');
				ofl_strlcpy(out->driver, b ? b + 1 : target, sizeof(out->driver));
			}
		}
	}
	return 0;
}

/* Call fn for every spidevB.C in sysfs until it returns non-zero; returns that, or 0. */
static int each_spidev(const char *root, int (*fn)(const struct ofl_spidev_node *, void *), void *arg,
		       int *seen)
{
	char p[PATH_MAX];
	struct dirent *e;
	int r = 0;

	*seen = 0;
	snprintf(p, sizeof(p), "%s/class/spidev", root);
	DIR *d = opendir(p);
	if (!d)
		return -ENOENT;
	while (r == 0 && (e = readdir(d)) != NULL) {
		struct ofl_spidev_node n;
		if (ofl_spidev_lookup(root, e->d_name, &n) < 0)
			continue;
		(*seen)++;
		r = fn(&n, arg);
	}
	closedir(d);
	return r;
}

struct find_arg {
	const char *ctrl, *child;
	int cs;
	struct ofl_spidev_node *out;
	char *list;
	size_t list_len;
	int count;
};

static int match_node(const struct ofl_spidev_node *n, void *arg)
{
	struct find_arg *a = arg;

	if ((a->child[0] && strcmp(n->child, a->child) == 0) ||
	    (a->ctrl[0] && strcmp(n->ctrl, a->ctrl) == 0 && n->cs == a->cs)) {
		*a->out = *n;
		return 1;
	}
	return 0;
}

int ofl_spidev_find(const char *root, const char *ctrl, int cs, const char *child,
		    struct ofl_spidev_node *out, char *why, size_t why_len)
{
	struct find_arg a = { .ctrl = ctrl, .child = child, .cs = cs, .out = out };
	int seen = 0;
	int r = each_spidev(root, match_node, &a, &seen);

	if (r == 1)
		return 0;
	if (r == -ENOENT)
		snprintf(why, why_len, "%s/class/spidev does not exist (spidev driver not loaded)", root);
	else
		snprintf(why, why_len,
			 "none of the %d spidev node(s) in %s/class/spidev belongs to %s chip select %d "
			 "(bind one: echo spidev > .../spiB.C/driver_override, then to spidev's bind)",
			 seen, root, ctrl, cs);
	return -ENODEV;
}

static int list_node(const struct ofl_spidev_node *n, void *arg)
{
	struct find_arg *a = arg;
	size_t used = strlen(a->list);

	if (strcmp(n->ctrl, a->ctrl) == 0) {
		if (used + 1 < a->list_len)
			snprintf(a->list + used, a->list_len - used, "%s/dev/%s", used ? ", " : "",
				 n->name);
		a->count++;
	}
	return 0;
}

int ofl_spidev_list_for(const char *root, const char *ctrl, char *buf, size_t len)
{
	struct find_arg a = { .ctrl = ctrl, .list = buf, .list_len = len };
	int seen = 0;

	if (len)
		buf[0] = '\0';
	each_spidev(root, list_node, &a, &seen);
	return a.count;
}

uint32_t ofl_spidev_bufsiz(const char *root, char *note, size_t note_len)
{
	char p[PATH_MAX], line[32];
	FILE *f;

	snprintf(p, sizeof(p), "%s/module/spidev/parameters/bufsiz", root);
	f = fopen(p, "re");
	if (f) {
		char *end = NULL;
		unsigned long v = 0;
		if (fgets(line, sizeof(line), f))
			v = strtoul(line, &end, 10);
		fclose(f);
		if (end && end != line && v > 0 && v <= UINT32_MAX) {
			snprintf(note, note_len, "bufsiz %lu from %s", v, p);
			return (uint32_t)v;
		}
		snprintf(note, note_len, "bufsiz: %s is not a number; assuming spidev's default %u", p,
			 SPIDEV_DEFAULT_BUFSIZ);
		return SPIDEV_DEFAULT_BUFSIZ;
	}
	snprintf(note, note_len, "bufsiz: %s unreadable; assuming spidev's default %u", p,
		 SPIDEV_DEFAULT_BUFSIZ);
	return SPIDEV_DEFAULT_BUFSIZ;
}
