/* SPDX-License-Identifier: GPL-2.0 */
/* ordschedctl: one file per subcommand; main.c dispatches from a table. */
#ifndef ORDSCHEDCTL_H
#define ORDSCHEDCTL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libordsched.h"

extern const char *prog;

/* Print "ordschedctl: what: strerror(-err)" to stderr; returns 1. */
int fail(const char *what, int err);

/* Print the counters of a handle's domain. */
void print_stats(const struct ordsched_stats *st);

int cmd_status(int argc, char **argv);	/* status.c */
int cmd_stats(int argc, char **argv);	/* stats.c */
int cmd_selftest(int argc, char **argv);	/* selftest.c */
int cmd_demo(int argc, char **argv);	/* demo.c */

#endif /* ORDSCHEDCTL_H */
