// SPDX-License-Identifier: GPL-2.0
/*
 * The administrator's switch for async_submit():
 * /proc/sys/kernel/async_syscall_disabled is 0 (everyone may call it),
 * 1 (only members of the group /proc/sys/kernel/async_syscall_group and
 * holders of CAP_SYS_ADMIN) or 2 (nobody); a refused call, whatever its
 * flags, fails with EPERM.
 *
 * Needs root.  The parent restores both values whatever the test did.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define DISABLED_PATH	"/proc/sys/kernel/async_syscall_disabled"
#define GROUP_PATH	"/proc/sys/kernel/async_syscall_group"
/* Group allowed in mode 1 during the tests: nobody else has it. */
#define ALLOWED_GID	4242
#define NOBODY		65534

static int read_value(const char *path, long *val)
{
	char buf[32];

	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Write @val to sysctl @path: 0, or -errno. */
static int write_value(const char *path, long val)
{
	char buf[32];
	int fd, len, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%ld\n", val);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

FIXTURE(admin) {
	long disabled, group;
	bool saved;
};

FIXTURE_SETUP(admin)
{
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, read_value(DISABLED_PATH, &self->disabled))
		TH_LOG("%s: %s", DISABLED_PATH, strerror(errno));
	ASSERT_EQ(0, read_value(GROUP_PATH, &self->group))
		TH_LOG("%s: %s", GROUP_PATH, strerror(errno));
	self->saved = true;
	ASSERT_EQ(0, write_value(GROUP_PATH, ALLOWED_GID));
}

/* In the parent, so that it runs however the test ended. */
FIXTURE_TEARDOWN_PARENT(admin)
{
	if (!self->saved)
		return;
	EXPECT_EQ(0, write_value(DISABLED_PATH, self->disabled));
	EXPECT_EQ(0, write_value(GROUP_PATH, self->group));
}

/* What the calls of one caller returned. */
struct calls {
	long abi, abi_err;
	long submit, submit_err;
	long probe, probe_err;
	__u32 done;
	__s64 result;
};

/* Try each kind of call: a version query, a submission, a probe. */
static void try_calls(struct calls *c)
{
	struct timespec zero = { 0, 0 };
	struct async_syscall e;

	errno = 0;
	c->abi = async_abi_version();
	c->abi_err = errno;

	async_prep_nanosleep(&e, &zero);
	poison(&e);
	errno = 0;
	c->submit = async_submit(&e, 1, ASYNC_SUBMIT_WAIT);
	c->submit_err = errno;
	c->done = e.done;
	c->result = e.result;

	async_prep_nanosleep(&e, &zero);
	errno = 0;
	c->probe = async_submit(&e, 1, ASYNC_SUBMIT_PROBE);
	c->probe_err = errno;
}

#define ASSERT_REFUSED(c) do { \
	const struct calls *__c = (c); \
	\
	ASSERT_EQ(-1, __c->abi); \
	ASSERT_EQ(EPERM, __c->abi_err); \
	ASSERT_EQ(-1, __c->submit); \
	ASSERT_EQ(EPERM, __c->submit_err); \
	/* Nothing ran. */ \
	ASSERT_EQ(DONE_POISON, __c->done); \
	ASSERT_EQ(-1, __c->probe); \
	ASSERT_EQ(EPERM, __c->probe_err); \
} while (0)

#define ASSERT_ALLOWED(c) do { \
	const struct calls *__c = (c); \
	\
	ASSERT_EQ(2, __c->abi) TH_LOG("%s", strerror(__c->abi_err)); \
	ASSERT_EQ(1, __c->submit) TH_LOG("%s", strerror(__c->submit_err)); \
	ASSERT_EQ(ASYNC_SYSCALL_DONE, __c->done); \
	ASSERT_EQ(0, __c->result); \
	ASSERT_EQ(0, __c->probe) TH_LOG("%s", strerror(__c->probe_err)); \
} while (0)

/* Who the child becomes before it calls. */
enum who {
	NOBODY_NO_GROUPS,
	NOBODY_IN_GROUP,
	ROOT_WITHOUT_SYS_ADMIN,
};

struct who_arg {
	enum who who;
	struct calls *c;
};

static int become_and_call(void *p)
{
	struct who_arg *a = p;
	gid_t group = ALLOWED_GID;

	switch (a->who) {
	case NOBODY_NO_GROUPS:
		CHILD_ASSERT(setgroups(0, NULL) == 0);
		CHILD_ASSERT(setresgid(NOBODY, NOBODY, NOBODY) == 0);
		CHILD_ASSERT(setresuid(NOBODY, NOBODY, NOBODY) == 0);
		break;
	case NOBODY_IN_GROUP:
		CHILD_ASSERT(setgroups(1, &group) == 0);
		CHILD_ASSERT(setresgid(NOBODY, NOBODY, NOBODY) == 0);
		CHILD_ASSERT(setresuid(NOBODY, NOBODY, NOBODY) == 0);
		break;
	case ROOT_WITHOUT_SYS_ADMIN:
		CHILD_ASSERT(setgroups(0, NULL) == 0);
		CHILD_ASSERT(setresgid(NOBODY, NOBODY, NOBODY) == 0);
		CHILD_ASSERT(drop_sys_admin() == 0);
		break;
	}
	try_calls(a->c);
	return 0;
}

/* Run try_calls() as @who_ in a child; the results land in @c_. */
#define CALL_AS(who_, c_) do { \
	struct calls *__c = (c_); \
	struct who_arg __a = { .who = (who_), .c = __c }; \
	int __status = 0; \
	\
	memset(__c, 0, sizeof(*__c)); \
	ASSERT_EQ(0, run_child(become_and_call, &__a, &__status, NULL)); \
	ASSERT_TRUE(WIFEXITED(__status)); \
	ASSERT_EQ(0, WEXITSTATUS(__status)); \
} while (0)

TEST_F(admin, mode_2_refuses_root)
{
	struct calls c;

	ASSERT_EQ(0, write_value(DISABLED_PATH, 2));
	try_calls(&c);
	ASSERT_REFUSED(&c);

	ASSERT_EQ(0, write_value(DISABLED_PATH, 0));
	try_calls(&c);
	ASSERT_ALLOWED(&c);
}

TEST_F(admin, mode_1_group_or_sys_admin)
{
	struct calls *c = shared_page();

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, write_value(DISABLED_PATH, 1));

	/* Root, not in the group: CAP_SYS_ADMIN lets it in. */
	try_calls(c);
	ASSERT_ALLOWED(c);

	CALL_AS(NOBODY_NO_GROUPS, c);
	ASSERT_REFUSED(c);

	CALL_AS(NOBODY_IN_GROUP, c);
	ASSERT_ALLOWED(c);

	/* uid 0 is not what counts. */
	CALL_AS(ROOT_WITHOUT_SYS_ADMIN, c);
	ASSERT_REFUSED(c);
}

TEST_F(admin, mode_0_allows_everyone)
{
	struct calls *c = shared_page();

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, write_value(DISABLED_PATH, 1));
	CALL_AS(NOBODY_NO_GROUPS, c);
	ASSERT_REFUSED(c);

	ASSERT_EQ(0, write_value(DISABLED_PATH, 0));
	CALL_AS(NOBODY_NO_GROUPS, c);
	ASSERT_ALLOWED(c);
}

TEST_F(admin, bad_values)
{
	long val;

	ASSERT_EQ(0, write_value(DISABLED_PATH, 1));
	ASSERT_EQ(-EINVAL, write_value(DISABLED_PATH, 3));
	ASSERT_EQ(-EINVAL, write_value(DISABLED_PATH, -1));
	ASSERT_EQ(0, read_value(DISABLED_PATH, &val));
	ASSERT_EQ(1, val);

	ASSERT_EQ(0, read_value(GROUP_PATH, &val));
	ASSERT_EQ(ALLOWED_GID, val);
}

TEST_HARNESS_MAIN
