#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# whitelist.sh: the system calls of kernel/async_syscall/opdef.c and the
# whitelist tables of the rst guide and the man page must be the same set.
# Prints one line per difference; fails if there is any.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# opdef.c's ASYNC_SYSCALL(name, ...) lines, without the macro's own
# definition, and the x86_64-only calls of ASYNC_SYSCALL_DEFS_LEGACY.
{
	grep -o 'ASYNC_SYSCALL([a-z0-9_]*,' kernel/async_syscall/opdef.c |
		sed 's/.*(//; s/,$//' | grep -vx call
	grep -o '^	\[__NR_[a-z0-9_]*\] = { .name = "[a-z0-9_]*"' \
		kernel/async_syscall/async_syscall.h | sed 's/.*"\(.*\)"/\1/'
} | sort -u >"$tmp/opdef"

# The second column of the rst table that follows the Whitelist title.
awk '/^Whitelist$/ { w = 1 } w && /^=+ +=+$/ { n++; next }
     w && n == 1 { print substr($0, 33) } n == 2 { exit }' \
	Documentation/userspace-api/async_syscall.rst |
	tr ',' '\n' | tr -d ' ' | grep . | sort -u >"$tmp/rst"

# The .BR name (2) lines of the man page's whitelist, up to its first .PP.
awk '/^\.SS The whitelist/ { w = 1; next } w && /^\.PP/ { exit }
     w && /^\.BR [a-z0-9_]+ \(2\)/ { print $2 }' man/man2/async_submit.2 |
	sort -u >"$tmp/man"

rc=0
for doc in rst man; do
	while read -r name; do
		echo "whitelist: $name is in opdef.c but not in the $doc table"
		rc=1
	done < <(comm -23 "$tmp/opdef" "$tmp/$doc")
	while read -r name; do
		echo "whitelist: $name is in the $doc table but not in opdef.c"
		rc=1
	done < <(comm -13 "$tmp/opdef" "$tmp/$doc")
done
echo "whitelist: $(wc -l <"$tmp/opdef") system calls in opdef.c"
exit $rc
