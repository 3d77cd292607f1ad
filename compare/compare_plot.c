// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare --plots: gnuplot data and scripts for the verdict grid
 * (compare_grid.c), registration ns/page and fixed/plain ratio bars, and
 * against the buffer's size; gnuplot runs them when it is installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"

/* ---- plots ---- */

/* @s as a gnuplot string: no double quote or backslash can end it early. */
void gp_str(FILE *o, const char *s)
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
		if (which && strstr(c->file[i].accel, "tcg")) {
			char t[96];

			snprintf(t, sizeof(t), "%s (tcg: emulated)", c->file[i].label);
			gp_str(gp, t);
		} else {
			gp_str(gp, c->file[i].label);
		}
	}
	fputc('\n', gp);
	return n;
}

/* Keys of harness anon rows of @op and @pf, by size (at most @max). */
static size_t size_keys(const struct cmp *c, const char *op, const char *pf,
			size_t *out, size_t max)
{
	struct key_fields kf;
	size_t k, n = 0, i, j, t;

	for (k = 0; k < c->nkeys && n < max; k++) {
		key_split(&kf, c->key[k]);
		if (!strcmp(kf.source, "harness") && !strcmp(kf.memtype, "anon") &&
		    !strcmp(kf.op, op) && !strcmp(kf.prefault, pf) && !kf.fs)
			out[n++] = k;
	}
	for (i = 1; i < n; i++)	/* insertion sort by size */
		for (j = i; j > 0; j--) {
			struct key_fields a, b;

			key_split(&a, c->key[out[j - 1]]);
			key_split(&b, c->key[out[j]]);
			if (strtoull(a.size, NULL, 10) <= strtoull(b.size, NULL, 10))
				break;
			t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* one block of size (MiB) and each kernel's median, min, max */
static size_t size_block(FILE *dat, const struct cmp *c, const char *op,
			 const char *pf, bool stall)
{
	size_t keys[64], n = size_keys(c, op, pf, keys, 64), i, rows = 0;
	struct key_fields kf;
	int f;

	for (i = 0; i < n; i++) {
		bool any = false;

		for (f = 0; f < c->nfiles; f++) {
			const struct cell *cl = cell_of(c, keys[i], f);

			any |= !strcmp(cl->res, "0") &&
			       (stall ? cl->probe_max.ok : cl->reg.ok);
		}
		if (!any)
			continue;
		key_split(&kf, c->key[keys[i]]);
		fprintf(dat, "%g", strtoull(kf.size, NULL, 10) / 1048576.0);
		for (f = 0; f < c->nfiles; f++) {
			const struct cell *cl = cell_of(c, keys[i], f);

			if (strcmp(cl->res, "0"))
				fputs(" NaN NaN NaN", dat);
			else
				bar_value(dat, stall ? &cl->probe_max : &cl->reg, true);
		}
		fputc('\n', dat);
		rows++;
	}
	fputs("\n\n", dat);
	return rows;
}

static const char *method_of(const struct cmp *c)
{
	return c->have_icount ? "guest instructions (QEMU -icount)" :
	       "wall clock";
}

/*
 * @stall 0: registration ns per page against the buffer's size, a line
 * per kernel (prefault write, --cycles rows); 1: the sibling's longest
 * call per registration against size, written and untouched. Log-log.
 */
static size_t plot_size(FILE *dat, FILE *gp, const struct cmp *c, bool stall)
{
	const char *name = stall ? "stall-size" : "reg-size";
	size_t nw, nn = 0;
	int i, b;

	nw = size_block(dat, c, stall ? "register-mmap-probe" : "register", "write", stall);
	if (stall)
		nn = size_block(dat, c, "register-mmap-probe", "none", true);
	fprintf(gp, "set terminal png noenhanced size 900,560\nset output '%s.png'\n", name);
	fprintf(gp, "set title \"%s\\n%s; median, error bars min-max%s\"\n",
		stall ? "Longest mmap+write+munmap of a sibling thread per registration" :
			"Registration ns per 4 KiB page, written anonymous memory",
		method_of(c), c->have_repeats ? " over repeats" : "");
	fprintf(gp, "set xlabel 'buffer MiB (log)'\nset ylabel '%s (log)'\n",
		stall ? "stall us" : "ns per page");
	fputs("set logscale xy\nset grid\nset key outside right top vertical\n"
	      "set datafile missing 'NaN'\nset xtics (4,8,16,32,64,128,256,512,1024)\n", gp);
	for (b = 0, i = 0; b < (stall ? 2 : 1); b++) {
		size_t rows = b ? nn : nw;
		int f;

		if (!rows)
			continue;
		for (f = 0; f < c->nfiles; f++, i++) {
			char t[96];

			fprintf(gp, "%s'%s.dat' index %d using 1:%d:%d:%d with yerrorlines lc %d dt %d pt %d title ",
				i ? ", \\\n     " : "plot ", name, b, 2 + 3 * f,
				3 + 3 * f, 4 + 3 * f, f + 1, b ? 2 : 1, 7 - 2 * b);
			snprintf(t, sizeof(t), "%s%s", c->file[f].label,
				 stall ? (b ? " untouched" : " written") : "");
			gp_str(gp, t);
		}
	}
	fputc('\n', gp);
	return nw + nn;
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

int write_plots(const struct cmp *c, const char *dir)
{
	static const char *const name[] = { "verdicts", "reg", "ratio",
					    "reg-size", "stall-size" };
	bool made[5] = { c->nkeys > 0, false, false, false, false };
	FILE *dat, *gp;
	int i, ret;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return usage_err("%s: %s: give a directory that can be created",
				 dir, strerror(errno));
	for (i = 0; i < 5; i++) {
		ret = open_pair(dir, name[i], &dat, &gp);
		if (ret)
			return ret;
		if (i >= 3)
			made[i] = plot_size(dat, gp, c, i == 4) > 0;
		else if (i)
			made[i] = plot_bars(dat, gp, c, i - 1) > 0;
		else
			plot_verdicts(dat, gp, c);
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
	for (i = 0; i < 5; i++)
		if (made[i]) {
			ret |= run_gnuplot(dir, name[i]);
			printf(" %s.png", name[i]);
		}
	printf("%s\n", made[0] ? "" : " nothing to plot (no rows)");
	return ret;
}

