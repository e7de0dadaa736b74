/* SPDX-License-Identifier: MIT */
/*
 * offloadctl dmatest: the kernel's dmatest messages, parsed strictly.
 *
 * The layouts (Linux drivers/dma/dmatest.c over its history, dmatest_func()
 * and result()): the thread's closing line was "terminating after T tests,
 * F failures (status R)" (pr_notice, up to 3.12), briefly with its rates
 * ("... I iops K KB/s (status R)", 3.13), then "summary T tests, F failures
 * I iops K KB/s (R)" (pr_info, 3.14), whose iops gained two decimals from
 * 24.8 fixed point in 5.0 ("%llu.%02llu"). Failures were "NAME: #N: ..."
 * (pr_warn) and are "NAME: result #N: 'MESSAGE' with src_off=0x.. dst_off=0x..
 * len=0x.. (DATA)" since 3.14 (DATA %ld when negative in later kernels).
 * pr_fmt() puts "dmatest: " in front since 3.11.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmatest_log.h"

void dt_log_init(struct dt_log *log)
{
	memset(log, 0, sizeof(*log));
}

void dt_log_free(struct dt_log *log)
{
	free(log->t);
	dt_log_init(log);
}

/* The literal lit at *p; advances past it. */
static bool take(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n) != 0)
		return false;
	*p += n;
	return true;
}

/* Unsigned decimal digits at *p (no sign, no blank), at most max; advances past them. */
static bool take_uint(const char **p, uint64_t max, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (max - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	*p = s;
	return true;
}

/* A %d: an optional '-' then digits, within int. */
static bool take_int(const char **p, int *v)
{
	bool neg = take(p, "-");
	uint64_t x;

	if (!take_uint(p, neg ? (uint64_t)INT32_MAX + 1 : INT32_MAX, &x))
		return false;
	*v = neg ? (int)(-(int64_t)x) : (int)x;
	return true;
}

/*
 * The rates "I[.FF] iops K KB/s" at *p. The kernel's iops is a 24.8 fixed-point
 * value shifted down (FIXPT_TO_INT of 64 bits), its KB/s likewise: at most 2^56.
 */
static bool take_rates(const char **p, struct dt_thread *t)
{
	const uint64_t max = UINT64_C(1) << 56;
	uint64_t frac;
	const char *f;

	if (!take_uint(p, max, &t->iops_int))
		return false;
	if (take(p, ".")) {
		/* exactly two digits: %02llu of a value below 100 */
		f = *p;
		if (!take_uint(p, 99, &frac) || *p - f != 2)
			return false;
		t->iops_hundredths = (unsigned)frac;
		t->iops_fraction = true;
	}
	t->rates = true;
	return take(p, " iops ") && take_uint(p, max, &t->kbps) && take(p, " KB/s");
}

/* After "NAME: summary " / "NAME: terminating after ": the counts, rates and status; false if malformed. */
static bool parse_counts(const char *p, bool old, struct dt_thread *t)
{
	/* the kernel's counters are unsigned int */
	if (!take_uint(&p, UINT32_MAX, &t->tests) || !take(&p, " tests, ") ||
	    !take_uint(&p, UINT32_MAX, &t->failures) || !take(&p, " failures"))
		return false;
	if (old) {
		if (take(&p, " (status "))
			return take_int(&p, &t->result) && take(&p, ")") && !*p;
		return take(&p, " ") && take_rates(&p, t) && take(&p, " (status ") &&
		       take_int(&p, &t->result) && take(&p, ")") && !*p;
	}
	return take(&p, " ") && take_rates(&p, t) && take(&p, " (") && take_int(&p, &t->result) &&
	       take(&p, ")") && !*p;
}

static int add_thread(struct dt_log *log, const struct dt_thread *t)
{
	if (log->tests + t->tests < log->tests || log->failures + t->failures < log->failures ||
	    log->kbps + t->kbps < log->kbps)
		return 0; /* the totals would wrap: the caller counts the line as malformed */
	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 16;
		struct dt_thread *nt = cap < ((size_t)1 << 20) ? realloc(log->t, cap * sizeof(*nt)) : NULL;
		if (!nt)
			return -ENOMEM;
		log->t = nt;
		log->cap = cap;
	}
	log->t[log->n++] = *t;
	log->tests += t->tests;
	log->failures += t->failures;
	log->kbps += t->kbps;
	return 1;
}

static void add_error(struct dt_log *log, const char *thread, size_t tlen, uint32_t n, const char *text)
{
	log->error_lines++;
	if (log->nerrors == DT_ERRORS_KEPT)
		return;
	struct dt_error *e = &log->errors[log->nerrors++];
	snprintf(e->thread, sizeof(e->thread), "%.*s", (int)(tlen < 63 ? tlen : 63), thread);
	e->result = n;
	snprintf(e->text, sizeof(e->text), "%s", text);
}

/* "#N: TEXT" at p for thread NAME: an error unless the text says the test passed. */
static int result_line(struct dt_log *log, const char *name, size_t nlen, const char *p)
{
	uint64_t n;

	if (!take(&p, "#") || !take_uint(&p, UINT32_MAX, &n) || !take(&p, ": "))
		return 0;
	if (strncmp(p, "'test passed'", 13) == 0 || strncmp(p, "No errors", 9) == 0)
		return 1;
	add_error(log, name, nlen, (uint32_t)n, p);
	return 1;
}

static void malformed(struct dt_log *log, const char *m)
{
	if (!log->malformed++)
		snprintf(log->first_malformed, sizeof(log->first_malformed), "%s", m);
}

/* The message of a log line: after a kmsg header, a "[ ts] " stamp, or syslog's "kernel: ". */
static const char *message_of(const char *line, bool kmsg)
{
	if (kmsg) {
		const char *s = strchr(line, ';');
		return s ? s + 1 : line;
	}
	const char *k = strstr(line, "kernel: ");
	if (k)
		line = k + 8;
	if (line[0] == '[') {
		const char *s = strchr(line, ']');
		if (s) {
			line = s + 1;
			while (*line == ' ')
				line++;
		}
	}
	return line;
}

/* "NAME: " at *m (a kernel thread's name has no blank and no colon); its length, 0 if none. */
static size_t take_name(const char **m, const char **name)
{
	size_t n = strcspn(*m, ": ");

	if (!n || n >= sizeof(((struct dt_thread *)0)->name) || (*m)[n] != ':' || (*m)[n + 1] != ' ')
		return 0;
	*name = *m;
	*m += n + 2;
	return n;
}

/* dma_chan_name() is "dma%dchan%d" and dmatest's threads "<channel>-<type><n>". */
static bool thread_like(const char *name, size_t n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)n, name);
	char *dash = strrchr(buf, '-');
	if (!dash || strncmp(buf, "dma", 3) != 0)
		return false;
	*dash = '\0';
	return strstr(buf, "chan") != NULL;
}

int dt_log_line(struct dt_log *log, const char *line, bool kmsg)
{
	const char *m = message_of(line, kmsg), *name = NULL;
	struct dt_thread t;
	size_t nlen;

	/* without the prefix (before Linux 3.11) only a dmatest thread's name says it is ours */
	bool prefixed = take(&m, "dmatest: ");
	const char *msg = m;
	if (take(&m, "result ")) /* "result NAME: #N: ..." */
		return (nlen = take_name(&m, &name)) && (prefixed || thread_like(name, nlen))
			       ? result_line(log, name, nlen, m) : 0;
	if (!(nlen = take_name(&m, &name)) || !(prefixed || thread_like(name, nlen)))
		return 0;
	if (take(&m, "result ") || *m == '#')
		return result_line(log, name, nlen, m);
	bool old = take(&m, "terminating after ");
	if (!old && !take(&m, "summary "))
		return 0;
	memset(&t, 0, sizeof(t));
	memcpy(t.name, name, nlen);
	t.name[nlen] = '\0';
	/* the channel is what comes before the thread's last dash */
	snprintf(t.channel, sizeof(t.channel), "%s", t.name);
	char *dash = strrchr(t.channel, '-');
	if (dash)
		*dash = '\0';
	int r = parse_counts(m, old, &t) ? add_thread(log, &t) : 0;
	if (r == 0)
		malformed(log, msg);
	return r;
}
