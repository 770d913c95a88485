// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() selftests: whitelisted system calls run on worker threads of
 * the calling process, each entry completing through a futex word.
 *
 * Files are created on the scratch disk named by $SCRATCH (/tmp if unset).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/openat2.h>
#include <async_syscall/libasync.h>

#include "../kselftest_harness.h"

/* Most entries async_wait_any() waits for. */
#define WAIT_ANY_MAX	128

#define ENTRY_SIZE	sizeof(struct async_syscall)
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL
/* What prep() puts in done and result, so that the kernel's writes show. */
#define DONE_POISON	0xa5a5a5a5U
#define RESULT_POISON	((__s64)0x5a5a5a5a5a5a5a5aLL)
/* Give up waiting for a completion after this long. */
#define WAIT_TIMEOUT_S	20
/* Size of the kernel's sigset_t, for ppoll(). */
#define KERNEL_SIGSET_SIZE 8
/* A file whose removal shows that an entry ran. */
#define CANARY		"canary"

static const struct timespec zero_ts;

/* --- Helpers ------------------------------------------------------------ */

/* Fill @e with system call @nr and its arguments, no flags, no references. */
static void prep(struct async_syscall *e, unsigned int nr, __u64 a0, __u64 a1,
		 __u64 a2, __u64 a3, __u64 a4, __u64 a5)
{
	async_prep(e, nr, a0, a1, a2, a3, a4, a5);
	e->done = DONE_POISON;
	e->result = RESULT_POISON;
}

static __s64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Wait until one of the @n entries at @e completes, for at most
 * WAIT_TIMEOUT_S: its index, or -1 with errno (ETIMEDOUT).
 */
static int wait_any(struct async_syscall *e, unsigned int n)
{
	struct async_syscall *es[WAIT_ANY_MAX];
	struct timespec end;
	unsigned int i;
	int ret;

	if (!n || n > WAIT_ANY_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++)
		es[i] = &e[i];
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += WAIT_TIMEOUT_S;
	do {
		ret = async_wait_any(es, n, &end);
	} while (ret == -EINTR);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/*
 * Wait for @e to complete, for at most WAIT_TIMEOUT_S: 0, or -1 with errno
 * (ETIMEDOUT).  Any done word but PENDING ends the wait, so that a bad one
 * fails ASSERT_RESULT() rather than hang.
 */
static int wait_one(struct async_syscall *e)
{
	__s64 end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC, left;
	struct timespec ts;
	long ret;

	while (async_pending(e)) {
		left = end - now_ns();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		ret = async_wait(e, &ts);
		/* Still pending: ret is the wait's error, not a result. */
		if (async_pending(e) && ret != -EINTR && ret != -ETIMEDOUT) {
			errno = -ret;
			return -1;
		}
	}
	return 0;
}

static int wait_all(struct async_syscall *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (wait_one(&e[i]))
			return -1;
	}
	return 0;
}

static const char *result_str(__s64 result)
{
	return result < 0 && result > -4096 ? strerror(-result) : "not an errno";
}

/* Entry @i of array @e completed with result @res. */
#define ASSERT_RESULT(res, e, i) do { \
	const int __i = (i); \
	const struct async_syscall *__e = &(e)[__i]; \
	\
	ASSERT_EQ(ASYNC_SYSCALL_DONE, __e->done) \
		TH_LOG("entry %d: done word %#x", __i, __e->done); \
	ASSERT_EQ((__s64)(res), __e->result) \
		TH_LOG("entry %d: result %lld (%s)", __i, \
		       (long long)__e->result, result_str(__e->result)); \
} while (0)

/* -errno of a direct system call that is expected to fail. */
static __s64 neg_errno(long ret)
{
	return ret < 0 ? -errno : ret;
}

static void fill(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (i * 7 + seed * 13 + (i >> 8)) & 0xff;
}

static int write_file(int dirfd, const char *name, const void *data,
		      size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static ssize_t read_file(int dirfd, const char *name, void *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t total = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (total < size) {
		n = read(fd, (char *)buf + total, size - total);
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	return total;
}

static bool file_exists(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

/* Number of threads of this process named "async-wrk-<tgid>". */
static int count_workers(void)
{
	char want[32], path[300], comm[32];
	struct dirent *d;
	int n = 0, fd;
	ssize_t len;
	DIR *dir;

	snprintf(want, sizeof(want), "async-wrk-%d", getpid());
	/* A task name has at most 15 characters. */
	want[15] = '\0';
	dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (len <= 0)
			continue;
		comm[len] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		if (!strcmp(comm, want))
			n++;
	}
	closedir(dir);
	return n;
}

/* --- Scratch directory fixture --------------------------------------- */

FIXTURE(scratch) {
	char dir[PATH_MAX];
	int dirfd;
	char sockdir[64];
};

FIXTURE_SETUP(scratch)
{
	const char *base = getenv("SCRATCH");

	if (!base || !*base)
		base = "/tmp";
	ASSERT_GT(sizeof(self->dir),
		  snprintf(self->dir, sizeof(self->dir), "%s/async_submit.XXXXXX",
			   base));
	ASSERT_NE(NULL, mkdtemp(self->dir))
		TH_LOG("mkdtemp under %s: %s", base, strerror(errno));
	self->dirfd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->dirfd);
	/* Modes of the files that entries create do not depend on the caller. */
	umask(022);
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	return remove(path);
}

/*
 * In the parent: it also runs when the test fails an assertion, and it keeps
 * root when a test drops it.
 */
FIXTURE_TEARDOWN_PARENT(scratch)
{
	char path[sizeof(self->sockdir) + 4];

	nftw(self->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (self->sockdir[0]) {
		snprintf(path, sizeof(path), "%s/s", self->sockdir);
		unlink(path);
		rmdir(self->sockdir);
	}
}

/* --- Basics -------------------------------------------------------------- */

TEST(abi_version)
{
	struct async_syscall e;

	ASSERT_EQ(2, async_abi_version())
		TH_LOG("async_submit(): %s", strerror(errno));

	prep(&e, __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	ASSERT_EQ(-1, async_submit_raw(&e, 0, 0, ASYNC_SUBMIT_ABI_VERSION));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, async_submit_raw(NULL, 1, 0, ASYNC_SUBMIT_ABI_VERSION));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, async_submit_raw(NULL, 0, ENTRY_SIZE,
				       ASYNC_SUBMIT_ABI_VERSION));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, async_submit_raw(NULL, 0, 0, ASYNC_SUBMIT_ABI_VERSION |
				       ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, async_submit_raw(NULL, 0, 0, ASYNC_SUBMIT_ABI_VERSION |
				       ASYNC_SUBMIT_PROBE));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, async_submit_raw(&e, 1, ENTRY_SIZE,
				       ASYNC_SUBMIT_ABI_VERSION));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(DONE_POISON, e.done);
}

TEST_F(scratch, unknown_submit_flags)
{
	const unsigned int known = ASYNC_SUBMIT_WAIT | ASYNC_SUBMIT_PROBE |
				   ASYNC_SUBMIT_ABI_VERSION |
				   ASYNC_SUBMIT_CANCEL | ASYNC_SUBMIT_WAKE_MARKED;
	struct async_syscall e;
	unsigned int bit;

	ASSERT_EQ(0, write_file(self->dirfd, CANARY, "x", 1));
	for (bit = 0; bit < 32; bit++) {
		if (known & (1U << bit))
			continue;
		prep(&e, __NR_unlinkat, self->dirfd, async_ptr(CANARY), 0, 0, 0, 0);
		errno = 0;
		ASSERT_EQ(-1, async_submit(&e, 1, 1U << bit))
			TH_LOG("flag bit %u accepted", bit);
		ASSERT_EQ(EINVAL, errno)
			TH_LOG("flag bit %u: %s", bit, strerror(errno));
		ASSERT_EQ(DONE_POISON, e.done);
		ASSERT_TRUE(file_exists(self->dirfd, CANARY));
	}
}

TEST_F(scratch, one_entry)
{
	struct async_syscall e;
	char buf[16];
	int fd;

	fd = openat(self->dirfd, "one", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	prep(&e, __NR_write, fd, async_ptr("hello, world"), 12, 0, 0, 0);
	ASSERT_EQ(1, async_submit(&e, 1, 0))
		TH_LOG("async_submit(): %s", strerror(errno));
	ASSERT_EQ(0, wait_one(&e));
	ASSERT_RESULT(12, &e, 0);
	ASSERT_EQ(12, pread(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, memcmp(buf, "hello, world", 12));
	/* The write moved the file position of the process's file. */
	ASSERT_EQ(12, lseek(fd, 0, SEEK_CUR));
	close(fd);
}

TEST_F(scratch, batch_1024)
{
	const unsigned int n = 1024;
	struct async_syscall *e;
	__u64 *slot, *got;
	unsigned int i;
	int fd;

	e = calloc(n, ENTRY_SIZE);
	slot = calloc(n, sizeof(*slot));
	got = calloc(n, sizeof(*got));
	ASSERT_TRUE(e && slot && got);
	fd = openat(self->dirfd, "batch", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	for (i = 0; i < n; i++) {
		slot[i] = ((__u64)i << 32) | (~i & 0xffffffffU);
		prep(&e[i], __NR_pwrite64, fd, async_ptr(&slot[i]), sizeof(*slot),
		     i * sizeof(*slot), 0, 0);
	}
	ASSERT_EQ(n, async_submit(e, n, 0))
		TH_LOG("async_submit(): %s", strerror(errno));
	ASSERT_EQ(0, wait_all(e, n));
	for (i = 0; i < n; i++)
		ASSERT_RESULT(sizeof(*slot), e, i);
	ASSERT_EQ(n * sizeof(*got), pread(fd, got, n * sizeof(*got), 0));
	ASSERT_EQ(0, memcmp(slot, got, n * sizeof(*got)));
	close(fd);
	free(e);
	free(slot);
	free(got);
}

/* --- Every whitelisted call ---------------------------------------------- */

TEST_F(scratch, ops_read_write)
{
	struct async_syscall e[6];
	char data[32], got[2][16];
	int fd;

	fill(data, sizeof(data), 1);
	fd = openat(self->dirfd, "rw", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);

	prep(&e[0], __NR_write, fd, async_ptr(data), 16, 0, 0, 0);
	prep(&e[1], __NR_pwrite64, fd, async_ptr(data + 16), 16, 32, 0, 0);
	prep(&e[2], __NR_write, -1, async_ptr(data), 16, 0, 0, 0);
	ASSERT_EQ(3, async_submit(e, 3, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(16, e, 0);
	ASSERT_RESULT(16, e, 1);
	ASSERT_RESULT(neg_errno(write(-1, data, 16)), e, 2);
	ASSERT_RESULT(-EBADF, e, 2);
	/* write() moved the file position, pwrite64() did not. */
	ASSERT_EQ(16, lseek(fd, 0, SEEK_CUR));

	prep(&e[0], __NR_lseek, fd, 0, SEEK_SET, 0, 0, 0);
	prep(&e[1], __NR_read, fd, async_ptr(got[0]), 16, 0, 0, 0);
	prep(&e[2], __NR_pread64, fd, async_ptr(got[1]), 16, 32, 0, 0);
	prep(&e[3], __NR_lseek, fd, 0, SEEK_END, 0, 0, 0);
	prep(&e[4], __NR_read, fd, async_ptr(got[0]), 16, 0, 0, 0);
	async_chain(e, 5);
	prep(&e[5], __NR_lseek, fd, 0, 42, 0, 0, 0);
	ASSERT_EQ(6, async_submit(e, 6, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(16, e, 1);
	ASSERT_RESULT(16, e, 2);
	ASSERT_RESULT(48, e, 3);
	/* At end of file. */
	ASSERT_RESULT(0, e, 4);
	ASSERT_RESULT(-EINVAL, e, 5);
	ASSERT_EQ(-1, lseek(fd, 0, 42));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(48, lseek(fd, 0, SEEK_CUR));
	ASSERT_EQ(0, memcmp(got[0], data, 16));
	ASSERT_EQ(0, memcmp(got[1], data + 16, 16));
	close(fd);
}

TEST_F(scratch, ops_vectored)
{
	struct iovec wv[2], wpv, wpv2, rv[2], rpv, rpv2;
	char data[48], got[48];
	struct async_syscall e[3];
	int fd;

	fill(data, sizeof(data), 2);
	fd = openat(self->dirfd, "vec", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);

	wv[0] = (struct iovec){ data, 10 };
	wv[1] = (struct iovec){ data + 10, 6 };
	wpv = (struct iovec){ data + 16, 16 };
	wpv2 = (struct iovec){ data + 32, 16 };
	prep(&e[0], __NR_writev, fd, async_ptr(wv), 2, 0, 0, 0);
	prep(&e[1], __NR_pwritev, fd, async_ptr(&wpv), 1, 16, 0, 0);
	prep(&e[2], __NR_pwritev2, fd, async_ptr(&wpv2), 1, 32, 0, RWF_DSYNC);
	ASSERT_EQ(3, async_submit(e, 3, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(16, e, 0);
	ASSERT_RESULT(16, e, 1);
	ASSERT_RESULT(16, e, 2);
	ASSERT_EQ(16, lseek(fd, 0, SEEK_CUR));
	ASSERT_EQ(48, pread(fd, got, sizeof(got), 0));
	ASSERT_EQ(0, memcmp(got, data, 48));

	/* readv() from 0, preadv() at 32, preadv2() at the file position. */
	memset(got, 0, sizeof(got));
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	rv[0] = (struct iovec){ got, 4 };
	rv[1] = (struct iovec){ got + 4, 12 };
	rpv = (struct iovec){ got + 32, 16 };
	rpv2 = (struct iovec){ got + 16, 16 };
	prep(&e[0], __NR_readv, fd, async_ptr(rv), 2, 0, 0, 0);
	prep(&e[1], __NR_preadv, fd, async_ptr(&rpv), 1, 32, 0, 0);
	prep(&e[2], __NR_preadv2, fd, async_ptr(&rpv2), 1, -1, 0, 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit(e, 3, 0));
	ASSERT_EQ(0, wait_one(&e[2]));
	ASSERT_RESULT(16, e, 0);
	ASSERT_RESULT(16, e, 1);
	ASSERT_RESULT(16, e, 2);
	ASSERT_EQ(0, memcmp(got, data, 48));
	ASSERT_EQ(32, lseek(fd, 0, SEEK_CUR));

	/* Unknown RWF_ flag: same error as the direct call. */
	prep(&e[0], __NR_preadv2, fd, async_ptr(&rpv2), 1, 0, 0, 1U << 30);
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(neg_errno(preadv2(fd, &rpv2, 1, 0, 1U << 30)), e, 0);
	ASSERT_RESULT(-EOPNOTSUPP, e, 0);
	close(fd);
}

TEST_F(scratch, ops_open_close)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH };
	struct async_syscall e[5];
	struct stat st;
	char buf[8];
	int i, fds[3];

	ASSERT_EQ(0, write_file(self->dirfd, "f", "abc", 3));
	prep(&e[0], __NR_openat, self->dirfd, async_ptr("f"), O_RDONLY | O_CLOEXEC,
	     0, 0, 0);
	prep(&e[1], __NR_openat, self->dirfd, async_ptr("new"),
	     O_WRONLY | O_CREAT | O_EXCL, 0640, 0, 0);
	prep(&e[2], __NR_openat2, self->dirfd, async_ptr("f"), async_ptr(&how),
	     sizeof(how), 0, 0);
	prep(&e[3], __NR_openat2, self->dirfd, async_ptr("../f"), async_ptr(&how),
	     sizeof(how), 0, 0);
	prep(&e[4], __NR_openat, self->dirfd, async_ptr("missing"), O_RDONLY, 0,
	     0, 0);
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(ASYNC_SYSCALL_DONE, e[i].done);
		ASSERT_LE(0, e[i].result)
			TH_LOG("entry %d: %s", i, result_str(e[i].result));
		fds[i] = e[i].result;
	}
	ASSERT_RESULT(neg_errno(syscall(__NR_openat2, self->dirfd, "../f", &how,
					sizeof(how))), e, 3);
	ASSERT_RESULT(-EXDEV, e, 3);
	ASSERT_RESULT(-ENOENT, e, 4);

	/* The fds belong to the process. */
	ASSERT_EQ(3, pread(fds[0], buf, sizeof(buf), 0));
	ASSERT_EQ(0, memcmp(buf, "abc", 3));
	ASSERT_EQ(FD_CLOEXEC, fcntl(fds[0], F_GETFD));
	ASSERT_EQ(0, fcntl(fds[1], F_GETFD));
	ASSERT_EQ(0, fstat(fds[1], &st));
	ASSERT_EQ(0640, st.st_mode & 0777);
	ASSERT_EQ(3, pread(fds[2], buf, sizeof(buf), 0));
	ASSERT_EQ(FD_CLOEXEC, fcntl(fds[2], F_GETFD));

	for (i = 0; i < 3; i++)
		prep(&e[i], __NR_close, fds[i], 0, 0, 0, 0, 0);
	ASSERT_EQ(3, async_submit(e, 3, ASYNC_SUBMIT_WAIT));
	for (i = 0; i < 3; i++) {
		ASSERT_RESULT(0, e, i);
		ASSERT_EQ(-1, fcntl(fds[i], F_GETFD));
		ASSERT_EQ(EBADF, errno);
	}
	/* Closing again fails like the direct call. */
	prep(&e[0], __NR_close, fds[0], 0, 0, 0, 0, 0);
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(-EBADF, e, 0);
}

TEST_F(scratch, ops_sync)
{
	const unsigned int all = SYNC_FILE_RANGE_WAIT_BEFORE |
				 SYNC_FILE_RANGE_WRITE |
				 SYNC_FILE_RANGE_WAIT_AFTER;
	struct async_syscall e[6];
	char data[8192];
	int fd, p[2];

	fill(data, sizeof(data), 3);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	fd = openat(self->dirfd, "sync", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(sizeof(data), write(fd, data, sizeof(data)));

	prep(&e[0], __NR_fsync, fd, 0, 0, 0, 0, 0);
	prep(&e[1], __NR_fdatasync, fd, 0, 0, 0, 0, 0);
	prep(&e[2], __NR_sync_file_range, fd, 0, 4096, all, 0, 0);
	prep(&e[3], __NR_sync_file_range, fd, -1, 0, all, 0, 0);
	prep(&e[4], __NR_fsync, -1, 0, 0, 0, 0, 0);
	prep(&e[5], __NR_fdatasync, p[0], 0, 0, 0, 0, 0);
	ASSERT_EQ(6, async_submit(e, 6, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(0, e, 2);
	ASSERT_RESULT(neg_errno(sync_file_range(fd, -1, 0, all)), e, 3);
	ASSERT_RESULT(-EINVAL, e, 3);
	ASSERT_RESULT(-EBADF, e, 4);
	ASSERT_RESULT(neg_errno(fdatasync(p[0])), e, 5);
	ASSERT_RESULT(-EINVAL, e, 5);
	close(fd);
	close(p[0]);
	close(p[1]);
}

TEST_F(scratch, ops_names)
{
	struct async_syscall e[4];
	struct stat st;

	ASSERT_EQ(0, write_file(self->dirfd, "a", "a", 1));
	ASSERT_EQ(0, write_file(self->dirfd, "b", "b", 1));
	ASSERT_EQ(0, write_file(self->dirfd, "c", "c", 1));

	/* mkdir d, move a and b into it, remove d/a. */
	prep(&e[0], __NR_mkdirat, self->dirfd, async_ptr("d"), 0750, 0, 0, 0);
	prep(&e[1], __NR_renameat, self->dirfd, async_ptr("a"), self->dirfd,
	     async_ptr("d/a"), 0, 0);
	prep(&e[2], __NR_renameat2, self->dirfd, async_ptr("b"), self->dirfd,
	     async_ptr("d/b"), RENAME_NOREPLACE, 0);
	prep(&e[3], __NR_unlinkat, self->dirfd, async_ptr("d/a"), 0, 0, 0, 0);
	async_chain(e, 4);
	ASSERT_EQ(4, async_submit(e, 4, 0));
	ASSERT_EQ(0, wait_one(&e[3]));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(0, e, 2);
	ASSERT_RESULT(0, e, 3);
	ASSERT_EQ(0, fstatat(self->dirfd, "d", &st, 0));
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0750, st.st_mode & 0777);
	ASSERT_TRUE(file_exists(self->dirfd, "d/b"));
	ASSERT_FALSE(file_exists(self->dirfd, "d/a"));
	ASSERT_FALSE(file_exists(self->dirfd, "a"));
	ASSERT_FALSE(file_exists(self->dirfd, "b"));

	/* Failures, each as the direct call fails. */
	prep(&e[0], __NR_renameat2, self->dirfd, async_ptr("d/b"), self->dirfd,
	     async_ptr("c"), RENAME_NOREPLACE, 0);
	prep(&e[1], __NR_mkdirat, self->dirfd, async_ptr("d"), 0755, 0, 0, 0);
	prep(&e[2], __NR_unlinkat, self->dirfd, async_ptr("d"), 0, 0, 0, 0);
	prep(&e[3], __NR_renameat, self->dirfd, async_ptr("none"), self->dirfd,
	     async_ptr("c"), 0, 0);
	ASSERT_EQ(4, async_submit(e, 4, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(neg_errno(renameat2(self->dirfd, "d/b", self->dirfd, "c",
					  RENAME_NOREPLACE)), e, 0);
	ASSERT_RESULT(-EEXIST, e, 0);
	ASSERT_RESULT(-EEXIST, e, 1);
	ASSERT_RESULT(neg_errno(unlinkat(self->dirfd, "d", 0)), e, 2);
	ASSERT_RESULT(-EISDIR, e, 2);
	ASSERT_RESULT(-ENOENT, e, 3);

	/* Empty d and remove it. */
	prep(&e[0], __NR_unlinkat, self->dirfd, async_ptr("d/b"), 0, 0, 0, 0);
	prep(&e[1], __NR_unlinkat, self->dirfd, async_ptr("d"), AT_REMOVEDIR, 0,
	     0, 0);
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit(e, 2, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_FALSE(file_exists(self->dirfd, "d"));
}

struct dirent64_hdr {
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

TEST_F(scratch, ops_stat)
{
	char data[1000], dents[4096], dents2[4096];
	struct stat want, st1, st2, st3;
	struct async_syscall e[5];
	struct dirent64_hdr *d;
	struct statx stx;
	int fd, dfd, dfd2, found = 0, pos;

	fill(data, sizeof(data), 4);
	ASSERT_EQ(0, write_file(self->dirfd, "s", data, sizeof(data)));
	ASSERT_EQ(0, write_file(self->dirfd, "t", "t", 1));
	ASSERT_EQ(0, mkdirat(self->dirfd, "u", 0755));
	fd = openat(self->dirfd, "s", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	dfd = openat(self->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, fstatat(self->dirfd, "s", &want, 0));

	prep(&e[0], __NR_statx, self->dirfd, async_ptr("s"), AT_SYMLINK_NOFOLLOW,
	     STATX_BASIC_STATS, async_ptr(&stx), 0);
	prep(&e[1], __NR_newfstatat, self->dirfd, async_ptr("s"), async_ptr(&st1), 0,
	     0, 0);
	prep(&e[2], __NR_fstat, fd, async_ptr(&st2), 0, 0, 0, 0);
	prep(&e[3], __NR_newfstatat, self->dirfd, async_ptr("missing"),
	     async_ptr(&st3), 0, 0, 0);
	prep(&e[4], __NR_getdents64, dfd, async_ptr(dents), sizeof(dents), 0, 0,
	     0);
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(0, e, 2);
	ASSERT_RESULT(-ENOENT, e, 3);

	ASSERT_EQ(want.st_ino, stx.stx_ino);
	ASSERT_EQ(want.st_size, stx.stx_size);
	ASSERT_EQ(want.st_mode, stx.stx_mode);
	ASSERT_EQ(want.st_ino, st1.st_ino);
	ASSERT_EQ(want.st_size, st1.st_size);
	ASSERT_EQ(want.st_mode, st1.st_mode);
	ASSERT_EQ(want.st_ino, st2.st_ino);
	ASSERT_EQ(sizeof(data), st2.st_size);
	ASSERT_EQ(want.st_dev, st2.st_dev);

	/* Same amount as a direct getdents64() of the same directory. */
	dfd2 = openat(self->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dfd2);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[4].done);
	ASSERT_EQ(syscall(SYS_getdents64, dfd2, dents2, sizeof(dents2)),
		  e[4].result);
	ASSERT_LT(0, e[4].result);
	for (pos = 0; pos < e[4].result; pos += d->d_reclen) {
		d = (struct dirent64_hdr *)(dents + pos);
		ASSERT_LT(0, d->d_reclen);
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    !strcmp(d->d_name, "s") || !strcmp(d->d_name, "t"))
			found++;
		else if (!strcmp(d->d_name, "u") && d->d_type == DT_DIR)
			found++;
		else
			TH_LOG("unexpected entry %s", d->d_name);
	}
	ASSERT_EQ(5, found);
	/* The directory position moved: nothing more to read. */
	prep(&e[0], __NR_getdents64, dfd, async_ptr(dents), sizeof(dents), 0, 0,
	     0);
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	close(fd);
	close(dfd);
	close(dfd2);
}

TEST_F(scratch, ops_space)
{
	struct async_syscall e[6];
	struct stat st;
	int fd;

	fd = openat(self->dirfd, "space", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);

	prep(&e[0], __NR_fallocate, fd, 0, 0, 1 << 20, 0, 0);
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(1 << 20, st.st_size);
	ASSERT_LE((1 << 20) / 512, st.st_blocks);

	prep(&e[0], __NR_ftruncate, fd, 3 * 4096, 0, 0, 0, 0);
	prep(&e[1], __NR_readahead, fd, 0, 8192, 0, 0, 0);
	prep(&e[2], __NR_fadvise64, fd, 0, 0, POSIX_FADV_DONTNEED, 0, 0);
	async_chain(e, 3);
	prep(&e[3], __NR_fadvise64, fd, 0, 0, 12345, 0, 0);
	prep(&e[4], __NR_fallocate, fd, FALLOC_FL_PUNCH_HOLE, 0, 4096, 0, 0);
	prep(&e[5], __NR_ftruncate, fd, -1, 0, 0, 0, 0);
	ASSERT_EQ(6, async_submit(e, 6, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(0, e, 2);
	ASSERT_RESULT(-posix_fadvise(fd, 0, 0, 12345), e, 3);
	ASSERT_RESULT(-EINVAL, e, 3);
	/* PUNCH_HOLE needs KEEP_SIZE. */
	ASSERT_RESULT(neg_errno(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4096)),
		      e, 4);
	ASSERT_RESULT(-EOPNOTSUPP, e, 4);
	ASSERT_RESULT(-EINVAL, e, 5);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(3 * 4096, st.st_size);
	close(fd);
}

TEST_F(scratch, ops_copy)
{
	char data[3000], got[3000];
	loff_t in1 = 0, out1 = 0, in2 = 0, in3 = 100;
	struct async_syscall e[5];
	int src, d1, d2, d3, p[2];

	fill(data, sizeof(data), 5);
	ASSERT_EQ(0, write_file(self->dirfd, "src", data, sizeof(data)));
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	src = openat(self->dirfd, "src", O_RDONLY | O_CLOEXEC);
	d1 = openat(self->dirfd, "d1", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	d2 = openat(self->dirfd, "d2", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	d3 = openat(self->dirfd, "d3", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_TRUE(src >= 0 && d1 >= 0 && d2 >= 0 && d3 >= 0);

	prep(&e[0], __NR_copy_file_range, src, async_ptr(&in1), d1, async_ptr(&out1),
	     sizeof(data), 0);
	prep(&e[1], __NR_sendfile, d2, src, async_ptr(&in2), sizeof(data), 0, 0);
	/* File to pipe, then as many bytes from the pipe to d3. */
	prep(&e[2], __NR_splice, src, async_ptr(&in3), p[1], 0, sizeof(data), 0);
	prep(&e[3], __NR_splice, p[0], 0, d3, 0, 0, 0);
	async_ref(&e[3], 4, 2);
	async_chain(&e[2], 2);
	prep(&e[4], __NR_copy_file_range, src, 0, d1, 0, 16, 1);
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(sizeof(data), e, 0);
	ASSERT_RESULT(sizeof(data), e, 1);
	ASSERT_RESULT(sizeof(data) - 100, e, 2);
	ASSERT_RESULT(sizeof(data) - 100, e, 3);
	ASSERT_RESULT(neg_errno(copy_file_range(src, NULL, d1, NULL, 16, 1)),
		      e, 4);
	ASSERT_RESULT(-EINVAL, e, 4);

	ASSERT_EQ(sizeof(data), in1);
	ASSERT_EQ(sizeof(data), out1);
	ASSERT_EQ(sizeof(data), in2);
	ASSERT_EQ(sizeof(data), in3);
	/* Offsets were given: src's file position did not move. */
	ASSERT_EQ(0, lseek(src, 0, SEEK_CUR));
	ASSERT_EQ(sizeof(data), read_file(self->dirfd, "d1", got, sizeof(got)));
	ASSERT_EQ(0, memcmp(got, data, sizeof(data)));
	ASSERT_EQ(sizeof(data), read_file(self->dirfd, "d2", got, sizeof(got)));
	ASSERT_EQ(0, memcmp(got, data, sizeof(data)));
	ASSERT_EQ(sizeof(data) - 100,
		  read_file(self->dirfd, "d3", got, sizeof(got)));
	ASSERT_EQ(0, memcmp(got, data + 100, sizeof(data) - 100));
	close(src);
	close(d1);
	close(d2);
	close(d3);
	close(p[0]);
	close(p[1]);
}

TEST(ops_poll)
{
#ifndef __NR_poll
	SKIP(return, "no poll() on this architecture");
#else
	struct timespec ts0 = { 0, 0 }, ts10 = { 0, 10 * NSEC_PER_MSEC };
	struct pollfd ready[2], ready2[2], idle, idle2, later, check[2];
	int full[2], empty[2], slow[2];
	struct async_syscall e[5];

	ASSERT_EQ(0, pipe2(full, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(empty, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(slow, O_CLOEXEC));
	ASSERT_EQ(1, write(full[1], "x", 1));
	ready[0] = (struct pollfd){ .fd = full[0], .events = POLLIN };
	ready[1] = (struct pollfd){ .fd = full[1], .events = POLLOUT };
	memcpy(ready2, ready, sizeof(ready));
	memcpy(check, ready, sizeof(ready));
	idle = (struct pollfd){ .fd = empty[0], .events = POLLIN };
	idle2 = idle;
	later = (struct pollfd){ .fd = slow[0], .events = POLLIN };

	prep(&e[0], __NR_poll, async_ptr(ready), 2, 0, 0, 0, 0);
	prep(&e[1], __NR_poll, async_ptr(&idle), 1, 0, 0, 0, 0);
	prep(&e[2], __NR_ppoll, async_ptr(ready2), 2, async_ptr(&ts0), 0,
	     KERNEL_SIGSET_SIZE, 0);
	prep(&e[3], __NR_ppoll, async_ptr(&idle2), 1, async_ptr(&ts10), 0,
	     KERNEL_SIGSET_SIZE, 0);
	prep(&e[4], __NR_poll, async_ptr(&later), 1, WAIT_TIMEOUT_S * 1000, 0, 0,
	     0);
	ASSERT_EQ(5, async_submit(e, 5, 0));
	/* Whether or not entry 4 already sleeps, this makes it return 1. */
	ASSERT_EQ(1, write(slow[1], "y", 1));
	ASSERT_EQ(0, wait_all(e, 5));

	ASSERT_RESULT(poll(check, 2, 0), e, 0);
	ASSERT_RESULT(2, e, 0);
	ASSERT_EQ(POLLIN, ready[0].revents);
	ASSERT_EQ(POLLOUT, ready[1].revents);
	ASSERT_RESULT(0, e, 1);
	ASSERT_EQ(0, idle.revents);
	ASSERT_RESULT(2, e, 2);
	ASSERT_EQ(POLLIN, ready2[0].revents);
	ASSERT_EQ(POLLOUT, ready2[1].revents);
	ASSERT_RESULT(0, e, 3);
	ASSERT_EQ(0, idle2.revents);
	ASSERT_RESULT(1, e, 4);
	ASSERT_EQ(POLLIN, later.revents);
#endif
}

TEST(ops_sleep)
{
	struct timespec ms = { 0, NSEC_PER_MSEC }, past = { 0, 0 };
	struct timespec bad = { 0, NSEC_PER_SEC };
	struct async_syscall e[5];
	__s64 start;

	prep(&e[0], __NR_nanosleep, async_ptr(&ms), 0, 0, 0, 0, 0);
	prep(&e[1], __NR_clock_nanosleep, CLOCK_MONOTONIC, 0, async_ptr(&ms), 0,
	     0, 0);
	prep(&e[2], __NR_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME,
	     async_ptr(&past), 0, 0, 0);
	prep(&e[3], __NR_nanosleep, async_ptr(&bad), 0, 0, 0, 0, 0);
	prep(&e[4], __NR_clock_nanosleep, 99, 0, async_ptr(&ms), 0, 0, 0);
	start = now_ns();
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	/* A sleep does not end early. */
	ASSERT_LE(NSEC_PER_MSEC, now_ns() - start);
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(0, e, 2);
	ASSERT_RESULT(neg_errno(syscall(SYS_nanosleep, &bad, NULL)), e, 3);
	ASSERT_RESULT(-EINVAL, e, 3);
	ASSERT_RESULT(neg_errno(syscall(SYS_clock_nanosleep, 99, 0, &ms, NULL)),
		      e, 4);
	ASSERT_RESULT(-EINVAL, e, 4);
}

TEST(ops_socketpair)
{
	char ping[8] = {}, pong[8] = {};
	struct iovec out_iov = { "pong", 4 }, in_iov = { pong, 4 };
	struct msghdr out = { .msg_iov = &out_iov, .msg_iovlen = 1 };
	struct msghdr in = { .msg_iov = &in_iov, .msg_iovlen = 1,
			     .msg_flags = -1 };
	struct async_syscall e[4];
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	prep(&e[0], __NR_sendto, sv[0], async_ptr("ping"), 4, 0, 0, 0);
	prep(&e[1], __NR_recvfrom, sv[1], async_ptr(ping), 4, MSG_WAITALL, 0, 0);
	prep(&e[2], __NR_sendmsg, sv[1], async_ptr(&out), 0, 0, 0, 0);
	prep(&e[3], __NR_recvmsg, sv[0], async_ptr(&in), MSG_WAITALL, 0, 0, 0);
	async_chain(e, 4);
	ASSERT_EQ(4, async_submit(e, 4, 0));
	ASSERT_EQ(0, wait_one(&e[3]));
	ASSERT_RESULT(4, e, 0);
	ASSERT_RESULT(4, e, 1);
	ASSERT_RESULT(4, e, 2);
	ASSERT_RESULT(4, e, 3);
	ASSERT_STREQ("ping", ping);
	ASSERT_STREQ("pong", pong);
	ASSERT_EQ(0, in.msg_flags);

	/* Nothing left to read: same as the direct call. */
	prep(&e[0], __NR_recvfrom, sv[1], async_ptr(ping), 4, MSG_DONTWAIT, 0, 0);
	prep(&e[1], __NR_recvmsg, sv[0], async_ptr(&in), MSG_DONTWAIT, 0, 0, 0);
	ASSERT_EQ(2, async_submit(e, 2, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(neg_errno(recv(sv[1], ping, 4, MSG_DONTWAIT)), e, 0);
	ASSERT_RESULT(-EAGAIN, e, 0);
	ASSERT_RESULT(-EAGAIN, e, 1);
	close(sv[0]);
	close(sv[1]);
}

TEST_F(scratch, ops_listen_socket)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX }, peer;
	socklen_t peer_len = sizeof(peer);
	struct async_syscall e[5];
	char buf[8] = {};
	int lfd, cfd;

	snprintf(self->sockdir, sizeof(self->sockdir),
		 "/tmp/async_submit_sock.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->sockdir));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/s", self->sockdir);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_TRUE(lfd >= 0 && cfd >= 0);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(0, listen(lfd, 4));

	/* Chain 1 connects and sends; chain 2 accepts, receives and closes. */
	prep(&e[0], __NR_connect, cfd, async_ptr(&addr), sizeof(addr), 0, 0, 0);
	prep(&e[1], __NR_sendto, cfd, async_ptr("hello"), 5, 0, 0, 0);
	async_chain(&e[0], 2);
	prep(&e[2], __NR_accept4, lfd, async_ptr(&peer), async_ptr(&peer_len),
	     SOCK_CLOEXEC, 0, 0);
	prep(&e[3], __NR_recvfrom, 0, async_ptr(buf), 5, MSG_WAITALL, 0, 0);
	async_ref(&e[3], 0, 2);
	prep(&e[4], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[4], 0, 2);
	async_chain(&e[2], 3);
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(5, e, 1);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[2].done);
	ASSERT_LE(0, e[2].result)
		TH_LOG("accept4: %s", result_str(e[2].result));
	ASSERT_RESULT(5, e, 3);
	ASSERT_RESULT(0, e, 4);
	ASSERT_STREQ("hello", buf);
	/* The peer is unbound: only the family. */
	ASSERT_EQ(sizeof(sa_family_t), peer_len);
	ASSERT_EQ(AF_UNIX, peer.sun_family);
	ASSERT_EQ(-1, fcntl(e[2].result, F_GETFD));

	prep(&e[0], __NR_connect, cfd, async_ptr(&addr), sizeof(addr), 0, 0, 0);
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(neg_errno(connect(cfd, (struct sockaddr *)&addr,
					sizeof(addr))), e, 0);
	ASSERT_RESULT(-EISCONN, e, 0);
	close(lfd);
	close(cfd);
}

/* --- Waiting ------------------------------------------------------------- */

TEST(wait_futex_one)
{
	struct timespec nap = { 0, 50 * NSEC_PER_MSEC };
	struct async_syscall e;
	__u32 done;

	prep(&e, __NR_nanosleep, async_ptr(&nap), 0, 0, 0, 0, 0);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	done = __atomic_load_n(&e.done, __ATOMIC_ACQUIRE);
	ASSERT_TRUE(done == ASYNC_SYSCALL_PENDING || done == ASYNC_SYSCALL_DONE)
		TH_LOG("done word %#x after submit", done);
	ASSERT_EQ(0, wait_one(&e));
	ASSERT_RESULT(0, &e, 0);
}

TEST(wait_futex_any)
{
	struct timespec slow = { 2, 0 };
	struct async_syscall e[4];
	int i;

	for (i = 0; i < 4; i++)
		prep(&e[i], __NR_nanosleep, async_ptr(&slow), 0, 0, 0, 0, 0);
	prep(&e[2], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	ASSERT_EQ(4, async_submit(e, 4, 0));
	ASSERT_EQ(2, wait_any(e, 4));
	ASSERT_RESULT(0, e, 2);
	for (i = 0; i < 4; i++) {
		if (i == 2)
			continue;
		/* PENDING, or WAITING where the wait marked it. */
		ASSERT_TRUE(async_pending(&e[i]))
			TH_LOG("2 s sleep of entry %d already done", i);
	}
	ASSERT_EQ(0, wait_all(e, 4));
	for (i = 0; i < 4; i++)
		ASSERT_RESULT(0, e, i);
}

TEST(wait_submit_flag)
{
	struct timespec naps[16];
	struct async_syscall e[16];
	int i;

	for (i = 0; i < 16; i++) {
		naps[i] = (struct timespec){ 0, (i + 1) * 5 * NSEC_PER_MSEC };
		prep(&e[i], __NR_nanosleep, async_ptr(&naps[i]), 0, 0, 0, 0, 0);
	}
	ASSERT_EQ(16, async_submit(e, 16, ASYNC_SUBMIT_WAIT));
	for (i = 0; i < 16; i++)
		ASSERT_RESULT(0, e, i);
}

struct signal_later {
	pthread_t target;
	struct async_syscall *e;
};

static void on_signal(int sig)
{
}

/* Signal the target once it is inside async_submit(). */
static void *signal_later(void *arg)
{
	struct timespec nap = { 0, 50 * NSEC_PER_MSEC };
	struct signal_later *s = arg;
	__s64 end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;

	/* async_submit() sets the done word to PENDING before it waits. */
	while (__atomic_load_n(&s->e->done, __ATOMIC_ACQUIRE) == DONE_POISON &&
	       now_ns() < end)
		sched_yield();
	nanosleep(&nap, NULL);
	pthread_kill(s->target, SIGUSR1);
	return NULL;
}

TEST(wait_interrupted)
{
	/*
	 * SA_RESTART on purpose: the entries are queued when the signal comes,
	 * so the call must fail with EINTR rather than be restarted.
	 */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct timespec nap = { 1, 0 };
	struct async_syscall e;
	struct signal_later s;
	pthread_t thread;
	long ret;
	int err;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	prep(&e, __NR_nanosleep, async_ptr(&nap), 0, 0, 0, 0, 0);
	s.target = pthread_self();
	s.e = &e;
	ASSERT_EQ(0, pthread_create(&thread, NULL, signal_later, &s));
	ret = async_submit(&e, 1, ASYNC_SUBMIT_WAIT);
	err = errno;
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EINTR, err);
	/* The entry goes on and completes. */
	ASSERT_EQ(0, wait_one(&e));
	ASSERT_RESULT(0, &e, 0);
}

/* --- Chains and references ----------------------------------------------- */

TEST_F(scratch, chain_open_read)
{
	struct async_syscall e[2];
	char buf[64] = {};

	ASSERT_EQ(0, write_file(self->dirfd, "in", "chained read", 12));
	prep(&e[0], __NR_openat, self->dirfd, async_ptr("in"), O_RDONLY | O_CLOEXEC,
	     0, 0, 0);
	prep(&e[1], __NR_read, 0, async_ptr(buf), sizeof(buf), 0, 0, 0);
	async_ref(&e[1], 0, 0);
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit(e, 2, 0));
	/* Wait for the last entry only: the chain runs in order. */
	ASSERT_EQ(0, wait_one(&e[1]));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[0].done);
	ASSERT_LE(0, e[0].result)
		TH_LOG("openat: %s", result_str(e[0].result));
	ASSERT_RESULT(12, e, 1);
	ASSERT_STREQ("chained read", buf);
	ASSERT_EQ(0, close(e[0].result));
}

TEST_F(scratch, chain_fstat)
{
	struct async_syscall e[4];
	char data[777], buf[1024];
	struct stat st = {};

	fill(data, sizeof(data), 6);
	ASSERT_EQ(0, write_file(self->dirfd, "in", data, sizeof(data)));
	prep(&e[0], __NR_openat, self->dirfd, async_ptr("in"), O_RDONLY | O_CLOEXEC,
	     0, 0, 0);
	prep(&e[1], __NR_fstat, 0, async_ptr(&st), 0, 0, 0, 0);
	async_ref(&e[1], 0, 0);
	prep(&e[2], __NR_read, 0, async_ptr(buf), sizeof(buf), 0, 0, 0);
	async_ref(&e[2], 0, 0);
	/* close gets the fd of entry 0, not the result of read. */
	prep(&e[3], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[3], 0, 0);
	async_chain(e, 4);
	ASSERT_EQ(4, async_submit(e, 4, 0));
	ASSERT_EQ(0, wait_one(&e[3]));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[0].done);
	ASSERT_LE(0, e[0].result)
		TH_LOG("openat: %s", result_str(e[0].result));
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(sizeof(data), e, 2);
	ASSERT_RESULT(0, e, 3);
	ASSERT_EQ(sizeof(data), st.st_size);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(0, memcmp(buf, data, sizeof(data)));
	ASSERT_EQ(-1, fcntl(e[0].result, F_GETFD));
	ASSERT_EQ(EBADF, errno);
}

TEST_F(scratch, chain_cp)
{
	const size_t size = 100000;
	struct async_syscall e[5];
	char *data, *got;

	data = malloc(size);
	got = malloc(size + 1);
	ASSERT_TRUE(data && got);
	fill(data, size, 7);
	ASSERT_EQ(0, write_file(self->dirfd, "src", data, size));

	prep(&e[0], __NR_openat, self->dirfd, async_ptr("src"),
	     O_RDONLY | O_CLOEXEC, 0, 0, 0);
	prep(&e[1], __NR_openat, self->dirfd, async_ptr("dst"),
	     O_CREAT | O_WRONLY | O_CLOEXEC, 0644, 0, 0);
	prep(&e[2], __NR_copy_file_range, 0, 0, 0, 0, size, 0);
	async_ref(&e[2], 0, 0);
	async_ref(&e[2], 2, 1);
	prep(&e[3], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[3], 0, 0);
	prep(&e[4], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[4], 0, 1);
	async_chain(e, 5);
	ASSERT_EQ(5, async_submit(e, 5, 0));
	ASSERT_EQ(0, wait_one(&e[4]));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[0].done);
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[1].done);
	ASSERT_LE(0, e[1].result);
	ASSERT_NE(e[0].result, e[1].result);
	ASSERT_RESULT(size, e, 2);
	ASSERT_RESULT(0, e, 3);
	ASSERT_RESULT(0, e, 4);
	ASSERT_EQ(size, read_file(self->dirfd, "dst", got, size + 1));
	ASSERT_EQ(0, memcmp(got, data, size));
	free(data);
	free(got);
}

TEST_F(scratch, chain_order)
{
	static const char digits[] = "01234567";
	struct async_syscall e[8];
	char buf[16] = {};
	int fd, i;

	fd = openat(self->dirfd, "order", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	for (i = 0; i < 8; i++)
		prep(&e[i], __NR_write, fd, async_ptr(&digits[i]), 1, 0, 0, 0);
	async_chain(e, 8);
	ASSERT_EQ(8, async_submit(e, 8, ASYNC_SUBMIT_WAIT));
	for (i = 0; i < 8; i++)
		ASSERT_RESULT(1, e, i);
	ASSERT_EQ(8, read_file(self->dirfd, "order", buf, sizeof(buf)));
	ASSERT_STREQ(digits, buf);
	close(fd);
}

TEST_F(scratch, ref_64bit_result)
{
	const __s64 far = 5LL << 30;
	struct async_syscall e[2];
	struct stat st;
	char buf[4];
	int fd;

	fd = openat(self->dirfd, "sparse", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	prep(&e[0], __NR_lseek, fd, far, SEEK_SET, 0, 0, 0);
	prep(&e[1], __NR_pwrite64, fd, async_ptr("tail"), 4, 0, 0, 0);
	async_ref(&e[1], 3, 0);
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit(e, 2, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(far, e, 0);
	ASSERT_RESULT(4, e, 1);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(far + 4, st.st_size);
	ASSERT_EQ(4, pread(fd, buf, 4, far));
	ASSERT_EQ(0, memcmp(buf, "tail", 4));
	close(fd);
}

/* --- Cancellation -------------------------------------------------------- */

/* openat of a missing file, then read and close of its "fd". */
static void prep_missing_chain(struct async_syscall *e, int dirfd, char *buf)
{
	prep(&e[0], __NR_openat, dirfd, async_ptr("missing"), O_RDONLY, 0, 0, 0);
	prep(&e[1], __NR_read, 0, async_ptr(buf), 16, 0, 0, 0);
	async_ref(&e[1], 0, 0);
	prep(&e[2], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[2], 0, 0);
	async_chain(e, 3);
}

TEST_F(scratch, cancel_chain)
{
	struct async_syscall e[3];
	char buf[16] = "untouched";

	prep_missing_chain(e, self->dirfd, buf);
	ASSERT_EQ(3, async_submit(e, 3, 0));
	ASSERT_EQ(0, wait_one(&e[2]));
	ASSERT_RESULT(-ENOENT, e, 0);
	ASSERT_RESULT(-ECANCELED, e, 1);
	ASSERT_RESULT(-ECANCELED, e, 2);
	ASSERT_STREQ("untouched", buf);
}

TEST_F(scratch, cancel_run_anyway)
{
	struct async_syscall e[3];
	char buf[16];

	prep_missing_chain(e, self->dirfd, buf);
	async_run_anyway(&e[2]);
	ASSERT_EQ(3, async_submit(e, 3, 0));
	ASSERT_EQ(0, wait_one(&e[2]));
	ASSERT_RESULT(-ENOENT, e, 0);
	ASSERT_RESULT(-ECANCELED, e, 1);
	/* close ran, with -ENOENT as its fd. */
	ASSERT_RESULT(-EBADF, e, 2);
}

TEST_F(scratch, cancel_stays_failed)
{
	struct async_syscall e[5];

	/* A failure, a RUN_ANYWAY entry that succeeds, then a normal one. */
	prep(&e[0], __NR_openat, self->dirfd, async_ptr("missing"), O_RDONLY, 0,
	     0, 0);
	prep(&e[1], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	async_run_anyway(&e[1]);
	prep(&e[2], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	prep(&e[3], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[3], 0, 0);
	async_run_anyway(&e[3]);
	async_chain(e, 4);
	/* The next chain is not affected. */
	prep(&e[4], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(-ENOENT, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(-ECANCELED, e, 2);
	ASSERT_RESULT(-EBADF, e, 3);
	ASSERT_RESULT(0, e, 4);
}

/* --- Execution ------------------------------------------------------------ */

/*
 * 32 reads, each from its own empty pipe.  Only the last pipe gets data
 * first: that read can complete only if 31 workers sit blocked in the
 * others at the same time and a 32nd takes it.
 */
TEST(parallel_blocked_reads)
{
	struct async_syscall e[32];
	int pipes[32][2], i;
	char buf[32];

	for (i = 0; i < 32; i++) {
		ASSERT_EQ(0, pipe2(pipes[i], O_CLOEXEC));
		prep(&e[i], __NR_read, pipes[i][0], async_ptr(&buf[i]), 1,
		     0, 0, 0);
	}
	ASSERT_EQ(32, async_submit(e, 32, 0));
	ASSERT_EQ(1, write(pipes[31][1], "x", 1));
	ASSERT_EQ(0, wait_one(&e[31]));
	ASSERT_RESULT(1, e, 31);
	TH_LOG("%d worker threads", count_workers());
	for (i = 0; i < 31; i++)
		ASSERT_TRUE(async_pending(&e[i]));
	for (i = 0; i < 31; i++)
		ASSERT_EQ(1, write(pipes[i][1], "x", 1));
	ASSERT_EQ(0, wait_all(e, 32));
	for (i = 0; i < 32; i++) {
		ASSERT_RESULT(1, e, i);
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
}

/* In a child: exit status 0, or the step that failed. */
static int creds_child(int dirfd)
{
	struct timespec nap = { 1, 0 };
	struct async_syscall e[2], late;

	prep(&e[0], __NR_nanosleep, async_ptr(&nap), 0, 0, 0, 0, 0);
	prep(&e[1], __NR_openat, dirfd, async_ptr("secret"), O_RDONLY | O_CLOEXEC,
	     0, 0, 0);
	async_chain(e, 2);
	if (async_submit(e, 2, 0) != 2)
		return 10;
	/* Only this thread changes its credentials, as the kernel does. */
	if (syscall(SYS_setresuid, 65534, 65534, 65534))
		return 11;
	/* The openat must run after the uid changed. */
	if (!async_pending(&e[1]))
		return 12;
	if (wait_one(&e[1]))
		return 13;
	if (e[0].result || e[1].result < 0) {
		ksft_print_msg("nanosleep: %lld, openat as submitter: %lld\n",
			       (long long)e[0].result, (long long)e[1].result);
		return 14;
	}
	close(e[1].result);

	/* Now the direct call fails, and so does a new submission. */
	if (openat(dirfd, "secret", O_RDONLY) != -1 || errno != EACCES)
		return 15;
	prep(&late, __NR_openat, dirfd, async_ptr("secret"), O_RDONLY | O_CLOEXEC,
	     0, 0, 0);
	if (async_submit(&late, 1, ASYNC_SUBMIT_WAIT) != 1)
		return 16;
	if (late.result != -EACCES) {
		ksft_print_msg("openat as uid 65534: %lld\n",
			       (long long)late.result);
		return 17;
	}
	return 0;
}

TEST_F(scratch, creds_at_submit)
{
	int status;
	pid_t child;

	if (geteuid() != 0)
		SKIP(return, "changing uid needs root");
	ASSERT_EQ(0, fchmod(self->dirfd, 0755));
	ASSERT_EQ(0, write_file(self->dirfd, "secret", "root only", 9));
	ASSERT_EQ(0, fchmodat(self->dirfd, "secret", 0600, 0));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(creds_child(self->dirfd));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("child status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("creds_child() failed at step %d", WEXITSTATUS(status));
}

/* --- ASYNC_OP_FSYNC_RANGE ------------------------------------------------- */

TEST_F(scratch, fsync_range)
{
	struct async_syscall e[10];
	char data[16384];
	int fd, p[2];

	fill(data, sizeof(data), 8);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	fd = openat(self->dirfd, "fs", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(sizeof(data), write(fd, data, sizeof(data)));

	prep(&e[0], ASYNC_OP_FSYNC_RANGE, fd, 0, 4096, 0, 0, 0);
	prep(&e[1], ASYNC_OP_FSYNC_RANGE, fd, 0, 4096, ASYNC_FSYNC_DATASYNC, 0, 0);
	prep(&e[2], ASYNC_OP_FSYNC_RANGE, fd, 4096, 0, 0, 0, 0);
	prep(&e[3], ASYNC_OP_FSYNC_RANGE, fd, 0, 0, ASYNC_FSYNC_DATASYNC, 0, 0);
	prep(&e[4], ASYNC_OP_FSYNC_RANGE, -1, 0, 4096, 0, 0, 0);
	prep(&e[5], ASYNC_OP_FSYNC_RANGE, fd, -1, 4096, 0, 0, 0);
	prep(&e[6], ASYNC_OP_FSYNC_RANGE, fd, 0, -1, 0, 0, 0);
	prep(&e[7], ASYNC_OP_FSYNC_RANGE, fd, LLONG_MAX, 2, 0, 0, 0);
	prep(&e[8], ASYNC_OP_FSYNC_RANGE, fd, 0, 4096, 1U << 1, 0, 0);
	/* No fsync on a pipe: the error of fsync(). */
	prep(&e[9], ASYNC_OP_FSYNC_RANGE, p[1], 0, 0, 0, 0, 0);
	ASSERT_EQ(10, async_submit(e, 10, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, e, 0);
	ASSERT_RESULT(0, e, 1);
	ASSERT_RESULT(0, e, 2);
	ASSERT_RESULT(0, e, 3);
	ASSERT_RESULT(-EBADF, e, 4);
	ASSERT_RESULT(-EINVAL, e, 5);
	ASSERT_RESULT(-EINVAL, e, 6);
	ASSERT_RESULT(-EINVAL, e, 7);
	ASSERT_RESULT(-EINVAL, e, 8);
	ASSERT_RESULT(neg_errno(fsync(p[1])), e, 9);

	/* The next operation number does not exist. */
	prep(&e[0], ASYNC_OP_BASE + 2, fd, 0, 0, 0, 0, 0);
	errno = 0;
	ASSERT_EQ(-1, async_submit(e, 1, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, e[0].result);
	ASSERT_EQ(DONE_POISON, e[0].done);
	close(fd);
	close(p[0]);
	close(p[1]);
}

/*
 * The flags argument is 64 bits wide: an unknown flag in its upper half is
 * refused like one in its lower half, so that it can be given a meaning later.
 */
TEST_F(scratch, fsync_range_high_flags)
{
	struct async_syscall e[5];
	int fd;

	fd = openat(self->dirfd, "fs", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "data", 4));

	prep(&e[0], ASYNC_OP_FSYNC_RANGE, fd, 0, 0, 1ULL << 32, 0, 0);
	prep(&e[1], ASYNC_OP_FSYNC_RANGE, fd, 0, 0,
	     1ULL << 32 | ASYNC_FSYNC_DATASYNC, 0, 0);
	prep(&e[2], ASYNC_OP_FSYNC_RANGE, fd, 0, 4096, 1ULL << 63, 0, 0);
	prep(&e[3], ASYNC_OP_FSYNC_RANGE, fd, 0, 0, ~0ULL, 0, 0);
	/* The only known flag still works. */
	prep(&e[4], ASYNC_OP_FSYNC_RANGE, fd, 0, 0, ASYNC_FSYNC_DATASYNC, 0, 0);
	ASSERT_EQ(5, async_submit(e, 5, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(-EINVAL, e, 0);
	ASSERT_RESULT(-EINVAL, e, 1);
	ASSERT_RESULT(-EINVAL, e, 2);
	ASSERT_RESULT(-EINVAL, e, 3);
	ASSERT_RESULT(0, e, 4);
	close(fd);
}

/* --- ASYNC_SUBMIT_PROBE --------------------------------------------------- */

TEST_F(scratch, probe)
{
	static const struct {
		unsigned int nr;
		unsigned int flags;
		__s64 result;
	} probes[] = {
		{ __NR_read, 0, 0 },
		{ __NR_openat, 0, 0 },
		{ __NR_exit, 0, -EOPNOTSUPP },
		{ __NR_clone, 0, -EOPNOTSUPP },
		{ __NR_getpid, 0, -EOPNOTSUPP },
		{ __NR_async_submit, 0, -EOPNOTSUPP },
		{ 9999, 0, -EINVAL },
		{ ASYNC_OP_FSYNC_RANGE, 0, 0 },
		{ __NR_close, 1U << 7, -EINVAL },
		{ __NR_unlinkat, 0, 0 },
	};
	struct async_syscall e[ARRAY_SIZE(probes)];
	unsigned int i, last = ARRAY_SIZE(probes) - 1;

	ASSERT_EQ(0, write_file(self->dirfd, CANARY, "x", 1));
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		prep(&e[i], probes[i].nr, 0, 0, 0, 0, 0, 0);
		e[i].flags = probes[i].flags;
	}
	/* It would remove the canary if it ran. */
	prep(&e[last], __NR_unlinkat, self->dirfd, async_ptr(CANARY), 0, 0, 0, 0);
	ASSERT_EQ(0, async_submit(e, ARRAY_SIZE(probes), ASYNC_SUBMIT_PROBE))
		TH_LOG("async_submit(PROBE): %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		ASSERT_EQ(probes[i].result, e[i].result)
			TH_LOG("probe of nr %#x: %lld", probes[i].nr,
			       (long long)e[i].result);
		ASSERT_EQ(DONE_POISON, e[i].done)
			TH_LOG("probe of nr %#x wrote done", probes[i].nr);
	}
	ASSERT_TRUE(file_exists(self->dirfd, CANARY));
}

/* --- Bad input ------------------------------------------------------------ */

enum array_kind {
	ARRAY_OK,
	ARRAY_NULL,
	ARRAY_MISALIGNED,
	ARRAY_RDONLY,
	ARRAY_NOACCESS,
};

/*
 * A call to fail: the default entries are unlinkat(CANARY), nanosleep(0),
 * nanosleep(0), three chains; edit() changes them.
 */
struct bad_input {
	const char *name;
	enum array_kind array;
	unsigned int nr_entries;
	size_t entry_size;
	unsigned int flags;
	void (*edit)(struct async_syscall *e);
	/* With entry_size 80: set this byte (72 to 79) of entry tail_entry. */
	int tail_entry, tail_byte;
	int err;
	/* The entry whose result must be -err, or -1. */
	int bad_entry;
};

static void edit_entry_flag(struct async_syscall *e)
{
	e[1].flags = 1U << 3;
}

static void edit_nr_9999(struct async_syscall *e)
{
	e[1].nr = 9999;
}

static void edit_nr_473(struct async_syscall *e)
{
	e[1].nr = 473;
}

static void edit_nr_async_submit(struct async_syscall *e)
{
	e[1].nr = __NR_async_submit;
}

static void edit_nr_exit_group(struct async_syscall *e)
{
	e[1].nr = __NR_exit_group;
}

static void edit_nr_getpid(struct async_syscall *e)
{
	e[1].nr = __NR_getpid;
}

static void edit_op_base_2(struct async_syscall *e)
{
	e[1].nr = ASYNC_OP_BASE + 2;
}

static void edit_ref_forward(struct async_syscall *e)
{
	prep(&e[1], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[1], 0, 2);
	e[1].flags = ASYNC_SYSCALL_LINK;
}

static void edit_ref_self(struct async_syscall *e)
{
	prep(&e[1], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[1], 0, 1);
}

static void edit_ref_past_end(struct async_syscall *e)
{
	e[1].flags = ASYNC_SYSCALL_LINK;
	prep(&e[2], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[2], 0, 7);
}

static void edit_ref_other_chain(struct async_syscall *e)
{
	e[1].flags = ASYNC_SYSCALL_LINK;
	prep(&e[2], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[2], 0, 0);
}

static void edit_ref_bit6(struct async_syscall *e)
{
	e[1].flags = ASYNC_SYSCALL_LINK;
	prep(&e[2], __NR_close, 0, 0, 0, 0, 0, 0);
	async_ref(&e[2], 0, 1);
	e[2].arg_refs |= 1U << 6;
}

static void edit_ref_close_arg3(struct async_syscall *e)
{
	e[1].flags = ASYNC_SYSCALL_LINK;
	prep(&e[2], __NR_close, -1, 0, 0, 0, 0, 0);
	async_ref(&e[2], 3, 1);
}

static void edit_ref_fsync_range_arg4(struct async_syscall *e)
{
	e[1].flags = ASYNC_SYSCALL_LINK;
	prep(&e[2], ASYNC_OP_FSYNC_RANGE, -1, 0, 0, 0, 0, 0);
	async_ref(&e[2], 4, 1);
}

static void edit_link_last(struct async_syscall *e)
{
	e[2].flags = ASYNC_SYSCALL_LINK;
}

#define SUBMIT_ERR(_name, _array, _nr, _size, _flags, _err) { \
	.name = _name, .array = _array, .nr_entries = _nr, \
	.entry_size = _size, .flags = _flags, .err = _err, .bad_entry = -1, \
}

#define ENTRY_ERR(_name, _edit, _bad, _err) { \
	.name = _name, .array = ARRAY_OK, .nr_entries = 3, \
	.entry_size = ENTRY_SIZE, .edit = _edit, .err = _err, \
	.bad_entry = _bad, \
}

static const struct bad_input bad_inputs[] = {
	SUBMIT_ERR("entries NULL", ARRAY_NULL, 1, ENTRY_SIZE, 0, EFAULT),
	SUBMIT_ERR("entries read-only", ARRAY_RDONLY, 3, ENTRY_SIZE, 0, EFAULT),
	SUBMIT_ERR("entries PROT_NONE", ARRAY_NOACCESS, 3, ENTRY_SIZE, 0,
		   EFAULT),
	SUBMIT_ERR("entries + 4", ARRAY_MISALIGNED, 3, ENTRY_SIZE, 0, EINVAL),
	SUBMIT_ERR("entry_size 0", ARRAY_OK, 3, 0, 0, EINVAL),
	SUBMIT_ERR("entry_size 8", ARRAY_OK, 3, 8, 0, EINVAL),
	SUBMIT_ERR("entry_size 71", ARRAY_OK, 3, 71, 0, EINVAL),
	SUBMIT_ERR("entry_size 76", ARRAY_OK, 3, 76, 0, EINVAL),
	/* Not a multiple of 8 is checked before the size limit. */
	SUBMIT_ERR("entry_size 4097", ARRAY_OK, 3, 4097, 0, EINVAL),
	SUBMIT_ERR("entry_size 4104", ARRAY_OK, 3, 4096 + 8, 0, E2BIG),
	{
		.name = "entry_size 80, byte 72 of entry 0 set",
		.array = ARRAY_OK, .nr_entries = 3, .entry_size = 80,
		.tail_entry = 0, .tail_byte = 72, .err = E2BIG,
		.bad_entry = -1,
	},
	{
		.name = "entry_size 80, byte 79 of entry 2 set",
		.array = ARRAY_OK, .nr_entries = 3, .entry_size = 80,
		.tail_entry = 2, .tail_byte = 79, .err = E2BIG,
		.bad_entry = -1,
	},
	SUBMIT_ERR("nr_entries 0", ARRAY_OK, 0, ENTRY_SIZE, 0, EINVAL),
	SUBMIT_ERR("nr_entries 4097", ARRAY_OK, ASYNC_SUBMIT_MAX_ENTRIES + 1,
		   ENTRY_SIZE, 0, EINVAL),
	SUBMIT_ERR("flag 1U << 31", ARRAY_OK, 3, ENTRY_SIZE, 1U << 31, EINVAL),
	SUBMIT_ERR("PROBE | WAIT", ARRAY_OK, 3, ENTRY_SIZE,
		   ASYNC_SUBMIT_PROBE | ASYNC_SUBMIT_WAIT, EINVAL),
	SUBMIT_ERR("flag 1U << 5", ARRAY_OK, 3, ENTRY_SIZE, 1U << 5, EINVAL),
	SUBMIT_ERR("PROBE | WAKE_MARKED", ARRAY_OK, 3, ENTRY_SIZE,
		   ASYNC_SUBMIT_PROBE | ASYNC_SUBMIT_WAKE_MARKED, EINVAL),
	SUBMIT_ERR("CANCEL | WAKE_MARKED", ARRAY_OK, 3, ENTRY_SIZE,
		   ASYNC_SUBMIT_CANCEL | ASYNC_SUBMIT_WAKE_MARKED, EINVAL),
	SUBMIT_ERR("ABI_VERSION with entries", ARRAY_OK, 3, ENTRY_SIZE,
		   ASYNC_SUBMIT_ABI_VERSION, EINVAL),
	ENTRY_ERR("entry flag 1U << 3", edit_entry_flag, 1, EINVAL),
	ENTRY_ERR("nr 9999", edit_nr_9999, 1, EINVAL),
	ENTRY_ERR("nr 473", edit_nr_473, 1, EINVAL),
	ENTRY_ERR("nr async_submit", edit_nr_async_submit, 1, EOPNOTSUPP),
	ENTRY_ERR("nr exit_group", edit_nr_exit_group, 1, EOPNOTSUPP),
	ENTRY_ERR("nr getpid", edit_nr_getpid, 1, EOPNOTSUPP),
	ENTRY_ERR("nr ASYNC_OP_BASE + 2", edit_op_base_2, 1, EINVAL),
	ENTRY_ERR("forward reference", edit_ref_forward, 1, EINVAL),
	ENTRY_ERR("reference to itself", edit_ref_self, 1, EINVAL),
	ENTRY_ERR("reference past nr_entries", edit_ref_past_end, 2, EINVAL),
	ENTRY_ERR("reference to another chain", edit_ref_other_chain, 2,
		  EINVAL),
	ENTRY_ERR("arg_refs bit 6", edit_ref_bit6, 2, EINVAL),
	ENTRY_ERR("arg_refs bit 3 on close", edit_ref_close_arg3, 2, EINVAL),
	ENTRY_ERR("arg_refs bit 4 on fsync_range", edit_ref_fsync_range_arg4,
		  2, EINVAL),
	ENTRY_ERR("LINK on the last entry", edit_link_last, 2, EINVAL),
};

/* Stride of the entries laid out for @c: its entry size if that is valid. */
static size_t bad_input_stride(const struct bad_input *c)
{
	if (c->entry_size >= ENTRY_SIZE && c->entry_size <= 4096 &&
	    !(c->entry_size % 8))
		return c->entry_size;
	return ENTRY_SIZE;
}

static void bad_input_lay_out(const struct bad_input *c, char *buf,
			      size_t buf_size, int dirfd)
{
	size_t stride = bad_input_stride(c);
	struct async_syscall e[3];
	int i;

	prep(&e[0], __NR_unlinkat, dirfd, async_ptr(CANARY), 0, 0, 0, 0);
	prep(&e[1], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	prep(&e[2], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	if (c->edit)
		c->edit(e);
	memset(buf, 0, buf_size);
	for (i = 0; i < 3; i++)
		memcpy(buf + i * stride, &e[i], sizeof(e[i]));
	if (c->tail_byte)
		buf[c->tail_entry * stride + c->tail_byte] = 1;
}

TEST_F(scratch, bad_inputs)
{
	const size_t buf_size = 96 * 4096;
	const struct bad_input *c;
	struct async_syscall *at;
	unsigned int i, j;
	size_t stride;
	char *buf;
	long ret;
	int err;

	buf = mmap(NULL, buf_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, write_file(self->dirfd, CANARY, "x", 1));

	for (i = 0; i < ARRAY_SIZE(bad_inputs); i++) {
		c = &bad_inputs[i];
		stride = bad_input_stride(c);
		bad_input_lay_out(c, buf, buf_size, self->dirfd);
		at = (struct async_syscall *)buf;
		if (c->array == ARRAY_NULL)
			at = NULL;
		else if (c->array == ARRAY_MISALIGNED)
			at = (struct async_syscall *)(buf + 4);
		else if (c->array == ARRAY_RDONLY)
			mprotect(buf, buf_size, PROT_READ);
		else if (c->array == ARRAY_NOACCESS)
			mprotect(buf, buf_size, PROT_NONE);

		errno = 0;
		ret = async_submit_raw(at, c->nr_entries, c->entry_size,
				       c->flags);
		err = errno;
		ASSERT_EQ(0, mprotect(buf, buf_size, PROT_READ | PROT_WRITE));

		ASSERT_EQ(-1, ret)
			TH_LOG("%s: returned %ld", c->name, ret);
		EXPECT_EQ(c->err, err)
			TH_LOG("%s: %s instead of %s", c->name, strerror(err),
			       strerror(c->err));
		/* Nothing ran. */
		ASSERT_TRUE(file_exists(self->dirfd, CANARY))
			TH_LOG("%s: entry 0 ran", c->name);
		for (j = 0; j < 3 && c->array != ARRAY_MISALIGNED; j++) {
			at = (struct async_syscall *)(buf + j * stride);
			EXPECT_EQ(DONE_POISON, at->done)
				TH_LOG("%s: done word of entry %u changed",
				       c->name, j);
		}
		if (c->bad_entry >= 0) {
			at = (struct async_syscall *)(buf + c->bad_entry * stride);
			EXPECT_EQ(-c->err, at->result)
				TH_LOG("%s: result of entry %d", c->name,
				       c->bad_entry);
		}
	}
	munmap(buf, buf_size);
}

TEST_F(scratch, bad_entry_runs_nothing)
{
	struct async_syscall e[100];
	int i;

	ASSERT_EQ(0, write_file(self->dirfd, CANARY, "x", 1));
	prep(&e[0], __NR_unlinkat, self->dirfd, async_ptr(CANARY), 0, 0, 0, 0);
	for (i = 1; i < 100; i++)
		prep(&e[i], __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	e[99].nr = 9999;
	errno = 0;
	ASSERT_EQ(-1, async_submit(e, 100, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, e[99].result);

	/* Two bad entries: the first one is reported. */
	e[40].nr = __NR_getpid;
	e[99].result = RESULT_POISON;
	errno = 0;
	ASSERT_EQ(-1, async_submit(e, 100, 0));
	ASSERT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(-EOPNOTSUPP, e[40].result);
	ASSERT_EQ(RESULT_POISON, e[99].result);

	for (i = 0; i < 100; i++) {
		ASSERT_EQ(DONE_POISON, e[i].done)
			TH_LOG("entry %d", i);
	}
	ASSERT_TRUE(file_exists(self->dirfd, CANARY));
}

/*
 * The array runs into a page that cannot be read, inside the first run of
 * copies, at the start of the second, and inside it.  Entries are copied a
 * run at a time, yet a bad entry before the fault is still the one
 * reported, and nothing runs.
 */
TEST_F(scratch, fault_mid_array)
{
	static const unsigned int lasts[] = { 3, 16, 20 };
	const long page_size = sysconf(_SC_PAGESIZE);
	struct async_syscall *e;
	unsigned int k, i, last;
	char *map;

	map = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page_size, page_size, PROT_NONE));
	ASSERT_EQ(0, write_file(self->dirfd, CANARY, "x", 1));
	for (k = 0; k < ARRAY_SIZE(lasts); k++) {
		last = lasts[k];
		/* Entry @last starts 8 bytes before the page it cannot read. */
		e = (struct async_syscall *)(map + page_size - 8 -
					     last * sizeof(*e));
		prep(&e[0], __NR_unlinkat, self->dirfd, async_ptr(CANARY), 0,
		     0, 0, 0);
		for (i = 1; i < last; i++)
			prep(&e[i], __NR_nanosleep, async_ptr(&zero_ts), 0, 0,
			     0, 0, 0);
		errno = 0;
		ASSERT_EQ(-1, async_submit(e, last + 1, 0));
		ASSERT_EQ(EFAULT, errno);

		e[last - 1].nr = 9999;
		errno = 0;
		ASSERT_EQ(-1, async_submit(e, last + 1, 0));
		ASSERT_EQ(EINVAL, errno);
		ASSERT_EQ(-EINVAL, e[last - 1].result);

		for (i = 0; i < last; i++) {
			ASSERT_EQ(DONE_POISON, e[i].done)
				TH_LOG("%u entries: entry %u", last + 1, i);
		}
		ASSERT_TRUE(file_exists(self->dirfd, CANARY));
	}
	munmap(map, 2 * page_size);
}

struct entry80 {
	struct async_syscall e;
	__u64 tail;
};

TEST_F(scratch, entry_size_larger)
{
	struct entry80 big[2] = {};
	struct async_syscall *page, *page2;
	char buf[8] = {};
	int fd;

	fd = openat(self->dirfd, "big", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);

	/* A larger structure with a zero tail is accepted. */
	ASSERT_EQ(80, sizeof(big[0]));
	prep(&big[0].e, __NR_pwrite64, fd, async_ptr("ab"), 2, 0, 0, 0);
	prep(&big[1].e, __NR_pwrite64, fd, async_ptr("cd"), 2, 2, 0, 0);
	ASSERT_EQ(2, async_submit_raw(&big[0].e, 2, sizeof(big[0]),
				      ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, big[0].e.done);
	ASSERT_EQ(2, big[0].e.result);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, big[1].e.done);
	ASSERT_EQ(2, big[1].e.result);
	ASSERT_EQ(0, big[0].tail);
	ASSERT_EQ(0, big[1].tail);
	ASSERT_EQ(4, pread(fd, buf, sizeof(buf), 0));
	ASSERT_STREQ("abcd", buf);

	/* Not with a nonzero tail. */
	prep(&big[0].e, __NR_pwrite64, fd, async_ptr("xy"), 2, 0, 0, 0);
	prep(&big[1].e, __NR_pwrite64, fd, async_ptr("zz"), 2, 2, 0, 0);
	big[1].tail = 1ULL << 40;
	errno = 0;
	ASSERT_EQ(-1, async_submit_raw(&big[0].e, 2, sizeof(big[0]), 0));
	ASSERT_EQ(E2BIG, errno);
	ASSERT_EQ(DONE_POISON, big[0].e.done);
	ASSERT_EQ(DONE_POISON, big[1].e.done);

	/* Entries of a page each. */
	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	page2 = (struct async_syscall *)((char *)page + 4096);
	prep(page, __NR_pwrite64, fd, async_ptr("AB"), 2, 0, 0, 0);
	prep(page2, __NR_pwrite64, fd, async_ptr("CD"), 2, 2, 0, 0);
	ASSERT_EQ(2, async_submit_raw(page, 2, 4096, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(2, page, 0);
	ASSERT_RESULT(2, page2, 0);
	ASSERT_EQ(4, pread(fd, buf, sizeof(buf), 0));
	ASSERT_STREQ("ABCD", buf);
	munmap(page, 2 * 4096);
	close(fd);
}

TEST_F(scratch, fault_in_argument)
{
	struct async_syscall e[4];
	struct stat st;
	void *none;
	int fd;

	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(0, write_file(self->dirfd, "data", "0123456789abcdef", 16));
	fd = openat(self->dirfd, "data", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);

	prep(&e[0], __NR_pread64, fd, 8, 16, 0, 0, 0);
	prep(&e[1], __NR_pread64, fd, async_ptr(none), 16, 0, 0, 0);
	prep(&e[2], __NR_pwrite64, fd, async_ptr(none), 16, 0, 0, 0);
	prep(&e[3], __NR_newfstatat, self->dirfd, 8, async_ptr(&st), 0, 0, 0);
	ASSERT_EQ(4, async_submit(e, 4, 0));
	ASSERT_EQ(0, wait_all(e, 4));
	ASSERT_RESULT(neg_errno(pread(fd, none, 16, 0)), e, 0);
	ASSERT_RESULT(-EFAULT, e, 0);
	ASSERT_RESULT(-EFAULT, e, 1);
	ASSERT_RESULT(-EFAULT, e, 2);
	ASSERT_RESULT(-EFAULT, e, 3);
	munmap(none, 4096);
	close(fd);
}

TEST(unmap_in_flight)
{
	struct timespec nap = { 0, 200 * NSEC_PER_MSEC };
	struct timespec pause = { 0, 400 * NSEC_PER_MSEC };
	const long page_size = sysconf(_SC_PAGESIZE);
	struct async_syscall *e, again;
	struct pollfd pfd;
	char byte = 0;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	e = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	prep(&e[0], __NR_nanosleep, async_ptr(&nap), 0, 0, 0, 0, 0);
	prep(&e[1], __NR_write, p[1], async_ptr("z"), 1, 0, 0, 0);
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit(e, 2, 0));
	ASSERT_EQ(0, munmap(e, page_size));
	nanosleep(&pause, NULL);

	/* The calls ran although their completion words were gone. */
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_TIMEOUT_S * 1000));
	ASSERT_EQ(1, read(p[0], &byte, 1));
	ASSERT_EQ('z', byte);

	/* And the process can go on using async_submit(). */
	prep(&again, __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	ASSERT_EQ(1, async_submit(&again, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, &again, 0);
	close(p[0]);
	close(p[1]);
}

TEST(in_flight_limit)
{
	const unsigned int batch = ASYNC_SUBMIT_MAX_ENTRIES, batches = 4;
	long ret[4], ret_extra;
	struct async_syscall *e, extra;
	int p[2], err_extra, waited = 0;
	unsigned int i, b;
	char byte;

	e = calloc(batch * batches, ENTRY_SIZE);
	ASSERT_NE(NULL, e);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	/* Reads of an empty pipe: they stay in flight until it is closed. */
	for (i = 0; i < batch * batches; i++)
		prep(&e[i], __NR_read, p[0], async_ptr(&byte), 1, 0, 0, 0);
	for (b = 0; b < batches; b++)
		ret[b] = async_submit(&e[b * batch], batch, 0);
	prep(&extra, __NR_read, p[0], async_ptr(&byte), 1, 0, 0, 0);
	ret_extra = async_submit(&extra, 1, 0);
	err_extra = errno;

	/* Let every read return 0 before checking anything. */
	close(p[1]);
	for (b = 0; b < batches; b++) {
		if (ret[b] == batch && wait_all(&e[b * batch], batch))
			waited = -1;
	}
	if (ret_extra == 1 && wait_one(&extra))
		waited = -1;
	ASSERT_EQ(0, waited);

	for (b = 0; b < batches; b++) {
		ASSERT_EQ(batch, ret[b])
			TH_LOG("batch %u: %s", b, strerror(errno));
	}
	ASSERT_EQ(-1, ret_extra) TH_LOG("entry 16385 accepted");
	ASSERT_EQ(EAGAIN, err_extra);
	for (i = 0; i < batch * batches; i++)
		ASSERT_RESULT(0, e, i);

	/* Nothing in flight any more. */
	prep(&extra, __NR_nanosleep, async_ptr(&zero_ts), 0, 0, 0, 0, 0);
	ASSERT_EQ(1, async_submit(&extra, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_RESULT(0, &extra, 0);
	close(p[0]);
	free(e);
}

TEST_HARNESS_MAIN
