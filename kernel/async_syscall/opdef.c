// SPDX-License-Identifier: GPL-2.0
/*
 * The operations async_submit() runs: the whitelisted system calls, by
 * number, and the asynchronous-only operations from ASYNC_OP_BASE.
 *
 * Everything else is refused, in classes:
 * - calls that do not return: exit, exit_group, execve, execveat,
 *   rt_sigreturn;
 * - calls that create tasks: fork, vfork, clone, clone3;
 * - calls that act on per-thread state, which would change the worker
 *   instead of the caller: signal masks, sigaltstack, set_tid_address,
 *   set_robust_list, rseq, unshare, setns, the setuid family, prctl,
 *   arch_prctl; gettid would return the worker's id;
 * - async_submit() itself;
 * - the rest, until someone shows that it is safe and useful here.
 */

#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#include <asm/unistd.h>

#include "async_syscall.h"

#define ASYNC_SYSCALL(call, n)	[__NR_##call] = { .name = #call, .nargs = n }

static const struct async_op_def async_syscall_defs[NR_syscalls] = {
	/* Data */
	ASYNC_SYSCALL(read, 3),
	ASYNC_SYSCALL(write, 3),
	ASYNC_SYSCALL(pread64, 4),
	ASYNC_SYSCALL(pwrite64, 4),
	ASYNC_SYSCALL(readv, 3),
	ASYNC_SYSCALL(writev, 3),
	ASYNC_SYSCALL(preadv, 5),
	ASYNC_SYSCALL(pwritev, 5),
	ASYNC_SYSCALL(preadv2, 6),
	ASYNC_SYSCALL(pwritev2, 6),
	/* Files and names */
	ASYNC_SYSCALL(openat, 4),
	ASYNC_SYSCALL(openat2, 4),
	ASYNC_SYSCALL(close, 1),
	ASYNC_SYSCALL(renameat, 4),
	ASYNC_SYSCALL(renameat2, 5),
	ASYNC_SYSCALL(unlinkat, 3),
	ASYNC_SYSCALL(mkdirat, 3),
	/* Durability */
	ASYNC_SYSCALL(fsync, 1),
	ASYNC_SYSCALL(fdatasync, 1),
	ASYNC_SYSCALL(sync_file_range, 4),
	/* Metadata and position */
	ASYNC_SYSCALL(statx, 5),
	ASYNC_SYSCALL(newfstatat, 4),
	ASYNC_SYSCALL(fstat, 2),
	ASYNC_SYSCALL(lseek, 3),
	ASYNC_SYSCALL(getdents64, 3),
	/* Page cache and space */
	ASYNC_SYSCALL(readahead, 3),
	ASYNC_SYSCALL(fadvise64, 4),
	ASYNC_SYSCALL(fallocate, 4),
	ASYNC_SYSCALL(ftruncate, 2),
	/* Copies between descriptors */
	ASYNC_SYSCALL(copy_file_range, 6),
	ASYNC_SYSCALL(sendfile, 4),
	ASYNC_SYSCALL(splice, 6),
	/* Waiting */
	ASYNC_SYSCALL(poll, 3),
	ASYNC_SYSCALL(ppoll, 5),
	ASYNC_SYSCALL(nanosleep, 2),
	ASYNC_SYSCALL(clock_nanosleep, 4),
	/* Sockets */
	ASYNC_SYSCALL(accept4, 4),
	ASYNC_SYSCALL(connect, 3),
	ASYNC_SYSCALL(sendto, 6),
	ASYNC_SYSCALL(recvfrom, 6),
	ASYNC_SYSCALL(sendmsg, 3),
	ASYNC_SYSCALL(recvmsg, 3),
};

/*
 * No system call syncs a byte range for data integrity: sync_file_range()
 * does not flush the disk cache nor commit metadata.
 */
static long async_fsync_range(const u64 *args)
{
	unsigned int fd = args[0];
	loff_t start = args[1];
	loff_t nbytes = args[2];
	u64 flags = args[3];
	loff_t end = LLONG_MAX;

	if (flags & ~ASYNC_FSYNC_DATASYNC)
		return -EINVAL;
	if (start < 0 || nbytes < 0)
		return -EINVAL;
	if (nbytes && check_add_overflow(start, nbytes - 1, &end))
		return -EINVAL;

	CLASS(fd, f)(fd);
	if (fd_empty(f))
		return -EBADF;
	return vfs_fsync_range(fd_file(f), start, end,
			       flags & ASYNC_FSYNC_DATASYNC);
}

static const struct async_op_def async_op_defs[] = {
	[ASYNC_OP_FSYNC_RANGE - ASYNC_OP_BASE] = {
		.name	= "fsync_range",
		.nargs	= 4,
		.issue	= async_fsync_range,
	},
};

/**
 * async_op_lookup() - find the definition of an entry's operation
 * @nr: System call number or ASYNC_OP_* number.
 *
 * Return: The definition, ERR_PTR(-EOPNOTSUPP) for a system call that is
 * not whitelisted, or ERR_PTR(-EINVAL) for a number that is neither a
 * system call nor an operation.
 */
const struct async_op_def *async_op_lookup(u32 nr)
{
	const struct async_op_def *def;

	if (nr < NR_syscalls) {
		def = &async_syscall_defs[array_index_nospec(nr, NR_syscalls)];
		return def->name ? def : ERR_PTR(-EOPNOTSUPP);
	}
	nr -= ASYNC_OP_BASE;
	if (nr < ARRAY_SIZE(async_op_defs)) {
		def = &async_op_defs[array_index_nospec(nr, ARRAY_SIZE(async_op_defs))];
		if (def->name)
			return def;
	}
	return ERR_PTR(-EINVAL);
}

static int __init async_op_defs_check(void)
{
	unsigned int i;

	BUILD_BUG_ON(sizeof(struct async_syscall) != ASYNC_SYSCALL_SIZE_VER0);
	BUILD_BUG_ON(offsetof(struct async_syscall, args) != 8);
	BUILD_BUG_ON(offsetof(struct async_syscall, arg_refs) != 56);
	BUILD_BUG_ON(offsetof(struct async_syscall, done) != 60);
	BUILD_BUG_ON(offsetof(struct async_syscall, result) != 64);
	BUILD_BUG_ON(ASYNC_OP_BASE < NR_syscalls);

	for (i = 0; i < ARRAY_SIZE(async_syscall_defs); i++) {
		const struct async_op_def *def = &async_syscall_defs[i];

		WARN_ON_ONCE(def->name && (def->issue || !def->nargs ||
					   def->nargs > ASYNC_NR_ARGS));
	}
	for (i = 0; i < ARRAY_SIZE(async_op_defs); i++) {
		const struct async_op_def *def = &async_op_defs[i];

		WARN_ON_ONCE(!def->name || !def->issue ||
			     def->nargs > ASYNC_NR_ARGS);
	}
	return 0;
}
core_initcall(async_op_defs_check);
