/* SPDX-License-Identifier: MIT */
/*
 * dma-buf buffers on a host without a working exporter: every way of not
 * getting one, through stand-in /dev and /sys trees (ofl_platform_set_roots()).
 * The exporters themselves (UDMABUF_CREATE, DMA_HEAP_IOCTL_ALLOC,
 * DMA_BUF_IOCTL_SYNC) need a kernel with CONFIG_UDMABUF / DMABUF_HEAPS_SYSTEM:
 * tests/qemu/guest_dmabuf.c checks those in the qemu guest.
 *
 * A regular file standing in for a node opens like one but answers every
 * ioctl with ENOTTY: that is how "the exporter was tried and failed" (and so
 * the fallback to the next one) is observed here.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "platform/platform.h"
#include "testutil.h"

#define NOBODY 65534

/*
 * qemu-user (a cross build's tests) answers an ioctl it does not translate --
 * UDMABUF_CREATE, DMA_HEAP_IOCTL_ALLOC -- with ENOSYS itself, so the
 * stand-ins' ENOTTY never reaches the library; the guest tests (tests/qemu)
 * run these paths on real kernels.
 */
#define QEMU_USER_IOCTL "qemu-user answers the dma-buf ioctls with ENOSYS itself, never ENOTTY"

static char root[64];

static void mkpath(const char *rel, int mode)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_msg(mkdir(p, (mode_t)mode) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
	chmod(p, (mode_t)mode);
}

static void mkfile(const char *rel, const char *text, int mode)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, mode);
	ck_assert_msg(fd >= 0, "create %s: %s", p, strerror(errno));
	if (text)
		ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(p, (mode_t)mode);
}

static int count_fds(void)
{
	char p[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		n += access(p, F_OK) == 0;
	}
	return n;
}

/* A fresh stand-in tree: <root>/dev and <root>/sys, both empty. */
static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/dmabuf-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	chmod(root, 0755);
	mkpath("dev", 0755);
	mkpath("sys", 0755);
	char dev[128], sys[128];
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	ofl_platform_set_roots(sys, dev, NULL, NULL);
}

static void teardown(void)
{
	char cmd[128];

	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}

static offload_ctx *cpu_ctx(void)
{
	return test_ctx_open(OFFLOAD_DT_NONE, NULL, 0, NULL);
}

START_TEST(no_exporter_names_every_path)
{
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = (offload_buf *)&b; /* must be reset to NULL */
	char want[200];
	int fds = count_fds();

	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 4096, OFFLOAD_BUF_DMABUF, &b), -ENODEV);
	ck_assert_ptr_null(b);
	const char *msg = offload_last_error(ctx);
	snprintf(want, sizeof(want), "%s/dev/udmabuf: absent (No such file or directory)", root);
	ck_assert_msg(strstr(msg, want), "\"%s\" lacks \"%s\"", msg, want);
	snprintf(want, sizeof(want), "%s/dev/dma_heap/system: absent (No such file or directory)", root);
	ck_assert_msg(strstr(msg, want), "\"%s\" lacks \"%s\"", msg, want);
	/* one exporter asked for: only it is named */
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 4096, OFFLOAD_BUF_DMABUF_HEAP, &b),
			 -ENODEV);
	ck_assert_ptr_null(strstr(offload_last_error(ctx), "udmabuf"));
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "dma_heap/system: absent"));
	ck_assert_int_eq(count_fds(), fds);
	offload_ctx_free(ctx);
}
END_TEST

/* This machine's real /dev: the same answer when it has no exporter. */
START_TEST(this_machine_without_exporters)
{
	ofl_platform_set_roots(NULL, NULL, NULL, NULL);
	if (access("/dev/udmabuf", F_OK) == 0 || access("/dev/dma_heap/system", F_OK) == 0) {
		printf("skip: this machine has a dma-buf exporter (the qemu guest test covers it)\n");
		return;
	}
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = NULL;
	ck_assert_err(ctx, offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 1, OFFLOAD_BUF_DMABUF, &b), -ENODEV,
		      "/dev/udmabuf: absent");
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "/dev/dma_heap/system: absent"));
	offload_ctx_free(ctx);
}
END_TEST

/*
 * udmabuf's size_limit_mb (a stand-in of 1 MiB): 2 MiB is refused before any
 * memfd is made, saying so, and the system heap is tried next (its stand-in
 * answers ENOTTY: the message shows the attempt).
 */
START_TEST(size_limit_falls_back_to_the_heap)
{
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = NULL;
	char want[256];

	mkpath("sys/module", 0755);
	mkpath("sys/module/udmabuf", 0755);
	mkpath("sys/module/udmabuf/parameters", 0755);
	mkfile("sys/module/udmabuf/parameters/size_limit_mb", "1\n", 0644);
	mkfile("dev/udmabuf", NULL, 0600);
	int fds = count_fds();
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 2u << 20, OFFLOAD_BUF_DMABUF, &b),
			 -ENOMEM);
	const char *msg = offload_last_error(ctx);
	snprintf(want, sizeof(want), "%s/dev/udmabuf: 2097152 bytes exceed udmabuf's size limit of "
		 "1 MiB (%s/sys/module/udmabuf/parameters/size_limit_mb)", root, root);
	ck_assert_msg(strstr(msg, want), "\"%s\" lacks \"%s\"", msg, want);
	ck_assert_ptr_nonnull(strstr(msg, "dma_heap/system: absent"));
	/* a heap node that is there but fails: the allocation was tried on it */
	if (test_emulated(QEMU_USER_IOCTL)) {
		offload_ctx_free(ctx);
		return;
	}
	mkpath("dev/dma_heap", 0755);
	mkfile("dev/dma_heap/system", NULL, 0600);
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 2u << 20, OFFLOAD_BUF_DMABUF, &b),
			 -ENOMEM);
	msg = offload_last_error(ctx);
	ck_assert_ptr_nonnull(strstr(msg, "size limit of 1 MiB"));
	snprintf(want, sizeof(want), "%s/dev/dma_heap/system: is not a dma-buf exporter "
		 "(DMA_HEAP_IOCTL_ALLOC: Inappropriate ioctl for device)", root);
	ck_assert_msg(strstr(msg, want), "\"%s\" lacks \"%s\"", msg, want);
	/* 1 MiB is within the limit: UDMABUF_CREATE is tried; the stand-in is no exporter */
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 1u << 20, OFFLOAD_BUF_DMABUF_UDMABUF, &b),
			 -ENODEV);
	ck_assert_ptr_nonnull(strstr(offload_last_error(ctx), "udmabuf: is not a dma-buf exporter "
				     "(UDMABUF_CREATE: Inappropriate ioctl for device)"));
	ck_assert_ptr_null(b);
	ck_assert_int_eq(count_fds(), fds); /* node, memfd: all closed */
	offload_ctx_free(ctx);
}
END_TEST

/*
 * size_limit_mb too large to shift into bytes: the limit saturates (nothing
 * is above it) rather than wrapping. 2^44 + 1 MiB << 20 would wrap to 1 MiB.
 */
START_TEST(size_limit_saturates)
{
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = NULL;

	mkpath("sys/module", 0755);
	mkpath("sys/module/udmabuf", 0755);
	mkpath("sys/module/udmabuf/parameters", 0755);
	mkfile("sys/module/udmabuf/parameters/size_limit_mb", "17592186044417\n", 0644);
	mkfile("dev/udmabuf", NULL, 0600);
	if (test_emulated(QEMU_USER_IOCTL)) {
		offload_ctx_free(ctx);
		return;
	}
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 2u << 20, OFFLOAD_BUF_DMABUF_UDMABUF, &b),
			 -ENODEV);
	const char *msg = offload_last_error(ctx);
	ck_assert_msg(!strstr(msg, "size limit"), "%s", msg);
	ck_assert_msg(strstr(msg, "UDMABUF_CREATE"), "%s", msg); /* tried: within the limit */
	offload_ctx_free(ctx);
}
END_TEST

/*
 * Nodes that are no exporter: -ENODEV, "is not a dma-buf exporter", whatever
 * they are. Directories fail at open (EISDIR); a FIFO, a symlink to
 * /dev/zero and a regular file open, then answer the ioctl with ENOTTY.
 */
static void not_exporter(const char *what, const char *why_udmabuf, const char *why_heap)
{
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = NULL;
	char want[256];
	int fds = count_fds();

	ck_assert_err(ctx, offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 4096, OFFLOAD_BUF_DMABUF, &b), -ENODEV,
		      "no dma-buf of 4096 bytes");
	const char *msg = offload_last_error(ctx);
	snprintf(want, sizeof(want), "%s/dev/udmabuf: is not a dma-buf exporter (%s)", root, why_udmabuf);
	ck_assert_msg(strstr(msg, want), "%s: \"%s\" lacks \"%s\"", what, msg, want);
	snprintf(want, sizeof(want), "%s/dev/dma_heap/system: is not a dma-buf exporter (%s)", root,
		 why_heap);
	ck_assert_msg(strstr(msg, want), "%s: \"%s\" lacks \"%s\"", what, msg, want);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(count_fds(), fds);
	offload_ctx_free(ctx);
}

static void node_path(char *p, size_t len, const char *rel)
{
	snprintf(p, len, "%s/%s", root, rel);
}

START_TEST(directories_are_not_exporters)
{
	mkpath("dev/udmabuf", 0755);
	mkpath("dev/dma_heap", 0755);
	mkpath("dev/dma_heap/system", 0755);
	not_exporter("directories", "open: Is a directory", "open: Is a directory");
}
END_TEST

START_TEST(other_nodes_are_not_exporters)
{
	char p[256];
	const char *enotty_u = "UDMABUF_CREATE: Inappropriate ioctl for device";
	const char *enotty_h = "DMA_HEAP_IOCTL_ALLOC: Inappropriate ioctl for device";

	if (test_emulated(QEMU_USER_IOCTL))
		return;
	mkpath("dev/dma_heap", 0755);
	/* regular files */
	mkfile("dev/udmabuf", NULL, 0600);
	mkfile("dev/dma_heap/system", NULL, 0600);
	not_exporter("regular files", enotty_u, enotty_h);
	/* a character device that is something else: /dev/zero */
	node_path(p, sizeof(p), "dev/udmabuf");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink("/dev/zero", p), 0);
	node_path(p, sizeof(p), "dev/dma_heap/system");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink("/dev/zero", p), 0);
	not_exporter("/dev/zero", enotty_u, enotty_h);
	/* FIFOs (O_RDWR does not block on Linux, fifo(7)) */
	node_path(p, sizeof(p), "dev/udmabuf");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	node_path(p, sizeof(p), "dev/dma_heap/system");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	not_exporter("FIFOs", enotty_u, enotty_h);
}
END_TEST

/* Root-only nodes (as devtmpfs makes them) seen by uid NOBODY: "permission denied", not "absent". */
static int denied_child(void)
{
	offload_ctx *ctx = offload_ctx_new();
	struct offload_ctx_opts o;
	offload_buf *b = NULL;
	char want[200];

	offload_ctx_opts_init(&o);
	o.dt_source = OFFLOAD_DT_NONE;
	o.flags = OFFLOAD_CTX_NO_ENV;
	if (!ctx || offload_ctx_open(ctx, &o) < 0)
		return 2;
	int r = offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 4096, OFFLOAD_BUF_DMABUF, &b);
	const char *msg = offload_last_error(ctx);
	int bad = 0;
	if (r != -EACCES) {
		printf("want -EACCES, got %d (%s)\n", r, msg);
		bad = 1;
	}
	const char *names[] = { "udmabuf", "dma_heap/system" };
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "%s/dev/%s: permission denied", root, names[i]);
		if (!strstr(msg, want)) {
			printf("\"%s\" lacks \"%s\"\n", msg, want);
			bad = 1;
		}
	}
	if (strstr(msg, "absent")) {
		printf("\"%s\" calls a root-only node absent\n", msg);
		bad = 1;
	}
	offload_ctx_free(ctx);
	return bad;
}

START_TEST(permission_denied_says_so)
{
	if (geteuid() != 0) {
		printf("skip: needs root to make root-only stand-in nodes and drop to uid %d\n", NOBODY);
		return;
	}
	mkfile("dev/udmabuf", NULL, 0600);
	mkpath("dev/dma_heap", 0755);
	mkfile("dev/dma_heap/system", NULL, 0600);
	fflush(stdout);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
			_exit(3);
		int r = denied_child();
		fflush(stdout);
		_exit(r);
	}
	int st = 0;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
END_TEST

START_TEST(import_refuses_what_is_not_a_dma_buf)
{
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = NULL;
	int p[2];
	char file[128];

	ck_assert_int_eq(pipe(p), 0);
	snprintf(file, sizeof(file), "%s/plain", root);
	int f = open(file, O_CREAT | O_RDWR, 0600);
	ck_assert_int_ge(f, 0);
	ck_assert_int_eq(ftruncate(f, 4096), 0);
	int fds = count_fds();
	char want[128];
	snprintf(want, sizeof(want), "fd %d is a pipe, not a dma-buf", p[0]);
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, p[0], &b), -EINVAL, want);
	snprintf(want, sizeof(want), "fd %d is a regular file, not a dma-buf", f);
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, f, &b), -EINVAL, want);
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, -1, &b), -EBADF,
		      "fd -1 is not an open file descriptor");
	close(p[1]);
	int closed = p[1];
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, closed, &b), -EBADF,
		      "is not an open file descriptor");
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, OFFLOAD_DEV_AUTO, p[0], NULL), -EINVAL,
		      "out is NULL");
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, 42, p[0], &b), -ENODEV, "no device 42");
	ck_assert_int_eq(offload_buf_import_dmabuf(NULL, OFFLOAD_DEV_AUTO, p[0], &b), -EINVAL);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(count_fds(), fds - 1); /* only the write end this test closed */
	close(p[0]);
	close(f);
	offload_ctx_free(ctx);
}
END_TEST

START_TEST(flags_and_accessors)
{
	offload_ctx *ctx = cpu_ctx();
	offload_buf *b = NULL;

	ck_assert_err(ctx, offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 64,
					     OFFLOAD_BUF_DMABUF | OFFLOAD_BUF_UNCACHED, &b),
		      -EINVAL, "does not apply to a dma-buf");
	ck_assert_err(ctx, offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 64,
					     OFFLOAD_BUF_DMABUF_UDMABUF | OFFLOAD_BUF_DMABUF_HEAP, &b),
		      -EINVAL, "one exporter only");
	ck_assert_err(ctx, offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 64, 1u << 4, &b), -EINVAL,
		      "unknown flags 0x10");
	ck_assert_int_eq(offload_buf_alloc(ctx, OFFLOAD_DEV_AUTO, 64, 0, &b), 0);
	ck_assert_err(ctx, offload_buf_dmabuf_fd(b), -ENOTSUP, "not a dma-buf");
	ck_assert_ptr_null(offload_buf_dmabuf_exporter(b));
	ck_assert_int_eq(offload_buf_free(b), 0);
	ck_assert_int_eq(offload_buf_dmabuf_fd(NULL), -EINVAL);
	ck_assert_ptr_null(offload_buf_dmabuf_exporter(NULL));
	offload_ctx_free(ctx);
}
END_TEST

#if defined(OFFLOAD_HAVE_SIM) && defined(OFFLOAD_HAVE_UDMA)
/* A direct engine, even simulated, cannot take a dma-buf; refused before any exporter is tried. */
START_TEST(direct_engine_is_refused)
{
	offload_ctx *ctx = test_ctx_open(OFFLOAD_DT_BUILTIN, NULL, 0, "cpu,udma");
	offload_buf *b = NULL;
	int d = offload_dev_find(ctx, "ti,j721e-navss-main-udmap");
	ck_assert_int_ge(d, 0);
	if (test_udma_refused_on_32bit(ctx, d)) {
		/* an unusable device takes no buffer at all */
		ck_assert_int_eq(offload_buf_alloc(ctx, d, 4096, OFFLOAD_BUF_DMABUF, &b), -ENODEV);
		ck_assert_ptr_null(b);
		offload_ctx_free(ctx);
		return;
	}
	ck_assert_err(ctx, offload_buf_alloc(ctx, d, 4096, OFFLOAD_BUF_DMABUF, &b), -ENOTSUP,
		      "only through an IOMMU mapping, which this library does not set up");
	const char *msg = offload_last_error(ctx);
	ck_assert_ptr_nonnull(strstr(msg, "u-dma-buf, a CMA dma-heap or reserved-memory"));
	ck_assert_ptr_nonnull(strstr(msg, "simulated"));
	ck_assert_ptr_null(strstr(msg, "absent")); /* no exporter was tried */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_err(ctx, offload_buf_import_dmabuf(ctx, d, p[0], &b), -ENOTSUP, "IOMMU");
	close(p[0]);
	close(p[1]);
	ck_assert_ptr_null(b);
	offload_ctx_free(ctx);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("dmabuf");
	TCase *t = tcase_create("host");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, no_exporter_names_every_path);
	tcase_add_test(t, this_machine_without_exporters);
	tcase_add_test(t, size_limit_falls_back_to_the_heap);
	tcase_add_test(t, size_limit_saturates);
	tcase_add_test(t, directories_are_not_exporters);
	tcase_add_test(t, other_nodes_are_not_exporters);
	tcase_add_test(t, permission_denied_says_so);
	tcase_add_test(t, import_refuses_what_is_not_a_dma_buf);
	tcase_add_test(t, flags_and_accessors);
#if defined(OFFLOAD_HAVE_SIM) && defined(OFFLOAD_HAVE_UDMA)
	tcase_add_test(t, direct_engine_is_refused);
#endif
	suite_add_tcase(s, t);
	return test_run(s);
}
