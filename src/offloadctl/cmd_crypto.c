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
	printf("alg: %-12s (%s) on %s/%s: %s [%s]%s%s%s\n", o->alg, o->driver[0] ? o->driver : "-",
	       t->dev, t->backend, word[o->status], o->source,
	       sw ? " (in software on the CPU, not the engine)" : "", o->detail[0] ? ": " : "",
	       o->detail);
}

int cmd_selftest(struct cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = { CLI_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: %s selftest [OPTIONS]\n\nRun every known-answer vector (NIST "
			       "SP 800-38A/38D, FIPS 180-4, FIPS 81,\nRFC 1321/2202/4231, CAVP TDES) on "
			       "every crypto device, like the kernel's testmgr.\nExit 1 if any vector "
			       "fails.\n\noptions:\n" CLI_COMMON_HELP, cli->prog);
			return CLI_EXIT_OK;
		}
		if (!cli_common_opt(cli, c, optarg))
			return CLI_EXIT_USAGE;
	}
	if (!cli_operands_ok(cli, argc, argv, 0, CLI_FMT_JSON))
		return CLI_EXIT_USAGE;
	offload_ctx *ctx = cli_open_ctx(cli);
	if (!ctx)
		return CLI_EXIT_FAIL;
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
		t.dev = d.name;
		t.backend = d.backend;
		t.cpu_dev = strcmp(d.backend, "cpu") == 0;
		t.pass = t.fail = t.na = t.sw_pass = t.sim = 0;
		failed += kat_run_device(ctx, i, st_report, &t);
		devices++;
		if (!cli->json) {
			char sw[96] = "";
			if (t.sw_pass)
				snprintf(sw, sizeof(sw), " (%d on the %s, %d in software on the CPU)",
					 t.pass - t.sw_pass, t.sim ? "model" : "engine", t.sw_pass);
			printf("%s/%s%s: %d passed%s, %d failed, %d not implemented\n", d.name, d.backend,
			       (d.flags & OFFLOAD_DEVF_SIM) ? " [sim: a model, not hardware]" : "", t.pass, sw,
			       t.fail, t.na);
		}
	}
	if (cli->json)
		printf("\n  ],\n  \"devices\": %d,\n  \"failed\": %d\n}\n", devices, failed);
	else if (!devices)
		printf("no crypto device in this context\n");
	offload_ctx_free(ctx);
	return failed || !devices ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* ------------------------------------------------------------ shared I/O */

/* The whole of path (NULL or "-": stdin); NULL with errno set on failure. */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = cli_fopen_read(path);
	size_t cap = 65536, n = 0;
	uint8_t *b;
	int err = 0;

	if (!f)
		return NULL;
	b = malloc(cap);
	while (b) {
		errno = 0;
		size_t k = fread(b + n, 1, cap - n, f);
		n += k;
		if (k == 0 && ferror(f))
			err = errno ? errno : EIO;
		if (k == 0 || n > CLI_MAX_INPUT)
			break;
		if (n == cap) {
			uint8_t *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (!b && !err)
		err = ENOMEM;
	if (b && (err || n > CLI_MAX_INPUT)) {
		free(b);
		b = NULL;
		if (!err)
			err = EFBIG;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	errno = err;
	return b;
}

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
		if ((f != stdout ? fclose(f) : fflush(f)) != 0 && !e)
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

static int crypt_cmd(struct cli *cli, int argc, char **argv, enum offload_cipher_dir dir)
{
	static const struct option longopts[] = {
		{ "cipher", required_argument, NULL, 'c' }, { "K", required_argument, NULL, 'K' },
		{ "iv", required_argument, NULL, 'v' },     { "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },    { "device", required_argument, NULL, 'D' },
		{ "nopad", no_argument, NULL, 'n' },        { "verbose", no_argument, NULL, 'V' },
		CLI_COMMON_LONGOPTS,                        { NULL, 0, NULL, 0 }
	};
	const char *cname = NULL, *khex = NULL, *ivhex = NULL, *in = NULL, *outp = NULL, *dev = NULL;
	bool verbose = false;
	int c;

	while ((c = getopt_long_only(argc, argv, "c:K:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': cname = optarg; break;
		case 'K': khex = optarg; break;
		case 'v': ivhex = optarg; break;
		case 'i': in = optarg; break;
		case 'o': outp = optarg; break;
		case 'D': dev = optarg; break;
		case 'n': break; /* always: no padding */
		case 'V': verbose = true; break;
		case 'h':
			printf("usage: %s %s -c CIPHER -K HEXKEY [-iv HEXIV] [-in FILE] [-out FILE] "
			       "[--device NAME|INDEX] [-V]\n\nLike `openssl %s -nopad -K .. -iv ..`: no "
			       "padding, so ECB/CBC input must be\na whole number of blocks. Ciphers:",
			       cli->prog, cli->cmd, dir == OFFLOAD_ENCRYPT ? "enc" : "enc -d");
			for (size_t i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++)
				printf(" %s", ciphers[i].name);
			printf("\n(AES-GCM is not offered: openssl enc has no AEAD mode to match.)\n"
			       "-out FILE is replaced only when the whole output was written.\n"
			       "-V prints the backend and driver that ran to stderr.\n\noptions:\n"
			       CLI_COMMON_HELP);
			return CLI_EXIT_OK;
		default:
			if (!cli_common_opt(cli, c, optarg))
				return CLI_EXIT_USAGE;
		}
	}
	/* `enc aes-128-cbc ...`: the cipher as the one operand */
	if (!cname && optind < argc)
		cname = argv[optind++];
	if (!cli_operands_ok(cli, argc, argv, 0, 0))
		return CLI_EXIT_USAGE;
	if (!cname)
		return cli_usage_error(cli, "need -c CIPHER (" KNOWN_CIPHERS ")");
	int ci = cipher_by_name(cname);
	if (ci < 0 && strcasestr(cname, "gcm"))
		return cli_usage_error(cli, "%s: AES-GCM is not offered by enc/dec: openssl enc has no "
					    "AEAD mode whose output this could match (the library's "
					    "offload_cipher() does GCM; 'bench cipher -a aes-128-gcm' "
					    "measures it)", cname);
	if (ci < 0)
		return cli_usage_error(cli, "unknown cipher '%s' (" KNOWN_CIPHERS ")", cname);
	if (!khex)
		return cli_usage_error(cli, "need -K HEXKEY");
	uint8_t key[32], iv[16];
	if (!hex_arg(cli, "-K", khex, ciphers[ci].name, ciphers[ci].key_len, key))
		return CLI_EXIT_USAGE;
	if (ciphers[ci].iv_len && !ivhex)
		return cli_usage_error(cli, "%s needs -iv HEXIV (%zu bytes)", ciphers[ci].name,
				       ciphers[ci].iv_len);
	if (!ciphers[ci].iv_len && ivhex) {
		fprintf(stderr, "%s %s: warning: -iv is not used by %s\n", cli->prog, cli->cmd,
			ciphers[ci].name); /* as openssl enc says */
		ivhex = NULL;
	}
	if (ivhex && !hex_arg(cli, "-iv", ivhex, ciphers[ci].name, ciphers[ci].iv_len, iv))
		return CLI_EXIT_USAGE;
	size_t len;
	uint8_t *data = read_all(in, &len);
	if (!data) {
		fprintf(stderr, "%s %s: cannot read %s: %s\n", cli->prog, cli->cmd, in ? in : "stdin",
			strerror(errno));
		explicit_bzero(key, sizeof(key));
		return CLI_EXIT_FAIL;
	}
	offload_ctx *ctx = cli_open_ctx(cli);
	int rc = CLI_EXIT_FAIL;
	offload_cipher_session *s = NULL;
	if (!ctx)
		goto out;
	int d = find_dev(cli, ctx, dev);
	if (d < 0 && d != OFFLOAD_DEV_AUTO)
		goto out;
	int r = offload_cipher_session_open_dev(ctx, d, ciphers[ci].alg, key, ciphers[ci].key_len, &s);
	if (r < 0) {
		cli_fail(cli, ctx, ciphers[ci].name, r);
		goto out;
	}
	struct offload_result res;
	struct offload_cipher_op op = { .dir = dir, .iv = ivhex ? iv : NULL,
					.iv_len = ciphers[ci].iv_len, .in = data, .out = data,
					.len = len, .result = &res };
	r = offload_cipher_session_run(s, &op, sizeof(op));
	if (r < 0) {
		cli_fail(cli, ctx, ciphers[ci].name, r);
		goto out;
	}
	if (verbose)
		fprintf(stderr, "%s: %zu bytes on %s (%s)\n", ciphers[ci].name, len, res.backend,
			res.driver);
	const char *what;
	bool kept;
	int e = write_out(outp, data, len, &what, &kept);
	if (e) {
		fprintf(stderr, "%s %s: %s %s: %s%s\n", cli->prog, cli->cmd, what,
			outp ? outp : "stdout", strerror(e), kept ? " (left as it was)" : "");
		goto out;
	}
	rc = CLI_EXIT_OK;
out:
	if (s)
		offload_cipher_session_close(s);
	offload_ctx_free(ctx);
	explicit_bzero(key, sizeof(key));
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
		fprintf(stderr, "%s dgst: cannot read %s: %s\n", cli->prog, path, strerror(errno));
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
		fprintf(stderr, "%s dgst: cannot read %s: %s\n", cli->prog, path ? path : "stdin",
			strerror(err));
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
		fprintf(stderr, "%s: %s (%s)\n", path ? path : "stdin", res.backend, res.driver);
	return 0;
}

int cmd_dgst(struct cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "md5", no_argument, NULL, 'a' + 0 },    { "sha1", no_argument, NULL, 'a' + 1 },
		{ "sha224", no_argument, NULL, 'a' + 2 }, { "sha256", no_argument, NULL, 'a' + 3 },
		{ "sha384", no_argument, NULL, 'a' + 4 }, { "sha512", no_argument, NULL, 'a' + 5 },
		{ "hmac", required_argument, NULL, 'H' }, { "r", no_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'D' }, { "verbose", no_argument, NULL, 'V' },
		CLI_COMMON_LONGOPTS,                      { NULL, 0, NULL, 0 }
	};
	const char *hkey = NULL, *dev = NULL;
	int di = 3, c;
	bool coreutils = false, verbose = false, chosen = false;

	while ((c = getopt_long_only(argc, argv, "hV", longopts, NULL)) != -1) {
		if (c >= 'a' && c <= 'a' + 5) {
			di = c - 'a';
			chosen = true;
		} else if (c == 'H') {
			hkey = optarg;
		} else if (c == 'r') {
			coreutils = true;
		} else if (c == 'D') {
			dev = optarg;
		} else if (c == 'V') {
			verbose = true;
		} else if (c == 'h') {
			printf("usage: %s dgst [-md5|-sha1|-sha224|-sha256|-sha384|-sha512] [-hmac KEY] "
			       "[-r] [--device NAME|INDEX] [-V] [FILE...]\n\nLike `openssl dgst`: one line "
			       "per file (stdin if none); -hmac takes the key as text,\n-r prints "
			       "coreutils format. Default -sha256.\n\noptions:\n" CLI_COMMON_HELP,
			       cli->prog);
			return CLI_EXIT_OK;
		} else if (!cli_common_opt(cli, c, optarg)) {
			return CLI_EXIT_USAGE;
		}
	}
	if (!cli_operands_ok(cli, argc, argv, argc, 0))
		return CLI_EXIT_USAGE;
	/*
	 * openssl dgst (3.0 opt_next) ends its options at a lone "-" as at "--":
	 * `dgst -` reads stdin, `dgst - FILE` hashes FILE. A "-" after a file or
	 * after "--" stays a file named "-".
	 */
	if (optind < argc && strcmp(argv[optind], "-") == 0 && strcmp(argv[optind - 1], "--") != 0)
		optind++;
	offload_ctx *ctx = cli_open_ctx(cli);
	if (!ctx)
		return CLI_EXIT_FAIL;
	enum offload_hash_alg alg = digests[di].alg;
	/* openssl dgst names its default "SHA256" and an explicit -sha256 "SHA2-256" */
	const char *label = chosen ? digests[di].label : "SHA256";
	if (hkey)
		alg = (enum offload_hash_alg)(alg | 0x100);
	int rc = CLI_EXIT_FAIL;
	offload_hash_session *s = NULL;
	int d = find_dev(cli, ctx, dev);
	if (d < 0 && d != OFFLOAD_DEV_AUTO)
		goto out;
	int r = offload_hash_open_dev(ctx, d, alg, hkey, hkey ? strlen(hkey) : 0, &s);
	if (r < 0) {
		cli_fail(cli, ctx, label, r);
		goto out;
	}
	rc = CLI_EXIT_OK;
	if (optind >= argc)
		rc = hash_file(cli, s, ctx, NULL, label, hkey, coreutils, verbose) ? 1 : 0;
	for (int i = optind; i < argc; i++)
		if (hash_file(cli, s, ctx, argv[i], label, hkey, coreutils, verbose))
			rc = CLI_EXIT_FAIL;
out:
	if (s)
		offload_hash_close(s);
	offload_ctx_free(ctx);
	return rc;
}
