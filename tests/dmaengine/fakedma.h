/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the kernel side of /dev/offload_dma (kmod/), for tests only.
 * Test binaries link liboffload.a with
 * -Wl,--wrap=open,--wrap=open64,--wrap=ioctl,--wrap=close,--wrap=read,--wrap=poll
 * so that the library's calls on the installed device land here; other paths
 * and descriptors go to the real calls, and /dev/offload_dma without an
 * installed stand-in fails with ENOENT (a developer's real module is never
 * touched).
 *
 * It implements the uapi (kmod/include/uapi/linux/offload_dma.h) as kmod/main.c
 * and kmod/job.c do: VERSION, INFO, CHAN_INFO (reserved fields, ENODEV past
 * the last index), SUBMIT (header checks with their detail; per copy: a slot
 * of max_inflight, the checks of ofd_check() in their order with their
 * errno and detail, the pinned-memory charge of ofd_submit_one() that stops
 * the batch, EFAULT for memory a pin would refuse: not mapped, or a
 * destination that is not writable, found in /proc/self/maps), completions
 * read whole by read() (EINVAL for a buffer shorter than one record, EAGAIN
 * with O_NONBLOCK) and POLLIN from poll(), CANCEL. The engine's part of a
 * copy is the module's: the bytes between the first and last boundary of
 * max(copy_align, cache_align on a non-coherent channel) in dst, or nothing
 * when src and dst differ modulo copy_align; the CPU's part is the rest.
 * Engines can be made to fail (a status and detail, after half the bytes),
 * or to stall until the copy's timeout (then -ETIMEDOUT, as the module's
 * timeout ends it). dma-buf sides (OFFLOAD_DMA_COPY_*_DMABUF) are any
 * mappable fd (a memfd stands in for a dma-buf): the offset range must lie in
 * the file (EINVAL, DMABUF_RANGE), EBADF for a closed fd; the engine does every
 * byte, so src, dst and len must be multiples of copy_align and a user dst on a
 * non-coherent channel must start and end on cache_align (EINVAL, ALIGN).
 * A range marked PFN-mapped (fake_dma_mark_pfn) fails a pin with EFAULT.
 * Fault knobs below make it lie as breakdma's hostile stand-in did.
 */
#ifndef TESTS_DMAENGINE_FAKEDMA_H
#define TESTS_DMAENGINE_FAKEDMA_H

#include <linux/offload_dma.h>
#include <stdbool.h>
#include <stdint.h>

#define FAKE_DMA_MAX_CHANS 8

struct fake_dma_cfg {
	struct offload_dma_version ver;
	struct offload_dma_info info;
	struct offload_dma_chan_info ch[FAKE_DMA_MAX_CHANS]; /* info.nr_channels of them */
	bool eacces;          /* open() fails with EACCES (root's device, mode 0600) */
	int32_t fail_status;  /* every copy ends with it (e.g. -EIO) */
	uint32_t fail_detail;
	bool fail_half;       /* ... after the engine wrote half its part (else before any byte) */
	bool stall;           /* copies never finish: they end at their timeout */
	/* A lying module (breakdma's findings), for the backend's defences: */
	uint32_t lie_extra;   /* SUBMIT says it consumed this many more than it did, and queues
			       * as many completions nobody asked for (user_data 0x1000) */
	bool submit_zero;     /* SUBMIT succeeds having consumed nothing (the uapi says EAGAIN) */
	uint32_t fail_mask;   /* bit k: copy k of every SUBMIT (k < 32) fails with fail_status
			       * before any byte; the other copies succeed */
	bool reverse;         /* the completions of one SUBMIT come in reverse order */
	bool stray;           /* each SUBMIT first queues a completion for a copy never
			       * submitted (user_data ~0) */
	bool poll_eintr;      /* a waiting poll() returns EINTR after at most 10 ms, as a
			       * periodic signal makes it */
};

/* User memory [p, p + len) is PFN-mapped (udmabuf's mapping): a pin fails with EFAULT. */
void fake_dma_mark_pfn(const void *p, size_t len);

/* A module of this ABI with `nchan` channels of `driver` on controller `device` at `of_path`. */
void fake_dma_cfg_default(struct fake_dma_cfg *c, unsigned nchan, const char *driver,
			  const char *device, const char *of_path);
/* Make /dev/offload_dma exist with this configuration (copied), or not (NULL). */
void fake_dma_install(const struct fake_dma_cfg *c);
/* OFFLOAD_DMA_IOC_SUBMIT calls and copies consumed since install. */
unsigned fake_dma_submits(void);
unsigned fake_dma_copies(void);
/* Files open now. */
unsigned fake_dma_open_files(void);
/* Bytes pinned now over all files (0 when every copy has ended). */
uint64_t fake_dma_pinned(void);

#endif
