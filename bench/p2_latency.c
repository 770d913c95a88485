// SPDX-License-Identifier: GPL-2.0
/*
 * P2: latency of one entry, from submit until the submitting thread, waiting
 * on the completion, sees it: p50 and p99 over many single submissions.
 *
 * async_submit() runs pread64(fd, buf, 0, 0) on an empty file, forced to a
 * worker with ASYNC_SYSCALL_FORCE_ASYNC (it would otherwise complete inline,
 * in the submitting thread), and the submitter waits on the entry's futex
 * word; io_uring runs a NOP forced to
 * its io-wq worker with IOSQE_ASYNC (and, for reference, inline), and the
 * same 0-byte read forced there; the pool hands the same pread to one of
 * its threads.
 */
#include <aio.h>
#include <liburing.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

static int fd;
static char buf[8];
static struct io_uring ring;
static struct pool pool;

static void one_async(void)
{
	struct async_syscall e;

	async_prep_pread(&e, fd, buf, 0, 0);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	if (async_submit(&e, 1, 0) != 1)
		die("async_submit: %s", strerror(errno));
	if (async_wait(&e, NULL))
		die("async entry: %lld", (long long)e.result);
}

static void one_async_wait(void)
{
	struct async_syscall e;

	async_prep_pread(&e, fd, buf, 0, 0);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	if (async_submit(&e, 1, ASYNC_SUBMIT_WAIT) != 1 || e.result)
		die("async_submit: %s", strerror(errno));
}

static void one_uring(bool read, unsigned int sqe_flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct io_uring_cqe *cqe;

	if (read)
		io_uring_prep_read(sqe, fd, buf, 0, 0);
	else
		io_uring_prep_nop(sqe);
	sqe->flags |= sqe_flags;
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe))
		die("io_uring");
	if (cqe->res)
		die("io_uring %s: %d", read ? "read" : "nop", cqe->res);
	io_uring_cqe_seen(&ring, cqe);
}

static void one_uring_async(void)
{
	one_uring(false, IOSQE_ASYNC);
}

static void one_uring_inline(void)
{
	one_uring(false, 0);
}

static void one_uring_read_async(void)
{
	one_uring(true, IOSQE_ASYNC);
}

static void pool_pread(struct pool_task *t)
{
	t->result = pread(fd, buf, 0, 0);
}

static void one_pool(void)
{
	struct pool_task t = { .fn = pool_pread };

	pool_submit(&pool, &t, 1);
	pool_wait(&pool);
	if (t.result)
		die("pool pread");
}

static void one_aio(void)
{
	struct aiocb cb = { .aio_fildes = fd, .aio_buf = buf };
	const struct aiocb *list[1] = { &cb };

	if (aio_read(&cb))
		die("aio_read");
	while (aio_error(&cb) == EINPROGRESS)
		aio_suspend(list, 1, NULL);
	if (aio_return(&cb))
		die("aio_return");
}

static void one_sync(void)
{
	if (pread(fd, buf, 0, 0))
		die("pread");
}

static const struct method {
	const char *name;
	void (*run)(void);
} methods[] = {
	{ "sync",		one_sync },
	{ "async",		one_async },
	{ "async_wait",		one_async_wait },
	{ "uring_nop_async",	one_uring_async },
	{ "uring_nop",		one_uring_inline },
	{ "uring_read_async",	one_uring_read_async },
	{ "pool",		one_pool },
	{ "aio",		one_aio },
};

int main(void)
{
	int n = getenv("BENCH_SAMPLES") ? atoi(getenv("BENCH_SAMPLES")) : 2000;
	char path[256];
	unsigned int mi;
	double *v, clk;
	int i;

	snprintf(path, sizeof(path), "%s/p2-empty", scratch_dir());
	make_file(path, 0, 0);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	if (io_uring_queue_init(8, &ring, 0))
		die("io_uring_queue_init");
	pool_start(&pool);
	v = calloc(n, sizeof(*v));
	clk = clock_overhead();

	for (mi = 0; mi < ARRAY_SIZE(methods); mi++) {
		if (!method_wanted(methods[mi].name))
			continue;
		for (i = 0; i < 50; i++)	/* warm up */
			methods[mi].run();
		for (i = 0; i < n; i++) {
			__u64 t0 = now_ns();

			methods[mi].run();
			v[i] = (double)(now_ns() - t0) - clk;
		}
		report("P2", "single", methods[mi].name, "p50_ns",
		       percentile(v, n, 50));
		report("P2", "single", methods[mi].name, "p99_ns",
		       percentile(v, n, 99));
		if (!strcmp(methods[mi].name, "async"))
			report_split("P2", "single", one_async);
	}
	pool_stop(&pool);
	io_uring_queue_exit(&ring);
	return 0;
}
