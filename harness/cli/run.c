// SPDX-License-Identifier: GPL-2.0
/*
 * What each command runs (cmd.c's table points here): the checks of the
 * options that a command shares with no mode below it, what the pinning
 * commands prepare before anything is set up (the memory type, its
 * place and size, the pinner's limits, the CSV, the contract, signals),
 * the skip rows of a run that could not run, and the call of the mode.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fio.h"
#include "lifetime.h"
#include "mem.h"
#include "pinner.h"
#include "register.h"
#include "torture.h"

/* ---- what the pinning commands share ---- */

static void on_signal(int sig)
{
	/* Temp files are unlinked at creation; the kernel drops the rest. */
	static const char msg[] = "longpin: interrupted\n";

	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)n;
	_exit(128 + sig);
}

static int resolve_contract(const struct opts *o, const struct contract **c)
{
	/* LONGPIN_EXPECT: --expect for every run (longpin-vm --contract) */
	const char *env = getenv("LONGPIN_EXPECT");
	const char *name = o->expect ? o->expect : env && *env ? env : NULL;
	const char *why;

	if (name) {
		*c = lp_contract_by_name(name);
		if (!*c)
			return lp_err(LP_EUSAGE,
				      "%s%s: no such contract (longpin contracts lists them)",
				      o->expect ? "--expect " : "LONGPIN_EXPECT=",
				      name);
		return LP_OK;
	}
	*c = lp_contract_select(&why);
	if (!*c || !o->quiet)
		fprintf(stderr, "longpin: %s\n", why);
	return LP_OK;
}

static int find_mem(struct opts *o, const struct mem_ops **ops)
{
	*ops = lp_mem_find(o->mem);
	if (!*ops)
		return lp_err(LP_EUSAGE,
			      "unknown memory type '%s': longpin types lists the %s",
			      o->mem, "known ones");
	lp_mem_place_from_env(*ops, o);
	return LP_OK;
}

/*
 * Before anything is set up: the memory type, its place and size, the
 * limits of @copies pins of it by pinner @pops (io_uring's
 * RLIMIT_MEMLOCK; NULL: none to check), the CSV (unless the command
 * writes another schema: @own_csv) and the contract; then SIGINT and
 * SIGTERM end the run with its temp files gone.
 */
static int prepare(struct opts *o, const struct mem_ops **ops,
		   const struct contract **c, const struct pinner_ops *pops,
		   unsigned int copies, bool io, bool own_csv)
{
	int ret = find_mem(o, ops);

	if (ret == LP_OK)
		ret = lp_mem_check_size(*ops, o, io);
	if (ret == LP_OK && pops && pops->check)
		ret = pops->check(o, copies);
	if (ret == LP_OK && !own_csv)
		ret = lp_csv_check(o->csv, NULL);
	if (ret == LP_OK && !own_csv && o->csv && !strcmp(o->csv, "-"))
		ret = lp_csv_to_stdout();
	if (ret == LP_OK)
		ret = resolve_contract(o, c);
	if (ret != LP_OK)
		return ret;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return LP_OK;
}

/*
 * A run that skips (exit 77) still leaves a row, for every prefault it
 * was asked for and wrote none of: verdict "skip", the reason (the last
 * error's line) its note, so that a skip is never invisible in a CSV.
 * @op: the row's op; @lcase: the lifetime case (expected answers), or
 * NULL. Returns @ret, or LP_EUSAGE when the CSV took no row.
 */
static int skip_rows(const struct opts *o, const struct mem_ops *ops,
		     const struct contract *c, const char *op, int ret)
{
	char why[320], key[32];
	const char *w;
	bool defect;
	int pf;

	if (ret != LP_SKIP || !o->csv || !ops)
		return ret;
	snprintf(why, sizeof(why), "%s", lp_last_err());
	if (lp_csv_check(o->csv, NULL) != LP_OK)
		return LP_EUSAGE;
	if (!c) {
		w = o->expect ? o->expect : getenv("LONGPIN_EXPECT");
		c = w && *w ? lp_contract_by_name(w) : lp_contract_select(&w);
	}
	lp_pinner_key(key, sizeof(key), o);
	for (pf = 0; pf < PF_NR; pf++) {
		struct row r = { .kernel = lp_kernel_release(),
				 .contract = c ? lp_contract_name(c) : "-",
				 .mem = ops->name, .pf = pf, .size = o->size,
				 .op = op, .pinner = o->pinner };

		if (!(o->prefaults & 1u << pf) || lp_rows_written_pf() & 1u << pf)
			continue;
		if (c && o->lcase)
			r.have_expected = lp_contract_lookup_case_pinner(c, key,
				o->lcase, ops->name, pf, o->size, &r.expected,
				&defect);
		else if (c)
			r.have_expected = lp_contract_lookup_pinner(c, key,
				ops->name, pf, o->size, &r.expected, &defect);
		if (lp_row_skip(&r, o, why) != LP_OK)
			return LP_EUSAGE;
	}
	return ret;
}

/* ---- register ---- */

int lp_run_register(struct opts *o)
{
	const struct pinner_ops *pops = lp_pinner_find(o->pinner)->ops;
	/* --inject leak holds a second pin of the buffer */
	bool leak = o->inject && !strcmp(o->inject, "leak");
	const struct mem_ops *ops = NULL;
	const struct contract *c = NULL;
	int ret;

	ret = prepare(o, &ops, &c, pops, leak ? 2 : 1, pops->io && !o->no_io,
		      false);
	if (ret == LP_OK)
		ret = lp_register_run(ops, o, c);
	return skip_rows(o, ops, c, lp_row_op(o), ret);
}

/* ---- lifetime ---- */

int lp_lifetime_check_cmd(struct opts *o)
{
	int ret = lp_pinner_check(o);

	return ret != LP_OK ? ret : lp_lifetime_check(o);
}

int lp_run_lifetime(struct opts *o)
{
	const struct pinner_ops *pops = lp_pinner_find(o->pinner)->ops;
	const struct mem_ops *ops = NULL;
	const struct contract *c = NULL;
	char op[48];
	int ret;

	if (o->list)
		return lp_lifetime_list(o->lcase, o);
	ret = prepare(o, &ops, &c, lp_lifetime_own_limits(o) ? NULL : pops, 1,
		      false, false);
	if (ret == LP_OK)
		ret = lp_lifetime_run(ops, o, c);
	snprintf(op, sizeof(op), "lifetime-%s", o->lcase);
	return skip_rows(o, ops, c, op, ret);
}

/* ---- torture ---- */

int lp_torture_check(struct opts *o)
{
	if (lp_opt_given(o, OPT_PREFAULT))
		return lp_err(LP_EUSAGE,
			      "torture writes the buffer first (prefault write): drop --prefault");
	return LP_OK;
}

int lp_run_torture(struct opts *o)
{
	const struct pinner_ops *pops = lp_pinner_find(o->pinner)->ops;
	const struct mem_ops *ops;
	const struct contract *c;
	int ret;

	if (o->list)
		return lp_torture_list();
	if (!lp_opt_given(o, OPT_SIZE))
		o->size = 0;	/* its own default, by the type */
	ret = find_mem(o, &ops);
	if (ret == LP_OK && !o->size)
		o->size = lp_torture_default_size(ops);
	/* two rings pin the buffer at once */
	if (ret == LP_OK)
		ret = prepare(o, &ops, &c, pops, 2, false, true);
	return ret != LP_OK ? ret : lp_torture_run(ops, o, c);
}

int lp_run_torture_report(struct opts *o)
{
	return lp_torture_report(o->nargs, o->arg);
}

/* ---- expected ---- */

/* What expected checks: --pinner's own options. */
int lp_expected_check(struct opts *o)
{
	return lp_pinner_check(o);
}

/* What the contract says, for other tools (fio rows). */
int lp_run_expected(struct opts *o)
{
	const struct mem_ops *ops;
	const struct contract *c;
	bool nofault = false;
	int pf, err = 0, ret;
	char key[48];

	o->quiet = true;
	ret = find_mem(o, &ops);
	if (ret == LP_OK)
		ret = resolve_contract(o, &c);
	if (ret != LP_OK)
		return ret;
	lp_pinner_key(key, sizeof(key), o);
	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		printf("%s\t%s\t%s\t%zu\t", lp_contract_name(c), o->mem,
		       lp_prefault_name(pf), o->size);
		if (!lp_contract_lookup_pinner(c, key, o->mem, pf, o->size, &err,
					    &nofault))
			printf("-\t-\n");
		else if (!err)
			printf("0\t%d\n", nofault);
		else
			printf("-%s\t%d\n", lp_errno_name(err), nofault);
	}
	return LP_OK;
}

/* ---- the lists ---- */

int lp_run_types(struct opts *o)
{
	if (o->list)
		lp_mem_list();
	else
		lp_mem_list_types();
	return LP_OK;
}

int lp_run_contracts(struct opts *o)
{
	(void)o;
	lp_contract_list();
	return LP_OK;
}

int lp_run_pinners(struct opts *o)
{
	const struct pinner_info *p;
	size_t i;

	if (!o->list) {
		lp_pinners_help(stdout, false);
		return LP_OK;
	}
	for (i = 0; (p = lp_pinner_nth(i)); i++)
		printf("%s\n", p->name);
	return LP_OK;
}

int lp_run_hugepages(struct opts *o)
{
	(void)o;
	printf("%ld\n", lp_hugepages_free());
	return LP_OK;
}

int lp_run_accel(struct opts *o)
{
	(void)o;
	puts(lp_cpu_accel());
	return LP_OK;
}

int lp_run_version(struct opts *o)
{
	(void)o;
	printf("longpin %s (CSV schema %d)\n", LONGPIN_VERSION, LONGPIN_SCHEMA);
	return LP_OK;
}

/* ---- fio-jobs/: their own words (fio_import.c) ---- */

/* The command's words as the argv of its main: argv[0] the command. */
static int run_fio(struct opts *o, int (*fio)(int argc, char **argv))
{
	char *argv[LP_MAX_ARGS + 2];
	int i;

	argv[0] = (char *)o->cmd->name;
	for (i = 0; i < o->nargs; i++)
		argv[i + 1] = (char *)o->arg[i];
	argv[i + 1] = NULL;
	return fio(o->nargs + 1, argv);
}

int lp_run_fio_memtype(struct opts *o)
{
	return run_fio(o, lp_fio_memtype_main);
}

int lp_run_fio_result(struct opts *o)
{
	return run_fio(o, lp_fio_result_main);
}

int lp_run_fio_import(struct opts *o)
{
	return run_fio(o, lp_fio_import_main);
}
