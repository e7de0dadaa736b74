/* SPDX-License-Identifier: MIT */
/* offloadctl: options and helpers shared by every command. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The library's backend names (offload_backend_status()) and its allow-list capacity. */
static const char *const backend_names[] = { "cpu", "kcapi", "spidev", "udma", "dspi", "eip97" };
#define ALLOW_LIST_MAX 255

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
		bool known = n == 0;
		for (size_t i = 0; !known && i < sizeof(backend_names) / sizeof(backend_names[0]); i++)
			known = strlen(backend_names[i]) == n && strncmp(backend_names[i], p, n) == 0;
		if (!known) {
			fprintf(stderr, "%s%s%s: %s: unknown backend '%.*s' (known: cpu, kcapi, "
					"spidev, udma, dspi, eip97)\n",
				cli->prog, who[0] ? " " : "", who, opt, (int)n, p);
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
	 * Command-line options beat the environment, which beats the defaults;
	 * the library lets the environment win, so read it here instead.
	 */
	const char *env_dtb = getenv("OFFLOAD_DTB");
	const char *env_be = getenv("OFFLOAD_BACKENDS");
	const char *env_sim = getenv("OFFLOAD_SIM");

	offload_ctx_opts_init(&o);
	o.flags |= OFFLOAD_CTX_NO_ENV;
	if (cli->dtb)
		set_dt(&o, cli->dtb);
	else if (env_dtb && *env_dtb)
		set_dt(&o, env_dtb);
	if (cli->sim || (env_sim && *env_sim && strcmp(env_sim, "0") != 0))
		o.flags |= OFFLOAD_CTX_SIM;
	o.backends = cli->backends ? cli->backends : (env_be && *env_be) ? env_be : NULL;
	int r = offload_ctx_open(ctx, &o);
	if (r < 0) {
		cli_fail(cli, ctx, "cannot open context", r);
		offload_ctx_free(ctx);
		return NULL;
	}
	return ctx;
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
