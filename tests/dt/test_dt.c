/* SPDX-License-Identifier: MIT */
/*
 * src/dt on the project's fixtures (tests/dt/fixtures, one DTS per rule).
 * Expected values are worked out by hand in each fixture's header comment
 * from the Devicetree Specification and Linux drivers/of semantics.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/internal.h"
#ifdef OFFLOAD_HAVE_SIM
#include <offload/sim.h>
#endif
#include "dt/dt.h"
#include "testutil.h"

/* libfdt's accessors take the blob as const void * (it is 8-byte aligned: malloc). */
#define FDT(b) ((const void *)(b))

static const char *fixture_path(const char *name)
{
	static char path[512];
	const char *dir = getenv("OFFLOAD_TEST_FIXTURES");

	ck_assert_msg(dir && *dir, "OFFLOAD_TEST_FIXTURES is not set (run through ctest)");
	snprintf(path, sizeof(path), "%s/%s.dtb", dir, name);
	return path;
}

static struct ofl_dt load(const char *name)
{
	struct ofl_dt dt;
	char err[512] = "";

	int r = ofl_dt_load_file(&dt, fixture_path(name), err, sizeof(err));
	ck_assert_msg(r == 0, "%s: %d %s", name, r, err);
	return dt;
}

static int node(const struct ofl_dt *dt, const char *path)
{
	int n = fdt_path_offset(dt->fdt, path);

	ck_assert_msg(n >= 0, "no node %s", path);
	return n;
}

/* Read a whole file into malloc'd memory. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)n);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Validate a modified copy; return the message, assert -EINVAL. */
static const char *reject(const unsigned char *b, size_t len)
{
	static char err[512];
	struct ofl_dt dt;

	err[0] = '\0';
	int r = ofl_dt_load_blob(&dt, b, len, err, sizeof(err));
	ck_assert_msg(r == -EINVAL, "expected -EINVAL, got %d (%s)", r, err);
	ck_assert_ptr_null(dt.fdt);
	return err;
}

static void assert_has(const char *msg, const char *want)
{
	ck_assert_msg(strstr(msg, want), "message \"%s\" lacks \"%s\"", msg, want);
}

/* ------------------------------------------------------------------ loading */

START_TEST(every_fixture_loads)
{
	static const char *const names[] = {
		"inherit", "noncoherent", "ranges-mixed", "ranges-empty", "ranges-missing",
		"disabled", "noreg", "duplicates", "eip76", "cells-absurd", "dma", "rmem",
		"rmem-bad", "ranges-flags", "udma-classes", "asel", "dspi-target",
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(names); i++) {
		struct ofl_dt dt = load(names[i]);
		ck_assert_ptr_nonnull(strstr(dt.source, names[i]));
		ofl_dt_free(&dt);
		ck_assert_ptr_null(dt.fdt);
	}
}
END_TEST

START_TEST(missing_file)
{
	struct ofl_dt dt;
	char err[256];

	ck_assert_int_eq(ofl_dt_load_file(&dt, "/nonexistent/board.dtb", err, sizeof(err)), -ENOENT);
	assert_has(err, "/nonexistent/board.dtb");
}
END_TEST

/*
 * A device tree path that is not a regular file: a FIFO with a writer that
 * never closes (what `--dtb /dev/stdin` is under a pipe) used to block the
 * open forever. Each kind is refused at once, with the kind named; the alarm
 * turns a hang into a failure instead of waiting for Check's timeout.
 */
START_TEST(not_a_regular_file)
{
	char dir[] = "/tmp/offload-dtnr-XXXXXX", fifo[64], sock[64];
	struct ofl_dt dt;
	char err[512];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo.dtb", dir);
	snprintf(sock, sizeof(sock), "%s/sock.dtb", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	int writer = open(fifo, O_RDWR); /* holds the FIFO open for writing, never writes */
	ck_assert_int_ge(writer, 0);
	ck_assert_int_eq(write(writer, "\xd0\x0d\xfe\xed", 4), 4);
	alarm(10);

	ck_assert_int_eq(ofl_dt_load_file(&dt, fifo, err, sizeof(err)), -EINVAL);
	assert_has(err, fifo);
	assert_has(err, "is a FIFO");
	ck_assert_ptr_null(dt.fdt);

	/* OFFLOAD_DTB names it: the context refuses to open, saying why */
	setenv("OFFLOAD_DTB", fifo, 1);
	offload_ctx *ctx = offload_ctx_new();
	ck_assert_err(ctx, offload_ctx_open(ctx, NULL), -EINVAL, "is a FIFO");
	offload_ctx_free(ctx);
	unsetenv("OFFLOAD_DTB");

	/* a socket, a directory, a character device: each named */
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	ofl_strlcpy(a.sun_path, sock, sizeof(a.sun_path));
	ck_assert_int_eq(bind(s, (const struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(ofl_dt_load_file(&dt, sock, err, sizeof(err)), -EINVAL);
	assert_has(err, "is a socket");
	ck_assert_int_eq(ofl_dt_load_file(&dt, dir, err, sizeof(err)), -EINVAL);
	assert_has(err, "is a directory");
	ck_assert_int_eq(ofl_dt_load_file(&dt, "/dev/null", err, sizeof(err)), -EINVAL);
	assert_has(err, "/dev/null is a character device");
	alarm(0);

	close(s);
	close(writer);
	unlink(sock);
	unlink(fifo);
	rmdir(dir);
}
END_TEST

START_TEST(truncated_header)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);

	assert_has(reject(b, 20), "shorter than an FDT header");
	free(b);
}
END_TEST

START_TEST(truncated_body)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	char want[128];

	/* The header's totalsize (offset 4) is the file length for dtc output. */
	ck_assert_uint_eq(fdt_totalsize(FDT(b)), len);
	snprintf(want, sizeof(want), "the header (offset 0x4) says %zu bytes, only %zu are present", len,
		 len - 1);
	assert_has(reject(b, len - 1), want);
	snprintf(want, sizeof(want), "only %zu are present", len / 2);
	assert_has(reject(b, len / 2), want);
	free(b);
}
END_TEST

START_TEST(bad_magic_and_version)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);

	put_be32(b, 0xd00dfeee);
	assert_has(reject(b, len), "magic at offset 0x0 is 0xd00dfeee");
	put_be32(b, FDT_MAGIC);
	put_be32(b + 0x14, 15);
	assert_has(reject(b, len), "version 15");
	free(b);
}
END_TEST

START_TEST(block_outside_blob)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);

	put_be32(b + 0x08, (uint32_t)len + 16); /* off_dt_struct */
	assert_has(reject(b, len), "structure block");
	assert_has(reject(b, len), "outside the blob");
	free(b);
}
END_TEST

/*
 * The strings block inside the structure block (both sizes still within the
 * blob): refused with the header's offsets, where before the tree opened
 * with none of its devices and no error (an adversarial tester's
 * x_strings_in_struct.dtb and bad_overlap.dtb).
 */
START_TEST(strings_block_overlapping_structure_block)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	uint32_t so = fdt_off_dt_struct(FDT(b)), ss = fdt_size_dt_struct(FDT(b));
	uint32_t sz = fdt_size_dt_strings(FDT(b));

	ck_assert_uint_ge(ss, sz + 8);
	put_be32(b + 0x0c, so + 8); /* off_dt_strings inside the structure block */
	char want[200];
	snprintf(want, sizeof(want), "the strings block [0x%x, +0x%x) (offsets 0xc, 0x20) overlaps the "
		 "structure block [0x%x, +0x%x)", so + 8, sz, so, ss);
	assert_has(reject(b, len), want);
	put_be32(b + 0x0c, so); /* the same offset as the structure block */
	assert_has(reject(b, len), "overlaps the structure block");
	free(b);
}
END_TEST

START_TEST(reservation_map_unterminated)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	uint32_t total = fdt_totalsize(FDT(b));
	uint32_t off = (total - 8) & ~7u; /* fewer than 16 bytes before the end */

	put_be32(b + 0x10, off);
	char want[96];
	snprintf(want, sizeof(want), "memory reservation map at 0x%x has no terminating entry", off);
	assert_has(reject(b, len), want);
	free(b);
}
END_TEST

/* Blob offset of the first property of `path` (computed with libfdt, independently). */
static uint32_t first_prop_blob_offset(const unsigned char *b, const char *path)
{
	int n = fdt_path_offset(FDT(b), path);
	ck_assert_int_ge(n, 0);
	int p = fdt_first_property_offset(FDT(b), n);
	ck_assert_int_ge(p, 0);
	return fdt_off_dt_struct(FDT(b)) + (uint32_t)p;
}

START_TEST(property_length_past_end)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	uint32_t off = first_prop_blob_offset(b, "/bus@30000000");
	char want[128];

	put_be32(b + off + 4, 0x7fffffff);
	snprintf(want, sizeof(want), "at offset 0x%x (in node /bus@30000000): property length 2147483647",
		 off);
	assert_has(reject(b, len), want);
	free(b);
}
END_TEST

START_TEST(property_name_outside_strings)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	uint32_t off = first_prop_blob_offset(b, "/plain-bus/crypto@90000");
	char want[160];

	put_be32(b + off + 8, fdt_size_dt_strings(FDT(b)) + 10);
	snprintf(want, sizeof(want), "at offset 0x%x (in node /plain-bus/crypto@90000): property name "
		 "offset %u is outside the strings block", off, fdt_size_dt_strings(FDT(b)) + 10);
	assert_has(reject(b, len), want);
	free(b);
}
END_TEST

START_TEST(unknown_tag_names_node)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	uint32_t off = first_prop_blob_offset(b, "/bus@30000000/inner-bus");
	char want[160];

	put_be32(b + off, 0x0000000a);
	snprintf(want, sizeof(want), "at offset 0x%x (in node /bus@30000000/inner-bus): unknown "
		 "structure tag 0x0000000a", off);
	assert_has(reject(b, len), want);
	free(b);
}
END_TEST

START_TEST(unbalanced_nodes)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	/* The structure block ends with the root's FDT_END_NODE and FDT_END. */
	uint32_t end = fdt_off_dt_struct(FDT(b)) + fdt_size_dt_struct(FDT(b));
	char want[128];

	put_be32(b + end - 8, FDT_NOP);
	snprintf(want, sizeof(want), "at offset 0x%x (in node /): FDT_END while 1 node(s) are still open",
		 end - 4);
	assert_has(reject(b, len), want);
	free(b);
}
END_TEST

START_TEST(blob_through_context)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("inherit"), &len);
	uint32_t off = first_prop_blob_offset(b, "/bus@30000000");
	struct offload_ctx_opts o;
	char want[64];

	put_be32(b + off + 4, 0x7fffffff);
	offload_ctx *ctx = offload_ctx_new();
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BLOB;
	o.dtb_blob = b;
	o.dtb_size = len;
	o.flags = OFFLOAD_CTX_NO_ENV;
	ck_assert_int_eq(offload_ctx_open(ctx, &o), -EINVAL);
	snprintf(want, sizeof(want), "offset 0x%x (in node /bus@30000000)", off);
	assert_has(offload_last_error(ctx), want);
	offload_ctx_free(ctx);

	/* The same through a file names the file. */
	char path[] = "/tmp/offload-test-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
	close(fd);
	struct ofl_dt dt;
	char err[512];
	ck_assert_int_eq(ofl_dt_load_file(&dt, path, err, sizeof(err)), -EINVAL);
	assert_has(err, path);
	assert_has(err, want);
	unlink(path);
	free(b);
}
END_TEST

/*
 * Node names far longer than any buffer a path used to live in: the device's
 * dt_path is still the real path, so offload_dev_find() finds it by path.
 */
START_TEST(long_node_names_keep_full_paths)
{
	static _Alignas(8) char blob[8192]; /* libfdt wants 8-byte alignment */
	char bus[301], dev[409], want[720];
	struct offload_ctx_opts o;
	struct offload_dev_info info;

	memset(bus, 'b', 300);
	bus[300] = '\0';
	memset(dev, 'c', 400);
	strcpy(dev + 400, "@5000000");
	snprintf(want, sizeof(want), "/%s/%s", bus, dev);
	ck_assert_uint_eq(strlen(want), 1 + 300 + 1 + 408);

	const fdt32_t reg[2] = { cpu_to_fdt32(0x5000000), cpu_to_fdt32(0x20000) };
	ck_assert_int_eq(fdt_create(blob, sizeof(blob)), 0);
	ck_assert_int_eq(fdt_finish_reservemap(blob), 0);
	ck_assert_int_eq(fdt_begin_node(blob, ""), 0);
	ck_assert_int_eq(fdt_property_u32(blob, "#address-cells", 1), 0);
	ck_assert_int_eq(fdt_property_u32(blob, "#size-cells", 1), 0);
	ck_assert_int_eq(fdt_begin_node(blob, bus), 0);
	ck_assert_int_eq(fdt_property_string(blob, "compatible", "simple-bus"), 0);
	ck_assert_int_eq(fdt_property_u32(blob, "#address-cells", 1), 0);
	ck_assert_int_eq(fdt_property_u32(blob, "#size-cells", 1), 0);
	ck_assert_int_eq(fdt_property(blob, "ranges", NULL, 0), 0);
	ck_assert_int_eq(fdt_begin_node(blob, dev), 0);
	ck_assert_int_eq(fdt_property_string(blob, "compatible", "inside-secure,safexcel-eip97ies"), 0);
	ck_assert_int_eq(fdt_property(blob, "reg", reg, sizeof(reg)), 0);
	ck_assert_int_eq(fdt_end_node(blob), 0);
	ck_assert_int_eq(fdt_end_node(blob), 0);
	ck_assert_int_eq(fdt_end_node(blob), 0);
	ck_assert_int_eq(fdt_finish(blob), 0);

	offload_ctx *ctx = offload_ctx_new();
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BLOB;
	o.dtb_blob = blob;
	o.dtb_size = fdt_totalsize(blob);
	o.flags = OFFLOAD_CTX_NO_ENV;
	ck_assert_int_eq(offload_ctx_open(ctx, &o), 0);
	int i = offload_dev_find(ctx, want);
	ck_assert_msg(i >= 0, "%s", offload_last_error(ctx));
	ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
	ck_assert_str_eq(info.dt_path, want);
	ck_assert_str_eq(info.kind, "eip97");
	offload_ctx_free(ctx);
}
END_TEST

/* SPI peripherals whose reg is no chip select are reported, never a negative or wrapped one. */
START_TEST(spi_reg_not_a_chip_select)
{
	static const struct {
		const char *path, *why;
	} want[] = {
		{ "/soc/spi@2100000/ok@1", "" },
		{ "/soc/spi@2100000/neg@ffffffff", "its reg <0xffffffff> is not a chip select" },
		{ "/soc/spi@2100000/big@80000000", "its reg <0x80000000> is not a chip select" },
		{ "/soc/spi@2100000/byte@1", "its reg is 1 byte(s), less than one 32-bit cell" },
		{ "/soc/spi@2100000/past@5", "its reg <5> is not below the controller's 4 chip selects" },
		{ "/soc/spi@2100000/five@0", "its reg has 5 cells" },
	};
	struct ofl_dt dt = load("spi-bad-reg");
	struct ofl_dt_spi_child k[8];
	int ctrl = node(&dt, "/soc/spi@2100000");
	int n = (int)(sizeof(want) / sizeof(want[0]));

	ck_assert_int_eq(ofl_dt_spi_children(dt.fdt, ctrl, k, 8), n); /* "slave" has no reg */
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(k[i].node, node(&dt, want[i].path));
		if (!want[i].why[0])
			ck_assert_str_eq(k[i].reg_error, "");
		else
			assert_has(k[i].reg_error, want[i].why);
	}
	ck_assert_uint_eq(k[0].chip_select, 1);

	/* Through the API: each says why, before any kernel interface is touched. */
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_FILE, fixture_path("spi-bad-reg"), 0, NULL);
	offload_spi *spi = NULL;
	for (int i = 1; i < n; i++) {
		ck_assert_int_eq(offload_spi_open(ctx, want[i].path, NULL, &spi), -EINVAL);
		assert_has(offload_last_error(ctx), want[i].path);
		assert_has(offload_last_error(ctx), want[i].why);
	}
	offload_ctx_free(ctx);
	ofl_dt_free(&dt);
}
END_TEST

/*
 * Every reason of every device fits its buffer: a reason that fills
 * OFL_REASON_LEN - 1 bytes was cut (mid-word, as `offloadctl list` showed).
 */
static void reasons_fit(enum offload_dt_source src, const char *path, uint32_t flags)
{
	offload_ctx *ctx = test_ctx_open(src, path, flags, NULL);
	int n = offload_dev_count(ctx);

	for (int i = 0; i < n; i++) {
		struct offload_dev_info d;
		ck_assert_int_eq(offload_dev_get_info(ctx, i, &d, sizeof(d)), 0);
		const char *r[] = { d.usable_reason, d.coherent_reason, d.cache_reason, d.burst_reason,
				    d.align_reason, d.threshold_reason, d.transfer_reason, d.phys_reason,
				    d.soc_io_coherent_reason };
		for (size_t k = 0; k < sizeof(r) / sizeof(r[0]); k++)
			ck_assert_msg(!r[k] || strlen(r[k]) < OFL_REASON_LEN - 1,
				      "%s, device %s: reason %zu was cut: %s", path ? path : "builtin",
				      d.name, k, r[k]);
	}
	offload_ctx_free(ctx);
}

static void reasons_fit_in_dir(const char *dir)
{
	char cmd[600], line[512];

	snprintf(cmd, sizeof(cmd), "ls '%s'/*.dtb 2>/dev/null", dir);
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		struct ofl_dt dt;
		char err[256];
		if (ofl_dt_load_file(&dt, line, err, sizeof(err)) < 0)
			continue; /* the broken-on-purpose fixtures */
		ofl_dt_free(&dt);
		offload_ctx *ctx = offload_ctx_new();
		struct offload_ctx_opts o;
		offload_ctx_opts_init(&o);
		o.dt_source = OFFLOAD_DT_FILE;
		o.dtb_path = line;
		o.flags = OFFLOAD_CTX_NO_ENV;
		int r = offload_ctx_open(ctx, &o);
		offload_ctx_free(ctx);
		if (r < 0)
			continue;
		reasons_fit(OFFLOAD_DT_FILE, line, 0);
#ifdef OFFLOAD_HAVE_SIM
		reasons_fit(OFFLOAD_DT_FILE, line, OFFLOAD_CTX_SIM);
#else
		/* no liboffload-sim: asking for models is refused, saying what to link */
		ctx = offload_ctx_new();
		o.flags = OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_SIM;
		ck_assert_err(ctx, offload_ctx_open(ctx, &o), -ENOTSUP, "link -loffload-sim");
		offload_ctx_free(ctx);
#endif
	}
	pclose(f);
}

START_TEST(reasons_are_never_cut)
{
	const char *shared = getenv("OFFLOAD_TEST_SHARED_DTB");

	reasons_fit_in_dir(getenv("OFFLOAD_TEST_FIXTURES"));
	if (shared && *shared && access(shared, R_OK) == 0)
		reasons_fit_in_dir(shared);
	else
		fprintf(stderr, "reasons_are_never_cut: no OFFLOAD_TEST_SHARED_DTB, real boards not read\n");
#ifdef OFFLOAD_HAVE_SIM
	reasons_fit(OFFLOAD_DT_BUILTIN, NULL, 0);
	if (access("/sys/firmware/fdt", R_OK) != 0)
		reasons_fit(OFFLOAD_DT_AUTO, NULL, 0); /* the fallback appends to usable_reason */
#endif
}
END_TEST

/* Deterministic corruption of every struct word: loads cleanly or fails with a message. */
START_TEST(corruption_never_crashes)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("ranges-mixed"), &len);
	unsigned char *c = malloc(len);
	uint32_t s = fdt_off_dt_struct(FDT(b)), e = s + fdt_size_dt_struct(FDT(b));
	uint32_t seed = 12345;

	for (uint32_t off = s; off + 4 <= e; off += 4) {
		memcpy(c, b, len);
		seed = seed * 1103515245u + 12345u;
		put_be32(c + off, seed);
		struct ofl_dt dt;
		char err[512] = "";
		int r = ofl_dt_load_blob(&dt, c, len, err, sizeof(err));
		if (r < 0) {
			ck_assert_int_eq(r, -EINVAL);
			ck_assert_msg(err[0], "rejected without a message at 0x%x", off);
			continue;
		}
		struct ofl_dt_match m[16];
		int n = ofl_engines_discover(dt.fdt, m, 16);
		for (int i = 0; i < n && i < 16; i++) {
			uint64_t a, sz;
			ofl_dt_reg(dt.fdt, m[i].node, 0, &a, &sz, err, sizeof(err));
		}
		ofl_dt_free(&dt);
	}
	free(c);
	free(b);
}
END_TEST

/*
 * ofl_dt_validate() used to run libfdt's fdt_check_full() after its own
 * walk; it no longer does, so it must refuse by itself whatever libfdt
 * refuses. Every word of a blob is replaced by values that make tags, lengths,
 * offsets and versions wrong (and bytes by NUL and others, and the blob cut
 * short at both ends); libfdt's verdict on each is the independent judge.
 */
static unsigned libfdt_only; /* corruptions libfdt refused and ofl_dt_validate() took */

static void judge(const unsigned char *b, size_t len, const char *name, size_t off, uint32_t val)
{
	unsigned char *c = malloc(len ? len : 1); /* 8-byte aligned, as the loaders make it */
	char err[512] = "";

	ck_assert_ptr_nonnull(c);
	memcpy(c, b, len);
	/* Debian 12's libfdt reads the reservation map with 64-bit loads wherever the
	 * header puts it: a map off 8-byte alignment is a bus error on armhf (seen
	 * under qemu-arm), so there the judge's verdict is the alignment refusal. */
	int lib = len < 40 ? -FDT_ERR_TRUNCATED
		  : fdt_off_mem_rsvmap((const void *)c) % 8 ? -FDT_ERR_ALIGNMENT : fdt_check_full(c, len);
	int ours = ofl_dt_validate(c, len, err, sizeof(err));
	if (lib < 0 && ours == 0 && libfdt_only++ < 5)
		fprintf(stderr, "%s: word 0x%zx = 0x%08x: libfdt says %s, ofl_dt_validate() took it\n",
			name, off, val, fdt_strerror(lib));
	if (ours < 0 && !err[0] && libfdt_only++ < 5)
		fprintf(stderr, "%s: word 0x%zx = 0x%08x refused without a message\n", name, off, val);
	free(c);
}

/* Corrupt blob b (len bytes): every word (every `stride`-th one past the header), bytes, cuts. */
static void corrupt_and_judge(const unsigned char *b, size_t len, const char *name, size_t stride)
{
	unsigned char *c = malloc(len);

	ck_assert_ptr_nonnull(c);
	for (size_t off = 0; off + 4 <= len; off += off < 64 ? 4 : stride) {
		uint32_t o = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 |
			     (uint32_t)b[off + 2] << 8 | b[off + 3];
		const uint32_t vals[] = { 0, 0xffffffffu, FDT_BEGIN_NODE, FDT_END_NODE, FDT_PROP,
					  FDT_NOP, FDT_END, o + 1, o - 1, o + 4, o - 4,
					  o ^ 0x80000000u, o * 2654435761u, 0x10000 };
		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			memcpy(c, b, len);
			put_be32(c + off, vals[k]);
			judge(c, len, name, off, vals[k]);
		}
	}
	for (size_t off = 0; off < len; off += stride / 4 * 3 + 1) {
		const unsigned char vals[] = { 0, 0xff, '/', '@' };
		for (size_t k = 0; k < sizeof(vals); k++) {
			memcpy(c, b, len);
			c[off] = vals[k];
			judge(c, len, name, off, vals[k]);
		}
	}
	for (size_t t = 1; t < len && t < 128; t++) {
		judge(b, t, name, t, 0);
		judge(b, len - t, name, len - t, 0);
	}
	free(c);
}

START_TEST(validate_refuses_what_libfdt_refuses)
{
	static const char *const fixtures[] = { "ranges-mixed", "dma", "udma-classes", "rmem" };
	const char *shared = getenv("OFFLOAD_TEST_SHARED_DTB");
	size_t len;

	libfdt_only = 0;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		unsigned char *b = slurp(fixture_path(fixtures[i]), &len);
		corrupt_and_judge(b, len, fixtures[i], 4);
		free(b);
	}
	/* a real board's tree, sampled: every 61st word past the header */
	char path[512];
	snprintf(path, sizeof(path), "%s/armada-3720-espressobin.dtb", shared ? shared : "");
	if (shared && *shared && access(path, R_OK) == 0) {
		unsigned char *b = slurp(path, &len);
		corrupt_and_judge(b, len, "armada-3720-espressobin", 4 * 61);
		free(b);
	} else {
		fprintf(stderr, "validate_refuses_what_libfdt_refuses: no %s, fixtures only\n", path);
	}
	ck_assert_msg(libfdt_only == 0, "%u corrupted blob(s) that libfdt refuses were accepted or "
		      "refused without a message (the first above)", libfdt_only);
}
END_TEST

/*
 * The rules libfdt's checks add to the Devicetree Specification's layout,
 * each refused with its offset (not libfdt's bare error name, as when its
 * fdt_check_full() was the one to refuse them).
 */
START_TEST(validate_names_libfdt_rules)
{
	size_t len;
	unsigned char *b = slurp(fixture_path("dma"), &len);
	unsigned char *c = malloc(len + 16);
	char want[160];

	ck_assert_ptr_nonnull(c);
	/* a version below its last compatible version (fdt_check_header) */
	memcpy(c, b, len);
	put_be32(c + 0x14, 16);
	put_be32(c + 0x18, 17);
	assert_has(reject(c, len), "version 16 (offset 0x14) is below its last compatible version 17 "
				   "(offset 0x18)");
	/* a NOP after the root node closed, before FDT_END (fdt_check_full's expect_end) */
	uint32_t so = fdt_off_dt_struct(FDT(b)), ss = fdt_size_dt_struct(FDT(b));
	ck_assert_uint_ge(fdt_off_dt_strings(FDT(b)), so + ss); /* dtc's order: strings after */
	memcpy(c, b, so + ss);
	memcpy(c + so + ss + 4, b + so + ss, len - so - ss);
	put_be32(c + so + ss - 4, FDT_NOP);
	put_be32(c + so + ss, FDT_END);
	put_be32(c + 0x04, (uint32_t)len + 4);
	put_be32(c + 0x0c, fdt_off_dt_strings(FDT(b)) + 4);
	put_be32(c + 0x24, ss + 4);
	snprintf(want, sizeof(want), "at offset 0x%x: tag 0x00000004 after the root node closed",
		 so + ss - 4);
	assert_has(reject(c, len + 4), want);
	/* a blob libfdt cannot read in place: not 8-byte aligned */
	char err[512] = "";
	memcpy(c + 1, b, len);
	ck_assert_int_eq(ofl_dt_validate(c + 1, len, err, sizeof(err)), -EINVAL);
	assert_has(err, "is not 8-byte aligned");
	free(c);
	free(b);
}
END_TEST

/* ofl_dt_node_by_phandle() against libfdt's fdt_node_offset_by_phandle() on every phandle of a blob. */
static void phandles_agree(const void *fdt, const char *name)
{
	uint32_t max = 0;
	int depth = 0;

	for (int n = 0; n >= 0; n = fdt_next_node(fdt, n, &depth)) {
		uint32_t ph = fdt_get_phandle(fdt, n);
		if (ph > max)
			max = ph;
		if (ph)
			ck_assert_msg(ofl_dt_node_by_phandle(fdt, ph) == fdt_node_offset_by_phandle(fdt, ph),
				      "%s: phandle 0x%x: %d, libfdt %d", name, ph, ofl_dt_node_by_phandle(fdt, ph),
				      fdt_node_offset_by_phandle(fdt, ph));
	}
	const uint32_t none[] = { 0, UINT32_MAX, max + 1, 0x7fffffff };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		ck_assert_msg(ofl_dt_node_by_phandle(fdt, none[i]) < 0 &&
			      (none[i] == max || fdt_node_offset_by_phandle(fdt, none[i]) < 0),
			      "%s: phandle 0x%x found", name, none[i]);
}

/*
 * A phandle is a node's first "phandle" property if it is one cell, else its
 * first "linux,phandle" if that is (libfdt's fdt_get_phandle()); the lookup
 * must find the same node as libfdt in every fixture, real board and in a
 * tree given each kind of phandle property.
 */
START_TEST(node_by_phandle_is_libfdts)
{
	static const char *const fixtures[] = { "dma", "udma-classes", "rmem", "ranges-mixed", "inherit" };
	const char *shared = getenv("OFFLOAD_TEST_SHARED_DTB");
	static const char *const boards[] = { "k3-j721e-evm", "k3-am654-base-board", "fsl-ls1028a-rdb" };
	size_t len;

	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct ofl_dt dt = load(fixtures[i]);
		phandles_agree(dt.fdt, fixtures[i]);
		ofl_dt_free(&dt);
	}
	for (size_t i = 0; shared && *shared && i < sizeof(boards) / sizeof(boards[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s.dtb", shared, boards[i]);
		if (access(path, R_OK) != 0)
			continue;
		unsigned char *b = slurp(path, &len);
		phandles_agree(b, boards[i]);
		free(b);
	}
	/* a tree with linux,phandle only, a two-byte phandle beside it, and both on one node */
	unsigned char *b = slurp(fixture_path("ranges-mixed"), &len);
	size_t cap = len + 1024;
	unsigned char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(fdt_open_into(b, t, (int)cap), 0);
	/* offsets move as properties are added: each node is looked up again by path */
	const char *const pa = "/soc", *const pc = "/soc/regs@d0000000", *const pd = "/soc/regs@d0000000/crypto@90000";
	ck_assert(fdt_path_offset(t, pa) > 0 && fdt_path_offset(t, pc) > 0 && fdt_path_offset(t, pd) > 0);
	const uint8_t two[2] = { 0, 7 };
	ck_assert_int_eq(fdt_setprop_u32(t, fdt_path_offset(t, pa), "linux,phandle", 0x4242), 0);
	ck_assert_int_eq(fdt_setprop(t, fdt_path_offset(t, pc), "phandle", two, 2), 0);
	ck_assert_int_eq(fdt_setprop_u32(t, fdt_path_offset(t, pc), "linux,phandle", 0x4343), 0);
	ck_assert_int_eq(fdt_setprop_u32(t, fdt_path_offset(t, pd), "phandle", 0x4444), 0);
	ck_assert_int_eq(fdt_setprop_u32(t, fdt_path_offset(t, pd), "linux,phandle", 0x4545), 0);
	ck_assert_int_eq(fdt_pack(t), 0);
	const uint32_t phs[] = { 0x4242, 0x4343, 0x4444, 0x4545, 7 };
	for (size_t i = 0; i < sizeof(phs) / sizeof(phs[0]); i++) {
		int want = fdt_node_offset_by_phandle(t, phs[i]);
		ck_assert_msg(ofl_dt_node_by_phandle(t, phs[i]) == (want < 0 ? -ENOENT : want),
			      "phandle 0x%x: %d, libfdt %d", phs[i], ofl_dt_node_by_phandle(t, phs[i]), want);
	}
	ck_assert_int_eq(ofl_dt_node_by_phandle(t, 0x4242), fdt_path_offset(t, pa));
	ck_assert_int_eq(ofl_dt_node_by_phandle(t, 0x4343), fdt_path_offset(t, pc));
	ck_assert_int_eq(ofl_dt_node_by_phandle(t, 0x4444), fdt_path_offset(t, pd));
	ck_assert_int_eq(ofl_dt_node_by_phandle(t, 0x4545), -ENOENT); /* "phandle" wins on that node */
	phandles_agree(t, "ranges-mixed with phandle properties");
	free(t);
	free(b);
}
END_TEST

/* ------------------------------------------------------------------ discovery */

struct found {
	const char *path, *compat;
	const char *kind;
};

/* Discovery of fixture `name` finds exactly `want`, in blob order. */
static void expect_found(const char *name, const struct found *want, int nwant)
{
	struct ofl_dt dt = load(name);
	struct ofl_dt_match m[16];

	int n = ofl_engines_discover(dt.fdt, m, 16);
	ck_assert_int_eq(n, nwant);
	for (int i = 0; i < n; i++) {
		char p[256];
		ofl_dt_path(dt.fdt, m[i].node, p, sizeof(p));
		ck_assert_str_eq(p, want[i].path);
		ck_assert_str_eq(m[i].id->compatible, want[i].compat);
		ck_assert_ptr_nonnull(m[i].id->data);
		ck_assert_str_eq(ofl_match_row_of(m[i].id)->kind, want[i].kind);
		ck_assert_ptr_nonnull(ofl_engine_of(&m[i]));
	}
	/* A short output array still counts every device. */
	ck_assert_int_eq(ofl_engines_discover(dt.fdt, m, 2), n);
	ck_assert_int_eq(ofl_engines_discover(dt.fdt, NULL, 0), n);
	ofl_dt_free(&dt);
}

START_TEST(discover_most_specific_once)
{
	static const struct found want[] = {
		{ "/soc/spi@2100000", "fsl,ls1028a-dspi", "dspi" },
		{ "/soc/spi@2110000", "fsl,ls1021a-v1.0-dspi", "dspi" },
		{ "/soc/spi@2120000", "fsl,lx2160a-dspi", "dspi" },
		{ "/soc/spi@2130000", "nxp,s32g2-dspi", "dspi" },
		{ "/soc/dma-controller@31150000", "ti,j721e-navss-main-udmap", "k3-udma" },
		{ "/soc/crypto@90000", "inside-secure,safexcel-eip97ies", "eip97" },
	};

	expect_found("duplicates", want, (int)OFL_ARRAY_SIZE(want));
}
END_TEST

/*
 * src/dt knows no engine: it finds what the caller's lists name. Two lists
 * whose strings the fixture's nodes carry (duplicates.dts): a node is found
 * by the earliest string of its own compatible list that any list has, the
 * entry and the list it is in come back, and strings in no list find nothing.
 */
START_TEST(discover_caller_lists)
{
	static const int tag_a = 1, tag_b = 2;
	static const struct ofl_dt_id list_a[] = {
		{ "fsl,ls1021a-v1.0-dspi", &tag_a },
		{ "ti,am654-navss-main-udmap", &tag_a },
		{ NULL, NULL },
	};
	static const struct ofl_dt_id list_b[] = {
		{ "fsl,ls1028a-dspi", &tag_b },
		{ "fsl,imx6-ecspi", &tag_b },
		{ NULL, NULL },
	};
	const struct ofl_dt_id *const lists[] = { list_a, list_b };
	static const struct { const char *path, *compat; unsigned list; } want[] = {
		{ "/soc/spi@2100000", "fsl,ls1028a-dspi", 1 },        /* its first string, in list b */
		{ "/soc/spi@2110000", "fsl,ls1021a-v1.0-dspi", 0 },   /* its fallback, in list a */
		{ "/soc/dma-controller@31150000", "ti,am654-navss-main-udmap", 0 }, /* third string */
		{ "/soc/spi@2140000", "fsl,imx6-ecspi", 1 },          /* unknown to the engines, not to b */
	};
	struct ofl_dt dt = load("duplicates");
	struct ofl_dt_match m[8];

	int n = ofl_dt_discover(dt.fdt, lists, 2, m, 8);
	ck_assert_int_eq(n, (int)OFL_ARRAY_SIZE(want));
	for (int i = 0; i < n; i++) {
		char p[256];
		ofl_dt_path(dt.fdt, m[i].node, p, sizeof(p));
		ck_assert_str_eq(p, want[i].path);
		ck_assert_str_eq(m[i].id->compatible, want[i].compat);
		ck_assert_uint_eq(m[i].list, want[i].list);
		ck_assert_ptr_eq(m[i].id->data, want[i].list ? &tag_b : &tag_a);
	}
	/* no lists: nothing; one empty list: nothing */
	ck_assert_int_eq(ofl_dt_discover(dt.fdt, NULL, 0, NULL, 0), 0);
	const struct ofl_dt_id empty[] = { { NULL, NULL } }, *const one[] = { empty };
	ck_assert_int_eq(ofl_dt_discover(dt.fdt, one, 1, NULL, 0), 0);
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(discover_safexcel_not_eip76)
{
	static const struct found want[] = {
		{ "/soc/crypto@4e00000", "inside-secure,safexcel-eip197d", "eip197" },
		{ "/soc/crypto@5000000", "inside-secure,safexcel-eip97ies", "eip97" },
		{ "/soc/crypto@5100000", "inside-secure,safexcel-eip197b", "eip197" },
		{ "/soc/crypto@5200000", "inside-secure,safexcel-eip197c-mxl", "eip197" },
		{ "/soc/crypto@5300000", "inside-secure,safexcel-eip97", "eip97" },
		{ "/soc/crypto@5400000", "inside-secure,safexcel-eip197", "eip197" },
	};

	expect_found("eip76", want, (int)OFL_ARRAY_SIZE(want));
}
END_TEST

START_TEST(status_rules)
{
	struct ofl_dt dt = load("disabled");
	static const struct { const char *path; bool on; const char *status; } want[] = {
		{ "/soc/spi@1000", true, "okay" },     /* absent */
		{ "/soc/spi@2000", true, "okay" },
		{ "/soc/spi@3000", true, "ok" },
		{ "/soc/spi@4000", false, "disabled" },
		{ "/soc/spi@5000", false, "fail" },
		{ "/soc/spi@6000", false, "" },        /* empty value: Linux matches nothing */
		{ "/soc/off-bus/spi@7000", true, "okay" }, /* its own status; the bus is the policy's */
	};
	for (size_t i = 0; i < OFL_ARRAY_SIZE(want); i++) {
		const char *st = NULL;
		ck_assert_msg(ofl_dt_enabled(dt.fdt, node(&dt, want[i].path), &st) == want[i].on, "%s",
			      want[i].path);
		ck_assert_str_eq(st, want[i].status);
	}
	/* Disabled devices are discovered (listed, never used). */
	ck_assert_int_eq(ofl_engines_discover(dt.fdt, NULL, 0), 7);
	ofl_dt_free(&dt);
}
END_TEST

/* ------------------------------------------------------------------ reg / ranges */

static void expect_reg(const struct ofl_dt *dt, const char *path, int idx, uint64_t addr, uint64_t size)
{
	uint64_t a = 0, s = 0;
	char err[512] = "";
	int r = ofl_dt_reg(dt->fdt, node(dt, path), idx, &a, &s, err, sizeof(err));

	ck_assert_msg(r == 0, "%s reg[%d]: %d %s", path, idx, r, err);
	ck_assert_msg(a == addr, "%s reg[%d] = 0x%llx, want 0x%llx", path, idx, (unsigned long long)a,
		      (unsigned long long)addr);
	ck_assert_msg(s == size, "%s reg[%d] size 0x%llx, want 0x%llx", path, idx,
		      (unsigned long long)s, (unsigned long long)size);
}

static const char *expect_reg_fail(const struct ofl_dt *dt, const char *path, int idx, int want)
{
	static char err[512];
	uint64_t a, s;

	err[0] = '\0';
	int r = ofl_dt_reg(dt->fdt, node(dt, path), idx, &a, &s, err, sizeof(err));
	ck_assert_msg(r == want, "%s reg[%d]: %d, want %d (%s)", path, idx, r, want, err);
	ck_assert_msg(err[0], "%s: no message", path);
	return err;
}

START_TEST(ranges_mixed_cells)
{
	struct ofl_dt dt = load("ranges-mixed");

	expect_reg(&dt, "/soc/regs@d0000000/crypto@90000", 0, 0xd0090000, 0x20000);
	expect_reg(&dt, "/soc/regs@d0000000/cs-bus@1000000/spi@1,4000", 0, 0xd1004000, 0x1000);
	expect_reg(&dt, "/soc/regs@d0000000/cs-bus@1000000/spi@2,180", 0, 0xd1100080, 0x10);
	expect_reg(&dt, "/soc/high@100000000/dma-controller@1000", 0, 0x100001000, 0x100);
	expect_reg(&dt, "/soc/high@100000000/dma-controller@1000", 1, 0x100002000, 0x200);
	assert_has(expect_reg_fail(&dt, "/soc/regs@d0000000/cs-bus@1000000/spi@3,0", 0, -EINVAL),
		   "outside every 'ranges' entry of /soc/regs@d0000000/cs-bus@1000000");
	assert_has(expect_reg_fail(&dt, "/soc/high@100000000/dma-controller@1000", 2, -ENOENT),
		   "has 2 reg entries of 2+2 cells, no entry 2");

	/* By name. */
	uint64_t a, s;
	char err[256];
	int n = node(&dt, "/soc/high@100000000/dma-controller@1000");
	ck_assert_int_eq(ofl_dt_reg_by_name(dt.fdt, n, "bchanrt", &a, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(a, 0x100002000);
	ck_assert_uint_eq(s, 0x200);
	ck_assert_int_eq(ofl_dt_reg_by_name(dt.fdt, n, "ringrt", &a, &s, err, sizeof(err)), -ENOENT);
	assert_has(err, "no reg-names entry \"ringrt\"");

	/* The explanation names the level that moved the address. */
	struct ofl_dt_chain c;
	ck_assert_int_eq(ofl_dt_chain(dt.fdt, node(&dt, "/soc/regs@d0000000/crypto@90000"), &c), 0);
	ck_assert_int_eq(c.n, 4);
	ck_assert_int_eq(ofl_dt_reg_explain(dt.fdt, &c, 0, &a, &s, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "reg[0] 0x90000 -> 0xd0090000 by the ranges of /soc/regs@d0000000");
	ofl_dt_free(&dt);
}
END_TEST

/* A reg whose end lies past its bus's ranges window is refused, at every level (issue #18). */
START_TEST(ranges_window_end)
{
	struct ofl_dt dt = load("ranges-window");

	expect_reg(&dt, "/soc/spi@0", 0, 0x40000000, 0x1000);
	expect_reg(&dt, "/soc/crypto@2000", 0, 0x40002000, 0x2000);
	assert_has(expect_reg_fail(&dt, "/soc/dma@3000", 0, -EINVAL),
		   "0x3000+0x2000 ends 0x1000 bytes past the 'ranges' window 0x0+0x4000 of /soc");
	assert_has(expect_reg_fail(&dt, "/soc/inner/dma@3800", 0, -EINVAL),
		   "0x3800+0x1000 ends 0x800 bytes past the 'ranges' window 0x0+0x4000 of /soc");
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(ranges_empty_identity)
{
	struct ofl_dt dt = load("ranges-empty");

	expect_reg(&dt, "/soc/level1/level2/spi@2100000", 0, 0x2100000, 0x10000);
	expect_reg(&dt, "/soc/spi@2200000", 0, 0x2200000, 0x10000);
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(ranges_missing_not_translatable)
{
	struct ofl_dt dt = load("ranges-missing");

	assert_has(expect_reg_fail(&dt, "/soc/local-bus/spi@100", 0, -EINVAL),
		   "/soc/local-bus has no 'ranges'");
	ck_assert_int_eq(ofl_engines_discover(dt.fdt, NULL, 0), 1);
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(missing_reg)
{
	struct ofl_dt dt = load("noreg");

	assert_has(expect_reg_fail(&dt, "/soc/crypto", 0, -ENOENT), "/soc/crypto has no reg");
	assert_has(expect_reg_fail(&dt, "/soc/nosize-bus/spi@1", 0, -EINVAL), "#size-cells = 0");
	ck_assert_int_eq(ofl_engines_discover(dt.fdt, NULL, 0), 2);
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(absurd_cells)
{
	struct ofl_dt dt = load("cells-absurd");

	assert_has(expect_reg_fail(&dt, "/soc/wide-bus/spi@0", 0, -EINVAL),
		   "#address-cells = 5 in effect for the children of /soc/wide-bus");
	assert_has(expect_reg_fail(&dt, "/soc/huge-size-bus/spi@2000", 0, -EINVAL),
		   "#size-cells = 4294967295 in effect for the children of /soc/huge-size-bus");
	assert_has(expect_reg_fail(&dt, "/soc/zero-bus/spi", 0, -EINVAL), "#address-cells = 0");
	expect_reg(&dt, "/soc/spi@3000", 0, 0x3000, 0x100);
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(flags_bus)
{
	struct ofl_dt dt = load("ranges-flags");

	expect_reg(&dt, "/flag-bus/crypto@200,1000", 0, 0x40001000, 0x20000);
	assert_has(expect_reg_fail(&dt, "/flag-bus/crypto@100,0", 0, -ENOTSUP), "I/O space");
	assert_has(expect_reg_fail(&dt, "/flag-bus/crypto@0,0", 0, -EINVAL), "neither memory nor I/O");
	assert_has(expect_reg_fail(&dt, "/flag-bus/crypto@201,2000", 0, -EINVAL), "outside every");
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(root_and_bad_offsets)
{
	struct ofl_dt dt = load("inherit");
	struct ofl_dt_chain c;
	uint64_t a, s;
	char err[256];

	ck_assert_int_eq(ofl_dt_reg(dt.fdt, 0, 0, &a, &s, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(ofl_dt_reg(dt.fdt, 3, 0, &a, &s, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ofl_dt_chain(dt.fdt, -1, &c), -EINVAL);
	ck_assert_int_eq(ofl_dt_chain(dt.fdt, 0, &c), 0);
	ck_assert_int_eq(c.n, 1);
	int d;
	ck_assert_int_eq(ofl_dt_dma_coherent(dt.fdt, 5, &d), -EINVAL);
	ofl_dt_free(&dt);
}
END_TEST

/* ------------------------------------------------------------------ coherency */

static void expect_coherent(const struct ofl_dt *dt, const char *path, int want, const char *decider)
{
	int d = -2;
	int r = ofl_dt_dma_coherent(dt->fdt, node(dt, path), &d);

	ck_assert_msg(r == want, "%s: coherent %d, want %d", path, r, want);
	if (!decider) {
		ck_assert_msg(d == -1, "%s: a node decided, want none", path);
		return;
	}
	char p[256];
	ck_assert_int_ge(d, 0);
	ofl_dt_path(dt->fdt, d, p, sizeof(p));
	ck_assert_str_eq(p, decider);
}

START_TEST(coherent_inherited)
{
	struct ofl_dt dt = load("inherit");

	expect_coherent(&dt, "/bus@30000000/inner-bus/dma-controller@31150000", 1, "/bus@30000000");
	expect_coherent(&dt, "/plain-bus/crypto@90000", 0, NULL);
	expect_coherent(&dt, "/plain-bus/crypto@c0000", 1, "/plain-bus/crypto@c0000");
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(coherent_noncoherent_override)
{
	struct ofl_dt dt = load("noncoherent");

	expect_coherent(&dt, "/soc/slow-bus/spi@2100000", 0, "/soc/slow-bus");
	expect_coherent(&dt, "/soc/slow-bus/crypto@4000000", 1, "/soc/slow-bus/crypto@4000000");
	expect_coherent(&dt, "/soc/slow-bus/crypto@5000000", 1, "/soc/slow-bus/crypto@5000000");
	expect_coherent(&dt, "/soc/spi@2110000", 1, "/soc");
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(coherent_dma_parent)
{
	struct ofl_dt dt = load("dma");
	int d;

	expect_coherent(&dt, "/noncoh-bus/crypto@2000", 1, "/coherent-bus");
	ck_assert_int_eq(ofl_dt_dma_coherent(dt.fdt, node(&dt, "/noncoh-bus/crypto@3000"), &d), -EINVAL);
	ofl_dt_free(&dt);
}
END_TEST

/* ------------------------------------------------------------------ dma-ranges */

static void expect_bus(const struct ofl_dt *dt, const char *path, uint64_t cpu, uint64_t bus)
{
	uint64_t b = 0;
	char err[512] = "";
	int r = ofl_dt_dma_translate(dt->fdt, node(dt, path), cpu, &b, err, sizeof(err));

	ck_assert_msg(r == 0, "%s: %d %s", path, r, err);
	ck_assert_msg(b == bus, "%s: 0x%llx -> 0x%llx, want 0x%llx", path, (unsigned long long)cpu,
		      (unsigned long long)b, (unsigned long long)bus);
}

START_TEST(dma_ranges)
{
	struct ofl_dt dt = load("dma");
	uint64_t b;
	char err[512];

	expect_bus(&dt, "/soc/ahb/crypto@1000", 0x1000, 0x80001000);
	expect_bus(&dt, "/soc/apb/spi@2000", 0x10000000, 0x90000000);
	expect_bus(&dt, "/soc/deep/inner/spi@3000", 0x1000, 0x1000);
	ck_assert_int_eq(ofl_dt_dma_translate(dt.fdt, node(&dt, "/soc/ahb/crypto@1000"), 0x50000000, &b,
					      err, sizeof(err)), -ERANGE);
	assert_has(err, "outside every dma-ranges window of /soc");
	/* a DMA parent chain that loops: bounded walk, reported as not translatable */
	ck_assert_int_eq(ofl_dt_dma_translate(dt.fdt, node(&dt, "/noncoh-bus/crypto@3000"), 0x1000, &b,
					      err, sizeof(err)), -EINVAL);
	assert_has(err, "/noncoh-bus/crypto@3000: its interconnects \"dma-mem\" DMA parents form a loop "
			"(not translatable)");
	/* a window wrapping past 2^64 is not translatable, like a reg or ranges entry */
	ck_assert_int_eq(ofl_dt_dma_translate(dt.fdt, node(&dt, "/wrap-bus/dev@1000"), 0x1000, &b, err,
					      sizeof(err)), -EINVAL);
	assert_has(err, "no dma-ranges entry of /wrap-bus translates to a CPU address (an entry whose "
			"bus or CPU window wraps the 64-bit address space is not translatable)");
	expect_bus(&dt, "/wrap2-bus/dev@1000", 0x1000, 0x40001000);
	ofl_dt_free(&dt);
}
END_TEST

/* ------------------------------------------------------------------ reserved-memory */

START_TEST(reserved_memory)
{
	struct ofl_dt dt = load("rmem");
	struct ofl_dt_rmem r[8];
	char p[256];

	int n = ofl_dt_reserved_memory(dt.fdt, r, 8);
	ck_assert_int_eq(n, 4);
	ofl_dt_path(dt.fdt, r[0].node, p, sizeof(p));
	ck_assert_str_eq(p, "/reserved-memory/pool@a0000000");
	ck_assert_uint_eq(r[0].addr, 0xa0000000);
	ck_assert_uint_eq(r[0].size, 0x100000);
	ck_assert(r[0].no_map && !r[0].reusable && !r[0].dynamic);
	ck_assert_str_eq(r[0].compatible, "shared-dma-pool");
	ck_assert_uint_eq(r[1].addr, 0xb0000000);
	ck_assert_uint_eq(r[1].size, 0x1000);
	ck_assert_uint_eq(r[2].addr, 0xb0010000);
	ck_assert_uint_eq(r[2].size, 0x2000);
	ck_assert_int_eq(r[1].node, r[2].node);
	ck_assert_ptr_null(r[1].compatible);
	ofl_dt_path(dt.fdt, r[3].node, p, sizeof(p));
	ck_assert_str_eq(p, "/reserved-memory/cma");
	ck_assert(r[3].dynamic && r[3].reusable && !r[3].no_map);
	ck_assert_uint_eq(r[3].addr, 0);
	ck_assert_uint_eq(r[3].size, 0x4000000);
	ck_assert_int_eq(ofl_dt_reserved_memory(dt.fdt, r, 1), 4);
	ofl_dt_free(&dt);

	dt = load("rmem-bad");
	ck_assert_int_eq(ofl_dt_reserved_memory(dt.fdt, r, 8), -EINVAL);
	ofl_dt_free(&dt);
	dt = load("inherit");
	ck_assert_int_eq(ofl_dt_reserved_memory(dt.fdt, r, 8), 0);
	ofl_dt_free(&dt);
}
END_TEST

START_TEST(builtin_without_sim)
{
	struct ofl_dt dt;
	char err[256] = "";
#ifdef OFFLOAD_HAVE_SIM
	/* the virtual board is liboffload-sim's */
	const struct offload_sim_provider *sim = offload_sim_provider();
	ck_assert_int_eq(ofl_dt_load_builtin(&dt, sim->board_dtb, sim->board_dtb_size, err, sizeof(err)), 0);
	ck_assert_str_eq(dt.source, "builtin:virtual-board");
	ofl_dt_free(&dt);
#endif
	/* without models there is none */
	ck_assert_int_eq(ofl_dt_load_builtin(&dt, NULL, 0, err, sizeof(err)), -ENOTSUP);
	assert_has(err, "comes with liboffload-sim's models");
	ck_assert_ptr_null(dt.fdt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dt");
	TCase *t = tcase_create("load");
	tcase_add_test(t, every_fixture_loads);
	tcase_add_test(t, missing_file);
	tcase_add_test(t, not_a_regular_file);
	tcase_add_test(t, truncated_header);
	tcase_add_test(t, truncated_body);
	tcase_add_test(t, bad_magic_and_version);
	tcase_add_test(t, block_outside_blob);
	tcase_add_test(t, reservation_map_unterminated);
	tcase_add_test(t, strings_block_overlapping_structure_block);
	tcase_add_test(t, property_length_past_end);
	tcase_add_test(t, property_name_outside_strings);
	tcase_add_test(t, unknown_tag_names_node);
	tcase_add_test(t, unbalanced_nodes);
	tcase_add_test(t, blob_through_context);
	tcase_add_test(t, long_node_names_keep_full_paths);
	tcase_add_test(t, spi_reg_not_a_chip_select);
	tcase_add_test(t, reasons_are_never_cut);
	tcase_add_test(t, corruption_never_crashes);
	tcase_add_test(t, validate_refuses_what_libfdt_refuses);
	tcase_add_test(t, validate_names_libfdt_rules);
	tcase_add_test(t, node_by_phandle_is_libfdts);
	tcase_add_test(t, builtin_without_sim);
	suite_add_tcase(s, t);
	t = tcase_create("discover");
	tcase_add_test(t, discover_most_specific_once);
	tcase_add_test(t, discover_caller_lists);
	tcase_add_test(t, discover_safexcel_not_eip76);
	tcase_add_test(t, status_rules);
	suite_add_tcase(s, t);
	t = tcase_create("address");
	tcase_add_test(t, ranges_mixed_cells);
	tcase_add_test(t, ranges_window_end);
	tcase_add_test(t, ranges_empty_identity);
	tcase_add_test(t, ranges_missing_not_translatable);
	tcase_add_test(t, missing_reg);
	tcase_add_test(t, absurd_cells);
	tcase_add_test(t, flags_bus);
	tcase_add_test(t, root_and_bad_offsets);
	tcase_add_test(t, dma_ranges);
	tcase_add_test(t, reserved_memory);
	suite_add_tcase(s, t);
	t = tcase_create("coherent");
	tcase_add_test(t, coherent_inherited);
	tcase_add_test(t, coherent_noncoherent_override);
	tcase_add_test(t, coherent_dma_parent);
	suite_add_tcase(s, t);
	return test_run(s);
}
