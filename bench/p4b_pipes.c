// SPDX-License-Identifier: GPL-2.0
/*
 * P4b: NPIPE reads of NPIPE empty pipes in one async_submit(ASYNC_SUBMIT_WAIT)
 * call; a thread writes one byte into each pipe 10 ms after the submit
 * started.  Each read blocks until then, and no timer can stand in for a
 * thread: a worker must wait in each.  The first round starts with no
 * worker (cold); the following ones find the workers of the round before
 * idle (warm).  The baseline for the cold round is the same work done by
 * NPIPE threads made for it, each blocked in one read (pthread_create(),
 * which is clone3() in glibc 2.34 and later).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "bench.h"
#include <async_syscall/libasync.h>

#define NPIPE		256
#define DELAY_NS	10000000L

static int pipes[NPIPE][2];
static char bufs[NPIPE];
static struct async_syscall ents[NPIPE];
static sem_t go;
static __u64 round_start;

static void futex(atomic_int *word, int op, int val)
{
	syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* Writes a byte into every pipe DELAY_NS after each round started. */
static void *writer(void *arg)
{
	struct timespec at;
	unsigned int i;

	for (;;) {
		sem_wait(&go);
		at.tv_sec = (round_start + DELAY_NS) / 1000000000ULL;
		at.tv_nsec = (round_start + DELAY_NS) % 1000000000ULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
			;
		for (i = 0; i < NPIPE; i++)
			if (write(pipes[i][1], "x", 1) != 1)
				die("write pipe %u: %s", i, strerror(errno));
	}
	return arg;
}

static double round_async(int *workers)
{
	unsigned int i;
	__u64 t1;

	memset(bufs, 0, sizeof(bufs));
	for (i = 0; i < NPIPE; i++)
		async_prep_read(&ents[i], pipes[i][0], &bufs[i], 1);
	round_start = now_ns();
	sem_post(&go);
	if (async_submit(ents, NPIPE, ASYNC_SUBMIT_WAIT) != NPIPE)
		die("async_submit: %s", strerror(errno));
	t1 = now_ns();
	*workers = count_threads("async-wrk-");
	for (i = 0; i < NPIPE; i++)
		if (ents[i].result != 1 || bufs[i] != 'x')
			die("read entry %u: %lld", i, (long long)ents[i].result);
	return (t1 - round_start) / 1e6;
}

static atomic_int left;

static void *reader(void *arg)
{
	unsigned int i = (unsigned long)arg;

	if (read(pipes[i][0], &bufs[i], 1) != 1 || bufs[i] != 'x')
		die("thread read %u: %s", i, strerror(errno));
	if (atomic_fetch_sub(&left, 1) == 1)
		futex(&left, FUTEX_WAKE, 1);
	return NULL;
}

/* The same reads, each in a thread made for it: ms until all are done. */
static double round_threads(void)
{
	pthread_t tids[NPIPE];
	pthread_attr_t attr;
	unsigned long i;
	double ms;
	int n;

	memset(bufs, 0, sizeof(bufs));
	atomic_store(&left, NPIPE);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	round_start = now_ns();
	sem_post(&go);
	for (i = 0; i < NPIPE; i++)
		if (pthread_create(&tids[i], &attr, reader, (void *)i))
			die("pthread_create %lu", i);
	while ((n = atomic_load(&left)) > 0)
		futex(&left, FUTEX_WAIT, n);
	ms = (now_ns() - round_start) / 1e6;
	for (i = 0; i < NPIPE; i++)
		pthread_join(tids[i], NULL);
	pthread_attr_destroy(&attr);
	return ms;
}

static void split_pass(void)
{
	int workers;

	round_async(&workers);
}

int main(void)
{
	const char *param = "n=256;delay=10ms";
	int reps = bench_reps(5);
	double v[99];
	int r;
	pthread_t tid;
	unsigned int i;

	for (i = 0; i < NPIPE; i++)
		if (pipe(pipes[i]))
			die("pipe: %s", strerror(errno));
	sem_init(&go, 0, 0);
	if (pthread_create(&tid, NULL, writer, NULL))
		die("pthread_create writer");

	report_cold_warm("P4b", param, round_async, reps);
	report_split("P4b", param, split_pass);

	for (r = 0; r < reps; r++)
		v[r] = round_threads();
	report("P4b", param, "threads", "ms", median(v, reps));
	return 0;
}
