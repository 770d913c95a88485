// SPDX-License-Identifier: GPL-2.0
/*
 * P7: one tree copied three ways in one run: by coreutils "cp -a", by acp
 * (samples/async_syscall/acp.c: cp -a with every change to the copy an
 * async_submit() entry) and by an in-process copier on the 4-thread pool of
 * pool.h that does what cp -a does.
 *
 * The tree, made under $SCRATCH/p7/src: NDIRS directories of NFILES files
 * each, of 4 to 64 KiB, with distinct modes, times to the nanosecond, some
 * owners other than root (when run as root) and a user.* attribute each
 * (where the file system has them); in each directory NSYMLINKS symbolic
 * links (one dangling in every fifth) and one more name of a file of the
 * directory before.
 *
 * cp and acp are run with fork() and exec() (acp: BENCH_ACP, else the acp
 * next to this program, which bench/Makefile builds), their times from
 * fork() to wait4(), their CPU time from wait4()'s rusage: with the
 * async-wrk-* workers, which are threads of acp.  The pool copier walks
 * the tree in the calling thread as acp does (lstat(), readdir(),
 * readlink(), the attributes), then runs on the pool, each phase a batch
 * waited for: the directories, level by level (mkdir(0700)); the files
 * (open, copy_file_range() to the end, fchown, fsetxattr, fchmod,
 * futimens, close) and symbolic links (symlink, lchown, lsetxattr,
 * utimensat(AT_SYMLINK_NOFOLLOW)); the second names of hard links
 * (linkat() to the first copy); the directories' metadata.  Its CPU time
 * is the process's (RUSAGE_SELF), pool threads included.
 *
 * BENCH_CACHE="cold warm" (the default) runs each method with the page
 * cache dropped first (cold: the tools are run once before, so that only
 * the tree is read from the disk) and with the tree cached (warm).  Each
 * copy is checked against the tree and removed; the program fails if one
 * is wrong.  BENCH_METHOD="cp acp pool" and BENCH_REPS (default 1) apply.
 */
#include <limits.h>
#include <search.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "bench.h"
#include "pool.h"
#include <async_syscall/libasync.h>

#define NDIRS		20
#define NFILES		50		/* per directory */
#define NSYMLINKS	2		/* per directory */
#define MAX_FSIZE	(64 * 1024)
#define MTIME_BASE	1600000000L
#define XATTR_NAME	"user.p7"
#define COPY_CHUNK	(1024L * 1024 * 1024)	/* bytes per copy_file_range() */
#define FILE_SPECIAL	(S_ISUID | S_ISGID | S_ISVTX)
#define DIR_SPECIAL	(S_ISUID | S_ISGID)

enum { M_CP, M_ACP, M_POOL, NR_METHODS };
enum { C_COLD, C_WARM, NR_CACHES };

static const char *const method_names[NR_METHODS] = { "cp", "acp", "pool" };
static const char *const cache_names[NR_CACHES] = { "cold", "warm" };

struct xattr {
	char *name;
	void *value;
	size_t size;
};

/* One name of the tree. */
struct node {
	char *src, *dst;		/* dst: the pool copier's only */
	const char *rel;		/* below the top: "" or "/d00/f000" */
	struct stat st;
	char *target;			/* of a symbolic link */
	struct xattr *xattrs;
	unsigned int nr_xattrs;
	unsigned int depth;
	struct node *leader;		/* an earlier name of the same file */
	__u64 sum;			/* the reference's data checksum */
	ino_t copy_ino;			/* the copy's inode, when checked */
	const char *failed;		/* the step of the pool copier that failed */
	int err;
};

struct tree {
	struct node **v;
	unsigned int n, cap, max_depth;
	void *inodes;			/* tsearch() tree of files with links */
	unsigned int files, dirs, symlinks, links;
	__u64 bytes;			/* of the files, each once */
	__u64 name_bytes;		/* of the files, by every name */
};

struct cost {
	double wall_ns, cpu_ns, sys_ns;
};

static struct pool pool;
static bool privileged;
static bool have_xattrs;

static void *xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

static char *join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = xzalloc(len);

	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

/* Whether the space-separated @list names @name; an empty list, all. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *s;

	if (!list || !*list)
		return true;
	for (s = list; (s = strstr(s, name)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || !s[n]))
			return true;
	return false;
}

/* @fmt in @buf, of PATH_MAX bytes. */
static void path_of(char *buf, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (len < 0 || len >= PATH_MAX)
		die("a path too long under %s", scratch_dir());
}

static double tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1e9 + tv.tv_usec * 1e3;
}

/* --- The walk: the reference's, and the pool copier's ----------------- */

static int cmp_inode(const void *a, const void *b)
{
	const struct stat *x = &((const struct node *)a)->st;
	const struct stat *y = &((const struct node *)b)->st;

	if (x->st_dev != y->st_dev)
		return x->st_dev < y->st_dev ? -1 : 1;
	if (x->st_ino != y->st_ino)
		return x->st_ino < y->st_ino ? -1 : 1;
	return 0;
}

/* cp -a keeps these; security.selinux and the like are the policy's. */
static bool kept_xattr(const char *name)
{
	return !strncmp(name, "user.", 5) || !strncmp(name, "trusted.", 8) ||
	       !strcmp(name, "security.capability") ||
	       !strcmp(name, "system.posix_acl_access") ||
	       !strcmp(name, "system.posix_acl_default");
}

static void read_xattrs(struct node *n)
{
	ssize_t len, vlen;
	char *list, *name;
	struct xattr *x;

	len = llistxattr(n->src, NULL, 0);
	if (len < 0 && errno != EOPNOTSUPP)
		die("llistxattr %s: %s", n->src, strerror(errno));
	if (len <= 0)
		return;
	list = xzalloc(len);
	len = llistxattr(n->src, list, len);
	if (len < 0)
		die("llistxattr %s: %s", n->src, strerror(errno));
	for (name = list; name < list + len; name += strlen(name) + 1) {
		if (!kept_xattr(name))
			continue;
		vlen = lgetxattr(n->src, name, NULL, 0);
		if (vlen < 0)
			die("lgetxattr %s %s: %s", n->src, name, strerror(errno));
		n->xattrs = realloc(n->xattrs, (n->nr_xattrs + 1) * sizeof(*x));
		if (!n->xattrs)
			die("out of memory");
		x = &n->xattrs[n->nr_xattrs++];
		x->name = strdup(name);
		x->value = xzalloc(vlen);
		x->size = lgetxattr(n->src, name, x->value, vlen);
		if (!x->name || (ssize_t)x->size != vlen)
			die("lgetxattr %s %s: changed", n->src, name);
	}
	free(list);
}

static void add_node(struct tree *t, struct node *n)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		if (!t->v)
			die("out of memory");
	}
	t->v[t->n++] = n;
}

/*
 * Nodes for @src and what it holds, in pre-order; @dst, where it is to be
 * copied, is NULL for the reference.  Takes both strings.
 */
static void walk(struct tree *t, char *src, char *dst, size_t top_len,
		 unsigned int depth)
{
	struct node *n = xzalloc(sizeof(*n)), **found;
	struct dirent *de;
	DIR *d;

	if (lstat(src, &n->st))
		die("lstat %s: %s", src, strerror(errno));
	n->src = src;
	n->dst = dst;
	n->rel = src + top_len;
	n->depth = depth;
	add_node(t, n);
	if (S_ISLNK(n->st.st_mode)) {
		char buf[PATH_MAX];
		ssize_t len = readlink(src, buf, sizeof(buf) - 1);

		if (len < 0)
			die("readlink %s: %s", src, strerror(errno));
		buf[len] = '\0';
		n->target = strdup(buf);
		t->symlinks++;
	} else if (S_ISREG(n->st.st_mode)) {
		t->name_bytes += n->st.st_size;
		if (n->st.st_nlink > 1) {
			found = tsearch(n, &t->inodes, cmp_inode);
			if (!found)
				die("out of memory");
			if (*found != n) {
				/* cp links it to the first copy: nothing to read. */
				n->leader = *found;
				t->links++;
				return;
			}
		}
		t->files++;
		t->bytes += n->st.st_size;
	} else if (!S_ISDIR(n->st.st_mode)) {
		die("%s: not a file, directory or symbolic link", src);
	}
	read_xattrs(n);
	if (!S_ISDIR(n->st.st_mode))
		return;
	t->dirs++;
	if (depth > t->max_depth)
		t->max_depth = depth;
	d = opendir(src);
	if (!d)
		die("opendir %s: %s", src, strerror(errno));
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		walk(t, join(src, de->d_name),
		     dst ? join(dst, de->d_name) : NULL, top_len, depth + 1);
	}
	if (errno)
		die("readdir %s: %s", src, strerror(errno));
	closedir(d);
}

static void no_free(void *p)
{
}

static void free_tree(struct tree *t)
{
	unsigned int i, j;

	tdestroy(t->inodes, no_free);
	for (i = 0; i < t->n; i++) {
		struct node *n = t->v[i];

		for (j = 0; j < n->nr_xattrs; j++) {
			free(n->xattrs[j].name);
			free(n->xattrs[j].value);
		}
		free(n->xattrs);
		free(n->target);
		free(n->src);
		free(n->dst);
		free(n);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* --- The pool copier ---------------------------------------------------- */

/* Notes the first step of @n that failed: -1. */
static int step_failed(struct node *n, const char *step)
{
	if (!n->failed) {
		n->failed = step;
		n->err = errno;
	}
	return -1;
}

/* What cp -a sets on the copy, through @fd: owner, attributes, mode, times. */
static int copy_meta(struct node *n, int fd, mode_t special)
{
	struct timespec ts[2] = { n->st.st_atim, n->st.st_mtim };
	mode_t mode = n->st.st_mode & 07777;
	unsigned int i;

	if (fchown(fd, n->st.st_uid, n->st.st_gid)) {
		if (errno != EPERM || privileged)
			return step_failed(n, "fchown");
		/* As cp: the group at least, and no special bits. */
		if (fchown(fd, (uid_t)-1, n->st.st_gid) && errno != EPERM)
			return step_failed(n, "fchown");
		mode &= ~special;
	}
	for (i = 0; i < n->nr_xattrs; i++)
		if (fsetxattr(fd, n->xattrs[i].name, n->xattrs[i].value,
			      n->xattrs[i].size, 0) &&
		    errno != EOPNOTSUPP && errno != EPERM)
			return step_failed(n, "fsetxattr");
	if (fchmod(fd, mode))
		return step_failed(n, "fchmod");
	if (futimens(fd, ts))
		return step_failed(n, "futimens");
	return 0;
}

/* read() and write(), where copy_file_range() does not go. */
static int copy_rw(int in, int out)
{
	char *buf = xzalloc(128 * 1024), *p;
	ssize_t r, w;

	while ((r = read(in, buf, 128 * 1024)) > 0)
		for (p = buf; r; p += w, r -= w) {
			w = write(out, p, r);
			if (w < 0)
				goto out;
		}
out:
	free(buf);
	return r ? -1 : 0;
}

static int copy_data(int in, int out)
{
	bool first = true;
	ssize_t r;

	while ((r = copy_file_range(in, NULL, out, NULL, COPY_CHUNK, 0)) > 0)
		first = false;
	if (r < 0 && first &&
	    (errno == EXDEV || errno == EOPNOTSUPP || errno == EINVAL))
		return copy_rw(in, out);
	return r ? -1 : 0;
}

static int copy_file(struct node *n)
{
	int in, out, ret = -1;

	in = open(n->src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return step_failed(n, "open");
	out = open(n->dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		   0600);
	if (out < 0) {
		step_failed(n, "open");
	} else {
		if (copy_data(in, out))
			step_failed(n, "copy_file_range");
		else
			ret = copy_meta(n, out, FILE_SPECIAL);
		if (close(out))
			ret = step_failed(n, "close");
	}
	close(in);
	return ret;
}

static int copy_symlink(struct node *n)
{
	struct timespec ts[2] = { n->st.st_atim, n->st.st_mtim };
	unsigned int i;

	if (symlink(n->target, n->dst))
		return step_failed(n, "symlink");
	if (lchown(n->dst, n->st.st_uid, n->st.st_gid) &&
	    (errno != EPERM || privileged))
		return step_failed(n, "lchown");
	for (i = 0; i < n->nr_xattrs; i++)
		if (lsetxattr(n->dst, n->xattrs[i].name, n->xattrs[i].value,
			      n->xattrs[i].size, 0) &&
		    errno != EOPNOTSUPP && errno != EPERM)
			return step_failed(n, "lsetxattr");
	if (utimensat(AT_FDCWD, n->dst, ts, AT_SYMLINK_NOFOLLOW))
		return step_failed(n, "utimensat");
	return 0;
}

static void task_mkdir(struct pool_task *t)
{
	struct node *n = t->arg;

	/* Writable until its metadata is set, whatever the mode. */
	if (mkdir(n->dst, 0700))
		step_failed(n, "mkdir");
}

static void task_copy(struct pool_task *t)
{
	struct node *n = t->arg;

	if (S_ISLNK(n->st.st_mode))
		copy_symlink(n);
	else
		copy_file(n);
}

static void task_link(struct pool_task *t)
{
	struct node *n = t->arg;

	if (linkat(AT_FDCWD, n->leader->dst, AT_FDCWD, n->dst, 0))
		step_failed(n, "linkat");
}

static void task_dir_meta(struct pool_task *t)
{
	struct node *n = t->arg;
	int fd;

	fd = open(n->dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		step_failed(n, "open");
		return;
	}
	copy_meta(n, fd, DIR_SPECIAL);
	if (close(fd))
		step_failed(n, "close");
}

enum phase { P_MKDIR, P_COPY, P_LINK, P_DIR_META };

static bool in_phase(const struct node *n, enum phase p, unsigned int depth)
{
	bool dir = S_ISDIR(n->st.st_mode);

	switch (p) {
	case P_MKDIR:
		return dir && n->depth == depth;
	case P_COPY:
		return !dir && !n->leader;
	case P_LINK:
		return n->leader;
	case P_DIR_META:
		return dir;
	}
	return false;
}

/* One batch on the pool, waited for; false if a step failed. */
static bool run_phase(struct tree *t, struct pool_task *tasks, enum phase p,
		      unsigned int depth, void (*fn)(struct pool_task *t))
{
	unsigned int i, k = 0;
	bool ok = true;

	for (i = 0; i < t->n; i++) {
		if (!in_phase(t->v[i], p, depth))
			continue;
		tasks[k].fn = fn;
		tasks[k].arg = t->v[i];
		k++;
	}
	pool_submit(&pool, tasks, k);
	pool_wait(&pool);
	for (i = 0; i < k; i++) {
		struct node *n = tasks[i].arg;

		if (n->failed) {
			fprintf(stderr, "bench: pool copier: %s %s: %s\n",
				n->failed, n->dst, strerror(n->err));
			ok = false;
		}
	}
	return ok;
}

/* Copies @src to @dst as cp -a; returns 0, or 1 if a step failed. */
static int copy_pool(const char *src, const char *dst, struct cost *c)
{
	struct rusage r0, r1;
	struct tree t = { 0 };
	struct pool_task *tasks;
	unsigned int d;
	bool ok = true;
	__u64 t0;

	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	walk(&t, strdup(src), strdup(dst), strlen(src), 0);
	tasks = xzalloc(t.n * sizeof(*tasks));
	for (d = 0; ok && d <= t.max_depth; d++)
		ok = run_phase(&t, tasks, P_MKDIR, d, task_mkdir);
	ok = ok && run_phase(&t, tasks, P_COPY, 0, task_copy);
	ok = ok && run_phase(&t, tasks, P_LINK, 0, task_link);
	ok = ok && run_phase(&t, tasks, P_DIR_META, 0, task_dir_meta);
	c->wall_ns = now_ns() - t0;
	getrusage(RUSAGE_SELF, &r1);
	c->cpu_ns = tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime) +
		    tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime);
	c->sys_ns = tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime);
	free(tasks);
	free_tree(&t);
	return !ok;
}

/* --- The tools ------------------------------------------------------------ */

static const char *acp_path;

/* Runs @argv to its end: its exit status; its times in @c if not NULL. */
static int run_tool(char *const argv[], bool quiet, struct cost *c)
{
	struct rusage ru;
	int status, fd;
	__u64 t0;
	pid_t pid;

	fflush(stdout);
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		fd = quiet ? open("/dev/null", O_WRONLY) : -1;
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "bench: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4: %s", strerror(errno));
	if (c) {
		c->wall_ns = now_ns() - t0;
		c->cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
		c->sys_ns = tv_ns(ru.ru_stime);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int copy_cp(const char *src, const char *dst, struct cost *c)
{
	char *argv[5];

	argv[0] = "cp";
	argv[1] = "-a";
	argv[2] = (char *)src;
	argv[3] = (char *)dst;
	argv[4] = NULL;
	return run_tool(argv, false, c);
}

static int copy_acp(const char *src, const char *dst, struct cost *c)
{
	char *argv[4];

	argv[0] = (char *)acp_path;
	argv[1] = (char *)src;
	argv[2] = (char *)dst;
	argv[3] = NULL;
	return run_tool(argv, false, c);
}

/* The tool doing nothing: its start and exit, ahead of a timed copy. */
static int idle_run(int m, struct cost *c)
{
	char *argv[3];

	if (m == M_POOL)
		return 0;
	argv[0] = m == M_CP ? "cp" : (char *)acp_path;
	argv[1] = m == M_CP ? "--version" : "--help";
	argv[2] = NULL;
	return run_tool(argv, true, c);
}

static int (*const copy_fn[NR_METHODS])(const char *, const char *,
					struct cost *) = {
	copy_cp, copy_acp, copy_pool,
};

/* Whether acp can run here: says why not. */
static bool acp_usable(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("BENCH_ACP");
	char self[PATH_MAX], *slash;
	ssize_t len;

	if (env && *env) {
		acp_path = env;
	} else {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len < 0)
			die("readlink /proc/self/exe: %s", strerror(errno));
		self[len] = '\0';
		slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		path_of(path, "%s/acp", slash ? self : ".");
		acp_path = path;
	}
	if (access(acp_path, X_OK)) {
		fprintf(stderr, "bench: P7: acp skipped: %s: %s (BENCH_ACP names it)\n",
			acp_path, strerror(errno));
		return false;
	}
	if (async_abi_version() < 0) {
		fprintf(stderr, "bench: P7: acp skipped: async_submit(): %s (another kernel?)\n",
			strerror(errno));
		return false;
	}
	return true;
}

/* --- The tree, and checking its copies ------------------------------------ */

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write %s: %s", path, strerror(errno));
	close(fd);
}

static void set_times(const char *path, unsigned int k, int flags)
{
	/* Distinct to the nanosecond; atime after mtime. */
	struct timespec ts[2] = {
		{ MTIME_BASE + 86400 + k, 0 },
		{ MTIME_BASE + 61L * k, 1000L * k + 123 },
	};

	if (utimensat(AT_FDCWD, path, ts, flags))
		die("utimensat %s: %s", path, strerror(errno));
}

static void set_xattr(const char *path, unsigned int k)
{
	char value[32];
	int len = snprintf(value, sizeof(value), "p7 object %u", k);

	if (have_xattrs && setxattr(path, XATTR_NAME, value, len, 0)) {
		if (errno != EOPNOTSUPP)
			die("setxattr %s: %s", path, strerror(errno));
		have_xattrs = false;
	}
}

static void make_tree_file(const char *path, unsigned int k)
{
	static const mode_t modes[] = { 0644, 0600, 0755, 0640, 0444 };
	static unsigned char buf[MAX_FSIZE];
	size_t size = 4096 * (1 + (k * 7) % 16), j;
	int fd;

	for (j = 0; j < size; j++)
		buf[j] = k * 131 + j * 7 + (j >> 12) * 29;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
		die("write %s: %s", path, strerror(errno));
	if (fchmod(fd, modes[k % ARRAY_SIZE(modes)]) ||
	    (privileged && k % 4 == 3 && fchown(fd, 1000, 100)))
		die("chmod %s: %s", path, strerror(errno));
	close(fd);
	set_xattr(path, k);
}

static void make_tree(const char *top)
{
	char path[PATH_MAX], other[PATH_MAX], target[64];
	unsigned int i, j, k;

	have_xattrs = true;
	if (mkdir(top, 0700))
		die("mkdir %s: %s", top, strerror(errno));
	for (i = 0; i < NDIRS; i++) {
		path_of(path, "%s/d%02u", top, i);
		if (mkdir(path, 0700))
			die("mkdir %s: %s", path, strerror(errno));
		for (j = 0; j < NFILES; j++) {
			path_of(path, "%s/d%02u/f%03u", top, i, j);
			make_tree_file(path, i * NFILES + j);
		}
	}
	for (i = 0; i < NDIRS; i++) {
		unsigned int prev = (i + NDIRS - 1) % NDIRS;

		for (j = 0; j < NSYMLINKS; j++) {
			if (!j)
				snprintf(target, sizeof(target), "f%03u", i % NFILES);
			else if (i % 5)
				snprintf(target, sizeof(target), "../d%02u/f%03u",
					 prev, j);
			else
				snprintf(target, sizeof(target), "nowhere");
			path_of(path, "%s/d%02u/s%u", top, i, j);
			if (symlink(target, path) ||
			    (privileged && i % 2 && lchown(path, 1000, 100)))
				die("symlink %s: %s", path, strerror(errno));
			set_times(path, 5000 + i * NSYMLINKS + j, AT_SYMLINK_NOFOLLOW);
		}
		path_of(other, "%s/d%02u/f%03u", top, prev, NFILES / 5);
		path_of(path, "%s/d%02u/h", top, i);
		if (link(other, path))
			die("link %s: %s", path, strerror(errno));
	}
	/* The files' times once their links are made, the directories' last. */
	for (k = 0; k < NDIRS * NFILES; k++) {
		path_of(path, "%s/d%02u/f%03u", top, k / NFILES, k % NFILES);
		set_times(path, k, 0);
	}
	for (i = 0; i <= NDIRS; i++) {
		if (i < NDIRS)
			path_of(path, "%s/d%02u", top, i);
		else
			path_of(path, "%s", top);
		set_xattr(path, 6000 + i);
		if (chmod(path, i == 3 ? 0700 : i == 7 ? 0555 : 0755) ||
		    (privileged && i == 5 && chown(path, 1000, 100)))
			die("chmod %s: %s", path, strerror(errno));
		set_times(path, 6000 + i, 0);
	}
}

static __u64 checksum(const char *path)
{
	static __u64 buf[8192];
	__u64 h = 0xcbf29ce484222325ull, total = 0;
	ssize_t r;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		if (r % 8)
			memset((char *)buf + r, 0, 8 - r % 8);
		for (i = 0; i < (size_t)(r + 7) / 8; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
		total += r;
	}
	close(fd);
	return r < 0 ? 0 : h ^ total;
}

/* Names and bytes (of the files, by every name) under @path, @path too. */
static void count_tree(const char *path, unsigned int *names, __u64 *bytes)
{
	struct dirent *de;
	struct stat st;
	char *sub;
	DIR *d;

	if (lstat(path, &st))
		return;
	(*names)++;
	if (S_ISREG(st.st_mode))
		*bytes += st.st_size;
	if (!S_ISDIR(st.st_mode))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = join(path, de->d_name);
		count_tree(sub, names, bytes);
		free(sub);
	}
	closedir(d);
}

static const char *check_node(struct node *n, const char *path)
{
	char buf[PATH_MAX], value[256];
	struct stat st;
	unsigned int i;
	ssize_t len;

	if (lstat(path, &st))
		return strerror(errno);
	n->copy_ino = st.st_ino;
	if ((st.st_mode ^ n->st.st_mode) & S_IFMT)
		return "not the same type";
	if (!S_ISLNK(st.st_mode) && (st.st_mode ^ n->st.st_mode) & 07777)
		return "mode";
	if (st.st_uid != n->st.st_uid || st.st_gid != n->st.st_gid)
		return "owner";
	if (st.st_mtim.tv_sec != n->st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != n->st.st_mtim.tv_nsec)
		return "mtime";
	if (S_ISLNK(st.st_mode)) {
		len = readlink(path, buf, sizeof(buf) - 1);
		if (len >= 0)
			buf[len] = '\0';
		if (len < 0 || strcmp(buf, n->target))
			return "symbolic link's target";
	}
	if (S_ISREG(st.st_mode)) {
		if (st.st_size != n->st.st_size || st.st_nlink != n->st.st_nlink)
			return "size or link count";
		if (n->leader && st.st_ino != n->leader->copy_ino)
			return "not a link to the copy of its other name";
		if (!n->leader && checksum(path) != n->sum)
			return "data";
	}
	for (i = 0; i < n->nr_xattrs; i++) {
		len = lgetxattr(path, n->xattrs[i].name, value, sizeof(value));
		if (len != (ssize_t)n->xattrs[i].size ||
		    memcmp(value, n->xattrs[i].value, len))
			return n->xattrs[i].name;
	}
	return NULL;
}

/* Whether @dst is a copy of @ref, by names, types, metadata and data. */
static bool check_copy(struct tree *ref, const char *dst, const char *method)
{
	char path[PATH_MAX];
	unsigned int i, names = 0;
	const char *what;
	__u64 bytes = 0;

	for (i = 0; i < ref->n; i++) {
		path_of(path, "%s%s", dst, ref->v[i]->rel);
		what = check_node(ref->v[i], path);
		if (what) {
			fprintf(stderr, "bench: P7: %s made a wrong copy: %s: %s\n",
				method, path, what);
			return false;
		}
	}
	count_tree(dst, &names, &bytes);
	if (names != ref->n || bytes != ref->name_bytes) {
		fprintf(stderr, "bench: P7: %s made a wrong copy: %u names, %llu B, not %u, %llu\n",
			method, names, (unsigned long long)bytes, ref->n,
			(unsigned long long)ref->name_bytes);
		return false;
	}
	return true;
}

/* rm -rf @name, below directory @dfd. */
static void remove_at(int dfd, const char *name)
{
	struct dirent *de;
	struct stat st;
	bool again;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return;
		die("stat %s: %s", name, strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		/* Without privilege, a read-only directory cannot be emptied. */
		if (!privileged)
			fchmodat(dfd, name, 0700, 0);
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		d = fd < 0 ? NULL : fdopendir(fd);
		if (!d)
			die("open %s: %s", name, strerror(errno));
		do {
			again = false;
			while ((de = readdir(d))) {
				if (!strcmp(de->d_name, ".") ||
				    !strcmp(de->d_name, ".."))
					continue;
				remove_at(fd, de->d_name);
				again = true;
			}
			rewinddir(d);
		} while (again);
		closedir(d);
	}
	if (unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0))
		die("remove %s: %s", name, strerror(errno));
}

/* --- Rounds and results -------------------------------------------------- */

/* The median of @n values, left in their order. */
static double med(const double *a, int n)
{
	double v[99];

	memcpy(v, a, n * sizeof(*v));
	return median(v, n);
}

static double med_ratio(const double *a, const double *b, int n)
{
	double v[99];
	int r;

	for (r = 0; r < n; r++)
		v[r] = b[r] > 0 ? 100 * a[r] / b[r] : 0;
	return median(v, n);
}

int main(void)
{
	static double wall[NR_CACHES][NR_METHODS][99];
	static double cpu[NR_CACHES][NR_METHODS][99];
	static double sys[NR_CACHES][NR_METHODS][99];
	bool want[NR_METHODS], cache[NR_CACHES], acp_skipped = false;
	const char *cache_list = getenv("BENCH_CACHE");
	char top[PATH_MAX], src[PATH_MAX], dst[PATH_MAX], param[64];
	int reps = bench_reps(1), r, m, ci, ret;
	struct tree ref = { 0 };
	struct cost c;
	unsigned int i;
	double v[5];

	privileged = !geteuid();
	for (m = 0; m < NR_METHODS; m++)
		want[m] = method_wanted(method_names[m]);
	if (want[M_ACP] && !acp_usable()) {
		if (want[M_CP] || want[M_POOL])
			fputs("bench: P7: the other methods still run\n", stderr);
		want[M_ACP] = false;
		acp_skipped = true;
	}
	for (ci = 0; ci < NR_CACHES; ci++)
		cache[ci] = listed(cache_list, cache_names[ci]);
	path_of(top, "%s/p7", scratch_dir());
	path_of(src, "%s/src", top);
	path_of(dst, "%s/dst", top);
	remove_at(AT_FDCWD, top);
	if (mkdir(top, 0755))
		die("mkdir %s: %s", top, strerror(errno));

	/* The tree; reading it once moves its atimes, ahead of the copies. */
	make_tree(src);
	walk(&ref, strdup(src), NULL, strlen(src), 0);
	for (i = 0; i < ref.n; i++)
		if (S_ISREG(ref.v[i]->st.st_mode) && !ref.v[i]->leader)
			ref.v[i]->sum = checksum(ref.v[i]->src);
	sync();
	printf("# P7: %u directories, %u files (%.1f MiB), %u hard links, %u symlinks",
	       ref.dirs, ref.files, ref.bytes / 1048576.0, ref.links,
	       ref.symlinks);
	printf("; user.* attributes: %s\n", have_xattrs ? "yes" : "no (not here)");
	if (cache[C_COLD] && access("/proc/sys/vm/drop_caches", W_OK)) {
		fprintf(stderr, "bench: P7: cold runs skipped: /proc/sys/vm/drop_caches: %s\n",
			strerror(errno));
		cache[C_COLD] = false;
	}

	/* What starting a tool costs, apart from its copy. */
	for (m = 0; m < NR_METHODS; m++) {
		if (!want[m] || m == M_POOL)
			continue;
		for (i = 0; i < ARRAY_SIZE(v); i++) {
			if (idle_run(m, &c))
				die("%s does not start", method_names[m]);
			v[i] = c.wall_ns;
		}
		report("P7", "exec", method_names[m], "ms",
		       median(v, ARRAY_SIZE(v)) / 1e6);
	}

	pool_start(&pool);
	for (r = 0; r < reps; r++) {
		for (ci = 0; ci < NR_CACHES; ci++) {
			if (!cache[ci])
				continue;
			for (m = 0; m < NR_METHODS; m++) {
				if (!want[m])
					continue;
				remove_at(AT_FDCWD, dst);
				sync();
				if (ci == C_COLD) {
					write_str("/proc/sys/vm/drop_caches", "3");
					idle_run(m, NULL);
				}
				ret = copy_fn[m](src, dst, &c);
				if (ret)
					die("P7: %s exited with %d", method_names[m], ret);
				if (!check_copy(&ref, dst, method_names[m]))
					die("P7: %s: the copy is wrong", method_names[m]);
				wall[ci][m][r] = c.wall_ns;
				cpu[ci][m][r] = c.cpu_ns;
				sys[ci][m][r] = c.sys_ns;
			}
		}
	}
	pool_stop(&pool);
	remove_at(AT_FDCWD, top);

	for (ci = 0; ci < NR_CACHES; ci++) {
		double us[NR_METHODS] = { 0 };

		if (!cache[ci])
			continue;
		snprintf(param, sizeof(param), "files=%u;cache=%s", ref.files,
			 cache_names[ci]);
		for (m = 0; m < NR_METHODS; m++) {
			if (!want[m])
				continue;
			us[m] = med(wall[ci][m], reps) / ref.files / 1000;
			report("P7", param, method_names[m], "us_per_file", us[m]);
			report("P7", param, method_names[m], "cpu_us_per_file",
			       med(cpu[ci][m], reps) / ref.files / 1000);
			report("P7", param, method_names[m], "sys_us_per_file",
			       med(sys[ci][m], reps) / ref.files / 1000);
		}
		for (m = 0; m < NR_METHODS; m++) {
			char name[16];

			if (m == M_ACP || !want[m] || !want[M_ACP])
				continue;
			snprintf(name, sizeof(name), "acp/%s", method_names[m]);
			report("P7", param, name, "time_pct",
			       med_ratio(wall[ci][M_ACP], wall[ci][m], reps));
			report("P7", param, name, "cpu_pct",
			       med_ratio(cpu[ci][M_ACP], cpu[ci][m], reps));
		}
		printf("# P7, %s: us per file: cp -a %.1f, acp %.1f, pool %.1f (0: not run)\n",
		       cache_names[ci], us[M_CP], us[M_ACP], us[M_POOL]);
	}
	free_tree(&ref);
	if (acp_skipped)
		fputs("bench: P7: failed: acp did not run (BENCH_METHOD='cp pool': not asked)\n",
		      stderr);
	return acp_skipped ? 3 : 0;
}
