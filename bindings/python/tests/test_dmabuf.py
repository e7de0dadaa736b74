# SPDX-License-Identifier: MIT
"""offload.Buffer as a Linux dma-buf (dmabuf=, import_dmabuf, dmabuf_fd) on a
machine without a working exporter: every refusal, through a stand-in /dev
tree. The exporters themselves need a kernel with CONFIG_UDMABUF or
CONFIG_DMABUF_HEAPS_SYSTEM: tests/qemu/guest_dmabuf.c checks them (the C API
this binding calls) in the qemu guest."""
import errno
import os
import shutil
import tempfile
import unittest

# The library reads $OFFLOAD_DEV_ROOT once, at its first look at /dev: set it
# before any context exists in this process.
DEV_ROOT = tempfile.mkdtemp(prefix="offload-dmabuf-")
os.environ["OFFLOAD_DEV_ROOT"] = DEV_ROOT

import offload  # noqa: E402
from support import open_ctx  # noqa: E402


def tearDownModule():
    shutil.rmtree(DEV_ROOT, ignore_errors=True)


class TestDmabufRefusals(unittest.TestCase):
    def setUp(self):
        self.ctx = open_ctx()

    def tearDown(self):
        self.ctx.close()

    def test_no_exporter_names_every_path(self):
        with self.assertRaises(offload.NoDevice) as cm:
            offload.Buffer(self.ctx, 4096, dmabuf=True)
        self.assertEqual(cm.exception.errno, errno.ENODEV)
        msg = cm.exception.strerror
        self.assertIn(f"{DEV_ROOT}/udmabuf: absent (No such file or directory)", msg)
        self.assertIn(f"{DEV_ROOT}/dma_heap/system: absent (No such file or directory)", msg)

    def test_one_exporter_only(self):
        with self.assertRaises(offload.NoDevice) as cm:
            offload.Buffer(self.ctx, 4096, dmabuf="heap")
        self.assertIn("dma_heap/system: absent", cm.exception.strerror)
        self.assertNotIn("udmabuf", cm.exception.strerror)
        with self.assertRaises(offload.NoDevice) as cm:
            offload.Buffer(self.ctx, 4096, dmabuf="udmabuf")
        self.assertNotIn("dma_heap", cm.exception.strerror)

    def test_bad_arguments(self):
        with self.assertRaises(offload.InvalidArgument):
            offload.Buffer(self.ctx, 4096, dmabuf="cma")
        with self.assertRaises(offload.InvalidArgument):
            offload.Buffer(self.ctx, 4096, dmabuf=1)
        with self.assertRaises(offload.InvalidArgument) as cm:
            offload.Buffer(self.ctx, 4096, dmabuf=True, uncached=True)
        self.assertIn("does not apply to a dma-buf", cm.exception.strerror)

    def test_plain_buffer_is_not_a_dmabuf(self):
        with offload.Buffer(self.ctx, 64) as b:
            self.assertIsNone(b.dmabuf_fd)
            self.assertIsNone(b.dmabuf_exporter)
        with self.assertRaises(offload.Closed):
            b.dmabuf_fd

    def test_import_refuses_what_is_not_a_dmabuf(self):
        r, w = os.pipe()
        try:
            with self.assertRaises(offload.InvalidArgument) as cm:
                offload.Buffer.import_dmabuf(self.ctx, r)
            self.assertIn(f"fd {r} is a pipe, not a dma-buf", cm.exception.strerror)
            with tempfile.TemporaryFile() as f:
                with self.assertRaises(offload.InvalidArgument) as cm:
                    offload.Buffer.import_dmabuf(self.ctx, f.fileno())
                self.assertIn("is a regular file, not a dma-buf", cm.exception.strerror)
        finally:
            os.close(r)
            os.close(w)
        with self.assertRaises(offload.Error) as cm:
            offload.Buffer.import_dmabuf(self.ctx, -1)
        self.assertEqual(cm.exception.errno, errno.EBADF)
        with self.assertRaises(TypeError):
            offload.Buffer.import_dmabuf(self.ctx, "3")


class TestDirectEngine(unittest.TestCase):
    """A simulated direct engine of the built-in virtual board is refused: its
    engine would need the dma-buf's pages mapped by an IOMMU."""

    def test_refused_with_the_alternatives(self):
        try:
            ctx = offload.Context(source=offload.DtSource.BUILTIN, no_env=True)
        except offload.NotSupported as e:
            self.skipTest(f"no built-in virtual board in this build: {e.strerror}")
        try:
            # an engine that moves the data by DMA (memcpy or crypto), not the
            # DSPI, whose words the CPU moves (the first one without OpenSSL,
            # when the EIP97 model is absent)
            dma_caps = offload.Cap.MEMCPY | offload.Cap.CIPHER | offload.Cap.HASH
            dev = next((d for d in ctx.devices() if d.usable and offload.DevFlag.SIM in d.flags
                        and offload.DevFlag.CPU not in d.flags and d.caps & dma_caps), None)
            if dev is None:
                self.skipTest("no usable simulated engine in this build")
            with self.assertRaises(offload.NotSupported) as cm:
                offload.Buffer(ctx, 4096, dev, dmabuf=True)
            self.assertIn("IOMMU", cm.exception.strerror)
            self.assertIn("u-dma-buf, a CMA dma-heap or reserved-memory", cm.exception.strerror)
            r, w = os.pipe()
            try:
                with self.assertRaises(offload.NotSupported):
                    offload.Buffer.import_dmabuf(ctx, r, dev)
            finally:
                os.close(r)
                os.close(w)
        finally:
            ctx.close()


if __name__ == "__main__":
    unittest.main()
