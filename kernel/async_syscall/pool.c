// SPDX-License-Identifier: GPL-2.0
/*
 * The process's context, the pools of workers, and the making of workers.
 *
 * Each submitting thread has its own pool of workers, which share its file
 * table, filesystem context and namespaces: a thread that unshares or
 * enters a namespace gets a new pool.  Workers are created only by the
 * submitter or by another worker of the same pool, so an entry always runs
 * in the context it was submitted from, and a worker takes its scheduling
 * policy, CPU affinity, NUMA policy, cgroup and I/O context from the
 * submitter.
 *
 * Work is queued by batch.  Before running a chain a worker recruits more
 * workers if work is still queued and not enough workers are already on
 * their way: for quick chains, until as many run as there are CPUs; one
 * per CPU for chains that wait for a peer or a timer, whose batch also
 * wakes an idle worker for each of them at once, so that they fan out to
 * as many as they need.
 */

#include <linux/async_syscall.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fdtable.h>
#include <linux/fs_struct.h>
#include <linux/nsproxy.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/wake_q.h>
#include <linux/slab.h>

#include "async_syscall.h"

/* Attempts to create a worker when the failure may be transient. */
#define ASYNC_CREATE_TRIES	4
/* Workers one worker recruits at most before it runs its own work. */
#define ASYNC_RECRUITS		2

struct async_ctx *async_ctx_get(void)
{
	struct signal_struct *sig = current->signal;
	/* Pairs with the release in try_cmpxchg_release() below. */
	struct async_ctx *ctx = smp_load_acquire(&sig->async_ctx);
	struct async_ctx *old = NULL;

	if (ctx)
		return ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return NULL;
	spin_lock_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->pools);
	INIT_LIST_HEAD(&ctx->batches);
	INIT_LIST_HEAD(&ctx->busy);
	xa_init_flags(&ctx->waits, XA_FLAGS_ALLOC);
	async_ctx_init_timers(ctx);
	async_ctx_init_pagewaits(ctx);
	async_ctx_init_link_timeouts(ctx);
	/* copy_process() enforces RLIMIT_NPROC itself; 0 must still allow one. */
	ctx->max_workers = clamp_t(unsigned long, rlimit(RLIMIT_NPROC), 1,
				   ASYNC_MAX_WORKERS);
	if (!try_cmpxchg_release(&sig->async_ctx, &old, ctx)) {
		kfree(ctx);
		ctx = old;
	}
	return ctx;
}

void __async_syscall_free(struct async_ctx *ctx)
{
	/* Empty, so it has no nodes: xa_destroy() would lock it in softirq. */
	WARN_ON_ONCE(!list_empty(&ctx->pools) || !list_empty(&ctx->timers) ||
		     !list_empty(&ctx->parked_works) || !xa_empty(&ctx->waits));
	kfree(ctx);
}

/*
 * The pool's key is only compared while the pool has a worker or a pinning
 * submitter, either of which keeps the files, fs and nsproxy alive; the
 * pool holds the creds itself, as each worker has a copy of its own.
 * Workers run entries with the batch's creds, but signals and ptrace judge
 * them by their own, so those must be the submitter's too.
 */
bool async_pool_matches(struct async_pool *pool)
{
	return !pool->retired && pool->owner == current &&
	       pool->files == current->files &&
	       pool->fs == current->fs && pool->nsproxy == current->nsproxy &&
	       pool->cred == current_real_cred() &&
	       pool->tagged_addr_ctrl == async_tagged_addr_ctrl();
}

/* Drops a reference; returns the pool if the caller must free it. */
struct async_pool *async_pool_unref(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	if (--pool->refs)
		return NULL;
	list_del(&pool->node);
	return pool;
}

void async_pool_free(struct async_pool *pool)
{
	if (!pool)
		return;
	WARN_ON_ONCE(pool->nr_workers || !list_empty(&pool->queue) ||
		     !list_empty(&pool->works));
	put_cred(pool->cred);
	put_task_struct(pool->owner);
	kfree(pool);
}

/*
 * The calling thread's context changed, so it will not submit to its old
 * pools again: their idle workers go now rather than after the idle
 * timeout, so that a thread that switches creds often does not pile up
 * threads.
 */
static void async_retire_pools(struct async_ctx *ctx)
	__must_hold(&ctx->lock)
{
	struct async_worker *w;
	struct async_pool *pool;

	list_for_each_entry(pool, &ctx->pools, node) {
		if (pool->owner != current || pool->retired)
			continue;
		pool->retired = true;
		list_for_each_entry(w, &pool->idle, idle_node)
			wake_up_process(w->task);
	}
}

static int async_create_worker(struct async_pool *pool);

/* No worker is idle or on its way, and one more may be made. */
static bool async_pool_lacks_spare(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	return list_empty(&pool->idle) && !pool->nr_waking &&
	       pool->nr_workers < pool->ctx->max_workers;
}

/**
 * async_pool_get() - the calling thread's pool for its current context
 * @ctx: The process's context.
 * @prepare: Make sure a worker will take what the caller queues next.
 *
 * The pool comes pinned: its workers do not go idle-exit until
 * async_pool_unpin().  Idle workers stay while it is pinned, and one on
 * its way recruits, so with @prepare a worker is made only if there is
 * neither.  Called before anything is queued, so that a failure to make
 * it fails the call with nothing to undo; one because a signal is pending
 * restarts the call once the signal is handled.
 *
 * Return: The pool, or ERR_PTR(-ENOMEM) or the error making the worker.
 */
struct async_pool *async_pool_get(struct async_ctx *ctx, bool prepare)
{
	struct async_pool *pool, *new = NULL;
	bool spawn;
	int err;

	for (;;) {
		spin_lock(&ctx->lock);
		list_for_each_entry(pool, &ctx->pools, node) {
			if (async_pool_matches(pool))
				goto found;
		}
		if (new) {
			async_retire_pools(ctx);
			pool = new;
			new = NULL;
			list_add(&pool->node, &ctx->pools);
			goto found;
		}
		spin_unlock(&ctx->lock);

		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return ERR_PTR(-ENOMEM);
		new->ctx = ctx;
		new->owner = get_task_struct(current);
		new->files = current->files;
		new->fs = current->fs;
		new->nsproxy = current->nsproxy;
		new->cred = get_cred(current_real_cred());
		new->tagged_addr_ctrl = async_tagged_addr_ctrl();
		INIT_LIST_HEAD(&new->queue);
		INIT_LIST_HEAD(&new->works);
		INIT_LIST_HEAD(&new->idle);
	}
found:
	pool->refs++;
	pool->pins++;
	spawn = prepare && async_pool_lacks_spare(pool);
	if (spawn)
		async_reserve_worker(pool);
	spin_unlock(&ctx->lock);
	if (new) {
		put_cred(new->cred);
		put_task_struct(new->owner);
		kfree(new);
	}
	err = spawn ? async_create_worker(pool) : 0;
	if (err) {
		async_pool_unpin(pool);
		return ERR_PTR(err);
	}
	return pool;
}

/* Undoes async_pool_get(). */
void async_pool_unpin(struct async_pool *pool)
{
	struct async_ctx *ctx = pool->ctx;
	struct async_pool *dead;

	spin_lock(&ctx->lock);
	pool->pins--;
	dead = async_pool_unref(pool);
	spin_unlock(&ctx->lock);
	async_pool_free(dead);
}

/* The CPUs the pool's workers may run on, as its submitter. */
unsigned int async_pool_cpus(struct async_pool *pool)
{
	return clamp_t(unsigned int, READ_ONCE(pool->owner->nr_cpus_allowed),
		       1, num_online_cpus());
}

/*
 * Whether fewer workers are on their way than wanted: one for each queued
 * kernel work, which is expected to block; for chains expected to block,
 * one per CPU, so that new workers are made in parallel; and for other
 * queued chains, one while fewer workers run than there are CPUs.  A
 * worker asleep in its work does not count as running, so another takes
 * the queue while it sleeps and only then (async_worker_sleeping()).
 */
bool async_pool_wants_worker(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	unsigned int cpus = async_pool_cpus(pool);
	unsigned int lines = min(pool->nr_blocking, cpus);

	if (pool->nr_waking < max(pool->nr_works, lines))
		return true;
	if (list_empty(&pool->queue))
		return false;
	/* Pairs with the barrier in async_worker_sleeping(). */
	smp_mb();
	return atomic_read(&pool->nr_running) + pool->nr_waking < cpus;
}

/* Takes an idle worker off the idle list for queued work, to be woken. */
struct async_worker *async_claim_idle(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	struct async_worker *w;

	w = list_first_entry_or_null(&pool->idle, struct async_worker,
				     idle_node);
	if (w) {
		list_del_init(&w->idle_node);
		pool->nr_waking++;
	}
	return w;
}

/* Wakes an idle worker for queued work; true if there was one. */
bool async_wake_idle(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	struct async_worker *w = async_claim_idle(pool);

	if (w)
		wake_up_process(w->task);
	return w;
}

/*
 * Gets queued work going after it was queued or a worker was lost: claims
 * an idle worker unless enough are already on their way, to be woken from
 * @wake_q once the lock is dropped, so that it does not wait for the lock
 * as soon as it runs.  If no worker is left at all, moves the work to
 * @orphans, to complete without running; but for a batch still shared,
 * whose submitter does that itself.
 */
void async_pool_kick(struct async_pool *pool,
		     struct async_orphans *orphans,
		     struct wake_q_head *wake_q)
	__must_hold(&pool->ctx->lock)
{
	struct async_batch *batch, *next;
	struct async_worker *w;

	if (!pool->nr_workers) {
		/* The submitter of a shared batch cancels what it left. */
		list_for_each_entry_safe(batch, next, &pool->queue, queue_node) {
			if (!batch->sharing)
				list_move_tail(&batch->queue_node,
					       &orphans->batches);
		}
		if (list_empty(&pool->queue))
			pool->nr_blocking = 0;
		list_splice_init(&pool->works, &orphans->works);
		pool->nr_works = 0;
	} else if (async_pool_wants_worker(pool)) {
		w = async_claim_idle(pool);
		if (w)
			wake_q_add(wake_q, w->task);
	}
}

/* Counts a worker on its way before it exists, so that only one is made. */
void async_reserve_worker(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	pool->nr_workers++;
	pool->nr_waking++;
	pool->refs++;
}

/* Undoes a reservation whose worker could not be created. */
void async_unreserve_worker(struct async_pool *pool,
			    struct async_orphans *orphans,
			    struct wake_q_head *wake_q)
	__must_hold(&pool->ctx->lock)
{
	pool->nr_workers--;
	pool->nr_waking--;
	async_orphans_init(orphans);
	async_pool_kick(pool, orphans, wake_q);
	/* The caller holds a pin or is a worker: the pool lives on. */
	WARN_ON_ONCE(async_pool_unref(pool));
}

/*
 * Creates a worker reserved with async_reserve_worker().  The caller is
 * the pool's submitter or one of its workers, so the new thread shares
 * their files, fs and namespaces.
 *
 * The new thread takes our subjective creds as its own: a copy, so that no
 * one else has them.  An entry's override is then never the worker's real
 * creds, and what refuses to change overridden creds (an LSM attribute in
 * procfs) refuses to change the worker's.
 */
int async_spawn_worker(struct async_pool *pool)
{
	const struct cred *old_cred;
	struct async_worker *w;
	struct task_struct *tsk;
	struct cred *cred;

	/* Never a copy of an entry's overridden creds. */
	WARN_ON_ONCE(current_cred() != current_real_cred());
	/*
	 * A thread made once the process is exiting or execing would miss
	 * the kill: a worker that took its SIGKILL has none pending to stop
	 * copy_process().
	 */
	if ((READ_ONCE(current->signal->flags) & SIGNAL_GROUP_EXIT) ||
	    READ_ONCE(current->signal->group_exec_task))
		return -EINTR;
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;
	cred = prepare_creds();
	if (!cred) {
		kfree(w);
		return -ENOMEM;
	}
	w->pool = pool;
	INIT_LIST_HEAD(&w->idle_node);
	INIT_LIST_HEAD(&w->busy_node);
	old_cred = override_creds(cred);
	tsk = create_io_thread(async_worker_fn, w, NUMA_NO_NODE);
	revert_creds(old_cred);
	put_cred(cred);
	if (IS_ERR(tsk)) {
		kfree(w);
		return PTR_ERR(tsk);
	}
	w->task = tsk;
	wake_up_new_task(tsk);
	return 0;
}

/* async_spawn_worker(), and on failure the reservation is undone. */
static int async_create_worker(struct async_pool *pool)
{
	struct async_orphans orphans;
	int err = async_spawn_worker(pool);
	DEFINE_WAKE_Q(wake_q);

	if (err) {
		spin_lock(&pool->ctx->lock);
		async_unreserve_worker(pool, &orphans, &wake_q);
		spin_unlock(&pool->ctx->lock);
		wake_up_q(&wake_q);
		/* Only a fatal signal takes the other workers: the process is dying. */
		async_cancel_orphans(&orphans);
	}
	return err;
}

/*
 * A worker about to run a chain or a work recruits up to two more while
 * more workers are wanted than are on their way (async_pool_wants_worker()),
 * so that the lines along which workers are made can double.  Creating a
 * thread fails while a signal is pending or under a transient shortage:
 * take the interruption and try again.  If it still fails, the queued
 * chains wait for this worker or another one of the pool, as they do at
 * the worker bound.
 */
void async_worker_recruit(struct async_worker *w)
{
	struct async_pool *pool = w->pool;
	struct async_ctx *ctx = pool->ctx;
	int tries = 0, recruits = 0, err;

	for (;;) {
		spin_lock(&ctx->lock);
		if (recruits == ASYNC_RECRUITS || !async_pool_wants_worker(pool)) {
			spin_unlock(&ctx->lock);
			return;
		}
		if (async_wake_idle(pool)) {
			spin_unlock(&ctx->lock);
			recruits++;
			continue;
		}
		if (pool->nr_workers >= ctx->max_workers) {
			spin_unlock(&ctx->lock);
			return;
		}
		async_reserve_worker(pool);
		spin_unlock(&ctx->lock);

		err = async_create_worker(pool);
		if (!err) {
			recruits++;
			continue;
		}
		if (++tries == ASYNC_CREATE_TRIES)
			return;
		if (err != -EAGAIN && err != -ENOMEM && !async_restartable(err))
			return;
		if (!async_worker_signals(w))
			return;
	}
}

/*
 * Whether a worker about to run work should make sure another is idle:
 * chains are queued, or may be by a submitter that has the pool pinned
 * (and counted on an idle worker, or this one, when it prepared), and
 * none is idle or on its way.
 */
bool async_pool_wants_spare(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	/* A parked chain comes back to the queue: a worker must be free. */
	return (pool->pins || pool->nr_parked || !list_empty(&pool->queue)) &&
	       async_pool_lacks_spare(pool);
}

/*
 * Before a worker runs work that may block while chains are queued, or
 * may be (async_pool_wants_spare()): makes sure another worker is idle or
 * on its way, to take them if this one sleeps (async_worker_sleeping()
 * cannot make one); one of them may be what this one waits for.  As for a
 * recruit, a transient failure is retried.  A dying worker makes none: a
 * thread made now would miss the kill.
 */
void async_worker_keep_spare(struct async_worker *w)
{
	struct async_pool *pool = w->pool;
	struct async_ctx *ctx = pool->ctx;
	int tries = 0, err;

	for (;;) {
		if (w->dying)
			return;
		spin_lock(&ctx->lock);
		if (!async_pool_wants_spare(pool)) {
			spin_unlock(&ctx->lock);
			return;
		}
		async_reserve_worker(pool);
		spin_unlock(&ctx->lock);

		err = async_create_worker(pool);
		if (!err || ++tries == ASYNC_CREATE_TRIES)
			return;
		if (err != -EAGAIN && err != -ENOMEM && !async_restartable(err))
			return;
		if (!async_worker_signals(w))
			return;
	}
}

/* The last worker to go cancels what is still queued: the process is dying. */
void async_worker_exit(struct async_worker *w)
	__releases(&w->pool->ctx->lock)
{
	struct async_pool *pool = w->pool;
	struct async_pool *dead;
	struct async_orphans orphans;
	DEFINE_WAKE_Q(wake_q);

	/* The scheduler's hooks must not see @w freed, nor io-wq's see it. */
	async_worker_rest(w);
	current->worker_private = NULL;
	current->flags &= ~PF_ASYNC_WORKER;
	pool->nr_workers--;
	async_orphans_init(&orphans);
	async_pool_kick(pool, &orphans, &wake_q);
	dead = async_pool_unref(pool);
	spin_unlock(&pool->ctx->lock);
	wake_up_q(&wake_q);

	async_cancel_orphans(&orphans);
	async_pool_free(dead);
	kfree(w);
}

/**
 * async_queue_chains() - hand the waiting chains of a batch to the workers
 * @batch: The batch, as async_run_inline() left it.
 * @pool: The submitter's pool, got with a worker prepared if
 *	@nr_punted (async_pool_get()).
 * @nr_punted: How many of its chains wait for a worker.
 * @nr_blocking: How many of those are expected to block.
 *
 * Also arms the timers of its sleeps.
 *
 * Other chains wake workers until as many run as there are CPUs, and
 * another only once one sleeps, which keeps few threads busy with quick
 * entries; chains expected to block each wake an idle worker at once.
 */
void async_queue_chains(struct async_batch *batch, struct async_pool *pool,
			unsigned int nr_punted, unsigned int nr_blocking)
{
	struct async_ctx *ctx = batch->ctx;
	struct async_orphans orphans;
	struct async_worker *w;
	DEFINE_WAKE_Q(wake_q);

	async_orphans_init(&orphans);
	spin_lock(&ctx->lock);
	list_add_tail(&batch->node, &ctx->batches);
	async_arm_timers(batch);
	if (nr_punted) {
		list_add_tail(&batch->queue_node, &pool->queue);
		pool->nr_blocking += nr_blocking;
		/* Only a fatal signal takes the last worker of a pinned pool. */
		async_pool_kick(pool, &orphans, &wake_q);
	}
	/* Woken once the lock is dropped: there may be many. */
	while (pool->nr_waking < nr_blocking && (w = async_claim_idle(pool)))
		wake_q_add(&wake_q, w->task);
	spin_unlock(&ctx->lock);
	wake_up_q(&wake_q);
	async_cancel_orphans(&orphans);
}
