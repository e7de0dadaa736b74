/* SPDX-License-Identifier: MIT */
/* Inside the DSPI model: the devices that sit on its chip selects (dspi_dev.c). */
#ifndef OFL_SIM_DSPI_INT_H
#define OFL_SIM_DSPI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dspi_dev;

/* One SCK cycle's result for a device. */
struct dspi_bit {
	unsigned miso;  /* the level it drives (meaningful when driven) */
	bool driven;    /* false: its output is high-impedance */
	bool mode_err;  /* it does not support the SPI mode it was clocked in */
};

struct dspi_dev_ops {
	/* Chip select became active (on = true) or inactive for this device. */
	void (*select)(struct dspi_dev *d, bool on);
	/* One SCK cycle while selected: MOSI level in, mode = CPOL << 1 | CPHA. */
	struct dspi_bit (*bit)(struct dspi_dev *d, unsigned mosi, unsigned mode);
	/*
	 * One SCK edge outside a frame while selected (SCK moved to a new idle
	 * level, a CPOL change with the chip select held): rising or falling,
	 * with MOSI at `mosi`. NULL: the device has no clock input (a wire).
	 */
	void (*edge)(struct dspi_dev *d, bool rising, unsigned mosi);
	void (*destroy)(struct dspi_dev *d);
};

struct dspi_dev {
	const struct dspi_dev_ops *ops;
	bool cs_high;      /* the device's chip select is active high (spi-cs-high) */
	char name[24];     /* "loopback" or the flash part */
};

struct dspi_dev *dspi_loopback_new(bool cs_high);
/* An 8-bit shift register in SPI mode `mode` (CPOL << 1 | CPHA) and bit order `lsb_first`. */
struct dspi_dev *dspi_echo_new(unsigned mode, bool lsb_first, bool cs_high);
/* Whether d is an echo device (dspi_echo_new); the bytes it received, the last max of them. */
bool dspi_dev_is_echo(const struct dspi_dev *d);
size_t dspi_echo_log(const struct dspi_dev *d, uint8_t *out, size_t max, uint64_t *total,
		     unsigned *partial);
void dspi_echo_clear(struct dspi_dev *d);
struct dspi_dev *dspi_nor_new(const char *part, const uint8_t id[3], uint32_t size, bool cs_high);
/* Whether d is a NOR flash (dspi_nor_new). */
bool dspi_dev_is_nor(const struct dspi_dev *d);
int dspi_nor_io(struct dspi_dev *d, bool write, uint32_t addr, void *buf, size_t len);

#endif /* OFL_SIM_DSPI_INT_H */
