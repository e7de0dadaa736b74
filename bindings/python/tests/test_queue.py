# SPDX-License-Identifier: MIT
"""offload.Queue: enqueue/submit/reap, buffers held until reaped, bad input."""
import errno
import gc
import sys
import unittest
import weakref

import offload
from support import gil_released_during, needs_numpy, numpy, open_ctx


def pattern(n, seed=3):
    return bytes((i * 13 + seed) & 0xFF for i in range(n))


class Token:
    """A user_data object whose lifetime the tests watch."""


class TestQueue(unittest.TestCase):
    def setUp(self):
        self.ctx = open_ctx()

    def tearDown(self):
        self.ctx.close()

    def test_open(self):
        with offload.Queue(self.ctx) as q:
            self.assertEqual(q.depth, 256)  # the default of offload_queue_opts_init()
            self.assertEqual(q.capacity, 256)
            self.assertEqual(q.dev, self.ctx.find("cpu"))
            self.assertEqual(q.outstanding, 0)
            self.assertFalse(q.closed)
            self.assertIn("depth=256", repr(q))
        self.assertTrue(q.closed)
        self.assertEqual(repr(q), "<offload.Queue closed>")
        for dev in ("cpu", self.ctx.device("cpu"), 0, None):
            with offload.Queue(self.ctx, depth=2, dev=dev) as q:
                self.assertEqual(q.dev, self.ctx.find("cpu"))

    def test_open_errors(self):
        for depth in (0, 1, 3, 100, 131072):
            with self.subTest(depth=depth):
                with self.assertRaises(offload.InvalidArgument) as cm:
                    offload.Queue(self.ctx, depth=depth)
                self.assertIn("power of two", cm.exception.strerror)
        for depth in (-1, 1 << 40):
            with self.assertRaises(offload.InvalidArgument):
                offload.Queue(self.ctx, depth=depth)
        with self.assertRaises(TypeError):
            offload.Queue(self.ctx, depth=4.0)
        with self.assertRaises(offload.NoDevice):
            offload.Queue(self.ctx, dev=self.ctx.device_count)
        with self.assertRaises(TypeError):
            offload.Queue("not a context")
        q = offload.Queue(self.ctx, depth=2)
        with self.assertRaises(offload.Busy):
            q.__init__(self.ctx)
        q.close()

    def test_copy_submit_wait(self):
        q = offload.Queue(self.ctx, depth=8)
        srcs = [pattern(1000 + k, k) for k in range(5)]
        dsts = [bytearray(len(s)) for s in srcs]
        tokens = [Token() for _ in srcs]
        jobs = [q.copy(d, s, user_data=t) for d, s, t in zip(dsts, srcs, tokens)]
        self.assertEqual(jobs, list(range(jobs[0], jobs[0] + 5)))  # increasing by one
        self.assertEqual(q.outstanding, 5)
        self.assertEqual(q.capacity, 3)
        self.assertEqual(dsts[0], bytes(1000))  # nothing starts before submit
        self.assertEqual(q.submit(), 5)
        self.assertEqual(q.submit(), 0)
        got = []
        while len(got) < 5:
            got += q.wait(timeout=10, max=2)
        self.assertEqual([c.job for c in got], jobs)  # enqueue order
        self.assertEqual([c.user_data for c in got], tokens)
        for c in got:
            self.assertIsInstance(c, offload.Completion)
            self.assertEqual(c.status, 0)
            self.assertEqual(c.dev, q.dev)
            self.assertIn(offload.ResFlag.CPU, c.flags)
        self.assertEqual(dsts, srcs)
        self.assertEqual(q.outstanding, 0)
        self.assertEqual(q.capacity, 8)
        self.assertEqual(q.poll(), [])
        q.close()

    def test_poll(self):
        with offload.Queue(self.ctx, depth=4) as q:
            d = bytearray(10)
            j = q.copy(d, pattern(10))
            self.assertEqual(q.poll(), [])  # not submitted yet
            q.submit()
            got = []
            for _ in range(1000):
                got = q.poll()
                if got:
                    break
            self.assertEqual([(c.job, c.status, c.user_data) for c in got], [(j, 0, None)])
            self.assertEqual(d, pattern(10))

    def test_buffers_are_held_until_reaped(self):
        with offload.Queue(self.ctx, depth=4) as q:
            dst = bytearray(32)
            src = bytearray(pattern(32))
            q.copy(dst, src)
            for b in (dst, src):
                with self.assertRaises(BufferError):
                    b.extend(b"x")  # exported: cannot move under the job
            q.submit()
            q.wait(timeout=10)
            dst.extend(b"x")
            src.extend(b"x")
            self.assertEqual(dst[:32], pattern(32))

    def test_user_data_released(self):
        with offload.Queue(self.ctx, depth=4) as q:
            t = Token()
            r = weakref.ref(t)
            q.copy(bytearray(4), b"abcd", user_data=t)
            del t
            self.assertIsNotNone(r())
            q.submit()
            c = q.wait(timeout=10)
            self.assertIs(c[0].user_data, r())
            del c
            self.assertIsNone(r())
        # Jobs never reaped are dropped by close().
        q = offload.Queue(self.ctx, depth=4)
        t = Token()
        r = weakref.ref(t)
        dst = bytearray(4)
        q.copy(dst, b"abcd", user_data=t)
        del t
        q.close()
        self.assertIsNone(r())
        dst.extend(b"!")

    def test_queue_full(self):
        with offload.Queue(self.ctx, depth=4) as q:
            bufs = [bytearray(8) for _ in range(4)]
            for b in bufs:
                q.copy(b, pattern(8))
            self.assertEqual(q.capacity, 0)
            extra = bytearray(8)
            with self.assertRaises(offload.QueueFull) as cm:
                q.copy(extra, pattern(8))
            self.assertEqual(cm.exception.errno, errno.ENOSPC)
            self.assertIn("queue full", cm.exception.strerror)
            extra.extend(b"x")  # not held by the refused job
            q.submit()
            self.assertEqual(len(q.wait(timeout=10)), 4)
            q.copy(extra, pattern(9))  # room again
            q.submit()
            q.wait(timeout=10)
            self.assertEqual(extra, pattern(9))

    def test_wait_with_nothing_submitted(self):
        with offload.Queue(self.ctx, depth=4) as q:
            with self.assertRaises(offload.InvalidArgument) as cm:
                q.wait(timeout=0)
            self.assertIn("no submitted job", cm.exception.strerror)
            q.copy(bytearray(1), b"x")
            with self.assertRaises(offload.InvalidArgument):
                q.wait()  # enqueued but not submitted: waiting could never succeed

    def test_argument_errors(self):
        with offload.Queue(self.ctx, depth=4) as q:
            with self.assertRaises(TypeError):
                q.copy(b"read-only", b"123456789")
            with self.assertRaises(offload.InvalidArgument) as cm:
                q.copy(bytearray(5), b"123456")
            self.assertIn("5 bytes", str(cm.exception))
            with self.assertRaises(offload.InvalidArgument) as cm:
                q.copy(bytearray(), b"")
            self.assertIn("len is 0", cm.exception.strerror)
            with self.assertRaises(BufferError):
                q.copy(memoryview(bytearray(8))[::2], b"1234")
            buf = bytearray(16)
            with self.assertRaises(offload.InvalidArgument) as cm:
                q.copy(memoryview(buf)[4:12], memoryview(buf)[0:8])
            self.assertIn("overlaps", cm.exception.strerror)
            with self.assertRaises(TypeError):
                q.copy(bytearray(4), "abcd")
            self.assertEqual(q.outstanding, 0)
            buf.extend(b"x")  # refused jobs hold nothing
            for bad in (0, q.depth + 1, -1):
                with self.assertRaises(offload.InvalidArgument):
                    q.poll(max=bad)
                with self.assertRaises(offload.InvalidArgument):
                    q.wait(max=bad)
            for bad in (-1, float("nan"), 1e12):
                with self.assertRaises(offload.InvalidArgument):
                    q.wait(timeout=bad)
            with self.assertRaises(TypeError):
                q.wait(timeout="1")

    def test_max_range_in_messages(self):
        # Every refused max names the same, right range: 1..depth.
        with offload.Queue(self.ctx, depth=2) as q:
            for bad in (0, -1, 3, 1 << 70, -(1 << 70)):
                for call in (q.poll, q.wait):
                    with self.subTest(bad=bad, call=call.__name__):
                        with self.assertRaises(offload.InvalidArgument) as cm:
                            call(max=bad)
                        self.assertIn("max must be in 1..2", cm.exception.strerror)

    def test_closed_queue(self):
        q = offload.Queue(self.ctx, depth=2)
        q.close()
        q.close()
        for call in (lambda: q.copy(bytearray(1), b"x"), q.submit, q.poll, q.wait,
                     lambda: q.capacity, lambda: q.dev, q.__enter__):
            with self.assertRaises(offload.Closed):
                call()
        self.assertEqual(q.depth, 2)

    def test_reference_cycle_is_collected(self):
        q = offload.Queue(self.ctx, depth=2)
        dst = bytearray(4)
        q.copy(dst, b"abcd", user_data=q)  # the queue holds itself through user_data
        r = weakref.ref(q)
        del q
        gc.collect()
        self.assertIsNone(r())
        dst.extend(b"x")  # the collected queue released its jobs' buffers

    def test_gil_released(self):
        q = offload.Queue(self.ctx, depth=2)
        src = bytes(8 << 20)
        dst = bytearray(len(src))

        def one():
            q.copy(dst, src)
            q.submit()  # the CPU queue copies here
            q.wait(timeout=10)
        self.assertTrue(gil_released_during(one))
        q.close()

    @needs_numpy
    def test_numpy(self):
        with offload.Queue(self.ctx, depth=4) as q:
            src = numpy.arange(4096, dtype=numpy.float32).reshape(64, 64)
            dst = numpy.zeros_like(src)
            q.copy(dst, src, user_data="np")
            q.submit()
            self.assertEqual(q.wait(timeout=10)[0].user_data, "np")
            self.assertTrue(numpy.array_equal(dst, src))
            with self.assertRaises(BufferError):
                q.copy(numpy.zeros(32, dtype=numpy.float32), src[::2, 0])  # strided column


class TestSimulatedEngine(unittest.TestCase):
    """A queue on the virtual board's simulated DMA engine, where jobs really
    run after submit() rather than inside it."""

    def setUp(self):
        try:
            self.ctx = offload.Context(source=offload.DtSource.BUILTIN, no_env=True)
        except offload.NotSupported as e:
            self.skipTest(f"no built-in virtual board in this build: {e.strerror}")
        self.dev = next((d for d in self.ctx.devices() if d.usable and offload.DevFlag.SIM in d.flags
                         and offload.Cap.MEMCPY in d.caps), None)
        if self.dev is None:
            self.ctx.close()
            self.skipTest("the virtual board has no usable simulated memcpy engine in this build")

    def tearDown(self):
        self.ctx.close()

    def test_jobs_on_the_engine(self):
        with offload.Queue(self.ctx, depth=8, dev=self.dev) as q:
            self.assertEqual(q.dev, self.dev.index)
            srcs = [pattern(65536, k) for k in range(4)]
            dsts = [bytearray(65536) for _ in srcs]
            for k, (d, s) in enumerate(zip(dsts, srcs)):
                q.copy(d, s, user_data=k)
            self.assertEqual(q.submit(), 4)
            with self.assertRaises(BufferError):
                dsts[3].extend(b"x")  # held while the engine may still write it
            got = []
            while len(got) < 4:
                got += q.wait(timeout=30)
            self.assertEqual([c.user_data for c in got], [0, 1, 2, 3])
            for c in got:
                self.assertEqual((c.status, c.dev), (0, self.dev.index))
                self.assertIn(offload.ResFlag.SIM, c.flags)
            self.assertEqual(dsts, srcs)
            dsts[3].extend(b"x")

    def test_close_waits_for_started_jobs(self):
        q = offload.Queue(self.ctx, depth=4, dev=self.dev)
        dst = bytearray(1 << 20)
        src = pattern(1 << 20)
        q.copy(dst, src, user_data="pending")
        q.submit()
        q.close()  # waits for the started job, then drops it
        self.assertEqual(dst, src)
        dst.extend(b"x")
        self.assertEqual(q.outstanding, 0)

    def test_wait_zero_polls_once(self):
        with offload.Queue(self.ctx, depth=2, dev=self.dev) as q:
            dst = bytearray(1 << 20)
            q.copy(dst, pattern(1 << 20))
            q.submit()
            try:
                got = q.wait(timeout=0)
            except offload.Timeout as e:  # not finished yet: the job stays queued
                self.assertEqual(e.errno, errno.ETIMEDOUT)
                self.assertIsInstance(e, TimeoutError)
                self.assertEqual(q.outstanding, 1)
                got = q.wait(timeout=30)
            self.assertEqual([c.status for c in got], [0])
            self.assertEqual(dst, pattern(1 << 20))


if __name__ == "__main__":
    unittest.main()
