/* SPDX-License-Identifier: MIT */
/*
 * The decisions a device carries (struct ofl_policy) and what an engine's
 * policy hook is given and asked for. src/policy owns the decisions: it
 * runs the generic rules (status, reg translation, coherency inheritance,
 * cache mode from coherency, cache-line alignment of streaming devices, the
 * offload thresholds) before and after the hook of the engine whose match
 * table named the node (struct ofl_backend.policy, backends/<engine>/); a
 * backend that learns something at probe time records it with
 * ofl_dev_refine() (src/driver/driver.h), never by editing the fields.
 */
#ifndef OFL_DRIVER_DECISION_H
#define OFL_DRIVER_DECISION_H

#include <stdbool.h>
#include <stdint.h>

#include <offload/core.h>

#include "dt/dt.h"
#include "util/util.h"

/* Per-device decisions, each with its reason. */
struct ofl_policy {
	bool enabled;                      /* DT status okay here and on every ancestor */
	char enabled_reason[OFL_REASON_LEN];

	bool coherent;
	int coherent_node;                 /* deciding node offset, -1 if default */
	char coherent_path[OFL_DT_PATH_LEN]; /* its path, "" if default */
	char coherent_reason[OFL_REASON_LEN];

	bool soc_io_coherent;              /* the SoC table: the interconnect is I/O-coherent */
	char soc_io_coherent_reason[OFL_REASON_LEN];

	enum offload_cache_mode cache_mode;
	char cache_reason[OFL_REASON_LEN];

	uint32_t burst_bytes;              /* for memcpy on the best channel class */
	uint16_t burst_by_tpl[3];          /* per channel class [normal, H, UH], 0 = none sent */
	int best_tpl;                      /* class memcpy uses, -1 = n/a */
	bool burst_programmed;             /* the library/firmware programs it (vs HW default) */
	char burst_reason[OFL_REASON_LEN];

	uint32_t align_bytes;
	char align_reason[OFL_REASON_LEN];

	uint64_t threshold_bytes;
	char threshold_reason[OFL_REASON_LEN];

	char transfer_mode[24];
	char transfer_reason[OFL_REASON_LEN];

	bool reg_ok;                       /* reg[0] translated to a CPU address */
	uint64_t reg_addr, reg_size;
	char reg_reason[OFL_REASON_LEN];   /* how, or why not */

	uint32_t caps;                     /* OFFLOAD_CAP_* this device offers by policy */
	uint32_t refined;                  /* OFL_DECIDE_* bits a backend refined at probe time */
};

/* The decisions ofl_dev_refine() can refine, as bits of struct ofl_policy.refined. */
enum ofl_decision {
	OFL_DECIDE_CACHE = 1u << 0,    /* cache_mode / cache_reason */
	OFL_DECIDE_BURST = 1u << 1,    /* burst_reason */
	OFL_DECIDE_TRANSFER = 1u << 2, /* transfer_mode / transfer_reason */
	OFL_DECIDE_THRESHOLD = 1u << 3, /* threshold_bytes / threshold_reason (ofl_dev_refine_threshold) */
};

/*
 * The head of every row an engine's match table points at (struct
 * ofl_dt_id.data): what the generic code needs of the row. The engine's own
 * row type embeds it as its first member.
 */
struct ofl_match_row {
	const char *kind;   /* device kind shown in offload_dev_info ("k3-bcdma", "dspi") */
	const char *source; /* the Linux match data it restates ("Linux k3-udma.c am64_bcdma_data") */
	uint32_t flags;     /* OFL_ROW_* */
};
/* Listed with its policy, never probed by its engine's backend (e.g. K3 PKTDMA: no memcpy). */
#define OFL_ROW_LIST_ONLY (1u << 0)

static inline const struct ofl_match_row *ofl_match_row_of(const struct ofl_dt_id *id)
{
	return (const struct ofl_match_row *)id->data;
}

/* A default offload threshold (bytes) and where it comes from. */
struct ofl_threshold_default {
	uint64_t bytes;
	const char *source;
};

/*
 * What an engine's policy hook is given: the node, and the defaults of the
 * generic rules. The hook reads the device tree only through src/dt.
 */
struct ofl_policy_in {
	const void *fdt;
	int node;
	const char *path;                     /* the node's full path */
	const struct ofl_dt_chain *chain;     /* root .. node */
	const struct ofl_dt_id *match;        /* the match table entry (compatible, row) */
	const struct ofl_threshold_default *memcpy_threshold, *crypto_threshold;
};

/* What the hook asks the generic rules to do after it (struct ofl_policy_req.flags). */
#define OFL_POLICY_RECACHE (1u << 0)    /* it changed coherency: derive the cache mode again */
#define OFL_POLICY_ALIGN_LINE (1u << 1) /* align buffers to the cache line when streaming */

struct ofl_policy_req {
	uint32_t flags;
	/* appended to the cache reason whenever the device ends up streaming ("" or NULL: nothing) */
	const char *streaming_note;
};

/*
 * The hook: called with the generic decisions made (enabled, reg,
 * coherency, the SoC coherency note, and the cache mode derived from
 * coherency); fills caps, burst, alignment, threshold and transfer mode
 * with their reasons, and may refine coherency (then asks for
 * OFL_POLICY_RECACHE) or set a cache mode of its own (a device that does
 * no DMA).
 */
typedef void (*ofl_policy_hook)(const struct ofl_policy_in *in, struct ofl_policy *p,
				struct ofl_policy_req *req);

#endif /* OFL_DRIVER_DECISION_H */
