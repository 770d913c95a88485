#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run the selftests listed in $1/tests.list, then the checks
# of the samples in $2, TAP on stdout.
while read -r name; do
	echo "# selftest: $name"
	"$1/$name" </dev/null
	echo "# selftest $name exited with $?"
done <"$1/tests.list"

echo "# selftest: samples"
"$(dirname "$0")/guest-samples.sh" "$2" </dev/null
echo "# selftest samples exited with $?"

# Debug kernels: leaks show up in dmesg, which the host checks.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "# kmemleak scan"
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
