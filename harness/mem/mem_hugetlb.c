// SPDX-License-Identifier: GPL-2.0
/* hugetlb: private anonymous MAP_HUGETLB memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

static int hugetlb_setup(struct mem *m, const struct opts *o)
{
	int ret = lp_mem_map_anon(m, o->size, 0, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB);
	if (ret)
		return lp_err(LP_SKIP, "hugetlb: mmap(MAP_HUGETLB) of %zu bytes: %s",
			      o->size, strerror(-ret));
	strcpy(m->fs_type, "hugetlbfs");
	return LP_OK;
}

static const struct mem_ops mem_hugetlb_ops = {
	.name = "hugetlb",
	.order = 90,
	.help = "private anonymous MAP_HUGETLB memory (needs free huge pages)",
	.map = "private",
	.backing = "hugetlb",
	.flags = MEM_HUGETLB | MEM_PRIVATE,
	.setup = hugetlb_setup,
};
MEM_REGISTER(mem_hugetlb_ops);
