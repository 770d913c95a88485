#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fio: build the async_submit() ioengine against the fio source of the
# installed fio's version, boot the guest with a null_blk disk of 0.5 ms
# latency, and run the jobs of bench/fio/ with each engine; the libaio and
# psync rows also on the stock 6.12 kernel (the tree's tag "base", built
# once).  Writes .build/fio/: results.csv, table.md, chart.png and the
# guests' consoles.  Timings never fail the run; a failed job (a verify
# error above all) does.
# FIO_SMOKE=1: only the verify job with our engine, on our kernel (CI).
# FIO_JOBS="..." and FIO_ENGINES="..." choose among the jobs and engines;
# FIO_STOCK=0 skips the stock kernel; FIO_RUNS=n runs each job n times
# (default: randread-qd32 3 times, the rest once), reported as the median.
. "$(dirname "$0")/lib.sh"
x86_64_only "make fio"

OUT=$BUILD/fio
SO=$OUT/async_submit.so
JOBS_ALL="randread-qd32 randread-qd1-warm randwrite-fsync32 randread-direct smallfiles verify"
ENGINES="psync psync4 libaio io_uring io_uring_reg posixaio async async_range async_chain"
# 1 GiB in memory, 4 KiB blocks, completions 0.5 ms after submission.
NULL_BLK="null_blk.nr_devices=1 null_blk.memory_backed=1 null_blk.gb=1 null_blk.bs=4096
	null_blk.irqmode=2 null_blk.completion_nsec=500000"
mkdir -p "$OUT"

# Debian's fio source of the installed version, configured for its header.
fio_source()
{
	local ver

	ver=$(dpkg-query -W -f='${Version}' fio)
	deb_source fio "$ver" "$OUT/src" || return
	(cd "$OUT"/src/fio-*/ && ./configure --disable-native) || return
	echo "$ver" >"$OUT/src/version"
}

build_engine()
{
	local src

	src=$(echo "$OUT"/src/fio-*/)
	gcc -O2 -Wall -Werror -shared -fPIC -D_GNU_SOURCE \
		-include "$src/config-host.h" -I"$src" -idirafter "$HDR/include" \
		-I"$REPO/tools/lib" -o "$SO" "$REPO/bench/fio/async_submit.c"
}

[ "$(cat "$OUT/src/version" 2>/dev/null)" = "$(dpkg-query -W -f='${Version}' fio)" ] ||
	step "fio source (apt-get source fio) and its configure" "$LOGS/fio-source.log" fio_source
step "build the async_submit ioengine for fio" "$LOGS/fio-engine.log" build_engine

jobs=${FIO_JOBS:-$JOBS_ALL} engines=${FIO_ENGINES:-$ENGINES}
[ "${FIO_SMOKE:-0}" = 1 ] && jobs=verify engines="async async_range"

# guest KERNEL-NAME JOBS ENGINES [BZIMAGE]: the console goes to the step's
# log; the guest's dmesg to vm-KERNEL-NAME-dmesg.log.
guest()
{
	local rc=0

	VM_KERNEL=${4:-} VM_MEM=3G VM_TIMEOUT=${VM_TIMEOUT:-3600} \
	VM_APPEND="$(echo $NULL_BLK)" VM_LOG=$OUT/vm-$1.log \
		"$HARNESS/vm.sh" "sh $REPO/bench/fio/guest-fio.sh $1 $SO '$2' '$3' ${FIO_RUNS:-}" || rc=$?
	echo "$rc" >"$OUT/status-$1"
}
rm -f "$OUT"/console*.log "$OUT"/vm-*.log
step "fio in the guest, our kernel (jobs: $jobs)" "$OUT/console.log" \
	guest ours "$jobs" "$engines"
status=$(cat "$OUT/status-ours")
check_dmesg "$OUT/vm-ours-dmesg.log" || status=1
if [ "${FIO_SMOKE:-0}" != 1 ] && [ "${FIO_STOCK:-1}" = 1 ]; then
	step "build the stock 6.12 kernel (tag base; once, about 10 min)" \
		"$LOGS/fio-stock-kernel.log" build_stock
	step "fio in the guest, stock kernel (libaio, psync)" "$OUT/console-stock.log" \
		guest stock "$jobs" "psync libaio" "$STOCK/arch/x86/boot/bzImage"
	[ "$(cat "$OUT/status-stock")" = 0 ] || status=1
	check_dmesg "$OUT/vm-stock-dmesg.log" || status=1
fi

accel=$(sed -n 's/.*guest: \([A-Z]*\),.*/\1/p' "$OUT/console.log" | head -n 1)
{
	echo "bench,job,engine,kernel,metric,value"
	echo "ENV,-,host,-,accel,${accel:-unknown}"
	echo "ENV,-,host,-,fio,$(fio --version)"
	echo "ENV,-,host,-,date,$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	cat "$OUT"/console*.log | grep '^CSV,fio,' | cut -d, -f2-
} >"$OUT/results.csv"
awk -F, -v dat="$OUT" -f "$REPO/bench/fio/report.awk" "$OUT/results.csv" >"$OUT/table.md"
echo
cat "$OUT/table.md"
gnuplot -e "dat='$OUT'; out='$OUT/chart.png'; title='fio, 4 KiB, null_blk 0.5 ms, guest under ${accel:-?}'" \
	"$REPO/bench/fio/chart.gp" 2>"$LOGS/fio-chart.log" ||
	say "gnuplot failed, see ${LOGS#"$REPO"/}/fio-chart.log"
say "results: ${OUT#"$REPO"/}/results.csv, table.md, chart.png; consoles: ${OUT#"$REPO"/}/console*.log"
[ "$status" = 0 ] || fail "fio" "$OUT/console.log" \
	"a fio job failed (a verify error?) or the guest died: see the consoles"
