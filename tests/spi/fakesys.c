/* SPDX-License-Identifier: MIT */
/* The fake sysfs tree; see fakesys.h. */
#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakesys.h"

static void die(const char *what, const char *path)
{
	fprintf(stderr, "fakesys: %s %s: %s\n", what, path, strerror(errno));
	abort();
}

/* snprintf into a PATH_MAX buffer; a path that does not fit is a test bug. */
static void pf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pf(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX)
		die("path too long", fmt);
}

static void mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	pf(tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				die("mkdir", tmp);
			*p = '/';
		}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		die("mkdir", tmp);
}

static void link_to(const char *target, const char *link)
{
	unlink(link);
	if (symlink(target, link) < 0)
		die("symlink", link);
}

char *fakesys_new(void)
{
	char *root = strdup("/tmp/offload-fakesys-XXXXXX");

	if (!root || !mkdtemp(root))
		die("mkdtemp", "/tmp");
	char p[PATH_MAX];
	pf(p, "%s/firmware/devicetree/base", root);
	mkdir_p(p);
	pf(p, "%s/class/spidev", root);
	mkdir_p(p);
	setenv("OFFLOAD_SYSFS_ROOT", root, 1);
	return root;
}

void fakesys_bufsiz(const char *root, const char *content)
{
	char p[PATH_MAX];

	pf(p, "%s/module/spidev/parameters", root);
	mkdir_p(p);
	strcat(p, "/bufsiz");
	FILE *f = fopen(p, "w");
	if (!f)
		die("fopen", p);
	fputs(content, f);
	fclose(f);
}

void fakesys_add_spidev(const char *root, int bus, int cs, const char *ctrl, const char *child,
			const char *driver)
{
	char plat[PATH_MAX], spi[PATH_MAX], p[PATH_MAX], t[PATH_MAX];
	const char *base = strrchr(ctrl, '/');

	/* The controller's platform device: of_node, driver. */
	pf(plat, "%s/devices/platform/%s", root, base ? base + 1 : ctrl);
	mkdir_p(plat);
	pf(t, "%s/firmware/devicetree/base%s", root, ctrl);
	mkdir_p(t);
	pf(p, "%s/of_node", plat);
	link_to(t, p);
	if (driver) {
		pf(t, "%s/bus/platform/drivers/%s", root, driver);
		mkdir_p(t);
		pf(p, "%s/driver", plat);
		link_to(t, p);
	}
	/* spi_master/spiB/spiB.C, with the child's of_node. */
	pf(spi, "%s/spi_master/spi%d/spi%d.%d", plat, bus, bus, cs);
	mkdir_p(spi);
	if (child) {
		pf(t, "%s/firmware/devicetree/base%s", root, child);
		mkdir_p(t);
		pf(p, "%s/of_node", spi);
		link_to(t, p);
	}
	pf(p, "%s/bus/spi/drivers/spidev", root);
	mkdir_p(p);
	pf(t, "%s/driver", spi);
	link_to(p, t);
	/* class/spidev/spidevB.C -> .../spiB.C/spidev/spidevB.C, whose device is spiB.C. */
	pf(p, "%s/spidev/spidev%d.%d", spi, bus, cs);
	mkdir_p(p);
	pf(t, "%s/device", p);
	link_to("../..", t);
	pf(t, "%s/class/spidev/spidev%d.%d", root, bus, cs);
	link_to(p, t);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fakesys_free(char *root)
{
	if (root)
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}
