// SPDX-License-Identifier: GPL-2.0
/*
 * An epoll loop that learns of finished chains through an eventfd that
 * each chain's last step writes (async_prep_notify()): it finds the
 * eventfd readable as soon as async_submit() returns for a chain that
 * completed in it; it is woken for one on a worker, one that failed or
 * was cancelled, and once for a burst; and it is not woken before a chain
 * is done.
 */

#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define NR_CHAINS	16

FIXTURE(loop) {
	int efd, epfd;
	int pipes[NR_CHAINS][2];
	char bufs[NR_CHAINS][8];
	struct async_syscall e[NR_CHAINS][2];
	struct async_queue q;
	struct async_queue_chain out[NR_CHAINS];
};

FIXTURE_SETUP(loop)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int i;

	self->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ASSERT_LE(0, self->efd);
	self->epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, self->epfd);
	ASSERT_EQ(0, epoll_ctl(self->epfd, EPOLL_CTL_ADD, self->efd, &ev));
	for (i = 0; i < NR_CHAINS; i++)
		ASSERT_EQ(0, pipe2(self->pipes[i], O_CLOEXEC));
	ASSERT_EQ(0, async_queue_init(&self->q, 2 * NR_CHAINS));
}

FIXTURE_TEARDOWN(loop)
{
	int i;

	/* Chains still in flight end: their reads see end of file. */
	for (i = 0; i < NR_CHAINS; i++)
		close(self->pipes[i][1]);
	for (i = 0; i < NR_CHAINS; i++)
		if (self->e[i][1].nr)	/* prepared, so submitted */
			async_wait_all(self->e[i], 2);
	for (i = 0; i < NR_CHAINS; i++)
		close(self->pipes[i][0]);
	async_queue_exit(&self->q);
	close(self->epfd);
	close(self->efd);
}

/* Whether epoll says the eventfd is readable within @ms (0: now). */
static int loop_woken(struct _test_data_loop *self, int ms)
{
	struct epoll_event ev;

	return epoll_wait(self->epfd, &ev, 1, ms);
}

/* Chain @i: read pipe @i, then notify. */
static int add_pipe_chain(struct _test_data_loop *self, int i)
{
	async_prep_read(&self->e[i][0], self->pipes[i][0], self->bufs[i],
			sizeof(self->bufs[i]));
	async_prep_notify(&self->e[i][1], self->efd);
	return async_queue_add(&self->q, self->e[i], 2, i);
}

/*
 * A chain that completes in async_submit() has written the eventfd when
 * the call returns: the loop finds it readable without sleeping.
 */
TEST_F(loop, inline_completion_wakes)
{
	ASSERT_EQ(1, write(self->pipes[0][1], "x", 1));
	ASSERT_EQ(0, add_pipe_chain(self, 0));
	ASSERT_EQ(1, async_queue_submit(&self->q));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->e[0][1].done);
	ASSERT_EQ(1, loop_woken(self, 0));
	ASSERT_EQ(1, async_queue_reap_notified(&self->q, self->efd,
					       self->out, NR_CHAINS));
	ASSERT_EQ(1, self->e[0][0].result);
	ASSERT_EQ(8, self->e[0][1].result);
	ASSERT_EQ(0, loop_woken(self, 0));
}

/* A chain on a worker: no wake until it is done, then one. */
TEST_F(loop, worker_completion_wakes)
{
	ASSERT_EQ(0, add_pipe_chain(self, 0));
	ASSERT_EQ(1, async_queue_submit(&self->q));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_EQ(0, loop_woken(self, 0));
	ASSERT_EQ(0, async_queue_reap_notified(&self->q, self->efd,
					       self->out, NR_CHAINS));
	ASSERT_EQ(1, write(self->pipes[0][1], "y", 1));
	ASSERT_EQ(1, loop_woken(self, WAIT_TIMEOUT_S * 1000));
	ASSERT_EQ(1, async_queue_reap_notified(&self->q, self->efd,
					       self->out, NR_CHAINS));
	ASSERT_EQ(1, self->e[0][0].result);
	ASSERT_EQ('y', self->bufs[0][0]);
}

/* A failed chain still wakes the loop: the step runs anyway. */
TEST_F(loop, failed_chain_wakes)
{
	async_prep_read(&self->e[0][0], -1, self->bufs[0], 1);
	async_prep_notify(&self->e[0][1], self->efd);
	ASSERT_EQ(0, async_queue_add(&self->q, self->e[0], 2, 0));
	ASSERT_EQ(1, async_queue_submit(&self->q));
	ASSERT_EQ(1, loop_woken(self, WAIT_TIMEOUT_S * 1000));
	ASSERT_EQ(1, async_queue_reap_notified(&self->q, self->efd,
					       self->out, NR_CHAINS));
	ASSERT_EQ(-EBADF, self->e[0][0].result);
	ASSERT_EQ(8, self->e[0][1].result);
}

/* A chain cancelled with async_cancel_chain() still wakes the loop. */
TEST_F(loop, cancelled_chain_wakes)
{
	ASSERT_EQ(0, add_pipe_chain(self, 0));
	ASSERT_EQ(1, async_queue_submit(&self->q));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));
	ASSERT_EQ(1, async_cancel_chain(self->e[0], 2));
	ASSERT_EQ(1, loop_woken(self, WAIT_TIMEOUT_S * 1000));
	ASSERT_EQ(1, async_queue_reap_notified(&self->q, self->efd,
					       self->out, NR_CHAINS));
	ASSERT_EQ(-EINTR, self->e[0][0].result);
	ASSERT_EQ(8, self->e[0][1].result);
}

/*
 * Chains that finish together wake a sleeping loop once, and one reap
 * takes them all; the eventfd is clear after it.
 */
TEST_F(loop, burst_wakes_once)
{
	int i;

	for (i = 0; i < NR_CHAINS; i++)
		ASSERT_EQ(0, add_pipe_chain(self, i));
	ASSERT_EQ(NR_CHAINS, async_queue_submit(&self->q));
	ASSERT_EQ(0, wait_blocked(__NR_read, NR_CHAINS));
	for (i = 0; i < NR_CHAINS; i++)
		ASSERT_EQ(1, write(self->pipes[i][1], "z", 1));
	for (i = 0; i < NR_CHAINS; i++)
		ASSERT_EQ(0, async_wait_all(self->e[i], 2));
	ASSERT_EQ(1, loop_woken(self, 0));
	ASSERT_EQ(NR_CHAINS,
		  async_queue_reap_notified(&self->q, self->efd, self->out,
					    NR_CHAINS));
	ASSERT_EQ(0, loop_woken(self, 0));
}

TEST_HARNESS_MAIN
