// SPDX-License-Identifier: GPL-2.0
/*
 * Link timeouts: an entry that bounds the time the entry before it takes.
 *
 * An ASYNC_OP_LINK_TIMEOUT entry follows its target in a chain.  When the
 * chain reaches the target, in the submitting thread or on a worker, an
 * hrtimer starts, and holds no thread.  If it fires before the chain
 * reaches the timeout entry, a kworker cancels the target as
 * ASYNC_SUBMIT_CANCEL would, and the timeout entry completes with -ETIME;
 * else the entry stops the timer and completes with -ECANCELED.  The
 * entries after it go on as the target's result says, as io_uring's
 * IORING_OP_LINK_TIMEOUT does.
 *
 * The timers live in their batch, which an armed one holds: one that
 * fires after its chain ended some other way (cancelled, with no worker
 * left) finds its batch.  The last thread to exit, and exec, stop those
 * still armed.
 */

#include <linux/async_syscall.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include <linux/workqueue.h>

#include "async_syscall.h"

enum async_link_timeout_state {
	ASYNC_LT_IDLE,		/* the chain has not reached the target */
	ASYNC_LT_ARMED,
	ASYNC_LT_FIRED,		/* the time ran out */
	ASYNC_LT_STOPPED,	/* stopped before it fired */
};

/**
 * struct async_link_timeout - the timer of a link timeout entry
 * @timer: The timer, relative to when the chain reaches the target.
 * @fired_node: Link in &async_ctx.link_timeouts_fired once it fired.
 * @node: Link in &async_ctx.link_timeouts while armed.
 * @batch: The batch, which it holds while armed.
 * @req: The link timeout entry; its target is the entry before.
 * @expires: The time the target may take.
 * @state: &enum async_link_timeout_state, under &async_ctx.lock once
 *	armed.
 */
struct async_link_timeout {
	struct hrtimer		timer;
	struct llist_node	fired_node;
	struct list_head	node;
	struct async_batch	*batch;
	struct async_req	*req;
	ktime_t			expires;
	u8			state;
};

/**
 * async_link_timeout_read() - read and check a link timeout entry
 * @args: Its arguments, as copied from the user.
 * @arg_refs: Its argument references.
 * @after_target: It is linked after an entry that is no link timeout.
 *
 * Reads its time, which replaces the pointer in @args[0].
 *
 * Return: 0, -EINVAL or -EFAULT.
 */
int async_link_timeout_read(u64 *args, u32 arg_refs, bool after_target)
{
	struct timespec64 ts;

	if (!after_target || arg_refs || args[1])
		return -EINVAL;
	if (get_timespec64(&ts, u64_to_user_ptr(args[0])))
		return -EFAULT;
	if (!timespec64_valid(&ts))
		return -EINVAL;
	args[0] = ktime_to_ns(timespec64_to_ktime(ts));
	return 0;
}

static enum hrtimer_restart async_link_timeout_fired(struct hrtimer *timer)
{
	struct async_link_timeout *lt =
		container_of(timer, struct async_link_timeout, timer);
	struct async_ctx *ctx = lt->batch->ctx;

	if (llist_add(&lt->fired_node, &ctx->link_timeouts_fired))
		queue_work(system_wq, &ctx->link_timeout_work);
	return HRTIMER_NORESTART;
}

/**
 * async_setup_link_timeouts() - give each link timeout entry its timer
 * @batch: The batch, as read from the user, with @batch->nr_link_timeouts
 *	set.
 *
 * Return: 0 or -ENOMEM.
 */
int async_setup_link_timeouts(struct async_batch *batch)
{
	struct async_link_timeout *lt;
	unsigned int i;

	batch->link_timeouts = NULL;
	if (!batch->nr_link_timeouts)
		return 0;
	lt = kvcalloc(batch->nr_link_timeouts, sizeof(*lt), GFP_KERNEL_ACCOUNT);
	if (!lt)
		return -ENOMEM;
	batch->link_timeouts = lt;
	for (i = 0; i < batch->nr; i++) {
		struct async_req *req = &batch->reqs[i];

		if (!async_req_is_link_timeout(req))
			continue;
		hrtimer_init(&lt->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		lt->timer.function = async_link_timeout_fired;
		lt->batch = batch;
		lt->req = req;
		lt->expires = ns_to_ktime(req->args[0]);
		lt->state = ASYNC_LT_IDLE;
		req->link_timeout = lt++;
	}
	return 0;
}

void async_free_link_timeouts(struct async_batch *batch)
{
	kvfree(batch->link_timeouts);
}

/**
 * async_link_timeout_arm() - start the timer of a link timeout entry
 * @batch: The batch, on the heap.
 * @req: The entry, whose target is about to run.
 *
 * Once per chain: a chain taken again at its target, after a worker took it
 * over or its read waited for a page, keeps the timer it started.
 */
void async_link_timeout_arm(struct async_batch *batch, struct async_req *req)
{
	struct async_link_timeout *lt = req->link_timeout;
	struct async_ctx *ctx = batch->ctx;

	spin_lock(&ctx->lock);
	if (lt->state == ASYNC_LT_IDLE) {
		lt->state = ASYNC_LT_ARMED;
		refcount_inc(&batch->refs);
		list_add_tail(&lt->node, &ctx->link_timeouts);
		hrtimer_start(&lt->timer, lt->expires, HRTIMER_MODE_REL);
	}
	spin_unlock(&ctx->lock);
}

/**
 * async_link_timeout_end() - stop the timer of a link timeout entry
 * @batch: The batch.
 * @req: The entry: its target is done, or will never run.
 *
 * Called as soon as the target's result is known, and again when the chain
 * reaches the entry, for its result, which is the same.
 *
 * Return: -ETIME if the time ran out, else -ECANCELED, as when the entry
 * itself was cancelled, which left the target be.
 */
long async_link_timeout_end(struct async_batch *batch, struct async_req *req)
{
	struct async_link_timeout *lt = req->link_timeout;
	struct async_ctx *ctx = batch->ctx;
	bool stopped = false;
	long res;

	spin_lock(&ctx->lock);
	if (lt->state == ASYNC_LT_ARMED &&
	    hrtimer_try_to_cancel(&lt->timer) == 1) {
		lt->state = ASYNC_LT_STOPPED;
		list_del(&lt->node);
		stopped = true;
	}
	/* Fired, or firing: the kworker cancels the target, if not done. */
	res = (lt->state == ASYNC_LT_ARMED || lt->state == ASYNC_LT_FIRED) &&
	      !req->cancelled ? -ETIME : -ECANCELED;
	spin_unlock(&ctx->lock);
	/* Not the last reference: the chain holds one. */
	if (stopped)
		async_batch_put(batch);
	return res;
}

/**
 * async_link_timeouts_end_chain() - stop the timers of a chain that ends
 * @batch: The batch.
 * @first: The entry the chain ends from, without running.
 *
 * So that an armed timer does not hold the batch until it fires.
 */
void async_link_timeouts_end_chain(struct async_batch *batch,
				   struct async_req *first)
{
	u32 i;

	for (i = 0; i < first->chain_len; i++) {
		if (async_req_is_link_timeout(first + i))
			async_link_timeout_end(batch, first + i);
	}
}

/* Cancels the targets of the timers that fired. */
static void async_link_timeouts_fire(struct work_struct *work)
{
	struct async_ctx *ctx = container_of(work, struct async_ctx,
					     link_timeout_work);
	struct llist_node *fired = llist_del_all(&ctx->link_timeouts_fired);
	struct async_link_timeout *lt, *next;

	llist_for_each_entry_safe(lt, next, llist_reverse_order(fired),
				  fired_node) {
		struct async_batch *batch = lt->batch;
		bool running = false;
		LIST_HEAD(stopped);

		/* Its callback is over before its batch may go. */
		hrtimer_cancel(&lt->timer);
		spin_lock(&ctx->lock);
		lt->state = ASYNC_LT_FIRED;
		list_del(&lt->node);
		/* A cancel of the timeout entry itself leaves the target be. */
		if (!READ_ONCE(lt->req->cancelled))
			async_cancel_req(batch, lt->req - 1, &stopped, &running);
		if (running)
			async_interrupt_cancelled(ctx);
		spin_unlock(&ctx->lock);
		/* A target never sleeps on a timer: its chain is longer. */
		WARN_ON_ONCE(!list_empty(&stopped));
		async_batch_put(batch);
	}
}

/**
 * async_link_timeouts_stop() - stop every link timeout of a process
 * @ctx: The process's context.
 *
 * Called by the last thread to exit, and by exec once the other threads are
 * gone: no timer or kworker may outlive the context.  A timer stopped here
 * cancels nothing; its entry completes with its chain.
 */
void async_link_timeouts_stop(struct async_ctx *ctx)
{
	struct async_link_timeout *lt;
	struct async_batch *batch;

	for (;;) {
		spin_lock(&ctx->lock);
		lt = list_first_entry_or_null(&ctx->link_timeouts,
					      struct async_link_timeout, node);
		if (!lt) {
			spin_unlock(&ctx->lock);
			break;
		}
		batch = lt->batch;
		if (hrtimer_try_to_cancel(&lt->timer) == 1) {
			lt->state = ASYNC_LT_STOPPED;
			list_del(&lt->node);
			spin_unlock(&ctx->lock);
			async_batch_put(batch);
			continue;
		}
		/* It fired: alive until the kworker is done with it. */
		refcount_inc(&batch->refs);
		spin_unlock(&ctx->lock);
		hrtimer_cancel(&lt->timer);
		flush_work(&ctx->link_timeout_work);
		async_batch_put(batch);
	}
	flush_work(&ctx->link_timeout_work);
}

void async_ctx_init_link_timeouts(struct async_ctx *ctx)
{
	INIT_LIST_HEAD(&ctx->link_timeouts);
	init_llist_head(&ctx->link_timeouts_fired);
	INIT_WORK(&ctx->link_timeout_work, async_link_timeouts_fire);
}
