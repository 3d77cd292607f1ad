// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV writer: a row as a line of schema 4 (docs/harness.md reads
 * every column), the checks that a file can take it, and appending rows
 * whole or not at all, to a file, a FIFO or standard output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "longpin.h"

/* the verdicts' words, as the CSV, the table and longpin-compare spell them */
static const char *const verdict_names[] = {
	[LP_VERDICT_NONE] = "-",
	[LP_VERDICT_PASS] = "pass",
	[LP_VERDICT_DEFECT] = "defect",
	[LP_VERDICT_FIXED] = "fixed",
	[LP_VERDICT_UNEXERCISED] = "unexercised",
	[LP_VERDICT_UNCHECKED] = "unchecked",
	[LP_VERDICT_FAIL] = "fail",
	[LP_VERDICT_SKIP] = "skip",
};

const char *lp_verdict_name(enum lp_verdict v)
{
	return (unsigned int)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "-";
}

static const char csv_header[] =
	"schema,source,timestamp,kernel,contract,memtype,prefault,size,op,"
	"pinner,fs_type,dax,thp_kb,result,errno,expected,verdict,"
	"reg_ns_per_page,unreg_ns_per_page,"
	"vmpin_before_kb,vmpin_reg_kb,vmpin_after_kb,vmpin_leak_kb,"
	"foll_pin_acquired,foll_pin_released,"
	"gup_fast_pages,gup_slow_pages,refused_fsdax,refused_file,"
	"resident_before,resident_after,dirty_before_kb,dirty_after_kb,"
	"data_check,target,direct,bs,qd,ios,repeat,"
	"fixed_mibs_min,fixed_mibs_med,fixed_mibs_max,fixed_iops,"
	"plain_mibs_min,plain_mibs_med,plain_mibs_max,plain_iops,"
	"ratio_min,ratio_med,ratio_max,"
	"clat_p50_us,clat_p99_us,clat_p999_us,cpu_usr,cpu_sys,"
	"cycles,cycle_reg_ns_min,cycle_reg_ns_med,cycle_reg_ns_max,"
	"probe_calls,probe_p999_us,probe_max_us,"
	"stall_us_min,stall_us_med,stall_us_max,probe_free_med_us,probe_free_p99_us,"
	"moved_pages,dirty_unpin_kb,pages_out,pages_intact,accel,note\n";

/* A text field: commas and line breaks would break the CSV. */
static void put_text(FILE *f, const char *s)
{
	fputc(',', f);
	for (; s && *s; s++)
		fputc(*s == ',' ? ';' : *s == '\n' ? ' ' : *s, f);
}

/* A number, or "-" when unknown (negative). */
static void put_long(FILE *f, long v)
{
	if (v < 0)
		fputs(",-", f);
	else
		fprintf(f, ",%ld", v);
}

static void put_expected(FILE *f, const struct row *r)
{
	if (!r->have_expected)
		fputs(",-", f);
	else if (!r->expected)
		fputs(",0", f);
	else
		fprintf(f, ",-%s", lp_errno_name(r->expected));
}

/*
 * The answer and its errno: 0 or -errno as a number, a refusal that has
 * no errno (gup_test's) as its word (-REFUSED, -PARTIAL), nothing ("-")
 * on a skip row, where nothing was asked.
 */
static void put_result(FILE *f, const struct row *r)
{
	if (r->verdict == LP_VERDICT_SKIP)
		fputs(",-,-", f);
	else if (-r->result == LP_REFUSED || -r->result == LP_PARTIAL)
		fprintf(f, ",-%s,%s", lp_errno_name(r->result),
			lp_errno_name(r->result));
	else
		fprintf(f, ",%d,%s", r->result, lp_errno_name(r->result));
}

/* A figure, or "-" when not measured (NaN). */
static void put_num(FILE *f, const char *fmt, double v)
{
	if (isnan(v)) {
		fputs(",-", f);
		return;
	}
	fputc(',', f);
	fprintf(f, fmt, v);
}

static void put_stat3(FILE *f, const char *fmt, const struct stat3 *s)
{
	put_num(f, fmt, s->min);
	put_num(f, fmt, s->med);
	put_num(f, fmt, s->max);
}

static void put_io(FILE *f, const struct row *r, unsigned int repeat)
{
	const struct io_result *io = &r->io;
	int i;

	fprintf(f, ",%s", io->check[0] ? io->check : "-");
	put_text(f, io->target[0] ? io->target : "-");
	if (!io->done) {
		fputs(",-,-,-,-,-", f);
		fputs(",-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-", f);
		return;
	}
	fprintf(f, ",%d,%u,%u", io->direct, io->bs, io->qd);
	/* no pass measured (fio: every job failed), no I/O count */
	if (isnan(io->fixed_mibs.med) && isnan(io->plain_mibs.med))
		fputs(",-", f);
	else
		fprintf(f, ",%llu", (unsigned long long)io->ios);
	fprintf(f, ",%u", repeat);
	put_stat3(f, "%.1f", &io->fixed_mibs);
	put_num(f, "%.0f", io->fixed_iops);
	put_stat3(f, "%.1f", &io->plain_mibs);
	put_num(f, "%.0f", io->plain_iops);
	put_stat3(f, "%.3f", &io->ratio);
	for (i = 0; i < 5; i++) {
		if (io->have_fio)
			put_num(f, "%.1f", io->fio[i]);
		else
			fputs(",-", f);
	}
}

static void put_cycles(FILE *f, const struct cycles_result *c)
{
	if (!c->n)
		fputs(",0,-,-,-", f);
	else
		fprintf(f, ",%u,%.1f,%.1f,%.1f", c->n, c->reg_min, c->reg_med,
			c->reg_max);
	if (!c->probed)
		fputs(",-,-,-", f);
	else
		fprintf(f, ",%llu,%.1f,%.1f",
			(unsigned long long)c->probe_calls, c->probe_p999_us,
			c->probe_max_us);
	if (!c->stall_n)
		fputs(",-,-,-", f);
	else
		fprintf(f, ",%.1f,%.1f,%.1f", c->stall_min_us, c->stall_med_us,
			c->stall_max_us);
	if (!c->probe_free_n)
		fputs(",-,-", f);
	else
		fprintf(f, ",%.1f,%.1f", c->probe_free_med_us, c->probe_free_p99_us);
}

static void put_row(FILE *f, const struct row *r, unsigned int repeat)
{
	char ts[32];
	time_t now = time(NULL);
	int i;

	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fprintf(f, "%d,%s,%s", LONGPIN_SCHEMA,
		r->source ? r->source : "harness",
		r->timestamp ? r->timestamp : ts);
	put_text(f, r->kernel);
	fprintf(f, ",%s,%s,%s,%zu,%s,%s,%s,%d", r->contract, r->mem,
		lp_prefault_name(r->pf), r->size, r->op ? r->op : "register",
		r->pinner ? r->pinner : LP_PINNER_DEFAULT, r->fs_type, r->dax);
	put_long(f, r->thp_kb);
	put_result(f, r);
	put_expected(f, r);
	fprintf(f, ",%s", lp_verdict_name(r->verdict));
	put_num(f, "%.1f", r->reg_ns);
	put_num(f, "%.1f", r->unreg_ns);
	for (i = 0; i < 3; i++)
		put_long(f, r->vmpin[i]);
	if (r->vmpin[0] < 0 && r->vmpin[2] < 0)
		fputs(",-", f);
	else
		fprintf(f, ",%ld", r->vmpin[2] - r->vmpin[0]);
	put_long(f, r->pin_acq);
	put_long(f, r->pin_rel);
	for (i = 0; i < LP_NR_KCOUNTERS; i++)
		put_long(f, r->have_kc ? r->kc[i] : -1);
	put_long(f, r->resident[0]);
	put_long(f, r->resident[1]);
	put_long(f, r->dirty_kb[0]);
	put_long(f, r->dirty_kb[1]);
	put_io(f, r, repeat);
	if (r->source)		/* another tool's row: no cycles, no prober */
		fputs(",-,-,-,-,-,-,-,-,-,-,-,-", f);
	else
		put_cycles(f, &r->cyc);
	for (i = 0; i < RP_NR; i++)
		put_long(f, r->pg_have & 1u << i ? r->pg[i] : -1);
	fprintf(f, ",%s", r->accel ? r->accel : lp_cpu_accel());
	put_text(f, r->note);
	fputc('\n', f);
}

/* @line (with its newline) is longpin's CSV header. */
bool lp_csv_is_header(const char *line)
{
	return !strcmp(line, csv_header);
}

/* The number of the last line of @f (which is not empty). */
static long last_line(FILE *f)
{
	long lines = 0;
	int ch, last = '\n';

	rewind(f);
	while ((ch = getc(f)) != EOF) {
		lines += last == '\n';
		last = ch;
	}
	return lines;
}

/*
 * @f, open for reading, must be empty or hold our header and end with a
 * newline: rows are never glued onto another tool's file or a cut-off row.
 * Only the header and the last byte are read (the whole file only for the
 * line number of an error).
 */
int lp_csv_verify(FILE *f, const char *path)
{
	static char line[sizeof(csv_header) + 1];

	rewind(f);
	if (!fgets(line, sizeof(line), f))
		return LP_OK;
	if (strcmp(line, csv_header))
		return lp_err(LP_EUSAGE,
			      "--csv %s:1: not a longpin CSV of schema %d (another header): give a new --csv file",
			      path, LONGPIN_SCHEMA);
	if (fseek(f, -1, SEEK_END) || getc(f) != '\n')
		return lp_err(LP_EUSAGE,
			      "--csv %s:%ld: the last line has no newline (a cut-off row?): remove or finish it, or give a new --csv file",
			      path, last_line(f));
	return LP_OK;
}

/*
 * @fd's file, a CSV of another schema (--torture's), must be empty or
 * start with @hdr and end with a newline.
 */
int lp_csv_verify_text(int fd, const char *path, const char *hdr)
{
	size_t n = strlen(hdr);
	off_t end = lseek(fd, 0, SEEK_END);
	char buf[1024], last;

	if (end <= 0)
		return LP_OK;
	if (n > sizeof(buf) || pread(fd, buf, n, 0) != (ssize_t)n ||
	    memcmp(buf, hdr, n))
		return lp_err(LP_EUSAGE,
			      "--csv %s:1: not a CSV of this mode (another header): give a new --csv file",
			      path);
	if (pread(fd, &last, 1, end - 1) != 1 || last != '\n')
		return lp_err(LP_EUSAGE,
			      "--csv %s: the last line has no newline (a cut-off row?): remove or finish it, or give a new --csv file",
			      path);
	return LP_OK;
}

/* Is @st this process's standard output? */
static bool is_stdout(const struct stat *st)
{
	struct stat out;

	return !fstat(STDOUT_FILENO, &out) && out.st_dev == st->st_dev &&
	       out.st_ino == st->st_ino;
}

/*
 * Fail before the run when the CSV cannot take our rows: an existing file
 * must be ours and writable, a new one's directory writable. Nothing is
 * created here, so an early exit leaves no empty CSV behind. @hdr: the
 * header of another schema (--torture's), NULL: ours.
 */
int lp_csv_check(const char *path, const char *hdr)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	FILE *f;
	int ret;

	if (!path || !strcmp(path, "-"))
		return LP_OK;
	/*
	 * a FIFO, or this process's standard output by another name
	 * (/dev/stdout), is written like --csv -; nothing else but a
	 * regular file: a device's bytes are not ours to write
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (!S_ISFIFO(st.st_mode) && !is_stdout(&st))
			return lp_err(LP_EUSAGE,
				      "--csv %s is %s: give a regular file, a FIFO or - (standard output)",
				      path, lp_file_kind(st.st_mode));
		return access(path, W_OK) ?
			lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			       path, strerror(errno)) : LP_OK;
	}
	f = fopen(path, "r");
	if (f) {
		ret = hdr ? lp_csv_verify_text(fileno(f), path, hdr) :
			    lp_csv_verify(f, path);
		fclose(f);
		if (ret == LP_OK && access(path, W_OK))
			ret = lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
				     path, strerror(errno));
		return ret;
	}
	if (errno != ENOENT)
		return lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			      path, strerror(errno));
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (access(slash ? dir : ".", W_OK | X_OK))
		return lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			      path, strerror(errno));
	return LP_OK;
}

/* --csv -: the process's original stdout, the CSV's alone (lp_csv_to_stdout) */
static int csv_out_fd = -1;
/* a stream (stdout, a pipe, a device) got its header from this process */
static bool stream_header;

/*
 * --csv -: keep the real stdout for the CSV and send everything else that
 * longpin prints there (the table) to stderr, so that `longpin --csv - >
 * out.csv` or a pipe gets one header and CSV rows only.
 */
int lp_csv_to_stdout(void)
{
	fflush(stdout);
	csv_out_fd = dup(STDOUT_FILENO);
	if (csv_out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return lp_err(LP_EUSAGE, "--csv -: %s", strerror(errno));
	return LP_OK;
}

/* The @n rows, after the header when @header, in one malloc'ed buffer. */
static char *row_text(const struct row *r, size_t n, unsigned int repeat,
		      bool header, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		return NULL;
	if (header)
		fputs(csv_header, m);
	while (n--)
		put_row(m, r++, repeat);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * All of @len bytes to @fd, or none: a failed write (a full disk) is cut
 * back to @undo on a regular file (@undo < 0: a stream). Returns 0 or an
 * errno.
 */
static int write_whole(int fd, const char *buf, size_t len, off_t undo)
{
	size_t done = 0;
	ssize_t n;
	int err;

	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : ENOSPC;
			if (undo >= 0 && ftruncate(fd, undo))
				err = errno;
			return err;
		}
		done += n;
	}
	return 0;
}

/*
 * A regular file @path for appending, created if need be (*@created
 * says so), locked: a file another run unlinked while this one waited
 * for the lock (its own new file, which it could not write) is opened
 * again. -1 with errno on failure.
 */
static int csv_open_locked(const char *path, bool *created)
{
	struct stat st;
	int fd, i;

	for (i = 0; i < 8; i++) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		*created = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0)
			return -1;
		flock(fd, LOCK_EX);
		if (!fstat(fd, &st) && st.st_nlink)
			return fd;
		close(fd);
	}
	errno = ENOENT;
	return -1;
}

/*
 * A file this run created and could not write: removed, so that a
 * failure leaves no empty file behind. Returns the note for the message.
 */
static const char *csv_undo_new(int fd, const char *path, bool created)
{
	struct stat st, now;

	if (!created)
		return "the file is as it was";
	if (!fstat(fd, &st) && !st.st_size && !stat(path, &now) &&
	    now.st_ino == st.st_ino && now.st_dev == st.st_dev &&
	    !unlink(path))
		return "no file was left";
	return "the file is empty";
}

/* A regular file: locked, verified again, appended whole or not at all. */
static int csv_append_file(const char *path, const struct row *r, size_t n,
			   unsigned int repeat)
{
	bool created;
	int fd = csv_open_locked(path, &created), err;
	int ret = LP_OK;
	FILE *f = NULL;
	size_t len;
	char *text;
	off_t end;

	if (fd < 0)
		return lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			      path, strerror(errno));
	end = lseek(fd, 0, SEEK_END);
	if (end > 0) {
		/* what another writer may have left since lp_csv_check() */
		f = fdopen(dup(fd), "r");
		ret = f ? lp_csv_verify(f, path) :
			  lp_err(LP_EUSAGE, "--csv %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		if (ret != LP_OK)
			goto out;
	}
	text = row_text(r, n, repeat, end == 0, &len);
	if (!text) {
		ret = lp_err(LP_EUSAGE, "out of memory");
		goto out;
	}
	err = write_whole(fd, text, len, end);
	free(text);
	if (err)
		ret = lp_err(LP_EUSAGE,
			     "--csv %s: write: %s: the row was not written (%s); free space or give another --csv",
			     path, strerror(err),
			     csv_undo_new(fd, path, created));
out:
	close(fd);
	return ret;
}

/* stdout (--csv -), a pipe or a device: the header once, then rows. */
static int csv_append_stream(const char *path, int fd, const struct row *r,
			     size_t n, unsigned int repeat)
{
	size_t len;
	char *text = row_text(r, n, repeat, !stream_header, &len);
	int err;

	if (!text)
		return lp_err(LP_EUSAGE, "out of memory");
	err = write_whole(fd, text, len, -1);
	free(text);
	if (err)
		return lp_err(LP_EUSAGE, "--csv %s: write: %s", path,
			      strerror(err));
	stream_header = true;
	return LP_OK;
}

/*
 * Append @n rows to @path ("-": stdout), with the header when the file is
 * new or empty. A regular file is locked so that parallel runs do not
 * interleave, and the rows are written whole or not at all.
 */
int lp_csv_append_rows(const char *path, const struct row *r, size_t n,
		    unsigned int repeat)
{
	struct stat st;
	int fd, ret;

	if (!strcmp(path, "-"))
		return csv_append_stream(path, csv_out_fd >= 0 ? csv_out_fd :
					 STDOUT_FILENO, r, n, repeat);
	if (stat(path, &st) || S_ISREG(st.st_mode))
		return csv_append_file(path, r, n, repeat);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			      path, strerror(errno));
	ret = csv_append_stream(path, fd, r, n, repeat);
	close(fd);
	return ret;
}

int lp_csv_append(const char *path, const struct row *r, unsigned int repeat)
{
	return lp_csv_append_rows(path, r, 1, repeat);
}

/*
 * @rows of another schema to @path, after @hdr when the file is new or
 * empty ("-", a pipe, a device: always, one run writes once); a regular
 * file is locked, verified and appended whole or not at all.
 */
int lp_csv_append_text(const char *path, const char *hdr, const char *rows)
{
	bool file = strcmp(path, "-"), created = false;
	char *text = NULL;
	int ret = LP_OK, err, fd;
	off_t end = -1;
	struct stat st;

	if (!file)
		fd = dup(STDOUT_FILENO);
	else if (stat(path, &st) || S_ISREG(st.st_mode))
		fd = csv_open_locked(path, &created);
	else
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			      path, strerror(errno));
	if (file && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		ret = lp_csv_verify_text(fd, path, hdr);
		end = lseek(fd, 0, SEEK_END);
	}
	if (ret == LP_OK && asprintf(&text, "%s%s", end > 0 ? "" : hdr,
				     rows) < 0)
		ret = lp_err(LP_EUSAGE, "out of memory");
	err = ret == LP_OK ? write_whole(fd, text, strlen(text), end) : 0;
	if (err)
		ret = lp_err(LP_EUSAGE,
			     "--csv %s: write: %s: the row was not written (%s); free space or give another --csv",
			     path, strerror(err),
			     csv_undo_new(fd, path, created));
	free(text);
	close(fd);
	return ret;
}
