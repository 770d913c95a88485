// SPDX-License-Identifier: GPL-2.0
/*
 * An entry runs in the context of the thread that submitted it: its file
 * descriptor table, root and current directories, and namespaces, as the
 * synchronous call would, whichever thread created the worker that runs it.
 *
 * In each test the main thread has a worker made for it, then a second
 * thread that has its own context (after unshare() or chroot()) submits
 * entries and expects what its own synchronous calls would get.  The last
 * test checks that a worker that cannot be created while the submitter has
 * a signal pending strands no work.  On arm64, a thread that turns on the
 * tagged-address ABI gets workers that have it.  An entry cannot change its
 * worker's credentials, and runs with its submitter's protection-key rights.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define MAIN_TEXT	"main file\n"
#define PEER_TEXT	"peer file\n"
#define NET_UNIX	"/proc/thread-self/net/unix"
#define NET_BUF_SIZE	65536

/* --- A second thread with a context of its own ---------------------------- */

enum peer_state { PEER_SETUP, PEER_READY, PEER_GO, PEER_DONE };

struct peer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum peer_state state;
	void (*fn)(struct peer *p);
	void *arg;
	/* What failed in the thread, where and with which errno. */
	const char *failed;
	int line, err;
	/* Why the thread could not set up its context, to skip the test. */
	const char *skip;
};

/*
 * In the peer thread: whether @ok, and if not, record @what failed at @line
 * with the errno of the moment, for the main thread to report.
 */
static bool peer_ok(struct peer *p, bool ok, const char *what, int line)
{
	if (!ok && !p->failed) {
		p->failed = what;
		p->line = line;
		p->err = errno;
	}
	return ok;
}

#define PEER_OK(p, cond) peer_ok((p), (cond), #cond, __LINE__)

static void peer_set(struct peer *p, enum peer_state state)
{
	pthread_mutex_lock(&p->lock);
	p->state = state;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* Wait until the peer is at least in @state: the state it is in. */
static enum peer_state peer_wait(struct peer *p, enum peer_state state)
{
	enum peer_state now;

	pthread_mutex_lock(&p->lock);
	while (p->state < state)
		pthread_cond_wait(&p->cond, &p->lock);
	now = p->state;
	pthread_mutex_unlock(&p->lock);
	return now;
}

/*
 * In the peer thread, once its context is set up: let the main thread
 * prepare a worker of its own, and return once it has.
 */
static void peer_ready(struct peer *p)
{
	peer_set(p, PEER_READY);
	peer_wait(p, PEER_GO);
}

static void *peer_main(void *arg)
{
	struct peer *p = arg;

	p->fn(p);
	peer_set(p, PEER_DONE);
	return NULL;
}

/* Submit the @nr entries at @e and wait for them: 0, or -1 with errno. */
static int submit_and_wait(struct async_syscall *e, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		poison(&e[i]);
	if (async_submit(e, nr, 0) != nr)
		return -1;
	if (wait_all_done(e, nr, WAIT_TIMEOUT_S)) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

/*
 * Have the main thread make a worker, so that there is an idle one that it
 * created: the peer's entries must not run in that worker's context.
 */
static void main_worker(struct __test_metadata *_metadata)
{
	struct timespec zero = { 0, 0 };
	struct async_syscall e;

	async_prep_nanosleep(&e, &zero);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(0, submit_and_wait(&e, 1));
	ASSERT_EQ(0, e.result);
	ASSERT_LE(1, count_workers());
}

/*
 * Run @fn(@p) in a new thread: once it is set up and calls peer_ready(), the
 * main thread makes a worker right before the peer submits, so that the
 * worker has not gone idle for good when the peer's entries arrive.
 */
static void run_peer(struct __test_metadata *_metadata, struct peer *p,
		     void (*fn)(struct peer *p), void *arg)
{
	p->fn = fn;
	p->arg = arg;
	p->state = PEER_SETUP;
	ASSERT_EQ(0, pthread_mutex_init(&p->lock, NULL));
	ASSERT_EQ(0, pthread_cond_init(&p->cond, NULL));
	ASSERT_EQ(0, pthread_create(&p->thread, NULL, peer_main, p));
	if (peer_wait(p, PEER_READY) == PEER_READY) {
		main_worker(_metadata);
		peer_set(p, PEER_GO);
	}
	ASSERT_EQ(0, pthread_join(p->thread, NULL));
	ASSERT_EQ(NULL, p->failed)
		TH_LOG("peer thread, line %d: %s (errno %d: %s)", p->line,
		       p->failed, p->err, strerror(p->err));
}

#define ASSERT_RESULT(res, e) do { \
	const struct async_syscall *__e = (e); \
	\
	ASSERT_EQ(ASYNC_SYSCALL_DONE, __e->done); \
	ASSERT_EQ((__s64)(res), __e->result) \
		TH_LOG("result %lld (%s)", (long long)__e->result, \
		       __e->result < 0 ? strerror(-__e->result) : "-"); \
} while (0)

/* openat() -> read() of its descriptor -> close(), the close in any case. */
static void prep_cat(struct async_syscall *e, const char *path, char *buf,
		     size_t size)
{
	async_prep_openat(&e[0], AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	async_prep_read(&e[1], 0, buf, size);
	async_ref(&e[1], 0, 0);
	async_prep_close(&e[2], 0);
	async_ref(&e[2], 0, 0);
	async_run_anyway(&e[2]);
	async_chain(e, 3);
}

/* A NUL-terminated copy of what a prep_cat() chain read into @buf. */
static bool cat_read(const struct async_syscall *e, char *buf, size_t size)
{
	if (e[0].result < 0 || e[1].result < 0 || e[2].result != 0 ||
	    (size_t)e[1].result >= size)
		return false;
	buf[e[1].result] = '\0';
	return true;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* --- The fixture: a fresh directory under /tmp ----------------------------- */

FIXTURE(context) {
	char dir[64];
};

FIXTURE_SETUP(context)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/async_context.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	remove(path);
	return 0;
}

FIXTURE_TEARDOWN(context)
{
	nftw(self->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* --- chroot ----------------------------------------------------------------- */

struct chroot_arg {
	char jail[128], outside[128];
	struct async_syscall out, in;
};

static void chroot_peer(struct peer *p)
{
	struct chroot_arg *a = p->arg;

	if (!PEER_OK(p, unshare(CLONE_FS) == 0))
		return;
	if (!PEER_OK(p, chroot(a->jail) == 0))
		return;
	if (!PEER_OK(p, chdir("/") == 0))
		return;
	/* The synchronous call no longer sees the file outside the jail. */
	if (!PEER_OK(p, open(a->outside, O_RDONLY) == -1 && errno == ENOENT))
		return;
	peer_ready(p);

	async_prep_openat(&a->out, AT_FDCWD, a->outside, O_RDONLY | O_CLOEXEC,
			  0);
	if (!PEER_OK(p, submit_and_wait(&a->out, 1) == 0))
		return;
	async_prep_openat(&a->in, AT_FDCWD, "/inside", O_RDONLY | O_CLOEXEC, 0);
	PEER_OK(p, submit_and_wait(&a->in, 1) == 0);
}

/* A thread in a chroot jail has its entries resolve paths in the jail. */
TEST_F(context, chroot)
{
	struct chroot_arg a = { 0 };
	struct peer p = { 0 };
	char path[PATH_MAX];

	if (geteuid())
		SKIP(return, "chroot() needs root");
	snprintf(a.jail, sizeof(a.jail), "%s/jail", self->dir);
	snprintf(a.outside, sizeof(a.outside), "%s/outside", self->dir);
	snprintf(path, sizeof(path), "%s/inside", a.jail);
	ASSERT_EQ(0, mkdir(a.jail, 0755));
	ASSERT_EQ(0, write_file(a.outside, MAIN_TEXT));
	ASSERT_EQ(0, write_file(path, PEER_TEXT));

	run_peer(_metadata, &p, chroot_peer, &a);
	if (a.out.result >= 0)
		close(a.out.result);
	if (a.in.result >= 0)
		close(a.in.result);
	ASSERT_RESULT(-ENOENT, &a.out);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, a.in.done);
	ASSERT_LE(0, a.in.result)
		TH_LOG("openat(\"/inside\") in the jail: %lld (%s)",
		       (long long)a.in.result,
		       a.in.result < 0 ? strerror(-a.in.result) : "-");
}

/* --- unshare(CLONE_FILES) ------------------------------------------------- */

struct files_arg {
	char peer_path[PATH_MAX];
	int fd;				/* the main thread's descriptor */
	int peer_fd;			/* the peer's, in its own table */
	struct async_syscall closed, mine;
	char buf[64], peer_buf[64];
};

static void files_peer(struct peer *p)
{
	struct files_arg *a = p->arg;

	if (!PEER_OK(p, unshare(CLONE_FILES) == 0))
		return;
	/* Closed in the peer's table only. */
	if (!PEER_OK(p, close(a->fd) == 0))
		return;
	peer_ready(p);

	async_prep_read(&a->closed, a->fd, a->buf, sizeof(a->buf));
	if (!PEER_OK(p, submit_and_wait(&a->closed, 1) == 0))
		return;

	a->peer_fd = open(a->peer_path, O_RDONLY);
	if (!PEER_OK(p, a->peer_fd >= 0))
		return;
	async_prep_read(&a->mine, a->peer_fd, a->peer_buf,
			sizeof(a->peer_buf) - 1);
	PEER_OK(p, submit_and_wait(&a->mine, 1) == 0);
	close(a->peer_fd);
}

/* A thread with its own descriptor table has its entries use that table. */
TEST_F(context, unshare_files)
{
	struct files_arg a = { .peer_fd = -1 };
	const size_t len = strlen(PEER_TEXT);
	struct peer p = { 0 };
	char path[PATH_MAX], buf[64] = "";
	struct async_syscall e;

	snprintf(path, sizeof(path), "%s/main", self->dir);
	snprintf(a.peer_path, sizeof(a.peer_path), "%s/peer", self->dir);
	ASSERT_EQ(0, write_file(path, MAIN_TEXT));
	ASSERT_EQ(0, write_file(a.peer_path, PEER_TEXT));
	a.fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, a.fd);

	run_peer(_metadata, &p, files_peer, &a);
	ASSERT_RESULT(-EBADF, &a.closed);
	ASSERT_RESULT(len, &a.mine);
	ASSERT_EQ(0, memcmp(a.peer_buf, PEER_TEXT, len))
		TH_LOG("read \"%.*s\"", (int)len, a.peer_buf);

	/* The main thread's descriptor is still open, for both ways. */
	ASSERT_EQ(strlen(MAIN_TEXT), pread(a.fd, buf, sizeof(buf) - 1, 0));
	ASSERT_EQ(0, memcmp(buf, MAIN_TEXT, strlen(MAIN_TEXT)));
	memset(buf, 0, sizeof(buf));
	async_prep_pread(&e, a.fd, buf, sizeof(buf) - 1, 0);
	ASSERT_EQ(0, submit_and_wait(&e, 1));
	ASSERT_RESULT(strlen(MAIN_TEXT), &e);
	ASSERT_EQ(0, memcmp(buf, MAIN_TEXT, strlen(MAIN_TEXT)));
	close(a.fd);
}

/* --- Network namespace ----------------------------------------------------- */

struct net_arg {
	char name[64];			/* as /proc/net/unix shows it */
	struct async_syscall e[3];
	char buf[NET_BUF_SIZE];
	bool sync_found;
};

/* Whether the unix sockets of this thread's netns include @name. */
static bool unix_listed(const char *name, char *buf, size_t size)
{
	return read_small(NET_UNIX, buf, size) > 0 && strstr(buf, name);
}

static void net_peer(struct peer *p)
{
	struct net_arg *a = p->arg;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	int s;

	if (unshare(CLONE_NEWNET)) {
		if (errno == EINVAL)
			p->skip = "no network namespaces (CONFIG_NET_NS)";
		else if (errno == EPERM)
			p->skip = "unshare(CLONE_NEWNET) needs CAP_SYS_ADMIN";
		else
			peer_ok(p, false, "unshare(CLONE_NEWNET) == 0", __LINE__);
		return;
	}
	/* An abstract name, in the new namespace only. */
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!PEER_OK(p, s >= 0))
		return;
	memcpy(sun.sun_path + 1, a->name + 1, strlen(a->name) - 1);
	len = offsetof(struct sockaddr_un, sun_path) + strlen(a->name);
	if (!PEER_OK(p, bind(s, (struct sockaddr *)&sun, len) == 0))
		return;
	a->sync_found = unix_listed(a->name, a->buf, sizeof(a->buf));
	peer_ready(p);

	prep_cat(a->e, NET_UNIX, a->buf, sizeof(a->buf) - 1);
	PEER_OK(p, submit_and_wait(a->e, 3) == 0);
	close(s);
}

/* Entries of a thread in another network namespace run in that namespace. */
TEST_F(context, net_namespace)
{
	struct net_arg *a = calloc(1, sizeof(*a));
	char *buf = malloc(NET_BUF_SIZE);
	struct peer p = { 0 };
	struct async_syscall e[3];

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, buf);
	snprintf(a->name, sizeof(a->name), "@async-context-%d", getpid());
	ASSERT_FALSE(unix_listed(a->name, buf, NET_BUF_SIZE));

	run_peer(_metadata, &p, net_peer, a);
	if (p.skip)
		SKIP(return, "%s", p.skip);
	/* The way to look works for a synchronous read. */
	ASSERT_TRUE(a->sync_found);
	ASSERT_RESULT(0, &a->e[2]);
	ASSERT_TRUE(cat_read(a->e, a->buf, sizeof(a->buf)));
	ASSERT_NE(NULL, strstr(a->buf, a->name))
		TH_LOG("%s not in the peer's %s:\n%s", a->name, NET_UNIX,
		       a->buf);

	/* The main thread's entries still see the initial namespace. */
	prep_cat(e, NET_UNIX, buf, NET_BUF_SIZE - 1);
	ASSERT_EQ(0, submit_and_wait(e, 3));
	ASSERT_RESULT(0, &e[2]);
	ASSERT_TRUE(cat_read(e, buf, NET_BUF_SIZE));
	ASSERT_EQ(NULL, strstr(buf, a->name))
		TH_LOG("%s in the main thread's %s", a->name, NET_UNIX);
	free(buf);
	free(a);
}

/* --- Mount namespace ------------------------------------------------------- */

struct mnt_arg {
	char mnt[128], file[PATH_MAX];
	struct async_syscall e;
};

static void mnt_peer(struct peer *p)
{
	struct mnt_arg *a = p->arg;

	if (!PEER_OK(p, unshare(CLONE_NEWNS) == 0))
		return;
	/* Keep the mount below out of the main thread's namespace. */
	if (!PEER_OK(p, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0))
		return;
	if (!PEER_OK(p, mount("tmpfs", a->mnt, "tmpfs", 0, "size=64k") == 0))
		return;
	if (!PEER_OK(p, write_file(a->file, PEER_TEXT) == 0))
		return;
	peer_ready(p);

	async_prep_openat(&a->e, AT_FDCWD, a->file, O_RDONLY | O_CLOEXEC, 0);
	PEER_OK(p, submit_and_wait(&a->e, 1) == 0);
}

/* Entries of a thread in another mount namespace see that namespace. */
TEST_F(context, mount_namespace)
{
	struct mnt_arg a = { 0 };
	struct peer p = { 0 };
	struct async_syscall e;

	if (geteuid())
		SKIP(return, "unshare(CLONE_NEWNS) and mount() need root");
	snprintf(a.mnt, sizeof(a.mnt), "%s/mnt", self->dir);
	snprintf(a.file, sizeof(a.file), "%s/file", a.mnt);
	ASSERT_EQ(0, mkdir(a.mnt, 0755));

	run_peer(_metadata, &p, mnt_peer, &a);
	if (a.e.result >= 0)
		close(a.e.result);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, a.e.done);
	ASSERT_LE(0, a.e.result)
		TH_LOG("peer's openat: %lld (%s)", (long long)a.e.result,
		       a.e.result < 0 ? strerror(-a.e.result) : "-");

	/* Outside the peer's namespace the directory is empty. */
	ASSERT_EQ(-1, open(a.file, O_RDONLY));
	ASSERT_EQ(ENOENT, errno);
	async_prep_openat(&e, AT_FDCWD, a.file, O_RDONLY | O_CLOEXEC, 0);
	ASSERT_EQ(0, submit_and_wait(&e, 1));
	if (e.result >= 0)
		close(e.result);
	ASSERT_RESULT(-ENOENT, &e);
}

/* --- Worker creation with a signal pending --------------------------------- */

/* Chains that each keep a worker blocked until the end. */
#define FLOOD_CHAINS	200
/* Only to fail rather than hang: never a measure of speed. */
#define FLOOD_GUARD_S	60
#define FLOOD_CHILD_S	(FLOOD_GUARD_S + 2 * WAIT_TIMEOUT_S)

struct flood_report {
	int submitted;			/* calls that returned 2 */
	long submit_ret;		/* the first that did not */
	int submit_errno;
	int notes;			/* chains seen starting, in order */
	int late_notes;			/* notes read once all were released */
	int done;			/* entries completed */
	int bad_index;			/* first entry with a wrong result */
	long long bad_result;
	unsigned long signals;		/* SIGUSR1 handled by the submitter */
};

struct flood {
	struct async_syscall e[FLOOD_CHAINS][2];
	char buf[FLOOD_CHAINS];
	int pipes[FLOOD_CHAINS][2];
	int note[2];
	pthread_t target;
	bool stop;
};

static unsigned long usr1_count;

static void on_usr1(int sig)
{
	__atomic_fetch_add(&usr1_count, 1, __ATOMIC_RELAXED);
}

static void *flood_fn(void *arg)
{
	struct flood *f = arg;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED))
		pthread_kill(f->target, SIGUSR1);
	return NULL;
}

/* Read one note from @fd, waiting until @end at most: whether it came. */
static bool read_note(int fd, int64_t end)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t left;
	char c;

	for (;;) {
		left = end - now_ns();
		if (left <= 0)
			return false;
		/* EINTR is the rule here: the submitter is being flooded. */
		if (poll(&pfd, 1, left / NSEC_PER_MSEC + 1) == 1 &&
		    read(fd, &c, 1) == 1)
			return true;
	}
}

/* Release every chain, and see each end once. */
static void flood_finish(struct flood *f, struct flood_report *r)
{
	char buf[FLOOD_CHAINS + 1];
	ssize_t n;
	int i, k;

	for (k = 0; k < r->submitted; k++)
		CHILD_ASSERT(write(f->pipes[k][1], "r", 1) == 1);
	r->bad_index = -1;
	for (k = 0; k < r->submitted; k++) {
		for (i = 0; i < 2; i++) {
			struct async_syscall *e = &f->e[k][i];

			if (wait_done(e, WAIT_TIMEOUT_S))
				continue;
			r->done++;
			if (e->result != 1 && r->bad_index < 0) {
				r->bad_index = 2 * k + i;
				r->bad_result = e->result;
			}
		}
	}
	/* A stranded chain notes late; one run twice, once too many. */
	CHILD_ASSERT(fcntl(f->note[0], F_SETFL, O_NONBLOCK) == 0);
	n = read(f->note[0], buf, sizeof(buf));
	r->late_notes = n > 0 ? n : 0;
}

static int flood_child(void *arg)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct flood_report *r = arg;
	struct flood *f = calloc(1, sizeof(*f));
	struct timespec zero = { 0, 0 };
	pthread_t flooder;
	int64_t end;
	int k;

	CHILD_ASSERT(f);
	/* No SA_RESTART: async_submit() must not fail for a signal at all. */
	CHILD_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHILD_ASSERT(pipe2(f->note, O_CLOEXEC) == 0);
	for (k = 0; k < FLOOD_CHAINS; k++)
		CHILD_ASSERT(pipe2(f->pipes[k], O_CLOEXEC) == 0);

	/* A first worker, made without a signal pending. */
	async_prep_nanosleep(&f->e[0][0], &zero);
	f->e[0][0].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	CHILD_ASSERT(submit_and_wait(&f->e[0][0], 1) == 0);

	f->target = pthread_self();
	CHILD_ASSERT(pthread_create(&flooder, NULL, flood_fn, f) == 0);
	/*
	 * write(note) -> read(pipe k): each chain keeps its worker, so each
	 * call needs a new one.  Wait for each chain's note before the next
	 * call: a later worker would otherwise pick up a stranded chain, and
	 * only a failure on the last call would show.
	 */
	end = now_ns() + FLOOD_GUARD_S * NSEC_PER_SEC;
	for (k = 0; k < FLOOD_CHAINS; k++) {
		async_prep_write(&f->e[k][0], f->note[1], "x", 1);
		async_prep_read(&f->e[k][1], f->pipes[k][0], &f->buf[k], 1);
		async_chain(f->e[k], 2);
		poison(&f->e[k][0]);
		poison(&f->e[k][1]);
		r->submit_ret = async_submit(f->e[k], 2, 0);
		if (r->submit_ret != 2) {
			r->submit_errno = errno;
			break;
		}
		r->submitted++;
		if (!read_note(f->note[0], end))
			break;
		r->notes++;
	}
	__atomic_store_n(&f->stop, true, __ATOMIC_RELAXED);
	CHILD_ASSERT(pthread_join(flooder, NULL) == 0);
	r->signals = __atomic_load_n(&usr1_count, __ATOMIC_RELAXED);
	flood_finish(f, r);
	return 0;
}

/*
 * The submitting thread gets signals without a pause while each of its
 * calls needs a new worker: every call succeeds, every chain starts while
 * the earlier ones still hold their workers, and each runs once.
 */
TEST_F_TIMEOUT(context, signal_flood, FLOOD_CHILD_S + 30)
{
	struct flood_report *r = shared_page();
	struct rlimit rl;
	int status = 0;
	pid_t pid;

	/* The kernel caps the workers at RLIMIT_NPROC: a chain each, here. */
	ASSERT_EQ(0, getrlimit(RLIMIT_NPROC, &rl));
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= FLOOD_CHAINS)
		SKIP(return, "RLIMIT_NPROC %lu allows fewer than %d workers",
		     (unsigned long)rl.rlim_cur, FLOOD_CHAINS + 1);
	ASSERT_NE(NULL, r);
	/* A child, so that a hang or a crash stays there. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(flood_child(r));
	ASSERT_EQ(0, wait_child(pid, FLOOD_CHILD_S, &status))
		TH_LOG("child hung");
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("child status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status));
	TH_LOG("%d chains, %lu signals taken by the submitter",
	       r->submitted, r->signals);

	ASSERT_EQ(r->submitted, r->notes)
		TH_LOG("chain %d stranded: no worker started it in %d s",
		       r->notes, FLOOD_GUARD_S);
	ASSERT_EQ(FLOOD_CHAINS, r->submitted)
		TH_LOG("call %d returned %ld (%s)", r->submitted,
		       r->submit_ret, strerror(r->submit_errno));
	ASSERT_EQ(2 * FLOOD_CHAINS, r->done);
	ASSERT_EQ(-1, r->bad_index)
		TH_LOG("entry %d: result %lld", r->bad_index, r->bad_result);
	ASSERT_EQ(0, r->late_notes) TH_LOG("a chain ran twice");
	munmap(r, 4096);
}

/* --- Credentials ---------------------------------------------------------- */

#define NOBODY	65534

/* The real uid of a worker of this process asleep in read(), or -1. */
static long read_worker_uid(void)
{
	char path[300], buf[2048], *p;
	struct dirent *d;
	long uid = -1;
	DIR *dir;

	dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	while (uid < 0 && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0 ||
		    strncmp(buf, "async-wrk-", 10))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall",
			 d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0 ||
		    buf[0] == 'r' || strtol(buf, NULL, 10) != __NR_read)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		p = strstr(buf, "\nUid:");
		if (p)
			uid = strtol(p + 5, NULL, 10);
	}
	closedir(dir);
	return uid;
}

/*
 * Workers carry their submitter's credentials, by which signals and ptrace
 * judge them.  A thread that drops to nobody for a while, with the raw
 * system call that changes only its own credentials, has its workers made
 * as nobody; once it is root again, its entries must not run on them, or
 * nobody could kill or trace the threads that run root's entries.
 */
static int creds_child(void *arg)
{
	struct async_syscall e = {};
	int64_t end;
	char c = 0;
	long uid;
	int p[2];

	CHILD_ASSERT(!pipe(p));
	CHILD_ASSERT(!syscall(SYS_setresuid, NOBODY, NOBODY, 0));
	async_prep_pread(&e, p[0], &c, 0, 0);
	CHILD_ASSERT(async_submit_wait(&e, 1) == 1);
	CHILD_ASSERT(!syscall(SYS_setresuid, 0, 0, 0));

	memset(&e, 0, sizeof(e));
	async_prep_read(&e, p[0], &c, 1);
	CHILD_ASSERT(async_submit(&e, 1, 0) == 1);
	end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	while ((uid = read_worker_uid()) < 0 && now_ns() < end)
		sleep_ms(POLL_MS);
	CHILD_ASSERT(write(p[1], "x", 1) == 1);
	CHILD_ASSERT(!wait_done(&e, WAIT_TIMEOUT_S));
	CHILD_ASSERT(e.result == 1);
	if (uid != 0) {
		fprintf(stderr, "# the read ran on a worker of uid %ld\n", uid);
		return 1;
	}
	return 0;
}

TEST(creds_change_gets_new_workers)
{
	int status;

	if (geteuid())
		SKIP(return, "needs root to change uid");
	ASSERT_EQ(0, run_child(creds_child, NULL, &status, NULL));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * arm64: the tagged-address ABI is per thread, and a worker copies its
 * creator's.  A thread that turns it on once its workers exist must get
 * workers that have it too, or an entry faults where the call does not.
 */
TEST(tagged_addresses_after_workers_exist)
{
	const uintptr_t tag = (uintptr_t)0x5a << 56;
	struct async_syscall e[1], *tagged;
	char buf[8] = "";
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(4, write(p[1], "abcd", 4));
	/* A worker, made while the ABI is off. */
	async_prep_read(&e[0], p[0], buf, 0);
	e[0].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(0, e[0].result);

	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0))
		SKIP(return, "no tagged-address ABI here: %s", strerror(errno));
	/* The buffer, and the array itself, at tagged addresses. */
	tagged = (struct async_syscall *)((uintptr_t)e | tag);
	async_prep_read(&tagged[0], p[0], (char *)((uintptr_t)buf | tag), 4);
	tagged[0].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(1, async_submit(tagged, 1, 0));
	ASSERT_EQ(0, wait_all_done(e, 1, WAIT_TIMEOUT_S));
	EXPECT_EQ(4, e[0].result);
	EXPECT_EQ(0, memcmp(buf, "abcd", 4));
	EXPECT_EQ(0, prctl(PR_SET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));
	close(p[0]);
	close(p[1]);
}

/* --- A worker's own credentials ------------------------------------------- */

#define FSCREATE	"/proc/thread-self/attr/fscreate"

/*
 * An entry runs with its submitter's credentials as an override, which
 * must never be the worker's own: a write to the worker's LSM attributes
 * would commit new credentials on the worker, for every later entry.  The
 * procfs guard against overridden credentials refuses it with EBUSY before
 * any module sees it.  The payload, an empty context, at most clears the
 * thread's fscreate context where a module takes it.
 */
TEST(attr_write_on_worker)
{
	static const char empty[] = "\n";
	struct async_syscall e[3];
	ssize_t direct;
	int fd, err;

	fd = open(FSCREATE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "no %s: %s (CONFIG_SECURITY)", FSCREATE,
		     strerror(errno));
	/* A thread's own credentials pass the guard. */
	direct = write(fd, empty, 1);
	err = errno;
	close(fd);
	ASSERT_FALSE(direct < 0 && err == EBUSY);
	TH_LOG("direct write: %zd (%s)", direct,
	       direct < 0 ? strerror(err) : "-");

	async_prep_openat(&e[0], AT_FDCWD, FSCREATE, O_WRONLY | O_CLOEXEC, 0);
	e[0].flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	async_prep_write_ref(&e[1], 0, empty, 1);
	async_prep_close_ref(&e[2], 0);
	async_chain(e, 3);
	ASSERT_EQ(3, async_submit_wait(e, 3));
	ASSERT_LE(0, e[0].result)
		TH_LOG("openat: %s", strerror(-e[0].result));
	ASSERT_RESULT(-EBUSY, &e[1]);
	ASSERT_RESULT(0, &e[2]);
}

/* --- Protection keys ------------------------------------------------------ */

/*
 * The protection-key rights of the calling thread, and the same rights
 * without write access to @pkey: PKRU on x86, POR_EL0 on arm64.
 */
#if defined(__x86_64__)
static uint64_t pkey_rights(void)
{
	unsigned int eax, edx;

	asm volatile("rdpkru" : "=a" (eax), "=d" (edx) : "c" (0));
	return eax;
}

static void set_pkey_rights(uint64_t rights)
{
	asm volatile("wrpkru" : : "a" ((unsigned int)rights), "c" (0), "d" (0)
		     : "memory");
}

static uint64_t pkey_deny_write(uint64_t rights, int pkey)
{
	return rights | 2ULL << (2 * pkey);	/* write disable */
}
#elif defined(__aarch64__)
static uint64_t pkey_rights(void)
{
	uint64_t por;

	asm volatile("mrs %0, s3_3_c10_c2_4" : "=r" (por));
	return por;
}

static void set_pkey_rights(uint64_t rights)
{
	asm volatile("msr s3_3_c10_c2_4, %0\n\tisb" : : "r" (rights)
		     : "memory");
}

static uint64_t pkey_deny_write(uint64_t rights, int pkey)
{
	return rights & ~(4ULL << (4 * pkey));	/* POE_W */
}
#else
#define NO_PKEY_RIGHTS	"no protection-key register known here"

static uint64_t pkey_rights(void)
{
	return 0;
}

static void set_pkey_rights(uint64_t rights)
{
}

static uint64_t pkey_deny_write(uint64_t rights, int pkey)
{
	return rights;
}
#endif

/*
 * A worker made while the submitter could write a key's pages must not
 * write them for it once the submitter has revoked that: each entry runs
 * with the protection-key rights its submitter had at async_submit(), so
 * a pread into such a page fails with EFAULT as the direct call does, and
 * succeeds again once the rights are back.
 */
/* What pkey_alloc() fails with where there are no keys to give. */
static bool no_pkeys(int err)
{
	return err == ENOSPC || err == EINVAL || err == ENOSYS;
}

/*
 * A zeroed page of a new protection key, which pkey_alloc() opens to the
 * calling thread alone: the page, or MAP_FAILED with errno set, and
 * *@pkey negative if no key was had.
 */
static char *pkey_page(long page, int *pkey)
{
	char *buf;

	*pkey = syscall(SYS_pkey_alloc, 0, 0);
	if (*pkey < 0)
		return MAP_FAILED;
	buf = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf != MAP_FAILED &&
	    syscall(SYS_pkey_mprotect, buf, page, PROT_READ | PROT_WRITE,
		    *pkey)) {
		munmap(buf, page);
		return MAP_FAILED;
	}
	return buf;
}

TEST(pkey_rights_of_submitter)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct async_syscall e;
	uint64_t rights;
	ssize_t direct;
	int fd, pkey, err;
	char *buf;

#ifdef NO_PKEY_RIGHTS
	SKIP(return, NO_PKEY_RIGHTS);
#endif
	fd = memfd_create("pkey", MFD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "abcd", 4));
	buf = pkey_page(page, &pkey);
	if (pkey < 0 && no_pkeys(errno))
		SKIP(return, "no protection keys: %s", strerror(errno));
	ASSERT_NE(MAP_FAILED, buf);

	/* A worker, made while the thread may write there, and writing. */
	async_prep_pread(&e, fd, buf, 4, 0);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_RESULT(4, &e);
	ASSERT_EQ(0, memcmp(buf, "abcd", 4));
	ASSERT_LE(1, count_workers());
	memset(buf, 0, 4);

	rights = pkey_rights();
	set_pkey_rights(pkey_deny_write(rights, pkey));
	direct = pread(fd, buf, 4, 0);
	err = errno;
	async_prep_pread(&e, fd, buf, 4, 0);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	poison(&e);
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	set_pkey_rights(rights);
	ASSERT_EQ(-1, direct);
	ASSERT_EQ(EFAULT, err);
	ASSERT_RESULT(-EFAULT, &e);
	ASSERT_NE(0, memcmp(buf, "abcd", 4));

	/* With the rights back, a worker writes there again. */
	async_prep_pread(&e, fd, buf, 4, 0);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	ASSERT_EQ(1, async_submit_wait(&e, 1));
	ASSERT_RESULT(4, &e);
	ASSERT_EQ(0, memcmp(buf, "abcd", 4));

	munmap(buf, page);
	syscall(SYS_pkey_free, pkey);
	close(fd);
}

/*
 * A cancel ends a sleep on a timer in the cancelling thread, which writes
 * the time left to the sleep's remainder: with the rights of the sleep's
 * submitter, not its own.
 */
TEST(pkey_rights_of_cancelled_sleep)
{
	const long page = sysconf(_SC_PAGESIZE);
	const struct timespec ts = { 1000, 0 };
	static const char untouched[sizeof(struct timespec)];
	struct async_syscall e;
	uint64_t rights;
	char *buf;
	int pkey;

#ifdef NO_PKEY_RIGHTS
	SKIP(return, NO_PKEY_RIGHTS);
#endif
	buf = pkey_page(page, &pkey);
	if (pkey < 0 && no_pkeys(errno))
		SKIP(return, "no protection keys: %s", strerror(errno));
	ASSERT_NE(MAP_FAILED, buf);

	/* Submitted by a thread that may not write the remainder's page. */
	async_prep_nanosleep(&e, &ts);
	e.args[1] = async_ptr(buf);
	rights = pkey_rights();
	set_pkey_rights(pkey_deny_write(rights, pkey));
	ASSERT_EQ(1, async_submit(&e, 1, 0));
	set_pkey_rights(rights);
	ASSERT_EQ(1, async_submit(&e, 1, ASYNC_SUBMIT_CANCEL));
	ASSERT_EQ(0, wait_done(&e, WAIT_TIMEOUT_S));
	ASSERT_RESULT(-EFAULT, &e);
	ASSERT_EQ(0, memcmp(buf, untouched, sizeof(untouched)));

	munmap(buf, page);
	syscall(SYS_pkey_free, pkey);
}

TEST_HARNESS_MAIN
