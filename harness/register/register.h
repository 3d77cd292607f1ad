/* SPDX-License-Identifier: GPL-2.0 */
/*
 * longpin register: a buffer of one memory type per prefault, pinned
 * long-term by a pinner, judged against the contract's row for that
 * pinner and written to the table and the CSV (register.c), with the
 * counters taken around the pin and the checks that fail a row besides
 * its answer (judge.c).
 */
#ifndef LONGPIN_REGISTER_H
#define LONGPIN_REGISTER_H

#include "longpin.h"
#include "mem.h"
#include "pinner.h"

/* register.c: the CSV's op of --pinner's pin ("register", "pin", "pin-ro") */
const char *lp_row_op(const struct opts *o);
/* register.c: the row of --mem at @pf pinned by @p, judged and written */
int lp_row_run(struct pinner *p, const struct mem_ops *ops, const struct opts *o,
	    const struct contract *c, enum prefault pf, bool header);

/* command.c: `longpin register`'s option checks (cmd.c's table) */
int lp_register_check(struct opts *o);
/* command.c: the rows of o->prefaults, each judged and written */
int lp_register_run(const struct mem_ops *ops, struct opts *o,
		    const struct contract *c);

/* judge.c: the counters around a pin and the checks of a row */
struct probe {
	long vmpin, acq, rel;
	bool have_kc;
	long kc[LP_NR_KCOUNTERS];
};
void lp_probe_take(struct probe *p);
void lp_pages_take(struct row *r, const struct mem *m, int i);
/* @p: before, pinned, before the unpin, after */
void lp_fill_counters(struct row *r, const struct probe *p);
/* Append "; MESSAGE" to @note; returns true: a failure was noted. */
bool lp_add_note(char *note, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool lp_row_checks(const struct row *r, char *note, size_t n);
/* the pins nr_foll_pin counts of @pinned pages, @zero of them the zero page */
long lp_pins_counted(long pinned, long zero);
/* a refused pin that a full file system may explain: LP_SKIP, else LP_OK */
int lp_env_cause(struct mem *m, const struct row *r);

/* A pinner row's pins as its window counted them, and the contract's known leak. */
struct lp_pin_row {
	const char *leak;	/* the contract's leak=NAME, NULL: none */
	const char *uncounted;	/* why nr_foll_pin does not count the row's pins, NULL: it does */
	const char *foreign;	/* other pinners moved the counters: the figures, NULL: none */
	const char *fewer;	/* fewer acquired than the row pinned: why, NULL: not */
	long acq, rel;		/* nr_foll_pin acquired and released over the row */
	long dev_pages;		/* the buffer's device-dax pages */
	bool unpin_failed;	/* the unpin answered an error */
};
/*
 * judge.c: the row's pins against its known leak; r->unchecked where it
 * cannot see them, *d what the leak did. Returns true when the row fails
 * (the note says why).
 */
bool lp_pin_row_judge(const struct lp_pin_row *p, struct row *r,
		      enum row_defect *d, char *note, size_t n);

#endif
