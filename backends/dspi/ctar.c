/* SPDX-License-Identifier: MIT */
/*
 * CTAR for a device at a clock, as Linux dspi_setup() computes it
 * (spi-fsl-dspi.c dspi_setup()): CPOL, CPHA, LSBFE from the mode; PBR/BR by
 * hz_to_spi_baud's rule (never faster than asked); PCSSCK/CSSCK and
 * PASC/ASC from the CS setup/hold delays raised to a quarter SCK period,
 * by ns_delay_scale's rule. Unlike Linux, which computes CTAR once per
 * device in spi_setup() and ignores each transfer's speed_hz, the backend
 * recomputes it per transfer clock, so per-transfer speeds are honoured
 * (across a released chip select: xfer.c).
 */
#include "dspi.h"

/* S32G: MTF (and DBR) above 25 MHz (Linux dspi_setup, SPI_25MHZ). */
#define DSPI_MTF_ABOVE_HZ 25000000u

uint32_t dspi_clamp_hz(const struct dspi_ctrl *c, uint32_t hz)
{
	uint64_t max = c->fp / c->clock_factor;

	return hz > max ? (uint32_t)max : hz;
}

int dspi_timing(const struct dspi_ctrl *c, uint32_t mode, uint32_t hz, uint32_t setup_ns,
		uint32_t hold_ns, struct dspi_timing *t)
{
	uint8_t pbr = 0, br = 0, pcssck = 0, cssck = 0, pasc = 0, asc = 0;
	uint32_t q = dspi_quarter_period_ns(hz);

	t->mtf = c->s32g && hz > DSPI_MTF_ABOVE_HZ;
	if (!dspi_baud_select(c->fp, hz, t->mtf, &pbr, &br))
		return -EINVAL;
	t->delay_clipped = !dspi_delay_select(c->fp, setup_ns > q ? setup_ns : q, &pcssck, &cssck);
	t->delay_clipped |= !dspi_delay_select(c->fp, hold_ns > q ? hold_ns : q, &pasc, &asc);
	t->ctar = DSPI_CTAR_PCSSCK(pcssck) | DSPI_CTAR_CSSCK(cssck) | DSPI_CTAR_PASC(pasc) |
		  DSPI_CTAR_ASC(asc) | DSPI_CTAR_PBR(pbr) | DSPI_CTAR_BR(br);
	if (t->mtf)
		t->ctar |= DSPI_CTAR_DBR;
	if (mode & OFFLOAD_SPI_CPOL)
		t->ctar |= DSPI_CTAR_CPOL;
	if (mode & OFFLOAD_SPI_CPHA)
		t->ctar |= DSPI_CTAR_CPHA;
	if (mode & OFFLOAD_SPI_LSB_FIRST)
		t->ctar |= DSPI_CTAR_LSBFE;
	t->sck_hz = (uint32_t)(dspi_ctar_sck_mhz(c->fp, t->ctar) / 1000u);
	return 0;
}
