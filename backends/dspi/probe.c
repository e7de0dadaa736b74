/* SPDX-License-Identifier: MIT */
/*
 * The dspi backend: binding a DSPI device-tree node (src/hw/dspi.h topics 1,
 * 2 and 5.1: fsl,dspi.yaml, spi-fsl-dspi.c devtype_data, dspi_probe()).
 *
 * Which flow: the devtype's register set decides (XSPI where CTARE/CMD FIFO
 * exist, as Linux runs every Layerscape and S32G part; the EOQ flow of the
 * 2017/2020 drivers on parts without them, e.g. VF610, which Linux drives
 * by eDMA and this backend by PIO). OFFLOAD_DSPI_MODE=eoq forces the EOQ
 * flow on any part (MCR.XSPI left 0), =xspi the XSPI flow where it exists.
 *
 * Who owns the registers: on a live system the kernel's spi-fsl-dspi
 * ("fsl-dspi") may be bound to the controller; then the backend refuses, as
 * two drivers on one register block corrupt each other's transfers. Unbound,
 * or bound to uio_pdrv_genirq / vfio-platform, the registers are mapped
 * through UIO, VFIO-platform or (OFFLOAD_DEVMEM=1) /dev/mem, always at the
 * address the device tree declares. With a simulated context the model of
 * src/sim/dspi.c serves them and everything is labelled sim.
 *
 * Init (Linux dspi_init): MCR = PCSIS (every native chip select idles
 * high) | XSPI (XSPI flow) | MSTR | HALT, with both FIFOs cleared (Linux
 * does not; the library takes over a controller in an unknown state);
 * SR = SPI_SR_CLEAR and EOQF (a stale end of queue would keep the module
 * stopped); RSER = 0, since the library polls and asks for no interrupt
 * (Linux enables CMDTCF there, and uses it only when the node has an
 * interrupt). Remove (Linux dspi_remove): the module halted, then both
 * FIFOs disabled (Linux sets DIS_TXF/DIS_RXF first, but MCR fields other
 * than HALT and MDIS may change only while the module is stopped, Kinetis
 * SPI_MCR).
 */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dspi.h"
#include "platform/sysfs.h"
#include "util/env.h"

/* Polls give up after this long, or 8 x a batch's wire time if longer. */
#define DSPI_TIMEOUT_FLOOR_NS (50u * 1000u * 1000u)

uint32_t dspi_rd(const struct dspi_ctrl *c, uint32_t off)
{
	uint32_t v = ofl_mmio_read32(&c->regs, off);

	return c->be ? __builtin_bswap32(v) : v;
}

void dspi_wr(const struct dspi_ctrl *c, uint32_t off, uint32_t v)
{
	ofl_mmio_write32(&c->regs, off, c->be ? __builtin_bswap32(v) : v);
}

void dspi_wr16(const struct dspi_ctrl *c, uint64_t off, uint16_t v)
{
	ofl_mmio_write16(&c->regs, off, c->be ? __builtin_bswap16(v) : v);
}

/* The driver bound to the controller's platform device, "" if none. */
static void bound_driver(const char *dt_path, char *pdev, size_t plen, char *drv, size_t dlen)
{
	char link[PATH_MAX_OFL], target[PATH_MAX_OFL];

	pdev[0] = drv[0] = '\0';
	if (ofl_platform_dev_by_of_node(dt_path, pdev, plen) < 0 ||
	    ofl_path(link, sizeof(link), "%s/bus/platform/devices/%s/driver", ofl_platform_roots()->sysfs,
		     pdev) < 0)
		return;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	const char *b = strrchr(target, '/');
	ofl_strlcpy(drv, b ? b + 1 : target, dlen);
}

static bool user_space_driver(const char *drv)
{
	return !drv[0] || strcmp(drv, "uio_pdrv_genirq") == 0 || strcmp(drv, "uio_dmem_genirq") == 0 ||
	       strcmp(drv, "vfio-platform") == 0;
}

static enum dspi_flow choose_flow(const struct offload_ctx *ctx, const struct dspi_devtype *t,
				  char *note, size_t nl)
{
	const char *env = NULL;
	bool xspi = t->xspi_regs;

	/* "eoq" or "xspi" when set: the open refused any other value (src/util/env.c) */
	if (!(ofl_drv_c(ctx)->flags & OFFLOAD_CTX_NO_ENV) &&
	    ofl_env_word("OFFLOAD_DSPI_MODE", &env, note, nl) != 1)
		env = NULL;
	note[0] = '\0';
	if (env && strcmp(env, "eoq") == 0) {
		snprintf(note, nl, " (OFFLOAD_DSPI_MODE=eoq)");
		return DSPI_FLOW_EOQ;
	}
	if (env && !xspi)
		snprintf(note, nl, " (OFFLOAD_DSPI_MODE=xspi ignored: this devtype has no XSPI registers)");
	return xspi ? DSPI_FLOW_XSPI : DSPI_FLOW_EOQ;
}

static void ctrl_free(struct dspi_ctrl *c)
{
	ofl_mmio_unmap(&c->regs);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static void init_regs(struct dspi_ctrl *c)
{
	uint32_t cs = c->num_cs < DSPI_MAX_NATIVE_CS ? c->num_cs : DSPI_MAX_NATIVE_CS;
	uint32_t mcr = DSPI_MCR_PCSIS((1u << cs) - 1u) | DSPI_MCR_MSTR | DSPI_MCR_HALT;

	if (c->flow == DSPI_FLOW_XSPI)
		mcr |= DSPI_MCR_XSPI;
	dspi_mcr(c, mcr | DSPI_MCR_CLR_TXF | DSPI_MCR_CLR_RXF);
	dspi_wr(c, DSPI_SR, DSPI_SR_CLEAR_EOQF);
	dspi_wr(c, DSPI_RSER, 0);
}

/*
 * The policy says what Linux does (transfer_mode stays Linux's, which doctor
 * reads as such); where this backend runs differently, the reasons say so,
 * as the udma backend notes what it programs itself.
 */
/*
 * The policy says what Linux does (transfer_mode stays Linux's, which doctor
 * reads as such); where this backend runs differently, it records that as a
 * probe-time finding, as the udma backend notes what it programs itself.
 */
static void note_policy(struct ofl_device *d, const struct dspi_ctrl *c, const char *flow_note)
{
	const struct ofl_policy *p = &d->policy;
	const char *name = c->flow == DSPI_FLOW_XSPI ? "xspi-pio" : "eoq-pio";

	if (strcmp(p->transfer_mode, name) == 0)
		return;
	ofl_dev_refine(d, OFL_DECIDE_TRANSFER, NULL,
		       "the direct backend runs the %s PIO flow here%s (completion by %s)",
		       c->flow == DSPI_FLOW_XSPI ? "XSPI" : "EOQ", flow_note,
		       c->flow == DSPI_FLOW_XSPI ? "SR.CMDTCF" : "SR.EOQF");
	if (strcmp(p->transfer_mode, "dma") == 0)
		ofl_dev_refine(d, OFL_DECIDE_CACHE, NULL,
			       "the direct backend's PIO flow uses no DMA, so nothing is maintained");
}

static int dspi_probe(struct offload_ctx *ctx, void *state, struct ofl_device *d, char *why, size_t wl)
{
	const struct dspi_devtype *t = d->match ? &dspi_row_of(d->match)->t : NULL;
	const void *fdt = ofl_drv(ctx)->dt.fdt;
	char w[OFL_REASON_LEN], note[96], pdev[128], drv[64];
	uint32_t ncs = 0;
	int r;

	OFL_UNUSED(state);
	if (!t || d->owner != &ofl_backend_dspi) {
		snprintf(why, wl, "not a DSPI");
		return -ENOTSUP;
	}
	if (fdt_getprop(fdt, d->node, "spi-slave", NULL)) {
		snprintf(why, wl, "target (spi-slave) mode is not implemented by the direct backend");
		return -ENOTSUP;
	}
	if (!ofl_dt_prop_u32(fdt, d->node, "spi-num-chipselects", &ncs) || !ncs) {
		snprintf(why, wl, "no spi-num-chipselects (required by the binding; Linux's probe fails "
			 "without it)");
		return -ENODEV;
	}
	if (!ofl_drv(ctx)->sim) {
		bound_driver(d->dt_path, pdev, sizeof(pdev), drv, sizeof(drv));
		if (!user_space_driver(drv)) {
			snprintf(why, wl,
				 "the kernel's %s driver owns %s; two drivers on one register block corrupt "
				 "each other's transfers. Use the kernel through spidev, or unbind it (echo %s "
				 "> /sys/bus/platform/drivers/%s/unbind) and bind uio_pdrv_genirq or "
				 "vfio-platform",
				 drv, pdev, pdev, drv);
			return -EBUSY;
		}
	}
	struct dspi_ctrl *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->mu, NULL);
	c->dev = d;
	c->regs.fd = -1;
	c->held_cs = -1;
	c->flow = choose_flow(ctx, t, note, sizeof(note));
	c->fifo = t->fifo_size;
	c->num_ctar = t->num_ctar;
	c->num_cs = ncs;
	c->clock_factor = t->max_clock_factor ? t->max_clock_factor : 1u;
	c->s32g = strcmp(t->compatible, "nxp,s32g2-dspi") == 0;
	c->be = fdt_getprop(fdt, d->node, "big-endian", NULL) != NULL;
	c->pushr_cmd = c->be ? DSPI_PUSHR_CMD_BE : DSPI_PUSHR_CMD_LE;
	c->pushr_tx = c->be ? DSPI_PUSHR_TX_BE : DSPI_PUSHR_TX_LE;
	c->timeout_floor_ns = DSPI_TIMEOUT_FLOOR_NS;
	r = dspi_clock_rate(ctx, d->node, ofl_drv(ctx)->sim, &c->fp, c->clock_how, sizeof(c->clock_how));
	if (r < 0) {
		snprintf(why, wl, "%s", c->clock_how);
		free(c);
		return -ENODEV;
	}
	/* Every SCK is fP / (PBR x BR) <= fP / 4, and at most fP / max_clock_factor: none >= 1 Hz? */
	unsigned fastest_div = OFL_MAX(DSPI_MIN_BAUD_DIV, c->clock_factor);
	if (c->fp < fastest_div) {
		snprintf(why, wl, "the protocol clock of %llu Hz cannot produce any SCK of 1 Hz or more: "
			 "the fastest is fP / %u (PBR 2 x BR 2, and at most fP / %u for this DSPI, Linux "
			 "spi-fsl-dspi.c max_clock_factor); protocol clock %.200s",
			 (unsigned long long)c->fp, fastest_div, c->clock_factor, c->clock_how);
		free(c);
		return -ENODEV;
	}
	c->sim = ofl_drv(ctx)->sim;
	r = ofl_mmio_map_reg(d, d->node, NULL, 0, &c->regs, w, sizeof(w));
	uint64_t need = t->xspi_regs ? DSPI_REGS_SIZE_XSPI : DSPI_REGS_SIZE;
	if (r == 0 && c->regs.size < need) {
		snprintf(w, sizeof(w), "reg is 0x%llx bytes, the registers need 0x%llx",
			 (unsigned long long)c->regs.size, (unsigned long long)need);
		r = -EINVAL;
	}
	if (r < 0) {
		snprintf(why, wl, "registers: %s", w);
		ctrl_free(c);
		return r == -ENOENT ? -ENODEV : r;
	}
	/* until a transfer writes CTAR0: a frame with no chip select (recovery) at the fastest clock */
	struct dspi_timing fastest;
	if (dspi_timing(c, 0, dspi_clamp_hz(c, UINT32_MAX), 0, 0, &fastest) == 0)
		c->ctar0 = fastest.ctar;
	init_regs(c);
	d->priv = c;
	d->sim = c->sim;
	d->info.flags |= OFFLOAD_DEVF_DIRECT;
	note_policy(d, c, note);
	snprintf(why, wl, "dspi: %s PIO flow%s, FIFO %u entries, protocol clock %s; registers: %s",
		 c->flow == DSPI_FLOW_XSPI ? "XSPI" : "EOQ", note, c->fifo, c->clock_how,
		 ofl_mmio_map_kind_name(c->regs.kind));
	return 0;
}

static void dspi_remove(struct ofl_device *d)
{
	struct dspi_ctrl *c = d->priv;

	if (!c)
		return;
	dspi_halt(c, true); /* best effort: a wedged module may not answer */
	dspi_mcr(c, c->mcr | DSPI_MCR_DIS_TXF | DSPI_MCR_DIS_RXF | DSPI_MCR_HALT);
	d->priv = NULL;
	ctrl_free(c);
}

const struct ofl_backend ofl_backend_dspi = {
	.name = "dspi",
	.caps = OFFLOAD_CAP_SPI,
	.flags = OFL_BE_SPI_CONTROLLER,
	.match = dspi_match,
	.policy = dspi_policy,
	.linux_driver = "fsl-dspi", /* spi-fsl-dspi.c fsl_dspi_driver */
	.probe = dspi_probe,
	.remove = dspi_remove,
	.spi = &dspi_spi_ops,
};
