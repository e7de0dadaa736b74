/* SPDX-License-Identifier: MIT */
/*
 * The offload_dma kernel module (kmod/) on a real kernel, as root in a guest
 * (tests/qemu; a plain static program: exit 0 pass, 1 failure, 77 the
 * kernel lacks what it needs). It talks to /dev/offload_dma directly, with
 * the module's own uapi header, and judges the module by what the rest of
 * the kernel says:
 *
 *  - enumeration: every channel against the dmaengine class in sysfs
 *    (/sys/class/dma/dmaNchanM, its device and driver links), its
 *    device-tree node against /sys/firmware/devicetree, its coherence
 *    against the kernel's rule (the nearest dma-coherent/dma-noncoherent of
 *    the node and its parents, else the architecture's default);
 *  - copies of 1 byte to 64 MiB, unaligned, across pages, from malloc,
 *    private and shared mappings, huge pages (hugetlbfs, THP) and dma-bufs
 *    (udmabuf), each verified byte for byte with guard bytes around the
 *    destination; the engine's and the CPU's shares against the rule the
 *    uapi header states; on the test engine (offload_dma_fake) the engine's
 *    own counters against the completion;
 *  - every argument rule, the per-file limits, batches, poll, eventfd;
 *  - the faults: unmapped memory (EFAULT), a signal during a wait (EINTR,
 *    and a restart with SA_RESTART), a timeout, cancellation, engine errors,
 *    munmap and close and unload while copies run, a child exiting with
 *    copies in flight;
 *  - a random ioctl loop (--fuzz SECONDS);
 *  - throughout: no pin left (/proc/vmstat nr_foll_pin_acquired against
 *    nr_foll_pin_released) and no warning, bug or corruption report in the
 *    kernel log.
 *
 *   guest_offload_dma [--expect-chans N] [--expect-driver NAME]
 *                     [--module PATH.ko] [--fuzz SECONDS] [--bounce] [--quick]
 *
 * --module: offload_dma.ko, to unload and load again (the unload checks);
 * --bounce: the kernel bounces DMA (swiotlb=force), so an engine with a
 * copy_align may get addresses off it and leave a copy to the CPU.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/offload_dma.h>
#include <linux/udmabuf.h>

#include "guest.h"
#include "guest_kernel.h"

#define SKIP 77
/* __u64 is unsigned long long, uint64_t may be unsigned long: for PRIu64. */
#define U64(x) ((uint64_t)(x))
#define FAKE "/sys/module/offload_dma_fake/parameters/"
#define MiB (1024u * 1024u)

static int fd = -1;
static struct offload_dma_info info;
static struct offload_dma_chan_info chans[256];
static bool fake;			/* channel 0 is offload_dma_fake's */
static bool can_stop = true;		/* its driver has device_terminate_all */
static bool bounce, quick, verbose;
static const char *module_path;
static size_t page;

/* ------------------------------------------------------------ helpers */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static void fill(void *p, size_t n, unsigned seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31u + seed * 17u + (i >> 11));
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static int open_dev(void)
{
	return open(OFFLOAD_DMA_DEVICE, O_RDWR | O_CLOEXEC);
}

static struct offload_dma_copy copy_of(uint32_t chan, void *dst, const void *src, uint64_t len)
{
	struct offload_dma_copy c = {
		.src = ptr(src),
		.dst = ptr(dst),
		.len = len,
		.chan = chan,
	};
	return c;
}

/* Submit n copies; the ioctl's return (or -errno). */
static int submit(int dfd, struct offload_dma_copy *c, uint32_t n, uint32_t *detail)
{
	struct offload_dma_submit s = { .copies = ptr(c), .count = n };
	int r = ioctl(dfd, OFFLOAD_DMA_IOC_SUBMIT, &s);

	if (detail)
		*detail = s.detail;
	if (r < 0)
		return -errno;
	if ((uint32_t)r != s.submitted)
		CHECK(0, "SUBMIT returned %d, submitted says %u", r, s.submitted);
	return r;
}

/* One completion, blocking; false on an error (printed). */
static bool reap(int dfd, struct offload_dma_completion *comp)
{
	ssize_t r;

	do
		r = read(dfd, comp, sizeof(*comp));
	while (r < 0 && errno == EINTR);
	return CHECK(r == (ssize_t)sizeof(*comp), "read: %zd (%s)", r, strerror(errno));
}

/* One copy, waited for: its completion. */
static struct offload_dma_completion copy1(struct offload_dma_copy c)
{
	struct offload_dma_completion comp = { .status = 1 };
	int r = submit(fd, &c, 1, NULL);

	if (CHECK(r == 1, "SUBMIT of one copy: %d (%s)", r, strerror(r < 0 ? -r : 0)))
		reap(fd, &comp);
	return comp;
}

static const char *why_name(uint32_t w)
{
	static const char *const names[] = {
		"NONE", "RESERVED", "FLAGS", "CHAN", "LEN", "RANGE", "OVERLAP", "ALIGN",
		"TOO_BIG", "FAULT", "DMABUF", "DMABUF_RANGE", "DMABUF_MAP", "MAP", "PREP",
		"ENGINE", "TIMEOUT", "CANCELED", "TIMEOUT_ARG", "NOMEM", "COUNT", "EVENTFD",
	};
	return w < sizeof(names) / sizeof(names[0]) ? names[w] : "?";
}

/* A copy must fail with status st and detail why. */
#define EXPECT_FAIL(c, st, why, what)                                                              \
	do {                                                                                       \
		struct offload_dma_completion e_ = copy1(c);                                       \
		CHECK(e_.status == (st) && e_.detail == (why),                                     \
		      "%s: status %d detail %s, expected %d %s", (what), e_.status,                \
		      why_name(e_.detail), (st), why_name(why));                                   \
	} while (0)

/* ------------------------------------------------------------ the test engine */

static bool fake_set(const char *knob, unsigned long v)
{
	char path[128], s[32];
	int f;
	bool ok;

	snprintf(path, sizeof(path), FAKE "%s", knob);
	snprintf(s, sizeof(s), "%lu", v);
	f = open(path, O_WRONLY);
	ok = f >= 0 && write(f, s, strlen(s)) == (ssize_t)strlen(s);
	if (f >= 0)
		close(f);
	return CHECK(ok, "%s: %s", path, strerror(errno));
}

static unsigned long fake_get(const char *knob)
{
	char path[128];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), FAKE "%s", knob);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lu", &v) != 1)
		CHECK(0, "%s: unreadable", path);
	if (f)
		fclose(f);
	return v;
}

static bool fake_get_bool(const char *knob)
{
	char path[128], v = 0;
	int f;

	snprintf(path, sizeof(path), FAKE "%s", knob);
	f = open(path, O_RDONLY);
	if (f < 0 || read(f, &v, 1) != 1)
		CHECK(0, "%s: unreadable", path);
	if (f >= 0)
		close(f);
	return v == 'Y';
}

static void *unstall_thread(void *arg)
{
	usleep((useconds_t)(uintptr_t)arg * 1000);
	fake_set("stall", 0);
	return NULL;
}

/*
 * Where the driver cannot stop a channel, ending a copy (cancel, close)
 * waits for its round to call back: let the stalled engine go in ms.
 */
static void unstall_after(unsigned ms, pthread_t *th)
{
	pthread_create(th, NULL, unstall_thread, (void *)(uintptr_t)ms);
}

static void fake_reset(void)
{
	if (!fake)
		return;
	fake_set("stall", 0);
	fake_set("delay_us", 0);
	fake_set("fail_every", 0);
	fake_set("prep_fail_every", 0);
	fake_set("abort_on_terminate", 0);
}

/* ------------------------------------------------------------ enumeration */

static bool sysfs_link_base(const char *path, char *out, size_t n)
{
	char t[PATH_MAX];
	ssize_t r = readlink(path, t, sizeof(t) - 1);
	const char *b;

	if (r < 0)
		return false;
	t[r] = 0;
	b = strrchr(t, '/');
	b = b ? b + 1 : t;
	if (strlen(b) >= n)
		return false;
	memcpy(out, b, strlen(b) + 1);
	return true;
}

static bool dt_has(const char *node, const char *prop)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "/sys/firmware/devicetree/base%s/%s", node, prop);
	return access(p, F_OK) == 0;
}

/*
 * The kernel's coherence rule for a device-tree node (of_dma_is_coherent():
 * the nearest of the node and its ancestors with dma-coherent or
 * dma-noncoherent decides), else the architecture's default: coherent on
 * x86, not on arm and arm64 (dma_default_coherent).
 */
static bool dt_coherent(const char *node)
{
	char n[256];

	snprintf(n, sizeof(n), "%s", node);
	for (;;) {
		if (dt_has(n, "dma-coherent"))
			return true;
		if (dt_has(n, "dma-noncoherent"))
			return false;
		char *s = strrchr(n, '/');
		if (!s || s == n)
			break;
		*s = 0;
	}
	if (dt_has("", "dma-coherent"))
		return true;
#if defined(__x86_64__) || defined(__i386__)
	return true;
#else
	return false;
#endif
}

static void t_version(void)
{
	struct offload_dma_version v;
	int mark = failures;

	memset(&v, 0xff, sizeof(v));
	if (!CHECK(ioctl(fd, OFFLOAD_DMA_IOC_VERSION, &v) == 0, "VERSION: %s", strerror(errno)))
		return;
	CHECK(v.abi_major == OFFLOAD_DMA_ABI_MAJOR, "abi_major %u", v.abi_major);
	CHECK(v.copy_size == sizeof(struct offload_dma_copy) && v.copy_size == 64,
	      "copy_size %u", v.copy_size);
	CHECK(v.completion_size == sizeof(struct offload_dma_completion) &&
		      v.completion_size == 56,
	      "completion_size %u", v.completion_size);
	CHECK(memchr(v.module_version, 0, sizeof(v.module_version)) && v.module_version[0],
	      "module_version not a string");
	CHECK(!v.reserved[0] && !v.reserved[1] && !v.reserved[2] && !v.reserved[3],
	      "reserved not zeroed");
	OK_SINCE(mark, "ok version: ABI %u.%u, module %s\n", v.abi_major, v.abi_minor,
		 v.module_version);
}

static void t_info(int expect_chans)
{
	int mark = failures;

	if (!CHECK(ioctl(fd, OFFLOAD_DMA_IOC_INFO, &info) == 0, "INFO: %s", strerror(errno)))
		return;
	CHECK(info.page_size == page, "page_size %u, sysconf says %zu", info.page_size, page);
	CHECK(info.cache_align && !(info.cache_align & (info.cache_align - 1)),
	      "cache_align %u", info.cache_align);
	CHECK(info.max_inflight >= 1, "max_inflight %u", info.max_inflight);
	CHECK(info.max_copy_bytes >= MiB && info.max_copy_bytes < info.max_pinned_bytes,
	      "max_copy_bytes %" PRIu64 " of max_pinned_bytes %" PRIu64, U64(info.max_copy_bytes),
	      U64(info.max_pinned_bytes));
	CHECK(info.default_timeout_ms >= 1 && info.default_timeout_ms <= info.max_timeout_ms,
	      "timeouts %u/%u", info.default_timeout_ms, info.max_timeout_ms);
	CHECK(info.nr_channels <= sizeof(chans) / sizeof(chans[0]), "nr_channels %u",
	      info.nr_channels);
	if (expect_chans >= 0)
		CHECK(info.nr_channels == (uint32_t)expect_chans, "%u channels, expected %d",
		      info.nr_channels, expect_chans);
	OK_SINCE(mark,
		 "ok info: %u channel(s), %u in flight, %" PRIu64 " MiB pinned, copies up to %" PRIu64
		 " bytes, cache_align %u, timeout %u ms (max %u)\n",
		 info.nr_channels, info.max_inflight, U64(info.max_pinned_bytes >> 20),
		 U64(info.max_copy_bytes), info.cache_align, info.default_timeout_ms,
		 info.max_timeout_ms);
}

static void t_channels(const char *expect_driver)
{
	bool driver_seen = !expect_driver;
	char p[PATH_MAX], s[256];

	for (uint32_t i = 0; i < info.nr_channels; i++) {
		struct offload_dma_chan_info *c = &chans[i];
		int mark = failures;
		unsigned dev_id, chan_id;
		struct stat st;

		memset(c, 0, sizeof(*c));
		c->index = i;
		if (!CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CHAN_INFO, c) == 0, "CHAN_INFO %u: %s", i,
			   strerror(errno)))
			continue;
		CHECK(c->index == i, "index %u, asked %u", c->index, i);
		CHECK(sscanf(c->name, "dma%uchan%u", &dev_id, &chan_id) == 2 &&
			      dev_id == c->dev_id && chan_id == c->chan_id,
		      "name %s, dev_id %u chan_id %u", c->name, c->dev_id, c->chan_id);
		snprintf(p, sizeof(p), "/sys/class/dma/%s", c->name);
		CHECK(stat(p, &st) == 0, "%s: not in the dmaengine class", p);
		snprintf(p, sizeof(p), "/sys/class/dma/%s/device", c->name);
		CHECK(sysfs_link_base(p, s, sizeof(s)) && !strcmp(s, c->device),
		      "%s: device %s, the module says %s", c->name, s, c->device);
		snprintf(p, sizeof(p), "/sys/class/dma/%s/device/driver", c->name);
		CHECK(sysfs_link_base(p, s, sizeof(s)) && !strcmp(s, c->driver),
		      "%s: driver %s, the module says %s", c->name, s, c->driver);
		CHECK(c->copy_align && !(c->copy_align & (c->copy_align - 1)) && c->copy_align <= 256,
		      "copy_align %u", c->copy_align);
		CHECK(c->max_seg_size >= c->copy_align, "max_seg_size %" PRIu64, U64(c->max_seg_size));
		CHECK(c->dma_mask >= 0xffffffull, "dma_mask %#" PRIx64, U64(c->dma_mask));
		CHECK(!(c->flags & ~15u), "flags %#x", c->flags);
		if (c->of_path[0]) {
			snprintf(p, sizeof(p), "/sys/firmware/devicetree/base%s", c->of_path);
			CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode), "of_path %s: no such node",
			      c->of_path);
			CHECK(!!(c->flags & OFFLOAD_DMA_CHAN_COHERENT) == dt_coherent(c->of_path),
			      "%s: coherent %d, the device tree says %d", c->of_path,
			      !!(c->flags & OFFLOAD_DMA_CHAN_COHERENT), dt_coherent(c->of_path));
		}
		if (!strcmp(c->driver, "offload_dma_fake")) {
			CHECK(!c->of_path[0], "the test engine has no node, of_path %s", c->of_path);
			if (i == 0)
				fake = true;
		}
		if (expect_driver && !strcmp(c->driver, expect_driver))
			driver_seen = true;
		OK_SINCE(mark,
			 "ok channel %u: %s of %s (%s) %s, copy_align %u, max_seg %" PRIu64
			 ", %scoherent%s\n",
			 i, c->name, c->device, c->driver, c->of_path[0] ? c->of_path : "(no node)",
			 c->copy_align, U64(c->max_seg_size),
			 c->flags & OFFLOAD_DMA_CHAN_COHERENT ? "" : "non-",
			 c->flags & OFFLOAD_DMA_CHAN_IOMMU ? ", behind an IOMMU" : "");
	}
	CHECK(driver_seen, "no channel of driver %s", expect_driver);

	struct offload_dma_chan_info c = { .index = info.nr_channels };

	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CHAN_INFO, &c) == -1 && errno == ENODEV,
	      "CHAN_INFO past the last: %s", strerror(errno));
	c.index = 0;
	c.reserved0 = 1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CHAN_INFO, &c) == -1 && errno == EINVAL,
	      "CHAN_INFO with reserved0 set: %s", strerror(errno));
	c.reserved0 = 0;
	c.reserved[3] = 1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CHAN_INFO, &c) == -1 && errno == EINVAL,
	      "CHAN_INFO with reserved[3] set: %s", strerror(errno));
}

/* ------------------------------------------------------------ copies */

/*
 * The engine's share of a copy between two user buffers, by the rule of the
 * uapi header (OFFLOAD_DMA_COPY_NO_CPU): dst aligned to R = copy_align, or
 * max(copy_align, cache_align) on a non-coherent device, and nothing when
 * src and dst differ modulo copy_align.
 */
static uint64_t engine_share(const struct offload_dma_chan_info *c, uint64_t src, uint64_t dst,
			     uint64_t len)
{
	uint64_t a = c->copy_align, r = a, start, end;

	if (!(c->flags & OFFLOAD_DMA_CHAN_COHERENT) && info.cache_align > r)
		r = info.cache_align;
	if ((src ^ dst) & (a - 1))
		return 0;
	start = (dst + r - 1) & ~(r - 1);
	end = (dst + len) & ~(r - 1);
	return end > start ? end - start : 0;
}

#define GUARD 256

/*
 * Copy len bytes from src to dst (dst has GUARD bytes before and after that
 * are its own) on channel ch and check everything: the data, the guards,
 * the source, the completion, the engine's own counters.
 */
static bool check_copy(uint32_t ch, uint8_t *dst, uint8_t *src, uint64_t len, unsigned seed,
		       const char *what)
{
	const struct offload_dma_chan_info *c = &chans[ch];
	unsigned long fd0 = 0, fb0 = 0;
	struct offload_dma_completion comp;
	int mark = failures;
	uint64_t share;
	bool ok = true;

	fill(src, len, seed);
	memset(dst - GUARD, 0x5A, len + 2 * GUARD);
	if (verbose)
		printf("copy %s: %" PRIu64 " bytes %p -> %p\n", what, len, (void *)src, (void *)dst);
	if (fake) {
		fd0 = fake_get("descs");
		fb0 = fake_get("bytes");
	}
	{
		struct offload_dma_copy cp = copy_of(ch, dst, src, len);

		/* An emulated engine may be slow: QEMU's PL330 moves a few MB/s. */
		cp.timeout_ms = info.max_timeout_ms;
		comp = copy1(cp);
	}
	if (!CHECK(comp.status == 0, "%s: %" PRIu64 " bytes: status %d (%s) detail %s", what, len,
		   comp.status, strerror(-comp.status), why_name(comp.detail)))
		return false;
	for (uint64_t i = 0; i < len && ok; i++)
		ok = CHECK(dst[i] == (uint8_t)(i * 31u + seed * 17u + (i >> 11)),
			   "%s: %" PRIu64 " bytes: byte %" PRIu64 " is %#x, expected %#x", what, len, i,
			   dst[i], (uint8_t)(i * 31u + seed * 17u + (i >> 11)));
	for (int i = 0; i < GUARD && ok; i++)
		ok = CHECK(dst[-1 - i] == 0x5A && dst[len + (uint64_t)i] == 0x5A,
			   "%s: %" PRIu64 " bytes: a byte outside dst changed (guard %d)", what, len,
			   i);
	share = engine_share(c, ptr(src), ptr(dst), len);
	CHECK(comp.dma_bytes + comp.cpu_bytes == len, "%s: dma %" PRIu64 " + cpu %" PRIu64
	      " bytes != %" PRIu64, what, U64(comp.dma_bytes), U64(comp.cpu_bytes), len);
	CHECK(comp.dma_bytes == share || (bounce && c->copy_align > 1 && comp.dma_bytes == 0),
	      "%s: %" PRIu64 " bytes (src %%%u = %u, dst %%%u = %u): the engine took %" PRIu64
	      ", the rule says %" PRIu64, what, len, info.cache_align,
	      (unsigned)(ptr(src) % info.cache_align), info.cache_align,
	      (unsigned)(ptr(dst) % info.cache_align), U64(comp.dma_bytes), share);
	if (comp.dma_bytes) {
		uint64_t min_pieces = (comp.dma_bytes + c->max_seg_size - 1) / c->max_seg_size;
		uint64_t max_pieces = min_pieces + 2 * (len / page + 2);

		CHECK(comp.pieces >= min_pieces && comp.pieces <= max_pieces,
		      "%s: %u pieces for %" PRIu64 " engine bytes (max_seg %" PRIu64 ")", what,
		      comp.pieces, U64(comp.dma_bytes), U64(c->max_seg_size));
	} else {
		CHECK(comp.pieces == 0, "%s: %u pieces without engine bytes", what, comp.pieces);
	}
	if (fake) {
		CHECK(fake_get("descs") - fd0 == comp.pieces,
		      "%s: the engine ran %lu descriptors, the completion says %u", what,
		      fake_get("descs") - fd0, comp.pieces);
		CHECK(fake_get("bytes") - fb0 == comp.dma_bytes,
		      "%s: the engine copied %lu bytes, the completion says %" PRIu64, what,
		      fake_get("bytes") - fb0, U64(comp.dma_bytes));
	}
	CHECK(comp.ns > 0, "%s: ns 0", what);
	return failures == mark;
}

static void t_copies(void)
{
	static const uint64_t sizes[] = {
		1, 2, 3, 63, 64, 65, 127, 128, 129, 255, 4095, 4096, 4097, 8191, 65535, 65536,
		65537, 1048576 + 7, 4194304,
	};
	static const unsigned offs[][2] = { { 0, 0 }, { 1, 1 }, { 3, 5 }, { 63, 63 }, { 4095, 1 },
					    { 130, 2 } };
	const uint64_t room = 4194304 + 2 * 4096 + 4 * GUARD;

	for (uint32_t ch = 0; ch < info.nr_channels; ch++) {
		for (int k = 0; k < MEM_KINDS; k++) {
			struct region s = { 0 }, d = { 0 };
			int mark = failures, n = 0;

			if (quick && ch > 0 && k > MEM_ANON)
				break;
			if (!region_new(&s, (enum mem_kind)k, room) ||
			    !region_new(&d, (enum mem_kind)k, room)) {
				printf("note: no %s memory here (%s): not copied from it\n",
				       mem_name[k], strerror(errno));
				region_free(&s);
				region_free(&d);
				continue;
			}
			for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
				for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
					char what[96];

					if (quick && o > 2 && sizes[z] > 4097)
						continue;
					snprintf(what, sizeof(what), "chan %u %s +%u/+%u", ch,
						 mem_name[k], offs[o][0], offs[o][1]);
					check_copy(ch, d.base + 2 * GUARD + offs[o][1],
						   s.base + GUARD + offs[o][0], sizes[z],
						   (unsigned)(z * 7 + o), what);
					n++;
				}
			OK_SINCE(mark, "ok copies: channel %u, %s: %d copies of 1 B .. 4 MiB, verified\n",
				 ch, mem_name[k], n);
			region_free(&s);
			region_free(&d);
			CHECK_PINS(mem_name[k]);
		}
		/* malloc to a private mapping and a shared one to malloc. */
		{
			struct region a = { 0 }, b = { 0 };
			int mark = failures;

			if (region_new(&a, MEM_MALLOC, 1 << 20) && region_new(&b, MEM_SHARED, 1 << 20)) {
				check_copy(ch, b.base + GUARD, a.base + 17, 300000, 1, "malloc->shared");
				check_copy(ch, a.base + GUARD + 3, b.base + 4096, 500000, 2,
					   "shared->malloc");
			}
			region_free(&a);
			region_free(&b);
			OK_SINCE(mark, "ok copies: channel %u between malloc and shared memory\n", ch);
		}
	}
	if (info.nr_channels && !quick) {
		/* 64 MiB, page-aligned and not. */
		uint64_t big = 64ull * MiB;
		struct region s = { 0 }, d = { 0 };
		int mark = failures;

		if (big > info.max_copy_bytes) {
			big = info.max_copy_bytes & ~(uint64_t)(page - 1);
			printf("note: max_copy_bytes is %" PRIu64 ": the largest copy is that\n", big);
		}
		if (region_new(&s, MEM_ANON, big + 2 * page) &&
		    region_new(&d, MEM_ANON, big + 2 * page + 2 * GUARD)) {
			check_copy(0, d.base + page, s.base, big, 9, "the largest, aligned");
			check_copy(0, d.base + GUARD + 1, s.base + 1, big, 10, "the largest, at +1");
			OK_SINCE(mark, "ok copies: %" PRIu64 " MiB, aligned and at +1, verified\n",
				 big >> 20);
			region_free(&s);
			region_free(&d);
		} else {
			CHECK(0, "64 MiB: cannot allocate twice %" PRIu64 " bytes", big);
		}
		CHECK_PINS("64 MiB");
	}
}

/* NO_CPU: refused when the rule leaves bytes to the CPU, else all engine. */
static void t_nocpu(void)
{
	struct region s = { 0 }, d = { 0 };
	int mark = failures;
	struct offload_dma_copy c;
	struct offload_dma_completion comp;
	uint64_t r;

	if (!info.nr_channels || !region_new(&s, MEM_ANON, 1 << 20))
		return;
	if (!region_new(&d, MEM_ANON, 1 << 20)) {
		region_free(&s);
		return;
	}
	r = chans[0].copy_align;
	if (!(chans[0].flags & OFFLOAD_DMA_CHAN_COHERENT) && info.cache_align > r)
		r = info.cache_align;
	c = copy_of(0, d.base, s.base, 65536);
	c.flags = OFFLOAD_DMA_COPY_NO_CPU;
	fill(s.base, 65536, 3);
	comp = copy1(c);
	CHECK(comp.status == 0 && comp.cpu_bytes == 0 && comp.dma_bytes == 65536 &&
		      !memcmp(d.base, s.base, 65536),
	      "NO_CPU aligned: status %d, cpu %" PRIu64 " dma %" PRIu64, comp.status,
	      U64(comp.cpu_bytes), U64(comp.dma_bytes));
	if (r > 1) {
		c = copy_of(0, d.base + 1, s.base + 1, 65536);
		c.flags = OFFLOAD_DMA_COPY_NO_CPU;
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_ALIGN, "NO_CPU with an unaligned head");
		c = copy_of(0, d.base, s.base, r + 1);
		c.flags = OFFLOAD_DMA_COPY_NO_CPU;
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_ALIGN, "NO_CPU with an unaligned tail");
	} else {
		c = copy_of(0, d.base + 1, s.base + 3, 12345);
		c.flags = OFFLOAD_DMA_COPY_NO_CPU;
		comp = copy1(c);
		CHECK(comp.status == 0 && comp.cpu_bytes == 0, "NO_CPU, byte-aligned engine: %d",
		      comp.status);
	}
	OK_SINCE(mark, "ok NO_CPU: the engine alone, or EINVAL/ALIGN where the rule needs the CPU\n");
	region_free(&s);
	region_free(&d);
}

/* ------------------------------------------------------------ arguments */

static void t_args(void)
{
	struct region s = { 0 }, d = { 0 };
	int mark = failures;
	uint8_t *ro, *none;
	struct offload_dma_copy c;
	uint32_t detail;
	int r, efd = eventfd(0, EFD_CLOEXEC);
#if UINTPTR_MAX > 0xffffffffu
	const uint64_t kernel_addr = 0xffff800000000000ull;
#else
	const uint64_t kernel_addr = 0xc0000000ull;
#endif

	if (!region_new(&s, MEM_ANON, 1 << 20) || !region_new(&d, MEM_ANON, 1 << 20))
		return;
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(none + page, page);	/* none + page: unmapped */

	/* Rules that come before the channel. */
	c = copy_of(0, d.base, s.base, 100);
	c.reserved0 = 1;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_RESERVED, "reserved0");
	c = copy_of(0, d.base, s.base, 100);
	c.reserved1 = 1ull << 63;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_RESERVED, "reserved1");
	c = copy_of(0, d.base, s.base, 100);
	c.src_fd = 3;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_RESERVED, "src_fd without SRC_DMABUF");
	c = copy_of(0, d.base, s.base, 100);
	c.flags = 1u << 7;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_FLAGS, "an unknown flag");
	c = copy_of(info.nr_channels, d.base, s.base, 100);
	EXPECT_FAIL(c, -ENODEV, OFFLOAD_DMA_WHY_CHAN, "channel nr_channels");
	c = copy_of(0xffffffffu, d.base, s.base, 100);
	EXPECT_FAIL(c, -ENODEV, OFFLOAD_DMA_WHY_CHAN, "channel 0xffffffff");

	if (info.nr_channels) {
		c = copy_of(0, d.base, s.base, 0);
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_LEN, "len 0");
		c = copy_of(0, d.base, s.base, 100);
		c.timeout_ms = info.max_timeout_ms + 1;
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_TIMEOUT_ARG, "timeout over the maximum");
		c = copy_of(0, d.base, s.base, 100);
		c.src = UINT64_MAX - 10;
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_RANGE, "a source that wraps");
		c = copy_of(0, d.base, s.base, UINT64_MAX);
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_RANGE, "len UINT64_MAX");
		c = copy_of(0, d.base, s.base, 100);
		c.src = kernel_addr;
		EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT, "a kernel source address");
		c = copy_of(0, d.base, s.base, 100);
		c.dst = kernel_addr;
		EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT, "a kernel destination address");
		c = copy_of(0, none + page, s.base, 100);
		EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT, "an unmapped destination");
		c = copy_of(0, d.base, none + page, 100);
		EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT, "an unmapped source");
		c = copy_of(0, d.base, none, 100);
		EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT, "a PROT_NONE source");
		c = copy_of(0, ro, s.base, 100);
		EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT, "a read-only destination");
		c = copy_of(0, none - 50, s.base, 100);
		if (mmap(none - page, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == none - page) {
			EXPECT_FAIL(c, -EFAULT, OFFLOAD_DMA_WHY_FAULT,
				    "a destination running into a PROT_NONE page");
			munmap(none - page, page);
		}
		c = copy_of(0, s.base + 50, s.base, 100);
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_OVERLAP, "overlapping src and dst");
		c = copy_of(0, s.base, s.base + 99, 100);
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_OVERLAP, "dst 99 bytes before src");
		c = copy_of(0, s.base, s.base + 100, 100);
		fill(s.base + 100, 100, 4);
		struct offload_dma_completion comp = copy1(c);
		CHECK(comp.status == 0 && !memcmp(s.base, s.base + 100, 100),
		      "adjacent src and dst: %d", comp.status);
		/* Checked before anything is pinned: the range need not exist (low
		 * addresses: on a 32-bit process the range fits user space). */
		c = copy_of(0, (void *)(uintptr_t)0x10000, NULL, info.max_copy_bytes + 1);
		c.src = 0x10000 + info.max_copy_bytes + 1;
		EXPECT_FAIL(c, -E2BIG, OFFLOAD_DMA_WHY_TOO_BIG, "max_copy_bytes + 1");
		c = copy_of(0, d.base, s.base, 100);
		c.flags = OFFLOAD_DMA_COPY_SRC_DMABUF;
		c.src_fd = -5;
		c.src = 0;
		EXPECT_FAIL(c, -EBADF, OFFLOAD_DMA_WHY_DMABUF, "src_fd -5");
		c.src_fd = efd;
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_DMABUF, "an eventfd as a dma-buf");
		c.src_fd = 999;
		EXPECT_FAIL(c, -EBADF, OFFLOAD_DMA_WHY_DMABUF, "a closed fd as a dma-buf");
	}

	/* The batch header. */
	c = copy_of(0, d.base, s.base, 100);
	struct offload_dma_submit sub = { .copies = ptr(&c), .count = 1, .flags = 1 };
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SUBMIT, &sub) == -1 && errno == EINVAL &&
		      sub.detail == OFFLOAD_DMA_WHY_FLAGS,
	      "SUBMIT flags 1: %s, detail %s", strerror(errno), why_name(sub.detail));
	sub.flags = 0;
	sub.reserved[1] = 1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SUBMIT, &sub) == -1 && errno == EINVAL &&
		      sub.detail == OFFLOAD_DMA_WHY_RESERVED,
	      "SUBMIT reserved: %s, detail %s", strerror(errno), why_name(sub.detail));
	sub.reserved[1] = 0;
	sub.count = 0;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SUBMIT, &sub) == -1 && errno == EINVAL &&
		      sub.detail == OFFLOAD_DMA_WHY_COUNT,
	      "SUBMIT count 0: %s, detail %s", strerror(errno), why_name(sub.detail));
	r = submit(fd, NULL, 1, &detail);
	CHECK(r == -EFAULT && detail == OFFLOAD_DMA_WHY_FAULT, "SUBMIT of NULL copies: %d", r);
	r = submit(fd, (struct offload_dma_copy *)(void *)(none + page), 1, &detail);
	CHECK(r == -EFAULT, "SUBMIT of unmapped copies: %d", r);
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SUBMIT, NULL) == -1 && errno == EFAULT,
	      "SUBMIT with a NULL header: %s", strerror(errno));
	{
		/* Two copies, then the array runs into an unmapped page. */
		uint8_t *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct offload_dma_copy *arr = (struct offload_dma_copy *)(void *)(two + page) - 2;
		struct offload_dma_completion comps[2];

		munmap(two + page, page);
		arr[0] = copy_of(0, d.base, s.base, 10);
		arr[1] = copy_of(0, d.base + 100, s.base + 100, 10);
		r = submit(fd, arr, 3, NULL);
		CHECK(r == 2, "SUBMIT of 3 with the 3rd unmapped: %d, expected 2", r);
		for (int i = 0; i < r && i < 2; i++)
			reap(fd, &comps[i]);
		munmap(two, page);
	}

	/* Other ioctls and read(). */
	CHECK(ioctl(fd, _IOWR(OFFLOAD_DMA_IOC_MAGIC, 0x03, struct offload_dma_copy), &c) == -1 &&
		      errno == ENOTTY,
	      "SUBMIT with the wrong size: %s", strerror(errno));
	CHECK(ioctl(fd, _IO(OFFLOAD_DMA_IOC_MAGIC, 0x40)) == -1 && errno == ENOTTY,
	      "an unknown ioctl: %s", strerror(errno));
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_INFO, NULL) == -1 && errno == EFAULT, "INFO NULL: %s",
	      strerror(errno));
	{
		char small[55];

		CHECK(read(fd, small, sizeof(small)) == -1 && errno == EINVAL,
		      "read of 55 bytes: %s", strerror(errno));
	}
	struct offload_dma_cancel can = { .flags = 2 };
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CANCEL, &can) == -1 && errno == EINVAL,
	      "CANCEL flags 2: %s", strerror(errno));
	can.flags = 0;
	can.reserved = 1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CANCEL, &can) == -1 && errno == EINVAL,
	      "CANCEL reserved: %s", strerror(errno));
	can.reserved = 0;
	can.user_data = 0x123456789;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CANCEL, &can) == 0 && can.cancelled == 0,
	      "CANCEL of nothing: %s", strerror(errno));
	struct offload_dma_eventfd ev = { .fd = -2 };
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev) == -1 && errno == EBADF,
	      "SET_EVENTFD -2: %s", strerror(errno));
	ev.fd = fd;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev) == -1 && errno == EINVAL,
	      "SET_EVENTFD of the device itself: %s", strerror(errno));
	ev.fd = efd;
	ev.flags = 1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev) == -1 && errno == EINVAL,
	      "SET_EVENTFD flags 1: %s", strerror(errno));
	ev.flags = 0;
	ev.reserved = 1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev) == -1 && errno == EINVAL,
	      "SET_EVENTFD reserved: %s", strerror(errno));

	OK_SINCE(mark, "ok arguments: every rule refused with its errno and detail%s\n",
		 info.nr_channels ? "" : " (those before the channel: no channel here)");
	close(efd);
	munmap(ro, page);
	munmap(none, page);
	region_free(&s);
	region_free(&d);
	CHECK_PINS("arguments");
}

/* ------------------------------------------------------------ dma-bufs */

struct dbuf {
	int memfd, fd;
	uint8_t *map;
	size_t len;
};

static bool dbuf_new(struct dbuf *b, size_t len)
{
	struct udmabuf_create cr = { .size = len, .flags = UDMABUF_FLAGS_CLOEXEC };
	int u = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->len = len;
	b->memfd = memfd_create("offload_dma_buf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (u < 0 || b->memfd < 0 || ftruncate(b->memfd, (off_t)len) < 0 ||
	    fcntl(b->memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		goto fail;
	cr.memfd = (uint32_t)b->memfd;
	b->fd = ioctl(u, UDMABUF_CREATE, &cr);
	if (b->fd < 0)
		goto fail;
	b->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b->memfd, 0);
	if (b->map == MAP_FAILED)
		goto fail;
	close(u);
	return true;
fail:
	if (u >= 0)
		close(u);
	if (b->memfd >= 0)
		close(b->memfd);
	if (b->fd >= 0)
		close(b->fd);
	return false;
}

static void dbuf_free(struct dbuf *b)
{
	munmap(b->map, b->len);
	close(b->fd);
	close(b->memfd);
}

static void t_dmabuf(void)
{
	const size_t len = 2u << 20;
	struct dbuf a, b;
	struct region u;
	struct offload_dma_copy c;
	struct offload_dma_completion comp;
	int mark = failures;
	bool coherent;
	uint32_t al;

	if (!info.nr_channels)
		return;
	if (access("/dev/udmabuf", F_OK)) {
		printf("note: no /dev/udmabuf in this kernel: no dma-buf copies\n");
		return;
	}
	if (!CHECK(dbuf_new(&a, len) && dbuf_new(&b, len), "udmabuf: %s", strerror(errno)))
		return;
	if (!region_new(&u, MEM_ANON, len))
		return;
	coherent = chans[0].flags & OFFLOAD_DMA_CHAN_COHERENT;
	al = chans[0].copy_align;
	if (!coherent && info.cache_align > al)
		al = info.cache_align;

	/* dma-buf to dma-buf, offsets that fit copy_align. */
	fill(a.map, len, 5);
	memset(b.map, 0, len);
	c = copy_of(0, NULL, NULL, len / 2);
	c.flags = OFFLOAD_DMA_COPY_SRC_DMABUF | OFFLOAD_DMA_COPY_DST_DMABUF;
	c.src_fd = a.fd;
	c.dst_fd = b.fd;
	c.src = 4096;
	c.dst = 8192;
	comp = copy1(c);
	CHECK(comp.status == 0 && comp.dma_bytes == len / 2 && comp.cpu_bytes == 0 &&
		      !memcmp(b.map + 8192, a.map + 4096, len / 2),
	      "dma-buf to dma-buf: %d %s", comp.status, why_name(comp.detail));
	CHECK(b.map[8191] == 0 && b.map[8192 + len / 2] == 0, "dma-buf to dma-buf: outside dst written");

	/* user memory to a dma-buf and back. */
	fill(u.base, len, 6);
	c = copy_of(0, NULL, u.base + al, len - 2 * al);
	c.flags = OFFLOAD_DMA_COPY_DST_DMABUF;
	c.dst_fd = b.fd;
	c.dst = al;
	comp = copy1(c);
	CHECK(comp.status == 0 && !memcmp(b.map + al, u.base + al, len - 2 * al),
	      "user to dma-buf: %d %s", comp.status, why_name(comp.detail));
	memset(u.base, 0, len);
	c = copy_of(0, u.base + al, NULL, len - 2 * al);
	c.flags = OFFLOAD_DMA_COPY_SRC_DMABUF;
	c.src_fd = b.fd;
	c.src = al;
	comp = copy1(c);
	CHECK(comp.status == 0 && !memcmp(b.map + al, u.base + al, len - 2 * al) && !u.base[0],
	      "dma-buf to user: %d %s", comp.status, why_name(comp.detail));

	/* Within one dma-buf: apart, and overlapping. */
	c = copy_of(0, NULL, NULL, 65536);
	c.flags = OFFLOAD_DMA_COPY_SRC_DMABUF | OFFLOAD_DMA_COPY_DST_DMABUF;
	c.src_fd = a.fd;
	c.dst_fd = a.fd;
	c.src = 0;
	c.dst = 65536;
	comp = copy1(c);
	CHECK(comp.status == 0 && !memcmp(a.map, a.map + 65536, 65536), "within one dma-buf: %d",
	      comp.status);
	c.dst = 4096;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_OVERLAP, "overlapping within one dma-buf");
	c.dst = len - 100;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_DMABUF_RANGE, "beyond the dma-buf's end");
	c.dst = UINT64_MAX - 4;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_RANGE, "a dma-buf offset that wraps");
	c.dst = len;
	c.len = 1;
	EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_DMABUF_RANGE, "at the dma-buf's end");
	if (al > 1) {
		/* No CPU path with a dma-buf: off the alignment is refused. */
		c = copy_of(0, u.base + 1, NULL, 4096);
		c.flags = OFFLOAD_DMA_COPY_SRC_DMABUF;
		c.src_fd = a.fd;
		c.src = 1;
		EXPECT_FAIL(c, -EINVAL, OFFLOAD_DMA_WHY_ALIGN, "dma-buf to unaligned user memory");
	}
	OK_SINCE(mark, "ok dma-bufs (udmabuf): between two, to and from user memory, within one, "
		       "and the range rules\n");
	dbuf_free(&a);
	dbuf_free(&b);
	region_free(&u);
	CHECK_PINS("dma-bufs");
}

/* ------------------------------------------------------------ async */

static void t_batch(void)
{
	enum { N = 32 };
	struct offload_dma_copy c[N];
	struct offload_dma_completion comp[N];
	struct region s = { 0 }, d = { 0 };
	int mark = failures, efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), r;
	struct offload_dma_eventfd ev = { .fd = efd };
	uint64_t count = 0;
	bool seen[N] = { false };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	if (!info.nr_channels || !region_new(&s, MEM_ANON, N * 65536) ||
	    !region_new(&d, MEM_ANON, N * 65536))
		return;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev) == 0, "SET_EVENTFD: %s", strerror(errno));
	fill(s.base, N * 65536, 7);
	for (int i = 0; i < N; i++) {
		c[i] = copy_of((uint32_t)i % info.nr_channels, d.base + i * 65536, s.base + i * 65536,
			       1000 + (uint64_t)i * 1000);
		c[i].user_data = 0xC0DE0000u + (uint64_t)i;
		if (i % 5 == 4)
			c[i].len = 0;			/* refused: LEN */
		if (i % 7 == 6)
			c[i].flags = 1u << 9;		/* refused: FLAGS */
	}
	r = submit(fd, c, N, NULL);
	CHECK(r == N, "SUBMIT of %d: %d", N, r);
	while (got < N) {
		ssize_t n;

		if (!CHECK(poll(&pfd, 1, 30000) == 1 && (pfd.revents & POLLIN), "poll: no POLLIN"))
			break;
		n = read(fd, comp + got, (N - got) * sizeof(comp[0]));
		if (!CHECK(n > 0 && n % (ssize_t)sizeof(comp[0]) == 0, "read: %zd", n))
			break;
		got += (size_t)n / sizeof(comp[0]);
	}
	for (size_t k = 0; k < got; k++) {
		uint64_t i = comp[k].user_data - 0xC0DE0000u;
		int want = i % 5 == 4 || i % 7 == 6 ? -EINVAL : 0;

		if (!CHECK(i < N && !seen[i], "user_data %#" PRIx64 " unknown or twice",
			   U64(comp[k].user_data)))
			continue;
		seen[i] = true;
		CHECK(comp[k].status == want && comp[k].chan == c[i].chan,
		      "copy %" PRIu64 ": status %d (want %d), chan %u", i, comp[k].status, want,
		      comp[k].chan);
		if (!want)
			CHECK(!memcmp(d.base + i * 65536, s.base + i * 65536, c[i].len),
			      "copy %" PRIu64 ": data", i);
	}
	CHECK(read(efd, &count, sizeof(count)) == sizeof(count) && count == N,
	      "eventfd counted %" PRIu64 ", expected %d", count, N);
	ev.fd = -1;
	CHECK(ioctl(fd, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev) == 0, "SET_EVENTFD -1: %s", strerror(errno));
	OK_SINCE(mark, "ok batch: %d copies in one SUBMIT, each completion with its own cookie and "
		       "status, poll and eventfd\n", N);
	close(efd);
	region_free(&s);
	region_free(&d);
	CHECK_PINS("batch");
}

/* Slots: max_inflight copies are consumed, the rest waits for read(). */
static void t_limits(void)
{
	uint32_t n = info.max_inflight + 5;
	struct offload_dma_copy *c = calloc(n, sizeof(*c));
	struct offload_dma_completion comp;
	struct region s = { 0 }, d = { 0 };
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int mark = failures, r;

	if (!info.nr_channels || !c || !region_new(&s, MEM_ANON, 1 << 20) ||
	    !region_new(&d, MEM_ANON, 1 << 20)) {
		free(c);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		c[i] = copy_of(0, d.base + (i % 1000) * 1000, s.base + (i % 1000) * 1000, 100);
	r = submit(fd, c, n, NULL);
	CHECK(r == (int)info.max_inflight, "SUBMIT of max_inflight + 5: %d, expected %u", r,
	      info.max_inflight);
	r = submit(fd, c, 1, NULL);
	CHECK(r == -EAGAIN, "SUBMIT with every slot taken: %d, expected -EAGAIN", r);
	CHECK(poll(&pfd, 1, 0) == 0, "POLLOUT with every slot taken");
	reap(fd, &comp);
	pfd.events = POLLOUT;
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT), "no POLLOUT after a read");
	for (uint32_t i = 1; i < info.max_inflight; i++)
		reap(fd, &comp);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	CHECK(read(fd, &comp, sizeof(comp)) == -1 && errno == EAGAIN,
	      "read with nothing outstanding, O_NONBLOCK: %s", strerror(errno));
	fcntl(fd, F_SETFL, 0);
	OK_SINCE(mark, "ok limits: %u copies in flight, then EAGAIN until read() frees a slot\n",
		 info.max_inflight);
	if (fake) {
		/* Pins: with the engine stalled they add up to max_pinned_bytes. */
		uint64_t each = 16 * MiB, per = 2 * each;	/* page-aligned: exactly its pages */
		uint32_t fit = (uint32_t)(info.max_pinned_bytes / per), m = fit + 2;
		struct region bs = { 0 }, bd = { 0 };

		mark = failures;
		if (region_new(&bs, MEM_ANON, each + page) && region_new(&bd, MEM_ANON, m * each)) {
			fake_set("stall", 1);
			for (uint32_t i = 0; i < m; i++)
				c[i] = copy_of(0, bd.base + i * each, bs.base, each);
			r = submit(fd, c, m, NULL);
			CHECK(r == (int)fit, "SUBMIT of %u 16 MiB copies against %" PRIu64
			      " MiB of pins: %d, expected %u", m, U64(info.max_pinned_bytes >> 20), r,
			      fit);
			fake_set("stall", 0);
			for (int i = 0; i < r; i++) {
				reap(fd, &comp);
				CHECK(comp.status == 0, "a pinned copy: %d", comp.status);
			}
			OK_SINCE(mark, "ok limits: %u copies of 16 MiB fit max_pinned_bytes, the next waits\n",
				 fit);
		}
		region_free(&bs);
		region_free(&bd);
	}
	free(c);
	region_free(&s);
	region_free(&d);
	CHECK_PINS("limits");
}

/* ------------------------------------------------------------ faults */

static volatile sig_atomic_t alarms;
static int stall_fd = -1;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
	/* write() is async-signal-safe: the test engine moves again. */
	if (stall_fd >= 0 && write(stall_fd, "0", 1) < 0)
		alarms += 100;
}

static void alarm_in(long ms, bool restart)
{
	struct sigaction sa;
	struct itimerval it = { .it_value = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* No alarm pending any more, and SIGALRM back to its default. */
static void alarm_off(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
}

static void t_signal(void)
{
	struct offload_dma_completion comp;
	int mark = failures;
	ssize_t r;
	double t;

	/* Nothing in flight: the wait ends with EINTR. */
	alarm_in(100, false);
	t = now();
	r = read(fd, &comp, sizeof(comp));
	CHECK(r == -1 && errno == EINTR && alarms == 1, "read interrupted: %zd (%s), %d alarm(s)",
	      r, strerror(errno), (int)alarms);
	CHECK(now() - t < 10, "read took %.1f s to see the signal", now() - t);
	if (fake && info.nr_channels) {
		/* SA_RESTART: the read restarts (ERESTARTSYS) and returns the
		 * completion the handler let the engine finish. */
		struct region s = { 0 }, d = { 0 };

		if (region_new(&s, MEM_ANON, 65536) && region_new(&d, MEM_ANON, 65536)) {
			struct offload_dma_copy c = copy_of(0, d.base, s.base, 65536);

			fill(s.base, 65536, 8);
			stall_fd = open(FAKE "stall", O_WRONLY);
			fake_set("stall", 1);
			CHECK(submit(fd, &c, 1, NULL) == 1, "SUBMIT");
			alarm_in(200, true);
			r = read(fd, &comp, sizeof(comp));
			CHECK(r == sizeof(comp) && comp.status == 0 && alarms == 1 &&
				      !memcmp(d.base, s.base, 65536),
			      "read with SA_RESTART: %zd (%s), status %d, %d alarm(s)", r,
			      strerror(errno), comp.status, (int)alarms);
			close(stall_fd);
			stall_fd = -1;
		}
		region_free(&s);
		region_free(&d);
	}
	alarm_off();
	OK_SINCE(mark, "ok signal: a wait ends with EINTR%s\n",
		 fake ? ", and restarts with SA_RESTART" : "");
}

/* A copy that takes long: on the test engine a stalled one, else 64 MiB. */
struct slow {
	struct region s, d;
	uint64_t len;
};

static bool slow_new(struct slow *sl)
{
	/* Where the driver cannot stop, a copy ends early only between two of
	 * its rounds: 8 MiB has several. */
	sl->len = fake ? (can_stop ? 1 : 8) * MiB : 16ull * MiB;
	if (sl->len > info.max_copy_bytes)
		sl->len = info.max_copy_bytes & ~(uint64_t)(page - 1);
	return region_new(&sl->s, MEM_ANON, sl->len) && region_new(&sl->d, MEM_ANON, 3 * sl->len);
}

static void slow_free(struct slow *sl)
{
	region_free(&sl->s);
	region_free(&sl->d);
}

/*
 * A timeout. On the test engine: a stalled copy. On a real engine nothing
 * can be made to hang, so the copy with the 1 ms timeout waits behind six
 * of 16 MiB on the same channel (the engine then stops for it, and the
 * copies beside it are resubmitted: they must still finish, whole).
 */
static void t_timeout(void)
{
	struct slow sl;
	struct offload_dma_copy c[7];
	struct offload_dma_completion comp;
	int mark = failures, n = fake ? 1 : 7, got = 0;
	uint64_t big = 16 * MiB, late_ns = 0;
	struct region bs = { 0 }, bd = { 0 };
	bool timed_out = false;
	double t;

	if (!info.nr_channels || !slow_new(&sl))
		return;
	if (!fake) {
		/* About a second of the engine's work ahead (within 6..96 MiB). */
		comp = copy1(copy_of(0, sl.d.base, sl.s.base, 4 * MiB));
		if (comp.status == 0 && comp.ns > 0) {
			double rate = 4.0 * MiB / ((double)comp.ns / 1e9);

			big = (uint64_t)(rate / 6) & ~(uint64_t)(MiB - 1);
			big = big < MiB ? MiB : big > 16 * MiB ? 16 * MiB : big;
		}
	}
	if (!fake && !CHECK(region_new(&bs, MEM_ANON, big) && region_new(&bd, MEM_ANON, 6 * big),
			    "timeout: %" PRIu64 " MiB for the copies ahead", 7 * big / MiB))
		return;
	if (fake) {
		fake_set("stall", 1);
		c[0] = copy_of(0, sl.d.base, sl.s.base, sl.len);
		c[0].timeout_ms = 300;
	} else {
		fill(bs.base, big, 12);
		for (int i = 0; i < 6; i++) {
			c[i] = copy_of(0, bd.base + i * big, bs.base, big);
			c[i].user_data = (uint64_t)i;
		}
		c[6] = copy_of(0, sl.d.base, sl.s.base, 65536);
		c[6].timeout_ms = 1;
	}
	c[n - 1].user_data = 99;
	fill(sl.s.base, sl.len, 9);
	t = now();
	CHECK(submit(fd, c, (uint32_t)n, NULL) == n, "SUBMIT of %d", n);
	if (fake && !can_stop) {
		/* It cannot be stopped: no completion before the engine moves. */
		struct pollfd p = { .fd = fd, .events = POLLIN };

		CHECK(poll(&p, 1, 800) == 0, "a completion while the engine that cannot stop "
		      "is stalled");
		fake_set("stall", 0);
	}
	for (got = 0; got < n && reap(fd, &comp); got++) {
		if (comp.user_data == 99) {
			t = now() - t;
			late_ns = comp.ns;
			timed_out = comp.status == -ETIMEDOUT;
			/*
			 * A real engine may finish first: QEMU's BCM2835 model
			 * copies a whole chain inside the register write that
			 * starts it. Then the copy must be whole.
			 */
			if (!fake && comp.status == 0)
				CHECK(!memcmp(sl.d.base, sl.s.base, 65536), "the short copy: data");
			else
				CHECK(timed_out && comp.detail == OFFLOAD_DMA_WHY_TIMEOUT,
				      "a copy over its %u ms: status %d %s", c[n - 1].timeout_ms,
				      comp.status, why_name(comp.detail));
		} else {
			CHECK(comp.status == 0 && comp.user_data < 6 &&
				      !memcmp(bd.base + comp.user_data * big, bs.base, big),
			      "copy %" PRIu64 " ahead of the one that timed out: %d", U64(comp.user_data),
			      comp.status);
		}
	}
	if (fake)
		CHECK(t >= 0.29 && t < 10, "the timeout came after %.2f s, asked 0.3", t);
	else
		region_free(&bs), region_free(&bd);
	CHECK_PINS("after a timeout");
	if (fake)
		fake_set("stall", 0);
	/* The channel works after it was stopped. */
	c[0] = copy_of(0, sl.d.base, sl.s.base, 100000);
	comp = copy1(c[0]);
	CHECK(comp.status == 0 && !memcmp(sl.d.base, sl.s.base, 100000),
	      "a copy after a timeout: %d", comp.status);
	if (timed_out && fake)
		OK_SINCE(mark, "ok timeout: ETIMEDOUT after %.3f s, no pin left, the channel works "
			       "after\n", t);
	else if (timed_out)
		OK_SINCE(mark, "ok timeout: ETIMEDOUT after %.3f s behind %" PRIu64 " MiB, the copies "
			       "ahead finish whole, no pin left, the channel works after\n",
			 (double)late_ns / 1e9, 6 * big / MiB);
	else
		OK_SINCE(mark, "ok timeout: not reached: the engine finished %" PRIu64 " MiB and the "
			       "copy with the 1 ms timeout first (%.3f s), whole\n", 6 * big / MiB,
			 (double)late_ns / 1e9);
	slow_free(&sl);
}

static void t_cancel(void)
{
	struct slow sl;
	struct offload_dma_copy c[3];
	struct offload_dma_completion comp;
	struct offload_dma_cancel can = { 0 };
	int mark = failures, r, late = 0;

	if (!info.nr_channels || !slow_new(&sl))
		return;
	fill(sl.s.base, sl.len, 10);
	for (int abort_cb = 0; abort_cb <= (fake && can_stop ? 1 : 0); abort_cb++) {
		if (fake) {
			fake_set("abort_on_terminate", (unsigned long)abort_cb);
			fake_set("stall", 1);
		}
		memset(sl.d.base, 0, 3 * sl.len);
		for (int i = 0; i < 3; i++) {
			c[i] = copy_of(0, sl.d.base + i * sl.len, sl.s.base, sl.len);
			c[i].user_data = 100 + (uint64_t)i;
		}
		r = submit(fd, c, fake ? 3 : 1, NULL);
		CHECK(r == (fake ? 3 : 1), "SUBMIT: %d", r);
		can.user_data = fake ? 101 : 100;
		pthread_t th;

		if (fake && !can_stop)
			unstall_after(300, &th);
		r = ioctl(fd, OFFLOAD_DMA_IOC_CANCEL, &can);
		if (fake && !can_stop)
			pthread_join(th, NULL);
		CHECK((r == 1 || (!fake && r == 0)) && can.cancelled == (uint32_t)r,
		      "CANCEL: %d (%s), cancelled %u", r, strerror(errno), can.cancelled);
		if (fake && can_stop) {
			/* The others keep their pins; the cancelled one is free. */
			int64_t left = pins() - pins_base;
			int64_t want = 4 * (int64_t)(sl.len / page);

			CHECK(left >= want && left <= want + 8, "%" PRId64 " pins after CANCEL, "
			      "the two others hold %" PRId64, left, want);
			fake_set("stall", 0);
		}
		for (int i = 0; i < (fake ? 3 : 1); i++) {
			reap(fd, &comp);
			if (comp.user_data == (fake ? 101u : 100u)) {
				/* A real engine may have finished before the CANCEL. */
				if (!fake && comp.status == 0) {
					CHECK(!memcmp(sl.d.base, sl.s.base, sl.len),
					      "a copy that finished before its CANCEL: data");
					late++;
				} else {
					CHECK(comp.status == -ECANCELED &&
						      comp.detail == OFFLOAD_DMA_WHY_CANCELED,
					      "the cancelled copy: %d %s", comp.status,
					      why_name(comp.detail));
				}
			} else {
				uint64_t k = comp.user_data - 100;

				CHECK(k < 3 && comp.status == 0 &&
					      !memcmp(sl.d.base + k * sl.len, sl.s.base, sl.len),
				      "copy %" PRIu64 " beside the cancelled: %d", k, comp.status);
				if (fake && can_stop)
					CHECK(comp.restarts >= 1, "copy %" PRIu64 " was on the stopped "
					      "engine but says %u restarts", k, comp.restarts);
				else if (fake)
					CHECK(comp.restarts == 0, "copy %" PRIu64 ": %u restarts on an "
					      "engine that cannot stop", k, comp.restarts);
			}
		}
		CHECK_PINS("after CANCEL");
	}
	if (fake) {
		/* CANCEL_ALL of a stalled batch. */
		pthread_t th;

		fake_set("stall", 1);
		CHECK(submit(fd, c, 3, NULL) == 3, "SUBMIT");
		can.flags = OFFLOAD_DMA_CANCEL_ALL;
		if (!can_stop)
			unstall_after(300, &th);
		CHECK(ioctl(fd, OFFLOAD_DMA_IOC_CANCEL, &can) == 3, "CANCEL_ALL: %s", strerror(errno));
		if (!can_stop)
			pthread_join(th, NULL);
		CHECK_PINS("after CANCEL_ALL");
		fake_set("stall", 0);
		for (int i = 0; i < 3; i++) {
			reap(fd, &comp);
			CHECK(comp.status == -ECANCELED, "CANCEL_ALL: copy %" PRIu64 ": %d",
			      U64(comp.user_data), comp.status);
		}
	}
	if (chans[0].copy_align > 1) {
		/* src and dst apart modulo copy_align: the CPU copies it all, in
		 * the module's work; CANCEL stops it there too. */
		struct region s = { 0 }, d = { 0 };
		uint64_t len = 64ull * MiB;

		if (len > info.max_copy_bytes)
			len = info.max_copy_bytes & ~(uint64_t)(page - 1);
		if (region_new(&s, MEM_ANON, len + page) && region_new(&d, MEM_ANON, len + page)) {
			c[0] = copy_of(0, d.base, s.base + 1, len);
			c[0].user_data = 7;
			CHECK(submit(fd, c, 1, NULL) == 1, "SUBMIT");
			can.flags = 0;
			can.user_data = 7;
			r = ioctl(fd, OFFLOAD_DMA_IOC_CANCEL, &can);
			CHECK_PINS("right after CANCEL of a CPU copy");
			reap(fd, &comp);
			CHECK(r == 1 && comp.status == -ECANCELED && comp.dma_bytes == 0 &&
				      comp.cpu_bytes < len,
			      "CANCEL of a %" PRIu64 " MiB CPU copy: %d, status %d, cpu %" PRIu64, len >> 20,
			      r, comp.status, U64(comp.cpu_bytes));
		}
		region_free(&s);
		region_free(&d);
	}
	if (late)
		OK_SINCE(mark, "ok cancel: not reached: the engine had finished the copy before its "
			       "CANCEL, whole\n");
	else
		OK_SINCE(mark, "ok cancel: the copy ends with ECANCELED, unpinned when CANCEL "
			       "returns%s\n",
			 fake ? "; those beside it are resubmitted and finish (also when the driver "
				"calls back \"aborted\")" : "");
	slow_free(&sl);
}

/* The test engine's errors: a failing descriptor, refused descriptors. */
static void t_engine_errors(void)
{
	struct region s = { 0 }, d = { 0 };
	struct offload_dma_copy c;
	struct offload_dma_completion comp;
	int mark = failures;

	if (!fake || !region_new(&s, MEM_ANON, 4 * MiB) || !region_new(&d, MEM_ANON, 4 * MiB))
		return;
	fill(s.base, 4 * MiB, 11);
	fake_set("fail_every", 3);
	c = copy_of(0, d.base, s.base, 1 * MiB);
	comp = copy1(c);
	CHECK(comp.status == -EIO && comp.detail == OFFLOAD_DMA_WHY_ENGINE,
	      "a failing descriptor: %d %s", comp.status, why_name(comp.detail));
	fake_set("fail_every", 0);
	CHECK_PINS("after an engine error");

	/* Every request refused, the channel idle: ENOMEM/PREP. */
	fake_set("prep_fail_every", 1);
	comp = copy1(copy_of(0, d.base, s.base, 4096));
	CHECK(comp.status == -ENOMEM && comp.detail == OFFLOAD_DMA_WHY_PREP,
	      "no descriptor at all: %d %s", comp.status, why_name(comp.detail));
	/* Every other request refused: rounds get shorter, the copy finishes. */
	fake_set("prep_fail_every", 2);
	memset(d.base, 0, 4 * MiB);
	comp = copy1(copy_of(0, d.base, s.base, 4 * MiB));
	CHECK(comp.status == 0 && !memcmp(d.base, s.base, 4 * MiB),
	      "every other descriptor refused: %d %s", comp.status, why_name(comp.detail));
	fake_set("prep_fail_every", 0);
	OK_SINCE(mark, "ok engine errors: EIO for a failed descriptor, ENOMEM when the driver gives "
		       "none, shorter rounds when it gives some\n");
	region_free(&s);
	region_free(&d);
	CHECK_PINS("engine errors");
}

/* munmap of both buffers while the copy runs: the pins keep the pages. */
static void t_munmap_inflight(void)
{
	struct slow sl;
	struct offload_dma_copy c;
	struct offload_dma_completion comp;
	int mark = failures;

	if (!info.nr_channels || !slow_new(&sl))
		return;
	if (fake)
		fake_set("stall", 1);
	c = copy_of(0, sl.d.base, sl.s.base, sl.len);
	CHECK(submit(fd, &c, 1, NULL) == 1, "SUBMIT");
	slow_free(&sl);
	if (fake)
		fake_set("stall", 0);
	reap(fd, &comp);
	CHECK(comp.status == 0, "a copy whose buffers were unmapped meanwhile: %d", comp.status);
	CHECK_PINS("after munmap during a copy");
	OK_SINCE(mark, "ok munmap during a copy: it finishes into the pinned pages, then they go\n");
}

/* close() with copies in flight, and a child exiting with copies in flight. */
static void t_close_inflight(void)
{
	struct slow sl;
	struct offload_dma_copy c[3];
	int mark = failures, f2;
	pid_t pid;
	int st = 0;

	if (!info.nr_channels || !slow_new(&sl))
		return;
	f2 = open_dev();
	if (fake)
		fake_set("stall", 1);
	for (int i = 0; i < 3; i++)
		c[i] = copy_of(0, sl.d.base + i * sl.len, sl.s.base, sl.len);
	CHECK(submit(f2, c, 3, NULL) == 3, "SUBMIT on a second file");
	pthread_t th;

	if (fake && !can_stop)
		unstall_after(300, &th);
	CHECK(close(f2) == 0, "close with copies in flight: %s", strerror(errno));
	if (fake && !can_stop)
		pthread_join(th, NULL);
	CHECK_PINS("right after close with copies in flight");
	if (fake)
		fake_set("stall", 0);

	pid = fork();
	if (pid == 0) {
		int f3 = open_dev();
		struct slow s2;

		if (f3 < 0 || !slow_new(&s2))
			_exit(2);
		if (fake)
			fake_set("stall", 1);
		for (int i = 0; i < 3; i++)
			c[i] = copy_of(0, s2.d.base + i * s2.len, s2.s.base, s2.len);
		_exit(submit(f3, c, 3, NULL) == 3 ? 0 : 3);
	}
	if (fake && !can_stop)
		unstall_after(500, &th);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "a child exiting with copies in flight: status %#x", st);
	if (fake && !can_stop)
		pthread_join(th, NULL);
	CHECK_PINS("after the child's exit");
	fake_reset();
	OK_SINCE(mark, "ok close with copies in flight, and exit with copies in flight: no pin left\n");
	slow_free(&sl);
}

static long delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

/* The parameters the module was loaded with ("name=value ..."), from sysfs. */
static void module_params(char *out, size_t n)
{
	DIR *d = opendir("/sys/module/offload_dma/parameters");
	struct dirent *e;
	size_t at = 0;

	out[0] = 0;
	while (d && (e = readdir(d))) {
		char path[300], v[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/module/offload_dma/parameters/%s", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(v, sizeof(v), f)) {
			v[strcspn(v, "\n")] = 0;
			at += (size_t)snprintf(out + at, at < n ? n - at : 0, "%s%s=%s",
					       at ? " " : "", e->d_name, v);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	CHECK(at < n, "module parameters: %zu bytes", at);
}

static bool load_module(const char *path, const char *params)
{
	int m = open(path, O_RDONLY | O_CLOEXEC);
	long r = m < 0 ? -1 : syscall(SYS_finit_module, m, params, 0);

	if (m >= 0)
		close(m);
	return CHECK(r == 0, "finit_module(%s): %s", path, strerror(errno));
}

/* Unload while a copy runs: refused; after the close it goes, and comes back. */
static void t_unload(void)
{
	struct slow sl;
	struct offload_dma_copy c;
	struct offload_dma_completion comp;
	int mark = failures;
	char params[1024];

	if (!module_path) {
		printf("note: no --module: unload not checked\n");
		return;
	}
	module_params(params, sizeof(params));
	if (info.nr_channels && slow_new(&sl)) {
		if (fake)
			fake_set("stall", 1);
		c = copy_of(0, sl.d.base, sl.s.base, sl.len);
		CHECK(submit(fd, &c, 1, NULL) == 1, "SUBMIT");
		CHECK(delete_module("offload_dma") == -1 && errno == EWOULDBLOCK,
		      "unload with a copy in flight: %s", strerror(errno));
		if (fake) {
			CHECK(delete_module("offload_dma_fake") == -1 && errno == EWOULDBLOCK,
			      "unload of the engine whose channel is held: %s", strerror(errno));
			fake_set("stall", 0);
		}
		reap(fd, &comp);
		CHECK(comp.status == 0 && !memcmp(sl.d.base, sl.s.base, sl.len),
		      "the copy the unload did not stop: %d", comp.status);
		slow_free(&sl);
	} else {
		CHECK(delete_module("offload_dma") == -1 && errno == EWOULDBLOCK,
		      "unload with the device open: %s", strerror(errno));
	}
	close(fd);
	fd = -1;
	CHECK(delete_module("offload_dma") == 0, "unload after the close: %s", strerror(errno));
	CHECK(access(OFFLOAD_DMA_DEVICE, F_OK) == -1, "%s is still there", OFFLOAD_DMA_DEVICE);
	CHECK_PINS("after the unload");
	load_module(module_path, params);
	fd = open_dev();
	CHECK(fd >= 0, "open after the reload: %s", strerror(errno));
	OK_SINCE(mark, "ok unload: refused (EWOULDBLOCK) while a copy runs, clean after the close, "
		       "loads again\n");
}

/* ------------------------------------------------------------ the random loop */

enum { POOL = 6, POOL_LEN = 1 << 20 };
static uint8_t *pool[POOL];
static uint8_t *toggled;		/* mapped and unmapped by a thread */
static volatile bool fuzz_stop;

static void *toggler(void *arg)
{
	(void)arg;
	while (!fuzz_stop) {
		munmap(toggled, POOL_LEN);
		usleep(300);
		if (mmap(toggled, POOL_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
			break;
		usleep(700);
	}
	return NULL;
}

/*
 * An address for the random loop: in the data pool (pool[1..]; pool[0]
 * holds the copies random SUBMITs name), in the toggled mapping, or one no
 * user mapping can have: never the program's own heap or stack, which a
 * copy would overwrite.
 */
static uint64_t fuzz_addr(void)
{
	switch (rnd() % 10) {
	case 0:
		return 0;
	case 1:
#if UINTPTR_MAX > 0xffffffffu
		return (1ull << 63) | rnd();
#else
		return rnd() % 2 ? 0xc0000000ull + rnd() % 0x40000000ull : rnd() | (1ull << 32);
#endif
	case 2:
		return ptr(toggled) + rnd() % POOL_LEN;
	default:
		return ptr(pool[1 + rnd() % (POOL - 1)]) + rnd() % POOL_LEN;
	}
}

static uint64_t fuzz_len(void)
{
	switch (rnd() % 12) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX - rnd() % 8;
	case 2:
		return info.max_copy_bytes + rnd() % 3 - 1;
	case 3:
		return rnd();
	case 4:
		return rnd() % (4 * MiB);
	default:
		return 1 + rnd() % 70000;
	}
}

static int fuzz_fd(const int *fds, int nfds)
{
	switch (rnd() % 6) {
	case 0:
		return (int)(rnd() % 64) - 2;
	default:
		return fds[rnd() % (uint64_t)nfds];
	}
}

static void fuzz_copy(struct offload_dma_copy *c, const int *fds, int nfds)
{
	memset(c, 0, sizeof(*c));
	c->user_data = rnd();
	c->src = fuzz_addr();
	c->dst = fuzz_addr();
	c->len = fuzz_len();
	c->chan = rnd() % 8 ? (uint32_t)(rnd() % (info.nr_channels + 1)) : (uint32_t)rnd();
	c->flags = rnd() % 4 ? (uint32_t)(rnd() % 8) : (uint32_t)rnd();
	if (c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF) {
		c->src_fd = fuzz_fd(fds, nfds);
		c->src = rnd() % (4 * MiB);
	}
	if (c->flags & OFFLOAD_DMA_COPY_DST_DMABUF) {
		c->dst_fd = fuzz_fd(fds, nfds);
		c->dst = rnd() % (4 * MiB);
	}
	c->timeout_ms = rnd() % 4 ? 0 : (uint32_t)(rnd() % 3000);
	if (!(rnd() % 20))
		c->reserved0 = (uint32_t)rnd();
	if (!(rnd() % 20))
		c->reserved1 = rnd();
}

/* pool[0]: random copies for the random SUBMITs that name it. */
static void fuzz_fill_pool0(const int *fds, int nfds)
{
	struct offload_dma_copy *c = (struct offload_dma_copy *)(void *)pool[0];

	for (size_t i = 0; i < 4096 * 8 / sizeof(*c) + 16; i++)
		fuzz_copy(&c[i], fds, nfds);
}

static void fuzz_check_completion(const struct offload_dma_completion *comp)
{
	CHECK(comp->status <= 0 && comp->detail < OFFLOAD_DMA_WHY_MAX &&
		      (comp->status || comp->detail == 0) && !comp->reserved,
	      "fuzz: completion status %d detail %u", comp->status, comp->detail);
}

static void t_fuzz(double seconds)
{
	enum { NDEV = 3 };
	int devs[NDEV], others[8], nothers = 0;
	struct dbuf bufs[2];
	int nbufs = 0;
	uint64_t ops = 0, submitted = 0, completions = 0;
	pthread_t th;
	double end = now() + seconds;
	int mark = failures;
	uint8_t arg[1024] __attribute__((aligned(8)));

	for (int i = 0; i < POOL; i++) {
		pool[i] = mmap(NULL, POOL_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (pool[i] == MAP_FAILED)
			return;
	}
	toggled = mmap(NULL, POOL_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < NDEV; i++)
		devs[i] = open(OFFLOAD_DMA_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	for (int i = 0; i < 2; i++)
		if (!access("/dev/udmabuf", F_OK) && dbuf_new(&bufs[nbufs], 4 * MiB))
			others[nothers++] = bufs[nbufs++].fd;
	others[nothers++] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	others[nothers++] = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < NDEV; i++)
		others[nothers++] = devs[i];
	fuzz_stop = false;
	fuzz_fill_pool0(others, nothers);
	pthread_create(&th, NULL, toggler, NULL);

	while (now() < end) {
		int d = devs[rnd() % NDEV];
		unsigned long cmd;
		int what = (int)(rnd() % 100);

		ops++;
		if (what < 40) {
			/* A batch of random copies. */
			struct offload_dma_copy c[8];
			struct offload_dma_submit s = { .copies = ptr(c), .count = 1 + rnd() % 8 };

			for (uint32_t i = 0; i < 8; i++)
				fuzz_copy(&c[i], others, nothers);
			if (!(rnd() % 10))
				s.count = (uint32_t)rnd();	/* runs past the array */
			if (!(rnd() % 20))
				s.copies = fuzz_addr();
			if (!(rnd() % 20))
				s.flags = (uint32_t)rnd();
			int r = ioctl(d, OFFLOAD_DMA_IOC_SUBMIT, &s);
			if (r > 0)
				submitted += (uint64_t)r;
		} else if (what < 60) {
			struct offload_dma_completion comp[8];
			size_t n = rnd() % 4 ? sizeof(comp) : rnd() % sizeof(comp);
			void *to = rnd() % 10 ? (void *)comp : (void *)(uintptr_t)fuzz_addr();
			ssize_t r = read(d, to, n);

			if (r > 0 && to == (void *)comp) {
				completions += (uint64_t)r / sizeof(comp[0]);
				for (ssize_t i = 0; i < r / (ssize_t)sizeof(comp[0]); i++)
					fuzz_check_completion(&comp[i]);
			}
		} else if (what < 65) {
			struct pollfd p = { .fd = d, .events = POLLIN | POLLOUT };

			poll(&p, 1, (int)(rnd() % 3));
		} else if (what < 70) {
			struct offload_dma_cancel can = { .user_data = rnd(), .flags = (uint32_t)(rnd() % 3) };

			ioctl(d, OFFLOAD_DMA_IOC_CANCEL, &can);
		} else if (what < 73) {
			struct offload_dma_eventfd ev = { .fd = fuzz_fd(others, nothers),
							  .flags = rnd() % 8 ? 0 : (uint32_t)rnd() };
			ioctl(d, OFFLOAD_DMA_IOC_SET_EVENTFD, &ev);
		} else if (what < 85) {
			/* A valid command with random bytes, or any command. */
			static const unsigned long cmds[] = {
				OFFLOAD_DMA_IOC_VERSION, OFFLOAD_DMA_IOC_INFO, OFFLOAD_DMA_IOC_CHAN_INFO,
				OFFLOAD_DMA_IOC_SUBMIT,	 OFFLOAD_DMA_IOC_CANCEL, OFFLOAD_DMA_IOC_SET_EVENTFD,
			};
			for (size_t i = 0; i < sizeof(arg); i += 8) {
				uint64_t v = rnd() % 3 ? fuzz_addr() : rnd() % 16;

				memcpy(arg + i, &v, 8);
			}
			if (rnd() % 2)
				cmd = cmds[rnd() % 6];
			else
				cmd = _IOC(rnd() % 4, rnd() % 4 ? OFFLOAD_DMA_IOC_MAGIC : rnd() % 256,
					   rnd() % 16, rnd() % 1024);
			/* The copies a random SUBMIT names come from the pool or nowhere. */
			if (cmd == OFFLOAD_DMA_IOC_SUBMIT) {
				struct offload_dma_submit *s = (void *)arg;

				s->copies = ptr(pool[0]) + rnd() % 4096 * 8;
				s->count = (uint32_t)(rnd() % 16);
			}
			ioctl(d, cmd, rnd() % 8 ? (unsigned long)(uintptr_t)arg : (unsigned long)fuzz_addr());
		} else if (what < 87) {
			/* Close a device file with whatever it has in flight. */
			int k = (int)(rnd() % NDEV);

			close(devs[k]);
			devs[k] = open(OFFLOAD_DMA_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
			for (int i = 0; i < NDEV; i++)
				others[nothers - NDEV + i] = devs[i];
		} else if (what < 88) {
			/* A child that submits and exits. */
			pid_t pid = fork();

			if (pid == 0) {
				struct offload_dma_copy c[4];
				struct offload_dma_submit s = { .copies = ptr(c), .count = 4 };
				int cf = open(OFFLOAD_DMA_DEVICE, O_RDWR);

				for (int i = 0; i < 4; i++)
					fuzz_copy(&c[i], others, nothers);
				ioctl(cf, OFFLOAD_DMA_IOC_SUBMIT, &s);
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
		} else if (what < 90) {
			/* A blocking read, ended by a signal if nothing completes. */
			struct offload_dma_completion comp;
			int fl = fcntl(d, F_GETFL);

			fcntl(d, F_SETFL, fl & ~O_NONBLOCK);
			alarm_in(20, false);
			if (read(d, &comp, sizeof(comp)) == sizeof(comp)) {
				completions++;
				fuzz_check_completion(&comp);
			}
			alarm_off();
			fcntl(d, F_SETFL, fl);
		} else if (fake && what < 95) {
			static const char *const knobs[] = { "stall", "delay_us", "fail_every",
							     "prep_fail_every", "abort_on_terminate" };
			/* A stall would block a close for good where it cannot stop. */
			unsigned k = can_stop ? (unsigned)(rnd() % 5) : 1 + (unsigned)(rnd() % 4);
			unsigned long v = k == 1 ? rnd() % 200 : k == 0 || k == 4 ? rnd() % 2 : rnd() % 5;

			fake_set(knobs[k], v);
		} else {
			/* Scribble on the pool: sources change under the engine. */
			memset(pool[1 + rnd() % (POOL - 1)] + rnd() % (POOL_LEN - 4096), (int)rnd(),
			       4096);
			if (!(rnd() % 8))
				fuzz_fill_pool0(others, nothers);
		}
	}
	fuzz_stop = true;
	pthread_join(th, NULL);
	alarm_off();
	fake_reset();
	for (int i = 0; i < NDEV; i++)
		close(devs[i]);
	for (int i = 0; i < nbufs; i++)
		dbuf_free(&bufs[i]);
	for (int i = 0; i < nothers - NDEV - nbufs; i++)
		close(others[nbufs + i]);
	for (int i = 0; i < POOL; i++)
		munmap(pool[i], POOL_LEN);
	munmap(toggled, POOL_LEN);
	CHECK_PINS("after the random loop");
	check_log("random loop");
	OK_SINCE(mark, "ok random loop: %.0f s, %" PRIu64 " operations, %" PRIu64 " copies consumed, %"
		       PRIu64 " completions read; the kernel is clean\n",
		 seconds, ops, submitted, completions);
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	int expect_chans = -1;
	const char *expect_driver = NULL;
	double fuzz = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	verbose = getenv("OFFLOAD_DMA_TEST_VERBOSE") != NULL;
	page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--expect-chans") && i + 1 < argc)
			expect_chans = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--expect-driver") && i + 1 < argc)
			expect_driver = argv[++i];
		else if (!strcmp(argv[i], "--module") && i + 1 < argc)
			module_path = argv[++i];
		else if (!strcmp(argv[i], "--fuzz") && i + 1 < argc)
			fuzz = atof(argv[++i]);
		else if (!strcmp(argv[i], "--bounce"))
			bounce = true;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else {
			fprintf(stderr, "usage: %s [--expect-chans N] [--expect-driver NAME] "
					"[--module PATH.ko] [--fuzz SECONDS] [--bounce] [--quick]\n",
				argv[0]);
			return 2;
		}
	}
	fd = open_dev();
	if (fd < 0) {
		printf("SKIP: %s: %s (is the offload_dma module loaded?)\n", OFFLOAD_DMA_DEVICE,
		       strerror(errno));
		return SKIP;
	}
	if (vmstat("nr_foll_pin_acquired") < 0) {
		printf("SKIP: /proc/vmstat has no nr_foll_pin_acquired: leaked pins cannot be seen\n");
		return SKIP;
	}
	/* Huge pages where the kernel has them (the copies use a few). */
	reserve_hugepages(8);
	check_log("before the tests");
	pins_base = pins();

	t_version();
	t_info(expect_chans);
	t_channels(expect_driver);
	if (fake) {
		fake_reset();
		can_stop = fake_get_bool("terminate");
		if (!can_stop)
			printf("note: the test engine cannot stop a channel (terminate=0)\n");
	}
	t_args();
	check_log("arguments");
	t_copies();
	t_nocpu();
	t_dmabuf();
	check_log("copies");
	t_batch();
	t_limits();
	t_signal();
	t_timeout();
	t_cancel();
	t_engine_errors();
	t_munmap_inflight();
	t_close_inflight();
	check_log("faults");
	t_unload();
	if (fuzz > 0 && fd >= 0) {
		close(fd);
		fd = open_dev();
		t_fuzz(fuzz);
	}
	if (fd >= 0)
		close(fd);
	CHECK_PINS("at the end");
	check_log("at the end");
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
