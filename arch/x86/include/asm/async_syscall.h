/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an async_submit() entry goes in a worker's registers, and the
 * protection-key rights its user memory accesses use.
 */
#ifndef _ASM_X86_ASYNC_SYSCALL_H
#define _ASM_X86_ASYNC_SYSCALL_H

#include <linux/nospec.h>
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

#endif /* _ASM_X86_ASYNC_SYSCALL_H */
