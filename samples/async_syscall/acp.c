// SPDX-License-Identifier: GPL-2.0
/*
 * acp: copy files and directory trees as "cp -a" does, through
 * async_submit().
 *
 *	acp [--chunk=BYTES] SRC DST
 *
 * When DST is an existing directory, SRC is copied into it.  Regular
 * files, directories, symbolic links and hard links are copied with their
 * mode, owner and group, access and modification times to the nanosecond,
 * and the extended attributes that can be read: user.*, trusted.*,
 * security.capability and POSIX ACLs.  Where the owner cannot be given
 * (EPERM without the privilege), the copy stays ours, silently, and loses
 * its set-user-ID and set-group-ID bits, a file its sticky bit too, as
 * with cp.  Devices, FIFOs and sockets are skipped.
 *
 * SRC is read first, synchronously: lstat(), readdir(), readlink() and the
 * extended attributes.  Whatever creates or changes something under DST is
 * then an entry, with no synchronous fallback: a chain per object, up to
 * MAX_INFLIGHT chains in a struct async_queue, those staged together
 * submitted in one call.  A directory is created first, mkdirat(DST,
 * 0700), and its entries are queued once it is there; its own metadata
 * once they are all complete, as copying into it would change its times
 * and its mode may forbid the copy.
 *
 * A regular file, with n copies:
 *
 *	0: openat(SRC, O_RDONLY | O_NOFOLLOW)
 *	1: openat(DST, O_WRONLY | O_CREAT | O_TRUNC, 0600)
 *	2: copy_file_range(<0>, &off_in, <1>, &off_out, chunk)
 *	   ... n of them: as many as the file needs, and one to see its end
 *	g: dup(<1>)				the gate
 *	   fchown(<g>, -1, gid)			unprivileged, if not our uid
 *	   fchown(<g>, uid, gid)
 *	k: dup(<g>)				if special bits
 *	   fsetxattr(<g>, name, value, size, 0)	...	RUN_ANYWAY
 *	   fchmod(<g>, mode & ~special bits)	RUN_ANYWAY
 *	   fchmod(<k>, mode)			RUN_ANYWAY, if special bits
 *	   utimensat(<g>, NULL, {atime, mtime}, 0)	RUN_ANYWAY
 *	   close(<k>), close(<g>)		RUN_ANYWAY
 *	   close(<1>), close(<0>)		RUN_ANYWAY
 *
 * Once an entry fails, the rest of its chain is cancelled, but for the
 * RUN_ANYWAY entries.  A failed copy must cancel the metadata, a refused
 * chown must not: so the metadata steps run anyway, on the gate, which is
 * a descriptor only if the opens and the copies succeeded (else they fail
 * with EBADF), and the special bits are set through <k>, a descriptor only
 * if the owner was set too.  The owner comes first, as a chown clears the
 * set-user-ID bit and security.capability; the attributes before the mode,
 * which may deny the write that user.* needs; the times last.  The
 * fchown(-1, gid) is cp's fallback, ahead: the group at least.
 *
 * The kernel moves off_in and off_out after each copy, so that the copies
 * of a chain go on where the previous one stopped.  A file that needs more
 * than MAX_COPIES copies gets more chains, each from where the last one
 * ended, and only the last one has the metadata (a file that grew since
 * the walk gets it again).  copy_file_range() does not copy between two
 * file systems that lack a common implementation (EXDEV); such a file is
 * copied with sendfile(), after an lseek() of <1>.
 *
 * A directory, once its entries are complete, has the same steps from its
 * gate, openat(DST, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).
 *
 * A symbolic link, its target read by the walk:
 *
 *	c: symlinkat(target, AT_FDCWD, DST)
 *	g: openat(DST, O_PATH | O_NOFOLLOW)	the gate
 *	   fchownat(<g>, "", [-1,] uid, gid, AT_EMPTY_PATH | ...)
 *	   lsetxattr(DST, name, value, size, <c>) ...	RUN_ANYWAY
 *	   utimensat(<g>, "", times, AT_EMPTY_PATH | ...)	RUN_ANYWAY
 *	   close(<g>)				RUN_ANYWAY
 *
 * fsetxattr() takes no O_PATH descriptor: lsetxattr() takes its flags from
 * symlinkat() instead, 0, or a -errno that it refuses with EINVAL.
 *
 * Hard links: of the files and links of SRC that share an inode, the first
 * one ready is copied; the others become linkat(its copy, DST) once that
 * copy is complete (or are copied, if it failed).  A link or symbolic link
 * that finds DST there replaces it, as cp -a does: the chain again, after
 * an unlinkat(DST).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <async_syscall/libasync.h>

#define MAX_INFLIGHT	64	/* chains: 4 descriptors each at most */
#define MAX_COPIES	8	/* copy entries per chain */
#define MAX_XATTRS	256	/* extended attributes kept per file */
#define CHAIN_FIXED	(MAX_COPIES + 16)	/* entries but the xattrs */
#define ARENA_ENTRIES	1024
#define QUEUE_ENTRIES	8192
#define DEFAULT_CHUNK	(1024UL * 1024 * 1024)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * What a refused chown clears, as cp does.  On a file system with POSIX
 * ACLs, cp -a copies a directory's mode with its ACL instead, and keeps
 * its sticky bit; acp copies no ACL mode, and clears it there too.
 */
#define SPECIAL_BITS	(S_ISUID | S_ISGID | S_ISVTX)

/* The chain a node has in flight. */
enum kind { K_MKDIR, K_DIR, K_FILE, K_SYMLINK, K_LINK };

struct xattr_copy {
	char *name;
	void *value;
	size_t size;
};

/* The files and links of SRC that share an inode. */
struct group {
	dev_t dev;
	ino_t ino;
	struct node *leader;	/* the one copied */
	struct node *waiters;	/* ready, until its copy is complete */
	bool done;		/* the copy is complete: link to it */
	struct timespec times[2];	/* as first seen */
};

/* Steps of the chain in flight, -1 for none. */
struct steps {
	int create, seek, copy, nr_copies;
	int gate, chown_grp, chown, keep;
	int xattr, chmod, chmod_keep, times, close;
};

/* Chains are staged back to back in arenas: one call submits them. */
struct arena {
	struct arena *next;	/* in the free list */
	unsigned int used;	/* entries handed out */
	unsigned int live;	/* chains staged or in flight */
	struct async_syscall e[ARENA_ENTRIES];
};

struct node {
	char *src, *dst;
	struct node *parent, *child, *sibling;
	struct node *next;	/* in the ready list or a group's waiters */
	unsigned int pending;	/* a directory's entries not complete */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	off_t size;
	struct timespec times[2];	/* atime, mtime */
	char *target;		/* of a symbolic link */
	struct xattr_copy *xattrs;
	unsigned int nr_xattrs;
	struct group *group;
	/* Regular files: moved by copy_file_range() and sendfile(). */
	loff_t off_in, off_out;
	bool use_sendfile;	/* copy_file_range() refused the pair */
	bool started;		/* a chain opened DST with O_TRUNC */
	bool replace;		/* links: unlink what is at DST first */
	/* The chain in flight. */
	enum kind kind;
	struct arena *arena;
	struct async_syscall *e;
	unsigned int nr;
	struct steps s;
};

static const char *prog = "acp";
static size_t chunk = DEFAULT_CHUNK;
static int status;
static uid_t euid;
static bool privileged;		/* chown() to anyone: failures are told */

static struct async_queue q;
static struct node *ready, **ready_tail = &ready;
static struct arena *cur_arena, *free_arenas;
static void *groups;		/* tsearch() tree of struct group */

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--chunk=BYTES] SRC DST\n"
		"Copy SRC to DST as cp -a does: recursively, with hard links, symbolic\n"
		"links, modes, owners, times and extended attributes, every change to\n"
		"DST through async_submit().  When DST is an existing directory, SRC\n"
		"is copied into it.\n"
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

/* A metadata step that failed: "preserving times for DST". */
static void failed_to(const char *what, const char *path, int err)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, path, strerror(err));
	status = 1;
}

static void xattr_error(const char *path, const char *what,
			const char *name, int err)
{
	fprintf(stderr, "%s: %s: %s %s: %s\n", prog, path, what, name,
		strerror(err));
	status = 1;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s%s\n", prog, what, strerror(err),
		err == EPERM ? " (see sysctl kernel.async_syscall_disabled)" : "");
	exit(1);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("malloc", ENOMEM);
	p = realloc(p, n && size ? n * size : 1);
	if (!p)
		die("malloc", ENOMEM);
	return p;
}

static void *xzalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		die("malloc", ENOMEM);
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("malloc", ENOMEM);
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

/* --- The walk of SRC -------------------------------------------------- */

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

/* The group of @n's inode, @st: @n takes its times as first seen. */
static struct group *group_of(struct node *n, const struct stat *st)
{
	struct group *g = xzalloc(sizeof(*g)), **found;

	g->dev = st->st_dev;
	g->ino = st->st_ino;
	found = tsearch(g, &groups, group_cmp);
	if (!found)
		die("malloc", ENOMEM);
	if (*found != g) {
		free(g);
		g = *found;
		/* Before readlink() of another name moved the atime. */
		memcpy(n->times, g->times, sizeof(n->times));
	} else {
		memcpy(g->times, n->times, sizeof(g->times));
	}
	return g;
}

/* cp -a keeps these; security.selinux and the like are the policy's. */
static bool kept_xattr(const char *name)
{
	return !strncmp(name, "user.", 5) || !strncmp(name, "trusted.", 8) ||
	       !strcmp(name, "security.capability") ||
	       !strcmp(name, "system.posix_acl_access") ||
	       !strcmp(name, "system.posix_acl_default");
}

/* Read one attribute of @n's SRC: false if it is gone. */
static bool read_xattr(struct node *n, const char *name,
		       struct xattr_copy *x)
{
	void *value = NULL;
	ssize_t len;

	/* Again while it grows between the two calls. */
	do {
		len = lgetxattr(n->src, name, NULL, 0);
		if (len < 0)
			break;
		value = xrealloc(value, len, 1);
		len = lgetxattr(n->src, name, value, len);
	} while (len < 0 && errno == ERANGE);
	if (len < 0) {
		if (errno != ENODATA)
			xattr_error(n->src, "reading", name, errno);
		free(value);
		return false;
	}
	x->name = xstrdup(name);
	x->value = value;
	x->size = len;
	return true;
}

static void read_xattrs(struct node *n)
{
	char *list = NULL, *name;
	ssize_t len;

	do {
		len = llistxattr(n->src, NULL, 0);
		if (len <= 0)
			break;
		list = xrealloc(list, len, 1);
		len = llistxattr(n->src, list, len);
	} while (len < 0 && errno == ERANGE);
	if (len < 0 && errno != EOPNOTSUPP)
		error(n->src, errno);
	for (name = list; len > 0 && name < list + len;
	     name += strlen(name) + 1) {
		if (!kept_xattr(name))
			continue;
		if (n->nr_xattrs == MAX_XATTRS) {
			fprintf(stderr, "%s: %s: over %d extended attributes, not all copied\n",
				prog, n->src, MAX_XATTRS);
			status = 1;
			break;
		}
		n->xattrs = xrealloc(n->xattrs, n->nr_xattrs + 1,
				     sizeof(*n->xattrs));
		if (read_xattr(n, name, &n->xattrs[n->nr_xattrs]))
			n->nr_xattrs++;
	}
	free(list);
}

/* The target of link @path, of @size bytes when it was looked at. */
static char *read_link(const char *path, off_t size)
{
	size_t cap = size > 0 ? (size_t)size + 1 : PATH_MAX;
	char *target = NULL;
	ssize_t len;

	for (;;) {
		target = xrealloc(target, cap, 1);
		len = readlink(path, target, cap);
		if (len < 0) {
			error(path, errno);
			free(target);
			return NULL;
		}
		if ((size_t)len < cap)
			break;
		/* Maybe cut short: it changed since lstat(). */
		cap *= 2;
	}
	target[len] = '\0';
	return target;
}

static struct node *walk(char *src, char *dst, struct node *parent);

static void read_dir(struct node *n)
{
	struct node *child;
	struct dirent *d;
	DIR *dir;

	dir = opendir(n->src);
	if (!dir) {
		error(n->src, errno);
		return;
	}
	for (;;) {
		errno = 0;
		d = readdir(dir);
		if (!d) {
			if (errno)
				error(n->src, errno);
			break;
		}
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		child = walk(join(n->src, d->d_name), join(n->dst, d->d_name),
			     n);
		if (child) {
			child->sibling = n->child;
			n->child = child;
			n->pending++;
		}
	}
	closedir(dir);
}

/* A node for SRC and what it holds, to copy to DST; takes both strings. */
static struct node *walk(char *src, char *dst, struct node *parent)
{
	struct node *n;
	struct stat st;

	if (lstat(src, &st)) {
		error(src, errno);
		goto skip;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) {
		fprintf(stderr, "%s: %s: not a regular file, directory or link, skipped\n",
			prog, src);
		status = 1;
		goto skip;
	}
	n = xzalloc(sizeof(*n));
	n->src = src;
	n->dst = dst;
	n->parent = parent;
	n->mode = st.st_mode;
	n->uid = st.st_uid;
	n->gid = st.st_gid;
	n->size = st.st_size;
	/* Before the reads below, which may move the atime. */
	n->times[0] = st.st_atim;
	n->times[1] = st.st_mtim;
	if (S_ISLNK(st.st_mode)) {
		n->target = read_link(src, st.st_size);
		if (!n->target) {
			free(n);
			goto skip;
		}
	}
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1)
		n->group = group_of(n, &st);
	read_xattrs(n);
	if (S_ISDIR(st.st_mode))
		read_dir(n);
	return n;
skip:
	free(src);
	free(dst);
	return NULL;
}

/* --- Chains ------------------------------------------------------------ */

static void steps_init(struct steps *s)
{
	memset(s, 0xff, sizeof(*s));	/* every step -1 */
}

/*
 * The metadata steps of a file or directory on its gate, a descriptor of
 * DST, from step @k: returns the next step.
 */
static unsigned int prep_meta(struct node *n, struct async_syscall *e,
			      unsigned int k, mode_t special)
{
	struct steps *s = &n->s;
	mode_t mode = n->mode & 07777;
	unsigned int i;

	/* cp's fallback when the owner is refused: the group at least. */
	if (!privileged && n->uid != euid) {
		async_prep_fchown_ref(&e[k], s->gate, (uid_t)-1, n->gid);
		s->chown_grp = k++;
	}
	async_prep_fchown_ref(&e[k], s->gate, n->uid, n->gid);
	s->chown = k++;
	if (mode & special) {
		async_prep(&e[k], __NR_dup, 0, 0, 0, 0, 0, 0);
		async_ref(&e[k], 0, s->gate);
		s->keep = k++;
	}
	s->xattr = k;
	for (i = 0; i < n->nr_xattrs; i++) {
		async_prep_fsetxattr_ref(&e[k], s->gate, n->xattrs[i].name,
					 n->xattrs[i].value, n->xattrs[i].size,
					 0);
		async_run_anyway(&e[k++]);
	}
	async_prep_fchmod_ref(&e[k], s->gate, mode & ~special);
	async_run_anyway(&e[k]);
	s->chmod = k++;
	if (s->keep >= 0) {
		async_prep_fchmod_ref(&e[k], s->keep, mode);
		async_run_anyway(&e[k]);
		s->chmod_keep = k++;
	}
	async_prep_utimens_ref(&e[k], s->gate, n->times);
	async_run_anyway(&e[k]);
	s->times = k++;
	s->close = k;
	if (s->keep >= 0)
		async_prep_close_ref(&e[k++], s->keep);
	async_prep_close_ref(&e[k++], s->gate);
	return k;
}

static unsigned int prep_file(struct node *n, struct async_syscall *e)
{
	int oflags = O_WRONLY | O_CREAT | O_CLOEXEC;
	struct steps *s = &n->s;
	unsigned long long left, copies;
	unsigned int i, k = 0;
	bool last;

	if (!n->started)
		oflags |= O_TRUNC;
	/* Enough copies for the rest of the file, and one that sees its end. */
	left = n->size > n->off_in ? n->size - n->off_in : 0;
	copies = left / chunk + !!(left % chunk) + 1;
	last = copies <= MAX_COPIES;
	s->nr_copies = last ? copies : MAX_COPIES;

	async_prep_openat(&e[k++], AT_FDCWD, n->src,
			  O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
	/* Ours alone until the metadata is set. */
	async_prep_openat(&e[k++], AT_FDCWD, n->dst, oflags, 0600);
	if (n->use_sendfile) {
		/* sendfile() writes at the file position. */
		async_prep(&e[k], __NR_lseek, 0, n->off_out, SEEK_SET, 0, 0,
			   0);
		async_ref(&e[k], 0, 1);
		s->seek = k++;
	}
	s->copy = k;
	for (i = 0; i < (unsigned int)s->nr_copies; i++, k++) {
		if (n->use_sendfile) {
			async_prep(&e[k], __NR_sendfile, 0, 0,
				   async_ptr(&n->off_in), chunk, 0, 0);
			async_ref(&e[k], 0, 1);
			async_ref(&e[k], 1, 0);
		} else {
			async_prep(&e[k], __NR_copy_file_range, 0,
				   async_ptr(&n->off_in), 0,
				   async_ptr(&n->off_out), chunk, 0);
			async_ref(&e[k], 0, 0);
			async_ref(&e[k], 2, 1);
		}
	}
	if (last) {
		/* A descriptor only if every step so far succeeded. */
		async_prep(&e[k], __NR_dup, 0, 0, 0, 0, 0, 0);
		async_ref(&e[k], 0, 1);
		s->gate = k++;
		k = prep_meta(n, e, k, SPECIAL_BITS);
	} else {
		s->close = k;
	}
	async_prep_close_ref(&e[k++], 1);
	async_prep_close_ref(&e[k++], 0);
	return k;
}

static unsigned int prep_dir(struct node *n, struct async_syscall *e)
{
	async_prep_openat(&e[0], AT_FDCWD, n->dst,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	n->s.gate = 0;
	return prep_meta(n, e, 1, SPECIAL_BITS);
}

static unsigned int prep_symlink(struct node *n, struct async_syscall *e)
{
	const int at = AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW;
	struct steps *s = &n->s;
	unsigned int i, k = 0;

	if (n->replace)
		async_prep_unlinkat(&e[k++], AT_FDCWD, n->dst, 0);
	async_prep_symlinkat(&e[k], n->target, AT_FDCWD, n->dst);
	s->create = k++;
	async_prep_openat(&e[k], AT_FDCWD, n->dst,
			  O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
	s->gate = k++;
	if (!privileged && n->uid != euid) {
		async_prep(&e[k], __NR_fchownat, 0, async_ptr(""), (uid_t)-1,
			   n->gid, at, 0);
		async_ref(&e[k], 0, s->gate);
		s->chown_grp = k++;
	}
	async_prep(&e[k], __NR_fchownat, 0, async_ptr(""), n->uid, n->gid,
		   at, 0);
	async_ref(&e[k], 0, s->gate);
	s->chown = k++;
	s->xattr = k;
	for (i = 0; i < n->nr_xattrs; i++) {
		async_prep(&e[k], __NR_lsetxattr, async_ptr(n->dst),
			   async_ptr(n->xattrs[i].name),
			   async_ptr(n->xattrs[i].value), n->xattrs[i].size,
			   0, 0);
		/* symlinkat()'s result as flags: 0, or refused. */
		async_ref(&e[k], 4, s->create);
		async_run_anyway(&e[k++]);
	}
	async_prep_utimensat(&e[k], -1, "", n->times, at);
	async_ref(&e[k], 0, s->gate);
	async_run_anyway(&e[k]);
	s->times = k++;
	s->close = k;
	async_prep_close_ref(&e[k++], s->gate);
	return k;
}

static unsigned int prep_link(struct node *n, struct async_syscall *e)
{
	unsigned int k = 0;

	if (n->replace)
		async_prep_unlinkat(&e[k++], AT_FDCWD, n->dst, 0);
	async_prep_linkat(&e[k], AT_FDCWD, n->group->leader->dst, AT_FDCWD,
			  n->dst, 0);
	n->s.create = k++;
	return k;
}

/* Room for @nr entries right after the chains staged last. */
static struct async_syscall *arena_reserve(unsigned int nr)
{
	struct arena *a = cur_arena;

	if (a && !a->live)
		a->used = 0;
	if (!a || a->used + nr > ARENA_ENTRIES) {
		/* The old one is freed by its last chain. */
		a = free_arenas;
		if (a)
			free_arenas = a->next;
		else
			a = xrealloc(NULL, 1, sizeof(*a));
		a->used = 0;
		a->live = 0;
		cur_arena = a;
	}
	return &a->e[a->used];
}

static void arena_release(struct node *n)
{
	struct arena *a = n->arena;

	if (!--a->live && a != cur_arena) {
		a->next = free_arenas;
		free_arenas = a;
	}
	n->arena = NULL;
}

/* Stage @n's chain: false if the queue is full. */
static bool stage(struct node *n)
{
	struct async_syscall *e;
	unsigned int nr = 0;
	int ret;

	e = arena_reserve(CHAIN_FIXED + n->nr_xattrs);
	steps_init(&n->s);
	switch (n->kind) {
	case K_MKDIR:
		/* Writable until its metadata is set, whatever SRC's mode. */
		async_prep_mkdirat(&e[nr++], AT_FDCWD, n->dst, 0700);
		break;
	case K_DIR:
		nr = prep_dir(n, e);
		break;
	case K_FILE:
		nr = prep_file(n, e);
		break;
	case K_SYMLINK:
		nr = prep_symlink(n, e);
		break;
	case K_LINK:
		nr = prep_link(n, e);
		break;
	}
	ret = async_queue_add(&q, e, nr, (uintptr_t)n);
	if (ret == -ENOSPC)
		return false;
	if (ret)
		die("async_queue_add()", -ret);
	cur_arena->used += nr;
	cur_arena->live++;
	if (n->kind == K_FILE)
		n->started = true;
	n->arena = cur_arena;
	n->e = e;
	n->nr = nr;
	return true;
}

/* --- Order: what a finished chain makes ready -------------------------- */

static void push(struct node *n, enum kind kind)
{
	n->kind = kind;
	n->next = NULL;
	*ready_tail = n;
	ready_tail = &n->next;
}

static struct node *pop(void)
{
	struct node *n = ready;

	ready = n->next;
	if (!ready)
		ready_tail = &ready;
	return n;
}

/* @n's directory exists: queue its chain, or wait for the first copy. */
static void make_ready(struct node *n)
{
	struct group *g = n->group;

	if (S_ISDIR(n->mode)) {
		push(n, K_MKDIR);
	} else if (g && g->done) {
		push(n, K_LINK);
	} else if (g && g->leader) {
		n->next = g->waiters;
		g->waiters = n;
	} else {
		if (g)
			g->leader = n;
		push(n, S_ISREG(n->mode) ? K_FILE : K_SYMLINK);
	}
}

/* @n is complete: its directory's metadata may be next. */
static void node_done(struct node *n)
{
	struct node *p = n->parent;

	if (p && !--p->pending)
		push(p, K_DIR);
}

/* A file or link copied (@ok) or not: its other links may go on. */
static void copy_done(struct node *n, bool ok)
{
	struct group *g = n->group;
	struct node *w, *next;

	if (g && g->leader == n) {
		w = g->waiters;
		g->waiters = NULL;
		g->done = ok;
		/* Failed: the first waiter is copied instead. */
		if (!ok)
			g->leader = NULL;
		for (; w; w = next) {
			next = w->next;
			make_ready(w);
		}
	}
	node_done(n);
}

/* --- Results ------------------------------------------------------------ */

static __s64 result(struct node *n, int step)
{
	return step >= 0 ? n->e[step].result : 0;
}

/* The metadata steps, as cp reports them. */
static void check_meta(struct node *n)
{
	const struct steps *s = &n->s;
	__s64 res, owner;
	unsigned int i;

	res = result(n, s->gate);
	if (res < 0) {
		/* Cancelled: an earlier step failed, and said so. */
		if (res != -ECANCELED)
			error(n->dst, -res);
		return;
	}
	owner = result(n, s->chown_grp);
	if (!owner)
		owner = result(n, s->chown);
	/* Without the privilege, a refused owner is no error. */
	if (owner < 0 && (privileged || (owner != -EPERM && owner != -EINVAL)))
		fprintf(stderr, "%s: failed to preserve ownership for %s: %s\n",
			prog, n->dst, strerror(-owner));
	if (!owner && result(n, s->keep) < 0)
		error(n->dst, -result(n, s->keep));
	/* As cp: no word of what the copy's file system refuses. */
	for (i = 0; i < n->nr_xattrs; i++) {
		res = result(n, s->xattr + i);
		if (res < 0 && res != -EOPNOTSUPP && res != -EPERM)
			xattr_error(n->dst, "setting", n->xattrs[i].name,
				    -res);
	}
	res = result(n, s->chmod);
	if (res >= 0 && !owner && result(n, s->keep) >= 0)
		res = result(n, s->chmod_keep);
	if (res < 0)
		failed_to("preserving permissions for", n->dst, -res);
	res = result(n, s->times);
	if (res < 0)
		failed_to("preserving times for", n->dst, -res);
}

/* The first error of the closes; EBADF: what was not opened. */
static bool check_closes(struct node *n)
{
	__s64 res;
	int i;

	for (i = n->s.close; i >= 0 && i < (int)n->nr; i++) {
		res = n->e[i].result;
		if (res < 0 && res != -EBADF) {
			failed_to("closing", n->dst, -res);
			return false;
		}
	}
	return true;
}

/* The first failure of the steps up to @last, or 0. */
static __s64 first_error(struct node *n, int last)
{
	int i;

	for (i = 0; i <= last; i++) {
		if (n->e[i].result < 0)
			return n->e[i].result;
	}
	return 0;
}

/*
 * A link or symbolic link found DST there: as cp -a, replace it, in a
 * new chain that unlinks it first.  True if that one is queued.
 */
static bool replace_dst(struct node *n, __s64 res)
{
	if (res != -EEXIST || n->replace)
		return false;
	n->replace = true;
	arena_release(n);
	push(n, n->kind);
	return true;
}

/* Whether copy_file_range() failed because of the pair of files. */
static bool try_sendfile(int err)
{
	return err == EXDEV || err == EOPNOTSUPP;
}

/* A file's chain: the next one, or the file is done. */
static void finish_file(struct node *n)
{
	const struct steps *s = &n->s;
	bool ok = false, again = false;
	unsigned int i;
	__s64 res;

	if (n->e[0].result < 0) {
		error(n->src, -n->e[0].result);
		goto out;
	}
	if (n->e[1].result < 0) {
		error(n->dst, -n->e[1].result);
		goto out;
	}
	if (result(n, s->seek) < 0) {
		error(n->dst, -result(n, s->seek));
		goto closes;
	}
	for (i = 0; i < (unsigned int)s->nr_copies; i++) {
		res = n->e[s->copy + i].result;
		if (res < 0) {
			if (!n->use_sendfile && try_sendfile(-res) && !i &&
			    !n->off_in) {
				n->use_sendfile = true;
				again = true;
			} else {
				fprintf(stderr, "%s: copying %s to %s: %s\n",
					prog, n->src, n->dst, strerror(-res));
				status = 1;
			}
			goto closes;
		}
		if (!res)
			break;
		/* copy_file_range() moved off_out itself. */
		if (n->use_sendfile)
			n->off_out += res;
	}
	/*
	 * Not at the end: more copies, and the metadata again if this chain
	 * had it, for a file that grew.
	 */
	if (i == (unsigned int)s->nr_copies) {
		again = true;
		goto closes;
	}
	ok = true;
	if (s->gate >= 0)
		check_meta(n);
closes:
	if (!check_closes(n)) {
		ok = false;
		again = false;
	}
out:
	arena_release(n);
	if (again)
		push(n, K_FILE);
	else
		copy_done(n, ok);
}

static void finish(struct node *n)
{
	__s64 res = n->e[0].result;
	struct node *child;
	struct stat st;

	switch (n->kind) {
	case K_MKDIR:
		/* Copying into a directory that is there is fine. */
		if (res == -EEXIST && !lstat(n->dst, &st) &&
		    S_ISDIR(st.st_mode))
			res = 0;
		arena_release(n);
		if (res < 0) {
			error(n->dst, -res);
			node_done(n);
			break;
		}
		if (!n->child)
			push(n, K_DIR);
		for (child = n->child; child; child = child->sibling)
			make_ready(child);
		break;
	case K_DIR:
		check_meta(n);
		check_closes(n);
		arena_release(n);
		node_done(n);
		break;
	case K_FILE:
		finish_file(n);
		break;
	case K_SYMLINK:
		res = first_error(n, n->s.create);
		if (replace_dst(n, res))
			break;
		if (res < 0)
			error(n->dst, -res);
		else
			check_meta(n);
		check_closes(n);
		arena_release(n);
		copy_done(n, res >= 0);
		break;
	case K_LINK:
		res = first_error(n, n->s.create);
		if (replace_dst(n, res))
			break;
		if (res < 0) {
			fprintf(stderr, "%s: linking %s to %s: %s\n", prog,
				n->dst, n->group->leader->dst, strerror(-res));
			status = 1;
		}
		arena_release(n);
		node_done(n);
		break;
	}
}

/* Run every chain, in the order their results allow. */
static void run(void)
{
	struct async_queue_chain done[MAX_INFLIGHT];
	int i, ret;

	ret = async_queue_init(&q, QUEUE_ENTRIES);
	if (ret)
		die("async_queue_init()", -ret);
	for (;;) {
		while (ready && async_queue_pending(&q) < MAX_INFLIGHT &&
		       stage(ready))
			pop();
		ret = async_queue_submit(&q);
		/* EAGAIN: the kernel's limit; go on as chains complete. */
		if (ret < 0 && (ret != -EAGAIN || !q.nr_inflight))
			die("async_submit()", -ret);
		if (!async_queue_pending(&q))
			break;
		ret = async_queue_reap(&q, done, MAX_INFLIGHT, NULL);
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			die("async_queue_reap()", -ret);
		for (i = 0; i < ret; i++)
			finish((struct node *)(uintptr_t)done[i].user_data);
	}
	async_queue_exit(&q);
}

/* Fail at once if the kernel does not run a call the chains need. */
static void probe_calls(void)
{
	static const unsigned int calls[] = {
		__NR_openat, __NR_close, __NR_dup, __NR_lseek,
		__NR_copy_file_range, __NR_sendfile, __NR_mkdirat,
		__NR_symlinkat, __NR_linkat, __NR_unlinkat, __NR_fchown,
		__NR_fchownat, __NR_fchmod, __NR_fsetxattr, __NR_lsetxattr,
		__NR_utimensat,
	};
	unsigned int i;
	int ret;

	if (async_abi_version() < 0)
		die("async_submit()", errno);
	for (i = 0; i < ARRAY_SIZE(calls); i++) {
		ret = async_probe(calls[i]);
		if (ret == -EOPNOTSUPP || ret == -EINVAL) {
			fprintf(stderr, "%s: async_submit() does not run %s on this kernel\n",
				prog, async_syscall_name(calls[i]));
			exit(1);
		}
		if (ret)
			die("async_submit()", -ret);
	}
}

/* --- Arguments ----------------------------------------------------------- */

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

/* The directory that holds @path. */
static char *parent_of(const char *path)
{
	char *p = xstrdup(path), *slash;
	size_t len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	slash = strrchr(p, '/');
	if (!slash) {
		free(p);
		return xstrdup(".");
	}
	while (slash > p && slash[-1] == '/')
		slash--;
	slash[slash == p] = '\0';
	return p;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* As cp, refuse to copy a file onto itself or a directory into itself. */
static bool overlap(const char *src, const struct stat *src_st,
		    const char *dst)
{
	bool found = false, top = false;
	struct stat st, prev;
	char *p, *up;

	if (!stat(dst, &st) && same_file(&st, src_st)) {
		fprintf(stderr, "%s: %s and %s are the same file\n", prog, src,
			dst);
		return true;
	}
	if (!S_ISDIR(src_st->st_mode))
		return false;
	/* Up from DST's directory to "/", its own parent. */
	p = parent_of(dst);
	while (!found && !top && !stat(p, &st)) {
		found = same_file(&st, src_st);
		prev = st;
		up = join(p, "..");
		free(p);
		p = up;
		top = !stat(p, &st) && same_file(&st, &prev);
	}
	free(p);
	if (found)
		fprintf(stderr, "%s: cannot copy a directory, %s, into itself, %s\n",
			prog, src, dst);
	return found;
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
	struct node *top;
	struct stat st;
	char *dst;

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

	probe_calls();
	euid = geteuid();
	privileged = !euid;
	if (lstat(args[0], &st)) {
		error(args[0], errno);
		return 1;
	}
	dst = target(args[0], args[1]);
	if (overlap(args[0], &st, dst))
		return 1;
	top = walk(xstrdup(args[0]), dst, NULL);
	if (top)
		make_ready(top);
	run();
	return status;
}
