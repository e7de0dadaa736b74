/* SPDX-License-Identifier: MIT */
/*
 * offloadctl: the one parser of numeric option values.
 *
 * A count, a size or a duration on the command line is decimal digits and
 * nothing else before the unit: strtoull() and strtod() alone would also
 * take a blank or a sign in front (" 5", "+5", "-1" as 2^64 - 1), a base
 * prefix ("0x10", "010" as 8), exponents and "inf". Every command reads its
 * numbers here, so one rule and one message hold for all of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The digits at s as a number; the count of digits read, 0 on overflow or none. */
static size_t read_digits(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;

	for (; s[n] >= '0' && s[n] <= '9'; n++) {
		unsigned d = (unsigned)(s[n] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return n;
}

/* K, M, G (any case, with an optional "iB" or "B"): the shift it stands for; -1 if s is not one. */
static int size_suffix(const char *s)
{
	int shift;

	switch (s[0]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	default: return -1;
	}
	if (s[1] && strcmp(s + 1, "iB") != 0 && strcmp(s + 1, "B") != 0)
		return -1;
	return shift;
}

int cli_parse_uint(const char *s, unsigned flags, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int shift;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	size_t n = read_digits(s, &v);
	if (n == 0)
		return -ERANGE; /* more than 64 bits of digits */
	if (s[n]) {
		shift = (flags & CLI_NUM_SIZE) ? size_suffix(s + n) : -1;
		if (shift < 0)
			return -EINVAL;
		if (v > (UINT64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, bool zero_ok, double max, double *out)
{
	uint64_t whole, frac = 0;
	size_t nf = 0;
	double scale = 1.0;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	size_t n = read_digits(s, &whole);
	if (n == 0)
		return -ERANGE;
	const char *p = s + n;
	if (*p == '.') {
		p++;
		/* more than 18 fraction digits say nothing a double keeps */
		for (; p[nf] >= '0' && p[nf] <= '9'; nf++)
			if (nf < 18) {
				frac = frac * 10 + (uint64_t)(p[nf] - '0');
				scale *= 10.0;
			}
		if (nf == 0)
			return -EINVAL;
		p += nf;
	}
	double v = (double)whole + (double)frac / scale;
	if (strcmp(p, "ms") == 0)
		v /= 1000.0;
	else if (*p && strcmp(p, "s") != 0)
		return -EINVAL;
	if (!(v <= max) || (!zero_ok && !(v > 0)))
		return -ERANGE;
	*out = v;
	return 0;
}

bool cli_opt_uint(const struct cli *cli, const char *opt, const char *arg, unsigned flags,
		  uint64_t min, uint64_t max, uint64_t *out)
{
	int r = cli_parse_uint(arg, flags, min, max, out);

	if (r == 0)
		return true;
	if (flags & CLI_NUM_SIZE)
		cli_usage_error(cli, "%s \"%s\": %s bytes, %" PRIu64 "..%" PRIu64 ", in decimal digits "
				"with an optional K, M or G suffix (KiB, MiB, GiB)", opt, cli_text(arg),
				r == -ERANGE ? "out of range: expected" : "expected", min, max);
	else
		cli_usage_error(cli, "%s \"%s\": %s a whole number %" PRIu64 "..%" PRIu64
				", in decimal digits", opt, cli_text(arg),
				r == -ERANGE ? "out of range: expected" : "expected", min, max);
	return false;
}

bool cli_opt_seconds(const struct cli *cli, const char *opt, const char *arg, bool zero_ok,
		     double max, double *out)
{
	int r = cli_parse_seconds(arg, zero_ok, max, out);

	if (r == 0)
		return true;
	cli_usage_error(cli, "%s \"%s\": %s seconds %s %g, in decimal digits with an optional "
			"fraction (0.4) and unit s or ms (400ms)", opt, cli_text(arg),
			r == -ERANGE ? "out of range: expected" : "expected",
			zero_ok ? "from 0 to" : "above 0, at most", max);
	return false;
}
