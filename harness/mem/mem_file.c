// SPDX-License-Identifier: GPL-2.0
/*
 * File mappings: tmpfs-{shared,private} (shmem), file-{shared,private}
 * (page cache of --dir) and fsdax-{shared,private} (a DAX file in --dir),
 * and two buffers over two VMAs that end in a shared page-cache mapping
 * (anon+file-shared, file-private+file-shared). The kind of file is
 * checked, not assumed: fs type from fstatfs(), DAX from statx()
 * STATX_ATTR_DAX.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

/*
 * What a file on @fs (statx DAX: @dax) is to these backends: the place
 * of the types that map it. hugetlbfs and ramfs are neither tmpfs nor
 * page cache that is written back: no type.
 */
enum mem_place lp_mem_file_place(const char *fs, int dax)
{
	if (dax == 1)
		return PLACE_DAX;
	if (!strcmp(fs, "tmpfs"))
		return PLACE_TMPFS;
	if (!strcmp(fs, "hugetlbfs") || !strcmp(fs, "ramfs"))
		return PLACE_NONE;
	return PLACE_PAGECACHE;
}

static int file_kind_check(const struct mem *m, const char *dir,
			   enum mem_place kind, const char *name)
{
	if (lp_mem_file_place(m->fs_type, m->dax) == kind)
		return LP_OK;
	switch (kind) {
	case PLACE_TMPFS:
		return lp_err(LP_EUSAGE,
			      "%s: --dir %s is %s, not tmpfs: give a tmpfs directory (default /dev/shm)",
			      name, dir, m->fs_type);
	case PLACE_PAGECACHE:
		if (m->dax == 1)
			return lp_err(LP_EUSAGE,
				      "%s: files in --dir %s are DAX: use fsdax-%s, or a mount without -o dax",
				      name, dir, strchr(name, '-') + 1);
		return lp_err(LP_EUSAGE,
			      "%s: --dir %s is %s, not a page-cache filesystem: give a directory on ext4 or xfs, or use tmpfs-%s",
			      name, dir, m->fs_type, strchr(name, '-') + 1);
	default:
		return lp_err(LP_EUSAGE,
			      "%s: a file in --dir %s (%s) is not DAX (statx has no STATX_ATTR_DAX): give a directory on a pmem filesystem mounted with -o dax",
			      name, dir, m->fs_type);
	}
}

/*
 * A file in --dir of the type's place (tmpfs, page cache, DAX), mapped
 * as the type says: arg is MAP_SHARED or MAP_PRIVATE.
 */
static int file_setup(struct mem *m, const struct opts *o)
{
	const char *dir = o->dir ? o->dir : "/dev/shm";
	const char *name = m->ops->name;
	int ret = lp_mem_tmpfile(m, dir, o->size);

	if (ret != LP_OK)
		return ret;
	ret = file_kind_check(m, dir, m->ops->place, name);
	if (ret != LP_OK)
		return ret;
	ret = lp_mem_map_fd(m, m->fd, o->size, m->ops->arg);
	if (ret)
		return lp_err(LP_SKIP, "%s: mmap of a %s file: %s", name,
			      m->fs_type, strerror(-ret));
	return LP_OK;
}

static const struct mem_ops mem_tmpfs_shared_ops = {
	.name = "tmpfs-shared",
	.order = 100,
	.help = "a tmpfs file mapped MAP_SHARED (--dir, default /dev/shm)",
	.map = "shared",
	.backing = "shmem",
	.place = PLACE_TMPFS,
	.flags = MEM_FILE | MEM_SHMEM_FILE,
	.arg = MAP_SHARED,
	.setup = file_setup,
};
MEM_REGISTER(mem_tmpfs_shared_ops);

static const struct mem_ops mem_tmpfs_private_ops = {
	.name = "tmpfs-private",
	.order = 110,
	.help = "a tmpfs file mapped MAP_PRIVATE (--dir, default /dev/shm)",
	.map = "private",
	.backing = "shmem",
	.place = PLACE_TMPFS,
	.flags = MEM_FILE | MEM_PRIVATE,
	.arg = MAP_PRIVATE,
	.setup = file_setup,
};
MEM_REGISTER(mem_tmpfs_private_ops);

static const struct mem_ops mem_file_shared_ops = {
	.name = "file-shared",
	.order = 120,
	.help = "a page-cache file in --dir mapped MAP_SHARED",
	.map = "shared",
	.backing = "page-cache",
	.place = PLACE_PAGECACHE,
	.flags = MEM_FILE,
	.arg = MAP_SHARED,
	.setup = file_setup,
};
MEM_REGISTER(mem_file_shared_ops);

static const struct mem_ops mem_file_private_ops = {
	.name = "file-private",
	.order = 130,
	.help = "a page-cache file in --dir mapped MAP_PRIVATE",
	.map = "private",
	.backing = "page-cache",
	.place = PLACE_PAGECACHE,
	.flags = MEM_FILE | MEM_PRIVATE,
	.arg = MAP_PRIVATE,
	.setup = file_setup,
};
MEM_REGISTER(mem_file_private_ops);

static const struct mem_ops mem_fsdax_shared_ops = {
	.name = "fsdax-shared",
	.order = 140,
	.help = "a file on a DAX mount (--dir) mapped MAP_SHARED",
	.map = "shared",
	.backing = "dax",
	.place = PLACE_DAX,
	.flags = MEM_FILE,
	.arg = MAP_SHARED,
	.setup = file_setup,
};
MEM_REGISTER(mem_fsdax_shared_ops);

static const struct mem_ops mem_fsdax_private_ops = {
	.name = "fsdax-private",
	.order = 150,
	.help = "a file on a DAX mount (--dir) mapped MAP_PRIVATE",
	.map = "private",
	.backing = "dax",
	.place = PLACE_DAX,
	.flags = MEM_FILE | MEM_PRIVATE,
	.arg = MAP_PRIVATE,
	.setup = file_setup,
};
MEM_REGISTER(mem_fsdax_private_ops);

/*
 * One buffer over two VMAs: the first half as arg says (0: private
 * anonymous, else a MAP_PRIVATE mapping of the first half of the file),
 * the second half a MAP_SHARED mapping of the file's second half.
 */
static int file_pair_setup(struct mem *m, const struct opts *o)
{
	const char *name = m->ops->name;
	int first_flags = m->ops->arg;
	size_t half;
	char *p;
	int ret;

	if (lp_mem_half(name, o->size, &half))
		return LP_EUSAGE;
	ret = lp_mem_tmpfile(m, o->dir, o->size);
	if (ret == LP_OK)
		ret = file_kind_check(m, o->dir, PLACE_PAGECACHE, "file-shared");
	if (ret != LP_OK)
		return ret;
	ret = lp_mem_map_anon(m, o->size, 0, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS);
	if (ret)
		return lp_err(LP_SKIP, "%s: mmap: %s", name, strerror(-ret));
	p = m->addr;
	if ((first_flags ?
	     mmap(p, half, PROT_READ | PROT_WRITE, first_flags | MAP_FIXED,
		  m->fd, 0) :
	     mmap(p, half, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)) == MAP_FAILED ||
	    mmap(p + half, o->size - half, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, m->fd, half) == MAP_FAILED)
		return lp_err(LP_SKIP, "%s: mmap of a %s file: %s", name,
			      m->fs_type, strerror(errno));
	return LP_OK;
}

static const struct mem_ops mem_anon_file_ops = {
	.name = "anon+file-shared",
	.order = 190,
	.help = "one buffer over two VMAs: private anon, then a page-cache file in --dir MAP_SHARED",
	.map = "mixed",
	.backing = "anon+page-cache",
	.place = PLACE_PAGECACHE,
	.flags = MEM_FILE | MEM_MULTI,
	.setup = file_pair_setup,
};
MEM_REGISTER(mem_anon_file_ops);

static const struct mem_ops mem_file_pair_ops = {
	.name = "file-private+file-shared",
	.order = 200,
	.help = "one buffer over two VMAs of a page-cache file in --dir: MAP_PRIVATE, then MAP_SHARED",
	.map = "mixed",
	.backing = "page-cache",
	.place = PLACE_PAGECACHE,
	.flags = MEM_FILE | MEM_MULTI,
	.arg = MAP_PRIVATE,
	.setup = file_pair_setup,
};
MEM_REGISTER(mem_file_pair_ops);
