// SPDX-License-Identifier: GPL-2.0
/*
 * The whitelist, call by call: every system call that async_submit()
 * accepts runs three ways on fresh and identical state -- directly, as an
 * entry without flags and as an ASYNC_SYSCALL_FORCE_ASYNC entry -- and must
 * return the same and leave the same effect behind, as fstat(), readlink(),
 * getxattr(), getsockname() and the like show it afterwards.
 *
 * The table of cases follows the kernel's: ASYNC_SUBMIT_PROBE lists every
 * accepted number, and one without a case fails the test, as does a case
 * whose number is refused.  The argument values that a call's check
 * refuses at run time are tried as entries too: they must fail with
 * EOPNOTSUPP and change nothing.
 *
 * Every run of a case happens in the same directory, made afresh, with the
 * same descriptors free and its memory at the same addresses, so that
 * results that are paths, descriptors or addresses compare as they are.
 * The directory is on tmpfs, where nothing is written back behind the
 * test's back: under $GENERIC_DIR if set, else /dev/shm, else /tmp.  It
 * must take user extended attributes (tmpfs does since 6.6).
 *
 * GENERIC_CASE=<name> runs that case alone, GENERIC_VERBOSE=1 prints what
 * every case returned and left behind.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <mqueue.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/futex.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <async_syscall/libasync.h>

#include "../kselftest_harness.h"
#include "async_test.h"

/* Numbers of both arches, for headers older than the calls. */
#ifndef __NR_cachestat
#define __NR_cachestat		451
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2		452
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake		454
#endif
#ifndef __NR_futex_wait
#define __NR_futex_wait		455
#endif
#ifndef __NR_futex_requeue
#define __NR_futex_requeue	456
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32		0x02
#endif
#ifndef FUTEX2_PRIVATE
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG
#endif
#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2		13
#endif
#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	0x2
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	0x4
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT		0x01
#endif
#ifndef RWF_APPEND
#define RWF_APPEND		0x00000010
#endif

#define BUFSZ		4096
#define OBS_SIZE	4096
/* Pages of the region the memory cases map into, between two guard pages. */
#define REGION_PAGES	16
/* Above every system call number of x86_64 and arm64. */
#define PROBE_NR_MAX	1024
#define PROBE_BATCH	64
#define DATA		"The quick brown fox jumps over the lazy dog"
/* What the signal cases send: this thread blocks it, so it stays pending. */
#define SIG		SIGUSR1
/* A free descriptor, for dup2(), dup3() and F_DUPFD. */
#define FD_HIGH		200
/* Results made the same in every run; above any other result. */
#define RES_CHILD	0x0100000000000000L	/* the pid of the run's child */
#define RES_REGION	0x0200000000000000L	/* a region address, + offset */

#define P(x)		((__u64)(uintptr_t)(x))
/* The struct file_handle of a run. */
#define FH(r)		((struct file_handle *)(r)->h.space)
/* The call's arguments; those not given are 0. */
#define ARGS(r, ...)	set_args(r, (const __u64[6]) { __VA_ARGS__ })

/* struct cachestat_range and cachestat: <linux/mman.h> clashes with libc. */
struct gt_cachestat_range {
	__u64 off;
	__u64 len;
};

struct gt_cachestat {
	__u64 nr_cache;
	__u64 nr_dirty;
	__u64 nr_writeback;
	__u64 nr_evicted;
	__u64 nr_recently_evicted;
};

/* <linux/aio_abi.h>, which pulls in <linux/fs.h>, clashes with libc. */
#define GT_IOCB_CMD_PREAD	0

struct gt_iocb {
	__u64 aio_data;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	__s32 aio_rw_flags;
	__u32 aio_key;
#else
	__u32 aio_key;
	__s32 aio_rw_flags;
#endif
	__u16 aio_lio_opcode;
	__s16 aio_reqprio;
	__u32 aio_fildes;
	__u64 aio_buf;
	__u64 aio_nbytes;
	__s64 aio_offset;
	__u64 aio_reserved2;
	__u32 aio_flags;
	__u32 aio_resfd;
};

struct gt_io_event {
	__u64 data;
	__u64 obj;
	__s64 res;
	__s64 res2;
};

/* The head of an AIO context's ring, which user space may read. */
struct gt_aio_ring {
	unsigned int id, nr, head, tail;
	unsigned int magic, compat_features, incompat_features, header_length;
};

/* What getdents() writes; getdents64()'s is struct gt_dirent64. */
struct gt_dirent {
	unsigned long d_ino;
	unsigned long d_off;
	unsigned short d_reclen;
	char d_name[];
};

struct gt_dirent64 {
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * The state of one run of a case.  There is one, static, so that the
 * arguments, which point into it, are the same in every run.
 */
struct run {
	__u64 a[6];		/* the call's arguments */
	long res;		/* its result as it came */
	int fd[8];		/* made by the setup, closed after the run */
	int out[2];		/* written by the call (pipe2()), closed after */
	pid_t child;		/* forked by the setup, reaped after the run */
	int ival;
	char buf[BUFSZ];
	char buf2[BUFSZ];
	struct iovec iov[2];
	struct iovec iov2[2];
	struct stat st;
	struct statx stx;
	struct statfs sfs;
	struct timespec ts[2];
	struct timespec rem;
	struct timeval tv[2];
	struct utimbuf ub;
	struct sockaddr_un sun, sun2;
	socklen_t len, len2;
	struct ucred cred;
	struct msghdr msg;
	struct mmsghdr mmsg[2];
	union {
		size_t align;	/* a struct cmsghdr's */
		char buf[CMSG_SPACE(sizeof(struct ucred)) +
			 CMSG_SPACE(sizeof(int))];
	} cm;
	struct pollfd pfd[2];
	fd_set rfds;
	struct epoll_event ev[4];
	siginfo_t si;
	int status;
	__u32 word[2];
	struct futex_waitv waitv[2];
	unsigned long ctx;	/* aio_context_t */
	struct gt_iocb iocb;
	struct gt_iocb *iocbp;
	struct gt_io_event events[4];
	struct mq_attr mqa, mqa2;
	unsigned int prio;
	struct itimerspec its, its2;
	struct open_how how;
	union {
		unsigned int align;	/* a struct file_handle's */
		char space[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	int mount_id;
	struct flock fl;
	__u64 ksig;		/* a kernel sigset_t */
	struct gt_cachestat_range csr;
	struct gt_cachestat cs;
	loff_t off, off2;
};

/* What a run left behind, as text. */
struct obs {
	char s[OBS_SIZE];
	size_t n;
};

enum group {
	G_DATA, G_FDS, G_NAMES, G_ATTRS, G_XATTRS, G_SYNC, G_CACHE, G_COPIES,
	G_MEMORY, G_WAITING, G_SIGNALS, G_SOCKETS, G_LEGACY, G_THREAD,
	G_REFUSED,
};

/* Flags of a case */
#define RES_FD		0x1	/* the result is a new descriptor */
#define RES_PID		0x2	/* the result may be the child's pid */
#define RES_ADDR	0x4	/* the result may be a region address */
#define OK		0x8	/* the direct call must succeed */

/**
 * struct gcase - one way to make one call
 * @name: The call, and what sets this case apart if it has several.
 * @nr: Its number.
 * @group: The test that runs it.
 * @setup: Makes the state the call acts on, in the run's directory, and
 *	sets its arguments: 0, or -1 with errno set.
 * @effect: Observes what the call did, in terms that are the same from
 *	one run to the next; NULL for a call whose result is all it does.
 * @teardown: Undoes what the generic cleanup does not (closing @fd and
 *	@out, the result of a %RES_FD call, reaping @child, unmapping the
 *	region, taking the signals sent to this thread).
 * @direct: Makes the call directly, for an operation with no system call.
 * @flags: %RES_FD, %RES_PID, %RES_ADDR, %OK.
 * @err: The errno the direct call must fail with, if not 0.
 */
struct gcase {
	const char *name;
	unsigned int nr;
	enum group group;
	int (*setup)(struct run *r);
	void (*effect)(struct run *r, struct obs *o);
	void (*teardown)(struct run *r);
	long (*direct)(struct run *r);
	unsigned int flags;
	int err;
};

enum way { NOCALL = -1, DIRECT, INLINE, FORCED };

static struct run R;
/* Mapped PROT_NONE with a guard page either side, between runs. */
static char *region;
static size_t pg;
/* A POSIX message queue name, as mq_open() takes it: no leading '/'. */
static char mq_name[32];

static void set_args(struct run *r, const __u64 *a)
{
	memcpy(r->a, a, sizeof(r->a));
}

static const char *way_name(enum way way)
{
	switch (way) {
	case NOCALL:
		return "uncalled";
	case DIRECT:
		return "direct call";
	case INLINE:
		return "entry";
	default:
		return "FORCE_ASYNC entry";
	}
}

/* --- Observing ------------------------------------------------------------ */

static void __printf(2, 3) say(struct obs *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->n >= sizeof(o->s) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->s + o->n, sizeof(o->s) - o->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->n += n;
	if (o->n > sizeof(o->s) - 1)
		o->n = sizeof(o->s) - 1;
}

/* A pid in terms that are the same in every run. */
static const char *who(long pid)
{
	if (pid == getpid())
		return "self";
	if (pid == 0)
		return "none";
	return pid < 0 ? "error" : "other";
}

static void ob_bytes(struct obs *o, const char *label, const void *p,
		     size_t n)
{
	const unsigned char *b = p;
	size_t i;

	say(o, "%s=\"", label);
	for (i = 0; i < n; i++) {
		if (b[i] >= 0x20 && b[i] < 0x7f && b[i] != '"' && b[i] != '\\')
			say(o, "%c", b[i]);
		else
			say(o, "\\x%02x", b[i]);
	}
	say(o, "\" ");
}

static void ob_stat(struct obs *o, const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		say(o, "%s: %s; ", path, strerror(errno));
		return;
	}
	say(o, "%s: mode=%o nlink=%lu uid=%u gid=%u size=%lld blocks=%lld; ",
	    path, st.st_mode, (unsigned long)st.st_nlink, st.st_uid,
	    st.st_gid, (long long)st.st_size, (long long)st.st_blocks);
}

/* A struct stat a call wrote: all but the device, inode and ctime. */
static void ob_statbuf(struct obs *o, const struct stat *st)
{
	say(o, "st: mode=%o nlink=%lu uid=%u gid=%u size=%lld blocks=%lld ",
	    st->st_mode, (unsigned long)st->st_nlink, st->st_uid, st->st_gid,
	    (long long)st->st_size, (long long)st->st_blocks);
	say(o, "blksize=%ld atime=%lld.%09ld mtime=%lld.%09ld; ",
	    (long)st->st_blksize, (long long)st->st_atim.tv_sec,
	    st->st_atim.tv_nsec, (long long)st->st_mtim.tv_sec,
	    st->st_mtim.tv_nsec);
}

static void ob_times(struct obs *o, const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		say(o, "%s: %s; ", path, strerror(errno));
		return;
	}
	say(o, "%s: atime=%lld.%09ld mtime=%lld.%09ld; ", path,
	    (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* The first bytes of a file. */
static void ob_file(struct obs *o, const char *path)
{
	char b[256];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		say(o, "%s: %s; ", path, strerror(errno));
		return;
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 0)
		say(o, "%s: %s; ", path, strerror(errno));
	else
		ob_bytes(o, path, b, n);
}

static void ob_link(struct obs *o, const char *path)
{
	char b[PATH_MAX];
	ssize_t n = readlink(path, b, sizeof(b) - 1);

	if (n < 0) {
		say(o, "%s: %s; ", path, strerror(errno));
		return;
	}
	b[n] = '\0';
	say(o, "%s -> %s; ", path, b);
}

static void ob_pos(struct obs *o, int fd)
{
	off_t pos = lseek(fd, 0, SEEK_CUR);

	say(o, "pos %d: %lld; ", fd, pos < 0 ? -(long long)errno :
	    (long long)pos);
}

/*
 * A descriptor: whether it is open, its flags, and what it names, without
 * the inode numbers of pipes and sockets, which differ from run to run.
 */
static void ob_fdesc(struct obs *o, long fd)
{
	char path[64], link[PATH_MAX], shown[PATH_MAX];
	bool in_brackets = false;
	int fdfl, fl;
	size_t i, j;
	ssize_t n;

	say(o, "fd %ld: ", fd);
	if (fd < 0 || fd > INT_MAX) {
		say(o, "none; ");
		return;
	}
	fdfl = fcntl(fd, F_GETFD);
	if (fdfl < 0) {
		say(o, "%s; ", strerror(errno));
		return;
	}
	fl = fcntl(fd, F_GETFL);
	snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	n = readlink(path, link, sizeof(link) - 1);
	link[n < 0 ? 0 : n] = '\0';
	for (i = j = 0; link[i]; i++) {
		if (link[i] == '[')
			in_brackets = true;
		else if (link[i] == ']')
			in_brackets = false;
		else if (in_brackets && isdigit((unsigned char)link[i]))
			continue;
		shown[j++] = link[i];
	}
	shown[j] = '\0';
	say(o, "cloexec=%d flags=%#o %s; ", !!(fdfl & FD_CLOEXEC), fl, shown);
}

/* The line of /proc/self/fdinfo/@fd that starts with @key. */
static void ob_fdinfo(struct obs *o, long fd, const char *key)
{
	char path[64], b[4096], *p, *end;

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%ld", fd);
	if (read_small(path, b, sizeof(b)) < 0) {
		say(o, "%s: %s; ", path, strerror(errno));
		return;
	}
	for (p = b; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, strlen(key)))
			continue;
		end = strchr(p, '\n');
		say(o, "%.*s; ", end ? (int)(end - p) : (int)strlen(p), p);
		return;
	}
	say(o, "no %s; ", key);
}

/* The pid a pidfd refers to. */
static void ob_pidfd(struct obs *o, long fd)
{
	char path[64], b[4096], *p;

	ob_fdesc(o, fd);
	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%ld", fd);
	p = read_small(path, b, sizeof(b)) < 0 ? NULL : strstr(b, "Pid:");
	if (!p) {
		say(o, "no Pid; ");
		return;
	}
	say(o, "Pid: %s; ", who(strtol(p + 4, NULL, 10)));
}

/* The signals pending on this thread and on the process. */
static void ob_pending(struct obs *o)
{
	char b[4096], *p;

	if (read_small("/proc/thread-self/status", b, sizeof(b)) < 0) {
		say(o, "status: %s; ", strerror(errno));
		return;
	}
	p = strstr(b, "SigPnd:");
	say(o, "%.24s; ", p ? p : "no SigPnd");
	p = strstr(b, "ShdPnd:");
	say(o, "%.24s; ", p ? p : "no ShdPnd");
}

/* The user.* extended attributes of @path and their values. */
static void ob_xattrs(struct obs *o, const char *path)
{
	char list[1024], val[256], *p;
	ssize_t n, v;

	n = llistxattr(path, list, sizeof(list));
	if (n < 0) {
		say(o, "xattrs: %s; ", strerror(errno));
		return;
	}
	say(o, "xattrs: ");
	for (p = list; p < list + n; p += strlen(p) + 1) {
		/* security.* may hold a label, the same in every run. */
		if (strncmp(p, "user.", 5))
			continue;
		v = lgetxattr(path, p, val, sizeof(val));
		if (v < 0)
			say(o, "%s: %s ", p, strerror(errno));
		else
			ob_bytes(o, p, val, v);
	}
	say(o, "; ");
}

/* A list of names separated by NULs, as listxattr() writes it. */
static void ob_names(struct obs *o, const char *list, long n)
{
	const char *p;

	say(o, "list:");
	for (p = list; n > 0 && p < list + n; p += strlen(p) + 1)
		say(o, " %s", p);
	say(o, "; ");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

#define MAX_DENTS	16
#define DENT_NAME	(NAME_MAX + 8)

/* Directory entries, sorted: their order is the file system's. */
static void ob_dents(struct obs *o, char (*names)[DENT_NAME], int n)
{
	int i;

	qsort(names, n, sizeof(*names), cmp_str);
	say(o, "entries:");
	for (i = 0; i < n; i++)
		say(o, " %s", names[i]);
	say(o, "; ");
}

static void ob_sun(struct obs *o, const char *label,
		   const struct sockaddr_un *sun, socklen_t len)
{
	size_t head = offsetof(struct sockaddr_un, sun_path);

	say(o, "%s: len=%u family=%u path=\"%.*s\"; ", label, len,
	    sun->sun_family, len > head ? (int)(len - head) : 0,
	    sun->sun_path);
}

static void ob_sockname(struct obs *o, int fd, bool peer)
{
	struct sockaddr_un sun = { 0 };
	socklen_t len = sizeof(sun);
	int ret;

	ret = peer ? getpeername(fd, (struct sockaddr *)&sun, &len) :
		     getsockname(fd, (struct sockaddr *)&sun, &len);
	if (ret)
		say(o, "%s: %s; ", peer ? "peer" : "name", strerror(errno));
	else
		ob_sun(o, peer ? "peer" : "name", &sun, len);
}

static void ob_sockopt(struct obs *o, int fd, int opt, const char *label)
{
	socklen_t len = sizeof(int);
	int v = 0;

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len))
		say(o, "%s: %s; ", label, strerror(errno));
	else
		say(o, "%s=%d; ", label, v);
}

static void ob_ucred(struct obs *o, const struct ucred *c)
{
	say(o, "cred: pid=%s uid=%u gid=%u; ", who(c->pid), c->uid, c->gid);
}

/* Who the peer of a connected AF_UNIX socket is, as it was recorded. */
static void ob_peercred(struct obs *o, int fd)
{
	struct ucred c = { 0 };
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len))
		say(o, "peercred: %s; ", strerror(errno));
	else
		ob_ucred(o, &c);
}

/* The next datagram or bytes waiting on @fd, without waiting. */
static void ob_recv(struct obs *o, int fd)
{
	char b[128];
	ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);

	if (n < 0)
		say(o, "recv: %s; ", strerror(errno));
	else
		ob_bytes(o, "recv", b, n);
}

/* The bytes waiting in pipe @fd, without waiting. */
static void ob_read(struct obs *o, const char *label, int fd)
{
	int fl = fcntl(fd, F_GETFL);
	char b[128];
	ssize_t n;

	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	n = read(fd, b, sizeof(b));
	if (n < 0)
		say(o, "%s: %s; ", label, strerror(errno));
	else
		ob_bytes(o, label, b, n);
}

/* Bytes of memory that may be unmapped, read without faulting. */
static void ob_mem(struct obs *o, const char *label, const void *addr,
		   size_t n)
{
	char b[64];
	struct iovec local = { b, n }, remote = { (void *)addr, n };

	if (n > sizeof(b))
		n = sizeof(b);
	if (syscall(__NR_process_vm_readv, getpid(), &local, 1, &remote, 1,
		    0) != (long)n)
		say(o, "%s: unreadable; ", label);
	else
		ob_bytes(o, label, b, n);
}

/* The mappings of the region, in pages from its start, and their rights. */
static void ob_maps(struct obs *o)
{
	unsigned long start, end, lo = (unsigned long)region;
	unsigned long hi = lo + REGION_PAGES * pg;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f) {
		say(o, "maps: %s; ", strerror(errno));
		return;
	}
	say(o, "maps:");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
		    end <= lo || start >= hi)
			continue;
		say(o, " %lu-%lu:%s", ((start > lo ? start : lo) - lo) / pg,
		    ((end < hi ? end : hi) - lo) / pg, perms);
	}
	fclose(f);
	say(o, "; ");
}

/* The resident and locked sizes and the flags of the mapping at @addr. */
static void ob_vma(struct obs *o, const void *addr)
{
	unsigned long start, end;
	bool in = false, found = false;
	char line[512], *p;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f) {
		say(o, "smaps: %s; ", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		/* A field name may start like a hex number; a range has 2. */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = start == (unsigned long)addr;
			if (in)
				say(o, "vma +%lu: %lu pages",
				    (start - (unsigned long)region) / pg,
				    (end - start) / pg);
			found |= in;
			continue;
		}
		if (!in || (strncmp(line, "Rss:", 4) &&
			    strncmp(line, "Locked:", 7) &&
			    strncmp(line, "VmFlags:", 8)))
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* Columns are padded with runs of spaces. */
		for (p = line; *p; p++) {
			if (*p == ' ' && p[1] == ' ') {
				memmove(p, p + 1, strlen(p));
				p--;
			}
		}
		say(o, ", %s", line);
	}
	fclose(f);
	if (found)
		say(o, "; ");
	else
		say(o, "no vma at +%lu; ",
		    ((unsigned long)addr - (unsigned long)region) / pg);
}

/* --- Making the state a call acts on ------------------------------------ */

/* Fixed times for new files, so that the stat cases can compare them. */
static const struct timespec T0[2] = {
	{ .tv_sec = 1000000000, .tv_nsec = 123456789 },
	{ .tv_sec = 1000000100, .tv_nsec = 987654321 },
};

/* Keep @fd, made by a setup, to close it after the run: @fd, or -1. */
static int keep(struct run *r, int fd)
{
	unsigned int i;

	if (fd < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(r->fd); i++) {
		if (r->fd[i] < 0) {
			r->fd[i] = fd;
			return fd;
		}
	}
	close(fd);
	errno = EMFILE;
	return -1;
}

static int kopen(struct run *r, const char *name, int flags)
{
	return keep(r, open(name, flags | O_CLOEXEC, 0644));
}

/* A new file @name holding @data, mode 0644, times T0: 0, or -1. */
static int mkfile(const char *name, const char *data)
{
	size_t len = strlen(data);
	int fd, err = 0;

	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || futimens(fd, T0))
		err = errno ? errno : EIO;
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

/* "f" holding DATA, open with @flags and kept: its descriptor, or -1. */
static int file_fd(struct run *r, int flags)
{
	if (mkfile("f", DATA))
		return -1;
	return kopen(r, "f", flags);
}

/* A non-blocking pipe holding @data, kept: its read end, or -1. */
static int pipe_with(struct run *r, const char *data)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -1;
	keep(r, p[0]);
	if (keep(r, p[1]) < 0)
		return -1;
	if (write(p[1], data, strlen(data)) != (ssize_t)strlen(data))
		return -1;
	return p[0];
}

/* An AF_UNIX socket pair of @type, kept as the next two descriptors. */
static int pair(struct run *r, int type)
{
	int sv[2];

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv))
		return -1;
	keep(r, sv[0]);
	return keep(r, sv[1]) < 0 ? -1 : 0;
}

static void unix_addr(struct sockaddr_un *sun, socklen_t *len,
		      const char *name)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", name);
	*len = offsetof(struct sockaddr_un, sun_path) + strlen(name) + 1;
}

/* An AF_UNIX socket of @type bound to @name in the run's directory. */
static int bound(struct run *r, int type, const char *name)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	fd = keep(r, socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	unix_addr(&sun, &len, name);
	return bind(fd, (struct sockaddr *)&sun, len) ? -1 : fd;
}

/* A stream socket listening on "s". */
static int listening(struct run *r)
{
	int fd = bound(r, SOCK_STREAM, "s");

	return fd < 0 || listen(fd, 4) ? -1 : fd;
}

/* A stream socket connected to "s", which listens. */
static int connected(struct run *r)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	fd = keep(r, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	unix_addr(&sun, &len, "s");
	return connect(fd, (struct sockaddr *)&sun, len) ? -1 : fd;
}

/*
 * @n fresh private pages at the start of the region, the first @touched
 * of them filled with 'a', 'b', ...: 0, or -1.
 */
static int map_pages(unsigned int n, unsigned int touched)
{
	unsigned int i;

	if (mmap(region, n * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -1;
	for (i = 0; i < touched; i++)
		memset(region + i * pg, 'a' + i, pg);
	return 0;
}

/* A child that has exited with status 7, not yet reaped: 0, or -1. */
static int exited_child(struct run *r)
{
	siginfo_t si;

	r->child = fork();
	if (r->child < 0)
		return -1;
	if (!r->child)
		_exit(7);
	/* Wait for the exit without reaping it: the call finds it at once. */
	return waitid(P_PID, r->child, &si, WEXITED | WNOWAIT);
}

static long gettid_(void)
{
	return syscall(__NR_gettid);
}

/* The uid and gid the chown cases give: root can give any. */
static __u64 chown_uid(void)
{
	return geteuid() ? (__u64)-1 : 65534;
}

static __u64 chown_gid(void)
{
	return geteuid() ? getegid() : 65534;
}

/* --- Running a case ------------------------------------------------------ */

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The lowest free descriptor, which the next one made gets. */
static int lowest_fd(void)
{
	int fd = open("/", O_PATH | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Reap @pid if the call did not, after killing it if it still runs. */
static void reap(pid_t pid)
{
	if (waitpid(pid, NULL, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* The signals the test blocks; those sent to it stay pending. */
static void blocked_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIG);
	sigaddset(set, SIGUSR2);
	/* F_NOTIFY and F_SETLEASE raise it, its default kills. */
	sigaddset(set, SIGIO);
}

/* What every run leaves behind, undone. */
static void cleanup(struct run *r, const struct gcase *c, enum way way)
{
	struct timespec zero = { 0, 0 };
	unsigned int i;
	sigset_t set;

	for (i = 0; i < ARRAY_SIZE(r->fd); i++) {
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	}
	for (i = 0; i < ARRAY_SIZE(r->out); i++) {
		if (r->out[i] >= 0)
			close(r->out[i]);
	}
	if (way != NOCALL && (c->flags & RES_FD) && r->res >= 0 &&
	    r->res <= INT_MAX)
		close(r->res);
	if (r->child > 0)
		reap(r->child);
	mmap(region - pg, (REGION_PAGES + 2) * pg, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	blocked_set(&set);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
	umask(022);
}

/* The result, made the same in every run where it names run state. */
static long normalise(const struct gcase *c, const struct run *r)
{
	long lo = (long)region, hi = lo + REGION_PAGES * pg;

	if ((c->flags & RES_PID) && r->child > 0 && r->res == r->child)
		return RES_CHILD;
	if ((c->flags & RES_ADDR) && r->res >= lo && r->res < hi)
		return RES_REGION + (r->res - lo);
	return r->res;
}

static const char *res_str(long res, char *b, size_t size)
{
	if (res >= RES_REGION)
		snprintf(b, size, "region + %ld", res - RES_REGION);
	else if (res == RES_CHILD)
		snprintf(b, size, "the child's pid");
	else if (res < 0 && res > -4096)
		snprintf(b, size, "%ld (%s)", res, strerror(-res));
	else
		snprintf(b, size, "%ld", res);
	return b;
}

static long call_direct(const struct gcase *c, struct run *r)
{
	long ret;

	errno = 0;
	if (c->direct)
		ret = c->direct(r);
	else
		ret = syscall(c->nr, r->a[0], r->a[1], r->a[2], r->a[3],
			      r->a[4], r->a[5]);
	return ret == -1 ? -errno : ret;
}

/* The call as one entry with @flags: its result, once it has completed. */
static long call_entry(struct __test_metadata *_metadata,
		       const struct gcase *c, struct run *r,
		       unsigned int flags)
{
	static struct async_syscall e;

	async_prep(&e, c->nr, r->a[0], r->a[1], r->a[2], r->a[3], r->a[4],
		   r->a[5]);
	e.flags = flags;
	poison(&e);
	ASSERT_EQ(1, async_submit(&e, 1, 0))
		TH_LOG("%s: async_submit() refused the entry: %s", c->name,
		       strerror(errno));
	/* Its arguments point into R: nothing may go on while it runs. */
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S))
		TH_LOG("%s: the entry has not completed in %d s", c->name,
		       WAIT_TIMEOUT_S);
	return e.result;
}

struct outcome {
	long res;		/* normalised */
	bool ran;		/* the setup succeeded */
	int lowfd, lowfd_after;
	struct obs obs;
};

FIXTURE(generic) {
	char base[PATH_MAX];
	char run[PATH_MAX + 8];
};

/* One run of case @c, made @way, in a fresh directory. */
static void run_way(struct __test_metadata *_metadata,
		    struct _test_data_generic *self, const struct gcase *c,
		    enum way way, struct outcome *out)
{
	struct run *r = &R;
	unsigned int i;
	int err;

	memset(out, 0, sizeof(*out));
	rm_tree(self->run);
	ASSERT_EQ(0, mkdir(self->run, 0755))
		TH_LOG("mkdir %s: %s", self->run, strerror(errno));
	ASSERT_EQ(0, chdir(self->run));
	umask(022);
	out->lowfd = lowest_fd();

	memset(r, 0, sizeof(*r));
	for (i = 0; i < ARRAY_SIZE(r->fd); i++)
		r->fd[i] = -1;
	r->out[0] = -1;
	r->out[1] = -1;
	errno = 0;
	err = c->setup && c->setup(r) < 0 ? (errno ? errno : EIO) : 0;
	if (err) {
		TH_LOG("%s: the setup of the %s failed: %s", c->name,
		       way_name(way), strerror(err));
	} else {
		out->ran = true;
		if (way == DIRECT)
			r->res = call_direct(c, r);
		else if (way == INLINE)
			r->res = call_entry(_metadata, c, r, 0);
		else if (way == FORCED)
			r->res = call_entry(_metadata, c, r,
					    ASYNC_SYSCALL_FORCE_ASYNC);
		out->res = normalise(c, r);
		if (c->effect)
			c->effect(r, &out->obs);
	}
	if (c->teardown)
		c->teardown(r);
	cleanup(r, c, way);
	ASSERT_EQ(0, chdir(self->base));
	out->lowfd_after = lowest_fd();
	rm_tree(self->run);
}

static bool verbose(void)
{
	const char *v = getenv("GENERIC_VERBOSE");

	return v && *v && strcmp(v, "0");
}

static bool selected(const struct gcase *c)
{
	const char *only = getenv("GENERIC_CASE");

	return !only || !*only || !strcmp(only, c->name);
}

static const enum way three_ways[] = { DIRECT, INLINE, FORCED };
/* A refused call must leave what a run without the call leaves. */
static const enum way refused_ways[] = { NOCALL, INLINE, FORCED };

/*
 * Runs case @c the three @ways, each on fresh state, and expects the
 * results of the second and third to be the first's, or @want if not 0,
 * and their effects to be the first's.
 */
static void run_case(struct __test_metadata *_metadata,
		     struct _test_data_generic *self, const struct gcase *c,
		     const enum way *ways, long want)
{
	struct outcome out[3], *base = &out[0];
	char b1[64], b2[64];
	int w;

	for (w = 0; w < 3; w++)
		run_way(_metadata, self, c, ways[w], &out[w]);
	for (w = 0; w < 3; w++) {
		EXPECT_TRUE(out[w].ran);
		/* A leak would shift the descriptors of the next runs. */
		EXPECT_EQ(out[w].lowfd, out[w].lowfd_after)
			TH_LOG("%s: the %s leaves descriptor %d open",
			       c->name, way_name(ways[w]), out[w].lowfd);
		if (verbose())
			fprintf(stderr, "# %-24s %-17s %s: %s\n", c->name,
				way_name(ways[w]),
				res_str(out[w].res, b1, sizeof(b1)),
				out[w].obs.s);
	}
	if (!base->ran)
		return;
	if (ways[0] == DIRECT && (c->flags & OK))
		EXPECT_LE(0, base->res)
			TH_LOG("%s: the direct call fails, %s: the case tests nothing",
			       c->name, res_str(base->res, b1, sizeof(b1)));
	if (ways[0] == DIRECT && c->err)
		EXPECT_EQ(-c->err, base->res)
			TH_LOG("%s: the direct call returns %s, not %s",
			       c->name, res_str(base->res, b1, sizeof(b1)),
			       strerror(c->err));
	for (w = 1; w < 3; w++) {
		if (!out[w].ran)
			continue;
		EXPECT_EQ(base->lowfd, out[w].lowfd)
			TH_LOG("%s: the %s starts with other descriptors free",
			       c->name, way_name(ways[w]));
		EXPECT_EQ(want ? want : base->res, out[w].res)
			TH_LOG("%s: the %s returns %s, the %s %s", c->name,
			       way_name(ways[w]),
			       res_str(out[w].res, b1, sizeof(b1)),
			       want ? "expected" : way_name(ways[0]),
			       res_str(want ? want : base->res, b2,
				       sizeof(b2)));
		EXPECT_STREQ(base->obs.s, out[w].obs.s)
			TH_LOG("%s: what the %s leaves differs from what the %s leaves",
			       c->name, way_name(ways[w]), way_name(ways[0]));
	}
}

/* --- Data ----------------------------------------------------------------- */

static void iovecs(struct iovec *iov, void *a, size_t alen, void *b,
		   size_t blen)
{
	iov[0] = (struct iovec){ a, alen };
	iov[1] = (struct iovec){ b, blen };
}

static int su_read(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	if (lseek(fd, 4, SEEK_SET) < 0)
		return -1;
	ARGS(r, fd, P(r->buf), 10);
	return 0;
}

static int su_pread64(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	ARGS(r, fd, P(r->buf), 12, 7);
	return 0;
}

static int su_readv(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	iovecs(r->iov, r->buf, 5, r->buf2, 7);
	ARGS(r, fd, P(r->iov), 2);
	return 0;
}

static int su_preadv(struct run *r)
{
	if (su_readv(r) < 0)
		return -1;
	/* pos_l, pos_h: a 64-bit offset is all in pos_l. */
	ARGS(r, r->fd[0], P(r->iov), 2, 3, 0);
	return 0;
}

static int su_preadv2(struct run *r)
{
	if (su_readv(r) < 0)
		return -1;
	if (lseek(r->fd[0], 2, SEEK_SET) < 0)
		return -1;
	/* Offset -1: from the file position, which it moves. */
	ARGS(r, r->fd[0], P(r->iov), 2, -1, 0, 0);
	return 0;
}

/* What the reads left in the buffers, and the file position. */
static void ef_read(struct run *r, struct obs *o)
{
	ob_bytes(o, "buf", r->buf, 16);
	ob_bytes(o, "buf2", r->buf2, 16);
	ob_pos(o, r->fd[0]);
}

/*
 * A signalfd reads what is pending on the calling thread and on the
 * process.  On a worker the calling thread is the worker, so only a
 * signal sent to the process reads the same (the rst says so): that is
 * what this sends.
 */
static int su_read_signalfd(struct run *r)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	fd = keep(r, signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
	if (fd < 0)
		return -1;
	if (kill(getpid(), SIGUSR2))
		return -1;
	ARGS(r, fd, P(r->buf), sizeof(struct signalfd_siginfo));
	return 0;
}

/* The signal read, and what is still pending. */
static void ef_read_signalfd(struct run *r, struct obs *o)
{
	struct signalfd_siginfo si;

	memcpy(&si, r->buf, sizeof(si));
	say(o, "read: signo=%u code=%d pid=%s; ", si.ssi_signo, si.ssi_code,
	    who(si.ssi_pid));
	ob_pending(o);
}

static int su_write(struct run *r)
{
	int fd;

	fd = file_fd(r, O_WRONLY);
	if (fd < 0)
		return -1;
	if (lseek(fd, 4, SEEK_SET) < 0)
		return -1;
	ARGS(r, fd, P("HELLO"), 5);
	return 0;
}

static int su_pwrite64(struct run *r)
{
	int fd;

	fd = file_fd(r, O_WRONLY);
	if (fd < 0)
		return -1;
	/* Past the end: a hole of zeroes before it. */
	ARGS(r, fd, P("XYZ"), 3, 50);
	return 0;
}

static int su_writev(struct run *r)
{
	int fd;

	fd = file_fd(r, O_WRONLY);
	if (fd < 0)
		return -1;
	if (lseek(fd, 10, SEEK_SET) < 0)
		return -1;
	iovecs(r->iov, "ab", 2, "cde", 3);
	ARGS(r, fd, P(r->iov), 2);
	return 0;
}

static int su_pwritev(struct run *r)
{
	if (su_writev(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(r->iov), 2, 8, 0);
	return 0;
}

static int su_pwritev2(struct run *r)
{
	if (su_writev(r) < 0)
		return -1;
	/* RWF_APPEND: at the end, whatever the offset. */
	ARGS(r, r->fd[0], P(r->iov), 2, 0, 0, RWF_APPEND);
	return 0;
}

/* The file's bytes and size, and the file position. */
static void ef_write(struct run *r, struct obs *o)
{
	ob_file(o, "f");
	ob_stat(o, "f");
	ob_pos(o, r->fd[0]);
}

/* --- Descriptors ---------------------------------------------------------- */

/* The descriptor the call returned. */
static void ef_newfd(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
}

static void ef_fd0(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->fd[0]);
}

static void ef_fd01(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->fd[0]);
	ob_fdesc(o, r->fd[1]);
}

static int su_f(struct run *r)
{
	if (mkfile("f", DATA) < 0)
		return -1;
	return 0;
}

static int su_openat_rdonly(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), O_RDONLY | O_CLOEXEC);
	return 0;
}

static int su_openat_creat(struct run *r)
{
	ARGS(r, AT_FDCWD, P("n"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	return 0;
}

/* The new descriptor, and the file it made. */
static void ef_newfd_n(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	ob_stat(o, "n");
}

static int su_openat2(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	r->how.flags = O_RDONLY | O_CLOEXEC;
	r->how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	ARGS(r, AT_FDCWD, P("f"), P(&r->how), sizeof(r->how));
	return 0;
}

static int su_open_by_handle_at(struct run *r)
{
	int mfd;

	if (su_f(r) < 0)
		return -1;
	FH(r)->handle_bytes = MAX_HANDLE_SZ;
	/* Without support or privilege, every way fails alike. */
	name_to_handle_at(AT_FDCWD, "f", FH(r), &r->mount_id, 0);
	mfd = kopen(r, ".", O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		return -1;
	ARGS(r, mfd, P(FH(r)), O_RDONLY | O_CLOEXEC);
	return 0;
}

static int su_close(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	ARGS(r, fd);
	return 0;
}

/* Two descriptors of "f", fd[0] < fd[1]. */
static int two_fds(struct run *r)
{
	if (file_fd(r, O_RDONLY) < 0)
		return -1;
	if (kopen(r, "f", O_RDONLY) < 0)
		return -1;
	return 0;
}

static int su_close_range(struct run *r)
{
	if (two_fds(r) < 0)
		return -1;
	ARGS(r, r->fd[0], r->fd[1], 0);
	return 0;
}

static int su_close_range_cloexec(struct run *r)
{
	if (two_fds(r) < 0)
		return -1;
	/* Made without O_CLOEXEC, which the call sets. */
	if (fcntl(r->fd[0], F_SETFD, 0) < 0)
		return -1;
	if (fcntl(r->fd[1], F_SETFD, 0) < 0)
		return -1;
	ARGS(r, r->fd[0], r->fd[1], CLOSE_RANGE_CLOEXEC);
	return 0;
}

static int su_dup(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	ARGS(r, fd);
	return 0;
}

static int su_dup3(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], FD_HIGH, O_CLOEXEC);
	return 0;
}

static int su_fcntl_setfl(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], F_SETFL, O_APPEND | O_NONBLOCK);
	return 0;
}

static int su_fcntl_dupfd(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], F_DUPFD_CLOEXEC, FD_HIGH);
	return 0;
}

static int su_fcntl_setlkw(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDWR);
	if (fd < 0)
		return -1;
	r->fl.l_type = F_WRLCK;
	r->fl.l_whence = SEEK_SET;
	r->fl.l_start = 2;
	r->fl.l_len = 10;
	/* No one holds it: F_SETLKW takes it at once. */
	ARGS(r, fd, F_SETLKW, P(&r->fl));
	return 0;
}

/* The lock as another open file description sees it: this process's. */
static void ef_lock(struct run *r, struct obs *o)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open("f", O_RDWR | O_CLOEXEC);

	if (fd < 0 || fcntl(fd, F_OFD_GETLK, &fl)) {
		say(o, "getlk: %s; ", strerror(errno));
	} else {
		say(o, "lock: type=%d start=%lld len=%lld pid=%s; ", fl.l_type,
		    (long long)fl.l_start, (long long)fl.l_len,
		    who(fl.l_pid));
	}
	if (fd >= 0)
		close(fd);
}

static int su_fcntl_setlease(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], F_SETLEASE, F_RDLCK);
	return 0;
}

static int su_fcntl_notify(struct run *r)
{
	int fd;

	fd = kopen(r, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	ARGS(r, fd, F_NOTIFY, DN_CREATE | DN_MULTISHOT);
	return 0;
}

/*
 * The lease, and the owner that its break or the directory's notification
 * signals: made on a worker, the worker's pid with PIDTYPE_TGID, which
 * F_GETOWN shows as none, and which nothing signals once the worker is
 * gone.  The check refuses both.
 */
static void ef_owner(struct run *r, struct obs *o)
{
	say(o, "lease=%d owner=%s; ", fcntl(r->fd[0], F_GETLEASE),
	    who(fcntl(r->fd[0], F_GETOWN)));
}

static int su_flock(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	/* No one holds it: it is taken at once. */
	ARGS(r, r->fd[0], LOCK_EX);
	return 0;
}

/* Whether another open file description can take the lock. */
static void ef_flock(struct run *r, struct obs *o)
{
	int fd = open("f", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		say(o, "open: %s; ", strerror(errno));
	else if (flock(fd, LOCK_EX | LOCK_NB))
		say(o, "flock by another: %s; ", strerror(errno));
	else
		say(o, "flock by another: taken; ");
	if (fd >= 0)
		close(fd);
}

static int su_pipe2(struct run *r)
{
	ARGS(r, P(r->out), O_CLOEXEC | O_NONBLOCK);
	return 0;
}

/* The two ends the call wrote, and that bytes go through. */
static void ef_pipe(struct run *r, struct obs *o)
{
	ssize_t n;

	ob_fdesc(o, r->out[0]);
	ob_fdesc(o, r->out[1]);
	if (r->out[0] < 0 || r->out[1] < 0)
		return;
	n = write(r->out[1], "ping", 4);
	say(o, "write: %zd; ", n);
	ob_read(o, "read", r->out[0]);
}

static int su_memfd_create(struct run *r)
{
	ARGS(r, P("gt"), MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return 0;
}

static void ef_memfd(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	if (r->res >= 0)
		say(o, "seals=%#x; ", fcntl(r->res, F_GET_SEALS));
}

static int su_eventfd2(struct run *r)
{
	ARGS(r, 3, EFD_CLOEXEC | EFD_NONBLOCK);
	return 0;
}

/* The new counter's value. */
static void ef_eventfd(struct run *r, struct obs *o)
{
	__u64 v = 0;
	ssize_t n;

	ob_fdesc(o, r->res);
	if (r->res < 0)
		return;
	n = read(r->res, &v, sizeof(v));
	say(o, "read %zd: %llu; ", n, (unsigned long long)v);
}

static int su_signalfd4(struct run *r)
{
	r->ksig = 1ULL << (SIGUSR2 - 1);
	ARGS(r, -1, P(&r->ksig), sizeof(r->ksig), SFD_CLOEXEC | SFD_NONBLOCK);
	return 0;
}

static void ef_signalfd(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	ob_fdinfo(o, r->res, "sigmask:");
}

static int su_timerfd_create(struct run *r)
{
	ARGS(r, CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return 0;
}

static void ef_timerfd(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	ob_fdinfo(o, r->res, "clockid:");
}

/*
 * A timer's interval, and whether it is armed within @max_s seconds: the
 * time left runs down, and differs from run to run.
 */
static void ob_timer(struct obs *o, const struct itimerspec *its,
		     time_t max_s)
{
	say(o, "interval=%lld.%09ld armed=%d; ",
	    (long long)its->it_interval.tv_sec, its->it_interval.tv_nsec,
	    (its->it_value.tv_sec || its->it_value.tv_nsec) &&
	    its->it_value.tv_sec <= max_s);
}

static int su_timerfd_settime(struct run *r)
{
	int fd;

	fd = keep(r, timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
	if (fd < 0)
		return -1;
	r->its.it_interval.tv_sec = 5;
	r->its.it_value.tv_sec = 100;
	/* The old value, disarmed, is written as zeroes over this. */
	memset(&r->its2, 0x5a, sizeof(r->its2));
	ARGS(r, fd, 0, P(&r->its), P(&r->its2));
	return 0;
}

static void ef_timerfd_settime(struct run *r, struct obs *o)
{
	struct itimerspec cur;

	ob_bytes(o, "old", &r->its2, sizeof(r->its2));
	if (timerfd_gettime(r->fd[0], &cur))
		say(o, "gettime: %s; ", strerror(errno));
	else
		ob_timer(o, &cur, 100);
}

static int su_timerfd_gettime(struct run *r)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = 7 },
		.it_value = { .tv_sec = 1000 },
	};
	int fd;

	fd = keep(r, timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
	if (fd < 0)
		return -1;
	if (timerfd_settime(fd, 0, &its, NULL) < 0)
		return -1;
	ARGS(r, fd, P(&r->its2));
	return 0;
}

/* What the call wrote: the interval, and the time left within bounds. */
static void ef_timerfd_gettime(struct run *r, struct obs *o)
{
	ob_timer(o, &r->its2, 1000);
}

static int su_epoll_create1(struct run *r)
{
	ARGS(r, EPOLL_CLOEXEC);
	return 0;
}

/* What epoll_wait() on instance @ep reports at once. */
static void ob_epoll(struct obs *o, int ep)
{
	struct epoll_event ev[4];
	int i, n = epoll_wait(ep, ev, 4, 0);

	say(o, "epoll_wait: %d", n < 0 ? -errno : n);
	for (i = 0; i < n; i++)
		say(o, " {%#x %#llx}", ev[i].events,
		    (unsigned long long)ev[i].data.u64);
	say(o, "; ");
}

static int su_epoll_ctl(struct run *r)
{
	int p, ep;

	p = pipe_with(r, "x");
	if (p < 0)
		return -1;
	ep = keep(r, epoll_create1(EPOLL_CLOEXEC));
	if (ep < 0)
		return -1;
	r->ev[0].events = EPOLLIN;
	r->ev[0].data.u64 = 0x1234;
	ARGS(r, ep, EPOLL_CTL_ADD, p, P(&r->ev[0]));
	return 0;
}

static void ef_epoll_ctl(struct run *r, struct obs *o)
{
	ob_epoll(o, r->fd[2]);
}

static int su_inotify_init1(struct run *r)
{
	ARGS(r, IN_CLOEXEC | IN_NONBLOCK);
	return 0;
}

/* The events waiting on inotify instance @fd. */
static void ob_inotify(struct obs *o, int fd)
{
	union {
		struct inotify_event ev;
		char b[1024];
	} u;
	struct inotify_event *ev;
	ssize_t n = read(fd, &u, sizeof(u));
	char *p;

	if (n < 0) {
		say(o, "inotify: %s; ", strerror(errno));
		return;
	}
	say(o, "inotify:");
	for (p = u.b; p + sizeof(*ev) <= u.b + n; p += sizeof(*ev) + ev->len) {
		ev = (struct inotify_event *)p;
		say(o, " {wd=%d mask=%#x name=%s}", ev->wd, ev->mask,
		    ev->len ? ev->name : "");
	}
	say(o, "; ");
}

static int su_inotify_add_watch(struct run *r)
{
	int fd;

	fd = keep(r, inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
	if (fd < 0)
		return -1;
	ARGS(r, fd, P("."), IN_CREATE | IN_DELETE);
	return 0;
}

/* The events of a file made and removed in the watched directory. */
static void ef_inotify_add_watch(struct run *r, struct obs *o)
{
	if (!mkfile("ev", ""))
		unlink("ev");
	ob_inotify(o, r->fd[0]);
}

static int su_inotify_rm_watch(struct run *r)
{
	int fd, wd;

	fd = keep(r, inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
	if (fd < 0)
		return -1;
	wd = inotify_add_watch(fd, ".", IN_CREATE);
	if (wd < 0)
		return -1;
	ARGS(r, fd, wd);
	return 0;
}

/* IN_IGNORED, once the watch is gone. */
static void ef_inotify_rm_watch(struct run *r, struct obs *o)
{
	ob_inotify(o, r->fd[0]);
}

static int su_fanotify_init(struct run *r)
{
	ARGS(r, FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
	     O_RDONLY | O_CLOEXEC);
	return 0;
}

static void ef_fanotify_init(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	ob_fdinfo(o, r->res, "fanotify flags:");
}

static int su_fanotify_mark(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	/* Without fanotify or the privilege, every way gets EBADF. */
	keep(r, fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
			      O_RDONLY | O_CLOEXEC));
	ARGS(r, r->fd[0], FAN_MARK_ADD, FAN_CLOSE_WRITE, AT_FDCWD, P("f"));
	return 0;
}

/* The event of a write open of "f" closed. */
static void ef_fanotify_mark(struct run *r, struct obs *o)
{
	union {
		struct fanotify_event_metadata m;
		char b[1024];
	} u;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open("f", O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	if (r->fd[0] < 0)
		return;
	n = read(r->fd[0], &u, sizeof(u));
	if (n < (ssize_t)sizeof(u.m)) {
		say(o, "fanotify: %zd %s; ", n, n < 0 ? strerror(errno) : "");
		return;
	}
	say(o, "fanotify: mask=%#llx pid=%s", (unsigned long long)u.m.mask,
	    who(u.m.pid));
	if (u.m.fd >= 0) {
		if (!fstat(u.m.fd, &st))
			say(o, " size=%lld", (long long)st.st_size);
		close(u.m.fd);
	}
	say(o, "; ");
}

static int su_pidfd_open(struct run *r)
{
	ARGS(r, getpid(), 0);
	return 0;
}

static void ef_pidfd_open(struct run *r, struct obs *o)
{
	ob_pidfd(o, r->res);
}

/* A pidfd of this process, kept. */
static int self_pidfd(struct run *r)
{
	return keep(r, syscall(__NR_pidfd_open, getpid(), 0));
}

static int su_pidfd_getfd(struct run *r)
{
	int fd, pidfd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	pidfd = self_pidfd(r);
	if (pidfd < 0)
		return -1;
	ARGS(r, pidfd, fd, 0);
	return 0;
}

/* --- Names ---------------------------------------------------------------- */

static int su_renameat(struct run *r)
{
	if (mkfile("a", "A") < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("a"), AT_FDCWD, P("b"));
	return 0;
}

static int su_renameat2(struct run *r)
{
	if (mkfile("a", "A") < 0)
		return -1;
	if (mkfile("b", "B") < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("a"), AT_FDCWD, P("b"), RENAME_EXCHANGE);
	return 0;
}

static void ef_ab(struct run *r, struct obs *o)
{
	ob_file(o, "a");
	ob_file(o, "b");
}

static int su_unlinkat(struct run *r)
{
	if (mkdir("d", 0755) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("d"), AT_REMOVEDIR);
	return 0;
}

static int su_mkdirat(struct run *r)
{
	ARGS(r, AT_FDCWD, P("d"), 0750);
	return 0;
}

static void ef_d(struct run *r, struct obs *o)
{
	ob_stat(o, "d");
}

static int su_mknodat(struct run *r)
{
	ARGS(r, AT_FDCWD, P("p"), S_IFIFO | 0640, 0);
	return 0;
}

static void ef_p(struct run *r, struct obs *o)
{
	ob_stat(o, "p");
}

static int su_linkat(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), AT_FDCWD, P("l"), 0);
	return 0;
}

static void ef_link(struct run *r, struct obs *o)
{
	ob_stat(o, "f");
	ob_stat(o, "l");
	ob_file(o, "l");
}

static int su_symlinkat(struct run *r)
{
	ARGS(r, P("some/target"), AT_FDCWD, P("sl"));
	return 0;
}

static void ef_symlink(struct run *r, struct obs *o)
{
	ob_link(o, "sl");
	ob_stat(o, "sl");
}

static int su_readlinkat(struct run *r)
{
	if (symlink("some/target", "sl") < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("sl"), P(r->buf), 64);
	return 0;
}

static void ef_buf(struct run *r, struct obs *o)
{
	ob_bytes(o, "buf", r->buf, 24);
}

static int su_name_to_handle_at(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	FH(r)->handle_bytes = MAX_HANDLE_SZ;
	r->mount_id = -1;
	ARGS(r, AT_FDCWD, P("f"), P(FH(r)), P(&r->mount_id), 0);
	return 0;
}

/*
 * The handle's size and type, but not its bytes, which hold the inode
 * number of a file new in every run; its mount; and that it opens "f".
 */
static void ef_name_to_handle_at(struct run *r, struct obs *o)
{
	struct stat st;
	int mfd, fd;

	say(o, "handle: bytes=%u type=%d mount=%d; ", FH(r)->handle_bytes,
	    FH(r)->handle_type, r->mount_id);
	mfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = open_by_handle_at(mfd, FH(r), O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		say(o, "open_by_handle_at: %s; ", strerror(errno));
	else
		say(o, "open_by_handle_at: size=%lld; ", (long long)st.st_size);
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
}

static int su_getcwd(struct run *r)
{
	ARGS(r, P(r->buf), sizeof(r->buf));
	return 0;
}

static void ef_getcwd(struct run *r, struct obs *o)
{
	say(o, "buf=%.*s; ", (int)sizeof(r->buf), r->buf);
}

static int su_chdir(struct run *r)
{
	if (mkdir("d", 0755) < 0)
		return -1;
	ARGS(r, P("d"));
	return 0;
}

static int su_fchdir(struct run *r)
{
	int fd;

	if (mkdir("d", 0755) < 0)
		return -1;
	fd = kopen(r, "d", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	ARGS(r, fd);
	return 0;
}

/* Where this process is now; run_way() goes back. */
static void ef_cwd(struct run *r, struct obs *o)
{
	char b[PATH_MAX];

	say(o, "cwd=%s; ", getcwd(b, sizeof(b)) ? b : strerror(errno));
}

static int su_umask(struct run *r)
{
	ARGS(r, 027);
	return 0;
}

/* The process's mask now, and the mode of a file made with it. */
static void ef_umask(struct run *r, struct obs *o)
{
	mode_t m = umask(0);
	int fd;

	umask(m);
	say(o, "umask=%#o; ", m);
	fd = open("n", O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0)
		close(fd);
	ob_stat(o, "n");
}

/* --- Attributes ----------------------------------------------------------- */

static int su_statx(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
	     P(&r->stx));
	return 0;
}

static void ef_statx(struct run *r, struct obs *o)
{
	const struct statx *s = &r->stx;

	say(o, "stx: mask=%#x mode=%o nlink=%u uid=%u gid=%u size=%llu ",
	    s->stx_mask, s->stx_mode, s->stx_nlink, s->stx_uid, s->stx_gid,
	    (unsigned long long)s->stx_size);
	say(o, "blocks=%llu blksize=%u atime=%lld.%09u mtime=%lld.%09u; ",
	    (unsigned long long)s->stx_blocks, s->stx_blksize,
	    (long long)s->stx_atime.tv_sec, s->stx_atime.tv_nsec,
	    (long long)s->stx_mtime.tv_sec, s->stx_mtime.tv_nsec);
}

static int su_newfstatat(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), P(&r->st), 0);
	return 0;
}

static int su_fstat(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(&r->st));
	return 0;
}

static void ef_st(struct run *r, struct obs *o)
{
	ob_statbuf(o, &r->st);
}

static int su_statfs(struct run *r)
{
	ARGS(r, P("."), P(&r->sfs));
	return 0;
}

static int su_fstatfs(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(&r->sfs));
	return 0;
}

/* What does not change as other runs use space. */
static void ef_sfs(struct run *r, struct obs *o)
{
	say(o, "sfs: type=%#llx bsize=%lld namelen=%lld ",
	    (unsigned long long)r->sfs.f_type, (long long)r->sfs.f_bsize,
	    (long long)r->sfs.f_namelen);
	say(o, "frsize=%lld flags=%#llx; ", (long long)r->sfs.f_frsize,
	    (unsigned long long)r->sfs.f_flags);
}

static int su_faccessat(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), R_OK | W_OK);
	return 0;
}

static int su_faccessat2(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	/* No execute bit: refused even to root. */
	ARGS(r, AT_FDCWD, P("f"), X_OK, AT_EACCESS);
	return 0;
}

static void ef_f(struct run *r, struct obs *o)
{
	ob_stat(o, "f");
}

static int su_fchmod(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], 0600);
	return 0;
}

static int su_fchmodat(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), 0604);
	return 0;
}

static int su_fchmodat2(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(""), 0620, AT_EMPTY_PATH);
	return 0;
}

static int su_fchown(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], chown_uid(), chown_gid());
	return 0;
}

/* "f" and a symbolic link "sl" to it, both with times T0. */
static int f_and_link(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	if (symlink("f", "sl") < 0)
		return -1;
	if (utimensat(AT_FDCWD, "sl", T0, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	return 0;
}

static int su_fchownat(struct run *r)
{
	if (f_and_link(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("sl"), chown_uid(), chown_gid(),
	     AT_SYMLINK_NOFOLLOW);
	return 0;
}

/* The link and the file it names. */
static void ef_f_sl(struct run *r, struct obs *o)
{
	ob_stat(o, "sl");
	ob_stat(o, "f");
}

static int su_utimensat(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	r->ts[0] = (struct timespec){ .tv_sec = 2000000000, .tv_nsec = 5 };
	r->ts[1] = (struct timespec){ .tv_nsec = UTIME_OMIT };
	ARGS(r, AT_FDCWD, P("f"), P(r->ts), 0);
	return 0;
}

static void ef_times(struct run *r, struct obs *o)
{
	ob_times(o, "f");
}

static int su_truncate(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), 10);
	return 0;
}

static int su_ftruncate(struct run *r)
{
	int fd;

	fd = file_fd(r, O_WRONLY);
	if (fd < 0)
		return -1;
	ARGS(r, fd, 3);
	return 0;
}

static void ef_size(struct run *r, struct obs *o)
{
	ob_file(o, "f");
	ob_stat(o, "f");
}

static int su_lseek(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], -5, SEEK_END);
	return 0;
}

static void ef_pos0(struct run *r, struct obs *o)
{
	ob_pos(o, r->fd[0]);
}

/* A directory with two files and a subdirectory, open as fd[0]. */
static int su_dents(struct run *r)
{
	int fd;

	if (mkfile("a", "A") < 0)
		return -1;
	if (mkfile("b", "B") < 0)
		return -1;
	if (mkdir("c", 0755) < 0)
		return -1;
	fd = kopen(r, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	ARGS(r, fd, P(r->buf), sizeof(r->buf));
	return 0;
}

static void ef_getdents64(struct run *r, struct obs *o)
{
	char names[MAX_DENTS][DENT_NAME];
	const struct gt_dirent64 *d;
	long off;
	int n = 0;

	for (off = 0; off < r->res && n < MAX_DENTS; off += d->d_reclen) {
		d = (const struct gt_dirent64 *)(r->buf + off);
		if (!d->d_reclen)
			break;
		snprintf(names[n++], sizeof(names[0]), "%s/%u", d->d_name,
			 d->d_type);
	}
	ob_dents(o, names, n);
}

/* --- Extended attributes -------------------------------------------------- */

/*
 * "f" with user.k = "v1", open as fd[0].  Without user extended attributes
 * here, every way fails alike.
 */
static int su_x(struct run *r)
{
	if (file_fd(r, O_RDWR) < 0)
		return -1;
	setxattr("f", "user.k", "v1", 2, 0);
	return 0;
}

static int su_setxattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, P("f"), P("user.n"), P("new"), 3, XATTR_CREATE);
	return 0;
}

static int su_lsetxattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, P("f"), P("user.n"), P("lnew"), 4, 0);
	return 0;
}

static int su_fsetxattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P("user.k"), P("v2"), 2, XATTR_REPLACE);
	return 0;
}

static void ef_xattrs(struct run *r, struct obs *o)
{
	ob_xattrs(o, "f");
}

static int su_getxattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, P("f"), P("user.k"), P(r->buf), 64);
	return 0;
}

static int su_fgetxattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P("user.k"), P(r->buf), 64);
	return 0;
}

static int su_listxattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	setxattr("f", "user.k2", "", 0, 0);
	ARGS(r, P("f"), P(r->buf), 256);
	return 0;
}

static int su_flistxattr(struct run *r)
{
	if (su_listxattr(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(r->buf), 256);
	return 0;
}

static void ef_listxattr(struct run *r, struct obs *o)
{
	ob_names(o, r->buf, r->res);
}

static int su_removexattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, P("f"), P("user.k"));
	return 0;
}

static int su_fremovexattr(struct run *r)
{
	if (su_x(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P("user.k"));
	return 0;
}

/* --- Durability ----------------------------------------------------------- */

/* "f" with bytes written over DATA, open as fd[0]. */
static int su_dirty(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDWR);
	if (fd < 0)
		return -1;
	if (pwrite(fd, "dirty", 5, 0) < 0)
		return -1;
	ARGS(r, fd);
	return 0;
}

static int su_sync_file_range(struct run *r)
{
	if (su_dirty(r) < 0)
		return -1;
	ARGS(r, r->fd[0], 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
	     SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
	return 0;
}

static int su_sync(struct run *r)
{
	if (su_dirty(r) < 0)
		return -1;
	ARGS(r, 0);
	return 0;
}

static int su_fsync_range(struct run *r)
{
	if (su_dirty(r) < 0)
		return -1;
	ARGS(r, r->fd[0], 0, 0, 0);
	return 0;
}

/* No system call syncs a range: the whole file, as fsync() does it. */
static long direct_fsync_range(struct run *r)
{
	return fsync(r->a[0]);
}

static void ef_file(struct run *r, struct obs *o)
{
	ob_file(o, "f");
}

/* --- Page cache and space ------------------------------------------------- */

static int su_readahead(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], 0, 8192);
	return 0;
}

static int su_fadvise64(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

static int su_fallocate(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDWR);
	if (fd < 0)
		return -1;
	ARGS(r, fd, FALLOC_FL_KEEP_SIZE, 0, 65536);
	return 0;
}

static int su_cachestat(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(&r->csr), P(&r->cs), 0);
	return 0;
}

static void ef_cachestat(struct run *r, struct obs *o)
{
	say(o, "cache=%llu dirty=%llu writeback=%llu ",
	    (unsigned long long)r->cs.nr_cache,
	    (unsigned long long)r->cs.nr_dirty,
	    (unsigned long long)r->cs.nr_writeback);
	say(o, "evicted=%llu recently_evicted=%llu; ",
	    (unsigned long long)r->cs.nr_evicted,
	    (unsigned long long)r->cs.nr_recently_evicted);
}

/* --- Copies between descriptors ------------------------------------------- */

/* "f" open as fd[0], and an empty "o" as fd[1]. */
static int in_out(struct run *r)
{
	if (file_fd(r, O_RDONLY) < 0)
		return -1;
	if (kopen(r, "o", O_WRONLY | O_CREAT | O_EXCL) < 0)
		return -1;
	return 0;
}

static int su_copy_file_range(struct run *r)
{
	if (in_out(r) < 0)
		return -1;
	r->off = 4;
	r->off2 = 2;
	ARGS(r, r->fd[0], P(&r->off), r->fd[1], P(&r->off2), 10, 0);
	return 0;
}

static int su_sendfile(struct run *r)
{
	if (in_out(r) < 0)
		return -1;
	r->off = 3;
	ARGS(r, r->fd[1], r->fd[0], P(&r->off), 8);
	return 0;
}

/* What reached "o", the offsets the call moved, the file positions. */
static void ef_copy(struct run *r, struct obs *o)
{
	ob_file(o, "o");
	say(o, "off=%lld off2=%lld; ", (long long)r->off, (long long)r->off2);
	ob_pos(o, r->fd[0]);
	ob_pos(o, r->fd[1]);
}

static int su_splice(struct run *r)
{
	int p, fd;

	p = pipe_with(r, "spliced data");
	if (p < 0)
		return -1;
	fd = kopen(r, "o", O_WRONLY | O_CREAT | O_EXCL);
	if (fd < 0)
		return -1;
	r->off2 = 5;
	ARGS(r, p, 0, fd, P(&r->off2), 64, 0);
	return 0;
}

static void ef_splice(struct run *r, struct obs *o)
{
	ob_file(o, "o");
	say(o, "off2=%lld; ", (long long)r->off2);
	ob_read(o, "left", r->fd[0]);
}

static int su_tee(struct run *r)
{
	int p, q[2];

	p = pipe_with(r, "teed");
	if (p < 0)
		return -1;
	if (pipe2(q, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	keep(r, q[0]);
	if (keep(r, q[1]) < 0)
		return -1;
	ARGS(r, p, q[1], 64, 0);
	return 0;
}

/* What the second pipe got, and that the first still holds it. */
static void ef_tee(struct run *r, struct obs *o)
{
	ob_read(o, "copy", r->fd[2]);
	ob_read(o, "source", r->fd[0]);
}

/* --- Memory --------------------------------------------------------------- */

static int su_munmap(struct run *r)
{
	if (map_pages(4, 4) < 0)
		return -1;
	ARGS(r, P(region + pg), 2 * pg);
	return 0;
}

static void ef_maps(struct run *r, struct obs *o)
{
	ob_maps(o);
}

static int su_mremap(struct run *r)
{
	if (map_pages(2, 2) < 0)
		return -1;
	ARGS(r, P(region), 2 * pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_FIXED,
	     P(region + 8 * pg));
	return 0;
}

/* The mappings, and what the moved pages hold. */
static void ef_mremap(struct run *r, struct obs *o)
{
	ob_maps(o);
	ob_mem(o, "page 8", region + 8 * pg, 4);
	ob_mem(o, "page 9", region + 9 * pg, 4);
}

/* What the first two pages hold, and their mapping. */
static void ef_pages(struct run *r, struct obs *o)
{
	ob_mem(o, "page 0", region, 4);
	ob_mem(o, "page 1", region + pg, 4);
	ob_vma(o, region);
}

static int su_madvise(struct run *r)
{
	if (map_pages(2, 2) < 0)
		return -1;
	/* Private anonymous pages: they read as zeroes afterwards. */
	ARGS(r, P(region), 2 * pg, MADV_DONTNEED);
	return 0;
}

static int su_process_madvise(struct run *r)
{
	int pidfd;

	if (map_pages(2, 2) < 0)
		return -1;
	pidfd = self_pidfd(r);
	if (pidfd < 0)
		return -1;
	r->iov[0] = (struct iovec){ region, 2 * pg };
	ARGS(r, pidfd, P(r->iov), 1, MADV_COLD, 0);
	return 0;
}

static int su_msync(struct run *r)
{
	int fd;

	fd = file_fd(r, O_RDWR);
	if (fd < 0)
		return -1;
	if (mmap(region, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0) == MAP_FAILED)
		return -1;
	memcpy(region, "MSYNC", 5);
	ARGS(r, P(region), pg, MS_SYNC);
	return 0;
}

static int su_mincore(struct run *r)
{
	if (map_pages(4, 0) < 0)
		return -1;
	/* Pages 0 and 2 resident, 1 and 3 never touched. */
	region[0] = 1;
	region[2 * pg] = 1;
	memset(r->buf, 0xff, 8);
	ARGS(r, P(region), 4 * pg, P(r->buf));
	return 0;
}

static void ef_mincore(struct run *r, struct obs *o)
{
	ob_bytes(o, "vec", r->buf, 5);
}

static int su_mlock(struct run *r)
{
	if (map_pages(2, 0) < 0)
		return -1;
	ARGS(r, P(region), 2 * pg);
	return 0;
}

static int su_mlock2(struct run *r)
{
	if (map_pages(2, 1) < 0)
		return -1;
	/* Locked as they fault in: only page 0 is, afterwards. */
	ARGS(r, P(region), 2 * pg, MLOCK_ONFAULT);
	return 0;
}

static void ef_vma(struct run *r, struct obs *o)
{
	ob_vma(o, region);
}

static int su_munlock(struct run *r)
{
	if (map_pages(2, 2) < 0)
		return -1;
	/* Under a low RLIMIT_MEMLOCK, every way unlocks nothing alike. */
	mlock(region, 2 * pg);
	ARGS(r, P(region), 2 * pg);
	return 0;
}

static int su_mlockall(struct run *r)
{
	if (map_pages(2, 0) < 0)
		return -1;
	ARGS(r, MCL_CURRENT | MCL_FUTURE);
	return 0;
}

/* The pages mapped before the call, and a page mapped after it. */
static void ef_mlockall(struct run *r, struct obs *o)
{
	ob_vma(o, region);
	if (mmap(region + 4 * pg, pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		say(o, "mmap: %s; ", strerror(errno));
	else
		ob_vma(o, region + 4 * pg);
}

static void td_mlockall(struct run *r)
{
	munlockall();
}

static int su_munlockall(struct run *r)
{
	if (su_munlock(r) < 0)
		return -1;
	ARGS(r, 0);
	return 0;
}

static int su_process_vm_readv(struct run *r)
{
	if (map_pages(1, 0) < 0)
		return -1;
	memcpy(region, "remote bytes", 12);
	r->iov[0] = (struct iovec){ r->buf, 16 };
	r->iov2[0] = (struct iovec){ region, 12 };
	ARGS(r, getpid(), P(r->iov), 1, P(r->iov2), 1, 0);
	return 0;
}

static int su_process_vm_writev(struct run *r)
{
	if (map_pages(1, 0) < 0)
		return -1;
	r->iov[0] = (struct iovec){ "written", 7 };
	r->iov2[0] = (struct iovec){ region + 4, 7 };
	ARGS(r, getpid(), P(r->iov), 1, P(r->iov2), 1, 0);
	return 0;
}

static void ef_page0(struct run *r, struct obs *o)
{
	ob_mem(o, "page 0", region, 16);
}

/* --- Waiting -------------------------------------------------------------- */

/* A sigset_t of the kernel's size: those this thread blocks anyway. */
static __u64 blocked_ksig(void)
{
	return 1ULL << (SIG - 1) | 1ULL << (SIGUSR2 - 1) | 1ULL << (SIGIO - 1);
}

/* A pipe with a byte in it, fd[0] and fd[1], polled for both. */
static int su_polled(struct run *r)
{
	if (pipe_with(r, "x") < 0)
		return -1;
	r->pfd[0] = (struct pollfd){ .fd = r->fd[0], .events = POLLIN };
	r->pfd[1] = (struct pollfd){ .fd = r->fd[1], .events = POLLOUT };
	return 0;
}

static int su_ppoll(struct run *r)
{
	if (su_polled(r) < 0)
		return -1;
	/* A zero timeout, and the mask this thread has anyway. */
	r->ksig = blocked_ksig();
	ARGS(r, P(r->pfd), 2, P(&r->ts[0]), P(&r->ksig), sizeof(r->ksig));
	return 0;
}

/* What the call wrote: the events, and the time left. */
static void ef_poll(struct run *r, struct obs *o)
{
	say(o, "revents=%#x %#x; ", r->pfd[0].revents, r->pfd[1].revents);
	ob_bytes(o, "ts", &r->ts[0], sizeof(r->ts[0]));
}

static int su_pselect6(struct run *r)
{
	if (pipe_with(r, "x") < 0)
		return -1;
	FD_SET(r->fd[0], &r->rfds);
	ARGS(r, r->fd[0] + 1, P(&r->rfds), 0, 0, P(&r->ts[0]), 0);
	return 0;
}

static void ef_select(struct run *r, struct obs *o)
{
	say(o, "set=%d; ", FD_ISSET(r->fd[0], &r->rfds));
	ob_bytes(o, "ts", &r->ts[0], sizeof(r->ts[0]));
	ob_bytes(o, "tv", &r->tv[0], sizeof(r->tv[0]));
}

/* An epoll instance, fd[2], on a pipe with a byte in it. */
static int su_epolled(struct run *r)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x77 };
	int ep;

	if (pipe_with(r, "x") < 0)
		return -1;
	ep = keep(r, epoll_create1(EPOLL_CLOEXEC));
	if (ep < 0)
		return -1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, r->fd[0], &ev) < 0)
		return -1;
	return 0;
}

static int su_epoll_pwait(struct run *r)
{
	if (su_epolled(r) < 0)
		return -1;
	ARGS(r, r->fd[2], P(r->ev), 4, 0, 0, sizeof(r->ksig));
	return 0;
}

static int su_epoll_pwait2(struct run *r)
{
	if (su_epolled(r) < 0)
		return -1;
	ARGS(r, r->fd[2], P(r->ev), 4, P(&r->ts[0]), 0, sizeof(r->ksig));
	return 0;
}

static void ef_ev(struct run *r, struct obs *o)
{
	say(o, "ev: {%#x %#llx} {%#x %#llx}; ", r->ev[0].events,
	    (unsigned long long)r->ev[0].data.u64, r->ev[1].events,
	    (unsigned long long)r->ev[1].data.u64);
}

static int su_nanosleep(struct run *r)
{
	r->ts[0].tv_nsec = 1000;
	/* Written only if the sleep is interrupted. */
	memset(&r->rem, 0x5a, sizeof(r->rem));
	ARGS(r, P(&r->ts[0]), P(&r->rem));
	return 0;
}

static int su_clock_nanosleep(struct run *r)
{
	if (su_nanosleep(r) < 0)
		return -1;
	ARGS(r, CLOCK_MONOTONIC, 0, P(&r->ts[0]), P(&r->rem));
	return 0;
}

static int su_clock_nanosleep_abs(struct run *r)
{
	if (su_nanosleep(r) < 0)
		return -1;
	/* Long past: it returns at once. */
	r->ts[0] = (struct timespec){ .tv_sec = 1 };
	ARGS(r, CLOCK_MONOTONIC, TIMER_ABSTIME, P(&r->ts[0]), P(&r->rem));
	return 0;
}

static void ef_rem(struct run *r, struct obs *o)
{
	ob_bytes(o, "rem", &r->rem, sizeof(r->rem));
}

static int su_futex_wait(struct run *r)
{
	r->word[0] = 1;
	/* Not the value: EAGAIN at once. */
	ARGS(r, P(&r->word[0]), FUTEX_WAIT_PRIVATE, 2, P(&r->ts[0]));
	return 0;
}

static int su_futex_wake_op(struct run *r)
{
	r->word[1] = 10;
	/* Adds 5 to word[1]; nr_wake2 rides in the timeout argument. */
	ARGS(r, P(&r->word[0]), FUTEX_WAKE_OP_PRIVATE, 1, 1, P(&r->word[1]),
	     FUTEX_OP(FUTEX_OP_ADD, 5, FUTEX_OP_CMP_EQ, 0));
	return 0;
}

static void ef_words(struct run *r, struct obs *o)
{
	say(o, "words: %u %u; ", r->word[0], r->word[1]);
}

static int su_futex2_wait(struct run *r)
{
	r->word[0] = 1;
	ARGS(r, P(&r->word[0]), 2, FUTEX_BITSET_MATCH_ANY,
	     FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0, 0);
	return 0;
}

static int su_futex_waitv(struct run *r)
{
	r->word[0] = 1;
	r->waitv[0] = (struct futex_waitv){
		.val = 2,
		.uaddr = P(&r->word[0]),
		.flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE,
	};
	ARGS(r, P(r->waitv), 1, 0, 0, 0);
	return 0;
}

static int su_futex_wake(struct run *r)
{
	ARGS(r, P(&r->word[0]), FUTEX_BITSET_MATCH_ANY, 1,
	     FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
	return 0;
}

static int su_futex_requeue(struct run *r)
{
	if (su_futex_waitv(r) < 0)
		return -1;
	/* The value of the first word matches: nothing to wake, 0. */
	r->waitv[0].val = 1;
	r->waitv[1] = (struct futex_waitv){
		.uaddr = P(&r->word[1]),
		.flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE,
	};
	ARGS(r, P(r->waitv), 0, 1, 1);
	return 0;
}

static int su_waitid(struct run *r)
{
	if (exited_child(r) < 0)
		return -1;
	ARGS(r, P_PID, r->child, P(&r->si), WEXITED, 0);
	return 0;
}

/* Whether the child is still there to be reaped. */
static void ob_reaped(struct obs *o, pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT))
		say(o, "child: %s; ", strerror(errno));
	else
		say(o, "child: %s; ", si.si_pid == pid ? "zombie" : "running");
}

static void ef_waitid(struct run *r, struct obs *o)
{
	say(o, "si: signo=%d code=%d status=%d pid=%s; ", r->si.si_signo,
	    r->si.si_code, r->si.si_status,
	    r->si.si_pid == r->child ? "child" : who(r->si.si_pid));
	ob_reaped(o, r->child);
}

static int su_wait4(struct run *r)
{
	if (exited_child(r) < 0)
		return -1;
	ARGS(r, r->child, P(&r->status), 0, 0);
	return 0;
}

static void ef_wait4(struct run *r, struct obs *o)
{
	say(o, "status=%#x; ", r->status);
	ob_reaped(o, r->child);
}

/*
 * An AIO context with a read of "f" complete in its ring, so that the
 * call finds the event at once.  Without AIO, the context is 0 and every
 * way fails alike.
 */
static int su_aio(struct run *r)
{
	struct gt_aio_ring *ring;
	__s64 end;
	int fd;

	fd = file_fd(r, O_RDONLY);
	if (fd < 0)
		return -1;
	r->ts[1].tv_sec = WAIT_TIMEOUT_S;
	ARGS(r, 0, 1, 4, P(r->events), P(&r->ts[1]), 0);
	if (syscall(__NR_io_setup, 4, &r->ctx)) {
		r->ctx = 0;
		return 0;
	}
	r->a[0] = r->ctx;
	r->iocb.aio_lio_opcode = GT_IOCB_CMD_PREAD;
	r->iocb.aio_fildes = fd;
	r->iocb.aio_buf = P(r->buf);
	r->iocb.aio_nbytes = 16;
	r->iocb.aio_data = 0xabcd;
	r->iocbp = &r->iocb;
	if (syscall(__NR_io_submit, r->ctx, 1, &r->iocbp) != 1)
		return -1;
	/* The read may complete on a worker: wait until it is in the ring. */
	ring = (struct gt_aio_ring *)(uintptr_t)r->ctx;
	end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	while (__atomic_load_n(&ring->head, __ATOMIC_ACQUIRE) ==
	       __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE)) {
		if (now_ns() > end) {
			errno = ETIMEDOUT;
			return -1;
		}
		sleep_ms(1);
	}
	return 0;
}

static void ef_aio(struct run *r, struct obs *o)
{
	say(o, "event: data=%#llx obj=%s res=%lld res2=%lld; ",
	    (unsigned long long)r->events[0].data,
	    r->events[0].obj == P(&r->iocb) ? "iocb" : "other",
	    (long long)r->events[0].res, (long long)r->events[0].res2);
	ob_bytes(o, "buf", r->buf, 16);
}

static void td_aio(struct run *r)
{
	if (r->ctx)
		syscall(__NR_io_destroy, r->ctx);
}

static void ob_mq(struct obs *o, long mqd)
{
	struct mq_attr a;

	if (syscall(__NR_mq_getsetattr, mqd, NULL, &a))
		say(o, "mq: %s; ", strerror(errno));
	else
		say(o, "mq: flags=%#lx maxmsg=%ld msgsize=%ld curmsgs=%ld; ",
		    (long)a.mq_flags, (long)a.mq_maxmsg, (long)a.mq_msgsize,
		    (long)a.mq_curmsgs);
}

static int su_mq_open(struct run *r)
{
	r->mqa.mq_maxmsg = 4;
	r->mqa.mq_msgsize = 32;
	ARGS(r, P(mq_name), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600,
	     P(&r->mqa));
	return 0;
}

static void ef_mq_open(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	ob_mq(o, r->res);
}

static void td_mq(struct run *r)
{
	syscall(__NR_mq_unlink, mq_name);
}

/*
 * A queue for 4 messages of 32 bytes, fd[0], holding @n messages.  Without
 * POSIX message queues, fd[0] is -1 and every way fails alike.
 */
static int mq_with(struct run *r, int n)
{
	struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 32 };
	int i, mqd;

	mqd = syscall(__NR_mq_open, mq_name,
		      O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &a);
	if (mqd < 0)
		return 0;
	if (keep(r, mqd) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (syscall(__NR_mq_timedsend, mqd, "queued", 6, 3, NULL) < 0)
			return -1;
	return 0;
}

static int su_mq_unlink(struct run *r)
{
	if (mq_with(r, 0) < 0)
		return -1;
	ARGS(r, P(mq_name));
	return 0;
}

static void ef_mq_unlink(struct run *r, struct obs *o)
{
	long mqd = syscall(__NR_mq_open, mq_name, O_RDONLY | O_CLOEXEC, 0,
			   NULL);

	say(o, "open: %s; ", mqd < 0 ? strerror(errno) : "there");
	if (mqd >= 0)
		close(mqd);
}

static int su_mq_getsetattr(struct run *r)
{
	if (mq_with(r, 1) < 0)
		return -1;
	r->mqa.mq_flags = O_NONBLOCK;
	memset(&r->mqa2, 0x5a, sizeof(r->mqa2));
	ARGS(r, r->fd[0], P(&r->mqa), P(&r->mqa2));
	return 0;
}

/* The old attributes the call wrote, and the new ones. */
static void ef_mq_getsetattr(struct run *r, struct obs *o)
{
	say(o, "old: flags=%#lx maxmsg=%ld msgsize=%ld curmsgs=%ld; ",
	    (long)r->mqa2.mq_flags, (long)r->mqa2.mq_maxmsg,
	    (long)r->mqa2.mq_msgsize, (long)r->mqa2.mq_curmsgs);
	ob_mq(o, r->fd[0]);
}

static int su_mq_timedsend(struct run *r)
{
	if (mq_with(r, 0) < 0)
		return -1;
	/* A deadline long past: it only matters if the queue were full. */
	ARGS(r, r->fd[0], P("sent"), 4, 5, P(&r->ts[0]));
	return 0;
}

/* What the queue holds now. */
static void ef_mq_timedsend(struct run *r, struct obs *o)
{
	unsigned int prio = 0;
	char b[32];
	long n;

	ob_mq(o, r->fd[0]);
	n = syscall(__NR_mq_timedreceive, r->fd[0], b, sizeof(b), &prio,
		    &r->ts[0]);
	if (n < 0)
		say(o, "receive: %s; ", strerror(errno));
	else
		ob_bytes(o, "receive", b, n);
	say(o, "prio=%u; ", prio);
}

static int su_mq_timedreceive(struct run *r)
{
	if (mq_with(r, 1) < 0)
		return -1;
	ARGS(r, r->fd[0], P(r->buf), 32, P(&r->prio), P(&r->ts[0]));
	return 0;
}

static void ef_mq_timedreceive(struct run *r, struct obs *o)
{
	ob_bytes(o, "buf", r->buf, 8);
	say(o, "prio=%u; ", r->prio);
	ob_mq(o, r->fd[0]);
}

/* Only the length compares: the bytes are random, in every way. */
static int su_getrandom(struct run *r)
{
	ARGS(r, P(r->buf), 16, 0);
	return 0;
}

/* --- Signals to processes ------------------------------------------------- */

static int su_kill(struct run *r)
{
	ARGS(r, getpid(), SIG);
	return 0;
}

/* Signal 0 to a child, which only checks that it may be signalled. */
static int su_kill_child(struct run *r)
{
	r->child = fork();
	if (r->child < 0)
		return -1;
	if (!r->child) {
		for (;;)
			pause();
	}
	ARGS(r, r->child, 0);
	return 0;
}

static int su_tkill(struct run *r)
{
	ARGS(r, gettid_(), SIG);
	return 0;
}

static int su_tgkill(struct run *r)
{
	ARGS(r, getpid(), gettid_(), SIG);
	return 0;
}

static int su_pidfd_send_signal(struct run *r)
{
	int pidfd;

	pidfd = self_pidfd(r);
	if (pidfd < 0)
		return -1;
	ARGS(r, pidfd, SIG, 0, 0);
	return 0;
}

/* Where the signal is pending: on this thread, or on the process. */
static void ef_pending(struct run *r, struct obs *o)
{
	ob_pending(o);
}

/* --- Sockets -------------------------------------------------------------- */

static int su_socket(struct run *r)
{
	ARGS(r, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return 0;
}

static void ef_socket(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->res);
	if (r->res < 0)
		return;
	ob_sockopt(o, r->res, SO_DOMAIN, "domain");
	ob_sockopt(o, r->res, SO_TYPE, "type");
	ob_sockopt(o, r->res, SO_PROTOCOL, "protocol");
}

static int su_socketpair(struct run *r)
{
	ARGS(r, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, P(r->out));
	return 0;
}

/* The two ends, whom they were made by, and that bytes go through. */
static void ef_socketpair(struct run *r, struct obs *o)
{
	ob_fdesc(o, r->out[0]);
	ob_fdesc(o, r->out[1]);
	if (r->out[0] < 0 || r->out[1] < 0)
		return;
	ob_peercred(o, r->out[0]);
	say(o, "send: %zd; ", send(r->out[0], "ping", 4, MSG_DONTWAIT));
	ob_recv(o, r->out[1]);
}

static int su_bind(struct run *r)
{
	int fd;

	fd = keep(r, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	unix_addr(&r->sun, &r->len, "s");
	ARGS(r, fd, P(&r->sun), r->len);
	return 0;
}

static void ef_bind(struct run *r, struct obs *o)
{
	ob_sockname(o, r->fd[0], false);
	ob_stat(o, "s");
}

static int su_listen(struct run *r)
{
	int fd;

	fd = bound(r, SOCK_STREAM, "s");
	if (fd < 0)
		return -1;
	ARGS(r, fd, 4);
	return 0;
}

static void ef_listen(struct run *r, struct obs *o)
{
	ob_sockopt(o, r->fd[0], SO_ACCEPTCONN, "acceptconn");
}

/* A listener on "s", fd[0], and a connection to it waiting, fd[1]. */
static int su_pending(struct run *r)
{
	if (listening(r) < 0)
		return -1;
	if (connected(r) < 0)
		return -1;
	r->len2 = sizeof(r->sun2);
	return 0;
}

static int su_accept(struct run *r)
{
	if (su_pending(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(&r->sun2), P(&r->len2));
	return 0;
}

static int su_accept4(struct run *r)
{
	if (su_pending(r) < 0)
		return -1;
	ARGS(r, r->fd[0], P(&r->sun2), P(&r->len2), SOCK_CLOEXEC);
	return 0;
}

/* The peer's address the call wrote, and the socket it made. */
static void ef_accept(struct run *r, struct obs *o)
{
	ob_sun(o, "from", &r->sun2, r->len2);
	ob_fdesc(o, r->res);
	if (r->res < 0)
		return;
	ob_sockname(o, r->res, false);
	ob_peercred(o, r->res);
}

static int su_connect(struct run *r)
{
	int fd;

	if (listening(r) < 0)
		return -1;
	fd = keep(r, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	unix_addr(&r->sun, &r->len, "s");
	/* The listener has room: it connects at once. */
	ARGS(r, fd, P(&r->sun), r->len);
	return 0;
}

/* Whom the socket is connected to, and what the listener got. */
static void ef_connect(struct run *r, struct obs *o)
{
	struct pollfd pfd = { .fd = r->fd[0], .events = POLLIN };
	int fd;

	ob_sockname(o, r->fd[1], true);
	if (poll(&pfd, 1, 0) != 1) {
		say(o, "nothing to accept; ");
		return;
	}
	fd = accept4(r->fd[0], NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		say(o, "accept: %s; ", strerror(errno));
		return;
	}
	ob_peercred(o, fd);
	close(fd);
}

static int su_shutdown(struct run *r)
{
	if (pair(r, SOCK_STREAM) < 0)
		return -1;
	ARGS(r, r->fd[0], SHUT_WR);
	return 0;
}

/* End of file on the other end, EPIPE on this one. */
static void ef_shutdown(struct run *r, struct obs *o)
{
	ob_recv(o, r->fd[1]);
	if (send(r->fd[0], "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		say(o, "send: %s; ", strerror(errno));
	else
		say(o, "send: sent; ");
}

static int su_getsockname(struct run *r)
{
	int fd;

	fd = bound(r, SOCK_STREAM, "s");
	if (fd < 0)
		return -1;
	r->len2 = sizeof(r->sun2);
	ARGS(r, fd, P(&r->sun2), P(&r->len2));
	return 0;
}

static int su_getpeername(struct run *r)
{
	if (su_pending(r) < 0)
		return -1;
	ARGS(r, r->fd[1], P(&r->sun2), P(&r->len2));
	return 0;
}

static void ef_sun2(struct run *r, struct obs *o)
{
	ob_sun(o, "addr", &r->sun2, r->len2);
}

static int su_setsockopt(struct run *r)
{
	int fd;

	fd = keep(r, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	r->ival = 65536;
	ARGS(r, fd, SOL_SOCKET, SO_SNDBUF, P(&r->ival), sizeof(r->ival));
	return 0;
}

static void ef_setsockopt(struct run *r, struct obs *o)
{
	ob_sockopt(o, r->fd[0], SO_SNDBUF, "sndbuf");
}

static int su_getsockopt(struct run *r)
{
	if (pair(r, SOCK_STREAM) < 0)
		return -1;
	r->len = sizeof(r->cred);
	ARGS(r, r->fd[0], SOL_SOCKET, SO_PEERCRED, P(&r->cred), P(&r->len));
	return 0;
}

static void ef_getsockopt(struct run *r, struct obs *o)
{
	say(o, "len=%u; ", r->len);
	ob_ucred(o, &r->cred);
}

static int su_sendto(struct run *r)
{
	int fd;

	if (bound(r, SOCK_DGRAM, "d") < 0)
		return -1;
	fd = keep(r, socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	unix_addr(&r->sun, &r->len, "d");
	ARGS(r, fd, P("to d"), 4, 0, P(&r->sun), r->len);
	return 0;
}

static void ef_recv0(struct run *r, struct obs *o)
{
	ob_recv(o, r->fd[0]);
}

/* A datagram pair, fd[0] and fd[1], with "hello" waiting on fd[1]. */
static int su_dgram_waiting(struct run *r)
{
	if (pair(r, SOCK_DGRAM) < 0)
		return -1;
	if (send(r->fd[0], "hello", 5, 0) < 0)
		return -1;
	return 0;
}

static int su_recvfrom(struct run *r)
{
	if (su_dgram_waiting(r) < 0)
		return -1;
	r->len2 = sizeof(r->sun2);
	ARGS(r, r->fd[1], P(r->buf), 64, 0, P(&r->sun2), P(&r->len2));
	return 0;
}

static void ef_recvfrom(struct run *r, struct obs *o)
{
	ob_bytes(o, "buf", r->buf, 8);
	ob_sun(o, "from", &r->sun2, r->len2);
}

static int su_sendmsg(struct run *r)
{
	struct cmsghdr *cm;
	int fd;

	if (pair(r, SOCK_DGRAM) < 0)
		return -1;
	fd = kopen(r, "f", O_RDWR | O_CREAT | O_EXCL);
	if (fd < 0)
		return -1;
	if (write(fd, DATA, strlen(DATA)) < 0)
		return -1;
	r->iov[0] = (struct iovec){ "x", 1 };
	r->msg.msg_iov = r->iov;
	r->msg.msg_iovlen = 1;
	r->msg.msg_control = r->cm.buf;
	r->msg.msg_controllen = CMSG_SPACE(sizeof(int));
	cm = CMSG_FIRSTHDR(&r->msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	ARGS(r, r->fd[0], P(&r->msg), 0);
	return 0;
}

/* The datagram, and the file whose descriptor came with it. */
static void ef_sendmsg(struct run *r, struct obs *o)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	struct stat st;
	char b[8];
	ssize_t n;
	int fd;

	iov = (struct iovec){ b, sizeof(b) };
	n = recvmsg(r->fd[1], &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0) {
		say(o, "recvmsg: %s; ", strerror(errno));
		return;
	}
	ob_bytes(o, "data", b, n);
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS) {
		say(o, "no descriptor; ");
		return;
	}
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fstat(fd, &st))
		say(o, "fd: %s; ", strerror(errno));
	else
		say(o, "fd: size=%lld; ", (long long)st.st_size);
	close(fd);
}

static int su_recvmsg(struct run *r)
{
	int on = 1;

	if (pair(r, SOCK_DGRAM) < 0)
		return -1;
	/* The sender's credentials, taken as setup sends. */
	if (setsockopt(r->fd[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		return -1;
	if (send(r->fd[0], "creds", 5, 0) < 0)
		return -1;
	r->iov[0] = (struct iovec){ r->buf, 64 };
	r->msg.msg_iov = r->iov;
	r->msg.msg_iovlen = 1;
	r->msg.msg_control = r->cm.buf;
	r->msg.msg_controllen = sizeof(r->cm.buf);
	ARGS(r, r->fd[1], P(&r->msg), 0);
	return 0;
}

static void ef_recvmsg(struct run *r, struct obs *o)
{
	struct cmsghdr *cm;
	struct ucred c;

	ob_bytes(o, "buf", r->buf, 8);
	say(o, "flags=%#x controllen=%zu; ", r->msg.msg_flags,
	    (size_t)r->msg.msg_controllen);
	for (cm = CMSG_FIRSTHDR(&r->msg); cm; cm = CMSG_NXTHDR(&r->msg, cm)) {
		say(o, "cmsg %d/%d; ", cm->cmsg_level, cm->cmsg_type);
		if (cm->cmsg_type == SCM_CREDENTIALS) {
			memcpy(&c, CMSG_DATA(cm), sizeof(c));
			ob_ucred(o, &c);
		}
	}
}

static int su_sendmmsg(struct run *r)
{
	int i;

	if (pair(r, SOCK_DGRAM) < 0)
		return -1;
	iovecs(r->iov, "one", 3, "two!", 4);
	for (i = 0; i < 2; i++) {
		r->mmsg[i].msg_hdr.msg_iov = &r->iov[i];
		r->mmsg[i].msg_hdr.msg_iovlen = 1;
	}
	ARGS(r, r->fd[0], P(r->mmsg), 2, 0);
	return 0;
}

static void ef_sendmmsg(struct run *r, struct obs *o)
{
	say(o, "len: %u %u; ", r->mmsg[0].msg_len, r->mmsg[1].msg_len);
	ob_recv(o, r->fd[1]);
	ob_recv(o, r->fd[1]);
}

static int su_recvmmsg(struct run *r)
{
	int i;

	if (pair(r, SOCK_DGRAM) < 0)
		return -1;
	if (send(r->fd[0], "one", 3, 0) < 0)
		return -1;
	if (send(r->fd[0], "two!", 4, 0) < 0)
		return -1;
	iovecs(r->iov, r->buf, 64, r->buf2, 64);
	for (i = 0; i < 2; i++) {
		r->mmsg[i].msg_hdr.msg_iov = &r->iov[i];
		r->mmsg[i].msg_hdr.msg_iovlen = 1;
	}
	/* Both are there: the wait for the first ends at once. */
	ARGS(r, r->fd[1], P(r->mmsg), 2, MSG_WAITFORONE, 0);
	return 0;
}

static void ef_recvmmsg(struct run *r, struct obs *o)
{
	say(o, "len: %u %u; ", r->mmsg[0].msg_len, r->mmsg[1].msg_len);
	ob_bytes(o, "buf", r->buf, 8);
	ob_bytes(o, "buf2", r->buf2, 8);
}

/* --- Older calls that only x86_64 has ------------------------------------- */

#ifdef __NR_open
static int su_open(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), O_RDONLY | O_CLOEXEC);
	return 0;
}

static int su_creat(struct run *r)
{
	ARGS(r, P("n"), 0640);
	return 0;
}

static int su_stat(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), P(&r->st));
	return 0;
}

static int su_lstat(struct run *r)
{
	if (f_and_link(r) < 0)
		return -1;
	ARGS(r, P("sl"), P(&r->st));
	return 0;
}

static int su_access(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), R_OK);
	return 0;
}

static void ef_getdents(struct run *r, struct obs *o)
{
	char names[MAX_DENTS][DENT_NAME];
	const struct gt_dirent *d;
	long off;
	int n = 0;

	for (off = 0; off < r->res && n < MAX_DENTS; off += d->d_reclen) {
		d = (const struct gt_dirent *)(r->buf + off);
		if (!d->d_reclen)
			break;
		/* The type is the last byte of the record. */
		snprintf(names[n++], sizeof(names[0]), "%s/%u", d->d_name,
			 ((const unsigned char *)d)[d->d_reclen - 1]);
	}
	ob_dents(o, names, n);
}

static int su_rename(struct run *r)
{
	if (mkfile("a", "A") < 0)
		return -1;
	ARGS(r, P("a"), P("b"));
	return 0;
}

static int su_mkdir(struct run *r)
{
	ARGS(r, P("d"), 0750);
	return 0;
}

static int su_rmdir(struct run *r)
{
	if (mkdir("d", 0755) < 0)
		return -1;
	ARGS(r, P("d"));
	return 0;
}

static int su_mknod(struct run *r)
{
	ARGS(r, P("p"), S_IFIFO | 0640, 0);
	return 0;
}

static int su_link(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), P("l"));
	return 0;
}

static int su_unlink(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"));
	return 0;
}

static int su_symlink(struct run *r)
{
	ARGS(r, P("some/target"), P("sl"));
	return 0;
}

static int su_readlink(struct run *r)
{
	if (symlink("some/target", "sl") < 0)
		return -1;
	ARGS(r, P("sl"), P(r->buf), 64);
	return 0;
}

static int su_chmod(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), 0600);
	return 0;
}

static int su_chown(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	ARGS(r, P("f"), chown_uid(), chown_gid());
	return 0;
}

static int su_lchown(struct run *r)
{
	if (f_and_link(r) < 0)
		return -1;
	ARGS(r, P("sl"), chown_uid(), chown_gid());
	return 0;
}

static int su_utime(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	r->ub.actime = 1500000000;
	r->ub.modtime = 1500000001;
	ARGS(r, P("f"), P(&r->ub));
	return 0;
}

static int su_utimes(struct run *r)
{
	if (su_f(r) < 0)
		return -1;
	r->tv[0] = (struct timeval){ .tv_sec = 1500000000, .tv_usec = 5 };
	r->tv[1] = (struct timeval){ .tv_sec = 1500000001, .tv_usec = 6 };
	ARGS(r, P("f"), P(r->tv));
	return 0;
}

static int su_futimesat(struct run *r)
{
	if (su_utimes(r) < 0)
		return -1;
	ARGS(r, AT_FDCWD, P("f"), P(r->tv));
	return 0;
}

static int su_dup2(struct run *r)
{
	if (su_dup(r) < 0)
		return -1;
	ARGS(r, r->fd[0], FD_HIGH);
	return 0;
}

static int su_pipe(struct run *r)
{
	ARGS(r, P(r->out));
	return 0;
}

static int su_eventfd(struct run *r)
{
	ARGS(r, 5);
	return 0;
}

static int su_signalfd(struct run *r)
{
	if (su_signalfd4(r) < 0)
		return -1;
	ARGS(r, -1, P(&r->ksig), sizeof(r->ksig));
	return 0;
}

static int su_epoll_create(struct run *r)
{
	ARGS(r, 1);
	return 0;
}

static int su_inotify_init(struct run *r)
{
	ARGS(r, 0);
	return 0;
}

static int su_poll(struct run *r)
{
	if (su_polled(r) < 0)
		return -1;
	ARGS(r, P(r->pfd), 2, 0);
	return 0;
}

static int su_select(struct run *r)
{
	if (pipe_with(r, "x") < 0)
		return -1;
	FD_SET(r->fd[0], &r->rfds);
	ARGS(r, r->fd[0] + 1, P(&r->rfds), 0, 0, P(&r->tv[0]));
	return 0;
}

static int su_epoll_wait(struct run *r)
{
	if (su_epolled(r) < 0)
		return -1;
	ARGS(r, r->fd[2], P(r->ev), 4, 0);
	return 0;
}

#endif /* __NR_open */

/* --- The table ------------------------------------------------------------ */

#define CASE(grp, call, su, ef, ...) \
	{ .group = grp, .name = #call, .nr = __NR_##call, .setup = su, \
	  .effect = ef, __VA_ARGS__ }
/* One of several cases of a call: @label says which. */
#define VARIANT(grp, label, call, su, ef, ...) \
	{ .group = grp, .name = label, .nr = __NR_##call, .setup = su, \
	  .effect = ef, __VA_ARGS__ }

static const struct gcase cases[] = {
	/* Data */
	CASE(G_DATA, read, su_read, ef_read, .flags = OK),
	CASE(G_DATA, write, su_write, ef_write, .flags = OK),
	CASE(G_DATA, pread64, su_pread64, ef_read, .flags = OK),
	CASE(G_DATA, pwrite64, su_pwrite64, ef_write, .flags = OK),
	CASE(G_DATA, readv, su_readv, ef_read, .flags = OK),
	CASE(G_DATA, writev, su_writev, ef_write, .flags = OK),
	CASE(G_DATA, preadv, su_preadv, ef_read, .flags = OK),
	CASE(G_DATA, pwritev, su_pwritev, ef_write, .flags = OK),
	CASE(G_DATA, preadv2, su_preadv2, ef_read, .flags = OK),
	CASE(G_DATA, pwritev2, su_pwritev2, ef_write, .flags = OK),

	/* Descriptors */
	VARIANT(G_FDS, "openat O_RDONLY", openat, su_openat_rdonly, ef_newfd,
		.flags = RES_FD | OK),
	VARIANT(G_FDS, "openat O_CREAT", openat, su_openat_creat, ef_newfd_n,
		.flags = RES_FD | OK),
	CASE(G_FDS, openat2, su_openat2, ef_newfd, .flags = RES_FD | OK),
	/* Needs CAP_DAC_READ_SEARCH: EPERM in every way without. */
	CASE(G_FDS, open_by_handle_at, su_open_by_handle_at, ef_newfd,
	     .flags = RES_FD),
	CASE(G_FDS, close, su_close, ef_fd0, .flags = OK),
	CASE(G_FDS, close_range, su_close_range, ef_fd01, .flags = OK),
	VARIANT(G_FDS, "close_range CLOEXEC", close_range,
		su_close_range_cloexec, ef_fd01, .flags = OK),
	CASE(G_FDS, dup, su_dup, ef_newfd, .flags = RES_FD | OK),
	CASE(G_FDS, dup3, su_dup3, ef_newfd, .flags = RES_FD | OK),
	VARIANT(G_FDS, "fcntl F_SETFL", fcntl, su_fcntl_setfl, ef_fd0,
		.flags = OK),
	VARIANT(G_FDS, "fcntl F_DUPFD_CLOEXEC", fcntl, su_fcntl_dupfd,
		ef_newfd, .flags = RES_FD | OK),
	VARIANT(G_FDS, "fcntl F_SETLKW", fcntl, su_fcntl_setlkw, ef_lock,
		.flags = OK),
	CASE(G_FDS, flock, su_flock, ef_flock, .flags = OK),
	CASE(G_FDS, pipe2, su_pipe2, ef_pipe, .flags = OK),
	CASE(G_FDS, memfd_create, su_memfd_create, ef_memfd,
	     .flags = RES_FD | OK),
	CASE(G_FDS, eventfd2, su_eventfd2, ef_eventfd, .flags = RES_FD),
	CASE(G_FDS, signalfd4, su_signalfd4, ef_signalfd, .flags = RES_FD),
	CASE(G_FDS, timerfd_create, su_timerfd_create, ef_timerfd,
	     .flags = RES_FD),
	CASE(G_FDS, timerfd_settime, su_timerfd_settime, ef_timerfd_settime),
	CASE(G_FDS, timerfd_gettime, su_timerfd_gettime, ef_timerfd_gettime),
	CASE(G_FDS, epoll_create1, su_epoll_create1, ef_newfd,
	     .flags = RES_FD | OK),
	CASE(G_FDS, epoll_ctl, su_epoll_ctl, ef_epoll_ctl, .flags = OK),
	CASE(G_FDS, inotify_init1, su_inotify_init1, ef_newfd,
	     .flags = RES_FD),
	CASE(G_FDS, inotify_add_watch, su_inotify_add_watch,
	     ef_inotify_add_watch),
	CASE(G_FDS, inotify_rm_watch, su_inotify_rm_watch,
	     ef_inotify_rm_watch),
	/* Needs CAP_SYS_ADMIN, and fanotify configured. */
	CASE(G_FDS, fanotify_init, su_fanotify_init, ef_fanotify_init,
	     .flags = RES_FD),
	CASE(G_FDS, fanotify_mark, su_fanotify_mark, ef_fanotify_mark),
	CASE(G_FDS, pidfd_open, su_pidfd_open, ef_pidfd_open,
	     .flags = RES_FD | OK),
	CASE(G_FDS, pidfd_getfd, su_pidfd_getfd, ef_newfd,
	     .flags = RES_FD | OK),

	/* Names */
	CASE(G_NAMES, renameat, su_renameat, ef_ab, .flags = OK),
	CASE(G_NAMES, renameat2, su_renameat2, ef_ab, .flags = OK),
	CASE(G_NAMES, unlinkat, su_unlinkat, ef_d, .flags = OK),
	CASE(G_NAMES, mkdirat, su_mkdirat, ef_d, .flags = OK),
	CASE(G_NAMES, mknodat, su_mknodat, ef_p, .flags = OK),
	CASE(G_NAMES, linkat, su_linkat, ef_link, .flags = OK),
	CASE(G_NAMES, symlinkat, su_symlinkat, ef_symlink, .flags = OK),
	CASE(G_NAMES, readlinkat, su_readlinkat, ef_buf, .flags = OK),
	CASE(G_NAMES, name_to_handle_at, su_name_to_handle_at,
	     ef_name_to_handle_at),
	CASE(G_NAMES, getcwd, su_getcwd, ef_getcwd, .flags = OK),
	CASE(G_NAMES, chdir, su_chdir, ef_cwd, .flags = OK),
	CASE(G_NAMES, fchdir, su_fchdir, ef_cwd, .flags = OK),
	CASE(G_NAMES, umask, su_umask, ef_umask, .flags = OK),

	/* Attributes */
	CASE(G_ATTRS, statx, su_statx, ef_statx, .flags = OK),
	CASE(G_ATTRS, newfstatat, su_newfstatat, ef_st, .flags = OK),
	CASE(G_ATTRS, fstat, su_fstat, ef_st, .flags = OK),
	CASE(G_ATTRS, statfs, su_statfs, ef_sfs, .flags = OK),
	CASE(G_ATTRS, fstatfs, su_fstatfs, ef_sfs, .flags = OK),
	/* An access check leaves nothing behind: the result is all. */
	CASE(G_ATTRS, faccessat, su_faccessat, NULL, .flags = OK),
	CASE(G_ATTRS, faccessat2, su_faccessat2, NULL, .err = EACCES),
	CASE(G_ATTRS, fchmod, su_fchmod, ef_f, .flags = OK),
	CASE(G_ATTRS, fchmodat, su_fchmodat, ef_f, .flags = OK),
	CASE(G_ATTRS, fchmodat2, su_fchmodat2, ef_f, .flags = OK),
	CASE(G_ATTRS, fchown, su_fchown, ef_f, .flags = OK),
	CASE(G_ATTRS, fchownat, su_fchownat, ef_f_sl, .flags = OK),
	CASE(G_ATTRS, utimensat, su_utimensat, ef_times, .flags = OK),
	CASE(G_ATTRS, truncate, su_truncate, ef_size, .flags = OK),
	CASE(G_ATTRS, ftruncate, su_ftruncate, ef_size, .flags = OK),
	CASE(G_ATTRS, lseek, su_lseek, ef_pos0, .flags = OK),
	CASE(G_ATTRS, getdents64, su_dents, ef_getdents64, .flags = OK),

	/* Extended attributes: those of "user." need their support. */
	CASE(G_XATTRS, setxattr, su_setxattr, ef_xattrs),
	CASE(G_XATTRS, lsetxattr, su_lsetxattr, ef_xattrs),
	CASE(G_XATTRS, fsetxattr, su_fsetxattr, ef_xattrs),
	CASE(G_XATTRS, getxattr, su_getxattr, ef_buf),
	CASE(G_XATTRS, lgetxattr, su_getxattr, ef_buf),
	CASE(G_XATTRS, fgetxattr, su_fgetxattr, ef_buf),
	CASE(G_XATTRS, listxattr, su_listxattr, ef_listxattr),
	CASE(G_XATTRS, llistxattr, su_listxattr, ef_listxattr),
	CASE(G_XATTRS, flistxattr, su_flistxattr, ef_listxattr),
	CASE(G_XATTRS, removexattr, su_removexattr, ef_xattrs),
	CASE(G_XATTRS, lremovexattr, su_removexattr, ef_xattrs),
	CASE(G_XATTRS, fremovexattr, su_fremovexattr, ef_xattrs),

	/* Durability: nothing to see but the bytes, still there. */
	CASE(G_SYNC, fsync, su_dirty, ef_file, .flags = OK),
	CASE(G_SYNC, fdatasync, su_dirty, ef_file, .flags = OK),
	CASE(G_SYNC, sync_file_range, su_sync_file_range, ef_file,
	     .flags = OK),
	CASE(G_SYNC, syncfs, su_dirty, ef_file, .flags = OK),
	CASE(G_SYNC, sync, su_sync, ef_file, .flags = OK),
	{ .group = G_SYNC, .name = "ASYNC_OP_FSYNC_RANGE",
	  .nr = ASYNC_OP_FSYNC_RANGE, .setup = su_fsync_range,
	  .effect = ef_file, .direct = direct_fsync_range, .flags = OK },

	/* Page cache and space: advice shows in the result alone. */
	CASE(G_CACHE, readahead, su_readahead, NULL),
	CASE(G_CACHE, fadvise64, su_fadvise64, NULL, .flags = OK),
	CASE(G_CACHE, fallocate, su_fallocate, ef_size),
	CASE(G_CACHE, cachestat, su_cachestat, ef_cachestat),

	/* Copies between descriptors */
	CASE(G_COPIES, copy_file_range, su_copy_file_range, ef_copy,
	     .flags = OK),
	CASE(G_COPIES, sendfile, su_sendfile, ef_copy, .flags = OK),
	CASE(G_COPIES, splice, su_splice, ef_splice, .flags = OK),
	CASE(G_COPIES, tee, su_tee, ef_tee, .flags = OK),

	/* Memory */
	CASE(G_MEMORY, munmap, su_munmap, ef_maps, .flags = OK),
	CASE(G_MEMORY, mremap, su_mremap, ef_mremap,
	     .flags = RES_ADDR | OK),
	CASE(G_MEMORY, madvise, su_madvise, ef_pages, .flags = OK),
	/* MADV_COLD shows nowhere: the pages stay as they were. */
	CASE(G_MEMORY, process_madvise, su_process_madvise, ef_pages),
	/* tmpfs shares its pages: the bytes show with or without it. */
	CASE(G_MEMORY, msync, su_msync, ef_file, .flags = OK),
	CASE(G_MEMORY, mincore, su_mincore, ef_mincore, .flags = OK),
	/* RLIMIT_MEMLOCK may refuse, in every way. */
	CASE(G_MEMORY, mlock, su_mlock, ef_vma),
	CASE(G_MEMORY, mlock2, su_mlock2, ef_vma),
	CASE(G_MEMORY, munlock, su_munlock, ef_vma, .flags = OK),
	{ .group = G_MEMORY, .name = "mlockall", .nr = __NR_mlockall,
	  .setup = su_mlockall, .effect = ef_mlockall,
	  .teardown = td_mlockall },
	CASE(G_MEMORY, munlockall, su_munlockall, ef_vma, .flags = OK),
	CASE(G_MEMORY, process_vm_readv, su_process_vm_readv, ef_buf),
	CASE(G_MEMORY, process_vm_writev, su_process_vm_writev, ef_page0),

	/* Waiting, on what is there already */
	CASE(G_WAITING, ppoll, su_ppoll, ef_poll, .flags = OK),
	CASE(G_WAITING, pselect6, su_pselect6, ef_select, .flags = OK),
	CASE(G_WAITING, epoll_pwait, su_epoll_pwait, ef_ev, .flags = OK),
	CASE(G_WAITING, epoll_pwait2, su_epoll_pwait2, ef_ev, .flags = OK),
	CASE(G_WAITING, nanosleep, su_nanosleep, ef_rem, .flags = OK),
	CASE(G_WAITING, clock_nanosleep, su_clock_nanosleep, ef_rem,
	     .flags = OK),
	VARIANT(G_WAITING, "clock_nanosleep TIMER_ABSTIME", clock_nanosleep,
		su_clock_nanosleep_abs, ef_rem, .flags = OK),
	VARIANT(G_WAITING, "futex FUTEX_WAIT", futex, su_futex_wait,
		ef_words, .err = EAGAIN),
	VARIANT(G_WAITING, "futex FUTEX_WAKE_OP", futex, su_futex_wake_op,
		ef_words, .flags = OK),
	CASE(G_WAITING, futex_wait, su_futex2_wait, ef_words, .err = EAGAIN),
	CASE(G_WAITING, futex_waitv, su_futex_waitv, ef_words,
	     .err = EAGAIN),
	CASE(G_WAITING, futex_wake, su_futex_wake, ef_words, .flags = OK),
	CASE(G_WAITING, futex_requeue, su_futex_requeue, ef_words,
	     .flags = OK),
	CASE(G_WAITING, waitid, su_waitid, ef_waitid, .flags = OK),
	CASE(G_WAITING, wait4, su_wait4, ef_wait4, .flags = RES_PID | OK),
	/* AIO and POSIX message queues may be configured out. */
	{ .group = G_WAITING, .name = "io_getevents",
	  .nr = __NR_io_getevents, .setup = su_aio, .effect = ef_aio,
	  .teardown = td_aio },
	{ .group = G_WAITING, .name = "io_pgetevents",
	  .nr = __NR_io_pgetevents, .setup = su_aio, .effect = ef_aio,
	  .teardown = td_aio },
	{ .group = G_WAITING, .name = "mq_open", .nr = __NR_mq_open,
	  .setup = su_mq_open, .effect = ef_mq_open, .teardown = td_mq,
	  .flags = RES_FD },
	{ .group = G_WAITING, .name = "mq_unlink", .nr = __NR_mq_unlink,
	  .setup = su_mq_unlink, .effect = ef_mq_unlink, .teardown = td_mq },
	{ .group = G_WAITING, .name = "mq_getsetattr",
	  .nr = __NR_mq_getsetattr, .setup = su_mq_getsetattr,
	  .effect = ef_mq_getsetattr, .teardown = td_mq },
	{ .group = G_WAITING, .name = "mq_timedsend",
	  .nr = __NR_mq_timedsend, .setup = su_mq_timedsend,
	  .effect = ef_mq_timedsend, .teardown = td_mq },
	{ .group = G_WAITING, .name = "mq_timedreceive",
	  .nr = __NR_mq_timedreceive, .setup = su_mq_timedreceive,
	  .effect = ef_mq_timedreceive, .teardown = td_mq },
	CASE(G_WAITING, getrandom, su_getrandom, NULL, .flags = OK),

	/* Signals to processes */
	CASE(G_SIGNALS, kill, su_kill, ef_pending, .flags = OK),
	VARIANT(G_SIGNALS, "kill a child 0", kill, su_kill_child, NULL,
		.flags = OK),
	CASE(G_SIGNALS, tkill, su_tkill, ef_pending, .flags = OK),
	CASE(G_SIGNALS, tgkill, su_tgkill, ef_pending, .flags = OK),
	CASE(G_SIGNALS, pidfd_send_signal, su_pidfd_send_signal, ef_pending,
	     .flags = OK),

	/* Sockets, AF_UNIX */
	CASE(G_SOCKETS, socket, su_socket, ef_socket, .flags = RES_FD | OK),
	CASE(G_SOCKETS, socketpair, su_socketpair, ef_socketpair,
	     .flags = OK),
	CASE(G_SOCKETS, bind, su_bind, ef_bind, .flags = OK),
	CASE(G_SOCKETS, listen, su_listen, ef_listen, .flags = OK),
	CASE(G_SOCKETS, accept, su_accept, ef_accept, .flags = RES_FD | OK),
	CASE(G_SOCKETS, accept4, su_accept4, ef_accept, .flags = RES_FD | OK),
	CASE(G_SOCKETS, connect, su_connect, ef_connect, .flags = OK),
	CASE(G_SOCKETS, shutdown, su_shutdown, ef_shutdown, .flags = OK),
	CASE(G_SOCKETS, getsockname, su_getsockname, ef_sun2, .flags = OK),
	CASE(G_SOCKETS, getpeername, su_getpeername, ef_sun2, .flags = OK),
	CASE(G_SOCKETS, setsockopt, su_setsockopt, ef_setsockopt,
	     .flags = OK),
	CASE(G_SOCKETS, getsockopt, su_getsockopt, ef_getsockopt,
	     .flags = OK),
	CASE(G_SOCKETS, sendto, su_sendto, ef_recv0, .flags = OK),
	CASE(G_SOCKETS, recvfrom, su_recvfrom, ef_recvfrom, .flags = OK),
	CASE(G_SOCKETS, sendmsg, su_sendmsg, ef_sendmsg, .flags = OK),
	CASE(G_SOCKETS, recvmsg, su_recvmsg, ef_recvmsg, .flags = OK),
	CASE(G_SOCKETS, sendmmsg, su_sendmmsg, ef_sendmmsg, .flags = OK),
	CASE(G_SOCKETS, recvmmsg, su_recvmmsg, ef_recvmmsg, .flags = OK),

	/*
	 * What the process is asked about through a descriptor, which a
	 * worker answers as the submitter would.
	 */
	VARIANT(G_THREAD, "read a signalfd", read, su_read_signalfd,
		ef_read_signalfd, .flags = OK),

#ifdef __NR_open
	/* What ASYNC_SYSCALL_DEFS_LEGACY adds on x86_64 */
	CASE(G_LEGACY, open, su_open, ef_newfd, .flags = RES_FD | OK),
	CASE(G_LEGACY, creat, su_creat, ef_newfd_n, .flags = RES_FD | OK),
	CASE(G_LEGACY, stat, su_stat, ef_st, .flags = OK),
	CASE(G_LEGACY, lstat, su_lstat, ef_st, .flags = OK),
	CASE(G_LEGACY, access, su_access, NULL, .flags = OK),
	CASE(G_LEGACY, getdents, su_dents, ef_getdents, .flags = OK),
	CASE(G_LEGACY, rename, su_rename, ef_ab, .flags = OK),
	CASE(G_LEGACY, mkdir, su_mkdir, ef_d, .flags = OK),
	CASE(G_LEGACY, rmdir, su_rmdir, ef_d, .flags = OK),
	CASE(G_LEGACY, mknod, su_mknod, ef_p, .flags = OK),
	CASE(G_LEGACY, link, su_link, ef_link, .flags = OK),
	CASE(G_LEGACY, unlink, su_unlink, ef_f, .flags = OK),
	CASE(G_LEGACY, symlink, su_symlink, ef_symlink, .flags = OK),
	CASE(G_LEGACY, readlink, su_readlink, ef_buf, .flags = OK),
	CASE(G_LEGACY, chmod, su_chmod, ef_f, .flags = OK),
	CASE(G_LEGACY, chown, su_chown, ef_f, .flags = OK),
	CASE(G_LEGACY, lchown, su_lchown, ef_f_sl, .flags = OK),
	CASE(G_LEGACY, utime, su_utime, ef_times, .flags = OK),
	CASE(G_LEGACY, utimes, su_utimes, ef_times, .flags = OK),
	CASE(G_LEGACY, futimesat, su_futimesat, ef_times, .flags = OK),
	CASE(G_LEGACY, dup2, su_dup2, ef_newfd, .flags = RES_FD | OK),
	CASE(G_LEGACY, pipe, su_pipe, ef_pipe, .flags = OK),
	CASE(G_LEGACY, eventfd, su_eventfd, ef_eventfd, .flags = RES_FD),
	CASE(G_LEGACY, signalfd, su_signalfd, ef_signalfd, .flags = RES_FD),
	CASE(G_LEGACY, epoll_create, su_epoll_create, ef_newfd,
	     .flags = RES_FD | OK),
	CASE(G_LEGACY, inotify_init, su_inotify_init, ef_newfd,
	     .flags = RES_FD),
	CASE(G_LEGACY, poll, su_poll, ef_poll, .flags = OK),
	CASE(G_LEGACY, select, su_select, ef_select, .flags = OK),
	CASE(G_LEGACY, epoll_wait, su_epoll_wait, ef_ev, .flags = OK),
#endif
};

/* --- What a check refuses ------------------------------------------------- */

/*
 * Each would act on the calling thread: the owner of a PI futex, of a
 * lease or of a directory notification, the thread's own children, its
 * file table, or the siginfo it may forge.
 */
static int rf_futex(struct run *r, unsigned int op, __u32 word,
		    __u32 val)
{
	r->word[0] = word;
	ARGS(r, P(&r->word[0]), op, val, 0, P(&r->word[1]), word);
	return 0;
}

/* Free: made, the lock would be taken at once. */
static int rf_lock_pi(struct run *r)
{
	return rf_futex(r, FUTEX_LOCK_PI_PRIVATE, 0, 0);
}

static int rf_lock_pi2(struct run *r)
{
	return rf_futex(r, FUTEX_LOCK_PI2, 0, 0);
}

static int rf_trylock_pi(struct run *r)
{
	return rf_futex(r, FUTEX_TRYLOCK_PI_PRIVATE, 0, 0);
}

/* Owned by this thread: made, the unlock would clear it. */
static int rf_unlock_pi(struct run *r)
{
	return rf_futex(r, FUTEX_UNLOCK_PI_PRIVATE, gettid_(), 0);
}

/* Not the value: made, the wait would fail with EAGAIN at once. */
static int rf_wait_requeue_pi(struct run *r)
{
	return rf_futex(r, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 1, 2);
}

/* Made, it would wake one, requeue none (the timeout slot), return 0. */
static int rf_cmp_requeue_pi(struct run *r)
{
	return rf_futex(r, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1);
}

/* The call takes the command as an int: the bits above must not hide it. */
static int rf_lock_pi_high(struct run *r)
{
	rf_lock_pi(r);
	r->a[1] |= 0x100000000ULL;
	return 0;
}

static int rf_setlease_high(struct run *r)
{
	if (su_fcntl_setlease(r) < 0)
		return -1;
	r->a[1] |= 0x100000000ULL;
	return 0;
}

static int rf_waitid(struct run *r)
{
	if (su_waitid(r) < 0)
		return -1;
	r->a[3] |= __WNOTHREAD;
	return 0;
}

static int rf_wait4(struct run *r)
{
	if (su_wait4(r) < 0)
		return -1;
	r->a[2] |= __WNOTHREAD;
	return 0;
}

static int rf_close_range(struct run *r)
{
	if (su_close_range(r) < 0)
		return -1;
	r->a[2] = CLOSE_RANGE_UNSHARE;
	return 0;
}

static int rf_close_range_cloexec(struct run *r)
{
	if (su_close_range_cloexec(r) < 0)
		return -1;
	r->a[2] = CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC;
	return 0;
}

static int rf_pidfd_send_signal(struct run *r)
{
	if (su_pidfd_send_signal(r) < 0)
		return -1;
	r->si.si_signo = SIG;
	r->si.si_code = SI_QUEUE;
	r->si.si_pid = getpid();
	r->si.si_uid = getuid();
	r->a[2] = P(&r->si);
	return 0;
}

static const struct gcase refused[] = {
	VARIANT(G_REFUSED, "futex FUTEX_LOCK_PI", futex, rf_lock_pi, ef_words),
	VARIANT(G_REFUSED, "futex FUTEX_LOCK_PI2", futex, rf_lock_pi2,
		ef_words),
	VARIANT(G_REFUSED, "futex FUTEX_TRYLOCK_PI", futex, rf_trylock_pi,
		ef_words),
	VARIANT(G_REFUSED, "futex FUTEX_UNLOCK_PI", futex, rf_unlock_pi,
		ef_words),
	VARIANT(G_REFUSED, "futex FUTEX_WAIT_REQUEUE_PI", futex,
		rf_wait_requeue_pi, ef_words),
	VARIANT(G_REFUSED, "futex FUTEX_CMP_REQUEUE_PI", futex,
		rf_cmp_requeue_pi, ef_words),
	VARIANT(G_REFUSED, "futex FUTEX_LOCK_PI, high bits set", futex,
		rf_lock_pi_high, ef_words),
	/* Leases and dnotify may be configured out: refused all the same. */
	VARIANT(G_REFUSED, "fcntl F_SETLEASE", fcntl, su_fcntl_setlease,
		ef_owner),
	VARIANT(G_REFUSED, "fcntl F_SETLEASE, high bits set", fcntl,
		rf_setlease_high, ef_owner),
	VARIANT(G_REFUSED, "fcntl F_NOTIFY", fcntl, su_fcntl_notify, ef_owner),
	VARIANT(G_REFUSED, "waitid __WNOTHREAD", waitid, rf_waitid, ef_waitid),
	VARIANT(G_REFUSED, "wait4 __WNOTHREAD", wait4, rf_wait4, ef_wait4),
	VARIANT(G_REFUSED, "close_range CLOSE_RANGE_UNSHARE", close_range,
		rf_close_range, ef_fd01),
	VARIANT(G_REFUSED, "close_range UNSHARE|CLOEXEC", close_range,
		rf_close_range_cloexec, ef_fd01),
	VARIANT(G_REFUSED, "pidfd_send_signal with a siginfo",
		pidfd_send_signal, rf_pidfd_send_signal, ef_pending),
};

/* --- The tests ------------------------------------------------------------ */

/* A directory on tmpfs, where nothing is written back behind our back. */
static const char *scratch_base(void)
{
	const char *dir = getenv("GENERIC_DIR");
	struct statfs sfs;

	if (dir && *dir)
		return dir;
	if (!statfs("/dev/shm", &sfs) && sfs.f_type == TMPFS_MAGIC &&
	    !access("/dev/shm", W_OK))
		return "/dev/shm";
	return "/tmp";
}

FIXTURE_SETUP(generic)
{
	const char *base = scratch_base();
	sigset_t set;
	char *p;

	if (async_abi_version() < 0)
		SKIP(return, "no async_submit(): %s", strerror(errno));
	ASSERT_GT(sizeof(self->base),
		  snprintf(self->base, sizeof(self->base),
			   "%s/generic_test.XXXXXX", base));
	ASSERT_NE(NULL, mkdtemp(self->base))
		TH_LOG("mkdtemp under %s: %s", base, strerror(errno));
	snprintf(self->run, sizeof(self->run), "%s/run", self->base);
	ASSERT_EQ(0, chdir(self->base));

	pg = sysconf(_SC_PAGESIZE);
	p = mmap(NULL, (REGION_PAGES + 2) * pg, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	region = p + pg;

	snprintf(mq_name, sizeof(mq_name), "generic_test.%d", getpid());
	syscall(__NR_mq_unlink, mq_name);

	/* The signal cases leave signals pending here, to be looked at. */
	blocked_set(&set);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	umask(022);
}

FIXTURE_TEARDOWN_PARENT(generic)
{
	if (self->base[0])
		rm_tree(self->base);
}

static void run_group(struct __test_metadata *_metadata,
		      struct _test_data_generic *self, enum group g)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].group != g || !selected(&cases[i]))
			continue;
		run_case(_metadata, self, &cases[i], three_ways, 0);
		n++;
	}
	if (!n)
		SKIP(return, "no case of this group here");
}

TEST_F_TIMEOUT(generic, io, 120)
{
	run_group(_metadata, self, G_DATA);
}

TEST_F_TIMEOUT(generic, descriptors, 120)
{
	run_group(_metadata, self, G_FDS);
}

TEST_F_TIMEOUT(generic, names, 120)
{
	run_group(_metadata, self, G_NAMES);
}

TEST_F_TIMEOUT(generic, attributes, 120)
{
	run_group(_metadata, self, G_ATTRS);
}

TEST_F_TIMEOUT(generic, xattrs, 120)
{
	run_group(_metadata, self, G_XATTRS);
}

TEST_F_TIMEOUT(generic, durability, 120)
{
	run_group(_metadata, self, G_SYNC);
}

TEST_F_TIMEOUT(generic, page_cache, 120)
{
	run_group(_metadata, self, G_CACHE);
}

TEST_F_TIMEOUT(generic, copies, 120)
{
	run_group(_metadata, self, G_COPIES);
}

TEST_F_TIMEOUT(generic, memory, 120)
{
	run_group(_metadata, self, G_MEMORY);
}

TEST_F_TIMEOUT(generic, waiting, 120)
{
	run_group(_metadata, self, G_WAITING);
}

TEST_F_TIMEOUT(generic, signals, 120)
{
	run_group(_metadata, self, G_SIGNALS);
}

TEST_F_TIMEOUT(generic, sockets, 120)
{
	run_group(_metadata, self, G_SOCKETS);
}

/*
 * Calls that answer for the calling thread through a descriptor, which
 * the whitelist takes as acting only on what threads share.
 */
TEST_F_TIMEOUT(generic, per_thread, 120)
{
	run_group(_metadata, self, G_THREAD);
}

/* Skipped where the arch has none: arm64. */
TEST_F_TIMEOUT(generic, legacy, 120)
{
	run_group(_metadata, self, G_LEGACY);
}

/*
 * The values a check refuses: EOPNOTSUPP as an entry of either kind, and
 * nothing done, as if the entry had not been submitted.  The direct call
 * would act on this thread, and is not made.
 */
TEST_F_TIMEOUT(generic, check_refuses, 120)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		if (selected(&refused[i]))
			run_case(_metadata, self, &refused[i], refused_ways,
				 -EOPNOTSUPP);
	}
}

static const struct gcase *case_of(unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].nr == nr)
			return &cases[i];
	}
	return NULL;
}

static const char *name_of(unsigned int nr)
{
	const char *name = async_syscall_name(nr);

	return name ? name : "?";
}

/*
 * The table follows the kernel's: every number async_submit() accepts has
 * a case, and every case's number is accepted.
 */
TEST_F(generic, every_accepted_call_has_a_case)
{
	static struct async_syscall e[PROBE_BATCH];
	static bool accepted[PROBE_NR_MAX + PROBE_BATCH];
	unsigned int base, i, nr, n = 0;
	const struct gcase *c;

	for (base = 0; base < PROBE_NR_MAX + PROBE_BATCH; base += PROBE_BATCH) {
		/* The last batch: the asynchronous-only operations. */
		unsigned int first = base < PROBE_NR_MAX ? base : ASYNC_OP_BASE;

		for (i = 0; i < PROBE_BATCH; i++) {
			async_prep(&e[i], first + i, 0, 0, 0, 0, 0, 0);
			e[i].result = RESULT_POISON;
		}
		ASSERT_EQ(0, async_submit(e, PROBE_BATCH, ASYNC_SUBMIT_PROBE))
			TH_LOG("async_submit(PROBE): %s", strerror(errno));
		for (i = 0; i < PROBE_BATCH; i++) {
			accepted[base + i] = !e[i].result;
			EXPECT_TRUE(!e[i].result || e[i].result == -EOPNOTSUPP ||
				    e[i].result == -EINVAL)
				TH_LOG("probe of %u: %lld", first + i,
				       (long long)e[i].result);
		}
	}

	for (i = 0; i < PROBE_NR_MAX + PROBE_BATCH; i++) {
		nr = i < PROBE_NR_MAX ? i : ASYNC_OP_BASE + i - PROBE_NR_MAX;
		if (!accepted[i])
			continue;
		n++;
		EXPECT_NE(NULL, case_of(nr))
			TH_LOG("%s (%u) is accepted, and this test has no case for it",
			       name_of(nr), nr);
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		nr = c->nr < ASYNC_OP_BASE ? c->nr :
		     PROBE_NR_MAX + c->nr - ASYNC_OP_BASE;
		EXPECT_TRUE(nr < PROBE_NR_MAX + PROBE_BATCH && accepted[nr])
			TH_LOG("case \"%s\": %u is not accepted", c->name,
			       c->nr);
	}
	TH_LOG("%u numbers accepted, %zu cases", n, ARRAY_SIZE(cases));
}

TEST_HARNESS_MAIN
