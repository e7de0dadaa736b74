/* SPDX-License-Identifier: MIT */
/*
 * A complete liboffload program: open a context, list the devices with the
 * reasons behind each decision, copy memory (one call, then a queue), run an
 * AES-GCM round trip and SHA-256 against published test vectors, and show
 * how errors read.
 *
 * Build against an installed library:
 *     cc -Wall -o example example.c $(pkg-config --cflags --libs offload)
 * Run:
 *     ./example                      the machine's device tree (or none)
 *     ./example path/to/board.dtb    another board's tree (engines usable only with --sim
 *                                    or OFFLOAD_SIM=1, as models)
 * Exit status 0 when every result is right, 1 otherwise. ctest builds and
 * runs it (test example_c).
 */
#include <errno.h> /* the E* codes the library returns negated */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offload/offload.h>

static int failures;

#define CHECK(cond, ...)                                      \
	do {                                                  \
		if (!(cond)) {                                \
			fprintf(stderr, "FAILED: " __VA_ARGS__); \
			fputc('\n', stderr);                  \
			failures++;                           \
		}                                             \
	} while (0)

/* Print a library error the way every example below does. */
static void report(offload_ctx *ctx, const char *what, int r)
{
	fprintf(stderr, "%s: %s (%d): %s\n", what, offload_strerror(r), r, offload_last_error(ctx));
}

static const char *cache_name(enum offload_cache_mode m)
{
	return m == OFFLOAD_CACHE_COHERENT ? "coherent" : m == OFFLOAD_CACHE_STREAMING ? "streaming"
											: "uncached";
}

/* 1. Devices: every decision the library made, with its reason. */
static void list_devices(offload_ctx *ctx)
{
	int n = offload_dev_count(ctx);
	uint32_t flags = 0;

	offload_ctx_get_flags(ctx, &flags); /* an open context: cannot fail */
	printf("device tree: %s%s\n", offload_ctx_dt_source(ctx),
	       (flags & OFFLOAD_CTX_DT_FALLBACK)
		       ? " (none on this machine: the built-in virtual board, simulated)"
		       : "");
	for (int i = 0; i < n; i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) < 0)
			continue;
		printf("[%d] %s (%s)%s, backend %s\n", d.index, d.name, d.kind,
		       (d.flags & OFFLOAD_DEVF_SIM) ? " [sim]" : "", d.backend[0] ? d.backend : "none");
		printf("    usable: %s: %s\n", (d.flags & OFFLOAD_DEVF_USABLE) ? "yes" : "no",
		       d.usable_reason);
		printf("    cache:  %s: %s\n", cache_name(d.cache_mode), d.cache_reason);
	}
}

/* 2. One copy, and who ran it. */
static void copy_once(offload_ctx *ctx)
{
	size_t len = (size_t)1 << 20;
	unsigned char *src = malloc(len), *dst = malloc(len);
	struct offload_result res;

	if (!src || !dst) {
		CHECK(0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < len; i++)
		src[i] = (unsigned char)(i * 131 + 7);
	int r = offload_memcpy_dev(ctx, OFFLOAD_DEV_AUTO, dst, src, len, &res);
	if (r < 0)
		report(ctx, "offload_memcpy_dev", r);
	CHECK(r == 0 && memcmp(dst, src, len) == 0, "1 MiB copy");
	if (r == 0)
		printf("memcpy: 1 MiB by device %d, backend %s, driver %s%s\n", res.dev, res.backend,
		       res.driver, (res.flags & OFFLOAD_RES_SIM) ? " (sim)" : "");
out:
	free(src);
	free(dst);
}

/* 3. The queue: enqueue a batch, one doorbell, completions in order. */
static void copy_queued(offload_ctx *ctx)
{
	enum { JOBS = 8, LEN = 64 * 1024 };
	unsigned char *src = malloc(JOBS * LEN), *dst = calloc(JOBS, LEN);
	struct offload_completion cpl[JOBS];
	offload_queue *q = NULL;
	int done = 0;

	if (!src || !dst) {
		CHECK(0, "out of memory");
		goto out;
	}
	memset(src, 0x5a, JOBS * LEN);
	int r = offload_queue_open(ctx, NULL, &q); /* depth 256, the automatic device */
	if (r < 0) {
		report(ctx, "offload_queue_open", r);
		CHECK(0, "queue open");
		goto out;
	}
	for (int i = 0; i < JOBS; i++) {
		r = offload_queue_copy(q, dst + i * LEN, src + i * LEN, LEN, (uint64_t)i);
		CHECK(r >= 0, "enqueue %d: %s", i, offload_last_error(ctx));
	}
	r = offload_queue_submit(q);
	CHECK(r == JOBS, "submit: %d", r);
	while (done < JOBS) {
		r = offload_queue_wait(q, cpl + done, JOBS - done, 5 * 1000 * 1000); /* 5 s */
		if (r < 0) {
			report(ctx, "offload_queue_wait", r);
			break;
		}
		done += r;
	}
	for (int i = 0; i < done; i++)
		CHECK(cpl[i].status == 0 && cpl[i].user_data == (uint64_t)i, "job %d", i);
	CHECK(done == JOBS && memcmp(dst, src, JOBS * LEN) == 0, "queued copies");
	printf("queue:  %d copies of 64 KiB on device %d, completed in order\n", done,
	       offload_queue_dev(q));
	r = offload_queue_close(q);
	CHECK(r == 0, "queue close");
out:
	free(src);
	free(dst);
}

static void hex(const char *label, const unsigned char *p, size_t n)
{
	printf("%s", label);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/*
 * 4. AES-128-GCM, test case 2 of McGrew and Viega's GCM specification (the
 * vectors NIST's SP 800-38D validation uses): zero key, zero IV, one zero
 * block.
 */
static void gcm_round_trip(offload_ctx *ctx)
{
	static const unsigned char key[16], iv[12], pt[16];
	static const unsigned char want_ct[16] = { 0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
						   0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78 };
	static const unsigned char want_tag[16] = { 0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
						    0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf };
	unsigned char ct[16], back[16], tag[16];
	struct offload_result res;
	struct offload_cipher_op op = {
		.alg = OFFLOAD_CIPHER_AES_GCM, .dir = OFFLOAD_ENCRYPT, .key = key, .key_len = 16,
		.iv = iv, .iv_len = 12, .in = pt, .out = ct, .len = 16, .tag = tag, .tag_len = 16,
		.result = &res,
	};

	int r = offload_cipher(ctx, &op, sizeof(op));
	if (r == -ENOTSUP) {
		printf("gcm:    not run: %s\n", offload_last_error(ctx)); /* no crypto backend built */
		return;
	}
	if (r < 0)
		report(ctx, "offload_cipher (encrypt)", r);
	CHECK(r == 0 && memcmp(ct, want_ct, 16) == 0 && memcmp(tag, want_tag, 16) == 0,
	      "AES-128-GCM test case 2");
	hex("gcm:    ciphertext ", ct, 16);
	hex("        tag        ", tag, 16);
	printf("        by %s (%s)\n", res.backend, res.driver);

	op.dir = OFFLOAD_DECRYPT;
	op.in = ct;
	op.out = back;
	r = offload_cipher(ctx, &op, sizeof(op));
	CHECK(r == 0 && memcmp(back, pt, 16) == 0, "GCM decrypt");

	/* A flipped tag bit: -EBADMSG, and the output is zeroed, never released. */
	tag[0] ^= 1;
	r = offload_cipher(ctx, &op, sizeof(op));
	CHECK(r == -EBADMSG, "tampered tag gave %d", r);
	printf("        tampered tag: %s\n", offload_strerror(r));
}

/* 5. SHA-256 of "abc" (FIPS 180-4 example). */
static void sha256(offload_ctx *ctx)
{
	static const unsigned char want[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	unsigned char d[OFFLOAD_HASH_MAX_DIGEST];
	struct offload_result res;

	int r = offload_hash(ctx, OFFLOAD_HASH_SHA256, NULL, 0, "abc", 3, d, sizeof(d), &res);
	if (r == -ENOTSUP) {
		printf("sha256: not run: %s\n", offload_last_error(ctx));
		return;
	}
	if (r < 0)
		report(ctx, "offload_hash", r);
	CHECK(r == 32 && memcmp(d, want, 32) == 0, "SHA-256(\"abc\")");
	hex("sha256: ", d, 32);
}

/* 6. Errors: a negative errno, offload_strerror() for the code, offload_last_error() for why. */
static void errors(offload_ctx *ctx)
{
	char buf[64] = "overlap";

	int r = offload_memcpy(ctx, buf + 1, buf, 16); /* overlapping: refused */
	CHECK(r == -EINVAL, "overlapping copy gave %d", r);
	printf("error:  %s: %s\n", offload_strerror(r), offload_last_error(ctx));
	r = offload_dev_find(ctx, "no-such-engine");
	CHECK(r == -ENODEV, "unknown device gave %d", r);
	printf("error:  %s: %s\n", offload_strerror(r), offload_last_error(ctx));
}

int main(int argc, char **argv)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	if (!ctx)
		return 1;
	offload_ctx_opts_init(&o); /* AUTO: $OFFLOAD_DTB, /sys/firmware/fdt, else built-in */
	if (argc > 1) {
		o.dt_source = OFFLOAD_DT_FILE;
		o.dtb_path = argv[1];
	}
	int r = offload_ctx_open(ctx, &o);
	if (r < 0) {
		report(ctx, "offload_ctx_open", r);
		offload_ctx_free(ctx);
		return 1;
	}
	list_devices(ctx);
	copy_once(ctx);
	copy_queued(ctx);
	gcm_round_trip(ctx);
	sha256(ctx);
	errors(ctx);
	offload_ctx_free(ctx); /* closes anything still open */
	printf("%s\n", failures ? "example: FAILED" : "example: ok");
	return failures ? 1 : 0;
}
