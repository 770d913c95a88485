// SPDX-License-Identifier: GPL-2.0
/*
 * An entry as the system call it is, for audit and the raw_syscalls
 * tracepoints.  <asm/async_syscall.h> says where the arch keeps a system
 * call's number and arguments in struct pt_regs; seccomp has checked the
 * entry for its submitter already (security.c).
 */

#include <linux/audit.h>
#include <linux/randomize_kstack.h>
#include <linux/sched/task_stack.h>
#include <asm/async_syscall.h>
#include <asm/syscall.h>
#include <trace/events/syscalls.h>

#include "async_syscall.h"

/**
 * async_enter_syscall() - run an entry on a worker, as a system call
 * @nr: Its system call number.
 * @args: Its arguments.
 * @issue: The operation that runs in the place of system call @nr, whose
 *	effect it has, or NULL to call @nr from the arch's table.
 *
 * The worker never returns to user mode, so its own pt_regs are free to
 * carry the arguments, as the syscall entry code would have set them.  The
 * stack offset is randomized per entry, as per system call.
 *
 * Return: The entry's result.
 */
long async_enter_syscall(unsigned int nr, const u64 *args,
			 long (*issue)(const u64 *args))
{
	struct pt_regs *regs = task_pt_regs(current);
	long ret;

	add_random_kstack_offset();
	arch_async_set_syscall(regs, nr, args);
	trace_sys_enter(regs, nr);
	audit_syscall_entry(nr, args[0], args[1], args[2], args[3]);

	if (issue)
		ret = issue(args);
	else
		ret = arch_async_call_table(regs, nr);

	syscall_set_return_value(current, regs, 0, ret);
	audit_syscall_exit(regs);
	trace_sys_exit(regs, ret);
	/* Between entries, /proc/<tid>/syscall shows no system call. */
	arch_async_clear_syscall(regs);
	choose_random_kstack_offset(arch_async_kstack_entropy());
	return ret;
}

/**
 * async_call_inline() - make an entry's system call in its submitter
 * @nr: Its system call number, of a call that never waits
 *	(&async_op_def.direct).
 * @args: Its arguments.
 *
 * The submitter's registers are async_submit()'s and must stay so: the
 * call reads its arguments from a copy.
 *
 * Return: The call's result.
 */
long async_call_inline(unsigned int nr, const u64 *args)
{
	/* A whole copy before use: not zeroed first. */
	struct pt_regs regs __uninitialized;

	regs = *task_pt_regs(current);
	arch_async_set_syscall(&regs, nr, args);
	return arch_async_call_table(&regs, nr);
}

/**
 * async_trace_syscall() - trace an entry its submitter ran itself
 * @nr: Its system call number.
 * @args: Its arguments.
 * @ret: Its result, or NULL for a sleep on a timer, which has started and
 *	whose end only the async_syscall_complete tracepoint reports.
 *
 * The submitter's registers are async_submit()'s and must stay so: the
 * tracepoints see the entry in a copy.  Both fire once the entry is done,
 * as an attempt that would have blocked is not reported and is redone on
 * a worker.  Called only while either tracepoint is on.
 */
void async_trace_syscall(unsigned int nr, const u64 *args, const long *ret)
{
	/* A whole copy before use: not zeroed for every untraced entry. */
	struct pt_regs regs __uninitialized;

	regs = *task_pt_regs(current);
	arch_async_set_syscall(&regs, nr, args);
	trace_sys_enter(&regs, nr);
	if (!ret)
		return;
	syscall_set_return_value(current, &regs, 0, *ret);
	trace_sys_exit(&regs, *ret);
}
