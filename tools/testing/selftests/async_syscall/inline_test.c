// SPDX-License-Identifier: GPL-2.0
/*
 * Entries the submitting thread runs itself, because they cannot block,
 * and those it hands to a worker.  Where an entry ran is read from the
 * worker field of the async_syscall_complete event.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <async_syscall/libasync.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define EVENT TRACEFS "events/async_syscall/async_syscall_complete/"
#define FSIZE 8192

FIXTURE(where) {
	char dir[PATH_MAX];
	char path[PATH_MAX + 8];
	char data[FSIZE];
	char buf[FSIZE];
	char trace[65536];
	int dirfd;
};

FIXTURE_SETUP(where)
{
	const char *scratch = getenv("SCRATCH");
	unsigned int i;
	int fd;

	if (access(EVENT "enable", W_OK))
		SKIP(return, "no async_syscall events in tracefs (need root and tracing)");
	snprintf(self->dir, sizeof(self->dir), "%s/inline_test.XXXXXX",
		 scratch && *scratch ? scratch : "/tmp");
	ASSERT_NE(NULL, mkdtemp(self->dir)) TH_LOG("%s", strerror(errno));
	self->dirfd = open(self->dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, self->dirfd);
	snprintf(self->path, sizeof(self->path), "%s/f", self->dir);
	for (i = 0; i < FSIZE; i++)
		self->data[i] = 'a' + i % 26;
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(FSIZE, write(fd, self->data, FSIZE));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	ASSERT_EQ(0, write_knob(EVENT "enable", "1"));
}

FIXTURE_TEARDOWN(where)
{
	write_knob(EVENT "enable", "0");
	unlink(self->path);
	rmdir(self->dir);
}

/* Reads the trace buffer into self->trace. */
static void read_trace(struct _test_data_where *self)
{
	int fd = open(TRACEFS "trace", O_RDONLY);
	ssize_t len = 0, ret;

	if (fd >= 0) {
		while (len < (ssize_t)sizeof(self->trace) - 1) {
			ret = read(fd, self->trace + len,
				   sizeof(self->trace) - 1 - len);
			if (ret <= 0)
				break;
			len += ret;
		}
		close(fd);
	}
	self->trace[len] = '\0';
}

/*
 * Whether entry @index (of number @nr) of this process completed with
 * @result on a worker (1) or in the submitter (0); -1 if not traced.  A
 * worker records the event just after it sets the done word: look again
 * for a while.
 */
static int ran_on_worker(struct _test_data_where *self, unsigned int index,
			 int nr, long long result)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	char want[96];
	const char *p;

	snprintf(want, sizeof(want),
		 "async_syscall_complete: index=%u nr=%d result=%lld ", index,
		 nr, result);
	do {
		read_trace(self);
		p = strstr(self->trace, want);
		if (p) {
			p = strstr(p, " worker=");
			return p ? p[8] == '1' : -1;
		}
		sleep_ms(POLL_MS);
	} while (now_ns() < end);
	return -1;
}

/* Drops the file's pages from the page cache; false if they stay. */
static bool evict(const char *path)
{
	unsigned char vec[FSIZE / 4096];
	bool resident = false;
	unsigned int i;
	void *map;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	map = mmap(NULL, FSIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	if (mincore(map, FSIZE, vec))
		resident = true;
	for (i = 0; i < sizeof(vec); i++)
		resident |= vec[i] & 1;
	munmap(map, FSIZE);
	return !resident;
}

/* A read from the page cache completes before async_submit() returns. */
TEST_F(where, cached_read_runs_in_submitter)
{
	struct async_syscall e;
	int fd = open(self->path, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(FSIZE, pread(fd, self->buf, FSIZE, 0));
	memset(self->buf, 0, FSIZE);
	async_prep_pread(&e, fd, self->buf, FSIZE, 0);
	poison(&e);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	/* No wait: it ran in this thread. */
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e.done);
	ASSERT_EQ(FSIZE, e.result);
	EXPECT_EQ(0, memcmp(self->buf, self->data, FSIZE));
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_pread64, FSIZE));
	close(fd);
}

/* The same read forced to a worker gives the same result. */
TEST_F(where, force_async_uses_worker)
{
	struct async_syscall e;
	int fd = open(self->path, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(FSIZE, pread(fd, self->buf, FSIZE, 0));
	memset(self->buf, 0, FSIZE);
	async_prep_pread(&e, fd, self->buf, FSIZE, 0);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	poison(&e);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_EQ(FSIZE, e.result);
	EXPECT_EQ(0, memcmp(self->buf, self->data, FSIZE));
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_pread64, FSIZE));
	close(fd);
}

/*
 * A read whose pages are not cached starts their I/O without waiting and
 * goes to a worker unless the I/O is already done when it looks again
 * (a fast virtual disk can be that quick).  Either way the read is whole
 * and moves the file position once.
 */
TEST_F(where, evicted_read_is_whole)
{
	struct async_syscall e;
	int fd, worker;

	if (!evict(self->path))
		SKIP(return, "pages stay cached: set SCRATCH to a disk");
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	memset(self->buf, 0, FSIZE);
	async_prep_read(&e, fd, self->buf, FSIZE);
	poison(&e);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_EQ(FSIZE, e.result);
	EXPECT_EQ(0, memcmp(self->buf, self->data, FSIZE));
	EXPECT_EQ(FSIZE, lseek(fd, 0, SEEK_CUR));
	worker = ran_on_worker(self, 0, __NR_read, FSIZE);
	ASSERT_LE(0, worker);
	TH_LOG("ran %s", worker ? "on a worker" : "in the submitter");
	close(fd);
}

/*
 * A socket is read on a worker even with data waiting: what a socket
 * hands over cannot be read again, and its blocking read may wait for the
 * low-water mark where a non-blocking one would not.  Nothing is lost.
 */
TEST_F(where, socket_read_goes_to_worker)
{
	struct async_syscall e;
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(3, write(sv[1], "abc", 3));
	memset(self->buf, 0, 8);
	async_prep_read(&e, sv[0], self->buf, 8);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_EQ(3, e.result);
	EXPECT_EQ(0, memcmp(self->buf, "abc", 4));
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_read, 3));
	close(sv[0]);
	close(sv[1]);
}

/*
 * openat -> read -> close of a file opened with O_DIRECT: the open runs in
 * the submitter, the read, which would wait for the disk, on a worker,
 * and the close after it there.
 */
TEST_F(where, chain_moves_to_worker_and_goes_on)
{
	struct async_syscall e[3];
	struct stat st;
	void *buf;

	ASSERT_EQ(0, fstatat(self->dirfd, "f", &st, 0));
	ASSERT_EQ(0, posix_memalign(&buf, 4096, FSIZE));
	memset(buf, 0, FSIZE);
	async_prep_openat(&e[0], self->dirfd, "f", O_RDONLY | O_DIRECT, 0);
	async_prep_read(&e[1], -1, buf, FSIZE);
	async_ref(&e[1], 0, 0);
	async_prep_close(&e[2], -1);
	async_ref(&e[2], 0, 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	if (e[0].result == -EINVAL)
		SKIP(goto out, "no O_DIRECT here: set SCRATCH to a disk");
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(FSIZE, e[1].result);
	ASSERT_EQ(0, e[2].result);
	EXPECT_EQ(0, memcmp(buf, self->data, FSIZE));
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_openat, e[0].result));
	EXPECT_EQ(1, ran_on_worker(self, 1, __NR_read, FSIZE));
	EXPECT_EQ(1, ran_on_worker(self, 2, __NR_close, 0));
	/* The descriptor is closed. */
	EXPECT_EQ(-1, fcntl(e[0].result, F_GETFD));
out:
	free(buf);
}

/*
 * A pipe with data is read in the submitter, short as a blocking read
 * would be; an empty one goes to a worker, which waits for the data.
 */
TEST_F(where, pipe_read_inline_or_waits)
{
	struct async_syscall e;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(3, write(p[1], "abc", 3));
	async_prep_read(&e, p[0], self->buf, sizeof(self->buf));
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e.done);
	ASSERT_EQ(3, e.result);
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_read, 3));

	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	async_prep_read(&e, p[0], self->buf, sizeof(self->buf));
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	sleep_ms(50);
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, e.done);
	ASSERT_EQ(2, write(p[1], "de", 2));
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S));
	ASSERT_EQ(2, e.result);
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_read, 2));
	close(p[0]);
	close(p[1]);
}

/*
 * A write of 8 bytes to an eventfd with room runs in the submitter and has
 * counted when the call returns.  A counter without room sends it to a
 * worker, which waits for the room as write() does; a wrong size or a bad
 * buffer fails there as write() fails.
 */
TEST_F(where, eventfd_write_inline_or_waits)
{
	uint64_t one = 1, full = UINT64_MAX - 1, count;
	struct async_syscall e;
	int efd = eventfd(0, EFD_CLOEXEC);

	ASSERT_LE(0, efd);
	async_prep_write(&e, efd, &one, sizeof(one));
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e.done);
	ASSERT_EQ(8, e.result);
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_write, 8));
	ASSERT_EQ(8, read(efd, &count, sizeof(count)));
	ASSERT_EQ(1, count);

	async_prep_write(&e, efd, &one, 4);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_EQ(-EINVAL, e.result);
	async_prep_write(&e, efd, NULL, sizeof(one));
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_EQ(-EFAULT, e.result);

	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	ASSERT_EQ(8, write(efd, &full, sizeof(full)));
	async_prep_write(&e, efd, &one, sizeof(one));
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(0, wait_blocked(__NR_write, 1));
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, e.done);
	ASSERT_EQ(8, read(efd, &count, sizeof(count)));
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S));
	ASSERT_EQ(8, e.result);
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_write, 8));
	ASSERT_EQ(8, read(efd, &count, sizeof(count)));
	ASSERT_EQ(1, count);
	close(efd);
}

/*
 * Reads of empty pipes wait for a peer: each gets a worker of its own,
 * made for it the first time and woken from the idle ones the second,
 * and each then reads its own pipe's data.
 */
TEST_F(where, empty_pipe_reads_get_a_worker_each)
{
	struct async_syscall e[8];
	int p[8][2], round;
	unsigned int i;

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, pipe(p[i]));
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 8; i++)
			async_prep_read(&e[i], p[i][0], &self->buf[i], 1);
		ASSERT_EQ(8, async_submit(e, 8, 0));
		ASSERT_EQ(0, wait_blocked(__NR_read, 8)) TH_LOG("round %d", round);
		for (i = 0; i < 8; i++) {
			self->data[i] = 'A' + i + round;
			ASSERT_EQ(1, write(p[i][1], &self->data[i], 1));
		}
		for (i = 0; i < 8; i++) {
			ASSERT_EQ(0, wait_done(&e[i], WAIT_TIMEOUT_S));
			ASSERT_EQ(1, e[i].result);
			ASSERT_EQ(self->data[i], self->buf[i]);
		}
	}
	for (i = 0; i < 8; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
}

/*
 * A FIFO is never opened in the submitter: opening it for reading waits
 * for a writer, and even a non-blocking open would wake one.
 */
TEST_F(where, fifo_open_goes_to_worker)
{
	char fifo[PATH_MAX + 8];
	struct async_syscall e;
	int wfd;

	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	async_prep_openat(&e, AT_FDCWD, fifo, O_RDONLY | O_CLOEXEC, 0);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	sleep_ms(50);
	/* Blocked in open(), as the system call would be. */
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, e.done);
	wfd = open(fifo, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S));
	ASSERT_LE(0, e.result);
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_openat, e.result));
	close(e.result);
	close(wfd);
	unlink(fifo);
}

/*
 * An inline open sets the flags the system call sets: O_LARGEFILE on a
 * 64-bit kernel, which user space's O_LARGEFILE of 0 does not ask for.
 */
TEST_F(where, inline_open_flags_as_openat)
{
	struct async_syscall e;
	int fd;

	fd = openat(self->dirfd, "f", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	async_prep_openat(&e, self->dirfd, "f", O_RDONLY | O_CLOEXEC, 0);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e.done);
	ASSERT_LE(0, e.result) TH_LOG("%s", strerror(-e.result));
	EXPECT_EQ(fcntl(fd, F_GETFL), fcntl(e.result, F_GETFL));
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_openat, e.result));
	close(e.result);
	close(fd);
}

/*
 * Counts into @opens[i] the opens of @names[i] that @fan reported, and
 * into @by_caller[i] those the calling thread made.  Each thread's events
 * stay apart (FAN_REPORT_TID): an open tried in the submitter and made
 * again on a worker counts twice, where inotify would merge the two.
 */
static void count_opens(int fan, const char * const *names, unsigned int n,
			int *opens, int *by_caller)
{
	union {
		struct fanotify_event_metadata ev;
		char bytes[4096];
	} buf;
	const struct fanotify_event_info_fid *fid;
	const struct fanotify_event_metadata *ev;
	const struct file_handle *fh;
	pid_t tid = syscall(SYS_gettid);
	const char *name;
	unsigned int i;
	ssize_t len;

	memset(opens, 0, n * sizeof(*opens));
	memset(by_caller, 0, n * sizeof(*by_caller));
	while ((len = read(fan, buf.bytes, sizeof(buf))) > 0) {
		for (ev = &buf.ev; FAN_EVENT_OK(ev, len);
		     ev = FAN_EVENT_NEXT(ev, len)) {
			fid = (const void *)(ev + 1);
			if (!(ev->mask & FAN_OPEN) ||
			    ev->event_len < sizeof(*ev) + sizeof(*fid) ||
			    fid->hdr.info_type != FAN_EVENT_INFO_TYPE_DFID_NAME)
				continue;
			fh = (const struct file_handle *)fid->handle;
			name = (const char *)fh->f_handle + fh->handle_bytes;
			for (i = 0; i < n; i++) {
				if (strcmp(name, names[i]))
					continue;
				opens[i]++;
				by_caller[i] += ev->pid == tid;
			}
		}
	}
}

/*
 * The type an open checks is that of what the walk ends at, symlinks
 * followed, and before anything is opened: a regular file opens in the
 * submitter through a symlink, while a FIFO through a symlink and a
 * character device go to a worker, where the same opens succeed.  Each
 * is opened once.
 */
TEST_F(where, open_checks_where_the_walk_ends)
{
	static const char * const names[] = { "to-f", "to-fifo", "null" };
	static const char * const targets[] = { "f", "fifo", "null" };
	struct async_syscall e[3];
	int fan, opens[3], by_caller[3];
	struct statvfs sv;
	struct stat st;
	unsigned int i;

	ASSERT_EQ(0, fstatvfs(self->dirfd, &sv));
	if (sv.f_flag & ST_NODEV)
		SKIP(return, "the scratch directory is on a nodev mount");
	if (mknodat(self->dirfd, "null", S_IFCHR | 0600, makedev(1, 3)))
		SKIP(return, "mknod: %s", strerror(errno));
	ASSERT_EQ(0, mkfifoat(self->dirfd, "fifo", 0600));
	ASSERT_EQ(0, symlinkat("f", self->dirfd, "to-f"));
	ASSERT_EQ(0, symlinkat("fifo", self->dirfd, "to-fifo"));
	/*
	 * Into the dentry cache, from the scratch directory, not the 9p
	 * root.  A new symlink's atime needs an update, which a cached walk
	 * cannot make: the first follow makes it, a tick after the link.
	 */
	sleep_ms(20);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, fstatat(self->dirfd, names[i], &st, 0));
		/* Without a writer, the FIFO's open returns at once. */
		async_prep_openat(&e[i], self->dirfd, names[i],
				  O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	}
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
			    FAN_REPORT_TID | FAN_NONBLOCK | FAN_CLOEXEC,
			    O_RDONLY);
	ASSERT_LE(0, fan) TH_LOG("fanotify_init: %s", strerror(errno));
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD,
				   FAN_OPEN | FAN_EVENT_ON_CHILD,
				   self->dirfd, NULL));

	ASSERT_EQ(3, async_submit_wait(e, 3));
	for (i = 0; i < 3; i++) {
		long long res = e[i].result;

		ASSERT_LE(0, res) TH_LOG("entry %u: %s", i, strerror(-res));
	}
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_openat, e[0].result));
	EXPECT_EQ(1, ran_on_worker(self, 1, __NR_openat, e[1].result));
	EXPECT_EQ(1, ran_on_worker(self, 2, __NR_openat, e[2].result));
	count_opens(fan, targets, 3, opens, by_caller);
	EXPECT_EQ(1, opens[0]);
	EXPECT_EQ(1, opens[1]);
	EXPECT_EQ(1, opens[2]);
	/* By the submitter itself only what it opened inline. */
	EXPECT_EQ(1, by_caller[0]);
	EXPECT_EQ(0, by_caller[1]);
	EXPECT_EQ(0, by_caller[2]);
	close(fan);
	for (i = 0; i < 3; i++) {
		close(e[i].result);
		unlinkat(self->dirfd, names[i], 0);
	}
	unlinkat(self->dirfd, "fifo", 0);
}

/*
 * An overlayfs open opens the file of a layer below, or copies it up:
 * even a cached one goes to a worker.  The guest's /tmp is an overlay.
 */
TEST_F(where, overlay_open_goes_to_worker)
{
	char path[] = "/tmp/inline_test.XXXXXX";
	const char *name = path + strlen("/tmp/");
	struct async_syscall e;
	struct statfs sf;
	struct stat st;
	int fd, tmp;

	if (statfs("/tmp", &sf) || sf.f_type != OVERLAYFS_SUPER_MAGIC)
		SKIP(return, "/tmp is not an overlay");
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	/* From /tmp itself: a walk through the 9p root goes to a worker. */
	tmp = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, tmp);
	ASSERT_EQ(0, fstatat(tmp, name, &st, 0));
	async_prep_openat(&e, tmp, name, O_RDONLY | O_CLOEXEC, 0);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_LE(0, e.result) TH_LOG("%s", strerror(-e.result));
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_openat, e.result));
	close(e.result);
	close(tmp);
	unlink(path);
}

/*
 * In @dir, a regular file "f" and a directory "d", both held open, and a
 * file of "d" of its own: the entries open both names, cached, and close
 * the third file, its last reference, each in a chain of its own.  Expect
 * them to run on a worker (1) or in the submitter (0).
 */
static void open_close_in(struct __test_metadata *_metadata,
			  struct _test_data_where *self, const char *dir,
			  int worker)
{
	struct async_syscall e[4];
	int dfd, held[2], last;
	struct statx stx;
	struct stat st;
	unsigned int i;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dfd);
	held[0] = openat(dfd, "f", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, held[0]) TH_LOG("%s: %s", dir, strerror(errno));
	ASSERT_EQ(0, mkdirat(dfd, "d", 0755));
	held[1] = openat(dfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, held[1]);
	last = openat(dfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, last);

	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	async_prep_openat(&e[0], dfd, "f", O_RDONLY | O_CLOEXEC, 0);
	async_prep_openat(&e[1], dfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	async_prep_close(&e[2], last);
	async_prep_statx(&e[3], held[0], "", AT_EMPTY_PATH, STATX_BASIC_STATS,
			 &stx);
	for (i = 0; i < 4; i++)
		poison(&e[i]);
	memset(&stx, 0, sizeof(stx));
	ASSERT_EQ(4, async_submit_wait(e, 4));
	ASSERT_LE(0, e[0].result) TH_LOG("%s", strerror(-e[0].result));
	ASSERT_LE(0, e[1].result) TH_LOG("%s", strerror(-e[1].result));
	ASSERT_EQ(0, e[2].result);
	ASSERT_EQ(0, e[3].result) TH_LOG("%s", strerror(-e[3].result));
	ASSERT_EQ(0, fstat(held[0], &st));
	EXPECT_EQ(st.st_ino, stx.stx_ino);
	EXPECT_EQ(st.st_mode, stx.stx_mode);
	EXPECT_EQ(worker, ran_on_worker(self, 0, __NR_openat, e[0].result));
	EXPECT_EQ(worker, ran_on_worker(self, 1, __NR_openat, e[1].result));
	EXPECT_EQ(worker, ran_on_worker(self, 2, __NR_close, 0));
	EXPECT_EQ(worker, ran_on_worker(self, 3, __NR_statx, 0));
	close(e[0].result);
	close(e[1].result);
	close(held[0]);
	close(held[1]);
	unlinkat(dfd, "f", 0);
	unlinkat(dfd, "d", AT_REMOVEDIR);
	close(dfd);
}

/*
 * A writable 9p mount without a cache option, where each open and each
 * release of a file is a message to the server.  A virtio tag is mounted
 * once only: the guest's own mount of its output tag is used, if it has
 * one, else the tag is mounted on @mnt.  Returns the mount's root, or NULL.
 */
static const char *uncached_9p(struct _test_data_where *self, char *root,
			       size_t size, char *mnt, size_t mnt_size)
{
	struct mntent *m;
	FILE *f;

	*mnt = '\0';
	f = setmntent("/proc/self/mounts", "r");
	while (f && (m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "9p") && hasmntopt(m, "rw") &&
		    !strstr(m->mnt_opts, "cache=")) {
			snprintf(root, size, "%s", m->mnt_dir);
			endmntent(f);
			return root;
		}
	}
	if (f)
		endmntent(f);
	snprintf(mnt, mnt_size, "%s/9p", self->dir);
	if (mkdir(mnt, 0755))
		return NULL;
	if (mount("vmout", mnt, "9p", 0, "trans=virtio,version=9p2000.L")) {
		rmdir(mnt);
		*mnt = '\0';
		return NULL;
	}
	snprintf(root, size, "%s", mnt);
	return root;
}

/*
 * 9p without a cache asks its server when a file is opened, even by a
 * name the dentry cache holds, when its attributes are read, and when the
 * last reference to a file is dropped: those opens, fstats and closes go
 * to a worker, where the submitter does not wait for the server.
 */
TEST_F(where, uncached_9p_open_and_close_go_to_worker)
{
	char root[PATH_MAX + 8], mnt[PATH_MAX + 8], dir[PATH_MAX + 32];

	if (!uncached_9p(self, root, sizeof(root), mnt, sizeof(mnt)))
		SKIP(return, "no writable 9p mount without a cache");
	snprintf(dir, sizeof(dir), "%s/inline_test.XXXXXX", root);
	if (!mkdtemp(dir)) {
		if (*mnt) {
			umount(mnt);
			rmdir(mnt);
		}
		ASSERT_TRUE(false) TH_LOG("mkdtemp %s: %s", dir, strerror(errno));
	}
	TH_LOG("9p without a cache at %s", root);
	open_close_in(_metadata, self, dir, 1);
	rmdir(dir);
	if (*mnt) {
		umount(mnt);
		rmdir(mnt);
	}
}

/*
 * The same opens, fstats and closes run in the submitter on a local
 * filesystem (the scratch directory's) and in memory (tmpfs).
 */
TEST_F(where, local_open_and_close_run_in_submitter)
{
	char shm[] = "/dev/shm/inline_test.XXXXXX";
	char local[PATH_MAX + 8];
	struct statfs sf;

	snprintf(local, sizeof(local), "%s/local", self->dir);
	ASSERT_EQ(0, mkdir(local, 0755));
	open_close_in(_metadata, self, local, 0);
	rmdir(local);
	if (statfs("/dev/shm", &sf) || sf.f_type != TMPFS_MAGIC)
		SKIP(return, "/dev/shm is not a tmpfs");
	ASSERT_NE(NULL, mkdtemp(shm));
	open_close_in(_metadata, self, shm, 0);
	rmdir(shm);
}

/*
 * The inline fstat faults as statx() does: a buffer in no mapping, or
 * read-only, gives EFAULT, and so does a path that cannot be read.
 */
TEST_F(where, inline_fstat_faults_as_statx)
{
	struct async_syscall e[3];
	void *ro;
	int fd;

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	fd = open(self->path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, syscall(__NR_statx, fd, "", AT_EMPTY_PATH,
			      STATX_BASIC_STATS, ro));
	ASSERT_EQ(EFAULT, errno);

	async_prep_statx(&e[0], fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS,
			 (struct statx *)1);
	async_prep_statx(&e[1], fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, ro);
	async_prep_statx(&e[2], fd, (const char *)1, AT_EMPTY_PATH,
			 STATX_BASIC_STATS, (struct statx *)ro);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	EXPECT_EQ(-EFAULT, e[0].result);
	EXPECT_EQ(-EFAULT, e[1].result);
	EXPECT_EQ(-EFAULT, e[2].result);
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_statx, -EFAULT));
	close(fd);
	munmap(ro, 4096);
}

/*
 * A close whose release may need I/O goes to a worker, however many
 * references the file has when it is looked at: a directory removed while
 * open, whose release frees its inode, a file written on a block device,
 * whose release may give back reserved blocks or start writeback, and a
 * file read there whose pages are dirty, which a release may flush.
 */
TEST_F(where, releasing_close_goes_to_worker)
{
	char gone[PATH_MAX + 8];
	struct async_syscall e[3];
	int dirfd, wfd, rfd, fd;
	struct statfs sf;
	unsigned int i;

	ASSERT_EQ(0, statfs(self->dir, &sf));
	if (sf.f_type != EXT4_SUPER_MAGIC)
		SKIP(return, "the test directory is not on ext4");
	snprintf(gone, sizeof(gone), "%s/gone", self->dir);
	ASSERT_EQ(0, mkdir(gone, 0755));
	dirfd = open(gone, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(0, rmdir(gone));
	wfd = open(self->path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, wfd);
	/* A reader's close of a file with dirty pages may flush them. */
	rfd = open(self->path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, rfd);
	fd = open(self->path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pwrite(fd, self->data, 1, 0));
	ASSERT_EQ(0, close(fd));

	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	async_prep_close(&e[0], dirfd);
	async_prep_close(&e[1], wfd);
	async_prep_close(&e[2], rfd);
	for (i = 0; i < 3; i++)
		poison(&e[i]);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, e[i].result);
		EXPECT_EQ(1, ran_on_worker(self, i, __NR_close, 0));
	}
}

/* Answers fanotify permission events with FAN_ALLOW until told to stop. */
struct perm_listener {
	int fd;
	int events;
	bool stop;
};

static void *allow_perm_events(void *arg)
{
	struct perm_listener *l = arg;
	union {
		struct fanotify_event_metadata ev;
		char bytes[4096];
	} buf;
	struct fanotify_event_metadata *ev;
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
	ssize_t len;

	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, POLL_MS) <= 0)
			continue;
		len = read(l->fd, buf.bytes, sizeof(buf));
		for (ev = &buf.ev; FAN_EVENT_OK(ev, len);
		     ev = FAN_EVENT_NEXT(ev, len)) {
			struct fanotify_response r = {
				.fd = ev->fd,
				.response = FAN_ALLOW,
			};

			if (write(l->fd, &r, sizeof(r)) == sizeof(r))
				l->events++;
			close(ev->fd);
		}
	}
	return NULL;
}

/*
 * A fanotify listener must answer the permission events of an open and
 * of a read before they go on: both go to a worker, whose calls wait for
 * the answers, and succeed.
 */
TEST_F(where, perm_listener_keeps_open_and_read_off_inline)
{
	struct perm_listener l = { .stop = false };
	struct async_syscall e[2];
	pthread_t thread;
	int fd;

	l.fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (l.fd < 0)
		SKIP(return, "fanotify_init: %s", strerror(errno));
	fd = open(self->path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(FSIZE, pread(fd, self->buf, FSIZE, 0));
	close(fd);
	ASSERT_EQ(0, fanotify_mark(l.fd, FAN_MARK_ADD,
				   FAN_OPEN_PERM | FAN_ACCESS_PERM, AT_FDCWD,
				   self->path));
	ASSERT_EQ(0, pthread_create(&thread, NULL, allow_perm_events, &l));
	/* Opened after the mark: a file opened before has no perm events. */
	fd = open(self->path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);

	async_prep_openat(&e[0], self->dirfd, "f", O_RDONLY | O_CLOEXEC, 0);
	async_prep_pread(&e[1], fd, self->buf, FSIZE, 0);
	ASSERT_EQ(2, async_submit_wait(e, 2));
	__atomic_store_n(&l.stop, true, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_LE(0, e[0].result) TH_LOG("%s", strerror(-e[0].result));
	ASSERT_EQ(FSIZE, e[1].result);
	EXPECT_EQ(1, ran_on_worker(self, 0, __NR_openat, e[0].result));
	EXPECT_EQ(1, ran_on_worker(self, 1, __NR_pread64, FSIZE));
	/* This thread's open, then the entries' open and read, once each. */
	EXPECT_EQ(3, l.events);
	close(e[0].result);
	close(fd);
	close(l.fd);
}

/*
 * An inline open runs with the submitter's credentials: after dropping
 * root, a file of the new user opens in the submitter, and root's file
 * fails as the system call would.
 */
TEST_F(where, creds_after_setuid)
{
	char secret[PATH_MAX + 8];
	int status, fd;
	pid_t pid;

	if (geteuid())
		SKIP(return, "needs root");
	snprintf(secret, sizeof(secret), "%s/secret", self->dir);
	fd = open(secret, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, chmod(self->dir, 0755));
	ASSERT_EQ(0, chown(self->path, 65534, 65534));
	ASSERT_EQ(0, chmod(self->path, 0400));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct async_syscall e[2];
		struct stat st;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		/*
		 * Both names in the dentry cache, and looked up from the
		 * scratch directory: a path through the 9p root would go to
		 * a worker, as 9p revalidates every dentry.
		 */
		fstatat(self->dirfd, "f", &st, 0);
		fstatat(self->dirfd, "secret", &st, 0);
		async_prep_openat(&e[0], self->dirfd, "f", O_RDONLY, 0);
		async_prep_openat(&e[1], self->dirfd, "secret", O_RDONLY, 0);
		if (async_submit(e, 2, 0) != 2)
			_exit(11);
		if (e[0].done != ASYNC_SYSCALL_DONE)
			_exit(12);
		if (e[0].result < 0)
			_exit(20 + (-e[0].result & 63));
		if (wait_done(&e[1], WAIT_TIMEOUT_S) || e[1].result != -EACCES)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	unlink(secret);
}

/*
 * An inline close releases the file before the chain goes on, as close()
 * does: closing a pipe's only writer lets the read that follows see the
 * end of the pipe instead of waiting for ever.
 */
TEST_F(where, close_releases_before_next_entry)
{
	struct async_syscall e[2];
	int p[2];

	ASSERT_EQ(0, pipe(p));
	async_prep_close(&e[0], p[1]);
	async_prep_read(&e[1], p[0], self->buf, sizeof(self->buf));
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit(e, 2, 0));
	ASSERT_EQ(0, wait_all_done(e, 2, WAIT_TIMEOUT_S));
	EXPECT_EQ(0, e[0].result);
	EXPECT_EQ(0, e[1].result);
	EXPECT_EQ(0, ran_on_worker(self, 0, __NR_close, 0));
	close(p[0]);
}

/* Chains of a batch long enough to be shared with a worker. */
#define SHARED_CHAINS	512
/* One-entry chains of the batch a cancel meets: opens, long enough to share. */
#define CANCEL_ENTRIES	512

/* How often @needle occurs in the whole trace, however long. */
static unsigned int count_in_trace(const char *needle)
{
	size_t len = 0, size = 1 << 20;
	char *text = malloc(size + 1);
	unsigned int n = 0;
	const char *p;
	ssize_t ret;
	int fd;

	fd = open(TRACEFS "trace", O_RDONLY);
	if (!text || fd < 0)
		goto out;
	for (;;) {
		if (len == size) {
			char *more = realloc(text, 2 * size + 1);

			if (!more)
				break;
			text = more;
			size *= 2;
		}
		ret = read(fd, text + len, size - len);
		if (ret <= 0)
			break;
		len += ret;
	}
	text[len] = '\0';
	for (p = text; (p = strstr(p, needle)); p++)
		n++;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return n;
}

static unsigned int nr_cpus_allowed(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

/*
 * A long batch of open -> pread -> close chains, which could all run in the
 * submitter, is shared with a worker when another CPU is idle: both run
 * chains, and every entry completes once, with the result it would have
 * had.  Whether it is shared depends on the other CPU: try a few times.
 */
TEST_F(where, long_batch_is_shared_with_a_worker)
{
	static struct async_syscall e[3 * SHARED_CHAINS];
	static char bufs[SHARED_CHAINS][64];
	unsigned int i, try, on_worker = 0, inline_n = 0;

	if (nr_cpus_allowed() < 2)
		SKIP(return, "one CPU: a batch is never shared");
	for (try = 0; try < 10 && !on_worker; try++) {
		ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
		memset(bufs, 0, sizeof(bufs));
		for (i = 0; i < SHARED_CHAINS; i++) {
			struct async_syscall *c = &e[3 * i];

			async_prep_openat(&c[0], self->dirfd, "f", O_RDONLY, 0);
			async_prep_pread(&c[1], -1, bufs[i], 64, i * 8);
			async_ref(&c[1], 0, 3 * i);
			async_prep_close(&c[2], -1);
			async_ref(&c[2], 0, 3 * i);
			async_run_anyway(&c[2]);
			async_chain(c, 3);
		}
		ASSERT_EQ(3 * SHARED_CHAINS,
			  async_submit_wait(e, 3 * SHARED_CHAINS));
		for (i = 0; i < SHARED_CHAINS; i++) {
			struct async_syscall *c = &e[3 * i];

			ASSERT_TRUE(async_done(&c[0]) && async_done(&c[1]) &&
				    async_done(&c[2])) TH_LOG("chain %u", i);
			ASSERT_LE(0, c[0].result) TH_LOG("chain %u", i);
			ASSERT_EQ(64, c[1].result) TH_LOG("chain %u", i);
			ASSERT_EQ(0, c[2].result) TH_LOG("chain %u", i);
			ASSERT_EQ(0, memcmp(bufs[i], self->data + i * 8, 64));
		}
		on_worker = count_in_trace(" worker=1");
		inline_n = count_in_trace(" worker=0");
	}
	TH_LOG("try %u: %u entries in the submitter, %u on workers", try,
	       inline_n, on_worker);
	ASSERT_LT(0, on_worker) TH_LOG("never shared in %u tries", try);
	/* The submitter always runs the chains before it shares. */
	ASSERT_LT(0, inline_n);
}

struct canceller {
	struct async_syscall *e;
	long count;
};

/* Cancels the whole batch once its entry 32 is done. */
static void *cancel_midway(void *p)
{
	struct canceller *c = p;

	/* Asleep, not spinning: the batch is shared only with a CPU idle. */
	wait_done(&c->e[32], WAIT_TIMEOUT_S);
	c->count = async_cancel(c->e, CANCEL_ENTRIES);
	return NULL;
}

/*
 * A cancel that meets a long batch, shared or not, cancels what no one has
 * started: each entry completes once, either with its result or with
 * -ECANCELED, and every -ECANCELED is counted.  The count may also hold
 * the few entries running on a worker, which a cancel only interrupts.
 */
TEST_F(where, cancel_meets_a_long_batch)
{
	static struct async_syscall e[CANCEL_ENTRIES];
	unsigned int i, try, cancelled;
	struct canceller c = { .e = e };
	pthread_t t;

	for (try = 0; try < 5; try++) {
		ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
		for (i = 0; i < CANCEL_ENTRIES; i++) {
			async_prep_openat(&e[i], self->dirfd, "f",
					  O_RDONLY | O_CLOEXEC, 0);
			e[i].done = 0;
		}
		ASSERT_EQ(0, pthread_create(&t, NULL, cancel_midway, &c));
		ASSERT_EQ(CANCEL_ENTRIES, async_submit_wait(e, CANCEL_ENTRIES));
		ASSERT_EQ(0, pthread_join(t, NULL));
		ASSERT_LE(0, c.count);
		cancelled = 0;
		for (i = 0; i < CANCEL_ENTRIES; i++) {
			ASSERT_TRUE(async_done(&e[i])) TH_LOG("entry %u", i);
			if (e[i].result == -ECANCELED)
				cancelled++;
			else
				ASSERT_LE(0, e[i].result) TH_LOG("entry %u", i);
		}
		for (i = 0; i < CANCEL_ENTRIES; i++) {
			if (e[i].result >= 0)
				close(e[i].result);
		}
		TH_LOG("try %u: %ld cancelled, %u with -ECANCELED, %u on workers",
		       try, c.count, cancelled, count_in_trace(" worker=1"));
		ASSERT_LE(cancelled, c.count);
		ASSERT_GE(cancelled + 16, c.count);
	}
}

/*
 * Runs a long batch of open -> pread -> close chains in a new process,
 * where chain @blocker is an eventfd read and step @step of chain
 * @unblocker the write it waits for; fails if the batch stalls.
 */
static void run_with_blocker(struct __test_metadata *_metadata,
			     struct _test_data_where *self, unsigned int blocker,
			     unsigned int unblocker, unsigned int step)
{
	static struct async_syscall e[3 * SHARED_CHAINS];
	static char bufs[SHARED_CHAINS][64];
	uint64_t one = 1, got = 0;
	int efd, fd, status;
	unsigned int i;
	pid_t pid;

	efd = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < SHARED_CHAINS; i++) {
		struct async_syscall *c = &e[3 * i];

		async_prep_openat(&c[0], self->dirfd, "f", O_RDONLY, 0);
		async_prep_pread(&c[1], -1, bufs[i], 64, 0);
		async_ref(&c[1], 0, 3 * i);
		async_prep_close(&c[2], -1);
		async_ref(&c[2], 0, 3 * i);
		async_run_anyway(&c[2]);
		async_chain(c, 3);
	}
	/* Reads that refer to nothing around the eventfd's read and write. */
	for (i = 1; i < 3; i++)
		async_prep_pread(&e[3 * blocker + i], fd, bufs[blocker], 64, 0);
	async_prep_read(&e[3 * blocker], efd, &got, sizeof(got));
	if (!step) {
		for (i = 1; i < 3; i++)
			async_prep_pread(&e[3 * unblocker + i], fd,
					 bufs[unblocker], 64, 0);
	}
	async_prep_write(&e[3 * unblocker + step], efd, &one, sizeof(one));
	async_chain(&e[3 * blocker], 3);
	async_chain(&e[3 * unblocker], 3);

	/* A new process: a new pool, whose one worker may be the blocked one. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		alarm(WAIT_TIMEOUT_S);
		if (async_submit_wait(e, 3 * SHARED_CHAINS) != 3 * SHARED_CHAINS)
			_exit(10);
		if (e[3 * blocker].result != sizeof(got) || got != 1)
			_exit(11);
		if (e[3 * unblocker + step].result != sizeof(one))
			_exit(12);
		for (i = 0; i < SHARED_CHAINS; i++) {
			if (e[3 * i + 1].result != 64)
				_exit(13);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("blocker %u, unblocker %u step %u: stalled (status %#x)",
		       blocker, unblocker, step, status);
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(fd);
	close(efd);
}

/*
 * A chain of a long batch that blocks on a worker (an eventfd read) does
 * not hold up the chains after it, even the one it waits for (the write),
 * wherever the two run: the batch completes.  The write comes in a chain
 * of its own, or after steps that run without blocking; the read in the
 * middle of the batch, just before the write's chain, or last, where a
 * worker may take it with nothing left queued.
 */
TEST_F(where, blocked_chain_does_not_stall_a_long_batch)
{
	unsigned int try;

	run_with_blocker(_metadata, self, SHARED_CHAINS / 3,
			 SHARED_CHAINS - 1, 0);
	for (try = 0; try < 4; try++) {
		run_with_blocker(_metadata, self, SHARED_CHAINS - 2,
				 SHARED_CHAINS - 1, 2);
		run_with_blocker(_metadata, self, SHARED_CHAINS - 1,
				 SHARED_CHAINS - 2, 2);
	}
}

#define QUICK_CHAINS 256

/* Pins the calling thread, and the workers it makes, to the CPU it is on. */
static int pin_to_one_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The pid of the task of a trace line, "comm-pid [cpu] ...", whatever the
 * comm (a cached one may be "<...>"); -1 if the line has none.
 */
static int trace_line_pid(const char *line, const char *end)
{
	const char *bracket = strstr(line, " [");
	const char *p;

	if (!bracket || bracket > end)
		return -1;
	for (p = bracket; p > line && p[-1] == ' '; p--)
		;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == line || p[-1] != '-')
		return -1;
	return atoi(p);
}

/*
 * Quick chains forced to workers run on as many workers as the submitter
 * has CPUs: another worker takes the queue only when one sleeps, which
 * these entries do not (one unforeseen sleep is allowed for).  Pinned to
 * one CPU, that is one worker, and the spare it keeps stays idle.
 */
TEST_F(where, quick_chains_keep_to_a_worker_per_cpu)
{
	static struct async_syscall e[QUICK_CHAINS];
	int tids[QUICK_CHAINS], nr_tids = 0, nr_lines = 0, fd, tid, k;
	const char *line, *end;
	unsigned int i;

	ASSERT_EQ(0, pin_to_one_cpu());
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < QUICK_CHAINS; i++) {
		async_prep_pread(&e[i], fd, self->buf, FSIZE, 0);
		e[i].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	}
	ASSERT_EQ(QUICK_CHAINS, async_submit_wait(e, QUICK_CHAINS));
	for (i = 0; i < QUICK_CHAINS; i++)
		ASSERT_EQ(FSIZE, e[i].result);
	close(fd);

	read_trace(self);
	for (line = self->trace; *line; line = end + 1) {
		const char *ev;

		end = strchrnul(line, '\n');
		ev = strstr(line, "async_syscall_complete:");
		if (!ev || ev > end)
			continue;
		ev = strstr(ev, " worker=1");
		if (!ev || ev > end)
			continue;
		nr_lines++;
		tid = trace_line_pid(line, end);
		ASSERT_LT(0, tid);
		for (k = 0; k < nr_tids && tids[k] != tid; k++)
			;
		if (k == nr_tids && nr_tids < QUICK_CHAINS)
			tids[nr_tids++] = tid;
		if (!*end)
			break;
	}
	ASSERT_EQ(QUICK_CHAINS, nr_lines);
	EXPECT_GE(2, nr_tids) TH_LOG("%d workers ran %d quick chains on one CPU",
				     nr_tids, QUICK_CHAINS);
}

#define LONG_CHAIN 512
#define LONG_READ 65536

/*
 * On one CPU, one worker runs the quick chains and keeps a spare: the
 * chain is long enough for the spare to look while the worker still runs,
 * and stay idle.  When the worker then sleeps in a read of an empty pipe,
 * the spare must run the write that the read waits for: the scheduler's
 * hook wakes it (or, without the hook, its idle timeout, 2 s later).
 */
TEST(sleeping_worker_hands_on_the_queue)
{
	static char data[LONG_READ], byte = 'x', got;
	static struct async_syscall e[LONG_CHAIN + 2];
	int p[2], fd;
	unsigned int i;

	ASSERT_EQ(0, pin_to_one_cpu());
	ASSERT_EQ(0, pipe(p));
	fd = memfd_create("sleeping_worker", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(LONG_READ, write(fd, data, LONG_READ));
	for (i = 0; i < LONG_CHAIN; i++)
		async_prep_pread(&e[i], fd, data, LONG_READ, 0);
	async_prep_read(&e[LONG_CHAIN], p[0], &got, 1);
	async_chain(e, LONG_CHAIN + 1);
	async_prep_write(&e[LONG_CHAIN + 1], p[1], &byte, 1);
	for (i = 0; i < LONG_CHAIN + 2; i++)
		e[i].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(LONG_CHAIN + 2, async_submit(e, LONG_CHAIN + 2, 0));
	ASSERT_EQ(0, wait_all_done(e, LONG_CHAIN + 2, WAIT_TIMEOUT_S));
	EXPECT_EQ(1, e[LONG_CHAIN].result);
	EXPECT_EQ(1, e[LONG_CHAIN + 1].result);
	EXPECT_EQ(byte, got);
	close(fd);
	close(p[0]);
	close(p[1]);
}

TEST_HARNESS_MAIN
