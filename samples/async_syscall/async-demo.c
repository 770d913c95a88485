// SPDX-License-Identifier: GPL-2.0
/*
 * async-demo: read a file with one async_submit() call.
 *
 *	async-demo [FILE]	(default: /etc/hostname)
 *
 * One chain of three entries is submitted without waiting:
 *
 *	0: openat(AT_FDCWD, FILE, O_RDONLY)
 *	1: read(<result of 0>, buf, sizeof(buf))
 *	2: close(<result of 0>)
 *
 * The entries run in order on a worker thread of this process.  The demo
 * then sleeps on the futex completion word of the last entry, prints the
 * result of each entry and the bytes read (at most 64 KiB).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/async_syscall.h>
#include <linux/futex.h>

#ifndef __NR_async_submit
#define __NR_async_submit 463
#endif

static char buf[64 * 1024];

static const char *const names[] = { "openat", "read", "close" };

static void wait_done(struct async_syscall *e)
{
	while (__atomic_load_n(&e->done, __ATOMIC_ACQUIRE) ==
	       ASYNC_SYSCALL_PENDING)
		syscall(SYS_futex, &e->done, FUTEX_WAIT_PRIVATE,
			ASYNC_SYSCALL_PENDING, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/etc/hostname";
	struct async_syscall e[3];
	unsigned int i;
	long ret;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
		return 1;
	}

	memset(e, 0, sizeof(e));
	e[0].nr = __NR_openat;
	e[0].args[0] = (__u64)AT_FDCWD;
	e[0].args[1] = (uintptr_t)path;
	e[0].args[2] = O_RDONLY;
	e[0].flags = ASYNC_SYSCALL_LINK;

	/* The fd is the result of entry 0. */
	e[1].nr = __NR_read;
	e[1].arg_refs = 1U << 0;
	e[1].args[0] = 0;
	e[1].args[1] = (uintptr_t)buf;
	e[1].args[2] = sizeof(buf);
	e[1].flags = ASYNC_SYSCALL_LINK;

	/* Entry 0 again, not the byte count of entry 1. */
	e[2].nr = __NR_close;
	e[2].arg_refs = 1U << 0;
	e[2].args[0] = 0;

	ret = syscall(__NR_async_submit, e, 3, sizeof(e[0]), 0);
	if (ret < 0) {
		if (errno == ENOSYS)
			fprintf(stderr, "async_submit(): not supported by this kernel\n");
		else
			fprintf(stderr, "async_submit(): %s\n", strerror(errno));
		return 1;
	}
	if (ret != 3) {
		fprintf(stderr, "async_submit(): queued %ld entries instead of 3\n",
			ret);
		return 1;
	}

	/* Entries of a chain complete in order: the last one is enough. */
	wait_done(&e[2]);

	for (i = 0; i < 3; i++) {
		if (e[i].result < 0)
			printf("%-6s = %lld (%s)\n", names[i],
			       (long long)e[i].result, strerror(-e[i].result));
		else
			printf("%-6s = %lld\n", names[i], (long long)e[i].result);
	}

	fflush(stdout);
	for (i = 0; i < 3; i++) {
		if (e[i].result < 0) {
			fprintf(stderr, "%s: %s: %s\n", path, names[i],
				strerror(-e[i].result));
			return 1;
		}
	}

	printf("--- %s (%lld bytes) ---\n", path, (long long)e[1].result);
	if (fwrite(buf, 1, e[1].result, stdout) != (size_t)e[1].result ||
	    fflush(stdout)) {
		fprintf(stderr, "stdout: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
