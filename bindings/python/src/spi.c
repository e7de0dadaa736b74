/* SPDX-License-Identifier: MIT */
/* offload.Spi and offload.Transfer: SPI messages of full-duplex transfers. */
#include <errno.h>
#include <stdint.h>

#include "pyoffload.h"

/* ------------------------------------------------------------------ Transfer */

typedef struct {
	PyObject_HEAD
	PyObject *tx;      /* bytes-like or None */
	PyObject *rx;      /* writable bytes-like or None */
	PyObject *rx_len;  /* int or None */
	unsigned int speed_hz;
	unsigned int delay_usecs;
	unsigned int bits_per_word;
	int cs_change;
	unsigned int tx_nbits;
	unsigned int rx_nbits;
	unsigned int word_delay_usecs;
} PyoTransfer;

static int field(PyObject *o, unsigned long long max, const char *what, unsigned int *out)
{
	unsigned long long v;

	if (!o)
		return 0;
	if (pyo_uint_arg(o, max, what, &v) < 0)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int xfer_init(PyoTransfer *t, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "tx", "rx_len", "rx", "speed_hz", "delay_usecs", "bits_per_word",
				  "cs_change", "tx_nbits", "rx_nbits", "word_delay_usecs", NULL };
	PyObject *tx = Py_None, *rx_len = Py_None, *rx = Py_None;
	PyObject *speed = NULL, *delay = NULL, *bpw = NULL, *txn = NULL, *rxn = NULL, *wd = NULL;
	PyObject *cs_changeo = NULL;
	int cs_change = 0;
	unsigned long long n;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO$OOOOOOOO:Transfer", kwlist, &tx, &rx_len,
					 &rx, &speed, &delay, &bpw, &cs_changeo, &txn, &rxn, &wd) ||
	    pyo_bool_arg(cs_changeo, "cs_change", &cs_change) < 0)
		return -1;
	if (field(speed, UINT32_MAX, "speed_hz", &t->speed_hz) < 0 ||
	    field(delay, UINT16_MAX, "delay_usecs", &t->delay_usecs) < 0 ||
	    field(bpw, UINT8_MAX, "bits_per_word", &t->bits_per_word) < 0 ||
	    field(txn, UINT8_MAX, "tx_nbits", &t->tx_nbits) < 0 ||
	    field(rxn, UINT8_MAX, "rx_nbits", &t->rx_nbits) < 0 ||
	    field(wd, UINT8_MAX, "word_delay_usecs", &t->word_delay_usecs) < 0)
		return -1;
	if (rx_len != Py_None && pyo_uint_arg(rx_len, UINT32_MAX, "rx_len", &n) < 0)
		return -1;
	if (rx != Py_None && rx_len != Py_None) {
		pyo_raise(EINVAL, "Transfer: give rx (a buffer to fill) or rx_len, not both");
		return -1;
	}
	if (tx == Py_None && rx == Py_None && rx_len == Py_None) {
		pyo_raise(EINVAL, "Transfer: needs tx, rx or rx_len (a transfer with neither clocks "
			  "nothing)");
		return -1;
	}
	t->cs_change = cs_change;
	Py_INCREF(tx);
	Py_XSETREF(t->tx, tx);
	Py_INCREF(rx);
	Py_XSETREF(t->rx, rx);
	Py_INCREF(rx_len);
	Py_XSETREF(t->rx_len, rx_len);
	return 0;
}

static PyObject *xfer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	PyoTransfer *t = (PyoTransfer *)type->tp_alloc(type, 0);

	if (!t)
		return NULL;
	t->tx = Py_None;
	t->rx = Py_None;
	t->rx_len = Py_None;
	Py_INCREF(Py_None);
	Py_INCREF(Py_None);
	Py_INCREF(Py_None);
	return (PyObject *)t;
}

static int xfer_traverse(PyoTransfer *t, visitproc visit, void *arg)
{
	Py_VISIT(t->tx);
	Py_VISIT(t->rx);
	Py_VISIT(t->rx_len);
	return 0;
}

static int xfer_clear(PyoTransfer *t)
{
	Py_CLEAR(t->tx);
	Py_CLEAR(t->rx);
	Py_CLEAR(t->rx_len);
	return 0;
}

static void xfer_dealloc(PyoTransfer *t)
{
	PyObject_GC_UnTrack(t);
	xfer_clear(t);
	Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyObject *xfer_repr(PyoTransfer *t)
{
	return PyUnicode_FromFormat("Transfer(tx=%R, rx_len=%R, rx=%R, speed_hz=%u, cs_change=%s)",
				    t->tx, t->rx_len, t->rx, t->speed_hz,
				    t->cs_change ? "True" : "False");
}

static PyMemberDef xfer_members[] = {
	{ "tx", T_OBJECT, offsetof(PyoTransfer, tx), READONLY,
	  "Bytes to send, or None to send zeros." },
	{ "rx_len", T_OBJECT, offsetof(PyoTransfer, rx_len), READONLY,
	  "Bytes to receive into new bytes; None: len(tx) when tx is given (full duplex);\n"
	  "0: discard what is received." },
	{ "rx", T_OBJECT, offsetof(PyoTransfer, rx), READONLY,
	  "A writable buffer to receive into instead (may be tx itself), or None." },
	{ "speed_hz", T_UINT, offsetof(PyoTransfer, speed_hz), READONLY,
	  "Clock for this transfer in Hz; 0 = the handle's default." },
	{ "delay_usecs", T_UINT, offsetof(PyoTransfer, delay_usecs), READONLY,
	  "Delay after the last bit, before CS changes, in microseconds." },
	{ "bits_per_word", T_UINT, offsetof(PyoTransfer, bits_per_word), READONLY,
	  "Word size in bits; 0 = the handle's default." },
	{ "cs_change", T_BOOL, offsetof(PyoTransfer, cs_change), READONLY,
	  "Release CS after this transfer (not the last), or keep it asserted after the\n"
	  "message (the last)." },
	{ "tx_nbits", T_UINT, offsetof(PyoTransfer, tx_nbits), READONLY,
	  "TX data lines: 0 or 1 single, 2 dual, 4 quad." },
	{ "rx_nbits", T_UINT, offsetof(PyoTransfer, rx_nbits), READONLY,
	  "RX data lines: 0 or 1 single, 2 dual, 4 quad." },
	{ "word_delay_usecs", T_UINT, offsetof(PyoTransfer, word_delay_usecs), READONLY,
	  "Delay between words in microseconds." },
	{ NULL, 0, 0, 0, NULL }
};

PyTypeObject PyoTransfer_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.Transfer",
	.tp_basicsize = sizeof(PyoTransfer),
	.tp_dealloc = (destructor)xfer_dealloc,
	.tp_repr = (reprfunc)xfer_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "Transfer(tx=None, rx_len=None, *, rx=None, speed_hz=0, delay_usecs=0, "
		  "bits_per_word=0, cs_change=False, tx_nbits=0, rx_nbits=0, word_delay_usecs=0)\n"
		  "--\n\n"
		  "One transfer of an SPI message (struct offload_spi_xfer), for Spi.transfer().\n"
		  "Its length is len(tx), or len(rx) / rx_len without tx (zeros are sent). With tx,\n"
		  "what is received is returned unless rx_len=0; rx_len or len(rx) must then equal\n"
		  "len(tx). Lengths must suit the word size (a multiple of 2 bytes for 9..16-bit\n"
		  "words, of 4 for 17..32). Raises InvalidArgument for rx and rx_len together, for\n"
		  "none of tx, rx and rx_len, and for out-of-range fields.",
	.tp_traverse = (traverseproc)xfer_traverse,
	.tp_clear = (inquiry)xfer_clear,
	.tp_members = xfer_members,
	.tp_init = (initproc)xfer_init,
	.tp_new = xfer_new,
};

/* ------------------------------------------------------------------ Spi */

typedef struct {
	PyObject_HEAD
	struct pyo_child link; /* handle: the offload_spi */
} PyoSpi;

#define SPI(o) ((offload_spi *)(o)->link.handle)

static int spi_lib_close(void *h)
{
	return offload_spi_close(h);
}

static PyObject *spi_new(PyTypeObject *t, PyObject *args, PyObject *kwds)
{
	return pyo_child_new(t, PYO_CHILD_HANDLE, NULL, spi_lib_close);
}

static int spi_init(PyoSpi *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "ctx", "node_or_path", "chip_select", "mode", "max_speed_hz",
				  "bits_per_word", "no_cs_hold", NULL };
	PyoCtx *c;
	PyObject *path = NULL, *cso = Py_None, *modeo = Py_None, *speedo = Py_None, *bpwo = Py_None;
	PyObject *no_cs_holdo = NULL;
	int no_cs_hold = 0, r;
	struct offload_spi_opts opts;
	unsigned long long v;
	offload_spi *spi = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O&|OOOO$O:Spi", kwlist, &PyoCtx_Type, &c,
					 PyUnicode_FSConverter, &path, &cso, &modeo, &speedo, &bpwo,
					 &no_cs_holdo))
		return -1;
	if (pyo_child_init_begin(&o->link, c, "Spi") < 0 ||
	    pyo_bool_arg(no_cs_holdo, "no_cs_hold", &no_cs_hold) < 0)
		goto fail;
	offload_spi_opts_init(&opts);
	if (cso != Py_None) {
		if (pyo_uint_arg(cso, INT32_MAX, "chip_select", &v) < 0)
			goto fail;
		opts.chip_select = (int)v;
	}
	if (modeo != Py_None) {
		/* Unknown bits are the library's to refuse, with its message. */
		if (pyo_uint_arg(modeo, INT64_MAX, "mode", &v) < 0)
			goto fail;
		opts.mode = (int64_t)v;
	}
	if (speedo != Py_None) {
		if (pyo_uint_arg(speedo, UINT32_MAX, "max_speed_hz", &v) < 0)
			goto fail;
		opts.max_speed_hz = (uint32_t)v;
	}
	if (bpwo != Py_None) {
		if (pyo_uint_arg(bpwo, UINT8_MAX, "bits_per_word", &v) < 0)
			goto fail;
		opts.bits_per_word = (uint8_t)v;
	}
	opts.flags = no_cs_hold ? OFFLOAD_SPI_OPEN_NO_CS_HOLD : 0;
	PYO_BEGIN(c);
	r = offload_spi_open(c->ctx, PyBytes_AS_STRING(path), &opts, &spi);
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		goto fail;
	}
	Py_DECREF(path);
	pyo_child_attach(&o->link, c, spi);
	return 0;
fail:
	Py_XDECREF(path);
	return -1;
}

/* Views and outputs of one message, released by message_free(). */
struct message {
	Py_ssize_t n;
	struct offload_spi_xfer *x;
	Py_buffer *tx, *rx;
	PyObject **out;
};

static void message_free(struct message *m)
{
	for (Py_ssize_t i = 0; i < m->n; i++) {
		if (m->tx)
			pyo_release_buffer(&m->tx[i]);
		if (m->rx)
			pyo_release_buffer(&m->rx[i]);
		if (m->out)
			Py_XDECREF(m->out[i]);
	}
	PyMem_Free(m->x);
	PyMem_Free(m->tx);
	PyMem_Free(m->rx);
	PyMem_Free(m->out);
}

static char empty_mem;

/* Fill transfer i of the message from a Transfer. 0, or -1 with an exception. */
static int message_add(struct message *m, Py_ssize_t i, PyObject *item)
{
	if (!PyObject_TypeCheck(item, &PyoTransfer_Type)) {
		PyErr_Format(PyExc_TypeError, "transfer %zd is a %.80s, not an offload.Transfer", i,
			     Py_TYPE(item)->tp_name);
		return -1;
	}
	PyoTransfer *t = (PyoTransfer *)item;
	struct offload_spi_xfer *x = &m->x[i];
	Py_buffer *tx = &m->tx[i], *rx = &m->rx[i];
	Py_ssize_t n_rx, len;

	if (pyo_get_buffer_opt(t->tx, tx, 0, "tx") < 0 || pyo_get_buffer_opt(t->rx, rx, 1, "rx") < 0)
		return -1;
	if (rx->obj)
		n_rx = rx->len;
	else if (t->rx_len != Py_None)
		n_rx = PyLong_AsSsize_t(t->rx_len);
	else
		n_rx = tx->len;
	if (n_rx == -1 && PyErr_Occurred())
		return -1;
	if (tx->obj && n_rx != 0 && n_rx != tx->len) {
		pyo_raise(EINVAL, "transfer %zd: tx is %zd bytes but %zd are to be received; an SPI "
			  "transfer is full duplex (use two transfers for write-then-read)", i,
			  tx->len, n_rx);
		return -1;
	}
	len = tx->obj ? tx->len : n_rx;
	if ((unsigned long long)len > UINT32_MAX) {
		pyo_raise(EINVAL, "transfer %zd: %zd bytes is more than one transfer can carry", i, len);
		return -1;
	}
	x->len = (uint32_t)len;
	x->tx = tx->obj ? (tx->buf ? tx->buf : &empty_mem) : NULL;
	if (rx->obj) {
		x->rx = rx->buf ? rx->buf : &empty_mem;
		m->out[i] = t->rx;
		Py_INCREF(t->rx);
	} else if (n_rx > 0) {
		m->out[i] = PyBytes_FromStringAndSize(NULL, n_rx);
		if (!m->out[i])
			return -1;
		x->rx = PyBytes_AS_STRING(m->out[i]);
	} else {
		m->out[i] = Py_None;
		Py_INCREF(Py_None);
	}
	x->speed_hz = t->speed_hz;
	x->delay_usecs = (uint16_t)t->delay_usecs;
	x->bits_per_word = (uint8_t)t->bits_per_word;
	x->cs_change = (uint8_t)(t->cs_change != 0);
	x->tx_nbits = (uint8_t)t->tx_nbits;
	x->rx_nbits = (uint8_t)t->rx_nbits;
	x->word_delay_usecs = (uint8_t)t->word_delay_usecs;
	return 0;
}

static PyObject *spi_transfer(PyoSpi *o, PyObject *arg)
{
	struct message m = { 0 };
	PyObject *ret = NULL;
	int r;

	if (pyo_child_enter(&o->link, SPI(o), "Spi") < 0)
		return NULL;
	PyObject *seq = PySequence_Fast(arg, "transfer() needs a sequence of offload.Transfer");
	if (!seq)
		goto out;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
	if (n > OFFLOAD_SPI_MAX_XFERS) {
		pyo_raise(EINVAL, "transfer: %zd transfers; a message has at most %d", n,
			  OFFLOAD_SPI_MAX_XFERS);
		goto out;
	}
	/* One spare entry so that an empty message still passes a valid array. */
	m.x = PyMem_Calloc((size_t)n + 1, sizeof(*m.x));
	m.tx = PyMem_Calloc((size_t)n + 1, sizeof(*m.tx));
	m.rx = PyMem_Calloc((size_t)n + 1, sizeof(*m.rx));
	m.out = PyMem_Calloc((size_t)n + 1, sizeof(*m.out));
	if (!m.x || !m.tx || !m.rx || !m.out) {
		PyErr_NoMemory();
		goto out;
	}
	m.n = n;
	for (Py_ssize_t i = 0; i < n; i++)
		if (message_add(&m, i, PySequence_Fast_GET_ITEM(seq, i)) < 0)
			goto out;
	PYO_BEGIN(o->link.owner);
	r = offload_spi_transfer(SPI(o), m.x, (unsigned)n);
	PYO_END(o->link.owner);
	if (r < 0) {
		pyo_raise_lib(o->link.owner->ctx, r);
		goto out;
	}
	ret = PyList_New(n);
	if (!ret)
		goto out;
	for (Py_ssize_t i = 0; i < n; i++) {
		PyList_SET_ITEM(ret, i, m.out[i]);
		m.out[i] = NULL;
	}
out:
	Py_XDECREF(seq);
	message_free(&m);
	pyo_child_leave(&o->link);
	return ret;
}

static PyObject *spi_xfer(PyoSpi *o, PyObject *args, PyObject *kwds)
{
	PyObject *t = PyObject_Call((PyObject *)&PyoTransfer_Type, args, kwds);

	if (!t)
		return NULL;
	PyObject *one = PyTuple_Pack(1, t);
	Py_DECREF(t);
	if (!one)
		return NULL;
	PyObject *l = spi_transfer(o, one);
	Py_DECREF(one);
	if (!l)
		return NULL;
	PyObject *r = PyList_GET_ITEM(l, 0);
	Py_INCREF(r);
	Py_DECREF(l);
	return r;
}

static PyObject *spi_info(PyoSpi *o, PyObject *unused)
{
	struct offload_spi_info i;

	if (pyo_child_enter(&o->link, SPI(o), "Spi") < 0)
		return NULL;
	int r = offload_spi_get_info(SPI(o), &i, sizeof(i));
	pyo_child_leave(&o->link);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	PyObject *s = PyStructSequence_New(Pyo_SpiInfoType);
	if (!s)
		return NULL;
	PyObject *v[12] = {
		pyo_str(i.backend), pyo_str(i.path), PyLong_FromLong(i.dev),
		PyLong_FromLong(i.chip_select), pyo_enum(Pyo_SpiMode, i.mode),
		PyLong_FromUnsignedLong(i.max_speed_hz), PyLong_FromUnsignedLong(i.actual_speed_hz),
		PyLong_FromUnsignedLong(i.bits_per_word), PyLong_FromUnsignedLong(i.cs_setup_ns),
		PyLong_FromUnsignedLong(i.cs_hold_ns), PyLong_FromUnsignedLong(i.max_message_bytes),
		pyo_enum(Pyo_ResFlag, i.flags),
	};
	int bad = 0;
	for (int k = 0; k < 12; k++) {
		if (!v[k])
			bad = 1;
		else
			PyStructSequence_SetItem(s, k, v[k]);
	}
	if (bad) {
		Py_DECREF(s);
		return NULL;
	}
	return s;
}

/* set_mode() and set_speed(): offload_spi_set_mode() / _set_speed() with the GIL released. */
static PyObject *spi_set(PyoSpi *o, PyObject *arg, int mode)
{
	unsigned long long v;
	int r;

	/* Unknown mode bits are the library's to refuse, with its message. */
	if (pyo_uint_arg(arg, UINT32_MAX, mode ? "mode" : "hz", &v) < 0)
		return NULL;
	if (pyo_child_enter(&o->link, SPI(o), "Spi") < 0)
		return NULL;
	PYO_BEGIN(o->link.owner);
	r = mode ? offload_spi_set_mode(SPI(o), (uint32_t)v) : offload_spi_set_speed(SPI(o), (uint32_t)v);
	PYO_END(o->link.owner);
	pyo_child_leave(&o->link);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	Py_RETURN_NONE;
}

static PyObject *spi_set_mode(PyoSpi *o, PyObject *arg)
{
	return spi_set(o, arg, 1);
}

static PyObject *spi_set_speed(PyoSpi *o, PyObject *arg)
{
	return spi_set(o, arg, 0);
}

static PyObject *spi_close(PyoSpi *o, PyObject *unused)
{
	return pyo_child_close_method(&o->link, SPI(o), "Spi");
}

static PyObject *spi_enter(PyoSpi *o, PyObject *unused)
{
	return pyo_child_enter_method(&o->link, SPI(o), "Spi");
}

static PyObject *spi_exit(PyoSpi *o, PyObject *args)
{
	return pyo_child_exit_method(&o->link, SPI(o), "Spi");
}

static PyObject *spi_get_closed(PyoSpi *o, void *unused)
{
	return PyBool_FromLong(SPI(o) == NULL);
}

static PyObject *spi_get_context(PyoSpi *o, void *unused)
{
	return pyo_child_context(&o->link);
}

static PyMethodDef spi_methods[] = {
	{ "xfer", (PyCFunction)(void (*)(void))spi_xfer, METH_VARARGS | METH_KEYWORDS,
	  "xfer($self, /, tx=None, rx_len=None, *, rx=None, speed_hz=0, delay_usecs=0, "
	  "bits_per_word=0, cs_change=False, tx_nbits=0, rx_nbits=0, word_delay_usecs=0)\n--\n\n"
	  "Send a message of one transfer (see Transfer for the arguments) and return what\n"
	  "was received: new bytes, the `rx` object, or None when rx_len=0. The GIL is\n"
	  "released. Errors as transfer()." },
	{ "transfer", (PyCFunction)spi_transfer, METH_O,
	  "transfer($self, transfers, /)\n--\n\n"
	  "Send one message: a sequence of Transfer (1..SPI_MAX_XFERS) with chip select\n"
	  "handled as each one's cs_change says (offload_spi_transfer()); return a list with\n"
	  "what each transfer received (bytes, its rx object, or None). Messages larger\n"
	  "than the backend takes at once are split where the wire stays the same. The GIL\n"
	  "is released; every buffer is held for the duration.\n\n"
	  "Raises InvalidArgument (empty message, zero length, length not a multiple of\n"
	  "the word size, overlapping buffers, bad nbits, a per-transfer clock the\n"
	  "controller ignores), MessageTooLong, Timeout, EngineError, or another Error\n"
	  "with the kernel's errno." },
	{ "set_mode", (PyCFunction)spi_set_mode, METH_O,
	  "set_mode($self, mode, /)\n--\n\n"
	  "Change the handle's mode (SpiMode bits) for every later message\n"
	  "(offload_spi_set_mode()): through spidev a read-modify-write that keeps the\n"
	  "kernel's own bits, then the clock written again; on the direct DSPI a new CTAR\n"
	  "and MCR.PCSIS. On failure nothing changes. info().mode then shows the mode in\n"
	  "effect. The GIL is released.\n\n"
	  "Raises InvalidArgument (unknown or contradictory bits, bits the controller\n"
	  "lacks or the backend refuses), Busy (the chip select is held by the last\n"
	  "message's cs_change), Closed, or another Error with the kernel's errno." },
	{ "set_speed", (PyCFunction)spi_set_speed, METH_O,
	  "set_speed($self, hz, /)\n--\n\n"
	  "Change the handle's default clock in Hz (> 0) for every later transfer whose\n"
	  "speed_hz is 0 (offload_spi_set_speed()); info().actual_speed_hz then shows what\n"
	  "the controller produces where the backend knows it. On failure nothing changes.\n"
	  "The GIL is released.\n\n"
	  "Raises InvalidArgument (0, a clock the kernel refuses or below the slowest the\n"
	  "DSPI divider reaches), Busy (the chip select is held), Closed, or\n"
	  "another Error with the kernel's errno." },
	{ "info", (PyCFunction)spi_info, METH_NOARGS,
	  "info($self, /)\n--\n\nDescribe the handle: an SpiInfo (offload_spi_get_info())." },
	{ "close", (PyCFunction)spi_close, METH_NOARGS,
	  "close($self, /)\n--\n\nClose the handle. Closing twice does nothing." },
	{ "__enter__", (PyCFunction)spi_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturn the handle." },
	{ "__exit__", (PyCFunction)spi_exit, METH_VARARGS,
	  "__exit__($self, *exc_info, /)\n--\n\nClose the handle." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef spi_getset[] = {
	{ "closed", (getter)spi_get_closed, NULL, "True once the handle is closed.", NULL },
	{ "context", (getter)spi_get_context, NULL, "The Context the handle belongs to.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoSpi_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.Spi",
	.tp_basicsize = sizeof(PyoSpi),
	.tp_dealloc = pyo_child_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Spi(ctx, node_or_path, chip_select=None, mode=None, max_speed_hz=None, "
		  "bits_per_word=None, *, no_cs_hold=False)\n--\n\n"
		  "An SPI device: one chip select of one controller (offload_spi_open()).\n\n"
		  "node_or_path: '/dev/spidevB.C', a device-tree peripheral node (its\n"
		  "spi-max-frequency, spi-cpol/cpha, spi-cs-high, spi-lsb-first and CS delays\n"
		  "configure it), or a controller node with chip_select. mode: SpiMode bits to\n"
		  "use instead of the device tree's (None keeps them; for a spidev path, the\n"
		  "kernel's). max_speed_hz: default clock in Hz (None keeps the DT's or\n"
		  "spidev's). bits_per_word: default word size (None: 8). no_cs_hold: never keep\n"
		  "CS asserted across the parts of a split message (set it on a shared bus).\n"
		  "A context manager; belongs to one thread at a time.\n\n"
		  "Raises InvalidArgument (bad option or mode bits, controller path without\n"
		  "chip_select or child path with one), NotFound (no such node or device file),\n"
		  "NoDevice (disabled, or no backend reaches it), PermissionDenied, Closed.",
	.tp_methods = spi_methods,
	.tp_getset = spi_getset,
	.tp_init = (initproc)spi_init,
	.tp_new = spi_new,
};

int pyo_init_spi(PyObject *m)
{
	if (pyo_add_type(m, &PyoTransfer_Type, "Transfer") < 0 ||
	    pyo_add_type(m, &PyoSpi_Type, "Spi") < 0)
		return -1;
	return 0;
}
