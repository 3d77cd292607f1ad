// SPDX-License-Identifier: GPL-2.0
/*
 * longpin: the long-term pinning contract of memory, per memory type.
 * main() finds the command the command line names (opts.c: the new form
 * `longpin COMMAND ...` or an old one) and runs it (cmd.c). See
 * `longpin --help`, `longpin man` and docs/harness.md.
 *
 * The harness, one folder per part:
 *   core/      the command line (opts.c, cmd.c), a row of register
 *              (row.c), the contracts (contract.c), judging (judge.c),
 *              the CSV and the table (output.c), the kernel's counters
 *              (probe.c, kmsg.c), what io_uring users share (ring.c)
 *   mem/       the memory backends, one struct mem_ops per memory type
 *   pinners/   the long-term pinners, one struct pinner_ops each
 *   lifetime/  the lifetime cases, one struct lt_case each, and their runner
 *   torture/   the torture threads and their runner
 *   fio/       fio-jobs/'s commands
 */
#include <stdio.h>

#include "cmd.h"
#include "longpin.h"

int main(int argc, char **argv)
{
	struct opts o;
	int ret;

	/* rows reach a pipe (tee, a log) as they are made, not at exit */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = opts_parse(&o, argc, argv);
	if (ret)
		return ret < 0 ? LP_OK : ret;
	return o.cmd->run(&o);
}
