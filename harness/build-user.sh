#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the selftests and samples on the host against the exported UAPI headers.
. "$(dirname "$0")/lib.sh"

build_user()
{
	make -C "$TREE/tools/testing/selftests/async_syscall" \
		OUTPUT="$USEROBJ/selftests" KHDR_INCLUDES="-isystem $HDR/include"
	# The tests to run, without helpers such as the fuzzer.
	make -s -C "$TREE/tools/testing/selftests/async_syscall" emit_tests |
		sed 's/^[^:]*://' >"$USEROBJ/selftests/tests.list"
	make -C "$TREE/samples/async_syscall" -f Makefile.host \
		OUTPUT="$USEROBJ/samples" KHDR_INCLUDES="-isystem $HDR/include"
}

mkdir -p "$USEROBJ/selftests" "$USEROBJ/samples"
step "build selftests and samples" "$LOGS/user.log" build_user
