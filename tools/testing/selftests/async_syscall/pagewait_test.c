// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered reads that miss the page cache hold no worker while the pages
 * are read: a worker parks the chain at the read and goes on, and the
 * chain goes on once the pages are in.
 *
 * The reads go to the guest's null_blk disk, on which every request takes
 * 100 ms, through its page cache.  The async_syscall_pagewait event says
 * that a read parked; a worker asleep in state D is one that waits for a
 * page itself.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "async_test.h"

#define NR		16
#define LEN		4096
/* Blocks this far apart are read by requests of their own. */
#define STRIDE		(1024 * 1024)
#define NULLB_MIN_NSEC	(10 * NSEC_PER_MSEC)
/* A read of this many bytes needs several requests, given QUEUE_KB. */
#define LONG_LEN	(64 * 1024)
#define QUEUE_KB	"16"

#define PAGEWAIT_EVENT	TRACEFS "events/async_syscall/async_syscall_pagewait/enable"
#define QUEUE		"/sys/block/nullb0/queue/"

/* What block @blk holds: a word of its own at every 8 bytes. */
static uint64_t word_at(unsigned long long off)
{
	return (off / 8) * 0x9e3779b97f4a7c15ULL;
}

static void fill(void *buf, size_t len, unsigned long long off)
{
	uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = word_at(off + i * 8);
}

static bool check(const void *buf, size_t len, unsigned long long off)
{
	const uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] != word_at(off + i * 8))
			return false;
	return true;
}

#define PARK		"async_syscall_pagewait:"

static int parks_traced(void)
{
	return trace_count(PARK);
}

static int wait_parks(int want)
{
	return wait_traced(PARK, want);
}

FIXTURE(pagewait) {
	unsigned long long sectors;
	bool traced;
	int devfd;
	char *buf;	/* NR * STRIDE bytes, page aligned */
	struct async_syscall *e;	/* NR entries, shared with children */
};

FIXTURE_SETUP(pagewait)
{
	unsigned long delay;
	const char *why;
	int fd, i;

	self->devfd = -1;
	self->traced = false;
	why = nullb_unsuitable(NULLB_MIN_NSEC, (NR + 2ULL) * STRIDE, &delay,
			       &self->sectors);
	if (why)
		SKIP(return, "%s", why);
	self->buf = mmap(NULL, NR * STRIDE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	self->e = mmap(NULL, NR * sizeof(*self->e), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->e);

	/* The blocks read, and the end of the disk, hold known words. */
	fd = open(NULLB, O_WRONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("O_DIRECT open: %s", strerror(errno));
	for (i = 0; i < NR; i++) {
		fill(self->buf, LONG_LEN, (unsigned long long)i * STRIDE);
		ASSERT_EQ(LONG_LEN, pwrite(fd, self->buf, LONG_LEN,
					   (off_t)i * STRIDE));
	}
	fill(self->buf, LEN, self->sectors * 512 - LEN);
	ASSERT_EQ(LEN, pwrite(fd, self->buf, LEN, self->sectors * 512 - LEN));
	close(fd);
	memset(self->buf, 0, NR * STRIDE);

	self->devfd = open(NULLB, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->devfd);
	ASSERT_EQ(0, posix_fadvise(self->devfd, 0, 0, POSIX_FADV_DONTNEED));

	if (!access(PAGEWAIT_EVENT, W_OK)) {
		ASSERT_EQ(0, write_knob(TRACEFS "trace", ""));
		ASSERT_EQ(0, write_knob(PAGEWAIT_EVENT, "1"));
		self->traced = true;
	}
}

FIXTURE_TEARDOWN(pagewait)
{
	if (self->traced)
		write_knob(PAGEWAIT_EVENT, "0");
	if (self->devfd >= 0)
		close(self->devfd);
}

/* Block @i's read, on a worker from the start. */
static void prep_block_read(struct _test_data_pagewait *self, int i,
			    size_t len)
{
	async_prep_pread(&self->e[i], self->devfd, self->buf + i * STRIDE, len,
			 (off_t)i * STRIDE);
	self->e[i].flags = ASYNC_SYSCALL_FORCE_ASYNC;
	poison(&self->e[i]);
}

/*
 * NR reads that miss: each parks, no worker sleeps in a page wait, and
 * each returns its block.
 */
TEST_F(pagewait, cold_reads_hold_no_worker)
{
	int i, d, most_d = 0;
	int64_t end;

	for (i = 0; i < NR; i++)
		prep_block_read(self, i, LEN);
	ASSERT_EQ(NR, async_submit(self->e, NR, 0));
	end = now_ns() + WAIT_TIMEOUT_S * NSEC_PER_SEC;
	for (i = 0; i < NR && now_ns() < end;) {
		d = workers_in_d();
		most_d = d > most_d ? d : most_d;
		if (__atomic_load_n(&self->e[i].done, __ATOMIC_ACQUIRE) ==
		    ASYNC_SYSCALL_DONE)
			i++;
		else
			sleep_ms(1);
	}
	ASSERT_EQ(0, wait_all_done(self->e, NR, WAIT_TIMEOUT_S));
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(LEN, self->e[i].result) TH_LOG("read %d", i);
		ASSERT_TRUE(check(self->buf + i * STRIDE, LEN,
				  (unsigned long long)i * STRIDE))
			TH_LOG("block %d: wrong data", i);
	}
	TH_LOG("%d parks traced; at most %d workers in state D",
	       self->traced ? parks_traced() : -1, most_d);
	ASSERT_EQ(0, most_d) TH_LOG("a worker waited for a page itself");
	if (self->traced)
		ASSERT_LE(1, parks_traced());
}

/*
 * A parked read comes back to the queue: a worker that then blocks, in a
 * read of an empty pipe here, leaves another to take it.
 */
static void parked_read_not_held_up(struct __test_metadata *_metadata,
				    struct _test_data_pagewait *self,
				    bool retire)
{
	char c = 'x';
	int p[2];

	if (!self->traced)
		SKIP(return, "no async_syscall_pagewait event in tracefs");
	ASSERT_EQ(0, pipe(p));
	prep_block_read(self, 0, LEN);
	ASSERT_EQ(1, async_submit(self->e, 1, 0));
	ASSERT_EQ(0, wait_parks(1));
	async_prep_read(&self->e[1], p[0], &c, 1);
	poison(&self->e[1]);
	ASSERT_EQ(1, async_submit(&self->e[1], 1, 0));
	if (retire) {
		/* A new pool: the old one's idle workers go at once. */
		ASSERT_EQ(0, unshare(CLONE_FS));
		async_prep_pread(&self->e[2], self->devfd, self->buf, 0, 0);
		self->e[2].flags = ASYNC_SYSCALL_FORCE_ASYNC;
		ASSERT_EQ(1, async_submit(&self->e[2], 1, ASYNC_SUBMIT_WAIT))
			TH_LOG("async_submit: %s", strerror(errno));
	}

	EXPECT_EQ(0, wait_done(&self->e[0], WAIT_TIMEOUT_S))
		TH_LOG("the read waited for the pipe's");
	ASSERT_EQ(1, write(p[1], &c, 1));
	ASSERT_EQ(0, wait_done(&self->e[1], WAIT_TIMEOUT_S));
	ASSERT_EQ(LEN, self->e[0].result);
	ASSERT_TRUE(check(self->buf, LEN, 0));
	close(p[0]);
	close(p[1]);
}

TEST_F(pagewait, parked_read_not_held_up)
{
	parked_read_not_held_up(_metadata, self, false);
}

/* Also once the pool is retired, which lets its idle workers go. */
TEST_F(pagewait, parked_read_not_held_up_in_retired_pool)
{
	parked_read_not_held_up(_metadata, self, true);
}

/*
 * With requests of 16 KiB and no readahead beyond them, a 64 KiB read
 * parks, reads what came in, and parks again for the rest.
 */
TEST_F(pagewait, resumed_read_parks_again)
{
	char ra[32], sectors[32];

	if (!self->traced)
		SKIP(return, "no async_syscall_pagewait event in tracefs");
	ASSERT_LT(0, read_small(QUEUE "read_ahead_kb", ra, sizeof(ra)));
	ASSERT_LT(0, read_small(QUEUE "max_sectors_kb", sectors,
				sizeof(sectors)));
	/* In this order: a new request size resets the readahead size. */
	ASSERT_EQ(0, write_knob(QUEUE "max_sectors_kb", QUEUE_KB));
	ASSERT_EQ(0, write_knob(QUEUE "read_ahead_kb", QUEUE_KB));
	/* A file takes the readahead size of its disk when it is opened. */
	close(self->devfd);
	self->devfd = open(NULLB, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->devfd);

	prep_block_read(self, 0, LONG_LEN);
	ASSERT_EQ(1, async_submit(self->e, 1, 0));
	ASSERT_EQ(0, wait_done(&self->e[0], WAIT_TIMEOUT_S));
	write_knob(QUEUE "max_sectors_kb", sectors);
	write_knob(QUEUE "read_ahead_kb", ra);

	ASSERT_EQ(LONG_LEN, self->e[0].result);
	ASSERT_TRUE(check(self->buf, LONG_LEN, 0));
	TH_LOG("%d parks for one %d KiB read", parks_traced(), LONG_LEN / 1024);
	ASSERT_LE(2, parks_traced());
}

/* A read past the end of the disk returns what is there, as pread(). */
TEST_F(pagewait, short_read_at_end)
{
	off_t off = self->sectors * 512 - LEN;

	async_prep_pread(&self->e[0], self->devfd, self->buf, 3 * LEN, off);
	self->e[0].flags = ASYNC_SYSCALL_FORCE_ASYNC;
	poison(&self->e[0]);
	ASSERT_EQ(1, async_submit(self->e, 1, 0));
	ASSERT_EQ(0, wait_done(&self->e[0], WAIT_TIMEOUT_S));
	ASSERT_EQ(LEN, self->e[0].result);
	ASSERT_TRUE(check(self->buf, LEN, off));
	if (self->traced)
		TH_LOG("%d parks", parks_traced());
}

/* Reads nullb0 has not completed yet, or -1. */
static int nullb_reads_inflight(void)
{
	char line[64];

	if (read_small("/sys/block/nullb0/inflight", line, sizeof(line)) <= 0)
		return -1;
	return atoi(line);
}

/*
 * A cancel of a parked read takes its wait back: the read ends with
 * -ECANCELED while the device still has its pages, and its chain is
 * cancelled after it.
 */
TEST_F(pagewait, cancel_while_parked)
{
	int in_device;

	if (!self->traced)
		SKIP(return, "no async_syscall_pagewait event in tracefs");
	prep_block_read(self, 0, LEN);
	prep_block_read(self, 1, LEN);
	async_chain(self->e, 2);
	ASSERT_EQ(2, async_submit(self->e, 2, 0));
	ASSERT_EQ(0, wait_parks(1));
	ASSERT_EQ(1, async_cancel(self->e, 1));
	in_device = nullb_reads_inflight();
	ASSERT_EQ(0, wait_all_done(self->e, 2, WAIT_TIMEOUT_S));
	TH_LOG("the read: %lld; reads in the device after the cancel: %d",
	       (long long)self->e[0].result, in_device);
	if (self->e[0].result == LEN) {
		/* The pages came in before the cancel. */
		ASSERT_TRUE(check(self->buf, LEN, 0));
		return;
	}
	ASSERT_EQ(-ECANCELED, self->e[0].result);
	ASSERT_EQ(-ECANCELED, self->e[1].result);
	/* Still reading when cancelled: done before the device is. */
	if (in_device > 0)
		ASSERT_LT(0, nullb_reads_inflight())
			TH_LOG("the cancel waited for the device");
}

/*
 * A link timeout shorter than the device cancels a parked read: it ends
 * with -ECANCELED while the device still has its pages, and the timeout
 * with -ETIME.
 */
TEST_F(pagewait, link_timeout_cancels_a_parked_read)
{
	const struct timespec ts = { .tv_nsec = 5 * 1000 * 1000 };
	int in_device;

	if (!self->traced)
		SKIP(return, "no async_syscall_pagewait event in tracefs");
	prep_block_read(self, 0, LEN);
	async_prep_link_timeout(&self->e[1], &ts);
	async_chain(self->e, 2);
	ASSERT_EQ(2, async_submit(self->e, 2, 0));
	ASSERT_EQ(0, wait_all_done(self->e, 2, WAIT_TIMEOUT_S));
	in_device = nullb_reads_inflight();
	TH_LOG("the read: %lld, the timeout: %lld; reads in the device: %d",
	       (long long)self->e[0].result, (long long)self->e[1].result,
	       in_device);
	if (self->e[0].result == LEN) {
		/* The pages came in first. */
		ASSERT_TRUE(check(self->buf, LEN, 0));
		return;
	}
	ASSERT_EQ(-ECANCELED, self->e[0].result);
	ASSERT_EQ(-ETIME, self->e[1].result);
	ASSERT_LT(0, in_device) TH_LOG("the read waited for the device");
}

/*
 * A child with reads parked exits, or execs: each entry completes, in
 * memory it shares with us, before its mm goes: with its block, with
 * -ECANCELED if no worker was left to take it, or with -EINTR if the
 * kill caught a worker reading it.
 */
static void parked_then(struct __test_metadata *_metadata,
			struct _test_data_pagewait *self, bool exec)
{
	int i, status;
	pid_t pid;

	if (!self->traced)
		SKIP(return, "no async_syscall_pagewait event in tracefs");
	for (i = 0; i < NR; i++)
		prep_block_read(self, i, LEN);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CHILD_ASSERT(async_submit(self->e, NR, 0) == NR);
		CHILD_ASSERT(wait_parks(1) == 0);
		if (exec)
			execl("/bin/true", "true", (char *)NULL);
		_exit(exec ? 2 : 0);
	}
	ASSERT_EQ(0, wait_child(pid, CHILD_TIMEOUT_S, &status));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status 0x%x", status);
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(ASYNC_SYSCALL_DONE, self->e[i].done)
			TH_LOG("entry %d not done", i);
		if (self->e[i].result == LEN) {
			ASSERT_TRUE(check(self->buf + i * STRIDE, LEN,
					  (unsigned long long)i * STRIDE));
			continue;
		}
		/* Never run, or a worker's read that the kill interrupted. */
		ASSERT_TRUE(self->e[i].result == -ECANCELED ||
			    self->e[i].result == -EINTR)
			TH_LOG("entry %d: %lld", i,
			       (long long)self->e[i].result);
	}
	ASSERT_EQ(0, stray_workers(pid));
}

TEST_F(pagewait, exit_while_parked)
{
	parked_then(_metadata, self, false);
}

TEST_F(pagewait, exec_while_parked)
{
	parked_then(_metadata, self, true);
}

TEST_HARNESS_MAIN
