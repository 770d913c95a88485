// SPDX-License-Identifier: GPL-2.0
/*
 * The wait of %ASYNC_SUBMIT_WAIT once a signal has interrupted it.
 *
 * A signal that runs no handler (one ignored by default that another
 * thread blocked, a stop and a continue) must not end the wait, as it ends
 * no futex_wait().  The call cannot restart as it is, which would submit
 * the entries again, and its batch may be gone by the time it restarts:
 * the restart waits for the done words in user memory, as a user waiter
 * would.
 */

#include <linux/restart_block.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <linux/uaccess.h>

#include "async_syscall.h"
#include "../futex/futex.h"

/* Marks @done waiting if it still is pending, as a user waiter does. */
static int async_mark_waiting(u32 __user *done)
{
	u32 cur;
	int ret;

	for (;;) {
		ret = futex_cmpxchg_value_locked(&cur, done,
						 ASYNC_SYSCALL_PENDING,
						 ASYNC_SYSCALL_WAITING);
		if (!ret)
			return 0;
		if (ret == -EFAULT && fault_in_user_writeable(done))
			return -EFAULT;
		/* Contended (arm64 gives up after a number of tries). */
		cond_resched();
	}
}

/*
 * Waits until @done is %ASYNC_SYSCALL_DONE.  With @wake_marked, the
 * completion wakes only a word a waiter marked.
 */
static int async_wait_done(u32 __user *done, bool wake_marked)
{
	u32 val;
	int ret;

	for (;;) {
		if (get_user(val, done))
			return -EFAULT;
		if (val == ASYNC_SYSCALL_DONE)
			return 0;
		if (wake_marked && val == ASYNC_SYSCALL_PENDING) {
			ret = async_mark_waiting(done);
			if (ret)
				return ret;
			continue;
		}
		ret = futex_wait(done, FLAGS_SIZE_32, val, NULL,
				 FUTEX_BITSET_MATCH_ANY);
		if (ret == -ERESTARTSYS)
			return -ERESTART_RESTARTBLOCK;
		if (ret && ret != -EWOULDBLOCK)
			return ret;
	}
}

static long async_wait_restart(struct restart_block *restart)
{
	void __user *uentries = restart->async_wait.uentries;
	struct async_syscall __user *ue;
	unsigned int i;
	int ret;

	for (i = 0; i < restart->async_wait.nr; i++) {
		ue = uentries + (size_t)i * restart->async_wait.size;
		ret = async_wait_done(&ue->done, restart->async_wait.wake_marked);
		if (ret)
			return ret;
	}
	/* The results before the caller reads them, as after the first wait. */
	smp_rmb();
	return restart->async_wait.nr;
}

/**
 * async_wait_interrupted() - let a signal without a handler restart a wait
 * @uentries: The entries of the call, as submitted.
 * @nr: Their number.
 * @size: Their size.
 * @flags: The call's flags.
 *
 * A handler makes the call fail with %EINTR instead; the entries go on.
 *
 * Return: -ERESTART_RESTARTBLOCK.
 */
long async_wait_interrupted(void __user *uentries, unsigned int nr,
			    size_t size, unsigned int flags)
{
	struct restart_block *restart = &current->restart_block;

	restart->async_wait.uentries = uentries;
	restart->async_wait.nr = nr;
	restart->async_wait.size = size;
	restart->async_wait.wake_marked = flags & ASYNC_SUBMIT_WAKE_MARKED;
	return set_restart_fn(restart, async_wait_restart);
}
