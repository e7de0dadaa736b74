/* SPDX-License-Identifier: MIT */
/*
 * offloadctl: list and diagnose a board's offload engines, benchmark them
 * the way dmatest, spidev_test and tcrypt do, and run crypto one-shots.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct command {
	const char *name;
	const char *summary;
	int (*run)(struct cli *cli, int argc, char **argv);
};

static const struct command commands[] = {
	{ "list", "devices found in the device tree and every policy decision with its reason", cmd_list },
	{ "doctor", "findings on the board's device tree with evidence; exit 1 on a warning", cmd_doctor },
	{ "bench", "benchmark: bench memcpy | cipher | spi", cmd_bench },
	{ "dmatest", "run the kernel's dmatest (dmaengine memcpy) and summarise it", cmd_dmatest },
	{ "selftest", "crypto known-answer tests on every backend, like the kernel's testmgr", cmd_selftest },
	{ "enc", "encrypt a file or stdin; output as openssl enc -nopad", cmd_enc },
	{ "dec", "decrypt a file or stdin; output as openssl enc -d -nopad", cmd_dec },
	{ "dgst", "hash or HMAC files or stdin; output as openssl dgst", cmd_dgst },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [COMMON OPTIONS] COMMAND [OPTIONS]\n\ncommands:\n", prog);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-10s %s\n", "version", "program and library version (also -V, --version)");
	fprintf(f, "\ncommon options (before or after COMMAND):\n" CLI_COMMON_HELP
		   "\nexit status: 0 success, 1 operation failed (or a mismatch or warning found),\n"
		   "2 usage error.\n"
		   "'%s COMMAND --help' describes a command; see offloadctl(1).\n", prog);
}

static int version(void)
{
	printf("offloadctl %s (library %s)\n", OFFLOAD_VERSION_STRING, offload_version_string());
	return CLI_EXIT_OK;
}

/* Run what argv asks for; returns the exit status. */
static int run(struct cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = { { "version", no_argument, NULL, 'V' },
						  CLI_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	int c;

	/* Common options before the command ('+': stop at the first non-option). */
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout, cli->prog);
			return CLI_EXIT_OK;
		}
		if (c == 'V')
			return version();
		if (!cli_common_opt(cli, c, optarg)) {
			if (c == '?')
				usage(stderr, cli->prog);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr, cli->prog);
		return CLI_EXIT_USAGE;
	}
	const char *name = argv[optind];
	if (strcmp(name, "version") == 0) {
		cli->cmd = "version";
		if (optind + 1 < argc)
			return cli_usage_error(cli, "unexpected argument '%s'", argv[optind + 1]);
		return version();
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(name, commands[i].name) == 0) {
			cli->cmd = commands[i].name;
			int sub_argc = argc - optind;
			char **sub_argv = argv + optind;
			optind = 1; /* each command parses its own options */
			return commands[i].run(cli, sub_argc, sub_argv);
		}
	}
	fprintf(stderr, "%s: unknown command '%s'\n\n", cli->prog, name);
	usage(stderr, cli->prog);
	return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct cli cli = { .prog = "offloadctl" };

	/* A reader that went away makes a write fail with EPIPE, which cli_finish() reports. */
	signal(SIGPIPE, SIG_IGN);
	int rc = cli_finish(&cli, run(&cli, argc, argv));
	/*
	 * Every failure is meant to say why where it happens; should one not, the
	 * exit status still comes with a sentence (getopt's own messages for
	 * malformed options count as said).
	 */
	if (rc == CLI_EXIT_FAIL && !cli_said_why())
		fprintf(stderr, "%s%s%s: failed (exit status 1); the output above says what was found\n",
			cli.prog, cli.cmd ? " " : "", cli.cmd ? cli.cmd : "");
	return rc;
}
