# SPDX-License-Identifier: GPL-2.0
# The table of make node from its CSV lines (bench,param,method,metric,
# value; one line per round): medians of the rounds, stock libuv1 against
# ours.  Run with -F,.
function median(k,	n, i, j, t, a) {
	n = cnt[k]
	for (i = 1; i <= n; i++)
		a[i] = val[k, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function rat(a, b) {
	return (a == "" || b == "" || b == 0) ? "–" : sprintf("%.2f", a / b)
}

NR > 1 {
	k = $2 SUBSEP $3 SUBSEP $4
	val[k, ++cnt[k]] = $5
	rounds = cnt[k] > rounds ? cnt[k] : rounds
}

END {
	printf("Debian's node 18 on Debian's libuv1 (stock) and on ours, µs per file or path, wall and CPU of the whole guest, medians of %d rounds; 32 calls in flight:\n\n", rounds)
	print "| workload | cache | stock | ours | speedup | stock CPU | ours CPU | CPU ours/stock |"
	print "|---|---|---|---|---|---|---|---|"
	split("read stat copy", w, " ")
	split("readFile of 10000 files of 4 KiB|stat of 10100 paths|copyFile of 1000 files", wl, "|")
	split("cold warm", c, " ")
	for (i = 1; i <= 3; i++)
		for (j = 1; j <= 2; j++) {
			p = w[i] ";" c[j]
			s = median(p SUBSEP "stock" SUBSEP "us_per_op")
			o = median(p SUBSEP "ours" SUBSEP "us_per_op")
			sc = median(p SUBSEP "stock" SUBSEP "cpu_us_per_op")
			oc = median(p SUBSEP "ours" SUBSEP "cpu_us_per_op")
			printf("| %s | %s | %.0f | %.0f | %s | %.0f | %.0f | %s |\n",
			       wl[i], c[j], s, o, rat(s, o), sc, oc, rat(oc, sc))
		}
}
