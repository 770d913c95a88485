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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/async_syscall.h>
#include <linux/futex.h>

#ifndef __NR_async_submit
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(__ILP32__)
#define __NR_async_submit 472
#else
#error "async_submit() is only wired up for x86_64 and arm64"
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
#ifndef ASYNC_OP_LINK_TIMEOUT		/* for older UAPI headers */
#define ASYNC_OP_LINK_TIMEOUT (ASYNC_OP_BASE + 1)
#endif
#ifndef ASYNC_SUBMIT_WAKE_MARKED	/* ABI 2, for older UAPI headers */
#define ASYNC_SUBMIT_WAKE_MARKED 0x10U
#define ASYNC_SYSCALL_WAITING 2
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

/*
 * Cancel the chain of @nr entries at @e but not its trailing cleanup
 * steps (ASYNC_SYSCALL_RUN_ANYWAY), so that they still run: as
 * async_cancel(), or 0 when every entry is a cleanup step.
 */
static inline long async_cancel_chain(struct async_syscall *e,
				      unsigned int nr)
{
	while (nr && (e[nr - 1].flags & ASYNC_SYSCALL_RUN_ANYWAY))
		nr--;
	return nr ? async_cancel(e, nr) : 0;
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

/* fstat() into the kernel's struct stat, glibc's on x86_64 and arm64. */
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

/*
 * Bound the entry before @e, linked to it, by the relative time @ts: past
 * it, that entry is cancelled and @e completes with -ETIME, else with
 * -ECANCELED.  @ts is read when the call is made.
 */
static inline void async_prep_link_timeout(struct async_syscall *e,
					   const struct timespec *ts)
{
	async_prep(e, ASYNC_OP_LINK_TIMEOUT, async_ptr(ts), 0, 0, 0, 0, 0);
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

static inline void async_prep_mkdirat(struct async_syscall *e, int dfd,
				      const char *path, mode_t mode)
{
	async_prep(e, __NR_mkdirat, dfd, async_ptr(path), mode, 0, 0, 0);
}

/* @stx points to a struct statx. */
static inline void async_prep_statx(struct async_syscall *e, int dfd,
				    const char *path, int flags,
				    unsigned int mask, void *stx)
{
	async_prep(e, __NR_statx, dfd, async_ptr(path), flags, mask,
		   async_ptr(stx), 0);
}

static inline void async_prep_getdents64(struct async_syscall *e, int fd,
					 void *buf, size_t len)
{
	async_prep(e, __NR_getdents64, fd, async_ptr(buf), len, 0, 0, 0);
}

static inline void async_prep_fchmod(struct async_syscall *e, int fd,
				     mode_t mode)
{
	async_prep(e, __NR_fchmod, fd, mode, 0, 0, 0, 0);
}

static inline void async_prep_fchown(struct async_syscall *e, int fd,
				     uid_t uid, gid_t gid)
{
	async_prep(e, __NR_fchown, fd, uid, gid, 0, 0, 0);
}

/* @path NULL: the file @dfd itself, as futimens() does. */
static inline void async_prep_utimensat(struct async_syscall *e, int dfd,
					const char *path,
					const struct timespec times[2],
					int flags)
{
	async_prep(e, __NR_utimensat, dfd, async_ptr(path), async_ptr(times),
		   flags, 0, 0);
}

static inline void async_prep_fsetxattr(struct async_syscall *e, int fd,
					const char *name, const void *value,
					size_t size, int flags)
{
	async_prep(e, __NR_fsetxattr, fd, async_ptr(name), async_ptr(value),
		   size, flags, 0);
}

static inline void async_prep_symlinkat(struct async_syscall *e,
					const char *target, int newdfd,
					const char *linkpath)
{
	async_prep(e, __NR_symlinkat, async_ptr(target), newdfd,
		   async_ptr(linkpath), 0, 0, 0);
}

static inline void async_prep_linkat(struct async_syscall *e, int olddfd,
				     const char *oldpath, int newdfd,
				     const char *newpath, int flags)
{
	async_prep(e, __NR_linkat, olddfd, async_ptr(oldpath), newdfd,
		   async_ptr(newpath), flags, 0);
}

static inline void async_prep_readlinkat(struct async_syscall *e, int dfd,
					 const char *path, char *buf,
					 size_t size)
{
	async_prep(e, __NR_readlinkat, dfd, async_ptr(path), async_ptr(buf),
		   size, 0, 0);
}

static inline void async_prep_socket(struct async_syscall *e, int domain,
				     int type, int protocol)
{
	async_prep(e, __NR_socket, domain, type, protocol, 0, 0, 0);
}

static inline void async_prep_bind(struct async_syscall *e, int fd,
				   const void *addr, unsigned int addrlen)
{
	async_prep(e, __NR_bind, fd, async_ptr(addr), addrlen, 0, 0, 0);
}

static inline void async_prep_listen(struct async_syscall *e, int fd,
				     int backlog)
{
	async_prep(e, __NR_listen, fd, backlog, 0, 0, 0, 0);
}

/* --- Chains and references --------------------------------------------- */

/*
 * Argument @argn of @e takes the result of entry @index of the same chain.
 * @index counts from the first entry of the array given to async_submit():
 * for a chain submitted alone, or through struct async_queue, it is the
 * step of the chain, 0 for its first entry.  Call it after async_prep().
 */
static inline void async_ref(struct async_syscall *e, unsigned int argn,
			     unsigned int index)
{
	e->arg_refs |= 1U << argn;
	e->args[argn] = index;
}

/* The entry after @e belongs to @e's chain.  Call it after async_prep(). */
static inline void async_link(struct async_syscall *e)
{
	e->flags |= ASYNC_SYSCALL_LINK;
}

/*
 * Make the @nr entries at @e one chain, once they are prepared: it links
 * each to the next and unlinks the last.
 */
static inline void async_chain(struct async_syscall *e, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i + 1 < nr; i++)
		async_link(&e[i]);
	if (nr)
		e[nr - 1].flags &= ~ASYNC_SYSCALL_LINK;
}

/* Run @e even when an earlier entry of its chain failed. */
static inline void async_run_anyway(struct async_syscall *e)
{
	e->flags |= ASYNC_SYSCALL_RUN_ANYWAY;
}

/*
 * The _ref variants take their file descriptor from the result of step
 * @fd_ref of the chain (see async_ref()): "read from what step 0 opened".
 */
static inline void async_prep_read_ref(struct async_syscall *e,
				       unsigned int fd_ref, void *buf,
				       size_t len)
{
	async_prep_read(e, -1, buf, len);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_write_ref(struct async_syscall *e,
					unsigned int fd_ref, const void *buf,
					size_t len)
{
	async_prep_write(e, -1, buf, len);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_pread_ref(struct async_syscall *e,
					unsigned int fd_ref, void *buf,
					size_t len, off_t off)
{
	async_prep_pread(e, -1, buf, len, off);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_pwrite_ref(struct async_syscall *e,
					 unsigned int fd_ref, const void *buf,
					 size_t len, off_t off)
{
	async_prep_pwrite(e, -1, buf, len, off);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_fstat_ref(struct async_syscall *e,
					unsigned int fd_ref, void *statbuf)
{
	async_prep_fstat(e, -1, statbuf);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_fsync_ref(struct async_syscall *e,
					unsigned int fd_ref)
{
	async_prep_fsync(e, -1);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_fsync_range_ref(struct async_syscall *e,
					      unsigned int fd_ref, off_t off,
					      off_t len, unsigned int flags)
{
	async_prep_fsync_range(e, -1, off, len, flags);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_getdents64_ref(struct async_syscall *e,
					     unsigned int fd_ref, void *buf,
					     size_t len)
{
	async_prep_getdents64(e, -1, buf, len);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_fchmod_ref(struct async_syscall *e,
					 unsigned int fd_ref, mode_t mode)
{
	async_prep_fchmod(e, -1, mode);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_fchown_ref(struct async_syscall *e,
					 unsigned int fd_ref, uid_t uid,
					 gid_t gid)
{
	async_prep_fchown(e, -1, uid, gid);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_utimens_ref(struct async_syscall *e,
					  unsigned int fd_ref,
					  const struct timespec times[2])
{
	async_prep_utimensat(e, -1, NULL, times, 0);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_fsetxattr_ref(struct async_syscall *e,
					    unsigned int fd_ref,
					    const char *name,
					    const void *value, size_t size,
					    int flags)
{
	async_prep_fsetxattr(e, -1, name, value, size, flags);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_bind_ref(struct async_syscall *e,
				       unsigned int fd_ref, const void *addr,
				       unsigned int addrlen)
{
	async_prep_bind(e, -1, addr, addrlen);
	async_ref(e, 0, fd_ref);
}

static inline void async_prep_listen_ref(struct async_syscall *e,
					 unsigned int fd_ref, int backlog)
{
	async_prep_listen(e, -1, backlog);
	async_ref(e, 0, fd_ref);
}

/*
 * Write to step @fd_ref's descriptor as many bytes of @buf as step @len_ref
 * returned: "write what the read read".  Any argument can take a result
 * this way, with async_ref().
 */
static inline void async_prep_write_len_ref(struct async_syscall *e,
					    unsigned int fd_ref,
					    const void *buf,
					    unsigned int len_ref)
{
	async_prep_write(e, -1, buf, 0);
	async_ref(e, 0, fd_ref);
	async_ref(e, 2, len_ref);
}

static inline void async_prep_pwrite_len_ref(struct async_syscall *e,
					     unsigned int fd_ref,
					     const void *buf,
					     unsigned int len_ref, off_t off)
{
	async_prep_pwrite(e, -1, buf, 0, off);
	async_ref(e, 0, fd_ref);
	async_ref(e, 2, len_ref);
}

/*
 * The cleanup step: close what step @fd_ref opened, even when a step in
 * between failed.  When the open itself failed, the close gets its -errno
 * and fails with EBADF.  A cancel of the whole chain cancels the close
 * too, if it has not started: cancel with async_cancel_chain().
 */
static inline void async_prep_close_ref(struct async_syscall *e,
					unsigned int fd_ref)
{
	async_prep_close(e, -1);
	async_ref(e, 0, fd_ref);
	async_run_anyway(e);
}

/* --- Waiting ----------------------------------------------------------- */

static inline bool async_done(const struct async_syscall *e)
{
	return __atomic_load_n(&e->done, __ATOMIC_ACQUIRE) ==
	       ASYNC_SYSCALL_DONE;
}

/*
 * Whether @e is still in flight: PENDING, or WAITING once a waiter marked
 * it.  Only DONE means done.
 */
static inline bool async_pending(const struct async_syscall *e)
{
	uint32_t done = __atomic_load_n(&e->done, __ATOMIC_ACQUIRE);

	return done == ASYNC_SYSCALL_PENDING || done == ASYNC_SYSCALL_WAITING;
}

/*
 * Mark @e's done word WAITING before sleeping on it, so that a submission
 * made with ASYNC_SUBMIT_WAKE_MARKED wakes it; harmless without.  Returns
 * whether @e is still in flight: sleep with FUTEX_WAIT_PRIVATE on the
 * value ASYNC_SYSCALL_WAITING only then.
 */
static inline bool async_mark_waiting(struct async_syscall *e)
{
	uint32_t done = ASYNC_SYSCALL_PENDING;

	return __atomic_compare_exchange_n(&e->done, &done,
					   ASYNC_SYSCALL_WAITING, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE) ||
	       done == ASYNC_SYSCALL_WAITING;
}

/*
 * The flags that make async_submit() wake only marked done words, when
 * the kernel has them (ABI 2), else 0.  Every wait of this header marks.
 * A version, once known, is kept; a failed query is asked again.
 */
static inline unsigned int async_wake_marked_flags(void)
{
	static int known_abi;
	int abi = __atomic_load_n(&known_abi, __ATOMIC_RELAXED);

	if (abi <= 0) {
		abi = async_abi_version();
		if (abi > 0)
			__atomic_store_n(&known_abi, abi, __ATOMIC_RELAXED);
	}
	return abi >= 2 ? ASYNC_SUBMIT_WAKE_MARKED : 0;
}

/*
 * Wait until @e completes, for at most @timeout (NULL: no limit), and
 * return its result; -ETIMEDOUT or -EINTR when the wait ends first, which
 * async_done() tells apart from a result of the same value.
 */
static inline long async_wait(struct async_syscall *e,
			      const struct timespec *timeout)
{
	while (async_mark_waiting(e)) {
		if (syscall(SYS_futex, &e->done, FUTEX_WAIT_PRIVATE,
			    ASYNC_SYSCALL_WAITING, timeout, NULL, 0) &&
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
 * Wait until any of the @nr entries @es completes and return its position
 * in @es; -ETIMEDOUT, -EINTR or -EINVAL otherwise.
 * - @nr is at most 128, the most futex_waitv() takes.
 * - An entry already done is returned at once, every time: drop the
 *   entries you have reaped from @es before the next call.
 * - @timeout is an absolute CLOCK_MONOTONIC time, or NULL; async_wait()'s
 *   is relative.
 * struct async_queue below does all of that for you.
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
		/* Mark only when about to sleep: a mark costs a wake. */
		for (i = 0; i < nr; i++) {
			if (!async_pending(es[i]))
				return i;
		}
		for (i = 0; i < nr; i++) {
			if (!async_mark_waiting(es[i]))
				return i;
			w[i] = (struct futex_waitv) {
				.val = ASYNC_SYSCALL_WAITING,
				.uaddr = async_ptr(&es[i]->done),
				.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG,
			};
		}
		if (syscall(__NR_futex_waitv, w, nr, 0, timeout,
			    CLOCK_MONOTONIC) < 0 && errno != EAGAIN)
			return -errno;
	}
}

/* --- Reaping: struct async_queue ---------------------------------------- */

/*
 * A set of chains in flight, each with a word of caller's data, that hands
 * back finished chains, all that are done in one call, and each once:
 *
 *	async_queue_init(&q, 256);
 *	async_queue_add(&q, e, 3, (uint64_t)file);	(stages a chain)
 *	async_queue_submit(&q);				(one call for many)
 *	n = async_queue_reap(&q, done, 32, NULL);	(waits for >= 1)
 *
 * References inside a chain count from its first entry, as if the chain
 * were submitted alone (the _ref helpers, async_ref() with a step).
 * Chains staged back to back in one array go to the kernel in one call;
 * the queue shifts their references for the time of that call.
 *
 * Not thread-safe: one queue per thread, or a lock around it.
 */

struct async_queue_chain {
	struct async_syscall *entries;	/* first entry */
	unsigned int nr;		/* entries in the chain */
	uint64_t user_data;
};

struct async_queue {
	struct async_queue_chain *staged, *inflight;
	unsigned int nr_staged, nr_inflight;
	unsigned int max_entries, nr_entries;	/* staged and in flight */
	unsigned int rotor;		/* first chain of the next wait window */
	/* Every entry staged or in flight, to refuse it a second time. */
	const struct async_syscall **busy;
	unsigned int busy_mask;
};

#define ASYNC_QUEUE_WAIT_MAX	128	/* futex_waitv()'s limit */
#define ASYNC_QUEUE_SLICE_NS	1000000	/* turn of one window beyond that */

static inline unsigned int async_queue_hash(const struct async_queue *q,
					    const struct async_syscall *e)
{
	return (uint32_t)(((uintptr_t)e >> 3) * 0x9e3779b97f4a7c15ULL >> 32) &
	       q->busy_mask;
}

static inline bool async_queue_is_busy(const struct async_queue *q,
				       const struct async_syscall *e)
{
	unsigned int i = async_queue_hash(q, e);

	for (; q->busy[i]; i = (i + 1) & q->busy_mask)
		if (q->busy[i] == e)
			return true;
	return false;
}

static inline void async_queue_mark(struct async_queue *q,
				    const struct async_syscall *e)
{
	unsigned int i = async_queue_hash(q, e);

	while (q->busy[i])
		i = (i + 1) & q->busy_mask;
	q->busy[i] = e;
}

/* Linear probing: shift back what the hole would cut from its home slot. */
static inline void async_queue_unmark(struct async_queue *q,
				      const struct async_syscall *e)
{
	unsigned int i = async_queue_hash(q, e), j, home;

	while (q->busy[i] != e) {
		if (!q->busy[i])
			return;
		i = (i + 1) & q->busy_mask;
	}
	q->busy[i] = NULL;
	for (j = (i + 1) & q->busy_mask; q->busy[j];
	     j = (j + 1) & q->busy_mask) {
		home = async_queue_hash(q, q->busy[j]);
		if (((j - home) & q->busy_mask) < ((j - i) & q->busy_mask))
			continue;
		q->busy[i] = q->busy[j];
		q->busy[j] = NULL;
		i = j;
	}
}

/*
 * A queue for at most @max_entries entries staged or in flight, in chains
 * of any length: 0, or -EINVAL or -ENOMEM.
 */
static inline int async_queue_init(struct async_queue *q,
				   unsigned int max_entries)
{
	unsigned int size = 16;

	memset(q, 0, sizeof(*q));
	if (!max_entries || max_entries > (1U << 24))
		return -EINVAL;
	while (size < 2 * max_entries)
		size *= 2;
	q->max_entries = max_entries;
	q->busy_mask = size - 1;
	q->staged = calloc(max_entries, sizeof(*q->staged));
	q->inflight = calloc(max_entries, sizeof(*q->inflight));
	q->busy = calloc(size, sizeof(*q->busy));
	if (!q->staged || !q->inflight || !q->busy) {
		free(q->staged);
		free(q->inflight);
		free(q->busy);
		memset(q, 0, sizeof(*q));
		return -ENOMEM;
	}
	return 0;
}

/*
 * Free the queue.  Chains still in flight go on; their memory must stay
 * valid until they complete (async_cancel() them first to hurry them).
 */
static inline void async_queue_exit(struct async_queue *q)
{
	free(q->staged);
	free(q->inflight);
	free(q->busy);
	memset(q, 0, sizeof(*q));
}

/* Chains staged or in flight: what the caller has not reaped yet. */
static inline unsigned int async_queue_pending(const struct async_queue *q)
{
	return q->nr_staged + q->nr_inflight;
}

/*
 * Stage the @nr prepared entries at @e as one chain (the queue links them)
 * with @user_data, for the next async_queue_submit().  0, or:
 * - -EBUSY: an entry is staged or in flight already, not yet reaped;
 * - -ENOSPC: the queue would hold more than its max_entries;
 * - -EINVAL: @nr is 0 or over ASYNC_SUBMIT_MAX_ENTRIES.
 */
static inline int async_queue_add(struct async_queue *q,
				  struct async_syscall *e, unsigned int nr,
				  uint64_t user_data)
{
	unsigned int i;

	if (!nr || nr > ASYNC_SUBMIT_MAX_ENTRIES)
		return -EINVAL;
	if (nr > q->max_entries - q->nr_entries)
		return -ENOSPC;
	for (i = 0; i < nr; i++)
		if (async_queue_is_busy(q, &e[i]))
			return -EBUSY;
	for (i = 0; i < nr; i++)
		async_queue_mark(q, &e[i]);
	async_chain(e, nr);
	q->staged[q->nr_staged++] = (struct async_queue_chain) {
		.entries = e, .nr = nr, .user_data = user_data,
	};
	q->nr_entries += nr;
	return 0;
}

/* Shift the references of the staged chains [@from, @to) by their offset. */
static inline void async_queue_shift(struct async_queue *q, unsigned int from,
				     unsigned int to, int sign)
{
	struct async_syscall *base = q->staged[from].entries, *e;
	unsigned int c, i, n;
	uint64_t off;

	for (c = from + 1; c < to; c++) {
		e = q->staged[c].entries;
		off = (uint64_t)(e - base) * sign;
		for (i = 0; i < q->staged[c].nr; i++)
			for (n = 0; n < 6; n++)
				if (e[i].arg_refs & (1U << n))
					e[i].args[n] += off;
	}
}

/*
 * A chain the kernel refused: its bad entry holds the error; the others
 * complete with -ECANCELED, and async_queue_reap() returns the chain.
 */
static inline void async_queue_refuse(struct async_queue_chain *c, long err)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		if (c->entries[i].result != -err)
			c->entries[i].result = -ECANCELED;
		__atomic_store_n(&c->entries[i].done, ASYNC_SYSCALL_DONE,
				 __ATOMIC_RELEASE);
		/* As the kernel would: another thread may wait on it. */
		syscall(SYS_futex, &c->entries[i].done, FUTEX_WAKE_PRIVATE,
			INT32_MAX, NULL, NULL, 0);
	}
}

/*
 * Submit the staged chains [@from, @to), which lie back to back: 0, or
 * -errno with none of them queued.
 */
static inline int async_queue_submit_run(struct async_queue *q,
					 unsigned int from, unsigned int to)
{
	unsigned int c, nr = 0;
	long ret;
	int err;

	for (c = from; c < to; c++)
		nr += q->staged[c].nr;
	async_queue_shift(q, from, to, 1);
	ret = async_submit(q->staged[from].entries, nr,
			   async_wake_marked_flags());
	err = errno;
	async_queue_shift(q, from, to, -1);
	if (ret >= 0)
		return 0;
	if ((err != EINVAL && err != EOPNOTSUPP) || to - from > 1)
		return -err;
	/* The chain alone is bad: hand it back through reap. */
	for (c = 0; c < q->staged[from].nr; c++)
		q->staged[from].entries[c].result = 0;
	if (async_submit(q->staged[from].entries, q->staged[from].nr,
			 async_wake_marked_flags()) >= 0)
		return 0;
	err = errno;
	if (err != EINVAL && err != EOPNOTSUPP)
		return -err;
	async_queue_refuse(&q->staged[from], err);
	return 0;
}

/*
 * Submit every staged chain, in as few calls as their layout allows.
 * Returns the number of chains submitted, or -errno (EAGAIN, ENOMEM,
 * EPERM, EFAULT: see async_submit(2)) with the chains from the one that
 * failed on still staged, to submit again, for EAGAIN after reaping; the
 * chains before it are in flight, and reap returns them.
 * A chain that async_submit() refuses for itself (EINVAL, EOPNOTSUPP)
 * counts as submitted: reap returns it with the error in the bad entry's
 * result and -ECANCELED in the others.  async_explain() says why.
 */
static inline int async_queue_submit(struct async_queue *q)
{
	unsigned int from = 0, to, run, c, done = 0;
	int ret = 0;

	while (from < q->nr_staged) {
		run = q->staged[from].nr;
		for (to = from + 1; to < q->nr_staged; to++) {
			if (q->staged[to].entries !=
			    q->staged[to - 1].entries + q->staged[to - 1].nr ||
			    run + q->staged[to].nr > ASYNC_SUBMIT_MAX_ENTRIES)
				break;
			run += q->staged[to].nr;
		}
		ret = async_queue_submit_run(q, from, to);
		if (ret < 0 && to - from > 1 &&
		    (ret == -EINVAL || ret == -EOPNOTSUPP)) {
			/* One bad chain refuses the run: try them one by one. */
			for (ret = 0, c = from; c < to && !ret; c++)
				ret = async_queue_submit_run(q, c, c + 1);
			to = c - (ret < 0);
		} else if (ret < 0) {
			to = from;	/* none of them is in flight */
		}
		for (c = from; c < to; c++)
			q->inflight[q->nr_inflight++] = q->staged[c];
		done += to - from;
		from = to;
		if (ret < 0)
			break;
	}
	memmove(q->staged, q->staged + from,
		(q->nr_staged - from) * sizeof(*q->staged));
	q->nr_staged -= from;
	return ret < 0 ? ret : (int)done;
}

/* Forget every staged chain, without running it: how many there were. */
static inline unsigned int async_queue_unstage(struct async_queue *q)
{
	unsigned int c, i, n = q->nr_staged;

	for (c = 0; c < n; c++) {
		for (i = 0; i < q->staged[c].nr; i++)
			async_queue_unmark(q, &q->staged[c].entries[i]);
		q->nr_entries -= q->staged[c].nr;
	}
	q->nr_staged = 0;
	return n;
}

/* Move the finished chains, at most @max, to @out. */
static inline unsigned int async_queue_collect(struct async_queue *q,
					       struct async_queue_chain *out,
					       unsigned int max)
{
	struct async_queue_chain *c;
	unsigned int i = 0, n = 0, k;

	while (i < q->nr_inflight && n < max) {
		c = &q->inflight[i];
		/* A chain runs in order: its last entry completes last. */
		if (async_pending(&c->entries[c->nr - 1])) {
			i++;
			continue;
		}
		for (k = 0; k < c->nr; k++)
			async_queue_unmark(q, &c->entries[k]);
		q->nr_entries -= c->nr;
		out[n++] = *c;
		*c = q->inflight[--q->nr_inflight];
	}
	return n;
}

static inline int64_t async_queue_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Wait for the chains in flight [@first, @first + @nr) until @deadline
 * (ns of CLOCK_MONOTONIC, or -1): 0, or -ETIMEDOUT or -EINTR.
 */
static inline int async_queue_wait(struct async_queue *q, unsigned int first,
				   unsigned int nr, int64_t deadline)
{
	struct futex_waitv w[ASYNC_QUEUE_WAIT_MAX];
	struct async_queue_chain *c;
	struct timespec ts;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		c = &q->inflight[first + i];
		/* Done since async_queue_collect() looked: no sleep. */
		if (!async_mark_waiting(&c->entries[c->nr - 1]))
			return 0;
		w[i] = (struct futex_waitv) {
			.val = ASYNC_SYSCALL_WAITING,
			.uaddr = async_ptr(&c->entries[c->nr - 1].done),
			.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG,
		};
	}
	ts.tv_sec = deadline / 1000000000LL;
	ts.tv_nsec = deadline % 1000000000LL;
	if (syscall(__NR_futex_waitv, w, nr, 0, deadline < 0 ? NULL : &ts,
		    CLOCK_MONOTONIC) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

/*
 * Wait until at least one chain in flight has finished, for at most the
 * relative @timeout (NULL: no limit; zero: just look), and move the
 * finished ones, at most @max, to @out.  Every entry of a returned chain
 * has completed, and the queue forgets it: its memory may be reused or
 * added again.  Returns how many, or:
 * - 0 when nothing is staged or in flight;
 * - -EAGAIN when chains are staged but none is in flight: submit them;
 * - -ETIMEDOUT when none finished in time (at once for a zero timeout);
 * - -EINTR after a signal; -EINVAL for @max 0 or a bad @timeout.
 *
 * Beyond 128 chains in flight, futex_waitv()'s limit, it waits on 128 at
 * a time, 1 ms each in turn: a long wait then wakes every millisecond.
 */
static inline int async_queue_reap(struct async_queue *q,
				   struct async_queue_chain *out,
				   unsigned int max,
				   const struct timespec *timeout)
{
	int64_t deadline = -1, until, now;
	unsigned int n, nr;
	int ret;

	if (!max || (timeout && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
				 timeout->tv_nsec >= 1000000000L)))
		return -EINVAL;
	/* Past about 292 years, no limit. */
	if (timeout && timeout->tv_sec < INT64_MAX / 1000000000LL - 1)
		deadline = async_queue_now() + timeout->tv_sec * 1000000000LL +
			   timeout->tv_nsec;
	else
		timeout = NULL;
	for (;;) {
		n = async_queue_collect(q, out, max);
		if (n)
			return n;
		if (!q->nr_inflight)
			return q->nr_staged ? -EAGAIN : 0;
		if (timeout && async_queue_now() >= deadline)
			return -ETIMEDOUT;
		if (q->rotor >= q->nr_inflight ||
		    q->nr_inflight <= ASYNC_QUEUE_WAIT_MAX)
			q->rotor = 0;
		nr = q->nr_inflight - q->rotor;
		until = deadline;
		if (q->nr_inflight > ASYNC_QUEUE_WAIT_MAX) {
			if (nr > ASYNC_QUEUE_WAIT_MAX)
				nr = ASYNC_QUEUE_WAIT_MAX;
			now = async_queue_now();
			until = now + ASYNC_QUEUE_SLICE_NS;
			if (deadline >= 0 && deadline < until)
				until = deadline;
		}
		ret = async_queue_wait(q, q->rotor, nr, until);
		if (ret == -ETIMEDOUT && until != deadline) {
			q->rotor += nr;
			continue;
		}
		if (ret)
			return ret;
	}
}

/* --- Event loops: an eventfd that says when to reap -------------------- */

/*
 * A loop that sleeps in epoll_wait() on its sockets learns of finished
 * chains through an eventfd in the same epoll set, which each chain's last
 * step writes to:
 *
 *	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);	(in the epoll set)
 *	async_prep_pread(&e[0], fd, buf, len, off);
 *	async_prep_notify(&e[1], efd);			(the last step)
 *	async_queue_add(&q, e, 2, data);
 *	...
 *	epoll_wait() says efd is readable:
 *	n = async_queue_reap_notified(&q, efd, done, 32);
 *
 * The step is ASYNC_SYSCALL_RUN_ANYWAY, so that a chain that fails still
 * writes; cancel such a chain with async_cancel_chain(), which leaves the
 * step to run.  A chain that completes in async_submit() itself has
 * written when the call returns (a kernel whose write() to an eventfd has
 * no non-blocking method writes from a worker, later).  Completions that
 * come together leave one readable eventfd: a sleeping loop wakes once.
 */
/* @e writes 1 to the eventfd @efd; make it the last step of its chain. */
static inline void async_prep_notify(struct async_syscall *e, int efd)
{
	static const uint64_t one = 1;

	async_prep_write(e, efd, &one, sizeof(one));
	async_run_anyway(e);
}

/*
 * Once @efd (non-blocking) is readable: clear it, then move the finished
 * chains, at most @max, to @out.  Every chain of @q must end with
 * async_prep_notify()'s step.  A chain that finishes after the clear makes
 * @efd readable again.  Returns how many, 0 if none, or -errno of the read
 * of @efd, or -EINVAL for @max 0.
 */
static inline int async_queue_reap_notified(struct async_queue *q, int efd,
					    struct async_queue_chain *out,
					    unsigned int max)
{
	struct async_queue_chain *c;
	uint64_t count;
	unsigned int i;

	if (!max)
		return -EINVAL;
	if (read(efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return -errno;
	/*
	 * A step writes @efd before its own done word is set: one whose
	 * write the read above took may still look pending, and would not
	 * write again.  Wait for it: the step after the one before it is
	 * the write, which never waits on an eventfd we keep reading.
	 */
	for (i = 0; i < q->nr_inflight; i++) {
		c = &q->inflight[i];
		if (c->nr < 2 || async_pending(&c->entries[c->nr - 2]))
			continue;
		while (async_pending(&c->entries[c->nr - 1]))
			async_wait(&c->entries[c->nr - 1], NULL);
	}
	return async_queue_collect(q, out, max);
}

/* --- Explaining a refusal ----------------------------------------------- */

#define ASYNC_EXPLAIN_CALL	(-1)	/* the call itself is wrong */
#define ASYNC_EXPLAIN_OK	(-2)	/* nothing wrong found */

/* The rules async_submit() checks before it asks about the number. */
static inline bool async_explain_rules(const struct async_syscall *e,
				       unsigned int i, unsigned int nr,
				       unsigned int start, char *msg,
				       size_t size)
{
	const unsigned int known = ASYNC_SYSCALL_LINK |
				   ASYNC_SYSCALL_RUN_ANYWAY |
				   ASYNC_SYSCALL_FORCE_ASYNC;
	unsigned long long idx;
	unsigned int n;

	if (e->flags & ~known) {
		snprintf(msg, size, "entry %u: unknown flags 0x%x", i,
			 e->flags & ~known);
		return true;
	}
	if ((e->flags & ASYNC_SYSCALL_LINK) && i == nr - 1) {
		snprintf(msg, size,
			 "entry %u: the last entry has ASYNC_SYSCALL_LINK, so its chain runs past the array",
			 i);
		return true;
	}
	if (e->arg_refs & ~0x3fU) {
		snprintf(msg, size,
			 "entry %u: arg_refs 0x%x has bits beyond args[5]", i,
			 e->arg_refs);
		return true;
	}
	for (n = 0; n < 6; n++) {
		if (!(e->arg_refs & (1U << n)))
			continue;
		idx = e->args[n];
		if (idx >= i)
			snprintf(msg, size,
				 "entry %u: args[%u] refers to entry %llu, which is not an earlier entry",
				 i, n, idx);
		else if (idx < start && start == i)
			snprintf(msg, size,
				 "entry %u: args[%u] refers to entry %llu, but entry %u has no ASYNC_SYSCALL_LINK, so entry %u starts a new chain",
				 i, n, idx, i - 1, i);
		else if (idx < start)
			snprintf(msg, size,
				 "entry %u: args[%u] refers to entry %llu, in another chain (this chain starts at entry %u)",
				 i, n, idx, start);
		else
			continue;
		return true;
	}
	return false;
}

/*
 * The name of system call @nr, of those that x86_64 and arm64 have, as
 * the kernel's tables spell it; NULL for a number it does not know.
 */
static inline const char *async_syscall_name(unsigned int nr)
{
#define N(call)	{ __NR_##call, #call }
	static const struct {
		unsigned int nr;
		const char *name;
	} names[] = {
		N(read), N(write), N(close), N(fstat), N(lseek), N(mmap),
		N(mprotect), N(munmap), N(brk), N(rt_sigaction),
		N(rt_sigprocmask), N(rt_sigreturn), N(ioctl), N(pread64),
		N(pwrite64), N(readv), N(writev), N(sched_yield), N(mremap),
		N(msync), N(mincore), N(madvise), N(shmget), N(shmat),
		N(shmctl), N(dup), N(nanosleep), N(getitimer), N(setitimer),
		N(getpid), N(sendfile), N(socket), N(connect), N(accept),
		N(sendto), N(recvfrom), N(sendmsg), N(recvmsg), N(shutdown),
		N(bind), N(listen), N(getsockname), N(getpeername),
		N(socketpair), N(setsockopt), N(getsockopt), N(clone),
		N(execve), N(exit), N(wait4), N(kill), N(uname), N(semget),
		N(semop), N(semctl), N(shmdt), N(msgget), N(msgsnd), N(msgrcv),
		N(msgctl), N(fcntl), N(flock), N(fsync), N(fdatasync),
		N(truncate), N(ftruncate), N(getcwd), N(chdir), N(fchdir),
		N(fchmod), N(fchown), N(umask), N(gettimeofday), N(getrlimit),
		N(getrusage), N(sysinfo), N(times), N(ptrace), N(getuid),
		N(syslog), N(getgid), N(setuid), N(setgid), N(geteuid),
		N(getegid), N(setpgid), N(getppid), N(setsid), N(setreuid),
		N(setregid), N(getgroups), N(setgroups), N(setresuid),
		N(getresuid), N(setresgid), N(getresgid), N(getpgid),
		N(setfsuid), N(setfsgid), N(getsid), N(capget), N(capset),
		N(rt_sigpending), N(rt_sigtimedwait), N(rt_sigqueueinfo),
		N(rt_sigsuspend), N(sigaltstack), N(personality), N(statfs),
		N(fstatfs), N(getpriority), N(setpriority), N(sched_setparam),
		N(sched_getparam), N(sched_setscheduler), N(sched_getscheduler),
		N(sched_get_priority_max), N(sched_get_priority_min),
		N(sched_rr_get_interval), N(mlock), N(munlock), N(mlockall),
		N(munlockall), N(vhangup), N(pivot_root), N(prctl), N(adjtimex),
		N(setrlimit), N(chroot), N(sync), N(acct), N(settimeofday),
		N(mount), N(umount2), N(swapon), N(swapoff), N(reboot),
		N(sethostname), N(setdomainname), N(init_module),
		N(delete_module), N(quotactl), N(gettid), N(readahead),
		N(setxattr), N(lsetxattr), N(fsetxattr), N(getxattr),
		N(lgetxattr), N(fgetxattr), N(listxattr), N(llistxattr),
		N(flistxattr), N(removexattr), N(lremovexattr), N(fremovexattr),
		N(tkill), N(futex), N(sched_setaffinity), N(sched_getaffinity),
		N(io_setup), N(io_destroy), N(io_getevents), N(io_submit),
		N(io_cancel), N(lookup_dcookie), N(remap_file_pages),
		N(getdents64), N(set_tid_address), N(restart_syscall),
		N(semtimedop), N(fadvise64), N(timer_create), N(timer_settime),
		N(timer_gettime), N(timer_getoverrun), N(timer_delete),
		N(clock_settime), N(clock_gettime), N(clock_getres),
		N(clock_nanosleep), N(exit_group), N(epoll_ctl), N(tgkill),
		N(mbind), N(set_mempolicy), N(get_mempolicy), N(mq_open),
		N(mq_unlink), N(mq_timedsend), N(mq_timedreceive), N(mq_notify),
		N(mq_getsetattr), N(kexec_load), N(waitid), N(add_key),
		N(request_key), N(keyctl), N(ioprio_set), N(ioprio_get),
		N(inotify_add_watch), N(inotify_rm_watch), N(migrate_pages),
		N(openat), N(mkdirat), N(mknodat), N(fchownat), N(newfstatat),
		N(unlinkat), N(renameat), N(linkat), N(symlinkat),
		N(readlinkat), N(fchmodat), N(faccessat), N(pselect6), N(ppoll),
		N(unshare), N(set_robust_list), N(get_robust_list), N(splice),
		N(tee), N(sync_file_range), N(vmsplice), N(move_pages),
		N(utimensat), N(epoll_pwait), N(timerfd_create), N(fallocate),
		N(timerfd_settime), N(timerfd_gettime), N(accept4),
		N(signalfd4), N(eventfd2), N(epoll_create1), N(dup3), N(pipe2),
		N(inotify_init1), N(preadv), N(pwritev), N(rt_tgsigqueueinfo),
		N(perf_event_open), N(recvmmsg), N(fanotify_init),
		N(fanotify_mark), N(prlimit64), N(name_to_handle_at),
		N(open_by_handle_at), N(clock_adjtime), N(syncfs), N(sendmmsg),
		N(setns), N(getcpu), N(process_vm_readv), N(process_vm_writev),
		N(kcmp), N(finit_module), N(sched_setattr), N(sched_getattr),
		N(renameat2), N(seccomp), N(getrandom), N(memfd_create),
		N(kexec_file_load), N(bpf), N(execveat), N(userfaultfd),
		N(membarrier), N(mlock2), N(copy_file_range), N(preadv2),
		N(pwritev2), N(pkey_mprotect), N(pkey_alloc), N(pkey_free),
		N(statx), N(io_pgetevents), N(rseq),
#ifdef __x86_64__
		N(open), N(stat), N(lstat), N(poll), N(access), N(pipe),
		N(select), N(dup2), N(pause), N(alarm), N(fork), N(vfork),
		N(getdents), N(rename), N(mkdir), N(rmdir), N(creat), N(link),
		N(unlink), N(symlink), N(readlink), N(chmod), N(chown),
		N(lchown), N(getpgrp), N(utime), N(mknod), N(ustat), N(sysfs),
		N(modify_ldt), N(arch_prctl), N(iopl), N(ioperm), N(time),
		N(set_thread_area), N(get_thread_area), N(epoll_create),
		N(epoll_wait), N(utimes), N(inotify_init), N(futimesat),
		N(signalfd), N(eventfd),
#endif
#ifdef __NR_uretprobe
		N(uretprobe),
#endif
#ifdef __NR_pidfd_send_signal
		N(pidfd_send_signal),
#endif
#ifdef __NR_io_uring_setup
		N(io_uring_setup),
#endif
#ifdef __NR_io_uring_enter
		N(io_uring_enter),
#endif
#ifdef __NR_io_uring_register
		N(io_uring_register),
#endif
#ifdef __NR_open_tree
		N(open_tree),
#endif
#ifdef __NR_move_mount
		N(move_mount),
#endif
#ifdef __NR_fsopen
		N(fsopen),
#endif
#ifdef __NR_fsconfig
		N(fsconfig),
#endif
#ifdef __NR_fsmount
		N(fsmount),
#endif
#ifdef __NR_fspick
		N(fspick),
#endif
#ifdef __NR_pidfd_open
		N(pidfd_open),
#endif
#ifdef __NR_clone3
		N(clone3),
#endif
#ifdef __NR_close_range
		N(close_range),
#endif
#ifdef __NR_openat2
		N(openat2),
#endif
#ifdef __NR_pidfd_getfd
		N(pidfd_getfd),
#endif
#ifdef __NR_faccessat2
		N(faccessat2),
#endif
#ifdef __NR_process_madvise
		N(process_madvise),
#endif
#ifdef __NR_epoll_pwait2
		N(epoll_pwait2),
#endif
#ifdef __NR_mount_setattr
		N(mount_setattr),
#endif
#ifdef __NR_quotactl_fd
		N(quotactl_fd),
#endif
#ifdef __NR_landlock_create_ruleset
		N(landlock_create_ruleset),
#endif
#ifdef __NR_landlock_add_rule
		N(landlock_add_rule),
#endif
#ifdef __NR_landlock_restrict_self
		N(landlock_restrict_self),
#endif
#ifdef __NR_memfd_secret
		N(memfd_secret),
#endif
#ifdef __NR_process_mrelease
		N(process_mrelease),
#endif
#ifdef __NR_futex_waitv
		N(futex_waitv),
#endif
#ifdef __NR_set_mempolicy_home_node
		N(set_mempolicy_home_node),
#endif
#ifdef __NR_cachestat
		N(cachestat),
#endif
#ifdef __NR_fchmodat2
		N(fchmodat2),
#endif
#ifdef __NR_map_shadow_stack
		N(map_shadow_stack),
#endif
#ifdef __NR_futex_wake
		N(futex_wake),
#endif
#ifdef __NR_futex_wait
		N(futex_wait),
#endif
#ifdef __NR_futex_requeue
		N(futex_requeue),
#endif
#ifdef __NR_statmount
		N(statmount),
#endif
#ifdef __NR_listmount
		N(listmount),
#endif
#ifdef __NR_lsm_get_self_attr
		N(lsm_get_self_attr),
#endif
#ifdef __NR_lsm_set_self_attr
		N(lsm_set_self_attr),
#endif
#ifdef __NR_lsm_list_modules
		N(lsm_list_modules),
#endif
#ifdef __NR_mseal
		N(mseal),
#endif
	};
#undef N

	const unsigned int count = sizeof(names) / sizeof(*names);
	unsigned int i;

	if (nr == ASYNC_OP_FSYNC_RANGE)
		return "ASYNC_OP_FSYNC_RANGE";
	if (nr == ASYNC_OP_LINK_TIMEOUT)
		return "ASYNC_OP_LINK_TIMEOUT";
	for (i = 0; i < count; i++) {
		if (names[i].nr == nr)
			return names[i].name;
	}
	return NULL;
}

/* What the kernel's probe of entry @i, @err, means. */
static inline void async_explain_probe(const struct async_syscall *e,
				       unsigned int i, long err, char *msg,
				       size_t size)
{
	const char *what = e->nr >= ASYNC_OP_BASE ? "operation" : "system call";
	const char *name = async_syscall_name(e->nr);

	if (err == -EOPNOTSUPP && name) {
		snprintf(msg, size, "entry %u: %s %s (%u) is not on the whitelist",
			 i, what, name, e->nr);
	} else if (err == -EOPNOTSUPP) {
		snprintf(msg, size, "entry %u: %s %u is not on the whitelist",
			 i, what, e->nr);
	} else if (err == -EINVAL && async_probe(e->nr) == -EINVAL) {
		snprintf(msg, size,
			 "entry %u: %u is neither a system call nor an operation this kernel knows",
			 i, e->nr);
	} else if (err == -EINVAL && e->arg_refs) {
		snprintf(msg, size,
			 "entry %u: arg_refs 0x%x names an argument that %s %u does not take",
			 i, e->arg_refs, what, e->nr);
	} else {
		snprintf(msg, size, "entry %u: %s", i, strerror((int)-err));
	}
}

/*
 * Why async_submit() would refuse the @nr entries at @e, in words, such as
 * "entry 3: args[0] refers to entry 0, in another chain (...)".  Writes
 * the reason to @msg and returns the index of the first bad entry, or
 * ASYNC_EXPLAIN_CALL for a fault of the call itself (nr, alignment, or
 * async_submit() refusing every call: ENOSYS, EPERM), or ASYNC_EXPLAIN_OK.
 * It applies the rules of async_submit(2) in user space and asks the
 * kernel about the numbers with ASYNC_SUBMIT_PROBE, on a copy: @e is not
 * written.
 */
static inline int async_explain(const struct async_syscall *e,
				unsigned int nr, char *msg, size_t size)
{
	struct async_syscall *copy;
	unsigned int i, start = 0;
	int probe_err = 0;

	if (!nr || nr > ASYNC_SUBMIT_MAX_ENTRIES) {
		snprintf(msg, size, "nr_entries is %u, not 1 to %u", nr,
			 ASYNC_SUBMIT_MAX_ENTRIES);
		return ASYNC_EXPLAIN_CALL;
	}
	if ((uintptr_t)e & 7) {
		snprintf(msg, size, "the array is not aligned on 8 bytes");
		return ASYNC_EXPLAIN_CALL;
	}
	copy = malloc((size_t)nr * sizeof(*e));
	if (!copy) {
		snprintf(msg, size, "out of memory");
		return ASYNC_EXPLAIN_CALL;
	}
	memcpy(copy, e, (size_t)nr * sizeof(*e));
	if (async_submit(copy, nr, ASYNC_SUBMIT_PROBE) < 0)
		probe_err = errno;
	for (i = 0; i < nr; i++) {
		if (async_explain_rules(&e[i], i, nr, start, msg, size))
			break;
		if (!probe_err && copy[i].result) {
			async_explain_probe(&e[i], i, copy[i].result, msg, size);
			break;
		}
		if (!(e[i].flags & ASYNC_SYSCALL_LINK))
			start = i + 1;
	}
	free(copy);
	if (i < nr)
		return i;
	if (probe_err) {
		snprintf(msg, size, "async_submit() fails: %s%s",
			 strerror(probe_err),
			 probe_err == EPERM ?
			 " (sysctl kernel.async_syscall_disabled)" : "");
		return ASYNC_EXPLAIN_CALL;
	}
	snprintf(msg, size, "no rule is broken");
	return ASYNC_EXPLAIN_OK;
}

#endif /* __LIBASYNC_H */
