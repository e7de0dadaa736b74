/* SPDX-License-Identifier: MIT */
/* Small helpers shared by every module (src/util/util.h). */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/util.h"

uint64_t ofl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ofl_poll_backoff(unsigned *spins)
{
	if (*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile("pause");
#elif defined(__aarch64__)
		__asm__ volatile("yield");
#endif
	} else if (*spins < 2048) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 20000 };
		nanosleep(&ts, NULL);
	}
	(*spins)++;
}

uint64_t ofl_deadline_ns(uint64_t now, int64_t timeout_us)
{
	if (timeout_us < 0 || (uint64_t)timeout_us > (UINT64_MAX - now) / 1000u)
		return UINT64_MAX;
	return now + (uint64_t)timeout_us * 1000u;
}

int64_t ofl_us_until(uint64_t now, uint64_t deadline)
{
	if (now >= deadline)
		return 0;
	uint64_t us = (deadline - now) / 1000u + ((deadline - now) % 1000u != 0);
	return us > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)us;
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

void ofl_reason_set(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void ofl_reason_append(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n = strnlen(buf, len);

	if (n + 2 >= len)
		return;
	if (n) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * The C library's description of a positive errno as a static string, or
 * NULL. Not strerror(): glibc formats unknown codes into a per-thread buffer
 * that the next call frees, so its result cannot be returned as static.
 */
static const char *libc_errno_text(int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	return strerrordesc_np(err);
#else
	OFL_UNUSED(err);
	return NULL;
#endif
}

const char *ofl_strerror(int err)
{
	if (err == INT_MIN)
		return "unknown error"; /* -INT_MIN does not exist */
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case EINVAL:
		return "invalid argument";
	case ENODEV:
		return "no such device, or device disabled";
	case ENOTSUP:
		return "no backend can perform this operation";
	case ETIMEDOUT:
		return "engine did not complete in time";
	case EIO:
		return "engine reported an error";
	case EBADMSG:
		return "authentication tag mismatch";
	case EBADF:
		return "handle is closed, or a file descriptor given is not open";
	case EBUSY:
		return "resource busy or handles still open";
	case ENOSPC:
		return "queue full";
	case ENOMEM:
		return "out of memory";
	case EMSGSIZE:
		return "message too long for the backend";
	default: {
		const char *t = libc_errno_text(err);
		return t ? t : "unknown error";
	}
	}
}
