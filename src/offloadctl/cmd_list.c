/* SPDX-License-Identifier: MIT */
/* offloadctl list: every device, its status, and each decision with its reason. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

static const char *cache_mode_name(enum offload_cache_mode m)
{
	switch (m) {
	case OFFLOAD_CACHE_COHERENT: return "coherent";
	case OFFLOAD_CACHE_STREAMING: return "streaming";
	case OFFLOAD_CACHE_UNCACHED: return "uncached";
	}
	return "?";
}

static const char *class_name(int c)
{
	switch (c) {
	case 0: return "normal channels";
	case 1: return "H channels";
	case 2: return "UH channels";
	default: return "no channel (no memcpy)";
	}
}

static void caps_str(uint32_t caps, char *buf, size_t len)
{
	buf[0] = '\0';
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ OFFLOAD_CAP_MEMCPY, "memcpy" }, { OFFLOAD_CAP_CIPHER, "cipher" },
		{ OFFLOAD_CAP_HASH, "hash" }, { OFFLOAD_CAP_SPI, "spi" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & names[i].bit) {
			if (buf[0])
				strncat(buf, ",", len - strlen(buf) - 1);
			strncat(buf, names[i].name, len - strlen(buf) - 1);
		}
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* Kernel crypto devices: the driver serving each algorithm depends on the
 * modules loaded, so ask (crypto_probe.c). Returns the number probed. */
static int probe_algorithms(offload_ctx *ctx, const struct offload_dev_info *d,
			    struct cli_alg_probe *p)
{
	if (!(d->flags & OFFLOAD_DEVF_KERNEL) || !(d->flags & OFFLOAD_DEVF_USABLE) ||
	    !(d->caps & (OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH)))
		return 0;
	int n = cli_crypto_probe(ctx, d->index, p, CLI_PROBE_MAX);
	return n < 0 ? 0 : n;
}

static void print_algorithms_text(const struct cli_alg_probe *p, int n)
{
	if (n)
		printf("    algorithms: (the implementation that served one operation each)\n");
	for (int i = 0; i < n; i++) {
		if (p[i].err)
			printf("      %-14s unavailable: %s\n", p[i].alg, cli_text(p[i].error));
		else
			printf("      %-14s %s (%s)\n", p[i].alg, cli_text(p[i].driver),
			       (p[i].flags & OFFLOAD_RES_HARDWARE) ? "hardware" : "software");
	}
}

static void print_algorithms_json(const struct cli_alg_probe *p, int n)
{
	printf("      \"algorithms\": [");
	for (int i = 0; i < n; i++) {
		printf("%s\n        { \"alg\": ", i ? "," : "");
		cli_json_str(stdout, p[i].alg);
		printf(", \"available\": %s, \"driver\": ", p[i].err ? "false" : "true");
		cli_json_str(stdout, p[i].driver);
		printf(", \"hardware\": %s, \"error\": ",
		       (p[i].flags & OFFLOAD_RES_HARDWARE) ? "true" : "false");
		cli_json_str(stdout, p[i].error);
		printf(" }");
	}
	printf("%s]\n", n ? "\n      " : "");
}

/*
 * Whether calls that leave the device to the library (OFFLOAD_DEV_AUTO) may
 * choose it (OFFLOAD_DEVF_AUTO), in words: "usable" alone does not say so.
 */
static const char *automatic_text(offload_ctx *ctx, const struct offload_dev_info *d)
{
	uint32_t cf = cli_ctx_flags(ctx);

	if ((d->flags & OFFLOAD_DEVF_AUTO) && (d->flags & OFFLOAD_DEVF_CPU))
		return "yes: calls without a device run here unless an engine takes them";
	if (d->flags & OFFLOAD_DEVF_AUTO)
		return "yes: calls without a device may go to it (memcpy at or above its threshold, "
		       "crypto it runs off the CPU)";
	if (!(d->flags & OFFLOAD_DEVF_USABLE))
		return "no: it is not usable";
	if ((d->flags & OFFLOAD_DEVF_SIM) && (cf & OFFLOAD_CTX_DT_FALLBACK) && !(cf & OFFLOAD_CTX_SIM))
		return "no: its model stands in only because this machine has no device tree; calls "
		       "without a device run on the CPU (--sim or OFFLOAD_SIM=1 lets them use it)";
	return "no: only calls that name this device use it";
}

/* Text output: every string may come from the device tree, so cli_text() escapes it. */
static void print_text(offload_ctx *ctx, const struct offload_dev_info *d)
{
	char caps[64];

	caps_str(d->caps, caps, sizeof(caps));
	printf("[%d] %s (%s)%s\n", d->index, cli_text(d->name), cli_text(d->kind),
	       (d->flags & OFFLOAD_DEVF_SIM) ? " [sim]" : "");
	if (d->dt_path[0])
		printf("    node:       %s\n    compatible: %s\n", cli_text(d->dt_path),
		       cli_text(d->compatible));
	if (d->phys_size)
		printf("    address:    0x%" PRIx64 " (0x%" PRIx64 " bytes): %s\n", d->phys_addr,
		       d->phys_size, cli_text(d->phys_reason));
	else if (d->dt_path[0])
		printf("    address:    none: %s\n", cli_text(d->phys_reason));
	printf("    status:     %s\n", cli_text(d->status));
	printf("    backend:    %s (candidates: %s)\n", d->backend[0] ? cli_text(d->backend) : "none",
	       d->candidates[0] ? cli_text(d->candidates) : "-");
	printf("    usable:     %s: %s\n", (d->flags & OFFLOAD_DEVF_USABLE) ? "yes" : "no",
	       cli_text(d->usable_reason));
	printf("    automatic:  %s\n", automatic_text(ctx, d));
	printf("    caps:       %s\n", caps);
	printf("    coherent:   %s: %s\n", d->coherent ? "yes" : "no", cli_text(d->coherent_reason));
	if (d->soc_io_coherent && !d->coherent)
		printf("    soc:        I/O-coherent interconnect: %s\n",
		       cli_text(d->soc_io_coherent_reason));
	printf("    cache:      %s: %s\n", cache_mode_name(d->cache_mode), cli_text(d->cache_reason));
	printf("    burst:      %" PRIu32 " B: %s\n", d->burst_bytes, cli_text(d->burst_reason));
	if (d->burst_by_class[0] || d->burst_by_class[1] || d->burst_by_class[2])
		printf("    classes:    normal %" PRIu32 " B, H %" PRIu32 " B, UH %" PRIu32
		       " B (0 = no such channel class); memcpy on %s\n",
		       d->burst_by_class[0], d->burst_by_class[1], d->burst_by_class[2],
		       class_name(d->memcpy_class));
	printf("    align:      %" PRIu32 " B: %s\n", d->align_bytes, cli_text(d->align_reason));
	printf("    threshold:  %" PRIu64 " B: %s\n", d->threshold_bytes,
	       cli_text(d->threshold_reason));
	printf("    mode:       %s: %s\n", cli_text(d->transfer_mode), cli_text(d->transfer_reason));
}

static void json_field(const char *key, const char *val, bool comma)
{
	printf("      \"%s\": ", key);
	cli_json_str(stdout, val);
	printf("%s\n", comma ? "," : "");
}

static void print_json(offload_ctx *ctx, const struct offload_dev_info *d, bool last,
		       const struct cli_alg_probe *p, int n)
{
	char caps[64];

	caps_str(d->caps, caps, sizeof(caps));
	printf("    {\n      \"index\": %d,\n", d->index);
	json_field("name", d->name, true);
	json_field("kind", d->kind, true);
	json_field("dt_path", d->dt_path, true);
	json_field("compatible", d->compatible, true);
	json_field("status", d->status, true);
	printf("      \"phys_addr\": %" PRIu64 ",\n      \"phys_size\": %" PRIu64 ",\n", d->phys_addr,
	       d->phys_size);
	json_field("backend", d->backend, true);
	json_field("candidates", d->candidates, true);
	printf("      \"usable\": %s,\n      \"sim\": %s,\n",
	       (d->flags & OFFLOAD_DEVF_USABLE) ? "true" : "false",
	       (d->flags & OFFLOAD_DEVF_SIM) ? "true" : "false");
	json_field("usable_reason", d->usable_reason, true);
	printf("      \"automatic\": %s,\n", (d->flags & OFFLOAD_DEVF_AUTO) ? "true" : "false");
	json_field("automatic_reason", automatic_text(ctx, d), true);
	json_field("caps", caps, true);
	json_field("phys_reason", d->phys_reason, true);
	printf("      \"coherent\": %s,\n", d->coherent ? "true" : "false");
	json_field("coherent_reason", d->coherent_reason, true);
	json_field("coherent_node", d->coherent_node, true);
	printf("      \"soc_io_coherent\": %s,\n", d->soc_io_coherent ? "true" : "false");
	json_field("soc_io_coherent_reason", d->soc_io_coherent_reason, true);
	printf("      \"burst_by_class\": [%" PRIu32 ", %" PRIu32 ", %" PRIu32 "],\n",
	       d->burst_by_class[0], d->burst_by_class[1], d->burst_by_class[2]);
	printf("      \"memcpy_class\": %d,\n", d->memcpy_class);
	json_field("cache_mode", cache_mode_name(d->cache_mode), true);
	json_field("cache_reason", d->cache_reason, true);
	printf("      \"burst_bytes\": %" PRIu32 ",\n", d->burst_bytes);
	json_field("burst_reason", d->burst_reason, true);
	printf("      \"align_bytes\": %" PRIu32 ",\n", d->align_bytes);
	json_field("align_reason", d->align_reason, true);
	printf("      \"threshold_bytes\": %" PRIu64 ",\n", d->threshold_bytes);
	json_field("threshold_reason", d->threshold_reason, true);
	json_field("transfer_mode", d->transfer_mode, true);
	json_field("transfer_reason", d->transfer_reason, true);
	print_algorithms_json(p, n);
	printf("    }%s\n", last ? "" : ",");
}

static const char csv_header[] =
	"index,name,kind,dt_path,compatible,status,backend,usable,sim,caps,coherent,cache_mode,"
	"burst_bytes,align_bytes,threshold_bytes,transfer_mode,usable_reason,automatic\n";

/* The main fields of a device, one CSV row in csv_header's order (reasons: only usable_reason). */
static void print_csv(const struct offload_dev_info *d)
{
	char caps[64], num[4][24];

	caps_str(d->caps, caps, sizeof(caps));
	snprintf(num[0], sizeof(num[0]), "%d", d->index);
	snprintf(num[1], sizeof(num[1]), "%" PRIu32, d->burst_bytes);
	snprintf(num[2], sizeof(num[2]), "%" PRIu32, d->align_bytes);
	snprintf(num[3], sizeof(num[3]), "%" PRIu64, d->threshold_bytes);
	const char *fields[] = {
		num[0], d->name, d->kind, d->dt_path, d->compatible, d->status, d->backend,
		(d->flags & OFFLOAD_DEVF_USABLE) ? "yes" : "no", (d->flags & OFFLOAD_DEVF_SIM) ? "yes" : "no",
		caps, d->coherent ? "yes" : "no", cache_mode_name(d->cache_mode), num[1], num[2], num[3],
		d->transfer_mode, d->usable_reason, (d->flags & OFFLOAD_DEVF_AUTO) ? "yes" : "no",
	};
	size_t n = sizeof(fields) / sizeof(fields[0]);
	for (size_t i = 0; i < n; i++)
		cli_csv_field(stdout, fields[i] ? fields[i] : "", i + 1 == n);
}

static void usage(const struct cli *cli, FILE *f)
{
	fprintf(f, "usage: %s list [OPTIONS]\n\nList every device of the device tree that liboffload "
		"knows, its status,\nthe backend serving it, and each policy decision with its reason.\n"
		"For a kernel crypto device (AF_ALG) also the kernel driver that serves each\n"
		"algorithm, found by running one operation each.\n--csv: one row per device with the "
		"main fields (the reasons: --json).\n\noptions:\n" CLI_COMMON_HELP, cli->prog);
}

/* Before the devices: the note on the tree and where it came from, or the JSON/CSV head. */
static void print_head(const struct cli *cli, offload_ctx *ctx)
{
	const char *note = cli_dt_note(ctx);

	if (cli->json) {
		printf("{\n  \"dt_source\": ");
		cli_json_str(stdout, offload_ctx_dt_source(ctx));
		printf(",\n  \"dt_fallback\": %s,\n  \"note\": ",
		       (cli_ctx_flags(ctx) & OFFLOAD_CTX_DT_FALLBACK) ? "true" : "false");
		cli_json_str(stdout, note);
		printf(",\n  \"devices\": [\n");
	} else if (cli->csv) {
		if (note[0]) /* the sim column marks the models; the sentence goes beside the CSV */
			fprintf(stderr, "note: %s\n", note);
		fputs(csv_header, stdout);
	} else {
		if (note[0])
			printf("note: %s\n", note);
		printf("device tree: %s\n", cli_text(offload_ctx_dt_source(ctx)));
	}
}

int cmd_list(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.longopts = cli_common_longopts, .help = usage, .max_operands = 0,
		.formats = CLI_FMT_JSON | CLI_FMT_CSV,
	};
	offload_ctx *ctx;
	int r = cli_begin(cli, &cmd, NULL, argc, argv, &ctx);

	if (r != CLI_CONTINUE)
		return r;
	int n = offload_dev_count(ctx);
	print_head(cli, ctx);
	for (int i = 0; i < n; i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) < 0)
			continue;
		if (cli->csv) {
			print_csv(&d);
			continue;
		}
		struct cli_alg_probe p[CLI_PROBE_MAX];
		int np = probe_algorithms(ctx, &d, p);
		if (cli->json) {
			print_json(ctx, &d, i == n - 1, p, np);
		} else {
			print_text(ctx, &d);
			print_algorithms_text(p, np);
		}
	}
	/* backends that serve no device here, and why (AF_ALG on a kernel without it) */
	if (cli->json) {
		printf("  ],\n  \"absent\": [");
		cli_print_absent(ctx, 0, true);
		printf("]\n}\n");
	} else if (!cli->csv) {
		cli_print_absent(ctx, 0, false);
	}
	offload_ctx_free(ctx);
	return CLI_EXIT_OK;
}
