/* SPDX-License-Identifier: MIT */
/* Helpers shared by the files of src/dt only. */
#ifndef OFL_DT_INT_H
#define OFL_DT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* Format a message into err (if given); never fails. */
void ofl_dt_seterr(char *err, size_t errlen, const char *fmt, ...) OFL_PRINTF(3, 4);

/* Big-endian 32-bit load from any alignment. */
static inline uint32_t ofl_dt_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}


/*
 * The DMA parent of node (Linux __of_get_dma_parent()): the `interconnects`
 * target named "dma-mem" in `interconnect-names`, else -1 (use the parent).
 */
int ofl_dt_dma_mem_target(const void *fdt, int node);

/* The structure block: its blob offset and length. 0 or -EINVAL. */
int ofl_dt_struct_block(const void *fdt, uint32_t *base, uint32_t *size);

/*
 * Step over the tag at structure offset *off of the block s[0, size): returns
 * the tag (FDT_BEGIN_NODE, ...) and advances *off, or -1 if it is malformed.
 * Faster than libfdt's fdt_next_tag() for whole-tree walks.
 */
int ofl_dt_next_tag(const uint8_t *s, uint32_t size, uint32_t *off);

#endif /* OFL_DT_INT_H */
