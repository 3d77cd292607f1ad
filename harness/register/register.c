// SPDX-License-Identifier: GPL-2.0
/*
 * One row of `longpin register`: a buffer of one memory type at one
 * prefault, set up once, pinned long-term by a pinner (io_uring's
 * registration, gup_test's pins, ibv_reg_mr), with what the pinner can do
 * while it holds the pin (fixed-buffer I/O) and after (cycles), judged
 * against the contract's row for that pinner and written to the table and
 * the CSV: the same columns for every pinner, op "register" (io_uring),
 * "pin" or "pin-ro".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "register.h"

/*
 * The machine's nr_foll_pin counters judge this row's pins: a pinner
 * without I/O between pin and unpin, and not --concurrent (the caller's
 * word that other pinners run meanwhile).
 */
static bool pins_counted(const struct pinner *p, const struct opts *o)
{
	return !p->ops->io && !o->concurrent;
}

/*
 * Pages a read-only pin takes without counting them: the zero page,
 * which GUP hands back unpinned since upstream c8070b787519 (6.5, and
 * 6.1.192 by Debian's backport), so nr_foll_pin need not move for it.
 * Counted after pin(), while the PTEs the pin faulted in are there;
 * 0 for a writable pin (it breaks COW first) or when pagemap cannot say.
 */
static long uncounted(const struct pinner *p, const struct mem *m)
{
	struct zero_pfns z;
	long n;

	if (p->write)
		return 0;
	n = lp_zero_page_ptes(m->addr, m->len, &z);
	return n > 0 ? n : 0;
}

/*
 * Why the machine's nr_foll_pin counters do not tell this row's pins, or
 * NULL when they do: a pinner with I/O pins pages between the pin and the
 * unpin, --concurrent runs other pinners meanwhile, and a window that was
 * not judged (no counters, not root) has no figures.
 */
static const char *pins_uncounted(const struct pinner *p, const struct opts *o,
				  const struct lp_pins *w)
{
	if (p->ops->io)
		return "its I/O pins pages between the pin and the unpin";
	if (o->concurrent)
		return "other processes pin meanwhile (--concurrent)";
	if (w->state == LP_PINS_OFF)
		return w->why[0] ? w->why : "no nr_foll_pin counters here";
	return NULL;
}

/*
 * Pin, do what the pinner does meanwhile, read the counters, unpin, run
 * the cycles, inside the row's pin window @w (core/pins.c: the
 * machine-wide lock, exclusive where the counters judge the row). A
 * pinner with I/O between pin and unpin counts releases around the unpin
 * only (the O_DIRECT reads pin pages too); the others count them from
 * before the pin: gup_test drops its pin inside pin(), and the kernel
 * may pin and drop pages inside one call too (6.12's read-only long-term
 * pins of read-prefaulted memory through ibv_reg_mr: 2048 acquired and
 * 2048 released for 1024 pages, half of each in pin()). --inject leak
 * keeps a second pin until after the window.
 */
static int pin_measure(struct pinner *p, struct mem *m, const struct opts *o,
		       struct row *r, struct pin_answer *a, struct lp_pins *w)
{
	struct probe pr[4];	/* before, pinned, before the unpin, after */
	struct pinner leak = { 0 };
	long pages = m->len / 4096, own, zero;
	bool leaking = false;
	int ret = LP_OK;

	lp_pins_begin(w, pins_counted(p, o));
	lp_pages_take(r, m, 0);
	lp_probe_take(&pr[0]);
	p->ops->pin(p, m, a);
	lp_probe_take(&pr[1]);
	lp_pages_take(r, m, 1);
	own = !a->result ? pages : a->pinned > 0 ? a->pinned : 0;
	zero = uncounted(p, m);
	lp_pins_own(w, lp_pins_counted(own, zero),
		    a->tried > 0 ? a->tried : pages);
	pr[2] = p->ops->io ? pr[1] : pr[0];
	if (a->held) {
		if (o->inject && !strcmp(o->inject, "leak"))
			leaking = lp_pinner_leak_begin(&leak, p, m);
		if (leaking)
			lp_pins_own(w, pages, pages);
		if (p->ops->io && !o->no_io && !(m->ops->flags & MEM_RDONLY))
			ret = p->ops->io(p, m, &r->io);
		if (p->ops->io)
			lp_probe_take(&pr[2]);
		a->unpin_result = p->ops->unpin(p, m, a);
	}
	/* an untouched buffer is pinned untouched each cycle */
	if (o->cycles && lp_pinner_cycles(p, m, o->cycles, o->mmap_probe,
				       r->pf == PF_NONE, a->result, &r->cyc))
		ret = lp_err(LP_EUSAGE, "--cycles: out of memory or threads");
	if (o->cycles)
		lp_pins_own(w, !a->result && !r->cyc.failed_at ?
			    lp_pins_counted(own, zero) * o->cycles : 0,
			    (a->tried > 0 ? a->tried : pages) * o->cycles);
	lp_probe_take(&pr[3]);
	lp_pins_end(w);
	if (leaking)
		lp_pinner_leak_end(&leak);
	lp_fill_counters(r, pr);
	r->result = a->result;
	r->reg_ns = a->pin_ns;
	r->unreg_ns = a->unpin_ns;
	return ret;
}

/* Where the prober ran: a fact about the figures, not a failure. */
static void probe_note(const struct cycles_result *c, char *note, size_t n)
{
	if (c->probe_cpu[1] < 0)
		lp_add_note(note, n, "prober shared the CPU with the registration (one CPU allowed)");
	else
		lp_add_note(note, n, "prober on CPU %d (registration on CPU %d)",
			 c->probe_cpu[1], c->probe_cpu[0]);
}

/* The CSV's op of --pinner's pin: "register", "pin", "pin-ro"; the prober's */
const char *lp_row_op(const struct opts *o)
{
	const struct pinner_ops *ops = lp_pinner_find(o->pinner)->ops;

	/* timed beside a prober thread: not a plain registration */
	if (o->mmap_probe)
		return "register-mmap-probe";
	if (ops->op)
		return ops->op;
	return o->readonly_pin ? "pin-ro" : "pin";
}

int lp_row_run(struct pinner *p, const struct mem_ops *ops, const struct opts *o,
	    const struct contract *c, enum prefault pf, bool header)
{
	struct pin_answer a = { .pinned = -1, .pin_ns = NAN, .unpin_ns = NAN };
	struct row r = { .kernel = lp_kernel_release(), .contract = lp_contract_name(c),
			 .mem = ops->name, .pf = pf, .size = o->size,
			 .op = lp_row_op(o), .pinner = p->info->name };
	char note[512] = "", key[32];
	enum row_defect d = DEFECT_NONE;
	struct lp_pins w = { .fd = -1 };
	struct lp_pin_row pins;
	bool failed;
	struct mem m;
	int ret;

	ret = lp_mem_setup(&m, ops, o);
	if (ret != LP_OK)
		return ret;
	ret = (ops->populate ? ops->populate : lp_mem_populate)(&m, pf);
	if (ret)
		goto out;
	r.fs_type = m.fs_type;
	r.dax = m.dax;
	ret = pin_measure(p, &m, o, &r, &a, &w);
	if (ret != LP_OK)
		goto out;
	r.have_expected = lp_contract_lookup_pinner(c, lp_pinner_key(key, sizeof(key), o),
						 r.mem, r.pf, r.size,
						 &r.expected, &r.nofault);
	ret = lp_env_cause(&m, &r);
	if (ret != LP_OK)
		goto out;
	failed = lp_row_checks(&r, note, sizeof(note));
	if (a.unpin_result)
		failed = lp_add_note(note, sizeof(note), "%s: the unpin answered %s",
				  p->ops->pin_call, lp_errno_name(a.unpin_result));
	/* the row's pins, and a leak the contract names: that defect */
	pins = (struct lp_pin_row){
		.leak = lp_contract_leak(c, key, r.mem, r.pf, r.size),
		.uncounted = pins_uncounted(p, o, &w),
		.foreign = w.state == LP_PINS_FOREIGN ? w.why : NULL,
		.fewer = w.state == LP_PINS_SHORT ? w.why : NULL,
		.acq = w.acq, .rel = w.rel,
		.unpin_failed = a.unpin_result,
	};
	if (pins.leak)
		pins.dev_pages = lp_devdax_pages(m.addr, m.len);
	failed |= lp_pin_row_judge(&pins, &r, &d, note, sizeof(note));
	if (a.note[0])
		lp_add_note(note, sizeof(note), "%s", a.note);
	ret = lp_row_judge(&r, failed, d, note);
	if (r.cyc.probed)
		probe_note(&r.cyc, note, sizeof(note));
	ret = lp_row_write(&r, o, header, ret);
out:
	lp_mem_teardown(&m);
	return ret;
}
