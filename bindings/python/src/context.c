/* SPDX-License-Identifier: MIT */
/* offload.Context and offload.DeviceInfo. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "pyoffload.h"

/* ------------------------------------------------------------------ children */

int pyo_ctx_check(PyoCtx *c)
{
	if (!c->ctx) {
		pyo_raise(EBADF, "the Context is closed");
		return -1;
	}
	return 0;
}

PyObject *pyo_child_new(PyTypeObject *t, enum pyo_child_kind kind, int (*close)(PyObject *self),
			int (*lib_close)(void *handle))
{
	PyoChild *o = (PyoChild *)t->tp_alloc(t, 0);

	if (!o)
		return NULL;
	o->link.self = (PyObject *)o;
	o->link.kind = kind;
	o->link.close = close ? close : pyo_child_close_lib;
	o->link.lib_close = lib_close;
	return (PyObject *)o;
}

int pyo_child_init_begin(struct pyo_child *ch, PyoCtx *c, const char *what)
{
	if (ch->owner) {
		pyo_raise(EBUSY, "%s.__init__: the object was already opened", what);
		return -1;
	}
	return pyo_ctx_check(c);
}

void pyo_child_attach(struct pyo_child *ch, PyoCtx *c, void *handle)
{
	struct pyo_child *head = &c->children;

	ch->handle = handle;
	Py_INCREF(c);
	ch->owner = c;
	ch->next = head;
	ch->prev = head->prev;
	head->prev->next = ch;
	head->prev = ch;
}

int pyo_child_close_lib(PyObject *self)
{
	struct pyo_child *ch = &((PyoChild *)self)->link;

	if (!ch->handle)
		return 0;
	int r = ch->lib_close(ch->handle);
	ch->handle = NULL;
	pyo_child_unlink(ch);
	if (r < 0) {
		pyo_raise_lib(ch->owner->ctx, r);
		return -1;
	}
	return 0;
}

void pyo_child_finalize(PyObject *self)
{
	struct pyo_child *ch = &((PyoChild *)self)->link;

	if (ch->owner && ch->close(self) < 0)
		PyErr_WriteUnraisable(self);
	pyo_child_unlink(ch);
	Py_CLEAR(ch->owner);
}

void pyo_child_dealloc(PyObject *self)
{
	pyo_child_finalize(self);
	Py_TYPE(self)->tp_free(self);
}

void pyo_child_unlink(struct pyo_child *ch)
{
	if (!ch->next)
		return;
	ch->prev->next = ch->next;
	ch->next->prev = ch->prev;
	ch->next = ch->prev = NULL;
}

int pyo_child_enter(struct pyo_child *ch, const void *handle, const char *what)
{
	if (!handle) {
		pyo_raise(EBADF, "the %s is closed", what);
		return -1;
	}
	if (ch->busy) {
		pyo_raise(EBUSY, "the %s is in use by another thread (a handle belongs to one thread "
			  "at a time)", what);
		return -1;
	}
	ch->busy = 1;
	return 0;
}

void pyo_child_leave(struct pyo_child *ch)
{
	ch->busy = 0;
}

PyObject *pyo_child_close_method(struct pyo_child *ch, const void *handle, const char *what)
{
	if (!handle)
		Py_RETURN_NONE;
	if (ch->busy)
		return pyo_raise(EBUSY, "%s.close: the %s is in use by another thread", what, what);
	if (ch->close(ch->self) < 0)
		return NULL;
	Py_RETURN_NONE;
}

PyObject *pyo_child_enter_method(struct pyo_child *ch, const void *handle, const char *what)
{
	if (!handle)
		return pyo_raise(EBADF, "the %s is closed", what);
	Py_INCREF(ch->self);
	return ch->self;
}

PyObject *pyo_child_exit_method(struct pyo_child *ch, const void *handle, const char *what)
{
	PyObject *r = pyo_child_close_method(ch, handle, what);

	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

PyObject *pyo_child_context(struct pyo_child *ch)
{
	if (!ch->owner)
		Py_RETURN_NONE;
	Py_INCREF(ch->owner);
	return (PyObject *)ch->owner;
}

int pyo_dev_arg(PyoCtx *c, PyObject *arg, int *dev)
{
	if (!arg || arg == Py_None) {
		*dev = OFFLOAD_DEV_AUTO;
		return 0;
	}
	if (PyObject_TypeCheck(arg, &PyoDevInfo_Type)) {
		PyObject *i = PyObject_GetAttrString(arg, "index");
		if (!i)
			return -1;
		int r = pyo_dev_arg(c, i, dev);
		Py_DECREF(i);
		return r;
	}
	if (PyUnicode_Check(arg)) {
		const char *key = PyUnicode_AsUTF8(arg);
		if (!key || pyo_ctx_check(c) < 0)
			return -1;
		int r = offload_dev_find(c->ctx, key);
		if (r < 0) {
			pyo_raise_lib(c->ctx, r);
			return -1;
		}
		*dev = r;
		return 0;
	}
	if (PyLong_Check(arg) && !PyBool_Check(arg)) {
		int overflow = 0;
		long v = PyLong_AsLongAndOverflow(arg, &overflow);
		if (v == -1 && PyErr_Occurred())
			return -1;
		if (overflow || v < OFFLOAD_DEV_AUTO || v > INT_MAX) {
			pyo_raise(EINVAL, "dev %R is not a device index (or DEV_AUTO)", arg);
			return -1;
		}
		*dev = (int)v;
		return 0;
	}
	PyErr_Format(PyExc_TypeError,
		     "dev must be None, an int index, a str (name, DT path or compatible) or a "
		     "DeviceInfo, not %.80s", Py_TYPE(arg)->tp_name);
	return -1;
}

/* ------------------------------------------------------------------ DeviceInfo */

/* X(name, doc): every field of struct offload_dev_info, in its order. */
#define DEVINFO_FIELDS(X)                                                                          \
	X(index, "Index of the device, 0 .. n-1.")                                                  \
	X(name, "Short unique name, e.g. 'cpu', 'af_alg', 'dma-controller@31150000'.")              \
	X(kind, "Device kind: 'cpu', 'af_alg', or its engine's, e.g. 'k3-udma'.")                   \
	X(dt_path, "Full device-tree path, or '' for devices not from the device tree.")            \
	X(compatible, "The compatible string that matched, or ''.")                                 \
	X(status, "Device-tree status ('okay', 'disabled', ...); 'okay' for non-DT devices.")       \
	X(backend, "Name of the backend serving the device, or '' if none.")                        \
	X(candidates, "Comma-separated backends that could serve this kind of device.")             \
	X(usable_reason, "Why the device is or is not usable, in words.")                           \
	X(caps, "Cap bits (MEMCPY, CIPHER, HASH, SPI).")                                            \
	X(flags, "DevFlag bits (ENABLED, USABLE, SIM, DIRECT, KERNEL, CPU, AUTO).")                 \
	X(phys_addr, "CPU physical address of the first register region (0 if none).")             \
	X(phys_size, "Size of the first register region in bytes (0 if none).")                     \
	X(coherent, "True if the device is DMA-coherent.")                                          \
	X(coherent_reason, "Reason for the coherency decision; names the deciding node.")           \
	X(cache_mode, "CacheMode of this device's DMA buffers.")                                    \
	X(cache_reason, "Reason for the cache mode.")                                               \
	X(burst_bytes, "Burst size in bytes programmed or assumed (0 if not applicable).")          \
	X(burst_reason, "Reason for the burst size.")                                               \
	X(align_bytes, "Buffer and length alignment in bytes that gives full speed (1 if any).")    \
	X(align_reason, "Reason for the alignment.")                                                \
	X(threshold_bytes, "Operations smaller than this many bytes go to the CPU instead.")        \
	X(threshold_reason, "Reason for the threshold.")                                            \
	X(transfer_mode, "Transfer mode, e.g. 'tr-type15', 'xspi-pio', 'ring', 'memcpy'.")          \
	X(transfer_reason, "Reason for the transfer mode.")                                         \
	X(phys_reason, "How phys_addr was found (reg entry and the ranges it crossed), or why it is 0.") \
	X(coherent_node, "Path of the node whose dma-coherent / dma-noncoherent (or ti,asel)\n"     \
			 "decided coherent; '' when none did (the default: not coherent).")        \
	X(soc_io_coherent, "True if the capability table knows this SoC's interconnect to be\n"    \
			   "I/O-coherent (the policy still follows the device tree).")             \
	X(soc_io_coherent_reason, "Evidence for soc_io_coherent (upstream change or manual), or ''.") \
	X(burst_by_class, "K3 DMA: burst in bytes per channel class (normal, H, UH) as the Linux\n" \
			  "driver's match data gives it, 0 = no channel of that class; (0, 0, 0) for\n" \
			  "other engines.")                                                         \
	X(memcpy_class, "Channel class memcpy uses (0 normal, 1 H, 2 UH), or -1 if not applicable.")

#define X_ENUM(n, d) DI_##n,
enum { DEVINFO_FIELDS(X_ENUM) DI_COUNT };
#undef X_ENUM

typedef struct {
	PyObject_HEAD
	PyObject *f[DI_COUNT];
} PyoDevInfo;

#define X_MEMBER(n, d) { #n, T_OBJECT, offsetof(PyoDevInfo, f) + DI_##n * sizeof(PyObject *), READONLY, d },
static PyMemberDef devinfo_members[] = {
	DEVINFO_FIELDS(X_MEMBER)
	{ NULL, 0, 0, 0, NULL }
};
#undef X_MEMBER

#define X_NAME(n, d) #n,
static const char *const devinfo_names[DI_COUNT] = { DEVINFO_FIELDS(X_NAME) };
#undef X_NAME

PyObject *pyo_devinfo_new(PyoCtx *c, int index)
{
	struct offload_dev_info i;
	int r = offload_dev_get_info(c->ctx, index, &i, sizeof(i));

	if (r < 0)
		return pyo_raise_lib(c->ctx, r);
	PyoDevInfo *o = PyObject_New(PyoDevInfo, &PyoDevInfo_Type);
	if (!o)
		return NULL;
	PyObject **f = o->f;
	f[DI_index] = PyLong_FromLong(i.index);
	f[DI_name] = pyo_str(i.name);
	f[DI_kind] = pyo_str(i.kind);
	f[DI_dt_path] = pyo_str(i.dt_path);
	f[DI_compatible] = pyo_str(i.compatible);
	f[DI_status] = pyo_str(i.status);
	f[DI_backend] = pyo_str(i.backend);
	f[DI_candidates] = pyo_str(i.candidates);
	f[DI_usable_reason] = pyo_str(i.usable_reason);
	f[DI_caps] = pyo_enum(Pyo_Cap, i.caps);
	f[DI_flags] = pyo_enum(Pyo_DevFlag, i.flags);
	f[DI_phys_addr] = PyLong_FromUnsignedLongLong(i.phys_addr);
	f[DI_phys_size] = PyLong_FromUnsignedLongLong(i.phys_size);
	f[DI_coherent] = PyBool_FromLong(i.coherent);
	f[DI_coherent_reason] = pyo_str(i.coherent_reason);
	f[DI_cache_mode] = pyo_enum(Pyo_CacheMode, i.cache_mode);
	f[DI_cache_reason] = pyo_str(i.cache_reason);
	f[DI_burst_bytes] = PyLong_FromUnsignedLong(i.burst_bytes);
	f[DI_burst_reason] = pyo_str(i.burst_reason);
	f[DI_align_bytes] = PyLong_FromUnsignedLong(i.align_bytes);
	f[DI_align_reason] = pyo_str(i.align_reason);
	f[DI_threshold_bytes] = PyLong_FromUnsignedLongLong(i.threshold_bytes);
	f[DI_threshold_reason] = pyo_str(i.threshold_reason);
	f[DI_transfer_mode] = pyo_str(i.transfer_mode);
	f[DI_transfer_reason] = pyo_str(i.transfer_reason);
	f[DI_phys_reason] = pyo_str(i.phys_reason);
	f[DI_coherent_node] = pyo_str(i.coherent_node);
	f[DI_soc_io_coherent] = PyBool_FromLong(i.soc_io_coherent);
	f[DI_soc_io_coherent_reason] = pyo_str(i.soc_io_coherent_reason);
	f[DI_burst_by_class] = Py_BuildValue("(III)", i.burst_by_class[0], i.burst_by_class[1],
					     i.burst_by_class[2]);
	f[DI_memcpy_class] = PyLong_FromLong(i.memcpy_class);
	for (int k = 0; k < DI_COUNT; k++)
		if (!f[k]) {
			Py_DECREF(o);
			return NULL;
		}
	return (PyObject *)o;
}

static void devinfo_dealloc(PyoDevInfo *o)
{
	for (int k = 0; k < DI_COUNT; k++)
		Py_XDECREF(o->f[k]);
	PyObject_Free(o);
}

static PyObject *devinfo_as_dict(PyoDevInfo *o, PyObject *unused)
{
	PyObject *d = PyDict_New();

	if (!d)
		return NULL;
	for (int k = 0; k < DI_COUNT; k++)
		if (PyDict_SetItemString(d, devinfo_names[k], o->f[k]) < 0) {
			Py_DECREF(d);
			return NULL;
		}
	return d;
}

/* Whether the device's flags have bit: True, False, or NULL with an exception. */
static PyObject *devinfo_flag(PyoDevInfo *o, unsigned long long bit)
{
	unsigned long long fl = PyLong_AsUnsignedLongLong(o->f[DI_flags]);

	if (fl == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	return PyBool_FromLong((fl & bit) != 0);
}

static PyObject *devinfo_usable(PyoDevInfo *o, void *unused)
{
	return devinfo_flag(o, OFFLOAD_DEVF_USABLE);
}

static PyObject *devinfo_automatic(PyoDevInfo *o, void *unused)
{
	return devinfo_flag(o, OFFLOAD_DEVF_AUTO);
}

static PyObject *devinfo_repr(PyoDevInfo *o)
{
	PyObject *u = devinfo_usable(o, NULL);

	if (!u)
		return NULL;
	PyObject *r = PyUnicode_FromFormat("DeviceInfo(index=%S, name=%R, kind=%R, backend=%R, usable=%S)",
					   o->f[DI_index], o->f[DI_name], o->f[DI_kind],
					   o->f[DI_backend], u);
	Py_DECREF(u);
	return r;
}

static PyMethodDef devinfo_methods[] = {
	{ "as_dict", (PyCFunction)devinfo_as_dict, METH_NOARGS,
	  "as_dict($self, /)\n--\n\n"
	  "Every field as a dict (keys in the order of struct offload_dev_info)." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef devinfo_getset[] = {
	{ "usable", (getter)devinfo_usable, NULL, "True if a backend serves the device (DevFlag.USABLE).", NULL },
	{ "automatic", (getter)devinfo_automatic, NULL,
	  "True if calls that leave the device to the library (dev=None) may choose it\n"
	  "(DevFlag.AUTO); False for an unusable device and for a model attached only\n"
	  "because no device tree was given or live, which serves only calls naming it.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoDevInfo_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.DeviceInfo",
	.tp_basicsize = sizeof(PyoDevInfo),
	.tp_dealloc = (destructor)devinfo_dealloc,
	.tp_repr = (reprfunc)devinfo_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A device of a Context and the decisions the library made for it, each with\n"
		  "its reason (struct offload_dev_info). A snapshot: it stays valid after the\n"
		  "Context is closed. Get them from Context.devices() or Context.device().",
	.tp_methods = devinfo_methods,
	.tp_members = devinfo_members,
	.tp_getset = devinfo_getset,
};

/* ------------------------------------------------------------------ Context */

static PyObject *ctx_new(PyTypeObject *t, PyObject *args, PyObject *kwds)
{
	PyoCtx *c = (PyoCtx *)t->tp_alloc(t, 0);

	if (c)
		c->children.next = c->children.prev = &c->children;
	return (PyObject *)c;
}

/* ",".join(backends) for a str or an iterable of str; NULL result means none. */
static int backends_arg(PyObject *b, PyObject **out)
{
	*out = NULL;
	if (!b || b == Py_None)
		return 0;
	if (PyUnicode_Check(b)) {
		Py_INCREF(b);
		*out = b;
		return 0;
	}
	PyObject *sep = PyUnicode_FromString(",");
	if (!sep)
		return -1;
	*out = PyUnicode_Join(sep, b);
	Py_DECREF(sep);
	if (!*out) {
		if (PyErr_ExceptionMatches(PyExc_TypeError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError,
				     "backends must be None, a str like 'cpu,kcapi' or an iterable of "
				     "str, not %.80s", Py_TYPE(b)->tp_name);
		}
		return -1;
	}
	return 0;
}

static int ctx_init(PyoCtx *c, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "dtb", "backends", "sim", "source", "no_env", "sim_noncoherent", NULL };
	PyObject *dtb = Py_None, *backends = Py_None, *source = Py_None, *be = NULL, *path = NULL;
	PyObject *simo = NULL, *no_envo = NULL, *sim_nco = NULL;
	int sim = 0, no_env = 0, sim_nc = 0, rc = -1;
	struct offload_ctx_opts o;
	Py_buffer blob = { 0 };

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOO$OOO:Context", kwlist, &dtb, &backends,
					 &simo, &source, &no_envo, &sim_nco) ||
	    pyo_bool_arg(simo, "sim", &sim) < 0 || pyo_bool_arg(no_envo, "no_env", &no_env) < 0 ||
	    pyo_bool_arg(sim_nco, "sim_noncoherent", &sim_nc) < 0)
		return -1;
	if (c->ctx || c->active) {
		pyo_raise(EBUSY, "Context.__init__: the context is already open");
		return -1;
	}
	offload_ctx_opts_init(&o);
	o.flags = (sim ? OFFLOAD_CTX_SIM : 0) | (no_env ? OFFLOAD_CTX_NO_ENV : 0) |
		  (sim_nc ? OFFLOAD_CTX_SIM_NONCOHERENT : 0);
#ifdef OFFLOAD_HAVE_SIM
	o.sim_provider = offload_sim_provider(); /* the models: sim=, DtSource.BUILTIN, the AUTO fallback */
#endif
	if (dtb == Py_None) {
		o.dt_source = OFFLOAD_DT_AUTO;
	} else if (PyUnicode_Check(dtb) || PyObject_HasAttrString(dtb, "__fspath__")) {
		if (!PyUnicode_FSConverter(dtb, &path))
			return -1;
		o.dt_source = OFFLOAD_DT_FILE;
		o.dtb_path = PyBytes_AS_STRING(path);
	} else {
		if (pyo_get_buffer(dtb, &blob, 0, "dtb") < 0)
			return -1;
		o.dt_source = OFFLOAD_DT_BLOB;
		o.dtb_blob = blob.buf;
		o.dtb_size = (size_t)blob.len;
	}
	if (source != Py_None) {
		long s = PyLong_AsLong(source);
		if (s == -1 && PyErr_Occurred())
			goto out;
		if (dtb != Py_None && s != (long)o.dt_source) {
			pyo_raise(EINVAL, "Context: dtb given with source=%R; a path means FILE, a "
				  "bytes-like object BLOB", source);
			goto out;
		}
		if (s < INT_MIN || s > INT_MAX) {
			pyo_raise(EINVAL, "Context: source %R is not a DtSource", source);
			goto out;
		}
		o.dt_source = (enum offload_dt_source)s;
	}
	if (backends_arg(backends, &be) < 0)
		goto out;
	if (be && !(o.backends = PyUnicode_AsUTF8(be)))
		goto out;

	offload_ctx *ctx = offload_ctx_new();
	if (!ctx) {
		PyErr_NoMemory();
		goto out;
	}
	int r;
	PYO_BEGIN(c); /* c->active also keeps a second __init__ and close() out meanwhile */
	r = offload_ctx_open(ctx, &o);
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(ctx, r);
		offload_ctx_free(ctx);
		goto out;
	}
	c->ctx = ctx;
	rc = 0;
out:
	pyo_release_buffer(&blob);
	Py_XDECREF(path);
	Py_XDECREF(be);
	return rc;
}

/* Close every child of one kind; stops at the first that refuses (a BufferError). */
static int close_kind(PyoCtx *c, enum pyo_child_kind kind, PyObject **err)
{
	for (;;) {
		struct pyo_child *ch = c->children.next;
		while (ch != &c->children && ch->kind != kind)
			ch = ch->next;
		if (ch == &c->children)
			return 0;
		PyObject *self = ch->self;
		Py_INCREF(self);
		int r = ch->close(self);
		int still_linked = ch->next != NULL;
		Py_DECREF(self);
		if (r < 0) {
			if (!*err)
				*err = PyErr_GetRaisedException_compat();
			else
				PyErr_Clear();
			if (still_linked)
				return -1;
		}
	}
}

static PyObject *ctx_close(PyoCtx *c, PyObject *unused)
{
	PyObject *err = NULL;

	if (!c->ctx)
		Py_RETURN_NONE;
	if (c->active)
		return pyo_raise(EBUSY, "Context.close: %d call(s) on this context are running in "
				 "other threads", c->active);
	for (struct pyo_child *ch = c->children.next; ch != &c->children; ch = ch->next)
		if (ch->busy)
			return pyo_raise(EBUSY, "Context.close: a %.80s of this context is in use by "
					 "another thread", Py_TYPE(ch->self)->tp_name);
	for (int k = 0; k < PYO_CHILD_NKINDS; k++)
		if (close_kind(c, (enum pyo_child_kind)k, &err) < 0) {
			PyErr_SetRaisedException_compat(err);
			return NULL;
		}
	int r = offload_ctx_close(c->ctx);
	if (r < 0 && !err) {
		pyo_raise_lib(c->ctx, r);
		err = PyErr_GetRaisedException_compat();
	}
	offload_ctx_free(c->ctx);
	c->ctx = NULL;
	if (err) {
		PyErr_SetRaisedException_compat(err);
		return NULL;
	}
	Py_RETURN_NONE;
}

static void ctx_dealloc(PyoCtx *c)
{
	/* Children hold references to their context, so none is left here. */
	if (c->weakreflist)
		PyObject_ClearWeakRefs((PyObject *)c);
	offload_ctx_free(c->ctx);
	Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *ctx_enter(PyoCtx *c, PyObject *unused)
{
	if (pyo_ctx_check(c) < 0)
		return NULL;
	Py_INCREF(c);
	return (PyObject *)c;
}

static PyObject *ctx_exit(PyoCtx *c, PyObject *args)
{
	PyObject *r = ctx_close(c, NULL);

	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *ctx_devices(PyoCtx *c, PyObject *unused)
{
	if (pyo_ctx_check(c) < 0)
		return NULL;
	int n = offload_dev_count(c->ctx);
	if (n < 0)
		return pyo_raise_lib(c->ctx, n);
	PyObject *l = PyList_New(n);
	if (!l)
		return NULL;
	for (int i = 0; i < n; i++) {
		PyObject *d = pyo_devinfo_new(c, i);
		if (!d) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, d);
	}
	return l;
}

static PyObject *ctx_device(PyoCtx *c, PyObject *key)
{
	int dev;

	if (pyo_ctx_check(c) < 0)
		return NULL;
	if (key == Py_None)
		return PyErr_Format(PyExc_TypeError, "device() needs an index, a name, a DT path or a "
				    "compatible");
	if (pyo_dev_arg(c, key, &dev) < 0)
		return NULL;
	if (dev == OFFLOAD_DEV_AUTO)
		return pyo_raise(ENODEV, "device(-1): DEV_AUTO is not a device");
	return pyo_devinfo_new(c, dev);
}

static PyObject *ctx_find(PyoCtx *c, PyObject *key)
{
	if (pyo_ctx_check(c) < 0)
		return NULL;
	if (!PyUnicode_Check(key))
		return PyErr_Format(PyExc_TypeError, "find() needs a str, not %.80s",
				    Py_TYPE(key)->tp_name);
	const char *k = PyUnicode_AsUTF8(key);
	if (!k)
		return NULL;
	int r = offload_dev_find(c->ctx, k);
	if (r < 0)
		return pyo_raise_lib(c->ctx, r);
	return PyLong_FromLong(r);
}

static PyObject *ctx_backend_status(PyoCtx *c, PyObject *name)
{
	const char *why = NULL;

	if (pyo_ctx_check(c) < 0)
		return NULL;
	if (!PyUnicode_Check(name))
		return PyErr_Format(PyExc_TypeError, "backend_status() needs a str, not %.80s",
				    Py_TYPE(name)->tp_name);
	const char *n = PyUnicode_AsUTF8(name);
	if (!n)
		return NULL;
	int r = offload_backend_status(c->ctx, n, &why);
	if (r < 0 && r != -ENOENT)
		return pyo_raise_lib(c->ctx, r);
	PyObject *o = PyStructSequence_New(Pyo_BackendStatusType);
	PyObject *reason = pyo_str(r == 1 || r == -ENOENT ? "" : why);
	if (!o || !reason) {
		Py_XDECREF(o);
		Py_XDECREF(reason);
		return NULL;
	}
	Py_INCREF(name);
	PyStructSequence_SetItem(o, 0, name);
	PyStructSequence_SetItem(o, 1, PyBool_FromLong(r != -ENOENT));
	PyStructSequence_SetItem(o, 2, PyBool_FromLong(r == 1));
	PyStructSequence_SetItem(o, 3, reason);
	return o;
}

/* The device index of a dev_stats()/dev_stats_reset() argument (no DEV_AUTO). */
static int stats_dev(PyoCtx *c, PyObject *arg, int *dev)
{
	if (pyo_ctx_check(c) < 0)
		return -1;
	if (arg == Py_None) {
		PyErr_SetString(PyExc_TypeError, "a device is needed (index, name or DeviceInfo)");
		return -1;
	}
	return pyo_dev_arg(c, arg, dev);
}

static PyObject *ctx_dev_stats(PyoCtx *c, PyObject *arg)
{
	struct offload_dev_stats st;
	int dev;

	if (stats_dev(c, arg, &dev) < 0)
		return NULL;
	memset(&st, 0, sizeof(st));
	int r = offload_dev_get_stats(c->ctx, dev, &st, sizeof(st));
	if (r < 0)
		return pyo_raise_lib(c->ctx, r);
	PyObject *o = PyStructSequence_New(Pyo_DevStatsType);
	if (!o)
		return NULL;
	const uint64_t v[8] = { st.cache_clean_calls, st.cache_inval_calls, st.cache_bytes, st.cache_ns,
				st.jobs, st.bytes, st.bounced_bytes, st.cpu_bytes };
	for (int k = 0; k < 8; k++) {
		PyObject *x = PyLong_FromUnsignedLongLong(v[k]);
		if (!x) {
			Py_DECREF(o);
			return NULL;
		}
		PyStructSequence_SetItem(o, k, x);
	}
	return o;
}

static PyObject *ctx_dev_stats_reset(PyoCtx *c, PyObject *arg)
{
	int dev;

	if (stats_dev(c, arg, &dev) < 0)
		return NULL;
	int r = offload_dev_stats_reset(c->ctx, dev);
	if (r < 0)
		return pyo_raise_lib(c->ctx, r);
	Py_RETURN_NONE;
}

static PyObject *ctx_memcpy(PyoCtx *c, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "dst", "src", "dev", NULL };
	PyObject *d, *s, *devo = Py_None, *ret = NULL;
	Py_buffer dst = { 0 }, src = { 0 };
	struct offload_result res = { 0 };
	int dev, r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|$O:memcpy", kwlist, &d, &s, &devo))
		return NULL;
	if (pyo_ctx_check(c) < 0 || pyo_dev_arg(c, devo, &dev) < 0)
		return NULL;
	if (pyo_get_buffer(d, &dst, 1, "dst") < 0)
		return NULL;
	if (pyo_get_buffer(s, &src, 0, "src") < 0)
		goto out;
	if (dst.len != src.len) {
		pyo_raise(EINVAL, "memcpy: dst is %zd bytes but src is %zd bytes", dst.len, src.len);
		goto out;
	}
	static char empty;
	void *dp = dst.buf ? dst.buf : &empty; /* an empty exporter may have no memory at all */
	const void *sp = src.buf ? src.buf : &empty;
	PYO_BEGIN(c);
	r = offload_memcpy_dev(c->ctx, dev, dp, sp, (size_t)src.len, &res);
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		goto out;
	}
	ret = pyo_result(&res);
out:
	pyo_release_buffer(&dst);
	pyo_release_buffer(&src);
	return ret;
}

static PyObject *ctx_last_error(PyoCtx *c, PyObject *unused)
{
	return pyo_str(c->ctx ? offload_last_error(c->ctx) : "");
}

static PyObject *ctx_get_closed(PyoCtx *c, void *unused)
{
	return PyBool_FromLong(c->ctx == NULL);
}

static PyObject *ctx_get_dt_source(PyoCtx *c, void *unused)
{
	if (pyo_ctx_check(c) < 0)
		return NULL;
	return pyo_str(offload_ctx_dt_source(c->ctx));
}

static PyObject *ctx_get_note(PyoCtx *c, void *unused)
{
	if (pyo_ctx_check(c) < 0)
		return NULL;
	return pyo_str(offload_ctx_note(c->ctx));
}

static PyObject *ctx_get_flags(PyoCtx *c, void *unused)
{
	uint32_t f;

	if (pyo_ctx_check(c) < 0)
		return NULL;
	int r = offload_ctx_get_flags(c->ctx, &f);
	if (r < 0)
		return pyo_raise_lib(c->ctx, r);
	return PyLong_FromUnsignedLong(f);
}

static PyObject *ctx_get_device_count(PyoCtx *c, void *unused)
{
	if (pyo_ctx_check(c) < 0)
		return NULL;
	int n = offload_dev_count(c->ctx);
	if (n < 0)
		return pyo_raise_lib(c->ctx, n);
	return PyLong_FromLong(n);
}

static PyObject *ctx_repr(PyoCtx *c)
{
	if (!c->ctx)
		return PyUnicode_FromString("<offload.Context closed>");
	return PyUnicode_FromFormat("<offload.Context dt=%s devices=%d>",
				    offload_ctx_dt_source(c->ctx), offload_dev_count(c->ctx));
}

static PyMethodDef ctx_methods[] = {
	{ "close", (PyCFunction)ctx_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Close the context: first every Queue (waiting for its started jobs), Spi,\n"
	  "CipherSession and HashSession made from it, then its Buffers, then the\n"
	  "library context. Closing a closed context does nothing. Raises Busy if a\n"
	  "call on the context or one of them is running in another thread, and\n"
	  "BufferError (leaving the context open) if a Buffer is still exported, e.g.\n"
	  "a memoryview of it is alive." },
	{ "__enter__", (PyCFunction)ctx_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturn the context (which must be open)." },
	{ "__exit__", (PyCFunction)ctx_exit, METH_VARARGS,
	  "__exit__($self, *exc_info, /)\n--\n\nClose the context (see close())." },
	{ "devices", (PyCFunction)ctx_devices, METH_NOARGS,
	  "devices($self, /)\n--\n\n"
	  "Every device of the context as a list of DeviceInfo (the CPU is always one)." },
	{ "device", (PyCFunction)ctx_device, METH_O,
	  "device($self, key, /)\n--\n\n"
	  "One DeviceInfo, by index or by name, device-tree path or compatible.\n"
	  "Raises NoDevice if there is none." },
	{ "find", (PyCFunction)ctx_find, METH_O,
	  "find($self, key, /)\n--\n\n"
	  "Index of the first device whose name, DT path or compatible is `key`\n"
	  "(offload_dev_find()). Raises NoDevice if none matches." },
	{ "backend_status", (PyCFunction)ctx_backend_status, METH_O,
	  "backend_status($self, name, /)\n--\n\n"
	  "Whether backend `name` (one of offload.backend_names()) takes part in this\n"
	  "context, and if not why, as a BackendStatus (offload_backend_status())." },
	{ "dev_stats", (PyCFunction)ctx_dev_stats, METH_O,
	  "dev_stats($self, dev, /)\n--\n\n"
	  "The work counters of a device (index, name or DeviceInfo) as a DevStats:\n"
	  "cache maintenance done for it, engine jobs and bytes, bounced and CPU bytes\n"
	  "(offload_dev_get_stats()). Raises NoDevice for a device that does not exist." },
	{ "dev_stats_reset", (PyCFunction)ctx_dev_stats_reset, METH_O,
	  "dev_stats_reset($self, dev, /)\n--\n\n"
	  "Zero the work counters of a device (offload_dev_stats_reset())." },
	{ "memcpy", (PyCFunction)(void (*)(void))ctx_memcpy, METH_VARARGS | METH_KEYWORDS,
	  "memcpy($self, /, dst, src, *, dev=None)\n--\n\n"
	  "Copy src into dst on the device the policy picks (or on `dev`: an index, a name\n"
	  "or a DeviceInfo; then no size threshold applies) and return the Result saying who\n"
	  "ran it. dst and src are any contiguous buffer-protocol objects (bytearray,\n"
	  "memoryview, mmap, numpy arrays, Buffer) of the same length in bytes; nothing is\n"
	  "copied on the way. The GIL is released during the copy.\n\n"
	  "Raises TypeError for a read-only dst, BufferError for a non-contiguous buffer,\n"
	  "InvalidArgument for different lengths or overlapping buffers, NoDevice or\n"
	  "NotSupported for an unusable dev, Timeout or EngineError if an engine failed\n"
	  "(dst is then undefined), Closed if the context is closed." },
	{ "cipher", (PyCFunction)(void (*)(void))pyo_ctx_cipher, METH_VARARGS | METH_KEYWORDS,
	  pyo_ctx_cipher_doc },
	{ "hash", (PyCFunction)(void (*)(void))pyo_ctx_hash, METH_VARARGS | METH_KEYWORDS,
	  pyo_ctx_hash_doc },
	{ "last_error", (PyCFunction)ctx_last_error, METH_NOARGS,
	  "last_error($self, /)\n--\n\n"
	  "The message of the most recent failed call on this context from this thread\n"
	  "(offload_last_error()); '' if none. Exceptions already carry it in strerror." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef ctx_getset[] = {
	{ "closed", (getter)ctx_get_closed, NULL, "True once the context is closed.", NULL },
	{ "dt_source", (getter)ctx_get_dt_source, NULL,
	  "Where the device tree came from: 'file:/path', 'live:/sys/firmware/fdt',\n"
	  "'builtin:virtual-board', 'blob' or 'none' (offload_ctx_dt_source()).", NULL },
	{ "note", (getter)ctx_get_note, NULL,
	  "What opening left out of a valid device tree (engine nodes beyond the 64\n"
	  "devices a context lists), or '' (offload_ctx_note()).", NULL },
	{ "flags", (getter)ctx_get_flags, NULL,
	  "The OFFLOAD_CTX_* bits in effect after the environment (offload_ctx_get_flags()):\n"
	  "1 SIM (simulated engines may be chosen automatically), 2 NO_ENV,\n"
	  "4 SIM_NONCOHERENT, 8 DT_FALLBACK (the built-in virtual board stands in for\n"
	  "a machine without a device tree).", NULL },
	{ "device_count", (getter)ctx_get_device_count, NULL,
	  "Number of devices (at least 1: the CPU).", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoCtx_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.Context",
	.tp_basicsize = sizeof(PyoCtx),
	.tp_dealloc = (destructor)ctx_dealloc,
	.tp_repr = (reprfunc)ctx_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Context(dtb=None, backends=None, sim=False, *, source=None, no_env=False, "
		  "sim_noncoherent=False)\n--\n\n"
		  "A liboffload context: a device tree, the devices in it, their DMA policy and the\n"
		  "backends serving them (offload_ctx_new() + offload_ctx_open()). A context manager;\n"
		  "close() also works. Safe to share between threads; the objects made from it\n"
		  "(Queue, Spi, sessions, Buffer sync calls) belong to one thread at a time.\n\n"
		  "dtb: None for the default source (see DtSource.AUTO), a path (str or\n"
		  "os.PathLike) of a .dtb file, or a bytes-like object holding the blob itself.\n"
		  "backends: None for all, or an allow-list: 'cpu,kcapi' or ['cpu', 'kcapi'].\n"
		  "sim: attach register-level models to the engines the tree declares.\n"
		  "source: a DtSource, for NONE, LIVE or BUILTIN (dtb must then be None).\n"
		  "no_env: ignore OFFLOAD_DTB, OFFLOAD_BACKENDS and OFFLOAD_SIM, which otherwise\n"
		  "override these arguments. sim_noncoherent: simulate a non-coherent memory\n"
		  "system for every simulated device.\n\n"
		  "Raises InvalidArgument (unknown backend, malformed device tree), NotFound or\n"
		  "PermissionDenied (.dtb file), or another Error, with the library's message.",
	.tp_weaklistoffset = offsetof(PyoCtx, weakreflist),
	.tp_methods = ctx_methods,
	.tp_getset = ctx_getset,
	.tp_init = (initproc)ctx_init,
	.tp_new = ctx_new,
};

int pyo_init_context(PyObject *m)
{
	if (pyo_add_type(m, &PyoCtx_Type, "Context") < 0 ||
	    pyo_add_type(m, &PyoDevInfo_Type, "DeviceInfo") < 0)
		return -1;
	return 0;
}
