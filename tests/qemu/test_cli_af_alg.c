/* SPDX-License-Identifier: MIT */
/*
 * The AF_ALG finding of `offloadctl doctor` on the host. Its full run needs
 * a kernel with AF_ALG and is checked in the qemu guest (guest_kcapi.c);
 * here: the pieces it is made of, and doctor itself with a stand-in
 * /proc/crypto (OFFLOAD_PROC_CRYPTO) that says safexcel drivers serve
 * cbc(aes) and sha256. On a host whose kernel has AF_ALG the finding must
 * report those two as hardware; on one without (like the build machine) it
 * must stay silent rather than invent a finding.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "testutil.h"

#ifndef AF_ALG
#define AF_ALG 38
#endif

START_TEST(deprecated_from_7_2)
{
	/* Linux 7.2 deprecated AF_ALG (DESIGN.md). */
	ck_assert(cli_af_alg_deprecated("7.2"));
	ck_assert(cli_af_alg_deprecated("7.2.0-rc1"));
	ck_assert(cli_af_alg_deprecated("7.10.3"));
	ck_assert(cli_af_alg_deprecated("8.0.1-arm64"));
	ck_assert(cli_af_alg_deprecated("10.1"));
	ck_assert(!cli_af_alg_deprecated("7.1.15-arm64"));
	ck_assert(!cli_af_alg_deprecated("6.12.117+deb12-amd64"));
	ck_assert(!cli_af_alg_deprecated("6.1.0-57-amd64"));
	/* unparsable: no claim */
	ck_assert(!cli_af_alg_deprecated("7"));
	ck_assert(!cli_af_alg_deprecated("linux"));
	ck_assert(!cli_af_alg_deprecated(""));
	ck_assert(!cli_af_alg_deprecated(NULL));
}
END_TEST

static const struct cli_alg_probe probes[] = {
	{ "AES-128-CBC", 0, "safexcel-cbc-aes", OFFLOAD_RES_KERNEL | OFFLOAD_RES_HARDWARE, "" },
	{ "DES-ECB", -ENOTSUP, "", 0, "kcapi backend: the kernel has no ecb(des)" },
	{ "SHA256", 0, "sha256-avx2", OFFLOAD_RES_KERNEL, "" },
};

START_TEST(evidence_and_counts)
{
	char buf[256];
	int hw = -1, un = -1;

	ck_assert_int_eq(cli_probe_evidence(probes, 3, buf, sizeof(buf), &hw, &un), 2);
	ck_assert_int_eq(hw, 1);
	ck_assert_int_eq(un, 1);
	ck_assert_str_eq(buf, "AES-128-CBC: safexcel-cbc-aes (hardware); DES-ECB: unavailable; "
			      "SHA256: sha256-avx2 (software)");
}
END_TEST

START_TEST(evidence_truncates_but_counts_all)
{
	char buf[12];
	int hw, un;

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(cli_probe_evidence(probes, 3, buf, sizeof(buf), &hw, &un), 2);
	ck_assert_int_eq(hw, 1);
	ck_assert_int_eq(un, 1);
	ck_assert_int_eq(strlen(buf), sizeof(buf) - 1);
	ck_assert_int_eq(cli_probe_evidence(probes, 0, buf, sizeof(buf), &hw, &un), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(doctor_with_standin_proc_crypto)
{
	char cmd[1024], out[16384];
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	bool af_alg = fd >= 0;

	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof(cmd), "OFFLOAD_PROC_CRYPTO=%s/proc_crypto_hw_standin.txt %s doctor --dtb none 2>&1",
		 DATA_DIR, OFFLOADCTL);
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	int st = pclose(f);
	ck_assert_msg(st == 0, "%s: status %d\n%s", cmd, st, out);
	if (af_alg) {
		/* The stand-in's two hardware drivers, reported as the backend saw them. */
		ck_assert_msg(strstr(out, "[af-alg-drivers]"), "%s", out);
		ck_assert_msg(strstr(out, "AF_ALG reaches a hardware driver for 2 of "), "%s", out);
		ck_assert_msg(strstr(out, "AES-128-CBC: safexcel-cbc-aes (hardware)"), "%s", out);
		ck_assert_msg(strstr(out, "SHA256: safexcel-sha256 (hardware)"), "%s", out);
	} else {
		ck_assert_msg(!strstr(out, "af-alg"), "no AF_ALG here, yet:\n%s", out);
#ifdef OFFLOAD_HAVE_DMAENGINE
		/* the third: the offload_dma module is not loaded on the build host */
		ck_assert_msg(strstr(out, "doctor: 0 warnings, 3 notes") &&
				      strstr(out, "[dmaengine-module-missing]"), "%s", out);
#else
		ck_assert_msg(strstr(out, "doctor: 0 warnings, 2 notes"), "%s", out);
#endif
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli_af_alg");
	TCase *tc = tcase_create("doctor");

	tcase_add_test(tc, deprecated_from_7_2);
	tcase_add_test(tc, evidence_and_counts);
	tcase_add_test(tc, evidence_truncates_but_counts_all);
	tcase_add_test(tc, doctor_with_standin_proc_crypto);
	suite_add_tcase(s, tc);
	return test_run(s);
}
