// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare: joins the CSV files of several kernels (one file per
 * kernel, labelled by its basename) on (source, pinner, memtype, prefault,
 * size, op) and shows where their registration results differ, what each
 * long-term pinner gets, and how their performance compares with a baseline
 * kernel. Text on stdout, optionally a markdown report and gnuplot plots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

static const char *const col_name[NCOLS] = {
	"source", "pinner", "memtype", "prefault", "size", "op", "fs_type",
	"result", "errno", "verdict",
	"reg_ns_per_page", "cycle_reg_ns_min", "cycle_reg_ns_med",
	"cycle_reg_ns_max",
	"fixed_mibs_min", "fixed_mibs_med", "fixed_mibs_max",
	"plain_mibs_min", "plain_mibs_med", "plain_mibs_max",
	"ratio_min", "ratio_med", "ratio_max",
	"probe_calls", "probe_p999_us", "probe_max_us",
	"vmpin_leak_kb", "data_check", "kernel", "contract", "accel",
	"cycles",
};

/* io_uring first: the pinner of files that have no pinner column */
const char *const pinner_name[NPINNERS] = {
#define LP_PINNER(id, name, ops, help) [P_##id] = name,
#include "pinners.def"
#undef LP_PINNER
};

/* "io_uring, gup-fast, gup, rdma, vfio": the pinners this longpin-compare knows */
static const char *pinner_names(void)
{
	static char buf[160];
	size_t len = 0;
	int p;

	for (p = 0; p < NPINNERS && len < sizeof(buf); p++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				p ? ", " : "", pinner_name[p]);
	return buf;
}

void die_oom(void)
{
	fprintf(stderr, PROG ": out of memory\n");
	exit(EXIT_USAGE);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p)
		die_oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_oom();
	return p;
}

__attribute__((format(printf, 1, 2)))
char *xasprintf(const char *fmt, ...)
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
int usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* ---- files and keys ---- */

void fmt_size(char *buf, size_t n, const char *s)
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
		const char *v = col_get(f, r, C_VERDICT), *a = col_get(f, r, C_ACCEL);

		set_add(f->accel, sizeof(f->accel), *a && strcmp(a, "-") ? a : "?");

		if (!strcmp(v, "pass"))
			f->npass++;
		else if (!strcmp(v, "fail"))
			f->nfail++;
		else if (!strcmp(v, "defect"))
			f->ndefect++;
		else if (!strcmp(v, "fixed"))
			f->nfixed++;
		else if (!strcmp(v, "unchecked"))
			f->nunchecked++;
		else
			f->nother++;
	}
}

/*
 * One file is one kernel: rows of two kernels (or judged by two contracts,
 * as stock and patched 6.1 share a release) would be merged under one
 * label. Warn, naming the first two.
 */
static void warn_mixed(const struct file *f)
{
	const char *k0 = NULL, *c0 = NULL, *k, *ct;
	size_t r;

	for (r = 0; r < f->csv.nrows; r++) {
		k = col_get(f, r, C_KERNEL);
		ct = col_get(f, r, C_CONTRACT);
		if (!k0) {
			k0 = k;
			c0 = ct;
		} else if (strcmp(k, k0) || strcmp(ct, c0)) {
			fprintf(stderr, PROG ": warning: %s holds rows of more than one kernel (%s %s, %s %s), merged under the label %s: give one file per kernel\n",
				f->path, k0, c0, k, ct, f->label);
			return;
		}
	}
}

static int pinner_index(const char *s)
{
	int p;

	for (p = 0; p < NPINNERS; p++)
		if (!strcmp(s, pinner_name[p]))
			return p;
	return -1;
}

/* The pinner of row @r: io_uring in a file without the column (schema < 3). */
static const char *row_pinner(const struct file *f, size_t r)
{
	return f->col[C_PINNER] < 0 ? pinner_name[P_IO_URING] :
	       col_get(f, r, C_PINNER);
}

/* Every row names a known pinner; note which ones are there. */
static int check_pinners(struct cmp *c, const struct file *f)
{
	size_t r;
	int p;

	for (r = 0; r < f->csv.nrows; r++) {
		p = pinner_index(row_pinner(f, r));
		if (p < 0)
			return usage_err("%s:%lu: unknown pinner '%.40s' (%s): use the longpin-compare of the longpin that wrote it",
					 f->path, f->csv.line[r],
					 row_pinner(f, r), pinner_names());
		if (!(c->pinners & 1u << p))
			c->npinners++;
		c->pinners |= 1u << p;
	}
	return 0;
}

static int load_file(struct cmp *c, int i)
{
	struct file *f = &c->file[i];
	char err[512];
	int k;

	if (f->nrep > 1) {
		size_t rows[MAX_REPEATS], r = 0;
		int j;

		if (csv_load_many(f->rpath, f->nrep, &f->csv, rows, err, sizeof(err)))
			return usage_err("%s", err);
		f->rep = xcalloc(f->csv.nrows, sizeof(*f->rep));
		for (j = 0; j < f->nrep; j++)
			for (size_t e = r + rows[j]; r < e && r < f->csv.nrows; r++)
				f->rep[r] = j;
	} else if (csv_load(f->path, &f->csv, err, sizeof(err))) {
		return usage_err("%s", err);
	}
	for (k = 0; k < NCOLS; k++)
		f->col[k] = csv_col(&f->csv, col_name[k]);
	if (check_pinners(c, f))
		return EXIT_USAGE;
	set_label(f);
	count_verdicts(f);
	warn_mixed(f);
	if (!i)
		return 0;
	/* pinner is new in schema 3: a file without it is all io_uring */
	for (k = 0; k < NCOLS; k++)
		if (k != C_PINNER && k != C_CYCLES &&
		    (f->col[k] < 0) != (c->file[0].col[k] < 0))
			return usage_err("%s:1: column '%s' is in %s but not in %s: compare files written by the same longpin version",
					 f->path, col_name[k],
					 f->col[k] < 0 ? c->file[0].path : f->path,
					 f->col[k] < 0 ? f->path : c->file[0].path);
	return 0;
}

static char *base_key(const struct file *f, size_t r)
{
	return xasprintf("%s,%s,%s,%s,%s,%s", col_get(f, r, C_SOURCE),
			 row_pinner(f, r), col_get(f, r, C_MEMTYPE),
			 col_get(f, r, C_PREFAULT), col_get(f, r, C_SIZE),
			 col_get(f, r, C_OP));
}

/*
 * What decides the split by fs_type: the base key without the pinner, and
 * with the pinning ops (io_uring's register, gup's pin and pin-ro) as one,
 * so that every pinner's row of one memory type is split alike and they
 * line up in the pinner tables.
 */
static char *split_key(const struct file *f, size_t r)
{
	const char *op = col_get(f, r, C_OP);

	if (!strcmp(op, "register") || !strcmp(op, "pin") ||
	    !strcmp(op, "pin-ro"))
		op = "pin";
	return xasprintf("%s,%s,%s,%s,%s", col_get(f, r, C_SOURCE),
			 col_get(f, r, C_MEMTYPE), col_get(f, r, C_PREFAULT),
			 col_get(f, r, C_SIZE), op);
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

				if (!strcmp(col_get(f, r, C_FS), col_get(f, s, C_FS)))
					continue;
				a = split_key(f, r);
				b = split_key(f, s);
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
			char *key = base_key(f, r), *sk = split_key(f, r);
			bool split_fs = in_list(split, nsplit, sk, NULL);

			free(sk);
			if (split_fs) {
				char *full = xasprintf("%s,%s", key, col_get(f, r, C_FS));

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

void key_split(struct key_fields *kf, const char *key)
{
	const char **f[7] = { &kf->source, &kf->pinner, &kf->memtype,
			      &kf->prefault, &kf->size, &kf->op, &kf->fs };
	char *s = kf->buf;
	int i;

	snprintf(kf->buf, sizeof(kf->buf), "%s", key);
	for (i = 0; i < 7; i++) {
		*f[i] = s ? s : i < 6 ? "" : NULL;
		s = s ? strchr(s, ',') : NULL;
		if (s)
			*s++ = '\0';
	}
}

/* The enum pinner of @key (io_uring if unknown). */
int pinner_of_key(const char *key)
{
	struct key_fields kf;
	int p;

	key_split(&kf, key);
	p = pinner_index(kf.pinner);
	return p < 0 ? P_IO_URING : p;
}

/*
 * "anon write 4M", "fio randread-null_blk anon write 4M", "... (xfs)",
 * "gup-fast pin anon write 4M": the pinner unless io_uring, the op unless
 * register.
 */
void key_label(char *buf, size_t n, const char *key, bool with_pf)
{
	struct key_fields kf;
	char size[32];

	key_split(&kf, key);
	fmt_size(size, sizeof(size), kf.size);
	buf[0] = '\0';
	if (strcmp(kf.source, "harness"))
		cat(buf, n, "%s ", kf.source);
	if (strcmp(kf.pinner, pinner_name[P_IO_URING]))
		cat(buf, n, "%s ", kf.pinner);
	if (strcmp(kf.op, "register"))
		cat(buf, n, "%s ", kf.op);
	cat(buf, n, "%s ", kf.memtype);
	if (with_pf)
		cat(buf, n, "%s ", kf.prefault);
	cat(buf, n, "%s", size);
	if (kf.fs)
		cat(buf, n, " (%s)", kf.fs);
}

/* ---- main ---- */

static void usage(FILE *o)
{
	fputs("usage: " PROG " [--report FILE.md] [--plots DIR] [--baseline LABEL] [--repeats] A.csv B.csv [...]\n"
	      "  Joins longpin CSV files (schemas 1 to 3; one per kernel, labelled by basename\n"
	      "  without .csv) on source, pinner, memtype, prefault, size, op; shows differing\n"
	      "  results, what each long-term pinner (`longpin pinners`) gets when\n"
	      "  the files hold more than one, and performance against the baseline (default:\n"
	      "  the first file).\n"
	      "  --repeats: files of one basename (r1/stock.csv r2/stock.csv ...) are repeats\n"
	      "  of one kernel: each figure is the median over the repeats of each repeat's\n"
	      "  own median, its [min-max] the range of those, with their spread.\n", o);
}

static void cmp_free(struct cmp *c)
{
	size_t k;
	int i;

	for (i = 0; i < c->nfiles; i++) {
		csv_free(&c->file[i].csv);
		free(c->file[i].key);
		free(c->file[i].rep);
	}
	for (k = 0; k < c->nkeys; k++)
		free(c->key[k]);
	free(c->key);
	free(c->cell);
}

/*
 * --repeats: the files of one basename are one kernel, read as one CSV;
 * kernels in the order of their first file.
 */
static int group_repeats(struct cmp *c, char **paths, int n)
{
	struct file tmp;
	int i, j;

	for (i = 0; i < n; i++) {
		memset(&tmp, 0, sizeof(tmp));
		tmp.path = paths[i];
		set_label(&tmp);
		for (j = 0; j < c->nfiles; j++)
			if (!strcmp(c->file[j].label, tmp.label))
				break;
		if (j == c->nfiles) {
			if (c->nfiles == MAX_FILES)
				return usage_err("--repeats: more than %d kernels: give fewer files",
						 MAX_FILES);
			c->file[j] = tmp;
			c->nfiles++;
		}
		if (c->file[j].nrep == MAX_REPEATS)
			return usage_err("--repeats: more than %d files of kernel %s: give fewer repeats",
					 MAX_REPEATS, tmp.label);
		c->file[j].rpath[c->file[j].nrep++] = paths[i];
	}
	if (c->nfiles < 2)
		return usage_err("--repeats: give files of 2 kernels or more (got %d): longpin-compare --help",
				 c->nfiles);
	for (j = 0; j < c->nfiles; j++)
		c->have_repeats |= c->file[j].nrep > 1;
	return 0;
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
		{ "repeats", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *report = NULL, *plots = NULL, *baseline = NULL;
	struct cmp c = { 0 };
	bool repeats = false;
	int opt, i, ret = EXIT_USAGE;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":r:p:b:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': report = optarg; break;
		case 'p': plots = optarg; break;
		case 'b': baseline = optarg; break;
		case 'R': repeats = true; break;
		case 'h': usage(stdout); return 0;
		case ':':
			return usage_err("%s needs a value: " PROG " --help",
					 argv[optind - 1]);
		default:
			return usage_err("unknown option %s: " PROG " --help",
					 argv[optind - 1]);
		}
	}
	if (repeats) {
		if (group_repeats(&c, argv + optind, argc - optind))
			return EXIT_USAGE;
	} else {
		c.nfiles = argc - optind;
		if (c.nfiles < 2 || c.nfiles > MAX_FILES) {
			usage_err("give 2 to %d CSV files (got %d): longpin-compare --help",
				  MAX_FILES, c.nfiles);
			return EXIT_USAGE;
		}
		for (i = 0; i < c.nfiles; i++)
			c.file[i].path = argv[optind + i];
	}
	for (i = 0; i < c.nfiles; i++)
		if (load_file(&c, i))
			goto out;
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

