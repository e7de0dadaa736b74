// SPDX-License-Identifier: GPL-2.0-only
/*
 * offload_dma: the channels. While any file of the device is open the
 * module holds up to chans_per_dev memcpy-capable channels of each DMA
 * device (max_channels in all), requested the way dmatest does
 * (dma_request_channel() with a DMA_MEMCPY mask and a filter); the last
 * close gives them back. An open takes channels that have appeared since;
 * indices never change while the device is open.
 *
 * Stopping a channel: dmaengine has no way to abort one descriptor, only
 * all of a channel's (dmaengine_terminate_sync(), which returns when the
 * hardware has stopped and no callback runs any more). To end a copy early
 * (cancel, timeout, close) the module stops the channel, ends the copies
 * that were to end, and resubmits the others from the start of their
 * current round: a copy is idempotent while its source is unchanged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/of.h>
#include <linux/slab.h>

#include "offload_dma.h"

static DEFINE_MUTEX(ofd_chans_lock);
static struct ofd_chan **ofd_chans;	/* [ofd_max_channels] */
static unsigned int ofd_nr;		/* published with release semantics */
static unsigned int ofd_users;		/* open files */

unsigned int ofd_nr_chans(void)
{
	/* Pairs with the release in ofd_chans_get(): the entries are set. */
	return smp_load_acquire(&ofd_nr);
}

/* Valid while the caller's file is open: the table is only emptied at the
 * last close.
 */
struct ofd_chan *ofd_chan(u32 index)
{
	if (index >= ofd_nr_chans())
		return NULL;
	return ofd_chans[index];
}

static void ofd_watchdog(struct work_struct *w);

/* dma_request_channel()'s filter, called with dmaengine's device list lock
 * held and ofd_chans_lock held by the caller: at most ofd_chans_per_dev
 * channels of one DMA device.
 */
static bool ofd_filter(struct dma_chan *chan, void *param)
{
	unsigned int i, n = 0;

	for (i = 0; i < ofd_nr; i++)
		if (ofd_chans[i]->chan->device == chan->device)
			n++;
	return n < ofd_chans_per_dev;
}

static void ofd_chan_describe(struct ofd_chan *ch)
{
	struct offload_dma_chan_info *info = &ch->info;
	struct dma_chan *chan = ch->chan;
	struct device *ctrl = chan->device->dev;
	unsigned int seg = dma_get_max_seg_size(ch->dev);
	int n;

	info->index = ch->index;
	info->chan_id = chan->chan_id;
	info->dev_id = chan->device->dev_id;
	info->copy_align = ch->align;
	if (ch->align > 1U << chan->device->copy_align)
		info->flags |= OFFLOAD_DMA_CHAN_ALIGN_RAISED;
	info->max_seg_size = seg;
	info->dma_mask = dma_get_mask(ch->dev);
	if (ch->coherent)
		info->flags |= OFFLOAD_DMA_CHAN_COHERENT;
	if (device_iommu_mapped(ch->dev))
		info->flags |= OFFLOAD_DMA_CHAN_IOMMU;
	strscpy(info->name, dma_chan_name(chan));
	strscpy(info->device, dev_name(ctrl));
	strscpy(info->driver, ctrl->driver ? ctrl->driver->name : "");
	if (ctrl->of_node) {
		/* %pOF prints a node's full path. */
		n = snprintf(info->of_path, sizeof(info->of_path), "%pOF", ctrl->of_node);
		if (n >= (int)sizeof(info->of_path))
			info->flags |= OFFLOAD_DMA_CHAN_PATH_TRUNCATED;
	}
}

static struct ofd_chan *ofd_chan_new(struct dma_chan *chan, u32 index)
{
	struct ofd_chan *ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	u64 seg;

	if (!ch)
		return NULL;
	ch->chan = chan;
	ch->dev = dmaengine_get_dma_device(chan);
	ch->index = index;
	/* copy_align is a shift (enum dmaengine_alignment). */
	ch->align = max(1U << chan->device->copy_align, ofd_align_min);
	seg = dma_get_max_seg_size(ch->dev);
	ch->max_piece = seg & ~(u64)(ch->align - 1);
	ch->coherent = dev_is_dma_coherent(ch->dev);
	mutex_init(&ch->lock);
	spin_lock_init(&ch->slock);
	INIT_LIST_HEAD(&ch->jobs);
	INIT_DELAYED_WORK(&ch->watchdog, ofd_watchdog);
	ofd_chan_describe(ch);
	return ch;
}

/* An open: count it, and take the memcpy channels that are free now. */
int ofd_chans_get(void)
{
	dma_cap_mask_t mask;
	struct dma_chan *chan;
	struct ofd_chan *ch;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	mutex_lock(&ofd_chans_lock);
	ofd_users++;
	while (ofd_nr < ofd_max_channels) {
		chan = dma_request_channel(mask, ofd_filter, NULL);
		if (!chan)
			break;
		ch = ofd_chan_new(chan, ofd_nr);
		if (!ch) {
			dma_release_channel(chan);
			break;
		}
		if (!ch->max_piece)
			pr_info("%s: its largest segment is below its copy alignment: every copy on it goes to the CPU\n",
				dma_chan_name(chan));
		ofd_chans[ofd_nr] = ch;
		/* The entry first, then the count readers check. */
		smp_store_release(&ofd_nr, ofd_nr + 1);
	}
	mutex_unlock(&ofd_chans_lock);
	return 0;
}

/* Give the channels back; every job has ended (the files are released). */
static void ofd_chans_release(void)
{
	unsigned int i;

	/* Workers and watchdogs may still be returning from their last run. */
	flush_workqueue(ofd_wq);
	for (i = 0; i < ofd_nr; i++) {
		struct ofd_chan *ch = ofd_chans[i];

		cancel_delayed_work_sync(&ch->watchdog);
		WARN_ON(!list_empty(&ch->jobs));
		dma_release_channel(ch->chan);
		mutex_destroy(&ch->lock);
		kfree(ch);
		ofd_chans[i] = NULL;
	}
	/* No reader is left (no file is open); kept paired for clarity. */
	smp_store_release(&ofd_nr, 0);
}

/* A release: the last one gives the channels back. */
void ofd_chans_put(void)
{
	mutex_lock(&ofd_chans_lock);
	if (!WARN_ON(!ofd_users) && --ofd_users == 0)
		ofd_chans_release();
	mutex_unlock(&ofd_chans_lock);
}

int ofd_chans_init(void)
{
	ofd_chans = kcalloc(ofd_max_channels, sizeof(*ofd_chans), GFP_KERNEL);
	return ofd_chans ? 0 : -ENOMEM;
}

/*
 * Module unload. The misc device's owner reference keeps the module while a
 * file is open, so there are no users here, unless the unload was forced
 * (rmmod -f, CONFIG_MODULE_FORCE_UNLOAD): then at least stop the engines, so
 * that no DMA runs into memory that is given back later.
 */
void ofd_chans_exit(void)
{
	unsigned int i;

	mutex_lock(&ofd_chans_lock);
	if (ofd_users) {
		pr_warn("forced unload with %u file(s) open: stopping the channels\n", ofd_users);
		for (i = 0; i < ofd_nr; i++)
			dmaengine_terminate_sync(ofd_chans[i]->chan);
	} else {
		ofd_chans_release();
	}
	mutex_unlock(&ofd_chans_lock);
	if (!ofd_users)
		kfree(ofd_chans);
}

/* Arm the watchdog for the earliest deadline of the channel's jobs
 * (ch->lock held).
 */
void ofd_chan_arm(struct ofd_chan *ch)
{
	struct ofd_job *job;
	unsigned long when = 0;
	bool any = false;

	list_for_each_entry(job, &ch->jobs, cnode) {
		if (READ_ONCE(job->cancel))
			continue;	/* ending already */
		if (!any || time_before(job->deadline, when))
			when = job->deadline;
		any = true;
	}
	if (ch->retry && (!any || time_before(jiffies + 1, when))) {
		when = jiffies + 1;
		any = true;
	}
	if (!any)
		return;
	if (ch->wd_armed && !time_before(when, ch->wd_when))
		return;
	ch->wd_when = when;
	ch->wd_armed = true;
	mod_delayed_work(ofd_wq, &ch->watchdog,
			 time_after(when, jiffies) ? when - jiffies : 0);
}

static void ofd_watchdog(struct work_struct *w)
{
	struct ofd_chan *ch = container_of(to_delayed_work(w), struct ofd_chan, watchdog);
	unsigned long now = jiffies;
	struct ofd_job *job;
	bool expired = false;

	mutex_lock(&ch->lock);
	ch->wd_armed = false;
	list_for_each_entry(job, &ch->jobs, cnode) {
		if (time_after_eq(now, job->deadline) &&
		    !cmpxchg(&job->cancel, 0, -ETIMEDOUT))
			expired = true;
	}
	if (expired)
		ofd_chan_reap(ch);
	if (ch->retry) {
		ch->retry = false;
		ofd_chan_kick(ch);
	}
	ofd_chan_arm(ch);
	mutex_unlock(&ch->lock);
}

/*
 * Start a round for each job that waits for a descriptor (ch->lock held):
 * a round that ended has given descriptors back to the driver.
 */
void ofd_chan_kick(struct ofd_chan *ch)
{
	struct ofd_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, &ch->jobs, cnode) {
		if (!job->waiting)
			continue;
		if (ofd_job_next(ch, job) == -EBUSY)
			break;		/* still none: keep the order */
	}
}

/*
 * Stop everything on the channel (ch->lock held); false when the driver
 * cannot (no device_terminate_all: ioat, idxd, mv_xor, dpaa2-qdma in 6.12),
 * and then its rounds run to their end. dmaengine_terminate_sync() returns
 * when the hardware has stopped and no callback runs any more, by the
 * driver's device_synchronize(); drivers without one (pl330, dw, at_xdmac,
 * ... in 6.12) are taken at their word that termination is synchronous,
 * except that a callback the completion tasklet had already taken off the
 * list may still be running on another CPU: it runs in softirq or hardirq
 * context, which synchronize_rcu() waits for.
 */
static bool ofd_chan_stop(struct ofd_chan *ch)
{
	if (dmaengine_terminate_sync(ch->chan))
		return false;
	if (!ch->chan->device->device_synchronize)
		synchronize_rcu();
	return true;
}

/*
 * End the channel's jobs that have a cancel status (ch->lock held): stop the
 * engine when one of them has descriptors on it, then resubmit the rounds
 * the stop cut short. Jobs whose round has called back are left to their
 * work, which sees the cancel status; where the driver cannot stop, the
 * cancelled jobs on the engine end when their round calls back.
 */
void ofd_chan_reap(struct ofd_chan *ch)
{
	struct ofd_job *job, *tmp;
	bool stop = false;
	unsigned long fl;

	spin_lock_irqsave(&ch->slock, fl);
	list_for_each_entry(job, &ch->jobs, cnode)
		if (READ_ONCE(job->cancel) && job->state == OFD_HW)
			stop = true;
	spin_unlock_irqrestore(&ch->slock, fl);

	if (stop)
		stop = ofd_chan_stop(ch);

	list_for_each_entry_safe(job, tmp, &ch->jobs, cnode) {
		bool again = job->waiting;
		enum ofd_state st;

		spin_lock_irqsave(&ch->slock, fl);
		st = job->state;
		if (st == OFD_HW && stop) {
			/*
			 * Its descriptors are gone: rewind to the round's start,
			 * and ignore any callback of theirs that still comes.
			 */
			job->state = OFD_IDLE;
			job->pending = 0;
			job->gen++;
			job->si = job->rsi;
			job->di = job->rdi;
			job->done = job->rdone;
			st = OFD_IDLE;
			again = true;
		}
		spin_unlock_irqrestore(&ch->slock, fl);
		/*
		 * OFD_RDONE: its work decides. OFD_HW without a stop: the
		 * engine still has it (its cancel status came after the scan
		 * above; whoever set it reaps again).
		 */
		if (st != OFD_IDLE)
			continue;
		if (!again && !READ_ONCE(job->cancel))
			continue;
		if (!READ_ONCE(job->cancel) && !job->waiting)
			job->comp.restarts++;
		ofd_job_next(ch, job);
	}
}
