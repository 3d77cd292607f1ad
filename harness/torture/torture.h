/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --torture SECONDS: one buffer of one memory type, a fixed set of
 * threads, each looping on one operation (torture_ops.c's table) until
 * the deadline; torture.c runs them, torture_judge.c judges every answer
 * as it comes, torture_row.c what the run left and its row. A thread
 * that pins opens its own instance of the io_uring pinner and reaches it
 * through its operations. See docs/lifetime-and-torture.md, "Torture".
 */
#ifndef LONGPIN_TORTURE_H
#define LONGPIN_TORTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "longpin.h"
#include "mem.h"
#include "pinner.h"

/*
 * The counters of a run, each with its CSV column, in their order: the
 * operations, then (from TC_REG_OK) the outcomes. The one list of them:
 * the enum, the names and the CSV header are made from it.
 */
#define TT_COUNTERS(X)							\
	X(TC_REG, "reg") X(TC_UPD, "upd") X(TC_IO, "io")		\
	X(TC_REMAP, "remap") X(TC_MREMAP, "mremap") X(TC_FORK, "fork")	\
	X(TC_MADVISE, "madvise") X(TC_TRUNCATE, "truncate")		\
	X(TC_PUNCH, "punch") X(TC_THP, "thp") X(TC_COMPACT, "compact")	\
	X(TC_MPROTECT, "mprotect") X(TC_MIGRATE, "migrate")		\
	X(TC_REG_OK, "reg_ok") X(TC_REG_REFUSED, "reg_refused")		\
	X(TC_REG_RACED, "reg_raced") X(TC_REG_BAD, "reg_bad")		\
	X(TC_IO_OK, "io_ok") X(TC_IO_RACED, "io_raced")			\
	X(TC_IO_BAD, "io_bad") X(TC_CHILD_FAULTED, "child_faulted")	\
	X(TC_OP_ERR, "op_err") X(TC_HARNESS_ERR, "harness_err")

enum tt_cnt {
#define TT_ENUM(id, name) id,
	TT_COUNTERS(TT_ENUM)
#undef TT_ENUM
	TC_NR
};
extern const char *const lp_tt_cnt_names[TC_NR];

#define TT_MAX_THREADS	12
#define TT_RING_ENTRIES	8	/* a thread's ring: one I/O at a time */
#define TT_SEQ_OPS	32	/* choices of each thread in seq_hash */

struct tt;

/* One thread of a run: its operation, PRNG and pinner (if it has one). */
struct tt_thr {
	struct tt *t;
	const struct tt_op *op;
	size_t idx;			/* the op's place in the table */
	pthread_t th;
	uint64_t rng;
	unsigned long iters;
	unsigned long regs;		/* reg: whole-buffer registrations */
	uint64_t seq;			/* hash of the first TT_SEQ_OPS choices */
	unsigned long nseq;
	struct pinner p;		/* io_uring's, its own instance */
	bool open, registered;
	char *want, *got;		/* the I/O thread's pattern buffers */
	uint64_t next_compact;		/* thp: lp_now_ns() of the next compaction */
};

/* An operation: a thread runs step() until the deadline. */
struct tt_op {
	const char *name;
	int (*init)(struct tt_thr *h);		/* optional: 0 or -errno */
	void (*step)(struct tt_thr *h);
	void (*fini)(struct tt_thr *h);		/* optional */
	/* NULL when it applies to @t's type, else why not */
	const char *(*why_not)(const struct tt *t);
	bool efault_race;	/* may leave a range unmapped, read-only or past EOF */
};

/* The state of one run, shared by its threads. */
struct tt {
	const struct opts *o;
	const struct contract *c;
	const struct mem_ops *ops;
	struct mem m;
	bool mem_up;
	char *base;			/* the buffer: always mapped here again */
	size_t len, gran;		/* gran: the smallest range an op takes */
	int tfd;			/* the I/O target, 2 * io_len */
	size_t io_len;
	char *spare;			/* where mremap moves a range to */
	size_t spare_len;
	bool shared;			/* a child's write reaches our pages */
	bool root;
	/* the registration answers the contract gives TYPE (any prefault) */
	int answers[PF_NR];
	unsigned int nanswers;
	bool unchecked;			/* no contract row: answers not judged */
	bool efault_race;		/* an enabled op makes -EFAULT a race answer */
	uint64_t deadline;
	pthread_mutex_t layout;		/* remap, mremap, mprotect: one at a time */
	pthread_mutex_t lock;		/* note */
	unsigned long chg, chg_active;	/* content-changing ops: begun+ended, running */
	/* ops that may leave a range unmapped, read-only or past EOF: the same */
	unsigned long lay, lay_active;
	/* ops that may reserve huge pages (remap's mmap of a file): the same */
	unsigned long resv, resv_active;
	bool rsvd_judged;		/* HugePages_Rsvd is read around truncations */
	/*
	 * reservations of pages that the truncations cut while they held
	 * no page: what hugetlb-truncate-race can have given back twice
	 */
	unsigned long trunc_resv;
	bool reg_expected;		/* the contract lets TYPE register written */
	unsigned long cnt[TC_NR];
	unsigned long late;		/* operations begun past the deadline */
	/* the run's pin window (core/pins.c): its threads' pins counted in */
	struct lp_pins pins;
	char note[512];
};

/* What a run took before its threads, and what it found after them. */
struct tt_end {
	/* before the run: VmPin, HugePages_Rsvd (-1: not judged),
	 * /dev/kmsg (-1: not read) */
	long vmpin0, rsvd0;
	int kmsg;
	uint64_t seed, seq;
	const char *names;
	size_t threads;
	long leak, delta;		/* delta: LONG_MIN when not judged */
	long rsvd;			/* HugePages_Rsvd after - before */
	long reports;			/* kernel reports meanwhile, -1: not read */
	enum lp_verdict verdict;
};

/* torture.c: longpin torture */
int lp_torture_run(const struct mem_ops *ops, const struct opts *o,
		const struct contract *c);
size_t lp_torture_default_size(const struct mem_ops *ops);
/* torture --list: the memory types it applies to, one a line */
int lp_torture_list(void);
void lp_torture_more(FILE *f, bool man);

/* report.c: torture-report CSV...: the CSVs of a run as a markdown table */
int lp_torture_report(int nfiles, const char *const *files);

/* torture_ops.c */
const struct tt_op *lp_tt_op_nth(size_t i);
uint64_t lp_tt_rand(struct tt_thr *h);
void lp_tt_range(struct tt_thr *h, size_t max_gran, size_t *off, size_t *len);

/* torture_judge.c: what the operations share */
void lp_tt_count(struct tt *t, enum tt_cnt c);
void lp_tt_note(struct tt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* the run's own pins: @pinned pages that held, @tried pages attempted */
void lp_tt_own(struct tt *t, size_t pinned, size_t tried);
/* what a registration may race with: taken before it is asked for */
struct tt_snap {
	unsigned long lay, lay_active;
};
struct tt_snap lp_tt_snap_take(struct tt *t);
/* the answer @ret of a registration or update that began at @s */
void lp_tt_judge_reg(struct tt_thr *h, int ret, const char *what,
		  const struct tt_snap *s);
/* a registration's answer, or -EFAULT under LONGPIN_TEST_FAULT=reg-efault */
int lp_tt_reg_fault(struct tt_thr *h, int ret);
bool lp_tt_more(const struct tt_thr *h);
void lp_tt_chg_begin(struct tt *t);
void lp_tt_chg_end(struct tt *t);
void lp_tt_lay_begin(struct tt *t);
void lp_tt_lay_end(struct tt *t);
void lp_tt_resv_begin(struct tt *t);
void lp_tt_resv_end(struct tt *t);
/* the ops that may reserve huge pages, before a call; did one run in it? */
struct tt_snap lp_tt_resv_take(struct tt *t);
bool lp_tt_resv_raced(struct tt *t, const struct tt_snap *s);
/* is @ret one of the contract's answers for TYPE? */
bool lp_tt_contract_says(const struct tt *t, int ret);
/* the contract's answers for TYPE at every prefault (they may differ) */
void lp_tt_answers_of(struct tt *t, const struct contract *c);

/* torture_row.c: the end of a run */
/* the CSV header (schema torture-1): the counters' columns are theirs */
const char *lp_tt_header(void);
/* HugePages_Rsvd as a signed count; LONG_MIN: absent */
long lp_rsvd_now(void);
bool lp_rsvd_fell(long before, long after, long total);
bool lp_rsvd_explained(long fell, long cut);
/* what one truncation can have given back twice (hugetlb-truncate-race) */
long lp_trunc_resv(long cut, long freed, long fell, bool fell_known);
enum lp_verdict lp_tt_verdict(bool bad, bool rsvd_moved, bool rsvd_known,
		       bool unchecked);
/* judge the run after its threads and the teardown, write its row */
int lp_tt_finish(struct tt *t, const struct tt_thr *h, size_t n,
	      struct tt_end *e);

#endif
