// SPDX-License-Identifier: GPL-2.0
/*
 * Worker threads of the submitting process, and how entries run on them.
 *
 * Work is queued by chain.  A worker takes a chain, runs its entries in
 * order and takes the next chain without sleeping.  Before running a chain
 * it recruits one more worker if work is still queued and no other worker
 * is already on its way, so a batch of trivial entries keeps few threads
 * busy while blocking entries fan out to as many as they need.
 */

#include <linux/async_syscall.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/err.h>
#include <linux/futex.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/resume_user_mode.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "async_syscall.h"

#define CREATE_TRACE_POINTS
#include <trace/events/async_syscall.h>

#define ASYNC_WORKER_IDLE	(2 * HZ)

struct async_worker {
	struct async_ctx	*ctx;
	struct task_struct	*task;
	struct list_head	idle_node;
};

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
	INIT_LIST_HEAD(&ctx->queue);
	INIT_LIST_HEAD(&ctx->batches);
	INIT_LIST_HEAD(&ctx->idle);
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
	WARN_ON_ONCE(ctx->nr_workers || !list_empty(&ctx->queue));
	kfree(ctx);
}

void async_batch_put(struct async_batch *batch)
{
	if (!refcount_dec_and_test(&batch->refs))
		return;
	put_cred(batch->cred);
	mmdrop(batch->mm);
	seccomp_filter_put(batch->seccomp);
	kvfree(batch);
}

static struct async_batch *async_req_batch(struct async_req *req)
{
	return container_of(req - req->index, struct async_batch, reqs[0]);
}

static void async_chain_done(struct async_batch *batch, struct async_req *first)
{
	struct async_ctx *ctx = batch->ctx;

	atomic_sub(first->chain_len, &ctx->inflight);
	if (atomic_dec_and_test(&batch->pending)) {
		spin_lock(&ctx->lock);
		list_del(&batch->node);
		spin_unlock(&ctx->lock);
		complete(&batch->all_done);
		async_batch_put(batch);
	}
}

/*
 * The result goes first, then the done word with release ordering, then
 * the wakeup.  A fault means the caller unmapped the array: the completion
 * is dropped.
 */
static void async_complete(struct async_batch *batch, struct async_req *req,
			   long res)
{
	struct async_syscall __user *ue;

	req->result = res;
	ue = batch->uentries + (size_t)req->index * batch->entry_size;
	if (put_user(res, &ue->result))
		return;
	/* Pairs with the waiter's acquire load of the done word. */
	smp_wmb();
	if (put_user(ASYNC_SYSCALL_DONE, &ue->done))
		return;
	do_futex(&ue->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0, 0);
}

static long async_issue(struct async_batch *batch, struct async_req *req)
{
	const struct async_op_def *def = async_op_lookup(req->nr);
	unsigned long refs = req->arg_refs;
	u64 args[ASYNC_NR_ARGS];
	unsigned int n;
	long ret;

	if (WARN_ON_ONCE(IS_ERR(def)))
		return PTR_ERR(def);

	memcpy(args, req->args, sizeof(args));
	for_each_set_bit(n, &refs, ASYNC_NR_ARGS)
		args[n] = batch->reqs[req->args[n]].result;

	if (!async_seccomp_allows(batch, req->nr, args, &ret))
		return ret;
	if (def->issue)
		ret = def->issue(args);
	else
		ret = arch_async_syscall(req->nr, args);

	/* There is no user-mode return to restart from. */
	switch (ret) {
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
		ret = -EINTR;
	}
	return ret;
}

/* Marks @req running; false if it was cancelled before it started. */
static bool async_start(struct async_ctx *ctx, struct async_req *req)
{
	bool cancelled;

	spin_lock(&ctx->lock);
	cancelled = req->cancelled;
	req->state = ASYNC_REQ_RUNNING;
	spin_unlock(&ctx->lock);
	return !cancelled;
}

/*
 * A worker never returns to user mode, where a thread normally drops what
 * a system call left behind.  Drop it here, so it does not leak into the
 * next entry: a cancel's notification; a signal mask set by ppoll() or
 * pselect6(); signals raised on this thread, such as SIGPIPE, which the
 * entry's error already reports.  Then do the work due on the way back
 * to user mode: deferred fput()s, memcg and blkcg throttling, and dropping
 * the request-key cache, which must not serve the next entry's creds.
 */
static void async_finish(struct async_ctx *ctx, struct async_req *req)
{
	/* Only exec changes a thread's sighand, and exec kills workers first. */
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, true);

	spin_lock(&ctx->lock);
	req->state = ASYNC_REQ_DONE;
	spin_unlock(&ctx->lock);

	if (test_thread_flag(TIF_NOTIFY_SIGNAL))
		clear_notify_signal();
	restore_saved_sigmask();
	if (!sigisemptyset(&current->pending.signal)) {
		spin_lock_irq(&sighand->siglock);
		/* Keep a group exit's SIGKILL. */
		if (!__fatal_signal_pending(current)) {
			flush_sigqueue(&current->pending);
			recalc_sigpending();
		}
		spin_unlock_irq(&sighand->siglock);
	}
	if (test_thread_flag(TIF_NOTIFY_RESUME))
		resume_user_mode_work(NULL);
	if (task_work_pending(current))
		task_work_run();
}

static void async_run_chain(struct async_req *first)
{
	struct async_batch *batch = async_req_batch(first);
	struct async_ctx *ctx = batch->ctx;
	const struct cred *old_cred;
	bool failed = false;
	u32 i;

	/* Workers die before exec installs a new mm; never write into one. */
	if (WARN_ON_ONCE(current->mm != batch->mm)) {
		async_chain_done(batch, first);
		return;
	}

	old_cred = override_creds(batch->cred);
	for (i = 0; i < first->chain_len; i++) {
		struct async_req *req = first + i;
		bool traced = trace_start_enabled() || trace_complete_enabled();
		u64 start_ns = traced ? ktime_get_ns() : 0;
		long res = -ECANCELED;

		trace_start(req->index, req->nr, start_ns - batch->submit_ns);
		if (async_start(ctx, req) && !fatal_signal_pending(current) &&
		    (!failed || (req->flags & ASYNC_SYSCALL_RUN_ANYWAY)))
			res = async_issue(batch, req);
		if (res < 0)
			failed = true;
		async_finish(ctx, req);
		async_complete(batch, req, res);
		if (traced)
			trace_complete(req->index, req->nr, res,
				       start_ns - batch->submit_ns,
				       ktime_get_ns() - start_ns);
		cond_resched();
	}
	revert_creds(old_cred);

	spin_lock(&ctx->lock);
	first->runner = NULL;
	spin_unlock(&ctx->lock);
	async_chain_done(batch, first);
}

/* Completes with @res the chains that no worker is left to run. */
static void async_cancel_chains(struct list_head *chains, long res)
{
	struct async_req *first, *next;
	u32 i;

	list_for_each_entry_safe(first, next, chains, node) {
		struct async_batch *batch = async_req_batch(first);

		for (i = 0; i < first->chain_len; i++) {
			async_complete(batch, first + i, res);
			if (trace_complete_enabled())
				trace_complete(first[i].index, first[i].nr, res,
					       ktime_get_ns() - batch->submit_ns, 0);
		}
		async_chain_done(batch, first);
	}
}

static int async_worker_fn(void *data);

/*
 * Wakes an idle worker, or reserves a new one, when work is queued and no
 * worker is already on its way to it.  Returns true when the caller must
 * create the reserved worker with async_create_worker().
 */
static bool async_recruit(struct async_ctx *ctx)
	__must_hold(&ctx->lock)
{
	struct async_worker *w;

	if (list_empty(&ctx->queue) || ctx->nr_waking)
		return false;
	w = list_first_entry_or_null(&ctx->idle, struct async_worker, idle_node);
	if (w) {
		list_del_init(&w->idle_node);
		ctx->nr_waking++;
		wake_up_process(w->task);
		return false;
	}
	if (ctx->nr_workers >= ctx->max_workers)
		return false;
	ctx->nr_workers++;
	ctx->nr_waking++;
	return true;
}

/*
 * Creates a worker reserved by async_recruit() or async_ensure_worker().  If
 * that fails and no worker is left, the chains other callers queued in the
 * meantime, counting on this one, complete with -EAGAIN.
 */
static int async_create_worker(struct async_ctx *ctx)
{
	struct async_worker *w;
	struct task_struct *tsk;
	LIST_HEAD(orphans);
	int err = -ENOMEM;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		goto fail;
	w->ctx = ctx;
	INIT_LIST_HEAD(&w->idle_node);
	tsk = create_io_thread(async_worker_fn, w, NUMA_NO_NODE);
	if (IS_ERR(tsk)) {
		err = PTR_ERR(tsk);
		kfree(w);
		goto fail;
	}
	w->task = tsk;
	wake_up_new_task(tsk);
	return 0;
fail:
	spin_lock(&ctx->lock);
	ctx->nr_workers--;
	ctx->nr_waking--;
	if (!ctx->nr_workers)
		list_splice_init(&ctx->queue, &orphans);
	spin_unlock(&ctx->lock);
	async_cancel_chains(&orphans, -EAGAIN);
	return err;
}

/* The last worker to go cancels what is still queued: the process is dying. */
static void async_worker_exit(struct async_worker *w)
	__releases(&w->ctx->lock)
{
	struct async_ctx *ctx = w->ctx;
	LIST_HEAD(orphans);

	ctx->nr_workers--;
	if (!ctx->nr_workers)
		list_splice_init(&ctx->queue, &orphans);
	spin_unlock(&ctx->lock);

	async_cancel_chains(&orphans, -ECANCELED);
	kfree(w);
}

static int async_worker_fn(void *data)
{
	struct async_worker *w = data;
	struct async_ctx *ctx = w->ctx;
	char name[TASK_COMM_LEN];
	bool recruited = true;
	bool timed_out = false;

	snprintf(name, sizeof(name), "async-wrk-%d", task_tgid_vnr(current));
	set_task_comm(current, name);

	for (;;) {
		struct async_req *first;
		bool spawn;

		if (signal_pending(current)) {
			struct ksignal ksig;

			__set_current_state(TASK_RUNNING);
			/* True only for a fatal signal: exit or exec. */
			if (get_signal(&ksig)) {
				spin_lock(&ctx->lock);
				ctx->nr_waking -= recruited;
				break;
			}
		}

		spin_lock(&ctx->lock);
		ctx->nr_waking -= recruited;
		recruited = false;
		first = list_first_entry_or_null(&ctx->queue, struct async_req,
						 node);
		if (first) {
			list_del(&first->node);
			first->runner = current;
			spawn = async_recruit(ctx);
			spin_unlock(&ctx->lock);
			if (spawn)
				async_create_worker(ctx);
			async_run_chain(first);
			timed_out = false;
			cond_resched();
			continue;
		}
		if (timed_out)
			break;

		list_add(&w->idle_node, &ctx->idle);
		__set_current_state(TASK_INTERRUPTIBLE);
		spin_unlock(&ctx->lock);
		timed_out = !schedule_timeout(ASYNC_WORKER_IDLE);

		spin_lock(&ctx->lock);
		recruited = list_empty(&w->idle_node);
		list_del_init(&w->idle_node);
		spin_unlock(&ctx->lock);
		if (recruited)
			timed_out = false;
	}
	async_worker_exit(w);
	/* Returning would take the thread to user mode. */
	do_exit(0);
}

/**
 * async_ensure_worker() - make sure the process has a worker
 * @ctx: The process's context.
 *
 * Called before anything is queued, so that a failure to create the first
 * worker fails the call with nothing to undo.
 *
 * Return: 0, or the error creating the worker.
 */
int async_ensure_worker(struct async_ctx *ctx)
{
	bool spawn;

	spin_lock(&ctx->lock);
	spawn = !ctx->nr_workers;
	if (spawn) {
		ctx->nr_workers++;
		ctx->nr_waking++;
	}
	spin_unlock(&ctx->lock);
	return spawn ? async_create_worker(ctx) : 0;
}

/**
 * async_queue_batch() - queue the chains of a batch and get a worker going
 * @batch: Checked entries, with their chains set up.
 */
void async_queue_batch(struct async_batch *batch)
{
	struct async_ctx *ctx = batch->ctx;
	unsigned int i;
	bool spawn;

	spin_lock(&ctx->lock);
	list_add_tail(&batch->node, &ctx->batches);
	for (i = 0; i < batch->nr; i += batch->reqs[i].chain_len)
		list_add_tail(&batch->reqs[i].node, &ctx->queue);
	spawn = async_recruit(ctx);
	spin_unlock(&ctx->lock);
	if (spawn)
		async_create_worker(ctx);
}

/*
 * Marks the entries of @batch that lie at @uentries + k * @size cancelled,
 * and interrupts the one running, if any.  Returns how many it marked.
 */
static unsigned int async_cancel_batch(struct async_batch *batch,
				       void __user *uentries, unsigned int nr,
				       size_t size)
	__must_hold(&batch->ctx->lock)
{
	unsigned long start = (unsigned long)uentries;
	unsigned long end = start + (unsigned long)nr * size;
	unsigned int i, chain = 0, count = 0;

	for (i = 0; i < batch->nr; i++) {
		struct async_req *req = &batch->reqs[i];
		unsigned long addr = (unsigned long)batch->uentries +
				     (unsigned long)i * batch->entry_size;

		if (req->chain_len)
			chain = i;
		if (addr < start || addr >= end || (addr - start) % size)
			continue;
		if (req->state == ASYNC_REQ_DONE || req->cancelled)
			continue;
		req->cancelled = true;
		count++;
		if (req->state == ASYNC_REQ_RUNNING)
			set_notify_signal(batch->reqs[chain].runner);
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
 * interruptible wait.
 *
 * Return: The number of entries cancelled.
 */
long async_cancel(void __user *uentries, unsigned int nr, size_t size)
{
	/* Pairs with the release in async_ctx_get(). */
	struct async_ctx *ctx = smp_load_acquire(&current->signal->async_ctx);
	struct async_batch *batch;
	long count = 0;

	if (!ctx)
		return 0;
	spin_lock(&ctx->lock);
	list_for_each_entry(batch, &ctx->batches, node)
		count += async_cancel_batch(batch, uentries, nr, size);
	spin_unlock(&ctx->lock);
	return count;
}
