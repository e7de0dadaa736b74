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

bool cli_common_opt(struct cli *cli, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_DTB:
		cli->dtb = arg;
		return true;
	case CLI_OPT_SIM:
		cli->sim = true;
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
	int r = offload_ctx_open(ctx, &o);
	if (r < 0) {
		cli_fail(cli, ctx, "cannot open context", r);
		offload_ctx_free(ctx);
		return NULL;
	}
	return ctx;
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
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void cli_fail(const struct cli *cli, offload_ctx *ctx, const char *what, int err)
{
	const char *msg = offload_last_error(ctx);

	fprintf(stderr, "%s %s: %s: %s\n", cli->prog, cli->cmd ? cli->cmd : "", what,
		msg[0] ? msg : offload_strerror(err));
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

	fprintf(stderr, "%s %s: ", cli->prog, cli->cmd ? cli->cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s %s --help')\n", cli->prog, cli->cmd ? cli->cmd : "");
	return CLI_EXIT_USAGE;
}

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

bool cli_parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0))
		return false;
	if (strcmp(end, "ms") == 0)
		v /= 1000.0;
	else if (*end && strcmp(end, "s") != 0)
		return false;
	if (!(v <= max))
		return false;
	*out = v;
	return true;
}

/*
 * Length of the printable character at p: a byte from 0x20 to 0x7e, or a
 * well-formed UTF-8 sequence that is not a C1 control (U+0080..U+009F,
 * which some terminals act on). 0 for anything else.
 */
static size_t printable_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
		 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	if (n == 1)
		return c >= 0x20 && c != 0x7f;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xc2 && p[1] < 0xa0) || (c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0; /* C1 control, overlong form, surrogate, beyond U+10FFFF */
	return n;
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
