/* SPDX-License-Identifier: MIT */
/*
 * Register regions: UIO, VFIO-platform, /dev/mem and simulated.
 *
 * UIO (Documentation/driver-api/uio-howto.rst): /sys/class/uio/uioN/device
 * links to the bound platform device, whose of_node links into
 * /sys/firmware/devicetree/base; maps/mapM/{addr,size,offset} describe the
 * regions, and mmap() of /dev/uioN at offset M * page size maps map M.
 * VFIO-platform (Documentation/driver-api/vfio.rst, include/uapi/linux/vfio.h):
 * container + group + device fds; VFIO_DEVICE_GET_REGION_INFO gives each
 * reg entry's mmap offset, in DT reg order.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/vfio.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "util/util.h"
#include "platform/platform.h"
#include "platform/sysfs.h"

static void vfio_put(void *session);

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

const char *ofl_mmio_map_kind_name(enum ofl_mmio_kind k)
{
	switch (k) {
	case OFL_MMIO_SIM: return "register-level model (sim)";
	case OFL_MMIO_UIO: return "UIO";
	case OFL_MMIO_VFIO: return "VFIO-platform";
	case OFL_MMIO_DEVMEM: return "/dev/mem";
	case OFL_MMIO_NONE: break;
	}
	return "not mapped";
}

void ofl_mmio_oob(const struct ofl_mmio *m, uint64_t off, unsigned width, bool write)
{
	if (m->sim) {
		m->prov->bus_error(m->sim, write, width, off, m->size);
		return;
	}
	fprintf(stderr, "liboffload: %s of %u bytes at offset 0x%" PRIx64 " of the %s region at 0x%" PRIx64
		" (0x%" PRIx64 " bytes): outside the region; stopping before touching memory past the "
		"mapping (a library bug: report it with the device tree)\n",
		write ? "write" : "read", width, off, ofl_mmio_map_kind_name(m->kind), m->phys, m->size);
	abort();
}

void ofl_mmio_unmap(struct ofl_mmio *m)
{
	if (!m)
		return;
	if (m->map)
		munmap(m->map, m->map_len);
	if (m->map && m->fd >= 0)
		close(m->fd);
	if (m->vfio)
		vfio_put(m->vfio);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

/* ------------------------------------------------------------- /dev/mem */

bool ofl_devmem_allowed(void)
{
	const char *on = "0";
	char why[OFL_REASON_LEN];

	/* a malformed value is off here; offload_ctx_open() refused it before (src/util/env.c) */
	return ofl_env_word("OFFLOAD_DEVMEM", &on, why, sizeof(why)) == 1 && on[0] == '1';
}

/*
 * Does the file behind fd hold [0, end)? A device node (the real /dev/mem,
 * /dev/uioN) is taken as it is; a regular file (a stand-in tree) must be
 * that long: mmap() of a file succeeds past its end, and the first access
 * there raises SIGBUS (mmap(2)), so a short file is refused before mapping.
 */
static int file_covers(int fd, const char *what, const char *path, uint64_t end, char *why, size_t wl)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int e = errno;
		snprintf(why, wl, "%s: cannot stat %s: %s", what, path, strerror(e));
		return -e;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < end) {
		snprintf(why, wl, "%s: %s is a regular file of 0x%llx bytes, which ends before 0x%" PRIx64
			 " (the end of the window): refused rather than mapped past its end", what, path,
			 (unsigned long long)st.st_size, end);
		return -EINVAL;
	}
	return 0;
}

/* mmap offsets carry physical addresses (and VFIO's index << 40): a 32-bit
 * off_t would map the wrong memory silently (CMakeLists.txt sets
 * _FILE_OFFSET_BITS=64 for every target). */
_Static_assert(sizeof(off_t) == 8, "liboffload needs a 64-bit off_t (_FILE_OFFSET_BITS=64)");

int ofl_devmem_map(uint64_t phys, uint64_t size, bool uncached, void **cpu, void **map,
		   size_t *map_len, int *fd, char *why, size_t wl)
{
	const char *path = ofl_platform_roots()->devmem;
	size_t pg = page_size();
	uint64_t base = phys & ~(uint64_t)(pg - 1);
	size_t len = (size_t)(phys - base + size + pg - 1) & ~(pg - 1);

	if (size == 0 || phys + size < phys) {
		snprintf(why, wl, "/dev/mem: empty or wrapping range");
		return -EINVAL;
	}
	int f = open(path, O_RDWR | O_CLOEXEC | (uncached ? O_SYNC : 0));
	if (f < 0) {
		int e = errno;
		snprintf(why, wl, "/dev/mem: cannot open %s: %s%s", path, strerror(e),
			 e == EACCES || e == EPERM ? " (needs root / CAP_SYS_RAWIO)" : "");
		return -e;
	}
	int r = file_covers(f, "/dev/mem", path, phys + size, why, wl);
	if (r < 0) {
		close(f);
		return r;
	}
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, (off_t)base);
	if (m == MAP_FAILED) {
		int e = errno;
		snprintf(why, wl, "/dev/mem: cannot map 0x%" PRIx64 "+0x%" PRIx64 ": %s%s", phys, size,
			 strerror(e), e == EPERM ? " (CONFIG_STRICT_DEVMEM?)" : "");
		close(f);
		return -e;
	}
	*map = m;
	*map_len = len;
	*cpu = (char *)m + (phys - base);
	*fd = f;
	return 0;
}

/* ------------------------------------------------------------- UIO */

int ofl_uio_find(const char *dt_path, char *why, size_t wl)
{
	char dir[PATH_MAX_OFL];

	if (ofl_path(dir, sizeof(dir), "%s/class/uio", ofl_platform_roots()->sysfs) < 0)
		return -ENAMETOOLONG;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(why, wl, "UIO: %s does not exist (no UIO devices)", dir);
		return -ENOENT;
	}
	int found = -ENOENT;
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[PATH_MAX_OFL], path[256];
		int n;
		if (sscanf(e->d_name, "uio%d", &n) != 1 ||
		    ofl_path(link, sizeof(link), "%s/%s/device/of_node", dir, e->d_name) < 0 ||
		    ofl_of_node_path(link, path, sizeof(path)) < 0)
			continue;
		if (strcmp(path, dt_path) == 0) {
			found = n;
			break;
		}
	}
	closedir(d);
	if (found < 0)
		snprintf(why, wl, "UIO: no /sys/class/uio device is bound to %s", dt_path);
	return found;
}

int ofl_uio_map(int uio, uint64_t phys, uint64_t size, struct ofl_mmio *out, char *why, size_t wl)
{
	const struct ofl_platform_roots *rt = ofl_platform_roots();

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	for (int m = 0; m < 16; m++) {
		char p[PATH_MAX_OFL];
		uint64_t addr, msize, moff = 0;
		if (ofl_path(p, sizeof(p), "%s/class/uio/uio%d/maps/map%d/addr", rt->sysfs, uio, m) < 0 ||
		    ofl_read_u64(p, &addr) < 0)
			break;
		if (ofl_path(p, sizeof(p), "%s/class/uio/uio%d/maps/map%d/size", rt->sysfs, uio, m) < 0 ||
		    ofl_read_u64(p, &msize) < 0)
			break;
		if (ofl_path(p, sizeof(p), "%s/class/uio/uio%d/maps/map%d/offset", rt->sysfs, uio, m) == 0)
			ofl_read_u64(p, &moff);
		/* addr is page aligned; offset is where the region starts inside that page */
		uint64_t start = addr + moff;
		if (phys < start || phys + size > start + msize)
			continue;
		if (ofl_path(p, sizeof(p), "%s/uio%d", rt->dev, uio) < 0)
			return -ENAMETOOLONG;
		int fd = open(p, O_RDWR | O_CLOEXEC | O_SYNC);
		if (fd < 0) {
			snprintf(why, wl, "UIO: cannot open %s: %s", p, strerror(errno));
			return -errno;
		}
		size_t len = (size_t)(moff + msize + page_size() - 1) & ~(page_size() - 1);
		int r = file_covers(fd, "UIO", p, (uint64_t)m * (uint64_t)page_size() + moff + msize, why,
				    wl);
		if (r < 0) {
			close(fd);
			return r;
		}
		void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				 (off_t)m * (off_t)page_size());
		if (map == MAP_FAILED) {
			snprintf(why, wl, "UIO: cannot map map%d of %s: %s", m, p, strerror(errno));
			close(fd);
			return -ENOMEM;
		}
		out->map = map;
		out->map_len = len;
		out->fd = fd;
		out->base = (volatile uint8_t *)map + moff + (phys - start);
		out->phys = phys;
		out->size = size;
		out->kind = OFL_MMIO_UIO;
		return 0;
	}
	snprintf(why, wl, "UIO: uio%d has no map covering 0x%" PRIx64 "+0x%" PRIx64, uio, phys, size);
	return -ENOENT;
}

/* ------------------------------------------------------------- VFIO-platform */

int ofl_platform_dev_by_of_node(const char *dt_path, char *name, size_t len)
{
	char dir[PATH_MAX_OFL];

	if (ofl_path(dir, sizeof(dir), "%s/bus/platform/devices", ofl_platform_roots()->sysfs) < 0)
		return -ENAMETOOLONG;
	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	int r = -ENOENT;
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[PATH_MAX_OFL], path[256];
		if (e->d_name[0] == '.' ||
		    ofl_path(link, sizeof(link), "%s/%s/of_node", dir, e->d_name) < 0 ||
		    ofl_of_node_path(link, path, sizeof(path)) < 0 || strcmp(path, dt_path) != 0)
			continue;
		ofl_strlcpy(name, e->d_name, len);
		r = 0;
		break;
	}
	closedir(d);
	return r;
}

/*
 * A VFIO group can be open only once, so every region of one device shares
 * one session (container, group, device fds), reference counted per mapping.
 */
struct vfio_session {
	char dev[64];
	int container, group, device, refs;
};
static struct vfio_session vfio_sessions[8];
static pthread_mutex_t vfio_mu = PTHREAD_MUTEX_INITIALIZER;

static void vfio_session_close(struct vfio_session *s)
{
	close(s->device);
	close(s->group);
	close(s->container);
	memset(s, 0, sizeof(*s));
}

/* The session of `devname`, opened on first use. vfio_mu held. */
static struct vfio_session *vfio_session_get(const char *devname, char *why, size_t wl)
{
	const struct ofl_platform_roots *rt = ofl_platform_roots();
	char p[PATH_MAX_OFL], target[PATH_MAX_OFL];
	struct vfio_session *s = NULL;

	for (size_t i = 0; i < OFL_ARRAY_SIZE(vfio_sessions); i++)
		if (vfio_sessions[i].refs && strcmp(vfio_sessions[i].dev, devname) == 0) {
			vfio_sessions[i].refs++;
			return &vfio_sessions[i];
		}
	for (size_t i = 0; i < OFL_ARRAY_SIZE(vfio_sessions) && !s; i++)
		if (!vfio_sessions[i].refs)
			s = &vfio_sessions[i];
	if (!s) {
		snprintf(why, wl, "VFIO: too many devices open");
		return NULL;
	}
	if (ofl_path(p, sizeof(p), "%s/bus/platform/devices/%s/driver", rt->sysfs, devname) < 0)
		return NULL;
	ssize_t n = readlink(p, target, sizeof(target) - 1);
	if (n < 0 || (target[n] = '\0', !strstr(target, "vfio-platform"))) {
		snprintf(why, wl, "VFIO: %s is not bound to vfio-platform", devname);
		return NULL;
	}
	if (ofl_path(p, sizeof(p), "%s/bus/platform/devices/%s/iommu_group", rt->sysfs, devname) < 0)
		return NULL;
	n = readlink(p, target, sizeof(target) - 1);
	if (n < 0) {
		snprintf(why, wl, "VFIO: %s has no iommu_group", devname);
		return NULL;
	}
	target[n] = '\0';
	const char *g = strrchr(target, '/');
	g = g ? g + 1 : target;
	s->container = s->group = s->device = -1;
	struct vfio_group_status st = { .argsz = sizeof(st) };
	if (ofl_path(p, sizeof(p), "%s/vfio/vfio", rt->dev) < 0 ||
	    (s->container = open(p, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, wl, "VFIO: cannot open %s: %s", p, strerror(errno));
		goto fail;
	}
	if (ofl_path(p, sizeof(p), "%s/vfio/%s", rt->dev, g) < 0 ||
	    (s->group = open(p, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, wl, "VFIO: cannot open %s: %s", p, strerror(errno));
		goto fail;
	}
	if (ioctl(s->group, VFIO_GROUP_GET_STATUS, &st) < 0 || !(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		snprintf(why, wl, "VFIO: group %s is not viable (bind every device of the group to vfio)", g);
		goto fail;
	}
	if (ioctl(s->group, VFIO_GROUP_SET_CONTAINER, &s->container) < 0 ||
	    (ioctl(s->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) < 0 &&
	     ioctl(s->container, VFIO_SET_IOMMU, VFIO_NOIOMMU_IOMMU) < 0)) {
		snprintf(why, wl, "VFIO: cannot attach group %s to a container: %s", g, strerror(errno));
		goto fail;
	}
	s->device = ioctl(s->group, VFIO_GROUP_GET_DEVICE_FD, devname);
	if (s->device < 0) {
		snprintf(why, wl, "VFIO: cannot get the device fd of %s: %s", devname, strerror(errno));
		goto fail;
	}
	ofl_strlcpy(s->dev, devname, sizeof(s->dev));
	s->refs = 1;
	return s;
fail:
	if (s->device >= 0)
		close(s->device);
	if (s->group >= 0)
		close(s->group);
	if (s->container >= 0)
		close(s->container);
	memset(s, 0, sizeof(*s));
	return NULL;
}

int ofl_vfio_map(const char *devname, int index, uint64_t phys, uint64_t size,
		 struct ofl_mmio *out, char *why, size_t wl)
{
	struct vfio_region_info ri = { .argsz = sizeof(ri), .index = (uint32_t)index };

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	pthread_mutex_lock(&vfio_mu);
	struct vfio_session *s = vfio_session_get(devname, why, wl);
	if (!s) {
		pthread_mutex_unlock(&vfio_mu);
		return -ENODEV;
	}
	void *m = MAP_FAILED;
	if (ioctl(s->device, VFIO_DEVICE_GET_REGION_INFO, &ri) < 0)
		snprintf(why, wl, "VFIO: no region %d on %s: %s", index, devname, strerror(errno));
	else if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP) || ri.size < size)
		snprintf(why, wl, "VFIO: region %d of %s is not mappable or smaller than 0x%" PRIx64,
			 index, devname, size);
	else if ((m = mmap(NULL, (size_t)ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, s->device,
			   (off_t)ri.offset)) == MAP_FAILED)
		snprintf(why, wl, "VFIO: cannot map region %d of %s: %s", index, devname, strerror(errno));
	if (m == MAP_FAILED) {
		if (--s->refs == 0)
			vfio_session_close(s);
		pthread_mutex_unlock(&vfio_mu);
		return -ENODEV;
	}
	pthread_mutex_unlock(&vfio_mu);
	out->map = m;
	out->map_len = (size_t)ri.size;
	out->vfio = s;
	out->base = m;
	out->phys = phys;
	out->size = size;
	out->kind = OFL_MMIO_VFIO;
	return 0;
}

static void vfio_put(void *session)
{
	struct vfio_session *s = session;

	pthread_mutex_lock(&vfio_mu);
	if (--s->refs == 0)
		vfio_session_close(s);
	pthread_mutex_unlock(&vfio_mu);
}
