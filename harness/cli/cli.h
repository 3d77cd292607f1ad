/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dispatcher, above every mode: the table of commands (cmd.c), from
 * which the parser finds a command and the help and the manual page are
 * printed, and each command's entry (run.c), which checks the options
 * against the memory type, the pinner, the CSV and the contract and
 * calls the mode (register/, lifetime/, torture/, fio/). main.c runs it.
 */
#ifndef LONGPIN_CLI_H
#define LONGPIN_CLI_H

#include "longpin.h"

/* cmd.c: the commands, ended by an entry without a name */
extern const struct lp_cmd lp_cmds[];

/* run.c: the checks and the runs of the commands */
int lp_run_register(struct opts *o);
int lp_lifetime_check_cmd(struct opts *o);
int lp_run_lifetime(struct opts *o);
int lp_torture_check(struct opts *o);
int lp_run_torture(struct opts *o);
int lp_run_torture_report(struct opts *o);
int lp_expected_check(struct opts *o);
int lp_run_expected(struct opts *o);
int lp_run_types(struct opts *o);
int lp_run_pinners(struct opts *o);
int lp_run_contracts(struct opts *o);
int lp_run_hugepages(struct opts *o);
int lp_run_accel(struct opts *o);
int lp_run_version(struct opts *o);
int lp_run_fio_memtype(struct opts *o);
int lp_run_fio_result(struct opts *o);
int lp_run_fio_import(struct opts *o);

#endif
