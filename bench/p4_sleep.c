// SPDX-License-Identifier: GPL-2.0
/*
 * P4: NSLEEP concurrent blocking entries of 10 ms each (nanosleep) in one
 * async_submit(ASYNC_SUBMIT_WAIT) call.  The first round starts with no
 * worker (cold); the following ones find the workers of the round before
 * still idle (warm).  Right after each round the async-wrk-* threads are
 * counted.  For comparison: the 4-thread pool, and io_uring timeouts
 * (which wait without blocking a thread, so not the same work).
 */
#include <liburing.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define NSLEEP		256
#define SLEEP_NS	10000000L

static const struct timespec ts10 = { .tv_nsec = SLEEP_NS };
static struct async_syscall ents[NSLEEP];
static struct pool_task tasks[NSLEEP];

static double round_async(int *workers)
{
	unsigned int i;
	__u64 t0, t1;

	for (i = 0; i < NSLEEP; i++)
		async_prep_nanosleep(&ents[i], &ts10);
	t0 = now_ns();
	if (async_submit(ents, NSLEEP, ASYNC_SUBMIT_WAIT) != NSLEEP)
		die("async_submit: %s", strerror(errno));
	t1 = now_ns();
	*workers = count_threads("async-wrk-");
	for (i = 0; i < NSLEEP; i++)
		if (ents[i].result)
			die("nanosleep entry %u: %lld", i, (long long)ents[i].result);
	return (t1 - t0) / 1e6;
}

static void sleep_task(struct pool_task *t)
{
	t->result = nanosleep(&ts10, NULL);
}

static double round_pool(void)
{
	struct pool pool;
	unsigned int i;
	__u64 t0;
	double ms;

	pool_start(&pool);
	for (i = 0; i < NSLEEP; i++)
		tasks[i].fn = sleep_task;
	t0 = now_ns();
	pool_submit(&pool, tasks, NSLEEP);
	pool_wait(&pool);
	ms = (now_ns() - t0) / 1e6;
	pool_stop(&pool);
	return ms;
}

static double round_uring(struct io_uring *ring)
{
	struct __kernel_timespec kts = { .tv_nsec = SLEEP_NS };
	struct io_uring_cqe *cqe;
	unsigned int i, head, n = 0;
	__u64 t0;
	double ms;

	for (i = 0; i < NSLEEP; i++)
		io_uring_prep_timeout(io_uring_get_sqe(ring), &kts, 0, 0);
	t0 = now_ns();
	if (io_uring_submit_and_wait(ring, NSLEEP) != NSLEEP)
		die("io_uring_submit_and_wait");
	ms = (now_ns() - t0) / 1e6;
	io_uring_for_each_cqe(ring, head, cqe) {
		if (cqe->res != -ETIME)
			die("io_uring timeout: %d", cqe->res);
		n++;
	}
	io_uring_cq_advance(ring, n);
	return ms;
}

static void split_pass(void)
{
	int workers;

	round_async(&workers);
}

int main(void)
{
	int reps = bench_reps(5);
	const char *param = "n=256;sleep=10ms";
	struct io_uring ring;
	double v[99];
	int r;

	report_cold_warm("P4", param, round_async, reps);
	report_split("P4", param, split_pass);

	report("P4", param, "pool", "ms", round_pool());

	if (io_uring_queue_init(NSLEEP, &ring, 0))
		die("io_uring_queue_init");
	for (r = 0; r < reps; r++)
		v[r] = round_uring(&ring);
	report("P4", param, "uring_timeout", "ms", median(v, reps));
	io_uring_queue_exit(&ring);
	return 0;
}
