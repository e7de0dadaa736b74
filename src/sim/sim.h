/* SPDX-License-Identifier: MIT */
/*
 * src/sim: the simulated SoC ("sim world") that register-level models live in.
 *
 * A world has
 *  - an MMIO map: register blocks at physical addresses, each owned by a
 *    model; liboffload's mmio accessor calls ofl_sim_mmio_*() through the
 *    simulation provider (provider.c) when a region is simulated, so the
 *    backends drive models with the same code that drives silicon;
 *  - a memory map: DMA memory the library allocated for simulated devices.
 *    Each region has a CPU view (what the program reads and writes) and, in
 *    non-coherent mode, a separate RAM view (what the memory holds). Models
 *    read and write only the RAM view. A clean copies the CPU view of the
 *    range's cache lines to RAM, an invalidate copies RAM to the CPU view:
 *    a missing or misplaced cache operation corrupts data, as on silicon;
 *  - fault injection for tests: an error status in a completion, a stuck
 *    engine, a lost or delayed completion, a dropped cache operation;
 *  - model threads: descriptor processing runs on a thread per model, woken
 *    by doorbell writes.
 *
 * One world per context, shared by every model the context attaches;
 * created when the context opens with models and destroyed when it closes.
 */
#ifndef OFL_SIM_H
#define OFL_SIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/sim_provider.h" /* the seam to liboffload, and enum ofl_sim_mem_mode */

struct ofl_sim;

/* ------------------------------------------------------------------ MMIO */

/*
 * How a model serves one of its register blocks. read64/write64 may be NULL
 * (two 32-bit accesses); read16/write16 may be NULL (a 16-bit access is
 * then a bus error: the block has no 16-bit registers).
 */
struct ofl_sim_block_ops {
	uint32_t (*read32)(void *model, unsigned region, uint64_t off);
	void (*write32)(void *model, unsigned region, uint64_t off, uint32_t val);
	uint64_t (*read64)(void *model, unsigned region, uint64_t off);
	void (*write64)(void *model, unsigned region, uint64_t off, uint64_t val);
	uint16_t (*read16)(void *model, unsigned region, uint64_t off);
	void (*write16)(void *model, unsigned region, uint64_t off, uint16_t val);
};

/*
 * How a model names the registers of a block, for the register trace
 * (OFFLOAD_SIM_TRACE). Each model has a table per block, with the names
 * Linux or the TRM uses. A block is a list of areas; an area is `count`
 * units ("tchan", "ring"; none for the block's own registers) of `stride`
 * bytes from `base` (a negative stride: unit i sits below unit 0, as the
 * EIP97 ring AICs), and a unit holds the registers of `regs`.
 */
struct ofl_sim_reg {
	uint32_t off;      /* within the unit */
	uint32_t span;     /* bytes the name covers (0: 4); a FIFO window covers its whole range */
	uint32_t step;     /* != 0: an array, register i at off + i * step, named NAME<i> */
	const char *name;  /* ends a table when NULL */
	const char *wname; /* the name of a write when it differs (an ACK over a STAT); NULL: name */
	unsigned width;    /* != 0: names only accesses of that many bytes (a 16-bit half of a register) */
};

/* A plain 32-bit register, and the end of a table. */
#define OFL_SIM_REG(off, name) { (off), 0, 0, (name), NULL, 0 }
#define OFL_SIM_REG_END { 0, 0, 0, NULL, NULL, 0 }

struct ofl_sim_regarea {
	const char *unit;               /* NULL: registers of the block itself (stride 0) */
	uint64_t base;                  /* offset of unit 0 */
	int64_t stride;                 /* unit i at base + i * stride */
	uint32_t count;                 /* units; 0: as many as the block holds */
	const struct ofl_sim_reg *regs; /* ends an area list when NULL */
};

struct ofl_sim_block {
	struct ofl_sim *sim;
	const struct ofl_sim_block_ops *ops;
	void *model;
	unsigned region;     /* the model's own region number */
	uint64_t phys, size; /* where the block sits in the physical address map */
	const struct ofl_sim_regarea *names; /* the trace's register names, or NULL */
	char name[48];
};

/*
 * Register a block of a model at [phys, phys + size), its registers named
 * by `names` (an area list ending with a NULL regs; NULL: offsets only).
 * -EEXIST on overlap, -ENOMEM.
 */
int ofl_sim_add_block(struct ofl_sim *sim, uint64_t phys, uint64_t size,
		      const struct ofl_sim_block_ops *ops, void *model, unsigned region,
		      const char *name, const struct ofl_sim_regarea *names);
/* Remove every block of `model` (a model that failed half-way through its creation). */
void ofl_sim_remove_blocks(struct ofl_sim *sim, const void *model);
/*
 * The block serving a region [phys, phys + size) that starts at the block's
 * base: with node >= 0 the model of that DT node is attached first (a node
 * already modelled is left alone) and a block of another model is -EBUSY.
 * 0, -ENODEV (no block), -EINVAL (the region starts inside a block), or the
 * attach's -errno, with `why`.
 */
int ofl_sim_map(struct ofl_sim *sim, const void *fdt, int node, uint64_t phys, uint64_t size,
		struct ofl_sim_block **out, char *why, size_t why_len);
/* The block containing all of [phys, phys + size), or NULL. */
struct ofl_sim_block *ofl_sim_find_block(struct ofl_sim *sim, uint64_t phys, uint64_t size);
/*
 * Is `b` a block of model `m` (NULL: no)? Every model struct embeds its
 * struct ofl_sim_model as its first member (asserted next to each), and
 * registers its blocks with the model struct's address.
 */
struct ofl_sim_model;
static inline bool ofl_sim_block_of(const struct ofl_sim_block *b, const struct ofl_sim_model *m)
{
	return m && b->model == (const void *)m;
}

/*
 * The accessors the platform's mmio layer calls for a simulated region.
 * An access outside the block or misaligned is a bus error: it is counted
 * (ofl_sim_bus_errors()), reads return all ones, writes are dropped. With a
 * trace (ofl_sim_opts.trace) every access is a line of it, marked
 * "bus-error" when the block or its model refused it (a bus error raised
 * by the calling thread during the access).
 */
uint32_t ofl_sim_mmio_read32(struct ofl_sim_block *b, uint64_t off);
void ofl_sim_mmio_write32(struct ofl_sim_block *b, uint64_t off, uint32_t val);
uint64_t ofl_sim_mmio_read64(struct ofl_sim_block *b, uint64_t off);
void ofl_sim_mmio_write64(struct ofl_sim_block *b, uint64_t off, uint64_t val);
uint16_t ofl_sim_mmio_read16(struct ofl_sim_block *b, uint64_t off);
void ofl_sim_mmio_write16(struct ofl_sim_block *b, uint64_t off, uint16_t val);

/*
 * The register trace: is the world writing one (cheap, for callers that
 * would otherwise gather values for nothing)?
 */
bool ofl_sim_tracing(const struct ofl_sim *sim);
/*
 * A 32-bit register value the simulated firmware wrote on an engine's
 * behalf (the DM firmware of TI-SCI): traced as a W32 of the register at
 * `off` of the block of `model` and `region`, marked "fw". Nothing when
 * the world writes no trace or no block of the model has that region.
 */
void ofl_sim_trace_fw(struct ofl_sim *sim, const void *model, unsigned region, uint64_t off,
		      uint32_t val);
/* The same for a register the firmware reads (an R32 line marked "fw"). */
void ofl_sim_trace_fw_read(struct ofl_sim *sim, const void *model, unsigned region, uint64_t off,
			   uint32_t val);

/* ------------------------------------------------------------------ memory */

struct ofl_sim_mem;

/*
 * Allocate simulated DMA memory of `size` bytes (rounded up to the cache
 * line). The world assigns it a physical address in its simulated DRAM
 * window (never reused while the world lives; separated by unmapped gaps so
 * that overruns are bus errors). *cpu receives the CPU view (zeroed).
 */
struct ofl_sim_mem *ofl_sim_mem_alloc(struct ofl_sim *sim, size_t size, enum ofl_sim_mem_mode mode,
				      void **cpu, uint64_t *phys);
void ofl_sim_mem_free(struct ofl_sim_mem *m);

/*
 * Device-type memory (sim_provider.h mem_device / mem_access): the world
 * makes its uncached memory so when opts.uncached_device is set.
 */
bool ofl_sim_mem_device(const struct ofl_sim_mem *m);
uint64_t ofl_sim_mem_access(struct ofl_sim_mem *m, size_t off, unsigned width, bool write, uint64_t v);

/* Clean (CPU -> RAM) / invalidate (RAM -> CPU) the cache lines covering [off, off + len). */
void ofl_sim_mem_clean(struct ofl_sim_mem *m, size_t off, size_t len);
void ofl_sim_mem_inval(struct ofl_sim_mem *m, size_t off, size_t len);

/* The simulated DRAM window every ofl_sim_mem_alloc() address comes from. */
void ofl_sim_dram(const struct ofl_sim *sim, uint64_t *base, uint64_t *size);

/* The cache line size the world emulates (the host's, normally 64). */
size_t ofl_sim_cache_line(const struct ofl_sim *sim);

/*
 * Device-side memory access for models: physical address in, RAM view only.
 * -EFAULT when any byte of the range is not inside one region (the models
 * report that as the hardware's transfer error).
 */
int ofl_sim_dma_read(struct ofl_sim *sim, uint64_t phys, void *dst, size_t len);
int ofl_sim_dma_write(struct ofl_sim *sim, uint64_t phys, const void *src, size_t len);
int ofl_sim_dma_copy(struct ofl_sim *sim, uint64_t dst_phys, uint64_t src_phys, size_t len);

/* ------------------------------------------------------------------ faults */

enum ofl_sim_fault_kind {
	OFL_SIM_FAULT_ERROR = 1,  /* the completion carries an error status (arg: model-specific code, 0 = transfer error) */
	OFL_SIM_FAULT_STUCK,      /* the engine stops before finishing; only teardown releases it */
	OFL_SIM_FAULT_LOST,       /* the work is done but the completion is never posted */
	OFL_SIM_FAULT_DELAY,      /* the completion is posted `arg` microseconds late */
	OFL_SIM_FAULT_DROP_CLEAN, /* a cache clean of simulated memory does nothing */
	OFL_SIM_FAULT_DROP_INVAL, /* a cache invalidate of simulated memory does nothing */
	OFL_SIM_FAULT_KINDS
};

struct ofl_sim_fault {
	enum ofl_sim_fault_kind kind;
	uint32_t skip;   /* let this many matching events pass first */
	uint32_t count;  /* then affect this many (0 = every one from then on) */
	uint32_t arg;    /* DELAY: microseconds; ERROR: model-specific status */
	const void *cpu; /* DROP_*: only operations overlapping [cpu, cpu + len); NULL = any */
	size_t len;
};

/* Arm a fault (replaces an armed fault of the same kind). -EINVAL on a bad kind. */
int ofl_sim_fault_set(struct ofl_sim *sim, const struct ofl_sim_fault *f);
/* Disarm every fault. */
void ofl_sim_fault_clear(struct ofl_sim *sim);
/* Models call this once per event of that kind; true if the fault fires (and *arg gets its arg). */
bool ofl_sim_fault_take(struct ofl_sim *sim, enum ofl_sim_fault_kind kind, const void *cpu,
			size_t len, uint32_t *arg);
/* How many times a kind fired since the world was created. */
uint32_t ofl_sim_fault_fired(struct ofl_sim *sim, enum ofl_sim_fault_kind kind);

/* Bus errors seen so far (bad MMIO, DMA outside memory), and the last one in words. */
uint64_t ofl_sim_bus_errors(struct ofl_sim *sim, char *last, size_t len);
void ofl_sim_bus_error(struct ofl_sim *sim, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ----------------------------------------------------------------- mailbox */

/*
 * The system controller's mailbox (TI-SCI): a host's messages in flight, by
 * their header's host and seq. Linux ti_sci gives each message in flight a
 * seq of its own (ti_sci_get_one_xfer(): a free bit of xfer_alloc_table) and
 * hands a response to the request whose seq it carries
 * (ti_sci_rx_callback()), so two messages in flight with one seq cannot be
 * told apart. ofl_sim_mbox_post() marks (host, seq) in flight: false if it
 * already was (the caller then owns nothing and answers no
 * ofl_sim_mbox_answered()). Safe from any thread.
 */
bool ofl_sim_mbox_post(struct ofl_sim *sim, uint8_t host, uint8_t seq);
void ofl_sim_mbox_answered(struct ofl_sim *sim, uint8_t host, uint8_t seq);

/* ------------------------------------------------------------------ models */

/* A model instance in a world: a DT node (or a test's name) and its lifecycle. */
struct ofl_sim_model {
	const char *kind;                  /* "k3-udma", "k3-ringacc", ... */
	int node;                          /* DT node offset, -1 if built by a test */
	void (*destroy)(struct ofl_sim_model *m);
	bool (*idle)(struct ofl_sim_model *m); /* nothing pending (for benchmarks) */
	struct ofl_sim_model *next;
};

void ofl_sim_model_add(struct ofl_sim *sim, struct ofl_sim_model *m);
struct ofl_sim_model *ofl_sim_model_by_node(struct ofl_sim *sim, int node);
/* The first model (newest first) for which match(m, arg) is true, or NULL. */
struct ofl_sim_model *ofl_sim_model_find(struct ofl_sim *sim,
					 bool (*match)(const struct ofl_sim_model *m, const void *arg),
					 const void *arg);
/*
 * Digital twin: create the model(s) that serve DT node `node` of `fdt`
 * (by its compatible; attach.c), at the addresses the tree declares. A node
 * already modelled is left alone. -ENOTSUP when no model exists for it.
 */
int ofl_sim_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t errlen);
/* bus address - CPU physical address for DMA by `node` (its dma-ranges, at the sim DRAM). */
uint64_t ofl_sim_dt_dma_offset(const void *fdt, int node);
/* Wait (up to timeout_us) until every model reports idle. 0 or -ETIMEDOUT. */
int ofl_sim_wait_idle(struct ofl_sim *sim, int64_t timeout_us);

/* A model's worker thread: run() is called whenever kicked, until stopped. */
struct ofl_sim_thread {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool kicked, stop, started;
	void (*run)(void *arg);
	void *arg;
};
int ofl_sim_thread_start(struct ofl_sim_thread *t, void (*run)(void *), void *arg);

/*
 * A model's create function returned NULL. Clear errno before the call: a
 * create that ran out of memory (calloc) or threads (ofl_sim_thread_start sets
 * errno) is reported as that, -ENOMEM / -EAGAIN with its sentence in err;
 * anything else is -EINVAL with `otherwise` (the create's own refusals).
 */
int ofl_sim_create_failed(char *err, size_t el, const char *what, const char *otherwise);
void ofl_sim_thread_kick(struct ofl_sim_thread *t);
void ofl_sim_thread_stop(struct ofl_sim_thread *t);
/*
 * For run(): sleep up to timeout_us (< 0: no limit) or until kicked or
 * stopped. Returns true when the thread should stop.
 */
bool ofl_sim_thread_sleep(struct ofl_sim_thread *t, int64_t timeout_us);

/* ------------------------------------------------------------------ world */

struct ofl_sim_opts {
	bool noncoherent;   /* emulate non-coherent memory for every simulated device */
	uint64_t dram_base; /* simulated DRAM window; 0 = default 0x880000000 (J721E DDR high) */
	uint64_t dram_size; /* 0 = default 32 GiB */
	/* The register trace: a file every model register access is appended to (NULL: none). */
	const char *trace;
	/*
	 * Uncached memory is device-type (arm64 Device-nGnRnE, as /dev/mem maps
	 * a no-map reserved region): no plain CPU access, only mem_access().
	 */
	bool uncached_device;
};

/*
 * A world. NULL when out of memory, or (errno set) when the trace file
 * cannot be opened for appending.
 */
struct ofl_sim *ofl_sim_create(const struct ofl_sim_opts *opts);
void ofl_sim_destroy(struct ofl_sim *sim);
bool ofl_sim_noncoherent(const struct ofl_sim *sim);

#endif /* OFL_SIM_H */
