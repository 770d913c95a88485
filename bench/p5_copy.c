// SPDX-License-Identifier: GPL-2.0
/*
 * P5: copy NFILES small files, each with one five-entry chain
 * openat(src) -> openat(dst) -> copy_file_range(src, dst) -> close(src) ->
 * close(dst), INFLIGHT chains per async_submit(); against the same calls in
 * a synchronous loop and on the 4-thread pool.  Names are opened relative to
 * a descriptor of their directory (see p3_open_read_close.c).  io_uring has no
 * copy_file_range operation and POSIX AIO no open: neither applies.
 */
#include <sys/stat.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define NFILES		1000
#define INFLIGHT	32
#define FSIZE		4096

static char src[NFILES][8], dst[NFILES][8];
static int dir_fd;
static struct async_syscall ents[INFLIGHT * 5];
static struct pool_task tasks[INFLIGHT];
static struct pool pool;

static long copy_one(unsigned int i)
{
	int in, out;
	long r;

	in = openat(dir_fd, src[i], O_RDONLY);
	if (in < 0)
		return -errno;
	out = openat(dir_fd, dst[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -errno;
	}
	r = copy_file_range(in, NULL, out, NULL, FSIZE, 0);
	close(in);
	close(out);
	return r;
}

static void group_sync(unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (copy_one(first + i) != FSIZE)
			die("copy %u", first + i);
}

static void group_async(unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct async_syscall *e = &ents[5 * i];
		unsigned int k = 5 * i;

		async_prep_openat(&e[0], dir_fd, src[first + i], O_RDONLY, 0);
		async_prep_openat(&e[1], dir_fd, dst[first + i],
				  O_WRONLY | O_CREAT | O_TRUNC, 0644);
		async_prep_copy_file_range(&e[2], -1, -1, FSIZE);
		async_ref(&e[2], 0, k);
		async_ref(&e[2], 2, k + 1);
		async_prep_close(&e[3], -1);
		async_ref(&e[3], 0, k);
		async_run_anyway(&e[3]);
		async_prep_close(&e[4], -1);
		async_ref(&e[4], 0, k + 1);
		async_run_anyway(&e[4]);
		async_chain(e, 5);
	}
	if (async_submit(ents, 5 * n, ASYNC_SUBMIT_WAIT) != 5 * n)
		die("async_submit: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (ents[5 * i + 2].result != FSIZE || ents[5 * i + 3].result ||
		    ents[5 * i + 4].result)
			die("async copy %u: %lld", first + i,
			    (long long)ents[5 * i + 2].result);
}

static void copy_task(struct pool_task *t)
{
	t->result = copy_one((uintptr_t)t->arg);
}

static void group_pool(unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		tasks[i].fn = copy_task;
		tasks[i].arg = (void *)(uintptr_t)(first + i);
	}
	pool_submit(&pool, tasks, n);
	pool_wait(&pool);
	for (i = 0; i < n; i++)
		if (tasks[i].result != FSIZE)
			die("pool copy %u: %ld", first + i, tasks[i].result);
}

/*
 * Every pass copies into new files: rewriting a file truncated by O_TRUNC
 * would make ext4 start writeback at close (auto_da_alloc).
 */
static void remove_copies(void)
{
	unsigned int i;

	for (i = 0; i < NFILES; i++)
		unlinkat(dir_fd, dst[i], 0);
	sync();
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
	{ "pool",	group_pool },
};

int main(void)
{
	unsigned int groups = (NFILES + INFLIGHT - 1) / INFLIGHT;
	const char *param = "files=1000;chain=5";
	int reps = bench_reps(3);
	double *v, pass[99], clk, cpu;
	unsigned int i, mi, nv;
	char dir[64];
	int r;

	snprintf(dir, sizeof(dir), "%s/p5", scratch_dir());
	mkdir(dir, 0755);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dir_fd < 0)
		die("open %s", dir);
	for (i = 0; i < NFILES; i++) {
		char path[96];

		snprintf(src[i], sizeof(src[i]), "s%04u", i);
		snprintf(dst[i], sizeof(dst[i]), "d%04u", i);
		snprintf(path, sizeof(path), "%s/%.7s", dir, src[i]);
		make_file(path, FSIZE, 'a' + i % 26);
	}
	pool_start(&pool);
	v = calloc((size_t)groups * reps, sizeof(*v));
	clk = clock_overhead();

	for (mi = 0; mi < ARRAY_SIZE(methods); mi++) {
		if (!method_wanted(methods[mi].name))
			continue;
		methods[mi].group(0, INFLIGHT);	/* warm up */
		nv = 0;
		cpu = 0;
		for (r = 0; r < reps; r++) {
			remove_copies();
			cpu -= guest_cpu_ns();
			pass[r] = run_groups(methods[mi].group, NFILES,
					     INFLIGHT, clk, v, &nv);
			cpu += guest_cpu_ns();
		}
		report("P5", param, methods[mi].name, "us_per_file",
		       median(v, nv) / INFLIGHT / 1000);
		report("P5", param, methods[mi].name, "us_per_file_wall",
		       median(pass, reps) / 1000);
		report("P5", param, methods[mi].name, "cpu_us_per_file",
		       cpu / reps / NFILES / 1000);
		if (!strcmp(methods[mi].name, "async")) {
			report("P5", param, "async", "workers",
			       count_threads("async-wrk-"));
			remove_copies();
			report_split("P5", param, split_pass);
		}
	}
	pool_stop(&pool);
	return 0;
}
