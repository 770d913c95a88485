# SPDX-License-Identifier: GPL-2.0
# chart.gp: the benchmark chart, from report.awk's data files.
#   gnuplot -e "dat='DIR'; out='chart.png'; title='...'" chart.gp
set terminal pngcairo size 1800,1050 font ",11" noenhanced
set output out
set datafile missing "?"
set multiplot layout 2,3 title title font ",14"
set grid ytics
set key top right font ",9"

# Columns of p1.dat after the batch, and how each is drawn.
names = "async-WAIT async-futex async-one-chain async-probe sync-pread sync-getppid io_uring-NOP io_uring-read pool POSIX-AIO"
colors = "#c00000 #ff7f0e #8c564b #999999 #1f77b4 #17becf #2ca02c #98df8a #9467bd #7f7f7f"
set logscale xy
set xlabel "entries per call"
set xtics ("1" 1, "8" 8, "64" 64, "512" 512, "4096" 4096)
do for [f in "p1 p1-cpu0"] {
	set title (f eq "p1" ? "P1: ns per trivial entry, 2 vCPUs (log)" : \
		   "P1: ns per trivial entry, pinned to 1 vCPU (log)")
	plot for [c in "2 3 4 6 7 8 9 10 11"] dat."/".f.".dat" using 1:(column(int(c))) \
		with linespoints lw 2 lc rgb word(colors, int(c) - 1) \
		title word(names, int(c) - 1)
}
unset logscale
unset xlabel
set xtics auto

set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 font ",9"
set logscale y

set title "P2: one entry, submit until seen done, 2 vCPUs (µs, log)"
plot dat."/p2.dat" using 2:xtic(1) title "p50", "" using 3 title "p99"

set title "P3 open-read-close, P5 copy (µs per file: time, guest CPU; log)"
plot dat."/p35.dat" using 2:xtic(1) title "P3", "" using 3 title "P5", \
     "" using 4 title "P3 CPU", "" using 5 title "P5 CPU"

set title "P4: 256 x nanosleep(10 ms), ms (log)"
plot dat."/p4.dat" using 2:xtic(1) notitle
unset logscale

set style data linespoints
set title "P6: ns per entry by entries in flight (no WAIT)"
set logscale x
set xtics ("64" 64, "512" 512, "4096" 4096, "16384" 16384) rotate by 0
set yrange [0:*]
plot dat."/p6.dat" using 1:2 lw 2 lc rgb "#c00000" title "async"
unset multiplot
