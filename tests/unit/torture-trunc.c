// SPDX-License-Identifier: GPL-2.0
/*
 * torture-trunc: how much of a HugePages_Rsvd fall torture's truncations
 * can explain (harness/torture/: lp_trunc_resv(), and the trunc thread's
 * step that adds each truncation's share to t->trunc_resv). The known
 * defect hugetlb-truncate-race gives back twice only a reservation that a
 * truncation gave back of a page it cut while that held no page: a
 * truncation of a file whose every page is there can explain nothing,
 * however many pages it cuts. Run on a memfd (tmpfs: its blocks are
 * counted as hugetlbfs's are). Exit 0, or 1 naming the first case that
 * fails.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "torture.h"

struct resv_case {
	const char *what;
	long cut, freed, fell;
	bool fell_known;
	long want;
};

static const struct resv_case resv[] = {
	{ "every page cut held one", 4, 4, 0, false, 0 },
	{ "two of four cut held none, Rsvd unread", 4, 2, 0, false, 2 },
	{ "two held none, Rsvd fell by one", 4, 2, 1, true, 1 },
	{ "two held none, Rsvd fell by three", 4, 2, 3, true, 2 },
	{ "two held none, Rsvd rose", 4, 2, -1, true, 0 },
	{ "faults filled pages meanwhile (freed below 0)", 3, -2, 5, true, 3 },
	{ "more freed than cut (faults past the cut)", 2, 3, 2, true, 0 },
	{ "nothing cut", 0, 0, 0, false, 0 },
};

#define PAGES	16

/* the trunc thread's op (harness/torture/torture_ops.c) */
static const struct tt_op *trunc_op(void)
{
	const struct tt_op *op;
	size_t i;

	for (i = 0; (op = lp_tt_op_nth(i)); i++)
		if (!strcmp(op->name, "trunc"))
			return op;
	return NULL;
}

/* Every page of the file written (again): the file holds all of them. */
static void fill(struct tt *t)
{
	memset(t->base, 0x5a, t->len);
}

static int check_steps(void)
{
	const struct tt_op *op = trunc_op();
	static struct tt t;
	struct tt_thr h = { .t = &t, .rng = 0x9e3779b97f4a7c15ULL };
	unsigned long cut_max;
	int i, fd;

	if (!op) {
		printf("FAIL no trunc op in torture_ops.c's table\n");
		return 1;
	}
	memset(&t, 0, sizeof(t));
	pthread_mutex_init(&t.lock, NULL);
	t.deadline = UINT64_MAX;
	t.len = PAGES * 4096;
	t.gran = 4096;
	fd = memfd_create("torture-trunc", 0);
	if (fd < 0 || ftruncate(fd, t.len)) {
		printf("FAIL memfd_create: %m\n");
		return 1;
	}
	t.m.fd = fd;
	t.base = mmap(NULL, t.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t.base == MAP_FAILED) {
		printf("FAIL mmap: %m\n");
		return 1;
	}
	/* each truncation of a whole file: nothing to explain */
	for (i = 0; i < 40; i++) {
		fill(&t);
		op->step(&h);
		if (t.trunc_resv) {
			printf("FAIL step %d of a whole file: trunc_resv %lu after %lu truncations, want 0\n",
			       i, t.trunc_resv, t.cnt[TC_TRUNCATE]);
			return 1;
		}
	}
	if (!t.cnt[TC_TRUNCATE] || t.cnt[TC_OP_ERR] || t.cnt[TC_HARNESS_ERR]) {
		printf("FAIL 40 steps: %lu truncations, op_err %lu, harness_err %lu\n",
		       t.cnt[TC_TRUNCATE], t.cnt[TC_OP_ERR],
		       t.cnt[TC_HARNESS_ERR]);
		return 1;
	}
	/* the holes a truncation left, cut again: some, never more than cut */
	for (i = 0; i < 40; i++)
		op->step(&h);
	cut_max = t.cnt[TC_TRUNCATE] * PAGES;
	if (!t.trunc_resv || t.trunc_resv > cut_max) {
		printf("FAIL 40 steps leaving holes: trunc_resv %lu, want 1 to %lu\n",
		       t.trunc_resv, cut_max);
		return 1;
	}
	/*
	 * HugePages_Rsvd read around each truncation (a tmpfs file moves it
	 * not), while an op that reserves is in flight (remap's mmap): the
	 * fall is not the truncation's own, so the holes alone bound it
	 */
	t.trunc_resv = 0;
	t.rsvd_judged = true;
	lp_tt_resv_begin(&t);
	for (i = 0; i < 40; i++)
		op->step(&h);
	lp_tt_resv_end(&t);
	if (!t.trunc_resv) {
		printf("FAIL 40 steps leaving holes, a reserving op in flight: trunc_resv 0, want the holes cut\n");
		return 1;
	}
	munmap(t.base, t.len);
	close(fd);
	return 0;
}

int main(void)
{
	const struct resv_case *c;
	long got;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(resv); i++) {
		c = &resv[i];
		got = lp_trunc_resv(c->cut, c->freed, c->fell, c->fell_known);
		if (got != c->want) {
			printf("FAIL lp_trunc_resv: %s: %ld, want %ld\n", c->what,
			       got, c->want);
			return 1;
		}
	}
	if (check_steps())
		return 1;
	printf("ok: %zu truncations' shares, a whole file's truncations explain nothing\n",
	       ARRAY_SIZE(resv));
	return 0;
}
