// SPDX-License-Identifier: GPL-2.0
/*
 * acp: copy a file or a directory tree through async_submit().
 *
 *	acp [--chunk=BYTES] SRC DST
 *
 * As "cp -r": when DST is an existing directory, SRC is copied into it.
 * The tree is walked first: directories are created with mkdir() and
 * symbolic links copied as links on the spot, and every regular file
 * becomes a job.  Jobs then run as chains, up to MAX_JOBS per
 * async_submit() call and two calls in flight:
 *
 *	0: openat(SRC, O_RDONLY)
 *	1: openat(DST, O_WRONLY | O_CREAT | O_TRUNC, mode)
 *	2: copy_file_range(<0>, &off_in, <1>, &off_out, chunk)
 *	   ... as many as the file needs, plus one to see the end of file
 *	n: close(<1>)		(ASYNC_SYSCALL_RUN_ANYWAY)
 *	n+1: close(<0>)		(ASYNC_SYSCALL_RUN_ANYWAY)
 *
 * The kernel updates off_in and off_out after each copy, so the copies of
 * a chain continue where the previous one stopped.  A file that needs more
 * than MAX_COPIES copies, or that grew, gets another chain from where the
 * last one ended.  copy_file_range() does not copy between two file
 * systems that lack a common implementation (EXDEV); such a file is copied
 * with sendfile() instead, after an lseek() of the destination.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <async_syscall/libasync.h>

#define MAX_JOBS	32	/* chains per async_submit() call */
#define MAX_COPIES	8	/* copy entries per chain */
#define CHAIN_MAX	(MAX_COPIES + 5)
#define DEFAULT_CHUNK	(1024UL * 1024 * 1024)

struct job {
	char *src, *dst;
	mode_t mode;
	off_t size;		/* at the time of the walk */
	/* Updated by copy_file_range() and sendfile() as they copy. */
	loff_t off_in, off_out;
	bool use_sendfile;	/* copy_file_range() refused the pair */
	bool truncated;		/* a chain opened DST with O_TRUNC */
};

/* Where one job's chain is in a batch. */
struct slot {
	struct job *job;
	unsigned int first, nr;	/* entries of the chain */
	unsigned int copy, nr_copies;	/* the copy entries */
};

struct batch {
	struct async_syscall e[MAX_JOBS * CHAIN_MAX];
	struct slot slot[MAX_JOBS];
	unsigned int nr_slots, nr_entries;
};

struct dir_mode {
	char *path;
	mode_t mode;
};

static const char *prog = "acp";
static size_t chunk = DEFAULT_CHUNK;
static int status;

static struct job *jobs;
static size_t nr_jobs, jobs_cap;
static struct dir_mode *dirs;
static size_t nr_dirs, dirs_cap;

/* The directory being created at DST, not to be copied into itself. */
static dev_t top_dev;
static ino_t top_ino;
static bool have_top;

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--chunk=BYTES] SRC DST\n"
		"Copy SRC to DST, recursively for a directory, with open, copy and\n"
		"close of each file chained in async_submit() calls.  When DST is an\n"
		"existing directory, SRC is copied into it.\n"
		"\n"
		"  --chunk=BYTES  bytes per copy_file_range() call (default 1 GiB)\n"
		"  --help         show this help\n",
		prog);
}

static void error(const char *path, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(err));
	status = 1;
}

static void out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", prog);
	exit(1);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	p = realloc(p, n * size);
	if (!p)
		out_of_memory();
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory();
	return p;
}

static char *join(const char *dir, const char *name)
{
	size_t len = strlen(dir);
	char *p;

	p = xrealloc(NULL, len + strlen(name) + 2, 1);
	sprintf(p, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
	return p;
}

static void add_job(const char *src, const char *dst, const struct stat *st)
{
	struct job *j;

	if (nr_jobs == jobs_cap) {
		jobs_cap = jobs_cap ? 2 * jobs_cap : 64;
		jobs = xrealloc(jobs, jobs_cap, sizeof(*jobs));
	}
	j = &jobs[nr_jobs++];
	memset(j, 0, sizeof(*j));
	j->src = xstrdup(src);
	j->dst = xstrdup(dst);
	j->mode = st->st_mode & 07777;
	j->size = st->st_size;
}

static void copy_link(const char *src, const char *dst, const struct stat *st)
{
	size_t size = st->st_size ? st->st_size + 1 : PATH_MAX;
	char *target = xrealloc(NULL, size, 1);
	ssize_t len;

	len = readlink(src, target, size);
	if (len < 0) {
		error(src, errno);
	} else if ((size_t)len == size) {
		error(src, ENAMETOOLONG);
	} else {
		target[len] = '\0';
		if (symlink(target, dst))
			error(dst, errno);
	}
	free(target);
}

static void walk(const char *src, const char *dst);

static void copy_dir(const char *src, const char *dst, const struct stat *st)
{
	struct stat dst_st;
	struct dirent *d;
	bool created;
	char *s, *t;
	DIR *dir;

	if (have_top && st->st_dev == top_dev && st->st_ino == top_ino) {
		fprintf(stderr, "%s: %s: not copying a directory into itself\n",
			prog, src);
		status = 1;
		return;
	}
	/* Writable until the end, whatever mode SRC has. */
	created = !mkdir(dst, 0700);
	if (!created && errno != EEXIST) {
		error(dst, errno);
		return;
	}
	if (stat(dst, &dst_st)) {
		error(dst, errno);
		return;
	}
	if (!S_ISDIR(dst_st.st_mode)) {
		error(dst, ENOTDIR);
		return;
	}
	if (!have_top) {
		top_dev = dst_st.st_dev;
		top_ino = dst_st.st_ino;
		have_top = true;
	}
	/* A directory that was there keeps its mode. */
	if (created) {
		if (nr_dirs == dirs_cap) {
			dirs_cap = dirs_cap ? 2 * dirs_cap : 64;
			dirs = xrealloc(dirs, dirs_cap, sizeof(*dirs));
		}
		dirs[nr_dirs].path = xstrdup(dst);
		dirs[nr_dirs++].mode = st->st_mode & 07777;
	}

	dir = opendir(src);
	if (!dir) {
		error(src, errno);
		return;
	}
	for (;;) {
		errno = 0;
		d = readdir(dir);
		if (!d) {
			if (errno)
				error(src, errno);
			break;
		}
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		s = join(src, d->d_name);
		t = join(dst, d->d_name);
		walk(s, t);
		free(s);
		free(t);
	}
	closedir(dir);
}

/* Create DST's directories and links, and queue its files. */
static void walk(const char *src, const char *dst)
{
	struct stat st;

	if (lstat(src, &st)) {
		error(src, errno);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		copy_dir(src, dst, &st);
	} else if (S_ISREG(st.st_mode)) {
		add_job(src, dst, &st);
	} else if (S_ISLNK(st.st_mode)) {
		copy_link(src, dst, &st);
	} else {
		fprintf(stderr, "%s: %s: not a regular file, directory or link, skipped\n",
			prog, src);
		status = 1;
	}
}

/* Append the next chain of @j to @b. */
static void prep_chain(struct batch *b, struct job *j)
{
	struct slot *s = &b->slot[b->nr_slots++];
	struct async_syscall *e = &b->e[b->nr_entries];
	int oflags = O_WRONLY | O_CREAT | O_CLOEXEC;
	unsigned long long left;
	unsigned int i, n = 0;

	if (!j->truncated)
		oflags |= O_TRUNC;
	j->truncated = true;
	/* Enough copies for the rest of the file, and one that sees its end. */
	left = j->size > j->off_in ? j->size - j->off_in : 0;
	s->nr_copies = left / chunk + !!(left % chunk) + 1;
	if (s->nr_copies > MAX_COPIES)
		s->nr_copies = MAX_COPIES;

	async_prep_openat(&e[n++], AT_FDCWD, j->src, O_RDONLY | O_CLOEXEC, 0);
	async_prep_openat(&e[n++], AT_FDCWD, j->dst, oflags, j->mode);
	if (j->use_sendfile) {
		/* sendfile() writes at the file position. */
		async_prep(&e[n], __NR_lseek, 0, j->off_out, SEEK_SET, 0, 0, 0);
		async_ref(&e[n++], 0, b->nr_entries + 1);
	}
	s->copy = n;
	for (i = 0; i < s->nr_copies; i++, n++) {
		if (j->use_sendfile) {
			async_prep(&e[n], __NR_sendfile, 0, 0,
				   async_ptr(&j->off_in), chunk, 0, 0);
			async_ref(&e[n], 0, b->nr_entries + 1);
			async_ref(&e[n], 1, b->nr_entries);
		} else {
			async_prep(&e[n], __NR_copy_file_range, 0,
				   async_ptr(&j->off_in), 0,
				   async_ptr(&j->off_out), chunk, 0);
			async_ref(&e[n], 0, b->nr_entries);
			async_ref(&e[n], 2, b->nr_entries + 1);
		}
	}
	/* Close what was opened even when a copy failed. */
	async_prep_close(&e[n], -1);
	async_ref(&e[n], 0, b->nr_entries + 1);
	async_run_anyway(&e[n++]);
	async_prep_close(&e[n], -1);
	async_ref(&e[n], 0, b->nr_entries);
	async_run_anyway(&e[n++]);
	async_chain(e, n);

	s->job = j;
	s->first = b->nr_entries;
	s->nr = n;
	b->nr_entries += n;
}

static void submit(struct batch *b)
{
	long ret = async_submit(b->e, b->nr_entries, 0);
	int err = errno;

	if (ret == b->nr_entries)
		return;
	if (ret >= 0)
		fprintf(stderr, "%s: async_submit(): queued %ld of %u entries\n",
			prog, ret, b->nr_entries);
	else
		fprintf(stderr, "%s: async_submit(): %s%s\n", prog, strerror(err),
			err == EPERM ? " (see sysctl kernel.async_syscall_disabled)" : "");
	exit(1);
}

static void wait_batch(struct batch *b)
{
	struct async_syscall *last;
	unsigned int i;

	for (i = 0; i < b->nr_slots; i++) {
		last = &b->e[b->slot[i].first + b->slot[i].nr - 1];
		while (!async_done(last))
			async_wait(last, NULL);
	}
}

/* Whether copy_file_range() failed because of the pair of files. */
static bool try_sendfile(int err)
{
	return err == EXDEV || err == EOPNOTSUPP;
}

/* Look at a finished chain: true if its job needs another one. */
static bool finish_chain(struct batch *b, struct slot *s)
{
	struct async_syscall *e = &b->e[s->first];
	struct job *j = s->job;
	bool at_end = false, again = false;
	unsigned int i;
	__s64 res;

	if (e[0].result < 0) {
		error(j->src, -e[0].result);
		return false;
	}
	if (e[1].result < 0) {
		error(j->dst, -e[1].result);
		return false;
	}
	if (j->use_sendfile && e[2].result < 0) {
		error(j->dst, -e[2].result);
		return false;
	}
	for (i = 0; i < s->nr_copies; i++) {
		res = e[s->copy + i].result;
		if (res < 0) {
			if (!j->use_sendfile && try_sendfile(-res) && !i &&
			    !j->off_in) {
				j->use_sendfile = true;
				again = true;
			} else {
				fprintf(stderr, "%s: copying %s to %s: %s\n",
					prog, j->src, j->dst, strerror(-res));
				status = 1;
			}
			break;
		}
		if (!res) {
			at_end = true;
			break;
		}
		/* copy_file_range() moved off_out itself. */
		if (j->use_sendfile)
			j->off_out += res;
	}
	res = e[s->nr - 2].result;
	if (res < 0) {
		fprintf(stderr, "%s: %s: close: %s\n", prog, j->dst,
			strerror(-res));
		status = 1;
		return false;
	}
	if (i == s->nr_copies && !at_end)
		again = true;
	return again;
}

static void copy_files(void)
{
	struct batch *batch[2], *b;
	struct job **redo;
	size_t next = 0, nr_redo = 0;
	unsigned int i, cur = 0;
	bool busy[2] = { false, false };

	batch[0] = xrealloc(NULL, 1, sizeof(struct batch));
	batch[1] = xrealloc(NULL, 1, sizeof(struct batch));
	redo = xrealloc(NULL, 2 * MAX_JOBS, sizeof(*redo));

	for (;;) {
		/* Fill and submit the idle batches. */
		for (i = 0; i < 2; i++) {
			b = batch[(cur + i) % 2];
			if (busy[(cur + i) % 2])
				continue;
			b->nr_slots = 0;
			b->nr_entries = 0;
			while (b->nr_slots < MAX_JOBS && nr_redo)
				prep_chain(b, redo[--nr_redo]);
			while (b->nr_slots < MAX_JOBS && next < nr_jobs)
				prep_chain(b, &jobs[next++]);
			if (!b->nr_slots)
				continue;
			submit(b);
			busy[(cur + i) % 2] = true;
		}
		if (!busy[cur])
			cur ^= 1;
		if (!busy[cur])
			break;

		/* The oldest batch: its jobs may go on in the next one. */
		b = batch[cur];
		wait_batch(b);
		for (i = 0; i < b->nr_slots; i++) {
			if (finish_chain(b, &b->slot[i]))
				redo[nr_redo++] = b->slot[i].job;
		}
		busy[cur] = false;
		cur ^= 1;
	}
	free(batch[0]);
	free(batch[1]);
	free(redo);
}

/* DST, or DST/basename(SRC) when DST is a directory. */
static char *target(const char *src, const char *dst)
{
	char *copy, *base, *t;
	struct stat st;
	size_t len;

	if (stat(dst, &st) || !S_ISDIR(st.st_mode))
		return xstrdup(dst);
	copy = xstrdup(src);
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	base = strrchr(copy, '/');
	base = base && base[1] ? base + 1 : copy;
	t = join(dst, base);
	free(copy);
	return t;
}

static int parse_chunk(const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	/* At most what one copy_file_range() copies. */
	if (errno || end == arg || *end || !v || v > 0x7ffff000ULL) {
		fprintf(stderr, "%s: --chunk=%s: not a size from 1 to 2147479552\n",
			prog, arg);
		return -1;
	}
	chunk = v;
	return 0;
}

int main(int argc, char **argv)
{
	const char *args[2];
	int i, nr_args = 0;
	char *dst;
	size_t k;

	if (argc > 0)
		prog = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_usage(stdout);
			return 0;
		} else if (!strncmp(argv[i], "--chunk=", 8)) {
			if (parse_chunk(argv[i] + 8))
				return 1;
		} else if (!strcmp(argv[i], "--")) {
			for (i++; i < argc && nr_args < 2; i++)
				args[nr_args++] = argv[i];
			if (i < argc)
				nr_args = 3;
			break;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "%s: unknown option %s\n", prog, argv[i]);
			print_usage(stderr);
			return 1;
		} else if (nr_args < 2) {
			args[nr_args++] = argv[i];
		} else {
			nr_args = 3;
		}
	}
	if (nr_args != 2) {
		print_usage(stderr);
		return 1;
	}

	dst = target(args[0], args[1]);
	walk(args[0], dst);
	copy_files();
	/* Directory modes last: SRC's may not let us write. */
	for (k = 0; k < nr_dirs; k++) {
		if (chmod(dirs[k].path, dirs[k].mode))
			error(dirs[k].path, errno);
	}
	return status;
}
