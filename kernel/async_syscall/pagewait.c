// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered reads that wait for their pages without holding a thread.
 *
 * A worker reads a regular file's page cache with IOCB_WAITQ.  Where a
 * page is still being read from the device, the read joins the page's
 * wait queue instead of sleeping, and the worker parks the chain there
 * and goes on to other work.  The page's unlock puts the entry on its
 * process's list of woken reads; a kworker queues the chain again, and a
 * worker reads on from where the read stopped, again without waiting for
 * a page, until the read is whole or reaches the end of the file.
 *
 * Only pread64() of a file whose filesystem supports it
 * (FOP_BUFFER_RASYNC), not direct I/O, and not while audit collects the
 * worker's records: each entry must then be one system call.  A page that
 * cannot be waited for this way (one the readahead did not make, or one
 * whose read failed) is read the way the system call reads it.
 *
 * A cancel takes back the wait of a parked read, whose chain then ends
 * with -ECANCELED, or with what the read had read.  The last thread to
 * exit, and exec, take back the waits still armed, so that a device that
 * never completes does not hold them, and complete the reads no worker is
 * left to take with -ECANCELED, while the mm is there.
 */

#include <linux/async_syscall.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/pagemap.h>
#include <linux/sched/wake_q.h>
#include <linux/sched/xacct.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait_bit.h>

#include "../../fs/internal.h"
#include "async_syscall.h"

#include <trace/events/async_syscall.h>

/**
 * struct async_pagewait - a read that waits for a page without a thread
 * @wpq: Its place on the page's wait queue.
 * @kiocb: The read, with its file held and the position it reads on at.
 * @woken_node: Link in &async_ctx.woken once the page is unlocked, then in
 *	&async_ctx.stranded if no worker was left to take it.
 * @node: Link in &async_ctx.parked from when its chain is parked until a
 *	worker takes it again, under &async_ctx.lock.
 * @batch: The batch of the entry.
 * @req: The entry.
 * @pool: The pool that takes the chain again; &async_pool.nr_parked
 *	counts it while parked.
 * @args: The entry's arguments, resolved.
 * @count: How much it reads.
 * @done: How much it has read.
 * @parked: Its worker left the chain; the wake queues it again.
 * @woken: The wake came before the worker parked: it reads on itself.
 */
struct async_pagewait {
	struct wait_page_queue	wpq;
	struct kiocb		kiocb;
	struct llist_node	woken_node;
	struct list_head	node;
	struct async_batch	*batch;
	struct async_req	*req;
	struct async_pool	*pool;
	u64			args[ASYNC_NR_ARGS];
	size_t			count;
	size_t			done;
	bool			parked;
	bool			woken;
};

/* The page's wait queue runs it as the page is unlocked, in any context. */
static int async_pagewait_wake(struct wait_queue_entry *wait,
			       unsigned int mode, int sync, void *key)
{
	struct wait_page_queue *wpq = container_of(wait, struct wait_page_queue,
						   wait);
	struct async_pagewait *pw = container_of(wpq, struct async_pagewait,
						 wpq);
	struct async_ctx *ctx = pw->batch->ctx;

	if (!wake_page_match(wpq, key))
		return 0;
	list_del_init(&wait->entry);
	/* The worker may take @pw from here on; @ctx waits for the work. */
	if (llist_add(&pw->woken_node, &ctx->woken))
		queue_work(system_wq, &ctx->woken_work);
	return 1;
}

/* What the read needs of the file, as pread64() and vfs_read() check it. */
static bool async_pagewait_file_ok(struct file *file)
{
	const fmode_t need = FMODE_READ | FMODE_CAN_READ | FMODE_PREAD;

	return (file->f_mode & need) == need && !file->f_op->read &&
	       file->f_op->read_iter &&
	       (file->f_op->fop_flags & FOP_BUFFER_RASYNC) &&
	       !(file->f_flags & O_DIRECT);
}

static void async_pagewait_free(struct async_pagewait *pw)
{
	fput(pw->kiocb.ki_filp);
	kfree(pw);
}

/*
 * Whether a worker of @pool may leave a read parked: not at the pool's
 * bound, where no worker could be made to take it back if the others
 * block, and the read would wait behind them.
 */
static bool async_pagewait_may_park(struct async_pool *pool)
{
	/* Without the lock: the bound is a limit on threads, not a promise. */
	return data_race(pool->nr_workers) < pool->ctx->max_workers;
}

/*
 * Reads on from where @pw stopped.  Returns the read's result, or
 * -EIOCBQUEUED once it waits for a page, its wake armed.
 */
static long async_pagewait_read(struct async_pagewait *pw)
{
	struct file *file = pw->kiocb.ki_filp;
	struct async_ctx *ctx = pw->batch->ctx;
	int flags = pw->kiocb.ki_flags & ~(IOCB_WAITQ | IOCB_NOWAIT);
	struct iov_iter iter;
	ssize_t ret;

	for (;;) {
		iov_iter_ubuf(&iter, ITER_DEST,
			      u64_to_user_ptr(pw->args[1]) + pw->done,
			      pw->count - pw->done);
		if (!async_pagewait_may_park(pw->pool)) {
			/* As the system call: the worker waits itself. */
			pw->kiocb.ki_flags = flags;
			ret = file->f_op->read_iter(&pw->kiocb, &iter);
			goto read;
		}
		/* The read itself sets IOCB_NOWAIT once it has read some. */
		pw->kiocb.ki_flags = flags | IOCB_WAITQ;
		/* A cancel takes back only a wait this read armed. */
		pw->wpq.folio = NULL;
		INIT_LIST_HEAD(&pw->wpq.wait.entry);
		atomic_inc(&ctx->nr_pagewaits);
		ret = file->f_op->read_iter(&pw->kiocb, &iter);
		if (ret == -EIOCBQUEUED && !WARN_ON_ONCE(!pw->wpq.folio))
			return ret;
		atomic_dec(&ctx->nr_pagewaits);
		if (ret == -EIOCBQUEUED)
			ret = -EIO;
		if (ret == -EAGAIN) {
			/* A page it cannot wait for: as the system call. */
			pw->kiocb.ki_flags = flags;
			ret = file->f_op->read_iter(&pw->kiocb, &iter);
		}
read:
		if (ret <= 0)
			return pw->done ?: ret;
		pw->done += ret;
		/* The size is the page cache's: a block device's, not its node's. */
		if (pw->done == pw->count ||
		    pw->kiocb.ki_pos >= i_size_read(file->f_mapping->host))
			return pw->done;
	}
}

/*
 * A read of @req that waits for no page, if it can be one: NULL if not,
 * having done nothing, with *@res -EAGAIN for the system call to run, or
 * with *@res the error it would give.
 */
static struct async_pagewait *
async_pagewait_new(struct async_batch *batch, struct async_req *req,
		   const u64 *args, long *res)
{
	void __user *buf = u64_to_user_ptr(args[1]);
	size_t count = args[2];
	loff_t pos = args[3];
	struct async_pagewait *pw;
	struct file *file;
	long ret;

	*res = -EAGAIN;
	/*
	 * Errors, and an empty read, as the system call makes them.  Audit,
	 * as in the submitter, as it was when the call was made.
	 */
	if (batch->audited || pos < 0 || !count || !access_ok(buf, count))
		return NULL;
	file = fget(args[0]);
	if (!file)
		return NULL;
	if (!async_pagewait_file_ok(file))
		goto out_put;
	/* First: a permission event is not sent twice. */
	pw = kmalloc(sizeof(*pw), GFP_KERNEL_ACCOUNT);
	if (!pw)
		goto out_put;
	ret = rw_verify_area(READ, file, &pos, count);
	if (ret) {
		kfree(pw);
		*res = ret;
		goto out_put;
	}
	init_sync_kiocb(&pw->kiocb, file);
	pw->kiocb.ki_pos = pos;
	pw->kiocb.ki_waitq = &pw->wpq;
	pw->wpq.wait.func = async_pagewait_wake;
	pw->wpq.wait.private = NULL;
	pw->wpq.wait.flags = 0;
	INIT_LIST_HEAD(&pw->wpq.wait.entry);
	INIT_LIST_HEAD(&pw->node);
	pw->batch = batch;
	pw->req = req;
	pw->pool = NULL;
	memcpy(pw->args, args, sizeof(pw->args));
	pw->count = min_t(size_t, count, MAX_RW_COUNT);
	pw->done = 0;
	pw->parked = false;
	pw->woken = false;
	return pw;
out_put:
	fput(file);
	return NULL;
}

/**
 * async_pagewait_start() - start a pread64() that waits for no page
 * @w: The worker, which keeps the read in @w->pagewait if it waits.
 * @batch: The batch.
 * @req: The entry, a pread64() that seccomp let run.
 * @args: Its arguments, resolved.
 * @res: Its result, unless it waits for a page: -EIOCBQUEUED.
 *
 * Return: false, having done nothing, if the read must be the system call.
 */
bool async_pagewait_start(struct async_worker *w, struct async_batch *batch,
			  struct async_req *req, const u64 *args, long *res)
{
	struct async_pagewait *pw;

	pw = async_pagewait_new(batch, req, args, res);
	if (!pw) {
		if (*res == -EAGAIN)
			return false;
		async_trace_entry(async_req_nr(req), args, res);
		return true;
	}
	pw->pool = w->pool;
	w->pagewait = pw;
	*res = async_pagewait_continue(w);
	return true;
}

/**
 * async_pagewait_continue() - read on with the read of @w->pagewait
 * @w: The worker, which started the read or took its chain again.
 *
 * Return: The entry's result, or -EIOCBQUEUED once it waits for a page.
 */
long async_pagewait_continue(struct async_worker *w)
{
	long res = async_pagewait_read(w->pagewait);

	if (res == -EIOCBQUEUED)
		return res;
	return async_pagewait_end(w, res);
}

/**
 * async_pagewait_end() - end the read of @w->pagewait
 * @w: The worker.
 * @res: The read's result, or the error that ended it before it was whole.
 *
 * Accounts the read as vfs_read() does, once for the whole read.
 *
 * Return: The entry's result: what was read, if anything was.
 */
long async_pagewait_end(struct async_worker *w, long res)
{
	struct async_pagewait *pw = w->pagewait;

	w->pagewait = NULL;
	if (pw->done)
		res = pw->done;
	if (res > 0) {
		fsnotify_access(pw->kiocb.ki_filp);
		add_rchar(current, res);
	}
	inc_syscr(current);
	async_trace_entry(async_req_nr(pw->req), pw->args, &res);
	async_pagewait_free(pw);
	return res;
}

/**
 * async_pagewait_park() - leave a chain whose read waits for a page
 * @w: The worker, whose @w->pagewait read returned -EIOCBQUEUED.
 * @first: The entry the worker took the chain at.
 * @failed: An entry of the chain before the read failed.
 * @res: The read's result, if it does not park.
 *
 * The entries before the read are done: they leave the count in flight.
 * The chain waits at the read, which the wake queues again.
 *
 * Return: true if parked; false if the page came first, and the read went
 * on in the worker, which then has its result in *@res.
 */
bool async_pagewait_park(struct async_worker *w, struct async_req *first,
			 bool failed, long *res)
{
	struct async_pagewait *pw = w->pagewait;
	struct async_batch *batch = pw->batch;
	struct async_pool *pool = w->pool;
	struct async_ctx *ctx = pool->ctx;
	struct async_req *req = pw->req;

	/* The mark is no argument reference. */
	BUILD_BUG_ON(ASYNC_REQ_PARKED & GENMASK(ASYNC_NR_ARGS - 1, 0));
	for (;;) {
		spin_lock(&ctx->lock);
		if (!pw->woken)
			break;
		pw->woken = false;
		spin_unlock(&ctx->lock);
		*res = async_pagewait_continue(w);
		if (*res != -EIOCBQUEUED)
			return false;
	}
	trace_async_syscall_pagewait(req - batch->reqs, async_req_nr(req),
				     pw->done);
	req->chain_len = first->chain_len - (req - first);
	req->flags |= ASYNC_REQ_PUNTED;
	if (failed)
		req->flags |= ASYNC_REQ_CHAIN_FAILED;
	req->state = ASYNC_REQ_PAGEWAIT;
	req->pagewait = pw;
	req->arg_refs = ASYNC_REQ_PARKED;
	w->req = NULL;
	list_add_tail(&pw->node, &ctx->parked);
	pw->pool = pool;
	pw->parked = true;
	pool->nr_parked++;
	pool->refs++;
	/* A cancel that came while the read ran did not see it parked. */
	if (READ_ONCE(req->cancelled))
		async_pagewait_cancel(ctx, req);
	spin_unlock(&ctx->lock);
	w->pagewait = NULL;
	atomic_sub(req - first, &ctx->inflight);
	return true;
}

/* Takes the read of the chain parked at @first off the parked ones. */
static struct async_pagewait *async_pagewait_unpark(struct async_req *first)
	__must_hold(&first->pagewait->batch->ctx->lock)
{
	struct async_pagewait *pw = first->pagewait;

	first->arg_refs = 0;
	list_del_init(&pw->node);
	return pw;
}

/**
 * async_pagewait_resume() - the read a chain taken at @first waits on
 * @batch: The batch.
 * @first: The entry a worker took the chain at.
 *
 * Return: The read, which the worker then owns, or NULL.
 */
struct async_pagewait *async_pagewait_resume(struct async_batch *batch,
					     struct async_req *first)
{
	struct async_pagewait *pw;

	/* Marked before the chain was queued again, under the lock. */
	if (!(first->arg_refs & ASYNC_REQ_PARKED))
		return NULL;
	spin_lock(&batch->ctx->lock);
	pw = async_pagewait_unpark(first);
	spin_unlock(&batch->ctx->lock);
	return pw;
}

/**
 * async_pagewait_cancel() - take back the wait of a cancelled parked read
 * @ctx: The process's context.
 * @req: An entry in state %ASYNC_REQ_PAGEWAIT, just marked cancelled.
 *
 * Its chain is queued again as for a wake, and ends with -ECANCELED, or
 * with what the read had read, without waiting for a device that may never
 * complete the read.
 */
void async_pagewait_cancel(struct async_ctx *ctx, struct async_req *req)
	__must_hold(&ctx->lock)
{
	struct async_pagewait *pw;

	if (!(req->arg_refs & ASYNC_REQ_PARKED))
		return;
	pw = req->pagewait;
	/* Parked, the read is no worker's: its wait is armed, or has fired. */
	if (!pw->parked || !folio_wait_async_cancel(&pw->wpq))
		return;
	if (llist_add(&pw->woken_node, &ctx->woken))
		queue_work(system_wq, &ctx->woken_work);
}

/**
 * __async_pagewait_forget() - drop the read of a chain that ends unrun
 * @batch: The batch.
 * @first: The entry the chain waits at, if it waits at a read.
 */
void __async_pagewait_forget(struct async_batch *batch,
			     struct async_req *first)
	__must_hold(&batch->ctx->lock)
{
	if (first->arg_refs & ASYNC_REQ_PARKED)
		/* fput() defers the release: fine under a spinlock. */
		async_pagewait_free(async_pagewait_unpark(first));
}

void async_pagewait_forget(struct async_batch *batch, struct async_req *first)
{
	struct async_pagewait *pw = async_pagewait_resume(batch, first);

	if (pw)
		async_pagewait_free(pw);
}

/*
 * Queues again the chain of a woken read that its worker parked; @orphans
 * gets it if the pool has no worker left.  Returns the pool if the caller
 * must free it, which only a pool with no worker left can need.
 */
static struct async_pool *
async_pagewait_requeue(struct async_pagewait *pw,
		       struct async_orphans *orphans,
		       struct wake_q_head *wake_q)
	__must_hold(&pw->batch->ctx->lock)
{
	struct async_pool *pool = pw->pool;

	pw->parked = false;
	pool->nr_parked--;
	__async_requeue_chain(pw->batch, pool, pw->req, orphans, wake_q);
	return async_pool_unref(pool);
}

static void async_pagewaits_woken(struct work_struct *work)
{
	struct async_ctx *ctx = container_of(work, struct async_ctx,
					     woken_work);
	struct llist_node *woken = llist_del_all(&ctx->woken);
	struct async_pagewait *pw, *next;
	struct async_orphans orphans;
	struct async_pool *dead;
	DEFINE_WAKE_Q(wake_q);

	async_orphans_init(&orphans);
	llist_for_each_entry_safe(pw, next, llist_reverse_order(woken),
				  woken_node) {
		dead = NULL;
		spin_lock(&ctx->lock);
		if (!pw->parked)
			pw->woken = true;
		else if (pw->pool->nr_workers)
			dead = async_pagewait_requeue(pw, &orphans, &wake_q);
		else
			llist_add(&pw->woken_node, &ctx->stranded);
		spin_unlock(&ctx->lock);
		async_pool_free(dead);
		if (atomic_dec_and_test(&ctx->nr_pagewaits))
			wake_up_var(&ctx->nr_pagewaits);
	}
	async_works_woken(ctx, &orphans, &wake_q);
	wake_up_q(&wake_q);
	/* Only work: a chain is queued again only where a worker is. */
	async_cancel_orphans(&orphans);
}

/**
 * async_pagewaits_stop() - end the reads that wait for pages
 * @ctx: The process's context.
 *
 * Called with no worker left, by the last thread to exit and by exec, in
 * the entries' mm: takes back the waits still armed, waits for the wakes
 * that came first, and completes with -ECANCELED the chains and the
 * parked work that no worker is left to take.
 */
void async_pagewaits_stop(struct async_ctx *ctx)
{
	struct async_pool *pool, *dead, *next_pool;
	struct async_pagewait *pw, *next;
	struct async_work *work, *next_work;
	struct async_orphans orphans;
	struct llist_node *stranded;
	LIST_HEAD(dead_pools);
	DEFINE_WAKE_Q(wake_q);

	async_orphans_init(&orphans);
	/* A device may never end their reads: none is waited for. */
	spin_lock(&ctx->lock);
	list_for_each_entry(pw, &ctx->parked, node) {
		if (pw->parked && folio_wait_async_cancel(&pw->wpq)) {
			llist_add(&pw->woken_node, &ctx->stranded);
			atomic_dec(&ctx->nr_pagewaits);
		}
	}
	list_for_each_entry_safe(work, next_work, &ctx->parked_works, node) {
		if (!async_work_unwait(work))
			continue;
		/* No worker: it goes to @orphans, and its pool may go. */
		dead = async_work_requeue(work, &orphans, &wake_q);
		if (dead)
			list_add(&dead->node, &dead_pools);
	}
	spin_unlock(&ctx->lock);
	/* Wakes that came first: only the kworker's part is left. */
	wait_var_event(&ctx->nr_pagewaits, !atomic_read(&ctx->nr_pagewaits));
	flush_work(&ctx->woken_work);
	stranded = llist_del_all(&ctx->stranded);
	/* All queued before any is cancelled, which takes a batch's all. */
	spin_lock(&ctx->lock);
	llist_for_each_entry_safe(pw, next, stranded, woken_node) {
		dead = async_pagewait_requeue(pw, &orphans, &wake_q);
		/* Off &async_ctx.pools: the link is free. */
		if (dead)
			list_add(&dead->node, &dead_pools);
	}
	spin_unlock(&ctx->lock);
	wake_up_q(&wake_q);
	async_cancel_orphans(&orphans);
	/*
	 * A cancel that saw a work parked may queue the kworker until the
	 * work completes, which it cannot while the canceller is at it.
	 */
	flush_work(&ctx->woken_work);
	list_for_each_entry_safe(pool, next_pool, &dead_pools, node)
		async_pool_free(pool);
}

void async_ctx_init_pagewaits(struct async_ctx *ctx)
{
	INIT_LIST_HEAD(&ctx->parked);
	INIT_LIST_HEAD(&ctx->parked_works);
	atomic_set(&ctx->nr_pagewaits, 0);
	init_llist_head(&ctx->woken);
	init_llist_head(&ctx->woken_works);
	atomic_set(&ctx->cancel_parked, 0);
	init_llist_head(&ctx->stranded);
	INIT_WORK(&ctx->woken_work, async_pagewaits_woken);
}
