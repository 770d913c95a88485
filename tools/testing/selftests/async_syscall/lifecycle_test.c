// SPDX-License-Identifier: GPL-2.0
/*
 * async_submit() across the life of a process: exit, exec, fork and
 * SIGKILL with entries in flight, the submitting thread going away, the
 * entry array unmapped and a descriptor closed under a running entry; and
 * the kernel memory that entries in flight hold; and a stress run of
 * threads keeping thousands of entries in flight while child processes
 * that submit too are killed around them.
 *
 * Each case runs in a forked child.  The parent checks how it ended, that
 * it ended within a generous bound, and that none of its workers is left.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define LONG_SLEEP_S	60
/* Entries a dying child has in flight. */
#define DYING_ENTRIES	64
/* Workers a dying child allows itself, so that some entries stay queued. */
#define DYING_WORKERS	16

static const struct timespec long_sleep = { LONG_SLEEP_S, 0 };

/* The child ended with exit status @code, and left no worker behind. */
#define ASSERT_EXITED(pid, status, code) do { \
	const pid_t __pid = (pid); \
	const int __status = (status); \
	\
	ASSERT_TRUE(WIFEXITED(__status)) \
		TH_LOG("child %d: status %#x", __pid, __status); \
	ASSERT_EQ((code), WEXITSTATUS(__status)); \
	ASSERT_EQ(0, stray_workers(__pid)); \
} while (0)

/*
 * Fill @e with DYING_ENTRIES entries that never finish on their own: reads
 * of the empty pipe @rfd and long sleeps, one chain each.
 */
static void prep_stuck(struct async_syscall *e, int rfd, char *buf)
{
	int i;

	for (i = 0; i < DYING_ENTRIES; i++) {
		if (i % 2)
			async_prep_nanosleep(&e[i], &long_sleep);
		else
			async_prep_read(&e[i], rfd, &buf[i], 1);
	}
}

/*
 * In a child: cap the workers when we may (root ignores RLIMIT_NPROC when it
 * creates threads), submit the stuck entries and wait until the workers are
 * blocked in them.  Returns how many workers block.
 */
static int submit_stuck(struct async_syscall *e, char *buf)
{
	struct rlimit rl = { DYING_WORKERS, DYING_WORKERS };
	int p[2], want = DYING_WORKERS;

	if (geteuid() || setrlimit(RLIMIT_NPROC, &rl))
		want = 2;
	CHILD_ASSERT(pipe(p) == 0);
	prep_stuck(e, p[0], buf);
	CHILD_ASSERT(async_submit(e, DYING_ENTRIES, 0) == DYING_ENTRIES);
	CHILD_ASSERT(wait_blocked(-1, want) == 0);
	return want;
}

/* --- Exit, exec, SIGKILL ------------------------------------------------- */

#define EXIT_CODE	42

static int exit_child(void *p)
{
	struct async_syscall e[DYING_ENTRIES];
	char buf[DYING_ENTRIES];

	submit_stuck(e, buf);
	/* exit_group() with entries running and queued. */
	return EXIT_CODE;
}

TEST(exit_in_flight)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(exit_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, EXIT_CODE);
}

/* After exec, the process has one thread: the workers are gone. */
#define COUNT_THREADS \
	"n=$(ls /proc/$$/task | wc -l); [ \"$n\" = 1 ] && exit 42; " \
	"echo \"# $n threads after exec\"; exit 1"

static int exec_child(void *p)
{
	struct async_syscall e[DYING_ENTRIES];
	char buf[DYING_ENTRIES];

	submit_stuck(e, buf);
	execl("/bin/sh", "sh", "-c", COUNT_THREADS, (char *)NULL);
	return 2;
}

TEST(exec_in_flight)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(exec_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, EXIT_CODE);
}

static int true_child(void *p)
{
	struct async_syscall e[DYING_ENTRIES];
	char buf[DYING_ENTRIES];

	submit_stuck(e, buf);
	execl("/bin/true", "true", (char *)NULL);
	return 2;
}

TEST(exec_true_in_flight)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(true_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

TEST(sigkill_in_flight)
{
	struct async_syscall e[DYING_ENTRIES];
	char buf[DYING_ENTRIES], c = 0;
	int p[2], status = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		submit_stuck(e, buf);
		CHILD_ASSERT(write(p[1], "r", 1) == 1);
		for (;;)
			pause();
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &c, 1));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status))
		TH_LOG("child did not die within %d s", CHILD_TIMEOUT_S);
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_EQ(0, stray_workers(pid));
	close(p[0]);
}

/* --- Fork ----------------------------------------------------------------- */

struct fork_arg {
	struct async_syscall *e;	/* [0] done before fork, [1] blocked */
	int to_parent, from_parent;
};

static int fork_child(void *p)
{
	struct timespec zero = { 0, 0 };
	struct fork_arg *a = p;
	struct async_syscall mine[2];
	char c = 0, got = 0;
	int q[2];

	/* The done words are as they were at fork, and stay so. */
	CHILD_ASSERT(a->e[0].done == ASYNC_SYSCALL_DONE);
	CHILD_ASSERT(a->e[1].done == ASYNC_SYSCALL_PENDING);
	CHILD_ASSERT(count_workers() == 0);

	/* Our own submission works. */
	CHILD_ASSERT(pipe2(q, O_CLOEXEC) == 0);
	CHILD_ASSERT(write(q[1], "c", 1) == 1);
	async_prep_nanosleep(&mine[0], &zero);
	async_prep_read(&mine[1], q[0], &got, 1);
	CHILD_ASSERT(async_submit_wait(mine, 2) == 2);
	CHILD_ASSERT(mine[0].result == 0);
	CHILD_ASSERT(mine[1].result == 1 && got == 'c');

	/* Let the parent complete its entry, then look at our copy again. */
	CHILD_ASSERT(write(a->to_parent, "f", 1) == 1);
	CHILD_ASSERT(read(a->from_parent, &c, 1) == 1);
	CHILD_ASSERT(a->e[1].done == ASYNC_SYSCALL_PENDING);
	CHILD_ASSERT(wait_no_workers(IDLE_EXIT_S) == 0);
	return 0;
}

TEST(fork_inherits_nothing)
{
	struct timespec zero = { 0, 0 };
	struct async_syscall e[2];
	int data[2], up[2], down[2], status = 0;
	struct fork_arg a = { .e = e };
	char c = 0, got = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe2(data, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(up, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(down, O_CLOEXEC));
	async_prep_nanosleep(&e[0], &zero);
	ASSERT_EQ(1, async_submit(&e[0], 1, ASYNC_SUBMIT_WAIT));
	async_prep_read(&e[1], data[0], &got, 1);
	ASSERT_EQ(1, async_submit(&e[1], 1, 0));
	ASSERT_EQ(0, wait_blocked(__NR_read, 1));

	a.to_parent = up[1];
	a.from_parent = down[0];
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(fork_child(&a));

	/* Once the child has checked its copy, complete ours. */
	ASSERT_EQ(1, read(up[0], &c, 1));
	ASSERT_EQ(1, write(data[1], "p", 1));
	ASSERT_EQ(0, wait_done(&e[1], WAIT_TIMEOUT_S));
	ASSERT_EQ(1, e[1].result);
	ASSERT_EQ('p', got);
	ASSERT_EQ(1, write(down[1], "d", 1));

	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S + IDLE_EXIT_S, &status));
	ASSERT_EXITED(pid, status, 0);
	ASSERT_EQ(0, wait_no_workers(IDLE_EXIT_S));
}

/* --- The submitting thread exits ------------------------------------------ */

struct thread_arg {
	struct async_syscall e[3];
	int p[2], q[2];
	char got;
};

static const struct timespec short_sleep = { 0, 200 * NSEC_PER_MSEC };

/* nanosleep -> write to p, and a read of q that waits for the main thread. */
static void submit_and_leave(struct thread_arg *a)
{
	async_prep_nanosleep(&a->e[0], &short_sleep);
	async_prep_write(&a->e[1], a->p[1], "t", 1);
	async_chain(a->e, 2);
	async_prep_read(&a->e[2], a->q[0], &a->got, 1);
	for (int i = 0; i < 3; i++)
		poison(&a->e[i]);
	if (async_submit(a->e, 3, 0) != 3)
		pthread_exit((void *)1L);
	pthread_exit(NULL);
}

static void *submitter(void *p)
{
	submit_and_leave(p);
	return NULL;
}

/* Check the entries that submit_and_leave() made. */
static int check_left_entries(struct thread_arg *a)
{
	char c = 0;

	CHILD_ASSERT(write(a->q[1], "m", 1) == 1);
	CHILD_ASSERT(wait_all_done(a->e, 3, WAIT_TIMEOUT_S) == 0);
	CHILD_ASSERT(a->e[0].result == 0);
	CHILD_ASSERT(a->e[1].result == 1);
	CHILD_ASSERT(a->e[2].result == 1 && a->got == 'm');
	CHILD_ASSERT(read(a->p[0], &c, 1) == 1 && c == 't');
	CHILD_ASSERT(wait_no_workers(IDLE_EXIT_S) == 0);
	return 0;
}

static int thread_exit_child(void *p)
{
	struct thread_arg a;
	pthread_t t;
	void *ret;

	CHILD_ASSERT(pipe2(a.p, O_CLOEXEC) == 0);
	CHILD_ASSERT(pipe2(a.q, O_CLOEXEC) == 0);
	CHILD_ASSERT(pthread_create(&t, NULL, submitter, &a) == 0);
	CHILD_ASSERT(pthread_join(t, &ret) == 0);
	CHILD_ASSERT(!ret);
	return check_left_entries(&a);
}

TEST(submitting_thread_exits)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(thread_exit_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

static void *survivor(void *p)
{
	/* exit(), not return: the main thread is gone already. */
	exit(check_left_entries(p));
}

static int leader_exit_child(void *p)
{
	static struct thread_arg a;
	pthread_t t;

	CHILD_ASSERT(pipe2(a.p, O_CLOEXEC) == 0);
	CHILD_ASSERT(pipe2(a.q, O_CLOEXEC) == 0);
	/* The survivor waits on q, so it cannot finish before we leave. */
	CHILD_ASSERT(pthread_create(&t, NULL, survivor, &a) == 0);
	submit_and_leave(&a);
	return 2;
}

/* The main thread submits and exits; another thread sees the completions. */
TEST(main_thread_exits)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(leader_exit_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

/* --- The array unmapped, a descriptor closed -------------------------------- */

#define UNMAP_CHAINS	16

static int unmap_child(void *p)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct timespec zero = { 0, 0 };
	char in[UNMAP_CHAINS], out[UNMAP_CHAINS + 1];
	struct async_syscall *e, again;
	int a[2], b[2], i;
	size_t len = page * 2, got = 0;
	struct pollfd pfd;
	ssize_t n;

	CHILD_ASSERT(pipe2(a, O_CLOEXEC) == 0);
	CHILD_ASSERT(pipe2(b, O_CLOEXEC) == 0);
	e = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	CHILD_ASSERT(e != MAP_FAILED);
	/* Chains read(a) -> write(b): each write shows that its chain went on. */
	for (i = 0; i < UNMAP_CHAINS; i++) {
		async_prep_read(&e[2 * i], a[0], &in[i], 1);
		async_link(&e[2 * i]);
		async_prep_write(&e[2 * i + 1], b[1], "u", 1);
	}
	CHILD_ASSERT(async_submit(e, 2 * UNMAP_CHAINS, 0) == 2 * UNMAP_CHAINS);
	CHILD_ASSERT(wait_blocked(__NR_read, UNMAP_CHAINS) == 0);
	CHILD_ASSERT(munmap(e, len) == 0);

	memset(out, 'x', UNMAP_CHAINS);
	CHILD_ASSERT(write(a[1], out, UNMAP_CHAINS) == UNMAP_CHAINS);
	while (got < UNMAP_CHAINS) {
		pfd = (struct pollfd){ .fd = b[0], .events = POLLIN };
		CHILD_ASSERT(poll(&pfd, 1, WAIT_TIMEOUT_S * 1000) == 1);
		n = read(b[0], out, sizeof(out));
		CHILD_ASSERT(n > 0);
		for (i = 0; i < n; i++)
			CHILD_ASSERT(out[i] == 'u');
		got += n;
	}

	/* The process goes on submitting. */
	async_prep_nanosleep(&again, &zero);
	CHILD_ASSERT(async_submit_wait(&again, 1) == 1);
	CHILD_ASSERT(again.result == 0);
	CHILD_ASSERT(wait_no_workers(IDLE_EXIT_S) == 0);
	return 0;
}

TEST(array_unmapped_in_flight)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(unmap_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

static void *closer(void *p)
{
	return (void *)(long)close(*(int *)p);
}

static int close_fd_child(void *p)
{
	struct async_syscall e;
	pthread_t t;
	void *ret;
	char c = 0;
	int fds[2];

	signal(SIGPIPE, SIG_IGN);
	CHILD_ASSERT(pipe2(fds, O_CLOEXEC) == 0);
	async_prep_read(&e, fds[0], &c, 1);
	poison(&e);
	CHILD_ASSERT(async_submit(&e, 1, 0) == 1);
	CHILD_ASSERT(wait_blocked(__NR_read, 1) == 0);

	/* Another thread closes the descriptor the read is blocked on. */
	CHILD_ASSERT(pthread_create(&t, NULL, closer, &fds[0]) == 0);
	CHILD_ASSERT(pthread_join(t, &ret) == 0);
	CHILD_ASSERT(!ret);

	/* The read ends one way or another once data comes or writers go. */
	write(fds[1], "w", 1);
	close(fds[1]);
	CHILD_ASSERT(wait_done(&e, WAIT_TIMEOUT_S) == 0);
	if (e.result == 1)
		CHILD_ASSERT(c == 'w');
	else
		CHILD_ASSERT(e.result == 0 ||
			     (e.result < 0 && e.result >= -4095));
	CHILD_ASSERT(wait_no_workers(IDLE_EXIT_S) == 0);
	return 0;
}

TEST(fd_closed_in_flight)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(close_fd_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

/* --- Signals --------------------------------------------------------------- */

/* Size of the kernel's sigset_t, for ppoll(). */
#define KERNEL_SIGSET_SIZE 8

static const struct timespec poll_10ms = { 0, 10 * NSEC_PER_MSEC };
static const uint64_t no_signals_blocked;

/*
 * A signal the process ignores is dropped, as it is for a direct call, even
 * though workers block it: a later entry that unblocks signals, like ppoll()
 * with a mask, does not see it.
 */
static int ignored_child(void *p)
{
	struct async_syscall e[2];
	int fds[2];

	signal(SIGPIPE, SIG_IGN);
	CHILD_ASSERT(pipe2(fds, O_CLOEXEC) == 0);
	close(fds[0]);
	/* One chain, so one worker: the write raises SIGPIPE on it. */
	async_prep_write(&e[0], fds[1], "x", 1);
	async_link(&e[0]);
	async_prep(&e[1], __NR_ppoll, 0, 0, async_ptr(&poll_10ms),
		   async_ptr(&no_signals_blocked), KERNEL_SIGSET_SIZE, 0);
	async_run_anyway(&e[1]);
	CHILD_ASSERT(async_submit_wait(e, 2) == 2);
	CHILD_ASSERT(e[0].result == -EPIPE);
	CHILD_ASSERT(e[1].result == 0);
	return 0;
}

TEST(ignored_signal_interrupts_nothing)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(ignored_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

/* Counted by a signal handler: atomic accesses keep every read fresh. */
static int usr1_count;

static void on_usr1(int sig)
{
	__atomic_fetch_add(&usr1_count, 1, __ATOMIC_RELAXED);
}

/*
 * ppoll() with a mask, interrupted, leaves no mask behind on the worker:
 * a signal that the main thread blocks waits for it instead of going to the
 * worker, which would drop it.
 */
static int sigmask_child(void *p)
{
	const struct timespec long_poll = { LONG_SLEEP_S, 0 };
	struct async_syscall e;
	sigset_t usr1;

	async_prep(&e, __NR_ppoll, 0, 0, async_ptr(&long_poll),
		   async_ptr(&no_signals_blocked), KERNEL_SIGSET_SIZE, 0);
	CHILD_ASSERT(async_submit(&e, 1, 0) == 1);
	CHILD_ASSERT(wait_blocked(__NR_ppoll, 1) == 0);
	CHILD_ASSERT(async_cancel(&e, 1) == 1);
	CHILD_ASSERT(wait_done(&e, WAIT_TIMEOUT_S) == 0);
	CHILD_ASSERT(e.result == -EINTR);

	/* The worker idles for 2 s: long enough to take the signal, if it would. */
	signal(SIGUSR1, on_usr1);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHILD_ASSERT(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
	CHILD_ASSERT(count_workers() >= 1);
	CHILD_ASSERT(kill(getpid(), SIGUSR1) == 0);
	sleep_ms(300);
	CHILD_ASSERT(sigprocmask(SIG_UNBLOCK, &usr1, NULL) == 0);
	CHILD_ASSERT(__atomic_load_n(&usr1_count, __ATOMIC_RELAXED) == 1);
	return 0;
}

TEST(worker_keeps_signals_blocked)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, run_child(sigmask_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

/*
 * With RLIMIT_NPROC at 0, a process that cannot create its first worker
 * gets EAGAIN and nothing is left queued; the next call, with the limit
 * back, works.
 */
static int nproc_child(void *p)
{
	struct rlimit none = { 0, 0 }, one = { 1, 1 };
	struct timespec ts = { 0, 0 };
	struct async_syscall e;

	CHILD_ASSERT(setgroups(0, NULL) == 0);
	CHILD_ASSERT(setresgid(65534, 65534, 65534) == 0);
	CHILD_ASSERT(setrlimit(RLIMIT_NPROC, &none) == 0);
	CHILD_ASSERT(setresuid(65534, 65534, 65534) == 0);
	async_prep_nanosleep(&e, &ts);
	/* A sleep alone needs no worker: this one asks for one. */
	e.flags |= ASYNC_SYSCALL_FORCE_ASYNC;
	e.done = 7;
	CHILD_ASSERT(async_submit(&e, 1, 0) == -1 && errno == EAGAIN);
	CHILD_ASSERT(e.done == 7);
	/* Soft limit only: this uid has no other process to count. */
	CHILD_ASSERT(setrlimit(RLIMIT_NPROC, &one) == 0 || errno == EPERM);
	return 0;
}

TEST(no_worker_no_queue)
{
	int status = 0;
	pid_t pid;

	if (geteuid())
		SKIP(return, "needs root to switch to an unprivileged uid");
	ASSERT_EQ(0, run_child(nproc_child, NULL, &status, &pid));
	ASSERT_EXITED(pid, status, 0);
}

/* --- Memory held in flight ------------------------------------------------ */

/* The man page's bound on the entries of a process's unfinished calls. */
#define HELD_MAX		65536
#define HELD_CALLS		(HELD_MAX / ASYNC_SUBMIT_MAX_ENTRIES)
/* Calls the test tries: many more than the bound lets through. */
#define HELD_TRIES		64
/* Kernel memory the held calls may take, in KiB: each 229 KiB, plus workers. */
#define HELD_MAX_KB		(8 * 1024)

struct held_report {
	int calls;
	long held_kb;
	long cancelled;
	int64_t cancel_ns;
};

static long meminfo_kb(const char *field)
{
	char buf[4096], *p;
	ssize_t n = read_small("/proc/meminfo", buf, sizeof(buf) - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, field);
	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

static long mem_available_kb(void)
{
	return meminfo_kb("MemAvailable:");
}

/*
 * A whole batch whose one entry stays pending: a chain that fails at once
 * in the submitter (a read of a pipe with data into an unmapped page),
 * the rest of it cancelled there too, then a read of the empty pipe
 * @empty, for a worker.
 */
static void prep_held(struct async_syscall *e, int full, int empty,
		      void *unmapped, char *buf)
{
	unsigned int i, last = ASYNC_SUBMIT_MAX_ENTRIES - 1;

	async_prep_read(&e[0], full, unmapped, 1);
	for (i = 1; i < last; i++)
		async_prep_read(&e[i], full, buf, 1);
	for (i = 0; i < last - 1; i++)
		e[i].flags |= ASYNC_SYSCALL_LINK;
	async_prep_read(&e[last], empty, buf, 1);
}

static int held_child(void *arg)
{
	struct held_report *r = arg;
	struct async_syscall *e[HELD_TRIES + 1];
	unsigned int last = ASYNC_SUBMIT_MAX_ENTRIES - 1;
	int full[2], empty[2], i, k;
	long before, after;
	void *unmapped;
	char buf[1];
	int64_t t;

	CHILD_ASSERT(setresgid(65534, 65534, 65534) == 0);
	CHILD_ASSERT(setresuid(65534, 65534, 65534) == 0);
	CHILD_ASSERT(pipe(full) == 0 && pipe(empty) == 0);
	CHILD_ASSERT(write(full[1], "x", 1) == 1);
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	CHILD_ASSERT(unmapped != MAP_FAILED);
	for (i = 0; i <= HELD_TRIES; i++) {
		e[i] = calloc(ASYNC_SUBMIT_MAX_ENTRIES, sizeof(**e));
		CHILD_ASSERT(e[i]);
		prep_held(e[i], full[0], empty[0], unmapped, buf);
	}

	before = mem_available_kb();
	for (r->calls = 0; r->calls < HELD_TRIES; r->calls++) {
		if (async_submit(e[r->calls], ASYNC_SUBMIT_MAX_ENTRIES, 0) < 0)
			break;
		CHILD_ASSERT(e[r->calls][0].result == -EFAULT);
		CHILD_ASSERT(e[r->calls][1].result == -ECANCELED);
		CHILD_ASSERT(!async_done(&e[r->calls][last]));
	}
	after = mem_available_kb();
	CHILD_ASSERT(before > 0 && after > 0);
	r->held_kb = before - after;
	CHILD_ASSERT(r->calls < HELD_TRIES && errno == EAGAIN);

	/* The bound on a cancel's walk: every entry held, once. */
	t = now_ns();
	r->cancelled = 0;
	for (i = 0; i < r->calls; i++) {
		long n = async_submit(e[i], ASYNC_SUBMIT_MAX_ENTRIES,
				      ASYNC_SUBMIT_CANCEL);

		CHILD_ASSERT(n >= 0);
		r->cancelled += n;
	}
	r->cancel_ns = now_ns() - t;
	for (i = 0; i < r->calls; i++) {
		CHILD_ASSERT(wait_done(&e[i][last], WAIT_TIMEOUT_S) == 0);
		CHILD_ASSERT(e[i][last].result == -ECANCELED ||
			     e[i][last].result == -EINTR);
	}
	/* The batches are freed once their last entry is done. */
	for (k = 0; k < WAIT_TIMEOUT_S * 1000 / POLL_MS; k++) {
		if (async_submit(e[HELD_TRIES], ASYNC_SUBMIT_MAX_ENTRIES, 0) >= 0)
			break;
		CHILD_ASSERT(errno == EAGAIN);
		sleep_ms(POLL_MS);
	}
	CHILD_ASSERT(k < WAIT_TIMEOUT_S * 1000 / POLL_MS);
	CHILD_ASSERT(close(empty[1]) == 0);
	CHILD_ASSERT(wait_done(&e[HELD_TRIES][last], WAIT_TIMEOUT_S) == 0);
	CHILD_ASSERT(e[HELD_TRIES][last].result == 0);
	return 0;
}

/*
 * One pending entry keeps its whole call in kernel memory, so every entry
 * of a call is held until the last is done.  An unprivileged process
 * holding calls of 4096 entries with one pending each gets EAGAIN after
 * HELD_MAX entries, though only HELD_CALLS are in flight.
 */
TEST(held_batches_bounded)
{
	struct held_report *r = shared_page();
	int status = 0;
	pid_t pid;

	ASSERT_NE(NULL, r);
	if (geteuid())
		SKIP(return, "needs root to switch to an unprivileged uid");
	ASSERT_EQ(0, run_child(held_child, r, &status, &pid));
	TH_LOG("%d calls held %ld KiB; cancels over %d entries: %lld us, %ld cancelled",
	       r->calls, r->held_kb,
	       r->calls * ASYNC_SUBMIT_MAX_ENTRIES,
	       (long long)r->cancel_ns / 1000, r->cancelled);
	ASSERT_EXITED(pid, status, 0);
	ASSERT_EQ(HELD_CALLS, r->calls);
	ASSERT_EQ(HELD_CALLS, r->cancelled);
	ASSERT_GT(HELD_MAX_KB, r->held_kb);
}

/* Filters of BPF_MAXINSNS a thread installs: as many as one path takes. */
#define PIN_FILTERS		7
/* Few: each thread's filters take a second to load on the debug kernel. */
#define PIN_THREADS		8
/* How long the exited threads' own references may take to go. */
#define PIN_SETTLE_S		5
/* The filters load in 6 s on an idle debug kernel under TCG. */
#define PIN_TIMEOUT_S		120

struct pin_report {
	int calls;
	long before_kb;
	long loaded_kb;
	long held_kb;
};

static const struct timespec pin_sleep = { 3600, 0 };
static struct sock_filter pin_insns[BPF_MAXINSNS];

/*
 * BPF programs live in vmalloc space: VmallocUsed shows them, without
 * the slab noise and KASAN quarantine that MemAvailable has.
 */
static long vmalloc_used_kb(void)
{
	return meminfo_kb("VmallocUsed:");
}

/*
 * What the sleeps may hold: half of what their threads' filters take.  The
 * rest of VmallocUsed is mostly the stacks of the idle workers the
 * threads leave, 16 KiB each.
 */
static long pin_max_kb(const struct pin_report *r)
{
	return PIN_THREADS * r->loaded_kb / 2;
}

struct pin_thread {
	struct pin_report *r;
	struct async_syscall e;
};

/* A thread with big filters of its own submits a long sleep and exits. */
static void *pin_fn(void *arg)
{
	struct sock_fprog prog = { .len = BPF_MAXINSNS, .filter = pin_insns };
	struct pin_thread *t = arg;
	int i;

	for (i = 0; i < PIN_FILTERS; i++) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			return (void *)(long)errno;
	}
	/* The first thread's filters, loaded: what the test must not see. */
	if (!t->r->calls)
		t->r->loaded_kb = vmalloc_used_kb() - t->r->before_kb;
	async_prep_nanosleep(&t->e, &pin_sleep);
	return async_submit(&t->e, 1, 0) == 1 ? NULL : (void *)(long)errno;
}

static int pin_child(struct pin_report *r)
{
	struct pin_thread t[PIN_THREADS];
	pthread_t thread;
	void *err;
	int i;

	for (i = 0; i < BPF_MAXINSNS - 1; i++)
		pin_insns[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, nr));
	pin_insns[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						    SECCOMP_RET_ALLOW);
	CHILD_ASSERT(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	r->before_kb = vmalloc_used_kb();
	CHILD_ASSERT(r->before_kb >= 0);
	for (i = 0; i < PIN_THREADS; i++) {
		t[i].r = r;
		CHILD_ASSERT(pthread_create(&thread, NULL, pin_fn, &t[i]) == 0);
		CHILD_ASSERT(pthread_join(thread, &err) == 0);
		errno = (long)err;
		CHILD_ASSERT(!err);
		r->calls++;
	}
	/* The threads' own references go once they are reaped, after RCU. */
	for (i = 0; i < PIN_SETTLE_S * 1000 / POLL_MS; i++) {
		r->held_kb = vmalloc_used_kb() - r->before_kb;
		if (r->held_kb < pin_max_kb(r))
			break;
		sleep_ms(POLL_MS);
	}
	for (i = 0; i < PIN_THREADS; i++) {
		CHILD_ASSERT(!async_done(&t[i].e));
		CHILD_ASSERT(async_submit(&t[i].e, 1, ASYNC_SUBMIT_CANCEL) == 1);
		CHILD_ASSERT(wait_done(&t[i].e, WAIT_TIMEOUT_S) == 0);
		CHILD_ASSERT(t[i].e.result == -EINTR);
	}
	return 0;
}

FIXTURE(pins) {
	struct pin_report *r;
};

FIXTURE_SETUP(pins)
{
	self->r = shared_page();
	ASSERT_NE(NULL, self->r);
	self->r->calls = 0;
}

FIXTURE_TEARDOWN(pins)
{
	munmap(self->r, 4096);
}

/*
 * A sleep on a timer runs on no thread: once submitted it needs neither
 * its submitter's creds nor its filters, which must not stay pinned for
 * as long as it sleeps, the thread gone, outside every bound.
 */
TEST_F_TIMEOUT(pins, sleep_pins_no_filters, PIN_TIMEOUT_S + 10)
{
	struct pin_report *r = self->r;
	int status = 0, ret;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(pin_child(r));
	ret = wait_child(pid, PIN_TIMEOUT_S, &status);
	TH_LOG("%d sleeps of exited threads hold %ld KiB of VmallocUsed",
	       r->calls, r->held_kb);
	TH_LOG("one thread's %d filters take %ld KiB", PIN_FILTERS,
	       r->loaded_kb);
	ASSERT_EQ(0, ret);
	ASSERT_EXITED(pid, status, 0);
	/* Each filter's program takes 8 bytes per instruction at least. */
	ASSERT_LE(PIN_FILTERS * BPF_MAXINSNS * 8 / 1024, r->loaded_kb);
	ASSERT_GT(pin_max_kb(r), r->held_kb);
}

/* --- Stress ---------------------------------------------------------------- */

#define STRESS_THREADS	8
#define STRESS_BATCHES	10
#define STRESS_BATCH	125	/* 8 * 10 * 125 = 10000 entries in flight */
#define STRESS_SECONDS	5
#define STRESS_KIDS_MAX	64

static const struct timespec tiny_sleep = { 0, 100000 };

struct stress_thread {
	pthread_t thread;
	struct async_syscall e[STRESS_BATCHES][STRESS_BATCH];
	char buf[STRESS_BATCHES][STRESS_BATCH];
	int p[2], zero_fd;
	unsigned long completed;
	const char *failure;
	long bad_index;
	__s64 bad_result;
};

static bool stress_stop;
/* The threads stop on their own then, even if the parent is held up. */
static int64_t stress_end;

/*
 * A batch: chains write(p) -> read(p) of one byte, 100 us sleeps and reads
 * of /dev/zero.  Every write precedes its chain's read, so no read waits
 * for ever.
 */
static void stress_prep(struct stress_thread *st, unsigned int b)
{
	struct async_syscall *e = st->e[b];
	unsigned int i = 0;

	while (i < STRESS_BATCH) {
		if (i % 4 == 0 && i + 1 < STRESS_BATCH) {
			async_prep_write(&e[i], st->p[1], "s", 1);
			async_link(&e[i]);
			async_prep_read(&e[i + 1], st->p[0], &st->buf[b][i], 1);
			i += 2;
		} else if (i % 4 == 3) {
			async_prep_read(&e[i], st->zero_fd, &st->buf[b][i], 1);
			i++;
		} else {
			async_prep_nanosleep(&e[i], &tiny_sleep);
			i++;
		}
	}
	for (i = 0; i < STRESS_BATCH; i++)
		poison(&e[i]);
}

static __s64 stress_expected(const struct async_syscall *e)
{
	return e->nr == __NR_nanosleep ? 0 : 1;
}

static bool stress_check(struct stress_thread *st, unsigned int b)
{
	unsigned int i;

	for (i = 0; i < STRESS_BATCH; i++) {
		struct async_syscall *e = &st->e[b][i];

		if (wait_done(e, WAIT_TIMEOUT_S))
			st->failure = "no completion";
		else if (e->result != stress_expected(e))
			st->failure = "wrong result";
		else
			continue;
		st->bad_index = b * STRESS_BATCH + i;
		st->bad_result = e->result;
		return false;
	}
	st->completed += STRESS_BATCH;
	return true;
}

static void *stress_fn(void *p)
{
	struct stress_thread *st = p;
	unsigned int b;

	for (b = 0; b < STRESS_BATCHES; b++) {
		stress_prep(st, b);
		if (async_submit(st->e[b], STRESS_BATCH, 0) != STRESS_BATCH) {
			st->failure = "submit";
			return NULL;
		}
	}
	/* Replace each batch as it completes, oldest first. */
	for (b = 0; !__atomic_load_n(&stress_stop, __ATOMIC_RELAXED) &&
	     now_ns() < stress_end; b = (b + 1) % STRESS_BATCHES) {
		if (!stress_check(st, b))
			return NULL;
		stress_prep(st, b);
		if (async_submit(st->e[b], STRESS_BATCH, 0) != STRESS_BATCH) {
			st->failure = "resubmit";
			return NULL;
		}
	}
	for (b = 0; b < STRESS_BATCHES; b++) {
		if (!stress_check(st, b))
			return NULL;
	}
	return NULL;
}

/* A child that submits stuck and short entries, then waits to be killed. */
static void stress_kid(void)
{
	struct async_syscall e[DYING_ENTRIES];
	char buf[DYING_ENTRIES];
	int p[2];

	if (pipe(p))
		_exit(1);
	prep_stuck(e, p[0], buf);
	for (int i = 0; i < DYING_ENTRIES; i += 4)
		async_prep_nanosleep(&e[i], &tiny_sleep);
	if (async_submit(e, DYING_ENTRIES, 0) != DYING_ENTRIES)
		_exit(1);
	for (;;)
		pause();
}

struct kids {
	unsigned long killed;
	int hung, bad_status, strays;
};

/* Start one child, kill it after @delay_ms, reap it and look for its workers. */
static void stress_kill_kid(struct kids *k, unsigned int delay_ms)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return;
	if (!pid)
		stress_kid();
	sleep_ms(delay_ms);
	kill(pid, SIGKILL);
	if (wait_child(pid, CHILD_TIMEOUT_S, &status)) {
		k->hung++;
		return;
	}
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		k->bad_status++;
	if (stray_workers(pid))
		k->strays++;
	k->killed++;
}

FIXTURE(stress) {
	struct stress_thread *st;
};

FIXTURE_SETUP(stress)
{
	self->st = calloc(STRESS_THREADS, sizeof(*self->st));
	ASSERT_NE(NULL, self->st);
}

FIXTURE_TEARDOWN(stress)
{
	free(self->st);
}

/* 10000 entries in flight, for a bounded time, with children dying around. */
TEST_F_TIMEOUT(stress, ten_thousand_in_flight, 120)
{
	unsigned long total = 0;
	struct kids kids = { 0 };
	unsigned int delay;
	int64_t start, end;
	int i;

	__atomic_store_n(&stress_stop, false, __ATOMIC_RELAXED);
	start = now_ns();
	end = start + STRESS_SECONDS * NSEC_PER_SEC;
	stress_end = end;
	for (i = 0; i < STRESS_THREADS; i++) {
		struct stress_thread *st = &self->st[i];

		ASSERT_EQ(0, pipe2(st->p, O_CLOEXEC));
		st->zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, st->zero_fd);
		ASSERT_EQ(0, pthread_create(&st->thread, NULL, stress_fn, st));
	}
	/* Kill children anywhere from before their submission to well after. */
	for (delay = 0; now_ns() < end; delay = (delay + 7) % 50) {
		if (kids.killed + kids.hung < STRESS_KIDS_MAX)
			stress_kill_kid(&kids, delay);
		else
			sleep_ms(POLL_MS);
	}
	__atomic_store_n(&stress_stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < STRESS_THREADS; i++)
		ASSERT_EQ(0, pthread_join(self->st[i].thread, NULL));
	end = now_ns();

	for (i = 0; i < STRESS_THREADS; i++) {
		struct stress_thread *st = &self->st[i];

		ASSERT_EQ(NULL, st->failure)
			TH_LOG("thread %d: %s at entry %ld, result %lld", i,
			       st->failure, st->bad_index,
			       (long long)st->bad_result);
		total += st->completed;
	}
	TH_LOG("%lu entries completed in %.1f s (%.0f/s); %lu children killed",
	       total, (end - start) / 1e9, total / ((end - start) / 1e9),
	       kids.killed);
	ASSERT_EQ(0, kids.hung);
	ASSERT_EQ(0, kids.bad_status);
	ASSERT_EQ(0, kids.strays);
	ASSERT_LT(0, kids.killed);
	ASSERT_LE(STRESS_THREADS * STRESS_BATCHES * STRESS_BATCH, total);
	ASSERT_EQ(0, wait_no_workers(IDLE_EXIT_S));
}

TEST_HARNESS_MAIN
