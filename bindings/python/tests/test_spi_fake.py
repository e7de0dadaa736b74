# SPDX-License-Identifier: MIT
"""offload.Spi end to end against the spidev stand-in of tests/spi (a
test-only build of the module links liboffload statically with fakespi.c
wrapped around its open/ioctl/close; MOSI is looped back to MISO and the
wire is recorded as a trace)."""
import errno
import os
import unittest

import offload
from offload import _offload
from support import assert_no_leak, gil_released_during, needs_numpy, numpy, open_ctx

HAVE_FAKE = hasattr(_offload, "_fake_spi_add")
T = offload.Transfer
DEV = "/dev/spidev1.0"


def pattern(n, seed=5):
    return bytes((i * 31 + seed) & 0xFF for i in range(n))


@unittest.skipUnless(HAVE_FAKE, "this offload module is not the test build with the spidev stand-in")
class FakeCase(unittest.TestCase):
    def setUp(self):
        self.root = _offload._fakesys_new()  # also points OFFLOAD_SYSFS_ROOT at it
        _offload._fakesys_bufsiz(self.root, "4096\n")
        _offload._fake_spi_add(DEV)  # a generic controller, spi_device at 10 MHz, bufsiz 4096
        self.ctx = open_ctx()

    def tearDown(self):
        self.ctx.close()
        _offload._fake_spi_reset()
        _offload._fakesys_free(self.root)

    def trace(self, path=DEV):
        return _offload._fake_spi_trace(path, True)

    def state(self, path=DEV):
        return _offload._fake_spi_state(path)


class TestOpen(FakeCase):
    def test_options_reach_the_kernel(self):
        s = offload.Spi(self.ctx, DEV, mode=offload.SpiMode.MODE_3, max_speed_hz=1000000, bits_per_word=16)
        st = self.state()
        self.assertEqual((st["mode"], st["bpw"], st["speed_hz"]), (3, 16, 1000000))
        self.assertEqual(st["last_setup"], "speed")  # the clock is set last (spidev.c SPI_IOC_WR_MAX_SPEED_HZ)
        i = s.info()
        self.assertIsInstance(i, offload.SpiInfo)
        self.assertEqual((i.backend, i.path, i.dev, i.chip_select), ("spidev", DEV, -1, 0))
        self.assertEqual(i.mode, offload.SpiMode.MODE_3)
        self.assertIsInstance(i.mode, offload.SpiMode)
        self.assertEqual((i.max_speed_hz, i.bits_per_word, i.max_message_bytes), (1000000, 16, 4096))
        self.assertEqual(i.flags, offload.ResFlag.KERNEL)
        self.assertEqual(self.state()["users"], 1)
        s.close()
        s.close()
        self.assertEqual(self.state()["users"], 0)
        for call in (s.info, lambda: s.xfer(b"x"), lambda: s.transfer([T(b"x")]), s.__enter__):
            with self.assertRaises(offload.Closed):
                call()

    def test_keeps_the_kernel_settings(self):
        _offload._fake_spi_reset()
        _offload._fake_spi_add(DEV, dev_mode=int(offload.SpiMode.CPOL), dev_max_hz=4000000)
        with offload.Spi(self.ctx, DEV) as s:
            i = s.info()
            self.assertEqual((i.mode, i.max_speed_hz, i.bits_per_word), (offload.SpiMode.CPOL, 4000000, 8))

    def test_set_mode_and_speed(self):
        # issue #18: the kernel's own bits (here CS_WORD, 0x1000, no SpiMode name) are kept
        _offload._fake_spi_reset()
        _offload._fake_spi_add(DEV, dev_mode=0x1000)
        M = offload.SpiMode
        with offload.Spi(self.ctx, DEV) as s:
            s.set_mode(M.MODE_3 | M.LSB_FIRST)
            self.assertEqual(self.state()["mode"], 0x1000 | 0x3 | 0x8)
            self.assertEqual(s.info().mode, M.MODE_3 | M.LSB_FIRST)
            s.set_speed(2000000)
            st = self.state()
            self.assertEqual((st["speed_hz"], st["last_setup"]), (2000000, "speed"))
            self.assertEqual(s.info().max_speed_hz, 2000000)
            with self.assertRaises(offload.InvalidArgument) as cm:
                s.set_speed(0)
            self.assertIn("hz is 0", cm.exception.strerror)
            with self.assertRaises(offload.InvalidArgument) as cm:
                s.set_mode(0x1000)
            self.assertIn("unsupported mode bits 0x1000", cm.exception.strerror)
            with self.assertRaises(offload.InvalidArgument) as cm:
                s.set_speed(1 << 32)
            self.assertIn("hz must be in 0..4294967295", cm.exception.strerror)
            self.assertEqual(self.state()["speed_hz"], 2000000)
            self.assertEqual(s.info().mode, M.MODE_3 | M.LSB_FIRST)
        for call in (lambda: s.set_mode(0), lambda: s.set_speed(1)):
            with self.assertRaises(offload.Closed):
                call()

    def test_context_close_closes_the_handle(self):
        s = offload.Spi(self.ctx, DEV)
        self.assertIs(s.context, self.ctx)
        self.ctx.close()
        self.assertTrue(s.closed)
        self.assertEqual(self.state()["users"], 0)


class TestTransfers(FakeCase):
    def setUp(self):
        super().setUp()
        self.spi = offload.Spi(self.ctx, DEV)
        self.trace()

    def test_full_duplex_loopback(self):
        self.assertEqual(self.spi.xfer(b"\xa5\x5a"), b"\xa5\x5a")
        self.assertEqual(self.trace(), " CS+ [8b 10000000Hz tx1 rx1 wd0] a55a CS-")
        self.assertEqual(self.spi.xfer(bytearray(b"\x01\x02\x03")), b"\x01\x02\x03")

    def test_tx_only_rx_only(self):
        self.assertIsNone(self.spi.xfer(b"\x12\x34", rx_len=0))
        self.assertEqual(self.trace(), " CS+ [8b 10000000Hz tx1 rx0 wd0] 1234 CS-")
        self.assertEqual(self.spi.xfer(rx_len=3), bytes(3))  # zeros are sent
        self.assertEqual(self.trace(), " CS+ [8b 10000000Hz tx0 rx1 wd0] 000000 CS-")

    def test_receive_into_a_buffer(self):
        rx = bytearray(4)
        self.assertIs(self.spi.xfer(b"wxyz", rx=rx), rx)
        self.assertEqual(rx, b"wxyz")
        buf = bytearray(b"in-place")
        self.assertIs(self.spi.xfer(buf, rx=buf), buf)  # rx may equal tx
        self.assertEqual(buf, b"in-place")
        m = memoryview(bytearray(6))
        self.spi.xfer(rx=m[2:4])
        self.assertEqual(m.tobytes(), bytes(6))

    def test_message(self):
        out = self.spi.transfer([
            T(b"\x9f", cs_change=True),
            T(b"\x01\x02", speed_hz=5000000, delay_usecs=10),
            T(rx_len=2, bits_per_word=16),
        ])
        self.assertEqual(out, [b"\x9f", b"\x01\x02", bytes(2)])
        self.assertEqual(self.trace(),
                         " CS+ [8b 10000000Hz tx1 rx1 wd0] 9f CS- CS+ [8b 5000000Hz tx1 rx1 wd0] 0102"
                         " +10us [16b 10000000Hz tx0 rx1 wd0] 0000 CS-")
        self.assertEqual(self.spi.transfer((T(b"a"),)), [b"a"])  # any sequence

    def test_split_message_keeps_the_wire(self):
        # 10000 bytes through bufsiz 4096 go in parts, CS held; the wire is as if sent whole.
        _offload._fake_spi_add("/dev/spidev1.1", bufsiz=65536)
        data = pattern(10000)
        with offload.Spi(self.ctx, "/dev/spidev1.1") as whole:
            self.assertEqual(whole.xfer(data), data)
        self.assertEqual(self.spi.xfer(data), data)
        self.assertGreater(self.state()["messages"], 1)
        self.assertEqual(self.trace(), self.trace("/dev/spidev1.1"))

    def test_no_cs_hold(self):
        with offload.Spi(self.ctx, DEV, no_cs_hold=True) as s:
            with self.assertRaises(offload.MessageTooLong) as cm:
                s.transfer([T(pattern(3000)), T(pattern(3000))])
            self.assertEqual(cm.exception.errno, errno.EMSGSIZE)
            self.assertIn("NO_CS_HOLD", cm.exception.strerror)
        self.assertEqual(self.trace(), "")

    def test_bad_messages(self):
        bad = {
            "length mismatch": [T(b"abc", rx_len=2)],
            "rx buffer length mismatch": [T(b"abc", rx=bytearray(4))],
            "zero length": [T(b"")],
            "empty message": [],
            "odd length for 16-bit words": [T(b"abc", bits_per_word=16)],
            "33-bit words": [T(b"abcd", bits_per_word=33)],
            "3 data lines": [T(b"ab", tx_nbits=3)],
            "too many transfers": [T(b"a")] * (offload.SPI_MAX_XFERS + 1),
        }
        for what, msg in bad.items():
            with self.subTest(what):
                with self.assertRaises(offload.InvalidArgument) as cm:
                    self.spi.transfer(msg)
                self.assertEqual(cm.exception.errno, errno.EINVAL)
        buf = bytearray(8)
        with self.assertRaises(offload.InvalidArgument):
            self.spi.transfer([T(memoryview(buf)[0:4], rx=memoryview(buf)[2:6])])  # partial overlap
        self.assertEqual(self.trace(), "")  # nothing reached the wire
        with self.assertRaises(TypeError):
            self.spi.transfer([b"not a Transfer"])
        with self.assertRaises(TypeError):
            self.spi.transfer(T(b"x"))
        with self.assertRaises(TypeError):
            self.spi.xfer(b"x", rx=b"read-only")
        with self.assertRaises(TypeError):
            self.spi.xfer("text")
        with self.assertRaises(BufferError):
            self.spi.xfer(memoryview(b"abcdef")[::2])
        with self.assertRaises(offload.InvalidArgument):
            self.spi.xfer()

    def test_kernel_errors(self):
        for err, cls in ((errno.EIO, offload.EngineError), (errno.ETIMEDOUT, offload.Timeout),
                         (errno.EPROTO, offload.Error)):
            with self.subTest(errno=errno.errorcode[err]):
                _offload._fake_spi_add("/dev/spidev2.0", fail_message=1, fail_errno=err)
                with offload.Spi(self.ctx, "/dev/spidev2.0") as s:
                    with self.assertRaises(cls) as cm:
                        s.xfer(b"abc")
                    self.assertEqual(cm.exception.errno, err)
                _offload._fake_spi_reset()

    def test_no_leaks(self):
        rx = bytearray(4)
        for name, fn in {
            "xfer": lambda: (self.spi.xfer(b"abcd"), self.trace()),
            "xfer into rx": lambda: (self.spi.xfer(b"abcd", rx=rx), self.trace()),
            "message": lambda: (self.spi.transfer([T(b"ab", cs_change=True), T(rx_len=2)]), self.trace()),
            "length mismatch": lambda: self.spi.transfer([T(b"ab"), T(b"abc", rx_len=2)]),
            "refused by the library": lambda: self.spi.transfer([T(b"abc"), T(b"")]),
            "not a Transfer": lambda: self.spi.transfer([T(b"ab"), 7]),
            "info": self.spi.info,
        }.items():
            with self.subTest(call=name):
                assert_no_leak(self, fn)

    def test_gil_released(self):
        data = pattern(1 << 16)
        self.assertTrue(gil_released_during(lambda: (self.spi.xfer(data), self.trace())))

    @needs_numpy
    def test_numpy(self):
        tx = numpy.arange(8, dtype=numpy.uint16)
        rx = numpy.zeros_like(tx)
        self.spi.xfer(tx, rx=rx, bits_per_word=16)
        self.assertTrue(numpy.array_equal(rx, tx))


class TestDeviceTree(FakeCase):
    def setUp(self):
        super().setUp()
        dtb = os.environ.get("OFFLOAD_TEST_SPI_DTB", "")
        if not os.path.exists(dtb):
            self.skipTest("the SPI device-tree fixture (tests/spi/fixtures, built by dtc) is not there")
        self.ctx.close()
        self.ctx = offload.Context(dtb, no_env=True)

    def test_peripheral_node(self):
        _offload._fake_spi_add("/dev/spidev0.0", dspi=True)
        _offload._fakesys_add_spidev(self.root, 0, 0, "/soc/spi@2100000", "/soc/spi@2100000/dev@0", "fsl-dspi")
        with offload.Spi(self.ctx, "/soc/spi@2100000/dev@0") as s:
            i = s.info()
            # dev@0 of the fixture: spi-cpol, spi-cpha, 10 MHz, CS delays 100/50 ns.
            self.assertEqual((i.backend, i.path, i.chip_select), ("spidev", "/soc/spi@2100000/dev@0", 0))
            self.assertEqual((i.mode, i.max_speed_hz), (offload.SpiMode.MODE_3, 10000000))
            self.assertEqual((i.cs_setup_ns, i.cs_hold_ns), (100, 50))
            try:
                want_dev = self.ctx.find("/soc/spi@2100000")
            except offload.NoDevice:
                want_dev = -1
            self.assertEqual(i.dev, want_dev)
            self.assertEqual(s.xfer(b"\xa5\x5a"), b"\xa5\x5a")
            self.assertEqual(self.trace("/dev/spidev0.0"), " CS+ [8b 10000000Hz tx1 rx1 wd0] a55a CS-")
            # spi-fsl-dspi ignores per-transfer clocks: refused rather than silently wrong.
            with self.assertRaises(offload.InvalidArgument) as cm:
                s.xfer(b"\x00\x00", speed_hz=1000000)
            self.assertIn("per-transfer", cm.exception.strerror)

    def test_controller_and_chip_select(self):
        # chip select 1 is a GPIO (the fixture's cs-gpios): its spi-cs-high is real
        _offload._fake_spi_add("/dev/spidev0.1", dspi=True, gpio_cs=True)
        _offload._fakesys_add_spidev(self.root, 0, 1, "/soc/spi@2100000", "/soc/spi@2100000/dev@1", "fsl-dspi")
        with offload.Spi(self.ctx, "/soc/spi@2100000", chip_select=1) as s:
            i = s.info()
            self.assertEqual(i.chip_select, 1)
            self.assertEqual(i.mode, offload.SpiMode.LSB_FIRST | offload.SpiMode.CS_HIGH)
            self.assertEqual((i.max_speed_hz, i.cs_setup_ns, i.cs_hold_ns), (2000000, 300, 200))
        with offload.Spi(self.ctx, "/soc/spi@2100000", 1, offload.SpiMode.MODE_1, 1000000) as s:
            st = self.state("/dev/spidev0.1")
            # spidev forces SPI_CS_HIGH into a GPIO chip select's mode (spidev_ioctl WR_MODE32)
            want = int(offload.SpiMode.CPHA | offload.SpiMode.CS_HIGH)
            self.assertEqual((st["mode"], st["speed_hz"]), (want, 1000000))


if __name__ == "__main__":
    unittest.main()
