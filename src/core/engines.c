/* SPDX-License-Identifier: MIT */
/*
 * The engines built into the library, as the core asks them: their match
 * tables for discovery, their policy hooks through src/policy, and which
 * backends may probe which device. Nothing here knows an engine by name.
 */
#include <string.h>

#include "core/internal.h"

/* The match lists of the registry's engines, in probe order; owners[i] is list i's backend. */
static unsigned engine_lists(const struct ofl_dt_id **lists, const struct ofl_backend **owners)
{
	unsigned n = 0;

	for (int i = 0; ofl_backends[i] && n < OFL_MAX_BACKENDS; i++) {
		if (!ofl_backends[i]->match)
			continue;
		lists[n] = ofl_backends[i]->match;
		owners[n++] = ofl_backends[i];
	}
	return n;
}

int ofl_engines_discover(const void *fdt, struct ofl_dt_match *out, int max)
{
	const struct ofl_dt_id *lists[OFL_MAX_BACKENDS];
	const struct ofl_backend *owners[OFL_MAX_BACKENDS];
	unsigned n = engine_lists(lists, owners);

	return ofl_dt_discover(fdt, lists, n, out, max);
}

const struct ofl_dt_id *ofl_engines_lookup(const char *compatible, const struct ofl_backend **engine)
{
	const struct ofl_dt_id *lists[OFL_MAX_BACKENDS];
	const struct ofl_backend *owners[OFL_MAX_BACKENDS];
	unsigned n = engine_lists(lists, owners), which = 0;
	const struct ofl_dt_id *id = ofl_dt_id_lookup(lists, n, compatible, &which);

	if (engine)
		*engine = id ? owners[which] : NULL;
	return id;
}

const struct ofl_backend *ofl_engine_of(const struct ofl_dt_match *m)
{
	const struct ofl_dt_id *lists[OFL_MAX_BACKENDS];
	const struct ofl_backend *owners[OFL_MAX_BACKENDS];
	unsigned n = engine_lists(lists, owners);

	return m && m->list < n ? owners[m->list] : NULL;
}

int ofl_engine_policy(const void *fdt, const struct ofl_dt_match *m, const struct ofl_policy_opts *o,
		      struct ofl_policy *out)
{
	if (!m)
		return out ? (memset(out, 0, sizeof(*out)), -EINVAL) : -EINVAL;
	return ofl_policy_compute(fdt, m->node, ofl_engine_of(m), m->id, o, out);
}

bool ofl_backend_may_probe(const struct ofl_backend *be, const struct ofl_device *d)
{
	if (!be->probe || !d->owner || !d->match)
		return false;
	if (be == d->owner)
		return !(ofl_match_row_of(d->match)->flags & OFL_ROW_LIST_ONLY);
	return (be->serves & d->owner->flags) != 0;
}
