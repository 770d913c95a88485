// SPDX-License-Identifier: GPL-2.0
/*
 * acat: a parallel cat through async_submit() and struct async_queue.
 *
 *	acat FILE...
 *
 * Up to MAX_OPEN files are opened and read at once, each by one chain:
 *
 *	0: openat(AT_FDCWD, FILE, O_RDONLY)
 *	1: fstat(<0>, &st)
 *	2: read(<0>, buf, CHUNK)
 *
 * The chains lie back to back in one array, so that the queue submits
 * those staged together in one call.  Output stays in the order of the
 * arguments: a file is written out when every file before it is.  A
 * regular file whose size fstat() gave is complete once that many bytes
 * are read; any other file (a pipe, a file of /proc, which says 0) is read
 * on by one-entry chains, from the time it is first in line, until read()
 * returns 0.  A close chain ends each file.  The queue reaps whatever
 * finishes, in any order.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <async_syscall/libasync.h>

#define CHUNK		(128 * 1024)
#define MAX_OPEN	32

/* One file being read, in slot (file index % MAX_OPEN). */
struct file {
	const char *path;
	struct async_syscall *e;	/* open chain, then reads */
	struct async_syscall close;
	struct stat st;
	off_t done;		/* bytes written out */
	char *buf;
	int fd;
	bool ready;		/* the last chain on e[] is reaped */
	bool closing;		/* the close chain is in flight */
	bool first;		/* e[] holds the open chain */
};

/* user_data of a chain: file index, and whether it is the close chain. */
#define TAG_CLOSE	1ULL

static const char *prog = "acat";
static struct async_queue q;
static struct file slot[MAX_OPEN];
static struct async_syscall chain[MAX_OPEN][3];
static int status;

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s%s\n", prog, what, strerror(err),
		err == EPERM ? " (see sysctl kernel.async_syscall_disabled)" : "");
	exit(1);
}

static void add(struct async_syscall *e, unsigned int nr, uint64_t data)
{
	int ret = async_queue_add(&q, e, nr, data);

	if (ret)
		die("async_queue_add()", -ret);
}

static void write_all(const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(STDOUT_FILENO, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write error", errno);
		p += n;
		len -= n;
	}
}

static void open_file(unsigned int i, const char *path)
{
	struct file *f = &slot[i % MAX_OPEN];

	f->path = path;
	f->fd = -1;
	f->done = 0;
	f->ready = false;
	f->first = true;
	async_prep_openat(&f->e[0], AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	async_prep_fstat_ref(&f->e[1], 0, &f->st);
	async_prep_read_ref(&f->e[2], 0, f->buf, CHUNK);
	add(f->e, 3, (uint64_t)i << 1);
}

static void close_file(unsigned int i)
{
	struct file *f = &slot[i % MAX_OPEN];

	f->ready = false;
	if (f->fd < 0)
		return;
	async_prep_close(&f->close, f->fd);
	add(&f->close, 1, (uint64_t)i << 1 | TAG_CLOSE);
	f->closing = true;
}

static bool failed(struct file *f, const char *step, __s64 res)
{
	if (res >= 0)
		return false;
	fprintf(stderr, "%s: %s: %s%s%s\n", prog, f->path, step,
		*step ? ": " : "", strerror(-res));
	status = 1;
	return true;
}

/*
 * Write out what the last chain of file @i read.  Returns true when the
 * file is done, false when another read is queued.
 */
static bool flush_file(unsigned int i)
{
	struct file *f = &slot[i % MAX_OPEN];
	struct async_syscall *rd = f->first ? &f->e[2] : &f->e[0];

	if (f->first) {
		f->first = false;
		if (failed(f, "", f->e[0].result))
			return true;
		f->fd = f->e[0].result;
		if (failed(f, "fstat", f->e[1].result))
			return true;
	}
	if (failed(f, "read", rd->result) || rd->result == 0)
		return true;
	write_all(f->buf, rd->result);
	f->done += rd->result;
	if (S_ISREG(f->st.st_mode) && f->st.st_size > 0 &&
	    f->done >= f->st.st_size)
		return true;
	f->ready = false;
	async_prep_read(&f->e[0], f->fd, f->buf, CHUNK);
	add(f->e, 1, (uint64_t)i << 1);
	return false;
}

static void reaped(const struct async_queue_chain *c)
{
	unsigned int i = c->user_data >> 1;
	struct file *f = &slot[i % MAX_OPEN];

	if (!(c->user_data & TAG_CLOSE)) {
		f->ready = true;
		return;
	}
	f->closing = false;
	f->fd = -1;
	failed(f, "close", f->close.result);
}

int main(int argc, char **argv)
{
	struct async_queue_chain done[2 * MAX_OPEN];
	unsigned int nr_files, head = 0, next = 0, i;
	int n, ret;

	if (argc > 0)
		prog = argv[0];
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: %s FILE...\n"
			"Write each FILE to standard output; up to %d files are opened\n"
			"and read at once, by chains of async_submit() entries.\n",
			prog, MAX_OPEN);
		return argc < 2;
	}
	nr_files = argc - 1;
	ret = async_queue_init(&q, 8 * MAX_OPEN);
	if (ret)
		die("async_queue_init()", -ret);
	for (i = 0; i < MAX_OPEN; i++) {
		slot[i].e = chain[i];
		slot[i].buf = malloc(CHUNK);
		if (!slot[i].buf)
			die("malloc", ENOMEM);
	}

	while (head < nr_files) {
		/* A slot is free once its file is written and closed. */
		while (next < nr_files && next < head + MAX_OPEN &&
		       !slot[next % MAX_OPEN].closing) {
			open_file(next, argv[1 + next]);
			next++;
		}
		ret = async_queue_submit(&q);
		if (ret < 0)
			die("async_submit()", -ret);
		/* The head may wait to be opened: its slot is closing. */
		if (head < next && slot[head % MAX_OPEN].ready) {
			if (flush_file(head))
				close_file(head++);
			continue;
		}
		n = async_queue_reap(&q, done, 2 * MAX_OPEN, NULL);
		if (n < 0 && n != -EINTR)
			die("async_queue_reap()", -n);
		for (i = 0; i < (unsigned int)(n > 0 ? n : 0); i++)
			reaped(&done[i]);
	}
	/* The last closes. */
	ret = async_queue_submit(&q);
	if (ret < 0)
		die("async_submit()", -ret);
	while (async_queue_pending(&q)) {
		n = async_queue_reap(&q, done, 2 * MAX_OPEN, NULL);
		if (n < 0 && n != -EINTR)
			die("async_queue_reap()", -n);
		for (i = 0; i < (unsigned int)(n > 0 ? n : 0); i++)
			reaped(&done[i]);
	}
	async_queue_exit(&q);
	return status;
}
