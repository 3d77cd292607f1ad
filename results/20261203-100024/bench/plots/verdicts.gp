set terminal png noenhanced size 1000,300
set output 'verdicts.png'
set title "Registration result per kernel\n0 green, EOPNOTSUPP orange, EFAULT red,\nEINVAL purple, other blue, mixed yellow, missing grey"
unset key
unset border
set tics scale 0
set x2tics
unset xtics
set style fill solid 1.0 border rgb 'white'
set x2range [-0.5:4.5]
set xrange [-0.5:4.5]
set yrange [9.5:-0.5]
set x2tics ("stock" 0, "patched" 1, "debian-6.1" 2, "debian-6.12" 3, "host" 4)
set ytics ("anon write 4M" 0, "anon write 8M" 1, "anon write 16M" 2, "anon write 32M" 3, "anon write 64M" 4, "anon write 128M" 5, "anon write 256M" 6, "anon write 512M" 7, "file-shared none 64M" 8, "file-shared write 64M" 9)
plot 'verdicts.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fc rgb variable, \
     '' using 1:2:4 with labels
