// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare's report: the sections as aligned text (stdout) or as
 * markdown (--report), from the joined cells.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

/* ---- tables: rendered as aligned text or as markdown ---- */

void tab_add(struct table *t, const char *const *v)
{
	size_t i = t->nrows * t->ncols;
	int c;

	t->cell = xrealloc(t->cell, (i + t->ncols) * sizeof(*t->cell));
	for (c = 0; c < t->ncols; c++)
		t->cell[i + c] = xstrdup(v[c] ? v[c] : "");
	t->nrows++;
}

void tab_free(struct table *t)
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
void tab_print(FILE *o, const struct table *t, bool md)
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

void heading(FILE *o, bool md, const char *s)
{
	fprintf(o, md ? "\n## %s\n\n" : "\n%s\n", s);
}

static void sect_files(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = 9 };
	char n[6][16];
	int i;

	heading(o, md, "Kernels and verdicts");
	tab_add(&t, (const char *[]){ "kernel", "file", "pass", "fail",
				      "known defect (data lost, pins leaked)",
				      "defect did not show (fixed)", "unchecked",
				      "other", "accel" });
	for (i = 0; i < c->nfiles; i++) {
		const struct file *f = &c->file[i];
		char lab[80];

		snprintf(lab, sizeof(lab), "%s%s", f->label,
			 i == c->base ? " (baseline)" : "");
		snprintf(n[0], 16, "%d", f->npass);
		snprintf(n[1], 16, "%d", f->nfail);
		snprintf(n[2], 16, "%d", f->nunchecked);
		snprintf(n[3], 16, "%d", f->nother);
		snprintf(n[4], 16, "%d", f->ndefect);
		snprintf(n[5], 16, "%d", f->nfixed);
		tab_add(&t, (const char *[]){ lab, f->path, n[0], n[1], n[4],
					      n[5], n[2], n[3], f->accel });
	}
	tab_print(o, &t, md);
	tab_free(&t);
}

/* The kind of known defect a section lists (struct cell's pin_defect). */
enum defect_kind { DK_DATA, DK_PINS };

static bool cell_is(const struct cell *cl, const char *verdict,
		    enum defect_kind dk)
{
	return strstr(cl->verdict, verdict) && cl->pin_defect == (dk == DK_PINS);
}

/*
 * The keys of every row whose verdict is @verdict and whose defect is of
 * kind @dk, under @title and @text (nothing when there are none).
 */
static void sect_verdict(FILE *o, const struct cmp *c, bool md,
			 const char *verdict, enum defect_kind dk,
			 const char *title, const char *text)
{
	size_t k, n = 0;
	char lab[256];
	int i;

	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++)
			n += cell_is(cell_of(c, k, i), verdict, dk);
	if (!n)
		return;
	heading(o, md, title);
	fprintf(o, "%s\n%s", text, md ? "\n" : "");
	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *cl = cell_of(c, k, i);

			if (!cl->nrows || !cell_is(cl, verdict, dk))
				continue;
			key_label(lab, sizeof(lab), c->key[k], true);
			fprintf(o, "%s%s: %s %s\n", md ? "- " : "  ", lab,
				c->file[i].label, cl->res);
		}
}

/*
 * Rows whose verdict is "defect": the kernel answered what its contract
 * says, and the row shows a known kernel defect: data lost (lifetime
 * cases) or pins that are never given back (a pinner's rows). Rows whose
 * verdict is "fixed": the contract names such a defect there, and it did
 * not show (the kernel changed, or the contract row is wrong).
 */
static void sect_defects(FILE *o, const struct cmp *c, bool md)
{
	sect_verdict(o, c, md, "defect", DK_DATA, "Data lost: known kernel defects",
		     "These rows answered what the kernel's contract expects, and the answer is\n"
		     "data loss (a known defect of that kernel, not a pass):");
	sect_verdict(o, c, md, "defect", DK_PINS, "Pins leaked: known kernel defects",
		     "These rows answered what the kernel's contract expects, and the pins they\n"
		     "took were not all given back (a known defect of that kernel, named in its\n"
		     "contract and in the row's note; not a pass):");
	sect_verdict(o, c, md, "fixed", DK_DATA, "Known defects that did not show",
		     "The kernel's contract expects data loss on these rows, and the data\n"
		     "survived: the kernel changed, or the contract row is wrong:");
	sect_verdict(o, c, md, "fixed", DK_PINS, "Known pin leaks that did not show",
		     "The kernel's contract expects these rows' pins to leak, and they were\n"
		     "all given back: the kernel changed, or the contract row is wrong:");
}

/*
 * Rows that left pages pinned or whose data check failed: failures
 * whatever the kernel answered, each in its own list.
 */
static void sect_failures(FILE *o, const struct cmp *c, bool md)
{
	size_t k, nleak = 0, ncorrupt = 0;
	char lab[256];
	int i, pass;

	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++) {
			nleak += cell_of(c, k, i)->leak_kb > 0;
			ncorrupt += cell_of(c, k, i)->ncorrupt;
		}
	for (pass = 0; pass < 2; pass++) {
		if (!(pass ? ncorrupt : nleak))
			continue;
		heading(o, md, pass ? "Data lost or corrupted" : "Pins leaked");
		fprintf(o, "%s%s", pass ?
			"Rows whose data check failed: what the I/O wrote is not what was read back.\n" :
			"Rows after which VmPin did not come back: pages still pinned.\n",
			md ? "\n" : "");
		for (k = 0; k < c->nkeys; k++)
			for (i = 0; i < c->nfiles; i++) {
				const struct cell *cl = cell_of(c, k, i);

				if (pass ? !cl->ncorrupt : !cl->leak_kb)
					continue;
				key_label(lab, sizeof(lab), c->key[k], true);
				if (pass)
					fprintf(o, "%s%s: %s, %d row(s)\n", md ? "- " : "  ",
						lab, c->file[i].label, cl->ncorrupt);
				else
					fprintf(o, "%s%s: %s, %ld kB still pinned\n",
						md ? "- " : "  ", lab,
						c->file[i].label, cl->leak_kb);
			}
	}
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

void result_text(char *buf, size_t n, const struct cell *cl)
{
	if (!cl->nrows)
		snprintf(buf, n, "missing");
	else if (strchr(cl->verdict, '/'))
		snprintf(buf, n, "%s (%s)", cl->res, cl->verdict);
	else if (!strcmp(cl->verdict, "fail"))
		snprintf(buf, n, "%s (FAIL)", cl->res);
	else if (!strcmp(cl->verdict, "defect"))
		snprintf(buf, n, "%s (%s)", cl->res,
			 cl->pin_defect ? "PINS LEAKED" : "DATA LOST");
	else if (!strcmp(cl->verdict, "fixed"))
		snprintf(buf, n, "%s (defect did not show)", cl->res);
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

/* Throughput measured under TCG is the emulator's, not the hardware's. */
static void mark_emulated(char *buf, size_t n, bool emulated)
{
	if (emulated && strcmp(buf, "-"))
		strncat(buf, " (tcg)", n - strlen(buf) - 1);
}

static void emulated_note(FILE *o, const struct cmp *c, bool md)
{
	if (c->have_emulated)
		fprintf(o, "%s(tcg): measured in a guest under QEMU's TCG emulator: MiB/s and\n"
			"%sfixed/plain ratios are emulated, not hardware figures; rows with accel\n"
			"%snone (bare metal) or a hardware hypervisor (kvm, ...) are the reference.\n",
			md ? "\n" : "  ", md ? "" : "  ", md ? "" : "  ");
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
	if (cl->probe_max.min < cl->probe_max.max) {
		char lo[24], hi[24];

		fmt_num(lo, sizeof(lo), cl->probe_max.min);
		fmt_num(hi, sizeof(hi), cl->probe_max.max);
		snprintf(buf, n, "%s [%s-%s] / %s / %s", a, lo, hi, b, d);
		return;
	}
	snprintf(buf, n, "%s / %s / %s", a, b, d);
}

static void sect_perf(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = c->have_probe ? 7 : 6 };
	char lab[256], s[5][128];
	size_t k;
	int i, j;

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
			for (j = 1; j <= 3; j++)
				mark_emulated(s[j], sizeof(s[j]), cl->emulated);
			probe_text(s[4], sizeof(s[4]), cl);
			tab_add(&t, (const char *[]){ lab, c->file[i].label, s[0],
						      s[1], s[2], s[3], s[4] });
		}
	if (t.nrows > 1)
		tab_print(o, &t, md);
	else
		fprintf(o, "%sno performance data\n", md ? "" : "  ");
	tab_free(&t);
	emulated_note(o, c, md);
	if (c->nfirst_only)
		fprintf(o, "%sreg ns/page: %zu key(s) have --cycles rows in some files only; for them\n"
			"%sthe first registrations are compared (a cycles' median is not one).\n",
			md ? "\n" : "  ", c->nfirst_only, md ? "" : "  ");
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
	struct table t = { .ncols = c->have_probe ? 7 : 6 };
	char lab[256], vs[160], s[5][128];
	size_t k;
	int i, j;

	snprintf(vs, sizeof(vs), "Against the baseline %s: kernel / %s (noise: the [min-max] ranges overlap)",
		 c->file[c->base].label, c->file[c->base].label);
	heading(o, md, vs);
	tab_add(&t, (const char *[]){ "key", "kernel", "registration pages/s",
				      "fixed MiB/s", "plain MiB/s", "fixed/plain",
				      "mmap probe longest" });
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
			for (j = 1; j <= 3; j++)
				mark_emulated(s[j], sizeof(s[j]),
					      b->emulated || cl->emulated);
			fmt_rel(s[4], sizeof(s[4]), &b->probe_max,
				&cl->probe_max, false);
			tab_add(&t, (const char *[]){ lab, c->file[i].label, s[0],
						      s[1], s[2], s[3], s[4] });
		}
	if (t.nrows > 1)
		tab_print(o, &t, md);
	else
		fprintf(o, "%sno key with performance data on the baseline and another kernel\n",
			md ? "" : "  ");
	tab_free(&t);
	emulated_note(o, c, md);
}

/* "±1.3%": the larger distance of min or max from the median */
static void fmt_spread(char *buf, size_t n, const struct range *r)
{
	double d = fmax(r->med - r->min, r->max - r->med);

	if (!r->ok || r->med <= 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%s%.1f%%", d > 0 ? "+-" : "", 100 * d / r->med);
}

static void spread_row(struct table *t, const char *lab, const char *kernel,
		       const char *fig, const struct cell *cl,
		       const struct range *r, long nsamp)
{
	char med[32], sp[64], ns[64], how[48] = "wall clock";

	if (!r->ok)
		return;
	if (cl->icount && cl->tick_us)
		snprintf(how, sizeof(how), "instructions, %d us turns", cl->tick_us);
	else if (cl->icount)
		snprintf(how, sizeof(how), "instructions");
	fmt_num(med, sizeof(med), r->med);
	fmt_spread(sp, sizeof(sp), r);
	if (cl->nrep > 1) {
		strncat(sp, " over repeats", sizeof(sp) - strlen(sp) - 1);
		snprintf(ns, sizeof(ns), "%d repeats, %ld in all", cl->nrep, nsamp);
	} else {
		strncat(sp, " within the run", sizeof(sp) - strlen(sp) - 1);
		snprintf(ns, sizeof(ns), "%ld", nsamp);
	}
	tab_add(t, (const char *[]){ lab, kernel, fig, how, med, sp, ns });
}

/*
 * Per benchmark figure: how it was measured (instructions under -icount,
 * or the wall clock), its median, its spread (over the repeats with
 * --repeats: each repeat's own median against their median; else over the
 * samples of the one run) and the registrations behind it.
 */
static void sect_spread(FILE *o, const struct cmp *c, bool md)
{
	struct table t = { .ncols = 7 };
	char lab[256];
	size_t k;
	int i;

	heading(o, md, "Benchmark figures: method, median, spread, samples");
	tab_add(&t, (const char *[]){ "key", "kernel", "figure", "method",
				      "median", "spread", "samples" });
	for (k = 0; k < c->nkeys; k++)
		for (i = 0; i < c->nfiles; i++) {
			const struct cell *cl = cell_of(c, k, i);

			if (strcmp(cl->res, "0"))	/* refusals: no registration */
				continue;
			key_label(lab, sizeof(lab), c->key[k], true);
			spread_row(&t, lab, c->file[i].label, "reg ns/page", cl,
				   &cl->reg, cl->reg_samples);
			spread_row(&t, lab, c->file[i].label, "stall us", cl,
				   &cl->probe_max, cl->probe_samples);
		}
	if (t.nrows > 1)
		tab_print(o, &t, md);
	else
		fprintf(o, "%sno benchmark figures\n", md ? "" : "  ");
	tab_free(&t);
	fprintf(o, "%sinstructions: QEMU's -icount, the guest's clock counts executed instructions\n"
		"%s(2^shift ns each): a figure does not move with the host's load. stall: the\n"
		"%slongest mmap+write+munmap of a sibling thread over one registration.\n"
		"%sN us turns: an HPET tick every N us ended QEMU's turns between the vCPUs;\n"
		"%swithout it a turn lasts to the next guest timer, up to 2 ms.\n",
		md ? "\n" : "  ", md ? "" : "  ", md ? "" : "  ", md ? "" : "  ",
		md ? "" : "  ");
}

void write_all(FILE *o, const struct cmp *c, bool md)
{
	int i;

	if (md) {
		fputs("# longpin-compare report\n\nFiles:", o);
		for (i = 0; i < c->nfiles; i++)
			fprintf(o, " `%s`", c->file[i].path);
		fputs(".\n", o);
	}
	sect_files(o, c, md);
	sect_defects(o, c, md);
	sect_failures(o, c, md);
	if (c->npinners > 1)
		sect_pinners(o, c, md);
	sect_diffs(o, c, md);
	sect_results(o, c, md);
	sect_perf(o, c, md);
	if (c->nfiles > 1)
		sect_rel(o, c, md);
	if (c->have_repeats || c->have_icount)
		sect_spread(o, c, md);
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

int write_report(const struct cmp *c, const char *path)
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

