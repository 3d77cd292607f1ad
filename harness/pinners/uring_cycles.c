// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring pinner's cycles operation: repeated register/unregister
 * cycles (--cycles N, lifetime cycles), optionally with a second thread
 * that loops mmap(), a write to the page and munmap() and times each
 * call (--mmap-probe): a registration that holds mmap_lock, or
 * walks page tables with interrupts off (munmap's TLB-shootdown IPI to the
 * registering CPU waits for it; an untouched page would need no flush),
 * stalls it. Only calls that overlap a registration count, and only their
 * time inside it. With @untouch (an untouched buffer: --prefault none) the
 * buffer's pages are dropped (MADV_DONTNEED) before each cycle, so that
 * every cycle registers an untouched buffer again.
 *
 * With two CPUs or more the registering thread and the prober run on two
 * different ones for the cycles: sharing one CPU, the prober would also
 * wait for the scheduler to preempt the registration (a tick, 4 ms at
 * HZ=250 under PREEMPT_NONE), and that wait grows with the number of
 * calls that overlap it, not with what the kernel holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "uring.h"

#define PROBE_MAX_SAMPLES	(16u << 20)

struct probe_thread {
	pthread_t tid;
	cpu_set_t saved;		/* the registering thread's CPUs */
	int cpu[2];			/* registrant, prober; -1: not pinned */
	atomic_bool stop;
	atomic_bool started;		/* the first call is under way */
	struct probe_call *call;
	size_t n, cap;
	int err;
};

static void *probe_loop(void *arg)
{
	struct probe_thread *p = arg;
	uint64_t t0, dt;
	void *a;

	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		t0 = lp_now_ns();
		atomic_store_explicit(&p->started, true, memory_order_release);
		a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED) {
			p->err = errno;
			break;
		}
		/* a mapped page: munmap must flush it from every CPU's TLB */
		*(volatile char *)a = 1;
		if (munmap(a, 4096)) {
			p->err = errno;
			break;
		}
		dt = lp_now_ns() - t0;
		if (p->n == p->cap)
			break;
		p->call[p->n].start = t0;
		p->call[p->n++].ns = dt > UINT32_MAX ? UINT32_MAX : dt;
	}
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Pick two of the CPUs this thread may run on: the registrant stays on the
 * first, the prober gets the second. Fewer than two: both stay unpinned.
 */
static void probe_pick_cpus(struct probe_thread *p)
{
	cpu_set_t one;
	int i, k = 0;

	p->cpu[0] = p->cpu[1] = -1;
	if (sched_getaffinity(0, sizeof(p->saved), &p->saved) ||
	    CPU_COUNT(&p->saved) < 2)
		return;
	for (i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &p->saved))
			p->cpu[k++] = i;
	CPU_ZERO(&one);
	CPU_SET(p->cpu[0], &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		p->cpu[0] = p->cpu[1] = -1;
}

static int probe_create(struct probe_thread *p)
{
	pthread_attr_t attr;
	cpu_set_t one;
	int ret;

	if (pthread_attr_init(&attr))
		return -EAGAIN;
	if (p->cpu[1] >= 0) {
		CPU_ZERO(&one);
		CPU_SET(p->cpu[1], &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	}
	ret = pthread_create(&p->tid, &attr, probe_loop, p) ? -EAGAIN : 0;
	pthread_attr_destroy(&attr);
	return ret;
}

static void probe_unpin(struct probe_thread *p)
{
	if (p->cpu[0] >= 0)
		sched_setaffinity(0, sizeof(p->saved), &p->saved);
}

static int probe_start(struct probe_thread *p)
{
	memset(p, 0, sizeof(*p));
	p->cap = PROBE_MAX_SAMPLES;
	p->call = malloc(p->cap * sizeof(*p->call));
	if (!p->call)
		return -ENOMEM;
	probe_pick_cpus(p);
	if (probe_create(p)) {
		probe_unpin(p);
		free(p->call);
		return -EAGAIN;
	}
	/* the prober must be running before the first cycle starts */
	while (!atomic_load_explicit(&p->started, memory_order_acquire))
		sched_yield();
	return 0;
}

/*
 * Of each call that overlaps one of the @n registration windows
 * [win[2i], win[2i + 1]] (sorted by time, as @call is), the time it spent
 * inside them: what a registration kept it waiting, not what held it up
 * before one began (with --prefault none the MADV_DONTNEED before each
 * cycle zaps the whole buffer under mmap_lock, and a munmap() that waits
 * for it would otherwise count as the registration's). Into @ns, one
 * value per overlapping call; returns how many.
 */
size_t lp_probe_in_windows(const struct probe_call *call, size_t ncall,
			const uint64_t *win, unsigned int n, uint32_t *ns)
{
	unsigned int w = 0, v;
	size_t i, k = 0;

	for (i = 0; i < ncall; i++) {
		uint64_t a = call[i].start, b = a + call[i].ns, in = 0;

		while (w < n && win[2 * w + 1] < a)
			w++;
		/* a call may span the end of one window and the next ones */
		for (v = w; v < n && win[2 * v] <= b; v++) {
			uint64_t lo = a > win[2 * v] ? a : win[2 * v];
			uint64_t hi = b < win[2 * v + 1] ? b : win[2 * v + 1];

			in += hi - lo;
		}
		if (v > w)
			ns[k++] = in > UINT32_MAX ? UINT32_MAX : in;
	}
	return k;
}

/*
 * Each registration's stall: the longest time one prober call spent
 * inside window i, into @wmax[i] (0: no call overlapped it). A call that
 * spans several windows counts in each for its part there.
 */
void lp_probe_window_max(const struct probe_call *call, size_t ncall,
		      const uint64_t *win, unsigned int n, uint32_t *wmax)
{
	unsigned int w = 0, v;
	size_t i;

	memset(wmax, 0, n * sizeof(*wmax));
	for (i = 0; i < ncall; i++) {
		uint64_t a = call[i].start, b = a + call[i].ns;

		while (w < n && win[2 * w + 1] < a)
			w++;
		for (v = w; v < n && win[2 * v] <= b; v++) {
			uint64_t lo = a > win[2 * v] ? a : win[2 * v];
			uint64_t hi = b < win[2 * v + 1] ? b : win[2 * v + 1];

			if (hi - lo > wmax[v])
				wmax[v] = hi - lo > UINT32_MAX ? UINT32_MAX : hi - lo;
		}
	}
}

/*
 * The instrument's floor: the prober's calls that overlap no
 * registration, their median and 99th percentile. A registration that
 * obstructs nothing still shows one such call as its stall.
 */
static void probe_free(const struct probe_thread *p, const uint64_t *win,
		       unsigned int n, struct cycles_result *cr)
{
	uint32_t *ns = malloc((p->n ? p->n : 1) * sizeof(*ns));
	size_t i, k = 0;
	unsigned int w = 0;

	for (i = 0; ns && i < p->n; i++) {
		uint64_t a = p->call[i].start, b = a + p->call[i].ns;

		while (w < n && win[2 * w + 1] < a)
			w++;
		if (w < n && win[2 * w] <= b)
			continue;	/* it overlaps a registration */
		ns[k++] = p->call[i].ns;
	}
	if (k) {
		qsort(ns, k, sizeof(*ns), cmp_u32);
		cr->probe_free_med_us = ns[k / 2] / 1e3;
		cr->probe_free_p99_us = ns[(size_t)((k - 1) * 0.99)] / 1e3;
	}
	cr->probe_free_n = k;
	free(ns);
}

/*
 * Stop the prober; time its calls inside the registration windows, and
 * each registration's longest one (its stall): median, min and max over
 * the registrations a call overlapped.
 */
static void probe_finish(struct probe_thread *p, const uint64_t *win,
			 unsigned int n, struct cycles_result *cr)
{
	uint32_t *ns = NULL, *wmax = calloc(n ? n : 1, sizeof(*wmax));
	size_t k = 0;
	unsigned int i, m = 0;

	atomic_store(&p->stop, true);
	pthread_join(p->tid, NULL);
	probe_unpin(p);
	cr->probe_cpu[0] = p->cpu[0];
	cr->probe_cpu[1] = p->cpu[1];
	if (p->n)
		ns = malloc(p->n * sizeof(*ns));
	if (ns)
		k = lp_probe_in_windows(p->call, p->n, win, n, ns);
	cr->probed = k > 0;
	cr->probe_calls = k;
	if (k) {
		qsort(ns, k, sizeof(*ns), cmp_u32);
		cr->probe_p999_us = ns[(size_t)((k - 1) * 0.999)] / 1e3;
		cr->probe_max_us = ns[k - 1] / 1e3;
	}
	if (k && wmax) {
		lp_probe_window_max(p->call, p->n, win, n, wmax);
		for (i = 0; i < n; i++)
			if (wmax[i])
				wmax[m++] = wmax[i];
		qsort(wmax, m, sizeof(*wmax), cmp_u32);
	}
	cr->stall_n = m;
	if (m) {
		cr->stall_min_us = wmax[0] / 1e3;
		cr->stall_med_us = wmax[m / 2] / 1e3;
		cr->stall_max_us = wmax[m - 1] / 1e3;
	}
	probe_free(p, win, n, cr);
	free(wmax);
	free(ns);
	free(p->call);
}

/*
 * LONGPIN_NUMA_MAPS=FILE: append the lines of /proc/self/numa_maps that
 * cover the buffer to FILE, each after the buffer's size in bytes, so a
 * benchmark can say on which nodes the pages it registered sit (N0=...
 * N1=...). Taken before the cycles, once the pages are in place.
 */
static void numa_maps_note(const struct mem *m)
{
	const char *path = getenv("LONGPIN_NUMA_MAPS");
	unsigned long lo = (unsigned long)m->addr, start;
	char line[4096], prev[4096] = "";
	FILE *in, *out;

	if (!path || !*path)
		return;
	in = fopen("/proc/self/numa_maps", "r");
	out = fopen(path, "a");
	while (in && out && fgets(line, sizeof(line), in)) {
		start = strtoul(line, NULL, 16);
		if (start <= lo) {		/* the VMA the buffer starts in, so far */
			memcpy(prev, line, sizeof(prev));
			continue;
		}
		if (*prev) {
			fprintf(out, "%zu %s", m->len, prev);
			*prev = 0;
		}
		if (start < lo + m->len)
			fprintf(out, "%zu %s", m->len, line);
		else
			break;
	}
	if (out && *prev)
		fprintf(out, "%zu %s", m->len, prev);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/*
 * n more register/unregister cycles of m's buffer. The answer must stay
 * @first each time; the first cycle that differs is recorded.
 */
int lp_cycles_run(struct io_uring *ring, struct mem *m, unsigned int n,
	       bool probe, bool untouch, int first, struct cycles_result *cr)
{
	struct iovec iov = { .iov_base = m->addr, .iov_len = m->len };
	double pages = m->len / 4096.0, *reg;
	struct probe_thread p;
	struct progress pr;
	uint64_t *win;
	unsigned int i;
	int ret;

	memset(cr, 0, sizeof(*cr));
	reg = calloc(n ? n : 1, sizeof(*reg));
	win = calloc(2 * (n ? n : 1), sizeof(*win));
	if (!reg || !win) {
		ret = -ENOMEM;
		goto out;
	}
	numa_maps_note(m);
	if (probe && (ret = probe_start(&p)))
		goto out;
	lp_progress_begin(&pr, m->ops->name, "register/unregister cycles", n);
	for (i = 0; i < n; i++) {
		lp_progress_step(&pr, i);
		if (untouch)
			madvise(m->addr, m->len, MADV_DONTNEED);
		win[2 * i] = lp_now_ns();
		ret = io_uring_register_buffers(ring, &iov, 1);
		win[2 * i + 1] = lp_now_ns();
		reg[i] = (win[2 * i + 1] - win[2 * i]) / pages;
		if (!ret)
			io_uring_unregister_buffers(ring);
		if (ret != first && !cr->failed_at) {
			cr->failed_at = i + 1;
			cr->failed_result = ret;
		}
	}
	lp_progress_end(&pr);
	if (probe)
		probe_finish(&p, win, n, cr);
	cr->n = n;
	if (n) {
		qsort(reg, n, sizeof(*reg), cmp_dbl);
		cr->reg_min = reg[0];
		cr->reg_med = reg[n / 2];
		cr->reg_max = reg[n - 1];
	}
	ret = 0;
out:
	free(reg);
	free(win);
	return ret;
}
