/* SPDX-License-Identifier: MIT */
/*
 * src/platform against stand-in sysfs, /dev and /proc trees built in a
 * temporary directory: UIO discovery and mapping (uio-howto: maps/mapN/
 * {addr,size,offset}, mmap offset N * page size), /dev/mem windows,
 * u-dma-buf (class attributes phys_addr/size, /dev/<name>), the pagemap
 * entry format (Documentation/admin-guide/mm/pagemap.rst: bit 63 present,
 * bits 0-54 PFN), VFIO-platform discovery, and the errors when nothing is
 * there. The real kernel paths run under qemu (issue #10).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* the hardware accessors' bounds check, whatever the build type (see platform.h) */
#define OFFLOAD_MMIO_CHECK 1
#include <signal.h>

#include <libfdt.h>

#include "core/internal.h"
#include "platform/platform.h"
#include "testutil.h"

static char root[256];
static long page;

/*
 * The offset the library last handed the C library's mmap (the test links
 * with --wrap=mmap,--wrap=mmap64; with _FILE_OFFSET_BITS=64 the library
 * calls mmap64, with a 32-bit off_t mmap).
 */
static uint64_t last_mmap_off;
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off);

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	last_mmap_off = (uint64_t)off;
	return __real_mmap(addr, len, prot, flags, fd, off);
}

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	last_mmap_off = (uint64_t)off;
	return __real_mmap64(addr, len, prot, flags, fd, off);
}

static void mkdirs(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *c = p + strlen(root) + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(p, 0755);
			*c = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *rel, const char *target)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

/*
 * A regular file of `size` bytes (sparse) with a 32-bit marker at `at`:
 * stand-ins of /dev/mem reach past 4 GiB, so the test makes them with the
 * 64-bit file interface whatever off_t is in this build.
 */
static void blob(const char *rel, uint64_t size, uint64_t at, uint32_t marker)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_LARGEFILE, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate64(fd, (off64_t)size), 0);
	ck_assert_int_eq(pwrite64(fd, &marker, 4, (off64_t)at), 4);
	close(fd);
}

static void setup(void)
{
	char sys[300], dev[300], mem[300], pm[300];

	page = sysconf(_SC_PAGESIZE);
	snprintf(root, sizeof(root), "/tmp/offload-platform-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkdirs("sys/class");
	mkdirs("dev");
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(mem, sizeof(mem), "%s/dev/mem", root);
	snprintf(pm, sizeof(pm), "%s/pagemap", root);
	ofl_platform_set_roots(sys, dev, mem, pm);
}

static void teardown(void)
{
	char cmd[400];
	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

#define UDMA_NODE "/bus@100000/bus@30000000/dma-controller@31150000"

static void uio_tree(void)
{
	mkdirs("sys/devices/platform/31150000.dma-controller");
	link_to("sys/devices/platform/31150000.dma-controller/of_node",
		"../../../firmware/devicetree/base" UDMA_NODE);
	mkdirs("sys/class/uio/uio3/maps/map0");
	mkdirs("sys/class/uio/uio3/maps/map1");
	link_to("sys/class/uio/uio3/device", "../../../devices/platform/31150000.dma-controller");
	/* map0: gcfg, not page aligned (offset 0x100 inside its page); map1: tchanrt */
	put("sys/class/uio/uio3/maps/map0/addr", "0x31150000\n");
	put("sys/class/uio/uio3/maps/map0/offset", "0x100\n");
	put("sys/class/uio/uio3/maps/map0/size", "0x100\n");
	put("sys/class/uio/uio3/maps/map1/addr", "0x35000000\n");
	put("sys/class/uio/uio3/maps/map1/offset", "0x0\n");
	put("sys/class/uio/uio3/maps/map1/size", "0x100000\n");
	/* an unrelated UIO device without an of_node */
	mkdirs("sys/class/uio/uio0");
}

START_TEST(uio_find_and_map)
{
	char why[256];
	struct ofl_mmio m;

	uio_tree();
	/* /dev/uio3: map N at file offset N * page; marker in tchan 1's CTL (0x1000) */
	blob("dev/uio3", page + 0x100000, page + 0x1000, 0xC0FFEE01u);
	ck_assert_int_eq(ofl_uio_find(UDMA_NODE, why, sizeof(why)), 3);
	ck_assert_int_eq(ofl_uio_find("/bus@100000/nothing@0", why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "no /sys/class/uio device is bound to /bus@100000/nothing@0"));
	/* a window inside map1 */
	ck_assert_int_eq(ofl_uio_map(3, 0x35001000, 0x1000, &m, why, sizeof(why)), 0);
	ck_assert_int_eq(m.kind, OFL_MMIO_UIO);
	ck_assert_uint_eq(ofl_mmio_read32(&m, 0), 0xC0FFEE01u);
	ofl_mmio_write32(&m, 4, 0x1234);
	ck_assert_uint_eq(ofl_mmio_read32(&m, 4), 0x1234);
	ofl_mmio_unmap(&m);
	/* map0 starts 0x100 into its page: gcfg's first register is at file offset 0x100 */
	blob("dev/uio3", page + 0x100000, 0x100 + 0x28, 0x0231408Cu);
	ck_assert_int_eq(ofl_uio_map(3, 0x31150000, 0x100, &m, why, sizeof(why)), -ENOENT);
	ck_assert_int_eq(ofl_uio_map(3, 0x31150100, 0x100, &m, why, sizeof(why)), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&m, 0x28), 0x0231408Cu);
	ofl_mmio_unmap(&m);
	/* a range no map covers */
	ck_assert_int_eq(ofl_uio_map(3, 0x36000000, 0x100, &m, why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "no map covering"));
}
END_TEST

START_TEST(no_uio_at_all)
{
	char why[256];

	ck_assert_int_eq(ofl_uio_find(UDMA_NODE, why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "no UIO devices"));
}
END_TEST

START_TEST(devmem_window)
{
	char why[256];
	void *cpu, *map;
	size_t len;
	int fd;

	blob("dev/mem", 0x48600000, 0x485c0100 + 0x28, 0xABCD0123u);
	ck_assert_int_eq(ofl_devmem_map(0x485c0100, 0x100, true, &cpu, &map, &len, &fd, why, sizeof(why)), 0);
	ck_assert_uint_eq(((volatile uint32_t *)cpu)[0x28 / 4], 0xABCD0123u);
	ck_assert_uint_eq((uintptr_t)map % (uintptr_t)page, 0);
	ck_assert_uint_eq((uintptr_t)cpu - (uintptr_t)map, 0x100);
	munmap(map, len);
	close(fd);
	ck_assert_int_eq(ofl_devmem_map(0x1000, 0, true, &cpu, &map, &len, &fd, why, sizeof(why)), -EINVAL);
	unlink(ofl_platform_roots()->devmem);
	ck_assert_int_eq(ofl_devmem_map(0x1000, 4, true, &cpu, &map, &len, &fd, why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "cannot open"));
}
END_TEST

/*
 * A /dev/mem stand-in (any regular file) shorter than the window: mapping it
 * would succeed and the first access past its end raise SIGBUS; it is
 * refused instead, with the file's length (issue #18).
 */
START_TEST(devmem_short_file)
{
	char why[256] = "";
	void *cpu = NULL, *map = NULL;
	size_t len = 0;
	int fd = -1;

	blob("dev/mem", 0x1000, 0, 0);
	int r = ofl_devmem_map(0x800, 0x1000, true, &cpu, &map, &len, &fd, why, sizeof(why));
	if (r == 0) {
		munmap(map, len);
		close(fd);
	}
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_msg(strstr(why, "0x1000 bytes") != NULL, "%s", why);
	/* the window inside it still maps */
	ck_assert_int_eq(ofl_devmem_map(0x800, 0x800, true, &cpu, &map, &len, &fd, why, sizeof(why)), 0);
	munmap(map, len);
	close(fd);
}
END_TEST

/*
 * OFFLOAD_DEVMEM=1 with an EIP97 node whose reg (4 KiB) is smaller than the
 * engine's register file (0x20000, hw/eip97.h): listed unusable with the
 * reason, and no access past the 4 KiB mapping (the probe's error path wrote
 * the DFE/DSE thread registers at 0xf200/0xf600: SIGSEGV, issue #18).
 */
#ifdef OFFLOAD_HAVE_EIP97
START_TEST(devmem_eip97_small_reg)
{
	char dtb[300];
	uint8_t fdt[1024];

	ck_assert_int_eq(fdt_create(fdt, sizeof(fdt)), 0);
	ck_assert_int_eq(fdt_finish_reservemap(fdt), 0);
	ck_assert_int_eq(fdt_begin_node(fdt, ""), 0);
	ck_assert_int_eq(fdt_property_u32(fdt, "#address-cells", 1), 0);
	ck_assert_int_eq(fdt_property_u32(fdt, "#size-cells", 1), 0);
	ck_assert_int_eq(fdt_begin_node(fdt, "crypto@90000"), 0);
	ck_assert_int_eq(fdt_property_string(fdt, "compatible", "inside-secure,safexcel-eip97ies"), 0);
	uint32_t reg[2] = { cpu_to_fdt32(0x90000), cpu_to_fdt32(0x1000) };
	ck_assert_int_eq(fdt_property(fdt, "reg", reg, sizeof(reg)), 0);
	ck_assert_int_eq(fdt_end_node(fdt), 0);
	ck_assert_int_eq(fdt_end_node(fdt), 0);
	ck_assert_int_eq(fdt_finish(fdt), 0);
	snprintf(dtb, sizeof(dtb), "%s/small.dtb", root);
	FILE *f = fopen(dtb, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(fdt, 1, fdt_totalsize(fdt), f), fdt_totalsize(fdt));
	fclose(f);
	blob("dev/mem", 0x100000, 0x90000, 0);

	setenv("OFFLOAD_DEVMEM", "1", 1);
	offload_ctx *c = test_ctx_open(OFFLOAD_DT_FILE, dtb, 0, NULL);
	unsetenv("OFFLOAD_DEVMEM");
	int i = offload_dev_find(c, "crypto@90000");
	ck_assert_int_ge(i, 0);
	struct offload_dev_info d;
	ck_assert_int_eq(offload_dev_get_info(c, i, &d, sizeof(d)), 0);
	ck_assert_msg(strstr(d.usable_reason, "0x1000 bytes") && strstr(d.usable_reason, "0x20000"),
		      "%s", d.usable_reason);
	offload_ctx_free(c);
}
END_TEST
#endif

/*
 * A physical address at and above 4 GiB (K3 and Layerscape SoCs put DDR and
 * engines there) is mapped where it is, not at its low 32 bits: on 32-bit
 * ARM that needs a 64-bit off_t for mmap's offset.
 */
START_TEST(devmem_above_4gib)
{
	char why[256];
	void *cpu, *map;
	size_t len;
	int fd;

	blob("dev/mem", 0x100002000ull, 0x100001000ull + 0x10, 0x5EC0DE64u);
	last_mmap_off = 0;
	ck_assert_int_eq(ofl_devmem_map(0x100001000ull, 0x100, true, &cpu, &map, &len, &fd, why,
					sizeof(why)), 0);
	ck_assert_uint_eq(last_mmap_off, 0x100001000ull);
	if (sizeof(void *) == 4 &&
	    test_emulated("QEMU 7.2's user-mode mmap2 keeps only the low 32 bits of a 32-bit "
			  "program's file offset; the mapped data is checked on the armhf "
			  "guest kernels (tests/qemu)"))
		goto out;
	ck_assert_uint_eq(((volatile uint32_t *)cpu)[0x10 / 4], 0x5EC0DE64u);
out:
	munmap(map, len);
	close(fd);
}
END_TEST

START_TEST(pagemap_entries)
{
	char why[256];
	uint64_t phys = 0;
	static char buf[3 * 65536];
	char *p = (char *)(((uintptr_t)buf + 65535) & ~(uintptr_t)65535) + 100;
	uint64_t idx = (uintptr_t)p / (uintptr_t)page;
	uint64_t e[3] = { (1ull << 63) | 0x12345, (1ull << 63), 0x777 };
	char path[300];

	snprintf(path, sizeof(path), "%s/pagemap", root);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, e, sizeof(e), (off_t)(idx * 8)), (ssize_t)sizeof(e));
	close(fd);
	ck_assert_int_eq(ofl_pagemap_phys(p, &phys, why, sizeof(why)), 0);
	ck_assert_uint_eq(phys, 0x12345ull * (uint64_t)page + ((uintptr_t)p % (uintptr_t)page));
	/* present but PFN hidden: not root */
	ck_assert_int_eq(ofl_pagemap_phys(p + page, &phys, why, sizeof(why)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "CAP_SYS_ADMIN"));
	/* not present */
	ck_assert_int_eq(ofl_pagemap_phys(p + 2 * page, &phys, why, sizeof(why)), -EFAULT);
}
END_TEST

/* ------------------------------------------------------------- DMA memory */

static offload_ctx *ctx;
static struct ofl_device *dev;

static void fake_dev(void)
{
	ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
	dev = calloc(1, sizeof(*dev));
	ck_assert_ptr_nonnull(dev);
	dev->ctx = ctx;
	ofl_strlcpy(dev->name, "standin", sizeof(dev->name));
}

static void fake_dev_free(void)
{
	free(dev);
	offload_ctx_free(ctx);
}

static void udmabuf_tree(const char *name, const char *phys, long size)
{
	char rel[128], v[32];

	snprintf(rel, sizeof(rel), "sys/class/u-dma-buf/%s", name);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/class/u-dma-buf/%s/phys_addr", name);
	put(rel, phys);
	snprintf(rel, sizeof(rel), "sys/class/u-dma-buf/%s/size", name);
	snprintf(v, sizeof(v), "%ld\n", size);
	put(rel, v);
	snprintf(rel, sizeof(rel), "sys/class/u-dma-buf/%s/dma_coherent", name);
	put(rel, "0\n");
	snprintf(rel, sizeof(rel), "dev/%s", name);
	blob(rel, size, 0, 0);
}

/* u-dma-buf's sync attributes (u-dma-buf README, "Sync Interface"), emptied. */
static const char *const sync_attrs[] = { "sync_offset", "sync_size", "sync_direction",
					  "sync_for_cpu", "sync_for_device" };

static void sync_attrs_clear(const char *name)
{
	char rel[160];

	for (size_t i = 0; i < sizeof(sync_attrs) / sizeof(sync_attrs[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/class/u-dma-buf/%s/%s", name, sync_attrs[i]);
		put(rel, "");
	}
}

static void attr_is(const char *name, const char *attr, const char *want)
{
	char p[512], got[32] = "";

	snprintf(p, sizeof(p), "%s/sys/class/u-dma-buf/%s/%s", root, name, attr);
	FILE *f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	ck_assert_msg(strcmp(got, want) == 0, "%s: \"%s\", want \"%s\"", attr, got, want);
}

/*
 * Where user space has no cache maintenance (32-bit ARM), a u-dma-buf sync is
 * the kernel's, asked for through the attributes: offset and size in the
 * buffer, direction 0 (DMA_BIDIRECTIONAL) and a 1 written to the trigger.
 * Elsewhere the CPU does it and the attributes stay untouched.
 */
static void sync_attrs_expect(const char *name, const char *off, const char *size,
			      const char *trigger)
{
	bool kernel = !ofl_cache_ops_available();

	attr_is(name, "sync_offset", kernel ? off : "");
	attr_is(name, "sync_size", kernel ? size : "");
	attr_is(name, "sync_direction", kernel ? "0" : "");
	attr_is(name, trigger, kernel ? "1" : "");
	attr_is(name, strcmp(trigger, "sync_for_cpu") ? "sync_for_cpu" : "sync_for_device", "");
#if defined(__arm__)
	ck_assert(kernel); /* ARMv7-A user space cannot clean or invalidate by address */
#endif
}

static int minus_2g(void *arg, uint64_t phys, uint64_t *bus, char *why, size_t wl)
{
	(void)arg;
	if (phys < 0x80000000ull) {
		snprintf(why, wl, "below the 2 GiB window");
		return -ERANGE;
	}
	*bus = phys - 0x80000000ull;
	return 0;
}

START_TEST(udmabuf_provider)
{
	struct ofl_udmabuf_info info[4];
	struct ofl_dma_pool *pool, *other;
	struct ofl_dma *a, *b, *c;
	char why[256];

	udmabuf_tree("udmabuf0", "0x9f000000\n", 1 << 20);
	ck_assert_int_eq(ofl_udmabuf_scan(info, 4), 1);
	ck_assert_str_eq(info[0].name, "udmabuf0");
	ck_assert_uint_eq(info[0].phys, 0x9f000000u);
	ck_assert_uint_eq(info[0].size, 1 << 20);
	fake_dev();
	/* a non-coherent device behind dma-ranges that subtract 2 GiB */
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_STREAMING, .xlate = minus_2g };
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &pool), 0);
	ck_assert_int_eq(ofl_dma_pool_provider(pool), OFL_DMA_UDMABUF);
	ck_assert_int_eq(ofl_dma_alloc(pool, 100, 64, OFFLOAD_CACHE_STREAMING, true, &a, why, sizeof(why)), 0);
	ck_assert_int_eq(ofl_dma_alloc(pool, 5000, 4096, OFFLOAD_CACHE_STREAMING, true, &b, why, sizeof(why)), 0);
	ck_assert_uint_eq(a->bus, 0x1f000000u);
	ck_assert_uint_eq(a->len, 128);       /* rounded to the cache line */
	ck_assert_uint_eq(b->bus, 0x1f001000u); /* next 4 KiB boundary */
	ck_assert_ptr_eq(ofl_dma_lookup(pool, (char *)b->cpu + 10, 100), b);
	ck_assert_ptr_null(ofl_dma_lookup(pool, (char *)b->cpu + 5000, 200));
	/* the mapping is the device file: what the CPU writes lands there */
	memset(b->cpu, 0x77, 16);
	char p[300];
	uint8_t got = 0;
	snprintf(p, sizeof(p), "%s/dev/udmabuf0", root);
	int fd = open(p, O_RDONLY);
	ck_assert_int_eq(pread(fd, &got, 1, 0x1000), 1);
	close(fd);
	ck_assert_uint_eq(got, 0x77);
	/* streaming: a sync is a cache operation, counted in the device's stats */
	sync_attrs_clear("udmabuf0");
	ofl_dma_sync_for_device(b, 1, 10);
	sync_attrs_expect("udmabuf0", "4097", "10", "sync_for_device");
	sync_attrs_clear("udmabuf0");
	ofl_dma_sync_for_cpu(b, 0, 4096);
	sync_attrs_expect("udmabuf0", "4096", "4096", "sync_for_cpu");
	ck_assert_uint_eq(atomic_load(&dev->stats.cache_clean_calls), 1);
	ck_assert_uint_eq(atomic_load(&dev->stats.cache_inval_calls), 1);
	/* [1, 11) is one line of the CPU's own size (CTR_EL0.DminLine on arm64:
	 * qemu-user's CPU says 32 bytes, Cortex-A53/A72 64), 4096 whole lines */
	ck_assert_uint_eq(atomic_load(&dev->stats.cache_bytes), ofl_cache_line() + 4096);
	/* freed space is reused */
	ofl_dma_free(a);
	ck_assert_int_eq(ofl_dma_alloc(pool, 64, 64, OFFLOAD_CACHE_STREAMING, false, &c, why, sizeof(why)), 0);
	ck_assert_uint_eq(c->bus, 0x1f000000u);
	ofl_dma_free(c); /* not a user allocation: the pool does not track it */
	/* uncached memory would need a second u-dma-buf (opened with O_SYNC): there is none */
	ck_assert_int_eq(ofl_dma_alloc(pool, 64, 64, OFFLOAD_CACHE_UNCACHED, false, &a, why, sizeof(why)), -ENOMEM);
	ck_assert_ptr_nonnull(strstr(why, "u-dma-buf"));
	/* another user of the same buffer is locked out */
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &other), 0);
	ck_assert_int_eq(ofl_dma_alloc(other, 64, 64, OFFLOAD_CACHE_STREAMING, false, &a, why, sizeof(why)), -EBUSY);
	ck_assert_ptr_nonnull(strstr(why, "in use"));
	ofl_dma_pool_destroy(other);
	ofl_dma_pool_destroy(pool);
	fake_dev_free();
}
END_TEST

/*
 * A lookup hint whose allocation another thread freed between the hint's
 * generation check and its range test must not read the freed allocation.
 * The window is made here by hand: the hint gets the generation that a
 * lookup after the free saw. Without the range kept in the hint, ASan (the
 * asan job of .ci/run) reports a heap-use-after-free in the lookup.
 */
START_TEST(lookup_hint_never_reads_a_freed_allocation)
{
	struct ofl_dma_pool *pool;
	struct ofl_dma *a, *b;
	struct ofl_dma_hint ha = { 0 }, hb = { 0 };
	char why[256];

	udmabuf_tree("udmabuf0", "0x9f000000\n", 1 << 20);
	fake_dev();
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_STREAMING, .xlate = minus_2g };
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &pool), 0);
	ck_assert_int_eq(ofl_dma_alloc(pool, 4096, 64, OFFLOAD_CACHE_STREAMING, true, &a, why, sizeof(why)), 0);
	ck_assert_int_eq(ofl_dma_alloc(pool, 4096, 64, OFFLOAD_CACHE_STREAMING, true, &b, why, sizeof(why)), 0);
	char *bcpu = b->cpu;
	ck_assert_ptr_eq(ofl_dma_lookup_hint(pool, (char *)a->cpu + 8, 8, &ha), a);
	ck_assert_ptr_eq(ofl_dma_lookup_hint(pool, (char *)a->cpu + 16, 8, &ha), a); /* from the hint */
	ofl_dma_free(a);
	ck_assert_ptr_eq(ofl_dma_lookup_hint(pool, bcpu, 64, &hb), b);
	ha.gen = hb.gen; /* as if ha's generation had been read before the free */
	ck_assert_ptr_eq(ofl_dma_lookup_hint(pool, bcpu + 64, 64, &ha), b);
	ck_assert_ptr_eq(ofl_dma_lookup_hint(pool, bcpu + 4096, 64, &hb), NULL);
	ofl_dma_free(b);
	ofl_dma_pool_destroy(pool);
	fake_dev_free();
}
END_TEST

/* A device that cannot reach any u-dma-buf is refused when its pool is made (at probe). */
START_TEST(udmabuf_outside_dma_ranges)
{
	struct ofl_dma_pool *pool = NULL;

	udmabuf_tree("udmabuf1", "0x40000000\n", 1 << 16);
	fake_dev();
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_COHERENT, .xlate = minus_2g };
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &pool), -ENODEV);
	ck_assert_ptr_null(pool);
	const char *m = offload_last_error(ctx);
	ck_assert_msg(strstr(m, "cannot reach its DMA memory") &&
		      strstr(m, "[0x40000000, +0x10000) is out of the device's reach: below the 2 GiB"),
		      "%s", m);
	fake_dev_free();
}
END_TEST

/*
 * Reachability is the whole buffer, not its first byte: a buffer straddling
 * the window's start is skipped, a buffer inside it is used.
 */
START_TEST(udmabuf_partly_outside_is_skipped)
{
	struct ofl_dma_pool *pool;
	struct ofl_dma *a, *b;
	char why[300];

	udmabuf_tree("udmabuf2", "0x7fff0000\n", 1 << 17); /* 64 KiB below 2 GiB, 64 KiB above */
	udmabuf_tree("udmabuf3", "0x90000000\n", 1 << 16);
	fake_dev();
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_COHERENT, .xlate = minus_2g };
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &pool), 0);
	ck_assert_int_eq(ofl_dma_alloc(pool, 64, 64, OFFLOAD_CACHE_COHERENT, false, &a, why, sizeof(why)), 0);
	ck_assert_uint_eq(a->bus, 0x10000000u); /* udmabuf3, whatever the scan order */
	/* udmabuf3 is taken whole by this pool; udmabuf2 stays unusable: -ENOMEM, not -ERANGE */
	ck_assert_int_eq(ofl_dma_alloc(pool, 1 << 16, 64, OFFLOAD_CACHE_COHERENT, false, &b, why, sizeof(why)),
			 -ENOMEM);
	ofl_dma_free(a);
	ofl_dma_pool_destroy(pool);
	fake_dev_free();
}
END_TEST

START_TEST(no_dma_memory_says_what_was_tried)
{
	struct ofl_dma_pool *pool = NULL;

	fake_dev();
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_COHERENT, .rmem_addr = 0xa0000000,
				       .rmem_size = 1 << 20 };
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &pool), -ENODEV);
	const char *msg = offload_last_error(ctx);
	ck_assert_ptr_nonnull(strstr(msg, "u-dma-buf: no buffers"));
	ck_assert_ptr_nonnull(strstr(msg, "OFFLOAD_DEVMEM=1"));
	ck_assert_ptr_nonnull(strstr(msg, "dma-heap: no usable heap"));
	fake_dev_free();
}
END_TEST

START_TEST(reserved_memory_through_devmem)
{
	struct ofl_dma_pool *pool;
	struct ofl_dma *a, *b;
	char why[256];

	/* the device's memory-region: 1 MiB at 0xa0000000, reached through (a stand-in of) /dev/mem */
	blob("dev/mem", 0xa0100000, 0xa0000000 + 0x40, 0x5EED5EEDu);
	fake_dev();
	struct ofl_dma_pool_opts o = { .cache = OFFLOAD_CACHE_STREAMING, .rmem_addr = 0xa0000000,
				       .rmem_size = 1 << 20, .rmem_name = "/reserved-memory/dma@a0000000" };
	setenv("OFFLOAD_DEVMEM", "1", 1);
	ck_assert_int_eq(ofl_dma_pool_create(dev, &o, &pool), 0);
	unsetenv("OFFLOAD_DEVMEM");
	ck_assert_int_eq(ofl_dma_pool_provider(pool), OFL_DMA_RMEM);
	ck_assert_int_eq(ofl_dma_alloc(pool, 256, 64, OFFLOAD_CACHE_STREAMING, true, &a, why, sizeof(why)), 0);
	ck_assert_int_eq(ofl_dma_alloc(pool, 256, 64, OFFLOAD_CACHE_UNCACHED, false, &b, why, sizeof(why)), 0);
	ck_assert_uint_eq(a->bus, 0xa0000000u);
	ck_assert_uint_eq(b->bus, 0xa0000100u);
	/* /dev/mem with O_SYNC is an uncached mapping: nothing to maintain */
	ck_assert_int_eq(a->cache, OFFLOAD_CACHE_UNCACHED);
	/* allocations are zeroed */
	ck_assert_uint_eq(((volatile uint32_t *)a->cpu)[0x40 / 4], 0);
	ofl_dma_sync_for_device(a, 0, 256);
	ck_assert_uint_eq(atomic_load(&dev->stats.cache_clean_calls), 0);
	ofl_dma_free(b);
	ofl_dma_pool_destroy(pool);
	fake_dev_free();
}
END_TEST

START_TEST(vfio_discovery)
{
	char name[64], why[256];
	struct ofl_mmio m;

	mkdirs("sys/bus/platform/devices/31150000.dma-controller");
	link_to("sys/bus/platform/devices/31150000.dma-controller/of_node",
		"../../../../firmware/devicetree/base" UDMA_NODE);
	link_to("sys/bus/platform/devices/31150000.dma-controller/driver",
		"../../../../bus/platform/drivers/ti-udma");
	ck_assert_int_eq(ofl_platform_dev_by_of_node(UDMA_NODE, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "31150000.dma-controller");
	ck_assert_int_eq(ofl_platform_dev_by_of_node("/x@0", name, sizeof(name)), -ENOENT);
	/* bound to its kernel driver, not vfio-platform: refused before any ioctl */
	ck_assert_int_eq(ofl_vfio_map(name, 0, 0x31150000, 0x100, &m, why, sizeof(why)), -ENODEV);
	ck_assert_ptr_nonnull(strstr(why, "not bound to vfio-platform"));
}
END_TEST

/* In checked builds an access past a hardware region stops the program before it touches memory. */
static uint32_t regs[16];

START_TEST(hw_access_inside_region)
{
	struct ofl_mmio m = { .base = (volatile uint8_t *)regs, .size = sizeof(regs),
			      .kind = OFL_MMIO_DEVMEM, .fd = -1 };

	ofl_mmio_write32(&m, 60, 0x1234);
	ck_assert_uint_eq(regs[15], 0x1234);
	ck_assert_uint_eq(ofl_mmio_read32(&m, 60), 0x1234);
	ck_assert_uint_eq(ofl_mmio_read64(&m, 56), (uint64_t)0x1234 << 32);
}
END_TEST

START_TEST(hw_access_past_region_aborts)
{
	struct ofl_mmio m = { .base = (volatile uint8_t *)regs, .size = 60,
			      .kind = OFL_MMIO_DEVMEM, .fd = -1 };

	(void)ofl_mmio_read32(&m, 60); /* regs[15] exists, but the region ends before it */
}
END_TEST

/* On hardware user space has no TI-SCI transport: the firmware channel says so (no channel). */
START_TEST(no_firmware_channel_on_hardware)
{
	const struct ofl_platform hw = { 0 };
	struct ofl_fw *fw = (struct ofl_fw *)&hw; /* overwritten with NULL */
	char why[512] = "";

	ck_assert_int_eq(ofl_fw_open(&hw, -1, &fw, why, sizeof(why)), -ENOTSUP);
	ck_assert_ptr_null(fw);
	ck_assert_msg(strstr(why, "no TI-SCI transport") && strstr(why, "ti_sci"), "%s", why);
	ofl_fw_close(NULL);
	ck_assert_int_eq(ofl_fw_xfer(NULL, (uint8_t[8]){ 0 }, 8, 8, why, sizeof(why)), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("platform");
	TCase *t = tcase_create("standin");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, uio_find_and_map);
	tcase_add_test(t, no_uio_at_all);
	tcase_add_test(t, devmem_window);
	tcase_add_test(t, devmem_above_4gib);
	tcase_add_test(t, devmem_short_file);
#ifdef OFFLOAD_HAVE_EIP97
	tcase_add_test(t, devmem_eip97_small_reg);
#endif
	tcase_add_test(t, pagemap_entries);
	tcase_add_test(t, udmabuf_provider);
	tcase_add_test(t, lookup_hint_never_reads_a_freed_allocation);
	tcase_add_test(t, udmabuf_outside_dma_ranges);
	tcase_add_test(t, udmabuf_partly_outside_is_skipped);
	tcase_add_test(t, no_dma_memory_says_what_was_tried);
	tcase_add_test(t, reserved_memory_through_devmem);
	tcase_add_test(t, vfio_discovery);
	tcase_add_test(t, no_firmware_channel_on_hardware);
	TCase *hw = tcase_create("hw-bounds");
	tcase_add_test(hw, hw_access_inside_region);
	tcase_add_test_raise_signal(hw, hw_access_past_region_aborts, SIGABRT);
	suite_add_tcase(s, hw);
	suite_add_tcase(s, t);
	return test_run(s);
}
