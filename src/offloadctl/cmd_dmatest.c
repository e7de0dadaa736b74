/* SPDX-License-Identifier: MIT */
/*
 * offloadctl dmatest: the kernel's own dmaengine memcpy path, measured the way
 * the published J721E figures were (dmatest, 8,000,000-byte buffers, 50
 * iterations, 1 channel; LKML "[PATCH v2 0/3] dmaengine: ti: k3-udma: memcpy
 * throughput improvement", 13 Jan 2021).
 *
 * It drives the dmatest module through /sys/module/dmatest/parameters
 * (Documentation/driver-api/dmaengine/dmatest.rst): every parameter first,
 * the channel(s) last (since 5.0 a channel takes the parameters in effect
 * when it is added), then run=1; it polls run until the threads finish or a
 * timeout passes (then writes run=0), and reads the kernel's messages that
 * appeared meanwhile from /dev/kmsg (or a log file): per-thread summary lines
 *   "dmatest: dma0chan0-copy0: summary 50 tests, 0 failures 225.54 iops 1762038 KB/s (0)"
 * in every layout the module has printed (dmatest_log.c), and the result lines
 * of failures. They are printed back in the shape offloadctl bench memcpy
 * uses (dmatest's summary line, the kernel's figures unchanged), plus a
 * total, or as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dmatest_log.h"


#define MAX_CHANNELS 16

struct dt_opts {
	const char *root;             /* sysfs root, "/sys" */
	const char *log;              /* kernel log file, NULL = /dev/kmsg */
	const char *channels[MAX_CHANNELS];
	int nchannels;
	/* the module's parameters: unsigned int, but timeout and alignment int (dmatest.c) */
	uint64_t buf_size, iterations, max_channels, threads, transfer_size;
	int64_t timeout_ms, alignment;
	bool noverify, random, polled;
	double wait_s;                /* 0 = derived from iterations and timeout */
};

static void usage(const struct cli *cli, FILE *f)
{
	fprintf(f,
		"usage: %s dmatest [OPTIONS]\n"
		"\n"
		"Run the kernel's dmatest module (memcpy) and summarise its results: the kernel's own\n"
		"dmaengine path, measured as the published TI J721E figures were.\n"
		"\n"
		"options (defaults: 8000000-byte buffers, 50 iterations, 1 channel):\n"
		"  -c, --channel NAME    channel to test, e.g. dma0chan0 (repeatable; default: any)\n"
		"  -b, --buf-size BYTES  test_buf_size (default 8000000)\n"
		"  -i, --iterations N    iterations per thread (default 50)\n"
		"  -m, --max-channels N  max_channels when no channel is named (default 1)\n"
		"  -t, --threads N       threads_per_chan (default 1)\n"
		"  -T, --timeout MS      dmatest's per-transfer timeout in ms (default 3000)\n"
		"  -a, --alignment N     log2 alignment, -1 = the driver's copy_align (default -1)\n"
		"  -s, --transfer-size BYTES  transfer_size (default: the whole buffer)\n"
		"      --random          random lengths and offsets (dmatest's default; norandom=0)\n"
		"      --noverify        do not verify the data (noverify=1)\n"
		"      --polled          poll for completion (polled=1, kernels that have it)\n"
		"  -w, --wait SECONDS    how long to wait for the run (default: iterations x timeout + 10 s)\n"
		"      --log FILE        read the kernel's messages from FILE instead of /dev/kmsg\n"
		"      --sysfs-root DIR  sysfs root (default $OFFLOAD_SYSFS_ROOT, else /sys)\n"
		"      --json            one JSON object on stdout\n"
		"\n"
		"needs root and the module: modprobe dmatest (CONFIG_DMATEST)\n",
		cli->prog);
}

static int param_path(const struct dt_opts *o, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/module/dmatest/parameters/%s", o->root, name);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

static int write_param(const struct cli *cli, const struct dt_opts *o, const char *name,
		       const char *value)
{
	char p[512];

	if (param_path(o, name, p, sizeof(p)) < 0)
		return -ENAMETOOLONG;
	int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		cli_error(cli, "cannot open %s: %s%s", p, strerror(e), e == EACCES ? " (run as root)" : "");
		return -e;
	}
	size_t n = strlen(value);
	ssize_t w = write(fd, value, n);
	int e = errno;
	close(fd);
	if (w != (ssize_t)n) {
		cli_error(cli, "writing \"%s\" to %s failed: %s", value, p, w < 0 ? strerror(e) : "short write");
		return w < 0 ? -e : -EIO;
	}
	return 0;
}

static bool running(const struct dt_opts *o)
{
	char p[512], v[8] = "";

	if (param_path(o, "run", p, sizeof(p)) < 0)
		return false;
	FILE *f = fopen(p, "r");
	if (!f)
		return false;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	return v[0] == 'Y' || v[0] == '1';
}

/* ------------------------------------------------------------- the kernel's log */

struct logpos {
	int fd;
	bool kmsg;
};

/* Open the kernel log at its end; on failure *err says why. */
static int log_open(const struct dt_opts *o, struct logpos *lp, char *err, size_t errlen)
{
	const char *path = o->log ? o->log : "/dev/kmsg";

	lp->kmsg = !o->log;
	lp->fd = open(path, O_RDONLY | O_CLOEXEC | (lp->kmsg ? O_NONBLOCK : 0));
	if (lp->fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot read the kernel log %s: %s%s", path, strerror(e),
			 lp->kmsg ? " (use --log FILE with a copy of dmesg)" : "");
		return -e;
	}
	/* only what the run prints is ours: start at the end */
	lseek(lp->fd, 0, SEEK_END);
	return 0;
}


static void log_read(struct logpos *lp, struct dt_log *run)
{
	char buf[8192];

	if (lp->kmsg) { /* one record per read(); EAGAIN at the end */
		ssize_t n;
		while ((n = read(lp->fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
			if (n <= 0)
				continue; /* EPIPE: records were overwritten; carry on */
			buf[n] = '\0';
			buf[strcspn(buf, "\n")] = '\0'; /* continuation lines (" KEY=value") follow */
			if (dt_log_line(run, buf, true) == -ENOMEM)
				return;
		}
		return;
	}
	FILE *f = fdopen(dup(lp->fd), "r");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (dt_log_line(run, buf, false) == -ENOMEM)
			break;
	}
	fclose(f);
}

/* ------------------------------------------------------------- output */

/* KiB/s as GB/s (10^9 bytes) in hundredths, truncated as the kernel truncates its rates. */
static uint64_t gbs_hundredths(uint64_t kbps)
{
	/* kbps * 1024 / 10^7 without overflow: 1024 / 10^7 = 16 / 156250 */
	return kbps / 156250 * 16 + kbps % 156250 * 16 / 156250;
}

static void print_text(const struct cli *cli, const struct dt_opts *o, const struct dt_log *run)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct dt_thread *t = &run->t[i];
		/* as the kernel printed it (the oldest layout has no rates: shown as 0) */
		struct cli_dmatest_rate r = { t->iops_int, t->iops_hundredths, t->kbps };
		cli_dmatest_summary(cli, t->name, t->tests, t->failures, r, t->result);
	}
	for (size_t i = 0; i < run->nerrors; i++)
		printf("%s: error: %s: #%" PRIu32 ": %s\n", cli->prog, cli_text(run->errors[i].thread),
		       run->errors[i].result, cli_text(run->errors[i].text));
	if (run->error_lines > run->nerrors)
		printf("%s: ... and %" PRIu64 " more error lines in the kernel log\n", cli->prog,
		       run->error_lines - run->nerrors);
	uint64_t g = gbs_hundredths(run->kbps);
	printf("%s dmatest: %zu thread(s), %" PRIu64 " tests, %" PRIu64 " failures, %" PRIu64
	       " KB/s (%" PRIu64 ".%02u GB/s) with %" PRIu64 "-byte buffers%s; kernel dmaengine memcpy "
	       "(dmatest), not liboffload\n", cli->prog, run->n, run->tests, run->failures, run->kbps,
	       g / 100, (unsigned)(g % 100), o->buf_size,
	       o->noverify ? ", unverified" : ", verified by the kernel");
}

static void print_json_threads(const struct dt_log *run)
{
	printf("], \"threads\": [");
	for (size_t i = 0; i < run->n; i++) {
		const struct dt_thread *t = &run->t[i];
		printf("%s{\"thread\": ", i ? ", " : "");
		cli_json_str(stdout, t->name);
		printf(", \"channel\": ");
		cli_json_str(stdout, t->channel);
		printf(", \"tests\": %" PRIu64 ", \"failures\": %" PRIu64 ", \"iops\": ", t->tests, t->failures);
		if (t->rates)
			printf("%" PRIu64 ".%02u, \"KBps\": %" PRIu64, t->iops_int, t->iops_hundredths, t->kbps);
		else
			printf("null, \"KBps\": null");
		printf(", \"result\": %d}", t->result);
	}
	printf("], \"errors\": [");
	for (size_t i = 0; i < run->nerrors; i++) {
		const struct dt_error *e = &run->errors[i];
		printf("%s{\"thread\": ", i ? ", " : "");
		cli_json_str(stdout, e->thread);
		printf(", \"result\": %" PRIu32 ", \"text\": ", e->result);
		cli_json_str(stdout, e->text);
		printf("}");
	}
	printf("], \"error_lines\": %" PRIu64 ", \"malformed_lines\": %" PRIu64, run->error_lines,
	       run->malformed);
}

/* The run as one JSON object; run NULL (nothing ran) and error the reason, or NULL. */
static void print_json(const struct dt_opts *o, const struct dt_log *run, const char *status,
		       const char *error)
{
	static const struct dt_log none;

	if (!run)
		run = &none;
	printf("{\"command\": \"dmatest\", \"backend\": \"kernel\", \"driver\": \"dmatest\", \"status\": ");
	cli_json_str(stdout, status);
	printf(", \"error\": ");
	if (error)
		cli_json_str(stdout, error);
	else
		printf("null");
	printf(", \"params\": {\"test_buf_size\": %" PRIu64 ", \"iterations\": %" PRIu64
	       ", \"max_channels\": %" PRIu64 ", \"threads_per_chan\": %" PRIu64 ", \"timeout_ms\": %" PRId64
	       ", \"alignment\": %" PRId64 ", \"transfer_size\": %" PRIu64 ", \"norandom\": %s, "
	       "\"noverify\": %s, \"channels\": [",
	       o->buf_size, o->iterations, o->max_channels, o->threads, o->timeout_ms, o->alignment,
	       o->transfer_size, o->random ? "false" : "true", o->noverify ? "true" : "false");
	for (int i = 0; i < o->nchannels; i++) {
		printf(i ? ", " : "");
		cli_json_str(stdout, o->channels[i]);
	}
	printf("]}");
	print_json_threads(run);
	uint64_t g = gbs_hundredths(run->kbps);
	printf(", \"summary\": {\"tests\": %" PRIu64 ", \"failures\": %" PRIu64 ", \"KBps\": %" PRIu64
	       ", \"GBps\": %" PRIu64 ".%02u}}\n", run->tests, run->failures, run->kbps, g / 100,
	       (unsigned)(g % 100));
}

/* ------------------------------------------------------------- command */

enum { O_RANDOM = CLI_OPT_COMMAND_FIRST, O_NOVERIFY, O_POLLED, O_LOG, O_ROOT };

static const struct option dt_longopts[] = {
	{ "channel", required_argument, NULL, 'c' },
	{ "buf-size", required_argument, NULL, 'b' },
	{ "iterations", required_argument, NULL, 'i' },
	{ "max-channels", required_argument, NULL, 'm' },
	{ "threads", required_argument, NULL, 't' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "alignment", required_argument, NULL, 'a' },
	{ "transfer-size", required_argument, NULL, 's' },
	{ "wait", required_argument, NULL, 'w' },
	{ "random", no_argument, NULL, O_RANDOM },
	{ "noverify", no_argument, NULL, O_NOVERIFY },
	{ "polled", no_argument, NULL, O_POLLED },
	{ "log", required_argument, NULL, O_LOG },
	{ "sysfs-root", required_argument, NULL, O_ROOT },
	CLI_COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* -a: -1 (the driver's copy_align) or a log2 alignment 0..31 (dmatest's int alignment). */
static bool alignment_opt(const struct cli *cli, const char *arg, int64_t *out)
{
	uint64_t v;

	if (strcmp(arg, "-1") == 0) {
		*out = -1;
		return true;
	}
	if (cli_parse_uint(arg, 0, 0, 31, &v) == 0) {
		*out = (int64_t)v;
		return true;
	}
	cli_usage_error(cli, "-a/--alignment \"%s\": expected -1 (the driver's copy_align) or a log2 "
			"alignment 0..31, in decimal digits", cli_text(arg));
	return false;
}

static int dt_opt(struct cli *cli, void *state, int c, const char *arg)
{
	struct dt_opts *o = state;
	uint64_t v;
	bool ok;

	switch (c) {
	case 'c':
		if (o->nchannels == MAX_CHANNELS)
			return cli_usage_error(cli, "--channel: at most %d channels", MAX_CHANNELS);
		o->channels[o->nchannels++] = arg;
		return 0;
	case 'b': ok = cli_opt_uint(cli, "-b/--buf-size", arg, CLI_NUM_SIZE, 1, UINT32_MAX, &o->buf_size); break;
	case 'i': ok = cli_opt_uint(cli, "-i/--iterations", arg, 0, 1, UINT32_MAX, &o->iterations); break;
	case 'm': ok = cli_opt_uint(cli, "-m/--max-channels", arg, 0, 1, UINT32_MAX, &o->max_channels); break;
	case 't': ok = cli_opt_uint(cli, "-t/--threads", arg, 0, 1, UINT32_MAX, &o->threads); break;
	case 'T':
		ok = cli_opt_uint(cli, "-T/--timeout", arg, 0, 1, INT32_MAX, &v);
		o->timeout_ms = (int64_t)v;
		break;
	case 'a': ok = alignment_opt(cli, arg, &o->alignment); break;
	case 's':
		ok = cli_opt_uint(cli, "-s/--transfer-size", arg, CLI_NUM_SIZE, 1, UINT32_MAX, &o->transfer_size);
		break;
	case 'w': ok = cli_opt_seconds(cli, "-w/--wait", arg, false, 1e7, &o->wait_s); break;
	case O_RANDOM: o->random = true; return 0;
	case O_NOVERIFY: o->noverify = true; return 0;
	case O_POLLED: o->polled = true; return 0;
	case O_LOG: o->log = arg; return 0;
	case O_ROOT: o->root = arg; return 0;
	default: return CLI_EXIT_USAGE;
	}
	return ok ? 0 : CLI_EXIT_USAGE;
}

static int parse(struct cli *cli, int argc, char **argv, struct dt_opts *o)
{
	static const struct cli_cmd cmd = {
		.shortopts = "c:b:i:m:t:T:a:s:w:", .longopts = dt_longopts, .opt = dt_opt, .help = usage,
		.max_operands = 0, .formats = CLI_FMT_JSON,
	};
	int r = cli_parse(cli, &cmd, o, argc, argv);

	if (r == CLI_CONTINUE && o->transfer_size > o->buf_size)
		r = cli_usage_error(cli, "--transfer-size %" PRIu64 " exceeds --buf-size %" PRIu64,
				    o->transfer_size, o->buf_size);
	return r;
}

static int write_u64(const struct cli *cli, const struct dt_opts *o, const char *name, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	return write_param(cli, o, name, b);
}

static int write_i64(const struct cli *cli, const struct dt_opts *o, const char *name, int64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRId64, v);
	return write_param(cli, o, name, b);
}

static int configure(const struct cli *cli, const struct dt_opts *o)
{
	char p[512];
	int r = 0;

	/* everything the channels pick up when they are added */
	r |= write_u64(cli, o, "dmatest", 0); /* 0 = memcpy */
	r |= write_u64(cli, o, "test_buf_size", o->buf_size);
	r |= write_u64(cli, o, "iterations", o->iterations);
	r |= write_u64(cli, o, "threads_per_chan", o->threads);
	r |= write_u64(cli, o, "max_channels", o->max_channels);
	r |= write_i64(cli, o, "timeout", o->timeout_ms);
	r |= write_i64(cli, o, "alignment", o->alignment);
	r |= write_u64(cli, o, "noverify", o->noverify);
	r |= write_u64(cli, o, "norandom", !o->random);
	r |= write_u64(cli, o, "verbose", 0);
	if (param_path(o, "transfer_size", p, sizeof(p)) == 0 && access(p, F_OK) == 0)
		r |= write_u64(cli, o, "transfer_size", o->transfer_size);
	if (o->polled) {
		if (param_path(o, "polled", p, sizeof(p)) == 0 && access(p, F_OK) == 0)
			r |= write_u64(cli, o, "polled", 1);
		else
			fprintf(stderr, "%s dmatest: this kernel's dmatest has no polled mode; interrupts used\n",
				cli->prog);
	}
	if (r)
		return -EIO;
	/* then the channels: each one takes the parameters above */
	if (o->nchannels == 0)
		return write_param(cli, o, "channel", "");
	for (int i = 0; i < o->nchannels; i++)
		if (write_param(cli, o, "channel", o->channels[i]) < 0)
			return -EIO;
	return 0;
}

/* Before the run: why it cannot start (err filled, *status set), or 0 with the log open. */
static int preflight(const struct dt_opts *o, struct logpos *lp, char *err, size_t len,
		     const char **status)
{
	char p[512];

	if (param_path(o, "run", p, sizeof(p)) < 0 || access(p, F_OK) != 0) {
		snprintf(err, len, "the kernel's dmatest module is not loaded (no %s/module/dmatest). "
			 "Load it as root with: modprobe dmatest (needs CONFIG_DMATEST)", o->root);
		*status = "module absent";
	} else if (running(o)) {
		snprintf(err, len, "a dmatest run is already in progress (run = Y); wait for it or "
			 "stop it with: echo 0 > %s", p);
		*status = "busy";
	} else if (log_open(o, lp, err, len) < 0) {
		*status = "no kernel log";
	} else {
		return 0;
	}
	return -1;
}

/* Start the run and wait for it (at most the --wait time); false after the message. */
static bool run_and_wait(const struct cli *cli, const struct dt_opts *o, const char **status)
{
	if (configure(cli, o) < 0 || write_param(cli, o, "run", "1") < 0) {
		*status = "setup failed";
		return false;
	}
	double wait = o->wait_s > 0 ? o->wait_s
				    : (double)o->iterations * (double)o->timeout_ms / 1000.0 + 10.0;
	struct timespec t0, now, tick = { 0, 50000000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		nanosleep(&tick, NULL);
		if (!running(o))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 > wait) {
			write_param(cli, o, "run", "0");
			cli_error(cli, "the run did not finish within %.0f s; stopped it (run=0)", wait);
			*status = "timed out";
			return false;
		}
	}
}

/* What the log says about the run; the status, with the reason on stderr for any but "ok". */
static const char *judge(const struct cli *cli, const struct dt_opts *o, const struct dt_log *run)
{
	size_t failed = 0;

	if (run->malformed)
		cli_error(cli, "%" PRIu64 " dmatest summary line%s in the kernel log could not be read "
			  "(negative or overflowing counts, or text after them), the first: \"%s\"",
			  run->malformed, run->malformed == 1 ? "" : "s", cli_text(run->first_malformed));
	if (run->n == 0) {
		cli_error(cli, "the run ended but no summary line reached %s (a channel that cannot "
			  "memcpy, or a kernel that logs elsewhere?)", o->log ? o->log : "/dev/kmsg");
		return "no results";
	}
	for (size_t i = 0; i < run->n; i++)
		failed += run->t[i].failures || run->t[i].result;
	if (failed) {
		cli_error(cli, "%zu of %zu thread(s) reported failures: %" PRIu64 " failed tests of %" PRIu64
			  " (the kernel's result lines are above)", failed, run->n, run->failures, run->tests);
		return "failures";
	}
	return run->malformed ? "malformed log" : "ok";
}

int cmd_dmatest(struct cli *cli, int argc, char **argv)
{
	const char *env_root = getenv("OFFLOAD_SYSFS_ROOT");
	struct dt_opts o = { .root = env_root && *env_root ? env_root : "/sys", .buf_size = 8000000,
			     .iterations = 50, .max_channels = 1, .threads = 1, .timeout_ms = 3000,
			     .alignment = -1 };
	struct dt_log run;
	struct logpos lp;
	const char *status = NULL;
	char err[600];
	int r = parse(cli, argc, argv, &o);

	if (r != CLI_CONTINUE)
		return r;
	/* before the run: a message on stderr and, with --json, the object on stdout */
	if (preflight(&o, &lp, err, sizeof(err), &status) < 0) {
		cli_error(cli, "%s", err);
		if (cli->json)
			print_json(&o, NULL, status, err);
		return CLI_EXIT_FAIL;
	}
	dt_log_init(&run);
	bool ran = run_and_wait(cli, &o, &status);
	if (ran) {
		log_read(&lp, &run);
		status = judge(cli, &o, &run);
	} else {
		log_read(&lp, &run); /* what the threads printed before they were stopped */
	}
	if (cli->json)
		print_json(&o, &run, status, strcmp(status, "ok") == 0 ? NULL : status);
	else if (run.n || run.nerrors)
		print_text(cli, &o, &run);
	close(lp.fd);
	dt_log_free(&run);
	return strcmp(status, "ok") == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
