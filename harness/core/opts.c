// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: `longpin COMMAND [WORDS] [OPTIONS]`, parsed into
 * struct opts by the table of every option (opt_table.c) and the table of
 * commands it is handed (cli/cmd.c's): a command says which options it
 * takes, and an option it does not take is refused with the commands
 * that do. The old forms (`longpin --mem TYPE`, `--lifetime CASE`,
 * `--torture SECONDS`, `--print-expected`, `--list`...) are read as the
 * commands they were. Fuzzed: fuzz/opts_fuzz.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "longpin.h"

/* ---- the values ---- */

/* A positive integer option within [lo, hi]. */
static int parse_uint(enum opt_id id, const char *arg, unsigned long lo,
		      unsigned long hi, unsigned long *out)
{
	size_t v;

	if (lp_parse_size(arg, &v) || v < lo || v > hi)
		return lp_err(LP_EUSAGE, "--%s %s: give a number from %lu to %lu",
			      lp_opt_name(id), arg, lo, hi);
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
	int ret = lp_parse_size(arg, &o->size);

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
		if (lp_prefault_parse(arg, &o->prefaults))
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

/* ---- the commands ---- */

const struct lp_cmd *lp_cmd_find(const struct lp_cmd *cmds, const char *name)
{
	for (; cmds->name; cmds++)
		if (!strcmp(cmds->name, name))
			return cmds;
	return NULL;
}

bool lp_cmd_takes(const struct lp_cmd *c, enum opt_id id)
{
	const struct lp_cmd_opt *op;

	for (op = c->opts; op->id != OPT_NR; op++)
		if (op->id == id)
			return true;
	return false;
}

const char *lp_cmd_takers(const struct lp_cmd *cmds, enum opt_id id, char *buf,
		       size_t n)
{
	const struct lp_cmd *c;
	size_t k = 0, count = 0;

	for (c = cmds; c->name; c++)
		count += lp_cmd_takes(c, id);
	buf[0] = '\0';
	for (c = cmds; c->name; c++)
		if (lp_cmd_takes(c, id))
			lp_list_add(buf, n, k++, count, c->name);
	return buf;
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
static int opts_taken(const struct opts *o, const struct lp_cmd *cmds)
{
	char who[96];
	int id;

	for (id = 0; id < OPT_NR; id++) {
		if (!lp_opt_given(o, id) || lp_cmd_takes(o->cmd, id))
			continue;
		return lp_err(LP_EUSAGE,
			      "%s takes no --%s (an option of %s): drop it",
			      o->cmd->name, lp_opt_name(id),
			      lp_cmd_takers(cmds, id, who, sizeof(who)));
	}
	return LP_OK;
}

static int parse_opts(struct opts *o, int argc, char **argv)
{
	struct option lo[OPT_NR + 1];
	int c, id, ret;

	for (id = 0; id < OPT_NR; id++)
		lo[id] = (struct option){ lp_opt_info(id)->name,
					  lp_opt_info(id)->arg ?
					  required_argument : no_argument,
					  NULL, id };
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
static int find_cmd(struct opts *o, const struct lp_cmd *cmds, int *argc,
		    char ***argv)
{
	static struct old_form f;
	int ret;

	if (*argc > 1 && (o->cmd = lp_cmd_find(cmds, (*argv)[1])))
		return LP_OK;
	if (*argc > 1 && (*argv)[1][0] != '-')
		return lp_err(LP_EUSAGE,
			      "unknown command '%s': longpin --help lists them",
			      (*argv)[1]);
	/* fio-jobs/'s modes, with their own words (fio_import.c) */
	if (*argc > 1 && !strncmp((*argv)[1], "--fio-", 6)) {
		o->cmd = lp_cmd_find(cmds, (*argv)[1] + 2);
		if (o->cmd)
			return LP_OK;
	}
	if (*argc > 1 && !strcmp((*argv)[1], "--help")) {
		o->cmd = lp_cmd_find(cmds, "help");
		return LP_OK;
	}
	memset(&f, 0, sizeof(f));
	ret = old_scan(&f, *argc, *argv);
	if (ret != LP_OK)
		return ret;
	*argv = old_argv(&f, (*argv)[0], argc);
	o->cmd = lp_cmd_find(cmds, (*argv)[1]);
	return LP_OK;
}

/*
 * Parse the command line into @o, its command one of @cmds. Returns LP_OK
 * to run o->cmd, -1 when done (--help), else an exit status after a
 * one-line error. Callable more than once (the fuzzer does): getopt is
 * reset first.
 */
int lp_opts_parse(struct opts *o, const struct lp_cmd *cmds, int argc,
	       char **argv)
{
	int ret;

	*o = (struct opts){ .size = 16 * MiB, .prefaults = 1u << PF_WRITE,
			    .bs = 4096, .qd = 8, .ios = 2048, .repeat = 3,
			    .pinner = LP_PINNER_DEFAULT, .seconds = 30 };
	ret = find_cmd(o, cmds, &argc, &argv);
	if (ret != LP_OK)
		return ret;
	if (o->cmd->raw && argc == 3 && !strcmp(argv[2], "--help")) {
		lp_cmd_help(stdout, o->cmd);
		return -1;
	}
	if (o->cmd->raw)
		return parse_words(o, argc, argv, 2);
	ret = parse_opts(o, argc - 1, argv + 1);
	if (ret != LP_OK)
		return ret;
	if (lp_opt_given(o, OPT_HELP)) {
		lp_cmd_help(stdout, o->cmd);
		return -1;
	}
	if ((o->cmd->needs & OPT(OPT_MEM)) && !o->mem && !o->list)
		return lp_err(LP_EUSAGE,
			      "no memory type: give --mem TYPE (longpin types lists them)");
	ret = o->cmd->check ? o->cmd->check(o) : LP_OK;
	return ret != LP_OK ? ret : opts_taken(o, cmds);
}
