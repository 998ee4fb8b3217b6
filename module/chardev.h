/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ORDSCHED_CHARDEV_H
#define _ORDSCHED_CHARDEV_H

int ordsched_chardev_init(void);
void ordsched_chardev_exit(void);

#endif /* _ORDSCHED_CHARDEV_H */
