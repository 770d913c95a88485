#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run every selftest binary in $1, TAP on stdout.
for t in "$1"/*; do
	[ -x "$t" ] || continue
	echo "# selftest: ${t##*/}"
	"$t"
	echo "# selftest ${t##*/} exited with $?"
done

# Debug kernels: leaks show up in dmesg, which the host checks.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "# kmemleak scan"
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
