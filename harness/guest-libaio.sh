#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run the cases of libaio's harness/ (built on the host) in a
# directory of the scratch disk prepared as its Makefile's check target does,
# each under its own timeout, and print one line per case, then a closing one:
#	libaio NAME CASE PASS|FAIL|SKIP rc=N SECONDSs
#	libaio done: NAME: N passed, N failed, N skipped
# rc 3 is a skip, as in its runtests.sh; 124 a timeout.  Our kernels have no
# loop device: the ext2 file systems of cases 10 (testdir.enospc, the suite's
# full image) and 8 (testdir.ext2) go on the null_blk disks nullb0 and nullb1.
#
# guest-libaio.sh SUITE NAME "CASES" TIMEOUT: CASES empty runs them all.
suite=$1 name=$2 cases=$3 limit=$4
dir=$SCRATCH/libaio
pass=0 fail=0 skip=0

set -e
mkdir -p "$dir/testdir" "$dir/testdir.enospc" "$dir/testdir.ext2"
cd "$dir"
for f in rofile:400 wofile:200 rwfile:600; do
	echo test >testdir/${f%:*} && chmod ${f#*:} testdir/${f%:*}
done
dd if="$suite/ext2-enospc.img" of=/dev/nullb0 bs=4k status=none
mount -t ext2 /dev/nullb0 testdir.enospc
mke2fs -q -F -b 4096 /dev/nullb1 2560		# the Makefile's 10 MiB ext2.img
mount -t ext2 /dev/nullb1 testdir.ext2
set +e

[ -n "$cases" ] ||
	cases=$(for p in "$suite"/cases/*.p; do basename "$p" .p; done | sort -n)
for c in $cases; do
	echo "# libaio $name case $c"
	t=$(date +%s)
	timeout -k 10 "$limit" "$suite/cases/$c.p" </dev/null 2>&1
	rc=$?
	case $rc in
	0)	r=PASS pass=$((pass + 1)) ;;
	3)	r=SKIP skip=$((skip + 1)) ;;
	*)	r=FAIL fail=$((fail + 1)) ;;
	esac
	echo "libaio $name $c $r rc=$rc $(($(date +%s) - t))s"
done
echo "libaio done: $name: $pass passed, $fail failed, $skip skipped"
cd / && umount "$dir/testdir.enospc" "$dir/testdir.ext2"
