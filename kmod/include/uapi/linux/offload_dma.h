/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * offload_dma: the kernel's memcpy-capable dmaengine channels for user space.
 *
 * The character device /dev/offload_dma (a misc device of the offload_dma
 * module, kmod/ in liboffload) lists the dmaengine channels the module holds
 * and copies between user buffers and dma-bufs on them, zero-copy: the
 * module pins the pages, maps them for the channel's device with the DMA API
 * (which does the cache maintenance and goes through the IOMMU or a bounce
 * buffer where the platform needs one) and submits one dmaengine memcpy per
 * contiguous piece.
 *
 * Every structure here has the same size and layout for 32- and 64-bit user
 * space: addresses and lengths are __u64, every field sits at a multiple of
 * its size, and every size is a multiple of 8. Reserved fields and unknown
 * flags must be zero; the module refuses anything else with EINVAL, so that
 * later versions can give them a meaning.
 *
 * Use:
 *   1. OFFLOAD_DMA_IOC_VERSION: check abi_major == OFFLOAD_DMA_ABI_MAJOR.
 *   2. OFFLOAD_DMA_IOC_INFO, then OFFLOAD_DMA_IOC_CHAN_INFO per channel.
 *   3. OFFLOAD_DMA_IOC_SUBMIT a batch of copies (one system call); every copy
 *      it consumed gives exactly one completion, success or not.
 *   4. read() completions (struct offload_dma_completion, whole records
 *      only), when poll() says POLLIN or an eventfd given with
 *      OFFLOAD_DMA_IOC_SET_EVENTFD counts up (one count per completion).
 *   5. OFFLOAD_DMA_IOC_CANCEL what should stop; close() cancels what is left.
 */
#ifndef _UAPI_LINUX_OFFLOAD_DMA_H
#define _UAPI_LINUX_OFFLOAD_DMA_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Incompatible changes raise the major, additions (flags, ioctls) the minor. */
#define OFFLOAD_DMA_ABI_MAJOR 1
#define OFFLOAD_DMA_ABI_MINOR 0

#define OFFLOAD_DMA_DEVICE "/dev/offload_dma"

/*
 * The ioctl type: unassigned in the kernel's
 * Documentation/userspace-api/ioctl/ioctl-number.rst (6.12).
 */
#define OFFLOAD_DMA_IOC_MAGIC 0xB9

/* OFFLOAD_DMA_IOC_VERSION: what this module speaks. */
struct offload_dma_version {
	__u32 abi_major;	/* OFFLOAD_DMA_ABI_MAJOR of the module */
	__u32 abi_minor;
	__u32 copy_size;	/* sizeof(struct offload_dma_copy) */
	__u32 completion_size;	/* sizeof(struct offload_dma_completion) */
	char module_version[32];/* the module's version string, NUL-terminated */
	__u64 reserved[4];	/* zero */
};

/* OFFLOAD_DMA_IOC_INFO: the module's channels and this file's limits. */
struct offload_dma_info {
	__u32 nr_channels;	/* channel indices are 0 .. nr_channels - 1 */
	__u32 max_inflight;	/* copies submitted and not yet read, per file */
	__u64 max_pinned_bytes;	/* user memory pinned at once, per file (bytes) */
	__u64 max_copy_bytes;	/* the longest copy between two user buffers */
	__u32 default_timeout_ms; /* a copy's timeout when it gives 0 */
	__u32 max_timeout_ms;	/* the longest timeout a copy may ask for */
	__u32 cache_align;	/* dma_get_cache_alignment(): bytes */
	__u32 page_size;	/* the kernel's PAGE_SIZE: bytes */
	__u64 reserved[4];
};

/* struct offload_dma_chan_info.flags */
#define OFFLOAD_DMA_CHAN_COHERENT	(1U << 0) /* dev_is_dma_coherent() */
#define OFFLOAD_DMA_CHAN_IOMMU		(1U << 1) /* device_iommu_mapped() */
#define OFFLOAD_DMA_CHAN_PATH_TRUNCATED	(1U << 2) /* of_path did not fit */
/* copy_align is the module's align_min parameter, above the driver's */
#define OFFLOAD_DMA_CHAN_ALIGN_RAISED	(1U << 3)

/*
 * OFFLOAD_DMA_IOC_CHAN_INFO: one channel, by index (set index, the rest is
 * filled in). The device fields are those of the device the channel's
 * transfers are mapped for (dmaengine_get_dma_device()).
 */
struct offload_dma_chan_info {
	__u32 index;		/* in: 0 .. nr_channels - 1 */
	__u32 flags;		/* OFFLOAD_DMA_CHAN_* */
	/* bytes, a power of two: src, dst and len of every engine piece are
	 * multiples of it
	 */
	__u32 copy_align;
	__u32 chan_id;		/* the channel's number on its DMA device */
	__u64 max_seg_size;	/* dma_get_max_seg_size(): bytes per piece */
	__u64 dma_mask;		/* the device's streaming DMA mask */
	__u32 dev_id;		/* N of the kernel's dmaN */
	__u32 reserved0;
	char name[32];		/* dma_chan_name(): "dma0chan1" */
	char device[64];	/* dev_name() of the DMA controller */
	char driver[32];	/* its driver: "bcm2835-dma", "k3-udma", ... */
	/* the controller's full device-tree path, "" without a node */
	char of_path[256];
	__u64 reserved[4];
};

/* struct offload_dma_copy.flags */
#define OFFLOAD_DMA_COPY_SRC_DMABUF	(1U << 0) /* src is an offset in src_fd */
#define OFFLOAD_DMA_COPY_DST_DMABUF	(1U << 1) /* dst is an offset in dst_fd */
/*
 * Fail (EINVAL, OFFLOAD_DMA_WHY_ALIGN) rather than copy any byte with the
 * CPU. Without it the module copies with the CPU what the engine may not
 * take: the bytes before the first and after the last boundary of
 * max(copy_align, cache_align on a non-coherent device) in dst, or the
 * whole copy when src and dst differ modulo copy_align.
 */
#define OFFLOAD_DMA_COPY_NO_CPU		(1U << 2)
#define OFFLOAD_DMA_COPY_FLAGS		0x7U

/* One copy of len bytes from src to dst. */
struct offload_dma_copy {
	__u64 user_data;	/* returned in its completion */
	__u64 src;		/* a user address, or an offset in src_fd */
	__u64 dst;		/* a user address, or an offset in dst_fd */
	__u64 len;		/* bytes, 1 .. max_copy_bytes (user memory) */
	__s32 src_fd;		/* with OFFLOAD_DMA_COPY_SRC_DMABUF, else 0 */
	__s32 dst_fd;		/* with OFFLOAD_DMA_COPY_DST_DMABUF, else 0 */
	__u32 chan;		/* channel index */
	__u32 flags;		/* OFFLOAD_DMA_COPY_* */
	__u32 timeout_ms;	/* 0: default_timeout_ms; at most max_timeout_ms */
	__u32 reserved0;
	__u64 reserved1;
};

/*
 * OFFLOAD_DMA_IOC_SUBMIT: copies[0 .. count-1] in order. The ioctl returns
 * the number of copies consumed (also in submitted); each consumed copy gives
 * one completion, those the module refused at once too (their status says
 * why). It stops early, without consuming the copy, when this file's
 * max_inflight copies or max_pinned_bytes are taken (read completions, then
 * submit the rest); it fails with EAGAIN when that holds for the first one,
 * EFAULT when copies cannot be read, EINVAL (detail says why) when the
 * header is bad.
 */
struct offload_dma_submit {
	__u64 copies;		/* user pointer to struct offload_dma_copy[count] */
	__u32 count;
	__u32 flags;		/* zero */
	__u32 submitted;	/* out: copies consumed */
	__u32 detail;		/* out: OFFLOAD_DMA_WHY_* when the ioctl failed */
	__u64 reserved[2];
};

/* What read() returns: one record per consumed copy. */
struct offload_dma_completion {
	__u64 user_data;	/* the copy's */
	__s32 status;		/* 0, or a negative errno */
	__u32 detail;		/* OFFLOAD_DMA_WHY_*: why the status */
	__u64 dma_bytes;	/* bytes the engine copied */
	__u64 cpu_bytes;	/* bytes the CPU copied (0 with _COPY_NO_CPU) */
	__u64 ns;		/* from submission to completion */
	__u32 chan;		/* the copy's channel index */
	__u32 pieces;		/* dmaengine memcpy descriptors it took, the
				 * resubmitted ones included
				 */
	__u32 restarts;		/* rounds resubmitted after a channel stop */
	__u32 reserved;
};

/* struct offload_dma_cancel.flags */
#define OFFLOAD_DMA_CANCEL_ALL		(1U << 0) /* every copy of this file */
#define OFFLOAD_DMA_CANCEL_FLAGS	0x1U

/*
 * OFFLOAD_DMA_IOC_CANCEL: stop the copies of this file whose user_data
 * matches (or all). When it returns, the engine no longer touches their
 * memory and their pages are unpinned; their completions say -ECANCELED, or
 * 0 for those that had finished. Returns the number of copies it stopped
 * (also in cancelled).
 */
struct offload_dma_cancel {
	__u64 user_data;
	__u32 flags;		/* OFFLOAD_DMA_CANCEL_* */
	__u32 cancelled;	/* out */
	__u64 reserved;
};

/* OFFLOAD_DMA_IOC_SET_EVENTFD: signal fd once per completion; -1 detaches. */
struct offload_dma_eventfd {
	__s32 fd;
	__u32 flags;		/* zero */
	__u64 reserved;
};

/*
 * Why a copy (completion detail) or an ioctl (submit detail) failed; the
 * errno says what kind of failure, this says which rule.
 */
enum offload_dma_why {
	OFFLOAD_DMA_WHY_NONE = 0,
	OFFLOAD_DMA_WHY_RESERVED,	/* EINVAL: a reserved field is not zero */
	OFFLOAD_DMA_WHY_FLAGS,		/* EINVAL: an unknown flag */
	OFFLOAD_DMA_WHY_CHAN,		/* ENODEV: no such channel index */
	OFFLOAD_DMA_WHY_LEN,		/* EINVAL: len is 0 */
	OFFLOAD_DMA_WHY_RANGE,		/* EINVAL: an address range wraps */
	OFFLOAD_DMA_WHY_OVERLAP,	/* EINVAL: src and dst overlap */
	/* EINVAL: the engine's alignment rules leave bytes for the CPU, and
	 * the CPU may not take them (OFFLOAD_DMA_COPY_NO_CPU, a dma-buf)
	 */
	OFFLOAD_DMA_WHY_ALIGN,
	OFFLOAD_DMA_WHY_TOO_BIG,	/* E2BIG: more than max_copy_bytes */
	OFFLOAD_DMA_WHY_FAULT,		/* EFAULT: not mapped, or dst read-only */
	OFFLOAD_DMA_WHY_DMABUF,		/* EBADF/EINVAL: fd is not a dma-buf */
	OFFLOAD_DMA_WHY_DMABUF_RANGE,	/* EINVAL: beyond the dma-buf's size */
	OFFLOAD_DMA_WHY_DMABUF_MAP,	/* the exporter refused to attach/map */
	OFFLOAD_DMA_WHY_MAP,		/* dma_map_sgtable() failed */
	OFFLOAD_DMA_WHY_PREP,		/* ENOMEM: the driver gave no descriptor */
	OFFLOAD_DMA_WHY_ENGINE,		/* EIO: the driver reported an error */
	OFFLOAD_DMA_WHY_TIMEOUT,	/* ETIMEDOUT: not done within timeout_ms */
	OFFLOAD_DMA_WHY_CANCELED,	/* ECANCELED: OFFLOAD_DMA_IOC_CANCEL */
	OFFLOAD_DMA_WHY_TIMEOUT_ARG,	/* EINVAL: timeout_ms > max_timeout_ms */
	OFFLOAD_DMA_WHY_NOMEM,		/* ENOMEM: the module's own memory */
	OFFLOAD_DMA_WHY_COUNT,		/* EINVAL: submit count 0 */
	OFFLOAD_DMA_WHY_EVENTFD,	/* EBADF/EINVAL: fd is not an eventfd */
	OFFLOAD_DMA_WHY_MAX
};

#define OFFLOAD_DMA_IOC_VERSION \
	_IOR(OFFLOAD_DMA_IOC_MAGIC, 0x00, struct offload_dma_version)
#define OFFLOAD_DMA_IOC_INFO \
	_IOR(OFFLOAD_DMA_IOC_MAGIC, 0x01, struct offload_dma_info)
#define OFFLOAD_DMA_IOC_CHAN_INFO \
	_IOWR(OFFLOAD_DMA_IOC_MAGIC, 0x02, struct offload_dma_chan_info)
#define OFFLOAD_DMA_IOC_SUBMIT \
	_IOWR(OFFLOAD_DMA_IOC_MAGIC, 0x03, struct offload_dma_submit)
#define OFFLOAD_DMA_IOC_CANCEL \
	_IOWR(OFFLOAD_DMA_IOC_MAGIC, 0x04, struct offload_dma_cancel)
#define OFFLOAD_DMA_IOC_SET_EVENTFD \
	_IOW(OFFLOAD_DMA_IOC_MAGIC, 0x05, struct offload_dma_eventfd)

#endif /* _UAPI_LINUX_OFFLOAD_DMA_H */
