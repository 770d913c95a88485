// SPDX-License-Identifier: GPL-2.0
/*
 * A batch shared with the workers while its submitter still runs it.
 *
 * Its chains are queued as those left for workers are, and the submitter
 * takes each one under &async_ctx.lock before it runs it, as a worker
 * does: whoever comes first runs it.  run.c decides when to share, and
 * runs the submitter's part.
 */

#include <linux/sched/wake_q.h>

#include "async_syscall.h"

/**
 * async_share() - let workers take chains the submitter has yet to run
 * @batch: The batch, run inline up to entry @next.
 * @pool: The submitter's pool.
 * @next: The first entry of the chains not run yet.
 * @nr_punted: Chains left for workers so far.
 * @nr_blocking: How many of those are expected to block.
 *
 * The batch is queued as async_queue_chains() would queue it, with the
 * chains from @next on as well, and an idle worker is woken for them.
 * From then on the submitter takes each chain under &async_ctx.lock
 * before it runs it, as a worker does, and whoever comes first runs it:
 * a worker that comes late finds nothing left and costs the submitter
 * nothing but the wakeup.
 *
 * Return: Whether the batch is shared; not if no worker is idle.
 */
bool async_share(struct async_batch *batch, struct async_pool *pool,
		 unsigned int next, unsigned int nr_punted,
		 unsigned int nr_blocking)
{
	struct async_ctx *ctx = batch->ctx;
	unsigned int i, nr_chains = nr_punted;
	struct async_worker *w;
	bool idle;
	DEFINE_WAKE_Q(wake_q);

	/* Should the worker be gone by then, the submitter takes it all. */
	spin_lock(&ctx->lock);
	idle = !list_empty(&pool->idle);
	spin_unlock(&ctx->lock);
	if (!idle)
		return false;

	for (i = next; i < batch->nr; i += batch->reqs[i].chain_len) {
		nr_chains++;
		nr_blocking += async_chain_blocks(&batch->reqs[i]);
	}
	/* Before a worker may complete any of them. */
	async_mark_left(batch, &batch->reqs[next], batch->nr - next);
	/* The chains hold a reference until the last is done. */
	async_batch_pin(batch);
	refcount_inc(&batch->refs);
	atomic_set(&batch->pending, nr_chains);
	batch->shared = true;

	spin_lock(&ctx->lock);
	batch->sharing = true;
	list_add_tail(&batch->node, &ctx->batches);
	batch->next_chain = async_next_chain(batch, 0);
	list_add_tail(&batch->queue_node, &pool->queue);
	pool->nr_blocking += nr_blocking;
	/* One for the quick chains, and one for each that blocks. */
	while (pool->nr_waking < max(nr_blocking, 1U) &&
	       (w = async_claim_idle(pool)))
		wake_q_add(&wake_q, w->task);
	spin_unlock(&ctx->lock);
	wake_up_q(&wake_q);
	return true;
}

/*
 * Takes the chain at @first of a shared batch for the submitter, unless a
 * worker took it first.  A cancel marks its entries but does not interrupt
 * them: they complete without blocking, or go back to the queue.
 */
bool async_claim_chain(struct async_batch *batch,
		       struct async_pool *pool, struct async_req *first)
	__must_hold(&batch->ctx->lock)
{
	unsigned int i, index = first - batch->reqs;

	if (first->state != ASYNC_REQ_QUEUED)
		return false;
	for (i = 0; i < first->chain_len; i++)
		first[i].state = ASYNC_REQ_INLINE;
	if (async_chain_blocks(first))
		pool->nr_blocking--;
	if (batch->next_chain == index) {
		batch->next_chain = async_next_chain(batch, index +
						     first->chain_len);
		if (batch->next_chain == batch->nr)
			list_del_init(&batch->queue_node);
	}
	return true;
}

/*
 * Queues again, for a worker, a chain stopped at @req: by the submitter,
 * or at a read that waited for a page.  @orphans gets the batch if no
 * worker is left, and @wake_q the worker to wake.
 */
void __async_requeue_chain(struct async_batch *batch, struct async_pool *pool,
			   struct async_req *req, struct async_orphans *orphans,
			   struct wake_q_head *wake_q)
	__must_hold(&batch->ctx->lock)
{
	unsigned int i, index = req - batch->reqs;

	for (i = 0; i < req->chain_len; i++)
		req[i].state = ASYNC_REQ_QUEUED;
	batch->next_chain = min(batch->next_chain, index);
	if (list_empty(&batch->queue_node))
		list_add_tail(&batch->queue_node, &pool->queue);
	pool->nr_blocking += async_chain_blocks(req);
	async_pool_kick(pool, orphans, wake_q);
}

/*
 * Queues again a chain the submitter stopped at @req.  A worker makes sure
 * another is idle or on its way before it blocks, so one takes it unless
 * the pool is at its bound.
 */
void async_requeue_chain(struct async_batch *batch,
			 struct async_pool *pool, struct async_req *req)
{
	struct async_ctx *ctx = batch->ctx;
	struct async_orphans orphans;
	DEFINE_WAKE_Q(wake_q);

	async_orphans_init(&orphans);
	spin_lock(&ctx->lock);
	/* With no worker left it keeps the batch, which the submitter ends. */
	__async_requeue_chain(batch, pool, req, &orphans, &wake_q);
	spin_unlock(&ctx->lock);
	wake_up_q(&wake_q);
	async_cancel_orphans(&orphans);
}

/*
 * After a seccomp kill of the submitter no worker starts another chain of
 * the batch: their entries stay pending, as in a batch the submitter runs
 * alone.  Chains a worker has taken were cancelled.  Returns the number of
 * chains taken back; *@nr_entries grows by their entries.
 */
unsigned int async_unqueue_chains(struct async_batch *batch,
				  struct async_pool *pool,
				  unsigned int *nr_entries)
	__must_hold(&batch->ctx->lock)
{
	unsigned int n = 0;

	while (batch->next_chain < batch->nr) {
		struct async_req *first = &batch->reqs[batch->next_chain];

		if (WARN_ON_ONCE(!async_claim_chain(batch, pool, first)))
			break;
		__async_pagewait_forget(batch, first);
		*nr_entries += first->chain_len;
		n++;
	}
	return n;
}
