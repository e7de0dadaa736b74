/* SPDX-License-Identifier: MIT */
/*
 * offloadctl bench cipher: throughput of ciphers and hashes per size, in
 * tcrypt's line shape, for one configuration or two interleaved (A/B).
 *
 * A configuration is "context options + device": which backends the
 * context may use (allow-list), its device tree source and flags (sim,
 * non-coherent emulation), and the device operations go to (a name, or
 * auto). Two configurations run alternately, size by size and round by
 * round, so drift of the machine hits both alike; the per-size change is
 * reported with a noise estimate from the spread of the rounds, and a change
 * inside the noise is marked as such.
 *
 * The pseudo-configuration "evp" calls OpenSSL EVP directly in this
 * process (keyed once, IV reset per operation), the yardstick for the CPU
 * backend's session overhead.
 *
 * Every run verifies its data: a cipher's output is decrypted back (and
 * compared between the two configurations), a digest is compared with one
 * computed independently.
 *
 * What the device's cache policy costs is reported beside the speed: per
 * request, the cache-maintenance calls, the bytes they covered and the time
 * spent in them, from offload_dev_get_stats() around the timed runs. When an
 * EIP97 ran, the Armada 3720 coherent-vs-non-coherent gains of the upstream
 * patch ("arm64: dts: marvell: armada-37xx: mark EIP97 as dma-coherent") are printed as a hardware reference, labelled as
 * such: they were not measured here.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#ifdef OFFLOAD_HAVE_OPENSSL
#include <openssl/evp.h>
#include <openssl/provider.h>
#endif

#include "cli.h"

#define MAXSIZES 32
#define MAXROUNDS 64
/* Defaults: 5 rounds of 0.2 s per size, ~10 s for the default sizes (20 s for A/B). */
#define DEFAULT_ROUNDS 5
#define DEFAULT_TIME_S 0.2

struct alg {
	const char *name;
	bool hash;
	int alg;         /* offload_cipher_alg or offload_hash_alg */
	size_t key_len;
	size_t iv_len;
	size_t block;
	const char *evp; /* OpenSSL name */
};

static const struct alg algs[] = {
	{ "aes-128-ecb", false, OFFLOAD_CIPHER_AES_ECB, 16, 0, 16, "AES-128-ECB" },
	{ "aes-256-ecb", false, OFFLOAD_CIPHER_AES_ECB, 32, 0, 16, "AES-256-ECB" },
	{ "aes-128-cbc", false, OFFLOAD_CIPHER_AES_CBC, 16, 16, 16, "AES-128-CBC" },
	{ "aes-192-cbc", false, OFFLOAD_CIPHER_AES_CBC, 24, 16, 16, "AES-192-CBC" },
	{ "aes-256-cbc", false, OFFLOAD_CIPHER_AES_CBC, 32, 16, 16, "AES-256-CBC" },
	{ "aes-128-ctr", false, OFFLOAD_CIPHER_AES_CTR, 16, 16, 1, "AES-128-CTR" },
	{ "aes-128-gcm", false, OFFLOAD_CIPHER_AES_GCM, 16, 12, 1, "AES-128-GCM" },
	{ "aes-256-gcm", false, OFFLOAD_CIPHER_AES_GCM, 32, 12, 1, "AES-256-GCM" },
	{ "des-ecb", false, OFFLOAD_CIPHER_DES_ECB, 8, 0, 8, "DES-ECB" },
	{ "des-ede3-cbc", false, OFFLOAD_CIPHER_DES3_CBC, 24, 8, 8, "DES-EDE3-CBC" },
	{ "md5", true, OFFLOAD_HASH_MD5, 0, 0, 1, "MD5" },
	{ "sha1", true, OFFLOAD_HASH_SHA1, 0, 0, 1, "SHA1" },
	{ "sha256", true, OFFLOAD_HASH_SHA256, 0, 0, 1, "SHA256" },
	{ "sha512", true, OFFLOAD_HASH_SHA512, 0, 0, 1, "SHA512" },
	{ "hmac-sha256", true, OFFLOAD_HASH_HMAC_SHA256, 32, 0, 1, "SHA256" },
};

/* ------------------------------------------------------------ configurations */

struct config {
	char spec[128];
	char label[48];
	bool evp;               /* raw OpenSSL EVP, not the library */
	char backends[256];     /* allow-list, "" = all */
	char device[64];        /* "" = auto */
	char dtb[128];          /* "" = none */
	bool sim, noncoherent;
	bool common;            /* no SPEC: opened from the common options and environment */
	offload_ctx *ctx;
	int dev;
	/* per-run state */
	offload_cipher_session *cs;
	offload_hash_session *hs;
	char driver[96];
	char backend[16];
	int run_dev;            /* the device that ran (from the result), -1 unknown */
	char run_name[64];      /* its name ("cpu", "crypto@90000"), "" for evp */
	bool run_sim;
#ifdef OFFLOAD_HAVE_OPENSSL
	EVP_CIPHER_CTX *ex[2]; /* [0] decrypt, [1] encrypt: AES keys differ per direction */
	EVP_CIPHER *ec;
	EVP_MD_CTX *mx;
	EVP_MD *md;
	EVP_MAC_CTX *mac;
#endif
};

/*
 * SPEC: "evp", a backend name ("cpu", "kcapi": allow-list and its device),
 * or key=value pairs joined by ':' — backends=LIST (commas allowed),
 * device=NAME, dtb=FILE|builtin, sim=1, noncoherent=1, label=TEXT.
 */
/* "0" or "1" for a flag. */
static bool flag_value(const char *v, bool *out)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return false;
	*out = v[0] == '1';
	return true;
}

/* A value that fits dst whole (nothing is silently cut). */
static bool text_value(char *dst, size_t size, const char *v)
{
	return (size_t)snprintf(dst, size, "%s", v) < size;
}

/*
 * Returns 0, or -EINVAL for a malformed SPEC (a usage error). The common
 * options (cli: --dtb, --sim, --backends; NULL for none) are the starting
 * point, and the SPEC's keys override them.
 */
static int config_parse(struct config *c, const char *spec, const struct cli *cli)
{
	memset(c, 0, sizeof(*c));
	if (!spec[0] || !text_value(c->spec, sizeof(c->spec), spec))
		return -EINVAL;
	if (cli) {
		if ((cli->dtb && !text_value(c->dtb, sizeof(c->dtb), cli->dtb)) ||
		    (cli->backends && !text_value(c->backends, sizeof(c->backends), cli->backends)))
			return -EINVAL;
		c->sim = cli->sim;
	}
	snprintf(c->label, sizeof(c->label), "%.47s", spec);
	if (strcmp(spec, "evp") == 0) {
		c->evp = true;
		return 0;
	}
	if (!strchr(spec, '=')) {
		if (!text_value(c->backends, sizeof(c->backends), spec))
			return -EINVAL;
		snprintf(c->device, sizeof(c->device), "%s", strcmp(spec, "kcapi") == 0 ? "af_alg" : spec);
		return 0;
	}
	char tmp[128];
	snprintf(tmp, sizeof(tmp), "%s", spec);
	for (char *save = NULL, *kv = strtok_r(tmp, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
		char *v = strchr(kv, '=');
		if (!v)
			return -EINVAL;
		*v++ = '\0';
		bool ok;
		if (strcmp(kv, "backends") == 0)
			ok = text_value(c->backends, sizeof(c->backends), v);
		else if (strcmp(kv, "device") == 0)
			ok = v[0] && text_value(c->device, sizeof(c->device), v);
		else if (strcmp(kv, "dtb") == 0)
			ok = v[0] && text_value(c->dtb, sizeof(c->dtb), v);
		else if (strcmp(kv, "sim") == 0)
			ok = flag_value(v, &c->sim);
		else if (strcmp(kv, "noncoherent") == 0)
			ok = flag_value(v, &c->noncoherent);
		else if (strcmp(kv, "label") == 0)
			ok = v[0] && text_value(c->label, sizeof(c->label), v);
		else
			ok = false;
		if (!ok)
			return -EINVAL;
	}
	return 0;
}

static int config_open(struct cli *cli, struct config *c)
{
	struct offload_ctx_opts o;

	c->dev = OFFLOAD_DEV_AUTO;
	if (c->evp)
		return 0;
	if (c->common) {
		/* no SPEC: the context every other command opens */
		c->ctx = cli_open_ctx(cli);
		return c->ctx ? 0 : -EINVAL;
	}
	offload_ctx_opts_init(&o);
	o.flags = OFFLOAD_CTX_NO_ENV | (c->sim ? OFFLOAD_CTX_SIM : 0) |
		  (c->noncoherent ? OFFLOAD_CTX_SIM_NONCOHERENT : 0);
	o.backends = c->backends;
	o.dt_source = OFFLOAD_DT_NONE;
	if (strcmp(c->dtb, "builtin") == 0)
		o.dt_source = OFFLOAD_DT_BUILTIN;
	else if (strcmp(c->dtb, "live") == 0)
		o.dt_source = OFFLOAD_DT_LIVE;
	else if (c->dtb[0] && strcmp(c->dtb, "none") != 0) {
		o.dt_source = OFFLOAD_DT_FILE;
		o.dtb_path = c->dtb;
	}
	c->ctx = offload_ctx_new();
	if (!c->ctx)
		return -ENOMEM;
	int r = offload_ctx_open(c->ctx, &o);
	if (r == 0 && c->device[0]) {
		r = cli_dev_find(c->ctx, c->device);
		if (r >= 0) {
			c->dev = r;
			r = 0;
		}
	}
	if (r < 0) {
		const char *msg = offload_last_error(c->ctx);
		fprintf(stderr, "%s bench cipher: configuration \"%s\": %s\n", cli->prog, c->spec,
			msg[0] ? msg : offload_strerror(r));
		offload_ctx_free(c->ctx);
		c->ctx = NULL;
	}
	return r;
}

/* ------------------------------------------------------------ one run */

static uint8_t key[32], iv[16], tag[16];

/* "enc", "dec", or "digest" for a hash (which has no direction). */
static const char *dir_name(const struct alg *a, bool enc)
{
	return a->hash ? "digest" : enc ? "enc" : "dec";
}

static void run_close(struct config *c)
{
	if (c->cs)
		offload_cipher_session_close(c->cs);
	if (c->hs)
		offload_hash_close(c->hs);
	c->cs = NULL;
	c->hs = NULL;
#ifdef OFFLOAD_HAVE_OPENSSL
	EVP_CIPHER_CTX_free(c->ex[0]);
	EVP_CIPHER_CTX_free(c->ex[1]);
	EVP_CIPHER_free(c->ec);
	EVP_MD_CTX_free(c->mx);
	EVP_MD_free(c->md);
	EVP_MAC_CTX_free(c->mac);
	c->ex[0] = c->ex[1] = NULL;
	c->ec = NULL;
	c->mx = NULL;
	c->md = NULL;
	c->mac = NULL;
#endif
}

static int run_open(struct config *c, const struct alg *a, bool enc)
{
	snprintf(c->driver, sizeof(c->driver), "?");
	snprintf(c->backend, sizeof(c->backend), "%s", c->evp ? "evp" : "?");
	snprintf(c->run_name, sizeof(c->run_name), "%s", c->evp ? "cpu" : "?");
	if (c->evp) {
#ifdef OFFLOAD_HAVE_OPENSSL
		snprintf(c->driver, sizeof(c->driver), "raw EVP %s", a->evp);
		if (a->hash && a->key_len) {
			EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
			OSSL_PARAM p[2] = { OSSL_PARAM_construct_utf8_string("digest", (char *)a->evp, 0),
					    OSSL_PARAM_construct_end() };
			c->mac = m ? EVP_MAC_CTX_new(m) : NULL;
			EVP_MAC_free(m);
			return c->mac && EVP_MAC_init(c->mac, key, a->key_len, p) ? 0 : -ENOTSUP;
		}
		if (a->hash) {
			c->md = EVP_MD_fetch(NULL, a->evp, NULL);
			c->mx = EVP_MD_CTX_new();
			return c->md && c->mx ? 0 : -ENOTSUP;
		}
		static OSSL_PROVIDER *prov[2]; /* DES is in the legacy provider (OpenSSL 3) */
		if (!prov[0]) {
			prov[0] = OSSL_PROVIDER_load(NULL, "default");
			prov[1] = OSSL_PROVIDER_load(NULL, "legacy");
		}
		c->ec = EVP_CIPHER_fetch(NULL, a->evp, NULL);
		for (int d = 0; d < 2; d++) {
			c->ex[d] = EVP_CIPHER_CTX_new();
			if (!c->ec || !c->ex[d] || !EVP_CipherInit_ex2(c->ex[d], c->ec, key, NULL, d, NULL))
				return -ENOTSUP;
			EVP_CIPHER_CTX_set_padding(c->ex[d], 0);
		}
		(void)enc;
		return 0;
#else
		return -ENOTSUP;
#endif
	}
	if (a->hash)
		return offload_hash_open_dev(c->ctx, c->dev, (enum offload_hash_alg)a->alg,
					     a->key_len ? key : NULL, a->key_len, &c->hs);
	return offload_cipher_session_open_dev(c->ctx, c->dev, (enum offload_cipher_alg)a->alg, key,
					       a->key_len, &c->cs);
}

/* One operation on n bytes; 0 or -errno. */
static int run_op(struct config *c, const struct alg *a, bool enc, const uint8_t *in, uint8_t *out,
		  size_t n, struct offload_result *res)
{
	if (c->evp) {
#ifdef OFFLOAD_HAVE_OPENSSL
		int l;
		if (c->mac) {
			size_t dl;
			return EVP_MAC_init(c->mac, NULL, 0, NULL) && EVP_MAC_update(c->mac, in, n) &&
					       EVP_MAC_final(c->mac, out, &dl, 64)
				       ? 0
				       : -EIO;
		}
		if (c->mx)
			return EVP_DigestInit_ex(c->mx, c->md, NULL) && EVP_DigestUpdate(c->mx, in, n) &&
					       EVP_DigestFinal_ex(c->mx, out, NULL)
				       ? 0
				       : -EIO;
		bool gcm = a->alg == OFFLOAD_CIPHER_AES_GCM;
		EVP_CIPHER_CTX *x = c->ex[enc];
		if (!EVP_CipherInit_ex(x, NULL, NULL, NULL, a->iv_len ? iv : NULL, enc))
			return -EIO;
		if (gcm && !enc && !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag))
			return -EIO;
		/* n <= 64 MiB (parse_sizes): the int length is exact */
		if (!EVP_CipherUpdate(x, out, &l, in, (int)n) || !EVP_CipherFinal_ex(x, out + l, &l))
			return gcm && !enc ? -EBADMSG : -EIO;
		if (gcm && enc && !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag))
			return -EIO;
		return 0;
#endif
	}
	if (a->hash) {
		int r = offload_hash_update(c->hs, in, n);
		if (r == 0)
			r = offload_hash_final(c->hs, out, 64, res);
		return r < 0 ? r : 0;
	}
	struct offload_cipher_op op = {
		.dir = enc ? OFFLOAD_ENCRYPT : OFFLOAD_DECRYPT, .iv = a->iv_len ? iv : NULL,
		.iv_len = a->iv_len, .in = in, .out = out, .len = n,
		.tag = a->alg == OFFLOAD_CIPHER_AES_GCM ? tag : NULL,
		.tag_len = a->alg == OFFLOAD_CIPHER_AES_GCM ? 16 : 0, .result = res,
	};
	return offload_cipher_session_run(c->cs, &op, sizeof(op));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run for about `secs`; returns ops/s (and the count in *nops), or < 0 on error. */
static double timed(struct config *c, const struct alg *a, bool enc, const uint8_t *in,
		    uint8_t *out, size_t n, double secs, uint64_t *nops)
{
	uint64_t ops = 0, batch = 16;
	double t0 = now_s(), t;

	do {
		for (uint64_t i = 0; i < batch; i++)
			if (run_op(c, a, enc, in, out, n, NULL) < 0)
				return -1;
		ops += batch;
		t = now_s() - t0;
		if (t < secs / 8)
			batch *= 2;
	} while (t < secs);
	*nops = ops;
	return (double)ops / t;
}

/*
 * Check the data: the output for `in` must decrypt back (ciphers) and equal
 * the reference output `ref` when given (the other configuration's). For
 * hashes `out` is the digest. Fills *res with who ran it.
 */
static int verify(struct config *c, const struct alg *a, bool enc, const uint8_t *in, uint8_t *out,
		  uint8_t *back, size_t n, const uint8_t *ref, struct offload_result *res)
{
	memset(res, 0, sizeof(*res));
	if (run_op(c, a, enc, in, out, n, res) < 0)
		return -1;
	if (!c->evp) {
		struct offload_dev_info info;
		snprintf(c->driver, sizeof(c->driver), "%s", res->driver ? res->driver : "?");
		snprintf(c->backend, sizeof(c->backend), "%s", res->backend ? res->backend : "?");
		c->run_dev = res->dev;
		bool known = offload_dev_get_info(c->ctx, res->dev, &info, sizeof(info)) == 0;
		c->run_sim = known && (info.flags & OFFLOAD_DEVF_SIM);
		snprintf(c->run_name, sizeof(c->run_name), "%s", known && info.name ? info.name : "?");
	}
	size_t cmp = a->hash ? (size_t)offload_hash_digest_size((enum offload_hash_alg)a->alg) : n;
	if (ref && memcmp(out, ref, cmp) != 0)
		return -2;
	if (!a->hash && run_op(c, a, !enc, out, back, n, NULL) < 0)
		return -1;
	if (!a->hash && memcmp(back, in, n) != 0)
		return -3;
	return 0;
}

/* ------------------------------------------------------------ cache maintenance */

/* Per-request cache maintenance of one configuration at one size, summed over the rounds. */
struct cstat {
	double clean, inval, bytes, ns, ops;
};

static void stats_read(struct config *c, struct offload_dev_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!c->evp && c->run_dev >= 0)
		offload_dev_get_stats(c->ctx, c->run_dev, s, sizeof(*s));
}

static void stats_add(struct cstat *cs, const struct offload_dev_stats *a,
		      const struct offload_dev_stats *b, uint64_t ops)
{
	cs->clean += (double)(b->cache_clean_calls - a->cache_clean_calls);
	cs->inval += (double)(b->cache_inval_calls - a->cache_inval_calls);
	cs->bytes += (double)(b->cache_bytes - a->cache_bytes);
	cs->ns += (double)(b->cache_ns - a->cache_ns);
	cs->ops += (double)ops;
}

static double per_op(double v, const struct cstat *cs)
{
	return cs->ops > 0 ? v / cs->ops : 0;
}

static const char *cache_time_label(const struct config *c)
{
	return c->run_sim ? "sim: this CPU's cache instructions on the same lines plus the model's "
			    "copies between its CPU and RAM views"
			  : "this machine";
}

/*
 * docs/policy.md §7: "arm64: dts: marvell: armada-37xx: mark EIP97 as dma-coherent"
 * (A. J. Bajkowski, 2026-05-24): throughput with dma-coherent vs without on
 * an Armada 3720. Ranges over 16..4096-byte requests; the GCM rows are the
 * patch's "MB" column (most likely tcrypt num_mb, concurrent requests [U]).
 */
static const struct {
	const char *alg, *gain;
} a3720_ref[] = {
	{ "des-ecb", "+3..21 %" },
	{ "aes-128-ecb", "+6..22 %" },
	{ "aes-128-cbc", "+5..23 %" },
	{ "aes-256-cbc", "+6..23 %" },
	{ "aes-128-gcm", "+27..44 % (num_mb 1), +41..326 % (num_mb 8; +319 % at 16 B, +326 % at "
			 "64 B), +28..128 % (num_mb 4096)" },
	{ "md5", "+15..50 %" },
	{ "sha1", "+18..27 %" },
	{ "sha256", "+19..41 %" },
	{ "sha512", "+3..24 %" },
};

static void print_a3720_reference(bool json)
{
	if (json) {
		printf(",\n  \"hardware_reference\": {\"label\": \"hardware reference (Armada 3720, upstream "
		       "patch, not measured by us)\", \"source\": \"docs/policy.md §7: arm64: dts: marvell: "
		       "armada-37xx: mark EIP97 as dma-coherent (A. J. Bajkowski, LKML 2026-05-24)\", "
		       "\"gain_coherent_vs_"
		       "noncoherent\": {");
		for (size_t i = 0; i < sizeof(a3720_ref) / sizeof(a3720_ref[0]); i++)
			printf("%s\"%s\": \"%s\"", i ? ", " : "", a3720_ref[i].alg, a3720_ref[i].gain);
		printf("}}");
		return;
	}
	printf("\nhardware reference (Armada 3720, upstream patch, not measured by us):\n"
	       "  throughput with dma-coherent vs without, 16..4096 B requests, from \"arm64: dts: "
	       "marvell:\n  armada-37xx: mark EIP97 as dma-coherent\" (A. J. Bajkowski, LKML 2026-05-24; "
	       "docs/policy.md §7);\n  tool not named, likely tcrypt; num_mb: the patch's \"MB\" "
	       "column, most likely\n  tcrypt's num_mb (requests in flight), not megabytes\n");
	for (size_t i = 0; i < sizeof(a3720_ref) / sizeof(a3720_ref[0]); i++)
		printf("  %-14s %s\n", a3720_ref[i].alg, a3720_ref[i].gain);
}

/* ------------------------------------------------------------ statistics */

static double median(double *v, int n)
{
	double t[MAXROUNDS];
	memcpy(t, v, sizeof(double) * (size_t)n);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
			double x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Relative standard deviation in percent. */
static double rsd(const double *v, int n)
{
	double m = 0, s = 0;
	for (int i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n > 1 && m > 0 ? 100.0 * sqrt(s / (n - 1)) / m : 0;
}

/* ------------------------------------------------------------ command */

/* "16,64,1420": 1..MAXSIZES sizes of 1 B .. 64 MiB; -1 if malformed (an empty item too). */
static int parse_sizes(const char *s, size_t *sizes)
{
	int n = 0;

	for (const char *p = s;; p++) {
		char *end;
		if (*p < '0' || *p > '9' || n == MAXSIZES)
			return -1;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (errno || v == 0 || v > (64ul << 20) || (*end && *end != ','))
			return -1;
		sizes[n++] = v;
		if (!*end)
			return n;
		p = end;
	}
}

/* "1".."MAXROUNDS"; 0 if malformed. */
static int parse_rounds(const char *s)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end || v < 1 || v > MAXROUNDS ? 0 : (int)v;
}

static const struct alg *alg_by_name(const char *n)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcasecmp(n, algs[i].name) == 0)
			return &algs[i];
	return NULL;
}

static void usage(const struct cli *cli, FILE *f)
{
	fprintf(f,
		"usage: %s bench cipher [-a ALG[,ALG..]] [--dec] [--sizes LIST] [--time SECONDS] "
		"[--rounds N]\n"
		"       [--config SPEC | --ab SPEC_A,SPEC_B | --a SPEC_A --b SPEC_B] [--json|--csv]\n\n"
		"Throughput per size, one tcrypt-style line per size (ops/s, MB/s, backend and\n"
		"driver). With two configurations they run interleaved, --rounds times, and a\n"
		"table gives the change B vs A per size: the median of the per-round changes,\n"
		"with a noise estimate of 2 sd/sqrt(rounds) of those changes (one round alone:\n"
		"no estimate); a change inside the noise is marked '~'.\n\n"
		"  -a ALG         ",
		cli->prog);
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		fprintf(f, "%s%s", algs[i].name, i + 1 < sizeof(algs) / sizeof(algs[0]) ? "," : "\n");
	fprintf(f,
		"                 (default aes-128-cbc)\n"
		"  --dec          decrypt instead of encrypt\n"
		"  --sizes LIST   bytes (default 16,64,128,256,1024,1420,1424,2048,4096,8192);\n"
		"                 a size that is not a whole number of the mode's blocks is\n"
		"                 rounded down, and the line says so (1420 -> 1408 for CBC)\n"
		"  --time SECONDS time per size per round, fractions allowed, or milliseconds\n"
		"                 with 'ms' (default 0.2 = 200ms)\n"
		"  --rounds N     rounds, 1..%d (default 5): the median is reported with the\n"
		"                 spread of the rounds (one round: no noise estimate)\n"
		"  --config SPEC  one configuration (default: the context the common options\n"
		"                 and the environment give, as for every command)\n"
		"SPEC: evp (OpenSSL EVP called directly), a backend name (cpu, kcapi), or\n"
		"      key=value pairs joined by ':': backends=LIST, device=NAME,\n"
		"      dtb=FILE|builtin|live|none, sim=0|1, noncoherent=0|1, label=TEXT.\n"
		"      A SPEC starts from the common --dtb, --sim and --backends (dtb none if\n"
		"      not given) and its keys override them; OFFLOAD_DTB, OFFLOAD_SIM and\n"
		"      OFFLOAD_BACKENDS are not read for a SPEC, so an A/B run is reproducible\n"
		"\noptions:\n" CLI_COMMON_HELP,
		MAXROUNDS);
}

int cmd_bench_cipher(struct cli *cli, int argc, char **argv)
{
	enum { O_SIZES = 0x2000, O_TIME, O_ROUNDS, O_CONFIG, O_AB, O_A, O_B, O_DEC };
	static const struct option longopts[] = {
		{ "alg", required_argument, NULL, 'a' },     { "sizes", required_argument, NULL, O_SIZES },
		{ "time", required_argument, NULL, O_TIME },  { "rounds", required_argument, NULL, O_ROUNDS },
		{ "config", required_argument, NULL, O_CONFIG }, { "ab", required_argument, NULL, O_AB },
		{ "a", required_argument, NULL, O_A },       { "b", required_argument, NULL, O_B },
		{ "dec", no_argument, NULL, O_DEC },         CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	size_t sizes[MAXSIZES] = { 16, 64, 128, 256, 1024, 1420, 1424, 2048, 4096, 8192 };
	int nsizes = 10, rounds = DEFAULT_ROUNDS, c;
	double secs = DEFAULT_TIME_S;
	const char *alist = "aes-128-cbc", *spec[2] = { NULL, NULL };
	bool enc = true;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': alist = optarg; break;
		case O_SIZES:
			nsizes = parse_sizes(optarg, sizes);
			if (nsizes <= 0)
				return cli_usage_error(cli, "--sizes \"%s\": expected up to %d sizes in bytes, "
							    "1..67108864, separated by commas",
						       optarg, MAXSIZES);
			break;
		case O_TIME:
			if (!cli_parse_seconds(optarg, 3600, &secs))
				return cli_usage_error(cli, "--time \"%s\": expected seconds (0.2) or "
							    "milliseconds (200ms), at most 3600 s",
						       optarg);
			break;
		case O_ROUNDS:
			rounds = parse_rounds(optarg);
			if (!rounds)
				return cli_usage_error(cli, "--rounds \"%s\": expected 1..%d", optarg,
						       MAXROUNDS);
			break;
		case O_CONFIG:
		case O_A: spec[0] = optarg; break;
		case O_B: spec[1] = optarg; break;
		case O_AB: {
			static char ab[256];
			snprintf(ab, sizeof(ab), "%s", optarg);
			char *comma = strchr(ab, ',');
			if (!comma || comma == ab || !comma[1])
				return cli_usage_error(cli, "--ab \"%s\": expected SPEC_A,SPEC_B", optarg);
			*comma = '\0';
			spec[0] = ab;
			spec[1] = comma + 1;
			break;
		}
		case O_DEC: enc = false; break;
		case 'h': usage(cli, stdout); return CLI_EXIT_OK;
		default:
			if (!cli_common_opt(cli, c, optarg))
				return CLI_EXIT_USAGE;
		}
	}
	if (!cli_operands_ok(cli, argc, argv, 0, CLI_FMT_JSON | CLI_FMT_CSV))
		return CLI_EXIT_USAGE;
	if (spec[1] && !spec[0])
		return cli_usage_error(cli, "--b needs --a");
	/* every algorithm name first: a typo is a usage error before anything runs */
	{
		char tmp[256];
		if (!alist[0] || !text_value(tmp, sizeof(tmp), alist))
			return cli_usage_error(cli, "-a \"%s\": expected a list of algorithms", alist);
		for (const char *p = alist;; p++) {
			size_t n = strcspn(p, ",");
			snprintf(tmp, sizeof(tmp), "%.*s", (int)n, p);
			if (!alg_by_name(tmp))
				return cli_usage_error(cli, "-a: unknown algorithm \"%s\"", tmp);
			if (!p[n])
				break;
			p += n;
		}
	}
	int ncfg = spec[1] ? 2 : 1;
	struct config cfg[2];
	for (int k = 0; k < ncfg; k++) {
		const char *sp = spec[k] ? spec[k] : "label=auto";
		if (config_parse(&cfg[k], sp, cli) < 0 ||
		    (cfg[k].backends[0] && !cli_backends_ok(cli, "configuration", cfg[k].backends))) {
			for (int j = 0; j < k; j++)
				offload_ctx_free(cfg[j].ctx);
			return cli_usage_error(cli, "bad configuration \"%s\" (SPEC: evp, cpu, kcapi, or "
						    "key=value pairs joined by ':')",
					       sp);
		}
		cfg[k].common = !spec[k];
		if (config_open(cli, &cfg[k]) < 0) {
			for (int j = 0; j < k; j++)
				offload_ctx_free(cfg[j].ctx);
			return CLI_EXIT_FAIL;
		}
	}
	size_t maxn = 0;
	for (int i = 0; i < nsizes; i++)
		maxn = sizes[i] > maxn ? sizes[i] : maxn;
	uint8_t *in = malloc(maxn + 64), *out[2] = { malloc(maxn + 64), malloc(maxn + 64) },
		*back = malloc(maxn + 64), *gcm_ct = malloc(maxn + 64);
	int rc = CLI_EXIT_OK;
	if (!in || !out[0] || !out[1] || !back || !gcm_ct) {
		rc = CLI_EXIT_FAIL;
		goto done;
	}
	for (size_t i = 0; i < maxn + 64; i++)
		in[i] = (uint8_t)(i * 131 + 7);
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(0x40 + i);
	for (int i = 0; i < 16; i++)
		iv[i] = (uint8_t)(0x80 + i);

	/* the device tree and models each configuration runs on, as list says it */
	for (int k = 0; k < ncfg && !cli->json && !cli->csv; k++) {
		const char *note = cfg[k].ctx ? cli_dt_note(cfg[k].ctx) : "";
		if (note[0])
			printf("note [%s]: %s\n", cfg[k].label, note);
	}
	if (cli->json)
		printf("{\n  \"results\": [");
	else if (cli->csv)
		printf("alg,dir,config,backend,driver,size,round,ops_per_s,mb_per_s,cache_clean_per_op,"
		       "cache_inval_per_op,cache_bytes_per_op,cache_ns_per_op,device,sim\n");
	bool first_json = true;
	char tmpa[256];
	snprintf(tmpa, sizeof(tmpa), "%s", alist);
	/* per alg x size x config x round */
	static double ops[MAXSIZES][2][MAXROUNDS];
	static struct cstat cst[MAXSIZES][2];
	bool eip97_ran = false;
	struct table_row {
		const char *alg;
		double change[MAXSIZES], noise[MAXSIZES];
		bool valid[MAXSIZES];
		struct cstat cache[MAXSIZES][2];
	} rows[16];
	int nrows = 0;
	for (char *save = NULL, *an = strtok_r(tmpa, ",", &save); an; an = strtok_r(NULL, ",", &save)) {
		const struct alg *a = alg_by_name(an);
		if (!a) {
			fprintf(stderr, "%s bench cipher: unknown algorithm %s (see --help)\n", cli->prog, an);
			rc = CLI_EXIT_USAGE;
			break;
		}
		bool ok = true;
		for (int k = 0; k < ncfg; k++) {
			int r = run_open(&cfg[k], a, enc);
			if (r < 0) {
				const char *msg = cfg[k].ctx ? offload_last_error(cfg[k].ctx)
							     : "not available in OpenSSL";
				fprintf(stderr, "%s bench cipher: %s on %s: %s\n", cli->prog, a->name,
					cfg[k].label, msg[0] ? msg : offload_strerror(r));
				ok = false;
			}
		}
		if (!ok) {
			for (int k = 0; k < ncfg; k++)
				run_close(&cfg[k]);
			rc = CLI_EXIT_FAIL;
			continue;
		}
		/* the independent reference for a single configuration */
		struct config refc;
		config_parse(&refc, "evp", NULL);
		bool refok = ncfg == 1 && !cfg[0].evp && run_open(&refc, a, enc) == 0;
		bool header[2] = { false, false };
		struct table_row *row = nrows < 16 ? &rows[nrows++] : NULL;
		if (row)
			row->alg = a->name;
		for (int si = 0; si < nsizes; si++) {
			size_t n = sizes[si] / a->block * a->block;
			if (row)
				row->valid[si] = false;
			memset(cst[si], 0, sizeof(cst[si]));
			if (n == 0) {
				if (!cli->json && !cli->csv)
					printf("test %d: %zu B skipped: %s needs whole %zu-byte blocks\n", si,
					       sizes[si], a->name, a->block);
				continue;
			}
			/* verify first: both configurations, same input, same output; a
			 * single configuration is checked against OpenSSL EVP directly */
			struct offload_result res;
			const uint8_t *ref0 = NULL, *src = in;
			if (!enc && a->alg == OFFLOAD_CIPHER_AES_GCM) {
				/* GCM decrypts only a genuine ciphertext and tag: make them */
				if (run_op(&cfg[0], a, true, in, gcm_ct, n, NULL) < 0) {
					rc = CLI_EXIT_FAIL;
					goto next_alg;
				}
				src = gcm_ct;
			}
			if (ncfg == 1 && refok) {
				if (run_op(&refc, a, enc, src, out[1], n, NULL) < 0) {
					fprintf(stderr, "%s bench cipher: OpenSSL reference failed for %s\n",
						cli->prog, a->name);
					rc = CLI_EXIT_FAIL;
					goto next_alg;
				}
				ref0 = out[1];
			}
			for (int k = 0; k < ncfg; k++) {
				cfg[k].run_dev = -1;
				int v = verify(&cfg[k], a, enc, src, out[k], back, n, k ? out[0] : ref0, &res);
				eip97_ran |= strcmp(cfg[k].backend, "eip97") == 0;
				if (v < 0) {
					fprintf(stderr, "%s bench cipher: %s %zu B on %s: %s\n", cli->prog,
						a->name, n, cfg[k].label,
						v == -1 ? "operation failed"
						: v == -2 ? "output differs from the other configuration"
							  : "output does not decrypt back to the input");
					if (cfg[k].ctx)
						fprintf(stderr, "  %s\n", offload_last_error(cfg[k].ctx));
					rc = CLI_EXIT_FAIL;
					goto next_alg;
				}
			}
			/* ABBA order (odd rounds start with B) so that whatever favours
			 * the first or second slot cancels; both time into the same buffer. */
			for (int r = 0; r < rounds; r++)
				for (int kk = 0; kk < ncfg; kk++) {
					int k = (r & 1) ? ncfg - 1 - kk : kk;
					struct offload_dev_stats s0, s1;
					struct cstat one = { 0 };
					uint64_t nops = 0;
					stats_read(&cfg[k], &s0);
					double v = timed(&cfg[k], a, enc, src, back, n, secs, &nops);
					stats_read(&cfg[k], &s1);
					stats_add(&cst[si][k], &s0, &s1, nops);
					stats_add(&one, &s0, &s1, nops);
					if (v < 0) {
						fprintf(stderr, "%s bench cipher: %s failed during timing on %s\n",
							cli->prog, a->name, cfg[k].label);
						rc = CLI_EXIT_FAIL;
						goto next_alg;
					}
					ops[si][k][r] = v;
					if (cli->csv)
						printf("%s,%s,%s,%s,%s,%zu,%d,%.0f,%.2f,%.2f,%.2f,%.0f,%.0f,%s,%d\n",
						       a->name, dir_name(a, enc), cfg[k].label, cfg[k].backend,
						       cfg[k].driver, n, r, v, v * (double)n / 1e6,
						       per_op(one.clean, &one), per_op(one.inval, &one),
						       per_op(one.bytes, &one), per_op(one.ns, &one),
						       cfg[k].run_name, cfg[k].run_sim ? 1 : 0);
				}
			for (int k = 0; k < ncfg; k++) {
				double m = median(ops[si][k], rounds);
				if (cli->json) {
					printf("%s\n    {\"alg\": \"%s\", \"dir\": \"%s\", \"config\": ",
					       first_json ? "" : ",", a->name, dir_name(a, enc));
					cli_json_str(stdout, cfg[k].label);
					printf(", \"device\": ");
					cli_json_str(stdout, cfg[k].run_name);
					printf(", \"backend\": ");
					cli_json_str(stdout, cfg[k].backend);
					printf(", \"driver\": ");
					cli_json_str(stdout, cfg[k].driver);
					const struct cstat *cs = &cst[si][k];
					char rsdv[24] = "null"; /* one round: no estimate */
					if (rounds > 1)
						snprintf(rsdv, sizeof(rsdv), "%.2f", rsd(ops[si][k], rounds));
					printf(", \"size\": %zu, \"requested_size\": %zu, \"rounds\": %d, "
					       "\"ops_per_s\": %.0f, "
					       "\"mb_per_s\": %.3f, \"rsd_percent\": %s, \"verified\": true, "
					       "\"cache_clean_per_op\": %.3f, \"cache_inval_per_op\": %.3f, "
					       "\"cache_bytes_per_op\": %.1f, \"cache_ns_per_op\": %.1f, "
					       "\"sim\": %s}",
					       n, sizes[si], rounds, m, m * (double)n / 1e6, rsdv,
					       per_op(cs->clean, cs), per_op(cs->inval, cs),
					       per_op(cs->bytes, cs), per_op(cs->ns, cs),
					       cfg[k].run_sim ? "true" : "false");
					first_json = false;
				} else if (!cli->csv) {
					if (!header[k]) {
						/* the device can change with the size (thresholds):
						 * each line names the one that ran */
						printf("\ntesting speed of %s %s [%s]: device and driver per size\n",
						       a->name, a->hash ? "digest" : enc ? "encryption" : "decryption",
						       cfg[k].label);
						header[k] = true;
					}
					char spread[48];
					if (rounds > 1)
						snprintf(spread, sizeof(spread), "median of %d rounds, rsd %.1f%%",
							 rounds, rsd(ops[si][k], rounds));
					else
						snprintf(spread, sizeof(spread), "one round: no noise estimate");
					char keyd[32] = "";
					if (a->key_len)
						snprintf(keyd, sizeof(keyd), "%zu bit key, ", a->key_len * 8);
					printf("test %d (%s%zu byte blocks): %.0f ops/s, %.2f MB/s "
					       "(%s: %s, %s%s; %s)\n",
					       si, keyd, n, m, m * (double)n / 1e6, cfg[k].run_name,
					       cfg[k].backend, cfg[k].driver,
					       cfg[k].run_sim ? " [sim: a model, not hardware]" : "", spread);
					if (n != sizes[si])
						printf("    %zu -> %zu B: %s needs whole %zu-byte blocks\n",
						       sizes[si], n, a->name, a->block);
					const struct cstat *cs = &cst[si][k];
					if (!cfg[k].evp)
						printf("    cache maintenance per request: %.2f clean + %.2f "
						       "invalidate calls, %.0f B, %.0f ns (%s)\n",
						       per_op(cs->clean, cs), per_op(cs->inval, cs),
						       per_op(cs->bytes, cs), per_op(cs->ns, cs),
						       cache_time_label(&cfg[k]));
				}
			}
			if (ncfg == 2 && row) {
				/* Paired rounds: the change of each round, then their median
				 * and the 95 % half-width of their mean (2 sd / sqrt(n)). */
				double ch[MAXROUNDS], m = 0, sd = 0;
				for (int r = 0; r < rounds; r++) {
					ch[r] = 100.0 * (ops[si][1][r] - ops[si][0][r]) / ops[si][0][r];
					m += ch[r];
				}
				m /= rounds;
				for (int r = 0; r < rounds; r++)
					sd += (ch[r] - m) * (ch[r] - m);
				sd = rounds > 1 ? sqrt(sd / (rounds - 1)) : 0;
				row->change[si] = median(ch, rounds);
				row->cache[si][0] = cst[si][0];
				row->cache[si][1] = cst[si][1];
				row->noise[si] = rounds > 1 ? 2.0 * sd / sqrt((double)rounds) : 100.0;
				row->valid[si] = true;
			}
		}
	next_alg:
		for (int k = 0; k < ncfg; k++)
			run_close(&cfg[k]);
		run_close(&refc);
	}
	if (cli->json) {
		printf("\n  ]");
		if (ncfg == 2) {
			printf(",\n  \"ab\": {\"a\": ");
			cli_json_str(stdout, cfg[0].label);
			printf(", \"b\": ");
			cli_json_str(stdout, cfg[1].label);
			printf(", \"rows\": [");
			for (int i = 0; i < nrows; i++) {
				printf("%s\n    {\"alg\": \"%s\", \"cells\": [", i ? "," : "", rows[i].alg);
				bool f = true;
				for (int si = 0; si < nsizes; si++)
					if (rows[i].valid[si]) {
						printf("%s{\"size\": %zu, \"change_percent\": %.2f, "
						       "\"noise_percent\": %.2f, \"significant\": %s}",
						       f ? "" : ", ", sizes[si], rows[i].change[si],
						       rows[i].noise[si],
						       fabs(rows[i].change[si]) > rows[i].noise[si] ? "true"
												 : "false");
						f = false;
					}
				printf("]}");
			}
			printf("\n  ]}");
		}
	} else if (!cli->csv && ncfg == 2) {
		/* The Armada 3720 table layout: algorithm rows, size columns, % change. */
		printf("\nchange of %s vs %s (ops/s, median of %d paired rounds); '~' = within noise "
		       "(2 sd/sqrt(n))\n%-14s",
		       cfg[1].label, cfg[0].label, rounds, "alg \\ bytes");
		for (int si = 0; si < nsizes; si++)
			printf(" %14zu", sizes[si]);
		printf("\n");
		for (int i = 0; i < nrows; i++) {
			printf("%-14s", rows[i].alg);
			for (int si = 0; si < nsizes; si++) {
				char cell[32];
				if (!rows[i].valid[si])
					snprintf(cell, sizeof(cell), "-");
				else
					snprintf(cell, sizeof(cell), "%s%+.1f%%±%.1f",
						 fabs(rows[i].change[si]) <= rows[i].noise[si] ? "~" : "",
						 rows[i].change[si], rows[i].noise[si]);
				printf(" %14s", cell);
			}
			printf("\n");
		}
		printf("\ncache maintenance per request (offload_dev_get_stats around the timed runs): calls "
		       "clean+invalidate, bytes (whole lines), ns\n  A = %s: %s\n  B = %s: %s\n%-14s %8s "
		       "%10s %8s %8s | %10s %8s %8s\n",
		       cfg[0].label, cache_time_label(&cfg[0]), cfg[1].label, cache_time_label(&cfg[1]),
		       "alg", "bytes", "A calls", "A bytes", "A ns", "B calls", "B bytes", "B ns");
		for (int i = 0; i < nrows; i++)
			for (int si = 0; si < nsizes; si++) {
				if (!rows[i].valid[si])
					continue;
				char c0[24], c1[24];
				const struct cstat *x = &rows[i].cache[si][0], *y = &rows[i].cache[si][1];
				snprintf(c0, sizeof(c0), "%.1f+%.1f", per_op(x->clean, x), per_op(x->inval, x));
				snprintf(c1, sizeof(c1), "%.1f+%.1f", per_op(y->clean, y), per_op(y->inval, y));
				printf("%-14s %8zu %10s %8.0f %8.0f | %10s %8.0f %8.0f\n", rows[i].alg, sizes[si],
				       c0, per_op(x->bytes, x), per_op(x->ns, x), c1, per_op(y->bytes, y),
				       per_op(y->ns, y));
			}
	}
	if (eip97_ran && !cli->csv)
		print_a3720_reference(cli->json);
	if (cli->json)
		printf("\n}\n");
done:
	free(in);
	free(out[0]);
	free(out[1]);
	free(back);
	free(gcm_ct);
	for (int k = 0; k < ncfg; k++)
		offload_ctx_free(cfg[k].ctx);
	return rc;
}
