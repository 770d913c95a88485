/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASYNC_SYSCALL_SCHED_H
#define _ASYNC_SYSCALL_SCHED_H

struct task_struct;

#ifdef CONFIG_ASYNC_SYSCALL
void async_worker_sleeping(struct task_struct *tsk);
void async_worker_running(struct task_struct *tsk);
#else
static inline void async_worker_sleeping(struct task_struct *tsk)
{
}

static inline void async_worker_running(struct task_struct *tsk)
{
}
#endif

#endif /* _ASYNC_SYSCALL_SCHED_H */
