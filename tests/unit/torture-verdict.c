// SPDX-License-Identifier: GPL-2.0
/*
 * torture-verdict: a --torture run's verdict (harness/torture/torture_row.c)
 * reads "defect" only when the one thing wrong is HugePages_Rsvd falling
 * by a kernel defect that the contract names for the memory type; a rise
 * of the count, or anything else wrong beside it, stays "fail". And every
 * contract names hugetlb-truncate-race for memfd-hugetlb alone
 * (common.inc's "torture" row). Exit 0, or 1 naming the first case that
 * fails.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "longpin.h"
#include "torture.h"

struct fell_case {
	const char *what;
	long before, after, total;
	bool want;
};

static const struct fell_case fells[] = {
	{ "one reservation given back twice", 3, 2, 16, true },
	{ "a count taken below 0 reads huge", 0, LONG_MAX, 16, true },
	{ "a count back where it was", 3, 3, 16, false },
	{ "a leaked reservation (the count rose)", 3, 5, 16, false },
	{ "every page reserved", 0, 16, 16, false },
};

/* a fall the truncations can explain: at most one per huge page cut */
struct explained_case {
	const char *what;
	long fell, cut;
	bool want;
};

static const struct explained_case explained[] = {
	{ "one page, one truncation of it", 1, 1, true },
	{ "three pages of eight cut", 3, 8, true },
	{ "no truncation cut a page", 1, 0, false },
	{ "more than every page cut", 9, 8, false },
	{ "no fall", 0, 8, false },
};

struct verdict_case {
	const char *what;
	bool bad, moved, known, unchecked;
	const char *want;
};

static const struct verdict_case verdicts[] = {
	{ "nothing wrong", false, false, false, false, "pass" },
	{ "no contract row, nothing wrong", false, false, false, true, "unchecked" },
	{ "a bad answer", true, false, false, false, "fail" },
	{ "Rsvd moved, no known defect", false, true, false, false, "fail" },
	{ "Rsvd fell by the known defect", false, true, true, false, "defect" },
	{ "the known defect and a bad answer", true, true, true, false, "fail" },
	{ "the known defect, no contract row for answers", false, true, true, true, "defect" },
};

static const char *const contracts[] = {
	"linux-6.1", "longpin", "linux-6.5+", "longpin-6.12",
};

static const char *const not_named[] = {
	"hugetlb", "sysv-shm-huge", "memfd", "anon", "tmpfs-shared",
};

static int check_contracts(void)
{
	const struct contract *c;
	const char *name;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(contracts); i++) {
		c = contract_by_name(contracts[i]);
		if (!c) {
			printf("FAIL contract %s: not embedded\n", contracts[i]);
			return 1;
		}
		name = contract_torture_rsvd(c, "memfd-hugetlb");
		if (!name || strcmp(name, "hugetlb-truncate-race")) {
			printf("FAIL contract %s: memfd-hugetlb's Rsvd defect is %s, want hugetlb-truncate-race\n",
			       contracts[i], name ? name : "none");
			return 1;
		}
		for (j = 0; j < ARRAY_SIZE(not_named); j++) {
			name = contract_torture_rsvd(c, not_named[j]);
			if (name) {
				printf("FAIL contract %s: %s has a Rsvd defect (%s), want none\n",
				       contracts[i], not_named[j], name);
				return 1;
			}
		}
	}
	return 0;
}

int main(void)
{
	const struct verdict_case *v;
	const struct fell_case *f;
	const char *got;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fells); i++) {
		f = &fells[i];
		if (rsvd_fell(f->before, f->after, f->total) != f->want) {
			printf("FAIL rsvd_fell: %s: %d, want %d\n", f->what,
			       !f->want, f->want);
			return 1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(explained); i++) {
		if (rsvd_explained(explained[i].fell, explained[i].cut) !=
		    explained[i].want) {
			printf("FAIL rsvd_explained: %s: %d, want %d\n",
			       explained[i].what, !explained[i].want,
			       explained[i].want);
			return 1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(verdicts); i++) {
		v = &verdicts[i];
		got = tt_verdict(v->bad, v->moved, v->known, v->unchecked);
		if (strcmp(got, v->want)) {
			printf("FAIL verdict: %s: %s, want %s\n", v->what, got,
			       v->want);
			return 1;
		}
	}
	if (check_contracts())
		return 1;
	printf("ok: %zu Rsvd readings, %zu falls, %zu verdicts, %zu contracts\n",
	       ARRAY_SIZE(fells), ARRAY_SIZE(explained),
	       ARRAY_SIZE(verdicts),
	       ARRAY_SIZE(contracts));
	return 0;
}
