/* SPDX-License-Identifier: MIT */
/*
 * The CPython extension offload._offload: declarations shared by its files.
 *
 * Object model. A Context owns an offload_ctx. Every object made from a
 * context (Queue, Buffer, Spi, CipherSession, HashSession) holds a strong
 * reference to its Context and is linked into the context's list of
 * children, so that Context.close() can close them first (as
 * offload_ctx_free() does) instead of leaving Python objects with dangling
 * handles. Everything here runs with the GIL held except the library calls
 * between PYO_BEGIN() and PYO_END(); ctx->active counts those, and
 * Context.close() refuses while any is running. A child's `busy` flag
 * enforces the library's one-thread-per-handle rule: a second thread that
 * uses a handle while the first has released the GIL inside a call on it
 * gets offload.Busy instead of racing in C.
 */
#ifndef PYOFFLOAD_H
#define PYOFFLOAD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <offload/offload.h>
#ifdef OFFLOAD_HAVE_SIM
#include <offload/sim.h> /* liboffload-sim: the models */
#endif

#if PY_VERSION_HEX < 0x030A0000
/* Python 3.10 API used here, for older interpreters. */
static inline int PyModule_AddObjectRef(PyObject *m, const char *name, PyObject *v)
{
	Py_XINCREF(v);
	int r = PyModule_AddObject(m, name, v);
	if (r < 0)
		Py_XDECREF(v);
	return r;
}
#endif

/* The pending exception as one object (PyErr_GetRaisedException() of 3.12), and back. */
static inline PyObject *PyErr_GetRaisedException_compat(void)
{
	PyObject *t, *v, *tb;

	PyErr_Fetch(&t, &v, &tb);
	if (!t)
		return NULL;
	PyErr_NormalizeException(&t, &v, &tb);
	if (tb && v)
		PyException_SetTraceback(v, tb);
	Py_XDECREF(t);
	Py_XDECREF(tb);
	return v;
}

static inline void PyErr_SetRaisedException_compat(PyObject *v)
{
	if (!v)
		return;
	PyObject *tb = PyException_GetTraceback(v);
	PyObject *t = (PyObject *)Py_TYPE(v);
	Py_INCREF(t);
	PyErr_Restore(t, v, tb);
}

/* ------------------------------------------------------------------ context and children */

typedef struct PyoCtx PyoCtx;

/* Kinds of children, in the order Context.close() closes them. */
enum pyo_child_kind {
	PYO_CHILD_QUEUE = 0,   /* first: releases the buffers its jobs hold */
	PYO_CHILD_HANDLE = 1,  /* SPI handles and crypto sessions */
	PYO_CHILD_BUFFER = 2,  /* last: may be held by queue jobs */
	PYO_CHILD_NKINDS
};

/* The link every child object embeds. */
struct pyo_child {
	struct pyo_child *next, *prev;
	PyoCtx *owner;          /* strong reference; NULL before the child is opened */
	PyObject *self;         /* the child object (borrowed) */
	enum pyo_child_kind kind;
	int busy;               /* a call on this handle is running */
	/* Close the C handle. Returns 0, or -1 with a Python exception set. */
	int (*close)(PyObject *self);
	/* Simple children: the library handle (NULL once closed) and its close call. */
	void *handle;
	int (*lib_close)(void *handle);
};

/* The head every child object starts with. */
typedef struct {
	PyObject_HEAD
	struct pyo_child link;
} PyoChild;

struct PyoCtx {
	PyObject_HEAD
	offload_ctx *ctx;          /* NULL when closed */
	int active;                /* library calls running without the GIL */
	struct pyo_child children; /* list head */
	PyObject *weakreflist;
};

extern PyTypeObject PyoCtx_Type;

/* Release the GIL around a library call on a context. */
#define PYO_BEGIN(c)                                                                              \
	do {                                                                                      \
		(c)->active++;                                                                    \
		Py_BEGIN_ALLOW_THREADS
#define PYO_END(c)                                                                                \
		Py_END_ALLOW_THREADS                                                              \
		(c)->active--;                                                                    \
	} while (0)

/* Raise offload.Closed unless the context is open. Returns 0 or -1. */
int pyo_ctx_check(PyoCtx *c);
/*
 * tp_new of a child type: a closed object whose Context.close() hook is
 * `close`, or, when `close` is NULL, pyo_child_close_lib() calling `lib_close`
 * on link.handle.
 */
PyObject *pyo_child_new(PyTypeObject *t, enum pyo_child_kind kind, int (*close)(PyObject *self),
			int (*lib_close)(void *handle));
/* Start tp_init: refuse an object already opened once, or a closed context. 0 or -1. */
int pyo_child_init_begin(struct pyo_child *ch, PyoCtx *c, const char *what);
/* End a successful tp_init: keep the handle, reference the owner, link into its list. */
void pyo_child_attach(struct pyo_child *ch, PyoCtx *c, void *handle);
/* Close link.handle with lib_close and unlink. 0, or -1 with the library's error. */
int pyo_child_close_lib(PyObject *self);
/* For tp_dealloc: close (reporting a failure as unraisable) and drop the owner. */
void pyo_child_finalize(PyObject *self);
/* tp_dealloc of simple children. */
void pyo_child_dealloc(PyObject *self);
/* Unlink a child whose handle has been closed; keeps the owner reference. */
void pyo_child_unlink(struct pyo_child *ch);
/*
 * Begin a call on a child handle: raise offload.Closed if `handle` is NULL
 * (closed, or its context was closed), offload.Busy if another thread is in
 * a call on it. On success marks it busy; pyo_child_leave() clears that.
 */
int pyo_child_enter(struct pyo_child *ch, const void *handle, const char *what);
void pyo_child_leave(struct pyo_child *ch);
/* The close/__enter__/__exit__ methods and the `context` getter every child has. */
PyObject *pyo_child_close_method(struct pyo_child *ch, const void *handle, const char *what);
PyObject *pyo_child_enter_method(struct pyo_child *ch, const void *handle, const char *what);
PyObject *pyo_child_exit_method(struct pyo_child *ch, const void *handle, const char *what);
PyObject *pyo_child_context(struct pyo_child *ch);

/*
 * Resolve a device argument: None -> OFFLOAD_DEV_AUTO, an int index, a str
 * (name, DT path or compatible; offload_dev_find) or a DeviceInfo.
 */
int pyo_dev_arg(PyoCtx *c, PyObject *arg, int *dev);

/* ------------------------------------------------------------------ errors */

extern PyObject *Pyo_Error;

/* Raise the offload.Error subclass for negative errno `err` with the library's message. */
PyObject *pyo_raise_lib(const offload_ctx *ctx, int err);
/* Raise the offload.Error subclass for `err` with a message of our own. */
PyObject *pyo_raise(int err, const char *fmt, ...);

/* ------------------------------------------------------------------ buffers */

/*
 * Get a contiguous byte view of `obj` (any buffer-protocol object, any
 * dimensionality, C or Fortran order), writable if asked. Errors: TypeError
 * for objects without the buffer protocol or read-only ones asked to be
 * writable, BufferError for non-contiguous buffers. `what` names the
 * argument in messages.
 */
int pyo_get_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what);
/* As pyo_get_buffer(), but None gives an empty view with buf NULL. */
int pyo_get_buffer_opt(PyObject *obj, Py_buffer *view, int writable, const char *what);
/* Release a view obtained by either function (safe on a zeroed view). */
void pyo_release_buffer(Py_buffer *view);

/* ------------------------------------------------------------------ values and types */

/* Enum and flag classes (created at module init with the enum module). */
extern PyObject *Pyo_DtSource, *Pyo_CacheMode, *Pyo_Cap, *Pyo_DevFlag, *Pyo_ResFlag,
	*Pyo_CipherAlg, *Pyo_HashAlg, *Pyo_DmaDir, *Pyo_SpiMode;

/* cls(value), or a plain int if the value is not a member. */
PyObject *pyo_enum(PyObject *cls, long long value);
/* A string from the library (NULL becomes ""). */
PyObject *pyo_str(const char *s);
/* An offload.Result for a struct offload_result. */
PyObject *pyo_result(const struct offload_result *r);
/* A positive int argument that fits in `max`; -1 with ValueError/TypeError. */
int pyo_uint_arg(PyObject *o, unsigned long long max, const char *what, unsigned long long *out);
/* A boolean argument: True or False only (TypeError otherwise); NULL (not given) keeps *out. */
int pyo_bool_arg(PyObject *o, const char *what, int *out);

extern PyTypeObject *Pyo_ResultType, *Pyo_CompletionType, *Pyo_BackendStatusType,
	*Pyo_CipherResultType, *Pyo_HashResultType, *Pyo_SpiInfoType, *Pyo_DevStatsType;
extern PyTypeObject PyoDevInfo_Type, PyoQueue_Type, PyoBuffer_Type, PyoSpi_Type,
	PyoTransfer_Type, PyoCipherSession_Type, PyoHashSession_Type;

/* A DeviceInfo for device `index` of an open context; NULL with an exception. */
PyObject *pyo_devinfo_new(PyoCtx *c, int index);

/* Module-level and Context crypto entry points (crypto.c). */
PyObject *pyo_ctx_cipher(PyoCtx *c, PyObject *args, PyObject *kwds);
PyObject *pyo_ctx_hash(PyoCtx *c, PyObject *args, PyObject *kwds);
extern const char pyo_ctx_cipher_doc[], pyo_ctx_hash_doc[];

/* Per-file initialisation: ready types and add them to the module. */
int pyo_init_context(PyObject *m);
int pyo_init_queue(PyObject *m);
int pyo_init_buffer(PyObject *m);
int pyo_init_crypto(PyObject *m);
int pyo_init_spi(PyObject *m);
/* Add a ready static type to the module under its short name. */
int pyo_add_type(PyObject *m, PyTypeObject *t, const char *name);

#ifdef OFFLOAD_PY_TEST_HOOKS
/* Test-only build: extra functions driving the SPI stand-in (tests/spi/fakespi.c). */
int pyo_init_test_hooks(PyObject *m);
#endif

#endif /* PYOFFLOAD_H */
