/* SPDX-License-Identifier: MIT */
/*
 * Structural validation of a flattened device tree that names what failed.
 *
 * fdt_check_full() says only "bad structure"; a board maintainer needs the
 * offset and the node. So the header, the memory reservation map and every
 * tag of the structure block are checked here with their offsets. The blob
 * layout is the Devicetree Specification v0.4, chapter 5 (header 5.2,
 * reservation block 5.3, structure block 5.4, strings block 5.5).
 *
 * This walk refuses everything fdt_check_full() refuses, which it used to
 * run after it as a second opinion: that pass walked the 122 KB J721E tree
 * again with a bounds check per name byte and per property (2.4 M of the
 * 5.2 M instructions of a context open, bench/README.md). Besides the spec's
 * layout, libfdt's header check refuses a version below the last compatible
 * one and a blob not 8-byte aligned, and its walk refuses anything but
 * FDT_END after the root node closes; the same rules are checked here.
 * tests/dt/test_dt.c (validate_refuses_what_libfdt_refuses) holds the two
 * to each other on every word of a blob corrupted, and the fuzzer on
 * arbitrary bytes.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dt/dt.h"
#include "dt/dt_int.h"

/* Header field offsets (DT spec 5.2). */
enum {
	H_MAGIC = 0x00,
	H_TOTALSIZE = 0x04,
	H_OFF_STRUCT = 0x08,
	H_OFF_STRINGS = 0x0c,
	H_OFF_RSVMAP = 0x10,
	H_VERSION = 0x14,
	H_LAST_COMP = 0x18,
	H_SIZE_STRINGS = 0x20,
	H_SIZE_STRUCT = 0x24,
	H_LEN_V17 = 0x28,
	H_LEN_V16 = 0x24, /* up to and including size_dt_strings */
};

void ofl_dt_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* State of the structure-block walk, for messages that name the node. */
struct walk {
	const uint8_t *b;
	size_t total;
	uint32_t str_off, str_size;
	const char *names[OFL_DT_MAX_DEPTH];
	int depth;
	char *err;
	size_t errlen;
};

/* Path of the node being walked ("/" for the root, "" outside any node). */
static void walk_path(const struct walk *w, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	if (w->depth == 0)
		return;
	if (w->depth == 1) {
		snprintf(buf, len, "/");
		return;
	}
	for (int i = 1; i < w->depth && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "/%s", w->names[i]);
}

static int walk_fail(const struct walk *w, uint64_t off, const char *fmt, ...) OFL_PRINTF(3, 4);
static int walk_fail(const struct walk *w, uint64_t off, const char *fmt, ...)
{
	char what[200], path[OFL_DT_PATH_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	walk_path(w, path, sizeof(path));
	if (path[0])
		ofl_dt_seterr(w->err, w->errlen, "malformed device tree at offset 0x%llx (in node %s): %s",
			      (unsigned long long)off, path, what);
	else
		ofl_dt_seterr(w->err, w->errlen, "malformed device tree at offset 0x%llx: %s",
			      (unsigned long long)off, what);
	return -EINVAL;
}

/* Length of a NUL-terminated string at b[off] that must end before `end`; -1 if it does not. */
static long str_len_before(const uint8_t *b, uint64_t off, uint64_t end)
{
	if (off >= end)
		return -1;
	const uint8_t *nul = memchr(b + off, 0, (size_t)(end - off));
	return nul ? (long)(nul - (b + off)) : -1;
}

static int check_prop(struct walk *w, uint64_t off, uint64_t end, uint64_t *next)
{
	if (end - off < 12)
		return walk_fail(w, off, "property header (12 bytes) runs past the structure block end 0x%llx",
				 (unsigned long long)end);
	if (w->depth == 0)
		return walk_fail(w, off, "property outside any node");
	uint32_t len = ofl_dt_be32(w->b + off + 4);
	uint32_t nameoff = ofl_dt_be32(w->b + off + 8);
	if (len > end - (off + 12))
		return walk_fail(w, off, "property length %u runs past the structure block end 0x%llx", len,
				 (unsigned long long)end);
	if (nameoff >= w->str_size)
		return walk_fail(w, off, "property name offset %u is outside the strings block (%u bytes)",
				 nameoff, w->str_size);
	if (str_len_before(w->b, (uint64_t)w->str_off + nameoff, (uint64_t)w->str_off + w->str_size) < 0)
		return walk_fail(w, off, "property name at strings offset %u is not NUL-terminated inside "
				 "the strings block", nameoff);
	*next = (off + 12 + len + 3) & ~(uint64_t)3;
	return 0;
}

static int check_begin_node(struct walk *w, uint64_t off, uint64_t end, bool *seen_root,
			    uint64_t *next)
{
	long nl = str_len_before(w->b, off + 4, end);

	if (nl < 0)
		return walk_fail(w, off, "node name is not NUL-terminated before the structure block end");
	const char *name = (const char *)w->b + off + 4;
	if (w->depth == 0) {
		if (*seen_root)
			return walk_fail(w, off, "a second top-level node \"%s\" after the root", name);
		if (nl != 0)
			return walk_fail(w, off, "the root node is named \"%s\" (must be empty)", name);
		*seen_root = true;
	} else if (nl == 0) {
		return walk_fail(w, off, "a node with an empty name");
	}
	if (w->depth >= OFL_DT_MAX_DEPTH)
		return walk_fail(w, off, "nodes nested deeper than %d levels", OFL_DT_MAX_DEPTH);
	w->names[w->depth++] = name;
	*next = (off + 4 + (uint64_t)nl + 1 + 3) & ~(uint64_t)3;
	return 0;
}

/* Walk every tag of the structure block [start, end). */
static int check_struct(struct walk *w, uint64_t start, uint64_t end)
{
	bool seen_root = false;
	uint64_t off = start, next = 0;
	int r;

	for (;;) {
		if (off > end || end - off < 4)
			return walk_fail(w, off, "the structure block ends (0x%llx) without FDT_END",
					 (unsigned long long)end);
		uint32_t tag = ofl_dt_be32(w->b + off);
		/* libfdt's fdt_check_full(): once the root node closed, only FDT_END may follow */
		if (seen_root && w->depth == 0 && tag != FDT_END)
			return walk_fail(w, off, "tag 0x%08x after the root node closed (only FDT_END may "
					 "follow it)", tag);
		switch (tag) {
		case FDT_BEGIN_NODE:
			r = check_begin_node(w, off, end, &seen_root, &next);
			break;
		case FDT_END_NODE:
			if (w->depth == 0)
				return walk_fail(w, off, "FDT_END_NODE without a matching FDT_BEGIN_NODE");
			w->depth--;
			next = off + 4;
			r = 0;
			break;
		case FDT_PROP:
			r = check_prop(w, off, end, &next);
			break;
		case FDT_NOP:
			next = off + 4;
			r = 0;
			break;
		case FDT_END:
			if (w->depth != 0)
				return walk_fail(w, off, "FDT_END while %d node(s) are still open", w->depth);
			if (!seen_root)
				return walk_fail(w, off, "FDT_END before any node: the tree has no root");
			return 0;
		default:
			return walk_fail(w, off, "unknown structure tag 0x%08x", tag);
		}
		if (r < 0)
			return r;
		off = next;
	}
}

/* A block [off, off+size) named `what` must lie inside [hdr, total). */
static int check_block(const char *what, unsigned field, uint32_t off, uint32_t size, uint32_t hdr,
		       uint64_t total, char *err, size_t errlen)
{
	if (off < hdr || (uint64_t)off + size > total) {
		ofl_dt_seterr(err, errlen,
			      "malformed device tree header: the %s [0x%x, +0x%x) (header offset 0x%x) "
			      "is outside the blob [0x%x, 0x%llx)",
			      what, off, size, field, hdr, (unsigned long long)total);
		return -EINVAL;
	}
	return 0;
}

static int check_rsvmap(const uint8_t *b, uint32_t off, uint32_t total, char *err, size_t errlen)
{
	for (uint64_t o = off; ; o += 16) {
		if (o + 16 > total) {
			ofl_dt_seterr(err, errlen,
				      "malformed device tree: the memory reservation map at 0x%x has no "
				      "terminating entry before the end of the blob (0x%x)", off, total);
			return -EINVAL;
		}
		if (ofl_dt_be32(b + o) == 0 && ofl_dt_be32(b + o + 4) == 0 &&
		    ofl_dt_be32(b + o + 8) == 0 && ofl_dt_be32(b + o + 12) == 0)
			return 0;
	}
}

static int check_header(const uint8_t *b, size_t size, char *err, size_t errlen)
{
	if (size < H_LEN_V16) {
		ofl_dt_seterr(err, errlen, "truncated blob: %zu bytes is shorter than an FDT header (%d)",
			      size, H_LEN_V16);
		return -EINVAL;
	}
	uint32_t magic = ofl_dt_be32(b + H_MAGIC);
	if (magic != FDT_MAGIC) {
		ofl_dt_seterr(err, errlen, "not a flattened device tree: magic at offset 0x0 is 0x%08x "
			      "(expected 0x%08x)", magic, FDT_MAGIC);
		return -EINVAL;
	}
	uint32_t version = ofl_dt_be32(b + H_VERSION), last = ofl_dt_be32(b + H_LAST_COMP);
	if (version < 16 || last > 17) {
		ofl_dt_seterr(err, errlen, "unsupported device tree version %u (last compatible %u) at "
			      "offset 0x14: versions 16 and 17 are read", version, last);
		return -EINVAL;
	}
	/* libfdt's fdt_check_header(): a blob cannot be compatible with a later version than its own */
	if (version < last) {
		ofl_dt_seterr(err, errlen, "malformed device tree header: version %u (offset 0x14) is "
			      "below its last compatible version %u (offset 0x18)", version, last);
		return -EINVAL;
	}
	uint32_t hdr = version >= 17 ? H_LEN_V17 : H_LEN_V16;
	uint32_t total = ofl_dt_be32(b + H_TOTALSIZE);
	if (size < hdr) {
		ofl_dt_seterr(err, errlen, "truncated blob: %zu bytes is shorter than a version-%u header "
			      "(%u)", size, version, hdr);
		return -EINVAL;
	}
	if (total > size) {
		ofl_dt_seterr(err, errlen, "truncated blob: the header (offset 0x4) says %u bytes, only %zu "
			      "are present", total, size);
		return -EINVAL;
	}
	if (total < hdr) {
		ofl_dt_seterr(err, errlen, "malformed device tree header: totalsize %u (offset 0x4) is "
			      "smaller than the header", total);
		return -EINVAL;
	}
	uint32_t off_struct = ofl_dt_be32(b + H_OFF_STRUCT);
	uint32_t off_str = ofl_dt_be32(b + H_OFF_STRINGS);
	uint32_t off_rsv = ofl_dt_be32(b + H_OFF_RSVMAP);
	uint32_t size_str = ofl_dt_be32(b + H_SIZE_STRINGS);
	uint32_t size_struct = version >= 17 ? ofl_dt_be32(b + H_SIZE_STRUCT) : total - OFL_MIN(total, off_struct);
	int r = check_block("structure block", H_SIZE_STRUCT, off_struct, size_struct, hdr, total, err, errlen);
	if (r == 0)
		r = check_block("strings block", H_SIZE_STRINGS, off_str, size_str, hdr, total, err, errlen);
	if (r == 0)
		r = check_block("memory reservation map", H_OFF_RSVMAP, off_rsv, 0, hdr, total, err, errlen);
	if (r < 0)
		return r;
	/*
	 * The structure and strings blocks are sections of their own
	 * (Devicetree Specification 5.1: header, memory reservation block,
	 * structure block, strings block, in that order). Strings read from
	 * inside the structure block name no property a binding knows, so such
	 * a tree would open with none of its devices and no word why. Version
	 * 16 has no structure size to tell where that block ends.
	 */
	if (version >= 17 && size_struct && size_str &&
	    (uint64_t)off_str < (uint64_t)off_struct + size_struct &&
	    (uint64_t)off_struct < (uint64_t)off_str + size_str) {
		ofl_dt_seterr(err, errlen, "malformed device tree header: the strings block [0x%x, +0x%x) "
			      "(offsets 0xc, 0x20) overlaps the structure block [0x%x, +0x%x) (offsets 0x8, "
			      "0x24)", off_str, size_str, off_struct, size_struct);
		return -EINVAL;
	}
	if (off_struct % 4 || off_rsv % 8) {
		ofl_dt_seterr(err, errlen, "malformed device tree header: the %s offset 0x%x is not %d-byte "
			      "aligned", off_struct % 4 ? "structure block" : "memory reservation map",
			      off_struct % 4 ? off_struct : off_rsv, off_struct % 4 ? 4 : 8);
		return -EINVAL;
	}
	return check_rsvmap(b, off_rsv, total, err, errlen);
}

int ofl_dt_validate(const void *fdt, size_t size, char *err, size_t errlen)
{
	const uint8_t *b = fdt;

	if (!fdt) {
		ofl_dt_seterr(err, errlen, "no blob (NULL)");
		return -EINVAL;
	}
	/* libfdt reads the header's words in place (fdt_ro_probe_()): an 8-byte aligned blob */
	if ((uintptr_t)fdt & 7u) {
		ofl_dt_seterr(err, errlen, "the blob at %p is not 8-byte aligned (libfdt needs it)", fdt);
		return -EINVAL;
	}
	int r = check_header(b, size, err, errlen);
	if (r < 0)
		return r;
	uint32_t total = ofl_dt_be32(b + H_TOTALSIZE);
	uint32_t version = ofl_dt_be32(b + H_VERSION);
	uint32_t off_struct = ofl_dt_be32(b + H_OFF_STRUCT);
	uint32_t size_struct = version >= 17 ? ofl_dt_be32(b + H_SIZE_STRUCT) : total - off_struct;
	struct walk w = {
		.b = b,
		.total = total,
		.str_off = ofl_dt_be32(b + H_OFF_STRINGS),
		.str_size = ofl_dt_be32(b + H_SIZE_STRINGS),
		.err = err,
		.errlen = errlen,
	};
	return check_struct(&w, off_struct, (uint64_t)off_struct + size_struct);
}
