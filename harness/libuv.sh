#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make libuv: build Debian's libuv1 source (of the installed libuv1's
# version) twice with CMake, and run libuv's own test suite in the guest,
# on our kernel, for both:
#   stock: the source as Debian ships it (its quilt patches applied);
#   ours:  a copy with patches/libuv/*.patch applied in name order (with
#          none, ours is stock), copied and built again from scratch
#          whenever the patches change (their checksum is kept in the copy).
# Both are built against our kernel's UAPI headers and tools/lib; each
# build's uv_run_tests loads its own libuv.so.1 (RUNPATH, checked).
# Writes .build/libuv/: results.txt ("BUILD TEST ok|fail|skip|timeout"),
# table.md (the tests that do not pass, stock and ours side by side) and
# console.log.  Fails if a test passes on stock but not on ours, or one our
# patches add (stock: "-") fails, or if no test ran; tests that fail on both
# (as root, say) are listed, not fatal.  The whole suite, 410 tests, takes
# 5 to 7 min a build under TCG.
# LIBUV_TESTS="fs_file_async ..." runs only those tests; LIBUV_TESTS=fs the
# tests of $FS_TESTS below and those our patches add (CI, about 1 min).
# LIBUV_MULTIPLIER scales the runner's timeout of each test (default 5, for
# TCG; Debian's rules use 2).
. "$(dirname "$0")/lib.sh"
x86_64_only "make libuv"

OUT=$BUILD/libuv
VER=$(dpkg-query -W -f='${Version}' libuv1)
# The tests of uv_fs_* requests with callbacks, on the thread pool today.
FS_TESTS="fs_file_async fs_file_noent fs_async_dir fs_async_sendfile
	fs_async_sendfile_nodata fs_rename_to_existing_file fs_symlink fs_fstat
	fs_access fs_chmod fs_copyfile fs_mkstemp fs_utime fs_statfs
	fs_scandir_empty_dir fs_readdir_non_empty_dir threadpool_cancel_fs"
mkdir -p "$OUT"

libuv_source()
{
	deb_source libuv1 "$VER" "$OUT/src" && echo "$VER" >"$OUT/src/version"
}

# build NAME SRC: cmake out of tree in build-NAME; from scratch when SRC is
# another tree than last time.
build()
{
	local b=$OUT/build-$1 cc=()

	command -v ccache >/dev/null && cc=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
	[ "$(cat "$b/.src" 2>/dev/null)" = "$2 $(cat "$2/.patches" 2>/dev/null)" ] ||
		{ rm -rf "$b" && mkdir -p "$b"; } || return
	CCACHE_BASEDIR=$OUT cmake -S "$2" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DLIBUV_BUILD_TESTS=ON -DBUILD_TESTING=ON "${cc[@]}" \
		-DCMAKE_C_FLAGS="-isystem $HDR/include -I$REPO/tools/lib" &&
		CCACHE_BASEDIR=$OUT cmake --build "$b" -j"$JOBS" --target uv_run_tests || return
	echo "$2 $(cat "$2/.patches" 2>/dev/null)" >"$b/.src"
	readelf -d "$b/uv_run_tests" | sed -n 's/.*R.*PATH.*\[\(.*\)\]$/\1/p' | tr : '\n' |
		grep -qxF "$b" ||
		{ echo "$b/uv_run_tests has no RUNPATH to its libuv.so.1"; return 1; }
}

# The copy with our patches, made again when they change.
patch_ours()
{
	local p sum

	sum=$( (echo "$VER"; cat "$REPO"/patches/libuv/*.patch 2>/dev/null) | md5sum | cut -c1-32)
	[ "$(cat "$OURS/.patches" 2>/dev/null)" = "$sum" ] && return
	rm -rf "$OURS" && cp -a "$STOCK_SRC" "$OURS" || return
	for p in "$REPO"/patches/libuv/*.patch; do
		[ -f "$p" ] || continue
		echo "applying $p"
		patch -d "$OURS" -p1 --no-backup-if-mismatch <"$p" || return
	done
	echo "$sum" >"$OURS/.patches"
}

build_both()
{
	patch_ours && build stock "$STOCK_SRC" && build ours "$OURS"
}

[ "$(cat "$OUT/src/version" 2>/dev/null)" = "$VER" ] ||
	step "libuv source (apt-get source libuv1=$VER)" "$LOGS/libuv-source.log" libuv_source
STOCK_SRC=$(echo "$OUT"/src/libuv1-*/)
STOCK_SRC=${STOCK_SRC%/}
OURS=$OUT/ours
npatch=$(find "$REPO/patches/libuv" -name '*.patch' 2>/dev/null | wc -l)
step "build libuv and its tests, stock and with our $npatch patch(es)" \
	"$LOGS/libuv-build.log" build_both
[ "${LIBUV_BUILD_ONLY:-0}" = 1 ] && exit 0

# The tests our patches add, in the fs set too.
list()
{
	UV_RUN_AS_ROOT=1 "$OUT/build-$1/uv_run_tests" --list | awk '{ print $1 }' | sort
}
tests=${LIBUV_TESTS:-}
[ "$tests" = fs ] && tests="$FS_TESTS $(comm -13 <(list stock) <(list ours))"
tests=$(xargs <<<"$tests")
mult=${LIBUV_MULTIPLIER:-5}
# Beyond the runner's own timeouts (60 s the longest): a hung runner.
limit=$((60 * mult + 60))
guest()
{
	local b cmd=""

	for b in stock:"$STOCK_SRC" ours:"$OURS"; do
		cmd="$cmd${cmd:+ && }sh $HARNESS/guest-libuv.sh ${b%%:*} $OUT/build-${b%%:*} ${b#*:} '$tests' $mult $limit"
	done
	VM_TIMEOUT=${VM_TIMEOUT:-14400} VM_LOG=$OUT/vm.log "$HARNESS/vm.sh" "$cmd"
}
start=$SECONDS
rm -f "$OUT"/console.log "$OUT"/vm*.log "$OUT"/results.txt "$OUT"/table.md
what="the whole suite, 5 to 7 min a build under TCG"
[ -z "$tests" ] || what="$(wc -w <<<"$tests") tests"
step "libuv's tests in the guest, stock then ours ($what)" \
	"$OUT/console.log" guest
check_dmesg "$OUT/vm-dmesg.log" || fail "libuv" "$OUT/vm-dmesg.log" "a kernel splat"

sed -n 's/^LIBUV,\([a-z]*\),\([^,]*\),\([a-z]*\),.*/\1 \2 \3/p' "$OUT/console.log" >"$OUT/results.txt"
awk -v ver="$VER" '
{ r[$1, $2] = $3; c[$1, $3]++; if (!($2 in seen)) { seen[$2]; order[k++] = $2 } }
END {
	printf "libuv %s test suite on our kernel: stock %d ok, %d fail, %d skip, %d timeout;", ver,
		c["stock", "ok"], c["stock", "fail"], c["stock", "skip"], c["stock", "timeout"]
	printf " ours %d ok, %d fail, %d skip, %d timeout\n\n",
		c["ours", "ok"], c["ours", "fail"], c["ours", "skip"], c["ours", "timeout"]
	print "| test | stock | ours |"
	print "|---|---|---|"
	for (i = 0; i < k; i++) {
		t = order[i]
		s = (("stock", t) in r) ? r["stock", t] : "-"
		o = (("ours", t) in r) ? r["ours", t] : "-"
		if (s !~ /^(ok|-)$/ || o !~ /^(ok|-)$/)
			printf "| %s | %s | %s |\n", t, s, o
	}
}' "$OUT/results.txt" >"$OUT/table.md"
echo
cat "$OUT/table.md"
say "results: ${OUT#"$REPO"/}/results.txt, table.md; console: ${OUT#"$REPO"/}/console.log ($((SECONDS - start))s)"
[ -s "$OUT/results.txt" ] || fail "libuv" "$OUT/console.log" "no test ran"
[ "$(grep -c '^LIBUV-DONE,' "$OUT/console.log")" = 2 ] ||
	fail "libuv" "$OUT/console.log" "a build's run did not finish"
worse=$(awk 'NR == FNR { r[$1, $2] = $3; next }
	$1 == "ours" && ($3 == "fail" || $3 == "timeout") && r["stock", $2] ~ /^(ok|)$/ {
		printf " %s", $2 }' "$OUT/results.txt" "$OUT/results.txt")
[ -z "$worse" ] || fail "libuv" "$OUT/console.log" \
	"test(s)$worse pass on stock libuv (or are new) and fail with our patches"
