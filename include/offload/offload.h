/* SPDX-License-Identifier: MIT */
/**
 * @file offload/offload.h
 * @brief liboffload: one C API to offload memcpy, SPI transfers and crypto to
 *        the DMA and crypto engines of embedded SoCs, configured from the
 *        device tree, with the CPU as fallback.
 *
 * Include this header; it includes the others.
 *
 * Threading contract (the libgpiod/DPDK rule):
 *  - A context (::offload_ctx) may be shared by threads once open: the
 *    synchronous calls (offload_memcpy(), offload_cipher(), offload_hash(),
 *    device queries) are safe to call concurrently on one context.
 *  - Every other handle — a queue, an SPI handle, a cipher or hash session,
 *    a DMA buffer's sync calls — belongs to one thread at a time. Different
 *    handles are independent and may be used in parallel.
 *  - Opening and closing a context must not race with other calls on it.
 *  - The CPU backend copies large buffers with worker threads of the
 *    context (started at the first such copy, stopped at close); the
 *    simulated engines run on threads too.
 *
 * fork(): a child process inherits its parent's contexts but not their
 * threads, and the engines they drive still belong to the parent. In the
 * child, an inherited context (and every handle of it) may only be given
 * to offload_ctx_close() or offload_ctx_free(), which then release what the
 * library's core allocated without calling any backend: no thread is
 * joined, no engine channel of the parent is stopped. The backends'
 * memory, mappings and file descriptors stay in the child until it exits
 * or calls exec(). Every other call on
 * an inherited context or handle fails with -EBADF and says so
 * (offload_last_error() works). The child opens a context of its own for
 * its work; the parent's contexts are unaffected by the child.
 *
 * Lifetime: a handle's close (or free) call releases it, as free() does a
 * pointer. Passing it to any call afterwards, a second close included, is
 * undefined, as for free(): the -EINVAL the calls document for "not an open
 * session / handle / buffer" is certain for NULL and a best-effort catch of
 * other stale or foreign pointers, not a guarantee. offload_ctx_close() is
 * different: a closed context stays valid until offload_ctx_free(), and
 * calls on it fail with -EBADF.
 *
 * Errors: every fallible call returns a negative errno (see
 * offload_strerror()) and records a sentence for offload_last_error().
 * The codes are the E* constants of <errno.h> (-EINVAL, -EBADMSG, ...):
 * include it to compare results. Nothing is reported through the global
 * errno.
 *
 * Every synchronous result and every completion can tell which backend and
 * device ran it (struct offload_result, struct offload_completion).
 */
#ifndef OFFLOAD_OFFLOAD_H
#define OFFLOAD_OFFLOAD_H

#include <offload/version.h>
#include <offload/core.h>
#include <offload/memcpy.h>
#include <offload/buf.h>
#include <offload/crypto.h>
#include <offload/spi.h>

#endif /* OFFLOAD_OFFLOAD_H */
