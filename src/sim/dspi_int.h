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
	void (*destroy)(struct dspi_dev *d);
};

struct dspi_dev {
	const struct dspi_dev_ops *ops;
	bool cs_high;      /* the device's chip select is active high (spi-cs-high) */
	char name[24];     /* "loopback" or the flash part */
};

struct dspi_dev *dspi_loopback_new(bool cs_high);
struct dspi_dev *dspi_nor_new(const char *part, const uint8_t id[3], uint32_t size, bool cs_high);
/* Whether d is a NOR flash (dspi_nor_new). */
bool dspi_dev_is_nor(const struct dspi_dev *d);
int dspi_nor_io(struct dspi_dev *d, bool write, uint32_t addr, void *buf, size_t len);

#endif /* OFL_SIM_DSPI_INT_H */
