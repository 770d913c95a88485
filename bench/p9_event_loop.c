// SPDX-License-Identifier: GPL-2.0
/*
 * P9: an event loop that sleeps in epoll_wait() and learns of finished
 * reads through an eventfd in its epoll set.  NOPS reads of 4 KiB from a
 * cached file, INFLIGHT in flight; each finished read is replaced by the
 * next.  Methods:
 *
 *	async_futex	no eventfd: the loop sleeps on the done words
 *			(async_queue_reap()), the cost without a notification
 *	async_eventfd	each chain is the read and a write(eventfd) step
 *			(async_prep_notify()); epoll, then
 *			async_queue_reap_notified()
 *	uring_eventfd	io_uring with a registered eventfd
 *	pool_eventfd	a 4-thread pool whose tasks write the eventfd after
 *			their pread, as libuv's pool does
 *
 * With param "worker" each read goes to a thread (ASYNC_SYSCALL_FORCE_ASYNC,
 * IOSQE_ASYNC), as a read that waits would; with "inline" it completes in
 * the submitting call, and the pool does not run.  Reported per read: ns
 * of wall time, ns of CPU of the whole guest, and epoll wake-ups.
 */
#include <liburing.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define NOPS		8192
#define INFLIGHT	32
#define FSIZE		(1024 * 1024)
#define BLOCK		4096

static int fd, efd, epfd;
static bool on_worker;
static char bufs[INFLIGHT][BLOCK];
static struct async_syscall ents[INFLIGHT][2];
static struct async_queue queue;
static struct io_uring ring;
static struct pool pool;
static struct pool_task tasks[INFLIGHT];
static atomic_int task_done[INFLIGHT];
static unsigned long wakes;

static off_t block_of(unsigned int op)
{
	return (off_t)(op * 7919u % (FSIZE / BLOCK)) * BLOCK;
}

static void check(long res)
{
	if (res != BLOCK)
		die("read: %ld", res);
}

/*
 * Sleeps in epoll_wait() until the eventfd is readable.  io_uring's
 * task_work for the completions interrupts the wait (EINTR): run it and
 * wait on.
 */
static void loop_sleep(void)
{
	struct epoll_event ev;
	int n;

	do
		n = epoll_wait(epfd, &ev, 1, -1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		die("epoll_wait: %s", strerror(errno));
	wakes++;
}

static void async_stage(unsigned int slot, unsigned int op, bool notify)
{
	struct async_syscall *e = ents[slot];

	async_prep_pread(&e[0], fd, bufs[slot], BLOCK, block_of(op));
	if (on_worker)
		e[0].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	if (notify)
		async_prep_notify(&e[1], efd);
	if (async_queue_add(&queue, e, notify ? 2 : 1, slot))
		die("async_queue_add");
}

static void pass_async(bool notify)
{
	struct async_queue_chain done[INFLIGHT];
	unsigned int op, slot, i;
	int n;

	for (op = 0; op < INFLIGHT; op++)
		async_stage(op, op, notify);
	for (i = 0; i < NOPS; ) {
		if (async_queue_submit(&queue) < 0)
			die("async_queue_submit: %s", strerror(errno));
		if (notify) {
			loop_sleep();
			n = async_queue_reap_notified(&queue, efd, done,
						      INFLIGHT);
		} else {
			n = async_queue_reap(&queue, done, INFLIGHT, NULL);
		}
		if (n < 0)
			die("reap: %s", strerror(-n));
		for (; n > 0; n--, i++) {
			slot = done[n - 1].user_data;
			check(ents[slot][0].result);
			if (op < NOPS)
				async_stage(slot, op++, notify);
		}
	}
}

static void pass_async_futex(void)
{
	pass_async(false);
}

static void pass_async_eventfd(void)
{
	pass_async(true);
}

static void uring_queue(unsigned int slot, unsigned int op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	io_uring_prep_read(sqe, fd, bufs[slot], BLOCK, block_of(op));
	if (on_worker)
		sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = slot;
}

static void pass_uring_eventfd(void)
{
	struct io_uring_cqe *cqe;
	unsigned int op, head, seen, i;
	__u64 count;

	for (op = 0; op < INFLIGHT; op++)
		uring_queue(op, op);
	for (i = 0; i < NOPS; ) {
		if (io_uring_submit(&ring) < 0)
			die("io_uring_submit");
		loop_sleep();
		if (read(efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			die("eventfd read: %s", strerror(errno));
		seen = 0;
		io_uring_for_each_cqe(&ring, head, cqe) {
			check(cqe->res);
			if (op < NOPS)
				uring_queue(cqe->user_data, op++);
			seen++;
		}
		io_uring_cq_advance(&ring, seen);
		i += seen;
	}
}

static void read_notify_fn(struct pool_task *t)
{
	unsigned int slot = t - tasks;
	__u64 one = 1;

	t->result = pread(fd, bufs[slot], BLOCK, (off_t)(uintptr_t)t->arg);
	atomic_store_explicit(&task_done[slot], 1, memory_order_release);
	if (write(efd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write: %s", strerror(errno));
}

static void pool_queue(unsigned int slot, unsigned int op)
{
	tasks[slot].fn = read_notify_fn;
	tasks[slot].arg = (void *)(uintptr_t)block_of(op);
	atomic_store(&task_done[slot], 0);
	pool_submit(&pool, &tasks[slot], 1);
}

static void pass_pool_eventfd(void)
{
	unsigned int op, slot, i;
	__u64 count;

	for (op = 0; op < INFLIGHT; op++)
		pool_queue(op, op);
	for (i = 0; i < NOPS; ) {
		loop_sleep();
		if (read(efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			die("eventfd read: %s", strerror(errno));
		for (slot = 0; slot < INFLIGHT; slot++) {
			if (atomic_load_explicit(&task_done[slot],
						 memory_order_acquire) != 1)
				continue;
			atomic_store(&task_done[slot], 2);
			check(tasks[slot].result);
			i++;
			if (op < NOPS)
				pool_queue(slot, op++);
		}
	}
	pool_wait(&pool);
}

static const struct method {
	const char *name;
	void (*pass)(void);
	bool on_worker_only;
} methods[] = {
	{ "async_futex",	pass_async_futex },
	{ "async_eventfd",	pass_async_eventfd },
	{ "uring_eventfd",	pass_uring_eventfd },
	{ "pool_eventfd",	pass_pool_eventfd, true },
};

int main(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int reps = bench_reps(5), r, w;
	double v[99], cpu[99], wk[99];
	unsigned int mi;
	char path[96], param[32];
	double c0;
	__u64 t;

	snprintf(path, sizeof(path), "%s/p9", scratch_dir());
	make_file(path, FSIZE, 'p');
	fd = open(path, O_RDONLY);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (fd < 0 || efd < 0 || epfd < 0 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev))
		die("set-up: %s", strerror(errno));
	if (async_queue_init(&queue, 2 * INFLIGHT))
		die("async_queue_init");
	if (io_uring_queue_init(2 * INFLIGHT, &ring, 0) ||
	    io_uring_register_eventfd(&ring, efd))
		die("io_uring set-up");
	pool_start(&pool);

	for (w = 1; w >= 0; w--) {
		on_worker = w;
		snprintf(param, sizeof(param), "%s;inflight=%d",
			 w ? "worker" : "inline", INFLIGHT);
		for (mi = 0; mi < ARRAY_SIZE(methods); mi++) {
			if (!method_wanted(methods[mi].name) ||
			    (methods[mi].on_worker_only && !on_worker))
				continue;
			for (r = 0; r < reps; r++) {
				wakes = 0;
				c0 = guest_cpu_ns();
				t = now_ns();
				methods[mi].pass();
				v[r] = (double)(now_ns() - t) / NOPS;
				cpu[r] = (guest_cpu_ns() - c0) / NOPS;
				wk[r] = 100.0 * wakes / NOPS;
			}
			report("P9", param, methods[mi].name, "ns_per_op",
			       median(v, reps));
			report("P9", param, methods[mi].name, "cpu_ns_per_op",
			       median(cpu, reps));
			report("P9", param, methods[mi].name, "wakes_per_100",
			       median(wk, reps));
		}
	}
	pool_stop(&pool);
	io_uring_queue_exit(&ring);
	async_queue_exit(&queue);
	return 0;
}
