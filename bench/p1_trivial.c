// SPDX-License-Identifier: GPL-2.0
/*
 * P1: per-entry cost of a trivial entry, by batch size.
 *
 * The trivial entry is pread64(fd, buf, 0, 0) on an empty ext4 file: a
 * whitelisted call that does almost nothing.  Each batch size runs the same
 * number of entries through every method, one timed call (of all the
 * batch's entries) at a time.  ns_per_op is the median call divided by the
 * batch size: on a shared host, a vCPU descheduled for milliseconds spoils
 * a few calls, not the figure.  ns_per_op_mean keeps those stalls in.
 *
 * Then, in a child under a seccomp filter that allows everything (as a
 * service manager or a container runtime installs one), the pread, async
 * and io_uring's read again at batches 1, 8 and 64 ("batch=N;seccomp"):
 * the filter runs once per pread, once per async_submit() and once per
 * entry, and once per io_uring_enter() but not per read.
 */
#include <aio.h>
#include <liburing.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define MAX_BATCH	ASYNC_SUBMIT_MAX_ENTRIES
#define MIN_CALLS	9

static const unsigned int batches[] = { 1, 8, 64, 512, 4096 };

static int fd;
static char buf[8];
static struct async_syscall ents[MAX_BATCH];
static struct io_uring ring;
static struct pool pool;
static struct pool_task tasks[MAX_BATCH];
static struct aiocb cbs[MAX_BATCH];
static struct aiocb *cblist[MAX_BATCH];

static void run_sync(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		if (pread(fd, buf, 0, 0))
			die("pread");
}

static void run_getppid(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		syscall(SYS_getppid);
}

static void prep_async(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		async_prep_pread(&ents[i], fd, buf, 0, 0);
}

static void check_async(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		if (ents[i].result)
			die("async entry %u: %lld", i, (long long)ents[i].result);
}

static void run_async_wait(unsigned int b)
{
	prep_async(b);
	if (async_submit(ents, b,
			 ASYNC_SUBMIT_WAIT | async_wake_marked_flags()) != b)
		die("async_submit: %s", strerror(errno));
	check_async(b);
}

/*
 * Without ASYNC_SUBMIT_WAIT: wait on the last entry's futex, then the rest.
 * The waits mark the words, so only the words slept on are woken.
 */
static void futex_pass(unsigned int b, unsigned int flags)
{
	prep_async(b);
	if (async_submit(ents, b, flags) != b)
		die("async_submit: %s", strerror(errno));
	async_wait(&ents[b - 1], NULL);
	async_wait_all(ents, b);
	check_async(b);
}

static void run_async_futex(unsigned int b)
{
	futex_pass(b, async_wake_marked_flags());
}

/* As before ABI 2: every completion wakes its futex. */
static void run_async_futex_wake_all(unsigned int b)
{
	futex_pass(b, 0);
}

/* All entries one chain: one worker runs them back to back. */
static void run_async_chain(unsigned int b)
{
	prep_async(b);
	async_chain(ents, b);
	if (async_submit(ents, b, ASYNC_SUBMIT_WAIT) != b)
		die("async_submit: %s", strerror(errno));
	check_async(b);
}

/* Copy and check only: what the submission itself costs. */
static void run_async_probe(unsigned int b)
{
	prep_async(b);
	if (async_submit(ents, b, ASYNC_SUBMIT_PROBE))
		die("probe: %s", strerror(errno));
}

static void reap_uring(unsigned int b)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&ring, head, cqe) {
		if (cqe->res)
			die("io_uring cqe %d", cqe->res);
		n++;
	}
	io_uring_cq_advance(&ring, n);
	if (n != b)
		die("io_uring: %u of %u completions", n, b);
}

static void run_uring_nop(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		io_uring_prep_nop(io_uring_get_sqe(&ring));
	if (io_uring_submit_and_wait(&ring, b) != (int)b)
		die("io_uring_submit_and_wait");
	reap_uring(b);
}

static void run_uring_pread(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf, 0, 0);
	if (io_uring_submit_and_wait(&ring, b) != (int)b)
		die("io_uring_submit_and_wait");
	reap_uring(b);
}

static void pool_pread(struct pool_task *t)
{
	t->result = pread(fd, buf, 0, 0);
}

static void run_pool(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++)
		tasks[i].fn = pool_pread;
	pool_submit(&pool, tasks, b);
	pool_wait(&pool);
}

static void run_aio(unsigned int b)
{
	unsigned int i;

	for (i = 0; i < b; i++) {
		cbs[i] = (struct aiocb) {
			.aio_fildes = fd,
			.aio_buf = buf,
			.aio_nbytes = 0,
			.aio_lio_opcode = LIO_READ,
		};
		cblist[i] = &cbs[i];
	}
	if (lio_listio(LIO_WAIT, cblist, b, NULL))
		die("lio_listio: %s", strerror(errno));
	for (i = 0; i < b; i++)
		if (aio_return(&cbs[i]))
			die("aio_return");
}

static void split_pass(void)
{
	run_async_futex(64);
}

static const struct method {
	const char *name;
	void (*run)(unsigned int b);
} methods[] = {
	{ "sync",		run_sync },
	{ "sync_getppid",	run_getppid },
	{ "async_wait",		run_async_wait },
	{ "async_futex",	run_async_futex },
	{ "async_futex_wake_all", run_async_futex_wake_all },
	{ "async_chain",	run_async_chain },
	{ "async_probe",	run_async_probe },
	{ "uring_nop",		run_uring_nop },
	{ "uring_read",		run_uring_pread },
	{ "pool",		run_pool },
	{ "aio",		run_aio },
};

/* Runs @m over batches of @b, reports its median and mean per entry. */
static void measure(const struct method *m, unsigned int b, const char *param,
		    unsigned int ops, double *v, double clk)
{
	unsigned int c, calls = ops / b > MIN_CALLS ? ops / b : MIN_CALLS;
	__u64 start;

	m->run(b);	/* warm up: workers, caches */
	start = now_ns();
	for (c = 0; c < calls; c++) {
		__u64 t0 = now_ns();

		m->run(b);
		v[c] = (double)(now_ns() - t0) - clk;
	}
	/* Mean over all calls, host stalls included. */
	report("P1", param, m->name, "ns_per_op_mean",
	       (double)(now_ns() - start) / ((double)calls * b));
	report("P1", param, m->name, "ns_per_op", median(v, calls) / b);
}

/* The same calls in a child whose every system call passes a filter. */
static void measure_filtered(unsigned int ops, double *v, double clk)
{
	static const char *const names[] = {
		"sync", "async_futex", "uring_read",
	};
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	unsigned int bi, mi, n;
	char param[32];
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("the filtered child failed");
		return;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("seccomp: %s", strerror(errno));
	for (bi = 0; bi < 3; bi++) {
		snprintf(param, sizeof(param), "batch=%u;seccomp", batches[bi]);
		for (n = 0; n < ARRAY_SIZE(names); n++) {
			for (mi = 0; strcmp(methods[mi].name, names[n]); mi++)
				;
			if (method_wanted(names[n]))
				measure(&methods[mi], batches[bi], param, ops,
					v, clk);
		}
	}
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	unsigned int ops = getenv("BENCH_OPS") ? atoi(getenv("BENCH_OPS")) : 4096;
	unsigned int only = getenv("BENCH_BATCH") ? atoi(getenv("BENCH_BATCH")) : 0;
	unsigned int bi, mi;
	char path[256], param[32];
	double *v, clk;

	snprintf(path, sizeof(path), "%s/p1-empty", scratch_dir());
	make_file(path, 0, 0);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	if (io_uring_queue_init(MAX_BATCH, &ring, 0))
		die("io_uring_queue_init");
	pool_start(&pool);
	v = calloc(ops + MIN_CALLS, sizeof(*v));
	clk = clock_overhead();

	for (bi = 0; bi < ARRAY_SIZE(batches); bi++) {
		unsigned int b = batches[bi];

		if (only && b != only)
			continue;
		snprintf(param, sizeof(param), "batch=%u", b);
		for (mi = 0; mi < ARRAY_SIZE(methods); mi++)
			if (method_wanted(methods[mi].name))
				measure(&methods[mi], b, param, ops, v, clk);
	}
	if (method_wanted("async_futex") && (!only || only == 64))
		report_split("P1", "batch=64", split_pass);
	if (!only)
		measure_filtered(ops, v, clk);
	pool_stop(&pool);
	io_uring_queue_exit(&ring);
	return 0;
}
