set terminal png noenhanced size 640,540
set output 'ratio.png'
set title "Fixed / plain read MiB/s\nprefault write; median, error bars min-max"
set ylabel 'READ_FIXED / READ'
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set key outside right top vertical
set xtics rotate by -35 nomirror
set grid ytics
set bmargin 9
set datafile missing 'NaN'
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot 'ratio.dat' using 2:3:4:xtic(1) title "stock (tcg: emulated)", \
     'ratio.dat' using 5:6:7 title "patched (tcg: emulated)"
