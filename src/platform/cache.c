/* SPDX-License-Identifier: MIT */
/*
 * Data-cache maintenance from user space, per architecture.
 *
 * arm64: DC CVAC (clean to the point of coherency) and DC CIVAC (clean and
 * invalidate) by virtual address, stepping by the smallest data-cache line
 * CTR_EL0.DminLine reports, then one DSB for the whole batch (Arm ARM; Linux
 * arch/arm64/mm/cache.S dcache_clean_poc / dcache_clean_inval_poc). Linux
 * sets SCTLR_EL1.UCI so EL0 may issue both; DC IVAC (invalidate only) is
 * EL1-only, so "invalidate" here is clean+invalidate: correct as long as the
 * CPU has not written the lines since it cleaned them (PEERS.md §D3).
 * x86: CLFLUSHOPT when CPUID.(7,0):EBX[23] says so, else CLFLUSH; both
 * write back and invalidate; one SFENCE/MFENCE after the batch (Intel SDM).
 * Elsewhere user space has no cache maintenance: ofl_cache_ops_available()
 * is false and the DMA memory providers use the kernel's sync instead.
 */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "util/util.h"
#include "platform/platform.h"

static size_t cached_line;
#if defined(__x86_64__) || defined(__i386__)
static int have_clflushopt = -1;
#endif

size_t ofl_cache_line(void)
{
	size_t l = __atomic_load_n(&cached_line, __ATOMIC_RELAXED);

	if (l)
		return l;
#if defined(__aarch64__)
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	l = (size_t)4 << ((ctr >> 16) & 0xF);
#elif defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid(1, &a, &b, &c, &d) && ((b >> 8) & 0xFF))
		l = ((b >> 8) & 0xFF) * 8u;
#endif
	if (!l) {
		long s = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
		l = (s >= 16 && s <= 1024 && !(s & (s - 1))) ? (size_t)s : 64;
	}
	__atomic_store_n(&cached_line, l, __ATOMIC_RELAXED);
	return l;
}

size_t ofl_platform_cache_line(const struct ofl_platform *p)
{
	if (p && p->world)
		return p->sim->cache_line(p->world);
	return ofl_cache_line();
}

bool ofl_cache_ops_available(void)
{
#if defined(__aarch64__) || defined(__x86_64__) || defined(__i386__)
	return true;
#else
	return false;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
static bool x86_clflushopt(void)
{
	int h = __atomic_load_n(&have_clflushopt, __ATOMIC_RELAXED);

	if (h < 0) {
		unsigned a, b = 0, c, d;
		h = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23));
		__atomic_store_n(&have_clflushopt, h, __ATOMIC_RELAXED);
	}
	return h;
}

static void x86_flush(const void *p, size_t len)
{
	size_t line = ofl_cache_line();
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line - 1), end = (uintptr_t)p + len;

	if (x86_clflushopt()) {
		for (; a < end; a += line) /* CLFLUSHOPT m8 = 66 0F AE /7 */
			__asm__ volatile(".byte 0x66; clflush %0" : "+m"(*(volatile char *)a));
		__asm__ volatile("sfence" ::: "memory");
	} else {
		for (; a < end; a += line)
			__asm__ volatile("clflush %0" : "+m"(*(volatile char *)a));
		__asm__ volatile("mfence" ::: "memory");
	}
}
#endif

#if defined(__aarch64__)
/* One DC op per line over [p, p + len), then one DSB for the batch. */
#define ARM64_DC_RANGE(op, p, len)                                                             \
	do {                                                                                  \
		size_t line_ = ofl_cache_line();                                              \
		uintptr_t a_ = (uintptr_t)(p) & ~(uintptr_t)(line_ - 1), e_ = (uintptr_t)(p) + (len); \
		for (; a_ < e_; a_ += line_)                                                  \
			__asm__ volatile("dc " op ", %0" ::"r"(a_) : "memory");             \
		__asm__ volatile("dsb sy" ::: "memory");                                      \
	} while (0)
#endif

void ofl_cache_clean(const void *p, size_t len)
{
	if (!len)
		return;
#if defined(__aarch64__)
	ARM64_DC_RANGE("cvac", p, len);
#elif defined(__x86_64__) || defined(__i386__)
	x86_flush(p, len);
#else
	OFL_UNUSED(p);
#endif
}

void ofl_cache_clean_inval(const void *p, size_t len)
{
	if (!len)
		return;
#if defined(__aarch64__)
	ARM64_DC_RANGE("civac", p, len);
#elif defined(__x86_64__) || defined(__i386__)
	x86_flush(p, len); /* CLFLUSH(OPT) always writes back and invalidates */
#else
	OFL_UNUSED(p);
#endif
}
