/* SPDX-License-Identifier: MIT */
/**
 * @file offload/offload.h
 * @brief liboffload: one C API to offload memcpy, SPI transfers and crypto to
 *        the DMA and crypto engines of embedded SoCs, configured from the
 *        device tree, with the CPU as fallback.
 *
 * Include this header; it includes the others. Each function has a man
 * page (offload_ctx_open(3), ...); liboffload(3) is the overview.
 *
 * Synopsis, by group (the c-periphery layout; each group is a Doxygen
 * module and a SEE ALSO set in the man pages):
 *
 * @code
 * Version       offload_version()  offload_version_string()  offload_check_version()
 *               OFFLOAD_VERSION_NUMBER  OFFLOAD_CHECK_VERSION()
 * Errors        offload_strerror()  offload_last_error()
 * Context       offload_ctx_new()  offload_ctx_opts_init()  offload_ctx_open()
 *               offload_ctx_close()  offload_ctx_free()  offload_ctx_dt_source()
 *               offload_ctx_note()  offload_ctx_get_flags()  offload_ctx_flags() (0.1)
 * Devices       offload_dev_count()  offload_dev_get_info()  offload_dev_find()
 *               offload_dev_get_stats()  offload_dev_stats_reset()
 *               offload_backend_name()  offload_backend_caps()  offload_backend_status()
 * Memcpy        offload_memcpy()  offload_memcpy_dev()  offload_memcpy_slowpath()
 * Queue         offload_queue_opts_init()  offload_queue_open()  offload_queue_close()
 *               offload_queue_copy()  offload_queue_submit()  offload_queue_poll()
 *               offload_queue_wait()  offload_queue_capacity()  offload_queue_dev()
 * DMA buffers   offload_buf_alloc()  offload_buf_import_dmabuf()  offload_buf_free()
 *               offload_buf_ptr()  offload_buf_size()  offload_buf_bus_addr()
 *               offload_buf_cache_mode()  offload_buf_dmabuf_fd()
 *               offload_buf_dmabuf_exporter()  offload_buf_sync_for_device()
 *               offload_buf_sync_for_cpu()
 * SPI           offload_spi_opts_init()  offload_spi_open()  offload_spi_transfer()
 *               offload_spi_set_mode()  offload_spi_set_speed()
 *               offload_spi_get_info()  offload_spi_close()
 * Crypto        offload_cipher_name()  offload_cipher()  offload_cipher_session_open()
 *               offload_cipher_session_open_dev()  offload_cipher_session_run()
 *               offload_cipher_session_close()  offload_hash_name()
 *               offload_hash_digest_size()  offload_hash()  offload_hash_open()
 *               offload_hash_open_dev()  offload_hash_update()  offload_hash_final()
 *               offload_hash_close()
 * @endcode
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
 * (offload_last_error() works); only the buffer accessors that cannot
 * return an error (offload_buf_ptr(), _size(), _bus_addr(), _cache_mode(),
 * _dmabuf_exporter()) still answer, since the memory stays mapped. The child opens a context of its own for
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
 * A call given a NULL handle, or one that is not of its kind (a cipher
 * session passed as a hash session, a stale pointer), has no context to
 * record the sentence under: offload_last_error(NULL) has it.
 * The codes are the E* constants of <errno.h> (-EINVAL, -EBADMSG, ...):
 * include it to compare results. Nothing is reported through the global
 * errno.
 *
 * Every synchronous result and every completion can tell which backend and
 * device ran it (struct offload_result, struct offload_completion).
 */
#ifndef OFFLOAD_OFFLOAD_H
#define OFFLOAD_OFFLOAD_H

/**
 * @defgroup version Version
 * @brief Which liboffload the headers and the loaded library are.
 *
 * @defgroup errors Errors
 * @brief Error codes in words, and the sentence of the last failed call.
 *
 * @defgroup context Context
 * @brief Open a device tree, its devices and their backends; close it.
 *
 * @defgroup devices Devices
 * @brief The devices of a context, their decisions and counters, the backends.
 *
 * @defgroup memcpy Memcpy
 * @brief Synchronous copies on the device the policy picks or on a given one.
 *
 * @defgroup queue Queue
 * @brief Asynchronous copies: enqueue, submit, reap completions in order.
 *
 * @defgroup buffers DMA buffers
 * @brief Memory a device can DMA to, its cache mode and hand-off; dma-buf.
 *
 * @defgroup spi SPI
 * @brief SPI handles from a device-tree node or a spidev, and messages.
 *
 * @defgroup crypto Crypto
 * @brief Ciphers, AEAD, hashes and HMAC, one-shot and in sessions.
 */

#include <offload/version.h>
#include <offload/core.h>
#include <offload/memcpy.h>
#include <offload/buf.h>
#include <offload/crypto.h>
#include <offload/spi.h>

#endif /* OFFLOAD_OFFLOAD_H */
