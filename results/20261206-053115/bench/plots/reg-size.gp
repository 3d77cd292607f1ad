set terminal png noenhanced size 900,560
set output 'reg-size.png'
set title "Registration ns per 4 KiB page, written anonymous memory\nguest instructions (QEMU -icount); median, error bars min-max"
set xlabel 'buffer MiB (log)'
set ylabel 'ns per page (log)'
set logscale xy
set grid
set key outside right top vertical
set datafile missing 'NaN'
set xtics (4,8,16,32,64,128,256,512,1024)
plot 'reg-size.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 dt 1 pt 7 title "stock", \
     'reg-size.dat' index 0 using 1:5:6:7 with yerrorlines lc 2 dt 1 pt 7 title "patched"
