/* SPDX-License-Identifier: MIT */
/*
 * offload._offload: module initialisation, the exception hierarchy, enum
 * classes, result records, buffer helpers and the module-level functions.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>

#include "pyoffload.h"

/* ------------------------------------------------------------------ exceptions */

PyObject *Pyo_Error;

struct pyo_exc {
	const char *name;  /* "offload.X" */
	int err;           /* errno it stands for */
	PyObject **base2;  /* a second built-in base, or NULL */
	const char *doc;
	PyObject *cls;
};

static struct pyo_exc excs[] = {
	{ "offload.InvalidArgument", EINVAL, &PyExc_ValueError,
	  "EINVAL: a bad argument (wrong key, IV or tag length, overlapping buffers, bad option...).\n"
	  "Also a ValueError.", NULL },
	{ "offload.NoDevice", ENODEV, NULL,
	  "ENODEV: no such device, or it is disabled or not usable.", NULL },
	{ "offload.NotSupported", ENOTSUP, NULL,
	  "ENOTSUP: no backend can perform the operation.", NULL },
	{ "offload.Timeout", ETIMEDOUT, &PyExc_TimeoutError,
	  "ETIMEDOUT: an engine did not complete in time, or Queue.wait() timed out.\n"
	  "Also a TimeoutError.", NULL },
	{ "offload.EngineError", EIO, NULL, "EIO: an engine reported an error.", NULL },
	{ "offload.TagMismatch", EBADMSG, NULL,
	  "EBADMSG: AEAD authentication tag mismatch; no plaintext is released.", NULL },
	{ "offload.Closed", EBADF, NULL, "EBADF: the object (or its Context) is closed, or a file descriptor\n"
	  "given is not open (Buffer.import_dmabuf()).", NULL },
	{ "offload.Busy", EBUSY, NULL,
	  "EBUSY: the object is in use (another thread is inside a call on it, or\n"
	  "dependent handles are still open).", NULL },
	{ "offload.QueueFull", ENOSPC, NULL,
	  "ENOSPC: the queue holds `depth` jobs not yet reaped.", NULL },
	{ "offload.MessageTooLong", EMSGSIZE, NULL,
	  "EMSGSIZE: an SPI message cannot be sent in one piece or split without\n"
	  "changing the wire.", NULL },
	{ "offload.NotFound", ENOENT, &PyExc_FileNotFoundError,
	  "ENOENT: no such file, device node or device-tree node. Also a FileNotFoundError.",
	  NULL },
	{ "offload.PermissionDenied", EACCES, &PyExc_PermissionError,
	  "EACCES: permission denied opening a device or file. Also a PermissionError.", NULL },
};

static PyObject *exc_class(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(excs) / sizeof(excs[0]); i++)
		if (excs[i].err == err)
			return excs[i].cls;
	return Pyo_Error;
}

static PyObject *raise_str(int err, const char *msg)
{
	PyObject *cls = exc_class(err);
	PyObject *e = PyObject_CallFunction(cls, "is", err < 0 ? -err : err, msg);

	if (e) {
		PyErr_SetObject(cls, e);
		Py_DECREF(e);
	}
	return NULL;
}

PyObject *pyo_raise_lib(const offload_ctx *ctx, int err)
{
	/* Read the message first: it is valid only until the next library call. */
	const char *msg = offload_last_error(ctx);

	if (!msg || !msg[0])
		msg = offload_strerror(err);
	return raise_str(err, msg);
}

PyObject *pyo_raise(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PyObject *s = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	if (!s)
		return NULL;
	const char *msg = PyUnicode_AsUTF8(s);
	if (msg)
		raise_str(err, msg);
	Py_DECREF(s);
	return NULL;
}

static int init_exceptions(PyObject *m)
{
	Pyo_Error = PyErr_NewExceptionWithDoc(
		"offload.Error",
		"Base of every liboffload error: an OSError whose errno is the library's\n"
		"code and whose strerror is its message (offload_last_error()).",
		PyExc_OSError, NULL);
	if (!Pyo_Error || PyModule_AddObjectRef(m, "Error", Pyo_Error) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(excs) / sizeof(excs[0]); i++) {
		PyObject *bases = excs[i].base2 ? PyTuple_Pack(2, Pyo_Error, *excs[i].base2)
						: PyTuple_Pack(1, Pyo_Error);
		if (!bases)
			return -1;
		excs[i].cls = PyErr_NewExceptionWithDoc(excs[i].name, excs[i].doc, bases, NULL);
		Py_DECREF(bases);
		if (!excs[i].cls ||
		    PyModule_AddObjectRef(m, excs[i].name + sizeof("offload.") - 1, excs[i].cls) < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ buffers */

int pyo_get_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what)
{
	int flags = PyBUF_ANY_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);

	if (PyObject_GetBuffer(obj, view, flags) == 0)
		return 0;
	memset(view, 0, sizeof(*view));
	if (!PyObject_CheckBuffer(obj)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s must be a bytes-like object (buffer protocol), not %.80s",
			     what, Py_TYPE(obj)->tp_name);
		return -1;
	}
	/* Say which requirement failed, whatever the exporter's own wording. */
	PyObject *et, *ev, *tb;
	Py_buffer probe;
	PyErr_Fetch(&et, &ev, &tb);
	if (PyObject_GetBuffer(obj, &probe, PyBUF_FULL_RO) == 0) {
		int ro = probe.readonly, contig = PyBuffer_IsContiguous(&probe, 'A');
		PyBuffer_Release(&probe);
		if (writable && ro) {
			Py_XDECREF(et);
			Py_XDECREF(ev);
			Py_XDECREF(tb);
			PyErr_Format(PyExc_TypeError, "%s must be writable, but this %.80s is read-only",
				     what, Py_TYPE(obj)->tp_name);
			return -1;
		}
		if (!contig) {
			Py_XDECREF(et);
			Py_XDECREF(ev);
			Py_XDECREF(tb);
			PyErr_Format(PyExc_BufferError,
				     "%s is not contiguous: liboffload needs one block of memory "
				     "(copy it first, e.g. bytes(x) or numpy.ascontiguousarray(x))", what);
			return -1;
		}
	} else {
		PyErr_Clear();
	}
	PyErr_Restore(et, ev, tb);
	return -1;
}

int pyo_get_buffer_opt(PyObject *obj, Py_buffer *view, int writable, const char *what)
{
	if (!obj || obj == Py_None) {
		memset(view, 0, sizeof(*view));
		return 0;
	}
	return pyo_get_buffer(obj, view, writable, what);
}

void pyo_release_buffer(Py_buffer *view)
{
	if (view->obj)
		PyBuffer_Release(view);
	memset(view, 0, sizeof(*view));
}

/* ------------------------------------------------------------------ values */

PyObject *Pyo_DtSource, *Pyo_CacheMode, *Pyo_Cap, *Pyo_DevFlag, *Pyo_ResFlag, *Pyo_CipherAlg,
	*Pyo_HashAlg, *Pyo_DmaDir, *Pyo_SpiMode;

/* {enum class: {value: member}}: calling an enum class costs more than the library call. */
static PyObject *enum_cache;
#define ENUM_CACHE_MAX 256 /* values per class; flag combinations are few */

PyObject *pyo_enum(PyObject *cls, long long value)
{
	PyObject *key = PyLong_FromLongLong(value), *d, *r;

	if (!key)
		return NULL;
	d = PyDict_GetItemWithError(enum_cache, cls);
	if (!d && !PyErr_Occurred()) {
		d = PyDict_New();
		if (d && PyDict_SetItem(enum_cache, cls, d) < 0)
			Py_CLEAR(d);
		Py_XDECREF(d); /* the cache holds it */
	}
	if (!d) {
		Py_DECREF(key);
		return NULL;
	}
	r = PyDict_GetItemWithError(d, key);
	if (r) {
		Py_INCREF(r);
		Py_DECREF(key);
		return r;
	}
	r = PyErr_Occurred() ? NULL : PyObject_CallFunctionObjArgs(cls, key, NULL);
	if (r) {
		if (PyDict_Size(d) < ENUM_CACHE_MAX && PyDict_SetItem(d, key, r) < 0)
			Py_CLEAR(r);
	} else if (PyErr_ExceptionMatches(PyExc_ValueError)) {
		PyErr_Clear(); /* not a member: a plain int */
		Py_INCREF(key);
		r = key;
	}
	Py_DECREF(key);
	return r;
}

PyObject *pyo_str(const char *s)
{
	return PyUnicode_DecodeUTF8(s ? s : "", s ? (Py_ssize_t)strlen(s) : 0, "backslashreplace");
}

int pyo_uint_arg(PyObject *o, unsigned long long max, const char *what, unsigned long long *out)
{
	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be an int, not %.80s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	int overflow = 0;
	long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow || v < 0 || (unsigned long long)v > max) {
		pyo_raise(EINVAL, "%s must be in 0..%llu", what, max);
		return -1;
	}
	*out = (unsigned long long)v;
	return 0;
}

int pyo_bool_arg(PyObject *o, const char *what, int *out)
{
	if (!o)
		return 0;
	if (!PyBool_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be True or False, not %.80s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = o == Py_True;
	return 0;
}

struct pyo_const {
	const char *name;
	long long value;
};

static PyObject *make_enum(PyObject *m, PyObject *enum_mod, const char *base, const char *name,
			   const struct pyo_const *c, const char *doc)
{
	PyObject *cls = NULL, *members = PyList_New(0), *kw = NULL, *args = NULL;
	PyObject *basecls = PyObject_GetAttrString(enum_mod, base);

	if (!members || !basecls)
		goto out;
	for (; c->name; c++) {
		PyObject *t = Py_BuildValue("(sL)", c->name, c->value);
		if (!t || PyList_Append(members, t) < 0) {
			Py_XDECREF(t);
			goto out;
		}
		Py_DECREF(t);
	}
	args = Py_BuildValue("(sO)", name, members);
	kw = Py_BuildValue("{s:s,s:s}", "module", "offload", "qualname", name);
	if (!args || !kw)
		goto out;
	cls = PyObject_Call(basecls, args, kw);
	if (!cls)
		goto out;
	PyObject *d = PyUnicode_FromString(doc);
	if (!d || PyObject_SetAttrString(cls, "__doc__", d) < 0 ||
	    PyModule_AddObjectRef(m, name, cls) < 0)
		Py_CLEAR(cls);
	Py_XDECREF(d);
out:
	Py_XDECREF(members);
	Py_XDECREF(basecls);
	Py_XDECREF(args);
	Py_XDECREF(kw);
	return cls;
}

static const struct pyo_const dt_sources[] = {
	{ "AUTO", OFFLOAD_DT_AUTO }, { "NONE", OFFLOAD_DT_NONE }, { "FILE", OFFLOAD_DT_FILE },
	{ "LIVE", OFFLOAD_DT_LIVE }, { "BUILTIN", OFFLOAD_DT_BUILTIN }, { "BLOB", OFFLOAD_DT_BLOB },
	{ NULL, 0 }
};
static const struct pyo_const cache_modes[] = {
	{ "COHERENT", OFFLOAD_CACHE_COHERENT }, { "STREAMING", OFFLOAD_CACHE_STREAMING },
	{ "UNCACHED", OFFLOAD_CACHE_UNCACHED }, { NULL, 0 }
};
static const struct pyo_const caps[] = {
	{ "MEMCPY", OFFLOAD_CAP_MEMCPY }, { "CIPHER", OFFLOAD_CAP_CIPHER },
	{ "HASH", OFFLOAD_CAP_HASH }, { "SPI", OFFLOAD_CAP_SPI }, { NULL, 0 }
};
static const struct pyo_const dev_flags[] = {
	{ "ENABLED", OFFLOAD_DEVF_ENABLED }, { "USABLE", OFFLOAD_DEVF_USABLE },
	{ "SIM", OFFLOAD_DEVF_SIM }, { "DIRECT", OFFLOAD_DEVF_DIRECT },
	{ "KERNEL", OFFLOAD_DEVF_KERNEL }, { "CPU", OFFLOAD_DEVF_CPU }, { "AUTO", OFFLOAD_DEVF_AUTO },
	{ NULL, 0 }
};
static const struct pyo_const res_flags[] = {
	{ "SIM", OFFLOAD_RES_SIM }, { "DIRECT", OFFLOAD_RES_DIRECT },
	{ "KERNEL", OFFLOAD_RES_KERNEL }, { "CPU", OFFLOAD_RES_CPU },
	{ "BOUNCED", OFFLOAD_RES_BOUNCED }, { "HARDWARE", OFFLOAD_RES_HARDWARE },
	{ "FALLBACK", OFFLOAD_RES_FALLBACK }, { NULL, 0 }
};
static const struct pyo_const cipher_algs[] = {
	{ "AES_ECB", OFFLOAD_CIPHER_AES_ECB }, { "AES_CBC", OFFLOAD_CIPHER_AES_CBC },
	{ "AES_CTR", OFFLOAD_CIPHER_AES_CTR }, { "AES_GCM", OFFLOAD_CIPHER_AES_GCM },
	{ "DES_ECB", OFFLOAD_CIPHER_DES_ECB }, { "DES3_CBC", OFFLOAD_CIPHER_DES3_CBC },
	{ NULL, 0 }
};
static const struct pyo_const hash_algs[] = {
	{ "MD5", OFFLOAD_HASH_MD5 }, { "SHA1", OFFLOAD_HASH_SHA1 },
	{ "SHA224", OFFLOAD_HASH_SHA224 }, { "SHA256", OFFLOAD_HASH_SHA256 },
	{ "SHA384", OFFLOAD_HASH_SHA384 }, { "SHA512", OFFLOAD_HASH_SHA512 },
	{ "HMAC_MD5", OFFLOAD_HASH_HMAC_MD5 }, { "HMAC_SHA1", OFFLOAD_HASH_HMAC_SHA1 },
	{ "HMAC_SHA224", OFFLOAD_HASH_HMAC_SHA224 }, { "HMAC_SHA256", OFFLOAD_HASH_HMAC_SHA256 },
	{ "HMAC_SHA384", OFFLOAD_HASH_HMAC_SHA384 }, { "HMAC_SHA512", OFFLOAD_HASH_HMAC_SHA512 },
	{ NULL, 0 }
};
static const struct pyo_const dma_dirs[] = {
	{ "TO_DEVICE", OFFLOAD_DMA_TO_DEVICE }, { "FROM_DEVICE", OFFLOAD_DMA_FROM_DEVICE },
	{ "BIDIRECTIONAL", OFFLOAD_DMA_BIDIRECTIONAL }, { NULL, 0 }
};
static const struct pyo_const spi_modes[] = {
	{ "MODE_0", OFFLOAD_SPI_MODE_0 }, { "CPHA", OFFLOAD_SPI_CPHA },
	{ "CPOL", OFFLOAD_SPI_CPOL }, { "CS_HIGH", OFFLOAD_SPI_CS_HIGH },
	{ "LSB_FIRST", OFFLOAD_SPI_LSB_FIRST }, { "THREE_WIRE", OFFLOAD_SPI_3WIRE },
	{ "LOOP", OFFLOAD_SPI_LOOP }, { "NO_CS", OFFLOAD_SPI_NO_CS },
	{ "TX_DUAL", OFFLOAD_SPI_TX_DUAL }, { "TX_QUAD", OFFLOAD_SPI_TX_QUAD },
	{ "RX_DUAL", OFFLOAD_SPI_RX_DUAL }, { "RX_QUAD", OFFLOAD_SPI_RX_QUAD },
	{ "MODE_1", OFFLOAD_SPI_MODE_1 }, { "MODE_2", OFFLOAD_SPI_MODE_2 },
	{ "MODE_3", OFFLOAD_SPI_MODE_3 }, { NULL, 0 }
};

static int init_enums(PyObject *m)
{
	PyObject *e;

	enum_cache = PyDict_New();
	if (!enum_cache || !(e = PyImport_ImportModule("enum")))
		return -1;
	Pyo_DtSource = make_enum(m, e, "IntEnum", "DtSource", dt_sources,
		"Where a Context takes its device tree from (enum offload_dt_source).\n\n"
		"AUTO: $OFFLOAD_DTB, else /sys/firmware/fdt, else the built-in virtual board;\n"
		"NONE: no device tree (CPU and kernel-interface backends only); FILE: a .dtb file;\n"
		"LIVE: /sys/firmware/fdt; BUILTIN: the virtual board (simulated engines);\n"
		"BLOB: a device tree in memory.");
	Pyo_CacheMode = make_enum(m, e, "IntEnum", "CacheMode", cache_modes,
		"Cache handling of a device's DMA buffers (enum offload_cache_mode).\n\n"
		"COHERENT: no maintenance; STREAMING: clean before the device reads, invalidate\n"
		"before the CPU reads; UNCACHED: uncached buffers, no maintenance.");
	Pyo_Cap = make_enum(m, e, "IntFlag", "Cap", caps,
		"Device capabilities (OFFLOAD_CAP_*): MEMCPY, CIPHER, HASH, SPI.");
	Pyo_DevFlag = make_enum(m, e, "IntFlag", "DevFlag", dev_flags,
		"Device flags (OFFLOAD_DEVF_*): ENABLED in the DT, USABLE (a backend serves it),\n"
		"SIM (register-level model), DIRECT (registers driven by the library), KERNEL\n"
		"(through AF_ALG or spidev), CPU (the software device), AUTO (calls that leave\n"
		"the device to the library may choose it).");
	Pyo_ResFlag = make_enum(m, e, "IntFlag", "ResFlag", res_flags,
		"How an operation ran (OFFLOAD_RES_*): SIM, DIRECT, KERNEL, CPU, BOUNCED (a user\n"
		"buffer went through a DMA buffer), HARDWARE (an off-CPU engine), FALLBACK (the\n"
		"automatic device was busy, the CPU ran it).");
	Pyo_CipherAlg = make_enum(m, e, "IntEnum", "CipherAlg", cipher_algs,
		"Cipher algorithm and mode (enum offload_cipher_alg). The AES key size follows\n"
		"from the key length (16/24/32 bytes). AES_ECB: no IV; AES_CBC and AES_CTR: 16-byte\n"
		"IV (CTR: the initial counter block); AES_GCM: IV of 12 bytes, or any other length\n"
		"from 1 byte (hashed into the counter block, NIST SP 800-38D 7.1: on the CPU only,\n"
		"at most 128 bytes), optional AAD, tag of 4, 8 or 12..16 bytes; DES_ECB: 8-byte\n"
		"key; DES3_CBC: 24-byte key, 8-byte IV.");
	Pyo_HashAlg = make_enum(m, e, "IntEnum", "HashAlg", hash_algs,
		"Hash and HMAC algorithms (enum offload_hash_alg): MD5, SHA1, SHA224, SHA256,\n"
		"SHA384, SHA512 and HMAC_* of each (an HMAC needs a key).");
	Pyo_DmaDir = make_enum(m, e, "IntEnum", "DmaDir", dma_dirs,
		"Direction of a DMA hand-off (enum offload_dma_dir): TO_DEVICE (the device reads),\n"
		"FROM_DEVICE (the device writes), BIDIRECTIONAL.");
	Pyo_SpiMode = make_enum(m, e, "IntFlag", "SpiMode", spi_modes,
		"SPI mode bits (OFFLOAD_SPI_*, the values of Linux SPI_*): CPHA, CPOL, CS_HIGH,\n"
		"LSB_FIRST, THREE_WIRE, LOOP, NO_CS, TX_DUAL, TX_QUAD, RX_DUAL, RX_QUAD, and the\n"
		"combinations MODE_0..MODE_3.");
	Py_DECREF(e);
	return (Pyo_DtSource && Pyo_CacheMode && Pyo_Cap && Pyo_DevFlag && Pyo_ResFlag &&
		Pyo_CipherAlg && Pyo_HashAlg && Pyo_DmaDir && Pyo_SpiMode) ? 0 : -1;
}

/* ------------------------------------------------------------------ records */

PyTypeObject *Pyo_ResultType, *Pyo_CompletionType, *Pyo_BackendStatusType, *Pyo_CipherResultType,
	*Pyo_HashResultType, *Pyo_SpiInfoType, *Pyo_DevStatsType;

static PyStructSequence_Field result_fields[] = {
	{ "backend", "Backend that ran the operation, one of backend_names(): 'cpu', 'kcapi', ..." },
	{ "driver", "Implementation that ran: 'openssl-evp', 'cpu-memcpy', a kernel "
		    "cra_driver_name, 'udma-tchan0', ..." },
	{ "dev", "Index of the device that ran it (see Context.devices())." },
	{ "flags", "ResFlag bits: SIM, DIRECT, KERNEL, CPU, BOUNCED, HARDWARE." },
	{ NULL, NULL }
};
static PyStructSequence_Desc result_desc = {
	"offload.Result", "Who ran an operation (struct offload_result).", result_fields, 4
};

static PyStructSequence_Field completion_fields[] = {
	{ "job", "The job index Queue.copy() returned." },
	{ "status", "0 on success, or a negative errno (-ETIMEDOUT, -EIO, -ECANCELED) for this job." },
	{ "user_data", "The object passed to Queue.copy()." },
	{ "dev", "Index of the device that ran the job." },
	{ "flags", "ResFlag bits for this job." },
	{ NULL, NULL }
};
static PyStructSequence_Desc completion_desc = {
	"offload.Completion", "One finished job of a Queue (struct offload_completion).",
	completion_fields, 5
};

static PyStructSequence_Field backend_status_fields[] = {
	{ "name", "The backend name asked about." },
	{ "built", "False if this library was built without the backend." },
	{ "present", "True if the backend takes part in the context." },
	{ "reason", "Why it is absent ('' when present or not built)." },
	{ NULL, NULL }
};
static PyStructSequence_Desc backend_status_desc = {
	"offload.BackendStatus", "Whether a backend takes part in a Context (offload_backend_status()).",
	backend_status_fields, 4
};

static PyStructSequence_Field cipher_result_fields[] = {
	{ "data", "The output: bytes, or the `out` object the caller passed." },
	{ "tag", "GCM encrypt: the authentication tag (bytes); otherwise None." },
	{ "result", "Who ran the operation (offload.Result)." },
	{ NULL, NULL }
};
static PyStructSequence_Desc cipher_result_desc = {
	"offload.CipherResult", "Output of a cipher operation.", cipher_result_fields, 3
};

static PyStructSequence_Field hash_result_fields[] = {
	{ "digest", "The digest (bytes)." },
	{ "result", "Who ran the operation (offload.Result)." },
	{ NULL, NULL }
};
static PyStructSequence_Desc hash_result_desc = {
	"offload.HashResult", "Output of a hash or HMAC.", hash_result_fields, 2
};

static PyStructSequence_Field spi_info_fields[] = {
	{ "backend", "Backend serving the handle, with '-sim' when a model does (e.g. 'spidev')." },
	{ "path", "The spidev path or device-tree node the handle was opened from." },
	{ "dev", "Device index of the controller, or -1 (plain spidev path)." },
	{ "chip_select", "Chip select number." },
	{ "mode", "SpiMode bits in effect." },
	{ "max_speed_hz", "Default clock requested, in Hz." },
	{ "actual_speed_hz", "Clock the controller produces for the default, in Hz (0 if unknown)." },
	{ "bits_per_word", "Default word size in bits." },
	{ "cs_setup_ns", "CS-to-first-SCK delay in nanoseconds (from the DT), 0 if none." },
	{ "cs_hold_ns", "Last-SCK-to-CS delay in nanoseconds (from the DT), 0 if none." },
	{ "max_message_bytes", "Largest message the backend takes in one go (longer ones are "
			       "split), 0 = unlimited." },
	{ "flags", "ResFlag bits describing how transfers run." },
	{ NULL, NULL }
};
static PyStructSequence_Desc spi_info_desc = {
	"offload.SpiInfo", "What an SPI handle is (struct offload_spi_info).", spi_info_fields, 12
};

static PyStructSequence_Field dev_stats_fields[] = {
	{ "cache_clean_calls", "Clean operations (one per range handed to the device)." },
	{ "cache_inval_calls", "Invalidate operations (clean+invalidate where user space cannot "
			       "invalidate only)." },
	{ "cache_bytes", "Bytes cleaned or invalidated, each range widened to whole cache lines." },
	{ "cache_ns", "Wall-clock time spent in cache maintenance, in nanoseconds." },
	{ "jobs", "Operations the engine ran (a copy split into several descriptors counts once)." },
	{ "bytes", "Bytes the engine moved." },
	{ "bounced_bytes", "Bytes copied through bounce buffers because a side was not a DMA buffer "
			   "of the device." },
	{ "cpu_bytes", "Bytes the CPU moved on behalf of the device (unaligned heads and tails)." },
	{ NULL, NULL }
};
static PyStructSequence_Desc dev_stats_desc = {
	"offload.DevStats",
	"Work counters of one device since the context opened or the last reset\n"
	"(struct offload_dev_stats): what its DMA policy costs the CPU.",
	dev_stats_fields, 8
};

PyObject *pyo_result(const struct offload_result *r)
{
	PyObject *o = PyStructSequence_New(Pyo_ResultType);

	if (!o)
		return NULL;
	PyObject *v[4] = { pyo_str(r->backend), pyo_str(r->driver), PyLong_FromLong(r->dev),
			   pyo_enum(Pyo_ResFlag, r->flags) };
	for (int i = 0; i < 4; i++) {
		if (!v[i]) {
			for (int k = i + 1; k < 4; k++)
				Py_XDECREF(v[k]);
			Py_DECREF(o);
			return NULL;
		}
		PyStructSequence_SetItem(o, i, v[i]);
	}
	return o;
}

static int init_records(PyObject *m)
{
	struct {
		PyTypeObject **t;
		PyStructSequence_Desc *d;
		const char *name;
	} recs[] = {
		{ &Pyo_ResultType, &result_desc, "Result" },
		{ &Pyo_CompletionType, &completion_desc, "Completion" },
		{ &Pyo_BackendStatusType, &backend_status_desc, "BackendStatus" },
		{ &Pyo_CipherResultType, &cipher_result_desc, "CipherResult" },
		{ &Pyo_HashResultType, &hash_result_desc, "HashResult" },
		{ &Pyo_SpiInfoType, &spi_info_desc, "SpiInfo" },
		{ &Pyo_DevStatsType, &dev_stats_desc, "DevStats" },
	};
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		*recs[i].t = PyStructSequence_NewType(recs[i].d);
		if (!*recs[i].t || PyModule_AddObjectRef(m, recs[i].name, (PyObject *)*recs[i].t) < 0)
			return -1;
	}
	return 0;
}

int pyo_add_type(PyObject *m, PyTypeObject *t, const char *name)
{
	if (PyType_Ready(t) < 0)
		return -1;
	return PyModule_AddObjectRef(m, name, (PyObject *)t);
}

/* ------------------------------------------------------------------ module functions */

static PyObject *mod_version(PyObject *self, PyObject *unused)
{
	return PyUnicode_FromString(offload_version_string());
}

static PyObject *mod_version_number(PyObject *self, PyObject *unused)
{
	return PyLong_FromUnsignedLong(offload_version());
}

static PyObject *mod_strerror(PyObject *self, PyObject *arg)
{
	int overflow = 0;
	long e = PyLong_AsLongAndOverflow(arg, &overflow);

	if (e == -1 && PyErr_Occurred())
		return NULL;
	if (overflow || e > INT_MAX || e < -INT_MAX)
		return pyo_raise(EINVAL, "strerror: %R is not an errno value", arg);
	return pyo_str(offload_strerror((int)e));
}

static PyObject *mod_last_error(PyObject *self, PyObject *unused)
{
	return pyo_str(offload_last_error(NULL));
}

static int alg_arg(PyObject *o, const char *what, int *out)
{
	int overflow = 0;
	long v = PyLong_AsLongAndOverflow(o, &overflow);

	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow || v < INT_MIN || v > INT_MAX) {
		pyo_raise(EINVAL, "%s: %R is not an algorithm", what, o);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static PyObject *mod_cipher_name(PyObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "alg", "key_len", NULL };
	PyObject *a;
	Py_ssize_t key_len;
	int alg;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "On:cipher_name", kwlist, &a, &key_len) ||
	    alg_arg(a, "cipher_name", &alg) < 0)
		return NULL;
	const char *s = key_len < 0 ? NULL : offload_cipher_name((enum offload_cipher_alg)alg, (size_t)key_len);
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_FromString(s);
}

static PyObject *mod_hash_name(PyObject *self, PyObject *arg)
{
	int alg;

	if (alg_arg(arg, "hash_name", &alg) < 0)
		return NULL;
	const char *s = offload_hash_name((enum offload_hash_alg)alg);
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_FromString(s);
}

static PyObject *mod_hash_digest_size(PyObject *self, PyObject *arg)
{
	int alg;

	if (alg_arg(arg, "hash_digest_size", &alg) < 0)
		return NULL;
	int r = offload_hash_digest_size((enum offload_hash_alg)alg);
	if (r < 0)
		return pyo_raise(r, "hash_digest_size: unknown hash algorithm %R", arg);
	return PyLong_FromLong(r);
}

static PyObject *mod_backend_names(PyObject *self, PyObject *unused)
{
	PyObject *l = PyList_New(0);
	const char *name;

	for (unsigned i = 0; l && (name = offload_backend_name(i)); i++) {
		PyObject *s = pyo_str(name);
		if (!s || PyList_Append(l, s) < 0)
			Py_CLEAR(l);
		Py_XDECREF(s);
	}
	return l;
}

static PyObject *mod_backend_caps(PyObject *self, PyObject *arg)
{
	const char *want = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
	const char *name;

	if (!want)
		return PyUnicode_Check(arg) ? NULL
					    : PyErr_Format(PyExc_TypeError, "backend_caps() needs a str, not %.80s",
							   Py_TYPE(arg)->tp_name);
	for (unsigned i = 0; (name = offload_backend_name(i)); i++)
		if (strcmp(name, want) == 0)
			return pyo_enum(Pyo_Cap, offload_backend_caps(i));
	return pyo_raise(ENOENT, "backend_caps: backend %R is not built into this library", arg);
}

static PyObject *mod_check_version(PyObject *self, PyObject *args)
{
	PyObject *majoro, *minoro, *patcho = NULL;
	unsigned long long major, minor, patch = 0;

	if (!PyArg_ParseTuple(args, "OO|O:check_version", &majoro, &minoro, &patcho) ||
	    pyo_uint_arg(majoro, UINT_MAX, "major", &major) < 0 ||
	    pyo_uint_arg(minoro, UINT_MAX, "minor", &minor) < 0 ||
	    (patcho && pyo_uint_arg(patcho, UINT_MAX, "patch", &patch) < 0))
		return NULL;
	return PyBool_FromLong(offload_check_version((unsigned)major, (unsigned)minor, (unsigned)patch));
}

static PyMethodDef mod_methods[] = {
	{ "check_version", mod_check_version, METH_VARARGS,
	  "check_version($module, major, minor, patch=0, /)\n--\n\n"
	  "True if the running liboffload is at least major.minor.patch\n"
	  "(offload_check_version()). Raises InvalidArgument for a component that is\n"
	  "negative or does not fit in a C unsigned int." },
	{ "backend_caps", mod_backend_caps, METH_O,
	  "backend_caps($module, name, /)\n--\n\n"
	  "The Cap classes backend `name` implements at all (offload_backend_caps()), e.g.\n"
	  "Cap.CIPHER|Cap.HASH for 'kcapi'. Raises NotFound for a backend this library lacks." },
	{ "backend_names", mod_backend_names, METH_NOARGS,
	  "backend_names($module, /)\n--\n\n"
	  "The backends built into this liboffload, in probe order, as a list of str\n"
	  "(offload_backend_name()): the names Context(backends=...) and\n"
	  "Context.backend_status() accept, e.g. ['cpu', 'udma', 'eip97', 'dspi', 'kcapi', 'spidev']." },
	{ "version", mod_version, METH_NOARGS,
	  "version($module, /)\n--\n\n"
	  "Version of the liboffload that is running, e.g. '0.1.0' (offload_version_string())." },
	{ "version_number", mod_version_number, METH_NOARGS,
	  "version_number($module, /)\n--\n\n"
	  "(MAJOR << 16) | (MINOR << 8) | PATCH of the running library (offload_version())." },
	{ "strerror", mod_strerror, METH_O,
	  "strerror($module, err, /)\n--\n\n"
	  "Describe a liboffload error code (negative or positive errno), as offload_strerror()." },
	{ "last_error", mod_last_error, METH_NOARGS,
	  "last_error($module, /)\n--\n\n"
	  "The message of the most recent failed library call on this thread, any context\n"
	  "(offload_last_error(NULL)); '' if none. Exceptions already carry it in strerror." },
	{ "cipher_name", (PyCFunction)(void (*)(void))mod_cipher_name, METH_VARARGS | METH_KEYWORDS,
	  "cipher_name($module, /, alg, key_len)\n--\n\n"
	  "OpenSSL's name of a cipher with a key length in bytes, e.g. 'AES-128-GCM'; None\n"
	  "for an unknown algorithm or a key length it does not take." },
	{ "hash_name", mod_hash_name, METH_O,
	  "hash_name($module, alg, /)\n--\n\n"
	  "Name of a hash algorithm, e.g. 'SHA256', 'HMAC-SHA256'; None if unknown." },
	{ "hash_digest_size", mod_hash_digest_size, METH_O,
	  "hash_digest_size($module, alg, /)\n--\n\n"
	  "Digest length in bytes of a HashAlg. Raises InvalidArgument for an unknown one." },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT,
	"offload._offload",
	"liboffload: offload memcpy, SPI transfers and crypto to the DMA and crypto\n"
	"engines of embedded SoCs, configured from the device tree, CPU as fallback.\n\n"
	"This is the extension module behind the `offload` package; import `offload`.",
	-1,
	mod_methods,
	NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__offload(void);

PyMODINIT_FUNC PyInit__offload(void)
{
	PyObject *m = PyModule_Create(&moddef);

	if (!m)
		return NULL;
	if (init_exceptions(m) < 0 || init_enums(m) < 0 || init_records(m) < 0 ||
	    pyo_init_context(m) < 0 || pyo_init_queue(m) < 0 || pyo_init_buffer(m) < 0 ||
	    pyo_init_crypto(m) < 0 || pyo_init_spi(m) < 0)
		goto fail;
#ifdef OFFLOAD_PY_TEST_HOOKS
	if (pyo_init_test_hooks(m) < 0)
		goto fail;
#endif
	if (PyModule_AddIntConstant(m, "DEV_AUTO", OFFLOAD_DEV_AUTO) < 0 ||
	    PyModule_AddIntConstant(m, "GCM_TAG_MAX", OFFLOAD_GCM_TAG_MAX) < 0 ||
	    PyModule_AddIntConstant(m, "HASH_MAX_DIGEST", OFFLOAD_HASH_MAX_DIGEST) < 0 ||
	    PyModule_AddIntConstant(m, "SPI_MAX_XFERS", OFFLOAD_SPI_MAX_XFERS) < 0 ||
	    PyModule_AddStringConstant(m, "HEADER_VERSION", OFFLOAD_VERSION_STRING) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
