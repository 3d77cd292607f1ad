/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader for longpin's CSV (schemas 1 to 3; 2 adds accel, 3 pinner): no
 * quoting, fields separated by commas, lines by \n (\r\n tolerated). Fields
 * are looked up by header name.
 */
#ifndef LONGPIN_CSVREAD_H
#define LONGPIN_CSVREAD_H

#include <stddef.h>

#define CSV_SCHEMA	3
#define CSV_MAX_COLS	256

struct csv {
	char *buf;		/* the text, with every separator made a NUL */
	int ncols;
	char **hdr;		/* ncols column names */
	size_t nrows;
	char **cell;		/* nrows * ncols fields */
	unsigned long *line;	/* line number of each row in the file */
};

/*
 * Parse @len bytes of @buf (need not be NUL-terminated). @name is the file
 * name used in messages. Returns 0, or -1 with one line in @err:
 * "NAME:LINE: cause: fix". @out is empty on error (csv_free is harmless).
 */
int csv_parse(const char *buf, size_t len, const char *name, struct csv *out,
	      char *err, size_t errlen);
/* Read and parse the file @path. */
int csv_load(const char *path, struct csv *out, char *err, size_t errlen);
void csv_free(struct csv *c);
/*
 * Read the @n files @paths, of one header, as one CSV: their rows in
 * order, @rows[i] of them from file i. Each file is checked alone first.
 */
int csv_load_many(const char *const *paths, int n, struct csv *out,
		  size_t *rows, char *err, size_t errlen);

/* Index of column @name, or -1. */
int csv_col(const struct csv *c, const char *name);
/* Field @col of row @row ("" when @col < 0). */
const char *csv_get(const struct csv *c, size_t row, int col);

#endif
