/* SPDX-License-Identifier: MIT */
/**
 * @file offload/spi.h
 * @brief SPI messages: full-duplex transfers to one chip select.
 *
 * A handle is opened from a device-tree node (the SPI controller plus a
 * chip select, or the peripheral's child node, whose spi-max-frequency,
 * spi-cpol, spi-cpha, spi-lsb-first, spi-cs-high and CS delays configure
 * it) or from a /dev/spidevB.C path. A message is an array of transfers
 * carrying everything the kernel's struct spi_ioc_transfer can express.
 *
 * Units: lengths in bytes, clock rates in Hz, delays in microseconds.
 */
#ifndef OFFLOAD_SPI_H
#define OFFLOAD_SPI_H

#include <offload/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @addtogroup spi
 * @{
 */

/** Mode bit: sample on the trailing clock edge (value as Linux SPI_CPHA). */
#define OFFLOAD_SPI_CPHA 0x01u
/** Mode bit: clock idles high (SPI_CPOL). */
#define OFFLOAD_SPI_CPOL 0x02u
/** Mode bit: chip select is active high (SPI_CS_HIGH). */
#define OFFLOAD_SPI_CS_HIGH 0x04u
/** Mode bit: least significant bit first (SPI_LSB_FIRST). */
#define OFFLOAD_SPI_LSB_FIRST 0x08u
/** Mode bit: one shared data line, SI/SO (SPI_3WIRE). */
#define OFFLOAD_SPI_3WIRE 0x10u
/** Mode bit: controller-internal loopback, MOSI to MISO (SPI_LOOP). */
#define OFFLOAD_SPI_LOOP 0x20u
/** Mode bit: no chip select (SPI_NO_CS). */
#define OFFLOAD_SPI_NO_CS 0x40u
/** SPI mode 0: CPOL = 0, CPHA = 0. */
#define OFFLOAD_SPI_MODE_0 0x00u
/** SPI mode 1: CPOL = 0, CPHA = 1. */
#define OFFLOAD_SPI_MODE_1 OFFLOAD_SPI_CPHA
/** SPI mode 2: CPOL = 1, CPHA = 0. */
#define OFFLOAD_SPI_MODE_2 OFFLOAD_SPI_CPOL
/** SPI mode 3: CPOL = 1, CPHA = 1. */
#define OFFLOAD_SPI_MODE_3 (OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CPHA)
/**
 * Mode bit: two TX data lines (SPI_TX_DUAL); needed for tx_nbits = 2. The
 * Linux SPI core rejects tx_nbits = 2 unless TX_DUAL or TX_QUAD is set, and
 * tx_nbits = 4 unless TX_QUAD is set (drivers/spi/spi.c __spi_validate).
 */
#define OFFLOAD_SPI_TX_DUAL 0x100u
/** Mode bit: four TX data lines (SPI_TX_QUAD); allows tx_nbits = 2 or 4. */
#define OFFLOAD_SPI_TX_QUAD 0x200u
/** Mode bit: two RX data lines (SPI_RX_DUAL); needed for rx_nbits = 2. */
#define OFFLOAD_SPI_RX_DUAL 0x400u
/** Mode bit: four RX data lines (SPI_RX_QUAD); allows rx_nbits = 2 or 4. */
#define OFFLOAD_SPI_RX_QUAD 0x800u
/** Every mode bit this API knows; others are rejected with -EINVAL. */
#define OFFLOAD_SPI_MODE_ALL                                                               \
	(OFFLOAD_SPI_CPHA | OFFLOAD_SPI_CPOL | OFFLOAD_SPI_CS_HIGH | OFFLOAD_SPI_LSB_FIRST |  \
	 OFFLOAD_SPI_3WIRE | OFFLOAD_SPI_LOOP | OFFLOAD_SPI_NO_CS | OFFLOAD_SPI_TX_DUAL |      \
	 OFFLOAD_SPI_TX_QUAD | OFFLOAD_SPI_RX_DUAL | OFFLOAD_SPI_RX_QUAD)

/**
 * Open flag: never keep chip select asserted from one part of a split
 * message into the next. By default a message too large for the backend in
 * one go (spidev: bufsiz, 511 transfers) is cut into parts, and where CS
 * must stay asserted across a cut the part before it ends with cs_change
 * set, which keeps CS asserted until the next message (Linux
 * include/linux/spi/spi.h, struct spi_transfer, cs_change rule (ii)). That
 * holds only while no other device on the same controller is addressed
 * between the parts; on a bus shared with other processes set this flag, and
 * such messages fail with -EMSGSIZE instead. Cuts after a transfer with
 * cs_change set (CS is released there anyway) are always made.
 */
#define OFFLOAD_SPI_OPEN_NO_CS_HOLD (1u << 0)

/** Largest number of transfers in one message. */
#define OFFLOAD_SPI_MAX_XFERS 4096

/** An open SPI device (one chip select of one controller). */
typedef struct offload_spi offload_spi;

/** Options for offload_spi_open(). Initialise with offload_spi_opts_init(). */
struct offload_spi_opts {
	/** sizeof(struct offload_spi_opts) as compiled by the caller. */
	uint32_t size;
	/**
	 * Chip select when the path names a controller node; -1 when the path
	 * is a child node or a spidev path (the default).
	 */
	int chip_select;
	/**
	 * OFFLOAD_SPI_* mode bits to use instead of the device tree's; -1 (the
	 * default) keeps the DT child's, or for a /dev/spidevB.C path the mode
	 * the kernel currently has for the device.
	 */
	int64_t mode;
	/** Default clock in Hz; 0 keeps the DT's spi-max-frequency (or the spidev's). */
	uint32_t max_speed_hz;
	/** Default word size in bits (4..32 as the controller allows); 0 = 8. */
	uint8_t bits_per_word;
	/** OFFLOAD_SPI_OPEN_* flags; 0 by default. */
	uint32_t flags;
};

/**
 * One transfer of a message; zero-initialise, then fill.
 *
 * An array element (offload_spi_transfer() takes @c n of them), so its size
 * is the array's stride and it never grows; a later release that needs more
 * per-transfer fields adds a new struct and call.
 *
 * At least one of @c tx and @c rx must be set (a transfer with neither
 * clocks nothing under Linux, so it is refused). @c rx either equals @c tx
 * (in-place full duplex) or does not overlap it. Transfers run in array
 * order: a transfer's received bytes may be stored before a later
 * transfer's bytes are read, so an @c rx buffer must not overlap the @c tx
 * buffer of a later transfer of the same message.
 */
struct offload_spi_xfer {
	/** Bytes to send, @c len long; NULL sends zeros (rx must then be set). */
	const void *tx;
	/** Buffer for received bytes, @c len long; NULL discards them. May equal @c tx. */
	void *rx;
	/** Length in bytes (> 0); a multiple of 2 for 9..16-bit words, of 4 for 17..32. */
	uint32_t len;
	/**
	 * Clock for this transfer in Hz; 0 = the handle's default. The direct
	 * DSPI backend changes the clock only where the chip select is released
	 * (cs_change on the transfer before, or a new message).
	 */
	uint32_t speed_hz;
	/** Delay after the last bit, before CS changes, in microseconds. */
	uint16_t delay_usecs;
	/** Word size in bits for this transfer; 0 = the handle's default. */
	uint8_t bits_per_word;
	/**
	 * Non-zero: on a transfer that is not the last, release CS after it and
	 * assert it again for the next; on the last transfer, leave CS asserted
	 * after the message.
	 */
	uint8_t cs_change;
	/** TX data lines: 0 or 1 = single, 2 = dual, 4 = quad. */
	uint8_t tx_nbits;
	/** RX data lines: 0 or 1 = single, 2 = dual, 4 = quad. */
	uint8_t rx_nbits;
	/** Delay between words in microseconds (ignored by controllers without support). */
	uint8_t word_delay_usecs;
};

/**
 * What an SPI handle is, as offload_spi_get_info() reports it. Strings live
 * as long as the handle. The struct can grow at its end; the size argument
 * of offload_spi_get_info() keeps older and newer callers working.
 */
struct offload_spi_info {
	/** Name of the backend serving the handle, with "-sim" when a model does (e.g. "spidev"). */
	const char *backend;
	/** The spidev path or DT node path the handle was opened from. */
	const char *path;
	/** Device index of the controller in the context, or -1 (plain spidev path). */
	int dev;
	/** Chip select number. */
	int chip_select;
	/**
	 * OFFLOAD_SPI_* mode bits in effect: through spidev, those the kernel
	 * has for the device as read back after the last setting, with
	 * OFFLOAD_SPI_CS_HIGH on a chip select the DT makes a GPIO (the kernel
	 * keeps it set there and current spidev hides it).
	 */
	uint32_t mode;
	/** Default clock requested, in Hz. */
	uint32_t max_speed_hz;
	/** Clock the controller actually produces for the default, in Hz (0 if unknown). */
	uint32_t actual_speed_hz;
	/** Default word size in bits. */
	uint8_t bits_per_word;
	/** CS-to-first-SCK delay in nanoseconds (from the DT), 0 if none. */
	uint32_t cs_setup_ns;
	/** Last-SCK-to-CS delay in nanoseconds (from the DT), 0 if none. */
	uint32_t cs_hold_ns;
	/** Largest bytes per message the backend takes in one go (longer ones are split), 0 = unlimited. */
	uint32_t max_message_bytes;
	/** OFFLOAD_RES_* bits describing how transfers run. */
	uint32_t flags;
};

/**
 * @brief Fill @p opts with the defaults (configuration from the DT or spidev).
 * @param opts Options to initialise; ignored if NULL.
 *
 * Thread-safety: safe from any thread.
 */
void offload_spi_opts_init(struct offload_spi_opts *opts);

/**
 * @brief Open an SPI device.
 *
 * A DT path is looked up in the context's device tree. A peripheral
 * (child) node gives the chip select (reg: one to four cells, the first
 * below 256 and below the controller's num-cs, as Linux of_spi_parse_dt()
 * and __spi_add_device() require; -EINVAL names the node otherwise), mode (spi-cpha, spi-cpol,
 * spi-cs-high, spi-lsb-first, spi-3wire, spi-tx/rx-bus-width 2 or 4), the
 * default clock (spi-max-frequency) and the CS delays
 * (spi-cs-setup-delay-ns / spi-cs-hold-delay-ns, else the deprecated
 * fsl,spi-cs-sck-delay / fsl,spi-sck-cs-delay; Linux spi-fsl-dspi.c
 * dspi_setup()). A
 * controller path with opts->chip_select uses the child whose reg equals it
 * if there is one, else mode 0. The open is routed to the backend serving
 * the controller device (a direct driver) or else to the kernel through
 * spidev: the /dev/spidevB.C whose sysfs of_node link names the child (or
 * the controller and chip select) is used. The sysfs root is /sys, or the
 * OFFLOAD_SYSFS_ROOT environment variable.
 *
 * For a /dev/spidevB.C path, opts->mode = -1 keeps the mode the kernel has
 * for the device (from its DT node), and opts->max_speed_hz = 0 keeps
 * spidev's current default clock. Through spidev a mode is a
 * read-modify-write of the kernel's (SPI_IOC_RD_MODE32 first): bits the
 * kernel owns are kept as it has them, namely bits without an OFFLOAD_SPI_*
 * name (octal lanes, SPI_CS_WORD, ...) and SPI_CS_HIGH on a chip select the
 * device tree makes a GPIO (cs-gpios), which the Linux SPI core sets itself
 * (drivers/spi/spi.c __spi_add_device()). A mode the kernel accepts but
 * changes (lanes dropped, or SPI_CS_HIGH on a native chip select of
 * spi-fsl-dspi) is refused and the kernel's previous mode written back. Settings are written mode first, word
 * size next and clock last, because spi-fsl-dspi computes its clock divider
 * only in spi_setup() (its dspi_setup() callback). Through spidev these are
 * per-device kernel state shared by every open file of the device: each
 * transfer carries the handle's clock and word size explicitly, but on
 * spi-fsl-dspi the clock in effect is the one of the most recent setup by any
 * of them.
 *
 * @param ctx  An open context.
 * @param path "/dev/spidevB.C", a DT peripheral node path
 *             ("/soc/spi@2100000/flash@0"), or a DT controller path with
 *             opts->chip_select set.
 * @param opts Options, or NULL for defaults.
 * @param out  Receives the handle.
 * @return 0, or -EINVAL (NULL argument, bad option, unsupported mode bits or
 *   word size, a controller path without chip_select or a child path with
 *   one), -ENOENT (no such node or device file, or the context has no device
 *   tree for a DT path), -ENODEV (controller or child disabled, or no backend
 *   can reach it; the message says what was tried), -EBADF (context not
 *   open), -EACCES, -ENOMEM, or another -errno from opening the device file
 *   or its setup ioctls.
 *
 * Thread-safety: safe to call concurrently on one context. A handle belongs
 * to one thread at a time.
 */
int offload_spi_open(offload_ctx *ctx, const char *path, const struct offload_spi_opts *opts,
		     offload_spi **out);

/**
 * @brief Send one message: @p n transfers with chip select handled as each
 *        transfer's cs_change says.
 *
 * A message larger than what the backend takes at once (spidev's bufsiz
 * per direction with each transfer rounded up to the kernel's
 * ARCH_DMA_MINALIGN, and 511 transfers) is split transparently when
 * splitting does not change what appears on the wire: the data, word size
 * and clock of every bit and the chip-select sequence stay the same; only
 * idle time between parts is added. See ::OFFLOAD_SPI_OPEN_NO_CS_HOLD.
 * Otherwise it fails with -EMSGSIZE before anything is sent.
 *
 * If a part after the first fails, the bytes of the earlier parts have
 * already been clocked; the error message says how many, and the library
 * sends an empty message to release a chip select it held (never needed
 * on spi-fsl-dspi, where parts never hold it).
 *
 * @param spi   The handle.
 * @param xfers Array of @p n transfers.
 * @param n     Number of transfers, 1 .. ::OFFLOAD_SPI_MAX_XFERS.
 * @return The total number of bytes transferred (sum of len), or
 *   - -EINVAL: NULL argument, n = 0 or too large, a transfer with len 0,
 *     no buffer, overlapping tx/rx, an rx overlapping the tx of a later
 *     transfer of the message, a length that is not a multiple of the
 *     word size (2 bytes for 9..16-bit words, 4 for 17..32), bits_per_word
 *     above 32 or refused by the backend, nbits other than 0/1/2/4 or not
 *     allowed by the mode's TX/RX_DUAL/QUAD bits, a per-transfer speed_hz
 *     differing from the handle's default on a controller whose driver
 *     ignores it (spi-fsl-dspi programs the clock only in dspi_setup()),
 *     17..24 bits per word through spidev on spi-fsl-dspi (it has no code
 *     path for 3-byte words), an LSB-first transfer through spidev on
 *     spi-fsl-dspi that driver would pack into 16/32-bit frames in MSB
 *     order (8-bit words: more than 1 byte except 3; 16-bit words: more
 *     than 8 bytes; the device would get each frame's bytes reversed),
 *     a clock below the slowest the controller's
 *     divider reaches (the direct DSPI backend: protocol clock / 229376),
 *     or (the direct DSPI backend) a clock change between two transfers
 *     the chip select stays asserted across; nothing is sent then;
 *   - -EMSGSIZE: the sum of len exceeds INT_MAX, or the message cannot be
 *     split without changing the wire (through spidev on spi-fsl-dspi, a
 *     cut with the chip select held: that driver cannot release it
 *     again after a failure);
 *   - -ETIMEDOUT, -EIO: controller failure;
 *   - other -errno from the kernel's SPI_IOC_MESSAGE.
 *
 * Thread-safety: the handle's owning thread only.
 * @since 0.2 under this name; offload_spi_xfer() in 0.1 (the struct's name),
 *   which 0.1 binaries still reach.
 */
int offload_spi_transfer(offload_spi *spi, const struct offload_spi_xfer *xfers, unsigned n);

/**
 * @brief Change an open handle's mode.
 *
 * @p mode replaces the handle's OFFLOAD_SPI_* bits for every later message,
 * as opts->mode does at offload_spi_open() (and with its rules: through
 * spidev a read-modify-write that keeps the kernel's own bits, then the
 * handle's word size and clock written again, because each spidev setup call
 * on spi-fsl-dspi reprograms the clock from the DT's maximum). Dual/quad
 * lanes the controller lacks are an error here, never dropped. On the
 * direct DSPI backend CTAR is recomputed and, for a CS_HIGH change,
 * MCR.PCSIS rewritten (Linux spi-fsl-dspi.c dspi_setup(), dspi_init()).
 * offload_spi_get_info() then reports the mode in effect.
 *
 * On failure nothing changes: the handle keeps its mode, and through
 * spidev the kernel's mode and the handle's clock are written back.
 *
 * Through spidev the mode is per-device kernel state, shared by every open
 * file of the device (as at offload_spi_open()).
 *
 * @param spi  The handle.
 * @param mode OFFLOAD_SPI_* bits (::OFFLOAD_SPI_MODE_ALL at most).
 * @return 0, or
 *   - -EINVAL: spi NULL or not an open handle; unknown bits, dual and quad
 *     together, 3WIRE with lanes; a mode the backend cannot do (the
 *     controller dropped bits, SPI_CS_HIGH on a native chip select through
 *     spidev on spi-fsl-dspi, LOOP or 3WIRE or lanes on the direct DSPI);
 *   - -EBUSY: the handle's chip select is held asserted by its last message
 *     (cs_change on its last transfer), or (direct DSPI) a CS_HIGH change
 *     while another chip select of the controller is held; send a message
 *     that ends without cs_change first;
 *   - -EBADF: the handle was inherited through fork();
 *   - -ENOTSUP: the backend cannot change a handle after open;
 *   - -ETIMEDOUT: (direct DSPI) the module did not halt to change MCR.PCSIS;
 *   - another -errno from the kernel's SPI_IOC_WR_MODE32 or setup ioctls.
 *
 * Thread-safety: the handle's owning thread only.
 * @since 0.2
 */
int offload_spi_set_mode(offload_spi *spi, uint32_t mode);

/**
 * @brief Change an open handle's default clock.
 *
 * @p hz becomes the clock of every later transfer whose speed_hz is 0, as
 * opts->max_speed_hz does at offload_spi_open(): through spidev
 * SPI_IOC_WR_MAX_SPEED_HZ (on spi-fsl-dspi the clock it programs, which
 * spi_setup() computes), on the direct DSPI backend a new CTAR, clamped to
 * the controller's maximum (protocol clock / max_clock_factor). The clock
 * the controller then produces is offload_spi_get_info()'s actual_speed_hz
 * where the backend knows it; max_speed_hz is the new default as the backend
 * took it.
 *
 * On failure nothing changes (through spidev the previous clock is written
 * back).
 *
 * @param spi The handle.
 * @param hz  Clock in Hz, > 0.
 * @return 0, or
 *   - -EINVAL: spi NULL or not an open handle, hz 0, a clock the kernel
 *     refuses or (direct DSPI) below the slowest the divider reaches
 *     (protocol clock / 229376);
 *   - -EBUSY: the handle's chip select is held asserted by its last message
 *     (cs_change on its last transfer);
 *   - -EBADF: the handle was inherited through fork();
 *   - -ENOTSUP: the backend cannot change a handle after open;
 *   - another -errno from the kernel's SPI_IOC_WR_MAX_SPEED_HZ.
 *
 * Thread-safety: the handle's owning thread only.
 * @since 0.2
 */
int offload_spi_set_speed(offload_spi *spi, uint32_t hz);

/**
 * @brief Describe an open SPI handle.
 *
 * As offload_dev_get_info(): pass `sizeof *info` as compiled; at most @p size
 * bytes are written, and what a newer, longer struct has beyond this
 * library's is zeroed.
 *
 * @param spi  The handle.
 * @param info Filled on success.
 * @param size sizeof(*info) as compiled by the caller, in bytes (1 .. 4096).
 * @return 0, or -EINVAL (spi NULL or not an open handle, info NULL, size 0 or above 4096),
 *   -EBADF (the handle was inherited through fork()).
 *
 * Thread-safety: the handle's owning thread only.
 * @since 0.2 (replaces offload_spi_info() of 0.1, which had no size; 0.1
 *   binaries still reach that entry point, which copies the 0.1 layout).
 */
int offload_spi_get_info(const offload_spi *spi, struct offload_spi_info *info, size_t size);

/**
 * @brief Close an SPI handle.
 * @param spi The handle; invalid afterwards.
 * @return 0, or -EINVAL if spi is NULL.
 *
 * Thread-safety: the handle's owning thread only.
 */
int offload_spi_close(offload_spi *spi);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_SPI_H */
