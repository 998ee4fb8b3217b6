/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordsched: in-kernel API. Include this header; it includes every part:
 *
 *	<ordsched/seq.h>	the ticket sequencer
 *	<ordsched/pipeline.h>	ordered execution on a workqueue
 *	<ordsched/stream.h>	serial streams over a shared workqueue
 *	<ordsched/keyed.h>	key-ordered execution with rollups
 *	<ordsched/spread.h>	the spreader: interleaved groups of jobs
 *	<ordsched/delay.h>	the hrtimer delayed scheduler
 *
 * Every symbol declared there is exported GPL-only in the symbol namespace
 * ORDSCHED; a user module says ORDSCHED_IMPORT_NS() once.
 */
#ifndef _ORDSCHED_H
#define _ORDSCHED_H

#include <linux/module.h>

/*
 * The exports are EXPORT_SYMBOL_GPL() in the namespace ORDSCHED, set for
 * the whole module by DEFAULT_SYMBOL_NAMESPACE in Kbuild (an identifier or
 * a string, as the kernel's export.h wants it). A module that uses
 * them says ORDSCHED_IMPORT_NS() once: the string form below means the
 * same on every version.
 */
#define ORDSCHED_IMPORT_NS()	MODULE_INFO(import_ns, "ORDSCHED")

#include <ordsched/seq.h>
#include <ordsched/pipeline.h>
#include <ordsched/stream.h>
#include <ordsched/keyed.h>
#include <ordsched/spread.h>
#include <ordsched/delay.h>

#endif /* _ORDSCHED_H */
