// SPDX-License-Identifier: GPL-2.0
/*
 * contract: the contract matcher (harness/core/contract.c) on the
 * embedded contracts. Which contract describes a kernel release: every
 * match line must hold, their scores add (a release over a ">=" version
 * over nothing), the higher ">=" version breaks a tie, and a kernel no
 * contract describes has none. Which row answers: the first that
 * matches, by pinner (a whole name of the row's list), prefault and size
 * (">1G" is above 1 GiB only), and the flags of that row (nofault, a
 * known loss, a known leak). Exit 0, 1 naming the first case that
 * fails, or 77 on a kernel whose own vm events choose a contract
 * whatever the release (ours: gup_longterm_fast_pages).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "longpin.h"

struct select_case {
	const char *release;
	const char *want;	/* NULL: no contract */
};

static const struct select_case selects[] = {
	{ "6.1.192", "linux-6.1" },
	{ "6.1.0-57-amd64", "linux-6.1" },
	{ "6.4.16", NULL },
	{ "6.5.0", "linux-6.5+" },
	{ "6.12.118+deb12-amd64", "linux-6.5+" },
	{ "6.18.44-fc-v1300", "linux-6.5+" },
	{ "7.1.3", "linux-6.5+" },
	{ "7.2.0", "linux-7.2+" },
	{ "7.2.13+deb14-amd64", "linux-7.2+" },
	{ "8.0.1", "linux-7.2+" },
	{ "6.12.118-longpin", "longpin-6.12" },
	{ "7.2.13-longpin", "longpin-7.2" },
	{ "5.4.0-test", NULL },
};

struct lookup_case {
	const char *contract, *pinner, *mem;
	enum prefault pf;
	size_t size;
	bool found;
	int want;
	bool nofault;
};

#define M4	(4 * MiB)

static const struct lookup_case lookups[] = {
	/* the prefault of a row: fsdax-private registers on 6.5+ once written */
	{ "linux-6.5+", NULL, "fsdax-private", PF_NONE, M4, true, -EOPNOTSUPP, false },
	{ "linux-6.5+", NULL, "fsdax-private", PF_READ, M4, true, -EOPNOTSUPP, false },
	{ "linux-6.5+", NULL, "fsdax-private", PF_WRITE, M4, true, 0, false },
	/* the size: above 1 GiB refused to 6.18, taken from 7.2 */
	{ "linux-6.5+", NULL, "anon", PF_WRITE, GiB, true, 0, false },
	{ "linux-6.5+", NULL, "anon", PF_WRITE, GiB + 4096, true, -EFAULT, false },
	{ "linux-7.2+", NULL, "anon", PF_WRITE, GiB + 4096, true, 0, false },
	/* the flags: refused before any fault */
	{ "linux-6.5+", NULL, "file-shared", PF_WRITE, M4, true, -EFAULT, true },
	{ "linux-6.1", NULL, "file-shared", PF_WRITE, M4, true, -EOPNOTSUPP, false },
	/* the pinner: its own rows, a whole name of the row's list */
	{ "linux-6.1", "gup", "file-shared", PF_WRITE, M4, true, 0, false },
	{ "linux-6.5+", "gup", "file-shared", PF_WRITE, M4, true, -LP_REFUSED, true },
	{ "linux-6.5+", "gup/ro", "file-shared", PF_WRITE, M4, true, 0, false },
	{ "linux-6.5+", "gup-fast", "fsdax-private", PF_WRITE, M4, true, 0, false },
	{ "linux-6.5+", "gup", "fsdax-private", PF_WRITE, M4, true, -LP_REFUSED, false },
	{ "linux-6.5+", "vfio", "file-shared", PF_WRITE, M4, true, -EFAULT, true },
	{ "linux-6.5+", "io_uring", "file-shared", PF_WRITE, M4, true, -EFAULT, true },
};

struct case_case {
	const char *contract, *lcase, *mem;
	enum prefault pf;
	bool found;
	int want;
	bool defect;
};

static const struct case_case cases[] = {
	{ "linux-6.5+", "reclaim", "memfd", PF_READ, true, -EIO, true },
	{ "linux-6.5+", "reclaim", "memfd", PF_WRITE, false, 0, false },
	{ "linux-6.5+", "reclaim", "mixed", PF_READ, false, 0, false },
	{ "linux-6.5+", "lazyfree", "anon", PF_NONE, true, -EIO, true },
	{ "longpin-6.12", "reclaim", "memfd", PF_READ, false, 0, false },
};

struct leak_case {
	const char *contract, *pinner, *mem;
	const char *want;
};

static const struct leak_case leaks[] = {
	{ "linux-6.5+", "vfio", "devdax", "vfio-reserved-unpin" },
	{ "linux-6.5+", "vfio/ro", "anon+devdax", "vfio-reserved-unpin" },
	{ "linux-6.1", "vfio", "devdax", "vfio-reserved-unpin" },
	{ "linux-6.5+", "gup", "devdax", NULL },
	{ "linux-6.5+", "vfio", "anon", NULL },
	{ "longpin-6.12", "vfio", "devdax", NULL },
};

static const struct contract *named(const char *name)
{
	const struct contract *c = lp_contract_by_name(name);

	if (!c)
		printf("FAIL contract %s is not embedded\n", name);
	return c;
}

static int check_selects(void)
{
	const struct contract *c;
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(selects); i++) {
		setenv("LONGPIN_KERNEL_RELEASE", selects[i].release, 1);
		c = lp_contract_select(&why);
		if (c ? !selects[i].want || strcmp(lp_contract_name(c), selects[i].want) :
			!!selects[i].want) {
			printf("FAIL release %s: %s, want %s (%s)\n",
			       selects[i].release, lp_contract_name(c),
			       selects[i].want ? selects[i].want : "none", why);
			return 1;
		}
	}
	unsetenv("LONGPIN_KERNEL_RELEASE");
	return 0;
}

static int check_lookups(void)
{
	const struct lookup_case *l;
	const struct case_case *k;
	const struct leak_case *x;
	const struct contract *c;
	bool found, flag;
	const char *got;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(lookups); i++) {
		l = &lookups[i];
		c = named(l->contract);
		if (!c)
			return 1;
		err = 1;
		flag = false;
		found = lp_contract_lookup_pinner(c, l->pinner, l->mem, l->pf,
					       l->size, &err, &flag);
		if (found != l->found || (found && (err != l->want || flag != l->nofault))) {
			printf("FAIL %s %s %s %s %zu: found %d, %d%s; want %d, %d%s\n",
			       l->contract, l->pinner ? l->pinner : "(io_uring)",
			       l->mem, lp_prefault_name(l->pf), l->size, found,
			       err, flag ? " nofault" : "", l->found, l->want,
			       l->nofault ? " nofault" : "");
			return 1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		k = &cases[i];
		c = named(k->contract);
		if (!c)
			return 1;
		err = 1;
		flag = false;
		found = lp_contract_lookup_case(c, k->lcase, k->mem, k->pf, M4, &err,
					     &flag);
		if (found != k->found || (found && (err != k->want || flag != k->defect))) {
			printf("FAIL %s lifetime %s %s %s: found %d, %d%s; want %d, %d%s\n",
			       k->contract, k->lcase, k->mem,
			       lp_prefault_name(k->pf), found, err,
			       flag ? " defect" : "", k->found, k->want,
			       k->defect ? " defect" : "");
			return 1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(leaks); i++) {
		x = &leaks[i];
		c = named(x->contract);
		if (!c)
			return 1;
		got = lp_contract_leak(c, x->pinner, x->mem, PF_WRITE, M4);
		if (got ? !x->want || strcmp(got, x->want) : !!x->want) {
			printf("FAIL %s %s %s: leak %s, want %s\n", x->contract,
			       x->pinner, x->mem, got ? got : "none",
			       x->want ? x->want : "none");
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	if (lp_vmstat_value("gup_longterm_fast_pages") >= 0) {
		printf("SKIP: this kernel has our series' vm events, which choose the contract longpin whatever the release\n");
		return 77;
	}
	if (check_selects() || check_lookups())
		return 1;
	printf("ok: %zu releases, %zu answers, %zu lifetime rows, %zu leaks\n",
	       ARRAY_SIZE(selects), ARRAY_SIZE(lookups), ARRAY_SIZE(cases),
	       ARRAY_SIZE(leaks));
	return 0;
}
