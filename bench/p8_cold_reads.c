// SPDX-License-Identifier: GPL-2.0
/*
 * P8: NFILES reads of 4 KiB, one from each of NFILES files whose pages are
 * not cached (dropped with POSIX_FADV_DONTNEED before every pass), all in
 * flight at once: one async_submit() of NFILES one-entry chains, one
 * io_uring submission of NFILES reads, NFILES tasks of the 4-thread pool,
 * or a loop of pread()s.  The files are on the guest's scratch disk.
 *
 * ms is the median pass; workers is the most async-wrk-* threads alive
 * after an async pass.
 */
#include <liburing.h>
#include <sys/stat.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define NFILES		256
#define FSIZE		4096

static int fds[NFILES];
static char bufs[NFILES][FSIZE];
static struct async_syscall ents[NFILES];
static struct pool_task tasks[NFILES];
static struct io_uring ring;
static struct pool pool;

static void check_buf(unsigned int file, long n)
{
	char c = 'a' + file % 26;

	if (n != FSIZE || bufs[file][0] != c || bufs[file][FSIZE - 1] != c)
		die("file %u: read %ld, data %c", file, n, bufs[file][0]);
}

static void drop_cache(void)
{
	unsigned int i;

	for (i = 0; i < NFILES; i++)
		if (posix_fadvise(fds[i], 0, 0, POSIX_FADV_DONTNEED))
			die("posix_fadvise: %s", strerror(errno));
	memset(bufs, 0, sizeof(bufs));
}

static void pass_sync(void)
{
	unsigned int i;

	for (i = 0; i < NFILES; i++)
		check_buf(i, pread(fds[i], bufs[i], FSIZE, 0));
}

static void pass_async(void)
{
	unsigned int i;

	for (i = 0; i < NFILES; i++)
		async_prep_pread(&ents[i], fds[i], bufs[i], FSIZE, 0);
	if (async_submit(ents, NFILES, ASYNC_SUBMIT_WAIT) != NFILES)
		die("async_submit: %s", strerror(errno));
	for (i = 0; i < NFILES; i++)
		check_buf(i, ents[i].result);
}

static void pass_uring(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int i, head, seen = 0;

	for (i = 0; i < NFILES; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, fds[i], bufs[i], FSIZE, 0);
		sqe->user_data = i;
	}
	if (io_uring_submit_and_wait(&ring, NFILES) != NFILES)
		die("io_uring_submit_and_wait");
	io_uring_for_each_cqe(&ring, head, cqe) {
		check_buf(cqe->user_data, cqe->res);
		seen++;
	}
	io_uring_cq_advance(&ring, seen);
	if (seen != NFILES)
		die("io_uring: %u of %u completions", seen, NFILES);
}

static void read_task_fn(struct pool_task *t)
{
	unsigned int i = t - tasks;

	t->result = pread(fds[i], bufs[i], FSIZE, 0);
}

static void pass_pool(void)
{
	unsigned int i;

	for (i = 0; i < NFILES; i++)
		tasks[i].fn = read_task_fn;
	pool_submit(&pool, tasks, NFILES);
	pool_wait(&pool);
	for (i = 0; i < NFILES; i++)
		check_buf(i, tasks[i].result);
}

static const struct method {
	const char *name;
	void (*pass)(void);
} methods[] = {
	{ "async",	pass_async },
	{ "sync",	pass_sync },
	{ "uring",	pass_uring },
	{ "pool",	pass_pool },
};

int main(void)
{
	int reps = bench_reps(5);
	const char *param = "files=256;size=4096";
	unsigned int i, mi;
	int r, workers, wmax;
	double v[99];
	char dir[64];
	__u64 t;

	snprintf(dir, sizeof(dir), "%s/p8", scratch_dir());
	mkdir(dir, 0755);
	for (i = 0; i < NFILES; i++) {
		char path[96];

		snprintf(path, sizeof(path), "%s/f%03u", dir, i);
		make_file(path, FSIZE, 'a' + i % 26);
		fds[i] = open(path, O_RDONLY);
		if (fds[i] < 0)
			die("open %s", path);
	}
	/* Written back, so that the pages can be dropped. */
	sync();
	if (io_uring_queue_init(NFILES, &ring, 0))
		die("io_uring setup");
	pool_start(&pool);

	for (mi = 0; mi < ARRAY_SIZE(methods); mi++) {
		if (!method_wanted(methods[mi].name))
			continue;
		wmax = 0;
		for (r = 0; r < reps; r++) {
			drop_cache();
			t = now_ns();
			methods[mi].pass();
			v[r] = (now_ns() - t) / 1e6;
			workers = count_threads("async-wrk-");
			if (workers > wmax)
				wmax = workers;
		}
		report("P8", param, methods[mi].name, "ms", median(v, reps));
		if (!strcmp(methods[mi].name, "async"))
			report("P8", param, "async", "workers", wmax);
	}
	pool_stop(&pool);
	io_uring_queue_exit(&ring);
	return 0;
}
