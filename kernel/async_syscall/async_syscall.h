/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KERNEL_ASYNC_SYSCALL_H
#define _KERNEL_ASYNC_SYSCALL_H

#include <linux/audit.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/seccomp.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/tracepoint-defs.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/async_syscall.h>
#include <asm/async_syscall.h>

struct async_pagewait;
struct async_work;
struct wake_q_head;

#define ASYNC_NR_ARGS		6
#define ASYNC_SYSCALL_FLAGS	(ASYNC_SYSCALL_LINK | ASYNC_SYSCALL_RUN_ANYWAY | \
				 ASYNC_SYSCALL_FORCE_ASYNC)
#define ASYNC_MAX_INFLIGHT	16384
/* One pending entry holds its whole batch: a bound on kernel memory. */
#define ASYNC_MAX_HELD		(4 * ASYNC_MAX_INFLIGHT)
#define ASYNC_MAX_WORKERS	256

/**
 * struct async_sleep - a sleep as an hrtimer runs it
 * @clock: Its clock.
 * @mode: %HRTIMER_MODE_REL or %HRTIMER_MODE_ABS.
 * @expires: When it ends, on @clock.
 * @rem: Where the time left goes if it is interrupted, or NULL.
 */
struct async_sleep {
	clockid_t		clock;
	enum hrtimer_mode	mode;
	ktime_t			expires;
	void __user		*rem;
};

/**
 * struct async_op_def - what async_submit() knows about one operation
 * @name: Name of the system call or operation, for tracing and errors.
 * @nargs: Number of arguments it takes; references beyond it are refused.
 * @issue: Runs an asynchronous-only operation.  NULL for a system call,
 *	which runs through the architecture's system call dispatcher.
 * @as_syscall: For an operation, the number of the system call whose
 *	effect it has with arguments @args: seccomp checks it, and audit and
 *	the raw_syscalls tracepoints see it, as that call with @args, so that
 *	a rule on the call covers the operation.  NULL for a system call.
 * @nowait: Runs the operation in the submitting thread if it completes
 *	without blocking, or returns -EAGAIN having done nothing.  NULL if
 *	it always goes to a worker.
 * @waits: Waits for an event the kernel does not control (a timer, a
 *	peer), so each such entry gets a worker of its own at once.
 * @sleep: Only sleeps: reads the sleep into @sleep and returns 0, or
 *	returns the call's error.  Returns -EAGAIN having read nothing when
 *	no hrtimer runs the clock; with a NULL @sleep, only checks that.
 * @check: Returns -EOPNOTSUPP for arguments with which the call would act
 *	on the calling thread, which is not the submitter on a worker; else
 *	0.  Called on a worker after seccomp, with the arguments resolved.
 *	Such a call has no @nowait.
 * @direct: The call never waits, for I/O, a peer or a lock held across
 *	one: the submitting thread makes it itself, through the arch's
 *	table, as it would make the direct call.
 * @pagewait: A buffered read, which a worker runs without waiting for the
 *	pages it reads; see pagewait.c.
 */
struct async_op_def {
	const char	*name;
	unsigned int	nargs;
	bool		waits;
	long		(*issue)(const u64 *args);
	u32		(*as_syscall)(const u64 *args);
	long		(*nowait)(const u64 *args);
	int		(*sleep)(const u64 *args, struct async_sleep *sleep);
	long		(*check)(const u64 *args);
	bool		direct;
	bool		pagewait;
};

extern const struct async_op_def async_syscall_defs[];
extern const struct async_op_def async_op_defs[];

const struct async_op_def *async_op_lookup(u32 nr);

enum async_req_state {
	ASYNC_REQ_QUEUED,
	ASYNC_REQ_RUNNING,
	ASYNC_REQ_TIMED,
	ASYNC_REQ_DONE,
	ASYNC_REQ_INLINE,
	ASYNC_REQ_TAKEN,
	ASYNC_REQ_PAGEWAIT,
};

/*
 * From a ->nowait method: -EAGAIN, and what the entry waits for is a peer
 * (an empty pipe), so it gets a worker of its own at once.  Outside the
 * errno range: never a result.
 */
#define ASYNC_NOWAIT_PEER	(-MAX_ERRNO - 1L)

/* Flags of &struct async_req beside the user's ASYNC_SYSCALL_* ones. */
#define ASYNC_REQ_PUNTED	BIT(3)	/* tried, left for a worker */
#define ASYNC_REQ_TIMER		BIT(4)	/* may sleep on its timer */
#define ASYNC_REQ_WAITS		BIT(5)	/* tried, waits for a peer */
#define ASYNC_REQ_ALLOWED	BIT(6)	/* seccomp let it run already */
#define ASYNC_REQ_CHAIN_FAILED	BIT(7)	/* an earlier entry failed */

/* In &async_req.arg_refs, past the arguments: see &async_req.pagewait. */
#define ASYNC_REQ_PARKED	BIT(7)

/* An ASYNC_OP_* number as &struct async_req keeps it, in 16 bits. */
#define ASYNC_REQ_OP		BIT(15)

/**
 * struct async_req - kernel copy of one entry
 * @op: System call number, or ASYNC_REQ_OP | the ASYNC_OP_* offset; see
 *	async_req_nr().
 * @chain_len: On the first entry of a chain, and on the entry a worker
 *	resumes it at, number of entries from there to its end; else 0.
 * @flags: ASYNC_SYSCALL_* entry flags; %ASYNC_REQ_TIMER, %ASYNC_REQ_ALLOWED, and
 *	%ASYNC_REQ_PUNTED, %ASYNC_REQ_WAITS and %ASYNC_REQ_CHAIN_FAILED on the
 *	entry a chain is resumed at.
 * @arg_refs: Arguments taken from earlier results; %ASYNC_REQ_PARKED
 *	instead while its chain is parked at it, its read in @pagewait.
 * @state: &enum async_req_state, under &async_ctx.lock once the batch is
 *	shared; %ASYNC_REQ_INLINE while the submitter runs it in a shared batch,
 *	%ASYNC_REQ_TAKEN once a worker took its chain, before it starts it;
 *	%ASYNC_REQ_PAGEWAIT while its read waits for a page, its chain parked.
 * @cancelled: ASYNC_SUBMIT_CANCEL asked for it, under &async_ctx.lock.
 * @args: Arguments, with references still unresolved, until it runs.
 * @result: Its result once done, for later references.
 * @timer: Its timer while it sleeps on one, %ASYNC_REQ_TIMED.
 * @pagewait: Its read, with its arguments, while its chain is parked.
 * @link_timeout: For %ASYNC_OP_LINK_TIMEOUT, its timer, until it is done.
 *
 * Its index is its place in &async_batch.reqs.  Packed so that a batch of
 * 64 entries and its header fit in 4 KiB.
 */
struct async_req {
	u16			op;
	u16			chain_len;
	u8			flags;
	u8			arg_refs;
	u8			state;
	bool			cancelled;
	union {
		u64		args[ASYNC_NR_ARGS];
		s64		result;
		struct async_timer *timer;
		struct async_pagewait *pagewait;
		struct async_link_timeout *link_timeout;
	};
};

static __always_inline bool async_req_is_link_timeout(const struct async_req *req)
{
	return req->op == (ASYNC_REQ_OP | (ASYNC_OP_LINK_TIMEOUT - ASYNC_OP_BASE));
}

static __always_inline u32 async_req_nr(const struct async_req *req)
{
	return req->op & ASYNC_REQ_OP ?
	       ASYNC_OP_BASE + (req->op & ~ASYNC_REQ_OP) : req->op;
}

/* The operation of @req, which async_op_lookup() found when it was read. */
static __always_inline const struct async_op_def *
async_req_def(const struct async_req *req)
{
	return req->op & ASYNC_REQ_OP ?
	       &async_op_defs[req->op & ~ASYNC_REQ_OP] :
	       &async_syscall_defs[req->op];
}

/**
 * struct async_batch - the entries of one async_submit() call
 * @refs: One for the submitter, one for the chains while any is pending.
 * @pending: Chains not yet completed.
 * @nr: Number of entries.
 * @wake_marked: %ASYNC_SUBMIT_WAKE_MARKED: wake only marked done words.
 * @shared: Workers take its chains while the submitter runs others.
 * @sharing: The submitter still takes chains of a @shared batch, under
 *	&async_ctx.lock.
 * @entry_size: Size of one user entry.
 * @uentries: The user's array, where results and done words go.
 * @pinned: @cred, @mm and @seccomp are held: something outlives
 *	async_submit().
 * @on_stack: It is on the submitter's stack: async_batch_keep() moves it
 *	before any of it may outlive async_submit().
 * @audited: Audit collected system call records for the submitter when
 *	it made the call: async_audited().
 * @cred: Credentials of the submitter, taken by async_batch_pin(), NULL
 *	before; NULL again, and @seccomp too, once only sleeps on timers are
 *	left.
 * @pkey_rights: Its protection-key rights at submit, which a worker takes
 *	to run the entries.
 * @mm: The submitter's mm; entries never run or complete in another one.
 * @ctx: The process's context, which counts the entries in flight.
 * @seccomp: The submitter's seccomp filters, or NULL; pinned by
 *	async_batch_pin().
 * @ip: The submitter's user instruction pointer, for seccomp.
 * @node: Link in &async_ctx.batches while entries are pending.
 * @queue_node: Link in &async_pool.queue while chains wait for a worker.
 * @next_chain: Index of the first chain waiting for a worker, or @nr;
 *	under &async_ctx.lock while the batch is queued.
 * @submit_ns: When async_submit() queued it, for tracing and the pace
 *	of its inline run; 0 for one chain that runs inline untraced.
 * @nr_timed: Entries with %ASYNC_REQ_TIMER, which may sleep on a timer.
 * @next_timer: Index in @timers of the next such entry's timer, while the
 *	submitter runs the batch.
 * @nr_armed: Timers made ready in @timers.
 * @timers: Their timers, in the order of the entries, or NULL.
 * @nr_link_timeouts: Its %ASYNC_OP_LINK_TIMEOUT entries.
 * @link_timeouts: Their timers, or NULL.
 * @all_done: Completed when the last chain has completed.
 * @wait_id: Once a signal interrupted the wait for it, a number never
 *	given to another batch, which the restarted wait checks; else 0.
 *	Under &async_ctx.lock.
 * @wait_index: Then its index in &async_ctx.waits.
 * @reqs: The entries.
 */
struct async_batch {
	refcount_t			refs;
	atomic_t			pending;
	unsigned int			nr;
	bool				wake_marked;
	bool				shared;
	bool				sharing;
	bool				pinned;
	bool				on_stack;
	bool				audited;
	size_t				entry_size;
	void __user			*uentries;
	const struct cred		*cred;
	u64				pkey_rights;
	struct mm_struct		*mm;
	struct async_ctx		*ctx;
	struct seccomp_filter		*seccomp;
	unsigned long			ip;
	struct list_head		node;
	struct list_head		queue_node;
	unsigned int			next_chain;
	u64				submit_ns;
	unsigned int			nr_timed;
	unsigned int			next_timer;
	unsigned int			nr_armed;
	struct async_timer		*timers;
	unsigned int			nr_link_timeouts;
	struct async_link_timeout	*link_timeouts;
	struct completion		all_done;
	u64				wait_id;
	u32				wait_index;
	struct async_req		reqs[] __counted_by(nr);
};

/* Where @req completes: its entry in the submitter's array. */
static inline struct async_syscall __user *
async_req_uentry(const struct async_batch *batch, const struct async_req *req)
{
	return batch->uentries + (size_t)(req - batch->reqs) * batch->entry_size;
}

/**
 * struct async_ctx - per-process state, hung off &signal_struct
 * @lock: Protects the pools, their queues and workers, and @batches.
 * @pools: The &struct async_pool of each submitting thread and context.
 * @batches: Batches with entries pending, for ASYNC_SUBMIT_CANCEL.
 * @waits: The pending batches whose wait a signal interrupted, by the
 *	index its restart looks up.
 * @busy: Workers running a chain, for ASYNC_SUBMIT_CANCEL.
 * @max_workers: Bound on the workers of one pool.
 * @inflight: Entries submitted and not completed.
 * @held: Entries of the batches not yet freed, done or not.
 * @timers: Armed &struct async_timer whose entries are not done.
 * @fired: Timers that fired, for @fire_work.
 * @fire_work: Completes the entries of @fired.
 * @parked: Reads of parked chains, until a worker takes the chain again.
 * @parked_works: Parked &struct async_work, until woken.
 * @nr_pagewaits: Reads waiting for a page, and work that may be waiting
 *	for its wake, until @woken_work is done with their wake.
 * @woken: Reads whose page was unlocked, for @woken_work.
 * @woken_works: &struct async_work woken by async_work_wake(), for
 *	@woken_work.
 * @cancel_parked: A parked &struct async_work was cancelled: @woken_work
 *	takes back its wait.
 * @stranded: Woken reads of parked chains that no worker was left to take.
 * @woken_work: Queues the chains of @woken, and @woken_works, again.
 * @link_timeouts: Armed &struct async_link_timeout.
 * @link_timeouts_fired: Those that fired, for @link_timeout_work.
 * @link_timeout_work: Cancels the targets of @link_timeouts_fired.
 */
struct async_ctx {
	spinlock_t		lock;	/* guards all but @inflight, @held */
	struct list_head	pools;
	struct list_head	batches;
	struct xarray		waits;
	struct list_head	busy;
	unsigned int		max_workers;
	atomic_t		inflight;
	atomic_t		held;
	struct list_head	timers;
	struct llist_head	fired;
	struct work_struct	fire_work;
	struct list_head	parked;
	struct list_head	parked_works;
	atomic_t		nr_pagewaits;
	struct llist_head	woken;
	struct llist_head	woken_works;
	atomic_t		cancel_parked;
	struct llist_head	stranded;
	struct work_struct	woken_work;
	struct list_head	link_timeouts;
	struct llist_head	link_timeouts_fired;
	struct work_struct	link_timeout_work;
};

/**
 * struct async_pool - the workers of one submitting thread in one context
 * @ctx: The process's context.
 * @node: Link in &async_ctx.pools.
 * @owner: The submitting thread.
 * @files: Its file table when the pool was made.
 * @fs: Its root, cwd and umask when the pool was made.
 * @nsproxy: Its namespaces when the pool was made.
 * @cred: Its credentials when the pool was made, of which each worker
 *	carries a copy of its own; a reference.
 * @tagged_addr_ctrl: Its tagged-address ABI and MTE mode when the pool
 *	was made (arm64), which workers copy from their creator.
 * @queue: Batches with chains waiting for a worker.
 * @nr_blocking: Chains in @queue expected to block.
 * @works: &struct async_work queued from inside the kernel.
 * @nr_works: Number of them.
 * @idle: Idle workers.
 * @nr_workers: Workers alive or being created.
 * @nr_waking: Workers woken or created that have not looked at @queue yet.
 * @nr_running: Workers that run work and are not asleep in it.
 * @pins: Submitters between async_pool_get() and async_pool_unpin().
 * @nr_parked: Chains parked at a read that waits for a page, and parked
 *	work, which a worker must be left to take again.
 * @refs: @nr_workers plus @pins plus @nr_parked; the pool is freed at
 *	zero.
 * @retired: @owner has moved to another context; idle workers exit.
 * @share_at_once: Workers ran part of @owner's last shared batch, whose
 *	chains were slow: share the next batch before its first chain.
 *	Only @owner reads and writes it.
 *
 * Workers share @files, @fs and @nsproxy with @owner, who created them or
 * whose workers did, and carry a copy of @cred.  The key is only compared
 * while @refs holds them.
 */
struct async_pool {
	struct async_ctx	*ctx;
	struct list_head	node;
	struct task_struct	*owner;
	struct files_struct	*files;
	struct fs_struct	*fs;
	struct nsproxy		*nsproxy;
	const struct cred	*cred;
	long			tagged_addr_ctrl;
	struct list_head	queue;
	unsigned int		nr_blocking;
	struct list_head	works;
	unsigned int		nr_works;
	struct list_head	idle;
	unsigned int		nr_workers;
	unsigned int		nr_waking;
	atomic_t		nr_running;
	unsigned int		pins;
	unsigned int		nr_parked;
	unsigned int		refs;
	bool			retired;
	bool			share_at_once;
};

/**
 * struct async_worker - one worker thread
 * @pool: The pool it belongs to.
 * @task: Its thread.
 * @idle_node: Link in &async_pool.idle while it sleeps.
 * @busy_node: Link in &async_ctx.busy while it runs a chain.
 * @batch: The batch of the chain it runs, under &async_ctx.lock.
 * @first: The entry it took the chain at, under &async_ctx.lock.
 * @req: The entry it runs, under &async_ctx.lock.
 * @pagewait: The read of the entry it runs, while it reads without
 *	waiting for pages.
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
	struct async_pagewait	*pagewait;
	bool			working;
	bool			running;
	bool			dying;
	int			kill_sig;
};

/* What a pool holds when its last worker is gone. */
struct async_orphans {
	struct list_head	batches;
	struct list_head	works;
};

enum async_seccomp_verdict {
	ASYNC_SECCOMP_ALLOW,
	ASYNC_SECCOMP_DENY,
	ASYNC_SECCOMP_KILL,
};

#define ASYNC_SUBMIT_ABI	2

/*
 * A worker copies its creator's tagged-address ABI and MTE mode (arm64),
 * which a thread changes for itself alone: part of a pool's key.
 */
#ifdef GET_TAGGED_ADDR_CTRL
#define async_tagged_addr_ctrl()	GET_TAGGED_ADDR_CTRL()
#else
#define async_tagged_addr_ctrl()	(-EINVAL)
#endif

/*
 * The older calls that x86_64 has and the generic table (arm64) does not:
 * opdef.c lists them only here.
 */
#ifdef __NR_open
#define ASYNC_SYSCALL_DEFS_LEGACY \
	[__NR_open] = { .name = "open", .nargs = 3 }, \
	[__NR_creat] = { .name = "creat", .nargs = 2 }, \
	[__NR_stat] = { .name = "stat", .nargs = 2 }, \
	[__NR_lstat] = { .name = "lstat", .nargs = 2 }, \
	[__NR_access] = { .name = "access", .nargs = 2 }, \
	[__NR_getdents] = { .name = "getdents", .nargs = 3 }, \
	[__NR_rename] = { .name = "rename", .nargs = 2 }, \
	[__NR_mkdir] = { .name = "mkdir", .nargs = 2 }, \
	[__NR_rmdir] = { .name = "rmdir", .nargs = 1 }, \
	[__NR_mknod] = { .name = "mknod", .nargs = 3 }, \
	[__NR_link] = { .name = "link", .nargs = 2 }, \
	[__NR_unlink] = { .name = "unlink", .nargs = 1 }, \
	[__NR_symlink] = { .name = "symlink", .nargs = 2 }, \
	[__NR_readlink] = { .name = "readlink", .nargs = 3 }, \
	[__NR_chmod] = { .name = "chmod", .nargs = 2 }, \
	[__NR_chown] = { .name = "chown", .nargs = 3 }, \
	[__NR_lchown] = { .name = "lchown", .nargs = 3 }, \
	[__NR_utime] = { .name = "utime", .nargs = 2 }, \
	[__NR_utimes] = { .name = "utimes", .nargs = 2 }, \
	[__NR_futimesat] = { .name = "futimesat", .nargs = 3 }, \
	[__NR_dup2] = { .name = "dup2", .nargs = 2 }, \
	[__NR_pipe] = { .name = "pipe", .nargs = 1 }, \
	[__NR_eventfd] = { .name = "eventfd", .nargs = 1 }, \
	[__NR_signalfd] = { .name = "signalfd", .nargs = 3 }, \
	[__NR_epoll_create] = { .name = "epoll_create", .nargs = 1 }, \
	[__NR_inotify_init] = { .name = "inotify_init", .nargs = 0 }, \
	[__NR_poll] = { .name = "poll", .nargs = 3, .waits = true }, \
	[__NR_select] = { .name = "select", .nargs = 5, .waits = true }, \
	[__NR_epoll_wait] = { .name = "epoll_wait", .nargs = 4, .waits = true },
#else
#define ASYNC_SYSCALL_DEFS_LEGACY
#endif

/*
 * Whether audit collects system call records for the caller: they are
 * kept up to date only while audit is enabled.
 */
static inline bool async_audited(void)
{
	return audit_enabled && !audit_dummy_context();
}

/* pool.c: the process's context, its pools, and the making of workers */
struct async_ctx *async_ctx_get(void);
struct async_pool *async_pool_get(struct async_ctx *ctx, bool prepare);
void async_pool_unpin(struct async_pool *pool);
bool async_pool_matches(struct async_pool *pool);
unsigned int async_pool_cpus(struct async_pool *pool);
bool async_pool_wants_worker(struct async_pool *pool)
	__must_hold(&pool->ctx->lock);
struct async_worker *async_claim_idle(struct async_pool *pool)
	__must_hold(&pool->ctx->lock);
bool async_wake_idle(struct async_pool *pool)
	__must_hold(&pool->ctx->lock);
void async_pool_kick(struct async_pool *pool, struct async_orphans *orphans,
		     struct wake_q_head *wake_q)
	__must_hold(&pool->ctx->lock);
struct async_pool *async_pool_unref(struct async_pool *pool)
	__must_hold(&pool->ctx->lock);
void async_pool_free(struct async_pool *pool);
void async_reserve_worker(struct async_pool *pool)
	__must_hold(&pool->ctx->lock);
void async_unreserve_worker(struct async_pool *pool,
			    struct async_orphans *orphans,
			    struct wake_q_head *wake_q)
	__must_hold(&pool->ctx->lock);
int async_spawn_worker(struct async_pool *pool);
void async_worker_recruit(struct async_worker *w);
bool async_pool_wants_spare(struct async_pool *pool)
	__must_hold(&pool->ctx->lock);
void async_worker_keep_spare(struct async_worker *w);
void async_worker_exit(struct async_worker *w)
	__releases(&w->pool->ctx->lock);
void async_queue_chains(struct async_batch *batch, struct async_pool *pool,
			unsigned int nr_punted, unsigned int nr_blocking);

/* worker.c: the worker thread, and the interruptions it takes */
int async_worker_fn(void *data);
bool async_worker_signals(struct async_worker *w);
bool async_restartable(long ret);
bool async_may_restart(struct async_worker *w, const bool *cancelled,
		       unsigned int *quiet);
void async_worker_clean(struct async_worker *w);
void async_worker_rest(struct async_worker *w);

/* run.c: entries run in the submitter, and chains on a worker */
int async_run_inline(struct async_batch *batch, struct async_pool *pool,
		     bool audited, unsigned int *nr_blocking);
void async_run_chain(struct async_worker *w, struct async_batch *batch,
		     struct async_req *first, bool untried);
void async_mark_left(struct async_batch *batch, struct async_req *req,
		     u32 n);
unsigned int async_next_chain(struct async_batch *batch,
			      unsigned int from);
struct async_req *async_take_chain(struct async_batch *batch);
bool async_chain_blocks(struct async_req *req);

/* share.c: a batch shared with workers while its submitter runs it */
bool async_share(struct async_batch *batch, struct async_pool *pool,
		 unsigned int next, unsigned int nr_punted,
		 unsigned int nr_blocking);
bool async_claim_chain(struct async_batch *batch, struct async_pool *pool,
		       struct async_req *first)
	__must_hold(&batch->ctx->lock);
void __async_requeue_chain(struct async_batch *batch, struct async_pool *pool,
			   struct async_req *req, struct async_orphans *orphans,
			   struct wake_q_head *wake_q)
	__must_hold(&batch->ctx->lock);
void async_requeue_chain(struct async_batch *batch, struct async_pool *pool,
			 struct async_req *req);
unsigned int async_unqueue_chains(struct async_batch *batch,
				  struct async_pool *pool,
				  unsigned int *nr_entries)
	__must_hold(&batch->ctx->lock);

/* complete.c: the end of entries, chains and batches */
void async_batch_pin(struct async_batch *batch);
void async_batch_put(struct async_batch *batch);
void async_end_chains(struct async_batch *batch, unsigned int n);
void async_chain_done(struct async_batch *batch, struct async_req *first);
void async_complete(struct async_batch *batch, struct async_req *req,
		    long res);
void async_trace_ended(struct async_batch *batch, struct async_req *req,
		       long res);

/* cancel.c: cancels, and the work of a pool with no worker left */
void async_orphans_init(struct async_orphans *orphans);
void async_cancel_orphans(struct async_orphans *orphans);
void async_interrupt_cancelled(struct async_ctx *ctx)
	__must_hold(&ctx->lock);
bool async_cancel_req(struct async_batch *batch, struct async_req *req,
		      struct list_head *stopped, bool *running)
	__must_hold(&batch->ctx->lock);
unsigned int async_cancel_batch(struct async_batch *batch,
				void __user *uentries, unsigned int nr,
				size_t size, struct list_head *stopped,
				bool *running)
	__must_hold(&batch->ctx->lock);

/* work.c: work queued from inside the kernel */
void async_work_done(struct async_work *work, long res);
void async_run_work(struct async_worker *w, struct async_work *work);

/* entry.c: an entry as the system call it is, for audit and tracing */
long async_enter_syscall(unsigned int nr, const u64 *args,
			 long (*issue)(const u64 *args));
void async_trace_syscall(unsigned int nr, const u64 *args, const long *ret);
long async_call_inline(unsigned int nr, const u64 *args);

DECLARE_TRACEPOINT(sys_enter);
DECLARE_TRACEPOINT(sys_exit);

/*
 * An entry that did not go through async_enter_syscall(), to the
 * raw_syscalls tracepoints: async_trace_syscall() copies the registers,
 * so only while one is on.
 */
static __always_inline void async_trace_entry(u32 nr, const u64 *args,
					      const long *ret)
{
	if (tracepoint_enabled(sys_enter) || tracepoint_enabled(sys_exit))
		async_trace_syscall(nr, args, ret);
}

/* timer.c: sleeps that hold no thread */
int async_sleep_nanosleep(const u64 *args, struct async_sleep *sleep);
int async_sleep_clock_nanosleep(const u64 *args, struct async_sleep *sleep);
int async_done_op(u32 __user *done, int op, u32 oparg);
bool async_req_timed(const struct async_req *req,
		     const struct async_op_def *def);
int async_setup_timers(struct async_batch *batch, bool audited);
void async_free_timers(struct async_batch *batch);
bool async_sleep_prepare(struct async_batch *batch, struct async_req *req,
			 const struct async_sleep *sleep);
void async_arm_timers(struct async_batch *batch);
bool async_timer_cancel(struct async_req *req, struct list_head *stopped);
void async_timers_stopped(struct list_head *stopped, bool write_rem);
void async_ctx_init_timers(struct async_ctx *ctx);

/* pagewait.c: buffered reads that wait for pages without a thread */
bool async_pagewait_start(struct async_worker *w, struct async_batch *batch,
			  struct async_req *req, const u64 *args, long *res);
long async_pagewait_continue(struct async_worker *w);
long async_pagewait_end(struct async_worker *w, long res);
bool async_pagewait_park(struct async_worker *w, struct async_req *first,
			 bool failed, long *res);
struct async_pagewait *async_pagewait_resume(struct async_batch *batch,
					     struct async_req *first);
void __async_pagewait_forget(struct async_batch *batch,
			     struct async_req *first)
	__must_hold(&batch->ctx->lock);
void async_pagewait_forget(struct async_batch *batch,
			   struct async_req *first);
void async_pagewait_cancel(struct async_ctx *ctx, struct async_req *req);
void async_pagewaits_stop(struct async_ctx *ctx);
bool async_work_unwait(struct async_work *work);
struct async_pool *async_work_requeue(struct async_work *work,
				      struct async_orphans *orphans,
				      struct wake_q_head *wake_q);
void async_works_woken(struct async_ctx *ctx, struct async_orphans *orphans,
		       struct wake_q_head *wake_q);
void async_works_unwait(struct async_ctx *ctx, struct async_orphans *orphans,
			struct wake_q_head *wake_q);
void async_ctx_init_pagewaits(struct async_ctx *ctx);

int async_link_timeout_read(u64 *args, u32 arg_refs, bool after_target);
int async_setup_link_timeouts(struct async_batch *batch);
void async_free_link_timeouts(struct async_batch *batch);
void async_link_timeout_arm(struct async_batch *batch, struct async_req *req);
long async_link_timeout_end(struct async_batch *batch, struct async_req *req);
void async_link_timeouts_end_chain(struct async_batch *batch,
				   struct async_req *first);
void async_link_timeouts_stop(struct async_ctx *ctx);
void async_ctx_init_link_timeouts(struct async_ctx *ctx);

/* nowait.c: what the submitter runs itself, without blocking */
long async_nowait_read(const u64 *args);
long async_nowait_readv_fpos(const u64 *args);
long async_nowait_pread64(const u64 *args);
long async_nowait_preadv(const u64 *args);
long async_nowait_preadv2(const u64 *args);
long async_nowait_openat(const u64 *args);
long async_nowait_close(const u64 *args);
long async_nowait_statx(const u64 *args);
long async_nowait_write(const u64 *args);

/* submit.c, wait.c: one call's entries, checked, queued and waited for */
void async_batch_free(struct async_batch *batch);
long async_submit(void __user *uentries, unsigned int nr, size_t size,
		  unsigned int flags);
long async_wait_interrupted(struct async_batch *batch, unsigned int nr);
long async_probe(void __user *uentries, unsigned int nr, size_t size);
long async_cancel(void __user *uentries, unsigned int nr, size_t size);

/* security.c: seccomp on every entry, and the sysctl switches */
enum async_seccomp_verdict __async_seccomp_check(struct async_batch *batch,
						 u32 nr, const u64 *args,
						 long *res);
bool async_syscall_allowed(void);
bool async_work_allowed(void);

/* Inline: without filters, as most submitters are, it costs no call. */
static __always_inline enum async_seccomp_verdict
async_seccomp_check(struct async_batch *batch, u32 nr, const u64 *args,
		    long *res)
{
	if (!batch->seccomp)
		return ASYNC_SECCOMP_ALLOW;
	return __async_seccomp_check(batch, nr, args, res);
}

#endif /* _KERNEL_ASYNC_SYSCALL_H */
