/* SPDX-License-Identifier: MIT */
/*
 * offloadctl bench spi: Linux's tools/spi/spidev_test on liboffload, with
 * its options and line shapes (tools/spi/spidev_test.c parse_opts(),
 * show_transfer_rate()), and three fixes:
 *  - the periodic "rate:" lines divide by the time that really elapsed
 *    (spidev_test divides by a fixed 5 s while printing about every 6 s,
 *    reading about 1.2x high), and put the tx figure first;
 *  - a final summary: total bytes, the mean rate over the whole run and a
 *    noise estimate (sample standard deviation of the interval rates);
 *  - --size runs verify every transfer's looped-back data by default
 *    (mismatch: "transfer error !", both hex dumps, exit status 1).
 * --device takes a /dev/spidevB.C path or a device-tree node path.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

enum {
	OPT_INTERVAL = CLI_OPT_COMMAND_FIRST,
	OPT_VERIFY,
	OPT_NO_VERIFY,
};

struct spi_bench {
	const char *device;
	bool device_given;     /* --device; else spidev_test's /dev/spidev1.1 */
	uint32_t speed;
	bool speed_set;
	uint16_t delay;
	uint8_t bits;
	const char *input, *output, *pattern;
	uint32_t mode;
	bool mode_set;
	bool loop;
	uint8_t nbits;         /* 0, 2 (--dual) or 4 (--quad) */
	bool verbose;
	bool verify, no_verify;
	long size, iterations;
	double interval;
	bool json;
	FILE *dump;            /* where -v hex dumps go (stderr with --json) */
	offload_ctx *ctx;
	offload_spi *spi;
	struct offload_spi_info info;
};

/* spidev_test's built-in message (tools/spi/spidev_test.c default_tx). */
static const uint8_t default_tx[32] = {
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x40, 0x00, 0x00, 0x00, 0x00, 0x95, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0x0D,
};

static void usage(const struct cli *cli, FILE *f)
{
	fprintf(f,
		"usage: %s bench spi [OPTIONS]\n"
		"\nspidev_test's options:\n"
		"  -D, --device PATH   /dev/spidevB.C or a DT node path (default /dev/spidev1.1, as\n"
		"                      spidev_test)\n"
		"  -s, --speed HZ      clock (default 500000 for spidev, the DT's spi-max-frequency for DT paths)\n"
		"  -d, --delay USEC    delay after each transfer\n"
		"  -b, --bpw BITS      bits per word (default 8)\n"
		"  -i, --input FILE    send the file as one transfer\n"
		"  -o, --output FILE   write the received bytes to FILE (rewritten every transfer)\n"
		"  -l, --loop          controller loop-back mode (SPI_LOOP)\n"
		"  -H, --cpha          clock phase          -O, --cpol     clock polarity\n"
		"  -L, --lsb           LSB first            -C, --cs-high  active-high chip select\n"
		"  -3, --3wire         shared SI/SO         -N, --no-cs    no chip select\n"
		"  -2, --dual          two TX lanes         -4, --quad     four TX lanes (RX too with --loop)\n"
		"  -p STRING           send STRING; \\xHH escapes are bytes\n"
		"  -v, --verbose       hex dumps of TX and RX\n"
		"  -S, --size BYTES    benchmark: transfer size\n"
		"  -I, --iter COUNT    benchmark: number of transfers\n"
		"\nadded:\n"
		"  --interval SEC      seconds between rate: lines (default 5; the rate is over the real time)\n"
		"  --verify            compare RX with TX also for -p, -i and the default message\n"
		"  --no-verify         do not compare RX with TX in --size runs (no MOSI-MISO loop)\n"
		"  --json              one JSON object on stdout instead of text\n"
		"\ncommon options:\n" CLI_COMMON_HELP
		"\nExit status: 0 success, 1 transfer failure or data mismatch, 2 usage error.\n",
		cli->prog);
}

static long unescape(const char *s, uint8_t *out);

static const struct option spi_longopts[] = {
	{ "device", required_argument, NULL, 'D' }, { "speed", required_argument, NULL, 's' },
	{ "delay", required_argument, NULL, 'd' },  { "bpw", required_argument, NULL, 'b' },
	{ "input", required_argument, NULL, 'i' },  { "output", required_argument, NULL, 'o' },
	{ "loop", no_argument, NULL, 'l' },         { "cpha", no_argument, NULL, 'H' },
	{ "cpol", no_argument, NULL, 'O' },         { "lsb", no_argument, NULL, 'L' },
	{ "cs-high", no_argument, NULL, 'C' },      { "3wire", no_argument, NULL, '3' },
	{ "no-cs", no_argument, NULL, 'N' },        { "dual", no_argument, NULL, '2' },
	{ "quad", no_argument, NULL, '4' },         { "verbose", no_argument, NULL, 'v' },
	{ "size", required_argument, NULL, 'S' },   { "iter", required_argument, NULL, 'I' },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "no-verify", no_argument, NULL, OPT_NO_VERIFY },
	CLI_COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* The mode bit each of spidev_test's mode options sets. */
static uint32_t mode_bit(int c)
{
	switch (c) {
	case 'l': return OFFLOAD_SPI_LOOP;
	case 'H': return OFFLOAD_SPI_CPHA;
	case 'O': return OFFLOAD_SPI_CPOL;
	case 'L': return OFFLOAD_SPI_LSB_FIRST;
	case 'C': return OFFLOAD_SPI_CS_HIGH;
	case '3': return OFFLOAD_SPI_3WIRE;
	case 'N': return OFFLOAD_SPI_NO_CS;
	default: return 0;
	}
}

static int spi_opt(struct cli *cli, void *state, int c, const char *arg)
{
	struct spi_bench *b = state;
	uint64_t v;

	switch (c) {
	case 'D': b->device = arg; b->device_given = true; return 0;
	case 's':
		if (!cli_opt_uint(cli, "-s/--speed", arg, 0, 1, UINT32_MAX, &v))
			return CLI_EXIT_USAGE;
		b->speed = (uint32_t)v;
		b->speed_set = true;
		return 0;
	case 'd':
		if (!cli_opt_uint(cli, "-d/--delay", arg, 0, 0, UINT16_MAX, &v))
			return CLI_EXIT_USAGE;
		b->delay = (uint16_t)v;
		return 0;
	case 'b':
		if (!cli_opt_uint(cli, "-b/--bpw", arg, 0, 1, 32, &v))
			return CLI_EXIT_USAGE;
		b->bits = (uint8_t)v;
		return 0;
	case 'S':
		if (!cli_opt_uint(cli, "-S/--size", arg, CLI_NUM_SIZE, 0, INT32_MAX, &v))
			return CLI_EXIT_USAGE;
		b->size = (long)v;
		return 0;
	case 'I':
		if (!cli_opt_uint(cli, "-I/--iter", arg, 0, 0, INT32_MAX, &v))
			return CLI_EXIT_USAGE;
		b->iterations = (long)v;
		return 0;
	case OPT_INTERVAL:
		return cli_opt_seconds(cli, "--interval", arg, true, 86400, &b->interval) ? 0 : CLI_EXIT_USAGE;
	case 'i': b->input = arg; return 0;
	case 'o': b->output = arg; return 0;
	case 'p': b->pattern = arg; return 0;
	case 'v': b->verbose = true; return 0;
	case OPT_VERIFY: b->verify = true; return 0;
	case OPT_NO_VERIFY: b->no_verify = true; return 0;
	case '2':
	case '4':
		b->nbits = (uint8_t)(c - '0');
		b->mode_set = true;
		return 0;
	default:
		if (!mode_bit(c))
			return CLI_EXIT_USAGE;
		b->mode |= mode_bit(c);
		b->loop |= c == 'l';
		b->mode_set = true;
		return 0;
	}
}

/* What the options decide together; 0, or an exit status after the message. */
static int settle(const struct cli *cli, struct spi_bench *b)
{
	if (b->pattern && b->input)
		return cli_usage_error(cli, "only one of -p and --input may be selected");
	if (b->pattern) { /* malformed input is a usage error, found before any device is opened */
		uint8_t *buf = malloc(strlen(b->pattern) + 1);
		long n = buf ? unescape(b->pattern, buf) : 0;
		free(buf);
		if (!buf)
			return cli_error(cli, "out of memory");
		if (n < 0)
			return cli_usage_error(cli, "-p \"%s\": malformed input string (\\x needs one or two "
						    "hex digits)", cli_text(b->pattern));
		if (n == 0)
			return cli_usage_error(cli, "-p \"\": expected at least one byte to send");
	}
	/* As spidev_test: with --loop the lanes apply to RX as well. */
	if (b->nbits)
		b->mode |= (b->nbits == 4 ? OFFLOAD_SPI_TX_QUAD : OFFLOAD_SPI_TX_DUAL) |
			   (b->loop ? (b->nbits == 4 ? OFFLOAD_SPI_RX_QUAD : OFFLOAD_SPI_RX_DUAL) : 0);
	b->json = cli->json;
	b->dump = b->json ? stderr : stdout;
	return 0;
}

/* argv into b; CLI_CONTINUE, or the exit status (0 after --help). */
static int parse(struct cli *cli, struct spi_bench *b, int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.shortopts = "D:s:d:b:i:o:lHOLC3N24p:vS:I:", .longopts = spi_longopts, .opt = spi_opt,
		.help = usage, .max_operands = 0, .formats = CLI_FMT_JSON,
	};
	int r = cli_parse(cli, &cmd, b, argc, argv);

	if (r == CLI_CONTINUE && (r = settle(cli, b)) == 0)
		r = CLI_CONTINUE;
	return r;
}

/*
 * "\xHH" (one or two hex digits) becomes one byte; everything else is
 * copied. Unlike spidev_test, which always skips four characters, only the
 * digits present are consumed. Returns the length, or -1 if a \x has no digit.
 */
static long unescape(const char *s, uint8_t *out)
{
	long n = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'x') {
			unsigned v = 0, digits = 0;
			const char *p = s + 2;
			for (; digits < 2; digits++, p++) {
				unsigned d;
				if (*p >= '0' && *p <= '9')
					d = (unsigned)(*p - '0');
				else if (*p >= 'a' && *p <= 'f')
					d = (unsigned)(*p - 'a' + 10);
				else if (*p >= 'A' && *p <= 'F')
					d = (unsigned)(*p - 'A' + 10);
				else
					break;
				v = v * 16 + d;
			}
			if (!digits)
				return -1;
			out[n++] = (uint8_t)v;
			s = p;
		} else {
			out[n++] = (uint8_t)*s++;
		}
	}
	return n;
}

/* spidev_test's dump: lines of 32 bytes "PREFIX | XX .. |ascii|", "__" filling the last line. */
static void hex_dump(FILE *f, const uint8_t *p, size_t len, const char *prefix)
{
	const size_t line = 32;

	for (size_t off = 0; off < len; off += line) {
		size_t n = len - off < line ? len - off : line;
		fprintf(f, "%s | ", prefix);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%02X ", p[off + i]);
		for (size_t i = n; i < line; i++)
			fputs("__ ", f);
		fputs(" |", f);
		for (size_t i = 0; i < n; i++) {
			uint8_t c = p[off + i];
			fputc(c < 32 || c > 126 ? '.' : c, f);
		}
		fputs("|\n", f);
	}
}

/* Bytes per word in memory and the bits that carry data (hw: right-justified words). */
static void word_layout(unsigned bpw, size_t *wb, uint32_t *mask)
{
	*wb = bpw <= 8 ? 1 : bpw <= 16 ? 2 : 4;
	*mask = bpw >= 32 ? 0xffffffffu : (1u << bpw) - 1;
}

/* Clear the bits of each word that are not on the wire (undefined on RX). */
static void mask_words(uint8_t *p, size_t len, unsigned bpw)
{
	size_t wb;
	uint32_t mask;

	word_layout(bpw, &wb, &mask);
	if (bpw == 8 || bpw == 16 || bpw == 32)
		return;
	for (size_t i = 0; i + wb <= len; i += wb) {
		if (wb == 1) {
			p[i] &= (uint8_t)mask;
		} else if (wb == 2) {
			uint16_t h;
			memcpy(&h, p + i, 2);
			h &= (uint16_t)mask;
			memcpy(p + i, &h, 2);
		} else {
			uint32_t w;
			memcpy(&w, p + i, 4);
			w &= mask;
			memcpy(p + i, &w, 4);
		}
	}
}

/* xorshift64*, fixed seed: the same data every run, like spidev_test's unseeded random(). */
static void fill_random(uint64_t *state, uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t x = *state;
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		*state = x;
		x *= 0x2545F4914F6CDD1Dull;
		memcpy(p + i, &x, len - i < 8 ? len - i : 8);
	}
}

static int write_output(const struct cli *cli, const char *path, const uint8_t *rx, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		cli_error(cli, "could not open output file %s: %s", path,
			strerror(errno));
		return CLI_EXIT_FAIL;
	}
	size_t w = fwrite(rx, 1, len, f);
	if (fclose(f) != 0 || w != len) {
		cli_error(cli, "not all bytes written to output file %s", path);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* One transfer as spidev_test's transfer(): the lanes decide which buffers take part. */
static int transfer(struct cli *cli, struct spi_bench *b, const uint8_t *tx, uint8_t *rx, size_t len)
{
	struct offload_spi_xfer x = {
		.tx = tx, .rx = rx, .len = (uint32_t)len, .delay_usecs = b->delay, .bits_per_word = b->bits,
	};

	if (b->nbits) {
		x.tx_nbits = b->nbits;
		if (b->loop)
			x.rx_nbits = b->nbits;
		else
			x.rx = NULL; /* TX lanes without loop-back: transmit only, as spidev_test */
	}
	int r = offload_spi_transfer(b->spi, &x, 1);
	if (r < 0) {
		cli_fail(cli, b->ctx, "can't send spi message", r);
		return CLI_EXIT_FAIL;
	}
	if (b->verbose)
		hex_dump(b->dump, tx, len, "TX");
	if (b->output && x.rx && write_output(cli, b->output, rx, len) != CLI_EXIT_OK)
		return CLI_EXIT_FAIL;
	if (b->verbose && x.rx)
		hex_dump(b->dump, rx, len, "RX");
	return CLI_EXIT_OK;
}

/* spidev_test's mismatch report. */
static int mismatch(const struct spi_bench *b, const uint8_t *tx, const uint8_t *rx, size_t len)
{
	cli_flush();
	cli_error_line("transfer error !\n");
	hex_dump(b->dump, tx, len, "TX");
	hex_dump(b->dump, rx, len, "RX");
	return CLI_EXIT_FAIL;
}

/* -p, -i or the default message: one transfer. */
static int one_shot(struct cli *cli, struct spi_bench *b, const uint8_t *tx, size_t len)
{
	uint8_t *rx = calloc(len ? len : 1, 1);
	int r;

	if (!rx) {
		cli_error(cli, "can't allocate rx buffer");
		return CLI_EXIT_FAIL;
	}
	r = transfer(cli, b, tx, rx, len);
	bool verified = r == CLI_EXIT_OK && (b->loop || b->verify) && !(b->nbits && !b->loop);
	if (verified) {
		uint8_t *t = malloc(len);
		if (!t) {
			free(rx);
			return CLI_EXIT_FAIL;
		}
		memcpy(t, tx, len);
		mask_words(t, len, b->bits);
		mask_words(rx, len, b->bits);
		if (memcmp(t, rx, len) != 0)
			r = mismatch(b, tx, rx, len);
		free(t);
	}
	if (r == CLI_EXIT_OK && b->json) {
		printf("{\"device\":");
		cli_json_str(stdout, b->device);
		printf(",\"backend\":");
		cli_json_str(stdout, b->info.backend);
		printf(",\"sim\":%s,\"mode\":%u,\"bits_per_word\":%u,\"max_speed_hz\":%u,\"bytes\":%zu,"
		       "\"verified\":%s}\n",
		       (b->info.flags & OFFLOAD_RES_SIM) ? "true" : "false", b->info.mode,
		       b->info.bits_per_word, b->info.max_speed_hz, len, verified ? "true" : "false");
	}
	free(rx);
	return r;
}

struct rates {
	double *v;
	size_t n, cap;
};

static bool rates_add(struct rates *r, double kbps)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		double *v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return false;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = kbps;
	return true;
}

static void summary(const struct spi_bench *b, uint64_t tx_bytes, uint64_t rx_bytes, double elapsed,
		    const struct rates *rates, bool verified)
{
	struct cli_stats st;
	/* no interval (or no memory for the statistics): no noise estimate */
	if (cli_stats(rates->v, rates->n, &st) < 0)
		st.stddev = st.mean = NAN;
	double imean = st.mean, noise = st.stddev;
	double mean = elapsed > 0 ? (double)tx_bytes * 8 / (elapsed * 1000.0) : 0;
	bool sim = (b->info.flags & OFFLOAD_RES_SIM) != 0;
	const char *data = verified ? "verified (rx == tx for every transfer)"
			   : b->no_verify ? "not verified (--no-verify)"
			   : (b->nbits && !b->loop) ? "not verified (no rx: TX lanes without --loop)"
						    : "not verified (nothing was transferred: --iter 0)";

	if (b->json) {
		printf("{\"device\":");
		cli_json_str(stdout, b->device);
		printf(",\"backend\":");
		cli_json_str(stdout, b->info.backend);
		printf(",\"sim\":%s,\"mode\":%u,\"bits_per_word\":%u,\"max_speed_hz\":%u,\"size\":%ld,"
		       "\"iterations\":%ld,\"tx_bytes\":%" PRIu64 ",\"rx_bytes\":%" PRIu64
		       ",\"elapsed_s\":%.6f,\"mean_kbps\":%.3f,\"interval_s\":%.3f,\"intervals_kbps\":[",
		       sim ? "true" : "false", b->info.mode, b->info.bits_per_word, b->info.max_speed_hz,
		       b->size, b->iterations, tx_bytes, rx_bytes, elapsed, mean, b->interval);
		for (size_t i = 0; i < rates->n; i++)
			printf("%s%.3f", i ? "," : "", rates->v[i]);
		if (isnan(noise))
			printf("],\"noise_kbps\":null");
		else
			printf("],\"noise_kbps\":%.3f", noise);
		printf(",\"verified\":%s}\n", verified ? "true" : "false");
		return;
	}
	printf("total: tx %.1fKB, rx %.1fKB\n", (double)tx_bytes / 1024.0, (double)rx_bytes / 1024.0);
	printf("summary: %" PRIu64 " bytes in %.3f s: mean %.1f kbps; %ld transfers of %ld bytes, "
	       "%.1f us each; ",
	       tx_bytes, elapsed, mean, b->iterations, b->size,
	       b->iterations ? elapsed * 1e6 / (double)b->iterations : 0.0);
	if (isnan(noise))
		printf("noise n/a (%zu full interval%s of %.3g s; 2 needed)", rates->n,
		       rates->n == 1 ? "" : "s", b->interval);
	else
		printf("noise +-%.1f kbps (sample stddev of %zu interval rates, %.1f%% of their mean)",
		       noise, rates->n, imean > 0 ? 100.0 * noise / imean : 0.0);
	printf("; data %s; %s backend%s\n", data, b->info.backend,
	       sim ? " (sim: a model, not hardware)" : "");
}

/* --size/--iter: fresh random data per transfer, rate lines over real time, verification. */
static int size_loop(struct cli *cli, struct spi_bench *b)
{
	size_t len = (size_t)b->size;
	uint8_t *tx = malloc(len), *rx = calloc(len, 1), *cmp = malloc(len);
	struct rates rates = { 0 };
	uint64_t state = 0x9E3779B97F4A7C15ull, tx_bytes = 0, rx_bytes = 0, since = 0;
	bool has_rx = !(b->nbits && !b->loop);
	bool verified = has_rx && !b->no_verify;
	int r = CLI_EXIT_OK;

	if (!tx || !rx || !cmp) {
		cli_error(cli, "can't allocate %zu-byte buffers", len);
		r = CLI_EXIT_FAIL;
		goto out;
	}
	double t0 = cli_now_s(), last = t0, t = t0;
	for (long it = 0; it < b->iterations; it++) {
		fill_random(&state, tx, len);
		mask_words(tx, len, b->bits);
		r = transfer(cli, b, tx, rx, len);
		if (r != CLI_EXIT_OK)
			goto out;
		tx_bytes += len;
		rx_bytes += has_rx ? len : 0;
		since += len;
		if (verified) {
			memcpy(cmp, rx, len);
			mask_words(cmp, len, b->bits);
			if (memcmp(tx, cmp, len) != 0) {
				r = mismatch(b, tx, rx, len);
				goto out;
			}
		}
		t = cli_now_s();
		if (t - last >= b->interval && t > last) {
			double kbps = (double)since * 8 / ((t - last) * 1000.0);
			if (!b->json)
				printf("rate: tx %.1fkbps, rx %.1fkbps\n", kbps, has_rx ? kbps : 0.0);
			if (!rates_add(&rates, kbps)) {
				r = cli_error(cli, "out of memory for the interval rates");
				goto out;
			}
			since = 0;
			last = t;
		}
	}
	summary(b, tx_bytes, rx_bytes, t - t0, &rates, verified && b->iterations > 0);
out:
	free(rates.v);
	free(tx);
	free(rx);
	free(cmp);
	return r;
}

/* The -i file, whole (at most 1 GiB); CLI_EXIT_OK, or CLI_EXIT_FAIL after the message. */
static int read_file(const struct cli *cli, const char *path, uint8_t **buf, size_t *len)
{
	*buf = cli_read_all(path, (size_t)1 << 30, len);
	if (!*buf)
		return cli_error(cli, "failed to read input file %s: %s", cli_text(path),
				 errno == EFBIG ? "larger than 1 GiB" : strerror(errno));
	return CLI_EXIT_OK;
}

static int run(struct cli *cli, struct spi_bench *b)
{
	if (b->pattern) {
		uint8_t *buf = malloc(strlen(b->pattern) + 1);
		if (!buf)
			return CLI_EXIT_FAIL;
		long n = unescape(b->pattern, buf);
		int r;
		if (n < 0) {
			r = cli_usage_error(cli, "malformed input string \"%s\"", cli_text(b->pattern));
		} else if (n == 0) {
			r = cli_usage_error(cli, "-p \"\" has nothing to send");
		} else {
			r = one_shot(cli, b, buf, (size_t)n);
		}
		free(buf);
		return r;
	}
	if (b->input) {
		uint8_t *buf = NULL;
		size_t n = 0;
		int r = read_file(cli, b->input, &buf, &n);
		if (r != CLI_EXIT_OK)
			return r;
		if (n == 0) {
			cli_error(cli, "input file %s is empty", b->input);
			r = CLI_EXIT_USAGE;
		} else {
			r = one_shot(cli, b, buf, n);
		}
		free(buf);
		return r;
	}
	if (b->size)
		return size_loop(cli, b);
	return one_shot(cli, b, default_tx, sizeof(default_tx));
}

int bench_spi(struct cli *cli, int argc, char **argv)
{
	struct spi_bench b = { .device = "/dev/spidev1.1", .bits = 8, .interval = 5.0 };
	struct offload_spi_opts o;
	char what[512];
	int r;

	r = parse(cli, &b, argc, argv);
	if (r != CLI_CONTINUE)
		return r;
	b.ctx = cli_open_ctx(cli);
	if (!b.ctx)
		return CLI_EXIT_FAIL;

	/* spidev paths behave as spidev_test (mode and clock always written); DT paths keep the DT's. */
	bool spidev = strncmp(b.device, "/dev/", 5) == 0;
	offload_spi_opts_init(&o);
	if (b.mode_set || spidev)
		o.mode = b.mode;
	o.max_speed_hz = b.speed_set ? b.speed : spidev ? 500000 : 0;
	o.bits_per_word = b.bits;
	r = offload_spi_open(b.ctx, b.device, &o, &b.spi);
	if (r < 0) {
		/* spidev_test's default device is a guess: say how to name the right one */
		snprintf(what, sizeof(what), "cannot open %s%s", cli_text(b.device),
			 b.device_given ? "" : " (spidev_test's default device: name yours with --device "
					       "/dev/spidevB.C or a device-tree node path, see 'offloadctl list')");
		cli_fail(cli, b.ctx, what, r);
		offload_ctx_free(b.ctx);
		return CLI_EXIT_FAIL;
	}
	offload_spi_get_info(b.spi, &b.info, sizeof(b.info));
	if (!b.json) {
		printf("spi mode: 0x%x\n", b.info.mode);
		printf("bits per word: %u\n", b.info.bits_per_word);
		printf("max speed: %u Hz (%u kHz)\n", b.info.max_speed_hz, b.info.max_speed_hz / 1000);
		printf("backend: %s%s, chip select %d, ", b.info.backend,
		       (b.info.flags & OFFLOAD_RES_SIM) ? " (sim)" : "", b.info.chip_select);
		if (b.info.max_message_bytes)
			printf("%u bytes per message (longer ones are split)\n", b.info.max_message_bytes);
		else
			printf("no message size limit\n");
	}
	r = run(cli, &b);
	cli_flush();
	offload_spi_close(b.spi);
	offload_ctx_free(b.ctx);
	return r;
}
