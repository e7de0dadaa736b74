/* SPDX-License-Identifier: MIT */
/*
 * The built-in "virtual board": a device tree that liboffload-sim carries
 * with its models (struct offload_sim_provider.board_dtb). src/dt only
 * loads the blob it is given and names its source.
 */
#include <errno.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"
#include "util/util.h"

int ofl_dt_load_builtin(struct ofl_dt *dt, const void *blob, size_t size, char *err, size_t errlen)
{
	char why[400] = "";

	if (!blob) {
		memset(dt, 0, sizeof(*dt));
		ofl_dt_seterr(err, errlen, "no built-in device tree: the virtual board comes with "
			      "liboffload-sim's models, and there are none");
		return -ENOTSUP;
	}
	int r = ofl_dt_load_blob(dt, blob, size, why, sizeof(why));
	if (r < 0) {
		ofl_dt_seterr(err, errlen, "the built-in virtual board is invalid: %s", why);
		return r;
	}
	ofl_strlcpy(dt->source, "builtin:virtual-board", sizeof(dt->source));
	return 0;
}
