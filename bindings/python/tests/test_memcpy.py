# SPDX-License-Identifier: MIT
"""Context.memcpy on every kind of buffer, zero-copy, GIL released; bad input."""
import array
import ctypes
import errno
import mmap
import unittest

import offload
from support import gil_released_during, needs_numpy, numpy, open_ctx


def pattern(n, seed=1):
    return bytes((i * 7 + seed) & 0xFF for i in range(n))


class TestMemcpy(unittest.TestCase):
    def setUp(self):
        self.ctx = open_ctx()

    def tearDown(self):
        self.ctx.close()

    def check_result(self, r):
        self.assertIsInstance(r, offload.Result)
        cpu = self.ctx.device("cpu")
        self.assertEqual(r.dev, cpu.index)
        self.assertEqual(r.backend, "cpu")
        self.assertEqual(r.driver, "cpu-memcpy")
        self.assertEqual(r.flags, offload.ResFlag.CPU)
        self.assertEqual(tuple(r), (r.backend, r.driver, r.dev, r.flags))

    def test_bytearray_from_bytes(self):
        src = pattern(4096)
        dst = bytearray(4096)
        self.check_result(self.ctx.memcpy(dst, src))
        self.assertEqual(dst, src)

    def test_writes_in_place(self):
        # No copy on the way in or out: the bytes land in the caller's memory.
        dst = bytearray(64)
        view = memoryview(dst)[16:48]
        self.ctx.memcpy(view, pattern(32))
        self.assertEqual(dst[16:48], pattern(32))
        self.assertEqual(dst[:16], bytes(16))
        self.assertEqual(dst[48:], bytes(16))
        raw = (ctypes.c_char * 32)()
        self.ctx.memcpy(raw, pattern(32, 5))
        self.assertEqual(bytes(raw), pattern(32, 5))

    def test_mmap_and_array(self):
        with mmap.mmap(-1, 8192) as m:
            self.ctx.memcpy(m, pattern(8192))
            self.assertEqual(m[:], pattern(8192))
            out = array.array("I", [0] * 2048)
            self.ctx.memcpy(out, m)
            self.assertEqual(out.tobytes(), pattern(8192))

    def test_memoryview_formats_and_shapes(self):
        src = memoryview(pattern(64)).cast("B", (8, 8))
        dst = bytearray(64)
        self.ctx.memcpy(memoryview(dst).cast("Q"), src)
        self.assertEqual(dst, pattern(64))

    def test_zero_length(self):
        r = self.ctx.memcpy(bytearray(), b"")
        self.assertEqual(r.dev, self.ctx.find("cpu"))

    def test_dev_argument(self):
        cpu = self.ctx.device("cpu")
        for dev in (None, offload.DEV_AUTO, cpu.index, "cpu", cpu):
            with self.subTest(dev=dev):
                dst = bytearray(100)
                self.check_result(self.ctx.memcpy(dst, pattern(100), dev=dev))
                self.assertEqual(dst, pattern(100))
        with self.assertRaises(offload.NoDevice) as cm:
            self.ctx.memcpy(bytearray(4), b"abcd", dev=self.ctx.device_count)
        self.assertIn("no device", cm.exception.strerror)
        with self.assertRaises(offload.NoDevice):
            self.ctx.memcpy(bytearray(4), b"abcd", dev="no-such-device")
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.memcpy(bytearray(4), b"abcd", dev=-5)
        with self.assertRaises(TypeError):
            self.ctx.memcpy(bytearray(4), b"abcd", dev=1.0)
        with self.assertRaises(TypeError):
            self.ctx.memcpy(bytearray(4), b"abcd", dev=True)
        with self.assertRaises(TypeError):
            self.ctx.memcpy(bytearray(4), b"abcd", 0)  # dev is keyword-only

    def test_read_only_destination(self):
        for dst in (b"abcd", memoryview(bytearray(4)).toreadonly(), memoryview(b"abcd")):
            with self.subTest(dst=type(dst).__name__):
                with self.assertRaises(TypeError) as cm:
                    self.ctx.memcpy(dst, b"wxyz")
                self.assertIn("read-only", str(cm.exception))
        with mmap.mmap(-1, 4096, prot=mmap.PROT_READ) as m:
            with self.assertRaises(TypeError):
                self.ctx.memcpy(m, bytes(4096))

    def test_length_mismatch(self):
        dst = bytearray(10)
        with self.assertRaises(offload.InvalidArgument) as cm:
            self.ctx.memcpy(dst, b"123456789")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIn("10 bytes", str(cm.exception))
        self.assertEqual(dst, bytes(10))

    def test_not_contiguous(self):
        buf = bytearray(64)
        with self.assertRaises(BufferError) as cm:
            self.ctx.memcpy(memoryview(buf)[::2], bytes(32))
        self.assertIn("not contiguous", str(cm.exception))
        with self.assertRaises(BufferError):
            self.ctx.memcpy(bytearray(32), memoryview(buf)[::2])
        self.assertEqual(buf, bytes(64))

    def test_not_a_buffer(self):
        for bad in ("text", 42, None, [1, 2]):
            with self.subTest(bad=bad):
                with self.assertRaises(TypeError) as cm:
                    self.ctx.memcpy(bytearray(4), bad)
                self.assertIn("bytes-like", str(cm.exception))
                with self.assertRaises(TypeError):
                    self.ctx.memcpy(bad, b"abcd")

    def test_overlap(self):
        buf = bytearray(pattern(64))
        m = memoryview(buf)
        with self.assertRaises(offload.InvalidArgument) as cm:
            self.ctx.memcpy(m[8:40], m[0:32])
        self.assertIn("overlaps", cm.exception.strerror)
        self.assertEqual(buf, pattern(64))
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.memcpy(buf, buf)
        # Adjacent is not overlapping.
        self.ctx.memcpy(m[32:64], m[0:32])
        self.assertEqual(buf[32:], pattern(64)[:32])

    def test_buffer_held_during_the_call(self):
        # A destination that is exported cannot be resized under the copy.
        dst = bytearray(16)
        v = memoryview(dst)
        self.ctx.memcpy(v, pattern(16))
        with self.assertRaises(BufferError):
            dst.extend(b"x")
        v.release()
        dst.extend(b"x")  # the binding released its own view

    def test_gil_released(self):
        src = bytes(8 << 20)
        dst = bytearray(len(src))
        self.assertTrue(gil_released_during(lambda: self.ctx.memcpy(dst, src)))

    @needs_numpy
    def test_numpy(self):
        src = numpy.arange(1 << 16, dtype=numpy.uint32)
        dst = numpy.zeros_like(src)
        self.check_result(self.ctx.memcpy(dst, src))
        self.assertTrue(numpy.array_equal(dst, src))
        # Two dimensions, Fortran order, other dtypes: contiguous memory of equal size.
        a = numpy.asfortranarray(numpy.arange(600, dtype=numpy.float64).reshape(20, 30))
        b = numpy.empty((30, 20), dtype=numpy.float64, order="F")
        self.ctx.memcpy(b, a)
        self.assertEqual(b.tobytes(order="A"), a.tobytes(order="A"))
        c = numpy.zeros(4800, dtype=numpy.uint8)
        self.ctx.memcpy(c, a)
        self.assertEqual(c.tobytes(), a.tobytes(order="A"))

    @needs_numpy
    def test_numpy_bad_input(self):
        src = numpy.arange(64, dtype=numpy.uint8)
        ro = numpy.zeros(64, dtype=numpy.uint8)
        ro.flags.writeable = False
        with self.assertRaises(TypeError):
            self.ctx.memcpy(ro, src)
        with self.assertRaises(BufferError):
            self.ctx.memcpy(numpy.zeros(32, dtype=numpy.uint8), src[::2])
        with self.assertRaises(BufferError):
            self.ctx.memcpy(numpy.zeros((8, 8), dtype=numpy.uint8)[:, :4], src[:32])
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.memcpy(numpy.zeros(15, dtype=numpy.uint32), src)  # 60 bytes vs 64
        big = numpy.arange(128, dtype=numpy.uint8)
        with self.assertRaises(offload.InvalidArgument):
            self.ctx.memcpy(big[10:74], big[0:64])


if __name__ == "__main__":
    unittest.main()
