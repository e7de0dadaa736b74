/* SPDX-License-Identifier: MIT */
/*
 * The library through the real offload_dma module (kmod/) on the PC's test
 * engine (kmod/tests/fake, offload_dma_fake), in the kmod suite's boot:
 * offload_memcpy_dev() with OFFLOAD_DEV_AUTO from 1 byte to 16 MiB,
 * unaligned and across pages, reporting the dmaengine backend from the
 * device's threshold up and the CPU below it; the queue (one batch, every
 * job verified, in order); one fault (a source the kernel cannot pin).
 * Exit 0, or 1 on a failed check.
 */
#include <errno.h>
#include <stdlib.h>

#include <offload/offload.h>

#include "guest.h"

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + seed * 29u + (i >> 12));
}

int main(void)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (!CHECK(ctx && offload_ctx_open(ctx, &o) == 0, "offload_ctx_open: %s",
		   offload_last_error(ctx)))
		return 1;
	const char *why;
	CHECK(offload_backend_status(ctx, "dmaengine", &why) == 1, "dmaengine absent: %s", why);
	int dev = -1;
	struct offload_dev_info info;
	for (int i = 0; i < offload_dev_count(ctx); i++)
		if (offload_dev_get_info(ctx, i, &info, sizeof(info)) == 0 &&
		    strcmp(info.backend, "dmaengine") == 0) {
			dev = i;
			break;
		}
	if (!CHECK(dev >= 0, "no dmaengine device"))
		return 1;
	printf("ok device %d %s (%s): %s; threshold %llu B: %s\n", dev, info.name, info.kind,
	       info.usable_reason, (unsigned long long)info.threshold_bytes, info.threshold_reason);
	CHECK(info.threshold_bytes == OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT, "threshold %llu",
	      (unsigned long long)info.threshold_bytes);

	/* sizes 1 B .. 16 MiB, source and destination at odd offsets into pages */
	static const size_t sizes[] = { 1, 3, 64, 4095, 4097, 65535, 65536, 65537, 200003,
					(1u << 20) + 5, 16u << 20 };
	size_t cap = (16u << 20) + 3 * 4096;
	uint8_t *src = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *dst = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(src != MAP_FAILED && dst != MAP_FAILED, "mmap"))
		return 1;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int mark = failures;
		size_t len = sizes[k], so = 4093 - (k % 7), dof = 4091 + (k % 5);
		fill(src, cap, (unsigned)k);
		memset(dst, 0x5A, cap);
		struct offload_result res;
		int r = offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, dst + dof, src + so, len, &res);
		CHECK(r == 0, "%zu B: %d %s", len, r, offload_last_error(ctx));
		CHECK(memcmp(dst + dof, src + so, len) == 0, "%zu B: data differs", len);
		CHECK(dst[dof - 1] == 0x5A && dst[dof + len] == 0x5A, "%zu B: guard bytes written", len);
		const char *want = len >= info.threshold_bytes ? "dmaengine" : "cpu";
		CHECK(strcmp(res.backend, want) == 0, "%zu B ran on %s, not %s", len, res.backend, want);
		OK_SINCE(mark, "ok memcpy AUTO %zu B (src +%zu, dst +%zu): %s %s\n", len, so, dof,
			 res.backend, res.driver);
	}

	/* the queue: one batch of 48 jobs on the engine, reaped in order */
	{
		int mark = failures;
		struct offload_queue_opts qo;
		offload_queue *q = NULL;
		offload_queue_opts_init(&qo);
		qo.depth = 64;
		qo.dev = dev;
		CHECK(offload_queue_open(ctx, &qo, &q) == 0, "queue_open: %s", offload_last_error(ctx));
		enum { N = 48, SZ = 70001 };
		fill(src, (size_t)N * SZ + 64, 99);
		memset(dst, 0, (size_t)N * SZ + 64);
		for (int i = 0; q && i < N; i++)
			CHECK(offload_queue_copy(q, dst + (size_t)i * SZ + 1, src + (size_t)i * SZ + 3,
						 SZ - 7, (uint64_t)i) >= 0, "queue_copy %d", i);
		CHECK(q && offload_queue_submit(q) == N, "queue_submit: %s", offload_last_error(ctx));
		int got = 0;
		while (q && got < N) {
			struct offload_completion c[16];
			int n = offload_queue_wait(q, c, 16, 30000000);
			if (!CHECK(n > 0, "queue_wait: %d %s", n, offload_last_error(ctx)))
				break;
			for (int j = 0; j < n; j++, got++) {
				CHECK(c[j].user_data == (uint64_t)got && c[j].status == 0,
				      "job %llu status %d (expected job %d)",
				      (unsigned long long)c[j].user_data, c[j].status, got);
			}
		}
		for (int i = 0; i < N; i++)
			CHECK(memcmp(dst + (size_t)i * SZ + 1, src + (size_t)i * SZ + 3, SZ - 7) == 0,
			      "queue job %d: data differs", i);
		if (q)
			CHECK(offload_queue_close(q) == 0, "queue_close");
		OK_SINCE(mark, "ok queue: %d jobs of %d B in one batch, in order, verified\n", N, SZ - 7);
	}

	/* a fault: the source crosses into a page the kernel cannot pin */
	{
		int mark = failures;
		uint8_t *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED && mprotect(p + 4096, 4096, PROT_NONE) == 0, "mprotect");
		int r = offload_memcpy_dev(ctx, dev, dst, p + 4000, 200, NULL);
		CHECK(r == -EFAULT && strstr(offload_last_error(ctx), "not mapped"), "fault: %d %s", r,
		      offload_last_error(ctx));
		OK_SINCE(mark, "ok fault: %s\n", offload_last_error(ctx));
		munmap(p, 8192);
	}
	munmap(src, cap);
	munmap(dst, cap);
	offload_ctx_free(ctx);
	printf("%s guest_dmaengine: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
