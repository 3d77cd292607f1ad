// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: `longpin COMMAND [WORDS] [OPTIONS]`. One table of
 * every option (its name, argument and help), parsed into struct opts;
 * a command (cmd.c) says which options it takes, and an option it does
 * not take is refused with the commands that do. The old forms
 * (`longpin --mem TYPE`, `--lifetime CASE`, `--torture SECONDS`,
 * `--print-expected`, `--list`...) are read as the commands they were.
 * The help and the manual page are printed from the same tables.
 * Fuzzed: fuzz/opts_fuzz.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "longpin.h"

struct lp_opt {
	const char *name;	/* without "--" */
	const char *arg;	/* the name of its argument, NULL: a flag */
	const char *help;
};

static const struct lp_opt opt_table[OPT_NR] = {
	[OPT_MEM] = { "mem", "TYPE", "the memory type (longpin types lists them)" },
	[OPT_SIZE] = { "size", "N", "buffer size, N[K|M|G] (default 16M)" },
	[OPT_PREFAULT] = { "prefault", "P",
		"what touches the buffer before the pin: none, read, write (default), a comma list, or all; a row each" },
	[OPT_DIR] = { "dir", "DIR",
		"directory for file types; else $LONGPIN_FILE_DIR (page cache), $LONGPIN_DAX_DIR (fsdax), $LONGPIN_TMPFS_DIR (tmpfs, default /dev/shm)" },
	[OPT_DEV] = { "dev", "PATH", "device-dax node for devdax types; else $LONGPIN_DEVDAX" },
	[OPT_PINNER] = { "pinner", "NAME",
		"the long-term pinner: io_uring (the default) or another of `longpin pinners`" },
	[OPT_READONLY_PIN] = { "readonly-pin", NULL,
		"a pin the device only reads (no FOLL_WRITE; RDMA: remote read access; vfio: a map without WRITE), with a pinner that has one" },
	[OPT_TARGET] = { "target", "PATH",
		"file or block device for the I/O (default: a temp file next to the memory, or in $TMPDIR or /tmp); an existing non-empty file is refused: longpin writes over it" },
	[OPT_TARGET_OVERWRITE] = { "target-overwrite", NULL,
		"let --target write over an existing file" },
	[OPT_BS] = { "bs", "N", "I/O block size (default 4K)" },
	[OPT_QD] = { "qd", "N", "I/O queue depth (default 8)" },
	[OPT_IOS] = { "ios", "N", "I/Os per timed pass (default 2048)" },
	[OPT_RUNTIME] = { "runtime", "SEC", "seconds per timed pass instead of --ios" },
	[OPT_REPEAT] = { "repeat", "N", "timed passes of each kind (default 3)" },
	[OPT_NO_IO] = { "no-io", NULL, "pin only, no I/O" },
	[OPT_CYCLES] = { "cycles", "N",
		"N more pin/unpin cycles after the measured one (times: cycle_reg_ns_*; VmPin checked after all)" },
	[OPT_MMAP_PROBE] = { "mmap-probe", NULL,
		"during --cycles a second thread times mmap+munmap of a page" },
	[OPT_CONCURRENT] = { "concurrent", NULL,
		"other pinning processes run meanwhile: the system-wide balances (nr_foll_pin, HugePages_Rsvd) are left to the caller; VmPin, per process, is still checked" },
	[OPT_SECONDS] = { "seconds", "N",
		"how long the threads race, whole seconds from 1 to 3600 (default 30)" },
	[OPT_SEED] = { "seed", "N", "repeat a run's choices (it prints its seed on stderr)" },
	[OPT_OPS] = { "ops", "LIST", "only these operations, a comma list" },
	[OPT_EXPECT] = { "expect", "NAME",
		"the contract to judge by (longpin contracts); default: the one of the running kernel" },
	[OPT_CSV] = { "csv", "FILE", "append rows to FILE (- for stdout)" },
	[OPT_QUIET] = { "quiet", NULL, "no table on stdout" },
	[OPT_NO_MEMLOCK_CHECK] = { "no-memlock-check", NULL,
		"do not refuse a size above RLIMIT_MEMLOCK up front: the kernel answers (-ENOMEM)" },
	[OPT_INJECT] = { "inject", "corrupt|leak|fill",
		"self-tests: corrupt the data check's target, keep a second pin past the unpin, or fill the file system of the buffer's file (or of the I/O target) after its free-space check, as another writer would" },
	[OPT_LIST] = { "list", NULL, "print the names, one a line, and run nothing" },
	[OPT_HELP] = { "help", NULL, "print this help" },
};

const char *opt_name(enum opt_id id)
{
	return opt_table[id].name;
}

bool opt_given(const struct opts *o, enum opt_id id)
{
	return o->given & OPT(id);
}

/* ---- the values ---- */

/* A positive integer option within [lo, hi]. */
static int parse_uint(enum opt_id id, const char *arg, unsigned long lo,
		      unsigned long hi, unsigned long *out)
{
	size_t v;

	if (parse_size(arg, &v) || v < lo || v > hi)
		return lp_err(LP_EUSAGE, "--%s %s: give a number from %lu to %lu",
			      opt_name(id), arg, lo, hi);
	*out = v;
	return LP_OK;
}

static int parse_seconds(struct opts *o, const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || !v || v > 3600)
		return lp_err(LP_EUSAGE,
			      "--seconds %s: give whole seconds from 1 to 3600",
			      arg);
	o->seconds = v;
	return LP_OK;
}

static int parse_size_opt(struct opts *o, const char *arg)
{
	int ret = parse_size(arg, &o->size);

	if (ret == -ERANGE || (!ret && o->size > LP_SIZE_MAX))
		return lp_err(LP_EUSAGE, "--size %s is too large: give at most %luG",
			      arg, LP_SIZE_MAX / GiB);
	if (ret)
		return lp_err(LP_EUSAGE,
			      "--size %s: give bytes or N with K, M or G (e.g. 64M)",
			      arg);
	return LP_OK;
}

/* The options that take a number (or a list of prefaults). */
static int parse_num(struct opts *o, enum opt_id id, const char *arg)
{
	unsigned long v = 0;
	char *end;
	int ret = LP_OK;

	switch (id) {
	case OPT_CYCLES:
		ret = parse_uint(id, arg, 1, 10000000, &v);
		o->cycles = v;
		break;
	case OPT_SECONDS:
		return parse_seconds(o, arg);
	case OPT_SEED:
		errno = 0;
		o->seed = strtoull(arg, &end, 0);
		if (*arg < '0' || *arg > '9' || *end || errno)
			return lp_err(LP_EUSAGE,
				      "--seed %s: give the number longpin printed (0 to 2^64-1)",
				      arg);
		break;
	case OPT_SIZE:
		return parse_size_opt(o, arg);
	case OPT_PREFAULT:
		if (prefault_parse(arg, &o->prefaults))
			return lp_err(LP_EUSAGE,
				      "--prefault %s: give none, read, write, a comma list or all",
				      arg);
		break;
	case OPT_BS:
		ret = parse_uint(id, arg, 512, 16 * MiB, &v);
		if (!ret && v % 512)
			ret = lp_err(LP_EUSAGE, "--bs %s: give a multiple of 512", arg);
		o->bs = v;
		break;
	case OPT_QD:
		ret = parse_uint(id, arg, 1, 4096, &v);
		o->qd = v;
		break;
	case OPT_REPEAT:
		ret = parse_uint(id, arg, 1, 1000, &v);
		o->repeat = v;
		break;
	case OPT_IOS:
		ret = parse_uint(id, arg, 1, 1UL << 40, &v);
		o->ios = v;
		break;
	case OPT_RUNTIME:
		o->runtime = strtod(arg, &end);
		if (*end || !(o->runtime > 0 && o->runtime <= 3600))
			return lp_err(LP_EUSAGE,
				      "--runtime %s: give seconds from 0.001 to 3600",
				      arg);
		break;
	default:
		return lp_err(LP_EUSAGE, "unknown option: see longpin --help");
	}
	return ret;
}

/* The flags and the options that take a name; the rest to parse_num(). */
static int parse_one(struct opts *o, enum opt_id id, const char *arg)
{
	switch (id) {
	case OPT_MEM:
		if (o->mem)
			return lp_err(LP_EUSAGE,
				      "--mem given twice (%s, then %s): give one memory type per run",
				      o->mem, arg);
		o->mem = arg;
		break;
	case OPT_DIR: o->dir = arg; break;
	case OPT_DEV: o->dev = arg; break;
	case OPT_TARGET: o->target = arg; break;
	case OPT_EXPECT: o->expect = arg; break;
	case OPT_CSV: o->csv = arg; break;
	case OPT_QUIET: o->quiet = true; break;
	case OPT_NO_IO: o->no_io = true; break;
	case OPT_MMAP_PROBE: o->mmap_probe = true; break;
	case OPT_NO_MEMLOCK_CHECK: o->no_memlock_check = true; break;
	case OPT_CONCURRENT: o->concurrent = true; break;
	case OPT_TARGET_OVERWRITE: o->target_overwrite = true; break;
	case OPT_OPS: o->torture_ops = arg; break;
	case OPT_READONLY_PIN: o->readonly_pin = true; break;
	case OPT_LIST: o->list = true; break;
	case OPT_HELP: break;
	case OPT_PINNER: o->pinner = arg; break;
	case OPT_INJECT:
		if (strcmp(arg, "corrupt") && strcmp(arg, "leak") &&
		    strcmp(arg, "fill"))
			return lp_err(LP_EUSAGE,
				      "--inject %s: give corrupt, leak or fill", arg);
		o->inject = arg;
		break;
	default:
		return parse_num(o, id, arg);
	}
	return LP_OK;
}

/* ---- the old forms ---- */

/*
 * The forms before the commands, read as the commands they were: a mode
 * option anywhere (--lifetime CASE, --torture SECONDS, --print-expected),
 * a listing (--list, --list-types, --list-contracts), --print-accel,
 * --help, --version, --fio-*; without any, `register`. @argv is rewritten
 * in place (the mode's words go, the command comes first) into @out.
 */
struct old_mode {
	const char *flag;
	const char *cmd;
	enum { OLD_FLAG, OLD_WORD, OLD_SECONDS } kind;
};

static const struct old_mode old_modes[] = {
	{ "--lifetime", "lifetime", OLD_WORD },
	{ "--torture", "torture", OLD_SECONDS },
	{ "--print-expected", "expected", OLD_FLAG },
	{ "--list-types", "types", OLD_FLAG },
	{ "--list-contracts", "contracts", OLD_FLAG },
	{ "--print-accel", "accel", OLD_FLAG },
	{ "--version", "version", OLD_FLAG },
};

/* The old mode @arg names ("--torture=5" too), or NULL. */
static const struct old_mode *old_mode_of(const char *arg, const char **val)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(old_modes); i++) {
		n = strlen(old_modes[i].flag);
		if (strncmp(arg, old_modes[i].flag, n) ||
		    (arg[n] && arg[n] != '='))
			continue;
		*val = arg[n] == '=' ? arg + n + 1 : NULL;
		return &old_modes[i];
	}
	return NULL;
}

struct old_form {
	const struct old_mode *mode;
	const char *word;		/* the mode's word (CASE, SECONDS) */
	char *argv[LP_MAX_ARGS * 4 + 4];
	int argc;
};

/* Take the mode out of @argv into @f, the other words in order. */
static int old_scan(struct old_form *f, int argc, char **argv)
{
	const struct old_mode *m;
	const char *val;
	int i;

	f->argc = 0;
	for (i = 1; i < argc; i++) {
		m = old_mode_of(argv[i], &val);
		if (!m) {
			if (f->argc + 4 >= (int)ARRAY_SIZE(f->argv))
				return lp_err(LP_EUSAGE, "too many arguments: see longpin --help");
			f->argv[f->argc++] = argv[i];
			continue;
		}
		if (m->kind != OLD_FLAG && !val && i + 1 < argc)
			val = argv[++i];
		if (f->mode && f->mode != m)
			return lp_err(LP_EUSAGE,
				      "%s and %s%s%s are two commands: give one (longpin %s ..., longpin %s ...)",
				      f->mode->flag, m->flag, val ? " " : "",
				      val ? val : "", f->mode->cmd, m->cmd);
		if (m->kind != OLD_FLAG && !val)
			return lp_err(LP_EUSAGE,
				      "unknown option or missing argument '%s': see longpin --help",
				      m->flag);
		f->mode = m;
		f->word = val;
	}
	return LP_OK;
}

/* @f as the command's argv: PROG COMMAND [WORD | --seconds N] WORDS... */
static char **old_argv(struct old_form *f, char *prog, int *argc)
{
	static char *out[LP_MAX_ARGS * 4 + 8];
	bool list = false;
	int i, n = 0;

	for (i = 0; i < f->argc; i++)
		list |= !strcmp(f->argv[i], "--list");
	out[n++] = prog;
	out[n++] = (char *)(f->mode ? f->mode->cmd : list ? "types" : "register");
	if (f->mode && f->mode->kind == OLD_SECONDS && !strcmp(f->word, "--list"))
		out[n++] = "--list";
	else if (f->mode && f->mode->kind == OLD_SECONDS)
		out[n++] = "--seconds", out[n++] = (char *)f->word;
	else if (f->mode && f->mode->kind == OLD_WORD)
		out[n++] = (char *)f->word;
	for (i = 0; i < f->argc; i++)
		out[n++] = f->argv[i];
	out[n] = NULL;
	*argc = n;
	return out;
}

/* ---- parsing ---- */

static int parse_words(struct opts *o, int argc, char **argv, int first)
{
	int i;

	for (i = first; i < argc; i++) {
		if (o->nargs == LP_MAX_ARGS || o->nargs == o->cmd->max_args)
			return lp_err(LP_EUSAGE,
				      "unexpected argument '%s': see longpin %s --help",
				      argv[i], o->cmd->name);
		o->arg[o->nargs++] = argv[i];
	}
	return LP_OK;
}

/* Every option given is one the command takes, else why it is refused. */
static int opts_taken(const struct opts *o)
{
	char who[96];
	int id;

	for (id = 0; id < OPT_NR; id++) {
		if (!opt_given(o, id) || cmd_takes(o->cmd, id))
			continue;
		return lp_err(LP_EUSAGE,
			      "%s takes no --%s (an option of %s): drop it",
			      o->cmd->name, opt_name(id),
			      cmd_takers(id, who, sizeof(who)));
	}
	return LP_OK;
}

static int parse_opts(struct opts *o, int argc, char **argv)
{
	struct option lo[OPT_NR + 1];
	int c, id, ret;

	for (id = 0; id < OPT_NR; id++)
		lo[id] = (struct option){ opt_table[id].name,
					  opt_table[id].arg ? required_argument :
					  no_argument, NULL, id };
	lo[OPT_NR] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == '?')
			return lp_err(LP_EUSAGE,
				      "unknown option or missing argument '%s': see longpin %s --help",
				      argv[optind - 1], o->cmd->name);
		o->given |= OPT(c);
		ret = parse_one(o, c, optarg);
		if (ret != LP_OK)
			return ret;
	}
	return parse_words(o, argc, argv, optind);
}

/* The command: argv[1] when it names one, else the old form's. */
static int find_cmd(struct opts *o, int *argc, char ***argv)
{
	static struct old_form f;
	int ret;

	if (*argc > 1 && (o->cmd = cmd_find((*argv)[1])))
		return LP_OK;
	if (*argc > 1 && (*argv)[1][0] != '-')
		return lp_err(LP_EUSAGE,
			      "unknown command '%s': longpin --help lists them",
			      (*argv)[1]);
	/* fio-jobs/'s modes, with their own words (fio_import.c) */
	if (*argc > 1 && !strncmp((*argv)[1], "--fio-", 6)) {
		o->cmd = cmd_find((*argv)[1] + 2);
		if (o->cmd)
			return LP_OK;
	}
	if (*argc > 1 && !strcmp((*argv)[1], "--help")) {
		o->cmd = cmd_find("help");
		return LP_OK;
	}
	memset(&f, 0, sizeof(f));
	ret = old_scan(&f, *argc, *argv);
	if (ret != LP_OK)
		return ret;
	*argv = old_argv(&f, (*argv)[0], argc);
	o->cmd = cmd_find((*argv)[1]);
	return LP_OK;
}

/*
 * Parse the command line into @o. Returns LP_OK to run o->cmd, -1 when
 * done (--help), else an exit status after a one-line error. Callable
 * more than once (the fuzzer does): getopt is reset first.
 */
int opts_parse(struct opts *o, int argc, char **argv)
{
	int ret;

	*o = (struct opts){ .size = 16 * MiB, .prefaults = 1u << PF_WRITE,
			    .bs = 4096, .qd = 8, .ios = 2048, .repeat = 3,
			    .pinner = "io_uring", .seconds = 30 };
	ret = find_cmd(o, &argc, &argv);
	if (ret != LP_OK)
		return ret;
	if (o->cmd->raw && argc == 3 && !strcmp(argv[2], "--help")) {
		cmd_help(stdout, o->cmd);
		return -1;
	}
	if (o->cmd->raw)
		return parse_words(o, argc, argv, 2);
	ret = parse_opts(o, argc - 1, argv + 1);
	if (ret != LP_OK)
		return ret;
	if (opt_given(o, OPT_HELP)) {
		cmd_help(stdout, o->cmd);
		return -1;
	}
	if ((o->cmd->needs & OPT(OPT_MEM)) && !o->mem && !o->list)
		return lp_err(LP_EUSAGE,
			      "no memory type: give --mem TYPE (longpin types lists them)");
	ret = o->cmd->check ? o->cmd->check(o) : LP_OK;
	return ret != LP_OK ? ret : opts_taken(o);
}

/* ---- help and manual page ---- */

/* @n bytes of @s, LP_NBSP (a space no line breaks at) as a space */
static void put_n(FILE *f, const char *s, int n)
{
	for (; n-- > 0; s++)
		fputc(*s == LP_NBSP ? ' ' : *s, f);
}

void text_wrap(FILE *f, const char *text, int indent, int col)
{
	const char *p = text, *sp;
	int n;

	while (*p) {
		n = strlen(p);
		if (col + n > 79) {
			for (sp = p + 79 - col; sp > p && *sp != ' '; sp--)
				;
			n = sp > p ? sp - p : n;
		}
		put_n(f, p, n);
		fputc('\n', f);
		p += n;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
}

/* The options of a command, a paragraph each, for the terminal. */
void opts_help(FILE *f, const struct lp_cmd_opt *opts)
{
	const struct lp_opt *op;
	char left[64];
	int n;

	for (; opts->id != OPT_NR; opts++) {
		op = &opt_table[opts->id];
		n = snprintf(left, sizeof(left), "  --%s%s%s", op->name,
			     op->arg ? " " : "", op->arg ? op->arg : "");
		if (n > 19)
			fprintf(f, "%s\n%19s", left, "");
		else
			fprintf(f, "%-19s", left);
		text_wrap(f, opts->help ? opts->help : op->help, 19, 19);
	}
}

/* @text for roff, inline: backslashes and hyphens escaped. */
void man_esc(FILE *f, const char *text)
{
	const char *p;

	for (p = text; *p; p++) {
		if (*p == '\\')
			fputs("\\e", f);
		else if (*p == LP_NBSP)
			fputs("\\ ", f);
		else if (*p == '-')
			fputs("\\-", f);
		else
			fputc(*p, f);
	}
}

/* @text as a line of roff text: no line starts a request. */
void man_text(FILE *f, const char *text)
{
	if (*text == '.' || *text == '\'')
		fputs("\\&", f);
	man_esc(f, text);
	fputc('\n', f);
}

/* The options of a command as roff: a tagged paragraph each. */
void opts_man(FILE *f, const struct lp_cmd_opt *opts)
{
	const struct lp_opt *op;

	for (; opts->id != OPT_NR; opts++) {
		op = &opt_table[opts->id];
		fputs(op->arg ? ".TP\n.BI \\-\\-" : ".TP\n.B \\-\\-", f);
		man_esc(f, op->name);
		if (op->arg) {
			fputs(" \" ", f);
			man_esc(f, op->arg);
			fputc('"', f);
		}
		fputc('\n', f);
		man_text(f, opts->help ? opts->help : op->help);
	}
}

/* The title of a list after a command's options ("Memory types"). */
void items_head(FILE *f, bool man, const char *title)
{
	if (man)
		fprintf(f, ".PP\n%s:\n", title);
	else
		fprintf(f, "\n%s:\n", title);
}

/* One item of such a list: its name and what it is. */
void item_help(FILE *f, bool man, const char *name, const char *help)
{
	if (man) {
		fputs(".TP\n.B ", f);
		man_text(f, name);
		man_text(f, help);
		return;
	}
	fprintf(f, "  %-17s", name);
	if (strlen(name) > 16)
		fprintf(f, "\n%19s", "");
	text_wrap(f, help, 19, 19);
}

/* "[--size N]", "--mem TYPE": one option in a synopsis */
const char *opt_synopsis(enum opt_id id, bool needed, char *buf, size_t n)
{
	const struct lp_opt *op = &opt_table[id];

	snprintf(buf, n, "%s--%s%s%s%s", needed ? "" : "[", op->name,
		 op->arg ? LP_NBSP_S : "", op->arg ? op->arg : "",
		 needed ? "" : "]");
	return buf;
}
