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
	char out[8192], err[4096];
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
	ck_assert_ptr_nonnull(strstr(r->out, "\"errors\": [\"dma1chan2-copy0: #7: 'dstbuf mismatch'"));
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
	suite_add_tcase(s, t);
	return test_run(s);
}
