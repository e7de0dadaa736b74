/* SPDX-License-Identifier: MIT */
/*
 * Messages on the DSPI, host mode, the CPU moving every word (Linux
 * spi-fsl-dspi.c dspi_transfer_one_message() and its XSPI PIO path):
 *
 *  - per message (Linux dspi_transfer_one_message, 5.2): start the module
 *    if halted (HALT = 0, wait for TXRXS); per transfer a base command of
 *    CTAS 0 and the chip select's PCS bit, with CONT as 5.6 says (kept into
 *    the next transfer unless cs_change; kept after the last transfer only
 *    with cs_change); CLR_TXF|CLR_RXF and the SR flags cleared; at the end
 *    HALT, unless the last transfer's cs_change keeps CS asserted;
 *  - XSPI flow (5.3, the current driver): the operating word packs 8-bit
 *    data into 16- or 32-bit frames and 16-bit data into 32-bit frames, in
 *    wire order: MSB first the first byte (word) high, as Linux does; LSB
 *    first (CTAR.LSBFE shifts the whole frame from its LSB, Kinetis
 *    SPI_CTAR LSBFE) the first byte (word) low. Linux packs LSB-first data
 *    high as well, so its LSB-first devices receive each frame's bytes in
 *    reverse (audit dspi.md F1); a batch is as many words as the FIFO holds (half
 *    as many for frames over 16 bits, which take two TX entries); CTAR0
 *    gets the frame size, CTARE0 FMSZE and DTCP = words; one command half,
 *    with CONT while more than one word of the transfer remains and EOQ on
 *    the batch that ends a transfer after which CS drops; the TX halves;
 *    CMDTCF ends the batch, then as many POPR reads as words;
 *  - EOQ flow (5.5, the 2017/2020 drivers for parts without XSPI): 32-bit
 *    PUSHR entries (command + data, CONT while the transfer continues),
 *    words of at most 16 bits; a fill whose last frame ends the transfer
 *    with CS dropping carries EOQ and ends on EOQF (written back to restart
 *    the module). Linux put EOQ on every fill, and since the hardware
 *    releases PCS after an EOQ frame whatever CONT says, CS dropped every
 *    FIFO-full of frames (the 2020 driver capped EOQ-mode messages at the
 *    FIFO size for that reason). Here a fill after which CS must stay
 *    asserted carries no EOQ and is complete when SR.RXCTR counts all of its
 *    frames, so CS never drops inside a transfer;
 *  - every wait is bounded by time (at least timeout_floor_ns, or 8 x the
 *    batch's wire time), not by a count of reads (Linux: 1000 SR reads);
 *    TFUF/RFOF give -EIO (Linux dspi_fifo_error), a timeout -ETIMEDOUT;
 *    either way the controller is recovered: halted, FIFOs flushed, every
 *    flag cleared, and a chip select left asserted released by one frame
 *    sent with no PCS bit, so the next message starts clean;
 *  - while a chip select is held (CONT, between transfers without cs_change
 *    and after a message whose last transfer has it), CTAR0 changes only in
 *    FMSZ, as in Linux, which programs one CTAR per device (dspi_setup) and
 *    ORs in the frame size per batch (dspi_setup_accel): a CPOL switch under
 *    the Continuous Selection Format is a clock edge to the device (Kinetis
 *    SPI_CTAR CPOL), and the RM lets only the frame size differ between its
 *    frames (audit F6, unconfirmed). So a clock change across a held chip
 *    select is refused, the frame that releases a held chip select uses
 *    the holder's CTAR (F5), and a message to another chip select first
 *    releases the held one that way;
 *  - SR is cleared with SPI_SR_CLEAR and EOQF, never its reserved bits.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dspi.h"

enum pack { PACK_NATIVE, PACK_8ON16, PACK_8ON32, PACK_16ON32 };

struct msg {
	struct dspi_handle *h;
	struct dspi_ctrl *c;
	unsigned xi;          /* transfer index */
	unsigned bpw;
	uint32_t ctar;        /* CTAR without FMSZ for this transfer */
	uint32_t sck_hz;
	uint16_t base;        /* base command */
	const uint8_t *tx;
	uint8_t *rx;
	bool lsb;             /* LSB first: packed words in wire order from the frame's LSB */
	uint32_t len;         /* bytes left in the transfer */
	uint32_t done;        /* bytes of the message completed */
	const char *what;     /* the failure, for the message */
};

/* ------------------------------------------------------------- words */

static unsigned mem_bytes(unsigned bpw)
{
	return bpw <= 8 ? 1u : bpw <= 16 ? 2u : 4u;
}

/*
 * Operating word for the next batch (Linux dspi_setup_accel): 8-bit data
 * goes as 16-bit frames when an even length fits twice the FIFO, as 8-bit
 * frames when an odd length fits the FIFO, else as the largest frame
 * (32 bits in XSPI, 16 in EOQ mode) the remaining length fills; 16-bit data
 * likewise as 32-bit frames. Other word sizes go natively. Memory bytes per
 * operating word in *osz.
 */
static unsigned oper_word(const struct dspi_ctrl *c, unsigned bpw, uint32_t len, enum pack *pk,
			  unsigned *osz)
{
	unsigned oper = bpw;

	*pk = PACK_NATIVE;
	if (bpw == 8 || bpw == 16) {
		bool odd = len & 1u;
		if (!odd && len <= 2u * c->fifo) {
			oper = 16;
		} else if (odd && len <= c->fifo) {
			oper = 8;
		} else {
			oper = c->flow == DSPI_FLOW_XSPI ? 32u : 16u;
			while (oper > 8 && len < oper / 8u)
				oper /= 2;
		}
		if (bpw == 8 && oper == 32)
			*pk = PACK_8ON32;
		else if (bpw == 8 && oper == 16)
			*pk = PACK_8ON16;
		else if (bpw == 16 && oper == 32)
			*pk = PACK_16ON32;
		else
			oper = bpw;
	}
	*osz = *pk == PACK_NATIVE ? mem_bytes(bpw) : oper / 8u;
	return oper;
}

/*
 * One operating word from memory. Packed words keep the transfer's order on
 * the wire: shifted MSB first, the first byte (or 16-bit word) goes high in
 * the frame (Linux dspi_8on16/8on32/16on32_host_to_dev); shifted LSB first,
 * low, since LSBFE sends the frame's LSB first.
 */
static uint32_t pack_word(const uint8_t *p, enum pack pk, unsigned osz, bool lsb)
{
	uint16_t a, b;
	uint32_t v;

	if (!p)
		return 0; /* no tx buffer: zeros */
	switch (pk) {
	case PACK_8ON16:
		return lsb ? (uint32_t)p[1] << 8 | p[0] : (uint32_t)p[0] << 8 | p[1];
	case PACK_8ON32:
		if (lsb)
			return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	case PACK_16ON32:
		memcpy(&a, p, 2);
		memcpy(&b, p + 2, 2);
		return lsb ? (uint32_t)b << 16 | a : (uint32_t)a << 16 | b;
	case PACK_NATIVE:
		break;
	}
	if (osz == 1)
		return p[0];
	if (osz == 2) {
		memcpy(&a, p, 2);
		return a;
	}
	memcpy(&v, p, 4);
	return v;
}

/* One received operating word into memory, the inverse of pack_word(). */
static void unpack_word(uint8_t *p, uint32_t v, enum pack pk, unsigned osz, bool lsb)
{
	uint16_t a;

	switch (pk) {
	case PACK_8ON16:
		for (unsigned i = 0; i < 2; i++)
			p[i] = (uint8_t)(v >> (lsb ? 8u * i : 8u * (1u - i)));
		return;
	case PACK_8ON32:
		for (unsigned i = 0; i < 4; i++)
			p[i] = (uint8_t)(v >> (lsb ? 8u * i : 8u * (3u - i)));
		return;
	case PACK_16ON32:
		a = (uint16_t)(lsb ? v : v >> 16);
		memcpy(p, &a, 2);
		a = (uint16_t)(lsb ? v >> 16 : v);
		memcpy(p + 2, &a, 2);
		return;
	case PACK_NATIVE:
		break;
	}
	if (osz == 1) {
		p[0] = (uint8_t)v;
	} else if (osz == 2) {
		a = (uint16_t)v;
		memcpy(p, &a, 2);
	} else {
		memcpy(p, &v, 4);
	}
}

/* ------------------------------------------------------------- waiting */

/*
 * Poll SR until `flag` is set (or, with flag 0, RXCTR reaches rx_want),
 * writing back each value read as Linux does (which clears the flags it
 * saw, EOQF included, restarting the module after an end of queue).
 */
static int wait_done(struct msg *m, uint32_t flag, unsigned rx_want, unsigned frames, unsigned bits)
{
	struct dspi_ctrl *c = m->c;
	uint64_t wire = m->sck_hz ? (uint64_t)frames * bits * 1000000000ull / m->sck_hz : 0;
	uint64_t budget = wire * 8u > c->timeout_floor_ns ? wire * 8u : c->timeout_floor_ns;
	uint64_t start = ofl_now_ns();

	for (unsigned reads = 1;; reads++) {
		uint32_t sr = dspi_rd(c, DSPI_SR);
		dspi_wr(c, DSPI_SR, sr);
		if (sr & (DSPI_SR_TFUF | DSPI_SR_RFOF)) {
			c->last_sr = sr;
			m->what = (sr & DSPI_SR_RFOF) && (sr & DSPI_SR_TFUF) ? "TX underflow and RX overflow"
				  : (sr & DSPI_SR_RFOF)			  ? "RX FIFO overflow (SR.RFOF)"
									  : "TX FIFO underflow (SR.TFUF)";
			return -EIO;
		}
		if (flag ? (sr & flag) != 0 : DSPI_SR_RXCTR(sr) >= rx_want)
			return 0;
		if ((reads & 31u) == 0 && ofl_now_ns() - start > budget) {
			c->last_sr = sr;
			m->what = flag == DSPI_SR_CMDTCF ? "the command never completed (no SR.CMDTCF)"
				  : flag == DSPI_SR_EOQF ? "the queue never ended (no SR.EOQF)"
							 : "the frames never arrived (SR.RXCTR short)";
			return -ETIMEDOUT;
		}
	}
}

int dspi_halt(struct dspi_ctrl *c, bool halt)
{
	uint64_t start = ofl_now_ns();

	dspi_mcr(c, halt ? c->mcr | DSPI_MCR_HALT : c->mcr & ~DSPI_MCR_HALT);
	for (unsigned reads = 1;; reads++) {
		uint32_t sr = dspi_rd(c, DSPI_SR);
		if (!(sr & DSPI_SR_TXRXS) == halt)
			return 0;
		if ((reads & 31u) == 0 && ofl_now_ns() - start > c->timeout_floor_ns) {
			c->last_sr = sr;
			return -ETIMEDOUT;
		}
	}
}

void dspi_mcr(struct dspi_ctrl *c, uint32_t v)
{
	c->mcr = v & ~(DSPI_MCR_CLR_TXF | DSPI_MCR_CLR_RXF);
	dspi_wr(c, DSPI_MCR, v);
}

static void flush_fifos(struct dspi_ctrl *c)
{
	dspi_wr(c, DSPI_MCR, c->mcr | DSPI_MCR_CLR_TXF | DSPI_MCR_CLR_RXF);
}

/* ------------------------------------------------------------- batches */

/* CTAR0 for frames of `bits`, remembered without FMSZ. */
static void write_ctar0(struct dspi_ctrl *c, uint32_t ctar, unsigned bits)
{
	c->ctar0 = ctar;
	dspi_wr(c, DSPI_CTAR(0), ctar | dspi_ctar_fmsz_bits(bits));
}

static void advance_bufs(struct msg *m, uint32_t bytes)
{
	if (m->tx)
		m->tx += bytes;
	if (m->rx)
		m->rx += bytes;
	m->len -= bytes;
	m->done += bytes;
}

/*
 * Wait for the batch of `words` frames (flag, or with flag 0 RXCTR = words),
 * read as many POPR entries into the rx buffer and move past the batch.
 */
static int finish_batch(struct msg *m, uint32_t flag, unsigned words, unsigned oper, enum pack pk,
			unsigned osz)
{
	int r = wait_done(m, flag, words, words, oper);

	if (r < 0)
		return r;
	for (unsigned w = 0; w < words; w++) {
		uint32_t v = dspi_rd(m->c, DSPI_POPR);
		if (m->rx)
			unpack_word(m->rx + w * osz, v, pk, osz, m->lsb);
	}
	advance_bufs(m, words * osz);
	return 0;
}

static int xspi_batch(struct msg *m)
{
	struct dspi_ctrl *c = m->c;
	enum pack pk;
	unsigned osz, oper = oper_word(c, m->bpw, m->len, &pk, &osz);
	unsigned entries = oper > 16 ? c->fifo / 2u : c->fifo; /* two TX entries per frame > 16 bits */
	unsigned words = m->len / osz < entries ? m->len / osz : entries;
	uint16_t cmd = m->base;

	if (!(m->base & DSPI_CMD_CONT) && words * osz == m->len)
		cmd |= DSPI_CMD_EOQ;
	if (m->len > osz)
		cmd |= DSPI_CMD_CONT;
	write_ctar0(c, m->ctar, oper);
	dspi_wr(c, DSPI_CTARE(0), dspi_ctare_fmsze_bits(oper) | DSPI_CTARE_DTCP(words));
	dspi_wr16(c, c->pushr_cmd, cmd);
	for (unsigned w = 0; w < words; w++) {
		uint32_t d = pack_word(m->tx ? m->tx + w * osz : NULL, pk, osz, m->lsb);
		dspi_wr16(c, c->pushr_tx, (uint16_t)d);
		if (oper > 16)
			dspi_wr16(c, c->pushr_tx, (uint16_t)(d >> 16));
	}
	return finish_batch(m, DSPI_SR_CMDTCF, words, oper, pk, osz);
}

static int eoq_batch(struct msg *m)
{
	struct dspi_ctrl *c = m->c;
	enum pack pk;
	unsigned osz, oper = oper_word(c, m->bpw, m->len, &pk, &osz);
	unsigned words = m->len / osz < c->fifo ? m->len / osz : c->fifo;
	bool eoq = words * osz == m->len && !(m->base & DSPI_CMD_CONT);

	if (!eoq && words > 15)
		words = 15; /* completion by SR.RXCTR, a 4-bit count */
	write_ctar0(c, m->ctar, oper);
	for (unsigned w = 0; w < words; w++) {
		uint32_t cmd = m->base;
		if (m->len > (w + 1u) * osz)
			cmd |= DSPI_CMD_CONT; /* more of the transfer follows this frame */
		if (eoq && w + 1u == words)
			cmd |= DSPI_CMD_EOQ;
		uint32_t d = pack_word(m->tx ? m->tx + w * osz : NULL, pk, osz, m->lsb);
		dspi_wr(c, DSPI_PUSHR, cmd << 16 | (d & 0xFFFFu));
	}
	return finish_batch(m, eoq ? DSPI_SR_EOQF : 0, words, oper, pk, osz);
}

/* ------------------------------------------------------------- chip select release, recovery */

/*
 * One 8-bit frame with no PCS bit and no CONT: PCS bits that were kept
 * asserted go inactive before it (a frame naming other chip selects), and
 * no device sees its clocks. It runs with the CTAR of the frames before it
 * (the holder's, only FMSZ changed), so nothing moves under the still held
 * chip select: no polarity switch, no other baud (audit F5). The module is
 * left halted.
 */
static int release_frame(struct dspi_ctrl *c)
{
	struct msg m = { .c = c, .sck_hz = (uint32_t)(dspi_ctar_sck_mhz(c->fp, c->ctar0) / 1000u) };
	int r;

	flush_fifos(c);
	dspi_wr(c, DSPI_SR, DSPI_SR_CLEAR_EOQF);
	if ((r = dspi_halt(c, false)) < 0)
		return r;
	write_ctar0(c, c->ctar0, 8);
	if (c->flow == DSPI_FLOW_XSPI) {
		dspi_wr(c, DSPI_CTARE(0), DSPI_CTARE_DTCP(1));
		dspi_wr16(c, c->pushr_cmd, (uint16_t)DSPI_CMD_CTAS(0));
		dspi_wr16(c, c->pushr_tx, 0);
		r = wait_done(&m, DSPI_SR_CMDTCF, 0, 1, 8);
	} else {
		dspi_wr(c, DSPI_PUSHR, (DSPI_CMD_CTAS(0) | DSPI_CMD_EOQ) << 16);
		r = wait_done(&m, DSPI_SR_EOQF, 0, 1, 8);
	}
	if (r == 0)
		dspi_rd(c, DSPI_POPR);
	int h = dspi_halt(c, true);
	return r < 0 ? r : h < 0 ? h : 1;
}

void dspi_recover(struct dspi_ctrl *c)
{
	dspi_halt(c, true); /* best effort: a wedged module may not answer */
	flush_fifos(c);
	dspi_wr(c, DSPI_SR, DSPI_SR_CLEAR_EOQF);
	if (release_frame(c) < 0) {
		dspi_halt(c, true);
		flush_fifos(c);
		dspi_wr(c, DSPI_SR, DSPI_SR_CLEAR_EOQF);
	}
	c->held_cs = -1;
}

int dspi_release(struct dspi_handle *h, bool only_own)
{
	struct dspi_ctrl *c = h->c;
	int r = 0;

	pthread_mutex_lock(&c->mu);
	if (c->held_cs >= 0 && (!only_own || c->held_cs == (int)h->cs)) {
		r = release_frame(c);
		c->held_cs = -1;
		if (r < 0)
			dspi_recover(c);
	}
	pthread_mutex_unlock(&c->mu);
	return r;
}

/* ------------------------------------------------------------- messages */

/* CTAR and SCK for a transfer's clock (0 = the handle's default). */
static int transfer_timing(struct dspi_handle *h, uint32_t speed_hz, uint32_t *ctar, uint32_t *sck,
			   bool *mtf)
{
	uint32_t hz = dspi_clamp_hz(h->c, speed_hz ? speed_hz : h->speed);
	struct dspi_timing t;

	if (hz == h->speed) {
		*ctar = h->ctar;
		*sck = h->actual_hz;
	} else if (hz == h->last_speed) {
		*ctar = h->last_ctar;
		*sck = (uint32_t)(dspi_ctar_sck_mhz(h->c->fp, *ctar) / 1000u);
	} else {
		if (dspi_timing(h->c, h->mode, hz, h->cs_setup_ns, h->cs_hold_ns, &t) < 0)
			return -EINVAL;
		h->last_speed = hz;
		h->last_ctar = *ctar = t.ctar;
		*sck = t.sck_hz;
	}
	*mtf = (*ctar & DSPI_CTAR_DBR) != 0;
	return 0;
}

/* S32G: MCR.MTFE follows the transfer's clock; MCR may change only while halted. */
static int set_mtf(struct dspi_ctrl *c, bool mtf)
{
	if (!c->s32g || mtf == ((c->mcr & DSPI_MCR_MTFE) != 0))
		return 0;
	int r = dspi_halt(c, true);
	if (r == 0) {
		dspi_mcr(c, mtf ? c->mcr | DSPI_MCR_MTFE : c->mcr & ~DSPI_MCR_MTFE);
		r = dspi_halt(c, false);
	}
	return r;
}

static void sleep_us(uint32_t us)
{
	struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int run_transfer(struct msg *m, const struct offload_spi_xfer *t, bool last)
{
	struct dspi_handle *h = m->h;
	struct dspi_ctrl *c = m->c;
	bool mtf = false;
	int r;

	m->bpw = t->bits_per_word ? t->bits_per_word : h->bpw;
	if (transfer_timing(h, t->speed_hz, &m->ctar, &m->sck_hz, &mtf) < 0) {
		m->what = "the clock is below the slowest the divider reaches";
		return -EINVAL;
	}
	if ((r = set_mtf(c, mtf)) < 0) {
		m->what = "the module did not halt to switch MTF";
		return r;
	}
	m->base = (uint16_t)DSPI_CMD_CTAS(0);
	if (!(h->mode & OFFLOAD_SPI_NO_CS))
		m->base |= (uint16_t)DSPI_CMD_PCS(h->cs);
	if (last ? t->cs_change : !t->cs_change)
		m->base |= DSPI_CMD_CONT;
	m->tx = t->tx;
	m->rx = t->rx;
	m->lsb = (h->mode & OFFLOAD_SPI_LSB_FIRST) != 0;
	m->len = t->len;
	flush_fifos(c);
	/* Linux's SR_CLEAR, and EOQF: an end of queue seen late must not leave the module stopped */
	dspi_wr(c, DSPI_SR, DSPI_SR_CLEAR_EOQF);
	while (m->len && r == 0)
		r = c->flow == DSPI_FLOW_XSPI ? xspi_batch(m) : eoq_batch(m);
	if (r == 0 && t->delay_usecs)
		sleep_us(t->delay_usecs);
	return r;
}

/*
 * A clock change where the chip select stays asserted: between transfers
 * without cs_change, or from the chip select this handle left held. CTAR0
 * would change in more than FMSZ under the held PCS (audit F6). 0, or
 * -EINVAL with the message recorded; nothing has been clocked.
 */
static int check_held_clocks(struct dspi_handle *h, const struct offload_spi_xfer *x, unsigned n)
{
	struct dspi_ctrl *c = h->c;
	bool held = c->held_cs == (int)h->cs;
	uint32_t prev = c->ctar0, ctar, sck;
	bool mtf;

	for (unsigned i = 0; i < n; i++) {
		if (transfer_timing(h, x[i].speed_hz, &ctar, &sck, &mtf) < 0)
			return 0; /* too slow: run_transfer says so */
		if (held && ctar != prev) {
			uint32_t hz = dspi_clamp_hz(c, x[i].speed_hz ? x[i].speed_hz : h->speed);
			char since[64];
			if (i)
				snprintf(since, sizeof(since), "transfer %u's", i - 1);
			else
				snprintf(since, sizeof(since), "the one of the chip select held since the "
							"previous message");
			return ofl_err(h->ctx, -EINVAL,
				       "offload_spi_transfer: %s chip select %u: transfer %u: its clock (%u Hz) "
				       "differs from %s while the chip select stays asserted between them: "
				       "the DSPI may change only the frame size between the frames of a "
				       "continuous selection (Linux programs one CTAR per device); release "
				       "the chip select first (cs_change) or keep one clock",
				       c->dev->name, h->cs, i, hz, since);
		}
		prev = ctar;
		held = !x[i].cs_change;
	}
	return 0;
}

int dspi_message(struct dspi_handle *h, const struct offload_spi_xfer *x, unsigned n, uint32_t total)
{
	struct dspi_ctrl *c = h->c;
	struct msg m = { .h = h, .c = c };
	int r = 0;

	pthread_mutex_lock(&c->mu);
	if ((r = check_held_clocks(h, x, n)) < 0) {
		pthread_mutex_unlock(&c->mu);
		return r;
	}
	if (c->held_cs >= 0 && c->held_cs != (int)h->cs) {
		/* another chip select is held: released at its holder's CTAR before ours is written */
		int rel = release_frame(c);
		r = rel < 0 ? rel : 0;
		c->held_cs = -1;
		if (r < 0)
			m.what = "the chip select another handle left asserted could not be released";
	}
	if (r == 0 && (c->mcr & DSPI_MCR_HALT)) {
		r = dspi_halt(c, false);
		if (r < 0)
			m.what = "the module did not start (SR.TXRXS stayed 0 after HALT was cleared)";
	}
	for (unsigned i = 0; i < n && r == 0; i++) {
		m.xi = i;
		r = run_transfer(&m, &x[i], i + 1 == n);
	}
	if (r == 0 && !x[n - 1].cs_change) {
		r = dspi_halt(c, true);
		if (r < 0)
			m.what = "the module did not stop (SR.TXRXS stayed 1 after HALT)";
		c->held_cs = -1;
	} else if (r == 0) {
		c->held_cs = (int)h->cs; /* cs_change on the last transfer: CS stays asserted */
	}
	if (r < 0) {
		uint32_t sr = c->last_sr;
		dspi_recover(c);
		atomic_fetch_add(&c->dev->stats.jobs, 1);
		pthread_mutex_unlock(&c->mu);
		return ofl_err(h->ctx, r,
			       "offload_spi_transfer: %s chip select %u: transfer %u: %s; SR was 0x%08x; %u of "
			       "%u bytes were clocked before it; the controller was halted, its FIFOs "
			       "flushed and CS released",
			       c->dev->name, h->cs, m.xi, m.what ? m.what : ofl_strerror(r), sr, m.done,
			       total);
	}
	atomic_fetch_add(&c->dev->stats.jobs, 1);
	atomic_fetch_add(&c->dev->stats.bytes, total);
	pthread_mutex_unlock(&c->mu);
	return (int)total;
}
