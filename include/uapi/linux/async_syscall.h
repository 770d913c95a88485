/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * async_submit(): run whitelisted system calls on worker threads of the
 * calling process, with one futex completion word per entry.
 */

#ifndef _UAPI_LINUX_ASYNC_SYSCALL_H
#define _UAPI_LINUX_ASYNC_SYSCALL_H

#include <linux/types.h>

/**
 * struct async_syscall - one system call to run asynchronously
 *
 * @nr: System call number, in the native x86_64 numbering.
 * @flags: Per-entry flags; none are defined yet, must be 0.
 * @args: The six system call arguments.
 */
struct async_syscall {
	__u32 nr;
	__u32 flags;
	__u64 args[6];
};

#endif /* _UAPI_LINUX_ASYNC_SYSCALL_H */
