#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fuzz-long.sh: the routine long fuzz runs, not part of CI: FUZZ_N
# (default 1,000,000) submissions on the normal kernel, then FUZZ_DEBUG_N
# (default 200,000) on the debug kernel, both with SEED (default 7).
# Under TCG on 2 cores: about 20 and 40 minutes.  Each run's summary goes
# to .build/fuzz-long.txt, for the README.
. "$(dirname "$0")/lib.sh"

seed=${SEED:-7}
summary=$BUILD/fuzz-long.txt

run()
{
	local debug=$1 n=$2 logs rc=0 line

	logs=$BUILD/logs
	[ "$debug" = 0 ] || logs=$BUILD/logs-debug
	say "fuzz: $n submissions, seed $seed, ${3} kernel"
	DEBUG=$debug VM_TIMEOUT=${VM_TIMEOUT:-7200} make -C "$REPO" -s fuzz \
		N="$n" SEED="$seed" || rc=$?
	line=$(grep -m1 '^# seed .* submissions/s' "$logs/fuzz.log" | sed 's/^# //')
	printf '%s  %s kernel: %s: %s\n' "$(date -u +%F)" "$3" "${line:-no summary}" \
		"$([ $rc = 0 ] && echo passed || echo "FAILED (see ${logs#"$REPO"/}/fuzz.log)")" |
		tee -a "$summary"
	return $rc
}

run 0 "${FUZZ_N:-1000000}" normal
run 1 "${FUZZ_DEBUG_N:-200000}" debug
