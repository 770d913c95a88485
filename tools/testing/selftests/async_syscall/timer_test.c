// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeps that hold no thread: a nanosleep() or clock_nanosleep() entry in
 * a chain of its own sleeps on an hrtimer, and no worker is made for it.
 * A cancel ends it as a signal ends nanosleep(); exit and exec end the
 * sleeps still armed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stddef.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <async_syscall/libasync.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define NSLEEPS		16
#define NAP_MS		50
/* A child's exit status: what it needs is missing. */
#define SKIP_STATUS	4

static const struct timespec nap = { 0, NAP_MS * NSEC_PER_MSEC };
static const struct timespec long_nap = { 10, 0 };

static void prep_clock_nanosleep(struct async_syscall *e, clockid_t clock,
				 int flags, const struct timespec *ts,
				 struct timespec *rem)
{
	async_prep(e, __NR_clock_nanosleep, clock, flags, async_ptr(ts),
		   async_ptr(rem), 0, 0);
}

/* Runs @fn(@arg) in a new process, which must exit with status 0. */
#define ASSERT_CHILD_PASSES(fn, arg) do { \
	int __status; \
	\
	ASSERT_EQ(0, run_child(fn, arg, &__status, NULL)); \
	ASSERT_EQ(0, __status); \
} while (0)

/* Shared with forked children: they submit, the parent checks. */
FIXTURE(sleeps) {
	struct async_syscall *e;
};

FIXTURE_SETUP(sleeps)
{
	self->e = shared_page();
	ASSERT_NE(NULL, self->e);
}

FIXTURE_TEARDOWN(sleeps)
{
	munmap(self->e, 4096);
}

static int sleep_without_workers(void *arg)
{
	struct async_syscall *e = arg;
	int64_t start = now_ns();
	unsigned int i;

	for (i = 0; i < NSLEEPS; i++)
		async_prep_nanosleep(&e[i], &nap);
	CHILD_ASSERT(async_submit(e, NSLEEPS, 0) == NSLEEPS);
	CHILD_ASSERT(count_workers() == 0);
	CHILD_ASSERT(wait_all_done(e, NSLEEPS, WAIT_TIMEOUT_S) == 0);
	/* A sleep never ends early. */
	CHILD_ASSERT(now_ns() - start >= NAP_MS * NSEC_PER_MSEC);
	for (i = 0; i < NSLEEPS; i++)
		CHILD_ASSERT(e[i].result == 0);
	CHILD_ASSERT(count_workers() == 0);
	return 0;
}

/* In a new process, which has no worker yet. */
TEST_F(sleeps, hold_no_thread)
{
	ASSERT_CHILD_PASSES(sleep_without_workers, self->e);
}

TEST_F(sleeps, submit_wait_covers_them)
{
	int64_t start = now_ns();
	struct async_syscall *e = self->e;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		async_prep_nanosleep(&e[i], &nap);
		poison(&e[i]);
	}
	ASSERT_EQ(4, async_submit(e, 4, ASYNC_SUBMIT_WAIT));
	ASSERT_LE(NAP_MS * NSEC_PER_MSEC, now_ns() - start);
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(async_done(&e[i]));
		ASSERT_EQ(0, e[i].result);
	}
}

/* As a signal interrupts nanosleep(): -EINTR and the time left. */
TEST_F(sleeps, cancel_writes_time_left)
{
	struct async_syscall *e = self->e;
	struct timespec rem = { -1, -1 };

	async_prep(e, __NR_nanosleep, async_ptr(&long_nap), async_ptr(&rem),
		   0, 0, 0, 0);
	ASSERT_EQ(1, async_submit(e, 1, 0));
	sleep_ms(NAP_MS);
	ASSERT_EQ(1, async_cancel(e, 1));
	ASSERT_EQ(0, wait_done(e, WAIT_TIMEOUT_S));
	ASSERT_EQ(-EINTR, e->result);
	ASSERT_GT(rem.tv_sec * NSEC_PER_SEC + rem.tv_nsec, 0);
	ASSERT_LT(rem.tv_sec * NSEC_PER_SEC + rem.tv_nsec,
		  long_nap.tv_sec * NSEC_PER_SEC);
	/* Done: nothing left to cancel. */
	ASSERT_EQ(0, async_cancel(e, 1));
}

/* An absolute sleep leaves rem alone; a faulting rem gives -EFAULT. */
TEST_F(sleeps, cancel_absolute_and_bad_rem)
{
	struct async_syscall *e = self->e;
	struct timespec rem = { 7, 7 }, deadline;

	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &deadline));
	deadline.tv_sec += long_nap.tv_sec;
	prep_clock_nanosleep(&e[0], CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline,
			     &rem);
	async_prep(&e[1], __NR_nanosleep, async_ptr(&long_nap), 8, 0, 0, 0, 0);
	ASSERT_EQ(2, async_submit(e, 2, 0));
	sleep_ms(NAP_MS);
	ASSERT_EQ(2, async_cancel(e, 2));
	ASSERT_EQ(0, wait_all_done(e, 2, WAIT_TIMEOUT_S));
	ASSERT_EQ(-EINTR, e[0].result);
	ASSERT_EQ(7, rem.tv_sec);
	ASSERT_EQ(7, rem.tv_nsec);
	ASSERT_EQ(-EFAULT, e[1].result);
}

/* Every clock an hrtimer runs, and a deadline already past. */
TEST_F(sleeps, clocks_and_past_deadlines)
{
	static const clockid_t clocks[] = {
		CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_TAI,
	};
	struct async_syscall *e = self->e;
	struct timespec past = { 0, 1 };
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		prep_clock_nanosleep(&e[n++], clocks[i], 0, &nap, NULL);
		prep_clock_nanosleep(&e[n++], clocks[i], TIMER_ABSTIME, &past,
				     NULL);
	}
	ASSERT_EQ(n, async_submit(e, n, ASYNC_SUBMIT_WAIT));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, e[i].result) TH_LOG("entry %u", i);
}

/* A CPU-time clock is not a timer's: a worker makes the call itself. */
TEST_F(sleeps, cpu_clock_goes_to_worker)
{
	struct async_syscall *e = self->e;
	long want;

	want = syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &nap,
		       NULL);
	want = want < 0 ? -errno : want;
	prep_clock_nanosleep(e, CLOCK_THREAD_CPUTIME_ID, 0, &nap, NULL);
	ASSERT_EQ(1, async_submit(e, 1, ASYNC_SUBMIT_WAIT));
	ASSERT_EQ(want, e->result);
	ASSERT_LE(1, count_workers());
}

/*
 * For entries another process completes: its futex is private to its mm,
 * so look at the done words.  0, or -ETIMEDOUT.
 */
static int poll_done(const struct async_syscall *e, unsigned int nr)
{
	int64_t end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	unsigned int i = 0;

	while (i < nr) {
		if (async_done(&e[i])) {
			i++;
			continue;
		}
		if (now_ns() >= end)
			return -ETIMEDOUT;
		sleep_ms(POLL_MS);
	}
	return 0;
}

static void submit_long_naps(struct async_syscall *e)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		async_prep_nanosleep(&e[i], &long_nap);
		poison(&e[i]);
	}
	CHILD_ASSERT(async_submit(e, 4, 0) == 4);
}

/* The last thread to exit ends the sleeps, as it would on workers. */
TEST_F(sleeps, exit_ends_them)
{
	int64_t start = now_ns();
	unsigned int i;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		submit_long_naps(self->e);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status));
	ASSERT_EQ(0, status);
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(async_done(&self->e[i])) TH_LOG("entry %u", i);
		ASSERT_EQ(-EINTR, self->e[i].result);
	}
	ASSERT_GT(long_nap.tv_sec * NSEC_PER_SEC, now_ns() - start);
}

/* exec ends them too, before the new program runs, not at its exit. */
TEST_F(sleeps, exec_ends_them)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		submit_long_naps(self->e);
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(2);
	}
	ASSERT_EQ(0, poll_done(self->e, 4));
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG)) TH_LOG("exec failed");
	for (unsigned int i = 0; i < 4; i++)
		ASSERT_EQ(-EINTR, self->e[i].result);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
}

static int sleep_in_file_mapping(void *arg)
{
	const char *scratch = getenv("SCRATCH");
	struct async_syscall *e;
	struct statfs fs;
	char path[256];
	int fd, workers;

	snprintf(path, sizeof(path), "%s/timer_test.XXXXXX",
		 scratch && *scratch ? scratch : "/tmp");
	fd = mkstemp(path);
	CHILD_ASSERT(fd >= 0);
	unlink(path);
	CHILD_ASSERT(ftruncate(fd, 4096) == 0);
	e = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHILD_ASSERT(e != MAP_FAILED);
	async_prep_nanosleep(e, &nap);
	CHILD_ASSERT(async_submit(e, 1, 0) == 1);
	CHILD_ASSERT(wait_done(e, WAIT_TIMEOUT_S) == 0);
	CHILD_ASSERT(e->result == 0);
	CHILD_ASSERT(fstatfs(fd, &fs) == 0);
	workers = count_workers();
	/*
	 * tmpfs pages can stay pinned: a timer sleeps.  Else a worker does,
	 * and may have made a spare if it ran before async_submit() unpinned
	 * the pool.
	 */
	if (fs.f_type == TMPFS_MAGIC)
		return workers == 0 ? 0 : 3;
	return workers == 1 || workers == 2 ? 0 : 4;
}

/*
 * Done words in a shared file mapping cannot stay pinned for the sleep
 * (only memory and tmpfs can): the sleep then runs on a worker, and
 * completes all the same.
 */
TEST_F(sleeps, file_mapping)
{
	ASSERT_CHILD_PASSES(sleep_in_file_mapping, NULL);
}

/* The pages this process has pinned (VmPin), in kB, or -1. */
static long vm_pin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Drops @cap from the calling thread's effective set. */
static int drop_effective_cap(int cap)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &head, data))
		return -1;
	data[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
	return syscall(SYS_capset, &head, data);
}

/*
 * Submits a sleep in @e and cancels it: VmPin must grow by @pages pages
 * while it is armed, and come back.  0, or the line that failed.
 */
static int pins_while_armed(struct async_syscall *e, long pages)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	long before = vm_pin_kb();

	async_prep_nanosleep(e, &long_nap);
	if (before < 0 || async_submit(e, 1, 0) != 1)
		return __LINE__;
	if (vm_pin_kb() != before + pages * page_kb)
		return __LINE__;
	if (async_cancel(e, 1) != 1 || wait_done(e, WAIT_TIMEOUT_S) ||
	    e->result != -EINTR)
		return __LINE__;
	return vm_pin_kb() == before ? 0 : __LINE__;
}

/*
 * An armed sleep pins the page of its result and done word, counted in
 * VmPin, until it completes: one page, or two for an entry that
 * straddles a page boundary, even when both are mappings of one page.
 */
TEST(pins_the_page_of_its_words)
{
	size_t done_end = offsetof(struct async_syscall, result);
	long page = sysconf(_SC_PAGESIZE);
	struct rlimit memlock;
	char *map;
	int fd;

	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &memlock));
	if (memlock.rlim_cur < 4 * page)
		SKIP(return, "RLIMIT_MEMLOCK below 4 pages");
	/* done ends the first page, result starts the second. */
	ASSERT_EQ(done_end, offsetof(struct async_syscall, done) + 4);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(0, pins_while_armed((void *)map, 1));
	EXPECT_EQ(0, pins_while_armed((void *)(map + page - done_end), 2));

	/* The same memfd page at both addresses: still two pins. */
	fd = memfd_create("async", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, page));
	ASSERT_NE(MAP_FAILED, mmap(map, page, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_FIXED, fd, 0));
	ASSERT_NE(MAP_FAILED, mmap(map + page, page, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_FIXED, fd, 0));
	EXPECT_EQ(0, pins_while_armed((void *)(map + page - done_end), 2));
	EXPECT_EQ(0, count_workers());
	close(fd);
	munmap(map, 2 * page);
}

static int sleep_without_memlock(void *arg)
{
	struct rlimit none = { 0, 0 };
	struct async_syscall *e = arg;

	CHILD_ASSERT(drop_effective_cap(CAP_IPC_LOCK) == 0);
	CHILD_ASSERT(setrlimit(RLIMIT_MEMLOCK, &none) == 0);
	async_prep_nanosleep(e, &nap);
	CHILD_ASSERT(async_submit(e, 1, 0) == 1);
	CHILD_ASSERT(wait_done(e, WAIT_TIMEOUT_S) == 0);
	CHILD_ASSERT(e->result == 0);
	CHILD_ASSERT(count_workers() == 1);
	return 0;
}

/* Pinned words count against RLIMIT_MEMLOCK: beyond it, a worker sleeps. */
TEST_F(sleeps, memlock_limit)
{
	ASSERT_CHILD_PASSES(sleep_without_memlock, self->e);
}

static int sleep_beyond_memlock(void *arg)
{
	struct rlimit none = { 0, 0 };
	struct async_syscall *e = arg;

	CHILD_ASSERT(setrlimit(RLIMIT_MEMLOCK, &none) == 0);
	/* The kernel's own check of the capability, in its namespace. */
	if (mlock(e, 1))
		return SKIP_STATUS;
	CHILD_ASSERT(munlock(e, 1) == 0);
	CHILD_ASSERT(vm_pin_kb() == 0);
	/* On a timer, and counted all the same. */
	CHILD_ASSERT(pins_while_armed(e, 1) == 0);
	CHILD_ASSERT(count_workers() == 0);
	return 0;
}

/* With CAP_IPC_LOCK, as for mlock(), RLIMIT_MEMLOCK does not apply. */
TEST_F(sleeps, memlock_limit_ipc_lock)
{
	int status;

	ASSERT_EQ(0, run_child(sleep_beyond_memlock, self->e, &status, NULL));
	if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS)
		SKIP(return, "mlock() beyond RLIMIT_MEMLOCK fails: no CAP_IPC_LOCK");
	ASSERT_EQ(0, status);
}

/*
 * The kernel completes a sleep without the submitter's protection keys:
 * entries in memory that only the submitter's PKRU opens still complete.
 */
TEST_F(sleeps, protection_key)
{
	struct async_syscall *e = self->e;
	int pkey;

	pkey = syscall(SYS_pkey_alloc, 0, 0);
	if (pkey < 0)
		SKIP(return, "no protection keys: %s", strerror(errno));
	ASSERT_EQ(0, syscall(SYS_pkey_mprotect, e, 4096,
			     PROT_READ | PROT_WRITE, pkey));
	async_prep_nanosleep(e, &nap);
	ASSERT_EQ(1, async_submit(e, 1, 0));
	ASSERT_EQ(0, wait_done(e, WAIT_TIMEOUT_S));
	ASSERT_EQ(0, e->result);
	ASSERT_EQ(0, syscall(SYS_pkey_mprotect, e, 4096,
			     PROT_READ | PROT_WRITE, 0));
	syscall(SYS_pkey_free, pkey);
}

TEST_HARNESS_MAIN
