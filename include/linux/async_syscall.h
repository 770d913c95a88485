/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_ASYNC_SYSCALL_H
#define _LINUX_ASYNC_SYSCALL_H

#include <linux/sched/signal.h>
#include <linux/types.h>

struct async_ctx;

#ifdef CONFIG_ASYNC_SYSCALL
long arch_async_syscall(unsigned int nr, const u64 *args);
void arch_async_trace_inline(unsigned int nr, const u64 *args, long ret);
void __async_syscall_free(struct async_ctx *ctx);

/* Called when the last thread of a process is gone: no worker is left. */
static inline void async_syscall_free(struct signal_struct *sig)
{
	if (sig->async_ctx)
		__async_syscall_free(sig->async_ctx);
}
#else
static inline void async_syscall_free(struct signal_struct *sig)
{
}
#endif

#endif /* _LINUX_ASYNC_SYSCALL_H */
