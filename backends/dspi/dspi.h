/* SPDX-License-Identifier: MIT */
/*
 * The direct DSPI backend (register-level, host mode, PIO): internal
 * declarations. Facts: Linux drivers/spi/spi-fsl-dspi.c (sources by topic:
 * src/hw/dspi.h); the register map and clock
 * arithmetic are shared with the model in src/hw/dspi.h.
 *
 * Files: match.c (the engine's device-tree match table, from hw/dspi.h's
 * devtypes, and its policy rules), probe.c (binding a controller: mode,
 * protocol clock, kernel ownership, registers, init; the descriptor), clock.c (where the protocol clock rate comes
 * from), ctar.c (CTAR for a device and a clock), xfer.c (messages: the XSPI
 * and EOQ flows, chip select, timeouts and recovery), spi.c (the SPI op
 * table the core calls).
 */
#ifndef OFL_BACKEND_DSPI_H
#define OFL_BACKEND_DSPI_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <offload/spi.h>

#include "driver/driver.h"
#include "driver/spi.h"
#include "hw/dspi.h"
#include "platform/platform.h"

/* One row of the match table: the devtype (hw/dspi.h topic 2). */
struct dspi_row {
	struct ofl_match_row hdr;
	struct dspi_devtype t;
};
static inline const struct dspi_row *dspi_row_of(const struct ofl_dt_id *id)
{
	return (const struct dspi_row *)id->data;
}

/* ---- match.c, probe.c ---- */
extern const struct ofl_backend ofl_backend_dspi;
extern const struct ofl_dt_id dspi_match[];
void dspi_policy(const struct ofl_policy_in *in, struct ofl_policy *p, struct ofl_policy_req *req);

/* How messages are moved (hw/dspi.h topic 5.3, 5.5). */
enum dspi_flow {
	DSPI_FLOW_XSPI, /* CMD FIFO + CTARE.DTCP, completion by CMDTCF (current Linux) */
	DSPI_FLOW_EOQ,  /* 32-bit PUSHR entries, completion by EOQF (2017/2020 Linux) */
};

/* One controller (a DT DSPI node) bound to this backend. */
struct dspi_ctrl {
	struct ofl_device *dev;
	struct ofl_mmio regs;
	bool sim;
	bool be;                  /* big-endian registers */
	bool s32g;                /* MTF above 25 MHz (Linux dspi_setup) */
	enum dspi_flow flow;
	unsigned fifo;            /* FIFO entries of the devtype */
	unsigned num_ctar;
	unsigned num_cs;          /* spi-num-chipselects */
	unsigned clock_factor;    /* max SCK = fP / factor */
	uint64_t fp;              /* protocol clock, Hz */
	char clock_how[OFL_REASON_LEN];
	uint64_t pushr_cmd, pushr_tx; /* offsets of the 16-bit PUSHR halves (XSPI) */
	uint64_t timeout_floor_ns;

	pthread_mutex_t mu;       /* one message on the bus at a time */
	uint32_t mcr;             /* MCR as last written (the library is its only writer) */
	uint8_t cs_high_users[DSPI_MAX_NATIVE_CS]; /* open handles with CS_HIGH, per chip select */
	int held_cs;              /* CS left asserted after a message (cs_change), -1 none */
	uint32_t ctar0;           /* CTAR0 as last written, without FMSZ (the held chip select's) */
	uint32_t last_sr;         /* SR at the last failure, for messages */
};

/* An open handle: one chip select. */
struct dspi_handle {
	struct dspi_ctrl *c;
	struct offload_ctx *ctx;
	unsigned cs;
	uint32_t mode;            /* OFFLOAD_SPI_* in effect */
	uint32_t speed;           /* default clock, Hz (after the controller's maximum) */
	uint8_t bpw;              /* default word size */
	uint32_t cs_setup_ns, cs_hold_ns;
	uint32_t ctar;            /* CTAR (without FMSZ) for the default clock */
	uint32_t actual_hz;       /* SCK it gives */
	uint32_t last_speed, last_ctar; /* the last per-transfer clock and its CTAR */
	char path[256];
};

/* ---- registers (probe.c) ---- */
uint32_t dspi_rd(const struct dspi_ctrl *c, uint32_t off);
void dspi_wr(const struct dspi_ctrl *c, uint32_t off, uint32_t v);
void dspi_wr16(const struct dspi_ctrl *c, uint64_t off, uint16_t v);

/* ---- the protocol clock (clock.c) ---- */
/*
 * fP for controller node `node`: OFFLOAD_DSPI_CLOCK_HZ (unless the context
 * ignores the environment), the device tree (dspi_clock_from_dt(); the LS1028A
 * assumption only for a simulated board), or on a live board the kernel's
 * clock tree in debugfs (clk/clk_summary, consumer "<platform device>").
 * 0 with *hz and `how`, or -ENOENT with the reasons in `how`.
 */
int dspi_clock_rate(struct offload_ctx *ctx, int node, bool sim, uint64_t *hz, char *how,
		    size_t how_len);
/*
 * The protocol clock as the device tree tells it (src/dt/clock.c): the
 * node's clock-frequency, a fixed clock or fixed-factor chain; with `twin`
 * (a simulated copy of a real board) an LS1028A clockgen <4 1> is answered
 * by the labelled assumption of src/hw/dspi.h. 0 with *hz and a sentence in
 * `how`, or -ENOENT with the reason in `how`.
 */
int dspi_clock_from_dt(const void *fdt, int node, bool twin, uint64_t *hz, char *how, size_t how_len);
/* The rate of the clock whose consumer is `devname` in a clk_summary file; -ENOENT. */
int dspi_clk_summary_rate(const char *path, const char *devname, uint64_t *hz);

/* ---- CTAR (ctar.c) ---- */
struct dspi_timing {
	uint32_t ctar;            /* without FMSZ */
	uint32_t sck_hz;          /* SCK it gives, rounded down */
	bool mtf;                 /* S32G modified transfer format (DBR) */
	bool delay_clipped;       /* a CS delay exceeded 7 x 65536 protocol clocks */
};
/*
 * CTAR for device mode bits `mode` at `hz` (already clamped to fP /
 * factor) with CS setup/hold delays in ns (raised to a quarter SCK period,
 * Linux dspi_setup). -EINVAL when hz is below fP / (7 x 32768): the
 * controller cannot go that slow, and Linux's fallback would run faster
 * than asked.
 */
int dspi_timing(const struct dspi_ctrl *c, uint32_t mode, uint32_t hz, uint32_t setup_ns,
		uint32_t hold_ns, struct dspi_timing *t);
/* The clock a handle uses for `hz` (0 = its default): clamped to the controller's maximum. */
uint32_t dspi_clamp_hz(const struct dspi_ctrl *c, uint32_t hz);

/* ---- messages (xfer.c) ---- */
/* Run n validated transfers; total = sum of len. Returns total or -errno (message recorded). */
int dspi_message(struct dspi_handle *h, const struct offload_spi_xfer *x, unsigned n, uint32_t total);
/*
 * Release a chip select left asserted (only h's own when only_own), clocking
 * one frame with no chip select. 1 if a frame was sent, 0 if none was
 * asserted, -errno.
 */
int dspi_release(struct dspi_handle *h, bool only_own);
/* Bring the controller to a known state: halted, FIFOs empty, flags clear, CS released. */
void dspi_recover(struct dspi_ctrl *c);
/* Write MCR (cached). */
void dspi_mcr(struct dspi_ctrl *c, uint32_t v);
/* Halt or start the module and wait (bounded) for SR.TXRXS to follow. 0 or -ETIMEDOUT. */
int dspi_halt(struct dspi_ctrl *c, bool halt);

extern const struct ofl_spi_ops dspi_spi_ops;

#endif /* OFL_BACKEND_DSPI_H */
