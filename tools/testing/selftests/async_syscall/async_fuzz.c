// SPDX-License-Identifier: GPL-2.0
/*
 * async_fuzz: a seedable randomized submitter for async_submit().
 *
 *	async_fuzz [-s SEED] [-n SUBMISSIONS] [-t SECONDS]
 *
 * It submits whitelisted calls with random arguments (pointers among valid
 * buffers, NULL, small integers, kernel addresses, unmapped, read-only and
 * misaligned ones), numbers off the whitelist, random chains and references,
 * good and bad, random entry flags and entry sizes, random submit flags
 * (probe, wait, cancel), cancels entries in flight, and forks children that
 * submit and then exit or are killed.  Now and then it runs several
 * submitting threads at once, each on its own arrays, with a thread that
 * cancels the others' entries, threads that unshare their file table or
 * filesystem context or exit with entries in flight; children that exec,
 * exit or are killed with entries in memory they share with it; and, when
 * it runs as root, a child that changes its uid and its root between
 * submissions and checks that each entry ran with those of its call.
 *
 * Nothing may reach outside its scratch directory: paths come from a fixed
 * list of names without '/', descriptors are its own, files stay small, and
 * every pipe, socket and eventfd is non-blocking, so that no entry waits for
 * ever.  Calls that change what a descriptor refers to (its mode, owner,
 * times, extended attributes) get only descriptors it opened in the scratch
 * directory; signals sent are 0, to itself.  Numbers off the whitelist get
 * zero arguments: they must never run, and if one did, it should do no harm.
 *
 * It checks what the contract promises: a call with a bad entry fails with
 * that entry's errno, also found in that entry's result; a good call
 * returns the number of entries, and each completes within COMPLETE_S with
 * a result in range for its call and the chain rules kept, and exactly
 * the result its arguments decide where they do (the per-entry checks that
 * refuse PI futexes, __WNOTHREAD, CLOSE_RANGE_UNSHARE or a siginfo with
 * EOPNOTSUPP, a signal 0 to itself); a cancel counts no more entries than
 * were in flight, also one from another thread; the entries of a child are
 * all done once it is reaped.  It prints the seed, submissions, seconds and
 * submissions per second, then what the threads and children did, and
 * exits non-zero on any inconsistency, naming the seed.
 *
 * The fuzzing runs in a child whose standard descriptors are /dev/null
 * (entries may write to or close any small descriptor); the parent keeps
 * the real ones, watches for a hang or an unexpected death, and reports.
 * A seed gives the same sequence of submissions in each thread; what the
 * kernel does with them, how the threads interleave and where a run of
 * SUBMISSIONS ends still depend on timing.  Without -s the seed is random.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/openat2.h>
#include <linux/stat.h>

#include "../kselftest.h"
#include "async_test.h"

#define DEF_SUBMISSIONS	2000
#define PAGE		4096
#define NSLOTS		16
#define MAX_N		32
#define ENT_PAGES	32		/* MAX_N entries of up to a page */
#define RO_PAGES	4
#define RW_PAGES	2
#define DATA_PAGES	16
#define DATA_SIZE	(DATA_PAGES * PAGE)
/* Every entry of a good submission completes within this. */
#define COMPLETE_S	30
/* The parent gives up on a fuzzer that made no progress for this long. */
#define HANG_S		(2 * COMPLETE_S + 30)
#define MAX_KIDS	4
#define KID_KILL_MS	30
#define REBUILD_EVERY	256
/*
 * Main loop steps between an episode of threads (about a sixth of the
 * submissions), a child that execs, exits or is killed, in turn, with
 * entries in shared memory, and a child that changes credentials and root.
 * Each period starts at a random step of its first half, so that short
 * runs see every kind.
 */
#define THREADS_EVERY	800
#define XKID_EVERY	1000
#define CREDKID_EVERY	2500
/* System call numbers of this kernel: 0 to 472 (async_submit). */
#define NR_SYSCALLS	473
/* Unassigned numbers between the last old call and the new ones. */
#define GAP_FIRST	335
#define GAP_END		424
/* And between the last call of 6.12 (mseal, 462) and async_submit. */
#define GAP2_FIRST	463
#define GAP2_END	472
#define KERNEL_ADDR	0xffffffff81000000ULL
#define MAX_RW		0x7ffff000LL
/*
 * Descriptors counted from the top of the table (at most 1024): the
 * fuzzer's own, for the calls that change a file, and those only
 * close_range() closes, in its range.  The credentials child keeps its
 * own in the three topmost.
 */
#define OWN_TOP		8
#define NOWN		5
/* The file whose pages the fuzzer drops (make_cold_file()). */
#define COLD_SIZE	(256 * 1024)
#define VICTIM_TOP	24
#define NVICTIMS	8
#define CR_FIRST_TOP	40
#define CR_LAST_TOP	17
/* A pid, and a thread id, that no task can have: above PID_MAX_LIMIT. */
#define NO_PID		0x7fffffff

#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK			O_NONBLOCK
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD			O_EXCL
#endif
#ifndef PIDFD_SIGNAL_THREAD
#define PIDFD_SIGNAL_THREAD		0x1UL
#define PIDFD_SIGNAL_THREAD_GROUP	0x2UL
#define PIDFD_SIGNAL_PROCESS_GROUP	0x4UL
#endif

/* --- Random numbers ---------------------------------------------------- */

static __thread uint64_t rng;

static uint64_t rnd64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int rnd(unsigned int n)
{
	return n ? rnd64() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

static void seed_rng(uint64_t seed)
{
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!rng)
		rng = 1;
}

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

/* --- What the fuzzer tells its parent ---------------------------------- */

struct report {
	unsigned long submissions, entries, completed, refused, probes;
	unsigned long waits, cancels, cancelled, kids, rebuilds;
	unsigned long progress;
	/* Threads: episodes, submitters, those that exit or unshare. */
	unsigned long episodes, threads, texits, unshares;
	/* Cancels of another thread's entries, and the entries they counted. */
	unsigned long xcancels, xcancelled;
	/* Children with entries in flight in shared memory, by their end. */
	unsigned long execs, xexits, xkills;
	/* Children that change credentials or root between submissions. */
	unsigned long credkids, setuids, chroots, probes_late, probes_total;
	/* Time spent in each of those kinds, and their submissions. */
	unsigned long ns_threads, ns_xkids, ns_credkids;
	unsigned long subs_threads;
	int cancel_supported;
	int finished;
	char msg[16384];
};

static struct report *rep;

/* Counters that several threads and children add to. */
static void bump(unsigned long *counter, unsigned long n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/* --- Errors an entry or a call must be refused with -------------------- */

#define E_INVAL		0x1U
#define E_OPNOTSUPP	0x2U
#define E_2BIG		0x4U
#define E_FAULT		0x8U

static unsigned int err_bit(int err)
{
	switch (err) {
	case EINVAL:
		return E_INVAL;
	case EOPNOTSUPP:
		return E_OPNOTSUPP;
	case E2BIG:
		return E_2BIG;
	case EFAULT:
		return E_FAULT;
	}
	return 0;
}

/* --- The calls ---------------------------------------------------------- */

/* How to make an argument. */
enum kind {
	K_ZERO, K_FD, K_DIRFD, K_PATH, K_BUF, K_LEN, K_CLEN, K_OFF, K_OFFP,
	K_IOV, K_IOVCNT, K_OFLAGS, K_MODE, K_HOW, K_HOWSIZE, K_FLAGS, K_ATFLAGS,
	K_RWF, K_WHENCE, K_TS, K_TS_NN, K_POLLFDS, K_NFDS, K_PTIMEOUT, K_SIGSET,
	K_SIGSETSIZE, K_CLOCK, K_TFLAGS, K_SOCKADDR, K_ADDRLEN, K_SOCKLENP,
	K_AFLAGS, K_MSGHDR, K_MSGFLAGS,
	/* Files: what changes them gets the fuzzer's own descriptors */
	K_OWNFD, K_ODIRFD, K_CHMODE, K_UID, K_GID, K_TIMES, K_AMODE,
	K_ACCFLAGS, K_LINKFLAGS, K_TARGET, K_FIFO, K_FIFOMODE, K_XNAME, K_XVAL,
	K_XSIZE, K_XFLAGS,
	/* Descriptors */
	K_NEWFD, K_DUPFLAGS, K_FGET, K_FSET, K_FSETARG, K_FSETFL, K_FLFLAGS,
	K_FREFUSED,
	K_CRFD, K_CRFLAGS, K_FDPAIR, K_PIPEFLAGS, K_COUNT, K_EFDFLAGS,
	K_EPFLAGS, K_EPOP, K_EPEVENT,
	/* Memory, futexes, children, signals, random bytes */
	K_MADDR, K_MLEN, K_MADVICE, K_FUTEX, K_FWAKE, K_FPI, K_FNR, K_FMASK,
	K_F2FLAGS, K_WOPTS, K_IDTYPE, K_WIDOPTS, K_PID, K_TID, K_NUL,
	K_SIGINFO, K_PIDFDFLAGS, K_PSSFLAGS, K_GRND,
	/* Sockets */
	K_UNIX, K_INET, K_STYPE, K_ITYPE, K_UPROTO, K_BACKLOG, K_SHUT,
	K_SLEVEL, K_SOPT, K_GLEVEL, K_GOPT, K_OPTVAL, K_OPTLEN,
};

/*
 * Arguments that never take an earlier result (fill_call() may still give
 * K_OWNFD and K_ODIRFD a descriptor openat() made in the scratch directory).
 */
static bool no_ref(unsigned int kind)
{
	switch (kind) {
	/*
	 * It could make the call wait for ever: poll's timeout, ppoll's
	 * timeout pointer, a CPU-time clock, a blocking socket, pipe or
	 * eventfd, O_NONBLOCK cleared, a futex op that waits.
	 */
	case K_PTIMEOUT:
	case K_TS_NN:
	case K_CLOCK:
	case K_AFLAGS:
	case K_STYPE:
	case K_ITYPE:
	case K_PIPEFLAGS:
	case K_EFDFLAGS:
	case K_FSETFL:
	case K_FLFLAGS:
	case K_FWAKE:
	case K_FPI:
	case K_FUTEX:
	/* It could act outside: a file, a descriptor, a process, a signal. */
	case K_OWNFD:
	case K_ODIRFD:
	case K_NEWFD:
	case K_FSET:
	case K_FSETARG:
	case K_CRFD:
	case K_TARGET:
	case K_FIFO:
	case K_FIFOMODE:
	case K_CHMODE:
	case K_UID:
	case K_GID:
	case K_MADDR:
	case K_MLEN:
	case K_MADVICE:
	case K_PID:
	case K_TID:
	case K_NUL:
	/* A family, a protocol or an option whose module would be loaded. */
	case K_UNIX:
	case K_INET:
	case K_UPROTO:
	case K_SLEVEL:
	case K_SOPT:
	case K_GLEVEL:
	case K_GOPT:
	/* The result model reads it (model_*()). */
	case K_FGET:
	case K_FREFUSED:
	case K_CRFLAGS:
	case K_WOPTS:
	case K_IDTYPE:
	case K_WIDOPTS:
	case K_SIGINFO:
		return true;
	}
	return false;
}

/* What a successful result may be. */
enum res {
	R_ZERO,		/* 0 */
	R_LEN1,		/* at most argument 1 */
	R_LEN2,		/* at most argument 2 */
	R_LEN3,		/* at most argument 3 */
	R_LEN4,		/* at most argument 4 */
	R_XLEN2,	/* at most argument 2, or XATTR_SIZE_MAX if it is 0 */
	R_XLEN3,	/* at most argument 3, or XATTR_SIZE_MAX if it is 0 */
	R_FD,		/* a descriptor */
	R_POS,		/* any non-negative value */
	R_NFDS,		/* at most argument 1 */
	R_RW,		/* at most one read or write */
};

struct slot;

/*
 * For a call whose arguments decide its result (or part of it): sets the
 * entry's want, and may make its arguments agree with each other.
 */
typedef void model_fn(struct slot *s, unsigned int i);

static model_fn model_close_range, model_eopnotsupp, model_fcntl_refused,
	model_pidfd_signal, model_kill, model_tkill, model_tgkill,
	model_madvise;

struct call {
	unsigned int nr;
	const char *name;
	unsigned char nargs;
	unsigned char res;
	unsigned char kind[6];
	model_fn *model;
};

/*
 * A call may have several rows, each with arguments of its own kinds
 * (fcntl() by command, futex() by op); find_call() gives the first.
 */
static const struct call calls[] = {
	{ __NR_read, "read", 3, R_LEN2, { K_FD, K_BUF, K_LEN } },
	{ __NR_write, "write", 3, R_LEN2, { K_FD, K_BUF, K_LEN } },
	{ __NR_pread64, "pread64", 4, R_LEN2, { K_FD, K_BUF, K_LEN, K_OFF } },
	{ __NR_pwrite64, "pwrite64", 4, R_LEN2, { K_FD, K_BUF, K_LEN, K_OFF } },
	{ __NR_readv, "readv", 3, R_RW, { K_FD, K_IOV, K_IOVCNT } },
	{ __NR_writev, "writev", 3, R_RW, { K_FD, K_IOV, K_IOVCNT } },
	{ __NR_preadv, "preadv", 5, R_RW,
	  { K_FD, K_IOV, K_IOVCNT, K_OFF, K_ZERO } },
	{ __NR_pwritev, "pwritev", 5, R_RW,
	  { K_FD, K_IOV, K_IOVCNT, K_OFF, K_ZERO } },
	{ __NR_preadv2, "preadv2", 6, R_RW,
	  { K_FD, K_IOV, K_IOVCNT, K_OFF, K_ZERO, K_RWF } },
	{ __NR_pwritev2, "pwritev2", 6, R_RW,
	  { K_FD, K_IOV, K_IOVCNT, K_OFF, K_ZERO, K_RWF } },
	{ __NR_openat, "openat", 4, R_FD, { K_DIRFD, K_PATH, K_OFLAGS, K_MODE } },
	{ __NR_openat2, "openat2", 4, R_FD,
	  { K_DIRFD, K_PATH, K_HOW, K_HOWSIZE } },
	{ __NR_close, "close", 1, R_ZERO, { K_FD } },
	{ __NR_renameat, "renameat", 4, R_ZERO,
	  { K_DIRFD, K_PATH, K_DIRFD, K_PATH } },
	{ __NR_renameat2, "renameat2", 5, R_ZERO,
	  { K_DIRFD, K_PATH, K_DIRFD, K_PATH, K_FLAGS } },
	{ __NR_unlinkat, "unlinkat", 3, R_ZERO, { K_DIRFD, K_PATH, K_ATFLAGS } },
	{ __NR_mkdirat, "mkdirat", 3, R_ZERO, { K_DIRFD, K_PATH, K_MODE } },
	{ __NR_fsync, "fsync", 1, R_ZERO, { K_FD } },
	{ __NR_fdatasync, "fdatasync", 1, R_ZERO, { K_FD } },
	{ __NR_sync_file_range, "sync_file_range", 4, R_ZERO,
	  { K_FD, K_OFF, K_CLEN, K_FLAGS } },
	{ __NR_statx, "statx", 5, R_ZERO,
	  { K_DIRFD, K_PATH, K_ATFLAGS, K_FLAGS, K_BUF } },
	{ __NR_newfstatat, "newfstatat", 4, R_ZERO,
	  { K_DIRFD, K_PATH, K_BUF, K_ATFLAGS } },
	{ __NR_fstat, "fstat", 2, R_ZERO, { K_FD, K_BUF } },
	{ __NR_lseek, "lseek", 3, R_POS, { K_FD, K_OFF, K_WHENCE } },
	{ __NR_getdents64, "getdents64", 3, R_LEN2, { K_FD, K_BUF, K_LEN } },
	{ __NR_readahead, "readahead", 3, R_ZERO, { K_FD, K_OFF, K_CLEN } },
	{ __NR_fadvise64, "fadvise64", 4, R_ZERO,
	  { K_FD, K_OFF, K_CLEN, K_FLAGS } },
	{ __NR_fallocate, "fallocate", 4, R_ZERO,
	  { K_FD, K_FLAGS, K_OFF, K_CLEN } },
	{ __NR_ftruncate, "ftruncate", 2, R_ZERO, { K_FD, K_OFF } },
	{ __NR_copy_file_range, "copy_file_range", 6, R_LEN4,
	  { K_FD, K_OFFP, K_FD, K_OFFP, K_CLEN, K_FLAGS } },
	{ __NR_sendfile, "sendfile", 4, R_LEN3, { K_FD, K_FD, K_OFFP, K_CLEN } },
	{ __NR_splice, "splice", 6, R_LEN4,
	  { K_FD, K_OFFP, K_FD, K_OFFP, K_CLEN, K_FLAGS } },
#ifdef __NR_poll
	{ __NR_poll, "poll", 3, R_NFDS, { K_POLLFDS, K_NFDS, K_PTIMEOUT } },
#endif
	{ __NR_ppoll, "ppoll", 5, R_NFDS,
	  { K_POLLFDS, K_NFDS, K_TS_NN, K_SIGSET, K_SIGSETSIZE } },
	{ __NR_nanosleep, "nanosleep", 2, R_ZERO, { K_TS, K_BUF } },
	{ __NR_clock_nanosleep, "clock_nanosleep", 4, R_ZERO,
	  { K_CLOCK, K_TFLAGS, K_TS, K_BUF } },
	{ __NR_accept4, "accept4", 4, R_FD,
	  { K_FD, K_BUF, K_SOCKLENP, K_AFLAGS } },
	{ __NR_connect, "connect", 3, R_ZERO, { K_FD, K_SOCKADDR, K_ADDRLEN } },
	{ __NR_sendto, "sendto", 6, R_LEN2,
	  { K_FD, K_BUF, K_LEN, K_MSGFLAGS, K_SOCKADDR, K_ADDRLEN } },
	/* A datagram longer than the buffer can report its whole length. */
	{ __NR_recvfrom, "recvfrom", 6, R_RW,
	  { K_FD, K_BUF, K_LEN, K_MSGFLAGS, K_BUF, K_SOCKLENP } },
	{ __NR_sendmsg, "sendmsg", 3, R_RW, { K_FD, K_MSGHDR, K_MSGFLAGS } },
	{ __NR_recvmsg, "recvmsg", 3, R_RW, { K_FD, K_MSGHDR, K_MSGFLAGS } },
	{ ASYNC_OP_FSYNC_RANGE, "fsync_range", 4, R_ZERO,
	  { K_FD, K_OFF, K_CLEN, K_FLAGS } },
	/* Names and attributes, changed only in the scratch directory */
	{ __NR_openat, "openat", 4, R_FD,
	  { K_ODIRFD, K_PATH, K_OFLAGS, K_MODE } },
	{ __NR_mknodat, "mknodat", 4, R_ZERO,
	  { K_ODIRFD, K_FIFO, K_FIFOMODE, K_ZERO } },
	{ __NR_linkat, "linkat", 5, R_ZERO,
	  { K_ODIRFD, K_PATH, K_ODIRFD, K_PATH, K_LINKFLAGS } },
	{ __NR_symlinkat, "symlinkat", 3, R_ZERO,
	  { K_TARGET, K_ODIRFD, K_PATH } },
	{ __NR_readlinkat, "readlinkat", 4, R_LEN3,
	  { K_DIRFD, K_PATH, K_BUF, K_LEN } },
	{ __NR_faccessat, "faccessat", 3, R_ZERO,
	  { K_DIRFD, K_PATH, K_AMODE } },
	{ __NR_faccessat2, "faccessat2", 4, R_ZERO,
	  { K_DIRFD, K_PATH, K_AMODE, K_ACCFLAGS } },
	{ __NR_fchmod, "fchmod", 2, R_ZERO, { K_OWNFD, K_CHMODE } },
	{ __NR_fchmodat, "fchmodat", 3, R_ZERO,
	  { K_ODIRFD, K_PATH, K_CHMODE } },
	{ __NR_fchmodat2, "fchmodat2", 4, R_ZERO,
	  { K_ODIRFD, K_PATH, K_CHMODE, K_ATFLAGS } },
	{ __NR_fchown, "fchown", 3, R_ZERO, { K_OWNFD, K_UID, K_GID } },
	{ __NR_fchownat, "fchownat", 5, R_ZERO,
	  { K_ODIRFD, K_PATH, K_UID, K_GID, K_ATFLAGS } },
	{ __NR_utimensat, "utimensat", 4, R_ZERO,
	  { K_ODIRFD, K_PATH, K_TIMES, K_ATFLAGS } },
	{ __NR_truncate, "truncate", 2, R_ZERO, { K_PATH, K_OFF } },
	{ __NR_statfs, "statfs", 2, R_ZERO, { K_PATH, K_BUF } },
	{ __NR_fstatfs, "fstatfs", 2, R_ZERO, { K_FD, K_BUF } },
	{ __NR_getcwd, "getcwd", 2, R_LEN1, { K_BUF, K_LEN } },
	/* Extended attributes, of files in the scratch directory */
	{ __NR_setxattr, "setxattr", 5, R_ZERO,
	  { K_PATH, K_XNAME, K_XVAL, K_XSIZE, K_XFLAGS } },
	{ __NR_lsetxattr, "lsetxattr", 5, R_ZERO,
	  { K_PATH, K_XNAME, K_XVAL, K_XSIZE, K_XFLAGS } },
	{ __NR_fsetxattr, "fsetxattr", 5, R_ZERO,
	  { K_OWNFD, K_XNAME, K_XVAL, K_XSIZE, K_XFLAGS } },
	{ __NR_getxattr, "getxattr", 4, R_XLEN3,
	  { K_PATH, K_XNAME, K_BUF, K_XSIZE } },
	{ __NR_lgetxattr, "lgetxattr", 4, R_XLEN3,
	  { K_PATH, K_XNAME, K_BUF, K_XSIZE } },
	{ __NR_fgetxattr, "fgetxattr", 4, R_XLEN3,
	  { K_FD, K_XNAME, K_BUF, K_XSIZE } },
	{ __NR_listxattr, "listxattr", 3, R_XLEN2, { K_PATH, K_BUF, K_XSIZE } },
	{ __NR_llistxattr, "llistxattr", 3, R_XLEN2,
	  { K_PATH, K_BUF, K_XSIZE } },
	{ __NR_flistxattr, "flistxattr", 3, R_XLEN2, { K_FD, K_BUF, K_XSIZE } },
	{ __NR_removexattr, "removexattr", 2, R_ZERO, { K_PATH, K_XNAME } },
	{ __NR_lremovexattr, "lremovexattr", 2, R_ZERO, { K_PATH, K_XNAME } },
	{ __NR_fremovexattr, "fremovexattr", 2, R_ZERO, { K_OWNFD, K_XNAME } },
	/* Descriptors */
	{ __NR_dup, "dup", 1, R_FD, { K_FD } },
	{ __NR_dup3, "dup3", 3, R_FD, { K_FD, K_NEWFD, K_DUPFLAGS } },
	{ __NR_fcntl, "fcntl", 3, R_POS, { K_FD, K_FGET, K_ZERO } },
	{ __NR_fcntl, "fcntl", 3, R_FD, { K_FD, K_FSET, K_FSETARG } },
	{ __NR_fcntl, "fcntl", 3, R_ZERO, { K_FD, K_FSETFL, K_FLFLAGS } },
	{ __NR_fcntl, "fcntl", 3, R_ZERO, { K_FD, K_FREFUSED, K_NUL },
	  model_fcntl_refused },
	{ __NR_close_range, "close_range", 3, R_ZERO,
	  { K_CRFD, K_CRFD, K_CRFLAGS }, model_close_range },
	{ __NR_pipe2, "pipe2", 2, R_ZERO, { K_FDPAIR, K_PIPEFLAGS } },
	{ __NR_eventfd2, "eventfd2", 2, R_FD, { K_COUNT, K_EFDFLAGS } },
	{ __NR_epoll_create1, "epoll_create1", 1, R_FD, { K_EPFLAGS } },
	{ __NR_epoll_ctl, "epoll_ctl", 4, R_ZERO,
	  { K_FD, K_EPOP, K_FD, K_EPEVENT } },
	{ __NR_pidfd_open, "pidfd_open", 2, R_FD, { K_PID, K_PIDFDFLAGS } },
	{ __NR_tee, "tee", 4, R_LEN2, { K_FD, K_FD, K_CLEN, K_FLAGS } },
	{ __NR_syncfs, "syncfs", 1, R_ZERO, { K_FD } },
	/* Memory, futexes, children, signals: only the fuzzer's own */
	{ __NR_madvise, "madvise", 3, R_ZERO, { K_MADDR, K_MLEN, K_MADVICE },
	  model_madvise },
	{ __NR_futex, "futex", 6, R_LEN2,
	  { K_FUTEX, K_FWAKE, K_FNR, K_ZERO, K_ZERO, K_ZERO } },
	/* A PI op never gets past the check, whatever else it is given. */
	{ __NR_futex, "futex", 6, R_ZERO,
	  { K_FUTEX, K_FPI, K_FNR, K_TS_NN, K_FUTEX, K_ZERO },
	  model_eopnotsupp },
	{ __NR_futex_wake, "futex_wake", 4, R_LEN2,
	  { K_FUTEX, K_FMASK, K_FNR, K_F2FLAGS } },
	{ __NR_wait4, "wait4", 4, R_ZERO, { K_PID, K_BUF, K_WOPTS, K_BUF },
	  model_eopnotsupp },
	{ __NR_waitid, "waitid", 5, R_ZERO,
	  { K_IDTYPE, K_ZERO, K_BUF, K_WIDOPTS, K_BUF }, model_eopnotsupp },
	{ __NR_kill, "kill", 2, R_ZERO, { K_PID, K_NUL }, model_kill },
	{ __NR_tkill, "tkill", 2, R_ZERO, { K_TID, K_NUL }, model_tkill },
	{ __NR_tgkill, "tgkill", 3, R_ZERO, { K_PID, K_TID, K_NUL },
	  model_tgkill },
	{ __NR_pidfd_send_signal, "pidfd_send_signal", 4, R_ZERO,
	  { K_FD, K_NUL, K_SIGINFO, K_PSSFLAGS }, model_pidfd_signal },
	{ __NR_getrandom, "getrandom", 3, R_LEN1, { K_BUF, K_LEN, K_GRND } },
	/* Sockets: AF_UNIX ones named in the scratch directory, and AF_INET */
	{ __NR_socket, "socket", 3, R_FD, { K_UNIX, K_STYPE, K_UPROTO } },
	{ __NR_socket, "socket", 3, R_FD, { K_INET, K_ITYPE, K_NUL } },
	{ __NR_socketpair, "socketpair", 4, R_ZERO,
	  { K_UNIX, K_STYPE, K_UPROTO, K_FDPAIR } },
	{ __NR_bind, "bind", 3, R_ZERO, { K_FD, K_SOCKADDR, K_ADDRLEN } },
	{ __NR_listen, "listen", 2, R_ZERO, { K_FD, K_BACKLOG } },
	{ __NR_getsockname, "getsockname", 3, R_ZERO,
	  { K_FD, K_BUF, K_SOCKLENP } },
	{ __NR_getpeername, "getpeername", 3, R_ZERO,
	  { K_FD, K_BUF, K_SOCKLENP } },
	{ __NR_shutdown, "shutdown", 2, R_ZERO, { K_FD, K_SHUT } },
	{ __NR_setsockopt, "setsockopt", 5, R_ZERO,
	  { K_FD, K_SLEVEL, K_SOPT, K_OPTVAL, K_OPTLEN } },
	/* Some protocols' options return a length. */
	{ __NR_getsockopt, "getsockopt", 5, R_POS,
	  { K_FD, K_GLEVEL, K_GOPT, K_BUF, K_SOCKLENP } },
#ifdef __x86_64__
	/* The older calls that only x86_64 has */
	{ __NR_dup2, "dup2", 2, R_FD, { K_FD, K_NEWFD } },
	{ __NR_access, "access", 2, R_ZERO, { K_PATH, K_AMODE } },
	{ __NR_stat, "stat", 2, R_ZERO, { K_PATH, K_BUF } },
	{ __NR_lstat, "lstat", 2, R_ZERO, { K_PATH, K_BUF } },
	{ __NR_readlink, "readlink", 3, R_LEN2, { K_PATH, K_BUF, K_LEN } },
	{ __NR_getdents, "getdents", 3, R_LEN2, { K_FD, K_BUF, K_LEN } },
#endif
};

#define NCALLS ARRAY_SIZE(calls)

static const struct call *find_call(unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < NCALLS; i++) {
		if (calls[i].nr == nr)
			return &calls[i];
	}
	return NULL;
}

/*
 * Every system call the kernel accepts (kernel/async_syscall/opdef.c), also
 * those the fuzzer does not make: any other number must be refused.
 */
static const unsigned int whitelist[] = {
	__NR_read, __NR_write, __NR_pread64, __NR_pwrite64, __NR_readv,
	__NR_writev, __NR_preadv, __NR_pwritev, __NR_preadv2, __NR_pwritev2,
	__NR_openat, __NR_openat2, __NR_open_by_handle_at, __NR_close,
	__NR_close_range, __NR_dup, __NR_dup3, __NR_fcntl, __NR_flock,
	__NR_pipe2, __NR_memfd_create, __NR_eventfd2, __NR_signalfd4,
	__NR_timerfd_create, __NR_timerfd_settime, __NR_timerfd_gettime,
	__NR_epoll_create1, __NR_epoll_ctl, __NR_inotify_init1,
	__NR_inotify_add_watch, __NR_inotify_rm_watch, __NR_fanotify_init,
	__NR_fanotify_mark, __NR_pidfd_open, __NR_pidfd_getfd,
	__NR_renameat, __NR_renameat2, __NR_unlinkat, __NR_mkdirat,
	__NR_mknodat, __NR_linkat, __NR_symlinkat, __NR_readlinkat,
	__NR_name_to_handle_at, __NR_getcwd, __NR_chdir, __NR_fchdir,
	__NR_umask,
	__NR_statx, __NR_newfstatat, __NR_fstat, __NR_statfs, __NR_fstatfs,
	__NR_faccessat, __NR_faccessat2, __NR_fchmod, __NR_fchmodat,
	__NR_fchmodat2, __NR_fchown, __NR_fchownat, __NR_utimensat,
	__NR_truncate, __NR_ftruncate, __NR_lseek, __NR_getdents64,
	__NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_getxattr,
	__NR_lgetxattr, __NR_fgetxattr, __NR_listxattr, __NR_llistxattr,
	__NR_flistxattr, __NR_removexattr, __NR_lremovexattr,
	__NR_fremovexattr,
	__NR_fsync, __NR_fdatasync, __NR_sync_file_range, __NR_syncfs,
	__NR_sync, __NR_readahead, __NR_fadvise64, __NR_fallocate,
	__NR_cachestat, __NR_copy_file_range, __NR_sendfile, __NR_splice,
	__NR_tee,
	__NR_munmap, __NR_mremap, __NR_madvise, __NR_process_madvise,
	__NR_msync, __NR_mincore, __NR_mlock, __NR_mlock2, __NR_munlock,
	__NR_mlockall, __NR_munlockall, __NR_process_vm_readv,
	__NR_process_vm_writev,
	__NR_ppoll, __NR_pselect6, __NR_epoll_pwait, __NR_epoll_pwait2,
	__NR_nanosleep, __NR_clock_nanosleep, __NR_futex, __NR_futex_wait,
	__NR_futex_waitv, __NR_futex_wake, __NR_futex_requeue, __NR_waitid,
	__NR_wait4, __NR_io_getevents, __NR_io_pgetevents, __NR_mq_open,
	__NR_mq_unlink, __NR_mq_getsetattr, __NR_mq_timedsend,
	__NR_mq_timedreceive, __NR_getrandom,
	__NR_kill, __NR_tkill, __NR_tgkill, __NR_pidfd_send_signal,
	__NR_socket, __NR_socketpair, __NR_bind, __NR_listen, __NR_accept,
	__NR_accept4,
	__NR_connect, __NR_shutdown, __NR_getsockname, __NR_getpeername,
	__NR_setsockopt, __NR_getsockopt, __NR_sendto, __NR_recvfrom,
	__NR_sendmsg, __NR_recvmsg, __NR_sendmmsg, __NR_recvmmsg,
#ifdef __x86_64__
	__NR_open, __NR_creat, __NR_stat, __NR_lstat, __NR_access,
	__NR_getdents, __NR_rename, __NR_mkdir, __NR_rmdir, __NR_mknod,
	__NR_link, __NR_unlink, __NR_symlink, __NR_readlink, __NR_chmod,
	__NR_chown, __NR_lchown, __NR_utime, __NR_utimes, __NR_futimesat,
	__NR_dup2, __NR_pipe, __NR_eventfd, __NR_signalfd, __NR_epoll_create,
	__NR_inotify_init, __NR_poll, __NR_select, __NR_epoll_wait,
#endif
};

/* Filled from whitelist[] by check_tables(). */
static bool accepted[NR_SYSCALLS];

/*
 * Calls the kernel knows and must refuse, with every argument 0: one or
 * more of each class opdef.c refuses.
 */
static const unsigned int refused[] = {
	/* They do not return, or they make tasks. */
	__NR_exit, __NR_exit_group, __NR_execve, __NR_execveat,
	__NR_rt_sigreturn, __NR_clone, __NR_clone3,
	/* They act on the calling thread. */
	__NR_rt_sigprocmask, __NR_rt_sigtimedwait, __NR_rt_sigsuspend,
	__NR_sigaltstack, __NR_set_tid_address, __NR_set_robust_list,
	__NR_get_robust_list, __NR_rseq, __NR_unshare, __NR_setns,
	__NR_setuid, __NR_setresuid, __NR_capset, __NR_personality,
	__NR_prctl, __NR_sched_setaffinity, __NR_set_mempolicy, __NR_gettid,
	__NR_getcpu,
	/* The rest of their classes. */
	__NR_mmap, __NR_mprotect, __NR_pkey_mprotect, __NR_ioctl, __NR_ptrace,
	__NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo, __NR_semop,
	__NR_semtimedop, __NR_async_submit,
	/* Not shown safe and useful yet. */
	__NR_getpid, __NR_getuid, __NR_reboot, __NR_mount, __NR_init_module,
	__NR_bpf, __NR_keyctl,
#ifdef __x86_64__
	__NR_fork, __NR_vfork, __NR_arch_prctl,
#endif
};

/* Errors for number @nr alone: 0 if it is on the whitelist. */
static unsigned int nr_errs(unsigned int nr)
{
	if (nr < NR_SYSCALLS ? accepted[nr] : !!find_call(nr))
		return 0;
	/* The guide says EINVAL for "not a system call"; accept both there. */
	if ((nr >= GAP_FIRST && nr < GAP_END) ||
	    (nr >= GAP2_FIRST && nr < GAP2_END))
		return E_OPNOTSUPP | E_INVAL;
	if (nr < NR_SYSCALLS)
		return E_OPNOTSUPP;
	return E_INVAL;
}

/* --- Memory ------------------------------------------------------------- */

/*
 * A slot holds one submission: its entries end at a guard page, so that a
 * count past them faults; the kernel only reads the read-only arena (made
 * read-only once built, so no entry can overwrite a timespec another one is
 * about to read); it writes into the read-write arena (pollfds, msghdrs,
 * lengths, offsets) and the data buffer.  Guard pages all around.
 */
struct emeta {
	int call;		/* index in calls[], -1 off the whitelist */
	bool touched;		/* a cancel, or the death of its process, covered it */
	int want;		/* WANT_* or a negative errno: the result it must have */
};

/* What an entry of a probe, or of a modelled call, must end with. */
#define WANT_ANY		0
#define WANT_OK		1	/* success */
#define WANT_OK_ENOENT	2	/* success or -ENOENT */

/* A cancel that covered entries of a slot's submission, for the report. */
struct cancel_log {
	unsigned long subs;	/* the canceller's submission counter then */
	unsigned int a, b;	/* entries [a, b) */
	unsigned int in_flight;	/* of them, not done before the call */
	long ret;
	const char *by;		/* NULL: the thread that submitted it */
};

#define MAX_CANCEL_LOG	8

/*
 * What a cancel from another thread may rely on: the owner does not build
 * the slot again while the slot is pinned, and a pin taken while the slot
 * is idle is dropped unused (both sides use sequentially consistent
 * atomics, so one of them sees the other).
 */
enum { S_IDLE, S_SUBMITTING, S_BUSY };

/* How far the child of a shared slot got, for the parent's checks. */
enum { X_NONE, X_SUBMITTING, X_RETURNED };

struct slot {
	bool busy;
	unsigned long id;
	char *ents_end, *ents, *ro, *rw, *data;
	size_t ro_used, rw_used, esize;
	unsigned int n;
	int64_t since;
	struct emeta meta[MAX_N];
	struct cancel_log cancels[MAX_CANCEL_LOG];
	unsigned int ncancels;
	char *map;		/* its mapping */
	int state, pins;
	bool probe;		/* a credentials probe not counted yet */
	char where[64];		/* who submitted it, in what context */
	/* A slot in memory shared with a child: the child's call. */
	int xstate, xerr;
	unsigned int xflags;
	long xret;
};

#define MAX_THREADS	4
#define TSLOTS		8
#define NXSLOTS		2

static struct slot main_slots[NSLOTS];
static struct slot thread_slots[MAX_THREADS][TSLOTS];
/* Shared with the children that exec, exit or are killed. */
static struct slot *xslots;
/* The slots of the calling thread. */
static __thread struct slot *slots;
static __thread unsigned int nslots;
/* What the calling thread is, for the report: "main thread", ... */
static __thread char where[64];
static char *ro_page, *unmapped;
static long fd_limit;

static struct async_syscall *ent(const struct slot *s, unsigned int i)
{
	return (void *)(s->ents + (size_t)i * s->esize);
}

#define SLOT_PAGES	(1 + ENT_PAGES + 1 + RO_PAGES + 1 + RW_PAGES + 1 + \
			 DATA_PAGES + 1)

static char *map_slot_memory(struct slot *s, int share)
{
	char *m = mmap(NULL, SLOT_PAGES * PAGE, PROT_NONE,
		       share | MAP_ANONYMOUS, -1, 0);
	char *p = m;

	if (m == MAP_FAILED)
		return NULL;
	s->map = m;
	p += PAGE;
	mprotect(p, ENT_PAGES * PAGE, PROT_READ | PROT_WRITE);
	s->ents_end = p + ENT_PAGES * PAGE;
	p = s->ents_end + PAGE;
	s->ro = p;
	p += (RO_PAGES + 1) * PAGE;
	s->rw = p;
	mprotect(s->rw, RW_PAGES * PAGE, PROT_READ | PROT_WRITE);
	p += (RW_PAGES + 1) * PAGE;
	s->data = p;
	mprotect(s->data, DATA_SIZE, PROT_READ | PROT_WRITE);
	return m;
}

static void *arena_alloc(char *base, size_t *used, size_t size, size_t len)
{
	size_t off = (*used + 7) & ~7UL;

	if (off + len > size)
		return NULL;
	*used = off + len;
	return base + off;
}

static void *ro_alloc(struct slot *s, size_t len)
{
	return arena_alloc(s->ro, &s->ro_used, RO_PAGES * PAGE, len);
}

static void *rw_alloc(struct slot *s, size_t len)
{
	return arena_alloc(s->rw, &s->rw_used, RW_PAGES * PAGE, len);
}

/* A pointer that does not work, or that is off from @good. */
static uint64_t bad_ptr(uint64_t good)
{
	static const uint64_t small[] = { 1, 16, 4095, 4096 };

	switch (rnd(7)) {
	case 0:
		return 0;
	case 1:
		return PICK(small);
	case 2:
		return KERNEL_ADDR + rnd(PAGE);
	case 3:
		return (uintptr_t)unmapped + rnd(PAGE);
	case 4:
		return (uintptr_t)ro_page + rnd(64);
	case 5:
		if (good)
			return good + 1 + rnd(7);
		return 0;
	default:
		return (1ULL << 63) | rnd64();
	}
}

/* @good most of the time, else a bad pointer. */
static uint64_t ptr_or_bad(void *good)
{
	if (good && chance(80))
		return (uintptr_t)good;
	return bad_ptr((uintptr_t)good);
}

/* --- Descriptors and names ------------------------------------------------ */

static int pool[32], npool, dirfd_, subfd;
/* A file whose pages it drops now and then: reads of it miss the cache. */
static int cold_fd = -1;

static const char *const names[] = {
	"a", "b", "c", "dd", "e", "f", "sk", "new", "", ".", "zz",
};

/*
 * Names no other entry reaches, neither a name nor a suffix of one: FIFOs
 * (an open() of one would wait for a writer) and sockets bound by entries.
 */
static const char *const fifo_names[] = { "p", "q" };
static const char *const sock_names[] = { "sk", "s1", "s2" };

/*
 * The fuzzer's own descriptors, at the top of the table: neither a random
 * close or dup3() (any_fd()) nor an entry's new file reaches them, so the
 * calls that change a file get these and act in the scratch directory,
 * never on /dev/null.  The first ones are directories.
 */
struct own_fd {
	int fd;
	dev_t dev;
	ino_t ino;
};

static const struct {
	const char *name;
	int flags;
} own_files[NOWN] = {
	{ ".", O_RDONLY | O_DIRECTORY }, { "dd", O_RDONLY | O_DIRECTORY },
	{ "a", O_RDWR }, { "e", O_RDONLY }, { "b", O_PATH },
};

#define NOWN_DIRS	2

static struct own_fd own[NOWN];

static void pool_add(int fd)
{
	if (fd >= 0 && npool < (int)ARRAY_SIZE(pool))
		pool[npool++] = fd;
}

static void make_file(const char *name, int flags, size_t size)
{
	char buf[4096];
	int fd;

	fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		memset(buf, name[0], sizeof(buf));
		write(fd, buf, size < sizeof(buf) ? size : sizeof(buf));
		close(fd);
	}
	pool_add(open(name, flags | O_CLOEXEC));
}

/*
 * A read-only file of COLD_SIZE bytes, written back, so that its pages
 * can be dropped: a read of it then waits for the disk, or parks.
 */
static void make_cold_file(const char *name)
{
	char buf[4096];
	int fd, i;

	cold_fd = -1;
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	memset(buf, name[0], sizeof(buf));
	for (i = 0; i < COLD_SIZE / (int)sizeof(buf); i++)
		write(fd, buf, sizeof(buf));
	fsync(fd);
	close(fd);
	cold_fd = open(name, O_RDONLY | O_CLOEXEC);
	pool_add(cold_fd);
}

/* The top of the descriptor table, where top_fd() counts from. */
static int fd_top(void)
{
	return fd_limit < 1024 ? fd_limit : 1024;
}

/*
 * Moves @fd to the @k-th number from the top of the table, where neither
 * a random close (any_fd()) nor an entry's new file reaches it.
 */
static int top_fd(int fd, int k)
{
	int top = fd_top() - k;

	if (fd < 0)
		return fd;
	top = dup3(fd, top, O_CLOEXEC);
	close(fd);
	return top;
}

/* Own descriptor @k, or -1 if something else took its number since. */
static int64_t own_get(unsigned int k)
{
	struct stat st;

	if (own[k].fd < 0 || fstat(own[k].fd, &st) ||
	    st.st_dev != own[k].dev || st.st_ino != own[k].ino)
		return -1;
	return own[k].fd;
}

static bool is_own(int fd)
{
	unsigned int k;

	for (k = 0; k < NOWN; k++) {
		if (own[k].fd >= 0 && own[k].fd == fd)
			return true;
	}
	return false;
}

/*
 * The own descriptors, and those only close_range() closes: with a table
 * too small to keep them clear of the pool and of any_fd(), none.
 */
static void build_own(void)
{
	struct stat st;
	unsigned int k;
	int fd;

	for (k = 0; k < NOWN; k++) {
		own[k].fd = -1;
		if (fd_top() < 128)
			continue;
		fd = top_fd(open(own_files[k].name,
				 own_files[k].flags | O_CLOEXEC), OWN_TOP + k);
		if (fd >= 0 && !fstat(fd, &st))
			own[k] = (struct own_fd){ fd, st.st_dev, st.st_ino };
		else if (fd >= 0)
			close(fd);
	}
	for (k = 0; k < NVICTIMS && fd_top() >= 128; k++)
		top_fd(open(".", O_PATH | O_CLOEXEC), VICTIM_TOP + k);
}

/*
 * Every descriptor the fuzzer has: files in its directory, /dev/null, a
 * memfd, and non-blocking pipes and sockets; and its own at the top.
 */
static void build_pool(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = "sk" };
	char path[16];
	int p[2], fd;
	unsigned int k;

	npool = 0;
	/* FIFOs and sockets entries made: no entry unlinks them by name. */
	for (k = 0; k < ARRAY_SIZE(fifo_names) + ARRAY_SIZE(sock_names); k++) {
		const char *name = k < ARRAY_SIZE(fifo_names) ? fifo_names[k] :
				   sock_names[k - ARRAY_SIZE(fifo_names)];

		unlink(name);
		snprintf(path, sizeof(path), "dd/%s", name);
		unlink(path);
	}
	dirfd_ = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pool_add(dirfd_);
	mkdir("dd", 0755);
	subfd = open("dd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pool_add(subfd);
	make_file("a", O_RDWR, 4096);
	make_file("b", O_RDWR, 100);
	make_file("c", O_RDWR, 0);
	make_file("e", O_RDONLY, 4096);
	make_file("f", O_WRONLY | O_APPEND, 10);
	make_cold_file("g");
	pool_add(open("/dev/null", O_RDWR | O_CLOEXEC));
	fd = memfd_create("async_fuzz", MFD_CLOEXEC);
	if (fd >= 0 && ftruncate(fd, 8192) == 0)
		pool_add(fd);
	for (int i = 0; i < 2; i++) {
		if (!pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
			pool_add(p[0]);
			pool_add(p[1]);
		}
	}
	if (!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, p)) {
		pool_add(p[0]);
		pool_add(p[1]);
	}
	if (!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, p)) {
		pool_add(p[0]);
		pool_add(p[1]);
	}
	unlink("sk");
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&sun, sizeof(sun)) &&
	    !listen(fd, 8))
		pool_add(fd);
	pool_add(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	pool_add(socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	build_own();
}

static uint64_t any_fd(void)
{
	static const int64_t bad[] = { -1, 9999, 0x7fffffff, AT_FDCWD };

	if (npool && chance(80))
		return pool[rnd(npool)];
	if (chance(50))
		return rnd(40);
	return PICK(bad);
}

/* --- Arguments ------------------------------------------------------------ */

static uint64_t gen_ts(struct slot *s, bool null_ok)
{
	static const long nsec[] = { 0, 1000, 1000000, 10000000 };
	struct timespec *ts = ro_alloc(s, sizeof(*ts) + 8);
	uint64_t p;

	if (ts) {
		ts->tv_sec = 0;
		ts->tv_nsec = PICK(nsec);
		if (chance(10))
			ts->tv_nsec = 1000000000;
		else if (chance(5))
			ts->tv_sec = -1;
		/* Read misaligned, the nanoseconds turn negative: EINVAL. */
		memset(ts + 1, 0xff, 8);
	}
	p = ptr_or_bad(ts);
	return p || null_ok ? p : 1;
}

static uint64_t gen_iov(struct slot *s)
{
	static const size_t lens[] = { 0, 1, 100, 4096, 65536 };
	struct iovec *iov = ro_alloc(s, 8 * sizeof(*iov));
	int i;

	for (i = 0; iov && i < 8; i++) {
		iov[i].iov_base = s->data + (chance(50) ? 0 : rnd(DATA_SIZE));
		iov[i].iov_len = PICK(lens);
	}
	return ptr_or_bad(iov);
}

static uint64_t gen_pollfds(struct slot *s)
{
	struct pollfd *pfd = rw_alloc(s, 8 * sizeof(*pfd));
	int i;

	for (i = 0; pfd && i < 8; i++) {
		pfd[i].fd = any_fd();
		pfd[i].events = chance(80) ? POLLIN | POLLOUT : rnd(0x10000);
		pfd[i].revents = 0;
	}
	return ptr_or_bad(pfd);
}

static uint64_t gen_sockaddr(struct slot *s)
{
	struct sockaddr_storage *ss = ro_alloc(s, sizeof(*ss));
	struct sockaddr_un *sun = (void *)ss;
	struct sockaddr_in *sin = (void *)ss;

	if (!ss)
		return bad_ptr(0);
	memset(ss, 0, sizeof(*ss));
	switch (rnd(4)) {
	case 0:
		/* The pool's listener, or what an entry bound. */
		sun->sun_family = AF_UNIX;
		snprintf(sun->sun_path, sizeof(sun->sun_path), "%s",
			 PICK(sock_names));
		break;
	case 1:
		sin->sin_family = AF_INET;
		sin->sin_port = htons(1 + rnd(65535));
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		break;
	case 2:
		sun->sun_family = AF_UNIX;
		/* Abstract names: nothing on the file system. */
		for (int i = 1; i < 8; i++)
			sun->sun_path[i] = 'a' + rnd(26);
		break;
	default:
		ss->ss_family = rnd(64);
		break;
	}
	return ptr_or_bad(ss);
}

static uint64_t gen_msghdr(struct slot *s)
{
	static const size_t namelens[] = { 0, 16, sizeof(struct sockaddr_un) };
	static const size_t ctllens[] = { 0, 16, 64, 4096 };
	struct msghdr *mh = rw_alloc(s, sizeof(*mh));
	struct cmsghdr *cm;
	int *fds;

	if (!mh)
		return bad_ptr(0);
	memset(mh, 0, sizeof(*mh));
	if (chance(30)) {
		mh->msg_name = (void *)(uintptr_t)gen_sockaddr(s);
		mh->msg_namelen = PICK(namelens);
	}
	mh->msg_iov = (void *)(uintptr_t)gen_iov(s);
	mh->msg_iovlen = chance(90) ? rnd(9) : 1025;
	if (chance(30)) {
		/* Pass two of our descriptors, or receive into the buffer. */
		cm = ro_alloc(s, CMSG_SPACE(2 * sizeof(int)));
		if (cm && chance(50)) {
			cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			fds = (int *)CMSG_DATA(cm);
			fds[0] = any_fd();
			fds[1] = any_fd();
			mh->msg_control = cm;
			mh->msg_controllen = CMSG_SPACE(2 * sizeof(int));
		} else {
			mh->msg_control = s->data + rnd(DATA_SIZE);
			mh->msg_controllen = PICK(ctllens);
		}
	}
	return ptr_or_bad(mh);
}

static uint64_t gen_how(struct slot *s)
{
	struct open_how *how = ro_alloc(s, 64);

	if (!how)
		return bad_ptr(0);
	memset(how, 0, 64);
	how->flags = rnd(4) | (rnd64() & (O_CREAT | O_EXCL | O_TRUNC | O_APPEND |
					  O_NONBLOCK | O_DIRECTORY | O_CLOEXEC |
					  O_PATH | O_NOFOLLOW));
	if (chance(5))
		how->flags |= 1ULL << (32 + rnd(32));
	if (how->flags & O_CREAT || chance(5))
		how->mode = chance(90) ? 0644 : rnd(0x10000);
	how->resolve = rnd64() & 0x3f;
	if (chance(5))
		how->resolve |= 1ULL << rnd(64);
	/* Bytes past struct open_how: zero, or not, for a larger size. */
	if (chance(20))
		((char *)how)[sizeof(*how) + rnd(64 - sizeof(*how))] = 1;
	return ptr_or_bad(how);
}

/* utimensat()'s two times: now, omitted, given, or bad nanoseconds. */
static uint64_t gen_times(struct slot *s)
{
	static const long nsec[] = {
		0, 1, 999999999, UTIME_NOW, UTIME_OMIT, 1000000000,
	};
	struct timespec *ts;
	int i;

	if (chance(20))
		return 0;
	ts = ro_alloc(s, 2 * sizeof(*ts));
	for (i = 0; ts && i < 2; i++) {
		ts[i].tv_sec = chance(50) ? 0 : rnd64() & 0xffffffff;
		ts[i].tv_nsec = PICK(nsec);
	}
	return ptr_or_bad(ts);
}

static uint64_t gen_epevent(struct slot *s)
{
	static const uint32_t events[] = {
		EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE, EPOLLRDHUP, EPOLLPRI,
		EPOLLWAKEUP,
	};
	struct epoll_event *ev = ro_alloc(s, sizeof(*ev));

	if (!ev)
		return bad_ptr(0);
	ev->events = EPOLLIN | EPOLLOUT;
	if (chance(30))
		ev->events |= PICK(events);
	if (chance(5))
		ev->events = rnd64();
	ev->data.u64 = rnd64();
	return ptr_or_bad(ev);
}

/* A siginfo for pidfd_send_signal(): any non-NULL one is refused. */
static uint64_t gen_siginfo(struct slot *s)
{
	siginfo_t *si;

	if (chance(50))
		return 0;
	si = ro_alloc(s, sizeof(*si));
	if (si) {
		memset(si, 0, sizeof(*si));
		si->si_code = SI_QUEUE;
	}
	return ptr_or_bad(si);
}

/* An extended attribute name longer than XATTR_NAME_MAX: ERANGE. */
static char xname_long[XATTR_NAME_MAX + 16];

/*
 * Names of extended attributes: the "user." namespace mostly, "trusted."
 * (root only), and names a namespace does not take.  Never "security.":
 * what it holds is the security modules', such as file capabilities.
 */
static const char *const xnames[] = {
	"user.a", "user.b", "user.async_fuzz", "trusted.a", "user.", "",
	"nonamespace", xname_long,
};

/* Options of SOL_SOCKET: none that lingers, times out or loads a module. */
static const uint64_t sockopts[] = {
	SO_DEBUG, SO_REUSEADDR, SO_KEEPALIVE, SO_DONTROUTE, SO_BROADCAST,
	SO_SNDBUF, SO_RCVBUF, SO_OOBINLINE, SO_PRIORITY, SO_PASSCRED,
	SO_RCVLOWAT, SO_TIMESTAMP, SO_PASSSEC, SO_MARK, SO_RXQ_OVFL,
	SO_PEEK_OFF, SO_ZEROCOPY, SO_REUSEPORT, SO_INCOMING_CPU, SO_TYPE,
	SO_ERROR, SO_PEERCRED,
};

/* The range close_range() gets: the victims', below the own ones. */
static uint64_t gen_crfd(void)
{
	int top = fd_top();

	if (top < 128)
		return ~0U;	/* nothing there */
	return top - CR_FIRST_TOP + rnd(CR_FIRST_TOP - CR_LAST_TOP + 1);
}

static uint64_t gen_arg(struct slot *s, unsigned int kind)
{
	static const uint64_t lens[] = {
		0, 1, 7, 512, 4096, 65536, 1 << 20, 0x7fffffff, ~0ULL,
	};
	static const uint64_t clens[] = { 0, 1, 4096, 65536 };
	static const uint64_t offs[] = {
		0, 1, 4095, 4096, 1 << 20, ~0ULL, 1ULL << 62,
	};
	static const uint64_t modes[] = { 0, 0600, 0644, 0777, 07777 };
	static const uint64_t howsizes[] = {
		sizeof(struct open_how), 16, 32, 64, 4096,
	};
	static const uint64_t rwf[] = {
		0, RWF_HIPRI, RWF_DSYNC, RWF_SYNC, RWF_NOWAIT, RWF_APPEND,
	};
	static const uint64_t clocks[] = {
		CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME,
		CLOCK_MONOTONIC_COARSE, CLOCK_TAI, 99, 1000,
	};
	static const uint64_t addrlens[] = {
		0, 3, 16, sizeof(struct sockaddr_un), 1 << 20,
	};
	static const uint64_t oflags[] = {
		O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_NONBLOCK, O_DIRECTORY,
		O_NOFOLLOW, O_CLOEXEC, O_PATH, O_TMPFILE, O_DIRECT, O_SYNC,
		O_DSYNC, O_NOATIME, O_NOCTTY,
	};
	static const uint64_t atflags[] = {
		AT_SYMLINK_NOFOLLOW, AT_REMOVEDIR, AT_EMPTY_PATH,
		AT_NO_AUTOMOUNT, AT_STATX_FORCE_SYNC, AT_STATX_DONT_SYNC,
	};
	static const uint64_t msgflags[] = {
		MSG_DONTWAIT, MSG_PEEK, MSG_TRUNC, MSG_WAITALL, MSG_NOSIGNAL,
		MSG_OOB, MSG_MORE, MSG_CMSG_CLOEXEC,
	};
	uint64_t v = 0, *off;
	int *len;
	unsigned int i;

	switch (kind) {
	case K_ZERO:
		return chance(95) ? 0 : rnd64();
	case K_FD:
		return any_fd();
	case K_DIRFD:
		switch (rnd(6)) {
		case 0:
		case 1:
			return dirfd_;
		case 2:
			return subfd;
		case 3:
			return (uint64_t)AT_FDCWD;
		default:
			return any_fd();
		}
	case K_PATH:
	case K_TARGET:
		/* A symlink's target too: relative, in the link's directory. */
		i = rnd(ARRAY_SIZE(names));
		if (chance(80))
			return (uintptr_t)names[i];
		if (chance(50) && names[i][0])
			/* A suffix of a name is a name: no '/' in any. */
			return (uintptr_t)names[i] + 1;
		return bad_ptr(0);
	case K_BUF:
		return ptr_or_bad(s->data + (chance(50) ? 0 : rnd(DATA_SIZE)));
	case K_LEN:
		return chance(20) ? rnd(1024) * 8 : PICK(lens);
	case K_CLEN:
		return chance(30) ? rnd(65536) : PICK(clens);
	case K_OFF:
		return chance(20) ? rnd(1 << 20) : PICK(offs);
	case K_OFFP:
		if (chance(40))
			return 0;
		off = rw_alloc(s, sizeof(*off));
		if (off)
			*off = chance(20) ? rnd(1 << 20) : PICK(offs);
		return ptr_or_bad(off);
	case K_IOV:
		return gen_iov(s);
	case K_IOVCNT:
		return chance(90) ? rnd(9) : PICK(((const uint64_t[]){
			1024, 1025, ~0ULL }));
	case K_OFLAGS:
		if (chance(5))
			return rnd64() & 0xffffffff;
		v = rnd(4);
		for (i = rnd(4); i; i--)
			v |= PICK(oflags);
		return v;
	case K_MODE:
		return chance(90) ? PICK(modes) : rnd(0x10000);
	case K_HOW:
		return gen_how(s);
	case K_HOWSIZE:
		return PICK(howsizes);
	case K_FLAGS:
		return chance(80) ? rnd(8) : rnd64() & 0xffffffff;
	case K_ATFLAGS:
		if (chance(70))
			return 0;
		return chance(90) ? PICK(atflags) : rnd64() & 0xffffffff;
	case K_RWF:
		return chance(90) ? PICK(rwf) : rnd64() & 0xffffffff;
	case K_WHENCE:
		return rnd(7);
	case K_TS:
		return gen_ts(s, true);
	case K_TS_NN:
		return gen_ts(s, false);
	case K_POLLFDS:
		return gen_pollfds(s);
	case K_NFDS:
		return chance(95) ? rnd(9) : 1 << 20;
	case K_PTIMEOUT:
		return rnd(11);
	case K_SIGSET:
		if (chance(30))
			return 0;
		off = ro_alloc(s, 8);
		if (off)
			*off = rnd64();
		return ptr_or_bad(off);
	case K_SIGSETSIZE:
		return chance(90) ? 8 : rnd(130);
	case K_CLOCK:
		return PICK(clocks);
	case K_TFLAGS:
		return chance(50) ? 0 : chance(80) ? TIMER_ABSTIME : rnd(16);
	case K_SOCKADDR:
		return gen_sockaddr(s);
	case K_ADDRLEN:
		return PICK(addrlens);
	case K_SOCKLENP:
		len = rw_alloc(s, sizeof(*len));
		if (len)
			*len = PICK(((const int[]){ 0, 16, 110, 128, -1 }));
		return ptr_or_bad(len);
	case K_AFLAGS:
		/* Never without SOCK_NONBLOCK: a blocking socket could hang us. */
		return SOCK_NONBLOCK | (chance(50) ? SOCK_CLOEXEC : 0) |
		       (chance(5) ? 1 << rnd(31) : 0);
	case K_MSGHDR:
		return gen_msghdr(s);
	case K_MSGFLAGS:
		v = 0;
		for (i = rnd(3); i; i--)
			v |= PICK(msgflags);
		return chance(95) ? v : rnd64() & 0xffffffff;
	case K_OWNFD:
		if (chance(90))
			return own_get(rnd(NOWN));
		return PICK(((const int64_t[]){ -1, 9999, AT_FDCWD }));
	case K_ODIRFD:
		switch (rnd(10)) {
		case 0:
		case 1:
		case 2:
		case 3:
			return (uint64_t)AT_FDCWD;
		case 4:
		case 5:
		case 6:
		case 7:
			return own_get(rnd(NOWN_DIRS));
		case 8:
			/* ENOTDIR, or the file itself with AT_EMPTY_PATH. */
			return own_get(NOWN_DIRS + rnd(NOWN - NOWN_DIRS));
		default:
			return PICK(((const int64_t[]){ -1, 9999 }));
		}
	case K_CHMODE:
		/*
		 * The owner keeps every right, so that the directory stays
		 * usable and removable without root; no set-user-ID file.
		 */
		return 0700 | (rnd64() & 03077);
	case K_UID:
		return chance(50) ? geteuid() : (uint64_t)-1;
	case K_GID:
		return chance(50) ? getegid() : (uint64_t)-1;
	case K_TIMES:
		return gen_times(s);
	case K_AMODE:
		return chance(90) ? rnd(8) : rnd64() & 0xffffffff;
	case K_ACCFLAGS:
		if (chance(60))
			return 0;
		return chance(90) ? PICK(((const uint64_t[]){
			AT_EACCESS, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH })) :
			rnd64() & 0xffffffff;
	case K_LINKFLAGS:
		if (chance(60))
			return 0;
		return chance(90) ? PICK(((const uint64_t[]){
			AT_SYMLINK_FOLLOW, AT_EMPTY_PATH })) :
			rnd64() & 0xffffffff;
	case K_FIFO:
		return chance(90) ? (uintptr_t)PICK(fifo_names) : bad_ptr(0);
	case K_FIFOMODE:
		/* S_IFMT is no type at all: EINVAL. */
		v = chance(90) ? S_IFIFO : S_IFMT;
		return v | 0600 | (rnd64() & 0177);
	case K_XNAME:
		if (chance(5))
			return bad_ptr(0);
		return (uintptr_t)(chance(80) ? xnames[rnd(3)] : PICK(xnames));
	case K_XVAL:
		return ptr_or_bad(s->data + (chance(70) ? 0 : rnd(DATA_SIZE)));
	case K_XSIZE:
		return chance(20) ? rnd(256) : PICK(((const uint64_t[]){
			0, 1, 8, 255, 4096, XATTR_SIZE_MAX, XATTR_SIZE_MAX + 1,
			~0ULL }));
	case K_XFLAGS:
		if (chance(60))
			return 0;
		return chance(90) ? PICK(((const uint64_t[]){
			XATTR_CREATE, XATTR_REPLACE, 3 })) :
			rnd64() & 0xffffffff;
	case K_NEWFD:
		return any_fd();
	case K_DUPFLAGS:
		if (chance(50))
			return 0;
		return chance(80) ? O_CLOEXEC : 1U << rnd(32);
	case K_FGET:
		return chance(50) ? F_GETFL : F_GETFD;
	case K_FSET:
		return chance(50) ? F_SETFD : F_DUPFD_CLOEXEC;
	case K_FSETARG:
		/* Small: F_DUPFD_CLOEXEC never reaches the top of the table. */
		return PICK(((const int64_t[]){ 0, 1, 3, 10, 40, 100, -1,
						0x7fffffff }));
	case K_FSETFL:
		return F_SETFL;
	case K_FREFUSED:
		return chance(50) ? F_SETLEASE : F_NOTIFY;
	case K_FLFLAGS:
		/* Never without O_NONBLOCK: a blocking pipe could hang us. */
		v = O_NONBLOCK;
		for (i = rnd(3); i; i--)
			v |= PICK(((const uint64_t[]){ O_APPEND, O_DIRECT,
						       O_NOATIME }));
		return v;
	case K_CRFD:
		return gen_crfd();
	case K_CRFLAGS:
		switch (rnd(10)) {
		case 0:
		case 1:
		case 2:
			return 0;
		case 3:
		case 4:
			return CLOSE_RANGE_CLOEXEC;
		case 5:
		case 6:
			return CLOSE_RANGE_UNSHARE;
		case 7:
		case 8:
			return CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC;
		default:
			return 1U << rnd(32);
		}
	case K_FDPAIR:
		len = rw_alloc(s, 2 * sizeof(*len));
		if (len)
			memset(len, 0xff, 2 * sizeof(*len));
		return ptr_or_bad(len);
	case K_PIPEFLAGS:
		/* Never without O_NONBLOCK, as every pipe of the fuzzer. */
		return O_NONBLOCK | (chance(50) ? O_CLOEXEC : 0) |
		       (chance(20) ? O_DIRECT : 0) |
		       (chance(5) ? 1U << rnd(32) : 0);
	case K_COUNT:
		return chance(50) ? rnd(4) : PICK(((const uint64_t[]){
			0xffffffff, 1 << 20, ~0ULL }));
	case K_EFDFLAGS:
		/* A blocking eventfd could hang a read. */
		return EFD_NONBLOCK | (chance(50) ? EFD_CLOEXEC : 0) |
		       (chance(30) ? EFD_SEMAPHORE : 0) |
		       (chance(5) ? 1U << rnd(32) : 0);
	case K_EPFLAGS:
		if (chance(50))
			return 0;
		return chance(80) ? EPOLL_CLOEXEC : 1U << rnd(32);
	case K_EPOP:
		return chance(90) ? 1 + rnd(3) : PICK(((const int64_t[]){
			0, 4, -1 }));
	case K_EPEVENT:
		return gen_epevent(s);
	case K_MADDR:
		/* Pages of the data; model_madvise() bounds the length. */
		if (chance(90)) {
			v = (uintptr_t)s->data + PAGE * rnd(DATA_PAGES);
			return chance(90) ? v : v + 1 + rnd(PAGE - 1);
		}
		return bad_ptr(0);
	case K_MLEN:
		if (chance(10))
			return 0;
		return chance(80) ? PAGE * (1 + rnd(4)) : 1 + rnd(2 * PAGE);
	case K_MADVICE:
		/* Only advice that changes nothing the fuzzer relies on. */
		i = rnd(20);
		return i < 9 ? MADV_NORMAL : i < 18 ? MADV_WILLNEED : 9999;
	case K_FUTEX:
		/* A word of its own, 0: nobody waits on it, no PI owner. */
		len = rw_alloc(s, 2 * sizeof(*len));
		if (len)
			memset(len, 0, 2 * sizeof(*len));
		return ptr_or_bad(len);
	case K_FWAKE:
		return FUTEX_WAKE | (chance(50) ? FUTEX_PRIVATE_FLAG : 0) |
		       (chance(5) ? FUTEX_CLOCK_REALTIME : 0);
	case K_FPI:
		return PICK(((const uint64_t[]){
			FUTEX_LOCK_PI, FUTEX_LOCK_PI2, FUTEX_UNLOCK_PI,
			FUTEX_TRYLOCK_PI, FUTEX_WAIT_REQUEUE_PI,
			FUTEX_CMP_REQUEUE_PI })) |
		       (chance(50) ? FUTEX_PRIVATE_FLAG : 0) |
		       (chance(20) ? FUTEX_CLOCK_REALTIME : 0);
	case K_FNR:
		return PICK(((const uint64_t[]){ 0, 1, 1, 2, INT_MAX }));
	case K_FMASK:
		return chance(80) ? FUTEX_BITSET_MATCH_ANY : rnd(2);
	case K_F2FLAGS:
		if (chance(10))
			return rnd64() & 0xff;
		return FUTEX2_SIZE_U32 | (chance(50) ? FUTEX2_PRIVATE : 0);
	case K_WOPTS:
		/* Even if the check let it through: no child of the worker. */
		return __WNOTHREAD | WNOHANG |
		       (rnd64() & (WUNTRACED | WCONTINUED | __WALL | __WCLONE));
	case K_IDTYPE:
		return PICK(((const uint64_t[]){ P_ALL, P_PID, P_PGID }));
	case K_WIDOPTS:
		return __WNOTHREAD | WNOHANG | WEXITED |
		       (rnd64() & (WSTOPPED | WCONTINUED | WNOWAIT));
	case K_PID:
		/* Itself, its process group, or no process. */
		i = rnd(10);
		return i < 7 ? getpid() : i < 8 ? 0 : NO_PID;
	case K_TID:
		i = rnd(10);
		return i < 7 ? gettid() : i < 8 ? 0 : NO_PID;
	case K_NUL:
		return 0;
	case K_SIGINFO:
		return gen_siginfo(s);
	case K_PIDFDFLAGS:
		if (chance(60))
			return 0;
		return chance(80) ? PICK(((const uint64_t[]){
			PIDFD_NONBLOCK, PIDFD_THREAD })) : 1U << rnd(32);
	case K_PSSFLAGS:
		if (chance(60))
			return 0;
		return chance(80) ? PICK(((const uint64_t[]){
			PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP,
			PIDFD_SIGNAL_PROCESS_GROUP })) : 1U << rnd(32);
	case K_GRND:
		if (chance(30))
			return rnd64() & 0xffffffff;
		return PICK(((const uint64_t[]){
			0, GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE,
			GRND_NONBLOCK | GRND_RANDOM }));
	case K_UNIX:
		/* Past AF_MAX: EAFNOSUPPORT, and no module is asked for. */
		return chance(90) ? AF_UNIX : 1000;
	case K_INET:
		return chance(90) ? AF_INET : 1000;
	case K_STYPE:
		v = chance(95) ? PICK(((const uint64_t[]){
			SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET })) :
			SOCK_PACKET;
		/* Never blocking, as every socket of the fuzzer. */
		v |= SOCK_NONBLOCK | (chance(50) ? SOCK_CLOEXEC : 0);
		if (chance(3))
			v |= 1U << (4 + rnd(27));
		return v;
	case K_ITYPE:
		/* No other type: it would ask for a protocol module. */
		return (chance(50) ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK |
		       (chance(50) ? SOCK_CLOEXEC : 0);
	case K_UPROTO:
		i = rnd(20);
		return i < 18 ? 0 : i < 19 ? PF_UNIX : 99;
	case K_BACKLOG:
		return PICK(((const int64_t[]){ 0, 1, 8, 128, -1, INT_MAX }));
	case K_SHUT:
		return chance(90) ? rnd(3) : PICK(((const int64_t[]){ 3, -1 }));
	case K_SLEVEL:
		/* No protocol level: TCP_CONGESTION, TCP_ULP load modules. */
		return chance(90) ? SOL_SOCKET : 0x7fff;
	case K_SOPT:
		return chance(95) ? PICK(sockopts) : 9999;
	case K_GLEVEL:
		i = rnd(10);
		return i < 7 ? SOL_SOCKET : i < 9 ? SOL_IP : 0x7fff;
	case K_GOPT:
		/* Below the netfilter ones of SOL_IP, which load tables. */
		return chance(70) ? PICK(sockopts) : rnd(60);
	case K_OPTVAL:
		len = ro_alloc(s, 4 * sizeof(*len));
		for (i = 0; len && i < 4; i++)
			len[i] = PICK(((const int[]){
				0, 1, 2, 4096, 65536, -1, INT_MAX }));
		return ptr_or_bad(len);
	case K_OPTLEN:
		return chance(70) ? 4 : PICK(((const int64_t[]){
			0, 1, 8, 16, -1, 0x7fffffff }));
	}
	return 0;
}

/* --- What some calls must return ------------------------------------------ */

/*
 * The arguments a model reads never take a reference (no_ref()), so they
 * are those the call gets.  break_entry() may add one after, but then the
 * kernel refuses the whole submission and no entry runs.
 */

/* A per-entry check refuses the call for these arguments. */
static void model_eopnotsupp(struct slot *s, unsigned int i)
{
	s->meta[i].want = -EOPNOTSUPP;
}

/*
 * The check refuses a lease and a directory notification, whose signal
 * would go to the worker.  Were it to let them through: F_UNLCK drops no
 * lease, 0 asks for no notification.
 */
static void model_fcntl_refused(struct slot *s, unsigned int i)
{
	struct async_syscall *e = ent(s, i);

	e->args[2] = e->args[1] == F_SETLEASE ? F_UNLCK : 0;
	s->meta[i].want = -EOPNOTSUPP;
}

/* The check refuses CLOSE_RANGE_UNSHARE before close_range() looks. */
static void model_close_range(struct slot *s, unsigned int i)
{
	struct async_syscall *e = ent(s, i);
	unsigned int first = e->args[0], last = e->args[1];
	unsigned int flags = e->args[2];

	if (first > last && chance(80)) {
		e->args[0] = last;
		e->args[1] = first;
		first = e->args[0];
		last = e->args[1];
	}
	if (flags & CLOSE_RANGE_UNSHARE)
		s->meta[i].want = -EOPNOTSUPP;
	else if ((flags & ~CLOSE_RANGE_CLOEXEC) || first > last)
		s->meta[i].want = -EINVAL;
	else
		s->meta[i].want = WANT_OK;
}

/* A siginfo, even with signal 0, is refused: the worker would judge it. */
static void model_pidfd_signal(struct slot *s, unsigned int i)
{
	if (ent(s, i)->args[2])
		s->meta[i].want = -EOPNOTSUPP;
}

/* Signal 0 to itself succeeds; to a pid no task has, ESRCH. */
static void model_kill(struct slot *s, unsigned int i)
{
	pid_t pid = ent(s, i)->args[0];

	if (pid == getpid())
		s->meta[i].want = WANT_OK;
	else if (pid == NO_PID)
		s->meta[i].want = -ESRCH;
}

/* The thread that made it may be gone: only the bad ids decide. */
static void model_tkill(struct slot *s, unsigned int i)
{
	pid_t tid = ent(s, i)->args[0];

	if (tid <= 0)
		s->meta[i].want = -EINVAL;
	else if (tid == NO_PID)
		s->meta[i].want = -ESRCH;
}

static void model_tgkill(struct slot *s, unsigned int i)
{
	pid_t tgid = ent(s, i)->args[0], tid = ent(s, i)->args[1];

	if (tgid <= 0 || tid <= 0)
		s->meta[i].want = -EINVAL;
	else if (tgid == NO_PID || tid == NO_PID)
		s->meta[i].want = -ESRCH;
}

/*
 * Only the fuzzer's own memory: pages of the data buffer, or a page at a
 * bad pointer.  MADV_NORMAL there always succeeds (MADV_WILLNEED on
 * anonymous memory fails without CONFIG_SWAP); advice it does not know,
 * or an address off a page, is EINVAL wherever it points.
 */
static void model_madvise(struct slot *s, unsigned int i)
{
	struct async_syscall *e = ent(s, i);
	uint64_t start = (uintptr_t)s->data, end = start + DATA_SIZE;
	uint64_t addr = e->args[0], advice = e->args[2];

	if (addr >= start && addr < end) {
		if (e->args[1] > end - addr)
			e->args[1] = end - addr;
	} else if (e->args[1] > PAGE) {
		e->args[1] = PAGE;
	}
	if ((advice != MADV_NORMAL && advice != MADV_WILLNEED) ||
	    addr % PAGE)
		s->meta[i].want = -EINVAL;
	else if (advice == MADV_NORMAL && addr >= start && addr < end)
		s->meta[i].want = WANT_OK;
}

/* --- Building a submission ------------------------------------------------ */

/* An entry the kernel must refuse: off the whitelist, or not a number at all. */
static unsigned int gen_bad_nr(void)
{
	unsigned int nr;

	switch (rnd(5)) {
	case 0:
	case 1:
		return PICK(refused);
	case 2:
		do {
			nr = rnd(NR_SYSCALLS);
		} while (accepted[nr]);
		return nr;
	case 3:
		if (chance(50))
			return GAP2_FIRST + rnd(GAP2_END - GAP2_FIRST);
		return GAP_FIRST + rnd(GAP_END - GAP_FIRST);
	default:
		switch (rnd(3)) {
		case 0:
			return NR_SYSCALLS + rnd(ASYNC_OP_BASE - NR_SYSCALLS);
		case 1:
			/* Past ASYNC_OP_FSYNC_RANGE and ASYNC_OP_LINK_TIMEOUT. */
			return ASYNC_OP_BASE + 2 + rnd(0xfffe);
		default:
			return 0x20000 + rnd(0xfffe0000U);
		}
	}
}

/* Nonzero bytes past the structure this kernel knows, or an unknown flag. */
static void break_tail(struct slot *s, struct async_syscall *e)
{
	if (s->esize > sizeof(*e))
		((char *)e)[sizeof(*e) + rnd(s->esize - sizeof(*e))] = 1 + rnd(255);
	else
		e->flags |= 1U << (3 + rnd(29));
}

/* Break entry @i: a flag, a reference, or bytes past the known structure. */
static void break_entry(struct slot *s, unsigned int i, unsigned int chain_start)
{
	struct async_syscall *e = ent(s, i);
	const struct call *c = find_call(e->nr);
	unsigned int nargs = c ? c->nargs : 6, bit;

	switch (rnd(5)) {
	case 0:
		e->flags |= 1U << (3 + rnd(29));
		break;
	case 1:
		/* A reference past the call's arguments, or past any. */
		bit = nargs < 6 && chance(70) ? nargs + rnd(6 - nargs) :
						6 + rnd(26);
		e->arg_refs |= 1U << bit;
		if (bit < 6)
			e->args[bit] = chain_start;
		break;
	case 2:
		/* To itself or later, or far off. */
		bit = rnd(nargs);
		e->arg_refs |= 1U << bit;
		e->args[bit] = chance(80) ? i + rnd(4) : rnd64();
		break;
	case 3:
		if (!chain_start) {
			break_tail(s, e);
			break;
		}
		/* To an entry of an earlier chain. */
		bit = rnd(nargs);
		e->arg_refs |= 1U << bit;
		e->args[bit] = rnd(chain_start);
		break;
	default:
		break_tail(s, e);
		break;
	}
}

/* Start filling slot @s with @n entries of @esize bytes. */
static void build_begin(struct slot *s, unsigned int n, size_t esize)
{
	mprotect(s->ro, RO_PAGES * PAGE, PROT_READ | PROT_WRITE);
	s->ro_used = 0;
	s->rw_used = 0;
	s->esize = esize;
	s->n = n;
	s->ents = s->ents_end - (size_t)n * esize;
	memset(s->ents, 0, (size_t)n * esize);
	memset(s->meta, 0, sizeof(s->meta));
	s->probe = false;
}

static void build_end(struct slot *s)
{
	mprotect(s->ro, RO_PAGES * PAGE, PROT_READ);
}

/*
 * Whether entry @k opened a file by name in the scratch directory: an
 * openat() or openat2() relative to the working directory or to an own
 * descriptor, neither taken from an earlier entry.  Any other descriptor
 * an entry makes may be /dev/null, a dup() of it.
 */
static bool opened_in_scratch(const struct slot *s, unsigned int k)
{
	const struct async_syscall *e = ent(s, k);

	return (e->nr == __NR_openat || e->nr == __NR_openat2) &&
	       !(e->arg_refs & 3) &&
	       ((int)e->args[0] == AT_FDCWD || is_own(e->args[0]));
}

/*
 * An earlier entry of the chain, in [@start, @i), whose result an argument
 * of @kind may take: one that makes a descriptor, for a descriptor; for
 * a call that changes a file, one that opened it in the scratch directory.
 * -1 if there is none.
 */
static int fd_source(const struct slot *s, unsigned int kind,
		     unsigned int start, unsigned int i)
{
	unsigned int k, n = 0, found[MAX_N];
	bool own_kind = kind == K_OWNFD || kind == K_ODIRFD;

	if (kind != K_FD && kind != K_DIRFD && !own_kind)
		return -1;
	for (k = start; k < i; k++) {
		if (s->meta[k].call < 0 || calls[s->meta[k].call].res != R_FD)
			continue;
		if (own_kind && !opened_in_scratch(s, k))
			continue;
		found[n++] = k;
	}
	return n ? (int)found[rnd(n)] : -1;
}

/* A random whitelisted call at @i, step @j of the chain that began at @start. */
static void fill_call(struct slot *s, unsigned int i, unsigned int j,
		      unsigned int start)
{
	struct async_syscall *e = ent(s, i);
	const struct call *c;
	unsigned int a;
	int src;

	s->meta[i].call = rnd(NCALLS);
	c = &calls[s->meta[i].call];
	e->nr = c->nr;
	for (a = 0; a < c->nargs; a++) {
		e->args[a] = gen_arg(s, c->kind[a]);
		src = j ? fd_source(s, c->kind[a], start, i) : -1;
		if (src >= 0 && chance(40)) {
			/* A descriptor made earlier in the chain. */
			e->arg_refs |= 1U << a;
			e->args[a] = src;
		} else if (j && !no_ref(c->kind[a]) && chance(12)) {
			e->arg_refs |= 1U << a;
			e->args[a] = start + rnd(j);
		}
	}
	if (c->model)
		c->model(s, i);
}

/* Fill slot @s with @n random entries of @esize bytes. */
static void build(struct slot *s, unsigned int n, size_t esize)
{
	unsigned int i = 0, j, len, start;

	build_begin(s, n, esize);
	while (i < n) {
		len = chance(50) ? 1 : 1 + rnd(5);
		if (len > n - i)
			len = n - i;
		start = i;
		for (j = 0; j < len; j++, i++) {
			struct async_syscall *e = ent(s, i);

			if (chance(98)) {
				fill_call(s, i, j, start);
			} else {
				s->meta[i].call = -1;
				e->nr = gen_bad_nr();
			}
			if (j + 1 < len)
				e->flags |= ASYNC_SYSCALL_LINK;
			if (chance(15))
				e->flags |= ASYNC_SYSCALL_RUN_ANYWAY;
			if (chance(20))
				e->flags |= ASYNC_SYSCALL_FORCE_ASYNC;
			poison(e);
		}
		if (chance(2))
			break_entry(s, start + rnd(len), start);
	}
	/* Sometimes a link off the end. */
	if (chance(2))
		ent(s, n - 1)->flags |= ASYNC_SYSCALL_LINK;
	build_end(s);
}

/* Entry @i of @s: call @nr with @flags and arguments, none a reference. */
static void put_call(struct slot *s, unsigned int i, unsigned int nr,
		     unsigned int flags, uint64_t a0, uint64_t a1, uint64_t a2,
		     uint64_t a3)
{
	struct async_syscall *e = ent(s, i);

	e->nr = nr;
	e->flags = flags;
	e->args[0] = a0;
	e->args[1] = a1;
	e->args[2] = a2;
	e->args[3] = a3;
	s->meta[i].call = find_call(nr) - calls;
	poison(e);
}

/* A nanosleep() of @ms at @i: on a timer alone, else on a worker. */
static void put_sleep(struct slot *s, unsigned int i, unsigned int ms,
		      unsigned int flags)
{
	struct timespec *ts = ro_alloc(s, sizeof(*ts));

	ts->tv_sec = 0;
	ts->tv_nsec = ms * NSEC_PER_MSEC;
	put_call(s, i, __NR_nanosleep, flags, (uintptr_t)ts, 0, 0, 0);
}

/*
 * Fill @s with @n good entries that take up to @ms milliseconds: sleeps on
 * timers and on workers, chains that run a random call after a sleep and,
 * if @stuck_fd is a blocking pipe's read end that nothing writes, reads
 * that end only when their process dies.
 */
static void build_slow(struct slot *s, unsigned int n, unsigned int ms,
		       int stuck_fd)
{
	unsigned int i;

	build_begin(s, n, sizeof(struct async_syscall));
	for (i = 0; i < n; i++) {
		switch (rnd(stuck_fd >= 0 ? 4 : 3)) {
		case 0:
			put_sleep(s, i, 1 + rnd(ms), 0);
			break;
		case 1:
			put_sleep(s, i, 1 + rnd(ms), ASYNC_SYSCALL_FORCE_ASYNC);
			break;
		case 2:
			if (i + 1 == n) {
				put_sleep(s, i, 1 + rnd(ms), 0);
				break;
			}
			put_sleep(s, i, 1 + rnd(ms), ASYNC_SYSCALL_LINK);
			fill_call(s, i + 1, 1, i);
			poison(ent(s, ++i));
			break;
		default:
			put_call(s, i, __NR_read, 0, stuck_fd, (uintptr_t)s->data,
				 1, 0);
			break;
		}
	}
	build_end(s);
}

/*
 * The errors entry @i must be refused with, in a call of @nr_entries; its
 * chain began at @chain_start.  0 if the entry is good.
 */
static unsigned int entry_errs(const struct slot *s, unsigned int i,
			       unsigned int nr_entries, unsigned int chain_start)
{
	const struct async_syscall *e = ent(s, i);
	const struct call *c = find_call(e->nr);
	unsigned int errs = 0, bit, nargs = c ? c->nargs : 6;
	size_t b;

	for (b = sizeof(*e); b < s->esize; b++) {
		if (((const char *)e)[b]) {
			errs |= E_2BIG;
			break;
		}
	}
	if (e->flags & ~(ASYNC_SYSCALL_LINK | ASYNC_SYSCALL_RUN_ANYWAY |
			 ASYNC_SYSCALL_FORCE_ASYNC))
		errs |= E_INVAL;
	if ((e->flags & ASYNC_SYSCALL_LINK) && i == nr_entries - 1)
		errs |= E_INVAL;
	errs |= nr_errs(e->nr);
	if (e->arg_refs >> nargs)
		errs |= E_INVAL;
	for (bit = 0; bit < 6; bit++) {
		if ((e->arg_refs & (1U << bit)) &&
		    (e->args[bit] < chain_start || e->args[bit] >= i))
			errs |= E_INVAL;
	}
	return errs;
}

/* The first bad entry of a call of @nr_entries, with its errors; -1: none. */
static int first_bad(const struct slot *s, unsigned int nr_entries,
		     unsigned int *errs)
{
	unsigned int i, chain_start = 0;

	for (i = 0; i < s->n && i < nr_entries; i++) {
		*errs = entry_errs(s, i, nr_entries, chain_start);
		if (*errs)
			return i;
		if (!(ent(s, i)->flags & ASYNC_SYSCALL_LINK))
			chain_start = i + 1;
	}
	return -1;
}

/* --- Failing ---------------------------------------------------------------- */

struct kid {
	pid_t pid;
	int64_t kill_at, killed_at;
};

static struct kid kids[MAX_KIDS];
static int nkids;

static int failing;
static __thread bool fail_owner;

/*
 * The first thread to fail writes the report and ends the process; any
 * other waits for that.
 */
static void fail_lock(void)
{
	if (fail_owner)
		return;
	if (__atomic_exchange_n(&failing, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();
	fail_owner = true;
}

static void __noreturn fail_now(void)
{
	int i;

	for (i = 0; i < nkids; i++)
		kill(kids[i].pid, SIGKILL);
	_exit(1);
}

/* Report what failed, in which thread or child, and end the fuzzer. */
static void __printf(1, 2) __noreturn fail(const char *fmt, ...)
{
	size_t len;
	va_list ap;

	fail_lock();
	len = strlen(rep->msg);
	len += snprintf(rep->msg + len, sizeof(rep->msg) - len, "in the %s: ",
			where);
	if (len < sizeof(rep->msg)) {
		va_start(ap, fmt);
		vsnprintf(rep->msg + len, sizeof(rep->msg) - len, fmt, ap);
		va_end(ap);
	}
	fail_now();
}

static const char *entry_name(const struct slot *s, unsigned int i)
{
	return s->meta[i].call >= 0 ? calls[s->meta[i].call].name : "refused";
}

static void __printf(1, 2) report_add(const char *fmt, ...)
{
	size_t len;
	va_list ap;

	fail_lock();
	len = strlen(rep->msg);
	va_start(ap, fmt);
	vsnprintf(rep->msg + len, sizeof(rep->msg) - len, fmt, ap);
	va_end(ap);
}

static uint64_t final_arg(const struct slot *s, unsigned int i, unsigned int a);

/*
 * Everything needed to diagnose a failure of entry @bad from the log alone:
 * each entry of its submission as submitted, its arguments as the call got
 * them, its completion, and the cancels that covered the submission.
 */
static void report_slot(const struct slot *s, unsigned int bad)
{
	unsigned int i, a;

	report_add("# submission %lu of the %s, %u entries of %zu bytes:\n",
		   s->id, s->where, s->n, s->esize);
	for (i = 0; i < s->n; i++) {
		const struct async_syscall *e = ent(s, i);

		report_add("# %c%2u %s nr %u flags %#x refs %#x args",
			   i == bad ? '>' : ' ', i, entry_name(s, i), e->nr,
			   e->flags, e->arg_refs);
		for (a = 0; a < 6; a++)
			report_add(" %#llx", (unsigned long long)e->args[a]);
		for (a = 0; a < 6; a++) {
			if (e->arg_refs & (1U << a))
				report_add(" a%u=%#llx", a,
					   (unsigned long long)final_arg(s, i, a));
		}
		report_add(" -> %lld done %#x%s", (long long)e->result, e->done,
			   s->meta[i].touched ? " (cancel covered it)" : "");
		if (s->meta[i].want)
			report_add(" (want %s)", s->meta[i].want == WANT_OK ? "success" :
				   s->meta[i].want == WANT_OK_ENOENT ? "success or ENOENT" :
				   strerror(-s->meta[i].want));
		report_add("\n");
	}
	for (i = 0; i < s->ncancels && i < MAX_CANCEL_LOG; i++)
		report_add("# cancel at step %lu by %s, entries %u-%u: %u in flight, got %ld\n",
			   s->cancels[i].subs,
			   s->cancels[i].by ? s->cancels[i].by : "the submitter",
			   s->cancels[i].a, s->cancels[i].b - 1,
			   s->cancels[i].in_flight, s->cancels[i].ret);
	if (s->ncancels > MAX_CANCEL_LOG)
		report_add("# and %u more cancels\n", s->ncancels - MAX_CANCEL_LOG);
	if (!s->ncancels)
		report_add("# no cancel covered this submission\n");
}

/* What the low fds are at the failure: the entries name them by number. */
static void report_fds(void)
{
	char path[64], target[128];
	ssize_t len;
	int fd;

	report_add("# open fds now:");
	for (fd = 0; fd < 64; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		report_add(" %#x=%s", fd, target);
	}
	report_add("\n");
}

/* fail() for entry @i of slot @s, with the whole submission in the report. */
static void __printf(3, 4) __noreturn fail_entry(const struct slot *s,
						 unsigned int i,
						 const char *fmt, ...)
{
	char why[256];
	va_list ap;

	fail_lock();
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	report_add("submission %lu of the %s, entry %u (%s): %s", s->id,
		   s->where, i, entry_name(s, i), why);
	report_slot(s, i);
	report_fds();
	fail_now();
}

static void slot_state(struct slot *s, int state)
{
	__atomic_store_n(&s->state, state, __ATOMIC_SEQ_CST);
}

/* --- Checking completions ----------------------------------------------------- */

/* The argument @a of entry @i as the call got it. */
static uint64_t final_arg(const struct slot *s, unsigned int i, unsigned int a)
{
	const struct async_syscall *e = ent(s, i);

	if (e->arg_refs & (1U << a))
		return ent(s, e->args[a])->result;
	return e->args[a];
}

static void check_result(const struct slot *s, unsigned int i)
{
	const struct async_syscall *e = ent(s, i);
	const struct call *c = &calls[s->meta[i].call];
	__s64 res = e->result;
	uint64_t size;
	bool ok = true;

	/* The kernel's own: restarts, and a read that parked (EIOCBQUEUED). */
	if (res < -4095 || (res <= -512 && res >= -516) || res == -529)
		fail_entry(s, i, "result %lld is no errno\n", (long long)res);
	if (res == -ECANCELED || res == -EINTR) {
		if (!__atomic_load_n(&s->meta[i].touched, __ATOMIC_ACQUIRE))
			fail_entry(s, i, "%s, not cancelled\n", strerror(-res));
		return;
	}
	if (res < 0)
		return;
	switch (c->res) {
	case R_ZERO:
		ok = res == 0;
		break;
	case R_LEN1:
		ok = (uint64_t)res <= final_arg(s, i, 1);
		break;
	case R_LEN2:
		ok = (uint64_t)res <= final_arg(s, i, 2);
		break;
	case R_LEN3:
		ok = (uint64_t)res <= final_arg(s, i, 3);
		break;
	case R_LEN4:
		ok = (uint64_t)res <= final_arg(s, i, 4);
		break;
	case R_XLEN2:
	case R_XLEN3:
		/* Size 0 asks for the size of the value or list. */
		size = final_arg(s, i, c->res == R_XLEN2 ? 2 : 3);
		ok = (uint64_t)res <= (size ? size : XATTR_SIZE_MAX);
		break;
	case R_FD:
		ok = res < fd_limit;
		break;
	case R_POS:
		break;
	case R_NFDS:
		ok = (uint64_t)res <= (uint32_t)final_arg(s, i, 1);
		break;
	case R_RW:
		ok = res <= MAX_RW;
		break;
	}
	if (!ok)
		fail_entry(s, i, "result %lld out of range\n", (long long)res);
}

/*
 * The result a probe or a model expects of entry @i, if it expects one,
 * unless a cancel or the death of its process ended it first.
 */
static void check_want(const struct slot *s, unsigned int i)
{
	__s64 res = ent(s, i)->result;
	int want = s->meta[i].want;

	if ((res == -ECANCELED || res == -EINTR) &&
	    __atomic_load_n(&s->meta[i].touched, __ATOMIC_ACQUIRE))
		return;
	if (want == WANT_ANY || (want == WANT_OK && res >= 0) ||
	    (want == WANT_OK_ENOENT && (res >= 0 || res == -ENOENT)) ||
	    (want < 0 && res == want))
		return;
	fail_entry(s, i, "result %lld is not what the context of its submission gives\n",
		   (long long)res);
}

/* All entries of @s completed: check them, chain by chain. */
static void check_slot(struct slot *s)
{
	bool failed = false;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct async_syscall *e = ent(s, i);

		if (!i || !(ent(s, i - 1)->flags & ASYNC_SYSCALL_LINK))
			failed = false;
		if (e->done != ASYNC_SYSCALL_DONE)
			fail_entry(s, i, "done word %#x\n", e->done);
		if (failed && !(e->flags & ASYNC_SYSCALL_RUN_ANYWAY)) {
			/* It never ran: what it would return does not apply. */
			if (e->result != -ECANCELED)
				fail_entry(s, i, "%lld, chain failed before\n",
					   (long long)e->result);
		} else {
			check_result(s, i);
			check_want(s, i);
		}
		if (e->result < 0)
			failed = true;
	}
	bump(&rep->completed, s->n);
}

static bool slot_done(const struct slot *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (!async_done(ent(s, i)))
			return false;
	}
	return true;
}

/* Wait for every entry of busy slot @s, check and free it. */
static void finish_slot(struct slot *s)
{
	int64_t end = s->since + COMPLETE_S * NSEC_PER_SEC, left;
	struct timespec ts;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		while (!async_done(ent(s, i))) {
			left = end - now_ns();
			if (left <= 0)
				fail_entry(s, i, "not done in %d s\n",
					   COMPLETE_S);
			ts.tv_sec = left / NSEC_PER_SEC;
			ts.tv_nsec = left % NSEC_PER_SEC;
			async_wait(ent(s, i), &ts);
		}
	}
	check_slot(s);
	s->busy = false;
	slot_state(s, S_IDLE);
}

static void reap_slots(void)
{
	int64_t now = now_ns();
	int k;

	for (k = 0; k < (int)nslots; k++) {
		struct slot *s = &slots[k];

		if (!s->busy)
			continue;
		if (slot_done(s) ||
		    now - s->since > COMPLETE_S * NSEC_PER_SEC)
			finish_slot(s);
	}
}

/* --- Actions ------------------------------------------------------------------ */

static __thread unsigned long subs;

enum call_defect {
	D_NONE, D_NR0, D_NR_BIG, D_SIZE_SMALL, D_SIZE_ODD, D_SIZE_BIG,
	D_MISALIGNED, D_NULL, D_KERNEL, D_UNMAPPED, D_TRUNCATED, D_FLAG,
	D_PROBE_WAIT, NR_DEFECTS,
};

static long submit_raw(void *p, unsigned int nr, size_t size,
		       unsigned int flags)
{
	subs++;
	bump(&rep->submissions, 1);
	return async_submit_raw(p, nr, size, flags);
}

/* Check a call that must fail with one of @errs; entry @bad holds the errno. */
static void expect_refused(struct slot *s, long ret, int err, unsigned int errs,
			   int bad, const char *what)
{
	unsigned int i;

	if (ret != -1 || !(err_bit(err) & errs))
		fail("submission %lu (%s): returned %ld, errno %d (%s), want errors %#x\n",
		     subs, what, ret, ret < 0 ? err : 0, ret < 0 ? strerror(err) : "-",
		     errs);
	if (bad >= 0 && ent(s, bad)->result != -err)
		fail("submission %lu: entry %d has result %lld, call failed with %d\n",
		     subs, bad, (long long)ent(s, bad)->result, err);
	for (i = 0; i < s->n; i++) {
		if (ent(s, i)->done == ASYNC_SYSCALL_DONE)
			fail("submission %lu refused, but entry %u completed\n",
			     subs, i);
	}
	bump(&rep->refused, 1);
}

static void check_probe(struct slot *s, long ret, int err)
{
	unsigned int errs, i;
	int bad = first_bad(s, s->n, &errs);
	__s64 res;

	if (ret != 0)
		fail("probe %lu: returned %ld (%s)\n", subs, ret, strerror(err));
	for (i = 0; i < s->n; i++) {
		res = ent(s, i)->result;
		if (ent(s, i)->done == ASYNC_SYSCALL_DONE)
			fail("probe %lu: entry %u completed\n", subs, i);
		if ((int)i < bad || bad < 0) {
			if (res)
				fail("probe %lu: good entry %u (%s) got %lld\n",
				     subs, i, entry_name(s, i), (long long)res);
		} else if ((int)i == bad) {
			if (res >= 0 || !(err_bit(-res) & errs))
				fail("probe %lu: bad entry %u (%s) got %lld, want errors %#x\n",
				     subs, i, entry_name(s, i), (long long)res,
				     errs);
		} else if (res && !(err_bit(-res) & (E_INVAL | E_OPNOTSUPP | E_2BIG))) {
			fail("probe %lu: entry %u (%s) got %lld\n", subs, i,
			     entry_name(s, i), (long long)res);
		}
	}
	bump(&rep->probes, 1);
}

static struct slot *next_slot(void)
{
	static __thread unsigned int next;
	struct slot *s = &slots[next++ % nslots];

	if (s->busy)
		finish_slot(s);
	/* No cancel of another thread may still count on what it holds. */
	while (__atomic_load_n(&s->pins, __ATOMIC_SEQ_CST))
		sched_yield();
	snprintf(s->where, sizeof(s->where), "%s", where);
	return s;
}

static void act_submit(void)
{
	static const size_t sizes[] = { 80, 128, 256, PAGE };
	struct slot *s = next_slot();
	unsigned int n, nr, flags = 0, errs = 0, i;
	enum call_defect d = D_NONE;
	size_t size;
	char *p;
	long ret;
	int err, bad = -1;

	/* A closed or reused number only fails here, or drops another's. */
	if (cold_fd >= 0 && chance(20))
		posix_fadvise(cold_fd, 0, 0, POSIX_FADV_DONTNEED);
	n = chance(70) ? 1 + rnd(4) : 1 + rnd(MAX_N);
	build(s, n, chance(75) ? sizeof(struct async_syscall) : PICK(sizes));
	switch (rnd(20)) {
	case 0:
	case 1:
	case 2:
		flags = ASYNC_SUBMIT_WAIT;
		break;
	case 3:
	case 4:
	case 5:
		flags = ASYNC_SUBMIT_PROBE;
		break;
	}
	/* Every wait of libasync marks the done word. */
	if (!(flags & ASYNC_SUBMIT_PROBE) && chance(50))
		flags |= async_wake_marked_flags();
	if (chance(12))
		d = 1 + rnd(NR_DEFECTS - 1);
	p = s->ents;
	nr = n;
	size = s->esize;
	switch (d) {
	case D_NONE:
		break;
	case D_NR0:
		nr = 0;
		errs = E_INVAL;
		break;
	case D_NR_BIG:
		nr = ASYNC_SUBMIT_MAX_ENTRIES + 1 + rnd(4);
		errs = E_INVAL;
		break;
	case D_SIZE_SMALL:
		size = ASYNC_SYSCALL_SIZE_VER0 - 8 * (1 + rnd(8));
		errs = E_INVAL;
		break;
	case D_SIZE_ODD:
		size = ASYNC_SYSCALL_SIZE_VER0 + 1 + rnd(7);
		errs = E_INVAL;
		break;
	case D_SIZE_BIG:
		size = PAGE + 8 * (1 + rnd(8));
		errs = E_2BIG;
		break;
	case D_MISALIGNED:
		p += 1 + rnd(7);
		errs = E_INVAL;
		break;
	case D_NULL:
		p = NULL;
		errs = E_FAULT;
		break;
	case D_KERNEL:
		p = (char *)KERNEL_ADDR;
		errs = E_FAULT;
		break;
	case D_UNMAPPED:
		p = unmapped;
		errs = E_FAULT;
		break;
	case D_TRUNCATED:
		/* The array ends at a guard page. */
		nr = n + 1 + rnd(8);
		if (flags & ASYNC_SUBMIT_PROBE) {
			errs = E_FAULT;
			break;
		}
		bad = first_bad(s, nr, &errs);
		if (bad < 0)
			errs = E_FAULT;
		break;
	case D_FLAG:
		flags |= 1U << (5 + rnd(27));
		errs = E_INVAL;
		break;
	case D_PROBE_WAIT:
		flags = ASYNC_SUBMIT_PROBE | (chance(50) ? ASYNC_SUBMIT_WAIT :
					      ASYNC_SUBMIT_WAKE_MARKED);
		errs = E_INVAL;
		break;
	default:
		break;
	}

	s->id = subs + 1;
	s->ncancels = 0;
	slot_state(s, S_SUBMITTING);
	ret = submit_raw(p, nr, size, flags);
	err = errno;
	bump(&rep->progress, 1);
	if (d != D_NONE) {
		expect_refused(s, ret, err, errs, bad, "call defect");
		slot_state(s, S_IDLE);
		return;
	}
	if (flags & ASYNC_SUBMIT_PROBE) {
		check_probe(s, ret, err);
		slot_state(s, S_IDLE);
		return;
	}
	bad = first_bad(s, n, &errs);
	if (bad >= 0) {
		expect_refused(s, ret, err, errs, bad, "bad entry");
		slot_state(s, S_IDLE);
		return;
	}
	if (ret != n)
		fail_entry(s, 0, "the call of %u good entries with flags %#x returned %ld (%s)\n",
			   n, flags, ret, ret < 0 ? strerror(err) : "-");
	for (i = 0; i < n; i++) {
		__u32 done = ent(s, i)->done;

		if (done != ASYNC_SYSCALL_PENDING && done != ASYNC_SYSCALL_DONE)
			fail("submission %lu entry %u: done word %#x after submit\n",
			     subs, i, done);
		if ((flags & ASYNC_SUBMIT_WAIT) && done != ASYNC_SYSCALL_DONE)
			fail("submission %lu entry %u: not done after ASYNC_SUBMIT_WAIT\n",
			     subs, i);
	}
	bump(&rep->entries, n);
	s->busy = true;
	s->since = now_ns();
	slot_state(s, S_BUSY);
	if (flags & ASYNC_SUBMIT_WAIT) {
		bump(&rep->waits, 1);
		finish_slot(s);
	}
}

/* Note a cancel that covered entries [@a, @b) of @s, for the report. */
static void log_cancel(struct slot *s, unsigned int a, unsigned int b,
		       unsigned int in_flight, long ret, const char *by)
{
	unsigned int k = __atomic_fetch_add(&s->ncancels, 1, __ATOMIC_RELAXED);

	if (k < MAX_CANCEL_LOG)
		s->cancels[k] = (struct cancel_log){
			.subs = subs, .a = a, .b = b,
			.in_flight = in_flight, .ret = ret, .by = by,
		};
}

static void act_cancel(void)
{
	struct slot *s = &slots[rnd(nslots)];
	unsigned int a, b, i, in_flight = 0, target = rnd(10);
	long ret;
	int err;

	if (!s->n)
		return;
	a = chance(50) ? 0 : rnd(s->n);
	b = a + 1 + rnd(s->n - a);
	bump(&rep->cancels, 1);

	if (!rep->cancel_supported) {
		ret = submit_raw(ent(s, a), b - a, s->esize, ASYNC_SUBMIT_CANCEL);
		if (ret != -1 || errno != EINVAL)
			fail("cancel %lu without cancel support: %ld (%s)\n",
			     subs, ret, strerror(errno));
		return;
	}
	if (target == 0) {
		/* Never submitted. */
		ret = submit_raw(ro_page, b - a, s->esize, ASYNC_SUBMIT_CANCEL);
		if (ret != 0)
			fail("cancel %lu of nothing: %ld (%s)\n", subs, ret,
			     strerror(errno));
		return;
	}
	if (target == 1) {
		ret = submit_raw((void *)(uintptr_t)bad_ptr((uintptr_t)s->ents),
				 b - a, s->esize, ASYNC_SUBMIT_CANCEL);
		err = errno;
		if (ret != 0 && !(ret == -1 && (err == EFAULT || err == EINVAL)))
			fail("cancel %lu of a bad pointer: %ld (%s)\n", subs,
			     ret, strerror(err));
		return;
	}

	for (i = a; i < b; i++) {
		if (s->busy && !async_done(ent(s, i)))
			in_flight++;
	}
	ret = submit_raw(ent(s, a), b - a, s->esize, ASYNC_SUBMIT_CANCEL);
	err = errno;
	if (ret < 0 || ret > in_flight)
		fail("cancel %lu of %u-%u of submission %lu: %ld (%s), %u in flight\n",
		     subs, a, b - 1, s->id, ret, ret < 0 ? strerror(err) : "-",
		     in_flight);
	bump(&rep->cancelled, ret);
	if (s->busy) {
		for (i = a; i < b; i++)
			__atomic_store_n(&s->meta[i].touched, true,
					 __ATOMIC_RELEASE);
		log_cancel(s, a, b, in_flight, ret, NULL);
	}
}

static void act_abi(void)
{
	unsigned int flags = ASYNC_SUBMIT_ABI_VERSION;
	long ret;

	if (chance(70)) {
		ret = submit_raw(NULL, 0, 0, flags);
		if (ret < 1)
			fail("ABI version %ld (%s)\n", ret, strerror(errno));
		return;
	}
	/* Any other argument makes it EINVAL. */
	if (chance(50))
		flags |= ASYNC_SUBMIT_WAIT;
	ret = submit_raw(ro_page, rnd(3), rnd(2) * 72, flags);
	if (ret != -1 || errno != EINVAL)
		fail("ABI version query with arguments: %ld (%s)\n", ret,
		     ret < 0 ? strerror(errno) : "-");
}

/* --- Children ------------------------------------------------------------------- */

static const struct timespec kid_sleep = { 0, 500 * NSEC_PER_MSEC };

/* A child: work that never ends, random submissions, then exit or wait to die. */
static void __noreturn kid_main(uint64_t seed)
{
	struct async_syscall stuck[4];
	unsigned int k, i, flags;
	char buf[4];
	int p[2];

	seed_rng(seed);
	if (!pipe(p)) {
		for (i = 0; i < 4; i++) {
			if (i % 2)
				async_prep_nanosleep(&stuck[i], &kid_sleep);
			else
				async_prep_read(&stuck[i], p[0], &buf[i], 1);
		}
		async_submit(stuck, 4, 0);
	}
	for (k = rnd(4); k; k--) {
		struct slot *s = &slots[rnd(nslots)];

		if (s->busy)
			continue;
		build(s, 1 + rnd(MAX_N), chance(80) ? 72 : 128);
		flags = chance(20) ? ASYNC_SUBMIT_WAIT : 0;
		async_submit_raw(s->ents, s->n, s->esize, flags);
	}
	switch (rnd(3)) {
	case 0:
		_exit(0);
	case 1:
		sleep_ms(rnd(20));
		_exit(0);
	}
	for (;;)
		pause();
}

static void act_kid(void)
{
	uint64_t seed = rnd64();
	unsigned int delay = rnd(KID_KILL_MS);
	pid_t pid;

	if (nkids >= MAX_KIDS)
		return;
	pid = fork();
	if (pid < 0)
		fail("fork: %s\n", strerror(errno));
	if (!pid)
		kid_main(seed);
	kids[nkids].pid = pid;
	kids[nkids].kill_at = now_ns() + delay * NSEC_PER_MSEC;
	kids[nkids].killed_at = 0;
	nkids++;
	bump(&rep->kids, 1);
}

/* Kill children whose time has come, reap the dead; with @all, every one. */
static void reap_kids(bool all)
{
	int64_t now;
	int i, status, k;
	pid_t ret;

	do {
		now = now_ns();
		for (i = 0; i < nkids; i++) {
			struct kid *kd = &kids[i];

			if (!kd->killed_at && (all || now >= kd->kill_at)) {
				kill(kd->pid, SIGKILL);
				kd->killed_at = now;
			}
			ret = waitpid(kd->pid, &status, WNOHANG);
			if (ret == 0) {
				if (kd->killed_at &&
				    now - kd->killed_at > COMPLETE_S * NSEC_PER_SEC)
					fail("child %d still alive %d s after SIGKILL\n",
					     kd->pid, COMPLETE_S);
				continue;
			}
			if (ret != kd->pid)
				fail("waitpid %d: %s\n", kd->pid, strerror(errno));
			if (!(WIFEXITED(status) && !WEXITSTATUS(status)) &&
			    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
				fail("child %d ended with status %#x\n", kd->pid,
				     status);
			/* Its workers were threads of it: gone with it. */
			k = scan_workers(kd->pid, kd->pid, -1, NULL);
			if (k > 0)
				fail("child %d reaped, %d workers left\n", kd->pid, k);
			kids[i--] = kids[--nkids];
		}
		if (all && nkids)
			sleep_ms(POLL_MS);
	} while (all && nkids);
}

/* Nothing in flight, no child: then descriptors and files start afresh. */
static void rebuild(void)
{
	int k;

	for (k = 0; k < NSLOTS; k++) {
		if (slots[k].busy)
			finish_slot(&slots[k]);
	}
	reap_kids(true);
	close_range(3, ~0U, 0);
	build_pool();
	bump(&rep->rebuilds, 1);
}

/* --- Threads -------------------------------------------------------------------- */

/*
 * An episode runs two to MAX_THREADS submitting threads at once, each on
 * its own slots with the checks of the main thread, and maybe a thread that
 * cancels the entries of the others.  A submitter may unshare its file
 * table or its filesystem context with entries in flight, and may exit with
 * entries in flight: the main thread then waits for those and checks them
 * as their thread would have.
 */
struct fthread {
	pthread_t tid;
	unsigned int idx, steps, unshare_at;
	uint64_t seed;
	bool exits, canceller;
};

/* Every slot a canceller of the current episode may aim at. */
static struct slot *episode_slots[NSLOTS + MAX_THREADS * TSLOTS];
static unsigned int episode_nslots;

static const char *const canceller_name = "canceller thread";

/*
 * Cancel entries of another thread's slot.  Its owner may be submitting
 * them at the moment: counting them not done before the cancel bounds
 * what it can count, as no new submission starts in a pinned slot.  The
 * entries are marked first, as the cancel may complete them at once.
 */
static void act_xcancel(void)
{
	struct slot *s = episode_slots[rnd(episode_nslots)];
	unsigned int a, b, i, in_flight = 0;
	long ret;
	int err;

	__atomic_add_fetch(&s->pins, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == S_IDLE)
		goto out;
	a = chance(50) ? 0 : rnd(s->n);
	b = a + 1 + rnd(s->n - a);
	for (i = a; i < b; i++)
		__atomic_store_n(&s->meta[i].touched, true, __ATOMIC_RELEASE);
	for (i = a; i < b; i++) {
		if (!async_done(ent(s, i)))
			in_flight++;
	}
	ret = submit_raw(ent(s, a), b - a, s->esize, ASYNC_SUBMIT_CANCEL);
	err = errno;
	bump(&rep->xcancels, 1);
	log_cancel(s, a, b, in_flight, ret, canceller_name);
	if (ret < 0 || ret > in_flight)
		fail_entry(s, a, "cancel of entries %u-%u by the %s: %ld (%s), %u in flight\n",
			   a, b - 1, canceller_name, ret,
			   ret < 0 ? strerror(err) : "-", in_flight);
	bump(&rep->xcancelled, ret);
out:
	__atomic_sub_fetch(&s->pins, 1, __ATOMIC_SEQ_CST);
}

/* A submission that stays in flight for some milliseconds. */
static void act_submit_slow(void)
{
	struct slot *s = next_slot();
	unsigned int n = 1 + rnd(6);
	long ret;

	build_slow(s, n, 3, -1);
	s->id = subs + 1;
	s->ncancels = 0;
	slot_state(s, S_SUBMITTING);
	ret = submit_raw(s->ents, n, s->esize, chance(50) ?
			 async_wake_marked_flags() : 0);
	if (ret != n)
		fail_entry(s, 0, "slow submission returned %ld (%s)\n", ret,
			   ret < 0 ? strerror(errno) : "-");
	bump(&rep->entries, n);
	s->busy = true;
	s->since = now_ns();
	slot_state(s, S_BUSY);
}

/* Unshare the file table, the filesystem context or both: a new pool. */
static void thread_unshare(struct fthread *t)
{
	static const int what[] = {
		CLONE_FILES, CLONE_FS, CLONE_FILES | CLONE_FS,
	};
	int flags = PICK(what);
	bool in_dd;

	act_submit_slow();
	if (unshare(flags))
		fail("thread %u: unshare(%#x): %s\n", t->idx, flags,
		     strerror(errno));
	/* Its relative names now resolve in dd/, if there is one. */
	in_dd = (flags & CLONE_FS) && chance(50) && !chdir("dd");
	bump(&rep->unshares, 1);
	snprintf(where, sizeof(where), "thread %u after unshare(%s%s%s)%s",
		 t->idx, flags & CLONE_FILES ? "CLONE_FILES" : "",
		 flags == (CLONE_FILES | CLONE_FS) ? "|" : "",
		 flags & CLONE_FS ? "CLONE_FS" : "", in_dd ? " in dd" : "");
}

static void *thread_main(void *arg)
{
	struct fthread *t = arg;
	unsigned int step, act, k;

	seed_rng(t->seed);
	if (t->canceller) {
		snprintf(where, sizeof(where), "%s", canceller_name);
		for (step = 0; step < t->steps; step++) {
			bump(&rep->progress, 1);
			act_xcancel();
			if (chance(50))
				sched_yield();
		}
		return NULL;
	}
	slots = thread_slots[t->idx];
	nslots = TSLOTS;
	snprintf(where, sizeof(where), "thread %u", t->idx);
	for (step = 0; step < t->steps; step++) {
		bump(&rep->progress, 1);
		if (step == t->unshare_at)
			thread_unshare(t);
		act = rnd(100);
		if (act < 8)
			act_cancel();
		else if (act < 12 && slots[(act + step) % TSLOTS].busy)
			finish_slot(&slots[(act + step) % TSLOTS]);
		else if (act < 16)
			act_submit_slow();
		else
			act_submit();
		reap_slots();
	}
	if (t->exits) {
		/* Its entries go on without it. */
		act_submit_slow();
		return NULL;
	}
	for (k = 0; k < TSLOTS; k++) {
		if (slots[k].busy)
			finish_slot(&slots[k]);
	}
	return NULL;
}

static void act_threads(void)
{
	struct fthread th[MAX_THREADS + 1];
	unsigned int nt = 2 + rnd(MAX_THREADS - 1), i, k, all = nt;
	unsigned long before = rep->submissions;
	int err;

	episode_nslots = 0;
	for (k = 0; k < NSLOTS; k++)
		episode_slots[episode_nslots++] = &main_slots[k];
	/*
	 * Mapped for the episode only: every mapping makes the fork() of a
	 * child slower, much slower on the debug kernel.
	 */
	for (i = 0; i < nt; i++) {
		for (k = 0; k < TSLOTS; k++) {
			memset(&thread_slots[i][k], 0, sizeof(struct slot));
			if (!map_slot_memory(&thread_slots[i][k], MAP_PRIVATE))
				fail("mmap: %s\n", strerror(errno));
		}
	}
	for (i = 0; i < nt; i++) {
		th[i] = (struct fthread){
			.idx = i, .seed = rnd64(), .steps = 16 + rnd(64),
			.exits = chance(30), .unshare_at = UINT_MAX,
		};
		if (chance(30))
			th[i].unshare_at = rnd(th[i].steps);
		for (k = 0; k < TSLOTS; k++)
			episode_slots[episode_nslots++] = &thread_slots[i][k];
	}
	if (rep->cancel_supported && chance(60))
		th[all++] = (struct fthread){
			.idx = nt, .seed = rnd64(), .steps = 32 + rnd(96),
			.canceller = true,
		};
	for (i = 0; i < all; i++) {
		err = pthread_create(&th[i].tid, NULL, thread_main, &th[i]);
		if (err)
			fail("pthread_create: %s\n", strerror(err));
	}
	for (i = 0; i < all; i++) {
		err = pthread_join(th[i].tid, NULL);
		if (err)
			fail("pthread_join: %s\n", strerror(err));
	}
	/* What the threads that exited left in flight. */
	for (i = 0; i < nt; i++) {
		for (k = 0; k < TSLOTS; k++) {
			if (thread_slots[i][k].busy)
				finish_slot(&thread_slots[i][k]);
			munmap(thread_slots[i][k].map, SLOT_PAGES * PAGE);
		}
		bump(&rep->texits, th[i].exits);
	}
	bump(&rep->episodes, 1);
	bump(&rep->threads, nt);
	bump(&rep->subs_threads, rep->submissions - before);
}

/* --- Children that exec, exit or die with entries in flight ------------------- */

#define EXEC_ARG	"--exec-child"

enum { X_EXEC, X_EXIT, X_KILL };

static const char *const xkid_names[] = { "exec child", "exiting child",
					  "killed child" };

/* Submit @s in the child, telling the parent how far it got. */
static void xkid_submit(struct slot *s, unsigned int flags)
{
	s->xflags = flags;
	__atomic_store_n(&s->xstate, X_SUBMITTING, __ATOMIC_SEQ_CST);
	s->xret = async_submit_raw(s->ents, s->n, s->esize, flags);
	s->xerr = errno;
	__atomic_store_n(&s->xstate, X_RETURNED, __ATOMIC_SEQ_CST);
}

/*
 * A child: random entries and entries that take long or never end, in
 * memory it shares with the parent, then it execs, exits or waits to be
 * killed with them in flight.
 */
static void __noreturn xkid_main(uint64_t seed, int mode)
{
	static const unsigned int fl[] = { 0, ASYNC_SUBMIT_WAIT, 0 };
	int p[2] = { -1, -1 };

	seed_rng(seed);
	nkids = 0;
	build(&xslots[0], 1 + rnd(MAX_N), chance(75) ?
	      sizeof(struct async_syscall) : 128);
	xkid_submit(&xslots[0], PICK(fl) | (chance(50) ?
					    async_wake_marked_flags() : 0));
	/* A blocking pipe with a writer: its reads end with the process. */
	if (pipe2(p, O_CLOEXEC))
		p[0] = -1;
	build_slow(&xslots[1], 1 + rnd(8), 10, p[0]);
	xkid_submit(&xslots[1], chance(50) ? async_wake_marked_flags() : 0);
	if (chance(50))
		sleep_ms(rnd(4));
	switch (mode) {
	case X_EXEC:
		execl("/proc/self/exe", "async_fuzz", EXEC_ARG, (char *)NULL);
		_exit(127);
	case X_EXIT:
		_exit(0);
	}
	for (;;)
		pause();
}

/*
 * The image a child execs into: no worker of the old one may be left, and
 * a submission works.  Its exit code tells the parent.
 */
static int exec_child(void)
{
	struct timespec ts = { 0, 0 };
	struct async_syscall e;
	struct dirent *d;
	int tasks = 0;
	DIR *dir;

	dir = opendir("/proc/self/task");
	if (!dir)
		return 2;
	while ((d = readdir(dir)))
		tasks += d->d_name[0] != '.';
	closedir(dir);
	if (tasks != 1)
		return 3;
	async_prep_nanosleep(&e, &ts);
	if (async_submit(&e, 1, ASYNC_SUBMIT_WAIT) != 1 || !async_done(&e) ||
	    e.result)
		return 4;
	return 0;
}

/*
 * After the child is reaped, a submission it made is either refused, as
 * async_submit() said, or done in full: the death of the process ends
 * what was queued or running, and sleeps on timers, before its last thread
 * is gone.  So every entry may have ended with -ECANCELED or -EINTR.
 */
static void check_xslot(struct slot *s, int mode)
{
	unsigned int i, done = 0, errs;
	int bad;

	switch (__atomic_load_n(&s->xstate, __ATOMIC_SEQ_CST)) {
	case X_NONE:
		return;
	case X_SUBMITTING:
		/* Killed in the call: all or nothing. */
		for (i = 0; i < s->n; i++)
			done += ent(s, i)->done == ASYNC_SYSCALL_DONE;
		if (!done)
			return;
		if (done != s->n)
			fail_entry(s, 0, "killed in async_submit(): %u of %u entries done\n",
				   done, s->n);
		break;
	default:
		bad = first_bad(s, s->n, &errs);
		if (bad >= 0) {
			expect_refused(s, s->xret, s->xerr, errs, bad,
				       xkid_names[mode]);
			return;
		}
		if (s->xret != s->n)
			fail_entry(s, 0, "the %s's call of %u good entries returned %ld (%s)\n",
				   xkid_names[mode], s->n, s->xret,
				   s->xret < 0 ? strerror(s->xerr) : "-");
		break;
	}
	for (i = 0; i < s->n; i++)
		s->meta[i].touched = true;
	bump(&rep->entries, s->n);
	check_slot(s);
}

/* Wait for child @pid, polling often: its time counts in the rate. */
static int reap_child(pid_t pid, const char *what)
{
	int64_t end = now_ns() + 2 * COMPLETE_S * NSEC_PER_SEC;
	int status;
	pid_t ret;

	while ((ret = waitpid(pid, &status, WNOHANG)) == 0) {
		if (now_ns() > end) {
			kill(pid, SIGKILL);
			fail("%s %d still there after %d s\n", what, pid,
			     2 * COMPLETE_S);
		}
		sleep_ms(1);
	}
	if (ret != pid)
		fail("waitpid %d: %s\n", pid, strerror(errno));
	return status;
}

static void act_xkid(void)
{
	int mode = (rep->execs + rep->xexits + rep->xkills) % 3, status, k;
	unsigned int delay = rnd(KID_KILL_MS);
	uint64_t seed = rnd64();
	pid_t pid;

	for (k = 0; k < NXSLOTS; k++) {
		xslots[k].xstate = X_NONE;
		xslots[k].id = subs + 1;
		xslots[k].ncancels = 0;
		snprintf(xslots[k].where, sizeof(xslots[k].where), "%s",
			 xkid_names[mode]);
	}
	pid = fork();
	if (pid < 0)
		fail("fork: %s\n", strerror(errno));
	if (!pid)
		xkid_main(seed, mode);
	if (mode == X_KILL) {
		sleep_ms(delay);
		kill(pid, SIGKILL);
	}
	status = reap_child(pid, xkid_names[mode]);
	if (mode == X_KILL ?
	    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) :
	    !(WIFEXITED(status) && !WEXITSTATUS(status)))
		fail("%s %d ended with status %#x%s\n", xkid_names[mode], pid,
		     status, mode != X_EXEC ? "" :
		     " (3: a thread of the old image was left, 4: its submission failed)");
	for (k = 0; k < NXSLOTS; k++)
		check_xslot(&xslots[k], mode);
	bump(mode == X_EXEC ? &rep->execs :
	     mode == X_EXIT ? &rep->xexits : &rep->xkills, 1);
}

/* --- A child that changes credentials and root between submissions ----------- */

/* Found only under the new root; the real one is read-only. */
#define NEWROOT_FILE	"async_fuzz_newroot_only"
#define OTHER_UID	1000

static bool is_root;

struct cred_state {
	int credfd, oldroot, scratch;
	uid_t euid;
	bool newroot, probe_root;
};

/*
 * Two chains that reach a worker after a sleep: an open of a file only
 * root may read, and an open of a file only the new root has.  What they
 * must return follows from the credentials and the root at the time of
 * the call.
 */
static void cred_probe(struct cred_state *cs)
{
	struct slot *s;
	long ret;

	snprintf(where, sizeof(where), "credentials child, euid %u, %s root",
		 cs->euid, cs->newroot ? "new" : "old");
	s = next_slot();
	build_begin(s, 6, sizeof(struct async_syscall));
	put_sleep(s, 0, 1 + rnd(4), ASYNC_SYSCALL_LINK);
	put_call(s, 1, __NR_openat, ASYNC_SYSCALL_LINK, cs->credfd,
		 (uintptr_t)"secret", O_RDONLY | O_CLOEXEC, 0);
	put_call(s, 2, __NR_close, 0, 0, 0, 0, 0);
	ent(s, 2)->arg_refs = 1;
	ent(s, 2)->args[0] = 1;
	put_sleep(s, 3, 1 + rnd(4), ASYNC_SYSCALL_LINK);
	put_call(s, 4, __NR_openat, ASYNC_SYSCALL_LINK, AT_FDCWD,
		 (uintptr_t)"/" NEWROOT_FILE, O_RDONLY | O_CLOEXEC, 0);
	put_call(s, 5, __NR_close, 0, 0, 0, 0, 0);
	ent(s, 5)->arg_refs = 1;
	ent(s, 5)->args[0] = 4;
	build_end(s);
	s->meta[1].want = cs->euid ? -EACCES : WANT_OK;
	if (cs->probe_root)
		s->meta[4].want = cs->newroot ? WANT_OK : -ENOENT;
	s->probe = true;
	s->id = subs + 1;
	s->ncancels = 0;
	ret = submit_raw(s->ents, 6, s->esize,
			 chance(50) ? async_wake_marked_flags() : 0);
	if (ret != 6)
		fail_entry(s, 0, "probe returned %ld (%s)\n", ret,
			   ret < 0 ? strerror(errno) : "-");
	bump(&rep->entries, 6);
	s->busy = true;
	s->since = now_ns();
	slot_state(s, S_BUSY);
}

/* After a change: the probes not done yet will run in the new context. */
static void cred_count_late(void)
{
	unsigned int k;

	for (k = 0; k < nslots; k++) {
		struct slot *s = &slots[k];

		if (s->busy && s->probe) {
			s->probe = false;
			bump(&rep->probes_total, 1);
			if (!async_done(ent(s, 1)) || !async_done(ent(s, 4)))
				bump(&rep->probes_late, 1);
		}
	}
}

/*
 * Before a chroot() in place: an open not done yet may run before or after
 * it, and one that completes while chroot() returns ran after it.
 */
static void cred_root_changes(void)
{
	unsigned int k;

	for (k = 0; k < nslots; k++) {
		struct slot *s = &slots[k];

		if (s->busy && s->meta[1].want && s->meta[4].want &&
		    !async_done(ent(s, 4)))
			s->meta[4].want = WANT_OK_ENOENT;
	}
}

static void cred_setup(struct cred_state *cs)
{
	int fd;

	umask(022);
	mkdir("cred", 0755);
	fd = open("cred/secret", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fchown(fd, 0, 0) || fchmod(fd, 0600))
		fail("cred/secret: %s\n", strerror(errno));
	close(fd);
	mkdir("newroot", 0755);
	fd = open("newroot/" NEWROOT_FILE, O_WRONLY | O_CREAT | O_CLOEXEC,
		  0644);
	if (fd < 0)
		fail("newroot/%s: %s\n", NEWROOT_FILE, strerror(errno));
	close(fd);
	cs->credfd = top_fd(open("cred", O_PATH | O_DIRECTORY | O_CLOEXEC), 1);
	cs->oldroot = top_fd(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), 2);
	cs->scratch = top_fd(open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), 3);
	if (cs->credfd < 0 || cs->oldroot < 0 || cs->scratch < 0)
		fail("cred child: open: %s\n", strerror(errno));
	cs->euid = 0;
	cs->newroot = false;
	/* Nothing of that name in the real root, or no root probe. */
	cs->probe_root = access("/" NEWROOT_FILE, F_OK) && errno == ENOENT;
}

/* Switch the effective (and maybe real) uid; the saved one stays 0. */
static void cred_setuid(struct cred_state *cs)
{
	uid_t uid = cs->euid ? 0 : OTHER_UID + rnd(2);

	if (setresuid(uid && chance(30) ? uid : 0, uid, -1))
		fail("cred child: setresuid %u: %s\n", uid, strerror(errno));
	cs->euid = uid;
	bump(&rep->setuids, 1);
	cred_count_late();
}

/* chroot() to the other root, in place or after unshare(CLONE_FS). */
static void cred_chroot(struct cred_state *cs)
{
	bool in_place = chance(40);

	if (!in_place && unshare(CLONE_FS))
		fail("cred child: unshare(CLONE_FS): %s\n", strerror(errno));
	if (in_place)
		cred_root_changes();
	if (cs->newroot ? fchdir(cs->oldroot) || chroot(".") :
	    chroot("newroot"))
		fail("cred child: chroot: %s\n", strerror(errno));
	if (fchdir(cs->scratch))
		fail("cred child: fchdir: %s\n", strerror(errno));
	cs->newroot = !cs->newroot;
	bump(&rep->chroots, 1);
	cred_count_late();
}

static void __noreturn cred_kid_main(uint64_t seed)
{
	struct cred_state cs;
	unsigned int rounds, r, k;

	seed_rng(seed);
	nkids = 0;
	for (k = 0; k < nslots; k++) {
		slots[k].busy = false;
		slot_state(&slots[k], S_IDLE);
	}
	cred_setup(&cs);
	rounds = 2 + rnd(4);
	for (r = 0; r < rounds; r++) {
		cred_probe(&cs);
		if (cs.euid || chance(50))
			cred_setuid(&cs);
		else
			cred_chroot(&cs);
		cred_probe(&cs);
		if (chance(50))
			act_submit();
		reap_slots();
	}
	for (k = 0; k < nslots; k++) {
		if (slots[k].busy)
			finish_slot(&slots[k]);
	}
	/* Sometimes leave with entries in flight, not counted: never checked. */
	if (chance(50)) {
		struct slot *s = next_slot();

		build_slow(s, 1 + rnd(6), 3, -1);
		async_submit_raw(s->ents, s->n, s->esize, 0);
	}
	_exit(0);
}

static void act_credkid(void)
{
	uint64_t seed = rnd64();
	int status;
	pid_t pid;

	if (!is_root)
		return;
	pid = fork();
	if (pid < 0)
		fail("fork: %s\n", strerror(errno));
	if (!pid)
		cred_kid_main(seed);
	status = reap_child(pid, "credentials child");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("credentials child %d ended with status %#x\n", pid,
		     status);
	bump(&rep->credkids, 1);
}

static void timed(void (*act)(void), unsigned long *ns)
{
	int64_t start = now_ns();

	act();
	bump(ns, now_ns() - start);
}

/* --- The fuzzer ----------------------------------------------------------------- */

/*
 * Fill accepted[] and check the tables against each other: a call made as
 * good that the kernel refuses, or one expected refused that it runs,
 * would be a bug of the fuzzer's, reported as the kernel's.
 */
static void check_tables(void)
{
	unsigned int i, nr;

	for (i = 0; i < ARRAY_SIZE(whitelist); i++) {
		if (whitelist[i] >= NR_SYSCALLS || accepted[whitelist[i]])
			fail("whitelist[%u]: %u twice or past NR_SYSCALLS\n", i,
			     whitelist[i]);
		accepted[whitelist[i]] = true;
	}
	for (i = 0; i < NCALLS; i++) {
		nr = calls[i].nr;
		if (nr < NR_SYSCALLS ? !accepted[nr] : nr < ASYNC_OP_BASE)
			fail("%s (%u) is not on the whitelist\n", calls[i].name,
			     nr);
		/* entry_errs() takes the first row's count. */
		if (find_call(nr)->nargs != calls[i].nargs)
			fail("the rows of %s differ in arguments\n",
			     calls[i].name);
	}
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		if (refused[i] >= NR_SYSCALLS || accepted[refused[i]])
			fail("refused[%u] (%u) is on the whitelist\n", i,
			     refused[i]);
	}
	for (nr = 0; nr < NR_SYSCALLS; nr++) {
		if (accepted[nr] && ((nr >= GAP_FIRST && nr < GAP_END) ||
				     (nr >= GAP2_FIRST && nr < GAP2_END)))
			fail("%u is in a gap and on the whitelist\n", nr);
	}
	memset(xname_long, 'x', sizeof(xname_long) - 1);
	memcpy(xname_long, "user.", 5);
}

static int fuzz(const char *dir, unsigned long n, unsigned int seconds,
		uint64_t seed)
{
	int64_t end = now_ns() + seconds * NSEC_PER_SEC;
	unsigned long step = 0, rebuilt = 0;
	unsigned int off_threads, off_xkid, off_cred;
	struct rlimit rl;
	int fd, k;

	seed_rng(seed);
	slots = main_slots;
	nslots = NSLOTS;
	snprintf(where, sizeof(where), "main thread");
	is_root = !geteuid();
	setpgid(0, 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	if (chdir(dir))
		fail("chdir %s: %s\n", dir, strerror(errno));
	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		fail("/dev/null: %s\n", strerror(errno));
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	getrlimit(RLIMIT_NOFILE, &rl);
	fd_limit = rl.rlim_cur;

	ro_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro_page == MAP_FAILED || unmapped == MAP_FAILED)
		fail("mmap: %s\n", strerror(errno));
	memset(ro_page, 'A', PAGE);
	mprotect(ro_page, PAGE, PROT_READ);
	/*
	 * No access, but kept mapped: a thread's stack could fill a hole,
	 * and the kernel faults on either.
	 */
	for (k = 0; k < NSLOTS; k++) {
		if (!map_slot_memory(&slots[k], MAP_PRIVATE))
			fail("mmap: %s\n", strerror(errno));
	}
	/* The children that exec or die write their calls' outcome here too. */
	xslots = mmap(NULL, NXSLOTS * sizeof(*xslots), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (xslots == MAP_FAILED)
		fail("mmap: %s\n", strerror(errno));
	for (k = 0; k < NXSLOTS; k++) {
		if (!map_slot_memory(&xslots[k], MAP_SHARED))
			fail("mmap: %s\n", strerror(errno));
	}
	/* Cancel on nothing in flight: 0 if the kernel has it. */
	rep->cancel_supported =
		async_submit_raw(ro_page, 1, 72, ASYNC_SUBMIT_CANCEL) == 0;
	check_tables();
	/* What it inherited may be outside: only its own descriptors. */
	close_range(3, ~0U, 0);
	build_pool();

	off_threads = rnd(THREADS_EVERY / 2);
	off_xkid = rnd(XKID_EVERY / 2);
	off_cred = rnd(CREDKID_EVERY / 2);
	while (rep->submissions < n && (!seconds || now_ns() < end)) {
		unsigned int act = rnd(100);

		bump(&rep->progress, 1);
		step++;
		if (step % THREADS_EVERY == off_threads)
			timed(act_threads, &rep->ns_threads);
		else if (step % XKID_EVERY == off_xkid)
			timed(act_xkid, &rep->ns_xkids);
		else if (step % CREDKID_EVERY == off_cred)
			timed(act_credkid, &rep->ns_credkids);
		else if (act < 8)
			act_cancel();
		else if (act < 12 && slots[act % NSLOTS].busy)
			finish_slot(&slots[act % NSLOTS]);
		else if (act < 15)
			act_kid();
		else if (act < 17)
			act_abi();
		else
			act_submit();
		reap_slots();
		reap_kids(false);
		if (rep->submissions / REBUILD_EVERY > rebuilt) {
			rebuild();
			rebuilt = rep->submissions / REBUILD_EVERY;
		}
	}
	for (k = 0; k < NSLOTS; k++) {
		if (slots[k].busy)
			finish_slot(&slots[k]);
	}
	reap_kids(true);
	/* Idle workers go after 2 s. */
	if (wait_no_workers(IDLE_EXIT_S))
		fail("%d workers still there %d s after the last entry\n",
		     count_workers(), IDLE_EXIT_S);
	rep->finished = 1;
	return 0;
}

/* --- The parent ------------------------------------------------------------------ */

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	return remove(path);
}

static void usage(const char *prog)
{
	fprintf(stderr, "Usage: %s [-s SEED] [-n SUBMISSIONS] [-t SECONDS]\n",
		prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned long n = DEF_SUBMISSIONS;
	unsigned int seconds = 0, seed;
	int64_t start, last_change;
	unsigned long last_progress = 0;
	char dir[PATH_MAX], more[128];
	const char *base;
	bool hung = false;
	int opt, status = 0;
	double secs;
	pid_t pid;

	/* What a child of the fuzzer execs into. */
	if (argc == 2 && !strcmp(argv[1], EXEC_ARG))
		return exec_child();
	seed = time(NULL) ^ getpid() ^ (now_ns() & 0xffff);
	while ((opt = getopt(argc, argv, "s:n:t:h")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoul(optarg, NULL, 0);
			break;
		default:
			usage(argv[0]);
		}
	}

	ksft_print_header();
	ksft_set_plan(1);
	if (async_abi_version() < 0)
		ksft_exit_skip("async_submit(): %s\n", strerror(errno));

	base = getenv("SCRATCH");
	if (!base || !*base)
		base = "/tmp";
	snprintf(dir, sizeof(dir), "%s/async_fuzz.XXXXXX", base);
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED || !mkdtemp(dir))
		ksft_exit_fail_msg("setup: %s\n", strerror(errno));
	if (seconds)
		ksft_print_msg("seed %u, up to %lu submissions or %u s\n", seed, n,
			       seconds);
	else
		ksft_print_msg("seed %u, up to %lu submissions\n", seed, n);
	fflush(stdout);

	start = now_ns();
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		_exit(fuzz(dir, n, seconds, seed));

	/* Watch: no progress for HANG_S is a hang. */
	last_change = start;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (rep->progress != last_progress) {
			last_progress = rep->progress;
			last_change = now_ns();
		} else if (now_ns() - last_change > HANG_S * NSEC_PER_SEC) {
			hung = true;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		sleep_ms(100);
	}
	secs = (now_ns() - start) / 1e9;
	/* Children of a fuzzer that died: its process group. */
	kill(-pid, SIGKILL);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	/* fuzz-long.sh takes this line: new fields go at its end. */
	snprintf(more, sizeof(more), "threads %lu xcancels %lu execs %lu credkids %lu",
		 rep->threads, rep->xcancels, rep->execs, rep->credkids);
	ksft_print_msg("seed %u submissions %lu seconds %.1f submissions/s %.1f %s\n",
		       seed, rep->submissions, secs, rep->submissions / secs, more);
	ksft_print_msg("entries %lu completed %lu refused %lu probes %lu waits %lu\n",
		       rep->entries, rep->completed, rep->refused, rep->probes,
		       rep->waits);
	ksft_print_msg("cancels %lu (%lu entries%s) children %lu rebuilds %lu\n",
		       rep->cancels, rep->cancelled,
		       rep->cancel_supported ? "" : ", no cancel in this kernel",
		       rep->kids, rep->rebuilds);
	ksft_print_msg("threads %lu in %lu episodes, %lu exited busy, %lu unshares\n",
		       rep->threads, rep->episodes, rep->texits, rep->unshares);
	ksft_print_msg("seconds: threads %.1f (%lu submissions), children %.1f, credentials %.1f\n",
		       rep->ns_threads / 1e9, rep->subs_threads,
		       rep->ns_xkids / 1e9, rep->ns_credkids / 1e9);
	ksft_print_msg("cancels from another thread %lu (%lu entries)\n",
		       rep->xcancels, rep->xcancelled);
	ksft_print_msg("children with shared entries: exec %lu exit %lu killed %lu\n",
		       rep->execs, rep->xexits, rep->xkills);
	ksft_print_msg("credentials children %lu%s: setuid %lu chroot %lu, late probes %lu/%lu\n",
		       rep->credkids, geteuid() ? " (not root: none)" : "",
		       rep->setuids, rep->chroots, rep->probes_late,
		       rep->probes_total);
	if (hung)
		snprintf(rep->msg + strlen(rep->msg),
			 sizeof(rep->msg) - strlen(rep->msg),
			 "no progress for %d s at submission %lu\n", HANG_S,
			 rep->submissions);
	else if (WIFSIGNALED(status))
		snprintf(rep->msg + strlen(rep->msg),
			 sizeof(rep->msg) - strlen(rep->msg),
			 "the fuzzer died of signal %d at submission %lu\n",
			 WTERMSIG(status), rep->submissions);
	if (hung || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    !rep->finished) {
		ksft_print_msg("FAILED: %s", rep->msg[0] ? rep->msg : "no reason\n");
		ksft_print_msg("seed that broke it: %u (async_fuzz -s %u -n %lu)\n",
			       seed, seed, n);
		ksft_test_result_fail("async_fuzz seed %u\n", seed);
	} else {
		ksft_test_result_pass("async_fuzz seed %u\n", seed);
	}
	ksft_finished();
}
