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
const char *row_op(const struct opts *o);
/* register.c: the row of --mem at @pf pinned by @p, judged and written */
int row_run(struct pinner *p, const struct mem_ops *ops, const struct opts *o,
	    const struct contract *c, enum prefault pf, bool header);

/* judge.c: the counters around a pin and the checks of a row */
struct probe {
	long vmpin, acq, rel;
	bool have_kc;
	long kc[LP_NR_KCOUNTERS];
};
void probe_take(struct probe *p);
void pages_take(struct row *r, const struct mem *m, int i);
/* @p: before, pinned, before the unpin, after */
void fill_counters(struct row *r, const struct probe *p);
/* Append "; MESSAGE" to @note; returns true: a failure was noted. */
bool add_note(char *note, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool row_checks(const struct row *r, char *note, size_t n);
/* a refused pin that a full file system may explain: LP_SKIP, else LP_OK */
int env_cause(struct mem *m, const struct row *r);

#endif
