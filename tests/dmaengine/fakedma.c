/* SPDX-License-Identifier: MIT */
/* The /dev/offload_dma stand-in; see fakedma.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fakedma.h"

int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
int __real_close(int fd);
ssize_t __real_read(int fd, void *buf, size_t n);
int __real_poll(struct pollfd *p, nfds_t n, int timeout);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_close(int fd);
ssize_t __wrap_read(int fd, void *buf, size_t n);
int __wrap_poll(struct pollfd *p, nfds_t n, int timeout);

#define MAX_FILES 32
#define MAX_JOBS 1024
#define FAKE_PAGE 4096u

struct job {
	bool used, ended;
	struct offload_dma_completion comp;
	uint64_t pinned;
	struct timespec deadline;
	struct job *next; /* the file's done list, in completion order */
};

struct file {
	int fd;
	bool nonblock;
	unsigned outstanding; /* consumed, not yet read */
	uint64_t pinned;
	struct job jobs[MAX_JOBS];
	struct job *done_head, *done_tail;
};

static bool installed;
static struct fake_dma_cfg cfg;
static struct file *files[MAX_FILES];
static unsigned n_submits, n_copies;
static uint64_t pfn_lo, pfn_hi; /* a PFN-mapped range: pins fail */

void fake_dma_mark_pfn(const void *p, size_t len)
{
	pfn_lo = (uint64_t)(uintptr_t)p;
	pfn_hi = pfn_lo + len;
}

static bool pfn(uint64_t a, uint64_t len)
{
	return a < pfn_hi && pfn_lo < a + len;
}

void fake_dma_cfg_default(struct fake_dma_cfg *c, unsigned nchan, const char *driver,
			  const char *device, const char *of_path)
{
	memset(c, 0, sizeof(*c));
	c->ver.abi_major = OFFLOAD_DMA_ABI_MAJOR;
	c->ver.abi_minor = OFFLOAD_DMA_ABI_MINOR;
	c->ver.copy_size = sizeof(struct offload_dma_copy);
	c->ver.completion_size = sizeof(struct offload_dma_completion);
	snprintf(c->ver.module_version, sizeof(c->ver.module_version), "1.0.0-fake");
	/* kmod/README.md parameter defaults: 128 in flight, 256 MiB pinned, 10 s */
	c->info.nr_channels = nchan;
	c->info.max_inflight = 128;
	c->info.max_pinned_bytes = 256ull << 20;
	c->info.max_copy_bytes = c->info.max_pinned_bytes / 2 - 2 * FAKE_PAGE; /* ofd_max_copy() */
	c->info.default_timeout_ms = 10000;
	c->info.max_timeout_ms = 600000;
	c->info.cache_align = 64;
	c->info.page_size = FAKE_PAGE;
	for (unsigned i = 0; i < nchan && i < FAKE_DMA_MAX_CHANS; i++) {
		struct offload_dma_chan_info *ch = &c->ch[i];
		ch->index = i;
		ch->copy_align = 1;
		ch->chan_id = i;
		ch->max_seg_size = 65536;
		ch->dma_mask = ~0ull;
		snprintf(ch->name, sizeof(ch->name), "dma0chan%u", i);
		snprintf(ch->device, sizeof(ch->device), "%s", device);
		snprintf(ch->driver, sizeof(ch->driver), "%s", driver);
		snprintf(ch->of_path, sizeof(ch->of_path), "%s", of_path);
	}
}

static void close_all(void)
{
	for (int i = 0; i < MAX_FILES; i++)
		if (files[i]) {
			__real_close(files[i]->fd);
			free(files[i]);
			files[i] = NULL;
		}
}

void fake_dma_install(const struct fake_dma_cfg *c)
{
	close_all();
	installed = c != NULL;
	if (c)
		cfg = *c;
	n_submits = n_copies = 0;
	pfn_lo = pfn_hi = 0;
}

unsigned fake_dma_submits(void) { return n_submits; }
unsigned fake_dma_copies(void) { return n_copies; }

unsigned fake_dma_open_files(void)
{
	unsigned n = 0;
	for (int i = 0; i < MAX_FILES; i++)
		n += files[i] != NULL;
	return n;
}

uint64_t fake_dma_pinned(void)
{
	uint64_t p = 0;
	for (int i = 0; i < MAX_FILES; i++)
		if (files[i])
			p += files[i]->pinned;
	return p;
}

static struct file *file_of(int fd)
{
	for (int i = 0; fd >= 0 && i < MAX_FILES; i++)
		if (files[i] && files[i]->fd == fd)
			return files[i];
	return NULL;
}

static bool is_dev(const char *path)
{
	return path && strcmp(path, OFFLOAD_DMA_DEVICE) == 0;
}

static int fake_open(int flags)
{
	if (!installed) {
		errno = ENOENT;
		return -1;
	}
	if (cfg.eacces) {
		errno = EACCES;
		return -1;
	}
	for (int i = 0; i < MAX_FILES; i++) {
		if (files[i])
			continue;
		struct file *f = calloc(1, sizeof(*f));
		if (!f) {
			errno = ENOMEM;
			return -1;
		}
		f->fd = __real_open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (f->fd < 0) {
			free(f);
			return -1;
		}
		f->nonblock = (flags & O_NONBLOCK) != 0;
		files[i] = f;
		return f->fd;
	}
	errno = EMFILE;
	return -1;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
	va_end(ap);
	return is_dev(path) ? fake_open(flags) : __real_open(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
	va_end(ap);
	return is_dev(path) ? fake_open(flags) : __real_open64(path, flags, mode);
}

int __wrap_close(int fd)
{
	for (int i = 0; i < MAX_FILES; i++)
		if (files[i] && files[i]->fd == fd) {
			/* release cancels what is left and unpins: nothing outlives the file */
			free(files[i]);
			files[i] = NULL;
			break;
		}
	return __real_close(fd);
}

/* ------------------------------------------------------------ memory a pin takes */

/* Is [a, a + len) covered by mappings with permission `perm` ('r' or 'w') in /proc/self/maps? */
static bool mapped(uint64_t a, uint64_t len, char perm)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[512];
	uint64_t need = a & ~(uint64_t)(FAKE_PAGE - 1), end = a + len;
	bool ok = false;

	if (!m)
		return false;
	while (fgets(line, sizeof(line), m)) {
		unsigned long long s, e;
		char p[8];
		if (sscanf(line, "%llx-%llx %7s", &s, &e, p) != 3)
			continue;
		if (need < s)
			break; /* a hole before the next mapping */
		if (need >= e)
			continue;
		if (p[perm == 'r' ? 0 : 1] != perm)
			break;
		need = e;
		if (need >= end) {
			ok = true;
			break;
		}
	}
	fclose(m);
	return ok;
}

/* ------------------------------------------------------------ copies */

static void now_plus(struct timespec *t, uint32_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static bool passed(const struct timespec *t)
{
	struct timespec n;
	clock_gettime(CLOCK_MONOTONIC, &n);
	return n.tv_sec > t->tv_sec || (n.tv_sec == t->tv_sec && n.tv_nsec >= t->tv_nsec);
}

static void end_job(struct file *f, struct job *j, int32_t status, uint32_t detail)
{
	j->ended = true;
	j->comp.status = status;
	j->comp.detail = detail;
	f->pinned -= j->pinned;
	j->pinned = 0;
	j->next = NULL;
	if (f->done_tail)
		f->done_tail->next = j;
	else
		f->done_head = j;
	f->done_tail = j;
}

/* Stalled copies whose timeout has passed end with -ETIMEDOUT (the module's timeout). */
static void expire(struct file *f)
{
	for (int i = 0; i < MAX_JOBS; i++) {
		struct job *j = &f->jobs[i];
		if (j->used && !j->ended && passed(&j->deadline))
			end_job(f, j, -ETIMEDOUT, OFFLOAD_DMA_WHY_TIMEOUT);
	}
}

static uint64_t npages(uint64_t addr, uint64_t len)
{
	return ((addr & (FAKE_PAGE - 1)) + len + FAKE_PAGE - 1) / FAKE_PAGE;
}

/* ofd_check(): the copy's own fields, in the module's order. */
static int check(const struct offload_dma_copy *c, uint32_t *why)
{
	bool sbuf = c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF, dbuf = c->flags & OFFLOAD_DMA_COPY_DST_DMABUF;

	*why = OFFLOAD_DMA_WHY_RESERVED;
	if (c->reserved0 || c->reserved1 || (!sbuf && c->src_fd) || (!dbuf && c->dst_fd))
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_FLAGS;
	if (c->flags & ~OFFLOAD_DMA_COPY_FLAGS)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_CHAN;
	if (c->chan >= cfg.info.nr_channels)
		return -ENODEV;
	*why = OFFLOAD_DMA_WHY_LEN;
	if (!c->len)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_TIMEOUT_ARG;
	if (c->timeout_ms > cfg.info.max_timeout_ms)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_RANGE;
	if (c->src + c->len < c->src || c->dst + c->len < c->dst)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_FAULT;
	if ((!sbuf && (uintptr_t)c->src != c->src) || (!dbuf && (uintptr_t)c->dst != c->dst))
		return -EFAULT;
	*why = OFFLOAD_DMA_WHY_OVERLAP;
	if (!sbuf && !dbuf && c->src < c->dst + c->len && c->dst < c->src + c->len)
		return -EINVAL;
	*why = OFFLOAD_DMA_WHY_TOO_BIG;
	if ((!sbuf || !dbuf) && c->len > cfg.info.max_copy_bytes)
		return -E2BIG;
	*why = OFFLOAD_DMA_WHY_NONE;
	return 0;
}

/* The engine's part [lo, hi) of dst, as the module splits a copy between user buffers. */
static void split(const struct offload_dma_copy *c, uint64_t *lo, uint64_t *hi)
{
	const struct offload_dma_chan_info *ch = &cfg.ch[c->chan];
	uint64_t a = ch->copy_align, d = c->dst;

	if (!(ch->flags & OFFLOAD_DMA_CHAN_COHERENT) && cfg.info.cache_align > a)
		a = cfg.info.cache_align;
	if ((c->src - c->dst) % ch->copy_align) {
		*lo = *hi = 0; /* src and dst differ modulo copy_align: all by the CPU */
		return;
	}
	uint64_t s = (d + a - 1) / a * a, e = (d + c->len) / a * a;
	if (e <= s) {
		*lo = *hi = 0;
		return;
	}
	*lo = s - d;
	*hi = e - d;
}

/* One copy: 1 consumed (it will complete), 0 when the file's limits stop the batch before it. */
/* ofd_dmabuf(): the fd is a file (this stand-in takes any mappable one), the range inside it. */
static int dmabuf_side(int fd, uint64_t off, uint64_t len, uint64_t *size, uint32_t *why)
{
	struct stat sb;

	*why = OFFLOAD_DMA_WHY_DMABUF;
	if (fstat(fd, &sb) < 0)
		return -EBADF;
	*size = (uint64_t)sb.st_size;
	*why = OFFLOAD_DMA_WHY_DMABUF_RANGE;
	if (off > *size || len > *size - off)
		return -EINVAL;
	return 0;
}

/* The CPU address of a dma-buf side (mapped whole, MAP_SHARED), or of user memory. */
static void *side_map(int fd, uint64_t a, uint64_t size, bool buf)
{
	if (!buf)
		return (void *)(uintptr_t)a;
	void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return m == MAP_FAILED ? NULL : (char *)m + a;
}

/* A copy with a dma-buf side (ofd_prepare): no CPU part, the engine does every byte. */
static void dmabuf_copy(struct file *f, struct job *j, const struct offload_dma_copy *c)
{
	bool sbuf = c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF, dbuf = c->flags & OFFLOAD_DMA_COPY_DST_DMABUF;
	const struct offload_dma_chan_info *ch = &cfg.ch[c->chan];
	uint64_t ssz = 0, dsz = 0;
	uint32_t why;
	int r = 0;

	if (sbuf)
		r = dmabuf_side(c->src_fd, c->src, c->len, &ssz, &why);
	if (!r && dbuf)
		r = dmabuf_side(c->dst_fd, c->dst, c->len, &dsz, &why);
	if (r) {
		end_job(f, j, r, why);
		return;
	}
	if ((!sbuf && (!mapped(c->src, c->len, 'r') || pfn(c->src, c->len))) ||
	    (!dbuf && (!mapped(c->dst, c->len, 'w') || pfn(c->dst, c->len)))) {
		end_job(f, j, -EFAULT, OFFLOAD_DMA_WHY_FAULT);
		return;
	}
	/* every piece is a multiple of copy_align; a user dst on a non-coherent device on lines */
	uint64_t cl = cfg.info.cache_align;
	if (((c->src | c->dst | c->len) & (ch->copy_align - 1)) ||
	    (!dbuf && !(ch->flags & OFFLOAD_DMA_CHAN_COHERENT) && cl > 1 &&
	     ((c->dst | (c->dst + c->len)) & (cl - 1)))) {
		end_job(f, j, -EINVAL, OFFLOAD_DMA_WHY_ALIGN);
		return;
	}
	char *s = side_map(c->src_fd, c->src, ssz, sbuf), *d = side_map(c->dst_fd, c->dst, dsz, dbuf);
	if (!s || !d) {
		end_job(f, j, -EINVAL, OFFLOAD_DMA_WHY_DMABUF_MAP);
	} else {
		memmove(d, s, c->len);
		j->comp.dma_bytes = c->len;
		end_job(f, j, 0, OFFLOAD_DMA_WHY_NONE);
	}
	if (sbuf && s)
		munmap(s - c->src, (size_t)ssz);
	if (dbuf && d)
		munmap(d - c->dst, (size_t)dsz);
}

static int submit_one(struct file *f, const struct offload_dma_copy *c, unsigned k)
{
	if (f->outstanding >= cfg.info.max_inflight)
		return 0;
	int slot = -1;
	for (int i = 0; i < MAX_JOBS; i++)
		if (!f->jobs[i].used) {
			slot = i;
			break;
		}
	if (slot < 0)
		return 0;
	struct job *j = &f->jobs[slot];
	uint32_t why;
	int r = check(c, &why);
	uint64_t pin = 0;
	bool buf = c->flags & (OFFLOAD_DMA_COPY_SRC_DMABUF | OFFLOAD_DMA_COPY_DST_DMABUF);
	if (!r) {
		/* the pins of the user sides only */
		pin = ((c->flags & OFFLOAD_DMA_COPY_SRC_DMABUF ? 0 : npages(c->src, c->len)) +
		       (c->flags & OFFLOAD_DMA_COPY_DST_DMABUF ? 0 : npages(c->dst, c->len))) * FAKE_PAGE;
		if (f->pinned + pin > cfg.info.max_pinned_bytes)
			return 0;
	}
	memset(j, 0, sizeof(*j));
	j->used = true;
	f->outstanding++;
	n_copies++;
	j->comp.user_data = c->user_data;
	j->comp.chan = c->chan;
	if (r) {
		end_job(f, j, r, why);
		return 1;
	}
	if (buf) {
		dmabuf_copy(f, j, c);
		return 1;
	}
	/* pin_user_pages_fast(): every page present, dst writable, no PFN mapping (VM_PFNMAP) */
	if (!mapped(c->src, c->len, 'r') || !mapped(c->dst, c->len, 'w') || pfn(c->src, c->len) ||
	    pfn(c->dst, c->len)) {
		end_job(f, j, -EFAULT, OFFLOAD_DMA_WHY_FAULT);
		return 1;
	}
	j->pinned = pin;
	f->pinned += pin;
	uint64_t lo, hi;
	split(c, &lo, &hi);
	if ((c->flags & OFFLOAD_DMA_COPY_NO_CPU) && (lo != 0 || hi != c->len)) {
		end_job(f, j, -EINVAL, OFFLOAD_DMA_WHY_ALIGN);
		return 1;
	}
	uint64_t maxseg = cfg.ch[c->chan].max_seg_size ? cfg.ch[c->chan].max_seg_size : hi - lo;
	j->comp.pieces = hi > lo ? (uint32_t)((hi - lo + maxseg - 1) / maxseg) : 0;
	if (cfg.stall && hi > lo) {
		now_plus(&j->deadline, c->timeout_ms ? c->timeout_ms : cfg.info.default_timeout_ms);
		return 1;
	}
	char *dst = (char *)(uintptr_t)c->dst;
	const char *src = (const char *)(uintptr_t)c->src;
	if (cfg.fail_mask) {
		if (k < 32 && (cfg.fail_mask >> k) & 1) {
			end_job(f, j, cfg.fail_status, cfg.fail_detail);
			return 1;
		}
	} else if (cfg.fail_status && hi > lo) {
		/* the engine wrote half its part, then its driver reported the error */
		uint64_t half = cfg.fail_half ? (hi - lo) / 2 : 0;
		memcpy(dst + lo, src + lo, half);
		j->comp.dma_bytes = half;
		end_job(f, j, cfg.fail_status, cfg.fail_detail);
		return 1;
	}
	memcpy(dst, src, c->len);
	j->comp.dma_bytes = hi - lo;
	j->comp.cpu_bytes = c->len - (hi - lo);
	end_job(f, j, 0, OFFLOAD_DMA_WHY_NONE);
	return 1;
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A completion for no copy (a lying module): status 0, 4096 B "by the engine". */
static void fake_comp(struct file *f, uint64_t user_data)
{
	for (int i = 0; i < MAX_JOBS; i++) {
		struct job *j = &f->jobs[i];
		if (j->used)
			continue;
		memset(j, 0, sizeof(*j));
		j->used = true;
		f->outstanding++;
		j->comp.user_data = user_data;
		j->comp.dma_bytes = 4096;
		end_job(f, j, 0, OFFLOAD_DMA_WHY_NONE);
		return;
	}
}

/* Reverse the part of the done list after `t` (NULL: all of it). */
static void reverse_after(struct file *f, struct job *t)
{
	struct job *h = t ? t->next : f->done_head, *prev = NULL, *first = h;
	while (h) {
		struct job *nx = h->next;
		h->next = prev;
		prev = h;
		h = nx;
	}
	if (!first)
		return;
	if (t)
		t->next = prev;
	else
		f->done_head = prev;
	f->done_tail = first;
}

static int do_submit(struct file *f, struct offload_dma_submit *s)
{
	n_submits++;
	s->submitted = 0;
	s->detail = OFFLOAD_DMA_WHY_NONE;
	if (!zero(s->reserved, sizeof(s->reserved))) {
		s->detail = OFFLOAD_DMA_WHY_RESERVED;
		return -EINVAL;
	}
	if (s->flags) {
		s->detail = OFFLOAD_DMA_WHY_FLAGS;
		return -EINVAL;
	}
	if (!s->count) {
		s->detail = OFFLOAD_DMA_WHY_COUNT;
		return -EINVAL;
	}
	const struct offload_dma_copy *uc = (const void *)(uintptr_t)s->copies;
	unsigned i;
	int r = 0;
	if (cfg.submit_zero)
		return 0;
	if (cfg.stray)
		fake_comp(f, ~0ull);
	struct job *tail0 = f->done_tail;
	for (i = 0; i < s->count; i++) {
		if (!mapped((uint64_t)(uintptr_t)(uc + i), sizeof(*uc), 'r')) {
			r = -EFAULT;
			break;
		}
		if (submit_one(f, &uc[i], i) == 0) {
			r = -EAGAIN;
			break;
		}
	}
	if (cfg.reverse)
		reverse_after(f, tail0);
	for (unsigned k = 0; k < cfg.lie_extra && i; k++)
		fake_comp(f, 0x1000);
	if (i)
		i += cfg.lie_extra;
	s->submitted = i;
	if (!i && r == -EFAULT)
		s->detail = OFFLOAD_DMA_WHY_FAULT;
	return i ? (int)i : r;
}

static int do_cancel(struct file *f, struct offload_dma_cancel *c)
{
	unsigned n = 0;

	if (c->reserved || (c->flags & ~OFFLOAD_DMA_CANCEL_FLAGS))
		return -EINVAL;
	for (int i = 0; i < MAX_JOBS; i++) {
		struct job *j = &f->jobs[i];
		if (!j->used || j->ended)
			continue;
		if (!(c->flags & OFFLOAD_DMA_CANCEL_ALL) && j->comp.user_data != c->user_data)
			continue;
		end_job(f, j, -ECANCELED, OFFLOAD_DMA_WHY_CANCELED);
		n++;
	}
	c->cancelled = n;
	return (int)n;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct file *f = file_of(fd);
	if (!f)
		return __real_ioctl(fd, req, arg);
	int r;
	if (!mapped((uint64_t)(uintptr_t)arg, _IOC_SIZE(req), 'r')) {
		errno = EFAULT;
		return -1;
	}
	switch (req) {
	case OFFLOAD_DMA_IOC_VERSION:
		memcpy(arg, &cfg.ver, sizeof(cfg.ver));
		return 0;
	case OFFLOAD_DMA_IOC_INFO:
		memcpy(arg, &cfg.info, sizeof(cfg.info));
		return 0;
	case OFFLOAD_DMA_IOC_CHAN_INFO: {
		struct offload_dma_chan_info *ci = arg;
		if (ci->reserved0 || !zero(ci->reserved, sizeof(ci->reserved)))
			r = -EINVAL;
		else if (ci->index >= cfg.info.nr_channels)
			r = -ENODEV;
		else {
			*ci = cfg.ch[ci->index];
			return 0;
		}
		break;
	}
	case OFFLOAD_DMA_IOC_SUBMIT:
		r = do_submit(f, arg);
		break;
	case OFFLOAD_DMA_IOC_CANCEL:
		r = do_cancel(f, arg);
		break;
	default:
		r = -ENOTTY;
	}
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

/* The earliest deadline of a stalled copy, or false. */
static bool next_deadline(const struct file *f, struct timespec *t)
{
	bool any = false;
	for (int i = 0; i < MAX_JOBS; i++) {
		const struct job *j = &f->jobs[i];
		if (!j->used || j->ended)
			continue;
		if (!any || j->deadline.tv_sec < t->tv_sec ||
		    (j->deadline.tv_sec == t->tv_sec && j->deadline.tv_nsec < t->tv_nsec))
			*t = j->deadline;
		any = true;
	}
	return any;
}

static void wait_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	struct file *f = file_of(fd);
	const size_t sz = sizeof(struct offload_dma_completion);

	if (!f)
		return __real_read(fd, buf, n);
	if (n / sz == 0) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		expire(f);
		if (f->done_head)
			break;
		struct timespec t;
		if (f->nonblock || !next_deadline(f, &t)) {
			/* blocking with nothing running would sleep for ever: the test's bug, say so */
			errno = f->nonblock ? EAGAIN : EDEADLK;
			return -1;
		}
		wait_until(&t);
	}
	size_t got = 0;
	while (got < n / sz && f->done_head) {
		struct job *j = f->done_head;
		memcpy((char *)buf + got * sz, &j->comp, sz);
		f->done_head = j->next;
		if (!f->done_head)
			f->done_tail = NULL;
		j->used = false;
		f->outstanding--;
		got++;
	}
	return (ssize_t)(got * sz);
}

int __wrap_poll(struct pollfd *p, nfds_t n, int timeout)
{
	struct file *f = n == 1 ? file_of(p[0].fd) : NULL;

	if (!f)
		return __real_poll(p, n, timeout);
	struct timespec lim, t;
	if (timeout >= 0)
		now_plus(&lim, (uint32_t)timeout);
	for (;;) {
		expire(f);
		p[0].revents = (short)((f->done_head ? POLLIN : 0) |
				       (f->outstanding < cfg.info.max_inflight ? POLLOUT : 0));
		p[0].revents &= (short)(p[0].events | POLLERR | POLLHUP);
		if (p[0].revents & POLLIN || timeout == 0)
			return p[0].revents ? 1 : 0;
		if (cfg.poll_eintr) {
			/* a signal every 10 ms: the wait ends early with EINTR */
			struct timespec d;
			now_plus(&d, 10);
			if (timeout >= 0 && passed(&lim) == false &&
			    (lim.tv_sec < d.tv_sec || (lim.tv_sec == d.tv_sec && lim.tv_nsec < d.tv_nsec)))
				d = lim;
			wait_until(&d);
			errno = EINTR;
			return -1;
		}
		bool dl = next_deadline(f, &t);
		if (timeout >= 0 && (!dl || lim.tv_sec < t.tv_sec ||
				     (lim.tv_sec == t.tv_sec && lim.tv_nsec < t.tv_nsec)))
			t = lim, dl = true;
		if (!dl)
			return p[0].revents ? 1 : 0;
		wait_until(&t);
		if (timeout >= 0 && passed(&lim)) {
			expire(f);
			p[0].revents = (short)(f->done_head ? POLLIN : 0);
			return p[0].revents ? 1 : 0;
		}
	}
}
