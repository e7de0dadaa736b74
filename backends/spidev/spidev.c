/* SPDX-License-Identifier: MIT */
/*
 * The spidev backend: SPI messages through the kernel's /dev/spidevB.C with
 * SPI_IOC_MESSAGE. Facts: Linux drivers/spi/spidev.c,
 * include/uapi/linux/spi/spidev.h, drivers/spi/spi.c.
 *
 * Setup order at open and at offload_spi_set_mode(): mode (a read-modify-write
 * of RD_MODE32 that keeps the kernel's own bits, see kernel_owned(); WR_MODE32,
 * or WR_MODE on kernels without it),
 * then bits per word, then the clock LAST. spi-fsl-dspi computes its clock
 * divider only in spi_setup() from the device's max speed; WR_MAX_SPEED_HZ
 * runs spi_setup() with the requested speed and then restores the DT max, and
 * every later WR_MODE/WR_BITS_PER_WORD re-runs spi_setup() with that restored
 * max. Writing the clock last leaves the requested clock programmed
 * (spidev.c spidev_ioctl() SPI_IOC_WR_MAX_SPEED_HZ).
 *
 * Limits reported to the core, which splits messages to fit them:
 *  - bytes per direction per message: spidev's bufsiz module parameter
 *    (default 4096), read from sysfs at every open;
 *  - each transfer with a tx (rx) buffer takes ALIGN(len, ARCH_DMA_MINALIGN)
 *    of the tx (rx) budget (spidev_message() since the split TX/RX bounce
 *    buffers). ARCH_DMA_MINALIGN is the kernel's, not ours: see dma_minalign();
 *  - transfers per message: SPI_IOC_MESSAGE(N) encodes 32*N in the ioctl's
 *    size field, _IOC_SIZEBITS wide (14 on asm-generic: N <= 511; 13 on
 *    powerpc/mips/alpha: N <= 255); a larger N wraps to a no-op;
 *  - per-transfer speed_hz is ignored by spi-fsl-dspi (its dspi_setup()
 *    programs only spi->max_speed_hz), so
 *    on that driver only the handle's clock is accepted.
 *
 * What spi-fsl-dspi (drivers/spi/spi-fsl-dspi.c) cannot do, refused here
 * rather than passed through (audit dspi.md F2-F4, F8):
 *  - 17..24-bit words: its bits_per_word_mask says 4..32, but a 3-byte
 *    operating word (DIV_ROUND_UP(bpw, 8)) has no case in
 *    dspi_native_host_to_dev/dev_to_host (zeros sent, nothing stored),
 *    dspi_fifo_write halves the FIFO budget only for 4-byte words, and the
 *    last 1..2 bytes make a batch of 0 words: a command with DTCP 0 and no
 *    data, which never completes (the poll loop gives -ETIMEDOUT, the IRQ
 *    path's wait_for_completion() never returns). Refused at open and per
 *    transfer;
 *  - a chip select held between the parts of a split message: releasing it
 *    after a later part failed takes an empty message, which spi-fsl-dspi's
 *    own dspi_transfer_one_message turns into that same command with no
 *    data (no generic core CS handling), so it never releases. Such cuts
 *    are refused up front (lim.cs_hold = false); nothing then depends on
 *    what the kernel leaves after an -EIO/-ETIMEDOUT either (it only sets
 *    HALT, and whether a PCS held by CONT drops is unconfirmed);
 *  - SPI_CS_HIGH on a native chip select: the core accepts it
 *    (spi_register_controller adds it to the mode_bits of every host with
 *    use_gpio_descriptors) and SPI_IOC_RD_MODE32 reports it, but dspi_init
 *    makes every native PCS active-low (MCR.PCSIS all ones) and nothing
 *    changes that per device. Current spidev hides a GPIO chip select's
 *    CS_HIGH from RD_MODE32 (spidev_ioctl), so a CS_HIGH read back on a chip
 *    select the device tree does not make a GPIO means a native one:
 *    refused, and the mode from before written back;
 *  - LSB-first transfers it would pack (audit dspi.md F1): per FIFO batch
 *    dspi_setup_accel moves 8-bit words as 16- or 32-bit frames (all but an
 *    odd length up to the FIFO depth) and 16-bit words as 32-bit frames
 *    (XSPI, more than twice the FIFO depth in bytes), the first word in
 *    the frame's high bits (dspi_8on16/8on32/16on32_host_to_dev), while
 *    LSBFE shifts the whole frame from its LSB: an LSB-first device would
 *    receive each frame's words reversed. Refused per transfer, taking the
 *    smallest FIFO of any devtype (4 entries), so what passes goes out
 *    unpacked on every DSPI: 8-bit transfers of 1 or 3 bytes, 16-bit ones
 *    of up to 8 bytes. The direct dspi backend packs them in wire order.
 */
#include <fcntl.h>
#include <libfdt.h>
#include <linux/ioctl.h>
#include <linux/spi/spidev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "driver/spi.h"
#include "util/env.h"
#include "spidev/spidev.h"

#define SPIDEV_MAX_XFERS (((1u << _IOC_SIZEBITS) - 1) / sizeof(struct spi_ioc_transfer))

/*
 * ARCH_DMA_MINALIGN per target, as the kernel defines it:
 *  - arm64: 128 (arch/arm64/include/asm/cache.h);
 *  - 32-bit ARM: L1_CACHE_BYTES = 1 << CONFIG_ARM_L1_CACHE_SHIFT, 64 on v7
 *    (arch/arm/include/asm/cache.h; 32 on older cores, so 64 is safe);
 *  - x86 and other arches without a definition: __alignof__(unsigned long
 *    long) = 8 (include/linux/cache.h fallback);
 *  - riscv: L1_CACHE_BYTES (64) on non-coherent platforms, taken as 64;
 *  - anything else: 128, which can only split earlier than needed.
 * Over-estimating costs an extra message now and then; under-estimating makes
 * the kernel refuse messages with EMSGSIZE.
 */
#if defined(__aarch64__)
#define SPIDEV_DMA_MINALIGN 128u
#elif defined(__arm__) || defined(__riscv)
#define SPIDEV_DMA_MINALIGN 64u
#elif defined(__x86_64__) || defined(__i386__)
#define SPIDEV_DMA_MINALIGN 8u
#else
#define SPIDEV_DMA_MINALIGN 128u
#endif

struct spidev_handle {
	struct offload_ctx *ctx;
	int fd;
	char dev[64];
	uint32_t bufsiz;
	uint32_t speed_hz;           /* the handle's clock and word size, sent with every transfer */
	uint8_t bits_per_word;
	bool dspi;                   /* the controller's driver is spi-fsl-dspi */
	bool gpio_cs;                /* the DT gives the chip select a GPIO (cs-gpios) */
	bool lsb;                    /* the handle's mode has SPI_LSB_FIRST */
	bool held;                   /* the last message left CS asserted (cs_change on its last transfer) */
	struct spi_ioc_transfer *io; /* SPIDEV_MAX_XFERS entries, reused by every message */
};

/*
 * The kernel's ARCH_DMA_MINALIGN: the build's value, raised to arm64's 128
 * when a 32-bit user space runs on an arm64 kernel, or what
 * OFFLOAD_SPIDEV_DMA_MINALIGN says. 0 with `why` filled when that is invalid.
 */
static uint32_t dma_minalign(char *why, size_t why_len)
{
	uint32_t a = SPIDEV_DMA_MINALIGN;
	struct utsname u;
	uint64_t v;

	/* read again here: it may have changed since the context opened */
	int r = ofl_env_uint("OFFLOAD_SPIDEV_DMA_MINALIGN", &v, why, why_len);
	if (r < 0)
		return 0;
	if (r == 1)
		return (uint32_t)v;
	if (uname(&u) == 0 && (strcmp(u.machine, "aarch64") == 0 || strncmp(u.machine, "armv8", 5) == 0))
		a = OFL_MAX(a, 128u);
	return a;
}

/* spi-fsl-dspi's 3-byte operating words (17..24 bits per word): no code path. */
#define DSPI_NO_3BYTE_WORDS(bpw) ((bpw) >= 17 && (bpw) <= 24)
static const char dspi_bpw_why[] =
	"spi-fsl-dspi has no code path for 17..24-bit words (dspi_native_host_to_dev handles 1-, 2- "
	"and 4-byte words; a 3-byte word sends zeros and leaves a command with no data that never "
	"completes, so the ioctl hangs); use 16 or 25..32 bits, or the direct dspi backend";

static const char *dspi_hint(bool dspi)
{
	return dspi ? "; spi-fsl-dspi supports only CPOL, CPHA and LSB_FIRST (and CS_HIGH with a "
		      "GPIO chip select): Linux spi-fsl-dspi.c mode_bits"
		    : "";
}

/* Read the mode, MODE32 first and the 8-bit request on kernels without it. */
static int read_mode(int fd, uint32_t *mode)
{
	uint8_t m8;

	if (ioctl(fd, SPI_IOC_RD_MODE32, mode) == 0)
		return 0;
	if (errno != ENOTTY)
		return -errno;
	if (ioctl(fd, SPI_IOC_RD_MODE, &m8) < 0)
		return -errno;
	*mode = m8;
	return 0;
}

/*
 * Write a mode: WR_MODE32, or the 8-bit WR_MODE on spidev before MODE32
 * (Linux 3.15). -EOVERFLOW when only WR_MODE exists and the mode needs more.
 */
static int write_mode(const struct spidev_handle *h, uint32_t mode)
{
	uint8_t m8 = (uint8_t)mode;

	if (ioctl(h->fd, SPI_IOC_WR_MODE32, &mode) == 0)
		return 0;
	if (errno != ENOTTY)
		return -errno;
	if (mode > 0xff)
		return -EOVERFLOW;
	return ioctl(h->fd, SPI_IOC_WR_MODE, &m8) < 0 ? -errno : 0;
}

/*
 * Mode bits the kernel owns, which a write keeps as SPI_IOC_RD_MODE32 showed
 * them: every bit this API has no name for (octal lanes, SPI_CS_WORD,
 * SPI_READY, SPI_3WIRE_HIZ... that the DT or the driver set), and SPI_CS_HIGH
 * on a GPIO chip select. For those the core sets SPI_CS_HIGH itself, because
 * gpiolib applies the line's polarity (drivers/spi/spi.c __spi_add_device(),
 * "all gpio chip selects are active high in the logical sense"); current
 * spidev hides it from RD_MODE32 and forces it into every WR_MODE32
 * (spidev.c spidev_ioctl()), older spidev reports it and would let a write
 * clear it, after which the core inverts the line (spi_set_cs()).
 */
static uint32_t kernel_owned(const struct spidev_handle *h)
{
	return ~(uint32_t)OFFLOAD_SPI_MODE_ALL | (h->gpio_cs ? OFFLOAD_SPI_CS_HIGH : 0u);
}

/*
 * Program cfg->mode (when mode_set) as a read-modify-write of the mode the
 * kernel has, and set cfg->mode to what is then in effect. *before gets the
 * mode read first; a mode the read-back refuses is undone by writing it back.
 */
static int setup_mode(struct spidev_handle *h, struct ofl_spi_cfg *cfg, uint32_t *before, char *why,
		      size_t why_len)
{
	uint32_t own = kernel_owned(h), cur = 0, want, got;
	int r = read_mode(h->fd, &cur);

	if (r < 0) {
		snprintf(why, why_len, "cannot read the mode of %s: %s", h->dev, strerror(-r));
		return r;
	}
	*before = cur;
	want = (cur & own) | (cfg->mode & ~own);
	got = cur;
	if (cfg->mode_set) {
		r = write_mode(h, want);
		if (r == -EOVERFLOW) {
			snprintf(why, why_len,
				 "%s has no SPI_IOC_WR_MODE32, and mode 0x%x does not fit the 8-bit "
				 "SPI_IOC_WR_MODE",
				 h->dev, want);
			return -EINVAL;
		}
		if (r < 0) {
			snprintf(why, why_len, "the kernel refused mode 0x%x on %s: %s (spi_setup)%s",
				 want, h->dev, strerror(-r), dspi_hint(h->dspi));
			return r;
		}
		r = read_mode(h->fd, &got);
		if (r < 0) {
			snprintf(why, why_len, "cannot read the mode of %s: %s", h->dev, strerror(-r));
			return r;
		}
	}
	/*
	 * spi_setup() silently drops dual/quad bits the controller lacks (spi.c
	 * spi_setup(), "ignoring unsupported mode bits"), and current spidev
	 * hides CS_HIGH on a GPIO chip select. Lanes the DT asked for are
	 * dropped as Linux itself drops them; lanes the caller asked for are an
	 * error.
	 */
	uint32_t dropped = cfg->mode_set ? want & ~got & ~(uint32_t)OFFLOAD_SPI_CS_HIGH : 0u;
	if (h->dspi && !h->gpio_cs && (got & OFFLOAD_SPI_CS_HIGH)) {
		snprintf(why, why_len,
			 "%s has SPI_CS_HIGH on a native chip select, which spi-fsl-dspi accepts and "
			 "reports but drives active-low (dspi_init sets MCR.PCSIS for every native chip "
			 "select): the device would never be selected. Use a GPIO chip select (cs-gpios) "
			 "or the direct dspi backend, which drives PCSIS per chip select",
			 h->dev);
		r = -EINVAL;
	} else if (dropped & ~cfg->mode_dt_lanes) {
		snprintf(why, why_len,
			 "the controller behind %s does not support mode bits 0x%x (the kernel "
			 "dropped them: mode 0x%x requested, 0x%x in effect)%s",
			 h->dev, dropped, want, got, dspi_hint(h->dspi));
		r = -EINVAL;
	}
	if (r < 0) {
		if (cfg->mode_set && got != cur) {
			size_t n = strlen(why);
			bool back = write_mode(h, cur) == 0;
			snprintf(why + n, why_len - n, back ? "; mode 0x%x restored" :
							      "; restoring mode 0x%x failed", cur);
		}
		return r;
	}
	/*
	 * What the kernel has: the read-back, plus SPI_CS_HIGH where current
	 * spidev hides it (a GPIO chip select keeps it set; a CS_HIGH that was
	 * written and accepted but is not shown can only be that hiding).
	 */
	cfg->mode = (got & OFFLOAD_SPI_MODE_ALL) | (h->gpio_cs ? OFFLOAD_SPI_CS_HIGH : 0u) |
		    (cfg->mode_set ? want & OFFLOAD_SPI_CS_HIGH : 0u);
	return 0;
}

static int setup_word_and_clock(struct spidev_handle *h, struct ofl_spi_cfg *cfg, char *why,
				size_t why_len)
{
	uint8_t bpw = cfg->bits_per_word;
	uint32_t hz = cfg->max_speed_hz;

	if (ioctl(h->fd, SPI_IOC_WR_BITS_PER_WORD, &bpw) < 0) {
		int e = errno;
		snprintf(why, why_len, "the controller behind %s refused %u bits per word: %s", h->dev,
			 bpw, strerror(e));
		return -e;
	}
	if (ioctl(h->fd, SPI_IOC_RD_BITS_PER_WORD, &bpw) == 0 && bpw)
		cfg->bits_per_word = bpw;
	/* The clock last: every earlier setup call reprogrammed it from the DT max. */
	if (!hz && ioctl(h->fd, SPI_IOC_RD_MAX_SPEED_HZ, &hz) < 0)
		hz = 0;
	if (hz && ioctl(h->fd, SPI_IOC_WR_MAX_SPEED_HZ, &hz) < 0) {
		int e = errno;
		snprintf(why, why_len, "the kernel refused a clock of %u Hz on %s: %s", hz, h->dev,
			 strerror(e));
		return -e;
	}
	if (ioctl(h->fd, SPI_IOC_RD_MAX_SPEED_HZ, &hz) == 0)
		cfg->max_speed_hz = hz;
	return 0;
}

/* Whether the context's device tree gives the handle's chip select a GPIO. */
static bool is_gpio_cs(struct offload_ctx *ctx, const struct ofl_spi_cfg *cfg)
{
	const void *fdt = ofl_drv(ctx)->dt.fdt;

	if (!fdt || !cfg->ctrl_path[0] || cfg->chip_select < 0)
		return false;
	return ofl_spi_cs_is_gpio(fdt, fdt_path_offset(fdt, cfg->ctrl_path), (unsigned)cfg->chip_select);
}

static int spidev_open(struct offload_ctx *ctx, void *bstate, struct ofl_spi_cfg *cfg, void **priv,
		       struct ofl_spi_limits *lim, char *why, size_t why_len)
{
	const char *root = ofl_spidev_sysfs_root();
	struct ofl_spidev_node node;
	char note[160];
	int r;

	OFL_UNUSED(bstate);
	memset(&node, 0, sizeof(node));
	uint32_t align = dma_minalign(why, why_len);
	if (!align)
		return -EINVAL;
	struct spidev_handle *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->ctx = ctx;
	h->fd = -1;

	if (cfg->spidev[0]) {
		char real[PATH_MAX];
		const char *name = realpath(cfg->spidev, real) ? real : cfg->spidev;
		const char *base = strrchr(name, '/');
		ofl_strlcpy(h->dev, cfg->spidev, sizeof(h->dev));
		if (ofl_spidev_lookup(root, base ? base + 1 : name, &node) == 0) {
			cfg->chip_select = node.cs;
			ofl_strlcpy(cfg->dt_path, node.child, sizeof(cfg->dt_path));
			ofl_strlcpy(cfg->ctrl_path, node.ctrl, sizeof(cfg->ctrl_path));
			ofl_spi_cfg_from_dt(ctx, cfg);
		}
	} else {
		if (!cfg->ctrl_path[0]) {
			snprintf(why, why_len, "no controller node to look up");
			free(h);
			return -ENODEV;
		}
		r = ofl_spidev_find(root, cfg->ctrl_path, cfg->chip_select, cfg->dt_path, &node, why,
				    why_len);
		if (r < 0) {
			free(h);
			return r;
		}
		snprintf(h->dev, sizeof(h->dev), "/dev/%s", node.name);
	}
	/* the controller's Linux driver: its engine's, or the one sysfs shows bound to it */
	const char *ldrv = cfg->owner && cfg->owner->linux_driver ? cfg->owner->linux_driver : "";
	bool dspi = strcmp(ldrv, "fsl-dspi") == 0 || strcmp(node.driver, "fsl-dspi") == 0;

	h->fd = open(h->dev, O_RDWR | O_CLOEXEC);
	if (h->fd < 0) {
		r = -errno;
		snprintf(why, why_len, "cannot open %s: %s", h->dev, strerror(-r));
		/* sysfs named it but there is no device file: not reachable this way. */
		if (!cfg->spidev[0] && r == -ENOENT)
			r = -ENODEV;
		free(h);
		return r;
	}
	h->dspi = dspi;
	h->gpio_cs = is_gpio_cs(ctx, cfg);
	uint32_t before;
	r = setup_mode(h, cfg, &before, why, why_len);
	if (r == 0 && dspi && DSPI_NO_3BYTE_WORDS(cfg->bits_per_word)) {
		snprintf(why, why_len, "%u bits per word on %s: %s", cfg->bits_per_word, h->dev,
			 dspi_bpw_why);
		r = -EINVAL;
	}
	if (r == 0)
		r = setup_word_and_clock(h, cfg, why, why_len);
	if (r == 0) {
		h->io = calloc(SPIDEV_MAX_XFERS, sizeof(*h->io));
		if (!h->io) {
			snprintf(why, why_len, "out of memory");
			r = -ENOMEM;
		}
	}
	if (r < 0) {
		close(h->fd);
		free(h->io);
		free(h);
		return r;
	}
	h->bufsiz = ofl_spidev_bufsiz(root, note, sizeof(note));
	h->speed_hz = cfg->max_speed_hz;
	h->bits_per_word = cfg->bits_per_word;
	h->lsb = (cfg->mode & OFFLOAD_SPI_LSB_FIRST) != 0;
	lim->max_xfers = SPIDEV_MAX_XFERS;
	lim->budget = h->bufsiz;
	lim->align = align;
	/* the controller decides (its refusal comes back as EINVAL), but spi-fsl-dspi hangs on 17..24 */
	lim->bpw_mask = dspi ? 0xFF00FFFFu : 0xffffffffu;
	lim->bpw_why = dspi ? dspi_bpw_why : NULL;
	lim->per_xfer_speed = !dspi;
	lim->cs_hold = !dspi;
	lim->no_hold_why = dspi ? "spi-fsl-dspi turns the empty message that would release a held "
				  "chip select after a failure into a command with no data, which "
				  "never completes"
				: NULL;
	*priv = h;
	return 0;
}

static const char *xfer_hint(int e)
{
	switch (e) {
	case EMSGSIZE:
		return " (the kernel's bufsiz or ARCH_DMA_MINALIGN is not what liboffload read or "
		       "assumed; set OFFLOAD_SPIDEV_DMA_MINALIGN to the kernel's value)";
	case EINVAL:
		return " (the controller refused a word size, clock, lane count or length; Linux "
		       "drivers/spi/spi.c __spi_validate)";
	case ESHUTDOWN:
		return " (the SPI device was removed)";
	case ETIMEDOUT:
	case EIO:
		return " (the controller reported a failure)";
	default:
		return "";
	}
}

static int spidev_xfer(void *priv, const struct offload_spi_xfer *x, unsigned n, uint32_t total)
{
	struct spidev_handle *h = priv;

	for (unsigned i = 0; i < n; i++) {
		struct spi_ioc_transfer *t = &h->io[i];
		memset(t, 0, sizeof(*t));
		t->tx_buf = (uintptr_t)x[i].tx;
		t->rx_buf = (uintptr_t)x[i].rx;
		t->len = x[i].len;
		/*
		 * 0 would mean spidev's per-device defaults, which every other
		 * open file of this device can change; the handle's own values are
		 * sent instead.
		 */
		t->speed_hz = x[i].speed_hz ? x[i].speed_hz : h->speed_hz;
		t->delay_usecs = x[i].delay_usecs;
		t->bits_per_word = x[i].bits_per_word ? x[i].bits_per_word : h->bits_per_word;
		t->cs_change = x[i].cs_change ? 1 : 0;
		t->tx_nbits = x[i].tx_nbits;
		t->rx_nbits = x[i].rx_nbits;
		t->word_delay_usecs = x[i].word_delay_usecs;
	}
	/* SPI_IOC_MESSAGE(n) spelled out: the macro forms a VLA type for a variable n. */
	unsigned long req = _IOC(_IOC_WRITE, SPI_IOC_MAGIC, 0, n * sizeof(struct spi_ioc_transfer));
	int r = ioctl(h->fd, req, h->io);
	if (r < 0) {
		int e = errno;
		/*
		 * EIO and ETIMEDOUT come from the controller while the message ran;
		 * the core then deselects the device (spi_transfer_one_message: CS
		 * off when ret != 0; spi-fsl-dspi halts). Other errors are raised
		 * before anything is clocked (spidev_message, __spi_validate), so a
		 * chip select held by the previous message is still asserted.
		 */
		if (e == EIO || e == ETIMEDOUT)
			h->held = false; /* spi-fsl-dspi: HALT only, but parts never hold CS there */
		return ofl_err(h->ctx, -e, "offload_spi_transfer: SPI_IOC_MESSAGE(%u) on %s failed: %s%s", n,
			       h->dev, strerror(e), xfer_hint(e));
	}
	if ((uint32_t)r != total)
		return ofl_err(h->ctx, -EIO,
			       "offload_spi_transfer: SPI_IOC_MESSAGE(%u) on %s returned %d, expected %u", n,
			       h->dev, r, total);
	h->held = x[n - 1].cs_change != 0;
	return r;
}

/* The smallest FIFO of any spi-fsl-dspi devtype (its devtype_data fifo_size). */
#define DSPI_MIN_FIFO 4u

/* spi-fsl-dspi would pack this LSB-first transfer into frames in MSB order (see the top). */
static int spidev_check(const void *priv, const struct offload_spi_xfer *t, unsigned bpw, char *why,
			size_t why_len)
{
	const struct spidev_handle *h = priv;
	bool packed;

	if (!h->dspi || !h->lsb)
		return 0;
	if (bpw == 8)
		packed = t->len > 1 && !(t->len % 2 == 1 && t->len <= DSPI_MIN_FIFO);
	else if (bpw == 16)
		packed = t->len > 2 * DSPI_MIN_FIFO;
	else
		return 0;
	if (!packed)
		return 0;
	snprintf(why, why_len,
		 "%u bytes of %u-bit LSB-first words on %s: spi-fsl-dspi packs them into 16/32-bit "
		 "frames first word high (dspi_setup_accel), LSBFE shifts a frame from its LSB: each "
		 "frame's words would be reversed; send at most %s per transfer, or use the direct "
		 "dspi backend",
		 t->len, bpw, h->dev, bpw == 8 ? "1 or 3 bytes" : "8 bytes");
	return -EINVAL;
}

/*
 * An empty message: CS is asserted if it was not, nothing is clocked, CS is
 * released (the generic spi_transfer_one_message). Not on spi-fsl-dspi,
 * where it never completes; the core never asks there (lim.cs_hold false).
 */
static int spidev_release_cs(void *priv)
{
	struct spidev_handle *h = priv;
	struct spi_ioc_transfer t;

	if (!h->held)
		return 0;
	if (h->dspi)
		return -ENOTSUP;
	memset(&t, 0, sizeof(t));
	if (ioctl(h->fd, SPI_IOC_MESSAGE(1), &t) < 0)
		return -errno;
	h->held = false;
	return 1;
}

/*
 * A new mode and/or clock after open, refused while the handle's last
 * message left the chip select asserted (the clock's idle level and rate
 * would change under a selected device), in the order of the open: mode, word
 * size, clock last (every spi_setup() on spi-fsl-dspi reprograms SCK from
 * the device's DT max). What fails is undone: the mode the kernel had is
 * written back and the handle's clock programmed again.
 */
static int spidev_set(void *priv, struct ofl_spi_cfg *cfg, bool mode, char *why, size_t why_len)
{
	struct spidev_handle *h = priv;
	uint32_t before = 0, hz = cfg->max_speed_hz;
	bool mode_done = false;
	int r = 0;

	if (h->held) {
		snprintf(why, why_len,
			 "the chip select of %s is held asserted (the last message ended with "
			 "cs_change); the mode and clock cannot change under the selected device: send "
			 "a message whose last transfer has no cs_change first",
			 h->dev);
		return -EBUSY;
	}
	cfg->bits_per_word = h->bits_per_word;
	if (mode) {
		r = setup_mode(h, cfg, &before, why, why_len);
		mode_done = r == 0;
	}
	if (r == 0)
		r = setup_word_and_clock(h, cfg, why, why_len);
	if (r < 0) {
		uint32_t old = h->speed_hz;
		if (mode_done)
			(void)write_mode(h, before);
		/* a refused mode was restored above; its spi_setup() reset the clock */
		if (mode || hz != old)
			(void)ioctl(h->fd, SPI_IOC_WR_MAX_SPEED_HZ, &old);
		return r;
	}
	h->speed_hz = cfg->max_speed_hz;
	h->lsb = (cfg->mode & OFFLOAD_SPI_LSB_FIRST) != 0;
	return 0;
}

static void spidev_close(void *priv)
{
	struct spidev_handle *h = priv;

	close(h->fd);
	free(h->io);
	free(h);
}

static void spidev_info(const void *priv, struct offload_spi_info *info)
{
	const struct spidev_handle *h = priv;

	info->backend = "spidev";
	info->flags = OFFLOAD_RES_KERNEL;
	info->max_message_bytes = h->bufsiz;
}

static const struct ofl_spi_ops spidev_spi_ops = {
	.open = spidev_open,
	.xfer = spidev_xfer,
	.release_cs = spidev_release_cs,
	.check = spidev_check,
	.set = spidev_set,
	.close = spidev_close,
	.info = spidev_info,
};

/* A DT SPI controller is served by the kernel when spidev nodes exist for it. */
static int spidev_probe(struct offload_ctx *ctx, void *state, struct ofl_device *dev, char *why,
			size_t why_len)
{
	const char *root = ofl_spidev_sysfs_root();
	char list[OFL_REASON_LEN - 48];

	OFL_UNUSED(ctx);
	OFL_UNUSED(state);
	int n = ofl_spidev_list_for(root, dev->dt_path, list, sizeof(list));
	if (n == 0) {
		snprintf(why, why_len,
			 "no /dev/spidevB.C is bound to a chip select of this controller (%s/class/spidev)",
			 root);
		return -ENODEV;
	}
	snprintf(why, why_len, "kernel driver through %s", list);
	dev->info.flags |= OFFLOAD_DEVF_KERNEL;
	return 0;
}

const struct ofl_backend ofl_backend_spidev = {
	.name = "spidev",
	.caps = OFFLOAD_CAP_SPI,
	.serves = OFL_BE_SPI_CONTROLLER,
	.probe = spidev_probe,
	.spi = &spidev_spi_ops,
};
