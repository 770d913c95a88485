/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the async_submit() selftests that fork children, watch worker
 * threads and wait with bounds: a hang must fail a test, not stall the run.
 */
#ifndef __ASYNC_TEST_H
#define __ASYNC_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <async_syscall/libasync.h>

/* What seccomp and audit report as this process's architecture. */
#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL
/* A child that has not exited this long after it should have hangs. */
#define CHILD_TIMEOUT_S	20
/* Idle workers exit after 2 s; give them this long to be gone. */
#define IDLE_EXIT_S	10
/* Longest wait for one completion. */
#define WAIT_TIMEOUT_S	20
/* Poll interval while waiting for a state that has no event to wait on. */
#define POLL_MS		10

/* A null_blk disk, which the guest makes with a delay for every request. */
#define NULLB		"/dev/nullb0"

/* What the kernel never writes into done and result, so that its writes show. */
#define DONE_POISON	0xa5a5a5a5U
#define RESULT_POISON	((__s64)0x5a5a5a5a5a5a5a5aLL)

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * NSEC_PER_MSEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Mark @e so that a completion, or its absence, shows. */
static inline void poison(struct async_syscall *e)
{
	e->done = DONE_POISON;
	e->result = RESULT_POISON;
}

/* Wait up to @secs for @e to complete: 0 once it has, -ETIMEDOUT if not. */
static inline int wait_done(struct async_syscall *e, int secs)
{
	int64_t end = now_ns() + secs * NSEC_PER_SEC, left;
	struct timespec ts;

	while (!async_done(e)) {
		left = end - now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		async_wait(e, &ts);
	}
	return 0;
}

/* Wait for the @nr entries at @e, up to @secs each: 0 or -ETIMEDOUT. */
static inline int wait_all_done(struct async_syscall *e, unsigned int nr,
				int secs)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (wait_done(&e[i], secs))
			return -ETIMEDOUT;
	}
	return 0;
}

/* Drop CAP_SYS_ADMIN from this thread, for good: 0, or -1 and errno. */
static inline int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d);
}

/* Read a whole small file into @buf: its length, or -1. */
static inline ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/*
 * The threads of process @pid whose name is "async-wrk-<@owner>": how many
 * there are, and in *@blocked how many of them are in @state ('S': asleep
 * interruptibly, 'D': uninterruptibly) inside system call @nr (-1: any).
 * A worker sets the system call number in its registers before it runs an
 * entry, so /proc shows which call it is in.  Returns -1 if @pid has no
 * /proc directory.
 */
static inline int scan_workers_in(pid_t pid, pid_t owner, long nr, char state,
				  int *blocked)
{
	char want[16], path[300], buf[512], *p;
	struct dirent *d;
	int n = 0, b = 0;
	DIR *dir;

	/* A task name is cut at 15 characters. */
	snprintf(want, sizeof(want), "async-wrk-%d", owner);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid,
			 d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, want))
			continue;
		n++;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid,
			 d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		p = strrchr(buf, ')');
		if (!p || p[1] != ' ' || p[2] != state)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", pid,
			 d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		if (nr < 0 || (buf[0] != 'r' && strtol(buf, NULL, 10) == nr))
			b++;
	}
	closedir(dir);
	if (blocked)
		*blocked = b;
	return n;
}

static inline int scan_workers(pid_t pid, pid_t owner, long nr, int *blocked)
{
	return scan_workers_in(pid, owner, nr, 'S', blocked);
}

/* Workers of this process in state D: waiting for a page, in the tests. */
static inline int workers_in_d(void)
{
	int d;

	if (scan_workers_in(getpid(), getpid(), -1, 'D', &d) < 0)
		return -1;
	return d;
}

#define TRACEFS		"/sys/kernel/tracing/"

/* How many times the trace shows @event ("name:"), or -1. */
static inline int trace_count(const char *event)
{
	static char buf[1 << 20];
	int fd = open(TRACEFS "trace", O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;
	char *p;
	int count = 0;

	if (fd < 0)
		return -1;
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	for (p = buf; (p = strstr(p, event)); p++)
		count++;
	return count;
}

/* Writes @value to a tracefs, procfs or sysfs file: 0 or -errno. */
static inline int write_knob(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, value, strlen(value));
	close(fd);
	return ret < 0 ? -errno : 0;
}

/* Waits until the trace shows @event @want times: 0, or -ETIMEDOUT. */
static inline int wait_traced(const char *event, int want)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;

	while (trace_count(event) < want) {
		if (now_ns() >= end)
			return -ETIMEDOUT;
		sleep_ms(POLL_MS);
	}
	return 0;
}

/* Workers of this process. */
static inline int count_workers(void)
{
	return scan_workers(getpid(), getpid(), -1, NULL);
}

/*
 * Wait until at least @want workers of this process are asleep in system
 * call @nr: 0, or -ETIMEDOUT after WAIT_TIMEOUT_S.
 */
static inline int wait_blocked(long nr, int want)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	int blocked;

	do {
		if (scan_workers(getpid(), getpid(), nr, &blocked) >= 0 &&
		    blocked >= want)
			return 0;
		sleep_ms(POLL_MS);
	} while (now_ns() < end);
	return -ETIMEDOUT;
}

/* Wait until this process has no worker left: 0, or -ETIMEDOUT. */
static inline int wait_no_workers(int secs)
{
	int64_t end = now_ns() + secs * NSEC_PER_SEC;

	while (count_workers() != 0) {
		if (now_ns() >= end)
			return -ETIMEDOUT;
		sleep_ms(POLL_MS);
	}
	return 0;
}

/* Threads anywhere in the system named after process @owner's workers. */
static inline int stray_workers(pid_t owner)
{
	struct dirent *d;
	int n = 0, k;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		k = scan_workers(atoi(d->d_name), owner, -1, NULL);
		if (k > 0)
			n += k;
	}
	closedir(dir);
	return n;
}

/*
 * Wait for child @pid for up to @secs and reap it: 0 with its status in
 * *@status, or -ETIMEDOUT, and then the child is killed and reaped.
 */
static inline int wait_child(pid_t pid, int secs, int *status)
{
	int64_t end = now_ns() + secs * NSEC_PER_SEC;
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (now_ns() >= end)
			break;
		sleep_ms(POLL_MS);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -ETIMEDOUT;
}

/*
 * Run @fn(@arg) in a child that exits with its return value; wait for it
 * as wait_child() does.  *@pidp, if not NULL, gets the child's pid.
 */
static inline int run_child(int (*fn)(void *), void *arg, int *status,
			    pid_t *pidp)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(fn(arg));
	if (pidp)
		*pidp = pid;
	return wait_child(pid, CHILD_TIMEOUT_S, status);
}

/*
 * A null_blk attribute of nullb0: from its configfs item if it was made
 * there, else the module parameter (a boot-time device).  0, or -1.
 */
static inline int nullb_attr(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	dir = opendir("/sys/kernel/config/nullb");
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "features"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/config/nullb/%s/index",
			 d->d_name);
		if (read_small(path, buf, size) <= 0 || atoi(buf) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/config/nullb/%s/%s",
			 d->d_name, name);
		closedir(dir);
		return read_small(path, buf, size) > 0 ? 0 : -1;
	}
	if (dir)
		closedir(dir);
	snprintf(path, sizeof(path), "/sys/module/null_blk/parameters/%s",
		 name);
	return read_small(path, buf, size) > 0 ? 0 : -1;
}

/*
 * Whether nullb0 suits a test of reads in flight: memory backed, so that
 * its data can be checked, each request delayed by @min_ns or more, and
 * @min_bytes long or more.  NULL if it does, else why not.  *@delay_ns
 * and *@sectors get its delay and its size.
 */
static inline const char *nullb_unsuitable(unsigned long min_ns,
					   unsigned long long min_bytes,
					   unsigned long *delay_ns,
					   unsigned long long *sectors)
{
	static char why[128];
	char attr[64];

	if (access(NULLB, R_OK | W_OK))
		return NULLB " missing (boot with null_blk.nr_devices=1 ...)";
	if (nullb_attr("memory_backed", attr, sizeof(attr)) ||
	    !strchr("Yy1", attr[0]))
		return NULLB " is not memory backed: its data cannot be checked";
	*delay_ns = 0;
	if (!nullb_attr("irqmode", attr, sizeof(attr)) && atoi(attr) == 2 &&
	    !nullb_attr("completion_nsec", attr, sizeof(attr)))
		*delay_ns = strtoul(attr, NULL, 10);
	if (*delay_ns < min_ns) {
		snprintf(why, sizeof(why),
			 NULLB " completes in under %lu ms (needs irqmode=2)",
			 min_ns / (unsigned long)NSEC_PER_MSEC);
		return why;
	}
	if (read_small("/sys/block/nullb0/size", attr, sizeof(attr)) <= 0)
		return "no /sys/block/nullb0/size";
	*sectors = strtoull(attr, NULL, 10);
	if (*sectors * 512 < min_bytes) {
		snprintf(why, sizeof(why), NULLB " is smaller than %llu MiB",
			 min_bytes >> 20);
		return why;
	}
	return NULL;
}

/* A page shared with forked children, for what they report. */
static inline void *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* In a forked child: say what failed, and exit with status 1. */
#define CHILD_ASSERT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "# %s:%d: child %d: %s (errno %d)\n", \
			__FILE__, __LINE__, getpid(), #cond, errno); \
		_exit(1); \
	} \
} while (0)

#endif /* __ASYNC_TEST_H */
