// SPDX-License-Identifier: GPL-2.0
/*
 * P3: open -> read -> close of NFILES cached 4 KiB files, INFLIGHT files at
 * a time: one three-entry chain per file and INFLIGHT chains per
 * async_submit(); io_uring links openat_direct -> read -> close_direct on
 * fixed file slots; the pool runs one task per file; POSIX AIO can only do
 * the reads (open and close stay synchronous).
 *
 * Names are opened relative to a descriptor of their directory: the guest's
 * root is 9p, whose dentries a walk from "/" must revalidate, which would
 * push every io_uring openat out of its non-blocking path onto io-wq.
 *
 * us_per_file is the median time of one group of INFLIGHT files divided by
 * INFLIGHT; us_per_file_wall is the median pass over all files divided by
 * NFILES, host stalls included; cpu_us_per_file is the CPU time the whole
 * guest spent over the passes, divided by the files.
 */
#include <aio.h>
#include <sched.h>
#include <liburing.h>
#include <sys/stat.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define NFILES		10000
#define INFLIGHT	32
#define FSIZE		4096

static char paths[NFILES][8];
static int dir_fd;
static char bufs[INFLIGHT][FSIZE];
static struct async_syscall ents[INFLIGHT * 3];
static struct io_uring ring;
static struct pool pool;

static struct pool_task ftasks[INFLIGHT];

static void check_buf(unsigned int file, const char *buf, long n)
{
	char c = 'a' + file % 26;

	if (n != FSIZE || buf[0] != c || buf[FSIZE - 1] != c)
		die("file %u: read %ld, data %c", file, n, buf[0]);
}

static void group_sync(unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int fd = openat(dir_fd, paths[first + i], O_RDONLY);
		long r;

		if (fd < 0)
			die("open %s", paths[first + i]);
		r = read(fd, bufs[i], FSIZE);
		close(fd);
		check_buf(first + i, bufs[i], r);
	}
}

static void group_async(unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct async_syscall *e = &ents[3 * i];

		async_prep_openat(&e[0], dir_fd, paths[first + i], O_RDONLY, 0);
		async_prep_read(&e[1], -1, bufs[i], FSIZE);
		async_ref(&e[1], 0, 3 * i);
		async_prep_close(&e[2], -1);
		async_ref(&e[2], 0, 3 * i);
		async_run_anyway(&e[2]);
		async_chain(e, 3);
	}
	if (async_submit(ents, 3 * n, ASYNC_SUBMIT_WAIT) != 3 * n)
		die("async_submit: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (ents[3 * i].result < 0 || ents[3 * i + 2].result)
			die("async chain %u: %lld %lld", i,
			    (long long)ents[3 * i].result,
			    (long long)ents[3 * i + 2].result);
		check_buf(first + i, bufs[i], ents[3 * i + 1].result);
	}
}

/*
 * The same chains through libasync's queue: step references, the cleanup
 * close, one call for the group, and reaping with user data, as a program
 * that keeps files in flight would.
 */
static struct async_queue queue;

static void group_async_queue(unsigned int first, unsigned int n)
{
	struct async_queue_chain done[INFLIGHT];
	unsigned int i, left = n;
	int got, k;

	for (i = 0; i < n; i++) {
		struct async_syscall *e = &ents[3 * i];

		async_prep_openat(&e[0], dir_fd, paths[first + i], O_RDONLY, 0);
		async_prep_read_ref(&e[1], 0, bufs[i], FSIZE);
		async_prep_close_ref(&e[2], 0);
		if (async_queue_add(&queue, e, 3, i))
			die("async_queue_add");
	}
	if (async_queue_submit(&queue) != (int)n)
		die("async_queue_submit: %s", strerror(errno));
	while (left) {
		got = async_queue_reap(&queue, done, INFLIGHT, NULL);
		if (got <= 0)
			die("async_queue_reap: %d", got);
		for (k = 0; k < got; k++) {
			struct async_syscall *e = done[k].entries;

			i = done[k].user_data;
			if (e[0].result < 0 || e[2].result)
				die("queued chain %u: %lld %lld", i,
				    (long long)e[0].result,
				    (long long)e[2].result);
			check_buf(first + i, bufs[i], e[1].result);
		}
		left -= got;
	}
}

static void group_uring(unsigned int first, unsigned int n)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int i, head, seen = 0;

	for (i = 0; i < n; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_openat_direct(sqe, dir_fd, paths[first + i],
					    O_RDONLY, 0, i);
		sqe->flags |= IOSQE_IO_LINK;
		sqe->user_data = 3 * i;
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, i, bufs[i], FSIZE, 0);
		/* A hard link: close even when the read fails. */
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
		sqe->user_data = 3 * i + 1;
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_close_direct(sqe, i);
		sqe->user_data = 3 * i + 2;
	}
	if (io_uring_submit_and_wait(&ring, 3 * n) != (int)(3 * n))
		die("io_uring_submit_and_wait");
	io_uring_for_each_cqe(&ring, head, cqe) {
		unsigned int k = cqe->user_data;

		if (k % 3 == 1)
			check_buf(first + k / 3, bufs[k / 3], cqe->res);
		else if (cqe->res < 0)
			die("io_uring entry %u: %d", k, cqe->res);
		seen++;
	}
	io_uring_cq_advance(&ring, seen);
	if (seen != 3 * n)
		die("io_uring: %u of %u completions", seen, 3 * n);
}

/* Task k of a group reads file ->arg into bufs[k]. */
static void file_task_fn(struct pool_task *t)
{
	int fd = openat(dir_fd, t->arg, O_RDONLY);

	if (fd < 0) {
		t->result = -errno;
		return;
	}
	t->result = read(fd, bufs[t - ftasks], FSIZE);
	close(fd);
}

static void group_pool(unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ftasks[i].fn = file_task_fn;
		ftasks[i].arg = paths[first + i];
	}
	pool_submit(&pool, ftasks, n);
	pool_wait(&pool);
	for (i = 0; i < n; i++)
		check_buf(first + i, bufs[i], ftasks[i].result);
}

static void group_aio(unsigned int first, unsigned int n)
{
	static struct aiocb cbs[INFLIGHT];
	struct aiocb *list[INFLIGHT] = { NULL };
	unsigned int i;

	for (i = 0; i < n; i++) {
		int fd = openat(dir_fd, paths[first + i], O_RDONLY);

		if (fd < 0)
			die("open %s", paths[first + i]);
		cbs[i] = (struct aiocb) {
			.aio_fildes = fd,
			.aio_buf = bufs[i],
			.aio_nbytes = FSIZE,
			.aio_lio_opcode = LIO_READ,
		};
		list[i] = &cbs[i];
	}
	if (lio_listio(LIO_WAIT, list, n, NULL))
		die("lio_listio: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		close(cbs[i].aio_fildes);
		check_buf(first + i, bufs[i], aio_return(&cbs[i]));
	}
}

static void split_pass(void)
{
	group_async(0, INFLIGHT);
}

static const struct method {
	const char *name;
	void (*group)(unsigned int first, unsigned int n);
} methods[] = {
	{ "sync",	group_sync },
	{ "async",	group_async },
	{ "async_queue", group_async_queue },
	/* The submitter on one vCPU: no batch is shared with a worker. */
	{ "async_1cpu",	group_async },
	{ "uring",	group_uring },
	{ "pool",	group_pool },
	{ "aio",	group_aio },
};

int main(void)
{
	int reps = bench_reps(3);
	unsigned int groups = (NFILES + INFLIGHT - 1) / INFLIGHT;
	const char *param = "files=10000;inflight=32";
	double *v, pass[99], clk, cpu;
	unsigned int i, mi, nv;
	char dir[64];
	int r;

	snprintf(dir, sizeof(dir), "%s/p3", scratch_dir());
	mkdir(dir, 0755);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dir_fd < 0)
		die("open %s", dir);
	for (i = 0; i < NFILES; i++) {
		char path[96];

		snprintf(paths[i], sizeof(paths[i]), "f%05u", i);
		snprintf(path, sizeof(path), "%s/%.7s", dir, paths[i]);
		make_file(path, FSIZE, 'a' + i % 26);
	}
	if (io_uring_queue_init(4 * INFLIGHT, &ring, 0) ||
	    io_uring_register_files_sparse(&ring, INFLIGHT))
		die("io_uring setup");
	if (async_queue_init(&queue, 3 * INFLIGHT))
		die("async_queue_init");
	pool_start(&pool);
	v = calloc((size_t)groups * reps, sizeof(*v));
	clk = clock_overhead();

	for (mi = 0; mi < ARRAY_SIZE(methods); mi++) {
		bool pinned = !strcmp(methods[mi].name, "async_1cpu");
		cpu_set_t all, one;

		if (!method_wanted(methods[mi].name))
			continue;
		if (pinned) {
			CPU_ZERO(&one);
			CPU_SET(0, &one);
			if (sched_getaffinity(0, sizeof(all), &all) ||
			    sched_setaffinity(0, sizeof(one), &one))
				die("sched_setaffinity: %s", strerror(errno));
		}
		methods[mi].group(0, INFLIGHT);	/* warm up */
		nv = 0;
		cpu = guest_cpu_ns();
		for (r = 0; r < reps; r++)
			pass[r] = run_groups(methods[mi].group, NFILES,
					     INFLIGHT, clk, v, &nv);
		cpu = guest_cpu_ns() - cpu;
		report("P3", param, methods[mi].name, "us_per_file",
		       median(v, nv) / INFLIGHT / 1000);
		report("P3", param, methods[mi].name, "us_per_file_wall",
		       median(pass, reps) / 1000);
		report("P3", param, methods[mi].name, "cpu_us_per_file",
		       cpu / reps / NFILES / 1000);
		if (!strcmp(methods[mi].name, "async")) {
			report("P3", param, "async", "workers",
			       count_threads("async-wrk-"));
			report_split("P3", param, split_pass);
		}
		if (pinned && sched_setaffinity(0, sizeof(all), &all))
			die("sched_setaffinity: %s", strerror(errno));
	}
	pool_stop(&pool);
	io_uring_queue_exit(&ring);
	return 0;
}
