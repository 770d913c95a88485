// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() and audit: every entry is audited as the system call it
 * is, by the worker that runs it, with its own number, arguments, result
 * and the paths it looked up.
 *
 * With no audit daemon registered, the kernel prints audit records to its
 * log, where the tests read them back from /dev/kmsg.  A task only has an
 * audit context if audit was enabled when it was created, so the tests
 * enable audit first and then fork the process whose workers are audited.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/netlink.h>

#include "../kselftest_harness.h"
#include "async_test.h"
#include "kmsg.h"

/* The flags of the audited openat(), which its record shows as a2. */
#define OPEN_FLAGS	(O_RDONLY | O_CLOEXEC)

/* --- Audit netlink --------------------------------------------------------- */

/* Most payload audit_request() sends: a rule without strings. */
#define AUDIT_PAYLOAD	sizeof(struct audit_rule_data)

/* A NETLINK_AUDIT socket whose replies cannot hang a test: fd or -errno. */
static int audit_open(void)
{
	struct timeval tv = { .tv_sec = WAIT_TIMEOUT_S };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * Send request @type with @len bytes of @data and wait for the kernel's
 * acknowledgment; a reply of the same type (AUDIT_GET) is copied to @reply.
 * Returns 0 or -errno.
 */
static int audit_request(int fd, int type, const void *data, size_t len,
			 void *reply, size_t reply_len)
{
	static __u32 seq;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		char data[NLMSG_ALIGN(AUDIT_PAYLOAD)];
	} req = {};
	union {
		struct nlmsghdr nh;
		char raw[8192];
	} resp;
	bool acked = false, replied = !reply;
	struct nlmsghdr *nh;
	ssize_t n;
	int err;

	if (len > AUDIT_PAYLOAD)
		return -E2BIG;
	req.nh.nlmsg_len = NLMSG_LENGTH(len);
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = ++seq;
	memcpy(NLMSG_DATA(&req.nh), data, len);
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;

	while (!acked || !replied) {
		n = recv(fd, &resp, sizeof(resp), 0);
		if (n < 0)
			return -errno;
		for (nh = &resp.nh; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != req.nh.nlmsg_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				if (err)
					return err;
				acked = true;
			} else if (nh->nlmsg_type == type && reply) {
				len = NLMSG_PAYLOAD(nh, 0);
				memcpy(reply, NLMSG_DATA(nh),
				       len < reply_len ? len : reply_len);
				replied = true;
			}
		}
	}
	return 0;
}

static int audit_set_enabled(int fd, __u32 enabled)
{
	struct audit_status s = {
		.mask = AUDIT_STATUS_ENABLED,
		.enabled = enabled,
	};

	return audit_request(fd, AUDIT_SET, &s, sizeof(s), NULL, 0);
}

/*
 * AUDIT_ADD_RULE or AUDIT_DEL_RULE of the rule "always audit the system
 * calls @nrs, -1 ended, by process @pid, native, at system call exit", as
 * auditctl -a always,exit -F arch=... -S ... -F pid=... makes it: 0 or
 * -errno.
 */
static int audit_syscall_rule(int fd, int op, pid_t pid, const int *nrs)
{
	struct audit_rule_data rule = {
		.flags = AUDIT_FILTER_EXIT,
		.action = AUDIT_ALWAYS,
		.field_count = 2,
		.fields = { AUDIT_ARCH, AUDIT_PID },
		.values = { NATIVE_AUDIT_ARCH, pid },
		.fieldflags = { AUDIT_EQUAL, AUDIT_EQUAL },
	};

	for (; *nrs >= 0; nrs++)
		rule.mask[AUDIT_WORD(*nrs)] |= AUDIT_BIT(*nrs);
	return audit_request(fd, op, &rule, sizeof(rule), NULL, 0);
}

/* --- Fixture --------------------------------------------------------------- */

/* What the audited child saw. */
struct report {
	__s64 res[2];
	__u32 done[2];
	int fd;
};

FIXTURE(audit) {
	char dir[PATH_MAX / 2];
	char path[PATH_MAX];
	char missing[PATH_MAX];
	struct report *r;
	/* What the parent's teardown undoes. */
	__u32 old_enabled;
	bool set_enabled;
	pid_t rule_pid;
	const int *rule_nrs;
	char ratelimit[32];
};

FIXTURE_SETUP(audit)
{
	const char *base = getenv("SCRATCH");
	struct audit_status s = {};
	int fd;

	if (geteuid() != 0)
		SKIP(return, "audit control needs root");
	fd = audit_open();
	if (fd < 0)
		SKIP(return, "no audit netlink socket (CONFIG_AUDIT?): %s",
		     strerror(-fd));
	ASSERT_EQ(0, audit_request(fd, AUDIT_GET, NULL, 0, &s, sizeof(s)));
	close(fd);
	if (s.enabled == 2)
		SKIP(return, "audit configuration is locked");
	self->old_enabled = s.enabled;

	if (!base || !*base)
		base = "/tmp";
	snprintf(self->dir, sizeof(self->dir), "%s/async_audit.XXXXXX", base);
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* Names the records can be found by. */
	snprintf(self->path, sizeof(self->path), "%s/audited-%d", self->dir,
		 getpid());
	snprintf(self->missing, sizeof(self->missing), "%s/missing-%d",
		 self->dir, getpid());
	fd = open(self->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	self->r = shared_page();
	ASSERT_NE(NULL, self->r);
	ratelimit_off(self->ratelimit, sizeof(self->ratelimit));
}

FIXTURE_TEARDOWN_PARENT(audit)
{
	int fd = audit_open();

	if (fd >= 0) {
		if (self->rule_pid)
			audit_syscall_rule(fd, AUDIT_DEL_RULE, self->rule_pid,
					   self->rule_nrs);
		if (self->set_enabled)
			audit_set_enabled(fd, self->old_enabled);
		close(fd);
	}
	ratelimit_restore(self->ratelimit);
	unlink(self->path);
	rmdir(self->dir);
}

/* Open self->path, which is there, and self->missing. */
static void openat_child(struct _test_data_audit *self)
{
	struct async_syscall e[2];

	async_prep_openat(&e[0], AT_FDCWD, self->path, OPEN_FLAGS, 0);
	async_prep_openat(&e[1], AT_FDCWD, self->missing, OPEN_FLAGS, 0);
	poison(&e[0]);
	poison(&e[1]);
	CHILD_ASSERT(async_submit(e, 2, 0) == 2);
	CHILD_ASSERT(wait_all_done(e, 2, WAIT_TIMEOUT_S) == 0);
	self->r->res[0] = e[0].result;
	self->r->done[0] = e[0].done;
	self->r->res[1] = e[1].result;
	self->r->done[1] = e[1].done;
}

/*
 * Enable audit and fork a child, which runs @child once the rule "audit
 * system calls @nrs (-1 ended) of the child" is in: *@pid is the child,
 * which exited 0.
 */
static void run_audited(struct __test_metadata *_metadata,
			struct _test_data_audit *self, const int *nrs,
			void (*child)(struct _test_data_audit *self), pid_t *pid)
{
	int fd, go[2], status = 0;
	char c;

	fd = audit_open();
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	ASSERT_EQ(0, audit_set_enabled(fd, 1));
	self->set_enabled = true;

	/* Forked once audit is enabled, so that its workers are audited. */
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	*pid = fork();
	ASSERT_LE(0, *pid);
	if (!*pid) {
		close(go[1]);
		CHILD_ASSERT(read(go[0], &c, 1) == 1);
		child(self);
		_exit(0);
	}
	close(go[0]);
	/* The rule names the child: no other process fills the log. */
	self->rule_pid = *pid;
	self->rule_nrs = nrs;
	status = audit_syscall_rule(fd, AUDIT_ADD_RULE, *pid, nrs);
	if (status)
		self->rule_pid = 0;
	close(fd);
	if (status) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
		ASSERT_EQ(0, status) TH_LOG("adding the rule: %s", strerror(-status));
	}
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(0, wait_child(*pid, CHILD_TIMEOUT_S, &status));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * The SYSCALL record of the openat() of @path by a worker of process
 * @pid, with result @res, and the PATH record of the same event: NULL and
 * NULL if either is missing.
 */
static const char *find_openat(struct kmsg *k, pid_t pid, const char *path,
			       long long res, const char **path_rec)
{
	char who[64], call[64], args[32], result[64], serial[64], name[PATH_MAX + 16];
	const char *rec, *p, *q;

	*path_rec = NULL;
	snprintf(who, sizeof(who), " pid=%d auid=", pid);
	snprintf(call, sizeof(call), "arch=%x syscall=%d ", NATIVE_AUDIT_ARCH,
		 __NR_openat);
	snprintf(args, sizeof(args), " a2=%x ", OPEN_FLAGS);
	snprintf(result, sizeof(result), " success=%s exit=%lld ",
		 res < 0 ? "no" : "yes", res);
	rec = kmsg_wait(k, (const char *const []){
		"audit: type=1300 ", who, " comm=\"async-wrk-", call, args,
		result, NULL });
	if (!rec)
		return NULL;

	/* "audit(<time>:<serial>)" ties the records of one event. */
	p = strstr(rec, "audit(");
	q = p ? strchr(p, ')') : NULL;
	if (!q || q - p + 2 > sizeof(serial))
		return NULL;
	memcpy(serial, p, q - p + 1);
	serial[q - p + 1] = '\0';
	snprintf(name, sizeof(name), " name=\"%s\"", path);
	*path_rec = kmsg_wait(k, (const char *const []){
		"audit: type=1302 ", serial, name, NULL });
	return rec;
}

/*
 * Each entry is audited by its worker as the call it is: a SYSCALL record
 * with the entry's number, arguments and result, and a PATH record with
 * the name it opened.
 */
TEST_F(audit, openat_entries)
{
	static const int nrs[] = { __NR_openat, -1 };
	const char *rec, *path_rec;
	struct kmsg *k;
	pid_t pid;

	k = kmsg_open();
	if (!k)
		SKIP(return, "cannot read /dev/kmsg");
	run_audited(_metadata, self, nrs, openat_child, &pid);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->r->done[0]);
	ASSERT_LE(0, self->r->res[0]) TH_LOG("%s", strerror(-self->r->res[0]));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->r->done[1]);
	ASSERT_EQ(-ENOENT, self->r->res[1]);

	rec = find_openat(k, pid, self->path, self->r->res[0], &path_rec);
	ASSERT_NE(NULL, rec)
		TH_LOG("no SYSCALL record of openat = %lld from a worker of %d",
		       (long long)self->r->res[0], pid);
	EXPECT_NE(NULL, path_rec) TH_LOG("no PATH record of %s for\n%s",
					 self->path, rec);
	rec = find_openat(k, pid, self->missing, -ENOENT, &path_rec);
	ASSERT_NE(NULL, rec)
		TH_LOG("no SYSCALL record of openat = %d from a worker of %d",
		       -ENOENT, pid);
	EXPECT_NE(NULL, path_rec) TH_LOG("no PATH record of %s for\n%s",
					 self->missing, rec);
}

/* The bytes the ranged syncs cover, which their records show as a2. */
#define RANGE_LEN	4096

/* Sync RANGE_LEN bytes of self->path, as fsync() and as fdatasync() do. */
static void fsync_range_child(struct _test_data_audit *self)
{
	struct async_syscall e[2];
	int fd;

	fd = open(self->path, O_WRONLY | O_CLOEXEC);
	CHILD_ASSERT(fd >= 0);
	self->r->fd = fd;
	async_prep_fsync_range(&e[0], fd, 0, RANGE_LEN, 0);
	async_prep_fsync_range(&e[1], fd, 0, RANGE_LEN, ASYNC_FSYNC_DATASYNC);
	poison(&e[0]);
	poison(&e[1]);
	CHILD_ASSERT(async_submit(e, 2, 0) == 2);
	CHILD_ASSERT(wait_all_done(e, 2, WAIT_TIMEOUT_S) == 0);
	self->r->res[0] = e[0].result;
	self->r->done[0] = e[0].done;
	self->r->res[1] = e[1].result;
	self->r->done[1] = e[1].done;
}

/*
 * The SYSCALL record of system call @nr by a worker of process @pid, with
 * arguments fd, 0, RANGE_LEN, @flags and result 0: NULL if missing.
 */
static const char *find_sync(struct kmsg *k, pid_t pid, int nr, int fd,
			     unsigned int flags)
{
	char who[64], call[64], args[96];

	snprintf(who, sizeof(who), " pid=%d auid=", pid);
	snprintf(call, sizeof(call), "arch=%x syscall=%d ", NATIVE_AUDIT_ARCH,
		 nr);
	snprintf(args, sizeof(args), " a0=%x a1=0 a2=%x a3=%x ", fd,
		 RANGE_LEN, flags);
	return kmsg_wait(k, (const char *const []){
		"audit: type=1300 ", who, " comm=\"async-wrk-", call, args,
		" success=yes exit=0 ", NULL });
}

/*
 * ASYNC_OP_FSYNC_RANGE is audited as the system call whose effect it has:
 * fsync(), or fdatasync() with ASYNC_FSYNC_DATASYNC, with the operation's
 * four arguments, so that rules on those calls see it.
 */
TEST_F(audit, fsync_range_as_fsync)
{
	static const int nrs[] = { __NR_fsync, __NR_fdatasync, -1 };
	struct kmsg *k;
	pid_t pid;

	k = kmsg_open();
	if (!k)
		SKIP(return, "cannot read /dev/kmsg");
	run_audited(_metadata, self, nrs, fsync_range_child, &pid);
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->r->done[0]);
	ASSERT_EQ(0, self->r->res[0]) TH_LOG("%s", strerror(-self->r->res[0]));
	ASSERT_EQ(ASYNC_SYSCALL_DONE, self->r->done[1]);
	ASSERT_EQ(0, self->r->res[1]) TH_LOG("%s", strerror(-self->r->res[1]));

	EXPECT_NE(NULL, find_sync(k, pid, __NR_fsync, self->r->fd, 0))
		TH_LOG("no SYSCALL record of fsync from a worker of %d", pid);
	EXPECT_NE(NULL, find_sync(k, pid, __NR_fdatasync, self->r->fd,
				  ASYNC_FSYNC_DATASYNC))
		TH_LOG("no SYSCALL record of fdatasync from a worker of %d", pid);
}

TEST_HARNESS_MAIN
