/* SPDX-License-Identifier: MIT */
/*
 * backends/udma: direct memcpy on TI K3 UDMA-P and BCDMA engines, with the
 * register and descriptor sequence of Linux drivers/dma/ti/k3-udma.c
 * (§5; sources by topic §n: src/hw/k3_udma.h):
 *
 *   engine.c  GCFG capabilities, channel classes (TPL), channel allocation,
 *             channel/ring configuration through a firmware hook, channel
 *             start, teardown and reset;
 *   desc.c    CPPI 5.0 TR descriptors with type-15 TRs and the 64 KiB split;
 *   ring.c    ring push/pop: NAVSS ring accelerator in MESSAGE mode (UDMA),
 *             DMSS dual rings (BCDMA);
 *   xfer.c    jobs -> descriptors: the aligned body on the engine, the
 *             unaligned head/tail on the CPU, bounce or zero-copy, cache
 *             maintenance by policy, completion by ring pop and TR-response
 *             check, timeouts with teardown and recovery; the async queue
 *             and the synchronous copy;
 *   match.c   the engine's device-tree match table (Linux udma_of_match,
 *             bcdma_of_match, pktdma_of_match) and its policy rules: channel
 *             classes, burst, copy alignment, threshold, transfer mode;
 *   probe.c   binding a node: its DT bindings, registers, DMA memory, who
 *             configures channels; the backend descriptor.
 */
#ifndef OFL_BACKEND_UDMA_H
#define OFL_BACKEND_UDMA_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "driver/driver.h"
#include "hw/k3_udma.h"
#include "platform/platform.h"

/* K3 UDMA channel classes (TPL, "throughput level"), index of burst[]. */
enum udma_class { UDMA_CLASS_NORMAL = 0, UDMA_CLASS_H = 1, UDMA_CLASS_UH = 2 };

/* One row of the match table: Linux's match data for the compatible. */
struct udma_row {
	struct ofl_match_row hdr;  /* kind, source (the match data's name), flags */
	bool memcpy;               /* Linux enables memcpy on this instance */
	bool burst_programmable;   /* match flags contain UDMA_FLAG_BURST_SIZE */
	uint16_t burst[3];         /* bytes per class [normal, H, UH]; 0 = Linux sends none */
	uint32_t psil_base;
	bool bcdma;                /* BCDMA (bchan block copy) */
	bool pktdma;
	uint8_t am654_tpl_quirk;   /* hard-coded TPL split: 0 none, else first normal channel */
};
static inline const struct udma_row *udma_row_of(const struct ofl_dt_id *id)
{
	return (const struct udma_row *)id->data;
}

/* ---- match.c ---- */
extern const struct ofl_dt_id udma_match[];
void udma_policy(const struct ofl_policy_in *in, struct ofl_policy *p, struct ofl_policy_req *req);

/* One descriptor slot: header + 2 type-15 TRs + 2 responses = 200 B (hw/k3_udma.h §4.1). */
#define UDMA_MAX_TRS 2u
#define UDMA_SLOT_SIZE 256u
#define UDMA_SYNC_CHANS 4
#define UDMA_SYNC_SLOTS 16u
#define UDMA_BOUNCE_PAIRS 4u
#define UDMA_BOUNCE_SIZE (256u << 10)
/* Linux waits 1 s for a teardown (drivers/dma/ti/k3-udma.c udma_synchronize()); the stall watchdog's default is the same. */
#define UDMA_DEFAULT_TIMEOUT_NS 1000000000ull
/* Largest body one descriptor moves (a multiple of every alignment; well below §4.6's limit). */
#define UDMA_SEG_MAX (1ull << 30)

struct udma_engine;
struct udma_chan;

/*
 * Who programs channel and ring configuration (hw/k3_udma.h §6). On K3 under
 * Linux the TI-SCI resource manager in DM firmware owns these registers:
 * the configuration is sent to it as TI-SCI messages over the platform's
 * firmware channel (tisci.c; user space has no such channel on a real K3,
 * the models' world has one). Without DM firmware (U-Boot, bare metal) the
 * library writes the registers itself (engine.c).
 */
struct udma_fw_ops {
	const char *name;
	/* Configure memcpy channel `ch` (UDMA: tchan+rchan pair and PSI-L pairing; BCDMA: bchan). */
	int (*chan_cfg)(struct udma_engine *e, uint32_t ch, uint32_t burst_code, uint32_t cq_ring,
			char *why, size_t wl);
	/* Configure ring `ring`: base (bus address, ASEL included), count, mode, 8-byte elements. */
	int (*ring_cfg)(struct udma_engine *e, uint32_t ring, uint64_t base, uint32_t count,
			uint32_t mode, char *why, size_t wl);
	/* Reset ring `ring` (TI-SCI RING_CFG with COUNT only). */
	int (*ring_reset)(struct udma_engine *e, uint32_t ring, uint32_t count);
	/* Change only the queue mode of UDMA ring `ring` (TI-SCI RING_CFG with MODE only). */
	int (*ring_mode)(struct udma_engine *e, uint32_t ring, uint32_t mode);
	/*
	 * Give memcpy channel `ch` back: UDMA: unpair its PSI-L threads (TI-SCI
	 * PSIL_UNPAIR, or the proxy's unpairing); then free its rings (Linux
	 * k3_ringacc_ring_free(): RING_CFG with every value 0).
	 */
	void (*chan_free)(struct udma_engine *e, uint32_t ch, uint32_t tx_ring, uint32_t cq_ring);
};
extern const struct udma_fw_ops udma_fw_registers;
/* e->sci is the open channel; e->sci_dev_id, ra_dev_id, navss_dev_id the TI-SCI device IDs (tisci.c). */
extern const struct udma_fw_ops udma_fw_tisci;

struct udma_engine {
	struct ofl_device *dev;
	bool bcdma;
	bool sim;
	char name[80];
	/* register regions (kind OFL_MMIO_NONE when absent) */
	struct ofl_mmio gcfg, tchanrt, rchanrt, bchanrt, ringrt, ringcfg, tchancfg, rchancfg, bchancfg;
	struct ofl_mmio ra_rt, ra_fifos, ra_cfg;
	struct ofl_mmio psilcfg;     /* UDMA direct mode: the NAVSS's PSI-L configuration proxy (hw/k3_udma.h §3.7) */
	/* GCFG capabilities */
	uint32_t tchan_cnt, echan_cnt, rchan_cnt, rflow_cnt, bchan_cnt;
	uint32_t hchan_cnt, uchan_cnt;
	uint32_t nchan;             /* memcpy channels: UDMA pairs, BCDMA bchans */
	uint32_t tpl_levels, tpl_start[3];
	uint32_t tpl_quirk;          /* am654 main/mcu: first normal channel (hard-coded split), 0 = CAP3 */
	/*
	 * AM65x SR1.0: a TX-ring reset must also wrap the UDMA's own ring
	 * occupancy (Linux k3-ringacc.c k3_ringacc_ring_reset_dma(), enabled by
	 * k3_ringacc_socinfo for family AM65X revision SR1.0).
	 */
	bool ring_reset_quirk;
	/* instance data (DT + the match row) */
	uint32_t psil_base;
	uint8_t atype, asel;
	uint32_t ra_rings, gp_first; /* UDMA: ring accelerator size, first general-purpose ring */
	uint16_t burst_by_tpl[3];    /* bytes per TPL [normal, H, UH], 0 = leave the hardware default */
	uint32_t align;              /* body alignment (burst, at least a cache line when streaming) */
	enum offload_cache_mode cache;
	uint64_t timeout_ns;  /* stall watchdog: no completion for this long fails the head job */
	uint64_t teardown_ns; /* how long a teardown may take to be acknowledged (0: 1 s) */
	const struct udma_fw_ops *fw;
	struct ofl_fw *sci;          /* udma_fw_tisci: the channel to the DM firmware */
	uint16_t sci_dev_id;         /* TI-SCI device ID of the UDMA/BCDMA (ti,sci-dev-id) */
	uint16_t ra_dev_id;          /* UDMA: of its ring accelerator */
	uint32_t navss_dev_id;       /* UDMA: of the parent NAVSS (PSI-L pairing) */
	struct ofl_dma_pool *pool;
	/* allocation state */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	/*
	 * The PSI-L configuration proxy is one set of command registers for the
	 * whole NAVSS (hw/k3_udma.h §3.7): one route (a sequence of commands) at
	 * a time, or two threads' commands mix and pair the wrong threads.
	 */
	pthread_mutex_t psil_lock;
	uint8_t *chan_busy;
	uint8_t *ring_busy;          /* UDMA: rings gp_first .. ra_rings-1 */
	struct udma_chan *sync[UDMA_SYNC_CHANS];
	bool sync_busy[UDMA_SYNC_CHANS];
};

struct udma_slot {
	uint32_t job;       /* index in the queue's job ring (free running) */
	uint32_t ntr;
	uint32_t len;
	size_t off;         /* offset of the segment inside its job */
	int32_t bounce;     /* bounce pair + 1, 0 when zero-copy */
	struct ofl_dma *dst_dma; /* zero-copy destination (sync for CPU on completion) */
	size_t dst_off;
};

struct udma_chan {
	struct udma_engine *e;
	uint32_t id;        /* tchan/rchan pair index, or bchan */
	uint32_t tpl, burst;
	uint32_t tx_ring, cq_ring;
	uint32_t nslots;
	struct ofl_dma *desc, *rings, *bounce;
	struct udma_slot *slots;
	uint32_t head, tail;      /* descriptors [head, tail) are on the engine (free running) */
	uint32_t fwd_idx, rev_idx;/* BCDMA ring indexes */
	uint32_t occ;             /* completions known to be waiting */
	uint32_t unreleased;      /* BCDMA: popped, not yet given back through RDB */
	uint32_t bounce_head, bounce_tail;
	uint64_t stall_since;     /* when the oldest descriptor in flight was first seen waiting */
	bool tdcm_due;            /* UDMA: a teardown timed out; its marker may still arrive once */
	uint64_t done_bytes;      /* to subtract from BCNT/SBCNT */
	bool running;
	char driver[32];          /* "udma-tchan0", "bcdma-bchan3" (offload_result.driver) */
};

/* Backend state of a queue (struct offload_queue.bq). */
struct udma_q {
	struct udma_chan *ch;
	uint32_t next_job;      /* the job being split into descriptors */
	size_t next_off, body_end;
	struct ofl_dma *src_dma, *dst_dma;
	struct ofl_dma_hint src_hint, dst_hint;
	uint32_t *remaining;    /* per job slot: descriptors not yet completed */
	uint8_t *state;         /* per job slot: 0 new, 1 issuing, 2 all issued */
};

/* ---- engine.c ---- */
/* Read GCFG, build the TPL table, allocate the channel bitmap. Regions and instance data set by the caller. */
/*
 * May a UDMA engine whose rings are ring-accelerator rings (not BCDMA) be
 * driven directly on a host that does (single64) or does not issue one 64-bit
 * MMIO access? 0, or -ENOTSUP with the reason in why: TI's CSL (csl_ringacc.h,
 * CSL_ringaccPush64/Pop64/Peek64) says a 32-bit processor must reach 8-byte
 * ring elements through the ring accelerator proxy, which this backend does
 * not drive. The probe passes OFL_MMIO_SINGLE_64; tests pass either.
 */
int udma_host_check(bool single64, char *why, size_t wl);
int udma_engine_init(struct udma_engine *e, char *why, size_t wl);
void udma_engine_fini(struct udma_engine *e);
/* TPL (0 normal, 1 H, 2 UH) of memcpy channel `ch`. */
uint32_t udma_chan_tpl(const struct udma_engine *e, uint32_t ch);
/*
 * PSI-L route (pair) or unroute (unpair) of source thread `src` and destination
 * thread `dst` through the PSI-L proxy e->psilcfg (hw/k3_udma.h §3.7). 0, or
 * -ETIMEDOUT (why says which command) when the proxy does not answer.
 * Thread-safe: routes of one engine run one at a time (e->psil_lock).
 */
int udma_psil_route(struct udma_engine *e, uint32_t src, uint32_t dst, bool pair, char *why, size_t wl);
/* TI-SCI / register burst code for `bytes` (64 -> 1, 128 -> 2, 256 -> 3; else 0). */
uint32_t udma_burst_code(uint32_t bytes);
/* Open a memcpy channel with `nslots` descriptors: the highest-capacity free one. */
int udma_chan_open(struct udma_engine *e, uint32_t nslots, bool bounce, struct udma_chan **out,
		   char *why, size_t wl);
void udma_chan_close(struct udma_chan *ch);
/* First start or restart: CTL = 0, counters zeroed (§5.4 step 2). */
void udma_chan_reset_hw(struct udma_chan *ch);
/* Enable RX then TX (§5.4 step 4). */
void udma_chan_enable(struct udma_chan *ch);
/* Tear down (§5.5) and reset; true if the teardown completed within the timeout. */
bool udma_chan_teardown(struct udma_chan *ch);

/* ---- desc.c ---- */
/* §4.6: split `len` for addresses src/dst into cnt0 x cnt1 + rem. Returns the TR count (1, 2) or -EINVAL. */
int udma_split(uint64_t len, uint64_t src, uint64_t dst, uint16_t *cnt0, uint16_t *cnt1,
	       uint16_t *rem);
/*
 * Fill a memcpy TR descriptor at `d` (CPU memory: the caller writes it to DMA
 * memory with ofl_dma_write(), UDMA_DESC_BYTES(ntr) bytes) returning to
 * `retq`. Returns the TR count or -EINVAL.
 */
int udma_desc_memcpy(void *d, bool bcdma, uint32_t pktid, uint16_t retq, uint64_t src, uint64_t dst,
		     uint64_t len);
/* The bytes of a descriptor with `ntr` TRs: header record, the TRs, their responses. */
#define UDMA_DESC_BYTES(ntr) (((size_t)(ntr) + 1u) * 64u + 4u * (size_t)(ntr))
/*
 * Status (0 or the first non-zero response byte) of a finished descriptor
 * with `ntr` TRs at byte `off` of m, read with aligned words (ofl_dma_r32():
 * descriptors live in uncached memory on a non-coherent engine).
 */
uint32_t udma_desc_status(const struct ofl_dma *m, size_t off, uint32_t ntr);

/* ---- ring.c ---- */
/* Push one descriptor address onto the channel's TX ring. */
void udma_ring_push(struct udma_chan *ch, uint64_t desc_bus);
/* After pushes: ring the doorbell for `n` elements (BCDMA; UDMA MESSAGE pushes need none). */
void udma_ring_commit(struct udma_chan *ch, uint32_t n);
/*
 * Pop one completion: 1 (elem set), 0 none waiting, -EIO when the occupancy
 * register reads more than the ring can hold (a bus error reads all ones):
 * *elem then gets the raw register value and nothing is popped.
 */
int udma_ring_pop(struct udma_chan *ch, uint64_t *elem);
/* Give popped completion slots back (BCDMA reverse doorbell); pops do it too before refreshing ROCC. */
void udma_ring_release(struct udma_chan *ch);
/* BCDMA: teardown completion seen (ROCC.COMP); acknowledges it. */
bool udma_ring_tdown_done(struct udma_chan *ch);

/* ---- xfer.c ---- */
extern const struct ofl_memcpy_ops udma_memcpy_ops;
/* Issue descriptors for jobs up to `limit` (free-running job index). */
int udma_q_issue(struct offload_queue *q, uint32_t limit);
int udma_q_progress(struct offload_queue *q, int64_t timeout_us);
/* Set up `bq` for a queue on channel `ch` (per-job arrays of the queue's depth, owned by the caller). */
void udma_q_init(struct udma_q *bq, struct udma_chan *ch, uint32_t *remaining, uint8_t *state);
/* Synchronous copy on engine `e` (any thread). */
int udma_copy(struct udma_engine *e, void *dst, const void *src, size_t len,
	      struct offload_result *res);

#endif /* OFL_BACKEND_UDMA_H */
