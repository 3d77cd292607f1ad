// SPDX-License-Identifier: GPL-2.0
/* memfd_create(): memfd and memfd-hugetlb (MFD_HUGETLB), mapped shared. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

/* A memfd of the type's flags (arg: 0, MFD_HUGETLB), mapped shared. */
static int memfd_setup(struct mem *m, const struct opts *o)
{
	const char *what = m->ops->name;
	size_t len = o->size;
	int ret;

	m->fd = memfd_create("longpin", MFD_CLOEXEC | m->ops->arg);
	if (m->fd < 0)
		return lp_err(LP_SKIP, "%s: memfd_create: %s", what,
			      strerror(errno));
	lp_mem_describe_fd(m, m->fd);
	if (ftruncate(m->fd, len))
		return lp_err(LP_SKIP, "%s: ftruncate to %zu: %s", what, len,
			      strerror(errno));
	ret = lp_mem_map_fd(m, m->fd, len, MAP_SHARED);
	if (ret)
		return lp_err(LP_SKIP, "%s: mmap: %s", what, strerror(-ret));
	return LP_OK;
}

static const struct mem_ops mem_memfd_ops = {
	.name = "memfd",
	.order = 60,
	.help = "memfd_create() file mapped MAP_SHARED",
	.map = "shared",
	.backing = "shmem",
	.flags = MEM_SHMEM_FILE,
	.setup = memfd_setup,
};
MEM_REGISTER(mem_memfd_ops);

static const struct mem_ops mem_memfd_hugetlb_ops = {
	.name = "memfd-hugetlb",
	.order = 70,
	.help = "memfd_create(MFD_HUGETLB) mapped MAP_SHARED (needs free huge pages)",
	.map = "shared",
	.backing = "hugetlb",
	.flags = MEM_HUGETLB,
	.arg = MFD_HUGETLB,
	.setup = memfd_setup,
};
MEM_REGISTER(mem_memfd_hugetlb_ops);
