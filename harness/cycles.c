// SPDX-License-Identifier: GPL-2.0
/*
 * Repeated register/unregister cycles (--cycles N), optionally with a
 * second thread that loops mmap()+munmap() of one page and times each
 * call (--mmap-probe): a registration that holds mmap_lock stalls it.
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

#include "longpin.h"

#define PROBE_MAX_SAMPLES	(16u << 20)

struct probe_thread {
	pthread_t tid;
	atomic_bool stop;
	atomic_bool started;		/* the first call is under way */
	uint32_t *ns;			/* latency of each call, ns (capped) */
	size_t n, cap;
	int err;
};

static void *probe_loop(void *arg)
{
	struct probe_thread *p = arg;
	uint64_t t0, dt;
	void *a;

	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		t0 = now_ns();
		atomic_store_explicit(&p->started, true, memory_order_release);
		a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED || munmap(a, 4096)) {
			p->err = errno;
			break;
		}
		dt = now_ns() - t0;
		if (p->n == p->cap)
			break;
		p->ns[p->n++] = dt > UINT32_MAX ? UINT32_MAX : dt;
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

static int probe_start(struct probe_thread *p)
{
	memset(p, 0, sizeof(*p));
	p->cap = PROBE_MAX_SAMPLES;
	p->ns = malloc(p->cap * sizeof(*p->ns));
	if (!p->ns)
		return -ENOMEM;
	if (pthread_create(&p->tid, NULL, probe_loop, p)) {
		free(p->ns);
		return -EAGAIN;
	}
	/* the prober must be running before the first cycle starts */
	while (!atomic_load_explicit(&p->started, memory_order_acquire))
		sched_yield();
	return 0;
}

static void probe_finish(struct probe_thread *p, struct cycles_result *cr)
{
	atomic_store(&p->stop, true);
	pthread_join(p->tid, NULL);
	cr->probed = p->n > 0;
	cr->probe_calls = p->n;
	if (p->n) {
		qsort(p->ns, p->n, sizeof(*p->ns), cmp_u32);
		cr->probe_p999_us = p->ns[(size_t)((p->n - 1) * 0.999)] / 1e3;
		cr->probe_max_us = p->ns[p->n - 1] / 1e3;
	}
	free(p->ns);
}

/*
 * n more register/unregister cycles of m's buffer. The answer must stay
 * @first each time; the first cycle that differs is recorded.
 */
int cycles_run(struct io_uring *ring, struct mem *m, unsigned int n,
	       bool probe, int first, struct cycles_result *cr)
{
	struct iovec iov = { .iov_base = m->addr, .iov_len = m->len };
	double pages = m->len / 4096.0, *reg;
	struct probe_thread p;
	unsigned int i;
	uint64_t t0;
	int ret;

	memset(cr, 0, sizeof(*cr));
	reg = calloc(n ? n : 1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	if (probe && (ret = probe_start(&p))) {
		free(reg);
		return ret;
	}
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		ret = io_uring_register_buffers(ring, &iov, 1);
		reg[i] = (now_ns() - t0) / pages;
		if (!ret)
			io_uring_unregister_buffers(ring);
		if (ret != first && !cr->failed_at) {
			cr->failed_at = i + 1;
			cr->failed_result = ret;
		}
	}
	if (probe)
		probe_finish(&p, cr);
	cr->n = n;
	if (n) {
		qsort(reg, n, sizeof(*reg), cmp_dbl);
		cr->reg_min = reg[0];
		cr->reg_med = reg[n / 2];
		cr->reg_max = reg[n - 1];
	}
	free(reg);
	return 0;
}
