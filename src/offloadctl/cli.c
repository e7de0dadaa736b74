/* SPDX-License-Identifier: MIT */
/* offloadctl: options and helpers shared by every command. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
		return true;
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

	fprintf(stderr, "%s %s: %s: %s%s%s\n", cli->prog, cli->cmd ? cli->cmd : "", what,
		offload_strerror(err), msg[0] ? ": " : "", msg);
}
