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
every library call that can take time. Errors are offload.Error (an OSError)
subclasses carrying the errno and the library's message.
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
    "CipherSession", "Closed", "Completion", "Context", "DevFlag", "DeviceInfo", "DmaDir",
    "DtSource", "EngineError", "Error", "HashAlg", "HashResult", "HashSession",
    "InvalidArgument", "MessageTooLong", "NoDevice", "NotFound", "NotSupported",
    "PermissionDenied", "Queue", "QueueFull", "ResFlag", "Result", "Spi", "SpiInfo", "SpiMode",
    "TagMismatch", "Timeout", "Transfer", "cipher_name", "hash_digest_size", "hash_name",
    "last_error", "strerror", "version", "version_number",
]
