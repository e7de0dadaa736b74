/* SPDX-License-Identifier: MIT */
/*
 * offloadctl doctor: findings a board maintainer can act on, each with a
 * severity, the evidence and the action. Exit status 1 if any warning.
 *
 * Uses only the public API (offload_dev_get_info): everything it reports is
 * something the library decided and can justify. Checks are a table; a
 * module that knows more about the live system adds a row (the AF_ALG
 * check asks the af_alg device which kernel driver serves each algorithm;
 * the dma-buf check makes one page-sized dma-buf with each exporter).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli.h"

enum severity { SEV_INFO, SEV_WARNING };

/* Before the action of a finding about a simulated device. */
#define SIM_ACTION "(simulated device: this advice is for the SoC being modelled, not this machine) "

struct finding {
	enum severity sev;
	char code[32];
	const char *device;  /* DT path or name, owned by the context */
	bool sim;            /* about a simulated device: advice for the modelled SoC */
	bool host;           /* about the machine doctor runs on, not the tree's board */
	char summary[320];
	char evidence[1024];
	char action[320];
};

struct report {
	struct finding *f;
	int n, cap;
	int warnings;
	bool oom; /* a finding could not be stored: the report is incomplete */
};

static struct finding *add(struct report *r, enum severity sev, const char *code,
			   const struct offload_dev_info *d)
{
	if (r->n == r->cap) {
		int ncap = r->cap ? 2 * r->cap : 16;
		struct finding *nf = realloc(r->f, (size_t)ncap * sizeof(*nf));
		if (!nf) {
			r->oom = true;
			return NULL;
		}
		r->f = nf;
		r->cap = ncap;
	}
	struct finding *f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	f->sev = sev;
	snprintf(f->code, sizeof(f->code), "%s", code);
	f->device = d ? (d->dt_path[0] ? d->dt_path : d->name) : "";
	f->sim = d && (d->flags & OFFLOAD_DEVF_SIM);
	if (sev == SEV_WARNING)
		r->warnings++;
	return f;
}

static void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static bool is_k3(const char *kind)
{
	return strcmp(kind, "k3-udma") == 0 || strcmp(kind, "k3-bcdma") == 0 ||
	       strcmp(kind, "k3-pktdma") == 0;
}

static const char *class_name(int c)
{
	static const char *const n[] = { "normal", "H", "UH" };

	return c >= 0 && c < 3 ? n[c] : "-";
}

/* ------------------------------------------------------------------ checks */

static void check_disabled(struct report *r, const struct offload_dev_info *d)
{
	struct finding *f = add(r, SEV_INFO, "engine-disabled", d);

	if (!f)
		return;
	put(f->summary, sizeof(f->summary), "%s engine present but disabled: liboffload lists it and "
	    "never uses it", d->kind);
	put(f->evidence, sizeof(f->evidence), "%s", d->usable_reason);
	put(f->action, sizeof(f->action), "if the board wires it up and needs it, set status = "
	    "\"okay\" in the board device tree");
}

static void check_address(struct report *r, const struct offload_dev_info *d)
{
	if (d->phys_size)
		return;
	struct finding *f = add(r, SEV_WARNING, "no-cpu-address", d);
	if (!f)
		return;
	put(f->summary, sizeof(f->summary), "enabled %s engine without a CPU address: no direct "
	    "backend can map its registers", d->kind);
	put(f->evidence, sizeof(f->evidence), "%s", d->phys_reason);
	put(f->action, sizeof(f->action), "give the node a reg, and every bus above it a ranges "
	    "(empty for 1:1)");
}

static void check_io_coherent(struct report *r, const struct offload_dev_info *d)
{
	if (!d->soc_io_coherent || d->coherent)
		return;
	struct finding *f = add(r, SEV_WARNING, "missing-dma-coherent", d);
	if (!f)
		return;
	put(f->summary, sizeof(f->summary), "the SoC is I/O-coherent but the node is not marked "
	    "dma-coherent, so every DMA buffer gets cache maintenance (%s)",
	    d->cache_mode == OFFLOAD_CACHE_STREAMING ? "streaming" : "uncached");
	put(f->evidence, sizeof(f->evidence), "%s; device tree: %s", d->soc_io_coherent_reason,
	    d->coherent_reason);
	put(f->action, sizeof(f->action), "add `dma-coherent;` to %s (liboffload keeps the device "
	    "tree's safe choice until then)", d->dt_path);
}

/* Both dma-coherent and dma-noncoherent on the node that decides (src/policy says so in the reason). */
static void check_coherent_contradiction(struct report *r, const struct offload_dev_info *d)
{
	if (!strstr(d->coherent_reason, "both dma-coherent and dma-noncoherent"))
		return;
	struct finding *f = add(r, SEV_WARNING, "dma-coherent-contradiction", d);
	if (!f)
		return;
	put(f->summary, sizeof(f->summary), "the device tree marks the node both dma-coherent and "
	    "dma-noncoherent; taken as coherent, as Linux does");
	put(f->evidence, sizeof(f->evidence), "%s", d->coherent_reason);
	put(f->action, sizeof(f->action), "remove the property that is wrong for the hardware (a "
	    "non-coherent device taken as coherent reads stale data)");
}

/* A bus with #address-cells but no #size-cells, where Linux and the spec read reg differently (src/policy). */
static void check_size_cells(struct report *r, const struct offload_dev_info *d)
{
	const char *m = strstr(d->phys_reason, "has #address-cells but no #size-cells");
	if (!m)
		return;
	struct finding *f = add(r, SEV_WARNING, "size-cells-missing", d);
	if (!f)
		return;
	put(f->summary, sizeof(f->summary), "a bus above the node has #address-cells but no "
	    "#size-cells: Linux inherits the size cells (deprecated), the specification reads 1, "
	    "and the two read its reg differently");
	put(f->evidence, sizeof(f->evidence), "read as Linux: 0x%llx+0x%llx; %s",
	    (unsigned long long)d->phys_addr, (unsigned long long)d->phys_size, d->phys_reason);
	put(f->action, sizeof(f->action), "give the bus its own #size-cells");
}

static void check_dspi_pio(struct report *r, const struct offload_dev_info *d)
{
	if (strcmp(d->kind, "dspi") != 0 || strcmp(d->transfer_mode, "dma") == 0)
		return;
	struct finding *f = add(r, SEV_INFO, "dspi-pio-mode", d);
	if (!f)
		return;
	put(f->summary, sizeof(f->summary), "Linux drives this DSPI in %s mode (the CPU polls the "
	    "FIFO): DMA-buffer coherency cannot change spidev throughput", d->transfer_mode);
	put(f->evidence, sizeof(f->evidence), "%s; when Linux moved this driver's DMA buffers from "
	    "coherent to non-coherent memory (\"spi: spi-fsl-dspi: Use non-coherent memory for "
	    "DMA\", 2025) spidev_test measured 1845.2 vs 1846.5 kbps in XSPI mode, i.e. no change "
	    "(docs/policy.md §2, §8)", d->transfer_reason);
	put(f->action, sizeof(f->action), "do not tune dma-coherent or DMA buffers for this "
	    "controller; spi-max-frequency and transfer batching decide its throughput");
}

static void check_k3_memcpy(struct report *r, const struct offload_dev_info *d)
{
	if (!is_k3(d->kind))
		return;
	struct finding *f = add(r, SEV_INFO, "udma-memcpy", d);
	if (!f)
		return;
	if (!(d->caps & OFFLOAD_CAP_MEMCPY)) {
		put(f->summary, sizeof(f->summary), "no memcpy on this %s instance", d->kind);
		put(f->evidence, sizeof(f->evidence), "%s", d->burst_reason);
		put(f->action, sizeof(f->action), "copy with another instance or the CPU");
		return;
	}
	put(f->summary, sizeof(f->summary), "best memcpy channel class: %s, burst %" PRIu32 " B "
	    "(normal %" PRIu32 ", H %" PRIu32 ", UH %" PRIu32 " B), copy alignment %" PRIu32 " B",
	    class_name(d->memcpy_class), d->burst_bytes, d->burst_by_class[0], d->burst_by_class[1],
	    d->burst_by_class[2], d->align_bytes);
	put(f->evidence, sizeof(f->evidence), "%s; %s; buffers %s: %s", d->burst_reason,
	    d->align_reason, d->coherent ? "need no cache maintenance" : "are cleaned/invalidated",
	    d->coherent_reason);
	put(f->action, sizeof(f->action), "align buffers and lengths to %" PRIu32 " B for full "
	    "speed%s", d->align_bytes, d->burst_bytes >= 256 ? " (J721E UCHAN memcpy, published "
	    "for \"dmaengine: ti: k3-udma: memcpy throughput improvement\": ~1.8 GB/s with 256-byte "
	    "bursts and aligned buffers, ~1.7 GB/s unaligned; docs/policy.md §3)" : "");
}

/* Findings from the device tree, per device. */
static void check_devices(struct report *r, offload_ctx *ctx)
{
	int n = offload_dev_count(ctx), engines = 0;

	for (int i = 0; i < n; i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) < 0 || !d.dt_path[0])
			continue;
		engines++;
		if (!(d.flags & OFFLOAD_DEVF_ENABLED)) {
			check_disabled(r, &d);
			continue;
		}
		check_address(r, &d);
		check_io_coherent(r, &d);
		check_coherent_contradiction(r, &d);
		check_size_cells(r, &d);
		check_dspi_pio(r, &d);
		check_k3_memcpy(r, &d);
	}
	if (!engines) {
		struct finding *f = add(r, SEV_INFO, "no-engines", NULL);
		if (!f)
			return;
		put(f->summary, sizeof(f->summary), "no K3 UDMA/BCDMA, DSPI or SafeXcel engine in the "
		    "device tree: the CPU serves every operation");
		put(f->evidence, sizeof(f->evidence), "device tree %s", offload_ctx_dt_source(ctx));
		put(f->action, sizeof(f->action), "none");
	}
}

/* An enabled crypto engine of the device tree (EIP97, ...), or NULL. */
static bool find_crypto_engine(offload_ctx *ctx, struct offload_dev_info *out)
{
	for (int i = 0; i < offload_dev_count(ctx); i++)
		if (offload_dev_get_info(ctx, i, out, sizeof(*out)) == 0 && out->dt_path[0] &&
		    (out->flags & OFFLOAD_DEVF_ENABLED) &&
		    (out->caps & (OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH)))
			return true;
	return false;
}

/*
 * Does AF_ALG reach a hardware driver for each algorithm? Found as an
 * application finds it: one operation per algorithm on the af_alg device,
 * reading offload_result.driver and OFFLOAD_RES_HARDWARE (the backend takes
 * the driver from /proc/crypto, or OFFLOAD_PROC_CRYPTO). Linux 7.2
 * deprecated AF_ALG, which since then no longer reaches off-CPU
 * accelerators (DESIGN.md; kernel commit a67afb18 and its follow-up).
 * Silent when the kcapi backend is not built, excluded or unavailable:
 * list and offload_backend_status() say why.
 */
static void check_af_alg(struct report *r, offload_ctx *ctx)
{
	struct offload_dev_info d, eng;
	struct cli_alg_probe p[CLI_PROBE_MAX];
	struct utsname u;
	char algs[1024];
	int hw, unavailable;

	int dev = offload_dev_find(ctx, "af_alg");
	if (offload_backend_status(ctx, "kcapi", NULL) != 1 || dev < 0 ||
	    offload_dev_get_info(ctx, dev, &d, sizeof(d)) < 0)
		return;
	int n = cli_crypto_probe(ctx, dev, p, CLI_PROBE_MAX);
	if (n <= 0)
		return;
	int avail = cli_probe_evidence(p, n, algs, sizeof(algs), &hw, &unavailable);
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	bool deprecated = cli_af_alg_deprecated(u.release);
	bool engine = find_crypto_engine(ctx, &eng);
	/* An engine of the tree that neither AF_ALG nor a direct backend reaches
	 * is worth a warning. */
	bool stranded = engine && hw == 0 && !(eng.flags & OFFLOAD_DEVF_USABLE);
	struct finding *f = add(r, stranded ? SEV_WARNING : SEV_INFO, "af-alg-drivers", &d);
	if (!f)
		return;
	f->host = true; /* this kernel's AF_ALG */
	if (hw == avail && avail > 0)
		put(f->summary, sizeof(f->summary),
		    "AF_ALG reaches a hardware driver for every available algorithm (%d)", avail);
	else
		put(f->summary, sizeof(f->summary),
		    "AF_ALG reaches a hardware driver for %d of %d available algorithms%s", hw, avail,
		    engine && hw == 0 ? ", although the device tree has a crypto engine" : "");
	const char *pc = getenv("OFFLOAD_PROC_CRYPTO");
	put(f->evidence, sizeof(f->evidence), "Linux %s; driver names from %s; %d not in this "
	    "kernel; %s", u.release, pc && *pc ? pc : "/proc/crypto", unavailable, algs);
	if (deprecated)
		put(f->action, sizeof(f->action), "Linux %s is 7.2 or later: AF_ALG no longer reaches "
		    "off-CPU accelerators there (kernel documentation commit 5624ea54, May 2026; 7.2 as "
		    "Phoronix reports it; docs/policy.md §7); use a direct backend (eip97) for the "
		    "engine", u.release);
	else if (engine && hw < avail)
		put(f->action, sizeof(f->action), "load the kernel driver of %s (%s; crypto_safexcel "
		    "for the Inside Secure EIP97/EIP197) so that AF_ALG reaches it, or use the "
		    "direct eip97 backend", eng.dt_path, eng.compatible);
	else if (hw < avail)
		put(f->action, sizeof(f->action), "none: software kernel drivers behind AF_ALG are "
		    "slower than the CPU backend, so automatic selection leaves them alone");
	else
		put(f->action, sizeof(f->action), "none");
}

/*
 * Which of the kernel's dma-buf exporters offload_buf_alloc(OFFLOAD_BUF_DMABUF)
 * can use here: one page from each, made and freed as an application would,
 * so that a missing node, a root-only node or a kernel without the option is
 * reported in the library's own words (the paths it tried).
 */
static void check_dmabuf(struct report *r, offload_ctx *ctx)
{
	static const struct {
		const char *name;
		uint32_t flag;
	} exp[] = {
		{ "udmabuf", OFFLOAD_BUF_DMABUF_UDMABUF },
		{ "system dma-heap", OFFLOAD_BUF_DMABUF_HEAP },
	};
	char ev[1024] = "", have[64] = "";
	size_t at = 0;
	int n = 0;

	for (size_t i = 0; i < sizeof(exp) / sizeof(exp[0]); i++) {
		offload_buf *b = NULL;
		int e = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 4096, exp[i].flag, &b);
		char one[512];
		if (e == 0) {
			snprintf(one, sizeof(one), "%s: a %zu-byte dma-buf made, mapped and synced "
				 "(exporter \"%s\")", exp[i].name, offload_buf_size(b),
				 offload_buf_dmabuf_exporter(b));
			offload_buf_free(b);
			snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s", n ? ", " : "",
				 exp[i].name);
			n++;
		} else {
			/* the library's message names the paths; drop its function prefix */
			const char *m = offload_last_error(ctx), *p = strstr(m, "bytes: ");
			snprintf(one, sizeof(one), "%s: %s", exp[i].name, p ? p + 7 : m);
		}
		at += (size_t)snprintf(ev + at, at < sizeof(ev) ? sizeof(ev) - at : 0, "%s%s",
				       i ? "; " : "", one);
		if (at >= sizeof(ev))
			at = sizeof(ev) - 1;
	}
	struct finding *f = add(r, SEV_INFO, "dma-buf-exporters", NULL);
	if (!f)
		return;
	f->host = true; /* this kernel's exporters */
	if (n)
		put(f->summary, sizeof(f->summary), "dma-buf buffers (OFFLOAD_BUF_DMABUF) come from: %s",
		    have);
	else
		put(f->summary, sizeof(f->summary), "no dma-buf exporter is usable: OFFLOAD_BUF_DMABUF "
		    "buffers cannot be made here (importing a dma-buf fd still works)");
	put(f->evidence, sizeof(f->evidence), "%s", ev);
	if (n)
		put(f->action, sizeof(f->action), "none");
	else
		put(f->action, sizeof(f->action), "for dma-buf buffers: a kernel with CONFIG_UDMABUF or "
		    "CONFIG_DMABUF_HEAPS_SYSTEM (Debian's 6.12 kernel has both), and read-write access "
		    "to /dev/udmabuf or /dev/dma_heap/system (a udev rule); engines the library drives "
		    "need u-dma-buf, a CMA heap or reserved-memory instead");
}

/*
 * The kernel's dmaengine channels through the offload_dma module
 * (/dev/offload_dma): whether the module is there and usable, in the
 * backend's own words (offload_backend_status), and what to do when not.
 * Silent when the backend is not built or excluded by the allow-list.
 */
static void check_dmaengine(struct report *r, offload_ctx *ctx)
{
	const char *why = "";
	int st = offload_backend_status(ctx, "dmaengine", &why);

	if (st < 0 || (st == 0 && strstr(why, "allow-list")))
		return;
	if (st == 0) {
		bool missing = strstr(why, "not loaded") != NULL;
		bool denied = strstr(why, "udev rule") != NULL;
		struct finding *f = add(r, missing ? SEV_INFO : SEV_WARNING,
					missing ? "dmaengine-module-missing"
					: denied ? "dmaengine-no-access" : "dmaengine-unavailable", NULL);
		if (!f)
			return;
		f->host = true; /* this kernel's module */
		if (missing) {
			put(f->summary, sizeof(f->summary), "the offload_dma kernel module is not loaded: "
			    "offload_memcpy cannot reach the kernel's DMA channels (dmaengine backend)");
			put(f->action, sizeof(f->action), "sudo modprobe offload_dma; if it is not "
			    "installed, build it from the source tree: make -C kmod && sudo make -C kmod "
			    "install && sudo depmod (or DKMS: kmod/README.md)");
		} else if (denied) {
			put(f->summary, sizeof(f->summary), "/dev/offload_dma exists but this user may not "
			    "open it: the dmaengine backend is absent");
			put(f->action, sizeof(f->action), "run as root, or give the device to a group with "
			    "a udev rule: KERNEL==\"offload_dma\", GROUP=\"dma\", MODE=\"0660\" in "
			    "/etc/udev/rules.d/60-offload-dma.rules (kmod/README.md)");
		} else {
			put(f->summary, sizeof(f->summary), "the dmaengine backend is unavailable");
			put(f->action, sizeof(f->action), "see the evidence");
		}
		put(f->evidence, sizeof(f->evidence), "%s", why);
		return;
	}
	char ev[1024] = "";
	size_t at = 0;
	int usable = 0, unusable = 0;
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) < 0 ||
		    (strcmp(d.backend, "dmaengine") != 0 && strcmp(d.kind, "dmaengine") != 0))
			continue;
		bool ok = (d.flags & OFFLOAD_DEVF_USABLE) != 0;
		ok ? usable++ : unusable++;
		at += (size_t)snprintf(ev + at, at < sizeof(ev) ? sizeof(ev) - at : 0,
				       "%s%s: %s; threshold %" PRIu64 " B (%s)", at ? "; " : "", d.name,
				       d.usable_reason, d.threshold_bytes, d.threshold_reason);
		if (at >= sizeof(ev))
			at = sizeof(ev) - 1;
	}
	struct finding *f = add(r, unusable ? SEV_WARNING : SEV_INFO,
				unusable ? "dmaengine-unusable" : "dmaengine-channels", NULL);
	if (!f)
		return;
	f->host = true;
	if (unusable)
		put(f->summary, sizeof(f->summary), "/dev/offload_dma is there but cannot be used");
	else
		put(f->summary, sizeof(f->summary), "offload_memcpy reaches %d DMA controller%s through "
		    "the kernel's dmaengine (offload_dma)", usable, usable == 1 ? "" : "s");
	put(f->evidence, sizeof(f->evidence), "%s", ev);
	if (unusable)
		put(f->action, sizeof(f->action), "build and load the module of this library's "
		    "release (kmod/README.md)");
	else if (strstr(ev, "not measured"))
		put(f->action, sizeof(f->action), "measure the crossover: offloadctl bench memcpy --ab "
		    "cpu,dmaengine --write-threshold (writes %s)", OFFLOAD_DMAENGINE_CONF);
	else
		put(f->action, sizeof(f->action), "none");
}

/* The checks, in output order. */
static const struct {
	const char *name;
	void (*run)(struct report *r, offload_ctx *ctx);
} checks[] = {
	{ "device-tree", check_devices },
	{ "af-alg", check_af_alg },
	{ "dma-buf", check_dmabuf },
	{ "dmaengine", check_dmaengine },
};

/* ------------------------------------------------------------------ output */

/*
 * Whether the device tree is another machine's (a .dtb file, the built-in
 * board, a blob): then findings about this host's kernel are labelled so,
 * not read as the board's. The live tree and "none" describe this machine.
 */
static bool foreign_tree(offload_ctx *ctx)
{
	const char *src = offload_ctx_dt_source(ctx);
	return src && strncmp(src, "live:", 5) != 0 && strcmp(src, "none") != 0;
}

#define HOST_LABEL "this host, not the device tree's board"

/* Text output: device-tree strings are escaped (cli_text). */
static void print_text(const struct report *r, offload_ctx *ctx)
{
	int notes = r->n - r->warnings;
	const char *note = cli_dt_note(ctx);

	if (note[0])
		printf("note: %s\n", note);
	printf("device tree: %s\n", cli_text(offload_ctx_dt_source(ctx)));
	bool foreign = foreign_tree(ctx);
	for (int i = 0; i < r->n; i++) {
		const struct finding *f = &r->f[i];
		printf("%s%s%s: %s%s%s [%s]\n", f->sev == SEV_WARNING ? "warning" : "info",
		       f->sim ? " (sim)" : "", f->host && foreign ? " (" HOST_LABEL ")" : "",
		       cli_text(f->device), f->device[0] ? ": " : "",
		       cli_text(f->summary), f->code);
		printf("    evidence: %s\n", cli_text(f->evidence));
		printf("    action:   %s%s\n", f->sim ? SIM_ACTION : "", cli_text(f->action));
	}
	printf("doctor: %d warning%s, %d note%s\n", r->warnings, r->warnings == 1 ? "" : "s", notes,
	       notes == 1 ? "" : "s");
}

static void print_json(const struct report *r, offload_ctx *ctx)
{
	printf("{\n  \"dt_source\": ");
	cli_json_str(stdout, offload_ctx_dt_source(ctx));
	printf(",\n  \"dt_fallback\": %s,\n  \"note\": ",
	       (cli_ctx_flags(ctx) & OFFLOAD_CTX_DT_FALLBACK) ? "true" : "false");
	cli_json_str(stdout, cli_dt_note(ctx));
	printf(",\n  \"warnings\": %d,\n  \"notes\": %d,\n  \"findings\": [\n", r->warnings,
	       r->n - r->warnings);
	for (int i = 0; i < r->n; i++) {
		const struct finding *f = &r->f[i];
		printf("    {\"severity\": \"%s\", \"sim\": %s, \"this_host\": %s, \"code\": ",
		       f->sev == SEV_WARNING ? "warning" : "info", f->sim ? "true" : "false",
		       f->host && foreign_tree(ctx) ? "true" : "false");
		cli_json_str(stdout, f->code);
		printf(", \"device\": ");
		cli_json_str(stdout, f->device);
		printf(",\n     \"summary\": ");
		cli_json_str(stdout, f->summary);
		printf(",\n     \"evidence\": ");
		cli_json_str(stdout, f->evidence);
		printf(",\n     \"action\": ");
		if (f->sim) {
			size_t n = strlen(SIM_ACTION) + strlen(f->action) + 1;
			char *a = malloc(n);
			if (a)
				snprintf(a, n, "%s%s", SIM_ACTION, f->action);
			cli_json_str(stdout, a ? a : f->action);
			free(a);
		} else {
			cli_json_str(stdout, f->action);
		}
		printf("}%s\n", i == r->n - 1 ? "" : ",");
	}
	printf("  ]\n}\n");
}

static void usage(const struct cli *cli, FILE *f)
{
	fprintf(f, "usage: %s doctor [OPTIONS]\n\nCheck the device tree's engines and print findings "
		"with severity, evidence\nand the action to take. Exit status 1 if any warning was "
		"found.\n\noptions:\n" CLI_COMMON_HELP, cli->prog);
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.longopts = cli_common_longopts, .help = usage, .max_operands = 0, .formats = CLI_FMT_JSON,
	};
	struct report r = { 0 };
	offload_ctx *ctx;
	int rc = cli_begin(cli, &cmd, NULL, argc, argv, &ctx);

	if (rc != CLI_CONTINUE)
		return rc;
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		checks[i].run(&r, ctx);
	if (r.oom) {
		rc = cli_error(cli, "out of memory while collecting findings");
	} else {
		if (cli->json)
			print_json(&r, ctx);
		else
			print_text(&r, ctx);
		rc = CLI_EXIT_OK;
		/* the exit status says a warning was found; stderr says it too, for scripts' logs */
		if (r.warnings)
			rc = cli_error(cli, "%d warning%s found (exit status 1): %s", r.warnings,
				       r.warnings == 1 ? "" : "s",
				       cli->json ? "the findings with \"severity\": \"warning\""
						 : "the lines starting with 'warning' above");
	}
	free(r.f);
	offload_ctx_free(ctx);
	return rc;
}
