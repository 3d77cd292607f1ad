// SPDX-License-Identifier: GPL-2.0
/*
 * longpin torture --mem TYPE: every operation of torture_ops.c that
 * applies to TYPE in its own thread on one buffer for --seconds; every
 * registration and update answer judged against the contract and the
 * race answers, every fixed I/O round checked, pins balanced at the end;
 * one row in its own CSV (schema torture-1). See
 * docs/lifetime-and-torture.md, "Torture". This file is the runner: the
 * buffer, the threads that apply and their deadline; torture_judge.c
 * judges as they go, torture_row.c at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "torture.h"

/*
 * The memory types --torture applies to: every one, as the reg thread
 * runs on each (the other threads' why_not() leave some out); whether
 * one can be set up here is the run's to say (exit 77).
 */
int lp_torture_list(void)
{
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; (ops = lp_mem_nth(i)); i++)
		printf("%s\n", ops->name);
	return LP_OK;
}

/* A free range for mremap to move to, aligned for THPs and huge pages. */
static int spare_reserve(struct tt *t)
{
	size_t align = t->gran > 2 * MiB ? t->gran : 2 * MiB, n;
	char *p, *a;

	n = t->len / t->gran / 4;
	t->spare_len = (n ? n : 1) * t->gran;
	p = mmap(NULL, t->spare_len + align, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + t->spare_len, p + align - a);
	t->spare = a;
	return 0;
}

/* The I/O target: 2 x io_len, unlinked at once, O_DIRECT if it can. */
static int target_open(struct tt *t)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/longpin-target.XXXXXX",
		     t->m.target_dir) >= (int)sizeof(path))
		return lp_err(LP_EUSAGE, "--torture: the path %s is too long",
			      t->m.target_dir);
	t->tfd = mkstemp(path);
	if (t->tfd < 0)
		return lp_err(LP_EUSAGE, "--torture: cannot create %s: %s",
			      path, strerror(errno));
	unlink(path);
	fcntl(t->tfd, F_SETFL, O_DIRECT);
	if (ftruncate(t->tfd, 2 * t->io_len))
		return lp_err(LP_SKIP, "--torture: cannot size the I/O target in %s: %s",
			      t->m.target_dir, strerror(errno));
	return LP_OK;
}

/* Smallest range an op takes: a huge page, devdax's 2 MiB, else 4 KiB. */
static size_t granule(const struct mem_ops *ops)
{
	if (ops->flags & MEM_HUGETLB)
		return lp_hugepage_size();
	if (ops->place == PLACE_DEVDAX)
		return 2 * MiB;
	return 4096;
}

static int tt_setup(struct tt *t)
{
	struct pinner p = { .entries = TT_RING_ENTRIES };
	int ret;

	/* io_uring missing or disabled: the one-line error of the other modes */
	ret = lp_pinner_open(&p, t->o);
	lp_pinner_close(&p);
	if (ret != LP_OK)
		return ret;
	t->gran = granule(t->ops);
	if (t->o->size / t->gran < 4)
		return lp_err(LP_EUSAGE,
			      "--torture on %s needs --size of 4 granules of %zuK at least: give --size %zuK",
			      t->ops->name, t->gran / KiB, 4 * t->gran / KiB);
	ret = lp_mem_setup(&t->m, t->ops, t->o);
	if (ret != LP_OK)
		return ret;
	t->mem_up = true;
	t->base = t->m.addr;
	t->len = t->m.len;
	ret = (t->ops->populate ? t->ops->populate : lp_mem_populate)(&t->m, PF_WRITE);
	if (ret != LP_OK)
		return ret;
	t->io_len = t->len / 4 < 64 * KiB ? t->len / 4 : 64 * KiB;
	t->io_len &= ~(size_t)4095;
	t->shared = strcmp(t->ops->map, "private");
	t->root = !geteuid();
	lp_tt_answers_of(t, t->c);
	ret = target_open(t);
	if (ret != LP_OK)
		return ret;
	if (spare_reserve(t))
		return lp_err(LP_SKIP, "--torture: no room for mremap: %s",
			      strerror(errno));
	return LP_OK;
}

/* Unmap and close all the run set up; again: nothing. */
static void tt_teardown(struct tt *t)
{
	if (t->spare)
		munmap(t->spare, t->spare_len);
	if (t->tfd >= 0)
		close(t->tfd);
	if (t->mem_up)
		lp_mem_teardown(&t->m);
	t->spare = NULL;
	t->tfd = -1;
	t->mem_up = false;
}

/* Is @name in the comma list @list (NULL: every op)? */
static bool op_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!list)
		return true;
	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/* "reg, io, remap, ...": the operations, in the order of their threads */
static const char *op_names(char *buf, size_t n)
{
	const struct tt_op *op;
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; (op = lp_tt_op_nth(i)) && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				op->name);
	return buf;
}

/* The operations, for longpin torture --help and the manual page. */
void lp_torture_more(FILE *f, bool man)
{
	char names[160], text[256];

	snprintf(text, sizeof(text), "%s; one thread each that applies to TYPE (--ops: a subset).",
		 op_names(names, sizeof(names)));
	lp_items_head(f, man, "Operations");
	lp_item_help(f, man, "--ops", text);
}

/* --ops LIST: every name an op; returns LP_OK or a usage error. */
static int ops_check(const struct tt *t)
{
	char list[256], names[160], *tok, *save = NULL;
	const struct tt_op *op;
	size_t i;

	if (!t->o->torture_ops)
		return LP_OK;
	snprintf(list, sizeof(list), "%s", t->o->torture_ops);
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; (op = lp_tt_op_nth(i)) && strcmp(op->name, tok); i++)
			;
		if (!op)
			return lp_err(LP_EUSAGE,
				      "--ops %s: no operation %s: give a comma list of %s",
				      t->o->torture_ops, tok, op_names(names, sizeof(names)));
		if (op->why_not && op->why_not(t))
			return lp_err(LP_SKIP, "--ops %s: %s does not apply to %s: %s",
				      t->o->torture_ops, tok, t->ops->name,
				      op->why_not(t));
	}
	return LP_OK;
}

/* The threads: every listed op that applies to TYPE. */
static size_t threads_pick(struct tt *t, struct tt_thr *h, char *names,
			   size_t n)
{
	const struct tt_op *op;
	size_t i, k = 0;

	names[0] = '\0';
	for (i = 0; (op = lp_tt_op_nth(i)) && k < TT_MAX_THREADS; i++) {
		if (!op_listed(t->o->torture_ops, op->name) ||
		    (op->why_not && op->why_not(t)))
			continue;
		h[k] = (struct tt_thr){ .t = t, .op = op, .idx = i };
		t->efault_race |= op->efault_race;
		snprintf(names + strlen(names), n - strlen(names), "%s%s",
			 k ? ";" : "", op->name);
		k++;
	}
	return k;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static void *thr_main(void *arg)
{
	struct tt_thr *h = arg;

	while (lp_tt_more(h)) {
		h->op->step(h);
		h->iters++;
	}
	return NULL;
}

/* Start every thread, wait for all; returns the number that ran. */
static size_t threads_run(struct tt *t, struct tt_thr *h, size_t n,
			  uint64_t seed)
{
	size_t i, started = 0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		/* by the op's place in the table: --ops keeps its sequence */
		h[i].rng = splitmix64(seed + h[i].idx) | 1;
		ret = h[i].op->init ? h[i].op->init(&h[i]) : 0;
		if (ret) {
			lp_tt_count(t, TC_HARNESS_ERR);
			lp_tt_note(t, "%s: setup: %s", h[i].op->name, lp_errno_name(ret));
			n = i + 1;	/* this one and those after it do not run */
			break;
		}
	}
	t->deadline = lp_now_ns() + t->o->seconds * 1000000000ULL;
	/* LONGPIN_TEST_FAULT=torture-deadline: a run of 0 s (util.c) */
	if (lp_test_fault("torture-deadline"))
		t->deadline = lp_now_ns();
	for (i = 0; i < n && !ret; i++) {
		if (pthread_create(&h[i].th, NULL, thr_main, &h[i]))
			break;
		started++;
	}
	if (!ret && started < n) {
		lp_tt_count(t, TC_HARNESS_ERR);
		lp_tt_note(t, "only %zu of %zu threads started", started, n);
		t->deadline = 0;
	}
	for (i = 0; i < started; i++)
		pthread_join(h[i].th, NULL);
	for (i = 0; i < n; i++)
		if (h[i].op->fini)
			h[i].op->fini(&h[i]);
	return started;
}

/*
 * LONGPIN_TEST_FAULT=torture-pin-leak: after the threads, a ring of its
 * own registers the buffer and keeps it until the run is judged, as a
 * registration the kernel never released would: true when it holds one.
 */
static bool leak_begin(struct tt *t, struct pinner *p)
{
	struct iovec iov = { .iov_base = t->base, .iov_len = t->len };

	if (!lp_test_fault("torture-pin-leak") || !t->mem_up)
		return false;
	*p = (struct pinner){ .entries = TT_RING_ENTRIES, .nowarn = true };
	if (lp_pinner_open(p, t->o))
		return false;
	if (!p->ops->table_pin(p, &iov, 1))
		return true;
	lp_pinner_close(p);
	return false;
}

static void leak_end(struct pinner *p, bool leaking)
{
	if (!leaking)
		return;
	p->ops->table_unpin(p);
	lp_pinner_close(p);
}

/* Without --size: 4 MiB, or 4 granules where a granule is 2 MiB or more. */
size_t lp_torture_default_size(const struct mem_ops *ops)
{
	return 4 * granule(ops) > 4 * MiB ? 4 * granule(ops) : 4 * MiB;
}

int lp_torture_run(const struct mem_ops *ops, const struct opts *o,
		const struct contract *c)
{
	struct tt t = { .o = o, .c = c, .ops = ops, .tfd = -1 };
	struct tt_thr h[TT_MAX_THREADS];
	uint64_t seed = lp_opt_given(o, OPT_SEED) ? o->seed :
			splitmix64(lp_now_ns() ^ (uint64_t)getpid() << 32);
	char names[160];
	struct tt_end e = { .rsvd0 = -1, .kmsg = -1 };
	struct pinner leak;
	bool leaking;
	size_t n;
	int ret;

	pthread_mutex_init(&t.layout, NULL);
	pthread_mutex_init(&t.lock, NULL);
	/* system-wide, like nr_foll_pin: not judged beside other pinners */
	if (!o->concurrent)
		e.rsvd0 = lp_rsvd_now();
	/* where a fall may be the known defect, each truncation's share */
	t.rsvd_judged = !o->concurrent && lp_contract_torture_rsvd(c, ops->name);
	ret = lp_csv_check(o->csv, lp_tt_header());
	if (ret == LP_OK)
		ret = tt_setup(&t);
	if (ret == LP_OK)
		ret = ops_check(&t);
	if (ret != LP_OK)
		goto out;
	fprintf(stderr, "longpin: torture seed %llu\n", (unsigned long long)seed);
	n = threads_pick(&t, h, names, sizeof(names));
	e.seed = seed;
	e.names = names;
	e.threads = n;
	e.vmpin0 = lp_vmpin_kb();
	/* exclusive: no other longpin pins while the counters judge this run */
	lp_pins_begin(&t.pins, !o->concurrent);
	e.kmsg = lp_kmsg_open();
	threads_run(&t, h, n, seed);
	leaking = leak_begin(&t, &leak);
	tt_teardown(&t);
	ret = lp_tt_finish(&t, h, n, &e);
	leak_end(&leak, leaking);
out:
	tt_teardown(&t);
	lp_pins_end(&t.pins);
	return ret;
}
