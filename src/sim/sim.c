/* SPDX-License-Identifier: MIT */
/*
 * The sim world: MMIO map, memory map with non-coherent emulation, fault
 * injection, model threads. See sim.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "sim/sim.h"

#define SIM_MAX_BLOCKS 64
#define SIM_GAP (64u << 10) /* unmapped gap after every memory region */
#define SIM_DEFAULT_DRAM_BASE 0x880000000ull
#define SIM_DEFAULT_DRAM_SIZE (32ull << 30)

struct ofl_sim_mem {
	struct ofl_sim *sim;
	uint64_t phys;
	size_t size;
	enum ofl_sim_mem_mode mode;
	bool device;  /* device-type memory: cpu is a guard mapping, ram the memory */
	uint8_t *cpu;
	uint8_t *ram; /* == cpu unless non-coherent or device-type */
	size_t map_len; /* the guard mapping's length */
};

struct fault_slot {
	struct ofl_sim_fault spec;
	bool armed;
	uint32_t skip_left, count_left;
	uint32_t fired;
};

struct ofl_sim {
	struct ofl_sim_opts opts;
	size_t line;
	int refs;

	pthread_mutex_t blocks_mu;
	struct ofl_sim_block *blocks[SIM_MAX_BLOCKS];
	int nblocks;

	pthread_rwlock_t mem_lock;
	struct ofl_sim_mem **mems; /* sorted by phys */
	size_t nmems, cap_mems;
	uint64_t next_phys;

	pthread_mutex_t fault_mu;
	struct fault_slot faults[OFL_SIM_FAULT_KINDS];
	atomic_bool any_fault;

	atomic_uint_fast64_t bus_errors;
	char last_bus_error[160];

	pthread_mutex_t models_mu;
	struct ofl_sim_model *models;

	/* the system controller's mailbox: bit host << 8 | seq set while that message is in flight */
	atomic_uint mbox_in_flight[(256 * 256) / 32];

	FILE *trace; /* OFFLOAD_SIM_TRACE: line-buffered, so that a line is one append */
};

/* ------------------------------------------------------------------ world */

static size_t host_cache_line(void)
{
	long l = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	return (l >= 16 && l <= 1024 && (l & (l - 1)) == 0) ? (size_t)l : 64;
}

/*
 * The register trace, opened for appending. Without a wait: a FIFO nobody
 * reads would block open() for ever, and fails with ENXIO instead
 * (fifo(7)); once open, writes block as usual, so that a slow reader loses
 * no line.
 */
static FILE *open_trace(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);

	if (fd < 0)
		return NULL;
	int fl = fcntl(fd, F_GETFL);
	FILE *f = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "a") : NULL;
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

struct ofl_sim *ofl_sim_create(const struct ofl_sim_opts *opts)
{
	struct ofl_sim *sim = calloc(1, sizeof(*sim));

	if (!sim)
		return NULL;
	if (opts)
		sim->opts = *opts;
	if (!sim->opts.dram_base)
		sim->opts.dram_base = SIM_DEFAULT_DRAM_BASE;
	if (!sim->opts.dram_size)
		sim->opts.dram_size = SIM_DEFAULT_DRAM_SIZE;
	if (sim->opts.trace) {
		sim->trace = open_trace(sim->opts.trace);
		if (!sim->trace) {
			int e = errno;
			free(sim);
			errno = e;
			return NULL;
		}
		setvbuf(sim->trace, NULL, _IOLBF, 0);
		sim->opts.trace = NULL; /* the caller's string: not kept */
	}
	sim->next_phys = sim->opts.dram_base;
	sim->line = host_cache_line();
	pthread_mutex_init(&sim->blocks_mu, NULL);
	pthread_rwlock_init(&sim->mem_lock, NULL);
	pthread_mutex_init(&sim->fault_mu, NULL);
	pthread_mutex_init(&sim->models_mu, NULL);
	return sim;
}

/* The memory of a region and the region. */
static void mem_release(struct ofl_sim_mem *m)
{
	if (m->device)
		munmap(m->cpu, m->map_len);
	else if (m->ram != m->cpu)
		free(m->cpu);
	free(m->ram);
	free(m);
}

void ofl_sim_destroy(struct ofl_sim *sim)
{
	if (!sim)
		return;
	/* Models first: their threads may still touch memory. */
	for (;;) {
		pthread_mutex_lock(&sim->models_mu);
		struct ofl_sim_model *m = sim->models;
		if (m)
			sim->models = m->next;
		pthread_mutex_unlock(&sim->models_mu);
		if (!m)
			break;
		m->destroy(m);
	}
	for (int i = 0; i < sim->nblocks; i++)
		free(sim->blocks[i]);
	for (size_t i = 0; i < sim->nmems; i++)
		mem_release(sim->mems[i]);
	free(sim->mems);
	if (sim->trace)
		fclose(sim->trace);
	pthread_mutex_destroy(&sim->blocks_mu);
	pthread_rwlock_destroy(&sim->mem_lock);
	pthread_mutex_destroy(&sim->fault_mu);
	pthread_mutex_destroy(&sim->models_mu);
	free(sim);
}

bool ofl_sim_noncoherent(const struct ofl_sim *sim)
{
	return sim->opts.noncoherent;
}

void ofl_sim_dram(const struct ofl_sim *sim, uint64_t *base, uint64_t *size)
{
	*base = sim->opts.dram_base;
	*size = sim->opts.dram_size;
}

size_t ofl_sim_cache_line(const struct ofl_sim *sim)
{
	return sim->line;
}

/* ------------------------------------------------------------------ bus errors */

/* Bus errors raised by this thread: a traced access that raised one is marked "bus-error". */
static _Thread_local unsigned long tl_bus_errors;

void ofl_sim_bus_error(struct ofl_sim *sim, const char *fmt, ...)
{
	va_list ap;

	tl_bus_errors++;
	atomic_fetch_add(&sim->bus_errors, 1);
	pthread_mutex_lock(&sim->fault_mu);
	va_start(ap, fmt);
	vsnprintf(sim->last_bus_error, sizeof(sim->last_bus_error), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&sim->fault_mu);
}

uint64_t ofl_sim_bus_errors(struct ofl_sim *sim, char *last, size_t len)
{
	if (last && len) {
		pthread_mutex_lock(&sim->fault_mu);
		ofl_strlcpy(last, sim->last_bus_error, len);
		pthread_mutex_unlock(&sim->fault_mu);
	}
	return atomic_load(&sim->bus_errors);
}

/* ------------------------------------------------------------------ MMIO */

int ofl_sim_add_block(struct ofl_sim *sim, uint64_t phys, uint64_t size,
		      const struct ofl_sim_block_ops *ops, void *model, unsigned region,
		      const char *name, const struct ofl_sim_regarea *names)
{
	int r = 0;

	if (size == 0 || phys + size < phys)
		return -EINVAL;
	pthread_mutex_lock(&sim->blocks_mu);
	for (int i = 0; i < sim->nblocks; i++) {
		const struct ofl_sim_block *b = sim->blocks[i];
		if (phys < b->phys + b->size && b->phys < phys + size) {
			r = -EEXIST;
			goto out;
		}
	}
	if (sim->nblocks >= SIM_MAX_BLOCKS) {
		r = -ENOMEM;
		goto out;
	}
	struct ofl_sim_block *b = calloc(1, sizeof(*b));
	if (!b) {
		r = -ENOMEM;
		goto out;
	}
	b->sim = sim;
	b->ops = ops;
	b->model = model;
	b->region = region;
	b->phys = phys;
	b->size = size;
	b->names = names;
	ofl_strlcpy(b->name, name, sizeof(b->name));
	sim->blocks[sim->nblocks++] = b;
out:
	pthread_mutex_unlock(&sim->blocks_mu);
	return r;
}

void ofl_sim_remove_blocks(struct ofl_sim *sim, const void *model)
{
	pthread_mutex_lock(&sim->blocks_mu);
	for (int i = 0; i < sim->nblocks;) {
		if (sim->blocks[i]->model == model) {
			free(sim->blocks[i]);
			sim->blocks[i] = sim->blocks[--sim->nblocks];
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&sim->blocks_mu);
}

struct ofl_sim_block *ofl_sim_find_block(struct ofl_sim *sim, uint64_t phys, uint64_t size)
{
	struct ofl_sim_block *found = NULL;

	pthread_mutex_lock(&sim->blocks_mu);
	for (int i = 0; i < sim->nblocks; i++) {
		struct ofl_sim_block *b = sim->blocks[i];
		if (phys >= b->phys && phys + size <= b->phys + b->size && phys + size >= phys) {
			found = b;
			break;
		}
	}
	pthread_mutex_unlock(&sim->blocks_mu);
	return found;
}

/* ------------------------------------------------------------------ register trace */

bool ofl_sim_tracing(const struct ofl_sim *sim)
{
	return sim->trace != NULL;
}

/* Which unit of area `a` holds block offset `off`, and the offset within it. */
static bool area_unit(const struct ofl_sim_regarea *a, uint64_t off, uint64_t *idx, uint64_t *in)
{
	uint64_t s = a->stride < 0 ? (uint64_t)-a->stride : (uint64_t)a->stride, i;

	if (s == 0) {
		if (off < a->base)
			return false;
		*idx = 0;
		*in = off - a->base;
		return true;
	}
	if (a->stride > 0) {
		if (off < a->base)
			return false;
		i = (off - a->base) / s;
	} else {
		if (off >= a->base + s)
			return false;
		i = (a->base + s - 1 - off) / s; /* unit i spans [base - i*s, base - i*s + s) */
	}
	if (a->count && i >= a->count)
		return false;
	*idx = i;
	*in = a->stride > 0 ? off - (a->base + i * s) : off - (a->base - i * s);
	return true;
}

/* "TCFG tchan 3", "CAP2", "CTAR1", or the block and offset of an unnamed register. */
static void reg_label(const struct ofl_sim_block *b, uint64_t off, bool write, unsigned width,
		      char *buf, size_t n)
{
	for (const struct ofl_sim_regarea *a = b->names; a && a->regs; a++) {
		uint64_t idx, in;
		if (!area_unit(a, off, &idx, &in))
			continue;
		for (const struct ofl_sim_reg *r = a->regs; r->name; r++) {
			uint32_t span = r->span ? r->span : 4;
			if (in < r->off || in - r->off >= span || (r->width && r->width != width))
				continue;
			const char *nm = write && r->wname ? r->wname : r->name;
			int k = r->step ? snprintf(buf, n, "%s%llu", nm, (unsigned long long)((in - r->off) / r->step))
					: snprintf(buf, n, "%s", nm);
			if (a->unit && k > 0 && (size_t)k < n)
				snprintf(buf + k, n - (size_t)k, " %s %llu", a->unit, (unsigned long long)idx);
			return;
		}
	}
	snprintf(buf, n, "%s+0x%llx", b->name, (unsigned long long)off);
}

/*
 * A write is traced when the model has taken it, so that a write the model
 * refused is marked; lines the model writes meanwhile (the firmware's, fw)
 * come after it, as they happened.
 */
struct pending_write {
	const struct ofl_sim_block *b;
	unsigned width;
	uint64_t off, v;
};
static _Thread_local struct pending_write tl_pending;

static void trace_line(const struct ofl_sim_block *b, bool write, unsigned width, uint64_t off, uint64_t v,
		       const char *what);

static void flush_pending(const char *what)
{
	struct pending_write p = tl_pending;

	if (!p.b)
		return;
	tl_pending.b = NULL;
	trace_line(p.b, true, p.width, p.off, p.v, what);
}

/* One trace line: R32|W32|R64|W64|R16|W16 0x<phys> 0x<value> <REGISTER> [unit n] [what]. */
static void trace(const struct ofl_sim_block *b, bool write, unsigned width, uint64_t off, uint64_t v,
		  const char *what)
{
	flush_pending(NULL);
	trace_line(b, write, width, off, v, what);
}

static void trace_line(const struct ofl_sim_block *b, bool write, unsigned width, uint64_t off, uint64_t v,
		       const char *what)
{
	char name[96];

	reg_label(b, off, write, width, name, sizeof(name));
	fprintf(b->sim->trace, "%c%u 0x%llx 0x%0*llx %s%s%s\n", write ? 'W' : 'R', width * 8,
		(unsigned long long)(b->phys + off), (int)width * 2, (unsigned long long)v, name,
		what ? " " : "", what ? what : "");
}

static void trace_fw(struct ofl_sim *sim, const void *model, unsigned region, uint64_t off, uint32_t val,
		     bool write)
{
	if (!sim->trace)
		return;
	pthread_mutex_lock(&sim->blocks_mu);
	for (int i = 0; i < sim->nblocks; i++) {
		const struct ofl_sim_block *b = sim->blocks[i];
		if (b->model == model && b->region == region && off < b->size) {
			trace(b, write, 4, off, val, "fw");
			break;
		}
	}
	pthread_mutex_unlock(&sim->blocks_mu);
}

void ofl_sim_trace_fw(struct ofl_sim *sim, const void *model, unsigned region, uint64_t off,
		      uint32_t val)
{
	trace_fw(sim, model, region, off, val, true);
}

void ofl_sim_trace_fw_read(struct ofl_sim *sim, const void *model, unsigned region, uint64_t off,
			   uint32_t val)
{
	trace_fw(sim, model, region, off, val, false);
}

/* ------------------------------------------------------------------ MMIO accessors */

static bool mmio_ok(struct ofl_sim_block *b, uint64_t off, unsigned width, bool write, uint64_t v)
{
	if (OFL_LIKELY(off + width <= b->size && (off & (width - 1)) == 0))
		return true;
	ofl_sim_bus_error(b->sim, "%s of %u bytes at %s+0x%llx (block is 0x%llx bytes)",
			  write ? "write" : "read", width, b->name, (unsigned long long)off,
			  (unsigned long long)b->size);
	if (b->sim->trace)
		trace(b, write, width, off, v, "bus-error");
	return false;
}

/* A block without 16-bit registers: a bus error. */
static bool has16(struct ofl_sim_block *b, uint64_t off, bool write, uint16_t v)
{
	if (write ? b->ops->write16 != NULL : b->ops->read16 != NULL)
		return true;
	ofl_sim_bus_error(b->sim, "16-bit %s at %s+0x%llx: the block has no 16-bit registers",
			  write ? "write" : "read", b->name, (unsigned long long)off);
	if (b->sim->trace)
		trace(b, write, 2, off, v, "bus-error");
	return false;
}

/* Start a traced write: its line waits until the model has taken it (trace_write_end()). */
static unsigned long trace_write_begin(struct ofl_sim_block *b, unsigned width, uint64_t off, uint64_t v)
{
	if (OFL_UNLIKELY(b->sim->trace != NULL)) {
		flush_pending(NULL);
		tl_pending = (struct pending_write){ b, width, off, v };
	}
	return tl_bus_errors;
}

static void trace_write_end(const struct ofl_sim_block *b, unsigned long errors_before)
{
	if (OFL_UNLIKELY(b->sim->trace != NULL))
		flush_pending(tl_bus_errors != errors_before ? "bus-error" : NULL);
}

/* A traced read, marked when the model refused it. */
static void trace_read_done(struct ofl_sim_block *b, unsigned width, uint64_t off, uint64_t v,
		       unsigned long errors_before)
{
	if (OFL_UNLIKELY(b->sim->trace != NULL))
		trace(b, false, width, off, v, tl_bus_errors != errors_before ? "bus-error" : NULL);
}

uint32_t ofl_sim_mmio_read32(struct ofl_sim_block *b, uint64_t off)
{
	if (!mmio_ok(b, off, 4, false, 0xFFFFFFFFu))
		return 0xFFFFFFFFu;
	unsigned long e = tl_bus_errors;
	uint32_t v = b->ops->read32(b->model, b->region, off);
	trace_read_done(b, 4, off, v, e);
	return v;
}

void ofl_sim_mmio_write32(struct ofl_sim_block *b, uint64_t off, uint32_t val)
{
	if (!mmio_ok(b, off, 4, true, val))
		return;
	unsigned long e = trace_write_begin(b, 4, off, val);
	b->ops->write32(b->model, b->region, off, val);
	trace_write_end(b, e);
}

uint64_t ofl_sim_mmio_read64(struct ofl_sim_block *b, uint64_t off)
{
	uint64_t v;

	if (!mmio_ok(b, off, 8, false, ~0ull))
		return ~0ull;
	unsigned long e = tl_bus_errors;
	if (b->ops->read64) {
		v = b->ops->read64(b->model, b->region, off);
	} else {
		v = b->ops->read32(b->model, b->region, off);
		v |= (uint64_t)b->ops->read32(b->model, b->region, off + 4) << 32;
	}
	trace_read_done(b, 8, off, v, e);
	return v;
}

void ofl_sim_mmio_write64(struct ofl_sim_block *b, uint64_t off, uint64_t val)
{
	if (!mmio_ok(b, off, 8, true, val))
		return;
	unsigned long e = trace_write_begin(b, 8, off, val);
	if (b->ops->write64) {
		b->ops->write64(b->model, b->region, off, val);
	} else {
		b->ops->write32(b->model, b->region, off, (uint32_t)val);
		b->ops->write32(b->model, b->region, off + 4, (uint32_t)(val >> 32));
	}
	trace_write_end(b, e);
}

uint16_t ofl_sim_mmio_read16(struct ofl_sim_block *b, uint64_t off)
{
	if (!mmio_ok(b, off, 2, false, 0xFFFFu) || !has16(b, off, false, 0xFFFFu))
		return 0xFFFFu;
	unsigned long e = tl_bus_errors;
	uint16_t v = b->ops->read16(b->model, b->region, off);
	trace_read_done(b, 2, off, v, e);
	return v;
}

void ofl_sim_mmio_write16(struct ofl_sim_block *b, uint64_t off, uint16_t val)
{
	if (!mmio_ok(b, off, 2, true, val) || !has16(b, off, true, val))
		return;
	unsigned long e = trace_write_begin(b, 2, off, val);
	b->ops->write16(b->model, b->region, off, val);
	trace_write_end(b, e);
}

/* ------------------------------------------------------------------ memory */

static size_t mem_index(const struct ofl_sim *sim, uint64_t phys)
{
	size_t lo = 0, hi = sim->nmems;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sim->mems[mid]->phys <= phys)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo; /* first region with phys > the address */
}

static int grow_mems(struct ofl_sim *sim)
{
	if (sim->nmems < sim->cap_mems)
		return 0;
	size_t cap = sim->cap_mems ? sim->cap_mems * 2 : 16;
	struct ofl_sim_mem **n = realloc(sim->mems, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	sim->mems = n;
	sim->cap_mems = cap;
	return 0;
}

struct ofl_sim_mem *ofl_sim_mem_alloc(struct ofl_sim *sim, size_t size, enum ofl_sim_mem_mode mode,
				      void **cpu, uint64_t *phys)
{
	size_t line = sim->line;

	if (size == 0 || size > (sim->opts.dram_size >> 1))
		return NULL;
	size = (size + line - 1) & ~(line - 1);
	size_t span = (size + SIM_GAP - 1) / SIM_GAP * SIM_GAP + SIM_GAP;
	struct ofl_sim_mem *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	size_t alloc = (size + 4095) & ~(size_t)4095;
	m->ram = aligned_alloc(4096, alloc);
	m->cpu = m->ram;
	if (m->ram && mode == OFL_SIM_MEM_NONCOHERENT) {
		m->cpu = aligned_alloc(4096, alloc);
	} else if (m->ram && mode == OFL_SIM_MEM_UNCACHED && sim->opts.uncached_device) {
		/* device-type memory: the CPU view is a guard, the memory is reached by mem_access */
		void *g = mmap(NULL, alloc, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		m->cpu = g == MAP_FAILED ? NULL : g;
		m->device = m->cpu != NULL;
		m->map_len = alloc;
	}
	if (!m->cpu || !m->ram) {
		if (m->cpu && m->cpu != m->ram)
			free(m->cpu);
		free(m->ram);
		free(m);
		return NULL;
	}
	memset(m->ram, 0, alloc);
	if (m->cpu != m->ram && !m->device)
		memset(m->cpu, 0, alloc);
	m->sim = sim;
	m->size = size;
	m->mode = mode;

	pthread_rwlock_wrlock(&sim->mem_lock);
	if (sim->next_phys + span > sim->opts.dram_base + sim->opts.dram_size || grow_mems(sim) < 0) {
		pthread_rwlock_unlock(&sim->mem_lock);
		mem_release(m);
		return NULL;
	}
	m->phys = sim->next_phys;
	sim->next_phys += span;
	/* Addresses only grow, so the new region goes last. */
	sim->mems[sim->nmems++] = m;
	pthread_rwlock_unlock(&sim->mem_lock);
	*cpu = m->cpu;
	*phys = m->phys;
	return m;
}

void ofl_sim_mem_free(struct ofl_sim_mem *m)
{
	if (!m)
		return;
	struct ofl_sim *sim = m->sim;
	pthread_rwlock_wrlock(&sim->mem_lock);
	size_t i = mem_index(sim, m->phys);
	if (i > 0 && sim->mems[i - 1] == m) {
		memmove(&sim->mems[i - 1], &sim->mems[i], (sim->nmems - i) * sizeof(sim->mems[0]));
		sim->nmems--;
	}
	pthread_rwlock_unlock(&sim->mem_lock);
	mem_release(m);
}

bool ofl_sim_mem_device(const struct ofl_sim_mem *m)
{
	return m->device;
}

uint64_t ofl_sim_mem_access(struct ofl_sim_mem *m, size_t off, unsigned width, bool write, uint64_t v)
{
	uint64_t r = 0;

	if ((width != 1 && width != 2 && width != 4 && width != 8) || off % width || off >= m->size ||
	    m->size - off < width) {
		ofl_sim_bus_error(m->sim, "alignment fault: a %u-byte %s at +0x%zx of device-type memory "
				  "(0x%llx, 0x%zx bytes), which takes only naturally aligned accesses",
				  width, write ? "write" : "read", off, (unsigned long long)m->phys, m->size);
		return write ? 0 : ~0ull;
	}
	/* in the host's byte order, as the CPU's own store of that width would */
	uint8_t b8 = (uint8_t)v;
	uint16_t b16 = (uint16_t)v;
	uint32_t b32 = (uint32_t)v;
	void *p = width == 1 ? (void *)&b8 : width == 2 ? (void *)&b16 : width == 4 ? (void *)&b32 : (void *)&v;
	if (write) {
		memcpy(m->ram + off, p, width);
		return 0;
	}
	memcpy(p, m->ram + off, width);
	r = width == 1 ? b8 : width == 2 ? b16 : width == 4 ? b32 : v;
	return r;
}

/* Line-rounded [*s, *e) of [off, off + len) inside the region. */
static bool line_range(const struct ofl_sim_mem *m, size_t off, size_t len, size_t *s, size_t *e)
{
	size_t line = m->sim->line;

	if (len == 0 || off >= m->size)
		return false;
	*s = off & ~(line - 1);
	size_t end = off + OFL_MIN(len, m->size - off);
	*e = OFL_MIN((end + line - 1) & ~(line - 1), m->size);
	return true;
}

void ofl_sim_mem_clean(struct ofl_sim_mem *m, size_t off, size_t len)
{
	size_t s, e;

	if (m->mode != OFL_SIM_MEM_NONCOHERENT || !line_range(m, off, len, &s, &e))
		return;
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_DROP_CLEAN, m->cpu + off, len, NULL))
		return;
	memcpy(m->ram + s, m->cpu + s, e - s);
}

void ofl_sim_mem_inval(struct ofl_sim_mem *m, size_t off, size_t len)
{
	size_t s, e;

	if (m->mode != OFL_SIM_MEM_NONCOHERENT || !line_range(m, off, len, &s, &e))
		return;
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_DROP_INVAL, m->cpu + off, len, NULL))
		return;
	memcpy(m->cpu + s, m->ram + s, e - s);
}

/* RAM view of [phys, phys + len), or NULL. Caller holds mem_lock for reading. */
static uint8_t *ram_at(struct ofl_sim *sim, uint64_t phys, size_t len)
{
	size_t i = mem_index(sim, phys);

	if (i == 0 || len == 0)
		return NULL;
	const struct ofl_sim_mem *m = sim->mems[i - 1];
	uint64_t off = phys - m->phys;
	if (off >= m->size || len > m->size - off)
		return NULL;
	return m->ram + off;
}

static int dma_fault(struct ofl_sim *sim, const char *what, uint64_t phys, size_t len)
{
	ofl_sim_bus_error(sim, "DMA %s of %zu bytes at 0x%llx: not inside one memory region", what,
			  len, (unsigned long long)phys);
	return -EFAULT;
}

int ofl_sim_dma_read(struct ofl_sim *sim, uint64_t phys, void *dst, size_t len)
{
	int r = 0;

	pthread_rwlock_rdlock(&sim->mem_lock);
	const uint8_t *p = ram_at(sim, phys, len);
	if (p)
		memcpy(dst, p, len);
	else
		r = dma_fault(sim, "read", phys, len);
	pthread_rwlock_unlock(&sim->mem_lock);
	return r;
}

int ofl_sim_dma_write(struct ofl_sim *sim, uint64_t phys, const void *src, size_t len)
{
	int r = 0;

	pthread_rwlock_rdlock(&sim->mem_lock);
	uint8_t *p = ram_at(sim, phys, len);
	if (p)
		memcpy(p, src, len);
	else
		r = dma_fault(sim, "write", phys, len);
	pthread_rwlock_unlock(&sim->mem_lock);
	return r;
}

int ofl_sim_dma_copy(struct ofl_sim *sim, uint64_t dst_phys, uint64_t src_phys, size_t len)
{
	int r = 0;

	pthread_rwlock_rdlock(&sim->mem_lock);
	const uint8_t *s = ram_at(sim, src_phys, len);
	uint8_t *d = ram_at(sim, dst_phys, len);
	if (!s)
		r = dma_fault(sim, "read", src_phys, len);
	else if (!d)
		r = dma_fault(sim, "write", dst_phys, len);
	else
		memmove(d, s, len);
	pthread_rwlock_unlock(&sim->mem_lock);
	return r;
}

/* ------------------------------------------------------------------ faults */

int ofl_sim_fault_set(struct ofl_sim *sim, const struct ofl_sim_fault *f)
{
	if (!f || f->kind <= 0 || f->kind >= OFL_SIM_FAULT_KINDS)
		return -EINVAL;
	pthread_mutex_lock(&sim->fault_mu);
	struct fault_slot *s = &sim->faults[f->kind];
	s->spec = *f;
	s->armed = true;
	s->skip_left = f->skip;
	s->count_left = f->count;
	atomic_store(&sim->any_fault, true);
	pthread_mutex_unlock(&sim->fault_mu);
	return 0;
}

void ofl_sim_fault_clear(struct ofl_sim *sim)
{
	pthread_mutex_lock(&sim->fault_mu);
	for (int k = 0; k < OFL_SIM_FAULT_KINDS; k++)
		sim->faults[k].armed = false;
	atomic_store(&sim->any_fault, false);
	pthread_mutex_unlock(&sim->fault_mu);
}

bool ofl_sim_fault_take(struct ofl_sim *sim, enum ofl_sim_fault_kind kind, const void *cpu,
			size_t len, uint32_t *arg)
{
	bool fire = false;

	if (OFL_LIKELY(!atomic_load_explicit(&sim->any_fault, memory_order_relaxed)))
		return false;
	pthread_mutex_lock(&sim->fault_mu);
	struct fault_slot *s = &sim->faults[kind];
	if (s->armed && s->spec.cpu && cpu &&
	    !ofl_ranges_overlap(s->spec.cpu, s->spec.len, cpu, len ? len : 1)) {
		pthread_mutex_unlock(&sim->fault_mu);
		return false;
	}
	if (s->armed) {
		if (s->skip_left) {
			s->skip_left--;
		} else {
			fire = true;
			s->fired++;
			if (arg)
				*arg = s->spec.arg;
			if (s->spec.count && --s->count_left == 0)
				s->armed = false;
		}
	}
	pthread_mutex_unlock(&sim->fault_mu);
	return fire;
}

uint32_t ofl_sim_fault_fired(struct ofl_sim *sim, enum ofl_sim_fault_kind kind)
{
	uint32_t n = 0;

	if (kind <= 0 || kind >= OFL_SIM_FAULT_KINDS)
		return 0;
	pthread_mutex_lock(&sim->fault_mu);
	n = sim->faults[kind].fired;
	pthread_mutex_unlock(&sim->fault_mu);
	return n;
}

/* ----------------------------------------------------------------- mailbox */

bool ofl_sim_mbox_post(struct ofl_sim *sim, uint8_t host, uint8_t seq)
{
	return ofl_bitmap_claim(sim->mbox_in_flight, (unsigned)host << 8 | seq);
}

void ofl_sim_mbox_answered(struct ofl_sim *sim, uint8_t host, uint8_t seq)
{
	ofl_bitmap_release(sim->mbox_in_flight, (unsigned)host << 8 | seq);
}

/* ------------------------------------------------------------------ models */

void ofl_sim_model_add(struct ofl_sim *sim, struct ofl_sim_model *m)
{
	pthread_mutex_lock(&sim->models_mu);
	m->next = sim->models;
	sim->models = m;
	pthread_mutex_unlock(&sim->models_mu);
}

struct ofl_sim_model *ofl_sim_model_by_node(struct ofl_sim *sim, int node)
{
	struct ofl_sim_model *m;

	pthread_mutex_lock(&sim->models_mu);
	for (m = sim->models; m; m = m->next)
		if (m->node == node && node >= 0)
			break;
	pthread_mutex_unlock(&sim->models_mu);
	return m;
}

struct ofl_sim_model *ofl_sim_model_find(struct ofl_sim *sim,
					 bool (*match)(const struct ofl_sim_model *m, const void *arg),
					 const void *arg)
{
	struct ofl_sim_model *m;

	pthread_mutex_lock(&sim->models_mu);
	for (m = sim->models; m; m = m->next)
		if (match(m, arg))
			break;
	pthread_mutex_unlock(&sim->models_mu);
	return m;
}

int ofl_sim_wait_idle(struct ofl_sim *sim, int64_t timeout_us)
{
	uint64_t deadline = ofl_deadline_ns(ofl_now_ns(), timeout_us);

	for (;;) {
		bool idle = true;
		pthread_mutex_lock(&sim->models_mu);
		for (struct ofl_sim_model *m = sim->models; m && idle; m = m->next)
			if (m->idle && !m->idle(m))
				idle = false;
		pthread_mutex_unlock(&sim->models_mu);
		if (idle)
			return 0;
		if (timeout_us >= 0 && ofl_now_ns() >= deadline)
			return -ETIMEDOUT;
		struct timespec ts = { 0, 20000 };
		nanosleep(&ts, NULL);
	}
}

static void *sim_thread_main(void *arg)
{
	struct ofl_sim_thread *t = arg;

	t->run(t->arg);
	return NULL;
}

int ofl_sim_thread_start(struct ofl_sim_thread *t, void (*run)(void *), void *arg)
{
	pthread_condattr_t ca;

	memset(t, 0, sizeof(*t));
	t->run = run;
	t->arg = arg;
	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);
	pthread_condattr_destroy(&ca);
	int r = pthread_create(&t->th, NULL, sim_thread_main, t);
	if (r) {
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
		errno = r; /* for ofl_sim_create_failed() */
		return -r;
	}
	t->started = true;
	return 0;
}

void ofl_sim_thread_kick(struct ofl_sim_thread *t)
{
	pthread_mutex_lock(&t->mu);
	t->kicked = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

void ofl_sim_thread_stop(struct ofl_sim_thread *t)
{
	if (!t->started)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	t->started = false;
}

bool ofl_sim_thread_sleep(struct ofl_sim_thread *t, int64_t timeout_us)
{
	struct timespec ts;

	pthread_mutex_lock(&t->mu);
	if (timeout_us >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		/* whole seconds apart: no overflow even for INT64_MAX microseconds */
		ts.tv_sec += (time_t)(timeout_us / 1000000);
		ts.tv_nsec += (long)(timeout_us % 1000000) * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
	}
	while (!t->kicked && !t->stop) {
		if (timeout_us < 0)
			pthread_cond_wait(&t->cv, &t->mu);
		else if (pthread_cond_timedwait(&t->cv, &t->mu, &ts) == ETIMEDOUT)
			break;
	}
	t->kicked = false;
	bool stop = t->stop;
	pthread_mutex_unlock(&t->mu);
	return stop;
}

int ofl_sim_create_failed(char *err, size_t el, const char *what, const char *otherwise)
{
	int e = errno;

	if (e == ENOMEM || e == EAGAIN) {
		snprintf(err, el, "cannot model the %s: %s", what,
			 e == ENOMEM ? "out of memory" : "cannot start its thread (Resource temporarily unavailable)");
		return -e;
	}
	snprintf(err, el, "cannot model the %s (%s)", what, otherwise);
	return -EINVAL;
}
