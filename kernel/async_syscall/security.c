// SPDX-License-Identifier: GPL-2.0
/*
 * What keeps async_submit() inside the limits a sandbox or an admin sets:
 * the submitter's seccomp filters on every entry, and a sysctl switch.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/init.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/seccomp.h>
#include <linux/sysctl.h>
#include <linux/uidgid.h>
#include <asm/syscall.h>

#include "async_syscall.h"

/* 0: anyone, 1: CAP_SYS_ADMIN or async_syscall_group, 2: no one */
static int sysctl_async_syscall_disabled;
static int sysctl_async_syscall_group = -1;

static struct ctl_table async_syscall_sysctls[] = {
	{
		.procname	= "async_syscall_disabled",
		.data		= &sysctl_async_syscall_disabled,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_TWO,
	},
	{
		.procname	= "async_syscall_group",
		.data		= &sysctl_async_syscall_group,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
};

static int __init async_syscall_sysctl_init(void)
{
	register_sysctl_init("kernel", async_syscall_sysctls);
	return 0;
}
subsys_initcall(async_syscall_sysctl_init);

static bool async_allowed(bool audit)
{
	int disabled = READ_ONCE(sysctl_async_syscall_disabled);
	kgid_t group;

	if (disabled == 2)
		return false;
	if (disabled == 0)
		return true;
	if (audit ? capable(CAP_SYS_ADMIN) :
		    ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN))
		return true;
	group = make_kgid(&init_user_ns, READ_ONCE(sysctl_async_syscall_group));
	return gid_valid(group) && in_group_p(group);
}

bool async_syscall_allowed(void)
{
	return async_allowed(true);
}

/*
 * Work from inside the kernel, such as Linux AIO's, follows the same
 * rule.  Its caller falls back to running the work itself: that is not a
 * denial for the audit log.
 */
bool async_work_allowed(void)
{
	return async_allowed(false);
}

/**
 * __async_seccomp_check() - run the submitter's seccomp filters on an entry
 * @batch: The entry's batch, whose submitter has seccomp filters.
 * @nr: The entry's system call or operation number.
 * @args: Its arguments, references resolved.
 * @res: Where to store the entry's result when it may not run.
 *
 * An operation is checked as the system call whose effect it has, with
 * its own arguments, so that a filter on that call covers it.  The
 * verdict is logged as a system call's would be.  The worker is not the
 * thread the filters were written for, so actions that act on the
 * calling thread get the nearest safe equivalent: both kills, and any
 * action this kernel does not know, kill the process with SIGSYS and a
 * core dump, as only the whole process is sure to include the submitter;
 * a trap, a tracer or a user-space supervisor cannot act on a worker, so
 * those entries fail with -ENOSYS, as a traced call does when no tracer
 * is attached.
 *
 * Return: %ASYNC_SECCOMP_ALLOW if the entry may run; otherwise @res is its
 * result, and %ASYNC_SECCOMP_KILL means the worker has a SIGSYS to take.
 */
enum async_seccomp_verdict __async_seccomp_check(struct async_batch *batch,
						 u32 nr, const u64 *args,
						 long *res)
{
	struct seccomp_data sd;
	u32 ret;

	if (nr >= ASYNC_OP_BASE)
		nr = async_op_lookup(nr)->as_syscall(args);
	sd = (struct seccomp_data) {
		.nr = nr,
		.arch = syscall_get_arch(current),
		.instruction_pointer = batch->ip,
	};
	/* The log and a kill's siginfo name the submitter's call site. */
	instruction_pointer_set(task_pt_regs(current), batch->ip);
	memcpy(sd.args, args, sizeof(sd.args));
	ret = seccomp_filter_eval(batch->seccomp, &sd);

	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		return ASYNC_SECCOMP_ALLOW;
	case SECCOMP_RET_ERRNO:
		*res = -(long)min_t(u32, ret & SECCOMP_RET_DATA, MAX_ERRNO);
		return ASYNC_SECCOMP_DENY;
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_USER_NOTIF:
		*res = -ENOSYS;
		return ASYNC_SECCOMP_DENY;
	default:
		force_sig_seccomp(nr, ret & SECCOMP_RET_DATA, true);
		*res = -ECANCELED;
		return ASYNC_SECCOMP_KILL;
	}
}
