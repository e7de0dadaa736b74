/* SPDX-License-Identifier: MIT */
/*
 * Rings (hw/k3_udma.h §3.4-§3.6).
 *
 * UDMA: the TX ring and the completion ring are NAVSS ring-accelerator rings
 * in MESSAGE mode, as Linux configures them for memcpy: a push is one 8-byte
 * write that ends at the end of the ring's 512-byte tail window, a pop one
 * 8-byte read at the end of the head window (k3_ringacc_ring_push_io /
 * pop_io), the occupancy comes from the ring's OCC register; the doorbell
 * is never written in MESSAGE mode. The accesses go through the mmio
 * accessors only, never memcpy: one 64-bit access (ofl_mmio_write64/read64).
 * The probe refuses a UDMA on a 32-bit host, where that access would be two
 * halves: TI's CSL sends such a CPU through the ring accelerator proxy
 * (csl_ringacc.h; udma_host_check(), docs/fidelity.md M7).
 * BCDMA: the bchan's DMSS dual ring in RING mode: software writes the
 * element (ASEL in bits 51:48) into ring memory and rings the forward
 * doorbell; completions come back in the same memory, counted by ROCC and
 * released through the reverse doorbell (k3_ringacc_ring_push_mem,
 * k3_dmaring_reverse_pop).
 */
#include "udma.h"

#define RA_PUSH_OFF (K3_RA_FIFO_TAIL + K3_RA_FIFO_WINDOW - 8u)
#define RA_POP_OFF (K3_RA_FIFO_HEAD + K3_RA_FIFO_WINDOW - 8u)

void udma_ring_push(struct udma_chan *ch, uint64_t desc_bus)
{
	struct udma_engine *e = ch->e;

	if (!e->bcdma) {
		ofl_mmio_write64(&e->ra_fifos, (uint64_t)ch->tx_ring * K3_RA_FIFO_STRIDE + RA_PUSH_OFF,
				 desc_bus);
		return;
	}
	ofl_dma_w64(ch->rings, (size_t)ch->fwd_idx * 8u, desc_bus | ((uint64_t)e->asel << K3_ASEL_SHIFT));
	ofl_dma_sync_for_device(ch->rings, (size_t)ch->fwd_idx * 8u, 8);
	if (++ch->fwd_idx == ch->nslots)
		ch->fwd_idx = 0;
}

void udma_ring_commit(struct udma_chan *ch, uint32_t n)
{
	struct udma_engine *e = ch->e;

	if (!e->bcdma || !n)
		return;
	ofl_dma_wmb();
	while (n) { /* FDB CNT is a signed 8-bit count */
		uint32_t c = n > 127 ? 127 : n;
		ofl_mmio_write32(&e->ringrt, (uint64_t)ch->tx_ring * K3_DRING_RT_STRIDE + K3_DRING_FDB, c);
		n -= c;
	}
}

int udma_ring_pop(struct udma_chan *ch, uint64_t *elem)
{
	struct udma_engine *e = ch->e;

	if (!e->bcdma) {
		uint64_t rt = (uint64_t)ch->cq_ring * K3_RA_RT_STRIDE;
		if (!ch->occ) {
			uint32_t v = ofl_mmio_read32(&e->ra_rt, rt + K3_RA_RT_OCC);
			if ((v & K3_RA_OCC_MASK) > ch->nslots + 1u) { /* more than the ring holds */
				*elem = v;
				return -EIO;
			}
			ch->occ = v & K3_RA_OCC_MASK;
			if (!ch->occ)
				return 0;
		}
		*elem = ofl_mmio_read64(&e->ra_fifos, (uint64_t)ch->cq_ring * K3_RA_FIFO_STRIDE + RA_POP_OFF);
		ch->occ--;
		ofl_dma_rmb();
		return 1;
	}
	if (!ch->occ) {
		/* ROCC still counts what was popped but not released: release it first */
		udma_ring_release(ch);
		uint32_t v = ofl_mmio_read32(&e->ringrt, (uint64_t)ch->tx_ring * K3_DRING_RT_STRIDE +
							    K3_DRING_ROCC);
		if ((v & K3_DRING_OCC_MASK) > ch->nslots) {
			*elem = v;
			return -EIO;
		}
		ch->occ = v & K3_DRING_OCC_MASK;
		if (!ch->occ)
			return 0;
	}
	ofl_dma_rmb();
	ofl_dma_sync_for_cpu(ch->rings, (size_t)ch->rev_idx * 8u, 8);
	*elem = ofl_dma_r64(ch->rings, (size_t)ch->rev_idx * 8u) & K3_ADDR_MASK;
	if (++ch->rev_idx == ch->nslots)
		ch->rev_idx = 0;
	ch->occ--;
	ch->unreleased++;
	return 1;
}

void udma_ring_release(struct udma_chan *ch)
{
	struct udma_engine *e = ch->e;
	uint32_t n = ch->unreleased;

	ch->unreleased = 0;
	while (n) { /* RDB CNT: signed 8 bits, -1 = 0xFF per consumed element */
		uint32_t c = n > 128 ? 128 : n;
		ofl_mmio_write32(&e->ringrt, (uint64_t)ch->tx_ring * K3_DRING_RT_STRIDE + K3_DRING_RDB,
				 (uint32_t)(-(int32_t)c) & 0xFFu);
		n -= c;
	}
}

bool udma_ring_tdown_done(struct udma_chan *ch)
{
	struct udma_engine *e = ch->e;
	uint64_t rt = (uint64_t)ch->tx_ring * K3_DRING_RT_STRIDE;

	if (!(ofl_mmio_read32(&e->ringrt, rt + K3_DRING_ROCC) & K3_DRING_ROCC_COMP))
		return false;
	ofl_mmio_write32(&e->ringrt, rt + K3_DRING_RDB, K3_DRING_RDB_ACK);
	return true;
}
