// SPDX-License-Identifier: GPL-2.0
/*
 * The signals a call raises for its caller, SIGPIPE and SIGXFSZ, reach the
 * thread that submitted the entry, as they reach the thread that makes the
 * direct call: with the same siginfo, on that thread's own queue, before
 * the entry's done word is written.
 *
 * Each test blocks the signal, so that it stays pending where the kernel
 * queued it, then takes it with sigtimedwait().
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "async_test.h"

/* Whether @sig is pending on the calling thread's own queue. */
static bool thread_pending(int sig)
{
	unsigned long long mask = 0;
	char buf[4096], *p;

	if (read_small("/proc/thread-self/status", buf, sizeof(buf)) <= 0)
		return false;
	p = strstr(buf, "\nSigPnd:");
	if (!p || sscanf(p + 8, "%llx", &mask) != 1)
		return false;
	return mask & (1ULL << (sig - 1));
}

/* Takes pending @sig into @si; false if it is not pending. */
static bool take_signal(int sig, siginfo_t *si)
{
	const struct timespec zero = {};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &zero) == sig;
}

static void block_signal(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

FIXTURE(raise) {
	char path[64];
	int fd;
};

FIXTURE_VARIANT(raise) {
	__u32 flags;
};

FIXTURE_VARIANT_ADD(raise, inline) {
	.flags = 0,
};

FIXTURE_VARIANT_ADD(raise, worker) {
	.flags = ASYNC_SYSCALL_FORCE_ASYNC,
};

FIXTURE_SETUP(raise)
{
	snprintf(self->path, sizeof(self->path), "/tmp/async_raise_XXXXXX");
	self->fd = mkstemp(self->path);
	ASSERT_LE(0, self->fd);
	block_signal(SIGPIPE);
	block_signal(SIGXFSZ);
}

FIXTURE_TEARDOWN(raise)
{
	close(self->fd);
	unlink(self->path);
}

/*
 * Runs @e as an entry with @flags, and checks that @sig is
 * then pending on this thread with the siginfo @direct had, and nowhere
 * else.
 */
static void entry_raises(struct __test_metadata *_metadata, __u32 flags,
			 struct async_syscall *e, long want, int sig,
			 const siginfo_t *direct)
{
	siginfo_t si;
	sigset_t set;

	e->flags |= flags;
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e->done);
	ASSERT_EQ(want, e->result);
	/* Queued before the done word was written, on this thread. */
	ASSERT_TRUE(thread_pending(sig));
	ASSERT_TRUE(take_signal(sig, &si));
	EXPECT_EQ(direct->si_code, si.si_code);
	EXPECT_EQ(direct->si_pid, si.si_pid);
	EXPECT_EQ(direct->si_uid, si.si_uid);
	/* Once, and not to the process as well. */
	ASSERT_EQ(0, sigpending(&set));
	ASSERT_FALSE(sigismember(&set, sig));
}

TEST_F(raise, sigpipe_for_pipe_write)
{
	struct async_syscall e = {};
	siginfo_t direct;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	close(p[0]);
	ASSERT_EQ(-1, write(p[1], "x", 1));
	ASSERT_EQ(EPIPE, errno);
	ASSERT_TRUE(thread_pending(SIGPIPE));
	ASSERT_TRUE(take_signal(SIGPIPE, &direct));
	EXPECT_EQ(SI_USER, direct.si_code);
	EXPECT_EQ(getpid(), direct.si_pid);

	async_prep(&e, __NR_write, p[1], async_ptr("x"), 1, 0, 0, 0);
	entry_raises(_metadata, variant->flags, &e, -EPIPE, SIGPIPE, &direct);
	close(p[1]);
}

TEST_F(raise, sigpipe_for_socket_send)
{
	struct async_syscall e = {};
	siginfo_t direct;
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	close(sv[1]);
	ASSERT_EQ(-1, send(sv[0], "x", 1, 0));
	ASSERT_EQ(EPIPE, errno);
	ASSERT_TRUE(take_signal(SIGPIPE, &direct));

	async_prep(&e, __NR_sendto, sv[0], async_ptr("x"), 1, 0, 0, 0);
	entry_raises(_metadata, variant->flags, &e, -EPIPE, SIGPIPE, &direct);
	close(sv[0]);
}

/* MSG_NOSIGNAL and SIG_IGN keep their meaning. */
TEST_F(raise, no_sigpipe_when_not_wanted)
{
	struct async_syscall e[2] = {};
	sigset_t set;
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	close(sv[1]);
	async_prep(&e[0], __NR_sendto, sv[0], async_ptr("x"), 1,
		   MSG_NOSIGNAL, 0, 0);
	e[0].flags |= variant->flags;
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(-EPIPE, e[0].result);
	ASSERT_EQ(0, sigpending(&set));
	ASSERT_FALSE(sigismember(&set, SIGPIPE));

	/* Blocked, a signal is queued even when ignored: the direct call's too. */
	ASSERT_NE(SIG_ERR, signal(SIGPIPE, SIG_IGN));
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	ASSERT_EQ(0, pthread_sigmask(SIG_UNBLOCK, &set, NULL));
	async_prep(&e[1], __NR_write, sv[0], async_ptr("x"), 1, 0, 0, 0);
	e[1].flags |= variant->flags;
	ASSERT_EQ(1, async_submit(&e[1], 1, ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(-EPIPE, e[1].result);
	ASSERT_EQ(0, sigpending(&set));
	ASSERT_FALSE(sigismember(&set, SIGPIPE));
	close(sv[0]);
}

TEST_F(raise, sigxfsz_past_the_file_size_limit)
{
	struct rlimit rl = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
	struct async_syscall e = {};
	siginfo_t direct;

	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &rl));
	ASSERT_EQ(-1, pwrite(self->fd, "x", 1, 4096));
	ASSERT_EQ(EFBIG, errno);
	ASSERT_TRUE(take_signal(SIGXFSZ, &direct));

	async_prep(&e, __NR_pwrite64, self->fd, async_ptr("x"), 1, 4096, 0, 0);
	entry_raises(_metadata, variant->flags, &e, -EFBIG, SIGXFSZ, &direct);
}

struct thread_write {
	int fd;
	__u32 flags;
	long result;
	bool pending;
};

static void *write_in_thread(void *arg)
{
	struct thread_write *t = arg;
	struct async_syscall e = {};

	async_prep(&e, __NR_write, t->fd, async_ptr("x"), 1, 0, 0, 0);
	e.flags = t->flags;
	if (async_submit(&e, 1, ASYNC_SUBMIT_WAIT) == 1)
		t->result = e.result;
	t->pending = thread_pending(SIGPIPE);
	return NULL;
}

/* The signal goes to the thread that submitted, not to another one. */
TEST_F(raise, sigpipe_for_the_submitting_thread)
{
	struct thread_write t = { .flags = variant->flags };
	pthread_t thread;
	sigset_t set;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	close(p[0]);
	t.fd = p[1];
	ASSERT_EQ(0, pthread_create(&thread, NULL, write_in_thread, &t));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-EPIPE, t.result);
	ASSERT_TRUE(t.pending);
	ASSERT_FALSE(thread_pending(SIGPIPE));
	ASSERT_EQ(0, sigpending(&set));
	ASSERT_FALSE(sigismember(&set, SIGPIPE));
	close(p[1]);
}

/* A worker of this process asleep in system call @nr, or -1. */
static pid_t find_worker_in(long nr)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	char path[300], buf[512], want[16];
	struct dirent *d;
	pid_t tid = -1;
	DIR *dir;

	snprintf(want, sizeof(want), "async-wrk-%d", getpid());
	do {
		dir = opendir("/proc/self/task");
		while (dir && tid < 0 && (d = readdir(dir))) {
			snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
				 d->d_name);
			if (d->d_name[0] == '.' ||
			    read_small(path, buf, sizeof(buf)) <= 0 ||
			    strncmp(buf, want, strlen(want)))
				continue;
			snprintf(path, sizeof(path),
				 "/proc/self/task/%s/syscall", d->d_name);
			if (read_small(path, buf, sizeof(buf)) > 0 &&
			    buf[0] != 'r' && strtol(buf, NULL, 10) == nr)
				tid = atoi(d->d_name);
		}
		if (dir)
			closedir(dir);
		if (tid < 0)
			sleep_ms(POLL_MS);
	} while (tid < 0 && now_ns() < end);
	return tid;
}

struct flood {
	pid_t tid;
	bool stop;
	unsigned long sent;
};

static void *flood_worker(void *arg)
{
	struct flood *f = arg;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		if (syscall(__NR_tgkill, getpid(), f->tid, SIGRTMIN))
			break;
		f->sent++;
	}
	return NULL;
}

/*
 * What others send to a worker's id is not passed on: not the signal a
 * test sends it, and not a flood of one the process ignores, which would
 * keep the worker passing them on instead of finishing the entry.
 */
TEST_F(raise, signals_sent_to_a_worker_are_dropped)
{
	struct flood f[2] = {};
	struct async_syscall e = {};
	pthread_t threads[2];
	sigset_t set;
	int p[2], i;
	char c;

	if (variant->flags != ASYNC_SYSCALL_FORCE_ASYNC)
		SKIP(return, "a blocked read goes to a worker either way");
	ASSERT_EQ(0, pipe(p));
	ASSERT_NE(SIG_ERR, signal(SIGRTMIN, SIG_IGN));
	async_prep_read(&e, p[0], &c, 1);
	e.flags |= variant->flags;
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	f[0].tid = find_worker_in(__NR_read);
	ASSERT_LT(0, f[0].tid);
	ASSERT_EQ(0, syscall(__NR_tgkill, getpid(), f[0].tid, SIGPIPE));
	f[1].tid = f[0].tid;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, flood_worker,
					    &f[i]));
	sleep_ms(50);
	ASSERT_EQ(1, write(p[1], "a", 1));
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S));
	for (i = 0; i < 2; i++) {
		__atomic_store_n(&f[i].stop, true, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(threads[i], NULL));
	}
	ASSERT_EQ(1, e.result);
	ASSERT_LT(0, f[0].sent + f[1].sent);
	ASSERT_FALSE(thread_pending(SIGPIPE));
	ASSERT_EQ(0, sigpending(&set));
	ASSERT_FALSE(sigismember(&set, SIGPIPE));
	close(p[0]);
	close(p[1]);
}

TEST_HARNESS_MAIN
