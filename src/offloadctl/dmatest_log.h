/* SPDX-License-Identifier: MIT */
/*
 * offloadctl dmatest: the kernel dmatest module's messages, read back from
 * the kernel log in every layout the module has printed (dmatest_log.c).
 */
#ifndef OFFLOADCTL_DMATEST_LOG_H
#define OFFLOADCTL_DMATEST_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One thread's summary ("dma0chan0-copy0: summary 50 tests, 0 failures ..."). */
struct dt_thread {
	char name[64];          /* the kernel thread: <channel>-<type><n>, e.g. dma0chan0-copy0 */
	char channel[64];       /* its channel, e.g. dma0chan0 */
	uint64_t tests, failures;
	bool rates;             /* the line carried iops and KB/s (not the oldest layout) */
	uint64_t iops_int;      /* iops as the kernel printed it: iops_int.iops_hundredths */
	unsigned iops_hundredths;
	bool iops_fraction;     /* printed with two decimals (Linux 5.0 and later) */
	uint64_t kbps;          /* KB/s (KiB per second) */
	int result;             /* the thread's status, 0 or a negative errno */
};

/* One per-result error line ("dma0chan0-copy0: result #7: 'dstbuf mismatch' with ..."). */
struct dt_error {
	char thread[64];
	uint32_t result;        /* the test number the kernel gave it */
	char text[224];         /* what follows "#<n>: " */
};

#define DT_ERRORS_KEPT 8

struct dt_log {
	struct dt_thread *t;    /* every summary, in log order */
	size_t n, cap;
	struct dt_error errors[DT_ERRORS_KEPT];
	size_t nerrors;         /* kept, at most DT_ERRORS_KEPT */
	uint64_t error_lines;   /* all of them */
	uint64_t malformed;     /* dmatest summary lines refused (negative or overflowing counts, ...) */
	char first_malformed[224];
	/* totals of the summaries; each line's counts are checked not to overflow them */
	uint64_t tests, failures, kbps;
};

/* An empty log (nothing allocated until the first summary). */
void dt_log_init(struct dt_log *log);
void dt_log_free(struct dt_log *log);

/*
 * Read one line of the kernel log: a /dev/kmsg record ("6,1234,5678,-;msg",
 * kmsg true) or a dmesg / syslog line ("[  12.34] msg", "host kernel: msg").
 * dmatest's lines, with or without the "dmatest: " prefix (Linux 3.11 added
 * it), in every layout of drivers/dma/dmatest.c:
 *   NAME: summary T tests, F failures I iops K KB/s (R)         3.14 .. 4.x
 *   NAME: summary T tests, F failures I.FF iops K KB/s (R)      5.0 and later
 *   NAME: terminating after T tests, F failures (status R)      up to 3.12
 *   NAME: terminating after T tests, F failures I iops K KB/s (status R)   3.13
 *   NAME: result #N: 'MESSAGE' with src_off=.. (DATA)           3.14 and later
 *   NAME: #N: MESSAGE ...                                       up to 3.13
 *   result NAME: #N: MESSAGE ...
 * ('test passed' and 'No errors' results are successes, not errors.) The
 * counts are unsigned decimal as the kernel prints them (%u, %llu; the
 * status %d): a sign, an overflow or trailing text makes the summary line
 * malformed, counted in log->malformed and not taken. Returns 1 for a line
 * taken, 0 for one that is not dmatest's (or is malformed), -ENOMEM.
 */
int dt_log_line(struct dt_log *log, const char *line, bool kmsg);

#endif /* OFFLOADCTL_DMATEST_LOG_H */
