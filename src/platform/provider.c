/* SPDX-License-Identifier: MIT */
/*
 * The platform of a context, and where its simulation provider comes from.
 *
 * liboffload contains no model: the models live in liboffload-sim, reached
 * through the struct offload_sim_provider it hands out
 * (src/platform/sim_provider.h). A program that wants models passes that
 * table in offload_ctx_opts.sim_provider. One that only says so (OFFLOAD_SIM,
 * OFFLOAD_DTB=builtin, OFFLOAD_CTX_SIM, OFFLOAD_DT_BUILTIN) without passing it
 * gets the offload_sim_provider() it already has, if it is linked with
 * liboffload-sim, else dlopen("liboffload-sim.so.0"); without either, the
 * open fails with -ENOTSUP and says what to link.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/platform.h"
#include "util/util.h"

/* SONAME of liboffload-sim (src/sim/CMakeLists.txt). */
#define OFL_SIM_SONAME "liboffload-sim.so.0"

int ofl_platform_sim_check(const struct offload_sim_provider *sim, char *why, size_t wl)
{
	if (sim->abi != OFL_SIM_PROVIDER_ABI || sim->size < sizeof(*sim)) {
		snprintf(why, wl, "the simulation provider (liboffload-sim %s) has ABI %u and %u bytes; "
			 "this liboffload needs ABI %u and %zu bytes: use the liboffload-sim built with it",
			 sim->version ? sim->version : "?", sim->abi, sim->size, OFL_SIM_PROVIDER_ABI,
			 sizeof(*sim));
		return -ENOTSUP;
	}
	return 0;
}

typedef const struct offload_sim_provider *(*provider_fn)(void);

int ofl_platform_sim_find(const struct offload_sim_provider **out, char *why, size_t wl)
{
	/* the program's own: linked with liboffload-sim (shared, or exported from the executable) */
	void *sym = dlsym(RTLD_DEFAULT, "offload_sim_provider");
	const char *err = NULL;

	*out = NULL;
	if (!sym) {
		/* RTLD_NODELETE: its table and functions stay valid for every context that took them */
		void *h = dlopen(OFL_SIM_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
		if (!h)
			err = dlerror();
		else if (!(sym = dlsym(h, "offload_sim_provider")))
			err = "it has no offload_sim_provider()";
	}
	if (!sym) {
		snprintf(why, wl, "register-level models were asked for, but this program was not linked "
			 "with liboffload-sim and %s cannot be loaded (%.200s): link -loffload-sim and pass "
			 "offload_sim_provider() (<offload/sim.h>) in offload_ctx_opts.sim_provider, or "
			 "install liboffload-sim", OFL_SIM_SONAME, err ? err : "?");
		return -ENOTSUP;
	}
	provider_fn fn;
	memcpy(&fn, &sym, sizeof(fn)); /* a data pointer from dlsym() to a function pointer (POSIX) */
	const struct offload_sim_provider *p = fn();
	if (!p) {
		snprintf(why, wl, "liboffload-sim's offload_sim_provider() returned no provider");
		return -ENOTSUP;
	}
	*out = p;
	return 0;
}

int ofl_platform_open(struct ofl_platform *p, const void *fdt, const struct offload_sim_provider *sim,
		      bool noncoherent, char *why, size_t wl)
{
	memset(p, 0, sizeof(*p));
	p->fdt = fdt;
	if (!sim)
		return 0;
	int r = sim->world_new(noncoherent, &p->world, why, wl);
	if (r < 0)
		return r;
	p->sim = sim;
	return 0;
}

void ofl_platform_close(struct ofl_platform *p, bool keep)
{
	if (p->world && !keep)
		p->sim->world_free(p->world);
	memset(p, 0, sizeof(*p));
}
