#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the benchmarks of bench/, run them in the guest BENCH_ROUNDS times
# (default 3), then print the table of ratios against the targets and write
# .build/bench/: results.csv (medians of the rounds), table.md, chart.png
# and the guest's console.log.
# Timings never fail the run; a benchmark that crashes does.
# BENCH_ONLY="p1 p4" runs only those.
. "$(dirname "$0")/lib.sh"
x86_64_only "make bench"

OUT=$BUILD/bench
BIN=$USEROBJ/bench
CONSOLE=$OUT/console.log
mkdir -p "$OUT" "$BIN"
rm -f "$OUT"/*.dat "$OUT/status"

step "build benchmarks" "$LOGS/bench-build.log" \
	make -C "$REPO/bench" OUTPUT="$BIN" KHDR_INCLUDES="-isystem $HDR/include"

# P10's disk: null_blk, 0.5 ms a request.
export VM_APPEND="null_blk.nr_devices=1 null_blk.memory_backed=1 null_blk.gb=1
	null_blk.bs=4096 null_blk.irqmode=2 null_blk.completion_nsec=500000"
[ -x "$NGINX" ] || fail "nginx" "" "no $NGINX: run make deps"

# Our own copy of the console: runs of vm.sh elsewhere rewrite vm.log.
run_guest()
{
	local rc=0

	"$HARNESS/vm.sh" "BENCH_ONLY='${BENCH_ONLY:-}' BENCH_ROUNDS=${BENCH_ROUNDS:-3} \
		sh $REPO/bench/guest-run.sh $BIN $OBJ/samples/async_syscall/aserve $NGINX" ||
		rc=$?
	echo "$rc" >"$OUT/status"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
step "run the benchmarks in the guest (a few minutes under TCG)" "$CONSOLE" run_guest
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
status=$(cat "$OUT/status")

accel=$(sed -n 's/.*guest: \([A-Z]*\),.*/\1/p' "$CONSOLE" | head -n 1)
# One row per measurement: the median of the rounds, their min, max and count.
medians()
{
	awk -F, '
	!(($2, $3, $4, $5) in n) { key[++nk] = $2 FS $3 FS $4 FS $5 }
	{ k = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5; val[k, ++n[k]] = $6 }
	END {
		for (i = 1; i <= nk; i++) {
			split(key[i], f, FS)
			k = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
			if (f[1] == "ENV") {
				printf("%s,%s,,,%d\n", key[i], val[k, 1], n[k])
				continue
			}
			for (a = 1; a <= n[k]; a++)	# insertion sort, n is small
				for (b = a; b > 1 && val[k, b - 1] + 0 > val[k, b] + 0; b--) {
					t = val[k, b]; val[k, b] = val[k, b - 1]; val[k, b - 1] = t
				}
			h = int((n[k] + 1) / 2)
			m = n[k] % 2 ? val[k, h] : (val[k, h] + val[k, h + 1]) / 2
			printf("%s,%s,%s,%s,%d\n", key[i], m, val[k, 1], val[k, n[k]], n[k])
		}
	}'
}
{
	echo "bench,param,method,metric,value,min,max,rounds"
	echo "ENV,-,host,accel,${accel:-unknown},,,1"
	echo "ENV,-,host,kvm_probe,$(cat "$BUILD/kvm-probe" 2>/dev/null || echo none),,,1"
	echo "ENV,-,host,loadavg_before,$load_before,,,1"
	echo "ENV,-,host,loadavg_after,$load_after,,,1"
	echo "ENV,-,host,date,$(date -u +%Y-%m-%dT%H:%M:%SZ),,,1"
	grep '^CSV,' "$CONSOLE" | medians
} >"$OUT/results.csv"

env_of()
{
	awk -F, -v k="$1" '$1 == "ENV" && $4 == k { print $5; exit }' "$OUT/results.csv"
}
{
	printf 'Guest: %s (CPUID hypervisor "%s"), %s vCPUs, kernel %s; ' "${accel:-unknown}" \
		"$(env_of cpuid_hypervisor)" "$(env_of cpus | cut -d. -f1)" "$(env_of kernel)"
	printf 'host load average %s before, %s after.\n\n' "$load_before" "$load_after"
	awk -F, -v dat="$OUT" -f "$REPO/bench/report.awk" "$OUT/results.csv"
} >"$OUT/table.md"

echo
cat "$OUT/table.md"
echo
if command -v gnuplot >/dev/null; then
	title="async_submit() benchmarks: guest under ${accel:-?},"
	title+=" medians of ${BENCH_ROUNDS:-3} rounds, $(date -u '+%F %H:%M UTC')"
	gnuplot -e "dat='$OUT'; out='$OUT/chart.png'; title='$title'" \
		"$REPO/bench/chart.gp" 2>"$LOGS/bench-chart.log" ||
		say "gnuplot failed, see ${LOGS#"$REPO"/}/bench-chart.log"
fi
say "results: ${OUT#"$REPO"/}/results.csv, table.md, chart.png; console: ${CONSOLE#"$REPO"/}"
[ "$status" = 0 ] || fail "benchmarks" "$CONSOLE" \
	"the guest run failed (status $status): a benchmark crashed or the guest died"
