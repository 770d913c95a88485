// SPDX-License-Identifier: GPL-2.0
/*
 * The wait of %ASYNC_SUBMIT_WAIT once a signal has interrupted it.
 *
 * A signal that runs no handler (one ignored by default that another
 * thread blocked, a stop and a continue) must not end the wait, as it ends
 * no futex_wait().  The call cannot restart as it is, which would submit
 * the entries again.  The restart waits for the same batch, which it finds
 * by its index in &async_ctx.waits and checks by a number no other batch
 * ever has.  It does not wait for whatever the caller's array holds by
 * then: the caller may have unmapped it, or submitted it again from
 * another thread.  A batch that is no longer there is done.
 */

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/restart_block.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/thread_info.h>
#include <linux/xarray.h>

#include "async_syscall.h"

/* Global, so that no reused batch and no other process's batch matches. */
static atomic64_t async_last_wait_id = ATOMIC64_INIT(0);

/* The pending batch of @ctx that @restart waits for, with a reference. */
static struct async_batch *async_find_waited(struct async_ctx *ctx,
					     struct restart_block *restart)
{
	u64 wait_id = restart->async_wait.wait_id;
	struct async_batch *batch;

	if (!wait_id)
		return NULL;
	spin_lock(&ctx->lock);
	/* Erased under the lock before its chains drop their reference. */
	batch = xa_load(&ctx->waits, restart->async_wait.index);
	if (batch && batch->wait_id == wait_id)
		refcount_inc(&batch->refs);
	else
		batch = NULL;
	spin_unlock(&ctx->lock);
	return batch;
}

static long async_wait_restart(struct restart_block *restart)
{
	/* Pairs with the release in async_ctx_get(). */
	struct async_ctx *ctx = smp_load_acquire(&current->signal->async_ctx);
	struct async_batch *batch = NULL;
	int ret = 0;

	if (ctx)
		batch = async_find_waited(ctx, restart);
	if (batch) {
		ret = wait_for_completion_interruptible(&batch->all_done);
		async_batch_put(batch);
	}
	if (ret)
		return -ERESTART_RESTARTBLOCK;
	return restart->async_wait.nr;
}

/**
 * async_wait_interrupted() - let a signal without a handler restart a wait
 * @batch: The batch waited for, which the caller holds.
 * @nr: The number of its entries, the call's return value.
 *
 * A handler makes the call fail with %EINTR instead; the entries go on.
 *
 * Return: -ERESTART_RESTARTBLOCK; @nr if the batch is done by now; or
 * -EINTR, as for a handler, if there is no memory to index it.
 */
long async_wait_interrupted(struct async_batch *batch, unsigned int nr)
{
	struct restart_block *restart = &current->restart_block;
	u64 wait_id = atomic64_inc_return(&async_last_wait_id);
	struct async_ctx *ctx = batch->ctx;
	bool pending;
	u32 index;

	if (xa_alloc(&ctx->waits, &index, batch, xa_limit_32b,
		     GFP_KERNEL_ACCOUNT))
		return -EINTR;
	spin_lock(&ctx->lock);
	/* Off the list, async_end_chains() no longer erases it. */
	pending = !list_empty(&batch->node);
	if (pending) {
		batch->wait_id = wait_id;
		batch->wait_index = index;
	} else {
		xa_erase(&ctx->waits, index);
	}
	spin_unlock(&ctx->lock);
	if (!pending)
		return nr;
	restart->async_wait.wait_id = wait_id;
	restart->async_wait.index = index;
	restart->async_wait.nr = nr;
	return set_restart_fn(restart, async_wait_restart);
}
