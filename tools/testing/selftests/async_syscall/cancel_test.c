// SPDX-License-Identifier: GPL-2.0
/*
 * ASYNC_SUBMIT_CANCEL: entries of earlier calls, named by their addresses,
 * that have not started complete with -ECANCELED; a running one is
 * interrupted and completes with -EINTR; the call returns how many entries
 * it cancelled or interrupted, and ignores the ones not in flight.
 *
 * Each test runs in a process of its own (the harness forks), so workers
 * start from none.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define LONG_SLEEP_S	10

static const struct timespec long_sleep = { LONG_SLEEP_S, 0 };

#define ASSERT_RESULT(res, e) do { \
	struct async_syscall *__e = (e); \
	\
	ASSERT_EQ(0, wait_done(__e, WAIT_TIMEOUT_S)) TH_LOG("no completion"); \
	ASSERT_EQ((__s64)(res), __e->result) \
		TH_LOG("result %lld (%s)", (long long)__e->result, \
		       __e->result < 0 ? strerror(-__e->result) : "-"); \
} while (0)

/* Nothing is left to read in @fd. */
static bool pipe_empty(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 0;
}

TEST(running_read_interrupted)
{
	struct async_syscall e;
	char c = 0;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	async_prep_read(&e, p[0], &c, 1);
	poison(&e);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));

	ASSERT_EQ(1, async_cancel(&e, 1)) TH_LOG("%s", strerror(errno));
	ASSERT_RESULT(-EINTR, &e);

	/* The interrupted read took nothing from the pipe. */
	ASSERT_EQ(1, write(p[1], "k", 1));
	ASSERT_EQ(1, read(p[0], &c, 1));
	ASSERT_EQ('k', c);
	close(p[0]);
	close(p[1]);
}

TEST(chain_sleep_then_read)
{
	struct async_syscall e[2];
	char c;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	async_prep_nanosleep(&e[0], &long_sleep);
	async_prep_read(&e[1], p[0], &c, 1);
	async_chain(e, 2);
	poison(&e[0]);
	poison(&e[1]);
	ASSERT_EQ(2, async_submit(e, 2, 0));
	ASSERT_EQ(0, wait_blocked(__NR_nanosleep, 1));

	/* One interrupted, one never started. */
	ASSERT_EQ(2, async_cancel(e, 2)) TH_LOG("%s", strerror(errno));
	ASSERT_RESULT(-EINTR, &e[0]);
	ASSERT_RESULT(-ECANCELED, &e[1]);
	close(p[0]);
	close(p[1]);
}

/* Cancel only the first entry of a chain: the chain rules do the rest. */
TEST(first_of_chain)
{
	struct async_syscall e[3];
	char buf[4];
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC | O_NONBLOCK));
	async_prep_nanosleep(&e[0], &long_sleep);
	async_prep_write(&e[1], p[1], "a", 1);
	async_run_anyway(&e[1]);
	async_prep_write(&e[2], p[1], "b", 1);
	async_chain(e, 3);
	for (int i = 0; i < 3; i++)
		poison(&e[i]);
	ASSERT_EQ(3, async_submit(e, 3, 0));
	ASSERT_EQ(0, wait_blocked(__NR_nanosleep, 1));

	ASSERT_EQ(1, async_cancel(&e[0], 1)) TH_LOG("%s", strerror(errno));
	ASSERT_RESULT(-EINTR, &e[0]);
	ASSERT_RESULT(1, &e[1]);
	ASSERT_RESULT(-ECANCELED, &e[2]);
	ASSERT_EQ(1, read(p[0], buf, sizeof(buf)));
	ASSERT_EQ('a', buf[0]);
	close(p[0]);
	close(p[1]);
}

/* A part of one submission: the entries in the range and no others. */
TEST(sub_range)
{
	struct async_syscall e[4];
	char buf[4];
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	for (int i = 0; i < 4; i++) {
		async_prep_read(&e[i], p[0], &buf[i], 1);
		poison(&e[i]);
	}
	ASSERT_EQ(4, async_submit(e, 4, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 4));

	ASSERT_EQ(2, async_cancel(&e[1], 2)) TH_LOG("%s", strerror(errno));
	ASSERT_RESULT(-EINTR, &e[1]);
	ASSERT_RESULT(-EINTR, &e[2]);
	ASSERT_FALSE(async_done(&e[0]));
	ASSERT_FALSE(async_done(&e[3]));

	ASSERT_EQ(2, write(p[1], "xy", 2));
	ASSERT_RESULT(1, &e[0]);
	ASSERT_RESULT(1, &e[3]);
	close(p[0]);
	close(p[1]);
}

/* Workers this test allows itself, through RLIMIT_NPROC. */
#define FEW_WORKERS	4
#define QUEUED		3

TEST(queued_behind_busy_workers)
{
	struct rlimit rl = { FEW_WORKERS, FEW_WORKERS };
	struct async_syscall busy[FEW_WORKERS], queued[QUEUED];
	char buf[FEW_WORKERS];
	int a[2], b[2], blocked;

	/* Root creates threads past RLIMIT_NPROC; the worker cap still holds. */
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, setrlimit(RLIMIT_NPROC, &rl));
	ASSERT_EQ(0, pipe2(a, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(b, O_CLOEXEC | O_NONBLOCK));
	for (int i = 0; i < FEW_WORKERS; i++) {
		async_prep_read(&busy[i], a[0], &buf[i], 1);
		poison(&busy[i]);
	}
	ASSERT_EQ(FEW_WORKERS, async_submit(busy, FEW_WORKERS, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, FEW_WORKERS));
	ASSERT_EQ(FEW_WORKERS, scan_workers(getpid(), getpid(), __NR_read,
					    &blocked));

	/* No worker is free for these: they wait in the queue. */
	for (int i = 0; i < QUEUED; i++) {
		async_prep_write(&queued[i], b[1], "q", 1);
		poison(&queued[i]);
	}
	ASSERT_EQ(QUEUED, async_submit(queued, QUEUED, 0));
	ASSERT_EQ(QUEUED, async_cancel(queued, QUEUED))
		TH_LOG("%s", strerror(errno));

	/* Free the workers; they find the queued entries cancelled. */
	ASSERT_EQ(FEW_WORKERS, write(a[1], "1234", FEW_WORKERS));
	for (int i = 0; i < FEW_WORKERS; i++)
		ASSERT_RESULT(1, &busy[i]);
	for (int i = 0; i < QUEUED; i++)
		ASSERT_RESULT(-ECANCELED, &queued[i]);
	ASSERT_TRUE(pipe_empty(b[0]));
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

TEST(not_in_flight_ignored)
{
	struct timespec zero = { 0, 0 };
	struct async_syscall e[2], never[2];
	char c;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	/* e[0] completed, e[1] still blocked, from two submissions. */
	async_prep_nanosleep(&e[0], &zero);
	ASSERT_EQ(1, async_submit(&e[0], 1, ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(0, e[0].result);
	async_prep_read(&e[1], p[0], &c, 1);
	poison(&e[1]);
	ASSERT_EQ(1, async_submit(&e[1], 1, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));

	/* Never submitted at all. */
	async_prep_read(&never[0], p[0], &c, 1);
	async_prep_read(&never[1], p[0], &c, 1);
	ASSERT_EQ(0, async_cancel(never, 2)) TH_LOG("%s", strerror(errno));

	ASSERT_EQ(1, async_cancel(e, 2)) TH_LOG("%s", strerror(errno));
	ASSERT_RESULT(-EINTR, &e[1]);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[0].done);
	ASSERT_EQ(0, e[0].result);

	/* Both completed now. */
	ASSERT_EQ(0, async_cancel(e, 2));
	ASSERT_EQ(0, e[0].result);
	ASSERT_EQ(-EINTR, e[1].result);
	close(p[0]);
	close(p[1]);
}

static void *cancel_thread(void *p)
{
	return (void *)async_cancel(p, 1);
}

/* Entries belong to the process: another thread may cancel them. */
TEST(from_another_thread)
{
	struct async_syscall e;
	pthread_t t;
	void *ret;
	char c;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	async_prep_read(&e, p[0], &c, 1);
	poison(&e);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, cancel_thread, &e));
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(1, (long)ret);
	ASSERT_RESULT(-EINTR, &e);
	close(p[0]);
	close(p[1]);
}

static int cancel_in_child(void *p)
{
	/* The parent's entry is not this process's. */
	return async_cancel(p, 1) == 0 ? 0 : 1;
}

/* A forked child has nothing in flight, even at the same addresses. */
TEST(not_from_a_child)
{
	struct async_syscall e;
	int status = 0;
	char c;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	async_prep_read(&e, p[0], &c, 1);
	poison(&e);
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_EQ(0, run_child(cancel_in_child, &e, &status, NULL));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* Still blocked here, and still ours to cancel. */
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_FALSE(async_done(&e));
	ASSERT_EQ(1, async_cancel(&e, 1)) TH_LOG("%s", strerror(errno));
	ASSERT_RESULT(-EINTR, &e);
	close(p[0]);
	close(p[1]);
}

TEST_HARNESS_MAIN
