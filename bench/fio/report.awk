# SPDX-License-Identifier: GPL-2.0
# The table of make fio, from results.csv (bench,job,engine,kernel,metric,
# value): IOPS per job and engine, the targets, and the libaio before/after.
# Writes dat/fio.dat for the chart.

function num(x) {
	if (x == "")
		return "–"
	if (x >= 100)
		return sprintf("%.0f", x)
	if (x >= 10)
		return sprintf("%.1f", x)
	return sprintf("%.2f", x)
}

function get(j, e, k, m) {
	return ((j, e, k, m) in v) ? v[j, e, k, m] : ""
}

function ratio(a, b) {
	return (a == "" || b == "" || b == 0) ? "" : a / b
}

# One row of the targets: mine/other at least t.
function target(what, mine, mname, other, oname, t,	r) {
	r = ratio(mine, other)
	printf("| %s | %s %s | %s %s | %s× | ≥ %s× | %s |\n", what, mname, num(mine),
	       oname, num(other), r == "" ? "–" : sprintf("%.2f", r), t,
	       r == "" ? "no data" : (r >= t ? "**met**" : "missed"))
}

$1 == "ENV" { env[$5] = $6; next }
# A job run several times: the median of its runs.
$1 == "fio" {
	k = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
	runs[k, ++nr[k]] = $6
	if ($2 != "-" && !($2 in seen)) { seen[$2]; jobs[++nj] = $2 }
}

function median_of(k,	i, j, n, x, s) {
	n = nr[k]
	for (i = 1; i <= n; i++)
		s[i] = runs[k, i] + 0
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && s[j - 1] > s[j]; j--) {
			x = s[j]; s[j] = s[j - 1]; s[j - 1] = x
		}
	return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
}

END {
	for (k in nr)
		v[k] = nr[k] == 1 ? runs[k, 1] : median_of(k)
	ne = split("psync psync4 libaio io_uring io_uring_reg posixaio async async_range async_chain", eng, " ")
	printf("fio %s, guest under %s, %s. null_blk: memory-backed, completion %s ns after submission (irqmode %s).\n\n",
	       env["fio"], env["accel"], env["date"], get("-", "null_blk", "ours", "completion_nsec"),
	       get("-", "null_blk", "ours", "irqmode"))
	print "IOPS, our kernel (async: this engine; async_range: with sync_range=1; async_chain: with chain_open=1; psync4: 4 jobs; io_uring_reg: registerfiles=1):"
	print ""
	line = "| job |"
	sep = "|---|"
	for (i = 1; i <= ne; i++) {
		line = line " " eng[i] " |"
		sep = sep "---|"
	}
	print line
	print sep
	f = dat "/fio.dat"
	hdr = "# job"
	for (i = 1; i <= ne; i++)
		hdr = hdr " " eng[i]
	print hdr > f
	for (j = 1; j <= nj; j++) {
		line = "| " jobs[j] " |"
		dl = jobs[j]
		for (i = 1; i <= ne; i++) {
			x = get(jobs[j], eng[i], "ours", "iops")
			line = line " " num(x) " |"
			dl = dl " " (x == "" ? "?" : x)
		}
		print line
		print dl > f
	}
	close(f)

	line = ""
	for (j = 1; j <= nj; j++)
		for (i = 1; i <= ne; i++)
			if ((x = get(jobs[j], eng[i], "ours", "inline_pct")) != "")
				line = line sprintf("%s %s %s %%; ", jobs[j], eng[i], num(x))
	if (line != "")
		print "\nOur entries done by the time async_submit() returned (the inline path): " line
	print ""
	print "| target | ours | other | ratio | target | |"
	print "|---|---|---|---|---|---|"
	a = get("randread-qd32", "async", "ours", "iops")
	target("buffered randread qd32 (median of runs)", a, "async", get("randread-qd32", "io_uring", "ours", "iops"), "io_uring", 1)
	target("buffered randread qd32", a, "async", get("randread-qd32", "psync4", "ours", "iops"), "psync ×4", 4)
	target("randread qd1, cache warm", get("randread-qd1-warm", "async", "ours", "iops"), "async",
	       get("randread-qd1-warm", "psync", "ours", "iops"), "psync", 0.9)
	target("randwrite + fsync=32", get("randwrite-fsync32", "async", "ours", "iops"), "async",
	       get("randwrite-fsync32", "io_uring", "ours", "iops"), "io_uring", 1.0)
	target("randwrite + fsync=32", get("randwrite-fsync32", "async_range", "ours", "iops"), "async_range",
	       get("randwrite-fsync32", "io_uring", "ours", "iops"), "io_uring", 1.0)
	c = get("smallfiles", "async_chain", "ours", "iops")
	target("many small files", c, "async_chain", get("smallfiles", "io_uring", "ours", "iops"), "io_uring", 1.2)
	target("many small files", c, "async_chain", get("smallfiles", "psync", "ours", "iops"), "psync", 1.5)

	print ""
	print "libaio before (stock 6.12) and after (our kernel), IOPS; psync for scale:"
	print ""
	print "| job | libaio, stock | libaio, ours | psync, stock | psync, ours |"
	print "|---|---|---|---|---|"
	for (j = 1; j <= nj; j++) {
		printf("| %s | %s | %s | %s | %s |\n", jobs[j],
		       num(get(jobs[j], "libaio", "stock", "iops")), num(get(jobs[j], "libaio", "ours", "iops")),
		       num(get(jobs[j], "psync", "stock", "iops")), num(get(jobs[j], "psync", "ours", "iops")))
	}
}
