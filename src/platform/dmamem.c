/* SPDX-License-Identifier: MIT */
/*
 * DMA memory for direct backends: the pool of a device, its regions and
 * allocations, their bus addresses and their cache maintenance. Where the
 * memory comes from is a provider's (dmamem_int.h, one file each):
 * simulated memory for simulated devices; on hardware u-dma-buf, the
 * device's DT reserved-memory through /dev/mem, or a CMA dma-heap, tried in
 * that order (OFFLOAD_DMA_PROVIDER names one). u-dma-buf and
 * reserved-memory regions are shared by many allocations (first-fit arena);
 * simulated and dma-heap memory is one region per allocation.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/dmamem_int.h"
#include "util/env.h"
#include "util/util.h"

const char *ofl_dma_provider_name(enum ofl_dma_provider p)
{
	switch (p) {
	case OFL_DMA_PLAIN: return "plain";
	case OFL_DMA_SIM: return "sim";
	case OFL_DMA_UDMABUF: return "u-dma-buf";
	case OFL_DMA_HEAP: return "dma-heap";
	case OFL_DMA_RMEM: return "reserved-memory";
	}
	return "?";
}

/* ------------------------------------------------------------- arena */

static int arena_init(struct ofl_dma_region *r)
{
	r->free = calloc(1, sizeof(*r->free));
	if (!r->free)
		return -ENOMEM;
	r->free->len = r->size;
	return 0;
}

static int arena_alloc(struct ofl_dma_region *r, size_t len, size_t align, size_t *off)
{
	for (struct arena_blk **pp = &r->free; *pp; pp = &(*pp)->next) {
		struct arena_blk *b = *pp;
		/* align the bus address, which the device sees */
		uint64_t a = (r->bus + b->off + align - 1) & ~(uint64_t)(align - 1);
		size_t pad = (size_t)(a - (r->bus + b->off));
		if (pad > b->len || b->len - pad < len)
			continue;
		*off = b->off + pad;
		size_t tail_off = *off + len, tail_len = b->off + b->len - tail_off;
		if (pad && tail_len) {
			struct arena_blk *t = calloc(1, sizeof(*t));
			if (!t)
				return -ENOMEM;
			t->off = tail_off;
			t->len = tail_len;
			t->next = b->next;
			b->next = t;
			b->len = pad;
		} else if (pad) {
			b->len = pad;
		} else if (tail_len) {
			b->off = tail_off;
			b->len = tail_len;
		} else {
			*pp = b->next;
			free(b);
		}
		r->used += len;
		return 0;
	}
	return -ENOMEM;
}

static void arena_free(struct ofl_dma_region *r, size_t off, size_t len)
{
	struct arena_blk **pp = &r->free, *prev = NULL;

	while (*pp && (*pp)->off < off) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	struct arena_blk *next = *pp;
	r->used -= len;
	if (prev && prev->off + prev->len == off) {
		prev->len += len;
		if (next && prev->off + prev->len == next->off) {
			prev->len += next->len;
			prev->next = next->next;
			free(next);
		}
		return;
	}
	if (next && off + len == next->off) {
		next->off = off;
		next->len += len;
		return;
	}
	struct arena_blk *b = calloc(1, sizeof(*b));
	if (!b)
		return; /* the range leaks until the region is closed; nothing else goes wrong */
	b->off = off;
	b->len = len;
	b->next = next;
	*pp = b;
}

struct ofl_dma_region *ofl_dma_region_of_map(enum ofl_dma_provider kind, enum offload_cache_mode mode,
					     void *map, size_t map_len, void *cpu, size_t size, int fd,
					     uint64_t phys, const char *name, bool whole)
{
	struct ofl_dma_region *r = calloc(1, sizeof(*r));

	if (!r) {
		if (map)
			munmap(map, map_len);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	r->kind = kind;
	r->map_cache = mode;
	r->access = mode == OFFLOAD_CACHE_UNCACHED ? OFL_DMA_ACCESS_WORDS : OFL_DMA_ACCESS_NORMAL;
	r->map = map;
	r->map_len = map_len;
	r->cpu = cpu;
	r->size = size;
	r->fd = fd;
	r->phys = phys;
	r->whole = whole;
	ofl_strlcpy(r->name, name, sizeof(r->name));
	return r;
}

/* ------------------------------------------------------------- pool */

static const struct ofl_dma_provider_ops *ops_of(enum ofl_dma_provider kind)
{
	switch (kind) {
	case OFL_DMA_SIM: return &ofl_dma_sim_ops;
	case OFL_DMA_UDMABUF: return &ofl_dma_udmabuf_ops;
	case OFL_DMA_HEAP: return &ofl_dma_heap_ops;
	case OFL_DMA_RMEM: return &ofl_dma_rmem_ops;
	case OFL_DMA_PLAIN: break;
	}
	return NULL;
}

static void region_close(struct ofl_dma_region *r)
{
	const struct ofl_dma_provider_ops *ops = ops_of(r->kind);

	if (ops && ops->close)
		ops->close(r);
	if (r->map) {
		munmap(r->map, r->map_len);
		if (r->fd >= 0)
			close(r->fd);
	}
	for (struct arena_blk *b = r->free, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(r);
}

int ofl_dma_xlate_range(const struct ofl_dma_pool *pool, uint64_t phys, uint64_t len, uint64_t *bus,
			char *why, size_t wl)
{
	uint64_t b0 = phys, b1 = phys;
	char w[OFL_REASON_LEN] = "";
	int e = 0;

	if (len == 0 || phys + (len - 1) < phys) {
		snprintf(why, wl, "[0x%" PRIx64 ", +0x%" PRIx64 ") wraps the address space", phys, len);
		return -ERANGE;
	}
	if (pool->o.xlate) {
		e = pool->o.xlate(pool->o.xlate_arg, phys, &b0, w, sizeof(w));
		if (e == 0)
			e = pool->o.xlate(pool->o.xlate_arg, phys + (len - 1), &b1, w, sizeof(w));
		if (e == 0 && b1 - b0 != len - 1) {
			snprintf(w, sizeof(w), "its dma-ranges do not map it as one window");
			e = -ERANGE;
		}
	}
	if (e == 0 && ((b0 - phys) & 4095u)) {
		/* allocations are aligned (up to 4 KiB) in CPU addresses; the device must see the same */
		snprintf(w, sizeof(w), "dma-ranges map CPU 0x%" PRIx64 " to bus 0x%" PRIx64 ", an offset "
			 "that is not a multiple of 4 KiB (buffers would be misaligned for the device)", phys, b0);
		e = -ERANGE;
	}
	if (e == 0 && pool->o.bus_limit && b1 > pool->o.bus_limit) {
		snprintf(w, sizeof(w), "it sits at bus addresses up to 0x%" PRIx64 ", beyond %s (up to 0x%" PRIx64 ")",
			 b1, pool->o.bus_limit_why ? pool->o.bus_limit_why : "the device's DMA addressing",
			 pool->o.bus_limit);
		e = -ERANGE;
	}
	if (e < 0) {
		snprintf(why, wl, "memory at [0x%" PRIx64 ", +0x%" PRIx64 ") is out of the device's "
			 "reach: %s", phys, len, w[0] ? w : "not translatable");
		return -ERANGE;
	}
	*bus = b0;
	return 0;
}

/* The device reaches all of region r: r->bus; else -ENOMEM (memory it cannot use). */
static int region_bus(struct ofl_dma_pool *pool, struct ofl_dma_region *r, char *why, size_t wl)
{
	char w[OFL_REASON_LEN];

	if (ofl_dma_xlate_range(pool, r->phys, r->size, &r->bus, w, sizeof(w)) == 0)
		return 0;
	snprintf(why, wl, "%s %s", ofl_dma_provider_name(r->kind), w);
	return -ENOMEM;
}

/* The providers on hardware, in the order they are tried (OFFLOAD_DMA_PROVIDER picks one by name). */
static const struct ofl_dma_provider_ops *const hw_providers[] = {
	&ofl_dma_udmabuf_ops,
	&ofl_dma_rmem_ops,
	&ofl_dma_heap_ops,
};

/* The first provider that serves the pool here; else -ENODEV, `why` what each lacks. */
static int pick_provider(struct ofl_dma_pool *pool, char *why, size_t wl)
{
	const char *want = NULL;
	char bad[OFL_REASON_LEN];

	/* unset or empty: any (a malformed value was refused at offload_ctx_open()) */
	if (ofl_env_word("OFFLOAD_DMA_PROVIDER", &want, bad, sizeof(bad)) != 1)
		want = NULL;

	why[0] = '\0';
	for (size_t i = 0; i < OFL_ARRAY_SIZE(hw_providers); i++) {
		const struct ofl_dma_provider_ops *ops = hw_providers[i];
		char note[OFL_REASON_LEN];
		if (want && strcmp(want, ofl_dma_provider_name(ops->kind)) != 0)
			continue;
		if (ops->select(pool, note, sizeof(note)) == 0) {
			pool->provider = ops->kind;
			pool->ops = ops;
			return 0;
		}
		ofl_reason_append(why, wl, "%s", note);
	}
	return -ENODEV;
}

int ofl_dma_pool_new(const struct ofl_platform *p, const struct ofl_dma_pool_opts *o,
		     struct ofl_dma_pool **out, char *why, size_t wl)
{
	char w[OFL_REASON_LEN];
	struct ofl_dma_pool *pool = calloc(1, sizeof(*pool));

	if (!pool) {
		snprintf(why, wl, "out of memory for a DMA memory pool");
		return -ENOMEM;
	}
	pool->o = *o;
	ofl_strlcpy(pool->name, o->name ? o->name : "the device", sizeof(pool->name));
	pool->o.name = pool->name;
	pool->line = ofl_cache_line();
	pthread_mutex_init(&pool->mu, NULL);
	pthread_rwlock_init(&pool->users_lk, NULL);
	if (p->world) {
		pool->provider = OFL_DMA_SIM;
		pool->ops = &ofl_dma_sim_ops;
		pool->prov = p->sim;
		pool->sim = p->world;
		pool->line = p->sim->cache_line(p->world);
	} else {
		int r = pick_provider(pool, w, sizeof(w));
		if (r < 0) {
			snprintf(why, wl, "no DMA memory for %s: %s", pool->name, w);
			ofl_dma_pool_destroy(pool);
			return r;
		}
		if (o->cache == OFFLOAD_CACHE_STREAMING && !ofl_cache_ops_available() && !pool->ops->maintains) {
			snprintf(why, wl, "%s needs cache maintenance, which user space cannot do on this CPU "
				 "and %s cannot do for it", pool->name, ofl_dma_provider_name(pool->provider));
			ofl_dma_pool_destroy(pool);
			return -ENOTSUP;
		}
	}
	snprintf(pool->desc, sizeof(pool->desc), "%s, %s", ofl_dma_provider_name(pool->provider),
		 o->cache == OFFLOAD_CACHE_COHERENT ? "coherent"
		 : o->cache == OFFLOAD_CACHE_STREAMING ? "streaming" : "uncached");
	/* A device that cannot reach the memory is refused at probe, not at every copy later. */
	int r = pool->ops->reach ? pool->ops->reach(pool, w, sizeof(w)) : 0;
	if (r < 0) {
		snprintf(why, wl, "%s cannot reach its DMA memory: %s", pool->name, w);
		ofl_dma_pool_destroy(pool);
		return r;
	}
	*out = pool;
	return 0;
}

void ofl_dma_pool_destroy(struct ofl_dma_pool *pool)
{
	if (!pool)
		return;
	while (pool->users)
		ofl_dma_free(pool->users);
	for (struct ofl_dma_region *r = pool->regions, *n; r; r = n) {
		n = r->next;
		region_close(r);
	}
	pthread_mutex_destroy(&pool->mu);
	pthread_rwlock_destroy(&pool->users_lk);
	free(pool);
}

enum ofl_dma_provider ofl_dma_pool_provider(const struct ofl_dma_pool *pool)
{
	return pool->provider;
}

enum offload_cache_mode ofl_dma_pool_cache(const struct ofl_dma_pool *pool)
{
	return pool->o.cache;
}

const char *ofl_dma_pool_describe(const struct ofl_dma_pool *pool)
{
	return pool->desc;
}

/* A new region for `len` bytes of mode `mode`, from the pool's provider. pool->mu held. */
static int region_new(struct ofl_dma_pool *pool, size_t len, enum offload_cache_mode mode,
		      struct ofl_dma_region **out, char *why, size_t wl)
{
	struct ofl_dma_region *r = NULL;

	if (!pool->ops) {
		snprintf(why, wl, "plain memory has no bus address");
		return -ENOTSUP;
	}
	int e = pool->ops->region(pool, len, mode, &r, why, wl);
	if (e < 0)
		return e;
	e = region_bus(pool, r, why, wl);
	if (e == 0 && !r->whole)
		e = arena_init(r);
	if (e < 0) {
		region_close(r);
		return e;
	}
	r->next = pool->regions;
	pool->regions = r;
	*out = r;
	return 0;
}

int ofl_dma_alloc(struct ofl_dma_pool *pool, size_t len, size_t align, enum offload_cache_mode cache,
		  bool user, struct ofl_dma **out, char *why, size_t wl)
{
	struct ofl_dma_region *r = NULL;
	size_t off = 0;
	int e = 0;

	why[0] = '\0';
	/* Above SIZE_MAX / 2 the rounding below would wrap to a tiny length. */
	if (len == 0 || len > SIZE_MAX / 2 || (align & (align - 1)) || align > 4096) {
		snprintf(why, wl, "bad length %zu or alignment %zu", len, align);
		return -EINVAL;
	}
	align = OFL_MAX(align, pool->line);
	len = (len + pool->line - 1) & ~(pool->line - 1);
	/* A coherent device needs no uncached memory: its caches are snooped. */
	if (pool->o.cache == OFFLOAD_CACHE_COHERENT)
		cache = OFFLOAD_CACHE_COHERENT;
	struct ofl_dma *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&pool->mu);
	for (r = pool->regions; r; r = r->next)
		if (!r->whole && (r->map_cache == cache || pool->ops->any_mode) &&
		    arena_alloc(r, len, align, &off) == 0)
			break;
	if (!r) {
		e = region_new(pool, len, cache, &r, why, wl);
		if (e == 0 && !r->whole)
			e = arena_alloc(r, len, align, &off);
		if (e < 0 && !why[0])
			snprintf(why, wl, "%s: %zu bytes do not fit", ofl_dma_provider_name(pool->provider), len);
	}
	pthread_mutex_unlock(&pool->mu);
	if (e < 0) {
		free(d);
		return e;
	}
	d->region = r;
	d->pool = pool;
	d->off = off;
	d->len = len;
	d->cpu = r->cpu + off;
	d->bus = r->bus + off;
	d->cache = r->map_cache;
	d->access = r->access;
	if (pool->o.cache == OFFLOAD_CACHE_COHERENT)
		d->cache = OFFLOAD_CACHE_COHERENT;
	if (!r->whole)
		ofl_dma_zero(d, 0, len); /* a whole region comes zeroed */
	if (user) {
		pthread_rwlock_wrlock(&pool->users_lk);
		d->next = pool->users;
		if (d->next)
			d->next->prev = d;
		pool->users = d;
		atomic_fetch_add_explicit(&pool->gen, 1, memory_order_release);
		pthread_rwlock_unlock(&pool->users_lk);
	}
	*out = d;
	return 0;
}

void ofl_dma_free(struct ofl_dma *d)
{
	if (!d)
		return;
	struct ofl_dma_pool *pool = d->pool;
	pthread_rwlock_wrlock(&pool->users_lk);
	if (d->prev || pool->users == d) {
		if (d->prev)
			d->prev->next = d->next;
		else
			pool->users = d->next;
		if (d->next)
			d->next->prev = d->prev;
		atomic_fetch_add_explicit(&pool->gen, 1, memory_order_release);
	}
	pthread_rwlock_unlock(&pool->users_lk);
	pthread_mutex_lock(&pool->mu);
	struct ofl_dma_region *r = d->region;
	if (r->whole) {
		for (struct ofl_dma_region **pp = &pool->regions; *pp; pp = &(*pp)->next)
			if (*pp == r) {
				*pp = r->next;
				break;
			}
		region_close(r);
	} else {
		arena_free(r, d->off, d->len);
	}
	pthread_mutex_unlock(&pool->mu);
	free(d);
}

/* Does [s, s + n) hold all of [p, p + len)? */
static bool range_holds(uintptr_t s, size_t n, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return a >= s && len <= n && a - s <= n - len;
}

static bool holds(const struct ofl_dma *d, const void *p, size_t len)
{
	return range_holds((uintptr_t)d->cpu, d->len, p, len);
}

/* The user allocation that holds [p, p + len), or NULL; users_lk held. */
static struct ofl_dma *find_user(const struct ofl_dma_pool *pool, const void *p, size_t len)
{
	for (struct ofl_dma *d = pool->users; d; d = d->next)
		if (holds(d, p, len))
			return d;
	return NULL;
}

struct ofl_dma *ofl_dma_lookup(struct ofl_dma_pool *pool, const void *p, size_t len)
{
	pthread_rwlock_rdlock(&pool->users_lk);
	struct ofl_dma *d = find_user(pool, p, len);
	pthread_rwlock_unlock(&pool->users_lk);
	return d;
}

struct ofl_dma *ofl_dma_lookup_hint(struct ofl_dma_pool *pool, const void *p, size_t len,
				    struct ofl_dma_hint *h)
{
	uint64_t gen = atomic_load_explicit(&pool->gen, memory_order_acquire);

	if (h->d && h->gen == gen && range_holds(h->cpu, h->len, p, len))
		return h->d;
	/*
	 * The range is read under the lock that ofl_dma_free() takes to unlink
	 * d, so it is d's; gen was read before, so a free since then makes the
	 * hint stale rather than wrong.
	 */
	pthread_rwlock_rdlock(&pool->users_lk);
	struct ofl_dma *d = find_user(pool, p, len);
	if (d)
		*h = (struct ofl_dma_hint){ .d = d, .cpu = (uintptr_t)d->cpu, .len = d->len, .gen = gen };
	pthread_rwlock_unlock(&pool->users_lk);
	return d;
}

/* ------------------------------------------------------------- sync */

static void count(struct ofl_dma *d, bool inval, size_t off, size_t len, uint64_t t0)
{
	struct ofl_dev_counters *c = d->pool->o.stats;
	size_t line = d->pool->line;
	size_t s = off & ~(line - 1), e = (off + len + line - 1) & ~(line - 1);

	if (!c)
		return;
	atomic_fetch_add_explicit(inval ? &c->cache_inval_calls : &c->cache_clean_calls, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&c->cache_bytes, e - s, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->cache_ns, ofl_now_ns() - t0, memory_order_relaxed);
}

void ofl_dma_cpu_sync(struct ofl_dma_region *r, size_t off, size_t len, bool for_cpu)
{
	if (for_cpu)
		ofl_cache_clean_inval(r->cpu + off, len);
	else
		ofl_cache_clean(r->cpu + off, len);
}

void ofl_dma_sync_range(struct ofl_dma *d, size_t off, size_t len, bool for_cpu)
{
	struct ofl_dma_region *r = d->region;
	const struct ofl_dma_provider_ops *ops = ops_of(r->kind);
	uint64_t t0 = ofl_now_ns();
	size_t roff = d->off + off;

	if (ops && ops->sync)
		ops->sync(r, roff, len, for_cpu);
	else
		ofl_dma_cpu_sync(r, roff, len, for_cpu);
	count(d, for_cpu, roff, len, t0);
}

/* ------------------------------------------------------------- CPU access (enum ofl_dma_access) */

uint64_t ofl_dma_sim_access(const struct ofl_dma *d, size_t off, unsigned width, bool write, uint64_t v)
{
	const struct ofl_dma_region *r = d->region;

	return r->prov->mem_access(r->sim, d->off + off, width, write, v);
}

/* One store of `width` (1 or 4) bytes at byte `off` of d, aligned to it. */
static void st(struct ofl_dma *d, size_t off, unsigned width, uint32_t v)
{
	if (d->access == OFL_DMA_ACCESS_SIM)
		ofl_dma_sim_access(d, off, width, true, v);
	else if (width == 4)
		*(volatile uint32_t *)(volatile void *)((uint8_t *)d->cpu + off) = v;
	else
		*((volatile uint8_t *)d->cpu + off) = (uint8_t)v;
}

static uint32_t ld(const struct ofl_dma *d, size_t off, unsigned width)
{
	if (d->access == OFL_DMA_ACCESS_SIM)
		return (uint32_t)ofl_dma_sim_access(d, off, width, false, 0);
	if (width == 4)
		return *(const volatile uint32_t *)(const volatile void *)((const uint8_t *)d->cpu + off);
	return *((const volatile uint8_t *)d->cpu + off);
}

/* [off, off + len) of d: `head` single bytes up to a 4-byte address boundary, then `words` words. */
static void split(const struct ofl_dma *d, size_t off, size_t len, size_t *head, size_t *words)
{
	size_t mis = (size_t)(((uintptr_t)d->cpu + off) & 3u);

	*head = mis ? OFL_MIN(len, 4u - mis) : 0;
	*words = (len - *head) / 4u;
}

/* 4 bytes as the CPU's word holding them (host order: a word store writes them back unchanged). */
static uint32_t word_of(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

void ofl_dma_write(struct ofl_dma *d, size_t off, const void *src, size_t len)
{
	const uint8_t *s = src;
	size_t head, words, i = 0;

	if (d->access == OFL_DMA_ACCESS_NORMAL) {
		memcpy((uint8_t *)d->cpu + off, src, len);
		return;
	}
	split(d, off, len, &head, &words);
	for (; i < head; i++)
		st(d, off + i, 1, s[i]);
	for (size_t w = 0; w < words; w++, i += 4)
		st(d, off + i, 4, word_of(s + i));
	for (; i < len; i++)
		st(d, off + i, 1, s[i]);
}

void ofl_dma_read(const struct ofl_dma *d, size_t off, void *dst, size_t len)
{
	uint8_t *t = dst;
	size_t head, words, i = 0;

	if (d->access == OFL_DMA_ACCESS_NORMAL) {
		memcpy(t, (const uint8_t *)d->cpu + off, len);
		return;
	}
	split(d, off, len, &head, &words);
	for (; i < head; i++)
		t[i] = (uint8_t)ld(d, off + i, 1);
	for (size_t w = 0; w < words; w++, i += 4) {
		uint32_t v = ld(d, off + i, 4);
		memcpy(t + i, &v, 4);
	}
	for (; i < len; i++)
		t[i] = (uint8_t)ld(d, off + i, 1);
}

void ofl_dma_zero(struct ofl_dma *d, size_t off, size_t len)
{
	size_t head, words, i = 0;

	if (d->access == OFL_DMA_ACCESS_NORMAL) {
		ofl_wipe((uint8_t *)d->cpu + off, len);
		return;
	}
	split(d, off, len, &head, &words);
	for (; i < head; i++)
		st(d, off + i, 1, 0);
	for (size_t w = 0; w < words; w++, i += 4)
		st(d, off + i, 4, 0);
	for (; i < len; i++)
		st(d, off + i, 1, 0);
}
