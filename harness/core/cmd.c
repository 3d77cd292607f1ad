// SPDX-License-Identifier: GPL-2.0
/*
 * The commands, one table (cmd.h): what each takes, checks and runs,
 * and the help and manual page made from it. main.c finds the command
 * (opts.c) and runs it; nothing decides here what another command does.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "longpin.h"
#include "mem_ops.h"
#include "pinner.h"

#define END	{ OPT_NR, NULL }

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
		*c = contract_by_name(name);
		if (!*c)
			return lp_err(LP_EUSAGE,
				      "%s%s: no such contract (longpin contracts lists them)",
				      o->expect ? "--expect " : "LONGPIN_EXPECT=",
				      name);
		return LP_OK;
	}
	*c = contract_select(&why);
	if (!*c || !o->quiet)
		fprintf(stderr, "longpin: %s\n", why);
	return LP_OK;
}

static int find_mem(struct opts *o, const struct mem_ops **ops)
{
	*ops = mem_find(o->mem);
	if (!*ops)
		return lp_err(LP_EUSAGE,
			      "unknown memory type '%s': longpin types lists the %s",
			      o->mem, "known ones");
	mem_place_from_env(*ops, o);
	return LP_OK;
}

/*
 * Before anything is set up: the memory type, its place and size, the
 * pinner's limits (@limits: io_uring's RLIMIT_MEMLOCK), the CSV (unless
 * the command writes another schema: @own_csv) and the contract; then
 * SIGINT and SIGTERM end the run with its temp files gone.
 */
static int prepare(struct opts *o, const struct mem_ops **ops,
		   const struct contract **c, int (*limits)(const struct opts *o),
		   bool io, bool own_csv)
{
	int ret = find_mem(o, ops);

	if (ret == LP_OK)
		ret = mem_check_size(*ops, o, io);
	if (ret == LP_OK && limits)
		ret = limits(o);
	if (ret == LP_OK && !own_csv)
		ret = csv_check(o->csv, NULL);
	if (ret == LP_OK && !own_csv && o->csv && !strcmp(o->csv, "-"))
		ret = csv_to_stdout();
	if (ret == LP_OK)
		ret = resolve_contract(o, c);
	if (ret != LP_OK)
		return ret;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return LP_OK;
}

static int pinner_known(const struct opts *o)
{
	const struct pinner_info *p;
	char list[96] = "";
	size_t i, n = 0;

	if (pinner_find(o->pinner))
		return LP_OK;
	while (pinner_nth(n))
		n++;
	for (i = 0; (p = pinner_nth(i)); i++)
		list_add(list, sizeof(list), i, n, p->name);
	return lp_err(LP_EUSAGE, "--pinner %s: give %s (longpin pinners)",
		      o->pinner, list);
}

/* "gup-fast, gup, rdma or vfio": the pinners with a read-only pin */
static const char *readonly_pinners(char *buf, size_t len)
{
	const struct pinner_info *p;
	size_t i, k = 0, n = 0;

	for (i = 0; (p = pinner_nth(i)); i++)
		n += p->ops->readonly;
	buf[0] = '\0';
	for (i = 0; (p = pinner_nth(i)); i++)
		if (p->ops->readonly)
			list_add(buf, len, k++, n, p->name);
	return buf;
}

/* --readonly-pin needs a pinner that has a read-only pin. */
static int readonly_check_c(const struct opts *o)
{
	int ret = pinner_known(o);
	char list[160];

	if (ret != LP_OK || !o->readonly_pin ||
	    pinner_find(o->pinner)->ops->readonly)
		return ret;
	return lp_err(LP_EUSAGE,
		      "--readonly-pin belongs to --pinner %s (%s pins for writing): give --pinner too",
		      readonly_pinners(list, sizeof(list)), o->pinner);
}

static int readonly_check(struct opts *o)
{
	return readonly_check_c(o);
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
	if (csv_check(o->csv, NULL) != LP_OK)
		return LP_EUSAGE;
	if (!c) {
		w = o->expect ? o->expect : getenv("LONGPIN_EXPECT");
		c = w && *w ? contract_by_name(w) : contract_select(&w);
	}
	pinner_key(key, sizeof(key), o);
	for (pf = 0; pf < PF_NR; pf++) {
		struct row r = { .kernel = kernel_release(),
				 .contract = c ? contract_name(c) : "-",
				 .mem = ops->name, .pf = pf, .size = o->size,
				 .op = op, .pinner = o->pinner };

		if (!(o->prefaults & 1u << pf) || rows_written_pf() & 1u << pf)
			continue;
		if (c && o->lcase)
			r.have_expected = contract_lookup_case_pinner(c, key,
				o->lcase, ops->name, pf, o->size, &r.expected,
				&defect);
		else if (c)
			r.have_expected = contract_lookup_pinner(c, key,
				ops->name, pf, o->size, &r.expected, &defect);
		if (row_skip(&r, o, why) != LP_OK)
			return LP_EUSAGE;
	}
	return ret;
}

/* ---- register ---- */

static const enum opt_id io_opts[] = {
	OPT_TARGET, OPT_BS, OPT_QD, OPT_IOS, OPT_RUNTIME, OPT_REPEAT,
	OPT_CYCLES, OPT_INJECT,
};

/*
 * The I/O writes a pattern over --target: a block device, or a file that
 * already holds data, is the user's, not longpin's, unless
 * --target-overwrite says otherwise; anything else (a character device,
 * a directory) it cannot be.
 */
static int target_check(const struct opts *o)
{
	struct stat st;

	if (!o->target || o->no_io || stat(o->target, &st))
		return LP_OK;
	if (S_ISBLK(st.st_mode) && !o->target_overwrite)
		return lp_err(LP_EUSAGE,
			      "--target %s is a block device, whose data the I/O would overwrite: give a new or empty file, or --target-overwrite to write the device",
			      o->target);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return lp_err(LP_EUSAGE,
			      "--target %s is %s: give a regular file or a block device",
			      o->target, file_kind(st.st_mode));
	if (!S_ISREG(st.st_mode) || o->target_overwrite || !st.st_size)
		return LP_OK;
	return lp_err(LP_EUSAGE,
		      "--target %s holds %lld bytes that the I/O would overwrite: give a new or empty file, or --target-overwrite",
		      o->target, (long long)st.st_size);
}

/* A pinner without I/O pins and unpins: I/O and cycles would do nothing. */
static int register_check(struct opts *o)
{
	int ret = readonly_check_c(o);
	size_t i;

	if (ret != LP_OK)
		return ret;
	for (i = 0; !pinner_find(o->pinner)->ops->io && i < ARRAY_SIZE(io_opts); i++)
		if (opt_given(o, io_opts[i]))
			return lp_err(LP_EUSAGE,
				      "--pinner %s only pins and unpins, so --%s would do nothing: drop it",
				      o->pinner, opt_name(io_opts[i]));
	if (o->mmap_probe && !o->cycles)
		return lp_err(LP_EUSAGE,
			      "--mmap-probe runs during --cycles: give --cycles N too");
	return target_check(o);
}

static int run_register(struct opts *o)
{
	const struct pinner_ops *pops = pinner_find(o->pinner)->ops;
	const struct mem_ops *ops = NULL;
	const struct contract *c = NULL;
	struct pinner p = { 0 };
	int ret, worst = LP_OK, pf;
	bool header = true;

	ret = prepare(o, &ops, &c, pops->check, pops->io && !o->no_io, false);
	if (ret != LP_OK)
		return skip_rows(o, ops, c, row_op(o), ret);
	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		ret = pinner_open(&p, o);
		if (ret == LP_OK)
			ret = row_run(&p, ops, o, c, pf, header);
		pinner_close(&p);
		header = false;
		if (ret == LP_EUSAGE || ret == LP_SKIP)
			return skip_rows(o, ops, c, row_op(o), ret);
		if (ret > worst)
			worst = ret;
	}
	return worst;
}

static void register_more(FILE *f, bool man)
{
	items_head(f, man, "Memory types (longpin types)");
	mem_list_help(f, man);
	items_head(f, man, "Pinners (longpin pinners)");
	pinners_help(f, man);
}

static const struct lp_cmd_opt register_opts[] = {
	{ OPT_MEM }, { OPT_SIZE }, { OPT_PREFAULT }, { OPT_DIR }, { OPT_DEV },
	{ OPT_PINNER }, { OPT_READONLY_PIN }, { OPT_TARGET },
	{ OPT_TARGET_OVERWRITE }, { OPT_BS }, { OPT_QD }, { OPT_IOS },
	{ OPT_RUNTIME }, { OPT_REPEAT }, { OPT_NO_IO }, { OPT_CYCLES },
	{ OPT_MMAP_PROBE }, { OPT_EXPECT }, { OPT_CSV }, { OPT_QUIET },
	{ OPT_NO_MEMLOCK_CHECK }, { OPT_INJECT }, { OPT_HELP }, END,
};

/* ---- lifetime ---- */

static int lifetime_check_cmd(struct opts *o)
{
	int ret = readonly_check_c(o);

	return ret != LP_OK ? ret : lifetime_check(o);
}

static int no_limits(const struct opts *o)
{
	(void)o;
	return LP_OK;
}

static int run_lifetime(struct opts *o)
{
	const struct pinner_ops *pops = pinner_find(o->pinner)->ops;
	const struct mem_ops *ops = NULL;
	const struct contract *c = NULL;
	char op[48];
	int ret;

	if (o->list)
		return lifetime_list(o->lcase, o);
	ret = prepare(o, &ops, &c, lifetime_own_limits(o) ? no_limits :
		      pops->check, false, false);
	if (ret == LP_OK)
		ret = lifetime_run(ops, o, c);
	snprintf(op, sizeof(op), "lifetime-%s", o->lcase);
	return skip_rows(o, ops, c, op, ret);
}

static const struct lp_cmd_opt lifetime_opts[] = {
	{ OPT_MEM }, { OPT_SIZE }, { OPT_PREFAULT }, { OPT_DIR }, { OPT_DEV },
	{ OPT_PINNER, "the long-term pinner: io_uring (the default), or one the case takes (its list below)" },
	{ OPT_CYCLES, "lifetime cycles: how many cycles (default 10000)" },
	{ OPT_MMAP_PROBE, "lifetime cycles: a second thread times mmap+munmap of a page (with --cycles)" },
	{ OPT_CONCURRENT, "lifetime cycles beside other pinning processes: the system-wide nr_foll_pin balance is left to the caller (VmPin, per process, is still checked)" },
	{ OPT_EXPECT }, { OPT_CSV }, { OPT_QUIET }, { OPT_NO_MEMLOCK_CHECK },
	{ OPT_LIST, "without CASE: the cases, one a line (with --pinner: those that take it); with CASE: the memory types it applies to" },
	{ OPT_HELP }, END,
};

/* ---- torture ---- */

static int torture_check(struct opts *o)
{
	if (opt_given(o, OPT_PREFAULT))
		return lp_err(LP_EUSAGE,
			      "torture writes the buffer first (prefault write): drop --prefault");
	return LP_OK;
}

static int torture_limits(const struct opts *o)
{
	/* two rings pin the buffer at once */
	return o->no_memlock_check ? LP_OK : io_uring_memlock_check(o, 2);
}

static int run_torture(struct opts *o)
{
	const struct mem_ops *ops;
	const struct contract *c;
	int ret;

	if (o->list)
		return torture_list();
	if (!opt_given(o, OPT_SIZE))
		o->size = 0;	/* its own default, by the type */
	ret = find_mem(o, &ops);
	if (ret == LP_OK && !o->size)
		o->size = torture_default_size(ops);
	if (ret == LP_OK)
		ret = prepare(o, &ops, &c, torture_limits, false, true);
	return ret != LP_OK ? ret : torture_run(ops, o, c);
}

static const struct lp_cmd_opt torture_opts[] = {
	{ OPT_MEM },
	{ OPT_SIZE, "buffer size, N[K|M|G] (default 4M, or 4 huge pages for hugetlb and devdax types)" },
	{ OPT_SECONDS }, { OPT_SEED }, { OPT_OPS }, { OPT_DIR }, { OPT_DEV },
	{ OPT_CONCURRENT }, { OPT_EXPECT },
	{ OPT_CSV, "append its row to FILE, a CSV of its own schema (torture-1)" },
	{ OPT_QUIET, "no summary on stdout" }, { OPT_NO_MEMLOCK_CHECK },
	{ OPT_LIST, "the memory types it applies to, one a line" },
	{ OPT_HELP }, END,
};

static int run_torture_report(struct opts *o)
{
	return torture_report(o->nargs, o->arg);
}

/* ---- expected ---- */

/* What the contract says, for other tools (fio rows). */
static int run_expected(struct opts *o)
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
	pinner_key(key, sizeof(key), o);
	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		printf("%s\t%s\t%s\t%zu\t", contract_name(c), o->mem,
		       prefault_name(pf), o->size);
		if (!contract_lookup_pinner(c, key, o->mem, pf, o->size, &err,
					    &nofault))
			printf("-\t-\n");
		else if (!err)
			printf("0\t%d\n", nofault);
		else
			printf("-%s\t%d\n", errno_name(err), nofault);
	}
	return LP_OK;
}

static const struct lp_cmd_opt expected_opts[] = {
	{ OPT_MEM }, { OPT_SIZE }, { OPT_PREFAULT }, { OPT_EXPECT },
	{ OPT_PINNER }, { OPT_READONLY_PIN }, { OPT_HELP }, END,
};

/* ---- the lists ---- */

static int run_types(struct opts *o)
{
	if (o->list)
		mem_list();
	else
		mem_list_types();
	return LP_OK;
}

static int run_contracts(struct opts *o)
{
	(void)o;
	contract_list();
	return LP_OK;
}

static int run_pinners(struct opts *o)
{
	const struct pinner_info *p;
	size_t i;

	if (!o->list) {
		pinners_help(stdout, false);
		return LP_OK;
	}
	for (i = 0; (p = pinner_nth(i)); i++)
		printf("%s\n", p->name);
	return LP_OK;
}

static int run_hugepages(struct opts *o)
{
	(void)o;
	printf("%ld\n", hugepages_free());
	return LP_OK;
}

static int run_accel(struct opts *o)
{
	(void)o;
	puts(cpu_accel());
	return LP_OK;
}

static int run_version(struct opts *o)
{
	(void)o;
	printf("longpin %s (CSV schema %d)\n", LONGPIN_VERSION, LONGPIN_SCHEMA);
	return LP_OK;
}

static const struct lp_cmd_opt list_opts[] = {
	{ OPT_LIST }, { OPT_HELP }, END,
};

static const struct lp_cmd_opt help_only[] = {
	{ OPT_HELP }, END,
};

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

static int run_fio_memtype(struct opts *o)
{
	return run_fio(o, fio_memtype_main);
}

static int run_fio_result(struct opts *o)
{
	return run_fio(o, fio_result_main);
}

static int run_fio_import(struct opts *o)
{
	return run_fio(o, fio_import_main);
}

/* ---- help and the manual page ---- */

static int run_help(struct opts *o);
static int run_man(struct opts *o);

static const struct lp_cmd cmds[] = {
	{ "register", NULL,
	  "pin a buffer per prefault with a long-term pinner, judge, measure",
	  "Registers one buffer of memory TYPE with a long-term pinner (io_uring's IORING_REGISTER_BUFFERS by default, a FOLL_WRITE|FOLL_LONGTERM pin), checks the kernel's answer against the contract of the running kernel, measures the pin and the unpin, proves that nothing stays pinned, runs fixed-buffer I/O on it where the pinner can, and writes a row per prefault. The command of `longpin --mem TYPE ...`.",
	  register_opts, OPT(OPT_MEM), 0, false, register_check, run_register,
	  register_more },
	{ "lifetime", "CASE",
	  "what happens to a pinned buffer when its memory changes under the pin",
	  "Runs lifetime case CASE on a buffer of memory TYPE per prefault (the buffer pinned by --pinner, io_uring by default): one row each, op lifetime-CASE, judged by the contract's lifetime rows. Without CASE, --list lists the cases; with it, the memory types it applies to. The command of `longpin --lifetime CASE ...`.",
	  lifetime_opts, OPT(OPT_MEM), 1, false, lifetime_check_cmd,
	  run_lifetime, lifetime_more },
	{ "torture", NULL,
	  "race a thread per operation on one io_uring-registered buffer",
	  "Races a thread per operation (register/update, fixed I/O, remap, mremap, fork, madvise, truncate/punch, THP flips, mprotect, migration) on one buffer of memory TYPE for --seconds, judges every answer, every I/O round and the kernel log, and writes one row of its own CSV schema. The command of `longpin --torture SECONDS ...`.",
	  torture_opts, OPT(OPT_MEM), 0, false, torture_check, run_torture,
	  torture_more },
	{ "torture-report", "CSV...", "the torture CSVs of a run as one markdown table",
	  "Prints the torture CSVs of a run, one per kernel (torture-KERNEL.csv), as one markdown table: a row per memory type, a column per kernel, in each cell the verdict, the operations and outcomes and why a run failed. ./run.sh --torture writes it to torture.md.",
	  help_only, 0, LP_MAX_ARGS, true, NULL, run_torture_report },
	{ "expected", NULL, "print the contract's answer for TYPE, set nothing up",
	  "Prints what the contract says for memory TYPE, one line per prefault: CONTRACT TYPE PREFAULT SIZE EXPECTED NOFAULT (tab separated; '-' when unknown). The command of `longpin --print-expected ...`.",
	  expected_opts, OPT(OPT_MEM), 0, false, readonly_check, run_expected },
	{ "types", NULL, "the memory types and what each needs",
	  "Prints every memory type, tab-separated: map, backing, huge pages, the option and variable of its place, where that resolves now ('-': nowhere) and what the place is. With --list: the names alone, one a line, in the order of the CSV. The command of `longpin --list-types` and `longpin --list`.",
	  list_opts, 0, 0, false, NULL, run_types },
	{ "pinners", NULL, "the long-term pinners",
	  "Prints every pinner --pinner takes and what it pins with; with --list, the names alone, one a line (the pinner column's values, which longpin-compare knows too).",
	  list_opts, 0, 0, false, NULL, run_pinners },
	{ "contracts", NULL, "the contracts longpin judges by",
	  "Prints the names of the contracts (harness/contracts/), one a line. The command of `longpin --list-contracts`.",
	  list_opts, 0, 0, false, NULL, run_contracts },
	{ "hugepages", NULL, "free huge pages that are not reserved",
	  "Prints how many huge pages of the default size are free and not reserved: what a hugetlb type can still map.",
	  help_only, 0, 0, false, NULL, run_hugepages },
	{ "accel", NULL, "what runs this CPU (the CSV's accel column)",
	  "Prints what runs this CPU: none (bare metal), tcg (QEMU's emulator: MiB/s are not hardware figures), kvm, hyperv, xen, vmware, bhyve or vm. The command of `longpin --print-accel`.",
	  help_only, 0, 0, false, NULL, run_accel },
	{ "fio-memtype", "MEM [FS_TYPE DAX]", "the memory type of fio's mem=MEM",
	  "Prints MEMTYPE FS_TYPE DAX (tab separated; '-' none): longpin's memory type of fio's mem=MEM, and the file system of mem=TYPE:FILE asked as the file types ask it, or given. For fio-jobs/.",
	  help_only, 0, 3, true, NULL, run_fio_memtype },
	{ "fio-result", "ERROR", "fio's error as the CSV's result",
	  "Prints fio's error number ERROR as the CSV's result: 0 or -ENAME. For fio-jobs/.",
	  help_only, 0, 1, true, NULL, run_fio_result },
	{ "fio-import", "RAWDIR OUT.csv ACCEL",
	  "fio's runs as CSV rows (fio-jobs/fio2csv.sh)",
	  "Appends to OUT.csv a row per line of RAWDIR/meta.tsv, from fio's jobs on stdin (fio-jobs/fio2csv.sh's jq), through the CSV writer of every row.",
	  help_only, 0, 3, true, NULL, run_fio_import },
	{ "help", "[COMMAND]", "this help, or a command's",
	  "Prints the commands, or the options of COMMAND (as `longpin COMMAND --help` does).",
	  help_only, 0, 1, false, NULL, run_help },
	{ "man", NULL, "print the manual page (roff)",
	  "Prints this manual page in roff, as build/longpin.1 holds it: `man -l build/longpin.1`.",
	  help_only, 0, 0, false, NULL, run_man },
	{ "version", NULL, "the version and the CSV schema",
	  "Prints the version and the CSV schema. The command of `longpin --version`.",
	  help_only, 0, 0, false, NULL, run_version },
};

const struct lp_cmd *cmd_nth(size_t i)
{
	return i < ARRAY_SIZE(cmds) ? &cmds[i] : NULL;
}

const struct lp_cmd *cmd_find(const char *name)
{
	return TABLE_FIND(cmds, name, name);
}

bool cmd_takes(const struct lp_cmd *c, enum opt_id id)
{
	const struct lp_cmd_opt *op;

	for (op = c->opts; op->id != OPT_NR; op++)
		if (op->id == id)
			return true;
	return false;
}

const char *cmd_takers(enum opt_id id, char *buf, size_t n)
{
	size_t i, k = 0, count = 0;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		count += cmd_takes(&cmds[i], id);
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmd_takes(&cmds[i], id))
			list_add(buf, n, k++, count, cmds[i].name);
	return buf;
}

/* "longpin lifetime CASE --mem TYPE [--size N] ...", wrapped */
static void synopsis(FILE *f, const struct lp_cmd *c, bool man)
{
	char line[2048], w[64];
	const struct lp_cmd_opt *op;
	size_t len;

	len = snprintf(line, sizeof(line), "%s%s%s%s", man ? "" : "longpin ",
		       man ? "" : c->name, c->args && !man ? " " : "",
		       c->args ? c->args : "");
	for (op = c->opts; op->id != OPT_NR && len < sizeof(line); op++)
		if (op->id != OPT_HELP)
			len += snprintf(line + len, sizeof(line) - len, " %s",
					opt_synopsis(op->id,
						     c->needs & OPT(op->id),
						     w, sizeof(w)));
	if (man) {
		fprintf(f, ".B longpin %s\n", c->name);
		if (line[*line == ' '])
			man_text(f, line + (*line == ' '));
		fputs(".br\n", f);
	} else {
		text_wrap(f, line, 8, 0);
	}
}

void cmd_help(FILE *f, const struct lp_cmd *c)
{
	size_t i;

	if (c) {
		fputs("usage: ", f);
		synopsis(f, c, false);
		fputc('\n', f);
		text_wrap(f, c->text, 0, 0);
		fputs("\nOptions:\n", f);
		opts_help(f, c->opts);
		if (c->more)
			c->more(f, false);
		return;
	}
	fputs("usage: longpin COMMAND [WORDS] [OPTIONS]\n\n", f);
	text_wrap(f, "Makes the kernel's long-term pinning contract (FOLL_LONGTERM) visible and measurable: for each memory type it pins a buffer with a long-term pinner (io_uring fixed buffers: io_uring; GUP through gup_test: gup-fast, gup; RDMA memory regions: rdma; vfio DMA mappings: vfio), judges the kernel's answer against the contract of the running kernel, proves that nothing stays pinned, checks the data the device wrote, measures, and writes CSV rows (longpin-compare joins them).", 0, 0);
	fputs("\nCommands:\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		fputs("  ", f);
		synopsis(f, &cmds[i], false);
		fprintf(f, "%10s", "");
		text_wrap(f, cmds[i].summary, 10, 10);
	}
	fputc('\n', f);
	text_wrap(f, "`longpin COMMAND --help` shows a command's options, `longpin man` the manual page. The forms before the commands still run as the command they were: longpin --mem TYPE ... (register), --lifetime CASE, --torture SECONDS, --print-expected, --list, --list-types, --list-contracts, --print-accel, --fio-memtype, --fio-result, --fio-import, --version.", 0, 0);
	fputc('\n', f);
	text_wrap(f, "Exit status: 0 all verdicts pass, 1 a verdict failed, data mismatch or pin leak, 2 usage or environment error, 77 TYPE cannot be set up here.", 0, 0);
}

static int run_help(struct opts *o)
{
	const struct lp_cmd *c = o->nargs ? cmd_find(o->arg[0]) : NULL;

	if (o->nargs && !c)
		return lp_err(LP_EUSAGE,
			      "help %s: no such command: longpin help lists them",
			      o->arg[0]);
	cmd_help(stdout, c);
	return LP_OK;
}

static const char man_env[] =
	".TP\n.B LONGPIN_FILE_DIR\\fR, \\fBLONGPIN_TMPFS_DIR\\fR, \\fBLONGPIN_DAX_DIR\\fR, \\fBLONGPIN_DEVDAX\n"
	"The place of a memory type when \\-\\-dir or \\-\\-dev is absent (longpin types).\n"
	".TP\n.B LONGPIN_KERNEL_RELEASE\n"
	"The release to choose a contract for, instead of uname \\-r.\n"
	".TP\n.B LONGPIN_RDMA_DEV\n"
	"The RDMA device of \\-\\-pinner rdma (default: the first rxe*, else the first).\n"
	".TP\n.B LONGPIN_VFIO_DEV\n"
	"The PCI device of \\-\\-pinner vfio, bound to vfio\\-pci (default: the first bound to it).\n"
	".TP\n.B TMPDIR\n"
	"Where I/O targets go when the memory has no directory of its own.\n";

static int run_man(struct opts *o)
{
	size_t i;

	(void)o;
	printf(".TH LONGPIN 1 \"\" \"longpin %s\" \"User Commands\"\n", LONGPIN_VERSION);
	puts(".SH NAME\nlongpin \\- the long-term pinning contract of memory, per memory type");
	puts(".SH SYNOPSIS\n.nh\n.ad l");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		synopsis(stdout, &cmds[i], true);
	puts(".ad\n.hy\n.SH DESCRIPTION");
	man_text(stdout, "longpin makes the kernel's long-term pinning contract (FOLL_LONGTERM) visible and measurable: for each memory type it pins a buffer with a long-term pinner (io_uring fixed buffers: io_uring; GUP through gup_test: gup-fast, gup; RDMA memory regions: rdma; vfio DMA mappings: vfio), judges the kernel's answer against the contract of the running kernel, proves that nothing stays pinned, checks the data the device wrote, measures, and writes CSV rows, which longpin-compare(1) joins.");
	puts(".PP");
	man_text(stdout, "The forms before the commands still run as the command they were: longpin --mem TYPE ... (register), --lifetime CASE, --torture SECONDS (torture --seconds), --print-expected (expected), --list (types --list), --list-types (types), --list-contracts (contracts), --print-accel (accel), --fio-memtype, --fio-result, --fio-import, --version.");
	puts(".SH COMMANDS");
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		printf(".SS \"%s%s%s\"\n", cmds[i].name, cmds[i].args ? " " : "",
		       cmds[i].args ? cmds[i].args : "");
		man_text(stdout, cmds[i].text);
		opts_man(stdout, cmds[i].opts);
		if (cmds[i].more)
			cmds[i].more(stdout, true);
	}
	puts(".SH \"EXIT STATUS\"\n.TP\n.B 0\nEvery verdict passed.\n.TP\n.B 1\nA verdict failed, a data mismatch or a pin leak.\n.TP\n.B 2\nA usage or environment error (one line on stderr: the cause and the fix).\n.TP\n.B 77\nThe memory type, pinner or case cannot run here (one line: why).");
	printf(".SH ENVIRONMENT\n%s", man_env);
	puts(".SH \"SEE ALSO\"\n.BR longpin\\-compare (1),\n.BR io_uring_register (2)");
	return LP_OK;
}
