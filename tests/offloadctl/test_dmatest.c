/* SPDX-License-Identifier: MIT */
/*
 * offloadctl dmatest against a stand-in of the kernel's dmatest module: a
 * /sys/module/dmatest/parameters tree of plain files and a thread that plays
 * the module (waits for run = 1, appends the kernel's messages to a log,
 * sets run back to N). Line formats from drivers/dma/dmatest.c and
 * Documentation/driver-api/dmaengine/dmatest.rst. The command's code is
 * linked into this program, with stdout and stderr captured.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "testutil.h"

static char root[256], logpath[300];

static void path(char *buf, size_t len, const char *param)
{
	snprintf(buf, len, "%s/module/dmatest/parameters/%s", root, param);
}

/*
 * Replace a parameter's value as sysfs does for its readers: at once. A
 * fopen("w") would leave the file empty for a moment, and offloadctl polling
 * "run" could read "" there, take the run for finished and read the log
 * before the stand-in wrote its summary (seen once under ASan on a busy
 * machine).
 */
static void put(const char *param, const char *v)
{
	char p[512], tmp[520];
	path(p, sizeof(p), param);
	snprintf(tmp, sizeof(tmp), "%s.new", p);
	FILE *f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	fputs(v, f);
	fclose(f);
	ck_assert_int_eq(rename(tmp, p), 0);
}

static char *get(const char *param)
{
	static char v[128];
	char p[512];
	path(p, sizeof(p), param);
	FILE *f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	v[strcspn(v, "\n")] = '\0';
	return v;
}

static void logline(const char *l)
{
	FILE *f = fopen(logpath, "a");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", l);
	fclose(f);
}

static void setup(void)
{
	static const char *const params[] = { "channel", "device", "threads_per_chan", "max_channels",
					      "iterations", "test_buf_size", "dmatest", "timeout",
					      "noverify", "norandom", "verbose", "alignment",
					      "transfer_size", "polled", "run", "wait", "test_list" };
	char p[512];

	snprintf(root, sizeof(root), "/tmp/offload-dmatest-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/module", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/module/dmatest", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/module/dmatest/parameters", root);
	mkdir(p, 0755);
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		put(params[i], "0\n");
	put("run", "N\n");
	put("channel", "\n");
	snprintf(logpath, sizeof(logpath), "%s/kmsg.log", root);
	/* an earlier run's lines are in the log already: they must not count */
	logline("[   10.000000] dmatest: dma0chan0-copy0: summary 7 tests, 3 failures 1.00 iops 10 KB/s (0)");
}

static void teardown(void)
{
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* ------------------------------------------------------------- the stand-in module */

struct kernel {
	pthread_t th;
	const char *lines[8]; /* printed when the run starts; NULL-terminated */
	int threads;          /* then this many channels' summary lines, "dma<i>chan0-copy0" */
	bool never_finish;
	char seen_buf_size[32], seen_iterations[32], seen_channel[32], seen_norandom[8], seen_max[8];
	char seen_noverify[8], seen_dmatest[8], seen_alignment[8];
	volatile bool stop;
};

static void *kernel_main(void *arg)
{
	struct kernel *k = arg;

	while (!k->stop) {
		if (strcmp(get("run"), "1") == 0) {
			snprintf(k->seen_buf_size, sizeof(k->seen_buf_size), "%s", get("test_buf_size"));
			snprintf(k->seen_iterations, sizeof(k->seen_iterations), "%s", get("iterations"));
			snprintf(k->seen_channel, sizeof(k->seen_channel), "%s", get("channel"));
			snprintf(k->seen_norandom, sizeof(k->seen_norandom), "%s", get("norandom"));
			snprintf(k->seen_noverify, sizeof(k->seen_noverify), "%s", get("noverify"));
			snprintf(k->seen_max, sizeof(k->seen_max), "%s", get("max_channels"));
			snprintf(k->seen_dmatest, sizeof(k->seen_dmatest), "%s", get("dmatest"));
			snprintf(k->seen_alignment, sizeof(k->seen_alignment), "%s", get("alignment"));
			put("run", "Y\n");
			for (int i = 0; k->lines[i]; i++)
				logline(k->lines[i]);
			for (int i = 0; i < k->threads; i++) {
				char l[128];
				snprintf(l, sizeof(l), "dmatest: dma%dchan0-copy0: summary 10 tests, 0 failures "
					 "1.00 iops 7 KB/s (0)", i);
				logline(l);
			}
			if (!k->never_finish)
				put("run", "N\n");
			return NULL;
		}
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	return NULL;
}

/* ------------------------------------------------------------- running the command */

struct result {
	int code;
	char out[65536], err[8192];
};

struct call {
	struct cli cli;
	int argc;
	char **argv;
};

static int call_cmd(void *arg)
{
	struct call *c = arg;

	optind = 0;
	return cmd_dmatest(&c->cli, c->argc, c->argv);
}

static struct result *dmatest(bool json, const char *first, ...)
{
	static struct result r;
	char *argv[40];
	int argc = 0;
	va_list ap;
	char rootopt[300], logopt[320];

	argv[argc++] = (char *)"dmatest";
	snprintf(rootopt, sizeof(rootopt), "--sysfs-root=%s", root);
	snprintf(logopt, sizeof(logopt), "--log=%s", logpath);
	argv[argc++] = rootopt;
	argv[argc++] = logopt;
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	struct call c = { .cli = { .prog = "offloadctl", .cmd = "dmatest", .json = json },
			  .argc = argc, .argv = argv };
	r.code = capture(call_cmd, &c, r.out, sizeof(r.out), r.err, sizeof(r.err));
	return &r;
}

START_TEST(j721e_defaults)
{
	struct kernel k = { .lines = {
		"[  100.000001] dmatest: Added 1 threads using dma0chan0",
		"[  100.000010] dmatest: Started 1 threads using dma0chan0",
		"[  102.270001] dmatest: dma0chan0-copy0: summary 50 tests, 0 failures 225.54 iops 1762038 KB/s (0)",
		NULL } };

	pthread_create(&k.th, NULL, kernel_main, &k);
	struct result *r = dmatest(false, NULL);
	k.stop = true;
	pthread_join(k.th, NULL);
	ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
	/* the J721E figures' setup (hw/k3_udma.h §2): 8,000,000-byte buffers, 50 iterations, 1 channel */
	ck_assert_str_eq(k.seen_buf_size, "8000000");
	ck_assert_str_eq(k.seen_iterations, "50");
	ck_assert_str_eq(k.seen_max, "1");
	ck_assert_str_eq(k.seen_channel, "");   /* any channel */
	ck_assert_str_eq(k.seen_norandom, "1"); /* every transfer is a whole buffer */
	ck_assert_str_eq(k.seen_noverify, "0");
	ck_assert_str_eq(k.seen_dmatest, "0");  /* memcpy */
	ck_assert_str_eq(k.seen_alignment, "-1");
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: dma0chan0-copy0: summary 50 tests, 0 failures "
					     "225.54 iops 1762038 KB/s (0)\n"));
	/* 1762038 KiB/s = 1.804 GB/s; the earlier run's line is not counted */
	ck_assert_ptr_nonnull(strstr(r->out, "1 thread(s), 50 tests, 0 failures, 1762038 KB/s (1.80 GB/s)"));
	ck_assert_ptr_nonnull(strstr(r->out, "not liboffload"));
}
END_TEST

START_TEST(two_channels_old_format_with_failures_json)
{
	struct kernel k = { .lines = {
		"dmatest: result dma1chan2-copy0: #7: 'dstbuf mismatch' with src_off=0x0 dst_off=0x0 len=0x7a1200 (3)",
		"dmatest: dma1chan2-copy0: summary 50 tests, 1 failures 224 iops 1700000 KB/s (0)",
		"dmatest: dma1chan3-copy0: summary 50 tests, 0 failures 230 iops 1800000 KB/s (0)",
		NULL } };

	pthread_create(&k.th, NULL, kernel_main, &k);
	struct result *r = dmatest(true, "-c", "dma1chan2", "--channel=dma1chan3", "-b", "4096",
				   "-i", "50", NULL);
	k.stop = true;
	pthread_join(k.th, NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_str_eq(k.seen_buf_size, "4096");
	ck_assert_str_eq(k.seen_channel, "dma1chan3"); /* the last channel written */
	ck_assert_ptr_nonnull(strstr(r->out, "\"status\": \"failures\""));
	ck_assert_ptr_nonnull(strstr(r->out, "{\"thread\": \"dma1chan2-copy0\", \"channel\": \"dma1chan2\", "
					     "\"tests\": 50, \"failures\": 1, \"iops\": 224.00, \"KBps\": 1700000"));
	ck_assert_ptr_nonnull(strstr(r->out, "\"channels\": [\"dma1chan2\", \"dma1chan3\"]"));
	ck_assert_ptr_nonnull(strstr(r->out, "\"errors\": [{\"thread\": \"dma1chan2-copy0\", \"result\": 7, "
					     "\"text\": \"'dstbuf mismatch' with src_off=0x0 dst_off=0x0 len=0x7a1200 (3)\"}]"));
	ck_assert_ptr_nonnull(strstr(r->err, "1 of 2 thread(s) reported failures"));
	ck_assert_ptr_nonnull(strstr(r->out, "\"summary\": {\"tests\": 100, \"failures\": 1, \"KBps\": 3500000"));
}
END_TEST

START_TEST(module_absent)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/module'", root);
	ck_assert_int_eq(system(cmd), 0);
	struct result *r = dmatest(false, NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_ptr_nonnull(strstr(r->err, "modprobe dmatest"));
	ck_assert_ptr_nonnull(strstr(r->err, "not loaded"));

	/* --json: scripts get an object with the reason on stdout even when nothing could run */
	static const char head[] = "{\"command\": \"dmatest\"";
	r = dmatest(true, NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_msg(strncmp(r->out, head, strlen(head)) == 0, "stdout: %s", r->out);
	ck_assert_ptr_nonnull(strstr(r->out, "\"status\": \"module absent\", \"error\": \"the kernel's "
					     "dmatest module is not loaded"));
	ck_assert_ptr_nonnull(strstr(r->out, "\"threads\": [], \"errors\": []"));
	ck_assert_int_eq(r->out[strlen(r->out) - 2], '}');
	ck_assert_ptr_nonnull(strstr(r->err, "modprobe dmatest"));
}
END_TEST

START_TEST(already_running)
{
	put("run", "Y\n");
	struct result *r = dmatest(false, NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_ptr_nonnull(strstr(r->err, "already in progress"));
	ck_assert_str_eq(get("test_buf_size"), "0"); /* nothing was touched */
}
END_TEST

START_TEST(run_that_never_ends_is_stopped)
{
	struct kernel k = { .lines = { NULL }, .never_finish = true };

	pthread_create(&k.th, NULL, kernel_main, &k);
	struct result *r = dmatest(true, "--wait", "0.3", NULL);
	k.stop = true;
	pthread_join(k.th, NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_ptr_nonnull(strstr(r->err, "did not finish within"));
	ck_assert_str_eq(get("run"), "0");
	ck_assert_ptr_nonnull(strstr(r->out, "\"status\": \"timed out\""));
}
END_TEST

START_TEST(no_summary_is_a_failure)
{
	struct kernel k = { .lines = { "dmatest: Started 1 threads using dma0chan0", NULL } };

	pthread_create(&k.th, NULL, kernel_main, &k);
	struct result *r = dmatest(false, NULL);
	k.stop = true;
	pthread_join(k.th, NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_ptr_nonnull(strstr(r->err, "no summary line"));
}
END_TEST

START_TEST(bad_options)
{
	ck_assert_int_eq(dmatest(false, "--buf-size", "0", NULL)->code, CLI_EXIT_USAGE);
	ck_assert_int_eq(dmatest(false, "-i", "x", NULL)->code, CLI_EXIT_USAGE);
	ck_assert_int_eq(dmatest(false, "-a", "40", NULL)->code, CLI_EXIT_USAGE);
	struct result *r = dmatest(false, "-b", "100", "-s", "200", NULL);
	ck_assert_int_eq(r->code, CLI_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(r->err, "exceeds"));
	ck_assert_int_eq(dmatest(false, "extra", NULL)->code, CLI_EXIT_USAGE);
	ck_assert_str_eq(get("run"), "N"); /* nothing started */
}
END_TEST

/* ------------------------------------------------------------- the log's layouts */

/* Run with the kernel printing lines; the exit status, stdout in r->out. */
static struct result *run_with(const char *const *lines, bool json)
{
	struct kernel k = { .lines = { NULL } };

	for (int i = 0; lines[i] && i < 7; i++)
		k.lines[i] = lines[i];
	pthread_create(&k.th, NULL, kernel_main, &k);
	struct result *r = dmatest(json, NULL);
	k.stop = true;
	pthread_join(k.th, NULL);
	return r;
}

START_TEST(every_layout_of_the_kernel)
{
	/*
	 * One line per layout, written from dmatest.c's format strings over its history:
	 * "%s: summary %u tests, %u failures %llu.%02llu iops %llu KB/s (%d)" (5.0 on),
	 * "%s: summary %u tests, %u failures %llu iops %llu KB/s (%d)" (3.14 .. 4.x),
	 * "%s: terminating after %u tests, %u failures %llu iops %llu KB/s (status %d)" (3.13),
	 * "%s: terminating after %u tests, %u failures (status %d)" (up to 3.12, before
	 * pr_fmt() added "dmatest: "), and the result lines "%s: result #%u: '%s' with
	 * src_off=0x%x dst_off=0x%x len=0x%x (%lu)" (3.14 on, %ld when negative) and
	 * "%s: #%u: %s with src_off=0x%x dst_off=0x%x len=0x%x (%lu)" (3.11 .. 3.13).
	 */
	static const char *const lines[] = {
		"[ 1.0] dmatest: dma0chan0-copy0: summary 50 tests, 0 failures 8099.98 iops 63281171 KB/s (0)",
		"[ 1.1] dmatest: dma0chan1-copy0: summary 40 tests, 0 failures 224 iops 1700000 KB/s (0)",
		"[ 1.2] dmatest: dma0chan2-copy0: terminating after 30 tests, 1 failures 10 iops 20 KB/s (status 0)",
		"[ 1.3] dma0chan3-copy0: terminating after 20 tests, 2 failures (status -5)",
		"[ 1.4] dmatest: dma0chan2-copy0: result #7: 'dstbuf mismatch' with src_off=0x10 dst_off=0x20 len=0x30 (-110)",
		"[ 1.5] dmatest: dma0chan3-copy0: #12: test timed out with src_off=0x0 dst_off=0x0 len=0x4 (0)",
		NULL,
	};
	struct result *r = run_with(lines, false);

	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	/* the kernel's figures exactly as it printed them: 8099.98 (not rounded again) */
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: dma0chan0-copy0: summary 50 tests, 0 failures 8099.98 iops 63281171 KB/s (0)\n"));
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: dma0chan1-copy0: summary 40 tests, 0 failures 224.00 iops 1700000 KB/s (0)\n"));
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: dma0chan2-copy0: summary 30 tests, 1 failures 10.00 iops 20 KB/s (0)\n"));
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: dma0chan3-copy0: summary 20 tests, 2 failures 0.00 iops 0 KB/s (-5)\n"));
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: error: dma0chan2-copy0: #7: 'dstbuf mismatch' with src_off=0x10"));
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: error: dma0chan3-copy0: #12: test timed out"));
	/* 140 tests, 3 failures; 63281171 + 1700000 + 20 KiB/s = 64981191 KiB/s = 66.54 GB/s (66.5407...) */
	ck_assert_ptr_nonnull(strstr(r->out, "4 thread(s), 140 tests, 3 failures, 64981191 KB/s (66.54 GB/s)"));
	ck_assert_ptr_nonnull(strstr(r->err, "2 of 4 thread(s) reported failures: 3 failed tests of 140"));

	r = run_with(lines, true);
	ck_assert_ptr_nonnull(strstr(r->out, "{\"thread\": \"dma0chan0-copy0\", \"channel\": \"dma0chan0\", \"tests\": 50, "
					     "\"failures\": 0, \"iops\": 8099.98, \"KBps\": 63281171, \"result\": 0}"));
	/* the oldest layout has no rates: null, not 0 */
	ck_assert_ptr_nonnull(strstr(r->out, "\"tests\": 20, \"failures\": 2, \"iops\": null, \"KBps\": null, \"result\": -5}"));
	ck_assert_ptr_nonnull(strstr(r->out, "{\"thread\": \"dma0chan3-copy0\", \"result\": 12, \"text\": \"test timed out"));
	ck_assert_ptr_nonnull(strstr(r->out, "\"error_lines\": 2, \"malformed_lines\": 0"));
}
END_TEST

START_TEST(iops_kept_exact)
{
	/* 2^53 + 1 is not a double: the iops must be kept as the kernel's digits */
	static const char *const lines[] = {
		"dmatest: dma0chan0-copy0: summary 4 tests, 0 failures 9007199254740993.05 iops 72057594037927936 KB/s (0)",
		NULL,
	};
	struct result *r = run_with(lines, false);

	ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
	ck_assert_ptr_nonnull(strstr(r->out, "summary 4 tests, 0 failures 9007199254740993.05 iops 72057594037927936 KB/s (0)"));
}
END_TEST

START_TEST(negative_and_overflowing_counts_are_refused)
{
	static const char *const lines[] = {
		"dmatest: dma0chan0-copy0: summary -5 tests, 0 failures 1.00 iops 10 KB/s (0)",
		"dmatest: dma0chan1-copy0: summary 4294967296 tests, 0 failures 1.00 iops 10 KB/s (0)",
		"dmatest: dma0chan2-copy0: summary 5 tests, -1 failures 1.00 iops 10 KB/s (0)",
		"dmatest: dma0chan3-copy0: summary 5 tests, 0 failures 1.5 iops 10 KB/s (0)",
		"dmatest: dma0chan4-copy0: summary 5 tests, 0 failures 1.00 iops 99999999999999999999 KB/s (0)",
		"dmatest: dma0chan5-copy0: summary 5 tests, 0 failures 1.00 iops 10 KB/s (0) trailing",
		"dmatest: dma0chan6-copy0: summary 6 tests, 0 failures 2.50 iops 30 KB/s (0)",
		NULL,
	};
	struct result *r = run_with(lines, true);

	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_ptr_nonnull(strstr(r->out, "\"status\": \"malformed log\""));
	ck_assert_ptr_nonnull(strstr(r->out, "\"malformed_lines\": 6"));
	/* only the well-formed line counts */
	ck_assert_ptr_nonnull(strstr(r->out, "\"summary\": {\"tests\": 6, \"failures\": 0, \"KBps\": 30"));
	ck_assert_ptr_null(strstr(r->out, "18446744073709551611")); /* -5 read as 2^64 - 5 */
	ck_assert_ptr_nonnull(strstr(r->err, "6 dmatest summary lines in the kernel log could not be read"));
	ck_assert_ptr_nonnull(strstr(r->err, "summary -5 tests"));
}
END_TEST

START_TEST(more_than_64_threads)
{
	/* 100 channels, one thread each (max_channels 100): every summary counts */
	struct kernel k = { .lines = { NULL }, .threads = 100 };

	pthread_create(&k.th, NULL, kernel_main, &k);
	struct result *r = dmatest(false, "-m", "100", NULL);
	k.stop = true;
	pthread_join(k.th, NULL);
	ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
	ck_assert_ptr_nonnull(strstr(r->out, "offloadctl: dma99chan0-copy0: summary 10 tests"));
	ck_assert_ptr_nonnull(strstr(r->out, "100 thread(s), 1000 tests, 0 failures, 700 KB/s"));
}
END_TEST

START_TEST(control_bytes_never_reach_the_terminal)
{
	static const char *const lines[] = {
		"dmatest: dma0chan0-copy0: result #3: '\x1b[2J\x1b]0;pwned\x07' with src_off=0x0 dst_off=0x0 len=0x1 (1)",
		"dmatest: dma0chan0-copy0: result #4: '\xff\xfe' with src_off=0x0 dst_off=0x0 len=0x1 (1)",
		"dmatest: dma0chan0-copy0: summary 3 tests, 1 failures 1.00 iops 1 KB/s (0)",
		NULL,
	};
	struct result *r = run_with(lines, false);

	ck_assert_int_eq(r->code, CLI_EXIT_FAIL);
	ck_assert_ptr_null(strchr(r->out, '\x1b'));
	ck_assert_ptr_null(strchr(r->out, '\x07'));
	ck_assert_ptr_nonnull(strstr(r->out, "#3: '\\x1b[2J\\x1b]0;pwned\\x07'"));
	r = run_with(lines, true);
	ck_assert_ptr_nonnull(strstr(r->out, "\"text\": \"'\\u001b[2J\\u001b]0;pwned\\u0007' with"));
	/* bytes that are not UTF-8: U+FFFD each, so that the JSON stays valid UTF-8 */
	ck_assert_ptr_nonnull(strstr(r->out, "\"text\": \"'\\ufffd\\ufffd' with"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dmatest");
	TCase *t = tcase_create("standin");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, j721e_defaults);
	tcase_add_test(t, two_channels_old_format_with_failures_json);
	tcase_add_test(t, module_absent);
	tcase_add_test(t, already_running);
	tcase_add_test(t, run_that_never_ends_is_stopped);
	tcase_add_test(t, no_summary_is_a_failure);
	tcase_add_test(t, bad_options);
	tcase_add_test(t, every_layout_of_the_kernel);
	tcase_add_test(t, iops_kept_exact);
	tcase_add_test(t, negative_and_overflowing_counts_are_refused);
	tcase_add_test(t, more_than_64_threads);
	tcase_add_test(t, control_bytes_never_reach_the_terminal);
	suite_add_tcase(s, t);
	return test_run(s);
}
