// SPDX-License-Identifier: GPL-2.0
/* The CSV reader of longpin-compare: a pure parser over a buffer, and a file
 * wrapper. Schemas 1 to 3 (2 added accel, 3 pinner); see docs/harness.md "CSV". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvread.h"

#define CSV_MAX_BYTES	(256UL << 20)

/* The columns that every file must have. */
static const char *const csv_required[] = {
	"source", "memtype", "prefault", "size", "op", "result", "errno",
	"verdict",
};

static int csv_error(char *err, size_t errlen, const char *name,
		     unsigned long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -1;
	if (line)
		n = snprintf(err, errlen, "%s:%lu: ", name, line);
	else
		n = snprintf(err, errlen, "%s: ", name);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

void csv_free(struct csv *c)
{
	free(c->buf);
	free(c->hdr);
	free(c->cell);
	free(c->line);
	memset(c, 0, sizeof(*c));
}

int csv_col(const struct csv *c, const char *name)
{
	int i;

	for (i = 0; i < c->ncols; i++)
		if (!strcmp(c->hdr[i], name))
			return i;
	return -1;
}

const char *csv_get(const struct csv *c, size_t row, int col)
{
	if (col < 0 || col >= c->ncols || row >= c->nrows)
		return "";
	return c->cell[row * c->ncols + col];
}

/* Fields of the NUL-terminated @s (commas made NULs); -1 if too many. */
static int split(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s++ = '\0';
	}
}

static int check_header(struct csv *c, const char *name, char *err,
			size_t errlen)
{
	size_t i;
	int j, k;

	if (strcmp(c->hdr[0], "schema"))
		return csv_error(err, errlen, name, 1,
				 "no header (first column is '%.40s', not 'schema'): give a CSV written by longpin --csv",
				 c->hdr[0]);
	for (j = 0; j < c->ncols; j++)
		for (k = 0; k < j; k++)
			if (!strcmp(c->hdr[j], c->hdr[k]))
				return csv_error(err, errlen, name, 1,
						 "column '%.40s' appears twice in the header: regenerate the file with longpin",
						 c->hdr[j]);
	for (i = 0; i < sizeof(csv_required) / sizeof(csv_required[0]); i++)
		if (csv_col(c, csv_required[i]) < 0)
			return csv_error(err, errlen, name, 1,
					 "required column '%s' missing from the header: regenerate the file with longpin",
					 csv_required[i]);
	return 0;
}

static int add_row(struct csv *c, char **f, unsigned long line,
		   size_t *cap)
{
	size_t n = c->nrows;

	if (n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **cell = realloc(c->cell, ncap * c->ncols * sizeof(*cell));
		unsigned long *ln;

		if (!cell)
			return -1;
		c->cell = cell;
		ln = realloc(c->line, ncap * sizeof(*ln));
		if (!ln)
			return -1;
		c->line = ln;
		*cap = ncap;
	}
	memcpy(c->cell + n * c->ncols, f, c->ncols * sizeof(*f));
	c->line[n] = line;
	c->nrows++;
	return 0;
}

/* One line (NUL-terminated, no \n): the header or a row. */
static int parse_line(struct csv *c, char *s, unsigned long line,
		      size_t *cap, const char *name, char *err, size_t errlen)
{
	char *f[CSV_MAX_COLS];
	int n = split(s, f, CSV_MAX_COLS);

	if (!c->hdr) {
		if (n < 0)
			return csv_error(err, errlen, name, line,
					 "more than %d columns in the header: not a longpin CSV",
					 CSV_MAX_COLS);
		c->hdr = malloc(n * sizeof(*f));
		if (!c->hdr)
			return csv_error(err, errlen, name, line, "out of memory");
		memcpy(c->hdr, f, n * sizeof(*f));
		c->ncols = n;
		return check_header(c, name, err, errlen);
	}
	if (n != c->ncols)
		return csv_error(err, errlen, name, line,
				 "%s%d fields, the header has %d: a truncated or hand-edited line; regenerate it or delete it",
				 n < 0 ? "more than " : "", n < 0 ? CSV_MAX_COLS : n,
				 c->ncols);
	if (strcmp(f[0], "1") && strcmp(f[0], "2") && strcmp(f[0], "3"))
		return csv_error(err, errlen, name, line,
				 "CSV schema %.20s, this longpin-compare reads schemas 1 to %d: use a matching longpin",
				 f[0], CSV_SCHEMA);
	if (add_row(c, f, line, cap))
		return csv_error(err, errlen, name, line, "out of memory");
	return 0;
}

static int parse_lines(struct csv *c, char *p, char *end, const char *name,
		       char *err, size_t errlen)
{
	unsigned long line = 1;
	size_t cap = 0;

	while (p < end) {
		char *eol = memchr(p, '\n', end - p);

		if (!eol)
			eol = end;
		*eol = '\0';
		if (eol > p && eol[-1] == '\r')
			eol[-1] = '\0';
		if (*p && parse_line(c, p, line, &cap, name, err, errlen))
			return -1;
		p = eol + 1;
		line++;
	}
	if (!c->hdr)
		return csv_error(err, errlen, name, 1,
				 "no header (only blank lines): give a CSV written by longpin --csv");
	return 0;
}

int csv_parse(const char *buf, size_t len, const char *name, struct csv *out,
	      char *err, size_t errlen)
{
	const char *nul;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!name)
		name = "(buffer)";
	if (!len) {
		csv_error(err, errlen, name, 1,
			  "empty file: give a CSV written by longpin --csv");
		goto out;
	}
	nul = memchr(buf, '\0', len);
	if (nul) {
		unsigned long line = 1;
		const char *p;

		for (p = buf; p < nul; p++)
			line += *p == '\n';
		csv_error(err, errlen, name, line,
			  "NUL byte: not a text CSV; give a CSV written by longpin --csv");
		goto out;
	}
	out->buf = malloc(len + 1);
	if (!out->buf) {
		csv_error(err, errlen, name, 1, "out of memory");
		goto out;
	}
	memcpy(out->buf, buf, len);
	out->buf[len] = '\0';
	ret = parse_lines(out, out->buf, out->buf + len, name, err, errlen);
out:
	if (ret)
		csv_free(out);
	return ret;
}

/* The whole of @fd in a malloc'd buffer. */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nbuf;

			cap = cap ? cap * 2 : 65536;
			if (cap > CSV_MAX_BYTES)
				goto fail_efbig;
			nbuf = realloc(buf, cap);
			if (!nbuf)
				goto fail_enomem;
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (!n)
			break;
		len += n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
fail_efbig:
	errno = EFBIG;
	goto fail;
fail_enomem:
	errno = ENOMEM;
fail:
	free(buf);
	return -1;
}

int csv_load(const char *path, struct csv *out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return csv_error(err, errlen, path, 0,
				 "%s: give a CSV written by longpin --csv",
				 strerror(errno));
	ret = read_all(fd, &buf, &len);
	if (ret)
		csv_error(err, errlen, path, 0, "%s: give a readable CSV of at most %lu MiB",
			  strerror(errno), CSV_MAX_BYTES >> 20);
	close(fd);
	if (!ret)
		ret = csv_parse(buf, len, path, out, err, errlen);
	free(buf);
	return ret;
}

/*
 * Read @n files of one header as one CSV (the repeats of one benchmark):
 * each is parsed alone first, so that a message names its own file and
 * line; @rows[i] is the number of rows of file i, which follow those of
 * the files before it.
 */
int csv_load_many(const char *const *paths, int n, struct csv *out,
		  size_t *rows, char *err, size_t errlen)
{
	char *all = NULL, *p;
	size_t len = 0, hlen = 0;
	struct csv one;
	int i, ret = -1;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		char *buf = NULL;
		size_t blen = 0, skip = 0;
		int fd;

		if (csv_load(paths[i], &one, err, errlen))
			goto out;
		rows[i] = one.nrows;
		csv_free(&one);
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read_all(fd, &buf, &blen)) {
			if (fd >= 0)
				close(fd);
			free(buf);
			csv_error(err, errlen, paths[i], 0, "%s: give a readable CSV",
				  strerror(errno));
			goto out;
		}
		close(fd);
		p = memchr(buf, '\n', blen);
		skip = p ? (size_t)(p - buf) + 1 : blen;
		if (!i) {
			hlen = skip;
		} else if (skip != hlen || memcmp(buf, all, hlen)) {
			free(buf);
			csv_error(err, errlen, paths[i], 1,
				  "its header differs from %s's: give repeats written by the same longpin",
				  paths[0]);
			goto out;
		} else {
			memmove(buf, buf + skip, blen - skip);
			blen -= skip;
		}
		p = realloc(all, len + blen + 1);
		if (!p) {
			free(buf);
			csv_error(err, errlen, paths[i], 0, "out of memory");
			goto out;
		}
		all = p;
		memcpy(all + len, buf, blen);
		len += blen;
		if (len && all[len - 1] != '\n')
			all[len++] = '\n';
		free(buf);
	}
	ret = csv_parse(all, len, paths[0], out, err, errlen);
out:
	free(all);
	return ret;
}
