// SPDX-License-Identifier: GPL-2.0
/*
 * pageout: the page-out rule of the lifetime cases reclaim,
 * reclaim-pinned and lazyfree (harness/lifetime/lt_reclaim.c's
 * lp_pageout_judge()), on the figures a case counts page by page after
 * the page-out. Exit 0, or 1 naming the first case that fails.
 */
#include <stdio.h>

#include "lifetime.h"

struct po_case {
	const char *what;
	struct lp_pageout p;
	enum lp_pageout_res want;
};

static const char *const names[] = {
	[LP_PO_KEPT] = "kept", [LP_PO_LOST] = "lost",
	[LP_PO_NONE_OUT] = "none out", [LP_PO_ALL_DIRTY] = "all dirty",
	[LP_PO_STAYED_LOST] = "lost where none left",
	[LP_PO_DIRTY_LOST] = "lost though all dirty",
	[LP_PO_PARTIAL] = "not every page out",
};

/* 1,024 pages of 4 KiB: a buffer of 4 MiB, 4,096 kB */
static const struct po_case cases[] = {
	{ "every page out, every page back whole",
	  { 1024, 1024, 1024, 0, 0, 0 }, LP_PO_KEPT },
	{ "every page out, every byte of them lost",
	  { 1024, 1024, 0, 4194304, 0, 0 }, LP_PO_LOST },
	{ "one page out and lost",
	  { 1024, 1, 1023, 4096, 0, 0 }, LP_PO_LOST },
	{ "no page out, nothing changed",
	  { 1024, 0, 1024, 0, 0, 0 }, LP_PO_NONE_OUT },
	{ "no page out, bytes changed",
	  { 1024, 0, 1023, 0, 100, 0 }, LP_PO_STAYED_LOST },
	{ "every page dirty at the unpin, kept",
	  { 1024, 1024, 1024, 0, 0, 4096 }, LP_PO_ALL_DIRTY },
	{ "one page clean at the unpin, kept",
	  { 1024, 1024, 1024, 0, 0, 4092 }, LP_PO_KEPT },
	{ "dirty kB unknown, kept",
	  { 1024, 1024, 1024, 0, 0, -1 }, LP_PO_KEPT },
	{ "every page dirty, no page out",
	  { 1024, 0, 1024, 0, 0, 4096 }, LP_PO_NONE_OUT },
	{ "every page dirty at the unpin, some kB over (THP), kept",
	  { 1024, 1024, 1024, 0, 0, 6144 }, LP_PO_ALL_DIRTY },
	{ "every page dirty at the unpin, bytes of pages out lost",
	  { 1024, 1024, 0, 4194304, 0, 4096 }, LP_PO_DIRTY_LOST },
	{ "1,001 of 1,024 pages out, every page back whole",
	  { 1024, 1001, 1024, 0, 0, 0 }, LP_PO_PARTIAL },
	{ "1,023 of 1,024 pages out, every page back whole",
	  { 1024, 1023, 1024, 0, 0, 0 }, LP_PO_PARTIAL },
	{ "1,023 of 1,024 pages out, each of them lost",
	  { 1024, 1023, 1, 4190208, 0, 0 }, LP_PO_LOST },
	{ "pages out lost, and bytes changed on a page that stayed",
	  { 1024, 1000, 0, 4096000, 100, 0 }, LP_PO_STAYED_LOST },
	{ "every page out but one, which changed",
	  { 1024, 1023, 1023, 0, 4096, 0 }, LP_PO_STAYED_LOST },
};

int main(void)
{
	enum lp_pageout_res got;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		got = lp_pageout_judge(&cases[i].p);
		if (got != cases[i].want) {
			printf("FAIL %s: %s, want %s\n", cases[i].what,
			       names[got], names[cases[i].want]);
			return 1;
		}
	}
	printf("ok: %zu page-outs judged\n", ARRAY_SIZE(cases));
	return 0;
}
