# SPDX-License-Identifier: MIT
"""Type stubs for the offload package (liboffload's Python bindings)."""

import enum
import sys
from typing import Any, Final, Iterable, List, Literal, Optional, Sequence, Tuple, Union, final

from _typeshed import ReadableBuffer, StrPath, WriteableBuffer, structseq

# ReadableBuffer / WriteableBuffer: anything with the buffer protocol (bytes, bytearray,
# memoryview, mmap, array, numpy arrays, Buffer); WriteableBuffer must be writable.
_DevArg = Union[None, int, str, "DeviceInfo"]

DEV_AUTO: int
GCM_TAG_MAX: int
HASH_MAX_DIGEST: int
SPI_MAX_XFERS: int
HEADER_VERSION: str
__version__: str

# ---------------------------------------------------------------- errors

class Error(OSError):
    """Base of every liboffload error: errno is the library's code, strerror its message."""

class InvalidArgument(Error, ValueError): ...
class NoDevice(Error): ...
class NotSupported(Error): ...
class Timeout(Error, TimeoutError): ...
class EngineError(Error): ...
class TagMismatch(Error): ...
class Closed(Error): ...
class Busy(Error): ...
class QueueFull(Error): ...
class MessageTooLong(Error): ...
class NotFound(Error, FileNotFoundError): ...
class PermissionDenied(Error, PermissionError): ...

# ---------------------------------------------------------------- enums

class DtSource(enum.IntEnum):
    AUTO = 0
    NONE = 1
    FILE = 2
    LIVE = 3
    BUILTIN = 4
    BLOB = 5

class CacheMode(enum.IntEnum):
    COHERENT = 0
    STREAMING = 1
    UNCACHED = 2

class Cap(enum.IntFlag):
    MEMCPY = 1
    CIPHER = 2
    HASH = 4
    SPI = 8

class DevFlag(enum.IntFlag):
    ENABLED = 1
    USABLE = 2
    SIM = 4
    DIRECT = 8
    KERNEL = 16
    CPU = 32
    AUTO = 64

class ResFlag(enum.IntFlag):
    SIM = 1
    DIRECT = 2
    KERNEL = 4
    CPU = 8
    BOUNCED = 16
    HARDWARE = 32
    FALLBACK = 64

class CipherAlg(enum.IntEnum):
    AES_ECB = 1
    AES_CBC = 2
    AES_CTR = 3
    AES_GCM = 4
    DES_ECB = 5
    DES3_CBC = 6

class HashAlg(enum.IntEnum):
    MD5 = 1
    SHA1 = 2
    SHA224 = 3
    SHA256 = 4
    SHA384 = 5
    SHA512 = 6
    HMAC_MD5 = 0x101
    HMAC_SHA1 = 0x102
    HMAC_SHA224 = 0x103
    HMAC_SHA256 = 0x104
    HMAC_SHA384 = 0x105
    HMAC_SHA512 = 0x106

class DmaDir(enum.IntEnum):
    TO_DEVICE = 1
    FROM_DEVICE = 2
    BIDIRECTIONAL = 3

class SpiMode(enum.IntFlag):
    MODE_0 = 0
    CPHA = 0x01
    CPOL = 0x02
    CS_HIGH = 0x04
    LSB_FIRST = 0x08
    THREE_WIRE = 0x10
    LOOP = 0x20
    NO_CS = 0x40
    TX_DUAL = 0x100
    TX_QUAD = 0x200
    RX_DUAL = 0x400
    RX_QUAD = 0x800
    MODE_1 = 0x01
    MODE_2 = 0x02
    MODE_3 = 0x03

# ---------------------------------------------------------------- records

@final
class Result(structseq[Any], Tuple[str, str, int, ResFlag]):
    """Who ran an operation (struct offload_result)."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("backend", "driver", "dev", "flags",)
    @property
    def backend(self) -> str: ...
    @property
    def driver(self) -> str: ...
    @property
    def dev(self) -> int: ...
    @property
    def flags(self) -> ResFlag: ...

@final
class Completion(structseq[Any], Tuple[int, int, Any, int, ResFlag]):
    """One finished job of a Queue (struct offload_completion)."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("job", "status", "user_data", "dev", "flags",)
    @property
    def job(self) -> int: ...
    @property
    def status(self) -> int: ...
    @property
    def user_data(self) -> Any: ...
    @property
    def dev(self) -> int: ...
    @property
    def flags(self) -> ResFlag: ...

@final
class BackendStatus(structseq[Any], Tuple[str, bool, bool, str]):
    """Whether a backend takes part in a Context."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("name", "built", "present", "reason",)
    @property
    def name(self) -> str: ...
    @property
    def built(self) -> bool: ...
    @property
    def present(self) -> bool: ...
    @property
    def reason(self) -> str: ...

@final
class CipherResult(structseq[Any], Tuple[Any, Optional[bytes], Result]):
    """Output of a cipher operation."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("data", "tag", "result",)
    @property
    def data(self) -> Any: ...
    @property
    def tag(self) -> Optional[bytes]: ...
    @property
    def result(self) -> Result: ...

@final
class HashResult(structseq[Any], Tuple[bytes, Result]):
    """Output of a hash or HMAC."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("digest", "result",)
    @property
    def digest(self) -> bytes: ...
    @property
    def result(self) -> Result: ...

@final
class SpiInfo(structseq[Any], Tuple[str, str, int, int, SpiMode, int, int, int, int, int, int, ResFlag]):
    """What an SPI handle is (struct offload_spi_info)."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("backend", "path", "dev", "chip_select", "mode", "max_speed_hz", "actual_speed_hz", "bits_per_word", "cs_setup_ns", "cs_hold_ns", "max_message_bytes", "flags",)
    @property
    def backend(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def dev(self) -> int: ...
    @property
    def chip_select(self) -> int: ...
    @property
    def mode(self) -> SpiMode: ...
    @property
    def max_speed_hz(self) -> int: ...
    @property
    def actual_speed_hz(self) -> int: ...
    @property
    def bits_per_word(self) -> int: ...
    @property
    def cs_setup_ns(self) -> int: ...
    @property
    def cs_hold_ns(self) -> int: ...
    @property
    def max_message_bytes(self) -> int: ...
    @property
    def flags(self) -> ResFlag: ...

@final
class DevStats(structseq[int], Tuple[int, int, int, int, int, int, int, int]):
    """Work counters of one device (struct offload_dev_stats)."""
    if sys.version_info >= (3, 10):
        __match_args__: Final = ("cache_clean_calls", "cache_inval_calls", "cache_bytes", "cache_ns",
                                 "jobs", "bytes", "bounced_bytes", "cpu_bytes")
    @property
    def cache_clean_calls(self) -> int: ...
    @property
    def cache_inval_calls(self) -> int: ...
    @property
    def cache_bytes(self) -> int: ...
    @property
    def cache_ns(self) -> int: ...
    @property
    def jobs(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def bounced_bytes(self) -> int: ...
    @property
    def cpu_bytes(self) -> int: ...

@final
class DeviceInfo:
    """A device of a Context and the decisions made for it, each with its reason."""
    index: int
    name: str
    kind: str
    dt_path: str
    compatible: str
    status: str
    backend: str
    candidates: str
    usable_reason: str
    caps: Cap
    flags: DevFlag
    phys_addr: int
    phys_size: int
    coherent: bool
    coherent_reason: str
    cache_mode: CacheMode
    cache_reason: str
    burst_bytes: int
    burst_reason: str
    align_bytes: int
    align_reason: str
    threshold_bytes: int
    threshold_reason: str
    transfer_mode: str
    transfer_reason: str
    phys_reason: str
    coherent_node: str
    soc_io_coherent: bool
    soc_io_coherent_reason: str
    burst_by_class: Tuple[int, int, int]
    memcpy_class: int
    @property
    def usable(self) -> bool: ...
    @property
    def automatic(self) -> bool: ...
    def as_dict(self) -> dict[str, Any]: ...

# ---------------------------------------------------------------- context

@final
class Context:
    """A liboffload context: device tree, devices, policy, backends."""
    def __init__(
        self,
        dtb: Union[None, StrPath, ReadableBuffer] = None,
        backends: Union[None, str, Iterable[str]] = None,
        sim: bool = False,
        *,
        source: Optional[DtSource] = None,
        no_env: bool = False,
        sim_noncoherent: bool = False,
    ) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Context": ...
    def __exit__(self, *exc_info: object) -> bool: ...
    @property
    def closed(self) -> bool: ...
    @property
    def dt_source(self) -> str: ...
    @property
    def note(self) -> str: ...
    @property
    def flags(self) -> int: ...
    @property
    def device_count(self) -> int: ...
    def devices(self) -> List[DeviceInfo]: ...
    def device(self, key: Union[int, str, DeviceInfo], /) -> DeviceInfo: ...
    def find(self, key: str, /) -> int: ...
    def backend_status(self, name: str, /) -> BackendStatus: ...
    def dev_stats(self, dev: Union[int, str, DeviceInfo], /) -> DevStats: ...
    def dev_stats_reset(self, dev: Union[int, str, DeviceInfo], /) -> None: ...
    def memcpy(self, dst: WriteableBuffer, src: ReadableBuffer, *, dev: _DevArg = None) -> Result: ...
    def cipher(
        self,
        alg: CipherAlg,
        key: ReadableBuffer,
        iv: Optional[ReadableBuffer],
        data: ReadableBuffer,
        encrypt: bool = True,
        aad: Optional[ReadableBuffer] = None,
        tag: Optional[ReadableBuffer] = None,
        tag_len: Optional[int] = None,
        *,
        out: Optional[WriteableBuffer] = None,
    ) -> CipherResult: ...
    def hash(self, alg: HashAlg, data: ReadableBuffer, key: Optional[ReadableBuffer] = None) -> HashResult: ...
    def last_error(self) -> str: ...

# ---------------------------------------------------------------- memcpy queue and buffers

@final
class Queue:
    """An asynchronous copy queue bound to one device."""
    def __init__(self, ctx: Context, depth: int = 256, dev: _DevArg = None) -> None: ...
    def copy(self, dst: WriteableBuffer, src: ReadableBuffer, user_data: Any = None) -> int: ...
    def submit(self) -> int: ...
    def poll(self, max: Optional[int] = None) -> List[Completion]: ...
    def wait(self, timeout: Optional[float] = None, max: Optional[int] = None) -> List[Completion]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Queue": ...
    def __exit__(self, *exc_info: object) -> bool: ...
    @property
    def capacity(self) -> int: ...
    @property
    def dev(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def outstanding(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    @property
    def context(self) -> Optional[Context]: ...

@final
class Buffer:
    """A DMA buffer, writable through the buffer protocol."""
    def __init__(
        self,
        ctx: Context,
        size: int,
        dev: _DevArg = None,
        *,
        uncached: bool = False,
        dmabuf: Union[bool, Literal["udmabuf", "heap"]] = False,
    ) -> None: ...
    @classmethod
    def import_dmabuf(cls, ctx: Context, fd: int, dev: _DevArg = None) -> "Buffer": ...
    def __buffer__(self, flags: int, /) -> memoryview: ...
    def __len__(self) -> int: ...
    def sync_for_device(self, offset: int = 0, length: Optional[int] = None, dir: DmaDir = DmaDir.BIDIRECTIONAL) -> None: ...
    def sync_for_cpu(self, offset: int = 0, length: Optional[int] = None, dir: DmaDir = DmaDir.BIDIRECTIONAL) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Buffer": ...
    def __exit__(self, *exc_info: object) -> bool: ...
    @property
    def size(self) -> int: ...
    @property
    def bus_addr(self) -> int: ...
    @property
    def address(self) -> int: ...
    @property
    def cache_mode(self) -> CacheMode: ...
    @property
    def dmabuf_fd(self) -> Optional[int]: ...
    @property
    def dmabuf_exporter(self) -> Optional[str]: ...
    @property
    def closed(self) -> bool: ...
    @property
    def context(self) -> Optional[Context]: ...

# ---------------------------------------------------------------- crypto

@final
class CipherSession:
    """A key set once for many cipher operations."""
    def __init__(self, ctx: Context, alg: CipherAlg, key: ReadableBuffer, *, dev: _DevArg = None) -> None: ...
    def run(
        self,
        iv: Optional[ReadableBuffer],
        data: ReadableBuffer,
        encrypt: bool = True,
        aad: Optional[ReadableBuffer] = None,
        tag: Optional[ReadableBuffer] = None,
        tag_len: Optional[int] = None,
        *,
        out: Optional[WriteableBuffer] = None,
    ) -> CipherResult: ...
    def close(self) -> None: ...
    def __enter__(self) -> "CipherSession": ...
    def __exit__(self, *exc_info: object) -> bool: ...
    @property
    def alg(self) -> CipherAlg: ...
    @property
    def closed(self) -> bool: ...
    @property
    def context(self) -> Optional[Context]: ...

@final
class HashSession:
    """A streaming hash or HMAC."""
    def __init__(self, ctx: Context, alg: HashAlg, key: Optional[ReadableBuffer] = None, *, dev: _DevArg = None) -> None: ...
    def update(self, data: ReadableBuffer, /) -> None: ...
    def final(self) -> HashResult: ...
    def close(self) -> None: ...
    def __enter__(self) -> "HashSession": ...
    def __exit__(self, *exc_info: object) -> bool: ...
    @property
    def alg(self) -> HashAlg: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    @property
    def context(self) -> Optional[Context]: ...

# ---------------------------------------------------------------- SPI

@final
class Transfer:
    """One transfer of an SPI message."""
    def __init__(
        self,
        tx: Optional[ReadableBuffer] = None,
        rx_len: Optional[int] = None,
        *,
        rx: Optional[WriteableBuffer] = None,
        speed_hz: int = 0,
        delay_usecs: int = 0,
        bits_per_word: int = 0,
        cs_change: bool = False,
        tx_nbits: int = 0,
        rx_nbits: int = 0,
        word_delay_usecs: int = 0,
    ) -> None: ...
    @property
    def tx(self) -> Optional[ReadableBuffer]: ...
    @property
    def rx_len(self) -> Optional[int]: ...
    @property
    def rx(self) -> Optional[WriteableBuffer]: ...
    @property
    def speed_hz(self) -> int: ...
    @property
    def delay_usecs(self) -> int: ...
    @property
    def bits_per_word(self) -> int: ...
    @property
    def cs_change(self) -> bool: ...
    @property
    def tx_nbits(self) -> int: ...
    @property
    def rx_nbits(self) -> int: ...
    @property
    def word_delay_usecs(self) -> int: ...

@final
class Spi:
    """An SPI device: one chip select of one controller."""
    def __init__(
        self,
        ctx: Context,
        node_or_path: StrPath,
        chip_select: Optional[int] = None,
        mode: Optional[int] = None,
        max_speed_hz: Optional[int] = None,
        bits_per_word: Optional[int] = None,
        *,
        no_cs_hold: bool = False,
    ) -> None: ...
    def xfer(
        self,
        tx: Optional[ReadableBuffer] = None,
        rx_len: Optional[int] = None,
        *,
        rx: Optional[WriteableBuffer] = None,
        speed_hz: int = 0,
        delay_usecs: int = 0,
        bits_per_word: int = 0,
        cs_change: bool = False,
        tx_nbits: int = 0,
        rx_nbits: int = 0,
        word_delay_usecs: int = 0,
    ) -> Any: ...
    def transfer(self, transfers: Sequence[Transfer], /) -> List[Any]: ...
    def set_mode(self, mode: int, /) -> None: ...
    def set_speed(self, hz: int, /) -> None: ...
    def info(self) -> SpiInfo: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Spi": ...
    def __exit__(self, *exc_info: object) -> bool: ...
    @property
    def closed(self) -> bool: ...
    @property
    def context(self) -> Optional[Context]: ...

# ---------------------------------------------------------------- functions

def backend_names() -> List[str]: ...
def backend_caps(name: str, /) -> Cap: ...
def check_version(major: int, minor: int, patch: int = 0, /) -> bool: ...
def version() -> str: ...
def version_number() -> int: ...
def strerror(err: int, /) -> str: ...
def last_error() -> str: ...
def cipher_name(alg: CipherAlg, key_len: int) -> Optional[str]: ...
def hash_name(alg: HashAlg, /) -> Optional[str]: ...
def hash_digest_size(alg: HashAlg, /) -> int: ...
