#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run libuv's test runner (built on the host) one test at a
# time, each as its own invocation under a timeout, in a fresh folder of the
# scratch disk holding the source's test/fixtures (the tests open them, and
# create their files, relative to the current folder); print one line per
# test, then a closing one:
#	LIBUV,NAME,TEST,ok|fail|skip|timeout,SECONDSs
#	LIBUV-DONE,NAME,N ok,N fail,N skip,N timeout,SECONDSs
# A skip's line is followed by its reason, a failure's by the test's output,
# as "# " lines.  "timeout" is the runner's own (UV_TEST_TIMEOUT_MULTIPLIER
# times the test's, 5 s for most) or LIMIT's, for a runner that hangs.
#
# guest-libuv.sh NAME BUILD SRC "TESTS" MULTIPLIER LIMIT: BUILD holds
# uv_run_tests, SRC the source; TESTS empty runs them all, and a test the
# build does not have (one our patches add) gets no line.
name=$1 build=$2 src=$3 tests=$4 limit=$6
runner=$build/uv_run_tests
dir=${SCRATCH:-/tmp}/libuv-$name
out=${SCRATCH:-/tmp}/libuv-$name.out
ok=0 fail=0 skip=0 tmo=0 start=$(date +%s)

# As Debian's rules: no DNS; a longer timeout for each test.  The guest
# runs as root, which the runner refuses without UV_RUN_AS_ROOT.
export RES_OPTIONS=attempts:0 UV_TEST_TIMEOUT_MULTIPLIER="$5" UV_RUN_AS_ROOT=1
ip link set lo up 2>/dev/null
# The runner must load this build's libuv.so.1 (its RUNPATH).
lib=$(LD_TRACE_LOADED_OBJECTS=1 "$runner" | grep -o '=> [^ ]*libuv\.so\.1')
echo "# libuv $name: $runner, libuv.so.1 $lib"
case $lib in
"=> $build/libuv.so.1") ;;
*) echo "LIBUV-ERROR,$name,the runner does not load $build/libuv.so.1"; exit 1 ;;
esac

rm -rf "$dir" && mkdir -p "$dir/test" && cp -r "$src/test/fixtures" "$dir/test/" &&
	cd "$dir" || exit 1
all=$("$runner" --list | awk '{ print $1 }')
for t in ${tests:-$all}; do
	if ! echo "$all" | grep -qx "$t"; then
		echo "# libuv $name: no test $t" && continue
	fi
	t0=$(date +%s)
	timeout -k 10 "$limit" "$runner" "$t" >"$out" 2>&1 </dev/null
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ] || grep -qx '# timeout' "$out"; then
		r=timeout tmo=$((tmo + 1))
	elif grep -q "^ok 1 - $t # SKIP" "$out"; then
		r=skip skip=$((skip + 1))
	elif [ $rc = 0 ] && grep -qx "ok 1 - $t" "$out"; then
		r=ok ok=$((ok + 1))
	else
		r=fail fail=$((fail + 1))
	fi
	echo "LIBUV,$name,$t,$r,$(($(date +%s) - t0))s"
	case $r in
	skip) sed -n 's/^ok 1 - .* # SKIP */# skipped: /p' "$out" ;;
	fail|timeout) echo "# rc=$rc"; sed 's/^/# /' "$out" | head -n 60 ;;
	esac
done
echo "LIBUV-DONE,$name,$ok ok,$fail fail,$skip skip,$tmo timeout,$(($(date +%s) - start))s"
cd / && rm -rf "$dir" "$out"
