/* SPDX-License-Identifier: MIT */
/*
 * A fake sysfs tree for the spidev backend's lookups (OFFLOAD_SYSFS_ROOT):
 * class/spidev/spidevB.C/device -> the spi device, of_node links into
 * firmware/devicetree/base, the controller's platform device with its
 * driver link, and module/spidev/parameters/bufsiz.
 */
#ifndef TESTS_SPI_FAKESYS_H
#define TESTS_SPI_FAKESYS_H

/* Create an empty tree in a new temporary directory and point OFFLOAD_SYSFS_ROOT at it. */
char *fakesys_new(void);
/* Write module/spidev/parameters/bufsiz. */
void fakesys_bufsiz(const char *root, const char *content);
/*
 * Add spidevB.C for chip select C of controller `ctrl` (DT path). `child`
 * is the spi device's DT node (NULL: none), `driver` the controller's
 * platform driver name (NULL: none).
 */
void fakesys_add_spidev(const char *root, int bus, int cs, const char *ctrl, const char *child,
			const char *driver);
/* Remove the tree and free root. */
void fakesys_free(char *root);

#endif
