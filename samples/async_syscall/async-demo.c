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
 *	2: close(<result of 0>)	(runs even if the read failed)
 *
 * The entries run in order on a worker thread of this process.  The demo
 * then sleeps on the futex completion word of the last entry, prints the
 * result of each entry and the bytes read (at most 64 KiB).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <async_syscall/libasync.h>

static char buf[64 * 1024];

static const char *const names[] = { "openat", "read", "close" };

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/etc/hostname";
	struct async_syscall e[3];
	unsigned int i;
	long ret;
	int err;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
		return 1;
	}

	async_prep_openat(&e[0], AT_FDCWD, path, O_RDONLY, 0);
	/* The descriptor is the result of step 0 of the chain. */
	async_prep_read_ref(&e[1], 0, buf, sizeof(buf));
	/* The cleanup step: it runs even when the read fails. */
	async_prep_close_ref(&e[2], 0);
	async_chain(e, 3);
	ret = async_submit(e, 3, 0);
	if (ret < 0) {
		err = errno;
		fprintf(stderr, "async_submit(): %s%s\n", strerror(err),
			err == EPERM ?
			" (see sysctl kernel.async_syscall_disabled)" : "");
		return 1;
	}
	if (ret != 3) {
		fprintf(stderr, "async_submit(): queued %ld entries instead of 3\n",
			ret);
		return 1;
	}

	/* Entries of a chain complete in order: the last one is enough. */
	while (!async_done(&e[2]))
		async_wait(&e[2], NULL);

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
