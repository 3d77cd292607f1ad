// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of the lifetime cases: the answer each expects (the
 * contract's row for TYPE and the pinner, or 0), how a known defect came
 * out, and the row judged, printed and written; a skip row for a case
 * that did not run at a prefault.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lifetime.h"

/* The row expects the contract's answer for TYPE, if it has one. */
bool lp_lt_expect(struct lt *t)
{
	bool nofault;
	char key[32];

	t->r.have_expected = lp_contract_lookup_pinner(t->c,
		lp_pinner_key(key, sizeof(key), t->o), t->ops->name, t->pf,
		t->m.len, &t->r.expected, &nofault);
	return t->r.have_expected;
}

/*
 * On a row whose contract names a known defect (data lost after the
 * unpin and reclaim, answered -EIO): "defect" only when that is what
 * happened, every step before the compare held and no other check
 * failed; "fixed" when the data survived (the contract is stale there);
 * anything else fails, with its own cause in the note.
 */
static enum row_defect defect_of(struct lt *t, int result)
{
	if (!result && !t->failed && t->r.unexercised)
		return DEFECT_UNEXERCISED;
	if (!result && !t->failed) {
		lp_lt_note(t, "the contract's known defect (-%s, data lost) did not show: the data survived; correct the contract if this kernel keeps it",
			lp_errno_name(t->r.expected));
		return DEFECT_ABSENT;
	}
	if (result == t->r.expected && t->lost && !t->failed)
		return DEFECT_SHOWN;
	t->failed = true;
	lp_lt_note(t, "not the contract's known defect (data lost after reclaim): a failure of its own");
	return DEFECT_NONE;
}

/* Judge, print and write one row; returns its exit status. */
int lp_lt_emit(struct lt *t, const char *op, int result)
{
	enum row_defect d = DEFECT_NONE;
	struct row *r = &t->r;
	int ret;

	r->result = result;
	r->op = op;
	if (!r->have_expected && !t->unchecked) {
		r->have_expected = true;
		r->expected = 0;
	}
	snprintf(r->io.check, sizeof(r->io.check), "%s", t->check);
	if (t->defect && r->have_expected && r->expected)
		d = defect_of(t, result);
	/*
	 * A failed check of the case answers -EIO: the answer judges it
	 * where one is expected; where none is, it still fails. A failed
	 * check beside the answer (t->failed) fails whatever was expected.
	 */
	ret = lp_row_judge(r, t->failed || (!r->have_expected && result == -EIO),
			d, t->note);
	ret = lp_row_write(r, t->o, !t->header_done, ret);
	t->header_done = true;
	if (ret == LP_OK && r->verdict == LP_VERDICT_UNEXERCISED)
		return LT_UNEXERCISED;
	return ret;
}

/* The row of a case that did not run at t->pf: verdict skip, @why. */
int lp_lt_skip_row(struct lt *t, const char *why)
{
	char op[48], key[32];
	struct row r = { .kernel = lp_kernel_release(),
			 .contract = lp_contract_name(t->c), .mem = t->ops->name,
			 .pf = t->pf, .size = t->o->size, .op = op,
			 .pinner = lp_pinner_find(t->o->pinner)->name };

	snprintf(op, sizeof(op), "lifetime-%s", t->k->name);
	r.have_expected = lp_contract_lookup_case_pinner(t->c,
		lp_pinner_key(key, sizeof(key), t->o), t->k->name, t->ops->name,
		t->pf, t->o->size, &r.expected, &t->defect);
	return lp_row_skip(&r, t->o, why);
}

void lp_lt_row_reset(struct lt *t, const char *mem, size_t size)
{
	t->r = (struct row){ .kernel = lp_kernel_release(),
			     .contract = lp_contract_name(t->c), .mem = mem,
			     .pinner = t->p.info ? t->p.info->name : NULL,
			     .pf = t->pf, .size = size, .fs_type = "-",
			     .dax = -1, .thp_kb = -1, .pin_acq = -1,
			     .pin_rel = -1, .resident = { -1, -1 },
			     .dirty_kb = { -1, -1 } };
	t->note[0] = '\0';
	t->unchecked = t->defect = t->lost = t->failed = false;
	strcpy(t->check, "-");
	t->r.vmpin[0] = t->r.vmpin[1] = t->r.vmpin[2] = lp_vmpin_kb();
	/*
	 * the row's pin window: the lock every longpin holds while it pins,
	 * exclusive where the counters judge the row; a window of a row
	 * before this one that wrote none ends first
	 */
	lp_pins_end(&t->pins);
	lp_pins_begin(&t->pins, t->k && t->k->pins_judged && !t->o->concurrent);
	/* --concurrent: others pin meanwhile, the deltas would be theirs too */
	if (t->o->concurrent || lp_vmstat_pins(&t->acq0, &t->rel0))
		t->acq0 = t->rel0 = -1;
}

void lp_lt_row_counters(struct lt *t)
{
	long acq, rel;

	lp_pins_end(&t->pins);
	if (t->acq0 >= 0 && !lp_vmstat_pins(&acq, &rel)) {
		t->r.pin_acq = acq - t->acq0;
		t->r.pin_rel = rel - t->rel0;
	}
}

/* VmPin did not come back: the row fails; returns @ret, or -EIO for 0. */
int lp_lt_leak(struct lt *t, int ret)
{
	lp_lt_fail(t, "pin leak: VmPin %ld kB -> %ld kB", t->r.vmpin[0],
		t->r.vmpin[2]);
	return ret ? ret : -EIO;
}
