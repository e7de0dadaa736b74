/* SPDX-License-Identifier: MIT */
/* The sim world: memory views and cache-line emulation, bus errors, faults, MMIO blocks. */
#include <string.h>

#include "core/internal.h"
#include "simutil.h"
#include "platform/platform.h"
#include "sim/sim.h"
#include "testutil.h"

static struct ofl_sim *world(bool noncoherent)
{
	struct ofl_sim_opts o = { .noncoherent = noncoherent };
	struct ofl_sim *sim = ofl_sim_create(&o);

	ck_assert_ptr_nonnull(sim);
	return sim;
}

START_TEST(noncoherent_views_move_whole_lines)
{
	struct ofl_sim *sim = world(true);
	size_t line = ofl_sim_cache_line(sim);
	void *cpu;
	uint64_t phys;
	struct ofl_sim_mem *m = ofl_sim_mem_alloc(sim, 4 * line, OFL_SIM_MEM_NONCOHERENT, &cpu, &phys);
	uint8_t *c = cpu, ram[4 * 64 * 4];

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_le(4 * line, sizeof(ram));
	memset(c, 0xA5, 4 * line);
	/* the device still sees the zeroed RAM: nothing was cleaned */
	ck_assert_int_eq(ofl_sim_dma_read(sim, phys, ram, 4 * line), 0);
	for (size_t i = 0; i < 4 * line; i++)
		ck_assert_uint_eq(ram[i], 0);
	/* cleaning one byte of line 1 writes back exactly line 1 */
	ofl_sim_mem_clean(m, line + 3, 1);
	ck_assert_int_eq(ofl_sim_dma_read(sim, phys, ram, 4 * line), 0);
	for (size_t i = 0; i < 4 * line; i++)
		ck_assert_uint_eq(ram[i], (i >= line && i < 2 * line) ? 0xA5 : 0);
	/* the device writes line 2; the CPU sees it only after invalidating */
	memset(ram, 0x3C, line);
	ck_assert_int_eq(ofl_sim_dma_write(sim, phys + 2 * line, ram, line), 0);
	ck_assert_uint_eq(c[2 * line], 0xA5);
	ofl_sim_mem_inval(m, 2 * line + line - 1, 1);
	ck_assert_uint_eq(c[2 * line], 0x3C);
	ck_assert_uint_eq(c[3 * line - 1], 0x3C);
	ck_assert_uint_eq(c[3 * line], 0xA5);
	ofl_sim_mem_free(m);
	ofl_sim_destroy(sim);
}
END_TEST

START_TEST(coherent_view_is_shared)
{
	struct ofl_sim *sim = world(false);
	void *cpu;
	uint64_t phys;
	struct ofl_sim_mem *m = ofl_sim_mem_alloc(sim, 100, OFL_SIM_MEM_COHERENT, &cpu, &phys);
	uint8_t b = 0;

	ck_assert_ptr_nonnull(m);
	((uint8_t *)cpu)[99] = 7;
	ck_assert_int_eq(ofl_sim_dma_read(sim, phys + 99, &b, 1), 0);
	ck_assert_uint_eq(b, 7);
	ofl_sim_mem_free(m);
	ofl_sim_destroy(sim);
}
END_TEST

START_TEST(dma_outside_memory_is_a_bus_error)
{
	struct ofl_sim *sim = world(false);
	void *cpu;
	uint64_t phys;
	struct ofl_sim_mem *m = ofl_sim_mem_alloc(sim, 4096, OFL_SIM_MEM_COHERENT, &cpu, &phys);
	uint8_t buf[64];
	char last[160];

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, NULL, 0), 0);
	/* one byte past the end, and a range straddling the end */
	ck_assert_int_eq(ofl_sim_dma_read(sim, phys + 4096, buf, 1), -EFAULT);
	ck_assert_int_eq(ofl_sim_dma_write(sim, phys + 4096 - 32, buf, 64), -EFAULT);
	ck_assert_int_eq(ofl_sim_dma_copy(sim, phys, phys - 64, 64), -EFAULT);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, last, sizeof(last)), 3);
	ck_assert_ptr_nonnull(strstr(last, "not inside one memory region"));
	/* freed memory is gone from the map */
	ofl_sim_mem_free(m);
	ck_assert_int_eq(ofl_sim_dma_read(sim, phys, buf, 1), -EFAULT);
	ofl_sim_destroy(sim);
}
END_TEST

START_TEST(regions_never_reuse_addresses)
{
	struct ofl_sim *sim = world(false);
	void *c1, *c2;
	uint64_t p1, p2;
	struct ofl_sim_mem *a = ofl_sim_mem_alloc(sim, 100, OFL_SIM_MEM_COHERENT, &c1, &p1);

	ofl_sim_mem_free(a);
	struct ofl_sim_mem *b = ofl_sim_mem_alloc(sim, 100, OFL_SIM_MEM_COHERENT, &c2, &p2);
	ck_assert_uint_gt(p2, p1);
	/* the default window is the J721E high DDR at 0x8_8000_0000 */
	ck_assert_uint_ge(p1, 0x880000000ull);
	ofl_sim_mem_free(b);
	ofl_sim_destroy(sim);
}
END_TEST

START_TEST(fault_skip_count_and_range)
{
	struct ofl_sim *sim = world(true);
	char a[64], b[64];
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_ERROR, .skip = 2, .count = 2, .arg = 9 };
	uint32_t arg = 0;

	ck_assert_int_eq(ofl_sim_fault_set(sim, &f), 0);
	ck_assert(!ofl_sim_fault_take(sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg));
	ck_assert(!ofl_sim_fault_take(sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg));
	ck_assert(ofl_sim_fault_take(sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg));
	ck_assert_uint_eq(arg, 9);
	ck_assert(ofl_sim_fault_take(sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg));
	ck_assert(!ofl_sim_fault_take(sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg));
	ck_assert_uint_eq(ofl_sim_fault_fired(sim, OFL_SIM_FAULT_ERROR), 2);
	/* a range filter: only operations touching a[] */
	struct ofl_sim_fault g = { .kind = OFL_SIM_FAULT_DROP_CLEAN, .count = 1, .cpu = a, .len = sizeof(a) };
	ck_assert_int_eq(ofl_sim_fault_set(sim, &g), 0);
	ck_assert(!ofl_sim_fault_take(sim, OFL_SIM_FAULT_DROP_CLEAN, b, sizeof(b), NULL));
	ck_assert(ofl_sim_fault_take(sim, OFL_SIM_FAULT_DROP_CLEAN, a + 10, 1, NULL));
	ck_assert(!ofl_sim_fault_take(sim, OFL_SIM_FAULT_DROP_CLEAN, a, 1, NULL));
	struct ofl_sim_fault bad = { .kind = OFL_SIM_FAULT_KINDS };
	ck_assert_int_eq(ofl_sim_fault_set(sim, &bad), -EINVAL);
	ofl_sim_destroy(sim);
}
END_TEST

START_TEST(dropped_clean_leaves_ram_stale)
{
	struct ofl_sim *sim = world(true);
	void *cpu;
	uint64_t phys;
	struct ofl_sim_mem *m = ofl_sim_mem_alloc(sim, 256, OFL_SIM_MEM_NONCOHERENT, &cpu, &phys);
	uint8_t v = 0;
	struct ofl_sim_fault f = { .kind = OFL_SIM_FAULT_DROP_CLEAN, .count = 1 };

	memset(cpu, 1, 256);
	ofl_sim_fault_set(sim, &f);
	ofl_sim_mem_clean(m, 0, 256);
	ofl_sim_dma_read(sim, phys, &v, 1);
	ck_assert_uint_eq(v, 0);
	ofl_sim_mem_clean(m, 0, 256);
	ofl_sim_dma_read(sim, phys, &v, 1);
	ck_assert_uint_eq(v, 1);
	ofl_sim_mem_free(m);
	ofl_sim_destroy(sim);
}
END_TEST

static uint32_t last_write;
static uint32_t blk_read32(void *model, unsigned region, uint64_t off)
{
	return (uint32_t)off + region;
}
static void blk_write32(void *model, unsigned region, uint64_t off, uint32_t v)
{
	last_write = v;
}
static const struct ofl_sim_block_ops blk_ops = { .read32 = blk_read32, .write32 = blk_write32 };

START_TEST(mmio_blocks_and_bus_errors)
{
	struct ofl_sim *sim = world(false);
	int model;

	ck_assert_int_eq(ofl_sim_add_block(sim, 0x1000, 0x100, &blk_ops, &model, 5, "t", NULL), 0);
	ck_assert_int_eq(ofl_sim_add_block(sim, 0x10F0, 0x100, &blk_ops, &model, 6, "u", NULL), -EEXIST);
	struct ofl_sim_block *b = ofl_sim_find_block(sim, 0x1000, 0x100);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(ofl_sim_find_block(sim, 0x1000, 0x101));
	ck_assert_uint_eq(ofl_sim_mmio_read32(b, 0x10), 0x15);
	/* 64-bit falls back to two 32-bit accesses, low word first */
	ck_assert_uint_eq(ofl_sim_mmio_read64(b, 0x20), (0x25ull | (0x29ull << 32)));
	ofl_sim_mmio_write32(b, 0x0, 42);
	ck_assert_uint_eq(last_write, 42);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, NULL, 0), 0);
	ck_assert_uint_eq(ofl_sim_mmio_read32(b, 0x100), 0xFFFFFFFFu); /* past the end */
	ck_assert_uint_eq(ofl_sim_mmio_read32(b, 0x2), 0xFFFFFFFFu);   /* misaligned */
	ofl_sim_mmio_write32(b, 0xFE, 1);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, NULL, 0), 3);
	ofl_sim_remove_blocks(sim, &model);
	ck_assert_ptr_null(ofl_sim_find_block(sim, 0x1000, 4));
	ofl_sim_destroy(sim);
}
END_TEST

/*
 * The platform's accessors check the region the device tree declares, not
 * only the model's block: a region smaller than the block (a tree that
 * declares less than the model serves) must not reach registers past it.
 */
START_TEST(mmio_region_smaller_than_block)
{
	struct ofl_sim *sim = world(false);
	struct ofl_mmio m;
	int model;
	char last[160];

	ck_assert_int_eq(ofl_sim_add_block(sim, 0x1000, 0x100, &blk_ops, &model, 5, "t", NULL), 0);
	ck_assert_int_eq(ofl_mmio_map_sim(sim, 0x1000, 0x40, &m), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&m, 0x3C), 0x3C + 5);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, NULL, 0), 0);
	ck_assert_uint_eq(ofl_mmio_read32(&m, 0x40), 0xFFFFFFFFu);          /* the block has it, the region not */
	ck_assert_uint_eq(ofl_mmio_read64(&m, 0x3C), 0xFFFFFFFFFFFFFFFFull); /* straddles the end */
	ck_assert_uint_eq(ofl_mmio_read32(&m, UINT64_MAX - 1), 0xFFFFFFFFu); /* off + 4 wraps */
	last_write = 0;
	ofl_mmio_write32(&m, 0x40, 9);
	ofl_mmio_write64(&m, 0x3C, 9);
	ck_assert_uint_eq(last_write, 0);
	ck_assert_uint_eq(ofl_sim_bus_errors(sim, last, sizeof(last)), 5);
	ck_assert_msg(strstr(last, "write of 8 bytes at t+0x3c: outside the mapped region (0x40 bytes"), "%s",
		      last);
	ofl_mmio_write32(&m, 0x3C, 9);
	ck_assert_uint_eq(last_write, 9);
	ofl_sim_destroy(sim);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim");
	TCase *t = tcase_create("world");

	tcase_add_test(t, noncoherent_views_move_whole_lines);
	tcase_add_test(t, coherent_view_is_shared);
	tcase_add_test(t, dma_outside_memory_is_a_bus_error);
	tcase_add_test(t, regions_never_reuse_addresses);
	tcase_add_test(t, fault_skip_count_and_range);
	tcase_add_test(t, dropped_clean_leaves_ram_stale);
	tcase_add_test(t, mmio_blocks_and_bus_errors);
	tcase_add_test(t, mmio_region_smaller_than_block);
	suite_add_tcase(s, t);
	return test_run(s);
}
