set terminal png noenhanced font ',9' size 780,532
set output 'verdicts.png'
set title "Registration result per kernel" offset 0,1
set tmargin 5
set bmargin 6
set key below horizontal center maxcols 4 samplen 1.5
unset border
set tics scale 0
set x2tics
unset xtics
set style fill solid 1.0 border rgb 'white'
set x2range [-0.5:1.5]
set xrange [-0.5:1.5]
set x2tics ("stock-6.12" 0, "patched-6.12" 1)
set ytics ("anon write 4M" 0, "anon write 8M" 1, "anon write 16M" 2, "anon write 32M" 3, "anon write 64M" 4, "anon write 128M" 5, "anon write 256M" 6, "anon write 512M" 7, "anon none 64M" 8, "register-mmap-probe anon write 16M" 9, "register-mmap-probe anon none 16M" 10, "register-mmap-probe anon write 64M" 11, "register-mmap-probe anon none 64M" 12, "register-mmap-probe anon write 256M" 13, "register-mmap-probe anon none 256M" 14, "register-mmap-probe anon write 1G" 15, "register-mmap-probe anon none 1G" 16, "file-shared none 64M" 17, "file-shared write 64M" 18)
set yrange [18.5:-0.5]
plot 'verdicts.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fc rgb variable notitle, \
     '' using 1:2:4:5 with labels tc rgb variable notitle, \
     NaN with boxes fc rgb '#212121' title "FAIL", \
     NaN with boxes fc rgb '#8d6e63' title "DATA LOST", \
     NaN with boxes fc rgb '#66bb6a' title "0", \
     NaN with boxes fc rgb '#ffa726' title "EOPNOTSUPP", \
     NaN with boxes fc rgb '#ef5350' title "EFAULT", \
     NaN with boxes fc rgb '#ab47bc' title "EINVAL", \
     NaN with boxes fc rgb '#fff176' title "mixed", \
     NaN with boxes fc rgb '#42a5f5' title "other errno", \
     NaN with boxes fc rgb '#bdbdbd' title "missing"
