/* SPDX-License-Identifier: MIT */
/*
 * CPPI 5.0 TR descriptors for memcpy (hw/k3_udma.h §4): a 16-byte header in the
 * first 64-byte record, one or two type-15 TRs, then one 4-byte response per
 * TR. The field values are those of Linux udma_prep_dma_memcpy() and
 * cppi5_trdesc_init()/cppi5_tr_init()/cppi5_tr_csf_set().
 */
#include <string.h>

#include "udma.h"

int udma_split(uint64_t len, uint64_t src, uint64_t dst, uint16_t *cnt0, uint16_t *cnt1,
	       uint16_t *rem)
{
	if (len == 0 || len > CPPI5_MAX_TR_PAIR_LEN)
		return -EINVAL;
	if (len < 65536) {
		*cnt0 = (uint16_t)len;
		*cnt1 = 1;
		*rem = 0;
		return 1;
	}
	/* udma_get_tr_counters(): rows of 64 KiB minus the common alignment, at most 8 */
	uint64_t both = src | dst;
	unsigned a = both ? (unsigned)__builtin_ctzll(both) : 3u;
	if (a > 3)
		a = 3;
	for (;;) {
		uint64_t c0 = 65536u - (1u << a);
		if (len / c0 < 65536u) {
			*cnt0 = (uint16_t)c0;
			*cnt1 = (uint16_t)(len / c0);
			*rem = (uint16_t)(len % c0);
			/*
			 * Linux always emits the second TR here, with icnt0 = 0 when rem is 0;
			 * no source (hw/k3_udma.h §4.6) confirms the hardware's answer to that, and the
			 * response table lists "ICNT0 was 0" as a submission error, so a zero
			 * remainder gets one TR.
			 */
			return *rem ? 2 : 1;
		}
		if (a == 0)
			return -EINVAL;
		a--;
	}
}

static void tr15(struct cppi5_tr_type15 *tr, uint32_t flags, uint16_t c0, uint16_t c1, int32_t dim1,
		 uint64_t src, uint64_t dst)
{
	tr->flags = flags;
	tr->icnt0 = c0;
	tr->icnt1 = c1;
	tr->addr = src;
	tr->dim1 = dim1;
	tr->icnt2 = 1;
	tr->icnt3 = 1;
	tr->dim2 = 0;
	tr->dim3 = 0;
	tr->reserved = 0;
	tr->ddim1 = dim1;
	tr->daddr = dst;
	tr->ddim2 = 0;
	tr->ddim3 = 0;
	tr->dicnt0 = c0;
	tr->dicnt1 = c1;
	tr->dicnt2 = 1;
	tr->dicnt3 = 1;
}

int udma_desc_memcpy(void *d, bool bcdma, uint32_t pktid, uint16_t retq, uint64_t src, uint64_t dst,
		     uint64_t len)
{
	uint16_t c0, c1, rem;
	int ntr = udma_split(len, src, dst, &c0, &c1, &rem);

	if (ntr < 0)
		return ntr;
	union cppi5_rec64 *rec = d;
	uint32_t *hdr = rec[0].w;
	hdr[0] = CPPI5_HDR0(CPPI5_DESC_TYPE_TR, 0, 0, (uint32_t)ntr - 1);
	hdr[1] = CPPI5_HDR1(CPPI5_TR_RECSIZE_64, pktid, CPPI5_FLOW_ID_DEFAULT);
	hdr[2] = retq;
	hdr[3] = 0;
	/* SUPR_EVT on every TR, EOL_ICNT0 on UDMA only, EOP on the last (hw/k3_udma.h §4.3) */
	uint32_t flags = CPPI5_TR_TYPE15 | CPPI5_TR_WAIT | CPPI5_CSF_SUPR_EVT |
			 (bcdma ? 0 : CPPI5_CSF_EOL_ICNT0);
	tr15(&rec[1].tr, flags | (ntr == 1 ? CPPI5_CSF_EOP : 0), c0, c1, c0, src, dst);
	if (ntr == 2) {
		uint64_t done = (uint64_t)c0 * c1;
		tr15(&rec[2].tr, flags | CPPI5_CSF_EOP, rem, 1, 0, src + done, dst + done);
	}
	/* Responses start as "not written": a descriptor the engine never answered is not a success. */
	for (int i = 0; i < ntr; i++)
		rec[ntr + 1].w[i] = 0xFFFFFFFFu;
	return ntr;
}

uint32_t udma_desc_status(const struct ofl_dma *m, size_t off, uint32_t ntr)
{
	const size_t resp = off + (ntr + 1u) * sizeof(union cppi5_rec64);
	uint32_t hdr1 = ofl_dma_r32(m, off + 4u);

	if (CPPI5_HDR1_PKT_ERR(hdr1))
		return CPPI5_HDR1_PKT_ERR(hdr1);
	/*
	 * TR0's response must be written and say complete (Linux k3-udma.c
	 * udma_desc_pre_callback() reads TR0's only; TI's SDK prefills every
	 * response with 0xFFFFFFFF, UdmaUtils_makeTrpdTr15(), and checks TR0). A
	 * later TR's response fails the descriptor only when it was written with
	 * an error: whether the engine writes one per TR is not in those sources.
	 */
	uint32_t s0 = ofl_dma_r32(m, resp);
	if (s0 == 0xFFFFFFFFu || (s0 & 0xFFu))
		return s0 & 0xFFu;
	for (uint32_t i = 1; i < ntr; i++) {
		uint32_t s = ofl_dma_r32(m, resp + 4u * i);
		if (s != 0xFFFFFFFFu && (s & 0xFFu))
			return s & 0xFFu;
	}
	return 0;
}
