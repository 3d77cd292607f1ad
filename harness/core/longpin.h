/* SPDX-License-Identifier: GPL-2.0 */
/*
 * longpin's core: what every mode stands on. The command line (the
 * options and their parser, the help formatter), errors and small
 * helpers, what the kernel tells about pins and pages, its log, the
 * contracts, and a row: its verdict, its line in the table and in the
 * CSV. Nothing here calls into another folder of harness/; the folders
 * above declare their own APIs (mem/mem.h, pinners/pinner.h,
 * register/register.h, lifetime/lifetime.h, torture/torture.h,
 * fio/fio.h, cli/cli.h).
 */
#ifndef LONGPIN_H
#define LONGPIN_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <sys/types.h>

#define LONGPIN_VERSION		"0.1"
#define LONGPIN_SCHEMA		4

/* Exit statuses, documented in docs/harness.md. */
enum {
	LP_OK = 0,		/* every verdict passed */
	LP_FAIL = 1,		/* verdict failed, data mismatch or pin leak */
	LP_EUSAGE = 2,		/* usage or environment error */
	LP_SKIP = 77,		/* memory type cannot be set up here */
};

/*
 * The answers of a pinner that pins page by page and learns no errno
 * (gup_test): none of the pages, or some of them. Written like errnos
 * (result -4097, errno REFUSED), above every errno the kernel has.
 */
#define LP_REFUSED	4097
#define LP_PARTIAL	4098

enum prefault { PF_NONE, PF_READ, PF_WRITE, PF_NR };

/* The options of the command line, one bit each in struct opts' given. */
enum opt_id {
	OPT_MEM, OPT_SIZE, OPT_PREFAULT, OPT_DIR, OPT_DEV, OPT_PINNER,
	OPT_READONLY_PIN, OPT_TARGET, OPT_TARGET_OVERWRITE, OPT_BS, OPT_QD,
	OPT_IOS, OPT_RUNTIME, OPT_REPEAT, OPT_NO_IO, OPT_CYCLES,
	OPT_MMAP_PROBE, OPT_CONCURRENT, OPT_SECONDS, OPT_SEED, OPT_OPS,
	OPT_EXPECT, OPT_CSV, OPT_QUIET, OPT_NO_MEMLOCK_CHECK, OPT_INJECT,
	OPT_LIST, OPT_HELP, OPT_NR
};
#define OPT(id)		(1ULL << (id))

#define LP_MAX_ARGS	16

/* What a command was given (opts.c parses, the command's run() reads it). */
struct opts {
	const struct lp_cmd *cmd;
	uint64_t given;			/* OPT(id) of every option given */
	const char *arg[LP_MAX_ARGS];	/* the words that are no option */
	int nargs;
	/* the buffer */
	const char *mem;
	size_t size;
	unsigned int prefaults;		/* bit mask of 1 << enum prefault */
	const char *dir, *dev;		/* its place (mem.c: places[]) */
	/* the pin */
	const char *pinner;		/* --pinner NAME (default io_uring) */
	bool readonly_pin;		/* no FOLL_WRITE */
	bool no_memlock_check;		/* let the kernel judge RLIMIT_MEMLOCK */
	const char *inject;		/* corrupt | leak | fill: self-tests */
	/* register: fixed-buffer I/O and cycles */
	const char *target;
	bool target_overwrite;		/* --target may be a file with data */
	unsigned int bs, qd, repeat;
	uint64_t ios;
	double runtime;
	bool no_io;
	unsigned int cycles;		/* more pin/unpin cycles */
	bool mmap_probe;		/* time mmap+munmap in a thread meanwhile */
	/* lifetime, torture */
	const char *lcase;		/* lifetime CASE */
	bool concurrent;		/* other pinners meanwhile: no global balance */
	unsigned int seconds;		/* torture's */
	uint64_t seed;
	const char *torture_ops;	/* --ops LIST: a subset of the threads */
	/* the rows */
	const char *expect;
	const char *csv;
	bool quiet;
	bool list;			/* names, one a line, and nothing run */
};

/* An option a command takes, and its help there (NULL: the option's own). */
struct lp_cmd_opt {
	enum opt_id id;
	const char *help;
};

/*
 * A command: its name and words, the options it takes, its own checks
 * and what it runs. The table of them is the dispatcher's (cli/cmd.c,
 * ended by an entry without a name); the parser and the help formatter
 * are handed it, so that `longpin --help`, `longpin COMMAND --help` and
 * the manual page cannot say what the program does not do.
 */
struct lp_cmd {
	const char *name;
	const char *args;		/* its words ("CASE"), or NULL */
	const char *summary;		/* one line */
	const char *text;		/* what it does, a paragraph */
	const struct lp_cmd_opt *opts;	/* the options it takes, OPT_NR ends */
	uint64_t needs;			/* the options it cannot run without */
	int max_args;			/* words at most */
	bool raw;			/* its words are its own: no options */
	/*
	 * optional: its own checks of @o after the parse (LP_OK, or 2 after
	 * a one-line error), and what its words set in @o
	 */
	int (*check)(struct opts *o);
	/* what it runs: an exit status */
	int (*run)(struct opts *o);
	/* optional: what its help and manual page list after its options */
	void (*more)(FILE *f, bool man);
};

/* opt_table.c: every option, its name, argument and help */
struct lp_opt {
	const char *name;	/* without "--" */
	const char *arg;	/* the name of its argument, NULL: a flag */
	const char *help;
};
const struct lp_opt *lp_opt_info(enum opt_id id);
const char *lp_opt_name(enum opt_id id);
bool lp_opt_given(const struct opts *o, enum opt_id id);

/*
 * opts.c: the command line into @o, the command one of @cmds. Returns
 * LP_OK to run o->cmd, -1 when done (--help), else an exit status after
 * a one-line error.
 */
int lp_opts_parse(struct opts *o, const struct lp_cmd *cmds, int argc,
	       char **argv);
const struct lp_cmd *lp_cmd_find(const struct lp_cmd *cmds, const char *name);
bool lp_cmd_takes(const struct lp_cmd *c, enum opt_id id);
/* the commands that take option @id: "register, lifetime or torture" */
const char *lp_cmd_takers(const struct lp_cmd *cmds, enum opt_id id, char *buf,
		       size_t n);

/* help.c: the help and the manual page, from the tables */
/* a space no line of the help breaks at */
#define LP_NBSP		'\x01'
#define LP_NBSP_S	"\x01"
/* wrap @text at 79 columns, every line after the first indented @indent */
void lp_text_wrap(FILE *f, const char *text, int indent, int col);
void lp_opts_help(FILE *f, const struct lp_cmd_opt *opts);
void lp_opts_man(FILE *f, const struct lp_cmd_opt *opts);
void lp_man_text(FILE *f, const char *text);
void lp_man_esc(FILE *f, const char *text);
void lp_items_head(FILE *f, bool man, const char *title);
void lp_item_help(FILE *f, bool man, const char *name, const char *help);
/* "longpin lifetime CASE --mem TYPE [--size N] ...", wrapped, or roff */
void lp_cmd_synopsis(FILE *f, const struct lp_cmd *c, bool man);
/* the help of command @c */
void lp_cmd_help(FILE *f, const struct lp_cmd *c);

/* util.c */
int lp_err(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the message of the last lp_err(), without "longpin: " */
const char *lp_last_err(void);
/* LONGPIN_TEST_FAULT names @name: a fault only the tests inject (util.c) */
bool lp_test_fault(const char *name);
int lp_parse_size(const char *s, size_t *out);
void lp_fmt_size(char *buf, size_t n, size_t bytes);
const char *lp_errno_name(int err);
const char *lp_file_kind(mode_t mode);
/* block device @dev mounted, held or swap, or a partition of it (blkdev.c) */
bool lp_blk_in_use(dev_t dev, char *why, size_t n);
/* @a and @b name one file, existing or to be created (util.c) */
bool lp_same_file(const char *a, const char *b);
int lp_errno_from_name(const char *name);
uint64_t lp_now_ns(void);
void lp_pattern_fill(void *buf, size_t len, uint64_t seed);
void lp_list_add(char *buf, size_t n, size_t i, size_t count, const char *word);
const void *lp_table_find(const void *base, size_t n, size_t size, size_t off,
		       const char *name);
#define TABLE_FIND(t, field, name)					\
	((typeof(&(t)[0]))lp_table_find((t), ARRAY_SIZE(t), sizeof((t)[0]),	\
				     offsetof(typeof((t)[0]), field), (name)))
/* min, median (the mean of the middle two when @n is even), max; sorts @v */
struct stat3 { double min, med, max; };
struct stat3 lp_stat3_of(double *v, unsigned int n);

/* util.c: progress of a long phase on a terminal's stderr */
struct progress {
	const char *what, *phase;
	unsigned long total;
	uint64_t t0, last;
	bool on, shown;
};
void lp_progress_begin(struct progress *p, const char *what, const char *phase,
		    unsigned long total);
void lp_progress_step(struct progress *p, unsigned long done);
void lp_progress_end(struct progress *p);
const char *lp_prefault_name(enum prefault pf);
int lp_prefault_parse(const char *s, unsigned int *mask);
size_t lp_hugepage_size(void);
const char *lp_fs_name(long magic);
/* util.c: the accelerator of a virtual CPU, "none" on bare metal */
const char *lp_cpu_accel(void);

/* probe.c: what the kernel tells about pins and pages */
struct smaps_sum {
	long rss_kb;
	long dirty_kb;
	long anon_huge_kb;
};
long lp_vmpin_kb(void);
long lp_vmlck_kb(void);
long lp_vmpin_wait(long want, unsigned int ms, unsigned int *took);
int lp_vmstat_pins(long *acquired, long *released);
int lp_smaps_range(const void *addr, size_t len, struct smaps_sum *s);
long lp_resident_pages(void *addr, size_t len);
int lp_resident_map(void *addr, size_t len, unsigned char *vec);
int lp_page_frames(const void *addr, size_t len, uint64_t *pfn);
long lp_devdax_pages(const void *addr, size_t len);
/* the zero page's pfns that a buffer maps, as up to LP_ZERO_RANGES ranges */
#define LP_ZERO_RANGES 4
struct zero_pfns {
	int nranges;
	uint64_t lo[LP_ZERO_RANGES], hi[LP_ZERO_RANGES];
};
long lp_zero_page_ptes(const void *addr, size_t len, struct zero_pfns *z);
bool lp_have_cap_ipc_lock(void);
long lp_meminfo_kb(const char *key);

/*
 * pins.c: a run's pin window, under the machine-wide lock that every
 * longpin holds while it pins, and what nr_foll_pin says of the run's own
 * pins in it: LP_PINS_OFF (not judged: @why, if anything, says why),
 * BALANCED, LEAK (acquired - released), SHORT (fewer acquired than the
 * run's pins that held: a failure), FOREIGN (moved by other pinners:
 * unchecked, @why with the figures)
 */
enum lp_pins_state {
	LP_PINS_OFF, LP_PINS_BALANCED, LP_PINS_LEAK, LP_PINS_SHORT,
	LP_PINS_FOREIGN,
};
struct lp_pins {
	int fd;				/* the lock, -1: none */
	bool open;			/* begun, not ended */
	bool judge;			/* counters read at the start */
	long acq0, rel0;		/* at the start */
	long acq, rel;			/* over the window, at its end */
	long own_min, own_max;		/* what the run's pins explain */
	enum lp_pins_state state;
	char why[256];
};
/* lock (exclusive when @judge) and read the counters */
void lp_pins_begin(struct lp_pins *w, bool judge);
/* the run's own pins: @pinned pages that held, @tried pages of attempts */
void lp_pins_own(struct lp_pins *w, long pinned, long tried);
/* read, judge and unlock; again: nothing */
enum lp_pins_state lp_pins_end(struct lp_pins *w);
/* the judgement of w->acq, w->rel against the run's own pins */
enum lp_pins_state lp_pins_judge(struct lp_pins *w);

#define LP_NR_KCOUNTERS 4
extern const char *const lp_kcounter_names[LP_NR_KCOUNTERS];
long lp_vmstat_value(const char *name);
bool lp_kcounters_present(void);
int lp_kcounters_read(long out[LP_NR_KCOUNTERS]);

/* kmsg.c: the kernel reports logged between lp_kmsg_open() and lp_kmsg_reports() */
int lp_kmsg_open(void);
long lp_kmsg_reports(int fd, char *first, size_t n);

/* contract.c: expected verdicts, data in harness/contracts/ */
struct contract;
const char *lp_kernel_release(void);
const struct contract *lp_contract_select(const char **why);
const struct contract *lp_contract_by_name(const char *name);
const char *lp_contract_name(const struct contract *c);
void lp_contract_list(void);
/*
 * Returns true when a row matches and sets *err (0 or a negative errno) and
 * *nofault (the attempt must leave resident and dirty pages alone).
 */
bool lp_contract_lookup(const struct contract *c, const char *mem,
		     enum prefault pf, size_t size, int *err, bool *nofault);
/* the same for the --pinner @pinner ("gup-fast", "gup/ro"; NULL: io_uring) */
bool lp_contract_lookup_pinner(const struct contract *c, const char *pinner,
			    const char *mem, enum prefault pf, size_t size,
			    int *err, bool *nofault);
/* the name of the row's known pin leak (a "leak=NAME" flag), or NULL */
const char *lp_contract_leak(const struct contract *c, const char *pinner,
			  const char *mem, enum prefault pf, size_t size);
/*
 * The name of the known kernel defect that may lower HugePages_Rsvd in a
 * --torture run of @mem that truncates (a "torture" row's rsvd=NAME), or
 * NULL
 */
const char *lp_contract_torture_rsvd(const struct contract *c, const char *mem);
/*
 * The answer of --lifetime @lcase for @mem, when the contract has a
 * "lifetime CASE" row for it; *defect: that answer is a known kernel
 * defect (the row's verdict is "defect", not "pass").
 */
bool lp_contract_lookup_case(const struct contract *c, const char *lcase,
			  const char *mem, enum prefault pf, size_t size,
			  int *err, bool *defect);
/* the same for the "pinner @pinner lifetime CASE" rows (NULL: io_uring) */
bool lp_contract_lookup_case_pinner(const struct contract *c, const char *pinner,
				 const char *lcase, const char *mem,
				 enum prefault pf, size_t size, int *err,
				 bool *defect);
/* "0" or "-ENAME" (a contract's answer) -> *err 0 or -errno; -EINVAL if not */
int lp_parse_expected(const char *s, int *err);

/* The columns of a row's fixed-buffer I/O (a pinner's, or fio's). */
struct io_result {
	bool done;
	char check[16];			/* ok | mismatch | skipped | error */
	char target[PATH_MAX];
	bool direct;
	unsigned int bs, qd;
	uint64_t ios;
	struct stat3 fixed_mibs, plain_mibs, ratio;
	double fixed_iops, plain_iops;	/* medians */
	/* fio rows only: medians of clat p50, p99, p99.9 (us), usr, sys CPU */
	bool have_fio;
	double fio[5];
};

/* The columns of --cycles N [--mmap-probe]. */
struct cycles_result {
	unsigned int n;
	double reg_min, reg_med, reg_max;	/* ns per 4 KiB page */
	unsigned int failed_at;			/* 1-based cycle, 0: none */
	int failed_result;
	bool probed;
	uint64_t probe_calls;
	double probe_p999_us, probe_max_us;
	/* each registration's stall (longest prober call in it), over them */
	unsigned int stall_n;
	double stall_min_us, stall_med_us, stall_max_us;
	/* the prober's calls outside every registration: the floor */
	size_t probe_free_n;
	double probe_free_med_us, probe_free_p99_us;
	int probe_cpu[2];			/* registrant, prober; -1: shared */
};

/* the figures of struct row's pg[], in the CSV's order */
enum { RP_MOVED, RP_DIRTY_UNPIN_KB, RP_OUT, RP_INTACT, RP_NR };

/*
 * The pinner of a row or an option that names none: the first entry of
 * harness/pinners/pinners.def, the one list of pinners (longpin-compare
 * takes its first name as the default too).
 */
#define LP_PINNER_DEFAULT "io_uring"

/*
 * A row's verdict, one thing each (docs/harness.md, "Exit status and
 * verdicts"); lp_verdict_name() gives the word the table, the CSV and
 * longpin-compare use.
 */
enum lp_verdict {
	LP_VERDICT_NONE,	/* not judged */
	LP_VERDICT_PASS,
	LP_VERDICT_DEFECT,	/* the contract's known defect showed */
	LP_VERDICT_FIXED,	/* it did not */
	LP_VERDICT_UNEXERCISED,	/* the case did not happen */
	LP_VERDICT_UNCHECKED,	/* a check the row needs could not be made */
	LP_VERDICT_FAIL,
	LP_VERDICT_SKIP,	/* the case did not run here */
};

/* csv.c: the word of @v ("pass", ...), "-" for none */
const char *lp_verdict_name(enum lp_verdict v);

/* One row of the CSV; NaN figures and negative counts are written as "-". */
struct row {
	/* a row of another tool (fio-jobs/fio2csv.sh): NULL for longpin's */
	const char *source;		/* NULL: "harness" */
	const char *timestamp;		/* NULL: now */
	const char *accel;		/* NULL: lp_cpu_accel() */
	const char *kernel;
	const char *contract;
	const char *mem;
	enum prefault pf;
	size_t size;
	const char *op;			/* NULL: "register" */
	const char *pinner;		/* NULL: LP_PINNER_DEFAULT */
	const char *fs_type;
	int dax;
	long thp_kb;
	int result;			/* 0 or -errno */
	bool have_expected;
	int expected;
	bool nofault;			/* expected: no page faulted */
	enum lp_verdict verdict;
	double reg_ns, unreg_ns;	/* per 4 KiB page */
	long vmpin[3];			/* before, registered, after */
	long pin_acq, pin_rel;		/* -1: unknown */
	bool have_kc;
	long kc[LP_NR_KCOUNTERS];	/* deltas over the registration */
	long resident[2];
	long dirty_kb[2];
	/*
	 * What a reclaim row did to the buffer's pages (RP_*; unset: "-"):
	 * pages whose frame changed at the pin, dirty kB just before the
	 * unpin, pages that left memory at the page-out, pages that held
	 * the device's bytes when read back.
	 */
	unsigned int pg_have;		/* 1 << RP_* of the figures known */
	long pg[4];
	struct io_result io;
	struct cycles_result cyc;
	/* why the case proves nothing here (its pages never left memory) */
	const char *unexercised;
	/*
	 * why a check that a pass needs could not be made here (other
	 * pinners moved the machine's pin counters): never a pass
	 */
	const char *unchecked;
	const char *note;
};
static inline void row_pg_set(struct row *r, int i, long v)
{
	r->pg[i] = v;
	r->pg_have |= 1u << i;
}

/* csv.c: the CSV writer */
/* can --csv @path take our rows (@hdr: another schema's header)? */
int lp_csv_check(const char *path, const char *hdr);
int lp_csv_append(const char *path, const struct row *r, unsigned int repeat);
int lp_csv_append_rows(const char *path, const struct row *r, size_t n,
		    unsigned int repeat);
bool lp_csv_is_header(const char *line);
int lp_csv_verify(FILE *f, const char *path);
/* a CSV of another schema (--torture's): its header @hdr, rows whole */
int lp_csv_verify_text(int fd, const char *path, const char *hdr);
int lp_csv_append_text(const char *path, const char *hdr, const char *rows);
int lp_csv_to_stdout(void);

/* verdict.c: a row's verdict, its line in the table, and its write */
enum lp_verdict lp_row_verdict(const struct row *r);
void lp_table_print(const struct row *r, bool header, const struct opts *o);
void lp_table_print_lifetime(const struct row *r, bool header);
/*
 * What a row whose contract names a known defect shows: nothing of it (a
 * row without such a contract row, too), the defect, or not the defect
 * (the data survived: the kernel or the contract changed).
 */
enum row_defect { DEFECT_NONE, DEFECT_SHOWN, DEFECT_ABSENT, DEFECT_UNEXERCISED };
int lp_row_judge(struct row *r, bool failed, enum row_defect d, const char *note);
int lp_row_write(const struct row *r, const struct opts *o, bool header, int ret);
/*
 * A row for a case that did not run (verdict "skip", @why its note): the
 * caller sets its key (kernel, contract, mem, pf, size, op, pinner) and
 * expected answer; written to the CSV only. Returns LP_OK or LP_EUSAGE.
 */
int lp_row_skip(struct row *r, const struct opts *o, const char *why);
/* the prefaults (1 << pf) this process wrote a row of, skips too */
unsigned int lp_rows_written_pf(void);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KiB 1024UL
#define MiB (1024UL * KiB)
#define GiB (1024UL * MiB)
/* --size above this is refused: io_uring takes at most 1 GiB per buffer */
#define LP_SIZE_MAX (1024 * GiB)

#endif
