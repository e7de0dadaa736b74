/* SPDX-License-Identifier: MIT */
/* offloadctl: options and helpers shared by every command. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The library's allow-list capacity (the backends are the library's: offload_backend_name()). */
#define ALLOW_LIST_MAX 255

static bool backend_known(const char *name, size_t n)
{
	const char *b;

	for (unsigned i = 0; (b = offload_backend_name(i)); i++)
		if (strlen(b) == n && strncmp(b, name, n) == 0)
			return true;
	return false;
}

bool cli_backends_ok(const struct cli *cli, const char *opt, const char *list)
{
	const char *who = cli->cmd ? cli->cmd : "";

	if (strlen(list) > ALLOW_LIST_MAX) {
		fprintf(stderr, "%s%s%s: %s: the list is %zu characters long; at most %d\n", cli->prog,
			who[0] ? " " : "", who, opt, strlen(list), ALLOW_LIST_MAX);
		return false;
	}
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ", ");
		if (n && !backend_known(p, n)) {
			fprintf(stderr, "%s%s%s: %s: unknown backend '%.*s' (known:", cli->prog,
				who[0] ? " " : "", who, opt, (int)n, p);
			const char *b;
			for (unsigned i = 0; (b = offload_backend_name(i)); i++)
				fprintf(stderr, "%s %s", i ? "," : "", b);
			fprintf(stderr, ")\n");
			return false;
		}
		p += n + (p[n] != '\0');
	}
	return true;
}

const struct option cli_common_longopts[] = { CLI_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };

bool cli_common_opt(struct cli *cli, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_DTB:
		cli->dtb = arg;
		return true;
	case CLI_OPT_SIM:
		cli->sim = true;
		return true;
	case CLI_OPT_SIM_TRACE:
		/* --sim-trace FILE: read by liboffload-sim when a context's models are created (every context) */
		if (setenv("OFFLOAD_SIM_TRACE", arg, 1) < 0) {
			cli_error(cli, "--sim-trace: %s", strerror(errno));
			return false;
		}
		return true;
	case CLI_OPT_BACKENDS:
		cli->backends = arg;
		return cli_backends_ok(cli, "--backends", arg);
	case CLI_OPT_JSON:
		cli->json = true;
		return true;
	case CLI_OPT_CSV:
		cli->csv = true;
		return true;
	default:
		return false;
	}
}

/* A device-tree choice as --dtb and OFFLOAD_DTB spell it: none | live | builtin | FILE. */
static void set_dt(struct offload_ctx_opts *o, const char *dtb)
{
	if (strcmp(dtb, "none") == 0) {
		o->dt_source = OFFLOAD_DT_NONE;
	} else if (strcmp(dtb, "live") == 0) {
		o->dt_source = OFFLOAD_DT_LIVE;
	} else if (strcmp(dtb, "builtin") == 0) {
		o->dt_source = OFFLOAD_DT_BUILTIN;
	} else {
		o->dt_source = OFFLOAD_DT_FILE;
		o->dtb_path = dtb;
	}
}

offload_ctx *cli_open_ctx(struct cli *cli)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	if (!ctx) {
		fprintf(stderr, "%s %s: out of memory\n", cli->prog, cli->cmd);
		return NULL;
	}
	/*
	 * Command-line options beat the environment, which beats the defaults.
	 * The library lets the environment win over its options, so a variable
	 * the command line replaces is removed; the rest (and OFFLOAD_SIM's
	 * on/off rule) the library reads itself.
	 */
	offload_ctx_opts_init(&o);
	if (cli->dtb) {
		unsetenv("OFFLOAD_DTB");
		set_dt(&o, cli->dtb);
	}
	if (cli->backends) {
		unsetenv("OFFLOAD_BACKENDS");
		o.backends = cli->backends;
	}
	if (cli->sim)
		o.flags |= OFFLOAD_CTX_SIM;
#ifdef OFFLOAD_HAVE_SIM
	o.sim_provider = offload_sim_provider(); /* the models, as offloadctl always had them */
#endif
	int r = offload_ctx_open(ctx, &o);
	if (r < 0) {
		cli_fail(cli, ctx, "cannot open context", r);
		offload_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

/* ------------------------------------------------------------ text */

/*
 * Length of the well-formed UTF-8 sequence of two to four bytes at p, or 0
 * (an ASCII byte, a stray continuation byte, an overlong form, a surrogate,
 * beyond U+10FFFF, or a sequence cut short). Unicode 15, table 3-7.
 */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (n && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) ||
		  (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f)))
		return 0;
	return n;
}

/* A C1 control (U+0080..U+009F, which some terminals act on), as UTF-8 at p. */
static bool is_c1(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

/*
 * Length of the printable character at p: a byte from 0x20 to 0x7e, or a
 * well-formed UTF-8 sequence that is not a C1 control. 0 for anything else.
 */
static size_t printable_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return p[0] >= 0x20 && p[0] != 0x7f;
	return is_c1(p) ? 0 : utf8_len(p);
}

const char *cli_text(const char *s)
{
	static struct {
		char *buf;
		size_t cap;
	} ring[8];
	static unsigned next;

	if (!s)
		return "";
	size_t need = 4 * strlen(s) + 1;
	unsigned k = next++ % 8;
	if (ring[k].cap < need) {
		char *b = realloc(ring[k].buf, need);
		if (!b)
			return "(out of memory)";
		ring[k].buf = b;
		ring[k].cap = need;
	}
	char *o = ring[k].buf;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = printable_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			o += sprintf(o, "\\x%02x", *p++);
		}
	}
	*o = '\0';
	return ring[k].buf;
}

void cli_print_absent(offload_ctx *ctx, uint32_t caps, bool json)
{
	bool first = true;
	const char *name;

	for (unsigned i = 0; (name = offload_backend_name(i)); i++) {
		const char *why = NULL;
		if (caps && !(offload_backend_caps(i) & caps))
			continue;
		if (offload_backend_status(ctx, name, &why) != 0)
			continue;
		if (json) {
			printf("%s{\"backend\": \"%s\", \"reason\": ", first ? "" : ", ", name);
			cli_json_str(stdout, why);
			printf("}");
			first = false;
		} else {
			printf("backend %s: absent: %s\n", name, why && why[0] ? why : "no reason given");
		}
	}
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		size_t n = *p < 0x80 ? 1 : utf8_len(p);
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else if (n == 2 && is_c1(p)) {
			fprintf(f, "\\u%04x", p[1]); /* U+0080..U+009F: the second byte is the code point */
		} else if (n == 0) {
			fputs("\\ufffd", f);
			n = 1;
		} else {
			fwrite(p, 1, n, f);
		}
		p += n;
	}
	fputc('"', f);
}

void cli_csv_field(FILE *f, const char *raw, bool last)
{
	const char *v = cli_text(raw);

	if (strpbrk(v, ",\"\r\n")) {
		fputc('"', f);
		for (const char *p = v; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	} else {
		fputs(v, f);
	}
	fputc(last ? '\n' : ',', f);
}

/* A sentence went to stderr (cli_said_why()). */
static bool said;

bool cli_said_why(void)
{
	return said;
}

/* "prog cmd: " (or "prog: " before a command is known) on stderr. */
static void prefix(const struct cli *cli)
{
	said = true;
	fprintf(stderr, "%s%s%s: ", cli->prog, cli->cmd ? " " : "", cli->cmd ? cli->cmd : "");
}

void cli_fail(const struct cli *cli, offload_ctx *ctx, const char *what, int err)
{
	const char *msg = offload_last_error(ctx);

	prefix(cli);
	fprintf(stderr, "%s: %s\n", what, msg[0] ? msg : offload_strerror(err));
}

void cli_error_line(const char *text)
{
	said = true;
	fputs(text, stderr);
}

/* "prog cmd: <message>" without its end: cli_error() and cli_usage_error() add theirs. */
static void say(const struct cli *cli, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void say(const struct cli *cli, const char *fmt, va_list ap)
{
	prefix(cli);
	vfprintf(stderr, fmt, ap);
}

int cli_error(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(cli, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

bool cli_operands_ok(const struct cli *cli, int argc, char **argv, int max_operands,
		     unsigned formats)
{
	if (argc - optind > max_operands) {
		cli_usage_error(cli, "unexpected argument '%s'", argv[optind + max_operands]);
		return false;
	}
	if ((cli->json && !(formats & CLI_FMT_JSON)) || (cli->csv && !(formats & CLI_FMT_CSV))) {
		cli_usage_error(cli, "--%s is not offered by this command", cli->json ? "json" : "csv");
		return false;
	}
	if (cli->json && cli->csv) {
		cli_usage_error(cli, "give --json or --csv, not both");
		return false;
	}
	return true;
}

int cli_usage_error(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(cli, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s%s%s --help')\n", cli->prog, cli->cmd ? " " : "",
		cli->cmd ? cli->cmd : "");
	return CLI_EXIT_USAGE;
}

/* ------------------------------------------------------------ the command preamble */

/* What getopt found wrong in argv: the option as the user wrote it. */
static int bad_option(const struct cli *cli, const struct cli_cmd *cmd, int c, char **argv)
{
	char shortname[3] = { '-', (char)optopt, '\0' };
	/* a short option is named alone (it may sit in a cluster: "-xv"), a long one as written */
	const char *name = optopt > 0 && optopt < 0x100 && !cmd->long_only ? shortname : argv[optind - 1];

	if (c == ':')
		return cli_usage_error(cli, "option '%s' needs a value", cli_text(name));
	return cli_usage_error(cli, "unknown option '%s'", cli_text(name));
}

int cli_parse(struct cli *cli, const struct cli_cmd *cmd, void *state, int argc, char **argv)
{
	char shortopts[64];
	int c;

	/* ':' first: a missing value is told apart from an unknown option, and getopt stays quiet */
	snprintf(shortopts, sizeof(shortopts), ":%sh", cmd->shortopts ? cmd->shortopts : "");
	opterr = 0;
	optind = 0; /* a full reset: a command may run more than once in a process (the tests) */
	for (;;) {
		c = cmd->long_only ? getopt_long_only(argc, argv, shortopts, cmd->longopts, NULL)
				   : getopt_long(argc, argv, shortopts, cmd->longopts, NULL);
		if (c == -1)
			break;
		if (c == 'h') {
			cmd->help(cli, stdout);
			return CLI_EXIT_OK;
		}
		if (c == '?' || c == ':')
			return bad_option(cli, cmd, c, argv);
		if (c >= CLI_OPT_COMMON_FIRST && c < CLI_OPT_COMMAND_FIRST) {
			if (!cli_common_opt(cli, c, optarg))
				return CLI_EXIT_USAGE;
			continue;
		}
		int r = cmd->opt ? cmd->opt(cli, state, c, optarg) : CLI_EXIT_USAGE;
		if (r != 0)
			return r;
	}
	if (!cli_operands_ok(cli, argc, argv, cmd->max_operands < 0 ? argc : cmd->max_operands,
			     cmd->formats))
		return CLI_EXIT_USAGE;
	return CLI_CONTINUE;
}

int cli_begin(struct cli *cli, const struct cli_cmd *cmd, void *state, int argc, char **argv,
	      offload_ctx **ctx)
{
	int r = cli_parse(cli, cmd, state, argc, argv);

	*ctx = NULL;
	if (r != CLI_CONTINUE)
		return r;
	*ctx = cli_open_ctx(cli);
	return *ctx ? CLI_CONTINUE : CLI_EXIT_FAIL;
}

/* The first error a flush of stdout met (cli_flush()), for cli_finish()'s sentence. */
static int stdout_errno;

bool cli_flush(void)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	if (!stdout_errno)
		stdout_errno = errno;
	return false;
}

bool cli_stdout_failed(void)
{
	return ferror(stdout) != 0;
}

/* Said once: a later flush of the same failed stream must not say it again. */
static bool stdout_said;

int cli_stdout_fail(const struct cli *cli, int err)
{
	if (!stdout_said)
		cli_error(cli, "cannot write to standard output: %s", err ? strerror(err)
			  : "an earlier write failed (disk full, or the reader went away)");
	stdout_said = true;
	return CLI_EXIT_FAIL;
}

int cli_finish(const struct cli *cli, int rc)
{
	bool failed = !cli_flush();
	int e = stdout_errno;

	if (fclose(stdout) != 0 && !failed) {
		failed = true;
		e = errno;
	}
	if (failed) {
		cli_stdout_fail(cli, e);
		return rc == CLI_EXIT_OK ? CLI_EXIT_FAIL : rc;
	}
	return rc;
}

/* ------------------------------------------------------------ files, trees, devices */

FILE *cli_fopen_read(const char *path)
{
	struct stat st;

	if (!path || strcmp(path, "-") == 0)
		return stdin;
	FILE *f = fopen(path, "rb");
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	return f;
}

uint8_t *cli_read_all(const char *path, size_t max, size_t *len)
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
		if (k == 0 || n > max)
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
	if (b && (err || n > max)) {
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

uint32_t cli_ctx_flags(const offload_ctx *ctx)
{
	uint32_t f;

	return offload_ctx_get_flags(ctx, &f) == 0 ? f : 0;
}

const char *cli_dt_note(offload_ctx *ctx)
{
	uint32_t f = cli_ctx_flags(ctx);
	const char *src = offload_ctx_dt_source(ctx);

	if (f & OFFLOAD_CTX_DT_FALLBACK)
		return (f & OFFLOAD_CTX_SIM)
			       ? "no device tree on this machine: showing the built-in virtual board, whose "
				 "engines are simulated (labelled sim); --sim: the simulated engines serve "
				 "operations"
			       : "no device tree on this machine: showing the built-in virtual board "
				 "(simulated engines, labelled sim); operations run on the CPU unless --sim";
	if (src && strncmp(src, "builtin:", 8) == 0)
		return "the built-in virtual board: every engine is simulated (labelled sim), "
		       "nothing here describes this machine's hardware";
	if (f & OFFLOAD_CTX_SIM)
		return "--sim: the engines of this device tree are served by register-level models "
		       "(labelled sim); their results are not hardware figures";
	return "";
}

int cli_dev_find(offload_ctx *ctx, const char *s)
{
	struct offload_dev_info info;
	size_t n = s ? strspn(s, "0123456789") : 0;

	if (n == 0 || n > 4 || s[n])
		return offload_dev_find(ctx, s);
	int d = atoi(s);
	int r = offload_dev_get_info(ctx, d, &info, sizeof(info));
	return r < 0 ? r : d;
}
