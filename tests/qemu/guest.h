/* SPDX-License-Identifier: MIT */
/* Checks for the plain guest programs (no Check: they also run as root in a
 * busybox initramfs and report through their exit status). */
#ifndef OFFLOAD_TEST_GUEST_H
#define OFFLOAD_TEST_GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int failures;

static bool check_at(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Count and print a failed check; returns ok, so that "ok" lines can follow. */
static bool check_at(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	failures++;
	printf("FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return false;
}

#define CHECK(cond, ...) check_at((cond), __FILE__, __LINE__, __VA_ARGS__)

/* Print an "ok" line only when no check failed since failures was `mark`. */
#define OK_SINCE(mark, ...)                                                                        \
	do {                                                                                       \
		if (failures == (mark))                                                            \
			printf(__VA_ARGS__);                                                       \
	} while (0)

#endif
