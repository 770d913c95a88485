// SPDX-License-Identifier: GPL-2.0
/*
 * ASYNC_OP_LINK_TIMEOUT: a timeout linked after an entry, its target,
 * cancels the target once the time is up, running on a worker or still
 * queued; it completes with -ETIME then, else with -ECANCELED; the chain
 * after it goes on as the target's result says.  Bad timeouts are refused
 * at submit, and exit, exec and SIGKILL with timeouts armed neither wait
 * for them nor leave entries pending.
 */

#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "async_test.h"

static const struct timespec short_ts = { .tv_nsec = 100 * 1000 * 1000 };
static const struct timespec long_ts = { .tv_sec = 60 };

FIXTURE(lt) {
	int p[2], q[2];
	char buf[8];
	struct async_syscall *e;	/* shared with children */
};

FIXTURE_SETUP(lt)
{
	ASSERT_EQ(0, pipe2(self->p, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(self->q, O_CLOEXEC));
	self->e = shared_page();
	ASSERT_NE(NULL, self->e);
}

FIXTURE_TEARDOWN(lt)
{
	close(self->p[0]);
	close(self->p[1]);
	close(self->q[0]);
	close(self->q[1]);
	munmap(self->e, 4096);
}

/* read(pipe p) -> link timeout @ts -> write(pipe q) */
static void prep_read_timeout_write(struct _test_data_lt *self,
				    const struct timespec *ts)
{
	async_prep_read(&self->e[0], self->p[0], self->buf, 1);
	async_prep_link_timeout(&self->e[1], ts);
	async_prep_write(&self->e[2], self->q[1], "w", 1);
	async_chain(self->e, 3);
}

/* A read blocked on a worker is interrupted; the chain after it fails. */
TEST_F(lt, fires_on_a_running_target)
{
	prep_read_timeout_write(self, &short_ts);
	ASSERT_EQ(3, async_submit(self->e, 3, 0));
	ASSERT_EQ(0, wait_all_done(self->e, 3, WAIT_TIMEOUT_S));
	ASSERT_EQ(-EINTR, self->e[0].result);
	ASSERT_EQ(-ETIME, self->e[1].result);
	ASSERT_EQ(-ECANCELED, self->e[2].result);
}

/* A target that completes in time stops the timer; the chain goes on. */
TEST_F(lt, target_first)
{
	ASSERT_EQ(1, write(self->p[1], "x", 1));
	prep_read_timeout_write(self, &long_ts);
	ASSERT_EQ(3, async_submit_wait(self->e, 3));
	ASSERT_EQ(1, self->e[0].result);
	ASSERT_EQ(-ECANCELED, self->e[1].result);
	ASSERT_EQ(1, self->e[2].result);

	/* The same on a worker, the data coming after the submit. */
	prep_read_timeout_write(self, &long_ts);
	self->e[0].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(3, async_submit(self->e, 3, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_EQ(1, write(self->p[1], "y", 1));
	ASSERT_EQ(0, wait_all_done(self->e, 3, WAIT_TIMEOUT_S));
	ASSERT_EQ(1, self->e[0].result);
	ASSERT_EQ('y', self->buf[0]);
	ASSERT_EQ(-ECANCELED, self->e[1].result);
	ASSERT_EQ(1, self->e[2].result);
}

/* A target whose chain failed before it never runs: nothing is armed. */
TEST_F(lt, target_never_reached)
{
	async_prep_read(&self->e[0], -1, self->buf, 1);
	async_prep_read(&self->e[1], self->p[0], self->buf, 1);
	async_prep_link_timeout(&self->e[2], &short_ts);
	async_chain(self->e, 3);
	ASSERT_EQ(3, async_submit_wait(self->e, 3));
	ASSERT_EQ(-EBADF, self->e[0].result);
	ASSERT_EQ(-ECANCELED, self->e[1].result);
	ASSERT_EQ(-ECANCELED, self->e[2].result);
}

/*
 * A target still queued, behind the one worker the process may have, is
 * cancelled before it starts: once the worker is free, it completes with
 * -ECANCELED, without running (its read would block), as any cancelled
 * entry that was queued does.
 */
static int queued_target(void *arg)
{
	struct _test_data_lt *self = arg;
	struct rlimit one = { 1, 1 };
	struct async_syscall *e = self->e;

	CHILD_ASSERT(!setrlimit(RLIMIT_NPROC, &one));
	/* The worker blocks on pipe q. */
	async_prep_read(&e[0], self->q[0], self->buf, 1);
	e[0].flags = ASYNC_SYSCALL_FORCE_ASYNC;
	CHILD_ASSERT(async_submit(e, 1, 0) == 1);
	CHILD_ASSERT(!wait_blocked(__NR_read, 1));
	async_prep_read(&e[1], self->p[0], self->buf + 1, 1);
	e[1].flags = ASYNC_SYSCALL_FORCE_ASYNC;
	async_prep_link_timeout(&e[2], &short_ts);
	async_chain(&e[1], 2);
	CHILD_ASSERT(async_submit(&e[1], 2, 0) == 2);
	sleep_ms(500);
	CHILD_ASSERT(async_pending(&e[0]) && async_pending(&e[1]));
	CHILD_ASSERT(write(self->q[1], "q", 1) == 1);
	CHILD_ASSERT(!wait_done(&e[0], WAIT_TIMEOUT_S));
	CHILD_ASSERT(e[0].result == 1);
	CHILD_ASSERT(!wait_all_done(&e[1], 2, WAIT_TIMEOUT_S));
	CHILD_ASSERT(e[1].result == -ECANCELED);
	CHILD_ASSERT(e[2].result == -ETIME);
	return 0;
}

TEST_F(lt, fires_on_a_queued_target)
{
	int status;

	ASSERT_EQ(0, run_child(queued_target, self, &status, NULL));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status 0x%x", status);
}

/* Cancelling the timeout entry leaves its target to run. */
TEST_F(lt, cancelled_timeout_leaves_the_target)
{
	prep_read_timeout_write(self, &short_ts);
	ASSERT_EQ(3, async_submit(self->e, 3, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_EQ(1, async_cancel(&self->e[1], 1));
	sleep_ms(300);
	ASSERT_TRUE(async_pending(&self->e[0]));
	ASSERT_EQ(1, write(self->p[1], "z", 1));
	ASSERT_EQ(0, wait_all_done(self->e, 3, WAIT_TIMEOUT_S));
	ASSERT_EQ(1, self->e[0].result);
	ASSERT_EQ(-ECANCELED, self->e[1].result);
	ASSERT_EQ(1, self->e[2].result);
}

/* What submit refuses: EINVAL at the entry, or EFAULT. */
TEST_F(lt, bad_timeouts_refused)
{
	struct timespec bad = { .tv_nsec = 1000 * 1000 * 1000 };

	/* First of its chain: no target. */
	async_prep_link_timeout(&self->e[0], &short_ts);
	ASSERT_EQ(-1, async_submit(self->e, 1, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, self->e[0].result);

	/* After another link timeout. */
	prep_read_timeout_write(self, &short_ts);
	async_prep_link_timeout(&self->e[2], &short_ts);
	ASSERT_EQ(-1, async_submit(self->e, 3, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, self->e[2].result);

	prep_read_timeout_write(self, &bad);
	ASSERT_EQ(-1, async_submit(self->e, 3, 0));
	ASSERT_EQ(EINVAL, errno);

	prep_read_timeout_write(self, &short_ts);
	self->e[1].args[1] = 1;		/* flags */
	ASSERT_EQ(-1, async_submit(self->e, 3, 0));
	ASSERT_EQ(EINVAL, errno);

	prep_read_timeout_write(self, &short_ts);
	async_ref(&self->e[1], 0, 0);
	ASSERT_EQ(-1, async_submit(self->e, 3, 0));
	ASSERT_EQ(EINVAL, errno);

	prep_read_timeout_write(self, NULL);
	ASSERT_EQ(-1, async_submit(self->e, 3, 0));
	ASSERT_EQ(EFAULT, errno);

	/* The probe says the same, entry by entry. */
	prep_read_timeout_write(self, &bad);
	ASSERT_EQ(0, async_submit(self->e, 3, ASYNC_SUBMIT_PROBE));
	ASSERT_EQ(0, self->e[0].result);
	ASSERT_EQ(-EINVAL, self->e[1].result);
	prep_read_timeout_write(self, &short_ts);
	ASSERT_EQ(0, async_submit(self->e, 3, ASYNC_SUBMIT_PROBE));
	ASSERT_EQ(0, self->e[1].result);
}

/* Wait until a worker of child @pid is asleep in read(). */
static int wait_child_blocked(pid_t pid)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	int blocked;

	do {
		if (scan_workers(pid, pid, __NR_read, &blocked) >= 0 &&
		    blocked >= 1)
			return 0;
		sleep_ms(POLL_MS);
	} while (now_ns() < end);
	return -ETIMEDOUT;
}

/*
 * A child with a timeout armed on a blocked read exits, execs, or is
 * killed: it does not wait the minute out, and every entry completes.
 */
static void armed_then(struct __test_metadata *_metadata,
		       struct _test_data_lt *self, int how)
{
	int status, i;
	pid_t pid;

	prep_read_timeout_write(self, &long_ts);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CHILD_ASSERT(async_submit(self->e, 3, 0) == 3);
		CHILD_ASSERT(!wait_blocked(__NR_read, 1));
		if (how == 1)
			execl("/bin/true", "true", (char *)NULL);
		if (how == 2)
			pause();
		_exit(0);
	}
	if (how == 2) {
		ASSERT_EQ(0, wait_child_blocked(pid));
		kill(pid, SIGKILL);
	}
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status));
	if (how != 2)
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("child status 0x%x", status);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(ASYNC_SYSCALL_DONE, self->e[i].done)
			TH_LOG("entry %d pending", i);
	ASSERT_NE(-ETIME, self->e[1].result);
	ASSERT_EQ(0, stray_workers(pid));
}

TEST_F(lt, exit_with_one_armed)
{
	armed_then(_metadata, self, 0);
}

TEST_F(lt, exec_with_one_armed)
{
	armed_then(_metadata, self, 1);
}

TEST_F(lt, sigkill_with_one_armed)
{
	armed_then(_metadata, self, 2);
}

TEST_HARNESS_MAIN
