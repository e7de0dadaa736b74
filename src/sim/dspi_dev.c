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
 *    once (WIP never reads 1) [model choice];
 *  - an echo device: an 8-bit shift register in its own SPI mode and bit
 *    order (the spi-cpol, spi-cpha and spi-lsb-first of its node), which
 *    answers each byte with the byte it received before (FFh first after
 *    its chip select asserts), the way a shift register chained from MOSI
 *    to MISO does, and logs every whole byte it received. Unlike the wire,
 *    it sees the bit order and the byte order on the wire: a controller
 *    that packs LSB-first bytes into 16- or 32-bit frames in memory order
 *    puts them on the wire reversed, and this device receives them so.
 *
 * The clock seen by a device: each frame bit is one SCK cycle (bit()); an
 * SCK edge outside a frame (the idle level changing with the chip select
 * held, Kinetis SPI_CTAR CPOL: "the peripheral device interpreting the
 * switch of clock polarity as a valid clock edge") reaches edge(). A
 * device samples MOSI on one edge and changes MISO on the other (rising
 * samples in modes 0 and 3, falling in modes 1 and 2): a stray edge of its
 * sampling polarity takes one extra bit in, every later byte one bit off;
 * one of the other polarity moves its output a bit early, and the NOR then
 * neither decodes nor drives until its chip select rises [model choice].
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

static const struct dspi_dev_ops lb_ops = { .select = lb_select, .bit = lb_bit, .destroy = lb_destroy };

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

	if (!on && n->nbits == 0 && !n->garbled) {
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

/* MOSI sampled on a rising edge. */
static void nor_sample(struct nor *n, unsigned mosi)
{
	n->in = (uint8_t)(n->in << 1 | (mosi & 1u));
	if (++n->nbits == 8) {
		n->nbits = 0;
		nor_byte(n, n->in);
		n->in = 0;
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
	nor_sample(n, mosi);
	return r;
}

static void nor_edge(struct dspi_dev *d, bool rising, unsigned mosi)
{
	struct nor *n = (struct nor *)d;

	if (n->garbled)
		return;
	if (rising)
		nor_sample(n, mosi); /* one bit more in: every later byte one bit off */
	else
		n->garbled = true; /* its output a bit early: out of step until CS rises */
}

static void nor_destroy(struct dspi_dev *d)
{
	struct nor *n = (struct nor *)d;

	free(n->mem);
	free(n);
}

static const struct dspi_dev_ops nor_ops = {
	.select = nor_select, .bit = nor_bit, .edge = nor_edge, .destroy = nor_destroy
};

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

/* ------------------------------------------------------------- echo */

#define ECHO_LOG 8192u

struct echo {
	struct dspi_dev dev;
	unsigned mode;          /* CPOL << 1 | CPHA it is built for */
	bool lsb;               /* LSB first */
	/* per selection */
	uint8_t in, nin;        /* the byte coming in and its bits so far */
	uint8_t out, nout;      /* the byte going out and its bits driven so far */
	uint8_t last;           /* the last whole byte in: the next one out */
	bool garbled;           /* clocked in a mode it does not sample in */
	/* since the last clear */
	uint8_t log[ECHO_LOG];
	uint64_t total;
	unsigned partial;       /* deselected with part of a byte in */
};

/* Modes 0 and 3 sample MOSI on rising SCK edges, modes 1 and 2 on falling ones. */
static bool samples_rising(unsigned mode)
{
	return mode == 0 || mode == 3;
}

static void echo_select(struct dspi_dev *d, bool on)
{
	struct echo *e = ofl_container_of(d, struct echo, dev);

	if (!on && e->nin)
		e->partial++;
	e->in = e->nin = e->nout = 0;
	e->out = e->last = 0xFFu;
	e->garbled = false;
}

static void echo_sample(struct echo *e, unsigned mosi)
{
	if (e->lsb)
		e->in = (uint8_t)(e->in | (mosi & 1u) << e->nin);
	else
		e->in = (uint8_t)(e->in << 1 | (mosi & 1u));
	if (++e->nin == 8) {
		e->log[e->total++ % ECHO_LOG] = e->in;
		e->last = e->in;
		e->in = e->nin = 0;
	}
}

static void echo_launch(struct echo *e)
{
	if (++e->nout == 8) {
		e->nout = 0;
		e->out = e->last;
	}
}

static struct dspi_bit echo_bit(struct dspi_dev *d, unsigned mosi, unsigned mode)
{
	struct echo *e = ofl_container_of(d, struct echo, dev);
	struct dspi_bit r = { .miso = 1 };

	if (samples_rising(mode) != samples_rising(e->mode))
		e->garbled = true;
	if (e->garbled) {
		r.mode_err = true;
		return r;
	}
	r.driven = true;
	r.miso = e->lsb ? (e->out >> e->nout) & 1u : (e->out >> (7u - e->nout)) & 1u;
	echo_sample(e, mosi);
	echo_launch(e);
	return r;
}

static void echo_edge(struct dspi_dev *d, bool rising, unsigned mosi)
{
	struct echo *e = ofl_container_of(d, struct echo, dev);

	if (e->garbled)
		return;
	if (rising == samples_rising(e->mode))
		echo_sample(e, mosi);
	else
		echo_launch(e);
}

static void echo_destroy(struct dspi_dev *d)
{
	free(d);
}

static const struct dspi_dev_ops echo_ops = {
	.select = echo_select, .bit = echo_bit, .edge = echo_edge, .destroy = echo_destroy
};

struct dspi_dev *dspi_echo_new(unsigned mode, bool lsb_first, bool cs_high)
{
	struct echo *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->dev.ops = &echo_ops;
	e->dev.cs_high = cs_high;
	e->mode = mode & 3u;
	e->lsb = lsb_first;
	ofl_strlcpy(e->dev.name, "echo", sizeof(e->dev.name));
	echo_select(&e->dev, false);
	return &e->dev;
}

bool dspi_dev_is_echo(const struct dspi_dev *d)
{
	return d->ops == &echo_ops;
}

size_t dspi_echo_log(const struct dspi_dev *d, uint8_t *out, size_t max, uint64_t *total,
		     unsigned *partial)
{
	const struct echo *e = ofl_container_of(d, const struct echo, dev);
	uint64_t have = e->total < ECHO_LOG ? e->total : ECHO_LOG;
	size_t n = (size_t)(have < max ? have : max);

	for (size_t i = 0; i < n; i++)
		out[i] = e->log[(e->total - have + i) % ECHO_LOG];
	if (total)
		*total = e->total;
	if (partial)
		*partial = e->partial;
	return n;
}

void dspi_echo_clear(struct dspi_dev *d)
{
	struct echo *e = ofl_container_of(d, struct echo, dev);

	e->total = 0;
	e->partial = 0;
}
