/* SPDX-License-Identifier: MIT */
/*
 * Inside Secure (Rambus) SafeXcel EIP97 register map, command/result
 * descriptor formats, context record control words and token instruction
 * encoding: the facts the direct backend (backends/eip97) and the
 * register-level model (src/sim/eip97*.c) are both written against.
 *
 * Sources, by the topic marks (§n) used here and in backends/eip97 and
 * src/sim/eip97*.c (Linux drivers/crypto/inside-secure/):
 *   §0/§1 platform, device tree  safexcel.c safexcel_of_match_table,
 *                    safexcel_probe_generic(); binding inside-secure,safexcel.yaml;
 *                    arch/arm64/boot/dts/marvell/armada-37xx.dtsi; §1.3 base
 *                    offsets safexcel_init_register_offsets(); §1.4 version
 *                    registers safexcel.h
 *   §2 registers     safexcel.h offset and register macros; safexcel.c
 *                    safexcel_hw_init()
 *   §3 descriptors   safexcel.h struct safexcel_command_desc,
 *                    safexcel_result_desc; safexcel_ring.c
 *   §4 context record  safexcel.h struct safexcel_context_record;
 *                    safexcel_cipher.c / safexcel_hash.c safexcel_context_control()
 *   §5 tokens        safexcel.h struct safexcel_token; safexcel_cipher.c
 *                    safexcel_skcipher_token(), safexcel_aead_token();
 *                    safexcel_hash.c safexcel_hash_token()
 *   §6 flow          safexcel.c safexcel_hw_init(), safexcel_dequeue(),
 *                    safexcel_rdesc_check_errors(), safexcel_handle_result_descriptor()
 *   §7 algorithms    safexcel.c safexcel_algs[]
 * Registers and descriptor words
 * are 32-bit, little-endian; bit fields are numbered LSB first. Offsets are
 * the EIP97 layout (§1.3): HIA/AIC at 0, DFE 0xf000, DSE 0xf400, PE and the
 * global block at 0x10000. The EIP197 layout is only detected (§1.3), not
 * driven.
 */
#ifndef OFL_HW_EIP97_H
#define OFL_HW_EIP97_H

#include <stdint.h>

#define EIP97_BIT(n) (1u << (n))
#define EIP97_FIELD_GET(v, hi, lo) (((v) >> (lo)) & ((1u << ((hi) - (lo) + 1)) - 1u))
#define EIP97_FIELD_PREP(x, hi, lo) (((uint32_t)(x) & ((1u << ((hi) - (lo) + 1)) - 1u)) << (lo))

/* The register window of an EIP97 node: reg = <0x90000 0x20000> on Armada 37xx (§0). */
#define EIP97_WINDOW_SIZE 0x20000u

/* ---- §1.3, §1.4 identification ---- */
#define EIP97_HIA_VERSION 0xfffcu          /* EIP-202 HIA, EIP97 layout */
#define EIP197_HIA_VERSION 0x9fffcu        /* EIP-202 HIA, EIP197 layout (0x90000 + 0xfffc) */
#define EIP97_GLOBAL_VERSION 0x1fffcu      /* global + 0xfffc: EIP97 top */
#define EIP197_GLOBAL_VERSION 0xffffcu     /* EIP197 global 0xf0000 + 0xfffc */
#define EIP97_SIG_HIA 0x35cau              /* low 16 bits, native byte order */
#define EIP97_SIG_HIA_SWAPPED 0xca35u      /* high 16 bits: registers byte-swapped */
#define EIP97_SIG_EIP97 0x9e61u
#define EIP97_SIG_EIP197 0x3ac5u
#define EIP97_SIG_EIP196 0x3bc4u
#define EIP97_SIG_EIP201 0x36c9u           /* ring AIC */
#define EIP97_SIG_EIP206 0x31ceu           /* processing pipe */
#define EIP97_SIG_EIP96 0x9f60u            /* crypto core */
/* VERSION registers: 7:0 EIP number, 15:8 its complement, 27:16 version (major/minor/patch nibbles). */
#define EIP97_VER_SIG(v) ((v) & 0xffffu)
#define EIP97_VER_MAJOR(v) EIP97_FIELD_GET(v, 27, 24)
#define EIP97_VER_MINOR(v) EIP97_FIELD_GET(v, 23, 20)
#define EIP97_VER_PATCH(v) EIP97_FIELD_GET(v, 19, 16)

/* ---- §2.3 HIA control / options ---- */
#define EIP97_HIA_MST_CTRL 0xfff4u
#define EIP97_HIA_OPTIONS 0xfff8u
#define EIP97_MST_CTRL_BYTE_SWAP EIP97_BIT(24)
#define EIP97_MST_CTRL_NO_BYTE_SWAP EIP97_BIT(25)
/* The swap toggle as seen through a byte-swapped view: bits 25:24 appear as 1:0. */
#define EIP97_MST_CTRL_SWAP_TOGGLE 0x3u
#define EIP97_OPT_RINGS(v) EIP97_FIELD_GET(v, 3, 0)
#define EIP97_OPT_CFSIZE(v) EIP97_FIELD_GET(v, 11, 8)
#define EIP97_OPT_RFSIZE(v) EIP97_FIELD_GET(v, 15, 12)
#define EIP97_OPT_DATAW(v) EIP97_FIELD_GET(v, 27, 25)

/* ---- §2.1 ring (xDR) registers ---- */
#define EIP97_MAX_RINGS 4u                 /* EIP197_MAX_RINGS, Linux max_rings */
#define EIP97_CDR(r) ((uint32_t)(r) * 0x1000u)
#define EIP97_RDR(r) ((uint32_t)(r) * 0x1000u + 0x800u)
#define EIP97_XDR_BASE_LO 0x00u
#define EIP97_XDR_BASE_HI 0x04u
#define EIP97_XDR_RING_SIZE 0x18u          /* bytes */
#define EIP97_XDR_DESC_SIZE 0x1cu
#define EIP97_XDR_CFG 0x20u
#define EIP97_XDR_DMA_CFG 0x24u
#define EIP97_XDR_THRESH 0x28u
#define EIP97_XDR_PREP_COUNT 0x2cu         /* write: + bytes of prepared descriptors */
#define EIP97_XDR_PROC_COUNT 0x30u         /* read: packets 30:24, bytes below; write: subtract */
#define EIP97_XDR_PREP_PNTR 0x34u
#define EIP97_XDR_PROC_PNTR 0x38u
#define EIP97_XDR_STAT 0x3cu
#define EIP97_XDR_REGS 0x40u
/* DESC_SIZE: 15:0 size in words, 23:16 stride in words [width U], bit30 ADCP, bit31 64-bit mode */
#define EIP97_DESC_SIZE_WORDS(v) EIP97_FIELD_GET(v, 15, 0)
#define EIP97_DESC_STRIDE_WORDS(v) EIP97_FIELD_GET(v, 23, 16)
#define EIP97_DESC_STRIDE_MAX 255u         /* the stride field as read here [width U] */
#define EIP97_DESC_ADCP EIP97_BIT(30)
#define EIP97_DESC_64BIT EIP97_BIT(31)
/* CFG: 15:0 fetch count x stride (words), 31:16 fetch count x rounded size (words) */
#define EIP97_CFG_FETCH_STRIDE(v) EIP97_FIELD_GET(v, 15, 0)
#define EIP97_CFG_FETCH_SIZE(v) EIP97_FIELD_GET(v, 31, 16)
/* DMA_CFG as Linux writes it: WR_CACHE 3, RD_CACHE 5 (+ WR_RES_BUF | WR_CTRL_BUF on the RDR) */
#define EIP97_CDR_DMA_CFG 0xa6000000u
#define EIP97_RDR_DMA_CFG 0xa6c00000u
/* THRESH */
#define EIP97_THRESH_PKT_MODE EIP97_BIT(23)
#define EIP97_THRESH_PROC_PKT(v) EIP97_FIELD_GET(v, 21, 0)
/* PREP_COUNT / PROC_COUNT */
#define EIP97_COUNT_CLR EIP97_BIT(31)
#define EIP97_PROC_PKTS(v) EIP97_FIELD_GET(v, 30, 24)
#define EIP97_PROC_PKTS_MAX 127u
#define EIP97_PROC_BYTES(v) ((v) & 0x00fffffcu)
/* STAT (write 1 to clear) */
#define EIP97_STAT_DMA_ERR EIP97_BIT(0)
#define EIP97_STAT_PREP_CMD_THRES EIP97_BIT(1)
#define EIP97_STAT_ERR EIP97_BIT(2)          /* fatal: the ring must be re-initialised */
#define EIP97_STAT_THRESH EIP97_BIT(4)
#define EIP97_STAT_TIMEOUT EIP97_BIT(5)
#define EIP97_CDR_STAT_CLEAR 0x3fu
#define EIP97_RDR_STAT_CLEAR 0xffu

/* ---- §2.2 interrupt controllers ---- */
#define EIP97_AIC_R(r) (0xe000u - (uint32_t)(r) * 0x1000u)
#define EIP97_AIC_SCAN_MAX 14u               /* Linux scans r = 0..13 */
#define EIP97_AIC_ENABLE_CTRL 0x08u
#define EIP97_AIC_ENABLED_STAT 0x10u         /* read */
#define EIP97_AIC_ACK 0x10u                  /* write */
#define EIP97_AIC_ENABLE_CLR 0x14u
#define EIP97_AIC_VERSION 0x1cu
#define EIP97_AIC_CDR_IRQ(r) EIP97_BIT(2u * (r))
#define EIP97_AIC_RDR_IRQ(r) EIP97_BIT(2u * (r) + 1u)
#define EIP97_AIC_G_ENABLE_CTRL 0xf808u
#define EIP97_AIC_G_ENABLED_STAT 0xf810u
#define EIP97_AIC_G_ACK 0xf810u
#define EIP97_AIC_G_ACK_RINGS 0x7ff00000u    /* bits 30:20, written after ring setup */

/* ---- §2.4 data fetch / store engines (PE 0) ---- */
#define EIP97_DFE_CFG 0xf000u
#define EIP97_DFE_THR_CTRL 0xf200u
#define EIP97_DFE_THR_STAT 0xf204u
#define EIP97_DSE_CFG 0xf400u
#define EIP97_DSE_THR_CTRL 0xf600u
#define EIP97_DSE_THR_STAT 0xf604u
#define EIP97_THR_RESET_PE EIP97_BIT(31)
#define EIP97_THR_EN EIP97_BIT(30)
#define EIP97_THR_RING_MASK(v) EIP97_FIELD_GET(v, 15, 0)
#define EIP97_DSE_THR_IDLE 0xf000u           /* THR_STAT bits 15:12: threads idle after reset */
#define EIP97_DFE_CFG_VALUE 0xe7560956u      /* Linux, EIP97 */
#define EIP97_DSE_CFG_VALUE 0xc000c837u

/* ---- §2.5 processing engine ---- */
#define EIP97_PE_IN_DBUF_THRES 0x10000u
#define EIP97_PE_IN_TBUF_THRES 0x10100u
#define EIP97_EIP96_TOKEN_CTRL 0x11000u
#define EIP97_EIP96_FUNCTION_EN 0x11004u
#define EIP97_EIP96_CONTEXT_CTRL 0x11008u
#define EIP97_EIP96_FUNCTION2_EN 0x11030u
#define EIP97_EIP96_OPTIONS 0x113f8u
#define EIP97_EIP96_VERSION 0x113fcu
#define EIP97_PE_OUT_DBUF_THRES 0x11c00u
#define EIP97_PE_OPTIONS 0x11ff8u
#define EIP97_PE_VERSION 0x11ffcu
#define EIP97_GEN_MST_CTRL 0x1fff4u
#define EIP97_GLOBAL_OPTIONS 0x1fff8u
#define EIP97_IN_DBUF_VALUE 0x9600u
#define EIP97_IN_TBUF_VALUE 0x7600u
#define EIP97_OUT_DBUF_VALUE 0x87u
#define EIP97_TOKEN_CTRL_VALUE 0x00430000u   /* CTX_UPDATES | NO_TOKEN_WAIT | ENABLE_TIMEOUT */
#define EIP97_GEN_MST_CTRL_VALUE 0x7bu       /* RD_CACHE 0xb, WR_CACHE 0x7 */
#define EIP97_FUNCTION_ALL 0xffffffffu       /* EIP197_FUNCTION_ALL: FUNCTION_EN, FUNCTION2_EN */

/* EIP96_OPTIONS algorithm bits (enum safexcel_eip_algorithms) that this project uses. */
#define EIP97_ALG_AES EIP97_BIT(12)
#define EIP97_ALG_DES EIP97_BIT(15)
#define EIP97_ALG_MD5 EIP97_BIT(22)
#define EIP97_ALG_SHA1 EIP97_BIT(23)
#define EIP97_ALG_SHA2_256 EIP97_BIT(25)
#define EIP97_ALG_SHA2_512 EIP97_BIT(26)
#define EIP97_ALG_GHASH EIP97_BIT(30)

/* ---- §3.1 command descriptor: 16 words ---- */
#define EIP97_CD_WORDS 16u
#define EIP97_CD_BYTES 64u
#define EIP97_CD_IV_WORDS 4u                 /* words 12..15: IV and/or instructions */
#define EIP97_CD_W_CTRL 0
#define EIP97_CD_W_DATA_LO 2
#define EIP97_CD_W_DATA_HI 3
#define EIP97_CD_W_ATOK_LO 4
#define EIP97_CD_W_ATOK_HI 5
#define EIP97_CD_W_PKT 6
#define EIP97_CD_W_APPID 7
#define EIP97_CD_W_CTX_LO 8
#define EIP97_CD_W_CTX_HI 9
#define EIP97_CD_W_CONTROL0 10
#define EIP97_CD_W_CONTROL1 11
#define EIP97_CD_W_TOKEN 12
/* word 0 */
#define EIP97_CD_PARTICLE(v) ((v) & 0x1ffffu)
#define EIP97_CD_LAST_SEG EIP97_BIT(22)
#define EIP97_CD_FIRST_SEG EIP97_BIT(23)
#define EIP97_CD_ACDATA(v) EIP97_FIELD_GET(v, 31, 24)  /* additional token words at the ATOK pointer */
#define EIP97_CD_ACDATA_PREP(n) EIP97_FIELD_PREP(n, 31, 24)
#define EIP97_LEN_MAX 0x1ffffu               /* 17-bit particle / packet / token lengths */
/* word 6 */
#define EIP97_CD_PKT_LEN(v) ((v) & 0x1ffffu)
#define EIP97_CD_OPTIONS(v) EIP97_FIELD_GET(v, 29, 17)
#define EIP97_CD_OPTIONS_PREP(o) EIP97_FIELD_PREP(o, 29, 17)
#define EIP97_CD_TYPE(v) EIP97_FIELD_GET(v, 31, 30)
#define EIP97_CD_TYPE_BCLA 0u
#define EIP97_CD_TYPE_EXTENDED 3u
/* options (field-relative bits) */
#define EIP97_OPT_MAGIC EIP97_BIT(0)
#define EIP97_OPT_64BIT_CTX EIP97_BIT(1)
#define EIP97_OPT_RC_AUTO (2u << 3)
#define EIP97_OPT_CTX_CTRL_IN_CMD EIP97_BIT(8)
#define EIP97_OPT_IV_FIELD(o) EIP97_FIELD_GET(o, 11, 9)
#define EIP97_OPT_IV4 (7u << 9)              /* 4 IV words in the token */
#define EIP97_OPT_IV2 (6u << 9)              /* 2 IV words */
#define EIP97_OPT_RC_MASK (3u << 3)           /* record-cache control */
#define EIP97_OPT_IV_MASK (7u << 9)
/* every option bit Linux defines (EIP197_OPTION_*); the others are undefined */
#define EIP97_OPT_KNOWN (EIP97_OPT_MAGIC | EIP97_OPT_64BIT_CTX | EIP97_OPT_RC_MASK | \
			 EIP97_OPT_CTX_CTRL_IN_CMD | EIP97_OPT_IV_MASK)
#define EIP97_OPT_BASE (EIP97_OPT_MAGIC | EIP97_OPT_64BIT_CTX | EIP97_OPT_RC_AUTO | \
			EIP97_OPT_CTX_CTRL_IN_CMD) /* 0x113 */
/* word 8: context size code in 1:0, record address 31:2 */
#define EIP97_CTX_SMALL 2u

/* ---- §3.2 result descriptor ---- */
#define EIP97_RD_FETCH_WORDS 4u              /* EIP197_RD64_FETCH_SIZE */
#define EIP97_RD_RESULT_WORDS 8u             /* result token words the driver declares */
#define EIP97_RD_W_CTRL 0
#define EIP97_RD_W_DATA_LO 2
#define EIP97_RD_W_DATA_HI 3
#define EIP97_RD_PARTICLE(v) ((v) & 0x1ffffu)
#define EIP97_RD_DESC_OVF EIP97_BIT(20)
#define EIP97_RD_BUF_OVF EIP97_BIT(21)
#define EIP97_RD_LAST_SEG EIP97_BIT(22)
#define EIP97_RD_FIRST_SEG EIP97_BIT(23)
#define EIP97_RD_RESULT_SIZE(n) EIP97_FIELD_PREP(n, 31, 24)
/* result token word R+0 */
#define EIP97_RES_PKT_LEN(v) ((v) & 0x1ffffu)
#define EIP97_RES_ERR(v) EIP97_FIELD_GET(v, 31, 17)
#define EIP97_RES_ERR_PREP(e) EIP97_FIELD_PREP(e, 31, 17)
#define EIP97_RES_ERR_ALL 0x7fffu            /* the driver's "assume error" preset */

/* §6.4 error_code classes as Linux maps them (safexcel_rdesc_check_errors). */
#define EIP97_ERR_FATAL 0x4066u              /* bits 1, 2, 5, 6, 14: -EIO */
#define EIP97_ERR_LEN 0x0099u                /* bits 0, 3, 4, 7: -EINVAL (takes priority) */
#define EIP97_ERR_ICV 0x0200u                /* bit 9: -EBADMSG */
/*
 * Individual bit names are not given by any source [U]. The model uses
 * these (its choice, within the classes above):
 */
#define EIP97_E_PKT_LEN EIP97_BIT(0)         /* particles do not add up to the packet length */
#define EIP97_E_TOKEN EIP97_BIT(1)           /* invalid token instruction (fatal) */
#define EIP97_E_CONTEXT EIP97_BIT(2)         /* context record / control words unusable (fatal) */
#define EIP97_E_BLOCK EIP97_BIT(3)           /* crypto length not a multiple of the block size */
#define EIP97_E_UNDERRUN EIP97_BIT(4)        /* the token asks for more input than the packet holds */
#define EIP97_E_DMA EIP97_BIT(5)             /* data or context fetch/store outside memory (fatal) */
#define EIP97_E_HASH_BLOCK EIP97_BIT(7)      /* unfinished hash of a partial block */
#define EIP97_E_TIMEOUT EIP97_BIT(14)        /* processing timeout (fatal) */

/* ---- §4 context record ---- */
#define EIP97_CTX_BYTES 168u                 /* control0, control1, data[40] */
#define EIP97_CTX_DATA_OFF 8u                /* key material starts at byte 8 */
#define EIP97_CTX_DATA_WORDS 40u
/* control0 */
#define EIP97_C0_TYPE(v) ((v) & 0xfu)
#define EIP97_C0_TYPE_HASH_OUT 0x2u
#define EIP97_C0_TYPE_CRYPTO_OUT 0x4u
#define EIP97_C0_TYPE_CRYPTO_IN 0x5u
#define EIP97_C0_TYPE_ENCRYPT_HASH_OUT 0x6u
#define EIP97_C0_TYPE_HASH_DECRYPT_IN 0xfu
#define EIP97_C0_RESTART_HASH EIP97_BIT(4)
#define EIP97_C0_NO_FINISH_HASH EIP97_BIT(5)
#define EIP97_C0_SIZE(n) EIP97_FIELD_PREP(n, 15, 8)
#define EIP97_C0_SIZE_GET(v) EIP97_FIELD_GET(v, 15, 8)
#define EIP97_C0_KEY_EN EIP97_BIT(16)
#define EIP97_C0_CALG(a) EIP97_FIELD_PREP(a, 20, 17)
#define EIP97_C0_CALG_GET(v) EIP97_FIELD_GET(v, 20, 17)
#define EIP97_CALG_DES 0u
#define EIP97_CALG_3DES 2u
#define EIP97_CALG_AES128 5u
#define EIP97_CALG_AES192 6u
#define EIP97_CALG_AES256 7u
#define EIP97_C0_DIGEST(d) EIP97_FIELD_PREP(d, 22, 21)
#define EIP97_C0_DIGEST_GET(v) EIP97_FIELD_GET(v, 22, 21)
#define EIP97_DIGEST_INITIAL 0u
#define EIP97_DIGEST_PRECOMPUTED 1u
#define EIP97_DIGEST_XCM 2u
#define EIP97_DIGEST_HMAC 3u
#define EIP97_C0_HALG(h) EIP97_FIELD_PREP(h, 26, 23)
#define EIP97_C0_HALG_GET(v) EIP97_FIELD_GET(v, 26, 23)
#define EIP97_HALG_MD5 0u
#define EIP97_HALG_SHA1 2u
#define EIP97_HALG_SHA256 3u
#define EIP97_HALG_SHA224 4u                 /* also GHASH with DIGEST_XCM */
#define EIP97_HALG_GHASH 4u
#define EIP97_HALG_SHA512 5u
#define EIP97_HALG_SHA384 6u
/* control1 */
#define EIP97_C1_MODE(v) ((v) & 0xfu)
#define EIP97_MODE_ECB 0u
#define EIP97_MODE_CBC 1u
#define EIP97_MODE_CTR_LOAD 6u               /* 32-bit big-endian counter in IV word 3 */
#define EIP97_C1_DIGEST_CNT EIP97_BIT(9)
#define EIP97_C1_XCM EIP97_BIT(17)
/* The digest count in the context counts 64-byte blocks (EIP197_COUNTER_BLOCK_SIZE). */
#define EIP97_COUNTER_BLOCK 64u

/* ---- §5.1 token instructions ---- */
#define EIP97_TOK_LEN(w) ((w) & 0x1ffffu)
#define EIP97_TOK_STAT(w) EIP97_FIELD_GET(w, 18, 17)
#define EIP97_TOK_INS(w) EIP97_FIELD_GET(w, 27, 19)
#define EIP97_TOK_OP(w) ((w) >> 28)
#define EIP97_TOKEN(op, ins, stat, len)                                                  \
	(((uint32_t)(op) << 28) | EIP97_FIELD_PREP(ins, 27, 19) | EIP97_FIELD_PREP(stat, 18, 17) | \
	 ((uint32_t)(len) & 0x1ffffu))
#define EIP97_OP_DIRECTION 0x0u
#define EIP97_OP_INSERT 0x2u
#define EIP97_OP_RETRIEVE 0x4u
#define EIP97_OP_INSERT_REMRES 0xau
#define EIP97_OP_VERIFY 0xdu
#define EIP97_OP_CTX_ACCESS 0xeu
#define EIP97_OP_BYPASS 0xfu
#define EIP97_STAT_LAST_HASH 0x1u
#define EIP97_STAT_LAST_PACKET 0x2u
#define EIP97_INS_TYPE_OUTPUT 0x20u
#define EIP97_INS_TYPE_HASH 0x40u
#define EIP97_INS_TYPE_CRYPTO 0x80u
#define EIP97_INS_LAST 0x100u
#define EIP97_INS_SUB(i) ((i) & 0x1fu)
#define EIP97_INS_INSERT_HASH_DIGEST 0x1cu
#define EIP97_INS_ORIGIN_IV0 0x14u
#define EIP97_INS_ORIGIN_TOKEN 0x1bu
#define EIP97_VERIFY_HASH_RESULT EIP97_BIT(16)
#define EIP97_TOKEN_NOOP 0x20000004u         /* INSERT of 4 bytes to nowhere */
#define EIP97_ATOK_WORDS 16u                 /* one shadow-ring block */

/* ---- §3.2 ring geometry for a bus width (hwdataw = log2 of 32-bit words per bus word) ---- */
static inline uint32_t eip97_round_words(uint32_t words, uint32_t hwdataw)
{
	uint32_t mask = (1u << hwdataw) - 1u;
	return (words + mask) & ~mask;
}
/* Result token offset in words (4 rounded up to the bus width). */
static inline uint32_t eip97_res_offset(uint32_t hwdataw)
{
	return eip97_round_words(EIP97_RD_FETCH_WORDS, hwdataw);
}
/* RD stride in words: res_offset + 8, rounded up. */
static inline uint32_t eip97_rd_stride(uint32_t hwdataw)
{
	return eip97_round_words(eip97_res_offset(hwdataw) + EIP97_RD_RESULT_WORDS, hwdataw);
}

#endif /* OFL_HW_EIP97_H */
