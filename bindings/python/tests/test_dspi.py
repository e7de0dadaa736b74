# SPDX-License-Identifier: MIT
"""SPI through the direct DSPI backend on the built-in virtual board (sim):
MOSI-to-MISO loopback on chip select 0, an N25Q128A13 flash on chip select 1
(READ ID: 20h BAh 18h, Micron datasheet)."""
import unittest

import offload

from support import open_ctx

LOOP = "/bus@100000/spi@2100000/loopback@0"
FLASH = "/bus@100000/spi@2100000/flash@1"


class VirtualBoardDspi(unittest.TestCase):
    def setUp(self):
        try:
            self.ctx = open_ctx(source=offload.DtSource.BUILTIN)
        except offload.NotSupported as e:  # built without the models (OFFLOAD_WITH_SIM=OFF)
            raise unittest.SkipTest(f"no built-in virtual board here: {e.strerror}")
        try:
            self.loop = offload.Spi(self.ctx, LOOP)
        except offload.NoDevice as e:  # built without the dspi backend or the models
            self.ctx.close()
            raise unittest.SkipTest(f"no direct DSPI here: {e.strerror}")

    def tearDown(self):
        self.loop.close()
        self.ctx.close()

    def test_loopback(self):
        data = bytes(range(256)) * 16
        self.assertEqual(self.loop.xfer(data), data)
        info = self.loop.info()
        self.assertEqual(info.backend, "dspi-sim")
        self.assertEqual(info.actual_speed_hz, 25000000)  # 200 MHz / (PBR 2 x BR 4)

    def test_jedec_id_with_cs_held(self):
        with offload.Spi(self.ctx, FLASH) as flash:
            rx = flash.transfer([offload.Transfer(b"\x9f"), offload.Transfer(rx_len=3)])
            self.assertEqual(bytes(rx[1]), b"\x20\xba\x18")
            # cs_change on the first: CS drops, the flash forgets the command
            rx = flash.transfer([offload.Transfer(b"\x9f", cs_change=True), offload.Transfer(rx_len=3)])
            self.assertEqual(bytes(rx[1]), b"\xff\xff\xff")

    def test_set_mode_and_speed(self):
        M = offload.SpiMode
        self.loop.set_mode(M.MODE_3 | M.LSB_FIRST)
        self.assertEqual(self.loop.info().mode, M.MODE_3 | M.LSB_FIRST)
        self.assertEqual(self.loop.xfer(b"\x5a\xc3"), b"\x5a\xc3")
        self.loop.set_speed(1000000)
        i = self.loop.info()
        # 200 MHz / 1 MHz needs 200: PBR 7 x BR 32 = 224, 892857.14 Hz
        self.assertEqual((i.max_speed_hz, i.actual_speed_hz), (1000000, 892857))
        self.loop.transfer([offload.Transfer(b"\x01", cs_change=True)])  # CS held after it
        with self.assertRaises(offload.Busy) as cm:
            self.loop.set_mode(M.MODE_0)
        self.assertIn("is held asserted", cm.exception.strerror)
        self.loop.xfer(b"\x01")  # releases it
        self.loop.set_mode(M.MODE_0)
        self.assertEqual(self.loop.info().mode, M.MODE_0)

    def test_refusals(self):
        with self.assertRaises(offload.InvalidArgument) as cm:
            offload.Spi(self.ctx, LOOP, mode=offload.SpiMode.LOOP)
        self.assertIn("no internal loopback", cm.exception.strerror)
        with self.assertRaises(offload.InvalidArgument) as cm:
            self.loop.xfer(b"\x00" * 4, speed_hz=800)
        self.assertIn("below the slowest SCK", cm.exception.strerror)


if __name__ == "__main__":
    unittest.main()
