// SPDX-License-Identifier: GPL-2.0
/* --lifetime cycles: many pin/unpin cycles, pins balanced. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "lifetime.h"

/*
 * The answer every cycle must give: the contract's for TYPE and the
 * pinner, else (no contract) whatever a first pin answers, unchecked.
 */
static int cycles_answer(struct lt *t)
{
	struct pin_answer a = { .pinned = -1 };

	if (lp_lt_expect(t))
		return t->r.expected;
	t->unchecked = true;
	t->p.ops->pin(&t->p, &t->m, &a);
	lp_pins_own(&t->pins, a.result ? 0 : t->m.len / 4096, t->m.len / 4096);
	if (a.held)
		t->p.ops->unpin(&t->p, &t->m, &a);
	return a.result;
}

/*
 * Were the run's pins balanced over the cycles? The row's pin window
 * (core/pins.c) says, where the machine's counters moved by what the
 * cycles explain: each of the @n cycles pinned the buffer where the
 * answer is 0 (a refused type may be refused before anything is
 * pinned). 0, or -EIO: a leak, or fewer pins counted than the cycles
 * took. Counters that other pinners moved leave the row unchecked.
 */
int lp_lt_cycles_balanced(struct lt *t, unsigned int n, int answer)
{
	struct lp_pins *w = &t->pins;
	long pages = t->m.len / 4096;

	if (t->o->concurrent) {
		lp_lt_note(t, "nr_foll_pin not judged here (--concurrent)");
		return 0;
	}
	lp_pins_own(w, answer ? 0 : pages * n, pages * n);
	switch (lp_pins_end(w)) {
	case LP_PINS_BALANCED:
	case LP_PINS_LEAK:
		lp_lt_note(t, "nr_foll_pin acquired %+ld released %+ld", w->acq,
			w->rel);
		return w->state == LP_PINS_LEAK ? -EIO : 0;
	case LP_PINS_SHORT:
		lp_lt_note(t, "%s", w->why);
		return -EIO;
	case LP_PINS_FOREIGN:
		t->r.unchecked = w->why;
		lp_lt_note(t, "leak check unchecked: %s", w->why);
		return 0;
	default:
		if (w->why[0])
			lp_lt_note(t, "pin counters not checked: %s", w->why);
		return 0;
	}
}

/*
 * The answer of a cycles row: a cycle that answered otherwise than the
 * first (its answer, -EIO if that was 0), else the balance of the pins.
 */
int lp_lt_cycles_end(struct lt *t, const struct cycles_result *cr,
		  unsigned int n, int answer)
{
	int ret;

	if (cr->failed_at) {
		lp_lt_note(t, "cycle %u answered %s", cr->failed_at,
			cr->failed_result ? lp_errno_name(cr->failed_result) : "0");
		return cr->failed_result ? cr->failed_result : -EIO;
	}
	ret = lp_lt_cycles_balanced(t, n, answer);
	return ret ? ret : answer;
}

/*
 * 10,000 (or --cycles N) pin/unpin cycles (io_uring: register and
 * unregister, rdma: ibv_reg_mr and ibv_dereg_mr), each answering what the
 * contract says for TYPE (refused types too: a refusal must unpin what it
 * pinned); VmPin and the pin counters balanced at the end.
 */
static int lt_cycles(struct lt *t)
{
	unsigned int n = t->o->cycles ? t->o->cycles : LT_CYCLES;
	const char *call = t->p.ops->cycle_call;
	struct cycles_result *cr = &t->r.cyc;
	long pages = t->m.len / 4096;
	int answer = cycles_answer(t), ret;
	uint64_t t0;

	t0 = lp_now_ns();
	ret = lp_pinner_cycles(&t->p, &t->m, n, t->o->mmap_probe, false, answer,
			    cr);
	if (ret)
		return ret;
	t->r.vmpin[1] = t->r.vmpin[0];
	lp_lt_note(t, "%u %s%scycles of %ld pages in %.2f s, each answering %s",
		n, call ? call : "", call ? " " : "", pages,
		(lp_now_ns() - t0) / 1e9, answer ? lp_errno_name(answer) : "0");
	return lp_lt_cycles_end(t, cr, n, answer);
}

const struct lt_case lp_lt_case_cycles = {
	.name = "cycles",
	.help = "10000 (or --cycles N) pin/unpin cycles, each answering the contract's, pins balanced at the end (refused types too)",
	.run = lt_cycles, .no_target = true,
	.refused_too = true, .pinners = lp_lt_pinners_unpin, .pins_judged = true,
	.takes = OPT(OPT_CYCLES) | OPT(OPT_MMAP_PROBE) | OPT(OPT_CONCURRENT),
};
