// SPDX-License-Identifier: GPL-2.0
/*
 * The operations async_submit() runs: the system calls it accepts, by
 * number, and the asynchronous-only operations from ASYNC_OP_BASE.
 *
 * The rule: a system call is accepted if it acts only through its
 * arguments and what the threads of a process share (files, fs, mm,
 * credentials, namespaces, rlimits), so that it does on a worker what it
 * does in the submitter.  Refused, by class:
 * - calls that do not return: exit, exit_group, execve, execveat,
 *   rt_sigreturn;
 * - calls that create tasks: fork, vfork, clone, clone3;
 * - calls that act on the calling thread, which would change or report
 *   the worker instead: signal masks and waits for signals
 *   (rt_sigtimedwait, rt_sigsuspend, pause), sigaltstack,
 *   set_tid_address, the robust list, rseq, unshare, setns, the setuid
 *   family, capset, personality, prctl, arch_prctl, the thread's memory
 *   policy and scheduling, gettid, getcpu;
 * - mmap, mprotect and pkey_mprotect: with PROT_EXEC alone they may
 *   give the calling thread's PKRU the execute-only key's rights;
 * - ioctl: what it does is the driver's, and some drivers bind state to
 *   the calling thread (KVM_RUN its vCPU);
 * - ptrace: the calling thread becomes the tracer;
 * - rt_sigqueueinfo, rt_tgsigqueueinfo: they judge the siginfo a thread
 *   may forge by comparing the target with the sender's thread id;
 * - semop, semtimedop: SEM_UNDO is undone when the thread that did the
 *   operation exits, and workers do not share the undo list;
 * - async_submit() itself;
 * - the rest (administration, modules, tracing, keys and others), until
 *   someone shows that it is safe and useful here.
 * @check refuses, per entry, the argument values of an accepted call that
 * would act on the calling thread.
 */

#include <linux/build_bug.h>
#include <linux/close_range.h>
#include <linux/fcntl.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/init.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/stddef.h>
#include <uapi/linux/wait.h>
#include <asm/unistd.h>

#include "async_syscall.h"

/* A PI futex is owned by the thread that locked it. */
static long async_check_futex(const u64 *args)
{
	switch ((int)args[1] & FUTEX_CMD_MASK) {
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_UNLOCK_PI:
	case FUTEX_TRYLOCK_PI:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_CMP_REQUEUE_PI:
		return -EOPNOTSUPP;
	}
	return 0;
}

/* A lease's or a directory notification's owner would be the worker. */
static long async_check_fcntl(const u64 *args)
{
	switch ((unsigned int)args[1]) {
	case F_SETLEASE:
	case F_NOTIFY:
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The worker has no children of its own. */
static long async_check_waitid(const u64 *args)
{
	return args[3] & __WNOTHREAD ? -EOPNOTSUPP : 0;
}

static long async_check_wait4(const u64 *args)
{
	return args[2] & __WNOTHREAD ? -EOPNOTSUPP : 0;
}

/* It would unshare the worker's file table. */
static long async_check_close_range(const u64 *args)
{
	return args[2] & CLOSE_RANGE_UNSHARE ? -EOPNOTSUPP : 0;
}

/* As rt_sigqueueinfo(): a siginfo is judged by the sender's thread. */
static long async_check_pidfd_send_signal(const u64 *args)
{
	return args[2] ? -EOPNOTSUPP : 0;
}

#define ASYNC_SYSCALL(call, n, ...) \
	[__NR_##call] = { .name = #call, .nargs = n, __VA_ARGS__ }

const struct async_op_def async_syscall_defs[NR_syscalls] = {
	/* Data */
	ASYNC_SYSCALL(read, 3, .nowait = async_nowait_read),
	ASYNC_SYSCALL(write, 3, .nowait = async_nowait_write),
	ASYNC_SYSCALL(pread64, 4, .nowait = async_nowait_pread64,
		      .pagewait = true),
	ASYNC_SYSCALL(pwrite64, 4),
	ASYNC_SYSCALL(readv, 3, .nowait = async_nowait_readv_fpos),
	ASYNC_SYSCALL(writev, 3),
	ASYNC_SYSCALL(preadv, 5, .nowait = async_nowait_preadv),
	ASYNC_SYSCALL(pwritev, 5),
	ASYNC_SYSCALL(preadv2, 6, .nowait = async_nowait_preadv2),
	ASYNC_SYSCALL(pwritev2, 6),
	/* Descriptors */
	ASYNC_SYSCALL(openat, 4, .nowait = async_nowait_openat),
	ASYNC_SYSCALL(openat2, 4),
	ASYNC_SYSCALL(open_by_handle_at, 3),
	ASYNC_SYSCALL(close, 1, .nowait = async_nowait_close),
	ASYNC_SYSCALL(close_range, 3, .check = async_check_close_range),
	ASYNC_SYSCALL(dup, 1, .direct = true),
	ASYNC_SYSCALL(dup3, 3),
	ASYNC_SYSCALL(fcntl, 3, .waits = true, .check = async_check_fcntl),
	ASYNC_SYSCALL(flock, 2, .waits = true),
	ASYNC_SYSCALL(pipe2, 2, .direct = true),
	ASYNC_SYSCALL(memfd_create, 2),
	ASYNC_SYSCALL(eventfd2, 2, .direct = true),
	ASYNC_SYSCALL(signalfd4, 4),
	ASYNC_SYSCALL(timerfd_create, 2, .direct = true),
	ASYNC_SYSCALL(timerfd_settime, 4),
	ASYNC_SYSCALL(timerfd_gettime, 2, .direct = true),
	ASYNC_SYSCALL(epoll_create1, 1, .direct = true),
	ASYNC_SYSCALL(epoll_ctl, 4),
	ASYNC_SYSCALL(inotify_init1, 1),
	ASYNC_SYSCALL(inotify_add_watch, 3),
	ASYNC_SYSCALL(inotify_rm_watch, 2),
	ASYNC_SYSCALL(fanotify_init, 2),
	ASYNC_SYSCALL(fanotify_mark, 5),
	ASYNC_SYSCALL(pidfd_open, 2),
	ASYNC_SYSCALL(pidfd_getfd, 3),
	/* Names */
	ASYNC_SYSCALL(renameat, 4),
	ASYNC_SYSCALL(renameat2, 5),
	ASYNC_SYSCALL(unlinkat, 3),
	ASYNC_SYSCALL(mkdirat, 3),
	ASYNC_SYSCALL(mknodat, 4),
	ASYNC_SYSCALL(linkat, 5),
	ASYNC_SYSCALL(symlinkat, 3),
	ASYNC_SYSCALL(readlinkat, 4),
	ASYNC_SYSCALL(name_to_handle_at, 5),
	ASYNC_SYSCALL(getcwd, 2, .direct = true),
	ASYNC_SYSCALL(chdir, 1),
	ASYNC_SYSCALL(fchdir, 1),
	ASYNC_SYSCALL(umask, 1, .direct = true),
	/* Attributes */
	ASYNC_SYSCALL(statx, 5, .nowait = async_nowait_statx),
	ASYNC_SYSCALL(newfstatat, 4),
	ASYNC_SYSCALL(fstat, 2),
	ASYNC_SYSCALL(statfs, 2),
	ASYNC_SYSCALL(fstatfs, 2),
	ASYNC_SYSCALL(faccessat, 3),
	ASYNC_SYSCALL(faccessat2, 4),
	ASYNC_SYSCALL(fchmod, 2),
	ASYNC_SYSCALL(fchmodat, 3),
	ASYNC_SYSCALL(fchmodat2, 4),
	ASYNC_SYSCALL(fchown, 3),
	ASYNC_SYSCALL(fchownat, 5),
	ASYNC_SYSCALL(utimensat, 4),
	ASYNC_SYSCALL(truncate, 2),
	ASYNC_SYSCALL(ftruncate, 2),
	ASYNC_SYSCALL(lseek, 3),
	ASYNC_SYSCALL(getdents64, 3),
	/* Extended attributes */
	ASYNC_SYSCALL(setxattr, 5),
	ASYNC_SYSCALL(lsetxattr, 5),
	ASYNC_SYSCALL(fsetxattr, 5),
	ASYNC_SYSCALL(getxattr, 4),
	ASYNC_SYSCALL(lgetxattr, 4),
	ASYNC_SYSCALL(fgetxattr, 4),
	ASYNC_SYSCALL(listxattr, 3),
	ASYNC_SYSCALL(llistxattr, 3),
	ASYNC_SYSCALL(flistxattr, 3),
	ASYNC_SYSCALL(removexattr, 2),
	ASYNC_SYSCALL(lremovexattr, 2),
	ASYNC_SYSCALL(fremovexattr, 2),
	/* Durability */
	ASYNC_SYSCALL(fsync, 1),
	ASYNC_SYSCALL(fdatasync, 1),
	ASYNC_SYSCALL(sync_file_range, 4),
	ASYNC_SYSCALL(syncfs, 1),
	ASYNC_SYSCALL(sync, 0),
	/* Page cache and space */
	ASYNC_SYSCALL(readahead, 3),
	ASYNC_SYSCALL(fadvise64, 4),
	ASYNC_SYSCALL(fallocate, 4),
	ASYNC_SYSCALL(cachestat, 4),
	/* Copies between descriptors */
	ASYNC_SYSCALL(copy_file_range, 6),
	ASYNC_SYSCALL(sendfile, 4),
	ASYNC_SYSCALL(splice, 6),
	ASYNC_SYSCALL(tee, 4),
	/* Memory */
	ASYNC_SYSCALL(munmap, 2),
	ASYNC_SYSCALL(mremap, 5),
	ASYNC_SYSCALL(madvise, 3),
	ASYNC_SYSCALL(process_madvise, 5),
	ASYNC_SYSCALL(msync, 3),
	ASYNC_SYSCALL(mincore, 3),
	ASYNC_SYSCALL(mlock, 2),
	ASYNC_SYSCALL(mlock2, 3),
	ASYNC_SYSCALL(munlock, 2),
	ASYNC_SYSCALL(mlockall, 1),
	ASYNC_SYSCALL(munlockall, 0),
	ASYNC_SYSCALL(process_vm_readv, 6),
	ASYNC_SYSCALL(process_vm_writev, 6),
	/* Waiting */
	ASYNC_SYSCALL(ppoll, 5, .waits = true),
	ASYNC_SYSCALL(pselect6, 6, .waits = true),
	ASYNC_SYSCALL(epoll_pwait, 6, .waits = true),
	ASYNC_SYSCALL(epoll_pwait2, 6, .waits = true),
	ASYNC_SYSCALL(nanosleep, 2, .waits = true,
		      .sleep = async_sleep_nanosleep),
	ASYNC_SYSCALL(clock_nanosleep, 4, .waits = true,
		      .sleep = async_sleep_clock_nanosleep),
	ASYNC_SYSCALL(futex, 6, .waits = true, .check = async_check_futex),
	ASYNC_SYSCALL(futex_wait, 6, .waits = true),
	ASYNC_SYSCALL(futex_waitv, 5, .waits = true),
	ASYNC_SYSCALL(futex_wake, 4, .direct = true),
	ASYNC_SYSCALL(futex_requeue, 4),
	ASYNC_SYSCALL(waitid, 5, .waits = true, .check = async_check_waitid),
	ASYNC_SYSCALL(wait4, 4, .waits = true, .check = async_check_wait4),
	ASYNC_SYSCALL(io_getevents, 5, .waits = true),
	ASYNC_SYSCALL(io_pgetevents, 6, .waits = true),
	ASYNC_SYSCALL(mq_open, 4),
	ASYNC_SYSCALL(mq_unlink, 1),
	ASYNC_SYSCALL(mq_getsetattr, 3),
	ASYNC_SYSCALL(mq_timedsend, 5, .waits = true),
	ASYNC_SYSCALL(mq_timedreceive, 5, .waits = true),
	ASYNC_SYSCALL(getrandom, 3),
	/* Signals to processes */
	ASYNC_SYSCALL(kill, 2, .direct = true),
	ASYNC_SYSCALL(tkill, 2, .direct = true),
	ASYNC_SYSCALL(tgkill, 3, .direct = true),
	ASYNC_SYSCALL(pidfd_send_signal, 4,
		      .check = async_check_pidfd_send_signal),
	/* Sockets */
	ASYNC_SYSCALL(socket, 3),
	ASYNC_SYSCALL(socketpair, 4),
	ASYNC_SYSCALL(bind, 3),
	ASYNC_SYSCALL(listen, 2),
	ASYNC_SYSCALL(accept, 3, .waits = true),
	ASYNC_SYSCALL(accept4, 4, .waits = true),
	ASYNC_SYSCALL(connect, 3, .waits = true),
	ASYNC_SYSCALL(shutdown, 2),
	ASYNC_SYSCALL(getsockname, 3, .direct = true),
	ASYNC_SYSCALL(getpeername, 3, .direct = true),
	ASYNC_SYSCALL(setsockopt, 5),
	ASYNC_SYSCALL(getsockopt, 5),
	ASYNC_SYSCALL(sendto, 6),
	ASYNC_SYSCALL(recvfrom, 6, .waits = true),
	ASYNC_SYSCALL(sendmsg, 3),
	ASYNC_SYSCALL(recvmsg, 3, .waits = true),
	ASYNC_SYSCALL(sendmmsg, 4),
	ASYNC_SYSCALL(recvmmsg, 5, .waits = true),
	/* Older calls that only x86_64 has, for what the ones above do */
	ASYNC_SYSCALL_DEFS_LEGACY
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
	/* Run by the chain itself: link_timeout.c. */
	[ASYNC_OP_LINK_TIMEOUT - ASYNC_OP_BASE] = {
		.name		= "link_timeout",
		.nargs		= 2,
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
					   (def->check && def->nowait) ||
					   (def->direct && (def->nowait ||
							    def->sleep ||
							    def->check ||
							    def->waits)) ||
					   def->nargs > ASYNC_NR_ARGS));
	}
	for (i = 0; i < ARRAY_SIZE(async_op_defs); i++) {
		const struct async_op_def *def = &async_op_defs[i];

		if (i == ASYNC_OP_LINK_TIMEOUT - ASYNC_OP_BASE)
			continue;
		WARN_ON_ONCE(!def->name || !def->issue || !def->as_syscall ||
			     !def->nargs || def->nargs > ASYNC_NR_ARGS);
	}
	return 0;
}
core_initcall(async_op_defs_check);
