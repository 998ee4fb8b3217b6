/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel interfaces that changed between Linux 6.1, which the
 * project is tested on, and the kernels a user may build it for. Kbuild
 * probes the kernel's headers and defines ORDSCHED_HAVE_* accordingly, so
 * no code tests version numbers.
 */
#ifndef _ORDSCHED_COMPAT_H
#define _ORDSCHED_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>

/* Linux 6.3 made vma->vm_flags read-only outside vm_flags_*(). */
static inline void ordsched_vm_flags_mod(struct vm_area_struct *vma,
					 vm_flags_t set, vm_flags_t clear)
{
#ifdef ORDSCHED_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/* Linux 6.13 added hrtimer_setup(); 6.15 removed hrtimer_init(). */
static inline void
ordsched_hrtimer_setup(struct hrtimer *timer,
		       enum hrtimer_restart (*fn)(struct hrtimer *),
		       clockid_t clock, enum hrtimer_mode mode)
{
#ifdef ORDSCHED_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* _ORDSCHED_COMPAT_H */
