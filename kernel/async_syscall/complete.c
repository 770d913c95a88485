// SPDX-License-Identifier: GPL-2.0
/*
 * The end of an entry, of a chain and of a batch.
 *
 * An entry's result and done word go to the submitter's array, in the
 * order its waiters rely on, and its futex waiters are woken; the last
 * chain of a batch to end drops what the chains hold.
 */

#include <linux/cred.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/futex.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "async_syscall.h"

#include <trace/events/async_syscall.h>

/**
 * async_batch_pin() - hold what the workers need to run a batch
 * @batch: The batch, in its submitter, before any of it may outlive
 *	async_submit(): chains queued or shared, timers armed.
 *
 * A batch that the submitter runs to the end needs none of it: the
 * submitter's own creds, mm and seccomp filters stay for the call, and
 * nothing lists it or waits for it.
 */
void async_batch_pin(struct async_batch *batch)
{
	if (batch->pinned)
		return;
	WARN_ON_ONCE(batch->on_stack);
	INIT_LIST_HEAD(&batch->node);
	init_completion(&batch->all_done);
	batch->wait_id = 0;
	batch->pinned = true;
	batch->cred = get_current_cred();
	mmgrab(batch->mm);
	/* Those the entries so far ran under, or more: filters are only added. */
	batch->seccomp = seccomp_filter_get();
	if (!batch->submit_ns)
		batch->submit_ns = ktime_get_ns();
}

/* Every entry of a batch is held until the batch is freed, done or not. */
void async_batch_put(struct async_batch *batch)
{
	if (!refcount_dec_and_test(&batch->refs))
		return;
	/* Unpinning counts in the mm: before it may go. */
	async_free_timers(batch);
	async_free_link_timeouts(batch);
	if (batch->pinned) {
		put_cred(batch->cred);
		mmdrop(batch->mm);
		seccomp_filter_put(batch->seccomp);
	}
	atomic_sub(batch->nr, &batch->ctx->held);
	async_batch_free(batch);
}

/* Ends @n chains of @batch; the last to end drops what the chains hold. */
void async_end_chains(struct async_batch *batch, unsigned int n)
{
	struct async_ctx *ctx = batch->ctx;

	if (!n || !atomic_sub_and_test(n, &batch->pending))
		return;
	spin_lock(&ctx->lock);
	list_del_init(&batch->node);
	if (batch->wait_id)
		xa_erase(&ctx->waits, batch->wait_index);
	spin_unlock(&ctx->lock);
	complete(&batch->all_done);
	async_batch_put(batch);
}

void async_chain_done(struct async_batch *batch, struct async_req *first)
{
	atomic_sub(first->chain_len, &batch->ctx->inflight);
	async_end_chains(batch, 1);
}

/*
 * With %ASYNC_SUBMIT_WAKE_MARKED the result is stored and the done word
 * exchanged, and only a word a waiter marked is woken.  Returns whether to
 * wake.  The exchange is fully ordered, as the futex operations of every
 * architecture that has HAVE_ARCH_ASYNC_SYSCALL are: it is the release of
 * the result and of the entry's reads.
 */
static bool async_store_done_marked(struct async_syscall __user *ue,
				    long res)
{
	int old, ret;

	for (;;) {
		ret = arch_async_store_done(ue, res, &old);
		if (!ret)
			return old == ASYNC_SYSCALL_WAITING;
		if (ret != -EAGAIN || fatal_signal_pending(current))
			return false;
		/* Contended (arm64 gives up after a number of tries). */
		cond_resched();
	}
}

/*
 * The result goes first, then the done word, then the wakeup.  The done
 * store is a release, by a full barrier or by the ordered exchange: whoever
 * sees it also sees the result, and everything the entry read of the
 * caller's memory was read before the caller may reuse it.  A fault means
 * the caller unmapped the array: the completion is dropped.
 */
void async_complete(struct async_batch *batch, struct async_req *req,
		    long res)
{
	struct async_syscall __user *ue;

	might_fault();
	req->result = res;
	ue = async_req_uentry(batch, req);
	if (batch->wake_marked) {
		if (!async_store_done_marked(ue, res))
			return;
	} else {
		if (!user_write_access_begin(ue, sizeof(*ue)))
			return;
		unsafe_put_user(res, &ue->result, efault);
		/* The result and the entry's reads of user memory before done. */
		smp_mb();
		unsafe_put_user(ASYNC_SYSCALL_DONE, &ue->done, efault);
		user_write_access_end();
	}
	do_futex(&ue->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0, 0);
	return;
efault:
	user_write_access_end();
}

/* Reports an entry that ended without running on a worker or inline. */
void async_trace_ended(struct async_batch *batch, struct async_req *req,
		       long res)
{
	if (trace_async_syscall_complete_enabled())
		trace_async_syscall_complete(req - batch->reqs,
					     async_req_nr(req), res,
					     ktime_get_ns() - batch->submit_ns,
					     0, false);
}
