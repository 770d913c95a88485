// SPDX-License-Identifier: GPL-2.0
/*
 * Checking and queueing the entries of one async_submit() call.
 *
 * All or nothing: every entry is copied and checked before any is queued.
 * When entry k is refused, the call fails with its error, entry k's result
 * holds the same error, and no entry runs.
 */

#include <linux/async_syscall.h>
#include <linux/bitmap.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/kmemleak.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <asm/futex.h>

#include "async_syscall.h"
#include <trace/events/async_syscall.h>

/* Always inline: it is also called with user access enabled. */
static __always_inline struct async_syscall __user *
async_uentry(void __user *uentries, unsigned int index, size_t size)
{
	return uentries + (size_t)index * size;
}

/* Entries copied in one user-access window; their heads wait on the stack. */
#define ASYNC_READ_RUN		16

/* The fields of a user entry the kernel reads, besides its arguments. */
struct async_entry_head {
	u32	nr;
	u32	flags;
	u32	arg_refs;
};

/*
 * @chain_start is the index of the first entry of the chain @index is in;
 * references must stay inside [chain_start, index).  Returns the entry's
 * operation.  Inlined, as the copy is: TCG makes a call per entry cost.
 */
static __always_inline const struct async_op_def *
async_check_entry(const struct async_entry_head *h, const u64 *args,
		  unsigned int index, unsigned int chain_start, unsigned int nr)
{
	const struct async_op_def *def;
	unsigned long refs = h->arg_refs;
	unsigned int n;

	if (h->flags & ~ASYNC_SYSCALL_FLAGS)
		return ERR_PTR(-EINVAL);
	if ((h->flags & ASYNC_SYSCALL_LINK) && index == nr - 1)
		return ERR_PTR(-EINVAL);
	def = async_op_lookup(h->nr);
	if (IS_ERR(def))
		return def;
	if (refs >> def->nargs)
		return ERR_PTR(-EINVAL);
	for_each_set_bit(n, &refs, ASYNC_NR_ARGS) {
		if (args[n] < chain_start || args[n] >= index)
			return ERR_PTR(-EINVAL);
	}
	return def;
}

/*
 * Copies @n entries of the user's array from @first, of the size of this
 * kernel's, in one user-access window: their arguments to @reqs, the other
 * fields the kernel reads to @heads.  Returns how many were copied before
 * one faulted, or 0 for entries of another size.
 *
 * With @probed, the page of the last word proven writable, it also proves
 * the pages of the done words and results writable, in the same window:
 * it stores back the value it read of arg_refs, which shares done's page
 * (entries are 8-byte aligned, done is not), and of the result.  Never
 * done itself, which a waiter may be marking.
 */
static __always_inline unsigned int
async_read_run(struct async_entry_head *heads, struct async_req *reqs,
	       void __user *uentries, unsigned int first, unsigned int n,
	       size_t size, unsigned long *probed)
{
	struct async_syscall __user *ue;
	unsigned int i = 0, k;
	s64 result;

	if (size != sizeof(*ue))
		return 0;
	ue = async_uentry(uentries, first, size);
	if (!user_access_begin(ue, n * sizeof(*ue)))
		return 0;
	for (; i < n; i++, ue++) {
		unsafe_get_user(heads[i].nr, &ue->nr, out);
		unsafe_get_user(heads[i].flags, &ue->flags, out);
		for (k = 0; k < ASYNC_NR_ARGS; k++)
			unsafe_get_user(reqs[i].args[k], &ue->args[k], out);
		unsafe_get_user(heads[i].arg_refs, &ue->arg_refs, out);
		if (!probed)
			continue;
		if (((unsigned long)&ue->arg_refs & PAGE_MASK) != *probed) {
			unsafe_put_user(heads[i].arg_refs, &ue->arg_refs, out);
			*probed = (unsigned long)&ue->arg_refs & PAGE_MASK;
		}
		if (((unsigned long)&ue->result & PAGE_MASK) != *probed) {
			unsafe_get_user(result, &ue->result, out);
			unsafe_put_user(result, &ue->result, out);
			*probed = (unsigned long)&ue->result & PAGE_MASK;
		}
	}
out:
	user_access_end();
	return i;
}

/*
 * Copies entry @index alone, its arguments to @req, and checks it.  An entry
 * of another size than this kernel's is zero-extended or must end in zeroes.
 */
static const struct async_op_def *
async_read_entry(struct async_entry_head *h, struct async_req *req,
		 void __user *uentries, unsigned int index, size_t size,
		 unsigned int chain_start, unsigned int nr)
{
	struct async_syscall e __uninitialized;
	int ret;

	if (!async_read_run(h, req, uentries, index, 1, size, NULL)) {
		ret = copy_struct_from_user(&e, sizeof(e),
					    async_uentry(uentries, index, size),
					    size);
		if (ret)
			return ERR_PTR(ret);
		h->nr = e.nr;
		h->flags = e.flags;
		h->arg_refs = e.arg_refs;
		memcpy(req->args, e.args, sizeof(e.args));
	}
	return async_check_entry(h, req->args, index, chain_start, nr);
}

/* @nr was found by async_op_lookup(): a system call, or a known operation. */
static u16 async_req_op(u32 nr)
{
	return nr < ASYNC_OP_BASE ? nr : ASYNC_REQ_OP | (nr - ASYNC_OP_BASE);
}

static void async_report(void __user *uentries, unsigned int index,
			 size_t size, long err)
{
	/* Best effort: the call's own return value already says it all. */
	put_user(err, &async_uentry(uentries, index, size)->result);
}

long async_probe(void __user *uentries, unsigned int nr, size_t size)
{
	unsigned int i, chain_start = 0;
	struct async_entry_head h __uninitialized;
	struct async_req req __uninitialized;
	bool after_target = false;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = PTR_ERR_OR_ZERO(async_read_entry(&h, &req, uentries, i,
						       size, chain_start, nr));
		if (!ret && h.nr == ASYNC_OP_LINK_TIMEOUT)
			ret = async_link_timeout_read(req.args, h.arg_refs,
						      after_target);
		after_target = !ret && h.nr != ASYNC_OP_LINK_TIMEOUT &&
			       (h.flags & ASYNC_SYSCALL_LINK);
		if (ret == -EFAULT)
			return ret;
		if (put_user((s64)ret, &async_uentry(uentries, i, size)->result))
			return -EFAULT;
		if (ret || !(h.flags & ASYNC_SYSCALL_LINK))
			chain_start = i + 1;
	}
	return 0;
}

/*
 * kvmalloc() rounds a size past the largest kmalloc cache up to a power of
 * two, so a batch just past one would waste nearly half its memory: whole
 * pages instead.  Not zeroed: every field is set before the batch is used.
 */
static struct async_batch *async_batch_alloc(unsigned int nr)
{
	size_t size = struct_size_t(struct async_batch, reqs, nr);
	const gfp_t gfp = GFP_KERNEL_ACCOUNT;
	void *batch;

	if (size <= PAGE_SIZE)
		return kmalloc(size, gfp);
	/* Contiguous if it comes easily, as for kvmalloc(). */
	if (size <= KMALLOC_MAX_CACHE_SIZE) {
		batch = kmalloc(size, gfp | __GFP_NORETRY | __GFP_NOWARN);
	} else {
		batch = alloc_pages_exact(size,
					  gfp | __GFP_NORETRY | __GFP_NOWARN);
		/* Pages are not tracked: the timers are referenced from here. */
		if (batch)
			kmemleak_alloc(batch, size, 1, gfp);
	}
	return batch ?: __vmalloc(size, gfp);
}

/**
 * async_batch_free() - free a batch from async_batch_alloc()
 * @batch: The batch, with @batch->nr set.
 */
void async_batch_free(struct async_batch *batch)
{
	size_t size = struct_size(batch, reqs, batch->nr);

	if (is_vmalloc_addr(batch)) {
		vfree(batch);
	} else if (size <= KMALLOC_MAX_CACHE_SIZE) {
		kfree(batch);
	} else {
		kmemleak_free(batch);
		free_pages_exact(batch, size);
	}
}

/*
 * A batch of up to this many entries starts on the submitter's stack: a
 * small call mostly completes there, and then allocates nothing.
 */
#define ASYNC_STACK_ENTRIES	4

/*
 * Moves @batch from the stack to the heap, before anything of it may
 * outlive the call.  Its lists and completion are not set up yet.
 */
static struct async_batch *async_batch_move(struct async_batch *batch,
					    gfp_t gfp)
{
	size_t size = struct_size(batch, reqs, batch->nr);
	struct async_batch *heap;

	if (!batch->on_stack)
		return batch;
	heap = kmalloc(size, gfp);
	if (heap) {
		memcpy(heap, batch, size);
		heap->on_stack = false;
	}
	return heap;
}

/*
 * Reads and checks the entries into @batch, which has room for @nr.
 * *@writable tells whether the copy also proved every done word and result
 * writable.
 */
static int async_read_batch(struct async_batch *batch, void __user *uentries,
			    unsigned int nr, size_t size, bool *writable)
{
	unsigned int i, slot, copied = 0, chain_start = 0;
	/* Not page-aligned: no page is proven yet. */
	unsigned long probed = 1;
	/* Only what the copy fills is read: not zeroed per call. */
	struct async_entry_head heads[ASYNC_READ_RUN] __uninitialized;
	struct async_entry_head *h;
	const struct async_op_def *def;
	int ret;

	batch->nr = nr;
	batch->nr_timed = 0;
	batch->nr_link_timeouts = 0;
	*writable = arch_async_store_proves_done();

	for (i = 0; i < nr; i++) {
		struct async_req *req = &batch->reqs[i];

		slot = i % ASYNC_READ_RUN;
		if (!slot)
			copied = async_read_run(heads, req, uentries, i,
						min(nr - i, ASYNC_READ_RUN),
						size, *writable ? &probed : NULL);
		*writable &= slot < copied;
		h = &heads[slot];
		if (slot < copied)
			def = async_check_entry(h, req->args, i, chain_start,
						nr);
		else
			def = async_read_entry(h, req, uentries, i,
					       size, chain_start, nr);
		if (IS_ERR(def)) {
			ret = PTR_ERR(def);
			if (ret != -EFAULT)
				async_report(uentries, i, size, ret);
			return ret;
		}
		/* Field by field: zeroing it first costs a string store per entry. */
		req->op = async_req_op(h->nr);
		req->chain_len = 0;
		req->flags = h->flags;
		req->arg_refs = h->arg_refs;
		req->state = ASYNC_REQ_QUEUED;
		req->cancelled = false;
		if (unlikely(async_req_is_link_timeout(req))) {
			ret = async_link_timeout_read(req->args, req->arg_refs,
						      i > chain_start &&
						      !async_req_is_link_timeout(req - 1));
			if (ret) {
				if (ret != -EFAULT)
					async_report(uentries, i, size, ret);
				return ret;
			}
			batch->nr_link_timeouts++;
		}
		if (!(h->flags & ASYNC_SYSCALL_LINK)) {
			batch->reqs[chain_start].chain_len = i - chain_start + 1;
			/* Here: a batch without sleeps then needs no other pass. */
			if (def->sleep)
				batch->nr_timed += async_req_timed(req, def);
			chain_start = i + 1;
		}
	}
	return 0;
}

/**
 * async_done_op() - change a done word atomically
 * @done: The word, in the submitter's memory; for a probe (an add of 0),
 *	any aligned word of an entry.
 * @op: %FUTEX_OP_ANDN or %FUTEX_OP_ADD.
 * @oparg: Its argument.
 *
 * With %ASYNC_SUBMIT_WAKE_MARKED no store may race with a waiter marking
 * the word, so every change is an atomic operation.
 *
 * Return: 0, -EFAULT, or -EINTR on a fatal signal.
 */
int async_done_op(u32 __user *done, int op, u32 oparg)
{
	int old, ret;

	for (;;) {
		ret = arch_futex_atomic_op_inuser(op, oparg, &old, done);
		if (ret != -EAGAIN)
			return ret ? -EFAULT : 0;
		/* Contended (arm64 gives up after a number of tries). */
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/* Proves the page of @word writable, unless it is *@probed, the last one. */
static int async_probe_page(u32 __user *word, unsigned long *probed)
{
	unsigned long page = (unsigned long)word & PAGE_MASK;
	int ret;

	if (page == *probed)
		return 0;
	/* Adding 0 atomically changes nothing, whatever a waiter does. */
	ret = async_done_op(word, FUTEX_OP_ADD, 0);
	if (!ret)
		*probed = page;
	return ret;
}

/*
 * Only once nothing can fail the call any more may the done words change.
 * This also proves the array's done words and results writable before any
 * entry runs, unless the copy did (@writable).  Without
 * %ASYNC_SUBMIT_WAKE_MARKED every done word is reset, as in ABI 1, where 2
 * was as good as any other leftover value.  With it, only the words of the
 * entries that leave the submitter are reset, by async_run_inline(); the
 * completion of the others exchanges theirs anyway.  A result may start a
 * page that holds no done word.
 */
static int async_mark_pending(void __user *uentries, unsigned int nr,
			      size_t size, bool marked, bool writable)
{
	struct async_syscall __user *ue;
	unsigned long probed = 1;
	unsigned int i;
	int ret = 0;

	if (!marked) {
		if (!user_write_access_begin(uentries, (size_t)nr * size))
			return -EFAULT;
		for (i = 0; i < nr; i++)
			unsafe_put_user(ASYNC_SYSCALL_PENDING,
					&async_uentry(uentries, i, size)->done,
					efault);
		user_write_access_end();
	}
	if (writable)
		return 0;
	for (i = 0; i < nr && !ret; i++) {
		ue = async_uentry(uentries, i, size);
		if (marked)
			ret = async_probe_page(&ue->done, &probed);
		else
			probed = (unsigned long)&ue->done & PAGE_MASK;
		if (!ret)
			ret = async_probe_page((u32 __user *)&ue->result,
					       &probed);
	}
	return ret;
efault:
	user_write_access_end();
	return -EFAULT;
}

/*
 * Charges @nr entries to the process: in flight until each completes, and
 * held until the last of the batch has, as the batch is freed only then
 * (async_batch_put()).  Returns false if either is over its bound.
 */
static bool async_charge(struct async_ctx *ctx, unsigned int nr)
{
	bool over = atomic_add_return(nr, &ctx->inflight) > ASYNC_MAX_INFLIGHT;

	over |= atomic_add_return(nr, &ctx->held) > ASYNC_MAX_HELD;
	return !over;
}

/*
 * Only sleeps on timers are left, which were checked already and run as
 * no one: they need neither the creds nor the filters, which would stay
 * pinned, thread gone or not, as long as a sleep lasts.
 */
static void async_batch_sleeps_only(struct async_batch *batch)
{
	put_cred(batch->cred);
	batch->cred = NULL;
	seccomp_filter_put(batch->seccomp);
	batch->seccomp = NULL;
}

/*
 * The pace of an inline run needs the clock from the start of a batch of
 * several chains, tracing always; a lone chain reads it only if it leaves
 * the submitter (async_batch_pin()).
 */
static bool async_batch_clocked(const struct async_batch *batch)
{
	return batch->reqs[0].chain_len < batch->nr ||
	       trace_async_syscall_start_enabled() ||
	       trace_async_syscall_complete_enabled();
}

long async_submit(void __user *uentries, unsigned int nr, size_t size,
		  unsigned int flags)
{
	__DEFINE_FLEX(struct async_batch, stack_batch, reqs, ASYNC_STACK_ENTRIES,
		      __uninitialized);
	struct async_batch *batch;
	struct async_pool *pool;
	struct async_ctx *ctx;
	unsigned int i, nr_blocking;
	/* Audit sees every entry as a system call of its own, on a worker. */
	bool audited = async_audited();
	int punted, may_punt;
	bool writable;
	long ret;

	ctx = async_ctx_get();
	if (!ctx)
		return -ENOMEM;
	/* Entries audited on workers would only move it at once. */
	if (nr <= ASYNC_STACK_ENTRIES && !audited)
		batch = stack_batch;
	else
		batch = async_batch_alloc(nr);
	if (!batch)
		return -ENOMEM;
	batch->on_stack = batch == stack_batch;
	ret = async_read_batch(batch, uentries, nr, size, &writable);
	/* A timer points at its batch from the start. */
	if (!ret && (batch->nr_timed || batch->nr_link_timeouts)) {
		batch = async_batch_move(batch, GFP_KERNEL_ACCOUNT);
		if (!batch)
			return -ENOMEM;
	}
	if (ret) {
		if (!batch->on_stack)
			async_batch_free(batch);
		return ret;
	}
	batch->entry_size = size;
	batch->uentries = uentries;
	/* Referenced by async_batch_pin(); the timers' pins count in it. */
	batch->mm = current->mm;
	batch->timers = NULL;
	batch->link_timeouts = NULL;

	ret = -EAGAIN;
	if (!async_charge(ctx, nr))
		goto out_charged;
	may_punt = async_setup_timers(batch, audited);
	ret = min(may_punt, 0) ?: async_setup_link_timeouts(batch);
	if (ret)
		goto out_charged;
	/*
	 * -ERESTARTNOINTR when a signal is pending: nothing is queued yet.
	 * Sleeps alone need no worker.
	 */
	pool = async_pool_get(ctx, may_punt > 0);
	if (IS_ERR(pool)) {
		ret = PTR_ERR(pool);
		goto out_charged;
	}
	ret = async_mark_pending(uentries, nr, size,
				 flags & ASYNC_SUBMIT_WAKE_MARKED, writable);
	if (ret)
		goto out_pinned;

	refcount_set(&batch->refs, 1);
	batch->wake_marked = flags & ASYNC_SUBMIT_WAKE_MARKED;
	batch->pinned = false;
	batch->cred = NULL;
	batch->pkey_rights = arch_async_pkey_rights();
	batch->ctx = ctx;
	batch->seccomp = seccomp_filter_current();
	batch->ip = instruction_pointer(current_pt_regs());
	batch->audited = audited;
	batch->submit_ns = async_batch_clocked(batch) ? ktime_get_ns() : 0;
	if (trace_async_syscall_submit_enabled()) {
		for (i = 0; i < nr; i++) {
			const struct async_req *req = &batch->reqs[i];

			trace_async_syscall_submit(i, async_req_nr(req),
						   req->flags, req->arg_refs);
		}
	}

	ret = nr;
	batch->shared = false;
	batch->sharing = false;
	punted = async_run_inline(batch, pool, audited, &nr_blocking);
	if (punted >= 0 && punted + batch->nr_armed) {
		/* Entries ran: the call may no longer fail. */
		batch = async_batch_move(batch,
					 GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
		/* The chains hold a reference until the last is done. */
		async_batch_pin(batch);
		refcount_inc(&batch->refs);
		atomic_set(&batch->pending, punted + batch->nr_armed);
		async_queue_chains(batch, pool, punted, nr_blocking);
		if (!punted && !batch->shared)
			async_batch_sleeps_only(batch);
	} else if (punted < 0) {
		/* A seccomp kill: the submitter dies on its way out. */
		if (!batch->shared)
			atomic_sub(nr, &ctx->inflight);
		ret = punted;
	}
	async_pool_unpin(pool);
	/* On a signal the entries go on; their done words still report them. */
	if ((flags & ASYNC_SUBMIT_WAIT) && punted >= 0 &&
	    (batch->shared || punted + batch->nr_armed) &&
	    wait_for_completion_interruptible(&batch->all_done))
		ret = async_wait_interrupted(batch, nr);
	if (batch->on_stack)
		atomic_sub(nr, &ctx->held);
	else
		async_batch_put(batch);
	return ret;

out_pinned:
	async_pool_unpin(pool);
out_charged:
	atomic_sub(nr, &ctx->inflight);
	atomic_sub(nr, &ctx->held);
	async_free_timers(batch);
	async_free_link_timeouts(batch);
	if (!batch->on_stack)
		async_batch_free(batch);
	return ret;
}
