// SPDX-License-Identifier: GPL-2.0
/*
 * longpin-compare --plots: verdicts.png, the verdict grid. A row per
 * memory type (and file system, where the keys split by it); a column per
 * kernel and lane, a lane being what pinned: io_uring's register, a gup
 * pinner's pin or pin-ro, a lifetime case, a tool's jobs (fio). The
 * kernels of a lane stand side by side, so that where they disagree the
 * colours change from one column to the next. A cell folds the keys of
 * its type, lane and kernel (the prefaults; sizes; a tool's jobs) into
 * one where they agree, and is sliced, each slice labelled (n r w: the
 * prefault), only where they differ.
 *
 * The layout is done here in pixels: verdicts.dat holds boxes and labels
 * at pixel coordinates, verdicts.gp only draws them at that size.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "compare.h"

enum {
	ROW_H = 20,		/* a row whose cells are folded */
	SLICE_H = 13,		/* a slice of a cell whose keys differ */
	LANE_GAP = 6,		/* between the lanes of a block */
	BLOCK_GAP = 18,		/* between blocks (pin, pin-ro, lifetime, ...) */
	MARGIN = 10,
	TITLE_Y = 14,
	CAPTION_Y = 36,		/* a block's caption */
	HEAD_Y = 52,		/* a column's first header line */
	HEAD_LINE = 12,
	GRID_Y = 84,		/* the first row */
	MIN_W = 760,
};

/* The grid's colours; the legend lists them in this order. */
enum { GC_FAIL, GC_LOST, GC_OK, GC_EOPNOTSUPP, GC_EFAULT, GC_EINVAL,
       GC_REFUSED, GC_PARTIAL, GC_MIXED, GC_OTHER, GC_MISSING, GC_NOT_RUN,
       GC_NR };
static const struct {
	unsigned int rgb;
	const char *what;
} grid_colour[GC_NR] = {
	[GC_FAIL] = { 0x212121, "FAIL" },	/* near black, white text */
	[GC_LOST] = { 0x8d6e63, "known defect" },	/* brown, white text */
	[GC_OK] = { 0x66bb6a, "0" },		/* green */
	[GC_EOPNOTSUPP] = { 0xffa726, "EOPNOTSUPP" },	/* orange */
	[GC_EFAULT] = { 0xef5350, "EFAULT" },	/* red */
	[GC_EINVAL] = { 0xab47bc, "EINVAL" },	/* purple */
	[GC_REFUSED] = { 0x26a69a, "REFUSED" },	/* teal: gup pinned no page */
	[GC_PARTIAL] = { 0xf48fb1, "PARTIAL" },	/* pink: gup pinned some */
	[GC_MIXED] = { 0xfff176, "mixed" },	/* yellow */
	[GC_OTHER] = { 0x42a5f5, "other errno" },	/* blue */
	[GC_MISSING] = { 0xbdbdbd, "missing" },	/* grey */
	[GC_NOT_RUN] = { 0xf0f0f0, "not run" },	/* a type the lane has not */
};

enum block { B_PIN, B_RO, B_LIFE, B_OTHER, B_SOURCE };

static const char *const block_caption[] = {
	[B_PIN] = "register / pin", [B_RO] = "read-only pin",
	[B_LIFE] = "lifetime", [B_OTHER] = "other ops",
	[B_SOURCE] = "other tools",	/* "fio jobs" when only fio's */
};

struct lane {
	enum block block;
	int pinner;
	const char *op;		/* the harness op; a tool's source (fio) */
	size_t seq;
};

struct row {
	const char *memtype, *fs;	/* fs NULL: the keys do not split by it */
	size_t seq, type_seq;
	int y, h;
};

struct column {
	size_t lane;
	int file, x, w;
};

/* A cell's slice: the whole cell when its keys agree. */
struct part {
	int gc;
	size_t key;
	char text[128];
	char label[96];		/* a slice's: the keys that had its outcome */
};

struct grid {
	const struct cmp *c;
	struct key_fields *kf;	/* of each key */
	size_t *krow, *klane;	/* each key's row and lane */
	struct row *row;
	size_t nrows;
	struct lane *lane;
	size_t nlanes;
	struct column *col;
	size_t ncols;
	struct part *part;	/* one cell's keys, up to nkeys */
	struct part *slice;	/* and its slices */
	int label_w, bottom, width, height;
};

static int max(int a, int b)
{
	return a > b ? a : b;
}

/*
 * Pixels @s takes at most in DejaVu Sans (the png terminal's font) at 8
 * or 9 pt: capitals 7 or 8, spaces 3, the rest 6 or 6.5 at most.
 */
static int text_w(const char *s, int pt)
{
	int w = 0;

	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			w += pt >= 9 ? 85 : 72;
		else
			w += *s == ' ' ? 35 : pt >= 9 ? 68 : 60;
	return (w + 9) / 10;
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* ---- the cells' colour and text ---- */

static int result_colour(const struct cell *cl)
{
	static const struct { const char *res; int gc; } res_gc[] = {
		{ "0", GC_OK }, { "-EOPNOTSUPP", GC_EOPNOTSUPP },
		{ "-EFAULT", GC_EFAULT }, { "-EINVAL", GC_EINVAL },
		{ "-REFUSED", GC_REFUSED }, { "-PARTIAL", GC_PARTIAL },
	};
	size_t i;

	if (!cl->nrows)
		return GC_MISSING;
	if (strstr(cl->verdict, "fail") || cl->leak_kb)
		return GC_FAIL;			/* whatever the answer */
	/* a known defect's rows fail their data check: that is the loss */
	if (strstr(cl->verdict, "defect"))
		return GC_LOST;
	if (cl->ncorrupt)
		return GC_FAIL;
	for (i = 0; i < sizeof(res_gc) / sizeof(res_gc[0]); i++)
		if (!strcmp(cl->res, res_gc[i].res))
			return res_gc[i].gc;
	if (!strncmp(cl->res, "mixed", 5))
		return GC_MIXED;
	return GC_OTHER;
}

/* The verdict, after the answer: none for a pass. */
static const char *verdict_mark(const struct cell *cl)
{
	const char *v = cl->verdict;

	if (!*v || !strcmp(v, "pass"))
		return "";
	if (!strcmp(v, "fail"))
		return "FAIL";
	if (!strcmp(v, "defect"))
		return cl->pin_defect ? "LEAK" : "LOST";
	if (!strcmp(v, "unchecked"))
		return "?";
	return v;			/* "fixed", "pass/fail", ... */
}

/* "0", "EOPNOTSUPP", "EIO LOST", "0/EFAULT pass/fail", "missing" */
static void cell_text(char *buf, size_t n, const struct cell *cl)
{
	const char *s = cl->res, *mark = verdict_mark(cl);
	size_t len = 0;

	if (!cl->nrows) {
		snprintf(buf, n, "missing");
		return;
	}
	if (!strncmp(s, "mixed ", 6))
		s += 6;				/* the colour says it */
	for (; *s && len + 1 < n; s++)
		if (*s != '-' || (s != cl->res && s[-1] != '/' && s[-1] != ' '))
			buf[len++] = *s;	/* no errno's minus sign */
	buf[len] = '\0';
	if (*mark)
		snprintf(buf + len, n - len, " %s", mark);
}

/* REFUSED and PARTIAL are gup's answers: in the legend when gup pinned. */
static bool legend_has(const struct cmp *c, int gc)
{
	return (gc != GC_REFUSED && gc != GC_PARTIAL) ||
	       c->pinners & ~(1u << P_IO_URING);
}

/* ---- lanes and rows ---- */

static enum block block_of(const struct key_fields *kf)
{
	if (strcmp(kf->source, "harness"))
		return B_SOURCE;
	if (!strcmp(kf->op, "register") || !strcmp(kf->op, "pin"))
		return B_PIN;
	if (!strcmp(kf->op, "pin-ro"))
		return B_RO;
	if (!strncmp(kf->op, "lifetime-", 9))
		return B_LIFE;
	return B_OTHER;
}

/* The lane of key @k; a new one if @add. Returns nlanes if none. */
static size_t lane_find(struct grid *g, size_t k, bool add)
{
	const struct key_fields *kf = &g->kf[k];
	struct lane l = { block_of(kf), pinner_of_key(g->c->key[k]),
			  kf->op, g->nlanes };
	size_t i;

	if (l.block == B_SOURCE)
		l.op = kf->source;
	for (i = 0; i < g->nlanes; i++)
		if (g->lane[i].block == l.block && g->lane[i].pinner == l.pinner &&
		    !strcmp(g->lane[i].op, l.op))
			return i;
	if (add) {
		g->lane = xrealloc(g->lane, (g->nlanes + 1) * sizeof(*g->lane));
		g->lane[g->nlanes++] = l;
	}
	return i;
}

static int lane_cmp(const void *pa, const void *pb)
{
	const struct lane *a = pa, *b = pb;

	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->pinner != b->pinner)
		return a->pinner < b->pinner ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The fs_type of key @k's first row: where a key not split by it goes. */
static const char *key_fs(const struct cmp *c, size_t k)
{
	const struct file *f;
	size_t r;
	int i;

	for (i = 0; i < c->nfiles; i++) {
		f = &c->file[i];
		for (r = 0; r < f->csv.nrows; r++)
			if (f->key[r] == k)
				return col_get(f, r, C_FS);
	}
	return "";
}

static size_t row_find(const struct grid *g, const char *mem, const char *fs)
{
	size_t i;

	for (i = 0; i < g->nrows; i++)
		if (!strcmp(g->row[i].memtype, mem) &&
		    !g->row[i].fs == !fs && same(g->row[i].fs, fs))
			return i;
	return g->nrows;
}

static void row_add(struct grid *g, const char *mem, const char *fs)
{
	struct row r = { mem, fs, g->nrows, 0, 0, ROW_H };
	size_t k;

	for (k = 0; k < g->c->nkeys; k++)
		if (!strcmp(g->kf[k].memtype, mem))
			break;
	r.type_seq = k;
	g->row = xrealloc(g->row, (g->nrows + 1) * sizeof(*g->row));
	g->row[g->nrows++] = r;
}

/*
 * The row of key @k (a new one if @add): its memory type, and file system
 * if the key is split by it. A key that is not goes to its type's row
 * without one or, if the type has rows per file system only (the pins
 * split file-shared by ext4 and xfs, a lifetime case did not), to the
 * row of the file system its rows were on.
 */
static size_t row_of_key(struct grid *g, size_t k, bool add)
{
	const struct key_fields *kf = &g->kf[k];
	size_t r = row_find(g, kf->memtype, kf->fs);

	if (r == g->nrows && !kf->fs)
		r = row_find(g, kf->memtype, key_fs(g->c, k));
	if (r == g->nrows && add)
		row_add(g, kf->memtype, kf->fs);
	return r;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	if (a->type_seq != b->type_seq)
		return a->type_seq < b->type_seq ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/*
 * Rows and lanes of every key: the pins' rows first (they split by file
 * system where the kernels' rows do), then the others', each sorted.
 */
static void grid_keys(struct grid *g)
{
	size_t k, n = g->c->nkeys;
	int pass;

	g->kf = xcalloc(n, sizeof(*g->kf));
	g->krow = xcalloc(n, sizeof(*g->krow));
	g->klane = xcalloc(n, sizeof(*g->klane));
	g->part = xcalloc(n, sizeof(*g->part));
	g->slice = xcalloc(n, sizeof(*g->slice));
	for (k = 0; k < n; k++)
		key_split(&g->kf[k], g->c->key[k]);
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < n; k++)
			if ((block_of(&g->kf[k]) <= B_RO) == !pass) {
				row_of_key(g, k, true);
				lane_find(g, k, true);
			}
	qsort(g->row, g->nrows, sizeof(*g->row), row_cmp);
	qsort(g->lane, g->nlanes, sizeof(*g->lane), lane_cmp);
	for (k = 0; k < n; k++) {
		g->krow[k] = row_of_key(g, k, false);
		g->klane[k] = lane_find(g, k, false);
	}
}

/* Kernel @f has rows in lane @l: it gets a column there. */
static bool lane_ran(const struct grid *g, size_t l, int f)
{
	size_t k;

	for (k = 0; k < g->c->nkeys; k++)
		if (g->klane[k] == l && cell_of(g->c, k, f)->nrows)
			return true;
	return false;
}

static void grid_cols(struct grid *g)
{
	size_t l;
	int f;

	g->col = xcalloc(g->nlanes * g->c->nfiles, sizeof(*g->col));
	for (l = 0; l < g->nlanes; l++)
		for (f = 0; f < g->c->nfiles; f++)
			if (lane_ran(g, l, f)) {
				g->col[g->ncols].lane = l;
				g->col[g->ncols++].file = f;
			}
}

/* ---- a cell ---- */

static bool parts_agree(const struct part *p, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (p[i].gc != p[0].gc || strcmp(p[i].text, p[0].text))
			return false;
	return true;
}

/* The fields a slice's label may name, in the order they are tried. */
enum { F_PREFAULT, F_SIZE, F_OP, F_FS, F_NR };

/* Field @f of key @k as a label shows it: "n", "16M", "randread-nullb" */
static void field(char *buf, size_t n, const struct grid *g, size_t k, int f)
{
	const struct key_fields *kf = &g->kf[k];
	static const char *const pf[][2] = {
		{ "none", "n" }, { "read", "r" }, { "write", "w" },
	};
	size_t i;

	snprintf(buf, n, "%s", f == F_SIZE ? "" : f == F_OP ? kf->op :
		 f == F_FS ? (kf->fs ? kf->fs : "-") : kf->prefault);
	if (f == F_SIZE)
		fmt_size(buf, n, kf->size);
	for (i = 0; f == F_PREFAULT && i < sizeof(pf) / sizeof(pf[0]); i++)
		if (!strcmp(kf->prefault, pf[i][0]))
			snprintf(buf, n, "%s", pf[i][1]);
}

static bool field_differs(const struct grid *g, size_t a, size_t b, int f)
{
	char x[64], y[64];

	field(x, sizeof(x), g, a, f);
	field(y, sizeof(y), g, b, f);
	return strcmp(x, y) != 0;
}

/* Keys @a and @b differ in a field of @fields. */
static bool told_apart(const struct grid *g, size_t a, size_t b,
		       unsigned int fields)
{
	int f;

	for (f = 0; f < F_NR; f++)
		if (fields & 1u << f && field_differs(g, a, b, f))
			return true;
	return false;
}

/*
 * The fields that tell the cell's keys apart, as few as will do: the
 * prefault first, then the size, the op (a tool's job), the file system.
 */
static unsigned int label_fields(const struct grid *g, const struct part *p,
				 size_t n)
{
	unsigned int fields = 0;
	size_t i, j;
	int f;

	for (f = 0; f < F_NR; f++)
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++)
				if (!told_apart(g, p[i].key, p[j].key, fields) &&
				    field_differs(g, p[i].key, p[j].key, f))
					fields |= 1u << f;
	return fields;
}

/* Append to @buf key @k's label: its @fields ("n", "randread-nullb n"). */
static void add_label(char *buf, size_t n, const struct grid *g, size_t k,
		      unsigned int fields)
{
	char v[64];
	size_t len;
	int f;

	for (f = 0; f < F_NR; f++) {
		if (!(fields & 1u << f))
			continue;
		field(v, sizeof(v), g, k, f);
		len = strlen(buf);
		snprintf(buf + len, n - len, "%s%s", len ? " " : "", v);
	}
}

/*
 * The slices of a cell whose keys do not agree: one per outcome (colour
 * and text), labelled by the keys that had it ("n w: 0", "r: EIO LOST").
 */
static size_t slices(struct grid *g, size_t n)
{
	unsigned int fields = label_fields(g, g->part, n);
	struct part *p = g->part, *s = g->slice;
	size_t i, j, m = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++)
			if (s[j].gc == p[i].gc && !strcmp(s[j].text, p[i].text))
				break;
		if (j == m) {
			s[m] = p[i];
			s[m++].label[0] = '\0';
		}
		add_label(s[j].label, sizeof(s[j].label), g, p[i].key, fields);
	}
	for (j = 0; j < m; j++) {
		char t[sizeof(s->text)];

		snprintf(t, sizeof(t), "%s: %s", s[j].label, s[j].text);
		memcpy(s[j].text, t, sizeof(t));
	}
	return m;
}

/*
 * The slices of the cell of row @r and column @co in g->slice: one if its
 * keys agree, none if the lane has no key of that type.
 */
static size_t cell_parts(struct grid *g, size_t r, const struct column *co)
{
	struct part *p = g->part;
	size_t k, n = 0;

	for (k = 0; k < g->c->nkeys; k++) {
		const struct cell *cl;

		if (g->krow[k] != r || g->klane[k] != co->lane)
			continue;
		cl = cell_of(g->c, k, co->file);
		p[n].gc = result_colour(cl);
		p[n].key = k;
		cell_text(p[n++].text, sizeof(p->text), cl);
	}
	if (!n)
		return 0;
	if (n > 1 && !parts_agree(p, n))
		return slices(g, n);
	g->slice[0] = p[0];
	return 1;
}

/* ---- layout ---- */

/* A column's header: kernel, pinner, op ("reclaim" of lifetime-reclaim). */
static void col_head(const struct grid *g, const struct column *co,
		     const char *line[3])
{
	const struct lane *l = &g->lane[co->lane];

	line[0] = g->c->file[co->file].label;
	line[1] = pinner_name[l->pinner];
	line[2] = l->block == B_LIFE ? l->op + 9 : l->op;
}

static void col_width(struct grid *g, struct column *co)
{
	const char *line[3];
	size_t r, n, i;
	int w = 0;

	col_head(g, co, line);
	for (i = 0; i < 3; i++)
		w = max(w, text_w(line[i], 9));
	for (r = 0; r < g->nrows; r++) {
		n = cell_parts(g, r, co);
		for (i = 0; i < n; i++)
			w = max(w, text_w(g->slice[i].text, 8));
		g->row[r].h = max(g->row[r].h, max(ROW_H, (int)n * SLICE_H));
	}
	co->w = w + 10;
}

static void row_label(char *buf, size_t n, const struct row *r)
{
	if (r->fs)
		snprintf(buf, n, "%s (%s)", r->memtype, r->fs);
	else
		snprintf(buf, n, "%s", r->memtype);
}

static enum block col_block(const struct grid *g, size_t i)
{
	return g->lane[g->col[i].lane].block;
}

/* The caption of the block of columns @first to @end (excluded). */
static void caption(char *buf, size_t n, const struct grid *g, size_t first,
		    size_t end)
{
	const char *src = g->lane[g->col[first].lane].op;
	size_t i;

	snprintf(buf, n, "%s", block_caption[col_block(g, first)]);
	if (col_block(g, first) != B_SOURCE)
		return;
	for (i = first; i < end; i++)
		if (strcmp(g->lane[g->col[i].lane].op, src))
			return;
	snprintf(buf, n, "%s jobs", src);
}

/* Widen the columns of a block narrower than its caption. */
static void fit_caption(struct grid *g, size_t first, size_t end)
{
	char cap[80];
	int w = 0, need;
	size_t i;

	caption(cap, sizeof(cap), g, first, end);
	for (i = first; i < end; i++)
		w += g->col[i].w;
	need = text_w(cap, 9) + 8 - w;
	for (i = first; need > 0 && i < end; i++)
		g->col[i].w += (need + (int)(end - first) - 1) /
			       (int)(end - first);
}

/* x of every column: lanes apart, blocks further apart. */
static int place_cols(struct grid *g)
{
	size_t i, first = 0;
	int x = g->label_w;

	for (i = 1; i <= g->ncols; i++)
		if (i == g->ncols || col_block(g, i) != col_block(g, first)) {
			fit_caption(g, first, i);
			first = i;
		}
	for (i = 0; i < g->ncols; i++) {
		if (i && col_block(g, i) != col_block(g, i - 1))
			x += BLOCK_GAP;
		else if (i && g->col[i].lane != g->col[i - 1].lane)
			x += LANE_GAP;
		g->col[i].x = x;
		x += g->col[i].w;
	}
	return x;
}

static void layout(struct grid *g)
{
	char lab[160];
	size_t r, i;
	int y = GRID_Y;

	g->label_w = 0;
	for (r = 0; r < g->nrows; r++) {
		row_label(lab, sizeof(lab), &g->row[r]);
		g->label_w = max(g->label_w, text_w(lab, 9));
	}
	g->label_w += MARGIN + 8;
	for (i = 0; i < g->ncols; i++)
		col_width(g, &g->col[i]);
	g->width = max(MIN_W, place_cols(g) + MARGIN);
	for (r = 0; r < g->nrows; r++) {
		g->row[r].y = y;
		y += g->row[r].h;
	}
	g->bottom = y;
}

/* ---- drawing: verdicts.dat, one index block per kind of mark ---- */

static void put_text(FILE *dat, double x, double y, const char *s)
{
	fprintf(dat, "%.1f %.1f ", x, y);
	gp_str(dat, s);
	fputc('\n', dat);
}

/* A box and its text; after them the row, kernel and lane, for readers. */
static void put_cell(FILE *dat, const struct grid *g, const struct column *co,
		     double y, double h, const struct part *p, size_t r)
{
	const struct lane *l = &g->lane[co->lane];
	char lab[160];

	fprintf(dat, "%.1f %.1f %.1f %.1f %u ", co->x + co->w / 2.0, y + h / 2,
		co->w / 2.0 - 0.5, h / 2 - 0.5, grid_colour[p->gc].rgb);
	gp_str(dat, p->text);
	fprintf(dat, " %u ", p->gc == GC_FAIL || p->gc == GC_LOST ?
		0xffffffu : 0u);
	row_label(lab, sizeof(lab), &g->row[r]);
	gp_str(dat, lab);
	fputc(' ', dat);
	gp_str(dat, g->c->file[co->file].label);
	snprintf(lab, sizeof(lab), "%s %s", pinner_name[l->pinner], l->op);
	fputc(' ', dat);
	gp_str(dat, lab);
	fputc('\n', dat);
}

static void draw_cells(FILE *dat, struct grid *g)
{
	static const struct part not_run = { GC_NOT_RUN, 0, "", "" };
	const struct row *rw;
	size_t r, i, n, s;

	for (r = 0; r < g->nrows; r++)
		for (i = 0; i < g->ncols; i++) {
			rw = &g->row[r];
			n = cell_parts(g, r, &g->col[i]);
			if (!n)
				put_cell(dat, g, &g->col[i], rw->y, rw->h,
					 &not_run, r);
			for (s = 0; s < n; s++)
				put_cell(dat, g, &g->col[i],
					 rw->y + (double)rw->h * s / n,
					 (double)rw->h / n, &g->slice[s], r);
		}
}

static void draw_rows(FILE *dat, const struct grid *g)
{
	char lab[160];
	size_t r;

	for (r = 0; r < g->nrows; r++) {
		row_label(lab, sizeof(lab), &g->row[r]);
		put_text(dat, g->label_w - 6,
			 g->row[r].y + g->row[r].h / 2.0 + 1, lab);
	}
}

/* The columns' headers, and each block's caption above its columns. */
static void draw_heads(FILE *dat, const struct grid *g)
{
	const char *line[3];
	size_t i, first = 0;
	char cap[80];
	int j;

	for (i = 0; i < g->ncols; i++) {
		col_head(g, &g->col[i], line);
		for (j = 0; j < 3; j++)
			put_text(dat, g->col[i].x + g->col[i].w / 2.0,
				 HEAD_Y + j * HEAD_LINE, line[j]);
		if (i + 1 < g->ncols && col_block(g, i + 1) == col_block(g, i))
			continue;
		caption(cap, sizeof(cap), g, first, i + 1);
		put_text(dat, (g->col[first].x + g->col[i].x + g->col[i].w) / 2.0,
			 CAPTION_Y, cap);
		first = i + 1;
	}
}

/* The legend's swatches, flowing over lines; returns the y after them. */
static int draw_legend(FILE *dat, const struct grid *g)
{
	int x = MARGIN, y = g->bottom + 18, gc, w;

	for (gc = 0; gc < GC_NR; gc++) {
		if (!legend_has(g->c, gc))
			continue;
		w = 18 + text_w(grid_colour[gc].what, 9) + 14;
		if (x + w > g->width - MARGIN && x > MARGIN) {
			x = MARGIN;
			y += 18;
		}
		fprintf(dat, "%d %d 6 6 %u %d ", x + 6, y, grid_colour[gc].rgb,
			x + 16);
		gp_str(dat, grid_colour[gc].what);
		fputc('\n', dat);
		x += w;
	}
	return y + 20;
}

static const char notes[] =
	"Colour and text: the answer, 0 or the errno; FAIL (near black) and "
	"a known defect (brown) colour a cell whatever it answered. "
	"Marks after the answer: FAIL, LOST (data lost), LEAK (pins leaked), "
	"? unchecked (no contract row), "
	"fixed (the known defect did not show). A cell is sliced only where "
	"its keys differ: n r w = prefault none, read, write (or the size, or "
	"the job). A column per kernel and pinner that ran; light grey: none "
	"of its keys has that memory type.";

/* The notes, word-wrapped as wide as the picture; returns the y after. */
static int draw_notes(FILE *dat, const struct grid *g, int y)
{
	char *copy = xstrdup(notes), *w, *save, line[sizeof(notes)] = "";
	size_t len;

	for (w = strtok_r(copy, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		len = strlen(line);
		if (len && text_w(line, 9) + text_w(w, 9) + 4 >
			   g->width - 2 * MARGIN) {
			put_text(dat, MARGIN, y, line);
			y += 15;
			len = 0;
		}
		snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", w);
	}
	put_text(dat, MARGIN, y, line);
	free(copy);
	return y + 15;
}

static void write_gp(FILE *gp, const struct grid *g)
{
	fprintf(gp, "set terminal png noenhanced font ',9' size %d,%d\n"
		"set output 'verdicts.png'\n"
		"unset border\nunset tics\nunset key\n"
		"set lmargin at screen 0\nset rmargin at screen 1\n"
		"set tmargin at screen 1\nset bmargin at screen 0\n"
		"set xrange [0:%d]\nset yrange [%d:0]\n"
		"set style fill solid 1.0 noborder\n", g->width, g->height,
		g->width, g->height);
	fprintf(gp, "set label 1 %s at %d,%d center font ',11'\n",
		"\"Verdicts: memory type (rows) by kernel and pinner (columns)\"",
		g->width / 2, TITLE_Y);
	fputs("plot 'verdicts.dat' index 0 using 1:2:3:4:5 with boxxyerror fc rgb variable, \\\n"
	      "     '' index 0 using 1:2:6:7 with labels tc rgb variable font ',8', \\\n"
	      "     '' index 1 using 1:2:3 with labels right, \\\n"
	      "     '' index 2 using 1:2:3 with labels center, \\\n"
	      "     '' index 3 using 1:2:3:4:5 with boxxyerror fc rgb variable, \\\n"
	      "     '' index 3 using 6:2:7 with labels left, \\\n"
	      "     '' index 4 using 1:2:3 with labels left\n", gp);
}

static void grid_free(struct grid *g)
{
	free(g->kf);
	free(g->krow);
	free(g->klane);
	free(g->part);
	free(g->slice);
	free(g->row);
	free(g->lane);
	free(g->col);
}

void plot_verdicts(FILE *dat, FILE *gp, const struct cmp *c)
{
	struct grid g = { .c = c };
	int y;

	grid_keys(&g);
	grid_cols(&g);
	layout(&g);
	draw_cells(dat, &g);
	fputs("\n\n", dat);
	draw_rows(dat, &g);
	fputs("\n\n", dat);
	draw_heads(dat, &g);
	fputs("\n\n", dat);
	y = draw_legend(dat, &g);
	fputs("\n\n", dat);
	g.height = draw_notes(dat, &g, y) + 4;
	write_gp(gp, &g);
	grid_free(&g);
}
