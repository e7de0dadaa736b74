/* SPDX-License-Identifier: MIT */
/*
 * The built-in "virtual board": a device tree compiled into the library by
 * src/sim (which defines OFFLOAD_HAVE_SIM and provides the blob). Without it,
 * OFFLOAD_DT_BUILTIN is not available.
 */
#include <errno.h>
#include <string.h>

#include "util/util.h"
#include "dt/dt.h"
#include "dt/dt_int.h"

#ifdef OFFLOAD_HAVE_SIM
extern const unsigned char ofl_sim_board_dtb[];
extern const size_t ofl_sim_board_dtb_size;

int ofl_dt_load_builtin(struct ofl_dt *dt, char *err, size_t errlen)
{
	char why[400] = "";
	int r = ofl_dt_load_blob(dt, ofl_sim_board_dtb, ofl_sim_board_dtb_size, why, sizeof(why));

	if (r < 0) {
		ofl_dt_seterr(err, errlen, "the built-in virtual board is invalid: %s", why);
		return r;
	}
	ofl_strlcpy(dt->source, "builtin:virtual-board", sizeof(dt->source));
	return 0;
}
#else
int ofl_dt_load_builtin(struct ofl_dt *dt, char *err, size_t errlen)
{
	memset(dt, 0, sizeof(*dt));
	ofl_dt_seterr(err, errlen, "built without the virtual board (src/sim): no built-in device tree");
	return -ENOTSUP;
}
#endif
