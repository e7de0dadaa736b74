/* SPDX-License-Identifier: MIT */
/* offloadctl: shared command-line plumbing. */
#ifndef OFFLOADCTL_CLI_H
#define OFFLOADCTL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <offload/offload.h>
#ifdef OFFLOAD_HAVE_SIM
#include <offload/sim.h> /* liboffload-sim: the models behind --sim and --dtb builtin */
#endif

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
/* Common option codes are 0x1000..0x1fff (cli_parse() tells them by it); a command's own start at 0x2000. */
#define CLI_OPT_COMMON_FIRST 0x1000
#define CLI_OPT_COMMAND_FIRST 0x2000
enum {
	CLI_OPT_DTB = CLI_OPT_COMMON_FIRST,
	CLI_OPT_SIM,
	CLI_OPT_BACKENDS,
	CLI_OPT_JSON,
	CLI_OPT_CSV,
	CLI_OPT_SIM_TRACE,
};
#define CLI_COMMON_LONGOPTS                                              \
	{ "dtb", required_argument, NULL, CLI_OPT_DTB },                 \
	{ "sim", no_argument, NULL, CLI_OPT_SIM },                       \
	{ "sim-trace", required_argument, NULL, CLI_OPT_SIM_TRACE },     \
	{ "backends", required_argument, NULL, CLI_OPT_BACKENDS },       \
	{ "json", no_argument, NULL, CLI_OPT_JSON },                     \
	{ "csv", no_argument, NULL, CLI_OPT_CSV },                       \
	{ "help", no_argument, NULL, 'h' }
#define CLI_COMMON_HELP                                                                 \
	"  --dtb FILE       device tree: a .dtb file, or none | live | builtin\n"          \
	"  --sim            attach register-level models to the DT's engines (sim)\n"      \
	"  --sim-trace FILE append every model register access to FILE (OFFLOAD_SIM_TRACE)\n" \
	"  --backends LIST  comma-separated backend allow-list (cpu,kcapi,udma,...)\n"     \
	"  --json, --csv    machine-readable output\n"                                     \
	"  -h, --help       this help\n"

/* The common options alone, for commands that take no others. */
extern const struct option cli_common_longopts[];

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

/* ------------------------------------------------------------ numbers (num.c) */

/* cli_parse_uint() flag: a size, which may end in K, M or G (KiB, MiB, GiB; "KiB", "KB" too). */
#define CLI_NUM_SIZE 1u

/*
 * A whole number as every numeric option takes it: decimal digits only (no
 * blank, sign or base prefix: " 5", "+5", "-1", "0x10" are malformed), with
 * CLI_NUM_SIZE an optional K, M or G suffix; min <= value <= max. Returns 0
 * with *out set, -EINVAL if malformed (NULL and "" too), -ERANGE if outside
 * [min, max] or beyond 64 bits.
 */
int cli_parse_uint(const char *s, unsigned flags, uint64_t min, uint64_t max, uint64_t *out);

/*
 * A duration in seconds: decimal digits with an optional fraction ("2",
 * "0.4") and an optional unit "s" or "ms" ("0.4s", "100ms"); no sign, blank,
 * exponent, "inf" or "nan". Above 0 (or >= 0 with zero_ok) and at most max.
 * Returns 0, -EINVAL if malformed, -ERANGE if out of range.
 */
int cli_parse_seconds(const char *s, bool zero_ok, double max, double *out);

/*
 * cli_parse_uint() / cli_parse_seconds() for the value arg of option opt
 * (e.g. "--threads"): false after the usage error "prog cmd: --threads
 * \"+5\": expected a whole number 1..256, in decimal digits" is printed;
 * the caller exits with CLI_EXIT_USAGE.
 */
bool cli_opt_uint(const struct cli *cli, const char *opt, const char *arg, unsigned flags,
		  uint64_t min, uint64_t max, uint64_t *out);
bool cli_opt_seconds(const struct cli *cli, const char *opt, const char *arg, bool zero_ok,
		     double max, double *out);

/* ------------------------------------------------------------ statistics (stats.c) */

/* Summary statistics of a sample, as Python's statistics module defines them. */
struct cli_stats {
	size_t n;
	double mean;
	double median;  /* the middle value, or the mean of the two middle ones */
	double stddev;  /* sample standard deviation (n - 1); NAN for n < 2 */
	double rsd;     /* relative standard deviation, percent of the mean; NAN for n < 2 or mean <= 0 */
	double min, max;
};

/* Statistics of v[0..n-1] (left unchanged). Returns 0, -EINVAL for n == 0, -ENOMEM. */
int cli_stats(const double *v, size_t n, struct cli_stats *s);

/*
 * Paired comparison of two sides timed in alternation: the median over i of
 * a[i] / b[i] (each pair measured next to each other, so that a drift of the
 * machine between pairs cancels). With times, a = the reference's and b = the
 * side's gives the side's speed over the reference's. Returns 0, -EINVAL for
 * n == 0 or any b[i] <= 0 (*out is then 0), -ENOMEM.
 */
int cli_paired_ratio(const double *a, const double *b, size_t n, double *out);

/* The benchmarks' clock: CLOCK_MONOTONIC in ns, and in seconds. */
uint64_t cli_now_ns(void);
double cli_now_s(void);

/*
 * Quiet rounds: how much of the machine other processes took while a
 * benchmark round ran. A mark is read before and after the round: the CPU
 * time all CPUs spent busy (/proc/stat's "cpu" line, USER_HZ ticks: user,
 * nice, system, irq, softirq and steal, the hypervisor's share), minus this
 * process's own (CLOCK_PROCESS_CPUTIME_ID, every thread, the library's
 * workers included) and that of helper processes the benchmark started
 * itself (a load it runs on purpose, /proc/PID/stat). The rest is others'.
 * /proc/stat counts whole ticks per CPU, so a decision at 5 % needs rounds
 * of a few hundred milliseconds (cli_quiet_resolution()).
 */
struct cli_cpu_mark {
	uint64_t busy, all;       /* ticks, summed over the CPUs */
	uint64_t self_ns;         /* this process's CPU time */
	uint64_t helpers;         /* ticks of the helper processes */
	bool ok;                  /* /proc/stat could be read */
};
#define CLI_MAX_HELPERS 4
void cli_cpu_mark(struct cli_cpu_mark *m, const int *helper_pids, unsigned nhelpers);
/*
 * The share (0..1) of all CPUs' time between marks a and b that other
 * processes took; a negative value when it cannot be known (no /proc/stat).
 */
double cli_cpu_other_share(const struct cli_cpu_mark *a, const struct cli_cpu_mark *b);
/* utime + stime (fields 14 and 15) of a /proc/PID/stat line, in ticks; 0 if malformed. */
uint64_t cli_pid_stat_ticks(const char *text);
/* The smallest share a round between a and b can resolve: 2 ticks of its total. */
double cli_quiet_resolution(const struct cli_cpu_mark *a, const struct cli_cpu_mark *b);

/*
 * Rates as the kernel's dmatest prints them in its summary line (iops with
 * two truncated decimals from 24.8 fixed point, KiB/s truncated), so that
 * offloadctl's dmatest-shaped lines read as the kernel's would for the same
 * counts: "summary T tests, F failures <iops_int>.<iops_hundredths> iops
 * <kbs> KB/s". From tests copies, bytes copied and the elapsed time in ns.
 */
struct cli_dmatest_rate {
	uint64_t iops_int;
	unsigned iops_hundredths; /* 0..99 */
	uint64_t kbs;
};
struct cli_dmatest_rate cli_dmatest_rate(uint64_t tests, uint64_t bytes, uint64_t ns);

/*
 * dmatest's summary line, the shape scripts parse: "prog: NAME: summary T tests,
 * F failures I.FF iops K KB/s (RET)" (NAME escaped as by cli_text()).
 */
void cli_dmatest_summary(const struct cli *cli, const char *name, uint64_t tests, uint64_t failures,
			 struct cli_dmatest_rate r, int ret);

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

/* Print "prog cmd: <message>" to stderr for a failure (exit status 1); returns CLI_EXIT_FAIL. */
int cli_error(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print text to stderr as it is (a line a tool's users know, e.g. spidev_test's "transfer error !"). */
void cli_error_line(const char *text);

/*
 * Whether a sentence went to stderr through cli_error(), cli_fail(), cli_error_line() or
 * cli_usage_error() since the program started (main() adds one to a
 * non-zero exit that has none).
 */
bool cli_said_why(void);

/* ------------------------------------------------------------ the command preamble */

/* cli_parse(): parsing went through; the command goes on (not an exit status). */
#define CLI_CONTINUE (-1)

/* How a command takes its options (cli_parse()). */
struct cli_cmd {
	const char *shortopts;          /* the command's own short options ("" for none); -h is implied */
	const struct option *longopts;  /* its long options, then CLI_COMMON_LONGOPTS and a zero entry */
	bool long_only;                 /* getopt_long_only(): openssl's -in, -out, -K (enc, dgst) */
	/*
	 * One of the command's own options: 0, or an exit status after the
	 * message (CLI_EXIT_USAGE for a malformed value). NULL: it has none.
	 */
	int (*opt)(struct cli *cli, void *state, int c, const char *arg);
	void (*help)(const struct cli *cli, FILE *f); /* --help, on stdout */
	int max_operands;               /* arguments after the options it takes; -1 any number */
	unsigned formats;               /* CLI_FMT_* it implements */
};

/*
 * Parse a command's argv (argv[0] is its name): its own options through
 * cmd->opt, the common ones (cli_common_opt()), -h/--help, unknown options
 * and missing values (usage errors naming the option), then the operand
 * and format checks (cli_operands_ok()). Resets getopt first. Returns
 * CLI_CONTINUE with optind at the first operand, or the exit status: 0
 * after --help, CLI_EXIT_USAGE after a usage error (message printed).
 */
int cli_parse(struct cli *cli, const struct cli_cmd *cmd, void *state, int argc, char **argv);

/*
 * cli_parse(), then cli_open_ctx(): CLI_CONTINUE with *ctx open, or the
 * exit status (CLI_EXIT_FAIL when the context does not open; message printed).
 */
int cli_begin(struct cli *cli, const struct cli_cmd *cmd, void *state, int argc, char **argv,
	      offload_ctx **ctx);

/*
 * After the command: flush and close stdout and report a failed write
 * (ENOSPC on a full disk, EPIPE from a reader that went away: SIGPIPE is
 * ignored so that a write fails instead of killing the program). Returns
 * the exit status: rc, or CLI_EXIT_FAIL with "prog cmd: cannot write to
 * standard output: <why>" on stderr if the output is incomplete.
 */
int cli_finish(const struct cli *cli, int rc);

/*
 * Flush standard output (before stderr is written, or a row of a long run);
 * false if a write failed, whose errno cli_finish() then reports.
 */
bool cli_flush(void);

/*
 * Report that standard output could not be written (errno err, or 0 when
 * unknown): "prog cmd: cannot write to standard output: <why>", once per
 * run whoever notices first. Returns CLI_EXIT_FAIL.
 */
int cli_stdout_fail(const struct cli *cli, int err);

/* Whether standard output has failed (a long run stops writing rows into nowhere). */
bool cli_stdout_failed(void);

/*
 * Open a file for reading ("-" or NULL: stdin). A directory is refused with
 * errno EISDIR here rather than failing at the first read.
 */
FILE *cli_fopen_read(const char *path);

/*
 * The whole of a file (NULL or "-": stdin, a directory refused as by
 * cli_fopen_read()), at most max bytes. NULL with errno set on failure:
 * EISDIR, EFBIG beyond max, ENOMEM, or the open's or read's errno.
 */
uint8_t *cli_read_all(const char *path, size_t max, size_t *len);

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

/*
 * Print s as a JSON string literal (with quotes) that is valid UTF-8 whatever
 * bytes s holds (device-tree strings, kernel log lines): well-formed UTF-8
 * is kept, control characters (C0, DEL, C1) are \u escapes, and each byte
 * that is not part of a well-formed UTF-8 sequence becomes U+FFFD, the
 * replacement character (as Python's errors="replace" decodes it).
 */
void cli_json_str(FILE *f, const char *s);

/*
 * One CSV field per RFC 4180: quoted when it holds a comma, a double quote
 * or a line break (quotes doubled), its control characters and invalid
 * UTF-8 first shown as by cli_text(); then ',' or, for the last field, a
 * line break.
 */
void cli_csv_field(FILE *f, const char *s, bool last);

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
