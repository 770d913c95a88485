// SPDX-License-Identifier: GPL-2.0
/*
 * aread-timeout: read standard input, giving up after a timeout.
 *
 *	aread-timeout SECONDS
 *
 * One read(0, buf, size) entry is submitted; the queue waits for it with a
 * relative timeout.  When the time is up, the entry is cancelled and reaped
 * all the same: a cancel that arrives after the read completed changes
 * nothing, and the bytes are kept.  Exit status: 0 with data, 1 at end of
 * input or on an error, 2 on a timeout.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <async_syscall/libasync.h>

int main(int argc, char **argv)
{
	struct async_queue_chain done;
	struct timespec timeout = { 0 };
	struct async_syscall e;
	struct async_queue q;
	static char buf[4096];
	long cancelled = 0, secs;
	char *end;
	int ret;

	secs = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	if (argc != 2 || *end || end == argv[1] || secs < 0 || secs > 86400) {
		fprintf(stderr, "usage: %s SECONDS (0 to 86400)\n", argv[0]);
		return 1;
	}
	timeout.tv_sec = secs;
	if (async_queue_init(&q, 1))
		return 1;

	async_prep_read(&e, STDIN_FILENO, buf, sizeof(buf));
	ret = async_queue_add(&q, &e, 1, 0);
	if (!ret)
		ret = async_queue_submit(&q);
	if (ret < 0) {
		fprintf(stderr, "%s: async_submit(): %s\n", argv[0],
			strerror(-ret));
		return 1;
	}

	ret = async_queue_reap(&q, &done, 1, &timeout);
	if (ret == -ETIMEDOUT) {
		/* 1 if the read was still waiting, 0 if it had completed. */
		cancelled = async_cancel(&e, 1);
		ret = async_queue_reap(&q, &done, 1, NULL);
	}
	if (ret != 1) {
		fprintf(stderr, "%s: reap: %s\n", argv[0], strerror(-ret));
		return 1;
	}
	async_queue_exit(&q);

	if (e.result == -EINTR || e.result == -ECANCELED) {
		fprintf(stderr, "%s: no input within %s s (cancelled: %ld)\n",
			argv[0], argv[1], cancelled);
		return 2;
	}
	if (e.result < 0) {
		fprintf(stderr, "%s: read: %s\n", argv[0], strerror(-e.result));
		return 1;
	}
	if (fwrite(buf, 1, e.result, stdout) != (size_t)e.result ||
	    fflush(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", argv[0],
			strerror(errno));
		return 1;
	}
	return e.result ? 0 : 1;
}
