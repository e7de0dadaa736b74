/* SPDX-License-Identifier: MIT */
/*
 * Guest-only checks of the AF_ALG (kcapi) backend against the real kernel of
 * the qemu guest (tests/qemu/kernel-test.sh, suites kcapi-generic and
 * kcapi-accel). A plain program: exit 0 pass, 1 failure, 77 no AF_ALG here.
 *
 *  1. For every algorithm the backend offers: the cra_driver_name it
 *     REPORTS (offload_result.driver) is the one the kernel actually bound.
 *     The truth comes from the guest's /proc/crypto, read by this file's own
 *     parser: with one session open, opening a second one raises the
 *     "refcnt" of exactly the algorithm instance the kernel bound for it
 *     (crypto/proc.c prints cra_refcnt; a tfm holds a reference for its
 *     lifetime, crypto/api.c crypto_alloc_tfm). Then, per suite:
 *     OFFLOAD_TEST_DRIVERS=generic: every driver is a *-generic one from no
 *     module of OFFLOAD_TEST_ACCEL_MODULES; =accel: the AES modes, 3DES and
 *     SHA-1/2 come from those modules (aesni_intel, sha256_ssse3, ...), MD5
 *     stays generic, and so does every algorithm in OFFLOAD_TEST_NOT_ACCEL (arm64
 *     has no accelerated 3DES); hmac(X) is always "hmac(<driver serving X>)".
 *  2. CBC and CTR beyond libkcapi's 64 KiB pieces equal one continuous
 *     OpenSSL pass (encrypt, and decrypt in place), with the CTR counter
 *     carrying out of its low 64 bits inside and across pieces.
 *  3. AEAD: a corrupted tag, ciphertext or AAD gives -EBADMSG and zeroed
 *     output; the session stays usable; the AF_ALG size limit is -E2BIG.
 *  4. OFFLOAD_TEST_MISSING="ecb(des) ...": algorithms the kernel lacks (the
 *     kcapi-accel suite refuses des_generic). A raw AF_ALG bind confirms
 *     ENOENT; the backend must return -ENOTSUP with a message naming the
 *     kernel algorithm, and the CPU backend must still serve it (known answer).
 *  5. `offloadctl list` (OFFLOAD_TEST_OFFLOADCTL, default "offloadctl")
 *     reports the af_alg device usable and, per algorithm, the driver found in 1.
 *  6. `offloadctl doctor`'s AF_ALG finding: the drivers of 1, all software,
 *     and with OFFLOAD_TEST_PROC_STANDIN (a stand-in /proc/crypto naming
 *     safexcel drivers) cbc(aes) and sha256 as hardware.
 *  With --late-load MODULE...: 1 for a few algorithms before and after
 *  loading the accelerated drivers under one open context (see late_load()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_alg.h>
#include <openssl/evp.h>

#include <offload/offload.h>

#include "guest.h"
#include "wordlist.h"

#define SKIP 77
#define PROC_CRYPTO "/proc/crypto"


/* ------------------------------------------------------------ /proc/crypto */

struct pc_entry {
	char name[128], driver[128], module[64];
	int priority;
	long refcnt;
};

struct pc_snap {
	struct pc_entry *e;
	size_t n;
};

static void snap_free(struct pc_snap *s)
{
	free(s->e);
	s->e = NULL;
	s->n = 0;
}

/* Read every entry's name, driver, module, priority and refcnt, once. */
static int snap_read(struct pc_snap *s)
{
	FILE *f = fopen(PROC_CRYPTO, "r");
	char line[512], key[32], val[128];
	size_t cap = 0;

	s->e = NULL;
	s->n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s : %127[^\n]", key, val) != 2)
			continue;
		if (strcmp(key, "name") == 0) {
			if (s->n == cap) {
				cap = cap ? cap * 2 : 256;
				struct pc_entry *ne = realloc(s->e, cap * sizeof(*ne));
				if (!ne) {
					fclose(f);
					snap_free(s);
					return -ENOMEM;
				}
				s->e = ne;
			}
			memset(&s->e[s->n], 0, sizeof(s->e[0]));
			snprintf(s->e[s->n++].name, sizeof(s->e[0].name), "%s", val);
		} else if (s->n && strcmp(key, "driver") == 0) {
			snprintf(s->e[s->n - 1].driver, sizeof(s->e[0].driver), "%s", val);
		} else if (s->n && strcmp(key, "module") == 0) {
			snprintf(s->e[s->n - 1].module, sizeof(s->e[0].module), "%.63s", val);
		} else if (s->n && strcmp(key, "priority") == 0) {
			s->e[s->n - 1].priority = atoi(val);
		} else if (s->n && strcmp(key, "refcnt") == 0) {
			s->e[s->n - 1].refcnt = atol(val);
		}
	}
	fclose(f);
	return 0;
}

static bool snap_same_list(const struct pc_snap *a, const struct pc_snap *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->e[i].driver, b->e[i].driver) != 0)
			return false;
	return true;
}

/*
 * A consistent snapshot: /proc/crypto comes a page per read() and resumes by
 * position, so an algorithm registered (or a larval removed) meanwhile makes
 * one pass skip or repeat an entry. Read until two passes list the same
 * drivers (at most 5), keep the last.
 */
static int snap_take(struct pc_snap *s)
{
	struct pc_snap prev = { NULL, 0 };
	int r = snap_read(s);

	for (int pass = 0; r == 0 && pass < 4; pass++) {
		snap_free(&prev);
		prev = *s;
		r = snap_read(s);
		if (r == 0 && snap_same_list(&prev, s))
			break;
	}
	snap_free(&prev);
	return r;
}

static const struct pc_entry *snap_find(const struct pc_snap *s, const char *driver)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->e[i].driver, driver) == 0)
			return &s->e[i];
	return NULL;
}

static bool snap_has_name(const struct pc_snap *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->e[i].name, name) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------ the algorithms */

struct alg {
	bool hash;
	int id;          /* enum offload_cipher_alg or offload_hash_alg */
	size_t key_len;
	const char *cra; /* the kernel's algorithm name (AF_ALG salg_name) */
	bool accel;      /* served by an accelerated module in the kcapi-accel suite */
	char served[128]; /* driver the kernel bound (found by step 1) */
};

static struct alg algs[] = {
	{ false, OFFLOAD_CIPHER_AES_ECB, 16, "ecb(aes)", true, "" },
	{ false, OFFLOAD_CIPHER_AES_CBC, 16, "cbc(aes)", true, "" },
	{ false, OFFLOAD_CIPHER_AES_CTR, 16, "ctr(aes)", true, "" },
	{ false, OFFLOAD_CIPHER_AES_GCM, 16, "gcm(aes)", true, "" },
	{ false, OFFLOAD_CIPHER_DES_ECB, 8, "ecb(des)", false, "" },
	{ false, OFFLOAD_CIPHER_DES3_CBC, 24, "cbc(des3_ede)", true, "" },
	{ true, OFFLOAD_HASH_MD5, 0, "md5", false, "" },
	{ true, OFFLOAD_HASH_SHA1, 0, "sha1", true, "" },
	{ true, OFFLOAD_HASH_SHA224, 0, "sha224", true, "" },
	{ true, OFFLOAD_HASH_SHA256, 0, "sha256", true, "" },
	{ true, OFFLOAD_HASH_SHA384, 0, "sha384", true, "" },
	{ true, OFFLOAD_HASH_SHA512, 0, "sha512", true, "" },
	{ true, OFFLOAD_HASH_HMAC_MD5, 16, "hmac(md5)", false, "" },
	{ true, OFFLOAD_HASH_HMAC_SHA1, 16, "hmac(sha1)", true, "" },
	{ true, OFFLOAD_HASH_HMAC_SHA224, 16, "hmac(sha224)", true, "" },
	{ true, OFFLOAD_HASH_HMAC_SHA256, 16, "hmac(sha256)", true, "" },
	{ true, OFFLOAD_HASH_HMAC_SHA384, 16, "hmac(sha384)", true, "" },
	{ true, OFFLOAD_HASH_HMAC_SHA512, 16, "hmac(sha512)", true, "" },
};
#define NALGS (sizeof(algs) / sizeof(algs[0]))

/* Distinct bytes: no DES weak key, no 3DES key with two equal parts. */
static const uint8_t key32[32] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10, 0x32, 0x54,
				   0x76, 0x98, 0xba, 0xdc, 0xfe, 0x13, 0x57, 0x9b, 0xdf, 0x02, 0x46,
				   0x8a, 0xce, 0x31, 0x75, 0xb9, 0xfd, 0x20, 0x64, 0xa8, 0xec };

static const char *alg_name(const struct alg *a)
{
	return a->hash ? offload_hash_name((enum offload_hash_alg)a->id)
		       : offload_cipher_name((enum offload_cipher_alg)a->id, a->key_len);
}

/* A session of algorithm a bound to device dev. */
struct sess {
	offload_cipher_session *c;
	offload_hash_session *h;
};

static int sess_open(offload_ctx *ctx, int dev, const struct alg *a, struct sess *s)
{
	s->c = NULL;
	s->h = NULL;
	if (a->hash)
		return offload_hash_open_dev(ctx, dev, (enum offload_hash_alg)a->id,
					     a->key_len ? key32 : NULL, a->key_len, &s->h);
	return offload_cipher_session_open_dev(ctx, dev, (enum offload_cipher_alg)a->id, key32,
					       a->key_len, &s->c);
}

static void sess_close(struct sess *s)
{
	if (s->c)
		offload_cipher_session_close(s->c);
	if (s->h)
		offload_hash_close(s->h);
}

/* One small operation; fills res. */
static int sess_run(const struct alg *a, struct sess *s, struct offload_result *res)
{
	uint8_t buf[64] = { 0 }, out[64], iv[16] = { 0 }, tag[16];

	if (a->hash) {
		int r = offload_hash_update(s->h, buf, sizeof(buf));
		return r < 0 ? r : offload_hash_final(s->h, out, sizeof(out), res);
	}
	bool gcm = a->id == OFFLOAD_CIPHER_AES_GCM;
	size_t ivl = a->id == OFFLOAD_CIPHER_AES_ECB || a->id == OFFLOAD_CIPHER_DES_ECB ? 0
		     : gcm ? 12 : a->id == OFFLOAD_CIPHER_DES3_CBC ? 8 : 16;
	struct offload_cipher_op op = {
		.dir = OFFLOAD_ENCRYPT, .iv = ivl ? iv : NULL, .iv_len = ivl, .in = buf, .out = out,
		.len = sizeof(buf), .tag = gcm ? tag : NULL, .tag_len = gcm ? 16 : 0, .result = res,
	};
	return offload_cipher_session_run(s->c, &op, sizeof(op));
}

/* The driver whose refcnt rose from before to after among entries named cra. */
static const struct pc_entry *bound_by_refcnt(const struct pc_snap *before,
					      const struct pc_snap *after, const char *cra, int *count)
{
	const struct pc_entry *hit = NULL;

	*count = 0;
	for (size_t i = 0; i < after->n; i++) {
		const struct pc_entry *e = &after->e[i];
		if (strcmp(e->name, cra) != 0)
			continue;
		const struct pc_entry *b = snap_find(before, e->driver);
		if (!b || e->refcnt > b->refcnt) {
			hit = e;
			(*count)++;
		}
	}
	return hit;
}

/* Check 1 for one algorithm. */
static void check_served(offload_ctx *ctx, int dev, struct alg *a, const char *mode,
			 const char *accel_modules)
{
	struct sess s1, s2;
	struct offload_result res = { 0 };
	struct pc_snap before, after;
	const char *name = alg_name(a);

	int r = sess_open(ctx, dev, a, &s1);
	CHECK(r == 0, "%s: open on af_alg: %s", name, offload_last_error(ctx));
	if (r)
		return;
	r = sess_run(a, &s1, &res);
	CHECK(r >= 0, "%s: operation: %s", name, offload_last_error(ctx));
	if (snap_take(&before) < 0) {
		CHECK(0, "cannot read " PROC_CRYPTO);
		sess_close(&s1);
		return;
	}
	r = sess_open(ctx, dev, a, &s2);
	CHECK(r == 0, "%s: second open: %s", name, offload_last_error(ctx));
	snap_take(&after);
	if (r == 0)
		sess_close(&s2);
	int count;
	const struct pc_entry *e = bound_by_refcnt(&before, &after, a->cra, &count);
	CHECK(count == 1, "%s: %d /proc/crypto entries named %s gained a reference (want 1)", name,
	      count, a->cra);
	if (e && count == 1) {
		snprintf(a->served, sizeof(a->served), "%s", e->driver);
		printf("%-13s kernel bound %-45s (module %s, priority %d); backend reports %s\n", a->cra,
		       e->driver, e->module, e->priority, res.driver ? res.driver : "(none)");
		CHECK(res.driver && strcmp(res.driver, e->driver) == 0,
		      "%s: backend reports driver %s, the kernel bound %s", name,
		      res.driver ? res.driver : "(none)", e->driver);
		CHECK(res.backend && strcmp(res.backend, "kcapi") == 0, "%s: ran on %s", name,
		      res.backend ? res.backend : "(none)");
		/* Every driver is CPU code, but the engine of the hw mode. */
		bool want_hw = strcmp(mode, "hw") == 0;
		CHECK((res.flags & OFFLOAD_RES_KERNEL) && !(res.flags & OFFLOAD_RES_HARDWARE) == !want_hw,
		      "%s: result flags %#x, want KERNEL and %sHARDWARE", name, res.flags,
		      want_hw ? "" : "not ");
		bool from_accel = test_word_in_list(accel_modules, e->module);
		if (strcmp(mode, "any") == 0)
			; /* only the truth above */
		else if (strcmp(mode, "hw") == 0)
			CHECK(strcmp(e->driver, accel_modules) == 0,
			      "%s: the kernel bound %s, not the engine's driver %s", name, e->driver,
			      accel_modules);
		else if (strcmp(mode, "accel") == 0 && a->accel && strncmp(a->cra, "hmac(", 5) != 0 &&
			 !test_word_in_list(getenv("OFFLOAD_TEST_NOT_ACCEL"), a->cra))
			CHECK(from_accel, "%s: accelerated run, but %s comes from module %s, not one of %s",
			      name, e->driver, e->module, accel_modules);
		else if (strncmp(a->cra, "hmac(", 5) != 0)
			CHECK(!from_accel && strstr(e->driver, "generic"),
			      "%s: %s run, but %s (module %s) is not a generic driver", name, mode,
			      e->driver, e->module);
	}
	snap_free(&before);
	snap_free(&after);
	sess_close(&s1);
}

/* hmac(X) must be the hmac template over the driver serving X. */
static void check_hmac_over_hash(void)
{
	for (size_t i = 0; i < NALGS; i++) {
		if (strncmp(algs[i].cra, "hmac(", 5) != 0 || !algs[i].served[0])
			continue;
		for (size_t j = 0; j < NALGS; j++) {
			size_t n = strlen(algs[j].cra);
			if (strncmp(algs[i].cra + 5, algs[j].cra, n) != 0 || algs[i].cra[5 + n] != ')' ||
			    !algs[j].served[0])
				continue;
			char want[160];
			snprintf(want, sizeof(want), "hmac(%s)", algs[j].served);
			CHECK(strcmp(algs[i].served, want) == 0, "%s is served by %s, want %s",
			      algs[i].cra, algs[i].served, want);
		}
	}
}

/* ------------------------------------------------------------ 2. chunking */

static int evp_pass(const char *cipher, const uint8_t *key, const uint8_t *iv, const uint8_t *in,
		    size_t n, uint8_t *out)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	const EVP_CIPHER *c = EVP_get_cipherbyname(cipher);
	int l1 = 0, l2 = 0;
	int ok = x && c && EVP_EncryptInit_ex(x, c, NULL, key, iv) &&
		 EVP_CIPHER_CTX_set_padding(x, 0) && EVP_EncryptUpdate(x, out, &l1, in, (int)n) &&
		 EVP_EncryptFinal_ex(x, out + l1, &l2) && (size_t)(l1 + l2) == n;
	EVP_CIPHER_CTX_free(x);
	return ok ? 0 : -1;
}

static void check_chunking(offload_ctx *ctx, int dev)
{
	static const struct {
		enum offload_cipher_alg alg;
		size_t kl;
		const char *evp;
		size_t len;
		uint64_t ctr_low; /* CTR: initial low 64 bits of the counter block */
	} cases[] = {
		{ OFFLOAD_CIPHER_AES_CBC, 16, "AES-128-CBC", 65536 + 3 * 16, 0 },
		{ OFFLOAD_CIPHER_AES_CBC, 32, "AES-256-CBC", 3 * 65536 + 32, 0 },
		{ OFFLOAD_CIPHER_DES3_CBC, 24, "DES-EDE3-CBC", 2 * 65536 + 8, 0 },
		/* carry out of the low 64 bits inside the first 64 KiB piece */
		{ OFFLOAD_CIPHER_AES_CTR, 16, "AES-128-CTR", 3 * 65536 + 5, ~(uint64_t)0 - 100 },
		/* carry exactly at the first piece boundary (4096 blocks per piece) */
		{ OFFLOAD_CIPHER_AES_CTR, 32, "AES-256-CTR", 2 * 65536 + 17, ~(uint64_t)0 - 4095 },
	};
	size_t maxlen = 3 * 65536 + 64;
	uint8_t *in = malloc(maxlen), *out = malloc(maxlen), *ref = malloc(maxlen);

	if (!in || !out || !ref) {
		CHECK(0, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < maxlen; i++)
		in[i] = (uint8_t)(i * 131u + (i >> 9));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint8_t iv[16];
		size_t ivl = cases[c].alg == OFFLOAD_CIPHER_DES3_CBC ? 8 : 16;
		size_t n = cases[c].len;
		for (size_t i = 0; i < 16; i++)
			iv[i] = (uint8_t)(0xa0 + i);
		if (cases[c].alg == OFFLOAD_CIPHER_AES_CTR)
			for (int i = 0; i < 8; i++)
				iv[8 + i] = (uint8_t)(cases[c].ctr_low >> (56 - 8 * i));
		int mark = failures;
		CHECK(evp_pass(cases[c].evp, key32, iv, in, n, ref) == 0, "%s: OpenSSL failed",
		      cases[c].evp);
		offload_cipher_session *s;
		int r = offload_cipher_session_open_dev(ctx, dev, cases[c].alg, key32, cases[c].kl, &s);
		CHECK(r == 0, "%s: open: %s", cases[c].evp, offload_last_error(ctx));
		if (r)
			continue;
		struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = ivl,
						.in = in, .out = out, .len = n };
		r = offload_cipher_session_run(s, &op, sizeof(op));
		CHECK(r == 0 && memcmp(out, ref, n) == 0,
		      "%s: %zu bytes through af_alg differ from one continuous OpenSSL pass (%d)",
		      cases[c].evp, n, r);
		op.dir = OFFLOAD_DECRYPT; /* in place */
		op.in = out;
		r = offload_cipher_session_run(s, &op, sizeof(op));
		CHECK(r == 0 && memcmp(out, in, n) == 0, "%s: in-place decrypt of %zu bytes (%d)",
		      cases[c].evp, n, r);
		offload_cipher_session_close(s);
		OK_SINCE(mark, "ok   chunking %s %zu bytes = one continuous pass\n", cases[c].evp, n);
	}
done:
	free(in);
	free(out);
	free(ref);
}

/* ------------------------------------------------------------ 3. AEAD */

static size_t nonzero(const uint8_t *p, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += p[i] != 0;
	return k;
}

/*
 * A raw AF_ALG gcm(aes) request whose ALG_SET_IV carries ivl bytes,
 * independent of libkcapi and the library: 0 or the kernel's -errno.
 */
static int raw_aead_iv(size_t ivl)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "aead",
				   .salg_name = "gcm(aes)" };
	uint8_t k[16] = { 0 }, data[32] = { 0 };
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
		struct cmsghdr align;
	} c;
	int r, fd = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_ALG, ALG_SET_KEY, k, sizeof(k)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	int op = accept(fd, NULL, 0);
	if (op < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	memset(&c, 0, sizeof(c));
	struct iovec io = { .iov_base = data, .iov_len = 16 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = CMSG_SPACE(sizeof(uint32_t)) +
					      CMSG_SPACE(sizeof(struct af_alg_iv) + ivl) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_ALG;
	h->cmsg_type = ALG_SET_OP;
	h->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	uint32_t enc = ALG_OP_ENCRYPT;
	memcpy(CMSG_DATA(h), &enc, sizeof(enc));
	h = CMSG_NXTHDR(&m, h);
	h->cmsg_level = SOL_ALG;
	h->cmsg_type = ALG_SET_IV;
	h->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + ivl);
	struct af_alg_iv ah = { .ivlen = (uint32_t)ivl };
	memcpy(CMSG_DATA(h), &ah, sizeof(ah));
	r = sendmsg(op, &m, 0) < 0 ? -errno : 0;
	close(op);
	close(fd);
	return r;
}

static void check_aead(offload_ctx *ctx, int dev)
{
	uint8_t iv[12] = { 0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88 };
	uint8_t aad[20], pt[1000], ct[1000], out[1000], tag[16], bad[16];
	offload_cipher_session *s;

	for (size_t i = 0; i < sizeof(pt); i++)
		pt[i] = (uint8_t)(i * 7);
	memset(aad, 0x5a, sizeof(aad));
	int r = offload_cipher_session_open_dev(ctx, dev, OFFLOAD_CIPHER_AES_GCM, key32, 16, &s);
	CHECK(r == 0, "gcm open: %s", offload_last_error(ctx));
	if (r)
		return;
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12, .aad = aad,
					.aad_len = sizeof(aad), .in = pt, .out = ct,
					.len = sizeof(pt), .tag = tag, .tag_len = 16 };
	r = offload_cipher_session_run(s, &op, sizeof(op));
	CHECK(r == 0, "gcm encrypt: %s", offload_last_error(ctx));
	/* corrupt tag, ciphertext, AAD in turn */
	for (int what = 0; r == 0 && what < 3; what++) {
		static const char *const names[] = { "tag", "ciphertext", "AAD" };
		int mark = failures;
		memcpy(bad, tag, 16);
		if (what == 0)
			bad[15] ^= 0x80;
		if (what == 1)
			ct[500] ^= 0x01;
		if (what == 2)
			aad[0] ^= 0x01;
		memset(out, 0xa5, sizeof(out));
		struct offload_cipher_op d = op;
		d.dir = OFFLOAD_DECRYPT;
		d.in = ct;
		d.out = out;
		d.tag = bad;
		int e = offload_cipher_session_run(s, &d, sizeof(d));
		CHECK(e == -EBADMSG && nonzero(out, sizeof(out)) == 0,
		      "gcm with corrupted %s: got %d (%s), %zu non-zero output bytes; want -EBADMSG, "
		      "zeroed output", names[what], e, offload_strerror(e), nonzero(out, sizeof(out)));
		if (what == 1)
			ct[500] ^= 0x01;
		if (what == 2)
			aad[0] ^= 0x01;
		/* the session still decrypts genuine input afterwards */
		d.tag = tag;
		e = offload_cipher_session_run(s, &d, sizeof(d));
		CHECK(e == 0 && memcmp(out, pt, sizeof(pt)) == 0,
		      "gcm after a rejected %s: genuine decrypt gives %d", names[what], e);
		OK_SINCE(mark, "ok   gcm corrupted %s -> -EBADMSG, session still usable\n", names[what]);
	}
	/* AAD only (GMAC) with a wrong tag */
	struct offload_cipher_op g = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12, .aad = aad,
				       .aad_len = sizeof(aad), .tag = tag, .tag_len = 16 };
	r = offload_cipher_session_run(s, &g, sizeof(g));
	CHECK(r == 0, "gmac encrypt: %d", r);
	tag[0] ^= 1;
	g.dir = OFFLOAD_DECRYPT;
	r = offload_cipher_session_run(s, &g, sizeof(g));
	CHECK(r == -EBADMSG, "gmac with a wrong tag: %d, want -EBADMSG", r);
	/* the AF_ALG AEAD limit: AAD + data + tag in one 64 KiB message */
	size_t big = 70000;
	uint8_t *bin = calloc(1, big), *bout = malloc(big);
	if (bin && bout) {
		struct offload_cipher_op l = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 12,
					       .in = bin, .out = bout, .tag = tag, .tag_len = 16 };
		l.len = 65536 - 16;
		r = offload_cipher_session_run(s, &l, sizeof(l));
		CHECK(r == 0, "gcm of %zu bytes (at the limit): %d %s", l.len, r,
		      offload_last_error(ctx));
		l.len = big;
		r = offload_cipher_session_run(s, &l, sizeof(l));
		CHECK(r == -E2BIG, "gcm of %zu bytes on af_alg: %d, want -E2BIG", l.len, r);
	}
	free(bin);
	free(bout);
	/* IVs other than 96 bits: the gcm(aes) AEAD's ivsize is 12 (crypto/gcm.c) and
	 * af_alg_sendmsg refuses any other ALG_SET_IV length, so the backend says -ENOTSUP */
	for (size_t ivl = 1; ivl <= 16; ivl += 15) {
		uint8_t liv[16] = { 0 };
		struct offload_cipher_op v = { .dir = OFFLOAD_ENCRYPT, .iv = liv, .iv_len = ivl,
					       .in = pt, .out = out, .len = 64, .tag = tag,
					       .tag_len = 16 };
		int mark = failures;
		r = offload_cipher_session_run(s, &v, sizeof(v));
		CHECK(r == -ENOTSUP && strstr(offload_last_error(ctx), "12-byte"),
		      "gcm with a %zu-byte IV on af_alg: %d (%s), want -ENOTSUP", ivl, r,
		      offload_last_error(ctx));
		int k = raw_aead_iv(ivl);
		CHECK(k == -EINVAL, "raw AF_ALG gcm(aes) with a %zu-byte ALG_SET_IV: %d, want -EINVAL",
		      ivl, k);
		OK_SINCE(mark, "ok   gcm with a %zu-byte IV -> -ENOTSUP (the kernel takes 12 only)\n",
			 ivl);
	}
	offload_cipher_session_close(s);
}

/* ------------------------------------------------------------ 4. missing */

/* A raw AF_ALG bind, independent of libkcapi and the library. */
static int raw_bind(const char *type, const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -errno;
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static void check_missing(offload_ctx *ctx, int dev, const char *missing)
{
	for (size_t i = 0; i < NALGS; i++) {
		struct alg *a = &algs[i];
		if (!test_word_in_list(missing, a->cra))
			continue;
		const char *name = alg_name(a);
		int mark = failures;
		int rb = raw_bind(a->hash ? "hash" : "skcipher", a->cra);
		CHECK(rb == -ENOENT, "%s: raw AF_ALG bind gives %d, want -ENOENT (missing in kernel)",
		      a->cra, rb);
		struct pc_snap s;
		if (snap_take(&s) == 0) {
			CHECK(!snap_has_name(&s, a->cra), "%s is in /proc/crypto", a->cra);
			snap_free(&s);
		}
		struct sess ss;
		int r = sess_open(ctx, dev, a, &ss);
		const char *msg = offload_last_error(ctx);
		CHECK(r == -ENOTSUP && strstr(msg, a->cra),
		      "%s missing in the kernel: af_alg open gives %d (%s), want -ENOTSUP and a "
		      "message naming %s", name, r, msg, a->cra);
		OK_SINCE(mark, "ok   %s missing: af_alg says \"%s\"\n", name, msg);
		if (r == 0)
			sess_close(&ss);
		/* the CPU still serves it: FIPS 81 Appendix B for DES-ECB */
		if (a->id == OFFLOAD_CIPHER_DES_ECB && !a->hash) {
			static const uint8_t k[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
			static const uint8_t p[8] = "Now is t";
			static const uint8_t want[8] = { 0x3f, 0xa4, 0x0e, 0x8a, 0x98, 0x4d, 0x48, 0x15 };
			uint8_t o[8];
			offload_cipher_session *c;
			struct offload_result res = { 0 };
			mark = failures;
			r = offload_cipher_session_open(ctx, OFFLOAD_CIPHER_DES_ECB, k, 8, &c);
			CHECK(r == 0, "DES-ECB automatic open: %s", offload_last_error(ctx));
			if (r == 0) {
				struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .in = p,
								.out = o, .len = 8, .result = &res };
				r = offload_cipher_session_run(c, &op, sizeof(op));
				CHECK(r == 0 && memcmp(o, want, 8) == 0 && res.backend &&
				      strcmp(res.backend, "cpu") == 0,
				      "DES-ECB with ecb(des) missing: %d on %s, want FIPS 81's answer "
				      "from the cpu backend", r, res.backend ? res.backend : "?");
				OK_SINCE(mark, "ok   DES-ECB served by %s (%s) instead\n", res.backend, res.driver);
				offload_cipher_session_close(c);
			}
		}
	}
}

/* ------------------------------------------------------------ 5. offloadctl list */

static void check_list(const char *missing)
{
	const char *prog = getenv("OFFLOAD_TEST_OFFLOADCTL");
	char cmd[512], line[512];
	bool dev = false, usable = false;
	bool seen[NALGS] = { false };

	snprintf(cmd, sizeof(cmd), "%s --dtb none list 2>&1", prog && *prog ? prog : "offloadctl");
	FILE *f = popen(cmd, "r");
	CHECK(f != NULL, "cannot run %s", cmd);
	if (!f)
		return;
	printf("--- %s\n", cmd);
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		char alg[64], drv[160];
		if (strstr(line, "] af_alg (af_alg)"))
			dev = true;
		if (dev && strstr(line, "usable:     yes"))
			usable = true;
		if (!dev || sscanf(line, " %63s %159s", alg, drv) != 2)
			continue;
		for (size_t i = 0; i < NALGS; i++) {
			if (strcmp(alg, alg_name(&algs[i])) != 0 || seen[i])
				continue;
			seen[i] = true;
			if (test_word_in_list(missing, algs[i].cra))
				CHECK(strcmp(drv, "unavailable:") == 0 && strstr(line, algs[i].cra),
				      "list: %s should be unavailable naming %s: %s", alg, algs[i].cra,
				      line);
			else
				CHECK(strcmp(drv, algs[i].served) == 0,
				      "list: %s served by %s, the kernel bound %s", alg, drv,
				      algs[i].served);
		}
	}
	int st = pclose(f);
	CHECK(st == 0, "%s exited with status %d", cmd, st);
	CHECK(dev && usable, "list does not show the af_alg device as usable");
	for (size_t i = 0; i < NALGS; i++)
		CHECK(seen[i], "list has no line for %s", alg_name(&algs[i]));
}

/*
 * --late-load MODULE...: the kernel's choice changes under an open context.
 * Bind the AES modes and SHA-256 (sha256-generic: nothing loads
 * sha256-ssse3 on its own; -cpu max lets aesni-intel load through its
 * crypto aliases already), load MODULE... (the accelerated drivers), then
 * open new sessions on the same context: the backend must report the driver
 * the kernel binds now, not the one it saw first.
 */
static int late_load(offload_ctx *ctx, int dev, int argc, char **argv, const char *accel)
{
	static const char *const subset[] = { "ecb(aes)", "cbc(aes)",	  "ctr(aes)",
					      "gcm(aes)", "sha256",	  "hmac(sha256)" };
	char cmd[512] = "modprobe -a";

	for (int m = 0; m < argc; m++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", argv[m]);
	for (int pass = 0; pass < 2; pass++) {
		printf("--- %s loading the accelerated drivers\n", pass ? "after" : "before");
		for (size_t i = 0; i < NALGS; i++)
			for (size_t k = 0; k < sizeof(subset) / sizeof(subset[0]); k++)
				if (strcmp(algs[i].cra, subset[k]) == 0)
					check_served(ctx, dev, &algs[i], pass ? "accel" : "any",
						     accel);
		check_hmac_over_hash();
		for (size_t i = 0; pass == 0 && i < NALGS; i++)
			if (strcmp(algs[i].cra, "sha256") == 0)
				CHECK(strcmp(algs[i].served, "sha256-generic") == 0,
				      "sha256 before the modprobe is served by %s, not sha256-generic: "
				      "this check then proves nothing", algs[i].served);
		if (pass == 0) {
			printf("--- %s\n", cmd);
			CHECK(system(cmd) == 0, "%s failed", cmd);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ 6. offloadctl doctor */

/* Run `offloadctl doctor --dtb none` (with OFFLOAD_PROC_CRYPTO=standin if
 * given) into out; returns its exit status. */
static int run_doctor(const char *standin, char *out, size_t len)
{
	const char *prog = getenv("OFFLOAD_TEST_OFFLOADCTL");
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s%s %s doctor --dtb none 2>&1",
		 standin ? "OFFLOAD_PROC_CRYPTO=" : "", standin ? standin : "",
		 prog && *prog ? prog : "offloadctl");
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	size_t n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	printf("--- %s\n%s", cmd, out);
	return pclose(f);
}

/*
 * doctor's AF_ALG finding: the same drivers as step 1 (all software in this
 * guest), the missing algorithms as unavailable, and with the stand-in
 * /proc/crypto (safexcel drivers for cbc(aes) and sha256) those two as
 * hardware, as a board with an EIP97 would show.
 */
static void check_doctor(const char *missing, const char *standin)
{
	static char out[16384];
	char want[256];
	int avail = 0;

	for (size_t i = 0; i < NALGS; i++)
		avail += !test_word_in_list(missing, algs[i].cra);
	int st = run_doctor(NULL, out, sizeof(out));
	CHECK(st == 0, "doctor exited with status %d", st);
	CHECK(strstr(out, "[af-alg-drivers]") != NULL, "doctor has no AF_ALG finding");
	snprintf(want, sizeof(want), "AF_ALG reaches a hardware driver for 0 of %d available algorithms",
		 avail);
	CHECK(strstr(out, want) != NULL, "doctor lacks \"%s\"", want);
	for (size_t i = 0; i < NALGS; i++) {
		if (test_word_in_list(missing, algs[i].cra))
			snprintf(want, sizeof(want), "%s: unavailable", alg_name(&algs[i]));
		else
			snprintf(want, sizeof(want), "%s: %s (software)", alg_name(&algs[i]),
				 algs[i].served);
		CHECK(strstr(out, want) != NULL, "doctor's evidence lacks \"%s\"", want);
	}
	if (!standin || !*standin)
		return;
	st = run_doctor(standin, out, sizeof(out));
	CHECK(st == 0, "doctor (stand-in) exited with status %d", st);
	snprintf(want, sizeof(want), "AF_ALG reaches a hardware driver for 2 of %d available algorithms",
		 avail);
	CHECK(strstr(out, want) != NULL, "doctor (stand-in) lacks \"%s\"", want);
	CHECK(strstr(out, "AES-128-CBC: safexcel-cbc-aes (hardware)") &&
	      strstr(out, "SHA256: safexcel-sha256 (hardware)"),
	      "doctor (stand-in) does not report the stand-in's hardware drivers");
}

/*
 * --hw CRA=DRIVER: an engine behind the kernel (virtio-crypto in the x86
 * guest) serves CRA with a lower priority than a CPU driver (cbc-aes-aesni
 * 400, virtio_crypto_aes_cbc 150: drivers/crypto/virtio/
 * virtio_crypto_skcipher_algs.c), so binding by the name would give the CPU
 * driver. The backend must bind the engine's driver (check 1 in "hw" mode:
 * the refcnt of DRIVER rises, the result says HARDWARE), and automatic
 * selection must send a large request there.
 */
static void check_hw(offload_ctx *ctx, int dev, const char *spec)
{
	char cra[64] = "", drv[128] = "";
	const char *eq = strchr(spec, '=');
	struct alg *a = NULL;

	if (eq && (size_t)(eq - spec) < sizeof(cra)) {
		memcpy(cra, spec, (size_t)(eq - spec));
		snprintf(drv, sizeof(drv), "%s", eq + 1);
	}
	for (size_t i = 0; i < NALGS; i++)
		if (strcmp(algs[i].cra, cra) == 0)
			a = &algs[i];
	CHECK(a && drv[0], "--hw %s: not CRA=DRIVER of a known algorithm", spec);
	if (!a)
		return;
	struct pc_snap snap;
	snap_take(&snap);
	const struct pc_entry *top = NULL;
	for (size_t i = 0; i < snap.n; i++)
		if (strcmp(snap.e[i].name, cra) == 0 && (!top || snap.e[i].priority > top->priority))
			top = &snap.e[i];
	CHECK(top && strcmp(top->driver, drv) != 0,
	      "%s: the engine's %s is the kernel's own choice: the check proves nothing", cra, drv);
	if (top)
		printf("     %s: the kernel's choice by priority is %s (%d); the engine's is %s\n", cra,
		       top->driver, top->priority, drv);
	snap_free(&snap);
	check_served(ctx, dev, a, "hw", drv);

	/* automatic selection: a request above the threshold goes to the engine */
	uint8_t buf[4096] = { 0 }, out[4096], iv[16] = { 0 };
	struct offload_result res = { 0 };
	struct offload_cipher_op op = { .alg = (enum offload_cipher_alg)a->id, .dir = OFFLOAD_ENCRYPT,
					.key = key32, .key_len = a->key_len, .iv = iv, .iv_len = 16,
					.in = buf, .out = out, .len = sizeof(buf), .result = &res };
	int r = offload_cipher(ctx, &op, sizeof(op));
	CHECK(r == 0 && res.backend && strcmp(res.backend, "kcapi") == 0 && res.driver &&
		      strcmp(res.driver, drv) == 0 && (res.flags & OFFLOAD_RES_HARDWARE),
	      "automatic %s of 4096 bytes: %d, ran on %s/%s, want kcapi/%s", cra, r,
	      res.backend ? res.backend : "(none)", res.driver ? res.driver : "(none)", drv);
	if (r == 0)
		printf("ok   automatic selection: %s of 4096 bytes -> %s/%s\n", cra, res.backend,
		       res.driver);
}

int main(int argc, char **argv)
{
	const char *mode = getenv("OFFLOAD_TEST_DRIVERS");
	const char *accel = getenv("OFFLOAD_TEST_ACCEL_MODULES");
	const char *missing = getenv("OFFLOAD_TEST_MISSING");
	struct offload_ctx_opts o;
	const char *why = "";

	mode = mode && *mode ? mode : "generic";
	missing = missing ? missing : "";
	accel = accel ? accel : "";
	offload_ctx *ctx = offload_ctx_new();
	if (!ctx)
		return 1;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.backends = ""; /* every backend: the CPU must serve what the kernel lacks */
	if (offload_ctx_open(ctx, &o) < 0 || offload_backend_status(ctx, "kcapi", &why) != 1) {
		printf("SKIP: the kcapi backend is absent: %s\n", why[0] ? why : offload_last_error(ctx));
		offload_ctx_free(ctx);
		return SKIP;
	}
	int dev = offload_dev_find(ctx, "af_alg");
	CHECK(dev >= 0, "no af_alg device");
	if (dev >= 0 && argc > 2 && strcmp(argv[1], "--hw") == 0) {
		check_hw(ctx, dev, argv[2]);
	} else if (dev >= 0 && argc > 1 && strcmp(argv[1], "--late-load") == 0) {
		late_load(ctx, dev, argc - 2, argv + 2, accel);
	} else if (dev >= 0) {
		printf("--- 1. the driver the kernel bound vs the driver reported (%s drivers)\n", mode);
		for (size_t i = 0; i < NALGS; i++)
			if (!test_word_in_list(missing, algs[i].cra))
				check_served(ctx, dev, &algs[i], mode, accel);
		check_hmac_over_hash();
		printf("--- 2. 64 KiB pieces vs one continuous pass\n");
		check_chunking(ctx, dev);
		printf("--- 3. AEAD authentication failures\n");
		check_aead(ctx, dev);
		printf("--- 4. algorithms missing in the kernel: %s\n", missing[0] ? missing : "none");
		check_missing(ctx, dev, missing);
		printf("--- 5. offloadctl list\n");
		check_list(missing);
		printf("--- 6. offloadctl doctor\n");
		check_doctor(missing, getenv("OFFLOAD_TEST_PROC_STANDIN"));
	}
	offload_ctx_free(ctx);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
