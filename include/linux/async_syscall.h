/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_ASYNC_SYSCALL_H
#define _LINUX_ASYNC_SYSCALL_H

#include <linux/errno.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/sched/signal.h>
#include <linux/types.h>

struct async_ctx;
struct async_pool;
struct async_work;
struct cred;

/**
 * struct async_work_ops - how the engine runs work handed over by the kernel
 * @run: Runs the work on a worker of the thread that queued it, with the
 *	credentials it was queued with, and returns its result; or, for
 *	async_work_queue_tried(), first in that thread itself.  A restart
 *	code makes the engine call it again, so it must have consumed nothing
 *	then.  With @unwait, -EIOCBQUEUED parks the work: @run armed a wait
 *	whose callback calls async_work_wake(), and no worker is held until
 *	then; @run is called again once a worker takes the woken work.  Not
 *	called if the work was cancelled before it started or while parked.
 * @complete: Called once for every queued work, with the result of @run,
 *	-EINTR if a cancel or a fatal signal interrupted it, or -ECANCELED if
 *	it never ran or was cancelled while parked.  The engine does not touch
 *	the work afterwards.
 * @unwait: For work that parks: takes back the wait @run armed, and
 *	returns true if its callback will not run.  Called when the process
 *	exits or execs while the work is parked, and when it is cancelled.
 */
struct async_work_ops {
	long	(*run)(struct async_work *work);
	void	(*complete)(struct async_work *work, long res);
	bool	(*unwait)(struct async_work *work);
};

/**
 * struct async_work - one operation handed to the async_submit() workers
 *	from inside the kernel
 * @ops: What to run, and how to report it.
 * @node: Link in the queue of the pool it was handed to, or in the
 *	process's parked work.
 * @woken_node: Link in the process's woken work, from async_work_wake().
 * @ctx: The process's context, once queued.
 * @pool: The pool whose worker took it, once one has.
 * @cred: Credentials of the thread that queued it.
 * @pkey_rights: Protection-key rights of the thread that queued it, which
 *	its user memory accesses use; see arch_async_pkey_rights().
 * @runner: The worker running it, or NULL.
 * @cancelled: async_work_cancel() was called.
 * @parked: It waits for async_work_wake(), with no worker.
 * @woken: The wake came before its worker parked it: it runs on.
 *
 * Set up with async_work_init(); the other fields are the engine's.
 */
struct async_work {
	const struct async_work_ops	*ops;
	struct list_head		node;
	struct llist_node		woken_node;
	struct async_ctx		*ctx;
	struct async_pool		*pool;
	const struct cred		*cred;
	u64				pkey_rights;
	struct task_struct		*runner;
	bool				cancelled;
	bool				parked;
	bool				woken;
};

static inline void async_work_init(struct async_work *work,
				   const struct async_work_ops *ops)
{
	work->ops = ops;
	INIT_LIST_HEAD(&work->node);
	work->cred = NULL;
	work->pkey_rights = 0;
	work->ctx = NULL;
	work->pool = NULL;
	work->runner = NULL;
	work->cancelled = false;
	work->parked = false;
	work->woken = false;
}

/*
 * In ->run(): on a worker, or in the thread that queued the work with
 * async_work_queue_tried(), where it must not wait for the device.
 */
static inline bool async_work_on_worker(void)
{
	return current->flags & PF_ASYNC_WORKER;
}

#ifdef CONFIG_ASYNC_SYSCALL
void __async_syscall_free(struct async_ctx *ctx);
void __async_syscall_stop_sleeps(struct async_ctx *ctx);
int async_work_queue(struct async_work *work);
int async_work_queue_tried(struct async_work *work);
void async_work_cancel(struct async_work *work);
void async_work_wake(struct async_work *work);
bool async_work_may_park(struct async_work *work);

/*
 * Called by the last thread of a process to exit, and by exec once the
 * other threads are gone: no timer of an entry outlives the mm.
 */
static inline void async_syscall_stop_sleeps(struct signal_struct *sig)
{
	if (sig->async_ctx)
		__async_syscall_stop_sleeps(sig->async_ctx);
}

/* Called when the last thread of a process is gone: no worker is left. */
static inline void async_syscall_free(struct signal_struct *sig)
{
	if (sig->async_ctx)
		__async_syscall_free(sig->async_ctx);
}
#else
static inline int async_work_queue(struct async_work *work)
{
	return -EOPNOTSUPP;
}

static inline int async_work_queue_tried(struct async_work *work)
{
	return -EOPNOTSUPP;
}

static inline void async_work_cancel(struct async_work *work)
{
}

static inline void async_work_wake(struct async_work *work)
{
}

static inline bool async_work_may_park(struct async_work *work)
{
	return false;
}

static inline void async_syscall_stop_sleeps(struct signal_struct *sig)
{
}

static inline void async_syscall_free(struct signal_struct *sig)
{
}
#endif

#endif /* _LINUX_ASYNC_SYSCALL_H */
