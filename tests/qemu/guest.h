/* SPDX-License-Identifier: MIT */
/* Checks for the plain guest programs (no Check: they also run as root in a
 * busybox initramfs and report through their exit status). */
#ifndef OFFLOAD_TEST_GUEST_H
#define OFFLOAD_TEST_GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <fcntl.h>

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


/* Open descriptors of this process (/proc/self/fd). */
static inline int count_fds(void)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/*
 * Bytes at physical address pa through /dev/mem, independently of any
 * mapping the library made: pread(), or where the kernel's read_mem()
 * refuses the range (arm64, no-map reserved memory: outside the linear map)
 * a mapping of its own at that address.
 */
static inline bool devmem_read(uint64_t pa, void *buf, size_t n)
{
	int fd = open("/dev/mem", O_RDONLY | O_SYNC);
	bool ok = fd >= 0 && pread(fd, buf, n, (off_t)pa) == (ssize_t)n;

	if (fd >= 0 && !ok) {
		long pg = sysconf(_SC_PAGESIZE);
		uint64_t base = pa & ~(uint64_t)(pg - 1);
		size_t len = (size_t)(pa - base) + n;
		void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)base);
		if (m != MAP_FAILED) {
			memcpy(buf, (const char *)m + (pa - base), n);
			munmap(m, len);
			ok = true;
		}
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

#ifdef OFFLOAD_OFFLOAD_H
/* A context on no device tree, without the environment's influence; NULL
 * (with a FAIL line) if it does not open. */
static inline offload_ctx *guest_ctx_open(void)
{
	struct offload_ctx_opts o;
	offload_ctx *c = offload_ctx_new();

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (!c || offload_ctx_open(c, &o) < 0) {
		printf("FAIL: context: %s\n", c ? offload_last_error(c) : "out of memory");
		offload_ctx_free(c);
		return NULL;
	}
	return c;
}
#endif

#endif
