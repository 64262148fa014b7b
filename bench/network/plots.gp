# Charts of bench_network's data files. Variables (gnuplot -e): dir (folder of the .dat
# files, also where charts go), net (a network's file prefix, e.g. mobilenet_v1_100_128),
# title, ext (svg or png). Writes <net>_time.<ext>, <net>_memory.<ext> and, when net is
# "sweep", mobilenet_v1_sweep.<ext>.
if (!exists("ext")) ext = "svg"
if (ext eq "svg") {
  set terminal svg size 1200,700 dynamic enhanced font "sans,11" background rgb "white"
} else {
  set terminal pngcairo size 1200,700 enhanced font "sans,10"
}
set datafile commentschars "#"
set key outside right top
set grid ytics

if (net eq "sweep") {
  set output dir."/mobilenet_v1_sweep.".ext
  set title "MobileNet-v1 1.0-128 on an 8-core GAP-8 cluster: modeled MAC/cycle vs L1 tile budget and L2 size"
  set xlabel "L1 tile budget (kB, stacks excluded)"
  set ylabel "MAC/cycle (modeled)"
  set logscale x 2
  set xtics (22, 32, 48, 64, 96, 128, 192, 256, 400)
  plot dir."/mobilenet_v1_sweep.dat" index 0 using 1:3 with linespoints lw 2 title "L2 256 kB", \
       ""                             index 1 using 1:3 with linespoints lw 2 title "L2 384 kB", \
       ""                             index 2 using 1:3 with linespoints lw 2 title "L2 512 kB", \
       ""                             index 3 using 1:3 with linespoints lw 2 title "L2 4 MB"
  exit
}

data = dir."/".net."_layers.dat"

# Per layer: MAC/cycle on top, where the cycles go below (stacked).
set output dir."/".net."_time.".ext
set multiplot layout 2,1 title title." on GAP-8 (8 cores, 100 MHz): modeled per layer"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by -60 font ",8"
set ylabel "MAC/cycle"
set style histogram clustered
plot data using 6:xtic(2) title "MAC/cycle" lc rgb "#3366aa"
set style histogram rowstacked
set ylabel "cycles"
set format y "%.1s%c"
plot data using 7:xtic(2) title "compute" lc rgb "#3366aa", \
     "" using 8 title "DMA stall (L2<->L1)" lc rgb "#dd8833", \
     "" using 9 title "per-tile overhead" lc rgb "#888888", \
     "" using 10 title "L3 stall" lc rgb "#cc3333"
unset multiplot

# Per layer: L1 use of the layer's tiles and L2 bytes alive while it runs.
set output dir."/".net."_memory.".ext
set title title.": L1 and L2 occupancy per layer (planned)"
set style histogram clustered gap 1
set ylabel "bytes"
set format y "%.0s %cB"
plot data using 11:xtic(2) title "L1 (tile buffers)" lc rgb "#3366aa", \
     "" using 12 title "L2 (live arena)" lc rgb "#55aa55"
