/* SPDX-License-Identifier: MIT */
/*
 * The SPI API: resolve a path (spidev node, DT child, DT controller + chip
 * select) into a configuration, route it to a backend, validate messages the
 * way the Linux SPI core does (drivers/spi/spi.c __spi_validate(); limits
 * of drivers/spi/spidev.c bufsiz) and split messages that exceed what the
 * backend takes in one call without changing what appears on the wire.
 */
#include <libfdt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "driver/spi.h"

#define OFL_SPI_MAGIC 0x6f666c73u /* "ofls" */

#define LANE_BITS (OFFLOAD_SPI_TX_DUAL | OFFLOAD_SPI_TX_QUAD | OFFLOAD_SPI_RX_DUAL | OFFLOAD_SPI_RX_QUAD)

struct offload_spi {
	uint32_t magic;
	struct ofl_handle h;
	struct offload_ctx *ctx;
	const struct ofl_backend *be;
	void *priv;
	struct ofl_spi_cfg cfg;
	struct ofl_spi_limits lim;
	struct offload_spi_xfer *part; /* one part of a split message */
	uint32_t part_cap;
	char path[256];
};

OFFLOAD_API void offload_spi_opts_init(struct offload_spi_opts *opts)
{
	if (!opts)
		return;
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->chip_select = -1;
	opts->mode = -1;
}

/* ------------------------------------------------------------- mode checks */

/* The combinations spi_setup() refuses (drivers/spi/spi.c; bits of include/uapi/linux/spi/spi.h). */
static int check_mode(const struct offload_ctx *ctx, const char *fn, uint64_t mode, const char *from)
{
	if (mode & ~(uint64_t)OFFLOAD_SPI_MODE_ALL)
		return ofl_err(ctx, -EINVAL,
			       "%s: unsupported mode bits 0x%llx in %s (known: CPHA 0x1, CPOL 0x2, CS_HIGH "
			       "0x4, LSB_FIRST 0x8, 3WIRE 0x10, LOOP 0x20, NO_CS 0x40, TX/RX_DUAL/QUAD "
			       "0x100..0x800)",
			       fn, (unsigned long long)(mode & ~(uint64_t)OFFLOAD_SPI_MODE_ALL), from);
	if (((mode & OFFLOAD_SPI_TX_DUAL) && (mode & OFFLOAD_SPI_TX_QUAD)) ||
	    ((mode & OFFLOAD_SPI_RX_DUAL) && (mode & OFFLOAD_SPI_RX_QUAD)))
		return ofl_err(ctx, -EINVAL, "%s: mode 0x%llx in %s selects dual and quad at once", fn,
			       (unsigned long long)mode, from);
	if ((mode & OFFLOAD_SPI_3WIRE) && (mode & LANE_BITS))
		return ofl_err(ctx, -EINVAL,
			       "%s: mode 0x%llx in %s combines 3WIRE with dual/quad lanes, which Linux "
			       "spi_setup() refuses",
			       fn, (unsigned long long)mode, from);
	return 0;
}

/* ------------------------------------------------------------- DT resolution */

/* Node name "spi", "spi@..", "spi-N" (the DT binding's generic name) or older "dspi@..". */
static bool spi_node_name(const char *name)
{
	const char *p = name;

	if (strncmp(p, "dspi", 4) == 0)
		p += 4;
	else if (strncmp(p, "spi", 3) == 0)
		p += 3;
	else
		return false;
	return *p == '\0' || *p == '@' || *p == '-';
}

static bool is_controller(const struct offload_ctx *ctx, int node)
{
	const void *fdt = ctx->drv.dt.fdt;
	const char *name = fdt_get_name(fdt, node, NULL);
	const struct ofl_device *d = ofl_ctx_device_by_node(ctx, node);

	if (d && d->owner && (d->owner->flags & OFL_BE_SPI_CONTROLLER))
		return true;
	return (name && spi_node_name(name)) || fdt_getprop(fdt, node, "spi-num-chipselects", NULL) ||
	       fdt_getprop(fdt, node, "num-cs", NULL);
}

static void apply_child(struct ofl_spi_cfg *cfg, const struct offload_spi_opts *o,
			const struct ofl_dt_spi_child *c)
{
	cfg->chip_select = (int)c->chip_select;
	if (o->mode < 0) {
		cfg->mode = c->mode;
		cfg->mode_dt_lanes = c->mode & LANE_BITS;
	}
	if (!o->max_speed_hz)
		cfg->max_speed_hz = c->max_frequency_hz;
	cfg->cs_setup_ns = c->cs_setup_ns;
	cfg->cs_hold_ns = c->cs_hold_ns;
}

static int resolve_dt(struct offload_ctx *ctx, struct ofl_spi_cfg *cfg, const struct offload_spi_opts *o)
{
	static const char fn[] = "offload_spi_open";
	const void *fdt = ctx->drv.dt.fdt;
	struct ofl_dt_spi_child child;
	const char *st = NULL;
	int node, ctrl, r;

	if (!fdt)
		return ofl_err(ctx, -ENOENT,
			       "%s: %s is a device-tree path but the context has no device tree (source "
			       "\"%s\"); open a /dev/spidevB.C path or give a .dtb",
			       fn, cfg->path, ctx->drv.dt.source);
	node = fdt_path_offset(fdt, cfg->path);
	if (node < 0)
		return ofl_err(ctx, -ENOENT, "%s: no node %s in the device tree (%s)", fn, cfg->path,
			       ctx->drv.dt.source);

	if (o->chip_select >= 0) {
		ctrl = node;
		if (!is_controller(ctx, ctrl))
			return ofl_err(ctx, -EINVAL,
				       "%s: %s is not an SPI controller node, so chip_select %d does not "
				       "apply; name the controller (spi@...) or pass chip_select -1 with a "
				       "peripheral node",
				       fn, cfg->path, o->chip_select);
		uint32_t ncs = ofl_dt_spi_num_cs(fdt, ctrl);
		if (ncs && (uint32_t)o->chip_select >= ncs)
			return ofl_err(ctx, -EINVAL,
				       "%s: chip_select %d is out of range: %s declares %u chip selects",
				       fn, o->chip_select, cfg->path, ncs);
		r = ofl_spi_find_child(fdt, ctrl, -1, (uint32_t)o->chip_select, &child);
		if (r < 0 && r != -ENOENT)
			return ofl_err(ctx, r, "%s: cannot read the children of %s", fn, cfg->path);
		cfg->chip_select = o->chip_select;
		if (r == 0)
			ofl_dt_path(fdt, child.node, cfg->dt_path, sizeof(cfg->dt_path));
	} else {
		ctrl = fdt_parent_offset(fdt, node);
		if (ctrl < 0 || !is_controller(ctx, ctrl)) {
			if (is_controller(ctx, node))
				return ofl_err(ctx, -EINVAL,
					       "%s: %s is an SPI controller; set opts.chip_select or name "
					       "one of its peripheral nodes",
					       fn, cfg->path);
			return ofl_err(ctx, -EINVAL,
				       "%s: %s is neither an SPI controller nor a peripheral node under one",
				       fn, cfg->path);
		}
		r = ofl_spi_find_child(fdt, ctrl, node, 0, &child);
		if (r == -ENOENT)
			return ofl_err(ctx, -EINVAL,
				       "%s: %s has no reg property, so it names no chip select", fn,
				       cfg->path);
		if (r < 0)
			return ofl_err(ctx, r, "%s: cannot read %s", fn, cfg->path);
		if (child.reg_error[0])
			return ofl_err(ctx, -EINVAL, "%s: %s: %s", fn, cfg->path, child.reg_error);
		ofl_dt_path(fdt, node, cfg->dt_path, sizeof(cfg->dt_path));
	}
	ofl_dt_path(fdt, ctrl, cfg->ctrl_path, sizeof(cfg->ctrl_path));
	if (!ofl_dt_enabled(fdt, ctrl, &st))
		return ofl_err(ctx, -ENODEV, "%s: SPI controller %s is disabled (status = \"%s\")", fn,
			       cfg->ctrl_path, st);
	if (cfg->dt_path[0]) {
		if (!child.enabled) {
			ofl_dt_enabled(fdt, child.node, &st);
			return ofl_err(ctx, -ENODEV, "%s: %s is disabled (status = \"%s\")", fn,
				       cfg->dt_path, st);
		}
		apply_child(cfg, o, &child);
	}
	/* The DT describes the device: program its mode even when it is 0. */
	cfg->mode_set = true;
	r = check_mode(ctx, fn, cfg->mode, cfg->dt_path[0] ? cfg->dt_path : "the options");
	if (r < 0)
		return r;
	cfg->dev = ofl_ctx_device_by_node(ctx, ctrl);
	cfg->owner = cfg->dev ? cfg->dev->owner : NULL;
	return 0;
}

/* ------------------------------------------------------------- routing */

static size_t append(char *buf, size_t len, size_t off, const char *name, const char *why)
{
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%s: %s", off ? "; " : "", name,
					why[0] ? why : "not reachable");
	return off;
}

/*
 * Try the backend bound to the controller's device first, then every other
 * backend with SPI ops in registry order (direct drivers before the kernel
 * path). -ENODEV from a backend means "cannot reach it, try the next".
 */
static int route_open(struct offload_spi *spi)
{
	static const char fn[] = "offload_spi_open";
	struct offload_ctx *ctx = spi->ctx;
	const struct ofl_backend *bound = spi->cfg.dev ? spi->cfg.dev->backend : NULL;
	char tried[OFL_ERRMSG_LEN - 96] = "";
	size_t off = 0;

	for (int j = -1; j < ctx->nbackends; j++) {
		int i = j;
		if (j < 0) {
			for (i = 0; i < ctx->nbackends && ctx->backends[i].be != bound; i++)
				;
			if (!bound || i == ctx->nbackends)
				continue;
		} else if (ctx->backends[j].be == bound) {
			continue;
		}
		const struct ofl_backend_slot *s = &ctx->backends[i];
		if (!s->be->spi)
			continue;
		if (!s->present) {
			off = append(tried, sizeof(tried), off, s->be->name, s->why);
			continue;
		}
		struct ofl_spi_cfg cfg = spi->cfg;
		struct ofl_spi_limits lim;
		char why[OFL_REASON_LEN] = "";
		void *priv = NULL;

		memset(&lim, 0, sizeof(lim));
		int r = s->be->spi->open(ctx, s->state, &cfg, &priv, &lim, why, sizeof(why));
		if (r == 0) {
			spi->be = s->be;
			spi->priv = priv;
			spi->cfg = cfg;
			spi->lim = lim;
			return 0;
		}
		if (r != -ENODEV)
			return ofl_err(ctx, r, "%s: %s: %s", fn, s->be->name,
				       why[0] ? why : offload_strerror(r));
		off = append(tried, sizeof(tried), off, s->be->name, why);
	}
	if (!off)
		return ofl_err(ctx, -ENODEV,
			       "%s: no SPI backend is built or allowed (allow-list \"%s\"), so %s cannot "
			       "be opened",
			       fn, ctx->allow, spi->cfg.path);
	return ofl_err(ctx, -ENODEV, "%s: no backend can reach %s: %s", fn, spi->cfg.path, tried);
}

static void sanitize_limits(struct offload_spi *spi)
{
	struct ofl_spi_limits *l = &spi->lim;

	if (!l->max_xfers)
		l->max_xfers = 1;
	if (!l->align || (l->align & (l->align - 1)))
		l->align = 1;
	if (!l->bpw_mask)
		l->bpw_mask = 0xffffffffu;
	spi->part_cap = OFL_MIN(l->max_xfers, (uint32_t)OFFLOAD_SPI_MAX_XFERS);
}

static void spi_destroy(struct ofl_handle *h)
{
	offload_spi_close(ofl_container_of(h, struct offload_spi, h));
}

OFFLOAD_API int offload_spi_open(offload_ctx *ctx, const char *path, const struct offload_spi_opts *opts,
		     offload_spi **out)
{
	static const char fn[] = "offload_spi_open";
	struct offload_spi_opts o;
	int r = ofl_ctx_check(ctx, fn);

	if (r < 0)
		return r;
	if (!out)
		return ofl_err(ctx, -EINVAL, "%s: out is NULL", fn);
	*out = NULL;
	if (!path || !path[0])
		return ofl_err(ctx, -EINVAL, "%s: path is %s", fn, path ? "empty" : "NULL");
	if (strlen(path) >= sizeof(((struct offload_spi *)0)->path))
		return ofl_err(ctx, -EINVAL, "%s: path is longer than %zu bytes", fn,
			       sizeof(((struct offload_spi *)0)->path) - 1);
	offload_spi_opts_init(&o);
	if (opts) {
		size_t min = offsetof(struct offload_spi_opts, bits_per_word) + sizeof(opts->bits_per_word);
		if (opts->size < min)
			return ofl_err(ctx, -EINVAL,
				       "%s: opts->size %u is smaller than the first published options "
				       "(%zu); use offload_spi_opts_init()",
				       fn, opts->size, min);
		memcpy(&o, opts, OFL_MIN((size_t)opts->size, sizeof(o)));
		o.size = sizeof(o);
	}
	if (o.chip_select < -1)
		return ofl_err(ctx, -EINVAL, "%s: chip_select %d (use -1 or a chip select number)", fn,
			       o.chip_select);
	if (o.mode < -1)
		return ofl_err(ctx, -EINVAL, "%s: mode %lld (use -1 to keep the DT's, or OFFLOAD_SPI_* bits)",
			       fn, (long long)o.mode);
	if (o.mode >= 0 && (r = check_mode(ctx, fn, (uint64_t)o.mode, "opts.mode")) < 0)
		return r;
	if (o.bits_per_word > 32)
		return ofl_err(ctx, -EINVAL, "%s: bits_per_word %u (an SPI word is 1..32 bits)", fn,
			       o.bits_per_word);
	if (o.flags & ~OFFLOAD_SPI_OPEN_NO_CS_HOLD)
		return ofl_err(ctx, -EINVAL, "%s: unknown flags 0x%x", fn,
			       o.flags & ~OFFLOAD_SPI_OPEN_NO_CS_HOLD);

	struct offload_spi *spi = calloc(1, sizeof(*spi));
	if (!spi)
		return ofl_err(ctx, -ENOMEM, "%s: out of memory", fn);
	spi->ctx = ctx;
	ofl_strlcpy(spi->path, path, sizeof(spi->path));
	struct ofl_spi_cfg *cfg = &spi->cfg;
	cfg->path = spi->path;
	cfg->chip_select = -1;
	cfg->bits_per_word = o.bits_per_word ? o.bits_per_word : 8;
	cfg->max_speed_hz = o.max_speed_hz;
	cfg->flags = o.flags;
	if (o.mode >= 0) {
		cfg->mode = (uint32_t)o.mode;
		cfg->mode_set = true;
	}

	if (strncmp(path, "/dev/", 5) == 0) {
		if (o.chip_select >= 0) {
			r = ofl_err(ctx, -EINVAL,
				    "%s: chip_select applies to a DT controller path, not to %s (the "
				    "spidev node fixes the chip select)",
				    fn, path);
			goto fail;
		}
		ofl_strlcpy(cfg->spidev, path, sizeof(cfg->spidev));
		ofl_spi_parse_spidev_name(path, NULL, &cfg->chip_select);
	} else if (path[0] == '/') {
		r = resolve_dt(ctx, cfg, &o);
		if (r < 0)
			goto fail;
	} else {
		r = ofl_err(ctx, -EINVAL,
			    "%s: %s is neither a /dev/spidevB.C path nor an absolute device-tree path",
			    fn, path);
		goto fail;
	}

	r = route_open(spi);
	if (r < 0)
		goto fail;
	ofl_spi_cfg_from_dt(ctx, cfg);
	sanitize_limits(spi);
	spi->part = calloc(spi->part_cap, sizeof(*spi->part));
	if (!spi->part) {
		spi->be->spi->close(spi->priv);
		r = ofl_err(ctx, -ENOMEM, "%s: out of memory", fn);
		goto fail;
	}
	spi->magic = OFL_SPI_MAGIC;
	ofl_ctx_handle_add(ctx, &spi->h, "spi", spi_destroy);
	*out = spi;
	return 0;
fail:
	free(spi);
	return r;
}

OFFLOAD_API int offload_spi_close(offload_spi *spi)
{
	if (!spi || spi->magic != OFL_SPI_MAGIC)
		return ofl_err(NULL, -EINVAL, "offload_spi_close: %s", spi ? "not an open SPI handle" :
									 "spi is NULL");
	if (ofl_ctx_inherited(spi->ctx))
		return ofl_inherited_err(spi->ctx, "offload_spi_close");
	ofl_ctx_handle_del(spi->ctx, &spi->h);
	spi->be->spi->close(spi->priv);
	spi->magic = 0;
	free(spi->part);
	free(spi);
	return 0;
}

OFFLOAD_API int offload_spi_get_info(const offload_spi *spi, struct offload_spi_info *info, size_t size)
{
	static const char func[] = "offload_spi_get_info";
	struct offload_spi_info i;

	if (!spi || spi->magic != OFL_SPI_MAGIC)
		return ofl_err(NULL, -EINVAL, "%s: %s", func,
			       spi ? "not an open SPI handle" : "spi is NULL");
	if (ofl_ctx_inherited(spi->ctx))
		return ofl_inherited_err(spi->ctx, func);
	if (!info || size == 0)
		return ofl_err(spi->ctx, -EINVAL, "%s: %s", func, !info ? "info is NULL" : "size is 0");
	if (size > OFL_STRUCT_SIZE_MAX)
		return ofl_err_struct_size(spi->ctx, func, "size", "offload_spi_info", "info", size);
	memset(&i, 0, sizeof(i));
	i.path = spi->path;
	i.dev = spi->cfg.dev ? spi->cfg.dev->index : -1;
	i.chip_select = spi->cfg.chip_select;
	i.mode = spi->cfg.mode;
	i.max_speed_hz = spi->cfg.max_speed_hz;
	i.bits_per_word = spi->cfg.bits_per_word;
	i.cs_setup_ns = spi->cfg.cs_setup_ns;
	i.cs_hold_ns = spi->cfg.cs_hold_ns;
	i.max_message_bytes = spi->lim.budget;
	spi->be->spi->info(spi->priv, &i);
	ofl_struct_out(info, size, &i, sizeof(i));
	return 0;
}

/* ------------------------------------------------------------- settings after open */

/* offload_spi_set_mode() (mode true, value = the mode) and offload_spi_set_speed() (value = Hz). */
static int spi_set(offload_spi *spi, const char *fn, bool mode, uint32_t value)
{
	char why[OFL_ERRMSG_LEN];
	int r;

	if (!spi || spi->magic != OFL_SPI_MAGIC)
		return ofl_err(NULL, -EINVAL, "%s: %s", fn, spi ? "not an open SPI handle" : "spi is NULL");
	if (ofl_ctx_inherited(spi->ctx))
		return ofl_inherited_err(spi->ctx, fn);
	struct ofl_spi_cfg cfg = spi->cfg;
	if (mode) {
		if ((r = check_mode(spi->ctx, fn, value, "the mode")) < 0)
			return r;
		cfg.mode = value;
		cfg.mode_set = true;
		cfg.mode_dt_lanes = 0; /* asked for by the caller: dropped lanes are an error */
	} else {
		if (value == 0)
			return ofl_err(spi->ctx, -EINVAL, "%s: hz is 0 (a clock in Hz is > 0)", fn);
		cfg.max_speed_hz = value;
	}
	if (!spi->be->spi->set)
		return ofl_err(spi->ctx, -ENOTSUP, "%s: the %s backend cannot change a handle after open", fn,
			       spi->be->name);
	why[0] = '\0';
	r = spi->be->spi->set(spi->priv, &cfg, mode, why, sizeof(why));
	if (r < 0)
		return ofl_err(spi->ctx, r, "%s: %s", fn, why[0] ? why : strerror(-r));
	spi->cfg = cfg;
	return 0;
}

OFFLOAD_API int offload_spi_set_mode(offload_spi *spi, uint32_t mode)
{
	return spi_set(spi, "offload_spi_set_mode", true, mode);
}

OFFLOAD_API int offload_spi_set_speed(offload_spi *spi, uint32_t hz)
{
	return spi_set(spi, "offload_spi_set_speed", false, hz);
}

/* ------------------------------------------------------------- messages */

static uint32_t word_bytes(unsigned bpw)
{
	return bpw <= 8 ? 1 : bpw <= 16 ? 2 : 4;
}

static uint64_t align_up(uint64_t len, uint32_t align)
{
	return (len + align - 1) / align * align;
}

static int check_nbits(const struct offload_spi *spi, unsigned i, const char *dir, unsigned nbits,
		       bool used, uint32_t dual, uint32_t quad)
{
	static const char fn[] = "offload_spi_transfer";

	if (nbits != 0 && nbits != 1 && nbits != 2 && nbits != 4)
		return ofl_err(spi->ctx, -EINVAL, "%s: transfer %u: %s_nbits %u (use 1, 2 or 4 lines)",
			       fn, i, dir, nbits);
	if (!used)
		return 0;
	if ((nbits == 2 && !(spi->cfg.mode & (dual | quad))) || (nbits == 4 && !(spi->cfg.mode & quad)))
		return ofl_err(spi->ctx, -EINVAL,
			       "%s: transfer %u: %s_nbits %u needs the %s mode bit%s, which the handle "
			       "(mode 0x%x) lacks",
			       fn, i, dir, nbits, nbits == 4 ? "QUAD" : "DUAL or QUAD",
			       nbits == 4 ? "" : "s", spi->cfg.mode);
	return 0;
}

/*
 * Does the rx of some transfer overlap the tx of a later one (validate())?
 * Compared pair by pair that is n^2 / 2 tests, about 8 million at 4096
 * transfers; this sweep takes n log n. It visits the 2n buffers by start
 * address: a buffer overlaps exactly those visited before it that still
 * reach its start. Of those, only the rx of the lowest transfer and the tx
 * of the highest matter, so each kind is kept in a heap on the transfer's
 * index (the tx heap on its complement, so both are min-heaps), and a heap's
 * top is dropped once it ends below the sweep, which only moves up.
 * Returns 1 or 0, or -ENOMEM.
 */
struct spi_span {
	uintptr_t first, last; /* the buffer's first and last byte */
	unsigned idx;          /* its transfer */
	bool rx;
};

struct spi_live {
	uintptr_t last;
	unsigned key;
};

static int span_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct spi_span *)a)->first, y = ((const struct spi_span *)b)->first;

	return (x > y) - (x < y);
}

static void live_push(struct spi_live *h, unsigned *n, struct spi_live v)
{
	unsigned i = (*n)++;

	for (; i && h[(i - 1) / 2].key > v.key; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

/* The lowest key of the heap's buffers that reach `at`, dropping those that end below it. */
static bool live_min(struct spi_live *h, unsigned *n, uintptr_t at, unsigned *key)
{
	while (*n && h[0].last < at) {
		struct spi_live v = h[--*n];
		unsigned i = 0;
		for (unsigned c; (c = 2 * i + 1) < *n; i = c) {
			if (c + 1 < *n && h[c + 1].key < h[c].key)
				c++;
			if (h[c].key >= v.key)
				break;
			h[i] = h[c];
		}
		h[i] = v;
	}
	if (*n)
		*key = h[0].key;
	return *n != 0;
}

static int rx_feeds_later_tx(const struct offload_spi_xfer *x, unsigned n)
{
	struct spi_span *s = malloc(2 * (size_t)n * (sizeof(*s) + sizeof(struct spi_live)));
	unsigned ns = 0, nrx = 0, ntx = 0, key;
	int found = 0;

	if (!s)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		uintptr_t tx = (uintptr_t)x[i].tx, rx = (uintptr_t)x[i].rx, last = x[i].len - 1u;
		if (tx)
			s[ns++] = (struct spi_span){ tx, tx + last, i, false };
		if (rx)
			s[ns++] = (struct spi_span){ rx, rx + last, i, true };
	}
	struct spi_live *rxh = (struct spi_live *)(void *)(s + 2 * (size_t)n), *txh = rxh + n;
	qsort(s, ns, sizeof(*s), span_cmp);
	for (unsigned k = 0; k < ns && !found; k++) {
		if (s[k].rx) {
			found = live_min(txh, &ntx, s[k].first, &key) && UINT_MAX - key > s[k].idx;
			live_push(rxh, &nrx, (struct spi_live){ s[k].last, s[k].idx });
		} else {
			found = live_min(rxh, &nrx, s[k].first, &key) && key < s[k].idx;
			live_push(txh, &ntx, (struct spi_live){ s[k].last, UINT_MAX - s[k].idx });
		}
	}
	free(s);
	return found;
}

/*
 * Check a message as Linux's SPI core would (spi.c __spi_validate()), before
 * anything reaches a backend. *total gets the sum of len; *fits says whether
 * the backend takes the message in one call.
 */
static int validate(const struct offload_spi *spi, const struct offload_spi_xfer *x, unsigned n,
		    uint32_t *total, bool *fits)
{
	static const char fn[] = "offload_spi_transfer";
	const struct ofl_spi_limits *l = &spi->lim;
	struct offload_ctx *ctx = spi->ctx;
	uint64_t sum = 0, txb = 0, rxb = 0;

	if (!x)
		return ofl_err(ctx, -EINVAL, "%s: xfers is NULL", fn);
	if (n == 0)
		return ofl_err(ctx, -EINVAL, "%s: n is 0; a message has at least one transfer", fn);
	if (n > OFFLOAD_SPI_MAX_XFERS)
		return ofl_err(ctx, -EINVAL, "%s: %u transfers; at most %d fit in one message", fn, n,
			       OFFLOAD_SPI_MAX_XFERS);
	for (unsigned i = 0; i < n; i++) {
		const struct offload_spi_xfer *t = &x[i];
		unsigned bpw = t->bits_per_word ? t->bits_per_word : spi->cfg.bits_per_word;
		int r;

		if (t->len == 0)
			return ofl_err(ctx, -EINVAL, "%s: transfer %u has len 0", fn, i);
		if (!t->tx && !t->rx)
			return ofl_err(ctx, -EINVAL,
				       "%s: transfer %u has neither tx nor rx; Linux clocks nothing for "
				       "such a transfer (pass a zeroed tx buffer to send zeros)",
				       fn, i);
		if (ofl_range_wraps(t->tx, t->len) || ofl_range_wraps(t->rx, t->len))
			return ofl_err(ctx, -EINVAL, "%s: transfer %u: len %u wraps the address space",
				       fn, i, t->len);
		if (t->tx && t->rx && t->tx != t->rx && ofl_ranges_overlap(t->tx, t->len, t->rx, t->len))
			return ofl_err(ctx, -EINVAL,
				       "%s: transfer %u: rx [%p,+%u) partly overlaps tx [%p,+%u); use the "
				       "same buffer or disjoint ones",
				       fn, i, t->rx, t->len, t->tx, t->len);
		if ((spi->cfg.mode & OFFLOAD_SPI_3WIRE) && t->tx && t->rx)
			return ofl_err(ctx, -EINVAL,
				       "%s: transfer %u has tx and rx but the handle is 3WIRE (one shared "
				       "data line, half duplex)",
				       fn, i);
		if (bpw > 32 || !(l->bpw_mask & (1u << (bpw - 1))))
			return ofl_err(ctx, -EINVAL, "%s: transfer %u: %u bits per word not supported by %s%s%s",
				       fn, i, bpw, spi->be->name, l->bpw_why ? ": " : "",
				       l->bpw_why ? l->bpw_why : "");
		if (t->len % word_bytes(bpw))
			return ofl_err(ctx, -EINVAL,
				       "%s: transfer %u: len %u is not a multiple of %u bytes, the memory "
				       "size of a %u-bit word (Linux refuses partial words)",
				       fn, i, t->len, word_bytes(bpw), bpw);
		if (spi->be->spi->check) {
			char why[OFL_ERRMSG_LEN];
			why[0] = '\0';
			r = spi->be->spi->check(spi->priv, t, bpw, why, sizeof(why));
			if (r < 0)
				return ofl_err(ctx, r, "%s: transfer %u: %s", fn, i, why);
		}
		r = check_nbits(spi, i, "tx", t->tx_nbits, t->tx != NULL, OFFLOAD_SPI_TX_DUAL,
				OFFLOAD_SPI_TX_QUAD);
		if (r == 0)
			r = check_nbits(spi, i, "rx", t->rx_nbits, t->rx != NULL, OFFLOAD_SPI_RX_DUAL,
					OFFLOAD_SPI_RX_QUAD);
		if (r < 0)
			return r;
		if (!l->per_xfer_speed && t->speed_hz && t->speed_hz != spi->cfg.max_speed_hz)
			return ofl_err(ctx, -EINVAL,
				       "%s: transfer %u: speed_hz %u differs from the handle's %u Hz, but "
				       "this controller's driver programs its clock only at setup and "
				       "ignores per-transfer speeds (spi-fsl-dspi); open a handle with "
				       "opts.max_speed_hz = %u instead",
				       fn, i, t->speed_hz, spi->cfg.max_speed_hz, t->speed_hz);
		sum += t->len;
		if (t->tx)
			txb += align_up(t->len, l->align);
		if (t->rx)
			rxb += align_up(t->len, l->align);
	}
	/*
	 * A received buffer that a later transfer sends: spidev copies every tx
	 * buffer before the message runs (spidev.c spidev_message()), a direct
	 * backend reads it when its transfer comes, so the bytes sent would
	 * depend on the backend. Long messages are swept first; the pairs are
	 * compared only to name the first one (or when the sweep had no memory).
	 */
	bool pairs = n <= 16 || rx_feeds_later_tx(x, n) != 0;
	for (unsigned i = 0; pairs && i + 1 < n; i++)
		for (unsigned j = i + 1; x[i].rx && j < n; j++)
			if (x[j].tx && ofl_ranges_overlap(x[i].rx, x[i].len, x[j].tx, x[j].len))
				return ofl_err(ctx, -EINVAL,
					       "%s: transfer %u's rx [%p,+%u) overlaps the tx [%p,+%u) of "
					       "transfer %u, which comes after it: whether the received or "
					       "the earlier bytes would be sent depends on the backend",
					       fn, i, x[i].rx, x[i].len, x[j].tx, x[j].len, j);
	if (sum > INT_MAX)
		return ofl_err(ctx, -EMSGSIZE,
			       "%s: the message carries %llu bytes; the byte count returned must fit "
			       "an int (%d)",
			       fn, (unsigned long long)sum, INT_MAX);
	*total = (uint32_t)sum;
	*fits = n <= l->max_xfers && (!l->budget || (txb <= l->budget && rxb <= l->budget));
	return 0;
}

/* Where the next part of a split message starts: transfer i, byte off. */
struct cursor {
	unsigned i;
	uint32_t off;
};

/*
 * Fill spi->part with the next part that fits the backend's limits: whole
 * transfers while they fit; a transfer too large for even an empty part is
 * cut into the largest word-aligned, budget-aligned pieces, the first of
 * them filling what the current part has left. Pieces of one
 * transfer keep its clock and word size; only the last piece keeps its delay
 * and cs_change.
 *
 * At the cut after the part, the wire must look as it would in one message:
 *  - after a whole transfer with cs_change set, CS is released and asserted
 *    again before the next transfer; ending a message releases CS and the
 *    next message asserts it, so cs_change is cleared on the part's last
 *    transfer (*hold = false);
 *  - anywhere else CS stays asserted: the part's last transfer gets
 *    cs_change, which on the last transfer of a message leaves CS asserted
 *    until the next message (include/linux/spi/spi.h, struct spi_transfer,
 *    rule (ii); drivers/spi/spi.c spi_transfer_one_message keep_cs; DSPI
 *    does the same, spi-fsl-dspi.c dspi_transfer_one_message()), so *hold = true.
 * Returns the number of entries, or -EMSGSIZE when not even one word of the
 * next transfer fits an empty part (*bad names that transfer).
 */
static int next_part(struct offload_spi *spi, const struct offload_spi_xfer *x, unsigned n,
		     struct cursor *c, bool *hold, uint32_t *bytes, unsigned *bad)
{
	const struct ofl_spi_limits *l = &spi->lim;
	uint64_t tx_used = 0, rx_used = 0;
	uint32_t k = 0;

	*bytes = 0;
	*hold = false;
	while (c->i < n && k < spi->part_cap && k < l->max_xfers) {
		const struct offload_spi_xfer *t = &x[c->i];
		uint32_t take = t->len - c->off;

		if (l->budget) {
			uint64_t used = OFL_MAX(t->tx ? tx_used : 0, t->rx ? rx_used : 0);
			uint64_t room = used < l->budget ? (l->budget - used) / l->align * l->align : 0;
			if (align_up(take, l->align) > room) {
				unsigned bpw = t->bits_per_word ? t->bits_per_word : spi->cfg.bits_per_word;
				uint64_t empty = l->budget / l->align * l->align;
				room -= room % word_bytes(bpw);
				/*
				 * A transfer that fits an empty part starts the next part
				 * whole; one that must be cut anyway starts filling this one.
				 */
				if (k > 0 && (align_up(take, l->align) <= empty || room == 0))
					break;
				if (room == 0) {
					*bad = c->i;
					return -EMSGSIZE;
				}
				take = (uint32_t)room;
			}
			if (t->tx)
				tx_used += align_up(take, l->align);
			if (t->rx)
				rx_used += align_up(take, l->align);
		}
		struct offload_spi_xfer *p = &spi->part[k++];
		*p = *t;
		if (t->tx)
			p->tx = (const uint8_t *)t->tx + c->off;
		if (t->rx)
			p->rx = (uint8_t *)t->rx + c->off;
		p->len = take;
		*bytes += take;
		if (c->off + take < t->len) {
			p->cs_change = 0;
			p->delay_usecs = 0;
			c->off += take;
			break; /* the budget is used up */
		}
		c->i++;
		c->off = 0;
	}
	if (c->i < n) {
		struct offload_spi_xfer *last = &spi->part[k - 1];
		*hold = !(c->off == 0 && last->cs_change);
		last->cs_change = *hold;
	}
	return (int)k;
}


static int split_xfer(struct offload_spi *spi, const struct offload_spi_xfer *x, unsigned n,
		      uint32_t total)
{
	static const char fn[] = "offload_spi_transfer";
	struct offload_ctx *ctx = spi->ctx;
	bool can_hold = spi->lim.cs_hold && !(spi->cfg.flags & OFFLOAD_SPI_OPEN_NO_CS_HOLD);
	struct cursor c = { 0, 0 };
	uint32_t bytes, done = 0;
	unsigned parts = 0, bad = 0;
	bool hold, held = false;
	int k;

	/* Plan everything first: nothing is sent unless every cut is wire-neutral. */
	while (c.i < n) {
		k = next_part(spi, x, n, &c, &hold, &bytes, &bad);
		if (k < 0)
			return ofl_err(ctx, -EMSGSIZE,
				       "%s: transfer %u cannot be split to fit %s: %u bytes per direction "
				       "per message with each transfer rounded up to %u bytes leave no "
				       "room for one word",
				       fn, bad, spi->be->name, spi->lim.budget, spi->lim.align);
		parts++;
		if (hold && !can_hold)
			return ofl_err(ctx, -EMSGSIZE,
				       "%s: the message (%u transfers, %u bytes) needs %s messages of at "
				       "most %u transfers and %u bytes per direction, and the cut after "
				       "part %u (%s transfer %u) falls where chip select stays asserted; %s",
				       fn, n, total, spi->be->name, spi->lim.max_xfers, spi->lim.budget,
				       parts, c.off ? "inside" : "after", c.off ? c.i : c.i - 1,
				       spi->lim.cs_hold     ? "the handle was opened with "
							      "OFFLOAD_SPI_OPEN_NO_CS_HOLD"
				       : spi->lim.no_hold_why ? spi->lim.no_hold_why
							    : "this backend cannot keep CS asserted "
							      "between messages");
	}
	c.i = 0;
	c.off = 0;
	for (unsigned p = 1; c.i < n; p++) {
		k = next_part(spi, x, n, &c, &hold, &bytes, &bad);
		int r = spi->be->spi->xfer(spi->priv, spi->part, (unsigned)k, bytes);
		if (r < 0) {
			if (p > 1) {
				char msg[OFL_ERRMSG_LEN];
				ofl_strlcpy(msg, offload_last_error(ctx), sizeof(msg));
				int rel = held ? spi->be->spi->release_cs(spi->priv) : 0;
				ofl_err(ctx, r, "%s (part %u of %u of a split message; %u of %u bytes were "
						"already clocked%s)",
					msg, p, parts, done, total,
					rel > 0 ? "; the chip select held across parts was released with "
						  "an empty message"
					: rel < 0 ? "; releasing the chip select held across parts failed"
						  : "");
			}
			return r;
		}
		done += bytes;
		held = hold;
	}
	return (int)total;
}

OFFLOAD_API int offload_spi_transfer(offload_spi *spi, const struct offload_spi_xfer *xfers, unsigned n)
{
	uint32_t total = 0;
	bool fits = false;

	if (!spi || spi->magic != OFL_SPI_MAGIC)
		return ofl_err(NULL, -EINVAL, "offload_spi_transfer: %s",
			       spi ? "not an open SPI handle" : "spi is NULL");
	if (ofl_ctx_inherited(spi->ctx))
		return ofl_inherited_err(spi->ctx, "offload_spi_transfer");
	int r = validate(spi, xfers, n, &total, &fits);
	if (r < 0)
		return r;
	if (fits)
		return spi->be->spi->xfer(spi->priv, xfers, n, total);
	return split_xfer(spi, xfers, n, total);
}
