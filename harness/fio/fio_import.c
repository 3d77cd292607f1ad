// SPDX-License-Identifier: GPL-2.0
/*
 * fio-jobs/'s commands: the memory type of fio's mem= (fio-memtype), its
 * error as the CSV's result (fio-result), and its runs as longpin CSV
 * rows through the one CSV writer (fio-import). Each takes its own words,
 * argv[0] the command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fio.h"
#include "longpin.h"
#include "mem.h"

/*
 * longpin's memory type for fio's mem= value @mem, whose file (if any) is
 * on @fs (DAX: @dax); "-" when longpin has none. What fio 3.33 does
 * (memory.c): malloc -> malloc(3), page-aligned start for O_DIRECT (glibc
 * mmaps it: private anon, without MADV_HUGEPAGE);
 * shm/shmhuge -> shmget (+SHM_HUGETLB) + shmat; mmap -> MAP_PRIVATE anon,
 * or MAP_PRIVATE of the file (ftruncated by fio); mmapshared -> MAP_SHARED
 * of the file (not extended by fio), without a file it is MAP_PRIVATE
 * anon; mmaphuge with a file -> MAP_SHARED of the hugetlbfs file (a
 * hugetlb type mapped shared, not SysV); without a file MAP_HUGETLB |
 * MAP_PRIVATE anon. A file of mmap: or mmapshared: is a file type of the
 * place mem_file.c gives its file system (tmpfs, page cache or DAX; none
 * for ramfs), except on hugetlbfs: the shared hugetlb type. The types are
 * found by what they are (lp_mem_find_like()), not by their names.
 */
static const char *fio_memtype(const char *mem, const char *fs, int dax)
{
	bool shared = !strncmp(mem, "mmapshared:", 11);
	bool file = shared || !strncmp(mem, "mmap:", 5);
	const struct mem_ops *ops;
	enum mem_place place;

	if (!strcmp(mem, "malloc") || !strcmp(mem, "mmap") ||
	    !strcmp(mem, "mmapshared"))
		ops = lp_mem_find_like(PLACE_NONE, MEM_ANON,
				    MEM_THP | MEM_RDONLY | MEM_MULTI);
	else if (!strcmp(mem, "shm"))
		ops = lp_mem_find_like(PLACE_NONE, MEM_SYSV, MEM_HUGETLB);
	else if (!strcmp(mem, "shmhuge"))
		ops = lp_mem_find_like(PLACE_NONE, MEM_SYSV | MEM_HUGETLB, 0);
	else if (!strcmp(mem, "mmaphuge"))
		ops = lp_mem_find_like(PLACE_NONE, MEM_HUGETLB | MEM_PRIVATE, 0);
	else if (!strncmp(mem, "mmaphuge:", 9) ||
		 (file && dax != 1 && !strcmp(fs, "hugetlbfs")))
		ops = lp_mem_find_like(PLACE_NONE, MEM_HUGETLB,
				    MEM_PRIVATE | MEM_SYSV | MEM_MULTI);
	else if (!file)
		ops = NULL;
	else if ((place = lp_mem_file_place(fs, dax)) == PLACE_NONE)
		ops = NULL;
	else
		ops = lp_mem_find_like(place, shared ? 0 : MEM_PRIVATE,
				    (shared ? MEM_PRIVATE : 0) | MEM_MULTI);
	return ops ? ops->name : "-";
}

/*
 * --fio-memtype MEM: what the file of MEM (TYPE:FILE) is on, asked as
 * mem_file.c asks: a new file in FILE's directory, fstatfs() and statx().
 */
static int fio_probe(const char *mem, struct mem *m)
{
	const char *file = strchr(mem, ':');
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int fd;

	m->dax = -1;
	snprintf(m->fs_type, sizeof(m->fs_type), "%s",
		 !strncmp(mem, "shm", 3) ? "sysv" : "-");
	if (!file)
		return LP_OK;
	snprintf(dir, sizeof(dir), "%s", file + 1);
	snprintf(path, sizeof(path), "%s/longpin.XXXXXX", dirname(dir));
	fd = mkstemp(path);
	if (fd < 0)
		return lp_err(LP_EUSAGE,
			      "--fio-memtype %s: cannot create a file in the directory of %s: %s",
			      mem, file + 1, strerror(errno));
	unlink(path);
	lp_mem_describe_fd(m, fd);
	close(fd);
	return LP_OK;
}

/* --fio-memtype MEM [FS DAX]: "MEMTYPE FS DAX", tab separated */
int lp_fio_memtype_main(int argc, char **argv)
{
	struct mem m = { .fd = -1 };
	int ret;

	if (argc != 2 && argc != 4)
		return lp_err(LP_EUSAGE,
			      "usage: longpin fio-memtype MEM [FS_TYPE DAX]");
	if (argc == 4) {
		snprintf(m.fs_type, sizeof(m.fs_type), "%s", argv[2]);
		m.dax = atoi(argv[3]);
	} else {
		ret = fio_probe(argv[1], &m);
		if (ret != LP_OK)
			return ret;
	}
	printf("%s\t%s\t%d\n", fio_memtype(argv[1], m.fs_type, m.dax),
	       m.fs_type, m.dax);
	return LP_OK;
}

/*
 * One line of --fio-import's input (fio2csv.sh's jq), tab separated:
 * REPEAT JOBNAME ERROR BW_BYTES IOPS CLAT_P50 CLAT_P99 CLAT_P99.9 (ns)
 * USR_CPU SYS_CPU TOTAL_IOS TIMESTAMP ("-": fio gave none).
 */
enum { J_REP, J_NAME, J_ERR, J_BW, J_IOPS, J_P50, J_P99, J_P999, J_USR,
       J_SYS, J_IOS, J_TS, J_NR };
/* run-fio.sh's meta.tsv, one line per fixed/plain pair */
enum { M_GROUP, M_PAIR, M_RW, M_MEM, M_TARGET, M_MEMTYPE, M_PREFAULT,
       M_SIZE, M_BS, M_QD, M_FS, M_DAX, M_CONTRACT, M_EXPECTED, M_NOFAULT,
       M_KERNEL, M_REPEAT, M_NR };

struct lines {
	char **f;		/* fields: line i's field k is f[i * nf + k] */
	size_t n, nf;
};

/* Split the lines of @in at tabs into @l; every line must have l->nf. */
static int read_lines(FILE *in, const char *what, struct lines *l)
{
	char *line = NULL, *s, **f;
	size_t cap = 0, k;
	ssize_t len;
	int ret = LP_OK;

	while (ret == LP_OK && (len = getline(&line, &cap, in)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = 0;
		f = realloc(l->f, (l->n + 1) * l->nf * sizeof(*f));
		s = strdup(line);
		if (f)
			l->f = f;
		if (!f || !s) {
			free(s);
			ret = lp_err(LP_EUSAGE, "out of memory");
			break;
		}
		f += l->n++ * l->nf;
		for (k = 0; s && k < l->nf; k++)
			f[k] = strsep(&s, "\t");
		if (k < l->nf || s)
			ret = lp_err(LP_EUSAGE, "%s:%zu: not %zu tab-separated fields",
				     what, l->n, l->nf);
	}
	free(line);
	return ret;
}

static void lines_free(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->f[i * l->nf]);
	free(l->f);
}

/* A number of fio's, NaN for "-" or nothing. */
static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end == s ? NAN : v;
}

/* lp_stat3_of() over @n values; NaN when there are none or one is unknown. */
static struct stat3 stat3_nan(double *v, unsigned int n)
{
	struct stat3 none = { NAN, NAN, NAN };
	unsigned int i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return none;
	return n ? lp_stat3_of(v, n) : none;
}

/* The fields of job @name in repeat @rep, or NULL. */
static char **job_of(const struct lines *jobs, unsigned int rep,
		     const char *pair, const char *kind)
{
	size_t i, len = strlen(pair);
	char **f;

	for (i = 0; i < jobs->n; i++) {
		f = jobs->f + i * J_NR;
		if (strtoul(f[J_REP], NULL, 10) == rep &&
		    !strncmp(f[J_NAME], pair, len) && f[J_NAME][len] == '-' &&
		    !strcmp(f[J_NAME] + len + 1, kind))
			return f;
	}
	return NULL;
}

/* Up to 64 repeats of one pair: fixed and plain jobs, per repeat. */
#define FIO_MAX_REPEAT 64
struct pair {
	char **fixed[FIO_MAX_REPEAT], **plain[FIO_MAX_REPEAT];
	unsigned int rep;
	char note[1024];
	char op[64];
};

/* Medians (and ranges) of the repeats whose jobs ran without an error. */
static void pair_figures(const struct pair *p, struct io_result *io)
{
	double fx[5][FIO_MAX_REPEAT], f[3][FIO_MAX_REPEAT], pl[3][FIO_MAX_REPEAT];
	double ra[FIO_MAX_REPEAT];
	unsigned int r, nf = 0, np = 0, nq = 0, i;
	struct stat3 ios;

	for (r = 0; r < p->rep; r++) {
		char **x = p->fixed[r], **y = p->plain[r];
		bool fok = !atoi(x[J_ERR]), pok = !atoi(y[J_ERR]);

		if (fok) {
			f[0][nf] = num(x[J_BW]) / MiB;
			f[1][nf] = num(x[J_IOPS]);
			f[2][nf] = num(x[J_IOS]);
			for (i = 0; i < 5; i++)
				fx[i][nf] = num(x[J_P50 + i]);
			nf++;
		}
		if (pok) {
			pl[0][np] = num(y[J_BW]) / MiB;
			pl[1][np] = num(y[J_IOPS]);
			pl[2][np++] = num(y[J_IOS]);
		}
		if (fok && pok && num(y[J_BW]) > 0)
			ra[nq++] = num(x[J_BW]) / num(y[J_BW]);
	}
	io->fixed_mibs = stat3_nan(f[0], nf);
	io->fixed_iops = stat3_nan(f[1], nf).med;
	io->plain_mibs = stat3_nan(pl[0], np);
	io->plain_iops = stat3_nan(pl[1], np).med;
	io->ratio = stat3_nan(ra, nq);
	ios = nf ? stat3_nan(f[2], nf) : stat3_nan(pl[2], np);
	io->ios = isnan(ios.med) ? 0 : (uint64_t)rint(ios.med);
	io->have_fio = true;
	for (i = 0; i < 5; i++)
		io->fio[i] = stat3_nan(fx[i], nf).med / (i < 3 ? 1000 : 1);
}

/* The verdict and the note: repeats that disagree fail the row. */
static void pair_verdict(struct pair *p, char **m, struct row *row)
{
	size_t n = sizeof(p->note), len;
	int e = atoi(p->fixed[0][J_ERR]);
	unsigned int r;

	row->result = -e;
	row->verdict = lp_row_verdict(row);
	len = snprintf(p->note, n, "fio %s mem=%s", m[M_PAIR], m[M_MEM]);
	for (r = 1; r < p->rep && len < n; r++)
		if (atoi(p->fixed[r][J_ERR]) != e) {
			row->verdict = LP_VERDICT_FAIL;
			len += snprintf(p->note + len, n - len,
					"; repeat %u answered %s", r + 1,
					p->fixed[r][J_ERR]);
		}
	for (r = 0; r < p->rep && len < n; r++)
		if (atoi(p->plain[r][J_ERR]))
			len += snprintf(p->note + len, n - len,
					"; plain repeat %u error %s", r + 1,
					p->plain[r][J_ERR]);
	if (!strcmp(m[M_NOFAULT], "1") && len < n)
		snprintf(p->note + len, n - len, "; nofault not checked by fio");
	row->note = p->note;
}

/* "randread-nullb": fio's rw and the target of PAIR (MEM-...-TARGET[-write]) */
static void pair_op(struct pair *p, const char *rw, const char *pair)
{
	size_t len = strlen(pair);
	const char *s;

	if (len > 6 && !strcmp(pair + len - 6, "-write"))
		len -= 6;
	for (s = pair + len; s > pair && s[-1] != '-'; s--)
		;
	snprintf(p->op, sizeof(p->op), "%s-%.*s", rw, (int)(pair + len - s), s);
}

/* The jobs of the pair of meta line @m, each repeat's fixed and plain. */
static int pair_jobs(struct pair *p, char **m, const struct lines *jobs,
		     const char *raw)
{
	unsigned int r;

	for (r = 0; r < p->rep; r++) {
		p->fixed[r] = job_of(jobs, r + 1, m[M_PAIR], "fixed");
		p->plain[r] = job_of(jobs, r + 1, m[M_PAIR], "plain");
		if (!p->fixed[r] || !p->plain[r])
			return lp_err(LP_EUSAGE,
				      "%s/run.%u.json: no job %s-%s (meta.tsv lists it)",
				      raw, r + 1, m[M_PAIR],
				      p->fixed[r] ? "plain" : "fixed");
	}
	return LP_OK;
}

/* The contract's columns of meta line @m: memtype, prefault, expected. */
static int pair_contract(char **m, const char *meta, struct row *row)
{
	const char *mt = fio_memtype(m[M_MEM], m[M_FS], atoi(m[M_DAX]));
	int pf;

	if (strcmp(mt, m[M_MEMTYPE]))
		return lp_err(LP_EUSAGE,
			      "%s: %s: memtype %s, but mem=%s on %s (dax %s) is %s",
			      meta, m[M_PAIR], m[M_MEMTYPE], m[M_MEM], m[M_FS],
			      m[M_DAX], mt);
	for (pf = 0; pf < PF_NR; pf++)
		if (!strcmp(lp_prefault_name(pf), m[M_PREFAULT]))
			break;
	if (pf == PF_NR)
		return lp_err(LP_EUSAGE, "%s: %s: prefault %s: none, read or write expected",
			      meta, m[M_PAIR], m[M_PREFAULT]);
	row->pf = pf;
	row->have_expected = strcmp(m[M_EXPECTED], "-");
	if (row->have_expected && lp_parse_expected(m[M_EXPECTED], &row->expected))
		return lp_err(LP_EUSAGE, "%s: %s: expected %s: 0 or -ERRNO expected",
			      meta, m[M_PAIR], m[M_EXPECTED]);
	return LP_OK;
}

/* Row @row of meta line @m (and its pair @p): every column fio has. */
static int pair_row(struct pair *p, char **m, const struct lines *jobs,
		    const char *raw, struct row *row)
{
	char meta[PATH_MAX];
	int ret;

	snprintf(meta, sizeof(meta), "%s/meta.tsv", raw);
	ret = pair_contract(m, meta, row);
	if (ret == LP_OK)
		ret = pair_jobs(p, m, jobs, raw);
	if (ret != LP_OK)
		return ret;
	row->source = "fio";
	row->timestamp = p->fixed[0][J_TS];
	row->kernel = m[M_KERNEL];
	row->contract = m[M_CONTRACT];
	row->mem = m[M_MEMTYPE];
	row->size = strtoull(m[M_SIZE], NULL, 10);
	pair_op(p, m[M_RW], m[M_PAIR]);
	row->op = p->op;
	row->fs_type = m[M_FS];
	row->dax = atoi(m[M_DAX]);
	row->thp_kb = row->pin_acq = row->pin_rel = -1;
	row->vmpin[0] = row->vmpin[1] = row->vmpin[2] = -1;
	row->resident[0] = row->resident[1] = -1;
	row->dirty_kb[0] = row->dirty_kb[1] = -1;
	row->reg_ns = row->unreg_ns = NAN;
	pair_verdict(p, m, row);
	row->io.done = row->io.direct = true;
	snprintf(row->io.target, sizeof(row->io.target), "%s", m[M_TARGET]);
	row->io.bs = strtoul(m[M_BS], NULL, 10);
	row->io.qd = strtoul(m[M_QD], NULL, 10);
	pair_figures(p, &row->io);
	return LP_OK;
}

/* OUT.csv must be new, empty or longpin's: rows are never glued on another. */
static int out_check(const char *out)
{
	char line[1024] = "";
	FILE *f;

	if (!strcmp(out, "-"))
		return LP_OK;
	f = fopen(out, "r");
	if (!f)
		return LP_OK;
	if (fgets(line, sizeof(line), f) && !lp_csv_is_header(line)) {
		fclose(f);
		return lp_err(LP_EUSAGE,
			      "%s:1: not a longpin schema %d CSV header: give a new OUT.csv",
			      out, LONGPIN_SCHEMA);
	}
	fclose(f);
	return LP_OK;
}

/* The repeat count of meta.tsv: the same on every line. */
static int meta_repeat(const struct lines *meta, const char *raw,
		       unsigned int *rep)
{
	size_t i;

	*rep = strtoul(meta->f[M_NR + M_REPEAT], NULL, 10);
	if (!*rep || *rep > FIO_MAX_REPEAT)
		return lp_err(LP_EUSAGE, "%s/meta.tsv:2: repeat %s: 1 to %d",
			      raw, meta->f[M_NR + M_REPEAT], FIO_MAX_REPEAT);
	for (i = 2; i < meta->n; i++)
		if (strtoul(meta->f[i * M_NR + M_REPEAT], NULL, 10) != *rep)
			return lp_err(LP_EUSAGE,
				      "%s/meta.tsv:%zu: repeat %s, line 2 says %u",
				      raw, i + 1, meta->f[i * M_NR + M_REPEAT], *rep);
	return LP_OK;
}

/*
 * --fio-import RAWDIR OUT.csv ACCEL < JOBS: a row per line of meta.tsv,
 * all appended to OUT.csv (- for stdout) or none.
 */
int lp_fio_import_main(int argc, char **argv)
{
	struct lines meta = { .nf = M_NR }, jobs = { .nf = J_NR };
	struct pair *pairs = NULL;
	struct row *rows = NULL;
	char path[PATH_MAX];
	unsigned int rep;
	FILE *f;
	size_t i;
	int ret;

	if (argc != 4)
		return lp_err(LP_EUSAGE,
			      "usage: longpin fio-import RAWDIR OUT.csv ACCEL < JOBS.tsv");
	snprintf(path, sizeof(path), "%s/meta.tsv", argv[1]);
	f = fopen(path, "r");
	if (!f)
		return lp_err(LP_EUSAGE, "%s: %s", path, strerror(errno));
	ret = read_lines(f, path, &meta);
	fclose(f);
	if (ret == LP_OK)
		ret = read_lines(stdin, "stdin", &jobs);
	if (ret == LP_OK && meta.n < 2)
		ret = lp_err(LP_EUSAGE, "%s: no pairs", path);
	if (ret == LP_OK)
		ret = meta_repeat(&meta, argv[1], &rep);
	if (ret == LP_OK)
		ret = out_check(argv[2]);
	if (ret != LP_OK)
		goto out;
	rows = calloc(meta.n - 1, sizeof(*rows));
	pairs = calloc(meta.n - 1, sizeof(*pairs));
	if (!rows || !pairs) {
		ret = lp_err(LP_EUSAGE, "out of memory");
		goto out;
	}
	for (i = 1; i < meta.n && ret == LP_OK; i++) {
		pairs[i - 1].rep = rep;
		rows[i - 1].accel = argv[3];
		ret = pair_row(&pairs[i - 1], meta.f + i * M_NR, &jobs, argv[1],
			       &rows[i - 1]);
	}
	if (ret == LP_OK)
		ret = lp_csv_append_rows(argv[2], rows, meta.n - 1, rep);
out:
	free(rows);
	free(pairs);
	lines_free(&meta);
	lines_free(&jobs);
	return ret;
}

/* --fio-result ERROR: fio's error as the CSV's result, 0 or -ENAME */
int lp_fio_result_main(int argc, char **argv)
{
	char *end;
	long e;

	if (argc != 2)
		return lp_err(LP_EUSAGE, "usage: longpin fio-result ERROR");
	e = strtol(argv[1], &end, 10);
	if (*end || end == argv[1] || e < 0 || e > 4095)
		return lp_err(LP_EUSAGE, "fio-result %s: give fio's error, 0 to 4095",
			      argv[1]);
	printf(e ? "-%s\n" : "0\n", lp_errno_name(e));
	return LP_OK;
}
