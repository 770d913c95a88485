#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest-run.sh DIR ASERVE NGINX: run the benchmarks built in DIR, in the guest,
# BENCH_ROUNDS times (default 3); harness/bench.sh takes the median of the
# rounds.  P1 and P2 also run pinned to vCPU 0, with every worker (workers
# inherit the affinity), where no wakeup crosses vCPUs.
# BENCH_ONLY="p1 p4" runs only those.  Exits with the number of runs that
# failed (crashed or reported an error); timings never fail.
dir=$1
aserve=$2
nginx=$3
here=$(dirname "$0")
failed=0

run()
{
	prog=$1
	tag=${2:-}
	case " ${BENCH_ONLY:-${prog%%_*}} " in
	*" ${prog%%_*} "*) ;;
	*) [ "$prog" = envinfo ] || return 0 ;;
	esac
	start=$(date +%s)
	echo "# bench: $prog $tag"
	if [ -n "$tag" ]; then
		BENCH_TAG=$tag taskset -c 0 "$dir/$prog"
	elif [ -f "$here/$prog.sh" ]; then
		sh "$here/$prog.sh" "$aserve" "$nginx"
	else
		"$dir/$prog"
	fi
	rc=$?
	echo "# bench: $prog $tag exited with $rc after $(($(date +%s) - start)) s"
	[ $rc = 0 ] || failed=$((failed + 1))
	rm -rf "${SCRATCH:?}"/p[0-9]*
}

run envinfo
round=1
while [ $round -le "${BENCH_ROUNDS:-3}" ]; do
	echo "# bench: round $round"
	run p1_trivial
	run p2_latency
	run p3_open_read_close
	run p4_sleep
	run p4b_pipes
	run p5_copy
	run p6_growth
	run p7_tree_copy
	run p8_cold_reads
	run p9_event_loop
	run p10_http
	run p1_trivial cpu0
	run p2_latency cpu0
	round=$((round + 1))
done
exit $failed
