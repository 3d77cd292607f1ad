set terminal png noenhanced font ',9' size 1998,718
set output 'verdicts.png'
unset border
unset tics
unset key
set lmargin at screen 0
set rmargin at screen 1
set tmargin at screen 1
set bmargin at screen 0
set xrange [0:1998]
set yrange [718:0]
set style fill solid 1.0 noborder
set label 1 "Verdicts: memory type (rows) by kernel and pinner (columns)" at 999,14 center font ',11'
plot 'verdicts.dat' index 0 using 1:2:3:4:5 with boxxyerror fc rgb variable, \
     '' index 0 using 1:2:6:7 with labels tc rgb variable font ',8', \
     '' index 1 using 1:2:3 with labels right, \
     '' index 2 using 1:2:3 with labels center, \
     '' index 3 using 1:2:3:4:5 with boxxyerror fc rgb variable, \
     '' index 3 using 6:2:7 with labels left, \
     '' index 4 using 1:2:3 with labels left
