// SPDX-License-Identifier: GPL-2.0
/*
 * longpin: the long-term pinning contract of memory, per memory type.
 * main() finds the command the command line names (core/opts.c: the new
 * form `longpin COMMAND ...` or an old one, in cmd.c's table) and runs
 * it (run.c). See `longpin --help`, `longpin man` and docs/harness.md.
 *
 * The harness, one folder per part, each calling only the folders below
 * it and declaring its API in its own header:
 *   cli/       the dispatcher: the commands' table, their entries, main()
 *   register/  the register mode: a row per prefault, its counters, checks
 *   lifetime/  the lifetime cases, one struct lt_case each, and their runner
 *   torture/   the torture threads, their runner, judge and row
 *   fio/       fio-jobs/'s commands
 *   pinners/   the long-term pinners, one struct pinner_ops each
 *   mem/       the memory backends, one struct mem_ops per memory type
 *   core/      what every mode stands on: the command line's parser and
 *              help, the contracts, the kernel's counters and log, a row's
 *              verdict, table and CSV; it calls no other folder
 */
#include <stdio.h>

#include "cli.h"
#include "longpin.h"

int main(int argc, char **argv)
{
	struct opts o;
	int ret;

	/* rows reach a pipe (tee, a log) as they are made, not at exit */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = lp_opts_parse(&o, lp_cmds, argc, argv);
	if (ret)
		return ret < 0 ? LP_OK : ret;
	return o.cmd->run(&o);
}
