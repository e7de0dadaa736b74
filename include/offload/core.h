/* SPDX-License-Identifier: MIT */
/**
 * @file offload/core.h
 * @brief Contexts, errors, versions and device enumeration.
 *
 * A context (::offload_ctx) holds one device tree, the devices found in it,
 * the per-device DMA policy computed from it, and the backends that serve
 * those devices. Every other liboffload object belongs to a context.
 *
 * Lifecycle (the c-periphery pattern): offload_ctx_new() allocates a closed
 * context, offload_ctx_open() loads the device tree and binds backends,
 * offload_ctx_close() releases everything, offload_ctx_free() frees the
 * handle. Splitting allocation from opening means an open that fails still
 * leaves its reason in offload_last_error(), and that using a closed context
 * is a defined error (-EBADF) rather than undefined behaviour.
 */
#ifndef OFFLOAD_CORE_H
#define OFFLOAD_CORE_H

#include <stddef.h>
#include <stdint.h>

#include <offload/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque library context. See offload_ctx_new(). */
typedef struct offload_ctx offload_ctx;

/** @addtogroup version
 * @{
 */

/**
 * @brief Version of the library that is running.
 *
 * @return (MAJOR << 16) | (MINOR << 8) | PATCH of the loaded library; compare
 *         with ::OFFLOAD_VERSION_NUMBER from the headers used at build time.
 *
 * Thread-safety: safe from any thread.
 */
unsigned offload_version(void);

/**
 * @brief Version of the running library as a string, e.g. "0.1.0".
 *
 * @return A static NUL-terminated string; never NULL.
 *
 * Thread-safety: safe from any thread.
 */
const char *offload_version_string(void);

/**
 * @brief Whether the running library is at least version @p major.@p minor.@p patch.
 *
 * The run-time counterpart of OFFLOAD_CHECK_VERSION(): a program that uses
 * a function added in 0.2 and may meet an older liboffload.so.0 (a shared
 * library is replaced without rebuilding its users) checks
 * `offload_check_version(0, 2, 0)` first. Versions compare component by
 * component, major first.
 *
 * @param major Major version wanted.
 * @param minor Minor version wanted.
 * @param patch Patch version wanted.
 * @return 1 if the loaded library's version is at least the one given, 0 if
 *   it is older. Never fails.
 *
 * Thread-safety: safe from any thread.
 * @since 0.2 (a program that calls it loads only with 0.2 or later, so it
 *   serves checks for later releases)
 */
int offload_check_version(unsigned major, unsigned minor, unsigned patch);

/** @} */

/** @addtogroup errors
 * @{
 */

/**
 * @brief Describe a liboffload error code.
 *
 * All fallible liboffload calls return a negative errno value. The codes and
 * what they mean here:
 *  - -EINVAL: a bad argument (NULL pointer, zero or overlong length, wrong key,
 *    IV or tag length, misaligned length for the mode, overlapping buffers);
 *  - -ENODEV: no such device, or the device is disabled in the device tree;
 *  - -ENOTSUP: no backend can perform the operation;
 *  - -ETIMEDOUT: an engine did not complete in time (it was reset);
 *  - -EIO: an engine reported an error;
 *  - -EBADMSG: AEAD authentication tag mismatch (no plaintext is released);
 *  - -EBADF: the handle is closed (a context also once inherited through
 *    fork()), or a file descriptor given is not open
 *    (offload_buf_import_dmabuf());
 *  - -EBUSY: the object still has dependent handles open;
 *  - -ENOSPC: a queue is full;
 *  - -ENOMEM: out of memory;
 *  - any other -errno: passed through from the kernel interface used.
 *
 * @param err A negative (or positive) errno value; any int, INT_MIN included.
 * @return A static string; never NULL, never overwritten by a later call.
 *   Codes other than those above get the C library's description (glibc
 *   2.32 or later: strerrordesc_np(), in English); codes it does not know,
 *   or every other code on other C libraries, get "unknown error".
 *
 * Thread-safety: safe from any thread.
 */
const char *offload_strerror(int err);

/**
 * @brief The message of the most recent failed call on @p ctx from this thread.
 *
 * Every call that returns a negative errno also records a sentence saying
 * what went wrong (for example "offload_memcpy: source [0x1000,+64) overlaps
 * destination [0x1020,+64)"). The message is kept per calling thread and
 * per context: threads sharing a context never see each other's errors, and
 * a failure on another context does not replace it (a thread keeps the
 * messages of its 1024 most recently failing contexts; offload_ctx_free()
 * frees the freeing thread's message of that context; it stays the answer
 * for NULL until another failure). A call that succeeds leaves the message
 * as it was, except one that succeeded after a step inside it failed with
 * a reason (offload_ctx_open() after a backend declined the board: see
 * offload_backend_status(); offload_memcpy() after an engine refused and the
 * CPU copied; offload_ctx_close() in a forked child): that call clears it,
 * rather than leave a reason for a failure that did not happen.
 *
 * @param ctx The context, or NULL for the last error of any context on this
 *            thread (including calls that failed because ctx was NULL).
 * @return A NUL-terminated string, "" if no call has failed; valid until the
 *         next liboffload call on this thread.
 *
 * Thread-safety: safe from any thread.
 */
const char *offload_last_error(const offload_ctx *ctx);

/** @} */

/** @addtogroup context
 * @{
 */

/** Where a context takes its device tree from. */
enum offload_dt_source {
	/**
	 * Default: the file named by the OFFLOAD_DTB environment variable if
	 * set, else the running system's tree at /sys/firmware/fdt if readable,
	 * else, when the caller passed a simulation provider
	 * (offload_ctx_opts::sim_provider), the built-in virtual board, else no
	 * device tree. Simulated engines that come only from that fallback are
	 * listed and usable by index but never chosen automatically (large
	 * copies stay on the CPU) unless ::OFFLOAD_CTX_SIM or OFFLOAD_SIM=1 asks
	 * for them. A program linked only with liboffload gets no models here.
	 */
	OFFLOAD_DT_AUTO = 0,
	/** No device tree: only the CPU and kernel-interface backends. */
	OFFLOAD_DT_NONE = 1,
	/** The flattened device tree file at offload_ctx_opts::dtb_path. */
	OFFLOAD_DT_FILE = 2,
	/** The live tree of the running kernel, /sys/firmware/fdt. */
	OFFLOAD_DT_LIVE = 3,
	/** The virtual board of liboffload-sim (simulated engines; see offload_ctx_opts::sim_provider). */
	OFFLOAD_DT_BUILTIN = 4,
	/** A blob in memory, offload_ctx_opts::dtb_blob (copied at open). */
	OFFLOAD_DT_BLOB = 5,
};

/**
 * Attach register-level models to the engines the device tree declares
 * (a "digital twin" of the board) so that the direct backends drive the
 * models. Implied by ::OFFLOAD_DT_BUILTIN. Also set by OFFLOAD_SIM=1 (or
 * yes, true, on) in the environment; see offload_ctx_open(). Everything a model serves is labelled "sim".
 */
#define OFFLOAD_CTX_SIM (1u << 0)
/** Ignore the OFFLOAD_DTB, OFFLOAD_BACKENDS and OFFLOAD_SIM environment variables. */
#define OFFLOAD_CTX_NO_ENV (1u << 1)
/**
 * Simulation only: emulate a non-coherent memory system for every simulated
 * device even where the device tree says dma-coherent (the device sees memory
 * only as of the last cache clean, the CPU sees device writes only after an
 * invalidate). For testing cache maintenance.
 */
#define OFFLOAD_CTX_SIM_NONCOHERENT (1u << 2)

/**
 * Reported by offload_ctx_get_flags(), never accepted by offload_ctx_open(): the
 * device tree is the built-in virtual board only because ::OFFLOAD_DT_AUTO
 * found none to use (no OFFLOAD_DTB, no /sys/firmware/fdt, as on a PC).
 * Its engines are simulated; unless ::OFFLOAD_CTX_SIM is also reported they
 * are listed and usable by index but operations run on the CPU.
 */
#define OFFLOAD_CTX_DT_FALLBACK (1u << 3)

/* liboffload-sim's models (<offload/sim.h>); opaque here. */
struct offload_sim_provider;

/** Options for offload_ctx_open(). Initialise with offload_ctx_opts_init(). */
struct offload_ctx_opts {
	/** sizeof(struct offload_ctx_opts) as compiled by the caller (ABI guard). */
	uint32_t size;
	/** Bitwise OR of OFFLOAD_CTX_* flags; other bits make open fail (-EINVAL). */
	uint32_t flags;
	/** Device-tree source; see ::offload_dt_source. */
	enum offload_dt_source dt_source;
	/** Path of a .dtb file for ::OFFLOAD_DT_FILE. */
	const char *dtb_path;
	/** Blob for ::OFFLOAD_DT_BLOB; copied, so it may be freed after open. */
	const void *dtb_blob;
	/** Size of dtb_blob in bytes. */
	size_t dtb_size;
	/**
	 * Comma-separated allow-list of backend names ("cpu,kcapi,udma"); NULL or
	 * "" allows all. Overridden by the OFFLOAD_BACKENDS environment variable
	 * unless ::OFFLOAD_CTX_NO_ENV is set.
	 */
	const char *backends;
	/**
	 * The register-level models to use when the context simulates
	 * (::OFFLOAD_CTX_SIM, ::OFFLOAD_DT_BUILTIN, OFFLOAD_SIM=1,
	 * OFFLOAD_DTB=builtin): offload_sim_provider() of liboffload-sim
	 * (<offload/sim.h>, -loffload-sim), or NULL. With NULL, liboffload
	 * simulates only when asked to, with the offload_sim_provider() the
	 * program is linked with, else by loading liboffload-sim.so.0; when
	 * neither exists the open fails with -ENOTSUP naming what to link.
	 * liboffload itself contains no model. Callers compiled before this
	 * field existed pass a size that excludes it: NULL.
	 */
	const struct offload_sim_provider *sim_provider;
};

/**
 * @brief Fill @p opts with the defaults (AUTO device tree, all backends, no models).
 *
 * @param opts Options to initialise; ignored if NULL.
 *
 * Thread-safety: safe from any thread.
 */
void offload_ctx_opts_init(struct offload_ctx_opts *opts);

/**
 * @brief Allocate a closed context.
 *
 * @return A new context, or NULL when out of memory.
 *
 * Thread-safety: safe from any thread.
 */
offload_ctx *offload_ctx_new(void);

/**
 * @brief Open a context: load and validate the device tree, discover engines,
 *        compute each device's DMA policy and bind backends.
 *
 * A backend that cannot run here (for example AF_ALG on a kernel without it)
 * is left out and offload_dev_get_info() says why; that is not an error.
 *
 * Environment, read at open: OFFLOAD_DTB (a .dtb path, or "none", "live",
 * "builtin") replaces opts->dt_source; OFFLOAD_BACKENDS replaces
 * opts->backends; OFFLOAD_SIM sets ::OFFLOAD_CTX_SIM when it is "1",
 * "yes", "true" or "on", leaves the flags alone when it is "0", "no",
 * "false", "off" or empty (all case-insensitive), and makes open fail with
 * -EINVAL for any other value (a typo must not silently choose). All three
 * are ignored with ::OFFLOAD_CTX_NO_ENV. OFFLOAD_CPU_THREADS=N (1 .. 64) caps
 * the threads the CPU backend copies with (1: never split a copy; default:
 * the CPUs the process may run on) and OFFLOAD_CPU_NT_THRESHOLD=BYTES sets
 * the size from which its copies use streaming stores (x86-64; without it,
 * from the last-level cache's size in sysfs, and from 4 MiB into a
 * destination that timed loads find out of the caches); they are
 * process-wide tuning knobs that ::OFFLOAD_CTX_NO_ENV does not hide, as is
 * liboffload-sim's register trace,
 * OFFLOAD_SIM_TRACE (<offload/sim.h>), read when a context simulates.
 * Every OFFLOAD_* variable the library reads (offloadctl(1) ENVIRONMENT)
 * is checked here by one parser: a malformed value of any of them fails
 * the open with -EINVAL and a sentence naming the variable (those
 * ::OFFLOAD_CTX_NO_ENV hides are not checked with it).
 *
 * @param ctx  A closed context from offload_ctx_new().
 * @param opts Options, or NULL for defaults.
 * @return 0 on success, or
 *   - -EINVAL: ctx is NULL, opts->size is too small, opts->flags has bits
 *     that are not OFFLOAD_CTX_*, an unknown backend name in the
 *     allow-list, an OFFLOAD_SIM value that is neither on nor off, or a
 *     malformed device tree (the message names the offset or node that
 *     failed);
 *   - -EBUSY: ctx is already open;
 *   - -ENOTSUP: models were asked for (::OFFLOAD_CTX_SIM,
 *     ::OFFLOAD_DT_BUILTIN, OFFLOAD_SIM, OFFLOAD_DTB=builtin) and there is
 *     no liboffload-sim to serve them (none passed, linked or loadable), or
 *     the one passed is of another ABI;
 *   - -ENOENT / -EACCES: the device-tree file cannot be read, or the
 *     register trace (OFFLOAD_SIM_TRACE) cannot be opened for appending;
 *   - -ENOMEM: out of memory for the context itself (the tree, the device
 *     list). Running out of memory or threads while one engine is probed
 *     (its DMA memory, its model's thread) does not fail the open: that
 *     device is listed unusable with the reason ("out of memory", "cannot
 *     start its thread"), like any device that cannot work, and the CPU
 *     serves its calls.
 *
 * Thread-safety: the context must not be used by other threads during open.
 */
int offload_ctx_open(offload_ctx *ctx, const struct offload_ctx_opts *opts);

/**
 * @brief Close a context: release backends, models and the device tree.
 *
 * @param ctx An open context.
 * @return 0 on success, or -EINVAL if ctx is NULL, -EBADF if it is not open
 *   (closing twice is therefore a defined error), -EBUSY if queues, SPI
 *   handles, crypto sessions or DMA buffers of this context are still open.
 *   In a child created by fork(), closing a context inherited from the
 *   parent succeeds even with handles open and calls no backend (see
 *   "fork()" in offload.h).
 *
 * Thread-safety: no other thread may use the context during or after close.
 */
int offload_ctx_close(offload_ctx *ctx);

/**
 * @brief Free a context handle, closing it first if it is open.
 *
 * Handles still open on the context (queues, SPI handles, sessions, buffers)
 * are closed and freed too; pointers to them become invalid. In a child
 * created by fork(), a context inherited from the parent is released
 * without calling any backend (see "fork()" in offload.h).
 *
 * @param ctx The context; NULL is ignored.
 *
 * Thread-safety: no other thread may use the context during or after free.
 */
void offload_ctx_free(offload_ctx *ctx);

/**
 * @brief Describe where the context's device tree came from.
 *
 * @param ctx An open context.
 * @return e.g. "file:/path/board.dtb", "live:/sys/firmware/fdt",
 *   "builtin:virtual-board", "blob", "none"; NULL if ctx is NULL or closed.
 *   Valid until the context is closed.
 *
 * Thread-safety: safe from any thread while the context is open.
 */
const char *offload_ctx_dt_source(const offload_ctx *ctx);

/**
 * @brief What offload_ctx_open() left out of a valid device tree, in words.
 *
 * A context lists at most 64 devices (the CPU and kernel-served devices
 * included). A tree with more engine nodes than fit is still opened: the
 * first nodes in tree order are listed and this note says how many were
 * skipped.
 *
 * @param ctx An open context.
 * @return "" when nothing was left out, else a sentence; NULL if ctx is NULL
 *   or closed. Valid until the context is closed.
 *
 * Thread-safety: safe from any thread while the context is open.
 */
const char *offload_ctx_note(const offload_ctx *ctx);

/**
 * @brief The OFFLOAD_CTX_* flags in effect, after the environment was read.
 *
 * ::OFFLOAD_CTX_SIM is reported when simulated engines may be chosen
 * automatically (asked for, or implied by ::OFFLOAD_DT_BUILTIN);
 * ::OFFLOAD_CTX_DT_FALLBACK when the built-in virtual board stands in for a
 * machine without a device tree. Programs use these to say which of their
 * results come from models (offloadctl prints them above its listings).
 *
 * @param ctx   An open context.
 * @param flags Receives the flags (bitwise OR of OFFLOAD_CTX_*); set to 0
 *              when the call fails.
 * @return 0, or -EINVAL (ctx or flags is NULL, or ctx is not a context),
 *   -EBADF (ctx is not open, or was inherited through fork()).
 *
 * Thread-safety: safe from any thread while the context is open.
 * @since 0.2
 */
int offload_ctx_get_flags(const offload_ctx *ctx, uint32_t *flags);

/**
 * @brief The flags in effect, as offload_ctx_get_flags(), in the 0.1 form.
 *
 * @deprecated A bad handle and "no flags" both give 0 here; use
 *   offload_ctx_get_flags(), which tells them apart. Kept, unchanged, for
 *   programs written against 0.1.
 *
 * @param ctx An open context.
 * @return The flags; 0 if ctx is NULL, not a context, or not open (no
 *   message is recorded).
 *
 * Thread-safety: safe from any thread while the context is open.
 */
uint32_t offload_ctx_flags(const offload_ctx *ctx);

/** @} */

/** @addtogroup devices
 * @{
 */

/** Select the device automatically (the policy's choice). */
#define OFFLOAD_DEV_AUTO (-1)

/** Device capability: memory-to-memory copy. */
#define OFFLOAD_CAP_MEMCPY (1u << 0)
/** Device capability: symmetric ciphers and AEAD. */
#define OFFLOAD_CAP_CIPHER (1u << 1)
/** Device capability: hashes and HMAC. */
#define OFFLOAD_CAP_HASH (1u << 2)
/** Device capability: SPI transfers. */
#define OFFLOAD_CAP_SPI (1u << 3)

/** Device flag: enabled in the device tree (status "okay"), or not from a DT. */
#define OFFLOAD_DEVF_ENABLED (1u << 0)
/** Device flag: a backend serves it; operations may be sent to it. */
#define OFFLOAD_DEVF_USABLE (1u << 1)
/** Device flag: served by a register-level model; results are "sim". */
#define OFFLOAD_DEVF_SIM (1u << 2)
/** Device flag: the library drives the engine's registers directly. */
#define OFFLOAD_DEVF_DIRECT (1u << 3)
/** Device flag: reached through a kernel interface (AF_ALG, spidev). */
#define OFFLOAD_DEVF_KERNEL (1u << 4)
/** Device flag: the CPU (software) device. */
#define OFFLOAD_DEVF_CPU (1u << 5)
/**
 * Device flag: calls that leave the device to the library (OFFLOAD_DEV_AUTO)
 * may choose it, by each operation's rule (memcpy at or above its
 * threshold_bytes, crypto where it runs the algorithm off the CPU). Clear
 * for a device that is not usable, and for a model attached only because
 * no device tree was given or live (OFFLOAD_CTX_DT_FALLBACK without
 * OFFLOAD_CTX_SIM): such a device serves only the calls that name it, and
 * the CPU serves the others.
 */
#define OFFLOAD_DEVF_AUTO (1u << 6)

/** How the CPU caches are handled for a device's DMA buffers. */
enum offload_cache_mode {
	/** The device is DMA-coherent: no cache maintenance at all. */
	OFFLOAD_CACHE_COHERENT = 0,
	/** Cached buffers; clean before the device reads, invalidate before the CPU reads. */
	OFFLOAD_CACHE_STREAMING = 1,
	/** Uncached (or write-combined) buffers; no maintenance, slow CPU access. */
	OFFLOAD_CACHE_UNCACHED = 2,
};

/**
 * A device and the decisions the library made for it, each with its reason.
 *
 * Strings are owned by the context and stay valid until it is closed. A
 * reason names the device-tree node/property or the capability-table entry
 * (with the Linux driver match data it comes from) that decided.
 *
 * The struct grows at its end from release to release (fields are never
 * moved or removed); offload_dev_get_info() takes the caller's sizeof, so
 * programs built against any release keep working. Growable by size rather
 * than opaque with getters (libgpiod v2's choice) because the project's other
 * growable structs (offload_ctx_opts, offload_dev_stats) already work so,
 * because a caller gets a consistent snapshot of all 30 fields in one call,
 * and because the fields stay plain C for FFI callers (Python's module).
 */
struct offload_dev_info {
	/** Index of the device, 0 .. offload_dev_count() - 1. */
	int index;
	/** Short unique name, e.g. "cpu", "af_alg", "dma-controller@31150000". */
	const char *name;
	/** Device kind: "cpu", "af_alg", or the kind its engine's match table gives the node (e.g. "k3-udma", "dspi"). */
	const char *kind;
	/** Full device-tree path, or "" for devices not from the device tree. */
	const char *dt_path;
	/** The compatible string that matched, or "". */
	const char *compatible;
	/** Device-tree status ("okay", "disabled", ...), "okay" for non-DT devices. */
	const char *status;
	/** Name of the backend serving the device, or "" if none. */
	const char *backend;
	/** Comma-separated backends that could serve this kind of device. */
	const char *candidates;
	/** Why the device is or is not usable, in words. */
	const char *usable_reason;
	/** OFFLOAD_CAP_* bits. */
	uint32_t caps;
	/** OFFLOAD_DEVF_* bits. */
	uint32_t flags;
	/** CPU physical address of the first register region (0 if none). */
	uint64_t phys_addr;
	/** Size of the first register region in bytes (0 if none). */
	uint64_t phys_size;
	/** 1 if DMA-coherent, 0 if not. */
	int coherent;
	/** Reason for the coherency decision; names the deciding node. */
	const char *coherent_reason;
	/** Cache handling for this device's DMA buffers. */
	enum offload_cache_mode cache_mode;
	/** Reason for the cache mode. */
	const char *cache_reason;
	/** Burst size in bytes the library programs or assumes (0 if not applicable). */
	uint32_t burst_bytes;
	/** Reason for the burst size. */
	const char *burst_reason;
	/** Buffer and length alignment in bytes that gives full speed (1 if any). */
	uint32_t align_bytes;
	/** Reason for the alignment. */
	const char *align_reason;
	/** Operations smaller than this many bytes go to the CPU instead. */
	uint64_t threshold_bytes;
	/** Reason for the threshold. */
	const char *threshold_reason;
	/** Transfer mode, e.g. "tr-type15", "xspi-pio", "eoq-pio", "ring", "memcpy". */
	const char *transfer_mode;
	/** Reason for the transfer mode. */
	const char *transfer_reason;

	/** How #phys_addr was found (reg entry and the `ranges` it crossed), or why it is 0. */
	const char *phys_reason;
	/**
	 * Path of the node whose `dma-coherent` / `dma-noncoherent` (or, for
	 * BCDMA, `ti,asel`) decided #coherent; "" when no node did (the default:
	 * not coherent).
	 */
	const char *coherent_node;
	/**
	 * 1 if the capability table knows this SoC's interconnect to be
	 * I/O-coherent (so the device could be marked `dma-coherent`), else 0.
	 * The policy still follows the device tree; see #soc_io_coherent_reason.
	 */
	int soc_io_coherent;
	/** Evidence for #soc_io_coherent (the upstream change or manual), "" when 0. */
	const char *soc_io_coherent_reason;
	/**
	 * K3 UDMA/BCDMA/PKTDMA: burst in bytes per channel class [normal,
	 * high-capacity (H), ultra-high-capacity (UH)] as the Linux driver's match
	 * data gives it (k3-udma.c `burst_size`); 0 = the instance has no channel
	 * of that class. All 0 for other engines.
	 */
	uint32_t burst_by_class[3];
	/** Channel class memcpy uses (0 normal, 1 H, 2 UH), or -1 if not applicable. */
	int memcpy_class;
};

/**
 * @brief Number of devices in an open context.
 *
 * The CPU device is always among them unless the backend allow-list leaves
 * out the "cpu" backend; then the count may be 0.
 *
 * @param ctx An open context.
 * @return The count (>= 0), or -EINVAL if ctx is NULL, -EBADF if not open.
 *
 * Thread-safety: safe from any thread while the context is open.
 */
int offload_dev_count(const offload_ctx *ctx);

/**
 * @brief Describe device @p index.
 *
 * The struct can grow: pass `sizeof *info` as your program compiled it. A
 * program built against an older, shorter struct gets exactly the fields it
 * knows and nothing is written past @p size bytes; one built against a
 * newer, longer struct than this library has gets the fields this library
 * knows and the rest zeroed. Write `offload_dev_get_info(ctx, i, &info,
 * sizeof info)`.
 *
 * @param ctx   An open context.
 * @param index 0 .. offload_dev_count() - 1.
 * @param info  Filled on success: at most @p size bytes are written.
 * @param size  sizeof(*info) as compiled by the caller, in bytes (1 .. 4096).
 * @return 0, or -EINVAL (info is NULL, size is 0 or above 4096, or ctx is
 *   NULL or not a context), -EBADF (closed, or inherited through fork()), -ENODEV (index
 *   out of range).
 *
 * Thread-safety: safe from any thread while the context is open.
 * @since 0.2 (replaces offload_dev_info() of 0.1, which had no size; 0.1
 *   binaries still reach that entry point, which copies the 0.1 layout).
 */
int offload_dev_get_info(const offload_ctx *ctx, int index, struct offload_dev_info *info,
			 size_t size);

/**
 * @brief Find a device by name, device-tree path or compatible string.
 *
 * @param ctx An open context.
 * @param key A device name ("cpu"), a full DT path, or a compatible; the
 *            first device matching any of them is returned.
 * @return The device index (>= 0), or -EINVAL, -EBADF, -ENODEV (no match).
 *
 * Thread-safety: safe from any thread while the context is open.
 */
int offload_dev_find(const offload_ctx *ctx, const char *key);

/**
 * @brief Name of backend @p index of this library, in probe order.
 *
 * The backends built into the library, from its registry: the order in
 * which they are offered each device-tree device (direct drivers before
 * kernel interfaces, except "dmaengine", which binds only an engine the
 * kernel's offload_dma module holds a channel of and so comes first; the
 * first that binds serves the device), with "cpu" first. These are the names the allow-list (offload_ctx_opts::backends,
 * OFFLOAD_BACKENDS) and offload_backend_status() accept. Which ones a
 * build has, and their order, come from its registry (one offload_engine()
 * line per backend in the source tree's backends/CMakeLists.txt):
 * enumerate rather than assume a list, with
 * `for (unsigned i = 0; (name = offload_backend_name(i)); i++)`.
 *
 * @param index 0, 1, ... .
 * @return A static NUL-terminated string, or NULL when @p index is at or
 *   past the number of backends built in (no error is recorded: NULL is
 *   how the enumeration ends).
 *
 * Thread-safety: safe from any thread; needs no context.
 * @since 0.2
 */
const char *offload_backend_name(unsigned index);

/**
 * @brief The OFFLOAD_CAP_* classes backend @p index can serve.
 *
 * What the backend implements at all in this build (for example "kcapi":
 * cipher and hash; "udma": memcpy; "cpu": memcpy, and cipher and hash when
 * built with OpenSSL), not what a given machine offers: which devices a
 * context has and what each can do is offload_dev_get_info()'s answer.
 *
 * @param index As offload_backend_name().
 * @return Bitwise OR of OFFLOAD_CAP_* (never 0 for a backend), or 0 when
 *   @p index is past the end.
 *
 * Thread-safety: safe from any thread; needs no context.
 * @since 0.2
 */
uint32_t offload_backend_caps(unsigned index);

/**
 * @brief Whether a backend takes part in an open context, and if not, why.
 *
 * @param ctx  An open context.
 * @param name Backend name, one of offload_backend_name()'s (any other name
 *             gives -ENOENT).
 * @param why  If not NULL, receives the reason the backend is absent (for
 *             example "socket(AF_ALG) failed: Address family not supported by
 *             protocol ..."), "" when it is present, "not built into this
 *             library" with -ENOENT, "" on other errors. Owned by the
 *             context or static; valid until the context is closed.
 * @return 1 if present, 0 if built but absent (excluded by the allow-list or
 *   unavailable on this system), -ENOENT if this library was built without
 *   it, -EINVAL (NULL ctx or name), -EBADF (closed context).
 *
 * Thread-safety: safe from any thread while the context is open.
 */
int offload_backend_status(const offload_ctx *ctx, const char *name, const char **why);

/**
 * Work counters of one device: what its DMA policy costs the CPU. Cache
 * maintenance is what the library did for the device's streaming buffers
 * (arm64: DC CVAC / DC CIVAC by cache line, one barrier per call; x86:
 * CLFLUSHOPT; on simulated devices the emulated copies between the CPU and
 * RAM views). Counted since the context opened or the last
 * offload_dev_stats_reset().
 */
struct offload_dev_stats {
	/** Clean operations (one per range handed to the device). */
	uint64_t cache_clean_calls;
	/** Invalidate operations (clean+invalidate where user space cannot invalidate only). */
	uint64_t cache_inval_calls;
	/** Bytes cleaned or invalidated, after widening each range to whole cache lines. */
	uint64_t cache_bytes;
	/** Wall-clock time spent in cache maintenance, in nanoseconds. */
	uint64_t cache_ns;
	/** Operations the engine ran (a copy split into several descriptors counts once). */
	uint64_t jobs;
	/** Bytes the engine moved. */
	uint64_t bytes;
	/** Bytes copied through bounce buffers because a side was not a DMA buffer of the device. */
	uint64_t bounced_bytes;
	/** Bytes the CPU moved on behalf of the device (unaligned heads and tails). */
	uint64_t cpu_bytes;
};

/**
 * @brief Read the work counters of device @p dev.
 *
 * @param ctx  An open context.
 * @param dev  Device index.
 * @param out  Receives the counters.
 * @param size sizeof(*out) as compiled by the caller, in bytes; at most that many bytes are
 *             written, so a program built against an older, shorter struct keeps working,
 *             and a newer, longer one gets the counters this library lacks zeroed.
 * @return 0, or -EINVAL (NULL out, size 0 or above 4096, ctx NULL or not a context), -EBADF (closed),
 *   -ENODEV (no such device).
 *
 * Thread-safety: safe from any thread; counters of operations still running may be partial.
 * @since 0.2 (offload_dev_stats() of 0.1, same arguments, under the struct's name)
 */
int offload_dev_get_stats(const offload_ctx *ctx, int dev, struct offload_dev_stats *out,
			  size_t size);

/**
 * @brief Zero the work counters of device @p dev.
 *
 * @param ctx An open context.
 * @param dev Device index.
 * @return 0, or -EINVAL, -EBADF, -ENODEV as offload_dev_get_stats().
 *
 * Thread-safety: safe from any thread; operations running meanwhile may count on either side.
 */
int offload_dev_stats_reset(offload_ctx *ctx, int dev);


/** Result flag: the operation ran on a register-level model ("sim"). */
#define OFFLOAD_RES_SIM (1u << 0)
/** Result flag: the operation ran on an engine driven directly by the library. */
#define OFFLOAD_RES_DIRECT (1u << 1)
/** Result flag: the operation went through a kernel interface. */
#define OFFLOAD_RES_KERNEL (1u << 2)
/** Result flag: the operation ran on the CPU. */
#define OFFLOAD_RES_CPU (1u << 3)
/** Result flag: a plain user buffer was bounced through a DMA buffer. */
#define OFFLOAD_RES_BOUNCED (1u << 4)
/**
 * Result flag: the implementation that ran is an off-CPU engine: a direct
 * backend's device, or for AF_ALG a kernel driver on the library's list of
 * hardware crypto drivers (e.g. safexcel-*, the EIP97/EIP197 driver).
 */
#define OFFLOAD_RES_HARDWARE (1u << 5)
/**
 * Result flag: the device chosen automatically (::OFFLOAD_DEV_AUTO) could not
 * take the operation at that moment (every engine channel busy, or no DMA
 * memory for one), so the CPU ran it; set together with ::OFFLOAD_RES_CPU.
 */
#define OFFLOAD_RES_FALLBACK (1u << 6)

/**
 * Who ran an operation. Filled by the synchronous calls that take a
 * `struct offload_result *` (which may be NULL when the caller does not care).
 * Strings are owned by the context and stay valid until it is closed.
 *
 * Frozen: those calls take no size for it, so it never grows; a later
 * release that reports more adds a struct and calls of its own.
 */
struct offload_result {
	/** Index of the device that ran the operation. */
	int dev;
	/** Backend name, one of offload_backend_name()'s ("cpu", "kcapi", ...). */
	const char *backend;
	/**
	 * Implementation that ran: "cpu-memcpy"; "openssl-evp:" and the OpenSSL
	 * algorithm ("openssl-evp:AES-256-GCM", "openssl-evp:SHA256"); for
	 * AF_ALG the kernel's cra_driver_name ("safexcel-cbc-aes",
	 * "cbc(aes-generic)"); for a direct DMA engine the channel
	 * ("udma-tchan0", "bcdma-bchan1"); "none" for a zero-length operation.
	 */
	const char *driver;
	/** OFFLOAD_RES_* bits. */
	uint32_t flags;
};

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLOAD_CORE_H */
