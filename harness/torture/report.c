// SPDX-License-Identifier: GPL-2.0
/*
 * longpin torture-report CSV...: the torture CSVs of a run (schema
 * torture-1, torture.c's), one per kernel (torture-KERNEL.csv), as one
 * markdown table: a row per memory type, a column per kernel, in each
 * cell the verdict, the operations and outcomes and, for a failed run,
 * why. Columns are read by their names. ./run.sh torture writes it to
 * torture.md.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "longpin.h"
#include "torture.h"

#define TR_FIELDS	64
#define TR_TYPES	64

struct tr_kernel {
	char label[64];			/* KERNEL of torture-KERNEL.csv */
	char kernel[64], seconds[16];	/* of its last row */
	char *cell[TR_TYPES];		/* by the index of the type */
};

struct tr {
	struct tr_kernel k[LP_MAX_ARGS];
	int nk;
	char *type[TR_TYPES];
	int ntypes;
};

/* Split @line at commas into @f; returns the number of fields. */
static int split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	f[n++] = line;
	while (n < TR_FIELDS && (line = strchr(line, ','))) {
		*line++ = '\0';
		f[n++] = line;
	}
	return n;
}

static int col(char **hdr, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return i;
	return -1;
}

static int type_index(struct tr *r, const char *name)
{
	int i;

	for (i = 0; i < r->ntypes; i++)
		if (!strcmp(r->type[i], name))
			return i;
	if (r->ntypes == TR_TYPES)
		return -1;
	r->type[r->ntypes] = strdup(name);
	return r->type[r->ntypes] ? r->ntypes++ : -1;
}

/* The cell of one row: verdict, operations, outcomes, why it failed (or
 * which known defect it showed). */
static char *cell_of(char **f, char **h, int nh)
{
	static const char *const need[] = {
		"memtype", "ops", "reg_ok", "reg_refused", "reg_raced", "io_ok",
		"io_raced", "migrate", "kernel_reports", "verdict", "note",
	};
	int c[ARRAY_SIZE(need)], i;
	long ops = 0;
	bool why;
	char *s;

	for (i = 0; i < (int)ARRAY_SIZE(need); i++)
		if ((c[i] = col(h, nh, need[i])) < 0)
			return NULL;
	for (i = c[1] + 1; i < c[2]; i++)
		ops += atol(f[i]);
	/* a failed run says why, a known defect which */
	why = !strcmp(f[c[9]], "fail") || !strcmp(f[c[9]], "defect");
	if (asprintf(&s, "%s %ld ops, reg %ld ok %ld refused %ld raced, io %ld/%ld, migrate %ld, reports %s%s%s",
		     f[c[9]], ops, atol(f[c[2]]), atol(f[c[3]]), atol(f[c[4]]),
		     atol(f[c[5]]), atol(f[c[6]]), atol(f[c[7]]), f[c[8]],
		     why ? ": " : "", why ? f[c[10]] : "") < 0)
		return NULL;
	return s;
}

/* One kernel's CSV into @k: its cells, its kernel and seconds. */
static int read_csv(struct tr *r, struct tr_kernel *k, const char *path)
{
	char hline[2048], line[4096], *h[TR_FIELDS], *f[TR_FIELDS], *base, *p;
	FILE *in = fopen(path, "r");
	int nh, i;

	if (!in)
		return lp_err(LP_EUSAGE, "torture-report %s: cannot read it: give torture CSVs", path);
	snprintf(line, sizeof(line), "%s", path);
	base = basename(line);
	p = strstr(base, "torture-");
	snprintf(k->label, sizeof(k->label), "%s", p ? p + 8 : base);
	if ((p = strstr(k->label, ".csv")) && !p[4])
		*p = '\0';
	if (!fgets(hline, sizeof(hline), in) || strncmp(hline, "schema,", 7)) {
		fclose(in);
		return lp_err(LP_EUSAGE, "torture-report %s:1: not a torture CSV: give the CSVs of longpin torture", path);
	}
	nh = split(hline, h);
	if (col(h, nh, "memtype") < 0 || col(h, nh, "kernel") < 0 ||
	    col(h, nh, "seconds") < 0) {
		fclose(in);
		return lp_err(LP_EUSAGE, "torture-report %s:1: not a torture CSV: give the CSVs of longpin torture", path);
	}
	while (fgets(line, sizeof(line), in)) {
		if (split(line, f) != nh)
			continue;
		i = type_index(r, f[col(h, nh, "memtype")]);
		if (i < 0)
			break;
		free(k->cell[i]);
		k->cell[i] = cell_of(f, h, nh);
		snprintf(k->kernel, sizeof(k->kernel), "%s", f[col(h, nh, "kernel")]);
		snprintf(k->seconds, sizeof(k->seconds), "%s", f[col(h, nh, "seconds")]);
	}
	fclose(in);
	return LP_OK;
}

static void print_report(const struct tr *r)
{
	int i, j;

	puts("# longpin torture: operations and verdict per memory type\n");
	puts("ops: every operation of every thread; raced: registrations answered -EFAULT\n"
	     "while a range was unmapped, read-only or truncated under them; io: fixed\n"
	     "I/O rounds checked (ok / raced with a content-changing op); reports:\n"
	     "kernel reports in /dev/kmsg during the run.");
	printf("\n| memory type |");
	for (i = 0; i < r->nk; i++)
		printf(" %s (%s, %s s) |", r->k[i].label, r->k[i].kernel,
		       r->k[i].seconds);
	printf("\n|---|");
	for (i = 0; i < r->nk; i++)
		printf("---|");
	printf("\n");
	for (j = 0; j < r->ntypes; j++) {
		printf("| %s |", r->type[j]);
		for (i = 0; i < r->nk; i++)
			printf(" %s |", r->k[i].cell[j] ? r->k[i].cell[j] : "-");
		printf("\n");
	}
}

int lp_torture_report(int nfiles, const char *const *files)
{
	struct tr *r = calloc(1, sizeof(*r));
	int i, j, ret = LP_OK;

	if (!r)
		return lp_err(LP_EUSAGE, "out of memory");
	if (!nfiles)
		ret = lp_err(LP_EUSAGE, "torture-report: give the torture CSVs (torture-KERNEL.csv)");
	for (i = 0; ret == LP_OK && i < nfiles; i++, r->nk++)
		ret = read_csv(r, &r->k[i], files[i]);
	if (ret == LP_OK)
		print_report(r);
	for (i = 0; i < r->nk; i++)
		for (j = 0; j < TR_TYPES; j++)
			free(r->k[i].cell[j]);
	for (j = 0; j < r->ntypes; j++)
		free(r->type[j]);
	free(r);
	return ret;
}
