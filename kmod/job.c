// SPDX-License-Identifier: GPL-2.0-only
/*
 * offload_dma: copies. SUBMIT checks each copy, pins its user pages (a
 * short-term FOLL_PIN, as O_DIRECT does: the pin lasts at most the copy's
 * timeout, so FOLL_LONGTERM's migration out of ZONE_MOVABLE/CMA and its
 * refusal of some file-backed pages would cost without a reason), builds
 * scatter lists of the part the engine takes and maps them for the channel's
 * device (dma_map_sgtable(): the DMA API does the cache maintenance, the
 * IOMMU or bounce buffering), or attaches and maps dma-bufs, then puts the
 * copy on its channel in rounds of at most round_descs dmaengine memcpy
 * descriptors, one per contiguous piece.
 *
 * The engine's part: src, dst and length of every piece are multiples of
 * the device's copy_align (dmaengine's is_dma_copy_aligned() rule), and on
 * a device that is not DMA-coherent the destination's part starts and ends
 * on a dma_get_cache_alignment() boundary, so that no cache line holds both
 * bytes the engine writes and bytes the CPU may write meanwhile (the DMA
 * API's rule for partial-line mappings, Documentation/core-api/dma-api.rst).
 * Between two user buffers the CPU copies the rest, from the pinned pages;
 * with a dma-buf on either side there is no CPU path and the copy must fit
 * the rules as it is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "offload_dma.h"

/* All files' pinned bytes, against ofd_max_pinned_total. */
static atomic_long_t ofd_pinned_all = ATOMIC_LONG_INIT(0);

/* The longest copy with user memory that is sure to fit the pin limit: each
 * side pins at most len + 2 pages.
 */
u64 ofd_max_copy(const struct ofd_file *f)
{
	return f->max_pinned / 2 - 2 * PAGE_SIZE;
}

static unsigned long ofd_npages(unsigned long addr, u64 len)
{
	return (offset_in_page(addr) + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/* ------------------------------------------------------------ DMA segments */

/* Start a walk at byte skip of a mapped table; false when it is shorter. */
static bool ofd_iter_init(struct ofd_iter *it, struct sg_table *sgt, u64 skip)
{
	it->sg = sgt->sgl;
	it->left = sgt->nents;
	it->off = 0;
	while (it->left && skip >= sg_dma_len(it->sg)) {
		skip -= sg_dma_len(it->sg);
		it->left--;
		it->sg = it->left ? sg_next(it->sg) : NULL;
	}
	it->off = skip;
	return it->left || !skip;
}

/* Bytes left in the current segment, skipping empty ones; 0 at the end. */
static u64 ofd_iter_room(struct ofd_iter *it)
{
	while (it->left && it->off >= sg_dma_len(it->sg)) {
		it->left--;
		it->sg = it->left ? sg_next(it->sg) : NULL;
		it->off = 0;
	}
	return it->left ? sg_dma_len(it->sg) - it->off : 0;
}

static dma_addr_t ofd_iter_addr(const struct ofd_iter *it)
{
	return sg_dma_address(it->sg) + it->off;
}

/* The next piece of the engine's part at (si, di) with done bytes behind:
 * its length (0 when the mapping ends early), and its addresses.
 */
static u64 ofd_piece(struct ofd_job *job, struct ofd_iter *si, struct ofd_iter *di,
		     u64 done, dma_addr_t *s, dma_addr_t *d)
{
	u64 n = min(ofd_iter_room(si), ofd_iter_room(di));

	n = min3(n, job->ch->max_piece, job->dma_len - done);
	if (n) {
		*s = ofd_iter_addr(si);
		*d = ofd_iter_addr(di);
	}
	return n;
}

/*
 * Walk the whole engine part once: every piece must fit copy_align (a
 * bounce buffer or an exporter may place the DMA addresses anywhere).
 * Returns the number of pieces, or -EINVAL (misaligned) / -EIO (the mapping
 * is shorter than the copy).
 */
static long ofd_pieces_check(struct ofd_job *job)
{
	struct ofd_iter si = job->si, di = job->di;
	u64 mask = job->ch->align - 1, done = 0, n;
	dma_addr_t s, d;
	long count = 0;

	while (done < job->dma_len) {
		n = ofd_piece(job, &si, &di, done, &s, &d);
		if (!n)
			return -EIO;
		if ((s | d | n) & mask)
			return -EINVAL;
		si.off += n;
		di.off += n;
		done += n;
		count++;
		if (!(count & 1023))
			cond_resched();
	}
	return count;
}

/* ------------------------------------------------------------ the engine */

/*
 * A descriptor's callback_param: the job, with the round's generation in the
 * low bits (a job is kmalloc'ed, so at least 8-byte aligned).
 */
#define OFD_GEN_MASK 7UL

static void *ofd_tag(struct ofd_job *job)
{
	return (void *)((unsigned long)job | (job->gen & OFD_GEN_MASK));
}

/* dmaengine callback, in whatever context the driver completes in. */
static void ofd_dma_done(void *param, const struct dmaengine_result *res)
{
	struct ofd_job *job = (void *)((unsigned long)param & ~OFD_GEN_MASK);
	unsigned long gen = (unsigned long)param & OFD_GEN_MASK;
	struct ofd_chan *ch = job->ch;
	unsigned long fl;

	spin_lock_irqsave(&ch->slock, fl);
	/* A round stopped and rewound may still call back: not this one's. */
	if (job->state == OFD_HW && job->pending && gen == (job->gen & OFD_GEN_MASK)) {
		if (res->result != DMA_TRANS_NOERROR && !job->hw_err)
			job->hw_err = res->result;
		if (--job->pending == 0) {
			job->state = OFD_RDONE;
			queue_work(ofd_wq, &job->work);
		}
	}
	spin_unlock_irqrestore(&ch->slock, fl);
}

/* Any job of the channel besides job with a round on the engine. */
static bool ofd_chan_busy(struct ofd_chan *ch, struct ofd_job *job)
{
	struct ofd_job *j;
	bool busy = false;
	unsigned long fl;

	spin_lock_irqsave(&ch->slock, fl);
	list_for_each_entry(j, &ch->jobs, cnode)
		if (j != job && j->state != OFD_IDLE)
			busy = true;
	spin_unlock_irqrestore(&ch->slock, fl);
	return busy;
}

/*
 * Put the job's next round on the engine (ch->lock held, job OFD_IDLE).
 * Returns 0, -EBUSY when the driver gave no descriptor while other work is
 * on the channel (retry when it moves: ofd_chan_kick()), or -ENOMEM when it
 * gave none with the channel idle.
 */
int ofd_round_start(struct ofd_chan *ch, struct ofd_job *job)
{
	struct dma_async_tx_descriptor *tx;
	unsigned int n = 0;
	dma_cookie_t cookie;
	unsigned long fl;
	dma_addr_t s, d;
	u64 len;

	job->rsi = job->si;
	job->rdi = job->di;
	job->rdone = job->done;
	spin_lock_irqsave(&ch->slock, fl);
	job->state = OFD_HW;
	job->pending = 1;	/* a bias: the round is not done while building */
	job->hw_err = 0;
	spin_unlock_irqrestore(&ch->slock, fl);

	while (n < ofd_round_descs && job->done < job->dma_len) {
		len = ofd_piece(job, &job->si, &job->di, job->done, &s, &d);
		if (!len)
			break;
		tx = dmaengine_prep_dma_memcpy(ch->chan, d, s, len,
					       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
		if (!tx)
			break;
		tx->callback_result = ofd_dma_done;
		tx->callback_param = ofd_tag(job);
		/* Counted first: some drivers start submitted descriptors
		 * before issue_pending once the channel runs.
		 */
		spin_lock_irqsave(&ch->slock, fl);
		job->pending++;
		spin_unlock_irqrestore(&ch->slock, fl);
		cookie = dmaengine_submit(tx);
		if (dma_submit_error(cookie)) {
			spin_lock_irqsave(&ch->slock, fl);
			job->pending--;
			spin_unlock_irqrestore(&ch->slock, fl);
			break;
		}
		job->si.off += len;
		job->di.off += len;
		job->done += len;
		n++;
	}
	if (n)
		dma_async_issue_pending(ch->chan);
	job->comp.pieces += n;

	spin_lock_irqsave(&ch->slock, fl);
	if (!n) {
		job->state = OFD_IDLE;
		job->pending = 0;
	} else if (--job->pending == 0) {
		job->state = OFD_RDONE;
		queue_work(ofd_wq, &job->work);
	}
	spin_unlock_irqrestore(&ch->slock, fl);
	if (n) {
		job->prep_tries = 0;
		return 0;
	}
	if (ofd_chan_busy(ch, job))
		return -EBUSY;	/* the next round that ends retries it */
	/*
	 * Nothing else runs on the channel, so nothing would retry: drivers
	 * allocate descriptors with GFP_NOWAIT, which may fail for a moment.
	 * The watchdog retries a few times, a jiffy apart, then it fails.
	 */
	if (++job->prep_tries >= OFD_MAX_PREP_TRIES)
		return -ENOMEM;
	ch->retry = true;
	ofd_chan_arm(ch);
	return -EBUSY;
}

/* ------------------------------------------------------------ the CPU */

/* Copy n bytes between pinned pages; offsets count from the first page's
 * start.
 */
static void ofd_cpu_copy(struct ofd_side *dst, unsigned long doff,
			 struct ofd_side *src, unsigned long soff, unsigned long n)
{
	while (n) {
		struct page *dp = dst->pages[doff >> PAGE_SHIFT];
		struct page *sp = src->pages[soff >> PAGE_SHIFT];
		unsigned long dpo = offset_in_page(doff), spo = offset_in_page(soff);
		unsigned long c = min3(n, PAGE_SIZE - dpo, PAGE_SIZE - spo);
		void *dv = kmap_local_page(dp);
		void *sv = kmap_local_page(sp);

		/* memmove: two mappings of one page may overlap. */
		memmove(dv + dpo, sv + spo, c);
		kunmap_local(sv);
		kunmap_local(dv);
		flush_dcache_page(dp);
		n -= c;
		doff += c;
		soff += c;
	}
}

/* Copy bytes [from, from + n) of the copy with the CPU. */
static void ofd_cpu_part(struct ofd_job *job, u64 from, u64 n)
{
	unsigned long so = offset_in_page(job->src.addr) + from;
	unsigned long dof = offset_in_page(job->dst.addr) + from;

	ofd_cpu_copy(&job->dst, dof, &job->src, so, n);
	job->cpu_done += n;
}

/* A copy the engine takes no part of, a page at a time, in the work. */
static int ofd_cpu_job(struct ofd_job *job)
{
	u64 at = 0, n;

	while (at < job->len) {
		if (READ_ONCE(job->cancel))
			return job->cancel;
		n = min_t(u64, job->len - at, PAGE_SIZE);
		ofd_cpu_part(job, at, n);
		at += n;
		cond_resched();
	}
	return 0;
}

/* ------------------------------------------------------------ the end */

/* Give back the engine's mapping of a user side; its pages stay pinned. */
static void ofd_side_unmap(struct ofd_job *job, struct ofd_side *s)
{
	if (s->mapped)
		dma_unmap_sgtable(job->ch->dev, &s->sgt, s->dir, 0);
	if (s->sgt_alloc)
		sg_free_table(&s->sgt);
	s->mapped = false;
	s->sgt_alloc = false;
}

static void ofd_side_release(struct ofd_job *job, struct ofd_side *s)
{
	ofd_side_unmap(job, s);
	if (s->bsgt)
		dma_buf_unmap_attachment_unlocked(s->att, s->bsgt, s->dir);
	if (s->att)
		dma_buf_detach(s->buf, s->att);
	if (s->buf)
		dma_buf_put(s->buf);
	if (s->npages) {
		/* The device and the CPU wrote the destination's pages. */
		if (s->dir == DMA_FROM_DEVICE)
			unpin_user_pages_dirty_lock(s->pages, s->npages, true);
		else
			unpin_user_pages(s->pages, s->npages);
	}
	kvfree(s->pages);
	memset(s, 0, sizeof(*s));
}

static u32 ofd_why(int status)
{
	switch (status) {
	case -ETIMEDOUT:
		return OFFLOAD_DMA_WHY_TIMEOUT;
	case -ECANCELED:
		return OFFLOAD_DMA_WHY_CANCELED;
	default:
		return OFFLOAD_DMA_WHY_NONE;
	}
}

/*
 * The job is finished (nothing of it is or will be on the engine; off its
 * channel's list): unmap, unpin, and post its completion. Never touches the
 * job afterwards: a reader or the release may free it at once.
 */
/*
 * Start the job's next round, or end it (ch->lock held, the job OFD_IDLE on
 * ch->jobs): ended when it was cancelled or its round cannot go on the
 * engine. Returns -EBUSY when the driver had no descriptor for it (then
 * job->waiting: ofd_chan_kick() retries), else 0.
 */
int ofd_job_next(struct ofd_chan *ch, struct ofd_job *job)
{
	int r;

	if (READ_ONCE(job->cancel)) {
		list_del(&job->cnode);
		ofd_job_end(job, job->cancel, 0);
		return 0;
	}
	r = ofd_round_start(ch, job);
	job->waiting = r == -EBUSY;
	if (r && r != -EBUSY) {
		list_del(&job->cnode);
		ofd_job_end(job, r, OFFLOAD_DMA_WHY_PREP);
	}
	return r == -EBUSY ? r : 0;
}

void ofd_job_end(struct ofd_job *job, int status, u32 why)
{
	struct ofd_file *f = job->file;
	struct offload_dma_completion *c = &job->comp;

	ofd_side_release(job, &job->src);
	ofd_side_release(job, &job->dst);
	if (job->pinned)
		atomic_long_sub(job->pinned, &ofd_pinned_all);
	c->status = status;
	c->detail = why ? why : ofd_why(status);
	c->dma_bytes = status ? job->rdone : job->dma_len;
	c->cpu_bytes = job->cpu_done;
	c->ns = ktime_get_ns() - job->t0;

	spin_lock(&f->lock);
	f->pinned -= job->pinned;
	list_move_tail(&job->fnode, &f->done);
	if (f->efd)
		eventfd_signal(f->efd);
	/* Under the lock: the release frees f once it sees the list empty. */
	wake_up_all(&f->wq);
	spin_unlock(&f->lock);
}

void ofd_job_free(struct ofd_job *job)
{
	kfree(job);
}

/* The job's work: a CPU-only copy, or the end of a round. */
static void ofd_job_work(struct work_struct *w)
{
	struct ofd_job *job = container_of(w, struct ofd_job, work);
	struct ofd_chan *ch = job->ch;
	unsigned long fl;
	int status = 0, r;
	u32 why = 0;
	int err;

	if (job->cpu_only) {
		ofd_job_end(job, ofd_cpu_job(job), 0);
		return;
	}
	mutex_lock(&ch->lock);
	spin_lock_irqsave(&ch->slock, fl);
	if (job->state != OFD_RDONE) {
		/* Stopped and resubmitted after this work was queued. */
		spin_unlock_irqrestore(&ch->slock, fl);
		mutex_unlock(&ch->lock);
		return;
	}
	job->state = OFD_IDLE;
	err = job->hw_err;
	spin_unlock_irqrestore(&ch->slock, fl);

	if (err == DMA_TRANS_ABORTED && READ_ONCE(job->cancel)) {
		/* Aborted because it was being stopped: that is its end. */
		err = 0;
		job->done = job->rdone;
	} else if (err == DMA_TRANS_ABORTED && job->aborts < OFD_MAX_ABORTS) {
		/*
		 * Some drivers call back with "aborted" when the channel is
		 * stopped for another copy: do the round again.
		 */
		job->aborts++;
		job->gen++;
		job->comp.restarts++;
		job->si = job->rsi;
		job->di = job->rdi;
		job->done = job->rdone;
		err = 0;
	}
	if (err) {
		status = -EIO;
		why = OFFLOAD_DMA_WHY_ENGINE;
	} else if (job->done < job->dma_len) {
		job->rdone = job->done;
		if (READ_ONCE(job->cancel)) {
			status = job->cancel;
		} else {
			r = ofd_round_start(ch, job);
			if (r == -EBUSY)
				job->waiting = true;
			if (!r || r == -EBUSY)
				goto out;
			status = r;
			why = OFFLOAD_DMA_WHY_PREP;
		}
	} else {
		job->rdone = job->done;
	}
	list_del(&job->cnode);
	ofd_job_end(job, status, why);
out:
	ofd_chan_kick(ch);
	mutex_unlock(&ch->lock);
}

/* ------------------------------------------------------------ submission */

static int ofd_pin(struct ofd_side *s, unsigned long addr, u64 len, bool write)
{
	unsigned long n = ofd_npages(addr, len), first = addr & PAGE_MASK;
	int r;

	s->addr = addr;
	s->pages = kvmalloc_array(n, sizeof(*s->pages), GFP_KERNEL);
	if (!s->pages)
		return -ENOMEM;
	while (s->npages < n) {
		r = pin_user_pages_fast(first + (s->npages << PAGE_SHIFT),
					min(n - s->npages, 4096UL),
					write ? FOLL_WRITE : 0, s->pages + s->npages);
		if (r <= 0)
			return r ? r : -EFAULT;
		s->npages += r;
	}
	return 0;
}

/* Map bytes [off, off + len) of a pinned side for the channel's device. */
static int ofd_map_user(struct ofd_chan *ch, struct ofd_side *s, u64 off, u64 len,
			struct ofd_iter *it)
{
	unsigned long at = offset_in_page(s->addr) + off;
	unsigned long first = at >> PAGE_SHIFT;
	int r;

	r = sg_alloc_table_from_pages_segment(&s->sgt, s->pages + first,
					      ofd_npages(at, len), offset_in_page(at),
					      len, UINT_MAX, GFP_KERNEL);
	if (r)
		return r;
	s->sgt_alloc = true;
	r = dma_map_sgtable(ch->dev, &s->sgt, s->dir, 0);
	if (r)
		return r;
	s->mapped = true;
	return ofd_iter_init(it, &s->sgt, 0) ? 0 : -EIO;
}

static int ofd_dmabuf(struct ofd_job *job, struct ofd_side *s, int fd, u64 off,
		      u32 *why)
{
	struct ofd_iter *it = s == &job->src ? &job->si : &job->di;
	struct dma_buf_attachment *att;
	struct sg_table *sgt;
	struct dma_buf *buf;

	*why = OFFLOAD_DMA_WHY_DMABUF;
	buf = dma_buf_get(fd);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	s->buf = buf;
	*why = OFFLOAD_DMA_WHY_DMABUF_RANGE;
	if (off > buf->size || job->len > buf->size - off)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_DMABUF_MAP;
	att = dma_buf_attach(buf, job->ch->dev);
	if (IS_ERR(att))
		return PTR_ERR(att);
	s->att = att;
	sgt = dma_buf_map_attachment_unlocked(att, s->dir);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	s->bsgt = sgt;
	s->off = off;
	*why = OFFLOAD_DMA_WHY_DMABUF_RANGE;
	if (!ofd_iter_init(it, sgt, off))
		return -EINVAL;
	return 0;
}

static bool ofd_overlap(u64 a, u64 b, u64 len)
{
	return a < b + len && b < a + len;
}

/* A user range: addressable by this kernel, not wrapping, in user space. */
static int ofd_user_range(u64 addr, u64 len, u32 *why)
{
	*why = OFFLOAD_DMA_WHY_RANGE;
	if (addr + len < addr)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_FAULT;
	/* Beyond what an unsigned long holds (a 32-bit kernel): no user address. */
	if ((unsigned long)addr != addr || (unsigned long)len != len ||
	    (unsigned long)(addr + len - 1) != addr + len - 1 ||
	    !access_ok(u64_to_user_ptr(addr), (unsigned long)len))
		return -EFAULT;
	return 0;
}

/* Everything about a copy that needs no resource. */
static int ofd_check(struct ofd_file *f, const struct offload_dma_copy *c, u32 *why)
{
	bool sbuf = c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF;
	bool dbuf = c->flags & OFFLOAD_DMA_COPY_DST_DMABUF;
	int r;

	*why = OFFLOAD_DMA_WHY_RESERVED;
	if (c->reserved0 || c->reserved1 || (!sbuf && c->src_fd) || (!dbuf && c->dst_fd))
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_FLAGS;
	if (c->flags & ~OFFLOAD_DMA_COPY_FLAGS)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_CHAN;
	if (!ofd_chan(c->chan))
		return -ENODEV;
	*why = OFFLOAD_DMA_WHY_LEN;
	if (!c->len)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_TIMEOUT_ARG;
	if (c->timeout_ms > f->max_timeout_ms)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_RANGE;
	if ((sbuf && c->src + c->len < c->src) || (dbuf && c->dst + c->len < c->dst))
		return -EINVAL;
	if (!sbuf) {
		r = ofd_user_range(c->src, c->len, why);
		if (r)
			return r;
	}
	if (!dbuf) {
		r = ofd_user_range(c->dst, c->len, why);
		if (r)
			return r;
	}
	*why = OFFLOAD_DMA_WHY_OVERLAP;
	if (!sbuf && !dbuf && ofd_overlap(c->src, c->dst, c->len))
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_TOO_BIG;
	if ((!sbuf || !dbuf) && c->len > ofd_max_copy(f))
		return -E2BIG;
	*why = OFFLOAD_DMA_WHY_NONE;
	return 0;
}

/* Charge the pins of a copy to the file and to all files: false (and no
 * charge) when the current totals leave no room for them.
 */
static bool ofd_charge(struct ofd_file *f, struct ofd_job *job, unsigned long bytes)
{
	bool ok;

	if (!bytes)
		return true;
	if (atomic_long_add_return(bytes, &ofd_pinned_all) > ofd_max_pinned_total) {
		atomic_long_sub(bytes, &ofd_pinned_all);
		return false;
	}
	spin_lock(&f->lock);
	ok = f->pinned + bytes <= f->max_pinned;
	if (ok)
		f->pinned += bytes;
	spin_unlock(&f->lock);
	if (!ok) {
		atomic_long_sub(bytes, &ofd_pinned_all);
		return false;
	}
	job->pinned = bytes;
	return true;
}

/*
 * Decide the engine's part of a copy between two user buffers (see the top
 * of this file): [dma_off, dma_off + dma_len) of the copy.
 */
static void ofd_split(struct ofd_job *job, u64 src, u64 dst)
{
	struct ofd_chan *ch = job->ch;
	u64 a = ch->align, r = a, start, end;

	if (!ch->coherent)
		r = max_t(u64, a, dma_get_cache_alignment());
	job->dma_off = 0;
	job->dma_len = 0;
	if (((src ^ dst) & (a - 1)) || !ch->max_piece)
		return;
	start = ALIGN(dst, r);
	end = ALIGN_DOWN(dst + job->len, r);
	if (end <= start)
		return;
	job->dma_off = start - dst;
	job->dma_len = end - start;
}

/* Set up the job's resources; on failure *why says which rule. */
static int ofd_prepare(struct ofd_job *job, const struct offload_dma_copy *c, u32 *why)
{
	bool sbuf = c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF;
	bool dbuf = c->flags & OFFLOAD_DMA_COPY_DST_DMABUF;
	struct ofd_chan *ch = job->ch;
	long pieces;
	int r;

	job->src.dir = DMA_TO_DEVICE;
	job->dst.dir = DMA_FROM_DEVICE;
	if (sbuf) {
		r = ofd_dmabuf(job, &job->src, c->src_fd, c->src, why);
		if (r)
			return r;
	}
	if (dbuf) {
		r = ofd_dmabuf(job, &job->dst, c->dst_fd, c->dst, why);
		if (r)
			return r;
	}
	*why = OFFLOAD_DMA_WHY_OVERLAP;
	if (sbuf && dbuf && job->src.buf == job->dst.buf &&
	    ofd_overlap(c->src, c->dst, c->len))
		return -EINVAL;

	r = 0;
	if (!sbuf)
		r = ofd_pin(&job->src, c->src, c->len, false);
	if (!r && !dbuf)
		r = ofd_pin(&job->dst, c->dst, c->len, true);
	if (r) {
		*why = r == -ENOMEM ? OFFLOAD_DMA_WHY_NOMEM : OFFLOAD_DMA_WHY_FAULT;
		return r;
	}

	if (!sbuf && !dbuf) {
		ofd_split(job, c->src, c->dst);
	} else {
		/* No CPU path: all of it goes to the engine, as it is. */
		job->dma_off = 0;
		job->dma_len = job->len;
		*why = OFFLOAD_DMA_WHY_ALIGN;
		if (!ch->max_piece)
			return -EINVAL;
		if (!dbuf && !ch->coherent &&
		    ((c->dst | (c->dst + c->len)) & (dma_get_cache_alignment() - 1)))
			return -EINVAL;
	}
	*why = OFFLOAD_DMA_WHY_ALIGN;
	if (job->nocpu && job->dma_len != job->len)
		return -EINVAL;

	if (job->dma_len) {
		*why = OFFLOAD_DMA_WHY_MAP;
		if (!sbuf) {
			r = ofd_map_user(ch, &job->src, job->dma_off, job->dma_len, &job->si);
			if (r)
				return r;
		}
		if (!dbuf) {
			r = ofd_map_user(ch, &job->dst, job->dma_off, job->dma_len, &job->di);
			if (r)
				return r;
		}
		pieces = ofd_pieces_check(job);
		if (pieces == -EINVAL && !sbuf && !dbuf && !job->nocpu) {
			/* Placed off the alignment (bounce buffers): the CPU
			 * takes it all.
			 */
			ofd_side_unmap(job, &job->src);
			ofd_side_unmap(job, &job->dst);
			job->dma_off = 0;
			job->dma_len = 0;
		} else if (pieces < 0) {
			*why = pieces == -EINVAL ? OFFLOAD_DMA_WHY_ALIGN : OFFLOAD_DMA_WHY_MAP;
			return pieces;
		}
	}
	job->cpu_only = !job->dma_len;
	*why = OFFLOAD_DMA_WHY_NONE;
	return 0;
}

/* Take a slot for a completion; false when the file has none left. */
static bool ofd_slot(struct ofd_file *f)
{
	bool ok;

	spin_lock(&f->lock);
	ok = f->outstanding < f->max_inflight;
	if (ok)
		f->outstanding++;
	spin_unlock(&f->lock);
	return ok;
}

static void ofd_unslot(struct ofd_file *f)
{
	spin_lock(&f->lock);
	f->outstanding--;
	wake_up_all(&f->wq);
	spin_unlock(&f->lock);
}

/*
 * One copy. Returns 1 when consumed (it will complete, maybe at once with an
 * error), 0 when the file's limits stop the batch before it, or -ENOMEM.
 */
static int ofd_submit_one(struct ofd_file *f, const struct offload_dma_copy *c)
{
	struct ofd_job *job;
	struct ofd_chan *ch;
	u32 why = 0;
	int r;

	if (!ofd_slot(f))
		return 0;
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ofd_unslot(f);
		return -ENOMEM;
	}
	job->file = f;
	job->t0 = ktime_get_ns();
	job->len = c->len;
	job->comp.user_data = c->user_data;
	job->comp.chan = c->chan;
	job->nocpu = c->flags & OFFLOAD_DMA_COPY_NO_CPU;
	INIT_WORK(&job->work, ofd_job_work);
	INIT_LIST_HEAD(&job->cnode);

	r = ofd_check(f, c, &why);
	if (!r) {
		unsigned long bytes = 0;

		job->ch = ofd_chan(c->chan);
		if (!(c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF))
			bytes += ofd_npages(c->src, c->len) << PAGE_SHIFT;
		if (!(c->flags & OFFLOAD_DMA_COPY_DST_DMABUF))
			bytes += ofd_npages(c->dst, c->len) << PAGE_SHIFT;
		if (!ofd_charge(f, job, bytes)) {
			kfree(job);
			ofd_unslot(f);
			return 0;
		}
	}
	spin_lock(&f->lock);
	list_add_tail(&job->fnode, &f->running);
	spin_unlock(&f->lock);
	if (!r)
		r = ofd_prepare(job, c, &why);
	if (r) {
		ofd_job_end(job, r, why);
		return 1;
	}

	/* The engine's bytes may go now; the CPU's edges are tiny. */
	if (!job->cpu_only) {
		if (job->dma_off)
			ofd_cpu_part(job, 0, job->dma_off);
		if (job->dma_off + job->dma_len < job->len)
			ofd_cpu_part(job, job->dma_off + job->dma_len,
				     job->len - job->dma_off - job->dma_len);
	} else {
		queue_work(ofd_wq, &job->work);
		return 1;
	}

	ch = job->ch;
	job->deadline = jiffies + msecs_to_jiffies(c->timeout_ms ? c->timeout_ms : f->timeout_ms);
	mutex_lock(&ch->lock);
	list_add_tail(&job->cnode, &ch->jobs);
	/* Ended here when it was cancelled while it was being set up. */
	ofd_job_next(ch, job);
	ofd_chan_arm(ch);
	mutex_unlock(&ch->lock);
	return 1;
}

/* OFFLOAD_DMA_IOC_SUBMIT (the header is checked by the caller). */
int ofd_submit(struct ofd_file *f, struct offload_dma_submit *sub)
{
	struct offload_dma_copy __user *uc = u64_to_user_ptr(sub->copies);
	struct offload_dma_copy c;
	unsigned int i;
	int r = 0;

	for (i = 0; i < sub->count; i++) {
		if (copy_from_user(&c, uc + i, sizeof(c))) {
			r = -EFAULT;
			break;
		}
		r = ofd_submit_one(f, &c);
		if (r <= 0) {
			if (!r)
				r = -EAGAIN;
			break;
		}
		r = 0;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	sub->submitted = i;
	return i ? (int)i : r;
}

/* ------------------------------------------------------------ cancel */

static bool ofd_cancelling(struct ofd_file *f)
{
	struct ofd_job *job;
	bool any = false;

	spin_lock(&f->lock);
	list_for_each_entry(job, &f->running, fnode)
		if (READ_ONCE(job->cancel))
			any = true;
	spin_unlock(&f->lock);
	return any;
}

/*
 * Stop the matching copies of f and wait until each has ended (unpinned).
 * Returns how many were running.
 */
unsigned int ofd_cancel(struct ofd_file *f, u64 user_data, bool all)
{
	unsigned int n = 0, i, nr = ofd_nr_chans();
	struct ofd_job *job;

	spin_lock(&f->lock);
	list_for_each_entry(job, &f->running, fnode) {
		if (!all && job->comp.user_data != user_data)
			continue;
		if (!cmpxchg(&job->cancel, 0, -ECANCELED))
			n++;
	}
	spin_unlock(&f->lock);
	if (!n)
		return 0;
	for (i = 0; i < nr; i++) {
		struct ofd_chan *ch = ofd_chan(i);

		mutex_lock(&ch->lock);
		ofd_chan_reap(ch);
		mutex_unlock(&ch->lock);
	}
	/* CPU copies and rounds that had called back end in their work. */
	wait_event(f->wq, !ofd_cancelling(f));
	return n;
}
