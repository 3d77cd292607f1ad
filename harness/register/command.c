// SPDX-License-Identifier: GPL-2.0
/*
 * `longpin register` as a command: the checks of its options that need
 * the pinner (I/O options of a pinner without I/O, --mmap-probe without
 * --cycles, a --target that is not longpin's to write), and the run over
 * the prefaults asked for, a row each (register.c). cli/run.c prepares
 * the run (memory type, CSV, contract) and writes the skip rows.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "register.h"

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
	char why[PATH_MAX + 128];
	struct stat st;

	/* the pattern would overwrite the rows, a row the pattern */
	if (o->target && o->csv && strcmp(o->csv, "-") &&
	    lp_same_file(o->target, o->csv))
		return lp_err(LP_EUSAGE,
			      "--target %s and --csv %s are the same file: give each its own",
			      o->target, o->csv);
	if (!o->target || o->no_io || stat(o->target, &st))
		return LP_OK;
	if (S_ISBLK(st.st_mode) && !o->target_overwrite)
		return lp_err(LP_EUSAGE,
			      "--target %s is a block device, whose data the I/O would overwrite: give a new or empty file, or --target-overwrite to write the device",
			      o->target);
	/* --target-overwrite or not, a device something else uses is not ours */
	if (S_ISBLK(st.st_mode) && lp_blk_in_use(st.st_rdev, why, sizeof(why)))
		return lp_err(LP_EUSAGE,
			      "--target %s is in use: %s: give an unused block device or a file",
			      o->target, why);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return lp_err(LP_EUSAGE,
			      "--target %s is %s: give a regular file or a block device",
			      o->target, lp_file_kind(st.st_mode));
	if (!S_ISREG(st.st_mode) || o->target_overwrite || !st.st_size)
		return LP_OK;
	return lp_err(LP_EUSAGE,
		      "--target %s holds %lld bytes that the I/O would overwrite: give a new or empty file, or --target-overwrite",
		      o->target, (long long)st.st_size);
}

/* A pinner without I/O pins and unpins: I/O and cycles would do nothing. */
int lp_register_check(struct opts *o)
{
	int ret = lp_pinner_check(o);
	size_t i;

	if (ret != LP_OK)
		return ret;
	for (i = 0; !lp_pinner_find(o->pinner)->ops->io && i < ARRAY_SIZE(io_opts); i++)
		if (lp_opt_given(o, io_opts[i]))
			return lp_err(LP_EUSAGE,
				      "--pinner %s only pins and unpins, so --%s would do nothing: drop it",
				      o->pinner, lp_opt_name(io_opts[i]));
	if (o->mmap_probe && !o->cycles)
		return lp_err(LP_EUSAGE,
			      "--mmap-probe runs during --cycles: give --cycles N too");
	return target_check(o);
}

/*
 * A row per prefault of o->prefaults, each with a pinner of its own:
 * the worst of their statuses, or LP_EUSAGE / LP_SKIP at the first row
 * that could not run (the caller writes the skip rows of the rest).
 */
int lp_register_run(const struct mem_ops *ops, struct opts *o,
		    const struct contract *c)
{
	struct pinner p = { 0 };
	int ret, worst = LP_OK, pf;
	bool header = true;

	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		ret = lp_pinner_open(&p, o);
		if (ret == LP_OK)
			ret = lp_row_run(&p, ops, o, c, pf, header);
		lp_pinner_close(&p);
		header = false;
		if (ret == LP_EUSAGE || ret == LP_SKIP)
			return ret;
		if (ret > worst)
			worst = ret;
	}
	return worst;
}
