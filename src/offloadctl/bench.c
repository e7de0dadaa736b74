/* SPDX-License-Identifier: MIT */
/* offloadctl bench: dispatch to bench memcpy | cipher | spi. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct bench {
	const char *name;
	const char *summary;
	int (*run)(struct cli *cli, int argc, char **argv);
};

static const struct bench benches[] = {
	{ "memcpy", "offload_memcpy vs plain memcpy, dmatest-style runs (--size, --threads, ...)", bench_memcpy },
	{ "spi", "spidev_test-style SPI transfers; rate over the real elapsed time, data verified", bench_spi },
	{ "cipher", "ciphers and hashes per size, tcrypt-style; --ab for A/B", cmd_bench_cipher },
	{ NULL, NULL, NULL },
};

int cmd_bench(struct cli *cli, int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: %s bench WHAT [OPTIONS]\n\nwhat:\n", cli->prog);
		for (size_t i = 0; benches[i].name; i++)
			fprintf(f, "  %-8s %s\n", benches[i].name, benches[i].summary);
		return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	for (size_t i = 0; benches[i].name; i++)
		if (strcmp(argv[1], benches[i].name) == 0) {
			static char cmd[32];
			snprintf(cmd, sizeof(cmd), "bench %s", benches[i].name);
			cli->cmd = cmd; /* messages say "offloadctl bench memcpy: ..." */
			return benches[i].run(cli, argc - 1, argv + 1);
		}
	fprintf(stderr, "%s bench: unknown benchmark '%s'\n", cli->prog, argv[1]);
	return CLI_EXIT_USAGE;
}
