// SPDX-License-Identifier: GPL-2.0
/*
 * pin-row: a pinner row's pins against the contract's known leak
 * (harness/register/judge.c's lp_pin_row_judge(), as register.c's
 * lp_row_run() calls it with its pin window's figures, then
 * lp_row_judge()): a row whose leak is named reads "defect" only when exactly the buffer's device-dax pins leaked, "fixed" when
 * its pins balance, "fail" for any other leak, and "unchecked" (never
 * "pass") where the counters cannot tell the row's pins (--concurrent,
 * a pinner with I/O, none at all); any row reads "unchecked" where other
 * pinners moved the counters, and "fail" where fewer pins were acquired
 * than it took; a row without a known leak fails on any imbalance its
 * counters can see. And the checks beside the answer
 * (lp_row_checks()) fail a row on a page faulted where the contract says
 * none may be, a pin left or a bad data check; and the pins the window
 * must see acquired leave out a read-only pin's zero-page PTEs
 * (lp_pins_counted()). Exit 0, or 1 naming the first case that fails.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "register.h"

struct pins_case {
	const char *what;
	struct lp_pin_row p;
	int result;		/* the pin's answer (the contract's: 0) */
	const char *want;
	const char *note;	/* in the row's note */
};

static const struct pins_case cases[] = {
	{ "the devdax pins leaked, the named defect",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 1024, 0, 1024, false }, 0,
	  "defect", "the pins of the 1024 device-dax pages leaked" },
	{ "a known leak whose pins balance",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 1024, 1024, 1024, false }, 0,
	  "fixed", "its pins balance" },
	{ "a leak of other pages on a known-leak row",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 1024, 1000, 1024, false }, 0,
	  "fail", "pin leak of 24 pages" },
	{ "a leak on a known-leak row of no device-dax page",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 1024, 1024 - 512, 0, false }, 0,
	  "fail", "pin leak of 512 pages" },
	{ "more than the device-dax pages leaked",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 2048, 0, 1024, false }, 0,
	  "fail", "pin leak of 2048 pages, not the 1024 device-dax pages" },
	{ "one more pin released than taken, device-dax pages unknown",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 1024, 1025, -1, false }, 0,
	  "fail", "pin leak of -1 pages" },
	{ "a known-leak row answering otherwise",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 0, 0, 1024, false }, -EFAULT,
	  "fail", NULL },
	{ "a known-leak row whose unpin failed, its pins unbalanced",
	  { "vfio-reserved-unpin", NULL, NULL, NULL, 1024, 0, 1024, true }, 0,
	  "fail", "nr_foll_pin acquired 1024, released 0" },
	{ "a known leak, pins not counted: --concurrent",
	  { "vfio-reserved-unpin", "other processes pin meanwhile (--concurrent)", NULL, NULL,
	    1024, 0, 1024, false }, 0, "unchecked",
	  "not seen: pins not counted here: other processes pin meanwhile (--concurrent)" },
	{ "a known leak, no counters",
	  { "vfio-reserved-unpin", "no nr_foll_pin counters", NULL, NULL, -1, -1, 1024,
	    false }, 0, "unchecked", "known defect vfio-reserved-unpin not seen" },
	{ "a known leak, pins not counted, another answer",
	  { "vfio-reserved-unpin", "other processes pin meanwhile (--concurrent)", NULL, NULL,
	    0, 0, 1024, false }, -EFAULT, "fail", NULL },
	{ "no known leak, pins balanced",
	  { NULL, NULL, NULL, NULL, 1024, 1024, 0, false }, 0, "pass", NULL },
	{ "no known leak, a pin left",
	  { NULL, NULL, NULL, NULL, 1024, 1023, 0, false }, 0, "fail",
	  "nr_foll_pin acquired 1024, released 1023" },
	{ "other pinners moved the counters",
	  { NULL, NULL, "other pinners moved nr_foll_pin", NULL, 3000, 1000,
	    0, false }, 0, "unchecked", "leak check unchecked: other pinners" },
	{ "other pinners moved the counters, a known-leak row",
	  { "vfio-reserved-unpin", NULL, "other pinners moved nr_foll_pin",
	    NULL, 3000, 1000, 1024, false }, 0, "unchecked", "leak check unchecked" },
	{ "other pinners moved the counters, another answer",
	  { NULL, NULL, "other pinners moved nr_foll_pin", NULL, 3000, 1000,
	    0, false }, -EFAULT, "fail", NULL },
	{ "fewer pins acquired than the row took",
	  { NULL, NULL, NULL, "nr_foll_pin acquired +10, fewer than the 1024 pages",
	    10, 10, 0, false }, 0, "fail", "fewer than the 1024 pages" },
	{ "no known leak, pins not counted",
	  { NULL, "its I/O pins pages between the pin and the unpin", NULL, NULL, 1024,
	    0, 0, false }, 0, "pass", NULL },
};

/*
 * The checks beside the answer (lp_row_checks()): a page faulted where the
 * contract says none may be, a pin left, a cycle's other answer, the
 * data check.
 */
struct check_case {
	const char *what;
	bool nofault;
	long resident[2], dirty_kb[2], vmpin[3];
	const char *io_check;
	bool want;		/* the row fails */
};

static const struct check_case checks[] = {
	{ "nothing faulted", true, { 10, 10 }, { 40, 40 }, { 0, 4096, 0 }, "ok", false },
	{ "one page faulted where none may be", true, { 10, 11 }, { 40, 40 }, { 0, 4096, 0 }, "ok", true },
	{ "4 kB dirtied where none may be", true, { 10, 10 }, { 40, 44 }, { 0, 4096, 0 }, "ok", true },
	{ "pages reclaimed and cleaned meanwhile", true, { 10, 9 }, { 40, 36 }, { 0, 4096, 0 }, "ok", false },
	{ "pages faulted where the contract allows it", false, { 0, 1024 }, { 0, 4096 }, { 0, 4096, 0 }, "ok", false },
	{ "a pin left", false, { 0, 0 }, { 0, 0 }, { 0, 4096, 4 }, "ok", true },
	{ "VmPin unknown", false, { 0, 0 }, { 0, 0 }, { -1, -1, -1 }, "ok", false },
	{ "a data mismatch", false, { 0, 0 }, { 0, 0 }, { 0, 4096, 0 }, "mismatch", true },
	{ "a data check error", false, { 0, 0 }, { 0, 0 }, { 0, 4096, 0 }, "error", true },
	{ "the data check skipped", false, { 0, 0 }, { 0, 0 }, { 0, 4096, 0 }, "skipped", false },
};

/*
 * The least the window must see acquired (lp_pins_counted()): a
 * read-only pin's zero-page PTEs are not counted.
 */
static const struct { long pinned, zero, want; } counted[] = {
	{ 4096, 0, 4096 },	/* no zero page: every pin counts */
	{ 4096, 4096, 0 },	/* untouched anon pinned read-only */
	{ 4096, 1024, 3072 },	/* the holes of anon+hole */
	{ 1024, 4096, 0 },	/* a partial pin over a zero-page buffer */
	{ 0, 0, 0 },
};

static int check_counted(void)
{
	size_t i;
	long got;

	for (i = 0; i < ARRAY_SIZE(counted); i++) {
		got = lp_pins_counted(counted[i].pinned, counted[i].zero);
		if (got != counted[i].want) {
			printf("FAIL lp_pins_counted(%ld pinned, %ld zero): %ld, want %ld\n",
			       counted[i].pinned, counted[i].zero, got,
			       counted[i].want);
			return 1;
		}
	}
	return 0;
}

static int check_checks(void)
{
	const struct check_case *c;
	char note[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		struct row r = { .have_expected = true, .expected = -EFAULT,
				 .result = -EFAULT };

		c = &checks[i];
		r.nofault = c->nofault;
		memcpy(r.resident, c->resident, sizeof(r.resident));
		memcpy(r.dirty_kb, c->dirty_kb, sizeof(r.dirty_kb));
		memcpy(r.vmpin, c->vmpin, sizeof(r.vmpin));
		snprintf(r.io.check, sizeof(r.io.check), "%s", c->io_check);
		note[0] = '\0';
		if (lp_row_checks(&r, note, sizeof(note)) != c->want) {
			printf("FAIL lp_row_checks: %s: %s, want %s; note: %s\n",
			       c->what, c->want ? "passed" : "failed",
			       c->want ? "fail" : "pass", note);
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	const struct pins_case *c;
	enum row_defect d;
	char note[256];
	bool failed;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct row r = { .mem = "devdax", .op = "pin", .contract = "test",
				 .have_expected = true, .expected = 0,
				 .reg_ns = NAN, .unreg_ns = NAN };

		c = &cases[i];
		r.result = c->result;
		note[0] = '\0';
		d = DEFECT_NONE;
		failed = lp_pin_row_judge(&c->p, &r, &d, note, sizeof(note));
		lp_row_judge(&r, failed, d, note);
		if (strcmp(lp_verdict_name(r.verdict), c->want)) {
			printf("FAIL %s: %s, want %s; note: %s\n", c->what,
			       lp_verdict_name(r.verdict), c->want, note);
			return 1;
		}
		if (c->note && !strstr(note, c->note)) {
			printf("FAIL %s: note '%s' does not say '%s'\n", c->what,
			       note, c->note);
			return 1;
		}
	}
	if (check_checks() || check_counted())
		return 1;
	printf("ok: %zu pinner rows' pins judged, %zu rows' checks, %zu zero-page allowances\n",
	       ARRAY_SIZE(cases), ARRAY_SIZE(checks), ARRAY_SIZE(counted));
	return 0;
}
