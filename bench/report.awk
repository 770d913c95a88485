# SPDX-License-Identifier: GPL-2.0
# report.awk: results.csv (bench,param,method,metric,value,min,max,rounds)
# -> markdown tables on stdout, and the chart's data files in the directory
# `dat`.  value is the median of the rounds.
#   awk -F, -v dat=DIR -f report.awk results.csv
# A ";cpu0" parameter suffix marks a run pinned to vCPU 0 (guest-run.sh).

NR > 1 {
	v[$1, $2, $3, $4] = $5
	lo[$1, $2, $3, $4] = $6
	hi[$1, $2, $3, $4] = $7
	nr[$1, $2, $3, $4] = $8
}

function get(b, p, m, k) {
	return ((b, p, m, k) in v) ? v[b, p, m, k] + 0 : ""
}

# The largest of the rounds.
function most(b, p, m, k) {
	return ((b, p, m, k) in v) ? hi[b, p, m, k] + 0 : ""
}

# " [min–max]" of the rounds behind a value divided by f (1 when empty),
# when there were several rounds.
function span(b, p, m, k, f) {
	if (!((b, p, m, k) in v) || nr[b, p, m, k] < 2)
		return ""
	f = f == "" ? 1 : f
	return sprintf(" [%s–%s]", num(lo[b, p, m, k] / f), num(hi[b, p, m, k] / f))
}

function num(x) {
	if (x == "")
		return "–"
	if (x == int(x))
		return sprintf("%d", x)
	if (x >= 100 || x <= -100)
		return sprintf("%.0f", x)
	if (x >= 10 || x <= -10)
		return sprintf("%.1f", x)
	return sprintf("%.2f", x)
}

function div(a, b) {
	return (a == "" || b == "" || b == 0) ? "" : a / b
}

function scale(x, f) {
	return x == "" ? "" : x / f
}

function rat(x) {
	return x == "" ? "–" : sprintf("%.2f", x)
}

# A value for gnuplot: "?" when missing.
function dq(x) {
	return x == "" ? "?" : x
}

function min2(a, b) {
	if (a == "")
		return b
	if (b == "")
		return a
	return a < b ? a : b
}

function verdict(x, dir, t) {
	if (x == "")
		return "no data"
	return (dir == "<=" ? x <= t : x >= t) ? "**met**" : "missed"
}

# One row of the targets table.  dir "<=": a cost, async/other at most t;
# ">=": a speedup, other/async at least t.
# sp: the rounds' range of mine, from span().
function target(id, what, unit, mine, sp, other, ref, rname, dir, t,	r) {
	r = dir == "<=" ? div(mine, ref) : div(ref, mine)
	printf("| %s | %s | %s %s%s | %s | %s %s | %s = %s | %s %s | %s |\n",
	       id, what, num(mine), unit, sp, other, num(ref), unit, rname, rat(r),
	       dir == "<=" ? "≤" : "≥", t, verdict(r, dir, t))
}

# One inline entry costs a direct call and a small constant: at most 1.3 ×
# the pread alone, 1.0 × by 8, 0.8 × by 64; and no more than io_uring's read.
# A target row of async's @metric in @b/@p against @m's.
function target_vs(b, p, what, unit, metric, label, m, rname, dir, t) {
	target(b, what, unit, get(b, p, "async", metric), span(b, p, "async", metric),
	       label, get(b, p, m, metric), rname, dir, t)
}

function p1_targets(tag, label,	i, b, t, p, aw, af, best, mode, sp) {
	split("1 8 64", b, " ")
	split("1.3 1 0.8", t, " ")
	for (i = 1; i <= 3; i++) {
		p = "batch=" b[i] tag
		aw = get("P1", p, "async_wait", "ns_per_op")
		af = get("P1", p, "async_futex", "ns_per_op")
		best = min2(aw, af)
		mode = best == aw ? "async_wait" : "async_futex"
		sp = span("P1", p, mode, "ns_per_op")
		mode = best == aw ? "WAIT" : "futex"
		target("P1", "trivial entry, batch " b[i] ", " label " (" mode ")", "ns",
		       best, sp, "sync pread", get("P1", p, "sync", "ns_per_op"),
		       "async/sync", "<=", t[i])
		target("P1", "trivial entry, batch " b[i] ", " label " (" mode ")", "ns",
		       best, sp, "io_uring read", get("P1", p, "uring_read", "ns_per_op"),
		       "async/io_uring", "<=", 1)
	}
}

function p2_targets(tag, label,	i, a, sp) {
	for (i = 1; i <= 2; i++) {
		a = scale(get("P2", "single" tag, "async", pct[i] "_ns"), 1000)
		sp = span("P2", "single" tag, "async", pct[i] "_ns", 1000)
		target("P2", "submit → wake, " pct[i] ", " label, "µs", a, sp,
		       "io_uring NOP, IOSQE_ASYNC",
		       scale(get("P2", "single" tag, "uring_nop_async", pct[i] "_ns"), 1000),
		       "async/io_uring", "<=", 1)
		target("P2", "submit → wake, " pct[i] ", " label, "µs", a, sp,
		       "4-thread pool", scale(get("P2", "single" tag, "pool", pct[i] "_ns"), 1000),
		       "async/pool", "<=", 1)
		# The same work: a NOP does not read.
		target("P2", "submit → wake, " pct[i] ", " label, "µs", a, sp,
		       "io_uring read, IOSQE_ASYNC",
		       scale(get("P2", "single" tag, "uring_read_async", pct[i] "_ns"), 1000),
		       "async/io_uring", "<=", 1)
	}
}

# P1 again in a child under a seccomp filter that allows everything.
function p1_filtered(	i, b, p, s, a, u, s0, a0) {
	print ""
	print "P1 in a process under a seccomp filter that allows every call, 2 vCPUs, ns per entry (the filter runs for each pread, each async_submit() and each entry, and each io_uring_enter()):"
	print ""
	print "| batch | sync pread | async futex | io_uring read | async/sync | async/sync without the filter |"
	print "|---|---|---|---|---|---|"
	split("1 8 64", b, " ")
	for (i = 1; i <= 3; i++) {
		p = "batch=" b[i]
		s = get("P1", p ";seccomp", "sync", "ns_per_op")
		a = get("P1", p ";seccomp", "async_futex", "ns_per_op")
		u = get("P1", p ";seccomp", "uring_read", "ns_per_op")
		s0 = get("P1", p, "sync", "ns_per_op")
		a0 = get("P1", p, "async_futex", "ns_per_op")
		printf("| %s | %s | %s | %s | %s | %s |\n", b[i], num(s), num(a), num(u),
		       rat(div(a, s)), rat(div(a0, s0)))
	}
}

function p1_tables(tag, label, file,	i, j, p, x, line, row, best) {
	print ""
	print "P1, " label ", ns per entry (median call / batch); the entry is pread64(fd, buf, 0, 0) on an empty ext4 file; async WAIT and async futex submit with ASYNC_SUBMIT_WAKE_MARKED:"
	print ""
	print "| batch | async WAIT | async futex | async, one chain | async probe only | sync pread | sync getppid | io_uring NOP | io_uring read | pool | POSIX AIO | async futex, every completion woken (ABI 1) |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	if (file != "")
		printf("# batch %s\n", p1m) > file
	for (i = 1; i <= nb; i++) {
		line = "| " batches[i]
		row = batches[i]
		for (j = 1; j <= nm; j++) {
			x = get("P1", "batch=" batches[i] tag, m1[j], "ns_per_op")
			line = line " | " num(x)
			row = row " " dq(x)
		}
		print line " |"
		if (file != "")
			print row > file
	}
	if (file != "")
		close(file)
	print ""
	print "P1, " label ", ratios of the better async way (WAIT or futex) to the others:"
	print ""
	print "| batch | / io_uring NOP | / io_uring read | / sync pread | / sync getppid | / pool | / POSIX AIO |"
	print "|---|---|---|---|---|---|---|"
	for (i = 1; i <= nb; i++) {
		p = "batch=" batches[i] tag
		best = min2(get("P1", p, "async_wait", "ns_per_op"),
			    get("P1", p, "async_futex", "ns_per_op"))
		line = "| " batches[i]
		for (j = 1; j <= 6; j++)
			line = line " | " rat(div(best, get("P1", p, ro[j], "ns_per_op")))
		print line " |"
	}
}

function p2_table(tag, label, file,	i, j, line) {
	print ""
	print "P2, " label ", one entry, from submit until the waiting submitter sees it done, µs:"
	print ""
	print "| | async (futex) | async WAIT | io_uring NOP IOSQE_ASYNC | io_uring NOP inline | pool | POSIX AIO | sync pread | io_uring read IOSQE_ASYNC |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= 2; i++) {
		line = "| " pct[i]
		for (j = 1; j <= 8; j++)
			line = line " | " num(scale(get("P2", "single" tag, m2[j], pct[i] "_ns"), 1000))
		print line " |"
	}
	if (file == "")
		return
	print "# method p50_us p99_us" > file
	for (j = 1; j <= 8; j++)
		printf("%s %s %s\n", m2[j],
		       dq(scale(get("P2", "single" tag, m2[j], "p50_ns"), 1000)),
		       dq(scale(get("P2", "single" tag, m2[j], "p99_ns"), 1000))) > file
	close(file)
}

END {
	nb = split("1 8 64 512 4096", batches, " ")
	# async_futex_wake_all last: chart.gp plots columns by position.
	p1m = "async_wait async_futex async_chain async_probe sync sync_getppid " \
	      "uring_nop uring_read pool aio async_futex_wake_all"
	nm = split(p1m, m1, " ")
	split("uring_nop uring_read sync sync_getppid pool aio", ro, " ")
	split("p50 p99", pct, " ")
	# uring_read_async last: the columns of the older tables stay in place.
	split("async async_wait uring_nop_async uring_nop pool aio sync uring_read_async", m2, " ")
	split("sync async uring pool aio", m3, " ")
	p3 = "files=10000;inflight=32"
	p4 = "n=256;sleep=10ms"
	p4b = "n=256;delay=10ms"
	p5 = "files=1000;chain=5"
	p8 = "files=256;size=4096"

	# --- targets ---
	print "| | workload | async_submit() | compared with | its value | measured | target | |"
	print "|---|---|---|---|---|---|---|---|"
	p1_targets("", "2 vCPUs")
	p1_targets(";cpu0", "1 vCPU")
	p2_targets("", "2 vCPUs")
	p2_targets(";cpu0", "1 vCPU")
	what = "open→read→close, 32 in flight"
	target_vs("P3", p3, what, "µs/file", "us_per_file", "io_uring linked, fixed files",
		  "uring", "io_uring/async", ">=", 1.1)
	target_vs("P3", p3, what, "µs/file", "us_per_file", "sync loop", "sync",
		  "sync/async", ">=", 1.6)
	target_vs("P3", p3, what, "µs/file", "us_per_file", "4-thread pool", "pool",
		  "pool/async", ">=", 1)
	what = "CPU per file, whole guest"
	target_vs("P3", p3, what, "µs", "cpu_us_per_file", "io_uring linked, fixed files",
		  "uring", "async/io_uring", "<=", 1)
	target_vs("P3", p3, what, "µs", "cpu_us_per_file", "4-thread pool", "pool",
		  "async/pool", "<=", 0.8)
	c = get("P4", p4, "async", "cold_ms")
	w = get("P4", p4, "async", "ms")
	target("P4", "256 × nanosleep(10 ms), first round", "ms", c,
	       span("P4", p4, "async", "cold_ms"), "one sleep", 10, "async/10 ms", "<=", 1.5)
	target("P4", "256 × nanosleep(10 ms), later rounds", "ms", w,
	       span("P4", p4, "async", "ms"), "one sleep", 10, "async/10 ms", "<=", 1.5)
	wc = most("P4", p4, "async", "workers_cold")
	ww = most("P4", p4, "async", "workers")
	printf("| P4 | async-wrk-* threads right after, most of the rounds (first round / later ones) | %s / %s | none made for sleeps | 0 | | = 0 | %s |\n",
	       num(wc), num(ww),
	       wc == "" ? "no data" : (wc == 0 && ww == 0 ? "**met**" : "missed"))
	target("P4b", "256 reads of pipes written 10 ms after submit, no worker yet", "ms",
	       get("P4b", p4b, "async", "cold_ms"), span("P4b", p4b, "async", "cold_ms"),
	       "256 new threads, a read each", get("P4b", p4b, "threads", "ms"),
	       "async/threads", "<=", 1.2)
	target("P4b", "256 reads of pipes written 10 ms after submit, workers idle", "ms",
	       get("P4b", p4b, "async", "ms"), span("P4b", p4b, "async", "ms"),
	       "one wait", 10, "async/10 ms", "<=", 2)
	what = "copy, 5-entry chains, 32 in flight"
	target_vs("P5", p5, what, "µs/file", "us_per_file", "sync loop", "sync",
		  "sync/async", ">=", 1.5)
	target_vs("P5", p5, what, "µs/file", "us_per_file", "4-thread pool", "pool",
		  "pool/async", ">=", 1)
	target_vs("P5", p5, "CPU per file, whole guest", "µs", "cpu_us_per_file",
		  "4-thread pool", "pool", "async/pool", "<=", 0.8)
	what = "256 reads of uncached 4 KiB files, all in flight"
	target_vs("P8", p8, what, "ms", "ms", "io_uring read", "uring",
		  "async/io_uring", "<=", 1)
	printf("| P8 | async-wrk-* threads after a pass, most of the rounds | %s | | | | | |\n",
	       num(most("P8", p8, "async", "workers")))
	target("P6", "growth: per entry, 16384 in flight", "ns",
	       get("P6", "inflight=16384", "async", "ns_per_op"),
	       span("P6", "inflight=16384", "async", "ns_per_op"), "64 in flight",
	       get("P6", "inflight=64", "async", "ns_per_op"), "16384/64", "<=", 1.25)
	# From P1 on 1 vCPU, where host wakeup latency does not drown the cost.
	g4k = min2(get("P1", "batch=4096;cpu0", "async_wait", "ns_per_op"),
		   get("P1", "batch=4096;cpu0", "async_futex", "ns_per_op"))
	g64 = min2(get("P1", "batch=64;cpu0", "async_wait", "ns_per_op"),
		   get("P1", "batch=64;cpu0", "async_futex", "ns_per_op"))
	target("P6", "growth: per entry, batch 4096 (P1, 1 vCPU)", "ns", g4k, "",
	       "batch 64", g64, "4096/64", "<=", 1.25)
	split("4096 64", pc, " ")
	for (i = 1; i <= 2; i++) {
		k = get("P6", "entries=16000;per_call=" pc[i], "async",
			"kernel_bytes_per_entry")
		printf("| P6 | kernel memory per queued entry, %s entries per call | %s B%s | | | | ≤ 64 B | %s |\n",
		       pc[i], num(k), span("P6", "entries=16000;per_call=" pc[i], "async",
					 "kernel_bytes_per_entry"), verdict(k, "<=", 64))
	}
	printf("| P6 | each of the 256 workers, apart from the above | %s B, stack %s B | | | | | |\n",
	       num(get("P6", "workers=256", "async", "bytes_per_worker")),
	       num(get("P6", "workers=256", "async", "stack_bytes_per_worker")))

	print ""
	print "Where the entries of one more (untimed) pass ran, from the worker field of async_syscall_complete:"
	print ""
	print "| workload | in the submitting thread | on a worker |"
	print "|---|---|---|"
	nsplit = split("P1 batch=64|P2 single|P3 " p3 "|P4 " p4 "|P4b " p4b "|P5 " p5, sw, "|")
	for (i = 1; i <= nsplit; i++) {
		split(sw[i], wp, " ")
		printf("| %s | %s | %s |\n", wp[1], num(get(wp[1], wp[2], "async", "inline")),
		       num(get(wp[1], wp[2], "async", "worker")))
	}
	print ""
	print "P4's sleeps count as run in the submitting thread, which armed their timers; a kworker completes them."

	p1_tables("", "2 vCPUs", dat "/p1.dat")
	p1_tables(";cpu0", "pinned to 1 vCPU", dat "/p1-cpu0.dat")
	p1_filtered()
	p2_table("", "2 vCPUs", dat "/p2.dat")
	p2_table(";cpu0", "pinned to 1 vCPU", "")

	# --- P3, P5 ---
	print ""
	print "P3 (10000 files) and P5 (1000 copies), 32 in flight, µs per file (median group of 32 / 32); \"whole pass\" includes host stalls; \"CPU\" is user and system time of all vCPUs over the passes, per file:"
	print ""
	print "| | sync | async | io_uring | pool | POSIX AIO (reads only) |"
	print "|---|---|---|---|---|---|"
	split("us_per_file us_per_file_wall cpu_us_per_file", p35m, " ")
	split("|, whole pass|, CPU of the whole guest", p35l, "|")
	for (k = 0; k < 6; k++) {
		bn = k < 3 ? "P3" : "P5"
		pp = k < 3 ? p3 : p5
		met = p35m[k % 3 + 1]
		line = "| " bn p35l[k % 3 + 1]
		for (j = 1; j <= 5; j++)
			line = line " | " num(get(bn, pp, m3[j], met))
		print line " |"
	}
	q = get("P3", p3, "async_queue", "us_per_file")
	printf("\nP3 through libasync's queue (step references, cleanup close, reap with user data): %s µs/file, %s× the raw async chains.\n",
	       num(q), rat(div(q, get("P3", p3, "async", "us_per_file"))))
	q = get("P3", p3, "async_1cpu", "us_per_file")
	printf("\nP3 with the submitter pinned to one vCPU, where no batch is shared with a worker: %s µs/file; the raw async chains are %s× faster.\n",
	       num(q), rat(div(q, get("P3", p3, "async", "us_per_file"))))
	printf("\nasync-wrk-* threads after the async pass, most of the rounds: P3 %s, P5 %s.\n",
	       num(most("P3", p3, "async", "workers")), num(most("P5", p5, "async", "workers")))
	f = dat "/p35.dat"
	print "# method P3 P5 P3-CPU P5-CPU" > f
	for (j = 1; j <= 5; j++) {
		x = get("P3", p3, m3[j], "us_per_file")
		y = get("P5", p5, m3[j], "us_per_file")
		printf("%s %s %s %s %s\n", m3[j], dq(x), dq(y),
		       dq(get("P3", p3, m3[j], "cpu_us_per_file")),
		       dq(get("P5", p5, m3[j], "cpu_us_per_file"))) > f
	}
	close(f)

	# --- P4 ---
	print ""
	printf("P4, 256 × nanosleep(10 ms): async %s ms in the first round (%s workers after), %s ms in the later ones (%s); 4-thread pool %s ms; io_uring timeouts (no thread blocks) %s ms.\n",
	       num(c), num(wc), num(w), num(ww), num(get("P4", p4, "pool", "ms")),
	       num(get("P4", p4, "uring_timeout", "ms")))
	f = dat "/p4.dat"
	print "# label ms" > f
	printf("\"async, cold\" %s\n\"async, warm\" %s\n\"pool\" %s\n\"io_uring timeout\" %s\n",
	       c, w, get("P4", p4, "pool", "ms"), get("P4", p4, "uring_timeout", "ms")) > f
	close(f)
	printf("P4b, 256 reads of pipes written 10 ms after submit: async %s ms with no worker yet (%s workers after), %s ms with the workers of the round before idle (%s); the same reads in 256 threads made for them %s ms.\n",
	       num(get("P4b", p4b, "async", "cold_ms")), num(most("P4b", p4b, "async", "workers_cold")),
	       num(get("P4b", p4b, "async", "ms")), num(most("P4b", p4b, "async", "workers")),
	       num(get("P4b", p4b, "threads", "ms")))

	# --- P6 ---
	print ""
	printf("P6, ns per entry by entries in flight (no WAIT):")
	f = dat "/p6.dat"
	print "# inflight ns_per_op" > f
	split("64 512 4096 16384", inf, " ")
	for (i = 1; i <= 4; i++) {
		x = get("P6", "inflight=" inf[i], "async", "ns_per_op")
		printf(" %s: %s%s", inf[i], num(x), i < 4 ? ";" : ".\n")
		print inf[i], dq(x) > f
	}
	close(f)
	for (i = 1; i <= 2; i++)
		printf("P6, memory, %s entries per call: %s B per queued entry from MemAvailable, %s B from Slab (a batch past one page is not slab memory).\n",
		       pc[i], num(get("P6", "entries=16000;per_call=" pc[i], "async", "kernel_bytes_per_entry")),
		       num(get("P6", "entries=16000;per_call=" pc[i], "async", "slab_bytes_per_entry")))

	# --- P8 ---
	print ""
	printf("P8, 256 reads of 4 KiB from 256 files whose pages were dropped, all in flight, ms per pass: async %s, io_uring %s, 4-thread pool %s, sync loop %s.\n",
	       num(get("P8", p8, "async", "ms")), num(get("P8", p8, "uring", "ms")),
	       num(get("P8", p8, "pool", "ms")), num(get("P8", p8, "sync", "ms")))

	# --- P9 ---
	print ""
	print "P9, an epoll loop told of finished 4 KiB reads by an eventfd, 32 in flight, 8192 reads; per read: ns of wall time, ns of CPU of the whole guest, epoll wake-ups per 100 reads; async_futex is the same loop with no eventfd, sleeping on the done words:"
	print ""
	print "| reads | | async_futex | async_eventfd | uring_eventfd | pool_eventfd | async_eventfd / async_futex | async_eventfd / uring_eventfd |"
	print "|---|---|---|---|---|---|---|---|"
	split("async_futex async_eventfd uring_eventfd pool_eventfd", m9, " ")
	split("ns_per_op cpu_ns_per_op wakes_per_100", p9m, " ")
	split("time|CPU|wake-ups per 100", p9l, "|")
	split("worker inline", p9w, " ")
	for (i = 1; i <= 2; i++) {
		pp = p9w[i] ";inflight=32"
		for (k = 1; k <= 3; k++) {
			line = "| " (i == 1 ? "on a worker" : "inline") " | " p9l[k]
			for (j = 1; j <= 4; j++)
				line = line " | " num(get("P9", pp, m9[j], p9m[k]))
			a = get("P9", pp, "async_eventfd", p9m[k])
			line = line " | " rat(div(a, get("P9", pp, "async_futex", p9m[k])))
			line = line " | " rat(div(a, get("P9", pp, "uring_eventfd", p9m[k])))
			print line " |"
		}
	}

	# --- P10 ---
	print ""
	print "P10, HTTP/1.1 GETs of 4 KiB files over loopback: wrk, 32 connections, 3 s a pass, against aserve and Debian's nginx (one worker, sendfile on, then aio threads with its pool of 32). The files are on ext4 on a null_blk disk of 0.5 ms. Cold: the caches dropped, each file asked for once; warm: 1024 of them read again. CPU: µs of the whole guest, wrk's included, per request:"
	print ""
	print "| | | aserve | nginx sendfile | nginx aio threads | aserve / nginx sendfile | aserve / nginx aio threads |"
	print "|---|---|---|---|---|---|---|"
	split("aserve nginx_sendfile nginx_aio_threads", m10, " ")
	split("cold warm", p10c, " ")
	split("requests/s|p99 ms|CPU µs per request", p10l, "|")
	for (i = 1; i <= 2; i++) {
		for (k = 1; k <= 3; k++) {
			line = "| " p10c[i] " | " p10l[k]
			for (j = 1; j <= 3; j++) {
				if (k == 1)
					x10[j] = get("P10", p10c[i], m10[j], "rps")
				else if (k == 2)
					x10[j] = scale(get("P10", p10c[i], m10[j], "p99_us"), 1000)
				else
					x10[j] = div(scale(get("P10", p10c[i], m10[j], "cpu_ms"), 0.001),
						   get("P10", p10c[i], m10[j], "requests"))
				line = line " | " num(x10[j])
			}
			line = line " | " rat(div(x10[1], x10[2])) " | " rat(div(x10[1], x10[3]))
			print line " |"
		}
	}

	# --- P7 ---
	print ""
	print "P7, a tree of 1000 files (4–64 KiB, 20 directories, 40 symbolic links, 20 hard links) copied by cp -a, by acp (async_submit()) and by the 4-thread pool, µs per file, wall and CPU; the ratios are the median of each round's:"
	print ""
	print "| | cp -a | acp | pool | acp/cp -a | acp/pool |"
	print "|---|---|---|---|---|---|"
	split("cold warm", p7c, " ")
	split("us_per_file cpu_us_per_file", p7m, " ")
	split("time_pct cpu_pct", p7r, " ")
	split("cp acp pool", p7x, " ")
	for (i = 1; i <= 2; i++) {
		pp = "files=1000;cache=" p7c[i]
		for (k = 1; k <= 2; k++) {
			line = "| " p7c[i] " cache, " (k == 1 ? "time" : "CPU")
			for (j = 1; j <= 3; j++)
				line = line " | " num(get("P7", pp, p7x[j], p7m[k]))
			line = line " | " rat(scale(get("P7", pp, "acp/cp", p7r[k]), 100))
			line = line " | " rat(scale(get("P7", pp, "acp/pool", p7r[k]), 100))
			print line " |"
		}
	}
	printf("\nP7, starting the tool, in its times above: cp %s ms, acp %s ms.\n",
	       num(get("P7", "exec", "cp", "ms")), num(get("P7", "exec", "acp", "ms")))
}
