// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeps that hold no thread.
 *
 * An entry that only sleeps, nanosleep() or clock_nanosleep() on a clock
 * an hrtimer runs, in a chain of its own, arms an hrtimer in the
 * submitting thread instead of blocking a worker.  The timer's expiry
 * queues the entry on its process's list of fired sleeps, and a kworker
 * completes them.  The kworker must never fault on user memory: it could
 * wait for a FUSE server or a userfaultfd forever, and it has neither the
 * submitter's protection keys nor its tagged-address ABI.  So the pages of
 * the entry's result and done word are pinned at submit, in the submitting
 * thread, and written through the kernel's mapping; the kworker takes the
 * process's mm only for the futex key, which is private to the mm.  An
 * entry whose words cannot be pinned for long (a shared file mapping)
 * sleeps on a worker.
 *
 * A cancel stops the timer and completes the entry in the cancelling
 * thread as an interrupted sleep: -EINTR, with the time left written back
 * as nanosleep() does.  The last thread to exit and exec stop the sleeps
 * still armed the same way, so that no timer outlives the process's mm or
 * its context.
 */

#include <linux/async_syscall.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/time64.h>
#include <linux/time_namespace.h>
#include <linux/workqueue.h>

#include "async_syscall.h"

/**
 * struct async_timer - the hrtimer of a sleep that holds no thread
 * @timer: The timer.
 * @fired_node: Link in &async_ctx.fired once it has fired.
 * @node: Link in &async_ctx.timers from when it is armed until its entry
 *	completes, under &async_ctx.lock.
 * @batch: The batch of the entry.
 * @req: The entry.
 * @rem: Where the time left goes if the sleep is interrupted, or NULL.
 * @mode: %HRTIMER_MODE_REL or %HRTIMER_MODE_ABS.
 * @pages: The pinned pages of the entry's result and done word: the same
 *	page twice when their addresses share one.
 * @nr_pinned: How many of @pages are pinned and counted: 1 or 2.
 */
struct async_timer {
	struct hrtimer		timer;
	struct llist_node	fired_node;
	struct list_head	node;
	struct async_batch	*batch;
	struct async_req	*req;
	void __user		*rem;
	enum hrtimer_mode	mode;
	struct page		*pages[2];
	unsigned int		nr_pinned;
};

/* The clocks whose sleeps are common_nsleep() or common_nsleep_timens(). */
static bool async_sleep_clock_ok(clockid_t clock)
{
	switch (clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		return true;
	}
	return false;
}

/* As the system calls read it: -EFAULT first, then -EINVAL. */
static int async_sleep_read(struct async_sleep *sleep, u64 uts)
{
	struct timespec64 ts;

	if (get_timespec64(&ts, u64_to_user_ptr(uts)))
		return -EFAULT;
	if (!timespec64_valid(&ts))
		return -EINVAL;
	sleep->expires = timespec64_to_ktime(ts);
	return 0;
}

/* nanosleep(rqtp, rmtp) */
int async_sleep_nanosleep(const u64 *args, struct async_sleep *sleep)
{
	if (!sleep)
		return 0;
	sleep->clock = CLOCK_MONOTONIC;
	sleep->mode = HRTIMER_MODE_REL;
	sleep->rem = u64_to_user_ptr(args[1]);
	return async_sleep_read(sleep, args[0]);
}

/* clock_nanosleep(which_clock, flags, rqtp, rmtp) */
int async_sleep_clock_nanosleep(const u64 *args, struct async_sleep *sleep)
{
	clockid_t clock = args[0];
	int flags = args[1];
	int ret;

	if (!async_sleep_clock_ok(clock))
		return -EAGAIN;
	if (!sleep)
		return 0;
	sleep->clock = clock;
	sleep->mode = HRTIMER_MODE_REL;
	sleep->rem = u64_to_user_ptr(args[3]);
	ret = async_sleep_read(sleep, args[2]);
	if (ret || !(flags & TIMER_ABSTIME))
		return ret;
	sleep->mode = HRTIMER_MODE_ABS;
	sleep->rem = NULL;
	if (clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME)
		sleep->expires = timens_ktime_to_host(clock, sleep->expires);
	return 0;
}

/**
 * async_req_timed() - whether an entry may sleep on a timer, not a worker
 * @req: The first entry of a chain, as read from the user, with its chain
 *	length set.
 * @def: Its operation.
 *
 * Only an entry in a chain of its own: an entry after it would need a
 * thread anyway.  Reads no user memory.
 *
 * Return: true if it may.
 */
bool async_req_timed(const struct async_req *req,
		     const struct async_op_def *def)
{
	return req->chain_len == 1 && def->sleep &&
	       !(req->flags & ASYNC_SYSCALL_FORCE_ASYNC) &&
	       !def->sleep(req->args, NULL);
}

static struct async_syscall __user *async_timer_uentry(struct async_timer *t)
{
	return async_req_uentry(t->batch, t->req);
}

/*
 * Long-term pins count in the mm's pinned_vm, under RLIMIT_MEMLOCK unless
 * the submitter has CAP_IPC_LOCK, as the RDMA core's do.  *@ipc_lock is
 * -1 until the capability is asked for, once per call.
 */
static int async_account_pinned(struct mm_struct *mm, long nr_pages,
				int *ipc_lock)
{
	u64 limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (atomic64_add_return(nr_pages, &mm->pinned_vm) <= limit)
		return 0;
	if (*ipc_lock < 0)
		*ipc_lock = capable(CAP_IPC_LOCK);
	if (*ipc_lock)
		return 0;
	atomic64_sub(nr_pages, &mm->pinned_vm);
	return -ENOMEM;
}

/* Pins the page or pages of the result and the done word of @t's entry. */
static int async_timer_pin(struct async_timer *t, int *ipc_lock)
{
	struct async_syscall __user *ue = async_timer_uentry(t);
	unsigned long result = (unsigned long)&ue->result;
	unsigned long done = (unsigned long)&ue->done;
	unsigned int gup = FOLL_WRITE | FOLL_LONGTERM;
	struct mm_struct *mm = t->batch->mm;
	long nr_pages = 2;

	/* By address: two mappings of one page are two pins. */
	if (PAGE_ALIGN_DOWN(result) == PAGE_ALIGN_DOWN(done))
		nr_pages = 1;
	if (async_account_pinned(mm, nr_pages, ipc_lock))
		return -ENOMEM;
	if (pin_user_pages_fast(result, 1, gup, &t->pages[0]) != 1)
		goto unaccount;
	t->pages[1] = t->pages[0];
	if (nr_pages == 2 &&
	    pin_user_pages_fast(done, 1, gup, &t->pages[1]) != 1) {
		unpin_user_page(t->pages[0]);
		goto unaccount;
	}
	t->nr_pinned = nr_pages;
	return 0;
unaccount:
	t->pages[0] = NULL;
	atomic64_sub(nr_pages, &mm->pinned_vm);
	return -EFAULT;
}

/* Unpins @t's pages, once written or never to be. */
static void async_timer_unpin(struct async_timer *t, bool written)
{
	if (!t->pages[0])
		return;
	unpin_user_pages_dirty_lock(t->pages, t->nr_pinned, written);
	t->pages[0] = NULL;
	atomic64_sub(t->nr_pinned, &t->batch->mm->pinned_vm);
}

/**
 * async_setup_timers() - make room for the sleeps that hold no thread
 * @batch: The batch, as read from the user, with @batch->nr_timed set to
 *	the number of its entries that async_req_timed() accepts.
 * @audited: Whether audit collects records for the submitter, who then
 *	runs nothing itself.
 *
 * Each entry that may sleep on a timer gets the next &struct async_timer,
 * with the pages of its words pinned, and %ASYNC_REQ_TIMER.  One whose
 * pages cannot be pinned for long, or beyond RLIMIT_MEMLOCK without
 * CAP_IPC_LOCK, sleeps on a worker.
 *
 * Return: 1 if some entry may need a worker, 0 if none does, or -ENOMEM.
 */
int async_setup_timers(struct async_batch *batch, bool audited)
{
	unsigned int i, n = 0, nr_chains = 0;
	int ipc_lock = -1;

	batch->next_timer = 0;
	batch->nr_armed = 0;
	batch->timers = NULL;
	if (audited || !batch->nr_timed) {
		batch->nr_timed = 0;
		return 1;
	}
	batch->timers = kvcalloc(batch->nr_timed, sizeof(*batch->timers),
				 GFP_KERNEL_ACCOUNT);
	if (!batch->timers)
		return -ENOMEM;
	for (i = 0; i < batch->nr; i += batch->reqs[i].chain_len) {
		struct async_req *req = &batch->reqs[i];
		struct async_timer *t = &batch->timers[n];

		nr_chains++;
		if (!async_req_timed(req, async_req_def(req)))
			continue;
		t->batch = batch;
		t->req = req;
		/* Not pinned: a worker runs the real call. */
		if (async_timer_pin(t, &ipc_lock))
			continue;
		t->req->flags |= ASYNC_REQ_TIMER;
		n++;
	}
	batch->nr_timed = n;
	return n < nr_chains;
}

void async_free_timers(struct async_batch *batch)
{
	unsigned int i;

	if (!batch->timers)
		return;
	for (i = 0; i < batch->nr_timed; i++)
		async_timer_unpin(&batch->timers[i], false);
	kvfree(batch->timers);
}

static enum hrtimer_restart async_timer_fired(struct hrtimer *timer)
{
	struct async_timer *t = container_of(timer, struct async_timer, timer);
	struct async_ctx *ctx = t->batch->ctx;

	if (llist_add(&t->fired_node, &ctx->fired))
		queue_work(system_wq, &ctx->fire_work);
	return HRTIMER_NORESTART;
}

/**
 * async_sleep_prepare() - make an entry's sleep a timer, armed later
 * @batch: The batch.
 * @req: The entry, with %ASYNC_REQ_TIMER.
 * @sleep: The sleep, as the entry's ->sleep() method read it.
 *
 * The submitter reaches the entries in the order of their timers.  The
 * timer starts in async_arm_timers(), once the batch is queued.
 *
 * Return: false if @req has no timer, which cannot happen.
 */
bool async_sleep_prepare(struct async_batch *batch, struct async_req *req,
			 const struct async_sleep *sleep)
{
	struct async_timer *t;

	while (batch->next_timer < batch->nr_timed &&
	       batch->timers[batch->next_timer].req != req)
		batch->next_timer++;
	if (WARN_ON_ONCE(batch->next_timer == batch->nr_timed))
		return false;
	t = &batch->timers[batch->next_timer++];
	/* As for a sleeping task: hard interrupt expiry for real time only. */
	t->mode = sleep->mode;
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && rt_or_dl_task_policy(current))
		t->mode |= HRTIMER_MODE_HARD;
	hrtimer_init(&t->timer, sleep->clock, t->mode);
	t->timer.function = async_timer_fired;
	hrtimer_set_expires_range_ns(&t->timer, sleep->expires,
				     current->timer_slack_ns);
	t->rem = sleep->rem;
	req->timer = t;
	req->state = ASYNC_REQ_TIMED;
	batch->nr_armed++;
	return true;
}

/* Starts the timers async_sleep_prepare() made ready. */
void async_arm_timers(struct async_batch *batch)
	__must_hold(&batch->ctx->lock)
{
	unsigned int i;

	for (i = 0; i < batch->nr_timed; i++) {
		struct async_timer *t = &batch->timers[i];

		if (t->req->state != ASYNC_REQ_TIMED)
			continue;
		list_add_tail(&t->node, &batch->ctx->timers);
		hrtimer_start_expires(&t->timer, t->mode);
	}
}

/*
 * The result of a sleep stopped early, as do_nanosleep() makes it: -EINTR,
 * or with a @t->rem to write for a relative sleep, done if no time was
 * left, else -EINTR and the time left there.  In a thread of the process,
 * whose mm the entry's is.
 */
static long async_timer_interrupted(struct async_timer *t)
{
	ktime_t left = hrtimer_expires_remaining(&t->timer);
	struct timespec64 rmt;
	u64 rights;
	int ret;

	if (!t->rem)
		return -EINTR;
	if (left <= 0)
		return 0;
	rmt = ktime_to_timespec64(left);
	/* With the submitter's protection keys, whichever thread cancels. */
	rights = arch_async_pkey_rights();
	arch_async_set_pkey_rights(t->batch->pkey_rights);
	ret = put_timespec64(&rmt, t->rem);
	arch_async_set_pkey_rights(rights);
	return ret ? -EFAULT : -EINTR;
}

/*
 * Writes the result, then the done word, through the pinned pages, and
 * returns whether to wake the futex, as async_complete() does through the
 * user's mapping.
 */
static bool async_timer_write(struct async_timer *t, long res)
{
	struct async_syscall __user *ue = async_timer_uentry(t);
	unsigned long done_off = offset_in_page(&ue->done);
	s64 *result;
	u32 *done;
	bool wake;

	t->req->result = res;
	result = kmap_local_page(t->pages[0]) +
		 offset_in_page(&ue->result);
	WRITE_ONCE(*result, res);
	kunmap_local(result);
	done = kmap_local_page(t->pages[1]) + done_off;
	if (t->batch->wake_marked) {
		/* Fully ordered: the result before done. */
		wake = xchg(done, ASYNC_SYSCALL_DONE) == ASYNC_SYSCALL_WAITING;
	} else {
		/* Pairs with the waiter's acquire load of done. */
		smp_store_release(done, ASYNC_SYSCALL_DONE);
		wake = true;
	}
	kunmap_local(done);
	return wake;
}

/*
 * Completes the entry of @t, which its caller took off &async_ctx.timers,
 * and wakes its futex if the caller is in the entry's mm.
 */
static void async_timer_done(struct async_timer *t, long res)
{
	struct async_batch *batch = t->batch;
	struct async_req *req = t->req;

	bool wake = async_timer_write(t, res);

	async_timer_unpin(t, true);
	if (wake && current->mm == batch->mm)
		do_futex(&async_timer_uentry(t)->done, FUTEX_WAKE_PRIVATE,
			 INT_MAX, NULL, NULL, 0, 0);
	async_trace_ended(batch, req, res);
	/* May free the batch, and @t with it. */
	async_chain_done(batch, req);
}

/* Takes @t off the armed timers; its entry is done once reported. */
static void async_timer_unlist(struct async_timer *t)
	__must_hold(&t->batch->ctx->lock)
{
	list_del(&t->node);
	t->req->state = ASYNC_REQ_DONE;
}

/*
 * Completes the fired sleeps.  Each timer's callback is over before its
 * entry completes, so that once &async_ctx.timers is empty no callback can
 * queue this work again.  The mm is only for the futex keys: nothing here
 * touches user memory.
 */
static void async_timers_fire(struct work_struct *work)
{
	struct async_ctx *ctx = container_of(work, struct async_ctx,
					     fire_work);
	struct llist_node *fired = llist_del_all(&ctx->fired);
	struct async_timer *t, *next;
	struct mm_struct *mm = NULL;

	llist_for_each_entry_safe(t, next, llist_reverse_order(fired),
				  fired_node) {
		hrtimer_cancel(&t->timer);
		if (t->batch->mm != current->mm) {
			if (mm) {
				kthread_unuse_mm(mm);
				mmput(mm);
				mm = NULL;
			}
			if (mmget_not_zero(t->batch->mm)) {
				mm = t->batch->mm;
				kthread_use_mm(mm);
			}
		}
		spin_lock(&ctx->lock);
		async_timer_unlist(t);
		spin_unlock(&ctx->lock);
		async_timer_done(t, 0);
		cond_resched();
	}
	if (mm) {
		kthread_unuse_mm(mm);
		mmput(mm);
	}
}

/**
 * async_timer_cancel() - stop the sleep of a cancelled entry
 * @req: The entry, %ASYNC_REQ_TIMED.
 * @stopped: Where a stopped timer goes, for async_timers_stopped().
 *
 * Return: Whether the timer was stopped before it fired; if not, the
 * entry completes as a finished sleep.
 */
bool async_timer_cancel(struct async_req *req, struct list_head *stopped)
	__must_hold(&req->timer->batch->ctx->lock)
{
	struct async_timer *t = req->timer;

	if (hrtimer_try_to_cancel(&t->timer) != 1)
		return false;
	async_timer_unlist(t);
	list_add_tail(&t->node, stopped);
	return true;
}

/**
 * async_timers_stopped() - complete the entries of stopped sleeps
 * @stopped: Timers async_timer_cancel() stopped.
 * @write_rem: Write the time left where the entries asked for it.
 *
 * Called in a thread of the process, without &async_ctx.lock.
 */
void async_timers_stopped(struct list_head *stopped, bool write_rem)
{
	struct async_timer *t, *next;

	list_for_each_entry_safe(t, next, stopped, node) {
		list_del(&t->node);
		async_timer_done(t, write_rem && current->mm == t->batch->mm ?
				    async_timer_interrupted(t) : -EINTR);
	}
}

void async_ctx_init_timers(struct async_ctx *ctx)
{
	INIT_LIST_HEAD(&ctx->timers);
	init_llist_head(&ctx->fired);
	INIT_WORK(&ctx->fire_work, async_timers_fire);
}

/**
 * __async_syscall_stop_sleeps() - stop every sleep of a process
 * @ctx: The process's context.
 *
 * Called by the last thread of the process to exit, and by exec once the
 * other threads are gone, while the mm is still the entries' one.  The
 * sleeps end with -EINTR, as they would on a worker, but write no time
 * left: nobody will read it.
 */
void __async_syscall_stop_sleeps(struct async_ctx *ctx)
{
	struct async_batch *batch;
	struct async_timer *t;
	LIST_HEAD(stopped);

	async_pagewaits_stop(ctx);
	async_link_timeouts_stop(ctx);
	for (;;) {
		batch = NULL;
		spin_lock(&ctx->lock);
		t = list_first_entry_or_null(&ctx->timers, struct async_timer,
					     node);
		if (t && !async_timer_cancel(t->req, &stopped)) {
			/* It fired: alive until async_timers_fire() is done. */
			batch = t->batch;
			refcount_inc(&batch->refs);
		}
		spin_unlock(&ctx->lock);
		if (!t)
			break;
		if (!batch) {
			/* The mm goes: a fault writing rem could wait forever. */
			async_timers_stopped(&stopped, false);
			continue;
		}
		/* Waits for a running callback, which then queues the work. */
		hrtimer_cancel(&t->timer);
		flush_work(&ctx->fire_work);
		async_batch_put(batch);
	}
	flush_work(&ctx->fire_work);
}
