# SPDX-License-Identifier: MIT
"""offload.Spi and offload.Transfer without a device: open errors and argument
validation. (test_spi_fake.py runs the transfers against the spidev stand-in.)"""
import errno
import os
import unittest

import offload
from support import open_ctx

T = offload.Transfer


def spi_fixture():
    p = os.environ.get("OFFLOAD_TEST_SPI_DTB", "")
    if not p or not os.path.exists(p):
        raise unittest.SkipTest("the SPI device-tree fixture (tests/spi/fixtures, built by dtc) is not there")
    return p


class TestTransfer(unittest.TestCase):
    def test_fields(self):
        t = T(b"\x01\x02", speed_hz=1000000, delay_usecs=65535, bits_per_word=16, cs_change=True,
              tx_nbits=2, rx_nbits=4, word_delay_usecs=255)
        self.assertEqual(t.tx, b"\x01\x02")
        self.assertIsNone(t.rx_len)
        self.assertIsNone(t.rx)
        self.assertEqual((t.speed_hz, t.delay_usecs, t.bits_per_word, t.cs_change, t.tx_nbits, t.rx_nbits,
                          t.word_delay_usecs), (1000000, 65535, 16, True, 2, 4, 255))
        self.assertIn("cs_change=True", repr(t))
        with self.assertRaises(AttributeError):
            t.tx = b"x"
        r = bytearray(3)
        t = T(rx=r)
        self.assertIs(t.rx, r)
        self.assertEqual(T(rx_len=5).rx_len, 5)
        self.assertEqual(T(b"ab", 0).rx_len, 0)

    def test_bad_fields(self):
        bad = {
            "nothing to clock": {},
            "rx and rx_len": dict(rx=bytearray(2), rx_len=2),
            "negative rx_len": dict(rx_len=-1),
            "rx_len over 32 bits": dict(rx_len=1 << 32),
            "speed over 32 bits": dict(tx=b"x", speed_hz=1 << 32),
            "delay over 16 bits": dict(tx=b"x", delay_usecs=65536),
            "bits_per_word over 8 bits": dict(tx=b"x", bits_per_word=256),
            "tx_nbits over 8 bits": dict(tx=b"x", tx_nbits=256),
            "rx_nbits negative": dict(tx=b"x", rx_nbits=-1),
            "word delay over 8 bits": dict(tx=b"x", word_delay_usecs=256),
        }
        for what, kw in bad.items():
            with self.subTest(what):
                with self.assertRaises(offload.InvalidArgument):
                    T(**kw)
        with self.assertRaises(TypeError):
            T(b"x", speed_hz=1.5)
        with self.assertRaises(TypeError):
            T(b"x", 2, 3)  # only tx and rx_len are positional

    def test_cs_change_takes_only_bool(self):
        self.assertTrue(T(b"x", cs_change=True).cs_change)
        for v in ("yes", "", 1, None):
            with self.subTest(v=v):
                with self.assertRaises(TypeError) as cm:
                    T(b"x", cs_change=v)
                self.assertIn("cs_change", str(cm.exception))


class TestSpiOpen(unittest.TestCase):
    def setUp(self):
        self.ctx = open_ctx()

    def tearDown(self):
        self.ctx.close()

    def test_missing_device_file(self):
        with self.assertRaises(offload.NotFound) as cm:
            offload.Spi(self.ctx, "/dev/spidev-nonexistent.0")
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertIsInstance(cm.exception, FileNotFoundError)
        self.assertIn("/dev/spidev-nonexistent.0", cm.exception.strerror)

    def test_dt_path_without_device_tree(self):
        with self.assertRaises(offload.NotFound) as cm:
            offload.Spi(self.ctx, "/soc/spi@2100000/dev@0")
        self.assertIn("device tree", cm.exception.strerror)

    def test_bad_arguments(self):
        with self.assertRaises(offload.InvalidArgument):
            offload.Spi(self.ctx, "")
        for kw in (dict(chip_select=-1), dict(mode=-1), dict(max_speed_hz=1 << 32), dict(bits_per_word=256)):
            with self.subTest(**kw):
                with self.assertRaises(offload.InvalidArgument):
                    offload.Spi(self.ctx, "/dev/spidev-nonexistent.0", **kw)
        with self.assertRaises(offload.InvalidArgument) as cm:
            offload.Spi(self.ctx, "/dev/spidev-nonexistent.0", mode=1 << 20)  # a bit no SPI mode has
        self.assertIn("mode", cm.exception.strerror)
        with self.assertRaises(TypeError):
            offload.Spi(self.ctx, 7)
        with self.assertRaises(TypeError):
            offload.Spi("ctx", "/dev/spidev-nonexistent.0")
        with self.assertRaises(TypeError):
            offload.Spi(self.ctx, "/dev/spidev-nonexistent.0", mode="3")

    def test_no_cs_hold_takes_only_bool(self):
        for v in ("yes", "", 1, None):
            with self.subTest(v=v):
                with self.assertRaises(TypeError) as cm:
                    offload.Spi(self.ctx, "/dev/spidev-nonexistent.0", no_cs_hold=v)
                self.assertIn("no_cs_hold", str(cm.exception))

    def test_device_tree_paths(self):
        with offload.Context(spi_fixture(), no_env=True) as ctx:
            # A controller node needs chip_select; a peripheral node must not get one.
            with self.assertRaises(offload.InvalidArgument) as cm:
                offload.Spi(ctx, "/soc/spi@2100000")
            self.assertIn("chip", cm.exception.strerror)
            with self.assertRaises(offload.InvalidArgument):
                offload.Spi(ctx, "/soc/spi@2100000/dev@0", chip_select=0)
            with self.assertRaises(offload.NotFound):
                offload.Spi(ctx, "/soc/spi@2100000/dev@7")
            with self.assertRaises(offload.NoDevice) as cm:
                offload.Spi(ctx, "/soc/spi@2100000/dev@2")  # status = "disabled"
            self.assertIn("disabled", cm.exception.strerror)


if __name__ == "__main__":
    unittest.main()
