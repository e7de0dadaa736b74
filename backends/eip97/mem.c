/* SPDX-License-Identifier: MIT */
/*
 * Session memory: each cipher or hash session owns a context record (ring
 * memory: uncached on a non-coherent system, as Linux's dma pool) and a work
 * area (bounce buffer, hash cache and result) in the device's DMA memory.
 * Allocating them costs far more than an operation (a dma-heap ioctl, a
 * u-dma-buf arena walk), and offload_cipher()/offload_hash() open a session
 * per call, so closed sessions hand their memory back to a small per-engine
 * cache, wiped (the context record held the key), for the next session.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eip97.h"

#define SMEM_KEEP 8u

static void smem_free(struct eip97_smem *m)
{
	ofl_dma_free(m->ctx);
	ofl_dma_free(m->work);
	free(m);
}

int eip97_smem_get(struct eip97_engine *e, struct eip97_smem **out)
{
	char why[OFL_REASON_LEN];

	pthread_mutex_lock(&e->smem_lock);
	struct eip97_smem *m = e->smem_free;
	if (m) {
		e->smem_free = m->next;
		e->smem_n--;
	}
	pthread_mutex_unlock(&e->smem_lock);
	if (m) {
		m->next = NULL;
		*out = m;
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return ofl_err(e->dev->ctx, -ENOMEM, "eip97: out of memory");
	int r = ofl_dma_alloc(e->pool, EIP97_CTX_BYTES, 64, e->ring_cache, false, &m->ctx, why, sizeof(why));
	if (r == 0)
		r = ofl_dma_alloc(e->pool, EIP97_WORK_SIZE, 64, e->cache, false, &m->work, why, sizeof(why));
	if (r < 0) {
		smem_free(m);
		return ofl_err(e->dev->ctx, r, "eip97: %s: no DMA memory for a session (context record and "
			       "%u-byte work area): %s", e->name, EIP97_WORK_SIZE, why);
	}
	*out = m;
	return 0;
}

void eip97_smem_put(struct eip97_engine *e, struct eip97_smem *m)
{
	if (!m)
		return;
	if (atomic_load(&e->failed)) {
		/* the engine did not stop: it may still write there; held until the device goes */
		pthread_mutex_lock(&e->smem_lock);
		m->next = e->smem_held;
		e->smem_held = m;
		pthread_mutex_unlock(&e->smem_lock);
		return;
	}
	/* nothing of the session may outlive it: the key, and the data copies */
	ofl_dma_zero(m->ctx, 0, EIP97_CTX_BYTES); /* aligned words: may be Device memory (D3) */
	ofl_dma_sync_for_device(m->ctx, 0, EIP97_CTX_BYTES);
	if (m->dirty) {
		ofl_dma_zero(m->work, 0, m->dirty);
		ofl_dma_sync_for_device(m->work, 0, m->dirty);
		m->dirty = 0;
	}
	pthread_mutex_lock(&e->smem_lock);
	bool keep = e->smem_n < SMEM_KEEP;
	if (keep) {
		m->next = e->smem_free;
		e->smem_free = m;
		e->smem_n++;
	}
	pthread_mutex_unlock(&e->smem_lock);
	if (!keep)
		smem_free(m);
}

static void smem_free_list(struct eip97_smem *m)
{
	while (m) {
		struct eip97_smem *n = m->next;
		smem_free(m);
		m = n;
	}
}

void eip97_smem_drain(struct eip97_engine *e)
{
	pthread_mutex_lock(&e->smem_lock);
	struct eip97_smem *m = e->smem_free, *held = e->smem_held;
	e->smem_free = e->smem_held = NULL;
	e->smem_n = 0;
	pthread_mutex_unlock(&e->smem_lock);
	smem_free_list(m);
	smem_free_list(held);
}
