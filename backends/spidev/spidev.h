/* SPDX-License-Identifier: MIT */
/* spidev backend internals shared by its files. */
#ifndef OFL_BACKEND_SPIDEV_H
#define OFL_BACKEND_SPIDEV_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/driver.h"

/* What sysfs says about one /dev/spidevB.C. */
struct ofl_spidev_node {
	char name[32];          /* "spidevB.C" */
	int bus, cs;
	char child[256];        /* DT path of the spi device's of_node, "" if none */
	char ctrl[256];         /* DT path of the controller's of_node, "" if none */
	char driver[64];        /* the controller's driver ("fsl-dspi"), "" if unknown */
};

/* The sysfs root: $OFFLOAD_SYSFS_ROOT, else "/sys". */
const char *ofl_spidev_sysfs_root(void);

/* Facts about spidevB.C (name without /dev/). -ENOENT if sysfs has no such entry. */
int ofl_spidev_lookup(const char *root, const char *name, struct ofl_spidev_node *out);

/*
 * The spidev bound to chip select `cs` of the controller at DT path `ctrl`
 * (or whose node is `child` when child is not ""). 0 and *out filled, or
 * -ENODEV with a sentence in why.
 */
int ofl_spidev_find(const char *root, const char *ctrl, int cs, const char *child,
		    struct ofl_spidev_node *out, char *why, size_t why_len);

/* Names of every spidev of controller `ctrl`, comma-separated; returns how many. */
int ofl_spidev_list_for(const char *root, const char *ctrl, char *buf, size_t len);

/* spidev's bufsiz module parameter (4096 when unreadable; *note says which). */
uint32_t ofl_spidev_bufsiz(const char *root, char *note, size_t note_len);

#endif /* OFL_BACKEND_SPIDEV_H */
