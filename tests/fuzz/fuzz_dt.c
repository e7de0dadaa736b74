/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: load + validate + discover + policy over arbitrary
 * bytes, then every translation on every node, then a whole context open.
 * ASan (no read outside the blob: the loader copies it into an allocation
 * of exactly its size), UBSan and LeakSanitizer judge the run.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <libfdt.h>

#include "core/internal.h"
#include "dt/dt.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Nodes visited per input: bounds the time of one run on a large blob. */
#define MAX_NODES 256

static void every_node(const void *fdt)
{
	static const char *const names[] = { "gcfg", "tchanrt", "rchanrt", "bchanrt", "ringrt" };
	int depth = 0, count = 0;
	char err[512], path[OFL_DT_PATH_LEN];

	for (int node = 0; node >= 0 && depth >= 0 && count < MAX_NODES;
	     node = fdt_next_node(fdt, node, &depth), count++) {
		struct ofl_dt_chain c;
		uint64_t a = 0, s = 0, b = 0;
		int d;
		if (ofl_dt_chain(fdt, node, &c) < 0)
			continue;
		for (int i = 0; i < 3; i++)
			ofl_dt_reg_explain(fdt, &c, i, &a, &s, err, sizeof(err));
		ofl_dt_dma_coherent_chain(fdt, &c, &d);
		ofl_dt_chain_path(fdt, &c, c.n - 1, path, sizeof(path));
		ofl_dt_enabled(fdt, node, NULL);
		/* The node-offset entry points, on a sample (each rescans the blob). */
		if (count % 16 == 0) {
			ofl_dt_reg_by_name(fdt, node, names[count / 16 % 5], &a, &s, err, sizeof(err));
			ofl_dt_dma_translate(fdt, node, a, &b, err, sizeof(err));
			ofl_dt_path(fdt, node, path, sizeof(path));
		}
	}
}

static void context(const uint8_t *data, size_t size)
{
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();

	if (!ctx)
		return;
	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BLOB;
	o.dtb_blob = data;
	o.dtb_size = size;
	o.flags = OFFLOAD_CTX_NO_ENV;
	o.backends = "cpu";
	if (offload_ctx_open(ctx, &o) == 0) {
		struct offload_dev_info info;
		int n = offload_dev_count(ctx);
		for (int i = 0; i < n; i++)
			if (offload_dev_get_info(ctx, i, &info, sizeof(info)) == 0)
				(void)strlen(info.coherent_reason);
	}
	offload_ctx_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_dt dt;
	char err[512];

	if (ofl_dt_load_blob(&dt, data, size, err, sizeof(err)) < 0)
		return 0;
	struct ofl_dt_match m[64];
	int n = ofl_engines_discover(dt.fdt, m, 64);
	for (int i = 0; i < n && i < 64; i++) {
		struct ofl_policy p;
		ofl_engine_policy(dt.fdt, &m[i], NULL, &p);
	}
	struct ofl_dt_rmem r[16];
	ofl_dt_reserved_memory(dt.fdt, r, 16);
	every_node(dt.fdt);
	ofl_dt_free(&dt);
	context(data, size);
	return 0;
}
