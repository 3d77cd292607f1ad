// SPDX-License-Identifier: GPL-2.0
/* longpin-compare: the cells, the rows of one key on one file combined. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

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


/* kB a row left pinned (0: none or not measured) */
static long row_leak(const struct file *f, size_t r)
{
	long kb = atol(col_get(f, r, C_LEAK));

	return kb > 0 ? kb : 0;
}

static bool row_corrupt(const struct file *f, size_t r)
{
	const char *d = col_get(f, r, C_DCHECK);

	return !strcmp(d, "mismatch") || !strcmp(d, "error");
}

/* "0", "-EOPNOTSUPP", or the raw result. */
static void row_result(char *buf, size_t n, const struct file *f, size_t r)
{
	const char *res = col_get(f, r, C_RESULT), *e = col_get(f, r, C_ERRNO);

	if (!strcmp(res, "0"))
		snprintf(buf, n, "0");
	else if (res[0] == '-' && res[1] && *e && strcmp(e, "-"))
		snprintf(buf, n, "-%s", e);
	else
		snprintf(buf, n, "%s", *res ? res : "?");
}

/* Add @s to the '/'-separated set @buf unless it is there. */
void set_add(char *buf, size_t n, const char *s)
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
		if ((pref >= 0 && num(col_get(f, rows[i], pref), &x)) ||
		    num(col_get(f, rows[i], med), &x)) {
			v[nv++] = x;
			rg.min = fmin(rg.min, x);
			rg.max = fmax(rg.max, x);
		}
		if (lo >= 0 && num(col_get(f, rows[i], lo), &x))
			rg.min = fmin(rg.min, x);
		if (hi >= 0 && num(col_get(f, rows[i], hi), &x))
			rg.max = fmax(rg.max, x);
	}
	if (nv) {
		rg.med = median(v, nv);
		rg.ok = true;
	}
	free(v);
	return rg;
}

/*
 * combine() per repeat (--repeats): each repeat's median is one figure;
 * the range is the median, min and max of those. One file: combine().
 */
static struct range combine_rep(const struct file *f, const size_t *rows,
				size_t n, enum col med, int pref, int lo,
				int hi, int *nrep)
{
	struct range rg = { INFINITY, 0, -INFINITY, false }, one;
	size_t *sub, i, m;
	double v[MAX_REPEATS];
	int r, nv = 0;

	*nrep = 1;
	if (f->nrep <= 1)
		return combine(f, rows, n, med, pref, lo, hi);
	sub = xcalloc(n, sizeof(*sub));
	for (r = 0; r < f->nrep; r++) {
		for (i = m = 0; i < n; i++)
			if (f->rep[rows[i]] == r)
				sub[m++] = rows[i];
		one = combine(f, sub, m, med, pref, -1, -1);
		if (!one.ok)
			continue;
		v[nv++] = one.med;
		rg.min = fmin(rg.min, one.med);
		rg.max = fmax(rg.max, one.med);
	}
	free(sub);
	if (nv) {
		rg.med = median(v, nv);
		rg.ok = true;
		*nrep = nv;
	}
	return rg;
}

/* registrations behind a figure: each row's cycles, or 1 */
static long samples(const struct file *f, const size_t *rows, size_t n,
		    bool cycles, enum col need)
{
	long s = 0, c;
	double x;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!num(col_get(f, rows[i], need), &x))
			continue;
		c = cycles ? atol(col_get(f, rows[i], C_CYCLES)) : 0;
		s += c > 0 ? c : 1;
	}
	return s;
}

static bool row_cycles(const struct file *f, size_t r)
{
	double x;

	return f->col[C_CYC_MED] >= 0 && num(col_get(f, r, C_CYC_MED), &x);
}

/*
 * How many rows of key @k carry a --cycles median, of how many. Unless
 * all do, in every file, every file's first registration is compared: a
 * cycles' median (pages already faulted, caches warm) against a first
 * registration is no ratio.
 */
static void key_cycles(const struct cmp *c, size_t k, size_t *with,
		       size_t *rows)
{
	const struct file *f;
	size_t r;
	int i;

	*with = *rows = 0;
	for (i = 0; i < c->nfiles; i++) {
		f = &c->file[i];
		for (r = 0; r < f->csv.nrows; r++)
			if (f->key[r] == k) {
				(*rows)++;
				*with += row_cycles(f, r);
			}
	}
}

static void fill_cell(struct cmp *c, int fi, size_t k, struct cell *cl,
		      bool cycles)
{
	const struct file *f = &c->file[fi];
	size_t *rows = xcalloc(f->csv.nrows, sizeof(*rows)), r, n = 0;
	char res[64], all[56] = "";
	const char *accel, *tick;
	int nr;

	for (r = 0; r < f->csv.nrows; r++)
		if (f->key[r] == k)
			rows[n++] = r;
	cl->nrows = n;
	for (r = 0; r < n; r++) {
		row_result(res, sizeof(res), f, rows[r]);
		set_add(all, sizeof(all), res);
		set_add(cl->verdict, sizeof(cl->verdict), col_get(f, rows[r], C_VERDICT));
		/* a lifetime case's defect loses data, a pin's leaks its pins */
		cl->pin_defect |= strncmp(col_get(f, rows[r], C_OP), "lifetime-", 9) != 0;
		if (row_leak(f, rows[r]) > cl->leak_kb)
			cl->leak_kb = row_leak(f, rows[r]);
		cl->ncorrupt += row_corrupt(f, rows[r]);
		accel = col_get(f, rows[r], C_ACCEL);
		cl->emulated |= !strncmp(accel, "tcg", 3);
		cl->icount |= strstr(accel, "icount") != NULL;
		tick = strstr(accel, "-tick");
		if (tick)
			cl->tick_us = atoi(tick + 5);
	}
	if (cl->icount)
		c->have_icount = true;
	snprintf(cl->res, sizeof(cl->res), "%s%s", strchr(all, '/') ? "mixed " : "", all);
	if (cycles)
		cl->reg = combine_rep(f, rows, n, C_REG, C_CYC_MED, C_CYC_MIN,
				      C_CYC_MAX, &cl->nrep);
	else
		cl->reg = combine_rep(f, rows, n, C_REG, -1, -1, -1, &cl->nrep);
	cl->reg_samples = samples(f, rows, n, cycles, C_REG);
	cl->probe_samples = samples(f, rows, n, false, C_PROBE_MAX);
	cl->fixed = combine(f, rows, n, C_FIX_MED, -1, C_FIX_MIN, C_FIX_MAX);
	cl->plain = combine(f, rows, n, C_PLN_MED, -1, C_PLN_MIN, C_PLN_MAX);
	cl->ratio = combine(f, rows, n, C_RAT_MED, -1, C_RAT_MIN, C_RAT_MAX);
	cl->probe_calls = combine_rep(f, rows, n, C_PROBE_CALLS, -1, -1, -1, &nr);
	cl->probe_p999 = combine_rep(f, rows, n, C_PROBE_P999, -1, -1, -1, &nr);
	cl->probe_max = combine_rep(f, rows, n, C_PROBE_MAX, -1, -1, -1, &nr);
	if (cl->probe_max.ok && nr > cl->nrep)
		cl->nrep = nr;
	if (cl->probe_max.ok)
		c->have_probe = true;
	if (cl->emulated && (cl->fixed.ok || cl->plain.ok))
		c->have_emulated = true;
	free(rows);
}

struct cell *cell_of(const struct cmp *c, size_t k, int fi)
{
	return &c->cell[k * c->nfiles + fi];
}

void fill_cells(struct cmp *c)
{
	size_t k;
	int i;

	c->cell = xcalloc(c->nkeys * c->nfiles, sizeof(*c->cell));
	for (k = 0; k < c->nkeys; k++) {
		size_t with, rows;

		key_cycles(c, k, &with, &rows);
		for (i = 0; i < c->nfiles; i++)
			fill_cell(c, i, k, cell_of(c, k, i), with == rows);
		c->nfirst_only += with && with < rows;
	}
}
