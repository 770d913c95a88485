#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# profile.sh BENCH METHOD [BATCH]: a perf profile of one method of one
# benchmark of bench/ in the guest, e.g. "p1_trivial async_futex 64".
# Samples the benchmark and its workers, not the idle vCPUs.
# Prints the hottest kernel and user symbols; keeps the report in
# .build/profile/BENCH-METHOD.txt.  perf samples cpu-clock: TCG has no PMU.
. "$(dirname "$0")/lib.sh"
x86_64_only "make profile"

[ $# -ge 2 ] || fail "profile" "" "usage: make profile P='p1_trivial async_futex 64'"
OUT=$BUILD/profile
BIN=$USEROBJ/bench
REPORT=$OUT/$1-$2${3:+-$3}.txt
mkdir -p "$OUT" "$BIN"
command -v perf >/dev/null || fail "profile" "" "perf is missing: run make deps"

step "build benchmarks" "$LOGS/bench-build.log" \
	make -C "$REPO/bench" OUTPUT="$BIN" KHDR_INCLUDES="-isystem $HDR/include"

export VM_LOG=$OUT/console.log
step "profile $1 $2 in the guest" "$OUT/run.log" "$HARNESS/vm.sh" \
	"cd /tmp && BENCH_METHOD=$2 BENCH_BATCH=${3:-} BENCH_REPS=${BENCH_REPS:-1} BENCH_OPS=${BENCH_OPS:-200000} \
	 perf record -q -e cpu-clock -F 4000 -o /tmp/perf.data $BIN/$1 &&
	 perf report -q -i /tmp/perf.data --stdio --no-children --sort comm \
		2>/dev/null | sed -n 's/^ *\([0-9.]*%\) *\(.*\)/THREAD \1 \2/p' &&
	 perf report -q -i /tmp/perf.data --stdio --no-children --sort comm,sym \
		--percent-limit 0.7 2>/dev/null | grep -v '^\$' | head -n 60"
{ sed -n 's/^THREAD //p' "$VM_LOG"; sed -n '/%.*\[/p' "$VM_LOG"; } |
	sed 's/\r$//' >"$REPORT"
say "profile of $1 $2${3:+ at batch $3} (samples over all vCPUs): ${REPORT#"$REPO"/}"
head -n 40 "$REPORT"
