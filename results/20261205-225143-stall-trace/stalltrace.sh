#!/bin/sh
# experiment: 1 GiB (or $1) written stall runs with the prober's calls traced
s=${1:-1G}; n=${2:-11}; pf=${3:-write}
sh /opt/longpin/hpet-tick.sh 10 || echo "no hpet tick"
for i in $(seq $n); do
	echo "== run $i" >>/results/trace.txt
	cat /proc/interrupts /proc/softirqs /proc/vmstat >/results/pre-$i.txt
	LONGPIN_PROBE_TRACE=/results/trace.txt longpin register --mem anon --size $s --prefault $pf --cycles 1 \
		--mmap-probe --no-io --quiet --csv /results/stall.csv
	cat /proc/interrupts /proc/softirqs /proc/vmstat >/results/post-$i.txt
done
sh /opt/longpin/hpet-tick.sh 0
sed -i "s/,tcg,/,tcg-icount0-tick10us,/" /results/stall.csv
