/* SPDX-License-Identifier: MIT */
/*
 * Tests' reader of the models' register trace (OFFLOAD_SIM_TRACE): start a
 * trace for the worlds created from then on, read its lines back parsed
 * (R32|W32|... 0x<phys> 0x<value> <REGISTER> [unit n] [fw] [bus-error]),
 * and the device tree read here, not by the library: a node's reg entry as
 * a CPU address (every bus's ranges applied) and a .dtb file.
 */
#ifndef OFFLOAD_TEST_SIMTRACE_H
#define OFFLOAD_TEST_SIMTRACE_H

#include <errno.h>
#include <inttypes.h>
#include <libfdt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

struct tline {
	char op[4];         /* R32, W16 ... */
	uint64_t addr, val;
	char reg[64];
	char unit[32];      /* "" when the register belongs to no unit */
	unsigned long idx;
	bool fw, bus_error;
};

struct trace {
	char path[64];
	struct tline *l;
	size_t n;
};

/* A fresh trace file, named in OFFLOAD_SIM_TRACE for the worlds created from now on. */
static inline void trace_start(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "/tmp/offload-trace-XXXXXX");
	int fd = mkstemp(t->path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(setenv("OFFLOAD_SIM_TRACE", t->path, 1), 0);
}

static inline void parse_line(const char *s, struct tline *l)
{
	char rest[3][32] = { "", "", "" };
	int k = sscanf(s, "%3s 0x%" SCNx64 " 0x%" SCNx64 " %63s %31s %31s %31s", l->op, &l->addr, &l->val,
		       l->reg, rest[0], rest[1], rest[2]);
	ck_assert_msg(k >= 4, "malformed trace line: %s", s);
	int r = 0;
	if (k >= 6 && strcmp(rest[0], "fw") != 0 && strcmp(rest[0], "bus-error") != 0) {
		snprintf(l->unit, sizeof(l->unit), "%s", rest[0]);
		char *end;
		l->idx = strtoul(rest[1], &end, 10);
		ck_assert_msg(*end == '\0', "unit index in: %s", s);
		r = 2;
	}
	for (int i = r; i < k - 4; i++) {
		if (strcmp(rest[i], "fw") == 0)
			l->fw = true;
		else if (strcmp(rest[i], "bus-error") == 0)
			l->bus_error = true;
		else
			ck_abort_msg("unexpected token '%s' in: %s", rest[i], s);
	}
}

/* Read what the (closed) worlds wrote, and stop tracing. */
static inline void trace_read(struct trace *t)
{
	char s[256];
	size_t cap = 0;
	FILE *f = fopen(t->path, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(s, sizeof(s), f)) {
		ck_assert_msg(strchr(s, '\n') != NULL, "line too long: %s", s);
		if (t->n == cap) {
			cap = cap ? 2 * cap : 256;
			t->l = realloc(t->l, cap * sizeof(*t->l));
			ck_assert_ptr_nonnull(t->l);
		}
		memset(&t->l[t->n], 0, sizeof(t->l[0]));
		parse_line(s, &t->l[t->n++]);
	}
	fclose(f);
	unlink(t->path);
	unsetenv("OFFLOAD_SIM_TRACE");
}

static inline void trace_free(struct trace *t)
{
	free(t->l);
}

/* reg entry `name` of the node with `compat`, as a CPU physical address (the buses' ranges applied). */
static inline uint64_t dt_reg(const void *fdt, const char *compat, const char *name)
{
	int node = fdt_node_offset_by_compatible(fdt, -1, compat);
	ck_assert_msg(node >= 0, "no %s node", compat);
	int idx = name ? fdt_stringlist_search(fdt, node, "reg-names", name) : 0;
	ck_assert_msg(idx >= 0, "%s: no reg named %s", compat, name);
	int parent = fdt_parent_offset(fdt, node);
	int ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent), len;
	const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
	ck_assert_ptr_nonnull(reg);
	ck_assert_int_ge(len, (idx + 1) * (ac + sc) * 4);
	uint64_t a = 0;
	for (int i = 0; i < ac; i++)
		a = a << 32 | fdt32_to_cpu(reg[idx * (ac + sc) + i]);
	/* up the tree: each bus's ranges (child address, parent address, size) */
	for (int bus = parent; bus > 0; bus = fdt_parent_offset(fdt, bus)) {
		const fdt32_t *rg = fdt_getprop(fdt, bus, "ranges", &len);
		if (!rg || len == 0)
			continue; /* absent (the root) or empty: identity */
		int up = fdt_parent_offset(fdt, bus);
		int cac = fdt_address_cells(fdt, bus), csc = fdt_size_cells(fdt, bus);
		int pac = fdt_address_cells(fdt, up), n = cac + pac + csc;
		bool hit = false;
		for (int e = 0; !hit && (e + 1) * n * 4 <= len; e++) {
			uint64_t c = 0, p = 0, s = 0;
			for (int i = 0; i < cac; i++)
				c = c << 32 | fdt32_to_cpu(rg[e * n + i]);
			for (int i = 0; i < pac; i++)
				p = p << 32 | fdt32_to_cpu(rg[e * n + cac + i]);
			for (int i = 0; i < csc; i++)
				s = s << 32 | fdt32_to_cpu(rg[e * n + cac + pac + i]);
			if (a >= c && a - c < s) {
				a = a - c + p;
				hit = true;
			}
		}
		ck_assert_msg(hit, "%s: 0x%" PRIx64 " outside the ranges of its bus", compat, a);
	}
	return a;
}

static inline void *read_dtb(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	/* libfdt refuses a blob that is not 8-byte aligned (FDT_ERR_ALIGNMENT); a char array
	 * is only byte-aligned, which armhf shows */
	static _Alignas(8) char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_int_eq(fdt_check_header(buf), 0);
	ck_assert_uint_eq(n, fdt_totalsize(buf));
	return buf;
}

#endif
