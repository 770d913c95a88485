// SPDX-License-Identifier: GPL-2.0
/*
 * acat: concatenate files to standard output through async_submit().
 *
 *	acat FILE...
 *
 * Each file is opened and read by one chain:
 *
 *	0: openat(AT_FDCWD, FILE, O_RDONLY)
 *	1: fstat(<result of 0>, &st)
 *	2: read(<result of 0>, buf, CHUNK)
 *
 * A file that is not at its end after that is read by chains of reads on
 * the same descriptor, NR_READS buffers per chain for a regular file and
 * one for anything else (a pipe or a terminal must not be asked for more
 * than cat would ask).  While one chain runs, the buffers of the previous
 * one are written out.  A last chain closes the file.
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
#define NR_READS	8

/* One chain of reads in flight and the buffers it reads into. */
struct batch {
	struct async_syscall e[NR_READS + 2];
	unsigned int first;	/* index of the first read */
	unsigned int nr;	/* entries submitted */
	char *buf[NR_READS];
};

static const char *prog = "acat";

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s FILE...\n"
		"Write each FILE to standard output, reading it with async_submit():\n"
		"openat, read and close run on worker threads of this process.\n",
		prog);
}

/* Report why async_submit() itself failed, and exit. */
static void submit_failed(void)
{
	int err = errno;

	fprintf(stderr, "%s: async_submit(): %s%s\n", prog, strerror(err),
		err == EPERM ? " (see sysctl kernel.async_syscall_disabled)" : "");
	exit(1);
}

static void submit(struct async_syscall *e, unsigned int nr)
{
	long ret = async_submit(e, nr, 0);

	if (ret < 0)
		submit_failed();
	if (ret != nr) {
		fprintf(stderr, "%s: async_submit(): queued %ld of %u entries\n",
			prog, ret, nr);
		exit(1);
	}
}

/* Wait for the last entry of a chain: the chain runs in order. */
static void wait_chain(struct batch *b)
{
	struct async_syscall *last = &b->e[b->nr - 1];

	while (!async_done(last))
		async_wait(last, NULL);
}

static void write_all(const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(STDOUT_FILENO, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: write error: %s\n", prog,
				strerror(errno));
			exit(1);
		}
		p += n;
		len -= n;
	}
}

/*
 * Write out what the reads of @b got.  Return 1 at end of file, -1 after
 * a read error (reported), 0 if there may be more to read.
 */
static int flush_batch(struct batch *b, const char *path)
{
	unsigned int i;
	__s64 res;

	for (i = 0; b->first + i < b->nr; i++) {
		res = b->e[b->first + i].result;
		if (res < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(-res));
			return -1;
		}
		if (res == 0)
			return 1;
		write_all(b->buf[i], res);
	}
	return 0;
}

/* Chain of @nr reads of @fd into the buffers of @b. */
static void prep_reads(struct batch *b, int fd, unsigned int nr)
{
	unsigned int i;

	b->first = 0;
	b->nr = nr;
	for (i = 0; i < nr; i++)
		async_prep_read(&b->e[i], fd, b->buf[i], CHUNK);
	async_chain(b->e, nr);
}

static void close_file(int fd, const char *path)
{
	struct async_syscall e;

	async_prep_close(&e, fd);
	if (async_submit_wait(&e, 1) != 1)
		submit_failed();
	if (e.result < 0)
		fprintf(stderr, "%s: %s: close: %s\n", prog, path,
			strerror(-e.result));
}

/* Copy one file to standard output: 0, or 1 after reporting an error. */
static int cat_file(const char *path, struct batch *batch)
{
	struct batch *cur = &batch[0], *next = &batch[1], *tmp;
	unsigned int per_chain;
	struct stat st;
	int fd, ret;
	bool more;

	/* openat, fstat and the first read in one chain. */
	async_prep_openat(&cur->e[0], AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	async_prep_fstat(&cur->e[1], -1, &st);
	async_ref(&cur->e[1], 0, 0);
	async_prep_read(&cur->e[2], -1, cur->buf[0], CHUNK);
	async_ref(&cur->e[2], 0, 0);
	async_chain(cur->e, 3);
	cur->first = 2;
	cur->nr = 3;
	submit(cur->e, cur->nr);
	wait_chain(cur);

	if (cur->e[0].result < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			strerror(-cur->e[0].result));
		return 1;
	}
	fd = cur->e[0].result;
	if (cur->e[1].result < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			strerror(-cur->e[1].result));
		close_file(fd, path);
		return 1;
	}
	per_chain = S_ISREG(st.st_mode) ? NR_READS : 1;

	for (;;) {
		/* Read ahead while the last read of this chain got bytes. */
		more = cur->e[cur->nr - 1].result > 0;
		if (more) {
			prep_reads(next, fd, per_chain);
			submit(next->e, next->nr);
		}
		ret = flush_batch(cur, path);
		if (more)
			wait_chain(next);
		if (ret)
			break;
		tmp = cur;
		cur = next;
		next = tmp;
	}
	close_file(fd, path);
	return ret < 0;
}

int main(int argc, char **argv)
{
	struct batch batch[2];
	int i, j, status = 0;

	if (argc > 0)
		prog = argv[0];
	if (argc < 2) {
		print_usage(stderr);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_usage(stdout);
			return 0;
		}
	}
	for (i = 0; i < 2; i++) {
		for (j = 0; j < NR_READS; j++) {
			batch[i].buf[j] = malloc(CHUNK);
			if (!batch[i].buf[j]) {
				fprintf(stderr, "%s: out of memory\n", prog);
				return 1;
			}
		}
	}
	for (i = 1; i < argc; i++)
		status |= cat_file(argv[i], batch);
	return status;
}
