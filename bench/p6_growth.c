// SPDX-License-Identifier: GPL-2.0
/*
 * P6: growth.
 *
 * Per-entry cost against the number of entries in flight: INFLIGHT trivial
 * entries (pread64 of 0 bytes) submitted without waiting, in calls of at
 * most ASYNC_SUBMIT_MAX_ENTRIES, then waited for; flat is the goal.
 *
 * Kernel memory per in-flight entry: NMEM one-byte reads of an empty pipe.
 * The first NWORKERS occupy every worker the kernel allows, blocked in
 * read(); the rest stay queued.  /proc/meminfo before the first read, once
 * the workers block, and once the rest are queued gives the cost of a
 * worker and of a queued entry.  A write to the pipe then completes all.
 */
#include <stdbool.h>

#include "bench.h"
#include <async_syscall/libasync.h>

#define NMEM		16000
#define NWORKERS	256
#define MAXB		ASYNC_SUBMIT_MAX_ENTRIES

static struct async_syscall ents[NMEM];
static char buf[8];

struct meminfo {
	long avail, slab, stack;	/* kB */
};

static struct meminfo read_meminfo(void)
{
	struct meminfo m = { 0 };
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %ld", &m.avail) == 1 ||
		    sscanf(line, "Slab: %ld", &m.slab) == 1 ||
		    sscanf(line, "KernelStack: %ld", &m.stack) == 1)
			continue;
	}
	fclose(f);
	return m;
}

/* Submits @n entries at @e without waiting, at most @per_call per call. */
static void submit_all(struct async_syscall *e, unsigned int n,
		       unsigned int per_call)
{
	unsigned int done = 0, k;

	while (done < n) {
		k = n - done < per_call ? n - done : per_call;
		if (async_submit(e + done, k, 0) != k)
			die("async_submit: %s", strerror(errno));
		done += k;
	}
}

static void measure_growth(int fd)
{
	static const unsigned int sizes[] = { 64, 512, 4096, 16384 };
	static struct async_syscall g[16384];
	char param[32];
	double v[99], clk = clock_overhead();
	unsigned int si, i;
	int r, reps;

	for (si = 0; si < ARRAY_SIZE(sizes); si++) {
		unsigned int n = sizes[si];

		/* Short rounds are cheap: more of them outvote host stalls. */
		reps = bench_reps(9) * (n < 4096 ? 3 : 1);
		if (reps > 99)
			reps = 99;
		for (r = -1; r < reps; r++) {	/* round -1 warms up */
			__u64 t0;

			for (i = 0; i < n; i++)
				async_prep_pread(&g[i], fd, buf, 0, 0);
			t0 = now_ns();
			submit_all(g, n, MAXB);
			async_wait_all(g, n);
			if (r >= 0)
				v[r] = ((double)(now_ns() - t0) - clk) / n;
		}
		for (i = 0; i < n; i++)
			if (g[i].result)
				die("growth entry %u: %lld", i, (long long)g[i].result);
		snprintf(param, sizeof(param), "inflight=%u", n);
		report("P6", param, "async", "ns_per_op", median(v, reps));
	}
}

static void settle(void)
{
	usleep(300000);
}

/*
 * One round of the memory measurement with calls of @per_call entries:
 * kernel memory (MemAvailable) and slab per queued entry into @avail and
 * @slab; the workers' figures too on the first round of the process.
 */
static void memory_round(unsigned int per_call, bool first, double *avail,
			 double *slab, double *worker_bytes,
			 double *worker_stack)
{
	struct meminfo m0, m1, m2;
	unsigned int i;
	int p[2], t;
	char *bytes;

	if (pipe(p))
		die("pipe");
	for (i = 0; i < NMEM; i++)
		async_prep_read(&ents[i], p[0], buf, 1);
	settle();
	m0 = read_meminfo();

	submit_all(ents, NWORKERS, per_call);
	for (t = 0; t < 200 && count_threads("async-wrk-") < NWORKERS; t++)
		usleep(50000);
	settle();
	m1 = read_meminfo();
	if (first) {
		*worker_bytes = (m0.avail - m1.avail) * 1024.0 / NWORKERS;
		*worker_stack = (m1.stack - m0.stack) * 1024.0 / NWORKERS;
	}

	submit_all(ents + NWORKERS, NMEM - NWORKERS, per_call);
	settle();
	m2 = read_meminfo();

	/* Complete every read: one byte each. */
	bytes = calloc(1, NMEM);
	if (write(p[1], bytes, NMEM) != NMEM)
		die("write pipe");
	free(bytes);
	async_wait_all(ents, NMEM);
	for (i = 0; i < NMEM; i++)
		if (ents[i].result != 1)
			die("read entry %u: %lld", i, (long long)ents[i].result);
	close(p[0]);
	close(p[1]);

	printf("# P6 memory: %u per call: avail %ld -> %ld -> %ld kB, ", per_call,
	       m0.avail, m1.avail, m2.avail);
	printf("slab %ld -> %ld -> %ld kB, kernel stack %ld -> %ld -> %ld kB, %d workers\n",
	       m0.slab, m1.slab, m2.slab, m0.stack, m1.stack, m2.stack,
	       count_threads("async-wrk-"));
	*slab = (m2.slab - m1.slab) * 1024.0 / (NMEM - NWORKERS);
	*avail = (m1.avail - m2.avail) * 1024.0 / (NMEM - NWORKERS);
}

int main(void)
{
	static const unsigned int per_call[] = { MAXB, 64 };
	double v[99], sl[99], wbytes = 0, wstack = 0;
	char path[256], param[48];
	int reps = 3, r, fd;
	unsigned int pi;

	/* Memory first: the process has no worker yet. */
	memset(ents, 0, sizeof(ents));
	for (pi = 0; pi < ARRAY_SIZE(per_call); pi++) {
		for (r = 0; r < reps; r++)
			memory_round(per_call[pi], !pi && !r, &v[r], &sl[r],
				     &wbytes, &wstack);
		snprintf(param, sizeof(param), "entries=%u;per_call=%u", NMEM,
			 per_call[pi]);
		report("P6", param, "async", "kernel_bytes_per_entry",
		       median(v, reps));
		report("P6", param, "async", "slab_bytes_per_entry",
		       median(sl, reps));
	}
	report("P6", "workers=256", "async", "bytes_per_worker", wbytes);
	report("P6", "workers=256", "async", "stack_bytes_per_worker", wstack);

	snprintf(path, sizeof(path), "%s/p6-empty", scratch_dir());
	make_file(path, 0, 0);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	measure_growth(fd);
	return 0;
}
