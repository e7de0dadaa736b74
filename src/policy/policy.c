/* SPDX-License-Identifier: MIT */
/*
 * Per-device DMA decisions (docs/policy.md), each with a one-line
 * reason naming the device-tree node/property or the capability-table row:
 *
 *  1. coherency: Linux of_dma_is_coherent() (plus, for BCDMA memcpy, the
 *     ASEL rule of k3_configure_chan_coherency());
 *  2. cache mode: coherent -> no maintenance; not coherent -> streaming;
 *     no DMA at all (DSPI in a PIO mode) -> nothing to maintain;
 *  3. burst and alignment: the table row, refined by what the node says
 *     about its channel classes;
 *  4. offload threshold: a documented default per engine;
 *  5. transfer mode: what the Linux driver does for this devtype.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"
#include "dt/dt_int.h"
#include "policy/policy.h"

/* TI-SCI resource subtypes of UDMAP TX channels (as the K3 device trees list them). */
#define TISCI_TX_HCHAN 0x0f
#define TISCI_TX_UHCHAN 0x10

/* Default cache line when the DT gives no d-cache-line-size (Cortex-A53/A72 and the K3 cores). */
#define DEFAULT_LINE 64

static void why(char *buf, const char *fmt, ...) OFL_PRINTF(2, 3);
static void why(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, OFL_REASON_LEN, fmt, ap);
	va_end(ap);
}

static const char *class_name(int tpl)
{
	static const char *const names[] = { "normal", "H", "UH" };

	return tpl >= 0 && tpl < 3 ? names[tpl] : "-";
}

/* Everything policy_* need about the node. */
struct node_ctx {
	const void *fdt;
	const struct ofl_dt_match *m;
	struct ofl_dt_chain chain;
	char path[OFL_DT_PATH_LEN];
};

/* ---------------------------------------------------------------- common */

static void decide_enabled(const struct node_ctx *n, struct ofl_policy *p)
{
	const char *st;

	p->enabled = ofl_dt_enabled(n->fdt, n->m->node, &st);
	if (!p->enabled) {
		why(p->enabled_reason, "status = \"%s\" on %s: listed, never used", st, n->path);
		return;
	}
	/* Linux of_platform_populate() does not descend into a disabled bus. */
	for (int i = n->chain.n - 2; i >= 1; i--) {
		if (!ofl_dt_enabled(n->fdt, n->chain.off[i], &st)) {
			char bus[OFL_DT_PATH_LEN];
			ofl_dt_chain_path(n->fdt, &n->chain, i, bus, sizeof(bus));
			p->enabled = false;
			why(p->enabled_reason, "its bus %s has status = \"%s\": Linux does not populate the "
			    "children of a disabled bus", bus, st);
			return;
		}
	}
	if (ofl_dt_has_prop(n->fdt, n->m->node, "status"))
		why(p->enabled_reason, "status = \"%s\" on %s", st, n->path);
	else
		why(p->enabled_reason, "no status property on %s: enabled", n->path);
}

static void decide_reg(const struct node_ctx *n, struct ofl_policy *p)
{
	int r = ofl_dt_reg_explain(n->fdt, &n->chain, 0, &p->reg_addr, &p->reg_size, p->reg_reason,
				   sizeof(p->reg_reason));

	p->reg_ok = r == 0;
	if (!p->reg_ok)
		p->reg_addr = p->reg_size = 0;
}

static void decide_coherent(const struct node_ctx *n, struct ofl_policy *p)
{
	int decider = -1;
	int r = ofl_dt_dma_coherent_chain(n->fdt, &n->chain, &decider);

	p->coherent_node = decider;
	if (r < 0) {
		p->coherent = false;
		why(p->coherent_reason, "%s: its DMA parents cannot be followed (interconnects "
		    "\"dma-mem\" loop or dangling): treated as not coherent", n->path);
		return;
	}
	p->coherent = r == 1;
	if (decider < 0) {
		why(p->coherent_reason, "no dma-coherent or dma-noncoherent on %s or any DMA parent: "
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
	why(p->coherent_reason, "%s on %s%s (the nearest of the node and its DMA parents; Linux "
	    "of_dma_is_coherent(); docs/policy.md §1)", p->coherent ? "dma-coherent" : "dma-noncoherent",
	    p->coherent_path,
	    decider == n->m->node ? " itself" : "");
}

static void decide_soc_coherent(const struct node_ctx *n, struct ofl_policy *p)
{
	const struct ofl_soc_coherent *s = ofl_soc_coherent_lookup(n->fdt, n->m->node);

	p->soc_io_coherent = s != NULL;
	if (s)
		why(p->soc_io_coherent_reason, "%s (compatible \"%s\"): %s", s->soc, s->compatible,
		    s->source);
}

static void decide_cache(struct ofl_policy *p)
{
	if (p->coherent) {
		p->cache_mode = OFFLOAD_CACHE_COHERENT;
		why(p->cache_reason, "the device is coherent: no cache maintenance, as Linux dma-direct skips it for "
		    "coherent devices (dev_is_dma_coherent()); an invalidate could even drop data the "
		    "device left in the caches (docs/policy.md §2)");
	} else {
		p->cache_mode = OFFLOAD_CACHE_STREAMING;
		why(p->cache_reason, "the device is not coherent: streaming, as the Linux DMA API does "
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
	why(p->align_reason, "not coherent: buffers the device writes are invalidated by whole %u-byte "
	    "cache lines (%s; docs/policy.md §4)", line, src);
}

/* ---------------------------------------------------------------- K3 UDMA / BCDMA / PKTDMA */

/* Does a u32 array property list value v? */
static bool prop_lists(const void *fdt, int node, const char *name, uint32_t v, bool *present)
{
	int len;
	const uint8_t *a = fdt_getprop(fdt, node, name, &len);

	*present = a != NULL;
	for (int o = 0; a && o + 4 <= len; o += 4)
		if (ofl_dt_be32(a + o) == v)
			return true;
	return false;
}

/*
 * The highest channel class a memcpy can get on this instance and how we
 * know: the table's classes (burst 0 = "No H/UH channels" in Linux), the
 * AM654 hard-coded split, and for UDMA the TI-SCI subtypes the node asks the
 * firmware for (a class whose subtype is not listed is not given to this host).
 */
static int udma_best_class(const struct node_ctx *n, char *how, size_t len)
{
	const struct ofl_soc_entry *e = ofl_soc_of(n->m);
	int best = e->u.udma.burst[OFL_UDMA_UH] ? OFL_UDMA_UH : e->u.udma.burst[OFL_UDMA_H] ? OFL_UDMA_H : OFL_UDMA_NORMAL;
	bool present;

	if (e->u.udma.am654_tpl_quirk) {
		snprintf(how, len, "channels 0-%d are H (Linux hard-codes the AM654 split)",
			 e->u.udma.am654_tpl_quirk - 1);
		return OFL_UDMA_H;
	}
	if (e->engine != OFL_ENGINE_UDMA || best == OFL_UDMA_NORMAL) {
		snprintf(how, len, "the match data has no %s channels",
			 best == OFL_UDMA_NORMAL ? "H or UH" : "UH");
		return best;
	}
	bool uh = prop_lists(n->fdt, n->m->node, "ti,sci-rm-range-tchan", TISCI_TX_UHCHAN, &present);
	bool h = prop_lists(n->fdt, n->m->node, "ti,sci-rm-range-tchan", TISCI_TX_HCHAN, &present);
	if (!present) {
		snprintf(how, len, "assumed: no ti,sci-rm-range-tchan, GCFG CAP3 decides at run time");
		return best;
	}
	if (uh && best == OFL_UDMA_UH) {
		snprintf(how, len, "ti,sci-rm-range-tchan lists TX_UHCHAN (0x10)");
		return OFL_UDMA_UH;
	}
	if (h) {
		snprintf(how, len, "ti,sci-rm-range-tchan lists TX_HCHAN (0x0f)%s",
			 best == OFL_UDMA_UH ? " but not TX_UHCHAN" : "");
		return OFL_UDMA_H;
	}
	snprintf(how, len, "ti,sci-rm-range-tchan lists neither TX_HCHAN nor TX_UHCHAN");
	return OFL_UDMA_NORMAL;
}

static void udma_coherent_asel(const struct node_ctx *n, struct ofl_policy *p)
{
	uint32_t asel;

	/* k3_configure_chan_coherency(): memcpy bchans use the device-wide ti,asel. */
	if (!ofl_soc_of(n->m)->u.udma.bcdma || !ofl_soc_of(n->m)->u.udma.memcpy)
		return;
	if (!ofl_dt_prop_u32(n->fdt, n->m->node, "ti,asel", &asel)) {
		size_t l = strlen(p->coherent_reason);
		snprintf(p->coherent_reason + l, sizeof(p->coherent_reason) - l,
			 "; no ti,asel (ASEL 0): memcpy channels are not made coherent");
		return;
	}
	if (asel == 14 || asel == 15) {
		p->coherent = true;
		p->coherent_node = n->m->node;
		ofl_strlcpy(p->coherent_path, n->path, sizeof(p->coherent_path));
		why(p->coherent_reason, "ti,asel = %u on %s: Linux k3_configure_chan_coherency() makes "
		    "memcpy channels with ASEL 14/15 coherent (48-bit DMA mask)", asel, n->path);
	} else {
		size_t l = strlen(p->coherent_reason);
		snprintf(p->coherent_reason + l, sizeof(p->coherent_reason) - l,
			 "; ti,asel = %u is not a coherent ASEL (14/15)", asel);
	}
}

static void policy_udma(const struct node_ctx *n, struct ofl_policy *p)
{
	const struct ofl_soc_entry *e = ofl_soc_of(n->m);
	char how[160];

	for (int i = 0; i < 3; i++)
		p->burst_by_tpl[i] = e->u.udma.burst[i];
	udma_coherent_asel(n, p);
	decide_cache(p);
	if (!e->u.udma.memcpy) {
		p->caps = 0;
		p->best_tpl = -1;
		p->burst_bytes = 0;
		why(p->burst_reason, "no memcpy on this instance (%s: enable_memcpy_support = false)%s",
		    e->source, e->u.udma.pktdma ? ": PKTDMA cannot do mem-to-mem" : "");
		p->align_bytes = 8;
		why(p->align_reason, "%s without memcpy: Linux copy_align is 8 B", e->source);
		p->threshold_bytes = 0;
		why(p->threshold_reason, "no memcpy on this instance: nothing to offload");
		ofl_strlcpy(p->transfer_mode, "none", sizeof(p->transfer_mode));
		why(p->transfer_reason, "%s: slave (peripheral) channels only; liboffload offloads "
		    "memcpy", e->source);
		return;
	}
	p->caps = OFFLOAD_CAP_MEMCPY;
	p->best_tpl = udma_best_class(n, how, sizeof(how));
	p->burst_bytes = e->u.udma.burst[p->best_tpl];
	p->burst_programmed = e->u.udma.burst_programmable;
	if (e->u.udma.burst_programmable)
		why(p->burst_reason, "%s burst_size [normal %u, H %u, UH %u] B with BURST_SIZE: memcpy "
		    "takes the top free class, %s (%s): %u B sent via TI-SCI (docs/policy.md §3)",
		    e->source,
		    e->u.udma.burst[0], e->u.udma.burst[1], e->u.udma.burst[2], class_name(p->best_tpl),
		    how, p->burst_bytes);
	else
		why(p->burst_reason, "%s has no BURST_SIZE flag: Linux sends no burst size, the hardware "
		    "default 64 B applies (memcpy class %s: %s; docs/policy.md §3)", e->source,
		    class_name(p->best_tpl), how);
	/* udma_get_copy_align(): the burst of channel 0's class, the top one. */
	unsigned b = e->u.udma.burst[p->best_tpl];
	p->align_bytes = b >= 256 ? 256 : b >= 128 ? 128 : 64;
	why(p->align_reason, "Linux udma_get_copy_align(): channel 0 is class %s (%s), burst %u B -> "
	    "copy_align %u B (docs/policy.md §4)", class_name(p->best_tpl), how, b, p->align_bytes);
	align_to_line(n->fdt, p);
	p->threshold_bytes = ofl_threshold_memcpy.bytes;
	why(p->threshold_reason, "%s", ofl_threshold_memcpy.source);
	if (e->u.udma.bcdma) {
		ofl_strlcpy(p->transfer_mode, "tr15-bchan", sizeof(p->transfer_mode));
		why(p->transfer_reason, "Linux udma_prep_dma_memcpy() on a block-copy channel (bchan): "
		    "one TR descriptor of type-15 TRs, rows of at most 64 KiB (udma_get_tr_counters(); "
		    "docs/policy.md §6)");
	} else {
		ofl_strlcpy(p->transfer_mode, "tr15-pair", sizeof(p->transfer_mode));
		why(p->transfer_reason, "Linux udma_prep_dma_memcpy() on a tchan/rchan pair: one TR "
		    "descriptor of type-15 TRs, rows of at most 64 KiB (udma_get_tr_counters(); "
		    "docs/policy.md §6)");
	}
}

/* ---------------------------------------------------------------- DSPI */

static const char *dspi_mode_name(enum ofl_dspi_mode m)
{
	switch (m) {
	case OFL_DSPI_XSPI: return "xspi-pio";
	case OFL_DSPI_DMA: return "dma";
	case OFL_DSPI_EOQ: return "eoq-pio";
	case OFL_DSPI_TCFQ: return "tcfq-pio";
	}
	return "?";
}

static void policy_dspi(const struct node_ctx *n, struct ofl_policy *p)
{
	const struct ofl_soc_entry *e = ofl_soc_of(n->m);
	enum ofl_dspi_mode mode = e->u.dspi.mode;
	const char *src = e->source;
	uint32_t ncs = 0;

	if (e->u.dspi.target_source && ofl_dt_has_prop(n->fdt, n->m->node, "spi-slave")) {
		mode = OFL_DSPI_DMA;
		src = e->u.dspi.target_source;
	}
	p->caps = OFFLOAD_CAP_SPI;
	ofl_strlcpy(p->transfer_mode, dspi_mode_name(mode), sizeof(p->transfer_mode));
	ofl_dt_prop_u32(n->fdt, n->m->node, "spi-num-chipselects", &ncs);
	why(p->transfer_reason, "%s: %s, FIFO %u entries, max SCK = clock/%u, %u CTARs; %u native "
	    "chip selects (spi-num-chipselects)", src,
	    mode == OFL_DSPI_XSPI ? "XSPI mode, the CPU polls the FIFOs (PUSHR/POPR)"
	    : mode == OFL_DSPI_DMA ? "DMA mode through the eDMA channels in dmas"
				   : "PIO mode",
	    e->u.dspi.fifo_size, e->u.dspi.max_clock_factor, e->u.dspi.num_ctar, ncs);
	p->threshold_bytes = 0;
	why(p->threshold_reason, "SPI has no CPU fallback: every transfer goes to the controller");
	p->burst_bytes = 0;
	p->best_tpl = -1;
	p->align_bytes = 1;
	if (mode != OFL_DSPI_DMA) {
		why(p->burst_reason, "%s: no DMA bursts, the CPU moves up to %u FIFO entries per batch",
		    dspi_mode_name(mode), e->u.dspi.fifo_size);
		why(p->align_reason, "PIO: words are pushed one at a time, any alignment");
		p->cache_mode = OFFLOAD_CACHE_COHERENT;
		why(p->cache_reason, "no DMA in %s: nothing to maintain, so DMA-buffer coherency cannot "
		    "change SPI throughput (1845.2 vs 1846.5 kbps measured in XSPI mode for \"spi: "
		    "spi-fsl-dspi: Use non-coherent memory for DMA\", 2025; docs/policy.md §2)",
		    dspi_mode_name(mode));
		return;
	}
	why(p->burst_reason, "DMA mode: bursts are the eDMA controller's (dmas), not the DSPI's");
	why(p->align_reason, "Linux copies through its own DMA buffer: any alignment");
	decide_cache(p);
}

/* ---------------------------------------------------------------- SafeXcel */

static void policy_eip(const struct node_ctx *n, struct ofl_policy *p)
{
	const struct ofl_soc_entry *e = ofl_soc_of(n->m);

	p->caps = OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH;
	p->best_tpl = -1;
	decide_cache(p);
	if (!p->coherent) {
		size_t l = strlen(p->cache_reason);
		snprintf(p->cache_reason + l, sizeof(p->cache_reason) - l,
			 "; rings and context records uncached, as Linux dma_alloc_coherent does");
	}
	p->burst_bytes = 0;
	why(p->burst_reason, "set once in DFE_CFG/DSE_CFG, not per buffer (Linux safexcel.c "
	    "safexcel_hw_init(): fetch 64..512 B, store 128..256 B; docs/policy.md §3)");
	p->align_bytes = 1;
	why(p->align_reason, "command descriptors address data by byte (Linux safexcel_ring.c "
	    "safexcel_add_cdesc()): any alignment (docs/policy.md §4)");
	align_to_line(n->fdt, p);
	p->threshold_bytes = ofl_threshold_crypto.bytes;
	why(p->threshold_reason, "%s", ofl_threshold_crypto.source);
	ofl_strlcpy(p->transfer_mode, "ring", sizeof(p->transfer_mode));
	if (e->u.eip.eip197)
		why(p->transfer_reason, "%s: EIP197 layout expected (HIA 0x90000, PE 0xa0000) with "
		    "classifier firmware; Linux confirms the layout from the signature at 0x9fffc",
		    e->source);
	else
		why(p->transfer_reason, "%s: EIP97 layout (HIA 0x0, DFE 0xf000, DSE 0xf400, PE 0x10000), "
		    "command/result descriptor rings, one PE; Linux confirms it from the EIP-202 "
		    "signature at 0xfffc", e->source);
}

/* ---------------------------------------------------------------- entry */

int ofl_policy_compute(const void *fdt, const struct ofl_dt_match *m, struct ofl_policy *out)
{
	struct node_ctx n = { .fdt = fdt, .m = m };

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->coherent_node = -1;
	out->best_tpl = -1;
	out->align_bytes = 1;
	if (!fdt || !m || !m->id || !m->id->data || ofl_dt_chain(fdt, m->node, &n.chain) < 0)
		return -EINVAL;
	out->soc = ofl_soc_of(m);
	ofl_dt_chain_path(fdt, &n.chain, n.chain.n - 1, n.path, sizeof(n.path));
	decide_enabled(&n, out);
	decide_reg(&n, out);
	decide_coherent(&n, out);
	decide_soc_coherent(&n, out);
	switch (out->soc->engine) {
	case OFL_ENGINE_UDMA:
	case OFL_ENGINE_BCDMA:
	case OFL_ENGINE_PKTDMA:
		policy_udma(&n, out);
		break;
	case OFL_ENGINE_DSPI:
		policy_dspi(&n, out);
		break;
	case OFL_ENGINE_EIP97:
	case OFL_ENGINE_EIP197:
		policy_eip(&n, out);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}
