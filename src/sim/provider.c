/* SPDX-License-Identifier: MIT */
/*
 * liboffload-sim's side of the seam: the simulation provider liboffload
 * calls for everything a simulated context does with registers, DMA memory,
 * cache maintenance and firmware (src/platform/sim_provider.h), and the
 * built-in virtual board. offload_sim_provider() is this library's public
 * entry point (<offload/sim.h>).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/sim.h>
#include <offload/version.h>

#include "sim/k3_models.h"
#include "sim/sim.h"
#include "util/util.h"

extern const unsigned char ofl_sim_board_dtb[];
extern const size_t ofl_sim_board_dtb_size;

int ofl_sim_map(struct ofl_sim *sim, const void *fdt, int node, uint64_t phys, uint64_t size,
		struct ofl_sim_block **out, char *why, size_t wl)
{
	char err[OFL_REASON_LEN] = "";
	struct ofl_sim_model *own = NULL;
	int r;

	*out = NULL;
	if (node >= 0) {
		/* The model of this node, never another node's that happens to sit at this address. */
		own = ofl_sim_model_by_node(sim, node);
		if (!own) {
			if ((r = ofl_sim_attach(sim, fdt, node, err, sizeof(err))) < 0) {
				snprintf(why, wl, "%s", err);
				return r;
			}
			own = ofl_sim_model_by_node(sim, node);
		}
	}
	struct ofl_sim_block *b = ofl_sim_find_block(sim, phys, size);
	if (b && node >= 0 && !ofl_sim_block_of(b, own)) {
		snprintf(why, wl, "0x%llx+0x%llx is served by the model block \"%s\", which is not this "
			 "node's", (unsigned long long)phys, (unsigned long long)size, b->name);
		return -EBUSY;
	}
	if (!b) {
		snprintf(why, wl, "no model serves 0x%llx+0x%llx", (unsigned long long)phys,
			 (unsigned long long)size);
		return -ENODEV;
	}
	/* Offsets are relative to the region, and the block may start below it. */
	if (phys != b->phys) {
		snprintf(why, wl, "0x%llx+0x%llx starts inside the model block \"%s\" at 0x%llx",
			 (unsigned long long)phys, (unsigned long long)size, b->name,
			 (unsigned long long)b->phys);
		return -EINVAL;
	}
	*out = b;
	return 0;
}

/*
 * A context's world; OFFLOAD_SIM_TRACE names the register trace (sim.h);
 * OFFLOAD_SIM_UNCACHED=device makes its uncached memory device-type.
 */
static int world_new(bool noncoherent, struct ofl_sim **out, char *why, size_t wl)
{
	const char *trace = getenv("OFFLOAD_SIM_TRACE"), *unc = getenv("OFFLOAD_SIM_UNCACHED");

	if (unc && *unc && strcmp(unc, "device") != 0) {
		snprintf(why, wl, "OFFLOAD_SIM_UNCACHED=%s: the one value is \"device\" (uncached memory of "
			 "the models' world as arm64 Device memory); unset or empty: normal memory", unc);
		return -EINVAL;
	}
	const struct ofl_sim_opts o = { .noncoherent = noncoherent, .trace = trace && *trace ? trace : NULL,
					.uncached_device = unc && *unc };

	errno = 0;
	*out = ofl_sim_create(&o);
	if (*out)
		return 0;
	if (o.trace && errno && errno != ENOMEM) {
		int e = errno;
		snprintf(why, wl, "OFFLOAD_SIM_TRACE=%s: cannot append to it (%s)", o.trace,
			 e == ENXIO ? "a FIFO that no process has open for reading" : strerror(e));
		return -e;
	}
	snprintf(why, wl, "out of memory for the models' world");
	return -ENOMEM;
}

static void bus_error(struct ofl_sim_block *b, bool write, unsigned width, uint64_t off,
		      uint64_t region_size)
{
	ofl_sim_bus_error(b->sim, "%s of %u bytes at %s+0x%llx: outside the mapped region (0x%llx bytes "
			  "as the device tree declares it)", write ? "write" : "read", width, b->name,
			  (unsigned long long)off, (unsigned long long)region_size);
}

static const struct offload_sim_provider provider_template = {
	.abi = OFL_SIM_PROVIDER_ABI,
	.size = sizeof(struct offload_sim_provider),
	.version = OFFLOAD_VERSION_STRING,
	.board_dtb = ofl_sim_board_dtb, /* its size is set at first use: not a constant expression */
	.world_new = world_new,
	.world_free = ofl_sim_destroy,
	.cache_line = ofl_sim_cache_line,
	.dram = ofl_sim_dram,
	.map = ofl_sim_map,
	.read32 = ofl_sim_mmio_read32,
	.write32 = ofl_sim_mmio_write32,
	.read64 = ofl_sim_mmio_read64,
	.write64 = ofl_sim_mmio_write64,
	.read16 = ofl_sim_mmio_read16,
	.write16 = ofl_sim_mmio_write16,
	.bus_error = bus_error,
	.mem_alloc = ofl_sim_mem_alloc,
	.mem_free = ofl_sim_mem_free,
	.mem_clean = ofl_sim_mem_clean,
	.mem_inval = ofl_sim_mem_inval,
	.fw_xfer = ofl_sim_fw_xfer,
	.mem_device = ofl_sim_mem_device,
	.mem_access = ofl_sim_mem_access,
};

static struct offload_sim_provider provider;
static pthread_once_t provider_once = PTHREAD_ONCE_INIT;

static void provider_init(void)
{
	provider = provider_template;
	provider.board_dtb_size = ofl_sim_board_dtb_size;
}

const struct offload_sim_provider *offload_sim_provider(void)
{
	pthread_once(&provider_once, provider_init);
	return &provider;
}
