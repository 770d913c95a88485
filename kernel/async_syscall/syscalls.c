// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() system call entry point.
 */

#include <linux/syscalls.h>
#include <uapi/linux/async_syscall.h>

SYSCALL_DEFINE4(async_submit, struct async_syscall __user *, entries,
		unsigned int, nr_entries, size_t, entry_size,
		unsigned int, flags)
{
	if (flags)
		return -EINVAL;
	return -EOPNOTSUPP;
}
