/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the kernel side of /dev/spidevB.C, for tests only (never
 * built into the library). Test binaries link liboffload.a with
 * -Wl,--wrap=open,--wrap=open64,--wrap=ioctl,--wrap=close so that the
 * library's open/ioctl/close of a registered fake path land here; every
 * other path goes to the real calls, and unregistered /dev/spidev* paths
 * fail with ENOENT so a developer's real devices are never touched.
 *
 * It follows Linux drivers/spi/spidev.c (ioctl decoding, mode masks,
 * WR_MAX_SPEED_HZ's temporary max, split TX/RX bounce buffers of bufsiz
 * with each transfer rounded up to ARCH_DMA_MINALIGN, the INT_MAX checks,
 * release resetting the default speed) and drivers/spi/spi.c (spi_setup's
 * mode-bit rules and max-speed clamp, __spi_validate's defaults and checks,
 * the chip-select rules of spi_transfer_one_message), as summarised in
 * Linux drivers/spi/spidev.c and spi.c. MOSI is looped back to MISO. The wire is recorded
 * as a canonical trace so that tests can compare a split message with the
 * same message sent whole.
 *
 * The DSPI profile (fake_spi_cfg_dspi) behaves as spi-fsl-dspi, whose own
 * dspi_transfer_one_message replaces the generic core's message loop:
 *  - a transfer of len 0, or of 17..24-bit words (3-byte operating words,
 *    which dspi_native_host_to_dev has no case for), leaves a command with
 *    no data that never completes: the message fails with -ETIMEDOUT, as
 *    the driver's poll mode does after 1000 SR reads (its IRQ mode would
 *    block for ever; counted in `stalls`), the wire trace says " STALL",
 *    and the chip select stays as it was (the driver only sets HALT);
 *  - after any failure on the wire (-EIO, -ETIMEDOUT) the chip select is
 *    not released either (HALT only; whether a PCS held by CONT drops is
 *    unconfirmed, audit dspi.md F8);
 *  - SPI_CS_HIGH is accepted and reported on a native chip select, but the
 *    wire stays active-low (dspi_init's MCR.PCSIS): `wire_cs_active_high`;
 *  - with SPI_LSB_FIRST, 8- and 16-bit words packed into 16/32-bit frames
 *    (dspi_setup_accel, the LS1028A's 4-entry FIFO) reach the wire trace in
 *    the order LSBFE shifts them: each frame's bytes (words) last first.
 */
#ifndef TESTS_SPI_FAKESPI_H
#define TESTS_SPI_FAKESPI_H

#include <linux/spi/spidev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mode bits by value (the build host's UAPI header may lack the newer ones). */
#define FK_CPHA 0x1u
#define FK_CPOL 0x2u
#define FK_CS_HIGH 0x4u
#define FK_LSB_FIRST 0x8u
#define FK_3WIRE 0x10u
#define FK_LOOP 0x20u
#define FK_NO_CS 0x40u
#define FK_READY 0x80u
#define FK_TX_DUAL 0x100u
#define FK_TX_QUAD 0x200u
#define FK_RX_DUAL 0x400u
#define FK_RX_QUAD 0x800u
#define FK_CS_WORD 0x1000u
#define FK_TX_OCTAL 0x2000u
#define FK_RX_OCTAL 0x4000u
/* spidev.c SPI_MODE_MASK and uapi SPI_MODE_USER_MASK (include/uapi/linux/spi/spi.h) with current values. */
#define FK_SPIDEV_MODE_MASK 0x3EFFFu
#define FK_MODE_USER_MASK 0x7FFFFu

/* Kernel-side configuration of one fake device. */
struct fake_spi_cfg {
	uint32_t ctlr_mode_bits;   /* spi_controller.mode_bits */
	uint32_t bpw_mask;         /* bit b-1 = b bits per word supported; 0 = any */
	uint32_t ctlr_max_hz;      /* spi_controller.max_speed_hz (0 = none) */
	uint32_t ctlr_min_hz;      /* spi_controller.min_speed_hz (0 = none) */
	uint32_t dev_max_hz;       /* spi_device.max_speed_hz from the DT */
	uint32_t dev_mode;         /* spi_device.mode at probe */
	uint8_t dev_bpw;           /* spi_device.bits_per_word at probe (0 -> 8) */
	uint32_t bufsiz;           /* spidev bufsiz */
	uint32_t dma_minalign;     /* ARCH_DMA_MINALIGN of the kernel modelled */
	bool half_duplex;          /* SPI_CONTROLLER_HALF_DUPLEX */
	bool gpio_cs;              /* chip select is a GPIO descriptor: the core sets SPI_CS_HIGH */
	/*
	 * An older spidev_ioctl() that neither hides the core's SPI_CS_HIGH of
	 * a GPIO chip select from RD_MODE32 nor forces it into WR_MODE32: a
	 * write without it clears it, and the line is then driven inverted.
	 */
	bool cs_high_visible;
	bool no_mode32;            /* spidev before Linux 3.15: MODE32 requests are ENOTTY */
	bool setup_only_clock;     /* spi-fsl-dspi: SCK from the last spi_setup, speed_hz ignored */
	bool dspi_driver;          /* spi-fsl-dspi's own message loop (see above) */
	bool corrupt_rx;           /* flip bit 0 of every received first byte */
	unsigned fail_message;     /* make the N-th SPI_IOC_MESSAGE (1-based) fail ... */
	int fail_errno;            /* ... with this errno, after the checks */
};

#define FAKE_MAX_LOGGED 1024

struct fake_spi {
	char path[64];
	struct fake_spi_cfg cfg;
	/* spi_device and spidev_data state */
	uint32_t mode;
	uint8_t bpw;
	uint32_t max_speed_hz;     /* spi_device.max_speed_hz */
	uint32_t speed_hz;         /* spidev_data.speed_hz (the default for speed_hz 0) */
	uint32_t sck_hz;           /* clock programmed by the last successful spi_setup */
	int users;
	bool cs_active;
	bool wire_cs_active_high;  /* the chip select's active level on the wire (last spi_setup) */
	unsigned stalls;           /* spi-fsl-dspi commands that never completed (IRQ mode: a hang) */
	/* statistics */
	unsigned setups;           /* successful spi_setup calls */
	char last_setup[16];       /* "mode", "lsb", "bits", "speed": the ioctl of the last setup */
	unsigned messages;         /* SPI_IOC_MESSAGE calls that reached spi_sync and succeeded */
	unsigned message_calls;    /* all SPI_IOC_MESSAGE calls */
	unsigned msg_xfers[FAKE_MAX_LOGGED]; /* transfers per successful message */
	uint32_t msg_tx_budget[FAKE_MAX_LOGGED]; /* aligned tx bytes used per message */
	uint32_t msg_rx_budget[FAKE_MAX_LOGGED]; /* aligned rx bytes used per message */
	uint8_t msg_last_cs_change[FAKE_MAX_LOGGED]; /* cs_change of each message's last transfer */
	struct spi_ioc_transfer last[512];   /* the last message's descriptors as received */
	unsigned last_n;
	/* the wire */
	char *trace;
	size_t trace_len, trace_cap;
	char fmt[64];              /* format of the current data run, "" after a CS/delay event */
};

/* A generic controller: every mode bit, 1..32 bits per word, 50 MHz, bufsiz 4096. */
void fake_spi_cfg_default(struct fake_spi_cfg *cfg);
/*
 * An LS1028A DSPI behind spi-fsl-dspi (mode_bits, bits_per_word_mask):
 * CPOL|CPHA|LSB_FIRST (+CS_HIGH), 4..32 bits, its message loop (above), and
 * the controller maximum fP / 8 at the 200 MHz protocol clock the LS1028A
 * twin assumes (src/hw/dspi.h DSPI_LS1028A_TWIN_CLOCK_RULE): 25 MHz.
 */
void fake_spi_cfg_dspi(struct fake_spi_cfg *cfg);
/* ARCH_DMA_MINALIGN of the host's kernel architecture (arch/<arch>/include/asm/cache.h; arm64: 128). */
uint32_t fake_spi_host_minalign(void);

/* Register a device at `path` ("/dev/spidev0.0"); returns it (owned by the fake). */
struct fake_spi *fake_spi_add(const char *path, const struct fake_spi_cfg *cfg);
/* Forget every device (open fds keep working on the real /dev/null they hold). */
void fake_spi_reset(void);
/* The wire trace as a string ("" if nothing). Reset with fake_spi_trace_clear. */
const char *fake_spi_trace(const struct fake_spi *d);
void fake_spi_trace_clear(struct fake_spi *d);

#endif /* TESTS_SPI_FAKESPI_H */
