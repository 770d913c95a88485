// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() system call: argument checks, then submit.c does the work.
 */

#include <linux/bitops.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>

#include "async_syscall.h"

#define ASYNC_SUBMIT_FLAGS \
	(ASYNC_SUBMIT_WAIT | ASYNC_SUBMIT_PROBE | ASYNC_SUBMIT_ABI_VERSION | \
	 ASYNC_SUBMIT_CANCEL | ASYNC_SUBMIT_WAKE_MARKED)
/* Flags that take an array of entries, at most one of them. */
#define ASYNC_SUBMIT_MODES \
	(ASYNC_SUBMIT_WAIT | ASYNC_SUBMIT_PROBE | ASYNC_SUBMIT_CANCEL)

/**
 * sys_async_submit() - run system calls on worker threads of this process
 * @entries: Array of entries, 8-byte aligned.
 * @nr_entries: Number of entries, 1 to %ASYNC_SUBMIT_MAX_ENTRIES.
 * @entry_size: Size of one entry, at least %ASYNC_SYSCALL_SIZE_VER0.
 * @flags: %ASYNC_SUBMIT_WAIT, %ASYNC_SUBMIT_PROBE, %ASYNC_SUBMIT_CANCEL or
 *	%ASYNC_SUBMIT_ABI_VERSION; %ASYNC_SUBMIT_WAKE_MARKED when submitting.
 *
 * Return: @nr_entries once all are queued (and, with %ASYNC_SUBMIT_WAIT,
 * completed), 0 for a probe, the number of entries cancelled with
 * %ASYNC_SUBMIT_CANCEL, the ABI version with %ASYNC_SUBMIT_ABI_VERSION, or
 * a negative errno.
 */
SYSCALL_DEFINE4(async_submit, struct async_syscall __user *, entries,
		unsigned int, nr_entries, size_t, entry_size,
		unsigned int, flags)
{
	if (!async_syscall_allowed())
		return -EPERM;
	if (flags & ~ASYNC_SUBMIT_FLAGS)
		return -EINVAL;
	if (flags & ASYNC_SUBMIT_ABI_VERSION) {
		if (flags != ASYNC_SUBMIT_ABI_VERSION || entries ||
		    nr_entries || entry_size)
			return -EINVAL;
		return ASYNC_SUBMIT_ABI;
	}
	if (hweight32(flags & ASYNC_SUBMIT_MODES) > 1)
		return -EINVAL;
	/* Only a submission completes entries. */
	if ((flags & ASYNC_SUBMIT_WAKE_MARKED) &&
	    (flags & (ASYNC_SUBMIT_PROBE | ASYNC_SUBMIT_CANCEL)))
		return -EINVAL;
	if (!nr_entries || nr_entries > ASYNC_SUBMIT_MAX_ENTRIES)
		return -EINVAL;
	if (entry_size < ASYNC_SYSCALL_SIZE_VER0 || !IS_ALIGNED(entry_size, 8))
		return -EINVAL;
	if (entry_size > PAGE_SIZE)
		return -E2BIG;
	/* The done words must be naturally aligned futexes. */
	if (!IS_ALIGNED((unsigned long)entries, 8))
		return -EINVAL;
	if (!access_ok(entries, (size_t)nr_entries * entry_size))
		return -EFAULT;

	if (flags & ASYNC_SUBMIT_PROBE)
		return async_probe(entries, nr_entries, entry_size);
	if (flags & ASYNC_SUBMIT_CANCEL)
		return async_cancel(entries, nr_entries, entry_size);
	return async_submit(entries, nr_entries, entry_size, flags);
}
