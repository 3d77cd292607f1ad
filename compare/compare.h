// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare: what compare.c (reading, joining, main), compare_cell.c
 * (a key's rows in one file combined), compare_report.c (text and markdown
 * sections), compare_pinner.c (the section per long-term pinner),
 * compare_plot.c (gnuplot data and scripts) and compare_grid.c (the
 * verdict grid) share.
 */
#ifndef LONGPIN_COMPARE_H
#define LONGPIN_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "csvread.h"

#define PROG		"longpin-compare"
#define MAX_FILES	16
#define MAX_REPEATS	32	/* files of one kernel with --repeats */
#define EXIT_USAGE	2

/*
 * What pinned the pages (CSV schema 3); a file without the column is
 * io_uring. The pinners are longpin's one list, harness/pinners/pinners.def
 * (`longpin pinners --list` prints it): P_IO_URING, P_GUP_FAST, ...
 */
enum pinner {
#define LP_PINNER(id, name, ops, help) P_##id,
#include "pinners.def"
#undef LP_PINNER
	NPINNERS
};
extern const char *const pinner_name[NPINNERS];

enum col {
	C_SOURCE, C_PINNER, C_MEMTYPE, C_PREFAULT, C_SIZE, C_OP, C_FS,
	C_RESULT, C_ERRNO, C_VERDICT,
	C_REG, C_CYC_MIN, C_CYC_MED, C_CYC_MAX,
	C_FIX_MIN, C_FIX_MED, C_FIX_MAX,
	C_PLN_MIN, C_PLN_MED, C_PLN_MAX,
	C_RAT_MIN, C_RAT_MED, C_RAT_MAX,
	C_PROBE_CALLS, C_PROBE_P999, C_PROBE_MAX,
	C_LEAK, C_DCHECK, C_KERNEL, C_CONTRACT, C_ACCEL, C_CYCLES,
	NCOLS
};

struct file {
	const char *path;
	char label[64];
	struct csv csv;
	int col[NCOLS];
	size_t *key;		/* key index of each row */
	int npass, nfail, ndefect, nfixed, nunchecked, nother;
	char accel[48];		/* its rows' accel values: "tcg", "none/kvm"; "?" unknown */
	int nrep;		/* files read as repeats of one kernel (--repeats) */
	const char *rpath[MAX_REPEATS];
	int *rep;		/* the repeat (file) of each row */
};

struct range {
	double min, med, max;
	bool ok;
};

/* One key on one file: its rows combined. */
struct cell {
	int nrows;
	char res[64];		/* "0", "-EOPNOTSUPP", "mixed 0/-EFAULT" */
	char verdict[32];	/* "pass", "fail", "defect", "fixed", "pass/fail" */
	struct range reg, fixed, plain, ratio;
	struct range probe_calls, probe_p999, probe_max;
	long leak_kb;		/* most kB left pinned by one of its rows */
	bool pin_defect;	/* its "defect" is a known pin leak, not data lost */
	int ncorrupt;		/* rows whose data check failed */
	bool emulated;		/* a row was measured under TCG: MiB/s are not hardware's */
	bool icount;		/* a row's times count instructions (accel tcg-icountN) */
	int tick_us;		/* -icount turns ended by an HPET tick (accel ...-tickNus) */
	int nrep;		/* repeats with a figure (--repeats), else 1 */
	long reg_samples;	/* registrations behind reg, over all repeats */
	long probe_samples;	/* registrations behind probe_max */
};

struct cmp {
	struct file file[MAX_FILES];
	int nfiles, base;
	char **key;		/* "source,pinner,memtype,prefault,size,op[,fs_type]" */
	size_t nkeys;
	unsigned int pinners;	/* bit (1 << enum pinner) of each pinner in some file */
	int npinners;
	struct cell *cell;	/* nkeys * nfiles */
	bool have_probe;
	bool have_emulated;	/* a cell with I/O figures is emulated */
	bool have_repeats;	/* --repeats merged two files or more */
	bool have_icount;	/* a cell measured in instructions */
	size_t nfirst_only;	/* keys with cycles in some files only */
};

/* A key's fields (pointers into @buf); fs is NULL unless split by fs_type. */
struct key_fields {
	char buf[512];
	const char *source, *pinner, *memtype, *prefault, *size, *op, *fs;
};

/* Field @c of row @row of @f ("" when the file has no such column). */
static inline const char *col_get(const struct file *f, size_t row,
				  enum col c)
{
	return csv_get(&f->csv, row, f->col[c]);
}

/* compare.c */
__attribute__((noreturn))
void die_oom(void);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
__attribute__((format(printf, 1, 2)))
char *xasprintf(const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
int usage_err(const char *fmt, ...);
void key_split(struct key_fields *kf, const char *key);
void key_label(char *buf, size_t n, const char *key, bool with_pf);
void fmt_size(char *buf, size_t n, const char *s);
int pinner_of_key(const char *key);

/* compare_cell.c */
void set_add(char *buf, size_t n, const char *s);
struct cell *cell_of(const struct cmp *c, size_t k, int fi);
void fill_cells(struct cmp *c);

/* compare_report.c */
struct table {
	int ncols;
	size_t nrows;
	char **cell;		/* nrows * ncols */
};

void tab_add(struct table *t, const char *const *v);
void tab_free(struct table *t);
void tab_print(FILE *o, const struct table *t, bool md);
void heading(FILE *o, bool md, const char *s);
void result_text(char *buf, size_t n, const struct cell *cl);
void write_all(FILE *o, const struct cmp *c, bool md);
int write_report(const struct cmp *c, const char *path);

/* compare_pinner.c */
void sect_pinners(FILE *o, const struct cmp *c, bool md);

/* compare_plot.c */
void gp_str(FILE *o, const char *s);
int write_plots(const struct cmp *c, const char *dir);

/* compare_grid.c */
void plot_verdicts(FILE *dat, FILE *gp, const struct cmp *c);

#endif
