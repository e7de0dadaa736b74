/* SPDX-License-Identifier: MIT */
/*
 * The SPI op table of the dspi backend: opening a chip select of a bound
 * controller, messages, releasing a held chip select, info.
 *
 * What a handle can do, compared with Linux's spi-fsl-dspi (dspi_setup(),
 * its mode_bits; mode bits of include/uapi/linux/spi/spi.h):
 *  - mode bits CPOL, CPHA, LSB_FIRST as Linux; CS_HIGH on a native chip
 *    select by clearing its MCR.PCSIS bit (Linux keeps native PCS
 *    active-low); NO_CS by commands with no PCS bit (Linux refuses it);
 *    3WIRE and LOOP refused (no such hardware; Linux refuses them too);
 *    dual/quad lanes from the DT's bus widths dropped as Linux does, asked
 *    for explicitly refused;
 *  - words of 4..32 bits in the XSPI flow, 4..16 in the EOQ flow; LSB-first
 *    bytes packed into 16/32-bit frames in wire order (Linux reverses them
 *    within each frame: audit dspi.md F1);
 *  - each transfer's speed_hz honoured (CTAR recomputed per clock), clamped
 *    to fP / max_clock_factor like Linux's controller maximum, where the
 *    chip select is released before the clock changes: under a held chip
 *    select only the frame size may change (xfer.c; Linux ignores
 *    speed_hz, programming one CTAR per device);
 *  - CS kept asserted after a message whose last transfer has cs_change;
 *  - chip selects 0..5 only (PCS is 6 bits), no GPIO chip selects.
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dspi.h"


#define LANES (OFFLOAD_SPI_TX_DUAL | OFFLOAD_SPI_TX_QUAD | OFFLOAD_SPI_RX_DUAL | OFFLOAD_SPI_RX_QUAD)

/* Rewrite MCR.PCSIS for the chip selects opened with CS_HIGH (MCR changes only while halted). */
static int update_pcsis(struct dspi_ctrl *c)
{
	uint32_t cs = c->num_cs < DSPI_MAX_NATIVE_CS ? c->num_cs : DSPI_MAX_NATIVE_CS;
	uint32_t idle_high = (1u << cs) - 1u;

	for (unsigned i = 0; i < DSPI_MAX_NATIVE_CS; i++)
		if (c->cs_high_users[i])
			idle_high &= ~(1u << i);
	uint32_t mcr = (c->mcr & ~DSPI_MCR_PCSIS_MASK) | DSPI_MCR_PCSIS(idle_high);

	if (mcr == c->mcr)
		return 0;
	int r = dspi_halt(c, true);
	dspi_mcr(c, mcr | DSPI_MCR_HALT);
	return r;
}

static int check_mode(struct ofl_spi_cfg *cfg, char *why, size_t wl)
{
	if (cfg->mode & OFFLOAD_SPI_LOOP) {
		snprintf(why, wl, "the DSPI has no internal loopback (SPI_LOOP; Linux refuses it too)");
		return -EINVAL;
	}
	if (cfg->mode & OFFLOAD_SPI_3WIRE) {
		snprintf(why, wl, "the DSPI has separate SIN and SOUT, no 3-wire mode (Linux refuses it too)");
		return -EINVAL;
	}
	if (cfg->mode & LANES) {
		if ((cfg->mode & LANES) != cfg->mode_dt_lanes) {
			snprintf(why, wl, "the DSPI has one data line each way: dual/quad mode 0x%x refused",
				 cfg->mode & LANES);
			return -EINVAL;
		}
		cfg->mode &= ~LANES; /* from spi-tx/rx-bus-width: dropped, as Linux's spi_setup does */
	}
	return 0;
}

/* dspi_timing(), with the reason when the clock is below what the divider reaches. */
static int timing(const struct dspi_ctrl *c, uint32_t mode, uint32_t hz, uint32_t setup_ns,
		  uint32_t hold_ns, struct dspi_timing *t, char *why, size_t wl)
{
	if (dspi_timing(c, mode, hz, setup_ns, hold_ns, t) == 0)
		return 0;
	uint64_t m = dspi_min_sck_mhz(c->fp);
	snprintf(why, wl, "%u Hz is below the slowest SCK, %llu / %u = %llu.%03llu Hz (rounded up)", hz,
		 (unsigned long long)c->fp, DSPI_MAX_BAUD_DIV, (unsigned long long)(m / 1000u),
		 (unsigned long long)(m % 1000u));
	return -EINVAL;
}

static int dspi_open(struct offload_ctx *ctx, void *bstate, struct ofl_spi_cfg *cfg, void **priv,
		     struct ofl_spi_limits *lim, char *why, size_t wl)
{
	struct dspi_timing t;
	int r;

	OFL_UNUSED(bstate);
	if (cfg->spidev[0]) {
		snprintf(why, wl, "a /dev/spidev path is the kernel's");
		return -ENODEV;
	}
	if (cfg->owner != &ofl_backend_dspi) {
		snprintf(why, wl, "not a DSPI controller");
		return -ENODEV;
	}
	if (!cfg->dev || cfg->dev->backend != &ofl_backend_dspi || !cfg->dev->priv) {
		snprintf(why, wl, "the controller is not bound to the direct backend%s%.200s",
			 cfg->dev ? ": " : "", cfg->dev ? cfg->dev->usable_reason : "");
		return -ENODEV;
	}
	struct dspi_ctrl *c = cfg->dev->priv;
	if (cfg->chip_select < 0 || (unsigned)cfg->chip_select >= c->num_cs) {
		snprintf(why, wl, "chip select %d is beyond spi-num-chipselects = %u", cfg->chip_select,
			 c->num_cs);
		return -EINVAL;
	}
	unsigned cs = (unsigned)cfg->chip_select;
	if (cs >= DSPI_MAX_NATIVE_CS) {
		snprintf(why, wl, "chip select %u cannot be named: the PUSHR PCS field has 6 bits "
			 "(Linux spi-fsl-dspi.c SPI_PUSHR_CMD_PCS)", cs);
		return -EINVAL;
	}
	if (ofl_spi_cs_is_gpio(ofl_drv(ctx)->dt.fdt, cfg->dev->node, cs)) {
		snprintf(why, wl, "chip select %u is a GPIO (cs-gpios); the direct backend drives native "
			 "PCS only, use the kernel through spidev", cs);
		return -ENOTSUP;
	}
	if ((r = check_mode(cfg, why, wl)) < 0)
		return r;
	unsigned maxbpw = c->flow == DSPI_FLOW_XSPI ? 32u : 16u;
	if (cfg->bits_per_word < 4 || cfg->bits_per_word > maxbpw) {
		snprintf(why, wl, "%u bits per word: the %s flow takes 4..%u", cfg->bits_per_word,
			 c->flow == DSPI_FLOW_XSPI ? "XSPI" : "EOQ", maxbpw);
		return -EINVAL;
	}
	uint32_t hz = dspi_clamp_hz(c, cfg->max_speed_hz ? cfg->max_speed_hz : UINT32_MAX);
	if ((r = timing(c, cfg->mode, hz, cfg->cs_setup_ns, cfg->cs_hold_ns, &t, why, wl)) < 0)
		return r;
	struct dspi_handle *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->c = c;
	h->ctx = ctx;
	h->cs = cs;
	h->mode = cfg->mode;
	h->speed = hz;
	h->bpw = cfg->bits_per_word;
	h->cs_setup_ns = cfg->cs_setup_ns;
	h->cs_hold_ns = cfg->cs_hold_ns;
	h->ctar = t.ctar;
	h->actual_hz = t.sck_hz;
	ofl_strlcpy(h->path, cfg->path, sizeof(h->path));
	pthread_mutex_lock(&c->mu);
	if (cfg->mode & OFFLOAD_SPI_CS_HIGH)
		c->cs_high_users[cs]++;
	r = update_pcsis(c);
	if (r < 0 && (cfg->mode & OFFLOAD_SPI_CS_HIGH))
		c->cs_high_users[cs]--;
	pthread_mutex_unlock(&c->mu);
	if (r < 0) {
		snprintf(why, wl, "the module did not halt to change MCR.PCSIS");
		free(h);
		return r;
	}
	if (!cfg->max_speed_hz)
		cfg->max_speed_hz = hz;
	lim->max_xfers = OFFLOAD_SPI_MAX_XFERS;
	lim->budget = 0;
	lim->align = 1;
	lim->bpw_mask = maxbpw == 32 ? 0xFFFFFFF8u : 0x0000FFF8u;
	lim->per_xfer_speed = true;
	lim->cs_hold = true;
	*priv = h;
	snprintf(why, wl, "dspi: chip select %u, SCK %u Hz for %u Hz asked (fP %llu Hz)%s", cs,
		 t.sck_hz, hz, (unsigned long long)c->fp,
		 t.delay_clipped ? "; a CS delay exceeds the delay scaler's maximum and was clipped" : "");
	return 0;
}

/* Check each transfer's clock before anything is clocked. */
static int check_speeds(struct dspi_handle *h, const struct offload_spi_xfer *x, unsigned n)
{
	uint8_t pbr, br;

	for (unsigned i = 0; i < n; i++) {
		uint32_t hz = dspi_clamp_hz(h->c, x[i].speed_hz ? x[i].speed_hz : h->speed);
		uint64_t m = dspi_min_sck_mhz(h->c->fp);
		if (!dspi_baud_select(h->c->fp, hz, false, &pbr, &br))
			return ofl_err(h->ctx, -EINVAL,
				       "offload_spi_transfer: transfer %u: speed_hz %u is below the slowest SCK "
				       "the DSPI divider gives, %llu / %u = %llu.%03llu Hz (rounded up)",
				       i, hz, (unsigned long long)h->c->fp, DSPI_MAX_BAUD_DIV,
				       (unsigned long long)(m / 1000u), (unsigned long long)(m % 1000u));
	}
	return 0;
}

static int dspi_xfer(void *priv, const struct offload_spi_xfer *x, unsigned n, uint32_t total)
{
	struct dspi_handle *h = priv;
	int r = check_speeds(h, x, n);

	return r < 0 ? r : dspi_message(h, x, n, total);
}

static int dspi_release_cs(void *priv)
{
	return dspi_release(priv, false);
}

/*
 * A new mode and/or clock: CTAR recomputed (CPOL, CPHA, LSBFE and the
 * dividers, ctar.c), MCR.PCSIS rewritten when CS_HIGH changes. Refused
 * while the handle's chip select is held: under a held PCS, CTAR0 may
 * change in FMSZ only (xfer.c, audit F6), and CPOL or the PCS idle level
 * would move under the selected device. A PCSIS change halts the module,
 * so it waits too while any other chip select is held.
 */
static int dspi_set(void *priv, struct ofl_spi_cfg *cfg, bool mode, char *why, size_t wl)
{
	struct dspi_handle *h = priv;
	struct dspi_ctrl *c = h->c;
	struct dspi_timing t;
	int r;

	if (mode && (r = check_mode(cfg, why, wl)) < 0)
		return r;
	uint32_t hz = dspi_clamp_hz(c, cfg->max_speed_hz);
	if ((r = timing(c, cfg->mode, hz, h->cs_setup_ns, h->cs_hold_ns, &t, why, wl)) < 0)
		return r;
	bool high = (cfg->mode & OFFLOAD_SPI_CS_HIGH) != 0;
	bool pcsis = high != ((h->mode & OFFLOAD_SPI_CS_HIGH) != 0);
	pthread_mutex_lock(&c->mu);
	if (c->held_cs == (int)h->cs || (pcsis && c->held_cs >= 0)) {
		int held = c->held_cs;
		pthread_mutex_unlock(&c->mu);
		snprintf(why, wl,
			 "chip select %d is held asserted (the last message on it ended with cs_change); "
			 "%s: send it a message whose last transfer has no cs_change first",
			 held, held == (int)h->cs ? "the mode and clock cannot change under it"
						 : "changing CS_HIGH halts the module (MCR.PCSIS)");
		return -EBUSY;
	}
	if (pcsis) {
		if (high)
			c->cs_high_users[h->cs]++;
		else
			c->cs_high_users[h->cs]--;
		r = update_pcsis(c);
		if (r < 0) {
			if (high)
				c->cs_high_users[h->cs]--;
			else
				c->cs_high_users[h->cs]++;
			(void)update_pcsis(c);
			pthread_mutex_unlock(&c->mu);
			snprintf(why, wl, "the module did not halt to change MCR.PCSIS");
			return r;
		}
	}
	h->mode = cfg->mode;
	h->speed = hz;
	h->ctar = t.ctar;
	h->actual_hz = t.sck_hz;
	h->last_speed = 0; /* its CTAR was computed for the old mode */
	pthread_mutex_unlock(&c->mu);
	cfg->max_speed_hz = hz;
	return 0;
}

static void dspi_close(void *priv)
{
	struct dspi_handle *h = priv;
	struct dspi_ctrl *c = h->c;

	dspi_release(h, true);
	pthread_mutex_lock(&c->mu);
	if (h->mode & OFFLOAD_SPI_CS_HIGH) {
		c->cs_high_users[h->cs]--;
		update_pcsis(c);
	}
	pthread_mutex_unlock(&c->mu);
	free(h);
}

static void dspi_info(const void *priv, struct offload_spi_info *info)
{
	const struct dspi_handle *h = priv;

	info->backend = h->c->sim ? "dspi-sim" : "dspi";
	info->flags = OFFLOAD_RES_DIRECT | (h->c->sim ? OFFLOAD_RES_SIM : OFFLOAD_RES_HARDWARE);
	info->actual_speed_hz = h->actual_hz;
	info->max_message_bytes = 0;
}

const struct ofl_spi_ops dspi_spi_ops = {
	.open = dspi_open,
	.xfer = dspi_xfer,
	.release_cs = dspi_release_cs,
	.set = dspi_set,
	.close = dspi_close,
	.info = dspi_info,
};
