/* SPDX-License-Identifier: MIT */
/*
 * The DSPI register-level model (see dspi_model.h for what it implements
 * and why it runs synchronously on register reads). Register facts:
 * src/hw/dspi.h topic 3; behaviour: topic 5 (Linux spi-fsl-dspi.c). Model
 * choices where no stored source settles the hardware's behaviour are
 * marked "model:".
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "hw/dspi.h"
#include "sim/dspi_int.h"
#include "sim/dspi_model.h"

#define LOG_SIZE 2048u
#define NUM_CS DSPI_MAX_NATIVE_CS
#define LATCHED                                                                                   \
	(DSPI_SR_TCF | DSPI_SR_EOQF | DSPI_SR_TFUF | DSPI_SR_CMDTCF | DSPI_SR_SPEF | DSPI_SR_RFOF |   \
	 DSPI_SR_TFIWF)
/*
 * SR bits no source defines (Kinetis SPI_SR; Linux's SPI_SR_CLEAR leaves
 * them 0). Bit 24 is BSYF on S32 parts (S32Z2 SPI header) and read back by
 * Linux's write-back of SR, so it is not among them.
 */
#define SR_RESERVED ((1u << 29) | (1u << 26) | (1u << 22) | (1u << 20))
/* The MCR bits that may change while the module runs (Kinetis SPI_MCR). */
#define MCR_LIVE (DSPI_MCR_HALT | DSPI_MCR_MDIS)

struct fifo {
	uint32_t slot[DSPI_MAX_FIFO];
	unsigned head, cnt; /* head: next entry out (the NXTPTR fields) */
	unsigned size;      /* slots: the devtype's FIFO depth; the pointers wrap at it */
};

struct ofl_sim_dspi {
	struct ofl_sim_model base; /* first: found by node */
	struct ofl_sim *sim;
	struct ofl_sim_dspi_params p;
	char name[48];
	pthread_mutex_t mu;

	uint32_t mcr, tcr, rser;
	uint32_t ctar[DSPI_MAX_CTAR], ctare[DSPI_MAX_CTAR];
	uint32_t flags;           /* latched SR flags */
	bool running;             /* SR.TXRXS */
	struct fifo tx, rx, cmd;  /* cmd: XSPI command FIFO */
	uint32_t pushr;           /* PUSHR as last written (a 16-bit write pushes all 32 bits) */
	bool cmd_active;          /* XSPI: a command is executing */
	bool halt_pending;        /* HALT/MDIS written while a frame was on the wire */
	unsigned sck;             /* SCK's idle level: CPOL of the CTAR last used */
	unsigned mosi;            /* SOUT between frames: the last bit shifted out [model] */
	uint8_t ctas_last;        /* CTAR of the last frame */
	uint16_t cur_cmd;
	uint32_t cur_left;        /* its frames still to run */

	uint32_t cs_lines;        /* PCS bits asserted */
	bool cs_kept;             /* the last frame ended with CS kept (CONT) */
	struct dspi_dev *dev[NUM_CS];
	bool selected[NUM_CS];

	bool stuck;               /* OFL_SIM_FAULT_STUCK fired */
	uint32_t late_flags;      /* OFL_SIM_FAULT_DELAY: flags posted at late_at_ns */
	uint64_t late_at_ns;
	unsigned frames_per_poll;

	uint64_t t_ps;
	bool unpaced;             /* ofl_sim_dspi_set_paced(false) */
	uint64_t wire_free_ns;    /* pacing: when the wire is done with what it shifted */
	bool wire_backlog;        /* pacing: frames were waiting when the last read returned */
	uint64_t pace_rem_ps;     /* pacing: virtual time under 1 ns carried over */
	struct ofl_sim_dspi_frame log[LOG_SIZE];
	uint64_t nlog;            /* frames logged since the last clear */
	struct ofl_sim_dspi_stats st;
};
_Static_assert(offsetof(struct ofl_sim_dspi, base) == 0, "ofl_sim_block_of() needs the model first");

/* ------------------------------------------------------------- helpers */

static bool xspi_mode(const struct ofl_sim_dspi *m)
{
	return m->p.xspi && (m->mcr & DSPI_MCR_XSPI);
}

static unsigned tx_depth(const struct ofl_sim_dspi *m)
{
	return (m->mcr & DSPI_MCR_DIS_TXF) ? 1u : m->p.fifo_size;
}

static unsigned rx_depth(const struct ofl_sim_dspi *m)
{
	return (m->mcr & DSPI_MCR_DIS_RXF) ? 1u : m->p.fifo_size;
}

static bool fifo_push(struct fifo *f, unsigned depth, uint32_t v)
{
	if (f->cnt >= depth)
		return false;
	f->slot[(f->head + f->cnt) % f->size] = v;
	f->cnt++;
	return true;
}

static uint32_t fifo_pop(struct fifo *f)
{
	uint32_t v = f->slot[f->head];

	f->head = (f->head + 1) % f->size;
	f->cnt--;
	return v;
}

/*
 * An access the silicon does not allow (the rule and its source in the
 * sentence): counted, and a bus error of the sim world, so that every test
 * that checks for none notices. What the hardware does with it is up to
 * the caller (ignored, or taken).
 */
static void refuse(struct ofl_sim_dspi *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct ofl_sim_dspi *m, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	m->st.refused++;
	ofl_sim_bus_error(m->sim, "%s: %s", m->name, what);
}

static void fifo_flush(struct fifo *f)
{
	f->cnt = 0;
}

static uint64_t clocks_ps(const struct ofl_sim_dspi *m, uint64_t clocks)
{
	return m->p.clock_hz ? clocks * 1000000000000ull / m->p.clock_hz : 0;
}

/* Electrical level of PCS line i: the inactive level (PCSIS) unless asserted. */
static unsigned line_level(const struct ofl_sim_dspi *m, unsigned i)
{
	unsigned idle = (m->mcr >> (DSPI_MCR_PCSIS_SHIFT + i)) & 1u;

	return (m->cs_lines >> i) & 1u ? !idle : idle;
}

/* Tell devices whose chip select changed level. */
static void update_selection(struct ofl_sim_dspi *m)
{
	for (unsigned i = 0; i < NUM_CS; i++) {
		struct dspi_dev *d = m->dev[i];
		bool sel = d && line_level(m, i) == (d->cs_high ? 1u : 0u);
		if (sel != m->selected[i]) {
			m->selected[i] = sel;
			d->ops->select(d, sel);
		}
	}
}

static void cs_release(struct ofl_sim_dspi *m, struct ofl_sim_dspi_frame *rec)
{
	if (!m->cs_lines)
		return;
	for (unsigned i = 0; i < NUM_CS; i++)
		if (m->cs_lines & (1u << i))
			m->st.cs_releases[i]++;
	m->cs_lines = 0;
	m->cs_kept = false;
	if (rec)
		rec->cs_release = true;
	update_selection(m);
}

/* Post completion flags, through the LOST and DELAY faults. */
static void post(struct ofl_sim_dspi *m, uint32_t flags)
{
	uint32_t us = 0;

	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_LOST, NULL, 0, NULL))
		return;
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_DELAY, NULL, 0, &us)) {
		m->late_flags |= flags;
		m->late_at_ns = ofl_now_ns() + (uint64_t)us * 1000u;
		return;
	}
	m->flags |= flags;
}

static void promote_late(struct ofl_sim_dspi *m)
{
	if (m->late_flags && ofl_now_ns() >= m->late_at_ns) {
		m->flags |= m->late_flags;
		m->late_flags = 0;
	}
}

/*
 * SCK moves to a new idle level. With a chip select asserted the selected
 * devices see that as an edge (Kinetis SPI_CTAR CPOL: with the Continuous
 * Selection Format, "switching between clock polarities without stopping
 * the module can cause errors in the transfer due to the peripheral device
 * interpreting the switch of clock polarity as a valid clock edge").
 */
static void sck_move(struct ofl_sim_dspi *m, unsigned level)
{
	if (level == m->sck)
		return;
	m->sck = level;
	if (!m->cs_lines)
		return;
	m->st.sck_glitches++;
	for (unsigned i = 0; i < NUM_CS; i++)
		if (m->selected[i] && m->dev[i]->ops->edge)
			m->dev[i]->ops->edge(m->dev[i], level != 0, m->mosi);
}

/* ------------------------------------------------------------- the shifter */

/* A frame can start (or is on the wire) as soon as SCK time passes. */
static bool frame_ready(const struct ofl_sim_dspi *m)
{
	return m->running && !m->stuck && (m->mcr & DSPI_MCR_MSTR) && !(m->mcr & DSPI_MCR_MDIS) &&
	       m->tx.cnt && (!xspi_mode(m) || m->cmd_active || m->cmd.cnt);
}

/* Frames are queued or running: the shifter is not idle. */
static bool shifter_busy(const struct ofl_sim_dspi *m)
{
	return m->cmd_active || m->tx.cnt || (xspi_mode(m) && m->cmd.cnt);
}

/*
 * A frame the shifter cannot run (a CTAS naming no CTAR, fewer than 4
 * bits): refused, and the shifter stops there, so the command never
 * completes.
 */
static bool bad_frame(struct ofl_sim_dspi *m, unsigned ctas, unsigned bits)
{
	if (ctas >= m->p.num_ctar)
		refuse(m, "a command's CTAS %u names no CTAR (%u exist; Kinetis SPI_PUSHR CTAS)", ctas,
		       m->p.num_ctar);
	else if (bits < 4)
		refuse(m, "a %u-bit frame: the minimum frame size is 4 (Kinetis SPI_CTAR FMSZ)", bits);
	else
		return false;
	m->st.cfg_errors++;
	m->stuck = true;
	return true;
}

/* MISO for one SCK cycle: wired-AND of the selected devices that drive, pulled up. */
static unsigned bus_bit(struct dspi_dev *const *sel, unsigned nsel, unsigned mosi, unsigned mode,
			unsigned *drivers, bool *mode_err)
{
	unsigned miso = 1;

	for (unsigned i = 0; i < nsel; i++) {
		struct dspi_bit b = sel[i]->ops->bit(sel[i], mosi, mode);
		if (b.mode_err)
			*mode_err = true;
		if (b.driven) {
			miso &= b.miso & 1u;
			(*drivers)++;
		}
	}
	return miso;
}

/* The command and frame size of the next frame, if it can start now. */
static bool next_frame(struct ofl_sim_dspi *m, uint16_t *cmd, unsigned *bits)
{
	if (!m->running || m->stuck || !(m->mcr & DSPI_MCR_MSTR) || (m->mcr & DSPI_MCR_MDIS))
		return false;
	if (xspi_mode(m)) {
		if (!m->cmd_active) {
			if (!m->cmd.cnt || !m->tx.cnt)
				return false;
			m->cur_cmd = (uint16_t)fifo_pop(&m->cmd);
			unsigned c = DSPI_CMD_GET_CTAS(m->cur_cmd);
			if (bad_frame(m, c, 4))
				return false;
			m->cur_left = m->ctare[c] & DSPI_CTARE_DTCP_MASK;
			if (m->cur_left == 0) {
				/*
				 * No frame to run: nothing is clocked and CMDTCF never
				 * comes (audit dspi.md F3; the UNISIM MPC57xx model runs no
				 * transfer for a command without data). The shifter waits
				 * there until halted or its FIFO cleared [model].
				 */
				m->st.cfg_errors++;
				m->stuck = true;
				return false;
			}
			m->cmd_active = true;
		}
		unsigned c = DSPI_CMD_GET_CTAS(m->cur_cmd);
		*bits = DSPI_CTAR_GET_FMSZ(m->ctar[c]) + 1u + ((m->ctare[c] & DSPI_CTARE_FMSZE) ? 16u : 0u);
		*cmd = m->cur_cmd;
		if (bad_frame(m, c, *bits))
			return false;
		return m->tx.cnt >= (*bits > 16 ? 2u : 1u);
	}
	if (!m->tx.cnt)
		return false;
	*cmd = (uint16_t)(m->tx.slot[m->tx.head] >> 16);
	unsigned c = DSPI_CMD_GET_CTAS(*cmd);
	if (bad_frame(m, c, 4))
		return false;
	*bits = DSPI_CTAR_GET_FMSZ(m->ctar[c]) + 1u;
	return !bad_frame(m, c, *bits);
}

static void run_frame(struct ofl_sim_dspi *m, uint16_t cmd, unsigned bits)
{
	bool xspi = xspi_mode(m);
	unsigned ctas = DSPI_CMD_GET_CTAS(cmd);
	uint32_t data, rx = 0, arg = 0;

	if (xspi) {
		data = fifo_pop(&m->tx) & 0xFFFFu;
		if (bits > 16)
			data |= (fifo_pop(&m->tx) & 0xFFFFu) << 16;
	} else {
		data = fifo_pop(&m->tx) & 0xFFFFu;
	}
	uint32_t ctar = m->ctar[ctas];
	uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
	struct ofl_sim_dspi_frame *rec = &m->log[m->nlog % LOG_SIZE];
	memset(rec, 0, sizeof(*rec));
	data &= mask;

	/* chip select */
	uint32_t pcs = cmd & DSPI_CMD_PCS_MASK;
	uint64_t tcsc = clocks_ps(m, dspi_ctar_tcsc_clocks(ctar));
	uint64_t tasc = clocks_ps(m, dspi_ctar_tasc_clocks(ctar));
	uint64_t tdt = clocks_ps(m, dspi_ctar_tdt_clocks(ctar));
	unsigned cpol = (ctar & DSPI_CTAR_CPOL) ? 1u : 0u;
	if (m->cs_lines != pcs) {
		/* other PCS bits: the asserted ones go inactive after the previous frame */
		cs_release(m, m->nlog ? &m->log[(m->nlog - 1) % LOG_SIZE] : NULL);
		sck_move(m, cpol); /* between the chip selects: no device sees it */
		if (pcs) {
			m->cs_lines = pcs;
			for (unsigned i = 0; i < NUM_CS; i++)
				if (pcs & (1u << i))
					m->st.cs_asserts[i]++;
			rec->cs_assert = true;
			update_selection(m);
		}
		m->t_ps += tcsc;
	} else if (m->cs_kept) {
		sck_move(m, cpol); /* another CTAR's polarity under the held chip select */
		m->t_ps += tasc + tcsc;
	} else {
		sck_move(m, cpol);
		m->t_ps += tcsc;
	}
	m->ctas_last = (uint8_t)ctas;
	if (cmd & DSPI_CMD_CTCNT)
		m->tcr &= 0xFFFFu;

	/* shift */
	unsigned mode = ((ctar & DSPI_CTAR_CPOL) ? 2u : 0u) | ((ctar & DSPI_CTAR_CPHA) ? 1u : 0u);
	bool lsb = (ctar & DSPI_CTAR_LSBFE) != 0, mode_err = false;
	unsigned drivers = 0, nsel = 0;
	struct dspi_dev *sel[NUM_CS]; /* selection cannot change inside a frame */
	for (unsigned i = 0; i < NUM_CS; i++)
		if (m->selected[i])
			sel[nsel++] = m->dev[i];
	for (unsigned i = 0; i < bits; i++) {
		unsigned pos = lsb ? i : bits - 1u - i;
		unsigned d0 = drivers;
		m->mosi = (data >> pos) & 1u;
		rx |= (uint32_t)bus_bit(sel, nsel, m->mosi, mode, &drivers, &mode_err) << pos;
		if (drivers - d0 > 1)
			m->st.contention++;
	}
	if (mode_err)
		m->st.mode_errors++;
	uint64_t sck = dspi_ctar_sck_mhz(m->p.clock_hz, ctar);
	rec->t_start_ps = m->t_ps;
	m->t_ps += sck ? (uint64_t)bits * 1000000000000000ull / sck : 0;

	/* receive */
	bool lost = false;
	if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_ERROR, NULL, 0, &arg)) {
		if (arg == 1) {
			m->flags |= DSPI_SR_TFUF;
		} else {
			m->flags |= DSPI_SR_RFOF;
			lost = true;
		}
	}
	if (!lost && !fifo_push(&m->rx, rx_depth(m), rx))
		lost = true, m->flags |= DSPI_SR_RFOF;
	if (lost)
		m->st.rx_overflows++;
	m->flags |= DSPI_SR_TCF;
	m->tcr += DSPI_TCR_TCNT(1); /* wraps 65535 -> 0 */
	m->st.frames++;

	/* end of frame, command, queue */
	bool last = !xspi || --m->cur_left == 0;
	bool eoq = last && (cmd & DSPI_CMD_EOQ);
	rec->seq = m->st.frames - 1;
	rec->tx = data;
	rec->rx = rx;
	rec->bits = (uint8_t)bits;
	rec->pcs = (uint8_t)pcs;
	rec->ctas = (uint8_t)ctas;
	rec->cont = (cmd & DSPI_CMD_CONT) != 0;
	rec->eoq = eoq;
	rec->cpol = (mode & 2u) != 0;
	rec->cpha = (mode & 1u) != 0;
	rec->lsb_first = lsb;
	rec->ctar = ctar;
	rec->sck_mhz = sck;
	rec->tcsc_ps = tcsc;
	rec->tasc_ps = tasc;
	rec->tdt_ps = tdt;
	m->nlog++;
	if (!(cmd & DSPI_CMD_CONT) || eoq) {
		m->t_ps += m->cs_lines ? tasc : 0;
		cs_release(m, rec);
		m->t_ps += tdt;
	} else {
		m->cs_kept = m->cs_lines != 0;
	}
	if (xspi && last) {
		m->cmd_active = false;
		m->st.cmds++;
		post(m, DSPI_SR_CMDTCF);
	}
	if (eoq) {
		m->st.eoq++;
		m->running = false; /* TXRXS clears when EOQF sets (hw/dspi.h topic 3.5) */
		post(m, DSPI_SR_EOQF);
	}
}

/*
 * Pacing: the frames and delays just run took `ps` of virtual (wire) time.
 * They started when the wire became free if frames were already waiting
 * then (silicon would have kept shifting while the CPU was away; only reads
 * let the model shift), else now (the wire was idle), and their data is not
 * handed back before they would have ended on the wire. Long
 * waits sleep, the last 200 us spin, so no wait overshoots by a scheduler
 * tick and the host rate stays at (not far under) the wire rate.
 */
static void pace(struct ofl_sim_dspi *m, uint64_t ps)
{
	uint64_t now = ofl_now_ns();

	ps += m->pace_rem_ps;
	m->pace_rem_ps = ps % 1000u;
	if (m->wire_free_ns < now && !m->wire_backlog)
		m->wire_free_ns = now;
	m->wire_free_ns += ps / 1000u;
	while (now < m->wire_free_ns) {
		uint64_t left = m->wire_free_ns - now;
		if (left > 200000u) {
			struct timespec ts = { .tv_sec = (time_t)((left - 100000u) / 1000000000u),
					       .tv_nsec = (long)((left - 100000u) % 1000000000u) };
			nanosleep(&ts, NULL);
		}
		now = ofl_now_ns();
	}
}

/* Let the shifter run, as SCK time passing while the CPU was away. */
static void advance(struct ofl_sim_dspi *m)
{
	unsigned budget = m->frames_per_poll;
	uint64_t t0 = m->t_ps;
	uint16_t cmd;
	unsigned bits;

	promote_late(m);
	for (unsigned n = 0; budget == 0 || n < budget; n++) {
		if (!next_frame(m, &cmd, &bits))
			break;
		if (ofl_sim_fault_take(m->sim, OFL_SIM_FAULT_STUCK, NULL, 0, NULL)) {
			m->stuck = true;
			break;
		}
		run_frame(m, cmd, bits);
		if (m->halt_pending) {
			/* the frame that was on the wire when HALT/MDIS came: now stopped */
			m->halt_pending = false;
			m->running = false;
			break;
		}
	}
	if (!m->unpaced && m->t_ps != t0)
		pace(m, m->t_ps - t0);
	/* what next_frame() would find, without taking a command out of its FIFO */
	m->wire_backlog = frame_ready(m);
}

/* ------------------------------------------------------------- registers */

static uint32_t sr_value(const struct ofl_sim_dspi *m)
{
	uint32_t sr = m->flags;

	if (m->running)
		sr |= DSPI_SR_TXRXS;
	if (m->tx.cnt < tx_depth(m))
		sr |= DSPI_SR_TFFF;
	if (m->rx.cnt)
		sr |= DSPI_SR_RFDF;
	if (m->p.xspi && m->cmd.cnt < tx_depth(m))
		sr |= DSPI_SR_CMDFFF;
	if (!m->p.xspi)
		sr &= ~(DSPI_SR_CMDTCF | DSPI_SR_CMDFFF);
	sr |= (m->tx.cnt & 0xFu) << 12 | (m->tx.head & 0xFu) << 8 | (m->rx.cnt & 0xFu) << 4 |
	      (m->rx.head & 0xFu);
	return sr;
}

static void bad_access(struct ofl_sim_dspi *m, const char *what, uint64_t off)
{
	m->st.bad_access++;
	ofl_sim_bus_error(m->sim, "%s: %s at offset 0x%llx: no such register", m->name, what,
			  (unsigned long long)off);
}

static uint32_t reg_read(struct ofl_sim_dspi *m, uint64_t off)
{
	unsigned fifo = m->p.fifo_size;

	advance(m);
	if (off == DSPI_MCR)
		return m->mcr & ~(DSPI_MCR_CLR_TXF | DSPI_MCR_CLR_RXF);
	if (off == DSPI_TCR)
		return m->tcr;
	if (off >= DSPI_CTAR(0) && off < DSPI_CTAR(m->p.num_ctar))
		return m->ctar[(off - DSPI_CTAR(0)) / 4];
	if (off == DSPI_SR)
		return sr_value(m);
	if (off == DSPI_RSER)
		return m->rser;
	if (off == DSPI_PUSHR)
		return m->tx.cnt ? m->tx.slot[m->tx.head] : 0;
	if (off == DSPI_POPR) {
		if (!m->rx.cnt) {
			/* the slot at POPNXTPTR, from an earlier round of the circular FIFO */
			m->st.rx_empty_pops++;
			refuse(m, "POPR read with the RX FIFO empty: stale data");
			return m->rx.slot[m->rx.head];
		}
		return fifo_pop(&m->rx);
	}
	if (off >= DSPI_TXFR(0) && off < DSPI_TXFR(fifo))
		return m->tx.slot[(off - DSPI_TXFR(0)) / 4];
	if (off >= DSPI_RXFR(0) && off < DSPI_RXFR(fifo))
		return m->rx.slot[(off - DSPI_RXFR(0)) / 4];
	if (m->p.xspi && off >= DSPI_CTARE(0) && off < DSPI_CTARE(m->p.num_ctar))
		return m->ctare[(off - DSPI_CTARE(0)) / 4];
	if (m->p.xspi && off == DSPI_SREX)
		return ((m->tx.cnt & 0x10u) ? DSPI_SREX_TXCTR4 : 0) |
		       ((m->rx.cnt & 0x10u) ? DSPI_SREX_RXCTR4 : 0) | (m->cmd.cnt & 0x1Fu) << 4 |
		       (m->cmd.head & 0xFu);
	bad_access(m, "read", off);
	return 0xFFFFFFFFu;
}

/*
 * MCR (Kinetis SPI_MCR): "Only the HALT and MDIS bits in the MCR can be
 * changed while the module is in the Running state" (other changes are
 * refused and not applied; CLR_TXF/CLR_RXF are write-1 actions, which Linux
 * uses while running, dspi_transfer_one_message), and "the effect [of HALT
 * and MDIS] takes place only on the next frame boundary": a frame on the
 * wire completes first.
 */
static void mcr_write(struct ofl_sim_dspi *m, uint32_t v)
{
	uint32_t keep = ~(DSPI_MCR_DCONF_MASK | DSPI_MCR_CLR_TXF | DSPI_MCR_CLR_RXF);
	bool was_stopped = (m->mcr & MCR_LIVE) != 0;

	if (!m->p.xspi)
		keep &= ~DSPI_MCR_XSPI;
	uint32_t nv = v & keep;
	if (m->running && ((nv ^ m->mcr) & ~MCR_LIVE)) {
		refuse(m, "MCR bits 0x%08x changed while the module runs: only HALT and MDIS may (Kinetis "
			  "SPI_MCR)", (nv ^ m->mcr) & ~MCR_LIVE);
		nv = (nv & MCR_LIVE) | (m->mcr & ~MCR_LIVE);
	}
	m->mcr = nv;
	if (v & DSPI_MCR_CLR_TXF) {
		fifo_flush(&m->tx);
		fifo_flush(&m->cmd);
		m->cmd_active = false;
		m->stuck = false;
	}
	if (v & DSPI_MCR_CLR_RXF)
		fifo_flush(&m->rx);
	if (m->mcr & MCR_LIVE) {
		if (m->running && frame_ready(m))
			m->halt_pending = true; /* stops after the frame on the wire */
		else
			m->running = m->halt_pending = false;
		if (m->mcr & DSPI_MCR_HALT)
			m->stuck = false; /* model: halting recovers a wedged shifter */
	} else {
		m->halt_pending = false;
		if (was_stopped && !(m->flags & DSPI_SR_EOQF))
			m->running = true;
	}
	update_selection(m); /* PCSIS may have changed */
}

/*
 * SR: the flags are write-1-to-clear, the counters and pointers (15:0)
 * read-only (Linux writes back the SR it read, them included). TXRXS is
 * W1C too (Kinetis SPI_SR), but the module is back in Running at once while
 * HALT, MDIS and EOQF are clear, so writing it back changes nothing
 * (Linux's dspi_poll and dspi_interrupt do so at every read and run on).
 * Reserved bits written with 1 are refused.
 */
static void sr_write(struct ofl_sim_dspi *m, uint32_t v)
{
	uint32_t clr = v & LATCHED;

	if (v & SR_RESERVED)
		refuse(m, "SR reserved bits 0x%08x written with 1 (Kinetis SPI_SR; Linux writes "
			  "SPI_SR_CLEAR 0x%08x)", v & SR_RESERVED, DSPI_SR_CLEAR);

	if ((clr & DSPI_SR_EOQF) && (m->flags & DSPI_SR_EOQF) &&
	    !(m->mcr & (DSPI_MCR_HALT | DSPI_MCR_MDIS)))
		m->running = true; /* clearing EOQF restarts the module */
	m->flags &= ~clr;
}

static void push_tx(struct ofl_sim_dspi *m, uint32_t entry)
{
	if (!fifo_push(&m->tx, tx_depth(m), entry)) {
		m->flags |= DSPI_SR_TFIWF;
		m->st.tx_overruns++;
	}
}

static void push_cmd(struct ofl_sim_dspi *m, uint16_t cmd)
{
	if (!fifo_push(&m->cmd, tx_depth(m), cmd)) {
		m->flags |= DSPI_SR_TFIWF;
		m->st.tx_overruns++;
	}
}

/*
 * CTARn. Kinetis SPI_CTAR: "Do not write to the CTAR registers while the
 * module is in the Running state"; Linux writes CTAR0 while running, but
 * only between batches with every FIFO empty (dspi_setup_accel), which is
 * accepted, while a write with frames queued is refused and not applied.
 * With a chip select held by CONT after a frame of this CTAR, only FMSZ may
 * change before the next frame (the continuous selection format keeps the
 * frame's attributes; Linux changes only FMSZ, keeping one CTAR per device:
 * audit dspi.md F6, the RM rule unconfirmed): other changes are refused
 * (and taken, as the register would), and a CPOL change moves SCK under the
 * held chip select, an edge the selected device sees.
 */
static void ctar_write(struct ofl_sim_dspi *m, unsigned n, uint32_t v)
{
	if (m->running && shifter_busy(m)) {
		refuse(m, "CTAR%u written while frames are queued (Kinetis SPI_CTAR: not in the Running "
			  "state; Linux writes it only between batches)", n);
		return;
	}
	uint32_t diff = (m->ctar[n] ^ v) & ~DSPI_CTAR_FMSZ_MASK;
	m->ctar[n] = v;
	if (!m->cs_lines || !m->cs_kept || n != m->ctas_last)
		return;
	if (diff & ~DSPI_CTAR_CPOL)
		refuse(m, "CTAR%u bits 0x%08x changed while PCS is held by CONT: between the frames of a "
			  "continuous selection only FMSZ may change", n, diff & ~DSPI_CTAR_CPOL);
	if (diff & DSPI_CTAR_CPOL)
		sck_move(m, (v & DSPI_CTAR_CPOL) ? 1u : 0u);
}

static void reg_write(struct ofl_sim_dspi *m, uint64_t off, uint32_t v)
{
	if (off == DSPI_MCR)
		mcr_write(m, v);
	else if (off == DSPI_TCR)
		m->tcr = v & 0xFFFF0000u;
	else if (off >= DSPI_CTAR(0) && off < DSPI_CTAR(m->p.num_ctar))
		ctar_write(m, (unsigned)(off - DSPI_CTAR(0)) / 4u, v);
	else if (off == DSPI_SR)
		sr_write(m, v);
	else if (off == DSPI_RSER && m->running)
		refuse(m, "RSER written while the module runs (Kinetis SPI_RSER: do not write it in "
			  "the Running state)");
	else if (off == DSPI_RSER)
		m->rser = v;
	else if (off == DSPI_PUSHR && (m->mcr & DSPI_MCR_MDIS))
		; /* "When the module is disabled, writing to this register does not update the FIFO" */
	else if (off == DSPI_PUSHR && xspi_mode(m)) {
		m->pushr = v;
		push_cmd(m, (uint16_t)(v >> 16));
		push_tx(m, v & 0xFFFFu);
	} else if (off == DSPI_PUSHR) {
		m->pushr = v;
		push_tx(m, v);
	}
	else if (m->p.xspi && off >= DSPI_CTARE(0) && off < DSPI_CTARE(m->p.num_ctar))
		m->ctare[(off - DSPI_CTARE(0)) / 4] = v & (DSPI_CTARE_FMSZE | DSPI_CTARE_DTCP_MASK);
	else
		bad_access(m, "write", off);
}

/* ------------------------------------------------------------- block ops */

static uint32_t m_read32(void *model, unsigned region, uint64_t off)
{
	struct ofl_sim_dspi *m = model;

	OFL_UNUSED(region);
	pthread_mutex_lock(&m->mu);
	uint32_t v = reg_read(m, off);
	pthread_mutex_unlock(&m->mu);
	return m->p.big_endian ? __builtin_bswap32(v) : v;
}

static void m_write32(void *model, unsigned region, uint64_t off, uint32_t v)
{
	struct ofl_sim_dspi *m = model;

	OFL_UNUSED(region);
	pthread_mutex_lock(&m->mu);
	reg_write(m, off, m->p.big_endian ? __builtin_bswap32(v) : v);
	pthread_mutex_unlock(&m->mu);
}

/* The 16-bit halves of PUSHR (XSPI): which one an offset names, by endianness. */
static int pushr_half(const struct ofl_sim_dspi *m, uint64_t off, bool *is_cmd)
{
	uint64_t cmd = m->p.big_endian ? DSPI_PUSHR_CMD_BE : DSPI_PUSHR_CMD_LE;
	uint64_t tx = m->p.big_endian ? DSPI_PUSHR_TX_BE : DSPI_PUSHR_TX_LE;

	if (off != cmd && off != tx)
		return -1;
	*is_cmd = off == cmd;
	return 0;
}

static uint16_t m_read16(void *model, unsigned region, uint64_t off)
{
	struct ofl_sim_dspi *m = model;
	bool is_cmd;
	uint16_t v = 0xFFFFu;

	OFL_UNUSED(region);
	pthread_mutex_lock(&m->mu);
	if (pushr_half(m, off, &is_cmd) == 0) {
		advance(m);
		uint32_t top = m->tx.cnt ? m->tx.slot[m->tx.head] : 0;
		v = (uint16_t)(is_cmd ? top >> 16 : top);
		v = m->p.big_endian ? __builtin_bswap16(v) : v;
	} else {
		bad_access(m, "16-bit read", off);
	}
	pthread_mutex_unlock(&m->mu);
	return v;
}

static void m_write16(void *model, unsigned region, uint64_t off, uint16_t v)
{
	struct ofl_sim_dspi *m = model;
	bool is_cmd;

	OFL_UNUSED(region);
	pthread_mutex_lock(&m->mu);
	if (m->p.big_endian)
		v = __builtin_bswap16(v);
	/*
	 * In XSPI a command half fills the CMD FIFO and a data half the TX FIFO
	 * (Linux dspi_xspi_fifo_write). Outside XSPI, "an 8- or 16-bit write
	 * access transfers all 32 bits to the TX FIFO" (Kinetis SPI_PUSHR): the
	 * half written, with the other as PUSHR last held it.
	 */
	if (pushr_half(m, off, &is_cmd) < 0) {
		bad_access(m, "16-bit write", off);
	} else if (m->mcr & DSPI_MCR_MDIS) {
		; /* disabled: the FIFOs are not updated (Kinetis SPI_PUSHR) */
	} else {
		m->pushr = is_cmd ? (m->pushr & 0xFFFFu) | (uint32_t)v << 16 : (m->pushr & 0xFFFF0000u) | v;
		if (xspi_mode(m) && is_cmd)
			push_cmd(m, v);
		else if (xspi_mode(m))
			push_tx(m, v);
		else
			push_tx(m, m->pushr);
	}
	pthread_mutex_unlock(&m->mu);
}

static const struct ofl_sim_block_ops dspi_ops = {
	.read32 = m_read32,
	.write32 = m_write32,
	.read16 = m_read16,
	.write16 = m_write16,
};

/* ------------------------------------------------------------- lifecycle */

static void m_destroy(struct ofl_sim_model *base)
{
	struct ofl_sim_dspi *m = ofl_container_of(base, struct ofl_sim_dspi, base);
	for (unsigned i = 0; i < NUM_CS; i++)
		if (m->dev[i])
			m->dev[i]->ops->destroy(m->dev[i]);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

static void reset(struct ofl_sim_dspi *m)
{
	m->mcr = DSPI_MCR_RESET;
	for (unsigned i = 0; i < DSPI_MAX_CTAR; i++)
		m->ctar[i] = DSPI_CTAR_RESET;
	m->frames_per_poll = 1;
}

/*
 * Register names for the trace (sim.h), as Linux drivers/spi/spi-fsl-dspi.c
 * names them (SPI_MCR ... SPI_SREX, without the prefix). The 16-bit halves
 * of PUSHR (XSPI) swap places on a big-endian block (SPI_PUSHR_CMD /
 * SPI_PUSHR_TX and dspi->pushr_cmd / pushr_tx there): one table per order.
 */
#define DSPI_NAMES(cmd, tx)                                                        \
	OFL_SIM_REG(DSPI_MCR, "MCR"),                                        \
	OFL_SIM_REG(DSPI_TCR, "TCR"),                                        \
	{ DSPI_CTAR(0), 4 * DSPI_MAX_CTAR, 4, "CTAR", NULL, 0 },                   \
	OFL_SIM_REG(DSPI_SR, "SR"),                                          \
	OFL_SIM_REG(DSPI_RSER, "RSER"),                                      \
	{ cmd, 2, 0, "PUSHR_CMD", NULL, 2 },                                       \
	{ tx, 2, 0, "PUSHR_TX", NULL, 2 },                                         \
	OFL_SIM_REG(DSPI_PUSHR, "PUSHR"),                                    \
	OFL_SIM_REG(DSPI_POPR, "POPR"),                                      \
	{ DSPI_TXFR(0), 4 * DSPI_MAX_FIFO, 4, "TXFR", NULL, 0 },                   \
	{ DSPI_RXFR(0), 4 * DSPI_MAX_FIFO, 4, "RXFR", NULL, 0 },                   \
	{ DSPI_CTARE(0), 4 * DSPI_MAX_CTAR, 4, "CTARE", NULL, 0 },                 \
	OFL_SIM_REG(DSPI_SREX, "SREX"),                                      \
	OFL_SIM_REG_END
static const struct ofl_sim_reg names_le[] = { DSPI_NAMES(DSPI_PUSHR_CMD_LE, DSPI_PUSHR_TX_LE) };
static const struct ofl_sim_reg names_be[] = { DSPI_NAMES(DSPI_PUSHR_CMD_BE, DSPI_PUSHR_TX_BE) };
#undef DSPI_NAMES
static const struct ofl_sim_regarea area_le[] = { { NULL, 0, 0, 0, names_le }, { NULL, 0, 0, 0, NULL } };
static const struct ofl_sim_regarea area_be[] = { { NULL, 0, 0, 0, names_be }, { NULL, 0, 0, 0, NULL } };

struct ofl_sim_dspi *ofl_sim_dspi_create(struct ofl_sim *sim, const struct ofl_sim_dspi_params *p)
{
	if (!p->fifo_size || p->fifo_size > DSPI_MAX_FIFO || !p->num_ctar || p->num_ctar > DSPI_MAX_CTAR ||
	    p->size < (p->xspi ? DSPI_REGS_SIZE_XSPI : DSPI_REGS_SIZE))
		return NULL;
	struct ofl_sim_dspi *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->sim = sim;
	m->p = *p;
	m->tx.size = m->rx.size = m->cmd.size = p->fifo_size;
	ofl_strlcpy(m->name, p->name ? p->name : "dspi", sizeof(m->name));
	m->p.name = m->name;
	pthread_mutex_init(&m->mu, NULL);
	reset(m);
	m->base.kind = "nxp-dspi";
	m->base.node = p->node;
	m->base.destroy = m_destroy;
	if (ofl_sim_add_block(sim, p->phys, p->size, &dspi_ops, m, 0, m->name,
			      p->big_endian ? area_be : area_le) < 0) {
		pthread_mutex_destroy(&m->mu);
		free(m);
		return NULL;
	}
	ofl_sim_model_add(sim, &m->base);
	return m;
}

struct ofl_sim_dspi *ofl_sim_dspi_by_node(struct ofl_sim *sim, int node)
{
	struct ofl_sim_model *b = ofl_sim_model_by_node(sim, node);

	return b && strcmp(b->kind, "nxp-dspi") == 0 ? ofl_container_of(b, struct ofl_sim_dspi, base) : NULL;
}

/* ------------------------------------------------------------- devices */

static int put_dev(struct ofl_sim_dspi *m, unsigned cs, struct dspi_dev *d)
{
	if (cs >= NUM_CS) {
		if (d)
			d->ops->destroy(d);
		return -EINVAL;
	}
	pthread_mutex_lock(&m->mu);
	struct dspi_dev *old = m->dev[cs];
	if (old && m->selected[cs])
		old->ops->select(old, false);
	m->dev[cs] = d;
	m->selected[cs] = false;
	update_selection(m);
	pthread_mutex_unlock(&m->mu);
	if (old)
		old->ops->destroy(old);
	return 0;
}

int ofl_sim_dspi_attach_loopback(struct ofl_sim_dspi *m, unsigned cs, bool cs_high)
{
	struct dspi_dev *d = dspi_loopback_new(cs_high);

	return d ? put_dev(m, cs, d) : -ENOMEM;
}

int ofl_sim_dspi_attach_echo(struct ofl_sim_dspi *m, unsigned cs, unsigned mode, bool lsb_first,
			     bool cs_high)
{
	struct dspi_dev *d = dspi_echo_new(mode, lsb_first, cs_high);

	return d ? put_dev(m, cs, d) : -ENOMEM;
}

size_t ofl_sim_dspi_echo_log(struct ofl_sim_dspi *m, unsigned cs, uint8_t *out, size_t max,
			     uint64_t *total, unsigned *partial)
{
	size_t n = 0;

	if (total)
		*total = 0;
	if (partial)
		*partial = 0;
	pthread_mutex_lock(&m->mu);
	if (cs < NUM_CS && m->dev[cs] && dspi_dev_is_echo(m->dev[cs]))
		n = dspi_echo_log(m->dev[cs], out, max, total, partial);
	pthread_mutex_unlock(&m->mu);
	return n;
}

void ofl_sim_dspi_echo_clear(struct ofl_sim_dspi *m, unsigned cs)
{
	pthread_mutex_lock(&m->mu);
	if (cs < NUM_CS && m->dev[cs] && dspi_dev_is_echo(m->dev[cs]))
		dspi_echo_clear(m->dev[cs]);
	pthread_mutex_unlock(&m->mu);
}

int ofl_sim_dspi_attach_nor(struct ofl_sim_dspi *m, unsigned cs, const char *part,
			    const uint8_t id[3], uint32_t size, bool cs_high)
{
	struct dspi_dev *d = dspi_nor_new(part, id, size, cs_high);

	return d ? put_dev(m, cs, d) : -ENOMEM;
}

void ofl_sim_dspi_detach(struct ofl_sim_dspi *m, unsigned cs)
{
	put_dev(m, cs, NULL);
}

int ofl_sim_dspi_nor_io(struct ofl_sim_dspi *m, unsigned cs, bool write, uint32_t addr, void *buf,
			size_t len)
{
	int r = -ENODEV;

	if (cs >= NUM_CS)
		return -EINVAL;
	pthread_mutex_lock(&m->mu);
	if (m->dev[cs] && dspi_dev_is_nor(m->dev[cs]))
		r = dspi_nor_io(m->dev[cs], write, addr, buf, len);
	pthread_mutex_unlock(&m->mu);
	return r;
}

const char *ofl_sim_dspi_device(struct ofl_sim_dspi *m, unsigned cs)
{
	const char *n = NULL;

	pthread_mutex_lock(&m->mu);
	if (cs < NUM_CS && m->dev[cs])
		n = m->dev[cs]->name;
	pthread_mutex_unlock(&m->mu);
	return n;
}

/* ------------------------------------------------------------- introspection */

size_t ofl_sim_dspi_frames(struct ofl_sim_dspi *m, struct ofl_sim_dspi_frame *out, size_t max,
			   uint64_t *total)
{
	pthread_mutex_lock(&m->mu);
	uint64_t have = m->nlog < LOG_SIZE ? m->nlog : LOG_SIZE;
	size_t n = (size_t)(have < max ? have : max);
	for (size_t i = 0; i < n; i++)
		out[i] = m->log[(m->nlog - n + i) % LOG_SIZE];
	if (total)
		*total = m->st.frames;
	pthread_mutex_unlock(&m->mu);
	return n;
}

void ofl_sim_dspi_clear_log(struct ofl_sim_dspi *m)
{
	pthread_mutex_lock(&m->mu);
	m->nlog = 0;
	pthread_mutex_unlock(&m->mu);
}

void ofl_sim_dspi_stats(struct ofl_sim_dspi *m, struct ofl_sim_dspi_stats *out)
{
	pthread_mutex_lock(&m->mu);
	*out = m->st;
	out->time_ps = m->t_ps;
	out->cs_lines = m->cs_lines;
	pthread_mutex_unlock(&m->mu);
}

void ofl_sim_dspi_set_frames_per_poll(struct ofl_sim_dspi *m, unsigned n)
{
	pthread_mutex_lock(&m->mu);
	m->frames_per_poll = n;
	pthread_mutex_unlock(&m->mu);
}

void ofl_sim_dspi_set_paced(struct ofl_sim_dspi *m, bool paced)
{
	pthread_mutex_lock(&m->mu);
	m->unpaced = !paced;
	pthread_mutex_unlock(&m->mu);
}

void ofl_sim_dspi_lines(struct ofl_sim_dspi *m, bool *irq, bool *dma_tx, bool *dma_rx)
{
	static const struct { uint32_t re, sr; } map[] = {
		{ DSPI_RSER_TCF_RE, DSPI_SR_TCF },     { DSPI_RSER_EOQF_RE, DSPI_SR_EOQF },
		{ DSPI_RSER_TFUF_RE, DSPI_SR_TFUF },   { DSPI_RSER_CMDTCF_RE, DSPI_SR_CMDTCF },
		{ DSPI_RSER_SPEF_RE, DSPI_SR_SPEF },   { DSPI_RSER_RFOF_RE, DSPI_SR_RFOF },
		{ DSPI_RSER_TFIWF_RE, DSPI_SR_TFIWF }, { DSPI_RSER_CMDFFF_RE, DSPI_SR_CMDFFF },
	};
	pthread_mutex_lock(&m->mu);
	promote_late(m);
	uint32_t sr = sr_value(m), rser = m->rser;
	bool i = false;
	for (size_t k = 0; k < OFL_ARRAY_SIZE(map); k++)
		if ((rser & map[k].re) && (sr & map[k].sr))
			i = true;
	/* TFFF and RFDF go to the interrupt or, with their DIRS bit, to the DMA request */
	bool tx = (rser & DSPI_RSER_TFFF_RE) && (sr & DSPI_SR_TFFF);
	bool rx = (rser & DSPI_RSER_RFDF_RE) && (sr & DSPI_SR_RFDF);
	if (tx && !(rser & DSPI_RSER_TFFF_DIRS))
		i = true;
	if (rx && !(rser & DSPI_RSER_RFDF_DIRS))
		i = true;
	pthread_mutex_unlock(&m->mu);
	if (irq)
		*irq = i;
	if (dma_tx)
		*dma_tx = tx && (rser & DSPI_RSER_TFFF_DIRS);
	if (dma_rx)
		*dma_rx = rx && (rser & DSPI_RSER_RFDF_DIRS);
}
