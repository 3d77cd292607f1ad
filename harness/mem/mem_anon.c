// SPDX-License-Identifier: GPL-2.0
/* Anonymous memory: anon, anon-thp, anon-shared, readonly, mixed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

/*
 * Private anonymous memory in small pages, whatever the kernel's THP
 * policy (Debian's is "always"): anon-thp is the type of huge ones.
 */
static void small_pages(void *p, size_t len, int flags)
{
	if (flags & MAP_PRIVATE)
		madvise(p, len, MADV_NOHUGEPAGE);
}

static int anon_map(struct mem *m, size_t len, int flags, const char *what)
{
	int ret = lp_mem_map_anon(m, len, 0, PROT_READ | PROT_WRITE,
			       flags | MAP_ANONYMOUS);

	if (ret)
		return lp_err(LP_SKIP, "%s: mmap of %zu bytes failed: %s",
			      what, len, strerror(-ret));
	small_pages(m->addr, len, flags);
	return LP_OK;
}

/* Anonymous memory mapped with the type's flags (arg: MAP_PRIVATE, ...). */
static int anon_setup(struct mem *m, const struct opts *o)
{
	return anon_map(m, o->size, m->ops->arg, m->ops->name);
}

static int thp_check(void)
{
	char buf[128] = "";
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return lp_err(LP_SKIP,
			      "anon-thp: no /sys/kernel/mm/transparent_hugepage: use a kernel with CONFIG_TRANSPARENT_HUGEPAGE");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && strstr(buf, "[never]"))
		return lp_err(LP_SKIP,
			      "anon-thp: THP is disabled: run `echo madvise > /sys/kernel/mm/transparent_hugepage/enabled` as root");
	return LP_OK;
}

/* 2 MiB aligned, MADV_HUGEPAGE; the CSV records what THP we really got. */
static int anon_thp_setup(struct mem *m, const struct opts *o)
{
	int ret = thp_check();

	if (ret != LP_OK)
		return ret;
	ret = lp_mem_map_anon(m, o->size, 2 * MiB, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS);
	if (ret)
		return lp_err(LP_SKIP, "anon-thp: mmap failed: %s",
			      strerror(-ret));
	if (madvise(m->addr, m->len, MADV_HUGEPAGE))
		return lp_err(LP_SKIP, "anon-thp: madvise(MADV_HUGEPAGE): %s",
			      strerror(errno));
	return LP_OK;
}

/* Fault as asked while writable, then make the mapping PROT_READ. */
static int readonly_populate(struct mem *m, enum prefault pf)
{
	lp_mem_populate(m, pf);
	if (mprotect(m->addr, m->len, PROT_READ))
		return lp_err(LP_SKIP, "readonly: mprotect: %s",
			      strerror(errno));
	return 0;
}

/* One buffer over two adjacent VMAs: private anon, then a shared memfd. */
static int mixed_setup(struct mem *m, const struct opts *o)
{
	size_t half;
	char *p;
	int ret;

	if (lp_mem_half("mixed", o->size, &half))
		return LP_EUSAGE;
	ret = lp_mem_map_anon(m, o->size, 0, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS);
	if (ret)
		return lp_err(LP_SKIP, "mixed: mmap: %s", strerror(-ret));
	p = m->addr;
	if (mmap(p, half, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return lp_err(LP_SKIP, "mixed: mmap anon: %s", strerror(errno));
	small_pages(p, half, MAP_PRIVATE);
	m->fd = memfd_create("longpin-mixed", MFD_CLOEXEC);
	if (m->fd < 0 || ftruncate(m->fd, o->size - half))
		return lp_err(LP_SKIP, "mixed: memfd: %s", strerror(errno));
	if (mmap(p + half, o->size - half, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, m->fd, 0) == MAP_FAILED)
		return lp_err(LP_SKIP, "mixed: mmap memfd: %s",
			      strerror(errno));
	lp_mem_describe_fd(m, m->fd);
	return LP_OK;
}

/* One buffer: private anon, then a hole (nothing mapped). */
static int hole_setup(struct mem *m, const struct opts *o)
{
	size_t half;
	int ret;

	if (lp_mem_half("anon+hole", o->size, &half))
		return LP_EUSAGE;
	ret = lp_mem_map_anon(m, o->size, 0, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS);
	if (ret)
		return lp_err(LP_SKIP, "anon+hole: mmap: %s", strerror(-ret));
	small_pages(m->addr, half, MAP_PRIVATE);
	munmap((char *)m->addr + half, o->size - half);
	return LP_OK;
}

/* Touch the mapped half only: the other is a hole. */
static int hole_populate(struct mem *m, enum prefault pf)
{
	struct mem half = *m;

	half.len = m->len / 2 & ~(size_t)4095;
	return lp_mem_populate(&half, pf);
}

static const struct mem_ops mem_anon_ops = {
	.name = "anon",
	.order = 10,
	.help = "private anonymous memory (MAP_PRIVATE|MAP_ANONYMOUS), small pages (MADV_NOHUGEPAGE)",
	.map = "private",
	.backing = "anon",
	.flags = MEM_PRIVATE | MEM_ANON,
	.arg = MAP_PRIVATE,
	.setup = anon_setup,
};
MEM_REGISTER(mem_anon_ops);

static const struct mem_ops mem_anon_thp_ops = {
	.name = "anon-thp",
	.order = 20,
	.help = "private anonymous, 2 MiB aligned, MADV_HUGEPAGE",
	.map = "private",
	.backing = "anon",
	.flags = MEM_THP | MEM_PRIVATE | MEM_ANON,
	.setup = anon_thp_setup,
};
MEM_REGISTER(mem_anon_thp_ops);

static const struct mem_ops mem_anon_shared_ops = {
	.name = "anon-shared",
	.order = 30,
	.help = "shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS)",
	.map = "shared",
	.backing = "shmem",
	.arg = MAP_SHARED,
	.setup = anon_setup,
};
MEM_REGISTER(mem_anon_shared_ops);

static const struct mem_ops mem_readonly_ops = {
	.name = "readonly",
	.order = 170,
	.help = "private anonymous memory made PROT_READ after the prefault",
	.map = "private",
	.backing = "anon",
	.flags = MEM_RDONLY | MEM_PRIVATE | MEM_ANON,
	.arg = MAP_PRIVATE,
	.setup = anon_setup,
	.populate = readonly_populate,
};
MEM_REGISTER(mem_readonly_ops);

static const struct mem_ops mem_mixed_ops = {
	.name = "mixed",
	.order = 180,
	.help = "one buffer over two VMAs: private anon, then a shared memfd",
	.map = "mixed",
	.backing = "anon+shmem",
	.flags = MEM_MULTI,
	.setup = mixed_setup,
};
MEM_REGISTER(mem_mixed_ops);

static const struct mem_ops mem_anon_hole_ops = {
	.name = "anon+hole",
	.order = 210,
	.help = "one buffer: private anon, then a hole where nothing is mapped",
	.map = "private",
	.backing = "anon+hole",
	.flags = MEM_MULTI,
	.setup = hole_setup,
	.populate = hole_populate,
};
MEM_REGISTER(mem_anon_hole_ops);
