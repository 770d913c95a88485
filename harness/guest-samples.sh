#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run the samples in $1 on real input and check what they
# do against the plain tools, as TAP with a kselftest "# Totals:" line.
bin=$1
dir=$(mktemp -d "${SCRATCH:-/tmp}/samples.XXXXXX") || exit 1
pass=0 fail=0 n=0

check()
{
	n=$((n + 1))
	if "$@"; then
		pass=$((pass + 1))
		echo "ok $n $name"
	else
		fail=$((fail + 1))
		echo "not ok $n $name"
	fi
}

echo "# samples: $bin"
echo "1..7"

# 100 small files, one of 1 MiB, an empty one: acat == cat.
i=0
while [ $i -lt 100 ]; do
	seq $i $((i * 7)) >"$dir/f$i"
	i=$((i + 1))
done
head -c 1048576 /dev/urandom >"$dir/big"
: >"$dir/empty"
files="$dir/f1 $dir/big $dir/empty $(ls "$dir"/f* | sort | tr '\n' ' ')"
name="acat concatenates 103 files in order"
check sh -c "'$bin/acat' $files >'$dir/out.acat' && cat $files >'$dir/out.cat' &&
	cmp -s '$dir/out.acat' '$dir/out.cat'"

name="acat reports a missing file and a directory, exits 1, goes on"
check sh -c "! '$bin/acat' '$dir/f2' '$dir/none' '$dir' '$dir/f3' >'$dir/out.acat' 2>'$dir/err' &&
	cat '$dir/f2' '$dir/f3' | cmp -s - '$dir/out.acat' &&
	grep -q 'none: No such file' '$dir/err' && grep -q 'read: Is a directory' '$dir/err'"

name="acat reads a pipe until its end"
check sh -c "cat '$dir/big' | '$bin/acat' /proc/self/fd/0 | cmp -s - '$dir/big'"

name="acat reads a file of /proc, whose size is 0, until its end"
check sh -c "'$bin/acat' /proc/self/mountinfo >'$dir/out.acat' && cat /proc/self/mountinfo |
	cmp -s - '$dir/out.acat' && test -s '$dir/out.acat'"

name="alog appends 3 MiB and syncs each batch"
check sh -c "printf head >'$dir/log' &&
	head -c 3145728 /dev/urandom >'$dir/data' &&
	'$bin/alog' -v '$dir/log' <'$dir/data' 2>'$dir/err' &&
	{ printf head; cat '$dir/data'; } | cmp -s - '$dir/log' &&
	test \$(grep -c durable '$dir/err') = 6"

name="aread-timeout reads what comes in time"
check sh -c "echo hello | '$bin/aread-timeout' 20 | grep -qx hello"

name="aread-timeout cancels a read that does not"
check sh -c "sleep 4 | '$bin/aread-timeout' 1 2>'$dir/err'; test \$? = 2 &&
	grep -q 'cancelled: 1' '$dir/err'"

rm -rf "$dir"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" = 0 ]
