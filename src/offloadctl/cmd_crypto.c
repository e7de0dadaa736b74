/* SPDX-License-Identifier: MIT */
/*
 * offloadctl selftest | enc | dec | dgst.
 *
 * selftest runs every known-answer vector on every crypto device, one line
 * per vector like the kernel's testmgr. enc/dec/dgst are one-shots whose
 * output is byte-identical to `openssl enc -nopad -K .. -iv ..` and
 * `openssl dgst` (tests/crypto/openssl_cli.sh compares them).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "kat_vectors.h"

#define CLI_MAX_INPUT (1024u * 1024u * 1024u)

/* ------------------------------------------------------------ selftest */

struct st {
	const struct cli *cli;
	const char *dev;
	const char *backend;
	bool cpu_dev;       /* the device is the CPU backend's */
	int pass, fail, na;
	int sw_pass;        /* passes an engine device handed to software (RES_CPU) */
	int sim;            /* results from a model (RES_SIM) */
	bool first;
};

static void st_report(void *arg, const struct kat_outcome *o)
{
	struct st *t = arg;
	static const char *const word[] = { "passed", "FAILED", "not implemented" };

	t->pass += o->status == KAT_PASS;
	t->fail += o->status == KAT_FAIL;
	t->na += o->status == KAT_UNSUPPORTED;
	/* an engine's driver may give a case it cannot take (the EIP97 and the
	 * empty message) to software: a pass, but not the engine's */
	bool sw = !t->cpu_dev && (o->flags & OFFLOAD_RES_CPU);
	t->sw_pass += o->status == KAT_PASS && sw;
	t->sim += (o->flags & OFFLOAD_RES_SIM) != 0;
	if (t->cli->json) {
		printf("%s    {\"device\": ", t->first ? "" : ",\n");
		cli_json_str(stdout, t->dev);
		printf(", \"backend\": ");
		cli_json_str(stdout, t->backend);
		printf(", \"alg\": ");
		cli_json_str(stdout, o->alg);
		printf(", \"driver\": ");
		cli_json_str(stdout, o->driver);
		printf(", \"hardware\": %s, \"sim\": %s, \"software\": %s, \"result\": \"%s\", "
		       "\"source\": ",
		       (o->flags & OFFLOAD_RES_HARDWARE) ? "true" : "false",
		       (o->flags & OFFLOAD_RES_SIM) ? "true" : "false", sw ? "true" : "false",
		       o->status == KAT_PASS ? "pass" : o->status == KAT_FAIL ? "fail" : "n/a");
		cli_json_str(stdout, o->source);
		printf(", \"detail\": ");
		cli_json_str(stdout, o->detail);
		printf("}");
		t->first = false;
		return;
	}
	printf("alg: %-12s (%s) on %s/%s: %s [%s]%s%s%s\n", o->alg, o->driver[0] ? cli_text(o->driver) : "-",
	       cli_text(t->dev), t->backend, word[o->status], o->source,
	       sw ? " (in software on the CPU, not the engine)" : "", o->detail[0] ? ": " : "",
	       cli_text(o->detail));
}

static void selftest_usage(const struct cli *cli, FILE *f)
{
	fprintf(f, "usage: %s selftest [OPTIONS]\n\nRun every known-answer vector (NIST SP 800-38A/38D, "
		"FIPS 180-4, FIPS 81,\nRFC 1321/2202/4231, CAVP TDES) on every crypto device, like the "
		"kernel's testmgr.\nExit 1 if any vector fails.\n\noptions:\n" CLI_COMMON_HELP, cli->prog);
}

/* Every vector on device i (usable, with crypto caps); the count of failed vectors. */
static int selftest_device(const struct cli *cli, offload_ctx *ctx, const struct offload_dev_info *d,
			   struct st *t)
{
	t->dev = d->name;
	t->backend = d->backend;
	t->cpu_dev = strcmp(d->backend, "cpu") == 0;
	t->pass = t->fail = t->na = t->sw_pass = t->sim = 0;
	int failed = kat_run_device(ctx, d->index, st_report, t);
	if (!cli->json) {
		char sw[96] = "";
		if (t->sw_pass)
			snprintf(sw, sizeof(sw), " (%d on the %s, %d in software on the CPU)",
				 t->pass - t->sw_pass, t->sim ? "model" : "engine", t->sw_pass);
		printf("%s/%s%s: %d passed%s, %d failed, %d not implemented\n", cli_text(d->name),
		       d->backend, (d->flags & OFFLOAD_DEVF_SIM) ? " [sim: a model, not hardware]" : "",
		       t->pass, sw, t->fail, t->na);
	}
	return failed;
}

int cmd_selftest(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.longopts = cli_common_longopts, .help = selftest_usage, .max_operands = 0,
		.formats = CLI_FMT_JSON,
	};
	offload_ctx *ctx;
	int rc = cli_begin(cli, &cmd, NULL, argc, argv, &ctx);

	if (rc != CLI_CONTINUE)
		return rc;
	struct st t = { .cli = cli, .first = true };
	int failed = 0, devices = 0;
	if (cli->json)
		printf("{\n  \"absent\": [");
	cli_print_absent(ctx, OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH, cli->json);
	if (cli->json)
		printf("],\n  \"results\": [\n");
	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info d;
		if (offload_dev_get_info(ctx, i, &d, sizeof(d)) < 0 || !(d.flags & OFFLOAD_DEVF_USABLE) ||
		    !(d.caps & (OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH)))
			continue;
		failed += selftest_device(cli, ctx, &d, &t);
		devices++;
	}
	if (cli->json)
		printf("\n  ],\n  \"devices\": %d,\n  \"failed\": %d\n}\n", devices, failed);
	offload_ctx_free(ctx);
	if (!devices)
		return cli_error(cli, "no crypto device in this context (the backends absent and why: "
			       "'%s list')", cli->prog);
	if (failed)
		return cli_error(cli, "%d known-answer vector%s FAILED (the lines above)", failed,
				 failed == 1 ? "" : "s");
	return CLI_EXIT_OK;
}

/* ------------------------------------------------------------ shared I/O */

/*
 * Write the output file so that a failure never destroys what was there:
 * into a temporary file in the same directory, renamed over path on
 * success (a symlink's target is replaced, keeping its permissions). Not a
 * regular file (/dev/null, a FIFO) or stdout ("-", NULL): written in place.
 * Returns 0, or an errno value; *what says which step failed and *kept
 * whether path was left as it was.
 */
static int write_out(const char *path, const uint8_t *data, size_t len, const char **what,
		     bool *kept)
{
	struct stat st;
	char real[PATH_MAX], tmp[PATH_MAX + 16];
	int e = 0;

	*what = "cannot write";
	*kept = false;
	/* over a file-size limit: EFBIG from write() rather than death by SIGXFSZ */
	signal(SIGXFSZ, SIG_IGN);
	if (!path || strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
		FILE *f = path && strcmp(path, "-") != 0 ? fopen(path, "wb") : stdout;
		if (!f)
			return *what = "cannot open", errno;
		errno = 0;
		if (fwrite(data, 1, len, f) != len)
			e = errno ? errno : EIO;
		if ((f != stdout ? fclose(f) != 0 : !cli_flush()) && !e)
			e = errno ? errno : EIO;
		return e;
	}
	*kept = true;
	bool exists = realpath(path, real) != NULL;
	if (!exists)
		snprintf(real, sizeof(real), "%s", path);
	const char *slash = strrchr(real, '/');
	int dl = slash ? (int)(slash - real + 1) : 0;
	snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", dl, real, slash ? slash + 1 : real);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return *what = "cannot create a temporary file for", errno;
	/* the mode a new file would get (0666 less the umask), or the old file's */
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~um)) != 0)
		e = errno;
	for (size_t off = 0; !e && off < len;) {
		ssize_t k = write(fd, data + off, len - off);
		if (k < 0 && errno != EINTR)
			e = errno;
		else if (k > 0)
			off += (size_t)k;
	}
	if (!e && fsync(fd) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, real) != 0)
		e = errno;
	if (e)
		unlink(tmp);
	return e;
}

static int find_dev(struct cli *cli, offload_ctx *ctx, const char *name)
{
	if (!name)
		return OFFLOAD_DEV_AUTO;
	int d = cli_dev_find(ctx, name);
	if (d < 0)
		cli_fail(cli, ctx, "--device", d);
	return d;
}

/* ------------------------------------------------------------ enc / dec */

static const struct {
	const char *name;
	enum offload_cipher_alg alg;
	size_t key_len, iv_len;
} ciphers[] = {
	{ "aes-128-ecb", OFFLOAD_CIPHER_AES_ECB, 16, 0 },  { "aes-192-ecb", OFFLOAD_CIPHER_AES_ECB, 24, 0 },
	{ "aes-256-ecb", OFFLOAD_CIPHER_AES_ECB, 32, 0 },  { "aes-128-cbc", OFFLOAD_CIPHER_AES_CBC, 16, 16 },
	{ "aes-192-cbc", OFFLOAD_CIPHER_AES_CBC, 24, 16 }, { "aes-256-cbc", OFFLOAD_CIPHER_AES_CBC, 32, 16 },
	{ "aes-128-ctr", OFFLOAD_CIPHER_AES_CTR, 16, 16 }, { "aes-192-ctr", OFFLOAD_CIPHER_AES_CTR, 24, 16 },
	{ "aes-256-ctr", OFFLOAD_CIPHER_AES_CTR, 32, 16 }, { "des-ecb", OFFLOAD_CIPHER_DES_ECB, 8, 0 },
	{ "des-ede3-cbc", OFFLOAD_CIPHER_DES3_CBC, 24, 8 },
};
#define KNOWN_CIPHERS "aes-{128,192,256}-{ecb,cbc,ctr}, des-ecb, des-ede3-cbc"

static int cipher_by_name(const char *n)
{
	if (n && n[0] == '-')
		n++;
	for (size_t i = 0; n && i < sizeof(ciphers) / sizeof(ciphers[0]); i++)
		if (strcasecmp(n, ciphers[i].name) == 0)
			return (int)i;
	return -1;
}

/* -K / -iv: exactly `want` bytes of hex. Returns false after printing the usage error. */
static bool hex_arg(const struct cli *cli, const char *opt, const char *hex, const char *cipher,
		    size_t want, uint8_t *out)
{
	long n = kat_unhex(hex, out, 32);

	if (n < 0 || (size_t)n != want) {
		cli_usage_error(cli, "%s: %s needs %zu bytes as %zu hex digits, got \"%s\"", opt, cipher,
				want, 2 * want, hex);
		return false;
	}
	return true;
}

/* What enc/dec were asked. */
struct crypt_args {
	enum offload_cipher_dir dir;
	const char *cname, *khex, *ivhex, *in, *out, *dev;
	bool verbose;
	int ci;                 /* index in ciphers[] once known */
	uint8_t key[32], iv[16];
};

static const struct option crypt_longopts[] = {
	{ "cipher", required_argument, NULL, 'c' }, { "K", required_argument, NULL, 'K' },
	{ "iv", required_argument, NULL, 'v' },     { "in", required_argument, NULL, 'i' },
	{ "out", required_argument, NULL, 'o' },    { "device", required_argument, NULL, 'D' },
	{ "nopad", no_argument, NULL, 'n' },        { "verbose", no_argument, NULL, 'V' },
	CLI_COMMON_LONGOPTS,                        { NULL, 0, NULL, 0 }
};

static void crypt_usage(const struct cli *cli, FILE *f)
{
	fprintf(f, "usage: %s %s -c CIPHER -K HEXKEY [-iv HEXIV] [-in FILE] [-out FILE] "
		"[--device NAME|INDEX] [-V]\n\nLike `openssl %s -nopad -K .. -iv ..`: no padding, so "
		"ECB/CBC input must be\na whole number of blocks. Ciphers:",
		cli->prog, cli->cmd, strcmp(cli->cmd, "dec") == 0 ? "enc -d" : "enc");
	for (size_t i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++)
		fprintf(f, " %s", ciphers[i].name);
	fprintf(f, "\n(AES-GCM is not offered: openssl enc has no AEAD mode to match.)\n"
		"-out FILE is replaced only when the whole output was written.\n"
		"-V prints the backend and driver that ran to stderr.\n\noptions:\n" CLI_COMMON_HELP);
}

static int crypt_opt(struct cli *cli, void *state, int c, const char *arg)
{
	struct crypt_args *a = state;

	switch (c) {
	case 'c': a->cname = arg; return 0;
	case 'K': a->khex = arg; return 0;
	case 'v': a->ivhex = arg; return 0;
	case 'i': a->in = arg; return 0;
	case 'o': a->out = arg; return 0;
	case 'D': a->dev = arg; return 0;
	case 'n': return 0; /* always: no padding */
	case 'V': a->verbose = true; return 0;
	default: return CLI_EXIT_USAGE;
	}
}

/* The cipher, key and IV the options name, decoded; CLI_CONTINUE or the usage error. */
static int crypt_settle(const struct cli *cli, struct crypt_args *a)
{
	if (!a->cname)
		return cli_usage_error(cli, "need -c CIPHER (" KNOWN_CIPHERS ")");
	int ci = cipher_by_name(a->cname);
	if (ci < 0 && strcasestr(a->cname, "gcm"))
		return cli_usage_error(cli, "%s: AES-GCM is not offered by enc/dec: openssl enc has no "
					    "AEAD mode whose output this could match (the library's "
					    "offload_cipher() does GCM; 'bench cipher -a aes-128-gcm' "
					    "measures it)", cli_text(a->cname));
	if (ci < 0)
		return cli_usage_error(cli, "unknown cipher '%s' (" KNOWN_CIPHERS ")", cli_text(a->cname));
	a->ci = ci;
	if (!a->khex)
		return cli_usage_error(cli, "need -K HEXKEY");
	if (!hex_arg(cli, "-K", a->khex, ciphers[ci].name, ciphers[ci].key_len, a->key))
		return CLI_EXIT_USAGE;
	if (ciphers[ci].iv_len && !a->ivhex)
		return cli_usage_error(cli, "%s needs -iv HEXIV (%zu bytes)", ciphers[ci].name,
				       ciphers[ci].iv_len);
	if (!ciphers[ci].iv_len && a->ivhex) {
		fprintf(stderr, "%s %s: warning: -iv is not used by %s\n", cli->prog, cli->cmd,
			ciphers[ci].name); /* as openssl enc says */
		a->ivhex = NULL;
	}
	if (a->ivhex && !hex_arg(cli, "-iv", a->ivhex, ciphers[ci].name, ciphers[ci].iv_len, a->iv))
		return CLI_EXIT_USAGE;
	return CLI_CONTINUE;
}

/* One operation over data in place on ctx; 0, or -1 after the message. */
static int crypt_run(struct cli *cli, offload_ctx *ctx, const struct crypt_args *a, uint8_t *data,
		     size_t len)
{
	const char *name = ciphers[a->ci].name;
	offload_cipher_session *s = NULL;
	struct offload_result res;
	int d = find_dev(cli, ctx, a->dev);

	if (d < 0 && d != OFFLOAD_DEV_AUTO)
		return -1;
	int r = offload_cipher_session_open_dev(ctx, d, ciphers[a->ci].alg, a->key,
						ciphers[a->ci].key_len, &s);
	if (r == 0) {
		struct offload_cipher_op op = { .dir = a->dir, .iv = a->ivhex ? a->iv : NULL,
						.iv_len = ciphers[a->ci].iv_len, .in = data, .out = data,
						.len = len, .result = &res };
		r = offload_cipher_session_run(s, &op, sizeof(op));
		offload_cipher_session_close(s);
	}
	if (r < 0) {
		cli_fail(cli, ctx, name, r);
		return -1;
	}
	if (a->verbose)
		fprintf(stderr, "%s: %zu bytes on %s (%s)\n", name, len, res.backend, cli_text(res.driver));
	return 0;
}

static int crypt_cmd(struct cli *cli, int argc, char **argv, enum offload_cipher_dir dir)
{
	static const struct cli_cmd cmd = {
		.shortopts = "c:K:V", .longopts = crypt_longopts, .long_only = true, .opt = crypt_opt,
		.help = crypt_usage, .max_operands = 1, .formats = 0,
	};
	struct crypt_args a = { .dir = dir };
	int rc = cli_parse(cli, &cmd, &a, argc, argv);

	/* `enc aes-128-cbc ...`: the cipher as the one operand */
	if (rc == CLI_CONTINUE && optind < argc) {
		if (a.cname)
			rc = cli_usage_error(cli, "unexpected argument '%s'", cli_text(argv[optind]));
		a.cname = argv[optind];
	}
	if (rc == CLI_CONTINUE)
		rc = crypt_settle(cli, &a);
	if (rc != CLI_CONTINUE) {
		explicit_bzero(a.key, sizeof(a.key));
		return rc;
	}
	size_t len;
	uint8_t *data = cli_read_all(a.in, CLI_MAX_INPUT, &len);
	offload_ctx *ctx = NULL;
	rc = CLI_EXIT_FAIL;
	if (!data) {
		cli_error(cli, "cannot read %s: %s", a.in ? cli_text(a.in) : "stdin", strerror(errno));
	} else if ((ctx = cli_open_ctx(cli)) && crypt_run(cli, ctx, &a, data, len) == 0) {
		const char *what;
		bool kept;
		int e = write_out(a.out, data, len, &what, &kept);
		if (e && (!a.out || strcmp(a.out, "-") == 0))
			cli_stdout_fail(cli, e);
		else if (e)
			cli_error(cli, "%s %s: %s%s", what, cli_text(a.out), strerror(e),
				  kept ? " (left as it was)" : "");
		else
			rc = CLI_EXIT_OK;
	}
	offload_ctx_free(ctx);
	explicit_bzero(a.key, sizeof(a.key));
	free(data);
	return rc;
}

int cmd_enc(struct cli *cli, int argc, char **argv)
{
	return crypt_cmd(cli, argc, argv, OFFLOAD_ENCRYPT);
}

int cmd_dec(struct cli *cli, int argc, char **argv)
{
	return crypt_cmd(cli, argc, argv, OFFLOAD_DECRYPT);
}

/* ------------------------------------------------------------ dgst */

static const struct {
	const char *opt, *label;
	enum offload_hash_alg alg;
} digests[] = {
	{ "md5", "MD5", OFFLOAD_HASH_MD5 },	     { "sha1", "SHA1", OFFLOAD_HASH_SHA1 },
	{ "sha224", "SHA2-224", OFFLOAD_HASH_SHA224 }, { "sha256", "SHA2-256", OFFLOAD_HASH_SHA256 },
	{ "sha384", "SHA2-384", OFFLOAD_HASH_SHA384 }, { "sha512", "SHA2-512", OFFLOAD_HASH_SHA512 },
};

static int hash_file(struct cli *cli, offload_hash_session *s, offload_ctx *ctx, const char *path,
		     const char *label, bool hmac, bool coreutils, bool verbose)
{
	/* a "-" here is a file named "-", as for openssl dgst (see cmd_dgst) */
	FILE *f = !path ? stdin : strcmp(path, "-") == 0 ? fopen(path, "rb") : cli_fopen_read(path);
	static uint8_t buf[65536];
	uint8_t d[OFFLOAD_HASH_MAX_DIGEST];
	struct offload_result res;
	size_t n;
	int r = 0;

	if (!f) {
		cli_error(cli, "cannot read %s: %s", cli_text(path), strerror(errno));
		return -1;
	}
	int err = 0;
	for (;;) {
		errno = 0;
		n = fread(buf, 1, sizeof(buf), f);
		if (n == 0) {
			err = ferror(f) ? (errno ? errno : EIO) : 0;
			break;
		}
		r = offload_hash_update(s, buf, n);
		if (r < 0)
			break;
	}
	if (f != stdin)
		fclose(f);
	if (r == 0 && err) {
		cli_error(cli, "cannot read %s: %s", path ? cli_text(path) : "stdin", strerror(err));
		offload_hash_final(s, d, sizeof(d), NULL); /* the next file starts a new message */
		return -1;
	}
	if (r == 0)
		r = offload_hash_final(s, d, sizeof(d), &res);
	if (r < 0) {
		cli_fail(cli, ctx, label, r);
		return -1;
	}
	if (!coreutils)
		printf("%s%s(%s)= ", hmac && path ? "HMAC-" : "", label, path ? path : "stdin");
	for (int i = 0; i < r; i++)
		printf("%02x", d[i]);
	if (coreutils)
		printf(" *%s", path ? path : "stdin");
	printf("\n");
	if (verbose)
		fprintf(stderr, "%s: %s (%s)\n", path ? cli_text(path) : "stdin", res.backend, cli_text(res.driver));
	return 0;
}

static const struct option dgst_longopts[] = {
	{ "md5", no_argument, NULL, 'a' + 0 },    { "sha1", no_argument, NULL, 'a' + 1 },
	{ "sha224", no_argument, NULL, 'a' + 2 }, { "sha256", no_argument, NULL, 'a' + 3 },
	{ "sha384", no_argument, NULL, 'a' + 4 }, { "sha512", no_argument, NULL, 'a' + 5 },
	{ "hmac", required_argument, NULL, 'H' }, { "r", no_argument, NULL, 'r' },
	{ "device", required_argument, NULL, 'D' }, { "verbose", no_argument, NULL, 'V' },
	CLI_COMMON_LONGOPTS,                      { NULL, 0, NULL, 0 }
};

/* What dgst was asked. */
struct dgst_args {
	const char *hkey, *dev;
	int di;                 /* index in digests[] */
	bool coreutils, verbose, chosen;
};

static void dgst_usage(const struct cli *cli, FILE *f)
{
	fprintf(f, "usage: %s dgst [-md5|-sha1|-sha224|-sha256|-sha384|-sha512] [-hmac KEY] [-r] "
		"[--device NAME|INDEX] [-V] [FILE...]\n\nLike `openssl dgst`: one line per file (stdin if "
		"none); -hmac takes the key as text,\n-r prints coreutils format. Default -sha256.\n\n"
		"options:\n" CLI_COMMON_HELP, cli->prog);
}

static int dgst_opt(struct cli *cli, void *state, int c, const char *arg)
{
	struct dgst_args *a = state;

	if (c >= 'a' && c <= 'a' + 5) {
		a->di = c - 'a';
		a->chosen = true;
		return 0;
	}
	switch (c) {
	case 'H': a->hkey = arg; return 0;
	case 'r': a->coreutils = true; return 0;
	case 'D': a->dev = arg; return 0;
	case 'V': a->verbose = true; return 0;
	default: return CLI_EXIT_USAGE;
	}
}

int cmd_dgst(struct cli *cli, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.shortopts = "V", .longopts = dgst_longopts, .long_only = true, .opt = dgst_opt,
		.help = dgst_usage, .max_operands = -1, .formats = 0,
	};
	struct dgst_args a = { .di = 3 };
	offload_ctx *ctx;
	int rc = cli_parse(cli, &cmd, &a, argc, argv);

	if (rc != CLI_CONTINUE)
		return rc;
	/*
	 * openssl dgst (3.0 opt_next) ends its options at a lone "-" as at "--":
	 * `dgst -` reads stdin, `dgst - FILE` hashes FILE. A "-" after a file or
	 * after "--" stays a file named "-".
	 */
	if (optind < argc && strcmp(argv[optind], "-") == 0 && strcmp(argv[optind - 1], "--") != 0)
		optind++;
	if (!(ctx = cli_open_ctx(cli)))
		return CLI_EXIT_FAIL;
	enum offload_hash_alg alg = digests[a.di].alg;
	/* openssl dgst names its default "SHA256" and an explicit -sha256 "SHA2-256" */
	const char *label = a.chosen ? digests[a.di].label : "SHA256";
	if (a.hkey)
		alg = (enum offload_hash_alg)(alg | 0x100);
	offload_hash_session *s = NULL;
	int d = find_dev(cli, ctx, a.dev);
	rc = CLI_EXIT_FAIL;
	if (d >= 0 || d == OFFLOAD_DEV_AUTO) {
		int r = offload_hash_open_dev(ctx, d, alg, a.hkey, a.hkey ? strlen(a.hkey) : 0, &s);
		if (r < 0)
			cli_fail(cli, ctx, label, r);
		else
			rc = CLI_EXIT_OK;
	}
	if (s && optind >= argc)
		rc = hash_file(cli, s, ctx, NULL, label, a.hkey, a.coreutils, a.verbose) ? CLI_EXIT_FAIL : rc;
	for (int i = optind; s && i < argc; i++)
		if (hash_file(cli, s, ctx, argv[i], label, a.hkey, a.coreutils, a.verbose))
			rc = CLI_EXIT_FAIL;
	if (s)
		offload_hash_close(s);
	offload_ctx_free(ctx);
	return rc;
}
