/* SPDX-License-Identifier: MIT */
/*
 * liboffload on the kernel's DMA engines, as root in a guest (tests/qemu,
 * suite kmod, after the offload_dma module is loaded; exit 0 pass, 1
 * failure, 77 skipped with the reason printed). Linked with the static
 * liboffload; its context reads the guest's own device tree (the live
 * /sys/firmware/fdt, or --dtb FILE, the tree the machine booted):
 *
 *  - the devices the "dmaengine" backend lists, each tied to the device-tree
 *    node of its DMA controller: the nodes the kernel's dmaengine class names
 *    (/sys/class/dma/dmaNchanM/device/of_node), each listed exactly once;
 *  - offload_memcpy() and offload_memcpy_dev(OFFLOAD_DEV_AUTO) of 1 byte to
 *    64 MiB, unaligned and across pages, from malloc, private and shared
 *    mappings, huge pages (hugetlbfs, THP) where the kernel has them and
 *    dma-bufs (offload_buf_alloc(OFFLOAD_BUF_DMABUF)), each destination
 *    checked byte for byte against a pattern computed from the position
 *    (never against the source), with guard bytes around it; at and above
 *    the engine's threshold the result must name backend "dmaengine" and a
 *    device tied to the controller's node, below it "cpu";
 *  - the queue: batches of copies, each completion's status, job, user data
 *    and device;
 *  - the faults: unmapped user memory (-EFAULT, in a child process so that a
 *    crash is a failure and not the end of the report), a signal during a
 *    synchronous copy and during a queue wait (done, or -EINTR with a
 *    message), a timeout (--timeout, with the module loaded with
 *    timeout_ms=1 round_descs=1: -ETIMEDOUT with a message, or where the
 *    emulated engine is done before the module's watchdog runs, the copy
 *    whole and said so);
 *  - at the end: no page pin left (/proc/vmstat) and no warning, bug or leak
 *    in the kernel log (guest_kernel.h), no descriptor left open.
 *
 * Without a dmaengine backend in the library (offload_backend_status()
 * -ENOENT) the CPU answers: every copy is still made and verified, the
 * routing is checked to be the CPU's, and each check that needs the backend
 * prints "SKIP: ..." naming it; the program then exits 77, so that the
 * verdict shows the skip.
 *
 *   guest_lib_dma [--dtb FILE] [--quick] [--timeout]
 *
 * --quick: copies up to 4 MiB only (a slow emulated engine: nuri's PL330);
 * --timeout: only the timeout case (the module loaded with timeout_ms=1
 * round_descs=1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <offload/offload.h>

#include "guest.h"
#include "guest_kernel.h"

#define SKIP 77
#define MiB (1024u * 1024u)
#define GUARD 256
#define GUARD_BYTE 0xA5
#define BACKEND "dmaengine"
#define MAX_DEVS 64

static const char *dtb_path;
static bool quick;
static size_t page;
static offload_ctx *ctx;

/* The dmaengine backend: present in this library and this context? */
static bool have_be;
static const char *skip_why;
static int skips;

/* The devices it lists (indices), and the first one the policy may choose. */
static int be_devs[MAX_DEVS];
static int n_be;
static int be_auto = -1;
static uint64_t threshold;
/*
 * The engine's copy alignment (the module parameter align_min, from sysfs)
 * and the automatic device's coherence: a copy touching
 * a dma-buf goes by fd, a path with no CPU part, so the engine takes it only
 * when src, dst and len are multiples of the alignment (and, on a
 * non-coherent device, a user destination starts and ends on a cache line).
 */
static uint64_t be_align = 1;
static bool be_coherent;
/* Set while copies touch a dma-buf: 1 = the source is the dma-buf, 2 = the destination. */
static int dmabuf_side;
#define CACHE_LINE 64 /* Cortex-A53/A9 data cache line (ARM TRMs) */

static void skip(const char *what)
{
	printf("SKIP: %s: %s\n", what, skip_why);
	skips++;
}

/* ------------------------------------------------------------ the pattern */

/* splitmix64 (Steele, Lea, Flood 2014): one word per 8 bytes of the copy. */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Byte i of the pattern of seed: byte i % 8 of word i / 8. */
static inline uint64_t pat_word(uint64_t seed, uint64_t k)
{
	return mix(seed * 0x100000001B3ull ^ k);
}

static inline uint8_t pat(uint64_t seed, uint64_t i)
{
	return (uint8_t)(pat_word(seed, i >> 3) >> ((i & 7) * 8));
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = pat_word(seed, i >> 3);

		for (size_t b = 0; b < 8 && i + b < n; b++)
			p[i + b] = (uint8_t)(w >> (b * 8));
	}
}

/* The first byte of p[0, n) that is not the pattern, or n. */
static size_t first_bad(const uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = pat_word(seed, i >> 3);

		for (size_t b = 0; b < 8 && i + b < n; b++)
			if (p[i + b] != (uint8_t)(w >> (b * 8)))
				return i + b;
	}
	return n;
}

static bool guard_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != GUARD_BYTE)
			return false;
	return true;
}

/* ------------------------------------------------------------ the devices */

static bool is_be_dev(int dev)
{
	for (int i = 0; i < n_be; i++)
		if (be_devs[i] == dev)
			return true;
	return false;
}

/* The device-tree paths of the kernel's DMA controllers, from sysfs. */
static int kernel_dma_nodes(char paths[][PATH_MAX], int max)
{
	static const char base[] = "/sys/firmware/devicetree/base";
	DIR *d = opendir("/sys/class/dma");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char link[PATH_MAX + 64], real[PATH_MAX];
		int dup = 0;

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/sys/class/dma/%s/device/of_node", e->d_name);
		if (!realpath(link, real) || strncmp(real, base, sizeof(base) - 1))
			continue;
		for (int i = 0; i < n; i++)
			dup |= !strcmp(paths[i], real + sizeof(base) - 1);
		if (!dup && n < max)
			snprintf(paths[n++], PATH_MAX, "%s", real + sizeof(base) - 1);
	}
	if (d)
		closedir(d);
	return n;
}

static bool ctx_open(void)
{
	struct offload_ctx_opts o;

	ctx = offload_ctx_new();
	offload_ctx_opts_init(&o);
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.dt_source = dtb_path ? OFFLOAD_DT_FILE : OFFLOAD_DT_LIVE;
	o.dtb_path = dtb_path;
	if (!ctx || offload_ctx_open(ctx, &o) < 0) {
		CHECK(0, "context on %s: %s", dtb_path ? dtb_path : "the live tree",
		      ctx ? offload_last_error(ctx) : "out of memory");
		offload_ctx_free(ctx);
		ctx = NULL;
		return false;
	}
	printf("context: device tree %s\n", offload_ctx_dt_source(ctx));
	return true;
}

static void t_devices(void)
{
	static char nodes[MAX_DEVS][PATH_MAX];
	int mark = failures, nn = kernel_dma_nodes(nodes, MAX_DEVS);
	int count = offload_dev_count(ctx);
	const char *why = "";
	int st = offload_backend_status(ctx, BACKEND, &why);

	CHECK(nn > 0, "the kernel lists no DMA controller with a device-tree node");
	if (st == -ENOENT) {
		skip_why = "liboffload has no \"" BACKEND "\" backend (not built in: "
			   "-DOFFLOAD_WITH_DMAENGINE=OFF, or a tree without backends/dmaengine)";
	} else {
		CHECK(st == 1, "backend %s absent with offload_dma loaded: %d (%s)", BACKEND, st,
		      why);
		have_be = st == 1;
		if (!have_be)
			skip_why = "the dmaengine backend is absent (see the failure above)";
	}
	for (int i = 0; i < count; i++) {
		struct offload_dev_info in;

		if (!CHECK(offload_dev_get_info(ctx, i, &in, sizeof(in)) == 0, "dev %d: %s", i,
			   offload_last_error(ctx)))
			continue;
		printf("  dev %d %s: backend \"%s\", %s%s, threshold %" PRIu64 " B (%s)\n", i,
		       in.name, in.backend, in.dt_path[0] ? in.dt_path : "(no node)",
		       in.flags & OFFLOAD_DEVF_AUTO ? ", auto" : "", in.threshold_bytes,
		       in.threshold_reason);
		if (strcmp(in.backend, BACKEND))
			continue;
		if (n_be < MAX_DEVS)
			be_devs[n_be++] = i;
		CHECK(in.caps & OFFLOAD_CAP_MEMCPY, "dev %d: no memcpy capability", i);
		CHECK(in.flags & OFFLOAD_DEVF_USABLE, "dev %d: not usable: %s", i,
		      in.usable_reason);
		if (be_auto < 0 && (in.flags & OFFLOAD_DEVF_AUTO)) {
			be_auto = i;
			threshold = in.threshold_bytes;
			be_coherent = in.coherent == 1;
			/*
			 * The device reports "any alignment" (the module copies the edges
			 * of user memory with the CPU); a dma-buf by fd has no such part,
			 * so the engine's own alignment applies. Judged by the module's
			 * align_min (sysfs), the floor the suite sets for QEMU's engines;
			 * a driver copy_align above it would make this test fail loudly.
			 */
			unsigned long amin = 1;
			FILE *f = fopen("/sys/module/offload_dma/parameters/align_min", "re");
			if (f) {
				if (fscanf(f, "%lu", &amin) != 1 || !amin)
					amin = 1;
				fclose(f);
			}
			be_align = amin;
		}
		int tied = 0;
		for (int k = 0; k < nn; k++)
			tied += !strcmp(nodes[k], in.dt_path);
		CHECK(tied == 1, "dev %d (%s): its node \"%s\" is no DMA controller of the kernel",
		      i, in.name, in.dt_path);
	}
	if (!have_be) {
		CHECK(n_be == 0, "%d device(s) of backend %s, which is absent", n_be, BACKEND);
		skip("the devices tied to the DMA controllers' nodes");
		return;
	}
	/* Every controller the kernel drives, listed once, found by its node. */
	for (int k = 0; k < nn; k++) {
		int listed = 0;

		for (int j = 0; j < n_be; j++) {
			struct offload_dev_info in;

			if (offload_dev_get_info(ctx, be_devs[j], &in, sizeof(in)) == 0)
				listed += !strcmp(in.dt_path, nodes[k]);
		}
		CHECK(listed == 1, "controller %s: listed %d times by %s", nodes[k], listed,
		      BACKEND);
		int f = offload_dev_find(ctx, nodes[k]);
		CHECK(is_be_dev(f), "offload_dev_find(%s) = %d, not a %s device", nodes[k], f,
		      BACKEND);
	}
	CHECK(be_auto >= 0, "no %s device may be chosen automatically", BACKEND);
	/* Else the copies below would never reach the engine. */
	CHECK(threshold > 0 && threshold <= 4 * MiB,
	      "threshold %" PRIu64 " B: not between 1 B and 4 MiB", threshold);
	OK_SINCE(mark, "ok devices: %d %s device(s), one per DMA controller node of the kernel\n",
		 n_be, BACKEND);
}

/* ------------------------------------------------------------ copies */

static int64_t total_copies, engine_copies;

/*
 * One copy of len bytes from a fresh pattern at src to dst, whose GUARD bytes
 * before and after are set to GUARD_BYTE; with_dev: offload_memcpy_dev(AUTO)
 * and its result checked, else offload_memcpy().
 */
static bool check_copy(uint8_t *dst, uint8_t *src, size_t len, uint64_t seed, bool with_dev,
		       const char *what)
{
	struct offload_result res = { .dev = -2 };
	int mark = failures, r;

	fill(src, len, seed);
	memset(dst - GUARD, GUARD_BYTE, len + 2 * GUARD);
	if (with_dev)
		r = offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, dst, src, len, &res);
	else
		r = offload_memcpy(ctx, dst, src, len);
	if (!CHECK(r == 0, "%s, %zu B: %d (%s)", what, len, r, offload_last_error(ctx)))
		return false;
	size_t bad = first_bad(dst, len, seed);
	CHECK(bad == len, "%s, %zu B: byte %zu is 0x%02x, the pattern's 0x%02x", what, len, bad,
	      bad < len ? dst[bad] : 0, bad < len ? pat(seed, bad) : 0);
	CHECK(guard_ok(dst - GUARD, GUARD) && guard_ok(dst + len, GUARD),
	      "%s, %zu B: a guard byte was written", what, len);
	bad = first_bad(src, len, seed);
	CHECK(bad == len, "%s, %zu B: the source changed at byte %zu", what, len, bad);
	total_copies++;
	if (with_dev) {
		bool big = have_be && len >= threshold;
		bool fd_ok = true;
		if (big && dmabuf_side) {
			uint64_t bits = (uint64_t)(uintptr_t)dst | (uint64_t)(uintptr_t)src | len;
			fd_ok = !(bits & (be_align - 1));
			if (dmabuf_side == 1 && !be_coherent)
				fd_ok = fd_ok && !(((uintptr_t)dst | ((uintptr_t)dst + len)) &
						   (CACHE_LINE - 1));
		}
		if (big && !fd_ok) {
			/* the fd path cannot take it: the CPU did it, and says so */
			CHECK(res.backend && !strcmp(res.backend, "cpu") &&
				      (res.flags & OFFLOAD_RES_FALLBACK) && (res.flags & OFFLOAD_RES_CPU),
			      "%s, %zu B: unaligned for the dma-buf path: ran on \"%s\" with flags "
			      "0x%x, want the CPU reported as a fallback", what, len,
			      res.backend ? res.backend : "(null)", res.flags);
			return failures == mark;
		}
		const char *want = big ? BACKEND : "cpu";

		CHECK(res.backend && !strcmp(res.backend, want),
		      "%s, %zu B: ran on backend \"%s\" (dev %d, driver %s), not \"%s\"", what, len,
		      res.backend ? res.backend : "(null)", res.dev,
		      res.driver ? res.driver : "(null)", want);
		if (big) {
			CHECK(is_be_dev(res.dev), "%s, %zu B: dev %d is not a %s device", what, len,
			      res.dev, BACKEND);
			CHECK(!(res.flags & (OFFLOAD_RES_FALLBACK | OFFLOAD_RES_CPU)) &&
				      (res.flags & OFFLOAD_RES_KERNEL),
			      "%s, %zu B: result flags 0x%x (want KERNEL, not CPU or FALLBACK)", what,
			      len, res.flags);
			engine_copies++;
		}
	}
	return failures == mark;
}

/* The sizes: 1 B .. 64 MiB, around the page and the powers of two. */
static const size_t sizes[] = {
	1, 2, 3, 7, 63, 64, 65, 255, 4095, 4096, 4097, 65535, 65536 + 3, 256 * 1024 + 1,
	1 * MiB - 1, 4 * MiB + 5, 16 * MiB, 64 * MiB,
};

/* The largest size each kind of memory is copied at. */
static size_t kind_max(int k)
{
	if (quick)
		return k == MEM_ANON ? 4 * MiB + 5 : 1 * MiB - 1;
	switch (k) {
	case MEM_MALLOC:
		return 16 * MiB;
	case MEM_ANON:
		return 64 * MiB;
	default:
		return 4 * MiB + 5;
	}
}

static void copies_in(uint8_t *s, uint8_t *d, size_t max, const char *kind, int *n)
{
	/* Source and destination offsets: aligned, odd, a page edge inside. */
	const size_t offs[][2] = { { 0, 0 }, { 1, 3 }, { page - 5, 7 } };

	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]) && sizes[z] <= max; z++)
		for (size_t o = 0; o < 3; o++) {
			char what[64];

			/* The big ones once aligned and once not. */
			if (sizes[z] >= 16 * MiB && o == 2)
				continue;
			snprintf(what, sizeof(what), "%s +%zu/+%zu", kind, offs[o][0], offs[o][1]);
			(*n)++;
			/* One failure says it: the rest of this kind would repeat it. */
			if (!check_copy(d + GUARD + offs[o][1], s + offs[o][0], sizes[z],
					z * 3 + o + 1, o != 1, what)) {
				printf("  (%s: the copies after this one not made)\n", kind);
				return;
			}
		}
}

static void t_copies(void)
{
	for (int k = 0; k < MEM_KINDS; k++) {
		struct region s = { 0 }, d = { 0 };
		size_t max = kind_max(k), room = max + page + 2 * GUARD;
		int mark = failures, n = 0;

		if (!region_new(&s, (enum mem_kind)k, room) ||
		    !region_new(&d, (enum mem_kind)k, room + 2 * GUARD)) {
			printf("note: no %s memory of %zu bytes here (%s): not copied from it\n",
			       mem_name[k], room, strerror(errno));
			region_free(&s);
			region_free(&d);
			continue;
		}
		copies_in(s.base, d.base, max, mem_name[k], &n);
		region_free(&s);
		region_free(&d);
		CHECK_PINS(mem_name[k]);
		OK_SINCE(mark, "ok copies: %s, %d copies of 1 B .. %zu B, verified\n", mem_name[k], n,
			 max);
	}
	/* Between kinds: malloc to a shared mapping and back. */
	{
		struct region a = { 0 }, b = { 0 };
		int mark = failures;

		if (region_new(&a, MEM_MALLOC, 2 * MiB) && region_new(&b, MEM_SHARED, 2 * MiB)) {
			check_copy(b.base + GUARD, a.base + 17, MiB + 11, 101, true, "malloc->shared");
			check_copy(a.base + GUARD + 3, b.base + page, MiB - 9, 102, true,
				   "shared->malloc");
		}
		region_free(&a);
		region_free(&b);
		OK_SINCE(mark, "ok copies: between malloc and shared memory\n");
	}
}

/* dma-bufs of the library (offload_buf_alloc, OFFLOAD_BUF_DMABUF) on either side. */
static void t_dmabuf(void)
{
	size_t len = quick ? MiB : 8 * MiB, room = len + page + 2 * GUARD;
	offload_buf *b = NULL;
	struct region m;
	int mark = failures, n = 0;
	int r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, room, OFFLOAD_BUF_DMABUF, &b);

	if (r == -ENODEV) {
		printf("note: no dma-buf exporter here (%s): not copied from one\n",
		       offload_last_error(ctx));
		return;
	}
	if (!CHECK(r == 0, "dma-buf of %zu B: %d (%s)", room, r, offload_last_error(ctx)))
		return;
	printf("dma-buf: exporter %s, %zu B\n", offload_buf_dmabuf_exporter(b), offload_buf_size(b));
	if (CHECK(region_new(&m, MEM_ANON, room + 2 * GUARD), "mmap: %s", strerror(errno))) {
		uint8_t *p = offload_buf_ptr(b);

		dmabuf_side = 1;
		copies_in(p, m.base, len, "dma-buf->mmap", &n);
		/* aligned for the engine (cache lines on both sides): must go by fd */
		for (size_t l = 64 * 1024; l <= len; l *= 16, n++)
			check_copy(m.base + GUARD, p + 128, l, 200 + l % 251, true,
				   "dma-buf->mmap aligned");
		dmabuf_side = 2;
		copies_in(m.base, p, len, "mmap->dma-buf", &n);
		for (size_t l = 64 * 1024; l <= len; l *= 16, n++)
			check_copy(p + GUARD, m.base + 64, l, 300 + l % 251, true,
				   "mmap->dma-buf aligned");
		dmabuf_side = 0;
		region_free(&m);
	}
	CHECK(offload_buf_free(b) == 0, "offload_buf_free: %s", offload_last_error(ctx));
	CHECK_PINS("dma-buf");
	OK_SINCE(mark, "ok copies: dma-buf, %d copies of 1 B .. %zu B, verified\n", n, len);
}

/*
 * Every device of the backend by its index (no threshold then): a byte, a
 * page and one, and a MiB and three, each run by that device.
 */
static void t_each_dev(void)
{
	static const size_t lens[] = { 1, 4097, MiB + 3 };
	struct region s = { 0 }, d = { 0 };
	int mark = failures;

	if (!have_be) {
		skip("copies on each dmaengine device by its index");
		return;
	}
	if (!CHECK(region_new(&s, MEM_ANON, 2 * MiB) && region_new(&d, MEM_ANON, 2 * MiB),
		   "buffers: %s", strerror(errno))) {
		region_free(&s);
		region_free(&d);
		return;
	}
	for (int i = 0; i < n_be; i++)
		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			struct offload_result res = { .dev = -2 };
			uint8_t *dst = d.base + GUARD + k;
			int r;

			fill(s.base + 1, lens[k], 200 + (uint64_t)i * 8 + k);
			memset(dst - GUARD, GUARD_BYTE, lens[k] + 2 * GUARD);
			r = offload_memcpy_dev(ctx, be_devs[i], dst, s.base + 1, lens[k], &res);
			if (!CHECK(r == 0, "dev %d, %zu B: %d (%s)", be_devs[i], lens[k], r,
				   offload_last_error(ctx)))
				continue;
			CHECK(first_bad(dst, lens[k], 200 + (uint64_t)i * 8 + k) == lens[k] &&
				      guard_ok(dst - GUARD, GUARD) && guard_ok(dst + lens[k], GUARD),
			      "dev %d, %zu B: wrong data or a guard written", be_devs[i], lens[k]);
			CHECK(res.dev == be_devs[i] && res.backend && !strcmp(res.backend, BACKEND),
			      "dev %d, %zu B: ran on dev %d backend %s", be_devs[i], lens[k], res.dev,
			      res.backend ? res.backend : "(null)");
			total_copies++;
			engine_copies++;
		}
	region_free(&s);
	region_free(&d);
	CHECK_PINS("each device");
	OK_SINCE(mark, "ok copies: 1 B, 4097 B and 1 MiB + 3 on each of the %d %s device(s) by index\n",
		 n_be, BACKEND);
}

/* ------------------------------------------------------------ the queue */

static void t_queue(void)
{
	static const unsigned batches[] = { 1, 2, 7, 32, 64 };
	struct offload_queue_opts qo;
	offload_queue *q = NULL;
	struct region s = { 0 }, d = { 0 };
	const size_t each = quick ? 16384 + 3 : 65536 + 3, stride = each + 2 * GUARD;
	int mark = failures, r, jobs = 0;

	offload_queue_opts_init(&qo);
	qo.depth = 64;
	r = offload_queue_open(ctx, &qo, &q);
	if (!CHECK(r == 0, "offload_queue_open: %d (%s)", r, offload_last_error(ctx)))
		return;
	int qdev = offload_queue_dev(q);
	if (have_be)
		CHECK(is_be_dev(qdev), "the automatic queue is on dev %d, not a %s device", qdev,
		      BACKEND);
	else
		skip("the queue on a dmaengine device");
	if (!CHECK(region_new(&s, MEM_ANON, 64 * stride) && region_new(&d, MEM_ANON, 64 * stride),
		   "queue buffers: %s", strerror(errno))) {
		offload_queue_close(q);
		return;
	}
	for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		unsigned nb = batches[b];
		struct offload_completion cpl[64];
		int got = 0;

		for (unsigned j = 0; j < nb; j++) {
			uint8_t *dj = d.base + j * stride + GUARD;
			size_t lj = each - j * 13;

			fill(s.base + j * stride + (j & 3), lj, 1000 + b * 64 + j);
			memset(dj - GUARD, GUARD_BYTE, lj + 2 * GUARD);
			r = offload_queue_copy(q, dj, s.base + j * stride + (j & 3), lj,
					       (uint64_t)b << 32 | j);
			CHECK(r >= 0, "queue_copy %u of %u: %d", j, nb, r);
		}
		r = offload_queue_submit(q);
		CHECK(r == (int)nb, "submit of %u: %d", nb, r);
		while (got < (int)nb) {
			r = offload_queue_wait(q, cpl + got, nb - (unsigned)got, 60 * 1000000LL);
			if (!CHECK(r > 0, "wait (batch of %u, %d reaped): %d (%s)", nb, got, r,
				   offload_last_error(ctx)))
				break;
			got += r;
		}
		for (int j = 0; j < got; j++) {
			uint8_t *dj = d.base + (size_t)j * stride + GUARD;
			size_t lj = each - (size_t)j * 13, bad;

			CHECK(cpl[j].status == 0 && cpl[j].user_data == ((uint64_t)b << 32 | (unsigned)j),
			      "batch %u job %d: status %d user_data %#" PRIx64, nb, j, cpl[j].status,
			      cpl[j].user_data);
			CHECK(cpl[j].job == (uint32_t)(jobs + j), "batch %u: job %u in place %d", nb,
			      cpl[j].job, jobs + j);
			CHECK(cpl[j].dev == qdev, "batch %u job %d: ran on dev %d, the queue's is %d",
			      nb, j, cpl[j].dev, qdev);
			bad = first_bad(dj, lj, 1000 + b * 64 + (unsigned)j);
			CHECK(bad == lj && guard_ok(dj - GUARD, GUARD) && guard_ok(dj + lj, GUARD),
			      "batch %u job %d: byte %zu of %zu wrong or a guard written", nb, j, bad,
			      lj);
		}
		jobs += (int)nb;
	}
	/* A full ring refuses the next job. */
	for (int j = 0; j < 64; j++)
		offload_queue_copy(q, d.base + j * stride, s.base + j * stride, 64, 0);
	r = offload_queue_copy(q, d.base, s.base + stride, 64, 0);
	CHECK(r == -ENOSPC, "the 65th job on a ring of 64: %d", r);
	CHECK(offload_queue_submit(q) == 64, "submit of a full ring");
	for (int got = 0; got < 64;) {
		struct offload_completion cpl[64];

		r = offload_queue_wait(q, cpl, 64, 60 * 1000000LL);
		if (!CHECK(r > 0, "wait on the full ring: %d (%s)", r, offload_last_error(NULL)))
			break;
		for (int j = 0; j < r; j++)
			CHECK(cpl[j].status == 0, "full ring, job %u: status %d", cpl[j].job,
			      cpl[j].status);
		got += r;
	}
	r = offload_queue_close(q);
	CHECK(r == 0, "offload_queue_close: %d (%s)", r, offload_last_error(NULL));
	region_free(&s);
	region_free(&d);
	CHECK_PINS("queue");
	OK_SINCE(mark, "ok queue: batches of 1 .. 64 copies on dev %d, each completion checked\n",
		 qdev);
}

/* ------------------------------------------------------------ faults */

/*
 * Unmapped user memory on either side: -EFAULT with a message, in a child
 * with a context of its own (an inherited one refuses every call), so that
 * a library that touches the memory with the CPU dies there, not here.
 */
static void t_unmapped(void)
{
	size_t len = 4 * page > threshold ? 4 * page : (size_t)threshold;
	int mark = failures;

	if (!have_be) {
		skip("unmapped user memory gives -EFAULT");
		return;
	}
	for (int side = 0; side < 2; side++)
		for (int dev_auto = 0; dev_auto < 2; dev_auto++) {
			int status;
			pid_t pid = fork();

			if (pid == 0) {
				uint8_t *ok = malloc(len), *gone;
				int r;

				offload_ctx_free(ctx);
				failures = 0;
				gone = mmap(NULL, len, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (!ok || gone == MAP_FAILED || munmap(gone, len) || !ctx_open())
					_exit(2);
				memset(ok, 1, len);
				r = offload_memcpy_dev(ctx, dev_auto ? OFFLOAD_DEV_AUTO : be_auto,
						       side ? gone : ok, side ? ok : gone, len, NULL);
				CHECK(r == -EFAULT && offload_last_error(ctx)[0],
				      "unmapped %s, dev %s: %d (%s), expected -EFAULT with a message",
				      side ? "destination" : "source", dev_auto ? "auto" : "explicit",
				      r, offload_last_error(ctx));
				if (r == -EFAULT)
					printf("  unmapped %s: %s\n", side ? "destination" : "source",
					       offload_last_error(ctx));
				offload_ctx_free(ctx);
				_exit(failures ? 1 : 0);
			}
			if (!CHECK(pid > 0, "fork: %s", strerror(errno)))
				return;
			waitpid(pid, &status, 0);
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "unmapped %s (dev %s): the child %s %d", side ? "destination" : "source",
			      dev_auto ? "auto" : "explicit",
			      WIFSIGNALED(status) ? "died of signal" : "exited with",
			      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		}
	CHECK_PINS("unmapped memory");
	OK_SINCE(mark, "ok faults: unmapped source or destination, explicit or automatic: -EFAULT\n");
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* SIGALRM every ms without SA_RESTART (on), or none and ignored (off). */
static void ticker(bool on)
{
	struct sigaction sa = { .sa_handler = on ? on_alarm : SIG_IGN };
	struct itimerval it = { { 0, on ? 1000 : 0 }, { 0, on ? 1000 : 0 } };

	sigemptyset(&sa.sa_mask);
	if (!on)
		setitimer(ITIMER_REAL, &it, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (on)
		setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * A signal arriving again and again during a synchronous copy and during a
 * queue wait: the copy completes, verified, or ends with -EINTR and says so;
 * a wait returns completions or -EINTR (then waits again), never another
 * error.
 */
static void t_signal(void)
{
	size_t len = quick ? 4 * MiB : 32 * MiB;
	struct region s = { 0 }, d = { 0 };
	int mark = failures, r, eintr = 0;
	sig_atomic_t a0;

	if (!CHECK(region_new(&s, MEM_ANON, len + 2 * GUARD) &&
			   region_new(&d, MEM_ANON, len + 2 * GUARD),
		   "signal buffers: %s", strerror(errno)))
		return;
	fill(s.base, len, 77);
	memset(d.base, GUARD_BYTE, len + 2 * GUARD);
	ticker(true);
	a0 = alarms;
	r = offload_memcpy(ctx, d.base + GUARD, s.base, len);
	ticker(false);
	if (r == -EINTR) {
		CHECK(offload_last_error(ctx)[0], "-EINTR without a message");
		eintr++;
	} else if (CHECK(r == 0, "copy under signals: %d (%s)", r, offload_last_error(ctx))) {
		CHECK(first_bad(d.base + GUARD, len, 77) == len && guard_ok(d.base, GUARD) &&
			      guard_ok(d.base + GUARD + len, GUARD),
		      "copy under signals: wrong data or a guard written");
	}
	CHECK(alarms > a0, "no signal arrived during the %zu B copy", len);
	printf("  signals during a %zu B copy: %d, result %d\n", len, (int)(alarms - a0), r);

	/* The queue: 8 copies of len / 8, one wait after another. */
	struct offload_queue_opts qo;
	offload_queue *q = NULL;
	struct offload_completion cpl[8];
	int got = 0;

	offload_queue_opts_init(&qo);
	qo.depth = 8;
	if (CHECK(offload_queue_open(ctx, &qo, &q) == 0, "queue: %s", offload_last_error(ctx))) {
		for (int j = 0; j < 8; j++)
			offload_queue_copy(q, d.base + GUARD + (size_t)j * (len / 8),
					   s.base + (size_t)j * (len / 8), len / 8, (uint64_t)j);
		memset(d.base + GUARD, 0, len);
		ticker(true);
		a0 = alarms;
		CHECK(offload_queue_submit(q) == 8, "submit of 8");
		while (got < 8) {
			r = offload_queue_wait(q, cpl + got, 8 - (unsigned)got, -1);
			if (r == -EINTR) {
				CHECK(offload_last_error(ctx)[0] || offload_last_error(NULL)[0],
				      "wait: -EINTR without a message");
				eintr++;
				continue;
			}
			if (!CHECK(r > 0, "wait under signals: %d (%s)", r, offload_last_error(NULL)))
				break;
			got += r;
		}
		ticker(false);
		for (int j = 0; j < got; j++)
			CHECK(cpl[j].status == 0, "job %d under signals: status %d", j, cpl[j].status);
		CHECK(got < 8 || first_bad(d.base + GUARD, len, 77) == len,
		      "the queue's copies under signals: wrong data");
		printf("  signals during the queue's wait: %d\n", (int)(alarms - a0));
		CHECK(offload_queue_close(q) == 0, "close: %s", offload_last_error(NULL));
	}
	region_free(&s);
	region_free(&d);
	CHECK_PINS("signals");
	OK_SINCE(mark, "ok faults: signals during a copy and a wait (%d -EINTR, each with a message)\n",
		 eintr);
}

/*
 * The end of a copy with the module's timeout at 1 ms (and one descriptor per
 * round, so that a copy takes many rounds): -ETIMEDOUT with a message, or,
 * where the emulated engine finished before the module's watchdog ran (QEMU's
 * BCM2835 model moves a whole chain at once), the copy whole and said so.
 * Anything else (another error, a wrong byte) fails. Returns whether it
 * timed out.
 */
static bool timeout_end(int r, const uint8_t *d, size_t len, const char *what, const char *msg)
{
	if (r == -ETIMEDOUT) {
		CHECK(msg && msg[0], "%s: -ETIMEDOUT without a message", what);
		printf("  %s: -ETIMEDOUT (%s)\n", what, msg ? msg : "");
		return true;
	}
	if (CHECK(r == 0, "%s of %zu B with the module's timeout at 1 ms: %d (%s), expected "
		  "-ETIMEDOUT", what, len, r, msg ? msg : ""))
		CHECK(first_bad(d, len, 88) == len, "%s: not timed out, but not whole either", what);
	printf("  %s: not reached: the engine finished the %zu B first, whole\n", what, len);
	return false;
}

static void t_timeout(void)
{
	size_t len = quick ? 4 * MiB : 64 * MiB;
	struct region s = { 0 }, d = { 0 };
	int mark = failures, r, reached = 0;

	if (!have_be) {
		skip("a copy that times out gives -ETIMEDOUT");
		return;
	}
	if (!CHECK(region_new(&s, MEM_ANON, len) && region_new(&d, MEM_ANON, len),
		   "timeout buffers: %s", strerror(errno)))
		return;
	fill(s.base, len, 88);
	r = offload_memcpy_dev(ctx, be_auto, d.base, s.base, len, NULL);
	reached += timeout_end(r, d.base, len, "synchronous copy", offload_last_error(ctx));

	struct offload_queue_opts qo;
	offload_queue *q = NULL;
	struct offload_completion c = { 0 };

	offload_queue_opts_init(&qo);
	qo.dev = be_auto;
	if (CHECK(offload_queue_open(ctx, &qo, &q) == 0, "queue: %s", offload_last_error(ctx))) {
		memset(d.base, 0, len);
		offload_queue_copy(q, d.base, s.base, len, 5);
		offload_queue_submit(q);
		r = offload_queue_wait(q, &c, 1, 120 * 1000000LL);
		if (CHECK(r == 1 && c.user_data == 5, "the queue's wait: %d (%s)", r,
			  offload_last_error(NULL)))
			reached += timeout_end(c.status, d.base, len, "queued copy",
					       c.status ? "the job's status" : "");
		CHECK(offload_queue_close(q) == 0, "close: %s", offload_last_error(NULL));
	}
	region_free(&s);
	region_free(&d);
	CHECK_PINS("timeout");
	OK_SINCE(mark, "ok faults: a timeout, synchronous and queued: %d of 2 reached (-ETIMEDOUT), "
		 "the others whole\n", reached);
}

int main(int argc, char **argv)
{
	bool timeout_only = false;
	int fds0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dtb") && i + 1 < argc)
			dtb_path = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--timeout"))
			timeout_only = true;
		else {
			fprintf(stderr, "usage: %s [--dtb FILE] [--quick] [--timeout]\n", argv[0]);
			return 2;
		}
	}
	if (vmstat("nr_foll_pin_acquired") < 0) {
		printf("SKIP: /proc/vmstat has no nr_foll_pin_acquired: leaked pins cannot be seen\n");
		return SKIP;
	}
	reserve_hugepages(16);
	check_log("before the tests");
	pins_base = pins();
	fds0 = count_fds();
	if (!ctx_open())
		return 1;
	t_devices();
	if (timeout_only) {
		t_timeout();
	} else {
		t_each_dev();
		t_copies();
		t_dmabuf();
		check_log("copies");
		t_queue();
		t_unmapped();
		t_signal();
	}
	printf("copies: %" PRId64 " verified, %" PRId64 " of them on %s\n", total_copies,
	       engine_copies, BACKEND);
	CHECK(offload_ctx_close(ctx) == 0, "offload_ctx_close: %s", offload_last_error(ctx));
	offload_ctx_free(ctx);
	CHECK(count_fds() == fds0, "%d descriptor(s) left open", count_fds() - fds0);
	CHECK_PINS("at the end");
	check_log("at the end");
	if (!failures && skips) {
		printf("SKIP: %d check(s) skipped: %s\n", skips, skip_why);
		return SKIP;
	}
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
