#!/bin/sh
# experiment: bench's written registrations run on CPU $1, then untouched 16M stall runs as bench.sh makes them
c=$1
for s in 4M 8M 16M 32M 64M 128M 256M 512M; do
	taskset -c $c longpin register --mem anon --size $s --prefault write --cycles 5 --no-io --quiet --csv /results/prep.csv
done
taskset -c $c longpin register --mem anon --size 64M --prefault none --no-io --quiet --csv /results/prep.csv
sh /opt/longpin/hpet-tick.sh 10
for i in 1 2 3 4 5; do
	longpin register --mem anon --size 16M --prefault none --cycles 1 --mmap-probe --no-io --quiet --csv /results/stall.csv
done
