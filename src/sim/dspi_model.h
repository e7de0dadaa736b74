/* SPDX-License-Identifier: MIT */
/*
 * Register-level model of the NXP DSPI SPI controller (registers and flows
 * of src/hw/dspi.h topics 3 and 5: Linux drivers/spi/spi-fsl-dspi.c, the
 * Kinetis MK22FA12 and S32Z2 SPI headers), with devices on its chip
 * selects that answer on MISO: a MOSI-to-MISO loopback wire, or a JEDEC
 * SPI-NOR flash (READ ID 9Fh, READ 03h, FAST READ 0Bh, RDSR 05h, WREN 06h,
 * WRDI 04h, PAGE PROGRAM 02h, SECTOR ERASE 20h) on a small array.
 *
 * What the model implements, so that backends/dspi drives it with the
 * register sequences of Linux's spi-fsl-dspi:
 *  - MCR with the HALT/TXRXS handshake, HALT and MDIS taking effect at the
 *    next frame boundary (a frame on the wire completes first),
 *    self-clearing CLR_TXF/CLR_RXF, MDIS, DIS_TXF/DIS_RXF (FIFO depth 1),
 *    PCSIS (inactive level per PCS), XSPI (only where the devtype has the
 *    XSPI registers), MSTR;
 *  - TCR.SPI_TCNT counting frames, cleared by a command with CTCNT;
 *  - CTAR0..n-1 and, in XSPI, CTARE0..n-1 (FMSZE, DTCP);
 *  - SR: TCF per frame, TXRXS, EOQF (stops the module, TXRXS = 0, until
 *    written back while HALT = 0), TFUF, CMDTCF (a command's DTCP frames are
 *    done), RFOF (a frame arrived with the RX FIFO full: its data is lost),
 *    TFIWF (a push into a full TX or CMD FIFO: dropped), TFFF/RFDF/CMDFFF
 *    recomputed from the FIFO levels, TXCTR/TXNXTPTR/RXCTR/POPNXTPTR;
 *    flags are write-1-to-clear; TXRXS is W1C too but the module is back
 *    in Running at once while HALT, MDIS and EOQF are clear (Linux's poll
 *    loop writes back the SR it read, TXRXS included, while running);
 *  - SREX (TXCTR4, RXCTR4, CMDCTR, CMDNXTPTR) and RSER with the interrupt
 *    line and the TFFF/RFDF DMA requests it gates (ofl_sim_dspi_lines());
 *  - PUSHR: a 32-bit write is one TX entry (command + data) outside XSPI,
 *    one CMD and one TX entry in XSPI; in XSPI the 16-bit command half
 *    fills the CMD FIFO and each 16-bit data-half write is one TX entry;
 *    outside XSPI a 16-bit write pushes all 32 bits of PUSHR; a 17..32-bit
 *    frame takes two TX entries (low half first) and gives one RX entry;
 *    nothing is pushed while MDIS is set; POPR pops (an empty RX FIFO
 *    gives the stale slot at POPNXTPTR); TXFRn/RXFRn show the FIFO slots,
 *    the pointers wrap at the devtype's FIFO depth;
 *  - SCK's idle level (CPOL of the CTAR last used): a change while a chip
 *    select is asserted (a CPOL switch under CONT) is an SCK edge the
 *    selected devices see (stats sck_glitches);
 *  - chip-select lines from the PCS bits: asserted at a frame's start,
 *    kept after it with CONT, released after a frame without CONT and after
 *    the last frame of an EOQ entry/command whatever CONT says; a frame
 *    naming other PCS bits first releases the asserted ones;
 *  - timing in virtual time: SCK = fP x (1 + DBR) / (PBR x BR), tCSC =
 *    PCSSCK x CSSCK / fP before the first frame after CS asserts, tASC =
 *    PASC x ASC / fP after the last before CS releases, tASC + tCSC between
 *    frames with CS kept [Linux dspi_setup comment: "tCSC and tASC apply to
 *    continuous transfers too"], tDT after CS releases; each frame is logged
 *    with its SCK, delays, data and CS edges (ofl_sim_dspi_frames());
 *  - pacing: by default a read that let frames run returns only once the
 *    wire time they took has passed in real time (ofl_sim_dspi_set_paced()),
 *    so rates measured on the model are never above the modelled SCK.
 *
 * Execution is synchronous, on the CPU's register accesses, not on a model
 * thread: an SPI master is clocked by its own SCK and has no bus-master
 * side to run on its own, so the only thing that can observe progress is a
 * register read. Each read (any register) first lets the shifter run up to
 * `frames_per_poll` frames (default 1; 0 = all it can), as if that much SCK
 * time passed while the CPU was away. Writes never advance it, so a burst
 * of pushes larger than the FIFO overflows as it would at any real SCK
 * rate. This is deterministic (no thread scheduling in the test results),
 * lets a poll loop see "not done yet" as on silicon, and costs no context
 * switches per polled frame.
 *
 * What the silicon does not allow is refused: counted (stats refused) and
 * reported as a bus error of the sim world, the access then ignored unless
 * said otherwise (Kinetis MK22FA12 SPI register text, the rule named in
 * each message):
 *  - MCR bits other than HALT and MDIS changed while Running (not applied);
 *  - RSER written while Running (not applied);
 *  - CTARn written with frames queued (not applied), or with a chip select
 *    held by CONT after a frame of that CTAR, anything but FMSZ changed
 *    (applied: the audit's F6, the RM rule unconfirmed);
 *  - SR reserved bits 29, 26, 22, 20 written with 1;
 *  - POPR read with the RX FIFO empty;
 *  - a frame under 4 bits or a CTAS naming no CTAR: the shifter stops there.
 * A command with DTCP 0 clocks nothing and never completes (no CMDTCF): the
 * shifter waits until halted or its FIFO cleared (stats cfg_errors).
 *
 * Faults (sim.h): OFL_SIM_FAULT_STUCK is taken per frame start: the shifter
 * stops (CMDTCF/EOQF never come) until HALT is set or the TX FIFO cleared;
 * OFL_SIM_FAULT_ERROR per frame: arg 0 = RX overflow (SR.RFOF, the frame's
 * RX data is lost), 1 = TX underflow (SR.TFUF); OFL_SIM_FAULT_LOST and
 * OFL_SIM_FAULT_DELAY per completion (CMDTCF, EOQF): never posted / posted
 * `arg` microseconds (real time) later.
 *
 * Thread-safety: every entry point takes the model's lock.
 */
#ifndef OFL_SIM_DSPI_MODEL_H
#define OFL_SIM_DSPI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

struct ofl_sim_dspi;

struct ofl_sim_dspi_params {
	uint64_t phys, size;  /* the register window (DT reg); accesses past the map are bus errors */
	uint8_t fifo_size;    /* TX/RX (and CMD) FIFO entries: 4, 5 or 16 (hw/dspi.h topic 2) */
	uint8_t num_ctar;     /* CTAR (and CTARE) registers: 4, S32G 6 */
	bool xspi;            /* the XSPI register set exists (CTARE, SREX, CMD FIFO) */
	bool big_endian;      /* DT big-endian: registers byte-swapped, PUSHR halves swapped */
	uint64_t clock_hz;    /* protocol clock fP */
	uint8_t num_cs;       /* spi-num-chipselects (PCSIS width, informational) */
	int node;             /* DT node, -1 when built by a test */
	const char *name;     /* for messages, e.g. "spi@2100000" */
};

/* Create the model and register its block. NULL if out of memory or the window overlaps another. */
struct ofl_sim_dspi *ofl_sim_dspi_create(struct ofl_sim *sim, const struct ofl_sim_dspi_params *p);
/* The DSPI model serving DT node `node`, or NULL. */
struct ofl_sim_dspi *ofl_sim_dspi_by_node(struct ofl_sim *sim, int node);

/* Devices on chip select cs (0..5). A new device replaces the old one. */
/* A wire from MOSI to MISO while CS is active: every frame receives what it sent. */
int ofl_sim_dspi_attach_loopback(struct ofl_sim_dspi *m, unsigned cs, bool cs_high);
/*
 * An 8-bit shift register in SPI mode `mode` (CPOL << 1 | CPHA) and bit
 * order `lsb_first`: it samples MOSI on its mode's sampling edge (rising in
 * modes 0 and 3, falling in 1 and 2), assembles bytes in its bit order,
 * answers each byte with the one it received before (FFh first after its
 * chip select asserts) and logs every whole byte it received. Clocked in a
 * mode with the other sampling edge it neither decodes nor drives (a mode
 * error) until its chip select rises. It sees what the wire carries: bit
 * order, byte order within a frame, stray SCK edges.
 */
int ofl_sim_dspi_attach_echo(struct ofl_sim_dspi *m, unsigned cs, unsigned mode, bool lsb_first,
			     bool cs_high);
/*
 * The bytes the echo device on cs received since its last clear, oldest
 * first: up to `max` of the last 8192; *total (if given) gets how many
 * arrived, *partial how many times its chip select rose in the middle of a
 * byte. 0 when cs has no echo device.
 */
size_t ofl_sim_dspi_echo_log(struct ofl_sim_dspi *m, unsigned cs, uint8_t *out, size_t max,
			     uint64_t *total, unsigned *partial);
void ofl_sim_dspi_echo_clear(struct ofl_sim_dspi *m, unsigned cs);
/*
 * A JEDEC SPI-NOR flash (modes 0 and 3 only; other modes are counted as
 * mode errors and the device then neither decodes nor drives MISO): READ ID
 * returns id[0..2] then 00h; the array holds the first min(size, 64 KiB)
 * bytes (erased: FFh), reads above it return FFh, programs above it are
 * dropped. MISO reads 1 while no selected device drives it (hi-Z with a
 * pull-up) [model choice].
 */
int ofl_sim_dspi_attach_nor(struct ofl_sim_dspi *m, unsigned cs, const char *part,
			    const uint8_t id[3], uint32_t size, bool cs_high);
void ofl_sim_dspi_detach(struct ofl_sim_dspi *m, unsigned cs);
/* Backdoor access to a NOR device's array (tests): copy in (write) or out. -ENODEV / -ERANGE. */
int ofl_sim_dspi_nor_io(struct ofl_sim_dspi *m, unsigned cs, bool write, uint32_t addr, void *buf,
			size_t len);
/* What is attached at cs: "loopback", "echo", the part name, or NULL. */
const char *ofl_sim_dspi_device(struct ofl_sim_dspi *m, unsigned cs);

/* One shifted frame, as logged. */
struct ofl_sim_dspi_frame {
	uint64_t seq;          /* frame number since the model was created */
	uint64_t t_start_ps;   /* virtual time of the first SCK edge */
	uint32_t tx, rx;       /* data, right-aligned */
	uint8_t bits;          /* frame size */
	uint8_t pcs;           /* PCS bits of the command */
	uint8_t ctas;          /* CTAR used */
	bool cont, eoq;        /* the command's CONT and (on its last frame) EOQ */
	bool cpol, cpha, lsb_first;
	bool cs_assert;        /* CS became active for this frame */
	bool cs_release;       /* CS became inactive after it */
	uint32_t ctar;         /* CTAR value in effect */
	uint64_t sck_mhz;      /* SCK, millihertz */
	uint64_t tcsc_ps, tasc_ps, tdt_ps; /* programmed delays, picoseconds */
};

/*
 * The last up to `max` frames (oldest first) of the at most 2048 the model
 * keeps; returns how many were written. *total (if given) gets the number
 * of frames ever shifted.
 */
size_t ofl_sim_dspi_frames(struct ofl_sim_dspi *m, struct ofl_sim_dspi_frame *out, size_t max,
			   uint64_t *total);
/* Forget the logged frames (counters stay). */
void ofl_sim_dspi_clear_log(struct ofl_sim_dspi *m);

struct ofl_sim_dspi_stats {
	uint64_t frames;          /* frames shifted */
	uint64_t time_ps;         /* virtual time consumed by frames and delays */
	uint32_t cs_lines;        /* PCS bits asserted now */
	uint32_t cs_asserts[6], cs_releases[6];
	uint32_t cmds;            /* XSPI commands completed */
	uint32_t eoq;             /* queues ended (EOQF) */
	uint32_t tx_overruns;     /* pushes into a full TX/CMD FIFO (TFIWF) */
	uint32_t rx_overflows;    /* frames lost to a full RX FIFO (RFOF) */
	uint32_t rx_empty_pops;   /* POPR reads of an empty RX FIFO */
	uint32_t cfg_errors;      /* commands and frames the shifter stopped at: DTCP 0, under 4 bits, bad CTAS */
	uint32_t refused;         /* accesses the silicon does not allow (each also a bus error) */
	uint32_t sck_glitches;    /* SCK edges outside frames while a chip select was asserted */
	uint32_t mode_errors;     /* frames to a device in a mode it does not support */
	uint32_t contention;      /* frames with more than one device driving MISO */
	uint32_t bad_access;      /* accesses to no register */
};
void ofl_sim_dspi_stats(struct ofl_sim_dspi *m, struct ofl_sim_dspi_stats *out);

/* Frames the shifter may run per register read (0 = as many as it can). Default 1. */
void ofl_sim_dspi_set_frames_per_poll(struct ofl_sim_dspi *m, unsigned n);
/*
 * Paced (the default): a register read that lets frames run returns no
 * earlier than those frames and their CS delays would have ended on the
 * wire, counted from when the wire was last free (SCK from CTAR, as logged),
 * so a rate measured on the host never exceeds what the wire could carry.
 * Unpaced: reads return at once (tests that only look at virtual time).
 */
void ofl_sim_dspi_set_paced(struct ofl_sim_dspi *m, bool paced);

/* The interrupt line (SR flags enabled in RSER) and the TFFF/RFDF DMA requests (RSER *_DIRS). */
void ofl_sim_dspi_lines(struct ofl_sim_dspi *m, bool *irq, bool *dma_tx, bool *dma_rx);

/* Digital twin: the model and the devices of DT node `node` (attach.c dispatches here). */
int ofl_sim_dspi_attach(struct ofl_sim *sim, const void *fdt, int node, char *err, size_t errlen);

#endif /* OFL_SIM_DSPI_MODEL_H */
