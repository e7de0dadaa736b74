/* SPDX-License-Identifier: MIT */
/*
 * What the guest programs of the offload_dma module (guest_offload_dma.c,
 * the module's ioctls; guest_lib_dma.c, the library on it) ask the kernel
 * itself: the page pins it holds, the warnings in its log, and user memory
 * of each kind a copy may come from. Include after guest.h (CHECK).
 */
#ifndef OFFLOAD_TEST_GUEST_KERNEL_H
#define OFFLOAD_TEST_GUEST_KERNEL_H

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/klog.h>

/* ------------------------------------------------------------ the kernel's word */

static inline int64_t vmstat(const char *key)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char k[64];
	long long v;
	int64_t r = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * Pins held now (FOLL_PIN acquisitions minus releases). The counters are
 * per-CPU deltas until folded: a write to /proc/sys/vm/stat_refresh folds
 * them first (mm/vmstat.c, vmstat_refresh()).
 */
static inline int64_t pins(void)
{
	int f = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (f >= 0) {
		if (write(f, "1", 1) != 1)
			CHECK(0, "stat_refresh: %s", strerror(errno));
		close(f);
	}
	return vmstat("nr_foll_pin_acquired") - vmstat("nr_foll_pin_released");
}

static int64_t pins_base;

#define CHECK_PINS(what)                                                                           \
	CHECK(pins() == pins_base, "%s: %" PRId64 " page pin(s) left", (what), pins() - pins_base)

/* Kernel log lines that mean the kernel is not clean. */
static const char *const bad_log[] = {
	"WARNING:", "BUG:", "Oops", "Call trace", "Call Trace", "Unable to handle",
	"general protection", "refcount_t:", "list_add corruption", "list_del corruption",
	"pagealloc:", "Poison overwritten", "Redzone", "Object padding", "INFO: task",
	"rcu: INFO", "kernel BUG", "UBSAN", "DMA-API", "Bad page", "leak",
};

/* Fail for every bad line logged since the last call (then clear the log). */
static inline void check_log(const char *what)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *line, *save;

	if (n <= 0) {
		CHECK(0, "%s: klogctl: %s", what, strerror(errno));
		return;
	}
	buf = calloc(1, (size_t)n + 1);
	if (!buf)
		return;
	n = klogctl(4 /* SYSLOG_ACTION_READ_CLEAR */, buf, n);
	if (n <= 0) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < sizeof(bad_log) / sizeof(bad_log[0]); i++)
			if (strstr(line, bad_log[i])) {
				CHECK(0, "%s: kernel log: %s", what, line);
				break;
			}
	free(buf);
}

/* Huge pages for the copies that use them, where the kernel has them. */
static inline void reserve_hugepages(unsigned n)
{
	char v[16];
	int h = open("/proc/sys/vm/nr_hugepages", O_WRONLY);
	int len = snprintf(v, sizeof(v), "%u", n);

	if (h >= 0) {
		if (write(h, v, (size_t)len) != len)
			printf("note: nr_hugepages: %s\n", strerror(errno));
		close(h);
	}
}

/* ------------------------------------------------------------ memory */

enum mem_kind { MEM_MALLOC, MEM_ANON, MEM_SHARED, MEM_HUGETLB, MEM_THP, MEM_KINDS };
static const char *const mem_name[] = { "malloc", "mmap", "memfd-shared", "hugetlb", "thp" };

struct region {
	enum mem_kind kind;
	uint8_t *base;
	size_t len;
	void *to_free;
	size_t map_len;
};

static inline size_t huge_size(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %zu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

static inline bool region_new(struct region *r, enum mem_kind kind, size_t len)
{
	size_t hs = huge_size();
	void *m;
	int mf;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->len = len;
	switch (kind) {
	case MEM_MALLOC:
		r->to_free = malloc(len);
		r->base = r->to_free;
		return r->base != NULL;
	case MEM_ANON:
		r->map_len = len;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case MEM_SHARED:
		mf = memfd_create("offload_dma", MFD_CLOEXEC);
		if (mf < 0 || ftruncate(mf, (off_t)len) < 0) {
			if (mf >= 0)
				close(mf);
			return false;
		}
		r->map_len = len;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mf, 0);
		close(mf);
		break;
	case MEM_HUGETLB:
		if (!hs)
			return false;
		r->map_len = (len + hs - 1) / hs * hs;
		m = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		break;
	case MEM_THP:
		if (!hs)
			return false;
		/* Aligned to the huge page, so that THP can back it. */
		r->map_len = ((len + hs - 1) / hs + 1) * hs;
		m = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (m != MAP_FAILED) {
			uint8_t *a = (uint8_t *)(((uintptr_t)m + hs - 1) & ~(uintptr_t)(hs - 1));

			madvise(a, len, MADV_HUGEPAGE);
			r->base = a;
			r->to_free = m;
			return true;
		}
		break;
	default:
		return false;
	}
	if (m == MAP_FAILED)
		return false;
	r->base = m;
	r->to_free = m;
	return true;
}

static inline void region_free(struct region *r)
{
	if (r->kind == MEM_MALLOC)
		free(r->to_free);
	else if (r->to_free)
		munmap(r->to_free, r->map_len);
	r->to_free = NULL;
}

#endif
