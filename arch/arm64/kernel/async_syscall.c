// SPDX-License-Identifier: GPL-2.0
/*
 * Run one system call for async_submit() on a worker thread.
 */

#include <linux/async_syscall.h>
#include <linux/audit.h>
#include <linux/cpufeature.h>
#include <linux/nospec.h>
#include <linux/random.h>
#include <linux/randomize_kstack.h>
#include <linux/sched/task_stack.h>
#include <asm/barrier.h>
#include <asm/syscall.h>
#include <asm/sysreg.h>
#include <asm/unistd.h>
#include <trace/events/syscalls.h>

static void async_set_args(struct pt_regs *regs, unsigned int nr,
			   const u64 *args)
{
	int i;

	for (i = 0; i < 6; i++)
		regs->regs[i] = args[i];
	regs->orig_x0 = args[0];
	regs->syscallno = nr;
}

/*
 * The worker never returns to user mode, so its own pt_regs are free to
 * carry the arguments, as el0_svc would have set them.  Audit and the
 * raw_syscalls tracepoints see the entry there as the system call it is;
 * seccomp has already checked it for the submitter.  An operation,
 * @issue, runs in the place of system call @nr, whose effect it has.  The
 * stack offset is randomized per entry, as invoke_syscall() does per
 * system call.
 */
long arch_async_syscall(unsigned int nr, const u64 *args,
			long (*issue)(const u64 *args))
{
	struct pt_regs *regs = task_pt_regs(current);
	syscall_fn_t fn;
	long ret;

	add_random_kstack_offset();
	async_set_args(regs, nr, args);
	trace_sys_enter(regs, nr);
	audit_syscall_entry(nr, regs->orig_x0, regs->regs[1], regs->regs[2],
			    regs->regs[3]);

	if (issue) {
		ret = issue(args);
	} else {
		fn = sys_call_table[array_index_nospec(nr, __NR_syscalls)];
		ret = fn(regs);
	}

	syscall_set_return_value(current, regs, 0, ret);
	audit_syscall_exit(regs);
	trace_sys_exit(regs, ret);
	/* Between entries, /proc/<tid>/syscall shows no system call. */
	regs->syscallno = NO_SYSCALL;
	choose_random_kstack_offset(get_random_u16());
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
	async_set_args(&regs, nr, args);
	trace_sys_enter(&regs, nr);
	if (!ret)
		return;
	regs.regs[0] = *ret;
	trace_sys_exit(&regs, *ret);
}

/**
 * arch_async_pkey_rights() - the calling thread's protection-key rights
 *
 * Return: Its POR_EL0, or 0 without permission overlays.
 */
u64 arch_async_pkey_rights(void)
{
	return system_supports_poe() ? read_sysreg_s(SYS_POR_EL0) : 0;
}

/**
 * arch_async_set_pkey_rights() - take a submitter's protection-key rights
 * @rights: Its POR_EL0, from arch_async_pkey_rights().
 *
 * For a worker, whose user memory accesses are then checked as the
 * submitter's would be.  A worker never returns to user mode, so the
 * register is all there is: the context switch keeps it per task
 * (permission_overlay_switch()).
 */
void arch_async_set_pkey_rights(u64 rights)
{
	if (!system_supports_poe() || read_sysreg_s(SYS_POR_EL0) == rights)
		return;
	write_sysreg_s(rights, SYS_POR_EL0);
	/*
	 * Unlike a context switch, which tolerates spurious overlay faults,
	 * a revoked right must hold from the next user access on.
	 */
	isb();
}
