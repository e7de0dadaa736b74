/* SPDX-License-Identifier: MIT */
/*
 * Test-only functions of the offload._offload build linked with the spidev
 * stand-in (tests/spi/fakespi.c, fakesys.c): register fake /dev/spidevB.C
 * devices, build a fake sysfs, and read what reached the "kernel". Never
 * part of the shipped module.
 */
#include <errno.h>

#include "pyoffload.h"
#include "fakespi.h"
#include "fakesys.h"

#define MAX_FAKES 16

static struct {
	char path[64];
	struct fake_spi *dev;
} fakes[MAX_FAKES];

static struct fake_spi *find(const char *path)
{
	for (int i = 0; i < MAX_FAKES; i++)
		if (fakes[i].dev && strcmp(fakes[i].path, path) == 0)
			return fakes[i].dev;
	PyErr_Format(PyExc_KeyError, "no fake spidev %s", path);
	return NULL;
}

/* _fake_spi_add(path, dspi=False, dev_mode=None, dev_max_hz=None, bufsiz=None,
 *               fail_message=0, fail_errno=0, gpio_cs=False) */
static PyObject *fk_add(PyObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "path", "dspi", "dev_mode", "dev_max_hz", "bufsiz", "fail_message",
				  "fail_errno", "gpio_cs", NULL };
	const char *path;
	int dspi = 0, fail_errno = 0, gpio_cs = 0;
	long dev_mode = -1, dev_max_hz = -1, bufsiz = -1;
	unsigned fail_message = 0;
	struct fake_spi_cfg cfg;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|plllIip", kwlist, &path, &dspi, &dev_mode,
					 &dev_max_hz, &bufsiz, &fail_message, &fail_errno, &gpio_cs))
		return NULL;
	if (dspi)
		fake_spi_cfg_dspi(&cfg);
	else
		fake_spi_cfg_default(&cfg);
	if (dev_mode >= 0)
		cfg.dev_mode = (uint32_t)dev_mode;
	if (dev_max_hz >= 0)
		cfg.dev_max_hz = (uint32_t)dev_max_hz;
	if (bufsiz >= 0)
		cfg.bufsiz = (uint32_t)bufsiz;
	cfg.fail_message = fail_message;
	cfg.fail_errno = fail_errno;
	cfg.gpio_cs = gpio_cs != 0;
	for (int i = 0; i < MAX_FAKES; i++)
		if (!fakes[i].dev) {
			snprintf(fakes[i].path, sizeof(fakes[i].path), "%s", path);
			fakes[i].dev = fake_spi_add(path, &cfg);
			Py_RETURN_NONE;
		}
	PyErr_SetString(PyExc_RuntimeError, "too many fake spidevs");
	return NULL;
}

static PyObject *fk_reset(PyObject *self, PyObject *unused)
{
	fake_spi_reset();
	memset(fakes, 0, sizeof(fakes));
	Py_RETURN_NONE;
}

static PyObject *fk_trace(PyObject *self, PyObject *args)
{
	const char *path;
	int clear = 0;

	if (!PyArg_ParseTuple(args, "s|p", &path, &clear))
		return NULL;
	struct fake_spi *d = find(path);
	if (!d)
		return NULL;
	PyObject *r = PyUnicode_FromString(fake_spi_trace(d));
	if (clear)
		fake_spi_trace_clear(d);
	return r;
}

static PyObject *fk_state(PyObject *self, PyObject *args)
{
	const char *path;

	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	struct fake_spi *d = find(path);
	if (!d)
		return NULL;
	return Py_BuildValue("{s:I,s:I,s:I,s:I,s:I,s:i,s:I,s:s}", "mode", d->mode, "bpw",
			     (unsigned)d->bpw, "max_speed_hz", d->max_speed_hz, "speed_hz",
			     d->speed_hz, "sck_hz", d->sck_hz, "users", d->users, "messages",
			     d->messages, "last_setup", d->last_setup);
}

static PyObject *fs_new(PyObject *self, PyObject *unused)
{
	char *root = fakesys_new(); /* also sets OFFLOAD_SYSFS_ROOT for the library */
	PyObject *r = PyUnicode_FromString(root);

	free(root);
	return r;
}

static PyObject *fs_bufsiz(PyObject *self, PyObject *args)
{
	const char *root, *content;

	if (!PyArg_ParseTuple(args, "ss", &root, &content))
		return NULL;
	fakesys_bufsiz(root, content);
	Py_RETURN_NONE;
}

static PyObject *fs_add_spidev(PyObject *self, PyObject *args)
{
	const char *root, *ctrl, *child, *driver;
	int bus, cs;

	if (!PyArg_ParseTuple(args, "siiszz", &root, &bus, &cs, &ctrl, &child, &driver))
		return NULL;
	fakesys_add_spidev(root, bus, cs, ctrl, child, driver);
	Py_RETURN_NONE;
}

static PyObject *fs_free(PyObject *self, PyObject *args)
{
	const char *root;

	if (!PyArg_ParseTuple(args, "s", &root))
		return NULL;
	fakesys_free(strdup(root));
	Py_RETURN_NONE;
}

static PyMethodDef hooks[] = {
	{ "_fake_spi_add", (PyCFunction)(void (*)(void))fk_add, METH_VARARGS | METH_KEYWORDS, NULL },
	{ "_fake_spi_reset", fk_reset, METH_NOARGS, NULL },
	{ "_fake_spi_trace", fk_trace, METH_VARARGS, NULL },
	{ "_fake_spi_state", fk_state, METH_VARARGS, NULL },
	{ "_fakesys_new", fs_new, METH_NOARGS, NULL },
	{ "_fakesys_bufsiz", fs_bufsiz, METH_VARARGS, NULL },
	{ "_fakesys_add_spidev", fs_add_spidev, METH_VARARGS, NULL },
	{ "_fakesys_free", fs_free, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

int pyo_init_test_hooks(PyObject *m)
{
	return PyModule_AddFunctions(m, hooks);
}
