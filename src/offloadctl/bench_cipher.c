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

#include "cli.h"
#include "evp_ref.h"

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
	char kdriver[128];      /* kernel driver forced on the kcapi backend, "" = its choice */
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
	bool oneshot;           /* --oneshot: offload_cipher()/offload_hash(), EVP without state */
#ifdef OFFLOAD_HAVE_OPENSSL
	struct cli_evp ref;     /* the "evp" configuration (evp_ref.h) */
#endif
};

/*
 * SPEC: "evp", a backend name ("cpu", "kcapi": allow-list and its device),
 * or key=value pairs joined by ':' — backends=LIST (commas allowed),
 * device=NAME, dtb=FILE|builtin, sim=1, noncoherent=1, label=TEXT,
 * driver=NAME (a kernel cra_driver_name the kcapi backend binds for its
 * algorithm: OFFLOAD_KCAPI_DRIVER for this context; implies backends=kcapi
 * and device=af_alg unless given) — optionally after a backend name
 * ("kcapi:driver=cbc-aes-aesni").
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

/* driver=NAME: the kcapi backend must be allowed; af_alg unless a device is named. */
static int config_kdriver(struct config *c)
{
	bool kcapi = !c->backends[0];
	char list[sizeof(c->backends)];

	snprintf(list, sizeof(list), "%s", c->backends);
	for (char *save = NULL, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save))
		kcapi |= strcmp(b, "kcapi") == 0;
	if (!kcapi)
		return -EINVAL;
	if (!c->backends[0])
		snprintf(c->backends, sizeof(c->backends), "kcapi");
	if (!c->device[0])
		snprintf(c->device, sizeof(c->device), "af_alg");
	return 0;
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
	char tmp[128];
	snprintf(tmp, sizeof(tmp), "%s", spec);
	for (char *save = NULL, *kv = strtok_r(tmp, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
		char *v = strchr(kv, '=');
		if (!v && kv == tmp) {
			/* a backend name: its allow-list and device */
			if (!text_value(c->backends, sizeof(c->backends), kv) ||
			    !text_value(c->device, sizeof(c->device), strcmp(kv, "kcapi") == 0 ? "af_alg" : kv))
				return -EINVAL;
			continue;
		}
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
		else if (strcmp(kv, "driver") == 0)
			ok = v[0] && text_value(c->kdriver, sizeof(c->kdriver), v);
		else
			ok = false;
		if (!ok)
			return -EINVAL;
	}
	return c->kdriver[0] ? config_kdriver(c) : 0;
}

/*
 * offload_ctx_open() with this configuration's kernel driver, if any, in
 * OFFLOAD_KCAPI_DRIVER (read by the kcapi backend as the context opens,
 * even with OFFLOAD_CTX_NO_ENV) and the variable restored after.
 */
static int config_ctx_open(struct config *c, const struct offload_ctx_opts *o)
{
	const char *cur = getenv("OFFLOAD_KCAPI_DRIVER");
	char *saved = cur ? strdup(cur) : NULL;

	if ((cur && !saved) ||
	    (c->kdriver[0] ? setenv("OFFLOAD_KCAPI_DRIVER", c->kdriver, 1) : unsetenv("OFFLOAD_KCAPI_DRIVER"))) {
		free(saved);
		return -ENOMEM;
	}
	int r = offload_ctx_open(c->ctx, o);
	if (saved)
		setenv("OFFLOAD_KCAPI_DRIVER", saved, 1);
	else
		unsetenv("OFFLOAD_KCAPI_DRIVER");
	free(saved);
	return r;
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
#ifdef OFFLOAD_HAVE_SIM
	o.sim_provider = offload_sim_provider();
#endif
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
	int r = config_ctx_open(c, &o);
	if (r == 0 && c->device[0]) {
		r = cli_dev_find(c->ctx, c->device);
		if (r >= 0) {
			c->dev = r;
			r = 0;
		}
	}
	const char *why = NULL;
	if (r == -ENODEV && strcmp(c->device, "af_alg") == 0 &&
	    offload_backend_status(c->ctx, "kcapi", &why) == 0 && why && why[0]) {
		/* the kcapi backend is absent: its reason says more than "no device" */
		cli_error(cli, "configuration \"%s\": kcapi backend absent: %s", cli_text(c->spec),
			  why);
		offload_ctx_free(c->ctx);
		c->ctx = NULL;
	} else if (r < 0) {
		const char *msg = offload_last_error(c->ctx);
		cli_error(cli, "configuration \"%s\": %s", cli_text(c->spec), msg[0] ? msg : offload_strerror(r));
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
	cli_evp_close(&c->ref);
#endif
}

static int run_open(struct config *c, const struct alg *a, bool enc)
{
	snprintf(c->driver, sizeof(c->driver), "?");
	snprintf(c->backend, sizeof(c->backend), "%s", c->evp ? "evp" : "?");
	snprintf(c->run_name, sizeof(c->run_name), "%s", c->evp ? "cpu" : "?");
	if (c->evp) {
#ifdef OFFLOAD_HAVE_OPENSSL
		snprintf(c->driver, sizeof(c->driver), "raw EVP %s%s", a->evp,
			 c->oneshot ? " one-shot" : "");
		(void)enc;
		return cli_evp_open(&c->ref, a->evp, a->hash, a->hash && a->key_len, key, a->key_len,
				    c->oneshot);
#else
		return -ENOTSUP;
#endif
	}
	if (c->oneshot)
		return 0; /* offload_hash() / offload_cipher() take everything per call */
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
		/* n <= 64 MiB (parse_sizes): within cli_evp_op()'s int lengths */
		return cli_evp_op(&c->ref, enc, a->iv_len ? iv : NULL, in, out, n, tag);
#endif
	}
	if (c->oneshot && a->hash) {
		int r = offload_hash(c->ctx, (enum offload_hash_alg)a->alg, a->key_len ? key : NULL,
				     a->key_len, in, n, out, 64, res);
		return r < 0 ? r : 0;
	}
	if (c->oneshot) {
		struct offload_cipher_op op = {
			.alg = (enum offload_cipher_alg)a->alg, .dir = enc ? OFFLOAD_ENCRYPT : OFFLOAD_DECRYPT,
			.key = key, .key_len = a->key_len, .iv = a->iv_len ? iv : NULL, .iv_len = a->iv_len,
			.in = in, .out = out, .len = n,
			.tag = a->alg == OFFLOAD_CIPHER_AES_GCM ? tag : NULL,
			.tag_len = a->alg == OFFLOAD_CIPHER_AES_GCM ? 16 : 0, .result = res,
		};
		return offload_cipher(c->ctx, &op, sizeof(op));
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

/* Run for about `secs`; returns ops/s (and the count in *nops), or < 0 on error. */
static double timed(struct config *c, const struct alg *a, bool enc, const uint8_t *in,
		    uint8_t *out, size_t n, double secs, uint64_t *nops)
{
	uint64_t ops = 0, batch = 16;
	double t0 = cli_now_s(), t;

	do {
		for (uint64_t i = 0; i < batch; i++)
			if (run_op(c, a, enc, in, out, n, NULL) < 0)
				return -1;
		ops += batch;
		t = cli_now_s() - t0;
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

static void cst_add(struct cstat *sum, const struct cstat *one)
{
	sum->clean += one->clean;
	sum->inval += one->inval;
	sum->bytes += one->bytes;
	sum->ns += one->ns;
	sum->ops += one->ops;
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

/* ------------------------------------------------------------ options */

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
		"  --sizes LIST   bytes, 1..64M each, at most %d (suffix K, M; default\n"
		"                 16,64,128,256,1024,1420,1424,2048,4096,8192); a size that is not\n"
		"                 a whole number of the mode's blocks is rounded down, and the\n"
		"                 line says so (1420 -> 1408 for CBC)\n"
		"  --time SECONDS time per size per round, fractions allowed, or milliseconds\n"
		"                 with 'ms' (default 0.2 = 200ms, at most 3600)\n"
		"  --rounds N     rounds, 1..%d (default 5): the median is reported with the\n"
		"                 spread of the rounds (one round: no noise estimate)\n"
		"  --quiet PCT    a round counts only if other processes took under PCT %% of\n"
		"                 the CPUs while it ran (/proc/stat; 1..100, default 5, 100:\n"
		"                 every round); busy rounds run again, up to --max-rounds, and\n"
		"                 each line says how many rounds were kept. Rounds of both\n"
		"                 configurations together under ~0.2 s are too short to judge\n"
		"  --max-rounds N rounds to try per size, 1..1000 (default 3 x --rounds)\n"
		"  --oneshot      one-shot calls: offload_cipher() / offload_hash() against\n"
		"                 EVP without state (EVP_Digest(), a new EVP_CIPHER_CTX per\n"
		"                 operation) instead of sessions\n"
		"  --config SPEC  one configuration (default: the context the common options\n"
		"                 and the environment give, as for every command)\n"
		"SPEC: evp (OpenSSL EVP called directly as src/offloadctl/evp_ref.h says: keyed\n"
		"      once, IV per operation, padding off once through its parameter, not\n"
		"      EVP_CIPHER_CTX_set_padding), a backend name (cpu, kcapi), or\n"
		"      key=value pairs joined by ':': backends=LIST, device=NAME,\n"
		"      dtb=FILE|builtin|live|none, sim=0|1, noncoherent=0|1, label=TEXT,\n"
		"      driver=NAME (the kernel driver, a cra_driver_name, that kcapi binds;\n"
		"      implies backends=kcapi, device=af_alg), after a backend name if wished:\n"
		"      --ab kcapi:driver=safexcel-cbc-aes,kcapi:driver=cbc-aes-ce.\n"
		"      A SPEC starts from the common --dtb, --sim and --backends (dtb none if\n"
		"      not given) and its keys override them; OFFLOAD_DTB, OFFLOAD_SIM and\n"
		"      OFFLOAD_BACKENDS are not read for a SPEC, so an A/B run is reproducible\n"
		"\noptions:\n" CLI_COMMON_HELP,
		MAXSIZES, MAXROUNDS);
}

/* What the options say. */
struct bc_args {
	size_t sizes[MAXSIZES];
	int nsizes, rounds, max_rounds;
	double secs;
	double quiet;            /* --quiet as a share of the CPUs; 1: every round counts */
	const char *alist, *spec[2];
	char ab[256];            /* --ab's copy, split at its comma */
	bool enc, oneshot, max_given;
};

enum {
	O_SIZES = CLI_OPT_COMMAND_FIRST, O_TIME, O_ROUNDS, O_CONFIG, O_AB, O_A, O_B, O_DEC, O_QUIET,
	O_MAX_ROUNDS, O_ONESHOT,
};

static const struct option bc_longopts[] = {
	{ "alg", required_argument, NULL, 'a' },     { "sizes", required_argument, NULL, O_SIZES },
	{ "time", required_argument, NULL, O_TIME },  { "rounds", required_argument, NULL, O_ROUNDS },
	{ "config", required_argument, NULL, O_CONFIG }, { "ab", required_argument, NULL, O_AB },
	{ "a", required_argument, NULL, O_A },       { "b", required_argument, NULL, O_B },
	{ "dec", no_argument, NULL, O_DEC },         { "quiet", required_argument, NULL, O_QUIET },
	{ "max-rounds", required_argument, NULL, O_MAX_ROUNDS },
	{ "oneshot", no_argument, NULL, O_ONESHOT }, CLI_COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

/* --sizes "16,64,1420": 1..MAXSIZES sizes of 1 B .. 64 MiB, each as cli_parse_uint() takes it. */
static int sizes_opt(const struct cli *cli, struct bc_args *a, const char *arg)
{
	char item[32];
	int n = 0;

	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");
		uint64_t v = 0;
		int r = len < sizeof(item) ? 0 : -ERANGE;
		if (r == 0) {
			memcpy(item, p, len);
			item[len] = '\0';
			r = cli_parse_uint(item, CLI_NUM_SIZE, 1, 64u << 20, &v);
		}
		if (r < 0 || n == MAXSIZES)
			return cli_usage_error(cli, "--sizes \"%s\": item %d (\"%.*s\") %s; expected up to %d "
						    "sizes in bytes, 1..67108864, decimal digits with an "
						    "optional K or M suffix, separated by commas",
					       cli_text(arg), n + 1, (int)(len < 32 ? len : 32), cli_text(p),
					       n == MAXSIZES ? "is one too many" : r == -ERANGE ? "is out of range"
											: "is malformed",
					       MAXSIZES);
		a->sizes[n++] = (size_t)v;
		if (!p[len])
			break;
		p += len;
	}
	a->nsizes = n;
	return 0;
}

static int bc_opt(struct cli *cli, void *state, int c, const char *arg)
{
	struct bc_args *a = state;
	uint64_t v;

	switch (c) {
	case 'a': a->alist = arg; return 0;
	case O_SIZES: return sizes_opt(cli, a, arg);
	case O_TIME: return cli_opt_seconds(cli, "--time", arg, false, 3600, &a->secs) ? 0 : CLI_EXIT_USAGE;
	case O_ROUNDS:
		if (!cli_opt_uint(cli, "--rounds", arg, 0, 1, MAXROUNDS, &v))
			return CLI_EXIT_USAGE;
		a->rounds = (int)v;
		return 0;
	case O_CONFIG:
	case O_A: a->spec[0] = arg; return 0;
	case O_B: a->spec[1] = arg; return 0;
	case O_AB: {
		snprintf(a->ab, sizeof(a->ab), "%s", arg);
		char *comma = strchr(a->ab, ',');
		if (!comma || comma == a->ab || !comma[1])
			return cli_usage_error(cli, "--ab \"%s\": expected SPEC_A,SPEC_B", cli_text(arg));
		*comma = '\0';
		a->spec[0] = a->ab;
		a->spec[1] = comma + 1;
		return 0;
	}
	case O_DEC: a->enc = false; return 0;
	case O_QUIET:
		if (!cli_opt_uint(cli, "--quiet", arg, 0, 1, 100, &v))
			return CLI_EXIT_USAGE;
		a->quiet = (double)v / 100.0;
		return 0;
	case O_MAX_ROUNDS:
		if (!cli_opt_uint(cli, "--max-rounds", arg, 0, 1, 1000, &v))
			return CLI_EXIT_USAGE;
		a->max_rounds = (int)v;
		a->max_given = true;
		return 0;
	case O_ONESHOT: a->oneshot = true; return 0;
	default: return CLI_EXIT_USAGE;
	}
}

/* Every algorithm name of -a, before anything runs: a typo is a usage error. */
static int check_algs(const struct cli *cli, const char *alist)
{
	char tmp[256];

	if (!alist[0] || !text_value(tmp, sizeof(tmp), alist))
		return cli_usage_error(cli, "-a \"%s\": expected a list of algorithms", cli_text(alist));
	for (const char *p = alist;; p++) {
		size_t n = strcspn(p, ",");
		snprintf(tmp, sizeof(tmp), "%.*s", (int)n, p);
		if (!alg_by_name(tmp))
			return cli_usage_error(cli, "-a: unknown algorithm \"%s\"", cli_text(tmp));
		if (!p[n])
			return CLI_CONTINUE;
		p += n;
	}
}

/* Parse each SPEC and open its context; an exit status after the message, or CLI_CONTINUE. */
static int open_configs(struct cli *cli, const struct bc_args *a, struct config *cfg, int ncfg)
{
	for (int k = 0; k < ncfg; k++) {
		const char *sp = a->spec[k] ? a->spec[k] : "label=auto";
		int rc = CLI_CONTINUE;
		if (config_parse(&cfg[k], sp, cli) < 0 ||
		    (cfg[k].backends[0] && !cli_backends_ok(cli, "configuration", cfg[k].backends)))
			rc = cli_usage_error(cli, "bad configuration \"%s\" (SPEC: evp, cpu, kcapi, or "
						  "key=value pairs joined by ':')", cli_text(sp));
		cfg[k].common = !a->spec[k];
		cfg[k].oneshot = a->oneshot;
		if (rc == CLI_CONTINUE && config_open(cli, &cfg[k]) < 0)
			rc = CLI_EXIT_FAIL;
		if (rc != CLI_CONTINUE) {
			for (int j = 0; j < k; j++)
				offload_ctx_free(cfg[j].ctx);
			return rc;
		}
	}
	return CLI_CONTINUE;
}

/* ------------------------------------------------------------ the run */

/* One row of the A/B table: an algorithm, its change and noise per size. */
struct table_row {
	const char *alg;
	double change[MAXSIZES], noise[MAXSIZES];
	bool valid[MAXSIZES];
	struct cstat cache[MAXSIZES][2];
};

/* Everything a run shares (large: allocated). */
struct bc_run {
	struct cli *cli;
	const struct bc_args *a;
	struct config *cfg;
	int ncfg;
	uint8_t *in, *out[2], *back, *gcm_ct;  /* maxn + 64 bytes each */
	double ops[MAXSIZES][2][MAXROUNDS];    /* per size x config x kept round */
	double busy_ops[MAXSIZES][2][MAXROUNDS]; /* the last busy rounds, if none is quiet */
	int kept[MAXSIZES], tried[MAXSIZES];   /* rounds kept and run, per size */
	bool unjudged[MAXSIZES];               /* a round too short to judge was kept */
	bool all_busy[MAXSIZES];               /* no round was quiet: busy ones reported */
	double least_other[MAXSIZES];          /* the smallest share others took in a round */
	struct cstat cst[MAXSIZES][2];
	struct table_row rows[16];
	int nrows;
	bool eip97_ran, first_json, header[2];
	int measured; /* sizes timed, over every algorithm */
	int rc;
};

static void run_free(struct bc_run *run)
{
	free(run->in);
	free(run->out[0]);
	free(run->out[1]);
	free(run->back);
	free(run->gcm_ct);
	free(run);
}

static struct bc_run *run_new(struct cli *cli, const struct bc_args *a, struct config *cfg, int ncfg)
{
	struct bc_run *run = calloc(1, sizeof(*run));
	size_t maxn = 0;

	if (!run)
		return NULL;
	for (int i = 0; i < a->nsizes; i++)
		maxn = a->sizes[i] > maxn ? a->sizes[i] : maxn;
	run->in = malloc(maxn + 64);
	run->out[0] = malloc(maxn + 64);
	run->out[1] = malloc(maxn + 64);
	run->back = malloc(maxn + 64);
	run->gcm_ct = malloc(maxn + 64);
	if (!run->in || !run->out[0] || !run->out[1] || !run->back || !run->gcm_ct) {
		run_free(run);
		return NULL;
	}
	for (size_t i = 0; i < maxn + 64; i++)
		run->in[i] = (uint8_t)(i * 131 + 7);
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(0x40 + i);
	for (int i = 0; i < 16; i++)
		iv[i] = (uint8_t)(0x80 + i);
	run->cli = cli;
	run->a = a;
	run->cfg = cfg;
	run->ncfg = ncfg;
	run->first_json = true;
	return run;
}

/* The median of n values, with *rsd their relative standard deviation (%); false if out of memory. */
static bool median_rsd(const double *v, int n, double *median, double *rsd)
{
	struct cli_stats st;

	if (cli_stats(v, (size_t)n, &st) < 0)
		return false;
	*median = st.median;
	*rsd = st.rsd;
	return true;
}

/* ", kept 5 of 7 rounds ..." for a size's line: how the quiet-round test went. */
static void quiet_note(const struct bc_run *run, int si, char *buf, size_t len)
{
	const struct bc_args *o = run->a;

	if (run->all_busy[si])
		snprintf(buf, len, "; BUSY: none of %d rounds was quiet (others took %.0f%% of the "
			 "CPUs or more)", run->tried[si], run->least_other[si] * 100);
	else if (o->quiet >= 1.0 || run->unjudged[si])
		snprintf(buf, len, "%s", o->quiet >= 1.0 ? "" : "; rounds too short to judge quiet");
	else
		snprintf(buf, len, "; kept %d of %d rounds: others < %.0f%% of the CPUs", run->kept[si],
			 run->tried[si], o->quiet * 100);
}

/* The JSON object of one configuration at one size. */
static void report_size_json(struct bc_run *run, const struct alg *a, int si, int k, size_t n)
{
	const struct config *c = &run->cfg[k];
	const struct cstat *cs = &run->cst[si][k];
	int rounds = run->kept[si];
	double m, rsdv;
	char rsds[24] = "null"; /* one round: no estimate */

	if (!median_rsd(run->ops[si][k], rounds, &m, &rsdv))
		m = rsdv = NAN;
	if (rounds > 1)
		snprintf(rsds, sizeof(rsds), "%.2f", rsdv);
	printf("%s\n    {\"alg\": \"%s\", \"dir\": \"%s\", \"config\": ", run->first_json ? "" : ",",
	       a->name, dir_name(a, run->a->enc));
	cli_json_str(stdout, c->label);
	printf(", \"device\": ");
	cli_json_str(stdout, c->run_name);
	printf(", \"backend\": ");
	cli_json_str(stdout, c->backend);
	printf(", \"driver\": ");
	cli_json_str(stdout, c->driver);
	printf(", \"size\": %zu, \"requested_size\": %zu, \"rounds\": %d, \"rounds_tried\": %d, "
	       "\"quiet\": %s, \"ops_per_s\": %.0f, "
	       "\"mb_per_s\": %.3f, \"rsd_percent\": %s, \"verified\": true, "
	       "\"cache_clean_per_op\": %.3f, \"cache_inval_per_op\": %.3f, "
	       "\"cache_bytes_per_op\": %.1f, \"cache_ns_per_op\": %.1f, \"sim\": %s}",
	       n, run->a->sizes[si], rounds, run->tried[si],
	       run->all_busy[si] ? "false" : run->unjudged[si] ? "null" : "true", m, m * (double)n / 1e6,
	       rsds, per_op(cs->clean, cs), per_op(cs->inval, cs), per_op(cs->bytes, cs),
	       per_op(cs->ns, cs), c->run_sim ? "true" : "false");
	run->first_json = false;
}

/* tcrypt's line for one configuration at one size, and its cache maintenance. */
static void report_size_text(struct bc_run *run, const struct alg *a, int si, int k, size_t n)
{
	const struct config *c = &run->cfg[k];
	const struct cstat *cs = &run->cst[si][k];
	int rounds = run->kept[si];
	double m, rsdv;
	char spread[48], keyd[32] = "", quiet[96];

	if (!run->header[k]) {
		/* the device can change with the size (thresholds): each line names the one that ran */
		printf("\ntesting speed of %s %s [%s]: device and driver per size\n", a->name,
		       a->hash ? "digest" : run->a->enc ? "encryption" : "decryption", cli_text(c->label));
		run->header[k] = true;
	}
	if (!median_rsd(run->ops[si][k], rounds, &m, &rsdv))
		m = rsdv = NAN;
	if (rounds > 1)
		snprintf(spread, sizeof(spread), "median of %d rounds, rsd %.1f%%", rounds, rsdv);
	else
		snprintf(spread, sizeof(spread), "one round: no noise estimate");
	if (a->key_len)
		snprintf(keyd, sizeof(keyd), "%zu bit key, ", a->key_len * 8);
	quiet_note(run, si, quiet, sizeof(quiet));
	printf("test %d (%s%zu byte blocks): %.0f ops/s, %.2f MB/s (%s: %s, %s%s; %s%s)\n", si, keyd,
	       n, m, m * (double)n / 1e6, cli_text(c->run_name), cli_text(c->backend),
	       cli_text(c->driver), c->run_sim ? " [sim: a model, not hardware]" : "", spread, quiet);
	if (n != run->a->sizes[si])
		printf("    %zu -> %zu B: %s needs whole %zu-byte blocks\n", run->a->sizes[si], n, a->name,
		       a->block);
	if (!c->evp)
		printf("    cache maintenance per request: %.2f clean + %.2f invalidate calls, %.0f B, "
		       "%.0f ns (%s)\n", per_op(cs->clean, cs), per_op(cs->inval, cs), per_op(cs->bytes, cs),
		       per_op(cs->ns, cs), cache_time_label(c));
}

/* One CSV row: one configuration, one size, one round. */
static void report_round_csv(const struct bc_run *run, const struct alg *a, int k, size_t n, int r,
			     double v, const struct cstat *one)
{
	const struct config *c = &run->cfg[k];

	printf("%s,%s,", a->name, dir_name(a, run->a->enc));
	/* the label is the user's, the names may come from the device tree: RFC 4180 fields */
	cli_csv_field(stdout, c->label, false);
	cli_csv_field(stdout, c->backend, false);
	cli_csv_field(stdout, c->driver, false);
	printf("%zu,%d,%.0f,%.2f,%.2f,%.2f,%.0f,%.0f,", n, r, v, v * (double)n / 1e6,
	       per_op(one->clean, one), per_op(one->inval, one), per_op(one->bytes, one),
	       per_op(one->ns, one));
	cli_csv_field(stdout, c->run_name, false);
	printf("%d\n", c->run_sim ? 1 : 0);
}

/*
 * Paired rounds of an A/B run: the change of each round, then their median
 * and the 95 % half-width of their mean (2 sd / sqrt(n)).
 */
static void ab_change(struct bc_run *run, struct table_row *row, int si)
{
	int rounds = run->kept[si];
	double ch[MAXROUNDS];
	struct cli_stats st;

	for (int r = 0; r < rounds; r++)
		ch[r] = 100.0 * (run->ops[si][1][r] - run->ops[si][0][r]) / run->ops[si][0][r];
	if (cli_stats(ch, (size_t)rounds, &st) < 0)
		return; /* out of memory: the cell stays '-' */
	row->change[si] = st.median;
	row->cache[si][0] = run->cst[si][0];
	row->cache[si][1] = run->cst[si][1];
	row->noise[si] = rounds > 1 ? 2.0 * st.stddev / sqrt((double)rounds) : 100.0;
	row->valid[si] = true;
}

/*
 * Verify first: both configurations, same input, same output; a single
 * configuration is checked against OpenSSL EVP directly (refc, when it
 * opened). *src is the input the timing uses. 0, or -1 after the message.
 */
static int verify_size(struct bc_run *run, const struct alg *a, struct config *refc, bool refok,
		       size_t n, const uint8_t **src)
{
	bool enc = run->a->enc;
	struct offload_result res;
	const uint8_t *ref0 = NULL;

	*src = run->in;
	if (!enc && a->alg == OFFLOAD_CIPHER_AES_GCM) {
		/* GCM decrypts only a genuine ciphertext and tag: make them */
		if (run_op(&run->cfg[0], a, true, run->in, run->gcm_ct, n, NULL) < 0) {
			cli_error(run->cli, "%s %zu B on %s: making the GCM ciphertext failed", a->name, n,
				  cli_text(run->cfg[0].label));
			return -1;
		}
		*src = run->gcm_ct;
	}
	if (run->ncfg == 1 && refok) {
		if (run_op(refc, a, enc, *src, run->out[1], n, NULL) < 0) {
			cli_error(run->cli, "OpenSSL reference failed for %s", a->name);
			return -1;
		}
		ref0 = run->out[1];
	}
	for (int k = 0; k < run->ncfg; k++) {
		struct config *c = &run->cfg[k];
		c->run_dev = -1;
		int v = verify(c, a, enc, *src, run->out[k], run->back, n, k ? run->out[0] : ref0, &res);
		run->eip97_ran |= strcmp(c->backend, "eip97") == 0;
		if (v < 0) {
			cli_error(run->cli, "%s %zu B on %s: %s", a->name, n, cli_text(c->label),
				  v == -1   ? "operation failed"
				  : v == -2 ? "output differs from the other configuration"
					    : "output does not decrypt back to the input");
			if (c->ctx)
				fprintf(stderr, "  %s\n", offload_last_error(c->ctx));
			return -1;
		}
	}
	return 0;
}

/*
 * The timed rounds of one size, in ABBA order (odd rounds start with B) so
 * that whatever favours the first or second slot cancels; both time into the
 * same buffer. A round counts only if other processes took less than
 * --quiet of the CPUs while it ran (cli_cpu_other_share()); busy rounds are
 * run again, up to --max-rounds in all. When none was quiet, the last busy
 * ones stand, and the report says so. 0, or -1 after the message.
 */
static int time_size(struct bc_run *run, const struct alg *a, int si, size_t n, const uint8_t *src)
{
	const struct bc_args *o = run->a;
	int ncfg = run->ncfg, kept = 0, tried = 0, busy = 0;

	run->unjudged[si] = run->all_busy[si] = false;
	run->least_other[si] = 1.0;
	for (; kept < o->rounds && tried < o->max_rounds; tried++) {
		struct cstat one[2];
		struct cli_cpu_mark m0, m1;
		double v[2] = { 0, 0 };
		memset(one, 0, sizeof(one));
		cli_cpu_mark(&m0, NULL, 0);
		for (int kk = 0; kk < ncfg; kk++) {
			int k = (kept & 1) ? ncfg - 1 - kk : kk;
			struct config *c = &run->cfg[k];
			struct offload_dev_stats s0, s1;
			uint64_t nops = 0;
			stats_read(c, &s0);
			v[k] = timed(c, a, o->enc, src, run->back, n, o->secs, &nops);
			stats_read(c, &s1);
			stats_add(&one[k], &s0, &s1, nops);
			if (v[k] < 0) {
				cli_error(run->cli, "%s failed during timing on %s", a->name,
					  cli_text(c->label));
				return -1;
			}
		}
		cli_cpu_mark(&m1, NULL, 0);
		double other = cli_cpu_other_share(&m0, &m1);
		bool judged = other >= 0 && cli_quiet_resolution(&m0, &m1) <= o->quiet;
		if (!judged)
			run->unjudged[si] = true; /* too short for /proc/stat's ticks: kept */
		else if (other < run->least_other[si])
			run->least_other[si] = other;
		if (judged && other >= o->quiet && o->quiet < 1.0) {
			for (int k = 0; k < ncfg; k++)
				run->busy_ops[si][k][busy % o->rounds] = v[k];
			busy++;
			continue;
		}
		for (int k = 0; k < ncfg; k++) {
			run->ops[si][k][kept] = v[k];
			cst_add(&run->cst[si][k], &one[k]);
			if (run->cli->csv)
				report_round_csv(run, a, k, n, kept, v[k], &one[k]);
		}
		kept++;
	}
	if (kept == 0) {
		/* the machine never left us alone: the busy rounds stand, marked */
		kept = (busy < o->rounds ? busy : o->rounds);
		for (int k = 0; k < ncfg; k++)
			memcpy(run->ops[si][k], run->busy_ops[si][k], (size_t)kept * sizeof(double));
		run->all_busy[si] = true;
	}
	run->kept[si] = kept;
	run->tried[si] = tried;
	return 0;
}

/* One size of one algorithm: verify, time, report. 0, or -1 (this algorithm stops). */
static int run_size(struct bc_run *run, const struct alg *a, struct config *refc, bool refok,
		    struct table_row *row, int si)
{
	const struct cli *cli = run->cli;
	size_t n = run->a->sizes[si] / a->block * a->block;
	const uint8_t *src;

	if (row)
		row->valid[si] = false;
	memset(run->cst[si], 0, sizeof(run->cst[si]));
	if (n == 0) {
		if (!cli->json && !cli->csv)
			printf("test %d: %zu B skipped: %s needs whole %zu-byte blocks\n", si,
			       run->a->sizes[si], a->name, a->block);
		return 0;
	}
	if (verify_size(run, a, refc, refok, n, &src) < 0 || time_size(run, a, si, n, src) < 0)
		return -1;
	run->measured++;
	for (int k = 0; k < run->ncfg; k++) {
		if (cli->json)
			report_size_json(run, a, si, k, n);
		else if (!cli->csv)
			report_size_text(run, a, si, k, n);
	}
	if (run->ncfg == 2 && row)
		ab_change(run, row, si);
	return 0;
}

/* Every size of one algorithm, on every configuration. */
static void run_alg(struct bc_run *run, const struct alg *a)
{
	struct config refc;
	bool ok = true;

	for (int k = 0; k < run->ncfg; k++) {
		struct config *c = &run->cfg[k];
		int r = run_open(c, a, run->a->enc);
		if (r < 0) {
			const char *msg = c->ctx ? offload_last_error(c->ctx) : "not available in OpenSSL";
			cli_error(run->cli, "%s on %s: %s", a->name, cli_text(c->label),
				  msg[0] ? msg : offload_strerror(r));
			ok = false;
		}
	}
	/* the independent reference for a single configuration */
	config_parse(&refc, "evp", NULL);
	bool refok = ok && run->ncfg == 1 && !run->cfg[0].evp && run_open(&refc, a, run->a->enc) == 0;
	struct table_row *row = ok && run->nrows < 16 ? &run->rows[run->nrows++] : NULL;
	if (row)
		row->alg = a->name;
	run->header[0] = run->header[1] = false;
	for (int si = 0; ok && si < run->a->nsizes; si++)
		ok = run_size(run, a, &refc, refok, row, si) == 0;
	if (!ok)
		run->rc = CLI_EXIT_FAIL;
	for (int k = 0; k < run->ncfg; k++)
		run_close(&run->cfg[k]);
	run_close(&refc);
}

/* ------------------------------------------------------------ the A/B reports */

static void report_ab_json(const struct bc_run *run)
{
	const struct bc_args *a = run->a;

	printf(",\n  \"ab\": {\"a\": ");
	cli_json_str(stdout, run->cfg[0].label);
	printf(", \"b\": ");
	cli_json_str(stdout, run->cfg[1].label);
	printf(", \"rows\": [");
	for (int i = 0; i < run->nrows; i++) {
		const struct table_row *row = &run->rows[i];
		printf("%s\n    {\"alg\": \"%s\", \"cells\": [", i ? "," : "", row->alg);
		bool first = true;
		for (int si = 0; si < a->nsizes; si++) {
			if (!row->valid[si])
				continue;
			printf("%s{\"size\": %zu, \"change_percent\": %.2f, \"noise_percent\": %.2f, "
			       "\"significant\": %s}", first ? "" : ", ", a->sizes[si], row->change[si],
			       row->noise[si], fabs(row->change[si]) > row->noise[si] ? "true" : "false");
			first = false;
		}
		printf("]}");
	}
	printf("\n  ]}");
}

/* The Armada 3720 table layout: algorithm rows, size columns, % change. */
static void report_ab_table(const struct bc_run *run)
{
	const struct bc_args *a = run->a;

	printf("\nchange of %s vs %s (ops/s, median of %d paired rounds); '~' = within noise "
	       "(2 sd/sqrt(n))\n%-14s", cli_text(run->cfg[1].label), cli_text(run->cfg[0].label),
	       a->rounds, "alg \\ bytes");
	for (int si = 0; si < a->nsizes; si++)
		printf(" %14zu", a->sizes[si]);
	printf("\n");
	for (int i = 0; i < run->nrows; i++) {
		const struct table_row *row = &run->rows[i];
		printf("%-14s", row->alg);
		for (int si = 0; si < a->nsizes; si++) {
			char cell[32];
			if (!row->valid[si])
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), "%s%+.1f%%±%.1f",
					 fabs(row->change[si]) <= row->noise[si] ? "~" : "", row->change[si],
					 row->noise[si]);
			printf(" %14s", cell);
		}
		printf("\n");
	}
}

static void report_cache_table(const struct bc_run *run)
{
	const struct config *c = run->cfg;

	printf("\ncache maintenance per request (offload_dev_get_stats around the timed runs): calls "
	       "clean+invalidate, bytes (whole lines), ns\n  A = %s: %s\n  B = %s: %s\n%-14s %8s "
	       "%10s %8s %8s | %10s %8s %8s\n",
	       cli_text(c[0].label), cache_time_label(&c[0]), cli_text(c[1].label),
	       cache_time_label(&c[1]), "alg", "bytes", "A calls", "A bytes", "A ns", "B calls",
	       "B bytes", "B ns");
	for (int i = 0; i < run->nrows; i++)
		for (int si = 0; si < run->a->nsizes; si++) {
			const struct table_row *row = &run->rows[i];
			if (!row->valid[si])
				continue;
			char c0[24], c1[24];
			const struct cstat *x = &row->cache[si][0], *y = &row->cache[si][1];
			snprintf(c0, sizeof(c0), "%.1f+%.1f", per_op(x->clean, x), per_op(x->inval, x));
			snprintf(c1, sizeof(c1), "%.1f+%.1f", per_op(y->clean, y), per_op(y->inval, y));
			printf("%-14s %8zu %10s %8.0f %8.0f | %10s %8.0f %8.0f\n", row->alg,
			       run->a->sizes[si], c0, per_op(x->bytes, x), per_op(x->ns, x), c1,
			       per_op(y->bytes, y), per_op(y->ns, y));
		}
}

/* ------------------------------------------------------------ command */

/* The run's opening lines: the device tree each configuration runs on, or the JSON/CSV head. */
static void report_head(const struct bc_run *run)
{
	const struct cli *cli = run->cli;

	for (int k = 0; k < run->ncfg && !cli->json && !cli->csv; k++) {
		const char *note = run->cfg[k].ctx ? cli_dt_note(run->cfg[k].ctx) : "";
		if (note[0])
			printf("note [%s]: %s\n", cli_text(run->cfg[k].label), note);
	}
	if (cli->json)
		printf("{\n  \"results\": [");
	else if (cli->csv)
		printf("alg,dir,config,backend,driver,size,round,ops_per_s,mb_per_s,cache_clean_per_op,"
		       "cache_inval_per_op,cache_bytes_per_op,cache_ns_per_op,device,sim\n");
}

static void report_tail(const struct bc_run *run)
{
	const struct cli *cli = run->cli;

	if (cli->json) {
		printf("\n  ]");
		if (run->ncfg == 2)
			report_ab_json(run);
	} else if (!cli->csv && run->ncfg == 2) {
		report_ab_table(run);
		report_cache_table(run);
	}
	if (run->eip97_ran && !cli->csv)
		print_a3720_reference(cli->json);
	if (cli->json)
		printf("\n}\n");
}

int cmd_bench_cipher(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.shortopts = "a:", .longopts = bc_longopts, .opt = bc_opt, .help = usage,
		.max_operands = 0, .formats = CLI_FMT_JSON | CLI_FMT_CSV,
	};
	struct bc_args a = { .sizes = { 16, 64, 128, 256, 1024, 1420, 1424, 2048, 4096, 8192 },
			     .nsizes = 10, .rounds = DEFAULT_ROUNDS, .secs = DEFAULT_TIME_S,
			     .quiet = 0.05, .alist = "aes-128-cbc", .enc = true };
	struct config cfg[2];

	int rc = cli_parse(cli, &cmd, &a, argc, argv);
	if (rc == CLI_CONTINUE && a.spec[1] && !a.spec[0])
		rc = cli_usage_error(cli, "--b needs --a");
	if (!a.max_given)
		a.max_rounds = 3 * a.rounds;
	if (rc == CLI_CONTINUE && a.max_rounds < a.rounds)
		rc = cli_usage_error(cli, "--max-rounds %d is less than --rounds %d", a.max_rounds,
				     a.rounds);
	if (rc == CLI_CONTINUE)
		rc = check_algs(cli, a.alist);
	int ncfg = a.spec[1] ? 2 : 1;
	if (rc == CLI_CONTINUE)
		rc = open_configs(cli, &a, cfg, ncfg);
	if (rc != CLI_CONTINUE)
		return rc;
	struct bc_run *run = run_new(cli, &a, cfg, ncfg);
	if (!run) {
		rc = cli_error(cli, "out of memory for the buffers");
	} else {
		char tmpa[256];
		report_head(run);
		snprintf(tmpa, sizeof(tmpa), "%s", a.alist);
		for (char *save = NULL, *an = strtok_r(tmpa, ",", &save); an; an = strtok_r(NULL, ",", &save))
			run_alg(run, alg_by_name(an)); /* check_algs() knows them all */
		report_tail(run);
		rc = run->rc ? run->rc : CLI_EXIT_OK;
		if (rc == CLI_EXIT_OK && !run->measured)
			rc = cli_usage_error(cli, "nothing was measured: every size of --sizes is smaller "
					     "than the block of each algorithm asked for");
		run_free(run);
	}
	for (int k = 0; k < ncfg; k++)
		offload_ctx_free(cfg[k].ctx);
	return rc;
}
