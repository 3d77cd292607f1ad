// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare: "What each long-term pinner gets", when the files hold
 * more than one pinner (CSV schema 3). Per kernel, a table of the harness's
 * memory types (with prefault and size) by pinner, whose cells are the
 * results; then, per kernel, the memory types where the pinners disagree.
 * io_uring's register, gup's pin are the read-write pins compared; pin-ro
 * (read-only) rows make columns of their own, compared among themselves.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* Columns: each pinner's read-write pin, then each one's read-only pin. */
#define NPCOLS	(2 * NPINNERS)

struct pin_grid {
	size_t nrows;
	char **row;		/* "memtype prefault size", "... (xfs)" */
	long *slot;		/* nrows * NPCOLS: key index, or -1 */
};

/* The column of @kf, or -1 when it is no harness pin (lifetime, fio). */
static int pin_col(const struct key_fields *kf, int pinner)
{
	if (strcmp(kf->source, "harness"))
		return -1;
	if (!strcmp(kf->op, "register") || !strcmp(kf->op, "pin"))
		return pinner;
	if (!strcmp(kf->op, "pin-ro"))
		return NPINNERS + pinner;
	return -1;
}

static void pcol_name(char *buf, size_t n, int col)
{
	snprintf(buf, n, "%s%s", pinner_name[col % NPINNERS],
		 col >= NPINNERS ? " ro" : "");
}

static size_t grid_row(struct pin_grid *g, const struct key_fields *kf)
{
	char size[32], *lab;
	size_t r;
	int i;

	fmt_size(size, sizeof(size), kf->size);
	lab = xasprintf("%s %s %s%s%s%s", kf->memtype, kf->prefault, size,
			kf->fs ? " (" : "", kf->fs ? kf->fs : "",
			kf->fs ? ")" : "");
	for (r = 0; r < g->nrows; r++)
		if (!strcmp(g->row[r], lab)) {
			free(lab);
			return r;
		}
	g->row = xrealloc(g->row, (r + 1) * sizeof(*g->row));
	g->slot = xrealloc(g->slot, (r + 1) * NPCOLS * sizeof(*g->slot));
	g->row[r] = lab;
	for (i = 0; i < NPCOLS; i++)
		g->slot[r * NPCOLS + i] = -1;
	g->nrows++;
	return r;
}

/* One row per memory type, prefault, size; two keys of one slot: the first. */
static void grid_build(const struct cmp *c, struct pin_grid *g)
{
	struct key_fields kf;
	size_t k, r;
	int col;

	memset(g, 0, sizeof(*g));
	for (k = 0; k < c->nkeys; k++) {
		key_split(&kf, c->key[k]);
		col = pin_col(&kf, pinner_of_key(c->key[k]));
		if (col < 0)
			continue;
		r = grid_row(g, &kf);
		if (g->slot[r * NPCOLS + col] < 0)
			g->slot[r * NPCOLS + col] = k;
	}
}

static void grid_free(struct pin_grid *g)
{
	size_t r;

	for (r = 0; r < g->nrows; r++)
		free(g->row[r]);
	free(g->row);
	free(g->slot);
}

/* The cell of row @r, column @col on file @fi; NULL when not run there. */
static const struct cell *pin_cell(const struct cmp *c,
				   const struct pin_grid *g, size_t r, int col,
				   int fi)
{
	long k = g->slot[r * NPCOLS + col];

	if (k < 0 || !cell_of(c, k, fi)->nrows)
		return NULL;
	return cell_of(c, k, fi);
}

/* "0", "-REFUSED (FAIL)", "0 (unchecked)": marked unless a pass; "-" not run */
static void pin_text(char *buf, size_t n, const struct cell *cl)
{
	if (!cl)
		snprintf(buf, n, "-");
	else if (!strcmp(cl->verdict, "pass"))
		snprintf(buf, n, "%s", cl->res);
	else if (!strcmp(cl->verdict, "fail") ||
		 !strcmp(cl->verdict, "defect") || strchr(cl->verdict, '/'))
		result_text(buf, n, cl);
	else
		snprintf(buf, n, "%s (%s)", cl->res,
			 *cl->verdict ? cl->verdict : "no verdict");
}

/* The columns that file @fi has a row in; returns how many. */
static int used_cols(const struct cmp *c, const struct pin_grid *g, int fi,
		     bool *used)
{
	size_t r;
	int col, n = 0;

	for (col = 0; col < NPCOLS; col++) {
		used[col] = false;
		for (r = 0; r < g->nrows && !used[col]; r++)
			used[col] = pin_cell(c, g, r, col, fi) != NULL;
		n += used[col];
	}
	return n;
}

static void kernel_table(FILE *o, const struct cmp *c,
			 const struct pin_grid *g, int fi, bool md)
{
	char name[NPCOLS][48], text[NPCOLS][128];
	struct table t = { .ncols = 1 };
	const char *v[NPCOLS + 1];
	bool used[NPCOLS], any;
	int col, n;
	size_t r;

	n = used_cols(c, g, fi, used);
	if (!n) {
		fprintf(o, md ? "\n### %s\n\nNo register or pin rows.\n" :
			"\n  %s: no register or pin rows\n", c->file[fi].label);
		return;
	}
	if (n == 1) {
		for (col = 0; !used[col]; col++)
			;
		pcol_name(name[0], sizeof(name[0]), col);
		fprintf(o, md ? "\n### %s\n\nOnly %s rows.\n" : "\n  %s: only %s rows\n",
			c->file[fi].label, name[0]);
		return;
	}
	fprintf(o, md ? "\n### %s\n\n" : "\n  %s:\n", c->file[fi].label);
	v[0] = "memory type";
	for (col = 0; col < NPCOLS; col++)
		if (used[col]) {
			pcol_name(name[col], sizeof(name[col]), col);
			v[t.ncols++] = name[col];
		}
	tab_add(&t, v);
	for (r = 0; r < g->nrows; r++) {
		v[0] = g->row[r];
		any = false;
		for (col = 0, n = 1; col < NPCOLS; col++) {
			const struct cell *cl = pin_cell(c, g, r, col, fi);

			if (!used[col])
				continue;
			any |= cl != NULL;
			pin_text(text[col], sizeof(text[col]), cl);
			v[n++] = text[col];
		}
		if (any)
			tab_add(&t, v);
	}
	tab_print(o, &t, md);
	tab_free(&t);
}

/*
 * What a result says the pinner got: 0 pinned, 1 refused (any errno, or
 * -REFUSED: gup_test does not say which errno), 2 partly (-PARTIAL); 3:
 * repeats that disagree ("mixed ..."), compared as text.
 */
static int outcome(const char *res)
{
	if (!strcmp(res, "0"))
		return 0;
	if (!strcmp(res, "-PARTIAL"))
		return 2;
	return res[0] == '-' ? 1 : 3;
}

static bool same_outcome(const char *a, const char *b)
{
	return outcome(a) == outcome(b) && (outcome(a) != 3 || !strcmp(a, b));
}

/*
 * Whether the pinners of one access (@ro: the read-only pins) that ran
 * memory type @r on file @fi got different outcomes (pinned, refused,
 * partly pinned: which errno refused is not compared); @line is the list.
 */
static bool disagree(const struct cmp *c, const struct pin_grid *g, size_t r,
		     int fi, bool ro, char *line, size_t n)
{
	const char *first = NULL, *sep = "";
	bool differ = false;
	char name[48];
	int col;

	line[0] = '\0';
	for (col = ro ? NPINNERS : 0; col < (ro ? NPCOLS : NPINNERS); col++) {
		const struct cell *cl = pin_cell(c, g, r, col, fi);
		size_t len = strlen(line);

		if (!cl)
			continue;
		if (first && !same_outcome(first, cl->res))
			differ = true;
		if (!first)
			first = cl->res;
		pcol_name(name, sizeof(name), col);
		snprintf(line + len, n - len, "%s%s %s", sep, name, cl->res);
		sep = ", ";
	}
	return differ;
}

/*
 * The memory types where the pinners of one kernel disagree, counted or
 * (@o not NULL) listed: "stock: file-shared write 4M: io_uring -EOPNOTSUPP,
 * gup-fast 0, gup 0".
 */
static size_t list_disagree(FILE *o, const struct cmp *c,
			    const struct pin_grid *g, bool md)
{
	char buf[512];
	size_t r, n = 0;
	int fi, ro;

	for (fi = 0; fi < c->nfiles; fi++)
		for (r = 0; r < g->nrows; r++)
			for (ro = 0; ro < 2; ro++) {
				if (!disagree(c, g, r, fi, ro, buf, sizeof(buf)))
					continue;
				n++;
				if (o)
					fprintf(o, "%s%s: %s: %s\n", md ? "- " : "  ",
						c->file[fi].label, g->row[r], buf);
			}
	return n;
}

static void sect_disagree(FILE *o, const struct cmp *c,
			  const struct pin_grid *g, bool md)
{
	size_t n = list_disagree(NULL, c, g, md);

	if (md)
		fprintf(o, "\n### Where the pinners disagree\n\n%zu memory type(s) on some kernel: one pinner pinned, another refused or pinned part (which errno refused is not compared).\n%s",
			n, n ? "\n" : "");
	else
		fprintf(o, "\n  Where the pinners disagree: %zu memory type(s) on some kernel\n  (pinned, refused or partly pinned; which errno refused is not compared)\n", n);
	list_disagree(o, c, g, md);
}

void sect_pinners(FILE *o, const struct cmp *c, bool md)
{
	struct pin_grid g;
	int fi;

	grid_build(c, &g);
	heading(o, md, "What each long-term pinner gets");
	fprintf(o, "%sThe result of each pinner per memory type, prefault and size (ro: a read-only\n"
		"%spin), one table per kernel; a verdict other than pass follows in brackets;\n"
		"%s-: not run. REFUSED: no page pinned, PARTIAL: some pages pinned, not all.\n",
		md ? "" : "  ", md ? "" : "  ", md ? "" : "  ");
	for (fi = 0; fi < c->nfiles; fi++)
		kernel_table(o, c, &g, fi, md);
	sect_disagree(o, c, &g, md);
	grid_free(&g);
}
