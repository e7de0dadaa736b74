/* SPDX-License-Identifier: MIT */
/*
 * The spidev backend against a real SPI core and controller driver: Linux's
 * spi-imx on the i.MX6Q ECSPI1 of QEMU's sabrelite, which carries an
 * SST25VF016B flash on chip select 0 (hw/arm/sabrelite.c), backed by the
 * image machines/sabrelite.sh makes (sector k holds k + 1). kernel-test.sh
 * --machine sabrelite binds spidev to that chip select and to chip select 1
 * (nothing there) by editing the board's device tree. A plain program: exit
 * 0 pass, 1 failure, 77 no spidev here.
 *
 * The flash's commands are those of the SST25VF016B data sheet (Microchip
 * DS25071): JEDEC-ID 9Fh (BFh 25h 41h), WREN 06h, 4 KiB sector erase 20h,
 * read 03h.
 *
 * The checks, all through offload_spi_transfer():
 *  1. The JEDEC ID.
 *  2. A sector erase; then one read of 12 KiB from address 0: the sector
 *     before as the image has it, the erased one FFh, the one after intact.
 *     Every byte is a transfer of its own (see cmd()), so the backend splits
 *     the read into messages at the real spidev bufsiz
 *     (/sys/module/spidev/parameters/bufsiz, each transfer counted as
 *     ARCH_DMA_MINALIGN bytes) and into calls of 4096 transfers with CS held
 *     between them (cs_change); the kernel refuses a message over bufsiz with
 *     EMSGSIZE, so the split is checked by the real spidev.
 *  3. The spidev behaviours of the DSPI audit (../shared/audits/dspi.md
 *     #122-#138) on the generic spi core: CS released by an empty message
 *     (offload_spi_close after a message that left CS asserted) returns and
 *     does not hang; CS_HIGH is accepted by the core for a native chip select
 *     and reported back; word sizes 8, 16 and 32 transfer, a length that is
 *     not whole words is refused before the kernel.
 *
 * What QEMU 7.2 cannot do: its ECSPI model never drives the flash's chip
 * select (a traced run, -trace 'm25p80_*', shows no m25p80_select event), so
 * the flash sees one endless command stream from reset. Commands of fixed
 * length (JEDEC-ID, WREN, 20h) end by themselves and the next byte is a new
 * command; a read runs on to the end (so it comes last). Programming (02h,
 * ADh), RDSR and EWSR/WRSR end only at a CS edge, so erase + program + read
 * back of the same sector cannot run on this model; the test erases and
 * reads back. On a real board each command needs a CS edge and BUSY polling.
 * Data from QEMU are not timing figures.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <offload/offload.h>

#include "guest.h"

#define SKIP 77
#define FLASH "/dev/spidev0.0"
#define OTHER "/dev/spidev0.1"
#define SECTOR 0x001000u
#define SECTOR_SIZE 4096u

static offload_ctx *ctx;
static offload_spi *flash;

/*
 * One command: cmd (ncmd bytes) out, then nrx bytes in, in ONE call of
 * offload_spi_transfer(); CS released after. Every byte is a transfer of its own:
 * for 8-bit words of more than one byte spi-imx packs four bytes into a FIFO
 * word, most significant first ("dynamic burst", drivers/spi/spi-imx.c
 * spi_imx_setupxfer), while QEMU's model shifts a FIFO word out low byte first
 * (imx_spi_flush_txfifo), which would reverse them. One-byte transfers are
 * exact on both, and they make the backend split a long command at spidev's
 * real bufsiz: each transfer takes ARCH_DMA_MINALIGN (64 bytes on ARMv7) of
 * it, so 64 transfers per SPI_IOC_MESSAGE, CS held across the parts.
 */
static int cmd_part(const uint8_t *c, uint32_t ncmd, uint8_t *rx, uint32_t nrx, bool hold)
{
	struct offload_spi_xfer *x = calloc(ncmd + nrx, sizeof(*x));
	int r = -ENOMEM;

	if (x) {
		for (uint32_t i = 0; i < ncmd; i++)
			x[i] = (struct offload_spi_xfer){ .tx = c + i, .len = 1 };
		for (uint32_t i = 0; i < nrx; i++)
			x[ncmd + i] = (struct offload_spi_xfer){ .rx = rx + i, .len = 1 };
		x[ncmd + nrx - 1].cs_change = hold; /* last transfer: keep CS asserted after the call */
		r = offload_spi_transfer(flash, x, ncmd + nrx);
		free(x);
	}
	return r;
}

/*
 * A call takes at most 4096 transfers (offload_spi_xfer): longer reads go on
 * in further calls with CS held between them (cs_change on the last transfer).
 */
static int cmd(const uint8_t *c, uint32_t ncmd, uint8_t *rx, uint32_t nrx)
{
	const uint32_t step = 4000;
	uint32_t first = nrx < step ? nrx : step;
	int r = cmd_part(c, ncmd, rx, first, nrx > first);

	for (uint32_t done = first; r >= 0 && done < nrx; done += step) {
		uint32_t n = nrx - done < step ? nrx - done : step;
		r = cmd_part(NULL, 0, rx + done, n, done + n < nrx);
	}
	return r;
}

static void wren(void)
{
	uint8_t c = 0x06;

	cmd(&c, 1, NULL, 0);
}

/* The flash image machines/sabrelite.sh gives qemu: sector k holds k + 1;
 * sector SECTOR / 4096 is erased by the test. */
static uint8_t want_at(uint32_t a)
{
	if (a / SECTOR_SIZE == SECTOR / SECTOR_SIZE)
		return 0xff;
	return (uint8_t)(a / SECTOR_SIZE + 1);
}

static void flash_checks(void)
{
	uint8_t c[6], id[6] = { 0 };

	/* 1. JEDEC ID (six bytes: QEMU's model answers the ID and three zero
	 * bytes, then takes the next byte as a command) */
	c[0] = 0x9f;
	CHECK(cmd(c, 1, id, 6) >= 0, "JEDEC-ID: %s", offload_last_error(ctx));
	CHECK(id[0] == 0xbf && id[1] == 0x25 && id[2] == 0x41,
	      "JEDEC ID %02x %02x %02x, the SST25VF016B's is bf 25 41", id[0], id[1], id[2]);
	printf("     JEDEC ID %02x %02x %02x\n", id[0], id[1], id[2]);

	/* 2. WREN, sector erase of the second sector (the model erases at once;
	 * a real part needs RDSR polling of BUSY, and a CS edge after each command) */
	wren();
	c[0] = 0x20;
	c[1] = (uint8_t)(SECTOR >> 16);
	c[2] = (uint8_t)(SECTOR >> 8);
	c[3] = (uint8_t)SECTOR;
	CHECK(cmd(c, 4, NULL, 0) >= 0, "sector erase: %s", offload_last_error(ctx));

	/* 3. read back 12 KiB from 0: sector 0 as the image has it, sector 1
	 * erased, sector 2 untouched; in calls split at bufsiz. The read is the
	 * last command: it runs on until CS rises. */
	uint32_t bufsiz = 0, n = 3 * SECTOR_SIZE;
	FILE *f = fopen("/sys/module/spidev/parameters/bufsiz", "r");
	if (f) {
		if (fscanf(f, "%u", &bufsiz) != 1)
			bufsiz = 0;
		fclose(f);
	}
	CHECK(bufsiz > 0 && bufsiz / 64 < n, "spidev bufsiz %u: the read is not split", bufsiz);
	uint8_t *buf = malloc(n);
	if (!buf) {
		CHECK(0, "no memory");
		return;
	}
	memset(buf, 0x5a, n);
	c[0] = 0x03;
	c[1] = c[2] = c[3] = 0;
	CHECK(cmd(c, 4, buf, n) >= 0, "12 KiB read: %s", offload_last_error(ctx));
	size_t bad = 0;
	for (uint32_t i = 0; i < n; i++)
		bad += buf[i] != want_at(i);
	CHECK(bad == 0, "%zu of %u bytes read back differ (sectors start %02x %02x %02x, want %02x %02x "
	      "%02x)", bad, n, buf[0], buf[SECTOR_SIZE], buf[2 * SECTOR_SIZE], want_at(0),
	      want_at(SECTOR_SIZE), want_at(2 * SECTOR_SIZE));
	if (!bad)
		printf("ok   sector %#x erased, its neighbours intact: 12 KiB read back over spidev "
		       "bufsiz %u (one-byte transfers, %u per message)\n", SECTOR, bufsiz, bufsiz / 64);
	free(buf);
}

static void spidev_behaviours(void)
{
	struct offload_spi_opts o;
	struct offload_spi_info info;
	offload_spi *h = NULL;
	uint8_t w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, r8[8];

	/* CS left asserted by the last transfer, then released by close (an empty message) */
	int mark = failures;
	CHECK(offload_spi_open(ctx, OTHER, NULL, &h) == 0, "open %s: %s", OTHER, offload_last_error(ctx));
	if (h) {
		struct offload_spi_xfer x = { .tx = w, .len = 2, .cs_change = 1 };
		CHECK(offload_spi_transfer(h, &x, 1) == 2, "held message: %s", offload_last_error(ctx));
		CHECK(offload_spi_close(h) == 0, "close (release CS): %s", offload_last_error(ctx));
		h = NULL;
	}
	OK_SINCE(mark, "ok   CS held by a message, released by an empty message: the core returned\n");

	/* CS_HIGH on a native chip select: the core accepts it and reports it */
	mark = failures;
	offload_spi_opts_init(&o);
	o.mode = OFFLOAD_SPI_MODE_0 | OFFLOAD_SPI_CS_HIGH;
	CHECK(offload_spi_open(ctx, OTHER, &o, &h) == 0, "open CS_HIGH: %s", offload_last_error(ctx));
	if (h) {
		CHECK(offload_spi_get_info(h, &info, sizeof(info)) == 0 && (info.mode & OFFLOAD_SPI_CS_HIGH),
		      "CS_HIGH not in effect (mode %#x)", info.mode);
		struct offload_spi_xfer x = { .tx = w, .len = 4 };
		CHECK(offload_spi_transfer(h, &x, 1) == 4, "CS_HIGH message: %s", offload_last_error(ctx));
		offload_spi_close(h);
		h = NULL;
	}
	OK_SINCE(mark, "ok   CS_HIGH accepted and reported by the spi core (spi-imx, native CS)\n");

	/* word sizes */
	static const uint8_t bpws[] = { 8, 16, 32 };
	for (size_t i = 0; i < sizeof(bpws); i++) {
		mark = failures;
		offload_spi_opts_init(&o);
		o.bits_per_word = bpws[i];
		CHECK(offload_spi_open(ctx, OTHER, &o, &h) == 0, "open %u-bit words: %s", bpws[i],
		      offload_last_error(ctx));
		if (!h)
			continue;
		struct offload_spi_xfer x = { .tx = w, .rx = r8, .len = 8 };
		CHECK(offload_spi_transfer(h, &x, 1) == 8, "%u-bit words: %s", bpws[i], offload_last_error(ctx));
		if (bpws[i] > 8) {
			x.len = bpws[i] / 8 + 1;
			CHECK(offload_spi_transfer(h, &x, 1) == -EINVAL, "%u-bit words, %u bytes: not refused",
			      bpws[i], x.len);
		}
		offload_spi_close(h);
		h = NULL;
		OK_SINCE(mark, "ok   %u-bit words transferred%s\n", bpws[i],
			 bpws[i] > 8 ? "; a part word refused" : "");
	}
}

int main(void)
{
	ctx = guest_ctx_open();
	if (!ctx)
		return 1;
	if (offload_spi_open(ctx, FLASH, NULL, &flash) < 0) {
		printf("SKIP: %s: %s\n", FLASH, offload_last_error(ctx));
		offload_ctx_free(ctx);
		return SKIP;
	}
	printf("--- 1-2. the SST25VF016B through %s\n", FLASH);
	flash_checks();
	printf("--- 3. spidev behaviours on the generic spi core (%s)\n", OTHER);
	spidev_behaviours();
	offload_spi_close(flash);
	offload_ctx_free(ctx);
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
