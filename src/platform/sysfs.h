/* SPDX-License-Identifier: MIT */
/* Small helpers for sysfs-style files, shared by src/platform and src/offloadctl-free code. */
#ifndef OFL_PLATFORM_SYSFS_H
#define OFL_PLATFORM_SYSFS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define PATH_MAX_OFL 512

/* Read a whole small file, trailing newline and blanks removed. Bytes read or -errno. */
int ofl_read_text(const char *path, char *buf, size_t len);
/* Read a number (decimal, 0x hex, or octal) from a file. 0 or -errno / -EINVAL. */
int ofl_read_u64(const char *path, uint64_t *v);
/* Write text to a file in one write(). 0 or -errno. */
int ofl_write_text(const char *path, const char *text);
/* snprintf into buf; -ENAMETOOLONG if it does not fit. */
int ofl_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* DT path an of_node symlink points at (after ".../devicetree/base"). */
int ofl_of_node_path(const char *link, char *out, size_t len);

#endif /* OFL_PLATFORM_SYSFS_H */
