/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands of longpin (cmd.c), one struct lp_cmd each: its name and
 * words, the options it takes (opts.c's table), its own checks and what
 * it runs. `longpin --help`, `longpin COMMAND --help` and the manual page
 * (`longpin man`) are made from this table and the options', so that
 * none of them can say what the program does not do.
 */
#ifndef LONGPIN_CMD_H
#define LONGPIN_CMD_H

#include "longpin.h"

struct lp_cmd {
	const char *name;
	const char *args;		/* its words ("CASE"), or NULL */
	const char *summary;		/* one line */
	const char *text;		/* what it does, a paragraph */
	const struct lp_cmd_opt *opts;	/* the options it takes, OPT_NR ends */
	uint64_t needs;			/* the options it cannot run without */
	int max_args;			/* words at most */
	bool raw;			/* its words are its own: no options */
	/*
	 * optional: its own checks of @o after the parse (LP_OK, or 2 after
	 * a one-line error), and what its words set in @o
	 */
	int (*check)(struct opts *o);
	/* what it runs: an exit status */
	int (*run)(struct opts *o);
	/* optional: what its help and manual page list after its options */
	void (*more)(FILE *f, bool man);
};

const struct lp_cmd *cmd_nth(size_t i);
const struct lp_cmd *cmd_find(const char *name);
/* the commands that take option @id: "register, lifetime or torture" */
const char *cmd_takers(enum opt_id id, char *buf, size_t n);
bool cmd_takes(const struct lp_cmd *c, enum opt_id id);
/* the help of one command, or of all (@c NULL) */
void cmd_help(FILE *f, const struct lp_cmd *c);

#endif
