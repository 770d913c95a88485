// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() and seccomp: every entry is checked against the filters of
 * the thread that submitted it, with the entry's own system call number and
 * its final arguments, as if that thread had made the call.
 *
 * Each test installs its filter in a forked child, so that the test process
 * stays unfiltered, and the child reports through a shared page.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "async_test.h"
#include "kmsg.h"

#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF	0x7fc00000U
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER 0x8UL
#endif

/* A file every test may open, and one that only the tests' entries remove. */
#define FILE_NAME	"file"
#define VICTIM_NAME	"victim"

/* --- Filters ------------------------------------------------------------- */

#define LOAD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* The low 32 bits of argument n (x86_64 and arm64 are little-endian). */
#define LOAD_ARG(n)	LOAD(args[n])
#define RET(action)	BPF_STMT(BPF_RET | BPF_K, (action))
/* Skip the next instruction unless the accumulator equals k. */
#define SKIP_NE(k)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, 1)
/* Any other architecture would show as this errno instead of the one tested. */
#define WRONG_ARCH_ERRNO ENOSTR
#define MAX_INSNS	32

/* Install filter @insns, after a check of the architecture. */
static int install(const struct sock_filter *insns, unsigned short len,
		   unsigned int flags)
{
	struct sock_filter f[MAX_INSNS] = {
		LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
		RET(SECCOMP_RET_ERRNO | WRONG_ARCH_ERRNO),
	};
	struct sock_fprog prog = { .len = 3 + len, .filter = f };

	if (prog.len > MAX_INSNS) {
		errno = E2BIG;
		return -1;
	}
	memcpy(&f[3], insns, len * sizeof(*insns));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

#define INSTALL(insns, flags) install(insns, sizeof(insns) / sizeof((insns)[0]), flags)

/* Filter: system call @nr gets @action; everything else is allowed. */
static int install_one(unsigned int nr, unsigned int action,
		       unsigned int flags)
{
	struct sock_filter f[] = {
		LOAD(nr),
		SKIP_NE(nr),
		RET(action),
		RET(SECCOMP_RET_ALLOW),
	};

	return INSTALL(f, flags);
}

/* --- Fixture ------------------------------------------------------------- */

/* What a child saw, for the parent to check. */
struct report {
	int stage;
	int sync_err[4];
	long sync_ret[4];
	__s64 res[8];
	__u32 done[8];
	int sigsys;
	int pending;
};

struct scratch {
	char dir[PATH_MAX];
	int dirfd;
	struct report *r;
};

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	return remove(path);
}

static void scratch_setup(struct __test_metadata *_metadata, struct scratch *s)
{
	const char *base = getenv("SCRATCH");
	int fd;

	if (!base || !*base)
		base = "/tmp";
	snprintf(s->dir, sizeof(s->dir), "%s/async_seccomp.XXXXXX", base);
	ASSERT_NE(NULL, mkdtemp(s->dir));
	s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, s->dirfd);
	fd = openat(s->dirfd, FILE_NAME, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "hello", 5));
	close(fd);
	fd = openat(s->dirfd, VICTIM_NAME, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	s->r = shared_page();
	ASSERT_NE(NULL, s->r);
	memset(s->r, 0, sizeof(*s->r));
}

FIXTURE(sc) {
	struct scratch s;
};

FIXTURE_SETUP(sc)
{
	scratch_setup(_metadata, &self->s);
}

FIXTURE_TEARDOWN_PARENT(sc)
{
	nftw(self->s.dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool exists(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, 0);
}

/* Submit and wait with a bound: 0, or -errno of the submission. */
static long submit_wait(struct async_syscall *e, unsigned int nr)
{
	if (async_submit(e, nr, 0) != nr)
		return -errno;
	return wait_all_done(e, nr, WAIT_TIMEOUT_S);
}

static void copy_results(struct report *r, struct async_syscall *e,
			 unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		r->res[i] = e[i].result;
		r->done[i] = e[i].done;
	}
}

/* Run @fn in a child; it must exit 0, within the bound. */
#define RUN_CHILD_OK(fn, arg) do { \
	int __status = 0; \
	ASSERT_EQ(0, run_child(fn, arg, &__status, NULL)); \
	ASSERT_TRUE(WIFEXITED(__status)) TH_LOG("status %#x", __status); \
	ASSERT_EQ(0, WEXITSTATUS(__status)); \
} while (0)

#define ASSERT_DONE_RES(want, rep, i) do { \
	const struct report *__r = (rep); \
	const int __i = (i); \
	\
	ASSERT_EQ(ASYNC_SYSCALL_DONE, __r->done[__i]) TH_LOG("entry %d", __i); \
	ASSERT_EQ((__s64)(want), __r->res[__i]) \
		TH_LOG("entry %d: %lld (%s)", __i, (long long)__r->res[__i], \
		       __r->res[__i] < 0 ? strerror(-__r->res[__i]) : "-"); \
} while (0)

struct child_arg {
	int dirfd;
	struct report *r;
	unsigned int action;
	unsigned int flags;
	unsigned int entry_flags;
	bool match_len;
};

/* Whether kernel.seccomp.actions_logged has @name. */
static bool action_logged(const char *name)
{
	char buf[256], *tok, *save;

	if (read_small("/proc/sys/kernel/seccomp/actions_logged", buf,
		       sizeof(buf)) <= 0)
		return false;
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save)) {
		if (!strcmp(tok, name))
			return true;
	}
	return false;
}

/*
 * The seccomp record of a worker of process @pid for system call @nr,
 * with signal @sig: NULL if none shows up.
 */
/* @comm: how the thread that ran the entry is named, or its start. */
static const char *seccomp_record(struct kmsg *k, pid_t pid, const char *comm,
				  int nr, int sig)
{
	char who[64], what[64];

	snprintf(who, sizeof(who), " pid=%d comm=\"%s", pid, comm);
	snprintf(what, sizeof(what), " sig=%d arch=%x syscall=%d ", sig,
		 NATIVE_AUDIT_ARCH, nr);
	return kmsg_wait(k, (const char *const []){
		"audit: type=1326 ", who, what, NULL });
}

/* --- RET_ERRNO ----------------------------------------------------------- */

static int errno_openat_child(void *p)
{
	struct child_arg *a = p;
	struct async_syscall e[2];
	struct stat st;

	CHILD_ASSERT(install_one(__NR_openat, SECCOMP_RET_ERRNO | EACCES, 0) == 0);
	a->r->sync_ret[0] = openat(a->dirfd, FILE_NAME, O_RDONLY);
	a->r->sync_err[0] = errno;

	async_prep_openat(&e[0], a->dirfd, FILE_NAME, O_RDONLY, 0);
	async_prep_fstat(&e[1], a->dirfd, &st);
	poison(&e[0]);
	poison(&e[1]);
	CHILD_ASSERT(submit_wait(e, 2) == 0);
	copy_results(a->r, e, 2);
	return 0;
}

/* A denied openat fails with the filter's errno, as the direct call does. */
TEST_F(sc, errno_openat)
{
	struct child_arg a = { .dirfd = self->s.dirfd, .r = self->s.r };

	RUN_CHILD_OK(errno_openat_child, &a);
	ASSERT_EQ(-1, self->s.r->sync_ret[0]);
	ASSERT_EQ(EACCES, self->s.r->sync_err[0]);
	ASSERT_DONE_RES(-EACCES, self->s.r, 0);
	/* Other calls go through. */
	ASSERT_DONE_RES(0, self->s.r, 1);
}

static int errno_creat_child(void *p)
{
	struct sock_filter f[] = {
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		LOAD_ARG(2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1),
		RET(SECCOMP_RET_ERRNO | EROFS),
		RET(SECCOMP_RET_ALLOW),
	};
	struct child_arg *a = p;
	struct async_syscall e[4];

	CHILD_ASSERT(INSTALL(f, 0) == 0);
	a->r->sync_ret[0] = openat(a->dirfd, "sync-new", O_WRONLY | O_CREAT, 0600);
	a->r->sync_err[0] = errno;

	/* Two chains: openat(O_CREAT) -> close, openat() -> close. */
	async_prep_openat(&e[0], a->dirfd, "new", O_WRONLY | O_CREAT, 0600);
	async_link(&e[0]);
	async_prep_close(&e[1], 0);
	async_ref(&e[1], 0, 0);
	async_prep_openat(&e[2], a->dirfd, FILE_NAME, O_RDONLY, 0);
	async_link(&e[2]);
	async_prep_close(&e[3], 0);
	async_ref(&e[3], 0, 2);
	for (int i = 0; i < 4; i++)
		poison(&e[i]);
	CHILD_ASSERT(submit_wait(e, 4) == 0);
	copy_results(a->r, e, 4);
	return 0;
}

/* A filter on an argument's bits: O_CREAT is refused, a plain open is not. */
TEST_F(sc, errno_openat_creat_flag)
{
	struct child_arg a = { .dirfd = self->s.dirfd, .r = self->s.r };

	RUN_CHILD_OK(errno_creat_child, &a);
	ASSERT_EQ(-1, self->s.r->sync_ret[0]);
	ASSERT_EQ(EROFS, self->s.r->sync_err[0]);
	ASSERT_DONE_RES(-EROFS, self->s.r, 0);
	/* The rest of the refused entry's chain is cancelled as for any failure. */
	ASSERT_DONE_RES(-ECANCELED, self->s.r, 1);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->s.r->done[2]);
	ASSERT_LE(0, self->s.r->res[2]);
	ASSERT_DONE_RES(0, self->s.r, 3);
	/* The refused entry did not run. */
	ASSERT_FALSE(exists(self->s.dirfd, "new"));
	ASSERT_FALSE(exists(self->s.dirfd, "sync-new"));
}

static int log_and_errno_child(void *p)
{
	struct sock_filter f[] = {
		LOAD(nr),
		SKIP_NE(__NR_openat),
		RET(SECCOMP_RET_LOG),
		SKIP_NE(__NR_unlinkat),
		RET(SECCOMP_RET_ERRNO | EACCES),
		RET(SECCOMP_RET_ALLOW),
	};
	struct child_arg *a = p;
	struct async_syscall e[2];

	CHILD_ASSERT(INSTALL(f, 0) == 0);
	async_prep_openat(&e[0], a->dirfd, FILE_NAME, O_RDONLY, 0);
	async_prep_unlinkat(&e[1], a->dirfd, VICTIM_NAME, 0);
	poison(&e[0]);
	poison(&e[1]);
	CHILD_ASSERT(submit_wait(e, 2) == 0);
	copy_results(a->r, e, 2);
	return 0;
}

/* RET_LOG lets the call run; RET_ERRNO in the same filter refuses another. */
TEST_F(sc, log_runs_errno_refuses)
{
	struct child_arg a = { .dirfd = self->s.dirfd, .r = self->s.r };

	RUN_CHILD_OK(log_and_errno_child, &a);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->s.r->done[0]);
	ASSERT_LE(0, self->s.r->res[0]);
	ASSERT_DONE_RES(-EACCES, self->s.r, 1);
	ASSERT_TRUE(exists(self->s.dirfd, VICTIM_NAME));
}

/* --- Operations seen as the system call they do -------------------------- */

/* The length of the ranges the fsync_range filters and entries use. */
#define RANGE_LEN	4096

/*
 * Installs a filter that refuses system call a->action (with a->match_len,
 * only over RANGE_LEN bytes: its third argument), tries the direct call with
 * the arguments of a ranged one, then submits ASYNC_OP_FSYNC_RANGE over
 * RANGE_LEN bytes without and with ASYNC_FSYNC_DATASYNC, and with
 * DATASYNC over twice as many.
 */
static int fsync_range_child(void *p)
{
	struct child_arg *a = p;
	struct sock_filter f[] = {
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a->action, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		LOAD_ARG(2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RANGE_LEN, 0, a->match_len),
		RET(SECCOMP_RET_ERRNO | EACCES),
		RET(SECCOMP_RET_ALLOW),
	};
	struct async_syscall e[3];
	int fd;

	fd = openat(a->dirfd, FILE_NAME, O_WRONLY | O_CLOEXEC);
	CHILD_ASSERT(fd >= 0);
	CHILD_ASSERT(INSTALL(f, 0) == 0);
	a->r->sync_ret[0] = syscall(a->action, fd, 0, RANGE_LEN, 0);
	a->r->sync_err[0] = errno;

	async_prep_fsync_range(&e[0], fd, 0, RANGE_LEN, 0);
	async_prep_fsync_range(&e[1], fd, 0, RANGE_LEN, ASYNC_FSYNC_DATASYNC);
	async_prep_fsync_range(&e[2], fd, 0, 2 * RANGE_LEN,
			       ASYNC_FSYNC_DATASYNC);
	for (int i = 0; i < 3; i++)
		poison(&e[i]);
	CHILD_ASSERT(submit_wait(e, 3) == 0);
	copy_results(a->r, e, 3);
	return 0;
}

/*
 * ASYNC_OP_FSYNC_RANGE without ASYNC_FSYNC_DATASYNC is an fsync(): a
 * filter that refuses fsync() refuses it, and not the ranged fdatasync.
 */
TEST_F(sc, fsync_range_is_fsync)
{
	struct child_arg a = {
		.dirfd = self->s.dirfd, .r = self->s.r, .action = __NR_fsync,
	};

	RUN_CHILD_OK(fsync_range_child, &a);
	ASSERT_EQ(-1, self->s.r->sync_ret[0]);
	ASSERT_EQ(EACCES, self->s.r->sync_err[0]);
	ASSERT_DONE_RES(-EACCES, self->s.r, 0);
	ASSERT_DONE_RES(0, self->s.r, 1);
	ASSERT_DONE_RES(0, self->s.r, 2);
}

/*
 * With ASYNC_FSYNC_DATASYNC it is an fdatasync(), whose filter sees the
 * operation's arguments: the range's length is the third.
 */
TEST_F(sc, fsync_range_datasync_is_fdatasync)
{
	struct child_arg a = {
		.dirfd = self->s.dirfd, .r = self->s.r,
		.action = __NR_fdatasync, .match_len = true,
	};

	RUN_CHILD_OK(fsync_range_child, &a);
	ASSERT_EQ(-1, self->s.r->sync_ret[0]);
	ASSERT_EQ(EACCES, self->s.r->sync_err[0]);
	ASSERT_DONE_RES(0, self->s.r, 0);
	ASSERT_DONE_RES(-EACCES, self->s.r, 1);
	ASSERT_DONE_RES(0, self->s.r, 2);
}

/* Tests that read the records seccomp logs. */
FIXTURE(logged) {
	struct scratch s;
	char ratelimit[32];
};

FIXTURE_SETUP(logged)
{
	scratch_setup(_metadata, &self->s);
	ratelimit_off(self->ratelimit, sizeof(self->ratelimit));
}

FIXTURE_TEARDOWN_PARENT(logged)
{
	ratelimit_restore(self->ratelimit);
	nftw(self->s.dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int ret_log_child(void *p)
{
	struct child_arg *a = p;
	struct async_syscall e;

	/* The entry's path is cached: it runs in this thread unless forced. */
	CHILD_ASSERT(faccessat(a->dirfd, FILE_NAME, R_OK, 0) == 0);
	prctl(PR_SET_NAME, "ret_log_child");
	/* No direct openat() from here on: only the entry is logged. */
	CHILD_ASSERT(install_one(__NR_openat, SECCOMP_RET_LOG, 0) == 0);
	async_prep_openat(&e, a->dirfd, FILE_NAME, O_RDONLY | O_CLOEXEC, 0);
	e.flags |= a->entry_flags;
	poison(&e);
	CHILD_ASSERT(submit_wait(&e, 1) == 0);
	copy_results(a->r, &e, 1);
	return 0;
}

/*
 * RET_LOG on an entry logs it as the call it is, from the thread that ran
 * it: the submitter, which runs a cached open itself, or a worker.
 */
static void check_ret_log(struct __test_metadata *_metadata,
			  struct scratch *s, unsigned int flags,
			  const char *comm)
{
	struct child_arg a = {
		.dirfd = s->dirfd, .r = s->r, .entry_flags = flags,
	};
	const char *rec;
	struct kmsg *k;
	int status = 0;
	pid_t pid = 0;

	if (!action_logged("log"))
		SKIP(return, "kernel.seccomp.actions_logged has no \"log\"");
	k = kmsg_open();
	if (!k)
		SKIP(return, "cannot read /dev/kmsg (need root)");
	ASSERT_EQ(0, run_child(ret_log_child, &a, &status, &pid));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, s->r->done[0]);
	ASSERT_LE(0, s->r->res[0]) TH_LOG("%s", strerror(-s->r->res[0]));
	rec = seccomp_record(k, pid, comm, __NR_openat, 0);
	ASSERT_NE(NULL, rec) TH_LOG("no seccomp record for openat from %s of %d",
				    comm, pid);
	EXPECT_NE(NULL, strstr(rec, " code=0x7ffc0000")) TH_LOG("%s", rec);
}

TEST_F(logged, ret_log)
{
	check_ret_log(_metadata, &self->s, 0, "ret_log_child\"");
}

TEST_F(logged, ret_log_force_async)
{
	check_ret_log(_metadata, &self->s, ASYNC_SYSCALL_FORCE_ASYNC,
		      "async-wrk-");
}

/* --- Final arguments ----------------------------------------------------- */

/* Filter errnos that tell which value the filter saw as read()'s fd. */
#define SAW_RESOLVED_FD	ENOLINK
#define SAW_INDEX	ENOTUNIQ

static int resolved_ref_child(void *p)
{
	struct child_arg *a = p;
	struct async_syscall e[4];
	char buf[16];
	int fd;

	/* The lowest free descriptor is what the chain's openat() will get. */
	fd = openat(a->dirfd, FILE_NAME, O_RDONLY);
	CHILD_ASSERT(fd > 0);
	close(fd);
	a->r->sync_ret[0] = fd;
	{
		struct sock_filter f[] = {
				LOAD(nr),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_read, 1, 0),
			RET(SECCOMP_RET_ALLOW),
			LOAD_ARG(0),
			SKIP_NE(fd),
			RET(SECCOMP_RET_ERRNO | SAW_RESOLVED_FD),
			SKIP_NE(0),
			RET(SECCOMP_RET_ERRNO | SAW_INDEX),
			RET(SECCOMP_RET_ALLOW),
		};

		CHILD_ASSERT(INSTALL(f, 0) == 0);
	}

	/* openat -> read(fd from entry 0) -> close, whatever read did. */
	async_prep_openat(&e[0], a->dirfd, FILE_NAME, O_RDONLY, 0);
	async_prep_read(&e[1], 0, buf, sizeof(buf));
	async_ref(&e[1], 0, 0);
	async_prep_close(&e[2], 0);
	async_ref(&e[2], 0, 0);
	async_run_anyway(&e[2]);
	async_chain(e, 3);
	/* A literal fd 0 is what the reference's index would look like. */
	async_prep_read(&e[3], 0, buf, 0);
	for (int i = 0; i < 4; i++)
		poison(&e[i]);
	CHILD_ASSERT(submit_wait(e, 4) == 0);
	copy_results(a->r, e, 4);
	return 0;
}

/*
 * The filter sees the argument a reference resolves to, not the index
 * stored in the entry.
 */
TEST_F(sc, filter_sees_resolved_reference)
{
	struct child_arg a = { .dirfd = self->s.dirfd, .r = self->s.r };
	int fd;

	RUN_CHILD_OK(resolved_ref_child, &a);
	fd = self->s.r->sync_ret[0];
	ASSERT_DONE_RES(fd, self->s.r, 0);
	ASSERT_DONE_RES(-SAW_RESOLVED_FD, self->s.r, 1);
	ASSERT_DONE_RES(0, self->s.r, 2);
	ASSERT_DONE_RES(-SAW_INDEX, self->s.r, 3);
}

/* --- Whose filters ------------------------------------------------------- */

static int worker_predates_child(void *p)
{
	struct timespec zero = { 0, 0 };
	struct child_arg *a = p;
	struct async_syscall e;

	/* Unfiltered: this starts a worker, which stays for 2 s when idle. */
	async_prep_nanosleep(&e, &zero);
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	CHILD_ASSERT(async_submit_wait(&e, 1) == 1);
	CHILD_ASSERT(e.result == 0);
	a->r->sync_ret[0] = count_workers();

	CHILD_ASSERT(install_one(__NR_openat, SECCOMP_RET_ERRNO | EACCES, 0) == 0);
	async_prep_openat(&e, a->dirfd, FILE_NAME, O_RDONLY, 0);
	poison(&e);
	CHILD_ASSERT(submit_wait(&e, 1) == 0);
	copy_results(a->r, &e, 1);
	return 0;
}

/* A worker started before the filter still applies it to later entries. */
TEST_F(sc, filter_of_submitter_not_of_worker)
{
	struct child_arg a = { .dirfd = self->s.dirfd, .r = self->s.r };

	RUN_CHILD_OK(worker_predates_child, &a);
	ASSERT_LE(1, self->s.r->sync_ret[0]);
	ASSERT_DONE_RES(-EACCES, self->s.r, 0);
}

static void *filtered_thread(void *p)
{
	struct child_arg *a = p;
	struct async_syscall e;

	/* Without TSYNC the filter is this thread's only. */
	if (install_one(__NR_openat, SECCOMP_RET_ERRNO | EACCES, 0))
		return (void *)1L;
	async_prep_openat(&e, a->dirfd, FILE_NAME, O_RDONLY, 0);
	poison(&e);
	if (submit_wait(&e, 1))
		return (void *)2L;
	copy_results(a->r, &e, 1);
	return NULL;
}

static int other_thread_child(void *p)
{
	struct child_arg *a = p;
	struct async_syscall e;
	pthread_t t;
	void *ret;

	CHILD_ASSERT(pthread_create(&t, NULL, filtered_thread, a) == 0);
	CHILD_ASSERT(pthread_join(t, &ret) == 0);
	CHILD_ASSERT(!ret);

	/* This thread has no filter, whoever started the workers. */
	async_prep_openat(&e, a->dirfd, FILE_NAME, O_RDONLY, 0);
	poison(&e);
	CHILD_ASSERT(submit_wait(&e, 1) == 0);
	a->r->res[1] = e.result;
	a->r->done[1] = e.done;
	return 0;
}

/* The filters are the submitting thread's, not another thread's. */
TEST_F(sc, filter_of_submitting_thread)
{
	struct child_arg a = { .dirfd = self->s.dirfd, .r = self->s.r };

	RUN_CHILD_OK(other_thread_child, &a);
	ASSERT_DONE_RES(-EACCES, self->s.r, 0);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->s.r->done[1]);
	ASSERT_LE(0, self->s.r->res[1]) TH_LOG("%s", strerror(-self->s.r->res[1]));
}

/* --- Killing actions ------------------------------------------------------ */

FIXTURE(kill) {
	struct scratch s;
	char ratelimit[32];
};

FIXTURE_SETUP(kill)
{
	scratch_setup(_metadata, &self->s);
	ratelimit_off(self->ratelimit, sizeof(self->ratelimit));
}

FIXTURE_TEARDOWN_PARENT(kill)
{
	ratelimit_restore(self->ratelimit);
	nftw(self->s.dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

FIXTURE_VARIANT(kill) {
	unsigned int action;
};

FIXTURE_VARIANT_ADD(kill, kill_process) {
	.action = SECCOMP_RET_KILL_PROCESS,
};

FIXTURE_VARIANT_ADD(kill, kill_thread) {
	.action = SECCOMP_RET_KILL_THREAD,
};

/*
 * Actions seccomp does not know load, and kill the process when they are
 * returned, as KILL_PROCESS does.
 */
FIXTURE_VARIANT_ADD(kill, unknown_action) {
	.action = 0x00300000U,
};

FIXTURE_VARIANT_ADD(kill, unknown_action_high) {
	.action = 0x7ffe0000U,
};

FIXTURE(enosys) {
	struct scratch s;
};

FIXTURE_SETUP(enosys)
{
	scratch_setup(_metadata, &self->s);
}

FIXTURE_TEARDOWN_PARENT(enosys)
{
	nftw(self->s.dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

FIXTURE_VARIANT(enosys) {
	unsigned int action;
};

FIXTURE_VARIANT_ADD(enosys, trap) {
	.action = SECCOMP_RET_TRAP,
};

FIXTURE_VARIANT_ADD(enosys, trace) {
	.action = SECCOMP_RET_TRACE,
};

FIXTURE_VARIANT_ADD(enosys, user_notif) {
	.action = SECCOMP_RET_USER_NOTIF,
};

static void *idle_thread(void *p)
{
	for (;;)
		pause();
	return NULL;
}

static int kill_child(void *p)
{
	struct child_arg *a = p;
	struct sock_filter f[] = {
		LOAD(nr),
		SKIP_NE(__NR_unlinkat),
		RET(a->action),
#ifdef __NR_unlink
		SKIP_NE(__NR_unlink),
		RET(a->action),
#endif
		RET(SECCOMP_RET_ALLOW),
	};
	struct rlimit no_core = { 0, 0 };
	struct async_syscall e;
	pthread_t t;

	/* SIGSYS dumps core: leave no core file behind. */
	CHILD_ASSERT(setrlimit(RLIMIT_CORE, &no_core) == 0);
	/* Another thread, which must die with the process. */
	CHILD_ASSERT(pthread_create(&t, NULL, idle_thread, NULL) == 0);
	CHILD_ASSERT(INSTALL(f, 0) == 0);
	async_prep_unlinkat(&e, a->dirfd, VICTIM_NAME, 0);
	poison(&e);
	a->r->stage = 1;
	if (async_submit(&e, 1, 0) != 1) {
		a->r->stage = -errno;
		return 2;
	}
	a->r->stage = 2;
	wait_done(&e, WAIT_TIMEOUT_S);
	a->r->res[0] = e.result;
	a->r->done[0] = e.done;
	return 3;
}

/*
 * KILL_PROCESS, KILL_THREAD and unknown actions on an entry kill the whole
 * process with SIGSYS, as seccomp kills a process, before the call runs.
 */
TEST_F(kill, whole_process)
{
	struct child_arg a = {
		.dirfd = self->s.dirfd, .r = self->s.r, .action = variant->action,
	};
	int status = 0;

	ASSERT_EQ(0, run_child(kill_child, &a, &status, NULL));
	ASSERT_LE(1, self->s.r->stage) TH_LOG("submit: %s", strerror(-self->s.r->stage));
	ASSERT_TRUE(WIFSIGNALED(status))
		TH_LOG("child lived: exit %d, entry done %#x result %lld",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		       self->s.r->done[0], (long long)self->s.r->res[0]);
	ASSERT_EQ(SIGSYS, WTERMSIG(status));
	ASSERT_TRUE(exists(self->s.dirfd, VICTIM_NAME));
}

/* An open the submitter runs itself: its cached name is opened inline. */
static int kill_inline_child(void *p)
{
	struct child_arg *a = p;
	struct sock_filter f[] = {
		LOAD(nr),
		SKIP_NE(__NR_openat),
		RET(a->action),
		RET(SECCOMP_RET_ALLOW),
	};
	struct rlimit no_core = { 0, 0 };
	struct async_syscall e[2];
	struct stat st;

	CHILD_ASSERT(setrlimit(RLIMIT_CORE, &no_core) == 0);
	CHILD_ASSERT(fstatat(a->dirfd, FILE_NAME, &st, 0) == 0);
	CHILD_ASSERT(INSTALL(f, 0) == 0);
	async_prep_openat(&e[0], a->dirfd, FILE_NAME, O_RDONLY | O_CLOEXEC, 0);
	async_prep_unlinkat(&e[1], a->dirfd, VICTIM_NAME, 0);
	poison(&e[0]);
	poison(&e[1]);
	a->r->stage = 1;
	async_submit(e, 2, 0);
	/* Not reached: the kill acts on this thread on its way out. */
	a->r->stage = 2;
	return 3;
}

/*
 * An entry the submitter would run itself is killed in the submitter, as
 * its own call would be: the process dies before async_submit() returns,
 * and nothing after the entry runs.
 */
static void expect_killed_in_submitter(struct __test_metadata *_metadata,
				       struct _test_data_kill *self,
				       const struct _fixture_variant_kill *variant,
				       int (*child)(void *))
{
	struct child_arg a = {
		.dirfd = self->s.dirfd, .r = self->s.r, .action = variant->action,
	};
	int status = 0;

	ASSERT_EQ(0, run_child(child, &a, &status, NULL));
	ASSERT_EQ(1, self->s.r->stage);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(SIGSYS, WTERMSIG(status));
	ASSERT_TRUE(exists(self->s.dirfd, VICTIM_NAME));
}

TEST_F(kill, inline_entry)
{
	expect_killed_in_submitter(_metadata, self, variant, kill_inline_child);
}

/* Entries of the long batch whose open is killed, and where the open is. */
#define LONG_BATCH	2048
#define LONG_BATCH_KILL	1536

/*
 * The same open far into a long batch of reads, which the submitter may
 * be sharing with a worker by then: the kill stops what no one has taken.
 */
static int kill_long_batch_child(void *p)
{
	static struct async_syscall e[LONG_BATCH];
	struct child_arg *a = p;
	struct sock_filter f[] = {
		LOAD(nr),
		SKIP_NE(__NR_openat),
		RET(a->action),
		RET(SECCOMP_RET_ALLOW),
	};
	struct rlimit no_core = { 0, 0 };
	static char buf[64];
	unsigned int i;
	int fd;

	CHILD_ASSERT(setrlimit(RLIMIT_CORE, &no_core) == 0);
	fd = openat(a->dirfd, FILE_NAME, O_RDONLY | O_CLOEXEC);
	CHILD_ASSERT(fd >= 0);
	CHILD_ASSERT(INSTALL(f, 0) == 0);
	for (i = 0; i < LONG_BATCH; i++)
		async_prep_pread(&e[i], fd, buf, sizeof(buf), 0);
	async_prep_openat(&e[LONG_BATCH_KILL], a->dirfd, FILE_NAME,
			  O_RDONLY | O_CLOEXEC, 0);
	async_prep_unlinkat(&e[LONG_BATCH_KILL + 1], a->dirfd, VICTIM_NAME, 0);
	async_chain(&e[LONG_BATCH_KILL], 2);
	a->r->stage = 1;
	async_submit(e, LONG_BATCH, ASYNC_SUBMIT_WAIT);
	/* Not reached: the kill acts on this thread on its way out. */
	a->r->stage = 2;
	return 3;
}

TEST_F(kill, entry_of_a_long_batch)
{
	expect_killed_in_submitter(_metadata, self, variant,
				   kill_long_batch_child);
}

/* The kill is logged as seccomp logs one: signal SIGSYS, from the worker. */
TEST_F(kill, logged)
{
	struct child_arg a = {
		.dirfd = self->s.dirfd, .r = self->s.r, .action = variant->action,
	};
	const char *name = "kill_process";
	struct kmsg *k;
	int status = 0;
	pid_t pid;

	if (variant->action == SECCOMP_RET_KILL_THREAD)
		name = "kill_thread";
	if (!action_logged(name))
		SKIP(return, "kernel.seccomp.actions_logged has no \"%s\"", name);
	k = kmsg_open();
	if (!k)
		SKIP(return, "cannot read /dev/kmsg (need root)");
	ASSERT_EQ(0, run_child(kill_child, &a, &status, &pid));
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	ASSERT_NE(NULL, seccomp_record(k, pid, "async-wrk-", __NR_unlinkat, SIGSYS))
		TH_LOG("no seccomp record for unlinkat with sig=%d from a worker of %d",
		       SIGSYS, pid);
}

/* Counted by a signal handler: atomic accesses keep every read fresh. */
static int sigsys_count;

static void on_sigsys(int sig)
{
	__atomic_fetch_add(&sigsys_count, 1, __ATOMIC_RELAXED);
}

static int enosys_child(void *p)
{
	struct child_arg *a = p;
	struct async_syscall e;
	struct pollfd pfd;
	sigset_t pending;
	int listener;

	signal(SIGSYS, on_sigsys);
	listener = install_one(__NR_openat, a->action, a->flags);
	CHILD_ASSERT(listener >= 0);

	/* The filter works on the direct call, where that cannot block. */
	if (a->action == SECCOMP_RET_TRAP) {
		openat(a->dirfd, FILE_NAME, O_RDONLY);
		CHILD_ASSERT(__atomic_load_n(&sigsys_count, __ATOMIC_RELAXED) == 1);
	} else if (a->action == SECCOMP_RET_TRACE) {
		CHILD_ASSERT(openat(a->dirfd, FILE_NAME, O_RDONLY) == -1);
		CHILD_ASSERT(errno == ENOSYS);
	}

	__atomic_store_n(&sigsys_count, 0, __ATOMIC_RELAXED);
	async_prep_openat(&e, a->dirfd, FILE_NAME, O_RDONLY, 0);
	poison(&e);
	CHILD_ASSERT(async_submit(&e, 1, 0) == 1);
	wait_done(&e, WAIT_TIMEOUT_S);
	a->r->res[0] = e.result;
	a->r->done[0] = e.done;
	a->r->sigsys = __atomic_load_n(&sigsys_count, __ATOMIC_RELAXED);
	sigpending(&pending);
	a->r->pending = sigismember(&pending, SIGSYS);
	if (a->action == SECCOMP_RET_USER_NOTIF) {
		/* No notification reached the listener. */
		pfd = (struct pollfd){ .fd = listener, .events = POLLIN };
		a->r->sync_ret[0] = poll(&pfd, 1, 0);
	}
	return 0;
}

/* TRAP, TRACE and USER_NOTIF make the entry fail with ENOSYS, and no more. */
TEST_F(enosys, no_signal)
{
	struct child_arg a = {
		.dirfd = self->s.dirfd, .r = self->s.r, .action = variant->action,
	};

	if (variant->action == SECCOMP_RET_USER_NOTIF)
		a.flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	RUN_CHILD_OK(enosys_child, &a);
	ASSERT_DONE_RES(-ENOSYS, self->s.r, 0);
	ASSERT_EQ(0, self->s.r->sigsys);
	ASSERT_EQ(0, self->s.r->pending);
	ASSERT_EQ(0, self->s.r->sync_ret[0]);
}

/* --- Strict mode --------------------------------------------------------- */

static int strict_child(void *p)
{
	struct timespec zero = { 0, 0 };
	int *wfd = p;
	struct async_syscall e;

	async_prep_nanosleep(&e, &zero);
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL))
		return 2;
	/* write() is allowed in strict mode: this shows we got here. */
	write(*wfd, "s", 1);
	async_submit(&e, 1, 0);
	write(*wfd, "x", 1);
	/* exit() is allowed too, exit_group() is not. */
	syscall(__NR_exit, 3);
	return 4;
}

/* In strict mode, async_submit() is a forbidden call: SIGKILL. */
TEST(strict_mode_kills)
{
	char buf[8] = "";
	int p[2], status = 0;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	ASSERT_EQ(0, run_child(strict_child, &p[1], &status, NULL));
	close(p[1]);
	ASSERT_EQ(1, read(p[0], buf, sizeof(buf)));
	ASSERT_EQ('s', buf[0]);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	close(p[0]);
}

TEST_HARNESS_MAIN
