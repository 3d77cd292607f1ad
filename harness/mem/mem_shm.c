// SPDX-License-Identifier: GPL-2.0
/* SysV shared memory: sysv-shm and sysv-shm-huge (SHM_HUGETLB). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "mem.h"

/*
 * A segment of the type's flags (arg: 0, SHM_HUGETLB), marked for
 * removal at once: it dies with the mapping.
 */
static int shm_setup(struct mem *m, const struct opts *o)
{
	const char *what = m->ops->name;
	unsigned long flags = m->ops->arg;
	size_t len = o->size;
	int id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600 | flags);
	void *p;

	if (id < 0)
		return lp_err(LP_SKIP,
			      "%s: shmget of %zu bytes: %s: check kernel.shmmax/shmall (and huge pages)",
			      what, len, strerror(errno));
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	if (p == (void *)-1)
		return lp_err(LP_SKIP, "%s: shmat: %s", what, strerror(errno));
	m->shm = m->addr = p;
	m->len = len;
	strcpy(m->fs_type, flags & SHM_HUGETLB ? "sysv-huge" : "sysv");
	return LP_OK;
}

static const struct mem_ops mem_sysv_shm_ops = {
	.name = "sysv-shm",
	.order = 40,
	.help = "SysV shared memory (shmget + shmat)",
	.map = "shared",
	.backing = "shmem",
	.flags = MEM_SYSV,
	.setup = shm_setup,
};
MEM_REGISTER(mem_sysv_shm_ops);

static const struct mem_ops mem_sysv_shm_huge_ops = {
	.name = "sysv-shm-huge",
	.order = 50,
	.help = "SysV shared memory with SHM_HUGETLB (needs free huge pages)",
	.map = "shared",
	.backing = "hugetlb",
	.flags = MEM_HUGETLB | MEM_SYSV,
	.arg = SHM_HUGETLB,
	.setup = shm_setup,
};
MEM_REGISTER(mem_sysv_shm_huge_ops);
