/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordsched: in-kernel API. Include this header; it includes every part:
 *
 *	<ordsched/seq.h>	the ticket sequencer
 *	<ordsched/pipeline.h>	ordered execution on a workqueue
 *	<ordsched/stream.h>	serial streams over a shared workqueue
 *
 * Every symbol declared there is exported GPL-only in the symbol namespace
 * ORDSCHED; a user module says ORDSCHED_IMPORT_NS() once.
 */
#ifndef _ORDSCHED_H
#define _ORDSCHED_H

#include <linux/module.h>
#include <linux/version.h>

/*
 * Linux 6.13 turned the namespace argument of EXPORT_SYMBOL_NS_GPL() and
 * MODULE_IMPORT_NS() from a bare identifier into a string literal.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ORDSCHED_EXPORT(sym)	EXPORT_SYMBOL_NS_GPL(sym, "ORDSCHED")
#define ORDSCHED_IMPORT_NS()	MODULE_IMPORT_NS("ORDSCHED")
#else
#define ORDSCHED_EXPORT(sym)	EXPORT_SYMBOL_NS_GPL(sym, ORDSCHED)
#define ORDSCHED_IMPORT_NS()	MODULE_IMPORT_NS(ORDSCHED)
#endif

#include <ordsched/seq.h>
#include <ordsched/pipeline.h>
#include <ordsched/stream.h>

#endif /* _ORDSCHED_H */
