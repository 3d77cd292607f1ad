// SPDX-License-Identifier: GPL-2.0
/*
 * lt-row: the verdict of a lifetime row (harness/lifetime/lt_row.c's
 * lp_lt_emit(), which judges with lp_row_judge()). A row whose contract names
 * a known loss (-EIO defect) reads "defect" only when the loss showed
 * and every other step held, "fixed" when the data survived pages that
 * left memory, "unexercised" when the case did not happen, and "fail"
 * otherwise; a row without a known defect passes only on its expected
 * answer. Exit 0, or 1 naming the first case that fails.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lifetime.h"

struct row_case {
	const char *what;
	bool unchecked;		/* no contract describes the kernel */
	bool defect;		/* the contract names the loss (-EIO defect) */
	bool have_expected;	/* the contract has a row */
	int expected, result;
	bool lost;		/* bytes of pages that left memory are gone */
	bool failed;		/* a check beside the answer failed */
	bool unexercised;	/* the case did not happen */
	const char *want;
	int want_ret;
	const char *note;	/* in the row's note, or NULL */
};

static const struct row_case cases[] = {
	{ "a known loss that showed", false, true, true, -EIO, -EIO, true, false,
	  false, "defect", LP_OK, NULL },
	{ "a known loss whose data survived the page-out", false, true, true, -EIO,
	  0, false, false, false, "fixed", LP_OK, "did not show" },
	{ "a known loss row that did not happen", false, true, true, -EIO, 0, false,
	  false, true, "unexercised", LT_UNEXERCISED, NULL },
	{ "a known loss row answering -EIO for a failed check", false, true, true,
	  -EIO, -EIO, false, true, false, "fail", LP_FAIL,
	  "not the contract's known defect" },
	{ "a known loss row whose loss showed beside a failed check", false, true,
	  true, -EIO, -EIO, true, true, false, "fail", LP_FAIL, NULL },
	{ "a known loss row, -EIO but no byte of a page out lost", false, true, true,
	  -EIO, -EIO, false, false, false, "fail", LP_FAIL, NULL },
	{ "a known loss row answering another errno", false, true, true, -EIO,
	  -EFAULT, false, false, false, "fail", LP_FAIL, NULL },
	{ "a known loss row that kept its data beside a failed check", false, true,
	  true, -EIO, 0, false, true, false, "fail", LP_FAIL, NULL },
	{ "the expected answer", false, false, true, 0, 0, false, false, false,
	  "pass", LP_OK, NULL },
	{ "data lost where the contract expects it kept", false, false, true, 0,
	  -EIO, true, false, false, "fail", LP_FAIL, NULL },
	{ "a row that did not happen", false, false, true, 0, 0, false, false, true,
	  "unexercised", LT_UNEXERCISED, NULL },
	{ "no contract row: 0 expected", false, false, false, 0, 0, false, false,
	  false, "pass", LP_OK, NULL },
	{ "no contract row, a failed check of the case", false, false, false, 0,
	  -EIO, false, false, false, "fail", LP_FAIL, NULL },
	{ "no contract at all", true, false, false, 0, 0, false, false, false,
	  "unchecked", LP_OK, NULL },
	{ "no contract at all, a failed check of the case", true, false,
	  false, 0, -EIO, false, false, false, "fail", LP_FAIL, NULL },
};

int main(void)
{
	static struct opts o = { .quiet = true, .lcase = "reclaim" };
	const struct row_case *c;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		static struct lt t;

		c = &cases[i];
		memset(&t, 0, sizeof(t));
		t.o = &o;
		t.r = (struct row){ .mem = "memfd", .pf = PF_READ,
				    .contract = "test", .kernel = "test" };
		t.r.have_expected = c->have_expected;
		t.r.expected = c->expected;
		t.r.unexercised = c->unexercised ? "no page left memory" : NULL;
		t.unchecked = c->unchecked;
		t.defect = c->defect;
		t.lost = c->lost;
		t.failed = c->failed;
		strcpy(t.check, c->lost ? "mismatch" : "ok");
		ret = lp_lt_emit(&t, "lifetime-reclaim", c->result);
		if (strcmp(lp_verdict_name(t.r.verdict), c->want) || ret != c->want_ret) {
			printf("FAIL %s: %s (returned %d), want %s (%d); note: %s\n",
			       c->what, lp_verdict_name(t.r.verdict), ret, c->want, c->want_ret,
			       t.r.note);
			return 1;
		}
		if (c->note && !strstr(t.r.note, c->note)) {
			printf("FAIL %s: note '%s' does not say '%s'\n", c->what,
			       t.r.note, c->note);
			return 1;
		}
	}
	printf("ok: %zu lifetime rows judged\n", ARRAY_SIZE(cases));
	return 0;
}
