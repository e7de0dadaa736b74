/* SPDX-License-Identifier: MIT */
/*
 * offload.Buffer: a DMA buffer (offload_buf) exported through the buffer
 * protocol, so memoryview(buf), numpy.frombuffer(buf), Context.memcpy() and
 * Queue.copy() use its memory directly. It cannot be freed while exported.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "pyoffload.h"

typedef struct {
	PyObject_HEAD
	struct pyo_child link;
	offload_buf *buf;
	void *ptr;
	size_t size;
	Py_ssize_t exports;
	PyObject *weakreflist;
} PyoBuffer;

static int buffer_close_handle(PyoBuffer *o)
{
	if (!o->buf)
		return 0;
	if (o->exports) {
		PyErr_Format(PyExc_BufferError,
			     "cannot close a Buffer while it is exported %zd time(s) (a memoryview, "
			     "array or queued copy still uses its memory)", o->exports);
		return -1;
	}
	int r = offload_buf_free(o->buf);
	o->buf = NULL;
	o->ptr = NULL;
	pyo_child_unlink(&o->link);
	if (r < 0) {
		pyo_raise_lib(o->link.owner->ctx, r);
		return -1;
	}
	return 0;
}

static int buffer_child_close(PyObject *self)
{
	return buffer_close_handle((PyoBuffer *)self);
}

static PyObject *buffer_new(PyTypeObject *t, PyObject *args, PyObject *kwds)
{
	return pyo_child_new(t, PYO_CHILD_BUFFER, buffer_child_close, NULL);
}

/* dmabuf=: False, True (any exporter), "udmabuf" or "heap". 0 or -1 with an exception. */
static int dmabuf_flags(PyObject *v, uint32_t *flags)
{
	if (v == Py_None || v == Py_False) {
		*flags = 0;
		return 0;
	}
	if (v == Py_True) {
		*flags = OFFLOAD_BUF_DMABUF;
		return 0;
	}
	const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
	if (s && strcmp(s, "udmabuf") == 0)
		*flags = OFFLOAD_BUF_DMABUF_UDMABUF;
	else if (s && strcmp(s, "heap") == 0)
		*flags = OFFLOAD_BUF_DMABUF_HEAP;
	else {
		if (!PyErr_Occurred())
			pyo_raise(EINVAL, "Buffer: dmabuf must be False, True, \"udmabuf\" or \"heap\"");
		return -1;
	}
	return 0;
}

/* Keep a new library buffer in o. */
static void buffer_attach(PyoBuffer *o, PyoCtx *c, offload_buf *b)
{
	o->buf = b;
	o->ptr = offload_buf_ptr(b);
	o->size = offload_buf_size(b);
	pyo_child_attach(&o->link, c, NULL); /* o->buf is the handle */
}

static int buffer_init(PyoBuffer *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "ctx", "size", "dev", "uncached", "dmabuf", NULL };
	PyoCtx *c;
	PyObject *devo = Py_None, *dmabufo = Py_False, *uncachedo = NULL;
	Py_ssize_t size;
	int uncached = 0, dev, r;
	uint32_t flags;
	offload_buf *b = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!n|O$OO:Buffer", kwlist, &PyoCtx_Type, &c,
					 &size, &devo, &uncachedo, &dmabufo) ||
	    pyo_bool_arg(uncachedo, "uncached", &uncached) < 0)
		return -1;
	if (pyo_child_init_begin(&o->link, c, "Buffer") < 0 || pyo_dev_arg(c, devo, &dev) < 0 ||
	    dmabuf_flags(dmabufo, &flags) < 0)
		return -1;
	if (size < 0) {
		pyo_raise(EINVAL, "Buffer: size %zd is negative", size);
		return -1;
	}
	if (uncached)
		flags |= OFFLOAD_BUF_UNCACHED;
	PYO_BEGIN(c);
	r = offload_buf_alloc(c->ctx, dev, (size_t)size, flags, &b);
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		return -1;
	}
	buffer_attach(o, c, b);
	return 0;
}

static PyObject *buffer_import_dmabuf(PyTypeObject *cls, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "ctx", "fd", "dev", NULL };
	PyoCtx *c;
	PyObject *devo = Py_None;
	int fd, dev, r;
	offload_buf *b = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!i|O:import_dmabuf", kwlist, &PyoCtx_Type, &c,
					 &fd, &devo))
		return NULL;
	PyoBuffer *o = (PyoBuffer *)buffer_new(cls, NULL, NULL);
	if (!o)
		return NULL;
	if (pyo_child_init_begin(&o->link, c, "Buffer") < 0 || pyo_dev_arg(c, devo, &dev) < 0)
		goto fail;
	PYO_BEGIN(c);
	r = offload_buf_import_dmabuf(c->ctx, dev, fd, &b);
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		goto fail;
	}
	buffer_attach(o, c, b);
	return (PyObject *)o;
fail:
	Py_DECREF(o);
	return NULL;
}

static void buffer_dealloc(PyoBuffer *o)
{
	if (o->weakreflist)
		PyObject_ClearWeakRefs((PyObject *)o);
	/* Exports hold references to the object, so there are none left here. */
	pyo_child_dealloc((PyObject *)o);
}

static int buffer_getbuffer(PyoBuffer *o, Py_buffer *view, int flags)
{
	if (!o->buf) {
		view->obj = NULL;
		PyErr_SetString(PyExc_BufferError, "the Buffer is closed");
		return -1;
	}
	if (PyBuffer_FillInfo(view, (PyObject *)o, o->ptr, (Py_ssize_t)o->size, 0, flags) < 0)
		return -1;
	o->exports++;
	return 0;
}

static void buffer_releasebuffer(PyoBuffer *o, Py_buffer *view)
{
	o->exports--;
}

static PyBufferProcs buffer_as_buffer = {
	(getbufferproc)buffer_getbuffer,
	(releasebufferproc)buffer_releasebuffer,
};

static Py_ssize_t buffer_len(PyoBuffer *o)
{
	return o->buf ? (Py_ssize_t)o->size : 0;
}

static PySequenceMethods buffer_as_sequence = {
	.sq_length = (lenfunc)buffer_len,
};

static PyObject *buffer_sync(PyoBuffer *o, PyObject *args, PyObject *kwds, int for_device)
{
	static char *kwlist[] = { "offset", "length", "dir", NULL };
	PyObject *lo = Py_None, *diro = NULL;
	Py_ssize_t off = 0;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, for_device ? "|nOO:sync_for_device"
								: "|nOO:sync_for_cpu",
					 kwlist, &off, &lo, &diro))
		return NULL;
	if (pyo_child_enter(&o->link, o->buf, "Buffer") < 0)
		return NULL;
	size_t len;
	long dir = OFFLOAD_DMA_BIDIRECTIONAL;
	if (off < 0) {
		pyo_raise(EINVAL, "offset %zd is negative", off);
		goto fail;
	}
	if (lo == Py_None) {
		len = (size_t)off <= o->size ? o->size - (size_t)off : 0;
	} else {
		Py_ssize_t l = PyNumber_AsSsize_t(lo, PyExc_OverflowError);
		if (l == -1 && PyErr_Occurred())
			goto fail;
		if (l < 0) {
			pyo_raise(EINVAL, "length %zd is negative", l);
			goto fail;
		}
		len = (size_t)l;
	}
	if (diro) {
		dir = PyLong_AsLong(diro);
		if (dir == -1 && PyErr_Occurred())
			goto fail;
		if (dir < INT_MIN || dir > INT_MAX)
			dir = 0; /* the library rejects it with its own message */
	}
	PYO_BEGIN(o->link.owner);
	r = for_device ? offload_buf_sync_for_device(o->buf, (size_t)off, len, (enum offload_dma_dir)dir)
		       : offload_buf_sync_for_cpu(o->buf, (size_t)off, len, (enum offload_dma_dir)dir);
	PYO_END(o->link.owner);
	pyo_child_leave(&o->link);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	Py_RETURN_NONE;
fail:
	pyo_child_leave(&o->link);
	return NULL;
}

static PyObject *buffer_sync_for_device(PyoBuffer *o, PyObject *args, PyObject *kwds)
{
	return buffer_sync(o, args, kwds, 1);
}

static PyObject *buffer_sync_for_cpu(PyoBuffer *o, PyObject *args, PyObject *kwds)
{
	return buffer_sync(o, args, kwds, 0);
}

static PyObject *buffer_close(PyoBuffer *o, PyObject *unused)
{
	return pyo_child_close_method(&o->link, o->buf, "Buffer");
}

static PyObject *buffer_enter(PyoBuffer *o, PyObject *unused)
{
	return pyo_child_enter_method(&o->link, o->buf, "Buffer");
}

static PyObject *buffer_exit(PyoBuffer *o, PyObject *args)
{
	return pyo_child_exit_method(&o->link, o->buf, "Buffer");
}

#define BUF_OPEN_OR_RAISE(o)                                                                      \
	do {                                                                                      \
		if (!(o)->buf)                                                                    \
			return pyo_raise(EBADF, "the Buffer is closed");                         \
	} while (0)

static PyObject *buffer_get_size(PyoBuffer *o, void *unused)
{
	BUF_OPEN_OR_RAISE(o);
	return PyLong_FromSize_t(o->size);
}

static PyObject *buffer_get_bus_addr(PyoBuffer *o, void *unused)
{
	BUF_OPEN_OR_RAISE(o);
	return PyLong_FromUnsignedLongLong(offload_buf_bus_addr(o->buf));
}

static PyObject *buffer_get_address(PyoBuffer *o, void *unused)
{
	BUF_OPEN_OR_RAISE(o);
	return PyLong_FromVoidPtr(o->ptr);
}

static PyObject *buffer_get_cache_mode(PyoBuffer *o, void *unused)
{
	BUF_OPEN_OR_RAISE(o);
	return pyo_enum(Pyo_CacheMode, offload_buf_cache_mode(o->buf));
}

static PyObject *buffer_get_dmabuf_fd(PyoBuffer *o, void *unused)
{
	BUF_OPEN_OR_RAISE(o);
	const char *exp = offload_buf_dmabuf_exporter(o->buf);
	if (!exp)
		Py_RETURN_NONE;
	return PyLong_FromLong(offload_buf_dmabuf_fd(o->buf));
}

static PyObject *buffer_get_dmabuf_exporter(PyoBuffer *o, void *unused)
{
	BUF_OPEN_OR_RAISE(o);
	const char *exp = offload_buf_dmabuf_exporter(o->buf);
	if (!exp)
		Py_RETURN_NONE;
	return PyUnicode_FromString(exp);
}

static PyObject *buffer_get_closed(PyoBuffer *o, void *unused)
{
	return PyBool_FromLong(o->buf == NULL);
}

static PyObject *buffer_get_context(PyoBuffer *o, void *unused)
{
	return pyo_child_context(&o->link);
}

static PyObject *buffer_repr(PyoBuffer *o)
{
	if (!o->buf)
		return PyUnicode_FromString("<offload.Buffer closed>");
	/* PyUnicode_FromFormat has no %llx: the address is formatted here */
	char addr[24];
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)offload_buf_bus_addr(o->buf));
	return PyUnicode_FromFormat("<offload.Buffer size=%zu bus_addr=%s>", o->size, addr);
}

static PyMethodDef buffer_methods[] = {
	{ "sync_for_device", (PyCFunction)(void (*)(void))buffer_sync_for_device,
	  METH_VARARGS | METH_KEYWORDS,
	  "sync_for_device($self, /, offset=0, length=None, dir=DmaDir.BIDIRECTIONAL)\n--\n\n"
	  "Give bytes [offset, offset+length) (default: to the end) to the device: clean the\n"
	  "CPU caches for them (offload_buf_sync_for_device()). Call it after the CPU wrote\n"
	  "data the device will read, when moving data yourself; liboffload's own\n"
	  "operations do it for the ranges they touch. Nothing happens on a coherent device.\n"
	  "A dma-buf: ends the CPU's access (DMA_BUF_IOCTL_SYNC END, READ|WRITE, the whole\n"
	  "dma-buf) if it is open; do it before another device or process uses the fd.\n"
	  "Raises InvalidArgument for a range outside the buffer or a bad direction." },
	{ "sync_for_cpu", (PyCFunction)(void (*)(void))buffer_sync_for_cpu,
	  METH_VARARGS | METH_KEYWORDS,
	  "sync_for_cpu($self, /, offset=0, length=None, dir=DmaDir.BIDIRECTIONAL)\n--\n\n"
	  "Give bytes [offset, offset+length) back to the CPU: invalidate the CPU caches for\n"
	  "them (offload_buf_sync_for_cpu()) before reading what the device wrote.\n"
	  "A dma-buf: begins the CPU's access (DMA_BUF_IOCTL_SYNC START, READ|WRITE, the\n"
	  "whole dma-buf), ending an open one first.\n"
	  "Raises InvalidArgument for a range outside the buffer or a bad direction." },
	{ "close", (PyCFunction)buffer_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Free the buffer (offload_buf_free()). Closing twice does nothing. Raises\n"
	  "BufferError while it is exported (a memoryview or queued copy uses it)." },
	{ "import_dmabuf", (PyCFunction)(void (*)(void))buffer_import_dmabuf,
	  METH_CLASS | METH_VARARGS | METH_KEYWORDS,
	  "import_dmabuf($cls, /, ctx, fd, dev=None)\n--\n\n"
	  "A Buffer over a dma-buf file descriptor someone else made (a V4L2 VIDIOC_EXPBUF\n"
	  "fd, a DRM PRIME fd, one received from another process):\n"
	  "offload_buf_import_dmabuf(). The fd is duplicated (you keep and close yours) and\n"
	  "mapped read-write; len() is the dma-buf's size. Like Buffer(dmabuf=True) it\n"
	  "starts in the CPU's hands: call sync_for_device() before another device uses it\n"
	  "and sync_for_cpu() after, which issue DMA_BUF_IOCTL_SYNC END and START.\n"
	  "dev: None for the CPU; a device the library drives itself, and AF_ALG, are\n"
	  "refused.\n"
	  "Raises InvalidArgument (not a dma-buf: the message says what it is), Closed\n"
	  "(EBADF: fd is not open), PermissionDenied (a read-only dma-buf), NotSupported\n"
	  "(dev is a direct engine), NoDevice." },
	{ "__enter__", (PyCFunction)buffer_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturn the buffer." },
	{ "__exit__", (PyCFunction)buffer_exit, METH_VARARGS,
	  "__exit__($self, *exc_info, /)\n--\n\nClose the buffer." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef buffer_getset[] = {
	{ "size", (getter)buffer_get_size, NULL,
	  "Size in bytes (the request rounded up to the cache line).", NULL },
	{ "bus_addr", (getter)buffer_get_bus_addr, NULL,
	  "Address of the buffer as the device sees it (after dma-ranges).", NULL },
	{ "address", (getter)buffer_get_address, NULL, "CPU virtual address of the buffer.", NULL },
	{ "cache_mode", (getter)buffer_get_cache_mode, NULL, "CacheMode of the buffer.", NULL },
	{ "dmabuf_fd", (getter)buffer_get_dmabuf_fd, NULL,
	  "The dma-buf file descriptor (offload_buf_dmabuf_fd()), or None if the buffer is\n"
	  "not a dma-buf. The Buffer owns it and closes it on close(): os.dup() it to\n"
	  "keep the dma-buf longer.", NULL },
	{ "dmabuf_exporter", (getter)buffer_get_dmabuf_exporter, NULL,
	  "The kernel's name for the dma-buf's exporter (\"udmabuf\", \"system\", a driver\n"
	  "name for an import), or None if the buffer is not a dma-buf.", NULL },
	{ "closed", (getter)buffer_get_closed, NULL, "True once the buffer is freed.", NULL },
	{ "context", (getter)buffer_get_context, NULL, "The Context the buffer belongs to.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoBuffer_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.Buffer",
	.tp_basicsize = sizeof(PyoBuffer),
	.tp_dealloc = (destructor)buffer_dealloc,
	.tp_repr = (reprfunc)buffer_repr,
	.tp_as_sequence = &buffer_as_sequence,
	.tp_as_buffer = &buffer_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Buffer(ctx, size, dev=None, *, uncached=False, dmabuf=False)\n--\n\n"
		  "A DMA buffer device `dev` can reach (offload_buf_alloc()), writable through\n"
		  "the buffer protocol: memoryview(buf), numpy.frombuffer(buf, dtype), or pass it\n"
		  "to Context.memcpy(), Queue.copy(), ciphers and SPI transfers, which then use it\n"
		  "without bouncing. len(buf) is its size. A context manager.\n\n"
		  "size: bytes (> 0), rounded up to the cache line. dev: None for plain memory\n"
		  "for the CPU, an index, a name or a DeviceInfo. uncached: ask for uncached\n"
		  "memory instead of the device's cache mode.\n"
		  "dmabuf: True for a Linux dma-buf (OFFLOAD_BUF_DMABUF) from /dev/udmabuf, else\n"
		  "/dev/dma_heap/system; \"udmabuf\" or \"heap\" for that exporter only. Its fd is\n"
		  "dmabuf_fd. It starts in the CPU's hands (DMA_BUF_IOCTL_SYNC START):\n"
		  "sync_for_device() ends the CPU's access before another device or process uses\n"
		  "it, sync_for_cpu() begins it again. Only the CPU and spidev take one: a\n"
		  "device the library drives itself, and AF_ALG (the kernel cannot pin a dma-buf\n"
		  "mapping's pages), raise NotSupported.\n"
		  "Raises InvalidArgument (size 0), NoDevice, Error(ENOMEM) when no provider has\n"
		  "that much DMA memory (the message lists what was tried); with dmabuf also\n"
		  "NoDevice (no exporter node: the message names each path), PermissionDenied\n"
		  "(a node this process may not open), Error(ENOMEM) (udmabuf's size_limit_mb\n"
		  "and no system heap), NotSupported (a direct engine or AF_ALG).",
	.tp_weaklistoffset = offsetof(PyoBuffer, weakreflist),
	.tp_methods = buffer_methods,
	.tp_getset = buffer_getset,
	.tp_init = (initproc)buffer_init,
	.tp_new = buffer_new,
};

int pyo_init_buffer(PyObject *m)
{
	return pyo_add_type(m, &PyoBuffer_Type, "Buffer");
}
