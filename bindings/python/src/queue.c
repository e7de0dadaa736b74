/* SPDX-License-Identifier: MIT */
/*
 * offload.Queue: the asynchronous copy queue. Each job holds its two
 * Py_buffer views (and its user_data) in a slot until it is reaped, so the
 * memory a started copy touches cannot be freed or resized under it. The
 * slot index travels through the library as the job's user_data.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "pyoffload.h"

#define WAIT_SLICE_US 50000 /* check for signals (Ctrl-C) this often while waiting */

struct qslot {
	Py_buffer dst, src;
	PyObject *user_data;
	int next_free;
	int used;
};

typedef struct {
	PyObject_HEAD
	struct pyo_child link;
	offload_queue *q;
	unsigned depth;
	int dev;
	struct qslot *slots;
	int free_head;
	unsigned held;                  /* jobs enqueued and not yet reaped */
	struct offload_completion *cpl; /* depth entries, for poll/wait */
	PyObject *weakreflist;
} PyoQueue;

static void slot_free(PyoQueue *o, int i)
{
	struct qslot *s = &o->slots[i];

	pyo_release_buffer(&s->dst);
	pyo_release_buffer(&s->src);
	Py_CLEAR(s->user_data);
	s->used = 0;
	s->next_free = o->free_head;
	o->free_head = i;
	o->held--;
}

static void release_all(PyoQueue *o)
{
	for (unsigned i = 0; o->slots && i < o->depth; i++)
		if (o->slots[i].used)
			slot_free(o, (int)i);
}

/* Close the library queue and drop every job's buffers. 0, or -1 with an exception. */
static int queue_close_handle(PyoQueue *o, int release_gil)
{
	int r;

	if (!o->q)
		return 0;
	PyoCtx *c = o->link.owner;
	o->link.busy = 1;
	if (release_gil) {
		PYO_BEGIN(c);
		r = offload_queue_close(o->q);
		PYO_END(c);
	} else {
		r = offload_queue_close(o->q);
	}
	o->q = NULL;
	o->link.busy = 0;
	pyo_child_unlink(&o->link);
	release_all(o);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		return -1;
	}
	return 0;
}

static int queue_child_close(PyObject *self)
{
	return queue_close_handle((PyoQueue *)self, 1);
}

static PyObject *queue_new(PyTypeObject *t, PyObject *args, PyObject *kwds)
{
	PyoQueue *o = (PyoQueue *)pyo_child_new(t, PYO_CHILD_QUEUE, queue_child_close, NULL);

	if (o)
		o->free_head = -1;
	return (PyObject *)o;
}

static int queue_init(PyoQueue *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "ctx", "depth", "dev", NULL };
	PyoCtx *c;
	PyObject *devo = Py_None, *deptho = NULL;
	unsigned long long depth = 256;
	struct offload_queue_opts opts;
	offload_queue *q = NULL;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OO:Queue", kwlist, &PyoCtx_Type, &c,
					 &deptho, &devo))
		return -1;
	if (pyo_child_init_begin(&o->link, c, "Queue") < 0)
		return -1;
	offload_queue_opts_init(&opts);
	if (pyo_dev_arg(c, devo, &opts.dev) < 0 ||
	    (deptho && pyo_uint_arg(deptho, UINT32_MAX, "depth", &depth) < 0))
		return -1;
	opts.depth = (uint32_t)depth; /* the library checks the rest */
	PYO_BEGIN(c);
	r = offload_queue_open(c->ctx, &opts, &q);
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		return -1;
	}
	o->slots = PyMem_Calloc(opts.depth, sizeof(*o->slots));
	o->cpl = PyMem_Calloc(opts.depth, sizeof(*o->cpl));
	if (!o->slots || !o->cpl) {
		offload_queue_close(q);
		PyMem_Free(o->slots);
		PyMem_Free(o->cpl);
		o->slots = NULL;
		o->cpl = NULL;
		PyErr_NoMemory();
		return -1;
	}
	o->depth = opts.depth;
	for (unsigned i = 0; i < o->depth; i++)
		o->slots[i].next_free = i + 1 < o->depth ? (int)i + 1 : -1;
	o->free_head = 0;
	o->held = 0;
	o->q = q;
	o->dev = offload_queue_dev(q);
	pyo_child_attach(&o->link, c, NULL); /* o->q is the handle */
	return 0;
}

static int queue_traverse(PyoQueue *o, visitproc visit, void *arg)
{
	Py_VISIT(o->link.owner);
	for (unsigned i = 0; o->slots && i < o->depth; i++) {
		struct qslot *s = &o->slots[i];
		if (!s->used)
			continue;
		Py_VISIT(s->user_data);
		Py_VISIT(s->dst.obj);
		Py_VISIT(s->src.obj);
	}
	return 0;
}

static int queue_clear(PyoQueue *o)
{
	/* Buffers of started jobs may only go once the queue is closed. */
	if (o->link.busy)
		return 0;
	if (queue_close_handle(o, 0) < 0)
		PyErr_Clear();
	return 0;
}

static void queue_dealloc(PyoQueue *o)
{
	PyObject_GC_UnTrack(o);
	if (o->weakreflist)
		PyObject_ClearWeakRefs((PyObject *)o);
	pyo_child_finalize((PyObject *)o);
	release_all(o);
	PyMem_Free(o->slots);
	PyMem_Free(o->cpl);
	Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *queue_copy(PyoQueue *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "dst", "src", "user_data", NULL };
	PyObject *d, *s, *ud = Py_None;
	Py_buffer tdst, tsrc;
	static char empty;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:copy", kwlist, &d, &s, &ud))
		return NULL;
	if (pyo_child_enter(&o->link, o->q, "Queue") < 0)
		return NULL;
	int slot = o->free_head;
	/* With no free slot the library refuses (ENOSPC); the views are only lent to it. */
	Py_buffer *dst = slot >= 0 ? &o->slots[slot].dst : &tdst;
	Py_buffer *src = slot >= 0 ? &o->slots[slot].src : &tsrc;
	int r = -1;

	memset(dst, 0, sizeof(*dst));
	memset(src, 0, sizeof(*src));
	if (pyo_get_buffer(d, dst, 1, "dst") < 0 || pyo_get_buffer(s, src, 0, "src") < 0)
		goto fail;
	if (dst->len != src->len) {
		pyo_raise(EINVAL, "Queue.copy: dst is %zd bytes but src is %zd bytes", dst->len,
			  src->len);
		goto fail;
	}
	r = offload_queue_copy(o->q, dst->buf ? dst->buf : &empty, src->buf ? src->buf : &empty,
			       (size_t)src->len, slot >= 0 ? (uint64_t)slot : UINT64_MAX);
	if (r < 0) {
		pyo_raise_lib(o->link.owner->ctx, r);
		goto fail;
	}
	if (slot < 0) {
		offload_queue_close(o->q); /* cannot happen: as many slots as ring entries */
		o->q = NULL;
		PyErr_SetString(PyExc_SystemError, "Queue.copy: the library accepted more jobs than its depth");
		goto fail;
	}
	struct qslot *js = &o->slots[slot];
	o->free_head = js->next_free;
	js->used = 1;
	Py_INCREF(ud);
	js->user_data = ud;
	o->held++;
	pyo_child_leave(&o->link);
	return PyLong_FromLong(r);
fail:
	pyo_release_buffer(dst);
	pyo_release_buffer(src);
	pyo_child_leave(&o->link);
	return NULL;
}

static PyObject *queue_submit(PyoQueue *o, PyObject *unused)
{
	int r;

	if (pyo_child_enter(&o->link, o->q, "Queue") < 0)
		return NULL;
	PYO_BEGIN(o->link.owner);
	r = offload_queue_submit(o->q);
	PYO_END(o->link.owner);
	pyo_child_leave(&o->link);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	return PyLong_FromLong(r);
}

/* Turn n completions into a list, releasing each job's buffers. */
static PyObject *reap_list(PyoQueue *o, int n)
{
	PyObject *l = PyList_New(n);
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct offload_completion *k = &o->cpl[i];
		PyObject *ud = Py_None;
		if (k->user_data < o->depth && o->slots[k->user_data].used) {
			struct qslot *s = &o->slots[k->user_data];
			ud = s->user_data;
			s->user_data = NULL;
			slot_free(o, (int)k->user_data);
		} else {
			Py_INCREF(ud);
			bad = 1;
		}
		PyObject *c = l ? PyStructSequence_New(Pyo_CompletionType) : NULL;
		PyObject *fl = c ? pyo_enum(Pyo_ResFlag, k->flags) : NULL;
		if (!fl) {
			Py_XDECREF(c);
			Py_DECREF(ud);
			Py_CLEAR(l);
			continue; /* keep releasing the other jobs' buffers */
		}
		PyStructSequence_SetItem(c, 0, PyLong_FromUnsignedLong(k->job));
		PyStructSequence_SetItem(c, 1, PyLong_FromLong(k->status));
		PyStructSequence_SetItem(c, 2, ud);
		PyStructSequence_SetItem(c, 3, PyLong_FromLong(k->dev));
		PyStructSequence_SetItem(c, 4, fl);
		PyList_SET_ITEM(l, i, c);
	}
	if (l && bad) {
		Py_DECREF(l);
		PyErr_SetString(PyExc_SystemError, "Queue: a completion names no job of this queue");
		return NULL;
	}
	return l;
}

static int max_arg(PyoQueue *o, PyObject *mo, unsigned *max)
{
	unsigned long long v;

	*max = o->depth;
	if (!mo || mo == Py_None)
		return 0;
	if (pyo_uint_arg(mo, o->depth, "max", &v) < 0 || v == 0) {
		/* pyo_uint_arg()'s range starts at 0: name the one max has. */
		if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_ValueError))
			return -1;
		PyErr_Clear();
		pyo_raise(EINVAL, "max must be in 1..%u, not %R", o->depth, mo);
		return -1;
	}
	*max = (unsigned)v;
	return 0;
}

static PyObject *queue_poll(PyoQueue *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "max", NULL };
	PyObject *mo = Py_None;
	unsigned max;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:poll", kwlist, &mo))
		return NULL;
	if (pyo_child_enter(&o->link, o->q, "Queue") < 0)
		return NULL;
	if (max_arg(o, mo, &max) < 0) {
		pyo_child_leave(&o->link);
		return NULL;
	}
	PYO_BEGIN(o->link.owner);
	r = offload_queue_poll(o->q, o->cpl, max);
	PYO_END(o->link.owner);
	PyObject *l = r < 0 ? pyo_raise_lib(o->link.owner->ctx, r) : reap_list(o, r);
	pyo_child_leave(&o->link);
	return l;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static PyObject *queue_wait(PyoQueue *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "timeout", "max", NULL };
	PyObject *to = Py_None, *mo = Py_None, *ret = NULL;
	int64_t deadline = -1;
	unsigned max;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:wait", kwlist, &to, &mo))
		return NULL;
	if (pyo_child_enter(&o->link, o->q, "Queue") < 0)
		return NULL;
	if (max_arg(o, mo, &max) < 0)
		goto out;
	if (to != Py_None) {
		double t = PyFloat_AsDouble(to);
		if (t == -1.0 && PyErr_Occurred())
			goto out;
		if (!(t >= 0.0) || t > 1e9) {
			pyo_raise(EINVAL, "Queue.wait: timeout must be None or 0..1e9 seconds, not %R", to);
			goto out;
		}
		deadline = now_us() + (int64_t)(t * 1e6);
	}
	for (;;) {
		int64_t slice = WAIT_SLICE_US;
		if (deadline >= 0) {
			int64_t left = deadline - now_us();
			slice = left < 0 ? 0 : left < slice ? left : slice;
		}
		PYO_BEGIN(o->link.owner);
		r = offload_queue_wait(o->q, o->cpl, max, slice);
		PYO_END(o->link.owner);
		if (r >= 0) {
			ret = reap_list(o, r);
			break;
		}
		if (r != -ETIMEDOUT) {
			pyo_raise_lib(o->link.owner->ctx, r);
			break;
		}
		if (deadline >= 0 && now_us() >= deadline) {
			pyo_raise(ETIMEDOUT, "Queue.wait: no job finished within %R s", to);
			break;
		}
		if (PyErr_CheckSignals() < 0)
			break;
	}
out:
	pyo_child_leave(&o->link);
	return ret;
}

static PyObject *queue_close(PyoQueue *o, PyObject *unused)
{
	return pyo_child_close_method(&o->link, o->q, "Queue");
}

static PyObject *queue_enter(PyoQueue *o, PyObject *unused)
{
	return pyo_child_enter_method(&o->link, o->q, "Queue");
}

static PyObject *queue_exit(PyoQueue *o, PyObject *args)
{
	return pyo_child_exit_method(&o->link, o->q, "Queue");
}

static PyObject *queue_get_capacity(PyoQueue *o, void *unused)
{
	if (!o->q)
		return pyo_raise(EBADF, "the Queue is closed");
	int r = offload_queue_capacity(o->q);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	return PyLong_FromLong(r);
}

static PyObject *queue_get_dev(PyoQueue *o, void *unused)
{
	if (!o->q)
		return pyo_raise(EBADF, "the Queue is closed");
	int r = offload_queue_dev(o->q);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	return PyLong_FromLong(r);
}

static PyObject *queue_get_depth(PyoQueue *o, void *unused)
{
	return PyLong_FromUnsignedLong(o->depth);
}

static PyObject *queue_get_outstanding(PyoQueue *o, void *unused)
{
	return PyLong_FromUnsignedLong(o->held);
}

static PyObject *queue_get_closed(PyoQueue *o, void *unused)
{
	return PyBool_FromLong(o->q == NULL);
}

static PyObject *queue_get_context(PyoQueue *o, void *unused)
{
	return pyo_child_context(&o->link);
}

static PyObject *queue_repr(PyoQueue *o)
{
	if (!o->q)
		return PyUnicode_FromString("<offload.Queue closed>");
	return PyUnicode_FromFormat("<offload.Queue dev=%d depth=%u outstanding=%u>", o->dev,
				    o->depth, o->held);
}

static PyMethodDef queue_methods[] = {
	{ "copy", (PyCFunction)(void (*)(void))queue_copy, METH_VARARGS | METH_KEYWORDS,
	  "copy($self, /, dst, src, user_data=None)\n--\n\n"
	  "Enqueue a copy of src into dst (same length in bytes, contiguous, dst writable)\n"
	  "and return its job index. Nothing starts until submit(). Both buffers are held\n"
	  "(their exporters cannot free or resize them) until the job is reaped by poll(),\n"
	  "wait() or close(); do not modify src meanwhile. user_data comes back in the\n"
	  "job's Completion. Never blocks.\n\n"
	  "Raises QueueFull when `depth` jobs are not yet reaped, InvalidArgument for\n"
	  "different lengths, zero length or overlapping buffers, TypeError/BufferError as\n"
	  "Context.memcpy()." },
	{ "submit", (PyCFunction)queue_submit, METH_NOARGS,
	  "submit($self, /)\n--\n\n"
	  "Start every job enqueued since the last submit; return how many. The GIL is\n"
	  "released (a CPU queue runs its jobs here)." },
	{ "poll", (PyCFunction)(void (*)(void))queue_poll, METH_VARARGS | METH_KEYWORDS,
	  "poll($self, /, max=None)\n--\n\n"
	  "Reap finished jobs without waiting: a list of up to `max` (default depth)\n"
	  "Completion, in enqueue order, possibly empty. Their buffers are released." },
	{ "wait", (PyCFunction)(void (*)(void))queue_wait, METH_VARARGS | METH_KEYWORDS,
	  "wait($self, /, timeout=None, max=None)\n--\n\n"
	  "Reap finished jobs, waiting until at least one is ready: a non-empty list of up\n"
	  "to `max` Completion in enqueue order. timeout in seconds (None: no limit, 0: poll\n"
	  "once). The GIL is released while waiting; Ctrl-C interrupts it.\n\n"
	  "Raises Timeout if none finished in time (jobs stay queued), InvalidArgument if\n"
	  "no submitted job is outstanding (waiting could never succeed)." },
	{ "close", (PyCFunction)queue_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Close the queue: started jobs are waited for (up to the engine timeout), then\n"
	  "every job is discarded and its buffers released. Closing twice does nothing.\n"
	  "Raises Timeout if outstanding jobs had to be aborted (the queue is closed anyway)." },
	{ "__enter__", (PyCFunction)queue_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturn the queue." },
	{ "__exit__", (PyCFunction)queue_exit, METH_VARARGS,
	  "__exit__($self, *exc_info, /)\n--\n\nClose the queue." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef queue_getset[] = {
	{ "capacity", (getter)queue_get_capacity, NULL,
	  "Free ring slots: how many more jobs copy() accepts now.", NULL },
	{ "dev", (getter)queue_get_dev, NULL, "Index of the device the queue is bound to.", NULL },
	{ "depth", (getter)queue_get_depth, NULL, "Ring depth in jobs.", NULL },
	{ "outstanding", (getter)queue_get_outstanding, NULL,
	  "Jobs enqueued and not yet reaped (each holds its buffers).", NULL },
	{ "closed", (getter)queue_get_closed, NULL, "True once the queue is closed.", NULL },
	{ "context", (getter)queue_get_context, NULL, "The Context the queue belongs to.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoQueue_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.Queue",
	.tp_basicsize = sizeof(PyoQueue),
	.tp_dealloc = (destructor)queue_dealloc,
	.tp_repr = (reprfunc)queue_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "Queue(ctx, depth=256, dev=None)\n--\n\n"
		  "An asynchronous copy queue bound to one device (offload_queue_open()):\n"
		  "copy() enqueues, submit() starts, poll()/wait() reap Completions in enqueue\n"
		  "order. A context manager. Belongs to one thread at a time (another thread's\n"
		  "call while one runs raises Busy).\n\n"
		  "depth: ring size in jobs, a power of two in 2..65536. dev: None for the best\n"
		  "usable memcpy device, an index, a name or a DeviceInfo.\n"
		  "Raises InvalidArgument (depth), NoDevice, NotSupported, Busy (no free channel).",
	.tp_traverse = (traverseproc)queue_traverse,
	.tp_clear = (inquiry)queue_clear,
	.tp_weaklistoffset = offsetof(PyoQueue, weakreflist),
	.tp_methods = queue_methods,
	.tp_getset = queue_getset,
	.tp_init = (initproc)queue_init,
	.tp_new = queue_new,
};

int pyo_init_queue(PyObject *m)
{
	return pyo_add_type(m, &PyoQueue_Type, "Queue");
}
