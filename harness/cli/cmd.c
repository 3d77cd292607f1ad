// SPDX-License-Identifier: GPL-2.0
/*
 * The commands, one table (struct lp_cmd, core/longpin.h): what each
 * takes, checks and runs (run.c), and `longpin help` and `longpin man`,
 * printed from it and the options' table by core/help.c. main.c hands
 * the table to the parser; nothing decides here what another command
 * does.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "cli.h"
#include "lifetime.h"
#include "mem.h"
#include "pinner.h"
#include "register.h"
#include "torture.h"

#define END	{ OPT_NR, NULL }

/* ---- what each command takes ---- */

static const struct lp_cmd_opt register_opts[] = {
	{ OPT_MEM }, { OPT_SIZE }, { OPT_PREFAULT }, { OPT_DIR }, { OPT_DEV },
	{ OPT_PINNER }, { OPT_READONLY_PIN }, { OPT_TARGET },
	{ OPT_TARGET_OVERWRITE }, { OPT_BS }, { OPT_QD }, { OPT_IOS },
	{ OPT_RUNTIME }, { OPT_REPEAT }, { OPT_NO_IO }, { OPT_CYCLES },
	{ OPT_MMAP_PROBE }, { OPT_EXPECT }, { OPT_CSV }, { OPT_QUIET },
	{ OPT_NO_MEMLOCK_CHECK }, { OPT_INJECT }, { OPT_HELP }, END,
};

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

static const struct lp_cmd_opt expected_opts[] = {
	{ OPT_MEM }, { OPT_SIZE }, { OPT_PREFAULT }, { OPT_EXPECT },
	{ OPT_PINNER }, { OPT_READONLY_PIN }, { OPT_HELP }, END,
};

static const struct lp_cmd_opt list_opts[] = {
	{ OPT_LIST }, { OPT_HELP }, END,
};

static const struct lp_cmd_opt help_only[] = {
	{ OPT_HELP }, END,
};

static void register_more(FILE *f, bool man)
{
	lp_items_head(f, man, "Memory types (longpin types)");
	lp_mem_list_help(f, man);
	lp_items_head(f, man, "Pinners (longpin pinners)");
	lp_pinners_help(f, man);
}

/* ---- the table ---- */

static int run_help(struct opts *o);
static int run_man(struct opts *o);

const struct lp_cmd lp_cmds[] = {
	{ "register", NULL,
	  "pin a buffer per prefault with a long-term pinner, judge, measure",
	  "Registers one buffer of memory TYPE with a long-term pinner (io_uring's IORING_REGISTER_BUFFERS by default, a FOLL_WRITE|FOLL_LONGTERM pin), checks the kernel's answer against the contract of the running kernel, measures the pin and the unpin, proves that nothing stays pinned, runs fixed-buffer I/O on it where the pinner can, and writes a row per prefault. The command of `longpin --mem TYPE ...`.",
	  register_opts, OPT(OPT_MEM), 0, false, lp_register_check, lp_run_register,
	  register_more },
	{ "lifetime", "CASE",
	  "what happens to a pinned buffer when its memory changes under the pin",
	  "Runs lifetime case CASE on a buffer of memory TYPE per prefault (the buffer pinned by --pinner, io_uring by default): one row each, op lifetime-CASE, judged by the contract's lifetime rows. Without CASE, --list lists the cases; with it, the memory types it applies to. The command of `longpin --lifetime CASE ...`.",
	  lifetime_opts, OPT(OPT_MEM), 1, false, lp_lifetime_check_cmd,
	  lp_run_lifetime, lp_lifetime_more },
	{ "torture", NULL,
	  "race a thread per operation on one io_uring-registered buffer",
	  "Races a thread per operation (register/update, fixed I/O, remap, mremap, fork, madvise, truncate/punch, THP flips, mprotect, migration) on one buffer of memory TYPE for --seconds, judges every answer, every I/O round and the kernel log, and writes one row of its own CSV schema. The command of `longpin --torture SECONDS ...`.",
	  torture_opts, OPT(OPT_MEM), 0, false, lp_torture_check, lp_run_torture,
	  lp_torture_more },
	{ "torture-report", "CSV...", "the torture CSVs of a run as one markdown table",
	  "Prints the torture CSVs of a run, one per kernel (torture-KERNEL.csv), as one markdown table: a row per memory type, a column per kernel, in each cell the verdict, the operations and outcomes and why a run failed. ./run.sh torture writes it to torture.md.",
	  help_only, 0, LP_MAX_ARGS, true, NULL, lp_run_torture_report },
	{ "expected", NULL, "print the contract's answer for TYPE, set nothing up",
	  "Prints what the contract says for memory TYPE, one line per prefault: CONTRACT TYPE PREFAULT SIZE EXPECTED NOFAULT (tab separated; '-' when unknown). The command of `longpin --print-expected ...`.",
	  expected_opts, OPT(OPT_MEM), 0, false, lp_expected_check, lp_run_expected },
	{ "types", NULL, "the memory types and what each needs",
	  "Prints every memory type, tab-separated: map, backing, huge pages, the option and variable of its place, where that resolves now ('-': nowhere) and what the place is. With --list: the names alone, one a line, in the order of the CSV. The command of `longpin --list-types` and `longpin --list`.",
	  list_opts, 0, 0, false, NULL, lp_run_types },
	{ "pinners", NULL, "the long-term pinners",
	  "Prints every pinner --pinner takes and what it pins with; with --list, the names alone, one a line (the pinner column's values, which longpin-compare knows too).",
	  list_opts, 0, 0, false, NULL, lp_run_pinners },
	{ "contracts", NULL, "the contracts longpin judges by",
	  "Prints the names of the contracts (harness/contracts/), one a line. The command of `longpin --list-contracts`.",
	  list_opts, 0, 0, false, NULL, lp_run_contracts },
	{ "hugepages", NULL, "free huge pages that are not reserved",
	  "Prints how many huge pages of the default size are free and not reserved: what a hugetlb type can still map.",
	  help_only, 0, 0, false, NULL, lp_run_hugepages },
	{ "accel", NULL, "what runs this CPU (the CSV's accel column)",
	  "Prints what runs this CPU: none (bare metal), tcg (QEMU's emulator: MiB/s are not hardware figures), kvm, hyperv, xen, vmware, bhyve or vm. The command of `longpin --print-accel`.",
	  help_only, 0, 0, false, NULL, lp_run_accel },
	{ "fio-memtype", "MEM [FS_TYPE DAX]", "the memory type of fio's mem=MEM",
	  "Prints MEMTYPE FS_TYPE DAX (tab separated; '-' none): longpin's memory type of fio's mem=MEM, and the file system of mem=TYPE:FILE asked as the file types ask it, or given. For fio-jobs/.",
	  help_only, 0, 3, true, NULL, lp_run_fio_memtype },
	{ "fio-result", "ERROR", "fio's error as the CSV's result",
	  "Prints fio's error number ERROR as the CSV's result: 0 or -ENAME. For fio-jobs/.",
	  help_only, 0, 1, true, NULL, lp_run_fio_result },
	{ "fio-import", "RAWDIR OUT.csv ACCEL",
	  "fio's runs as CSV rows (fio-jobs/fio2csv.sh)",
	  "Appends to OUT.csv a row per line of RAWDIR/meta.tsv, from fio's jobs on stdin (fio-jobs/fio2csv.sh's jq), through the CSV writer of every row.",
	  help_only, 0, 3, true, NULL, lp_run_fio_import },
	{ "help", "[COMMAND]", "this help, or a command's",
	  "Prints the commands, or the options of COMMAND (as `longpin COMMAND --help` does).",
	  help_only, 0, 1, false, NULL, run_help },
	{ "man", NULL, "print the manual page (roff)",
	  "Prints this manual page in roff, as build/longpin.1 holds it: `man -l build/longpin.1`.",
	  help_only, 0, 0, false, NULL, run_man },
	{ "version", NULL, "the version and the CSV schema",
	  "Prints the version and the CSV schema. The command of `longpin --version`.",
	  help_only, 0, 0, false, NULL, lp_run_version },
	{ NULL },
};

/* ---- help and the manual page ---- */

/* The help of every command, and what longpin is. */
static void help_all(FILE *f)
{
	const struct lp_cmd *c;

	fputs("usage: longpin COMMAND [WORDS] [OPTIONS]\n\n", f);
	lp_text_wrap(f, "Makes the kernel's long-term pinning contract (FOLL_LONGTERM) visible and measurable: for each memory type it pins a buffer with a long-term pinner (io_uring fixed buffers: io_uring; GUP through gup_test: gup-fast, gup; RDMA memory regions: rdma; vfio DMA mappings: vfio), judges the kernel's answer against the contract of the running kernel, proves that nothing stays pinned, checks the data the device wrote, measures, and writes CSV rows (longpin-compare joins them).", 0, 0);
	fputs("\nCommands:\n", f);
	for (c = lp_cmds; c->name; c++) {
		fputs("  ", f);
		lp_cmd_synopsis(f, c, false);
		fprintf(f, "%10s", "");
		lp_text_wrap(f, c->summary, 10, 10);
	}
	fputc('\n', f);
	lp_text_wrap(f, "`longpin COMMAND --help` shows a command's options, `longpin man` the manual page. The forms before the commands still run as the command they were: longpin --mem TYPE ... (register), --lifetime CASE, --torture SECONDS, --print-expected, --list, --list-types, --list-contracts, --print-accel, --fio-memtype, --fio-result, --fio-import, --version.", 0, 0);
	fputc('\n', f);
	lp_text_wrap(f, "Exit status: 0 all verdicts pass, 1 a verdict failed, data mismatch or pin leak, 2 usage or environment error, 77 TYPE cannot be set up here.", 0, 0);
}

static int run_help(struct opts *o)
{
	const struct lp_cmd *c = o->nargs ? lp_cmd_find(lp_cmds, o->arg[0]) : NULL;

	if (o->nargs && !c)
		return lp_err(LP_EUSAGE,
			      "help %s: no such command: longpin help lists them",
			      o->arg[0]);
	if (c)
		lp_cmd_help(stdout, c);
	else
		help_all(stdout);
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
	const struct lp_cmd *c;

	(void)o;
	printf(".TH LONGPIN 1 \"\" \"longpin %s\" \"User Commands\"\n", LONGPIN_VERSION);
	puts(".SH NAME\nlongpin \\- the long-term pinning contract of memory, per memory type");
	puts(".SH SYNOPSIS\n.nh\n.ad l");
	for (c = lp_cmds; c->name; c++)
		lp_cmd_synopsis(stdout, c, true);
	puts(".ad\n.hy\n.SH DESCRIPTION");
	lp_man_text(stdout, "longpin makes the kernel's long-term pinning contract (FOLL_LONGTERM) visible and measurable: for each memory type it pins a buffer with a long-term pinner (io_uring fixed buffers: io_uring; GUP through gup_test: gup-fast, gup; RDMA memory regions: rdma; vfio DMA mappings: vfio), judges the kernel's answer against the contract of the running kernel, proves that nothing stays pinned, checks the data the device wrote, measures, and writes CSV rows, which longpin-compare(1) joins.");
	puts(".PP");
	lp_man_text(stdout, "The forms before the commands still run as the command they were: longpin --mem TYPE ... (register), --lifetime CASE, --torture SECONDS (torture --seconds), --print-expected (expected), --list (types --list), --list-types (types), --list-contracts (contracts), --print-accel (accel), --fio-memtype, --fio-result, --fio-import, --version.");
	puts(".SH COMMANDS");
	for (c = lp_cmds; c->name; c++) {
		printf(".SS \"%s%s%s\"\n", c->name, c->args ? " " : "",
		       c->args ? c->args : "");
		lp_man_text(stdout, c->text);
		lp_opts_man(stdout, c->opts);
		if (c->more)
			c->more(stdout, true);
	}
	puts(".SH \"EXIT STATUS\"\n.TP\n.B 0\nEvery verdict passed.\n.TP\n.B 1\nA verdict failed, a data mismatch or a pin leak.\n.TP\n.B 2\nA usage or environment error (one line on stderr: the cause and the fix).\n.TP\n.B 77\nThe memory type, pinner or case cannot run here (one line: why).");
	printf(".SH ENVIRONMENT\n%s", man_env);
	puts(".SH \"SEE ALSO\"\n.BR longpin\\-compare (1),\n.BR io_uring_register (2)");
	return LP_OK;
}
