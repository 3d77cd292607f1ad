// SPDX-License-Identifier: GPL-2.0
/*
 * icount-turns [SECONDS]: a thread on CPU 0 spins while this one, on
 * CPU 1, reads CLOCK_MONOTONIC in a loop; prints the longest gap between
 * two reads in microseconds. Under QEMU's -icount the two vCPUs run in
 * turns, and the longest gap is the longest turn CPU 0 had. Exit 1 when
 * the two CPUs cannot be had.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_bool stop;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static int pin_to(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

static void *spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.2;
	uint64_t t, prev, end, gap, max = 0;
	pthread_attr_t attr;
	cpu_set_t cpu0;
	pthread_t tid;

	if (pin_to(1)) {
		perror("icount-turns: CPU 1");
		return 1;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setaffinity_np(&attr, sizeof(cpu0), &cpu0) ||
	    pthread_create(&tid, &attr, spin, NULL)) {
		fprintf(stderr, "icount-turns: no spinning thread on CPU 0\n");
		return 1;
	}
	pthread_attr_destroy(&attr);
	prev = now_ns();
	end = prev + (uint64_t)(secs * 1e9);
	while (prev < end) {
		t = now_ns();
		gap = t - prev;
		if (gap > max)
			max = gap;
		prev = t;
	}
	atomic_store(&stop, true);
	pthread_join(tid, NULL);
	printf("longest gap %.1f us\n", max / 1e3);
	return 0;
}
