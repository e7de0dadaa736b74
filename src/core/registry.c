/* SPDX-License-Identifier: MIT */
/*
 * The backend registry: a static table, no plugins. Order is probe
 * preference: for a DT device the first backend that binds serves it
 * (direct drivers before kernel interfaces; the CPU serves pseudo-devices).
 */
#include "core/internal.h"

extern const struct ofl_backend ofl_backend_cpu;
#ifdef OFFLOAD_HAVE_UDMA
extern const struct ofl_backend ofl_backend_udma;
#endif
#ifdef OFFLOAD_HAVE_EIP97
extern const struct ofl_backend ofl_backend_eip97;
#endif
#ifdef OFFLOAD_HAVE_DSPI
extern const struct ofl_backend ofl_backend_dspi;
#endif
#ifdef OFFLOAD_HAVE_KCAPI
extern const struct ofl_backend ofl_backend_kcapi;
#endif
#ifdef OFFLOAD_HAVE_SPIDEV
extern const struct ofl_backend ofl_backend_spidev;
#endif

const struct ofl_backend *const ofl_backends[] = {
	&ofl_backend_cpu,
#ifdef OFFLOAD_HAVE_UDMA
	&ofl_backend_udma,
#endif
#ifdef OFFLOAD_HAVE_EIP97
	&ofl_backend_eip97,
#endif
#ifdef OFFLOAD_HAVE_DSPI
	&ofl_backend_dspi,
#endif
#ifdef OFFLOAD_HAVE_KCAPI
	&ofl_backend_kcapi,
#endif
#ifdef OFFLOAD_HAVE_SPIDEV
	&ofl_backend_spidev,
#endif
	NULL,
};
