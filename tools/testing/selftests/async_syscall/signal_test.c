// SPDX-License-Identifier: GPL-2.0
/*
 * Job control and the other ways a worker is interrupted: a stop pauses an
 * entry, which then restarts as the call would in the submitter, and the
 * rest of its chain runs; 32-bit entry points do not have the call.  A
 * signal that runs no handler does not end the wait of ASYNC_SUBMIT_WAIT.
 *
 * The submitting process is a child, which the test stops and continues.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#ifdef __x86_64__
#define X32_SYSCALL_BIT	0x40000000
#endif

struct stopped {
	int a[2];		/* the chain's first read */
	int b[2];		/* its second read */
	int go[2];		/* the child has submitted */
	pid_t pid;
};

/* Waits until child @pid has a worker asleep in system call @nr. */
static int wait_child_blocked(pid_t pid, long nr)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	int blocked;

	do {
		if (scan_workers(pid, pid, nr, &blocked) > 0 && blocked > 0)
			return 0;
		sleep_ms(POLL_MS);
	} while (now_ns() < end);
	return -ETIMEDOUT;
}

/*
 * Waits until thread @tid sleeps in system call @nr: a restarted wait is
 * in __NR_restart_syscall.
 */
static int wait_thread_in(pid_t tid, long nr)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	char path[64], buf[512], *p;

	do {
		snprintf(path, sizeof(path), "/proc/%d/stat", tid);
		p = read_small(path, buf, sizeof(buf)) > 0 ?
		    strrchr(buf, ')') : NULL;
		snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
		if (p && p[1] == ' ' && p[2] == 'S' &&
		    read_small(path, buf, sizeof(buf)) > 0 && buf[0] != 'r' &&
		    strtol(buf, NULL, 10) == nr)
			return 0;
		sleep_ms(POLL_MS);
	} while (now_ns() < end);
	return -ETIMEDOUT;
}

/* Stops child @pid, waits until it is stopped, and continues it. */
static int stop_then_continue(pid_t pid)
{
	int status;

	if (kill(pid, SIGSTOP))
		return -errno;
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		return -ECHILD;
	return kill(pid, SIGCONT) ? -errno : 0;
}

/* As stop_then_continue(), and waits until it runs again. */
static int stop_and_continue(pid_t pid)
{
	int status;

	if (stop_then_continue(pid))
		return -ECHILD;
	if (waitpid(pid, &status, WCONTINUED) != pid || !WIFCONTINUED(status))
		return -ECHILD;
	return 0;
}

FIXTURE(stopped) {
	struct stopped s;
};

FIXTURE_SETUP(stopped)
{
	ASSERT_EQ(0, pipe(self->s.a));
	ASSERT_EQ(0, pipe(self->s.b));
	ASSERT_EQ(0, pipe(self->s.go));
	self->s.pid = -1;
}

FIXTURE_TEARDOWN(stopped)
{
	if (self->s.pid > 0) {
		kill(self->s.pid, SIGKILL);
		waitpid(self->s.pid, NULL, 0);
	}
}

static void read_chain_child(struct stopped *s)
{
	struct async_syscall e[2] = {};
	char buf[2];

	async_prep_read(&e[0], s->a[0], &buf[0], 1);
	async_prep_read(&e[1], s->b[0], &buf[1], 1);
	async_chain(e, 2);
	CHILD_ASSERT(async_submit(e, 2, 0) == 2);
	CHILD_ASSERT(write(s->go[1], "s", 1) == 1);
	CHILD_ASSERT(!wait_all_done(e, 2, WAIT_TIMEOUT_S * 2));
	if (e[0].result != 1 || e[1].result != 1) {
		fprintf(stderr, "# results %lld %lld\n", (long long)e[0].result,
			(long long)e[1].result);
		_exit(1);
	}
	_exit(0);
}

/*
 * A read blocked when the process is stopped goes on reading once it is
 * continued, and the next entry of its chain runs: a stop is a pause.
 */
TEST_F(stopped, blocked_read_restarts)
{
	int status;
	char c;

	self->s.pid = fork();
	ASSERT_LE(0, self->s.pid);
	if (!self->s.pid)
		read_chain_child(&self->s);

	ASSERT_EQ(1, read(self->s.go[0], &c, 1));
	ASSERT_EQ(0, wait_child_blocked(self->s.pid, __NR_read));
	ASSERT_EQ(0, stop_and_continue(self->s.pid));
	ASSERT_EQ(1, write(self->s.a[1], "a", 1));
	/* The second read blocks too; stop the process there again. */
	ASSERT_EQ(0, wait_child_blocked(self->s.pid, __NR_read));
	ASSERT_EQ(0, stop_and_continue(self->s.pid));
	ASSERT_EQ(1, write(self->s.b[1], "b", 1));

	ASSERT_EQ(0, wait_child(self->s.pid, CHILD_TIMEOUT_S, &status));
	self->s.pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

static void nanosleep_child(struct stopped *s)
{
	struct timespec ts = { 1, 0 };
	struct async_syscall e = {};

	async_prep_nanosleep(&e, &ts);
	/* On a worker: a timer would not stop with the process. */
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	CHILD_ASSERT(async_submit(&e, 1, 0) == 1);
	CHILD_ASSERT(write(s->go[1], "s", 1) == 1);
	CHILD_ASSERT(!wait_done(&e, WAIT_TIMEOUT_S));
	if (e.result) {
		fprintf(stderr, "# result %lld\n", (long long)e.result);
		_exit(1);
	}
	_exit(0);
}

/* A sleep stopped halfway sleeps on through its restart block. */
TEST_F(stopped, nanosleep_restarts)
{
	int status;
	char c;

	self->s.pid = fork();
	ASSERT_LE(0, self->s.pid);
	if (!self->s.pid)
		nanosleep_child(&self->s);

	ASSERT_EQ(1, read(self->s.go[0], &c, 1));
	ASSERT_EQ(0, wait_child_blocked(self->s.pid, __NR_nanosleep));
	ASSERT_EQ(0, stop_and_continue(self->s.pid));

	ASSERT_EQ(0, wait_child(self->s.pid, CHILD_TIMEOUT_S, &status));
	self->s.pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * A child that waits with ASYNC_SUBMIT_WAIT @flags for a read of pipe a,
 * which the test stops and continues twice: the call returns 1 once the
 * read is done, as a direct read() would have gone on.
 */
static void wait_child_main(struct stopped *s, unsigned int flags)
{
	struct async_syscall e = {};
	long ret;
	char c;

	async_prep_read(&e, s->a[0], &c, 1);
	CHILD_ASSERT(write(s->go[1], "s", 1) == 1);
	ret = async_submit(&e, 1, ASYNC_SUBMIT_WAIT | flags);
	if (ret != 1 || e.done != ASYNC_SYSCALL_DONE || e.result != 1) {
		fprintf(stderr, "# returned %ld (%s), done %u, result %lld\n",
			ret, ret < 0 ? strerror(errno) : "-", e.done,
			(long long)e.result);
		_exit(1);
	}
	_exit(0);
}

static void wait_goes_on(struct __test_metadata *_metadata,
			 struct stopped *s, unsigned int flags)
{
	int status;
	char c;

	s->pid = fork();
	ASSERT_LE(0, s->pid);
	if (!s->pid)
		wait_child_main(s, flags);

	ASSERT_EQ(1, read(s->go[0], &c, 1));
	ASSERT_EQ(0, wait_child_blocked(s->pid, __NR_read));
	ASSERT_EQ(0, stop_and_continue(s->pid));
	/* Back in its wait, restarted: once more. */
	ASSERT_EQ(0, wait_thread_in(s->pid, __NR_restart_syscall));
	ASSERT_EQ(0, stop_and_continue(s->pid));
	ASSERT_EQ(0, wait_thread_in(s->pid, __NR_restart_syscall));
	ASSERT_EQ(1, write(s->a[1], "a", 1));

	ASSERT_EQ(0, wait_child(s->pid, CHILD_TIMEOUT_S, &status));
	s->pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_F(stopped, wait_goes_on_after_stop)
{
	wait_goes_on(_metadata, &self->s, 0);
}

TEST_F(stopped, marked_wait_goes_on_after_stop)
{
	wait_goes_on(_metadata, &self->s, ASYNC_SUBMIT_WAKE_MARKED);
}

struct unmapper {
	int fd, done_fd;
	void *page;
};

static void *unmap_later(void *arg)
{
	struct unmapper *u = arg;
	char c;

	if (read(u->fd, &c, 1) == 1 && !munmap(u->page, getpagesize()))
		c = 'u';
	else
		c = 'x';
	if (write(u->done_fd, &c, 1) != 1)
		return NULL;
	return NULL;
}

/*
 * The restarted wait waits for its batch, not for the done words: with
 * the entries unmapped meanwhile, their completion is lost, and the call
 * still returns once the entries are done.
 */
static void restarted_wait_ends_with_batch(struct __test_metadata *_metadata,
					   struct stopped *s,
					   unsigned int flags)
{
	struct unmapper u = { .fd = s->b[0], .done_fd = s->go[1] };
	struct async_syscall *e;
	pthread_t thread;
	int status;
	long ret;
	char c;

	s->pid = fork();
	ASSERT_LE(0, s->pid);
	if (!s->pid) {
		u.page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHILD_ASSERT(u.page != MAP_FAILED);
		CHILD_ASSERT(!pthread_create(&thread, NULL, unmap_later, &u));
		e = u.page;
		async_prep_read(e, s->a[0], &c, 1);
		CHILD_ASSERT(write(s->go[1], "s", 1) == 1);
		ret = async_submit(e, 1, ASYNC_SUBMIT_WAIT | flags);
		if (ret != 1) {
			fprintf(stderr, "# returned %ld (%s)\n", ret,
				ret < 0 ? strerror(errno) : "-");
			_exit(1);
		}
		_exit(0);
	}

	ASSERT_EQ(1, read(s->go[0], &c, 1));
	ASSERT_EQ(0, wait_child_blocked(s->pid, __NR_read));
	ASSERT_EQ(0, stop_and_continue(s->pid));
	ASSERT_EQ(0, wait_thread_in(s->pid, __NR_restart_syscall));
	ASSERT_EQ(1, write(s->b[1], "u", 1));
	ASSERT_EQ(1, read(s->go[0], &c, 1));
	ASSERT_EQ('u', c);
	/* The read completes into the unmapped entry. */
	ASSERT_EQ(1, write(s->a[1], "a", 1));

	ASSERT_EQ(0, wait_child(s->pid, CHILD_TIMEOUT_S, &status));
	s->pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_F(stopped, restarted_wait_ends_with_unmapped_batch)
{
	restarted_wait_ends_with_batch(_metadata, &self->s, 0);
}

TEST_F(stopped, restarted_marked_wait_ends_with_unmapped_batch)
{
	restarted_wait_ends_with_batch(_metadata, &self->s,
				       ASYNC_SUBMIT_WAKE_MARKED);
}

/*
 * A sleep on a timer completes while its waiter is stopped, and the entry
 * is pending again (submitted anew, or changed by whoever shares the
 * memory) before the waiter continues: the restarted wait ends, as its
 * batch is done, and does not wait for what the array holds now.
 */
static void restarted_wait_ignores_reuse(struct __test_metadata *_metadata,
					 struct stopped *s, unsigned int flags)
{
	struct timespec ts = { 1, 0 };
	struct async_syscall *e;
	int64_t end;
	int status;
	long ret;

	e = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	s->pid = fork();
	ASSERT_LE(0, s->pid);
	if (!s->pid) {
		async_prep_nanosleep(e, &ts);
		ret = async_submit(e, 1, ASYNC_SUBMIT_WAIT | flags);
		if (ret != 1) {
			fprintf(stderr, "# returned %ld (%s)\n", ret,
				ret < 0 ? strerror(errno) : "-");
			_exit(1);
		}
		_exit(0);
	}

	ASSERT_EQ(0, wait_thread_in(s->pid, __NR_async_submit));
	ASSERT_EQ(0, kill(s->pid, SIGSTOP));
	ASSERT_EQ(s->pid, waitpid(s->pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_NE(ASYNC_SYSCALL_DONE, e->done) TH_LOG("slept before the stop");
	end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	while (!async_done(e) && now_ns() < end)
		sleep_ms(POLL_MS);
	ASSERT_TRUE(async_done(e));
	ASSERT_EQ(0, e->result);
	__atomic_store_n(&e->done, ASYNC_SYSCALL_PENDING, __ATOMIC_RELEASE);
	ASSERT_EQ(0, kill(s->pid, SIGCONT));

	ASSERT_EQ(0, wait_child(s->pid, CHILD_TIMEOUT_S, &status));
	s->pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	munmap(e, getpagesize());
}

TEST_F_TIMEOUT(stopped, restarted_wait_ignores_reused_entry,
	       CHILD_TIMEOUT_S + 10)
{
	restarted_wait_ignores_reuse(_metadata, &self->s, 0);
}

TEST_F_TIMEOUT(stopped, restarted_marked_wait_ignores_reused_entry,
	       CHILD_TIMEOUT_S + 10)
{
	restarted_wait_ignores_reuse(_metadata, &self->s,
				     ASYNC_SUBMIT_WAKE_MARKED);
}

/* A sleep on a timer that ends while its wait has restarted ends it. */
TEST_F(stopped, timer_ends_restarted_wait)
{
	struct timespec ts = { 1, 0 };
	struct async_syscall e = {};
	int status;
	long ret;

	self->s.pid = fork();
	ASSERT_LE(0, self->s.pid);
	if (!self->s.pid) {
		async_prep_nanosleep(&e, &ts);
		ret = async_submit(&e, 1, ASYNC_SUBMIT_WAIT);
		_exit(ret == 1 && async_done(&e) && !e.result ? 0 : 1);
	}

	ASSERT_EQ(0, wait_thread_in(self->s.pid, __NR_async_submit));
	ASSERT_EQ(0, stop_and_continue(self->s.pid));
	ASSERT_EQ(0, wait_thread_in(self->s.pid, __NR_restart_syscall));

	ASSERT_EQ(0, wait_child(self->s.pid, CHILD_TIMEOUT_S, &status));
	self->s.pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

static void note_signal(int sig)
{
}

/*
 * A handler that interrupts the restarted wait makes the call fail with
 * EINTR, as it would the first wait; the entry goes on.
 */
TEST_F(stopped, handler_ends_restarted_wait)
{
	struct sigaction sa = { .sa_handler = note_signal };
	struct async_syscall e = {};
	int status;
	long ret;
	char c;

	self->s.pid = fork();
	ASSERT_LE(0, self->s.pid);
	if (!self->s.pid) {
		CHILD_ASSERT(!sigaction(SIGUSR1, &sa, NULL));
		async_prep_read(&e, self->s.a[0], &c, 1);
		CHILD_ASSERT(write(self->s.go[1], "s", 1) == 1);
		ret = async_submit(&e, 1, ASYNC_SUBMIT_WAIT);
		CHILD_ASSERT(ret == -1 && errno == EINTR);
		CHILD_ASSERT(write(self->s.go[1], "i", 1) == 1);
		CHILD_ASSERT(!wait_done(&e, WAIT_TIMEOUT_S));
		_exit(e.result == 1 && c == 'a' ? 0 : 1);
	}

	ASSERT_EQ(1, read(self->s.go[0], &c, 1));
	ASSERT_EQ(0, wait_child_blocked(self->s.pid, __NR_read));
	ASSERT_EQ(0, stop_and_continue(self->s.pid));
	ASSERT_EQ(0, wait_thread_in(self->s.pid, __NR_restart_syscall));
	ASSERT_EQ(0, kill(self->s.pid, SIGUSR1));
	ASSERT_EQ(1, read(self->s.go[0], &c, 1));
	ASSERT_EQ('i', c);
	ASSERT_EQ(1, write(self->s.a[1], "a", 1));

	ASSERT_EQ(0, wait_child(self->s.pid, CHILD_TIMEOUT_S, &status));
	self->s.pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

struct waiter {
	int fd;
	long ret;
	int err;
};

static void *wait_read(void *arg)
{
	struct waiter *w = arg;
	struct async_syscall e = {};
	char c;

	async_prep_read(&e, w->fd, &c, 1);
	w->ret = async_submit(&e, 1, ASYNC_SUBMIT_WAIT);
	w->err = errno;
	return NULL;
}

/*
 * A SIGCHLD that the main thread blocks is not ignored, and goes to the
 * thread that waits, which finds it ignored: glibc's pthread_create()
 * blocks every signal for a moment, which is how the fuzzer met it.  The
 * wait goes on, as a futex wait would.
 */
TEST(ignored_signal_does_not_end_wait)
{
	struct waiter w = { .ret = -2 };
	pthread_t thread;
	int64_t end;
	sigset_t set;
	int p[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	w.fd = p[0];
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_read, &w));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	/* Blocked here only: the waiting thread has the old mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	ASSERT_EQ(0, pthread_sigmask(SIG_BLOCK, &set, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	/* The waiting thread takes it. */
	end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	do {
		ASSERT_EQ(0, sigpending(&set));
		if (!sigismember(&set, SIGCHLD))
			break;
		sleep_ms(POLL_MS);
	} while (now_ns() < end);
	ASSERT_FALSE(sigismember(&set, SIGCHLD));
	ASSERT_EQ(1, write(p[1], "a", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(1, w.ret) TH_LOG("returned %ld (%s)", w.ret,
				   strerror(w.err));
}

/* x32 callers have no async_submit(): only the x86_64 table has it. */
TEST(x32_number_is_enosys)
{
#ifdef X32_SYSCALL_BIT
	long ret = syscall(__NR_async_submit | X32_SYSCALL_BIT, NULL, 0, 0,
			   ASYNC_SUBMIT_ABI_VERSION);

	ASSERT_EQ(-1, ret);
	ASSERT_EQ(ENOSYS, errno);
#else
	SKIP(return, "x32 is an x86_64 ABI");
#endif
}

/*
 * A write() that faults leaves an empty buffer in the pipe.  splice() to
 * a socket used to return -ERESTARTSYS for such a pipe with no signal
 * pending: errno 512 for the system call, and a spurious -EINTR for an
 * entry, found by the fuzzer.  It is an empty pipe: -EAGAIN without
 * waiting, and a wait for data otherwise.
 */
TEST(splice_after_faulted_pipe_write)
{
	struct async_syscall e;
	int p[2], sv[2];
	void *bad;

	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bad);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	ASSERT_EQ(-1, write(p[1], bad, 4096));
	ASSERT_EQ(EFAULT, errno);

	EXPECT_EQ(-1, splice(p[0], NULL, sv[0], NULL, 4096, SPLICE_F_NONBLOCK));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("splice: errno %d", errno);

	async_prep(&e, __NR_splice, p[0], 0, sv[0], 0, 4096, SPLICE_F_NONBLOCK);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	EXPECT_EQ(-EAGAIN, e.result);

	/* Blocking: waits for data, then moves it. */
	ASSERT_EQ(-1, write(p[1], bad, 4096));
	async_prep(&e, __NR_splice, p[0], 0, sv[0], 0, 4096, 0);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	sleep_ms(50);
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, e.done);
	ASSERT_EQ(3, write(p[1], "abc", 3));
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S));
	EXPECT_EQ(3, e.result);
	munmap(bad, 4096);
}

TEST_HARNESS_MAIN
