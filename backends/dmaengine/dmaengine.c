/* SPDX-License-Identifier: MIT */
/*
 * The dmaengine backend: memcpy through the kernel's dmaengine channels,
 * served to user space by the offload_dma module (kmod/, the character
 * device /dev/offload_dma, uapi kmod/include/uapi/linux/offload_dma.h).
 *
 * Found at context open: the device is <dev root>/offload_dma (the platform's
 * /dev root, $OFFLOAD_DEV_ROOT in tests). No device file means the module is
 * not loaded: the backend is absent with that reason (never an open error;
 * `offloadctl doctor` says how to load it). A module of another ABI major, or
 * whose structure sizes differ, is listed as one unusable device with the
 * reason. Otherwise each DMA controller whose channels the module holds
 * becomes a device tied to the controller's device-tree node (of_path):
 *  - a node one of the library's engines also matches (OFL_BE_KERNEL_DMAENGINE,
 *    the K3 UDMA/BCDMA) is listed once, by discovery, and this backend
 *    probes it before the direct one (registry order): when the module holds
 *    a channel of it, the kernel's driver owns the hardware (it configured
 *    the channels through the firmware), so the kernel path serves it;
 *  - any other controller (bcm2835-dma, pl330, a DMA controller without a
 *    node) is a device of its own, kind "dmaengine", with the node's path.
 * Each device keeps its own file for synchronous copies (one at a time per
 * device), and every queue opens one more (its copies and completions are its
 * own). The file opened at init stays open until the context closes, so the
 * module keeps the channels and their indices (kmod/README.md, Channels).
 *
 * Alignment and limits come from the module: the module itself copies with
 * the CPU what the engine may not take (copy_align, cache_align on a
 * non-coherent device) and reports it (cpu_bytes), so the backend takes any
 * alignment; a copy longer than max_copy_bytes is split into a batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dmaengine_int.h"

int ofl_dmae_open_file(const struct dmae_state *st, bool nonblock)
{
	int fd = open(st->path, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));

	return fd < 0 ? -errno : fd;
}

static int dmae_init(struct offload_ctx *ctx, void **state, char *why, size_t why_len)
{
	struct dmae_state *st = calloc(1, sizeof(*st));

	if (!st) {
		snprintf(why, why_len, "out of memory for the backend's state");
		return -ENOMEM;
	}
	st->flags = ofl_drv(ctx)->flags;
	const struct ofl_platform_roots *roots = ofl_platform_roots();
	int pl = snprintf(st->path, sizeof(st->path), "%s/offload_dma", roots->dev);
	if (pl < 0 || (size_t)pl >= sizeof(st->path) || roots->dev_len >= sizeof(roots->dev)) {
		/* a cut path would name another file: refuse it */
		snprintf(why, why_len, "the device root (OFFLOAD_DEV_ROOT) is %zu characters long, "
			 "more than the %zu a path of this library takes: refused rather than cut",
			 roots->dev_len, sizeof(roots->dev) - 1);
		free(st);
		return -ENAMETOOLONG;
	}
	st->fd = ofl_dmae_open_file(st, false);
	int r = st->fd;
	if (r < 0) {
		if (r == -ENOENT)
			snprintf(why, why_len, "no %.200s: the offload_dma kernel module is not loaded "
				 "(modprobe offload_dma; to build it see kmod/README.md)", st->path);
		else if (r == -EACCES || r == -EPERM)
			snprintf(why, why_len, "%.200s: %s: the device is root's (mode 0600); a udev rule "
				 "gives it to a group (kmod/README.md)", st->path, strerror(-r));
		else
			snprintf(why, why_len, "cannot open %.200s: %s", st->path, strerror(-r));
		free(st);
		return r;
	}
	if (ioctl(st->fd, OFFLOAD_DMA_IOC_VERSION, &st->ver) < 0) {
		r = -errno;
		snprintf(why, why_len, "%.200s answers no OFFLOAD_DMA_IOC_VERSION (%s): not the offload_dma "
			 "module", st->path, strerror(-r));
		goto fail;
	}
	st->ver.module_version[sizeof(st->ver.module_version) - 1] = '\0';
	if (st->ver.abi_major != OFFLOAD_DMA_ABI_MAJOR ||
	    st->ver.copy_size != sizeof(struct offload_dma_copy) ||
	    st->ver.completion_size != sizeof(struct offload_dma_completion)) {
		snprintf(st->bad, sizeof(st->bad),
			 "unusable: the offload_dma module %.32s speaks ABI %u.%u (copy %u B, completion "
			 "%u B); this library speaks %u.%u (%zu B, %zu B): rebuild the module from this "
			 "release's kmod/ or the library for the module",
			 st->ver.module_version, st->ver.abi_major, st->ver.abi_minor, st->ver.copy_size,
			 st->ver.completion_size, OFFLOAD_DMA_ABI_MAJOR, OFFLOAD_DMA_ABI_MINOR,
			 sizeof(struct offload_dma_copy), sizeof(struct offload_dma_completion));
		*state = st;
		return 0;
	}
	if (ioctl(st->fd, OFFLOAD_DMA_IOC_INFO, &st->info) < 0) {
		r = -errno;
		snprintf(why, why_len, "%.200s: OFFLOAD_DMA_IOC_INFO: %s", st->path, strerror(-r));
		goto fail;
	}
	if (!st->info.nr_channels) {
		snprintf(why, why_len, "the offload_dma module (%.200s) holds no memcpy-capable dmaengine "
			 "channel: no DMA controller of this kernel offers DMA_MEMCPY, or slave users hold "
			 "every channel", st->path);
		r = -ENODEV;
		goto fail;
	}
	if (st->info.nr_channels > DMAE_MAX_CHANNELS) {
		snprintf(why, why_len, "the offload_dma module (%.200s) reports %u channels, more than the "
			 "%u this backend takes: not trusted", st->path, st->info.nr_channels,
			 DMAE_MAX_CHANNELS);
		r = -ENODEV;
		goto fail;
	}
	st->ch = calloc(st->info.nr_channels, sizeof(*st->ch));
	st->used = calloc(st->info.nr_channels, sizeof(*st->used));
	if (!st->ch || !st->used) {
		snprintf(why, why_len, "out of memory for %u channels' information", st->info.nr_channels);
		r = -ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < st->info.nr_channels; i++) {
		struct offload_dma_chan_info *c = &st->ch[i];
		c->index = i;
		if (ioctl(st->fd, OFFLOAD_DMA_IOC_CHAN_INFO, c) < 0) {
			r = -errno;
			snprintf(why, why_len, "%.200s: OFFLOAD_DMA_IOC_CHAN_INFO %u: %s", st->path, i,
				 strerror(-r));
			goto fail;
		}
		c->name[sizeof(c->name) - 1] = c->device[sizeof(c->device) - 1] = '\0';
		c->driver[sizeof(c->driver) - 1] = c->of_path[sizeof(c->of_path) - 1] = '\0';
		if (!c->copy_align || (c->copy_align & (c->copy_align - 1)))
			c->copy_align = 1; /* the uapi promises a power of two; never trust a zero */
	}
	*state = st;
	return 0;
fail:
	free(st->ch);
	free(st->used);
	close(st->fd);
	free(st);
	return r;
}

static void dmae_fini(struct offload_ctx *ctx, void *state)
{
	struct dmae_state *st = state;

	OFL_UNUSED(ctx);
	if (!st)
		return;
	close(st->fd);
	free(st->ch);
	free(st->used);
	free(st);
}

/*
 * Does discovery list channel i's controller as a device of one of the
 * library's engines that this backend serves (so probe() takes it)?
 */
static bool dt_listed(const void *fdt, const struct offload_dma_chan_info *c)
{
	if (!fdt || !c->of_path[0] || (c->flags & OFFLOAD_DMA_CHAN_PATH_TRUNCATED))
		return false;
	int node = fdt_path_offset(fdt, c->of_path);
	if (node < 0 || !ofl_dt_enabled(fdt, node, NULL))
		return false;
	int n = fdt_stringlist_count(fdt, node, "compatible");
	for (int k = 0; k < n; k++) {
		const char *compat = fdt_stringlist_get(fdt, node, "compatible", k, NULL);
		for (int b = 0; compat && ofl_backends[b]; b++) {
			const struct ofl_backend *be = ofl_backends[b];
			const struct ofl_dt_id *list = be->match;
			if (list && (be->flags & OFL_BE_KERNEL_DMAENGINE) &&
			    ofl_dt_id_lookup(&list, 1, compat, NULL))
				return true;
		}
	}
	return false;
}

/* A device of the channels of controller `first` not yet given out; NULL on ENOMEM. */
static struct dmae_dev *take_channels(struct dmae_state *st, uint32_t first, int *err)
{
	struct dmae_dev *dd = calloc(1, sizeof(*dd));
	const struct offload_dma_chan_info *f = &st->ch[first];

	*err = -ENOMEM;
	if (!dd)
		return NULL;
	dd->fd = ofl_dmae_open_file(st, false);
	if (dd->fd < 0) {
		*err = dd->fd;
		free(dd);
		return NULL;
	}
	pthread_mutex_init(&dd->lock, NULL);
	dd->st = st;
	dd->copy_align = f->copy_align;
	dd->coherent = f->flags & OFFLOAD_DMA_CHAN_COHERENT;
	dd->max_seg = f->max_seg_size;
	ofl_strlcpy(dd->driver, f->driver, sizeof(dd->driver));
	for (uint32_t i = first; i < st->info.nr_channels; i++) {
		const struct offload_dma_chan_info *c = &st->ch[i];
		if (st->used[i] || strcmp(c->device, f->device) != 0 || strcmp(c->of_path, f->of_path) != 0)
			continue;
		st->used[i] = true;
		if (dd->nchan < DMAE_DEV_CHANS) {
			dd->chans[dd->nchan++] = i;
			size_t n = strlen(dd->chan_names);
			snprintf(dd->chan_names + n, sizeof(dd->chan_names) - n, "%s%s", n ? "," : "",
				 c->name);
		}
	}
	*err = 0;
	return dd;
}

static void describe(const struct dmae_state *st, const struct dmae_dev *dd, char *transfer, size_t tl)
{
	const struct offload_dma_chan_info *c = &st->ch[dd->chans[0]];

	snprintf(transfer, tl, "dmaengine memcpy through the kernel's %.32s (%.60s of %.64s, "
		 "offload_dma %.32s): copy_align %u B, pieces of at most %" PRIu64 " B, copies of at most "
		 "%" PRIu64 " B, %u in flight per file; the module pins and maps the pages "
		 "(dma_map_sgtable) and copies with the CPU what the engine may not take",
		 c->driver, dd->chan_names, c->device, st->ver.module_version, c->copy_align,
		 (uint64_t)c->max_seg_size, (uint64_t)st->info.max_copy_bytes, st->info.max_inflight);
}

static int dmae_pseudo(struct offload_ctx *ctx, void *state, struct ofl_pseudo_dev *out)
{
	struct dmae_state *st = state;
	static const char coh[] = "the kernel's DMA API does the cache maintenance "
				  "(dma_map_sgtable) for the engine: nothing for user space";
	const void *fdt = ofl_drv(ctx)->dt.fdt;

	if (st->bad[0]) {
		if (st->listed_bad)
			return 0;
		st->listed_bad = true;
		out->name = "offload_dma";
		out->kind = "dmaengine";
		out->devflags = OFFLOAD_DEVF_KERNEL;
		out->unusable = true;
		out->coherent_reason = out->cache_reason = coh;
		out->burst_reason = out->align_reason = "unknown: the module is of another ABI";
		out->threshold_reason = "not used";
		out->transfer_mode = "dmaengine";
		ofl_strlcpy(out->usable_reason, st->bad, sizeof(out->usable_reason));
		return 1;
	}
	uint32_t i;
	for (i = 0; i < st->info.nr_channels; i++)
		if (!st->used[i] && !dt_listed(fdt, &st->ch[i]))
			break;
	if (i == st->info.nr_channels)
		return 0;
	int err;
	struct dmae_dev *dd = take_channels(st, i, &err);
	if (!dd)
		return ofl_err(ctx, err, "offload_ctx_open: dmaengine: cannot open %s for %s: %s", st->path,
			       st->ch[i].device, offload_strerror(err));
	const struct offload_dma_chan_info *c = &st->ch[i];
	out->name = c->device;
	out->kind = "dmaengine";
	out->caps = OFFLOAD_CAP_MEMCPY;
	out->devflags = OFFLOAD_DEVF_KERNEL;
	out->coherent_reason = (c->flags & OFFLOAD_DMA_CHAN_COHERENT)
				       ? "the kernel reports the DMA device coherent (dev_is_dma_coherent)"
				       : coh;
	out->cache_reason = coh;
	out->burst_reason = "chosen by the kernel's driver";
	out->align_reason = "any alignment: the module copies with the CPU the bytes the engine may "
			    "not take (copy_align, and the cache line on a non-coherent device)";
	out->threshold_bytes = ofl_dmae_threshold(c->driver, st->flags & OFFLOAD_CTX_NO_ENV, dd->threshold_reason,
						  sizeof(dd->threshold_reason));
	out->threshold_reason = dd->threshold_reason;
	out->transfer_mode = "dmaengine";
	describe(st, dd, out->transfer_reason, sizeof(out->transfer_reason));
	snprintf(out->usable_reason, sizeof(out->usable_reason),
		 "through the kernel's %.32s (offload_dma channels %.96s)%s", c->driver, dd->chan_names,
		 c->of_path[0] ? "" : "; the controller has no device-tree node");
	out->dt_path = c->of_path;
	out->priv = dd;
	out->more = true;
	return 1;
}

static int dmae_probe(struct offload_ctx *ctx, void *state, struct ofl_device *d, char *why,
		      size_t why_len)
{
	struct dmae_state *st = state;

	OFL_UNUSED(ctx);
	if (st->bad[0]) {
		snprintf(why, why_len, "%s", st->bad);
		return -ENODEV;
	}
	uint32_t i;
	for (i = 0; i < st->info.nr_channels; i++)
		if (!st->used[i] && strcmp(st->ch[i].of_path, d->dt_path) == 0)
			break;
	if (i == st->info.nr_channels) {
		snprintf(why, why_len, "the offload_dma module holds no channel of this node");
		return -ENODEV;
	}
	int err;
	struct dmae_dev *dd = take_channels(st, i, &err);
	if (!dd) {
		snprintf(why, why_len, "cannot open %.200s: %s", st->path, strerror(-err));
		return err;
	}
	const struct offload_dma_chan_info *c = &st->ch[i];
	char tr[OFL_REASON_LEN], th[OFL_REASON_LEN];
	describe(st, dd, tr, sizeof(tr));
	ofl_dev_refine(d, OFL_DECIDE_TRANSFER, "dmaengine", "%s", tr);
	uint64_t t = ofl_dmae_threshold(c->driver, st->flags & OFFLOAD_CTX_NO_ENV, th, sizeof(th));
	ofl_dev_refine_threshold(d, t, "%s", th);
	d->info.flags |= OFFLOAD_DEVF_KERNEL;
	d->priv = dd;
	snprintf(why, why_len, "served through the kernel's %.32s (offload_dma channels %.96s): the "
		 "kernel owns this engine's channels, so the kernel path serves it and the direct "
		 "backend does not", c->driver, dd->chan_names);
	return 0;
}

static void dmae_remove(struct ofl_device *d)
{
	struct dmae_dev *dd = d->priv;

	if (!dd)
		return;
	close(dd->fd);
	pthread_mutex_destroy(&dd->lock);
	free(dd);
	d->priv = NULL;
}

const struct ofl_backend ofl_backend_dmaengine = {
	.name = "dmaengine",
	.caps = OFFLOAD_CAP_MEMCPY,
	.flags = 0,
	.serves = OFL_BE_KERNEL_DMAENGINE,
	.init = dmae_init,
	.fini = dmae_fini,
	.pseudo = dmae_pseudo,
	.probe = dmae_probe,
	.remove = dmae_remove,
	.memcpy = &ofl_dmae_memcpy_ops,
};
