#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the selftests on the host against the exported UAPI headers.  The
# samples are built with the kernel (CONFIG_SAMPLE_ASYNC_SYSCALL).
. "$(dirname "$0")/lib.sh"

build_user()
{
	make_selftests "$TREE" "$USEROBJ/selftests" "$HDR/include"
	# The tests to run, without helpers such as the fuzzer.
	make -s -C "$TREE/tools/testing/selftests/async_syscall" ARCH="$ARCH" emit_tests |
		sed 's/^[^:]*://' >"$USEROBJ/selftests/tests.list"
}

step "build selftests" "$LOGS/user.log" build_user
