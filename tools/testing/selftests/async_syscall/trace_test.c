// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() tracepoints, read back through tracefs.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <async_syscall/libasync.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define TRACEFS "/sys/kernel/tracing/"
#define EVENTS TRACEFS "events/async_syscall/"

/* Reads the trace buffer into @buf, NUL-terminated. */
static ssize_t read_trace(char *buf, size_t size)
{
	int fd = open(TRACEFS "trace", O_RDONLY);
	ssize_t len = 0, ret;

	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ret = read(fd, buf + len, size - 1 - len);
		if (ret <= 0)
			break;
		len += ret;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

FIXTURE(tracing) {
	char buf[65536];
};

FIXTURE_SETUP(tracing)
{
	if (access(EVENTS "enable", W_OK))
		SKIP(return, "no async_syscall events in tracefs (need root and tracing)");
	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	ASSERT_EQ(0, write_knob(EVENTS "enable", "1"));
}

FIXTURE_TEARDOWN(tracing)
{
	write_knob(EVENTS "enable", "0");
}

/* Each entry of an openat -> read -> close chain shows in all three events. */
TEST_F(tracing, chain_events)
{
	struct async_syscall e[3];
	char data[64], line[128];
	const char *p;

	async_prep_openat(&e[0], AT_FDCWD, "/proc/self/stat", O_RDONLY, 0);
	async_prep_read(&e[1], 0, data, sizeof(data));
	async_ref(&e[1], 0, 0);
	async_prep_close(&e[2], 0);
	async_ref(&e[2], 0, 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	ASSERT_EQ(sizeof(data), e[1].result);
	ASSERT_EQ(0, write_knob(EVENTS "enable", "0"));
	ASSERT_LT(0, read_trace(self->buf, sizeof(self->buf)));

	snprintf(line, sizeof(line),
		 "async_syscall_submit: index=1 nr=%d flags=0x%x arg_refs=0x1",
		 __NR_read, ASYNC_SYSCALL_LINK);
	EXPECT_NE(NULL, strstr(self->buf, line))
		TH_LOG("no '%s' in:\n%s", line, self->buf);
	snprintf(line, sizeof(line), "async_syscall_start: index=2 nr=%d queue_ns=",
		 __NR_close);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
	snprintf(line, sizeof(line),
		 "async_syscall_complete: index=0 nr=%d result=%lld queue_ns=",
		 __NR_openat, (long long)e[0].result);
	p = strstr(self->buf, line);
	ASSERT_NE(NULL, p) TH_LOG("no '%s'", line);
	EXPECT_NE(NULL, strstr(p, "run_ns="));
	snprintf(line, sizeof(line), "async_syscall_complete: index=1 nr=%d result=%zu ",
		 __NR_read, sizeof(data));
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
}

/* A cancelled dependent entry still completes, with -ECANCELED. */
TEST_F(tracing, cancelled_entry_completes)
{
	struct async_syscall e[2];
	char line[128];

	async_prep_openat(&e[0], AT_FDCWD, "/nonexistent", O_RDONLY, 0);
	async_prep_close(&e[1], 0);
	async_ref(&e[1], 0, 0);
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit_wait(e, 2));
	ASSERT_EQ(0, write_knob(EVENTS "enable", "0"));
	ASSERT_LT(0, read_trace(self->buf, sizeof(self->buf)));

	snprintf(line, sizeof(line), "async_syscall_complete: index=0 nr=%d result=%d ",
		 __NR_openat, -ENOENT);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
	snprintf(line, sizeof(line), "async_syscall_complete: index=1 nr=%d result=%d ",
		 __NR_close, -ECANCELED);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
}

/* The events carry the subsystem's prefix, and the bare names are gone. */
TEST_F(tracing, event_names)
{
	static const char *const names[] = { "submit", "start", "complete" };
	char path[256], want[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), EVENTS "async_syscall_%s/format",
			 names[i]);
		ASSERT_LT(0, read_small(path, self->buf, sizeof(self->buf)))
			TH_LOG("no %s", path);
		snprintf(want, sizeof(want), "name: async_syscall_%s\n",
			 names[i]);
		EXPECT_NE(NULL, strstr(self->buf, want)) TH_LOG("no '%s'", want);
		snprintf(path, sizeof(path), EVENTS "%s", names[i]);
		EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s still there", path);
	}
}

/* --- raw_syscalls -------------------------------------------------------- */

/*
 * The task field of a trace line, "comm-pid", into @task; @pid gets the
 * pid.  The comm is "<...>" when tracing did not record it.
 */
static int line_task(const char *line, char *task, size_t size, pid_t *pid)
{
	const char *start = line + strspn(line, " "), *end, *dash;
	size_t len;

	end = strstr(start, " [");
	if (!end)
		return -1;
	len = end - start;
	if (len >= size)
		return -1;
	memcpy(task, start, len);
	task[len] = '\0';
	dash = strrchr(task, '-');
	if (!dash)
		return -1;
	*pid = atoi(dash + 1);
	return 0;
}

/*
 * Whether the task field @task of a line about this process's data names
 * one of its workers.
 */
static bool is_worker(const char *task, pid_t pid)
{
	char want[16], path[64], comm[32];
	size_t len;

	/* A task name is cut at 15 characters. */
	snprintf(want, sizeof(want), "async-wrk-%d", getpid());
	len = strlen(want);
	if (strncmp(task, "<...>-", 6))
		return !strncmp(task, want, len) && task[len] == '-';
	/* No comm recorded: ask /proc, while the worker idles. */
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", pid);
	if (read_small(path, comm, sizeof(comm)) > 0) {
		comm[strcspn(comm, "\n")] = '\0';
		return !strcmp(comm, want);
	}
	/* Gone: a worker that exited, not this thread, the only other one. */
	return pid != getpid();
}

/*
 * Find in @buf the first line that contains @what and @what2 (if not NULL)
 * and was traced by a worker of this process; copy its task field into
 * @task.  With @only set, the line must come from that task instead.
 */
static const char *find_worker_line(const char *buf, const char *what,
				    const char *what2, const char *only,
				    char *task, size_t size)
{
	const char *line, *next;
	char tmp[512];
	size_t len;
	pid_t pid;

	for (line = buf; *line; line = next) {
		/* The line with its newline, which @what may end with. */
		next = strchrnul(line, '\n');
		if (*next)
			next++;
		len = next - line;
		if (line[0] == '#' || len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = '\0';
		if (!strstr(tmp, what) || (what2 && !strstr(tmp, what2)) ||
		    line_task(tmp, task, size, &pid))
			continue;
		if (only ? !strcmp(task, only) : is_worker(task, pid))
			return line;
	}
	return NULL;
}

#define RAW TRACEFS "events/raw_syscalls/"

FIXTURE(raw) {
	char buf[65536];
};

FIXTURE_SETUP(raw)
{
	char filter[64];

	if (access(RAW "enable", W_OK))
		SKIP(return, "no raw_syscalls events (need root and CONFIG_FTRACE_SYSCALLS)");
	/* Only the calls of the test, so that the buffer keeps them. */
	snprintf(filter, sizeof(filter), "id == %d || id == %d", __NR_openat,
		 __NR_close);
	ASSERT_EQ(0, write_knob(RAW "sys_enter/filter", filter));
	ASSERT_EQ(0, write_knob(RAW "sys_exit/filter", filter));
	ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
	ASSERT_EQ(0, write_knob(RAW "enable", "1"));
}

FIXTURE_TEARDOWN(raw)
{
	write_knob(RAW "enable", "0");
	write_knob(RAW "sys_enter/filter", "0");
	write_knob(RAW "sys_exit/filter", "0");
}

/*
 * Each entry fires sys_enter and sys_exit on its worker, as the system call
 * it is: its number, its arguments with references resolved, its result.
 */
TEST_F(raw, entry_is_syscall)
{
	static const char path[] = "/proc/self/stat";
	char what[64], args[64], task[64], other[64];
	struct async_syscall e[2];
	const char *line;
	long long fd;

	/* openat -> close(the new fd). */
	async_prep_openat(&e[0], AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	async_prep_close(&e[1], 0);
	async_ref(&e[1], 0, 0);
	async_chain(e, 2);
	ASSERT_EQ(2, async_submit_wait(e, 2));
	fd = e[0].result;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, e[1].result);
	ASSERT_EQ(0, write_knob(RAW "enable", "0"));
	ASSERT_LT(0, read_trace(self->buf, sizeof(self->buf)));

	/* The path pointer tells this openat from any other process's. */
	snprintf(what, sizeof(what), "sys_enter: NR %d (", __NR_openat);
	snprintf(args, sizeof(args), ", %lx, %x, 0, ", (unsigned long)path,
		 O_RDONLY | O_CLOEXEC);
	line = find_worker_line(self->buf, what, args, NULL, task, sizeof(task));
	ASSERT_NE(NULL, line)
		TH_LOG("no '%s...%s' from a worker in:\n%s", what, args, self->buf);
	snprintf(what, sizeof(what), "sys_exit: NR %d = %lld\n", __NR_openat, fd);
	line = find_worker_line(self->buf, what, NULL, task, other, sizeof(other));
	EXPECT_NE(NULL, line) TH_LOG("no '%s' from %s", what, task);

	/* close() sees the descriptor, not the index of the entry it names. */
	snprintf(what, sizeof(what), "sys_enter: NR %d (%llx, ", __NR_close, fd);
	line = find_worker_line(self->buf, what, NULL, task, other, sizeof(other));
	EXPECT_NE(NULL, line) TH_LOG("no '%s' from %s", what, task);
	snprintf(what, sizeof(what), "sys_exit: NR %d = 0\n", __NR_close);
	line = find_worker_line(self->buf, what, NULL, task, other, sizeof(other));
	EXPECT_NE(NULL, line) TH_LOG("no '%s' from %s", what, task);
}

TEST_HARNESS_MAIN
