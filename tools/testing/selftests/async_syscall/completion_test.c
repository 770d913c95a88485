// SPDX-License-Identifier: GPL-2.0
/*
 * The completion protocol: done words, their futex wakes, and
 * ASYNC_SUBMIT_WAKE_MARKED, where the kernel wakes only a word that a waiter
 * marked ASYNC_SYSCALL_WAITING.
 *
 * The entries are reads of an empty pipe, so that the test decides when
 * they complete.  The raw futex calls are spelled out here rather than
 * taken from libasync, because they are what is being tested.
 */

#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>

#include "async_test.h"
#include "../kselftest_harness.h"

struct sleeper {
	struct async_syscall *e;
	bool mark;		/* mark the word WAITING first */
	pid_t tid;
	int ret;		/* 0 if woken, else the wait's errno */
};

static int futex_wait(__u32 *word, __u32 val, int secs)
{
	struct timespec ts = { secs, 0 };

	if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0))
		return errno;
	return 0;
}

/* One futex wait on @s->e's done word, marked or not. */
static void *sleep_on_done(void *arg)
{
	struct sleeper *s = arg;
	__u32 val = ASYNC_SYSCALL_PENDING;

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_RELEASE);
	if (s->mark) {
		if (!__atomic_compare_exchange_n(&s->e->done, &val,
						 ASYNC_SYSCALL_WAITING, false,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_ACQUIRE)) {
			s->ret = EALREADY;
			return NULL;
		}
		val = ASYNC_SYSCALL_WAITING;
	}
	s->ret = futex_wait(&s->e->done, val, s->mark ? WAIT_TIMEOUT_S : 2);
	return NULL;
}

/*
 * Whether thread @tid sleeps in system call @sysnr, futex() or
 * futex_waitv(): queued on the futex, so that a wake it is owed cannot be
 * missed by a late arrival.
 */
static bool sleeps_in(pid_t tid, long sysnr)
{
	char path[64], buf[256];
	long nr = -1;
	char state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	if (nr != sysnr)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !strrchr(buf, ')'))
		return false;
	state = strrchr(buf, ')')[2];
	return state == 'S';
}

static void wait_until_asleep(struct __test_metadata *_metadata,
			      struct sleeper *s, long sysnr)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;

	while (!__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) ||
	       !sleeps_in(s->tid, sysnr)) {
		ASSERT_LT(now_ns(), end) TH_LOG("the sleeper never slept");
		sleep_ms(1);
	}
}

FIXTURE(completion) {
	int p[2];
	char buf[8];
	struct async_syscall e;
};

FIXTURE_SETUP(completion)
{
	ASSERT_EQ(0, pipe2(self->p, O_CLOEXEC));
	async_prep_read(&self->e, self->p[0], self->buf, sizeof(self->buf));
	poison(&self->e);
}

FIXTURE_TEARDOWN(completion)
{
	close(self->p[0]);
	close(self->p[1]);
}

/*
 * Submit the read @e of a pipe with @flags, let a thread sleep on its done
 * word, then write "ok" into the pipe's write end @wfd.
 */
static void start(struct __test_metadata *_metadata, struct async_syscall *e,
		  int wfd, unsigned int flags, struct sleeper *s)
{
	pthread_t thread;

	ASSERT_EQ(1, async_submit(e, 1, flags))
		TH_LOG("async_submit: %s", strerror(errno));
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, e->done);
	*s = (struct sleeper) { .e = e, .mark = s->mark };
	ASSERT_EQ(0, pthread_create(&thread, NULL, sleep_on_done, s));
	wait_until_asleep(_metadata, s, SYS_futex);
	ASSERT_EQ(2, write(wfd, "ok", 2));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e->done);
	ASSERT_EQ(2, e->result);
}

TEST_F(completion, marked_waiter_is_woken)
{
	struct sleeper s = { .mark = true };

	start(_metadata, &self->e, self->p[1], ASYNC_SUBMIT_WAKE_MARKED, &s);
	ASSERT_EQ(0, s.ret) TH_LOG("wait: %s", strerror(s.ret));
}

/* The saving itself: no FUTEX_WAKE for a word nobody marked. */
TEST_F(completion, unmarked_sleeper_is_not_woken)
{
	struct sleeper s = { .mark = false };

	start(_metadata, &self->e, self->p[1], ASYNC_SUBMIT_WAKE_MARKED, &s);
	ASSERT_EQ(ETIMEDOUT, s.ret) TH_LOG("wait: %s", strerror(s.ret));
}

/* Without the flag every completion wakes, so marking is always safe. */
TEST_F(completion, marked_waiter_without_the_flag)
{
	struct sleeper s = { .mark = true };

	start(_metadata, &self->e, self->p[1], 0, &s);
	ASSERT_EQ(0, s.ret) TH_LOG("wait: %s", strerror(s.ret));
}

TEST_F(completion, unmarked_sleeper_without_the_flag)
{
	struct sleeper s = { .mark = false };

	start(_metadata, &self->e, self->p[1], 0, &s);
	ASSERT_EQ(0, s.ret) TH_LOG("wait: %s", strerror(s.ret));
}

/* A waiter that comes after the completion finds DONE and never sleeps. */
TEST_F(completion, late_waiter)
{
	struct sleeper s = { .e = &self->e, .mark = true };

	ASSERT_EQ(1, async_submit(&self->e, 1, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(2, write(self->p[1], "ok", 2));
	while (__atomic_load_n(&self->e.done, __ATOMIC_ACQUIRE) !=
	       ASYNC_SYSCALL_DONE)
		sleep_ms(1);
	sleep_on_done(&s);
	ASSERT_EQ(EALREADY, s.ret);
	ASSERT_EQ(2, self->e.result);
	/* libasync's wait, the same way. */
	ASSERT_EQ(2, async_wait(&self->e, NULL));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->e.done);
}

/*
 * A waiter may mark an entry before it is submitted (another thread
 * submits it): with the flag the mark is kept, so the completion wakes it.
 */
static void mark_before_submit(struct __test_metadata *_metadata,
			       struct async_syscall *e, int wfd,
			       unsigned int flags, __u32 after_submit)
{
	struct sleeper s = { .e = e, .mark = true };
	pthread_t thread;

	e->done = ASYNC_SYSCALL_PENDING;
	ASSERT_EQ(0, pthread_create(&thread, NULL, sleep_on_done, &s));
	wait_until_asleep(_metadata, &s, SYS_futex);
	ASSERT_EQ(1, async_submit(e, 1, flags));
	ASSERT_EQ(after_submit, e->done);
	ASSERT_EQ(2, write(wfd, "ok", 2));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, s.ret) TH_LOG("wait: %s", strerror(s.ret));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e->done);
	ASSERT_EQ(2, e->result);
}

TEST_F(completion, mark_before_submit_is_kept)
{
	mark_before_submit(_metadata, &self->e, self->p[1],
			   ASYNC_SUBMIT_WAKE_MARKED, ASYNC_SYSCALL_WAITING);
}

/* Without the flag the word is reset, and every completion wakes. */
TEST_F(completion, mark_before_submit_without_the_flag)
{
	mark_before_submit(_metadata, &self->e, self->p[1], 0,
			   ASYNC_SYSCALL_PENDING);
}

/*
 * With the flag, the word of an entry that completes in the submitting
 * thread is not reset first: it goes from the mark straight to DONE, and
 * the waiter is woken.  The pipe holds data, so the read does not block.
 */
TEST_F(completion, mark_before_inline_completion)
{
	struct sleeper s = { .e = &self->e, .mark = true };
	pthread_t thread;

	ASSERT_EQ(2, write(self->p[1], "ok", 2));
	self->e.done = ASYNC_SYSCALL_PENDING;
	ASSERT_EQ(0, pthread_create(&thread, NULL, sleep_on_done, &s));
	wait_until_asleep(_metadata, &s, SYS_futex);
	ASSERT_EQ(1, async_submit(&self->e, 1, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->e.done);
	ASSERT_EQ(2, self->e.result);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, s.ret) TH_LOG("wait: %s", strerror(s.ret));
}

/*
 * Submit @n writes of one byte into the pipe @p, in an array of
 * @pages pages whose page @ro is read-only: EFAULT, and no write may have
 * run, though each would complete in the submitting thread.  Then again
 * with every page writable: all run.
 */
static void ro_page_runs_nothing(struct __test_metadata *_metadata,
				 const int *p, unsigned int pages, unsigned int ro,
				 unsigned int n, unsigned int flags)
{
	long page = sysconf(_SC_PAGESIZE);
	struct async_syscall *e;
	unsigned int i;
	char c[256];

	ASSERT_LE(n, sizeof(c));
	e = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	for (i = 0; i < n; i++)
		async_prep_write(&e[i], p[1], "x", 1);
	ASSERT_EQ(0, mprotect((char *)e + ro * page, page, PROT_READ));
	ASSERT_EQ(-1, async_submit(e, n, flags));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(0, fcntl(p[0], F_SETFL, O_NONBLOCK));
	ASSERT_EQ(-1, read(p[0], c, 1));
	ASSERT_EQ(EAGAIN, errno);

	ASSERT_EQ(0, mprotect(e, pages * page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(n, async_submit(e, n, ASYNC_SUBMIT_WAIT | flags));
	for (i = 0; i < n; i++)
		ASSERT_EQ(1, e[i].result);
	ASSERT_EQ(n, read(p[0], c, sizeof(c)));
	ASSERT_EQ(0, munmap(e, pages * page));
}

/*
 * With the flag the done words are not all written at submit, yet a
 * read-only page in the middle of the array still runs nothing.
 */
TEST_F(completion, marked_read_only_page_runs_nothing)
{
	long page = sysconf(_SC_PAGESIZE);

	ro_page_runs_nothing(_metadata, self->p, 3, 1,
			     3 * page / sizeof(struct async_syscall),
			     ASYNC_SUBMIT_WAKE_MARKED);
}

/*
 * An entry whose result alone starts a read-only page: its completion
 * could not be written, so nothing runs, with the flag or without.
 */
TEST_F(completion, read_only_result_runs_nothing)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int n = page / sizeof(struct async_syscall) + 1;

	/* The layout this needs: the last done word ends the first page. */
	ASSERT_EQ(page, (n - 1) * sizeof(struct async_syscall) +
			offsetof(struct async_syscall, result));
	ro_page_runs_nothing(_metadata, self->p, 2, 1, n, 0);
	ro_page_runs_nothing(_metadata, self->p, 2, 1, n,
			     ASYNC_SUBMIT_WAKE_MARKED);
}

/*
 * With the flag, an entry that leaves the submitting thread has a
 * leftover DONE reset before the call returns, whichever way it leaves:
 * from the middle of a chain whose start ran inline, forced to a worker,
 * or asleep on a timer.
 */
TEST_F(completion, marked_reset_from_mid_chain)
{
	struct async_syscall e[2];
	char c[2];
	int q[2];

	ASSERT_EQ(0, pipe2(q, O_CLOEXEC));
	ASSERT_EQ(2, write(self->p[1], "ok", 2));
	async_prep_read(&e[0], self->p[0], c, 2);
	e[0].flags |= ASYNC_SYSCALL_LINK;
	async_prep_read(&e[1], q[0], c, 1);
	e[0].done = ASYNC_SYSCALL_DONE;
	e[1].done = ASYNC_SYSCALL_DONE;
	ASSERT_EQ(2, async_submit(e, 2, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, e[0].done);
	ASSERT_EQ(2, e[0].result);
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, e[1].done);
	ASSERT_EQ(1, write(q[1], "y", 1));
	ASSERT_EQ(1, async_wait(&e[1], NULL));
	close(q[0]);
	close(q[1]);
}

TEST_F(completion, marked_reset_forced_to_worker)
{
	self->e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	self->e.done = ASYNC_SYSCALL_DONE;
	ASSERT_EQ(1, async_submit(&self->e, 1, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, self->e.done);
	ASSERT_EQ(2, write(self->p[1], "ok", 2));
	ASSERT_EQ(2, async_wait(&self->e, NULL));
}

TEST_F(completion, marked_reset_on_timer)
{
	static const struct timespec ten_s = { 10, 0 };

	async_prep_nanosleep(&self->e, &ten_s);
	self->e.done = ASYNC_SYSCALL_DONE;
	ASSERT_EQ(1, async_submit(&self->e, 1, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, self->e.done);
	ASSERT_EQ(1, async_cancel(&self->e, 1));
	ASSERT_EQ(-EINTR, async_wait(&self->e, NULL));
}

/* A leftover DONE is reset with the flag too. */
TEST_F(completion, resubmit_resets_done)
{
	struct sleeper s = { .mark = true };

	start(_metadata, &self->e, self->p[1], ASYNC_SUBMIT_WAKE_MARKED, &s);
	ASSERT_EQ(1, async_submit(&self->e, 1, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(ASYNC_SYSCALL_PENDING, self->e.done);
	ASSERT_EQ(2, write(self->p[1], "ok", 2));
	ASSERT_EQ(2, async_wait(&self->e, NULL));
}

/* futex_waitv() through async_wait_any(): the one that completes wakes it. */
static void *wait_any_of_two(void *arg)
{
	struct sleeper *s = arg;
	struct async_syscall *es[2] = { &s->e[0], &s->e[1] };

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_RELEASE);
	s->ret = async_wait_any(es, 2, NULL);
	return NULL;
}

TEST_F(completion, wait_any_is_woken)
{
	struct async_syscall e[2];
	struct sleeper s = { .e = e };
	pthread_t thread;
	char buf[2][4];
	int q[2];

	ASSERT_EQ(0, pipe2(q, O_CLOEXEC));
	async_prep_read(&e[0], self->p[0], buf[0], sizeof(buf[0]));
	async_prep_read(&e[1], q[0], buf[1], sizeof(buf[1]));
	ASSERT_EQ(2, async_submit(e, 2, ASYNC_SUBMIT_WAKE_MARKED));
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_any_of_two, &s));
	wait_until_asleep(_metadata, &s, __NR_futex_waitv);
	ASSERT_EQ(1, write(q[1], "q", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(1, s.ret);
	ASSERT_EQ(1, e[1].result);
	ASSERT_EQ(ASYNC_SYSCALL_WAITING, e[0].done);
	ASSERT_EQ(1, write(self->p[1], "p", 1));
	ASSERT_EQ(1, async_wait(&e[0], NULL));
	close(q[0]);
	close(q[1]);
}

/* With ASYNC_SUBMIT_WAIT as well: every word is DONE on return. */
TEST_F(completion, wait_and_wake_marked)
{
	struct async_syscall e[8];
	char buf[8];
	int i;

	for (i = 0; i < 8; i++) {
		async_prep_write(&e[i], self->p[1], "x", 1);
		e[i].flags = ASYNC_SYSCALL_FORCE_ASYNC;
		poison(&e[i]);
	}
	async_chain(e, 8);
	ASSERT_EQ(8, async_submit(e, 8,
				  ASYNC_SUBMIT_WAIT | ASYNC_SUBMIT_WAKE_MARKED));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(ASYNC_SYSCALL_DONE, e[i].done);
		ASSERT_EQ(1, e[i].result);
	}
	ASSERT_EQ(8, read(self->p[0], buf, sizeof(buf)));
}

/*
 * Many completions racing with waiters that mark: none may be lost.  Each
 * round, a thread waits through libasync (which marks) while this one
 * writes; a lost wake leaves the thread asleep until WAIT_TIMEOUT_S, and
 * its result is then -ETIMEDOUT.
 */
static void *libasync_wait(void *arg)
{
	struct timespec limit = { WAIT_TIMEOUT_S, 0 };

	return (void *)async_wait(arg, &limit);
}

/*
 * 2000 rounds, each a thread and a wake-up across vCPUs: on a debug kernel
 * under TCG that can take more than the harness's 30 s, so a lost wake is
 * reported by the round's result, not by the harness's timeout.
 */
TEST_F_TIMEOUT(completion, no_lost_wake, 300)
{
	pthread_t thread;
	void *res;
	int i;

	int64_t start = now_ns();

	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(1, async_submit(&self->e, 1,
					  async_wake_marked_flags()));
		ASSERT_EQ(0, pthread_create(&thread, NULL, libasync_wait,
					    &self->e));
		if (i & 1)
			sched_yield();
		ASSERT_EQ(1, write(self->p[1], "z", 1));
		ASSERT_EQ(0, pthread_join(thread, &res));
		ASSERT_EQ(1, (long)res) TH_LOG("round %d", i);
	}
	TH_LOG("2000 rounds in %lld ms", (long long)((now_ns() - start) / NSEC_PER_MSEC));
}

TEST(abi_version_has_wake_marked)
{
	ASSERT_LE(2, async_abi_version());
	ASSERT_EQ(ASYNC_SUBMIT_WAKE_MARKED, async_wake_marked_flags());
}

TEST_HARNESS_MAIN
