# SPDX-License-Identifier: MIT
"""offload: versions, errors, enums, Context lifecycle, devices, backends."""
import errno
import gc
import os
import re
import sys
import threading
import unittest
import weakref

import offload
from support import crypto_missing, header_defines, header_enum, header_text, open_ctx, shared_dtb


class TestModule(unittest.TestCase):
    def test_version_matches_the_headers(self):
        # The build's version.h is generated; the version is the project's, from CMakeLists.txt.
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "CMakeLists.txt")) as f:
            v = re.search(r"project\(liboffload\s+VERSION (\d+)\.(\d+)\.(\d+)", f.read())
        major, minor, patch = (int(x) for x in v.groups())
        self.assertEqual(offload.version(), f"{major}.{minor}.{patch}")
        self.assertEqual(offload.__version__, offload.version())
        self.assertEqual(offload.HEADER_VERSION, offload.version())
        self.assertEqual(offload.version_number(), (major << 16) | (minor << 8) | patch)
        self.assertTrue(offload.check_version(major, minor, patch))
        self.assertTrue(offload.check_version(major, minor))
        self.assertFalse(offload.check_version(major, minor, patch + 1))
        self.assertFalse(offload.check_version(major + 1, 0))

    def test_check_version_refuses_out_of_range_components(self):
        # Each component is a C unsigned int: a value that does not fit must not wrap.
        for v in (1 << 32, 1 << 64, -1):
            for args in ((v, 0, 0), (0, v, 0), (0, 0, v)):
                with self.subTest(args=args):
                    with self.assertRaises((OverflowError, ValueError)):
                        offload.check_version(*args)
        self.assertTrue(offload.check_version(0, 0, 0))
        self.assertFalse(offload.check_version((1 << 32) - 1, 0, 0))
        with self.assertRaises(TypeError):
            offload.check_version("0", 0)

    def test_backend_names(self):
        # The registry in probe order (offload/core.h: cpu first, dmaengine, the
        # direct drivers, then the other kernel interfaces), each known to
        # backend_status().
        names = offload.backend_names()
        self.assertEqual(names[0], "cpu")
        order = ["cpu", "dmaengine", "udma", "eip97", "dspi", "kcapi", "spidev"]
        self.assertEqual(names, [n for n in order if n in names])
        self.assertEqual(len(set(names)), len(names))
        # The CPU copies; its ciphers and hashes are OpenSSL's, when built with it.
        self.assertIn(offload.backend_caps("cpu"),
                      (offload.Cap.MEMCPY, offload.Cap.MEMCPY | offload.Cap.CIPHER | offload.Cap.HASH))
        if "kcapi" in names:
            self.assertEqual(offload.backend_caps("kcapi"), offload.Cap.CIPHER | offload.Cap.HASH)
        if "udma" in names:
            self.assertEqual(offload.backend_caps("udma"), offload.Cap.MEMCPY)
        with self.assertRaises(offload.NotFound):
            offload.backend_caps("warp-drive")
        with self.assertRaises(TypeError):
            offload.backend_caps(0)
        with offload.Context(source=offload.DtSource.NONE, no_env=True) as ctx:
            for n in names:
                self.assertTrue(ctx.backend_status(n).built, n)

    def test_strerror(self):
        # The texts of offload_strerror() documented in core.h.
        self.assertEqual(offload.strerror(-errno.EBADMSG), "authentication tag mismatch")
        self.assertEqual(offload.strerror(errno.ENOSPC), "queue full")
        self.assertEqual(offload.strerror(0), "success")
        with self.assertRaises(offload.InvalidArgument):
            offload.strerror(1 << 40)
        with self.assertRaises(TypeError):
            offload.strerror("EINVAL")

    def test_constants_match_the_headers(self):
        core = header_defines("core.h", "OFFLOAD_")
        self.assertEqual(offload.DEV_AUTO, -1)
        self.assertEqual(core["OFFLOAD_DEV_AUTO"], "(-1)")
        crypto = header_defines("crypto.h", "OFFLOAD_")
        self.assertEqual(offload.GCM_TAG_MAX, int(crypto["OFFLOAD_GCM_TAG_MAX"]))
        self.assertEqual(offload.HASH_MAX_DIGEST, int(crypto["OFFLOAD_HASH_MAX_DIGEST"]))
        spi = header_defines("spi.h", "OFFLOAD_")
        self.assertEqual(offload.SPI_MAX_XFERS, int(spi["OFFLOAD_SPI_MAX_XFERS"]))

    def test_enums_match_the_headers(self):
        cases = [
            (offload.DtSource, "core.h", "offload_dt_source", "OFFLOAD_DT_"),
            (offload.CacheMode, "core.h", "offload_cache_mode", "OFFLOAD_CACHE_"),
            (offload.CipherAlg, "crypto.h", "offload_cipher_alg", "OFFLOAD_CIPHER_"),
            (offload.HashAlg, "crypto.h", "offload_hash_alg", "OFFLOAD_HASH_"),
            (offload.DmaDir, "buf.h", "offload_dma_dir", "OFFLOAD_DMA_"),
        ]
        for cls, hdr, enum, prefix in cases:
            with self.subTest(cls=cls.__name__):
                want = {k[len(prefix):]: v for k, v in header_enum(hdr, enum).items()}
                self.assertEqual({m.name: m.value for m in cls}, want)
                self.assertTrue(cls.__doc__)
                self.assertEqual(cls.__module__, "offload")

    def test_flags_match_the_headers(self):
        def bits(hdr, prefix):
            out = {}
            for k, v in header_defines(hdr, prefix).items():
                m = re.fullmatch(r"\(1u << (\d+)\)", v) or re.fullmatch(r"(0x[0-9a-f]+)u", v)
                if m:
                    x = m.group(1)
                    out[k[len(prefix):]] = int(x, 16) if x.startswith("0x") else 1 << int(x)
            return out

        self.assertEqual({m.name: m.value for m in offload.Cap}, bits("core.h", "OFFLOAD_CAP_"))
        self.assertEqual({m.name: m.value for m in offload.DevFlag}, bits("core.h", "OFFLOAD_DEVF_"))
        self.assertEqual({m.name: m.value for m in offload.ResFlag}, bits("core.h", "OFFLOAD_RES_"))
        spi = bits("spi.h", "OFFLOAD_SPI_")
        spi["THREE_WIRE"] = spi.pop("3WIRE")
        for k in ("OPEN_NO_CS_HOLD",):
            spi.pop(k)
        spi["MODE_0"] = 0
        spi.update(MODE_1=spi["CPHA"], MODE_2=spi["CPOL"], MODE_3=spi["CPHA"] | spi["CPOL"])
        self.assertEqual({n: getattr(offload.SpiMode, n).value for n in spi}, spi)

    def test_exception_hierarchy(self):
        table = {
            offload.InvalidArgument: (errno.EINVAL, ValueError),
            offload.NoDevice: (errno.ENODEV, None),
            offload.NotSupported: (errno.ENOTSUP, None),
            offload.Timeout: (errno.ETIMEDOUT, TimeoutError),
            offload.EngineError: (errno.EIO, None),
            offload.TagMismatch: (errno.EBADMSG, None),
            offload.Closed: (errno.EBADF, None),
            offload.Busy: (errno.EBUSY, None),
            offload.QueueFull: (errno.ENOSPC, None),
            offload.MessageTooLong: (errno.EMSGSIZE, None),
            offload.NotFound: (errno.ENOENT, FileNotFoundError),
            offload.PermissionDenied: (errno.EACCES, PermissionError),
        }
        self.assertTrue(issubclass(offload.Error, OSError))
        for cls, (_, extra) in table.items():
            self.assertTrue(issubclass(cls, offload.Error), cls)
            if extra:
                self.assertTrue(issubclass(cls, extra), cls)
            self.assertTrue(cls.__doc__)

    def test_errors_carry_errno_and_the_library_message(self):
        with self.assertRaises(offload.InvalidArgument) as cm:
            open_ctx(backends="cpu,warp-drive")
        e = cm.exception
        self.assertEqual(e.errno, errno.EINVAL)
        # The library names the unknown backend (context.c check_allow_list).
        self.assertIn("unknown backend 'warp-drive'", e.strerror)
        self.assertIn("warp-drive", str(e))
        self.assertIn("warp-drive", offload.last_error())

    def test_names(self):
        A, H = offload.CipherAlg, offload.HashAlg
        # OpenSSL's names, as documented in crypto.h.
        self.assertEqual(offload.cipher_name(A.AES_CBC, 16), "AES-128-CBC")
        self.assertEqual(offload.cipher_name(A.AES_GCM, 32), "AES-256-GCM")
        self.assertEqual(offload.cipher_name(A.DES3_CBC, 24), "DES-EDE3-CBC")
        self.assertIsNone(offload.cipher_name(A.AES_CBC, 15))
        self.assertIsNone(offload.cipher_name(A.AES_CBC, -1))
        self.assertIsNone(offload.cipher_name(99, 16))
        self.assertEqual(offload.hash_name(H.SHA256), "SHA256")
        self.assertEqual(offload.hash_name(H.HMAC_SHA256), "HMAC-SHA256")
        self.assertIsNone(offload.hash_name(7))
        import hashlib
        for alg, name in [(H.MD5, "md5"), (H.SHA1, "sha1"), (H.SHA224, "sha224"), (H.SHA256, "sha256"),
                          (H.SHA384, "sha384"), (H.SHA512, "sha512"), (H.HMAC_SHA512, "sha512")]:
            self.assertEqual(offload.hash_digest_size(alg), hashlib.new(name).digest_size)
        with self.assertRaises(offload.InvalidArgument):
            offload.hash_digest_size(7)
        with self.assertRaises(TypeError):
            offload.hash_digest_size("sha256")

    def test_every_public_function_is_bound(self):
        # Each function the public headers declare is called by the module's C
        # sources; three are reached through their *_dev form with DEV_AUTO,
        # which the headers define as the same policy choice, and so is
        # offload_memcpy_slowpath, the out-of-line half of offload_memcpy; a
        # deprecated one through its replacement.
        import glob
        declared = set()
        for hdr in glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "offload", "*.h")):
            with open(hdr) as f:
                declared |= set(re.findall(r"^[a-z][\w ]*?\**\b(offload_\w+)\(", f.read(), re.M))
        self.assertGreater(len(declared), 40)
        src = ""
        for c in glob.glob(os.path.join(os.path.dirname(__file__), "..", "src", "*.c")):
            with open(c) as f:
                src += f.read()
        via_dev = {"offload_memcpy": "offload_memcpy_dev",
                   "offload_memcpy_slowpath": "offload_memcpy_dev",
                   "offload_cipher_session_open": "offload_cipher_session_open_dev",
                   "offload_hash_open": "offload_hash_open_dev"}
        # Kept for 0.1 callers only; the module uses their replacements.
        deprecated = {"offload_ctx_flags"}
        for fn in sorted(declared - deprecated):
            with self.subTest(fn=fn):
                self.assertTrue(re.search(r"\b" + via_dev.get(fn, fn) + r"\(", src),
                                f"{fn} is not called by bindings/python/src")

    def test_docstrings_everywhere(self):
        for name in offload.__all__:
            obj = getattr(offload, name)
            if isinstance(obj, (int, str)):
                continue
            with self.subTest(name=name):
                self.assertTrue(getattr(obj, "__doc__", None), name)
            if isinstance(obj, type):
                for attr, v in vars(obj).items():
                    if attr.startswith("_") and attr not in ("__enter__", "__exit__"):
                        continue
                    if callable(v) or isinstance(v, (property,)) or type(v).__name__ in (
                            "getset_descriptor", "member_descriptor", "method_descriptor"):
                        with self.subTest(name=f"{name}.{attr}"):
                            self.assertTrue(getattr(v, "__doc__", None), f"{name}.{attr}")


class TestContext(unittest.TestCase):
    def test_no_device_tree(self):
        with open_ctx() as ctx:
            self.assertFalse(ctx.closed)
            self.assertEqual(ctx.dt_source, "none")
            self.assertGreaterEqual(ctx.device_count, 1)
            self.assertEqual(ctx.device_count, len(ctx.devices()))
            self.assertIn("devices=", repr(ctx))
        self.assertTrue(ctx.closed)
        self.assertEqual(repr(ctx), "<offload.Context closed>")

    def test_file_blob_and_pathlike(self):
        import pathlib
        p = shared_dtb("k3-am642-evm.dtb")
        with offload.Context(p, no_env=True) as ctx:
            self.assertEqual(ctx.dt_source, "file:" + p)
        with offload.Context(pathlib.Path(p), no_env=True) as ctx:
            self.assertEqual(ctx.dt_source, "file:" + p)
        with open(p, "rb") as f:
            blob = f.read()
        with offload.Context(blob, no_env=True) as ctx:
            self.assertEqual(ctx.dt_source, "blob")
        with offload.Context(memoryview(bytearray(blob)), source=offload.DtSource.BLOB, no_env=True) as ctx:
            self.assertEqual(ctx.dt_source, "blob")

    def test_open_errors(self):
        with self.assertRaises(offload.NotFound) as cm:
            offload.Context("/nonexistent/board.dtb", no_env=True)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertIsInstance(cm.exception, FileNotFoundError)
        with self.assertRaises(offload.InvalidArgument):
            offload.Context(b"\x00" * 64, no_env=True)  # not a flattened device tree
        with self.assertRaises(offload.InvalidArgument):
            offload.Context("/x.dtb", source=offload.DtSource.NONE, no_env=True)
        with self.assertRaises(offload.InvalidArgument):
            offload.Context(source=offload.DtSource.FILE, no_env=True)  # FILE without a path
        with self.assertRaises(offload.InvalidArgument):
            offload.Context(source=77, no_env=True)
        with self.assertRaises(TypeError):
            offload.Context(12345, no_env=True)
        with self.assertRaises(TypeError):
            offload.Context(backends=42, no_env=True)
        with self.assertRaises(TypeError):
            offload.Context(backends=["cpu", 3], no_env=True)
        with self.assertRaises(TypeError):
            offload.Context(bogus=1)

    def test_fifo_device_tree_is_refused_not_waited_for(self):
        # A FIFO whose writer never closes (`--dtb /dev/stdin` under a pipe):
        # refused at once with the kind named, never a read that blocks.
        import signal
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "board.dtb")
            os.mkfifo(path)
            writer = os.open(path, os.O_RDWR)
            old = signal.signal(signal.SIGALRM, signal.default_int_handler)
            signal.alarm(10)
            try:
                with self.assertRaises(offload.InvalidArgument) as cm:
                    offload.Context(path, no_env=True)
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)
                os.close(writer)
            self.assertIn("is a FIFO", str(cm.exception))

    def test_bool_options_take_only_bool(self):
        # sim='yes' or no_env='no' must not pass as a truth value.
        for kw in ("sim", "no_env", "sim_noncoherent"):
            for v in ("yes", "", 1, 0, None, 1.0):
                with self.subTest(kw=kw, v=v):
                    with self.assertRaises(TypeError) as cm:
                        offload.Context(**{kw: v})
                    self.assertIn(kw, str(cm.exception))

    def test_init_twice(self):
        with open_ctx() as ctx:
            with self.assertRaises(offload.Busy):
                ctx.__init__(source=offload.DtSource.NONE, no_env=True)

    def test_backends_allow_list(self):
        with open_ctx(backends=["cpu"]) as ctx:
            st = ctx.backend_status("cpu")
            self.assertEqual(tuple(st), ("cpu", True, True, ""))
            self.assertEqual((st.name, st.built, st.present, st.reason), ("cpu", True, True, ""))
            k = ctx.backend_status("kcapi")
            if k.built:
                self.assertFalse(k.present)
                self.assertIn("allow-list", k.reason)
        with open_ctx(backends="cpu") as ctx:
            self.assertTrue(ctx.backend_status("cpu").present)

    def test_allow_list_without_the_cpu(self):
        # Without the cpu backend there may be no device at all: every
        # operation then says NotSupported, with the allow-list in its message.
        with open_ctx(backends="spidev") as ctx:
            self.assertEqual(ctx.devices(), [d for d in ctx.devices() if d.backend != "cpu"])
            for call in (lambda: ctx.memcpy(bytearray(4), b"abcd"),
                         lambda: ctx.hash(offload.HashAlg.SHA256, b"abc"),
                         lambda: offload.Queue(ctx)):
                with self.assertRaises(offload.NotSupported) as cm:
                    call()
                self.assertEqual(cm.exception.errno, errno.ENOTSUP)
                self.assertIn("allow-list", cm.exception.strerror)

    def test_backend_status(self):
        with open_ctx() as ctx:
            for name in ("kcapi", "spidev", "udma", "dspi", "eip97"):
                st = ctx.backend_status(name)
                self.assertEqual(st.name, name)
                if not st.built:
                    self.assertEqual((st.present, st.reason), (False, ""))
                elif st.present:
                    self.assertEqual(st.reason, "")
                else:
                    self.assertNotEqual(st.reason, "")
            self.assertFalse(ctx.backend_status("no-such-backend").built)
            with self.assertRaises(TypeError):
                ctx.backend_status(1)

    def test_sim_attaches_models(self):
        # AM642's BCDMA: not drivable from user space under Linux, but with
        # sim=True a register-level model serves it and says so.
        path = shared_dtb("k3-am642-evm.dtb")
        with offload.Context(path, no_env=True) as ctx:
            if not ctx.backend_status("udma").built:
                self.skipTest("this build has no udma backend")
            try:  # the models and the built-in board come and go together (OFFLOAD_WITH_SIM)
                offload.Context(source=offload.DtSource.BUILTIN, no_env=True).close()
            except offload.NotSupported as e:
                self.skipTest(f"this build has no models: {e.strerror}")
            bcdma = ctx.device("ti,am64-dmss-bcdma")
            self.assertFalse(bcdma.usable)
            self.assertNotIn(offload.DevFlag.SIM, bcdma.flags)
            self.assertNotEqual(bcdma.usable_reason, "")
        for ctx in (offload.Context(path, sim=True, no_env=True),
                    self.with_env("OFFLOAD_SIM", "1", lambda: offload.Context(path))):
            with ctx:
                bcdma = ctx.device("ti,am64-dmss-bcdma")
                self.assertTrue(bcdma.usable, bcdma.usable_reason)
                self.assertEqual(bcdma.backend, "udma")
                self.assertIn(offload.DevFlag.SIM, bcdma.flags)
                self.assertIn("sim", bcdma.usable_reason)
        with self.with_env("OFFLOAD_SIM", "1", lambda: offload.Context(path, no_env=True)) as ctx:
            self.assertFalse(ctx.device("ti,am64-dmss-bcdma").usable)

    def test_builtin_board(self):
        try:
            ctx = offload.Context(source=offload.DtSource.BUILTIN, no_env=True)
        except offload.NotSupported as e:
            self.skipTest(f"no built-in virtual board in this build: {e.strerror}")
        with ctx:
            self.assertEqual(ctx.dt_source, "builtin:virtual-board")
            sims = [d for d in ctx.devices() if offload.DevFlag.SIM in d.flags]
            self.assertTrue(sims)
            for d in sims:
                self.assertTrue(d.dt_path)
        with offload.Context(source=offload.DtSource.BUILTIN, no_env=True, sim_noncoherent=True) as ctx:
            for d in ctx.devices():
                if offload.DevFlag.SIM in d.flags and offload.Cap.MEMCPY in d.caps:
                    self.assertEqual(d.cache_mode, offload.CacheMode.STREAMING)
                    self.assertIn("NONCOHERENT", d.cache_reason)

    def test_automatic(self):
        # usable says a backend serves a device; automatic says whether calls without
        # a device (dev=None) may go to it: not so for a model that stands in only
        # because no device tree was given or live (DevFlag.AUTO clear).
        try:
            ctx = offload.Context(source=offload.DtSource.BUILTIN, no_env=True)
        except offload.NotSupported as e:
            self.skipTest(f"no built-in virtual board in this build: {e.strerror}")
        with ctx:  # the board asked for: its models serve automatic calls
            for d in ctx.devices():
                self.assertEqual(d.automatic, d.usable, d)
                self.assertEqual(offload.DevFlag.AUTO in d.flags, d.automatic)
        with open_ctx() as ctx:
            self.assertTrue(ctx.device("cpu").automatic)
        if os.access("/sys/firmware/fdt", os.R_OK):
            return  # this machine has a device tree: no fallback to the virtual board
        with offload.Context(no_env=True) as ctx:
            self.assertTrue(ctx.flags & 8)  # OFFLOAD_CTX_DT_FALLBACK: the virtual board stands in
            sims = [d for d in ctx.devices() if offload.DevFlag.SIM in d.flags]
            self.assertTrue(sims)
            for d in sims:
                self.assertTrue(d.usable, d.usable_reason)
                self.assertFalse(d.automatic, d)
            self.assertTrue(ctx.device("cpu").automatic)
        with offload.Context(sim=True, no_env=True) as ctx:
            for d in ctx.devices():
                if offload.DevFlag.SIM in d.flags:
                    self.assertTrue(d.automatic, d)

    @staticmethod
    def with_env(name, value, fn):
        old = os.environ.get(name)
        os.environ[name] = value
        try:
            return fn()
        finally:
            if old is None:
                del os.environ[name]
            else:
                os.environ[name] = old

    def test_environment_overrides_unless_no_env(self):
        old = os.environ.get("OFFLOAD_BACKENDS")
        os.environ["OFFLOAD_BACKENDS"] = "warp-drive"
        try:
            with self.assertRaises(offload.InvalidArgument):
                offload.Context(source=offload.DtSource.NONE)
            with offload.Context(source=offload.DtSource.NONE, no_env=True):
                pass
        finally:
            if old is None:
                del os.environ["OFFLOAD_BACKENDS"]
            else:
                os.environ["OFFLOAD_BACKENDS"] = old

    def test_closed_context_raises_everywhere(self):
        ctx = open_ctx()
        ctx.close()
        ctx.close()  # closing twice does nothing
        buf = bytearray(4)
        calls = [
            lambda: ctx.devices(),
            lambda: ctx.device(0),
            lambda: ctx.find("cpu"),
            lambda: ctx.backend_status("cpu"),
            lambda: ctx.memcpy(buf, b"abcd"),
            lambda: ctx.cipher(offload.CipherAlg.AES_ECB, bytes(16), None, bytes(16)),
            lambda: ctx.hash(offload.HashAlg.SHA256, b"abc"),
            lambda: ctx.dt_source,
            lambda: ctx.device_count,
            lambda: ctx.__enter__(),
            lambda: offload.Queue(ctx),
            lambda: offload.Buffer(ctx, 64),
            lambda: offload.CipherSession(ctx, offload.CipherAlg.AES_ECB, bytes(16)),
            lambda: offload.HashSession(ctx, offload.HashAlg.SHA256),
            lambda: offload.Spi(ctx, "/dev/spidev0.0"),
        ]
        for i, call in enumerate(calls):
            with self.subTest(call=i):
                with self.assertRaises(offload.Closed) as cm:
                    call()
                self.assertEqual(cm.exception.errno, errno.EBADF)
        self.assertEqual(ctx.last_error(), "")

    def test_close_closes_children_first(self):
        ctx = open_ctx()
        q = offload.Queue(ctx, depth=4)
        children = [q]
        if crypto_missing() is None:  # sessions too when there is a crypto backend
            hs = offload.HashSession(ctx, offload.HashAlg.SHA256)
            cs = offload.CipherSession(ctx, offload.CipherAlg.AES_CBC, bytes(16))
            self.assertIs(hs.context, ctx)
            children += [hs, cs]
        dst = bytearray(8)
        q.copy(dst, b"12345678", user_data="job")
        self.assertIs(q.context, ctx)
        ctx.close()  # the library would say EBUSY; the binding closes them first
        for o in children:
            self.assertTrue(o.closed, o)
        with self.assertRaises(offload.Closed):
            q.submit()
        if len(children) > 1:
            with self.assertRaises(offload.Closed):
                hs.update(b"x")
            with self.assertRaises(offload.Closed):
                cs.run(bytes(16), bytes(16))
        dst.extend(b"!")  # the queue's hold on dst was released

    def test_context_outlives_its_last_reference_while_children_live(self):
        q = offload.Queue(open_ctx(), depth=2)
        ref = weakref.ref(q.context)
        gc.collect()
        self.assertIsNotNone(ref())
        a = bytearray(3)
        q.copy(a, b"abc")
        q.submit()
        self.assertEqual([c.status for c in q.wait(timeout=10)], [0])
        self.assertEqual(a, b"abc")
        del q
        gc.collect()
        self.assertIsNone(ref())


def dts_nodes(text):
    """{path: {property: [strings]}} for the string properties of dtc's output."""
    nodes, stack = {}, []
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"^(?:[\w-]+: )?([\w,.@+-]+|/) \{$", line)
        if m:
            stack.append(m.group(1))
            path = "/" + "/".join(stack[1:])
            nodes[path] = {}
        elif line == "};":
            stack.pop()
        elif stack:
            m = re.match(r'^([\w,.#+-]+) = (".*");$', line)
            if m:
                # dtc writes some string lists as one string with \0 inside.
                strings = [x for q in re.findall(r'"([^"]*)"', m.group(2)) for x in q.split("\\0")]
                nodes["/" + "/".join(stack[1:])][m.group(1)] = strings
    return nodes


class TestDevices(unittest.TestCase):
    # The fields of struct offload_dev_info, read from core.h (independent of the binding).
    BODY = re.search(r"struct offload_dev_info \{(.*?)\n\};", header_text("core.h"), re.S).group(1)
    FIELDS = re.findall(r"^\t(?:const char \*|int |uint32_t |uint64_t |enum offload_cache_mode )(\w+)(?:\[\d+\])?;",
                        BODY, re.M)

    def test_fields(self):
        self.assertEqual(len(self.FIELDS), len(re.findall(r"^\t[^/\s*].*;$", self.BODY, re.M)))
        with open_ctx() as ctx:
            for d in ctx.devices():
                self.assertEqual(list(d.as_dict()), self.FIELDS)
                for f in self.FIELDS:
                    self.assertEqual(getattr(d, f), d.as_dict()[f])
                    with self.assertRaises(AttributeError):
                        setattr(d, f, 0)
                self.assertIsInstance(d.caps, offload.Cap)
                self.assertIsInstance(d.flags, offload.DevFlag)
                self.assertIsInstance(d.cache_mode, offload.CacheMode)
                self.assertIsInstance(d.coherent, bool)
                self.assertEqual(d.usable, offload.DevFlag.USABLE in d.flags)
                for f in self.FIELDS:
                    if f.endswith("_reason"):
                        self.assertIsInstance(getattr(d, f), str)
            devs = ctx.devices()
        self.assertEqual(devs[0].index, 0)  # snapshots outlive the context

    def test_cpu_device(self):
        with open_ctx() as ctx:
            i = ctx.find("cpu")
            d = ctx.device("cpu")
            self.assertEqual(d.index, i)
            self.assertEqual(ctx.device(i).name, "cpu")
            self.assertEqual(ctx.device(d).name, "cpu")
            self.assertEqual((d.kind, d.backend, d.status, d.dt_path), ("cpu", "cpu", "okay", ""))
            self.assertIn(offload.DevFlag.CPU, d.flags)
            self.assertIn(offload.DevFlag.USABLE, d.flags)
            self.assertIn(offload.Cap.MEMCPY, d.caps)
            self.assertTrue(d.usable)
            self.assertTrue(d.coherent)
            self.assertEqual(d.cache_mode, offload.CacheMode.COHERENT)
            self.assertEqual(d.threshold_bytes, 0)
            self.assertIn("DeviceInfo(index=", repr(d))

    def test_real_boards_against_dtc(self):
        # Every device discovered in a real board's tree names a node that
        # dtc shows with that compatible and status (an independent reader).
        import shutil
        import subprocess
        if not shutil.which("dtc"):
            self.skipTest("dtc is not installed (device-tree-compiler)")
        for board in ("k3-am642-evm.dtb", "fsl-ls1028a-rdb.dtb"):
            path = shared_dtb(board)
            nodes = dts_nodes(subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", path], check=True,
                                             capture_output=True, text=True).stdout)
            with offload.Context(path, no_env=True) as ctx:
                found = [d for d in ctx.devices() if d.dt_path]
                self.assertTrue(found, board)
                for d in found:
                    with self.subTest(board=board, dev=d.name):
                        props = nodes[d.dt_path]
                        self.assertEqual(d.name, d.dt_path.rsplit("/", 1)[1])
                        self.assertIn(d.compatible, props.get("compatible", []))
                        self.assertEqual(d.status, (props.get("status") or ["okay"])[0])
                        self.assertEqual(offload.DevFlag.ENABLED in d.flags, d.status in ("okay", "ok"))
                        self.assertEqual(d.index, ctx.find(d.dt_path))

    def test_dev_stats(self):
        want = re.findall(r"^\tuint64_t (\w+);", re.search(r"struct offload_dev_stats \{(.*?)\n\};",
                                                          header_text("core.h"), re.S).group(1), re.M)
        with open_ctx() as ctx:
            st = ctx.dev_stats("cpu")
            self.assertIsInstance(st, offload.DevStats)
            if sys.version_info >= (3, 10):  # structseq field names in order
                self.assertEqual(list(offload.DevStats.__match_args__), want)
            self.assertEqual(len(st), len(want))
            self.assertEqual((st.cache_clean_calls, st.bytes), (0, 0))  # the CPU does no DMA
            ctx.dev_stats_reset(ctx.device("cpu"))
            self.assertEqual(tuple(ctx.dev_stats(ctx.find("cpu"))), (0,) * len(want))
            for bad in (ctx.device_count, "no-such-device"):
                with self.assertRaises(offload.NoDevice):
                    ctx.dev_stats(bad)
                with self.assertRaises(offload.NoDevice):
                    ctx.dev_stats_reset(bad)
            with self.assertRaises(offload.NoDevice):
                ctx.dev_stats(offload.DEV_AUTO)
            with self.assertRaises(TypeError):
                ctx.dev_stats(None)
        with self.assertRaises(offload.Closed):
            ctx.dev_stats("cpu")

    def test_lookup_errors(self):
        with open_ctx() as ctx:
            n = ctx.device_count
            with self.assertRaises(offload.NoDevice) as cm:
                ctx.device(n)
            self.assertEqual(cm.exception.errno, errno.ENODEV)
            with self.assertRaises(offload.NoDevice):
                ctx.device("no-such-device")
            with self.assertRaises(offload.NoDevice):
                ctx.find("no-such-device")
            with self.assertRaises(offload.NoDevice):
                ctx.device(-1)
            with self.assertRaises(offload.InvalidArgument):
                ctx.device(-2)
            with self.assertRaises(TypeError):
                ctx.device(None)
            with self.assertRaises(TypeError):
                ctx.device(1.5)
            with self.assertRaises(TypeError):
                ctx.find(0)


class TestThreads(unittest.TestCase):
    def test_concurrent_calls_on_one_context(self):
        errors = []
        hashes = crypto_missing() is None  # without a crypto backend: the copies alone
        with open_ctx() as ctx:
            def work(seed):
                try:
                    src = bytes((seed + i) & 0xFF for i in range(1 << 16))
                    dst = bytearray(len(src))
                    for _ in range(20):
                        ctx.memcpy(dst, src)
                        if dst != src:
                            errors.append("bad copy")
                        if hashes:
                            ctx.hash(offload.HashAlg.SHA256, src)
                except Exception as e:  # report in the main thread
                    errors.append(repr(e))
            ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        self.assertEqual(errors, [])

    def test_close_while_another_thread_is_inside_a_call(self):
        # close() must refuse (Busy) while a call runs without the GIL; the
        # call then ends normally, or starts after the close and says Closed.
        src = bytes(32 << 20)
        dst = bytearray(len(src))
        for _ in range(5):
            ctx = open_ctx()
            outcome = []

            def work():
                try:
                    outcome.append(ctx.memcpy(dst, src).backend)
                except offload.Closed:
                    outcome.append("closed")
            t = threading.Thread(target=work)
            t.start()
            busy = 0
            while True:
                try:
                    ctx.close()
                    break
                except offload.Busy as e:
                    self.assertEqual(e.errno, errno.EBUSY)
                    busy += 1
            t.join()
            self.assertEqual(len(outcome), 1)
            self.assertIn(outcome[0], ("cpu", "closed"))


if __name__ == "__main__":
    unittest.main()
