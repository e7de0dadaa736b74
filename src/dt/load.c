/* SPDX-License-Identifier: MIT */
/* Loading a flattened device tree from a file, the live system or memory. */
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"
#include "dt/dt.h"
#include "dt/dt_int.h"

/* Largest blob accepted: real trees are < 1 MiB; this bounds a hostile file. */
#define OFL_DT_MAX_SIZE (16u << 20)

int ofl_dt_load_blob(struct ofl_dt *dt, const void *blob, size_t size, char *err, size_t errlen)
{
	memset(dt, 0, sizeof(*dt));
	if (!blob || size == 0 || size > OFL_DT_MAX_SIZE) {
		ofl_dt_seterr(err, errlen, "blob %s", !blob ? "is NULL" : size == 0 ? "is empty" : "exceeds 16 MiB");
		return -EINVAL;
	}
	/* Copy so the caller may free theirs, and so the blob is 8-byte aligned. */
	void *copy = malloc(size);
	if (!copy) {
		ofl_dt_seterr(err, errlen, "out of memory for a %zu-byte blob", size);
		return -ENOMEM;
	}
	memcpy(copy, blob, size);
	int r = ofl_dt_validate(copy, size, err, errlen);
	if (r < 0) {
		free(copy);
		return r;
	}
	dt->fdt = copy;
	dt->owned = copy;
	dt->size = size;
	ofl_strlcpy(dt->source, "blob", sizeof(dt->source));
	return 0;
}

/* What a file that is not a regular file is, for the message. */
static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO (a pipe)" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory"
	       : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "of another kind";
}

/*
 * Open a device tree file without blocking: only a regular file (sysfs's
 * /sys/firmware/fdt is one) is read. A FIFO or a pipe's /dev/stdin would
 * block the open until a writer comes and the read until it closes (maybe
 * never), a terminal or another device until it has input: they are refused
 * before they are opened (stat), and again after (fstat, O_NONBLOCK), in
 * case the path changed in between.
 */
static int open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd = -1;

	if (stat(path, st) < 0)
		goto fail;
	if (!S_ISREG(st->st_mode))
		goto refuse;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, st) < 0)
		goto fail;
	if (S_ISREG(st->st_mode))
		return fd;
	close(fd);
refuse:
	ofl_dt_seterr(err, errlen,
		      "%s is %s, not a regular file: a device tree is read from a .dtb file (save "
		      "the blob to one first)", path, file_kind(st->st_mode));
	return -EINVAL;
fail:;
	int r = -errno;
	if (fd >= 0)
		close(fd);
	ofl_dt_seterr(err, errlen, "cannot open device tree %s: %s", path, strerror(-r));
	return r;
}

int ofl_dt_load_file(struct ofl_dt *dt, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	memset(dt, 0, sizeof(*dt));
	fd = open_regular(path, &st, err, errlen);
	if (fd < 0)
		return fd;
	/* sysfs files report size 0 or 4096; read until EOF instead of trusting st_size. */
	size_t cap = 64 * 1024, len = 0;
	if (st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	if (cap > OFL_DT_MAX_SIZE + 1)
		cap = OFL_DT_MAX_SIZE + 1;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		ofl_dt_seterr(err, errlen, "out of memory reading %s", path);
		return -ENOMEM;
	}
	for (;;) {
		if (len == cap) {
			if (cap > OFL_DT_MAX_SIZE) {
				free(buf);
				close(fd);
				ofl_dt_seterr(err, errlen, "%s is larger than 16 MiB: not a device tree", path);
				return -EINVAL;
			}
			size_t ncap = OFL_MIN(cap * 2, (size_t)OFL_DT_MAX_SIZE + 1);
			char *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				close(fd);
				ofl_dt_seterr(err, errlen, "out of memory reading %s", path);
				return -ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			free(buf);
			close(fd);
			ofl_dt_seterr(err, errlen, "cannot read %s: %s", path, strerror(-r));
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	char verr[400] = "";
	r = ofl_dt_validate(buf, len, verr, sizeof(verr));
	if (r < 0) {
		free(buf);
		ofl_dt_seterr(err, errlen, "%s: %s", path, verr);
		return r;
	}
	dt->fdt = buf;
	dt->owned = buf;
	dt->size = len;
	snprintf(dt->source, sizeof(dt->source), "file:%.290s", path);
	return 0;
}

int ofl_dt_load_live(struct ofl_dt *dt, char *err, size_t errlen)
{
	int r = ofl_dt_load_file(dt, "/sys/firmware/fdt", err, errlen);

	if (r == 0)
		ofl_strlcpy(dt->source, "live:/sys/firmware/fdt", sizeof(dt->source));
	return r;
}

void ofl_dt_free(struct ofl_dt *dt)
{
	free(dt->owned);
	memset(dt, 0, sizeof(*dt));
}
