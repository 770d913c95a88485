// SPDX-License-Identifier: GPL-2.0
/*
 * Run one system call for async_submit() on a worker thread.
 */

#include <linux/async_syscall.h>
#include <linux/audit.h>
#include <linux/nospec.h>
#include <linux/randomize_kstack.h>
#include <asm/msr.h>
#include <asm/pkru.h>
#include <linux/sched/task_stack.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <trace/events/syscalls.h>

/*
 * The worker never returns to user mode, so its own pt_regs are free to
 * carry the arguments, as the syscall entry code would have set them.
 * Audit and the raw_syscalls tracepoints see the entry there as the
 * system call it is; seccomp has already checked it for the submitter.
 * An operation, @issue, runs in the place of system call @nr, whose
 * effect it has.  The stack offset is randomized per entry, as per
 * system call.
 */
long arch_async_syscall(unsigned int nr, const u64 *args,
			long (*issue)(const u64 *args))
{
	struct pt_regs *regs = task_pt_regs(current);
	long ret;

	add_random_kstack_offset();
	regs->di = args[0];
	regs->si = args[1];
	regs->dx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
	regs->orig_ax = nr;

	trace_sys_enter(regs, nr);
	audit_syscall_entry(nr, regs->di, regs->si, regs->dx, regs->r10);

	if (issue)
		ret = issue(args);
	else
		ret = x64_sys_call(regs, array_index_nospec(nr, NR_syscalls));

	regs->ax = ret;
	audit_syscall_exit(regs);
	trace_sys_exit(regs, ret);
	/* Between entries, /proc/<tid>/syscall shows no system call. */
	regs->orig_ax = -1;
	choose_random_kstack_offset(rdtsc());
	return ret;
}

/*
 * An entry the submitter ran itself, without blocking.  The submitter's
 * registers are async_submit()'s and must stay so: the tracepoints see the
 * entry in a copy.  Both fire once the entry is done, as an attempt that
 * would have blocked is not reported and is redone on a worker.  A sleep
 * on a timer has a NULL @ret: it has started, and its end is reported by
 * the async_syscall_complete tracepoint alone.  Called only while either
 * tracepoint is on.
 */
void arch_async_trace_inline(unsigned int nr, const u64 *args,
			     const long *ret)
{
	/* A whole copy before use: not zeroed for every untraced entry. */
	struct pt_regs regs __uninitialized;

	regs = *task_pt_regs(current);
	regs.di = args[0];
	regs.si = args[1];
	regs.dx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];
	regs.orig_ax = nr;
	trace_sys_enter(&regs, nr);
	if (!ret)
		return;
	regs.ax = *ret;
	trace_sys_exit(&regs, *ret);
}

/**
 * arch_async_pkey_rights() - the calling thread's protection-key rights
 *
 * Return: Its PKRU, or 0 without protection keys.
 */
u64 arch_async_pkey_rights(void)
{
	return read_pkru();
}

/**
 * arch_async_set_pkey_rights() - take a submitter's protection-key rights
 * @rights: Its PKRU, from arch_async_pkey_rights().
 *
 * For a worker, whose user memory accesses are then checked as the
 * submitter's would be.  A worker never returns to user mode, so the
 * register is all there is: switch_to() keeps it per task
 * (x86_pkru_load()), and the xstate copy is not used.
 */
void arch_async_set_pkey_rights(u64 rights)
{
	write_pkru(rights);
}
