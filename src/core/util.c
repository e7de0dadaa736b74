/* SPDX-License-Identifier: MIT */
/* Small helpers shared by every module. */
#include <string.h>
#include <time.h>

#include "core/internal.h"

bool ofl_range_wraps(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return len != 0 && a + (len - 1) < a;
}

bool ofl_ranges_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	if (alen == 0 || blen == 0)
		return false;
	return x < y + blen && y < x + alen;
}

uint64_t ofl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

char *ofl_strlcpy(char *dst, const char *src, size_t len)
{
	if (len == 0)
		return dst;
	if (!src)
		src = "";
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return dst;
}

void ofl_wipe(void *p, size_t len)
{
	if (p && len)
		explicit_bzero(p, len);
}
