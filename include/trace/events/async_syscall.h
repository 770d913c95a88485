/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM async_syscall

#if !defined(_TRACE_ASYNC_SYSCALL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ASYNC_SYSCALL_H

#include <linux/tracepoint.h>

/*
 * async_syscall_submit - an entry was checked and queued by async_submit()
 * @index: Its index in the submitted array.
 * @nr: Its system call or operation number.
 * @flags: Its ASYNC_SYSCALL_* flags.
 * @arg_refs: The arguments it takes from earlier results.
 */
TRACE_EVENT(async_syscall_submit,
	TP_PROTO(unsigned int index, u32 nr, u32 flags, u32 arg_refs),
	TP_ARGS(index, nr, flags, arg_refs),
	TP_STRUCT__entry(
		__field(unsigned int, index)
		__field(u32, nr)
		__field(u32, flags)
		__field(u32, arg_refs)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->nr = nr;
		__entry->flags = flags;
		__entry->arg_refs = arg_refs;
	),
	TP_printk("index=%u nr=%u flags=0x%x arg_refs=0x%x", __entry->index,
		  __entry->nr, __entry->flags, __entry->arg_refs)
);

/*
 * async_syscall_start - a worker starts an entry
 * @index: Its index in the submitted array.
 * @nr: Its system call or operation number.
 * @queue_ns: Time since async_submit() queued it.
 */
TRACE_EVENT(async_syscall_start,
	TP_PROTO(unsigned int index, u32 nr, u64 queue_ns),
	TP_ARGS(index, nr, queue_ns),
	TP_STRUCT__entry(
		__field(unsigned int, index)
		__field(u32, nr)
		__field(u64, queue_ns)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->nr = nr;
		__entry->queue_ns = queue_ns;
	),
	TP_printk("index=%u nr=%u queue_ns=%llu", __entry->index, __entry->nr,
		  __entry->queue_ns)
);

/*
 * async_syscall_complete - an entry completed, whether it ran or was cancelled
 * @index: Its index in the submitted array.
 * @nr: Its system call or operation number.
 * @result: Its result.
 * @queue_ns: Time from async_submit() until it started, or until it was
 *	cancelled when no worker was left to take it.
 * @run_ns: Time it ran; 0 when nothing ran it.
 * @worker: It ran on a worker; false when the submitting thread ran it
 *	without blocking, or nothing ran it.
 */
TRACE_EVENT(async_syscall_complete,
	TP_PROTO(unsigned int index, u32 nr, long result, u64 queue_ns,
		 u64 run_ns, bool worker),
	TP_ARGS(index, nr, result, queue_ns, run_ns, worker),
	TP_STRUCT__entry(
		__field(unsigned int, index)
		__field(u32, nr)
		__field(long, result)
		__field(u64, queue_ns)
		__field(u64, run_ns)
		__field(bool, worker)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->nr = nr;
		__entry->result = result;
		__entry->queue_ns = queue_ns;
		__entry->run_ns = run_ns;
		__entry->worker = worker;
	),
	TP_printk("index=%u nr=%u result=%ld queue_ns=%llu run_ns=%llu worker=%d",
		  __entry->index, __entry->nr, __entry->result,
		  __entry->queue_ns, __entry->run_ns, __entry->worker)
);

/*
 * async_syscall_pagewait - a worker parked a chain at a read that waits
 *	for a page, and went on to other work
 * @index: The read's index in the submitted array.
 * @nr: Its system call number.
 * @done: Bytes it had read.
 */
TRACE_EVENT(async_syscall_pagewait,
	TP_PROTO(unsigned int index, u32 nr, size_t done),
	TP_ARGS(index, nr, done),
	TP_STRUCT__entry(
		__field(unsigned int, index)
		__field(u32, nr)
		__field(size_t, done)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->nr = nr;
		__entry->done = done;
	),
	TP_printk("index=%u nr=%u done=%zu", __entry->index, __entry->nr,
		  __entry->done)
);

/*
 * async_syscall_work_park - work the kernel handed to a worker waits for
 *	an event it armed, without the worker, which went on
 * @run: The work's ->run(), which says what the work is.
 */
TRACE_EVENT(async_syscall_work_park,
	TP_PROTO(const void *run),
	TP_ARGS(run),
	TP_STRUCT__entry(
		__field(const void *, run)
	),
	TP_fast_assign(
		__entry->run = run;
	),
	TP_printk("run=%ps", __entry->run)
);

#endif /* _TRACE_ASYNC_SYSCALL_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
