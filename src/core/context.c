/* SPDX-License-Identifier: MIT */
/*
 * Context lifecycle: load the device tree, discover engines, compute their
 * policy, bind backends; and the handle bookkeeping every module shares.
 */
#include <libfdt.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/internal.h"
#include "util/env.h"

#define OFL_LIVE_FDT "/sys/firmware/fdt"

static atomic_uint_fast64_t next_ctx_id = 1;

atomic_uint ofl_fork_gen;
static pthread_once_t fork_hook_once = PTHREAD_ONCE_INIT;

/*
 * Every context from offload_ctx_new() to offload_ctx_free(), so that the
 * child of a fork() can switch off their inline fast path (which cannot see
 * ofl_fork_gen). The fork handlers hold all_lock across the fork, so the
 * child finds the list whole.
 */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

/* The public header's inline offload_memcpy() reads this at offset 0 of every context. */
_Static_assert(offsetof(struct offload_ctx, drv.fast) == 0,
	       "struct offload_ctx_fastpath must begin every context (offload/memcpy.h)");
static struct offload_ctx *all_head;

static void fork_prepare(void)
{
	pthread_mutex_lock(&all_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&all_lock);
}

/* Runs in the child of every fork(): contexts opened before are inherited. */
static void fork_child(void)
{
	atomic_fetch_add_explicit(&ofl_fork_gen, 1, memory_order_relaxed);
	for (struct offload_ctx *c = all_head; c; c = c->all_next)
		c->drv.fast.memcpy_inline_max = 0; /* every call goes where ofl_ctx_inherited() refuses */
	pthread_mutex_unlock(&all_lock);
}

static void fork_hook_register(void)
{
	/* Failure (ENOMEM) leaves inherited contexts undetected, as before this hook. */
	(void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}

OFFLOAD_API unsigned offload_version(void)
{
	return OFFLOAD_VERSION_NUMBER;
}

OFFLOAD_API const char *offload_version_string(void)
{
	return OFFLOAD_VERSION_STRING;
}

OFFLOAD_API int offload_check_version(unsigned major, unsigned minor, unsigned patch)
{
	/* In variables: a component that is 0 would make a constant comparison. */
	const unsigned have[3] = { OFFLOAD_VERSION_MAJOR, OFFLOAD_VERSION_MINOR, OFFLOAD_VERSION_PATCH };
	const unsigned want[3] = { major, minor, patch };

	for (int i = 0; i < 3; i++)
		if (have[i] != want[i])
			return have[i] > want[i];
	return 1;
}

OFFLOAD_API void offload_ctx_opts_init(struct offload_ctx_opts *opts)
{
	if (!opts)
		return;
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->dt_source = OFFLOAD_DT_AUTO;
}

OFFLOAD_API offload_ctx *offload_ctx_new(void)
{
	struct offload_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	pthread_once(&fork_hook_once, fork_hook_register);
	ctx->magic = OFL_CTX_MAGIC;
	ofl_drv_ctx_init(&ctx->drv, atomic_fetch_add(&next_ctx_id, 1));
	ctx->cpu_dev = -1;
	ctx->memcpy_dev = -1;
	ctx->handles.next = ctx->handles.prev = &ctx->handles;
	pthread_mutex_init(&ctx->lock, NULL);
	pthread_mutex_lock(&all_lock);
	ctx->all_next = all_head;
	if (all_head)
		all_head->all_prev = ctx;
	all_head = ctx;
	pthread_mutex_unlock(&all_lock);
	return ctx;
}

int ofl_ctx_check(const struct offload_ctx *ctx, const char *func)
{
	if (OFL_UNLIKELY(!ctx))
		return ofl_err(NULL, -EINVAL, "%s: context is NULL", func);
	if (OFL_UNLIKELY(ctx->magic != OFL_CTX_MAGIC))
		return ofl_err(NULL, -EINVAL, "%s: not a liboffload context", func);
	if (OFL_UNLIKELY(!ctx->open))
		return ofl_err(ctx, -EBADF, "%s: context is not open", func);
	if (ofl_ctx_inherited(ctx))
		return ofl_inherited_err(ctx, func);
	return 0;
}

int ofl_inherited_err(const struct offload_ctx *ctx, const char *func)
{
	return ofl_err(ctx, -EBADF,
		       "%s: this context was opened by process %d; a child created by fork() may only "
		       "close or free it, and must open a context of its own", func, ctx->pid);
}

/* ------------------------------------------------------------- environment */

#define OFL_CTX_KNOWN_FLAGS (OFFLOAD_CTX_SIM | OFFLOAD_CTX_NO_ENV | OFFLOAD_CTX_SIM_NONCOHERENT)

/* ------------------------------------------------------------- allow-list */

static bool list_contains(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		while (*p == ',' || *p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ',' && *e != ' ')
			e++;
		if ((size_t)(e - p) == n && strncmp(p, name, n) == 0)
			return true;
		p = e;
	}
	return false;
}

bool ofl_ctx_backend_allowed(const struct offload_ctx *ctx, const char *name)
{
	return ctx->allow[0] == '\0' || list_contains(ctx->allow, name);
}

static int check_allow_list(struct offload_ctx *ctx, const char *list)
{
	for (const char *p = list; *p;) {
		while (*p == ',' || *p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ',' && *e != ' ')
			e++;
		if (e == p)
			break;
		bool known = false;
		for (int i = 0; ofl_backends[i]; i++)
			if (strlen(ofl_backends[i]->name) == (size_t)(e - p) &&
			    strncmp(ofl_backends[i]->name, p, (size_t)(e - p)) == 0)
				known = true;
		if (!known) {
			char known_list[160] = "";
			for (int i = 0; ofl_backends[i]; i++) {
				if (i)
					strncat(known_list, ",", sizeof(known_list) - strlen(known_list) - 1);
				strncat(known_list, ofl_backends[i]->name,
					sizeof(known_list) - strlen(known_list) - 1);
			}
			return ofl_err(ctx, -EINVAL,
				       "offload_ctx_open: unknown backend '%.*s' in allow-list (built: %s)",
				       (int)(e - p), p, known_list);
		}
		p = e;
	}
	return 0;
}

/* ------------------------------------------------------------- devices */

struct ofl_device *ofl_ctx_add_device(struct offload_ctx *ctx, const char *name, const char *kind)
{
	if (ctx->drv.ndev >= OFL_MAX_DEVICES)
		return NULL;
	struct ofl_device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;

	d->ctx = ctx;
	d->index = ctx->drv.ndev;
	d->node = -1;
	d->dt_path = "";
	ofl_strlcpy(d->name, name, sizeof(d->name));
	/* Names must be unique: two nodes may share a node name under different parents. */
	for (int i = 0; i < ctx->drv.ndev; i++)
		if (strcmp(ctx->drv.devs[i]->name, d->name) == 0) {
			char base[sizeof(d->name)];
			ofl_strlcpy(base, d->name, sizeof(base));
			snprintf(d->name, sizeof(d->name), "%.70s#%d", base, d->index);
			break;
		}
	ofl_strlcpy(d->kind, kind, sizeof(d->kind));
	ofl_strlcpy(d->status, "okay", sizeof(d->status));
	ctx->drv.devs[ctx->drv.ndev++] = d;
	return d;
}

void *ofl_ctx_backend_state(const struct offload_ctx *ctx, const char *name)
{
	for (int i = 0; i < ctx->nbackends; i++)
		if (ctx->backends[i].present && strcmp(ctx->backends[i].be->name, name) == 0)
			return ctx->backends[i].state;
	return NULL;
}

/* Refresh the public view of a device from its fields and policy. */
static void device_publish(struct ofl_device *d)
{
	struct offload_dev_info *i = &d->info;
	const struct ofl_policy *p = &d->policy;

	i->index = d->index;
	i->name = d->name;
	i->kind = d->kind;
	i->dt_path = d->dt_path;
	i->compatible = d->compatible;
	i->status = d->status;
	if (d->backend)
		ofl_strlcpy(d->backend_name, d->backend->name, sizeof(d->backend_name));
	i->backend = d->backend_name;
	i->candidates = d->candidates;
	i->usable_reason = d->usable_reason;
	i->caps = p->caps;
	i->flags = (p->enabled ? OFFLOAD_DEVF_ENABLED : 0) | (d->backend ? OFFLOAD_DEVF_USABLE : 0) |
		   (d->sim ? OFFLOAD_DEVF_SIM : 0) | (i->flags & (OFFLOAD_DEVF_DIRECT |
								   OFFLOAD_DEVF_KERNEL |
								   OFFLOAD_DEVF_CPU));
	i->coherent = p->coherent;
	i->coherent_reason = p->coherent_reason;
	i->cache_mode = p->cache_mode;
	i->cache_reason = p->cache_reason;
	i->burst_bytes = p->burst_bytes;
	i->burst_reason = p->burst_reason;
	i->align_bytes = p->align_bytes;
	i->align_reason = p->align_reason;
	i->threshold_bytes = p->threshold_bytes;
	i->threshold_reason = p->threshold_reason;
	i->transfer_mode = p->transfer_mode;
	i->transfer_reason = p->transfer_reason;
	i->phys_reason = p->reg_reason;
	i->coherent_node = p->coherent_path;
	i->soc_io_coherent = p->soc_io_coherent;
	i->soc_io_coherent_reason = p->soc_io_coherent_reason;
	for (int k = 0; k < 3; k++)
		i->burst_by_class[k] = p->burst_by_tpl[k];
	i->memcpy_class = p->best_tpl;
}

static void add_candidates(struct ofl_device *d)
{
	d->candidates[0] = '\0';
	for (int i = 0; ofl_backends[i]; i++) {
		if (!ofl_backend_may_probe(ofl_backends[i], d))
			continue;
		if (d->candidates[0])
			strncat(d->candidates, ",", sizeof(d->candidates) - strlen(d->candidates) - 1);
		strncat(d->candidates, ofl_backends[i]->name,
			sizeof(d->candidates) - strlen(d->candidates) - 1);
	}
}

/* Add a backend's name to the comma-separated list of those that did not take a device. */
static void tried_name(char *names, size_t len, const char *name)
{
	size_t n = strlen(names);

	snprintf(names + n, len - n, "%s%s", n ? ", " : "", name);
}

static void bind_device(struct offload_ctx *ctx, struct ofl_device *d)
{
	char why[OFL_REASON_LEN], names[128] = "";
	size_t off = 0;

	if (!d->policy.enabled) {
		snprintf(d->usable_reason, sizeof(d->usable_reason), "disabled in the device tree: %.280s",
			 d->policy.enabled_reason);
		return;
	}
	d->usable_reason[0] = '\0';
	for (int i = 0; i < ctx->nbackends; i++) {
		struct ofl_backend_slot *s = &ctx->backends[i];
		if (!ofl_backend_may_probe(s->be, d))
			continue;
		if (!s->present) {
			off += (size_t)snprintf(d->usable_reason + off,
						off < sizeof(d->usable_reason) ? sizeof(d->usable_reason) - off : 0,
						"%s%s: %s", off ? "; " : "", s->be->name, s->why);
			tried_name(names, sizeof(names), s->be->name);
			continue;
		}
		why[0] = '\0';
		d->bstate = s->state;
		if (s->be->probe(ctx, s->state, d, why, sizeof(why)) == 0) {
			char tried[sizeof(d->usable_reason)];
			d->backend = s->be;
			/* keep what the backends before it said: both paths show */
			ofl_strlcpy(tried, d->usable_reason, sizeof(tried));
			if (!why[0])
				snprintf(why, sizeof(why), "served by the %s backend", s->be->name);
			/* the reason of the backend that serves it whole; the others' if they fit, else their names */
			size_t rl = sizeof(d->usable_reason);
			if (!off)
				ofl_strlcpy(d->usable_reason, why, rl);
			else if (snprintf(d->usable_reason, rl, "%s (not %s)", why, tried) >= (int)rl &&
				 snprintf(d->usable_reason, rl, "%s (not %s)", why, names) >= (int)rl)
				ofl_strlcpy(d->usable_reason, why, rl);
			return;
		}
		d->bstate = NULL;
		ofl_ctx_release_regs(ctx, d);
		off += (size_t)snprintf(d->usable_reason + off,
					off < sizeof(d->usable_reason) ? sizeof(d->usable_reason) - off : 0,
					"%s%s: %s", off ? "; " : "", s->be->name, why[0] ? why : "not bound");
		tried_name(names, sizeof(names), s->be->name);
	}
	if (!d->usable_reason[0])
		snprintf(d->usable_reason, sizeof(d->usable_reason),
			 "no backend for %s devices is built or allowed", d->kind);
}

static int discover(struct offload_ctx *ctx)
{
	struct ofl_dt_match m[OFL_MAX_DEVICES];
	const void *fdt = ctx->drv.dt.fdt;
	const struct ofl_policy_opts popts = {
		.sim_noncoherent = ctx->drv.sim && (ctx->drv.flags & OFFLOAD_CTX_SIM_NONCOHERENT),
	};

	if (!fdt)
		return 0;
	int n = ofl_engines_discover(fdt, m, (int)OFL_ARRAY_SIZE(m));
	if (n < 0)
		return ofl_err(ctx, n, "offload_ctx_open: device discovery failed in %s", ctx->drv.dt.source);
	/* A valid tree with more engines than the table holds: the first ones, and a note. */
	int room = OFL_MAX_DEVICES - ctx->drv.ndev;
	if (n > room) {
		snprintf(ctx->note, sizeof(ctx->note), "the device tree has %d engine nodes; the first %d "
			 "(in tree order) are listed and the other %d skipped: the context holds %d devices",
			 n, room, n - room, OFL_MAX_DEVICES);
		n = room;
	}

	for (int k = 0; k < n; k++) {
		const char *nm = fdt_get_name(fdt, m[k].node, NULL);
		struct ofl_device *d = ofl_ctx_add_device(ctx, nm ? nm : "?",
							  ofl_match_row_of(m[k].id)->kind);
		if (!d)
			return ofl_err(ctx, -ENOMEM, "offload_ctx_open: out of memory");
		d->node = m[k].node;
		d->owner = ofl_engine_of(&m[k]);
		d->match = m[k].id;
		d->dt_path_mem = ofl_dt_path_dup(fdt, m[k].node);
		if (!d->dt_path_mem)
			return ofl_err(ctx, -ENOMEM, "offload_ctx_open: out of memory for the path of %s",
				       d->name);
		d->dt_path = d->dt_path_mem;
		ofl_strlcpy(d->compatible, m[k].id->compatible, sizeof(d->compatible));
		const char *st = NULL;
		ofl_dt_enabled(fdt, m[k].node, &st);
		ofl_strlcpy(d->status, st ? st : "okay", sizeof(d->status));
		int r = ofl_engine_policy(fdt, &m[k], &popts, &d->policy);
		if (r < 0)
			return ofl_err(ctx, r, "offload_ctx_open: policy for %s failed", d->dt_path);
		d->info.phys_addr = d->policy.reg_addr;
		d->info.phys_size = d->policy.reg_size;
		add_candidates(d);
	}
	return 0;
}

/* The devices a backend offers without a device tree (the CPU, AF_ALG, the kernel's DMA channels). */
static int add_pseudo(struct offload_ctx *ctx, const struct ofl_backend_slot *s)
{
	struct ofl_pseudo_dev ps;

	for (unsigned k = 0; k < OFL_MAX_DEVICES; k++) {
		memset(&ps, 0, sizeof(ps));
		ps.index = k;
		int r = s->be->pseudo(ctx, s->state, &ps);
		if (r <= 0)
			return r;
		struct ofl_device *d = ofl_ctx_add_device(ctx, ps.name, ps.kind);
		if (!d) {
			if (s->be->remove) {
				struct ofl_device tmp = { .ctx = ctx, .priv = ps.priv, .bstate = s->state };
				s->be->remove(&tmp);
			}
			return ofl_err(ctx, -ENOMEM, "offload_ctx_open: cannot add the %s device", ps.name);
		}
		ofl_policy_pseudo(&ps, &d->policy);
		d->backend = ps.unusable ? NULL : s->be;
		d->bstate = s->state;
		d->priv = ps.priv;
		d->info.flags = ps.devflags;
		if (ps.dt_path && ps.dt_path[0]) {
			d->dt_path_mem = strdup(ps.dt_path);
			if (d->dt_path_mem)
				d->dt_path = d->dt_path_mem;
		}
		ofl_strlcpy(d->usable_reason, ps.usable_reason, sizeof(d->usable_reason));
		ofl_strlcpy(d->candidates, s->be->name, sizeof(d->candidates));
		if (ps.fallback)
			ctx->cpu_dev = d->index;
		if (!ps.more)
			return 0;
	}
	return 0;
}

/* ------------------------------------------------------------- open/close */

/* The device-tree source in effect: OFFLOAD_DTB over opts->dt_source; *path for FILE. */
static enum offload_dt_source dt_source(const struct offload_ctx_opts *o, const char *env_dtb,
					const char **path)
{
	*path = o->dtb_path;
	if (!env_dtb || !*env_dtb)
		return o->dt_source;
	if (strcmp(env_dtb, "none") == 0)
		return OFFLOAD_DT_NONE;
	if (strcmp(env_dtb, "live") == 0)
		return OFFLOAD_DT_LIVE;
	if (strcmp(env_dtb, "builtin") == 0)
		return OFFLOAD_DT_BUILTIN;
	*path = env_dtb;
	return OFFLOAD_DT_FILE;
}

/*
 * The models of this context, if it has any: the caller's provider; or, when
 * the models were asked for (OFFLOAD_CTX_SIM, OFFLOAD_DT_BUILTIN, or their
 * environment variables) without one, the program's own liboffload-sim or
 * the one dlopen finds (src/platform/provider.c). AUTO alone never looks.
 */
static int sim_provider(struct offload_ctx *ctx, const struct offload_ctx_opts *o,
			enum offload_dt_source src, const struct offload_sim_provider **out)
{
	char why[OFL_ERRMSG_LEN - 64];
	bool asked = (ctx->drv.flags & OFFLOAD_CTX_SIM) || src == OFFLOAD_DT_BUILTIN;
	int r = 0;

	*out = o->sim_provider;
	if (*out)
		r = ofl_platform_sim_check(*out, why, sizeof(why));
	else if (asked)
		r = ofl_platform_sim_find(out, why, sizeof(why));
	return r < 0 ? ofl_err(ctx, r, "offload_ctx_open: %s", why) : 0;
}

static int load_dt(struct offload_ctx *ctx, const struct offload_ctx_opts *o, const char *env_dtb,
		   const struct offload_sim_provider *sim)
{
	char err[OFL_ERRMSG_LEN - 64];
	const char *path;
	enum offload_dt_source src = dt_source(o, env_dtb, &path);
	int r;

	err[0] = '\0';
	if (src == OFFLOAD_DT_AUTO) {
		if (access(OFL_LIVE_FDT, R_OK) == 0) {
			src = OFFLOAD_DT_LIVE;
		} else if (sim) {
			src = OFFLOAD_DT_BUILTIN;
			/* models attached only because nothing else was there: see choose_defaults() */
			ctx->sim_auto = !(ctx->drv.flags & OFFLOAD_CTX_SIM);
			ctx->dt_fallback = true;
		} else {
			src = OFFLOAD_DT_NONE; /* no tree and no models: the CPU and the kernel's interfaces */
		}
	}
	switch (src) {
	case OFFLOAD_DT_NONE:
		ofl_strlcpy(ctx->drv.dt.source, "none", sizeof(ctx->drv.dt.source));
		return 0;
	case OFFLOAD_DT_FILE:
		if (!path)
			return ofl_err(ctx, -EINVAL, "offload_ctx_open: OFFLOAD_DT_FILE without dtb_path");
		r = ofl_dt_load_file(&ctx->drv.dt, path, err, sizeof(err));
		break;
	case OFFLOAD_DT_LIVE:
		r = ofl_dt_load_live(&ctx->drv.dt, err, sizeof(err));
		break;
	case OFFLOAD_DT_BUILTIN:
		r = ofl_dt_load_builtin(&ctx->drv.dt, sim ? sim->board_dtb : NULL,
					sim ? sim->board_dtb_size : 0, err, sizeof(err));
		break;
	case OFFLOAD_DT_BLOB:
		if (!o->dtb_blob)
			return ofl_err(ctx, -EINVAL, "offload_ctx_open: OFFLOAD_DT_BLOB without dtb_blob");
		r = ofl_dt_load_blob(&ctx->drv.dt, o->dtb_blob, o->dtb_size, err, sizeof(err));
		break;
	default:
		return ofl_err(ctx, -EINVAL, "offload_ctx_open: unknown dt_source %d", (int)src);
	}
	if (r < 0)
		return ofl_err(ctx, r, "offload_ctx_open: %s", err[0] ? err : offload_strerror(r));
	if (src == OFFLOAD_DT_BUILTIN)
		ctx->drv.flags |= OFFLOAD_CTX_SIM;
	return 0;
}

/* The platform of an opening context: its tree and, with models, their world. */
static int platform_open(struct offload_ctx *ctx, const struct offload_sim_provider *sim)
{
	char why[OFL_ERRMSG_LEN - 64];
	bool nc = (ctx->drv.flags & OFFLOAD_CTX_SIM_NONCOHERENT) != 0;
	int r = ofl_platform_open(&ctx->drv.plat, ctx->drv.dt.fdt, ctx->drv.sim ? sim : NULL, nc, why,
				  sizeof(why));

	return r < 0 ? ofl_err(ctx, r, "offload_ctx_open: %s", why) : 0;
}

/*
 * Close the context. In a forked child (ofl_ctx_inherited) the backends are
 * not called: their threads exist only in the parent, which would make a
 * join wait forever, and their engines are still the parent's, whose
 * channels a teardown would stop. The child then releases only what the core
 * owns; the backends' memory, mappings and descriptors stay until it exits
 * or execs (descriptors are close-on-exec), as do the handles still open.
 */
static void ctx_teardown(struct offload_ctx *ctx)
{
	bool inherited = ofl_ctx_inherited(ctx);

	for (int i = ctx->drv.ndev - 1; i >= 0; i--) {
		struct ofl_device *d = ctx->drv.devs[i];
		if (!inherited && d->backend && d->backend->remove)
			d->backend->remove(d);
		free(d->dt_path_mem);
		free(d);
		ctx->drv.devs[i] = NULL;
	}
	ctx->drv.ndev = 0;
	free(ctx->drv.claims);
	ctx->drv.claims = NULL;
	ctx->drv.nclaims = ctx->drv.claims_cap = 0;
	ctx->note[0] = '\0';
	for (int i = ctx->nbackends - 1; i >= 0; i--) {
		struct ofl_backend_slot *s = &ctx->backends[i];
		if (!inherited && s->present && s->be->fini)
			s->be->fini(ctx, s->state);
		memset(s, 0, sizeof(*s));
	}
	ctx->nbackends = 0;
	ofl_platform_close(&ctx->drv.plat, inherited); /* a forked child leaves the parent's world alone */
	ofl_dt_free(&ctx->drv.dt);
	ctx->cpu_dev = ctx->memcpy_dev = -1;
	ctx->memcpy_small = ctx->memcpy_big = NULL;
	ctx->memcpy_threshold = 0;
	ctx->drv.fast.memcpy_inline_max = 0;
	for (size_t i = 0; i < OFL_ARRAY_SIZE(ctx->crypto_pick); i++)
		atomic_store_explicit(&ctx->crypto_pick[i], 0, memory_order_relaxed);
	ctx->sim_auto = ctx->dt_fallback = false;
	if (inherited) {
		/* Forget the handles (see above); the list lock may be held by a parent's thread. */
		ctx->handles.next = ctx->handles.prev = &ctx->handles;
		ctx->nhandles = 0;
		pthread_mutex_init(&ctx->lock, NULL);
		ctx->drv.dmabufs = NULL;
		atomic_store(&ctx->drv.ndmabufs, 0);
		pthread_mutex_init(&ctx->drv.dmabuf_lock, NULL);
	}
	ctx->open = false;
}

static bool can_copy(const struct ofl_device *d)
{
	return d->backend && d->backend->memcpy && d->backend->memcpy->copy &&
	       (d->policy.caps & OFFLOAD_CAP_MEMCPY);
}

/*
 * Models the caller did not ask for (AUTO fell back to the built-in virtual
 * board) stay listed and usable by index, but never become the automatic
 * choice: a program on a machine without the engines must measure its CPU.
 */
bool ofl_ctx_auto_ok(const struct offload_ctx *ctx, const struct ofl_device *d)
{
	return !d->sim || !ctx->sim_auto;
}

static bool auto_choice_ok(struct offload_ctx *ctx, struct ofl_device *d)
{
	if (ofl_ctx_auto_ok(ctx, d))
		return true;
	size_t n = strlen(d->usable_reason);
	snprintf(d->usable_reason + n, sizeof(d->usable_reason) - n,
		 "; not chosen automatically: its model was attached only because no device tree was "
		 "given or live (pass --sim or OFFLOAD_SIM=1 to use it)");
	return false;
}

static void choose_defaults(struct offload_ctx *ctx)
{
	struct ofl_device *cpu = ctx->cpu_dev >= 0 ? ctx->drv.devs[ctx->cpu_dev] : NULL;

	if (cpu && !can_copy(cpu))
		cpu = NULL;
	ctx->memcpy_dev = cpu ? cpu->index : -1;
	for (int i = 0; i < ctx->drv.ndev; i++) {
		struct ofl_device *d = ctx->drv.devs[i];
		/* every model AUTO attached says so, crypto ones too (crypto.c asks ofl_ctx_auto_ok) */
		if (!d->backend || !auto_choice_ok(ctx, d))
			continue;
		d->info.flags |= OFFLOAD_DEVF_AUTO;
		if (i == ctx->cpu_dev)
			continue;
		if (ctx->memcpy_dev == (cpu ? cpu->index : -1) && can_copy(d))
			ctx->memcpy_dev = i;
	}
	/* offload_memcpy(): small copies on the CPU, the rest on the chosen device. */
	ctx->memcpy_big = ctx->memcpy_dev >= 0 ? ctx->drv.devs[ctx->memcpy_dev] : NULL;
	ctx->memcpy_small = cpu ? cpu : ctx->memcpy_big;
	ctx->memcpy_threshold = ctx->memcpy_small == ctx->memcpy_big
					? UINT64_MAX /* one device: no size test needed */
					: ctx->memcpy_big->policy.threshold_bytes;
	/* offload_memcpy()'s fast path: what the CPU device would run as a plain memcpy(). */
	ctx->drv.fast.memcpy_inline_max = 0;
	if (cpu && ctx->memcpy_small == cpu && cpu->backend->memcpy->inline_below) {
		uint64_t below = OFL_MIN((uint64_t)cpu->backend->memcpy->inline_below(cpu),
					 ctx->memcpy_threshold);
		/* below 2^62, which the fast path's overlap test needs */
		ctx->drv.fast.memcpy_inline_max = below ? (size_t)OFL_MIN(below - 1, (uint64_t)SIZE_MAX >> 2) : 0;
	}
}

/*
 * The options in effect: the caller's (as far as its size reaches), the
 * environment's OFFLOAD_SIM and OFFLOAD_BACKENDS over them unless
 * OFFLOAD_CTX_NO_ENV; *env_dtb gets OFFLOAD_DTB for load_dt().
 */
static int read_options(struct offload_ctx *ctx, const struct offload_ctx_opts *opts,
			struct offload_ctx_opts *o, const char **env_dtb)
{
	const char *env_be = NULL, *env_sim = NULL;

	*env_dtb = NULL;
	offload_ctx_opts_init(o);
	if (opts) {
		/* the options as 0.1.0 laid them out, before sim_provider (its callers pass that size) */
		const size_t v0 = offsetof(struct offload_ctx_opts, sim_provider);
		if (opts->size < v0)
			return ofl_err(ctx, -EINVAL,
				       "offload_ctx_open: opts->size %u is smaller than this library's "
				       "options (%zu); use offload_ctx_opts_init()",
				       opts->size, sizeof(*o));
		if (opts->size > v0 && opts->size < sizeof(*o))
			return ofl_err(ctx, -EINVAL,
				       "offload_ctx_open: opts->size %u ends inside a field: neither this "
				       "library's options (%zu) nor an older layout (%zu); use "
				       "offload_ctx_opts_init()", opts->size, sizeof(*o), v0);
		memcpy(o, opts, OFL_MIN((size_t)opts->size, sizeof(*o)));
		o->size = (uint32_t)sizeof(*o);
	}
	if (o->flags & ~OFL_CTX_KNOWN_FLAGS)
		return ofl_err(ctx, -EINVAL, "offload_ctx_open: unknown flags 0x%x",
			       o->flags & ~OFL_CTX_KNOWN_FLAGS);
	ctx->drv.flags = o->flags;
	if (!(o->flags & OFFLOAD_CTX_NO_ENV)) {
		*env_dtb = getenv("OFFLOAD_DTB");
		env_be = getenv("OFFLOAD_BACKENDS");
		env_sim = getenv("OFFLOAD_SIM");
	}
	/* every OFFLOAD_* variable, one parser (src/util/env.c): a typo is refused, never ignored */
	char why[OFL_REASON_LEN];
	if (ofl_env_check(o->flags & OFFLOAD_CTX_NO_ENV, why, sizeof(why)) < 0)
		return ofl_err(ctx, -EINVAL, "offload_ctx_open: %s", why);
	if (env_sim && ofl_env_bool(env_sim) == 1)
		ctx->drv.flags |= OFFLOAD_CTX_SIM;
	const char *allow = (env_be && *env_be) ? env_be : (o->backends ? o->backends : "");
	if (strlen(allow) >= sizeof(ctx->allow))
		return ofl_err(ctx, -EINVAL, "offload_ctx_open: backend allow-list too long");
	int r = check_allow_list(ctx, allow);
	if (r < 0)
		return r;
	ofl_strlcpy(ctx->allow, allow, sizeof(ctx->allow));
	return 0;
}

/* init() every allowed backend, then add the devices they offer without a tree. */
static int start_backends(struct offload_ctx *ctx)
{
	for (int i = 0; ofl_backends[i]; i++) {
		const struct ofl_backend *be = ofl_backends[i];
		struct ofl_backend_slot *s = &ctx->backends[ctx->nbackends++];
		s->be = be;
		if (!ofl_ctx_backend_allowed(ctx, be->name)) {
			snprintf(s->why, sizeof(s->why), "excluded by the backend allow-list \"%.150s\"",
				 ctx->allow);
			continue;
		}
		if (be->init) {
			int r = be->init(ctx, &s->state, s->why, sizeof(s->why));
			if (r < 0) {
				if (!s->why[0])
					snprintf(s->why, sizeof(s->why), "unavailable: %s", offload_strerror(r));
				continue;
			}
		}
		s->present = true;
	}
	for (int i = 0; i < ctx->nbackends; i++) {
		struct ofl_backend_slot *s = &ctx->backends[i];
		int r;
		if (s->present && s->be->pseudo && (r = add_pseudo(ctx, s)) < 0)
			return r;
	}
	return 0;
}

OFFLOAD_API int offload_ctx_open(offload_ctx *ctx, const struct offload_ctx_opts *opts)
{
	struct offload_ctx_opts o;
	const struct offload_sim_provider *sim = NULL;
	const char *env_dtb, *path;
	int r;

	if (!ctx)
		return ofl_err(NULL, -EINVAL, "offload_ctx_open: context is NULL");
	if (ctx->magic != OFL_CTX_MAGIC)
		return ofl_err(NULL, -EINVAL, "offload_ctx_open: not a liboffload context");
	if (ctx->open)
		return ofl_err(ctx, -EBUSY, "offload_ctx_open: context is already open");

	ctx->fork_gen = atomic_load_explicit(&ofl_fork_gen, memory_order_relaxed);
	ctx->pid = (int)getpid();
	r = read_options(ctx, opts, &o, &env_dtb);
	if (r < 0)
		return r;
	r = sim_provider(ctx, &o, dt_source(&o, env_dtb, &path), &sim);
	if (r < 0)
		return r;
	r = load_dt(ctx, &o, env_dtb, sim);
	if (r < 0)
		goto fail;
	ctx->drv.sim = (ctx->drv.flags & OFFLOAD_CTX_SIM) != 0;
	r = platform_open(ctx, sim);
	if (r < 0)
		goto fail;
	ctx->open = true; /* backends may call ofl_ctx_check() from here on */
	r = start_backends(ctx);
	if (r < 0)
		goto fail;
	r = discover(ctx);
	if (r < 0)
		goto fail;
	for (int i = 0; i < ctx->drv.ndev; i++)
		if (ctx->drv.devs[i]->node >= 0)
			bind_device(ctx, ctx->drv.devs[i]);
	for (int i = 0; i < ctx->drv.ndev; i++)
		device_publish(ctx->drv.devs[i]);
	choose_defaults(ctx);
	ofl_err_clear(ctx);
	return 0;
fail:
	ctx_teardown(ctx);
	return r;
}

OFFLOAD_API int offload_ctx_close(offload_ctx *ctx)
{
	int r = ofl_ctx_check(ctx, "offload_ctx_close");

	if (r < 0 && ctx && ctx->magic == OFL_CTX_MAGIC && ctx->open && ofl_ctx_inherited(ctx)) {
		ctx_teardown(ctx); /* a forked child: see ctx_teardown() */
		ofl_err_clear(ctx);
		return 0;
	}
	if (r < 0)
		return r;
	pthread_mutex_lock(&ctx->lock);
	int n = ctx->nhandles;
	const char *what = n ? ctx->handles.next->what : "";
	pthread_mutex_unlock(&ctx->lock);
	if (n)
		return ofl_err(ctx, -EBUSY, "offload_ctx_close: %d handle(s) still open (first: %s)", n,
			       what);
	ctx_teardown(ctx);
	return 0;
}

OFFLOAD_API void offload_ctx_free(offload_ctx *ctx)
{
	if (!ctx || ctx->magic != OFL_CTX_MAGIC)
		return;
	if (ctx->open && ofl_ctx_inherited(ctx))
		ctx_teardown(ctx); /* a forked child: forget the handles, call no backend */
	for (;;) {
		pthread_mutex_lock(&ctx->lock);
		struct ofl_handle *h = ctx->nhandles ? ctx->handles.next : NULL;
		pthread_mutex_unlock(&ctx->lock);
		if (!h)
			break;
		h->destroy(h); /* unlinks itself via ofl_ctx_handle_del() */
	}
	if (ctx->open)
		ctx_teardown(ctx);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_lock(&all_lock);
	if (ctx->all_prev)
		ctx->all_prev->all_next = ctx->all_next;
	else
		all_head = ctx->all_next;
	if (ctx->all_next)
		ctx->all_next->all_prev = ctx->all_prev;
	pthread_mutex_unlock(&all_lock);
	ofl_err_forget(ctx);
	ofl_drv_ctx_fini(&ctx->drv);
	ctx->magic = 0;
	free(ctx);
}

OFFLOAD_API const char *offload_ctx_dt_source(const offload_ctx *ctx)
{
	if (!ctx || ctx->magic != OFL_CTX_MAGIC || !ctx->open)
		return NULL;
	return ctx->drv.dt.source;
}

/* The flags in effect of an open context. */
static uint32_t flags_in_effect(const offload_ctx *ctx)
{
	uint32_t f = ctx->drv.flags & ~(uint32_t)OFFLOAD_CTX_SIM;

	if (ctx->drv.sim && !ctx->sim_auto)
		f |= OFFLOAD_CTX_SIM;
	if (ctx->dt_fallback)
		f |= OFFLOAD_CTX_DT_FALLBACK;
	return f;
}

OFFLOAD_API uint32_t offload_ctx_flags(const offload_ctx *ctx)
{
	if (!ctx || ctx->magic != OFL_CTX_MAGIC || !ctx->open)
		return 0;
	return flags_in_effect(ctx);
}

OFFLOAD_API int offload_ctx_get_flags(const offload_ctx *ctx, uint32_t *flags)
{
	if (flags)
		*flags = 0; /* never a stale value on failure */
	int r = ofl_ctx_check(ctx, "offload_ctx_get_flags");
	if (r < 0)
		return r;
	if (!flags)
		return ofl_err(ctx, -EINVAL, "offload_ctx_get_flags: flags is NULL");
	*flags = flags_in_effect(ctx);
	return 0;
}

void ofl_ctx_handle_add(struct offload_ctx *ctx, struct ofl_handle *h, const char *what,
			void (*destroy)(struct ofl_handle *h))
{
	h->what = what;
	h->destroy = destroy;
	pthread_mutex_lock(&ctx->lock);
	h->next = &ctx->handles;
	h->prev = ctx->handles.prev;
	ctx->handles.prev->next = h;
	ctx->handles.prev = h;
	ctx->nhandles++;
	pthread_mutex_unlock(&ctx->lock);
}

void ofl_ctx_handle_del(struct offload_ctx *ctx, struct ofl_handle *h)
{
	pthread_mutex_lock(&ctx->lock);
	if (h->next) {
		h->prev->next = h->next;
		h->next->prev = h->prev;
		h->next = h->prev = NULL;
		ctx->nhandles--;
	}
	pthread_mutex_unlock(&ctx->lock);
}
