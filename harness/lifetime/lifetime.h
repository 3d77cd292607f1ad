/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifetime cases: the command's entry points, a case's state, its
 * entry in the case table (lifetime.c lists them, one lt_*.c file each
 * case or pair of cases), and the helpers the cases share. A case pins,
 * and has the device read and write, through the pinner of the run (t->p:
 * io_uring unless --pinner) and its operations alone, and says which
 * pinners it takes.
 */
#ifndef LONGPIN_LIFETIME_H
#define LONGPIN_LIFETIME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "longpin.h"
#include "mem.h"
#include "pinner.h"

#define LT_CHECK_MAX	(1 * MiB)	/* bytes of each data check */
#define LT_SKIP		1000		/* a case's "cannot run here" */
#define LT_UNEXERCISED	1001		/* it ran, and what it needs did not happen */
#define LT_INFLIGHT	64		/* READ_FIXED in flight at unregistration */
#define LT_CYCLES	10000		/* --lifetime cycles without --cycles */

/* The state of one case at one prefault. */
struct lt {
	const struct opts *o;
	const struct contract *c;
	const struct mem_ops *ops;
	const struct lt_case *k;	/* the case */
	enum prefault pf;
	struct pinner p;		/* the run's pinner, opened per prefault */
	bool registered;		/* p holds a pin of the buffer */
	bool unchecked;			/* no expected answer known */
	bool defect;			/* the expected answer is a kernel defect */
	bool lost;			/* the defect showed: every step held, the bytes differ */
	bool failed;			/* a check beside the case's answer failed */
	struct pinner leak;		/* LONGPIN_TEST_FAULT=pin-leak's */
	bool leaking;
	bool header_done;		/* the table's header is printed */
	struct mem m;
	bool mem_up;
	int tfd;			/* target file, or -1 */
	size_t chk;			/* bytes of a data check */
	char *want, *got;		/* chk bytes each, 4 KiB aligned */
	struct row r;
	char note[256];
	char check[16];
	long acq0, rel0;
	/* the row's pin window (core/pins.c), from lp_lt_row_reset() on */
	struct lp_pins pins;
};
struct lt_case {
	const char *name;
	const char *help;		/* what it does, for the help */
	int (*run)(struct lt *t);	/* 0, -errno, or LT_SKIP (note: why) */
	bool own_mem;			/* does not set --mem up itself */
	bool no_target;			/* needs no I/O target file */
	bool refused_too;		/* runs where the contract refuses TYPE */
	/*
	 * the memory types it applies to: those whose flags hold every
	 * MEM_* of @has and none of @lacks (0, 0: all); @why: why not the
	 * others
	 */
	unsigned int has, lacks;
	const char *why;
	unsigned int skip_flags;	/* nor to types with these MEM_* flags */
	const char *why_flags;		/* why not */
	/* optional: NULL when it can do what it tests on @ops, else why not */
	const char *(*why_not)(const struct mem_ops *ops);
	/*
	 * the pinners it takes (NULL: io_uring alone, whose operations it
	 * uses: fixed I/O, I/O in flight, its buffer table, its ring's exit)
	 */
	const char *const *pinners;
	bool own_unpin_check;		/* waits for VmPin itself (close-ring) */
	bool checks_data;		/* its data check is "ok" when it answers 0 */
	unsigned int arg;		/* run()'s own: two cases, one run */
	bool no_memlock_check;		/* RLIMIT_MEMLOCK is its to test */
	bool pins_judged;		/* nr_foll_pin judges its rows (cycles) */
	uint64_t takes;			/* OPT() of the options only it takes */
};

/* the pinners of the cases that pin, unpin and let the device write */
extern const char *const lp_lt_pinners_unpin[];

extern const struct lt_case lp_lt_case_munmap, lp_lt_case_fork,
	lp_lt_case_truncate, lp_lt_case_punch, lp_lt_case_mremap,
	lp_lt_case_reclaim, lp_lt_case_reclaim_pinned, lp_lt_case_lazyfree,
	lp_lt_case_unreg_inflight, lp_lt_case_close_ring, lp_lt_case_update,
	lp_lt_case_cycles, lp_lt_case_memlock, lp_lt_case_limits;

/* lifetime.c: longpin lifetime CASE */
int lp_lifetime_check(struct opts *o);
/* the case RLIMIT_MEMLOCK is its to test: no check of it up front */
bool lp_lifetime_own_limits(const struct opts *o);
int lp_lifetime_run(const struct mem_ops *ops, const struct opts *o,
		 const struct contract *c);
/*
 * lifetime CASE --list: the memory types CASE applies to; NULL: the cases
 * (with --pinner: those that take it)
 */
int lp_lifetime_list(const char *name, const struct opts *o);
void lp_lifetime_more(FILE *f, bool man);

/* lt_common.c: what the cases share */
void lp_lt_note(struct lt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int lp_lt_fail(struct lt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int lp_lt_target_holds(struct lt *t, off_t off, const void *exp,
		    const char *what);
int lp_lt_mem_holds(struct lt *t, const void *p, const void *exp,
		 const char *what);
/* a fixed read into @at (or write from @from) of chk bytes, then checked */
int lp_lt_read_check(struct lt *t, void *at, const void *seen, const char *what);
int lp_lt_write_check(struct lt *t, void *from, off_t off, const void *exp,
		   const char *what);
int lp_lt_reg(struct lt *t);
int lp_lt_unreg(struct lt *t);
int lp_lt_pin_held(struct lt *t, const char *after);
long lp_lt_pin_wait(struct lt *t, unsigned int ms, unsigned int *took);
/* lt_cycles.c: nr_foll_pin balanced over @n cycles answering @answer */
int lp_lt_cycles_balanced(struct lt *t, unsigned int n, int answer);
int lp_lt_cycles_end(struct lt *t, const struct cycles_result *cr,
		  unsigned int n, int answer);

/*
 * lt_reclaim.c: the page-out rule of reclaim, reclaim-pinned and
 * lazyfree, on what the case counted page by page after the page-out
 */
struct lp_pageout {
	long pages;		/* of the buffer, 4 KiB each */
	long out;		/* left memory at the page-out (mincore) */
	long intact;		/* held the device's bytes when read back */
	size_t lost_out;	/* bytes lost on pages that left memory */
	size_t lost_stayed;	/* bytes changed on pages that stayed */
	long dirty_kb;		/* dirty kB just before the unpin, -1: unknown */
};
enum lp_pageout_res {
	LP_PO_KEPT,		/* the data came back: 0 */
	LP_PO_LOST,		/* bytes of pages that left are gone: -EIO */
	LP_PO_NONE_OUT,		/* no page left memory: unexercised */
	LP_PO_ALL_DIRTY,	/* every page dirty at the unpin: unexercised */
	LP_PO_STAYED_LOST,	/* bytes changed on pages that stayed: fail */
	LP_PO_DIRTY_LOST,	/* lost, though every page was dirty: fail */
	LP_PO_PARTIAL,		/* not every page left memory: unexercised */
};
enum lp_pageout_res lp_pageout_judge(const struct lp_pageout *p);

/* lt_row.c: the rows; a case that makes its own (limits) calls them too */
bool lp_lt_expect(struct lt *t);
void lp_lt_row_reset(struct lt *t, const char *mem, size_t size);
void lp_lt_row_counters(struct lt *t);
int lp_lt_leak(struct lt *t, int ret);
int lp_lt_emit(struct lt *t, const char *op, int result);
/* the row of a case that did not run at t->pf: verdict skip, @why */
int lp_lt_skip_row(struct lt *t, const char *why);

#endif
