/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel interfaces that changed between Linux 6.1, which the
 * project is tested on, and the kernels a user may build it for. Kbuild
 * probes the kernel's headers and defines ORDSCHED_HAVE_* accordingly, so
 * no code tests version numbers.
 */
#ifndef _ORDSCHED_COMPAT_H
#define _ORDSCHED_COMPAT_H

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

#endif /* _ORDSCHED_COMPAT_H */
