#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: make a file system on the null_blk disk, run the fio jobs
# of bench/fio with each engine, and print one CSV line per result:
#	CSV,fio,JOB,ENGINE,KERNEL,METRIC,VALUE
#
# guest-fio.sh KERNEL ENGINE_SO "JOBS" "ENGINES" [RUNS]
# KERNEL names the kernel in the CSV (ours, stock).  Each job runs RUNS
# times, the engines in turn (default: 3 for randread-qd32, else 1).  A failed fio run, a
# verify error above all, makes the script exit non-zero.
kernel=$1 so=$2 jobs=$3 engines=$4 runs=${5:-}
dir=$(dirname "$0")
mnt=/mnt/fio
status=0

dev=/dev/nullb0
[ -b $dev ] || { echo "no $dev: is null_blk built in?"; exit 1; }
for p in memory_backed irqmode completion_nsec gb bs; do
	echo "CSV,fio,-,null_blk,$kernel,$p,$(cat /sys/module/null_blk/parameters/$p)"
done
mkfs.ext4 -q -F $dev && mkdir -p $mnt && mount $dev $mnt || exit 1
mkdir -p $mnt/small

# Options of an engine variant: the ioengine line and what it adds.
engine_opts()
{
	case $1 in
	psync)		echo "ioengine=psync" ;;
	psync4)		printf 'ioengine=psync\nnumjobs=4\ngroup_reporting=1\n' ;;
	libaio)		echo "ioengine=libaio" ;;
	io_uring)	echo "ioengine=io_uring" ;;
	io_uring_reg)	printf 'ioengine=io_uring\nregisterfiles=1\n' ;;
	posixaio)	echo "ioengine=posixaio" ;;
	async)		echo "ioengine=external:$so" ;;
	async_range)	printf 'ioengine=external:%s\nsync_range=1\n' "$so" ;;
	async_chain)	printf 'ioengine=external:%s\nchain_open=1\n' "$so" ;;
	esac
}

# Which variants make sense for a job.
applies()
{
	case $2 in
	async_range)	[ "$1" = randwrite-fsync32 ] || [ "$1" = verify ] ;;
	async_chain)	[ "$1" = smallfiles ] ;;
	io_uring_reg)	[ "$1" != smallfiles ] ;;
	psync4)		[ "$1" != verify ] ;;
	*)		true ;;
	esac
}

# Lay the files out once, so that no job pays for it, with data: reads of
# fallocated (unwritten) blocks never reach the device.
echo "# laying out the files"
dd if=/dev/zero of=$mnt/data bs=1M count=256 status=none
fio --name=layout --directory=$mnt/small --filename_format='f.$filenum' \
	--nrfiles=10000 --filesize=4k --create_only=1 --rw=write --fallocate=none \
	--output=/dev/null || exit 1
sync

# The target against io_uring is the median of three runs in one boot.
runs_of()
{
	if [ -n "$runs" ]; then echo "$runs"
	elif [ "$1" = randread-qd32 ]; then echo 3
	else echo 1
	fi
}

for job in $jobs; do
    for run in $(seq "$(runs_of "$job")"); do
	for eng in $engines; do
		applies "$job" "$eng" || continue
		{ cat "$dir/$job.fio"; engine_opts "$eng"; } >/tmp/job.fio
		sync
		echo 3 >/proc/sys/vm/drop_caches
		[ "$job" = randread-qd1-warm ] && cat $mnt/data >/dev/null
		echo "# $job: $eng ($kernel kernel)"
		if ! fio --output-format=json --output=/tmp/out.json /tmp/job.fio \
			>/tmp/fio.txt 2>&1; then
			cat /tmp/fio.txt /tmp/out.json
			echo "FAILED: $job with $eng"
			status=1
			continue
		fi
		# Our engine's count of entries done when async_submit() returned.
		awk -v p="CSV,fio,$job,$eng,$kernel" '/^async_submit: / {
			print; printf("%s,inline_pct,%.1f\n", p, $2 ? 100 * $4 / $2 : 0) }' /tmp/fio.txt
		jq -r --arg job "$job" --arg eng "$eng" --arg k "$kernel" '
			.jobs[0] as $j
			| ($j.read.iops + $j.write.iops) as $iops
			| (if $j.read.iops > 0 then $j.read else $j.write end) as $d
			| [ ["iops", $iops],
			    ["clat_p50_us", ($d.clat_ns.percentile["50.000000"] // 0) / 1000],
			    ["clat_p99_us", ($d.clat_ns.percentile["99.000000"] // 0) / 1000],
			    ["usr_pct", $j.usr_cpu], ["sys_pct", $j.sys_cpu],
			    ["device_ios", ((.disk_util // [])[0] // {}
					    | (.read_ios // 0) + (.write_ios // 0))],
			    ["errors", $j.error] ][]
			| "CSV,fio,\($job),\($eng),\($k),\(.[0]),\(.[1])"' /tmp/out.json
	done
    done
done
umount $mnt
exit $status
