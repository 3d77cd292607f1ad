// SPDX-License-Identifier: GPL-2.0
/*
 * What every pinner's register row shares: the counters taken around a
 * pin (VmPin, nr_foll_pin_*, our kernels' GUP counters) and the checks
 * that fail a row besides its answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "register.h"

/*
 * The buffer's resident pages and dirty kB into slot @i of @r (0: before
 * the pin, 1: after it, with its AnonHugePages too).
 */
void lp_pages_take(struct row *r, const struct mem *m, int i)
{
	struct smaps_sum sm;

	lp_smaps_range(m->addr, m->len, &sm);
	r->resident[i] = lp_resident_pages(m->addr, m->len);
	r->dirty_kb[i] = sm.dirty_kb;
	if (i)
		r->thp_kb = sm.anon_huge_kb;
}

void lp_probe_take(struct probe *p)
{
	p->vmpin = lp_vmpin_kb();
	if (lp_vmstat_pins(&p->acq, &p->rel))
		p->acq = p->rel = -1;
	p->have_kc = lp_kcounters_present() && !lp_kcounters_read(p->kc);
}

void lp_fill_counters(struct row *r, const struct probe *p)
{
	int i;

	r->vmpin[0] = p[0].vmpin;
	r->vmpin[1] = p[1].vmpin;
	r->vmpin[2] = p[3].vmpin;
	/* around the (un)registration only: O_DIRECT reads pin pages too */
	r->pin_acq = p[0].acq < 0 ? -1 : p[1].acq - p[0].acq;
	r->pin_rel = p[0].rel < 0 ? -1 : p[3].rel - p[2].rel;
	r->have_kc = p[0].have_kc && p[1].have_kc;
	for (i = 0; r->have_kc && i < LP_NR_KCOUNTERS; i++)
		r->kc[i] = p[1].kc[i] - p[0].kc[i];
}

/*
 * The least nr_foll_pin must count acquired for a pin of @pinned pages,
 * @zero of them the zero page, which a read-only pin takes uncounted
 * (upstream c8070b787519): the rest, never below none.
 */
long lp_pins_counted(long pinned, long zero)
{
	return pinned > zero ? pinned - zero : 0;
}

/*
 * Did the attempt fault pages in? Only growth counts: background writeback
 * may clean pages (dirty kB falls) and reclaim may drop clean ones while a
 * slow kernel (KASAN under TCG) registers, and neither is a fault.
 */
static bool pages_touched(const struct row *r)
{
	return r->resident[1] > r->resident[0] ||
	       r->dirty_kb[1] > r->dirty_kb[0];
}

/* Append "; MESSAGE" to @note; returns true: a failure was noted. */
bool lp_add_note(char *note, size_t n, const char *fmt, ...)
{
	size_t len = strlen(note);
	va_list ap;

	if (len && len + 2 < n) {
		strcpy(note + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(note + len, n - len, fmt, ap);
	va_end(ap);
	return true;
}

/*
 * What fails a row besides its answer, each with its note: a page faulted
 * where the contract says none may be, a pin left, a cycle that answered
 * otherwise, the data check. A pass is the whole truth: anything else
 * fails the row itself, not only the exit status, so that
 * longpin-compare counts it. Returns true when one of them failed.
 */
bool lp_row_checks(const struct row *r, char *note, size_t n)
{
	bool failed = false;

	if (r->have_expected && r->result == r->expected && r->nofault &&
	    pages_touched(r))
		failed = lp_add_note(note, n,
				  "the attempt faulted pages: resident %ld -> %ld, dirty %ld -> %ld kB",
				  r->resident[0], r->resident[1],
				  r->dirty_kb[0], r->dirty_kb[1]);
	if (r->vmpin[0] >= 0 && r->vmpin[2] != r->vmpin[0])
		failed = lp_add_note(note, n, "pin leak: VmPin %ld kB -> %ld kB",
				  r->vmpin[0], r->vmpin[2]);
	if (r->cyc.failed_at)
		failed = lp_add_note(note, n, "cycle %u answered %d, not %d",
				  r->cyc.failed_at, r->cyc.failed_result,
				  r->result);
	if (!strcmp(r->io.check, "mismatch") || !strcmp(r->io.check, "error"))
		failed = lp_add_note(note, n, "data check: %s", r->io.check);
	return failed;
}

/*
 * A leak the contract names (vfio-reserved-unpin: type1 never unpins a
 * device-dax page) is that defect only when what leaked is exactly the
 * buffer's device-dax pages, every other page's pin dropped: else it is
 * a leak of its own, a failure. *d gets DEFECT_SHOWN or DEFECT_ABSENT
 * (nothing leaked); returns true when the row fails.
 */
static bool leak_as_named(const struct lp_pin_row *p, enum row_defect *d,
			  char *note, size_t n)
{
	long leaked = p->acq - p->rel;

	if (!leaked) {
		*d = DEFECT_ABSENT;
		lp_add_note(note, n, "known defect %s: its pins balance", p->leak);
		return false;
	}
	if (p->dev_pages > 0 && leaked == p->dev_pages) {
		*d = DEFECT_SHOWN;
		lp_add_note(note, n, "known defect %s: the pins of the %ld device-dax pages leaked, the others' dropped",
			 p->leak, p->dev_pages);
		return false;
	}
	return lp_add_note(note, n, "pin leak of %ld pages, not the %ld device-dax pages that known defect %s leaks",
			leaked, p->dev_pages, p->leak);
}

/*
 * A pinner row's pins (@p, its pin window's figures: core/pins.c): every
 * pin taken was dropped, where the nr_foll_pin counters count the row's
 * pins (VmPin is checked by lp_row_checks(): gup_test does not charge it,
 * RDMA does). Fewer acquired than the row pinned fails it. Where other
 * pinners moved the counters, or a row whose contract names a leak
 * cannot count its pins, the row cannot see what it checks: r->unchecked
 * says why, never a pass. A leak the contract names is judged by
 * leak_as_named() instead, where the unpin held. Returns true when the
 * row fails; *d: what the known leak did.
 */
bool lp_pin_row_judge(const struct lp_pin_row *p, struct row *r,
		      enum row_defect *d, char *note, size_t n)
{
	if (p->fewer)
		return lp_add_note(note, n, "%s", p->fewer);
	if (p->foreign) {
		r->unchecked = p->foreign;
		lp_add_note(note, n, "leak check unchecked: %s", p->foreign);
		return false;
	}
	if (p->leak && p->uncounted) {
		r->unchecked = p->uncounted;
		lp_add_note(note, n, "known defect %s not seen: pins not counted here: %s",
			 p->leak, p->uncounted);
		return false;
	}
	if (p->leak && !p->unpin_failed)
		return leak_as_named(p, d, note, n);
	if (p->uncounted || p->acq == p->rel)
		return false;
	return lp_add_note(note, n, "pin leak: nr_foll_pin acquired %ld, released %ld",
			p->acq, p->rel);
}

/*
 * A pin that got fewer pages than the contract says (-EFAULT, or
 * gup_test's -REFUSED and -PARTIAL) may be a file system too full to back
 * them: GUP cannot fault them in, and a full file system says so only
 * this way when nothing was prefaulted. Write every page ourselves: a
 * SIGBUS means the environment, not the kernel, and is no verdict (exit
 * 77). Where the contract expects that very answer, nothing is written.
 */
int lp_env_cause(struct mem *m, const struct row *r)
{
	if (m->fd < 0 || (m->ops->flags & MEM_RDONLY))
		return LP_OK;
	if (r->result != -EFAULT && r->result != -LP_REFUSED &&
	    r->result != -LP_PARTIAL)
		return LP_OK;
	if (r->have_expected && r->result == r->expected)
		return LP_OK;
	return lp_mem_touch(m, PF_WRITE);
}
