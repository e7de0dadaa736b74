/* SPDX-License-Identifier: MIT */
/* /proc/crypto parsing and the kernel's pick rule, on stand-in files. */
#include <errno.h>
#include <string.h>

#include "kcapi/proc_crypto.h"
#include "testutil.h"

static const char *path(void)
{
	return DATA_DIR "/proc_crypto_a3720.txt";
}

static const char *pick(const char *name, const char *type)
{
	static struct ofl_proc_crypto_entry e;
	int r = ofl_proc_crypto_pick(path(), name, type, &e);
	return r == 0 ? e.driver : r == -ENOENT ? "ENOENT" : "ERROR";
}

START_TEST(highest_priority_wins)
{
	ck_assert_str_eq(pick("ecb(aes)", "skcipher"), "safexcel-ecb-aes"); /* 300 over 200 */
	ck_assert_str_eq(pick("sha256", "hash"), "safexcel-sha256");       /* ahash fits "hash" */
}
END_TEST

START_TEST(tie_keeps_first_listed)
{
	/* crypto/api.c: a later match needs a strictly higher priority */
	ck_assert_str_eq(pick("cbc(aes)", "skcipher"), "cbc-aes-ce");
}
END_TEST

/*
 * The engine's own entry where the kernel's pick is a CPU driver: on Armada
 * 3720 cbc(aes) ties at 300 and the kernel binds cbc-aes-ce; the kcapi
 * backend binds safexcel-cbc-aes by its driver name instead.
 */
START_TEST(hardware_pick_beats_a_cpu_tie)
{
	struct ofl_proc_crypto_entry e;

	ck_assert_int_eq(ofl_proc_crypto_pick_hw(path(), "cbc(aes)", "skcipher", &e), 0);
	ck_assert_str_eq(e.driver, "safexcel-cbc-aes");
	ck_assert_int_eq(e.priority, 300);
	ck_assert_int_eq(ofl_proc_crypto_pick_hw(path(), "ecb(aes)", "skcipher", &e), 0);
	ck_assert_str_eq(e.driver, "safexcel-ecb-aes");
	/* no hardware entry: md5-generic only; safexcel-gcm-aes failed its self-test */
	ck_assert_int_eq(ofl_proc_crypto_pick_hw(path(), "md5", "hash", &e), -ENOENT);
	ck_assert_int_eq(ofl_proc_crypto_pick_hw(path(), "gcm(aes)", "aead", &e), -ENOENT);
}
END_TEST

/*
 * One driver by its cra_driver_name (OFFLOAD_KCAPI_DRIVER): either of a
 * priority tie, whichever the kernel would pick, and never one AF_ALG
 * cannot bind.
 */
START_TEST(driver_by_name)
{
	struct ofl_proc_crypto_entry e;

	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "cbc(aes)", "skcipher", "safexcel-cbc-aes", &e), 0);
	ck_assert_str_eq(e.driver, "safexcel-cbc-aes");
	ck_assert_str_eq(e.module, "crypto_safexcel");
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "cbc(aes)", "skcipher", "cbc-aes-ce", &e), 0);
	ck_assert_str_eq(e.driver, "cbc-aes-ce");
	/* exact names only: a prefix, another case, another algorithm's driver */
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "cbc(aes)", "skcipher", "cbc-aes-c", &e), -ENOENT);
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "cbc(aes)", "skcipher", "CBC-AES-CE", &e), -ENOENT);
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "cbc(aes)", "skcipher", "ecb-aes-ce", &e), -ENOENT);
	/* self-test not passed, internal, wrong type for the socket */
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "gcm(aes)", "aead", "safexcel-gcm-aes", &e), -ENOENT);
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "__cbc(aes)", "skcipher", "__cbc-aes-neonbs", &e), -ENOENT);
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "md5", "hash", "safexcel-md5", &e), -ENOENT);
	ck_assert_int_eq(ofl_proc_crypto_pick_driver(path(), "md5", "hash", "md5-generic", &e), 0);
}
END_TEST

START_TEST(selftest_internal_and_type_filtered)
{
	/* safexcel-gcm-aes has selftest "unknown": the kernel would not bind it */
	ck_assert_str_eq(pick("gcm(aes)", "aead"), "gcm_base(ctr(aes-generic),ghash-generic)");
	ck_assert_str_eq(pick("__cbc(aes)", "skcipher"), "ENOENT"); /* internal */
	ck_assert_str_eq(pick("cbc(aes)", "aead"), "ENOENT");      /* wrong socket type */
	/* the md5 entry with type "cipher" follows without a blank line */
	ck_assert_str_eq(pick("md5", "hash"), "md5-generic");
	ck_assert_str_eq(pick("ctr(aes)", "skcipher"), "ENOENT");
}
END_TEST

START_TEST(fields_and_missing_file)
{
	struct ofl_proc_crypto_entry e;
	ck_assert_int_eq(ofl_proc_crypto_pick(path(), "ecb(aes)", "skcipher", &e), 0);
	ck_assert_str_eq(e.name, "ecb(aes)");
	ck_assert_str_eq(e.module, "crypto_safexcel");
	ck_assert_str_eq(e.type, "skcipher");
	ck_assert_int_eq(e.priority, 300);
	ck_assert(e.selftest_passed && e.async && !e.internal);
	ck_assert_int_eq(ofl_proc_crypto_pick("/nonexistent/proc/crypto", "md5", "hash", &e), -ENOENT);
}
END_TEST

START_TEST(hardware_driver_names)
{
	ck_assert(ofl_kcapi_driver_is_hw("safexcel-cbc-aes"));
	ck_assert(ofl_kcapi_driver_is_hw("safexcel-hmac-sha256"));
	ck_assert(ofl_kcapi_driver_is_hw("mv-cbc-aes"));
	ck_assert(ofl_kcapi_driver_is_hw("cbc-aes-caam"));
	ck_assert(!ofl_kcapi_driver_is_hw("cbc-aes-ce"));
	ck_assert(!ofl_kcapi_driver_is_hw("cbc-aes-aesni"));
	ck_assert(!ofl_kcapi_driver_is_hw("sha256-generic"));
	ck_assert(!ofl_kcapi_driver_is_hw("gcm_base(ctr(aes-generic),ghash-generic)"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proc_crypto");
	TCase *tc = tcase_create("pick");
	tcase_add_test(tc, highest_priority_wins);
	tcase_add_test(tc, tie_keeps_first_listed);
	tcase_add_test(tc, hardware_pick_beats_a_cpu_tie);
	tcase_add_test(tc, driver_by_name);
	tcase_add_test(tc, selftest_internal_and_type_filtered);
	tcase_add_test(tc, fields_and_missing_file);
	tcase_add_test(tc, hardware_driver_names);
	suite_add_tcase(s, tc);
	return test_run(s);
}
