// SPDX-License-Identifier: GPL-2.0
/* --lifetime munmap: fixed I/O on the pinned pages after munmap. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "lifetime.h"

/* munmap, then fixed I/O still uses the pinned pages. */
static int lt_munmap(struct lt *t)
{
	int ret;

	memcpy(t->m.addr, t->want, t->chk);
	ret = lp_lt_reg(t);
	if (ret)
		return ret;
	if (t->m.shm ? shmdt(t->m.shm) : munmap(t->m.map, t->m.map_len))
		return -errno;
	t->m.shm = t->m.map = NULL;	/* lp_mem_teardown: nothing to unmap */
	ret = lp_lt_pin_held(t, "munmap");
	return ret ? ret : lp_lt_write_check(t, t->m.addr, t->chk, t->want,
					  "WRITE_FIXED after munmap wrote other data");
}

const struct lt_case lp_lt_case_munmap = {
	.name = "munmap",
	.checks_data = true,
	.help = "munmap the pinned buffer: fixed I/O still reaches the pinned pages, VmPin holds until the unpin",
	.run = lt_munmap, .skip_flags = MEM_RDONLY,
	.why_flags = "the buffer is read-only",
};
