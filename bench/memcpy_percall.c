/* SPDX-License-Identifier: MIT */
/*
 * N small copies through plain memcpy, the library's inline offload_memcpy()
 * (the public header's fast path, what a C program compiles), or the
 * exported offload_memcpy() symbol (what FFI binds: dlsym on the shared
 * library), for callgrind: bench/memcpy_callgrind.sh runs it at two counts
 * and divides the difference of the instruction counts by the difference of
 * the counts, which leaves one call with its share of the loop.
 *
 *   memcpy_percall memcpy|inline|symbol SIZE N
 *
 * The copies go round 64 KiB of packed buffers (as bench memcpy's small
 * sizes do); the destinations are compared with the sources at the end.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>

#include "cli.h"

typedef int (*memcpy_fn)(offload_ctx *ctx, void *dst, const void *src, size_t len);

int main(int argc, char **argv)
{
	uint64_t size = 0, n = 0;

	if (argc != 4 || (strcmp(argv[1], "memcpy") && strcmp(argv[1], "inline") && strcmp(argv[1], "symbol")) ||
	    cli_parse_uint(argv[2], CLI_NUM_SIZE, 1, 4096, &size) < 0 ||
	    cli_parse_uint(argv[3], 0, 1, 1000000000, &n) < 0) {
		fprintf(stderr, "usage: %s memcpy|inline|symbol SIZE(1..4096) N\n", argv[0]);
		return 2;
	}
	size_t stride = (size + 63) / 64 * 64, nbuf = (64u << 10) / stride;
	unsigned char *src = aligned_alloc(4096, 64u << 10), *dst = aligned_alloc(4096, 64u << 10);
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();
	memcpy_fn sym = NULL;

	if (!src || !dst || !ctx)
		return 1;
	for (size_t i = 0; i < (64u << 10); i++)
		src[i] = (unsigned char)(i * 131 + 7);
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (offload_ctx_open(ctx, &o) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], offload_last_error(ctx));
		return 1;
	}
	if (argv[1][0] == 's') {
		/* the symbol FFI binds: the library's exported function, not the header's inline */
		sym = (memcpy_fn)dlsym(RTLD_DEFAULT, "offload_memcpy");
		if (!sym) {
			fprintf(stderr, "%s: dlsym offload_memcpy: %s\n", argv[0], dlerror());
			return 1;
		}
	}
	int bad = 0;
	for (uint64_t i = 0; i < n; i++) {
		size_t k = (size_t)(i % nbuf) * stride;
		if (argv[1][0] == 'm')
			memcpy(dst + k, src + k, size);
		else if (sym)
			bad |= sym(ctx, dst + k, src + k, size);
		else
			bad |= offload_memcpy(ctx, dst + k, src + k, size);
		__asm__ __volatile__("" ::: "memory");
	}
	for (size_t b = 0; b < nbuf && b < n; b++)
		bad |= memcmp(dst + b * stride, src + b * stride, size) != 0;
	printf("%s: %llu copies of %llu bytes, %s\n", argv[1], (unsigned long long)n,
	       (unsigned long long)size, bad ? "FAILED" : "verified");
	offload_ctx_free(ctx);
	free(src);
	free(dst);
	return bad ? 1 : 0;
}
