/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend: the device that is always there. It serves memcpy (see
 * memcpy.c) and, with OpenSSL, software crypto (crypto.c).
 */
#include <stdio.h>
#include <string.h>

#include "driver/driver.h"
#include "cpu.h"

static int cpu_pseudo(struct offload_ctx *ctx, void *state, struct ofl_pseudo_dev *out)
{
	OFL_UNUSED(ctx);
	out->name = "cpu";
	out->kind = "cpu";
	out->caps = OFFLOAD_CAP_MEMCPY | OFL_CPU_CRYPTO_CAPS();
	out->devflags = OFFLOAD_DEVF_CPU;
	out->fallback = true;
	out->coherent_reason = "the CPU reads and writes through its own caches: nothing to keep coherent";
	out->cache_reason = "no DMA, so no cache maintenance";
	out->burst_reason = "no DMA bursts: the CPU copies";
	out->align_reason = "the CPU copies at any alignment";
	out->threshold_bytes = 0;
	out->threshold_reason = "the fallback device takes every size";
	out->transfer_mode = "memcpy";
	snprintf(out->transfer_reason, sizeof(out->transfer_reason), "%s", ofl_cpu_memcpy_describe(state));
	snprintf(out->usable_reason, sizeof(out->usable_reason), "always available: the fallback");
	return 1;
}

const struct ofl_backend ofl_backend_cpu = {
	.name = "cpu",
	.caps = OFFLOAD_CAP_MEMCPY | OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH,
	.init = ofl_cpu_init,
	.fini = ofl_cpu_fini,
	.pseudo = cpu_pseudo,
	.memcpy = &ofl_cpu_memcpy_ops,
	.cipher = OFL_CPU_CIPHER_OPS,
	.hash = OFL_CPU_HASH_OPS,
};
