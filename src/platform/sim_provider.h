/* SPDX-License-Identifier: MIT */
/*
 * The simulation provider: the one seam between liboffload and the
 * register-level models of liboffload-sim. liboffload's platform layer
 * (src/platform) dispatches register accesses, DMA memory, cache
 * maintenance and firmware messages of a simulated context through this
 * table; liboffload-sim (src/sim) fills it in. Both include this header and
 * nothing else of each other.
 *
 * A program gets the table from liboffload-sim (offload_sim_provider(),
 * <offload/sim.h>) and passes it in struct offload_ctx_opts.sim_provider;
 * a program that asks for models through the environment without that is
 * served by dlopen("liboffload-sim.so.0") (src/platform/provider.c).
 * liboffload checks `abi` and `size` at open: a provider of another ABI is
 * refused, never called.
 */
#ifndef OFL_PLATFORM_SIM_PROVIDER_H
#define OFL_PLATFORM_SIM_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bumped on any change of struct offload_sim_provider or of what its functions mean. */
#define OFL_SIM_PROVIDER_ABI 2u

struct ofl_sim;       /* a world: the models of one context */
struct ofl_sim_block; /* a register block of a model */
struct ofl_sim_mem;   /* a region of simulated DMA memory */

/* Cache behaviour of a simulated DMA memory region. */
enum ofl_sim_mem_mode {
	OFL_SIM_MEM_COHERENT,    /* one view: device and CPU see the same bytes */
	OFL_SIM_MEM_NONCOHERENT, /* CPU view and RAM view, joined by clean/invalidate */
	OFL_SIM_MEM_UNCACHED,    /* one view; the CPU's accesses go straight to RAM */
};

struct offload_sim_provider {
	uint32_t abi;             /* OFL_SIM_PROVIDER_ABI of the liboffload-sim that made it */
	uint32_t size;            /* sizeof(struct offload_sim_provider) there */
	const char *version;      /* liboffload-sim's version string */
	/* The built-in virtual board (OFFLOAD_DT_BUILTIN): a flattened device tree. */
	const unsigned char *board_dtb;
	size_t board_dtb_size;

	/*
	 * A world in *out (noncoherent: emulate a non-coherent memory system).
	 * 0, -ENOMEM, or the -errno of opening the register trace
	 * (OFFLOAD_SIM_TRACE), with `why`.
	 */
	int (*world_new)(bool noncoherent, struct ofl_sim **out, char *why, size_t why_len);
	/* Stop every model of the world and free it. */
	void (*world_free)(struct ofl_sim *sim);
	/* The cache line the world emulates, in bytes. */
	size_t (*cache_line)(const struct ofl_sim *sim);
	/* The simulated DRAM window every mem_alloc() address comes from. */
	void (*dram)(const struct ofl_sim *sim, uint64_t *base, uint64_t *size);

	/*
	 * The block serving [phys, phys + size). With node >= 0 the model of DT
	 * node `node` of `fdt` is attached first if none is (at the addresses
	 * the tree declares) and a block of another node's model is refused
	 * (-EBUSY); node < 0 takes whatever block is there. 0, -ENODEV (no
	 * block), -ENOTSUP (no model for the node), -ENOMEM, with `why`.
	 */
	int (*map)(struct ofl_sim *sim, const void *fdt, int node, uint64_t phys, uint64_t size,
		   struct ofl_sim_block **out, char *why, size_t why_len);
	/* Register accesses at byte offset `off` of a block (bus errors are the world's). */
	uint32_t (*read32)(struct ofl_sim_block *b, uint64_t off);
	void (*write32)(struct ofl_sim_block *b, uint64_t off, uint32_t v);
	uint64_t (*read64)(struct ofl_sim_block *b, uint64_t off);
	void (*write64)(struct ofl_sim_block *b, uint64_t off, uint64_t v);
	uint16_t (*read16)(struct ofl_sim_block *b, uint64_t off);
	void (*write16)(struct ofl_sim_block *b, uint64_t off, uint16_t v);
	/*
	 * An access the platform refused: `width` bytes at `off`, outside the
	 * region of `region_size` bytes mapped over the block (a bus error of the
	 * world, as an unmapped address on the interconnect).
	 */
	void (*bus_error)(struct ofl_sim_block *b, bool write, unsigned width, uint64_t off,
			  uint64_t region_size);

	/* Simulated DMA memory: *cpu its CPU view (zeroed), *phys its address; NULL when none is left. */
	struct ofl_sim_mem *(*mem_alloc)(struct ofl_sim *sim, size_t size, enum ofl_sim_mem_mode mode,
					 void **cpu, uint64_t *phys);
	void (*mem_free)(struct ofl_sim_mem *m);
	/* Clean (CPU -> RAM) / invalidate (RAM -> CPU) the cache lines of [off, off + len). */
	void (*mem_clean)(struct ofl_sim_mem *m, size_t off, size_t len);
	void (*mem_inval)(struct ofl_sim_mem *m, size_t off, size_t len);

	/*
	 * A firmware message (TI-SCI wire format, src/hw/tisci.h) to the world's
	 * DM firmware: the request in msg[0, req_len), its response written into
	 * msg[0, resp_cap) (ACK or NACK flag). 0 when a response was written
	 * (`why` says why a NACK), -EINVAL for a message without a header.
	 */
	int (*fw_xfer)(struct ofl_sim *sim, uint8_t *msg, size_t req_len, size_t resp_cap, char *why,
		       size_t why_len);

	/*
	 * Device-type memory (ABI 2). On arm64 an "uncached" mapping may be
	 * Device-nGnRnE, where an unaligned access or a DC ZVA (glibc's memset)
	 * takes an alignment fault: /dev/mem of a no-map reserved region
	 * (arch/arm64/mm/mmu.c phys_mem_access_prot(): pgprot_noncached for
	 * memory outside the linear map), u-dma-buf's NONCACHED sync mode
	 * (u-dma-buf.c: pgprot_noncached on CONFIG_ARM64). A world asked to
	 * (OFFLOAD_SIM_UNCACHED=device) hands out its uncached memory as such:
	 * the CPU view is a guard no plain access may touch (one faults, as on
	 * the silicon), and the CPU reaches the memory only through mem_access().
	 * Is m such memory?
	 */
	bool (*mem_device)(const struct ofl_sim_mem *m);
	/*
	 * One CPU access to device-type memory m: `width` bytes (1, 2, 4 or 8)
	 * at byte `off`, a write of v, or a read (returned). One that is not
	 * naturally aligned, or outside the region, is the world's fault:
	 * counted as a bus error with its sentence; a read gives all ones, a
	 * write is dropped.
	 */
	uint64_t (*mem_access)(struct ofl_sim_mem *m, size_t off, unsigned width, bool write, uint64_t v);
};

#endif /* OFL_PLATFORM_SIM_PROVIDER_H */
