#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of our files: checkpatch, kernel-doc, sparse, the man page
# lint and the docs' whitelist tables against opdef.c.  Every check runs;
# the run fails if any of them reports something.
# x86_64's build; sparse also checks arm64's when there is one.
export ARCH=x86_64
. "$(dirname "$0")/lib.sh"

failed=

# check NAME LOG PATTERN CMD...: run CMD with its output in LOG.  Lines of
# the output matching PATTERN (grep -E) are findings; the check passes when
# CMD succeeds and there are none.
check()
{
	local name=$1 log=$2 pattern=$3 rc=0 findings

	shift 3
	run_logged "$name" "$log" "$@"
	rc=$LOGGED_RC
	findings=$(grep -E -- "$pattern" "$log" || true)
	if [ -n "$findings" ]; then
		printf '%s\n' "$findings" | sed 's/^/    /' >&2
		printf '    %s: %d finding(s)\n' "$name" "$(printf '%s\n' "$findings" | wc -l)" >&2
		failed="$failed $name"
	elif [ "$rc" != 0 ]; then
		tail -n 15 "$log" | sed 's/^/    /' >&2
		printf '    %s: exit status %d\n' "$name" "$rc" >&2
		failed="$failed $name"
	else
		printf '    %s: clean\n' "$name" >&2
	fi
}

command -v sparse >/dev/null || fail "sparse" "" "sparse missing: run harness/deps.sh"
command -v groff >/dev/null || fail "man page lint" "" "groff missing: run harness/deps.sh"
[ -f "$OBJ/.config" ] && [ -f "$OBJ/include/generated/autoconf.h" ] ||
	fail "sparse" "" "no kernel build in ${OBJ#"$REPO"/}: run make kernel first"

# checkpatch and sparse use $TREE, kernel-doc its script: bring it up to date.
"$HARNESS/prepare-tree.sh"

cd "$REPO"
mapfile -t kernel_files < <(find kernel include arch -type f -name '*.[ch]' | sort)
mapfile -t user_files < <(find samples tools bench -type f -name '*.[ch]' | sort)
kdoc_files=(kernel/async_syscall/*.[ch] include/uapi/linux/async_syscall.h include/trace/events/async_syscall.h
	    include/linux/async_syscall.h arch/*/include/asm/async_syscall.h)

# checkpatch --strict on every file; exit status 1 only means findings,
# which check() finds in the output.
checkpatch()
{
	local raw=$LOGS/check-checkpatch-raw.log rc=0

	perl "$TREE/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
		-f "${kernel_files[@]}" "${user_files[@]}" >"$raw" 2>&1 || [ $? = 1 ] || rc=1
	grep -v -E -f <(checkpatch_allowed '^%s:[0-9]+: [A-Z]+:%s:\n') "$raw" || true
	return $rc
}

check checkpatch "$LOGS/check-checkpatch.log" ': (ERROR|WARNING|CHECK):' checkpatch

check kernel-doc "$LOGS/check-kernel-doc.log" '.' \
	"$TREE/scripts/kernel-doc" -none -Wall "${kdoc_files[@]}"

# C=2: check the sources whether or not their objects are up to date.
check sparse "$LOGS/check-sparse.log" ': (warning|error):' \
	make -C "$TREE" O="$OBJ" ARCH=x86_64 C=2 -j"$JOBS" \
	kernel/async_syscall/

# The same on arm64, once make kernel ARCH=arm64 has configured it.
ARM64_OBJ=$BUILD/obj-arm64
if [ -f "$ARM64_OBJ/include/generated/autoconf.h" ]; then
	# Only our files: C=2 also checks the arm64 vDSO on the way.
	check "sparse, arm64" "$LOGS/check-sparse-arm64.log" \
		'async_syscall[^:]*:[0-9]+:[0-9]+: (warning|error):' \
		make -C "$TREE" O="$ARM64_OBJ" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		C=2 -j"$JOBS" kernel/async_syscall/
else
	say "sparse, arm64: skipped, no arm64 build (make kernel ARCH=arm64)"
fi

check "man page lint" "$LOGS/check-man.log" '.' \
	groff -ww -z -man man/man2/*.2

# The man page's example program, as a reader would paste it, must build.
man_example()
{
	local src=$LOGS/man-example.c

	sed -n '/^\.\\" SRC BEGIN/,/^\.\\" SRC END/p' man/man2/async_submit.2 |
		sed -e '/^\.\\"/d' -e '/^\.EX$/d' -e '/^\.EE$/d' -e '/^\.in/d' \
		    -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g' >"$src"
	[ -s "$src" ] || { echo "error: no SRC BEGIN/END block"; return 1; }
	gcc -Wall -Wextra -Werror -I"$HDR/include" -o "$LOGS/man-example" "$src"
}

check "man page example" "$LOGS/check-man-example.log" '(warning|error)' man_example

# A call is accepted only with its line in both whitelist tables.
check "whitelist tables" "$LOGS/check-whitelist.log" '^whitelist: [a-z0-9_]+ is in' \
	"$HARNESS/whitelist.sh"

# checkpatch's COMMIT_LOG_LONG_LINE, before make series: a message line
# over 75 columns that is not a tag.
check "series messages" "$LOGS/check-series-msgs.log" '^series/' \
	awk '/^---$/ { nextfile } length($0) > 75 && !/^[A-Za-z-]+: / {
		print FILENAME ":" FNR ": over 75 columns" }' series/*.msg

[ -z "$failed" ] || fail "static checks" "" "findings from:$failed"
say "all checks clean"
