/* SPDX-License-Identifier: MIT */
/*
 * Per-device DMA decisions (docs/policy.md), each with a one-line reason
 * naming the device-tree node/property or the match data. The generic rules,
 * in the order they run around the engine's hook (struct ofl_backend.policy):
 *
 *  1. enabled: the node's status and every ancestor bus's;
 *  2. reg: reg[0] translated to a CPU address;
 *  3. coherency: Linux of_dma_is_coherent(); and the SoC doctor table;
 *  4. cache mode from coherency: coherent -> no maintenance, not coherent
 *     -> streaming;
 *  5. the engine's hook: caps, burst, alignment, threshold, transfer mode
 *     (it may refine coherency, or say the device does no DMA);
 *  6. after it, as it asks: the cache mode again, cache-line alignment of a
 *     streaming device's buffers; then the models' non-coherent memory
 *     system, and the engine's note for streaming devices.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

/* Default cache line when the DT gives no d-cache-line-size (Cortex-A53/A72 and the K3 cores). */
#define DEFAULT_LINE 64

#define WHY(field, ...) ofl_reason_set((field), sizeof(field), __VA_ARGS__)

/* Everything the rules need about the node. */
struct node_ctx {
	const void *fdt;
	int node;
	struct ofl_dt_chain chain;
	char path[OFL_DT_PATH_LEN];
};

static void decide_enabled(const struct node_ctx *n, struct ofl_policy *p)
{
	const char *st;

	p->enabled = ofl_dt_enabled(n->fdt, n->node, &st);
	if (!p->enabled) {
		WHY(p->enabled_reason, "status = \"%s\" on %s: listed, never used", st, n->path);
		return;
	}
	/* Linux of_platform_populate() does not descend into a disabled bus. */
	for (int i = n->chain.n - 2; i >= 1; i--) {
		if (!ofl_dt_enabled(n->fdt, n->chain.off[i], &st)) {
			char bus[OFL_DT_PATH_LEN];
			ofl_dt_chain_path(n->fdt, &n->chain, i, bus, sizeof(bus));
			p->enabled = false;
			WHY(p->enabled_reason, "its bus %s has status = \"%s\": Linux does not populate the "
			    "children of a disabled bus", bus, st);
			return;
		}
	}
	if (ofl_dt_has_prop(n->fdt, n->node, "status"))
		WHY(p->enabled_reason, "status = \"%s\" on %s", st, n->path);
	else
		WHY(p->enabled_reason, "no status property on %s: enabled", n->path);
}

/*
 * The node's bus has #address-cells but no #size-cells, and the two readings
 * differ: Linux takes the nearest ancestor's #size-cells (drivers/of/base.c
 * of_bus_n_size_cells(), walking up from the bus; deprecated upstream, which
 * warns), the devicetree specification and libfdt take 1. The reg was read
 * as Linux reads it (src/dt/address.c); the reason gives the other reading
 * of reg[0] (untranslated, in the bus's address space) so doctor can show
 * both.
 */
static void note_size_cells(const struct node_ctx *n, struct ofl_policy *p)
{
	const struct ofl_dt_chain *c = &n->chain;
	uint32_t na, ns = 1, v;
	int from = -1, len;

	if (c->n < 3 || !ofl_dt_prop_u32(n->fdt, c->off[c->n - 2], "#address-cells", &na) ||
	    ofl_dt_has_prop(n->fdt, c->off[c->n - 2], "#size-cells"))
		return;
	for (int i = c->n - 3; i >= 0 && from < 0; i--)
		if (ofl_dt_prop_u32(n->fdt, c->off[i], "#size-cells", &v)) {
			ns = v;
			from = i;
		}
	if (ns == 1)
		return;
	char bus[OFL_DT_PATH_LEN], anc[OFL_DT_PATH_LEN] = "the root's default";
	ofl_dt_chain_path(n->fdt, c, c->n - 2, bus, sizeof(bus));
	if (from >= 0)
		ofl_dt_chain_path(n->fdt, c, from, anc, sizeof(anc));
	const fdt32_t *reg = fdt_getprop(n->fdt, n->node, "reg", &len);
	char spec[96] = "it has no reg entry of that shape";
	if (reg && na >= 1 && na <= 2 && (size_t)len >= 4 * (size_t)(na + 1)) {
		uint64_t a = fdt32_to_cpu(reg[0]);
		if (na == 2)
			a = a << 32 | fdt32_to_cpu(reg[1]);
		snprintf(spec, sizeof(spec), "reg[0] is 0x%llx+0x%x", (unsigned long long)a,
			 fdt32_to_cpu(reg[na]));
	}
	ofl_reason_append(p->reg_reason, sizeof(p->reg_reason),
			  "%s has #address-cells but no #size-cells: read as Linux reads it, #size-cells = "
			  "%u inherited from %s (of_bus_n_size_cells(); deprecated upstream, which warns); "
			  "with #size-cells = 1 (the devicetree specification, libfdt) %s", bus, ns, anc,
			  spec);
}

static void decide_reg(const struct node_ctx *n, struct ofl_policy *p)
{
	int r = ofl_dt_reg_explain(n->fdt, &n->chain, 0, &p->reg_addr, &p->reg_size, p->reg_reason,
				   sizeof(p->reg_reason));

	p->reg_ok = r == 0;
	if (!p->reg_ok)
		p->reg_addr = p->reg_size = 0;
	note_size_cells(n, p);
}

static void decide_coherent(const struct node_ctx *n, struct ofl_policy *p)
{
	int decider = -1;
	int r = ofl_dt_dma_coherent_chain(n->fdt, &n->chain, &decider);

	p->coherent_node = decider;
	if (r < 0) {
		p->coherent = false;
		WHY(p->coherent_reason, "%s: its DMA parents cannot be followed (interconnects "
		    "\"dma-mem\" loop or dangling): treated as not coherent", n->path);
		return;
	}
	p->coherent = r == 1;
	if (decider < 0) {
		WHY(p->coherent_reason, "no dma-coherent or dma-noncoherent on %s or any DMA parent: "
		    "not coherent (Linux of_dma_is_coherent(); the arm/arm64 default; docs/policy.md "
		    "§1)", n->path);
		return;
	}
	int lvl = -1;
	for (int i = 0; i < n->chain.n; i++)
		if (n->chain.off[i] == decider)
			lvl = i;
	if (lvl >= 0)
		ofl_dt_chain_path(n->fdt, &n->chain, lvl, p->coherent_path, sizeof(p->coherent_path));
	else
		ofl_dt_path(n->fdt, decider, p->coherent_path, sizeof(p->coherent_path));
	/* Linux drivers/of/address.c of_dma_is_coherent() tests dma-coherent before dma-noncoherent */
	if (p->coherent && ofl_dt_has_prop(n->fdt, decider, "dma-noncoherent")) {
		WHY(p->coherent_reason, "both dma-coherent and dma-noncoherent on %s: the tree contradicts "
		    "itself; coherent, as Linux decides (of_dma_is_coherent() tests dma-coherent first; "
		    "docs/policy.md §1)", p->coherent_path);
		return;
	}
	WHY(p->coherent_reason, "%s on %s%s (the nearest of the node and its DMA parents; Linux "
	    "of_dma_is_coherent(); docs/policy.md §1)", p->coherent ? "dma-coherent" : "dma-noncoherent",
	    p->coherent_path, decider == n->node ? " itself" : "");
}

static void decide_soc_coherent(const struct node_ctx *n, struct ofl_policy *p)
{
	const struct ofl_soc_coherent *s = ofl_soc_coherent_lookup(n->fdt, n->node);

	p->soc_io_coherent = s != NULL;
	if (s)
		WHY(p->soc_io_coherent_reason, "%s (compatible \"%s\"): %s", s->soc, s->compatible,
		    s->source);
}

static void decide_cache(struct ofl_policy *p)
{
	if (p->coherent) {
		p->cache_mode = OFFLOAD_CACHE_COHERENT;
		WHY(p->cache_reason, "the device is coherent: no cache maintenance, as Linux dma-direct skips it for "
		    "coherent devices (dev_is_dma_coherent()); an invalidate could even drop data the "
		    "device left in the caches (docs/policy.md §2)");
	} else {
		p->cache_mode = OFFLOAD_CACHE_STREAMING;
		WHY(p->cache_reason, "the device is not coherent: streaming, as the Linux DMA API does "
		    "(dma_sync_single_for_device/_for_cpu): cached buffers, cleaned before the device "
		    "reads and invalidated before the CPU reads, by whole cache lines; uncached "
		    "buffers would make every CPU access 5-14x slower (u-dma-buf README tables; "
		    "docs/policy.md §2)");
	}
}

/* d-cache-line-size of the first CPU node that has one, else the default. */
static uint32_t cache_line(const void *fdt, const char **src)
{
	int cpus = fdt_path_offset(fdt, "/cpus"), cpu;
	uint32_t v;

	if (cpus >= 0) {
		fdt_for_each_subnode(cpu, fdt, cpus) {
			if (ofl_dt_prop_u32(fdt, cpu, "d-cache-line-size", &v) && v >= 16 && v <= 4096 &&
			    !(v & (v - 1))) {
				*src = "d-cache-line-size of the first CPU node";
				return v;
			}
		}
	}
	*src = "no d-cache-line-size in /cpus: the 64-byte line of the Cortex-A cores of these SoCs";
	return DEFAULT_LINE;
}

/* A streaming device's buffers must not share cache lines with CPU data. */
static void align_to_line(const void *fdt, struct ofl_policy *p)
{
	const char *src;
	uint32_t line;

	if (p->cache_mode != OFFLOAD_CACHE_STREAMING)
		return;
	line = cache_line(fdt, &src);
	if (p->align_bytes >= line)
		return;
	p->align_bytes = line;
	WHY(p->align_reason, "not coherent: buffers the device writes are invalidated by whole %u-byte "
	    "cache lines (%s; docs/policy.md §4)", line, src);
}

/*
 * The models' non-coherent memory system (OFFLOAD_CTX_SIM_NONCOHERENT) for a
 * device whose data moves through DMA memory the library gives it: the CPU
 * and the device see that memory only through clean and invalidate, whatever
 * the tree's dma-coherent says.
 */
static void sim_noncoherent(const struct ofl_backend *engine, struct ofl_policy *p)
{
	const uint32_t dma_caps = OFFLOAD_CAP_MEMCPY | OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH;

	if (!(engine->flags & OFL_BE_DMA_MEMORY) || !(p->caps & dma_caps) ||
	    p->cache_mode != OFFLOAD_CACHE_COHERENT)
		return;
	p->cache_mode = OFFLOAD_CACHE_STREAMING;
	WHY(p->cache_reason, "streaming: OFFLOAD_CTX_SIM_NONCOHERENT emulates a non-coherent memory "
	    "system (sim), overriding the device tree's dma-coherent");
}

static void policy_init(struct ofl_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->coherent_node = -1;
	p->best_tpl = -1;
	p->align_bytes = 1;
}

int ofl_policy_compute(const void *fdt, int node, const struct ofl_backend *engine,
		       const struct ofl_dt_id *match, const struct ofl_policy_opts *opts,
		       struct ofl_policy *out)
{
	struct node_ctx n = { .fdt = fdt, .node = node };
	struct ofl_policy_req req = { 0 };

	if (!out)
		return -EINVAL;
	policy_init(out);
	if (!fdt || !engine || !engine->policy || !match || !match->data ||
	    ofl_dt_chain(fdt, node, &n.chain) < 0)
		return -EINVAL;
	ofl_dt_chain_path(fdt, &n.chain, n.chain.n - 1, n.path, sizeof(n.path));
	decide_enabled(&n, out);
	decide_reg(&n, out);
	decide_coherent(&n, out);
	decide_soc_coherent(&n, out);
	decide_cache(out);

	const struct ofl_policy_in in = {
		.fdt = fdt, .node = node, .path = n.path, .chain = &n.chain, .match = match,
		.memcpy_threshold = &ofl_threshold_memcpy, .crypto_threshold = &ofl_threshold_crypto,
	};
	engine->policy(&in, out, &req);

	if (req.flags & OFL_POLICY_RECACHE)
		decide_cache(out);
	if (req.flags & OFL_POLICY_ALIGN_LINE)
		align_to_line(fdt, out);
	if (opts && opts->sim_noncoherent)
		sim_noncoherent(engine, out);
	if (out->cache_mode == OFFLOAD_CACHE_STREAMING && req.streaming_note && req.streaming_note[0])
		ofl_reason_append(out->cache_reason, sizeof(out->cache_reason), "%s", req.streaming_note);
	return 0;
}

void ofl_policy_pseudo(const struct ofl_pseudo_dev *ps, struct ofl_policy *p)
{
	policy_init(p);
	p->enabled = true;
	p->caps = ps->caps;
	/* no DMA the library would maintain: the CPU itself, or a kernel driver that maps the buffers */
	p->coherent = true;
	WHY(p->coherent_reason, "%s", ps->coherent_reason);
	p->cache_mode = OFFLOAD_CACHE_COHERENT;
	WHY(p->cache_reason, "%s", ps->cache_reason);
	WHY(p->burst_reason, "%s", ps->burst_reason);
	WHY(p->align_reason, "%s", ps->align_reason);
	p->threshold_bytes = ps->threshold_bytes;
	WHY(p->threshold_reason, "%s", ps->threshold_reason);
	ofl_strlcpy(p->transfer_mode, ps->transfer_mode, sizeof(p->transfer_mode));
	WHY(p->transfer_reason, "%s", ps->transfer_reason);
}
