/* SPDX-License-Identifier: MIT */
/* The dmaengine backend's pieces (see dmaengine.c). */
#ifndef OFL_DMAENGINE_INT_H
#define OFL_DMAENGINE_INT_H

#include <linux/offload_dma.h>
#include <pthread.h>
#include <stdatomic.h>

#include "driver/driver.h"

/* Channels one device (one DMA controller) uses at most. */
#define DMAE_DEV_CHANS 8
/* Channels a module may report at most; more is taken for garbage (the real count is tens). */
#define DMAE_MAX_CHANNELS 4096u

/* The backend's context state: the module as one open file saw it at init. */
struct dmae_state {
	char path[272];                 /* the character device */
	int fd;                         /* kept open: the module holds its channels while a file is open */
	struct offload_dma_version ver;
	struct offload_dma_info info;
	struct offload_dma_chan_info *ch; /* info.nr_channels of them */
	bool *used;                     /* channel already given to a device */
	char bad[OFL_REASON_LEN];       /* non-empty: the module cannot be used (ABI), why */
	bool listed_bad;                /* the unusable device was listed */
	uint32_t flags;                 /* context flags (OFFLOAD_CTX_NO_ENV) */
};

/* One device: the channels of one DMA controller, and the file its synchronous copies use. */
struct dmae_dev {
	struct dmae_state *st;
	int fd;
	pthread_mutex_t lock;           /* one synchronous copy at a time on fd */
	uint32_t chans[DMAE_DEV_CHANS];
	unsigned nchan;
	atomic_uint next;               /* round robin over chans */
	uint64_t seq;                   /* user_data of sync copies (under lock) */
	uint32_t copy_align;
	bool coherent;                  /* the channels' DMA device is coherent */
	uint64_t max_seg;
	char driver[32];
	char chan_names[96];
	char threshold_reason[OFL_REASON_LEN];
};

/* copy.c */
extern const struct ofl_memcpy_ops ofl_dmae_memcpy_ops;
/* Open the character device for one more file of this process (O_CLOEXEC; nonblock as asked). */
int ofl_dmae_open_file(const struct dmae_state *st, bool nonblock);
/* The sentence for a completion's status and detail. */
const char *ofl_dmae_why(uint32_t detail);

/* threshold.c */
/*
 * The offload threshold for channels of kernel driver `driver`, and where it
 * comes from: $OFFLOAD_DMAENGINE_THRESHOLD, else the measurement file
 * (OFFLOAD_DMAENGINE_CONF or $OFFLOAD_DMAENGINE_CONF), else the default.
 */
uint64_t ofl_dmae_threshold(const char *driver, bool no_env, char *why, size_t why_len);

#endif
