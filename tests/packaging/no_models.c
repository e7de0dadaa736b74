/* SPDX-License-Identifier: MIT */
/*
 * A program linked only with liboffload (no liboffload-sim), as a user's:
 *   no_models plain    AUTO on a machine without a device tree gives the CPU
 *                      and kernel paths, no models and no model threads; asking
 *                      for models through the environment fails with -ENOTSUP
 *                      naming liboffload-sim when it cannot be loaded
 *   no_models dlopen   the environment asks for models and liboffload-sim.so.0
 *                      is on the loader's path: the virtual board, simulated
 * Exits 0 when every check holds, 1 when one fails, 77 (skip) where this
 * machine has a live device tree (AUTO would read it).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <offload/offload.h>

#define CHECK(c, ...)                                                                                \
	do {                                                                                         \
		if (!(c)) {                                                                          \
			fprintf(stderr, "no_models: " __VA_ARGS__);                                  \
			fputc('\n', stderr);                                                         \
			exit(1);                                                                     \
		}                                                                                    \
	} while (0)

/* Threads of this process (entries of /proc/self/task). */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	CHECK(d, "cannot read /proc/self/task");
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int sim_devices(offload_ctx *ctx)
{
	int n = 0;

	for (int i = 0; i < offload_dev_count(ctx); i++) {
		struct offload_dev_info d;
		CHECK(offload_dev_get_info(ctx, i, &d, sizeof(d)) == 0, "offload_dev_get_info(%d)", i);
		n += (d.flags & OFFLOAD_DEVF_SIM) != 0;
	}
	return n;
}

static int plain(void)
{
	offload_ctx *ctx = offload_ctx_new();
	int before = threads();

	CHECK(ctx, "out of memory");
	CHECK(offload_ctx_open(ctx, NULL) == 0, "AUTO open: %s", offload_last_error(ctx));
	CHECK(strcmp(offload_ctx_dt_source(ctx), "none") == 0, "AUTO chose %s, not none",
	      offload_ctx_dt_source(ctx));
	CHECK(!(offload_ctx_flags(ctx) & (OFFLOAD_CTX_DT_FALLBACK | OFFLOAD_CTX_SIM)), "flags 0x%x",
	      offload_ctx_flags(ctx));
	CHECK(sim_devices(ctx) == 0, "%d simulated devices", sim_devices(ctx));
	CHECK(offload_dev_find(ctx, "cpu") >= 0, "no CPU device");
	CHECK(threads() == before, "%d threads after open, %d before", threads(), before);
	printf("AUTO: %d devices, %d thread(s), source %s\n", offload_dev_count(ctx), threads(),
	       offload_ctx_dt_source(ctx));
	CHECK(offload_ctx_close(ctx) == 0, "close");

	/* models asked for, none linked: refused, saying what to link */
	setenv("OFFLOAD_SIM", "1", 1);
	int r = offload_ctx_open(ctx, NULL);
	CHECK(r == -ENOTSUP, "OFFLOAD_SIM=1 without liboffload-sim: open gave %d (%s)", r,
	      offload_last_error(ctx));
	CHECK(strstr(offload_last_error(ctx), "liboffload-sim"), "message: %s", offload_last_error(ctx));
	printf("OFFLOAD_SIM=1: %s\n", offload_last_error(ctx));
	unsetenv("OFFLOAD_SIM");
	setenv("OFFLOAD_DTB", "builtin", 1);
	CHECK(offload_ctx_open(ctx, NULL) == -ENOTSUP, "OFFLOAD_DTB=builtin without liboffload-sim");
	offload_ctx_free(ctx);
	return 0;
}

static int with_dlopen(void)
{
	offload_ctx *ctx = offload_ctx_new();

	setenv("OFFLOAD_SIM", "1", 1);
	setenv("OFFLOAD_DTB", "builtin", 1);
	CHECK(offload_ctx_open(ctx, NULL) == 0, "OFFLOAD_SIM=1 with liboffload-sim.so.0 loadable: %s",
	      offload_last_error(ctx));
	CHECK(strcmp(offload_ctx_dt_source(ctx), "builtin:virtual-board") == 0, "source %s",
	      offload_ctx_dt_source(ctx));
	CHECK(sim_devices(ctx) > 0, "no simulated device");
	printf("dlopen: %d devices, %d simulated, %d threads\n", offload_dev_count(ctx), sim_devices(ctx),
	       threads());
	offload_ctx_free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	unsetenv("OFFLOAD_SIM");
	unsetenv("OFFLOAD_DTB");
	unsetenv("OFFLOAD_BACKENDS");
	if (strcmp(argv[1], "plain") == 0) {
		if (access("/sys/firmware/fdt", R_OK) == 0) {
			printf("SKIP: this machine has a live device tree, which AUTO would read\n");
			return 77;
		}
		return plain();
	}
	if (strcmp(argv[1], "dlopen") == 0)
		return with_dlopen();
	return 2;
}
