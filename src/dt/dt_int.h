/* SPDX-License-Identifier: MIT */
/* Helpers shared by the files of src/dt only. */
#ifndef OFL_DT_INT_H
#define OFL_DT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* Format a message into err (if given); never fails. */
void ofl_dt_seterr(char *err, size_t errlen, const char *fmt, ...) OFL_PRINTF(3, 4);

/* Big-endian 32-bit load from any alignment. */
static inline uint32_t ofl_dt_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* A u32 property (first cell); false if absent or shorter than 4 bytes. */
bool ofl_dt_prop_u32(const void *fdt, int node, const char *name, uint32_t *val);

/* Does the node have the property (any length; Linux of_property_read_bool)? */
bool ofl_dt_has_prop(const void *fdt, int node, const char *name);

/*
 * The DMA parent of node (Linux __of_get_dma_parent()): the `interconnects`
 * target named "dma-mem" in `interconnect-names`, else -1 (use the parent).
 */
int ofl_dt_dma_mem_target(const void *fdt, int node);

#endif /* OFL_DT_INT_H */
