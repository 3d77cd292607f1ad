set terminal png noenhanced size 900,560
set output 'stall-size.png'
set title "Longest mmap+write+munmap of a sibling thread per registration\nwall clock; median, error bars min-max"
set xlabel 'buffer MiB (log)'
set ylabel 'stall us (log)'
set logscale xy
set grid
set key outside right top vertical
set datafile missing 'NaN'
set xtics (4,8,16,32,64,128,256,512,1024)

