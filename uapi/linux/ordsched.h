/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordsched: userspace interface of /dev/ordsched.
 *
 * Every open of /dev/ordsched creates a private ordering domain. The ioctl
 * commands below use the type ORDSCHED_IOC_MAGIC, which is not taken in
 * Documentation/userspace-api/ioctl/ioctl-number.rst as of Linux 6.1.
 */
#ifndef _UAPI_LINUX_ORDSCHED_H
#define _UAPI_LINUX_ORDSCHED_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define ORDSCHED_DEVICE_NAME	"ordsched"
#define ORDSCHED_IOC_MAGIC	0xB9

#endif /* _UAPI_LINUX_ORDSCHED_H */
