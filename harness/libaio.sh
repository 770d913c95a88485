#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make libaio: build the regression suite of Debian's libaio source (of the
# installed libaio-dev's version) and run its cases in the guest.  Two
# builds of it: as shipped, and "reaping" with one fix: its helper
# sync_submit() (and case 13) reap with io_getevents(ctx, 0, 1, ...),
# which finds a request only if io_submit() completed it, as buffered I/O
# did before our change; the fix asks for at least one event.
#   shipped: on our kernel and on the stock 6.12 kernel (tag "base", built
#            once), for the table;
#   reaping: on our kernel; every case must pass.
# Case 11 (two million dependent 256-byte requests, each on a worker) is
# left out of the reaping run: about 1 ms each under TCG.
# Writes .build/libaio/: results.txt, table.md and the guests' consoles.
# LIBAIO_STOCK=0 skips the stock kernel, LIBAIO_SHIPPED=0 the shipped
# build (CI); LIBAIO_TIMEOUT is each case's timeout in seconds (600).
. "$(dirname "$0")/lib.sh"
x86_64_only "make libaio"

OUT=$BUILD/libaio
VER=$(dpkg-query -W -f='${Version}' libaio-dev)
# Two memory-backed disks for the suite's ext2 file systems (no loop device).
NULL_BLK="null_blk.nr_devices=2 null_blk.memory_backed=1 null_blk.gb=1"
SLOW=11
mkdir -p "$OUT"

libaio_source()
{
	deb_source libaio "$VER" "$OUT/src" && echo "$VER" >"$OUT/src/version"
}

# Both builds of the suite: shipped in $SHIPPED, fixed in $REAPING.
build_suites()
{
	make -C "$SHIPPED" LIBAIO=-laio || return
	rm -rf "$REAPING" && cp -a "$SHIPPED" "$REAPING" || return
	sed -i 's/io_getevents(io_ctx, 0, 1, &event, &ts)/io_getevents(io_ctx, 1, 1, \&event, \&ts)/' \
		"$REAPING/cases/aio_setup.h" "$REAPING/cases/13.t"
	[ "$(grep -c 'io_getevents(io_ctx, 1, 1, &event, &ts)' \
		"$REAPING/cases/aio_setup.h" "$REAPING/cases/13.t" | grep -c ':1$')" = 2 ] ||
		{ echo "the reaping fix no longer applies"; return 1; }
	rm -f "$REAPING"/cases/*.p && make -C "$REAPING" LIBAIO=-laio
}

[ "$(cat "$OUT/src/version" 2>/dev/null)" = "$VER" ] ||
	step "libaio source (apt-get source libaio=$VER)" "$LOGS/libaio-source.log" libaio_source
SHIPPED=$(echo "$OUT"/src/libaio-*/harness)
REAPING=$OUT/reaping
step "build libaio's test cases, shipped and with the reaping fix" \
	"$LOGS/libaio-build.log" build_suites
ALL=$(for p in "$SHIPPED"/cases/*.p; do basename "$p" .p; done | sort -n | paste -sd,)

# run NAME KERNEL SUITE=CASES...: CASES comma-separated; the console goes
# to console-NAME.log (the step's log), one line "NAME SUITE CASE RESULT"
# per case to results-NAME.txt.
run()
{
	local name=$1 kernel=$2 cmd="" s log=$OUT/console-$1.log

	shift 2
	for s in "$@"; do
		cmd="$cmd sh $HARNESS/guest-libaio.sh ${s%%=*} $(basename "${s%%=*}") '${s#*=}' ${LIBAIO_TIMEOUT:-600};"
	done
	VM_KERNEL=$kernel VM_TIMEOUT=${VM_TIMEOUT:-3600} VM_APPEND=$NULL_BLK \
		VM_LOG=$OUT/vm-$name.log "$HARNESS/vm.sh" "${cmd//,/ }" || return
	sed -n "s/^libaio \([a-z]* [0-9]* [A-Z]*\) rc=.*/$name \1/p" "$log" >"$OUT/results-$name.txt"
	[ "$(grep -c '^libaio done:' "$log")" = $# ] && check_dmesg "$OUT/vm-$name-dmesg.log"
}

start=$SECONDS
rm -f "$OUT"/console-*.log "$OUT"/vm-*.log "$OUT"/results-*.txt
suites=("$REAPING=$(tr , '\n' <<<"$ALL" | grep -vx "$SLOW" | paste -sd,)")
[ "${LIBAIO_SHIPPED:-1}" = 1 ] && suites=("$SHIPPED=$ALL" "${suites[@]}")
step "libaio's cases in the guest, our kernel (about 5 min a build)" \
	"$OUT/console-ours.log" run ours "${VM_KERNEL:-$OBJ/arch/x86/boot/bzImage}" "${suites[@]}"
if [ "${LIBAIO_SHIPPED:-1}" = 1 ] && [ "${LIBAIO_STOCK:-1}" = 1 ]; then
	[ -f "$STOCK/arch/x86/boot/bzImage" ] ||
		step "build the stock 6.12 kernel (tag base; once, about 10 min)" \
			"$LOGS/libaio-stock-kernel.log" build_stock
	step "libaio's cases in the guest, stock kernel" "$OUT/console-stock.log" \
		run stock "$STOCK/arch/x86/boot/bzImage" "$SHIPPED=$ALL"
fi

cat "$OUT"/results-*.txt >"$OUT/results.txt"
awk -v ver="$VER" '
{ r[$1, $2, $3] = $4; if (!($3 in seen)) { seen[$3]; order[n++] = $3 } }
END {
	printf "libaio %s regression suite (harness/cases)\n\n", ver
	print "| case | shipped, ours | shipped, stock | reaping fix, ours |"
	print "|---|---|---|---|"
	for (i = 0; i < n; i++) {
		c = order[i]
		printf "| %s | %s | %s | %s |\n", c, r["ours", "harness", c] ? r["ours", "harness", c] : "-",
			r["stock", "harness", c] ? r["stock", "harness", c] : "-",
			r["ours", "reaping", c] ? r["ours", "reaping", c] : "-"
	}
}' "$OUT/results.txt" >"$OUT/table.md"
echo
cat "$OUT/table.md"
say "results: ${OUT#"$REPO"/}/results.txt, table.md; consoles: ${OUT#"$REPO"/}/console-*.log ($((SECONDS - start))s)"
failed=$(awk '$1 == "ours" && $2 == "reaping" && $4 != "PASS" { printf " %s", $3 }' "$OUT/results.txt")
[ -z "$failed" ] || fail "libaio" "$OUT/console-ours.log" \
	"case(s)$failed of the suite with the reaping fix fail on our kernel"
