#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run every selftest binary in $1, TAP on stdout.
for t in "$1"/*; do
	[ -x "$t" ] || continue
	echo "# selftest: ${t##*/}"
	"$t"
	echo "# selftest ${t##*/} exited with $?"
done
