/* SPDX-License-Identifier: MIT */
/*
 * Per-thread, per-context error messages, as every layer above records them
 * (src/core reads them back: offload_last_error()).
 *
 * Each thread keeps a table of messages, one entry per context that failed
 * on it (keyed by the context's id, never reused), so threads sharing a
 * context never see each other's errors, a stale message of another context
 * is never shown, and a failure on one context leaves every other context's
 * message in place. The table holds at most OFL_ERR_KEEP entries (the least
 * recently written one is replaced past that); it is freed when the thread
 * exits, and offload_ctx_free() frees the freeing thread's entry (its text
 * stays the thread's latest, offload_last_error(NULL), until it is reused).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"

/* Contexts whose messages one thread keeps at once (~0.5 MiB at most). */
#define OFL_ERR_KEEP 1024
#define OFL_ERR_FREE UINT64_MAX

_Thread_local struct ofl_tl_err ofl_tl_err;
/* Used when not even a small table can be allocated: the message still gets through. */
static _Thread_local struct ofl_err_ent spare;

static pthread_key_t tab_key;
static bool tab_key_ok;
static pthread_once_t tab_key_once = PTHREAD_ONCE_INIT;

/* At a thread's exit (a later message then starts a new table). */
static void tab_free(void *tab)
{
	struct ofl_tl_err *t = &ofl_tl_err;

	if (t->tab == tab)
		*t = (struct ofl_tl_err){ 0 };
	free(tab);
}

static void tab_key_make(void)
{
	/* without the key a thread's table lives until exit() */
	tab_key_ok = pthread_key_create(&tab_key, tab_free) == 0;
}

/* Index of ctx id's entry, -1 if none. */
static int find(uint64_t id)
{
	struct ofl_tl_err *t = &ofl_tl_err;

	if (t->cur && t->cur_id == id)
		return t->cur - 1;
	for (int i = 0; i < t->n; i++)
		if (t->tab[i].ctx_id == id)
			return i;
	return -1;
}

/* An entry for id, made (or taken from the least recently written) if there is none. */
static int entry(uint64_t id)
{
	struct ofl_tl_err *t = &ofl_tl_err;
	int i = find(id);

	if (i >= 0)
		return i;
	for (i = 0; i < t->n; i++)
		if (t->tab[i].ctx_id == OFL_ERR_FREE)
			goto take;
	if (t->n == t->cap && t->cap < OFL_ERR_KEEP && t->tab != &spare) {
		int cap = t->cap ? 2 * t->cap : 8;
		struct ofl_err_ent *n = realloc(t->tab, (size_t)cap * sizeof(*n));
		if (n) {
			pthread_once(&tab_key_once, tab_key_make);
			if (tab_key_ok)
				(void)pthread_setspecific(tab_key, n);
			t->tab = n;
			t->cap = cap;
		} else if (!t->cap) {
			t->tab = &spare;
			t->cap = 1;
		}
	}
	if (t->n < t->cap) {
		i = t->n++;
	} else {
		i = 0; /* full: replace the least recently written */
		for (int k = 1; k < t->n; k++)
			if (t->tab[k].seq < t->tab[i].seq)
				i = k;
	}
take:
	t->tab[i].ctx_id = id;
	t->tab[i].msg[0] = '\0';
	if (t->cur == i + 1)
		t->cur = 0; /* it was another context's */
	if (t->last == i + 1)
		t->last = 0;
	return i;
}

int ofl_err_struct_size(const struct offload_ctx *ctx, const char *func, const char *arg,
			const char *type, const char *ptr, size_t size)
{
	return ofl_err(ctx, -EINVAL, "%s: %s %zu is more than any struct %s will have (%u bytes): pass "
		       "sizeof(*%s)", func, arg, size, type, OFL_STRUCT_SIZE_MAX, ptr);
}

int ofl_err(const struct offload_ctx *ctx, int err, const char *fmt, ...)
{
	struct ofl_tl_err *t = &ofl_tl_err;
	uint64_t id = ctx ? ofl_drv_c(ctx)->id : 0;
	char msg[OFL_ERRMSG_LEN];
	va_list ap;

	/* formatted first: an argument may be a message of the table, which entry() may move */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int i = entry(id);
	memcpy(t->tab[i].msg, msg, sizeof(msg));
	t->tab[i].seq = ++t->seq;
	t->cur_id = id;
	t->cur = i + 1;
	t->last = i + 1;
	return err;
}

const char *ofl_err_msg(const struct offload_ctx *ctx)
{
	struct ofl_tl_err *t = &ofl_tl_err;

	if (!ctx)
		return t->last ? t->tab[t->last - 1].msg : "";
	int i = find(ofl_drv_c(ctx)->id);
	return i >= 0 ? t->tab[i].msg : "";
}

bool ofl_err_since(const struct offload_ctx *ctx, uint64_t mark)
{
	struct ofl_tl_err *t = &ofl_tl_err;
	int i = find(ctx ? ofl_drv_c(ctx)->id : 0);

	return i >= 0 && t->tab[i].seq > mark;
}

void ofl_err_clear_slow(uint64_t id)
{
	struct ofl_tl_err *t = &ofl_tl_err;
	int i = find(id);

	if (i >= 0)
		t->tab[i].msg[0] = '\0';
	t->cur_id = id; /* the next clear of this context is the inline compare */
	t->cur = i + 1;
}

void ofl_err_forget(const struct offload_ctx *ctx)
{
	struct ofl_tl_err *t = &ofl_tl_err;
	int i = find(ofl_drv_c(ctx)->id);

	if (i < 0)
		return;
	/* the entry is free for another context; its text stays offload_last_error(NULL) until then */
	t->tab[i].ctx_id = OFL_ERR_FREE;
	if (t->cur == i + 1)
		t->cur = 0;
}
