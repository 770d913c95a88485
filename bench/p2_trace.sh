#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# p2_trace.sh METHOD...: where P2's time goes, in the guest, from the
# repository's root: make vm CMD="sh bench/p2_trace.sh async uring_nop_async"
# Traces wake-ups and switches in a tracefs instance of its own (the
# benchmark clears the main buffer) and prints, per METHOD, the median of
# each step of an op: see p2_trace.awk.
T=/sys/kernel/tracing
BIN=${BENCH_BIN:-.build/obj/user/bench}
[ -e $T/trace ] || mount -t tracefs nodev $T || exit 1
mkdir -p $T/instances/p2 && T=$T/instances/p2 || exit 1
echo 16384 >$T/buffer_size_kb
for m in "$@"; do
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo >$T/set_event
	for e in sched:sched_waking sched:sched_switch \
		 async_syscall:async_syscall_submit io_uring:io_uring_submit_req; do
		echo $e >>$T/set_event
	done
	echo 1 >$T/tracing_on
	BENCH_METHOD=$m BENCH_SAMPLES=${N:-400} $BIN/p2_latency | grep 'p50\|p99' |
		grep -v cpu0
	echo 0 >$T/tracing_on
	awk -v m=$m -f "$(dirname "$0")/p2_trace.awk" $T/trace
done
rmdir $T 2>/dev/null
