/* SPDX-License-Identifier: MIT */
/*
 * The library's own CPU work per one-block AES-128-CBC request on the EIP97,
 * for callgrind (instructions, not seconds; bench/eip97_callgrind.sh runs it
 * and does the arithmetic).
 *
 * On the built-in virtual board (the EIP97 model, "sim"), a session bound to
 * the EIP97 device encrypts 16 bytes from one DMA buffer into another
 * (zero-copy) per offload_cipher_session_run(): argument checks, the packet
 * (context control words, IV and the DIRECTION instruction in the shadow
 * ring), the result descriptor, the doorbells, the processed-counter read,
 * the result check and acknowledge. The model runs on its own thread and
 * behind ofl_sim_mmio_*() (the script leaves both out), and the spinning
 * while the model works (eip97_wait_progress) is toggled out, so what
 * remains is what the library would execute against silicon. Every output
 * block is compared with OpenSSL's, called directly (outside the measured
 * function).
 *
 * usage: eip97_percall [ROUNDS] [noncoherent]   (default 2000 requests, coherent)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <offload/offload.h>
#include <offload/sim.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	bool nc = argc > 2 && strcmp(argv[2], "noncoherent") == 0;
	static const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
					 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
	uint8_t iv[16] = { 0 }, want[16];
	struct offload_ctx_opts o;
	offload_ctx *ctx = offload_ctx_new();
	offload_cipher_session *s;
	offload_buf *bi, *bo;

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_BUILTIN;
	o.flags = OFFLOAD_CTX_SIM | OFFLOAD_CTX_NO_ENV | (nc ? OFFLOAD_CTX_SIM_NONCOHERENT : 0);
	o.sim_provider = offload_sim_provider(); /* the models (liboffload-sim) */
	o.backends = "cpu,eip97";
	if (!ctx || offload_ctx_open(ctx, &o) < 0) {
		fprintf(stderr, "eip97_percall: %s\n", offload_last_error(ctx));
		return 1;
	}
	int dev = offload_dev_find(ctx, "inside-secure,safexcel-eip97ies");
	if (dev < 0 || offload_buf_alloc(ctx, dev, 16, 0, &bi) < 0 || offload_buf_alloc(ctx, dev, 16, 0, &bo) < 0 ||
	    offload_cipher_session_open_dev(ctx, dev, OFFLOAD_CIPHER_AES_CBC, key, 16, &s) < 0) {
		fprintf(stderr, "eip97_percall: %s\n", offload_last_error(ctx));
		return 1;
	}
	uint8_t *in = offload_buf_ptr(bi), *out = offload_buf_ptr(bo);
	struct offload_result res;
	struct offload_cipher_op op = { .dir = OFFLOAD_ENCRYPT, .iv = iv, .iv_len = 16, .in = in,
					.out = out, .len = 16, .result = &res };
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	long bad = 0;
	for (int r = -1; r < rounds; r++) {
		for (int i = 0; i < 16; i++) {
			in[i] = (uint8_t)(r * 31 + i);
			iv[i] = (uint8_t)(r + 7 * i);
		}
		int l = 0;
		if (!x || !EVP_EncryptInit_ex(x, EVP_aes_128_cbc(), NULL, key, iv) ||
		    !EVP_EncryptUpdate(x, want, &l, in, 16))
			return 1;
		bad += offload_cipher_session_run(s, &op, sizeof(op)) != 0 || memcmp(out, want, 16) != 0 ||
		       !(res.flags & OFFLOAD_RES_SIM);
	}
	printf("eip97_percall: %d measured requests (+1 warm-up) of 16 B AES-128-CBC on %s (sim, %s), "
	       "driver %s, %ld bad\n",
	       rounds, "the EIP97 model", nc ? "non-coherent" : "coherent", res.driver, bad);
	EVP_CIPHER_CTX_free(x);
	offload_cipher_session_close(s);
	offload_buf_free(bi);
	offload_buf_free(bo);
	offload_ctx_free(ctx);
	return bad ? 1 : 0;
}
