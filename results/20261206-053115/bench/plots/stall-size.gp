set terminal png noenhanced size 900,560
set output 'stall-size.png'
set title "Longest mmap+write+munmap of a sibling thread per registration\nguest instructions (QEMU -icount); median, error bars min-max"
set xlabel 'buffer MiB (log)'
set ylabel 'stall us (log)'
set logscale xy
set grid
set key outside right top vertical
set datafile missing 'NaN'
set xtics (4,8,16,32,64,128,256,512,1024)
plot 'stall-size.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 dt 1 pt 7 title "stock written", \
     'stall-size.dat' index 0 using 1:5:6:7 with yerrorlines lc 2 dt 1 pt 7 title "patched written", \
     'stall-size.dat' index 1 using 1:2:3:4 with yerrorlines lc 1 dt 2 pt 5 title "stock untouched", \
     'stall-size.dat' index 1 using 1:5:6:7 with yerrorlines lc 2 dt 2 pt 5 title "patched untouched"
