set terminal png noenhanced size 720,426
set output 'verdicts.png'
set title "Result per kernel\n0 green, EOPNOTSUPP orange, EFAULT red, EINVAL purple,\nother blue, mixed yellow, missing grey, DATA LOST brown"
unset key
unset border
set tics scale 0
set x2tics
unset xtics
set style fill solid 1.0 border rgb 'white'
set x2range [-0.5:2.5]
set xrange [-0.5:2.5]
set yrange [16.5:-0.5]
set x2tics ("stock" 0, "patched" 1, "patched-unchunked" 2)
set ytics ("anon write 4M" 0, "anon write 8M" 1, "anon write 16M" 2, "anon write 32M" 3, "anon write 64M" 4, "anon write 128M" 5, "anon write 256M" 6, "anon write 512M" 7, "anon none 64M" 8, "register-mmap-probe anon write 16M" 9, "register-mmap-probe anon none 16M" 10, "register-mmap-probe anon write 64M" 11, "register-mmap-probe anon none 64M" 12, "register-mmap-probe anon write 256M" 13, "register-mmap-probe anon none 256M" 14, "file-shared none 64M" 15, "file-shared write 64M" 16)
plot 'verdicts.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fc rgb variable, \
     '' using 1:2:4 with labels
