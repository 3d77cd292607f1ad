// SPDX-License-Identifier: GPL-2.0
/* --lifetime truncate and punch: the file under the pin loses its pages. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lifetime.h"

/*
 * The file under the buffer loses its pages: the pinned ones still
 * hold what they held and take fixed I/O both ways. The mapping itself
 * is not touched afterwards (beyond EOF it would SIGBUS).
 */
static int lt_shrink(struct lt *t)
{
	bool punch = t->k->arg;
	char *buf = t->m.addr;
	int ret;

	lp_pattern_fill(buf, t->chk, 7);
	memcpy(t->got, buf, t->chk);
	ret = lp_lt_reg(t);
	if (ret)
		return ret;
	if (punch ? fallocate(t->m.fd, FALLOC_FL_PUNCH_HOLE |
			      FALLOC_FL_KEEP_SIZE, 0, t->m.len) :
		    ftruncate(t->m.fd, 0))
		return -errno;
	/* the old contents, from the pinned pages */
	ret = lp_lt_write_check(t, buf, t->chk, t->got,
			     "WRITE_FIXED lost the pinned pages' data");
	/* new contents into them, and out again */
	if (!ret)
		ret = t->p.ops->fixed_io(&t->p, false, t->tfd, buf, t->chk, 0);
	if (!ret)
		ret = lp_lt_write_check(t, buf, 2 * t->chk, t->want,
				     "READ_FIXED then WRITE_FIXED differ");
	return ret ? ret : lp_lt_pin_held(t, punch ? "the hole punch" :
				       "the truncation");
}

const struct lt_case lp_lt_case_truncate = {
	.name = "truncate",
	.checks_data = true,
	.help = "truncate the shmem file under the pin: the pinned pages keep their data and take fixed I/O both ways",
	.run = lt_shrink, .has = MEM_SHMEM_FILE,
	.why = "needs a shmem file (memfd, tmpfs-shared)",
};

const struct lt_case lp_lt_case_punch = {
	.name = "punch",
	.checks_data = true,
	.help = "punch a hole in the shmem file under the pin: as truncate",
	.run = lt_shrink, .arg = 1, .has = MEM_SHMEM_FILE,
	.why = "needs a shmem file (memfd, tmpfs-shared)",
};
