// SPDX-License-Identifier: GPL-2.0
/*
 * The worker thread: its loop, its rest, and the interruptions it takes.
 *
 * A worker takes the next chain of the first queued batch, runs its
 * entries in order and takes the next chain without sleeping.  The
 * scheduler tells the pool when a worker sleeps in its work
 * (async_worker_sleeping()), and an idle worker takes the queue in its
 * place; a worker about to run a chain keeps one idle for that.  A worker
 * never returns to user mode, so it takes its signals and task work here,
 * between entries.
 */

#include <linux/async_syscall.h>
#include <linux/resume_user_mode.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>

#include "async_syscall.h"
#include "sched.h"

#define ASYNC_WORKER_IDLE	(2 * HZ)
/* Restarts of one entry when nothing was pending to interrupt it. */
#define ASYNC_QUIET_RESTARTS	8

/*
 * Takes what interrupted the worker: a cancel's notification, task work,
 * a stop or a freeze, which only pause it, or a fatal signal.  Returns
 * false once the worker must exit.
 */
bool async_worker_signals(struct async_worker *w)
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

bool async_restartable(long ret)
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
bool async_may_restart(struct async_worker *w, const bool *cancelled,
		       unsigned int *quiet)
{
	bool interrupted = signal_pending(current) || task_work_pending(current);

	if (READ_ONCE(*cancelled) || test_restore_sigmask())
		return false;
	if (!interrupted && ++*quiet > ASYNC_QUIET_RESTARTS)
		return false;
	return async_worker_signals(w) && !READ_ONCE(*cancelled);
}

/*
 * The signals a call raises for its caller: send_sig() to current, which
 * the entry made.  Another thread may have sent the same to the worker's
 * id; that one is dropped, as before, and so are signals from outside,
 * which a worker blocks, so that none can keep a worker forwarding.
 */
static bool async_raised_for_caller(const kernel_siginfo_t *info)
{
	return (info->si_signo == SIGPIPE || info->si_signo == SIGXFSZ) &&
	       info->si_code == SI_USER && info->si_pid == task_tgid_vnr(current);
}

/*
 * The signals the entry raised for its caller go to the thread that
 * submitted it, as they would have for the direct call; to the process
 * once that thread is exiting.  The rest of this thread's queue is
 * dropped, but for a group exit's SIGKILL and a seccomp kill's SIGSYS.
 */
static void async_worker_pass_signals(struct async_worker *w,
				      struct sighand_struct *sighand)
{
	struct task_struct *owner = w->pool->owner;
	kernel_siginfo_t raised[2];
	unsigned int i, nr = 0;
	enum pid_type type;
	sigset_t mask;

	spin_lock_irq(&sighand->siglock);
	if (__fatal_signal_pending(current) || w->kill_sig) {
		spin_unlock_irq(&sighand->siglock);
		return;
	}
	/*
	 * Each is a legacy signal, queued at most once.  Only what is on this
	 * thread's queue: dequeue_signal() would take from the process's too.
	 */
	while (nr < ARRAY_SIZE(raised)) {
		sigemptyset(&mask);
		sigaddsetmask(&mask, sigmask(SIGPIPE) | sigmask(SIGXFSZ));
		sigandsets(&mask, &mask, &current->pending.signal);
		if (sigisemptyset(&mask))
			break;
		signotset(&mask);
		if (!dequeue_signal(&mask, &raised[nr], &type))
			break;
		if (!WARN_ON_ONCE(type != PIDTYPE_PID) &&
		    async_raised_for_caller(&raised[nr]))
			nr++;
	}
	flush_sigqueue(&current->pending);
	recalc_sigpending();
	spin_unlock_irq(&sighand->siglock);

	for (i = 0; i < nr; i++)
		do_send_sig_info(raised[i].si_signo, &raised[i], owner,
				 owner->flags & PF_EXITING ? PIDTYPE_TGID :
							     PIDTYPE_PID);
}

/*
 * A worker never returns to user mode, where a thread normally drops what
 * a system call left behind.  Do the work due on the way back to user
 * mode first (deferred fput()s, memcg and blkcg throttling, dropping the
 * request-key cache, which must not serve the next entry's creds), then
 * drop what must not leak into the next entry: a cancel's notification, a
 * signal mask set by ppoll() or pselect6(), and the signals raised on this
 * thread, which go to the submitter.  A stop or a freeze is taken here,
 * as a pause between entries.
 */
void async_worker_clean(struct async_worker *w)
{
	/* Only exec changes a thread's sighand, and exec kills workers first. */
	struct sighand_struct *sighand = rcu_dereference_protected(current->sighand, true);

	if (test_thread_flag(TIF_NOTIFY_RESUME))
		resume_user_mode_work(NULL);
	/* Before get_signal(), which must never see a handled signal. */
	restore_saved_sigmask();
	async_worker_signals(w);
	if (!sigisemptyset(&current->pending.signal))
		async_worker_pass_signals(w, sighand);
	if (w->kill_sig)
		async_kill_process(w->kill_sig);
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
void async_worker_rest(struct async_worker *w)
{
	w->working = false;
	if (w->running) {
		w->running = false;
		/* Below zero, busy_enough would hold every idle worker back. */
		WARN_ON_ONCE(atomic_dec_return(&w->pool->nr_running) < 0);
	}
}

int async_worker_fn(void *data)
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
				/* Taken: see async_work_queue_slow(). */
				work->pool = pool;
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
		/* The last idle one stays for the parked chains to come back. */
		if ((timed_out || pool->retired) && !pool->pins &&
		    (!pool->nr_parked || !list_empty(&pool->idle)) &&
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
