// SPDX-License-Identifier: GPL-2.0
/*
 * Worker threads of the submitting process, and how entries run on them.
 *
 * Each submitting thread has its own pool of workers, which share its file
 * table, filesystem context and namespaces: a thread that unshares or
 * enters a namespace gets a new pool.  Workers are created only by the
 * submitter or by another worker of the same pool, so an entry always runs
 * in the context it was submitted from, and a worker takes its scheduling
 * policy, CPU affinity, NUMA policy, cgroup and I/O context from the
 * submitter.
 *
 * Work is queued by batch.  A worker takes the next chain of the first
 * queued batch, runs its entries in order and takes the next chain without
 * sleeping.  Before running a chain it recruits more workers if work is
 * still queued and not enough workers are already on their way: for quick
 * chains, until as many run as there are CPUs; one per CPU for chains
 * that wait for a peer or a timer, whose batch also wakes an idle worker
 * for each of them at once, so that they fan out to as many as they need.
 * The scheduler tells the pool when a worker sleeps in its work
 * (async_worker_sleeping()), and an idle worker takes the queue in its
 * place; a worker about to run a chain keeps one idle for that.
 *
 * A long batch that the submitter runs itself is shared with an idle
 * worker once it has run for a while: async_share().
 *
 * The kernel queues work of its own the same way, one &struct async_work
 * at a time (Linux AIO's buffered I/O and fsync): async_work_queue().
 */

#include <linux/async_syscall.h>
#include <linux/audit.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/err.h>
#include <linux/fdtable.h>
#include <linux/fs_struct.h>
#include <linux/futex.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/nsproxy.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/wake_q.h>
#include <linux/slab.h>
#include <linux/resume_user_mode.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint-defs.h>
#include <linux/uaccess.h>

#include <asm/futex.h>

#include "async_syscall.h"
#include "sched.h"

#define CREATE_TRACE_POINTS
#include <trace/events/async_syscall.h>

#define ASYNC_WORKER_IDLE	(2 * HZ)
/* Attempts to create a worker when the failure may be transient. */
#define ASYNC_CREATE_TRIES	4
/* Workers one worker recruits at most before it runs its own work. */
#define ASYNC_RECRUITS		2
/* Restarts of one entry when nothing was pending to interrupt it. */
#define ASYNC_QUIET_RESTARTS	8

/**
 * struct async_worker - one worker thread
 * @pool: The pool it belongs to.
 * @task: Its thread.
 * @idle_node: Link in &async_pool.idle while it sleeps.
 * @busy_node: Link in &async_ctx.busy while it runs a chain.
 * @batch: The batch of the chain it runs, under &async_ctx.lock.
 * @first: The entry it took the chain at, under &async_ctx.lock.
 * @req: The entry it runs, under &async_ctx.lock.
 * @working: It has taken a chain or a work and not finished it.
 * @running: It is @working and counted in &async_pool.nr_running: not
 *	asleep.  Only the worker itself changes @working and @running.
 * @dying: A fatal signal was taken: finish the chain cancelled, then exit.
 * @kill_sig: Signal with which the process must die if the fatal signal
 *	did not end it, after a seccomp kill.
 */
struct async_worker {
	struct async_pool	*pool;
	struct task_struct	*task;
	struct list_head	idle_node;
	struct list_head	busy_node;
	struct async_batch	*batch;
	struct async_req	*first;
	struct async_req	*req;
	bool			working;
	bool			running;
	bool			dying;
	int			kill_sig;
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
	INIT_LIST_HEAD(&ctx->pools);
	INIT_LIST_HEAD(&ctx->batches);
	INIT_LIST_HEAD(&ctx->busy);
	xa_init_flags(&ctx->waits, XA_FLAGS_ALLOC);
	async_ctx_init_timers(ctx);
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
	WARN_ON_ONCE(!list_empty(&ctx->pools) || !list_empty(&ctx->timers) ||
		     !xa_empty(&ctx->waits));
	xa_destroy(&ctx->waits);
	kfree(ctx);
}

/*
 * The pool's key is only compared while the pool has a worker or a pinning
 * submitter, either of which keeps the files, fs and nsproxy alive; the
 * pool holds the creds itself, as each worker has a copy of its own.
 * Workers run entries with the batch's creds, but signals and ptrace judge
 * them by their own, so those must be the submitter's too.
 */
static bool async_pool_matches(struct async_pool *pool)
{
	return !pool->retired && pool->owner == current &&
	       pool->files == current->files &&
	       pool->fs == current->fs && pool->nsproxy == current->nsproxy &&
	       pool->cred == current_real_cred() &&
	       pool->tagged_addr_ctrl == async_tagged_addr_ctrl();
}

/* Drops a reference; returns the pool if the caller must free it. */
static struct async_pool *async_pool_unref(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	if (--pool->refs)
		return NULL;
	list_del(&pool->node);
	return pool;
}

static void async_pool_free(struct async_pool *pool)
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

/**
 * async_pool_get() - the calling thread's pool for its current context
 * @ctx: The process's context.
 *
 * The pool comes pinned: its workers do not go idle-exit until
 * async_pool_unpin().
 *
 * Return: The pool, or ERR_PTR(-ENOMEM).
 */
struct async_pool *async_pool_get(struct async_ctx *ctx)
{
	struct async_pool *pool, *new = NULL;

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
	spin_unlock(&ctx->lock);
	if (new) {
		put_cred(new->cred);
		put_task_struct(new->owner);
		kfree(new);
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

/* Every entry of a batch is held until the batch is freed, done or not. */
void async_batch_put(struct async_batch *batch)
{
	if (!refcount_dec_and_test(&batch->refs))
		return;
	/* Unpinning counts in the mm: before it may go. */
	async_free_timers(batch);
	put_cred(batch->cred);
	mmdrop(batch->mm);
	seccomp_filter_put(batch->seccomp);
	atomic_sub(batch->nr, &batch->ctx->held);
	async_batch_free(batch);
}

/* Ends @n chains of @batch; the last to end drops what the chains hold. */
static void async_end_chains(struct async_batch *batch, unsigned int n)
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
 * With %ASYNC_SUBMIT_WAKE_MARKED the done word is exchanged, and only a
 * word a waiter marked is woken.  Returns whether to wake.  The exchange
 * is fully ordered, as the futex operations of every architecture that
 * has HAVE_ARCH_ASYNC_SYSCALL are (a lock xchg, or ldxr/stlxr and dmb):
 * it is the release of the result and of the entry's reads.
 */
static bool async_store_done_marked(u32 __user *done)
{
	int old, ret;

	for (;;) {
		ret = arch_futex_atomic_op_inuser(FUTEX_OP_SET,
						  ASYNC_SYSCALL_DONE, &old,
						  done);
		if (!ret)
			return old == ASYNC_SYSCALL_WAITING;
		if (ret != -EAGAIN)
			break;
		/* Contended (arm64 gives up after a number of tries). */
		cond_resched();
	}
	if (ret == -EFAULT)
		return false;
	/* No user atomics here: a plain store, and wake whoever is there. */
	smp_mb();
	return !put_user(ASYNC_SYSCALL_DONE, done);
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
	if (!user_write_access_begin(ue, sizeof(*ue)))
		return;
	unsafe_put_user(res, &ue->result, efault);
	if (batch->wake_marked) {
		user_write_access_end();
		if (!async_store_done_marked(&ue->done))
			return;
	} else {
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

/*
 * Takes what interrupted the worker: a cancel's notification, task work,
 * a stop or a freeze, which only pause it, or a fatal signal.  Returns
 * false once the worker must exit.
 */
static bool async_worker_signals(struct async_worker *w)
{
	struct ksignal ksig;

	if (test_thread_flag(TIF_NOTIFY_SIGNAL))
		clear_notify_signal();
	if (task_work_pending(current))
		task_work_run();
	/* A worker blocks every signal but SIGKILL and SIGSTOP. */
	if (task_sigpending(current) && get_signal(&ksig))
		w->dying = true;
	return !w->dying;
}

/*
 * A seccomp kill: end the process now, as do_group_exit() would, so that
 * no other thread goes on and nothing of the entry is reported.  A core
 * dump, when one was written, has already done it.
 */
static void async_kill_process(int exit_code)
{
	struct signal_struct *sig = current->signal;
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, true);

	spin_lock_irq(&sighand->siglock);
	if (!(sig->flags & SIGNAL_GROUP_EXIT) && !sig->group_exec_task) {
		sig->group_exit_code = exit_code;
		sig->flags = SIGNAL_GROUP_EXIT;
		zap_other_threads(current);
	}
	spin_unlock_irq(&sighand->siglock);
}

static bool async_restartable(long ret)
{
	switch (ret) {
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
		return true;
	}
	return false;
}

/*
 * A restart code means "run me again unless a handler ran", and no handler
 * runs on a worker: an entry interrupted by a stop, a freeze, task work, or
 * by something already gone when the call returned, restarts once the
 * worker has taken the interruption, as the call would in the submitter.
 * A cancel or a fatal signal ends it with -EINTR instead.  So does a signal
 * that the entry's own mask let in (ppoll(), pselect6()): it is meant for a
 * handler, which only a user thread can run, and goes back to one when the
 * mask is restored.  @quiet counts restarts with nothing pending, bounded
 * in case a call keeps returning a restart code on its own.
 */
static bool async_may_restart(struct async_worker *w, const bool *cancelled,
			      unsigned int *quiet)
{
	bool interrupted = signal_pending(current) || task_work_pending(current);

	if (READ_ONCE(*cancelled) || test_restore_sigmask())
		return false;
	if (!interrupted && ++*quiet > ASYNC_QUIET_RESTARTS)
		return false;
	return async_worker_signals(w) && !READ_ONCE(*cancelled);
}

/* An operation is audited and traced as the system call it does. */
static long async_call(const struct async_op_def *def, u32 nr,
		       const u64 *args)
{
	if (def->issue)
		nr = def->as_syscall(args);
	return arch_async_syscall(nr, args, def->issue);
}

static __always_inline void async_resolve_args(struct async_batch *batch,
					       struct async_req *req, u64 *args)
{
	unsigned int n, ref;

	/*
	 * Not a memcpy() and a patch-up: no string copy per entry.  The
	 * index is clamped for the mispredicted test of a plain argument.
	 */
	for (n = 0; n < ASYNC_NR_ARGS; n++) {
		ref = array_index_nospec(req->args[n], batch->nr);
		args[n] = req->arg_refs & BIT(n) ?
			  batch->reqs[ref].result : req->args[n];
	}
}

static long async_issue(struct async_worker *w, struct async_batch *batch,
			struct async_req *req)
{
	u32 nr = async_req_nr(req);
	const struct async_op_def *def = async_req_def(req);
	/* async_resolve_args() fills it: not zeroed for every entry. */
	u64 args[ASYNC_NR_ARGS] __uninitialized;
	unsigned int quiet = 0;
	long ret;

	async_resolve_args(batch, req, args);
	switch (req->flags & ASYNC_REQ_ALLOWED ? ASYNC_SECCOMP_ALLOW :
		async_seccomp_check(batch, nr, args, &ret)) {
	case ASYNC_SECCOMP_ALLOW:
		break;
	case ASYNC_SECCOMP_KILL:
		w->kill_sig = SIGSYS;
		w->dying = true;
		return ret;
	default:
		return ret;
	}

	ret = async_call(def, nr, args);
	while (async_restartable(ret)) {
		if (!async_may_restart(w, &req->cancelled, &quiet))
			return -EINTR;
		if (ret == -ERESTART_RESTARTBLOCK)
			ret = current->restart_block.fn(&current->restart_block);
		else
			ret = async_call(def, nr, args);
	}
	return ret;
}

/* Marks @req running; false if it was cancelled before it started. */
static bool async_start(struct async_worker *w, struct async_req *req)
{
	struct async_ctx *ctx = w->pool->ctx;
	bool cancelled;

	spin_lock(&ctx->lock);
	cancelled = req->cancelled;
	req->state = ASYNC_REQ_RUNNING;
	w->req = req;
	spin_unlock(&ctx->lock);
	return !cancelled;
}

/*
 * A worker never returns to user mode, where a thread normally drops what
 * a system call left behind.  Do the work due on the way back to user
 * mode first (deferred fput()s, memcg and blkcg throttling, dropping the
 * request-key cache, which must not serve the next entry's creds), then
 * drop what must not leak into the next entry: a cancel's notification, a
 * signal mask set by ppoll() or pselect6(), signals raised on this thread
 * such as SIGPIPE, which the entry's error already reports.  A stop or a
 * freeze is taken here, as a pause between entries.
 */
static void async_worker_clean(struct async_worker *w)
{
	/* Only exec changes a thread's sighand, and exec kills workers first. */
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, true);

	if (test_thread_flag(TIF_NOTIFY_RESUME))
		resume_user_mode_work(NULL);
	/* Before get_signal(), which must never see a handled signal. */
	restore_saved_sigmask();
	async_worker_signals(w);
	if (!sigisemptyset(&current->pending.signal)) {
		spin_lock_irq(&sighand->siglock);
		/* Keep a group exit's SIGKILL and a seccomp kill's SIGSYS. */
		if (!__fatal_signal_pending(current) && !w->kill_sig) {
			flush_sigqueue(&current->pending);
			recalc_sigpending();
		}
		spin_unlock_irq(&sighand->siglock);
	}
	if (w->kill_sig)
		async_kill_process(w->kill_sig);
}

static void async_finish(struct async_worker *w, struct async_req *req)
{
	struct async_ctx *ctx = w->pool->ctx;

	spin_lock(&ctx->lock);
	req->state = ASYNC_REQ_DONE;
	w->req = NULL;
	spin_unlock(&ctx->lock);
	async_worker_clean(w);
}

/* @w is done with its chain: a cancel no longer looks for it there. */
static void async_worker_no_chain(struct async_worker *w)
{
	spin_lock(&w->pool->ctx->lock);
	list_del_init(&w->busy_node);
	w->batch = NULL;
	w->first = NULL;
	spin_unlock(&w->pool->ctx->lock);
}

static __always_inline bool
async_issue_inline(struct async_batch *batch, struct async_req *req,
		   long *res, bool *killed);
static void async_worker_recruit(struct async_worker *w);
static void async_worker_keep_spare(struct async_worker *w);

/*
 * Tries @req as the submitter would, without blocking.  Returns false if
 * it would block; otherwise *@res is its result.
 */
static bool async_issue_untried(struct async_worker *w,
				struct async_batch *batch,
				struct async_req *req, long *res)
{
	bool killed = false;

	if (!async_issue_inline(batch, req, res, &killed))
		return false;
	if (killed) {
		w->kill_sig = SIGSYS;
		w->dying = true;
	}
	return true;
}

/*
 * Runs the chain at @first.  An @untried chain, of a batch its submitter
 * shares, is one the submitter would have run without blocking: the
 * worker runs it that way too, and recruits another worker only once an
 * entry would block, so that quick chains keep few threads busy and one
 * that blocks does not hold up the rest.
 */
static void async_run_chain(struct async_worker *w, struct async_batch *batch,
			    struct async_req *first, bool untried)
{
	const struct cred *old_cred;
	bool failed;
	u32 i;

	/* Workers die before exec installs a new mm; never write into one. */
	if (WARN_ON_ONCE(current->mm != batch->mm)) {
		async_worker_no_chain(w);
		async_chain_done(batch, first);
		return;
	}

	failed = first->flags & ASYNC_REQ_CHAIN_FAILED;
	old_cred = override_creds(batch->cred);
	arch_async_set_pkey_rights(batch->pkey_rights);
	for (i = 0; i < first->chain_len; i++) {
		struct async_req *req = first + i;
		unsigned int index = req - batch->reqs;
		bool traced = trace_async_syscall_start_enabled() ||
			      trace_async_syscall_complete_enabled();
		u64 start_ns = traced ? ktime_get_ns() : 0;
		long res = -ECANCELED;

		trace_async_syscall_start(index, async_req_nr(req),
					  start_ns - batch->submit_ns);
		if (async_start(w, req) && !w->dying &&
		    !fatal_signal_pending(current) &&
		    (!failed || (req->flags & ASYNC_SYSCALL_RUN_ANYWAY)) &&
		    (!untried || !async_issue_untried(w, batch, req, &res))) {
			if (untried) {
				untried = false;
				/* A new thread takes our own creds. */
				revert_creds(old_cred);
				async_worker_recruit(w);
				async_worker_keep_spare(w);
				old_cred = override_creds(batch->cred);
			}
			/* The recruit may have taken a kill or a cancel's notice. */
			if (!w->dying && !fatal_signal_pending(current) &&
			    !READ_ONCE(req->cancelled))
				res = async_issue(w, batch, req);
		}
		if (res < 0)
			failed = true;
		async_finish(w, req);
		if (!w->kill_sig)
			async_complete(batch, req, res);
		if (traced)
			trace_async_syscall_complete(index, async_req_nr(req),
						     res,
						     start_ns - batch->submit_ns,
						     ktime_get_ns() - start_ns,
						     true);
		cond_resched();
	}
	revert_creds(old_cred);

	async_worker_no_chain(w);
	async_chain_done(batch, first);
}

static void async_work_done(struct async_work *work, long res)
{
	const struct cred *cred = work->cred;

	work->ops->complete(work, res);
	put_cred(cred);
}

/*
 * Runs a work queued from inside the kernel.  Either the worker sees a
 * cancel before it starts, or the cancel sees the worker and interrupts it.
 */
static void async_run_work(struct async_worker *w, struct async_work *work)
{
	const struct cred *old_cred;
	unsigned int quiet = 0;
	long res = -ECANCELED;

	WRITE_ONCE(work->runner, current);
	/* Pairs with the barrier in async_work_cancel(). */
	smp_mb();
	if (!READ_ONCE(work->cancelled) && !w->dying &&
	    !fatal_signal_pending(current)) {
		old_cred = override_creds(work->cred);
		arch_async_set_pkey_rights(work->pkey_rights);
		res = work->ops->run(work);
		while (async_restartable(res)) {
			if (!async_may_restart(w, &work->cancelled, &quiet)) {
				res = -EINTR;
				break;
			}
			res = work->ops->run(work);
		}
		revert_creds(old_cred);
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

DECLARE_TRACEPOINT(sys_enter);
DECLARE_TRACEPOINT(sys_exit);

/* The architecture's hook copies the registers: only for a tracepoint. */
static __always_inline void async_trace_inline(u32 nr, const u64 *args,
					       const long *ret)
{
	if (tracepoint_enabled(sys_enter) || tracepoint_enabled(sys_exit))
		arch_async_trace_inline(nr, args, ret);
}

/*
 * Tries @req in the submitting thread.  Returns false if it must go to a
 * worker; otherwise *@res is its result.  The seccomp filters see it
 * first, as they would on a worker, and only once: a worker taking it
 * over does not ask them again.  A kill acts on the submitter itself, as
 * for a system call it made, and stops the batch.
 */
static __always_inline bool
async_issue_inline(struct async_batch *batch, struct async_req *req,
		   long *res, bool *killed)
{
	u32 nr = async_req_nr(req);
	const struct async_op_def *def = async_req_def(req);
	/* async_resolve_args() fills it: not zeroed for every entry. */
	u64 args[ASYNC_NR_ARGS] __uninitialized;
	long ret;

	if ((!def->nowait && !def->sleep) ||
	    (req->flags & ASYNC_SYSCALL_FORCE_ASYNC))
		return false;
	/* async_setup_timers() chose the sleeps that hold no thread. */
	if (def->sleep && !(req->flags & ASYNC_REQ_TIMER))
		return false;

	async_resolve_args(batch, req, args);
	switch (async_seccomp_check(batch, nr, args, res)) {
	case ASYNC_SECCOMP_ALLOW:
		break;
	case ASYNC_SECCOMP_KILL:
		*killed = true;
		return true;
	default:
		return true;
	}
	req->flags |= ASYNC_REQ_ALLOWED;

	if (def->sleep) {
		struct async_sleep sleep;

		ret = def->sleep(args, &sleep);
		/* Its clock was checked already. */
		if (WARN_ON_ONCE(ret == -EAGAIN))
			return false;
		if (!ret) {
			if (!async_sleep_prepare(batch, req, &sleep))
				return false;
			async_trace_inline(nr, args, NULL);
			return true;
		}
		goto done;
	}

	ret = def->nowait(args);
	if (ret == ASYNC_NOWAIT_PEER) {
		req->flags |= ASYNC_REQ_WAITS;
		return false;
	}
	if (ret == -EAGAIN)
		return false;
done:
	async_trace_inline(nr, args, &ret);
	*res = ret;
	return true;
}

/*
 * With %ASYNC_SUBMIT_WAKE_MARKED, async_submit() left the done words as
 * they were: those of the @n entries from @req on, which leave the
 * submitter, go back to PENDING before anything may complete them, and
 * keep a waiter's mark.  async_submit() proved them writable: only a
 * change of the mapping since then makes this fault, and leaves them be.
 */
static void async_mark_left(struct async_batch *batch, struct async_req *req,
			    u32 n)
{
	u32 i;

	if (!batch->wake_marked)
		return;
	for (i = 0; i < n; i++)
		async_done_op(&async_req_uentry(batch, req + i)->done,
			      FUTEX_OP_ANDN, ~ASYNC_SYSCALL_WAITING);
}

/*
 * Whether a fatal signal is pending, before every inline entry: the flag
 * test first, as a kernel built for size does not inline the functions.
 */
static __always_inline bool async_submitter_dying(void)
{
	return unlikely(read_thread_flags() & _TIF_SIGPENDING) &&
	       fatal_signal_pending(current);
}

/*
 * Runs the entries of a chain that complete without blocking, in order,
 * in the submitting thread.  Returns the entry from which a worker must
 * take the chain over, or NULL when it is done.  A dying submitter leaves
 * the rest of the chain to the workers, which cancel it.
 */
static __always_inline struct async_req *
async_run_chain_inline(struct async_batch *batch, struct async_req *first,
		       bool *killed)
{
	bool failed = false;
	u32 i;

	for (i = 0; i < first->chain_len; i++) {
		struct async_req *req = first + i;
		bool traced = trace_async_syscall_complete_enabled();
		u64 start_ns = traced ? ktime_get_ns() : 0;
		long res = -ECANCELED;

		/* Only in a shared batch: a cancel may have come. */
		if ((!failed || (req->flags & ASYNC_SYSCALL_RUN_ANYWAY)) &&
		    !READ_ONCE(req->cancelled) &&
		    ((i && async_submitter_dying()) ||
		     !async_issue_inline(batch, req, &res, killed))) {
			/* Workers look for it once the chain is queued again. */
			WRITE_ONCE(req->chain_len, first->chain_len - i);
			req->flags |= ASYNC_REQ_PUNTED;
			if (failed)
				req->flags |= ASYNC_REQ_CHAIN_FAILED;
			async_mark_left(batch, req, req->chain_len);
			return req;
		}
		if (*killed)
			return req;
		/* The only entry of its chain: its timer completes it. */
		if (req->state == ASYNC_REQ_TIMED) {
			async_mark_left(batch, req, 1);
			return NULL;
		}
		if (res < 0)
			failed = true;
		/* A cancel may look at it, in a shared batch. */
		WRITE_ONCE(req->state, ASYNC_REQ_DONE);
		async_complete(batch, req, res);
		if (traced)
			trace_async_syscall_complete(req - batch->reqs,
						     async_req_nr(req), res,
						     start_ns - batch->submit_ns,
						     ktime_get_ns() - start_ns,
						     false);
	}
	return NULL;
}

/*
 * The index of the first chain from @from on that waits for a worker, or
 * @batch->nr.  A waiting chain starts at a queued entry with a chain
 * length: the chain's first entry, or the one async_run_chain_inline()
 * stopped at.
 */
static unsigned int async_next_chain(struct async_batch *batch,
				     unsigned int from)
{
	/* The submitter of a shared batch writes those of the chain it runs. */
	while (from < batch->nr &&
	       (!READ_ONCE(batch->reqs[from].chain_len) ||
		READ_ONCE(batch->reqs[from].state) != ASYNC_REQ_QUEUED))
		from++;
	return from;
}

/* Takes the next waiting chain of @batch, which has one. */
static struct async_req *async_take_chain(struct async_batch *batch)
{
	struct async_req *first = &batch->reqs[batch->next_chain];

	batch->next_chain = async_next_chain(batch, batch->next_chain +
					     first->chain_len);
	return first;
}

/*
 * Whether the chain resumed at @req is expected to block for a while: its
 * entry waits for a peer or a timer, by nature or as tried here.  Other
 * entries that a worker takes are quick or wait for the kernel's own I/O,
 * and as many workers as there are CPUs run them.
 */
static bool async_chain_blocks(struct async_req *req)
{
	return (req->flags & ASYNC_REQ_WAITS) || async_req_def(req)->waits;
}

/*
 * A batch is shared once its inline run has lasted ASYNC_SHARE_AFTER_NS
 * and, at the pace of its entries so far, what is left would take
 * ASYNC_SHARE_LEFT_NS more: long enough to be worth a worker's wakeup.
 * Its chains must take ASYNC_SHARE_CHAIN_NS each, in two looks in a row,
 * so that one interrupt or preemption does not make quick chains look
 * slow: a chain shorter than that costs less to run than to take under a
 * shared lock, and the worker would slow the submitter down more than it
 * helps.  The looks come every ASYNC_SHARE_STRIDE entries at first, then
 * further apart while chains stay quick, up to ASYNC_SHARE_STRIDE_MAX (a
 * look reads the clock, which costs as much as a quick entry), and at
 * every chain once one was slow.
 */
#define ASYNC_SHARE_AFTER_NS	(10 * NSEC_PER_USEC)
#define ASYNC_SHARE_LEFT_NS	(50 * NSEC_PER_USEC)
#define ASYNC_SHARE_CHAIN_NS	(5 * NSEC_PER_USEC)
#define ASYNC_SHARE_STRIDE	8
#define ASYNC_SHARE_STRIDE_MAX	32

/**
 * struct async_pace - the pace of a batch's inline run, looked at every few
 *	chains
 * @window_ns: When the chains since the last look began.
 * @window: Chains run since the last look.
 * @slow: Looks in a row that found chains slow.
 * @stride: Entries from the next look to the one after it.
 * @look_at: Index of the entry before which the next look comes.
 */
struct async_pace {
	u64		window_ns;
	unsigned int	window;
	unsigned int	slow;
	unsigned int	stride;
	unsigned int	look_at;
};

/*
 * Looks at the pace before entry @i, at time *@now, which it reads.
 * Returns whether chains were slow in two looks in a row.
 */
static bool async_pace_slow(struct async_pace *pace, unsigned int i, u64 *now)
{
	*now = ktime_get_ns();
	if (*now - pace->window_ns >= (u64)pace->window * ASYNC_SHARE_CHAIN_NS)
		pace->slow++;
	else
		pace->slow = 0;
	pace->window_ns = *now;
	pace->window = 0;
	if (pace->slow) {
		pace->stride = ASYNC_SHARE_STRIDE;
		pace->look_at = i + 1;
	} else {
		pace->look_at = i + pace->stride;
		pace->stride = min(2 * pace->stride, ASYNC_SHARE_STRIDE_MAX);
	}
	return pace->slow >= 2;
}

static bool async_share_possible(struct async_batch *batch,
				 struct async_pool *pool, unsigned int next);
static bool async_share_worthwhile(struct async_batch *batch,
				   struct async_pool *pool, unsigned int next,
				   u64 spent);
static bool async_share(struct async_batch *batch, struct async_pool *pool,
			unsigned int next, unsigned int nr_punted,
			unsigned int nr_blocking);
static int async_run_shared(struct async_batch *batch,
			    struct async_pool *pool, unsigned int next,
			    unsigned int done);

/**
 * async_run_inline() - run in the submitter what does not block
 * @batch: The checked entries, not yet visible to any other thread.
 * @pool: The submitter's pool, which a long batch is shared with.
 * @audited: Whether audit collects system call records for the submitter:
 *	async_audited().
 * @nr_blocking: Set to the number of chains left for workers that are
 *	expected to block.
 *
 * The chains that must go to a worker are left queued from the entry to
 * resume them at, and @batch->next_chain is the first of them.  The done
 * words of their entries, and of the sleeps, are PENDING again.
 *
 * Not while audit collects system call records for the submitter: its
 * record is async_submit()'s, so every entry goes to a worker, where each
 * is a system call of its own.
 *
 * When what is left of a long batch would still take a while, it is shared
 * instead: see async_share().  Its chains then reach the workers, and
 * those left for them are counted in the batch, as async_submit() would.
 *
 * Return: The number of chains left for workers (none, once shared), or
 * -ECANCELED if a seccomp filter killed the submitter, which then runs
 * nothing more.
 */
int async_run_inline(struct async_batch *batch, struct async_pool *pool,
		     bool audited, unsigned int *nr_blocking)
{
	struct async_pace pace = {
		.window_ns = batch->submit_ns,
		.stride = ASYNC_SHARE_STRIDE,
		.look_at = 1,
	};
	struct async_req *next;
	bool killed = false;
	unsigned int i, done = 0;
	bool run_none = audited;
	int nr_punted = 0;
	u64 now;

	*nr_blocking = 0;
	/* The worker's wakeup then overlaps the first chains. */
	if (pool->share_at_once && !run_none && !async_submitter_dying() &&
	    async_share_possible(batch, pool, 0) &&
	    async_share(batch, pool, 0, 0, 0))
		return async_run_shared(batch, pool, 0, 0);
	for (i = 0; i < batch->nr; i += batch->reqs[i].chain_len) {
		struct async_req *first = &batch->reqs[i];

		/* A dying submitter leaves the rest to be cancelled. */
		if (async_submitter_dying())
			run_none = true;
		/* Chains do not block: the scheduler and the pace every few. */
		if (i >= pace.look_at) {
			cond_resched();
			if (!run_none && async_pace_slow(&pace, i, &now) &&
			    async_share_worthwhile(batch, pool, i,
						   now - batch->submit_ns) &&
			    async_share(batch, pool, i, nr_punted, *nr_blocking))
				return async_run_shared(batch, pool, i, done);
		}
		if (!run_none) {
			next = async_run_chain_inline(batch, first, &killed);
		} else {
			next = first;
			async_mark_left(batch, first, first->chain_len);
		}
		if (killed)
			return -ECANCELED;
		if (next) {
			done += next - first;
			nr_punted++;
			*nr_blocking += async_chain_blocks(next);
		} else if (first->state != ASYNC_REQ_TIMED) {
			done += first->chain_len;
		}
		pace.window++;
	}
	/* Not shared: the next batch waits for the pace again. */
	pool->share_at_once = false;
	atomic_sub(done, &batch->ctx->inflight);
	batch->next_chain = async_next_chain(batch, 0);
	return nr_punted;
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

static void async_cancel_chain(struct async_batch *batch,
			       struct async_req *first, long res)
{
	u32 i;

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
			last = batch->next_chain == batch->nr;
			async_cancel_chain(batch, first, res);
		} while (!last);
	}
}

/* What a pool holds when its last worker is gone. */
struct async_orphans {
	struct list_head	batches;
	struct list_head	works;
};

static void async_orphans_init(struct async_orphans *orphans)
{
	INIT_LIST_HEAD(&orphans->batches);
	INIT_LIST_HEAD(&orphans->works);
}

static void async_cancel_orphans(struct async_orphans *orphans)
{
	struct async_work *work, *next;

	async_cancel_chains(&orphans->batches, -ECANCELED);
	list_for_each_entry_safe(work, next, &orphans->works, node) {
		list_del_init(&work->node);
		async_work_done(work, -ECANCELED);
	}
}

/* The CPUs the pool's workers may run on, as its submitter. */
static unsigned int async_pool_cpus(struct async_pool *pool)
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
static bool async_pool_wants_worker(struct async_pool *pool)
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

static int async_worker_fn(void *data);

/* Takes an idle worker off the idle list for queued work, to be woken. */
static struct async_worker *async_claim_idle(struct async_pool *pool)
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
static bool async_wake_idle(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	struct async_worker *w = async_claim_idle(pool);

	if (w)
		wake_up_process(w->task);
	return w;
}

/**
 * async_worker_sleeping() - a worker goes to sleep
 * @tsk: The worker, which is current.
 *
 * A worker asleep in its work no longer counts as running, and an idle
 * worker takes the queue in its place if the pool wants one.  A worker is
 * woken here, never made: async_worker_keep_spare() left one idle.
 *
 * Context: Called by schedule() before the worker sleeps; must not sleep.
 * Takes &async_ctx.lock if chains are queued.
 */
void async_worker_sleeping(struct task_struct *tsk)
{
	struct async_worker *w = tsk->worker_private;
	struct async_pool *pool;

	if (!w || !w->running)
		return;
	w->running = false;
	pool = w->pool;
	atomic_dec(&pool->nr_running);
	/* Pairs with the barrier in async_pool_wants_worker(). */
	smp_mb__after_atomic();
	if (list_empty(&pool->queue))
		return;
	spin_lock(&pool->ctx->lock);
	if (async_pool_wants_worker(pool))
		async_wake_idle(pool);
	spin_unlock(&pool->ctx->lock);
}

/**
 * async_worker_running() - a worker wakes up
 * @tsk: The worker, which is current.
 *
 * A worker back in its work counts as running again.
 *
 * Context: Called by schedule() once the worker runs again.
 */
void async_worker_running(struct task_struct *tsk)
{
	struct async_worker *w = tsk->worker_private;

	if (!w || !w->working || w->running)
		return;
	w->running = true;
	atomic_inc(&w->pool->nr_running);
}

/*
 * Gets queued work going after it was queued or a worker was lost: claims
 * an idle worker unless enough are already on their way, to be woken from
 * @wake_q once the lock is dropped, so that it does not wait for the lock
 * as soon as it runs.  If no worker is left at all, moves the work to
 * @orphans, to complete without running; but for a batch still shared,
 * whose submitter does that itself.
 */
static void async_pool_kick(struct async_pool *pool,
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
static void async_reserve_worker(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	pool->nr_workers++;
	pool->nr_waking++;
	pool->refs++;
}

/* Undoes a reservation whose worker could not be created. */
static void async_unreserve_worker(struct async_pool *pool,
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
static int async_spawn_worker(struct async_pool *pool)
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
static void async_worker_recruit(struct async_worker *w)
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

/* No worker is idle or on its way, and one more may be made. */
static bool async_pool_lacks_spare(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	return list_empty(&pool->idle) && !pool->nr_waking &&
	       pool->nr_workers < pool->ctx->max_workers;
}

/*
 * Whether a worker about to run work should make sure another is idle:
 * chains are queued, or may be by a submitter that has the pool pinned
 * (and counted on an idle worker, or this one, when it prepared), and
 * none is idle or on its way.
 */
static bool async_pool_wants_spare(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	return (pool->pins || !list_empty(&pool->queue)) &&
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
static void async_worker_keep_spare(struct async_worker *w)
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

/**
 * async_pool_prepare() - make sure a worker will take what is queued next
 * @pool: The caller's pinned pool.
 *
 * Called before anything is queued, so that a failure to create a worker
 * fails the call with nothing to undo.  A failure because a signal is
 * pending restarts the call once the signal is handled.
 *
 * Return: 0, or the error creating the worker.
 */
int async_pool_prepare(struct async_pool *pool)
{
	struct async_ctx *ctx = pool->ctx;
	bool spawn;

	/* Idle workers stay while the pool is pinned; one on its way recruits. */
	spin_lock(&ctx->lock);
	spawn = async_pool_lacks_spare(pool);
	if (spawn)
		async_reserve_worker(pool);
	spin_unlock(&ctx->lock);
	return spawn ? async_create_worker(pool) : 0;
}

/*
 * Whether the queued chains, all quick, should wait for the workers
 * already running: as many run as there are CPUs.  A worker that finds so
 * stays idle, to be woken when one of them sleeps.  Chains expected to
 * block are taken in queue order, however many run.
 */
static bool async_pool_busy_enough(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	return !pool->nr_blocking &&
	       atomic_read(&pool->nr_running) >= async_pool_cpus(pool);
}

/* The worker no longer runs work, nor counts as running. */
static void async_worker_rest(struct async_worker *w)
{
	w->working = false;
	if (w->running) {
		w->running = false;
		/* Below zero, busy_enough would hold every idle worker back. */
		WARN_ON_ONCE(atomic_dec_return(&w->pool->nr_running) < 0);
	}
}

/* The last worker to go cancels what is still queued: the process is dying. */
static void async_worker_exit(struct async_worker *w)
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

static int async_worker_fn(void *data)
{
	struct async_worker *w = data;
	struct async_pool *pool = w->pool;
	struct async_ctx *ctx = pool->ctx;
	char name[TASK_COMM_LEN];
	bool recruited = true;
	bool timed_out = false;
	int kill_sig;

	snprintf(name, sizeof(name), "async-wrk-%d", task_tgid_vnr(current));
	set_task_comm(current, name);
	/* io-wq's hooks would take @w for theirs without the flag. */
	current->flags |= PF_ASYNC_WORKER;
	current->worker_private = w;

	for (;;) {
		struct async_batch *batch = NULL;
		struct async_work *work;
		struct async_req *first = NULL;

		if (signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			/* A stop may last: let another worker be recruited. */
			if (recruited) {
				spin_lock(&ctx->lock);
				pool->nr_waking--;
				if (async_pool_wants_worker(pool))
					async_wake_idle(pool);
				spin_unlock(&ctx->lock);
				recruited = false;
			}
			if (!async_worker_signals(w)) {
				spin_lock(&ctx->lock);
				break;
			}
		}

		spin_lock(&ctx->lock);
		async_worker_rest(w);
		pool->nr_waking -= recruited;
		recruited = false;
		work = list_first_entry_or_null(&pool->works, struct async_work,
						node);
		if (!work)
			batch = list_first_entry_or_null(&pool->queue,
							 struct async_batch,
							 queue_node);
		if (batch && async_pool_busy_enough(pool))
			batch = NULL;
		if (work || batch) {
			bool untried = false, recruit, spare, blocks;

			if (work) {
				list_del_init(&work->node);
				pool->nr_works--;
			} else {
				first = async_take_chain(batch);
				if (batch->next_chain == batch->nr)
					list_del_init(&batch->queue_node);
				/* A shared batch's submitter leaves it now. */
				first->state = ASYNC_REQ_TAKEN;
				blocks = async_chain_blocks(first);
				untried = batch->sharing && !blocks &&
					  !(first->flags & ASYNC_REQ_PUNTED);
				if (blocks)
					pool->nr_blocking--;
				w->batch = batch;
				w->first = first;
				list_add(&w->busy_node, &ctx->busy);
			}
			w->working = true;
			w->running = true;
			atomic_inc(&pool->nr_running);
			/* An untried chain does both once it would block. */
			recruit = !untried && async_pool_wants_worker(pool);
			spare = !untried && async_pool_wants_spare(pool);
			spin_unlock(&ctx->lock);
			if (recruit)
				async_worker_recruit(w);
			if (spare)
				async_worker_keep_spare(w);
			if (work)
				async_run_work(w, work);
			else
				async_run_chain(w, batch, first, untried);
			/* Still working for the hooks until the next look. */
			if (w->dying) {
				spin_lock(&ctx->lock);
				break;
			}
			timed_out = false;
			cond_resched();
			continue;
		}
		/* An idle worker is the spare of those that run the queue. */
		if ((timed_out || pool->retired) && !pool->pins &&
		    list_empty(&pool->queue) && list_empty(&pool->works))
			break;

		list_add(&w->idle_node, &pool->idle);
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
	kill_sig = w->kill_sig;
	async_worker_exit(w);
	/* The process is exiting: do_group_exit() keeps its exit code. */
	if (kill_sig)
		do_group_exit(kill_sig);
	/* Returning would take the thread to user mode. */
	do_exit(0);
}

/**
 * async_queue_chains() - hand the waiting chains of a batch to the workers
 * @batch: The batch, as async_run_inline() left it.
 * @pool: The submitter's pool, prepared with async_pool_prepare() if
 *	@nr_punted.
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

/*
 * Interrupts the workers whose running entry is cancelled: one walk of the
 * busy workers for a whole cancel, however many entries it found running.
 */
static void async_interrupt_cancelled(struct async_ctx *ctx)
	__must_hold(&ctx->lock)
{
	struct async_worker *w;

	list_for_each_entry(w, &ctx->busy, busy_node) {
		if (w->req && READ_ONCE(w->req->cancelled))
			set_notify_signal(w->task);
	}
}

/*
 * Marks the entries of @batch that lie at @uentries + k * @size cancelled,
 * sets *@running if one of them runs, and moves the timers it stops to
 * @stopped.  Returns how many it cancelled.
 */
static unsigned int async_cancel_batch(struct async_batch *batch,
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
		struct async_req *req = &batch->reqs[i];
		unsigned long addr = base + i * stride;
		/* The submitter of a shared batch marks what it ran done. */
		u8 state = READ_ONCE(req->state);

		if ((addr - start) % size)
			continue;
		if (state == ASYNC_REQ_DONE || req->cancelled)
			continue;
		if (state == ASYNC_REQ_TIMED) {
			count += async_timer_cancel(req, stopped);
			continue;
		}
		/*
		 * One the submitter runs in a shared batch does not block; it
		 * sees the mark before it runs the entry, as does a worker
		 * that took the chain or takes it once queued again.
		 */
		WRITE_ONCE(req->cancelled, true);
		count++;
		if (state == ASYNC_REQ_RUNNING)
			*running = true;
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
 * interruptible wait; a sleep on a timer ends here, as interrupted.
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

/*
 * Whether the chains of @batch from @next on could go to another CPU now:
 * it has no sleeps on timers, whose set-up assumes the submitter runs it
 * alone, and an idle worker has an idle CPU to run on.  On one CPU, or
 * with every CPU busy, a worker would only take time from the submitter.
 */
static bool async_share_possible(struct async_batch *batch,
				 struct async_pool *pool, unsigned int next)
{
	unsigned int this_cpu, cpu;

	if (batch->nr_timed || next + batch->reqs[next].chain_len >= batch->nr)
		return false;
	/* Looked at again under the lock by async_share(). */
	if (data_race(list_empty(&pool->idle)))
		return false;
	this_cpu = raw_smp_processor_id();
	for_each_cpu(cpu, current->cpus_ptr) {
		if (cpu != this_cpu && available_idle_cpu(cpu))
			return true;
	}
	return false;
}

/*
 * Whether to share @batch from entry @next on, its inline run having
 * lasted @spent: it is long enough, and it could go to another CPU.
 */
static bool async_share_worthwhile(struct async_batch *batch,
				   struct async_pool *pool, unsigned int next,
				   u64 spent)
{
	if (spent < ASYNC_SHARE_AFTER_NS ||
	    div_u64(spent * (batch->nr - next), next) < ASYNC_SHARE_LEFT_NS)
		return false;
	return async_share_possible(batch, pool, next);
}

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
static bool async_share(struct async_batch *batch, struct async_pool *pool,
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
static bool async_claim_chain(struct async_batch *batch,
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
 * Queues again, for a worker, a chain the submitter stopped at @req.  A
 * worker makes sure another is idle or on its way before it blocks, so one
 * takes it unless the pool is at its bound.
 */
static void async_requeue_chain(struct async_batch *batch,
				struct async_pool *pool, struct async_req *req)
{
	struct async_ctx *ctx = batch->ctx;
	unsigned int i, index = req - batch->reqs;
	struct async_orphans orphans;
	DEFINE_WAKE_Q(wake_q);

	async_orphans_init(&orphans);
	spin_lock(&ctx->lock);
	for (i = 0; i < req->chain_len; i++)
		req[i].state = ASYNC_REQ_QUEUED;
	batch->next_chain = min(batch->next_chain, index);
	if (list_empty(&batch->queue_node))
		list_add_tail(&batch->queue_node, &pool->queue);
	pool->nr_blocking += async_chain_blocks(req);
	/* With no worker left it keeps the batch, which the submitter ends. */
	async_pool_kick(pool, &orphans, &wake_q);
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
static unsigned int async_unqueue_chains(struct async_batch *batch,
					 struct async_pool *pool,
					 unsigned int *nr_entries)
	__must_hold(&batch->ctx->lock)
{
	unsigned int n = 0;

	while (batch->next_chain < batch->nr) {
		struct async_req *first = &batch->reqs[batch->next_chain];

		if (WARN_ON_ONCE(!async_claim_chain(batch, pool, first)))
			break;
		*nr_entries += first->chain_len;
		n++;
	}
	return n;
}

/*
 * The submitter's part of a shared batch: it runs the chains from entry
 * @next on that no worker took first, and queues again those that must
 * go to a worker.  @done counts the entries that left the count in
 * flight so far.  Returns 0, or -ECANCELED after a seccomp kill.
 */
static int async_run_shared(struct async_batch *batch,
			    struct async_pool *pool, unsigned int next,
			    unsigned int done)
{
	unsigned int i, ended = 0, chains = 0, claims = 0;
	struct async_ctx *ctx = batch->ctx;
	bool claimed, killed = false;
	struct async_orphans orphans;
	u64 start = ktime_get_ns();
	struct async_req *stop;
	LIST_HEAD(stopped);

	for (i = next; i < batch->nr; i += batch->reqs[i].chain_len) {
		struct async_req *first = &batch->reqs[i];

		chains++;
		/* A dying submitter leaves the rest to the workers, to cancel. */
		if (fatal_signal_pending(current))
			break;
		spin_lock(&ctx->lock);
		claimed = async_claim_chain(batch, pool, first);
		spin_unlock(&ctx->lock);
		if (!claimed) {
			cond_resched();
			continue;
		}
		claims++;
		stop = async_run_chain_inline(batch, first, &killed);
		if (!stop || killed) {
			/* A kill leaves its entry and the rest pending. */
			done += first->chain_len;
			ended++;
			if (killed)
				break;
		} else {
			done += stop - first;
			async_requeue_chain(batch, pool, stop);
		}
		cond_resched();
	}
	/* Workers helped, and the chains were worth a lock each. */
	pool->share_at_once = claims && claims < chains &&
			      ktime_get_ns() - start >=
			      (u64)claims * ASYNC_SHARE_CHAIN_NS;

	async_orphans_init(&orphans);
	spin_lock(&ctx->lock);
	batch->sharing = false;
	if (killed) {
		bool running = false;

		/* Stop the chains workers took, as a kill on a worker would. */
		async_cancel_batch(batch, batch->uentries, batch->nr,
				   batch->entry_size, &stopped, &running);
		if (running)
			async_interrupt_cancelled(ctx);
		ended += async_unqueue_chains(batch, pool, &done);
	} else if (!list_empty(&batch->queue_node) && !pool->nr_workers) {
		/* Left queued by async_pool_kick() with no worker left. */
		list_move_tail(&batch->queue_node, &orphans.batches);
	}
	spin_unlock(&ctx->lock);
	/* A batch with no timer stops none. */
	WARN_ON_ONCE(!list_empty(&stopped));
	atomic_sub(done, &ctx->inflight);
	async_end_chains(batch, ended);
	async_cancel_orphans(&orphans);
	return killed ? -ECANCELED : 0;
}

/*
 * Each kernel work gets a worker of its own: an idle one, or one created
 * for it.  A worker merely on its way might be a creation that fails,
 * and the work would then wait behind busy ones.
 */
static bool async_pool_can_take_work(struct async_pool *pool)
	__must_hold(&pool->ctx->lock)
{
	return !list_empty(&pool->idle);
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
	taken = list_empty(&work->node);
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

	/* Workers made in a compat call would run later entries as compat. */
	if ((current->flags & (PF_KTHREAD | PF_IO_WORKER)) || !current->mm ||
	    in_compat_syscall())
		return -EOPNOTSUPP;
	if (!async_work_allowed())
		return -EPERM;
	ctx = async_ctx_get();
	if (!ctx)
		return -ENOMEM;
	work->cred = get_current_cred();
	work->pkey_rights = arch_async_pkey_rights();
	err = async_work_queue_fast(ctx, work);
	if (err > 0) {
		pool = async_pool_get(ctx);
		err = PTR_ERR_OR_ZERO(pool);
		if (!err) {
			err = async_work_queue_slow(pool, work);
			async_pool_unpin(pool);
		}
	}
	if (err) {
		put_cred(work->cred);
		work->cred = NULL;
	}
	return err;
}

/**
 * async_work_cancel() - cancel queued work
 * @work: Work set up with async_work_init(), queued or about to be.
 *
 * Work not yet started completes with -ECANCELED when a worker reaches
 * it; running work gets TIF_NOTIFY_SIGNAL, which ends an interruptible
 * wait.  Callable in atomic context, as long as the caller keeps @work
 * alive, for instance by holding a lock its ->complete() takes.
 */
void async_work_cancel(struct async_work *work)
{
	struct task_struct *runner;

	WRITE_ONCE(work->cancelled, true);
	/* Pairs with the barrier in async_run_work(). */
	smp_mb();
	rcu_read_lock();
	runner = READ_ONCE(work->runner);
	if (runner)
		set_notify_signal(runner);
	rcu_read_unlock();
}
