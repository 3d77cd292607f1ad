set terminal png noenhanced size 996,540
set output 'reg.png'
set title "Registration ns per 4 KiB page (registered rows only)\nprefault write; median, error bars min-max"
set ylabel 'ns per page (log)'
set logscale y
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set key outside right top vertical
set xtics rotate by -35 nomirror
set grid ytics
set bmargin 9
set datafile missing 'NaN'
plot 'reg.dat' using 2:3:4:xtic(1) title "stock", \
     'reg.dat' using 5:6:7 title "patched"
