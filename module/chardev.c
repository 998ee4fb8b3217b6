// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ordsched: the misc character device through which userspace takes
 * part in ticket ordering. This file only turns file operations into
 * calls on the ordering domain (domain.c): it copies arguments in, checks
 * every field, and copies results out.
 *
 * The device is world read-write (mode 0666): every open creates a private
 * ordering domain whose memory is charged to the opener's memory cgroup and
 * capped per handle, and nothing global can be observed or changed through
 * it, so there is nothing to guard with file permissions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/build_bug.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/personality.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>
#include <uapi/linux/ordsched.h>
#include <uapi/linux/ordsched_ring.h>

#include "compat.h"
#include "domain.h"
#include "internal.h"

/* The layout is ABI: same on every architecture, no implicit padding. */
static_assert(sizeof(struct ordsched_api) == 80);
static_assert(sizeof(struct ordsched_take) == 16);
static_assert(sizeof(struct ordsched_wait) == 24);
static_assert(sizeof(struct ordsched_range) == 16);
static_assert(sizeof(struct ordsched_complete_wait) == 32);
static_assert(sizeof(struct ordsched_new_handle) == 16);
static_assert(sizeof(struct ordsched_stats) == 152);
static_assert(sizeof(struct ordsched_status) == 32);
static_assert(ORDSCHED_STATUS_HEAD_OFFSET + sizeof(u64) <= PAGE_SIZE);

#define ORDSCHED_IOCTLS	(BIT_ULL(_IOC_NR(ORDSCHED_IOC_API)) |		\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_TAKE)) |		\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_WAIT)) |		\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_COMPLETE)) |	\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_TRASH)) |		\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_COMPLETE_WAIT)) |	\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_NEW_HANDLE)) |	\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_STATS)) |		\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_RING_SETUP)) |	\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_RING_WAIT)) |	\
			 BIT_ULL(_IOC_NR(ORDSCHED_IOC_RING_WAKE)))

static const struct file_operations ordsched_fops;

static bool ordsched_zero(const u64 *words, unsigned int n)
{
	while (n--)
		if (words[n])
			return false;
	return true;
}

static int ordsched_ioc_api(void __user *uarg)
{
	struct ordsched_api api;

	if (copy_from_user(&api, uarg, sizeof(api)))
		return -EFAULT;
	if (api.flags || !ordsched_zero(api.reserved, ARRAY_SIZE(api.reserved)))
		return -EINVAL;
	if (api.version != ORDSCHED_API_VERSION)
		return -EINVAL;

	memset(&api, 0, sizeof(api));
	api.version = ORDSCHED_API_VERSION;
	api.features = ORDSCHED_DOMAIN_FEATURES;
	api.ioctls = ORDSCHED_IOCTLS;
	api.status_size = PAGE_SIZE;
	api.status_tail_offset = ORDSCHED_STATUS_TAIL_OFFSET;
	api.status_head_offset = ORDSCHED_STATUS_HEAD_OFFSET;
	api.window = ORDSCHED_DOMAIN_WINDOW;
	api.max_batch = ORDSCHED_DOMAIN_MAX_BATCH;
	api.max_held = ORDSCHED_DOMAIN_MAX_HELD;
	return copy_to_user(uarg, &api, sizeof(api)) ? -EFAULT : 0;
}

static bool ordsched_count_ok(u32 count)
{
	return count && count <= ORDSCHED_DOMAIN_MAX_BATCH;
}

static int ordsched_ioc_take(struct ordsched_handle *h, void __user *uarg)
{
	struct ordsched_take take;
	int ret;

	if (copy_from_user(&take, uarg, sizeof(take)))
		return -EFAULT;
	if (take.flags || !ordsched_count_ok(take.count))
		return -EINVAL;
	/*
	 * An answer that cannot be written fails before a ticket is taken:
	 * a ticket the caller never learns would stall the domain.
	 */
	if (copy_to_user(uarg, &take, sizeof(take)))
		return -EFAULT;
	ret = ordsched_domain_take(h, take.count, &take.first);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &take, sizeof(take))) {
		u32 i;

		/*
		 * Unmapped meanwhile: give the tickets up at once, one by
		 * one: a range retire is all or nothing, and another thread
		 * of the handle may have retired one already (EALREADY).
		 */
		for (i = 0; i < take.count; i++)
			ordsched_domain_retire(h, take.first + i, 1,
					       ORDSCHED_RETIRE_TRASH);
		return -EFAULT;
	}
	return 0;
}

/*
 * A deadline is on the caller's CLOCK_MONOTONIC, which in a time
 * namespace runs ahead of (or behind) the host's by the namespace's
 * offset, as clock_nanosleep() and futex deadlines do: the domain compares
 * it with the host's. ORDSCHED_NO_DEADLINE stays itself; a deadline before
 * the host's boot is past, one past 2^64 ns of the host's never comes.
 */
static u64 ordsched_deadline_to_host(u64 deadline)
{
	struct timespec64 off = {};
	s64 ns;

	if (deadline == ORDSCHED_NO_DEADLINE)
		return deadline;
	timens_add_monotonic(&off);
	ns = timespec64_to_ns(&off);
	if (ns >= 0)
		return deadline > (u64)ns ? deadline - ns : 0;
	return deadline < ORDSCHED_NO_DEADLINE + ns ? deadline - ns :
	       ORDSCHED_NO_DEADLINE;
}

static int ordsched_ioc_wait(struct ordsched_handle *h, void __user *uarg)
{
	struct ordsched_wait wait;

	if (copy_from_user(&wait, uarg, sizeof(wait)))
		return -EFAULT;
	if (wait.flags || wait.pad)
		return -EINVAL;
	return ordsched_domain_wait(h, wait.ticket,
				    ordsched_deadline_to_host(wait.deadline_ns));
}

static int ordsched_ioc_retire(struct ordsched_handle *h, void __user *uarg,
			       enum ordsched_retire how)
{
	struct ordsched_range range;

	if (copy_from_user(&range, uarg, sizeof(range)))
		return -EFAULT;
	if (range.flags || !ordsched_count_ok(range.count))
		return -EINVAL;
	/* The last ticket must not wrap around to the first ones. */
	if (range.count - 1 > U64_MAX - range.ticket)
		return -EINVAL;
	return ordsched_domain_retire(h, range.ticket, range.count, how);
}

static int ordsched_ioc_complete_wait(struct ordsched_handle *h,
				      void __user *uarg)
{
	struct ordsched_complete_wait cw;
	int ret;

	if (copy_from_user(&cw, uarg, sizeof(cw)))
		return -EFAULT;
	if (cw.flags || cw.pad)
		return -EINVAL;
	if (cw.ticket != ORDSCHED_NO_TICKET) {
		__u64 __user *uticket =
			&((struct ordsched_complete_wait __user *)uarg)->ticket;

		/* The write-back below must not fail after the completion. */
		if (put_user(cw.ticket, uticket))
			return -EFAULT;
		ret = ordsched_domain_retire(h, cw.ticket, 1,
					     ORDSCHED_RETIRE_COMPLETE);
		if (ret)
			return ret;
		/*
		 * So that a restart after a signal does not complete it
		 * again. Only a racing munmap() can make this fail: the
		 * ticket is completed, and the wait goes on all the same (a
		 * restart would answer EALREADY).
		 */
		(void)put_user(ORDSCHED_NO_TICKET, uticket);
	}
	if (cw.next == ORDSCHED_NO_TICKET)
		return 0;
	return ordsched_domain_wait(h, cw.next,
				    ordsched_deadline_to_host(cw.deadline_ns));
}

static int ordsched_ioc_new_handle(struct file *parent, void __user *uarg)
{
	struct ordsched_handle *h = parent->private_data;
	struct ordsched_new_handle nh;
	struct ordsched_handle *new;
	struct file *file;
	int fd;

	if (copy_from_user(&nh, uarg, sizeof(nh)))
		return -EFAULT;
	if (nh.flags & ~ORDSCHED_HANDLE_CLOEXEC || nh.pad || nh.reserved)
		return -EINVAL;
	/*
	 * The descriptor and the file first: a failure (EMFILE, ENFILE,
	 * ENOMEM) must leave the domain as it was, still able to become a
	 * ring domain.
	 */
	fd = get_unused_fd_flags(nh.flags & ORDSCHED_HANDLE_CLOEXEC ?
				 O_CLOEXEC : 0);
	if (fd < 0)
		return fd;
	new = ordsched_handle_create(h);
	if (!new) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	/* No more access than the descriptor it was asked of (RING_SETUP). */
	file = anon_inode_getfile("[ordsched]", &ordsched_fops, new,
				  parent->f_flags & O_ACCMODE);
	if (IS_ERR(file)) {
		ordsched_handle_discard(new);
		put_unused_fd(fd);
		return PTR_ERR(file);
	}
	ordsched_handle_publish(new);
	fd_install(fd, file);
	return fd;
}

static int ordsched_ioc_stats(struct ordsched_handle *h, void __user *uarg)
{
	struct ordsched_stats st;
	u32 flags;

	if (get_user(flags, (u32 __user *)uarg))
		return -EFAULT;
	if (flags)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	ordsched_domain_get_stats(h, &st);
	return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
}

static int ordsched_ioc_ring_setup(struct file *file, void __user *uarg)
{
	struct ordsched_handle *h = file->private_data;
	struct ordsched_ring_setup setup;
	int ret;

	if (copy_from_user(&setup, uarg, sizeof(setup)))
		return -EFAULT;
	if (setup.flags || memchr_inv(setup.reserved, 0, sizeof(setup.reserved)))
		return -EINVAL;
	/*
	 * Its page is mapped MAP_SHARED, readable and writable: not through
	 * this one, where mmap() would fail after the domain turned.
	 */
	if ((file->f_mode & (FMODE_READ | FMODE_WRITE)) !=
	    (FMODE_READ | FMODE_WRITE))
		return -EBADF;
	/* Fail before the domain turns into a ring domain, not after. */
	if (copy_to_user(uarg, &setup, sizeof(setup)))
		return -EFAULT;
	ret = ordsched_ring_dom_setup(h, &setup);
	if (ret)
		return ret;
	return copy_to_user(uarg, &setup, sizeof(setup)) ? -EFAULT : 0;
}

static int ordsched_ioc_ring_wait(struct ordsched_handle *h, void __user *uarg)
{
	struct ordsched_ring_wait wait;

	if (copy_from_user(&wait, uarg, sizeof(wait)))
		return -EFAULT;
	if (wait.flags || wait.pad)
		return -EINVAL;
	if (!ordsched_domain_is_ring(h->dom))
		return -EINVAL;
	return ordsched_ring_dom_sleep(h, wait.ticket,
				       ordsched_deadline_to_host(wait.deadline_ns));
}

static int ordsched_ioc_ring_wake(struct ordsched_handle *h, void __user *uarg)
{
	struct ordsched_ring_wake wake;

	if (copy_from_user(&wake, uarg, sizeof(wake)))
		return -EFAULT;
	if (wake.flags || wake.pad)
		return -EINVAL;
	if (!ordsched_domain_is_ring(h->dom))
		return -EINVAL;
	ordsched_ring_dom_wake(h, wake.ticket);
	return 0;
}

static long ordsched_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct ordsched_handle *h = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case ORDSCHED_IOC_API:
		return ordsched_ioc_api(uarg);
	case ORDSCHED_IOC_TAKE:
		return ordsched_ioc_take(h, uarg);
	case ORDSCHED_IOC_WAIT:
		return ordsched_ioc_wait(h, uarg);
	case ORDSCHED_IOC_COMPLETE:
		return ordsched_ioc_retire(h, uarg, ORDSCHED_RETIRE_COMPLETE);
	case ORDSCHED_IOC_TRASH:
		return ordsched_ioc_retire(h, uarg, ORDSCHED_RETIRE_TRASH);
	case ORDSCHED_IOC_COMPLETE_WAIT:
		return ordsched_ioc_complete_wait(h, uarg);
	case ORDSCHED_IOC_NEW_HANDLE:
		return ordsched_ioc_new_handle(file, uarg);
	case ORDSCHED_IOC_STATS:
		return ordsched_ioc_stats(h, uarg);
	case ORDSCHED_IOC_RING_SETUP:
		return ordsched_ioc_ring_setup(file, uarg);
	case ORDSCHED_IOC_RING_WAIT:
		return ordsched_ioc_ring_wait(h, uarg);
	case ORDSCHED_IOC_RING_WAKE:
		return ordsched_ioc_ring_wake(h, uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * The status page belongs to the domain, not to the handle that mapped it.
 * A mapping holds the page (vm_private_data, one reference per VMA), never
 * the handle: mmap() trades the handle's file for an empty one, so that a
 * handle whose last descriptor is closed, or whose process dies, is
 * released (its tickets trashed) even while a mapping of it lives on, in
 * a forked child say.
 *
 * The page is mapped at the first access and again after
 * madvise(MADV_DONTNEED) dropped it: a fault handler, not a page inserted
 * once, or the next read after such a madvise() would get SIGBUS.
 */
static vm_fault_t ordsched_status_fault(struct vm_fault *vmf)
{
	struct page *page = vmf->vma->vm_private_data;

	get_page(page);
	vmf->page = page;
	return 0;
}

static void ordsched_status_open(struct vm_area_struct *vma)
{
	get_page(vma->vm_private_data);
}

static void ordsched_status_close(struct vm_area_struct *vma)
{
	put_page(vma->vm_private_data);
}

static const struct vm_operations_struct ordsched_vm_ops = {
	.open = ordsched_status_open,
	.close = ordsched_status_close,
	.fault = ordsched_status_fault,
};

/* What a mapping holds instead of the handle; it keeps the module loaded. */
static const struct file_operations ordsched_status_fops = {
	.owner = THIS_MODULE,
};

/*
 * The status page: one page at offset 0, read-only, never writable. The
 * ring page of a ring domain, the same page: one page at
 * ORDSCHED_RING_PGOFF, shared, read-write (ring.c: the kernel never
 * trusts it).
 */
static int ordsched_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ordsched_handle *h = file->private_data;
	bool ring = vma->vm_pgoff == ORDSCHED_RING_PGOFF;
	struct file *status;

	if ((vma->vm_pgoff && !ring) ||
	    vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (ring && (!ordsched_domain_is_ring(h->dom) ||
		     !(vma->vm_flags & VM_SHARED)))
		return -EINVAL;
	/*
	 * Never executable: a page that a ring's handles write would be
	 * code written through one mapping and run through another. A
	 * READ_IMPLIES_EXEC personality adds PROT_EXEC to every PROT_READ:
	 * that one is dropped, not refused. Without PROT_READ, PROT_EXEC
	 * was asked for.
	 */
	if ((vma->vm_flags & VM_EXEC) &&
	    !((current->personality & READ_IMPLIES_EXEC) &&
	      (vma->vm_flags & VM_READ)))
		return -EPERM;
	if (!ring && (vma->vm_flags & VM_WRITE))
		return -EPERM;
	status = anon_inode_getfile(ring ? "[ordsched-ring]" :
				    "[ordsched-status]", &ordsched_status_fops,
				    NULL, ring ? O_RDWR : O_RDONLY);
	if (IS_ERR(status))
		return PTR_ERR(status);
	ordsched_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP,
			      VM_EXEC | VM_MAYEXEC | (ring ? 0 : VM_MAYWRITE));
	if (ring)
		WRITE_ONCE(h->ring_mapped, true);
	vma->vm_private_data = ordsched_domain_status_page(h);
	get_page(vma->vm_private_data);
	vma->vm_ops = &ordsched_vm_ops;
	/* Drops the mapping's reference to the handle's file. */
	vma_set_file(vma, status);
	fput(status);
	return 0;
}

static __poll_t ordsched_poll(struct file *file, poll_table *pt)
{
	struct ordsched_handle *h = file->private_data;

	ordsched_domain_poll_wait(h, file, pt);
	return ordsched_domain_turn(h) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int ordsched_open(struct inode *inode, struct file *file)
{
	int ret = nonseekable_open(inode, file);

	if (ret)
		return ret;
	file->private_data = ordsched_domain_create();
	return file->private_data ? 0 : -ENOMEM;
}

static int ordsched_release(struct inode *inode, struct file *file)
{
	ordsched_handle_release(file->private_data);
	return 0;
}

static const struct file_operations ordsched_fops = {
	.owner		= THIS_MODULE,
	.open		= ordsched_open,
	.release	= ordsched_release,
	.unlocked_ioctl	= ordsched_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= ordsched_mmap,
	.poll		= ordsched_poll,
};

static struct miscdevice ordsched_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= ORDSCHED_DEVICE_NAME,
	.fops	= &ordsched_fops,
	.mode	= 0666,
};

int ordsched_chardev_init(void)
{
	int ret = ordsched_ring_init();

	if (ret)
		return ret;
	ordsched_domain_debugfs_init();
	ret = misc_register(&ordsched_misc);
	if (ret)
		ordsched_ring_exit();
	return ret;
}

void ordsched_chardev_exit(void)
{
	misc_deregister(&ordsched_misc);
	ordsched_ring_exit();
}
