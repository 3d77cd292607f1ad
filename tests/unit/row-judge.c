// SPDX-License-Identifier: GPL-2.0
/*
 * row-judge: the verdict of a row (harness/core/verdict.c's lp_row_judge()).
 * A contract's known defect changes only how an answer that matched the
 * contract's came out: a wrong answer stays "fail" whatever the defect
 * (a vfio devdax row answering -EFAULT where 0 is expected), a case whose
 * pages never left memory reads "unexercised", never "pass", "defect" or
 * "fixed". Exit 0, or 1 naming the first case that fails.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "longpin.h"

struct judge_case {
	const char *what;
	int result, expected;
	bool have_expected, failed, unexercised;
	enum row_defect d;
	const char *want;
	int want_ret;
	bool unchecked;		/* other pinners moved the pin counters */
};

static const struct judge_case cases[] = {
	{ "the expected answer", 0, 0, true, false, false, DEFECT_NONE, "pass", LP_OK },
	{ "another answer", -EFAULT, 0, true, false, false, DEFECT_NONE, "fail", LP_FAIL },
	{ "no contract row", 0, 0, false, false, false, DEFECT_NONE, "unchecked", LP_OK },
	{ "a check beside the answer failed", 0, 0, true, true, false, DEFECT_NONE, "fail", LP_FAIL },
	{ "a known leak that showed", 0, 0, true, false, false, DEFECT_SHOWN, "defect", LP_OK },
	{ "a known leak that did not show", 0, 0, true, false, false, DEFECT_ABSENT, "fixed", LP_OK },
	{ "a wrong answer on a known-leak row that balanced", -EFAULT, 0, true, false, false, DEFECT_ABSENT, "fail", LP_FAIL },
	{ "a wrong answer on a known-leak row that leaked", -EFAULT, 0, true, false, false, DEFECT_SHOWN, "fail", LP_FAIL },
	{ "a failed check on a known-leak row", 0, 0, true, true, false, DEFECT_ABSENT, "fail", LP_FAIL },
	{ "pages never left memory", 0, 0, true, false, true, DEFECT_NONE, "unexercised", LP_OK },
	{ "pages never left memory, a known loss row", 0, -EIO, true, false, true, DEFECT_NONE, "fail", LP_FAIL },
	{ "pages never left memory, defect absent", 0, 0, true, false, true, DEFECT_ABSENT, "unexercised", LP_OK },
	{ "unexercised and a failed check", 0, 0, true, true, true, DEFECT_NONE, "fail", LP_FAIL },
	{ "a loss row whose pages were all dirty before the unpin: kept", 0, -EIO, true, false, true, DEFECT_UNEXERCISED, "unexercised", LP_OK },
	{ "the same, and a failed check", 0, -EIO, true, true, true, DEFECT_UNEXERCISED, "fail", LP_FAIL },
	{ "a leak check other pinners left unchecked", 0, 0, true, false, false, DEFECT_NONE, "unchecked", LP_OK, true },
	{ "the same on a known-leak row", 0, 0, true, false, false, DEFECT_SHOWN, "unchecked", LP_OK, true },
	{ "unchecked, and a failed check (VmPin)", 0, 0, true, true, false, DEFECT_NONE, "fail", LP_FAIL, true },
	{ "unchecked, and another answer", -EFAULT, 0, true, false, false, DEFECT_NONE, "fail", LP_FAIL, true },
	{ "unchecked, and pages never left memory", 0, 0, true, false, true, DEFECT_NONE, "unexercised", LP_OK, true },
	{ "a known loss whose data survived", 0, -EIO, true, false, false, DEFECT_ABSENT, "fixed", LP_OK },
	{ "a known loss that showed", -EIO, -EIO, true, false, false, DEFECT_SHOWN, "defect", LP_OK },
	{ "a known loss row answering another errno", -EFAULT, -EIO, true, false, false, DEFECT_ABSENT, "fail", LP_FAIL },
	{ "a known loss said shown on an answer of 0", 0, -EIO, true, false, false, DEFECT_SHOWN, "fail", LP_FAIL },
	{ "a known loss whose data survived, no contract row", 0, -EIO, false, false, false, DEFECT_ABSENT, "unchecked", LP_OK },
};

int main(void)
{
	const struct judge_case *c;
	char note[64];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct row r = { .mem = "devdax", .op = "pin", .contract = "test",
				 .reg_ns = NAN, .unreg_ns = NAN };

		c = &cases[i];
		r.result = c->result;
		r.expected = c->expected;
		r.have_expected = c->have_expected;
		r.unexercised = c->unexercised ? "no page left memory" : NULL;
		r.unchecked = c->unchecked ? "other pinners moved nr_foll_pin" : NULL;
		note[0] = '\0';
		ret = lp_row_judge(&r, c->failed, c->d, note);
		if (strcmp(lp_verdict_name(r.verdict), c->want) || ret != c->want_ret) {
			printf("FAIL %s: %s (exit %d), want %s (exit %d)\n",
			       c->what, lp_verdict_name(r.verdict), ret, c->want, c->want_ret);
			return 1;
		}
	}
	printf("ok: %zu rows judged\n", ARRAY_SIZE(cases));
	return 0;
}
