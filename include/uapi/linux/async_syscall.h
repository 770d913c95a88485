/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * async_submit(): run whitelisted system calls on worker threads of the
 * calling process, with one futex completion word per entry.
 *
 * See Documentation/userspace-api/async_syscall.rst.
 */

#ifndef _UAPI_LINUX_ASYNC_SYSCALL_H
#define _UAPI_LINUX_ASYNC_SYSCALL_H

#include <linux/types.h>

/**
 * struct async_syscall - one system call to run asynchronously
 *
 * Entries are passed as an array; @entry_size of async_submit() gives the
 * size of one element, so that the structure can grow.  The array must be
 * 8-byte aligned.
 *
 * @nr: System call number in the native numbering of the architecture
 *	(x86_64 or arm64), or an asynchronous-only operation %ASYNC_OP_*.
 * @flags: Per-entry flags: %ASYNC_SYSCALL_LINK, %ASYNC_SYSCALL_RUN_ANYWAY,
 *	%ASYNC_SYSCALL_FORCE_ASYNC.
 * @args: The six arguments of the call.  When bit n of @arg_refs is set,
 *	@args[n] holds the index of an earlier entry of the same chain, and
 *	that entry's result is passed instead.
 * @arg_refs: Bitmap of the arguments, bits 0 to 5, taken from the results
 *	of earlier entries.
 * @done: Futex completion word.  async_submit() sets it to
 *	%ASYNC_SYSCALL_PENDING (with %ASYNC_SUBMIT_WAKE_MARKED, only if the
 *	entry leaves the calling thread); the kernel writes @result, then stores
 *	%ASYNC_SYSCALL_DONE with release ordering and wakes the private futex
 *	(with %ASYNC_SUBMIT_WAKE_MARKED, only if a waiter stored
 *	%ASYNC_SYSCALL_WAITING).
 * @result: Return value of the call, or a negative errno.  Written by
 *	the kernel.
 */
struct async_syscall {
	__u32 nr;
	__u32 flags;
	__u64 args[6];
	__u32 arg_refs;
	__u32 done;
	__s64 result;
};

#define ASYNC_SYSCALL_SIZE_VER0		72	/* sizeof first published struct */

/* Values of struct async_syscall.done */
#define ASYNC_SYSCALL_PENDING		0
#define ASYNC_SYSCALL_DONE		1
/* Stored by a waiter over PENDING, with a compare-and-swap, before it sleeps. */
#define ASYNC_SYSCALL_WAITING		2

/* Per-entry flags: struct async_syscall.flags */
/* The next entry belongs to this entry's chain and runs after it. */
#define ASYNC_SYSCALL_LINK		(1U << 0)
/* Run even if an earlier entry of the chain failed or was cancelled. */
#define ASYNC_SYSCALL_RUN_ANYWAY	(1U << 1)
/*
 * Always run on a worker thread, even when the entry could complete in
 * the calling thread without blocking.
 */
#define ASYNC_SYSCALL_FORCE_ASYNC	(1U << 2)

/* Flags of async_submit() */
/* Return only once every entry has completed. */
#define ASYNC_SUBMIT_WAIT		(1U << 0)
/* Check the entries and write 0 or -errno to each result; run nothing. */
#define ASYNC_SUBMIT_PROBE		(1U << 1)
/* Return the ABI version; all other arguments must be 0. */
#define ASYNC_SUBMIT_ABI_VERSION	(1U << 2)
/*
 * Cancel the given entries of earlier calls: those not started complete
 * with -ECANCELED; an interruptible wait in a running one ends.
 */
#define ASYNC_SUBMIT_CANCEL		(1U << 3)
/*
 * Wake a done word's futex only when it held ASYNC_SYSCALL_WAITING: every
 * waiter marks the word before it sleeps.  ABI version 2.
 */
#define ASYNC_SUBMIT_WAKE_MARKED	(1U << 4)

/* Most entries one call takes. */
#define ASYNC_SUBMIT_MAX_ENTRIES	4096

/*
 * Asynchronous-only operations use numbers from ASYNC_OP_BASE, far above
 * the system call numbers, up to ASYNC_OP_BASE + 0xffff.
 */
#define ASYNC_OP_BASE			0x10000
/*
 * fsync_range(fd, offset, nbytes, flags): data-integrity sync of the bytes
 * [offset, offset + nbytes) of fd, up to end of file when nbytes is 0.
 */
#define ASYNC_OP_FSYNC_RANGE		(ASYNC_OP_BASE + 0)
/*
 * Flag of ASYNC_OP_FSYNC_RANGE: like fdatasync(), skip the metadata not
 * needed to read the data back.
 */
#define ASYNC_FSYNC_DATASYNC		(1U << 0)
/*
 * link_timeout(ts, 0): linked right after an entry, its target, bound the
 * time the target takes by the relative struct __kernel_timespec at ts,
 * counted from when the chain reaches the target.  If the time runs out
 * first, the target is cancelled as by ASYNC_SUBMIT_CANCEL and this entry
 * completes with -ETIME; else it completes with -ECANCELED.  The entries
 * after it go on as the target's result says.
 */
#define ASYNC_OP_LINK_TIMEOUT		(ASYNC_OP_BASE + 1)

#endif /* _UAPI_LINUX_ASYNC_SYSCALL_H */
