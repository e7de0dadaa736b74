/* SPDX-License-Identifier: MIT */
/*
 * The EIP97 model at register level, driven by hand-built descriptors with
 * literal values derived from Linux drivers/crypto/inside-secure (sources by
 * topic in src/hw/eip97.h; the token sequences of §5.3 and
 * init values §6.1), never with backends/eip97 code. Expected outputs are
 * standard vectors (SP 800-38A, FIPS 180-2, the GCM specification test
 * cases, RFC 4231) or OpenSSL computing the same thing independently.
 */
#include <openssl/evp.h>
#include <string.h>

#include "core/internal.h"
#include "hw/eip97.h"
#include "platform/platform.h"
#include "sim/eip97_model.h"
#include "sim/sim.h"
#include "simutil.h"
#include "testutil.h"

#define BASE 0xd0090000ull
#define SLOTS 400u
#define RD_STRIDE 48u /* hwdataw 2: 12 words */

struct mfx {
	offload_ctx *ctx;
	struct ofl_sim *sim;
	struct ofl_sim_eip97 *m;
	struct ofl_mmio regs;
	uint8_t *cdr, *rdr, *atok, *rec, *buf;
	uint64_t cdr_p, rdr_p, atok_p, rec_p, buf_p;
	uint32_t cd_w, rd_w;
};

static void *mem(struct mfx *f, size_t n, uint64_t *phys)
{
	void *cpu;
	ck_assert_ptr_nonnull(ofl_sim_mem_alloc(f->sim, n, OFL_SIM_MEM_COHERENT, &cpu, phys));
	return cpu;
}

static uint32_t rr(struct mfx *f, uint32_t off)
{
	return ofl_mmio_read32(&f->regs, off);
}

static void ww(struct mfx *f, uint32_t off, uint32_t v)
{
	ofl_mmio_write32(&f->regs, off, v);
}

static void world(struct mfx *f, const struct ofl_sim_eip97_params *p)
{
	memset(f, 0, sizeof(*f));
	f->ctx = test_ctx_open(OFFLOAD_DT_NONE, NULL, OFFLOAD_CTX_SIM, "cpu");
	f->sim = ofl_sim_of(f->ctx);
	ck_assert_ptr_nonnull(f->sim);
	f->m = ofl_sim_eip97_create(f->sim, p);
	ck_assert_ptr_nonnull(f->m);
	ck_assert_int_eq(ofl_mmio_map_sim(f->sim, p->base, p->size, &f->regs), 0);
}

static void world_free(struct mfx *f)
{
	offload_ctx_free(f->ctx);
}

/* Ring 0 per hw/eip97.h §6.1 with its literal values (hwdataw 2, cfsize/rfsize 5). */
static void ring_setup(struct mfx *f)
{
	ww(f, EIP97_CDR(0) + 0x20, 0);
	ww(f, EIP97_RDR(0) + 0x20, 0);
	ww(f, EIP97_CDR(0) + 0x2c, 0x80000000);
	ww(f, EIP97_CDR(0) + 0x30, 0x80000000);
	ww(f, EIP97_RDR(0) + 0x2c, 0x80000000);
	ww(f, EIP97_RDR(0) + 0x30, 0x80000000);
	ww(f, EIP97_CDR(0) + 0x34, 0);
	ww(f, EIP97_CDR(0) + 0x38, 0);
	ww(f, EIP97_RDR(0) + 0x34, 0);
	ww(f, EIP97_RDR(0) + 0x38, 0);
	ww(f, EIP97_CDR(0) + 0x18, SLOTS * 64u);
	ww(f, EIP97_RDR(0) + 0x18, SLOTS * RD_STRIDE);
	ww(f, 0xf200, 0x4000000f);
	ww(f, 0xf600, 0x4000000f);
	ww(f, EIP97_CDR(0) + 0x00, (uint32_t)f->cdr_p);
	ww(f, EIP97_CDR(0) + 0x04, (uint32_t)(f->cdr_p >> 32));
	ww(f, EIP97_CDR(0) + 0x1c, 0xc0100010);     /* 64-bit | ADCP | stride 16 w | 16 w */
	ww(f, EIP97_CDR(0) + 0x20, 7u * 16u << 16 | 7u * 16u); /* 2^5 / 4 - 1 = 7 CDs */
	ww(f, EIP97_CDR(0) + 0x24, 0xa6000000);
	ww(f, EIP97_CDR(0) + 0x3c, 0x3f);
	ww(f, EIP97_RDR(0) + 0x00, (uint32_t)f->rdr_p);
	ww(f, EIP97_RDR(0) + 0x04, (uint32_t)(f->rdr_p >> 32));
	ww(f, EIP97_RDR(0) + 0x1c, 0x800c000c);
	ww(f, EIP97_RDR(0) + 0x20, 31u * 4u << 16 | 31u * 12u); /* 2^5 / 1 - 1 = 31 RDs */
	ww(f, EIP97_RDR(0) + 0x24, 0xa6c00000);
	ww(f, EIP97_RDR(0) + 0x3c, 0xff);
	/* safexcel_try_push_requests(): packet mode, an interrupt per packet */
	ww(f, EIP97_RDR(0) + 0x28, 1u << 23 | 1u);
	f->cd_w = f->rd_w = 0;
}

/*
 * Linux safexcel_hw_init() on the EIP97 path with its literal values (§6.1):
 * master control, DFE reset and configuration, PE input thresholds, DSE
 * reset, its idle handshake and configuration, PE output threshold, EIP-96
 * token control and functions, then ring 0. `skip` (an offset, or 0) is
 * written as its value with bit 0 flipped, as a driver with a wrong value
 * would.
 */
static const struct {
	uint32_t off, val;
	const char *name;
} linux_init[] = {
	{ 0x1fff4, 0x7b, "MST_CTRL" },          /* EIP197_MST_CTRL_RD_CACHE(0xb) | WD_CACHE(7) */
	{ 0xf000, 0xe7560956, "DFE_CFG" },      /* DIS_DEBUG, data 6/9, ctrl 6/7, cache 5 */
	{ 0x10000, 0x9600, "PE_IN_DBUF_THRES" },
	{ 0x10100, 0x7600, "PE_IN_TBUF_THRES" },
	{ 0xf400, 0xc000c837, "DSE_CFG" },      /* DIS_DEBUG, data 7/8, cache 3, bufferable */
	{ 0x11c00, 0x87, "PE_OUT_DBUF_THRES" },
	{ 0x11000, 0x00430000, "TOKEN_CTRL" },  /* CTX_UPDATES | NO_TOKEN_WAIT | ENABLE_TIMEOUT */
	{ 0x11004, 0xffffffff, "FUNCTION_EN" }, /* EIP197_FUNCTION_ALL */
	{ 0x11030, 0xffffffff, "FUNCTION2_EN" },
};

static void init_reg(struct mfx *f, uint32_t off, uint32_t skip)
{
	for (size_t i = 0; i < sizeof(linux_init) / sizeof(linux_init[0]); i++)
		if (linux_init[i].off == off)
			ww(f, off, linux_init[i].val ^ (off == skip ? 1u : 0u));
}

static void hw_init_but(struct mfx *f, uint32_t skip)
{
	init_reg(f, 0x1fff4, skip);
	ww(f, 0xf808, 0);
	ww(f, 0xf810, 0xffffffff);
	ww(f, 0xf200, 0x80000000);
	init_reg(f, 0xf000, skip);
	ww(f, 0xf200, 0);
	init_reg(f, 0x10000, skip);
	init_reg(f, 0x10100, skip);
	ww(f, 0xf600, 0x80000000);
	ck_assert_uint_eq(rr(f, 0xf604) & 0xf000, 0xf000);
	init_reg(f, 0xf400, skip);
	ww(f, 0xf600, 0);
	init_reg(f, 0x11c00, skip);
	init_reg(f, 0x11000, skip);
	init_reg(f, 0x11004, skip);
	init_reg(f, 0x11030, skip);
	ring_setup(f);
}

static void hw_init(struct mfx *f)
{
	hw_init_but(f, 0);
}

static void engine_mem(struct mfx *f)
{
	struct ofl_sim_eip97_params p = { .base = BASE, .size = 0x20000, .node = -1 };

	world(f, &p);
	f->cdr = mem(f, SLOTS * 64u, &f->cdr_p);
	f->rdr = mem(f, SLOTS * RD_STRIDE, &f->rdr_p);
	f->atok = mem(f, SLOTS * 64u, &f->atok_p);
	f->rec = mem(f, EIP97_CTX_BYTES, &f->rec_p);
	f->buf = mem(f, 4096, &f->buf_p);
}

static void engine(struct mfx *f)
{
	engine_mem(f);
	hw_init(f);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void unhex(const char *h, uint8_t *out)
{
	for (size_t i = 0; h[2 * i]; i++) {
		unsigned v;
		ck_assert(sscanf(h + 2 * i, "%2x", &v) == 1);
		out[i] = (uint8_t)v;
	}
}

/* A CD: w0..w3 per segment; the first also gets w6.., the control words and 4 token words. */
struct cdspec {
	uint32_t acdata, w6, c0, c1, tok[4];
	const uint32_t *atok;
};

/* Write a packet's CDs (segments at buf offsets) and RDs; no doorbell. */
static void packet(struct mfx *f, const struct cdspec *c, const uint32_t (*in)[2], unsigned nin,
		   const uint32_t (*out)[2], unsigned nout)
{
	uint32_t first = f->cd_w;

	for (unsigned i = 0; i < nin; i++) {
		uint8_t *cd = f->cdr + (size_t)(f->cd_w++ % SLOTS) * 64u;
		uint64_t a = f->atok_p + (uint64_t)(first % SLOTS) * 64u;
		memset(cd, 0, 64);
		put32(cd, in[i][1] | (i + 1 == nin ? 1u << 22 : 0) | (i == 0 ? 1u << 23 | c->acdata << 24 : 0));
		put32(cd + 8, (uint32_t)(f->buf_p + in[i][0]));
		put32(cd + 12, (uint32_t)((f->buf_p + in[i][0]) >> 32));
		put32(cd + 16, (uint32_t)a);
		put32(cd + 20, (uint32_t)(a >> 32));
		if (i)
			continue;
		put32(cd + 24, c->w6);
		put32(cd + 32, (uint32_t)f->rec_p | 2u);
		put32(cd + 36, (uint32_t)(f->rec_p >> 32));
		put32(cd + 40, c->c0);
		put32(cd + 44, c->c1);
		for (int k = 0; k < 4; k++)
			put32(cd + 48 + 4 * k, c->tok[k]);
	}
	for (unsigned k = 0; k < c->acdata; k++)
		put32(f->atok + (size_t)(first % SLOTS) * 64u + 4u * k, c->atok[k]);
	for (unsigned i = 0; i < nout; i++) {
		uint8_t *rd = f->rdr + (size_t)(f->rd_w++ % SLOTS) * RD_STRIDE;
		memset(rd, 0, RD_STRIDE);
		put32(rd, out[i][1] | 3u << 20 | (i == 0 ? 1u << 23 : 0) | (i + 1 == nout ? 1u << 22 : 0) |
				  8u << 24);
		put32(rd + 8, (uint32_t)(f->buf_p + out[i][0]));
		put32(rd + 12, (uint32_t)((f->buf_p + out[i][0]) >> 32));
		put32(rd + 16, 0x7fffu << 17);
	}
}

static void doorbell(struct mfx *f, uint32_t ncd, uint32_t nrd)
{
	ww(f, EIP97_RDR(0) + 0x2c, nrd * RD_STRIDE);
	ww(f, EIP97_CDR(0) + 0x2c, ncd * 64u);
	ck_assert_int_eq(ofl_sim_wait_idle(f->sim, (int64_t)(TEST_PATIENT_NS / 1000u)), 0);
}

/* Word 0 and the error code of RD `i` (ring order). */
static uint32_t rd_w0(struct mfx *f, uint32_t i)
{
	return get32(f->rdr + (size_t)(i % SLOTS) * RD_STRIDE);
}

static uint32_t rd_err(struct mfx *f, uint32_t i)
{
	return get32(f->rdr + (size_t)(i % SLOTS) * RD_STRIDE + 16) >> 17;
}

/* One single-particle packet in buf[0, n) -> buf[out_off, out_off + outn); returns the error code. */
static uint32_t run1(struct mfx *f, const struct cdspec *c, uint32_t n, uint32_t out_off, uint32_t outn)
{
	const uint32_t in[1][2] = { { 0, n } }, out[1][2] = { { out_off, outn } };
	uint32_t rd = f->rd_w;

	packet(f, c, in, 1, out, 1);
	doorbell(f, 1, 1);
	ck_assert_uint_eq(rr(f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
	ww(f, EIP97_RDR(0) + 0x30, 1u << 24 | RD_STRIDE);
	return rd_err(f, rd);
}

/* ------------------------------------------------------------- identification */

START_TEST(ids_as_linux_probe_reads_them)
{
	struct mfx f;
	struct ofl_sim_eip97_params p = { .base = BASE, .size = 0x20000, .node = -1 };

	world(&f, &p);
	/* §2.6: the reads a Linux-style probe does and the signatures it wants */
	ck_assert_uint_eq(rr(&f, 0xfffc) & 0xffff, 0x35ca);
	ck_assert_uint_eq(rr(&f, 0x1fffc) & 0xffff, 0x9e61);
	ck_assert_uint_eq(rr(&f, 0x11ffc) & 0xffff, 0x31ce);
	ck_assert_uint_eq(rr(&f, 0x113fc) & 0xffff, 0x9f60);
	ck_assert_uint_eq(rr(&f, 0xe01c) & 0xffff, 0x36c9);
	ck_assert_uint_eq(rr(&f, 0xd01c) & 0xffff, 0x36c9);
	ck_assert_uint_eq(rr(&f, 0xc01c) & 0xffff, 0x36c9);
	ck_assert_uint_eq(rr(&f, 0xb01c) & 0xffff, 0x36c9);
	ck_assert_uint_ne(rr(&f, 0xa01c) & 0xffff, 0x36c9);
	uint32_t o = rr(&f, 0xfff8);
	ck_assert_uint_eq(o & 0xf, 4);            /* rings */
	ck_assert_uint_eq((o >> 25) & 7, 2);      /* 128-bit bus */
	/* the algorithms the model computes: AES, DES, MD5, SHA1, SHA2-256/512, GHASH */
	uint32_t a = rr(&f, 0x113f8);
	ck_assert_uint_eq(a & 0x46c09000u, 0x46c09000u);
	world_free(&f);
}
END_TEST

START_TEST(byte_swapped_until_toggled)
{
	struct mfx f;
	struct ofl_sim_eip97_params p = { .base = BASE, .size = 0x20000, .byte_swapped = true, .node = -1 };

	world(&f, &p);
	uint32_t v = rr(&f, 0xfffc);
	ck_assert_uint_eq(v >> 16, 0xca35);
	/* §1.3 step 3: toggle bits 25:24, seen as 1:0 through the swap */
	ww(&f, 0xfff4, rr(&f, 0xfff4) ^ 3u);
	ck_assert_uint_eq(rr(&f, 0xfffc) & 0xffff, 0x35ca);
	world_free(&f);
}
END_TEST

START_TEST(eip197_layout_signatures)
{
	struct mfx f;
	struct ofl_sim_eip97_params p = { .base = 0xf2800000, .size = 0x200000, .eip197_layout = true,
					  .node = -1 };

	world(&f, &p);
	ck_assert_uint_ne(rr(&f, 0xfffc) & 0xffff, 0x35ca);
	ck_assert_uint_eq(rr(&f, 0x9fffc) & 0xffff, 0x35ca);
	ck_assert_uint_eq(rr(&f, 0xffffc) & 0xffff, 0x3ac5);
	world_free(&f);
}
END_TEST

/* ------------------------------------------------------------- worked examples */

static const char *const f21_key = "2b7e151628aed2a6abf7158809cf4f3c";
static const char *const f21_pt = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
				  "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char *const f21_ct = "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
				  "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7";

/* §5.3 (a): AES-128-CBC, 64 bytes, token 0x0d060040 in the shadow block, word 6 0x1e260040. */
static void cbc_spec(struct mfx *f, struct cdspec *c, uint32_t c0, uint32_t *atok)
{
	uint8_t key[16], iv[16];

	unhex(f21_key, key);
	for (int i = 0; i < 16; i++)
		iv[i] = (uint8_t)i;
	memcpy(f->rec + 8, key, 16); /* key at byte 8, raw order (§4.3) */
	atok[0] = 0x0d060040;
	*c = (struct cdspec){ .acdata = 1, .w6 = 0x1e260040, .c0 = c0, .c1 = 1, .atok = atok };
	for (int i = 0; i < 4; i++)
		c->tok[i] = get32(iv + 4 * i);
}

START_TEST(aes_cbc_worked_example)
{
	struct mfx f;
	struct cdspec c;
	uint32_t atok[1];
	uint8_t pt[64], ct[64];

	engine(&f);
	unhex(f21_pt, pt);
	unhex(f21_ct, ct);
	cbc_spec(&f, &c, 0x000b0404, atok);
	memcpy(f.buf, pt, 64);
	ck_assert_uint_eq(run1(&f, &c, 64, 1024, 64), 0);
	ck_assert_mem_eq(f.buf + 1024, ct, 64);
	/* the RD came back without the "assume error" overflow bits, first/last kept */
	ck_assert_uint_eq(rd_w0(&f, 0) & (3u << 20), 0);
	ck_assert_uint_eq(rd_w0(&f, 0) & 0x1ffff, 64);
	/* decrypt: control0 0x000b0405 */
	memcpy(f.buf, ct, 64);
	cbc_spec(&f, &c, 0x000b0405, atok);
	ck_assert_uint_eq(run1(&f, &c, 64, 1024, 64), 0);
	ck_assert_mem_eq(f.buf + 1024, pt, 64);
	world_free(&f);
}
END_TEST

START_TEST(multi_segment_particles)
{
	struct mfx f;
	struct cdspec c;
	uint32_t atok[1];
	uint8_t pt[64], ct[64];
	/* input as 16 + 32 + 16 bytes from scattered places, output over 40 + 24 bytes */
	const uint32_t in[3][2] = { { 0, 16 }, { 256, 32 }, { 512, 16 } };
	const uint32_t out[2][2] = { { 1024, 40 }, { 2048, 24 } };

	engine(&f);
	unhex(f21_pt, pt);
	unhex(f21_ct, ct);
	memcpy(f.buf, pt, 16);
	memcpy(f.buf + 256, pt + 16, 32);
	memcpy(f.buf + 512, pt + 48, 16);
	cbc_spec(&f, &c, 0x000b0404, atok);
	packet(&f, &c, in, 3, out, 2);
	doorbell(&f, 3, 2);
	/* one packet, two RDs of 48 bytes processed (§2.1 PROC_COUNT) */
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | 2u * RD_STRIDE);
	ck_assert_uint_eq(rd_err(&f, 1), 0);
	ck_assert_mem_eq(f.buf + 1024, ct, 40);
	ck_assert_mem_eq(f.buf + 2048, ct + 40, 24);
	ck_assert_uint_eq(rd_w0(&f, 0) & 0x1ffff, 40);
	ck_assert_uint_eq(rd_w0(&f, 1) & 0x1ffff, 24);
	world_free(&f);
}
END_TEST

static const uint32_t sha_tok[4] = { 0x02020003, 0x20000004, 0x21e60020, 0x20000004 };

START_TEST(sha256_worked_example)
{
	struct mfx f;
	uint8_t want[32];

	engine(&f);
	/* §5.3 (c) for N = 3: "abc", FIPS 180-2 B.1 */
	unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want);
	memcpy(f.buf, "abc", 3);
	struct cdspec c = { .w6 = 3u | 0x113u << 17, .c0 = 0x01a00112, .c1 = 0 };
	memcpy(c.tok, sha_tok, sizeof(sha_tok));
	ck_assert_uint_eq(run1(&f, &c, 3, 1024, 32), 0);
	ck_assert_mem_eq(f.buf + 1024, want, 32);
	world_free(&f);
}
END_TEST

static void sha256_ref(const void *p, size_t n, uint8_t out[32])
{
	unsigned l = 0;
	ck_assert(EVP_Digest(p, n, out, &l, EVP_sha256(), NULL) == 1);
}

START_TEST(hash_continue_with_digest_count)
{
	struct mfx f;
	uint8_t msg[67], want[32], st[32];

	engine(&f);
	memset(msg, 'a', 64);
	memcpy(msg + 64, "abc", 3);
	sha256_ref(msg, sizeof(msg), want);
	/* first block: RESTART | NO_FINISH, the state comes out in the engine's own format */
	memcpy(f.buf, msg, 64);
	struct cdspec c = { .w6 = 64u | 0x113u << 17, .c0 = 0x01a00112 | 0x20, .c1 = 0 };
	memcpy(c.tok, sha_tok, sizeof(sha_tok));
	c.tok[0] = 0x02020040;
	ck_assert_uint_eq(run1(&f, &c, 64, 1024, 32), 0);
	memcpy(st, f.buf + 1024, 32);
	/* final: PRECOMPUTED | SIZE(9), state then count 1 (64-byte blocks, LE) with DIGEST_CNT */
	memcpy(f.rec + 8, st, 32);
	put32(f.rec + 8 + 32, 1);
	memcpy(f.buf, msg + 64, 3);
	struct cdspec d = { .w6 = 3u | 0x113u << 17, .c0 = 0x01a00902, .c1 = 1u << 9 };
	memcpy(d.tok, sha_tok, sizeof(sha_tok));
	ck_assert_uint_eq(run1(&f, &d, 3, 1024, 32), 0);
	ck_assert_mem_eq(f.buf + 1024, want, 32);
	world_free(&f);
}
END_TEST

/* RFC 4231 test case 2 through the engine's own ipad/opad states and a one-pass HMAC (0x01e01002). */
START_TEST(hmac_sha256_one_pass)
{
	struct mfx f;
	uint8_t want[32], istate[32], ostate[32];
	const char *data = "what do ya want for nothing?";

	engine(&f);
	unhex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", want);
	for (int pass = 0; pass < 2; pass++) {
		memset(f.buf, pass ? 0x5c : 0x36, 64);
		for (int i = 0; i < 4; i++)
			f.buf[i] ^= (uint8_t)"Jefe"[i];
		struct cdspec c = { .w6 = 64u | 0x113u << 17, .c0 = 0x01a00112 | 0x20, .c1 = 0 };
		memcpy(c.tok, sha_tok, sizeof(sha_tok));
		c.tok[0] = 0x02020040;
		ck_assert_uint_eq(run1(&f, &c, 64, 1024, 32), 0);
		memcpy(pass ? ostate : istate, f.buf + 1024, 32);
	}
	memcpy(f.rec + 8, istate, 32);
	memcpy(f.rec + 40, ostate, 32);
	size_t n = strlen(data);
	memcpy(f.buf, data, n);
	struct cdspec h = { .w6 = (uint32_t)n | 0x113u << 17, .c0 = 0x01e01002, .c1 = 0 };
	memcpy(h.tok, sha_tok, sizeof(sha_tok));
	h.tok[0] = 0x02020000 | (uint32_t)n;
	ck_assert_uint_eq(run1(&f, &h, (uint32_t)n, 1024, 32), 0);
	ck_assert_mem_eq(f.buf + 1024, want, 32);
	world_free(&f);
}
END_TEST

/* The GCM specification (McGrew, Viega), test case 4. */
static const char *const gcm_k = "feffe9928665731c6d6a8f9467308308";
static const char *const gcm_h = "b83b533708bf535d0aa6e52980d53b78"; /* H = E_K(0^128) from the spec */
static const char *const gcm_iv = "cafebabefacedbaddecaf888";
static const char *const gcm_a = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char *const gcm_p = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
				 "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char *const gcm_c = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
				 "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091";
static const char *const gcm_t = "5bc94fbc3221a5db94fae95ae7121a47";

/* Context: key, then H stored byte-reversed per 32-bit word (§4.3) unless `raw`. */
static void gcm_record(struct mfx *f, bool raw)
{
	uint8_t h[16];

	unhex(gcm_k, f->rec + 8);
	unhex(gcm_h, h);
	for (int i = 0; i < 16; i++)
		f->rec[8 + 16 + i] = raw ? h[i] : h[(i & ~3) + 3 - (i & 3)];
}

static void gcm_iv_words(struct cdspec *c)
{
	uint8_t iv[16] = { 0 };

	unhex(gcm_iv, iv);
	iv[15] = 1; /* counter 1, big-endian */
	for (int i = 0; i < 4; i++)
		c->tok[i] = get32(iv + 4 * i);
}

static uint32_t gcm_encrypt(struct mfx *f)
{
	/* §5.3 (b) with A = 20, C = 60, tag 16 */
	static const uint32_t atok[5] = { 0x0a000014, 0xa0800000, 0x25000010, 0x0f02003c, 0x21e60010 };
	struct cdspec c = { .acdata = 5, .w6 = 80u | 0xf13u << 17, .c0 = 0x024b0806, .c1 = 0x20006,
			    .atok = atok };
	const uint32_t in[2][2] = { { 0, 20 }, { 20, 60 } }, out[2][2] = { { 1024, 60 }, { 2048, 16 } };
	uint32_t rd = f->rd_w;

	gcm_iv_words(&c);
	unhex(gcm_a, f->buf);
	unhex(gcm_p, f->buf + 20);
	packet(f, &c, in, 2, out, 2);
	doorbell(f, 2, 2);
	ww(f, EIP97_RDR(0) + 0x30, rr(f, EIP97_RDR(0) + 0x30));
	return rd_err(f, rd + 1);
}

static uint32_t gcm_decrypt(struct mfx *f, bool flip)
{
	static const uint32_t atok[6] = { 0x0a000014, 0xa0800000, 0x25000010,
					  0x0f02003c, 0x40e60010, 0xd1070010 };
	struct cdspec c = { .acdata = 6, .w6 = 96u | 0xf13u << 17, .c0 = 0x024b080f, .c1 = 0x20006,
			    .atok = atok };
	const uint32_t in[1][2] = { { 0, 96 } }, out[1][2] = { { 1024, 60 } };
	uint32_t rd = f->rd_w;

	gcm_iv_words(&c);
	unhex(gcm_a, f->buf);
	unhex(gcm_c, f->buf + 20);
	unhex(gcm_t, f->buf + 80);
	if (flip)
		f->buf[95] ^= 0x80;
	packet(f, &c, in, 1, out, 1);
	doorbell(f, 1, 1);
	ww(f, EIP97_RDR(0) + 0x30, rr(f, EIP97_RDR(0) + 0x30));
	return rd_err(f, rd);
}

START_TEST(gcm_worked_example)
{
	struct mfx f;
	uint8_t c[60], t[16], p[60];

	engine(&f);
	unhex(gcm_c, c);
	unhex(gcm_t, t);
	unhex(gcm_p, p);
	gcm_record(&f, false);
	ck_assert_uint_eq(gcm_encrypt(&f), 0);
	ck_assert_mem_eq(f.buf + 1024, c, 60);
	ck_assert_mem_eq(f.buf + 2048, t, 16);
	ck_assert_uint_eq(gcm_decrypt(&f, false), 0);
	ck_assert_mem_eq(f.buf + 1024, p, 60);
	/* a wrong tag: the hardware's ICV error, bit 9 (§6.4) */
	ck_assert_uint_eq(gcm_decrypt(&f, true), 0x200);
	world_free(&f);
}
END_TEST

START_TEST(gcm_h_in_wrong_byte_order)
{
	struct mfx f;
	uint8_t c[60], t[16];

	engine(&f);
	unhex(gcm_c, c);
	unhex(gcm_t, t);
	gcm_record(&f, true); /* H as plain bytes: the trap of §4.3 */
	ck_assert_uint_eq(gcm_encrypt(&f), 0);
	ck_assert_mem_eq(f.buf + 1024, c, 60);          /* CTR does not use H */
	ck_assert(memcmp(f.buf + 2048, t, 16) != 0);    /* the tag does */
	ck_assert_uint_eq(gcm_decrypt(&f, false), 0x200);
	world_free(&f);
}
END_TEST

/* CTR_LOAD: a 32-bit big-endian counter that wraps without carrying into word 2. */
START_TEST(ctr_load_counter_wraps_32_bits)
{
	struct mfx f;
	uint8_t key[16], ctr[16], blocks[32], ks[32], want[32];
	int l = 0;

	engine(&f);
	unhex(f21_key, key);
	memcpy(f.rec + 8, key, 16);
	memset(ctr, 0x11, 12);
	memset(ctr + 12, 0xff, 4);
	/* keystream = AES_K(ctr), AES_K(ctr with the low word 0 and word 2 unchanged) */
	memcpy(blocks, ctr, 16);
	memcpy(blocks + 16, ctr, 12);
	memset(blocks + 28, 0, 4);
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	ck_assert(EVP_EncryptInit_ex(x, EVP_aes_128_ecb(), NULL, key, NULL) == 1);
	EVP_CIPHER_CTX_set_padding(x, 0);
	ck_assert(EVP_EncryptUpdate(x, ks, &l, blocks, 32) == 1);
	EVP_CIPHER_CTX_free(x);
	for (int i = 0; i < 32; i++) {
		f.buf[i] = (uint8_t)(3 * i + 1);
		want[i] = f.buf[i] ^ ks[i];
	}
	static uint32_t atok[1] = { 0x0d060020 };
	struct cdspec c = { .acdata = 1, .w6 = 32u | 0xf13u << 17, .c0 = 0x000b0404, .c1 = 6,
			    .atok = atok };
	for (int i = 0; i < 4; i++)
		c.tok[i] = get32(ctr + 4 * i);
	ck_assert_uint_eq(run1(&f, &c, 32, 1024, 32), 0);
	ck_assert_mem_eq(f.buf + 1024, want, 32);
	world_free(&f);
}
END_TEST

/* ------------------------------------------------------------- errors */

static uint32_t ecb_with(struct mfx *f, uint32_t n, uint32_t tok2, uint32_t c0, uint32_t pkt_len)
{
	unhex(f21_key, f->rec + 8);
	struct cdspec c = { .w6 = pkt_len | 0xd13u << 17, .c0 = c0, .c1 = 0 };
	c.tok[2] = tok2;
	c.tok[3] = 0x20000004;
	return run1(f, &c, n, 1024, 64);
}

START_TEST(error_bits_as_linux_classes)
{
	struct mfx f;

	engine(&f);
	memset(f.buf, 0x5a, 64);
	/* a good AES-ECB packet: 2-IV option, instruction in word 14, NOOP in 15 */
	ck_assert_uint_eq(ecb_with(&f, 32, 0x0d060020, 0x000b0404, 32), 0);
	/* an opcode the engine does not take (CTX_ACCESS) -> a fatal bit (0x4066: -EIO in Linux) */
	uint32_t e = ecb_with(&f, 32, 0xe0000000, 0x000b0404, 32);
	ck_assert_uint_ne(e & 0x4066, 0);
	/* a DIRECTION longer than the packet -> a length bit (0x0099: -EINVAL), not fatal */
	e = ecb_with(&f, 32, 0x0d060030, 0x000b0404, 32);
	ck_assert_uint_ne(e & 0x0099, 0);
	ck_assert_uint_eq(e & 0x4066, 0);
	/* AES-ECB of 17 bytes -> block size: length class */
	e = ecb_with(&f, 17, 0x0d060011, 0x000b0404, 17);
	ck_assert_uint_ne(e & 0x0099, 0);
	ck_assert_uint_eq(e & 0x4066, 0);
	/* particles that do not add up to the packet length -> length class */
	e = ecb_with(&f, 32, 0x0d060020, 0x000b0404, 48);
	ck_assert_uint_ne(e & 0x0099, 0);
	/* a context type the model does not run (HASH_IN) -> fatal */
	e = ecb_with(&f, 32, 0x0d060020, 0x000b0403, 32);
	ck_assert_uint_ne(e & 0x4066, 0);
	world_free(&f);
}
END_TEST

START_TEST(rd_buffer_overflow_flag)
{
	struct mfx f;

	engine(&f);
	unhex(f21_key, f.rec + 8);
	struct cdspec c = { .w6 = 64u | 0xd13u << 17, .c0 = 0x000b0404, .c1 = 0 };
	c.tok[2] = 0x0d060040;
	c.tok[3] = 0x20000004;
	ck_assert_uint_eq(run1(&f, &c, 64, 1024, 32), 0); /* 64 bytes out, 32 bytes of RD */
	ck_assert_uint_ne(rd_w0(&f, 0) & (1u << 21), 0);  /* buffer_overflow */
	world_free(&f);
}
END_TEST

/* ------------------------------------------------------------- what the silicon refuses (issue #14) */

/* A 16-byte AES-ECB packet on ring 0 (2-IV option, instruction in word 14), no doorbell. */
static void ecb16(struct mfx *f, uint32_t w6)
{
	unhex(f21_key, f->rec + 8);
	struct cdspec c = { .w6 = w6, .c0 = 0x000b0404, .c1 = 0 };
	c.tok[2] = 0x0d060010;
	c.tok[3] = 0x20000004;
	const uint32_t in[1][2] = { { 0, 16 } }, out[1][2] = { { 1024, 16 } };
	packet(f, &c, in, 1, out, 1);
}

static uint64_t bus_errors(struct mfx *f, char *last, size_t n)
{
	return ofl_sim_bus_errors(f->sim, last, n);
}

/*
 * audits/eip97.md §4 item 2: the init values were stored and never looked
 * at. The model now runs packets only with the values Linux writes; one
 * that differs is named in a bus error of the world and nothing is fetched,
 * until the register holds Linux's value.
 */
START_TEST(init_values_as_linux_writes_them)
{
	for (size_t k = 0; k < sizeof(linux_init) / sizeof(linux_init[0]); k++) {
		struct mfx f;
		char last[200];

		engine_mem(&f);
		hw_init_but(&f, linux_init[k].off);
		uint64_t e0 = bus_errors(&f, NULL, 0);
		ecb16(&f, 16u | 0xd13u << 17);
		doorbell(&f, 1, 1);
		ck_assert_msg(rr(&f, EIP97_RDR(0) + 0x30) == 0, "%s 0x%08x: a packet ran", linux_init[k].name,
			      linux_init[k].val ^ 1u);
		ck_assert_uint_gt(bus_errors(&f, last, sizeof(last)), e0);
		ck_assert_msg(strstr(last, linux_init[k].name) != NULL, "%s: \"%s\"", linux_init[k].name, last);
		/* Linux's value: the prepared packet runs */
		ww(&f, linux_init[k].off, linux_init[k].val);
		ck_assert_int_eq(ofl_sim_wait_idle(f.sim, (int64_t)(TEST_PATIENT_NS / 1000u)), 0);
		ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
		ck_assert_uint_eq(rd_err(&f, 0), 0);
		world_free(&f);
	}
}
END_TEST

START_TEST(ring_dma_config_as_linux_writes_it)
{
	static const struct {
		uint32_t off, val;
	} dma[] = { { EIP97_CDR(0) + 0x24, 0xa6000000 }, { EIP97_RDR(0) + 0x24, 0xa6c00000 } };

	for (size_t k = 0; k < 2; k++) {
		struct mfx f;
		char last[200];

		engine(&f);
		ww(&f, dma[k].off, dma[k].val & ~(7u << 29)); /* another RD_CACHE */
		uint64_t e0 = bus_errors(&f, NULL, 0);
		ecb16(&f, 16u | 0xd13u << 17);
		doorbell(&f, 1, 1);
		ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 0);
		ck_assert_uint_gt(bus_errors(&f, last, sizeof(last)), e0);
		ck_assert_msg(strstr(last, "DMA_CFG") != NULL, "\"%s\"", last);
		ww(&f, dma[k].off, dma[k].val);
		ck_assert_int_eq(ofl_sim_wait_idle(f.sim, (int64_t)(TEST_PATIENT_NS / 1000u)), 0);
		ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
		world_free(&f);
	}
}
END_TEST

/*
 * §4 item 3: MAGIC, 64BIT_CTX and RC_AUTO were ignored and type EXTENDED
 * ran as BCLA. Linux's option word is MAGIC | 64BIT_CTX | RC_AUTO |
 * CTX_CTRL_IN_CMD (0x113) with the IV field (safexcel_add_cdesc(),
 * EIP197_OPTION_*); the EXTENDED type is the EIP197's record-cache command.
 */
START_TEST(cd_options_as_linux_sends_them)
{
	static const struct {
		uint32_t w6;
		const char *what;
	} bad[] = {
		{ 16u | 0xd12u << 17, "no MAGIC" },
		{ 16u | 0xd03u << 17, "record-cache control 0, not RC_AUTO" },
		{ 16u | 0xd17u << 17, "undefined option bit 2" },
		{ 16u | 0xd13u << 17 | 3u << 30, "type EXTENDED" },
		{ 16u | 0xd13u << 17 | 1u << 30, "type 1" },
		/* a 32-bit context pointer: the record's address above 4 GiB is not where it reads */
		{ 16u | 0xd11u << 17, "no 64BIT_CTX" },
	};
	struct mfx f;

	engine(&f);
	ck_assert_uint_ne(f.rec_p >> 32, 0);
	memset(f.buf, 0x5a, 16);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		uint32_t rd = f.rd_w;
		ecb16(&f, bad[k].w6);
		doorbell(&f, 1, 1);
		ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
		ww(&f, EIP97_RDR(0) + 0x30, 1u << 24 | RD_STRIDE);
		uint32_t e = rd_err(&f, rd);
		ck_assert_msg(e & 0x4066u, "%s: error code 0x%04x, want a fatal bit (0x4066)", bad[k].what, e);
	}
	/* and Linux's word runs */
	uint32_t rd = f.rd_w;
	ecb16(&f, 16u | 0xd13u << 17);
	doorbell(&f, 1, 1);
	ck_assert_uint_eq(rd_err(&f, rd), 0);
	world_free(&f);
}
END_TEST

/* §4 item 4: the RDR's fetch block is checked against the RD FIFO as the CDR's is against the CD FIFO. */
START_TEST(rd_fetch_config_fits_the_rd_fifo)
{
	static const uint32_t cfg[] = {
		40u * 4u << 16 | 40u * 12u, /* 40 RDs of 4 words: 160 words, the FIFO holds 2^5 x 4 */
		31u * 4u << 16 | 30u * 12u, /* two halves that count different RDs */
		31u * 4u << 16 | 31u * 11u, /* a threshold that is no whole number of strides */
	};

	for (size_t k = 0; k < sizeof(cfg) / sizeof(cfg[0]); k++) {
		struct mfx f;

		engine(&f);
		ww(&f, EIP97_RDR(0) + 0x20, cfg[k]);
		ecb16(&f, 16u | 0xd13u << 17);
		doorbell(&f, 1, 1);
		ck_assert_msg(rr(&f, EIP97_RDR(0) + 0x30) == 0, "RDR CFG 0x%08x: a packet ran", cfg[k]);
		ck_assert_uint_ne(rr(&f, EIP97_RDR(0) + 0x3c) & (1u << 2), 0);
		world_free(&f);
	}
}
END_TEST

/*
 * §4 item 5: output was scattered over whatever capacity the driver's RDs
 * offered, and the result went to the driver's last RD. The engine ends a
 * packet in the RD that holds its last byte (Linux only reads results
 * where the engine set last_seg, safexcel_rdesc_check_errors()); an RD
 * that received nothing is not written.
 */
START_TEST(rd_capacity_beyond_the_output)
{
	struct mfx f;
	struct cdspec c;
	uint32_t atok[1];
	uint8_t pt[64], ct[64];
	const uint32_t in[1][2] = { { 0, 64 } }, out[2][2] = { { 1024, 64 }, { 2048, 64 } };

	engine(&f);
	unhex(f21_pt, pt);
	unhex(f21_ct, ct);
	memcpy(f.buf, pt, 64);
	cbc_spec(&f, &c, 0x000b0404, atok);
	packet(&f, &c, in, 1, out, 2);
	doorbell(&f, 1, 2);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | 2u * RD_STRIDE);
	ck_assert_mem_eq(f.buf + 1024, ct, 64);
	/* RD 0: 64 bytes, first and last segment, the result token */
	ck_assert_uint_eq(rd_w0(&f, 0) & 0x1ffff, 64);
	ck_assert_uint_ne(rd_w0(&f, 0) & (1u << 22), 0);
	ck_assert_uint_eq(rd_err(&f, 0), 0);
	ck_assert_uint_eq(get32(f.rdr + 16) & 0x1ffff, 64);
	/* RD 1: as the driver left it (safexcel_add_rdesc(): "assume error") */
	ck_assert_uint_eq(rd_w0(&f, 1), 64u | 3u << 20 | 1u << 22 | 8u << 24);
	ck_assert_uint_eq(rd_err(&f, 1), 0x7fff);
	world_free(&f);
}
END_TEST

/*
 * §4 item 6: a first CD with the 4-IV option and no additional token words
 * has no instruction at all; it completed with no output and no error. The
 * token never ends the packet (no LAST_PACKET status): the EIP-96's
 * processing timeout (TOKEN_CTRL ENABLE_TIMEOUT) ends it, a fatal error.
 */
START_TEST(token_without_an_end_times_out)
{
	struct mfx f;
	struct cdspec c;
	uint32_t atok[1];

	engine(&f);
	memset(f.buf, 0x11, 64);
	cbc_spec(&f, &c, 0x000b0404, atok);
	c.acdata = 0;
	uint32_t e = run1(&f, &c, 64, 1024, 64);
	ck_assert_msg(e & (1u << 14), "error code 0x%04x, want the timeout bit 14", e);
	world_free(&f);
}
END_TEST

/*
 * §4 item 8: acknowledging more than was processed was clamped at zero, and
 * a PREP_COUNT that is no whole number of descriptors was masked. Both are a
 * driver's accounting gone wrong: the ring's counts no longer describe the
 * ring, so the model flags a bus error and stops the ring (STAT.ERR).
 */
START_TEST(proc_count_over_acknowledged)
{
	struct mfx f;
	char last[200];

	engine(&f);
	ecb16(&f, 16u | 0xd13u << 17);
	doorbell(&f, 1, 1);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
	uint64_t e0 = bus_errors(&f, NULL, 0);
	ww(&f, EIP97_RDR(0) + 0x30, 2u << 24 | 2u * RD_STRIDE);
	ck_assert_uint_gt(bus_errors(&f, last, sizeof(last)), e0);
	ck_assert_msg(strstr(last, "PROC_COUNT") != NULL, "\"%s\"", last);
	ck_assert_uint_ne(rr(&f, EIP97_RDR(0) + 0x3c) & (1u << 2), 0);
	/* the ring does not run: the next packet is never processed */
	ecb16(&f, 16u | 0xd13u << 17);
	doorbell(&f, 1, 1);
	struct ofl_sim_eip97_stats st;
	ofl_sim_eip97_stats(f.m, 0, &st);
	ck_assert_uint_eq(st.packets, 1);
	world_free(&f);
}
END_TEST

START_TEST(prep_count_in_whole_descriptors)
{
	static const struct {
		uint32_t off, v;
	} bad[] = { { EIP97_RDR(0) + 0x2c, 40 }, { EIP97_CDR(0) + 0x2c, 48 } };

	for (size_t k = 0; k < 2; k++) {
		struct mfx f;
		char last[200];

		engine(&f);
		ecb16(&f, 16u | 0xd13u << 17);
		uint64_t e0 = bus_errors(&f, NULL, 0);
		ww(&f, bad[k].off, bad[k].v);
		ck_assert_uint_gt(bus_errors(&f, last, sizeof(last)), e0);
		ck_assert_msg(strstr(last, "PREP_COUNT") != NULL, "\"%s\"", last);
		doorbell(&f, 1, 1);
		ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 0);
		world_free(&f);
	}
}
END_TEST

/*
 * §4 item 9: PROC_COUNT counted packets whatever the RDR THRESH mode. Linux
 * counts packets from it only with THRESH in packet mode (bit 23, written
 * by safexcel_try_push_requests() before the first packet); without it the
 * counter counts descriptors only.
 */
START_TEST(proc_count_packets_need_packet_mode)
{
	struct mfx f;

	engine(&f);
	ww(&f, EIP97_RDR(0) + 0x28, 0);
	ecb16(&f, 16u | 0xd13u << 17);
	doorbell(&f, 1, 1);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), RD_STRIDE);
	world_free(&f);
}
END_TEST

/* A CD without first_seg: the ring's fatal error (STAT.ERR), the ring stops. */
static void ring_fatal_cd(struct mfx *f)
{
	uint8_t *cd = f->cdr + (size_t)(f->cd_w++ % SLOTS) * 64u;
	memset(cd, 0, 64);
	put32(cd, 16u | 1u << 22); /* last, not first */
	ww(f, EIP97_CDR(0) + 0x2c, 64u);
	ck_assert_int_eq(ofl_sim_wait_idle(f->sim, (int64_t)(TEST_PATIENT_NS / 1000u)), 0);
	ck_assert_uint_ne(rr(f, EIP97_CDR(0) + 0x3c) & (1u << 2), 0);
}

/*
 * §4 item 1 (audit D2): CLR_COUNT on a CDR PREP_COUNT "reset" a ring and
 * un-hung it, even with its threads running; no source says so. Linux
 * prepares rings only in safexcel_hw_init(), with the DFE and DSE threads
 * out of the ring (reset, then disabled): a ring counter cleared under
 * running threads is flagged and ignored, and a ring in fatal error runs
 * again only after that whole sequence.
 */
START_TEST(ring_reset_needs_the_threads_stopped)
{
	struct mfx f;
	struct ofl_sim_eip97_stats st;
	char last[200];

	engine(&f);
	ring_fatal_cd(&f);
	uint64_t e0 = bus_errors(&f, NULL, 0);
	ww(&f, EIP97_CDR(0) + 0x2c, 0x80000000);
	ck_assert_uint_gt(bus_errors(&f, last, sizeof(last)), e0);
	ck_assert_msg(strstr(last, "PREP_COUNT") != NULL, "\"%s\"", last);
	ofl_sim_eip97_stats(f.m, 0, &st);
	ck_assert_uint_eq(st.hung, 1);
	/* the same ring prepare as part of Linux's init brings it back */
	hw_init(&f);
	ofl_sim_eip97_stats(f.m, 0, &st);
	ck_assert_uint_eq(st.hung, 0);
	ck_assert_uint_eq(ecb_with(&f, 16, 0x0d060010, 0x000b0404, 16), 0);
	world_free(&f);
}
END_TEST

/*
 * A zero-length packet hangs the EIP97 (Linux safexcel_send_req(): "The
 * EIP97 cannot deal with zero length input packets!"). Nothing any source
 * describes brings it back: its one pipe holds the packet, the DSE threads
 * never report idle after their reset, and no ring runs.
 */
START_TEST(zero_length_packet_hangs_the_engine)
{
	struct mfx f;
	struct ofl_sim_eip97_stats st;

	engine(&f);
	unhex(f21_key, f.rec + 8);
	struct cdspec z = { .w6 = 0u | 0xd13u << 17, .c0 = 0x000b0404, .c1 = 0 };
	z.tok[2] = 0x0d060000;
	z.tok[3] = 0x20000004;
	const uint32_t in[1][2] = { { 0, 0 } }, out[1][2] = { { 1024, 16 } };
	packet(&f, &z, in, 1, out, 1);
	doorbell(&f, 1, 1);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 0);
	ofl_sim_eip97_stats(f.m, 0, &st);
	ck_assert_uint_eq(st.hung, 1);
	ck_assert_uint_eq(st.packets, 0);
	/* §6.1: the DSE reset and its idle handshake */
	ww(&f, 0xf200, 0x80000000);
	ww(&f, 0xf600, 0x80000000);
	ck_assert_uint_ne(rr(&f, 0xf604) & 0xf000, 0xf000);
	world_free(&f);
}
END_TEST

/*
 * A packet in the pipe when the DSE threads are reset: Linux waits for "all
 * DSE threads to complete" (safexcel_hw_init() polls DSE_THR_STAT 15:12).
 * The packet's data and result are stored before the threads report idle,
 * never after, and not before the packet leaves the pipe.
 */
START_TEST(dse_reset_waits_for_the_packet_in_the_pipe)
{
	struct mfx f;
	struct cdspec c;
	uint32_t atok[1];
	uint8_t pt[64], ct[64], before[64];
	struct ofl_sim_eip97_stats st;
	const uint32_t in[1][2] = { { 0, 64 } }, out[1][2] = { { 1024, 64 } };

	engine(&f);
	unhex(f21_pt, pt);
	unhex(f21_ct, ct);
	memcpy(f.buf, pt, 64);
	memset(f.buf + 1024, 0xee, 64);
	memcpy(before, f.buf + 1024, 64);
	cbc_spec(&f, &c, 0x000b0404, atok);
	struct ofl_sim_fault d = { .kind = OFL_SIM_FAULT_DELAY, .count = 1, .arg = 300000 };
	ck_assert_int_eq(ofl_sim_fault_set(f.sim, &d), 0);
	packet(&f, &c, in, 1, out, 1);
	ww(&f, EIP97_RDR(0) + 0x2c, RD_STRIDE);
	ww(&f, EIP97_CDR(0) + 0x2c, 64u);
	uint64_t t0 = ofl_now_ns();
	do {
		ofl_sim_eip97_stats(f.m, 0, &st);
		ck_assert_uint_lt(ofl_now_ns() - t0, TEST_PATIENT_NS);
	} while (!st.in_pipe);
	/* in the pipe: nothing stored yet */
	ck_assert_mem_eq(f.buf + 1024, before, 64);
	ck_assert_uint_eq(rd_err(&f, 0), 0x7fff);
	ww(&f, 0xf200, 0x80000000);
	ww(&f, 0xf600, 0x80000000);
	/*
	 * Not idle while the packet is in the pipe. The pipe is sampled before
	 * the status, never after: the packet leaves the pipe once, so a status
	 * read as busy proves the pipe was full at the earlier sample, while the
	 * other order races the packet's exit (seen failing under qemu-arm).
	 */
	for (;;) {
		ofl_sim_eip97_stats(f.m, 0, &st);
		if ((rr(&f, 0xf604) & 0xf000) == 0xf000)
			break;
		ck_assert_uint_eq(st.in_pipe, 1);
		ck_assert_uint_lt(ofl_now_ns() - t0, TEST_PATIENT_NS);
	}
	ofl_sim_eip97_stats(f.m, 0, &st);
	ck_assert_uint_eq(st.in_pipe, 0); /* idle only once the packet has left the pipe */
	ck_assert_mem_eq(f.buf + 1024, ct, 64);
	ck_assert_uint_eq(rd_err(&f, 0), 0);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
	world_free(&f);
}
END_TEST

START_TEST(proc_count_and_interrupt)
{
	struct mfx f;

	engine(&f);
	unhex(f21_key, f.rec + 8);
	ww(&f, EIP97_AIC_R(0) + 0x08, 1u << 1);          /* RDR_IRQ(0) */
	ww(&f, EIP97_RDR(0) + 0x28, 1u << 23 | 2u);      /* packet mode, 2 packets */
	struct cdspec c = { .w6 = 16u | 0xd13u << 17, .c0 = 0x000b0404, .c1 = 0 };
	c.tok[2] = 0x0d060010;
	c.tok[3] = 0x20000004;
	const uint32_t in[1][2] = { { 0, 16 } }, out[1][2] = { { 1024, 16 } };
	packet(&f, &c, in, 1, out, 1);
	packet(&f, &c, in, 1, out, 1);
	doorbell(&f, 2, 2);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 2u << 24 | 2u * RD_STRIDE);
	ck_assert_uint_ne(rr(&f, EIP97_RDR(0) + 0x3c) & (1u << 4), 0); /* THRESH */
	ck_assert_uint_eq(rr(&f, EIP97_AIC_R(0) + 0x10), 1u << 1);
	/* acknowledging one packet subtracts it (§6.3) */
	ww(&f, EIP97_RDR(0) + 0x30, 1u << 24 | RD_STRIDE);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 1u << 24 | RD_STRIDE);
	ww(&f, EIP97_RDR(0) + 0x3c, 0xff);
	ww(&f, EIP97_AIC_R(0) + 0x10, 1u << 1);
	ck_assert_uint_eq(rr(&f, EIP97_AIC_R(0) + 0x10), 0);
	world_free(&f);
}
END_TEST

START_TEST(cd_fifo_too_small_never_fetches)
{
	struct mfx f;

	engine(&f);
	unhex(f21_key, f.rec + 8);
	/* the pre-v5.6 Linux bug: a fetch block larger than the CD FIFO (2^5 x 4 words) */
	ww(&f, EIP97_CDR(0) + 0x20, 9u * 16u << 16 | 9u * 16u);
	struct cdspec c = { .w6 = 16u | 0xd13u << 17, .c0 = 0x000b0404, .c1 = 0 };
	c.tok[2] = 0x0d060010;
	c.tok[3] = 0x20000004;
	const uint32_t in[1][2] = { { 0, 16 } }, out[1][2] = { { 1024, 16 } };
	packet(&f, &c, in, 1, out, 1);
	doorbell(&f, 1, 1);
	ck_assert_uint_eq(rr(&f, EIP97_RDR(0) + 0x30), 0);
	ck_assert_uint_ne(rr(&f, EIP97_CDR(0) + 0x3c) & (1u << 2), 0);
	world_free(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("eip97_model");
	TCase *t = tcase_create("model");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, ids_as_linux_probe_reads_them);
	tcase_add_test(t, byte_swapped_until_toggled);
	tcase_add_test(t, eip197_layout_signatures);
	tcase_add_test(t, aes_cbc_worked_example);
	tcase_add_test(t, multi_segment_particles);
	tcase_add_test(t, sha256_worked_example);
	tcase_add_test(t, hash_continue_with_digest_count);
	tcase_add_test(t, hmac_sha256_one_pass);
	tcase_add_test(t, gcm_worked_example);
	tcase_add_test(t, gcm_h_in_wrong_byte_order);
	tcase_add_test(t, ctr_load_counter_wraps_32_bits);
	tcase_add_test(t, error_bits_as_linux_classes);
	tcase_add_test(t, rd_buffer_overflow_flag);
	tcase_add_test(t, zero_length_packet_hangs_the_engine);
	tcase_add_test(t, proc_count_and_interrupt);
	tcase_add_test(t, cd_fifo_too_small_never_fetches);
	tcase_add_test(t, init_values_as_linux_writes_them);
	tcase_add_test(t, ring_dma_config_as_linux_writes_it);
	tcase_add_test(t, cd_options_as_linux_sends_them);
	tcase_add_test(t, rd_fetch_config_fits_the_rd_fifo);
	tcase_add_test(t, rd_capacity_beyond_the_output);
	tcase_add_test(t, token_without_an_end_times_out);
	tcase_add_test(t, proc_count_over_acknowledged);
	tcase_add_test(t, prep_count_in_whole_descriptors);
	tcase_add_test(t, proc_count_packets_need_packet_mode);
	tcase_add_test(t, ring_reset_needs_the_threads_stopped);
	tcase_add_test(t, dse_reset_waits_for_the_packet_in_the_pipe);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return test_run(suite());
}
