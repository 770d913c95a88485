// SPDX-License-Identifier: GPL-2.0
/*
 * alog: append standard input to a file durably, with ranged syncs.
 *
 *	alog [-v] FILE
 *
 * Input is cut into batches of up to BATCH bytes.  Each batch is one chain:
 *
 *	0..k-1: pwrite(fd, block, BLOCK, off)
 *	k:	fsync_range(fd, start, length, ASYNC_FSYNC_DATASYNC)
 *
 * so that a batch is durable when its chain completes, and only its own
 * bytes are synced: the ranged data sync that fsync() and fdatasync() do
 * not offer.  Up to DEPTH batches are in flight while the next ones are
 * read.  They may complete out of order; with -v, the input is reported
 * durable up to a byte once every batch up to it is.  A new FILE's
 * directory entry is synced first.  FILE must have no other writer.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/stat.h>
#include <async_syscall/libasync.h>

#define BLOCK		(64 * 1024)
#define BLOCKS		8
#define BATCH		(BLOCK * BLOCKS)
#define DEPTH		4

struct batch {
	struct async_syscall e[BLOCKS + 1];
	unsigned int nr;	/* entries in the chain */
	off_t start;
	size_t len;
	char *buf;
	bool finished;		/* reaped, not yet reported */
};

static const char *prog = "alog";
static struct batch batch[DEPTH];
static struct async_queue q;
static bool verbose;

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s%s\n", prog, what, strerror(err),
		err == EPERM ? " (see sysctl kernel.async_syscall_disabled)" : "");
	exit(1);
}

/* Fill @b from standard input: false at end of input. */
static bool read_batch(struct batch *b)
{
	ssize_t n;

	b->len = 0;
	while (b->len < BATCH) {
		n = read(STDIN_FILENO, b->buf + b->len, BATCH - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("standard input", errno);
		if (!n)
			break;
		b->len += n;
	}
	return b->len;
}

static void queue_batch(struct batch *b, unsigned int index, int fd,
			off_t off)
{
	size_t done, len;
	int ret;

	b->start = off;
	b->nr = 0;
	for (done = 0; done < b->len; done += len) {
		len = b->len - done < BLOCK ? b->len - done : BLOCK;
		async_prep_pwrite(&b->e[b->nr++], fd, b->buf + done, len,
				  off + done);
	}
	async_prep_fsync_range(&b->e[b->nr++], fd, off, b->len,
			       ASYNC_FSYNC_DATASYNC);
	ret = async_queue_add(&q, b->e, b->nr, index);
	if (!ret)
		ret = async_queue_submit(&q);
	if (ret < 0)
		die("async_submit()", -ret);
}

/*
 * Check a finished batch: every write whole, then the sync.  The first
 * error that is not a -ECANCELED of an entry after it is the cause.
 */
static void check_batch(struct batch *b)
{
	unsigned int i;
	__s64 res;

	for (i = 0; i < b->nr; i++) {
		res = b->e[i].result;
		if (res == -ECANCELED)
			continue;
		if (res < 0)
			die(i + 1 < b->nr ? "pwrite" : "fsync_range", -res);
		if (i + 1 < b->nr && res != (__s64)b->e[i].args[2])
			die("pwrite", EIO);	/* short: the disk is full */
	}
	if (b->e[0].result == -ECANCELED)
		die("async_submit()", ECANCELED);
}

/* A new file's name must be durable too. */
static void sync_dir_of(char *path)
{
	int dfd = open(dirname(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 || fsync(dfd))
		die("sync of the directory", errno);
	close(dfd);
}

int main(int argc, char **argv)
{
	unsigned long long next = 0, reported = 0;	/* batch numbers */
	struct async_queue_chain done[DEPTH];
	struct batch *b;
	bool created, more = true;
	struct stat st;
	char *path;
	unsigned int i;
	off_t off;
	int fd, n, ret;

	if (argc > 0)
		prog = argv[0];
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = true;
		argc--;
		argv++;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s [-v] FILE < data\n", prog);
		return 1;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	created = fd >= 0;
	if (!created && errno == EEXIST)
		fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die(argv[1], errno);
	path = strdup(argv[1]);
	if (created && path)
		sync_dir_of(path);
	free(path);
	off = st.st_size;
	ret = async_queue_init(&q, DEPTH * (BLOCKS + 1));
	if (ret)
		die("async_queue_init()", -ret);
	for (i = 0; i < DEPTH; i++) {
		batch[i].buf = malloc(BATCH);
		if (!batch[i].buf)
			die("malloc", ENOMEM);
	}

	/* Batch k uses batch[k % DEPTH], free once k - DEPTH is reported. */
	while (more || reported < next) {
		if (more && next - reported < DEPTH) {
			b = &batch[next % DEPTH];
			more = read_batch(b);
			if (more) {
				queue_batch(b, next % DEPTH, fd, off);
				off += b->len;
				next++;
			}
			continue;
		}
		n = async_queue_reap(&q, done, DEPTH, NULL);
		if (n < 0 && n != -EINTR)
			die("async_queue_reap()", -n);
		for (i = 0; i < (unsigned int)(n > 0 ? n : 0); i++)
			batch[done[i].user_data].finished = true;
		/* In order: a batch is reported once those before it are. */
		while (reported < next && batch[reported % DEPTH].finished) {
			b = &batch[reported % DEPTH];
			check_batch(b);
			b->finished = false;
			if (verbose)
				fprintf(stderr, "%s: bytes up to %lld durable\n",
					prog, (long long)(b->start + b->len));
			reported++;
		}
	}
	if (close(fd))
		die(argv[1], errno);
	return 0;
}
