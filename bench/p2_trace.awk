# SPDX-License-Identifier: GPL-2.0
# The steps of each P2 op in a trace of p2_trace.sh: from one submit event
# of the submitter to the next, t1 the waking of a worker, t2 that worker
# switched in, t3 the waking of the submitter, t4 the submitter switched
# in.  An op whose worker was still running, or whose submitter had not
# slept yet, has fewer steps and is only counted.
function usecs(   i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/)
			return substr($i, 1, length($i) - 1) * 1e6
	return -1
}
function field(key,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}
function end_op() {
	if (t0 && t3 && t4) {
		n++
		a[n] = t1 - t0; b[n] = t2 - t1; c[n] = t3 - t2; d[n] = t4 - t3
		all[n] = t4 - t0
		same += wcpu == scpu
	} else if (t0 && !t1) {
		no_worker_wake++
	} else if (t0) {
		no_submitter_wake++
	}
	t0 = t1 = t2 = t3 = t4 = 0
}
function median(v, k,   i, j, t, x) {
	for (i = 1; i <= k; i++)
		x[i] = v[i]
	for (i = 1; i <= k; i++)
		for (j = i + 1; j <= k; j++)
			if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
	return x[int((k + 1) / 2)]
}
/^#/ { next }
{
	t = usecs()
	if (t < 0)
		next
}
/async_syscall_submit:|io_uring_submit_req:/ {
	if (!submitter) {
		submitter = $1
		spid = $1
		sub(/.*-/, "", spid)
	}
	if ($1 == submitter) {
		end_op()
		t0 = t
		scpu = $2
	}
	next
}
!t0 { next }
/sched_waking:/ {
	if (!t1 && field("comm") ~ /^(async-wrk|iou-wrk)/) {
		t1 = t
		wpid = field("pid")
	} else if (t2 && !t3 && field("pid") == spid) {
		t3 = t
	}
	next
}
/sched_switch:/ {
	if (t1 && !t2 && field("next_pid") == wpid) {
		t2 = t
		wcpu = $2
	} else if (t3 && !t4 && field("next_pid") == spid) {
		t4 = t
	}
}
END {
	end_op()
	printf "P2 trace %s: %d ops with both wake-ups, the worker on the submitter's vCPU in %d; %d found the worker awake, %d the submitter not yet asleep\n",
	       m, n, same, no_worker_wake, no_submitter_wake
	if (n)
		printf "P2 trace %s, medians (us): submit -> worker woken %.0f -> runs %.0f -> wakes the submitter %.0f -> submitter runs %.0f; in all %.0f\n",
		       m, median(a, n), median(b, n), median(c, n), median(d, n), median(all, n)
}
