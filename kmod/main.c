// SPDX-License-Identifier: GPL-2.0-only
/*
 * offload_dma: the kernel's memcpy-capable dmaengine channels for user
 * space, through the misc device /dev/offload_dma. The interface is
 * include/uapi/linux/offload_dma.h; the channels are chan.c's, the copies
 * job.c's. This file: the parameters, the device and its file operations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "offload_dma.h"

static unsigned int max_inflight = 128;
module_param(max_inflight, uint, 0444);
MODULE_PARM_DESC(max_inflight,
		 "copies one file may have submitted and not yet read (1..65536, default 128)");

static unsigned int max_pinned_mb;
module_param(max_pinned_mb, uint, 0444);
MODULE_PARM_DESC(max_pinned_mb,
		 "MiB of user memory one file may have pinned (0: 256 or a quarter of RAM if less; at least 1)");

static unsigned int max_pinned_total_mb;
module_param(max_pinned_total_mb, uint, 0444);
MODULE_PARM_DESC(max_pinned_total_mb,
		 "MiB of user memory all files together may have pinned (0: half of RAM)");

static unsigned int timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "a copy's timeout when it gives none, ms (1..max_timeout_ms, default 10000)");

static unsigned int max_timeout_ms = 600000;
module_param(max_timeout_ms, uint, 0444);
MODULE_PARM_DESC(max_timeout_ms, "the longest timeout a copy may ask for, ms (default 600000)");

static unsigned int chans_per_dev = 1;
module_param(chans_per_dev, uint, 0444);
MODULE_PARM_DESC(chans_per_dev,
		 "memcpy channels taken from each DMA device while the device is open (1..64, default 1)");

static unsigned int max_channels = 16;
module_param(max_channels, uint, 0444);
MODULE_PARM_DESC(max_channels, "memcpy channels taken in all (1..256, default 16)");

static unsigned int align_min = 1;
module_param(align_min, uint, 0444);
MODULE_PARM_DESC(align_min,
		 "bytes every engine piece is aligned to at least, above the driver's copy_align (a power of two, 1..4096, default 1)");

static unsigned int round_descs = 64;
module_param(round_descs, uint, 0444);
MODULE_PARM_DESC(round_descs,
		 "descriptors one copy puts on its channel at a time (1..4096, default 64)");

unsigned int ofd_max_inflight;
unsigned long ofd_max_pinned;
unsigned long ofd_max_pinned_total;
unsigned int ofd_timeout_ms;
unsigned int ofd_max_timeout_ms;
unsigned int ofd_chans_per_dev;
unsigned int ofd_max_channels;
unsigned int ofd_round_descs;
unsigned int ofd_align_min;
struct workqueue_struct *ofd_wq;

static int ofd_range(const char *name, unsigned int v, unsigned int lo, unsigned int hi)
{
	if (v >= lo && v <= hi)
		return 0;
	pr_err("%s=%u is outside %u..%u\n", name, v, lo, hi);
	return -EINVAL;
}

static int ofd_params_init(void)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;
	u64 cap = ULONG_MAX / 2;	/* a 32-bit kernel with more RAM than it maps */
	u64 file, all;
	int r = 0;

	r |= ofd_range("max_inflight", max_inflight, 1, 65536);
	r |= ofd_range("max_timeout_ms", max_timeout_ms, 1, 3600000);
	r |= ofd_range("timeout_ms", timeout_ms, 1, max_timeout_ms);
	r |= ofd_range("chans_per_dev", chans_per_dev, 1, 64);
	r |= ofd_range("max_channels", max_channels, 1, 256);
	r |= ofd_range("round_descs", round_descs, 1, 4096);
	r |= ofd_range("align_min", align_min, 1, 4096);
	if (r || (align_min & (align_min - 1))) {
		if (!r)
			pr_err("align_min=%u is not a power of two\n", align_min);
		return -EINVAL;
	}
	file = max_pinned_mb ? (u64)max_pinned_mb << 20 : min_t(u64, 256ULL << 20, ram / 4);
	all = max_pinned_total_mb ? (u64)max_pinned_total_mb << 20 : ram / 2;
	file = clamp_t(u64, file, 1ULL << 20, cap);
	all = clamp_t(u64, all, 1ULL << 20, cap);
	ofd_max_inflight = max_inflight;
	ofd_max_pinned = file;
	ofd_max_pinned_total = all;
	ofd_timeout_ms = timeout_ms;
	ofd_max_timeout_ms = max_timeout_ms;
	ofd_chans_per_dev = chans_per_dev;
	ofd_max_channels = max_channels;
	ofd_round_descs = round_descs;
	ofd_align_min = align_min;
	return 0;
}

/* ------------------------------------------------------------ files */

static int ofd_open(struct inode *inode, struct file *file)
{
	struct ofd_file *f = kzalloc(sizeof(*f), GFP_KERNEL);
	int r;

	if (!f)
		return -ENOMEM;
	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->running);
	INIT_LIST_HEAD(&f->done);
	init_waitqueue_head(&f->wq);
	f->max_inflight = ofd_max_inflight;
	f->max_pinned = ofd_max_pinned;
	f->timeout_ms = ofd_timeout_ms;
	f->max_timeout_ms = ofd_max_timeout_ms;
	r = ofd_chans_get();
	if (r) {
		kfree(f);
		return r;
	}
	file->private_data = f;
	return stream_open(inode, file);
}

static bool ofd_running_empty(struct ofd_file *f)
{
	bool empty;

	spin_lock(&f->lock);
	empty = list_empty(&f->running);
	spin_unlock(&f->lock);
	return empty;
}

/* The last close: stop what still runs, wait until it has ended, free. */
static int ofd_release(struct inode *inode, struct file *file)
{
	struct ofd_file *f = file->private_data;
	struct ofd_job *job, *tmp;

	ofd_cancel(f, 0, true);
	wait_event(f->wq, ofd_running_empty(f));
	list_for_each_entry_safe(job, tmp, &f->done, fnode) {
		list_del(&job->fnode);
		ofd_job_free(job);
	}
	if (f->efd)
		eventfd_ctx_put(f->efd);
	kfree(f);
	ofd_chans_put();
	return 0;
}

static bool ofd_has_done(struct ofd_file *f)
{
	bool any;

	spin_lock(&f->lock);
	any = !list_empty(&f->done);
	spin_unlock(&f->lock);
	return any;
}

static struct ofd_job *ofd_pop_done(struct ofd_file *f)
{
	struct ofd_job *job;

	spin_lock(&f->lock);
	job = list_first_entry_or_null(&f->done, struct ofd_job, fnode);
	if (job)
		list_del_init(&job->fnode);
	spin_unlock(&f->lock);
	return job;
}

/* Completions, whole records only; blocks (interruptibly) for the first
 * unless O_NONBLOCK.
 */
static ssize_t ofd_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	const size_t sz = sizeof(struct offload_dma_completion);
	struct ofd_file *f = file->private_data;
	size_t n = count / sz, got = 0;
	struct ofd_job *job;
	int r;

	if (!n)
		return -EINVAL;
	while (!got) {
		if (!(file->f_flags & O_NONBLOCK)) {
			r = wait_event_interruptible(f->wq, ofd_has_done(f));
			if (r)
				return r;
		}
		while (got < n && (job = ofd_pop_done(f))) {
			if (copy_to_user(buf + got * sz, &job->comp, sz)) {
				spin_lock(&f->lock);
				list_add(&job->fnode, &f->done);
				spin_unlock(&f->lock);
				return got ? got * sz : -EFAULT;
			}
			ofd_job_free(job);
			spin_lock(&f->lock);
			f->outstanding--;
			wake_up_all(&f->wq);
			spin_unlock(&f->lock);
			got++;
		}
		if (!got && (file->f_flags & O_NONBLOCK))
			return -EAGAIN;
	}
	return got * sz;
}

static __poll_t ofd_poll(struct file *file, poll_table *wait)
{
	struct ofd_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->wq, wait);
	spin_lock(&f->lock);
	if (!list_empty(&f->done))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (f->outstanding < f->max_inflight)
		mask |= EPOLLOUT | EPOLLWRNORM;
	spin_unlock(&f->lock);
	return mask;
}

/* ------------------------------------------------------------ ioctls */

static long ofd_ioc_version(void __user *up)
{
	struct offload_dma_version v = {
		.abi_major = OFFLOAD_DMA_ABI_MAJOR,
		.abi_minor = OFFLOAD_DMA_ABI_MINOR,
		.copy_size = sizeof(struct offload_dma_copy),
		.completion_size = sizeof(struct offload_dma_completion),
	};

	strscpy(v.module_version, OFD_VERSION);
	return copy_to_user(up, &v, sizeof(v)) ? -EFAULT : 0;
}

static long ofd_ioc_info(struct ofd_file *f, void __user *up)
{
	struct offload_dma_info info = {
		.nr_channels = ofd_nr_chans(),
		.max_inflight = f->max_inflight,
		.max_pinned_bytes = f->max_pinned,
		.max_copy_bytes = ofd_max_copy(f),
		.default_timeout_ms = f->timeout_ms,
		.max_timeout_ms = f->max_timeout_ms,
		.cache_align = dma_get_cache_alignment(),
		.page_size = PAGE_SIZE,
	};

	return copy_to_user(up, &info, sizeof(info)) ? -EFAULT : 0;
}

static bool ofd_zero(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

static long ofd_ioc_chan_info(void __user *up)
{
	struct offload_dma_chan_info info;
	struct ofd_chan *ch;

	if (copy_from_user(&info, up, sizeof(info)))
		return -EFAULT;
	if (info.reserved0 || !ofd_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;
	ch = ofd_chan(info.index);
	if (!ch)
		return -ENODEV;
	return copy_to_user(up, &ch->info, sizeof(ch->info)) ? -EFAULT : 0;
}

static long ofd_ioc_submit(struct ofd_file *f, void __user *up)
{
	struct offload_dma_submit sub;
	long r;

	if (copy_from_user(&sub, up, sizeof(sub)))
		return -EFAULT;
	sub.submitted = 0;
	sub.detail = OFFLOAD_DMA_WHY_NONE;
	if (!ofd_zero(sub.reserved, sizeof(sub.reserved))) {
		sub.detail = OFFLOAD_DMA_WHY_RESERVED;
		r = -EINVAL;
	} else if (sub.flags) {
		sub.detail = OFFLOAD_DMA_WHY_FLAGS;
		r = -EINVAL;
	} else if (!sub.count) {
		sub.detail = OFFLOAD_DMA_WHY_COUNT;
		r = -EINVAL;
	} else {
		r = ofd_submit(f, &sub);
		if (r == -EFAULT)
			sub.detail = OFFLOAD_DMA_WHY_FAULT;
		else if (r == -ENOMEM)
			sub.detail = OFFLOAD_DMA_WHY_NOMEM;
	}
	if (copy_to_user(up, &sub, sizeof(sub)))
		return -EFAULT;
	return r;
}

static long ofd_ioc_cancel(struct ofd_file *f, void __user *up)
{
	struct offload_dma_cancel c;

	if (copy_from_user(&c, up, sizeof(c)))
		return -EFAULT;
	if (c.reserved || (c.flags & ~OFFLOAD_DMA_CANCEL_FLAGS))
		return -EINVAL;
	c.cancelled = ofd_cancel(f, c.user_data, c.flags & OFFLOAD_DMA_CANCEL_ALL);
	if (copy_to_user(up, &c, sizeof(c)))
		return -EFAULT;
	return c.cancelled;
}

static long ofd_ioc_eventfd(struct ofd_file *f, void __user *up)
{
	struct offload_dma_eventfd e;
	struct eventfd_ctx *ctx = NULL, *old;

	if (copy_from_user(&e, up, sizeof(e)))
		return -EFAULT;
	if (e.flags || e.reserved)
		return -EINVAL;
	if (e.fd != -1) {
		if (e.fd < 0)
			return -EBADF;
		ctx = eventfd_ctx_fdget(e.fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	spin_lock(&f->lock);
	old = f->efd;
	f->efd = ctx;
	spin_unlock(&f->lock);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

static long ofd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ofd_file *f = file->private_data;
	void __user *up = (void __user *)arg;

	switch (cmd) {
	case OFFLOAD_DMA_IOC_VERSION:
		return ofd_ioc_version(up);
	case OFFLOAD_DMA_IOC_INFO:
		return ofd_ioc_info(f, up);
	case OFFLOAD_DMA_IOC_CHAN_INFO:
		return ofd_ioc_chan_info(up);
	case OFFLOAD_DMA_IOC_SUBMIT:
		return ofd_ioc_submit(f, up);
	case OFFLOAD_DMA_IOC_CANCEL:
		return ofd_ioc_cancel(f, up);
	case OFFLOAD_DMA_IOC_SET_EVENTFD:
		return ofd_ioc_eventfd(f, up);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations ofd_fops = {
	.owner = THIS_MODULE,
	.open = ofd_open,
	.release = ofd_release,
	.read = ofd_read,
	.poll = ofd_poll,
	.unlocked_ioctl = ofd_ioctl,
	/* The structures are the same for 32-bit callers (__u64 addresses). */
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice ofd_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "offload_dma",
	.fops = &ofd_fops,
	.mode = 0600,
};

static int __init ofd_init(void)
{
	int r;

	/* One layout for 32- and 64-bit user space: sizes multiples of 8. */
	BUILD_BUG_ON(sizeof(struct offload_dma_version) != 80);
	BUILD_BUG_ON(sizeof(struct offload_dma_info) != 72);
	BUILD_BUG_ON(sizeof(struct offload_dma_chan_info) != 456);
	BUILD_BUG_ON(sizeof(struct offload_dma_copy) != 64);
	BUILD_BUG_ON(sizeof(struct offload_dma_submit) != 40);
	BUILD_BUG_ON(sizeof(struct offload_dma_completion) != 56);
	BUILD_BUG_ON(sizeof(struct offload_dma_cancel) != 24);
	BUILD_BUG_ON(sizeof(struct offload_dma_eventfd) != 16);

	r = ofd_params_init();
	if (r)
		return r;
	r = ofd_chans_init();
	if (r)
		return r;
	ofd_wq = alloc_workqueue("offload_dma", WQ_UNBOUND, 0);
	if (!ofd_wq) {
		ofd_chans_exit();
		return -ENOMEM;
	}
	r = misc_register(&ofd_misc);
	if (r) {
		destroy_workqueue(ofd_wq);
		ofd_chans_exit();
		return r;
	}
	return 0;
}

static void __exit ofd_exit(void)
{
	misc_deregister(&ofd_misc);
	ofd_chans_exit();
	destroy_workqueue(ofd_wq);
}

module_init(ofd_init);
module_exit(ofd_exit);

MODULE_DESCRIPTION("The kernel's memcpy-capable dmaengine channels for user space (/dev/offload_dma)");
MODULE_AUTHOR("the liboffload authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(OFD_VERSION);
MODULE_IMPORT_NS(DMA_BUF);
