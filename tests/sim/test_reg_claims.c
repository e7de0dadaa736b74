/* SPDX-License-Identifier: MIT */
/*
 * One device per register range. Two DT nodes whose reg windows overlap would
 * drive the same engine from two devices and corrupt each other's work;
 * Linux binds the first (devm_ioremap_resource -> __request_region, in
 * kernel/resource.c) and fails the second's probe with -EBUSY. The library
 * must do the same at context open, for every direct backend.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "platform/platform.h"
#include "sim/sim.h"
#include "testutil.h"

static offload_ctx *open_fixture(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.dtb", REGS_FIXTURE_DIR, name);
	return test_ctx_open(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM, NULL);
}

static int dev_at(offload_ctx *ctx, const char *dt_path)
{
	int d = offload_dev_find(ctx, dt_path);

	ck_assert_msg(d >= 0, "%s: %d", dt_path, d);
	return d;
}

static void usable(offload_ctx *ctx, int d)
{
	struct offload_dev_info info;

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_msg(info.flags & OFFLOAD_DEVF_USABLE, "%s: %s", info.dt_path, info.usable_reason);
}

/*
 * Device `d` is not usable, and its reason names the range that overlaps,
 * the node that claimed it first, and the Linux behaviour it follows.
 */
static void refused(offload_ctx *ctx, int d, const char *range, const char *first)
{
	struct offload_dev_info info;
	char want[256];

	ck_assert_int_eq(offload_dev_get_info(ctx, d, &info, sizeof(info)), 0);
	ck_assert_uint_eq(info.flags & OFFLOAD_DEVF_USABLE, 0);
	snprintf(want, sizeof(want), "%s is already claimed by %s", range, first);
	ck_assert_msg(strstr(info.usable_reason, want), "want \"%s\" in: %s", want, info.usable_reason);
	ck_assert_msg(strstr(info.usable_reason, "__request_region, kernel/resource.c: -EBUSY"), "%s",
		      info.usable_reason);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + seed);
}

#ifdef OFFLOAD_HAVE_DSPI
#define DSPI1 "/bus@100000/spi@2100000"
#define DSPI2 "/bus@100000/spi@2110000"

/* Loopback on `child`: 256 bytes out, the same 256 bytes back. */
static int loop256(offload_ctx *ctx, const char *child)
{
	struct offload_spi_opts o;
	offload_spi *spi;
	uint8_t tx[256], rx[256];

	offload_spi_opts_init(&o);
	int r = offload_spi_open(ctx, child, &o, &spi);
	if (r < 0)
		return r;
	fill(tx, sizeof(tx), 7);
	memset(rx, 0, sizeof(rx));
	struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = sizeof(tx) };
	r = offload_spi_transfer(spi, &x, 1);
	ck_assert_int_eq(r, (int)sizeof(tx));
	ck_assert_int_eq(memcmp(rx, tx, sizeof(tx)), 0);
	ck_assert_int_eq(offload_spi_close(spi), 0);
	return 0;
}

START_TEST(second_dspi_on_same_registers_refused)
{
	offload_ctx *ctx = open_fixture("regs-dspi");
	int a = dev_at(ctx, DSPI1), b = dev_at(ctx, DSPI2);

	ck_assert_int_lt(a, b); /* tree order: the original comes first */
	usable(ctx, a);
	refused(ctx, b, "0x2100000-0x210ffff", DSPI1);
	ck_assert_int_eq(loop256(ctx, DSPI1 "/loopback@0"), 0);
	ck_assert_int_eq(offload_spi_open(ctx, DSPI2 "/loopback@0", NULL, &(offload_spi *){ NULL }),
			 -ENODEV);
	offload_ctx_free(ctx);
}
END_TEST

/*
 * The sim never lends one node's model to another: with the first DSPI's
 * claim dropped (as if the claim check were not there), mapping the second
 * node's registers still fails, instead of sharing the first one's model.
 */
START_TEST(sim_model_not_shared_between_nodes)
{
	offload_ctx *ctx = open_fixture("regs-dspi");
	struct ofl_device *a = ofl_ctx_device(ctx, dev_at(ctx, DSPI1));
	struct ofl_device *b = ofl_ctx_device(ctx, dev_at(ctx, DSPI2));
	struct ofl_mmio m;
	char why[OFL_REASON_LEN];

	ofl_ctx_release_regs(ctx, a);
	int r = ofl_mmio_map_reg(b, b->node, NULL, 0, &m, why, sizeof(why));
	ck_assert_msg(r < 0, "mapped the second DSPI onto a model: %s", why);
	ck_assert_msg(strncmp(why, "sim: ", 5) == 0, "%s", why);
	offload_ctx_free(ctx);
}
END_TEST
#endif

#ifdef OFFLOAD_HAVE_EIP97
#define EIP1 "/bus@100000/crypto@4000000"

START_TEST(second_eip97_on_same_or_overlapping_registers_refused)
{
	/* FIPS-197 Appendix C.1: AES-128 */
	static const uint8_t key[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
					 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
	static const uint8_t pt[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	static const uint8_t ct[16] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
					0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a };
	offload_ctx *ctx = open_fixture("regs-eip97");
	int a = dev_at(ctx, EIP1), same = dev_at(ctx, "/bus@100000/crypto@4100000"),
	    part = dev_at(ctx, "/bus@100000/crypto@4010000");
	offload_cipher_session *s;
	uint8_t out[16];
	struct offload_result res;

	usable(ctx, a);
	refused(ctx, same, "0x4000000-0x401ffff", EIP1);
	/* crypto@4010000 [0x4010000, +0x20000) meets [0x4000000, +0x20000) in its first 64 KiB */
	refused(ctx, part, "0x4010000-0x401ffff", EIP1);
	ck_assert_int_eq(offload_cipher_session_open_dev(ctx, a, OFFLOAD_CIPHER_AES_ECB, key, 16, &s), 0);
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .in = pt, .out = out, .len = 16,
					.result = &res };
	ck_assert_int_eq(offload_cipher_session_run(s, &op, sizeof(op)), 0);
	ck_assert_int_eq(memcmp(out, ct, 16), 0);
	ck_assert_int_eq(res.dev, a);
	ck_assert_int_eq(offload_cipher_session_close(s), 0);
	ck_assert_int_eq(offload_cipher_session_open_dev(ctx, same, OFFLOAD_CIPHER_AES_ECB, key, 16, &s),
			 -ENODEV);
	offload_ctx_free(ctx);
}
END_TEST
#endif

#ifdef OFFLOAD_HAVE_UDMA
#define UDMA1 "/bus@100000/bus@30000000/dma-controller@31150000"

START_TEST(second_udma_on_same_registers_refused)
{
	offload_ctx *ctx = open_fixture("regs-udma");
	int a = dev_at(ctx, UDMA1), b = dev_at(ctx, "/bus@100000/bus@30000000/dma-controller@31160000");
	size_t n = 256 << 10;
	uint8_t *src = malloc(n), *dst = malloc(n);
	struct offload_result res;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	if (test_udma_refused_on_32bit(ctx, a)) {
		/* neither UDMA probes its registers, so neither claims them */
		(void)test_udma_refused_on_32bit(ctx, b);
		free(src);
		free(dst);
		offload_ctx_free(ctx);
		return;
	}
	usable(ctx, a);
	/* "gcfg" is the first region the UDMA backend maps */
	refused(ctx, b, "0x31150000-0x311500ff", UDMA1);
	fill(src, n, 3);
	memset(dst, 0, n);
	ck_assert_int_eq(offload_memcpy_dev(ctx, a, dst, src, n, &res), 0);
	ck_assert_int_eq(res.dev, a);
	ck_assert_int_eq(memcmp(dst, src, n), 0);
	ck_assert_int_eq(offload_memcpy_dev(ctx, b, dst, src, n, NULL), -ENODEV);
	free(src);
	free(dst);
	offload_ctx_free(ctx);
}
END_TEST
#endif

/* No real board in the corpus has two engine nodes on one register range. */
START_TEST(real_boards_have_no_conflicting_claims)
{
	const char *dir = getenv("OFFLOAD_TEST_SHARED_DTB");
	DIR *dp = dir && *dir ? opendir(dir) : NULL;
	int boards = 0;

	if (!dp) {
		printf("real_boards_have_no_conflicting_claims: no corpus at \"%s\"; nothing checked\n",
		       dir ? dir : "");
		return;
	}
	for (struct dirent *e; (e = readdir(dp));) {
		size_t l = strlen(e->d_name);
		char path[1024];
		if (l < 4 || strcmp(e->d_name + l - 4, ".dtb") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, path, OFFLOAD_CTX_SIM, NULL);
		for (int i = 0; i < offload_dev_count(ctx); i++) {
			struct offload_dev_info info;
			ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
			ck_assert_msg(!strstr(info.usable_reason, "already claimed"), "%s: %s: %s",
				      e->d_name, info.dt_path, info.usable_reason);
		}
		offload_ctx_free(ctx);
		boards++;
	}
	closedir(dp);
	ck_assert_int_gt(boards, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reg_claims");
	TCase *tc = tcase_create("claims");

#ifdef OFFLOAD_HAVE_DSPI
	tcase_add_test(tc, second_dspi_on_same_registers_refused);
	tcase_add_test(tc, sim_model_not_shared_between_nodes);
#endif
#ifdef OFFLOAD_HAVE_EIP97
	tcase_add_test(tc, second_eip97_on_same_or_overlapping_registers_refused);
#endif
#ifdef OFFLOAD_HAVE_UDMA
	tcase_add_test(tc, second_udma_on_same_registers_refused);
#endif
	tcase_add_test(tc, real_boards_have_no_conflicting_claims);
	suite_add_tcase(s, tc);
	return test_run(s);
}
