// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of libasync.h: struct async_queue (reaping), the _ref prep
 * variants with the cleanup close, and async_explain().
 *
 * Files are created on the scratch disk named by $SCRATCH (/tmp if unset).
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define NR_FILES	40
#define CHAIN_LEN	3
#define NR_PIPES	140	/* more than one futex_waitv() takes */

/* @nr staged entries or chains for a submission that must be queued. */
#define ASSERT_SUBMITTED(nr, q) ASSERT_EQ(nr, async_queue_submit(q))

FIXTURE(lib) {
	char dir[64];
	int dirfd;
	struct async_queue q;
	struct async_queue_chain out[NR_PIPES];
};

FIXTURE_SETUP(lib)
{
	const char *base = getenv("SCRATCH");

	snprintf(self->dir, sizeof(self->dir), "%s/libasync.XXXXXX",
		 base ? base : "/tmp");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	self->dirfd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->dirfd);
	ASSERT_EQ(0, async_queue_init(&self->q, 1024));
}

FIXTURE_TEARDOWN(lib)
{
	char cmd[128];

	async_queue_exit(&self->q);
	close(self->dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static void name_of(char *name, size_t size, unsigned int i)
{
	snprintf(name, size, "f%03u", i);
}

/* File i holds i + 1 bytes of 'a' + i % 26. */
static int make_files(int dirfd, unsigned int nr)
{
	char name[16], data[NR_FILES + 1];
	unsigned int i;
	int fd;

	for (i = 0; i < nr; i++) {
		name_of(name, sizeof(name), i);
		memset(data, 'a' + i % 26, i + 1);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			    0644);
		if (fd < 0 || write(fd, data, i + 1) != i + 1)
			return -1;
		close(fd);
	}
	return 0;
}

/* Pass the reaped chains of @n to @seen; false if one came twice. */
static bool note_reaped(const struct async_queue_chain *out, int n,
			bool *seen)
{
	int k;

	for (k = 0; k < n; k++) {
		if (seen[out[k].user_data])
			return false;
		seen[out[k].user_data] = true;
	}
	return true;
}

/*
 * openat -> read -> close chains, staged back to back in one array: one
 * call queues them all, their step references are shifted for it, and
 * every chain comes back exactly once with its own file's bytes.
 */
TEST_F(lib, queue_reaps_every_chain_once)
{
	static struct async_syscall e[NR_FILES * CHAIN_LEN];
	static char buf[NR_FILES][64], name[NR_FILES][16];
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	bool seen[NR_FILES] = { false };
	unsigned int i, got = 0;
	int n;

	ASSERT_EQ(0, make_files(self->dirfd, NR_FILES));
	for (i = 0; i < NR_FILES; i++) {
		struct async_syscall *c = &e[i * CHAIN_LEN];

		name_of(name[i], sizeof(name[i]), i);
		async_prep_openat(&c[0], self->dirfd, name[i], O_RDONLY, 0);
		async_prep_read_ref(&c[1], 0, buf[i], sizeof(buf[i]));
		async_prep_close_ref(&c[2], 0);
		ASSERT_EQ(0, async_queue_add(&self->q, c, CHAIN_LEN, i));
	}
	ASSERT_EQ(NR_FILES, async_queue_pending(&self->q));
	ASSERT_SUBMITTED(NR_FILES, &self->q);

	while (got < NR_FILES) {
		n = async_queue_reap(&self->q, self->out, 7, &limit);
		ASSERT_LT(0, n) TH_LOG("reap: %d after %u chains", n, got);
		ASSERT_GE(7, n);
		ASSERT_TRUE(note_reaped(self->out, n, seen));
		got += n;
	}
	ASSERT_EQ(0, async_queue_pending(&self->q));
	/* Nothing is in flight: reap returns at once, with nothing. */
	ASSERT_EQ(0, async_queue_reap(&self->q, self->out, 1, NULL));

	for (i = 0; i < NR_FILES; i++) {
		struct async_syscall *c = &e[i * CHAIN_LEN];

		ASSERT_TRUE(seen[i]);
		ASSERT_LE(0, c[0].result);
		ASSERT_EQ(i + 1, c[1].result) TH_LOG("chain %u", i);
		ASSERT_EQ('a' + i % 26, buf[i][i]);
		ASSERT_EQ(0, c[2].result);
		/* The queue gave the references back as the caller wrote them. */
		ASSERT_EQ(0, c[1].args[0]);
		ASSERT_EQ(0, c[2].args[0]);
	}
}

/* A reaped chain may be refilled and added again at once. */
TEST_F(lib, queue_refill)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	struct async_syscall e[4][CHAIN_LEN];
	unsigned int rounds = 0, i;
	char buf[4][64];
	int n, k;

	ASSERT_EQ(0, make_files(self->dirfd, 4));
	for (i = 0; i < 4; i++) {
		async_prep_openat(&e[i][0], self->dirfd, "f003", O_RDONLY, 0);
		async_prep_read_ref(&e[i][1], 0, buf[i], sizeof(buf[i]));
		async_prep_close_ref(&e[i][2], 0);
		ASSERT_EQ(0, async_queue_add(&self->q, e[i], CHAIN_LEN, i));
	}
	ASSERT_SUBMITTED(4, &self->q);
	while (rounds < 100) {
		n = async_queue_reap(&self->q, self->out, 4, &limit);
		ASSERT_LT(0, n);
		for (k = 0; k < n; k++) {
			struct async_syscall *c = self->out[k].entries;

			ASSERT_EQ(4, c[1].result);
			ASSERT_EQ(0, c[2].result);
			ASSERT_EQ(0, async_queue_add(&self->q, c, CHAIN_LEN,
						     self->out[k].user_data));
			rounds++;
		}
		ASSERT_SUBMITTED(n, &self->q);
	}
	while (async_queue_pending(&self->q))
		ASSERT_LT(0, async_queue_reap(&self->q, self->out, 4, &limit));
}

/* Adding an entry that is staged or in flight is refused, not run twice. */
TEST_F(lib, queue_busy)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	struct async_syscall e[3];
	char c;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	async_prep_read(&e[0], p[0], &c, 1);
	async_prep_read(&e[1], p[0], &c, 1);
	async_prep_read(&e[2], p[0], &c, 1);
	ASSERT_EQ(0, async_queue_add(&self->q, e, 2, 0));
	ASSERT_EQ(-EBUSY, async_queue_add(&self->q, e, 2, 0));
	ASSERT_EQ(-EBUSY, async_queue_add(&self->q, &e[1], 2, 0));
	ASSERT_SUBMITTED(1, &self->q);
	ASSERT_EQ(-EBUSY, async_queue_add(&self->q, &e[1], 1, 0));
	/* The free entry is not caught by its neighbours. */
	ASSERT_EQ(0, async_queue_add(&self->q, &e[2], 1, 1));
	ASSERT_EQ(1, async_queue_unstage(&self->q));

	ASSERT_EQ(2, write(p[1], "xy", 2));
	ASSERT_EQ(1, async_queue_reap(&self->q, self->out, 2, &limit));
	ASSERT_TRUE(self->out[0].entries == e);
	ASSERT_EQ(2, self->out[0].nr);
	ASSERT_EQ(1, e[0].result);
	ASSERT_EQ(1, e[1].result);
	ASSERT_EQ(0, async_queue_add(&self->q, e, 2, 0));
	ASSERT_EQ(1, async_queue_unstage(&self->q));
	close(p[0]);
	close(p[1]);
}

TEST_F(lib, queue_limits)
{
	struct async_syscall e[6];
	struct async_queue small;

	ASSERT_EQ(-EINVAL, async_queue_init(&small, 0));
	ASSERT_EQ(0, async_queue_init(&small, 4));
	for (int i = 0; i < 6; i++)
		async_prep_close(&e[i], -1);
	ASSERT_EQ(-EINVAL, async_queue_add(&small, e, 0, 0));
	ASSERT_EQ(0, async_queue_add(&small, e, 3, 0));
	ASSERT_EQ(-ENOSPC, async_queue_add(&small, &e[3], 2, 0));
	ASSERT_EQ(0, async_queue_add(&small, &e[3], 1, 0));
	ASSERT_EQ(-EINVAL, async_queue_reap(&small, self->out, 0, NULL));
	ASSERT_EQ(2, async_queue_unstage(&small));
	ASSERT_EQ(0, async_queue_pending(&small));
	async_queue_exit(&small);
}

/*
 * More chains in flight than futex_waitv() takes: the one that finishes
 * first is the last one added, outside the first window of 128.
 */
TEST_F(lib, queue_waits_beyond_128)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	static struct async_syscall e[NR_PIPES];
	bool seen[NR_PIPES] = { false };
	static int p[NR_PIPES][2];
	static char buf[NR_PIPES];
	unsigned int i, got = 0;
	int n;

	for (i = 0; i < NR_PIPES; i++) {
		ASSERT_EQ(0, pipe2(p[i], O_CLOEXEC));
		async_prep_read(&e[i], p[i][0], &buf[i], 1);
		ASSERT_EQ(0, async_queue_add(&self->q, &e[i], 1, i));
	}
	ASSERT_SUBMITTED(NR_PIPES, &self->q);

	ASSERT_EQ(1, write(p[NR_PIPES - 1][1], "z", 1));
	n = async_queue_reap(&self->q, self->out, NR_PIPES, &limit);
	ASSERT_EQ(1, n);
	ASSERT_EQ(NR_PIPES - 1, self->out[0].user_data);
	ASSERT_EQ(1, e[NR_PIPES - 1].result);
	seen[NR_PIPES - 1] = true;

	for (i = 0; i + 1 < NR_PIPES; i++)
		ASSERT_EQ(1, write(p[i][1], "z", 1));
	for (got = 1; got < NR_PIPES; got += n) {
		n = async_queue_reap(&self->q, self->out, NR_PIPES, &limit);
		ASSERT_LT(0, n);
		ASSERT_TRUE(note_reaped(self->out, n, seen));
	}
	for (i = 0; i < NR_PIPES; i++) {
		ASSERT_EQ(1, e[i].result);
		close(p[i][0]);
		close(p[i][1]);
	}
}

/* A zero or short timeout, then a cancel ends the wait with the chain. */
TEST_F(lib, queue_timeout_and_cancel)
{
	struct timespec zero = { 0, 0 }, short_wait = { 0, 50 * NSEC_PER_MSEC };
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	struct async_syscall e[2];
	char c;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	async_prep_read(&e[0], p[0], &c, 1);
	async_prep_close(&e[1], -1);
	ASSERT_EQ(0, async_queue_add(&self->q, e, 2, 7));
	ASSERT_SUBMITTED(1, &self->q);
	ASSERT_EQ(-ETIMEDOUT, async_queue_reap(&self->q, self->out, 1, &zero));
	ASSERT_EQ(-ETIMEDOUT,
		  async_queue_reap(&self->q, self->out, 1, &short_wait));
	ASSERT_EQ(1, async_queue_pending(&self->q));

	/* The read may not have reached its wait yet: cancel until it ends. */
	while (async_pending(&e[0])) {
		ASSERT_LE(0, async_cancel(e, 1));
		sleep_ms(POLL_MS);
	}
	ASSERT_EQ(1, async_queue_reap(&self->q, self->out, 1, &limit));
	ASSERT_EQ(7, self->out[0].user_data);
	/* -ECANCELED if the cancel came before the read started. */
	ASSERT_TRUE(e[0].result == -EINTR || e[0].result == -ECANCELED);
	ASSERT_EQ(-ECANCELED, e[1].result);
	close(p[0]);
	close(p[1]);
}

/*
 * A chain that async_submit() refuses, between two good ones in the same
 * array: the good ones run; the bad one comes back from reap with the
 * error on its bad entry and -ECANCELED on the others.
 */
TEST_F(lib, queue_refused_chain)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	struct async_syscall e[6];
	bool seen[3] = { false };
	unsigned int got;
	char buf[8];
	int n;

	ASSERT_EQ(0, make_files(self->dirfd, 2));
	async_prep_openat(&e[0], self->dirfd, "f001", O_RDONLY, 0);
	async_prep_close_ref(&e[1], 0);
	async_prep_close(&e[2], -1);
	async_prep(&e[3], __NR_execve, 0, 0, 0, 0, 0, 0);
	async_prep_openat(&e[4], self->dirfd, "f001", O_RDONLY, 0);
	async_prep_read_ref(&e[5], 0, buf, sizeof(buf));
	ASSERT_EQ(0, async_queue_add(&self->q, &e[0], 2, 0));
	ASSERT_EQ(0, async_queue_add(&self->q, &e[2], 2, 1));
	ASSERT_EQ(0, async_queue_add(&self->q, &e[4], 2, 2));
	ASSERT_SUBMITTED(3, &self->q);

	for (got = 0; got < 3; got += n) {
		n = async_queue_reap(&self->q, self->out, 3, &limit);
		ASSERT_LT(0, n);
		ASSERT_TRUE(note_reaped(self->out, n, seen));
	}
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(0, e[1].result);
	ASSERT_EQ(-ECANCELED, e[2].result);
	ASSERT_EQ(-EOPNOTSUPP, e[3].result);
	ASSERT_LE(0, e[4].result);
	ASSERT_EQ(2, e[5].result);
	close(e[4].result);
}

/*
 * A call that fails for the whole array (EFAULT: the entries are not
 * writable) leaves its chains staged, not in flight; they go once fixed.
 */
TEST_F(lib, queue_failed_submit_stays_staged)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	struct async_syscall *e;
	int n;

	e = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	async_prep_close(&e[0], -1);
	async_prep_close(&e[1], -1);
	ASSERT_EQ(0, async_queue_add(&self->q, &e[0], 1, 0));
	ASSERT_EQ(0, async_queue_add(&self->q, &e[1], 1, 1));
	ASSERT_EQ(0, mprotect(e, 4096, PROT_READ));
	ASSERT_EQ(-EFAULT, async_queue_submit(&self->q));
	ASSERT_EQ(2, async_queue_pending(&self->q));
	/* Nothing is in flight: reap says to submit, it does not sleep. */
	ASSERT_EQ(-EAGAIN, async_queue_reap(&self->q, self->out, 2, &limit));
	ASSERT_EQ(0, mprotect(e, 4096, PROT_READ | PROT_WRITE));
	ASSERT_SUBMITTED(2, &self->q);
	/* Each close goes to a worker: they may finish one at a time. */
	n = async_queue_reap(&self->q, self->out, 2, &limit);
	ASSERT_LT(0, n);
	if (n == 1) {
		n = async_queue_reap(&self->q, self->out + 1, 1, &limit);
		ASSERT_EQ(1, n);
	}
	ASSERT_EQ(-EBADF, e[0].result);
	ASSERT_EQ(-EBADF, e[1].result);
	munmap(e, 4096);
}

/* Timeouts out of range are refused; a huge one is no limit, not none. */
TEST_F(lib, queue_timeout_range)
{
	struct timespec bad = { 0, 1000000000L }, huge = { INT64_MAX, 0 };
	struct async_syscall e;

	async_prep_close(&e, -1);
	ASSERT_EQ(0, async_queue_add(&self->q, &e, 1, 0));
	ASSERT_SUBMITTED(1, &self->q);
	ASSERT_EQ(-EINVAL, async_queue_reap(&self->q, self->out, 1, &bad));
	ASSERT_EQ(1, async_queue_reap(&self->q, self->out, 1, &huge));
}

/*
 * async_cancel_chain() stops a blocked read but lets its cleanup close
 * run: the FIFO's descriptor does not leak.
 */
TEST_F(lib, cancel_chain_keeps_cleanup)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };
	struct async_syscall e[3];
	char path[96], buf[8];

	snprintf(path, sizeof(path), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(path, 0600));
	/* O_RDWR: the open does not wait for a writer, the read does. */
	async_prep_openat(&e[0], AT_FDCWD, path, O_RDWR, 0);
	async_prep_read_ref(&e[1], 0, buf, sizeof(buf));
	async_prep_close_ref(&e[2], 0);
	ASSERT_EQ(0, async_queue_add(&self->q, e, 3, 0));
	ASSERT_SUBMITTED(1, &self->q);
	ASSERT_EQ(0, wait_done(&e[0], WAIT_TIMEOUT_S));
	while (async_pending(&e[1])) {
		ASSERT_LE(0, async_cancel_chain(e, 3));
		sleep_ms(POLL_MS);
	}
	ASSERT_EQ(1, async_queue_reap(&self->q, self->out, 1, &limit));
	ASSERT_LE(0, e[0].result);
	ASSERT_TRUE(e[1].result == -EINTR || e[1].result == -ECANCELED);
	ASSERT_EQ(0, e[2].result);
	ASSERT_EQ(-1, fcntl(e[0].result, F_GETFD));
}

/* The _ref variants take the descriptor of an earlier step. */
TEST_F(lib, ref_preps)
{
	struct async_syscall e[6];
	char in[8] = "payload", out[8] = "";
	struct stat st;

	async_prep_openat(&e[0], self->dirfd, "new", O_RDWR | O_CREAT, 0600);
	async_prep_pwrite_ref(&e[1], 0, in, sizeof(in), 4096);
	async_prep_fsync_range_ref(&e[2], 0, 4096, sizeof(in),
				   ASYNC_FSYNC_DATASYNC);
	async_prep_pread_ref(&e[3], 0, out, sizeof(out), 4096);
	async_prep_fstat_ref(&e[4], 0, &st);
	async_prep_close_ref(&e[5], 0);
	async_chain(e, 6);
	ASSERT_EQ(6, async_submit_wait(e, 6));
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(sizeof(in), e[1].result);
	ASSERT_EQ(0, e[2].result);
	ASSERT_EQ(sizeof(out), e[3].result);
	ASSERT_STREQ(in, out);
	ASSERT_EQ(0, e[4].result);
	ASSERT_EQ(4096 + sizeof(in), st.st_size);
	ASSERT_EQ(0, e[5].result);
	ASSERT_EQ(-1, fcntl(e[0].result, F_GETFD));
}

/* What cp -a does to a file, and a symlink and a link, as one chain each. */
TEST_F(lib, metadata_preps)
{
	const struct timespec times[2] = { { 1000000000, 5 }, { 1100000000, 7 } };
	struct async_syscall e[10];
	char value[8] = "", target[16] = "", path[96];
	mode_t mask = umask(0);
	struct stat st;

	umask(mask);
	async_prep_openat(&e[0], self->dirfd, "meta", O_RDWR | O_CREAT, 0600);
	async_prep_fchmod_ref(&e[1], 0, 0640);
	async_prep_fchown_ref(&e[2], 0, getuid(), getgid());
	async_prep_fsetxattr_ref(&e[3], 0, "user.k", "v1", 2, 0);
	async_prep_utimens_ref(&e[4], 0, times);
	async_prep_close_ref(&e[5], 0);
	async_chain(e, 6);
	async_prep_symlinkat(&e[6], "meta", self->dirfd, "sym");
	async_prep_readlinkat(&e[7], self->dirfd, "sym", target,
			      sizeof(target));
	async_chain(&e[6], 2);
	async_prep_linkat(&e[8], self->dirfd, "meta", self->dirfd, "hard", 0);
	async_prep_mkdirat(&e[9], self->dirfd, "dir", 0750);
	ASSERT_EQ(10, async_submit_wait(e, 10));
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(0, e[1].result);
	ASSERT_EQ(0, e[2].result);
	/* tmpfs has user xattrs; another scratch disk may not. */
	if (e[3].result != -EOPNOTSUPP) {
		ASSERT_EQ(0, e[3].result);
		snprintf(path, sizeof(path), "%s/meta", self->dir);
		ASSERT_EQ(2, getxattr(path, "user.k", value, sizeof(value)));
		ASSERT_STREQ("v1", value);
	}
	ASSERT_EQ(0, e[4].result);
	ASSERT_EQ(0, e[5].result);
	ASSERT_EQ(0, e[6].result);
	ASSERT_EQ(4, e[7].result);
	ASSERT_EQ(0, memcmp(target, "meta", 4));
	ASSERT_EQ(0, e[8].result);
	ASSERT_EQ(0, e[9].result);

	ASSERT_EQ(0, fstatat(self->dirfd, "meta", &st, 0));
	ASSERT_EQ(S_IFREG | 0640, st.st_mode);
	ASSERT_EQ(2, st.st_nlink);
	ASSERT_EQ(times[0].tv_sec, st.st_atim.tv_sec);
	ASSERT_EQ(times[0].tv_nsec, st.st_atim.tv_nsec);
	ASSERT_EQ(times[1].tv_sec, st.st_mtim.tv_sec);
	ASSERT_EQ(times[1].tv_nsec, st.st_mtim.tv_nsec);
	ASSERT_EQ(0, fstatat(self->dirfd, "dir", &st, 0));
	ASSERT_EQ(S_IFDIR | (0750 & ~mask), st.st_mode);
}

/* "Write what the read read": a result as the length of a later step. */
TEST_F(lib, length_ref)
{
	struct async_syscall e[3];
	char buf[64] = "";
	int p[2], q[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pipe(q));
	ASSERT_EQ(5, write(p[1], "hello", 5));
	async_prep_read(&e[0], p[0], buf, sizeof(buf));
	/* The descriptor of a step that returned it: here a dup. */
	async_prep(&e[1], __NR_dup, q[1], 0, 0, 0, 0, 0);
	async_prep_write_len_ref(&e[2], 1, buf, 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	ASSERT_EQ(5, e[0].result);
	ASSERT_LE(0, e[1].result);
	ASSERT_EQ(5, e[2].result);
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(5, read(q[0], buf, sizeof(buf)));
	ASSERT_STREQ("hello", buf);
	close((int)e[1].result);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

/* socket(), then bind() and listen() on what it returned. */
TEST_F(lib, socket_preps)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct sockaddr_un got = {};
	socklen_t len = sizeof(got);
	struct async_syscall e[4];

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/sock", self->dir);
	async_prep_socket(&e[0], AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	async_prep_bind_ref(&e[1], 0, &addr, sizeof(addr));
	async_prep_listen_ref(&e[2], 0, 8);
	async_prep(&e[3], __NR_getsockname, 0, async_ptr(&got),
		   async_ptr(&len), 0, 0, 0);
	async_ref(&e[3], 0, 0);
	async_chain(e, 4);
	ASSERT_EQ(4, async_submit_wait(e, 4));
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(0, e[1].result);
	ASSERT_EQ(0, e[2].result);
	ASSERT_EQ(0, e[3].result);
	ASSERT_STREQ(addr.sun_path, got.sun_path);
	close((int)e[0].result);
}

/* The cleanup close runs after a failed step, and after a failed open. */
TEST_F(lib, close_ref_cleans_up)
{
	struct async_syscall e[3];
	char buf[8];

	async_prep_openat(&e[0], self->dirfd, ".", O_RDONLY | O_DIRECTORY, 0);
	async_prep_read_ref(&e[1], 0, buf, sizeof(buf));
	async_prep_close_ref(&e[2], 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	ASSERT_LE(0, e[0].result);
	ASSERT_EQ(-EISDIR, e[1].result);
	ASSERT_EQ(0, e[2].result);
	ASSERT_EQ(-1, fcntl(e[0].result, F_GETFD));

	async_prep_openat(&e[0], self->dirfd, "absent", O_RDONLY, 0);
	async_prep_read_ref(&e[1], 0, buf, sizeof(buf));
	async_prep_close_ref(&e[2], 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	ASSERT_EQ(-ENOENT, e[0].result);
	ASSERT_EQ(-ECANCELED, e[1].result);
	ASSERT_EQ(-EBADF, e[2].result);
}

/* async_chain() links what async_prep() cleared, and ends the chain. */
TEST_F(lib, chain_after_prep)
{
	struct async_syscall e[2];

	async_prep_close(&e[0], -1);
	async_prep_close(&e[1], -1);
	e[1].flags = ASYNC_SYSCALL_LINK;
	async_chain(e, 2);
	ASSERT_EQ(ASYNC_SYSCALL_LINK, e[0].flags);
	ASSERT_EQ(0, e[1].flags);
	async_prep_close_ref(&e[1], 0);
	async_chain(e, 2);
	ASSERT_EQ(ASYNC_SYSCALL_RUN_ANYWAY, e[1].flags);
}

struct explain_case {
	const char *what;
	int bad;		/* entry, or ASYNC_EXPLAIN_* */
	const char *says;
};

/* Explain @e[0..@nr) and check the entry and the words. */
static void check_explain(struct __test_metadata *_metadata,
			  struct async_syscall *e, unsigned int nr,
			  const struct explain_case *c)
{
	struct async_syscall before[4], probed[4];
	char msg[256];
	int ret;

	memcpy(before, e, nr * sizeof(*e));
	ret = async_explain(e, nr, msg, sizeof(msg));
	TH_LOG("%s: %d \"%s\"", c->what, ret, msg);
	ASSERT_EQ(c->bad, ret);
	ASSERT_NE(NULL, strstr(msg, c->says));
	ASSERT_EQ(0, memcmp(before, e, nr * sizeof(*e)));
	/* The kernel's probe blames the same entry. */
	if (c->bad >= 0) {
		memcpy(probed, e, nr * sizeof(*e));
		ASSERT_EQ(0, async_submit(probed, nr, ASYNC_SUBMIT_PROBE));
		ASSERT_GT(0, probed[c->bad].result);
	}
}

#define STRINGIFY_(x)	#x
#define STRINGIFY(x)	STRINGIFY_(x)

TEST(explain)
{
	struct async_syscall e[4];
	char msg[64];
	static const struct explain_case cases[] = {
		{ "good", ASYNC_EXPLAIN_OK, "no rule" },
		{ "flag", 1, "entry 1: unknown flags 0x80" },
		{ "last linked", 2, "entry 2: the last entry has ASYNC_SYSCALL_LINK" },
		{ "later", 1, "args[0] refers to entry 2, which is not an earlier" },
		{ "no link", 1, "so entry 1 starts a new chain" },
		{ "other chain", 2, "in another chain (this chain starts at entry 1)" },
		{ "whitelist", 1, "entry 1: system call execve ("
				  STRINGIFY(__NR_execve) ") is not on the" },
		{ "unknown", 0, "1000 is neither a system call nor" },
		{ "beyond", 1, "0x8 names an argument that system call "
			       STRINGIFY(__NR_close) " does not take" },
	};
	unsigned int i;

	for (i = 0; i < 3; i++)
		async_prep_close(&e[i], -1);
	async_chain(e, 3);
	check_explain(_metadata, e, 3, &cases[0]);

	e[1].flags |= 0x80;
	check_explain(_metadata, e, 3, &cases[1]);
	async_chain(e, 3);
	e[1].flags &= ~0x80;

	e[2].flags |= ASYNC_SYSCALL_LINK;
	check_explain(_metadata, e, 3, &cases[2]);
	async_chain(e, 3);

	async_ref(&e[1], 0, 2);
	check_explain(_metadata, e, 3, &cases[3]);

	async_prep_close_ref(&e[1], 0);		/* clears the link of e[0] */
	e[0].flags = 0;
	check_explain(_metadata, e, 3, &cases[4]);

	async_prep_close(&e[0], -1);
	async_prep_close(&e[1], -1);
	async_prep_close_ref(&e[2], 0);
	async_link(&e[1]);
	check_explain(_metadata, e, 3, &cases[5]);

	async_prep_close(&e[0], -1);
	async_prep(&e[1], __NR_execve, 0, 0, 0, 0, 0, 0);
	async_prep_close(&e[2], -1);
	check_explain(_metadata, e, 3, &cases[6]);

	async_prep(&e[0], 1000, 0, 0, 0, 0, 0, 0);
	check_explain(_metadata, e, 1, &cases[7]);

	async_prep_close(&e[0], -1);
	async_prep_close(&e[1], -1);
	async_ref(&e[1], 3, 0);
	async_chain(e, 2);
	check_explain(_metadata, e, 2, &cases[8]);

	ASSERT_EQ(ASYNC_EXPLAIN_CALL, async_explain(e, 0, msg, sizeof(msg)));
	ASSERT_STREQ("nr_entries is 0, not 1 to 4096", msg);
}

TEST_HARNESS_MAIN
