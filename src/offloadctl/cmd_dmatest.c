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
 * (older kernels print the iops without decimals) and result lines for
 * failures. They are printed back in the shape offloadctl bench memcpy uses
 * (dmatest's summary line), plus a total, or as JSON.
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

#define MAX_CHANNELS 16
#define MAX_THREADS 64

struct dt_opts {
	const char *root;             /* sysfs root, "/sys" */
	const char *log;              /* kernel log file, NULL = /dev/kmsg */
	const char *channels[MAX_CHANNELS];
	int nchannels;
	long buf_size, iterations, max_channels, threads, timeout_ms, alignment, transfer_size;
	bool noverify, random, polled;
	double wait_s;                /* 0 = derived from iterations and timeout */
};

struct dt_thread {
	char name[64];
	char channel[64];
	uint64_t tests, failures, kbps;
	double iops;
	int result;
};

struct dt_run {
	struct dt_thread t[MAX_THREADS];
	int n;
	char errors[8][200];
	int nerrors, nerror_lines;
};

static void usage(FILE *f, const char *prog)
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
		prog);
}

static bool parse_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
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
		fprintf(stderr, "%s dmatest: cannot open %s: %s%s\n", cli->prog, p, strerror(e),
			e == EACCES ? " (run as root)" : "");
		return -e;
	}
	size_t n = strlen(value);
	ssize_t w = write(fd, value, n);
	int e = errno;
	close(fd);
	if (w != (ssize_t)n) {
		fprintf(stderr, "%s dmatest: writing \"%s\" to %s failed: %s\n", cli->prog, value, p,
			w < 0 ? strerror(e) : "short write");
		return w < 0 ? -e : -EIO;
	}
	return 0;
}

static int write_num(const struct cli *cli, const struct dt_opts *o, const char *name, long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%ld", v);
	return write_param(cli, o, name, b);
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

/* The message text of one line: after a /dev/kmsg "pri,seq,ts,flags;" header or a "[ ts] " stamp. */
static const char *message_of(const char *line, bool kmsg)
{
	if (kmsg) {
		const char *s = strchr(line, ';');
		return s ? s + 1 : line;
	}
	if (line[0] == '[') {
		const char *s = strchr(line, ']');
		if (s) {
			line = s + 1;
			while (*line == ' ')
				line++;
		}
	}
	return line;
}

static void parse_message(struct dt_run *run, const char *m)
{
	if (strncmp(m, "dmatest: ", 9) != 0)
		return;
	m += 9;
	char name[64];
	unsigned long long tests, failures, ip, kb;
	unsigned frac = 0;
	int res, used = 0;
	if (sscanf(m, "%63[^:]: summary %llu tests, %llu failures %llu%n", name, &tests, &failures, &ip,
		   &used) == 4) {
		const char *r = m + used;
		if (*r == '.' && sscanf(r, ".%u%n", &frac, &used) == 1) /* newer kernels: 2 decimals */
			r += used;
		if (sscanf(r, " iops %llu KB/s (%d)", &kb, &res) == 2 && run->n < MAX_THREADS) {
			struct dt_thread *t = &run->t[run->n++];
			snprintf(t->name, sizeof(t->name), "%s", name);
			/* the thread is <channel>-<type><n>, e.g. dma0chan0-copy0 */
			snprintf(t->channel, sizeof(t->channel), "%s", name);
			char *dash = strrchr(t->channel, '-');
			if (dash)
				*dash = '\0';
			t->tests = tests;
			t->failures = failures;
			t->iops = (double)ip + frac / 100.0;
			t->kbps = kb;
			t->result = res;
		}
		return;
	}
	/* failures: "result <thread>: #<n>: '<message>' with src_off=... (<code>)" */
	if (strncmp(m, "result ", 7) == 0 && !strstr(m, "No errors") && !strstr(m, "test passed")) {
		if (run->nerrors < (int)(sizeof(run->errors) / sizeof(run->errors[0])))
			snprintf(run->errors[run->nerrors++], sizeof(run->errors[0]), "%s", m + 7);
		run->nerror_lines++;
	}
}

static void log_read(struct logpos *lp, struct dt_run *run)
{
	char buf[8192];

	if (lp->kmsg) { /* one record per read(); EAGAIN at the end */
		ssize_t n;
		while ((n = read(lp->fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
			if (n <= 0)
				continue; /* EPIPE: records were overwritten; carry on */
			buf[n] = '\0';
			char *nl = strchr(buf, '\n');
			if (nl)
				*nl = '\0';
			parse_message(run, message_of(buf, true));
		}
		return;
	}
	FILE *f = fdopen(dup(lp->fd), "r");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		parse_message(run, message_of(buf, false));
	}
	fclose(f);
}

/* ------------------------------------------------------------- output */

static void print_text(const struct cli *cli, const struct dt_opts *o, const struct dt_run *run)
{
	uint64_t tests = 0, failures = 0, kbps = 0;

	for (int i = 0; i < run->n; i++) {
		const struct dt_thread *t = &run->t[i];
		printf("%s: %s: summary %" PRIu64 " tests, %" PRIu64 " failures %.2f iops %" PRIu64
		       " KB/s (%d)\n", cli->prog, t->name, t->tests, t->failures, t->iops, t->kbps, t->result);
		tests += t->tests;
		failures += t->failures;
		kbps += t->kbps;
	}
	for (int i = 0; i < run->nerrors; i++)
		printf("%s: error: %s\n", cli->prog, run->errors[i]);
	printf("%s dmatest: %d thread(s), %" PRIu64 " tests, %" PRIu64 " failures, %" PRIu64
	       " KB/s (%.2f GB/s) with %ld-byte buffers%s; kernel dmaengine memcpy (dmatest), not "
	       "liboffload\n", cli->prog, run->n, tests, failures, kbps, (double)kbps * 1024.0 / 1e9,
	       o->buf_size, o->noverify ? ", unverified" : ", verified by the kernel");
}

/* The run as one JSON object; run NULL (nothing ran) and error the reason, or NULL. */
static void print_json(const struct dt_opts *o, const struct dt_run *run, const char *status,
		       const char *error)
{
	static const struct dt_run none;
	uint64_t tests = 0, failures = 0, kbps = 0;

	if (!run)
		run = &none;
	printf("{\"command\": \"dmatest\", \"backend\": \"kernel\", \"driver\": \"dmatest\", \"status\": ");
	cli_json_str(stdout, status);
	printf(", \"error\": ");
	if (error)
		cli_json_str(stdout, error);
	else
		printf("null");
	printf(", \"params\": {\"test_buf_size\": %ld, \"iterations\": %ld, \"max_channels\": %ld, "
	       "\"threads_per_chan\": %ld, \"timeout_ms\": %ld, \"alignment\": %ld, \"transfer_size\": %ld, "
	       "\"norandom\": %s, \"noverify\": %s, \"channels\": [",
	       o->buf_size, o->iterations, o->max_channels, o->threads, o->timeout_ms, o->alignment,
	       o->transfer_size, o->random ? "false" : "true", o->noverify ? "true" : "false");
	for (int i = 0; i < o->nchannels; i++) {
		printf(i ? ", " : "");
		cli_json_str(stdout, o->channels[i]);
	}
	printf("]}, \"threads\": [");
	for (int i = 0; i < run->n; i++) {
		const struct dt_thread *t = &run->t[i];
		printf("%s{\"thread\": ", i ? ", " : "");
		cli_json_str(stdout, t->name);
		printf(", \"channel\": ");
		cli_json_str(stdout, t->channel);
		printf(", \"tests\": %" PRIu64 ", \"failures\": %" PRIu64 ", \"iops\": %.2f, \"KBps\": %" PRIu64
		       ", \"result\": %d}", t->tests, t->failures, t->iops, t->kbps, t->result);
		tests += t->tests;
		failures += t->failures;
		kbps += t->kbps;
	}
	printf("], \"errors\": [");
	for (int i = 0; i < run->nerrors; i++) {
		printf(i ? ", " : "");
		cli_json_str(stdout, run->errors[i]);
	}
	printf("], \"summary\": {\"tests\": %" PRIu64 ", \"failures\": %" PRIu64 ", \"KBps\": %" PRIu64
	       ", \"GBps\": %.3f}}\n", tests, failures, kbps, (double)kbps * 1024.0 / 1e9);
}

/* ------------------------------------------------------------- command */

static int parse(struct cli *cli, int argc, char **argv, struct dt_opts *o)
{
	enum { O_RANDOM = 0x2000, O_NOVERIFY, O_POLLED, O_LOG, O_ROOT };
	static const struct option longopts[] = {
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
	int c;

	while ((c = getopt_long(argc, argv, "c:b:i:m:t:T:a:s:w:h", longopts, NULL)) != -1) {
		long v = 0;
		const char *what = NULL;
		switch (c) {
		case 'c':
			if (o->nchannels == MAX_CHANNELS) {
				fprintf(stderr, "%s dmatest: at most %d channels\n", cli->prog, MAX_CHANNELS);
				return CLI_EXIT_USAGE;
			}
			o->channels[o->nchannels++] = optarg;
			continue;
		case 'b': what = "--buf-size"; if (parse_long(optarg, &v) && v > 0) { o->buf_size = v; continue; } break;
		case 'i': what = "--iterations"; if (parse_long(optarg, &v) && v > 0) { o->iterations = v; continue; } break;
		case 'm': what = "--max-channels"; if (parse_long(optarg, &v) && v > 0) { o->max_channels = v; continue; } break;
		case 't': what = "--threads"; if (parse_long(optarg, &v) && v > 0) { o->threads = v; continue; } break;
		case 'T': what = "--timeout"; if (parse_long(optarg, &v) && v > 0) { o->timeout_ms = v; continue; } break;
		case 'a': what = "--alignment"; if (parse_long(optarg, &v) && v >= -1 && v < 32) { o->alignment = v; continue; } break;
		case 's': what = "--transfer-size"; if (parse_long(optarg, &v) && v > 0) { o->transfer_size = v; continue; } break;
		case 'w': {
			char *end;
			what = "--wait";
			o->wait_s = strtod(optarg, &end);
			if (end != optarg && !*end && o->wait_s > 0)
				continue;
			break;
		}
		case O_RANDOM: o->random = true; continue;
		case O_NOVERIFY: o->noverify = true; continue;
		case O_POLLED: o->polled = true; continue;
		case O_LOG: o->log = optarg; continue;
		case O_ROOT: o->root = optarg; continue;
		case 'h':
			usage(stdout, cli->prog);
			return CLI_EXIT_OK;
		default:
			if (cli_common_opt(cli, c, optarg))
				continue;
			usage(stderr, cli->prog);
			return CLI_EXIT_USAGE;
		}
		fprintf(stderr, "%s dmatest: %s \"%s\" is not a valid value\n", cli->prog, what, optarg);
		return CLI_EXIT_USAGE;
	}
	if (!cli_operands_ok(cli, argc, argv, 0, CLI_FMT_JSON))
		return CLI_EXIT_USAGE;
	if (o->transfer_size > o->buf_size) {
		fprintf(stderr, "%s dmatest: --transfer-size %ld exceeds --buf-size %ld\n", cli->prog,
			o->transfer_size, o->buf_size);
		return CLI_EXIT_USAGE;
	}
	return -1;
}

static int configure(const struct cli *cli, const struct dt_opts *o)
{
	char p[512];
	int r = 0;

	/* everything the channels pick up when they are added */
	r |= write_num(cli, o, "dmatest", 0); /* 0 = memcpy */
	r |= write_num(cli, o, "test_buf_size", o->buf_size);
	r |= write_num(cli, o, "iterations", o->iterations);
	r |= write_num(cli, o, "threads_per_chan", o->threads);
	r |= write_num(cli, o, "max_channels", o->max_channels);
	r |= write_num(cli, o, "timeout", o->timeout_ms);
	r |= write_num(cli, o, "alignment", o->alignment);
	r |= write_num(cli, o, "noverify", o->noverify);
	r |= write_num(cli, o, "norandom", !o->random);
	r |= write_num(cli, o, "verbose", 0);
	if (param_path(o, "transfer_size", p, sizeof(p)) == 0 && access(p, F_OK) == 0)
		r |= write_num(cli, o, "transfer_size", o->transfer_size);
	if (o->polled) {
		if (param_path(o, "polled", p, sizeof(p)) == 0 && access(p, F_OK) == 0)
			r |= write_num(cli, o, "polled", 1);
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

int cmd_dmatest(struct cli *cli, int argc, char **argv)
{
	const char *env_root = getenv("OFFLOAD_SYSFS_ROOT");
	struct dt_opts o = { .root = env_root && *env_root ? env_root : "/sys", .buf_size = 8000000, .iterations = 50, .max_channels = 1,
			     .threads = 1, .timeout_ms = 3000, .alignment = -1 };
	struct dt_run *run;
	struct logpos lp;
	char p[512];
	int r = parse(cli, argc, argv, &o);

	if (r >= 0)
		return r;
	/* before the run: a message on stderr and, with --json, the object on stdout */
	char err[600];
	const char *status = NULL;
	if (param_path(&o, "run", p, sizeof(p)) < 0 || access(p, F_OK) != 0) {
		snprintf(err, sizeof(err), "the kernel's dmatest module is not loaded (no %s/module/dmatest). "
			 "Load it as root with: modprobe dmatest (needs CONFIG_DMATEST)", o.root);
		status = "module absent";
	} else if (running(&o)) {
		snprintf(err, sizeof(err), "a dmatest run is already in progress (run = Y); wait for it or "
			 "stop it with: echo 0 > %s", p);
		status = "busy";
	} else if (log_open(&o, &lp, err, sizeof(err)) < 0) {
		status = "no kernel log";
	} else if (!(run = calloc(1, sizeof(*run)))) {
		close(lp.fd);
		snprintf(err, sizeof(err), "out of memory");
		status = "out of memory";
	}
	if (status) {
		fprintf(stderr, "%s dmatest: %s\n", cli->prog, err);
		if (cli->json)
			print_json(&o, NULL, status, err);
		return CLI_EXIT_FAIL;
	}
	status = "ok";
	if (configure(cli, &o) < 0 || write_param(cli, &o, "run", "1") < 0) {
		status = "setup failed";
		r = CLI_EXIT_FAIL;
		goto out;
	}
	double wait = o.wait_s > 0 ? o.wait_s : (double)o.iterations * (double)o.timeout_ms / 1000.0 + 10.0;
	struct timespec t0, now, tick = { 0, 50000000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		nanosleep(&tick, NULL);
		if (!running(&o))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 > wait) {
			write_param(cli, &o, "run", "0");
			fprintf(stderr, "%s dmatest: the run did not finish within %.0f s; stopped it (run=0)\n",
				cli->prog, wait);
			status = "timed out";
			r = CLI_EXIT_FAIL;
			break;
		}
	}
	log_read(&lp, run);
	if (run->n == 0 && r != CLI_EXIT_FAIL) {
		fprintf(stderr, "%s dmatest: the run ended but no summary line reached %s (a channel that "
			"cannot memcpy, or a kernel that logs elsewhere?)\n", cli->prog,
			o.log ? o.log : "/dev/kmsg");
		status = "no results";
		r = CLI_EXIT_FAIL;
	}
	for (int i = 0; i < run->n; i++)
		if (run->t[i].failures || run->t[i].result) {
			status = "failures";
			r = CLI_EXIT_FAIL;
		}
	if (r < 0)
		r = CLI_EXIT_OK;
out:
	if (cli->json)
		print_json(&o, run, status, strcmp(status, "ok") == 0 ? NULL : status);
	else if (run->n || run->nerrors)
		print_text(cli, &o, run);
	close(lp.fd);
	free(run);
	return r;
}
