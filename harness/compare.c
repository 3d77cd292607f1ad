// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare: joins the CSV files of several kernels (one file per
 * kernel, labelled by its basename) on (source, memtype, prefault, size, op)
 * and shows where their registration results differ and how their
 * performance compares with a baseline kernel. Text on stdout, optionally a
 * markdown report and gnuplot plots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csvread.h"

#define PROG		"longpin-compare"
#define MAX_FILES	16
#define EXIT_USAGE	2

enum col {
	C_SOURCE, C_MEMTYPE, C_PREFAULT, C_SIZE, C_OP, C_FS,
	C_RESULT, C_ERRNO, C_VERDICT,
	C_REG, C_CYC_MIN, C_CYC_MED, C_CYC_MAX,
	C_FIX_MIN, C_FIX_MED, C_FIX_MAX,
	C_PLN_MIN, C_PLN_MED, C_PLN_MAX,
	C_RAT_MIN, C_RAT_MED, C_RAT_MAX,
	C_PROBE_CALLS, C_PROBE_P999, C_PROBE_MAX,
	NCOLS
};

static const char *const col_name[NCOLS] = {
	"source", "memtype", "prefault", "size", "op", "fs_type",
	"result", "errno", "verdict",
	"reg_ns_per_page", "cycle_reg_ns_min", "cycle_reg_ns_med",
	"cycle_reg_ns_max",
	"fixed_mibs_min", "fixed_mibs_med", "fixed_mibs_max",
	"plain_mibs_min", "plain_mibs_med", "plain_mibs_max",
	"ratio_min", "ratio_med", "ratio_max",
	"probe_calls", "probe_p999_us", "probe_max_us",
};

struct file {
	const char *path;
	char label[64];
	struct csv csv;
	int col[NCOLS];
	size_t *key;		/* key index of each row */
	int npass, nfail, nunchecked, nother;
};

struct range {
	double min, med, max;
	bool ok;
};

/* One key on one file: its rows combined. */
struct cell {
	int nrows;
	char res[64];		/* "0", "-EOPNOTSUPP", "mixed 0/-EFAULT" */
	char verdict[32];	/* "pass", "fail", "pass/fail" */
	struct range reg, fixed, plain, ratio;
	struct range probe_calls, probe_p999, probe_max;
};

struct cmp {
	struct file file[MAX_FILES];
	int nfiles, base;
	char **key;		/* "source,memtype,prefault,size,op[,fs_type]" */
	size_t nkeys;
	struct cell *cell;	/* nkeys * nfiles */
	bool have_probe;
};

struct table {
	int ncols;
	size_t nrows;
	char **cell;		/* nrows * ncols */
};

static void die_oom(void)
{
	fprintf(stderr, PROG ": out of memory\n");
	exit(EXIT_USAGE);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die_oom();
	return p;
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p)
		die_oom();
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_oom();
	return p;
}

__attribute__((format(printf, 1, 2)))
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die_oom();
	return s;
}

__attribute__((format(printf, 1, 2)))
static int usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* ---- tables: rendered as aligned text or as markdown ---- */

static void tab_add(struct table *t, const char *const *v)
{
	size_t i = t->nrows * t->ncols;
	int c;

	t->cell = xrealloc(t->cell, (i + t->ncols) * sizeof(*t->cell));
	for (c = 0; c < t->ncols; c++)
		t->cell[i + c] = xstrdup(v[c] ? v[c] : "");
	t->nrows++;
}

static void tab_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cell[i]);
	free(t->cell);
	t->cell = NULL;
	t->nrows = 0;
}

static void md_cell(FILE *o, const char *s)
{
	fputs("| ", o);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', o);
		fputc(*s, o);
	}
	fputc(' ', o);
}

/* Row 0 is the header. */
static void tab_print(FILE *o, const struct table *t, bool md)
{
	size_t w[32] = { 0 }, r;
	int c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols && c < 32; c++)
			if (strlen(t->cell[r * t->ncols + c]) > w[c])
				w[c] = strlen(t->cell[r * t->ncols + c]);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cell[r * t->ncols + c];

			if (md)
				md_cell(o, s);
			else
				fprintf(o, "  %-*s",
					c + 1 < t->ncols ? (int)w[c] : 0, s);
		}
		fputs(md ? "|\n" : "\n", o);
		if (r || !md)
			continue;
		for (c = 0; c < t->ncols; c++)
			fputs("|---", o);
		fputs("|\n", o);
	}
}

/* ---- numbers ---- */

static bool num(const char *s, double *v)
{
	char *end;

	if (!*s || !strcmp(s, "-"))
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !*end && !errno && isfinite(*v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* 3 significant-ish digits: 3401, 64.9, 1.18 */
static void fmt_num(char *buf, size_t n, double v)
{
	double a = fabs(v);

	snprintf(buf, n, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
}

static void fmt_range(char *buf, size_t n, const struct range *r)
{
	char a[24], b[24], c[24];

	if (!r->ok) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_num(a, sizeof(a), r->med);
	fmt_num(b, sizeof(b), r->min);
	fmt_num(c, sizeof(c), r->max);
	if (r->min == r->max)
		snprintf(buf, n, "%s", a);
	else
		snprintf(buf, n, "%s [%s-%s]", a, b, c);
}

static void fmt_size(char *buf, size_t n, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || !*s)
		snprintf(buf, n, "%s", s);
	else if (v && !(v % (1ULL << 30)))
		snprintf(buf, n, "%lluG", v >> 30);
	else if (v && !(v % (1ULL << 20)))
		snprintf(buf, n, "%lluM", v >> 20);
	else if (v && !(v % (1ULL << 10)))
		snprintf(buf, n, "%lluK", v >> 10);
	else
		snprintf(buf, n, "%llu", v);
}

/* ---- files and keys ---- */

static const char *get(const struct file *f, size_t row, enum col c)
{
	return csv_get(&f->csv, row, f->col[c]);
}

static void set_label(struct file *f)
{
	const char *b = strrchr(f->path, '/');
	size_t n;

	b = b ? b + 1 : f->path;
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".csv"))
		n -= 4;
	snprintf(f->label, sizeof(f->label), "%.*s", (int)n, b);
}

/* "run1" of "results/run1/stock.csv", "." without a directory */
static void parent_dir(char *buf, size_t n, const char *path)
{
	const char *e = strrchr(path, '/'), *s = e;

	if (!e) {
		snprintf(buf, n, ".");
		return;
	}
	while (s > path && s[-1] != '/')
		s--;
	snprintf(buf, n, "%.*s", (int)(e - s), s);
}

/* Same basename in two directories (two runs): "run1/stock". */
static void unique_labels(struct cmp *c)
{
	bool dup[MAX_FILES] = { false };
	char dir[64], tmp[64];
	int i, j;

	for (i = 0; i < c->nfiles; i++)
		for (j = 0; j < c->nfiles; j++)
			if (i != j && !strcmp(c->file[i].label, c->file[j].label))
				dup[i] = true;
	for (i = 0; i < c->nfiles; i++) {
		if (!dup[i])
			continue;
		parent_dir(dir, sizeof(dir), c->file[i].path);
		snprintf(tmp, sizeof(tmp), "%.30s/%.30s", dir, c->file[i].label);
		memcpy(c->file[i].label, tmp, sizeof(tmp));
	}
	for (i = 0; i < c->nfiles; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(c->file[i].label, c->file[j].label)) {
				size_t n = strlen(c->file[i].label);

				snprintf(c->file[i].label + (n > 56 ? 56 : n),
					 8, "#%d", (i + 1) % 100);
			}
}

static void count_verdicts(struct file *f)
{
	size_t r;

	for (r = 0; r < f->csv.nrows; r++) {
		const char *v = get(f, r, C_VERDICT);

		if (!strcmp(v, "pass"))
			f->npass++;
		else if (!strcmp(v, "fail"))
			f->nfail++;
		else if (!strcmp(v, "unchecked"))
			f->nunchecked++;
		else
			f->nother++;
	}
}

static int load_file(struct cmp *c, int i)
{
	struct file *f = &c->file[i];
	char err[512];
	int k;

	if (csv_load(f->path, &f->csv, err, sizeof(err)))
		return usage_err("%s", err);
	for (k = 0; k < NCOLS; k++)
		f->col[k] = csv_col(&f->csv, col_name[k]);
	set_label(f);
	count_verdicts(f);
	if (!i)
		return 0;
	for (k = 0; k < NCOLS; k++)
		if ((f->col[k] < 0) != (c->file[0].col[k] < 0))
			return usage_err("%s:1: column '%s' is in %s but not in %s: compare files written by the same longpin version",
					 f->path, col_name[k],
					 f->col[k] < 0 ? c->file[0].path : f->path,
					 f->col[k] < 0 ? f->path : c->file[0].path);
	return 0;
}

static char *base_key(const struct file *f, size_t r)
{
	return xasprintf("%s,%s,%s,%s,%s", get(f, r, C_SOURCE),
			 get(f, r, C_MEMTYPE), get(f, r, C_PREFAULT),
			 get(f, r, C_SIZE), get(f, r, C_OP));
}

static bool in_list(char **list, size_t n, const char *s, size_t *idx)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s)) {
			if (idx)
				*idx = i;
			return true;
		}
	return false;
}

/*
 * Base keys that some file has twice with different fs_type (file-shared on
 * ext4 and on xfs): those are keyed by fs_type too.
 */
static size_t find_splits(struct cmp *c, char ***out)
{
	char **split = NULL;
	size_t n = 0, r, s;
	int i;

	for (i = 0; i < c->nfiles; i++) {
		struct file *f = &c->file[i];

		for (r = 0; r < f->csv.nrows; r++)
			for (s = 0; s < r; s++) {
				char *a, *b;

				if (!strcmp(get(f, r, C_FS), get(f, s, C_FS)))
					continue;
				a = base_key(f, r);
				b = base_key(f, s);
				if (!strcmp(a, b) && !in_list(split, n, a, NULL)) {
					split = xrealloc(split, (n + 1) * sizeof(*split));
					split[n++] = a;
					a = NULL;
				}
				free(a);
				free(b);
			}
	}
	*out = split;
	return n;
}

static void make_keys(struct cmp *c)
{
	char **split;
	size_t nsplit = find_splits(c, &split), r, k;
	int i;

	for (i = 0; i < c->nfiles; i++) {
		struct file *f = &c->file[i];

		f->key = xcalloc(f->csv.nrows, sizeof(*f->key));
		for (r = 0; r < f->csv.nrows; r++) {
			char *key = base_key(f, r);

			if (in_list(split, nsplit, key, NULL)) {
				char *full = xasprintf("%s,%s", key, get(f, r, C_FS));

				free(key);
				key = full;
			}
			if (in_list(c->key, c->nkeys, key, &k)) {
				free(key);
			} else {
				c->key = xrealloc(c->key, (c->nkeys + 1) * sizeof(*c->key));
				k = c->nkeys;
				c->key[c->nkeys++] = key;
			}
			f->key[r] = k;
		}
	}
	for (k = 0; k < nsplit; k++)
		free(split[k]);
	free(split);
}

/* Append to @buf of size @n. */
__attribute__((format(printf, 3, 4)))
static void cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

/* "anon write 4M", "fio randread-null_blk anon write 4M", "... (xfs)" */
static void key_label(char *buf, size_t n, const char *key, bool with_pf)
{
	char tmp[512], *f[6] = { "", "", "", "", "", NULL }, *s = tmp, size[32];
	int i;

	snprintf(tmp, sizeof(tmp), "%s", key);
	for (i = 0; i < 6 && s; i++) {
		f[i] = s;
		s = strchr(s, ',');
		if (s)
			*s++ = '\0';
	}
	fmt_size(size, sizeof(size), f[3]);
	buf[0] = '\0';
	if (strcmp(f[0], "harness"))
		cat(buf, n, "%s ", f[0]);
	if (strcmp(f[4], "register"))
		cat(buf, n, "%s ", f[4]);
	cat(buf, n, "%s ", f[1]);
	if (with_pf)
		cat(buf, n, "%s ", f[2]);
	cat(buf, n, "%s", size);
	if (f[5])
		cat(buf, n, " (%s)", f[5]);
}

/* ---- combining the rows of one key on one file ---- */

/* "0", "-EOPNOTSUPP", or the raw result. */
static void row_result(char *buf, size_t n, const struct file *f, size_t r)
{
	const char *res = get(f, r, C_RESULT), *e = get(f, r, C_ERRNO);

	if (!strcmp(res, "0"))
		snprintf(buf, n, "0");
	else if (res[0] == '-' && res[1] && *e && strcmp(e, "-"))
		snprintf(buf, n, "-%s", e);
	else
		snprintf(buf, n, "%s", *res ? res : "?");
}

/* Add @s to the '/'-separated set @buf unless it is there. */
static void set_add(char *buf, size_t n, const char *s)
{
	char tmp[128], *p, *save;

	snprintf(tmp, sizeof(tmp), "%s", buf);
	for (p = strtok_r(tmp, "/", &save); p; p = strtok_r(NULL, "/", &save))
		if (!strcmp(p, s))
			return;
	if (*buf)
		strncat(buf, "/", n - strlen(buf) - 1);
	strncat(buf, s, n - strlen(buf) - 1);
}

/*
 * Median of column @med over @rows (of @pref instead where a row has a
 * number there: the cycles' median beats one registration); min and max
 * over @lo and @hi (and the medians), so that the range covers every
 * repeat of every row.
 */
static struct range combine(const struct file *f, const size_t *rows,
			    size_t n, enum col med, int pref, int lo, int hi)
{
	struct range rg = { INFINITY, 0, -INFINITY, false };
	double *v = xcalloc(n, sizeof(*v)), x;
	size_t i, nv = 0;

	for (i = 0; i < n; i++) {
		if ((pref >= 0 && num(get(f, rows[i], pref), &x)) ||
		    num(get(f, rows[i], med), &x)) {
			v[nv++] = x;
			rg.min = fmin(rg.min, x);
			rg.max = fmax(rg.max, x);
		}
		if (lo >= 0 && num(get(f, rows[i], lo), &x))
			rg.min = fmin(rg.min, x);
		if (hi >= 0 && num(get(f, rows[i], hi), &x))
			rg.max = fmax(rg.max, x);
	}
	if (nv) {
		rg.med = median(v, nv);
		rg.ok = true;
	}
	free(v);
	return rg;
}

/* @c if the file has that column, else -1. */
static int opt_col(const struct file *f, enum col c)
{
	return f->col[c] >= 0 ? (int)c : -1;
}

static void fill_cell(struct cmp *c, int fi, size_t k, struct cell *cl)
{
	const struct file *f = &c->file[fi];
	size_t *rows = xcalloc(f->csv.nrows, sizeof(*rows)), r, n = 0;
	char res[64], all[56] = "";

	for (r = 0; r < f->csv.nrows; r++)
		if (f->key[r] == k)
			rows[n++] = r;
	cl->nrows = n;
	for (r = 0; r < n; r++) {
		row_result(res, sizeof(res), f, rows[r]);
		set_add(all, sizeof(all), res);
		set_add(cl->verdict, sizeof(cl->verdict), get(f, rows[r], C_VERDICT));
	}
	snprintf(cl->res, sizeof(cl->res), "%s%s", strchr(all, '/') ? "mixed " : "", all);
	cl->reg = combine(f, rows, n, C_REG, opt_col(f, C_CYC_MED),
			  opt_col(f, C_CYC_MIN), opt_col(f, C_CYC_MAX));
	cl->fixed = combine(f, rows, n, C_FIX_MED, -1, C_FIX_MIN, C_FIX_MAX);
	cl->plain = combine(f, rows, n, C_PLN_MED, -1, C_PLN_MIN, C_PLN_MAX);
	cl->ratio = combine(f, rows, n, C_RAT_MED, -1, C_RAT_MIN, C_RAT_MAX);
	cl->probe_calls = combine(f, rows, n, C_PROBE_CALLS, -1, -1, -1);
	cl->probe_p999 = combine(f, rows, n, C_PROBE_P999, -1, -1, -1);
	cl->probe_max = combine(f, rows, n, C_PROBE_MAX, -1, -1, -1);
	if (cl->probe_max.ok)
		c->have_probe = true;
	free(rows);
}

static struct cell *cell_of(const struct cmp *c, size_t k, int fi)
{
	return &c->cell[k * c->nfiles + fi];
}

static void fill_cells(struct cmp *c)
{
	size_t k;
	int i;

	c->cell = xcalloc(c->nkeys * c->nfiles, sizeof(*c->cell));
	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++)
			fill_cell(c, i, k, cell_of(c, k, i));
}

/* 2: results differ, 1: missing somewhere, 0: all the same. */
static int key_state(const struct cmp *c, size_t k)
{
	const char *first = NULL;
	bool missing = false;
	int i;

	for (i = 0; i < c->nfiles; i++) {
		const struct cell *cl = cell_of(c, k, i);

		if (!cl->nrows)
			missing = true;
		else if (!first)
			first = cl->res;
		else if (strcmp(first, cl->res))
			return 2;
	}
	return missing;
}

/* ---- the sections: text (md false) or markdown ---- */

static void heading(FILE *o, bool md, const char *s)
{
	fprintf(o, md ? "\n## %s\n\n" : "\n%s\n", s);
}

static void sect_files(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = 6 };
	char n[5][16];
	int i;

	heading(o, md, "Kernels and verdicts");
	tab_add(&t, (const char *[]){ "kernel", "file", "pass", "fail",
				      "unchecked", "other" });
	for (i = 0; i < c->nfiles; i++) {
		const struct file *f = &c->file[i];
		char lab[80];

		snprintf(lab, sizeof(lab), "%s%s", f->label,
			 i == c->base ? " (baseline)" : "");
		snprintf(n[0], 16, "%d", f->npass);
		snprintf(n[1], 16, "%d", f->nfail);
		snprintf(n[2], 16, "%d", f->nunchecked);
		snprintf(n[3], 16, "%d", f->nother);
		tab_add(&t, (const char *[]){ lab, f->path, n[0], n[1], n[2], n[3] });
	}
	tab_print(o, &t, md);
	tab_free(&t);
}

/* "file-private write 4M: stock -EOPNOTSUPP, patched 0" */
static void sect_diffs(FILE *o, const struct cmp *c, bool md)
{
	size_t k, ndiff = 0, nmiss = 0;
	char lab[256];
	int i, st;

	for (k = 0; k < c->nkeys; k++) {
		st = key_state(c, k);
		ndiff += st == 2;
		nmiss += st == 1;
	}
	heading(o, md, "Registration results that differ between kernels");
	fprintf(o, "%zu of %zu keys differ, %zu are missing on some kernel.\n%s",
		ndiff, c->nkeys, nmiss, md && ndiff + nmiss ? "\n" : "");
	for (st = 2; st >= 1; st--)
		for (k = 0; k < c->nkeys; k++) {
			const char *sep = ": ";

			if (key_state(c, k) != st)
				continue;
			key_label(lab, sizeof(lab), c->key[k], true);
			fprintf(o, "%s%s", md ? "- " : "  ", lab);
			for (i = 0; i < c->nfiles; i++, sep = ", ") {
				const struct cell *cl = cell_of(c, k, i);

				if (cl->nrows)
					fprintf(o, "%s%s %s", sep, c->file[i].label, cl->res);
				else
					fprintf(o, "%smissing on %s", sep, c->file[i].label);
			}
			fputc('\n', o);
		}
}

static void result_text(char *buf, size_t n, const struct cell *cl)
{
	if (!cl->nrows)
		snprintf(buf, n, "missing");
	else if (strchr(cl->verdict, '/'))
		snprintf(buf, n, "%s (%s)", cl->res, cl->verdict);
	else if (!strcmp(cl->verdict, "fail"))
		snprintf(buf, n, "%s (FAIL)", cl->res);
	else
		snprintf(buf, n, "%s", cl->res);
}

static void sect_results(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = c->nfiles + 2 };
	const char *v[MAX_FILES + 2];
	char buf[MAX_FILES][128], lab[256];
	size_t k;
	int i, st;

	heading(o, md, "Registration result per kernel (! differs, ? missing somewhere)");
	v[0] = "";
	v[1] = "key";
	for (i = 0; i < c->nfiles; i++)
		v[i + 2] = c->file[i].label;
	tab_add(&t, v);
	for (st = 2; st >= 0; st--)
		for (k = 0; k < c->nkeys; k++) {
			if (key_state(c, k) != st)
				continue;
			key_label(lab, sizeof(lab), c->key[k], true);
			v[0] = st == 2 ? "!" : st == 1 ? "?" : "";
			v[1] = lab;
			for (i = 0; i < c->nfiles; i++) {
				result_text(buf[i], sizeof(buf[i]), cell_of(c, k, i));
				v[i + 2] = buf[i];
			}
			tab_add(&t, v);
		}
	tab_print(o, &t, md);
	tab_free(&t);
}

static bool has_perf(const struct cell *cl)
{
	return cl->reg.ok || cl->fixed.ok || cl->ratio.ok || cl->probe_max.ok;
}

static void probe_text(char *buf, size_t n, const struct cell *cl)
{
	char a[24], b[24], d[24];

	if (!cl->probe_max.ok) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_num(a, sizeof(a), cl->probe_max.med);
	fmt_num(b, sizeof(b), cl->probe_p999.ok ? cl->probe_p999.med : NAN);
	snprintf(d, sizeof(d), "%.0f", cl->probe_calls.ok ? cl->probe_calls.med : NAN);
	snprintf(buf, n, "%s / %s / %s", a, b, d);
}

static void sect_perf(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = c->have_probe ? 7 : 6 };
	char lab[256], s[5][128];
	size_t k;
	int i;

	heading(o, md, "Performance per kernel: median [min-max]");
	tab_add(&t, (const char *[]){ "key", "kernel", "reg ns/page",
				      "fixed MiB/s", "plain MiB/s", "fixed/plain",
				      "mmap probe max / p99.9 us / calls" });
	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *cl = cell_of(c, k, i);

			if (!has_perf(cl))
				continue;
			key_label(lab, sizeof(lab), c->key[k], true);
			fmt_range(s[0], sizeof(s[0]), &cl->reg);
			fmt_range(s[1], sizeof(s[1]), &cl->fixed);
			fmt_range(s[2], sizeof(s[2]), &cl->plain);
			fmt_range(s[3], sizeof(s[3]), &cl->ratio);
			probe_text(s[4], sizeof(s[4]), cl);
			tab_add(&t, (const char *[]){ lab, c->file[i].label, s[0],
						      s[1], s[2], s[3], s[4] });
		}
	if (t.nrows > 1)
		tab_print(o, &t, md);
	else
		fprintf(o, "%sno performance data\n", md ? "" : "  ");
	tab_free(&t);
}

static bool overlap(const struct range *a, const struct range *b)
{
	return a->min <= b->max && b->min <= a->max;
}

/*
 * @k over @b (or @b over @k for times, @inverse): "x1.31 [1.02-1.60]",
 * "noise" when the two ranges overlap.
 */
static void fmt_rel(char *buf, size_t n, const struct range *b,
		    const struct range *k, bool inverse)
{
	const struct range *num_ = inverse ? b : k, *den = inverse ? k : b;
	char m[24], lo[24], hi[24];

	if (!b->ok || !k->ok || den->med <= 0 || den->min <= 0) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_num(m, sizeof(m), num_->med / den->med);
	fmt_num(lo, sizeof(lo), num_->min / den->max);
	fmt_num(hi, sizeof(hi), num_->max / den->min);
	if (!strcmp(lo, hi))	/* one value each: nothing to tell noise by */
		snprintf(buf, n, "x%s%s", m, overlap(b, k) ? " noise" : " (no spread)");
	else
		snprintf(buf, n, "x%s [%s-%s]%s", m, lo, hi,
			 overlap(b, k) ? " noise" : "");
}

static void sect_rel(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = 6 };
	char lab[256], vs[160], s[4][128];
	size_t k;
	int i;

	snprintf(vs, sizeof(vs), "Against the baseline %s: kernel / %s (noise: the [min-max] ranges overlap)",
		 c->file[c->base].label, c->file[c->base].label);
	heading(o, md, vs);
	tab_add(&t, (const char *[]){ "key", "kernel", "registration pages/s",
				      "fixed MiB/s", "plain MiB/s", "fixed/plain" });
	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *b = cell_of(c, k, c->base), *cl = cell_of(c, k, i);

			if (i == c->base || !has_perf(cl) || !has_perf(b))
				continue;
			key_label(lab, sizeof(lab), c->key[k], true);
			/* a refusal's time is not a registration's */
			if (strcmp(b->res, cl->res))
				snprintf(s[0], sizeof(s[0]), "- (results differ)");
			else
				fmt_rel(s[0], sizeof(s[0]), &b->reg, &cl->reg, true);
			fmt_rel(s[1], sizeof(s[1]), &b->fixed, &cl->fixed, false);
			fmt_rel(s[2], sizeof(s[2]), &b->plain, &cl->plain, false);
			fmt_rel(s[3], sizeof(s[3]), &b->ratio, &cl->ratio, false);
			tab_add(&t, (const char *[]){ lab, c->file[i].label, s[0],
						      s[1], s[2], s[3] });
		}
	if (t.nrows > 1)
		tab_print(o, &t, md);
	else
		fprintf(o, "%sno key with performance data on the baseline and another kernel\n",
			md ? "" : "  ");
	tab_free(&t);
}

static void write_all(FILE *o, const struct cmp *c, bool md)
{
	int i;

	if (md) {
		fputs("# longpin-compare report\n\nFiles:", o);
		for (i = 0; i < c->nfiles; i++)
			fprintf(o, " `%s`", c->file[i].path);
		fputs(".\n", o);
	}
	sect_files(o, c, md);
	sect_diffs(o, c, md);
	sect_results(o, c, md);
	sect_perf(o, c, md);
	if (c->nfiles > 1)
		sect_rel(o, c, md);
}

/* ---- output files ---- */

/* Write @len bytes to @path via @path.tmp and rename: all or nothing. */
static int write_file(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int ret = EXIT_USAGE;

	if (!f) {
		usage_err("%s: %s: give a writable path", tmp, strerror(errno));
		goto out;
	}
	fwrite(data, 1, len, f);
	if (ferror(f) | fclose(f)) {
		usage_err("%s: write failed: %s: free some space or pick another path",
			  tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		usage_err("%s: %s: give a writable path", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

static int write_report(const struct cmp *c, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		die_oom();
	write_all(m, c, true);
	if (fclose(m))
		die_oom();
	ret = write_file(path, buf, len);
	free(buf);
	return ret;
}

/* ---- plots ---- */

/* @s as a gnuplot string: no double quote or backslash can end it early. */
static void gp_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' ? '\'' : *s, o);
	fputc('"', o);
}

static int max(int a, int b)
{
	return a > b ? a : b;
}

static unsigned int result_colour(const struct cell *cl)
{
	if (!cl->nrows)
		return 0xbdbdbd;		/* grey: missing */
	if (!strcmp(cl->res, "0"))
		return 0x66bb6a;		/* green */
	if (!strcmp(cl->res, "-EOPNOTSUPP"))
		return 0xffa726;		/* orange */
	if (!strcmp(cl->res, "-EFAULT"))
		return 0xef5350;		/* red */
	if (!strcmp(cl->res, "-EINVAL"))
		return 0xab47bc;		/* purple */
	if (!strncmp(cl->res, "mixed", 5))
		return 0xfff176;		/* yellow */
	return 0x42a5f5;			/* blue: any other errno */
}

static void plot_grid(FILE *dat, FILE *gp, const struct cmp *c)
{
	char lab[256], txt[128];
	size_t k;
	int i;

	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *cl = cell_of(c, k, i);

			result_text(txt, sizeof(txt), cl);
			fprintf(dat, "%d %zu %u ", i, k, result_colour(cl));
			gp_str(dat, txt[0] == '-' ? txt + 1 : txt);
			fputc('\n', dat);
		}
	fprintf(gp, "set terminal png noenhanced size %d,%zu\nset output 'verdicts.png'\n",
		max(720, 300 + 140 * c->nfiles), 120 + 18 * c->nkeys);
	fputs("set title \"Registration result per kernel\\n"
	      "0 green, EOPNOTSUPP orange, EFAULT red,\\n"
	      "EINVAL purple, other blue, mixed yellow, missing grey\"\n"
	      "unset key\nunset border\nset tics scale 0\nset x2tics\nunset xtics\n"
	      "set style fill solid 1.0 border rgb 'white'\n", gp);
	fprintf(gp, "set x2range [-0.5:%d.5]\nset xrange [-0.5:%d.5]\n",
		c->nfiles - 1, c->nfiles - 1);
	fprintf(gp, "set yrange [%zu.5:-0.5]\nset x2tics (", c->nkeys - 1);
	for (i = 0; i < c->nfiles; i++) {
		fputs(i ? ", " : "", gp);
		gp_str(gp, c->file[i].label);
		fprintf(gp, " %d", i);
	}
	fputs(")\nset ytics (", gp);
	for (k = 0; k < c->nkeys; k++) {
		key_label(lab, sizeof(lab), c->key[k], true);
		fputs(k ? ", " : "", gp);
		gp_str(gp, lab);
		fprintf(gp, " %zu", k);
	}
	fputs(")\nplot 'verdicts.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fc rgb variable, \\\n"
	      "     '' using 1:2:4 with labels\n", gp);
}

/* The harness's prefault=write registrations: one bar group per key. */
static bool bar_key(const struct cmp *c, size_t k)
{
	return !strncmp(c->key[k], "harness,", 8) &&
	       strstr(c->key[k], ",write,") && strstr(c->key[k], ",register");
}

static void bar_value(FILE *dat, const struct range *r, bool logscale)
{
	if (!r->ok || (logscale && r->med <= 0)) {
		fputs(" NaN NaN NaN", dat);
		return;
	}
	fprintf(dat, " %g %g %g", r->med,
		logscale && r->min <= 0 ? r->med : r->min, r->max);
}

/* @which: 0 registration ns/page, 1 fixed/plain ratio. Returns bars. */
static int plot_bars(FILE *dat, FILE *gp, const struct cmp *c, int which)
{
	const char *name = which ? "ratio" : "reg";
	char lab[256];
	int i, n = 0;
	size_t k;

	for (k = 0; k < c->nkeys; k++) {
		bool any = false;

		if (!bar_key(c, k))
			continue;
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *cl = cell_of(c, k, i);

			any |= which ? cl->ratio.ok : cl->reg.ok && !strcmp(cl->res, "0");
		}
		if (!any)
			continue;
		key_label(lab, sizeof(lab), c->key[k], false);
		gp_str(dat, lab);
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *cl = cell_of(c, k, i);

			if (!which && strcmp(cl->res, "0"))
				fputs(" NaN NaN NaN", dat);
			else
				bar_value(dat, which ? &cl->ratio : &cl->reg, !which);
		}
		fputc('\n', dat);
		n++;
	}
	fprintf(gp, "set terminal png noenhanced size %d,540\nset output '%s.png'\n",
		max(640, 300 + n * (30 + 14 * c->nfiles)), name);
	fprintf(gp, "set title \"%s\\nprefault write; median, error bars min-max\"\n",
		which ? "Fixed / plain read MiB/s" :
		"Registration ns per 4 KiB page (registered rows only)");
	fprintf(gp, "set ylabel '%s'\n%s", which ? "READ_FIXED / READ" : "ns per page (log)",
		which ? "set yrange [0:*]\n" : "set logscale y\n");
	fputs("set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
	      "set style fill solid 0.7 border -1\nset key outside right top vertical\n"
	      "set xtics rotate by -35 nomirror\nset grid ytics\nset bmargin 9\n"
	      "set datafile missing 'NaN'\n", gp);
	if (which)
		fputs("set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n", gp);
	for (i = 0; i < c->nfiles; i++) {
		fprintf(gp, "%s'%s.dat' using %d:%d:%d%s title ", i ? ", \\\n     " : "plot ",
			name, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, i ? "" : ":xtic(1)");
		gp_str(gp, c->file[i].label);
	}
	fputc('\n', gp);
	return n;
}

static int open_pair(const char *dir, const char *name, FILE **dat, FILE **gp)
{
	char *d = xasprintf("%s/%s.dat", dir, name);
	char *g = xasprintf("%s/%s.gp", dir, name);
	int ret = 0;

	*dat = fopen(d, "w");
	*gp = *dat ? fopen(g, "w") : NULL;
	if (!*gp) {
		ret = usage_err("%s: %s: give a writable --plots directory",
				*dat ? g : d, strerror(errno));
		if (*dat)
			fclose(*dat);
	}
	free(d);
	free(g);
	return ret;
}

static int close_pair(const char *dir, const char *name, FILE *dat, FILE *gp)
{
	int bad = ferror(dat) | ferror(gp);

	bad |= fclose(dat) | fclose(gp);
	if (bad)
		return usage_err("%s/%s: write failed: free some space", dir, name);
	return 0;
}

static bool have_prog(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *p, *save;
	bool found = false;

	if (!path)
		return false;
	copy = xstrdup(path);
	for (p = strtok_r(copy, ":", &save); p && !found; p = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *p ? p : ".", prog);

		found = !access(f, X_OK);
		free(f);
	}
	free(copy);
	return found;
}

static int run_gnuplot(const char *dir, const char *name)
{
	char *gp = xasprintf("%s.gp", name);
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		if (chdir(dir))
			_exit(127);
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	free(gp);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	fprintf(stderr, PROG ": gnuplot failed on %s/%s.gp (status %d): the data and scripts are in %s\n",
		dir, name, status, dir);
	return 1;
}

static int write_plots(const struct cmp *c, const char *dir)
{
	static const char *const name[] = { "verdicts", "reg", "ratio" };
	bool made[3] = { c->nkeys > 0, false, false };
	FILE *dat, *gp;
	int i, ret;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return usage_err("%s: %s: give a directory that can be created",
				 dir, strerror(errno));
	for (i = 0; i < 3; i++) {
		ret = open_pair(dir, name[i], &dat, &gp);
		if (ret)
			return ret;
		if (i)
			made[i] = plot_bars(dat, gp, c, i - 1) > 0;
		else
			plot_grid(dat, gp, c);
		ret = close_pair(dir, name[i], dat, gp);
		if (ret)
			return ret;
	}
	if (!have_prog("gnuplot")) {
		fprintf(stderr, PROG ": gnuplot not found: wrote the data and scripts to %s; install gnuplot-nox and run 'gnuplot *.gp' there\n",
			dir);
		return 0;
	}
	ret = 0;
	printf("\nplots in %s:", dir);
	for (i = 0; i < 3; i++)
		if (made[i]) {
			ret |= run_gnuplot(dir, name[i]);
			printf(" %s.png", name[i]);
		}
	printf("%s\n", made[0] ? "" : " nothing to plot (no rows)");
	return ret;
}

/* ---- main ---- */

static void usage(FILE *o)
{
	fputs("usage: " PROG " [--report FILE.md] [--plots DIR] [--baseline LABEL] A.csv B.csv [...]\n"
	      "  Joins longpin CSV files (one per kernel, labelled by basename without .csv)\n"
	      "  on source, memtype, prefault, size, op; shows differing results and\n"
	      "  performance against the baseline (default: the first file).\n", o);
}

static void cmp_free(struct cmp *c)
{
	size_t k;
	int i;

	for (i = 0; i < c->nfiles; i++) {
		csv_free(&c->file[i].csv);
		free(c->file[i].key);
	}
	for (k = 0; k < c->nkeys; k++)
		free(c->key[k]);
	free(c->key);
	free(c->cell);
}

static int find_base(struct cmp *c, const char *label)
{
	int i;

	if (!label)
		return 0;
	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(c->file[i].label, label)) {
			c->base = i;
			return 0;
		}
	fprintf(stderr, PROG ": --baseline %s: no such label: give one of", label);
	for (i = 0; i < c->nfiles; i++)
		fprintf(stderr, " %s", c->file[i].label);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "report", required_argument, NULL, 'r' },
		{ "plots", required_argument, NULL, 'p' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *report = NULL, *plots = NULL, *baseline = NULL;
	struct cmp c = { 0 };
	int opt, i, ret = EXIT_USAGE;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":r:p:b:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': report = optarg; break;
		case 'p': plots = optarg; break;
		case 'b': baseline = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':':
			return usage_err("%s needs a value: " PROG " --help",
					 argv[optind - 1]);
		default:
			return usage_err("unknown option %s: " PROG " --help",
					 argv[optind - 1]);
		}
	}
	c.nfiles = argc - optind;
	if (c.nfiles < 2 || c.nfiles > MAX_FILES) {
		usage_err("give 2 to %d CSV files (got %d): longpin-compare --help",
			  MAX_FILES, c.nfiles);
		return EXIT_USAGE;
	}
	for (i = 0; i < c.nfiles; i++) {
		c.file[i].path = argv[optind + i];
		if (load_file(&c, i))
			goto out;
	}
	unique_labels(&c);
	if (find_base(&c, baseline))
		goto out;
	make_keys(&c);
	fill_cells(&c);
	printf(PROG ": %d kernels, %zu keys, baseline %s\n", c.nfiles, c.nkeys,
	       c.file[c.base].label);
	write_all(stdout, &c, false);
	if (report && write_report(&c, report))
		goto out;
	ret = plots ? write_plots(&c, plots) : 0;
out:
	cmp_free(&c);
	return ret;
}
