// SPDX-License-Identifier: GPL-2.0
/*
 * torture-verdict: a --torture run's verdict (harness/torture/torture_row.c)
 * reads "defect" only when the one thing wrong is HugePages_Rsvd falling
 * by a kernel defect that the contract names for the memory type; a rise
 * of the count, or anything else wrong beside it, stays "fail". And every
 * contract names hugetlb-truncate-race for memfd-hugetlb alone
 * (common.inc's "torture" row). A registration's -EFAULT is excused as
 * a race only when an op that changes the layout ran during that very
 * call. Exit 0, or 1 naming the first case that fails.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
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

/*
 * A registration's answer (lp_tt_judge_reg()): the contract's answer, or
 * -EFAULT excused only when an op that may leave a range unmapped,
 * read-only or past EOF (remap, mremap, trunc, mprotect) ran during that
 * very call: it was running when the call began (@active), or began or
 * ended before the call returned (@during).
 */
struct reg_case {
	const char *what;
	int ret;
	bool efault_race;	/* such an op is among the run's threads */
	bool unchecked;		/* no contract row for the type */
	bool active, during;
	enum tt_cnt want;
};

static const struct reg_case regs[] = {
	{ "the contract's answer", 0, true, false, false, false, TC_REG_OK },
	{ "the contract's answer while a layout op runs", 0, true, false, true, false, TC_REG_OK },
	{ "-EFAULT, no layout op during the call", -EFAULT, true, false, false, false, TC_REG_BAD },
	{ "-EFAULT, a layout op running as the call began", -EFAULT, true, false, true, false, TC_REG_RACED },
	{ "-EFAULT, a layout op begun and ended during the call", -EFAULT, true, false, false, true, TC_REG_RACED },
	{ "-EFAULT, a layout op running, none enabled", -EFAULT, false, false, true, true, TC_REG_BAD },
	{ "another errno while a layout op runs", -ENOMEM, true, false, true, true, TC_REG_BAD },
	{ "-EFAULT, no contract row for the type", -EFAULT, true, true, false, false, TC_REG_REFUSED },
	{ "0, no contract row for the type", 0, false, true, false, false, TC_REG_OK },
	{ "a refusal the contract does not give", -EOPNOTSUPP, true, false, false, false, TC_REG_BAD },
};

static int check_regs(void)
{
	static const enum tt_cnt outcomes[] = {
		TC_REG_OK, TC_REG_REFUSED, TC_REG_RACED, TC_REG_BAD,
	};
	const struct reg_case *c;
	struct tt_snap snap;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(regs); i++) {
		static struct tt t;
		struct tt_thr h = { .t = &t };

		c = &regs[i];
		memset(&t, 0, sizeof(t));
		pthread_mutex_init(&t.lock, NULL);
		t.deadline = UINT64_MAX;
		t.answers[0] = 0;
		t.nanswers = 1;
		t.efault_race = c->efault_race;
		t.unchecked = c->unchecked;
		if (c->active)
			lp_tt_lay_begin(&t);
		snap = lp_tt_snap_take(&t);
		if (c->during) {
			lp_tt_lay_begin(&t);
			lp_tt_lay_end(&t);
		}
		lp_tt_judge_reg(&h, c->ret, "register", &snap);
		for (j = 0; j < ARRAY_SIZE(outcomes); j++) {
			if (t.cnt[outcomes[j]] == (outcomes[j] == c->want))
				continue;
			printf("FAIL lp_tt_judge_reg: %s: counted %s %lu, want %s\n",
			       c->what, lp_tt_cnt_names[outcomes[j]],
			       t.cnt[outcomes[j]], lp_tt_cnt_names[c->want]);
			return 1;
		}
		if (c->want == TC_REG_BAD && !strstr(t.note, "register answered")) {
			printf("FAIL lp_tt_judge_reg: %s: note '%s' names no bad answer\n",
			       c->what, t.note);
			return 1;
		}
	}
	return 0;
}

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
		c = lp_contract_by_name(contracts[i]);
		if (!c) {
			printf("FAIL contract %s: not embedded\n", contracts[i]);
			return 1;
		}
		name = lp_contract_torture_rsvd(c, "memfd-hugetlb");
		if (!name || strcmp(name, "hugetlb-truncate-race")) {
			printf("FAIL contract %s: memfd-hugetlb's Rsvd defect is %s, want hugetlb-truncate-race\n",
			       contracts[i], name ? name : "none");
			return 1;
		}
		for (j = 0; j < ARRAY_SIZE(not_named); j++) {
			name = lp_contract_torture_rsvd(c, not_named[j]);
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
		if (lp_rsvd_fell(f->before, f->after, f->total) != f->want) {
			printf("FAIL lp_rsvd_fell: %s: %d, want %d\n", f->what,
			       !f->want, f->want);
			return 1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(explained); i++) {
		if (lp_rsvd_explained(explained[i].fell, explained[i].cut) !=
		    explained[i].want) {
			printf("FAIL lp_rsvd_explained: %s: %d, want %d\n",
			       explained[i].what, !explained[i].want,
			       explained[i].want);
			return 1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(verdicts); i++) {
		v = &verdicts[i];
		got = lp_verdict_name(lp_tt_verdict(v->bad, v->moved, v->known,
						    v->unchecked));
		if (strcmp(got, v->want)) {
			printf("FAIL verdict: %s: %s, want %s\n", v->what, got,
			       v->want);
			return 1;
		}
	}
	if (check_contracts() || check_regs())
		return 1;
	printf("ok: %zu Rsvd readings, %zu falls, %zu verdicts, %zu contracts, %zu registration answers\n",
	       ARRAY_SIZE(fells), ARRAY_SIZE(explained),
	       ARRAY_SIZE(verdicts), ARRAY_SIZE(contracts), ARRAY_SIZE(regs));
	return 0;
}
