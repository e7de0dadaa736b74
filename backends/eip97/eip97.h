/* SPDX-License-Identifier: MIT */
/*
 * backends/eip97: direct (UIO / VFIO / /dev/mem, or the model) driver for
 * the Inside Secure SafeXcel EIP97, with the register, descriptor and token
 * sequence of Linux drivers/crypto/inside-secure (sources by topic §n:
 * src/hw/eip97.h):
 *
 *   match.c   the engine's device-tree match table (Linux
 *             safexcel_of_match_table) and its policy rules;
 *   probe.c   the device tree node, ID/version/options registers (§1.3,
 *             §1.4, §2.6), EIP197 layout detection, the backend descriptor;
 *   hw.c      engine init (§6.1), ring setup, ring re-initialisation after
 *             a stuck engine;
 *   ring.c    descriptors: command descriptors with first/last particles
 *             and the shadow token ring, result descriptors pre-set "assume
 *             error", RDR-then-CDR doorbells (§6.2), completion by the RDR
 *             processed counter (§6.3), error mapping (§6.4), timeouts;
 *   cipher.c  AES ECB/CBC/CTR/GCM, DES-ECB, 3DES-CBC: context records,
 *             tokens (§4, §5), zero-copy or bounce, cache maintenance;
 *   hash.c    MD5/SHA-1/SHA-2 and HMAC: 128-byte software cache,
 *             continued hashes with a digest count, ipad/opad states
 *             precomputed by the engine itself as Linux does;
 *   mem.c     session memory (context record, work area), recycled.
 *
 * Threading: sessions belong to one thread (the API contract); a session is
 * bound to one ring (round robin at open, as Linux binds a transform) and
 * rings are shared: a ring's descriptors and in-flight list are guarded by
 * its lock, and whichever waiting thread reads the processed counter
 * completes every finished packet of that ring for its owner.
 */
#ifndef OFL_BACKEND_EIP97_H
#define OFL_BACKEND_EIP97_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "driver/crypto.h"
#include "driver/driver.h"
#include "hw/eip97.h"
#include "platform/platform.h"

#define EIP97_RING_SLOTS 400u         /* EIP197_DEFAULT_RING_SIZE (§3.3) */
#define EIP97_CHUNK 65536u            /* data per packet when an operation is split */
#define EIP97_PKT_MAX EIP97_LEN_MAX   /* one packet's input bytes (17-bit length) */
#define EIP97_HASH_CACHE 128u         /* Linux HASH_CACHE_SIZE */
#define EIP97_BATCH 16u               /* packets submitted with one pair of doorbells */
#define EIP97_MAX_IN 4u               /* CDs (input particles) per packet */
#define EIP97_MAX_OUT 3u              /* RDs (output particles) per packet */
#define EIP97_WORK_SIZE (EIP97_PKT_MAX + 1u + 64u) /* a session's bounce / hash work area */
/* Linux has no driver timeout (the EIP96 has its own); 1 s as for the other direct backends. */
#define EIP97_DEFAULT_TIMEOUT_NS 1000000000ull

struct eip97_engine;

/* One row of the match table. */
struct eip97_row {
	struct ofl_match_row hdr;
	bool eip197;              /* EIP197 register layout expected */
};

/* ---- match.c, probe.c ---- */
extern const struct ofl_backend ofl_backend_eip97;
extern const struct ofl_dt_id eip97_match[];
void eip97_policy(const struct ofl_policy_in *in, struct ofl_policy *p, struct ofl_policy_req *req);

/* One particle: a bus address and a length. */
struct eip97_seg {
	uint64_t bus;
	uint32_t len;
};

/* One packet as the cipher/hash code builds it; ring.c writes it into CDs/RDs. */
struct eip97_pkt {
	uint32_t c0, c1, opts;            /* control0/1 and CD options */
	uint32_t tok[EIP97_CD_IV_WORDS];  /* CD words 12..15: IV and/or instructions */
	uint32_t atok[EIP97_ATOK_WORDS];  /* additional token words (shadow ring block) */
	uint32_t natok;
	uint32_t pkt_len;                 /* input bytes (>= 1) */
	uint64_t ctx_bus;                 /* context record */
	struct eip97_seg in[EIP97_MAX_IN];
	uint32_t nin;
	struct eip97_seg out[EIP97_MAX_OUT];
	uint32_t nout;
};

/* A caller's set of packets, completed when `pending` reaches 0. */
struct eip97_req {
	atomic_uint pending;  /* changed under the ring lock, polled without it */
	int status;         /* first failure: -EIO, -EINVAL, -EBADMSG, -ETIMEDOUT */
	uint32_t err_code;  /* the result token's error code of that failure */
	uint32_t rd_w0;     /* and its last RD's word 0 */
	bool reset;         /* failed by an engine reset after a stall */
	bool may_write;     /* failed with the engine stuck: it may still write the request's buffers */
};

/* A packet in flight: who owns it and how many descriptors it used. */
struct eip97_slot {
	struct eip97_req *req;
	uint16_t ncd, nrd;
};

struct eip97_ring {
	struct eip97_engine *e;
	uint32_t id;
	pthread_mutex_t lock;
	struct ofl_dma *cdr, *rdr, *atok;
	uint32_t cd_w, cd_r, rd_w, rd_r;  /* free-running descriptor indices */
	struct eip97_slot fifo[EIP97_RING_SLOTS];
	uint32_t f_head, f_tail;          /* packets in flight [head, tail), free running */
	uint64_t stall_since;             /* the first poll that found packets in flight and none done */
	char driver[32];                  /* "eip97-ring0" (+ "-sim") */
};

struct eip97_engine {
	struct ofl_device *dev;
	struct ofl_mmio regs;
	bool sim;
	char name[80];
	/* §1.4 / §2.3 / §2.5 what the probe read */
	uint32_t hia_ver, top_ver, pe_ver, eip96_ver, hia_options, algo_flags;
	uint32_t hwrings, ring_aics, hwdataw, cfsize, rfsize;
	bool swapped;                     /* registers were byte-swapped until MST_CTRL was toggled */
	uint32_t nrings;
	/* §3.2 geometry */
	uint32_t cd_stride, rd_stride, res_off; /* bytes */
	uint32_t rd_size_w, cd_fetch, rd_fetch;
	/* memory */
	enum offload_cache_mode cache;       /* data buffers (the policy) */
	enum offload_cache_mode ring_cache;  /* rings and context records */
	struct ofl_dma_pool *pool;
	uint64_t timeout_ns;              /* a ring with packets in flight and none done this long stalled */
	uint64_t reset_timeout_ns;        /* how long an engine reset waits for the DSE threads */
	/* after a stall (ring.c): the engine reset, or the device failed */
	pthread_mutex_t reset_lock;       /* one reset at a time; taken before any ring lock */
	atomic_uint resets;               /* engine resets after a stall so far */
	atomic_bool failed;               /* the engine did not stop: no more requests */
	char failed_why[256];             /* written once, before `failed` is set */
	struct eip97_ring ring[EIP97_MAX_RINGS];
	atomic_uint next_ring;
	char sw_driver[48];
	pthread_mutex_t smem_lock;        /* recycled session memory (mem.c) */
	struct eip97_smem *smem_free;
	uint32_t smem_n;
	struct eip97_smem *smem_held;     /* a failed engine's: it may still write there (freed at removal) */
};

/* A session's DMA memory: its context record and its work area. */
struct eip97_smem {
	struct ofl_dma *ctx, *work;
	size_t dirty;                     /* work-area bytes written: wiped when given back */
	struct eip97_smem *next;
};

/* ---- hw.c ---- */
/* §6.1: PE/DFE/DSE setup and every ring; 0 or -ETIMEDOUT (DSE threads never idle). */
int eip97_hw_init(struct eip97_engine *e, char *why, size_t wl);
/*
 * Take every thread out of the rings as safexcel_hw_init() does first (DFE
 * and DSE THR_CTRL <- RESET_PE) and wait up to `ns` for the DSE threads to
 * report idle (THR_STAT 15:12): from then on the engine writes no memory.
 * 0, or -ETIMEDOUT (they did not: the engine may still write).
 */
int eip97_threads_stop(struct eip97_engine *e, uint64_t ns);
/* Allocate ring memory and pre-fill the ATOK pointers. */
int eip97_ring_alloc(struct eip97_engine *e, struct eip97_ring *r, char *why, size_t wl);
void eip97_ring_free(struct eip97_ring *r);
/* §6.1 steps 7, 8 for one ring (eip97_hw_init(), after eip97_ring_hw_reset()). */
void eip97_ring_hw_setup(struct eip97_ring *r);
/*
 * §6.1 step 5: disable a ring's fetching, clear its counters and pointers.
 * Only with the DFE and DSE threads out of the rings (reset or disabled), as
 * Linux prepares rings.
 */
void eip97_ring_hw_reset(struct eip97_ring *r);

/* ---- ring.c ---- */
/* The ring for a new session (round robin). */
struct eip97_ring *eip97_ring_pick(struct eip97_engine *e);
/*
 * Submit `n` packets for `req` (RDR PREP_COUNT, then CDR PREP_COUNT).
 * Waits (with the engine timeout) while the ring is full. 0, or -ETIMEDOUT
 * when no room appeared.
 */
int eip97_submit(struct eip97_ring *r, const struct eip97_pkt *pkts, uint32_t n,
		 struct eip97_req *req);
/*
 * Wait until every packet of `req` completed or failed; returns req->status.
 * A ring that completes nothing for the engine timeout while packets are in
 * flight stalled: the engine is stopped and re-initialised (its packets in
 * flight on every ring fail with -ETIMEDOUT, req->reset), or, when its DSE
 * threads do not stop, marked failed (-EIO, req->may_write).
 */
int eip97_wait(struct eip97_ring *r, struct eip97_req *req);
/* Submit and wait; records a message with ofl_err() on failure (`what` names the operation). */
int eip97_run(struct eip97_ring *r, const struct eip97_pkt *pkts, uint32_t n, const char *what);
/* A failed engine: -EIO with why it failed in `why` (for query hooks); else 0. */
int eip97_failed(const struct eip97_engine *e, char *why, size_t wl);
/* The errno Linux gives a last RD (safexcel_rdesc_check_errors): 0, -EIO, -EINVAL, -EBADMSG. */
int eip97_rd_errno(uint32_t rd_w0, uint32_t err_code);

/* Packet helpers. */
static inline void eip97_pkt_init(struct eip97_pkt *p, uint32_t c0, uint32_t c1, uint32_t opts,
				  uint64_t ctx_bus)
{
	p->c0 = c0;
	p->c1 = c1;
	p->opts = opts;
	p->ctx_bus = ctx_bus;
	p->natok = p->nin = p->nout = p->pkt_len = 0;
}
static inline void eip97_pkt_in(struct eip97_pkt *p, uint64_t bus, uint32_t len)
{
	p->in[p->nin].bus = bus;
	p->in[p->nin++].len = len;
	p->pkt_len += len;
}
static inline void eip97_pkt_out(struct eip97_pkt *p, uint64_t bus, uint32_t len)
{
	p->out[p->nout].bus = bus;
	p->out[p->nout++].len = len;
}

/* ---- cipher.c / hash.c ---- */
extern const struct ofl_cipher_ops eip97_cipher_ops;
extern const struct ofl_hash_ops eip97_hash_ops;
/* Result flags of an engine run. */
static inline uint32_t eip97_res_flags(const struct eip97_engine *e)
{
	return OFFLOAD_RES_DIRECT | (e->sim ? OFFLOAD_RES_SIM : OFFLOAD_RES_HARDWARE);
}
/* ---- mem.c ---- */
/* Memory for a new session (recycled or allocated); wiped context record. 0 or -ENOMEM (recorded). */
int eip97_smem_get(struct eip97_engine *e, struct eip97_smem **out);
/* Give it back: wiped (key, data copies), kept for the next session or freed. */
void eip97_smem_put(struct eip97_engine *e, struct eip97_smem *m);
/* Free what is kept (engine removal). */
void eip97_smem_drain(struct eip97_engine *e);
/* Write `len` bytes of context data at data word 0 (record byte 8) and hand them to the engine. */
void eip97_ctx_write(struct ofl_dma *ctx, size_t data_off, const void *p, size_t len);

#endif /* OFL_BACKEND_EIP97_H */
