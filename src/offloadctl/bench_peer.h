/* SPDX-License-Identifier: MIT */
/* bench memcpy's references beyond plain memcpy (bench_peer.c). */
#ifndef OFFLOADCTL_BENCH_PEER_H
#define OFFLOADCTL_BENCH_PEER_H

#include <stdbool.h>
#include <stddef.h>

/* A two-thread copy: the calling thread and one persistent helper. */
struct bench_peer;

/*
 * Start the helper, pinned to a CPU other than the caller's. sleep_between:
 * it sleeps between copies and is woken for each (after idle), else it
 * spins (back to back). 0 or -errno.
 */
int bench_peer_start(struct bench_peer **p, bool sleep_between);
/*
 * Back to back (not sleep_between): on, the helper spins for the next copy
 * (call it before a timed pass of the peer; returns once the helper
 * spins); off, it blocks until the next on, so that it does not hold its
 * CPU while the other sides are timed. No effect with sleep_between.
 */
void bench_peer_hot(struct bench_peer *p, bool on);
/* Copy len bytes, the caller and the helper each a half; nt: streaming stores. */
void bench_peer_copy(struct bench_peer *p, void *dst, const void *src, size_t len, bool nt);
void bench_peer_stop(struct bench_peer *p);
/* Whether this build has streaming stores for the peer (x86-64). */
bool bench_peer_has_nt(void);

/*
 * Start a process that spins on the last CPU of this process's set (*cpu)
 * until bench_busy_stop(): "another process keeps the second core busy".
 * Its pid, or -errno.
 */
int bench_busy_start(int *cpu);
void bench_busy_stop(int pid);

#endif /* OFFLOADCTL_BENCH_PEER_H */
