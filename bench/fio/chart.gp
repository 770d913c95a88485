# SPDX-License-Identifier: GPL-2.0
# chart.gp: IOPS per fio job and engine, from report.awk's fio.dat.
#   gnuplot -e "dat='DIR'; out='chart.png'; title='...'" chart.gp
set terminal pngcairo size 1500,700 font ",11" noenhanced
set output out
set datafile missing "?"
set title title font ",13"
set grid ytics
set key outside right font ",10"
set logscale y
set ylabel "IOPS (log)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -20
names = "psync psync×4 libaio io_uring io_uring-reg posixaio async async-range async-chain"
colors = "#1f77b4 #aec7e8 #7f7f7f #2ca02c #98df8a #9467bd #c00000 #ff7f0e #8c564b"
plot for [c = 2:10] dat."/fio.dat" using c:xtic(1) lc rgb word(colors, c - 1) \
	title word(names, c - 1)
