/* SPDX-License-Identifier: MIT */
/*
 * The spidev backend: SPI messages through the kernel's /dev/spidevB.C with
 * SPI_IOC_MESSAGE. Facts: Linux drivers/spi/spidev.c,
 * include/uapi/linux/spi/spidev.h, drivers/spi/spi.c.
 *
 * Setup order at open: mode (WR_MODE32, or WR_MODE on kernels without it),
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
 */
#include <fcntl.h>
#include <linux/ioctl.h>
#include <linux/spi/spidev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "driver/spi.h"
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
	const char *env = getenv("OFFLOAD_SPIDEV_DMA_MINALIGN");
	uint32_t a = SPIDEV_DMA_MINALIGN;
	struct utsname u;

	if (env && env[0]) {
		char *end = NULL;
		unsigned long v = strtoul(env, &end, 0);
		if (!end || *end || v == 0 || v > 4096 || (v & (v - 1))) {
			snprintf(why, why_len,
				 "OFFLOAD_SPIDEV_DMA_MINALIGN=\"%s\" is not a power of two from 1 to 4096",
				 env);
			return 0;
		}
		return (uint32_t)v;
	}
	if (uname(&u) == 0 && (strcmp(u.machine, "aarch64") == 0 || strncmp(u.machine, "armv8", 5) == 0))
		a = OFL_MAX(a, 128u);
	return a;
}

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

static int setup_mode(struct spidev_handle *h, struct ofl_spi_cfg *cfg, bool dspi, char *why,
		      size_t why_len)
{
	uint32_t want = cfg->mode, got = 0;
	int r;

	if (cfg->mode_set) {
		r = ioctl(h->fd, SPI_IOC_WR_MODE32, &want) < 0 ? -errno : 0;
		if (r == -ENOTTY) { /* spidev before SPI_IOC_WR_MODE32 (Linux 3.15) */
			uint8_t m8 = (uint8_t)want;
			if (want > 0xff) {
				snprintf(why, why_len,
					 "%s has no SPI_IOC_WR_MODE32, and mode 0x%x does not fit the 8-bit "
					 "SPI_IOC_WR_MODE",
					 h->dev, want);
				return -EINVAL;
			}
			r = ioctl(h->fd, SPI_IOC_WR_MODE, &m8) < 0 ? -errno : 0;
		}
		if (r < 0) {
			snprintf(why, why_len, "the kernel refused mode 0x%x on %s: %s (spi_setup)%s",
				 want, h->dev, strerror(-r), dspi_hint(dspi));
			return r;
		}
	}
	r = read_mode(h->fd, &got);
	if (r < 0) {
		snprintf(why, why_len, "cannot read the mode of %s: %s", h->dev, strerror(-r));
		return r;
	}
	if (!cfg->mode_set) {
		cfg->mode = got & OFFLOAD_SPI_MODE_ALL;
		return 0;
	}
	/*
	 * spi_setup() silently drops dual/quad bits the controller lacks, and
	 * spidev hides CS_HIGH when the chip select is a GPIO (spidev.c spidev_ioctl()
	 * SPI_IOC_RD_MODE; spi.c spi_register_controller() use_gpio_descriptors).
	 * Lanes the DT asked for are dropped as Linux itself drops them; lanes
	 * the caller asked for are an error.
	 */
	uint32_t dropped = want & ~got & ~(uint32_t)OFFLOAD_SPI_CS_HIGH;
	if (dropped & ~cfg->mode_dt_lanes) {
		snprintf(why, why_len,
			 "the controller behind %s does not support mode bits 0x%x (the kernel "
			 "dropped them: mode 0x%x requested, 0x%x in effect)%s",
			 h->dev, dropped, want, got, dspi_hint(dspi));
		return -EINVAL;
	}
	cfg->mode = want & ~dropped;
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
	r = setup_mode(h, cfg, dspi, why, why_len);
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
	lim->max_xfers = SPIDEV_MAX_XFERS;
	lim->budget = h->bufsiz;
	lim->align = align;
	lim->bpw_mask = 0xffffffffu; /* the controller decides; its refusal comes back as EINVAL */
	lim->per_xfer_speed = !dspi;
	lim->cs_hold = true;
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
			h->held = false;
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

/* An empty message: CS is asserted if it was not, nothing is clocked, CS is released. */
static int spidev_release_cs(void *priv)
{
	struct spidev_handle *h = priv;
	struct spi_ioc_transfer t;

	if (!h->held)
		return 0;
	memset(&t, 0, sizeof(t));
	if (ioctl(h->fd, SPI_IOC_MESSAGE(1), &t) < 0)
		return -errno;
	h->held = false;
	return 1;
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
