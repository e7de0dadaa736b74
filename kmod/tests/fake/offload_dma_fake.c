// SPDX-License-Identifier: GPL-2.0-only
/*
 * offload_dma_fake: a stand-in dmaengine memcpy provider, for testing the
 * offload_dma module in guests that have no DMA controller (QEMU's PC and
 * arm64 virt machines). It registers a platform device and a DMA device
 * with DMA_MEMCPY channels whose "engine" is a work item that copies with
 * the CPU through the DMA addresses it is given (dma_to_phys() of a
 * dma-direct mapping: it refuses anything that is not RAM), so the data
 * proves the scatter lists, the mapping and the pieces of the module.
 *
 * Unlike real hardware it can be told to misbehave, through its writable
 * parameters (/sys/module/offload_dma_fake/parameters/): stall (take no
 * descriptor: a stuck engine, for timeouts and cancellation), delay_us
 * (each descriptor takes that long: copies stay in flight), fail_every
 * (every Nth descriptor reports DMA_TRANS_WRITE_FAILED and copies nothing),
 * prep_fail_every (every Nth descriptor request is refused) and
 * abort_on_terminate (terminated descriptors call back "aborted", as some
 * drivers do). At load, terminate=0 makes it a driver that cannot stop a
 * channel (no device_terminate_all), and noncoherent=1 declares it not
 * DMA-coherent (right only under an emulator without caches). Its read-only counters say what the engine did: descs,
 * bytes, misaligned and oversize (pieces that break its copy_align or
 * max_seg: must stay 0), terminations.
 *
 * Test use only: it is no driver, and it stands in for none.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#define FAKE_MAX_CHANS 8

static unsigned int chans = 2;
module_param(chans, uint, 0444);
MODULE_PARM_DESC(chans, "memcpy channels (1..8, default 2)");

static unsigned int copy_align;
module_param(copy_align, uint, 0444);
MODULE_PARM_DESC(copy_align, "the DMA device's copy_align, a shift (0..8, default 0)");

static unsigned int max_seg = 65536;
module_param(max_seg, uint, 0444);
MODULE_PARM_DESC(max_seg, "the device's largest segment, bytes (default 65536)");

static unsigned int dma_bits = 64;
module_param(dma_bits, uint, 0444);
MODULE_PARM_DESC(dma_bits, "the device's DMA mask, bits (32..64, default 64)");

static bool terminate = true;
module_param(terminate, bool, 0444);
MODULE_PARM_DESC(terminate,
		 "offer device_terminate_all and device_synchronize (0: like ioat, idxd, mv_xor and dpaa2-qdma, which cannot stop)");

static bool noncoherent;
module_param(noncoherent, bool, 0444);
MODULE_PARM_DESC(noncoherent,
		 "declare the device not DMA-coherent (only right where the CPU has no caches to maintain: an emulator such as QEMU's TCG)");

static unsigned int delay_us;
module_param(delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us, "time each descriptor takes, us");

static unsigned int fail_every;
module_param(fail_every, uint, 0644);
MODULE_PARM_DESC(fail_every, "every Nth descriptor fails (0: none)");

static unsigned int prep_fail_every;
module_param(prep_fail_every, uint, 0644);
MODULE_PARM_DESC(prep_fail_every, "every Nth descriptor request is refused (0: none)");

static bool abort_on_terminate;
module_param(abort_on_terminate, bool, 0644);
MODULE_PARM_DESC(abort_on_terminate, "terminated descriptors call back DMA_TRANS_ABORTED");

static unsigned long descs, bytes, misaligned, oversize, terminations;
module_param(descs, ulong, 0444);
module_param(bytes, ulong, 0444);
module_param(misaligned, ulong, 0444);
module_param(oversize, ulong, 0444);
module_param(terminations, ulong, 0444);

struct fake_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	dma_addr_t src, dst;
	size_t len;
};

struct fake_chan {
	struct dma_chan chan;
	spinlock_t lock;		/* the lists and the cookies */
	struct list_head submitted, issued;
	struct work_struct work;
	bool kill_active;		/* terminated while the engine copies */
};

struct fake_dev {
	struct dma_device dd;
	struct fake_chan fc[FAKE_MAX_CHANS];
};

static struct workqueue_struct *fake_wq;
static struct fake_dev *fake;
static atomic_t fake_ndesc = ATOMIC_INIT(0);
static atomic_t fake_nprep = ATOMIC_INIT(0);

static bool stall;

static void fake_kick_all(void)
{
	unsigned int i;

	if (!fake)
		return;
	for (i = 0; i < chans; i++)
		queue_work(fake_wq, &fake->fc[i].work);
}

static int fake_set_stall(const char *val, const struct kernel_param *kp)
{
	int r = param_set_bool(val, kp);

	if (!r && !READ_ONCE(stall))
		fake_kick_all();
	return r;
}

static const struct kernel_param_ops fake_stall_ops = {
	.set = fake_set_stall,
	.get = param_get_bool,
};
module_param_cb(stall, &fake_stall_ops, &stall, 0644);
MODULE_PARM_DESC(stall, "the engine takes no descriptor while set");

static struct fake_chan *to_fake(struct dma_chan *c)
{
	return container_of(c, struct fake_chan, chan);
}

/* Copy through the DMA addresses; false when one is not RAM. */
static bool fake_copy(struct device *dev, struct fake_desc *d)
{
	phys_addr_t s = dma_to_phys(dev, d->src), t = dma_to_phys(dev, d->dst);
	size_t n = d->len;

	while (n) {
		size_t so = offset_in_page(s), to = offset_in_page(t);
		size_t c = min3(n, PAGE_SIZE - so, PAGE_SIZE - to);
		void *sv, *tv;

		if (!pfn_valid(PHYS_PFN(s)) || !pfn_valid(PHYS_PFN(t)))
			return false;
		tv = kmap_local_page(pfn_to_page(PHYS_PFN(t)));
		sv = kmap_local_page(pfn_to_page(PHYS_PFN(s)));
		memcpy(tv + to, sv + so, c);
		kunmap_local(sv);
		kunmap_local(tv);
		n -= c;
		s += c;
		t += c;
	}
	return true;
}

static void fake_callback(struct fake_desc *d, enum dmaengine_tx_result result)
{
	struct dmaengine_result res = { .result = result };

	if (d->tx.callback_result)
		d->tx.callback_result(d->tx.callback_param, &res);
	else if (d->tx.callback)
		d->tx.callback(d->tx.callback_param);
}

/* The engine: one descriptor after another, in submission order. */
static void fake_work(struct work_struct *w)
{
	struct fake_chan *fc = container_of(w, struct fake_chan, work);
	struct device *dev = fc->chan.device->dev;
	enum dmaengine_tx_result result;
	struct fake_desc *d;
	unsigned long fl;
	bool killed;

	for (;;) {
		spin_lock_irqsave(&fc->lock, fl);
		if (READ_ONCE(stall) || list_empty(&fc->issued)) {
			spin_unlock_irqrestore(&fc->lock, fl);
			return;
		}
		d = list_first_entry(&fc->issued, struct fake_desc, node);
		list_del(&d->node);
		fc->kill_active = false;
		spin_unlock_irqrestore(&fc->lock, fl);

		if (READ_ONCE(delay_us))
			fsleep(READ_ONCE(delay_us));
		result = DMA_TRANS_NOERROR;
		if (fail_every && atomic_inc_return(&fake_ndesc) % fail_every == 0)
			result = DMA_TRANS_WRITE_FAILED;
		else if (!fake_copy(dev, d))
			result = DMA_TRANS_READ_FAILED;
		WARN_ONCE(result == DMA_TRANS_READ_FAILED,
			  "a descriptor with an address that is not RAM\n");

		spin_lock_irqsave(&fc->lock, fl);
		killed = fc->kill_active;
		if (!killed) {
			fc->chan.completed_cookie = d->tx.cookie;
			descs++;
			bytes += d->len;
		}
		spin_unlock_irqrestore(&fc->lock, fl);
		if (!killed)
			fake_callback(d, result);
		else if (READ_ONCE(abort_on_terminate))
			fake_callback(d, DMA_TRANS_ABORTED);
		kfree(d);
	}
}

static dma_cookie_t fake_submit(struct dma_async_tx_descriptor *tx)
{
	struct fake_chan *fc = to_fake(tx->chan);
	struct fake_desc *d = container_of(tx, struct fake_desc, tx);
	dma_cookie_t cookie;
	unsigned long fl;

	spin_lock_irqsave(&fc->lock, fl);
	cookie = fc->chan.cookie + 1;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	fc->chan.cookie = cookie;
	tx->cookie = cookie;
	list_add_tail(&d->node, &fc->submitted);
	spin_unlock_irqrestore(&fc->lock, fl);
	return cookie;
}

static struct dma_async_tx_descriptor *
fake_prep_memcpy(struct dma_chan *c, dma_addr_t dst, dma_addr_t src, size_t len,
		 unsigned long flags)
{
	struct fake_desc *d;

	if (prep_fail_every && atomic_inc_return(&fake_nprep) % prep_fail_every == 0)
		return NULL;
	if (!len)
		return NULL;
	if (!is_dma_copy_aligned(c->device, src, dst, len))
		misaligned++;
	if (len > max_seg)
		oversize++;
	d = kzalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, c);
	d->tx.tx_submit = fake_submit;
	d->tx.flags = flags;
	d->src = src;
	d->dst = dst;
	d->len = len;
	return &d->tx;
}

static void fake_issue_pending(struct dma_chan *c)
{
	struct fake_chan *fc = to_fake(c);
	unsigned long fl;

	spin_lock_irqsave(&fc->lock, fl);
	list_splice_tail_init(&fc->submitted, &fc->issued);
	spin_unlock_irqrestore(&fc->lock, fl);
	if (!READ_ONCE(stall))
		queue_work(fake_wq, &fc->work);
}

static enum dma_status fake_tx_status(struct dma_chan *c, dma_cookie_t cookie,
				      struct dma_tx_state *st)
{
	struct fake_chan *fc = to_fake(c);
	dma_cookie_t used, complete;
	unsigned long fl;

	spin_lock_irqsave(&fc->lock, fl);
	used = c->cookie;
	complete = c->completed_cookie;
	spin_unlock_irqrestore(&fc->lock, fl);
	dma_set_tx_state(st, complete, used, 0);
	return dma_async_is_complete(cookie, complete, used);
}

static int fake_terminate_all(struct dma_chan *c)
{
	struct fake_chan *fc = to_fake(c);
	struct fake_desc *d, *tmp;
	unsigned long fl;
	LIST_HEAD(gone);

	spin_lock_irqsave(&fc->lock, fl);
	list_splice_tail_init(&fc->submitted, &gone);
	list_splice_tail_init(&fc->issued, &gone);
	fc->kill_active = true;
	terminations++;
	spin_unlock_irqrestore(&fc->lock, fl);
	list_for_each_entry_safe(d, tmp, &gone, node) {
		if (READ_ONCE(abort_on_terminate))
			fake_callback(d, DMA_TRANS_ABORTED);
		kfree(d);
	}
	return 0;
}

/* The descriptor the engine is copying has finished (and called back). */
static void fake_synchronize(struct dma_chan *c)
{
	flush_work(&to_fake(c)->work);
}

static int fake_alloc_chan(struct dma_chan *c)
{
	return 0;
}

static void fake_free_chan(struct dma_chan *c)
{
	fake_terminate_all(c);
	fake_synchronize(c);
}

static int fake_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct fake_dev *fd;
	unsigned int i;
	int r;

	fd = devm_kzalloc(dev, sizeof(*fd), GFP_KERNEL);
	if (!fd)
		return -ENOMEM;
	r = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(dma_bits));
	if (r)
		return r;
	dma_set_max_seg_size(dev, max_seg);
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	/* Its "engine" is the CPU, which sees its own caches. */
	dev->dma_coherent = !noncoherent;
#endif
	dma_cap_set(DMA_MEMCPY, fd->dd.cap_mask);
	dma_cap_set(DMA_PRIVATE, fd->dd.cap_mask);
	fd->dd.dev = dev;
	fd->dd.copy_align = copy_align;
	fd->dd.device_alloc_chan_resources = fake_alloc_chan;
	fd->dd.device_free_chan_resources = fake_free_chan;
	fd->dd.device_prep_dma_memcpy = fake_prep_memcpy;
	fd->dd.device_issue_pending = fake_issue_pending;
	fd->dd.device_tx_status = fake_tx_status;
	if (terminate) {
		fd->dd.device_terminate_all = fake_terminate_all;
		fd->dd.device_synchronize = fake_synchronize;
	}
	INIT_LIST_HEAD(&fd->dd.channels);
	for (i = 0; i < chans; i++) {
		struct fake_chan *fc = &fd->fc[i];

		spin_lock_init(&fc->lock);
		INIT_LIST_HEAD(&fc->submitted);
		INIT_LIST_HEAD(&fc->issued);
		INIT_WORK(&fc->work, fake_work);
		fc->chan.device = &fd->dd;
		fc->chan.cookie = DMA_MIN_COOKIE;
		fc->chan.completed_cookie = DMA_MIN_COOKIE;
		list_add_tail(&fc->chan.device_node, &fd->dd.channels);
	}
	r = dma_async_device_register(&fd->dd);
	if (r)
		return r;
	platform_set_drvdata(pdev, fd);
	fake = fd;
	return 0;
}

static void fake_remove(struct platform_device *pdev)
{
	struct fake_dev *fd = platform_get_drvdata(pdev);

	fake = NULL;
	dma_async_device_unregister(&fd->dd);
}

static struct platform_driver fake_driver = {
	.probe = fake_probe,
	.remove = fake_remove,
	.driver = { .name = "offload_dma_fake" },
};

static struct platform_device *fake_pdev;

static int __init fake_init(void)
{
	int r;

	if (!chans || chans > FAKE_MAX_CHANS || copy_align > DMAENGINE_ALIGN_256_BYTES ||
	    dma_bits < 32 || dma_bits > 64 || max_seg < PAGE_SIZE)
		return -EINVAL;
	fake_wq = alloc_workqueue("offload_dma_fake", WQ_UNBOUND, 0);
	if (!fake_wq)
		return -ENOMEM;
	r = platform_driver_register(&fake_driver);
	if (r)
		goto err_wq;
	fake_pdev = platform_device_register_simple("offload_dma_fake", -1, NULL, 0);
	if (IS_ERR(fake_pdev)) {
		r = PTR_ERR(fake_pdev);
		goto err_drv;
	}
	if (!fake) {
		r = -ENODEV;
		goto err_dev;
	}
	return 0;
err_dev:
	platform_device_unregister(fake_pdev);
err_drv:
	platform_driver_unregister(&fake_driver);
err_wq:
	destroy_workqueue(fake_wq);
	return r;
}

static void __exit fake_exit(void)
{
	platform_device_unregister(fake_pdev);
	platform_driver_unregister(&fake_driver);
	destroy_workqueue(fake_wq);
}

module_init(fake_init);
module_exit(fake_exit);

MODULE_DESCRIPTION("A stand-in dmaengine memcpy provider for testing offload_dma");
MODULE_AUTHOR("the liboffload authors");
MODULE_LICENSE("GPL");
