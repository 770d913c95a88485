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

#define TRACEFS "/sys/kernel/tracing/"
#define EVENTS TRACEFS "events/async_syscall/"

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, value, strlen(value));
	close(fd);
	return ret < 0 ? -errno : 0;
}

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
	ASSERT_EQ(0, write_file(TRACEFS "trace", ""));
	ASSERT_EQ(0, write_file(EVENTS "enable", "1"));
}

FIXTURE_TEARDOWN(tracing)
{
	write_file(EVENTS "enable", "0");
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
	ASSERT_EQ(0, write_file(EVENTS "enable", "0"));
	ASSERT_LT(0, read_trace(self->buf, sizeof(self->buf)));

	snprintf(line, sizeof(line), "submit: index=1 nr=%d flags=0x%x arg_refs=0x1",
		 __NR_read, ASYNC_SYSCALL_LINK);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s' in:\n%s", line, self->buf);
	snprintf(line, sizeof(line), "start: index=2 nr=%d queue_ns=", __NR_close);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
	snprintf(line, sizeof(line), "complete: index=0 nr=%d result=%lld queue_ns=",
		 __NR_openat, (long long)e[0].result);
	p = strstr(self->buf, line);
	ASSERT_NE(NULL, p) TH_LOG("no '%s'", line);
	EXPECT_NE(NULL, strstr(p, "run_ns="));
	snprintf(line, sizeof(line), "complete: index=1 nr=%d result=%zu ",
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
	ASSERT_EQ(0, write_file(EVENTS "enable", "0"));
	ASSERT_LT(0, read_trace(self->buf, sizeof(self->buf)));

	snprintf(line, sizeof(line), "complete: index=0 nr=%d result=%d ",
		 __NR_openat, -ENOENT);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
	snprintf(line, sizeof(line), "complete: index=1 nr=%d result=%d ",
		 __NR_close, -ECANCELED);
	EXPECT_NE(NULL, strstr(self->buf, line)) TH_LOG("no '%s'", line);
}

TEST_HARNESS_MAIN
