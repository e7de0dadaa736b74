/* SPDX-License-Identifier: MIT */
/* The spidev stand-in; see fakespi.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fakespi.h"

int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
int __real_close(int fd);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_close(int fd);

#define MAX_DEVS 16
#define MAX_FDS 64

static struct fake_spi *devs[MAX_DEVS];
static struct {
	int fd;
	struct fake_spi *dev;
	uint8_t *txb, *rxb; /* this open's bounce buffers (spidev shares them; one user at a time here) */
} fds[MAX_FDS];

/*
 * The kernel this program runs on, by its uname machine (a 32-bit program
 * may run on an arm64 kernel): arm64 128 (arch/arm64/include/asm/cache.h);
 * 32-bit ARM L1_CACHE_BYTES, 1 << CONFIG_ARM_L1_CACHE_SHIFT = 64 on v7
 * (arch/arm/include/asm/cache.h, Debian's armmp config); x86 none, so
 * __alignof__(unsigned long long) = 8 (include/linux/cache.h); else 128.
 */
uint32_t fake_spi_host_minalign(void)
{
	struct utsname u;

	if (uname(&u) != 0)
		return 128;
	if (strcmp(u.machine, "aarch64") == 0 || strncmp(u.machine, "armv8", 5) == 0)
		return 128;
	if (strncmp(u.machine, "arm", 3) == 0)
		return 64;
	if (strcmp(u.machine, "x86_64") == 0 || (u.machine[0] == 'i' && strstr(u.machine, "86")))
		return 8;
	return 128;
}

void fake_spi_cfg_default(struct fake_spi_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->ctlr_mode_bits = FK_CPHA | FK_CPOL | FK_CS_HIGH | FK_LSB_FIRST | FK_3WIRE | FK_LOOP |
			    FK_NO_CS | FK_TX_DUAL | FK_TX_QUAD | FK_RX_DUAL | FK_RX_QUAD;
	c->ctlr_max_hz = 50000000;
	c->dev_max_hz = 10000000;
	c->bufsiz = 4096;
	c->dma_minalign = fake_spi_host_minalign();
}

void fake_spi_cfg_dspi(struct fake_spi_cfg *c)
{
	fake_spi_cfg_default(c);
	/* mode_bits CPOL|CPHA|LSB_FIRST, plus CS_HIGH from use_gpio_descriptors (spi.c spi_register_controller()). */
	c->ctlr_mode_bits = FK_CPOL | FK_CPHA | FK_LSB_FIRST | FK_CS_HIGH;
	c->bpw_mask = 0xFFFFFFF8u; /* XSPI: 4..32 */
	c->ctlr_max_hz = 25000000; /* LS1028A: platform PLL 400 MHz / 2 = 200 MHz, / 8 */
	c->dev_max_hz = 10000000;
	c->dev_mode = FK_CPOL | FK_CPHA;
	c->setup_only_clock = true;
	c->dspi_driver = true;
}

struct fake_spi *fake_spi_add(const char *path, const struct fake_spi_cfg *cfg)
{
	for (int i = 0; i < MAX_DEVS; i++)
		if (!devs[i]) {
			struct fake_spi *d = calloc(1, sizeof(*d));
			if (!d)
				abort();
			snprintf(d->path, sizeof(d->path), "%s", path);
			d->cfg = *cfg;
			d->mode = cfg->dev_mode;
			/*
			 * A GPIO chip select is active high in the logical sense
			 * (gpiolib applies the line's polarity), so the core sets
			 * SPI_CS_HIGH (spi.c __spi_add_device()).
			 */
			if (cfg->gpio_cs)
				d->mode |= FK_CS_HIGH;
			d->bpw = cfg->dev_bpw ? cfg->dev_bpw : 8;
			d->max_speed_hz = cfg->dev_max_hz;
			if (!d->max_speed_hz || (cfg->ctlr_max_hz && d->max_speed_hz > cfg->ctlr_max_hz))
				d->max_speed_hz = cfg->ctlr_max_hz;
			d->speed_hz = d->max_speed_hz;
			d->sck_hz = d->max_speed_hz;
			devs[i] = d;
			return d;
		}
	abort();
}

void fake_spi_reset(void)
{
	for (int i = 0; i < MAX_FDS; i++)
		fds[i].dev = NULL;
	for (int i = 0; i < MAX_DEVS; i++) {
		if (devs[i])
			free(devs[i]->trace);
		free(devs[i]);
		devs[i] = NULL;
	}
}

const char *fake_spi_trace(const struct fake_spi *d)
{
	return d->trace ? d->trace : "";
}

void fake_spi_trace_clear(struct fake_spi *d)
{
	d->trace_len = 0;
	if (d->trace)
		d->trace[0] = '\0';
	d->fmt[0] = '\0';
}

static void emit(struct fake_spi *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct fake_spi *d, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (d->trace_len + (size_t)n + 1 > d->trace_cap) {
		d->trace_cap = (d->trace_len + (size_t)n + 1) * 2;
		d->trace = realloc(d->trace, d->trace_cap);
		if (!d->trace)
			abort();
	}
	memcpy(d->trace + d->trace_len, tmp, (size_t)n + 1);
	d->trace_len += (size_t)n;
}

static void cs(struct fake_spi *d, bool on)
{
	emit(d, on ? " CS+" : " CS-");
	d->fmt[0] = '\0';
	d->cs_active = on;
}

/* ---------------------------------------------------------------- open/close */

static struct fake_spi *dev_by_path(const char *path)
{
	for (int i = 0; i < MAX_DEVS; i++)
		if (devs[i] && strcmp(devs[i]->path, path) == 0)
			return devs[i];
	return NULL;
}

static int slot_of(int fd)
{
	for (int i = 0; i < MAX_FDS; i++)
		if (fds[i].dev && fds[i].fd == fd)
			return i;
	return -1;
}

static int fake_open(const char *path, int flags, int *handled)
{
	struct fake_spi *d = dev_by_path(path);

	*handled = 1;
	if (!d) {
		if (strncmp(path, "/dev/spidev", 11) == 0) {
			errno = ENOENT;
			return -1;
		}
		*handled = 0;
		return -1;
	}
	if ((flags & O_ACCMODE) != O_RDWR) {
		errno = EINVAL; /* the library must open read-write, as spidev_test does */
		return -1;
	}
	for (int i = 0; i < MAX_FDS; i++)
		if (!fds[i].dev) {
			int fd = __real_open("/dev/null", O_RDWR | O_CLOEXEC);
			if (fd < 0)
				return -1;
			fds[i].fd = fd;
			fds[i].dev = d;
			/* spidev_open: TX and RX bounce buffers of bufsiz bytes. */
			fds[i].txb = malloc(d->cfg.bufsiz ? d->cfg.bufsiz : 1);
			fds[i].rxb = malloc(d->cfg.bufsiz ? d->cfg.bufsiz : 1);
			if (!fds[i].txb || !fds[i].rxb)
				abort();
			d->users++;
			return fd;
		}
	errno = EMFILE;
	return -1;
}

/* open() and open64() take a mode only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)                                         \
	do {                                                           \
		va_list ap_;                                           \
		va_start(ap_, flags);                                  \
		if ((flags) & (O_CREAT | O_TMPFILE))                   \
			mode = (mode_t)va_arg(ap_, int);               \
		va_end(ap_);                                           \
	} while (0)

static int wrapped_open(bool large, const char *path, int flags, mode_t mode)
{
	int handled, r = fake_open(path, flags, &handled);

	if (handled)
		return r;
	return large ? __real_open64(path, flags, mode) : __real_open(path, flags, mode);
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	return wrapped_open(false, path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	return wrapped_open(true, path, flags, mode);
}

int __wrap_close(int fd)
{
	int s = slot_of(fd);

	if (s >= 0) {
		struct fake_spi *d = fds[s].dev;
		free(fds[s].txb);
		free(fds[s].rxb);
		memset(&fds[s], 0, sizeof(fds[s]));
		/* spidev_release: the last close resets the default speed to the device max. */
		if (--d->users == 0)
			d->speed_hz = d->max_speed_hz;
	}
	return __real_close(fd);
}

/* ---------------------------------------------------------------- spi_setup */

#define LANES (FK_TX_DUAL | FK_TX_QUAD | FK_TX_OCTAL | FK_RX_DUAL | FK_RX_QUAD | FK_RX_OCTAL)

static bool bpw_ok(const struct fake_spi *d, unsigned bpw)
{
	if (!d->cfg.bpw_mask)
		return bpw >= 1 && bpw <= 32;
	return bpw >= 1 && bpw <= 32 && (d->cfg.bpw_mask & (1u << (bpw - 1)));
}

/* drivers/spi/spi.c spi_setup(), with the controller's setup computing SCK. */
static int setup(struct fake_spi *d, const char *why)
{
	uint32_t m = d->mode;

	if (((m & FK_TX_DUAL) && (m & FK_TX_QUAD)) || ((m & FK_RX_DUAL) && (m & FK_RX_QUAD)))
		return -EINVAL;
	if ((m & FK_3WIRE) && (m & LANES))
		return -EINVAL;
	/* spi_register_controller adds CS_HIGH to mode_bits of GPIO-descriptor hosts. */
	uint32_t ctlr = d->cfg.ctlr_mode_bits | (d->cfg.gpio_cs ? FK_CS_HIGH : 0);
	uint32_t bad = m & ~(ctlr | FK_CS_WORD);
	uint32_t ugly = bad & LANES;
	if (ugly) { /* "setup: ignoring unsupported mode bits" */
		d->mode &= ~ugly;
		bad &= ~ugly;
	}
	if (bad)
		return -EINVAL;
	if (!d->bpw)
		d->bpw = 8;
	if (!bpw_ok(d, d->bpw))
		return -EINVAL;
	if (!d->max_speed_hz || (d->cfg.ctlr_max_hz && d->max_speed_hz > d->cfg.ctlr_max_hz))
		d->max_speed_hz = d->cfg.ctlr_max_hz;
	d->sck_hz = d->max_speed_hz;
	/* spi-fsl-dspi: native PCS active-low whatever the mode says (dspi_init) */
	d->wire_cs_active_high = (m & FK_CS_HIGH) && (!d->cfg.dspi_driver || d->cfg.gpio_cs);
	d->setups++;
	snprintf(d->last_setup, sizeof(d->last_setup), "%s", why);
	return 0;
}

/* ---------------------------------------------------------------- messages */

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (uint32_t)(((uint64_t)v + a - 1) / a * a);
}

/* drivers/spi/spi.c __spi_validate() on the kernel copies k[0..n). */
static int validate(struct fake_spi *d, struct spi_ioc_transfer *k, unsigned n)
{
	if (n == 0)
		return -EINVAL;
	if (d->cfg.half_duplex || (d->mode & FK_3WIRE))
		for (unsigned i = 0; i < n; i++)
			if (k[i].rx_buf && k[i].tx_buf)
				return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		struct spi_ioc_transfer *t = &k[i];
		if (!t->bits_per_word)
			t->bits_per_word = d->bpw;
		if (!t->speed_hz)
			t->speed_hz = d->max_speed_hz;
		if (d->cfg.ctlr_max_hz && t->speed_hz > d->cfg.ctlr_max_hz)
			t->speed_hz = d->cfg.ctlr_max_hz;
		if (!bpw_ok(d, t->bits_per_word))
			return -EINVAL;
		unsigned w = t->bits_per_word <= 8 ? 1 : t->bits_per_word <= 16 ? 2 : 4;
		if (t->len % w)
			return -EINVAL;
		if (t->speed_hz && d->cfg.ctlr_min_hz && t->speed_hz < d->cfg.ctlr_min_hz)
			return -EINVAL;
		if (t->tx_buf && !t->tx_nbits)
			t->tx_nbits = 1;
		if (t->rx_buf && !t->rx_nbits)
			t->rx_nbits = 1;
		if (t->tx_buf) {
			if (t->tx_nbits != 1 && t->tx_nbits != 2 && t->tx_nbits != 4)
				return -EINVAL;
			if (t->tx_nbits == 2 && !(d->mode & (FK_TX_DUAL | FK_TX_QUAD)))
				return -EINVAL;
			if (t->tx_nbits == 4 && !(d->mode & FK_TX_QUAD))
				return -EINVAL;
		}
		if (t->rx_buf) {
			if (t->rx_nbits != 1 && t->rx_nbits != 2 && t->rx_nbits != 4)
				return -EINVAL;
			if (t->rx_nbits == 2 && !(d->mode & (FK_RX_DUAL | FK_RX_QUAD)))
				return -EINVAL;
			if (t->rx_nbits == 4 && !(d->mode & FK_RX_QUAD))
				return -EINVAL;
		}
	}
	return 0;
}

/*
 * spi-fsl-dspi: the first transfer its dspi_transfer_one_message cannot
 * complete (len 0, or 3-byte words of 17..24 bits), or n.
 */
static unsigned dspi_stall_at(const struct fake_spi *d, const struct spi_ioc_transfer *k, unsigned n)
{
	if (!d->cfg.dspi_driver)
		return n;
	for (unsigned i = 0; i < n; i++)
		if (k[i].len == 0 || (k[i].bits_per_word >= 17 && k[i].bits_per_word <= 24))
			return i;
	return n;
}

/* spi-fsl-dspi's FIFO depth on the LS1028A (devtype_data fifo_size), in XSPI mode. */
#define DSPI_FIFO 4u

/*
 * spi-fsl-dspi with LSB_FIRST: the order in which the memory bytes of t
 * reach the wire. Per FIFO batch dspi_setup_accel picks the operating
 * frame: 8-bit words go as 16-bit frames (even length up to twice the
 * FIFO), natively (odd length up to the FIFO) or as 32-bit frames; 16-bit
 * words natively up to twice the FIFO, else as 32-bit frames. The packing
 * puts the first byte (word) high (dspi_8on16/8on32/16on32_host_to_dev) and
 * LSBFE shifts the frame from its LSB, so within a frame the bytes (16-bit
 * words) leave last first. idx[j] = the memory byte that is j-th on the wire.
 */
static void dspi_lsb_order(const struct spi_ioc_transfer *t, uint32_t *idx)
{
	uint32_t pos = 0, rem = t->len;
	unsigned bpw = t->bits_per_word;

	for (uint32_t j = 0; j < t->len; j++)
		idx[j] = j;
	if (bpw != 8 && bpw != 16)
		return;
	while (rem) {
		unsigned ob; /* operating frame in bytes */
		if (bpw == 8)
			ob = rem % 2 == 0 && rem <= 2 * DSPI_FIFO ? 2 : rem % 2 && rem <= DSPI_FIFO ? 1 : 4;
		else
			ob = rem <= 2 * DSPI_FIFO ? 2 : 4;
		while (ob > 1 && rem < ob)
			ob /= 2;
		uint32_t words = rem / ob, fit = ob == 4 ? DSPI_FIFO / 2 : DSPI_FIFO;
		if (words > fit)
			words = fit;
		for (uint32_t w = 0; w < words; w++, pos += ob) {
			unsigned unit = bpw / 8; /* bytes per word: moved whole */
			for (unsigned u = 0; u < ob / unit; u++)
				for (unsigned b = 0; b < unit; b++)
					idx[pos + u * unit + b] = pos + (ob / unit - 1 - u) * unit + b;
		}
		rem -= words * ob;
	}
}

/*
 * The wire for one message, as spi_transfer_one_message drives it: CS
 * asserted unless still asserted from a previous message, each transfer's
 * words, its delay, cs_change toggling CS between transfers or keeping it
 * asserted after the last one, otherwise CS released at the end. The
 * loop-back puts the MOSI bytes into the RX bounce buffer.
 */
static void run_wire(struct fake_spi *d, struct spi_ioc_transfer *k, unsigned n,
		     const uint8_t *const *tx, uint8_t *const *rx)
{
	unsigned stall = dspi_stall_at(d, k, n);

	if (!d->cs_active)
		cs(d, true);
	for (unsigned i = 0; i < n; i++) {
		if (i == stall) {
			/* spi-fsl-dspi: a command with no data; HALT, the chip select as it is */
			emit(d, " STALL");
			d->fmt[0] = '\0';
			d->stalls++;
			return;
		}
		struct spi_ioc_transfer *t = &k[i];
		char fmt[64];
		uint32_t hz = d->cfg.setup_only_clock ? d->sck_hz : t->speed_hz;

		snprintf(fmt, sizeof(fmt), " [%ub %uHz tx%u rx%u wd%u]", t->bits_per_word, hz,
			 t->tx_nbits, t->rx_nbits, t->word_delay_usecs);
		if (t->len && strcmp(fmt, d->fmt) != 0) {
			emit(d, "%s ", fmt);
			snprintf(d->fmt, sizeof(d->fmt), "%s", fmt);
		}
		uint32_t *idx = NULL;
		if (d->cfg.dspi_driver && (d->mode & FK_LSB_FIRST) && t->len) {
			idx = malloc(t->len * sizeof(*idx));
			if (!idx)
				abort();
			dspi_lsb_order(t, idx);
		}
		for (uint32_t b = 0; b < t->len; b++) {
			/* on the wire in idx order; the loop-back mirrors it back into place */
			uint8_t v = tx[i] ? tx[i][idx ? idx[b] : b] : 0;
			emit(d, "%02x", v);
			if (rx[i])
				rx[i][idx ? idx[b] : b] = v;
		}
		free(idx);
		if (rx[i] && d->cfg.corrupt_rx)
			rx[i][0] ^= 1;
		if (t->delay_usecs) {
			emit(d, " +%uus", t->delay_usecs);
			d->fmt[0] = '\0';
		}
		if (t->cs_change && i + 1 < n) {
			cs(d, false);
			cs(d, true);
		}
	}
	if (!k[n - 1].cs_change)
		cs(d, false);
}

/* spidev.c spidev_message() then spi_sync(). */
static int message(struct fake_spi *d, int slot, const struct spi_ioc_transfer *u, unsigned n)
{
	struct spi_ioc_transfer *k = calloc(n, sizeof(*k));
	const uint8_t **tx = calloc(n, sizeof(*tx));
	uint8_t **rx = calloc(n, sizeof(*rx));
	uint64_t total = 0;
	uint32_t tx_total = 0, rx_total = 0;
	int r = 0;

	if (!k || !tx || !rx)
		abort();
	d->message_calls++;
	for (unsigned i = 0; i < n && r == 0; i++) {
		uint32_t la = align_up(u[i].len, d->cfg.dma_minalign);
		k[i] = u[i];
		k[i].cs_change = !!u[i].cs_change;
		k[i].tx_buf = k[i].rx_buf = 0;
		total += u[i].len;
		if (total > INT_MAX || u[i].len > INT_MAX) {
			r = -EMSGSIZE;
			break;
		}
		if (u[i].rx_buf) {
			if ((uint64_t)rx_total + la > d->cfg.bufsiz) {
				r = -EMSGSIZE;
				break;
			}
			rx[i] = fds[slot].rxb + rx_total;
			rx_total += la;
			k[i].rx_buf = 1;
		}
		if (u[i].tx_buf) {
			if ((uint64_t)tx_total + la > d->cfg.bufsiz) {
				r = -EMSGSIZE;
				break;
			}
			memcpy(fds[slot].txb + tx_total, (const void *)(uintptr_t)u[i].tx_buf, u[i].len);
			tx[i] = fds[slot].txb + tx_total;
			tx_total += la;
			k[i].tx_buf = 1;
		}
		if (!k[i].speed_hz)
			k[i].speed_hz = d->speed_hz;
	}
	if (r == 0)
		r = validate(d, k, n);
	if (r == 0 && d->cfg.fail_message && d->message_calls == d->cfg.fail_message) {
		r = -d->cfg.fail_errno;
		/*
		 * EIO/ETIMEDOUT: the controller failed at the first transfer and the
		 * core dropped CS (spi-fsl-dspi: HALT only, CS left asserted).
		 * Anything else: refused before the wire, CS as it was.
		 */
		if (r == -EIO || r == -ETIMEDOUT) {
			if (!d->cs_active)
				cs(d, true);
			if (!d->cfg.dspi_driver)
				cs(d, false);
		}
	}
	if (r == 0 && dspi_stall_at(d, k, n) < n) {
		run_wire(d, k, n, tx, rx);
		r = -ETIMEDOUT;
	}
	if (r == 0) {
		run_wire(d, k, n, tx, rx);
		for (unsigned i = 0; i < n; i++)
			if (u[i].rx_buf)
				memcpy((void *)(uintptr_t)u[i].rx_buf, rx[i], u[i].len);
		if (d->messages < FAKE_MAX_LOGGED) {
			d->msg_xfers[d->messages] = n;
			d->msg_tx_budget[d->messages] = tx_total;
			d->msg_rx_budget[d->messages] = rx_total;
			d->msg_last_cs_change[d->messages] = k[n - 1].cs_change;
		}
		d->messages++;
		r = (int)total;
	}
	free(k);
	free(tx);
	free(rx);
	return r;
}

/* ---------------------------------------------------------------- ioctl */

static int do_ioctl(struct fake_spi *d, int slot, unsigned long req, void *arg)
{
	uint32_t tmp, save;
	int r;

	if (_IOC_TYPE(req) != SPI_IOC_MAGIC)
		return -ENOTTY;
	/* spidev before MODE32: request number 5 was unknown, so the message path said ENOTTY. */
	if (d->cfg.no_mode32 && (req == SPI_IOC_RD_MODE32 || req == SPI_IOC_WR_MODE32))
		return -ENOTTY;
	switch (req) {
	case SPI_IOC_RD_MODE:
	case SPI_IOC_RD_MODE32:
		tmp = d->mode & FK_SPIDEV_MODE_MASK;
		if (d->cfg.gpio_cs && !d->cfg.cs_high_visible)
			tmp &= ~FK_CS_HIGH;
		if (req == SPI_IOC_RD_MODE)
			*(uint8_t *)arg = (uint8_t)tmp;
		else
			*(uint32_t *)arg = tmp;
		return 0;
	case SPI_IOC_RD_LSB_FIRST:
		*(uint8_t *)arg = (d->mode & FK_LSB_FIRST) ? 1 : 0;
		return 0;
	case SPI_IOC_RD_BITS_PER_WORD:
		*(uint8_t *)arg = d->bpw;
		return 0;
	case SPI_IOC_RD_MAX_SPEED_HZ:
		*(uint32_t *)arg = d->speed_hz;
		return 0;
	case SPI_IOC_WR_MODE:
	case SPI_IOC_WR_MODE32:
		tmp = req == SPI_IOC_WR_MODE ? *(uint8_t *)arg : *(uint32_t *)arg;
		save = d->mode;
		if (tmp & ~FK_SPIDEV_MODE_MASK)
			return -EINVAL;
		if (d->cfg.gpio_cs && !d->cfg.cs_high_visible)
			tmp |= FK_CS_HIGH;
		tmp |= d->mode & ~FK_SPIDEV_MODE_MASK;
		d->mode = tmp & FK_MODE_USER_MASK;
		r = setup(d, "mode");
		if (r < 0)
			d->mode = save;
		return r;
	case SPI_IOC_WR_LSB_FIRST:
		save = d->mode;
		if (*(uint8_t *)arg)
			d->mode |= FK_LSB_FIRST;
		else
			d->mode &= ~FK_LSB_FIRST;
		r = setup(d, "lsb");
		if (r < 0)
			d->mode = save;
		return r;
	case SPI_IOC_WR_BITS_PER_WORD: {
		uint8_t sb = d->bpw;
		d->bpw = *(uint8_t *)arg;
		r = setup(d, "bits");
		if (r < 0)
			d->bpw = sb;
		return r;
	}
	case SPI_IOC_WR_MAX_SPEED_HZ:
		tmp = *(uint32_t *)arg;
		if (tmp == 0)
			return -EINVAL;
		save = d->max_speed_hz;
		d->max_speed_hz = tmp;
		r = setup(d, "speed");
		if (r == 0)
			d->speed_hz = tmp;
		d->max_speed_hz = save;
		return r;
	default:
		break;
	}
	/* spidev_get_ioc_message() */
	if (_IOC_NR(req) != 0 || _IOC_DIR(req) != _IOC_WRITE)
		return -ENOTTY;
	tmp = _IOC_SIZE(req);
	if (tmp % sizeof(struct spi_ioc_transfer))
		return -EINVAL;
	unsigned n = tmp / sizeof(struct spi_ioc_transfer);
	if (n == 0)
		return 0;
	if (n <= 512) {
		memcpy(d->last, arg, tmp);
		d->last_n = n;
	}
	return message(d, slot, arg, n);
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	int s = slot_of(fd);
	if (s < 0)
		return __real_ioctl(fd, req, arg);
	int r = do_ioctl(fds[s].dev, s, req, arg);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}
