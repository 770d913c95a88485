// SPDX-License-Identifier: GPL-2.0
/*
 * Work the kernel hands to the workers of the calling thread, one
 * &struct async_work at a time: Linux AIO's buffered I/O and fsync.
 *
 * Each work gets a worker of its own at once, idle or made for it, so
 * that it never waits behind chains or other work.  Work that waits for
 * an event it armed a callback for, such as a read for its pages, parks
 * without a worker until async_work_wake(), and then runs on.
 */

#include <linux/async_syscall.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/wake_q.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "async_syscall.h"
#include <trace/events/async_syscall.h>

void async_work_done(struct async_work *work, long res)
{
	const struct cred *cred = work->cred;

	work->ops->complete(work, res);
	put_cred(cred);
}

/* Calls @work's ->run(), again while it asks to be restarted. */
static long async_work_call(struct async_worker *w, struct async_work *work)
{
	struct async_ctx *ctx = w->pool->ctx;
	const struct cred *old_cred;
	unsigned int quiet = 0;
	long res;

	old_cred = override_creds(work->cred);
	arch_async_set_pkey_rights(work->pkey_rights);
	/* Its wake may come before ->run() returns. */
	if (work->ops->unwait)
		atomic_inc(&ctx->nr_pagewaits);
	res = work->ops->run(work);
	while (async_restartable(res)) {
		if (!async_may_restart(w, &work->cancelled, &quiet)) {
			res = -EINTR;
			break;
		}
		res = work->ops->run(work);
	}
	if (work->ops->unwait && res != -EIOCBQUEUED)
		atomic_dec(&ctx->nr_pagewaits);
	revert_creds(old_cred);
	return res;
}

/**
 * async_work_unwait() - take back the wait of parked work
 * @work: The work, parked or about to be.
 *
 * Return: true if its wake will not come, which then no longer counts.
 */
bool async_work_unwait(struct async_work *work)
{
	if (!work->ops->unwait(work))
		return false;
	atomic_dec(&work->ctx->nr_pagewaits);
	return true;
}

/**
 * async_work_may_park() - whether @work may wait for an event without its
 *	worker
 * @work: The work, in its ->run().
 *
 * Not at the pool's bound on workers: no worker could then be made to take
 * it back while the others block, and it would wait behind them.
 *
 * Return: true if ->run() may arm a wait and return -EIOCBQUEUED.
 */
bool async_work_may_park(struct async_work *work)
{
	/* Without the lock: the bound is a limit on threads, not a promise. */
	return data_race(work->pool->nr_workers) < work->ctx->max_workers;
}

/*
 * Parks @work, whose ->run() armed a wait, until async_work_wake().
 * Returns false if the wake came first: the caller runs it on.
 */
static bool async_work_park(struct async_work *work)
{
	struct async_pool *pool = work->pool;
	struct async_ctx *ctx = pool->ctx;

	spin_lock(&ctx->lock);
	if (work->woken) {
		work->woken = false;
		spin_unlock(&ctx->lock);
		return false;
	}
	WRITE_ONCE(work->parked, true);
	/* Pairs with the barrier in async_work_cancel(). */
	smp_mb();
	if (READ_ONCE(work->cancelled) && async_work_unwait(work)) {
		WRITE_ONCE(work->parked, false);
		spin_unlock(&ctx->lock);
		return false;
	}
	/* Once woken, the work may be gone: nothing of it after the unlock. */
	WRITE_ONCE(work->runner, NULL);
	list_add_tail(&work->node, &ctx->parked_works);
	pool->nr_parked++;
	pool->refs++;
	trace_async_syscall_work_park(work->ops->run);
	spin_unlock(&ctx->lock);
	return true;
}

/*
 * Runs a work queued from inside the kernel.  Either the worker sees a
 * cancel before it starts, or the cancel sees the worker and interrupts it.
 */
void async_run_work(struct async_worker *w, struct async_work *work)
{
	bool parks = work->ops->unwait;
	long res;

	WRITE_ONCE(work->runner, current);
	/* Pairs with the barrier in async_work_cancel(). */
	smp_mb();
	do {
		res = -ECANCELED;
		if (READ_ONCE(work->cancelled) || w->dying ||
		    fatal_signal_pending(current))
			break;
		res = async_work_call(w, work);
	} while (parks && res == -EIOCBQUEUED && !async_work_park(work));
	/* Parked: async_work_park() let go of it. */
	if (parks && res == -EIOCBQUEUED) {
		async_worker_clean(w);
		return;
	}
	WRITE_ONCE(work->runner, NULL);
	/*
	 * Complete first: the completion ends a write's freeze protection,
	 * which a stop in the clean-up must not hold, and may drop the last
	 * reference to a file, whose release the clean-up then runs.
	 */
	async_work_done(work, res);
	async_worker_clean(w);
}

/**
 * async_work_wake() - queue parked work again
 * @work: Work whose ->run() armed a wait and returned -EIOCBQUEUED, or is
 *	about to.
 *
 * For the callback of that wait, in any context.  A worker then calls
 * ->run() again, or completes the work with -ECANCELED if it was
 * cancelled meanwhile.
 */
void async_work_wake(struct async_work *work)
{
	struct async_ctx *ctx = work->ctx;

	/* @ctx lives until its kworker is done: see async_pagewaits_stop(). */
	if (llist_add(&work->woken_node, &ctx->woken_works))
		queue_work(system_wq, &ctx->woken_work);
}

/**
 * async_work_requeue() - queue parked work again on its pool
 * @work: The work, parked.
 * @orphans: Gets it if the pool has no worker left.
 * @wake_q: Gets the idle worker that takes it.
 *
 * Return: The pool, if the caller must free it.
 */
struct async_pool *async_work_requeue(struct async_work *work,
				      struct async_orphans *orphans,
				      struct wake_q_head *wake_q)
	__must_hold(&work->pool->ctx->lock)
{
	struct async_pool *pool = work->pool;

	WRITE_ONCE(work->parked, false);
	pool->nr_parked--;
	list_move_tail(&work->node, &pool->works);
	pool->nr_works++;
	async_pool_kick(pool, orphans, wake_q);
	return async_pool_unref(pool);
}

/*
 * Takes back the waits of cancelled parked work and queues it again, for
 * a worker to complete with -ECANCELED, or @orphans if none is left.
 */
static void async_works_cancel_parked(struct async_ctx *ctx,
				      struct async_orphans *orphans,
				      struct wake_q_head *wake_q)
{
	struct async_pool *dead, *next_pool;
	struct async_work *work, *next;
	LIST_HEAD(dead_pools);

	spin_lock(&ctx->lock);
	list_for_each_entry_safe(work, next, &ctx->parked_works, node) {
		if (!READ_ONCE(work->cancelled) || !async_work_unwait(work))
			continue;
		dead = async_work_requeue(work, orphans, wake_q);
		/* Off &async_ctx.pools: the link is free. */
		if (dead)
			list_add(&dead->node, &dead_pools);
	}
	spin_unlock(&ctx->lock);
	list_for_each_entry_safe(dead, next_pool, &dead_pools, node)
		async_pool_free(dead);
}

/**
 * async_works_woken() - queue again the work async_work_wake() woke
 * @ctx: The process's context, in its kworker.
 * @orphans: Gets the work whose pool has no worker left.
 * @wake_q: Gets the idle workers that take it.
 */
void async_works_woken(struct async_ctx *ctx, struct async_orphans *orphans,
		       struct wake_q_head *wake_q)
{
	struct llist_node *woken = llist_del_all(&ctx->woken_works);
	struct async_work *work, *next;
	struct async_pool *dead;

	llist_for_each_entry_safe(work, next, llist_reverse_order(woken),
				  woken_node) {
		dead = NULL;
		spin_lock(&ctx->lock);
		if (work->parked)
			dead = async_work_requeue(work, orphans, wake_q);
		else
			work->woken = true;
		spin_unlock(&ctx->lock);
		async_pool_free(dead);
		if (atomic_dec_and_test(&ctx->nr_pagewaits))
			wake_up_var(&ctx->nr_pagewaits);
	}
	if (atomic_xchg(&ctx->cancel_parked, 0))
		async_works_cancel_parked(ctx, orphans, wake_q);
}

/*
 * Each kernel work gets a worker of its own: an idle one, or one created
 * for it.  A worker merely on its way might be a creation that fails,
 * and the work would then wait behind busy ones.  At the bound, the last
 * idle worker is left to parked work, which cannot make one once woken.
 */
static bool async_pool_can_take_work(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	if (list_empty(&pool->idle))
		return false;
	return !pool->nr_parked || pool->nr_workers < pool->ctx->max_workers ||
	       !list_is_singular(&pool->idle);
}

static void async_pool_add_work(struct async_pool *pool,
				struct async_work *work)
	__must_hold(&pool->ctx->lock)
{
	list_add_tail(&work->node, &pool->works);
	pool->nr_works++;
	/* async_pool_can_take_work() said there is one. */
	WARN_ON_ONCE(!async_wake_idle(pool));
}

/*
 * Queues @work under one lock when the calling thread's pool can take it:
 * the common case.  Returns 0 if queued, -EAGAIN if the pool is at its
 * bound with every worker busy, or 1 if a worker must be made first.
 */
static int async_work_queue_fast(struct async_ctx *ctx,
				 struct async_work *work)
{
	struct async_pool *pool;
	int ret = 1;

	spin_lock(&ctx->lock);
	list_for_each_entry(pool, &ctx->pools, node) {
		if (!async_pool_matches(pool))
			continue;
		if (pool->nr_workers && async_pool_can_take_work(pool)) {
			async_pool_add_work(pool, work);
			ret = 0;
		} else if (pool->nr_workers >= ctx->max_workers) {
			ret = -EAGAIN;
		}
		break;
	}
	spin_unlock(&ctx->lock);
	return ret;
}

/*
 * Queues @work with a worker made for it; the pool is pinned.  If the
 * worker cannot be made, @work is taken back, unless a worker has already
 * taken it: it is then running, and queued it was.
 */
static int async_work_queue_slow(struct async_pool *pool,
				 struct async_work *work)
{
	struct async_ctx *ctx = pool->ctx;
	struct async_orphans orphans;
	DEFINE_WAKE_Q(wake_q);
	bool taken;
	int err;

	spin_lock(&ctx->lock);
	if (pool->nr_workers && async_pool_can_take_work(pool)) {
		async_pool_add_work(pool, work);
		spin_unlock(&ctx->lock);
		return 0;
	}
	if (pool->nr_workers >= ctx->max_workers) {
		spin_unlock(&ctx->lock);
		return -EAGAIN;
	}
	async_reserve_worker(pool);
	list_add_tail(&work->node, &pool->works);
	pool->nr_works++;
	spin_unlock(&ctx->lock);

	err = async_spawn_worker(pool);
	if (!err)
		return 0;
	spin_lock(&ctx->lock);
	/* Its node may be on another list again, once parked. */
	taken = work->pool;
	if (!taken) {
		list_del_init(&work->node);
		pool->nr_works--;
	}
	async_unreserve_worker(pool, &orphans, &wake_q);
	spin_unlock(&ctx->lock);
	wake_up_q(&wake_q);
	async_cancel_orphans(&orphans);
	return taken ? 0 : err;
}

/*
 * What every kernel work takes from the thread that queues it.  Returns
 * its process's context, or an error for a thread that cannot queue.
 */
static struct async_ctx *async_work_setup(struct async_work *work)
{
	struct async_ctx *ctx;

	/* Workers made in a compat call would run later entries as compat. */
	if ((current->flags & (PF_KTHREAD | PF_IO_WORKER)) || !current->mm ||
	    in_compat_syscall())
		return ERR_PTR(-EOPNOTSUPP);
	if (!async_work_allowed())
		return ERR_PTR(-EPERM);
	ctx = async_ctx_get();
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	work->ctx = ctx;
	work->cred = get_current_cred();
	work->pkey_rights = arch_async_pkey_rights();
	return ctx;
}

static void async_work_unsetup(struct async_work *work)
{
	put_cred(work->cred);
	work->cred = NULL;
}

/**
 * async_work_queue() - hand work to the workers of the calling thread
 * @work: The work, set up with async_work_init().
 *
 * The work runs on a worker of the calling thread's pool, which shares its
 * files, fs and namespaces, with the caller's credentials of now.  Its
 * ->complete() is called exactly once, also when the process exits first.
 * A worker that is idle or made for it takes it at once: it never waits
 * behind other work.
 *
 * Return: 0 once queued, or a negative errno and nothing was queued:
 * -EOPNOTSUPP for a kernel thread, a worker of any kind or a compat
 * system call, -EPERM if the sysctl kernel.async_syscall_disabled is 2,
 * -EAGAIN if every worker is busy at the bound, -ENOMEM, or the error
 * creating a worker.
 */
int async_work_queue(struct async_work *work)
{
	struct async_pool *pool;
	struct async_ctx *ctx;
	int err;

	ctx = async_work_setup(work);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	err = async_work_queue_fast(ctx, work);
	if (err > 0) {
		pool = async_pool_get(ctx, false);
		err = PTR_ERR_OR_ZERO(pool);
		if (!err) {
			err = async_work_queue_slow(pool, work);
			async_pool_unpin(pool);
		}
	}
	if (err)
		async_work_unsetup(work);
	return err;
}

/*
 * Queues @work on @pool, which async_pool_get() prepared: the worker it
 * woke or made, if no other work has it, takes @work, also at the bound
 * the worker may have taken the pool to.
 */
static int async_work_queue_prepared(struct async_pool *pool,
				     struct async_work *work)
{
	struct async_ctx *ctx = pool->ctx;

	spin_lock(&ctx->lock);
	if (pool->nr_workers && async_pool_can_take_work(pool)) {
		async_pool_add_work(pool, work);
		spin_unlock(&ctx->lock);
		return 0;
	}
	if (pool->nr_waking > pool->nr_works) {
		list_add_tail(&work->node, &pool->works);
		pool->nr_works++;
		spin_unlock(&ctx->lock);
		return 0;
	}
	spin_unlock(&ctx->lock);
	return async_work_queue_slow(pool, work);
}

/**
 * async_work_queue_tried() - try work in the calling thread, then queue it
 * @work: The work, set up with async_work_init(), with ->unwait().
 *
 * Calls ->run() in the calling thread first, where it must not wait for
 * the device (see async_work_on_worker()), though it may sleep on a lock
 * or in an allocation: a read that waits for a page then arms the wait
 * there and parks at once, and no worker takes it before its page is in.
 * ->run() returns -EAGAIN for what a worker must finish.  Otherwise as
 * async_work_queue(); a work done in the caller is completed before this
 * returns.
 *
 * Return: 0 once queued, parked or completed, or a negative errno as for
 * async_work_queue(): nothing is queued, and ->run() may have been called.
 */
int async_work_queue_tried(struct async_work *work)
{
	struct async_pool *pool;
	struct async_ctx *ctx;
	long res;
	int err;

	ctx = async_work_setup(work);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* A worker must be there to take the work back once its page is in. */
	pool = async_pool_get(ctx, true);
	if (IS_ERR(pool)) {
		async_work_unsetup(work);
		return PTR_ERR(pool);
	}
	work->pool = pool;
	do {
		res = -ECANCELED;
		if (READ_ONCE(work->cancelled))
			break;
		/* Its wake may come before ->run() returns. */
		atomic_inc(&ctx->nr_pagewaits);
		res = work->ops->run(work);
		if (res != -EIOCBQUEUED)
			atomic_dec(&ctx->nr_pagewaits);
	} while (res == -EIOCBQUEUED && !async_work_park(work));
	err = 0;
	/* Nothing is consumed by a call to restart: a worker makes it. */
	if (res == -EAGAIN || async_restartable(res)) {
		/* Taken by no worker yet: see async_work_queue_slow(). */
		work->pool = NULL;
		err = async_work_queue_prepared(pool, work);
		if (err)
			async_work_unsetup(work);
	} else if (res != -EIOCBQUEUED) {
		async_work_done(work, res);
	}
	async_pool_unpin(pool);
	return err;
}

/**
 * async_work_cancel() - cancel queued work
 * @work: Work set up with async_work_init(), queued or about to be.
 *
 * Work not yet started completes with -ECANCELED when a worker reaches
 * it; running work gets TIF_NOTIFY_SIGNAL, which ends an interruptible
 * wait; parked work has its wait taken back, and completes with
 * -ECANCELED.  Callable in atomic context, as long as the caller keeps @work
 * alive, for instance by holding a lock its ->complete() takes.
 */
void async_work_cancel(struct async_work *work)
{
	struct task_struct *runner;
	struct async_ctx *ctx;

	WRITE_ONCE(work->cancelled, true);
	/* Pairs with the barriers in async_run_work() and async_work_park(). */
	smp_mb();
	rcu_read_lock();
	runner = READ_ONCE(work->runner);
	if (runner)
		set_notify_signal(runner);
	rcu_read_unlock();
	/*
	 * Parked: the kworker takes its wait back, which the wait's event may
	 * never end.  Not here: the caller may hold an irq-safe lock, which
	 * &async_ctx.lock must never nest in.  Queued, the work is not done,
	 * so its process's context is still there.
	 */
	if (READ_ONCE(work->parked)) {
		ctx = work->ctx;
		atomic_set(&ctx->cancel_parked, 1);
		queue_work(system_wq, &ctx->woken_work);
	}
}
