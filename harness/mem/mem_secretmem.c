// SPDX-License-Identifier: GPL-2.0
/*
 * memfd_secret(): pages removed from the kernel's direct map, which no
 * device may reach. GUP refuses every pin of them (check_vma_flags() and
 * the fast path's secretmem test), so registration must always fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem.h"

static int secretmem_open(void)
{
#ifdef SYS_memfd_secret
	return syscall(SYS_memfd_secret, O_CLOEXEC);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int secretmem_setup(struct mem *m, const struct opts *o)
{
	int ret;

	m->fd = secretmem_open();
	if (m->fd < 0 && errno == ENOSYS)
		return lp_err(LP_SKIP,
			      "secretmem: memfd_secret: ENOSYS: the kernel lacks CONFIG_SECRETMEM, or is 6.1-6.4 booted without secretmem.enable=1");
	if (m->fd < 0)
		return lp_err(LP_SKIP, "secretmem: memfd_secret: %s",
			      strerror(errno));
	lp_mem_describe_fd(m, m->fd);
	if (ftruncate(m->fd, o->size))
		return lp_err(LP_SKIP, "secretmem: ftruncate to %zu: %s",
			      o->size, strerror(errno));
	ret = lp_mem_map_fd(m, m->fd, o->size, MAP_SHARED);
	if (ret == -EAGAIN)
		return lp_err(LP_SKIP,
			      "secretmem: mmap: EAGAIN: its pages count against RLIMIT_MEMLOCK: run `ulimit -l %zu` (or unlimited) first",
			      o->size / KiB);
	if (ret)
		return lp_err(LP_SKIP, "secretmem: mmap: %s", strerror(-ret));
	return LP_OK;
}

static const struct mem_ops mem_secretmem_ops = {
	.name = "secretmem",
	.order = 80,
	.help = "memfd_secret() file mapped MAP_SHARED: never pinnable",
	.map = "shared",
	.backing = "secretmem",
	.setup = secretmem_setup,
};
MEM_REGISTER(mem_secretmem_ops);
