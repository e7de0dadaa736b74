/* SPDX-License-Identifier: MIT */
/* Small helpers shared by every module. */
#include <string.h>
#include <time.h>

#include "core/internal.h"

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
