/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend: the device that is always there. It serves memcpy (see
 * memcpy.c) and, with OpenSSL, software crypto (crypto.c).
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "cpu.h"

static int cpu_add_devices(struct offload_ctx *ctx, void *state)
{
	struct ofl_device *d = ofl_ctx_add_device(ctx, "cpu", "cpu");

	if (!d)
		return ofl_err(ctx, -ENOMEM, "offload_ctx_open: cannot add the CPU device");
	struct ofl_policy *p = &d->policy;
	d->backend = &ofl_backend_cpu;
	d->bstate = state;
	d->info.flags = OFFLOAD_DEVF_CPU;
	p->caps = OFFLOAD_CAP_MEMCPY | OFL_CPU_CRYPTO_CAPS();
	p->coherent = true;
	snprintf(p->coherent_reason, sizeof(p->coherent_reason),
		 "the CPU reads and writes through its own caches: nothing to keep coherent");
	p->cache_mode = OFFLOAD_CACHE_COHERENT;
	snprintf(p->cache_reason, sizeof(p->cache_reason), "no DMA, so no cache maintenance");
	p->burst_bytes = 0;
	snprintf(p->burst_reason, sizeof(p->burst_reason), "no DMA bursts: the CPU copies");
	p->align_bytes = 1;
	snprintf(p->align_reason, sizeof(p->align_reason), "the CPU copies at any alignment");
	p->threshold_bytes = 0;
	snprintf(p->threshold_reason, sizeof(p->threshold_reason),
		 "the fallback device takes every size");
	ofl_strlcpy(p->transfer_mode, "memcpy", sizeof(p->transfer_mode));
	snprintf(p->transfer_reason, sizeof(p->transfer_reason), "%s",
		 ofl_cpu_memcpy_describe(state));
	snprintf(d->usable_reason, sizeof(d->usable_reason), "always available: the fallback");
	ofl_strlcpy(d->candidates, "cpu", sizeof(d->candidates));
	ctx->cpu_dev = d->index;
	return 0;
}

const struct ofl_backend ofl_backend_cpu = {
	.name = "cpu",
	.caps = OFFLOAD_CAP_MEMCPY | OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH,
	.engines = 0,
	.init = ofl_cpu_init,
	.fini = ofl_cpu_fini,
	.add_devices = cpu_add_devices,
	.memcpy = &ofl_cpu_memcpy_ops,
	.cipher = OFL_CPU_CIPHER_OPS,
	.hash = OFL_CPU_HASH_OPS,
};
