# SPDX-License-Identifier: MIT
"""offload.Buffer: DMA buffers through the buffer protocol, their sync calls,
their lifetime rules, and zero-copy use by memcpy and the queue."""
import errno
import gc
import os
import unittest
import weakref

import offload
from support import assert_no_leak, needs_numpy, numpy, open_ctx


def cache_line():
    try:
        n = os.sysconf("SC_LEVEL1_DCACHE_LINESIZE")
    except (ValueError, OSError):
        return None
    return n if n and n > 0 else None


def sim_memcpy_device(ctx):
    """A usable simulated memcpy engine of the context, or None."""
    for d in ctx.devices():
        if d.usable and offload.DevFlag.SIM in d.flags and offload.Cap.MEMCPY in d.caps \
                and offload.DevFlag.CPU not in d.flags:
            return d
    return None


class TestBuffer(unittest.TestCase):
    def setUp(self):
        self.ctx = open_ctx()

    def tearDown(self):
        self.ctx.close()

    def test_plain_memory_for_the_cpu(self):
        with offload.Buffer(self.ctx, 100) as b:
            self.assertGreaterEqual(b.size, 100)
            self.assertEqual(len(b), b.size)
            line = cache_line()
            if line:  # rounded up to the cache line (buf.h)
                self.assertEqual(b.size % line, 0)
                self.assertLess(b.size, 100 + line)
                self.assertEqual(b.address % line, 0)
            self.assertEqual(b.cache_mode, offload.CacheMode.COHERENT)
            self.assertIsInstance(b.cache_mode, offload.CacheMode)
            self.assertEqual(b.bus_addr, 0)  # plain memory: no bus address (buf.h)
            self.assertIs(b.context, self.ctx)
            self.assertEqual(repr(b), f"<offload.Buffer size={b.size} bus_addr=0x0>")
            m = memoryview(b)
            self.assertEqual((m.nbytes, m.readonly, m.format, m.contiguous), (b.size, False, "B", True))
            m[:5] = b"hello"
            self.assertEqual(bytes(m[:5]), b"hello")
            # Same memory every time: the buffer protocol hands out the DMA memory itself.
            self.assertEqual(bytes(memoryview(b)[:5]), b"hello")
            m.release()
            self.assertFalse(b.closed)
        self.assertTrue(b.closed)
        self.assertEqual(repr(b), "<offload.Buffer closed>")
        self.assertEqual(len(b), 0)

    def test_devices(self):
        cpu = self.ctx.device("cpu")
        for dev in (None, cpu, "cpu", cpu.index, offload.DEV_AUTO):
            with offload.Buffer(self.ctx, 64, dev=dev) as b:
                self.assertGreaterEqual(b.size, 64)
        with offload.Buffer(self.ctx, 64, uncached=False):
            pass

    def test_bad_input(self):
        with self.assertRaises(offload.InvalidArgument) as cm:
            offload.Buffer(self.ctx, 0)
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(offload.InvalidArgument):
            offload.Buffer(self.ctx, -1)
        with self.assertRaises(offload.NoDevice):
            offload.Buffer(self.ctx, 64, dev=self.ctx.device_count)
        with self.assertRaises(TypeError):
            offload.Buffer(self.ctx, "64")
        with self.assertRaises(TypeError):
            offload.Buffer(None, 64)
        b = offload.Buffer(self.ctx, 64)
        with self.assertRaises(offload.Busy):
            b.__init__(self.ctx, 64)
        b.close()

    def test_uncached_takes_only_bool(self):
        for v in ("yes", "", 1, None):
            with self.subTest(v=v):
                with self.assertRaises(TypeError) as cm:
                    offload.Buffer(self.ctx, 64, uncached=v)
                self.assertIn("uncached", str(cm.exception))

    def test_sync(self):
        with offload.Buffer(self.ctx, 256) as b:
            D = offload.DmaDir
            b.sync_for_device()
            b.sync_for_cpu()
            b.sync_for_device(0, b.size, D.TO_DEVICE)
            b.sync_for_cpu(64, 64, D.FROM_DEVICE)
            b.sync_for_device(offset=128, dir=D.BIDIRECTIONAL)
            b.sync_for_cpu(b.size, 0)
            for call in (b.sync_for_device, b.sync_for_cpu):
                with self.assertRaises(offload.InvalidArgument) as cm:
                    call(0, b.size + 1)
                self.assertIn("outside", cm.exception.strerror)
                with self.assertRaises(offload.InvalidArgument):
                    call(b.size + 1)
                with self.assertRaises(offload.InvalidArgument):
                    call(0, 16, 0)  # not a direction
                with self.assertRaises(offload.InvalidArgument):
                    call(0, 16, 1 << 40)
                with self.assertRaises(offload.InvalidArgument):
                    call(-1)
                with self.assertRaises(offload.InvalidArgument):
                    call(0, -1)
                with self.assertRaises(TypeError):
                    call("0")

    def test_no_close_while_exported(self):
        b = offload.Buffer(self.ctx, 64)
        m = memoryview(b)
        with self.assertRaises(BufferError):
            b.close()
        with self.assertRaises(BufferError):
            self.ctx.close()  # the context stays open with the buffer
        self.assertFalse(self.ctx.closed)
        self.assertFalse(b.closed)
        m[0] = 7  # still valid memory
        m.release()
        self.ctx.close()
        self.assertTrue(b.closed)

    def test_closed_buffer(self):
        b = offload.Buffer(self.ctx, 64)
        b.close()
        b.close()
        with self.assertRaises(BufferError):
            memoryview(b)
        for call in (lambda: b.size, lambda: b.bus_addr, lambda: b.address, lambda: b.cache_mode,
                     b.sync_for_device, b.sync_for_cpu, b.__enter__):
            with self.assertRaises(offload.Closed):
                call()
        with self.assertRaises(BufferError) as cm:
            self.ctx.memcpy(b, bytes(64))
        self.assertIn("closed", str(cm.exception))

    def test_memcpy_and_queue(self):
        a = offload.Buffer(self.ctx, 4096)
        b = offload.Buffer(self.ctx, 4096)
        src = os.urandom(4096)
        memoryview(a)[:] = src
        r = self.ctx.memcpy(b, a)
        self.assertEqual(bytes(memoryview(b)), src)
        self.assertEqual(r.backend, "cpu")
        q = offload.Queue(self.ctx, depth=2)
        memoryview(b)[:] = bytes(4096)
        q.copy(b, a, user_data="buf")
        with self.assertRaises(BufferError):
            b.close()  # held by the queued job
        q.submit()
        self.assertEqual(q.wait(timeout=10)[0].user_data, "buf")
        self.assertEqual(bytes(memoryview(b)), src)
        q.close()
        a.close()
        b.close()

    def test_context_close_frees_buffers_after_queues(self):
        b = offload.Buffer(self.ctx, 64)
        q = offload.Queue(self.ctx, depth=2)
        q.copy(b, bytes(b.size))  # a job holding the buffer, never submitted
        self.ctx.close()  # the queue goes first and lets go of the buffer
        self.assertTrue(q.closed)
        self.assertTrue(b.closed)

    def test_lifetime(self):
        b = offload.Buffer(self.ctx, 64)
        r = weakref.ref(b)
        m = memoryview(b)
        del b
        gc.collect()
        self.assertIsNotNone(r())  # the memoryview keeps it alive
        m[0] = 1
        del m
        gc.collect()
        self.assertIsNone(r())

    def test_no_leaks(self):
        def cycle():
            with offload.Buffer(self.ctx, 256) as b:
                memoryview(b)[0] = 1
                b.sync_for_device()
                self.ctx.memcpy(b, bytes(b.size))
        assert_no_leak(self, cycle)
        assert_no_leak(self, lambda: offload.Buffer(self.ctx, 0))

    @needs_numpy
    def test_numpy_view(self):
        with offload.Buffer(self.ctx, 1024) as b:
            a = numpy.frombuffer(b, dtype=numpy.uint32)
            a[:] = numpy.arange(a.size, dtype=numpy.uint32)
            out = numpy.zeros_like(a)
            self.ctx.memcpy(out, b)
            self.assertTrue(numpy.array_equal(out, a))
            with self.assertRaises(BufferError):
                b.close()
            del a


class TestSimulatedDevice(unittest.TestCase):
    """On the built-in virtual board: buffers of a simulated DMA engine are used
    without bouncing, plain memory is bounced."""

    def setUp(self):
        try:
            self.ctx = offload.Context(source=offload.DtSource.BUILTIN, no_env=True)
        except offload.NotSupported as e:
            self.skipTest(f"no built-in virtual board in this build: {e.strerror}")
        self.dev = sim_memcpy_device(self.ctx)
        if self.dev is None:
            self.ctx.close()
            self.skipTest("the virtual board has no usable simulated memcpy engine in this build")

    def tearDown(self):
        self.ctx.close()

    def test_zero_copy_on_dma_buffers(self):
        n = max(4096, self.dev.threshold_bytes)
        with offload.Buffer(self.ctx, n, dev=self.dev) as a, offload.Buffer(self.ctx, n, dev=self.dev) as b:
            self.assertEqual(a.cache_mode, self.dev.cache_mode)
            self.assertNotEqual(a.bus_addr, 0)
            # the address in hex, as Python's format() writes it (repr once printed "0x%llx")
            self.assertEqual(repr(a), f"<offload.Buffer size={a.size} bus_addr={a.bus_addr:#x}>")
            src = os.urandom(a.size)
            memoryview(a)[:] = src
            a.sync_for_device()
            r = self.ctx.memcpy(b, a, dev=self.dev)
            b.sync_for_cpu()
            self.assertEqual(bytes(memoryview(b)), src)
            self.assertEqual(r.dev, self.dev.index)
            self.assertIn(offload.ResFlag.SIM, r.flags)
            self.assertNotIn(offload.ResFlag.BOUNCED, r.flags)
            self.ctx.dev_stats_reset(self.dev)
            self.ctx.memcpy(b, a, dev=self.dev)
            st = self.ctx.dev_stats(self.dev)
            self.assertEqual((st.jobs, st.bounced_bytes), (1, 0))
            self.assertEqual(st.bytes + st.cpu_bytes, a.size)
            # The same copy between plain Python buffers is bounced.
            dst = bytearray(a.size)
            r = self.ctx.memcpy(dst, src, dev=self.dev)
            self.assertEqual(dst, src)
            self.assertIn(offload.ResFlag.BOUNCED, r.flags)
            self.assertGreater(self.ctx.dev_stats(self.dev).bounced_bytes, 0)

    def test_sync_maintains_caches_on_a_noncoherent_device(self):
        # Emulated non-coherent memory: each sync call is one cache operation
        # on the range widened to whole lines (counted by dev_stats).
        with offload.Context(source=offload.DtSource.BUILTIN, no_env=True, sim_noncoherent=True) as ctx:
            dev = ctx.device(self.dev.index)
            self.assertEqual(dev.cache_mode, offload.CacheMode.STREAMING)
            with offload.Buffer(ctx, 1 << 16, dev=dev) as b:
                self.assertEqual(b.cache_mode, offload.CacheMode.STREAMING)
                ctx.dev_stats_reset(dev)
                b.sync_for_device(100, 1000, offload.DmaDir.TO_DEVICE)
                st = ctx.dev_stats(dev)
                self.assertEqual((st.cache_clean_calls, st.cache_inval_calls), (1, 0))
                self.assertGreaterEqual(st.cache_bytes, 1000)
                b.sync_for_cpu(0, 4096, offload.DmaDir.FROM_DEVICE)
                st = ctx.dev_stats(dev)
                self.assertEqual(st.cache_inval_calls, 1)
                self.assertGreaterEqual(st.cache_bytes, 1000 + 4096)
                # memcpy between its buffers does its own maintenance.
                with offload.Buffer(ctx, 1 << 16, dev=dev) as c:
                    memoryview(b)[:] = bytes(range(256)) * 256
                    ctx.dev_stats_reset(dev)
                    ctx.memcpy(c, b, dev=dev)
                    self.assertEqual(bytes(memoryview(c)), bytes(memoryview(b)))
                    st = ctx.dev_stats(dev)
                    self.assertGreaterEqual(st.cache_clean_calls, 2)
                    self.assertGreaterEqual(st.cache_inval_calls, 1)


if __name__ == "__main__":
    unittest.main()
