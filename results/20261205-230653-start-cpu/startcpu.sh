#!/bin/sh
# experiment: untouched 16M stall runs started on CPU $c, then free to run on both
sh /opt/longpin/hpet-tick.sh 10
for c in 0 1 0 1; do
	for i in 1 2 3 4 5; do
		taskset -c $c sh -c 'taskset -p -c 0,1 $$ >/dev/null; exec longpin register --mem anon --size 16M --prefault none --cycles 1 --mmap-probe --no-io --quiet --csv /results/s'$c'.csv'
	done
done
