/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A 4-thread pool in the shape of libuv's default one: one FIFO queue under
 * a mutex, idle threads sleeping on a condition variable, the submitter
 * waiting for its work on a second one.
 */
#ifndef __BENCH_POOL_H
#define __BENCH_POOL_H

#include <pthread.h>
#include <stdbool.h>

#define POOL_THREADS 4

struct pool_task {
	void			(*fn)(struct pool_task *t);
	struct pool_task	*next;
	void			*arg;
	long			result;
};

struct pool {
	pthread_mutex_t		lock;
	pthread_cond_t		work;		/* queue became non-empty */
	pthread_cond_t		done;		/* completed reached the target */
	struct pool_task	*head, *tail;
	unsigned long		submitted, completed;
	unsigned int		idle;
	bool			waiting, stop;
	pthread_t		threads[POOL_THREADS];
};

static void *pool_thread(void *arg)
{
	struct pool *p = arg;
	struct pool_task *t;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->head && !p->stop) {
			p->idle++;
			pthread_cond_wait(&p->work, &p->lock);
			p->idle--;
		}
		if (p->stop)
			break;
		t = p->head;
		p->head = t->next;
		pthread_mutex_unlock(&p->lock);

		t->fn(t);

		pthread_mutex_lock(&p->lock);
		if (++p->completed == p->submitted && p->waiting)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static inline void pool_start(struct pool *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (i = 0; i < POOL_THREADS; i++)
		if (pthread_create(&p->threads[i], NULL, pool_thread, p))
			die("pthread_create");
}

static inline void pool_stop(struct pool *p)
{
	int i;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < POOL_THREADS; i++)
		pthread_join(p->threads[i], NULL);
}

/* Queues the @n tasks at @t, in order. */
static inline void pool_submit(struct pool *p, struct pool_task *t,
			       unsigned int n)
{
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i + 1 < n; i++)
		t[i].next = &t[i + 1];
	t[n - 1].next = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->head)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = &t[n - 1];
	p->submitted += n;
	if (p->idle) {
		if (n == 1)
			pthread_cond_signal(&p->work);
		else
			pthread_cond_broadcast(&p->work);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Waits until every task submitted so far has run. */
static inline void pool_wait(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->waiting = true;
	while (p->completed != p->submitted)
		pthread_cond_wait(&p->done, &p->lock);
	p->waiting = false;
	pthread_mutex_unlock(&p->lock);
}

#endif /* __BENCH_POOL_H */
