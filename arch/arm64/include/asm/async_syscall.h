/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an async_submit() entry goes in a worker's registers, and the
 * permission overlay its user memory accesses use.
 */
#ifndef _ASM_ARM64_ASYNC_SYSCALL_H
#define _ASM_ARM64_ASYNC_SYSCALL_H

#include <linux/cpufeature.h>
#include <linux/futex.h>
#include <linux/nospec.h>
#include <linux/random.h>
#include <linux/uaccess.h>
#include <uapi/linux/async_syscall.h>
#include <asm/barrier.h>
#include <asm/futex.h>
#include <asm/ptrace.h>
#include <asm/syscall.h>
#include <asm/sysreg.h>
#include <asm/unistd.h>

/* System call @nr with @args, as el0_svc sets them. */
static inline void arch_async_set_syscall(struct pt_regs *regs,
					  unsigned int nr, const u64 *args)
{
	int i;

	for (i = 0; i < 6; i++)
		regs->regs[i] = args[i];
	regs->orig_x0 = args[0];
	regs->syscallno = nr;
}

static inline void arch_async_clear_syscall(struct pt_regs *regs)
{
	regs->syscallno = NO_SYSCALL;
}

static inline long arch_async_call_table(struct pt_regs *regs,
					 unsigned int nr)
{
	syscall_fn_t fn = sys_call_table[array_index_nospec(nr, __NR_syscalls)];

	return fn(regs);
}

/* As invoke_syscall() randomizes the next stack offset. */
static inline u32 arch_async_kstack_entropy(void)
{
	return get_random_u16();
}

/**
 * arch_async_pkey_rights() - the calling thread's protection-key rights
 *
 * Return: Its POR_EL0, or 0 without permission overlays.
 */
static inline u64 arch_async_pkey_rights(void)
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
static inline void arch_async_set_pkey_rights(u64 rights)
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

/*
 * Exclusives can fail on memory that a plain store is allowed (Device, or
 * Normal non-cacheable without a global monitor): only the exchange itself
 * proves that arch_async_store_done() will work.
 */
static inline bool arch_async_store_proves_done(void)
{
	return false;
}

/**
 * arch_async_store_done() - complete an entry in its submitter's array
 * @ue: The entry.
 * @res: Its result.
 * @old: Set to what its done word held.
 *
 * Stores @res, then exchanges the done word for %ASYNC_SYSCALL_DONE, fully
 * ordered (ldxr/stlxr and dmb), as the futex operations do.
 *
 * Return: 0, -EFAULT, or -EAGAIN when the exchange did not succeed in a
 * number of tries: call again.
 */
static inline int arch_async_store_done(struct async_syscall __user *ue,
					s64 res, int *old)
{
	if (put_user(res, &ue->result))
		return -EFAULT;
	return arch_futex_atomic_op_inuser(FUTEX_OP_SET, ASYNC_SYSCALL_DONE,
					   old, &ue->done);
}

#endif /* _ASM_ARM64_ASYNC_SYSCALL_H */
