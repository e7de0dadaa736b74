/* SPDX-License-Identifier: MIT */
/*
 * The eip97 backend against what the silicon needs (issue #14, the
 * hardware-fidelity audit ../shared/audits/eip97.md): each test here failed
 * before its fix. Results are compared with the CPU backend (OpenSSL) on the
 * same input; register-level facts come from the sim world's counters and
 * the model's own statistics, never from backend code.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "eip97/eip97.h"
#include "sim/eip97_model.h"
#include "sim/sim.h"
#include "simutil.h"
#include "testutil.h"

#define EIP97_COMPAT "inside-secure,safexcel-eip97ies"

struct bx {
	offload_ctx *ctx;
	int dev, cpu;
	struct eip97_engine *e;
};

static void board(struct bx *b, uint32_t flags)
{
	b->ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, OFFLOAD_CTX_SIM | flags, "cpu,eip97");
	b->dev = offload_dev_find(b->ctx, EIP97_COMPAT);
	ck_assert_msg(b->dev >= 0, "%s", offload_last_error(b->ctx));
	b->cpu = offload_dev_find(b->ctx, "cpu");
	ck_assert_int_ge(b->cpu, 0);
	b->e = ofl_ctx_device(b->ctx, b->dev)->priv;
	ck_assert_ptr_nonnull(b->e);
	b->e->timeout_ns = TEST_PATIENT_NS;
}

/* xorshift, one state per caller */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

/* ------------------------------------------------------------- D1: RDs and cache lines */

struct cbc_worker {
	struct bx *b;
	uint64_t seed;
	int iters;
	int errors, wrong, first_err;
	char msg[256];
};

/*
 * One thread: its own AES-128-CBC session on the engine (sessions spread
 * over the rings round robin) and one on the CPU; random lengths and IVs;
 * the engine's ciphertext must equal OpenSSL's.
 */
static void *cbc_work(void *arg)
{
	struct cbc_worker *w = arg;
	struct bx *b = w->b;
	uint8_t key[16], iv[16], in[1024], o1[1024], o2[1024];
	offload_cipher_session *se, *sc;

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)rnd(&w->seed);
	if (offload_cipher_session_open_dev(b->ctx, b->dev, OFFLOAD_CIPHER_AES_CBC, key, 16, &se) ||
	    offload_cipher_session_open_dev(b->ctx, b->cpu, OFFLOAD_CIPHER_AES_CBC, key, 16, &sc)) {
		w->errors++;
		snprintf(w->msg, sizeof(w->msg), "session: %s", offload_last_error(b->ctx));
		return NULL;
	}
	for (int it = 0; it < w->iters; it++) {
		size_t n = 16u * (1u + rnd(&w->seed) % 64u);
		for (size_t i = 0; i < n; i++)
			in[i] = (uint8_t)rnd(&w->seed);
		for (int i = 0; i < 16; i++)
			iv[i] = (uint8_t)rnd(&w->seed);
		struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 16, .in = in,
						.out = o1, .len = n };
		int r = offload_cipher_session_run(se, &op, sizeof(op));
		if (r && !w->errors++) {
			w->first_err = r;
			snprintf(w->msg, sizeof(w->msg), "%s", offload_last_error(b->ctx));
		}
		op.out = o2;
		ck_assert_int_eq(offload_cipher_session_run(sc, &op, sizeof(op)), 0);
		if (!r && memcmp(o1, o2, n) != 0)
			w->wrong++;
	}
	offload_cipher_session_close(se);
	offload_cipher_session_close(sc);
	return NULL;
}

/*
 * audits/eip97.md D1: with cached (maintained) rings on a non-coherent
 * system, a submission cleans the cache lines of its new result
 * descriptors; a line it shares with an RD of a packet still in flight on
 * the same ring writes the CPU's stale copy ("assume error") over what the
 * engine wrote there. Eight threads on four rings: two submitters per ring.
 */
START_TEST(cached_rings_shared_by_threads)
{
	enum { N = 8 };
	struct bx b;
	struct cbc_worker w[N];

	setenv("OFFLOAD_EIP97_RING_MEM", "cached", 1);
	board(&b, OFFLOAD_CTX_SIM_NONCOHERENT);
	unsetenv("OFFLOAD_EIP97_RING_MEM");
	for (uint32_t i = 0; i < b.e->nrings; i++)
		ck_assert_uint_eq(b.e->ring[i].rdr->cache, OFFLOAD_CACHE_STREAMING);
	ck_assert_uint_lt(b.e->nrings, N);
	for (int i = 0; i < N; i++)
		w[i] = (struct cbc_worker){ .b = &b, .seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1),
					    .iters = 120 };
	test_run_threads(cbc_work, w, sizeof(w[0]), N);
	int errors = 0, wrong = 0;
	const char *msg = "";
	for (int i = 0; i < N; i++) {
		errors += w[i].errors;
		wrong += w[i].wrong;
		if (w[i].errors && w[i].msg[0])
			msg = w[i].msg;
	}
	ck_assert_msg(errors == 0 && wrong == 0, "%d of %d operations failed, %d gave wrong data; e.g. %s",
		      errors, N * 120, wrong, msg);
	offload_ctx_free(b.ctx);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("eip97_fidelity");
	TCase *d1 = tcase_create("d1_cache_lines");

	tcase_set_timeout(d1, 600);
	tcase_add_test(d1, cached_rings_shared_by_threads);
	suite_add_tcase(s, d1);
	return s;
}

int main(void)
{
	return test_run(suite());
}
