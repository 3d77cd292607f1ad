// SPDX-License-Identifier: GPL-2.0
/*
 * Expected verdicts. The tables are data: harness/contracts/NAME.contract,
 * embedded at build time (cmake/embed.cmake). Each has "match" lines that
 * say which kernels it describes ("kernel 6.1", "kernel >=6.5", "path P",
 * "vmstat NAME", "release TEXT": uname -r holds TEXT). A contract whose
 * match lines all hold describes the kernel; of those, the most specific
 * wins (each line scores: >= 1, an exact version 2, the others 3; a
 * contract scores the sum of its lines, and of two that tie, the higher
 * ">=" version wins). Then rows "memtype prefault size expected",
 * first match wins, '*' matches anything, size is '*', '>N' or '<=N'.
 * Optional words after the answer: "nofault" says that the attempt must
 * not fault any page (resident pages and dirty kB of the buffer stay as
 * they were); "defect" says that the answer is a known kernel defect
 * (data lost), so that a row matching it reads "defect", never "pass";
 * "leak=NAME" on a pinner's row says that the pin answers as given but
 * its pins are never all released, a known kernel defect called NAME:
 * the row reads "defect" when only that leak fails it, "fixed" when its
 * pins balance.
 * A row may start with "lifetime CASE": it gives the answer of that
 * --lifetime case (by default a case expects 0 where TYPE registers).
 * A row may start with "pinner LIST" (a comma list of pinners, NAME/ro for
 * a read-only pin): the answer of those --pinner. A row without it is
 * io_uring's, whose answers are most of every contract.
 * A row may start with "torture" ("torture TYPE * * 0 rsvd=NAME"): what a
 * --torture run of TYPE may show that is a known kernel defect, not a
 * failure of the run. Its one flag, "rsvd=NAME", says that HugePages_Rsvd
 * may fall (a reservation given back twice) while the run truncates
 * TYPE's file: the defect NAME. The run's verdict is then "defect".
 * "include NAME" reads the rows of harness/contracts/NAME.inc there: the
 * rows every kernel shares (common.inc), which a contract overrides with
 * a row of its own before the include (first match wins).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "longpin.h"

extern const char *const lp_contract_names[];
extern const char *const lp_contract_texts[];

#define MAX_ROWS 256
/* the case name of "torture" rows: no --lifetime case is called so */
#define TORTURE_CASE "(torture)"

enum match_kind { M_NONE, M_KERNEL_GE, M_KERNEL_EQ, M_PATH, M_VMSTAT, M_RELEASE };

struct crow {
	char lcase[24];			/* "": the registration */
	char pinner[48];		/* "": io_uring; "gup-fast,gup/ro" */
	char mem[32];
	int pf;				/* -1: any */
	char size_op;			/* 0: any, '>' or '<' (<=) */
	size_t size;
	int err;			/* 0 or -errno */
	bool nofault;
	bool defect;
	char leak[40];			/* leak=NAME, "": none */
	char rsvd[40];			/* rsvd=NAME ("torture" rows), "": none */
};

struct cmatch {
	enum match_kind kind;
	int major, minor;
	char path[128];			/* M_PATH: a path; M_VMSTAT: a name */
};

#define MAX_MATCH 3

struct contract {
	char name[32];
	int nmatch;
	struct cmatch match[MAX_MATCH];
	int nrows;
	struct crow rows[MAX_ROWS];
};

static struct contract *contracts;
static int nr_contracts;

int lp_parse_expected(const char *s, int *err)
{
	int e;

	if (!strcmp(s, "0")) {
		*err = 0;
		return 0;
	}
	if (s[0] != '-' || !(e = lp_errno_from_name(s + 1)))
		return -EINVAL;
	*err = -e;
	return 0;
}

static int parse_flag(struct crow *r, const char *flag)
{
	if (!strcmp(flag, "nofault"))
		r->nofault = true;
	else if (!strcmp(flag, "defect"))
		r->defect = true;
	else if (!strncmp(flag, "leak=", 5) && flag[5] &&
		 strlen(flag + 5) < sizeof(r->leak))
		snprintf(r->leak, sizeof(r->leak), "%s", flag + 5);
	else if (!strcmp(r->lcase, TORTURE_CASE) && !strncmp(flag, "rsvd=", 5) &&
		 flag[5] && strlen(flag + 5) < sizeof(r->rsvd))
		snprintf(r->rsvd, sizeof(r->rsvd), "%s", flag + 5);
	else
		return -EINVAL;
	return 0;
}

static int parse_row(struct crow *r, char *line)
{
	char mem[32], pf[16], size[24], exp[24], flag[2][48];
	int i, n, off = 0;

	if (sscanf(line, "pinner %47s %n", r->pinner, &off) != 1)
		off = 0;
	if (sscanf(line + off, "lifetime %23s %n", r->lcase, &n) == 1)
		off += n;
	else if (!strncmp(line + off, "torture ", 8)) {
		snprintf(r->lcase, sizeof(r->lcase), "%s", TORTURE_CASE);
		off += 8;
	}
	n = sscanf(line + off, "%31s %15s %23s %23s %47s %47s", mem, pf, size,
		   exp, flag[0], flag[1]);
	if (n < 4)
		return -EINVAL;
	for (i = 0; i < n - 4; i++)
		if (parse_flag(r, flag[i]))
			return -EINVAL;
	snprintf(r->mem, sizeof(r->mem), "%s", mem);
	r->pf = -1;
	if (strcmp(pf, "*")) {
		for (i = 0; i < PF_NR && strcmp(pf, lp_prefault_name(i)); i++)
			;
		if (i == PF_NR)
			return -EINVAL;
		r->pf = i;
	}
	r->size_op = 0;
	if (size[0] == '>' && !lp_parse_size(size + 1, &r->size))
		r->size_op = '>';
	else if (!strncmp(size, "<=", 2) && !lp_parse_size(size + 2, &r->size))
		r->size_op = '<';
	else if (strcmp(size, "*"))
		return -EINVAL;
	return lp_parse_expected(exp, &r->err);
}

static int parse_match(struct contract *cc, const char *arg)
{
	struct cmatch *c;

	if (cc->nmatch == MAX_MATCH)
		return -ENOSPC;
	c = &cc->match[cc->nmatch++];
	if (!strncmp(arg, "kernel ", 7)) {
		arg += 7;
		c->kind = M_KERNEL_EQ;
		if (!strncmp(arg, ">=", 2)) {
			c->kind = M_KERNEL_GE;
			arg += 2;
		}
		return sscanf(arg, "%d.%d", &c->major, &c->minor) == 2 ?
		       0 : -EINVAL;
	}
	if (!strncmp(arg, "path ", 5)) {
		c->kind = M_PATH;
		return sscanf(arg + 5, "%127s", c->path) == 1 ? 0 : -EINVAL;
	}
	if (!strncmp(arg, "vmstat ", 7)) {
		c->kind = M_VMSTAT;
		return sscanf(arg + 7, "%127s", c->path) == 1 ? 0 : -EINVAL;
	}
	if (!strncmp(arg, "release ", 8)) {
		c->kind = M_RELEASE;
		return sscanf(arg + 8, "%127s", c->path) == 1 ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* The embedded text of harness/contracts/@file ("common.inc"), or NULL. */
static const char *contract_text(const char *file)
{
	int i;

	for (i = 0; lp_contract_names[i]; i++)
		if (!strcmp(lp_contract_names[i], file))
			return lp_contract_texts[i];
	return NULL;
}

static bool is_include(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".inc");
}

static int parse_text(struct contract *c, const char *file, const char *text,
		      int depth);

/* "include NAME": the rows of NAME.inc, here. */
static int parse_include(struct contract *c, const char *arg, int depth)
{
	char file[64];
	const char *text;

	if (sscanf(arg, "%58s", file) != 1 || depth > 4)
		return -EINVAL;
	strcat(file, ".inc");
	text = contract_text(file);
	if (!text)
		return -ENOENT;
	return parse_text(c, file, text, depth + 1) == LP_OK ? 0 : -EINVAL;
}

static int parse_text(struct contract *c, const char *file, const char *text,
		      int depth)
{
	char line[256], *hash;
	int lineno = 0, ret;
	size_t n;

	while (*text) {
		n = strcspn(text, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, text);
		text += n + (text[n] == '\n');
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (strspn(line, " \t") == strlen(line))
			continue;
		if (!strncmp(line, "match ", 6) && !depth)
			ret = parse_match(c, line + 6);
		else if (!strncmp(line, "include ", 8))
			ret = parse_include(c, line + 8, depth);
		else if (c->nrows == MAX_ROWS)
			ret = -ENOSPC;
		else
			ret = parse_row(&c->rows[c->nrows++], line);
		if (ret)
			return lp_err(LP_EUSAGE,
				      "contract %s: line %d of %s is malformed: fix harness/contracts/%s",
				      c->name, lineno, file, file);
	}
	return LP_OK;
}

static int parse_contract(struct contract *c, const char *name,
			  const char *text)
{
	char file[64];

	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(file, sizeof(file), "%s.contract", name);
	return parse_text(c, file, text, 0);
}

/* The contracts: the .contract files (a .inc file is rows they include). */
static int contracts_load(void)
{
	int i, n = 0;

	if (contracts)
		return LP_OK;
	while (lp_contract_names[n])
		n++;
	contracts = calloc(n, sizeof(*contracts));
	if (!contracts)
		return lp_err(LP_EUSAGE, "out of memory");
	for (i = 0; i < n; i++) {
		if (is_include(lp_contract_names[i]))
			continue;
		if (parse_contract(&contracts[nr_contracts++], lp_contract_names[i],
				   lp_contract_texts[i]) != LP_OK)
			exit(LP_EUSAGE);
	}
	return LP_OK;
}

const char *lp_kernel_release(void)
{
	static struct utsname u;
	const char *env = getenv("LONGPIN_KERNEL_RELEASE");

	if (env && *env)
		return env;
	if (!u.release[0])
		uname(&u);
	return u.release;
}

static int match_score(const struct cmatch *c, int major, int minor)
{
	switch (c->kind) {
	case M_PATH:
		return access(c->path, F_OK) == 0 ? 3 : 0;
	case M_VMSTAT:
		return lp_vmstat_value(c->path) >= 0 ? 3 : 0;
	case M_RELEASE:
		return strstr(lp_kernel_release(), c->path) ? 3 : 0;
	case M_KERNEL_EQ:
		return major == c->major && minor == c->minor ? 2 : 0;
	case M_KERNEL_GE:
		return major > c->major ||
		       (major == c->major && minor >= c->minor) ? 1 : 0;
	default:
		return 0;
	}
}

/*
 * A contract's score: the sum of its match lines', 0 unless all hold;
 * between two that score the same, the higher ">=" bound is the more
 * specific (linux-7.2+ over linux-6.5+ for 7.2), so it weighs in below
 * the lines' own scores.
 */
static int contract_score(const struct contract *c, int major, int minor)
{
	int i, s, sum = 0, bound = 0;

	for (i = 0; i < c->nmatch; i++) {
		s = match_score(&c->match[i], major, minor);
		if (!s)
			return 0;
		sum += s;
		if (c->match[i].kind == M_KERNEL_GE)
			bound += c->match[i].major * 100 + c->match[i].minor;
	}
	return sum * 10000 + bound % 10000;
}

/* what @m says of the running kernel, appended to @buf */
static void match_why(const struct cmatch *m, const char *rel, char *buf,
		      size_t n)
{
	size_t len = strlen(buf);

	if (m->kind == M_PATH)
		snprintf(buf + len, n - len, "%s exists", m->path);
	else if (m->kind == M_VMSTAT)
		snprintf(buf + len, n - len, "/proc/vmstat has %s", m->path);
	else if (m->kind == M_RELEASE)
		snprintf(buf + len, n - len, "kernel %s has %s", rel, m->path);
	else
		snprintf(buf + len, n - len, "kernel %s is %s%d.%d", rel,
			 m->kind == M_KERNEL_GE ? ">=" : "", m->major,
			 m->minor);
}

/* The contract of the running kernel, or NULL; *why says how. */
const struct contract *lp_contract_select(const char **why)
{
	static char buf[512];
	const struct contract *best = NULL;
	int i, major = 0, minor = 0, score, best_score = 0;
	const char *rel = lp_kernel_release();
	size_t len;

	contracts_load();
	sscanf(rel, "%d.%d", &major, &minor);
	for (i = 0; i < nr_contracts; i++) {
		score = contract_score(&contracts[i], major, minor);
		if (score > best_score) {
			best_score = score;
			best = &contracts[i];
		}
	}
	if (!best) {
		snprintf(buf, sizeof(buf),
			 "no contract describes kernel %s: verdicts are unchecked (--expect NAME chooses one)",
			 rel);
	} else {
		snprintf(buf, sizeof(buf), "contract %s: ", best->name);
		for (i = 0; i < best->nmatch; i++) {
			len = strlen(buf);
			if (i)
				snprintf(buf + len, sizeof(buf) - len, " and ");
			match_why(&best->match[i], rel, buf, sizeof(buf));
		}
	}
	*why = buf;
	return best;
}

const struct contract *lp_contract_by_name(const char *name)
{
	int i;

	contracts_load();
	for (i = 0; i < nr_contracts; i++)
		if (!strcmp(contracts[i].name, name))
			return &contracts[i];
	return NULL;
}

const char *lp_contract_name(const struct contract *c)
{
	return c ? c->name : "-";
}

void lp_contract_list(void)
{
	int i;

	contracts_load();
	for (i = 0; i < nr_contracts; i++)
		printf("%s\n", contracts[i].name);
}

/* @pinner is one of the row's comma list of pinners ("": the default) */
static bool pinner_matches(const struct crow *r, const char *pinner)
{
	size_t n = strlen(pinner);
	const char *s = r->pinner;

	if (!strcmp(pinner, LP_PINNER_DEFAULT) && !*s)
		return true;
	if (!*s || !n)
		return !*s && !n;
	for (; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, pinner, n) && (s[n] == ',' || !s[n]))
			return true;
	return false;
}

static bool row_matches(const struct crow *r, const char *pinner,
			const char *lcase, const char *mem, enum prefault pf,
			size_t size)
{
	if (!pinner_matches(r, pinner ? pinner : ""))
		return false;
	if (strcmp(r->lcase, lcase ? lcase : ""))
		return false;
	if (strcmp(r->mem, "*") && strcmp(r->mem, mem))
		return false;
	if (r->pf >= 0 && r->pf != (int)pf)
		return false;
	if (r->size_op == '>' && !(size > r->size))
		return false;
	if (r->size_op == '<' && !(size <= r->size))
		return false;
	return true;
}

static const struct crow *find_row(const struct contract *c,
				   const char *pinner, const char *lcase,
				   const char *mem, enum prefault pf, size_t size)
{
	int i;

	for (i = 0; c && i < c->nrows; i++)
		if (row_matches(&c->rows[i], pinner, lcase, mem, pf, size))
			return &c->rows[i];
	return NULL;
}

bool lp_contract_lookup(const struct contract *c, const char *mem,
		     enum prefault pf, size_t size, int *err, bool *nofault)
{
	return lp_contract_lookup_pinner(c, NULL, mem, pf, size, err, nofault);
}

bool lp_contract_lookup_pinner(const struct contract *c, const char *pinner,
			    const char *mem, enum prefault pf, size_t size,
			    int *err, bool *nofault)
{
	const struct crow *r = find_row(c, pinner, NULL, mem, pf, size);

	if (!r)
		return false;
	*err = r->err;
	*nofault = r->nofault;
	return true;
}

const char *lp_contract_leak(const struct contract *c, const char *pinner,
			  const char *mem, enum prefault pf, size_t size)
{
	const struct crow *r = find_row(c, pinner, NULL, mem, pf, size);

	return r && r->leak[0] ? r->leak : NULL;
}

const char *lp_contract_torture_rsvd(const struct contract *c, const char *mem)
{
	const struct crow *r = find_row(c, NULL, TORTURE_CASE, mem, PF_NONE, 0);

	return r && r->rsvd[0] ? r->rsvd : NULL;
}

bool lp_contract_lookup_case(const struct contract *c, const char *lcase,
			  const char *mem, enum prefault pf, size_t size,
			  int *err, bool *defect)
{
	return lp_contract_lookup_case_pinner(c, NULL, lcase, mem, pf, size, err,
					   defect);
}

bool lp_contract_lookup_case_pinner(const struct contract *c, const char *pinner,
				 const char *lcase, const char *mem,
				 enum prefault pf, size_t size, int *err,
				 bool *defect)
{
	const struct crow *r = find_row(c, pinner, lcase, mem, pf, size);

	if (!r)
		return false;
	*err = r->err;
	*defect = r->defect;
	return true;
}
