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

offload_ctx *cli_open_ctx(struct cli *cli)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	if (!ctx) {
		fprintf(stderr, "%s %s: out of memory\n", cli->prog, cli->cmd);
		return NULL;
	}
	offload_ctx_opts_init(&o);
	if (cli->dtb) {
		if (strcmp(cli->dtb, "none") == 0)
			o.dt_source = OFFLOAD_DT_NONE;
		else if (strcmp(cli->dtb, "live") == 0)
			o.dt_source = OFFLOAD_DT_LIVE;
		else if (strcmp(cli->dtb, "builtin") == 0)
			o.dt_source = OFFLOAD_DT_BUILTIN;
		else {
			o.dt_source = OFFLOAD_DT_FILE;
			o.dtb_path = cli->dtb;
		}
		/* An explicit --dtb wins over OFFLOAD_DTB. */
		o.flags |= OFFLOAD_CTX_NO_ENV;
	}
	if (cli->sim)
		o.flags |= OFFLOAD_CTX_SIM;
	if (cli->backends) {
		o.backends = cli->backends;
		o.flags |= OFFLOAD_CTX_NO_ENV;
	}
	if ((o.flags & OFFLOAD_CTX_NO_ENV) && !cli->backends && getenv("OFFLOAD_BACKENDS"))
		o.backends = getenv("OFFLOAD_BACKENDS");
	if ((o.flags & OFFLOAD_CTX_NO_ENV) && !cli->sim && getenv("OFFLOAD_SIM") &&
	    strcmp(getenv("OFFLOAD_SIM"), "0") != 0)
		o.flags |= OFFLOAD_CTX_SIM;
	if ((o.flags & OFFLOAD_CTX_NO_ENV) && !cli->dtb && getenv("OFFLOAD_DTB")) {
		o.dt_source = OFFLOAD_DT_FILE;
		o.dtb_path = getenv("OFFLOAD_DTB");
	}
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
