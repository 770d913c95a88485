// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() selftests.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/async_syscall.h>

#include "../kselftest_harness.h"

#ifndef __NR_async_submit
#define __NR_async_submit 463
#endif

static long sys_async_submit(struct async_syscall *entries, unsigned int nr,
			     size_t entry_size, unsigned int flags)
{
	return syscall(__NR_async_submit, entries, nr, entry_size, flags);
}

TEST(syscall_exists)
{
	sys_async_submit(NULL, 0, 0, 0);
	ASSERT_NE(ENOSYS, errno);
}

TEST(unknown_flags)
{
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		errno = 0;
		ASSERT_EQ(-1, sys_async_submit(NULL, 0, 0, 1U << bit));
		ASSERT_EQ(EINVAL, errno);
	}
}

TEST_HARNESS_MAIN
