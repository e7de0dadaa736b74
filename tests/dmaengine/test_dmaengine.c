/* SPDX-License-Identifier: MIT */
/*
 * The dmaengine backend against the /dev/offload_dma stand-in (fakedma.c):
 * module missing or not accessible, ABI mismatch, enumeration, devices tied
 * to their DT node (the J721E's main UDMA served once, through the kernel),
 * copies of 1 B to several MiB at any alignment, the threshold, queues in
 * batches, and the kernel's error statuses.
 *
 * Expected values come from kmod/README.md and the uapi header (the module's
 * rules: the engine's part of a copy, the limits), never from the backend.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <offload/offload.h>

#include "driver/driver.h"
#include "fakedma.h"
#include "testutil.h"

#define FAKE_DRIVER "offload-dma-fake"
#define J721E_MAIN_UDMA "/bus@100000/bus@30000000/dma-controller@31150000"
#define J721E_MCU_UDMA "/bus@100000/bus@28380000/bus@28380000/dma-controller@285c0000"

static offload_ctx *open_none(void)
{
	return test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, "cpu,dmaengine");
}

/* The stand-in's usual configuration: n channels of a test engine without a node. */
static void cfg(struct fake_dma_cfg *c, unsigned n)
{
	fake_dma_cfg_default(c, n, FAKE_DRIVER, "dma-fake.0", "");
}

/* Install c and open a context without a device tree on it. */
static offload_ctx *install_open(const struct fake_dma_cfg *c)
{
	fake_dma_install(c);
	return open_none();
}

static int dev_by_kind(offload_ctx *ctx, const char *kind, struct offload_dev_info *out)
{
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info info;
		ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
		if (strcmp(info.kind, kind) == 0) {
			if (out)
				*out = info;
			return i;
		}
	}
	return -1;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + seed * 7u + (i >> 9));
}

static void teardown(void)
{
	fake_dma_install(NULL);
}

/* ------------------------------------------------------------ presence */

START_TEST(module_missing_is_absence)
{
	fake_dma_install(NULL);
	offload_ctx *ctx = open_none();
	const char *why;
	ck_assert_int_eq(offload_backend_status(ctx, "dmaengine", &why), 0);
	ck_assert_msg(strstr(why, "/dev/offload_dma") && strstr(why, "not loaded") &&
			      strstr(why, "modprobe offload_dma") && strstr(why, "kmod/README.md"),
		      "%s", why);
	ck_assert_int_eq(dev_by_kind(ctx, "dmaengine", NULL), -1);
	/* the CPU still copies */
	char a[64] = "x", b[64];
	ck_assert_int_eq(offload_memcpy(ctx, b, a, sizeof(a)), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(not_accessible_says_udev)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.eacces = true;
	offload_ctx *ctx = install_open(&c);
	const char *why;
	ck_assert_int_eq(offload_backend_status(ctx, "dmaengine", &why), 0);
	ck_assert_msg(strstr(why, "Permission denied") && strstr(why, "udev rule"), "%s", why);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(abi_mismatch_listed_unusable)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.ver.abi_major = 2;
	c.ver.abi_minor = 3;
	offload_ctx *ctx = install_open(&c);
	struct offload_dev_info info;
	int d = dev_by_kind(ctx, "dmaengine", &info);
	ck_assert_int_ge(d, 0);
	ck_assert_str_eq(info.name, "offload_dma");
	ck_assert_uint_eq(info.flags & OFFLOAD_DEVF_USABLE, 0);
	ck_assert_msg(strstr(info.usable_reason, "ABI 2.3") && strstr(info.usable_reason, "1.0"), "%s",
		      info.usable_reason);
	char a[16] = "abc", b[16];
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, b, a, sizeof(a), NULL), -ENODEV, "ABI 2.3");
	/* and never the automatic choice */
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, b, a, sizeof(a), &res), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_uint_eq(fake_dma_submits(), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(no_channels_is_absence)
{
	struct fake_dma_cfg c;
	cfg(&c, 0);
	offload_ctx *ctx = install_open(&c);
	const char *why;
	ck_assert_int_eq(offload_backend_status(ctx, "dmaengine", &why), 0);
	ck_assert_msg(strstr(why, "no memcpy-capable dmaengine channel"), "%s", why);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------ enumeration */

START_TEST(one_device_per_controller)
{
	struct fake_dma_cfg c;
	fake_dma_cfg_default(&c, 3, "bcm2835-dma", "fe007000.dma-controller",
			     "/soc/dma-controller@7e007000");
	/* channel 2 on another controller, without a node */
	snprintf(c.ch[2].device, sizeof(c.ch[2].device), "dma-fake.0");
	snprintf(c.ch[2].driver, sizeof(c.ch[2].driver), FAKE_DRIVER);
	c.ch[2].of_path[0] = '\0';
	offload_ctx *ctx = install_open(&c);
	int a = offload_dev_find(ctx, "fe007000.dma-controller"), b = offload_dev_find(ctx, "dma-fake.0");
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	struct offload_dev_info ia, ib;
	ck_assert_int_eq(offload_dev_get_info(ctx, a, &ia, sizeof(ia)), 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, b, &ib, sizeof(ib)), 0);
	ck_assert_str_eq(ia.kind, "dmaengine");
	ck_assert_str_eq(ia.backend, "dmaengine");
	ck_assert_str_eq(ia.dt_path, "/soc/dma-controller@7e007000");
	ck_assert_str_eq(ib.dt_path, "");
	ck_assert_msg(strstr(ia.usable_reason, "through the kernel's bcm2835-dma") &&
			      strstr(ia.usable_reason, "dma0chan0,dma0chan1"),
		      "%s", ia.usable_reason);
	ck_assert_msg(strstr(ib.usable_reason, "dma0chan2") &&
			      strstr(ib.usable_reason, "no device-tree node"),
		      "%s", ib.usable_reason);
	ck_assert_uint_ne(ia.flags & OFFLOAD_DEVF_KERNEL, 0);
	ck_assert_uint_ne(ia.caps & OFFLOAD_CAP_MEMCPY, 0);
	ck_assert_str_eq(ia.transfer_mode, "dmaengine");
	/* the context's file, and one per device */
	ck_assert_uint_eq(fake_dma_open_files(), 3);
	offload_ctx_free(ctx);
	ck_assert_uint_eq(fake_dma_open_files(), 0);
}
END_TEST

static const char *shared_dtb(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");
	if (!dir || !*dir)
		return NULL;
	snprintf(buf, len, "%s/%s", dir, name);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

START_TEST(k3_udma_served_once_through_the_kernel)
{
	char path[512];
	const char *dtb = shared_dtb("k3-j721e-evm.dtb", path, sizeof(path));
	if (!dtb) {
		fprintf(stderr, "SKIP (part): no OFFLOAD_TEST_SHARED_DTB/k3-j721e-evm.dtb\n");
		return;
	}
	struct fake_dma_cfg c;
	fake_dma_cfg_default(&c, 2, "k3-udma", "31150000.dma-controller", J721E_MAIN_UDMA);
	fake_dma_install(&c);
	/*
	 * With the models attached the direct udma backend could bind the main
	 * UDMA too (it does for the MCU one): the module's channel must win.
	 */
	uint32_t flags = TEST_SIM_PROVIDER ? OFFLOAD_CTX_SIM : 0;
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, dtb, flags, "cpu,dmaengine,udma");
	int main_udma = -1, n_main = 0, mcu = -1;
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info info;
		ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
		if (strcmp(info.dt_path, J721E_MAIN_UDMA) == 0)
			main_udma = i, n_main++;
		if (strcmp(info.dt_path, J721E_MCU_UDMA) == 0)
			mcu = i;
	}
	ck_assert_int_eq(n_main, 1);
	ck_assert_int_ge(mcu, 0);
	struct offload_dev_info m, u;
	ck_assert_int_eq(offload_dev_get_info(ctx, main_udma, &m, sizeof(m)), 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, mcu, &u, sizeof(u)), 0);
	ck_assert_str_eq(m.kind, "k3-udma");
	ck_assert_str_eq(m.backend, "dmaengine");
	ck_assert_msg(strstr(m.usable_reason, "through the kernel's k3-udma") &&
			      strstr(m.usable_reason, "kernel owns"), "%s", m.usable_reason);
	ck_assert_str_eq(m.transfer_mode, "dmaengine");
	ck_assert_uint_eq(m.threshold_bytes, OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT);
	/* the MCU UDMA: the module has no channel of it, so not dmaengine's */
	ck_assert_str_ne(u.backend, "dmaengine");
	if (flags) {
		/* without dmaengine the direct backend serves the main UDMA on the models */
		offload_ctx *c2 = test_ctx_open(OFFLOAD_DT_FILE, dtb, flags, "cpu,udma");
		struct offload_dev_info i2;
		ck_assert_int_eq(offload_dev_get_info(c2, main_udma, &i2, sizeof(i2)), 0);
		ck_assert_str_eq(i2.dt_path, J721E_MAIN_UDMA);
		if (!test_udma_refused_on_32bit(c2, main_udma))
			ck_assert_str_eq(i2.backend, "udma");
		offload_ctx_free(c2);
	}
	ck_assert_msg(strstr(u.usable_reason, "dmaengine: the offload_dma module holds no channel of "
					      "this node"), "%s", u.usable_reason);
	/* copies go through the module */
	static uint8_t s[200000], d[200000];
	fill(s, sizeof(s), 3);
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(ctx, main_udma, d, s, sizeof(s), &res), 0);
	ck_assert_str_eq(res.backend, "dmaengine");
	ck_assert_str_eq(res.driver, "k3-udma");
	ck_assert_int_eq(memcmp(d, s, sizeof(s)), 0);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------ copies */

START_TEST(memcpy_sizes_and_alignments)
{
	static const size_t sizes[] = { 1, 2, 3, 63, 64, 65, 4095, 4096, 4097, 65537, (1u << 20) + 3,
					(3u << 20) + 5 };
	static const size_t offs[] = { 0, 1, 3, 4, 63, 4093 };
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.ch[0].copy_align = 4;
	offload_ctx *ctx = install_open(&c);
	int d = offload_dev_find(ctx, "dma-fake.0");
	ck_assert_int_ge(d, 0);
	size_t cap = (4u << 20) + 8192;
	uint8_t *src = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *dst = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(src, MAP_FAILED);
	ck_assert_ptr_ne(dst, MAP_FAILED);
	for (size_t si = 0; si < (sizeof(sizes) / sizeof(sizes[0])); si++)
		for (size_t oi = 0; oi < (sizeof(offs) / sizeof(offs[0])); oi++) {
			size_t len = sizes[si], so = offs[oi], dof = offs[(oi + 1) % (sizeof(offs) / sizeof(offs[0]))];
			fill(src, cap, (unsigned)(si * 7 + oi));
			memset(dst, 0xA5, cap);
			struct offload_result res;
			int r = offload_memcpy_dev(ctx, d, dst + dof, src + so, len, &res);
			ck_assert_msg(r == 0, "len %zu: %d %s", len, r, offload_last_error(ctx));
			ck_assert_str_eq(res.backend, "dmaengine");
			ck_assert_str_eq(res.driver, FAKE_DRIVER);
			ck_assert_uint_ne(res.flags & OFFLOAD_RES_KERNEL, 0);
			ck_assert_msg(memcmp(dst + dof, src + so, len) == 0, "len %zu src+%zu dst+%zu", len,
				      so, dof);
			/* guard bytes around dst untouched */
			if (dof)
				ck_assert_uint_eq(dst[dof - 1], 0xA5);
			ck_assert_uint_eq(dst[dof + len], 0xA5);
		}
	munmap(src, cap);
	munmap(dst, cap);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * The module's split (kmod/README.md "What the engine takes"): on a
 * non-coherent channel the engine's part of dst runs between the first and
 * the last max(copy_align, cache_align) boundary; the CPU copies the rest.
 * dst = page + 3, len 1000, copy_align 4, cache_align 64: the engine takes
 * [64, 960) of the page, 896 B, the CPU 104 B.
 */
START_TEST(engine_and_cpu_bytes_counted)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.ch[0].copy_align = 4;
	offload_ctx *ctx = install_open(&c);
	int d = offload_dev_find(ctx, "dma-fake.0");
	uint8_t *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	fill(p + 4096, 4096, 1);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, p + 3, p + 4096 + 3, 1000, NULL), 0);
	struct offload_dev_stats st;
	ck_assert_int_eq(offload_dev_get_stats(ctx, d, &st, sizeof(st)), 0);
	ck_assert_uint_eq(st.bytes, 896);
	ck_assert_uint_eq(st.cpu_bytes, 104);
	ck_assert_uint_eq(st.jobs, 1);
	munmap(p, 8192);
	offload_ctx_free(ctx);
}
END_TEST

/* Longer than max_copy_bytes: pieces of that size, in one SUBMIT. */
START_TEST(long_copy_one_batch)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.info.max_copy_bytes = 1u << 20;
	offload_ctx *ctx = install_open(&c);
	int d = offload_dev_find(ctx, "dma-fake.0");
	size_t len = (3u << 20) + (1u << 19);
	uint8_t *s = malloc(len), *t = malloc(len);
	fill(s, len, 9);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, t, s, len, NULL), 0);
	ck_assert_int_eq(memcmp(s, t, len), 0);
	ck_assert_uint_eq(fake_dma_copies(), 4); /* ceil(3.5 MiB / 1 MiB) */
	ck_assert_uint_eq(fake_dma_submits(), 1);
	ck_assert_uint_eq(fake_dma_pinned(), 0);
	free(s);
	free(t);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(threshold_default_and_auto)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	offload_ctx *ctx = install_open(&c);
	struct offload_dev_info info;
	int d = dev_by_kind(ctx, "dmaengine", &info);
	ck_assert_int_ge(d, 0);
	ck_assert_uint_eq(info.threshold_bytes, 65536); /* include/offload/memcpy.h: 64 KiB */
	ck_assert_msg(strstr(info.threshold_reason, "not measured"), "%s", info.threshold_reason);
	static uint8_t s[65536], t[65536];
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, 65535, &res), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, 65536, &res), 0);
	ck_assert_str_eq(res.backend, "dmaengine");
	ck_assert_int_eq(res.dev, d);
	ck_assert_uint_eq(fake_dma_copies(), 1);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(threshold_from_measurement_file)
{
	char path[] = "/tmp/test_dmaengine_conf_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char text[] = "# offloadctl bench memcpy --ab cpu,dmaengine\n* 999\n" FAKE_DRIVER " 4096\n";
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	struct fake_dma_cfg c;
	cfg(&c, 1);
	fake_dma_install(&c);
	setenv("OFFLOAD_DMAENGINE_CONF", path, 1);
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.backends = "cpu,dmaengine";
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	struct offload_dev_info info;
	ck_assert_int_ge(dev_by_kind(ctx, "dmaengine", &info), 0);
	ck_assert_uint_eq(info.threshold_bytes, 4096);
	ck_assert_msg(strstr(info.threshold_reason, path), "%s", info.threshold_reason);
	offload_ctx_free(ctx);
	/* the environment variable wins */
	setenv("OFFLOAD_DMAENGINE_THRESHOLD", "12345", 1);
	ctx = offload_ctx_new();
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	ck_assert_int_ge(dev_by_kind(ctx, "dmaengine", &info), 0);
	ck_assert_uint_eq(info.threshold_bytes, 12345);
	offload_ctx_free(ctx);
	/* a malformed value is refused at open, naming the variable */
	setenv("OFFLOAD_DMAENGINE_THRESHOLD", "64k", 1);
	ctx = offload_ctx_new();
	ck_assert_err(ctx, offload_ctx_open(ctx, &o), -EINVAL, "OFFLOAD_DMAENGINE_THRESHOLD");
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_DMAENGINE_THRESHOLD");
	unsetenv("OFFLOAD_DMAENGINE_CONF");
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------ errors */

static offload_ctx *open_failing(int32_t status, uint32_t detail, bool half, int *dev)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.fail_status = status;
	c.fail_detail = detail;
	c.fail_half = half;
	c.info.default_timeout_ms = 20;
	c.stall = status == -ETIMEDOUT;
	if (c.stall)
		c.fail_status = 0;
	offload_ctx *ctx = install_open(&c);
	*dev = offload_dev_find(ctx, "dma-fake.0");
	ck_assert_int_ge(*dev, 0);
	return ctx;
}

START_TEST(engine_error_is_eio_never_redone)
{
	int d;
	offload_ctx *ctx = open_failing(-EIO, OFFLOAD_DMA_WHY_ENGINE, true, &d);
	static uint8_t s[1 << 20], t[1 << 20];
	fill(s, sizeof(s), 5);
	memset(t, 0, sizeof(t));
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -EIO, "engine error");
	ck_assert_msg(strstr(offload_last_error(ctx), "dst is not complete"), "%s",
		      offload_last_error(ctx));
	/* automatic: the engine half-wrote it, so the CPU does not silently redo it */
	struct offload_result res;
	memset(&res, 0, sizeof(res));
	ck_assert_err(ctx, offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, sizeof(s), &res), -EIO,
		      "engine error");
	ck_assert_uint_eq(t[sizeof(t) - 1], 0);
	ck_assert_uint_eq(fake_dma_pinned(), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(no_descriptor_before_any_byte_falls_back)
{
	int d;
	offload_ctx *ctx = open_failing(-ENOMEM, OFFLOAD_DMA_WHY_PREP, false, &d);
	static uint8_t s[1 << 18], t[1 << 18];
	fill(s, sizeof(s), 6);
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -ENOMEM,
		      "gave no descriptor");
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, sizeof(s), &res), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_uint_eq(res.flags & (OFFLOAD_RES_FALLBACK | OFFLOAD_RES_CPU),
			  OFFLOAD_RES_FALLBACK | OFFLOAD_RES_CPU);
	ck_assert_int_eq(memcmp(s, t, sizeof(s)), 0);
	offload_ctx_free(ctx);
}
END_TEST

/* The driver ran out of descriptors after the engine wrote some of dst: an error, not a fallback. */
START_TEST(no_descriptor_after_bytes_is_not_redone)
{
	int d;
	offload_ctx *ctx = open_failing(-ENOMEM, OFFLOAD_DMA_WHY_PREP, true, &d);
	static uint8_t s[1 << 18], t[1 << 18];
	fill(s, sizeof(s), 6);
	memset(t, 0, sizeof(t));
	struct offload_result res;
	memset(&res, 0, sizeof(res));
	ck_assert_err(ctx, offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, sizeof(s), &res), -EIO,
		      "gave no descriptor");
	ck_assert_uint_eq(t[sizeof(t) - 1], 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(timeout_is_etimedout)
{
	int d;
	offload_ctx *ctx = open_failing(-ETIMEDOUT, 0, false, &d);
	static uint8_t s[8192], t[8192];
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -ETIMEDOUT,
		      "did not finish within the timeout");
	ck_assert_uint_eq(fake_dma_pinned(), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(unmapped_memory_is_efault)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	offload_ctx *ctx = install_open(&c);
	int d = offload_dev_find(ctx, "dma-fake.0");
	uint8_t *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(mprotect(p + 4096, 4096, PROT_NONE), 0);
	ck_assert_int_eq(mprotect(p + 8192, 4096, PROT_READ), 0);
	static uint8_t buf[8192];
	/* source crossing into a PROT_NONE page */
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, buf, p + 4000, 200, NULL), -EFAULT, "not mapped");
	/* destination read-only */
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, p + 8192, buf, 100, NULL), -EFAULT, "read-only");
	ck_assert_uint_eq(fake_dma_pinned(), 0);
	munmap(p, 3 * 4096);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------ queues */

START_TEST(queue_batches_and_statuses)
{
	struct fake_dma_cfg c;
	cfg(&c, 2);
	c.info.max_inflight = 16;
	offload_ctx *ctx = install_open(&c);
	int d = offload_dev_find(ctx, "dma-fake.0");
	struct offload_queue_opts o;
	offload_queue_opts_init(&o);
	o.depth = 64;
	o.dev = d;
	offload_queue *q;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	enum { N = 40 };
	static uint8_t src[N][5000], dst[N][5000];
	uint8_t *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(bad, MAP_FAILED);
	for (int i = 0; i < N; i++) {
		fill(src[i], sizeof(src[i]), (unsigned)i);
		memset(dst[i], 0, sizeof(dst[i]));
		const void *s = i == 17 ? (const void *)bad : (const void *)(src[i] + (i % 5));
		ck_assert_int_ge(offload_queue_copy(q, dst[i] + (i % 3), s, 1 + (size_t)i * 97, 1000 + (uint64_t)i), 0);
	}
	unsigned before = fake_dma_submits();
	ck_assert_int_eq(offload_queue_submit(q), N);
	/* one SUBMIT took the first max_inflight (16); the rest wait for completions to be read */
	ck_assert_uint_eq(fake_dma_submits() - before, 1);
	int got = 0, seen[N] = { 0 };
	while (got < N) {
		struct offload_completion cpl[8];
		int n = offload_queue_wait(q, cpl, 8, 1000000);
		ck_assert_msg(n > 0, "wait: %d %s", n, offload_last_error(ctx));
		for (int k = 0; k < n; k++) {
			int i = (int)(cpl[k].user_data - 1000);
			ck_assert_int_ge(i, 0);
			ck_assert_int_lt(i, N);
			ck_assert_int_eq(seen[i]++, 0);
			/* the queue's order: completions come in submission order */
			ck_assert_int_eq(i, got + k);
			if (i == 17) {
				ck_assert_int_eq(cpl[k].status, -EFAULT);
			} else {
				ck_assert_int_eq(cpl[k].status, 0);
				ck_assert_int_eq(memcmp(dst[i] + (i % 3), src[i] + (i % 5), 1 + (size_t)i * 97), 0);
			}
			ck_assert_int_eq(cpl[k].dev, d);
			ck_assert_uint_ne(cpl[k].flags & OFFLOAD_RES_KERNEL, 0);
		}
		got += n;
	}
	ck_assert_uint_eq(fake_dma_copies(), N);
	ck_assert_int_eq(offload_queue_close(q), 0);
	ck_assert_uint_eq(fake_dma_open_files(), 2);
	munmap(bad, 4096);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * The module takes no copy although none of ours is in flight (SUBMIT's
 * EAGAIN for the first copy: the pins of all files are taken): the queue
 * says -EBUSY instead of waiting for a completion that cannot come, and a
 * synchronous copy the library placed runs on the CPU, saying so.
 */
START_TEST(module_full_is_ebusy)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.info.max_pinned_bytes = 8192; /* max_copy_bytes stays larger: as when other files hold the pins */
	offload_ctx *ctx = install_open(&c);
	int d = offload_dev_find(ctx, "dma-fake.0");
	static uint8_t s[65536], t[65536];
	fill(s, sizeof(s), 4);
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -EBUSY, "limits");
	struct offload_result res;
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, sizeof(s), &res), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_uint_ne(res.flags & OFFLOAD_RES_FALLBACK, 0);
	ck_assert_int_eq(memcmp(s, t, sizeof(s)), 0);
	struct offload_queue_opts o;
	offload_queue_opts_init(&o);
	o.depth = 4;
	o.dev = d;
	offload_queue *q;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	ck_assert_int_ge(offload_queue_copy(q, t, s, sizeof(s), 1), 0);
	ck_assert_err(ctx, offload_queue_submit(q), -EBUSY, "could not start 1 job(s)");
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(queue_timeout_status)
{
	int d;
	offload_ctx *ctx = open_failing(-ETIMEDOUT, 0, false, &d);
	struct offload_queue_opts o;
	offload_queue_opts_init(&o);
	o.depth = 4;
	o.dev = d;
	offload_queue *q;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	static uint8_t s[4096], t[4096];
	ck_assert_int_ge(offload_queue_copy(q, t, s, sizeof(s), 7), 0);
	ck_assert_int_eq(offload_queue_submit(q), 1);
	struct offload_completion cpl;
	ck_assert_int_eq(offload_queue_wait(q, &cpl, 1, -1), 1);
	ck_assert_int_eq(cpl.status, -ETIMEDOUT);
	ck_assert_uint_eq(cpl.user_data, 7);
	ck_assert_int_eq(offload_queue_close(q), 0);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------ a lying module (breakdma) */

/* The stand-in with 1 MiB copies, and a failure knob set by the caller. */
static offload_ctx *open_lying(struct fake_dma_cfg *c, int *dev)
{
	offload_ctx *ctx = install_open(c);
	*dev = offload_dev_find(ctx, "dma-fake.0");
	ck_assert_int_ge(*dev, 0);
	return ctx;
}

/* breakdma F1: submitted > count must not overrun the call's arrays (it crashed). */
START_TEST(submitted_above_count_is_eio)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.info.max_copy_bytes = 1u << 20;
	c.lie_extra = 40;
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	size_t len = 2u << 20;
	uint8_t *s = calloc(1, len), *t = calloc(1, len);
	/* 2 MiB in 1 MiB copies: 2 given, the module says 2 + 40 */
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, len, NULL), -EIO,
		      "consumed 42 of 2 copies");
	free(s);
	free(t);
	offload_ctx_free(ctx);
}
END_TEST

/* breakdma F5: a SUBMIT that consumes nothing without an error (it spun for ever). */
START_TEST(submit_consuming_nothing_is_eio)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.submit_zero = true;
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	static uint8_t s[1 << 16], t[1 << 16];
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -EIO,
		      "consumed 0 of 1 copies");
	offload_ctx_free(ctx);
}
END_TEST

/*
 * breakdma F4: 4 copies of 1 MiB, the 2nd and 3rd fail with -ENOMEM before any byte, the
 * completions come in reverse order. 2 MiB were written (copies 1 and 4): -EIO, never the
 * CPU's fallback; the lowest failed offset is 1 MiB.
 */
START_TEST(enomem_after_other_pieces_wrote_is_eio)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.info.max_copy_bytes = 1u << 20;
	c.fail_status = -ENOMEM;
	c.fail_detail = OFFLOAD_DMA_WHY_PREP;
	c.fail_mask = 0x6;
	c.reverse = true;
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	size_t len = 4u << 20;
	uint8_t *s = calloc(1, len), *t = calloc(1, len);
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, len, NULL), -EIO,
		      "at offset 1048576");
	ck_assert_msg(strstr(offload_last_error(ctx), "2097152 B were written in total"), "%s",
		      offload_last_error(ctx));
	struct offload_result res;
	memset(&res, 0, sizeof(res));
	ck_assert_err(ctx, offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, t, s, len, &res), -EIO,
		      "gave no descriptor");
	free(s);
	free(t);
	offload_ctx_free(ctx);
}
END_TEST

/* A completion for a copy never submitted is not taken for one of the call's. */
START_TEST(stray_completion_is_eio)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.stray = true;
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	static uint8_t s[1 << 16], t[1 << 16];
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -EIO,
		      "a completion for no copy in flight (user_data 18446744073709551615)");
	offload_ctx_free(ctx);
}
END_TEST

static offload_queue *open_q(offload_ctx *ctx, int d, unsigned depth)
{
	struct offload_queue_opts o;
	offload_queue_opts_init(&o);
	o.depth = depth;
	o.dev = d;
	offload_queue *q;
	ck_assert_int_eq(offload_queue_open(ctx, &o, &q), 0);
	return q;
}

/* The queue: the same lies give -EIO, the queue is unusable, close still works. */
START_TEST(queue_lies_are_eio)
{
	static uint8_t s[1 << 16], t[1 << 16];
	struct offload_completion cpl;
	for (int k = 0; k < 3; k++) {
		struct fake_dma_cfg c;
		cfg(&c, 1);
		c.lie_extra = k == 0 ? 40 : 0;
		c.submit_zero = k == 1;
		c.stray = k == 2;
		int d;
		offload_ctx *ctx = open_lying(&c, &d);
		offload_queue *q = open_q(ctx, d, 4);
		ck_assert_int_ge(offload_queue_copy(q, t, s, sizeof(s), 1), 0);
		/* the lie shows at submit or at the first wait (the core words the message) */
		int r = offload_queue_submit(q);
		if (r >= 0)
			r = offload_queue_wait(q, &cpl, 1, 0);
		ck_assert_msg(r == -EIO, "case %d: %d %s", k, r, offload_last_error(ctx));
		offload_queue_close(q);
		offload_ctx_free(ctx);
	}
}
END_TEST

/* breakdma F3: a queue job longer than max_copy_bytes goes in pieces and completes once. */
START_TEST(queue_job_longer_than_max_copy_is_split)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.info.max_pinned_bytes = 1u << 20;
	c.info.max_copy_bytes = (1u << 19) - 8192; /* ofd_max_copy(): half the pins, less 2 pages */
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	offload_queue *q = open_q(ctx, d, 4);
	size_t len = 1u << 20;
	uint8_t *s = malloc(len), *t = calloc(1, len);
	fill(s, len, 3);
	ck_assert_int_ge(offload_queue_copy(q, t, s, len, 77), 0);
	ck_assert_int_eq(offload_queue_submit(q), 1);
	struct offload_completion cpl;
	ck_assert_int_eq(offload_queue_wait(q, &cpl, 1, -1), 1);
	ck_assert_uint_eq(cpl.user_data, 77);
	ck_assert_int_eq(cpl.status, 0);
	ck_assert_int_eq(memcmp(s, t, len), 0);
	/* ceil(1048576 / 516096) = 3 copies, at most 1 MiB pinned at once: more than one SUBMIT */
	ck_assert_uint_eq(fake_dma_copies(), 3);
	ck_assert_int_eq(offload_queue_close(q), 0);
	ck_assert_uint_eq(fake_dma_pinned(), 0);
	free(s);
	free(t);
	offload_ctx_free(ctx);
}
END_TEST

/* breakdma F2: signals during the wait do not restart its timeout (it waited for ever). */
START_TEST(queue_wait_timeout_survives_signals)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.stall = true;
	c.poll_eintr = true;
	c.info.default_timeout_ms = 600000;
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	offload_queue *q = open_q(ctx, d, 4);
	static uint8_t s[4096], t[4096];
	ck_assert_int_ge(offload_queue_copy(q, t, s, sizeof(s), 5), 0);
	ck_assert_int_eq(offload_queue_submit(q), 1);
	struct offload_completion cpl;
	ck_assert_int_eq(offload_queue_wait(q, &cpl, 1, 50000), -ETIMEDOUT);
	/* huge timeouts do not overflow into "no wait" (the copy is still stalled) */
	ck_assert_int_eq(offload_queue_wait(q, &cpl, 1, 0), -ETIMEDOUT);
	offload_queue_close(q);
	offload_ctx_free(ctx);
}
END_TEST

/* Close cancels what is in flight (OFFLOAD_DMA_IOC_CANCEL): it waited the copy's 600 s timeout. */
START_TEST(queue_close_cancels_in_flight)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.stall = true;
	c.info.default_timeout_ms = 600000;
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	offload_queue *q = open_q(ctx, d, 4);
	static uint8_t s[4096], t[4096];
	ck_assert_int_ge(offload_queue_copy(q, t, s, sizeof(s), 5), 0);
	ck_assert_int_ge(offload_queue_copy(q, t + 0, s, 100, 6), 0);
	ck_assert_int_eq(offload_queue_submit(q), 2);
	ck_assert_err(ctx, offload_queue_close(q), -ETIMEDOUT, "2 started job(s)");
	ck_assert_uint_eq(fake_dma_pinned(), 0);
	offload_ctx_free(ctx);
}
END_TEST

/* breakdma F8: a garbage channel count is refused with a reason (it was an empty one). */
START_TEST(garbage_channel_count_has_a_reason)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	c.info.nr_channels = 0xffffffffu;
	offload_ctx *ctx = install_open(&c);
	const char *why;
	ck_assert_int_eq(offload_backend_status(ctx, "dmaengine", &why), 0);
	ck_assert_msg(strstr(why, "4294967295 channels"), "%s", why);
	offload_ctx_free(ctx);
}
END_TEST

/* A device root too long for the path is refused, never cut into another path. */
START_TEST(long_dev_root_is_refused)
{
	char root[400];
	memset(root, 'd', sizeof(root) - 1);
	root[0] = '/';
	root[sizeof(root) - 1] = '\0';
	struct fake_dma_cfg c;
	cfg(&c, 1);
	fake_dma_install(&c);
	setenv("OFFLOAD_DEV_ROOT", root, 1);
	offload_ctx *ctx = open_none();
	const char *why;
	ck_assert_int_eq(offload_backend_status(ctx, "dmaengine", &why), 0);
	ck_assert_msg(strstr(why, "OFFLOAD_DEV_ROOT") && strstr(why, "399 characters long"), "%s", why);
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_DEV_ROOT");
}
END_TEST

/* The threshold for the stand-in's driver from a file holding `text`. */
static uint64_t threshold_from(const char *path, const char *text, char *reason, size_t rl)
{
	if (text) {
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(text, f);
		fclose(f);
	}
	struct fake_dma_cfg c;
	cfg(&c, 1);
	fake_dma_install(&c);
	setenv("OFFLOAD_DMAENGINE_CONF", path, 1);
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.backends = "cpu,dmaengine";
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	struct offload_dev_info info;
	ck_assert_int_ge(dev_by_kind(ctx, "dmaengine", &info), 0);
	snprintf(reason, rl, "%s", info.threshold_reason);
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_DMAENGINE_CONF");
	return info.threshold_bytes;
}

/* breakdma F6/F7: the file's values follow OFFLOAD_DMAENGINE_THRESHOLD's rules; no hang. */
START_TEST(threshold_file_hardened)
{
	char path[] = "/tmp/test_dmaengine_thr_XXXXXX", why[512];
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	static const char *const bad[] = { "-5", "12abc", "0x100", "99999999999999999999999",
					   "1099511627777", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), FAKE_DRIVER " %s\n* 7777\n", bad[i]);
		ck_assert_msg(threshold_from(path, text, why, sizeof(why)) == 7777, "%s: %s", bad[i], why);
		ck_assert_msg(strstr(why, "line 1 ignored, malformed"), "%s: %s", bad[i], why);
	}
	/* a 300-character comment ending in the driver's line is one line, skipped whole */
	char text[512];
	memset(text, 'x', 300);
	text[0] = '#';
	snprintf(text + 300, sizeof(text) - 300, " " FAKE_DRIVER " 1\n* 7777\n");
	ck_assert_msg(threshold_from(path, text, why, sizeof(why)) == 7777, "%s", why);
	unlink(path);
	/* a FIFO without a writer and /dev/zero: the default, at once */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_msg(threshold_from(path, NULL, why, sizeof(why)) == OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT,
		      "%s", why);
	ck_assert_msg(strstr(why, "not a regular file"), "%s", why);
	unlink(path);
	ck_assert_msg(threshold_from("/dev/zero", NULL, why, sizeof(why)) ==
			      OFFLOAD_DMAENGINE_THRESHOLD_DEFAULT, "%s", why);
}
END_TEST

/* dmaguest: the stand-in refuses PFN-mapped user memory as pin_user_pages does. */
START_TEST(pfn_mapped_user_memory_is_efault)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	static uint8_t s[1 << 16], t[1 << 16];
	fake_dma_mark_pfn(t, sizeof(t));
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, t, s, sizeof(s), NULL), -EFAULT, "not mapped");
	offload_ctx_free(ctx);
}
END_TEST

/*
 * dmaguest: the context's own dma-buf memory (udmabuf maps PFNs, so a pin fails with
 * EFAULT) goes by fd and offset through the module's dma-buf path; what that path cannot
 * take (no CPU part: a user dst off the cache line) is -EBUSY, and AUTO runs it on the CPU.
 * A memfd stands in for the dma-buf, registered as offload_buf_alloc() registers one.
 */
START_TEST(dmabuf_memory_goes_by_fd)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	size_t blen = 1u << 20, n = 1u << 18;
	int mfd = memfd_create("fake-dmabuf", MFD_CLOEXEC);
	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(ftruncate(mfd, (off_t)blen), 0);
	uint8_t *m = mmap(NULL, blen, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	struct ofl_dmabuf_range r = { .cpu = m, .len = blen, .fd = mfd };
	ofl_ctx_dmabuf_add(ctx, &r);
	fake_dma_mark_pfn(m, blen);
	uint8_t *u = aligned_alloc(4096, n), *v = aligned_alloc(4096, n);
	fill(u, n, 11);
	memset(v, 0, n);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, m + 4096, u, n, NULL), 0);
	ck_assert_int_eq(memcmp(m + 4096, u, n), 0);
	ck_assert_int_eq(offload_memcpy_dev(ctx, d, v, m + 4096, n, NULL), 0);
	ck_assert_int_eq(memcmp(v, u, n), 0);
	ck_assert_uint_eq(fake_dma_copies(), 2);
	/* the destination starts off a cache line of the non-coherent device */
	ck_assert_err(ctx, offload_memcpy_dev(ctx, d, v + 1, m, 100000, NULL), -EBUSY,
		      "does not start and end on a cache line");
	struct offload_result res;
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, v + 1, m + 8, 100000, &res), 0);
	ck_assert_int_eq(memcmp(v + 1, m + 8, 100000), 0);
	ck_assert_str_eq(res.backend, "cpu");
	ck_assert_uint_eq(res.flags & OFFLOAD_RES_FALLBACK, OFFLOAD_RES_FALLBACK);
	ck_assert_uint_eq(fake_dma_copies(), 2);
	ofl_ctx_dmabuf_del(ctx, &r);
	munmap(m, blen);
	close(mfd);
	free(u);
	free(v);
	offload_ctx_free(ctx);
}
END_TEST

/* The queue: a job into the context's dma-buf goes by fd; one the fd path cannot take runs on the CPU. */
START_TEST(queue_dmabuf_memory_goes_by_fd)
{
	struct fake_dma_cfg c;
	cfg(&c, 1);
	int d;
	offload_ctx *ctx = open_lying(&c, &d);
	size_t blen = 1u << 20, n = 1u << 18;
	int mfd = memfd_create("fake-dmabuf", MFD_CLOEXEC);
	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(ftruncate(mfd, (off_t)blen), 0);
	uint8_t *m = mmap(NULL, blen, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	struct ofl_dmabuf_range r = { .cpu = m, .len = blen, .fd = mfd };
	ofl_ctx_dmabuf_add(ctx, &r);
	fake_dma_mark_pfn(m, blen);
	uint8_t *u = aligned_alloc(4096, n), *v = aligned_alloc(4096, n), *w = aligned_alloc(4096, n);
	fill(u, n, 12);
	memset(v, 0, n);
	offload_queue *q = open_q(ctx, d, 4);
	ck_assert_int_ge(offload_queue_copy(q, m, u, n, 1), 0);
	ck_assert_int_ge(offload_queue_copy(q, v + 1, u + 8, 100000, 2), 0); /* plain memory */
	ck_assert_int_ge(offload_queue_copy(q, w + 1, m + 8, 100000, 3), 0); /* dst off a line */
	ck_assert_int_eq(offload_queue_submit(q), 3);
	struct offload_completion cpl[3];
	int got = 0;
	while (got < 3) {
		int k = offload_queue_wait(q, cpl + got, 3 - got, -1);
		ck_assert_int_gt(k, 0);
		got += k;
	}
	ck_assert_uint_eq(cpl[0].user_data, 1);
	ck_assert_int_eq(cpl[0].status, 0);
	ck_assert_uint_eq(cpl[0].flags & OFFLOAD_RES_KERNEL, OFFLOAD_RES_KERNEL);
	ck_assert_int_eq(cpl[1].status, 0);
	ck_assert_uint_eq(cpl[2].user_data, 3);
	ck_assert_int_eq(cpl[2].status, 0);
	ck_assert_uint_eq(cpl[2].flags, OFFLOAD_RES_CPU | OFFLOAD_RES_FALLBACK);
	ck_assert_int_eq(memcmp(v + 1, u + 8, 100000), 0);
	ck_assert_int_eq(memcmp(w + 1, m + 8, 100000), 0);
	ck_assert_uint_eq(fake_dma_copies(), 2); /* jobs 1 and 2 */
	ck_assert_int_eq(offload_queue_close(q), 0);
	ofl_ctx_dmabuf_del(ctx, &r);
	munmap(m, blen);
	close(mfd);
	free(u);
	free(v);
	free(w);
	offload_ctx_free(ctx);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dmaengine");
	TCase *t = tcase_create("stand-in");
	tcase_add_checked_fixture(t, NULL, teardown);
	tcase_add_test(t, module_missing_is_absence);
	tcase_add_test(t, not_accessible_says_udev);
	tcase_add_test(t, abi_mismatch_listed_unusable);
	tcase_add_test(t, no_channels_is_absence);
	tcase_add_test(t, one_device_per_controller);
	tcase_add_test(t, k3_udma_served_once_through_the_kernel);
	tcase_add_test(t, memcpy_sizes_and_alignments);
	tcase_add_test(t, engine_and_cpu_bytes_counted);
	tcase_add_test(t, long_copy_one_batch);
	tcase_add_test(t, threshold_default_and_auto);
	tcase_add_test(t, threshold_from_measurement_file);
	tcase_add_test(t, engine_error_is_eio_never_redone);
	tcase_add_test(t, no_descriptor_before_any_byte_falls_back);
	tcase_add_test(t, no_descriptor_after_bytes_is_not_redone);
	tcase_add_test(t, timeout_is_etimedout);
	tcase_add_test(t, unmapped_memory_is_efault);
	tcase_add_test(t, queue_batches_and_statuses);
	tcase_add_test(t, module_full_is_ebusy);
	tcase_add_test(t, queue_timeout_status);
	tcase_add_test(t, submitted_above_count_is_eio);
	tcase_add_test(t, submit_consuming_nothing_is_eio);
	tcase_add_test(t, enomem_after_other_pieces_wrote_is_eio);
	tcase_add_test(t, stray_completion_is_eio);
	tcase_add_test(t, queue_lies_are_eio);
	tcase_add_test(t, queue_job_longer_than_max_copy_is_split);
	tcase_add_test(t, queue_wait_timeout_survives_signals);
	tcase_add_test(t, queue_close_cancels_in_flight);
	tcase_add_test(t, garbage_channel_count_has_a_reason);
	tcase_add_test(t, long_dev_root_is_refused);
	tcase_add_test(t, threshold_file_hardened);
	tcase_add_test(t, pfn_mapped_user_memory_is_efault);
	tcase_add_test(t, dmabuf_memory_goes_by_fd);
	tcase_add_test(t, queue_dmabuf_memory_goes_by_fd);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return test_run(suite());
}
