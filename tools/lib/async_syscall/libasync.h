/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libasync: user-space helpers for async_submit().
 *
 * Header only: include it and link nothing.  Every function returns what
 * the system call returns, or -errno where it says so.
 */
#ifndef __LIBASYNC_H
#define __LIBASYNC_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/async_syscall.h>
#include <linux/futex.h>

#ifndef __NR_async_submit
#if defined(__x86_64__) && !defined(__ILP32__)
#define __NR_async_submit 463
#else
#error "async_submit() is only wired up for x86_64"
#endif
#endif
#ifndef __NR_futex_waitv
#define __NR_futex_waitv 449
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
#endif
#ifndef ASYNC_SUBMIT_CANCEL
#define ASYNC_SUBMIT_CANCEL 0x8U	/* bit 3, for older UAPI headers */
#endif

/* --- The system call --------------------------------------------------- */

/* async_submit() on entries of this header's size: nr, or -1 and errno. */
static inline long async_submit(struct async_syscall *entries,
				unsigned int nr, unsigned int flags)
{
	return syscall(__NR_async_submit, entries, nr,
		       sizeof(struct async_syscall), flags);
}

/*
 * The raw system call, for callers that choose every argument themselves
 * (an unusual @entry_size, an unchecked pointer): as async_submit().
 */
static inline long async_submit_raw(void *entries, unsigned int nr,
				    size_t entry_size, unsigned int flags)
{
	return syscall(__NR_async_submit, entries, nr, entry_size, flags);
}

/* Submit and return once every entry has completed. */
static inline long async_submit_wait(struct async_syscall *entries,
				     unsigned int nr)
{
	return async_submit(entries, nr, ASYNC_SUBMIT_WAIT);
}

/*
 * Cancel the @nr entries at @entries, submitted earlier by this process:
 * the number of them still in flight that were cancelled or interrupted,
 * or -1 and errno.
 */
static inline long async_cancel(struct async_syscall *entries,
				unsigned int nr)
{
	return async_submit(entries, nr, ASYNC_SUBMIT_CANCEL);
}

/* ABI version of the running kernel, or -1 and errno (ENOSYS: none). */
static inline int async_abi_version(void)
{
	return syscall(__NR_async_submit, NULL, 0, 0, ASYNC_SUBMIT_ABI_VERSION);
}

/*
 * Whether the kernel runs system call or operation @nr: 0 if it does,
 * -EOPNOTSUPP if it refuses it, -EINVAL if it does not know the number,
 * -errno if async_submit() itself fails.
 */
static inline int async_probe(unsigned int nr)
{
	struct async_syscall e = { .nr = nr };

	if (syscall(__NR_async_submit, &e, 1, sizeof(e), ASYNC_SUBMIT_PROBE))
		return -errno;
	return e.result;
}

/* --- Preparing entries ------------------------------------------------- */

static inline uint64_t async_ptr(const void *p)
{
	return (uintptr_t)p;
}

/* System call @nr with arguments @a0..@a5; clears flags and references. */
static inline void async_prep(struct async_syscall *e, unsigned int nr,
			      uint64_t a0, uint64_t a1, uint64_t a2,
			      uint64_t a3, uint64_t a4, uint64_t a5)
{
	memset(e, 0, sizeof(*e));
	e->nr = nr;
	e->args[0] = a0;
	e->args[1] = a1;
	e->args[2] = a2;
	e->args[3] = a3;
	e->args[4] = a4;
	e->args[5] = a5;
}

static inline void async_prep_openat(struct async_syscall *e, int dfd,
				     const char *path, int flags, mode_t mode)
{
	async_prep(e, __NR_openat, dfd, async_ptr(path), flags, mode, 0, 0);
}

static inline void async_prep_close(struct async_syscall *e, int fd)
{
	async_prep(e, __NR_close, fd, 0, 0, 0, 0, 0);
}

static inline void async_prep_read(struct async_syscall *e, int fd, void *buf,
				   size_t len)
{
	async_prep(e, __NR_read, fd, async_ptr(buf), len, 0, 0, 0);
}

static inline void async_prep_write(struct async_syscall *e, int fd,
				    const void *buf, size_t len)
{
	async_prep(e, __NR_write, fd, async_ptr(buf), len, 0, 0, 0);
}

static inline void async_prep_pread(struct async_syscall *e, int fd,
				    void *buf, size_t len, off_t off)
{
	async_prep(e, __NR_pread64, fd, async_ptr(buf), len, off, 0, 0);
}

static inline void async_prep_pwrite(struct async_syscall *e, int fd,
				     const void *buf, size_t len, off_t off)
{
	async_prep(e, __NR_pwrite64, fd, async_ptr(buf), len, off, 0, 0);
}

/* fstat() into the kernel's struct stat, which is glibc's on x86_64. */
static inline void async_prep_fstat(struct async_syscall *e, int fd,
				    void *statbuf)
{
	async_prep(e, __NR_fstat, fd, async_ptr(statbuf), 0, 0, 0, 0);
}

static inline void async_prep_fsync(struct async_syscall *e, int fd)
{
	async_prep(e, __NR_fsync, fd, 0, 0, 0, 0, 0);
}

/* Data-integrity sync of [off, off + len), to end of file when len is 0. */
static inline void async_prep_fsync_range(struct async_syscall *e, int fd,
					  off_t off, off_t len,
					  unsigned int flags)
{
	async_prep(e, ASYNC_OP_FSYNC_RANGE, fd, off, len, flags, 0, 0);
}

static inline void async_prep_unlinkat(struct async_syscall *e, int dfd,
				       const char *path, int flags)
{
	async_prep(e, __NR_unlinkat, dfd, async_ptr(path), flags, 0, 0, 0);
}

static inline void async_prep_copy_file_range(struct async_syscall *e,
					      int fd_in, int fd_out,
					      size_t len)
{
	async_prep(e, __NR_copy_file_range, fd_in, 0, fd_out, 0, len, 0);
}

static inline void async_prep_nanosleep(struct async_syscall *e,
					const struct timespec *ts)
{
	async_prep(e, __NR_nanosleep, async_ptr(ts), 0, 0, 0, 0, 0);
}

/* --- Chains and references --------------------------------------------- */

/* Argument @argn of @e takes the result of entry @index of the same chain. */
static inline void async_ref(struct async_syscall *e, unsigned int argn,
			     unsigned int index)
{
	e->arg_refs |= 1U << argn;
	e->args[argn] = index;
}

/* The entry after @e belongs to @e's chain. */
static inline void async_link(struct async_syscall *e)
{
	e->flags |= ASYNC_SYSCALL_LINK;
}

/* Make the @nr entries at @e one chain. */
static inline void async_chain(struct async_syscall *e, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i + 1 < nr; i++)
		async_link(&e[i]);
}

/* Run @e even when an earlier entry of its chain failed. */
static inline void async_run_anyway(struct async_syscall *e)
{
	e->flags |= ASYNC_SYSCALL_RUN_ANYWAY;
}

/* --- Waiting ----------------------------------------------------------- */

static inline bool async_done(const struct async_syscall *e)
{
	return __atomic_load_n(&e->done, __ATOMIC_ACQUIRE) ==
	       ASYNC_SYSCALL_DONE;
}

/* Whether @e is still in flight; any other value than PENDING ends a wait. */
static inline bool async_pending(const struct async_syscall *e)
{
	return __atomic_load_n(&e->done, __ATOMIC_ACQUIRE) ==
	       ASYNC_SYSCALL_PENDING;
}

/*
 * Wait until @e completes, for at most @timeout (NULL: no limit), and
 * return its result; -ETIMEDOUT or -EINTR when the wait ends first, which
 * async_done() tells apart from a result of the same value.
 */
static inline long async_wait(struct async_syscall *e,
			      const struct timespec *timeout)
{
	while (async_pending(e)) {
		if (syscall(SYS_futex, &e->done, FUTEX_WAIT_PRIVATE,
			    ASYNC_SYSCALL_PENDING, timeout, NULL, 0) &&
		    errno != EAGAIN)
			return -errno;
	}
	return e->result;
}

/*
 * Wait for all @nr entries at @e: 0, or the -errno of a wait that ended
 * first (-EINTR).  Entry results are not looked at: -EINTR is a common one.
 */
static inline int async_wait_all(struct async_syscall *e, unsigned int nr)
{
	unsigned int i;
	long ret;

	for (i = 0; i < nr; i++) {
		ret = async_wait(&e[i], NULL);
		if (async_pending(&e[i]))
			return ret;
	}
	return 0;
}

/*
 * Wait until any of the @nr (at most 128) entries @es completes and
 * return its position in @es; -ETIMEDOUT, -EINTR or -EINVAL otherwise.
 * @timeout is an absolute CLOCK_MONOTONIC time, or NULL.
 */
static inline int async_wait_any(struct async_syscall *const *es,
				 unsigned int nr,
				 const struct timespec *timeout)
{
	struct futex_waitv w[128];
	unsigned int i;

	if (!nr || nr > 128)
		return -EINVAL;
	for (;;) {
		for (i = 0; i < nr; i++) {
			if (!async_pending(es[i]))
				return i;
			w[i] = (struct futex_waitv) {
				.val = ASYNC_SYSCALL_PENDING,
				.uaddr = async_ptr(&es[i]->done),
				.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG,
			};
		}
		if (syscall(__NR_futex_waitv, w, nr, 0, timeout,
			    CLOCK_MONOTONIC) < 0 && errno != EAGAIN)
			return -errno;
	}
}

#endif /* __LIBASYNC_H */
