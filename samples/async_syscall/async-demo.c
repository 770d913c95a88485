// SPDX-License-Identifier: GPL-2.0
/*
 * Show that async_submit() exists on this kernel and rejects unknown flags.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/async_syscall.h>

#ifndef __NR_async_submit
#define __NR_async_submit 463
#endif

int main(void)
{
	long ret;

	ret = syscall(__NR_async_submit, NULL, 0, sizeof(struct async_syscall), 0);
	if (ret < 0 && errno == ENOSYS) {
		printf("async_submit(): not on this kernel\n");
		return 1;
	}
	printf("async_submit() is syscall %d on this kernel\n", __NR_async_submit);

	ret = syscall(__NR_async_submit, NULL, 0, sizeof(struct async_syscall), 1U << 31);
	printf("with an unknown flag it returns %ld: %s\n", ret, strerror(errno));
	return ret == -1 && errno == EINVAL ? 0 : 1;
}
