// SPDX-License-Identifier: GPL-2.0
/*
 * How entries run: in the submitter while they complete without blocking,
 * then on a worker, which takes the chain over where the submitter left it.
 *
 * A long batch that the submitter runs itself is shared with an idle
 * worker once it has run for a while, at a pace looked at every few
 * chains; share.c holds the queue's side of it.
 */

#include <linux/async_syscall.h>
#include <linux/cred.h>
#include <linux/futex.h>
#include <linux/math64.h>
#include <linux/nospec.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "async_syscall.h"

#define CREATE_TRACE_POINTS
#include <trace/events/async_syscall.h>

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

	if ((!def->nowait && !def->sleep && !def->direct) ||
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
			async_trace_entry(nr, args, NULL);
			return true;
		}
		goto done;
	}

	if (def->direct) {
		ret = async_call_inline(nr, args);
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
	async_trace_entry(nr, args, &ret);
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
void async_mark_left(struct async_batch *batch, struct async_req *req,
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

/* The link timeout entry right after entry @i of the chain at @first. */
static __always_inline struct async_req *
async_link_timeout_after(struct async_req *first, u32 i)
{
	struct async_req *next = first + i + 1;

	return i + 1 < first->chain_len && async_req_is_link_timeout(next) ?
	       next : NULL;
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
		bool runs = (!failed || (req->flags & ASYNC_SYSCALL_RUN_ANYWAY)) &&
			    !READ_ONCE(req->cancelled);
		struct async_req *lt;
		long res = -ECANCELED;

		if (async_req_is_link_timeout(req)) {
			/* It takes the target's side: the chain goes on so. */
			res = async_link_timeout_end(batch, req);
			goto done;
		}
		lt = async_link_timeout_after(first, i);
		if (runs && lt)
			async_link_timeout_arm(batch, lt);
		/* Only in a shared batch: a cancel may have come. */
		if (runs &&
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
		/* Done in time, whatever comes before the timeout entry. */
		if (lt)
			async_link_timeout_end(batch, lt);
		if (res < 0)
			failed = true;
done:
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
unsigned int async_next_chain(struct async_batch *batch,
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
struct async_req *async_take_chain(struct async_batch *batch)
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
bool async_chain_blocks(struct async_req *req)
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

/*
 * Whether the chains of @batch from @next on could go to another CPU now:
 * it is not on the submitter's stack, it has no sleeps on timers, whose
 * set-up assumes the submitter runs it alone, and an idle worker has an
 * idle CPU to run on.  On one CPU, or with every CPU busy, a worker would
 * only take time from the submitter.
 */
static bool async_share_possible(struct async_batch *batch,
				 struct async_pool *pool, unsigned int next)
{
	unsigned int this_cpu, cpu;

	if (batch->on_stack || batch->nr_timed ||
	    next + batch->reqs[next].chain_len >= batch->nr)
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
		/* Not one a worker left or parked: it goes on from there. */
		claimed = !(first->flags & ASYNC_REQ_PUNTED) &&
			  async_claim_chain(batch, pool, first);
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

/* An operation is audited and traced as the system call it does. */
static long async_call(const struct async_op_def *def, u32 nr,
		       const u64 *args)
{
	if (def->issue)
		nr = def->as_syscall(args);
	return async_enter_syscall(nr, args, def->issue);
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

	/* Seccomp let it run before it waited for a page. */
	if (w->pagewait)
		return async_pagewait_continue(w);
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

	/* After seccomp, which may kill for the call whatever its arguments. */
	if (def->check) {
		ret = def->check(args);
		if (ret)
			return ret;
	}
	if (def->pagewait && async_pagewait_start(w, batch, req, args, &ret))
		return ret;
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
void async_run_chain(struct async_worker *w, struct async_batch *batch,
		     struct async_req *first, bool untried)
{
	const struct cred *old_cred;
	bool failed;
	u32 i;

	/* Workers die before exec installs a new mm; never write into one. */
	if (WARN_ON_ONCE(current->mm != batch->mm)) {
		async_worker_no_chain(w);
		async_link_timeouts_end_chain(batch, first);
		async_pagewait_forget(batch, first);
		async_chain_done(batch, first);
		return;
	}

	failed = first->flags & ASYNC_REQ_CHAIN_FAILED;
	w->pagewait = async_pagewait_resume(batch, first);
	old_cred = override_creds(batch->cred);
	arch_async_set_pkey_rights(batch->pkey_rights);
	for (i = 0; i < first->chain_len; i++) {
		struct async_req *req = first + i;
		unsigned int index = req - batch->reqs;
		bool traced = trace_async_syscall_start_enabled() ||
			      trace_async_syscall_complete_enabled();
		u64 start_ns = traced ? ktime_get_ns() : 0;
		struct async_req *lt;
		long res = -ECANCELED;

		trace_async_syscall_start(index, async_req_nr(req),
					  start_ns - batch->submit_ns);
		if (async_req_is_link_timeout(req)) {
			/* It takes the target's side: the chain goes on so. */
			res = async_link_timeout_end(batch, req);
			goto done;
		}
		lt = async_link_timeout_after(first, i);
		if (lt && (!failed || (req->flags & ASYNC_SYSCALL_RUN_ANYWAY)) &&
		    !READ_ONCE(req->cancelled))
			async_link_timeout_arm(batch, lt);
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
		if (res == -EIOCBQUEUED && w->pagewait &&
		    async_pagewait_park(w, first, failed, &res)) {
			/* The chain goes on once the page is in. */
			revert_creds(old_cred);
			async_worker_clean(w);
			async_worker_no_chain(w);
			return;
		}
		/* Cancelled, or the worker is dying: it read no further. */
		if (w->pagewait)
			res = async_pagewait_end(w, res);
		/* Done in time, whatever comes before the timeout entry. */
		if (lt)
			async_link_timeout_end(batch, lt);
		if (res < 0)
			failed = true;
done:
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
