/* SPDX-License-Identifier: MIT */
/*
 * Hammer tests for what offload.h promises threads sharing one open
 * context: the synchronous calls (memcpy, one-shot cipher and hash, device
 * queries, counters) run concurrently, and different handles (SPI handles on
 * one controller, sessions, buffers) are independent. Each test starts its
 * threads together at a barrier, runs many operations and checks an exact
 * outcome computed independently: copies against their source, digests and
 * ciphertexts against OpenSSL, counters against the operations done.
 * Run them under ThreadSanitizer too (-fsanitize=thread).
 */
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>

#include "testutil.h"

#define NTHREADS 4
#define VB_LOOP "/bus@100000/spi@2100000/loopback@0"
#define VB_FLASH "/bus@100000/spi@2100000/flash@1"

struct arg {
	offload_ctx *ctx;
	pthread_barrier_t *bar;
	unsigned idx;
	int dev;
	int failures;
	char what[200];
	uint64_t ops, bytes;
};

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(next(&seed) >> 11);
}

static void bad(struct arg *a, const char *what, long v)
{
	if (!a->failures++)
		snprintf(a->what, sizeof(a->what), "thread %u: %s (%ld): %s", a->idx, what, v,
			 offload_last_error(a->ctx));
}

static void run_n(void *(*fn)(void *), struct arg *a, unsigned n, offload_ctx *ctx, int dev)
{
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, n);
	for (unsigned i = 0; i < n; i++)
		a[i] = (struct arg){ .ctx = ctx, .bar = &bar, .idx = i, .dev = dev };
	test_run_threads(fn, a, sizeof(*a), n);
	pthread_barrier_destroy(&bar);
	for (unsigned i = 0; i < n; i++)
		ck_assert_msg(a[i].failures == 0, "%d failures; first: %s", a[i].failures, a[i].what);
}

static void run(void *(*fn)(void *), struct arg *a, offload_ctx *ctx, int dev)
{
	run_n(fn, a, NTHREADS, ctx, dev);
}

/* The virtual board; with _i = 1 its models' memory is not coherent (cache maintenance runs). */
static offload_ctx *vb_flags(int i)
{
	return test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, i ? OFFLOAD_CTX_SIM_NONCOHERENT : 0, NULL);
}

static offload_ctx *vb(void)
{
	return vb_flags(0);
}

static int dev_of(offload_ctx *ctx, const char *backend)
{
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info info;
		ck_assert_int_eq(offload_dev_get_info(ctx, i, &info, sizeof(info)), 0);
		if (!strcmp(info.backend, backend))
			return i;
	}
	ck_abort_msg("no %s device", backend);
	return -1;
}

/*
 * "udma" where this host drives the virtual board's UDMA, else NULL: a
 * 32-bit CPU has no single 64-bit access for the ring accelerator, and the
 * backend refuses the engine there (docs/fidelity.md M7, OFL_MMIO_SINGLE_64
 * in src/platform/platform.h). The UDMA parts are then left out.
 */
static const char *udma_here(void)
{
	if (UINTPTR_MAX > 0xFFFFFFFFu)
		return "udma";
	fprintf(stderr, "note: no direct UDMA on a 32-bit host (docs/fidelity.md M7): its part is left out\n");
	return NULL;
}

/*
 * fn on NTHREADS threads of a fresh virtual board (non-coherent models with
 * noncoherent), on device `first` (NULL: automatic, dev -1), then on
 * `second` if not NULL.
 */
static void hammer(void *(*fn)(void *), int noncoherent, const char *first, const char *second)
{
	offload_ctx *ctx = vb_flags(noncoherent);
	struct arg a[NTHREADS];

	run(fn, a, ctx, first ? dev_of(ctx, first) : -1);
	if (second)
		run(fn, a, ctx, dev_of(ctx, second));
	offload_ctx_free(ctx);
}

/* ------------------------------------------------------------- memcpy */

#define CP_MAX (96u * 1024u)

static void *copy_work(void *p)
{
	struct arg *a = p;
	uint64_t s = 0x9e3779b97f4a7c15ull * (a->idx + 1);
	uint8_t *src = malloc(CP_MAX + 64), *dst = malloc(CP_MAX + 64);

	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 150 && src && dst; it++) {
		size_t n = 1 + next(&s) % CP_MAX, so = next(&s) % 32, doff = next(&s) % 32;
		fill(src, CP_MAX + 64, s);
		memset(dst, 0xA5, CP_MAX + 64);
		struct offload_result res;
		int r = a->dev < 0 ? offload_memcpy(a->ctx, dst + doff, src + so, n)
				   : offload_memcpy_dev(a->ctx, a->dev, dst + doff, src + so, n, &res);
		if (r)
			bad(a, "memcpy", r);
		else if (memcmp(dst + doff, src + so, n))
			bad(a, "copy differs from its source", (long)n);
		for (size_t i = 0; i < CP_MAX + 64; i++)
			if ((i < doff || i >= doff + n) && dst[i] != 0xA5) {
				bad(a, "byte outside the copy written at", (long)i);
				break;
			}
		a->ops++;
		a->bytes += n;
	}
	free(src);
	free(dst);
	return NULL;
}

START_TEST(memcpy_shared_context)
{
	hammer(copy_work, _i, NULL, udma_here());
}
END_TEST

/* Aligned engine copies from every thread: the device's counters equal what was done. */
static void *counted_work(void *p)
{
	struct arg *a = p;
	size_t n = 64u * 1024u;
	uint8_t *src = aligned_alloc(4096, n), *dst = aligned_alloc(4096, n);
	struct offload_result res;

	fill(src, n, a->idx);
	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 100; it++) {
		int r = offload_memcpy_dev(a->ctx, a->dev, dst, src, n, &res);
		if (r || memcmp(dst, src, n))
			bad(a, "counted copy", r);
		a->ops++;
		a->bytes += n;
	}
	free(src);
	free(dst);
	return NULL;
}

START_TEST(engine_counters_count_every_copy)
{
	if (!udma_here())
		return;
	offload_ctx *ctx = vb_flags(_i);
	struct arg a[NTHREADS];
	struct offload_dev_stats st;
	int dev = dev_of(ctx, "udma");
	uint64_t ops = 0, bytes = 0;

	ck_assert_int_eq(offload_dev_stats_reset(ctx, dev), 0);
	run(counted_work, a, ctx, dev);
	for (unsigned i = 0; i < NTHREADS; i++) {
		ops += a[i].ops;
		bytes += a[i].bytes;
	}
	ck_assert_int_eq(offload_dev_get_stats(ctx, dev, &st, sizeof(st)), 0);
	ck_assert_uint_eq(st.jobs, ops);
	ck_assert_uint_eq(st.bytes + st.cpu_bytes, bytes);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------- crypto */

static const enum offload_hash_alg hash_algs[] = { OFFLOAD_HASH_SHA256, OFFLOAD_HASH_SHA1,
						   OFFLOAD_HASH_HMAC_SHA256, OFFLOAD_HASH_SHA512 };

static void ref_hash(enum offload_hash_alg alg, const uint8_t *key, size_t kl, const uint8_t *in,
		     size_t n, uint8_t *out, unsigned *ol)
{
	const EVP_MD *md = alg == OFFLOAD_HASH_SHA1 ? EVP_sha1() : alg == OFFLOAD_HASH_SHA512 ? EVP_sha512()
											  : EVP_sha256();

	if (alg == OFFLOAD_HASH_HMAC_SHA256)
		HMAC(md, key, (int)kl, in, n, out, ol);
	else
		EVP_Digest(in, n, out, ol, md, NULL);
}

static void *hash_work(void *p)
{
	struct arg *a = p;
	uint64_t s = 0x1234567ull * (a->idx + 1);
	static const size_t max = 20000;
	uint8_t *in = malloc(max), key[20], d[64], ref[64];

	fill(key, sizeof(key), a->idx);
	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 120 && in; it++) {
		enum offload_hash_alg alg = hash_algs[next(&s) % (sizeof(hash_algs) / sizeof(hash_algs[0]))];
		size_t n = next(&s) % max;
		unsigned rl = 0;
		fill(in, n, s);
		bool hmac = alg == OFFLOAD_HASH_HMAC_SHA256;
		int l = offload_hash(a->ctx, alg, hmac ? key : NULL, hmac ? sizeof(key) : 0, in, n, d,
				     sizeof(d), NULL);
		ref_hash(alg, key, sizeof(key), in, n, ref, &rl);
		if (l != (int)rl || memcmp(d, ref, rl))
			bad(a, "digest differs from OpenSSL's, length", (long)n);
		a->ops++;
	}
	free(in);
	return NULL;
}

START_TEST(hash_shared_context)
{
	hammer(hash_work, _i, NULL, NULL);
}
END_TEST

static void *cipher_work(void *p)
{
	struct arg *a = p;
	uint64_t s = 0x7654321ull * (a->idx + 1);
	static const size_t max = 16384;
	uint8_t *in = malloc(max), *out = malloc(max), *ref = malloc(max + 16), key[32], iv[16], tag[16],
		rtag[16];

	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 120 && in && out && ref; it++) {
		int k = (int)(next(&s) % 3);
		enum offload_cipher_alg alg = k == 0 ? OFFLOAD_CIPHER_AES_CBC
					      : k == 1 ? OFFLOAD_CIPHER_AES_CTR : OFFLOAD_CIPHER_AES_GCM;
		size_t n = (next(&s) % max) & ~(size_t)15;
		fill(in, n, s);
		fill(key, sizeof(key), s + 1);
		fill(iv, sizeof(iv), s + 2);
		size_t ivl = alg == OFFLOAD_CIPHER_AES_GCM ? 12 : 16;
		struct offload_cipher_op op = { .alg = alg, .dir = OFFLOAD_ENCRYPT, .key = key,
						.key_len = 32, .iv = iv, .iv_len = ivl, .in = in,
						.out = out, .len = n };
		if (alg == OFFLOAD_CIPHER_AES_GCM) {
			op.tag = tag;
			op.tag_len = 16;
		}
		int r = offload_cipher(a->ctx, &op, sizeof(op));
		const EVP_CIPHER *c = k == 0 ? EVP_aes_256_cbc() : k == 1 ? EVP_aes_256_ctr()
									: EVP_aes_256_gcm();
		EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
		int l1 = 0, l2 = 0;
		EVP_EncryptInit_ex(e, c, NULL, NULL, NULL);
		if (k == 2)
			EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IVLEN, 12, NULL);
		EVP_EncryptInit_ex(e, NULL, NULL, key, iv);
		EVP_CIPHER_CTX_set_padding(e, 0);
		EVP_EncryptUpdate(e, ref, &l1, in, (int)n);
		EVP_EncryptFinal_ex(e, ref + l1, &l2);
		if (k == 2)
			EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_GET_TAG, 16, rtag);
		EVP_CIPHER_CTX_free(e);
		if (r)
			bad(a, "offload_cipher", r);
		else if ((size_t)(l1 + l2) != n || memcmp(out, ref, n) || (k == 2 && memcmp(tag, rtag, 16)))
			bad(a, "ciphertext differs from OpenSSL's, length", (long)n);
		a->ops++;
	}
	free(in);
	free(out);
	free(ref);
	return NULL;
}

START_TEST(cipher_shared_context)
{
	hammer(cipher_work, _i, NULL, NULL);
}
END_TEST

/* ------------------------------------------------------------- SPI: handles of one controller */

static void *spi_work(void *p)
{
	struct arg *a = p;
	bool flash = a->idx & 1;
	offload_spi *spi = NULL;
	uint64_t s = a->idx + 1;
	int r = offload_spi_open(a->ctx, flash ? VB_FLASH : VB_LOOP, NULL, &spi);

	pthread_barrier_wait(a->bar);
	if (r) {
		bad(a, "offload_spi_open", r);
		return NULL;
	}
	for (int it = 0; it < 150; it++) {
		uint8_t tx[64], rx[64], op = 0x9F, id[3] = { 0 };
		if (flash) {
			struct offload_spi_xfer x[2] = { { .tx = &op, .len = 1 }, { .rx = id, .len = 3 } };
			r = offload_spi_transfer(spi, x, 2);
			if (r != 4 || memcmp(id, "\x20\xBA\x18", 3))
				bad(a, "JEDEC ID read", r);
		} else {
			size_t n = 1 + next(&s) % sizeof(tx);
			fill(tx, n, s);
			memset(rx, 0, sizeof(rx));
			struct offload_spi_xfer x = { .tx = tx, .rx = rx, .len = (uint32_t)n };
			r = offload_spi_transfer(spi, &x, 1);
			if (r != (int)n || memcmp(rx, tx, n))
				bad(a, "loopback", r);
		}
		a->ops++;
	}
	offload_spi_close(spi);
	return NULL;
}

START_TEST(spi_handles_of_one_controller)
{
	offload_ctx *ctx = vb();
	struct arg a[NTHREADS];
	struct offload_dev_stats st;
	int dev = dev_of(ctx, "dspi");

	ck_assert_int_eq(offload_dev_stats_reset(ctx, dev), 0);
	run(spi_work, a, ctx, -1);
	ck_assert_int_eq(offload_dev_get_stats(ctx, dev, &st, sizeof(st)), 0);
	ck_assert_uint_eq(st.jobs, NTHREADS * 150u);
	offload_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------- buffers, queries */

static void *buf_work(void *p)
{
	struct arg *a = p;
	offload_buf *b[8];

	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 100; it++) {
		for (unsigned i = 0; i < 8; i++) {
			int r = offload_buf_alloc(a->ctx, a->dev, 4096u * (i + 1), 0, &b[i]);
			if (r) {
				bad(a, "offload_buf_alloc", r);
				b[i] = NULL;
				continue;
			}
			memset(offload_buf_ptr(b[i]), (int)(a->idx * 8 + i), offload_buf_size(b[i]));
		}
		for (unsigned i = 0; i < 8; i++) {
			if (!b[i])
				continue;
			const uint8_t *q = offload_buf_ptr(b[i]);
			for (size_t k = 0; k < offload_buf_size(b[i]); k++)
				if (q[k] != (uint8_t)(a->idx * 8 + i)) {
					bad(a, "another thread's buffer overlaps, at", (long)k);
					break;
				}
			offload_buf_free(b[i]);
		}
		struct offload_dev_info info;
		if (offload_dev_get_info(a->ctx, a->dev, &info, sizeof(info)) || !info.name[0])
			bad(a, "offload_dev_get_info", 0);
		const char *why;
		if (offload_backend_status(a->ctx, "cpu", &why) != 1)
			bad(a, "offload_backend_status", 0);
	}
	return NULL;
}

START_TEST(buffers_shared_context)
{
	if (udma_here())
		hammer(buf_work, _i, "udma", "eip97");
	else
		hammer(buf_work, _i, "eip97", NULL);
}
END_TEST

/* Copies large enough for the CPU backend to split them over its workers, from every thread. */
static void *split_work(void *p)
{
	struct arg *a = p;
	size_t n = 5u << 20;
	uint8_t *src = malloc(n + 64), *dst = malloc(n + 64);
	struct offload_result res;

	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 6 && src && dst; it++) {
		size_t off = (size_t)(a->idx * 7 + (unsigned)it) % 64, len = n - 4096u * (unsigned)it;
		fill(src, n + 64, a->idx * 100u + (unsigned)it);
		memset(dst, 0, n + 64);
		int r = offload_memcpy_dev(a->ctx, a->dev, dst + off, src, len, &res);
		if (r || memcmp(dst + off, src, len))
			bad(a, "split copy", r);
	}
	free(src);
	free(dst);
	return NULL;
}

START_TEST(cpu_split_copies_from_every_thread)
{
	hammer(split_work, 0, "cpu", NULL);
}
END_TEST

/* Each thread its own queue on one device: every completion in order, every copy right. */
static void *queue_work(void *p)
{
	struct arg *a = p;
	struct offload_queue_opts o;
	offload_queue *q = NULL;
	enum { JOBS = 16, LEN = 48 * 1024 };
	uint8_t *src = malloc(JOBS * LEN), *dst = malloc(JOBS * LEN);
	uint64_t s = a->idx + 11, ud = 0, want = 0;

	offload_queue_opts_init(&o);
	o.dev = a->dev;
	o.depth = 64;
	int r = offload_queue_open(a->ctx, &o, &q);
	pthread_barrier_wait(a->bar);
	if (r || !src || !dst) {
		bad(a, "offload_queue_open", r);
		goto out;
	}
	for (int it = 0; it < 30; it++) {
		unsigned nj = 1 + (unsigned)(next(&s) % JOBS);
		size_t len[JOBS];
		fill(src, JOBS * LEN, s);
		memset(dst, 0, JOBS * LEN);
		for (unsigned j = 0; j < nj; j++) {
			len[j] = 1 + next(&s) % LEN;
			r = offload_queue_copy(q, dst + j * LEN, src + j * LEN, len[j], ud++);
			if (r < 0)
				bad(a, "offload_queue_copy", r);
		}
		if ((r = offload_queue_submit(q)) < 0)
			bad(a, "offload_queue_submit", r);
		for (unsigned got = 0; got < nj && !a->failures;) {
			struct offload_completion c[JOBS];
			int k = offload_queue_wait(q, c, JOBS, 10 * 1000 * 1000);
			if (k <= 0) {
				bad(a, "offload_queue_wait", k);
				break;
			}
			for (int i = 0; i < k; i++, got++)
				if (c[i].status || c[i].user_data != want++)
					bad(a, "completion out of order or failed", c[i].status);
		}
		for (unsigned j = 0; j < nj; j++)
			if (memcmp(dst + j * LEN, src + j * LEN, len[j]))
				bad(a, "queued copy differs from its source, job", (long)j);
	}
out:
	if (q)
		offload_queue_close(q);
	free(src);
	free(dst);
	return NULL;
}

START_TEST(queues_one_per_thread)
{
	hammer(queue_work, _i, "cpu", udma_here());
}
END_TEST

/* Sessions opened, run and closed over and over on one engine from every thread. */
static void *session_work(void *p)
{
	struct arg *a = p;
	uint64_t s = a->idx * 31u + 7u;
	uint8_t key[32], in[4096], d[32], ref[32];

	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 60; it++) {
		offload_hash_session *h;
		unsigned rl = 0;
		size_t n = next(&s) % sizeof(in);
		fill(key, sizeof(key), s);
		fill(in, n, s + 1);
		int r = offload_hash_open_dev(a->ctx, a->dev, OFFLOAD_HASH_HMAC_SHA256, key, sizeof(key), &h);
		if (r) {
			bad(a, "offload_hash_open_dev", r);
			continue;
		}
		r = offload_hash_update(h, in, n);
		int l = offload_hash_final(h, d, sizeof(d), NULL);
		offload_hash_close(h);
		HMAC(EVP_sha256(), key, sizeof(key), in, n, ref, &rl);
		if (r || l != 32 || memcmp(d, ref, 32))
			bad(a, "HMAC differs from OpenSSL's, length", (long)n);
	}
	return NULL;
}

START_TEST(sessions_opened_and_closed_from_every_thread)
{
	hammer(session_work, _i, "eip97", NULL);
}
END_TEST

/*
 * Thread 0 copies into a DMA buffer of the engine and frees it at once; the
 * others, more than the engine's synchronous channels, copy plain memory on
 * it meanwhile. A channel remembers the buffer of its last copy (whichever
 * thread made it): a buffer freed by its owner must not be looked at by the
 * next copy, another thread's.
 */
static void *free_while_copying_work(void *p)
{
	struct arg *a = p;
	enum { N = 16 * 1024 };
	uint8_t *src = malloc(N), *dst = malloc(N);
	struct offload_result res;

	fill(src, N, a->idx);
	pthread_barrier_wait(a->bar);
	for (int it = 0; it < 400 && src && dst; it++) {
		offload_buf *b = NULL;
		uint8_t *to = dst;
		int r = 0;
		if (a->idx == 0) {
			if ((r = offload_buf_alloc(a->ctx, a->dev, N, 0, &b)) < 0) {
				bad(a, "offload_buf_alloc", r);
				break;
			}
			to = offload_buf_ptr(b);
		}
		memset(to, 0, N);
		r = offload_memcpy_dev(a->ctx, a->dev, to, src, N, &res);
		if (r || memcmp(to, src, N))
			bad(a, "copy", r);
		if (b)
			offload_buf_free(b);
	}
	free(src);
	free(dst);
	return NULL;
}

START_TEST(buffer_freed_while_another_thread_copies)
{
	if (!udma_here())
		return;
	offload_ctx *ctx = vb_flags(_i);
	struct arg a[8];

	run_n(free_while_copying_work, a, 8, ctx, dev_of(ctx, "udma"));
	offload_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("race");
	TCase *tc = tcase_create("shared");

	tcase_add_loop_test(tc, memcpy_shared_context, 0, 2);
	tcase_add_loop_test(tc, engine_counters_count_every_copy, 0, 2);
	tcase_add_loop_test(tc, hash_shared_context, 0, 2);
	tcase_add_loop_test(tc, cipher_shared_context, 0, 2);
	tcase_add_test(tc, spi_handles_of_one_controller);
	tcase_add_loop_test(tc, buffers_shared_context, 0, 2);
	tcase_add_test(tc, cpu_split_copies_from_every_thread);
	tcase_add_loop_test(tc, queues_one_per_thread, 0, 2);
	tcase_add_loop_test(tc, sessions_opened_and_closed_from_every_thread, 0, 2);
	tcase_add_loop_test(tc, buffer_freed_while_another_thread_copies, 0, 2);
	suite_add_tcase(s, tc);
	return test_run(s);
}
