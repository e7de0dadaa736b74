/* SPDX-License-Identifier: MIT */
/*
 * offloadctl's dmaengine parts, their code linked in: bench memcpy --ab's
 * crossover and the threshold file it writes (read back by the library), and
 * doctor's dmaengine finding (src/offloadctl/cmd_doctor.c, linked
 * in) against the /dev/offload_dma stand-in: the module missing (how to load
 * and build it), the device not accessible (the udev rule), a module of
 * another ABI (a warning), and a working module (its controllers, the
 * threshold not yet measured).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_ab.h"
#include "capture.h"
#include "cli.h"
#include "fakedma.h"
#include "testutil.h"

struct result {
	int code;
	char out[16384];
};

static int run_doctor(void *arg)
{
	(void)arg;
	char *argv[] = { (char *)"doctor", NULL };
	struct cli cli = { .prog = "offloadctl", .cmd = "doctor", .dtb = "none", .backends = "cpu,dmaengine" };
	return cmd_doctor(&cli, 1, argv);
}

/* "offloadctl --dtb none --backends cpu,dmaengine doctor" in this process. */
static struct result *doctor(void)
{
	static struct result r;
	static char err[4096];

	r.code = capture(run_doctor, NULL, r.out, sizeof(r.out), err, sizeof(err));
	return &r;
}

START_TEST(doctor_module_missing)
{
	fake_dma_install(NULL);
	struct result *r = doctor();
	ck_assert_msg(strstr(r->out, "info: the offload_dma kernel module is not loaded") &&
			      strstr(r->out, "[dmaengine-module-missing]") &&
			      strstr(r->out, "sudo modprobe offload_dma") &&
			      strstr(r->out, "make -C kmod && sudo make -C kmod install && sudo depmod"),
		      "%s", r->out);
}
END_TEST

START_TEST(doctor_not_accessible)
{
	struct fake_dma_cfg c;
	fake_dma_cfg_default(&c, 1, "offload-dma-fake", "dma-fake.0", "");
	c.eacces = true;
	fake_dma_install(&c);
	struct result *r = doctor();
	ck_assert_int_eq(r->code, 1);
	ck_assert_msg(strstr(r->out, "warning: /dev/offload_dma exists but this user may not open it") &&
			      strstr(r->out, "[dmaengine-no-access]") &&
			      strstr(r->out, "KERNEL==\"offload_dma\", GROUP=\"dma\", MODE=\"0660\"") &&
			      strstr(r->out, "Permission denied"),
		      "%s", r->out);
}
END_TEST

START_TEST(doctor_abi_mismatch)
{
	struct fake_dma_cfg c;
	fake_dma_cfg_default(&c, 1, "offload-dma-fake", "dma-fake.0", "");
	c.ver.abi_major = 2;
	fake_dma_install(&c);
	struct result *r = doctor();
	ck_assert_int_eq(r->code, 1);
	ck_assert_msg(strstr(r->out, "warning: /dev/offload_dma is there but cannot be used") &&
			      strstr(r->out, "ABI 2.0"), "%s", r->out);
}
END_TEST

START_TEST(doctor_working_module)
{
	struct fake_dma_cfg c;
	fake_dma_cfg_default(&c, 2, "offload-dma-fake", "dma-fake.0", "");
	fake_dma_install(&c);
	unsetenv("OFFLOAD_DMAENGINE_THRESHOLD");
	setenv("OFFLOAD_DMAENGINE_CONF", "/nonexistent/dmaengine.conf", 1);
	struct result *r = doctor();
	ck_assert_int_eq(r->code, 0);
	ck_assert_msg(strstr(r->out, "info: offload_memcpy reaches 1 DMA controller through the "
				    "kernel's dmaengine (offload_dma) [dmaengine-channels]") &&
			      strstr(r->out, "dma0chan0,dma0chan1") &&
			      strstr(r->out, "offloadctl bench memcpy --ab cpu,dmaengine --write-threshold"),
		      "%s", r->out);
	unsetenv("OFFLOAD_DMAENGINE_CONF");
}
END_TEST

START_TEST(crossover_is_from_where_b_always_wins)
{
	static const double a[] = { 10, 10, 10, 10, 10 };
	static const double b1[] = { 20, 5, 20, 5, 5 }, b2[] = { 5, 5, 5, 5, 5 }, b3[] = { 5, 5, 5, 5, 20 };
	static const double b4[] = { 20, 20, 20, 20, 10 }; /* a tie is not a win */
	ck_assert_uint_eq(ab_crossover(a, b1, 5), 3);
	ck_assert_uint_eq(ab_crossover(a, b2, 5), 0);
	ck_assert_uint_eq(ab_crossover(a, b3, 5), 5);
	ck_assert_uint_eq(ab_crossover(a, b4, 5), 5);
}
END_TEST

static char *read_all(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	capture_slurp(f, buf, sizeof(buf));
	return buf;
}

START_TEST(threshold_file_written_and_read)
{
	char path[] = "/tmp/test_ab_conf_XXXXXX", err[256];
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char old[] = "# mine\n* 999\noffload-dma-fake 100\nbcm2835-dma 5\n";
	ck_assert_int_eq(write(fd, old, sizeof(old) - 1), (ssize_t)sizeof(old) - 1);
	close(fd);
	ck_assert_int_eq(ab_write_threshold(path, "offload-dma-fake", 8192, err, sizeof(err)), 0);
	char *text = read_all(path);
	ck_assert_str_eq(text, "# mine\n* 999\nbcm2835-dma 5\noffload-dma-fake 8192\n");
	/* the library reads it */
	struct fake_dma_cfg c;
	fake_dma_cfg_default(&c, 1, "offload-dma-fake", "dma-fake.0", "");
	fake_dma_install(&c);
	unsetenv("OFFLOAD_DMAENGINE_THRESHOLD");
	setenv("OFFLOAD_DMAENGINE_CONF", path, 1);
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.backends = "cpu,dmaengine";
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	struct offload_dev_info info;
	int d = offload_dev_find(ctx, "dma-fake.0");
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.threshold_bytes, 8192);
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_DMAENGINE_CONF");
	/* a file that does not exist yet gets a header and the line */
	unlink(path);
	ck_assert_int_eq(ab_write_threshold(path, "k3-udma", 131072, err, sizeof(err)), 0);
	text = read_all(path);
	ck_assert_msg(strstr(text, "\nk3-udma 131072\n") && text[0] == '#', "%s", text);
	unlink(path);
	/* an unwritable place says so */
	ck_assert_int_lt(ab_write_threshold("/nonexistent-dir/x.conf", "k3-udma", 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "/nonexistent-dir/x.conf.new"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("offloadctl_dmaengine");
	TCase *t = tcase_create("stand-in");
	tcase_add_test(t, crossover_is_from_where_b_always_wins);
	tcase_add_test(t, threshold_file_written_and_read);
	tcase_add_test(t, doctor_module_missing);
	tcase_add_test(t, doctor_not_accessible);
	tcase_add_test(t, doctor_abi_mismatch);
	tcase_add_test(t, doctor_working_module);
	suite_add_tcase(s, t);
	return test_run(s);
}
