// SPDX-License-Identifier: GPL-2.0
/*
 * Linux AIO (io_submit()) with buffered I/O that does not block the
 * submitter: reads and writes that would wait, and fsync, run on workers
 * of the process, so io_submit() returns at once and the events come
 * later.  Covers pipes, a slow disk, regular files, cancellation, eventfd
 * notification, RWF_NOWAIT, reads that wait for their pages without a
 * worker, the process dying with requests in flight and the sysctl that
 * restores synchronous submission.
 *
 * Raw system calls, no libaio.  On a kernel that runs buffered I/O inside
 * io_submit(), the calls that must not block are interrupted by a watchdog
 * alarm, so that those tests fail quickly instead of hanging the run.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "async_test.h"

/* Requests one test keeps in flight at once. */
#define NR		32
#define BLK		4096
/* io_setup() size: room for NR and then some. */
#define CTX_EVENTS	64
/* An io_submit() that must not block is interrupted after this long. */
#define SUBMIT_LIMIT_S	5
/* How long a request that may not complete must stay pending. */
#define PENDING_MS	200

#define SYNC_SYSCTL	"/proc/sys/fs/aio-sync-buffered"
/* Blocks on the null_blk disk are this far apart: one request each. */
#define NULLB_STRIDE	(1024 * 1024)
/* A child sets up and submits in this long, unless io_submit() blocks. */
#define READY_TIMEOUT_S	10
/* Below this completion delay an in-flight read could finish too soon. */
#define NULLB_MIN_NSEC	10000000UL

static inline int sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(__NR_io_setup, nr, ctx);
}

static inline int sys_io_destroy(aio_context_t ctx)
{
	return syscall(__NR_io_destroy, ctx);
}

static inline long sys_io_submit(aio_context_t ctx, long nr,
				 struct iocb **iocbs)
{
	return syscall(__NR_io_submit, ctx, nr, iocbs);
}

static inline long sys_io_getevents(aio_context_t ctx, long min_nr, long nr,
				    struct io_event *ev, struct timespec *ts)
{
	return syscall(__NR_io_getevents, ctx, min_nr, nr, ev, ts);
}

static inline int sys_io_cancel(aio_context_t ctx, struct iocb *iocb,
				struct io_event *ev)
{
	return syscall(__NR_io_cancel, ctx, iocb, ev);
}

static void prep_rw(struct iocb *cb, int op, int fd, const void *buf,
		    size_t len, off_t off, __u64 data)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = op;
	cb->aio_fildes = fd;
	cb->aio_buf = (uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_data = data;
}

/* Set by the handler, read after the interrupted call: atomics, not volatile. */
static int watchdog_fired;

static void on_watchdog(int sig)
{
	__atomic_store_n(&watchdog_fired, 1, __ATOMIC_RELAXED);
}

/* No SA_RESTART: the alarm must end a blocked system call. */
static int install_watchdog(void)
{
	struct sigaction sa = { .sa_handler = on_watchdog };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGALRM, &sa, NULL);
}

/*
 * io_submit() that should not block.  If it does, SIGALRM interrupts it
 * after SUBMIT_LIMIT_S (an interrupted pipe read completes with -EINTR and
 * the rest of the array fails fast), and *@blocked says so.  *@ns is how
 * long the call took.
 */
static long submit_watched(aio_context_t ctx, long nr, struct iocb **iocbs,
			   bool *blocked, int64_t *ns)
{
	int64_t start = now_ns();
	long ret;
	int err;

	__atomic_store_n(&watchdog_fired, 0, __ATOMIC_RELAXED);
	alarm(SUBMIT_LIMIT_S);
	ret = sys_io_submit(ctx, nr, iocbs);
	err = errno;
	alarm(0);
	*ns = now_ns() - start;
	*blocked = __atomic_load_n(&watchdog_fired, __ATOMIC_RELAXED);
	errno = err;
	return ret;
}

/* The submission returned all @nr without blocking. */
#define ASSERT_SUBMITTED(nr, ret, blocked, ns) do { \
	ASSERT_FALSE(blocked) \
		TH_LOG("io_submit() blocked: interrupted after %lld ms", \
		       (long long)((ns) / NSEC_PER_MSEC)); \
	ASSERT_EQ((nr), (ret)) TH_LOG("io_submit: %s", strerror(errno)); \
} while (0)

/*
 * Collect events into @ev until @got of them are there, or @want, waiting
 * up to @secs in all: how many there are then.
 */
static long wait_events(aio_context_t ctx, struct io_event *ev, long got,
			long want, int secs)
{
	int64_t end = now_ns() + secs * NSEC_PER_SEC, left;
	struct timespec ts;
	long ret;

	while (got < want) {
		left = end - now_ns();
		if (left <= 0)
			break;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		ret = sys_io_getevents(ctx, 1, want - got, ev + got, &ts);
		if (ret < 0 && errno != EINTR)
			break;
		if (ret > 0)
			got += ret;
	}
	return got;
}

/* Events already there: io_getevents() with a zero timeout. */
static long peek_events(aio_context_t ctx, struct io_event *ev, long nr)
{
	struct timespec zero = { 0, 0 };

	return sys_io_getevents(ctx, 0, nr, ev, &zero);
}

/* A pattern that differs for every @seed and every word. */
static void fill(void *buf, size_t len, unsigned int seed)
{
	uint32_t *w = buf;
	size_t i;

	for (i = 0; i < len / 4; i++)
		w[i] = seed * 0x9e3779b1U + i;
	memset((char *)buf + len / 4 * 4, seed, len % 4);
}

static bool check(const void *buf, size_t len, unsigned int seed)
{
	char *want = malloc(len);
	bool ok;

	if (!want)
		return false;
	fill(want, len, seed);
	ok = !memcmp(buf, want, len);
	free(want);
	return ok;
}

/* Pages of [@off, @off + @len) of @fd in the page cache, or -1. */
static int resident(int fd, off_t off, size_t len)
{
	unsigned char vec[64];
	size_t i, pages = len / BLK;
	void *map;
	int n = 0;

	if (pages > sizeof(vec))
		return -1;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	if (map == MAP_FAILED)
		return -1;
	if (mincore(map, len, vec))
		n = -1;
	for (i = 0; n >= 0 && i < pages; i++)
		n += vec[i] & 1;
	munmap(map, len);
	return n;
}

/* Write @len bytes of pattern @seed at @off of @fd and get them on disk. */
static int write_synced(int fd, off_t off, size_t len, unsigned int seed)
{
	char *buf = malloc(len);
	int ret = -1;

	if (!buf)
		return -1;
	fill(buf, len, seed);
	if (pwrite(fd, buf, len, off) == (ssize_t)len && !fsync(fd))
		ret = 0;
	free(buf);
	return ret;
}

/* Read exactly @len bytes of @fd, waiting up to @secs for each: 0 or -1. */
static int read_timed(int fd, void *buf, size_t len, int secs)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t ret;

	while (got < len) {
		if (poll(&pfd, 1, secs * 1000) != 1)
			return -1;
		ret = read(fd, (char *)buf + got, len - got);
		if (ret <= 0)
			return -1;
		got += ret;
	}
	return 0;
}

/* The scratch directory of the guest (an ext4 disk), else /tmp. */
static const char *scratch_dir(void)
{
	const char *s = getenv("SCRATCH");

	return s && *s ? s : "/tmp";
}

/* --- Requests in flight while io_submit() has returned ------------------ */

FIXTURE(aio) {
	aio_context_t ctx;
	int pipes[NR][2];
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	int fd;
	int devfd;
	int efd;
	struct iocb cbs[NR];
	struct iocb *ptrs[NR];
	struct io_event ev[NR];
	char *buf;	/* NR blocks, page aligned */
};

FIXTURE_SETUP(aio)
{
	int i;

	for (i = 0; i < NR; i++)
		self->ptrs[i] = &self->cbs[i];
	/* A worker writing to a closed pipe must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, install_watchdog());
	self->buf = mmap(NULL, NR * BLK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	self->ctx = 0;
	ASSERT_EQ(0, sys_io_setup(CTX_EVENTS, &self->ctx))
		TH_LOG("io_setup: %s", strerror(errno));
	snprintf(self->dir, sizeof(self->dir), "%s/aio_test.XXXXXX",
		 scratch_dir());
	ASSERT_NE(NULL, mkdtemp(self->dir))
		TH_LOG("%s: %s", self->dir, strerror(errno));
	snprintf(self->path, sizeof(self->path), "%s/f", self->dir);
}

/*
 * In the parent: at -O2 the 6.12 harness skips a teardown in the test's
 * process after a failed assertion.  The descriptors, the context and any
 * request left in flight end with that process, as a process exiting with
 * requests in flight must (see aio_exit).
 */
FIXTURE_TEARDOWN_PARENT(aio)
{
	unlink(self->path);
	rmdir(self->dir);
}

static int open_pipes(struct _test_data_aio *self, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (pipe2(self->pipes[i], O_CLOEXEC))
			return -1;
	}
	return 0;
}

/*
 * Check @n events against the iocbs of self->cbs: each names its own iocb
 * and comes once.  Their results go to @res, by iocb index.
 */
static void events_by_index(struct __test_metadata *_metadata,
			    struct _test_data_aio *self, long n, __s64 *res)
{
	bool seen[NR] = { false };
	__u64 i;
	long j;

	for (j = 0; j < n; j++) {
		i = self->ev[j].data;
		ASSERT_GT(NR, i);
		ASSERT_FALSE(seen[i]) TH_LOG("two events for iocb %llu",
					     (unsigned long long)i);
		seen[i] = true;
		ASSERT_EQ((uintptr_t)&self->cbs[i], self->ev[j].obj);
		res[i] = self->ev[j].res;
	}
}

/* Check @n events as events_by_index() does, and that all have result @want. */
static void check_events(struct __test_metadata *_metadata,
			 struct _test_data_aio *self, long n, __s64 want)
{
	__s64 res[NR];
	long i;

	events_by_index(_metadata, self, n, res);
	for (i = 0; i < n; i++)
		ASSERT_EQ(want, self->ev[i].res)
			TH_LOG("iocb %llu", (unsigned long long)self->ev[i].data);
}

/* What is written to pipe @i: distinct lengths catch mixed-up results. */
static size_t pipe_len(int i)
{
	return 512 + i * 97;
}

TEST_F_TIMEOUT(aio, in_flight_pipes, 60)
{
	char *data = malloc(BLK);
	__s64 res[NR];
	bool blocked;
	int64_t ns;
	long ret;
	int i;

	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, open_pipes(self, NR));
	for (i = 0; i < NR; i++)
		prep_rw(&self->cbs[i], IOCB_CMD_PREAD, self->pipes[i][0],
			self->buf + i * BLK, BLK, 0, i);
	/* No pipe has data: each read waits on a worker. */
	ret = submit_watched(self->ctx, NR, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(NR, ret, blocked, ns);
	TH_LOG("io_submit() of %d reads of empty pipes took %lld ms", NR,
	       (long long)(ns / NSEC_PER_MSEC));
	ASSERT_EQ(0, peek_events(self->ctx, self->ev, NR));

	for (i = 0; i < NR; i++) {
		fill(data, pipe_len(i), i);
		ASSERT_EQ(pipe_len(i), write(self->pipes[i][1], data,
					     pipe_len(i)));
	}
	/* No timeout: a lost wakeup hangs here and the harness ends it. */
	ASSERT_EQ(NR, sys_io_getevents(self->ctx, NR, NR, self->ev, NULL))
		TH_LOG("io_getevents: %s", strerror(errno));
	events_by_index(_metadata, self, NR, res);
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(pipe_len(i), res[i]) TH_LOG("pipe %d", i);
		ASSERT_TRUE(check(self->buf + i * BLK, pipe_len(i), i))
			TH_LOG("pipe %d: wrong data", i);
	}
	free(data);
}

/*
 * Every read of the disk takes 100 ms: the requests must be in flight
 * together after io_submit() returns, not done one after the other in it.
 */
TEST_F_TIMEOUT(aio, in_flight_delayed_device, 120)
{
	unsigned long long sectors;
	unsigned long delay;
	char *wbuf = self->buf;
	const char *why;
	bool blocked;
	int64_t ns;
	long ret, got;
	int i, fd;

	why = nullb_unsuitable(NULLB_MIN_NSEC, (unsigned long long)NR * NULLB_STRIDE,
			       &delay, &sectors);
	if (why)
		SKIP(return, "%s", why);
	TH_LOG(NULLB ": %llu MiB, every request takes %lu ms", sectors >> 11,
	       delay / (unsigned long)NSEC_PER_MSEC);

	fd = open(NULLB, O_WRONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("O_DIRECT open: %s", strerror(errno));
	for (i = 0; i < NR; i++) {
		fill(wbuf, BLK, 1000 + i);
		ASSERT_EQ(BLK, pwrite(fd, wbuf, BLK, (off_t)i * NULLB_STRIDE))
			TH_LOG("block %d: %s", i, strerror(errno));
	}
	close(fd);
	memset(self->buf, 0, NR * BLK);

	self->devfd = open(NULLB, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->devfd);
	/* Whatever of the disk is cached would make the reads instant. */
	ASSERT_EQ(0, posix_fadvise(self->devfd, 0, 0, POSIX_FADV_DONTNEED));
	for (i = 0; i < NR; i++)
		prep_rw(&self->cbs[i], IOCB_CMD_PREAD, self->devfd,
			self->buf + i * BLK, BLK, (off_t)i * NULLB_STRIDE, i);
	ret = submit_watched(self->ctx, NR, self->ptrs, &blocked, &ns);
	got = peek_events(self->ctx, self->ev, NR);
	TH_LOG("io_submit() took %lld ms; %ld of %d reads done when it returned",
	       (long long)(ns / NSEC_PER_MSEC), got, NR);
	ASSERT_EQ(NR, ret) TH_LOG("io_submit: %s", strerror(errno));
	ASSERT_LE(0, got);
	ASSERT_LT(got, NR) TH_LOG("the reads ran inside io_submit()");

	got = wait_events(self->ctx, self->ev, got, NR, WAIT_TIMEOUT_S);
	ASSERT_EQ(NR, got) TH_LOG("only %ld reads completed in %d s", got,
				  WAIT_TIMEOUT_S);
	check_events(_metadata, self, NR, BLK);
	for (i = 0; i < NR; i++)
		ASSERT_TRUE(check(self->buf + i * BLK, BLK, 1000 + i))
			TH_LOG("block %d: wrong data", i);
}

/*
 * io_cancel() of a read waiting on an empty pipe: the cancel is accepted,
 * the event says the read was interrupted, and the read took nothing from
 * the pipe.  Then the iocb is no longer known to io_cancel().
 * @settle_ms: how long the read may run before it is cancelled.
 */
static void cancel_pipe_read(struct __test_metadata *_metadata,
			     struct _test_data_aio *self, int settle_ms)
{
	struct io_event res;
	__s64 res0;
	bool blocked;
	int64_t ns;
	long ret;
	char c;

	ASSERT_EQ(0, open_pipes(self, 1));
	prep_rw(&self->cbs[0], IOCB_CMD_PREAD, self->pipes[0][0], self->buf,
		BLK, 0, 0);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	if (settle_ms)
		sleep_ms(settle_ms);
	ASSERT_EQ(0, peek_events(self->ctx, self->ev, 1));

	ret = sys_io_cancel(self->ctx, &self->cbs[0], &res);
	if (ret)
		ASSERT_EQ(EINPROGRESS, errno) TH_LOG("io_cancel: %s",
						     strerror(errno));
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S))
		TH_LOG("no event %d s after io_cancel()", WAIT_TIMEOUT_S);
	events_by_index(_metadata, self, 1, &res0);
	ASSERT_TRUE(self->ev[0].res == -EINTR || self->ev[0].res == -ECANCELED)
		TH_LOG("res %lld", (long long)self->ev[0].res);
	TH_LOG("io_cancel() returned %s; the event has res %s",
	       ret ? "-EINPROGRESS" : "0",
	       self->ev[0].res == -EINTR ? "-EINTR" : "-ECANCELED");

	/* A read cancelled but still running would steal this byte. */
	ASSERT_EQ(1, write(self->pipes[0][1], "x", 1));
	sleep_ms(PENDING_MS);
	ASSERT_EQ(0, fcntl(self->pipes[0][0], F_SETFL, O_NONBLOCK));
	ASSERT_EQ(1, read(self->pipes[0][0], &c, 1));
	ASSERT_EQ('x', c);

	/* Done and reaped: nothing of it is left to cancel. */
	ASSERT_EQ(-1, sys_io_cancel(self->ctx, &self->cbs[0], &res));
	ASSERT_EQ(EINVAL, errno);
}

/* Cancelled once the worker is waiting in the read. */
TEST_F_TIMEOUT(aio, cancel_running, 60)
{
	cancel_pipe_read(_metadata, self, PENDING_MS);
}

/* Cancelled right after io_submit(), maybe before a worker has it. */
TEST_F_TIMEOUT(aio, cancel_just_submitted, 60)
{
	cancel_pipe_read(_metadata, self, 0);
}

/*
 * io_destroy() waits for every request of the context: reads waiting on
 * workers must be cancelled, not waited for, and take nothing afterwards.
 */
TEST_F_TIMEOUT(aio, destroy_with_reads_in_flight, 60)
{
	bool blocked;
	int64_t ns;
	long ret;
	char c;
	int i;

	ASSERT_EQ(0, open_pipes(self, 8));
	for (i = 0; i < 8; i++)
		prep_rw(&self->cbs[i], IOCB_CMD_PREAD, self->pipes[i][0],
			self->buf + i * BLK, BLK, 0, i);
	ret = submit_watched(self->ctx, 8, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(8, ret, blocked, ns);
	sleep_ms(PENDING_MS);
	/* The harness's timeout ends a hang here. */
	ASSERT_EQ(0, sys_io_destroy(self->ctx))
		TH_LOG("io_destroy: %s", strerror(errno));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(1, write(self->pipes[i][1], "y", 1));
		ASSERT_EQ(0, fcntl(self->pipes[i][0], F_SETFL, O_NONBLOCK));
		ASSERT_EQ(1, read(self->pipes[i][0], &c, 1)) TH_LOG("pipe %d", i);
	}
}

/* A block device refuses a buffered write with IOCB_NOWAIT: never seen. */
TEST_F_TIMEOUT(aio, buffered_blkdev_write, 60)
{
	const off_t off = 40 << 20;
	long ret;
	int fd;

	fd = open(NULLB, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, NULLB ": %s", strerror(errno));
	fill(self->buf, BLK, 77);
	prep_rw(&self->cbs[0], IOCB_CMD_PWRITE, fd, self->buf, BLK, off, 0);
	ret = sys_io_submit(self->ctx, 1, self->ptrs);
	ASSERT_EQ(1, ret) TH_LOG("io_submit: %s", strerror(errno));
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	ASSERT_EQ(BLK, self->ev[0].res) TH_LOG("res %lld",
					       (long long)self->ev[0].res);
	memset(self->buf, 0, BLK);
	ASSERT_EQ(BLK, pread(fd, self->buf, BLK, off));
	ASSERT_TRUE(check(self->buf, BLK, 77));
	close(fd);
}

/*
 * At the worker bound, with the only worker waiting on a pipe, a buffered
 * write runs in io_submit() rather than wait behind it.
 */
TEST_F_TIMEOUT(aio, no_wait_behind_busy_workers, 60)
{
	struct rlimit one = { 1, 1 };
	bool blocked;
	int64_t ns;
	pid_t pid;
	int status;

	ASSERT_EQ(0, open_pipes(self, 1));
	self->fd = open(self->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, self->fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		aio_context_t ctx = 0;
		long ret;

		/* A new process: its first use sizes the pool to one worker. */
		if (setrlimit(RLIMIT_NPROC, &one) || sys_io_setup(4, &ctx))
			_exit(10);
		prep_rw(&self->cbs[0], IOCB_CMD_PREAD, self->pipes[0][0],
			self->buf, BLK, 0, 0);
		ret = submit_watched(ctx, 1, self->ptrs, &blocked, &ns);
		if (ret != 1 || blocked)
			_exit(11);
		sleep_ms(PENDING_MS);
		prep_rw(&self->cbs[1], IOCB_CMD_PWRITE, self->fd,
			self->buf + BLK, BLK, 0, 1);
		if (sys_io_submit(ctx, 1, &self->ptrs[1]) != 1)
			_exit(12);
		/* Done in io_submit(): already there. */
		if (peek_events(ctx, self->ev, 1) != 1 || self->ev[0].data != 1 ||
		    self->ev[0].res != BLK)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("child failed at step %d",
						 WEXITSTATUS(status));
	close(self->fd);
}

TEST_F_TIMEOUT(aio, eventfd_completion, 60)
{
	struct pollfd pfd;
	uint64_t count;
	bool blocked;
	int64_t ns;
	long ret;

	self->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ASSERT_LE(0, self->efd);
	ASSERT_EQ(0, open_pipes(self, 1));
	prep_rw(&self->cbs[0], IOCB_CMD_PREAD, self->pipes[0][0], self->buf,
		BLK, 0, 0);
	self->cbs[0].aio_flags = IOCB_FLAG_RESFD;
	self->cbs[0].aio_resfd = self->efd;
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);

	ASSERT_EQ(-1, read(self->efd, &count, sizeof(count)));
	ASSERT_EQ(EAGAIN, errno);
	/* Still nothing once the worker waits in the read. */
	sleep_ms(PENDING_MS);
	ASSERT_EQ(-1, read(self->efd, &count, sizeof(count)));
	ASSERT_EQ(EAGAIN, errno);

	fill(self->buf + BLK, 100, 7);
	ASSERT_EQ(100, write(self->pipes[0][1], self->buf + BLK, 100));
	pfd.fd = self->efd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_TIMEOUT_S * 1000))
		TH_LOG("eventfd not signalled within %d s", WAIT_TIMEOUT_S);
	ASSERT_EQ(sizeof(count), read(self->efd, &count, sizeof(count)));
	ASSERT_EQ(1, count);
	/* The event is posted before the eventfd is signalled. */
	ASSERT_EQ(1, peek_events(self->ctx, self->ev, 1));
	check_events(_metadata, self, 1, 100);
	ASSERT_TRUE(check(self->buf, 100, 7));
}

/*
 * RWF_NOWAIT asks for no waiting at all: a read of an empty pipe fails
 * with -EAGAIN rather than waiting on a worker for data.
 */
TEST_F_TIMEOUT(aio, rwf_nowait, 60)
{
	__s64 res0;
	bool blocked;
	int64_t ns;
	long ret;
	int n;

	ASSERT_EQ(0, open_pipes(self, 1));
	prep_rw(&self->cbs[0], IOCB_CMD_PREAD, self->pipes[0][0], self->buf,
		BLK, 0, 0);
	self->cbs[0].aio_rw_flags = RWF_NOWAIT;
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, 5));
	check_events(_metadata, self, 1, -EAGAIN);

	/*
	 * A file whose pages are not cached: -EAGAIN, or the data if the
	 * readahead the attempt started was quick enough.  One page, so
	 * that the answer is all or nothing.
	 */
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
			0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, write_synced(self->fd, 0, 16 * BLK, 21));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	n = resident(self->fd, 0, 16 * BLK);
	if (n)
		TH_LOG("%d of 16 pages still cached after POSIX_FADV_DONTNEED", n);
	prep_rw(&self->cbs[0], IOCB_CMD_PREAD, self->fd, self->buf, BLK,
		8 * BLK, 0);
	self->cbs[0].aio_rw_flags = RWF_NOWAIT;
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, 5));
	events_by_index(_metadata, self, 1, &res0);
	ASSERT_TRUE(self->ev[0].res == -EAGAIN || self->ev[0].res == BLK)
		TH_LOG("res %lld", (long long)self->ev[0].res);
	if (self->ev[0].res == BLK) {
		char *want = malloc(16 * BLK);

		ASSERT_NE(NULL, want);
		fill(want, 16 * BLK, 21);
		ASSERT_EQ(0, memcmp(self->buf, want + 8 * BLK, BLK));
		free(want);
		TH_LOG("RWF_NOWAIT read of an uncached file: the data");
	} else {
		TH_LOG("RWF_NOWAIT read of an uncached file: -EAGAIN");
	}
}

/* Submit @n of self->cbs and wait for them all; their number or less. */
static long submit_and_wait(struct _test_data_aio *self, int n)
{
	long ret = sys_io_submit(self->ctx, n, self->ptrs);

	if (ret != n)
		return ret;
	return wait_events(self->ctx, self->ev, 0, n, WAIT_TIMEOUT_S);
}

TEST_F_TIMEOUT(aio, buffered_file_rw, 90)
{
	struct iovec iov[NR][2];
	char *want = malloc(NR * BLK);
	int i;

	ASSERT_NE(NULL, want);
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
			0644);
	ASSERT_LE(0, self->fd);

	/* Block i holds pattern i: a request mixed up shows in the data. */
	for (i = 0; i < NR; i++) {
		fill(self->buf + i * BLK, BLK, 100 + i);
		prep_rw(&self->cbs[i], IOCB_CMD_PWRITE, self->fd,
			self->buf + i * BLK, BLK, (off_t)i * BLK, i);
	}
	memcpy(want, self->buf, NR * BLK);
	ASSERT_EQ(NR, submit_and_wait(self, NR));
	check_events(_metadata, self, NR, BLK);

	/* Uncached, so that the reads wait for the disk. */
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	memset(self->buf, 0, NR * BLK);
	for (i = 0; i < NR; i++)
		prep_rw(&self->cbs[i], IOCB_CMD_PREAD, self->fd,
			self->buf + i * BLK, BLK, (off_t)i * BLK, i);
	ASSERT_EQ(NR, submit_and_wait(self, NR));
	check_events(_metadata, self, NR, BLK);
	ASSERT_EQ(0, memcmp(want, self->buf, NR * BLK));

	/* Two uneven pieces each, to see the iovec carried to a worker. */
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	memset(self->buf, 0, NR * BLK);
	for (i = 0; i < NR; i++) {
		iov[i][0].iov_base = self->buf + i * BLK;
		iov[i][0].iov_len = 1000;
		iov[i][1].iov_base = self->buf + i * BLK + 1000;
		iov[i][1].iov_len = BLK - 1000;
		prep_rw(&self->cbs[i], IOCB_CMD_PREADV, self->fd, iov[i], 2,
			(off_t)i * BLK, i);
	}
	ASSERT_EQ(NR, submit_and_wait(self, NR));
	check_events(_metadata, self, NR, BLK);
	ASSERT_EQ(0, memcmp(want, self->buf, NR * BLK));

	/* Dirty every block again, for the syncs to have work. */
	for (i = 0; i < NR; i++) {
		fill(self->buf + i * BLK, BLK, 200 + i);
		iov[i][0].iov_base = self->buf + i * BLK;
		iov[i][0].iov_len = 3000;
		iov[i][1].iov_base = self->buf + i * BLK + 3000;
		iov[i][1].iov_len = BLK - 3000;
		prep_rw(&self->cbs[i], IOCB_CMD_PWRITEV, self->fd, iov[i], 2,
			(off_t)i * BLK, i);
	}
	memcpy(want, self->buf, NR * BLK);
	ASSERT_EQ(NR, submit_and_wait(self, NR));
	check_events(_metadata, self, NR, BLK);

	prep_rw(&self->cbs[0], IOCB_CMD_FSYNC, self->fd, NULL, 0, 0, 0);
	prep_rw(&self->cbs[1], IOCB_CMD_FDSYNC, self->fd, NULL, 0, 0, 1);
	ASSERT_EQ(2, submit_and_wait(self, 2));
	check_events(_metadata, self, 2, 0);

	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	memset(self->buf, 0, NR * BLK);
	ASSERT_EQ(NR * BLK, pread(self->fd, self->buf, NR * BLK, 0));
	ASSERT_EQ(0, memcmp(want, self->buf, NR * BLK));
	free(want);
}

/*
 * More than a pipe holds: the write fills the pipe and must go on, on a
 * worker, as the pipe is drained, and report its whole length.
 */
TEST_F_TIMEOUT(aio, write_to_full_pipe, 60)
{
	const size_t len = 64 * 1024 + BLK;
	char *data = malloc(len), *got = malloc(len);
	bool blocked;
	int64_t ns;
	long ret;

	ASSERT_NE(NULL, data);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, open_pipes(self, 1));
	ASSERT_EQ(64 * 1024, fcntl(self->pipes[0][1], F_SETPIPE_SZ, 64 * 1024));
	fill(data, len, 33);
	prep_rw(&self->cbs[0], IOCB_CMD_PWRITE, self->pipes[0][1], data, len,
		0, 0);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	/* The last 4 KiB cannot be in the pipe until it is read. */
	sleep_ms(PENDING_MS);
	ASSERT_EQ(0, peek_events(self->ctx, self->ev, 1));

	ASSERT_EQ(0, read_timed(self->pipes[0][0], got, len, WAIT_TIMEOUT_S))
		TH_LOG("the pipe did not give the %zu bytes written", len);
	ASSERT_EQ(0, memcmp(data, got, len));
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	check_events(_metadata, self, 1, (__s64)len);
	free(data);
	free(got);
}

/*
 * A worker's completion may drop the last reference to the request's
 * file.  The file is released before the worker waits for its next
 * request: here the reader of a pipe whose write end the program closed
 * sees end-of-file while the worker waits on another pipe.
 */
TEST_F_TIMEOUT(aio, release_before_next_request, 60)
{
	const size_t len = 64 * 1024 + BLK;
	char *data = malloc(len), *got = malloc(len);
	struct pollfd pfd;
	bool blocked;
	int64_t ns;
	long ret;

	ASSERT_NE(NULL, data);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, open_pipes(self, 2));
	ASSERT_EQ(64 * 1024, fcntl(self->pipes[0][1], F_SETPIPE_SZ, 64 * 1024));
	fill(data, len, 34);
	prep_rw(&self->cbs[0], IOCB_CMD_PWRITE, self->pipes[0][1], data, len,
		0, 0);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	/* Only the request holds the write end now. */
	ASSERT_EQ(0, close(self->pipes[0][1]));
	ASSERT_EQ(0, read_timed(self->pipes[0][0], got, len, WAIT_TIMEOUT_S));
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	check_events(_metadata, self, 1, (__s64)len);

	/* The worker, idle again, takes a read that waits. */
	sleep_ms(PENDING_MS);
	prep_rw(&self->cbs[1], IOCB_CMD_PREAD, self->pipes[1][0], got, 1, 0, 0);
	ret = submit_watched(self->ctx, 1, self->ptrs + 1, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	pfd = (struct pollfd) { .fd = self->pipes[0][0], .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_TIMEOUT_S * 1000))
		TH_LOG("the write end was not released");
	ASSERT_EQ(0, read(self->pipes[0][0], got, 1));

	ASSERT_EQ(1, write(self->pipes[1][1], "x", 1));
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	ASSERT_EQ(1, self->ev[0].res);
	free(data);
	free(got);
}

/* --- Reads that wait for their pages hold no worker ----------------------- */

/* A read of this many bytes takes several requests of QUEUE_KB. */
#define LONG_LEN	(64 * 1024)
#define QUEUE_KB	"16"
#define QUEUE		"/sys/block/nullb0/queue/"
#define WORK_PARK	"async_syscall_work_park:"
#define WORK_PARK_EVENT	TRACEFS "events/async_syscall/async_syscall_work_park/enable"
/* The pattern of block i of the disk, and of its last block. */
#define SEED(i)		(2000 + (i))
#define END_SEED	3000

FIXTURE(aio_pagewait) {
	aio_context_t ctx;
	unsigned long long sectors;
	int devfd;
	char *buf;	/* NR * LONG_LEN bytes */
	struct iocb cbs[NR];
	struct iocb *ptrs[NR];
	struct io_event ev[NR];
};

FIXTURE_SETUP(aio_pagewait)
{
	unsigned long delay;
	const char *why;
	int fd, i;

	why = nullb_unsuitable(NULLB_MIN_NSEC, (NR + 2ULL) * NULLB_STRIDE,
			       &delay, &self->sectors);
	if (why)
		SKIP(return, "%s", why);
	if (access(WORK_PARK_EVENT, W_OK))
		SKIP(return, "no async_syscall_work_park event in tracefs");
	for (i = 0; i < NR; i++)
		self->ptrs[i] = &self->cbs[i];
	ASSERT_EQ(0, install_watchdog());
	self->buf = mmap(NULL, NR * LONG_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	self->ctx = 0;
	ASSERT_EQ(0, sys_io_setup(CTX_EVENTS, &self->ctx));

	fd = open(NULLB, O_WRONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("O_DIRECT open: %s", strerror(errno));
	for (i = 0; i < NR; i++) {
		fill(self->buf, LONG_LEN, SEED(i));
		ASSERT_EQ(LONG_LEN, pwrite(fd, self->buf, LONG_LEN,
					   (off_t)i * NULLB_STRIDE));
	}
	fill(self->buf, BLK, END_SEED);
	ASSERT_EQ(BLK, pwrite(fd, self->buf, BLK, self->sectors * 512 - BLK));
	close(fd);
	memset(self->buf, 0, NR * LONG_LEN);

	self->devfd = open(NULLB, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->devfd);
	ASSERT_EQ(0, posix_fadvise(self->devfd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	ASSERT_EQ(0, write_knob(WORK_PARK_EVENT, "1"));
}

FIXTURE_TEARDOWN_PARENT(aio_pagewait)
{
	write_knob(WORK_PARK_EVENT, "0");
}

/* Read @len bytes of block @i, event data @i. */
static void prep_block_read(struct _test_data_aio_pagewait *self, int i,
			    size_t len)
{
	prep_rw(&self->cbs[i], IOCB_CMD_PREAD, self->devfd,
		self->buf + (size_t)i * LONG_LEN, len,
		(off_t)i * NULLB_STRIDE, i);
}

/* Every one of @n events is the read of its block, @len bytes. */
static void check_blocks(struct __test_metadata *_metadata,
			 struct _test_data_aio_pagewait *self, int n,
			 size_t len)
{
	int k, i;

	for (k = 0; k < n; k++) {
		i = self->ev[k].data;
		ASSERT_TRUE(i >= 0 && i < n);
		ASSERT_EQ((__s64)len, self->ev[k].res) TH_LOG("read %d", i);
		ASSERT_TRUE(check(self->buf + (size_t)i * LONG_LEN, len,
				  SEED(i)))
			TH_LOG("block %d: wrong data", i);
	}
}

/*
 * NR reads that miss: io_submit() returns, each read parks, no worker
 * sleeps in a page wait, and each returns its block.
 */
TEST_F_TIMEOUT(aio_pagewait, cold_reads_hold_no_worker, 90)
{
	int i, d, most_d = 0;
	bool blocked;
	long ret, got = 0;
	int64_t ns, end;

	for (i = 0; i < NR; i++)
		prep_block_read(self, i, BLK);
	ret = submit_watched(self->ctx, NR, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(NR, ret, blocked, ns);
	end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	while (got < NR && now_ns() < end) {
		d = workers_in_d();
		most_d = d > most_d ? d : most_d;
		ret = peek_events(self->ctx, self->ev + got, NR - got);
		if (ret > 0)
			got += ret;
		else
			sleep_ms(1);
	}
	got = wait_events(self->ctx, self->ev, got, NR, WAIT_TIMEOUT_S);
	ASSERT_EQ(NR, got);
	check_blocks(_metadata, self, NR, BLK);
	TH_LOG("%d parks traced; at most %d workers in state D",
	       trace_count(WORK_PARK), most_d);
	ASSERT_EQ(0, most_d) TH_LOG("a worker waited for a page itself");
	ASSERT_LE(1, trace_count(WORK_PARK));
}

/* Whether the trace shows a park by task @pid, the submitter. */
static bool parked_by(pid_t pid)
{
	static char buf[1 << 16];
	int fd = open(TRACEFS "trace", O_RDONLY | O_CLOEXEC);
	char who[24], *line, *save;
	ssize_t n, got = 0;
	bool found = false;

	if (fd < 0)
		return false;
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	snprintf(who, sizeof(who), "-%d ", pid);
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = strstr(line, WORK_PARK) && strstr(line, who);
	return found;
}

/*
 * A read that misses arms its page's wait in io_submit() itself, as
 * io_uring's reads do: the park is the submitter's, not a worker's.
 */
TEST_F_TIMEOUT(aio_pagewait, parks_in_io_submit, 60)
{
	bool blocked;
	int64_t ns;
	long ret;

	prep_block_read(self, 0, BLK);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	ASSERT_EQ(0, wait_traced(WORK_PARK, 1));
	ASSERT_TRUE(parked_by(getpid())) TH_LOG("the read parked on a worker");
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	check_blocks(_metadata, self, 1, BLK);
}

/*
 * With requests of 16 KiB and no readahead beyond them, a 64 KiB read
 * parks, reads what came in, and parks again for the rest: the event
 * reports the whole read.
 */
TEST_F_TIMEOUT(aio_pagewait, resumed_read_parks_again, 60)
{
	char ra[32], sectors[32];
	bool blocked;
	int64_t ns;
	long ret;

	ASSERT_LT(0, read_small(QUEUE "read_ahead_kb", ra, sizeof(ra)));
	ASSERT_LT(0, read_small(QUEUE "max_sectors_kb", sectors,
				sizeof(sectors)));
	/* In this order: a new request size resets the readahead size. */
	ASSERT_EQ(0, write_knob(QUEUE "max_sectors_kb", QUEUE_KB));
	ASSERT_EQ(0, write_knob(QUEUE "read_ahead_kb", QUEUE_KB));
	/* A file takes the readahead size of its disk when it is opened. */
	close(self->devfd);
	self->devfd = open(NULLB, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->devfd);

	prep_block_read(self, 0, LONG_LEN);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ret = ret == 1 ? wait_events(self->ctx, self->ev, 0, 1,
				     WAIT_TIMEOUT_S) : ret;
	write_knob(QUEUE "max_sectors_kb", sectors);
	write_knob(QUEUE "read_ahead_kb", ra);
	ASSERT_FALSE(blocked);
	ASSERT_EQ(1, ret);
	check_blocks(_metadata, self, 1, LONG_LEN);
	TH_LOG("%d parks for one %d KiB read", trace_count(WORK_PARK),
	       LONG_LEN / 1024);
	ASSERT_LE(2, trace_count(WORK_PARK));
}

/* A read past the end of the disk returns what is there, as pread(). */
TEST_F_TIMEOUT(aio_pagewait, short_read_at_end, 60)
{
	off_t off = self->sectors * 512 - BLK;
	bool blocked;
	int64_t ns;
	long ret;

	prep_rw(&self->cbs[0], IOCB_CMD_PREAD, self->devfd, self->buf,
		3 * BLK, off, 0);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	ASSERT_EQ(BLK, self->ev[0].res);
	ASSERT_TRUE(check(self->buf, BLK, END_SEED));
	TH_LOG("%d parks", trace_count(WORK_PARK));
}

/*
 * io_cancel() of a parked read is accepted: its wait is taken back, and
 * its event says -ECANCELED.
 */
TEST_F_TIMEOUT(aio_pagewait, cancel_while_parked, 60)
{
	struct io_event unused;
	bool blocked;
	int64_t ns;
	long ret;

	prep_block_read(self, 0, BLK);
	ret = submit_watched(self->ctx, 1, self->ptrs, &blocked, &ns);
	ASSERT_SUBMITTED(1, ret, blocked, ns);
	ASSERT_EQ(0, wait_traced(WORK_PARK, 1));
	ASSERT_EQ(-1, sys_io_cancel(self->ctx, self->ptrs[0], &unused));
	ASSERT_EQ(EINPROGRESS, errno);
	ASSERT_EQ(1, wait_events(self->ctx, self->ev, 0, 1, WAIT_TIMEOUT_S));
	TH_LOG("the read: %lld", (long long)self->ev[0].res);
	if (self->ev[0].res == BLK) {
		/* The page came in before the cancel. */
		check_blocks(_metadata, self, 1, BLK);
		return;
	}
	ASSERT_EQ(-ECANCELED, self->ev[0].res);
}

/*
 * A child with reads parked exits, or execs: the exit takes back their
 * waits and ends them, and leaves no worker behind.
 */
static void parked_then(struct __test_metadata *_metadata,
			struct _test_data_aio_pagewait *self, bool exec)
{
	int i, status;
	pid_t pid;

	for (i = 0; i < NR; i++)
		prep_block_read(self, i, BLK);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		aio_context_t ctx = 0;

		/* A child does not inherit AIO contexts. */
		CHILD_ASSERT(sys_io_setup(CTX_EVENTS, &ctx) == 0);
		CHILD_ASSERT(sys_io_submit(ctx, NR, self->ptrs) == NR);
		CHILD_ASSERT(wait_traced(WORK_PARK, 1) == 0);
		if (exec)
			execl("/bin/true", "true", (char *)NULL);
		_exit(exec ? 2 : 0);
	}
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status 0x%x", status);
	ASSERT_EQ(0, stray_workers(pid));
}

TEST_F_TIMEOUT(aio_pagewait, exit_while_parked, 60)
{
	parked_then(_metadata, self, false);
}

TEST_F_TIMEOUT(aio_pagewait, exec_while_parked, 60)
{
	parked_then(_metadata, self, true);
}

/* --- The process ends with requests in flight ---------------------------- */

FIXTURE(aio_exit) {
	char dir[PATH_MAX];
};

FIXTURE_VARIANT(aio_exit) {
	/* The requests are submitted by a thread other than the main one, */
	bool thread;
	/* which has exited when the process ends. */
	bool thread_exited;
};

FIXTURE_VARIANT_ADD(aio_exit, single) {
};

FIXTURE_VARIANT_ADD(aio_exit, thread) {
	.thread = true,
};

FIXTURE_VARIANT_ADD(aio_exit, thread_exited) {
	.thread = true,
	.thread_exited = true,
};

FIXTURE_SETUP(aio_exit)
{
	snprintf(self->dir, sizeof(self->dir), "%s/aio_exit.XXXXXX",
		 scratch_dir());
	ASSERT_NE(NULL, mkdtemp(self->dir))
		TH_LOG("%s: %s", self->dir, strerror(errno));
}

/* In the parent, as for aio. */
FIXTURE_TEARDOWN_PARENT(aio_exit)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/f", self->dir);
	unlink(path);
	rmdir(self->dir);
}

/* What the dying child keeps in flight: NR reads and an fsync. */
struct dying {
	aio_context_t ctx;
	int pipes[NR][2];
	int fd;
	struct iocb cbs[NR + 1];
	struct iocb *ptrs[NR + 1];
	char buf[NR][16];
	int submitted[2];	/* the submitting thread to the main one */
	bool linger;		/* the submitting thread stays to the end */
};

static void submit_dying(struct dying *d)
{
	CHILD_ASSERT(sys_io_submit(d->ctx, NR + 1, d->ptrs) == NR + 1);
}

static void *dying_thread(void *arg)
{
	struct dying *d = arg;

	submit_dying(d);
	CHILD_ASSERT(write(d->submitted[1], "s", 1) == 1);
	while (d->linger)
		pause();
	return NULL;
}

/*
 * In the child: set up and submit, by a second thread if the variant says
 * so, then tell the parent on @ready.  Pipe write ends stay open, so the
 * reads never end on their own.
 */
static void child_submit(const struct _fixture_variant_aio_exit *variant,
			 const char *dir, int ready)
{
	static struct dying d;
	char path[PATH_MAX + 16];
	pthread_t thread;
	char c, *dirty;
	int i;

	CHILD_ASSERT(sys_io_setup(CTX_EVENTS, &d.ctx) == 0);
	for (i = 0; i < NR; i++) {
		CHILD_ASSERT(pipe(d.pipes[i]) == 0);
		prep_rw(&d.cbs[i], IOCB_CMD_PREAD, d.pipes[i][0], d.buf[i],
			sizeof(d.buf[i]), 0, i);
		d.ptrs[i] = &d.cbs[i];
	}
	/* Dirty data, so that the fsync has writeback to wait for. */
	snprintf(path, sizeof(path), "%s/f", dir);
	d.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHILD_ASSERT(d.fd >= 0);
	dirty = malloc(1 << 20);
	CHILD_ASSERT(dirty);
	fill(dirty, 1 << 20, 5);
	CHILD_ASSERT(write(d.fd, dirty, 1 << 20) == 1 << 20);
	prep_rw(&d.cbs[NR], IOCB_CMD_FSYNC, d.fd, NULL, 0, 0, NR);
	d.ptrs[NR] = &d.cbs[NR];

	if (!variant->thread) {
		submit_dying(&d);
	} else {
		CHILD_ASSERT(pipe(d.submitted) == 0);
		d.linger = !variant->thread_exited;
		CHILD_ASSERT(!pthread_create(&thread, NULL, dying_thread, &d));
		CHILD_ASSERT(read(d.submitted[0], &c, 1) == 1);
		if (variant->thread_exited)
			CHILD_ASSERT(!pthread_join(thread, NULL));
	}
	CHILD_ASSERT(write(ready, "r", 1) == 1);
	/* Let the workers get into the reads before the process ends. */
	sleep_ms(PENDING_MS);
}

/*
 * Fork a child that submits and then, with @do_exit, exits, else waits to
 * be killed.  Returns its pid once it has submitted.
 */
static pid_t start_dying(struct __test_metadata *_metadata,
			 const struct _fixture_variant_aio_exit *variant,
			 const char *dir, bool do_exit)
{
	struct pollfd pfd;
	int p[2], status = 0;
	bool ready;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(p[0]);
		child_submit(variant, dir, p[1]);
		if (do_exit)
			_exit(0);
		for (;;)
			pause();
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	ready = poll(&pfd, 1, READY_TIMEOUT_S * 1000) == 1 &&
		read(p[0], &c, 1) == 1;
	close(p[0]);
	if (!ready)
		wait_child(pid, 0, &status);
	ASSERT_TRUE(ready)
		TH_LOG("the child did not submit within %d s: io_submit() blocked? (status %#x)",
		       READY_TIMEOUT_S, status);
	return pid;
}

TEST_F_TIMEOUT(aio_exit, exit_with_aio_in_flight, 90)
{
	int status = 0;
	pid_t pid;

	pid = start_dying(_metadata, variant, self->dir, true);
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status))
		TH_LOG("the child did not end within %d s of exiting",
		       CHILD_TIMEOUT_S);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_F_TIMEOUT(aio_exit, sigkill_with_aio_in_flight, 90)
{
	int status = 0;
	pid_t pid;

	pid = start_dying(_metadata, variant, self->dir, false);
	sleep_ms(PENDING_MS);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status))
		TH_LOG("the child did not die within %d s of SIGKILL",
		       CHILD_TIMEOUT_S);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
}

/* --- fs.aio-sync-buffered: submission runs the I/O, as it used to -------- */

/*
 * io_submit() runs buffered I/O itself, as before this feature, when the
 * admin says so: with fs.aio-sync-buffered, or for a process that
 * kernel.async_syscall_disabled does not let call async_submit().
 */
FIXTURE(aio_sync) {
	char old[32];
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	bool set;
};

FIXTURE_VARIANT(aio_sync) {
	const char *knob;
	bool drop_sys_admin;
};

FIXTURE_VARIANT_ADD(aio_sync, sync_buffered) {
	.knob = SYNC_SYSCTL,
};

FIXTURE_VARIANT_ADD(aio_sync, async_syscall_disabled_1) {
	.knob = "/proc/sys/kernel/async_syscall_disabled",
	.drop_sys_admin = true,
};

FIXTURE_SETUP(aio_sync)
{
	if (read_small(variant->knob, self->old, sizeof(self->old)) <= 0)
		SKIP(return, "%s missing", variant->knob);
	snprintf(self->dir, sizeof(self->dir), "%s/aio_sync.XXXXXX",
		 scratch_dir());
	ASSERT_NE(NULL, mkdtemp(self->dir))
		TH_LOG("%s: %s", self->dir, strerror(errno));
	snprintf(self->path, sizeof(self->path), "%s/f", self->dir);
	/* Last: the teardown only runs once the setup has completed. */
	ASSERT_EQ(0, write_knob(variant->knob, "1"));
	self->set = true;
	if (variant->drop_sys_admin) {
		ASSERT_EQ(0, drop_sys_admin());
		ASSERT_EQ(-1, async_abi_version());
		ASSERT_EQ(EPERM, errno);
	}
}

/* In the parent, so that the value is restored however the test ended. */
FIXTURE_TEARDOWN_PARENT(aio_sync)
{
	if (self->set)
		write_knob(variant->knob, self->old);
	unlink(self->path);
	rmdir(self->dir);
}

TEST_F_TIMEOUT(aio_sync, runs_in_io_submit, 60)
{
	struct timespec zero = { 0, 0 };
	struct iocb cb, *ptr = &cb;
	struct io_event ev;
	aio_context_t ctx = 0;
	char *buf = malloc(16 * BLK), *want = malloc(16 * BLK);
	int fd, n;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, want);
	fill(want, 16 * BLK, 44);
	ASSERT_EQ(0, sys_io_setup(CTX_EVENTS, &ctx));
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_synced(fd, 0, 16 * BLK, 44));

	/* Cached: done by the time io_submit() returns. */
	ASSERT_EQ(16 * BLK, pread(fd, buf, 16 * BLK, 0));
	memset(buf, 0, BLK);
	prep_rw(&cb, IOCB_CMD_PREAD, fd, buf, BLK, 4 * BLK, 1);
	ASSERT_EQ(1, sys_io_submit(ctx, 1, &ptr));
	ASSERT_EQ(1, sys_io_getevents(ctx, 0, 1, &ev, &zero))
		TH_LOG("a cached read was not done when io_submit() returned");
	ASSERT_EQ(1, ev.data);
	ASSERT_EQ((uintptr_t)&cb, ev.obj);
	ASSERT_EQ(BLK, ev.res);
	ASSERT_EQ(0, memcmp(buf, want + 4 * BLK, BLK));

	/* Uncached: waits for the disk inside io_submit(), not on a worker. */
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	n = resident(fd, 0, 16 * BLK);
	if (n)
		TH_LOG("%d of 16 pages still cached after POSIX_FADV_DONTNEED", n);
	memset(buf, 0, BLK);
	prep_rw(&cb, IOCB_CMD_PREAD, fd, buf, BLK, 12 * BLK, 2);
	ASSERT_EQ(1, sys_io_submit(ctx, 1, &ptr));
	ASSERT_EQ(1, sys_io_getevents(ctx, 0, 1, &ev, &zero))
		TH_LOG("an uncached read was not done when io_submit() returned");
	ASSERT_EQ(2, ev.data);
	ASSERT_EQ(BLK, ev.res);
	ASSERT_EQ(0, memcmp(buf, want + 12 * BLK, BLK));

	close(fd);
	sys_io_destroy(ctx);
	free(buf);
	free(want);
}

TEST_HARNESS_MAIN
