/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * offload_dma: the module's internal interfaces (main.c, chan.c, job.c).
 *
 * Locking, outermost first:
 *   ofd_chans_lock (mutex, chan.c)  the channel table and the open count;
 *   ofd_chan.lock (mutex)           a channel's job list, descriptor
 *                                   submission, stopping and resubmitting;
 *   ofd_file.lock (spinlock)        a file's lists, counters and eventfd;
 *   ofd_chan.slock (spinlock, irq)  the round state of the channel's jobs,
 *                                   shared with the dmaengine callback.
 * The two spinlocks are never held together.
 *
 * A job (one copy) lives from SUBMIT until read() hands its completion out
 * (or the file is released). Its pages stay pinned and mapped until the
 * engine is known to be done with them: every descriptor of its current
 * round has called back, or dmaengine_terminate_sync() has returned on its
 * channel.
 */
#ifndef OFFLOAD_DMA_INTERNAL_H
#define OFFLOAD_DMA_INTERNAL_H

#include <linux/dma-direction.h>
#include <linux/dmaengine.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "include/uapi/linux/offload_dma.h"

#define OFD_VERSION "1.0.0"

/* Rounds of one copy a driver may report aborted (DMA_TRANS_ABORTED) before
 * the copy fails with EIO.
 */
#define OFD_MAX_ABORTS 3

/* Times a copy finds an idle channel whose driver gives no descriptor
 * before it fails with ENOMEM; the watchdog retries a jiffy apart. */
#define OFD_MAX_PREP_TRIES 8

/* Module parameters, checked and settled by ofd_params_init() (main.c). */
extern unsigned int ofd_max_inflight;
extern unsigned long ofd_max_pinned;		/* bytes, per file */
extern unsigned long ofd_max_pinned_total;	/* bytes, all files */
extern unsigned int ofd_timeout_ms;
extern unsigned int ofd_max_timeout_ms;
extern unsigned int ofd_chans_per_dev;
extern unsigned int ofd_max_channels;
extern unsigned int ofd_round_descs;
extern unsigned int ofd_align_min;		/* bytes */

extern struct workqueue_struct *ofd_wq;

/* One dmaengine channel the module holds. */
struct ofd_chan {
	struct dma_chan *chan;
	struct device *dev;		/* dmaengine_get_dma_device() */
	u32 index;
	u32 align;			/* copy_align in bytes, at least align_min */
	u64 max_piece;			/* max_seg_size rounded down to align */
	bool coherent;
	struct mutex lock;		/* jobs, submission, stop, watchdog state */
	spinlock_t slock;		/* the jobs' round state, vs callbacks */
	struct list_head jobs;		/* unfinished jobs, in start order */
	struct delayed_work watchdog;	/* timeouts */
	unsigned long wd_when;		/* jiffies it is armed for */
	bool wd_armed;
	bool retry;			/* a job waits on an idle channel */
	struct offload_dma_chan_info info;
};

/* A walk over the DMA segments of a mapped scatter list. */
struct ofd_iter {
	struct scatterlist *sg;
	unsigned int left;		/* mapped segments left, sg included */
	u64 off;			/* bytes of sg already used */
};

/* One side of a copy: user memory (pages) or a dma-buf (buf). */
struct ofd_side {
	enum dma_data_direction dir;
	unsigned long addr;		/* user address */
	struct page **pages;
	unsigned long npages;		/* pinned */
	struct sg_table sgt;		/* the engine's part of the user range */
	bool sgt_alloc;
	bool mapped;
	struct dma_buf *buf;
	struct dma_buf_attachment *att;
	struct sg_table *bsgt;		/* the exporter's mapping */
	u64 off;			/* offset in the dma-buf */
};

/* Round state of a job, under ofd_chan.slock. */
enum ofd_state {
	OFD_IDLE,			/* nothing of it on the engine */
	OFD_HW,				/* a round is on the engine */
	OFD_RDONE,			/* the round called back; work queued */
};

struct ofd_file;

struct ofd_job {
	struct list_head fnode;		/* ofd_file.running, then .done */
	struct list_head cnode;		/* ofd_chan.jobs while on it */
	struct ofd_file *file;
	struct ofd_chan *ch;
	struct work_struct work;
	struct ofd_side src, dst;
	u64 len;
	u64 dma_off, dma_len;		/* the engine's part of the copy */
	u64 cpu_done;			/* bytes the CPU has copied */
	struct ofd_iter si, di;		/* the next piece */
	struct ofd_iter rsi, rdi;	/* the current round's first piece */
	u64 done;			/* engine bytes up to si/di */
	u64 rdone;			/* engine bytes before the round */
	enum ofd_state state;		/* slock */
	unsigned int pending;		/* slock: descriptors out, plus a bias */
	int hw_err;			/* slock: first error result */
	unsigned int gen;		/* slock: the round's generation */
	int cancel;			/* 0, or the status to end with */
	bool cpu_only;
	bool waiting;			/* for a descriptor; ofd_chan.lock */
	bool nocpu;
	unsigned int aborts;		/* rounds the driver called back "aborted" */
	unsigned int prep_tries;	/* rounds the driver gave no descriptor for */
	unsigned long deadline;		/* jiffies */
	u64 t0;				/* ns */
	unsigned long pinned;		/* bytes charged to the file */
	struct offload_dma_completion comp;
};

struct ofd_file {
	spinlock_t lock;		/* everything below but the limits */
	struct list_head running;	/* jobs not finished */
	struct list_head done;		/* finished, not yet read */
	unsigned int outstanding;	/* consumed copies not yet read */
	unsigned long pinned;		/* bytes */
	wait_queue_head_t wq;
	struct eventfd_ctx *efd;
	unsigned int max_inflight;	/* limits, as at open */
	unsigned long max_pinned;
	unsigned int timeout_ms;
	unsigned int max_timeout_ms;
};

/* chan.c */
int ofd_chans_init(void);
int ofd_chans_get(void);
void ofd_chans_put(void);
void ofd_chans_exit(void);
unsigned int ofd_nr_chans(void);
struct ofd_chan *ofd_chan(u32 index);
void ofd_chan_arm(struct ofd_chan *ch);
void ofd_chan_reap(struct ofd_chan *ch);
void ofd_chan_kick(struct ofd_chan *ch);

/* job.c */
int ofd_submit(struct ofd_file *f, struct offload_dma_submit *sub);
unsigned int ofd_cancel(struct ofd_file *f, u64 user_data, bool all);
int ofd_round_start(struct ofd_chan *ch, struct ofd_job *job);
void ofd_job_end(struct ofd_job *job, int status, u32 why);
int ofd_job_next(struct ofd_chan *ch, struct ofd_job *job);
void ofd_job_free(struct ofd_job *job);
u64 ofd_max_copy(const struct ofd_file *f);

#endif /* OFFLOAD_DMA_INTERNAL_H */
