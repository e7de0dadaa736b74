/* SPDX-License-Identifier: MIT */
/*
 * Devices on the DSPI model's chip selects, clocked bit by bit so that the
 * controller's frame size, bit order and packing are exercised exactly as
 * on the wire:
 *  - a loopback wire (MISO = MOSI while selected);
 *  - a JEDEC SPI-NOR flash: an 8-bit shift register sampling MOSI MSB
 *    first and driving MISO MSB first, a command state machine reset at
 *    every chip-select assertion (JESD216 / the parts' datasheets: READ ID
 *    9Fh, READ 03h, FAST READ 0Bh with one dummy byte, RDSR 05h, WREN 06h,
 *    WRDI 04h, PAGE PROGRAM 02h within one 256-byte page and SECTOR ERASE
 *    20h of 4 KiB, both requiring WEL and taking effect when CS rises after
 *    a whole byte, as the datasheets specify). Program and erase complete at
 *    once (WIP never reads 1) [model choice].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "sim/dspi_int.h"

#define NOR_ARRAY_MAX (64u << 10)
#define NOR_SR_WEL 0x02u

/* ------------------------------------------------------------- loopback */

static void lb_select(struct dspi_dev *d, bool on)
{
	OFL_UNUSED(d);
	OFL_UNUSED(on);
}

static struct dspi_bit lb_bit(struct dspi_dev *d, unsigned mosi, unsigned mode)
{
	OFL_UNUSED(d);
	OFL_UNUSED(mode);
	return (struct dspi_bit){ .miso = mosi, .driven = true };
}

static void lb_destroy(struct dspi_dev *d)
{
	free(d);
}

static const struct dspi_dev_ops lb_ops = { lb_select, lb_bit, lb_destroy };

struct dspi_dev *dspi_loopback_new(bool cs_high)
{
	struct dspi_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->ops = &lb_ops;
	d->cs_high = cs_high;
	ofl_strlcpy(d->name, "loopback", sizeof(d->name));
	return d;
}

/* ------------------------------------------------------------- SPI-NOR */

enum nor_state {
	NOR_OPCODE,  /* the first byte after CS asserts */
	NOR_RDID,    /* shifting out the ID */
	NOR_ADDR,    /* collecting 3 address bytes */
	NOR_DUMMY,   /* FAST READ's dummy byte */
	NOR_DATA,    /* READ / FAST READ output */
	NOR_RDSR,    /* status register, repeated */
	NOR_PROGRAM, /* page program data */
	NOR_ERASE,   /* sector erase address complete, waiting for CS to rise */
	NOR_IGNORE,  /* nothing more until CS rises */
};

struct nor {
	struct dspi_dev dev;
	uint8_t id[3];
	uint32_t size;          /* the part's size in bytes */
	uint8_t *mem;           /* the first `msize` bytes */
	uint32_t msize;
	uint8_t sr;             /* status register (WEL) */
	/* per selection */
	enum nor_state st;
	uint8_t op, in, out, nbits, idx, need;
	bool out_driven, garbled;
	uint32_t addr;
	uint8_t page[256];
	uint16_t npage;
};

static uint8_t nor_read(const struct nor *n, uint32_t a)
{
	a %= n->size;
	return a < n->msize ? n->mem[a] : 0xFFu;
}

static void nor_select(struct dspi_dev *d, bool on)
{
	struct nor *n = (struct nor *)d;

	if (!on && n->nbits == 0) {
		/* CS rises after whole bytes: program / erase take effect */
		if (n->st == NOR_PROGRAM && n->npage && (n->sr & NOR_SR_WEL)) {
			uint32_t base = (n->addr % n->size) & ~0xFFu;
			for (uint32_t j = 0; j < 256; j++)
				if (base + j < n->msize)
					n->mem[base + j] &= n->page[j]; /* programming only clears bits */
			n->sr &= (uint8_t)~NOR_SR_WEL;
		} else if (n->st == NOR_ERASE && (n->sr & NOR_SR_WEL)) {
			uint32_t base = (n->addr % n->size) & ~0xFFFu;
			for (uint32_t a = base; a < base + 4096u && a < n->msize; a++)
				n->mem[a] = 0xFFu;
			n->sr &= (uint8_t)~NOR_SR_WEL;
		}
	}
	n->st = NOR_OPCODE;
	n->nbits = 0;
	n->in = 0;
	n->out = 0xFFu;
	n->out_driven = false;
	n->garbled = false;
	n->npage = 0;
	n->addr = 0;
}

/* A whole byte arrived: decide what the next byte out is. */
static void nor_byte(struct nor *n, uint8_t b)
{
	switch (n->st) {
	case NOR_OPCODE:
		n->op = b;
		n->out_driven = false;
		switch (b) {
		case 0x9F:
			n->st = NOR_RDID;
			n->idx = 0;
			n->out = n->id[0];
			n->out_driven = true;
			break;
		case 0x03: case 0x0B: case 0x02: case 0x20:
			n->st = NOR_ADDR;
			n->need = 3;
			break;
		case 0x05:
			n->st = NOR_RDSR;
			n->out = n->sr;
			n->out_driven = true;
			break;
		case 0x06:
			n->sr |= NOR_SR_WEL;
			n->st = NOR_IGNORE;
			break;
		case 0x04:
			n->sr &= (uint8_t)~NOR_SR_WEL;
			n->st = NOR_IGNORE;
			break;
		default:
			n->st = NOR_IGNORE;
			break;
		}
		break;
	case NOR_RDID:
		n->idx++;
		n->out = n->idx < 3 ? n->id[n->idx] : 0x00u;
		break;
	case NOR_ADDR:
		n->addr = (n->addr << 8 | b) & 0xFFFFFFu;
		if (--n->need)
			break;
		if (n->op == 0x03) {
			n->st = NOR_DATA;
			n->out = nor_read(n, n->addr);
			n->out_driven = true;
		} else if (n->op == 0x0B) {
			n->st = NOR_DUMMY;
		} else if (n->op == 0x02) {
			n->st = NOR_PROGRAM;
			memset(n->page, 0xFF, sizeof(n->page));
		} else {
			n->st = NOR_ERASE;
		}
		break;
	case NOR_DUMMY:
		n->st = NOR_DATA;
		n->out = nor_read(n, n->addr);
		n->out_driven = true;
		break;
	case NOR_DATA:
		n->addr++;
		n->out = nor_read(n, n->addr);
		break;
	case NOR_RDSR:
		n->out = n->sr;
		break;
	case NOR_PROGRAM:
		/* within one page: past its end the address wraps to the page start */
		n->page[(n->addr + n->npage) & 0xFFu] = b;
		if (n->npage < 256)
			n->npage++;
		else
			n->addr++; /* more than a page: the last 256 bytes count */
		break;
	case NOR_ERASE: /* more bytes after the address: the command is void */
		n->st = NOR_IGNORE;
		break;
	case NOR_IGNORE:
		break;
	}
}

static struct dspi_bit nor_bit(struct dspi_dev *d, unsigned mosi, unsigned mode)
{
	struct nor *n = (struct nor *)d;
	struct dspi_bit r = { .miso = 1 };

	if (mode == 1 || mode == 2)
		n->garbled = true; /* samples on rising edges only: modes 0 and 3 */
	if (n->garbled) {
		r.mode_err = true;
		return r;
	}
	r.driven = n->out_driven;
	r.miso = (n->out >> (7u - n->nbits)) & 1u;
	n->in = (uint8_t)(n->in << 1 | (mosi & 1u));
	if (++n->nbits == 8) {
		n->nbits = 0;
		nor_byte(n, n->in);
		n->in = 0;
	}
	return r;
}

static void nor_destroy(struct dspi_dev *d)
{
	struct nor *n = (struct nor *)d;

	free(n->mem);
	free(n);
}

static const struct dspi_dev_ops nor_ops = { nor_select, nor_bit, nor_destroy };

struct dspi_dev *dspi_nor_new(const char *part, const uint8_t id[3], uint32_t size, bool cs_high)
{
	struct nor *n = calloc(1, sizeof(*n));

	if (!n || !size)
		goto fail;
	n->size = size;
	n->msize = size < NOR_ARRAY_MAX ? size : NOR_ARRAY_MAX;
	n->mem = malloc(n->msize);
	if (!n->mem)
		goto fail;
	memset(n->mem, 0xFF, n->msize);
	memcpy(n->id, id, 3);
	n->dev.ops = &nor_ops;
	n->dev.cs_high = cs_high;
	ofl_strlcpy(n->dev.name, part ? part : "spi-nor", sizeof(n->dev.name));
	nor_select(&n->dev, false);
	return &n->dev;
fail:
	if (n)
		free(n->mem);
	free(n);
	return NULL;
}

bool dspi_dev_is_nor(const struct dspi_dev *d)
{
	return d->ops == &nor_ops;
}

int dspi_nor_io(struct dspi_dev *d, bool write, uint32_t addr, void *buf, size_t len)
{
	struct nor *n = (struct nor *)d;

	if (addr > n->msize || len > n->msize - addr)
		return -ERANGE;
	if (write)
		memcpy(n->mem + addr, buf, len);
	else
		memcpy(buf, n->mem + addr, len);
	return 0;
}
