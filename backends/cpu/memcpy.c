/* SPDX-License-Identifier: MIT */
/*
 * CPU memcpy. Copies run inline on the calling thread; the asynchronous
 * queue executes its jobs at submit, in order, so completions are ready as
 * soon as submit returns.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

struct cpu_state {
	char describe[OFL_REASON_LEN];
};

int ofl_cpu_init(struct offload_ctx *ctx, void **state, char *why, size_t why_len)
{
	struct cpu_state *s = calloc(1, sizeof(*s));

	if (!s) {
		ofl_strlcpy(why, "out of memory", why_len);
		return -ENOMEM;
	}
	ofl_strlcpy(s->describe, "single-threaded memcpy on the calling thread",
		    sizeof(s->describe));
	*state = s;
	OFL_UNUSED(ctx);
	return 0;
}

void ofl_cpu_fini(struct offload_ctx *ctx, void *state)
{
	free(state);
	OFL_UNUSED(ctx);
}

const char *ofl_cpu_memcpy_describe(const void *state)
{
	return ((const struct cpu_state *)state)->describe;
}

uint32_t ofl_cpu_crypto_caps(void)
{
	return 0;
}

static int cpu_copy(struct ofl_device *dev, void *dst, const void *src, size_t len,
		    struct offload_result *res)
{
	memcpy(dst, src, len);
	ofl_result_set(res, dev, "cpu-memcpy", OFFLOAD_RES_CPU);
	return 0;
}

static int cpu_queue_open(struct ofl_device *dev, struct offload_queue *q)
{
	OFL_UNUSED(dev);
	OFL_UNUSED(q);
	return 0;
}

static void cpu_queue_close(struct offload_queue *q)
{
	OFL_UNUSED(q);
}

static int cpu_queue_submit(struct offload_queue *q)
{
	for (uint32_t i = q->submitted; i != q->tail; i++) {
		struct ofl_job *j = &q->jobs[i & q->mask];
		memcpy(j->dst, j->src, j->len);
		j->status = 0;
		j->flags = OFFLOAD_RES_CPU;
	}
	q->done = q->tail;
	return 0;
}

static int cpu_queue_progress(struct offload_queue *q, int64_t timeout_us)
{
	OFL_UNUSED(q);
	OFL_UNUSED(timeout_us);
	return 0;
}

const struct ofl_memcpy_ops ofl_cpu_memcpy_ops = {
	.copy = cpu_copy,
	.queue_open = cpu_queue_open,
	.queue_close = cpu_queue_close,
	.queue_submit = cpu_queue_submit,
	.queue_progress = cpu_queue_progress,
};
