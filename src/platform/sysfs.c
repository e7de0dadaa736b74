/* SPDX-License-Identifier: MIT */
/* The sysfs, /dev and /proc roots (redirectable for tests) and small file helpers. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "platform/platform.h"
#include "platform/sysfs.h"

static struct ofl_platform_roots roots = {
	.sysfs = "/sys",
	.dev = "/dev",
	.devmem = "/dev/mem",
	.pagemap = "/proc/self/pagemap",
	.dev_len = 4,
};
static pthread_mutex_t roots_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t roots_once = PTHREAD_ONCE_INIT;

/* $OFFLOAD_SYSFS_ROOT (shared with the spidev backend) and $OFFLOAD_DEV_ROOT, for stand-in trees. */
static void roots_from_env(void)
{
	const char *s = getenv("OFFLOAD_SYSFS_ROOT"), *d = getenv("OFFLOAD_DEV_ROOT");

	pthread_mutex_lock(&roots_mu);
	if (s && *s)
		ofl_strlcpy(roots.sysfs, s, sizeof(roots.sysfs));
	if (d && *d) {
		ofl_strlcpy(roots.dev, d, sizeof(roots.dev));
		roots.dev_len = strlen(d);
		snprintf(roots.devmem, sizeof(roots.devmem), "%.240s/mem", d);
	}
	pthread_mutex_unlock(&roots_mu);
}

const struct ofl_platform_roots *ofl_platform_roots(void)
{
	pthread_once(&roots_once, roots_from_env);
	return &roots;
}

void ofl_platform_set_roots(const char *sysfs, const char *dev, const char *devmem,
			    const char *pagemap)
{
	pthread_once(&roots_once, roots_from_env);
	pthread_mutex_lock(&roots_mu);
	if (!sysfs && !dev && !devmem && !pagemap) {
		ofl_strlcpy(roots.sysfs, "/sys", sizeof(roots.sysfs));
		ofl_strlcpy(roots.dev, "/dev", sizeof(roots.dev));
		roots.dev_len = 4;
		ofl_strlcpy(roots.devmem, "/dev/mem", sizeof(roots.devmem));
		ofl_strlcpy(roots.pagemap, "/proc/self/pagemap", sizeof(roots.pagemap));
	}
	if (sysfs)
		ofl_strlcpy(roots.sysfs, sysfs, sizeof(roots.sysfs));
	if (dev) {
		ofl_strlcpy(roots.dev, dev, sizeof(roots.dev));
		roots.dev_len = strlen(dev);
	}
	if (devmem)
		ofl_strlcpy(roots.devmem, devmem, sizeof(roots.devmem));
	if (pagemap)
		ofl_strlcpy(roots.pagemap, pagemap, sizeof(roots.pagemap));
	pthread_mutex_unlock(&roots_mu);
}

int ofl_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

int ofl_read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;

	int r = ofl_read_text(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

int ofl_write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	int e = errno;
	close(fd);
	if (w < 0)
		return -e;
	return (size_t)w == n ? 0 : -EIO;
}

int ofl_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/*
 * The DT path an of_node symlink points at: the part after ".../devicetree/base"
 * ("/" for the base itself). -ENOENT if not a link into a devicetree.
 */
int ofl_of_node_path(const char *link, char *out, size_t len)
{
	char target[PATH_MAX_OFL];
	ssize_t n = readlink(link, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	const char *p = strstr(target, "devicetree/base");
	if (!p)
		return -ENOENT;
	p += strlen("devicetree/base");
	ofl_strlcpy(out, *p ? p : "/", len);
	return 0;
}
