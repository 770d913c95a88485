/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the async_submit() benchmarks: clocks, medians and
 * percentiles, and the machine-readable result lines that harness/bench.sh
 * collects from the guest's console:
 *
 *	CSV,<bench>,<param>,<method>,<metric>,<value>
 *
 * Benchmarks report; they never pass or fail on a timing.
 */
#ifndef __BENCH_H
#define __BENCH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * CPU time of the whole guest so far, user and system with interrupts,
 * in ns: what every thread and kernel worker of every design spent.
 * /proc/stat counts it in ticks, so only a span of many ticks (a pass
 * over many files) gives a figure worth reading.
 */
static inline double guest_cpu_ns(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		die("/proc/stat: %s", strerror(errno));
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
		   &sys, &idle, &iowait, &irq, &softirq);
	fclose(f);
	if (n != 7)
		die("/proc/stat: %d fields", n);
	return (double)(user + nice + sys + irq + softirq) * 1e9 /
	       sysconf(_SC_CLK_TCK);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @p-th percentile (0..100) of @n values; sorts @v. */
static inline double percentile(double *v, int n, double p)
{
	int i;

	qsort(v, n, sizeof(*v), cmp_double);
	i = (int)(p / 100.0 * (n - 1) + 0.5);
	return v[i];
}

static inline double median(double *v, int n)
{
	return percentile(v, n, 50);
}

/*
 * One pass over @nfiles files in groups of @inflight: @group(first, n) does
 * the work for files first to first + n - 1.  The time of every full group,
 * less the clock overhead @clk, is appended to @v at *@nv.  Returns the
 * pass's time per file, in ns.
 */
static inline double run_groups(void (*group)(unsigned int first, unsigned int n),
				unsigned int nfiles, unsigned int inflight,
				double clk, double *v, unsigned int *nv)
{
	__u64 start = now_ns();
	unsigned int first;

	for (first = 0; first < nfiles; first += inflight) {
		unsigned int n = nfiles - first < inflight ?
				 nfiles - first : inflight;
		__u64 t0 = now_ns();

		group(first, n);
		if (n == inflight)
			v[(*nv)++] = (double)(now_ns() - t0) - clk;
	}
	return (double)(now_ns() - start) / nfiles;
}

/*
 * One result line; stdout is flushed so that the console keeps the order.
 * BENCH_TAG, when set, is appended to the parameter: runs of the same
 * program in another setting (pinned to one CPU, say) stay apart.
 */
static inline void report(const char *bench, const char *param,
			  const char *method, const char *metric, double value)
{
	const char *tag = getenv("BENCH_TAG");

	printf("CSV,%s,%s%s%s,%s,%s,%.1f\n", bench, param,
	       tag && *tag ? ";" : "", tag && *tag ? tag : "", method, metric,
	       value);
	fflush(stdout);
}

#define SPLIT_EVENT "/sys/kernel/tracing/events/async_syscall/async_syscall_complete/"

static inline int split_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ret = -1;

	if (fd >= 0) {
		ret = write(fd, value, strlen(value)) < 0 ? -1 : 0;
		close(fd);
	}
	return ret;
}

/*
 * Where the entries of one more, untimed, call of @pass ran: the worker
 * field of async_syscall_complete, counted over the trace.  Reported as
 * "inline" and "worker" entries; nothing when tracefs is not there.
 */
static inline void report_split(const char *bench, const char *param,
				void (*pass)(void))
{
	char line[512];
	double n[2] = { 0, 0 };
	FILE *f;

	if (split_write("/sys/kernel/tracing/trace", "") ||
	    split_write(SPLIT_EVENT "enable", "1"))
		return;
	pass();
	split_write(SPLIT_EVENT "enable", "0");
	f = fopen("/sys/kernel/tracing/trace", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *w = strstr(line, " worker=");

		if (w && strstr(line, "async_syscall_complete:"))
			n[w[8] == '1']++;
	}
	fclose(f);
	report(bench, param, "async", "inline", n[0]);
	report(bench, param, "async", "worker", n[1]);
}

/* BENCH_METHOD="async sync" runs only the methods so named. */
static inline int method_wanted(const char *name)
{
	const char *list = getenv("BENCH_METHOD"), *s;
	size_t n = strlen(name);

	if (!list || !*list)
		return 1;
	for (s = list; (s = strstr(s, name)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || !s[n]))
			return 1;
	return 0;
}

static inline void report_str(const char *bench, const char *param,
			      const char *method, const char *metric,
			      const char *value)
{
	printf("CSV,%s,%s,%s,%s,%s\n", bench, param, method, metric, value);
	fflush(stdout);
}

/* Median cost of reading the clock twice, to take off timed intervals. */
static inline double clock_overhead(void)
{
	double v[201];
	int i;

	for (i = 0; i < 201; i++) {
		__u64 t0 = now_ns();

		v[i] = (double)(now_ns() - t0);
	}
	return median(v, 201);
}

/* Scratch directory for files: $SCRATCH, else /tmp. */
static inline const char *scratch_dir(void)
{
	const char *s = getenv("SCRATCH");

	return s && *s ? s : "/tmp";
}

/* Creates (or rewrites) @path with @len bytes of @c. */
static inline void make_file(const char *path, size_t len, int c)
{
	char buf[4096];
	int fd;

	memset(buf, c, sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		if (write(fd, buf, n) != (ssize_t)n)
			die("write %s: %s", path, strerror(errno));
		len -= n;
	}
	close(fd);
}

/* Threads of this process whose name starts with @prefix. */
static inline int count_threads(const char *prefix)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	char path[320], comm[32];
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * Rounds of @round, which returns its time in ms and sets the async-wrk-*
 * threads right after it: the first round with no worker yet (cold_ms,
 * workers_cold), then the median of @reps - 1 more with the workers of
 * the round before idle (ms; workers, the most of them).
 */
static inline void report_cold_warm(const char *bench, const char *param,
				    double (*round)(int *workers), int reps)
{
	int workers, wmax = 0, r;
	double warm[99];

	if (reps < 2)
		reps = 2;
	if (count_threads("async-wrk-"))
		die("workers before the first round");
	report(bench, param, "async", "cold_ms", round(&workers));
	report(bench, param, "async", "workers_cold", workers);
	for (r = 0; r < reps - 1; r++) {
		warm[r] = round(&workers);
		if (workers > wmax)
			wmax = workers;
	}
	report(bench, param, "async", "ms", median(warm, reps - 1));
	report(bench, param, "async", "workers", wmax);
}

/* Repetitions: BENCH_REPS overrides the program's default. */
static inline int bench_reps(int dflt)
{
	const char *s = getenv("BENCH_REPS");
	int n = s ? atoi(s) : 0;

	return n > 0 ? (n > 99 ? 99 : n) : dflt;
}

#endif /* __BENCH_H */
