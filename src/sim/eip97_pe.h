/* SPDX-License-Identifier: MIT */
/*
 * The EIP-96 side of the EIP97 model: one packet's context record, IV,
 * token instructions and input in, output bytes and the result error code
 * out. Used by the ring side (eip97.c) on the model thread only.
 */
#ifndef OFL_SIM_EIP97_PE_H
#define OFL_SIM_EIP97_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct eip97_pe;

/* The crypto core with its OpenSSL objects. NULL (why filled) when OpenSSL cannot provide AES. */
struct eip97_pe *eip97_pe_new(char *why, size_t why_len);
void eip97_pe_free(struct eip97_pe *pe);
/* EIP96_OPTIONS bits for what this core can compute (DES only with OpenSSL's legacy provider). */
uint32_t eip97_pe_algos(const struct eip97_pe *pe);

struct eip97_job {
	uint32_t control0, control1;  /* from CD words 10, 11 */
	const uint8_t *ctx;           /* context data (record + 8), control0.SIZE words */
	size_t ctx_len;
	const uint8_t *iv;            /* IV words as stored in the CD (raw bytes) */
	unsigned iv_words;            /* 0, 2 or 4 (CD options) */
	const uint32_t *tok;          /* instruction words, inline then additional */
	unsigned ntok;
	const uint8_t *in;            /* the packet's input, particles concatenated */
	size_t in_len;
	uint8_t *out;                 /* output stream (scattered over the RDs by the caller) */
	size_t out_cap;
	size_t out_len;               /* set by eip97_pe_run() */
};

/* Run one packet. Returns the 15-bit result error code (0 = success). */
uint32_t eip97_pe_run(struct eip97_pe *pe, struct eip97_job *j);

#endif /* OFL_SIM_EIP97_PE_H */
