/* SPDX-License-Identifier: MIT */
/* Known-answer vectors (see kat_vectors.h). */
#include <string.h>

#include "kat_vectors.h"

/* NIST SP 800-38A Appendix F: the four plaintext blocks and keys. */
#define SP38A_PT "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51" \
		 "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
#define SP38A_K128 "2b7e151628aed2a6abf7158809cf4f3c"
#define SP38A_K192 "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"
#define SP38A_K256 "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
#define SP38A_IV "000102030405060708090a0b0c0d0e0f"
#define SP38A_CTR "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

/* GCM specification (McGrew & Viega, test cases used with SP 800-38D). */
#define GCM_K "feffe9928665731c6d6a8f9467308308"
#define GCM_IV "cafebabefacedbaddecaf888"
#define GCM_AAD "feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define GCM_P60 "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
		"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
#define GCM_P64 GCM_P60 "1aafd255"
#define GCM_C3_60 "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e" \
		  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
#define GCM_C9_60 "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c" \
		  "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710"
#define GCM_C15_60 "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa" \
		   "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"

/* FIPS 81 Appendix B/C: "Now is the time for all ". */
#define FIPS81_PT "4e6f77206973207468652074696d6520666f7220616c6c20"

const struct kat_cipher kat_ciphers[] = {
	/* AES-ECB: SP 800-38A F.1.1, F.1.3, F.1.5 */
	{ "SP 800-38A F.1.1 ECB-AES128.Encrypt", OFFLOAD_CIPHER_AES_ECB, SP38A_K128, "", "", SP38A_PT,
	  "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
	  "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4", "" },
	{ "SP 800-38A F.1.3 ECB-AES192.Encrypt", OFFLOAD_CIPHER_AES_ECB, SP38A_K192, "", "", SP38A_PT,
	  "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eef"
	  "ef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e", "" },
	{ "SP 800-38A F.1.5 ECB-AES256.Encrypt", OFFLOAD_CIPHER_AES_ECB, SP38A_K256, "", "", SP38A_PT,
	  "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
	  "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7", "" },
	/* AES-CBC: SP 800-38A F.2.1, F.2.3, F.2.5; RFC 3602 case 1 */
	{ "SP 800-38A F.2.1 CBC-AES128.Encrypt", OFFLOAD_CIPHER_AES_CBC, SP38A_K128, SP38A_IV, "",
	  SP38A_PT,
	  "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
	  "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7", "" },
	{ "SP 800-38A F.2.3 CBC-AES192.Encrypt", OFFLOAD_CIPHER_AES_CBC, SP38A_K192, SP38A_IV, "",
	  SP38A_PT,
	  "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"
	  "571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd", "" },
	{ "SP 800-38A F.2.5 CBC-AES256.Encrypt", OFFLOAD_CIPHER_AES_CBC, SP38A_K256, SP38A_IV, "",
	  SP38A_PT,
	  "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
	  "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b", "" },
	{ "RFC 3602 4. case 1", OFFLOAD_CIPHER_AES_CBC, "06a9214036b8a15b512e03d534120006",
	  "3dafba429d9eb430b422da802c9fac41", "", "53696e676c6520626c6f636b206d7367",
	  "e353779c1079aeb82708942dbe77181a", "" },
	/* AES-CTR: SP 800-38A F.5.1, F.5.3, F.5.5 */
	{ "SP 800-38A F.5.1 CTR-AES128.Encrypt", OFFLOAD_CIPHER_AES_CTR, SP38A_K128, SP38A_CTR, "",
	  SP38A_PT,
	  "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
	  "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee", "" },
	{ "SP 800-38A F.5.3 CTR-AES192.Encrypt", OFFLOAD_CIPHER_AES_CTR, SP38A_K192, SP38A_CTR, "",
	  SP38A_PT,
	  "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
	  "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050", "" },
	{ "SP 800-38A F.5.5 CTR-AES256.Encrypt", OFFLOAD_CIPHER_AES_CTR, SP38A_K256, SP38A_CTR, "",
	  SP38A_PT,
	  "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
	  "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6", "" },
	/* AES-GCM: GCM specification test cases 1-4, 9, 15, 16 (SP 800-38D) */
	{ "GCM spec test case 1 (empty)", OFFLOAD_CIPHER_AES_GCM, "00000000000000000000000000000000",
	  "000000000000000000000000", "", "", "", "58e2fccefa7e3061367f1d57a4e7455a" },
	{ "GCM spec test case 2", OFFLOAD_CIPHER_AES_GCM, "00000000000000000000000000000000",
	  "000000000000000000000000", "", "00000000000000000000000000000000",
	  "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf" },
	{ "GCM spec test case 3", OFFLOAD_CIPHER_AES_GCM, GCM_K, GCM_IV, "", GCM_P64,
	  GCM_C3_60 "473f5985", "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ "GCM spec test case 4 (AAD)", OFFLOAD_CIPHER_AES_GCM, GCM_K, GCM_IV, GCM_AAD, GCM_P60,
	  GCM_C3_60, "5bc94fbc3221a5db94fae95ae7121a47" },
	{ "GCM spec test case 4, tag truncated to 96 bits (SP 800-38D 7.1 MSB_t)",
	  OFFLOAD_CIPHER_AES_GCM, GCM_K, GCM_IV, GCM_AAD, GCM_P60, GCM_C3_60, "5bc94fbc3221a5db94fae95a" },
	{ "GCM spec test case 4, tag truncated to 64 bits", OFFLOAD_CIPHER_AES_GCM, GCM_K, GCM_IV,
	  GCM_AAD, GCM_P60, GCM_C3_60, "5bc94fbc3221a5db" },
	{ "GCM spec test case 4, tag truncated to 32 bits", OFFLOAD_CIPHER_AES_GCM, GCM_K, GCM_IV,
	  GCM_AAD, GCM_P60, GCM_C3_60, "5bc94fbc" },
	{ "GCM spec test case 9 (AES-192)", OFFLOAD_CIPHER_AES_GCM, GCM_K "feffe9928665731c", GCM_IV,
	  "", GCM_P64, GCM_C9_60 "acade256", "9924a7c8587336bfb118024db8674a14" },
	{ "GCM spec test case 15 (AES-256)", OFFLOAD_CIPHER_AES_GCM, GCM_K GCM_K, GCM_IV, "", GCM_P64,
	  GCM_C15_60 "898015ad", "b094dac5d93471bdec1a502270e3cc6c" },
	{ "GCM spec test case 16 (AES-256, AAD)", OFFLOAD_CIPHER_AES_GCM, GCM_K GCM_K, GCM_IV, GCM_AAD,
	  GCM_P60, GCM_C15_60, "76fc6ece0f4e1768cddf8853bb2d551b" },
	/* DES-ECB: FIPS 81 App. B; SP 800-17 Table A.1 round 1 */
	{ "FIPS 81 Appendix B (ECB)", OFFLOAD_CIPHER_DES_ECB, "0123456789abcdef", "", "", FIPS81_PT,
	  "3fa40e8a984d48156a271787ab8883f9893d51ec4b563b53", "" },
	{ "SP 800-17 variable plaintext KAT, round 1", OFFLOAD_CIPHER_DES_ECB, "0101010101010101", "",
	  "", "8000000000000000", "95f8a5e5dd31d900", "" },
	/* 3DES-CBC: NIST CAVP tdesmmt, TCBCMMT3.rsp [ENCRYPT] COUNT = 9 (three distinct keys) */
	{ "NIST CAVP TCBCMMT3.rsp ENCRYPT COUNT=9", OFFLOAD_CIPHER_DES3_CBC,
	  "9b162a0df8ad9b61c88676e3d586434570b902f12a2046e0", "ebd6fefe029ad54b", "",
	  "f4c1c918e77355c8156f0fd778da52bff121ae5f2f44eaf4d2754946d0e10d1f18ce3a0176e69c18b7d20b6e0d0bee5e"
	  "b5edfe4bd60e4d92adcd86bce72e76f94ee5cbcaa8b01cfddcea2ade575e66ac",
	  "1ff3c8709f403a8eff291aedf50c010df5c5ff64a8b205f1fce68564798897a390db16ee0d053856b75898009731da29"
	  "0fcc119dad987277aacef694872e880c4bb41471063fae05c89f25e4bd0cad6a", "" },
};
const size_t kat_ncipher = sizeof(kat_ciphers) / sizeof(kat_ciphers[0]);

#define RFC4231_K1 "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"
#define RFC4231_K6 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		   "aaaaaaaaaaaaaaaaaaaaaa"
#define RFC2202_K6 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define JEFE "4a656665"
#define WHAT "what do ya want for nothing?"
#define BIGKEY "Test Using Larger Than Block-Size Key - Hash Key First"
#define M448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define M896 "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"

const struct kat_hash kat_hashes[] = {
	{ "RFC 1321 A.5 MD5 (\"\")", OFFLOAD_HASH_MD5, NULL, "", 1, "d41d8cd98f00b204e9800998ecf8427e" },
	{ "RFC 1321 A.5 MD5 (\"a\")", OFFLOAD_HASH_MD5, NULL, "a", 1, "0cc175b9c0f1b6a831c399e269772661" },
	{ "RFC 1321 A.5 MD5 (\"abc\")", OFFLOAD_HASH_MD5, NULL, "abc", 1, "900150983cd24fb0d6963f7d28e17f72" },
	{ "RFC 1321 A.5 MD5 (\"message digest\")", OFFLOAD_HASH_MD5, NULL, "message digest", 1, "f96b697d7cb7938d525a2f31aaf161d0" },
	{ "RFC 1321 A.5 MD5 (\"a..z\")", OFFLOAD_HASH_MD5, NULL, "abcdefghijklmnopqrstuvwxyz", 1,
	  "c3fcd3d76192e4007dfb496cca67e13b" },
	{ "FIPS 180-4 example (NIST CSRC SHA1.pdf)", OFFLOAD_HASH_SHA1, NULL, "abc", 1,
	  "a9993e364706816aba3e25717850c26c9cd0d89d" },
	{ "FIPS 180-4 example (NIST CSRC SHA1.pdf)", OFFLOAD_HASH_SHA1, NULL, M448, 1,
	  "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
	{ "SHA-1 of the empty message", OFFLOAD_HASH_SHA1, NULL, "", 1,
	  "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	{ "FIPS 180-4 example (SHA224.pdf)", OFFLOAD_HASH_SHA224, NULL, "abc", 1,
	  "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7" },
	{ "FIPS 180-4 example (SHA224.pdf)", OFFLOAD_HASH_SHA224, NULL, M448, 1,
	  "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525" },
	{ "FIPS 180-4 example (SHA256.pdf)", OFFLOAD_HASH_SHA256, NULL, "abc", 1,
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "FIPS 180-4 example (SHA256.pdf)", OFFLOAD_HASH_SHA256, NULL, M448, 1,
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "FIPS 180-2 App. B.3: one million 'a'", OFFLOAD_HASH_SHA256, NULL, "a", 1000000,
	  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
	{ "SHA-256 of the empty message", OFFLOAD_HASH_SHA256, NULL, "", 1,
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "FIPS 180-4 example (SHA384.pdf)", OFFLOAD_HASH_SHA384, NULL, "abc", 1,
	  "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
	  "8086072ba1e7cc2358baeca134c825a7" },
	{ "FIPS 180-4 example (SHA384.pdf)", OFFLOAD_HASH_SHA384, NULL, M896, 1,
	  "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
	  "fcc7c71a557e2db966c3e9fa91746039" },
	{ "FIPS 180-4 example (SHA512.pdf)", OFFLOAD_HASH_SHA512, NULL, "abc", 1,
	  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	  "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" },
	{ "FIPS 180-4 example (SHA512.pdf)", OFFLOAD_HASH_SHA512, NULL, M896, 1,
	  "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
	  "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909" },
	{ "SHA-512 of the empty message", OFFLOAD_HASH_SHA512, NULL, "", 1,
	  "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
	  "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e" },
	/* HMAC-MD5 / HMAC-SHA1: RFC 2202 test cases 1, 2, 6 */
	{ "RFC 2202 HMAC-MD5 case 1", OFFLOAD_HASH_HMAC_MD5, "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
	  "Hi There", 1, "9294727a3638bb1c13f48ef8158bfc9d" },
	{ "RFC 2202 HMAC-MD5 case 2", OFFLOAD_HASH_HMAC_MD5, JEFE, WHAT, 1,
	  "750c783e6ab0b503eaa86e310a5db738" },
	{ "RFC 2202 HMAC-MD5 case 6", OFFLOAD_HASH_HMAC_MD5, RFC2202_K6, BIGKEY, 1,
	  "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd" },
	{ "RFC 2202 HMAC-SHA1 case 1", OFFLOAD_HASH_HMAC_SHA1, RFC4231_K1, "Hi There", 1,
	  "b617318655057264e28bc0b6fb378c8ef146be00" },
	{ "RFC 2202 HMAC-SHA1 case 2", OFFLOAD_HASH_HMAC_SHA1, JEFE, WHAT, 1,
	  "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79" },
	{ "RFC 2202 HMAC-SHA1 case 6", OFFLOAD_HASH_HMAC_SHA1, RFC2202_K6, BIGKEY, 1,
	  "aa4ae5e15272d00e95705637ce8a3b55ed402112" },
	/* HMAC-SHA2: RFC 4231 test cases 1, 2, 6 */
	{ "RFC 4231 case 1", OFFLOAD_HASH_HMAC_SHA224, RFC4231_K1, "Hi There", 1,
	  "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22" },
	{ "RFC 4231 case 2", OFFLOAD_HASH_HMAC_SHA224, JEFE, WHAT, 1,
	  "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44" },
	{ "RFC 4231 case 6", OFFLOAD_HASH_HMAC_SHA224, RFC4231_K6, BIGKEY, 1,
	  "95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e" },
	{ "RFC 4231 case 1", OFFLOAD_HASH_HMAC_SHA256, RFC4231_K1, "Hi There", 1,
	  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
	{ "RFC 4231 case 2", OFFLOAD_HASH_HMAC_SHA256, JEFE, WHAT, 1,
	  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
	{ "RFC 4231 case 6", OFFLOAD_HASH_HMAC_SHA256, RFC4231_K6, BIGKEY, 1,
	  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
	{ "RFC 4231 case 1", OFFLOAD_HASH_HMAC_SHA384, RFC4231_K1, "Hi There", 1,
	  "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
	  "faea9ea9076ede7f4af152e8b2fa9cb6" },
	{ "RFC 4231 case 2", OFFLOAD_HASH_HMAC_SHA384, JEFE, WHAT, 1,
	  "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
	  "8e2240ca5e69e2c78b3239ecfab21649" },
	{ "RFC 4231 case 6", OFFLOAD_HASH_HMAC_SHA384, RFC4231_K6, BIGKEY, 1,
	  "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6"
	  "0c2ef6ab4030fe8296248df163f44952" },
	{ "RFC 4231 case 1", OFFLOAD_HASH_HMAC_SHA512, RFC4231_K1, "Hi There", 1,
	  "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
	  "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854" },
	{ "RFC 4231 case 2", OFFLOAD_HASH_HMAC_SHA512, JEFE, WHAT, 1,
	  "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
	  "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737" },
	{ "RFC 4231 case 6", OFFLOAD_HASH_HMAC_SHA512, RFC4231_K6, BIGKEY, 1,
	  "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352"
	  "6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598" },
};
const size_t kat_nhash = sizeof(kat_hashes) / sizeof(kat_hashes[0]);

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long kat_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(n / 2);
}
