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
#include <linux/sizes.h>
#include <linux/stddef.h>
#include <asm/unistd.h>

#include "async_syscall.h"

const struct async_op_def async_syscall_defs[NR_syscalls] = {
	/* Data */
	[__NR_read] = { .name = "read", .nargs = 3,
		       .nowait = async_nowait_read },
	[__NR_write] = { .name = "write", .nargs = 3 },
	[__NR_pread64] = { .name = "pread64", .nargs = 4,
			  .nowait = async_nowait_pread64 },
	[__NR_pwrite64] = { .name = "pwrite64", .nargs = 4 },
	[__NR_readv] = { .name = "readv", .nargs = 3,
			.nowait = async_nowait_readv_fpos },
	[__NR_writev] = { .name = "writev", .nargs = 3 },
	[__NR_preadv] = { .name = "preadv", .nargs = 5,
			 .nowait = async_nowait_preadv },
	[__NR_pwritev] = { .name = "pwritev", .nargs = 5 },
	[__NR_preadv2] = { .name = "preadv2", .nargs = 6,
			  .nowait = async_nowait_preadv2 },
	[__NR_pwritev2] = { .name = "pwritev2", .nargs = 6 },
	/* Files and names */
	[__NR_openat] = { .name = "openat", .nargs = 4,
			 .nowait = async_nowait_openat },
	[__NR_openat2] = { .name = "openat2", .nargs = 4 },
	[__NR_close] = { .name = "close", .nargs = 1,
			.nowait = async_nowait_close },
	[__NR_renameat] = { .name = "renameat", .nargs = 4 },
	[__NR_renameat2] = { .name = "renameat2", .nargs = 5 },
	[__NR_unlinkat] = { .name = "unlinkat", .nargs = 3 },
	[__NR_mkdirat] = { .name = "mkdirat", .nargs = 3 },
	/* Durability */
	[__NR_fsync] = { .name = "fsync", .nargs = 1 },
	[__NR_fdatasync] = { .name = "fdatasync", .nargs = 1 },
	[__NR_sync_file_range] = { .name = "sync_file_range", .nargs = 4 },
	/* Metadata and position */
	[__NR_statx] = { .name = "statx", .nargs = 5 },
	[__NR_newfstatat] = { .name = "newfstatat", .nargs = 4 },
	[__NR_fstat] = { .name = "fstat", .nargs = 2 },
	[__NR_lseek] = { .name = "lseek", .nargs = 3 },
	[__NR_getdents64] = { .name = "getdents64", .nargs = 3 },
	/* Page cache and space */
	[__NR_readahead] = { .name = "readahead", .nargs = 3 },
	[__NR_fadvise64] = { .name = "fadvise64", .nargs = 4 },
	[__NR_fallocate] = { .name = "fallocate", .nargs = 4 },
	[__NR_ftruncate] = { .name = "ftruncate", .nargs = 2 },
	/* Copies between descriptors */
	[__NR_copy_file_range] = { .name = "copy_file_range", .nargs = 6 },
	[__NR_sendfile] = { .name = "sendfile", .nargs = 4 },
	[__NR_splice] = { .name = "splice", .nargs = 6 },
	/* Waiting */
	ASYNC_OP_DEF_POLL
	[__NR_ppoll] = { .name = "ppoll", .nargs = 5,
			 .waits = true },
	[__NR_nanosleep] = { .name = "nanosleep", .nargs = 2,
			     .waits = true,
			     .sleep = async_sleep_nanosleep },
	[__NR_clock_nanosleep] = { .name = "clock_nanosleep", .nargs = 4,
				   .waits = true,
				   .sleep = async_sleep_clock_nanosleep },
	/* Sockets */
	[__NR_accept4] = { .name = "accept4", .nargs = 4,
			   .waits = true },
	[__NR_connect] = { .name = "connect", .nargs = 3,
			   .waits = true },
	[__NR_sendto] = { .name = "sendto", .nargs = 6 },
	[__NR_recvfrom] = { .name = "recvfrom", .nargs = 6,
			    .waits = true },
	[__NR_sendmsg] = { .name = "sendmsg", .nargs = 3 },
	[__NR_recvmsg] = { .name = "recvmsg", .nargs = 3,
			   .waits = true },
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

	if (flags & ~(u64)ASYNC_FSYNC_DATASYNC)
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

/* A deny-list of fsync() or fdatasync() must cover the ranged sync too. */
static u32 async_fsync_range_nr(const u64 *args)
{
	return args[3] & ASYNC_FSYNC_DATASYNC ? __NR_fdatasync : __NR_fsync;
}

const struct async_op_def async_op_defs[] = {
	[ASYNC_OP_FSYNC_RANGE - ASYNC_OP_BASE] = {
		.name		= "fsync_range",
		.nargs		= 4,
		.issue		= async_fsync_range,
		.as_syscall	= async_fsync_range_nr,
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
	BUILD_BUG_ON(NR_syscalls > ASYNC_OP_BASE);
	/* struct async_req keeps the number, the flags and a chain in 16 bits. */
	BUILD_BUG_ON(NR_syscalls > ASYNC_REQ_OP);
	BUILD_BUG_ON(ARRAY_SIZE(async_op_defs) > ASYNC_REQ_OP);
	BUILD_BUG_ON(ASYNC_SUBMIT_MAX_ENTRIES > U16_MAX);
	BUILD_BUG_ON(ASYNC_SYSCALL_FLAGS >= ASYNC_REQ_PUNTED);
	BUILD_BUG_ON(ASYNC_NR_ARGS > BITS_PER_BYTE);
	BUILD_BUG_ON(sizeof(struct async_batch) +
		     64 * sizeof(struct async_req) > SZ_4K);

	for (i = 0; i < ARRAY_SIZE(async_syscall_defs); i++) {
		const struct async_op_def *def = &async_syscall_defs[i];

		WARN_ON_ONCE(def->name && (def->issue || def->as_syscall ||
					   !def->nargs ||
					   def->nargs > ASYNC_NR_ARGS));
	}
	for (i = 0; i < ARRAY_SIZE(async_op_defs); i++) {
		const struct async_op_def *def = &async_op_defs[i];

		WARN_ON_ONCE(!def->name || !def->issue || !def->as_syscall ||
			     def->nargs > ASYNC_NR_ARGS);
	}
	return 0;
}
core_initcall(async_op_defs_check);
