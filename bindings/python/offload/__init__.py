# SPDX-License-Identifier: MIT
"""liboffload from Python: offload memcpy, SPI transfers and crypto to the DMA
and crypto engines of embedded SoCs, configured from the device tree, with
the CPU as fallback.

The API mirrors the C library (include/offload/*.h)::

    import offload

    with offload.Context() as ctx:              # device tree: $OFFLOAD_DTB, live, or built-in
        for d in ctx.devices():
            print(d.name, d.backend, d.usable_reason)
        r = ctx.memcpy(dst, src)                # any buffers; r.backend says who ran it
        out = ctx.cipher(offload.CipherAlg.AES_GCM, key, iv, data)

Buffers are never copied on the way in or out; the GIL is released during
every library call that can take time.

Errors: every library failure raises a subclass of offload.Error (an OSError)
whose errno is the library's code and whose strerror is its message
(offload_last_error()): InvalidArgument (EINVAL, also a ValueError), NoDevice
(ENODEV), NotSupported (ENOTSUP), Timeout (ETIMEDOUT, also a TimeoutError),
EngineError (EIO), TagMismatch (EBADMSG), Closed (EBADF), Busy (EBUSY),
QueueFull (ENOSPC), MessageTooLong (EMSGSIZE), NotFound (ENOENT, also a
FileNotFoundError), PermissionDenied (EACCES, also a PermissionError), and
Error itself for any other errno. Python-level misuse raises the usual
built-ins: TypeError for a wrong type or a read-only buffer where a writable
one is needed, BufferError for a non-contiguous buffer or for closing a
Buffer that is still exported.

Threads: a Context may be shared; Queue, Spi, CipherSession, HashSession and
a Buffer's sync calls belong to one thread at a time, and a second thread's
call while one runs raises Busy. Context.close() closes every object made
from the context first.
"""

from ._offload import (
    DEV_AUTO,
    GCM_TAG_MAX,
    HASH_MAX_DIGEST,
    HEADER_VERSION,
    SPI_MAX_XFERS,
    BackendStatus,
    Buffer,
    Busy,
    CacheMode,
    Cap,
    CipherAlg,
    CipherResult,
    CipherSession,
    Closed,
    Completion,
    Context,
    DevFlag,
    DeviceInfo,
    DevStats,
    DmaDir,
    DtSource,
    EngineError,
    Error,
    HashAlg,
    HashResult,
    HashSession,
    InvalidArgument,
    MessageTooLong,
    NoDevice,
    NotFound,
    NotSupported,
    PermissionDenied,
    Queue,
    QueueFull,
    ResFlag,
    Result,
    Spi,
    SpiInfo,
    SpiMode,
    TagMismatch,
    Timeout,
    Transfer,
    backend_caps,
    backend_names,
    check_version,
    cipher_name,
    hash_digest_size,
    hash_name,
    last_error,
    strerror,
    version,
    version_number,
)

__version__ = version()

__all__ = [
    "DEV_AUTO", "GCM_TAG_MAX", "HASH_MAX_DIGEST", "HEADER_VERSION", "SPI_MAX_XFERS",
    "BackendStatus", "Buffer", "Busy", "CacheMode", "Cap", "CipherAlg", "CipherResult",
    "CipherSession", "Closed", "Completion", "Context", "DevFlag", "DeviceInfo", "DevStats", "DmaDir",
    "DtSource", "EngineError", "Error", "HashAlg", "HashResult", "HashSession",
    "InvalidArgument", "MessageTooLong", "NoDevice", "NotFound", "NotSupported",
    "PermissionDenied", "Queue", "QueueFull", "ResFlag", "Result", "Spi", "SpiInfo", "SpiMode",
    "TagMismatch", "Timeout", "Transfer", "backend_caps", "backend_names", "check_version", "cipher_name", "hash_digest_size", "hash_name",
    "last_error", "strerror", "version", "version_number",
]
