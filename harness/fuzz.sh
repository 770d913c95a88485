#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fuzz.sh N [SEED]: N random submissions in the guest; fails on a fuzzer
# report or on a kernel splat.
. "$(dirname "$0")/lib.sh"

export VM_LOG=$LOGS/fuzz.log
"$HARNESS/vm.sh" "$USEROBJ/selftests/async_fuzz -n $1${2:+ -s $2}" ||
	fail "fuzz" "$VM_LOG" "the fuzzer reported a failure (its seed is above)"
check_dmesg "$LOGS/fuzz-dmesg.log"
