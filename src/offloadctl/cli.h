/* SPDX-License-Identifier: MIT */
/* offloadctl: shared command-line plumbing. */
#ifndef OFFLOADCTL_CLI_H
#define OFFLOADCTL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <offload/offload.h>

/* Exit statuses: 0 success; 1 a failure, mismatch or warning found; 2 usage error. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

struct cli {
	const char *prog;        /* "offloadctl" */
	const char *cmd;         /* the command being run, e.g. "list" */
	const char *dtb;         /* --dtb FILE (or "none", "live", "builtin") */
	const char *backends;    /* --backends LIST */
	bool sim;                /* --sim */
	bool json;               /* --json */
	bool csv;                /* --csv */
	bool verbose;            /* --verbose */
};

/*
 * Options every command accepts, before or after the command name. Append
 * CLI_COMMON_LONGOPTS to a command's struct option array and pass unknown
 * option codes to cli_common_opt().
 */
enum {
	CLI_OPT_DTB = 0x1000,
	CLI_OPT_SIM,
	CLI_OPT_BACKENDS,
	CLI_OPT_JSON,
	CLI_OPT_CSV,
};
#define CLI_COMMON_LONGOPTS                                              \
	{ "dtb", required_argument, NULL, CLI_OPT_DTB },                 \
	{ "sim", no_argument, NULL, CLI_OPT_SIM },                       \
	{ "backends", required_argument, NULL, CLI_OPT_BACKENDS },       \
	{ "json", no_argument, NULL, CLI_OPT_JSON },                     \
	{ "csv", no_argument, NULL, CLI_OPT_CSV },                       \
	{ "help", no_argument, NULL, 'h' }
#define CLI_COMMON_HELP                                                                 \
	"  --dtb FILE       device tree: a .dtb file, or none | live | builtin\n"          \
	"  --sim            attach register-level models to the DT's engines (sim)\n"      \
	"  --backends LIST  comma-separated backend allow-list (cpu,kcapi,udma,...)\n"     \
	"  --json, --csv    machine-readable output\n"                                     \
	"  -h, --help       this help\n"

/*
 * Handle a common option; returns true if it was one with a valid value.
 * False for any other option, or (with a message printed) for a malformed
 * --backends list: the caller exits with CLI_EXIT_USAGE.
 */
bool cli_common_opt(struct cli *cli, int c, const char *arg);

/*
 * A backend allow-list as --backends takes it (names of the library's
 * backends, comma/space separated, at most 255 characters); false after
 * printing why, naming the option opt.
 */
bool cli_backends_ok(const struct cli *cli, const char *opt, const char *list);

/*
 * A duration: seconds ("0.4", "2", "0.4s") or milliseconds ("100ms"); > 0
 * and <= max seconds. False if malformed or out of range.
 */
bool cli_parse_seconds(const char *s, double max, double *out);

/* Output formats a command implements, for cli_operands_ok(). */
#define CLI_FMT_JSON 1u
#define CLI_FMT_CSV 2u

/*
 * After a command's options: true if at most max_operands arguments are
 * left (argv[optind..]) and --json/--csv were asked for only if the command
 * implements them (formats); else prints why and returns false (usage error).
 */
bool cli_operands_ok(const struct cli *cli, int argc, char **argv, int max_operands,
		     unsigned formats);

/* Print "prog cmd: <message>" and "(see 'prog cmd --help')"; returns CLI_EXIT_USAGE. */
int cli_usage_error(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Open a file for reading ("-" or NULL: stdin). A directory is refused with
 * errno EISDIR here rather than failing at the first read.
 */
FILE *cli_fopen_read(const char *path);

/* Open a context as the common options say; prints the error and returns NULL on failure. */
offload_ctx *cli_open_ctx(struct cli *cli);

/*
 * s for a terminal: control characters, C1 controls and invalid UTF-8 shown
 * as \xHH (device-tree strings are not trusted). The result is valid until
 * eight more calls.
 */
const char *cli_text(const char *s);

/*
 * A sentence for the top of list/doctor when the device tree is the built-in
 * virtual board or models are attached; "" otherwise.
 */
/* The OFFLOAD_CTX_* flags of an open ctx (offload_ctx_get_flags()); 0 if it fails. */
uint32_t cli_ctx_flags(const offload_ctx *ctx);

const char *cli_dt_note(offload_ctx *ctx);

/*
 * For each backend of the library (offload_backend_name()) that serves one
 * of the OFFLOAD_CAP_* classes in caps (0: every backend) and is absent
 * from ctx (excluded by the allow-list, or unavailable here), with the
 * library's reason: "backend NAME: absent: WHY" lines, or with json the
 * elements of a JSON array ({"backend": .., "reason": ..}, comma-separated).
 */
void cli_print_absent(offload_ctx *ctx, uint32_t caps, bool json);

/*
 * A device named on the command line (--dev, --device): a decimal index as
 * `list` prints it, or whatever offload_dev_find() takes (name, DT path,
 * compatible). Returns the index, or a negative errno with the library's
 * message set (-ENODEV for an index past the list).
 */
int cli_dev_find(offload_ctx *ctx, const char *s);

/* Print s as a JSON string literal (with quotes). */
void cli_json_str(FILE *f, const char *s);

/*
 * Print "prog cmd: what: <the library's message>" to stderr for a failed
 * library call (the message already names the cause; offload_strerror(err)
 * only when the library left none).
 */
void cli_fail(const struct cli *cli, offload_ctx *ctx, const char *what, int err);

/* Commands. argv[0] is the command name; getopt state is reset by the caller. */
int cmd_list(struct cli *cli, int argc, char **argv);
int cmd_doctor(struct cli *cli, int argc, char **argv);
int cmd_bench(struct cli *cli, int argc, char **argv);
int cmd_dmatest(struct cli *cli, int argc, char **argv);
/* bench sub-commands (bench.c's table). */
int bench_spi(struct cli *cli, int argc, char **argv);
int cmd_selftest(struct cli *cli, int argc, char **argv);
int cmd_enc(struct cli *cli, int argc, char **argv);
int cmd_dec(struct cli *cli, int argc, char **argv);
int cmd_dgst(struct cli *cli, int argc, char **argv);
int cmd_bench_cipher(struct cli *cli, int argc, char **argv);

/* One algorithm probed on one device (crypto_probe.c). */
struct cli_alg_probe {
	const char *alg;   /* "AES-128-CBC", "HMAC-SHA256" */
	int err;           /* 0, or the negative errno of the open or the operation */
	char driver[128];  /* offload_result.driver, e.g. the kernel's cra_driver_name */
	uint32_t flags;    /* OFFLOAD_RES_* */
	char error[256];   /* offload_last_error() when err != 0 */
};
#define CLI_PROBE_MAX 18
/*
 * Open a session on device dev for every cipher (AES with a 128-bit key) and
 * hash the device's caps cover, run one 16-byte operation, and record who
 * served it. Fills at most max entries; returns their count, or -EINVAL for
 * a bad dev. Loads kernel modules as a first use by an application would.
 */
int cli_crypto_probe(offload_ctx *ctx, int dev, struct cli_alg_probe *out, int max);
/*
 * Whether a kernel release string ("7.2.0-arm64", "6.12.117+deb12-amd64") is
 * Linux 7.2 or later, where AF_ALG is deprecated and no longer reaches
 * off-CPU accelerators. False when it cannot be parsed.
 */
bool cli_af_alg_deprecated(const char *release);
/*
 * Write "AES-128-CBC: cbc-aes-aesni (software); DES-ECB: unavailable; ..."
 * for n probes into buf (truncated to len), count the hardware-served and
 * the unavailable ones, and return how many were available.
 */
int cli_probe_evidence(const struct cli_alg_probe *p, int n, char *buf, size_t len, int *hw,
		       int *unavailable);
/* Benchmarks, dispatched by cmd_bench(); argv[0] is the benchmark's name. */
int bench_memcpy(struct cli *cli, int argc, char **argv);

#endif /* OFFLOADCTL_CLI_H */
