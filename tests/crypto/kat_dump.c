/* SPDX-License-Identifier: MIT */
/* Print the known-answer vectors as tab-separated lines for check_vectors.py. */
#include <stdio.h>
#include <string.h>

#include "kat_vectors.h"

int main(void)
{
	for (size_t i = 0; i < kat_ncipher; i++) {
		const struct kat_cipher *v = &kat_ciphers[i];
		printf("cipher\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
		       offload_cipher_name(v->alg, strlen(v->key) / 2), v->key, v->iv[0] ? v->iv : "-",
		       v->aad[0] ? v->aad : "-", v->pt[0] ? v->pt : "-", v->ct[0] ? v->ct : "-",
		       v->tag[0] ? v->tag : "-");
	}
	for (size_t i = 0; i < kat_nhash; i++) {
		const struct kat_hash *v = &kat_hashes[i];
		printf("hash\t%s\t%s\t", offload_hash_name(v->alg), v->key ? v->key : "-");
		for (const char *p = v->msg; *p; p++)
			printf("%02x", (unsigned char)*p);
		printf("%s\t%lu\t%s\n", v->msg[0] ? "" : "-", v->repeat, v->digest);
	}
	return 0;
}
