/* SPDX-License-Identifier: MIT */
/*
 * CPU memcpy: small copies inline on the calling thread, large ones split
 * across the copy pool (pool.c); the asynchronous queue runs small batches
 * inline at submit and hands big ones to a pool worker, in enqueue order.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "util/env.h"
#include "pool.h"

/*
 * Copies of at least this many bytes are split across the pool. Measured
 * with `offloadctl bench memcpy --sweep` on a 2-core x86-64 (bench/README.md):
 * below it the worker's wake-up and the cache traffic between the cores cost
 * more than the second core gains.
 */
#define OFL_CPU_SPLIT_MIN ((size_t)4 << 20)

struct cpu_state {
	size_t split_min;          /* copies from this size go to the pool */
	struct ofl_pool pool;
	char describe[OFL_REASON_LEN];
};

/* CPUs this process may run on (its affinity mask), at least 1. */
static unsigned usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1u;
}

/* The cache sizes serve only the x86 streaming-store threshold (nt_threshold). */
#if defined(__x86_64__)
/* A sysfs cache attribute of cpu0's cache `index` as text, "" if absent. */
static void cache_attr(int index, const char *name, char *buf, size_t len)
{
	char path[96];

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* CPUs in a cpulist ("0-1", "0,2-3"); 0 if malformed. */
static unsigned cpulist_count(const char *s)
{
	unsigned n = 0;

	while (*s) {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;
		if (e == s)
			return 0;
		if (*e == '-') {
			s = e + 1;
			b = strtoul(s, &e, 10);
			if (e == s || b < a)
				return 0;
		}
		n += (unsigned)(b - a + 1);
		s = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return 0;
	}
	return n;
}

/*
 * The last-level cache of cpu0 as the kernel describes it in sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index*: level, type, size,
 * shared_cpu_list; Linux drivers/base/cacheinfo.c, which reads CPUID on x86
 * and the device tree's cache nodes on Arm): its size in bytes and how many
 * CPUs share it. 0 when sysfs says nothing. Not sysconf(_SC_LEVEL3_CACHE_SIZE):
 * glibc computes that from CPUID itself, and on a KVM guest of this project
 * it said 320 MiB where sysfs and lscpu say 32 MiB (issue #19).
 */
static struct {
	pthread_once_t once;
	size_t size;
	unsigned sharing;
	int level;
} llc = { .once = PTHREAD_ONCE_INIT, .sharing = 1 };

/* Read once per process: the caches do not change, and a context open should not reread 17 files. */
static void llc_read(void)
{
	for (int i = 0; i < 16; i++) {
		char lv[16], type[32], size[32], shared[256];
		cache_attr(i, "level", lv, sizeof(lv));
		if (!lv[0])
			break;
		cache_attr(i, "type", type, sizeof(type));
		cache_attr(i, "size", size, sizeof(size));
		cache_attr(i, "shared_cpu_list", shared, sizeof(shared));
		char *e;
		unsigned long v = strtoul(size, &e, 10);
		int l = atoi(lv);
		if (e == size || strcmp(type, "Instruction") == 0 || l < llc.level)
			continue;
		size_t bytes = *e == 'K' ? (size_t)v << 10 : *e == 'M' ? (size_t)v << 20 : (size_t)v;
		unsigned n = cpulist_count(shared);
		llc.size = bytes;
		llc.level = l;
		llc.sharing = n ? n : 1;
	}
}

static size_t llc_size(unsigned *sharing, int *level)
{
	pthread_once(&llc.once, llc_read);
	*sharing = llc.sharing;
	*level = llc.level;
	return llc.size;
}
#endif /* __x86_64__ */

/*
 * From which total size a split copy uses non-temporal stores: 3/4 of a
 * thread's share of the last-level cache, the rule glibc's x86 memcpy
 * applies to its own non-temporal threshold (sysdeps/x86/dl-cacheinfo.h),
 * here with the cache size from sysfs. A split's chunks are far below any
 * such threshold and would go through the caches; from this size the copy's
 * source and destination no longer fit beside each other in a thread's
 * share, and streaming stores write the destination without first reading
 * it in (measured: bench/README.md). Where the caches' description misleads
 * (a guest that shows the host's whole L3 as its own, bench/README.md),
 * whoever runs the machine sets it with OFFLOAD_CPU_NT_THRESHOLD, as
 * glibc.cpu.x86_non_temporal_threshold sets glibc's; *fixed then says
 * so, and the pool probes no destination. Never on other architectures, or
 * when sysfs has no cache sizes. `why` says where the figure came from;
 * *llc_out receives the last-level cache's size when sysfs gave it, else 0.
 */
static size_t nt_threshold(unsigned ncpu, bool *fixed, size_t *llc_out, char *why, size_t why_len)
{
	*fixed = false;
	*llc_out = 0;
#if defined(__x86_64__)
	uint64_t v;
	char bad[OFL_REASON_LEN];
	/* offload_ctx_open() refused a malformed value before (src/util/env.c) */
	if (ofl_env_uint("OFFLOAD_CPU_NT_THRESHOLD", &v, bad, sizeof(bad)) == 1) {
		snprintf(why, why_len, "OFFLOAD_CPU_NT_THRESHOLD");
		*fixed = true;
		return (size_t)v;
	}
	unsigned sharing;
	int level;
	size_t llc_bytes = llc_size(&sharing, &level);

	if (llc_bytes > 0 && level >= 2) {
		unsigned per = OFL_MIN(sharing, ncpu ? ncpu : 1u);
		snprintf(why, why_len, "3/4 of the %zu MiB L%d (sysfs) over the %u CPU(s) sharing it",
			 llc_bytes >> 20, level, per);
		*llc_out = llc_bytes;
		return llc_bytes / per * 3 / 4;
	}
	snprintf(why, why_len, "sysfs gives no cache sizes");
#else
	OFL_UNUSED(ncpu);
	snprintf(why, why_len, "not on this architecture");
#endif
	return SIZE_MAX;
}

static void human(char *buf, size_t len, size_t bytes)
{
	if (bytes == SIZE_MAX)
		snprintf(buf, len, "never");
	else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%zu KiB", bytes >> 10);
	else
		snprintf(buf, len, "%zu B", bytes);
}

int ofl_cpu_init(struct offload_ctx *ctx, void **state, char *why, size_t why_len)
{
	struct cpu_state *s = calloc(1, sizeof(*s));
	unsigned threads = usable_cpus();

	if (!s) {
		ofl_strlcpy(why, "out of memory", why_len);
		return -ENOMEM;
	}
	/* A process-wide tuning knob, like GLIBC_TUNABLES: OFFLOAD_CTX_NO_ENV does not hide it. */
	/* offload_ctx_open() refused a malformed value before (src/util/env.c) */
	uint64_t v;
	char bad[OFL_REASON_LEN];
	bool from_env = ofl_env_uint("OFFLOAD_CPU_THREADS", &v, bad, sizeof(bad)) == 1;
	if (from_env)
		threads = (unsigned)v;
	char nt_why[96];
	bool nt_fixed;
	size_t llc_bytes;
	size_t nt_min = nt_threshold(threads, &nt_fixed, &llc_bytes, nt_why, sizeof(nt_why));
	/*
	 * Below nt_min, split copies stream into a destination found out of the
	 * caches; so do split copies from nt_min up to the whole last-level
	 * cache, which otherwise stream always (pool.c, choose_nt()).
	 */
	bool probe = !nt_fixed && nt_min > OFL_CPU_SPLIT_MIN && ofl_pool_probe_usable();
	int r = ofl_pool_init(&s->pool, threads, OFL_CPU_SPLIT_MIN,
			      probe ? OFL_CPU_SPLIT_MIN : SIZE_MAX, nt_min);
	if (r < 0) {
		free(s);
		snprintf(why, why_len, "cannot set up the copy pool: %s", ofl_strerror(r));
		return r;
	}
	if (probe && llc_bytes > nt_min)
		s->pool.split_probe_max = llc_bytes;
	s->split_min = s->pool.split_min;
	if (s->pool.nthreads) {
		char split[24], nt[24], pmax[24], probed[112] = "";
		human(split, sizeof(split), s->split_min);
		human(nt, sizeof(nt), s->pool.nt_min);
		if (probe) { /* split_probe_max is set only with the probe */
			int k = snprintf(probed, sizeof(probed), " and into a destination not in the caches "
					 "(load times probed)");
			if (s->pool.split_probe_max) {
				human(pmax, sizeof(pmax), s->pool.split_probe_max);
				snprintf(probed + k, sizeof(probed) - (size_t)k,
					 ", which a split copy below %.11s also needs", pmax);
			}
		}
		snprintf(s->describe, sizeof(s->describe),
			 "calling thread below %.11s; from %.11s split over %u threads%s when a "
			 "worker's CPU is free, non-temporal from %.11s (%.90s)%s; split size "
			 "measured: bench/README.md",
			 split, split, threads, from_env ? " (OFFLOAD_CPU_THREADS)" : "", nt, nt_why, probed);
	} else {
		snprintf(s->describe, sizeof(s->describe), "memcpy on the calling thread: %s",
			 from_env ? "OFFLOAD_CPU_THREADS=1 allows no copy pool"
				     : "only 1 CPU usable, so no copy pool");
	}
	*state = s;
	OFL_UNUSED(ctx);
	return 0;
}

void ofl_cpu_fini(struct offload_ctx *ctx, void *state)
{
	struct cpu_state *s = state;

	ofl_pool_fini(&s->pool);
	free(s);
	OFL_UNUSED(ctx);
}

const char *ofl_cpu_memcpy_describe(const void *state)
{
	return ((const struct cpu_state *)state)->describe;
}

/* The fast path of every small offload_memcpy(): one compare, then memcpy. */
static int cpu_copy(struct ofl_device *dev, void *dst, const void *src, size_t len,
		    struct offload_result *res)
{
	struct cpu_state *s = dev->bstate;

	if (OFL_LIKELY(len < s->split_min))
		memcpy(dst, src, len);
	else
		ofl_pool_copy(&s->pool, dst, src, len);
	ofl_result_set(res, dev, "cpu-memcpy", OFFLOAD_RES_CPU);
	return 0;
}

/* Copies below the split size are cpu_copy()'s plain memcpy(): the core may run them itself. */
static size_t cpu_inline_below(const struct ofl_device *dev)
{
	return ((const struct cpu_state *)dev->bstate)->split_min;
}

static int cpu_queue_open(struct ofl_device *dev, struct offload_queue *q)
{
	struct cpu_state *s = dev->bstate;
	struct ofl_cpu_queue *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return -ENOMEM;
	int r = ofl_pool_queue_open(&s->pool, q, cq);
	if (r < 0) {
		free(cq);
		return r;
	}
	q->bq = cq;
	return 0;
}

static void cpu_queue_close(struct offload_queue *q)
{
	ofl_pool_queue_close(q->bq);
	free(q->bq);
	q->bq = NULL;
}

static int cpu_queue_submit(struct offload_queue *q)
{
	struct ofl_cpu_queue *cq = q->bq;
	struct cpu_state *s = q->dev->bstate;

	/* A batch worth splitting is worth handing to a worker: the owner goes on. */
	ofl_pool_queue_submit(cq, s->split_min);
	return 0;
}

static int cpu_queue_progress(struct offload_queue *q, int64_t timeout_us)
{
	return ofl_pool_queue_progress(q->bq, timeout_us);
}

const struct ofl_memcpy_ops ofl_cpu_memcpy_ops = {
	.copy = cpu_copy,
	.inline_below = cpu_inline_below,
	.queue_open = cpu_queue_open,
	.queue_close = cpu_queue_close,
	.queue_submit = cpu_queue_submit,
	.queue_progress = cpu_queue_progress,
};
