// SPDX-License-Identifier: GPL-2.0
/* --lifetime mremap: the old range still addresses the pinned pages. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "lifetime.h"

/* A free, @align aligned range of @len for MREMAP_FIXED, or NULL. */
static char *reserve(size_t len, size_t align)
{
	char *p = mmap(NULL, len + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + len < p + len + align)
		munmap(a + len, p + len + align - (a + len));
	return a;
}

/* mremap elsewhere: the old (registered) range still addresses the pages. */
static int lt_mremap(struct lt *t)
{
	size_t align = t->ops->flags & MEM_HUGETLB ? lp_hugepage_size() :
		       2 * MiB;
	char *old = t->m.addr, *new;
	int ret;

	/* the runner skips MEM_MULTI and MEM_RDONLY with this very note */
	if (!t->m.shm && (t->m.map != t->m.addr || t->m.map_len != t->m.len)) {
		lp_lt_note(t, "%s: the buffer is not one whole writable mapping",
			t->ops->name);
		return LT_SKIP;
	}
	ret = lp_lt_reg(t);
	if (ret)
		return ret;
	new = reserve(t->m.len, align);
	if (!new)
		return -errno;
	if (mremap(old, t->m.len, t->m.len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   new) == MAP_FAILED) {
		ret = -errno;
		munmap(new, t->m.len);
		lp_lt_note(t, "mremap: %s", strerror(-ret));
		return ret;
	}
	if (t->m.shm)
		t->m.shm = new;
	else
		t->m.map = new;
	t->m.addr = new;
	memset(new, 0, t->chk);
	ret = lp_lt_pin_held(t, "mremap");
	return ret ? ret : lp_lt_read_check(t, old, new,
					 "READ_FIXED at the old address not seen at the new one");
}

const struct lt_case lp_lt_case_mremap = {
	.name = "mremap",
	.checks_data = true,
	.help = "move the buffer with mremap: the old, registered range still addresses the pinned pages",
	.run = lt_mremap,
	.skip_flags = MEM_MULTI | MEM_RDONLY,
	.why_flags = "the buffer is not one whole writable mapping",
};
