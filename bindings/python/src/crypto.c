/* SPDX-License-Identifier: MIT */
/* Ciphers, AEAD and hashes: Context.cipher/hash, CipherSession, HashSession. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "pyoffload.h"

static char empty_mem; /* stands in for the memory of empty buffers */

static void *mem(const Py_buffer *v)
{
	return v->buf ? v->buf : &empty_mem;
}

static int alg_value(PyObject *o, const char *what, int *alg)
{
	if (!PyLong_Check(o) || PyBool_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a %s (int), not %.80s", what,
			     strcmp(what, "hash alg") == 0 ? "HashAlg" : "CipherAlg",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	int overflow = 0;
	long v = PyLong_AsLongAndOverflow(o, &overflow);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow || v < INT_MIN || v > INT_MAX) {
		pyo_raise(EINVAL, "%s: %R is not an algorithm", what, o);
		return -1;
	}
	*alg = (int)v;
	return 0;
}

/* ------------------------------------------------------------------ ciphers */

/* Arguments of a cipher operation, as Python objects (borrowed). */
struct cipher_args {
	PyObject *iv, *data, *aad, *tag, *tag_len, *out, *encrypt_arg;
	int encrypt;
};

/*
 * Run one cipher operation: the one-shot (sess NULL, key given) or a
 * session's. Returns a CipherResult. `ch` is the session's link (busy
 * already set by the caller) or NULL.
 */
static PyObject *run_cipher(PyoCtx *c, offload_cipher_session *sess, int alg, const Py_buffer *key,
			    const struct cipher_args *a)
{
	Py_buffer iv = { 0 }, data = { 0 }, aad = { 0 }, tagin = { 0 }, out = { 0 };
	struct offload_result res = { 0 };
	struct offload_cipher_op op;
	unsigned char tag[OFFLOAD_GCM_TAG_MAX];
	PyObject *outobj = NULL, *ret = NULL, *tagobj = NULL;
	Py_ssize_t tag_len = -1;
	int r;

	memset(&op, 0, sizeof(op));
	if (a->tag_len && a->tag_len != Py_None) {
		tag_len = PyNumber_AsSsize_t(a->tag_len, PyExc_OverflowError);
		if (tag_len == -1 && PyErr_Occurred())
			return NULL;
		if (tag_len < 0 || tag_len > OFFLOAD_GCM_TAG_MAX)
			return pyo_raise(EINVAL, "tag_len %zd: GCM tags are 4, 8 or 12..16 bytes",
					 tag_len);
	}
	if (pyo_get_buffer_opt(a->iv, &iv, 0, "iv") < 0 || pyo_get_buffer(a->data, &data, 0, "data") < 0 ||
	    pyo_get_buffer_opt(a->aad, &aad, 0, "aad") < 0)
		goto out;
	op.alg = sess ? 0 : (enum offload_cipher_alg)alg;
	op.dir = a->encrypt ? OFFLOAD_ENCRYPT : OFFLOAD_DECRYPT;
	if (key) {
		op.key = mem(key);
		op.key_len = (size_t)key->len;
	}
	op.iv = iv.obj ? mem(&iv) : NULL;
	op.iv_len = (size_t)iv.len;
	op.aad = aad.obj ? mem(&aad) : NULL;
	op.aad_len = (size_t)aad.len;
	op.len = (size_t)data.len;
	op.in = mem(&data);
	op.result = &res;

	if (a->encrypt) {
		if (a->tag && a->tag != Py_None) {
			pyo_raise(EINVAL, "tag is an output when encrypting (it is returned); give "
				  "tag_len for a shorter one");
			goto out;
		}
		if (tag_len < 0)
			tag_len = alg == OFFLOAD_CIPHER_AES_GCM ? OFFLOAD_GCM_TAG_MAX : 0;
		op.tag = tag_len ? tag : NULL;
		op.tag_len = (size_t)tag_len;
	} else if (a->tag && a->tag != Py_None) {
		if (pyo_get_buffer(a->tag, &tagin, 0, "tag") < 0)
			goto out;
		if (tag_len >= 0 && tag_len != tagin.len) {
			pyo_raise(EINVAL, "tag is %zd bytes but tag_len is %zd", tagin.len, tag_len);
			goto out;
		}
		/* The tag's supplier must not choose its length (a 4-byte tag is a 2^-32 forgery). */
		if (tag_len < 0 && alg == OFFLOAD_CIPHER_AES_GCM && tagin.len != OFFLOAD_GCM_TAG_MAX) {
			pyo_raise(EINVAL, "tag is %zd bytes, not %d: pass tag_len=%zd explicitly to "
				  "accept a truncated tag", tagin.len, OFFLOAD_GCM_TAG_MAX, tagin.len);
			goto out;
		}
		op.tag = mem(&tagin);
		op.tag_len = (size_t)tagin.len;
	} else if (tag_len > 0) {
		pyo_raise(EINVAL, "decrypting needs the tag itself, not tag_len");
		goto out;
	}

	if (a->out && a->out != Py_None) {
		if (pyo_get_buffer(a->out, &out, 1, "out") < 0)
			goto out;
		if (out.len != data.len) {
			pyo_raise(EINVAL, "out is %zd bytes but data is %zd bytes", out.len, data.len);
			goto out;
		}
		op.out = mem(&out);
		outobj = a->out;
		Py_INCREF(outobj);
	} else {
		outobj = PyBytes_FromStringAndSize(NULL, data.len);
		if (!outobj)
			goto out;
		op.out = data.len ? PyBytes_AS_STRING(outobj) : &empty_mem;
	}

	PYO_BEGIN(c);
	r = sess ? offload_cipher_session_run(sess, &op, sizeof(op)) : offload_cipher(c->ctx, &op, sizeof(op));
	PYO_END(c);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		goto out;
	}
	if (a->encrypt && op.tag_len) {
		tagobj = PyBytes_FromStringAndSize((const char *)tag, (Py_ssize_t)op.tag_len);
	} else {
		tagobj = Py_None;
		Py_INCREF(tagobj);
	}
	PyObject *resobj = tagobj ? pyo_result(&res) : NULL;
	ret = resobj ? PyStructSequence_New(Pyo_CipherResultType) : NULL;
	if (!ret) {
		Py_XDECREF(tagobj);
		Py_XDECREF(resobj);
		goto out;
	}
	PyStructSequence_SetItem(ret, 0, outobj);
	PyStructSequence_SetItem(ret, 1, tagobj);
	PyStructSequence_SetItem(ret, 2, resobj);
	outobj = NULL;
out:
	Py_XDECREF(outobj);
	pyo_release_buffer(&iv);
	pyo_release_buffer(&data);
	pyo_release_buffer(&aad);
	pyo_release_buffer(&tagin);
	pyo_release_buffer(&out);
	return ret;
}

const char pyo_ctx_cipher_doc[] =
	"cipher($self, /, alg, key, iv, data, encrypt=True, aad=None, tag=None, tag_len=None, *, "
	"out=None)\n--\n\n"
	"Encrypt or decrypt `data` with a CipherAlg and `key` (offload_cipher()) on the\n"
	"device the policy picks; return a CipherResult(data, tag, result).\n\n"
	"iv: the IV or initial counter block (None for ECB; AES_GCM: 12 bytes, or any\n"
	"other length from 1 byte, which only the CPU takes, at most 128 bytes, so the\n"
	"operation runs there). aad: GCM additional\n"
	"authenticated data. GCM encrypt returns the tag, tag_len bytes long (default 16;\n"
	"4, 8 or 12..16); GCM decrypt needs `tag` and verifies it: 16 bytes, or\n"
	"tag_len bytes when tag_len is given (to accept a truncated tag, which the\n"
	"receiver, not the tag's sender, must choose). out: a writable\n"
	"buffer of len(data) bytes to write into instead of returning new bytes; it may\n"
	"be `data` itself (in place). The GIL is released during the operation.\n\n"
	"Raises InvalidArgument (wrong key, IV or tag length, a decrypt tag other than\n"
	"16 bytes without tag_len, length not a multiple of\n"
	"the block size for ECB/CBC/DES/3DES, AAD or tag for a non-AEAD mode, partial\n"
	"overlap; a GCM IV of 0 bytes), TagMismatch (GCM decrypt: no plaintext is released;\n"
	"`out` is zeroed), NotSupported (also a GCM IV other than 12 bytes that no allowed\n"
	"device takes: a session bound to EIP97 or af_alg, no CPU allowed, or above 128\n"
	"bytes), EngineError, Timeout, Closed.";

PyObject *pyo_ctx_cipher(PyoCtx *c, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "alg", "key", "iv", "data", "encrypt", "aad", "tag", "tag_len",
				  "out", NULL };
	struct cipher_args a = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1 };
	PyObject *algo, *keyo;
	Py_buffer key = { 0 };
	int alg;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO|OOOO$O:cipher", kwlist, &algo, &keyo,
					 &a.iv, &a.data, &a.encrypt_arg, &a.aad, &a.tag, &a.tag_len,
					 &a.out) ||
	    pyo_bool_arg(a.encrypt_arg, "encrypt", &a.encrypt) < 0)
		return NULL;
	if (pyo_ctx_check(c) < 0 || alg_value(algo, "cipher alg", &alg) < 0 ||
	    pyo_get_buffer(keyo, &key, 0, "key") < 0)
		return NULL;
	PyObject *r = run_cipher(c, NULL, alg, &key, &a);
	pyo_release_buffer(&key);
	return r;
}

typedef struct {
	PyObject_HEAD
	struct pyo_child link; /* handle: the offload_cipher_session */
	int alg;
} PyoCipherSession;

#define CSESS(o) ((offload_cipher_session *)(o)->link.handle)

static int csess_lib_close(void *h)
{
	return offload_cipher_session_close(h);
}

static PyObject *csess_new(PyTypeObject *t, PyObject *args, PyObject *kwds)
{
	return pyo_child_new(t, PYO_CHILD_HANDLE, NULL, csess_lib_close);
}

static int csess_init(PyoCipherSession *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "ctx", "alg", "key", "dev", NULL };
	PyoCtx *c;
	PyObject *algo, *keyo, *devo = Py_None;
	Py_buffer key = { 0 };
	offload_cipher_session *s = NULL;
	int alg, dev, r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO|$O:CipherSession", kwlist, &PyoCtx_Type,
					 &c, &algo, &keyo, &devo))
		return -1;
	if (pyo_child_init_begin(&o->link, c, "CipherSession") < 0 ||
	    alg_value(algo, "cipher alg", &alg) < 0 ||
	    pyo_dev_arg(c, devo, &dev) < 0 || pyo_get_buffer(keyo, &key, 0, "key") < 0)
		return -1;
	PYO_BEGIN(c);
	r = offload_cipher_session_open_dev(c->ctx, dev, (enum offload_cipher_alg)alg, mem(&key),
					    (size_t)key.len, &s);
	PYO_END(c);
	pyo_release_buffer(&key);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		return -1;
	}
	o->alg = alg;
	pyo_child_attach(&o->link, c, s);
	return 0;
}

static PyObject *csess_run(PyoCipherSession *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "iv", "data", "encrypt", "aad", "tag", "tag_len", "out", NULL };
	struct cipher_args a = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1 };

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOOO$O:run", kwlist, &a.iv, &a.data,
					 &a.encrypt_arg, &a.aad, &a.tag, &a.tag_len, &a.out) ||
	    pyo_bool_arg(a.encrypt_arg, "encrypt", &a.encrypt) < 0)
		return NULL;
	if (pyo_child_enter(&o->link, CSESS(o), "CipherSession") < 0)
		return NULL;
	PyObject *r = run_cipher(o->link.owner, CSESS(o), o->alg, NULL, &a);
	pyo_child_leave(&o->link);
	return r;
}

static PyObject *csess_close(PyoCipherSession *o, PyObject *unused)
{
	return pyo_child_close_method(&o->link, CSESS(o), "CipherSession");
}

static PyObject *csess_enter(PyoCipherSession *o, PyObject *unused)
{
	return pyo_child_enter_method(&o->link, CSESS(o), "CipherSession");
}

static PyObject *csess_exit(PyoCipherSession *o, PyObject *args)
{
	return pyo_child_exit_method(&o->link, CSESS(o), "CipherSession");
}

static PyObject *csess_get_alg(PyoCipherSession *o, void *unused)
{
	return pyo_enum(Pyo_CipherAlg, o->alg);
}

static PyObject *csess_get_closed(PyoCipherSession *o, void *unused)
{
	return PyBool_FromLong(CSESS(o) == NULL);
}

static PyObject *csess_get_context(PyoCipherSession *o, void *unused)
{
	return pyo_child_context(&o->link);
}

static PyMethodDef csess_methods[] = {
	{ "run", (PyCFunction)(void (*)(void))csess_run, METH_VARARGS | METH_KEYWORDS,
	  "run($self, /, iv, data, encrypt=True, aad=None, tag=None, tag_len=None, *, out=None)\n"
	  "--\n\n"
	  "One operation with the session's key (offload_cipher_session_run()); the\n"
	  "arguments, result and errors are those of Context.cipher()." },
	{ "close", (PyCFunction)csess_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Close the session, wiping the key in the library and every backend. Closing\n"
	  "twice does nothing." },
	{ "__enter__", (PyCFunction)csess_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturn the session." },
	{ "__exit__", (PyCFunction)csess_exit, METH_VARARGS,
	  "__exit__($self, *exc_info, /)\n--\n\nClose the session." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef csess_getset[] = {
	{ "alg", (getter)csess_get_alg, NULL, "The session's CipherAlg.", NULL },
	{ "closed", (getter)csess_get_closed, NULL, "True once the session is closed.", NULL },
	{ "context", (getter)csess_get_context, NULL, "The Context the session belongs to.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoCipherSession_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.CipherSession",
	.tp_basicsize = sizeof(PyoCipherSession),
	.tp_dealloc = pyo_child_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "CipherSession(ctx, alg, key, *, dev=None)\n--\n\n"
		  "A key set once for many cipher operations (offload_cipher_session_open_dev()).\n"
		  "The key is copied. dev: None for the policy's per-operation choice, or a device\n"
		  "(index, name or DeviceInfo) every operation then runs on whatever its size.\n"
		  "A context manager; belongs to one thread at a time.\n"
		  "Raises InvalidArgument (unknown algorithm, bad key length), NoDevice,\n"
		  "NotSupported (the device lacks the algorithm).",
	.tp_methods = csess_methods,
	.tp_getset = csess_getset,
	.tp_init = (initproc)csess_init,
	.tp_new = csess_new,
};

/* ------------------------------------------------------------------ hashes */

/*
 * The library takes a NULL HMAC key as the empty key; Python makes that
 * explicit (key=b"") so that a forgotten key is an error, as in hmac.new().
 */
static int check_hmac_key(int alg, PyObject *key, const char *what)
{
	const char *name = offload_hash_name((enum offload_hash_alg)alg);

	if (name && strncmp(name, "HMAC-", 5) == 0 && (!key || key == Py_None)) {
		pyo_raise(EINVAL, "%s: %s needs a key (b\"\" for the empty key)", what, name);
		return -1;
	}
	return 0;
}

static PyObject *hash_result(const unsigned char *digest, int n, const struct offload_result *res)
{
	PyObject *d = PyBytes_FromStringAndSize((const char *)digest, n);
	PyObject *r = d ? pyo_result(res) : NULL;
	PyObject *o = r ? PyStructSequence_New(Pyo_HashResultType) : NULL;

	if (!o) {
		Py_XDECREF(d);
		Py_XDECREF(r);
		return NULL;
	}
	PyStructSequence_SetItem(o, 0, d);
	PyStructSequence_SetItem(o, 1, r);
	return o;
}

const char pyo_ctx_hash_doc[] =
	"hash($self, /, alg, data, key=None)\n--\n\n"
	"Hash `data` with a HashAlg, or HMAC it with `key` for an HMAC_* algorithm (which\n"
	"needs one: b'' for the empty key)\n"
	"(offload_hash()); return a HashResult(digest, result). The GIL is released.\n"
	"Raises InvalidArgument (unknown algorithm, key for a plain hash), NotSupported,\n"
	"EngineError, Timeout, Closed.";

PyObject *pyo_ctx_hash(PyoCtx *c, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "alg", "data", "key", NULL };
	PyObject *algo, *datao, *keyo = Py_None, *ret = NULL;
	Py_buffer data = { 0 }, key = { 0 };
	unsigned char digest[OFFLOAD_HASH_MAX_DIGEST];
	struct offload_result res = { 0 };
	int alg, r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:hash", kwlist, &algo, &datao, &keyo))
		return NULL;
	if (pyo_ctx_check(c) < 0 || alg_value(algo, "hash alg", &alg) < 0 ||
	    check_hmac_key(alg, keyo, "hash") < 0)
		return NULL;
	if (pyo_get_buffer(datao, &data, 0, "data") < 0 || pyo_get_buffer_opt(keyo, &key, 0, "key") < 0)
		goto out;
	PYO_BEGIN(c);
	r = offload_hash(c->ctx, (enum offload_hash_alg)alg, key.obj ? mem(&key) : NULL,
			 (size_t)key.len, mem(&data), (size_t)data.len, digest, sizeof(digest), &res);
	PYO_END(c);
	if (r < 0)
		pyo_raise_lib(c->ctx, r);
	else
		ret = hash_result(digest, r, &res);
out:
	pyo_release_buffer(&data);
	pyo_release_buffer(&key);
	return ret;
}

typedef struct {
	PyObject_HEAD
	struct pyo_child link; /* handle: the offload_hash_session */
	int alg;
} PyoHashSession;

#define HSESS(o) ((offload_hash_session *)(o)->link.handle)

static int hsess_lib_close(void *h)
{
	return offload_hash_close(h);
}

static PyObject *hsess_new(PyTypeObject *t, PyObject *args, PyObject *kwds)
{
	return pyo_child_new(t, PYO_CHILD_HANDLE, NULL, hsess_lib_close);
}

static int hsess_init(PyoHashSession *o, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "ctx", "alg", "key", "dev", NULL };
	PyoCtx *c;
	PyObject *algo, *keyo = Py_None, *devo = Py_None;
	Py_buffer key = { 0 };
	offload_hash_session *s = NULL;
	int alg, dev, r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O|O$O:HashSession", kwlist, &PyoCtx_Type, &c,
					 &algo, &keyo, &devo))
		return -1;
	if (pyo_child_init_begin(&o->link, c, "HashSession") < 0 ||
	    alg_value(algo, "hash alg", &alg) < 0 ||
	    check_hmac_key(alg, keyo, "HashSession") < 0 || pyo_dev_arg(c, devo, &dev) < 0 ||
	    pyo_get_buffer_opt(keyo, &key, 0, "key") < 0)
		return -1;
	PYO_BEGIN(c);
	r = offload_hash_open_dev(c->ctx, dev, (enum offload_hash_alg)alg, key.obj ? mem(&key) : NULL,
				  (size_t)key.len, &s);
	PYO_END(c);
	pyo_release_buffer(&key);
	if (r < 0) {
		pyo_raise_lib(c->ctx, r);
		return -1;
	}
	o->alg = alg;
	pyo_child_attach(&o->link, c, s);
	return 0;
}

static PyObject *hsess_update(PyoHashSession *o, PyObject *datao)
{
	Py_buffer data;
	int r;

	if (pyo_child_enter(&o->link, HSESS(o), "HashSession") < 0)
		return NULL;
	if (pyo_get_buffer(datao, &data, 0, "data") < 0) {
		pyo_child_leave(&o->link);
		return NULL;
	}
	PYO_BEGIN(o->link.owner);
	r = offload_hash_update(HSESS(o), mem(&data), (size_t)data.len);
	PYO_END(o->link.owner);
	pyo_release_buffer(&data);
	pyo_child_leave(&o->link);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	Py_RETURN_NONE;
}

static PyObject *hsess_final(PyoHashSession *o, PyObject *unused)
{
	unsigned char digest[OFFLOAD_HASH_MAX_DIGEST];
	struct offload_result res = { 0 };
	int r;

	if (pyo_child_enter(&o->link, HSESS(o), "HashSession") < 0)
		return NULL;
	PYO_BEGIN(o->link.owner);
	r = offload_hash_final(HSESS(o), digest, sizeof(digest), &res);
	PYO_END(o->link.owner);
	pyo_child_leave(&o->link);
	if (r < 0)
		return pyo_raise_lib(o->link.owner->ctx, r);
	return hash_result(digest, r, &res);
}

static PyObject *hsess_close(PyoHashSession *o, PyObject *unused)
{
	return pyo_child_close_method(&o->link, HSESS(o), "HashSession");
}

static PyObject *hsess_enter(PyoHashSession *o, PyObject *unused)
{
	return pyo_child_enter_method(&o->link, HSESS(o), "HashSession");
}

static PyObject *hsess_exit(PyoHashSession *o, PyObject *args)
{
	return pyo_child_exit_method(&o->link, HSESS(o), "HashSession");
}

static PyObject *hsess_get_alg(PyoHashSession *o, void *unused)
{
	return pyo_enum(Pyo_HashAlg, o->alg);
}

static PyObject *hsess_get_digest_size(PyoHashSession *o, void *unused)
{
	return PyLong_FromLong(offload_hash_digest_size((enum offload_hash_alg)o->alg));
}

static PyObject *hsess_get_closed(PyoHashSession *o, void *unused)
{
	return PyBool_FromLong(HSESS(o) == NULL);
}

static PyObject *hsess_get_context(PyoHashSession *o, void *unused)
{
	return pyo_child_context(&o->link);
}

static PyMethodDef hsess_methods[] = {
	{ "update", (PyCFunction)hsess_update, METH_O,
	  "update($self, data, /)\n--\n\n"
	  "Add bytes to the message (offload_hash_update()). The GIL is released.\n"
	  "After an engine error (EngineError, Timeout) the message so far is discarded." },
	{ "final", (PyCFunction)hsess_final, METH_NOARGS,
	  "final($self, /)\n--\n\n"
	  "Finish the message and return its HashResult(digest, result); the session is\n"
	  "then ready for a new message with the same algorithm and key (offload_hash_final())." },
	{ "close", (PyCFunction)hsess_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Close the session, wiping the key and state. Closing twice does nothing." },
	{ "__enter__", (PyCFunction)hsess_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturn the session." },
	{ "__exit__", (PyCFunction)hsess_exit, METH_VARARGS,
	  "__exit__($self, *exc_info, /)\n--\n\nClose the session." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef hsess_getset[] = {
	{ "alg", (getter)hsess_get_alg, NULL, "The session's HashAlg.", NULL },
	{ "digest_size", (getter)hsess_get_digest_size, NULL, "Digest length in bytes.", NULL },
	{ "closed", (getter)hsess_get_closed, NULL, "True once the session is closed.", NULL },
	{ "context", (getter)hsess_get_context, NULL, "The Context the session belongs to.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject PyoHashSession_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offload.HashSession",
	.tp_basicsize = sizeof(PyoHashSession),
	.tp_dealloc = pyo_child_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "HashSession(ctx, alg, key=None, *, dev=None)\n--\n\n"
		  "A streaming hash or HMAC (offload_hash_open_dev()): update() then final(), as\n"
		  "often as needed. key: the HMAC key (copied; required for HMAC_* algorithms, b''\n"
		  "for the empty key), else None.\n"
		  "dev: None for the policy's per-message choice, or a device every message then\n"
		  "runs on. A context manager; belongs to one thread at a time.\n"
		  "Raises InvalidArgument, NoDevice, NotSupported.",
	.tp_methods = hsess_methods,
	.tp_getset = hsess_getset,
	.tp_init = (initproc)hsess_init,
	.tp_new = hsess_new,
};

int pyo_init_crypto(PyObject *m)
{
	if (pyo_add_type(m, &PyoCipherSession_Type, "CipherSession") < 0 ||
	    pyo_add_type(m, &PyoHashSession_Type, "HashSession") < 0)
		return -1;
	return 0;
}
