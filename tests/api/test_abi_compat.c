/* SPDX-License-Identifier: MIT */
/*
 * The ABI as programs built against other releases see it, through the
 * public header and liboffload.so only (no internal header, no static
 * library):
 *  - a caller compiled against liboffload 0.1.0: its struct layouts are
 *    copied below from 0.1.0's headers, and it calls the 0.1 entry points
 *    by their version (name@OFFLOAD_0, as the dynamic linker binds a 0.1.0
 *    binary). The library must fill what that layout has and write nothing
 *    past it;
 *  - a caller compiled against a newer, longer struct: the tail this
 *    library does not know is zeroed (out) or must be zero (in);
 *  - an older, shorter one than the current header's: nothing is written
 *    past its size.
 * Expected values are facts of the inputs: the CPU device documented in
 * offload/core.h, the virtual board's DSPI flash node (src/sim/virtual-board.dts:
 * CS1, spi-cpol + spi-cpha, 10 MHz, 100/50 ns CS delays; READ ID answers
 * 20h BAh 18h, Micron N25Q128A13 datasheet), FIPS-197 appendix C.1.
 *
 *   test_abi_compat core|spi|version   (spi exits 77 without the models)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>

static int failures;

#define CHECK(cond)                                                                         \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: FAIL: %s (last error: %s)\n", __FILE__, __LINE__, \
				#cond, offload_last_error(NULL));                           \
			failures++;                                                         \
		}                                                                           \
	} while (0)

#define CANARY 0xa5

/* ------------------------------------------------------- 0.1.0's layouts */

struct dev_info_0_1 {
	int index;
	const char *name, *kind, *dt_path, *compatible, *status, *backend, *candidates,
		*usable_reason;
	uint32_t caps, flags;
	uint64_t phys_addr, phys_size;
	int coherent;
	const char *coherent_reason;
	enum offload_cache_mode cache_mode;
	const char *cache_reason;
	uint32_t burst_bytes;
	const char *burst_reason;
	uint32_t align_bytes;
	const char *align_reason;
	uint64_t threshold_bytes;
	const char *threshold_reason, *transfer_mode, *transfer_reason, *phys_reason,
		*coherent_node;
	int soc_io_coherent;
	const char *soc_io_coherent_reason;
	uint32_t burst_by_class[3];
	int memcpy_class;
};

struct spi_info_0_1 {
	const char *backend, *path;
	int dev, chip_select;
	uint32_t mode, max_speed_hz, actual_speed_hz;
	uint8_t bits_per_word;
	uint32_t cs_setup_ns, cs_hold_ns, max_message_bytes, flags;
};

struct cipher_op_0_1 {
	enum offload_cipher_alg alg;
	enum offload_cipher_dir dir;
	const void *key;
	size_t key_len;
	const void *iv;
	size_t iv_len;
	const void *aad;
	size_t aad_len;
	const void *in;
	void *out;
	size_t len;
	void *tag;
	size_t tag_len;
	struct offload_result *result;
};

struct ctx_opts_0_1 {
	uint32_t size;
	uint32_t flags;
	enum offload_dt_source dt_source;
	const char *dtb_path;
	const void *dtb_blob;
	size_t dtb_size;
	const char *backends;
};

/* The 0.1 entry points, bound by version as a 0.1.0 binary binds them. */
void old_ctx_opts_init(struct ctx_opts_0_1 *opts);
int old_ctx_open(offload_ctx *ctx, const struct ctx_opts_0_1 *opts);
__asm__(".symver old_ctx_opts_init, offload_ctx_opts_init@OFFLOAD_0");
__asm__(".symver old_ctx_open, offload_ctx_open@OFFLOAD_0");
int old_dev_info(const offload_ctx *ctx, int index, struct dev_info_0_1 *info);
int old_dev_stats(const offload_ctx *ctx, int dev, struct offload_dev_stats *out, size_t size);
int old_spi_info(const offload_spi *spi, struct spi_info_0_1 *info);
int old_spi_xfer(offload_spi *spi, const struct offload_spi_xfer *x, unsigned n);
int old_cipher(offload_ctx *ctx, const struct cipher_op_0_1 *op);
int old_cipher_session_run(offload_cipher_session *s, const struct cipher_op_0_1 *op);
__asm__(".symver old_dev_info, offload_dev_info@OFFLOAD_0");
__asm__(".symver old_dev_stats, offload_dev_stats@OFFLOAD_0");
__asm__(".symver old_spi_info, offload_spi_info@OFFLOAD_0");
__asm__(".symver old_spi_xfer, offload_spi_xfer@OFFLOAD_0");
__asm__(".symver old_cipher, offload_cipher@OFFLOAD_0");
__asm__(".symver old_cipher_session_run, offload_cipher_session_run@OFFLOAD_0");

static int untouched(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (size_t i = from; i < to; i++)
		if (b[i] != CANARY)
			return 0;
	return 1;
}

static int zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

static offload_ctx *open_ctx(enum offload_dt_source src)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	offload_ctx_opts_init(&o);
	o.dt_source = src;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (!ctx || offload_ctx_open(ctx, &o) < 0) {
		offload_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

/* ------------------------------------------------------- device info */

static void dev_info(offload_ctx *ctx)
{
	int cpu = offload_dev_find(ctx, "cpu");
	struct offload_dev_info cur;

	CHECK(cpu >= 0);
	CHECK(offload_dev_get_info(ctx, cpu, &cur, sizeof(cur)) == 0);

	/* A 0.1.0 binary through its entry point: its struct filled, nothing past it. */
	union {
		struct dev_info_0_1 d;
		unsigned char raw[sizeof(struct dev_info_0_1) + 64];
	} o;
	memset(&o, CANARY, sizeof(o));
	CHECK(old_dev_info(ctx, cpu, &o.d) == 0);
	CHECK(untouched(&o, sizeof(o.d), sizeof(o)));
	CHECK(o.d.index == cpu);
	CHECK(strcmp(o.d.name, "cpu") == 0 && strcmp(o.d.kind, "cpu") == 0);
	CHECK(strcmp(o.d.dt_path, "") == 0 && strcmp(o.d.status, "okay") == 0);
	CHECK(strcmp(o.d.backend, "cpu") == 0);
	CHECK((o.d.flags & (OFFLOAD_DEVF_CPU | OFFLOAD_DEVF_USABLE)) ==
	      (OFFLOAD_DEVF_CPU | OFFLOAD_DEVF_USABLE));
	CHECK(o.d.caps & OFFLOAD_CAP_MEMCPY);
	CHECK(o.d.memcpy_class == -1);
	CHECK(o.d.burst_by_class[0] == 0 && o.d.burst_by_class[1] == 0 && o.d.burst_by_class[2] == 0);
	/* ... and every field equal to what a current caller gets. */
	CHECK(memcmp(&o.d, &cur, sizeof(o.d)) == 0);
	/* 0.1's errors stay errors. */
	CHECK(old_dev_info(ctx, -1, &o.d) == -ENODEV);
	CHECK(old_dev_info(ctx, cpu, NULL) == -EINVAL);
	CHECK(old_dev_info(NULL, 0, &o.d) == -EINVAL);

	/* The 0.1 layout's size through the 0.2 call: the same. */
	memset(&o, CANARY, sizeof(o));
	CHECK(offload_dev_get_info(ctx, cpu, (struct offload_dev_info *)&o.d, sizeof(o.d)) == 0);
	CHECK(untouched(&o, sizeof(o.d), sizeof(o)));
	CHECK(memcmp(&o.d, &cur, sizeof(o.d)) == 0);

	/* An older, shorter layout still (index and name only): nothing past it. */
	size_t short_size = offsetof(struct offload_dev_info, kind);
	memset(&o, CANARY, sizeof(o));
	CHECK(offload_dev_get_info(ctx, cpu, (struct offload_dev_info *)&o.d, short_size) == 0);
	CHECK(o.d.index == cpu && strcmp(o.d.name, "cpu") == 0);
	CHECK(untouched(&o, short_size, sizeof(o)));

	/* A newer, longer layout: what this library has, then zeros. */
	struct {
		struct offload_dev_info d;
		uint64_t later[8];
	} n;
	memset(&n, CANARY, sizeof(n));
	CHECK(offload_dev_get_info(ctx, cpu, &n.d, sizeof(n)) == 0);
	CHECK(memcmp(&n.d, &cur, sizeof(cur)) == 0);
	CHECK(zero((const char *)&n + sizeof(cur), sizeof(n) - sizeof(cur)));

	CHECK(offload_dev_get_info(ctx, cpu, &cur, 0) == -EINVAL);
	CHECK(strstr(offload_last_error(ctx), "size is 0") != NULL);
	/* A size no layout will reach (over a page) is refused before anything is written. */
	memset(&n, CANARY, sizeof(n));
	CHECK(offload_dev_get_info(ctx, cpu, &n.d, SIZE_MAX) == -EINVAL);
	CHECK(strstr(offload_last_error(ctx), "more than any struct offload_dev_info will have (4096 bytes)") != NULL);
	CHECK(offload_dev_get_info(ctx, cpu, &n.d, 4097) == -EINVAL);
	CHECK(untouched(&n, 0, sizeof(n)));
}

static void dev_stats(offload_ctx *ctx)
{
	int cpu = offload_dev_find(ctx, "cpu");
	union {
		struct offload_dev_stats s;
		unsigned char raw[sizeof(struct offload_dev_stats) + 32];
	} o;

	/* A fresh context has done no work: every counter 0, through both names. */
	memset(&o, CANARY, sizeof(o));
	CHECK(old_dev_stats(ctx, cpu, &o.s, sizeof(o.s)) == 0);
	CHECK(zero(&o.s, sizeof(o.s)) && untouched(&o, sizeof(o.s), sizeof(o)));
	memset(&o, CANARY, sizeof(o));
	CHECK(offload_dev_get_stats(ctx, cpu, &o.s, sizeof(uint64_t)) == 0); /* only cache_clean_calls */
	CHECK(o.s.cache_clean_calls == 0 && untouched(&o, sizeof(uint64_t), sizeof(o)));
	memset(&o, CANARY, sizeof(o));
	CHECK(offload_dev_get_stats(ctx, cpu, &o.s, sizeof(o)) == 0); /* newer: tail zeroed */
	CHECK(zero(&o, sizeof(o)));
	memset(&o, CANARY, sizeof(o));
	CHECK(offload_dev_get_stats(ctx, cpu, &o.s, SIZE_MAX) == -EINVAL);
	CHECK(strstr(offload_last_error(ctx), "more than any struct offload_dev_stats will have") != NULL);
	CHECK(untouched(&o, 0, sizeof(o)));
}

/* ------------------------------------------------------- cipher op */

/* FIPS-197 appendix C.1: AES-128. */
static const uint8_t key128[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
				    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
static const uint8_t pt[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
				0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const uint8_t ct[16] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
				0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a };

static void cipher(offload_ctx *ctx)
{
	uint8_t out[16];
	struct offload_result res;

	/* Without a crypto backend (no OpenSSL, no AF_ALG) there is nothing to run. */
	struct offload_cipher_op probe = { .alg = OFFLOAD_CIPHER_AES_ECB, .key = key128, .key_len = 16,
					   .in = pt, .out = out, .len = 16 };
	if (offload_cipher(ctx, &probe, sizeof(probe)) == -ENOTSUP) {
		printf("note: no crypto backend in this build; cipher layouts not exercised\n");
		return;
	}

	/* A 0.1.0 binary's op through its entry point. */
	struct cipher_op_0_1 old = { .alg = OFFLOAD_CIPHER_AES_ECB, .dir = OFFLOAD_ENCRYPT,
				     .key = key128, .key_len = 16, .in = pt, .out = out,
				     .len = 16, .result = &res };
	memset(out, 0, sizeof(out));
	CHECK(old_cipher(ctx, &old) == 0);
	CHECK(memcmp(out, ct, 16) == 0);
	offload_cipher_session *s = NULL;
	CHECK(offload_cipher_session_open(ctx, OFFLOAD_CIPHER_AES_ECB, key128, 16, &s) == 0);
	struct cipher_op_0_1 sop = { .dir = OFFLOAD_DECRYPT, .in = ct, .out = out, .len = 16 };
	memset(out, 0, sizeof(out));
	CHECK(old_cipher_session_run(s, &sop) == 0);
	CHECK(memcmp(out, pt, 16) == 0);

	/* A newer caller: its longer op is taken when the bytes this library
	 * does not know are 0, refused when they are not. */
	struct {
		struct offload_cipher_op op;
		uint64_t later[4];
	} n;
	memset(&n, 0, sizeof(n));
	n.op = (struct offload_cipher_op){ .alg = OFFLOAD_CIPHER_AES_ECB, .key = key128,
					   .key_len = 16, .in = pt, .out = out, .len = 16 };
	memset(out, 0, sizeof(out));
	CHECK(offload_cipher(ctx, &n.op, sizeof(n)) == 0);
	CHECK(memcmp(out, ct, 16) == 0);
	n.later[2] = 1;
	CHECK(offload_cipher(ctx, &n.op, sizeof(n)) == -EINVAL);
	CHECK(strstr(offload_last_error(ctx), "beyond the") != NULL);
	struct {
		struct offload_cipher_op op;
		uint64_t later[4];
	} ns = { .op = { .dir = OFFLOAD_DECRYPT, .in = ct, .out = out, .len = 16 }, .later = { 0, 7 } };
	CHECK(offload_cipher_session_run(s, &ns.op, sizeof(ns)) == -EINVAL);
	ns.later[1] = 0;
	memset(out, 0, sizeof(out));
	CHECK(offload_cipher_session_run(s, &ns.op, sizeof(ns)) == 0);
	CHECK(memcmp(out, pt, 16) == 0);

	/* Smaller than any release's layout: refused before anything is read past it. */
	CHECK(offload_cipher(ctx, &n.op, offsetof(struct offload_cipher_op, result)) == -EINVAL);
	CHECK(strstr(offload_last_error(ctx), "oldest layout") != NULL);
	CHECK(offload_cipher(ctx, &n.op, 0) == -EINVAL);
	CHECK(offload_cipher_session_run(s, &ns.op, 1) == -EINVAL);
	/* Nor is a size no layout will reach read past the caller's struct. */
	CHECK(offload_cipher(ctx, &n.op, SIZE_MAX) == -EINVAL);
	CHECK(strstr(offload_last_error(ctx), "more than any struct offload_cipher_op will have") != NULL);
	CHECK(offload_cipher_session_run(s, &ns.op, 4097) == -EINVAL);
	CHECK(offload_cipher_session_close(s) == 0);
}

/*
 * A 0.1.0 caller's options: offload_ctx_opts_init@OFFLOAD_0 fills 0.1's
 * layout and not a byte past it (0.2 added sim_provider at the end), and
 * offload_ctx_open() takes that size.
 */
static void ctx_opts(void)
{
	unsigned char buf[sizeof(struct ctx_opts_0_1) + 32];
	struct ctx_opts_0_1 *o = (struct ctx_opts_0_1 *)(void *)buf;

	memset(buf, CANARY, sizeof(buf));
	old_ctx_opts_init(o);
	CHECK(o->size == sizeof(struct ctx_opts_0_1));
	CHECK(o->dt_source == OFFLOAD_DT_AUTO && o->flags == 0 && !o->dtb_path && !o->backends);
	CHECK(untouched(buf, sizeof(struct ctx_opts_0_1), sizeof(buf)));
	o->dt_source = OFFLOAD_DT_NONE;
	o->flags = OFFLOAD_CTX_NO_ENV;
	offload_ctx *ctx = offload_ctx_new();
	CHECK(ctx && old_ctx_open(ctx, o) == 0);
	CHECK(ctx && offload_dev_count(ctx) >= 1); /* the CPU */
	offload_ctx_free(ctx);
}

static int run_core(void)
{
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_NONE);

	ctx_opts();

	CHECK(ctx != NULL);
	if (!ctx)
		return 1;
	dev_info(ctx);
	dev_stats(ctx);
	cipher(ctx);
	offload_ctx_free(ctx);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------- SPI info */

static int run_spi(void)
{
	offload_ctx *ctx = open_ctx(OFFLOAD_DT_BUILTIN);
	offload_spi *spi = NULL;

	if (!ctx || offload_spi_open(ctx, "/bus@100000/spi@2100000/flash@1", NULL, &spi) < 0) {
		printf("SKIP: no virtual board with the DSPI model in this build (%s)\n",
		       offload_last_error(NULL));
		offload_ctx_free(ctx);
		return 77;
	}
	struct offload_spi_info cur;
	CHECK(offload_spi_get_info(spi, &cur, sizeof(cur)) == 0);

	union {
		struct spi_info_0_1 i;
		unsigned char raw[sizeof(struct spi_info_0_1) + 32];
	} o;
	memset(&o, CANARY, sizeof(o));
	CHECK(old_spi_info(spi, &o.i) == 0);
	CHECK(untouched(&o, sizeof(o.i), sizeof(o)));
	CHECK(strcmp(o.i.path, "/bus@100000/spi@2100000/flash@1") == 0);
	CHECK(o.i.chip_select == 1);
	CHECK(o.i.mode == (OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CPHA));
	CHECK(o.i.max_speed_hz == 10000000);
	CHECK(o.i.bits_per_word == 8);
	CHECK(o.i.cs_setup_ns == 100 && o.i.cs_hold_ns == 50);
	CHECK(memcmp(&o.i, &cur, sizeof(o.i)) == 0);
	CHECK(old_spi_info(NULL, &o.i) == -EINVAL);

	size_t short_size = offsetof(struct offload_spi_info, dev);
	memset(&o, CANARY, sizeof(o));
	CHECK(offload_spi_get_info(spi, (struct offload_spi_info *)&o.i, short_size) == 0);
	CHECK(strcmp(o.i.path, "/bus@100000/spi@2100000/flash@1") == 0);
	CHECK(untouched(&o, short_size, sizeof(o)));

	struct {
		struct offload_spi_info i;
		uint64_t later[4];
	} n;
	memset(&n, CANARY, sizeof(n));
	CHECK(offload_spi_get_info(spi, &n.i, sizeof(n)) == 0);
	CHECK(memcmp(&n.i, &cur, sizeof(cur)) == 0);
	CHECK(zero((const char *)&n + sizeof(cur), sizeof(n) - sizeof(cur)));
	CHECK(offload_spi_get_info(spi, &cur, 0) == -EINVAL);

	/* offload_spi_xfer@OFFLOAD_0 is offload_spi_transfer(): READ ID. */
	const uint8_t tx[4] = { 0x9f, 0, 0, 0 };
	uint8_t rx[4] = { 0 };
	struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = 4 };
	CHECK(old_spi_xfer(spi, &x, 1) == 4);
	CHECK(rx[1] == 0x20 && rx[2] == 0xba && rx[3] == 0x18);
	memset(rx, 0, sizeof(rx));
	CHECK(offload_spi_transfer(spi, &x, 1) == 4);
	CHECK(rx[1] == 0x20 && rx[2] == 0xba && rx[3] == 0x18);
	CHECK(old_spi_xfer(spi, &x, 0) == -EINVAL);

	offload_spi_close(spi);
	offload_ctx_free(ctx);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------- versions */

static int run_version(void)
{
	const unsigned M = OFFLOAD_TEST_VERSION_MAJOR, m = OFFLOAD_TEST_VERSION_MINOR,
		       p = OFFLOAD_TEST_VERSION_PATCH;

	/* The project's version (CMakeLists.txt) is what both report. */
	CHECK(offload_version() == ((M << 16) | (m << 8) | p));
	CHECK(offload_check_version(M, m, p) == 1);
	CHECK(offload_check_version(M, m, p + 1) == 0);
	CHECK(offload_check_version(M, m + 1, 0) == 0);
	CHECK(offload_check_version(M + 1, 0, 0) == 0);
	CHECK(offload_check_version(0, 0, 0) == 1);
	CHECK(offload_check_version(UINT_MAX, 0, 0) == 0);
	CHECK(offload_check_version(M, UINT_MAX, 0) == 0);
	if (m > 0)
		CHECK(offload_check_version(M, m - 1, UINT_MAX) == 1);
	CHECK(OFFLOAD_CHECK_VERSION(OFFLOAD_TEST_VERSION_MAJOR, OFFLOAD_TEST_VERSION_MINOR,
				    OFFLOAD_TEST_VERSION_PATCH));
	CHECK(!OFFLOAD_CHECK_VERSION(OFFLOAD_TEST_VERSION_MAJOR, OFFLOAD_TEST_VERSION_MINOR,
				     OFFLOAD_TEST_VERSION_PATCH + 1));
	CHECK(!OFFLOAD_CHECK_VERSION(OFFLOAD_TEST_VERSION_MAJOR + 1, 0, 0));
	CHECK(OFFLOAD_CHECK_VERSION(0, 0, 0));
#if !OFFLOAD_CHECK_VERSION(0, 2, 0)
	CHECK(!"0.2 headers answer OFFLOAD_CHECK_VERSION(0, 2, 0) in #if");
#endif
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (strcmp(what, "core") == 0)
		return run_core();
	if (strcmp(what, "spi") == 0)
		return run_spi();
	if (strcmp(what, "version") == 0)
		return run_version();
	fprintf(stderr, "usage: %s core|spi|version\n", argv[0]);
	return 2;
}
