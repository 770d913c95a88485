#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the selftests in the guest, then print "N passed, N failed[, N skipped]".
# Fails on any failed test, and on any splat in the guest's dmesg.
. "$(dirname "$0")/lib.sh"

export VM_LOG=$LOGS/selftests.log
# aio_test's delayed disk: every request takes 100 ms.
export VM_APPEND="null_blk.nr_devices=1 null_blk.memory_backed=1 null_blk.gb=1
	null_blk.bs=4096 null_blk.irqmode=2 null_blk.completion_nsec=100000000"

LOG=$VM_LOG
DMESG=$LOGS/selftests-dmesg.log

say "running the selftests in the guest"
"$HARNESS/vm.sh" "$HARNESS/guest-selftests.sh $USEROBJ/selftests $OBJ/samples/async_syscall" ||
	fail "selftests" "$LOG" "the guest runner failed"

totals()
{
	awk -v key="$1" '/^# Totals:/ {
		for (i = 3; i <= NF; i++) { split($i, kv, ":"); if (kv[1] == key) n += kv[2] }
	} END { print n + 0 }' "$LOG"
}
pass=$(totals pass)
failed=$(( $(totals fail) + $(totals error) ))
skip=$(totals skip)
# A binary that crashed printed no totals: count it as one failure.
ran=$(grep -c '^# selftest .* exited with' "$LOG" || true)
summed=$(grep -c '^# Totals:' "$LOG" || true)
failed=$((failed + ran - summed))

status=0
check_dmesg "$DMESG" || status=1
[ "$pass" -gt 0 ] || { echo "FAILED: no test passed" >&2; status=1; }
[ "$failed" = 0 ] || status=1
summary="$pass passed, $failed failed"
[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
echo "$summary"
exit $status
