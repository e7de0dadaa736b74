/* SPDX-License-Identifier: MIT */
/* Run a command's code in-process with stdout and stderr captured (for offloadctl command tests). */
#ifndef OFFLOAD_TEST_CAPTURE_H
#define OFFLOAD_TEST_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

static inline void capture_slurp(FILE *f, char *buf, size_t len)
{
	fflush(f);
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* fn(arg) with fd 1 and 2 redirected; its output lands NUL-terminated in out[] and err[]. */
static inline int capture(int (*fn)(void *), void *arg, char *out, size_t olen, char *err, size_t elen)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	ck_assert(fo && fe);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	int r = fn(arg);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	capture_slurp(fo, out, olen);
	capture_slurp(fe, err, elen);
	return r;
}

#endif
