/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an async_submit() entry goes in a worker's registers, and the
 * protection-key rights its user memory accesses use.
 */
#ifndef _ASM_X86_ASYNC_SYSCALL_H
#define _ASM_X86_ASYNC_SYSCALL_H

#include <linux/nospec.h>
#include <linux/uaccess.h>
#include <uapi/linux/async_syscall.h>
#include <asm/futex.h>
#include <asm/msr.h>
#include <asm/pkru.h>
#include <asm/ptrace.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

/* System call @nr with @args, as the syscall entry code sets them. */
static inline void arch_async_set_syscall(struct pt_regs *regs,
					  unsigned int nr, const u64 *args)
{
	regs->di = args[0];
	regs->si = args[1];
	regs->dx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
	regs->orig_ax = nr;
}

static inline void arch_async_clear_syscall(struct pt_regs *regs)
{
	regs->orig_ax = -1;
}

static inline long arch_async_call_table(struct pt_regs *regs,
					 unsigned int nr)
{
	return x64_sys_call(regs, array_index_nospec(nr, NR_syscalls));
}

/* As the return to user mode randomizes the next stack offset. */
static inline u32 arch_async_kstack_entropy(void)
{
	return rdtsc();
}

/**
 * arch_async_pkey_rights() - the calling thread's protection-key rights
 *
 * Return: Its PKRU, or 0 without protection keys.
 */
static inline u64 arch_async_pkey_rights(void)
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
static inline void arch_async_set_pkey_rights(u64 rights)
{
	write_pkru(rights);
}

/*
 * A plain store proves a page writable for arch_async_store_done(), whose
 * locked exchange works on any memory a user store does.
 */
static inline bool arch_async_store_proves_done(void)
{
	return true;
}

/**
 * arch_async_store_done() - complete an entry in its submitter's array
 * @ue: The entry.
 * @res: Its result.
 * @old: Set to what its done word held.
 *
 * Stores @res, then exchanges the done word for %ASYNC_SYSCALL_DONE with
 * a locked xchg, fully ordered, in one user-access window.
 *
 * Return: 0, or -EFAULT.
 */
static inline int arch_async_store_done(struct async_syscall __user *ue,
					s64 res, int *old)
{
	if (!user_access_begin(ue, sizeof(*ue)))
		return -EFAULT;
	unsafe_put_user(res, &ue->result, efault);
	unsafe_atomic_op1("xchgl %0, %2", old, &ue->done, ASYNC_SYSCALL_DONE,
			  efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

#endif /* _ASM_X86_ASYNC_SYSCALL_H */
