// SPDX-License-Identifier: GPL-2.0
/*
 * Cancels, and the work a pool holds when its last worker is gone.
 *
 * ASYNC_SUBMIT_CANCEL marks entries under &async_ctx.lock and interrupts
 * the workers running them.  Chains and kernel work left with no worker
 * to run them complete with -ECANCELED, without running.
 */

#include <linux/async_syscall.h>
#include <linux/sched/signal.h>

#include "async_syscall.h"

static void async_cancel_chain(struct async_batch *batch,
			       struct async_req *first, long res)
{
	u32 i;

	async_link_timeouts_end_chain(batch, first);
	async_pagewait_forget(batch, first);
	for (i = 0; i < first->chain_len; i++) {
		struct async_req *req = first + i;

		async_complete(batch, req, res);
		async_trace_ended(batch, req, res);
	}
	async_chain_done(batch, first);
}

/*
 * Completes with @res the waiting chains of @batches, which no worker is
 * left to run.  The last chain done may free its batch.
 */
static void async_cancel_chains(struct list_head *batches, long res)
{
	struct async_batch *batch, *next;
	struct async_req *first;
	bool last;

	list_for_each_entry_safe(batch, next, batches, queue_node) {
		list_del_init(&batch->queue_node);
		do {
			first = async_take_chain(batch);
			/* Never found again by a later requeue of the batch. */
			WRITE_ONCE(first->state, ASYNC_REQ_TAKEN);
			last = batch->next_chain == batch->nr;
			async_cancel_chain(batch, first, res);
		} while (!last);
	}
}

void async_orphans_init(struct async_orphans *orphans)
{
	INIT_LIST_HEAD(&orphans->batches);
	INIT_LIST_HEAD(&orphans->works);
}

void async_cancel_orphans(struct async_orphans *orphans)
{
	struct async_work *work, *next;

	async_cancel_chains(&orphans->batches, -ECANCELED);
	list_for_each_entry_safe(work, next, &orphans->works, node) {
		list_del_init(&work->node);
		async_work_done(work, -ECANCELED);
	}
}

/*
 * Interrupts the workers whose running entry is cancelled: one walk of the
 * busy workers for a whole cancel, however many entries it found running.
 */
void async_interrupt_cancelled(struct async_ctx *ctx)
	__must_hold(&ctx->lock)
{
	struct async_worker *w;

	list_for_each_entry(w, &ctx->busy, busy_node) {
		if (w->req && READ_ONCE(w->req->cancelled))
			set_notify_signal(w->task);
	}
}

/**
 * async_cancel_req() - cancel one entry of a batch
 * @batch: The batch.
 * @req: The entry, in flight or done.
 * @stopped: Where a timer it stops goes, for async_timers_stopped().
 * @running: Set if the entry runs on a worker, for
 *	async_interrupt_cancelled().
 *
 * Return: Whether it was in flight and not cancelled yet.
 */
bool async_cancel_req(struct async_batch *batch, struct async_req *req,
		      struct list_head *stopped, bool *running)
	__must_hold(&batch->ctx->lock)
{
	/* The submitter of a shared batch marks what it ran done. */
	u8 state = READ_ONCE(req->state);

	if (state == ASYNC_REQ_DONE || req->cancelled)
		return false;
	if (state == ASYNC_REQ_TIMED)
		return async_timer_cancel(req, stopped);
	/*
	 * One the submitter runs in a shared batch does not block; it
	 * sees the mark before it runs the entry, as does a worker
	 * that took the chain or takes it once queued again.
	 */
	WRITE_ONCE(req->cancelled, true);
	if (state == ASYNC_REQ_RUNNING)
		*running = true;
	else if (state == ASYNC_REQ_PAGEWAIT)
		async_pagewait_cancel(batch->ctx, req);
	return true;
}

/*
 * Marks the entries of @batch that lie at @uentries + k * @size cancelled,
 * sets *@running if one of them runs, and moves the timers it stops to
 * @stopped.  Returns how many it cancelled.
 */
unsigned int async_cancel_batch(struct async_batch *batch,
				void __user *uentries, unsigned int nr,
				size_t size, struct list_head *stopped,
				bool *running)
	__must_hold(&batch->ctx->lock)
{
	unsigned long start = (unsigned long)uentries;
	unsigned long end = start + (unsigned long)nr * size;
	unsigned long base = (unsigned long)batch->uentries;
	unsigned long stride = batch->entry_size;
	unsigned int i, last, count = 0;

	/* Only the entries inside [start, end): the lock is held throughout. */
	if (end <= base || start >= base + batch->nr * stride)
		return 0;
	i = start > base ? DIV_ROUND_UP(start - base, stride) : 0;
	last = min_t(unsigned long, (end - 1 - base) / stride, batch->nr - 1);
	for (; i <= last; i++) {
		unsigned long addr = base + i * stride;

		if (!((addr - start) % size))
			count += async_cancel_req(batch, &batch->reqs[i],
						  stopped, running);
	}
	return count;
}

/**
 * async_cancel() - cancel entries of earlier calls
 * @uentries: Entries as they were submitted, or a part of them.
 * @nr: Number of entries.
 * @size: Entry size they were submitted with.
 *
 * Entries not started complete with -ECANCELED when a worker reaches them,
 * without running; a running entry gets TIF_NOTIFY_SIGNAL, which ends an
 * interruptible wait; a sleep on a timer ends here, as interrupted; a read
 * parked on a page has its wait taken back, and its chain queued again.
 *
 * The lock is held over the batches held and, of their entries, only those
 * in the range: at most %ASYNC_MAX_HELD of each; then over the busy workers
 * once, if one of the entries runs.
 *
 * Return: The number of entries cancelled.
 */
long async_cancel(void __user *uentries, unsigned int nr, size_t size)
{
	/* Pairs with the release in async_ctx_get(). */
	struct async_ctx *ctx = smp_load_acquire(&current->signal->async_ctx);
	struct async_batch *batch;
	bool running = false;
	LIST_HEAD(stopped);
	long count = 0;

	if (!ctx)
		return 0;
	spin_lock(&ctx->lock);
	list_for_each_entry(batch, &ctx->batches, node)
		count += async_cancel_batch(batch, uentries, nr, size,
					    &stopped, &running);
	if (running)
		async_interrupt_cancelled(ctx);
	spin_unlock(&ctx->lock);
	async_timers_stopped(&stopped, true);
	return count;
}
